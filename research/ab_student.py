"""The student's speed against its own code at another git revision: the features and
tables modules of REV (fishing2sim/train/features.py and tables.py) are copied to a
temporary folder and played by a strategy file with the shipped model; the two must play
the same games (checked first), then their games/s alternate, each measurement in a fresh
process.

    python research/ab_student.py REV [--games 3000] [--repeats 9]

4 players of Fishing 2, every seat the student, one core. Each repeat runs one process per
version (in alternating order): it loads the compiled code, warms up, and plays --games
games twice, keeping the faster. Printed: each version's games/s, their medians, and the
median of the repeats' ratios. A copy whose features differ from this checkout's is refused
(the games differ).

Why fresh processes: one compiled copy of the same code can run at 1,500 games/s in one
process and 2,000 in the next (where the machine code and its data land in memory, and the
shared machine's load), so two versions timed in one process compare their luck in that
process as much as their code (the same two versions gave x1.30 in one process and x0.67
in another). Across fresh processes that luck is drawn anew for each measurement.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOT = '''"""skilled_at_rev: the student with the features of another revision."""
import sys
sys.path.insert(0, {folder!r})
from rev_features import best_option
from fishing2sim.strategy.contract import decision
from fishing2sim.student.model import load_params

NAME = "skilled_at_rev"
OBSERVES = True
PARAMS = load_params("skilled.npz", {sha!r}, {skilled!r})
'''
DECISION = '''

@decision
def {name}(obs, params, rng):
    return best_option(obs, params)
'''


def _refuse(message: str) -> None:
    """Bad input: one line and exit 2."""
    print(message, file=sys.stderr)
    sys.exit(2)


def write_copy(rev: str, folder: Path) -> Path:
    def show(path):
        if rev.startswith("-"):
            _refuse(f"{rev!r} is not a git revision")
        r = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:{path}"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            _refuse(f"{rev}: no {path} there ({r.stderr.strip().splitlines()[-1]})")
        return r.stdout
    features = show("fishing2sim/train/features.py").replace(
        "from fishing2sim.student.tables import", "from rev_tables import")
    (folder / "rev_features.py").write_text(features)
    (folder / "rev_tables.py").write_text(show("fishing2sim/train/tables.py"))
    skilled = REPO / "strategies" / "skilled.py"
    sha = re.search(r'MODEL_SHA256 = "([0-9a-f]+)"', skilled.read_text()).group(1)
    from fishing2sim.strategy.contract import DECISION_FUNCTIONS
    text = BOT.format(folder=str(folder), sha=sha, skilled=str(skilled))
    text += "".join(DECISION.format(name=n) for n in DECISION_FUNCTIONS)
    bot = folder / "skilled_at_rev.py"
    bot.write_text(text)
    return bot


CHILD = r"""
import sys, time
from fishing2sim.api import run_games
bot, games = sys.argv[1], int(sys.argv[2])
run_games(200, 4, seed=1, strategies=[bot] * 4)
best = 0.0
for r in range(2):
    t = time.perf_counter()
    run_games(games, 4, seed=100 + r, strategies=[bot] * 4)
    best = max(best, games / (time.perf_counter() - t))
print(best)
"""


def _rate(bot: str, games: int) -> float:
    """games/s of 4 x ``bot`` in a fresh process (one core)."""
    r = subprocess.run([sys.executable, "-c", CHILD, bot, str(games)], capture_output=True,
                       text=True, env={**os.environ, "NUMBA_NUM_THREADS": "1"})
    if r.returncode != 0:
        sys.exit(f"a timing process failed: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    return float(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=9)
    a = ap.parse_args()
    if a.games < 1 or a.repeats < 1:
        _refuse("--games and --repeats must be at least 1")
    from fishing2sim.api import play_games

    with tempfile.TemporaryDirectory() as tmp:
        bot = str(write_copy(a.rev, Path(tmp)))
        for players in (4, 5):
            now = play_games(600, players, seed=5, strategies="skilled")
            then = play_games(600, players, seed=5, strategies=bot)
            key = [c for c in now.columns if "strat" not in c]
            if not now[key].equals(then[key]):
                sys.exit(f"{a.rev}'s student plays other games than this checkout's: "
                         "a speed comparison needs the same features")
        rates = {"now": [], a.rev: []}
        order = (("now", "skilled"), (a.rev, bot))
        for r in range(a.repeats):
            for name, lineup in (order if r % 2 == 0 else order[::-1]):
                rates[name].append(_rate(lineup, a.games))
    now, then = statistics.median(rates["now"]), statistics.median(rates[a.rev])
    ratio = statistics.median(x / y for x, y in zip(rates["now"], rates[a.rev]))
    print(f"this checkout: {', '.join(f'{x:,.0f}' for x in rates['now'])} games/s")
    print(f"{a.rev}: {', '.join(f'{x:,.0f}' for x in rates[a.rev])} games/s")
    print(f"the same games (600 of 4 and of 5 players); 4 players, {a.repeats} pairs of fresh "
          f"processes of {a.games} games, medians: this checkout {now:,.0f} games/s, "
          f"{a.rev} {then:,.0f} games/s; median ratio x{ratio:.2f}")


if __name__ == "__main__":
    main()
