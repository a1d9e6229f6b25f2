"""Search bots: strength against three `weights` bots, a mixed field and three `skilled`,
decision time and rollouts per second.

    python benchmarks/bench_search.py                       # 1,000 deals x 4 rotations each
    python benchmarks/bench_search.py --deals 100 --bots pimc,ismcts --workers 2
    python benchmarks/bench_search.py --deals 200 --bots cheater --opponent pimc
    python benchmarks/bench_search.py --deals 200 --opponent weights,field,skilled
    python benchmarks/bench_search.py --deals 800 --bots pimc_close --opponent skilled,field \
        --baseline skilled --every-seat 40

For every bot and every field (--opponent, a comma list; default all three): seat-rotated
4-player Fishing 2 games against three `weights` bots, against the mixed field ``field``
(three seats from greedy, counter, buoy_savvy and weights_tuned: deal d leaves out the field
bot d mod 4, the other three clockwise from the bot) or against three `skilled` (each deal
played 4 times, the bot in every seat once, so the deals are the same for every bot), its
win share with a 95% CI (over deals: the 4 rotations of a deal are one observation), the
time per game and per searched decision on one core (the games run in --workers processes,
each on its own core), rollouts per searched decision and rollouts per second. Prints a
markdown table (the README's "How strong are the bots?"). --baseline BOT plays BOT on the
same deals and seats too and adds the paired difference of the win shares (bot less
baseline, 95% CI over deals) and the share of decisions searched (a bot with a margin);
--every-seat N times N 4-player games with the bot in every seat (CPU seconds per game,
the panels' cost).
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
    stats = np.zeros(4, np.int64)
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
           "decisions": int(stats[0]), "rollouts": int(stats[1]), "shares": shares,
           "unsearched": int(stats[3])}
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
    ap.add_argument("--params", default="",
                    help="the bots' parameter vector, comma-separated (default: theirs)")
    ap.add_argument("--baseline", default="",
                    help="a bot played on the same deals and seats: the paired difference")
    ap.add_argument("--every-seat", type=int, default=0,
                    help="also time this many games with the bot in every seat")
    a = ap.parse_args()
    a.params = [float(x) for x in a.params.split(",")] if a.params else None
    for opponent in a.opponent.split(","):
        table(a, opponent)
    for b in a.bots.split(",") if a.every_seat else []:
        print(f"`{b}` in every seat (4 players, Fishing 2): "
              f"{every_seat(b, a.every_seat, a.seed, a.params):.4f} CPU-s per game "
              f"({a.every_seat} games, one core)", flush=True)


def every_seat(bot: str, games: int, seed: int, params) -> float:
    """CPU seconds per 4-player game with ``bot`` in every seat (compiled first)."""
    from fishing2sim.api import run_games

    run_games(1, 4, seed=seed + 1, strategies=[bot] * 4, params=[params] * 4)
    t = time.process_time()
    run_games(games, 4, seed=seed, strategies=[bot] * 4, params=[params] * 4)
    return (time.process_time() - t) / games


def paired(r: dict, base: dict) -> str:
    """The paired difference of the win shares, bot less baseline, with its 95% CI over
    deals."""
    d = r["shares"] - base["shares"]
    half = 1.96 * d.std(ddof=1) / math.sqrt(len(d))
    return f"{d.mean():+.3f} [{d.mean() - half:+.3f}, {d.mean() + half:+.3f}]"


def table(a, opponent: str) -> None:
    rows = [bench(b, a.deals, a.workers, a.seed, a.params, opponent=opponent)
            for b in a.bots.split(",")]
    base = bench(a.baseline, a.deals, a.workers, a.seed, opponent=opponent) \
        if a.baseline else None
    field = ("the mixed field (three of " + ", ".join(FIELD) + ")" if opponent == "field"
             else f"three `{opponent}`")
    print(f"{a.deals} deals x 4 rotations against {field} (4 players, Fishing 2), "
          f"seed {a.seed}, {a.workers} workers"
          f"{', params ' + str(a.params) if a.params else ''}\n")
    if base is not None:
        print(f"`{a.baseline}` on the same deals and seats: {base['share']:.3f} "
              f"[{base['lo']:.3f}, {base['hi']:.3f}]\n")
        print(f"| bot | win share [95% CI] | less `{a.baseline}`'s, paired [95% CI] | "
              "decisions searched | ms per game | ms per searched decision | wall time |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            n = r["decisions"] + r["unsearched"]
            dec = f"{r['ms_decision']:.2f}" if "ms_decision" in r else "–"
            print(f"| `{r['bot']}` | {r['share']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] | "
                  f"{paired(r, base)} | {r['decisions'] / n if n else 0:.0%} | "
                  f"{r['ms_game']:.1f} | {dec} | {r['wall']:.0f} s |")
        print(flush=True)
        return
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
