"""The student's hidden layer: a residual one-layer network over the option features.

An option's score is the linear block score ``w[block] . x`` (fit.py's multinomial logit)
plus ``u[block] . relu(W1' x + c[block])``: W1 (features x hidden) is shared by every
block (ruleset, decision kind, card-play bucket), each block has its own bias c and
output row u. The loss is fit.py's soft cross-entropy (targets softmax(value / T)); the
linear weights start from the Newton fit, W1 from a seeded normal draw, c and u from 0
(so the start is the linear student), and Adam runs ``epochs`` passes over the positions
in a seeded order, with the step size shrinking by a factor 0.6 a pass (LR_DECAY). numpy only and
single-threaded in its order of operations: the same positions and seed give the same
parameters. The numba side is features.best_option.
"""
from __future__ import annotations

import numpy as np

from fishing2sim.student.features import n_params
from fishing2sim.student.layout import N_BLOCKS, N_FEATURES
from fishing2sim.student.scores import hidden_of, scores, split  # noqa: F401  (the fit's)

BATCH = 512
DECAY = 1e-5  # a small L2 pull on W1, u and the linear weights
LR_DECAY = 0.6  # Adam's step size is multiplied by this after every pass


def _grads(P, Xb, bb, mk, Tb):
    """Gradients of the batch's mean soft cross-entropy for P = [lin, W1, c, u]."""
    lin, W1, c, u = P
    Z = Xb @ W1 + c[bb][:, None, :]
    Hh = np.maximum(Z, 0)
    s = np.einsum("nmh,nh->nm", Hh, u[bb]) + np.einsum("nmf,nf->nm", Xb, lin[bb])
    s = np.where(mk, s, -np.inf)
    s -= s.max(axis=1, keepdims=True)
    e = np.where(mk, np.exp(s), 0.0)
    ds = (e / e.sum(axis=1, keepdims=True) - Tb) / len(bb)
    g_lin = np.zeros_like(lin)
    np.add.at(g_lin, bb, np.einsum("nm,nmf->nf", ds, Xb))
    g_u = np.zeros_like(u)
    np.add.at(g_u, bb, np.einsum("nm,nmh->nh", ds, Hh))
    dZ = ds[:, :, None] * u[bb][:, None, :] * (Z > 0)
    g_W1 = np.einsum("nmf,nmh->fh", Xb, dZ)
    g_c = np.zeros_like(c)
    np.add.at(g_c, bb, dZ.sum(axis=1))
    return [g_lin + DECAY * lin, g_W1 + DECAY * W1, g_c, g_u + DECAY * u]


def targets(values, mask, temperature):
    """The soft targets: softmax(value / temperature) over each position's options."""
    v = np.where(mask, values / temperature, -np.inf)
    v -= v.max(axis=1, keepdims=True)
    e = np.where(mask, np.exp(v), 0.0)
    return e / e.sum(axis=1, keepdims=True)


def fit_net(X, values, blocks, n_opt, w_lin, hidden: int, temperature=2.0, epochs=5,
            seed=0, lr=3e-3, decay=LR_DECAY) -> np.ndarray:
    """The full parameter vector (n_params(hidden)) fitted on the positions, from the
    linear weights w_lin (N_WEIGHTS)."""
    rng = np.random.default_rng(seed)
    m = X.shape[1]
    mask = np.arange(m)[None, :] < n_opt[:, None]
    T = targets(values[:, :m].astype(np.float64), mask, temperature).astype(np.float32)
    P = [np.asarray(w_lin, np.float64).reshape(N_BLOCKS, N_FEATURES).astype(np.float32),
         rng.normal(0.0, 1.0 / np.sqrt(N_FEATURES), (N_FEATURES, hidden)).astype(np.float32),
         np.zeros((N_BLOCKS, hidden), np.float32), np.zeros((N_BLOCKS, hidden), np.float32)]
    mom = [np.zeros_like(p) for p in P]
    vel = [np.zeros_like(p) for p in P]
    idx = np.arange(len(X))
    step = 0
    for _ in range(epochs):
        rng.shuffle(idx)
        for a in range(0, len(idx), BATCH):
            r = np.sort(idx[a:a + BATCH])
            grads = _grads(P, X[r], blocks[r], mask[r], T[r])
            step += 1
            for p, g, mo, v in zip(P, grads, mom, vel):
                mo *= 0.9
                mo += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p -= lr * (mo / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
        lr *= decay
    w = np.concatenate([p.astype(np.float64).ravel() for p in P])
    assert w.shape == (n_params(hidden),)
    return w
