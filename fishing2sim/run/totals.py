"""Totals: the merged counts and sums of a condition, with named fields.

A chunk of games reduces to a dict of int64 arrays (its *totals*); the totals of a
condition are the element-wise sums over its chunks, exact, so they never depend on the
chunk size, the number of workers or the order in which chunks finish. This module owns
the fields (what each array holds), the reduction of one batch of kernel output
(:func:`accumulate`) and the merge; the runner, the analyses and the Dask backend use it,
and none of them decodes an array by position.

Per-unit vectors (keys starting with ``unit_``) are kept only for conditions that share
their deals with another condition (``paired: true``): one entry per unit (a game, or a
rotation block), in game order, so two conditions' vectors pair game by game. They are
not summed: :func:`split_units` takes them out of a chunk's totals and the runner keeps
them per chunk. :func:`unit_keys` lists them: the overfished / empty-ocean flags, the cards
left, the strategies' win shares and, with the trump analysis, each unit's trump-choice
sums (``unit_trump_n`` choices analysed, ``unit_trump_g`` the sum of g, ``unit_trump_prod``
the sum of d1 * d2, in points), from which the paired contrasts of the trump figures (ratios
of sums over a unit's choices) are linearised unit by unit.

The per-card totals (``cards_*``, fishing2sim/run/card_impact.py) likewise exist only with
``analyses: [cards]`` (``empty_totals(..., cards=True)``).

The game-arc totals (``arc_*``, :data:`ARC_FIELDS`) exist only in the totals of an
experiment with ``analyses: [arc]`` (``empty_totals(..., arc=True)``, :func:`add_arc` from the
kernels' points after every round); without it the totals and checkpoints are unchanged.
"""
from __future__ import annotations

import numpy as np

from fishing2sim.engine import constants as K
from fishing2sim.engine.records import (
    G_END, G_END_ROUND, G_FIRST_LEADER, G_MAX_TIER, G_ROUNDS, T_CHOICE, T_CHOOSER, T_D1_POINTS,
    T_D1_WIN, T_D2_POINTS, T_D2_WIN,
)
from fishing2sim.run.card_impact import CARD_FIELDS, empty_card_totals
from fishing2sim.run.examples import EXAMPLE_PREFIX, OUTCOME_KEY
from fishing2sim.run.shares import WIN_UNIT, win_shares  # noqa: F401  (the totals' names too)

R = K.MAX_ROUNDS + 1
MAX_POINTS = 1024  # score histogram bins (the last one collects anything higher)

# the six sums kept per round and unit of the trump-choice pairs (docs/rules.md E):
# g = sign * (d1 + d2), sign +1 if light was chosen; d1, d2 two independent pairs'
# light-minus-dark; prod = d1 * d2; cross = sign(d1) * d2 + sign(d2) * d1 (each pair picks
# the shade, the other one scores it: the cross-fitted gain)
TRUMP_G_SUM, TRUMP_G_SQ, TRUMP_PROD_SUM, TRUMP_PROD_SQ, TRUMP_CROSS_SUM, TRUMP_CROSS_SQ = \
    range(6)
# the trump figures pooled over a game's choices, clustered by game: per figure (g, prod,
# cross) the sums over games of x, x^2 and x * m (x a game's sum over its choices, m its
# choices analysed); TRUMP_GAME_M holds the sums of m and m^2
TRUMP_X = {"g": 0, "prod": 1, "cross": 2}
CL_SUM, CL_SQ, CL_XM = range(3)
# the columns of a game's row in _block_trump: m, then x of (unit, figure) for both units
# and the three figures, then per strategy its m and its g in points and in win share
_TRUMP_COLS = 1 + 2 * len(TRUMP_X)
# the two sums kept per strategy and round of its own trump choices
SUM, SQ = range(2)

