"""The training file's ``distill`` step (fishing2sim/train/distill.py): the members are
trained beside the run, one student is fitted to the mean score of the run's last student
and theirs on the run's positions, it is the run's model, every student is measured on the
same deals, a second run does nothing, and a bad ``distill`` is one line and exit 2."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from cli_run import fishing2sim, message_lines
from fishing2sim.train.distill import distill_prepare, mean_score_values
from fishing2sim.train.labels import features_of, load_positions
from fishing2sim.student.model import read_model
from fishing2sim.train.net import scores
from fishing2sim.train.config import TrainError, config_hash, read_config
from fishing2sim.train.iteration import fit_iteration
from fishing2sim.train.run import train

MAIN = """name: tiny
seed: 7
iterations: 2
teacher: pimc
budget: [4, 1, 0, 0]
rate: 0.3
conditions:
  - {ruleset: fishing2, players: 4, games: 8}
  - {ruleset: fishing, players: 4, games: 4}
hidden: 4
epochs: 2
evaluation: {deals: 40}
chunk: 3
"""


def _member(name="tiny_member", seed=8, extra=""):
    return (MAIN.replace("name: tiny", f"name: {name}").replace("seed: 7", f"seed: {seed}")
            .replace("hidden: 4", "hidden: 3") + extra)


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_a_distill_step_fits_one_student_to_the_mean_score_of_the_runs_and_members(tmp_path):
    (tmp_path / "member.yaml").write_text(_member())
    main = tmp_path / "main.yaml"
    main.write_text(MAIN + "distill: [member.yaml]\n")
    msgs = []
    out = train(main, output=tmp_path / "out", progress=msgs.append)
    member = tmp_path / "out" / "tiny_member"
    assert (member / "model.npz").is_file() and (member / "positions_2.npz").is_file()
    assert any(m.startswith("  tiny_member: iteration 2:") for m in msgs)
    model = (out / "model.npz").read_bytes()
    assert model == (out / "distilled.npz").read_bytes()
    assert model != (out / "model_2.npz").read_bytes()

    # the distilled weights are the last iteration's fit with the ensemble's targets
    c = read_config(main)
    own = read_model(out / "model_2.npz")["weights"]
    theirs = read_model(member / "model.npz")["weights"]
    assert len(own) != len(theirs)  # 4 and 3 hidden units: any sizes mix
    _, w, _, total = fit_iteration(c, out, 2, load_positions(out / "positions_2.npz"),
                                   np.load(out / "linear_1.npy"),
                                   prepare=distill_prepare([own, theirs], c["temperature"]))
    d = read_model(out / "model.npz")
    assert np.array_equal(d["weights"], w) and int(d["hidden"]) == 4
    meta = json.loads(str(d["meta"]))
    assert meta["distilled"] == ["tiny", "tiny_member"] and meta["positions"] == total
    # the run's configuration hash is the one without the step (its iterations are the same)
    plain = tmp_path / "plain.yaml"
    plain.write_text(MAIN)
    assert str(d["config_hash"]) == config_hash(c) == config_hash(read_config(plain))

    # the ensemble's values: softmax(values / T) is softmax(mean score)
    data = load_positions(out / "positions_2.npz")
    X, blocks = features_of(data)
    v = mean_score_values([own, theirs], X[:50], blocks[:50], c["temperature"])
    assert np.allclose(v / c["temperature"],
                       (scores(X[:50], blocks[:50], own) + scores(X[:50], blocks[:50], theirs))
                       / 2)

    # every student on the same deals: the run's own row is its last evaluation's figure
    rows = _rows(out / "distill.csv")
    assert [r["student"] for r in rows] == ["tiny", "tiny_member", "tiny (distilled)"]
    assert [r["role"] for r in rows] == ["member", "member", "distilled"]
    last = _rows(out / "iterations.csv")[-1]
    assert float(rows[0]["win_share_vs_weights"]) == float(last["win_share_vs_weights"])
    assert last["ci_unit"] == "game"  # the iterations' CIs say what they count too
    assert all(r["games"] == "160" for r in rows)
    assert all(r["ci_unit"] == "game" for r in rows)  # every CI says what it counts
    assert "a share's CI counts games" in (out / "summary.md").read_text()
    summary = (out / "summary.md").read_text()
    assert "Distilled: one student fitted to the mean score of 2 students" in summary
    assert "Distilled minus tiny's last student" in summary
    assert "<code>distill.csv</code>" in (out / "report.html").read_text()

    # a second run does nothing: the members resume, the step is done before
    before = (out / "distilled.npz").stat().st_mtime_ns
    msgs = []
    train(main, output=tmp_path / "out", progress=msgs.append)
    assert any(m.startswith("  tiny_member: resuming after iteration 2") for m in msgs)
    assert any(m.startswith("distill: done before") for m in msgs)
    assert (out / "distilled.npz").stat().st_mtime_ns == before

    # a member trained further changes the step's inputs: it is done again
    (tmp_path / "member.yaml").write_text(_member().replace("iterations: 2", "iterations: 3"))
    msgs = []
    train(main, output=tmp_path / "out", progress=msgs.append)
    assert any(m.startswith("  tiny_member: iteration 3:") for m in msgs)
    assert any(m.startswith("distill: 2 students into one") for m in msgs)
    assert (out / "model.npz").read_bytes() not in (model, (out / "model_2.npz").read_bytes())
    assert json.loads(str(read_model(out / "model.npz")["meta"]))["members_sha256"][1] == \
        __import__("hashlib").sha256((member / "model_3.npz").read_bytes()).hexdigest()

    # the step taken out of the file: the run's model is its last student again
    main.write_text(MAIN)
    train(main, output=tmp_path / "out", progress=lambda m: None)
    assert (out / "model.npz").read_bytes() == (out / "model_2.npz").read_bytes()
    assert not (out / "distill.csv").exists()
    assert "Distilled" not in (out / "summary.md").read_text()


BAD = [
    ("distill: member.yaml", {}, "distill: expected a list of member training files"),
    ("distill: []", {}, "distill: expected a list of member training files"),
    ("distill: [nope.yaml]", {}, "nope.yaml does not exist"),
    ("distill: [adir]", {"adir": None}, "adir is a folder, not a file"),
    ("distill: [member.yaml]", {"member.yaml": _member(extra="colour: blue\n")},
     "colour: unknown key"),
    ("distill: [member.yaml]", {"member.yaml": _member(name="tiny")},
     "is named 'tiny', as this file's run"),
    ("distill: [a.yaml, b.yaml]", {"a.yaml": _member(), "b.yaml": _member(seed=9)},
     "is named 'tiny_member', as another member"),
    ("distill: [member.yaml]", {"member.yaml": _member(extra="distill: [other.yaml]\n"),
                                "other.yaml": _member(name="other")},
     "has a distill step of its own"),
    ("distill: [member.yaml]", {"member.yaml": _member(extra="distill: [bad.yaml]\n")},
     "is this training file or names it"),
    ("distill: [bad.yaml]", {}, "bad.yaml is this training file"),
]


@pytest.mark.parametrize("line,files,words", BAD)
def test_a_bad_distill_step_is_one_line_and_exit_2_and_nothing_written(tmp_path, line, files,
                                                                       words):
    for name, text in files.items():
        if text is None:
            (tmp_path / name).mkdir()
        else:
            (tmp_path / name).write_text(text)
    f = tmp_path / "bad.yaml"
    f.write_text(MAIN + line + "\n")
    with pytest.raises(TrainError) as e:
        read_config(f)
    assert words in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith(f"training file {f}: distill")
    out = tmp_path / "out"
    r = fishing2sim("train", f, "--output", out)
    assert r.returncode == 2
    lines = message_lines(r.stderr)
    assert len(lines) == 1 and words in lines[0]
    assert not out.exists()


def test_a_members_folder_that_cannot_be_used_is_refused_before_any_work(tmp_path):
    """A member's folder of the user's own, or one holding another configuration's run,
    stops the training with one line before the run's own iterations (nothing written)."""
    from fishing2sim import __version__
    from fishing2sim.safe_files import write_marker

    (tmp_path / "member.yaml").write_text(_member())
    main = tmp_path / "main.yaml"
    main.write_text(MAIN + "distill: [member.yaml]\n")
    out = tmp_path / "out"
    mine = out / "tiny_member"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("my notes")

    def cli():
        return fishing2sim("train", main, "--output", out)

    r = cli()
    lines = message_lines(r.stderr)
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert "tiny_member" in lines[0] and "not made by fishing2sim" in lines[0]
    assert lines[0].endswith("another name in the training file")
    assert (mine / "notes.txt").read_text() == "my notes"
    assert sorted(p.name for p in out.iterdir()) == ["tiny_member"]  # no run of tiny begun

    (mine / "notes.txt").unlink()
    write_marker(mine, "training", "tiny_member", __version__)
    (mine / "state.json").write_text(json.dumps({"config_hash": "0" * 64, "done": 0,
                                                 "rows": []}))
    r = cli()
    lines = message_lines(r.stderr)
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert "holds a training run of another configuration" in lines[0]
    assert "use --fresh" in lines[0]
    assert sorted(p.name for p in out.iterdir()) == ["tiny_member"]
