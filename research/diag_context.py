"""Does the student's network limit it, or its features? On a training run's positions,
fit the student's own network shape and a network that also sees the other options
(each option's hidden units plus the mean and max of every option's hidden units, fed
through a second layer), both on the same features, blocks, targets and held-out games,
and compare their held-out agreement with the teacher on Fishing 2 card plays.

    python research/diag_context.py FOLDER [--epochs 8] [--hidden 32] [--seed 0]

FOLDER is a training run's folder (``fishing2sim train FILE``: positions_*.npz); every
iteration's positions are used, games numbered 0 mod 10 held out (as the training holds
them out). Both networks are fitted with Adam (step 3e-3, x0.7 a pass, batches of 512) to
the soft targets softmax(value / temperature), from the same seed. PyTorch (CPU: ``pip
install torch``) is this diagnostic's dependency, not the package's.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np


def load(folder: Path):
    from fishing2sim.train.labels import features_of, join, load_positions
    n = len(list(folder.glob("positions_*.npz")))
    if not n:
        print(f"{folder}: no positions_*.npz (not a training run's folder)", file=sys.stderr)
        raise SystemExit(2)
    data = join([load_positions(folder / f"positions_{j}.npz") for j in range(1, n + 1)])
    X, blocks = features_of(data)
    return data, X, blocks


def main(argv=None) -> None:
    import torch
    from torch import nn

    from fishing2sim.engine.constants import D_PLAY
    from fishing2sim.student.layout import N_BLOCKS, N_FEATURES
    from fishing2sim.train.label import M_GAME, M_KIND, M_N_OPT, M_RULESET

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--temperature", type=float, default=8.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    torch.set_num_threads(2)
    data, X, blocks = load(a.folder)
    m = data["meta"]
    V = data["values"][:, :X.shape[1]].astype(np.float32)
    n_opt = m[:, M_N_OPT].astype(np.int64)
    real = np.arange(X.shape[1])[None, :] < n_opt[:, None]
    held = m[:, M_GAME] % 10 == 0
    test = held & (m[:, M_KIND] == D_PLAY) & (m[:, M_RULESET] == 0) & (n_opt >= 2)
    print(f"{len(X):,} positions, {(~held).sum():,} fitted, {test.sum():,} held-out "
          "Fishing 2 card plays with 2 options or more")

    def tens(rows):
        return (torch.tensor(X[rows]), torch.tensor(blocks[rows]), torch.tensor(real[rows]),
                torch.tensor(V[rows]))

    class Student(nn.Module):
        """The shipped shape: linear per block + u[b] . relu(W1' x + c[b])."""

        def __init__(self, h, context):
            super().__init__()
            self.lin = nn.Parameter(torch.zeros(N_BLOCKS, N_FEATURES))
            self.W1 = nn.Linear(N_FEATURES, h, bias=False)
            self.c = nn.Parameter(torch.zeros(N_BLOCKS, h))
            self.u = nn.Parameter(torch.zeros(N_BLOCKS, h))
            self.context = context
            if context:
                self.W2 = nn.Linear(3 * h, h)
                self.u2 = nn.Parameter(torch.zeros(N_BLOCKS, h))

        def forward(self, x, b, mk):
            s = (x * self.lin[b][:, None, :]).sum(-1)
            hh = torch.relu(self.W1(x) + self.c[b][:, None, :])
            s = s + (hh * self.u[b][:, None, :]).sum(-1)
            if self.context:
                w = mk[:, :, None].float()
                mean = (hh * w).sum(1, keepdim=True) / w.sum(1, keepdim=True)
                mx = torch.where(mk[:, :, None], hh, torch.full_like(hh, -1e9)).max(
                    1, keepdim=True).values
                g = torch.cat([hh, mean.expand_as(hh), mx.expand_as(hh)], -1)
                s = s + (torch.relu(self.W2(g)) * self.u2[b][:, None, :]).sum(-1)
            return torch.where(mk, s, torch.full_like(s, -1e9))

    fit_rows = np.flatnonzero(~held)
    xt, bt, mt, vt = tens(np.flatnonzero(test))
    for context in (False, True):
        torch.manual_seed(a.seed)
        model = Student(a.hidden, context)
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        sched = torch.optim.lr_scheduler.ExponentialLR(opt, 0.7)
        rng = np.random.default_rng(a.seed)
        t0 = time.perf_counter()
        for ep in range(a.epochs):
            order = fit_rows[rng.permutation(len(fit_rows))]
            for i in range(0, len(order), 512):
                x, b, mk, v = tens(np.sort(order[i:i + 512]))
                T = torch.softmax(torch.where(mk, v / a.temperature,
                                              torch.full_like(v, -1e9)), -1)
                loss = -(T * torch.log_softmax(model(x, b, mk), -1)).sum(-1).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            sched.step()
        with torch.no_grad():
            s = model(xt, bt, mt)
        pick = s.argmax(-1)
        vv = torch.where(mt, vt, torch.full_like(vt, -1e9))
        best = vv.max(-1).values
        got = vt.gather(1, pick[:, None])[:, 0]
        top1 = (got >= best).float().mean().item()
        regret = (best - got).mean().item()
        name = "with the other options" if context else "the student's shape"
        print(f"{name}: held-out top-1 {top1:.3f}, regret {regret:.3f} points "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
