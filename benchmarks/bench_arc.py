"""The cost of the game-arc figures (analyses: [arc]): the same experiment with and
without arc, the median wall time of 3 runs each (alternating, so a busy machine slows both
alike), one worker in this process (the run, its tables and its report written: what a
user waits for). Also the median CPU time of this process, which other load on a shared
machine disturbs less than the wall time.

    python benchmarks/bench_arc.py                    # 4 players, random seats, 100,000 games
    python benchmarks/bench_arc.py --games 20000 --seats weights_tuned
    python benchmarks/bench_arc.py --no-write         # without the report (the arc.png plot
                                                      # and tables are a fixed cost per run)

Random seats are the fastest games, so the arc's share of the time is largest there (the
figure asked for: at most 15% more when requested). Prints one JSON line.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import textwrap
import time
from pathlib import Path


def experiment(folder: Path, games: int, seats: str, analyses: list[str]) -> Path:
    name = "with" if "arc" in analyses else "without"
    path = folder / f"{name}.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: bench_arc_{name}
        players: 4
        games: {games}
        chunk: 20000
        seed: 1
        seats: {seats}
        analyses: [{', '.join(analyses)}]
        output: {folder / 'reports'}
    """))
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seats", default="random")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-write", action="store_true",
                    help="the run and its tables only, no report folder (the per-game cost)")
    args = ap.parse_args()
    from fishing2sim.study import run

    base = ["depletion", "overfishing", "strategies"]
    times: dict[str, list[float]] = {"without": [], "with": []}
    cpu: dict[str, list[float]] = {"without": [], "with": []}
    with tempfile.TemporaryDirectory() as d:
        paths = {"without": experiment(Path(d), args.games, args.seats, base),
                 "with": experiment(Path(d), args.games, args.seats, base + ["arc"])}
        run(paths["with"], workers=1, progress=False)  # compile, warm the caches
        for _ in range(args.repeats):
            for key in ("without", "with"):
                t, c = time.perf_counter(), time.process_time()
                run(paths[key], workers=1, progress=False, write=not args.no_write)
                times[key].append(time.perf_counter() - t)
                cpu[key].append(time.process_time() - c)
    med = {k: statistics.median(v) for k, v in times.items()}
    mcpu = {k: statistics.median(v) for k, v in cpu.items()}
    print(json.dumps({"games": args.games, "seats": args.seats, "write": not args.no_write,
                      "seconds": times, "cpu": cpu,
                      "median_without": round(med["without"], 3),
                      "median_with": round(med["with"], 3),
                      "extra_pct": round(100 * (med["with"] / med["without"] - 1), 1),
                      "cpu_extra_pct": round(100 * (mcpu["with"] / mcpu["without"] - 1), 1)}))


if __name__ == "__main__":
    main()
