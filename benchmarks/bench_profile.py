"""The cost of the behaviour profile (every skill panel has it, run/profile.py): one panel
run with the profile and one without, each measured once, one worker in this process (the
run, its tables and its report: what a user waits for); the wall time and this process's CPU
time (which other load on a shared machine disturbs less).

    python benchmarks/bench_profile.py                  # overfishing.yaml's 5-player
                                                        # standard-deck condition, its 4 levels
    python benchmarks/bench_profile.py --scale 10       # a tenth of every level's games

The run without the profile is the same file with the profile taken out of its analyses
(config/levels.py ``with_profile`` replaced for this process). Prints one JSON line.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import textwrap
import time
from pathlib import Path


def experiment(folder: Path, scale: int) -> Path:
    """experiments/overfishing.yaml at 5 players with the standard deck: random 200,000
    games, greedy and skilled 20,000, search 1,000, chunks of 1,000 (divided by ``scale``,
    the chunk too, so every level keeps its number of chunks)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bench_profile.yaml"
    g = lambda n: max(1, n // scale)  # noqa: E731
    path.write_text(textwrap.dedent(f"""\
        name: bench_profile
        players: 5
        games: {g(200_000)}
        seed: 2
        chunk: {g(1000)}
        play_levels:
          levels:
            - random
            - {{level: greedy, games: {g(20_000)}}}
            - {{level: skilled, games: {g(20_000)}}}
            - {{level: search, games: {g(1000)}}}
        analyses: [overfishing, depletion]
        output: {folder / 'reports'}
    """))
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=1, help="divide every level's games by this")
    args = ap.parse_args()
    from fishing2sim.config import experiment as loader
    from fishing2sim.study import run

    with_profile = loader.with_profile
    out: dict = {}
    with tempfile.TemporaryDirectory() as d:
        path = experiment(Path(d), args.scale)
        small = experiment(Path(d) / "warm", 1000)
        run(small, workers=1, progress=False)  # compile, warm the caches
        for key in ("without", "with"):
            loader.with_profile = with_profile if key == "with" else (lambda a, p: tuple(a))
            t, c = time.perf_counter(), time.process_time()
            res = run(path, workers=1, progress=False)
            out[key] = (time.perf_counter() - t, time.process_time() - c)
            assert ("profile" in res.tables) == (key == "with")
        loader.with_profile = with_profile
    print(json.dumps({"scale": args.scale,
                      "wall_without": round(out["without"][0], 1),
                      "wall_with": round(out["with"][0], 1),
                      "cpu_without": round(out["without"][1], 1),
                      "cpu_with": round(out["with"][1], 1),
                      "extra_pct_wall": round(100 * (out["with"][0] / out["without"][0] - 1), 1),
                      "extra_pct_cpu": round(100 * (out["with"][1] / out["without"][1] - 1), 1)}))


if __name__ == "__main__":
    main()
