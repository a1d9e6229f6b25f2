"""The golden file: a digest of every seeded game of a fixed set of configurations.

As python-chess keeps perft counts, ``tests/data/golden_<ruleset>.csv`` holds, for the games
0 .. N-1 of the experiment seeded 0 (each game has its own seed, derived from the experiment
seed and the game's index, as the runner derives it) of each ruleset x 3/4/5 players x a few
lineups, one row per game: the points, the end reason, the round the game ended in, the
rounds started, the card plays, the tricks and a 64-bit hash of the game's whole event log.
``tests/data/golden_trump.csv`` holds the trump-choice replays (docs/rules.md E) of 4-player
Fishing 2 games: the chooser, the choice and the four branch differences of every analysed
choice, hashed per game.

tests/test_golden.py plays every game again (through the runner's batch kernels, logged and
unlogged) and compares. A change to these files must be deliberate: regenerate them with

    python tests/golden.py --write

and say in the commit message why the games changed.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import sys
from pathlib import Path

import numpy as np

from fishing2sim.engine.state import STATE_SIZE

DATA = Path(__file__).parent / "data"
N_GAMES = 2000
N_TRUMP_GAMES = 500
SEED = 0
RULESETS = ("fishing2", "fishing")
PLAYERS = (3, 4, 5)
# lineups by name: one strategy for every seat, or the seats in order (cycled to the count)
LINEUPS = {
    "random": ["random"],
    "greedy": ["greedy"],
    "mixed": ["weights", "counter", "buoy_savvy", "sandbagger", "highest"],
}
TRUMP_LINEUPS = ("random", "greedy", "mixed")
COLUMNS = ["lineup", "players", "game", "points", "end_reason", "end_round", "rounds",
           "plays", "tricks", "events"]
TRUMP_COLUMNS = ["lineup", "game", "choices", "pairs"]


def seats(lineup: str, players: int) -> list[str]:
    names = LINEUPS[lineup]
    return [names[p % len(names)] for p in range(players)]


def _lineup_args(ruleset: str, lineup: str, players: int):
    from fishing2sim.api import resolve_deck
    from fishing2sim.engine import constants as K
    from fishing2sim.strategy.loading import build_lineup, observe_mask

    deck = resolve_deck(ruleset, None)
    funcs, table, strats = build_lineup(seats(lineup, players), players)
    return (np.ascontiguousarray(deck.arrays), players, K.RULESETS[ruleset],
            np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, -1,
            np.uint64(SEED), 0), funcs, table, observe_mask(strats)


def game_rows(ruleset: str, lineup: str, players: int, n: int = N_GAMES) -> list[dict]:
    """Each game's digest from the logged kernel (points, end, hash of the event log)."""
    from fishing2sim.api import END_NAMES
    from fishing2sim.engine import constants as K
    from fishing2sim.engine.batch import (
        G_END, G_END_ROUND, G_ERR_CODE, G_PLAYS, G_ROUNDS, G_TRICKS, N_G, digest_batch)

    head, funcs, table, mask = _lineup_args(ruleset, lineup, players)
    out_int = np.zeros((n, N_G), np.int64)
    out_points = np.zeros((n, K.MAX_PLAYERS), np.int64)
    out_hash = np.zeros(n, np.uint64)
    ev = np.zeros((16384, K.EV_FIELDS), np.int64)
    done = digest_batch(*head, n, funcs, table, mask, np.zeros((2, STATE_SIZE), np.int64), ev,
                        out_int, out_points, out_hash)
    assert done == n and not out_int[:, G_ERR_CODE].any(), "a golden game failed"
    return [{
        "lineup": lineup, "players": players, "game": g,
        "points": ";".join(str(int(x)) for x in out_points[g, :players]),
        "end_reason": END_NAMES[int(out_int[g, G_END])],
        "end_round": int(out_int[g, G_END_ROUND]), "rounds": int(out_int[g, G_ROUNDS]),
        "plays": int(out_int[g, G_PLAYS]), "tricks": int(out_int[g, G_TRICKS]),
        "events": f"{int(out_hash[g]):016x}",
    } for g in range(n)]


def trump_rows(lineup: str, n: int = N_TRUMP_GAMES) -> list[dict]:
    """The trump-choice replays of 4-player Fishing 2 games, per game."""
    from fishing2sim.engine import constants as K
    from fishing2sim.engine.batch import N_G, N_T, T_CHOOSER, trump_batch

    R = K.MAX_ROUNDS + 1
    head, funcs, table, mask = _lineup_args("fishing2", lineup, 4)
    pairs = np.zeros((n, R, N_T), np.int64)
    dummy = np.zeros((1, K.EV_FIELDS), np.int64)
    done = trump_batch(*head, n, funcs, table, 0, mask, np.zeros((2, STATE_SIZE), np.int64),
                       K.MAX_ROUNDS,
                       np.zeros((n, N_G), np.int64), np.zeros((n, K.MAX_PLAYERS), np.int64),
                       np.zeros((n, 2 * R), np.int64), np.zeros((n, 2 * R), np.int64),
                       np.zeros((n, R, K.MAX_PLAYERS), np.int64), pairs, -1, dummy, dummy,
                       dummy, np.zeros(3, np.int64))
    assert done == n
    rows = []
    for g in range(n):
        analysed = pairs[g][pairs[g, :, T_CHOOSER] >= 0]
        rows.append({"lineup": lineup, "game": g, "choices": len(analysed),
                     "pairs": hashlib.sha256(analysed.tobytes()).hexdigest()[:16]})
    return rows


def path(name: str) -> Path:
    return DATA / f"golden_{name}.csv"


def compute_all() -> dict[str, list[dict]]:
    out = {}
    for ruleset in RULESETS:
        out[ruleset] = [r for lineup in LINEUPS for players in PLAYERS
                        for r in game_rows(ruleset, lineup, players)]
    out["trump"] = [r for lineup in TRUMP_LINEUPS for r in trump_rows(lineup)]
    return out


def write(name: str, rows: list[dict]) -> None:
    cols = TRUMP_COLUMNS if name == "trump" else COLUMNS
    DATA.mkdir(exist_ok=True)
    tmp = path(name).with_suffix(".tmp")
    with tmp.open("w", newline="") as f:
        w = csv.DictWriter(f, cols, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    tmp.replace(path(name))


def read(name: str) -> list[dict]:
    with path(name).open(newline="") as f:
        return list(csv.DictReader(f))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite tests/data/golden_*.csv")
    args = ap.parse_args(argv)
    changed = 0
    for name, rows in compute_all().items():
        rows = [{k: str(v) for k, v in r.items()} for r in rows]
        old = read(name) if path(name).is_file() else []
        diff = sum(a != b for a, b in zip(old, rows)) + abs(len(old) - len(rows))
        changed += diff
        print(f"{path(name).name}: {len(rows)} games, {diff} differ from the file")
        if args.write:
            write(name, rows)
    if args.write:
        print("written; say in the commit message why the games changed")
    return 0 if args.write or changed == 0 else 1


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