UNIT_PREFIX = "unit_"
_NOT_SUMMED = (UNIT_PREFIX, EXAMPLE_PREFIX)  # kept per chunk, or merged by run/examples.py
UNIT_KEYS = ("unit_overfished", "unit_empty", "unit_ocean_last", "unit_win",
             "unit_first_leader")
UNIT_TRUMP_KEYS = ("unit_trump_n", "unit_trump_g", "unit_trump_prod", "unit_trump_cross")
BLOCK_KEYS = ("_block_win", "_block_points", "_block_trump")

FIELDS = {
    "games": "games played",
    "completed": "games completed (all rounds played)",
    "overfished": "games that ended by overfishing",
    "overfished_d1c": "games overfished through a draw-1-card",
    "overfished_round": "games overfished, by end_round",
    "rounds_sum": "sum and sum of squares of the rounds started",
    "reached": "games that started round r",
    "ocean_hist": "per round r: histogram of the ocean after the round's draws (games "
                  "still running)",
    "empty_by": "games whose ocean is empty by (the end of) round r",
    "empty_or_over_by": "games whose ocean is empty or that ended by overfishing by round r",
    "tier_reached": "games that drew a card of tier t",
    "seat_win": "per seat: sum and sum of squares of the win share (60ths)",
    "seat_win_cross": "per pair of seats: sum over games of the product of their win shares "
                      "(the test of seat equality)",
    "first_leader_win": "the round-1 leader's win share: sum, sum of squares",
    "spread": "points spread (max - min): sum, sum of squares",
    "margin": "the winning margin (the most points minus the next most): sum, sum of squares",
    "game_points": "a game's points summed over its seats: sum, sum of squares",
    "strat_win": "per strategy, per unit: sum and sum of squares of its win share",
    "strat_win_cross": "per pair of strategies: sum over units of the product of their "
                       "win shares (paired differences within a condition, SPRT)",
    "strat_points": "per strategy, per unit: sum and sum of squares of its points",
    "strat_seats": "seat-games played by each strategy",
    "strat_units": "units (games, or rotation blocks)",
    "score_hist": "per strategy: histogram of final points",
    "trump_n": "trump choices analysed, by round",
    "trump_light": "of them, light chosen",
    "trump_points": "by round: TRUMP_G_SUM, TRUMP_G_SQ, TRUMP_PROD_SUM, TRUMP_PROD_SQ, "
                    "TRUMP_CROSS_SUM, TRUMP_CROSS_SQ in points",
    "trump_win": "the same in win share (60ths)",
    "trump_game": "per unit (points, win) and figure (g, prod, cross): sums over games of a "
                  "game's sum x, x^2 and x * m (m: the game's choices), for the clustered CI",
    "trump_game_m": "sums over games of m and m^2 (m: a game's trump choices analysed)",
    "strat_trump_n": "per strategy and round: its own trump choices analysed",
    "strat_trump_points": "per strategy and round: SUM, SQ of g (points) of its own choices",
    "strat_trump_win": "the same in win share (60ths)",
    "strat_trump_game": "per strategy and unit (points, win): sums over games of the game's "
                        "sum of g over its own choices x, x^2 and x * m",
    "strat_trump_game_m": "per strategy: sums over games of m and m^2 (m: its own choices)",
}
# the game-arc totals (docs/rules.md E, "Game arc"), kept only with analyses: [arc]
ARC_UNIT = WIN_UNIT * WIN_UNIT  # a win share split among k tied players, in 3600ths (exact)
ARC_MARGIN_BINS = 256  # final margin histogram (the last bin collects anything higher)
ARC_FIELDS = {
    "arc_scored": "games whose round r was scored (the standing after round r exists)",
    "arc_leader_win": "per round r: the win share of the player with the most points after "
                      "round r (k tied: each 1/k), sum and sum of squares in ARC_UNIT",
    "arc_comeback": "per round r: games won (alone or shared) by a player with the fewest "
                    "points after round r, fewer than the most",
    "arc_next": "games that started round r + 1 (the leader rule chose its leader)",
    "arc_last_win": "per round r: the win share of the player with the fewest points after "
                    "round r (k tied: each 1/k), of the games that started round r + 1; sum, "
                    "sum of squares in ARC_UNIT",
    "arc_changes": "histogram of the lead changes per game",
    "arc_margin": "histogram of the final margin (the most points minus the next most)",
}
FIELDS.update(ARC_FIELDS)
FIELDS.update(CARD_FIELDS)  # the per-card totals (run/card_impact.py), kept only with analyses: [cards]


