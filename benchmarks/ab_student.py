"""The student's speed against its own code at another git revision, in one run: the
features and tables modules of REV (fishing2sim/train/features.py and tables.py) are
copied to a temporary folder and played by a strategy file with the shipped model; the
two must play the same games (checked first), then their games/s alternate.

    python benchmarks/ab_student.py REV [--games 2000] [--repeats 5]

4 players of Fishing 2, every seat the student, one core; the medians and their ratio.
A copy whose features differ from this checkout's is refused (the games differ)."""
import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOT = '''"""skilled_at_rev: the student with the features of another revision."""
import sys
sys.path.insert(0, {folder!r})
from rev_features import best_option
from fishing2sim.strategy.contract import decision
from fishing2sim.train.model import load_params

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
        "from fishing2sim.train.tables import", "from rev_tables import")
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    from fishing2sim.api import play_games, run_games

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
        for r in range(a.repeats):
            for name, lineup in (("now", "skilled"), (a.rev, bot)):
                t = time.perf_counter()
                run_games(a.games, 4, seed=100 + r, strategies=[lineup] * 4)
                rates[name].append(a.games / (time.perf_counter() - t))
    now, then = statistics.median(rates["now"]), statistics.median(rates[a.rev])
    print(f"the same games (600 of 4 and of 5 players); 4 players, {a.repeats} alternations "
          f"of {a.games} games, medians: this checkout {now:,.0f} games/s, {a.rev} "
          f"{then:,.0f} games/s: x{now / then:.2f}")


if __name__ == "__main__":
    main()
