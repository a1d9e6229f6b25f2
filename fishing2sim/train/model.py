"""The student's model file: an npz holding the weight vector of ``skilled`` with the
feature layout it was fitted for.

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
import io
import json
import zipfile
from pathlib import Path

import numpy as np

from fishing2sim.errors import Fishing2simError
from fishing2sim.safe_files import write_atomic

from fishing2sim.train.features import n_params
from fishing2sim.train.layout import (
    FEATURE_NAMES, FEATURES_VERSION, MAX_HIDDEN, N_BLOCKS, N_FEATURES, N_FEATURES_V3,
    N_FEATURES_V4,
)
from fishing2sim.train.stored import max_npz_bytes, read_npz

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
# the older feature versions this one reads, by their number of features (_from_older)
OLDER = {3: N_FEATURES_V3, 4: N_FEATURES_V4}
# The arrays a model file may hold (train/stored.py's specs: dtype kinds, dimensions, most
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


def save_model(path, weights, config_hash: str = "", meta: dict | None = None,
               hidden: int = 0) -> str:
    """Write the model (byte-identical for identical inputs: the npz's zip entries carry a
    fixed time stamp); returns its sha256."""
    w = np.ascontiguousarray(weights, np.float64)
    if w.shape != (n_params(hidden),):
        raise ModelError(f"a model with {hidden} hidden units has {n_params(hidden)} "
                         f"weights, got {w.shape}")
    if not np.isfinite(w).all():  # never written: read_model would refuse it
        raise ModelError(f"model file {path} not written: {int((~np.isfinite(w)).sum()):,} "
                         "of its weights are not finite")
    arrays = {
        "weights": w,
        "hidden": np.array(int(hidden), np.int64),
        "version": np.array(FEATURES_VERSION, np.int64),
        "features": np.array(FEATURE_NAMES),
        "config_hash": np.array(str(config_hash)),
        "meta": np.array(json.dumps(meta or {}, sort_keys=True)),
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name, a in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            b = io.BytesIO()
            np.lib.format.write_array(b, a, allow_pickle=False)
            z.writestr(info, b.getvalue())
    data = buf.getvalue()
    write_atomic(Path(path), data)
    return hashlib.sha256(data).hexdigest()


def read_model(path) -> dict:
    """The model's arrays, checked; ModelError (one line) if it is not a model of this
    feature layout. Only the arrays of MODEL_SPECS are read (train/stored.py: another
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
    from fishing2sim.strategy.contract import StrategyError

    path = model_path(spec, strategy_file)
    try:
        d = read_model(path)
    except ModelError as exc:
        raise StrategyError(str(exc)) from None
    if sha256 and file_sha256(path) != sha256:
        raise StrategyError(f"model file {path} is not the model this strategy file pins "
                            f"(sha256 {file_sha256(path)[:12]}…, expected {sha256[:12]}…)")
    return tuple(float(x) for x in d["weights"])


STUDENT_TEMPLATE = '''"""{name}: the student policy of a training run (fishing2sim/train).

Its model: {model}"""
from fishing2sim.train.student import (  # noqa: F401  (the decisions of skilled)
    catch_1_card, catch_1_other, determine_colour, determine_trump, exchange_give,
    exchange_take, pass_1_left, play, trump_choice, zero_catch,
)
from fishing2sim.train.model import load_params

NAME = "{name}"
MODEL = {model!r}
MODEL_SHA256 = "{sha}"
PARAMS = load_params(MODEL, MODEL_SHA256, __file__)
'''


def write_student(path, model, name: str) -> Path:
    """A strategy file that plays the model ``model`` (an absolute path)."""
    path = Path(path)
    write_atomic(path, STUDENT_TEMPLATE.format(name=name, model=str(Path(model).resolve()),
                                            sha=file_sha256(model)))
    return path
