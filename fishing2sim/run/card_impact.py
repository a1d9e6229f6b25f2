"""The per-card totals (docs/rules.md E, "Per-card impact"), kept only with ``analyses: [cards]``.

Each deal is played with the standard deck and once without each listed ocean card, on the
same deal (fishing2sim/engine/card_impact.py). Per card (indexed by its id in the condition's
deck) the totals hold the sums of the paired differences, game without the card minus
game with it, and their squares, from which the analysis makes each effect's 95% CI:

- ``cards_n``: deals played without the card;
- ``cards_over``: the overfished flag's difference (-1, 0 or 1);
- ``cards_rounds``: the difference of rounds started (the game's length);
- ``cards_lead``: the round-1 leader's win share's difference (the leader edge's, in 60ths;
  the round-1 leader is the same seat in both games);
- ``cards_drawn`` / ``cards_drawer``: of the deals whose standard game drew the card from
  the ocean, the drawer's win share's difference (60ths); ``cards_drawer_std`` the
  drawer's win share in the standard game (sum, sum of squares);
- ``cards_caught`` / ``cards_catcher``: of the deals whose standard game put the card on a
  fisher, the win share (60ths) in the standard game of the player on whose fisher it first
  landed: descriptive, and confounded (better players catch more cards).
"""
from __future__ import annotations

import numpy as np

from fishing2sim.config.deck import coupled_arrays
from fishing2sim.engine import constants as K
from fishing2sim.engine.records import (
    C_CATCHER, C_DRAWER, C_END, C_POINTS, C_ROUNDS, G_END, G_FIRST_LEADER, G_ROUNDS, N_C,
)
from fishing2sim.run.shares import win_shares

CARD_FIELDS = {
    "cards_n": "per card: deals played without it (paired with the standard deck's game)",
    "cards_over": "per card: sum, sum of squares of the overfished difference (without - with)",
    "cards_rounds": "per card: sum, sum of squares of the difference of rounds started",
    "cards_lead": "per card: sum, sum of squares of the round-1 leader's win share "
                  "difference (60ths)",
    "cards_drawn": "per card: deals whose standard game drew it from the ocean",
    "cards_drawer": "per card: sum, sum of squares of its drawer's win share difference "
                    "(60ths)",
    "cards_drawer_std": "per card: sum, sum of squares of its drawer's win share in the "
                        "standard game (60ths)",
    "cards_caught": "per card: deals whose standard game put it on a fisher",
    "cards_catcher": "per card: sum, sum of squares of the win share (60ths) of the player "
                     "who first caught it, in the standard game",
}


def empty_card_totals() -> dict:
    C = K.MAX_CARDS
    z = np.zeros
    return {"cards_n": z(C, np.int64), "cards_over": z((C, 2), np.int64),
            "cards_rounds": z((C, 2), np.int64), "cards_lead": z((C, 2), np.int64),
            "cards_drawn": z(C, np.int64), "cards_drawer": z((C, 2), np.int64),
            "cards_drawer_std": z((C, 2), np.int64), "cards_caught": z(C, np.int64),
            "cards_catcher": z((C, 2), np.int64)}


def loo_decks(arrays: np.ndarray, ids, deck=None) -> tuple[np.ndarray, np.ndarray]:
    """(decks, drops) of the kernel: per listed card its id and the deck without it, read-only
    like every deck the kernels get. A deck with the coupled deal's columns (``deck``, its
    Deck, then gives the names) keeps them: the game without a card deals the same
    starting hands as the game with it."""
    drops = np.asarray(list(ids), np.int64)
    coupled = arrays.shape[1] > K.N_FIELDS

    def without(c):
        if not coupled:
            return np.delete(arrays, c, axis=0)
        names = deck.names[:c] + deck.names[c + 1:]
        return coupled_arrays(np.delete(arrays[:, :K.N_FIELDS], c, axis=0), names,
                              deck.ruleset, always=True)
    decks = np.stack([without(c) for c in drops]) if len(drops) else \
        np.zeros((0, arrays.shape[0] - 1, arrays.shape[1]), np.int64)
    decks = np.ascontiguousarray(decks)
    decks.flags.writeable = False
    return decks, drops


def _add(t, key, ids, d, mask=None) -> None:
    """Per listed card (column j of d, [game, card]): the sums of d and d^2 over the games
    (where ``mask``)."""
    d = d.astype(np.int64)
    if mask is not None:
        d = np.where(mask, d, 0)
    t[key][ids, 0] += d.sum(axis=0)
    t[key][ids, 1] += (d * d).sum(axis=0)


def add_cards(t: dict, P: int, ids, out_int, out_points, out_cards) -> None:
    """The per-card totals of one batch of cards_batch output."""
    ids = np.asarray(list(ids), np.int64)
    n, k = out_cards.shape[:2]
    if n == 0 or k == 0:
        return
    games = np.arange(n)[:, None]
    ws = win_shares(out_points, P)  # [game, seat]
    loo_pts = out_cards[:, :, C_POINTS:C_POINTS + P]
    best = loo_pts.max(axis=2, keepdims=True)
    won = loo_pts == best
    ws_loo = np.where(won, 60 // won.sum(axis=2, keepdims=True), 0)  # [game, card, seat]
    t["cards_n"][ids] += n
    over = (out_int[:, G_END] == K.END_OVERFISHED).astype(np.int64)[:, None]
    _add(t, "cards_over", ids, (out_cards[:, :, C_END] == K.END_OVERFISHED) - over)
    _add(t, "cards_rounds", ids, out_cards[:, :, C_ROUNDS] - out_int[:, G_ROUNDS][:, None])
    fl = out_int[:, G_FIRST_LEADER]
    fl_std = ws[np.arange(n), fl][:, None]
    fl_loo = np.take_along_axis(ws_loo, fl[:, None, None].repeat(k, axis=1), axis=2)[:, :, 0]
    _add(t, "cards_lead", ids, fl_loo - fl_std)
    drawer = out_cards[:, :, C_DRAWER]
    drawn = drawer >= 0
    who = np.maximum(drawer, 0)
    std = ws[games, who]
    loo = np.take_along_axis(ws_loo, who[:, :, None], axis=2)[:, :, 0]
    t["cards_drawn"][ids] += drawn.sum(axis=0)
    _add(t, "cards_drawer", ids, loo - std, drawn)
    _add(t, "cards_drawer_std", ids, std, drawn)
    catcher = out_cards[:, :, C_CATCHER]
    caught = catcher >= 0
    t["cards_caught"][ids] += caught.sum(axis=0)
    _add(t, "cards_catcher", ids, ws[games, np.maximum(catcher, 0)], caught)


def play_cards(args, loo, out_int, out_points, out_ocean, out_trump, out_round_points,
               strats) -> tuple[int, np.ndarray]:
    """Play a batch with cards_batch (``args``: play_batch's first arguments, their last the
    work rows; ``loo``: loo_decks' (decks, drops)); returns (deals played, the per-card
    output). A strategy error stops the batch as play_batch's does (work[0] carries it)."""
    # the kernels load numba: the analysis imports this module (through run/totals.py)
    from fishing2sim.api import call_kernel
    from fishing2sim.engine.card_impact import cards_batch

    decks, drops = loo
    arrays, rest, work = args[0], args[1:-1], args[-1]
    n = args[8]
    out_cards = np.zeros((n, len(drops), N_C), np.int64)
    done = call_kernel(cards_batch, (arrays, decks, drops, *rest, work, out_int, out_points,
                                     out_ocean, out_trump, out_round_points, out_cards),
                       work, strats)
    return done, out_cards
