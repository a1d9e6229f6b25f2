"""The student policy `skilled`: speed side by side with `weights` and `pimc`,
and strength against the targets' fields, with 95% CIs.

    python benchmarks/bench_skilled.py                        # speed + every strength row
    python benchmarks/bench_skilled.py --only speed
    python benchmarks/bench_skilled.py --only five --five-vs research/bots/skilled_overfishing_tuned.py --five-deals 2000
    python benchmarks/bench_skilled.py --deals 1000 --pimc-deals 200 --workers 1
    python benchmarks/bench_skilled.py --only speed --against /tmp/base   # beside another tree

Speed: one process, one numba thread; games/s of 4 players (Fishing 2) with the bot in every
seat for the bot (--bot, `skilled` by default) and `weights` (median of --repeats runs of
--games games), and of one
`pimc` seat against three `weights` (a game with four pimc seats would cost four times as
much), all in this one run.

Speed beside another tree (--against PATH: a checkout or a git worktree of another commit,
e.g. ``git worktree add /tmp/base ef0695e``): each tree plays in its own fresh processes,
that tree's code, bots and model (benchmarks/same_output.py's environment: PYTHONPATH = the
tree, the editable install's finders taken out), the two alternating (ABBA), --repeats
processes each; a process loads the compiled code, warms up, and times --games games of
the bot in every seat and of `weights` in every seat (the engine with a cheap bot, a
control), by CPU time (the machine's other load moves it less than the clock) and by the
clock. Printed: each tree's median games per CPU second, the median of the repeats' ratios
(this tree / PATH) with their range, and whether the two trees played the same games: a
digest of every timed batch's results, and of 300 games of the bot in every seat at 3, 4
and 5 players of Fishing 2 and 4 of the original Fishing (a change that keeps every
decision keeps them all). The pimc row is not timed.

Strength (4 players, Fishing 2, the same deals for every row; a deal's rotations are one
observation of the CI, as benchmarks/bench_search.py counts them):
  * `bot` in one seat, rotated through the 4 seats, against three `weights`;
  * against a mixed field: three seats from greedy, counter, buoy_savvy and weights_tuned
    (deal d leaves out the field bot d mod 4, the other three clockwise);
  * [A, A, B, B] seat-rotated (each deal in the 4 rotations of the pairs): A's share of the
    games, against `weights_tuned` and `pimc` (--pimc-deals deals: pimc is slow);
  * `pimc_skilled` against `pimc`, [A, A, B, B], with the ms per searched decision.

Strength at 5 players (--only five): the bot's seats' share of the games in [A, A, B, B, B]
and [A, A, A, B, B] lineups against --five-vs (`pimc` by default; --five-deals deals, each in
its 5 seat rotations; an even share is 0.4 and 0.6): does the bot's way of playing 5-player
games, overfishing included, win or lose against the other's?

Overfishing: the share of 5-player games that end by overfishing with the bot in every
seat (and `weights_tuned`, the earlier skilled seat), Wilson 95% CIs.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.same_output import CHECK_BOTS, tree_env  # noqa: E402
from fishing2sim.run.processes import pool_map  # noqa: E402

FIELD = ["greedy", "counter", "buoy_savvy", "weights_tuned"]


def _players(kind: str) -> int:
    return 5 if kind.startswith("five") else 4


def _five_seats(kind: str) -> int:
    """The bot's seats in a 5-player lineup: "five2" is [A, A, B, B, B], "five3" [A, A, A, B, B]."""
    return int(kind[-1])


def _lineups(kind: str, a: str, b: str, deal: int):
    """(lineup, seats of a) for every rotation of deal ``deal``."""
    out = []
    if kind.startswith("five"):
        na = _five_seats(kind)
        for r in range(5):
            lineup = [a if (i - r) % 5 < na else b for i in range(5)]
            out.append((lineup, [i for i in range(5) if (i - r) % 5 < na]))
        return out
    for r in range(4):
        if kind == "one":
            opp = [b] * 3 if b != "field" else [x for i, x in enumerate(FIELD) if i != deal % 4]
            lineup = [None] * 4
            lineup[r] = a
            for k in range(1, 4):
                lineup[(r + k) % 4] = opp[k - 1]
            out.append((lineup, [r]))
        else:  # pairs
            lineup = [a if (i - r) % 4 < 2 else b for i in range(4)]
            out.append((lineup, [i for i in range(4) if (i - r) % 4 < 2]))
    return out


