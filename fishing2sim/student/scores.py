"""The student's scores in numpy: the same linear-plus-hidden-layer score as the numba
student (features.best_option) computes, in float64, for stored positions (the training's
fit, train/net.py) and for one decision (the bots' reasons, strategies/skilled.py's
``scores``); and the views of a parameter vector (linear, W1, c, u)."""
from __future__ import annotations

import numpy as np

from fishing2sim.student.layout import N_BLOCKS, N_FEATURES, N_WEIGHTS


def split(w: np.ndarray, hidden: int):
    """Views (linear [N_BLOCKS, F], W1 [F, H], c [N_BLOCKS, H], u [N_BLOCKS, H]) of a
    parameter vector."""
    a = N_WEIGHTS
    lin = w[:a].reshape(N_BLOCKS, N_FEATURES)
    W1 = w[a:a + N_FEATURES * hidden].reshape(N_FEATURES, hidden)
    a += N_FEATURES * hidden
    c = w[a:a + N_BLOCKS * hidden].reshape(N_BLOCKS, hidden)
    u = w[a + N_BLOCKS * hidden:a + 2 * N_BLOCKS * hidden].reshape(N_BLOCKS, hidden)
    return lin, W1, c, u


def hidden_of(w) -> int:
    n = len(w) - N_WEIGHTS
    per = N_FEATURES + 2 * N_BLOCKS
    if n < 0 or n % per:
        raise ValueError(f"a parameter vector of {len(w)} is no student's")
    return n // per


def scores(X, blocks, w) -> np.ndarray:
    """The scores [n, options] of positions X [n, options, F] under the parameters w (any
    hidden size, 0 included), in float64 as the numba student computes them."""
    hidden = hidden_of(w)
    lin, W1, c, u = split(np.asarray(w, np.float64), hidden)
    out = np.empty(X.shape[:2])
    for a in range(0, len(X), 20000):
        Xb = X[a:a + 20000].astype(np.float64)
        bb = blocks[a:a + 20000]
        s = np.einsum("nmf,nf->nm", Xb, lin[bb])
        if hidden:
            h = np.maximum(Xb @ W1 + c[bb][:, None, :], 0.0)
            s += np.einsum("nmh,nh->nm", h, u[bb])
        out[a:a + 20000] = s
    return out