def empty_totals(players: int, n_strategies: int, arc: bool = False,
                 cards: bool = False) -> dict:
    """The totals of no games (with ``arc``: the game-arc totals too; with ``cards``: the
    per-card totals, run/card_impact.py)."""
    S = n_strategies
    z = np.zeros
    t = {
        "games": z(1, np.int64),
        "completed": z(1, np.int64),
        "overfished": z(1, np.int64),
        "overfished_d1c": z(1, np.int64),
        "overfished_round": z(R + 1, np.int64),
        "rounds_sum": z(2, np.int64),
        "reached": z(R, np.int64),
        "ocean_hist": z((R, K.MAX_CARDS + 1), np.int64),
        "empty_by": z(R, np.int64),
        "empty_or_over_by": z(R, np.int64),
        "tier_reached": z(6, np.int64),
        "seat_win": z((K.MAX_PLAYERS, 2), np.int64),
        "seat_win_cross": z((K.MAX_PLAYERS, K.MAX_PLAYERS), np.int64),
        "first_leader_win": z(2, np.int64),
        "spread": z(2, np.int64),
        "margin": z(2, np.int64),
        "game_points": z(2, np.int64),
        "strat_win": z((S, 2), np.int64),
        "strat_win_cross": z((S, S), np.int64),
        "strat_points": z((S, 2), np.int64),
        "strat_seats": z(S, np.int64),
        "strat_units": z(1, np.int64),
        "score_hist": z((S, MAX_POINTS), np.int64),
        "trump_n": z(R, np.int64),
        "trump_light": z(R, np.int64),
        "trump_points": z((R, 6), np.int64),
        "trump_win": z((R, 6), np.int64),
        "trump_game": z((2, 3, 3), np.int64),
        "trump_game_m": z(2, np.int64),
        "strat_trump_n": z((S, R), np.int64),
        "strat_trump_points": z((S, R, 2), np.int64),
        "strat_trump_win": z((S, R, 2), np.int64),
        "strat_trump_game": z((S, 2, 3), np.int64),
        "strat_trump_game_m": z((S, 2), np.int64),
        "_block_win": z((0, S), np.int64),
        "_block_points": z((0, S), np.int64),
        "_block_trump": z((0, _TRUMP_COLS + 3 * S), np.int64),
    }
    if arc:
        t.update({"arc_scored": z(R, np.int64), "arc_leader_win": z((R, 2), np.int64),
                  "arc_comeback": z(R, np.int64), "arc_next": z(R, np.int64),
                  "arc_last_win": z((R, 2), np.int64), "arc_changes": z(R, np.int64),
                  "arc_margin": z(ARC_MARGIN_BINS, np.int64)})
    if cards:
        t.update(empty_card_totals())
    return t


def summed_keys(arc: bool = False, cards: bool = False) -> list[str]:
    """The keys a checkpoint holds and the merge sums (not the block accumulators)."""
    return [k for k in empty_totals(1, 1, arc, cards) if k not in BLOCK_KEYS]


