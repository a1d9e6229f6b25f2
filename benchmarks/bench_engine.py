"""Engine figures: random games per second on one core, card plays per second, compile times,
for both rulesets (Fishing 2 and the original Fishing).

    python benchmarks/bench_engine.py            # prints a markdown table
    python benchmarks/bench_engine.py --games 100000 --repeats 7
    python benchmarks/bench_engine.py --skip-compile --ruleset fishing2   # one ruleset only

Speeds are medians over repeats in one run (the machines are shared and noisy); within a
repeat the rulesets are timed one after the other on the same seeds' game numbers, so both
see the same machine load. Cold compile runs a fresh process with an empty numba cache;
warm start runs a fresh process with the cache filled, from interpreter start to the first
finished game.
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


RULESET_NAMES = {"fishing2": "Fishing 2", "fishing": "original Fishing"}


def speed(players: int, games: int, repeats: int, strategies="random",
          rulesets=("fishing2", "fishing")):
    """{ruleset: (median games/s, median card plays/s)}, the rulesets alternating."""
    from fishing2sim.api import run_games
    from fishing2sim.engine.batch import G_PLAYS

    for rs in rulesets:
        run_games(10, players, seed=0, strategies=strategies, ruleset=rs)  # compile / load
    rates = {rs: [] for rs in rulesets}
    plays = {rs: [] for rs in rulesets}
    for r in range(repeats):
        for rs in rulesets:
            t = time.perf_counter()
            a = run_games(games, players, seed=1000 + r, strategies=strategies, ruleset=rs)
            dt = time.perf_counter() - t
            rates[rs].append(games / dt)
            plays[rs].append(a["int"][:, G_PLAYS].sum() / dt)
    return {rs: (statistics.median(rates[rs]), statistics.median(plays[rs]))
            for rs in rulesets}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-compile", action="store_true")
    ap.add_argument("--ruleset", choices=("fishing2", "fishing", "both"), default="both")
    args = ap.parse_args()
    rulesets = ("fishing2", "fishing") if args.ruleset == "both" else (args.ruleset,)
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
        res = speed(players, args.games, args.repeats, rulesets=rulesets)
        for rs in rulesets:
            g, p = res[rs]
            # the Fishing 2 rows keep their historical names
            game = "" if rs == "fishing2" else f" {RULESET_NAMES[rs]}"
            rows.append((f"random {players}-player{game} games/s, one core", f"{g:,.0f}"))
            rows.append((f"random {players}-player{game} card plays/s, one core",
                         f"{p / 1e6:.2f} M ({1e9 / p:.0f} ns/play)"))
        if len(rulesets) == 2:
            ratio = res["fishing2"][0] / res["fishing"][0]
            rows.append((f"{players} players: Fishing 2 games/s / original Fishing games/s",
                         f"{ratio:.2f}"))
    print(f"| figure ({args.games:,} games x {args.repeats} repeats, median) | value |")
    print("|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")


if __name__ == "__main__":
    main()
