"""A game's win shares: each seat's share of the win, in whole 60ths (tied winners share
it, 60 divides evenly among 2, 3, 4 and 5), so sums over games stay exact integers. Used by
the totals (run/totals.py) and the per-card totals (run/card_impact.py)."""
from __future__ import annotations

import numpy as np

WIN_UNIT = 60  # win shares are counted in 60ths of a win (ties share it)


def win_shares(out_points, players):
    """Per game and seat: the win share in 60ths."""
    pts = out_points[:, :players]
    best = pts.max(axis=1, keepdims=True)
    won = pts == best
    k = won.sum(axis=1, keepdims=True)
    return np.where(won, WIN_UNIT // k, 0)
