"""The training's files read with nothing taken on trust (fishing2sim/train/stored.py,
checks.py): a damaged linear_N.npy or positions_N.npz of a training folder, a model file
of random bytes, of pickled arrays, with an extra array or larger than a model can be, is
one line and exit 2 (no traceback, no advice to load it with pickles), and a resumed
training that stops this way changes nothing in its folder; a fit whose weights are not
finite saves nothing; train has a run's size limits (--yes above 10^9 games in all) and
its seeds stop at 2^63 - 1."""
from __future__ import annotations

import io
import os
import shutil
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cli_run import fishing2sim, message_lines
from fishing2sim.cli import main
from fishing2sim.config.keys import MAX_GAMES, MAX_GAMES_HARD, MAX_SEED
from fishing2sim.student.layout import N_WEIGHTS
from fishing2sim.student.model import MAX_MODEL_BYTES, ModelError, read_model
from fishing2sim.train.model import save_model
from fishing2sim.train.config import TrainError, read_config
from fishing2sim.train.run import train

REPO = Path(__file__).resolve().parent.parent
SKILLED = REPO / "strategies" / "skilled.py"

TINY = """name: tiny
seed: 7
iterations: 2
teacher: pimc
budget: [4, 1, 0, 0]
rate: 0.3
conditions:
  - {ruleset: fishing2, players: 4, games: 8}
  - {ruleset: fishing, players: 4, games: 4}
hidden: 0
evaluation: {deals: 0}
chunk: 4
"""


def tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def one_error(res) -> str:
    assert res.exit_code == 2, (res.output, res.exception)
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    assert "Traceback" not in res.output and "allow_pickle" not in res.output
    return lines[0]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A finished 2-iteration training folder (copied by each test that damages it)."""
    base = tmp_path_factory.mktemp("trained")
    f = base / "tiny.yaml"
    f.write_text(TINY)
    train(f, output=base / "reports", progress=lambda m: None)
    return base / "reports"


def damaged_copy(trained: Path, tmp_path: Path, iterations: int = 3) -> tuple[Path, Path]:
    """(the training file asking for ``iterations``, its copied folder)."""
    reports = tmp_path / "reports"
    shutil.copytree(trained, reports)
    f = tmp_path / "tiny.yaml"
    f.write_text(TINY.replace("iterations: 2", f"iterations: {iterations}"))
    return f, reports / "tiny"


def _npy(a) -> bytes:
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


# ---- the training folder's files ------------------------------------------------------------
@pytest.mark.parametrize("iterations", [2, 3])
def test_a_resume_from_a_linear_file_holding_nan_is_refused_and_writes_nothing(
        trained, tmp_path, iterations):
    """The NaN would start the next fit (iterations: 3) and make a model of NaNs that the
    run reports as done: it is refused before any work, the folder left byte for byte."""
    f, out = damaged_copy(trained, tmp_path, iterations)
    w = np.load(out / "linear_2.npy")
    w[5] = np.nan
    (out / "linear_2.npy").write_bytes(_npy(w))
    (out / "model.npz").unlink()  # as a run stopped before its last copy left it
    before = tree(out)
    line = one_error(CliRunner().invoke(main, ["train", str(f), "--output", str(out.parent)]))
    assert "linear_2.npy" in line and "not finite" in line
    assert tree(out) == before and not (out / "model.npz").exists()


def _positions_with(path: Path, **change) -> bytes:
    with np.load(path) as z:
        d = {k: z[k] for k in z.files}
    d.update(change)
    b = io.BytesIO()
    np.savez_compressed(b, **d)
    return b.getvalue()


DAMAGE = {
    "linear_2.npy": {
        "truncated": lambda p: p.read_bytes()[:100],
        "random": lambda p: os.urandom(2000),
        "foreign": lambda p: _npy(np.zeros(7)),
        "integers": lambda p: _npy(np.zeros(N_WEIGHTS, np.int64)),
        "pickled": lambda p: _npy(np.array([{"a": 1}] * 3, dtype=object)),
        "huge header": lambda p: _huge_npy(),
    },
    "positions_1.npz": {
        "truncated": lambda p: p.read_bytes()[:len(p.read_bytes()) // 2],
        "random": lambda p: os.urandom(5000),
        "foreign": lambda p: _npz(x=np.zeros(3)),
        "nan values": lambda p: _positions_with(p, values=np.full_like(
            np.load(p)["values"], np.nan)),
        "bad meta": lambda p: _positions_with(p, meta=np.load(p)["meta"] + 10 ** 9),
        "other run": lambda p: _positions_with(p, config_hash=np.array("0" * 64)),
        "pickled": lambda p: _positions_with(p, obs=np.array([None], dtype=object)),
    },
}


def _huge_npy() -> bytes:
    """An npy header claiming 10^12 float64 (8 TB), followed by 80 bytes."""
    b = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        b, {"descr": "<f8", "fortran_order": False, "shape": (10 ** 12,)})
    return b.getvalue() + bytes(80)


def _npz(**arrays) -> bytes:
    b = io.BytesIO()
    np.savez(b, **arrays)
    return b.getvalue()


@pytest.mark.parametrize("name,case", [(n, c) for n in DAMAGE for c in DAMAGE[n]])
def test_a_damaged_training_file_is_one_line_before_any_work(trained, tmp_path, name, case):
    f, out = damaged_copy(trained, tmp_path)
    p = out / name
    p.write_bytes(DAMAGE[name][case](p))
    before = tree(out)
    line = one_error(CliRunner().invoke(main, ["train", str(f), "--output", str(out.parent)]))
    assert name in line, line
    assert tree(out) == before


def test_a_damaged_training_file_from_the_command_line_is_exit_2(trained, tmp_path):
    f, out = damaged_copy(trained, tmp_path)
    (out / "positions_2.npz").write_bytes(b"PK\x03\x04" + os.urandom(300))
    r = fishing2sim("train", f, "--output", out.parent, timeout=600)
    lines = message_lines(r.stderr)
    assert r.returncode == 2 and len(lines) == 1 and "positions_2.npz" in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_a_fit_that_is_not_finite_saves_nothing(tmp_path, monkeypatch):
    from fishing2sim.train import iteration

    real = iteration.fit_iteration

    def nan_fit(*a, **k):
        w_lin, w, agree, total = real(*a, **k)
        return w_lin, w * np.nan, agree, total

    monkeypatch.setattr(iteration, "fit_iteration", nan_fit)
    f = tmp_path / "tiny.yaml"
    f.write_text(TINY.replace("iterations: 2", "iterations: 1"))
    with pytest.raises(TrainError, match="not all finite; nothing of iteration 1 is saved"):
        train(f, output=tmp_path / "reports", progress=lambda m: None)
    out = tmp_path / "reports" / "tiny"
    assert not [p.name for p in out.iterdir() if p.name.startswith(
        ("positions_1", "model_1", "linear_1", "model.npz", "state.json"))]
    with pytest.raises(ModelError, match="not finite"):
        save_model(tmp_path / "m.npz", np.full(N_WEIGHTS, np.inf))
    assert not (tmp_path / "m.npz").exists()


# ---- model files ----------------------------------------------------------------------------
def test_a_model_of_random_bytes_or_pickles_is_one_line_without_pickle_advice(tmp_path):
    cases = {"random.npz": os.urandom(4000),
             "objects.npz": _npz(weights=np.array([{}], dtype=object), version=np.array(5),
                                 features=np.array(["power"])),
             "protocol4.npz": b"\x80\x04\x95" + os.urandom(100)}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ModelError) as e:
            read_model(tmp_path / name)
        msg = str(e.value)
        assert name in msg and "\n" not in msg and "pickle" not in msg.lower(), msg
    bot = tmp_path / "skilled_copy.py"
    bot.write_text(SKILLED.read_text().replace('MODEL = "skilled.npz"',
                                               f'MODEL = "{tmp_path / "random.npz"}"')
                   .replace('NAME = "skilled"', 'NAME = "skilled_copy"'))
    r = fishing2sim("play", "--strategy", bot, cwd=tmp_path)
    lines = message_lines(r.stderr)
    assert r.returncode == 2 and len(lines) == 1 and "random.npz" in lines[0], r.stderr
    assert "allow_pickle" not in r.stderr


def test_a_model_with_an_extra_array_reads_only_the_models_arrays(tmp_path, monkeypatch):
    """An extra member (here 40 MB of zeros, compressed to a few kB) is never
    decompressed: the model reads as without it, and no member but the model's is opened."""
    good = tmp_path / "good.npz"
    save_model(good, np.arange(N_WEIGHTS, dtype=np.float64))
    extra = tmp_path / "extra.npz"
    shutil.copy(good, extra)
    with zipfile.ZipFile(extra, "a", zipfile.ZIP_DEFLATED) as z:
        with z.open("extra.npy", "w", force_zip64=True) as m:
            np.lib.format.write_array_header_1_0(
                m, {"descr": "<f8", "fortran_order": False, "shape": (5_000_000,)})
            for _ in range(40):
                m.write(bytes(1_000_000))
    assert extra.stat().st_size < MAX_MODEL_BYTES
    opened = []
    real_open = zipfile.ZipFile.open
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, name, *a, **k: (
        opened.append(getattr(name, "filename", name)), real_open(self, name, *a, **k))[1])
    tracemalloc.start()
    try:
        d = read_model(extra)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "extra.npy" not in opened and "weights.npy" in opened
    assert peak < 10_000_000, peak  # the extra array alone is 40 MB
    assert np.array_equal(d["weights"], read_model(good)["weights"])


def test_a_model_file_larger_than_a_model_can_be_is_not_read(tmp_path, monkeypatch):
    big = tmp_path / "big.npz"
    save_model(big, np.zeros(N_WEIGHTS))
    with zipfile.ZipFile(big, "a", zipfile.ZIP_STORED) as z:
        z.writestr("notes.npy", _npy(np.frombuffer(os.urandom(MAX_MODEL_BYTES), np.uint8)))
    monkeypatch.setattr(zipfile.ZipFile, "__init__", lambda *a, **k: pytest.fail("read"))
    with pytest.raises(ModelError, match="more than a model file can have"):
        read_model(big)


