"""The cost of a report's example game (docs/reference.md, "The example games"): a game
played by ``play_game`` against the same game replayed into the viewer's JSON
(report/replay.py) without and with the bots' reasons, and the JSON's size, for a few
lineups of Fishing 2. Each figure is the median of --games games (compiled first).

    python benchmarks/bench_replay.py
    python benchmarks/bench_replay.py --games 5 --lineups "pimc pimc pimc pimc"
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from fishing2sim.api import play_game
from fishing2sim.report.replay import replay_game

LINEUPS = ["greedy weights random greedy", "skilled skilled skilled skilled",
           "pimc skilled greedy weights", "pimc pimc pimc pimc"]


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lineups", nargs="*", default=LINEUPS)
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; median of {a.games} games, seconds")
    print("| lineup | play_game | replay | replay with reasons | JSON bytes |")
    print("|---|---|---|---|---|")
    for line in a.lineups:
        bots = line.split()
        n = len(bots)
        play_game(players=n, seed=a.seed, strategies=bots)  # compiled first
        replay_game("fishing2", n, a.seed, bots)
        rows = []
        for g in range(1, a.games + 1):
            p = _timed(lambda: play_game(players=n, seed=a.seed, strategies=bots, game=g))
            r = _timed(lambda: replay_game("fishing2", n, a.seed, bots, g, reasons=False))
            out = {}
            w = _timed(lambda: out.update(j=replay_game("fishing2", n, a.seed, bots, g)))
            rows.append((p, r, w, len(json.dumps(out["j"], separators=(",", ":")))))
        med = [statistics.median(x) for x in zip(*rows)]
        print(f"| {line} | {med[0]:.2f} | {med[1]:.2f} | {med[2]:.2f} | {med[3]:,.0f} |")


if __name__ == "__main__":
    main()
