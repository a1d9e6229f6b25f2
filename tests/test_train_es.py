"""The training file's ``es`` step (fishing2sim/train/es.py): evolution strategies on the
win share after the imitation. The step moves only Fishing 2's card-play weights, along the
estimate its games give (recomputed here by hand), its result is the run's model, it is the
same for any worker count and on a Dask cluster, it resumes after its last finished
iteration, its report has its rows, and a bad ``es`` is one line and exit 2."""
from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys

import numpy as np
import pytest

from cli_run import fishing2sim, message_lines
from fishing2sim.train.es import (adam, directions, games, groups, iteration_deals_seed, overfished,
                                  play_blocks, score, step_key, weights_at)
from fishing2sim.student.model import file_sha256, read_model
from fishing2sim.train.net import split
from fishing2sim.train.config import TrainError, config_hash, read_config
from fishing2sim.train.report import CHECK_UNIT, CHECK_UNIT_OVERFISHING
from fishing2sim.train.run import train
from fishing2sim.train.schema import EsStep
from test_distill import MAIN  # the tiny training of the distill step's tests

ES = "es: {{iterations: {n}, pairs: 2, deals: 8, check_every: {every}, check_deals: 6}}\n"


def _file(tmp_path, n=2, every=1, name="es.yaml"):
    f = tmp_path / name
    f.write_text(MAIN + ES.format(n=n, every=every))
    return f


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_the_es_step_moves_the_card_play_weights_along_its_estimate(tmp_path):
    f = _file(tmp_path)
    msgs = []
    out = train(f, output=tmp_path / "out", progress=msgs.append)
    model = (out / "model.npz").read_bytes()
    assert model == (out / "es.npz").read_bytes() != (out / "model_2.npz").read_bytes()
    state = json.loads((out / "state.json").read_text())
    st = state["es"]
    assert st["start_sha256"] == file_sha256(out / "model_2.npz") and st["done"] == 2

    # by hand: the directions, the paired games, the estimate and Adam of train/es.py
    c = read_config(f)
    s = c["es"]
    w0 = read_model(out / "model_2.npz")["weights"]
    idx, scale = groups(w0)
    bot = str(next(out.glob("es_*.py")))
    z = m = v = np.zeros(len(idx))
    for t in range(2):
        eps = directions(s["seed"], t, s["pairs"], len(idx))
        seed = iteration_deals_seed(s["seed"], t)
        diff = np.array([score(weights_at(w0, idx, scale, z + s["sigma"] * e), s["deals"],
                               seed, bot)[0]
                         - score(weights_at(w0, idx, scale, z - s["sigma"] * e), s["deals"],
                                 seed, bot)[0] for e in eps])
        g = (diff[:, None] * eps).sum(axis=0) / (2 * s["pairs"] * s["sigma"])
        z, m, v = adam(z, m, v, g, t + 1, s["lr"])
    assert np.abs(z).max() > 0  # the games moved the weights
    w = read_model(out / "model.npz")["weights"]
    assert np.array_equal(w, weights_at(w0, idx, scale, z))
    assert np.array_equal(np.array(st["z"]), z)
    # only Fishing 2's six card-play blocks moved: their linear weights, c and u
    moved = (w != w0).astype(float)
    lin, W1, cc, u = split(moved, int(read_model(out / "model.npz")["hidden"]))
    assert not W1.any()
    for part in (lin, cc, u):
        assert not np.delete(part, play_blocks(), axis=0).any()
    assert lin[play_blocks()].any()
    # the model keeps the run's configuration hash (the step keeps its own key)
    plain = tmp_path / "plain.yaml"
    plain.write_text(MAIN)
    d = read_model(out / "model.npz")
    assert str(d["config_hash"]) == config_hash(c) == config_hash(read_config(plain))
    assert json.loads(str(d["meta"]))["es_iterations"] == 2

    # the report: a row an iteration, each with its check; the summary's section; the plot
    rows = _rows(out / "es.csv")
    assert [int(r["iteration"]) for r in rows] == [1, 2]
    for r in rows:
        assert r["check_ci_unit"] == CHECK_UNIT  # every CI says what it counts
        lo, d_, hi = (float(r[k]) for k in ("check_diff_lo", "check_diff", "check_diff_hi"))
        assert lo <= d_ <= hi
        assert float(r["check_diff"]) == pytest.approx(
            float(r["check_vs_weights"]) - float(r["check_start_vs_weights"]), abs=2e-4)
    summary = (out / "summary.md").read_text()
    assert "Evolution strategies on the win share: 2 iterations on" in summary
    assert "Time of the whole training, the ES step included" in summary
    assert (out / "es_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert "es.csv" in (out / "report.html").read_text()
    assert any(msg.startswith("es: check after iteration 2") for msg in msgs)


def test_the_es_step_is_the_same_for_any_worker_count_and_resumes(tmp_path):
    """One iteration on 2 processes, then the same file asking for 2: it resumes after
    iteration 1 and ends with the model of 2 iterations at once on 1 process; a file asking
    for fewer iterations than the folder's step ran starts the step over."""
    one = _file(tmp_path, n=1, every=5)
    two = _file(tmp_path, n=2, every=5, name="es2.yaml")
    train(one, workers=2, output=tmp_path / "a")
    msgs = []
    a = train(two, workers=2, output=tmp_path / "a", progress=msgs.append)
    assert "es: resuming after iteration 1" in msgs
    assert not any(msg.startswith("es: iteration 1:") for msg in msgs)
    b = train(two, workers=1, output=tmp_path / "b")
    assert (a / "model.npz").read_bytes() == (b / "model.npz").read_bytes()
    assert [int(r["iteration"]) for r in _rows(a / "es.csv")] == [1, 2]
    assert "check_diff" in _rows(a / "es.csv")[-1]  # the last iteration is checked
    msgs = []
    train(one, workers=1, output=tmp_path / "a", progress=msgs.append)
    assert any("starting the step over" in msg for msg in msgs)
    train(one, workers=1, output=tmp_path / "c")
    assert (a / "model.npz").read_bytes() == (tmp_path / "c" / "tiny" / "model.npz").read_bytes()


def test_the_es_step_on_a_dask_cluster_is_the_local_step(tmp_path):
    import distributed  # noqa: F401  (in the test extra: a missing install fails, never skips)

    f = _file(tmp_path, n=1, every=1)
    local = train(f, workers=1, output=tmp_path / "local")
    on_dask = train(f, output=tmp_path / "dask", dask_local=2)
    assert (local / "model.npz").read_bytes() == (on_dask / "model.npz").read_bytes()


BAD = [
    ("es: 5", "es: expected a mapping of the step's settings (iterations, pairs"),
    ("es: {pairs: 0}", "es.pairs: expected a whole number >= 1, got 0"),
    ("es: {iterations: 2.5}", "es.iterations: expected a whole number >= 1, got 2.5"),
    ("es: {sigma: -0.1}", "es.sigma: expected a number in (0, 10], got -0.1"),
    ("es: {lr: 0}", "es.lr: expected a number in (0, 10], got 0"),
    ("es: {check_deals: 1}", "es.check_deals: expected a whole number >= 2, got 1"),
    ("es: {seed: -1}", "es.seed: expected a whole number 0..9223372036854775807, got -1"),
    ("es: {pair: 3}", "es.pair: unknown key (did you mean 'pairs'?)"),
    ("es: {overfishing: -0.5}", "es.overfishing: expected a number in [0, 100]"),
    ("es: {overfishing: lots}", "es.overfishing: expected a number in [0, 100]"),
    ("es: {overfishing: 1, overfishing_deals: 0}",
     "es.overfishing_deals: expected a whole number >= 1, got 0"),
]


@pytest.mark.parametrize("line,words", BAD)
def test_a_bad_es_step_is_one_line_and_exit_2_and_nothing_written(tmp_path, line, words):
    f = tmp_path / "bad.yaml"
    f.write_text(MAIN + line + "\n")
    with pytest.raises(TrainError) as e:
        read_config(f)
    assert words in str(e.value) and "\n" not in str(e.value)
    out = tmp_path / "out"
    r = fishing2sim("train", f, "--output", out)
    assert r.returncode == 2
    lines = message_lines(r.stderr)
    assert len(lines) == 1 and words in lines[0]
    assert not out.exists()


def test_overfishing_in_the_objective_is_the_share_less_its_weight_times_overfishing(tmp_path):
    """es: {overfishing: L} scores F - L x (the share of 5-player games, every seat the
    student, that end by overfishing); the iteration's row and the check report the
    overfishing, the check's paired by game, with the CI's unit; a file without the key has
    none of its settings (its step's key is unchanged)."""
    f = tmp_path / "of.yaml"
    f.write_text(MAIN + "es: {iterations: 1, pairs: 2, deals: 8, check_every: 1, "
                 "check_deals: 40, overfishing: 0.5, overfishing_deals: 30}\n")
    out = train(f, output=tmp_path / "out", progress=lambda m: None)
    s = read_config(f)["es"]
    assert s["overfishing"] == 0.5 and s["overfishing_deals"] == 30
    w0 = read_model(out / "model_2.npz")["weights"]
    bot = str(next(out.glob("es_*.py")))
    seed = iteration_deals_seed(s["seed"], 0)
    f_, g, o = score(w0, 8, seed, bot, 30, 0.5)
    n = len(g) // 2
    assert np.array_equal(g, games(w0, 8, seed, bot))
    assert np.array_equal(o, overfished(w0, 30, seed + 2, bot)) and len(o) == 30
    assert set(np.unique(o)) <= {0.0, 1.0}
    assert f_ == pytest.approx(0.5 * (g[:n].mean() + g[n:].mean()) - 0.5 * o.mean())
    assert score(w0, 8, seed, bot)[2] is None  # no overfishing games without the key
    row = _rows(out / "es.csv")[0]
    assert 0.0 <= float(row["overfishing"]) <= 1.0
    own = overfished(w0, 40, s["check_seed"] + 2, bot)  # the check's start model
    assert float(row["check_start_overfishing"]) == pytest.approx(own.mean(), abs=1e-4)
    lo, hi = float(row["check_overfishing_diff_lo"]), float(row["check_overfishing_diff_hi"])
    d = float(row["check_overfishing"]) - float(row["check_start_overfishing"])
    assert float(row["check_overfishing_diff"]) == pytest.approx(d, abs=2e-4)
    assert lo <= d + 1e-4 and d - 1e-4 <= hi
    assert row["check_ci_unit"] == CHECK_UNIT_OVERFISHING
    summary = (out / "summary.md").read_text()
    assert "5-player overfishing" in summary and "weight 0.5" in summary
    plain = read_config(_file(tmp_path))["es"]
    assert not {"overfishing", "overfishing_deals"} & set(plain)
    assert set(plain) == set(EsStep.model_fields) - {"overfishing", "overfishing_deals"}
    assert step_key("h", "x", plain) != step_key("h", "x", s)


def test_every_shipped_table_with_a_ci_names_its_unit():
    """Every CSV the repository ships as a report (docs/) or data (fishing2sim/data) that
    has a 95% CI has a column saying what the CI counts as one observation, filled on every
    row whose CI is there."""
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    files = sorted((repo / "docs").rglob("*.csv")) + sorted((repo / "fishing2sim" / "data")
                                                           .glob("*.csv"))
    checked = 0
    for path in files:
        rows = _rows(path)
        if not rows:
            continue
        cis = [k for k in rows[0] if k.endswith(("_low", "_lo"))]
        if not cis:
            continue
        units = [k for k in rows[0] if k.endswith("ci_unit")]
        assert units, f"{path.relative_to(repo)}: CIs without a ci_unit column"
        his = [k[:-4] + "_high" if k.endswith("_low") else k[:-3] + "_hi" for k in cis]
        for r in rows:  # (a CI of zero width, a fixed anchor's [0, 0], is none)
            if any(r[k] not in ("", "nan") and r[k] != r[h] for k, h in zip(cis, his)):
                assert any(r[u] for u in units), f"{path.relative_to(repo)}: {r}"
        checked += 1
    assert checked >= 8  # the example report, the training's, the ladder's, the ratings


def _processes_of(folder, wait: float = 5.0) -> list:
    """The PIDs whose command line names ``folder``, after up to ``wait`` seconds."""
    import os
    import time

    end = time.monotonic() + wait
    while True:
        pids = []
        for d in os.listdir("/proc"):
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if str(folder).encode() in f.read():
                        pids.append(int(d))
            except (OSError, ValueError):
                continue
        if not pids or time.monotonic() > end:
            return pids
        time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.parametrize("sig", ["SIGINT", "SIGKILL"])
def test_an_es_step_stopped_by_a_signal_resumes_after_its_last_finished_iteration(tmp_path,
                                                                                  sig):
    """The command line, stopped in the ES step's iteration 2 by Ctrl-C (exit 130, one
    line) or SIGKILL: run again, it resumes after the step's iteration 1 and ends with the
    model of an uninterrupted run."""
    f = tmp_path / "sig.yaml"
    f.write_text(MAIN + "es: {iterations: 3, pairs: 4, deals: 150, check_every: 5, "
                        "check_deals: 6}\n")
    cmd = [sys.executable, "-m", "fishing2sim.cli", "train", str(f), "--workers", "2",
           "--output"]
    p = subprocess.Popen(cmd + [str(tmp_path / "a")], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for line in p.stdout:  # the step's iteration 2 has begun
        if line.startswith("es: iteration 1:"):
            break
    p.send_signal(getattr(signal, sig))
    rest = p.stdout.read()  # (EOF: no process of the run holds its output open)
    rc = p.wait(timeout=300)
    assert _processes_of(tmp_path / "a") == []  # its pool's processes ended with it
    out = tmp_path / "a" / "tiny"
    assert not (out / "es.npz").exists()
    assert json.loads((out / "state.json").read_text())["es"]["done"] == 1
    if sig == "SIGINT":
        assert rc == 130 and "stopped: the finished iterations are kept" in rest
        assert "Traceback" not in rest
        assert not (tmp_path / "a" / ".tiny.lock").exists()
    else:
        assert rc == -signal.SIGKILL
    r = subprocess.run(cmd + [str(tmp_path / "a")], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert "es: resuming after iteration 1" in r.stderr
    assert "es: iteration 1:" not in r.stderr
    ref = subprocess.run(cmd + [str(tmp_path / "b")], capture_output=True, text=True,
                         timeout=600)
    assert ref.returncode == 0, ref.stderr
    assert (out / "model.npz").read_bytes() == (tmp_path / "b" / "tiny" / "model.npz"
                                                 ).read_bytes()
