"""The student's model file, read: an npz holding the weight vector of ``skilled`` with the
feature layout it was fitted for (fishing2sim/train/model.py writes it).

Arrays: ``weights`` (float64: the linear weights, N_WEIGHTS = blocks x features, then
the hidden layer's, features.n_params), ``hidden`` (its units, 0: a linear student),
``version`` (FEATURES_VERSION), ``features`` (the feature names, in order), ``config_hash``
(of the training file that made it; "" if none) and ``meta`` (a JSON text: iteration,
positions, teacher). A file of another layout, version or size, a truncated file or one
that is no npz is refused with one line (StrategyError). The strategy file pins the
model by its sha256 (``MODEL_SHA256``), so the strategy's digest, and so every config hash
of an experiment that seats it, changes with the model.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from fishing2sim.errors import Fishing2simError
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.student.features import n_params
from fishing2sim.student.layout import (
    FEATURE_NAMES, FEATURES_VERSION, MAX_HIDDEN, N_BLOCKS, N_FEATURES, N_FEATURES_V3,
    N_FEATURES_V4,
)
from fishing2sim.student.stored import max_npz_bytes, read_npz

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
# the older feature versions this one reads, by their number of features (_from_older)
OLDER = {3: N_FEATURES_V3, 4: N_FEATURES_V4}
# The arrays a model file may hold (student/stored.py's specs: dtype kinds, dimensions, most
# elements[, most characters]): only these are read; a file larger than all of them at
# their largest (MAX_MODEL_BYTES, under 1 MB) is no model and is not read at all.
MODEL_SPECS = {
    "weights": ("f", 1, n_params(MAX_HIDDEN)),
    "hidden": ("i", 0, 1),
    "version": ("i", 0, 1),
    "features": ("U", 1, 1024, 64),
    "config_hash": ("U", 0, 1, 256),
    "meta": ("U", 0, 1, 1 << 16),
}
MAX_MODEL_BYTES = max_npz_bytes(MODEL_SPECS)


class ModelError(Fishing2simError, ValueError):
    """A model file that cannot be the student's (one line)."""


def file_sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def model_path(spec: str, strategy_file: str | None = None) -> Path:
    """A model named in a strategy file: a bare file name is fishing2sim/data's, another
    relative path is relative to the strategy file."""
    p = Path(spec).expanduser()
    if p.is_absolute():
        return p
    if len(p.parts) == 1 and (DATA_DIR / p).is_file():
        return DATA_DIR / p
    if strategy_file is not None:
        return Path(strategy_file).resolve().parent / p
    return DATA_DIR / p


def read_model(path) -> dict:
    """The model's arrays, checked; ModelError (one line) if it is not a model of this
    feature layout. Only the arrays of MODEL_SPECS are read (student/stored.py: another
    member of the npz is ignored, never decompressed), and a file larger than a model can
    be (MAX_MODEL_BYTES) is refused before it is read."""
    path = Path(path)
    if not path.exists():
        raise ModelError(f"model file {path} does not exist")
    # (a link to a model is followed: only the file it names must be a regular one)
    d = read_npz(path.resolve(), MODEL_SPECS, ModelError, "model file", "skilled model",
                 required=("weights", "version", "features"))
    version = int(d["version"]) if d["version"].shape == () else -1
    if version not in OLDER and version != FEATURES_VERSION:
        raise ModelError(f"model file {path} has feature version {version}; this fishing2sim "
                         f"reads versions {', '.join(map(str, OLDER))} and {FEATURES_VERSION} "
                         "(train the model again)")
    names = tuple(str(x) for x in d["features"].ravel())
    if version in OLDER and names == FEATURE_NAMES[:OLDER[version]]:
        d = _from_older(path, d, version)
    elif names != FEATURE_NAMES:
        raise ModelError(f"model file {path} was fitted for another feature layout "
                         f"({len(names)} features, this one has {len(FEATURE_NAMES)}); train "
                         "the model again")
    w = d["weights"]
    hidden = _hidden_units(d)
    if hidden < 0 or w.dtype != np.float64 or w.shape != (n_params(hidden),) \
            or not np.isfinite(w).all():
        raise ModelError(f"model file {path}: weights of shape {w.shape} ({w.dtype}), "
                         f"expected {n_params(max(hidden, 0))} finite float64 for "
                         f"{hidden} hidden units")
    return d


def _hidden_units(d: dict) -> int:
    """The model's hidden units as its file records them; -1 if it records none."""
    hd = d.get("hidden", np.array(-1))
    return int(hd) if hd.shape == () and hd.dtype.kind == "i" and hd >= 0 else -1


def _from_older(path, d: dict, version: int) -> dict:
    """A model of an older feature version (3: before the public card places; 4: before
    the lead features), whose features are this layout's first ones, as a model of this
    layout: the weights of the newer features are 0, so it scores every option as it did
    (tests/test_skilled.py plays the same games with both)."""
    w3 = d["weights"]
    hidden = _hidden_units(d)
    f3 = OLDER[version]
    n3 = N_BLOCKS * f3 + hidden * (f3 + 2 * N_BLOCKS)
    if hidden < 0 or w3.dtype != np.float64 or w3.shape != (n3,):
        raise ModelError(f"model file {path}: weights of shape {w3.shape} ({w3.dtype}), "
                         f"expected {n3} float64 for a version-{version} model with {hidden} "
                         "hidden units")
    w = np.zeros(n_params(hidden))
    lin = N_BLOCKS * N_FEATURES
    w[:lin].reshape(N_BLOCKS, N_FEATURES)[:, :f3] = w3[:N_BLOCKS * f3].reshape(N_BLOCKS, f3)
    if hidden:
        w[lin:lin + f3 * hidden] = w3[N_BLOCKS * f3:N_BLOCKS * f3 + f3 * hidden]  # W1's
        # rows of the newer features stay 0; then c and u as they were
        w[lin + N_FEATURES * hidden:] = w3[N_BLOCKS * f3 + f3 * hidden:]
    return {**d, "weights": w, "version": np.array(FEATURES_VERSION),
            "features": np.array(FEATURE_NAMES)}


def load_params(spec: str, sha256: str | None, strategy_file: str | None = None) -> tuple:
    """The weight vector of the model ``spec`` (see model_path), as a strategy's PARAMS;
    the file must have the sha256 the strategy file pins. A StrategyError (one line) if
    it cannot be the student's."""
    path = model_path(spec, strategy_file)
    try:
        d = read_model(path)
    except ModelError as exc:
        raise StrategyError(str(exc)) from None
    if sha256 and file_sha256(path) != sha256:
        raise StrategyError(f"model file {path} is not the model this strategy file pins "
                            f"(sha256 {file_sha256(path)[:12]}…, expected {sha256[:12]}…)")
    return tuple(float(x) for x in d["weights"])
