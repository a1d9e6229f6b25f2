"""The ES step of the training (fishing2sim/train/es.py): which weights it moves, and in
which units."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fishing2sim.student.layout import N_FEATURES
from fishing2sim.student.model import read_model
from fishing2sim.train.net import split

REPO = Path(__file__).resolve().parent.parent


def test_the_es_moves_only_the_card_play_blocks_in_units_of_their_own_size():
    from fishing2sim.train.es import groups, weights_at
    from fishing2sim.train.es import play_blocks

    d = read_model(REPO / "fishing2sim" / "data" / "skilled.npz")
    w, hidden = d["weights"], int(d["hidden"])
    idx, scale = groups(w)
    assert len(idx) == len(set(idx.tolist())) == 6 * (N_FEATURES + 2 * hidden)
    assert np.array_equal(weights_at(w, idx, scale, np.zeros(len(idx))), w)
    # every tuned number is a play block's linear weight, hidden bias or output row
    marks = np.zeros(len(w))
    marks[idx] = 1.0
    lin, W1, c, u = split(marks, hidden)
    blocks = play_blocks()
    assert not W1.any()
    for part in (lin, c, u):
        assert part[blocks].all() and not np.delete(part, blocks, axis=0).any()
    # a unit step moves one number by its group's root mean square in the model
    lin0 = split(w, hidden)[0]
    k = 5  # block 0's sixth linear weight
    z = np.zeros(len(idx))
    z[k] = 1.0
    moved = weights_at(w, idx, scale, z)
    assert np.flatnonzero(moved != w).tolist() == [idx[k]]
    rms = np.sqrt(np.mean(lin0[blocks[0]] ** 2))
    assert moved[idx[k]] - w[idx[k]] == pytest.approx(rms)
