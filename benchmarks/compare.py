"""Games per second of this tree against an earlier commit, measured in one run.

    python benchmarks/compare.py --base HEAD~1            # the default lineups
    python benchmarks/compare.py --base 221d55d --games 40000 --repeats 5
    python benchmarks/compare.py --base HEAD --strict     # also strict mode's cost
    python benchmarks/compare.py --base 221d55d --startup --only none --repeats 2
                                                          # cold compile and warm start only

The earlier commit is checked out into a temporary git worktree; every measurement runs in
a fresh process (its numba cache warmed by one game first) of one tree or the other, the
trees alternating, so both see the same machine load. Reports medians over the repeats and
the ratio new / base (the machines are shared and noisy: compare ratios from one run).
``--startup`` also times a fresh process to its first game (play_games(1, 4)): cold, with an
empty numba cache, then warm (three runs on that cache), per repeat and tree alternating.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

LINEUPS = {
    "random 4p Fishing 2": ("fishing2", ["random"] * 4),
    "random 4p Fishing": ("fishing", ["random"] * 4),
    "greedy 4p Fishing 2": ("fishing2", ["greedy"] * 4),
    "four heuristic bots 4p": ("fishing2", ["greedy", "counter", "buoy_savvy", "weights"]),
    "weights 4p Fishing 2": ("fishing2", ["weights"] * 4),
}

MEASURE = """
import json, sys, time
from fishing2sim.api import run_games
ruleset, lineup, games, strict = json.loads(sys.argv[1])
kw = {"strict": True} if strict else {}
run_games(20, 4, seed=0, ruleset=ruleset, strategies=lineup, **kw)  # load / compile
t = time.perf_counter()
run_games(games, 4, seed=1, ruleset=ruleset, strategies=lineup, **kw)
print(games / (time.perf_counter() - t))
"""


def measure(tree: Path, ruleset: str, lineup: list, games: int, strict: bool = False) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", MEASURE,
                          json.dumps([ruleset, lineup, games, strict])],
                         cwd=tree, env=env, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(f"{tree}: {out.stderr[-2000:]}")
    return float(out.stdout.strip().splitlines()[-1])


FIRST_GAME = "from fishing2sim.api import play_games; play_games(1, 4, seed=1)"


def startup(tree: Path) -> tuple[float, list[float]]:
    """(cold seconds, [warm seconds x 3]) of a fresh process's first game in ``tree``."""
    import time

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=cache)
        times = []
        for _ in range(4):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", FIRST_GAME], cwd=tree, env=env, check=True,
                           capture_output=True, timeout=1800)
            times.append(time.perf_counter() - t)
    return times[0], times[1:]


def which_package(tree: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(tree))
    return subprocess.run([sys.executable, "-c", "import fishing2sim; print(fishing2sim.__file__)"],
                          cwd=tree, env=env, capture_output=True, text=True).stdout.strip()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD", help="the commit to compare against")
    ap.add_argument("--games", type=int, default=30_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--strict", action="store_true", help="also time strict mode (this tree)")
    ap.add_argument("--only", default=None, help="one lineup name (see LINEUPS; 'none': no "
                    "lineup)")
    ap.add_argument("--startup", action="store_true",
                    help="also time cold compile and warm start to the first game")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(base),
                        args.base], check=True, capture_output=True)
        try:
            for tree in (REPO, base):
                assert which_package(tree).startswith(str(tree)), which_package(tree)
            rev = subprocess.run(["git", "-C", str(base), "rev-parse", "--short", "HEAD"],
                                 capture_output=True, text=True).stdout.strip()
            print(f"| lineup ({args.games:,} games x {args.repeats}) | base {rev} games/s "
                  "| this tree games/s | ratio |")
            print("|---|---:|---:|---:|")
            rows = {k: v for k, v in LINEUPS.items() if args.only in (None, k)}
            for name, (ruleset, lineup) in rows.items():
                new, old = [], []
                for _ in range(args.repeats):
                    old.append(measure(base, ruleset, lineup, args.games))
                    new.append(measure(REPO, ruleset, lineup, args.games))
                o, n = statistics.median(old), statistics.median(new)
                print(f"| {name} | {o:,.0f} | {n:,.0f} | {n / o:.2f} |", flush=True)
            if args.startup:
                cold = {"base": [], "new": []}
                warm = {"base": [], "new": []}
                for _ in range(args.repeats):
                    for key, tree in (("base", base), ("new", REPO)):
                        c, w = startup(tree)
                        cold[key].append(c)
                        warm[key].extend(w)
                print(f"\n| start-up, fresh process to its first game | base {rev} | this tree "
                      "| ratio |")
                print("|---|---:|---:|---:|")
                for label, d in (("cold compile (empty cache)", cold), ("warm start", warm)):
                    o, n = statistics.median(d["base"]), statistics.median(d["new"])
                    print(f"| {label} | {o:.2f} s | {n:.2f} s | {n / o:.2f} |", flush=True)
            if args.strict:
                print("\n| strict mode (this tree) | normal games/s | strict games/s | ratio |")
                print("|---|---:|---:|---:|")
                for name, (ruleset, lineup) in rows.items():
                    plain, strict = [], []
                    for _ in range(args.repeats):
                        plain.append(measure(REPO, ruleset, lineup, args.games))
                        strict.append(measure(REPO, ruleset, lineup, args.games, True))
                    p, s = statistics.median(plain), statistics.median(strict)
                    print(f"| {name} | {p:,.0f} | {s:,.0f} | {s / p:.2f} |", flush=True)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)],
                           capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