def accumulate(t: dict, P: int, slot, out_int, out_points, out_ocean, pairs,
               units: dict | None = None, last_round: int = 0, round_points=None):
    """Add one batch of kernel output (one rotation of a chunk) to the totals ``t``.
    ``units`` (paired conditions): a dict that collects this rotation's per-game vectors.
    ``round_points`` (analyses: [arc]): the points after each round, [game, round, seat]."""
    # the engine's record layout, imported here: loading the totals loads no kernel
    n = out_int.shape[0]
    t["games"] += n
    end = out_int[:, G_END]
    over = end == K.END_OVERFISHED
    rounds = out_int[:, G_ROUNDS]
    end_round = out_int[:, G_END_ROUND]
    _add_ends(t, out_int, out_ocean, end, over, rounds, end_round)
    ws = win_shares(out_points, P)
    pts = out_points[:, :P]
    fl = ws[np.arange(n), out_int[:, G_FIRST_LEADER]]
    _add_seats(t, ws, pts, fl, P)
    _add_strategies(t, slot, ws, pts, P)
    if round_points is not None:
        add_arc(t, ws, pts, round_points[:, 1:last_round + 1, :P], rounds - (
            over & (end_round == rounds)), rounds)
    if units is not None:
        lr = min(last_round, R - 1)
        ocean_last = np.where(rounds >= lr, out_ocean[:, lr], 0)
        last = np.minimum(rounds, lr)
        empty_last = ((out_ocean[np.arange(n), R + last] == 0) & (last >= 1)) \
            | (over & (end_round <= lr))
        for key, v in (("unit_overfished", over.astype(np.int64)),
                       ("unit_empty", empty_last.astype(np.int64)),
                       ("unit_ocean_last", ocean_last.astype(np.int64)),
                       ("unit_first_leader", fl.astype(np.int64))):
            units.setdefault(key, []).append(v)
    if pairs is not None:
        ch = pairs[:, :, T_CHOOSER] >= 0
        slot = np.asarray(slot)
        _accumulate_trump_games(t, pairs, ch, slot, units)
        _add_trump_rounds(t, pairs, ch, slot)


