"""Fitting the student: a multinomial logit over each decision's options.

For every decision the student's probability of option i is softmax(w . x_i) over the
options; the target is softmax(v_i / T) of the teacher's option values v (points of
margin, T = ``temperature`` points): soft targets, so a near-tie of two options teaches
little and a clear best option a lot. The loss is the mean cross-entropy plus
``l2 * |w|^2``, minimised by Newton's method with a backtracking line search (numpy
only: a block has N_FEATURES weights, so its Hessian is small) for each (ruleset, decision
kind) block on its own: the blocks share no weight. The result is deterministic for the same positions.

``prior_weights`` is the iteration-0 student: the ``weights`` bot's defaults written in
the student's features (and its shared decisions' rules for the other kinds).
"""
from __future__ import annotations

import numpy as np

from fishing2sim.engine.constants import (
    D_CATCH_1_CARD, D_CATCH_1_OTHER, D_DETERMINE_COLOUR, D_DETERMINE_TRUMP, D_EXCHANGE_GIVE,
    D_EXCHANGE_TAKE, D_PASS_1_LEFT, D_PLAY, D_TRUMP_CHOICE, D_ZERO_CATCH, N_DECISIONS,
)
from fishing2sim.student.layout import (
    BLOCKS_PER_RULESET, FEATURE_NAMES, N_BLOCKS, N_FEATURES, N_PLAY_BLOCKS, N_RULESETS, N_WEIGHTS,
)
from fishing2sim.train.net import scores, targets

F = {n: i for i, n in enumerate(FEATURE_NAMES)}


def block(w, rs: int, kind: int, play_bucket: int = 0):
    """The weights of ruleset rs (0 Fishing 2, 1 Fishing) and decision kind (a view);
    card plays: of their bucket (features.play_block)."""
    b = kind if kind != D_PLAY or play_bucket == 0 else N_DECISIONS + play_bucket - 1
    at = (rs * BLOCKS_PER_RULESET + b) * N_FEATURES
    return w[at:at + N_FEATURES]


def block_at(w, b: int):
    return w[b * N_FEATURES:(b + 1) * N_FEATURES]


def prior_weights() -> np.ndarray:
    w = np.zeros(N_WEIGHTS)
    for rs in range(N_RULESETS):
        b = block(w, rs, D_PLAY)
        for name, x in (("power", 0.5), ("win", 3.0), ("win_exposed", -2.0),
                        ("win_power", -0.5), ("lose_power", -1.0), ("trump", -1.0),
                        ("buoy", 0.3), ("e_plus_3", 1.0), ("e_catch_1_other", 0.3),
                        ("lead_power", 2.0), ("weakest_fish", 1.0), ("win_behind", -1.0),
                        ("win_ocean", -1.0), ("next_trumps", 0.5)):
            b[F[name]] = x
        for pb in range(1, N_PLAY_BLOCKS):
            block(w, rs, D_PLAY, pb)[:] = b
        for k in (D_TRUMP_CHOICE, D_DETERMINE_TRUMP):
            b = block(w, rs, k)
            b[F["shade_cards"]] = 10.0
            b[F["shade_value"]] = 26.0
            b[F["shade_light"]] = 0.01
        for k in (D_CATCH_1_OTHER, D_ZERO_CATCH):
            b = block(w, rs, k)
            b[F["future_power"]] = 1.0
            b[F["keep_value"]] = 1.0
            b[F["e_minus_3"]] = -5.0
        b = block(w, rs, D_EXCHANGE_TAKE)
        b[F["power"]] = 1.0
        b[F["e_minus_3"]] = -5.0
        for k in (D_EXCHANGE_GIVE, D_CATCH_1_CARD, D_PASS_1_LEFT):
            b = block(w, rs, k)
            b[F["power"]] = -1.0
            b[F["keep_value"]] = -1.0
            b[F["e_plus_3"]] = -2.0
        b = block(w, rs, D_DETERMINE_COLOUR)
        b[F["colour_high"]] = 5.0
        b[F["colour_value"]] = 1.0
    return w


