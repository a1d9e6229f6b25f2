"""The research tools of the student (research/: refit_student, ensemble_bot,
tune_student): not part of the product or of CI; run by hand with
``python -m pytest -p no:xdist -o addopts="" research/tests``."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from fishing2sim.api import run_games
from fishing2sim.train.label import M_N_OPT
from fishing2sim.train.labels import features_of
from fishing2sim.student.model import read_model
from fishing2sim.train.model import save_model
from fishing2sim.train.run import train
from test_skilled import TINY

REPO = Path(__file__).resolve().parent.parent.parent


def test_a_refit_with_the_runs_settings_is_the_runs_model(tmp_path, capsys):
    """research/refit_student.py fits as the training does: with no setting changed its
    weights are the run's last model, byte for byte, and both play the same games; a
    changed setting gives other weights, measured on the same deals."""
    from research.refit_student import main as refit

    f = tmp_path / "tiny.yaml"
    f.write_text(TINY)
    out = train(f, output=tmp_path / "run", progress=lambda m: None)
    refit([str(f), str(out), "--deals", "30"])
    text = capsys.readouterr().out
    assert "the same weights as the run's model_2.npz" in text
    assert "refit - run's model: +0.000 [+0.000, +0.000]" in text
    shares = [ln.split("weights ")[1] for ln in text.splitlines() if "three weights" in ln]
    assert len(shares) == 2 and shares[0] == shares[1] and "(120 games)" in shares[0]
    refit([str(f), str(out), "--deals", "30", "--epochs", "3", "--decay", "0.9"])
    text = capsys.readouterr().out
    assert "other weights than the run's model_2.npz" in text
    assert "epochs 3" in text and "'decay': 0.9" in text

    # --distill: the targets are the models' mean score (softmax(values / T) is its
    # softmax); --stakes: the fitted positions drawn again, where the choice matters more
    import argparse
    from research.refit_student import _prepare
    from fishing2sim.train.label import M_GAME
    from fishing2sim.train.labels import join, load_positions
    from fishing2sim.train.net import scores

    data = join([load_positions(out / f"positions_{j}.npz") for j in (1, 2)])
    X, blocks = features_of(data)
    rows = data["meta"][:, M_GAME] % 10 != 0
    model = out / "model_2.npz"
    w = read_model(model)["weights"]
    prep = _prepare(argparse.Namespace(stakes=None, distill=f"{model},{out / 'model_1.npz'}"),
                    8.0)
    r, v = prep(data, X, blocks, rows)
    assert np.array_equal(r, np.flatnonzero(rows))
    mean = (scores(X, blocks, w) + scores(X, blocks, read_model(out / "model_1.npz")["weights"])) / 2
    assert np.allclose(v / 8.0, mean)
    prep = _prepare(argparse.Namespace(stakes=3.0, distill=None), 8.0)
    r, v = prep(data, X, blocks, rows)
    assert v is data["values"] and len(r) == rows.sum()
    assert set(r.tolist()) <= set(np.flatnonzero(rows).tolist())
    n = data["meta"][:, M_N_OPT]
    vals = data["values"].astype(float)
    real = np.arange(vals.shape[1])[None, :] < n[:, None]
    stakes = np.where(real, vals, -np.inf).max(1) - np.where(real, vals, 0).sum(1) / n
    assert stakes[r].mean() > stakes[rows].mean() + 0.1
    refit([str(f), str(out), "--deals", "10", "--stakes", "1", "--distill", str(model)])
    text = capsys.readouterr().out
    assert "positions drawn by stakes^1, fitted to the mean score of" in text
    assert "other weights than the run's model_2.npz" in text
    with pytest.raises(SystemExit) as e:
        refit([str(f), str(out), "--distill", str(tmp_path / "none.npz")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.startswith("--distill: ") and "none.npz" in err
    assert len(err.strip().splitlines()) == 1
    # --out keeps the refit's model (with no option changed: the run's weights), never in
    # the run's folder
    refit([str(f), str(out), "--deals", "10", "--out", str(tmp_path / "kept.npz")])
    assert np.array_equal(read_model(tmp_path / "kept.npz")["weights"], w)
    with pytest.raises(SystemExit) as e:
        refit([str(f), str(out), "--out", str(out / "kept.npz")])
    assert e.value.code == 2 and "not in the run's folder" in capsys.readouterr().err
    assert not (out / "kept.npz").exists()
    for bad, words in ((tmp_path, "a folder"), (tmp_path / "no" / "m.npz", "no folder")):
        with pytest.raises(SystemExit) as e:  # refused before the fit, not after it
            refit([str(f), str(out), "--out", str(bad)])
        assert e.value.code == 2 and words in capsys.readouterr().err


def test_an_ensemble_bot_of_the_student_plays_the_students_games(tmp_path):
    """research/ensemble_bot.py (docs/strategies.md, "Where the student's gap is") sums
    its models' scores: the shipped model cut in two (the card play's blocks in one, every
    other block in the other; their sum is the model, exactly) plays exactly the student's
    games, which neither half alone would; a model that cannot be read is refused with one
    line. (One bot file: each compiles anew in its own folder, ~10 s.)"""
    from research.ensemble_bot import write_ensemble
    from fishing2sim.engine.constants import D_PLAY, N_DECISIONS
    from fishing2sim.student.layout import BLOCKS_PER_RULESET, N_BLOCKS
    from fishing2sim.student.model import ModelError
    from fishing2sim.train.net import split

    shipped = REPO / "fishing2sim" / "data" / "skilled.npz"
    model = read_model(shipped)
    w, hidden = model["weights"], int(model["hidden"])
    play = np.zeros(N_BLOCKS, bool)
    kinds = np.array([D_PLAY] + [N_DECISIONS + k for k in range(5)])  # the card play's
    for rs in range(N_BLOCKS // BLOCKS_PER_RULESET):
        play[rs * BLOCKS_PER_RULESET + kinds] = True
    halves, weights = [], []
    for name, drop in (("cards", ~play), ("rest", play)):
        h = w.copy()
        lin, _, _, u = split(h, hidden)
        lin[drop] = 0.0
        u[drop] = 0.0
        halves.append(tmp_path / f"{name}.npz")
        weights.append(h)
        save_model(halves[-1], h, name, {}, hidden=hidden)
    one, two = (split(x, hidden) for x in weights)
    assert np.array_equal(one[0] + two[0], split(w, hidden)[0]) and not one[0][~play].any()
    assert np.array_equal(one[3] + two[3], split(w, hidden)[3]) and not two[3][play].any()
    ref = run_games(30, 4, seed=5, strategies=["skilled"] * 4)
    for h in weights:  # either half alone plays other games (the student with its weights)
        alone = run_games(30, 4, seed=5, strategies=["skilled"] * 4, params=[h] * 4)
        assert not np.array_equal(alone["points"], ref["points"])
    bot = write_ensemble(tmp_path / "ens_halves.py", halves, "ens_halves")
    got = run_games(30, 4, seed=5, strategies=[str(bot)] * 4)
    assert np.array_equal(got["points"], ref["points"])
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot be read as an npz model"):
        write_ensemble(tmp_path / "ens_bad.py", [shipped, tmp_path / "bad.npz"], "ens_bad")


def test_the_student_tuners_knobs_change_only_their_weights():
    """research/tune_student.py (docs/strategies.md, "Tuning the student's biases on win
    share"): neutral knobs are the model's own weights, which play the student's own
    games with the bot's parameters passed per seat; a take knob moves only the linear
    weight of ``win`` (a power knob: of ``power``) in its card-play block, a hidden knob
    scales only its block's output row, and the tuned weights play other games."""
    from research.tune_student import (PLAY_FEATURE_POWER, PLAY_FEATURE_WIN, overfished,
                                         play_blocks, tuned_weights)
    from fishing2sim.engine.constants import D_PLAY, N_DECISIONS
    from fishing2sim.student.layout import FEATURE_NAMES
    from fishing2sim.train.net import split

    assert FEATURE_NAMES[PLAY_FEATURE_WIN] == "win"
    assert FEATURE_NAMES[PLAY_FEATURE_POWER] == "power"
    assert play_blocks() == [D_PLAY] + [N_DECISIONS + k for k in range(5)]
    w = read_model(REPO / "fishing2sim" / "data" / "skilled.npz")["weights"]
    neutral = {**{f"take_{i}": 0.0 for i in range(6)}, **{f"hidden_{i}": 1.0 for i in range(6)}}
    assert np.array_equal(tuned_weights(w, neutral), w)
    ref = run_games(20, 5, seed=3, strategies=["skilled"] * 5)
    same = run_games(20, 5, seed=3, strategies=["skilled"] * 5, params=[w] * 5)
    assert np.array_equal(same["points"], ref["points"])
    hidden = int(read_model(REPO / "fishing2sim" / "data" / "skilled.npz")["hidden"])
    b = play_blocks()[2]
    t = tuned_weights(w, {"take_2": 0.25, "hidden_4": 0.5, "power_2": -0.5})
    lin0, W0, c0, u0 = split(w, hidden)
    lin1, W1, c1, u1 = split(t, hidden)
    changed = np.flatnonzero(lin1 != lin0)
    assert list(changed) == [b * lin0.shape[1] + PLAY_FEATURE_POWER,
                             b * lin0.shape[1] + PLAY_FEATURE_WIN]
    assert lin1[b, PLAY_FEATURE_WIN] == pytest.approx(lin0[b, PLAY_FEATURE_WIN] + 0.25)
    assert lin1[b, PLAY_FEATURE_POWER] == pytest.approx(lin0[b, PLAY_FEATURE_POWER] - 0.5)
    assert np.array_equal(W1, W0) and np.array_equal(c1, c0)
    b4 = play_blocks()[4]
    assert np.allclose(u1[b4], 0.5 * u0[b4]) and np.count_nonzero(u1 != u0) == \
        np.count_nonzero(u0[b4])
    strong = tuned_weights(w, {f"take_{i}": -1.0 for i in range(6)})
    other = run_games(20, 5, seed=3, strategies=["skilled"] * 5, params=[strong] * 5)
    assert not np.array_equal(other["points"], ref["points"])
    from fishing2sim.engine.batch import G_END
    from fishing2sim.engine.constants import END_OVERFISHED

    over = overfished(w, 20, 3)  # the same games as ref: 1 where they overfished
    assert np.array_equal(over, (ref["int"][:, G_END] == END_OVERFISHED).astype(float))


@pytest.mark.parametrize("args, words", [
    (["--trials", "0"], "--trials 0: at least 1"),
    (["--deals", "-3"], "--deals -3: at least 1"),
    (["--check-deals", "1"], "--check-deals 1: at least 2"),
    (["--take", "1", "-1"], "--take 1 -1: LO must be below HI"),
    (["--hidden", "-1", "2"], "a factor is not negative"),
    (["--power", "0", "0"], "--power 0 0: LO must be below HI"),
    (["--overfishing", "-1"], "--overfishing: 0 (off) or more games"),
    (["--out", "{tmp}/nowhere/m.npz"], "no folder"),
    (["--out", "{tmp}"], "a folder, not a model file's name"),
    (["--out", "{tmp}/link.npz"], "a symbolic link"),
    (["--out", "{tmp}/target.txt"], "a file that is not a model file stands there"),
    (["--out", "{tmp}/fifo"], "a file that is not a model file stands there"),
])
def test_the_student_tuner_refuses_bad_arguments_with_one_line(tmp_path, monkeypatch, capsys,
                                                               args, words):
    """research/tune_student.py: a bad count, range or --out is one line and exit 2,
    before any game (the link's target is untouched)."""
    from research.tune_student import main as tune

    target = tmp_path / "target.txt"
    target.write_text("mine")
    (tmp_path / "link.npz").symlink_to(target)
    os.mkfifo(tmp_path / "fifo")
    monkeypatch.setattr("sys.argv", ["tune_student.py"] + [x.format(tmp=tmp_path) for x in args])
    with pytest.raises(SystemExit) as e:
        tune()
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and words in err[0], err
    assert target.read_text() == "mine" and stat.S_ISFIFO((tmp_path / "fifo").lstat().st_mode)