def play_block(kind: str, a: str, b: str, seed: int, start: int, n: int) -> dict:
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from fishing2sim.api import run_games
    from fishing2sim.engine.batch import G_WINNERS

    players = _players(kind)
    shares = np.zeros(n)
    stats = 0  # + run_games' search counters (searched decisions first), whatever their number
    t = time.process_time()
    if kind == "one" and b == "field":  # the lineup changes with the deal: one game a call
        for d in range(start, start + n):
            for lineup, seats in _lineups(kind, a, b, d):
                res = run_games(1, 4, seed=seed, start=d, strategies=lineup)
                _credit(res, seats, shares, d - start, G_WINNERS)
                stats = stats + res["search"]
    else:
        for lineup, seats in _lineups(kind, a, b, start):
            res = run_games(n, players, seed=seed, start=start, strategies=lineup)
            for j in range(n):
                _credit(res, seats, shares, j, G_WINNERS, j)
            stats = stats + res["search"]
    return {"shares": shares / players, "cpu": time.process_time() - t, "stats": stats}


def _credit(res, seats, shares, i, col, j=0):
    m = int(res["int"][j, col])
    k = bin(m).count("1")
    shares[i] += sum(((m >> s) & 1) / k for s in seats)


def _row(kind: str, a: str, b: str) -> str:
    a, b = (Path(x).stem if x.endswith(".py") else x for x in (a, b))  # a file: its name
    if b == "field":
        return f"`{a}` vs the mixed field"
    if kind.startswith("five"):
        na = _five_seats(kind)
        return f"{na} `{a}` vs {5 - na} `{b}`, 5 players (even share {na / 5:.1f})"
    return f"`{a}` vs {'three ' if kind == 'one' else '[A,A,B,B] '}`{b}`"


