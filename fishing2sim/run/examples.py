"""Example games: the games a run keeps behind its headline figures (docs/rules.md E,
"Example games"), chosen in every chunk from the kernels' output and merged per condition.

A chunk keeps, for each figure of :data:`FIGURES`, at most K rows ``(key, game)``
(``examples: K``, 0: none): for an outcome (overfishing, depletion, completed) the first K
games with it in game order (key = the game), for a ranked figure (comeback, trump_stakes)
the K games of the largest value (key = −value; ties: the lower game). Merging two sets of
rows keeps the K smallest ``(key, game)``: the same rows whatever the chunk order, the
number of workers or the backend, and after ``--resume`` (the checkpoints hold them). They
are no sums: run/totals.py's ``merge`` leaves the ``example_*`` keys out.

A **game index** is what ``fishing2sim play --experiment FILE --condition N --game G``
replays: without seat rotation the deal G; with seat rotation deal G // players played in
rotation G mod players (rotation r: seat p plays the lineup's entry (p − r) mod players).

For a contrast whose conditions share their deals (a deck contrast, whose edited deck
plays the coupled deal, docs/rules.md "Coupled deals"; or any with ``paired: true``) a paired
condition's chunks also keep each game's outcome code (:data:`OUTCOME_KEY`, a unit vector of
run/totals.py): overfished + 2 × the winners' seat mask, one column per rotation. The games
whose code differs between a condition and its baseline are the ``deck_pair`` examples.
"""
from __future__ import annotations

import shlex

import numpy as np

from fishing2sim.engine import constants as K

EXAMPLE_PREFIX = "example_"
OUTCOME_KEY = "unit_outcome"  # paired conditions: a game's outcome code, per rotation
# the figures, in the report's order: (figure, outcome in plain words)
FIGURES = ("overfishing", "depletion", "completed", "comeback", "trump_stakes")
OUTCOMES = {"overfishing": "overfished", "depletion": "the ocean ran out",
            "completed": "completed", "comeback": "largest comeback",
            "trump_stakes": "largest trump stakes", "deck_pair": "the edit changed the outcome"}
# a ranked figure's value as reported: its key's points divided by this (trump stakes: the
# mean of the two replay pairs' |light - dark|)
RANKED = {"comeback": 1, "trump_stakes": 2}
COLUMNS = ["condition", "figure", "outcome", "rank", "game", "partner_condition", "value",
           "command"]


def example_keys(exp) -> list[str]:
    """The example arrays of every chunk of ``exp`` (none with ``examples: 0``)."""
    return [EXAMPLE_PREFIX + f for f in FIGURES] if exp.examples else []


def game_index(deal, rotation: int, players: int, rotate: bool):
    """The game index of a deal (an int or an array) played in ``rotation``."""
    return deal * players + rotation if rotate else deal


def _top(key, games, k: int) -> np.ndarray:
    """The (key, game) rows of the k smallest (key, game), sorted."""
    if key.size > k:  # cheap first cut: only keys up to the k-th smallest can stay
        cut = np.partition(key, k - 1)[k - 1]
        keep = key <= cut
        key, games = key[keep], games[keep]
    order = np.lexsort((games, key))[:k]
    return np.stack([key[order], games[order]], axis=1).astype(np.int64)


def batch_examples(k: int, P: int, games, out_int, out_ocean, round_points, pairs,
                   last_round: int, layouts: tuple) -> dict:
    """The example rows of one batch (a rotation of a chunk): ``games`` its rows' game
    indexes (ascending), the kernels' outputs as run/totals.py's ``accumulate`` reads
    them, ``pairs`` the trump-choice pairs (None without the trump analysis), ``layouts``
    the engine's GAME_LAYOUT and PAIR_LAYOUT (engine/batch.py; passed in: loading this
    module loads no kernel)."""
    g, t = ({name: off for name, (off, _) in lay.items()} for lay in layouts)
    end = out_int[:, g["end"]]
    over = end == K.END_OVERFISHED
    rounds = out_int[:, g["rounds"]]
    lr = min(last_round, K.MAX_ROUNDS)
    last = np.minimum(rounds, lr)
    R = K.MAX_ROUNDS + 1
    empty = (out_ocean[np.arange(len(end)), R + last] == 0) & (last >= 1) & ~over
    ex = {}
    for fig, mask in (("overfishing", over), ("depletion", empty),
                      ("completed", end == K.END_COMPLETED)):
        first = games[mask][:k]
        ex[fig] = np.stack([first, first], axis=1).astype(np.int64)
    scored = rounds - (over & (out_int[:, g["end_round"]] == rounds))
    ex["comeback"] = _ranked(comebacks(out_int[:, g["winners"]], round_points[:, 1:lr + 1, :P],
                                       scored), games, k)
    if pairs is None:
        ex["trump_stakes"] = np.zeros((0, 2), np.int64)
    else:
        ch = pairs[:, 1:, t["chooser"]] >= 0
        stakes = np.abs(pairs[:, 1:, t["d1_points"]] + pairs[:, 1:, t["d2_points"]])
        ex["trump_stakes"] = _ranked(np.where(ch, stakes, 0).max(axis=1), games, k)
    return {EXAMPLE_PREFIX + f: v for f, v in ex.items()}


