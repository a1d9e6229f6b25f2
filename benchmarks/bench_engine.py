"""Engine figures: random games per second on one core, card plays per second, compile times,
for both rulesets (Fishing 2 and the original Fishing).

    python benchmarks/bench_engine.py            # prints a markdown table
    python benchmarks/bench_engine.py --games 100000 --repeats 7
    python benchmarks/bench_engine.py --skip-compile --ruleset fishing2   # one ruleset only
    python benchmarks/bench_engine.py --skip-compile --against ../base --players 4
                                  # this tree's speed against another checkout's, one run

Speeds are medians over repeats in one run (the machines are shared and noisy); within a
repeat the rulesets are timed one after the other on the same seeds' game numbers, so both
see the same machine load. Cold compile runs a fresh process with an empty numba cache;
warm start runs a fresh process with the cache filled, from interpreter start to the first
finished game.

``--against PATH`` (a checkout of another commit, e.g. ``git worktree add ../base ef0695e``)
times that tree's random games beside this tree's: each tree plays in a process of its own
(PYTHONPATH = the tree, the editable install's finders taken out by same_output.py's
sitecustomize shim, so each plays its own code), both started once and warmed up, and the
batches alternate between them (base first in even repeats, this tree first in odd ones).
It prints each tree's median games per CPU second of its process (time.process_time: on a
shared machine a batch's wall time also counts the time other work held the core) and the
ratio this tree / base of the medians, with the range of the repeats' own ratios (the two
batches of a repeat run back to back), and the same ratio from wall time.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # the benchmarks package, run as a script

from benchmarks.same_output import tree_env  # noqa: E402

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


# a tree's timing process (--against): one line of JSON per batch asked for on stdin,
# [ruleset, players, games, seed], answered with [games per CPU second, per wall second]
SERVE = """
import json, sys, time
import fishing2sim
from fishing2sim.api import run_games
print(json.dumps(fishing2sim.__file__), flush=True)
for line in sys.stdin:
    ruleset, players, games, seed = json.loads(line)
    t, c = time.perf_counter(), time.process_time()
    run_games(games, players, seed=seed, strategies="random", ruleset=ruleset)
    c, t = time.process_time() - c, time.perf_counter() - t
    print(json.dumps([games / c, games / t]), flush=True)
"""


class TreeProcess:
    """A process that plays random games with ``tree``'s code (not the installed package)."""

    def __init__(self, tree: Path, shim: Path):
        self.tree = tree
        self.proc = subprocess.Popen([sys.executable, "-c", SERVE], cwd=tree,
                                     env=tree_env(tree, shim), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        package = json.loads(self.proc.stdout.readline() or "null")
        if not (package or "").startswith(str(tree)):
            self.close()
            sys.exit(f"{tree}: its process plays the package at {package}, not the tree's")

    def play(self, ruleset: str, players: int, games: int, seed: int) -> tuple[float, float]:
        """(games per CPU second, games per wall second) of one batch."""
        self.proc.stdin.write(json.dumps([ruleset, players, games, seed]) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"{self.tree}: its timing process stopped (exit {self.proc.wait()})")
        cpu, wall = json.loads(line)
        return cpu, wall

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def against(base: Path, players_list, games: int, repeats: int, rulesets) -> list:
    """The table rows of this tree's speed against ``base``'s (TreeProcess each)."""
    with tempfile.TemporaryDirectory() as d:
        trees = {}
        for key, tree in (("base", base), ("new", REPO)):
            shim = Path(d) / key
            shim.mkdir()
            trees[key] = TreeProcess(tree, shim)
        try:
            for t in trees.values():  # compile / load
                for players in players_list:
                    for rs in rulesets:
                        t.play(rs, players, 10, 0)
            rows = []
            for players in players_list:
                cpu = {(k, rs): [] for k in trees for rs in rulesets}
                wall = {(k, rs): [] for k in trees for rs in rulesets}
                for r in range(repeats):
                    order = ("base", "new") if r % 2 == 0 else ("new", "base")
                    for rs in rulesets:
                        for k in order:
                            c, w = trees[k].play(rs, players, games, 1000 + r)
                            cpu[k, rs].append(c)
                            wall[k, rs].append(w)
                for rs in rulesets:
                    old, new = cpu["base", rs], cpu["new", rs]
                    pair = sorted(n / o for n, o in zip(new, old))
                    wall_ratio = statistics.median(wall["new", rs]) / \
                        statistics.median(wall["base", rs])
                    rows.append((f"random {players}-player {RULESET_NAMES[rs]}",
                                 f"{statistics.median(old):,.0f}",
                                 f"{statistics.median(new):,.0f}",
                                 f"**{statistics.median(new) / statistics.median(old):.2f}** "
                                 f"({pair[0]:.2f}-{pair[-1]:.2f})", f"{wall_ratio:.2f}"))
        finally:
            for t in trees.values():
                t.close()
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-compile", action="store_true")
    ap.add_argument("--ruleset", choices=("fishing2", "fishing", "both"), default="both")
    ap.add_argument("--players", default="4,3,5",
                    help="comma-separated player counts (default 4,3,5)")
    ap.add_argument("--against", type=Path, default=None, metavar="PATH",
                    help="time this checkout of another commit beside this tree (the batches "
                         "alternating) and print both and the ratio, instead of the table")
    args = ap.parse_args()
    rulesets = ("fishing2", "fishing") if args.ruleset == "both" else (args.ruleset,)
    try:
        players_list = [int(x) for x in args.players.split(",")]
    except ValueError:
        ap.error(f"--players: give player counts such as 4 or 4,3,5, not {args.players!r}")
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    if args.against is not None:
        base = args.against.resolve()
        if not (base / "fishing2sim" / "__init__.py").is_file():
            ap.error(f"--against: {base} is not a checkout of this project (no fishing2sim/)")
        rows = against(base, players_list, args.games, args.repeats, rulesets)
        rev = subprocess.run(["git", "-C", str(base), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip() or str(base)
        print(f"| random games per CPU second, one core ({args.games:,} games x "
              f"{args.repeats} repeats, median) | base {rev} | this tree | ratio (repeats' "
              "range) | ratio of games per wall second |")
        print("|---|---:|---:|---:|---:|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    rows = []
    if not args.skip_compile:
        with tempfile.TemporaryDirectory() as d:
            cold_total, cold_in = timed_subprocess({"NUMBA_CACHE_DIR": d})
            warm = [timed_subprocess({"NUMBA_CACHE_DIR": d}) for _ in range(3)]
        rows.append(("JIT compile, cold (fresh process, empty cache)", f"{cold_total:.1f} s"))
        rows.append(("warm start to first game (fresh process, cache=True)",
                     f"{statistics.median(w[0] for w in warm):.2f} s"))
    for players in players_list:
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
