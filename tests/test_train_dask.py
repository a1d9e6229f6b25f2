"""The training's labelling on a real local Dask cluster: the same positions as on one
local process and on two (the chunks joined in game order); a bad scheduler is one line."""
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.run.dask import dask_executor
from fishing2sim.train.labels import label_games, using_executor

import distributed  # noqa: F401,E402  (in the test extra: a missing install fails, never skips)

TRAINING = str(Path(__file__).resolve().parents[1] / "experiments" / "train" /
               "skilled_policy.yaml")
ARGS = ("fishing2", 4, 41, 6, "random", "pimc", [4, 1, 0, 0], 0.3)


def test_dask_labels_equal_local_labels():
    one = label_games(*ARGS, workers=1, chunk=2)
    two = label_games(*ARGS, workers=2, chunk=3)
    with dask_executor(None, 2) as ex:
        on_dask = label_games(*ARGS, chunk=2, executor=ex)
        with using_executor(ex):  # what `fishing2sim train --dask-local` sets
            implicit = label_games(*ARGS, chunk=2)
    assert len(one["obs"]) > 20  # some positions were labelled
    for other in (two, on_dask, implicit):
        for k in ("obs", "values", "meta", "stats", "tail_keys", "tails"):
            assert np.array_equal(one[k], other[k]), k


def test_train_with_a_bad_scheduler_is_one_line(tmp_path, monkeypatch):
    # the run's own test (test_dask.py) waits the real 5 s; here 1 s tells the same
    monkeypatch.setattr("fishing2sim.run.dask.CONNECT_TIMEOUT", "1s")
    res = CliRunner().invoke(main, ["train", TRAINING, "--scheduler", "tcp://127.0.0.1:9", "--output",
                                    str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "cannot reach the Dask scheduler" in lines[0]
    assert not (tmp_path / "out").exists()


def test_train_dask_local_zero_is_one_line():
    res = CliRunner().invoke(main, ["train", TRAINING, "--dask-local", "0"])
    assert res.exit_code == 2 and "--dask-local needs a number of workers >= 1" in res.output