def _ranked(value, games, k: int) -> np.ndarray:
    """The rows of the k largest positive values (key = −value)."""
    m = value > 0
    return _top(-value[m].astype(np.int64), games[m], k)


def comebacks(winners, rp, scored):
    """Per game the comeback (docs/rules.md E): the most points a player who won (alone or
    shared) was behind the leader after a scored round. ``winners`` the seat masks, ``rp``
    the points after rounds 1.. [game, round − 1, seat], ``scored`` the rounds scored.
    (Loops over the few rounds and seats, each step a vector over the games: numpy's
    reductions over a short axis cost ten times more.)"""
    n, nr, P = rp.shape
    x = rp.transpose(1, 2, 0)  # [round, seat, game] (a view: each row read once a step)
    away = [np.where((winners >> p) & 1 == 1, 0, 1 << 40) for p in range(P)]  # not a winner
    best = np.zeros(n, np.int64)
    top, low, tmp = (np.empty(n, np.int64) for _ in range(3))
    for r in range(nr):
        np.copyto(top, x[r, 0])
        np.add(x[r, 0], away[0], out=low)
        for p in range(1, P):
            np.maximum(top, x[r, p], out=top)
            np.minimum(low, np.add(x[r, p], away[p], out=tmp), out=low)
        np.subtract(top, low, out=top)
        np.maximum(best, np.where(scored > r, top, 0), out=best)
    return best


def outcome_code(out_int, game_layout: dict):
    """A game's outcome code: overfished + 2 × the winners' seat mask."""
    end, winners = (out_int[:, game_layout[f][0]] for f in ("end", "winners"))
    return (end == K.END_OVERFISHED).astype(np.int64) + 2 * winners


def merge_examples(into: dict | None, new: dict, k: int) -> dict:
    """Two sets of example rows merged: per figure the k smallest (key, game)."""
    if into is None:
        return {key: v.copy() for key, v in new.items()}
    for key, v in new.items():
        both = np.concatenate([into[key], v]) if key in into else v
        into[key] = _top(both[:, 0], both[:, 1], k) if len(both) else both
    return into


def split_examples(t: dict) -> dict:
    """The example rows of a chunk's totals (``{}`` with ``examples: 0``)."""
    return {k: v for k, v in t.items() if k.startswith(EXAMPLE_PREFIX)}


def command(exp, condition: int, game: int) -> str:
    """The command line that replays a game of a condition."""
    return (f"fishing2sim play --experiment {shlex.quote(str(exp.path))} "
            f"--condition {condition} --game {game}")


def example_rows(exp, examples: list, units: list | None) -> list[dict]:
    """The rows of examples.csv (COLUMNS): per condition each figure's examples, then the
    deck contrasts' paired deals where the edit changed the outcome."""
    rows: list[dict] = []
    if not exp.examples:
        return rows
    for cond in exp.conditions:
        ex = examples[cond.index] if examples else None
        for fig in FIGURES:
            arr = (ex or {}).get(EXAMPLE_PREFIX + fig)
            for rank, (key, g) in enumerate(arr if arr is not None else (), 1):
                value = -int(key) / RANKED[fig] if fig in RANKED else None
                rows.append(_row(exp, cond.index, fig, rank, int(g), None, value))
        for rank, (g, partner) in enumerate(deck_pairs(exp, cond, units), 1):
            rows.append(_row(exp, cond.index, "deck_pair", rank, g, partner, None))
    return rows


def _row(exp, c, fig, rank, g, partner, value) -> dict:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return {"condition": c, "figure": fig, "outcome": OUTCOMES[fig], "rank": rank,
            "game": g, "partner_condition": partner, "value": value,
            "command": command(exp, c, g)}


def deck_pairs(exp, cond, units) -> list[tuple[int, int]]:
    """(game, baseline) of the first K games of ``cond`` whose outcome differs from its
    baseline's on the same deal (both paired, the same seed: a paired contrast)."""
    b = cond.baseline
    if b is None or not units or not cond.paired:
        return []
    base = exp.conditions[b]
    if not base.paired or base.seed != cond.seed or cond.rotate != base.rotate:
        return []
    va, vb = _codes(units[cond.index]), _codes(units[b])
    if va is None or vb is None:
        return []
    n = min(len(va), len(vb))
    diff = np.flatnonzero((va[:n] != vb[:n]).ravel())[:exp.examples]
    return [(int(i), b) for i in diff]  # row-major (deal, rotation): deal * P + rotation


def _codes(units_of: dict | None):
    if not units_of:
        return None
    parts = [units_of[c].get(OUTCOME_KEY) for c in sorted(units_of)]
    if any(p is None for p in parts):
        return None
    return np.concatenate(parts)
