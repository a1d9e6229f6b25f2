"""The student's model file, written (fishing2sim/student/model.py reads it and documents
its arrays), and the strategy file of a training run's student that plays it."""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np

from fishing2sim.safe_files import write_atomic
from fishing2sim.student.features import n_params
from fishing2sim.student.layout import FEATURE_NAMES, FEATURES_VERSION
from fishing2sim.student.model import ModelError, file_sha256
# the name student files of earlier versions import the model's weights by
from fishing2sim.student.model import load_params  # noqa: F401


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


STUDENT_TEMPLATE = '''"""{name}: the student policy of a training run (fishing2sim/train).

Its model: {model}"""
from fishing2sim.student.decisions import (  # noqa: F401  (the decisions of skilled)
    catch_1_card, catch_1_other, determine_colour, determine_trump, exchange_give,
    exchange_take, pass_1_left, play, trump_choice, zero_catch,
)
from fishing2sim.student.model import load_params

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
