"""Engine figures: random games per second on one core, card plays per second, compile times.

    python benchmarks/bench_engine.py            # prints a markdown table
    python benchmarks/bench_engine.py --games 100000 --repeats 7

Speeds are medians over repeats in one run (the machines are shared and noisy). Cold
compile runs a fresh process with an empty numba cache; warm start runs a fresh process
with the cache filled, from interpreter start to the first finished game.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

FIRST_GAME = (
    "import time; t=time.perf_counter(); "
    "from fishing2sim.api import play_games; play_games(1, 4, seed=1); "
    "print(time.perf_counter()-t)"
)


def timed_subprocess(env_extra: dict) -> float:
    env = dict(os.environ, **env_extra)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", FIRST_GAME], env=env, check=True,
                         capture_output=True, text=True)
    total = time.perf_counter() - t0
    return total, float(out.stdout.strip().splitlines()[-1])


def speed(players: int, games: int, repeats: int, strategies="random"):
    from fishing2sim.api import run_games

    run_games(10, players, seed=0, strategies=strategies)  # compile / load
    rates, plays = [], []
    for r in range(repeats):
        t = time.perf_counter()
        a = run_games(games, players, seed=1000 + r, strategies=strategies)
        dt = time.perf_counter() - t
        rates.append(games / dt)
        plays.append(a["int"][:, 5].sum() / dt)
    return statistics.median(rates), statistics.median(plays)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-compile", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    rows = []
    if not args.skip_compile:
        with tempfile.TemporaryDirectory() as d:
            cold_total, cold_in = timed_subprocess({"NUMBA_CACHE_DIR": d})
            warm = [timed_subprocess({"NUMBA_CACHE_DIR": d}) for _ in range(3)]
        rows.append(("JIT compile, cold (fresh process, empty cache)", f"{cold_total:.1f} s"))
        rows.append(("warm start to first game (fresh process, cache=True)",
                     f"{statistics.median(w[0] for w in warm):.2f} s"))
    for players in (4, 3, 5):
        g, p = speed(players, args.games, args.repeats)
        rows.append((f"random {players}-player games/s, one core", f"{g:,.0f}"))
        rows.append((f"random {players}-player card plays/s, one core",
                     f"{p / 1e6:.2f} M ({1e9 / p:.0f} ns/play)"))
    print(f"| figure ({args.games:,} games x {args.repeats} repeats, median) | value |")
    print("|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")


if __name__ == "__main__":
    main()
