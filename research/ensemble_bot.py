"""An ensemble of students as one strategy file: every option's features are computed once
and scored by each model (linear plus hidden layer, fishing2sim/train/features.py), and the
option with the highest sum of scores is played. A diagnostic of what the student's models
miss (docs/strategies.md, "Where the student's gap is"), not a shipped bot: it plays at
about 1/K of one student's speed for K models.

    python research/ensemble_bot.py OUT.py MODEL.npz [MODEL.npz ...]
    python benchmarks/bench_skilled.py --only strength --skip-search --bot OUT.py

Every model must have the same number of hidden units (read_model checks each file).
The strategy file written pins each model's sha256, as a student's file does.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from numba import njit

from fishing2sim.engine.constants import D_PLAY, MAX_HAND, O_KIND, O_N_OPTIONS, O_OPTIONS
from fishing2sim.student.features import (
    _context, _hidden_score, block_of, hidden_of, option_score, reads_places,
)
from fishing2sim.student.layout import N_FEATURES, N_MASK
from fishing2sim.student.tables import (
    TABLE_SIZE, _fill_above, _stack_f64, _stack_u64, option_suits,
)

HERE = Path(__file__).resolve().parent


def _drop_stale_cache() -> None:
    """numba's cache of ensemble_best (benchmarks/__pycache__) holds the package's feature
    code compiled into it, and numba checks only this file's date: when the package's
    compiled sources change (fishing2sim.engine.kernel_stamp), the cache is dropped."""
    from fishing2sim.engine import kernel_stamp
    from fishing2sim.safe_files import write_atomic

    cache = HERE / "__pycache__"
    if cache.is_symlink():  # not a cache numba made here: leave it alone
        return
    stamp = cache / "ensemble_bot.stamp"
    try:
        if not stamp.is_symlink() and stamp.read_text() == kernel_stamp():
            return
    except OSError:
        pass
    for f in cache.glob("ensemble_bot.*.nb[ic]"):
        if f.is_file() and not f.is_symlink():
            f.unlink(missing_ok=True)
    cache.mkdir(exist_ok=True)
    write_atomic(stamp, kernel_stamp())  # (a link planted at the stamp is replaced)


_drop_stale_cache()


@njit(cache=True, _nrt=False)
def ensemble_best(obs, params):
    """The option with the highest sum of the models' scores; params: the models' weight
    vectors one after another, preceded by their number."""
    n_opt = min(max(obs[O_N_OPTIONS], 0), MAX_HAND)
    k_models = int(params[0])
    if n_opt <= 1 or k_models < 1:
        return obs[O_OPTIONS]
    size = (params.shape[0] - 1) // k_models
    hidden = hidden_of(size)
    if hidden < 1:
        return obs[O_OPTIONS]
    ctx = _context(obs)
    b = block_of(obs)
    x = _stack_f64(N_FEATURES)
    nz = _stack_u64(N_MASK)
    z = _stack_f64(256)
    table = _stack_f64(TABLE_SIZE)
    w0 = params[1:1 + size]
    places = reads_places(w0, b, hidden)
    for m in range(1, k_models):  # every model's features counted: the most any reads
        places = max(places, reads_places(params[1 + m * size:1 + (m + 1) * size], b, hidden))
    if obs[O_KIND] == D_PLAY:
        _fill_above(obs, ctx[0], ctx[1], ctx[2], table, option_suits(obs), places)
    base = b * N_FEATURES
    best = 0
    best_s = -1e300
    for i in range(n_opt):
        for j in range(N_FEATURES):
            x[j] = 0.0  # (every feature is read by the linear sums below)
        for q in range(N_MASK):
            nz[q] = np.uint64(0)
        s = option_score(obs, obs[O_OPTIONS + i], ctx, w0, base, x, np.int64(1), table,
                         places, nz)
        s += _hidden_score(x, nz, w0, b, hidden, z)
        for m in range(1, k_models):
            wm = params[1 + m * size:1 + (m + 1) * size]
            lin = 0.0
            for j in range(N_FEATURES):
                lin += wm[base + j] * x[j]
            s += lin + _hidden_score(x, nz, wm, b, hidden, z)
        if s > best_s:
            best, best_s = i, s
    return obs[O_OPTIONS + best]


TEMPLATE = '''"""{name}: an ensemble of {k} students (research/ensemble_bot.py)."""
import sys
sys.path.insert(0, {here!r})
from ensemble_bot import ensemble_best, ensemble_params
from fishing2sim.strategy.contract import decision

NAME = {name!r}
OBSERVES = True
PARAMS = ensemble_params({models!r}, {shas!r})
'''
DECISION = '''

@decision
def {kind}(obs, params, rng):
    return ensemble_best(obs, params)
'''


def ensemble_params(models, shas) -> tuple:
    """The ensemble's parameter vector: the number of models, then each model's weights
    (each file checked against its pinned sha256)."""
    from fishing2sim.student.model import load_params

    vecs = [load_params(m, s) for m, s in zip(models, shas)]
    if len({len(v) for v in vecs}) != 1:
        raise ValueError("the models have different layouts (hidden units)")
    return (float(len(vecs)),) + tuple(x for v in vecs for x in v)


def write_ensemble(path, models, name: str) -> Path:
    from fishing2sim.safe_files import write_atomic
    from fishing2sim.strategy.contract import DECISION_FUNCTIONS
    from fishing2sim.student.model import file_sha256, read_model

    models = [str(Path(m).resolve()) for m in models]
    for m in models:
        read_model(m)  # one line if it is not a model of this layout
    text = TEMPLATE.format(name=name, k=len(models), here=str(HERE), models=models,
                           shas=[file_sha256(m) for m in models])
    text += "".join(DECISION.format(kind=k) for k in DECISION_FUNCTIONS)
    path = Path(path)
    write_atomic(path, text)
    return path


def main(argv=None) -> None:
    from fishing2sim.student.model import ModelError

    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or not argv[0].endswith(".py"):
        print("usage: python research/ensemble_bot.py OUT.py MODEL.npz [MODEL.npz ...]",
              file=sys.stderr)
        raise SystemExit(2)
    try:
        out = write_ensemble(argv[0], argv[1:], Path(argv[0]).stem)
    except ModelError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        raise SystemExit(2)
    print(f"wrote {out}: an ensemble of {len(argv) - 1} models")


if __name__ == "__main__":
    main()
