"""Searching only where the student is unsure (docs/search.md, "Searching only close
decisions"): a pimc seat with a margin (kernels.SP_MARGIN > 0) whose rollout strategy is a
student (skilled) first scores the options of its card play or trump choice as the student
does, from its own observation (the one the engine would hand its strategy); where the two
best scores are at least the margin apart it takes the student's choice without searching.
"""
import numpy as np
from numba import njit

from fishing2sim.engine.constants import (
    D_PLAY, D_TRUMP_CHOICE, MAX_HAND, O_HAND, O_N_OPTIONS, O_N_PLAYED, O_OPTIONS,
)
from fishing2sim.engine.core import fill_obs, seat_params
from fishing2sim.engine.state import A_HAND_N, A_OPTIONS, S_ASK_KIND, S_ASK_SEAT, S_N_OPTIONS
from fishing2sim.student.features import best_option, features_batch, hidden_of
from fishing2sim.student.layout import N_BLOCKS, N_FEATURES, N_WEIGHTS


@njit(cache=True)
def student_scores(obs_row, w, out):
    """The student's score of each option of the decision in obs_row[0] (an observation,
    as a row of one) under its parameter vector w, into out: the linear score plus the
    hidden layer, as student/scores.py computes it (w's layout: scores.split). Returns
    the number of options (0 if w is not a student's vector)."""
    hidden = hidden_of(w.shape[0])
    if hidden < 0:
        return 0
    n = min(max(obs_row[0, O_N_OPTIONS], 0), MAX_HAND)
    X = np.zeros((1, MAX_HAND, N_FEATURES))
    blocks = np.zeros(1, np.int64)
    features_batch(obs_row, X, blocks)
    b = blocks[0]
    c0 = N_WEIGHTS + N_FEATURES * hidden + b * hidden
    u0 = c0 + N_BLOCKS * hidden
    z = np.empty(max(hidden, 1))
    for i in range(n):
        s = 0.0
        for k in range(hidden):
            z[k] = w[c0 + k]
        for j in range(N_FEATURES):
            x = X[0, i, j]
            if x != 0.0:
                s += x * w[b * N_FEATURES + j]
                r = N_WEIGHTS + j * hidden
                for k in range(hidden):
                    z[k] += x * w[r + k]
        for k in range(hidden):
            if z[k] > 0.0:
                s += w[u0 + k] * z[k]
        out[i] = s
    return n


@njit(cache=True)
def top_gap(scores, n):
    """The best score less the second best of scores[:n] (infinite with one option)."""
    best = -np.inf
    second = -np.inf
    for i in range(n):
        v = scores[i]
        if v > best:
            second = best
            best = v
        elif v > second:
            second = v
    return best - second


@njit(cache=True)
def sure_choice(st, robs, rparams, margin):
    """The student's choice at the decision st is paused at if it is sure of it (its two
    best options score at least ``margin`` apart), else -1 (search it). The paused seat's
    observation is written into its buffer robs[seat] as the engine writes it for a
    strategy (then cleared as after a decision); the student's parameter vector is the
    seat's row of ``rparams`` (its rollout lineup's table). Only card plays and trump
    choices are judged (-1 for the others) and only with a student's vector."""
    s = st[S_ASK_SEAT]
    kind = st[S_ASK_KIND]
    if margin <= 0.0 or (kind != D_PLAY and kind != D_TRUMP_CHOICE):
        return -1
    w = seat_params(rparams, s)
    if hidden_of(w.shape[0]) < 0:
        return -1
    n = st[S_N_OPTIONS]
    o = robs[s]
    for i in range(n):
        o[O_OPTIONS + i] = st[A_OPTIONS + i]
    o[O_N_PLAYED] = -1  # the played list is copied afresh
    fill_obs(st, o, s, kind, n, -1)
    scores = np.zeros(MAX_HAND)
    student_scores(robs[s:s + 1], w, scores)
    choice = -1
    if top_gap(scores, n) >= margin:
        choice = best_option(o, w)
    for i in range(n):
        o[O_OPTIONS + i] = -1
    for i in range(st[A_HAND_N + s]):
        o[O_HAND + i] = -1
    return choice