def _loss_grad(w, X, mask, T, l2):
    """Mean soft cross-entropy over decisions and its gradient. X [n, m, f], mask [n, m]
    (True: a real option), T [n, m] target probabilities."""
    s = X @ w
    s = np.where(mask, s, -np.inf)
    s -= s.max(axis=1, keepdims=True)
    e = np.where(mask, np.exp(s), 0.0)
    z = e.sum(axis=1, keepdims=True)
    logp = np.where(mask, s - np.log(z), 0.0)
    p = e / z
    n = X.shape[0]
    loss = -(T * logp).sum() / n + l2 * (w @ w)
    g = (p - T).reshape(-1) @ X.reshape(-1, X.shape[2]) / n + 2 * l2 * w
    return loss, g


def fit_block(X, values, mask, temperature=2.0, l2=1e-4, w0=None, iters=30):
    """Newton's method with a backtracking line search on the (convex) soft
    cross-entropy: a block has N_FEATURES weights, so its Hessian is small. numpy only."""
    T = targets(values, mask, temperature)
    w = np.zeros(X.shape[2]) if w0 is None else np.asarray(w0, np.float64).copy()
    n, f = X.shape[0], X.shape[2]
    loss, g = _loss_grad(w, X, mask, T, l2)
    for _ in range(iters):
        s = np.where(mask, X @ w, -np.inf)
        s -= s.max(axis=1, keepdims=True)
        e = np.where(mask, np.exp(s), 0.0)
        p = e / e.sum(axis=1, keepdims=True)
        xbar = np.einsum("nm,nmf->nf", p, X)
        X2 = X.reshape(-1, f)
        H = (X2 * p.reshape(-1, 1)).T @ X2 / n - xbar.T @ xbar / n
        H += 2 * l2 * np.eye(f)
        step = np.linalg.solve(H + 1e-9 * np.eye(f), g)
        t = 1.0
        while t > 1e-4:
            w_new = w - t * step
            l_new, g_new = _loss_grad(w_new, X, mask, T, l2)
            if l_new <= loss - 1e-4 * t * (g @ step):
                break
            t *= 0.5
        else:
            break
        done = loss - l_new < 1e-9
        w, loss, g = w_new, l_new, g_new
        if done:
            break
    return w


def fit(X, values, blocks, n_opt, temperature=2.0, l2=1e-4, w0=None, min_positions=20):
    """The student's weights fitted on positions (X [n, options, f] features, values
    [n, options], per-position weight block (features.block_of) and option count). A
    block with fewer than ``min_positions`` positions keeps w0's weights (the prior's by
    default)."""
    w = prior_weights() if w0 is None else np.asarray(w0, np.float64).copy()
    m = min(int(n_opt.max()) if len(n_opt) else 1, X.shape[1])
    for b in range(N_BLOCKS):
        sel = np.flatnonzero(blocks == b)
        if len(sel) < min_positions:
            continue
        Xk = X[sel, :m].astype(np.float64)
        mask = np.arange(m)[None, :] < n_opt[sel, None]
        wb = block_at(w, b)
        wb[:] = fit_block(Xk, values[sel, :m].astype(np.float64), mask, temperature, l2,
                          w0=wb)
    return w


def agreement(X, values, kinds, blocks, n_opt, w):
    """Per decision kind: (positions, top-1 agreement with the teacher, mean regret in
    points: the teacher's best value minus the value of the student's pick); w: the
    student's parameters (a linear one or one with a hidden layer, train/net.py)."""

    S = scores(X, blocks, w)
    out = {}
    for k in range(N_DECISIONS):
        sel = np.flatnonzero(kinds == k)
        if not len(sel):
            continue
        agree = regret = 0.0
        for r in sel:
            n = int(n_opt[r])
            pick = int(np.argmax(S[r, :n]))
            v = values[r, :n]
            agree += float(v[pick] >= v.max())
            regret += float(v.max() - v[pick])
        out[k] = (len(sel), agree / len(sel), regret / len(sel))
    return out
