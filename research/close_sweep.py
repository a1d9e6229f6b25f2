"""pimc_close's cost against its margin and worlds: for each (margin, worlds) setting,
4-player Fishing 2 games with pimc_close in every seat, the share of its card plays and
trump choices it searches (the others are skilled's, whose two best options score at
least the margin apart) and the CPU seconds per game on one core. Strength is measured
with benchmarks/bench_search.py (--bots pimc_close --params ... --baseline skilled).

    python research/close_sweep.py --margins 0.001,0.002,0.005 --worlds 4,8 --games 20 --horizon 2
"""
from __future__ import annotations

import argparse
import time

from fishing2sim.api import run_games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--margins", default="0.001,0.002,0.005,0.01")
    ap.add_argument("--worlds", default="8")
    ap.add_argument("--horizon", type=int, default=2, help="0: the round's end; 2: plus the "
                    "learned rest of the game")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args()
    run_games(1, 4, seed=1, strategies=["pimc_close"] * 4)  # compiled first
    print(f"horizon {a.horizon}, {a.games} games a setting, seed {a.seed}\n")
    print("| margin | worlds | decisions searched | CPU-s per game |\n|---|---|---|---|")
    for w in [int(x) for x in a.worlds.split(",")]:
        for m in [float(x) for x in a.margins.split(",")]:
            t = time.process_time()
            r = run_games(a.games, 4, seed=a.seed, strategies=["pimc_close"] * 4,
                          params=[[w, 1, a.horizon, 0, m]] * 4)
            dt = (time.process_time() - t) / a.games
            s = r["search"]
            print(f"| {m:g} | {w} | {s[0] / (s[0] + s[3]):.1%} | {dt:.4f} |", flush=True)


if __name__ == "__main__":
    main()