def strength(kind, a, b, deals, workers, seed) -> dict:
    blocks = max(4 * workers, math.ceil(deals / 100))  # small blocks: search rows balance
    sizes = [deals // blocks + (1 if i < deals % blocks else 0) for i in range(blocks)]
    starts = [int(x) for x in np.cumsum([0] + sizes[:-1])]
    t = time.perf_counter()
    if workers <= 1:
        parts = [play_block(kind, a, b, seed, s, n) for s, n in zip(starts, sizes)]
    else:
        parts = pool_map(play_block, [(kind, a, b, seed, s, n) for s, n in zip(starts, sizes)],
                         workers)
    shares = np.concatenate([p["shares"] for p in parts])
    stats = sum(p["stats"] for p in parts)
    cpu = sum(p["cpu"] for p in parts)
    mean = float(shares.mean())
    half = 1.96 * float(shares.std(ddof=1)) / math.sqrt(len(shares))
    out = {"row": _row(kind, a, b), "deals": deals, "share": mean,
           "lo": mean - half, "hi": mean + half, "wall": time.perf_counter() - t,
           "ms_game": 1000 * cpu / (_players(kind) * deals)}
    if stats[0]:
        out["ms_decision"] = 1000 * cpu / stats[0]
    return out


def speed(games: int, repeats: int, pimc_games: int, bot: str = "skilled") -> list:
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from fishing2sim.api import run_games

    rows = []
    for name, lineup, n in ((bot, [bot] * 4, games),
                            ("weights", ["weights"] * 4, games),
                            ("pimc (one seat, three weights)", ["pimc"] + ["weights"] * 3,
                             pimc_games)):
        run_games(2, 4, seed=1, strategies=lineup)  # compile or load
        rates = []
        for r in range(repeats if n == games else 1):
            t = time.perf_counter()
            run_games(n, 4, seed=100 + r, strategies=lineup)
            rates.append(n / (time.perf_counter() - t))
        rows.append((name, statistics.median(rates), n))
    return rows


# a process of a tree (--against), one JSON line: "time": per lineup the games/s by CPU
# time and by the clock and a digest of the games' results; "games": the digest of the bot's
# games in every seat of each (ruleset, players) of SAME_GAMES
TIMED = """\
import hashlib, json, sys, time
from fishing2sim.api import run_games
mode, lineups, games, seed = json.loads(sys.argv[1])


def digest(res):
    h = hashlib.sha256()
    for key in ("int", "points", "round_points", "ocean", "trump"):
        h.update(res[key].tobytes())
    return h.hexdigest()[:16]


out = []
if mode == "games":  # lineups: [bot, [[ruleset, players], ...]]
    for ruleset, players in lineups[1]:
        out.append(digest(run_games(games, players, seed=seed, ruleset=ruleset,
                                    strategies=[lineups[0]] * players)))
    lineups = []
for lineup in lineups:
    run_games(2, 4, seed=1, strategies=lineup)  # compile or load, and warm up
    c, t = time.process_time(), time.perf_counter()
    res = run_games(games, 4, seed=seed, strategies=lineup)
    c, t = time.process_time() - c, time.perf_counter() - t
    out.append([games / c, games / t, digest(res)])
print(json.dumps(out))
"""
SAME_GAMES = [("fishing2", 3), ("fishing2", 4), ("fishing2", 5), ("fishing", 4)]


def _in_tree(tree: Path, shim: Path, code: str, *args: str) -> str:
    """Run ``code`` in a fresh process of ``tree`` (its own fishing2sim and bots) on one
    numba thread; its stdout. A failure stops the benchmark with the child's last line."""
    env = dict(tree_env(tree, shim), NUMBA_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", code, *args], cwd=tree, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"bench_skilled: {tree}: {last}")
    return r.stdout


def _commit(tree: Path) -> str:
    r = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "?"


def speed_against(other: Path, games: int, repeats: int, bot: str = "skilled",
                  check_games: int = 300) -> dict:
    """Each tree timed in its own fresh processes, alternating ABBA (see the module doc):
    {"rows": [(lineup, this tree's median games/s, other's, median ratio, lowest, highest,
    the same ratio by the clock)], "same": whether both trees played the same games (every
    timed batch, and ``check_games`` of the bot in every seat of each of SAME_GAMES)}."""
    if Path(bot).is_file():  # a strategy file: the same file for both trees
        bot = str(Path(bot).resolve())
    lineups = [[bot] * 4, ["weights"] * 4]
    trees = [REPO, other.resolve()]
    runs = {t: [] for t in trees}
    digests = {}
    with tempfile.TemporaryDirectory() as tmp:
        shim = Path(tmp)
        for t in trees:
            found = _in_tree(t, shim, CHECK_BOTS).split()
            if len(found) != 2 or not all(f.startswith(str(t)) for f in found):
                raise SystemExit(f"bench_skilled: a process of {t} runs the package and bots "
                                 f"{found}, not its own")
            digests[t] = json.loads(_in_tree(t, shim, TIMED, json.dumps(
                ["games", [bot, SAME_GAMES], check_games, 7])))  # (compiles its cache)
        for r in range(repeats):
            for t in (trees if r % 2 == 0 else trees[::-1]):
                runs[t].append(json.loads(_in_tree(t, shim, TIMED, json.dumps(
                    ["time", lineups, games, 100 + r]))))
    rows = []
    for i, lineup in enumerate(lineups):
        new, old = ([x[i] for x in runs[t]] for t in trees)
        ratios = [a[0] / b[0] for a, b in zip(new, old)]
        clock = statistics.median(a[1] / b[1] for a, b in zip(new, old))
        rows.append((Path(lineup[0]).stem, statistics.median(x[0] for x in new),
                     statistics.median(x[0] for x in old), statistics.median(ratios),
                     min(ratios), max(ratios), clock))
    same = digests[trees[0]] == digests[trees[1]] and all(
        a[i][2] == b[i][2] for a, b in zip(*runs.values()) for i in range(len(lineups)))
    return {"rows": rows, "same": same}


def _print_against(result: dict, other: Path, games: int, repeats: int,
                   check_games: int = 300) -> None:
    base = _commit(other)
    print(f"Speed beside {other} ({base}), 4 players, Fishing 2, one core: games per CPU "
          f"second, medians of {repeats} fresh processes a tree, the trees alternating, "
          f"{games} games a process:\n")
    print(f"| every seat | this tree ({_commit(REPO)}) | {other.name} ({base}) | ratio (median "
          "of the pairs) | lowest – highest pair | ratio by the clock |")
    print("|---|---|---|---|---|---|")
    for name, new, old, ratio, lo, hi, clock in result["rows"]:
        print(f"| `{name}` | {new:,.0f} | {old:,.0f} | x{ratio:.2f} | x{lo:.2f} – x{hi:.2f} "
              f"| x{clock:.2f} |")
    where = ", ".join(f"{rs} {p}" for rs, p in SAME_GAMES)
    print(f"\nThe same games in both trees (every timed batch, and {check_games} games of "
          f"each of {where} players): {'yes' if result['same'] else 'NO'}\n", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["speed", "strength", "overfishing", "five", "all"],
                    default="all")
    ap.add_argument("--five-vs", default="pimc",
                    help="the 5-player rows' other bot (a name or a strategy file)")
    ap.add_argument("--five-deals", type=int, help="the 5-player rows' deals "
                    "(default: --pimc-deals)")
    ap.add_argument("--overfishing-games", type=int, default=20000)
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--pimc-deals", type=int, default=200)
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--bot", default="skilled")
    ap.add_argument("--against", type=Path, metavar="PATH",
                    help="time the speed part beside the checkout PATH (e.g. a git worktree "
                         "of another commit), each tree in its own processes")
    ap.add_argument("--skip-search", action="store_true", help="no row with a search bot")
    ap.add_argument("--skip-rollouts", action="store_true",
                    help="no `pimc_skilled` vs `pimc` row (it does not depend on --bot)")
    a = ap.parse_args()
    for key, least in (("deals", 2), ("pimc_deals", 2), ("five_deals", 2), ("games", 1),
                       ("repeats", 1), ("overfishing_games", 1), ("workers", 1)):
        if getattr(a, key) is not None and getattr(a, key) < least:
            why = " (a CI needs 2 deals)" if least == 2 else ""
            ap.error(f"--{key.replace('_', '-')} must be at least {least}{why}, "
                     f"got {getattr(a, key)}")
    from fishing2sim.strategy.contract import StrategyError
    from fishing2sim.strategy.loading import load_strategy

    for key in ("bot", "five_vs"):  # a bad bot is refused before any game, in one line
        try:
            load_strategy(getattr(a, key))
        except StrategyError as exc:
            ap.error(f"--{key.replace('_', '-')}: {exc}")
    if a.against is not None and not (a.against / "fishing2sim" / "api.py").is_file():
        ap.error(f"--against: {a.against} is no fishing2sim checkout "
                 "(no fishing2sim/api.py there)")
    if a.against is not None and a.only in ("speed", "all"):
        _print_against(speed_against(a.against, a.games, a.repeats, a.bot), a.against,
                       a.games, a.repeats)
    elif a.only in ("speed", "all"):
        rows = speed(a.games, a.repeats, max(20, a.games // 500), a.bot)
        print("Speed, 4 players, Fishing 2, one core (median games/s):\n")
        print("| lineup | games/s | games |")
        print("|---|---|---|")
        for name, rate, n in rows:
            print(f"| {name} | {rate:,.0f} | {n} |")
        base = dict((n, r) for n, r, _ in rows)
        print(f"\n{a.bot} / pimc: {base[a.bot] / base['pimc (one seat, three weights)']:.0f}x;"
              f" {a.bot} / weights: {base[a.bot] / base['weights']:.2f}x\n", flush=True)
    if a.only in ("overfishing", "all"):
        from fishing2sim.api import play_games
        from fishing2sim.train.evaluate import wilson

        print("Games that end by overfishing, 5 players, Fishing 2, every seat the bot:\n")
        print("| seats | games | overfished [95% CI] |")
        print("|---|---|---|")
        for bot in (a.bot, "weights_tuned"):
            df = play_games(a.overfishing_games, 5, seed=a.seed, strategies=bot)
            p = float((df.end_reason == "overfished").mean())
            lo, hi = wilson(p, len(df))
            print(f"| `{bot}` | {len(df):,} | {100 * p:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] |",
                  flush=True)
        print()
    if a.only in ("five", "all"):
        d = a.five_deals or a.pimc_deals
        print(f"Strength, 5 players, Fishing 2, seed {a.seed}, {a.workers} workers: the "
              "bot's seats' share of the games, every deal in its 5 seat rotations (a deal one "
              "observation of the CI):\n")
        _table([(k, a.bot, a.five_vs, d) for k in ("five2", "five3")], a)
    if a.only in ("strength", "all"):
        jobs = [("one", a.bot, "weights", a.deals), ("one", a.bot, "field", a.deals),
                ("pair", a.bot, "weights_tuned", a.deals)]
        if not a.skip_search:
            jobs += [("pair", a.bot, "pimc", a.pimc_deals),
                     ("one", "pimc", a.bot, a.pimc_deals)]
            if not a.skip_rollouts:
                jobs.append(("pair", "pimc_skilled", "pimc", a.pimc_deals))
        print(f"Strength, 4 players, Fishing 2, seed {a.seed}, {a.workers} workers:\n")
        _table(jobs, a)


def _table(jobs, a) -> None:
    print("| row | deals x rotations | share [95% CI] | ms per game | ms per searched "
          "decision | wall |")
    print("|---|---|---|---|---|---|")
    for kind, x, y, d in jobs:
        r = strength(kind, x, y, d, a.workers, a.seed)
        dec = f"{r['ms_decision']:.2f}" if "ms_decision" in r else "–"
        print(f"| {r['row']} | {d} x {_players(kind)} | {r['share']:.3f} [{r['lo']:.3f}, "
              f"{r['hi']:.3f}] | {r['ms_game']:.2f} | {dec} | {r['wall']:.0f} s |", flush=True)
    print()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # its processes ended with the pool: nothing is left running
        print("stopped: what is printed above is all that was measured", file=sys.stderr)
        raise SystemExit(130)