def add_arc(t, ws, pts, rp, scored, started) -> None:
    """The game-arc totals (docs/rules.md E, "Game arc") of a batch: ``ws`` the win shares
    (60ths) and ``pts`` the final points [game, seat], ``rp`` the points after rounds
    1..n [game, round - 1, seat], ``scored`` the rounds scored and ``started`` the rounds
    started of each game (a game overfished at a draw-1-card started a round it never
    scored)."""
    n, nr = rp.shape[:2]
    x = np.ascontiguousarray(rp.transpose(2, 0, 1), dtype=np.int16)  # [seat, game, round]
    r = np.arange(1, nr + 1)
    have = scored[:, None] >= r[None, :]  # the standing after round r exists
    hi, lo = x.max(axis=0), x.min(axis=0)
    top, bottom = x == hi, x == lo
    w = ws.T.astype(np.int32)[:, :, None]  # [seat, game, 1]
    k_top = top.sum(axis=0, dtype=np.int32)
    # the leader's / the last player's win share, k tied players each counting 1/k
    lead = np.where(have, (top * w).sum(axis=0, dtype=np.int64) * WIN_UNIT // k_top, 0)
    last = (bottom * w).sum(axis=0, dtype=np.int64) * WIN_UNIT // bottom.sum(axis=0)
    come = (bottom & (w > 0)).any(axis=0) & (lo < hi) & have
    nxt = have & (started[:, None] >= r[None, :] + 1)
    last = np.where(nxt, last, 0)
    t["arc_scored"][1:nr + 1] += have.sum(axis=0)
    t["arc_leader_win"][1:nr + 1, 0] += lead.sum(axis=0)
    t["arc_leader_win"][1:nr + 1, 1] += (lead * lead).sum(axis=0)
    t["arc_comeback"][1:nr + 1] += come.sum(axis=0)
    t["arc_next"][1:nr + 1] += nxt.sum(axis=0)
    t["arc_last_win"][1:nr + 1, 0] += last.sum(axis=0)
    t["arc_last_win"][1:nr + 1, 1] += (last * last).sum(axis=0)
    # lead changes: the sole leader after round r differs from the last sole leader before
    # it (a round ending with a tie for the most points keeps the last sole leader)
    sole = (k_top == 1) & have
    who = top.argmax(axis=0)
    cur = np.full(n, -1)
    changes = np.zeros(n, np.int64)
    for i in range(nr):
        changes += sole[:, i] & (cur >= 0) & (who[:, i] != cur)
        cur = np.where(sole[:, i], who[:, i], cur)
    t["arc_changes"] += np.bincount(changes, minlength=R)[:R]
    top2 = np.sort(pts, axis=1)[:, -2:]
    margin = np.minimum(top2[:, 1] - top2[:, 0], ARC_MARGIN_BINS - 1)
    t["arc_margin"] += np.bincount(margin, minlength=ARC_MARGIN_BINS)


def _add_ends(t, out_int, out_ocean, end, over, rounds, end_round) -> None:
    """How the games ended, and the ocean after each round's draws (depletion)."""
    n = out_int.shape[0]
    t["completed"] += int((end == K.END_COMPLETED).sum())
    t["overfished"] += int(over.sum())
    d1c = over & (rounds == end_round)
    t["overfished_d1c"] += int(d1c.sum())
    t["overfished_round"] += np.bincount(end_round[over], minlength=R + 1)[:R + 1]
    t["rounds_sum"] += [int(rounds.sum()), int((rounds * rounds).sum())]
    for r in range(1, R):
        reached = rounds >= r
        t["reached"][r] += int(reached.sum())
        t["ocean_hist"][r] += np.bincount(out_ocean[reached, r], minlength=K.MAX_CARDS + 1)
        last = np.minimum(rounds, r)
        ocean_end = out_ocean[np.arange(n), R + last]
        empty = (ocean_end == 0) & (last >= 1)
        t["empty_by"][r] += int(empty.sum())
        t["empty_or_over_by"][r] += int((empty | (over & (end_round <= r))).sum())
    t["tier_reached"] += np.bincount(out_int[:, G_MAX_TIER], minlength=6)[::-1].cumsum()[::-1][:6]
    t["tier_reached"][0] = 0


def _add_seats(t, ws, pts, fl, P) -> None:
    """Each seat's win share (and their cross products, for the seats' equality test), the
    first leader's, the spread of points, the winner's margin and the game's points."""
    t["seat_win"][:P, 0] += ws.sum(axis=0)
    t["seat_win"][:P, 1] += (ws * ws).sum(axis=0)
    t["seat_win_cross"][:P, :P] += ws.T.astype(np.int64) @ ws.astype(np.int64)
    t["first_leader_win"] += [int(fl.sum()), int((fl * fl).sum())]
    spread = pts.max(axis=1) - pts.min(axis=1)
    t["spread"] += [int(spread.sum()), int((spread * spread).sum())]
    top2 = np.sort(pts, axis=1)[:, -2:]
    margin = (top2[:, 1] - top2[:, 0]).astype(np.int64)
    t["margin"] += [int(margin.sum()), int((margin * margin).sum())]
    gsum = pts.sum(axis=1).astype(np.int64)
    t["game_points"] += [int(gsum.sum()), int((gsum * gsum).sum())]


def _add_strategies(t, slot, ws, pts, P) -> None:
    """Per game each strategy's summed win share and points over its seats (the rotation
    blocks' vectors), its seats and its final points histogram."""
    n = ws.shape[0]
    S = t["strat_win"].shape[0]
    gw = np.zeros((n, S), np.int64)
    gp = np.zeros((n, S), np.int64)
    for p in range(P):
        gw[:, slot[p]] += ws[:, p]
        gp[:, slot[p]] += pts[:, p]
        t["strat_seats"][slot[p]] += n
        t["score_hist"][slot[p]] += np.bincount(
            np.minimum(np.maximum(pts[:, p], 0), MAX_POINTS - 1), minlength=MAX_POINTS)
    t["_block_win"] = np.vstack([t["_block_win"], gw]) if t["_block_win"].size else gw
    t["_block_points"] = np.vstack([t["_block_points"], gp]) if t["_block_points"].size else gp


def _add_trump_rounds(t, pairs, ch, slot) -> None:
    """The trump choices of each round: how often light, and per unit (points, win) the
    sums of g, prod and cross (TRUMP_X), also per strategy that chose."""
    S = t["strat_win"].shape[0]
    for r in range(1, R):
        m = ch[:, r]
        if not m.any():
            continue
        sign = np.where(pairs[m, r, T_CHOICE] == K.C_LIGHT, 1, -1)
        who = slot[pairs[m, r, T_CHOOSER]]
        t["trump_n"][r] += int(m.sum())
        t["trump_light"][r] += int((sign > 0).sum())
        t["strat_trump_n"][:, r] += np.bincount(who, minlength=S)
        for key, skey, (a, b) in (("trump_points", "strat_trump_points",
                                   (T_D1_POINTS, T_D2_POINTS)),
                                  ("trump_win", "strat_trump_win", (T_D1_WIN, T_D2_WIN))):
            d1 = pairs[m, r, a]
            d2 = pairs[m, r, b]
            g = sign * (d1 + d2)
            prod = d1 * d2
            cross = np.sign(d1) * d2 + np.sign(d2) * d1
            row = t[key][r]
            row[TRUMP_G_SUM] += int(g.sum())
            row[TRUMP_G_SQ] += int((g * g).sum())
            row[TRUMP_PROD_SUM] += int(prod.sum())
            row[TRUMP_PROD_SQ] += int((prod * prod).sum())
            row[TRUMP_CROSS_SUM] += int(cross.sum())
            row[TRUMP_CROSS_SQ] += int((cross * cross).sum())
            t[skey][:, r, SUM] += np.bincount(who, weights=g, minlength=S).astype(np.int64)
            t[skey][:, r, SQ] += np.bincount(who, weights=g * g,
                                             minlength=S).astype(np.int64)


def trump_choice_values(pairs, ch, unit: int) -> dict:
    """Per game and round (rounds 1.., a choice where ``ch``, else 0): g, prod and cross
    (TRUMP_X) of the trump choices in points (``unit`` 0) or win share (1)."""
    a, b = ((T_D1_POINTS, T_D2_POINTS), (T_D1_WIN, T_D2_WIN))[unit]
    sign = np.where(pairs[:, 1:, T_CHOICE] == K.C_LIGHT, 1, -1)
    d1 = pairs[:, 1:, a].astype(np.int64)
    d2 = pairs[:, 1:, b].astype(np.int64)
    c = ch[:, 1:]
    return {"g": np.where(c, sign * (d1 + d2), 0), "prod": np.where(c, d1 * d2, 0),
            "cross": np.where(c, np.sign(d1) * d2 + np.sign(d2) * d1, 0)}


def _accumulate_trump_games(t: dict, pairs, ch, slot, units: dict | None) -> None:
    """A row per game of its trump choices' sums (_block_trump: folded into the clustered
    sums by unit in add_blocks) and, for paired conditions, the unit vectors (points)."""
    c = ch[:, 1:]
    n = c.shape[0]
    m = c.sum(axis=1).astype(np.int64)
    S = t["strat_trump_game_m"].shape[0]
    who = np.where(c, slot[np.where(c, pairs[:, 1:, T_CHOOSER], 0)], -1)
    row = np.zeros((n, _TRUMP_COLS + 3 * S), np.int64)
    row[:, 0] = m
    for unit in (0, 1):
        vals = trump_choice_values(pairs, ch, unit)
        for name, i in TRUMP_X.items():
            row[:, 1 + unit * len(TRUMP_X) + i] = vals[name].sum(axis=1)
        for s in range(S):
            row[:, _TRUMP_COLS + 3 * s + 1 + unit] = np.where(who == s, vals["g"], 0).sum(axis=1)
        if units is not None and unit == 0:  # per game, pooled over the rounds analysed
            units.setdefault("unit_trump_n", []).append(m.copy())
            for name in TRUMP_X:
                units.setdefault(f"unit_trump_{name}", []).append(
                    vals[name].sum(axis=1).astype(np.int64))
    for s in range(S):
        row[:, _TRUMP_COLS + 3 * s] = (who == s).sum(axis=1)
    b = t["_block_trump"]
    t["_block_trump"] = np.vstack([b, row]) if b.size else row


def _fold_trump(t: dict, rows) -> None:
    """The clustered sums of the trump figures from one row per unit (a game or a rotation
    block): sums of x, x^2 and x * m per figure, of m and m^2."""
    if not rows.size:
        return
    m = rows[:, 0]
    t["trump_game_m"] += [int(m.sum()), int((m * m).sum())]
    for unit in (0, 1):
        for i in range(len(TRUMP_X)):
            x = rows[:, 1 + unit * len(TRUMP_X) + i]
            t["trump_game"][unit, i] += [int(x.sum()), int((x * x).sum()), int((x * m).sum())]
    S = t["strat_trump_game_m"].shape[0]
    for s in range(S):
        ms = rows[:, _TRUMP_COLS + 3 * s]
        t["strat_trump_game_m"][s] += [int(ms.sum()), int((ms * ms).sum())]
        for unit in (0, 1):
            x = rows[:, _TRUMP_COLS + 3 * s + 1 + unit]
            t["strat_trump_game"][s, unit] += [int(x.sum()), int((x * x).sum()),
                                               int((x * ms).sum())]


def add_blocks(t: dict, n_rot: int, n_units: int, units: dict | None = None):
    """Fold the per-game strategy sums into per-unit sums and their squares. A unit is a
    game, or with seat rotation a block: the same deal played in every rotation."""
    gw, gp = t.pop("_block_win"), t.pop("_block_points")
    gt = t.pop("_block_trump")
    if n_rot > 1:  # rows are [rotation][block]: sum the rotations of each block
        gw = gw.reshape(n_rot, n_units, -1).sum(axis=0)
        gp = gp.reshape(n_rot, n_units, -1).sum(axis=0)
        if gt.size:
            gt = gt.reshape(n_rot, n_units, -1).sum(axis=0)
    _fold_trump(t, gt)
    t["strat_units"] += gw.shape[0]
    t["strat_win"][:, SUM] += gw.sum(axis=0)
    t["strat_win"][:, SQ] += (gw * gw).sum(axis=0)
    t["strat_win_cross"] += gw.T @ gw
    t["strat_points"][:, SUM] += gp.sum(axis=0)
    t["strat_points"][:, SQ] += (gp * gp).sum(axis=0)
    if units is not None:
        for key, parts in list(units.items()):
            if key == OUTCOME_KEY:  # a game's outcome code, a column per rotation
                t[key] = np.stack(parts, axis=1)
                continue
            v = np.concatenate(parts)
            if n_rot > 1:
                v = v.reshape(n_rot, n_units).sum(axis=0)
            t[key] = v
        t["unit_win"] = gw.copy()


def unit_keys(trump: bool) -> tuple:
    """The unit vectors a chunk of a paired condition holds (with the trump analysis: its
    trump-choice sums too)."""
    return UNIT_KEYS + (UNIT_TRUMP_KEYS if trump else ())


def merge(into: dict | None, t: dict) -> dict:
    """``into`` + ``t`` (the summed keys; ``t``'s unit vectors and example games, which
    are no sums, are left out)."""
    if into is None:
        return {k: v.copy() for k, v in t.items() if not k.startswith(_NOT_SUMMED)}
    for k, v in t.items():
        if not k.startswith(_NOT_SUMMED):
            into[k] += v
    return into


def split_units(t: dict) -> dict:
    """The unit vectors of a chunk's totals (``{}`` for an unpaired condition)."""
    return {k: v for k, v in t.items() if k.startswith(UNIT_PREFIX)}
