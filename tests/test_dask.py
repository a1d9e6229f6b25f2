"""Experiments on a real local Dask cluster: the same CSVs as the local runner, a worker
killed mid-run loses nothing, a bad scheduler address is one clear error."""
import os
import signal
import threading

import pytest
from click.testing import CliRunner
from conftest import wait_until, write_experiment

from fishing2sim.cli import main
from fishing2sim.study import run

import distributed  # noqa: E402  (in the test extra: a missing install fails, never skips)

CSVS = ["overfishing.csv", "depletion.csv", "strategies.csv", "scores.csv", "trump_value.csv"]


BODY = ("players: [3, 4]\ngames: 1200\nchunk: 100\nseed: 17\n"
        "analyses: [depletion, overfishing, strategies, trump_value]\n")


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as c:
        yield c


def test_dask_local_cluster_gives_the_local_csvs(tmp_path, cluster):
    c = cluster
    local = write_experiment(tmp_path / "local", "dask", BODY)
    remote = write_experiment(tmp_path / "dask", "dask", BODY)
    here = run(local, workers=1, progress=False)
    res = run(remote, scheduler=c.scheduler_address, progress=False)
    assert res.meta["backend"] == "dask" and res.meta["workers"] == 2
    md = (tmp_path / "dask/reports/dask/summary.md").read_text()
    assert f"Ran on Dask: the Dask scheduler {c.scheduler_address}" in md
    assert "Ran on Dask" not in (tmp_path / "local/reports/dask/summary.md").read_text()
    for name in CSVS:
        assert (tmp_path / "local/reports/dask" / name).read_bytes() == \
            (tmp_path / "dask/reports/dask" / name).read_bytes(), name
    # the same example games (their commands name each run's own file)
    assert len(here.examples) >= 20
    assert _games(here.examples) == _games(res.examples)


def _games(rows) -> list:
    return [{k: v for k, v in r.items() if k != "command"} for r in rows]


def test_a_precision_run_on_dask_plays_the_local_games(tmp_path, cluster):
    body = ("players: 4\ngames: 400\nchunk: 200\nseed: 9\nprecision: {overfishing: 2pp}\n"
            "max_games: 4000\nanalyses: [overfishing]\n")
    local = run(write_experiment(tmp_path / "local", "dask", body), workers=1, progress=False)
    remote = run(write_experiment(tmp_path / "dask", "dask", body), scheduler=cluster.scheduler_address,
                 progress=False)
    assert local.meta["stages"] == remote.meta["stages"] and len(local.meta["stages"]) > 1
    assert local.examples and _games(local.examples) == _games(remote.examples)
    assert (tmp_path / "local/reports/dask/overfishing.csv").read_bytes() == \
        (tmp_path / "dask/reports/dask/overfishing.csv").read_bytes()


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_a_worker_killed_mid_run_loses_nothing(tmp_path, cluster):
    c = cluster
    body = BODY.replace("games: 1200", "games: 3000")
    local = write_experiment(tmp_path / "local", "dask", body)
    remote = write_experiment(tmp_path / "dask", "dask", body)
    run(local, workers=1, progress=False)
    ckpt = tmp_path / "dask" / "reports" / ".checkpoints" / "dask"
    victim = sorted(w.process.pid for w in c.workers.values())[0]  # a worker's process
    killed = []

    def killer():
        wait_until(lambda: len(list(ckpt.glob("c*.npz"))) >= 4, timeout=300)
        os.kill(victim, signal.SIGKILL)
        killed.append(len(list(ckpt.glob("c*.npz"))))

    th = threading.Thread(target=killer)
    th.start()
    run(remote, scheduler=c.scheduler_address, progress=False)
    th.join()
    assert killed and killed[0] < 60, "the worker was not killed mid-run"
    for name in CSVS:
        assert (tmp_path / "local/reports/dask" / name).read_bytes() == \
            (tmp_path / "dask/reports/dask" / name).read_bytes(), name


def test_bad_scheduler_address_is_one_clear_error(tmp_path):
    path = write_experiment(tmp_path, "dask", BODY)
    res = CliRunner().invoke(main, ["run", str(path), "--scheduler", "tcp://127.0.0.1:9",
                                    "--no-progress"])
    assert res.exit_code == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in res.output
    assert "Traceback" not in res.output
    assert not (tmp_path / "reports" / "dask").exists()
    assert not (tmp_path / "reports" / ".checkpoints").exists()


def test_dask_local_option(tmp_path):
    path = write_experiment(tmp_path, "dask", "players: 4\ngames: 400\nchunk: 100\nanalyses: [overfishing]\n")
    res = CliRunner().invoke(main, ["run", str(path), "--dask-local", "2", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "2 Dask workers" in res.output
    md = (tmp_path / "reports" / "dask" / "summary.md").read_text()
    assert "Ran on Dask: a local Dask cluster of 2 workers" in md
    assert (tmp_path / "reports" / "dask" / "overfishing.csv").is_file()


def test_local_cluster_workers_keep_dask_bookkeeping_warnings_off_stderr(monkeypatch):
    """A Ctrl-C cancels the running tasks, and each worker logged 'Async instruction ...
    ended with CancelledError' under the one-line interrupted message; the workers of the
    local cluster log errors only."""
    import logging

    from fishing2sim.run.dask import DaskBackend

    monkeypatch.delenv("DASK_LOGGING__DISTRIBUTED", raising=False)
    backend = DaskBackend(None, n_local=1)
    try:
        levels = backend.client.run(
            lambda: logging.getLogger("distributed.worker.state_machine").getEffectiveLevel())
    finally:
        backend.close()
    assert list(levels.values()) == [logging.ERROR]



def test_after_a_stop_dasks_own_log_records_are_dropped_and_not_before():
    """Ctrl-C kills the local cluster's workers; the scheduler then logs lost workers and
    lost scattered data, tornado a closed comm or a NameError from a race in distributed's
    sync(), each with a traceback under the stopped run's one line (seen in CI). After a
    stop signal (processes.STOPPING) the loggers of distributed and tornado
    drop their records; before it, and in a new run, they pass."""
    import logging

    from fishing2sim.run import dask as D
    from fishing2sim.run.processes import STOPPING, StopSignals

    D.quiet_after_stop()
    names = ["distributed.scheduler", "distributed.worker", "tornado.application"]
    assert all(D._QUIET_AFTER_STOP in logging.getLogger(n).filters for n in names)
    D.quiet_after_stop()  # once per logger, however many backends are made
    assert all(logging.getLogger(n).filters.count(D._QUIET_AFTER_STOP) == 1 for n in names)

    def passes(name):
        rec = logging.LogRecord(name, logging.ERROR, __file__, 1, "lost worker", None, None)
        return bool(logging.getLogger(name).filter(rec))

    try:
        STOPPING.clear()
        assert passes("distributed.scheduler") and passes("tornado.application")
        with StopSignals():
            assert not STOPPING.is_set()
            try:
                os.kill(os.getpid(), signal.SIGINT)
                wait_until(STOPPING.is_set, timeout=10)
            except KeyboardInterrupt:
                pass
            assert STOPPING.is_set()
            assert not passes("distributed.scheduler") and not passes("tornado.application")
            assert not passes("distributed.worker")
        with StopSignals():  # a new run in the same process logs again
            assert passes("distributed.scheduler")
    finally:
        STOPPING.clear()
