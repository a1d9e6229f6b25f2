"""research/es_student.py: its refusals of bad arguments and its resume (run by hand)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest


REPO = Path(__file__).resolve().parent.parent.parent


@pytest.mark.parametrize("args, words", [
    (["--pairs", "0"], "--pairs 0: at least 1"),
    (["--check-deals", "-1"], "--check-deals -1: at least 1"),
    (["--sigma", "0"], "--sigma and --lr: above 0"),
    (["--overfishing", "-1"], "--overfishing -1.0: a weight from 0 to 100"),
    (["--overfishing", "1", "--overfishing-deals", "0"], "--overfishing-deals 0: at least 1"),
])
def test_es_refuses_bad_arguments_in_one_line(args, words):
    r = subprocess.run([sys.executable, str(REPO / "research" / "es_student.py"), *args],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [r.stderr.strip()] and words in r.stderr


@pytest.mark.slow  # three runs of the script, ~8 s: a benchmark's, run by .ci/run's slow step
def test_a_resumed_es_run_ends_where_an_uninterrupted_one_does(tmp_path):
    """--state keeps each finished iteration (z and Adam's moments); a run stopped after
    iteration 2 and resumed to 3 holds exactly the numbers of a run of 3 at once."""
    def run(state, iterations):
        r = subprocess.run(
            [sys.executable, str(REPO / "research" / "es_student.py"), "--iterations",
             str(iterations), "--pairs", "1", "--deals", "10", "--workers", "1",
             "--check-every", "100", "--check-deals", "5", "--state", str(state)],
            capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        return r.stdout

    run(tmp_path / "a.npz", 2)
    assert "resumed after iteration 2" in run(tmp_path / "a.npz", 3)
    run(tmp_path / "b.npz", 3)
    with np.load(tmp_path / "a.npz") as a, np.load(tmp_path / "b.npz") as b:
        assert int(a["iteration"]) == int(b["iteration"]) == 3
        assert np.abs(a["z"]).max() > 0  # the weights moved
        for k in ("z", "m", "v"):
            assert np.array_equal(a[k], b[k])


def test_es_refuses_an_out_or_state_it_must_not_touch(tmp_path):
    """--out over a file that is not a model, and a --state that is not this script's (a
    text file, a link, another run's of other numbers), are one line and exit 2, before
    any game, and the file is left as it was."""
    text = tmp_path / "notes.txt"
    text.write_text("mine\n")
    link = tmp_path / "link.npz"
    link.symlink_to(text)
    other = tmp_path / "other.npz"
    np.savez(other, z=np.zeros(3), m=np.zeros(3), v=np.zeros(3), iteration=1)
    for args, words in ((["--out", str(text)], "a file that is not a model file stands there"),
                        (["--state", str(text)], "not an npz file"),
                        (["--state", str(link)], "a symbolic link"),
                        (["--state", str(other)], "not of these 870 weights")):
        r = subprocess.run([sys.executable, str(REPO / "research" / "es_student.py"),
                            *args], capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and r.stdout == "", (args, r.stdout, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and words in r.stderr, r.stderr
    assert text.read_text() == "mine\n"