def test_a_model_whose_header_claims_a_huge_array_allocates_nothing(tmp_path):
    bad = tmp_path / "huge.npz"
    with zipfile.ZipFile(bad, "w") as z:
        with z.open("weights.npy", "w") as m:
            np.lib.format.write_array_header_1_0(
                m, {"descr": "<f8", "fortran_order": False, "shape": (10 ** 13,)})
        z.writestr("version.npy", _npy(np.array(5)))
        z.writestr("features.npy", _npy(np.array(["power"])))
    with pytest.raises(ModelError, match="elements, more than"):
        read_model(bad)


# ---- size limits and seeds ------------------------------------------------------------------
LIMITS = [
    ("conditions:\n  - {ruleset: fishing2, players: 4, games: 1000000000000}\n",
     "conditions: 2,000,000,000,000"),
    ("evaluation: {deals: 1000000000000}\n", "evaluation.deals: 8,000,000,000,000"),
    ("es: {pairs: 1000000}\n", "es: 960,"),
]


def _with(change: str) -> str:
    key = change.split(":")[0]
    lines, skip = [], False
    for ln in TINY.splitlines():
        if ln.startswith(key + ":"):
            skip = True
            continue
        if skip and ln.startswith("  "):
            continue
        skip = False
        lines.append(ln)
    return "\n".join(lines) + "\n" + change


@pytest.mark.parametrize("change,words", LIMITS)
def test_train_above_the_size_limits_is_one_line_unless_yes(tmp_path, change, words):
    f = tmp_path / "big.yaml"
    f.write_text(_with(change))
    out = tmp_path / "reports"
    line = one_error(CliRunner().invoke(main, ["train", str(f), "--output", str(out)]))
    assert words in line and f"is above {MAX_GAMES:,}; give --yes" in line, line
    assert not out.exists()
    from fishing2sim.train.checks import check_size

    check_size(read_config(f), True, "f")  # --yes: allowed (below the hard limit)


@pytest.mark.parametrize("change,key", [("evaluation: {deals: 10000000000000}", "evaluation.deals"),
                                        ("es: {pairs: 1000000000}", "es")])
def test_train_above_the_hard_limit_is_refused_even_with_yes(tmp_path, change, key):
    f = tmp_path / "huge.yaml"
    f.write_text(_with(change + "\n"))
    out = tmp_path / "reports"
    line = one_error(CliRunner().invoke(main, ["train", str(f), "--output", str(out),
                                               "--yes"]))
    assert f"is above the limit of {MAX_GAMES_HARD:,}" in line and f": {key}: " in line
    assert not out.exists()


@pytest.mark.parametrize("change", [f"seed: {2 ** 64}", f"seed: {MAX_SEED + 1}",
                                    f"es: {{seed: {2 ** 64}}}", "seed: -1"])
def test_a_training_seed_outside_0_to_2_63_minus_1_is_refused(tmp_path, change):
    f = tmp_path / "seed.yaml"
    f.write_text(_with(change + "\n"))
    with pytest.raises(TrainError, match=rf"seed: expected a whole number 0\.\.{MAX_SEED}"):
        read_config(f)
    out = tmp_path / "reports"
    line = one_error(CliRunner().invoke(main, ["train", str(f), "--output", str(out)]))
    assert "seed" in line and not out.exists()
    f.write_text(_with(change.replace(str(2 ** 64), str(MAX_SEED)).replace(
        str(MAX_SEED + 1), str(MAX_SEED)).replace("-1", "0") + "\n"))
    read_config(f)  # the largest seed is taken


def test_a_resumed_es_step_whose_numbers_are_not_finite_is_one_line():
    """state.json's z, m, v of an ES step (train/es.py) go on into the weights: a NaN, a
    number too few or a text there is refused, not played and saved as a model of NaNs."""
    from fishing2sim.train.es import _step_state

    good = {"key": "k", "done": 1, "rows": [], "z": [0.5, 0.0], "m": [0.0, 0.0],
            "v": [0.0, 0.0]}
    assert _step_state({"es": dict(good)}, "k", "sha", 2, 3, print)["z"] == [0.5, 0.0]
    for k, bad in (("z", [float("nan"), 0.0]), ("m", [0.0]), ("v", ["0", 0.0]),
                   ("z", None)):
        with pytest.raises(TrainError, match=f"es step's {k} is not 2 finite numbers"):
            _step_state({"es": {**good, k: bad}}, "k", "sha", 2, 3, print)


def test_the_reference_gives_the_largest_model_file():
    """docs/reference.md's figure is the reader's limit (it follows the layout)."""
    assert f"{MAX_MODEL_BYTES:,} bytes" in (REPO / "docs" / "reference.md").read_text()
