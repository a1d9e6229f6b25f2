"""The heuristic bots: how strong they are and what they cost.

    python benchmarks/bench_strategies.py                 # prints markdown tables
    python benchmarks/bench_strategies.py --deals 5000 --games 50000 --repeats 7

Everything is compiled into a fresh numba cache first (about a minute) unless --reuse-cache.

(a) Tournament on paired deals: every heuristic bot in strategies/ plays against three
    reference random bots, once from every seat over the same deals (seat rotation, the same
    game seeds in every rotation), so seats and cards cancel out. A shared win among k
    players counts 1/k. Then the same against a table of greedy, counter and buoy_savvy.
(b) Speed, one core, medians over repeats in one run: games/s of four greedy bots against
    four random bots; cold compile of a lineup of four different bots (a fresh process with
    an empty NUMBA_CACHE_DIR) and warm start (a fresh process, cache filled), interpreter
    start to the first finished game; a strategy loaded from a file outside the repository
    (greedy.py copied to a temporary folder under another name) against the same code
    shipped in strategies/.
"""
from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
G_WINNERS = 3  # column of run_games' "int" array: bitmask of the seats sharing the win
G_PLAYS = 5
FIELD = ["greedy", "counter", "buoy_savvy"]
LINEUP4 = ["greedy", "counter", "buoy_savvy", "weights"]

FIRST_GAME = (
    "import time; t=time.perf_counter(); "
    "from fishing2sim.api import play_games; "
    f"play_games(1, 4, seed=1, strategies={LINEUP4!r}); "
    "print(time.perf_counter()-t)"
)


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


def rotated(bot: str, opponents: list[str], deals: int, players: int, seed: int):
    """Win share and mean points of ``bot`` over ``deals`` deals played from every seat;
    the other seats hold ``opponents`` in order, clockwise from the bot."""
    from fishing2sim.api import run_games
    from fishing2sim.train.evaluate import seat_lineup

    share = points = 0.0
    for seat in range(players):
        lineup = seat_lineup(bot, opponents, seat, players)
        a = run_games(deals, players, seed=seed, strategies=lineup)
        masks = a["int"][:, G_WINNERS]
        k = np.array([bin(int(m)).count("1") for m in masks])
        share += float((((masks >> seat) & 1) / k).sum())
        points += float(a["points"][:, seat].sum())
    n = deals * players
    return share / n, n, points / n


def tournament(bots, opponents, deals, players, seed):
    rows = []
    for bot in bots:
        share, n, pts = rotated(bot, opponents, deals, players, seed)
        lo, hi = wilson(share, n)
        rows.append((bot, n, share, lo, hi, pts))
    rows.sort(key=lambda r: -r[2])
    vs = " + ".join(opponents) if len(set(opponents)) > 1 else f"3 x {opponents[0]}"
    print(f"\n### (a) {players}-player tournament vs {vs}: {deals:,} deals x {players} seats "
          f"(seed {seed})\n")
    print("| bot | games | win share | 95% CI (Wilson) | mean points |")
    print("|---|---|---|---|---|")
    for bot, n, share, lo, hi, pts in rows:
        print(f"| {bot} | {n:,} | {share:.3f} | [{lo:.3f}, {hi:.3f}] | {pts:.1f} |")


def games_per_second(lineups: dict, games: int, repeats: int, players: int = 4):
    """Median games/s and ns per card play of each lineup; the lineups take turns in every
    repeat (so a slow spell of the shared machine hits them alike)."""
    from fishing2sim.api import run_games

    for strategies in lineups.values():
        run_games(10, players, seed=0, strategies=strategies)  # compile / load
    rates = {k: [] for k in lineups}
    plays = {k: [] for k in lineups}
    for r in range(repeats):
        for k, strategies in lineups.items():
            t = time.perf_counter()
            a = run_games(games, players, seed=1000 + r, strategies=strategies)
            dt = time.perf_counter() - t
            rates[k].append(games / dt)
            plays[k].append(a["int"][:, G_PLAYS].sum() / dt)
    return {k: (statistics.median(rates[k]), statistics.median(plays[k])) for k in lineups}


