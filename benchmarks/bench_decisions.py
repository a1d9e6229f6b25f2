"""The cost of the decision stakes (analyses: [decisions]): the same experiment with
and without decisions, in one run side by side: the median wall time of 3 runs each
(alternating, so a busy machine slows both alike), one worker in this process (the run, its
tables and its report written: what a user waits for), and the median CPU time of this
process, which other load on a shared machine disturbs less. Prints one JSON line with the
load average before and after.

    python benchmarks/bench_decisions.py                  # 4 players, random seats, 100,000 games
    python benchmarks/bench_decisions.py --trump          # both runs with trump_value too
    python benchmarks/bench_decisions.py --rate 0.05 --play-rate 0.0005
    python benchmarks/bench_decisions.py --seats weights_tuned --games 20000

Random seats are the fastest games and a run without trump_value the cheapest one, so the
replays' share of the time is largest there (the figure asked for: at most 15% more when
requested). The rates default to the file's defaults (config/keys.py).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import textwrap
import time
from pathlib import Path


def experiment(folder: Path, games: int, seats: str, analyses: list[str], rates: str) -> Path:
    name = "with" if "decisions" in analyses else "without"
    path = folder / f"{name}.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: bench_decisions_{name}
        players: 4
        games: {games}
        chunk: 20000
        seed: 1
        seats: {seats}
        analyses: [{', '.join(analyses)}]
        output: {folder / 'reports'}
    """) + (f"decisions: {{{rates}}}\n" if rates and "decisions" in analyses else ""))
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seats", default="random")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--trump", action="store_true", help="trump_value in both runs")
    ap.add_argument("--rate", type=float, default=None)
    ap.add_argument("--play-rate", type=float, default=None)
    ap.add_argument("--no-write", action="store_true",
                    help="the run and its tables only, no report folder (the per-game cost)")
    args = ap.parse_args()
    from fishing2sim.study import run

    base = ["depletion", "overfishing", "strategies"] + (["trump_value"] if args.trump else [])
    rates = ", ".join(f"{k}: {v}" for k, v in (("rate", args.rate),
                                               ("play_rate", args.play_rate)) if v is not None)
    times: dict[str, list[float]] = {"without": [], "with": []}
    cpu: dict[str, list[float]] = {"without": [], "with": []}
    load = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory() as d:
        paths = {"without": experiment(Path(d), args.games, args.seats, base, rates),
                 "with": experiment(Path(d), args.games, args.seats, base + ["decisions"],
                                    rates)}
        run(paths["with"], workers=1, progress=False)  # compile, warm the caches
        run(paths["without"], workers=1, progress=False)
        for _ in range(args.repeats):
            for key in ("without", "with"):
                t, c = time.perf_counter(), time.process_time()
                run(paths[key], workers=1, progress=False, write=not args.no_write)
                times[key].append(time.perf_counter() - t)
                cpu[key].append(time.process_time() - c)
    med = {k: statistics.median(v) for k, v in times.items()}
    mcpu = {k: statistics.median(v) for k, v in cpu.items()}
    print(json.dumps({"games": args.games, "seats": args.seats, "trump_value": args.trump,
                      "rates": rates or "defaults", "write": not args.no_write,
                      "load_before": load, "load_after": [round(x, 2) for x in os.getloadavg()],
                      "seconds": [[round(x, 3) for x in times[k]] for k in times],
                      "median_without": round(med["without"], 3),
                      "median_with": round(med["with"], 3),
                      "extra_pct": round(100 * (med["with"] / med["without"] - 1), 1),
                      "cpu_extra_pct": round(100 * (mcpu["with"] / mcpu["without"] - 1), 1)}))


if __name__ == "__main__":
    main()
