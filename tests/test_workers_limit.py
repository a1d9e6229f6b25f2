"""A slip of the finger in the number of local workers (`--workers 10000`, or `workers:` in
a file) would start that many processes, each holding its own copy of the compiled engine,
until the system kills the run for memory. Run, tune and train refuse more than 4 local
processes per core (at least 8) with one line naming the option or the file's key, exit 2,
and nothing written (fishing2sim/run/processes.py, check_workers)."""
import pytest
from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.run import processes
from test_skilled import TINY


@pytest.fixture(autouse=True)
def two_cores(monkeypatch, tmp_path):
    """A machine of 2 cores, whatever this one has: the limit is then 8."""
    monkeypatch.setattr(processes, "default_workers", lambda: 2)
    monkeypatch.chdir(tmp_path)


def one_error(res) -> str:
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    return lines[0]


def test_the_limit_is_four_per_core_and_at_least_eight(monkeypatch):
    assert processes.worker_limit() == 8
    assert processes.check_workers(8) == 8
    monkeypatch.setattr(processes, "default_workers", lambda: 16)
    assert processes.worker_limit() == 64
    monkeypatch.setattr(processes, "default_workers", lambda: 1)
    assert processes.worker_limit() == 8
    with pytest.raises(ValueError, match=r"--workers: 9 local worker processes is more than "
                                         r"this machine allows \(8: 4 per core, 1 cores"):
        processes.check_workers(9)


@pytest.mark.parametrize("where", ["option", "file"])
def test_run_refuses_too_many_workers_before_any_game(tmp_path, where):
    body = "name: w\ngames: 40\nchunk: 20\noutput: out\n"
    args = ["--workers", "100000"] if where == "option" else []
    if where == "file":
        body += "workers: 100000\n"
    (tmp_path / "w.yaml").write_text(body)
    line = one_error(CliRunner().invoke(main, ["run", "w.yaml", "--no-progress", *args]))
    named = "--workers" if where == "option" else "w.yaml: workers"
    assert line.startswith(f"Error: {named}: 100,000 local worker processes is more than this "
                           "machine allows (8: 4 per core, 2 cores")
    assert not (tmp_path / "out").exists()


def test_tune_refuses_too_many_workers(tmp_path):
    pytest.importorskip("optuna")
    (tmp_path / "t.yaml").write_text(
        "name: t\nplayers: 4\nseed: 3\nanalyses: [overfishing]\noutput: out\ntune:\n"
        "  space:\n    deck.remove_from_tier.4: {int: [0, 3]}\n"
        "  objective: {minimize: overfishing}\n  budget: {trials: 2, games: 100}\n"
        "  racing: {top: 0}\n")
    line = one_error(CliRunner().invoke(main, ["tune", "t.yaml", "--workers", "9",
                                               "--no-progress"]))
    assert line.startswith("Error: --workers: 9 local worker processes is more than")
    assert not (tmp_path / "out" / "t").exists()


@pytest.mark.parametrize("where", ["option", "file"])
def test_train_refuses_too_many_workers(tmp_path, where):
    text = "\n".join(ln for ln in TINY.splitlines() if not ln.startswith("workers:"))
    args = ["--workers", "9"] if where == "option" else []
    if where == "file":
        text += "\nworkers: 9"
    f = tmp_path / "train.yaml"
    f.write_text(text + "\n")
    line = one_error(CliRunner().invoke(main, ["train", str(f), "--output", "out", *args]))
    named = "--workers" if where == "option" else "train.yaml: workers"
    assert line.startswith(f"Error: {named}: 9 local worker processes is more than this "
                           "machine allows (8: 4 per core, 2 cores")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["run", "train"])
def test_a_local_dask_cluster_has_the_same_limit(tmp_path, command):
    if command == "run":
        (tmp_path / "w.yaml").write_text("name: w\ngames: 40\noutput: out\n")
        args = ["run", "w.yaml", "--no-progress"]
    else:
        (tmp_path / "train.yaml").write_text(TINY)
        args = ["train", "train.yaml", "--output", "out"]
    line = one_error(CliRunner().invoke(main, [*args, "--dask-local", "9"]))
    assert line.startswith("Error: --dask-local: 9 local worker processes is more than this "
                           "machine allows (8: 4 per core, 2 cores")
    assert not (tmp_path / "out").exists()