def timed_subprocess(env_extra: dict) -> tuple[float, float]:
    env = dict(os.environ, **env_extra)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", FIRST_GAME], env=env, check=True,
                         capture_output=True, text=True, cwd=str(REPO))
    total = time.perf_counter() - t0
    return total, float(out.stdout.strip().splitlines()[-1])


def speed(games: int, repeats: int, skip_compile: bool):
    rows = []
    if not skip_compile:
        with tempfile.TemporaryDirectory() as d:
            cold_total, cold_in = timed_subprocess({"NUMBA_CACHE_DIR": d})
            warm = [timed_subprocess({"NUMBA_CACHE_DIR": d}) for _ in range(3)]
        lineup = ", ".join(LINEUP4)
        rows.append((f"cold compile, lineup {lineup} (fresh process, empty cache)",
                     f"{cold_total:.1f} s"))
        rows.append(("warm start to first game, same lineup (fresh process, cache filled; "
                     "median of 3)", f"{statistics.median(w[0] for w in warm):.2f} s"))
    with tempfile.TemporaryDirectory() as d:
        user = Path(d) / "user_copy_of_greedy.py"
        shutil.copy(REPO / "strategies" / "greedy.py", user)
        got = games_per_second({"random": ["random"] * 4, "greedy": ["greedy"] * 4,
                                "outside": [str(user)] * 4, "mixed": LINEUP4},
                               games, repeats)
    (rnd, rnd_plays), (gre, gre_plays) = got["random"], got["greedy"]
    rows.append(("4 x random, 4-player games/s", f"{rnd:,.0f} ({1e9 / rnd_plays:.0f} ns/play)"))
    rows.append(("4 x greedy, 4-player games/s", f"{gre:,.0f} ({1e9 / gre_plays:.0f} ns/play)"))
    rows.append(("greedy / random speed", f"{gre / rnd:.2f}"))
    rows.append((f"{', '.join(LINEUP4)}: 4-player games/s", f"{got['mixed'][0]:,.0f}"))
    outside = got["outside"][0]
    rows.append(("4 x greedy copied to a file outside the repo, games/s", f"{outside:,.0f}"))
    rows.append(("outside / shipped (strategies/greedy.py) speed", f"{outside / gre:.2f}"))
    print(f"\n### (b) speed, one core ({games:,} games x {repeats} repeats, median)\n")
    print("| figure | value |")
    print("|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=2500, help="deals per seat rotation")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--games", type=int, default=20_000, help="games per speed repeat")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-compile", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--reuse-cache", action="store_true",
                    help="use the usual numba cache instead of compiling into a fresh one")
    args = ap.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    fresh = None
    if not args.reuse_cache and "NUMBA_CACHE_DIR" not in os.environ:
        # numba keys a cached function on its own file only: a bot compiled by a process
        # that still held an older strategy_kit keeps that code, so compare shipped and
        # user-file bots compiled afresh (numba reads this before its first import)
        fresh = tempfile.TemporaryDirectory()
        os.environ["NUMBA_CACHE_DIR"] = fresh.name
    sys.path.insert(0, str(REPO))
    from fishing2sim.strategy.files import known_strategies

    bots = [b for b in known_strategies() if b != "random"]
    t0 = time.perf_counter()
    tournament(bots + ["random"], ["random"], args.deals, args.players, args.seed)
    tournament(bots + ["random"], FIELD, args.deals, args.players, args.seed)
    print(f"\n(tournaments: {time.perf_counter() - t0:.0f} s)")
    if not args.skip_speed:
        speed(args.games, args.repeats, args.skip_compile)
    if fresh is not None:
        fresh.cleanup()


if __name__ == "__main__":
    main()
