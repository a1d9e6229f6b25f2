"""Search bots: strength against three `weights` bots, a mixed field and three `skilled`,
decision time and rollouts per second.

    python benchmarks/bench_search.py                       # 1,000 deals x 4 rotations each
    python benchmarks/bench_search.py --deals 100 --bots pimc,ismcts --workers 2
    python benchmarks/bench_search.py --deals 200 --bots cheater --opponent pimc
    python benchmarks/bench_search.py --deals 200 --opponent weights,field,skilled

For every bot and every field (--opponent, a comma list; default all three): seat-rotated
4-player Fishing 2 games against three `weights` bots, against the mixed field ``field``
(three seats from greedy, counter, buoy_savvy and weights_tuned: deal d leaves out the field
bot d mod 4, the other three clockwise from the bot) or against three `skilled` (each deal
played 4 times, the bot in every seat once, so the deals are the same for every bot), its
win share with a 95% CI (over deals: the 4 rotations of a deal are one observation), the
time per game and per searched decision on one core (the games run in --workers processes,
each on its own core), rollouts per searched decision and rollouts per second. Prints a
markdown table (the README's "How strong are the bots?").
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

from fishing2sim.run.processes import pool_map

OPPONENT = "weights"
OPPONENTS = "weights,field,skilled"
FIELD = ["greedy", "counter", "buoy_savvy", "weights_tuned"]


def _opponents(opponent: str, deal: int) -> list:
    """The three other seats, clockwise from the bot, for deal ``deal``."""
    if opponent == "field":
        return [x for i, x in enumerate(FIELD) if i != deal % 4]
    return [opponent] * 3


def play_block(bot: str, seed: int, start: int, n: int, params, opponent: str = OPPONENT) -> dict:
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from fishing2sim.api import run_games
    from fishing2sim.engine.batch import G_WINNERS

    run_games(1, 4, seed=seed + 1, strategies=[bot] + _opponents(opponent, 0),
              params=[params, None, None, None])  # compile or load
    shares = np.zeros(n)
    stats = np.zeros(3, np.int64)
    t = time.process_time()
    # a field that changes with the deal: one deal a call; otherwise all n deals at once
    groups = [(d, 1) for d in range(start, start + n)] if opponent == "field" else [(start, n)]
    for g0, gn in groups:
        for r in range(4):  # the bot in seat r
            lineup = [None] * 4
            lineup[r] = bot
            for k, o in enumerate(_opponents(opponent, g0)):
                lineup[(r + 1 + k) % 4] = o
            ps = [None] * 4
            ps[r] = params
            a = run_games(gn, 4, seed=seed, start=g0, strategies=lineup, params=ps)
            winners = a["int"][:, G_WINNERS]
            k = np.array([bin(int(m)).count("1") for m in winners])
            shares[g0 - start:g0 - start + gn] += np.where((winners >> r) & 1, 1.0 / k, 0.0)
            stats += a["search"]
    return {"shares": shares / 4, "cpu": time.process_time() - t, "stats": stats}


def bench(bot: str, deals: int, workers: int, seed: int, params=None,
          opponent: str = OPPONENT) -> dict:
    blocks = max(workers, math.ceil(deals / 50))
    sizes = [deals // blocks + (1 if i < deals % blocks else 0) for i in range(blocks)]
    starts = np.cumsum([0] + sizes[:-1])
    t = time.perf_counter()
    parts = pool_map(play_block, [(bot, seed, int(s), n, params, opponent)
                                  for s, n in zip(starts, sizes)], workers)
    wall = time.perf_counter() - t
    shares = np.concatenate([p["shares"] for p in parts])
    cpu = sum(p["cpu"] for p in parts)
    stats = sum(p["stats"] for p in parts)
    mean = shares.mean()
    half = 1.96 * shares.std(ddof=1) / math.sqrt(len(shares))
    games = 4 * deals
    out = {"bot": bot, "deals": deals, "games": games, "share": mean, "lo": mean - half,
           "hi": mean + half, "ms_game": 1000 * cpu / games, "wall": wall,
           "decisions": int(stats[0]), "rollouts": int(stats[1])}
    if stats[0]:
        out["ms_decision"] = 1000 * cpu / stats[0]  # nearly all of a game's time is search
        out["rollouts_decision"] = stats[1] / stats[0]
        out["rollouts_s"] = stats[1] / cpu
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--bots", default="pimc,ismcts,cheater,weights_tuned")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--opponent", default=OPPONENTS,
                    help="the other three seats: a bot, or 'field' (the mixed field); a "
                         "comma list: one table each")
    a = ap.parse_args()
    for opponent in a.opponent.split(","):
        table(a, opponent)


def table(a, opponent: str) -> None:
    rows = [bench(b, a.deals, a.workers, a.seed, opponent=opponent) for b in a.bots.split(",")]
    field = ("the mixed field (three of " + ", ".join(FIELD) + ")" if opponent == "field"
             else f"three `{opponent}`")
    print(f"{a.deals} deals x 4 rotations against {field} (4 players, Fishing 2), "
          f"seed {a.seed}, {a.workers} workers\n")
    print("| bot | win share [95% CI] | ms per game | ms per searched decision | "
          "rollouts per decision | rollouts/s | wall time |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        dec = f"{r['ms_decision']:.2f}" if "ms_decision" in r else "–"
        rpd = f"{r['rollouts_decision']:.0f}" if "rollouts_decision" in r else "–"
        rps = f"{r['rollouts_s']:,.0f}" if "rollouts_s" in r else "–"
        print(f"| `{r['bot']}` | {r['share']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] | "
              f"{r['ms_game']:.1f} | {dec} | {rpd} | {rps} | {r['wall']:.0f} s |")
    print(flush=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # its processes ended with the pool: nothing is left running
        print("stopped: what is printed above is all that was measured", file=sys.stderr)
        raise SystemExit(130)
