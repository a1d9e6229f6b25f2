"""The decision stakes' totals (``dec_*``), kept only in the totals of an experiment with
``analyses: [decisions]`` (without it the totals and checkpoints are unchanged).

A replayed decision (engine/decisions.py) gives, for the deciding seat, in points and in
win share (60ths): g, the game's own result minus its result with the drawn option a on
the same streams (the policy gain's estimate); d1 and d2, two independent pairs' result
with a minus with b; prod = d1 d2 and cross = sign(d1) d2 + sign(d2) d1. Per decision kind
the clustered sums over units (a game, or with seat rotation a rotation block) of each
figure's per-unit sum x: sums of x, x^2 and x m (m the unit's decisions of that kind), and
of m and m^2; per strategy the same for its own decisions' g.
"""
from __future__ import annotations

import numpy as np

from fishing2sim.engine import constants as K
from fishing2sim.engine.records import (
    MAX_SAMPLED, X_D1_POINTS, X_D1_WIN, X_D2_POINTS, X_D2_WIN, X_G_POINTS, X_G_WIN, X_KIND,
    X_N_OPT, X_SEAT,
)

# the figures of a replayed decision, in the order of the clustered sums' second axis
DEC_FIGURES = ("g_points", "g_win", "prod_points", "prod_win", "cross_points", "cross_win")
DEC_X = {name: i for i, name in enumerate(DEC_FIGURES)}
NF = len(DEC_FIGURES)
DEC_FIELDS = {
    "dec_sampled": "decisions sampled; of them, left out (beyond a game's replays)",
    "dec_n": "per decision kind: decisions replayed",
    "dec_options": "per decision kind: the sum of their options",
    "dec_game": "per decision kind and figure (DEC_FIGURES): sums over units of a unit's "
                "sum x, x^2 and x * m (m: the unit's decisions of that kind)",
    "dec_game_m": "per decision kind: sums over units of m and m^2",
    "dec_strat_game": "per strategy, kind and unit (points, win): sums over units of the "
                      "unit's sum of g over its own decisions x, x^2 and x * m",
    "dec_strat_game_m": "per strategy and kind: sums over units of m and m^2 (its own)",
}


def empty(n_strategies: int) -> dict:
    S, D = n_strategies, K.N_DECISIONS
    z = np.zeros
    return {"dec_sampled": z(2, np.int64), "dec_n": z(D, np.int64),
            "dec_options": z(D, np.int64), "dec_game": z((D, NF, 3), np.int64),
            "dec_game_m": z((D, 2), np.int64), "dec_strat_game": z((S, D, 2, 3), np.int64),
            "dec_strat_game_m": z((S, D, 2), np.int64)}


def values(rows) -> dict:
    """Each figure of the replay rows ``rows`` [decision, X_*]."""
    out = {}
    for unit, (g, a, b) in (("points", (X_G_POINTS, X_D1_POINTS, X_D2_POINTS)),
                            ("win", (X_G_WIN, X_D1_WIN, X_D2_WIN))):
        d1, d2 = rows[:, a], rows[:, b]
        out[f"g_{unit}"] = rows[:, g]
        out[f"prod_{unit}"] = d1 * d2
        out[f"cross_{unit}"] = np.sign(d1) * d2 + np.sign(d2) * d1
    return out


def game_rows(t: dict, out_dec, out_sampled, slot) -> tuple:
    """(the games that replayed a decision, their rows) of one rotation: per game, per kind
    m, then each figure's x; then per strategy and kind m, g in points, g in win share (to
    be summed over the rotations of a block). The counts that need no unit (sampled, left
    out, replayed, options) go into ``t``. Only the few replayed rows are read: most games
    replay nothing."""
    D = K.N_DECISIONS
    S = t["dec_strat_game_m"].shape[0]
    sampled = out_sampled.astype(np.int64)
    t["dec_sampled"] += [int(sampled.sum()), int(np.maximum(sampled - MAX_SAMPLED, 0).sum())]
    game, i = np.nonzero(out_dec[:, :, X_KIND] >= 0)
    rows = out_dec[game, i]
    kind = rows[:, X_KIND]
    t["dec_n"] += np.bincount(kind, minlength=D)[:D]
    t["dec_options"] += np.bincount(kind, weights=rows[:, X_N_OPT],
                                    minlength=D)[:D].astype(np.int64)
    who = np.asarray(slot)[rows[:, X_SEAT]]
    vals = values(rows)
    games, game = np.unique(game, return_inverse=True)  # only the games that replayed
    out = np.zeros((games.size, D * (1 + NF) + S * D * 3), np.int64)
    base = kind * (1 + NF)
    np.add.at(out, (game, base), 1)
    for f, name in enumerate(DEC_FIGURES):
        np.add.at(out, (game, base + 1 + f), vals[name])
    at = D * (1 + NF) + (who * D + kind) * 3
    np.add.at(out, (game, at), 1)
    np.add.at(out, (game, at + 1), vals["g_points"])
    np.add.at(out, (game, at + 2), vals["g_win"])
    return games, out


def block_rows(parts) -> np.ndarray:
    """The rows of one chunk's units: game_rows' (games, rows) of every rotation, summed
    by game index (a rotation block is the same deal in every rotation). A unit that
    replayed nothing has no row: it adds 0 to every clustered sum."""
    games = np.concatenate([g for g, _ in parts])
    rows = np.concatenate([r for _, r in parts])
    units, at = np.unique(games, return_inverse=True)
    out = np.zeros((units.size, rows.shape[1]), np.int64)
    np.add.at(out, at, rows)
    return out


def fold(t: dict, rows) -> None:
    """The clustered sums from one row per unit (game_rows, summed over a block's
    rotations)."""
    D = K.N_DECISIONS
    S = t["dec_strat_game_m"].shape[0]

    def add(into, x, m):
        into += [int(x.sum()), int((x * x).sum()), int((x * m).sum())]

    for d in range(D):
        m = rows[:, d * (1 + NF)]
        t["dec_game_m"][d] += [int(m.sum()), int((m * m).sum())]
        for f in range(NF):
            add(t["dec_game"][d, f], rows[:, d * (1 + NF) + 1 + f], m)
        for s in range(S):
            at = D * (1 + NF) + (s * D + d) * 3
            ms = rows[:, at]
            t["dec_strat_game_m"][s, d] += [int(ms.sum()), int((ms * ms).sum())]
            add(t["dec_strat_game"][s, d, 0], rows[:, at + 1], ms)
            add(t["dec_strat_game"][s, d, 1], rows[:, at + 2], ms)
