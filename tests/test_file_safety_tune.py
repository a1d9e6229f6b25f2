"""fishing2sim tune and the files it keeps: one tune per report folder (the
folder lock `run` takes), a study.db that is not an Optuna study of this tune is refused
in one line and never deleted (with or without --resume), and a budget above a run's size
limits needs --yes."""
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fishing2sim.safe_files import MARKER
from test_tune import _complete  # completed trials in a study.db, read while it runs
from click.testing import CliRunner
from conftest import wait_until

optuna = pytest.importorskip("optuna")

from fishing2sim.tune import tuner as T  # noqa: E402
from fishing2sim.cli import main  # noqa: E402

TUNE = """\
    name: {name}
    players: 4
    seed: 3
    seats: {seats}
    analyses: [overfishing]
    tune:
      space:
        deck.remove_from_tier.4: {{int: [0, 3]}}
      objective: {{minimize: overfishing}}
      budget: {{trials: {trials}, games: {games}}}
      racing: {{top: 0}}
"""


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def tune_file(tmp_path, name="t", trials=2, games=200, seats="random") -> Path:
    p = tmp_path / f"{name}.yaml"
    p.write_text(textwrap.dedent(TUNE.format(name=name, trials=trials, games=games,
                                             seats=seats)))
    return p


def tune(*args):
    return CliRunner().invoke(main, ["tune", *map(str, args)])


def one_error_line(res) -> str:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    return lines[0]


def make_study(db: Path, name: str, trials: int = 1) -> None:
    db.parent.mkdir(parents=True, exist_ok=True)
    st = optuna.create_study(storage=f"sqlite:///{db}", study_name=name)
    for i in range(trials):
        st.enqueue_trial({"x": i})
        st.optimize(lambda t: t.suggest_int("x", 0, 9), n_trials=1)


# ---- item 21: the size limits ------------------------------------------------------------
def test_a_budget_above_the_size_limits_needs_yes(tmp_path):
    p = tune_file(tmp_path, games=10**12)
    line = one_error_line(tune(p, "-w", 1, "--no-progress"))
    assert line == (f"Error: {p}: tune.budget: 12,000,000,000,000 games in all (2 trials of "
                    "1,000,000,000,000 games and 10,000,000,000,000 racing games, 1 condition) "
                    "is above 1,000,000,000; give --yes to run it anyway")
    assert not (tmp_path / "reports").exists()  # nothing written, nothing played
    # the budget in all counts: --trials 2000 of 1,000,000 games is 2 * 10**9
    q = tune_file(tmp_path, name="many", games=10**6)
    assert "tune.budget: 2,010,000,000 games in all (2,000 trials" in one_error_line(
        tune(q, "--trials", 2000, "--no-progress"))
    # --yes lets it through: the trials' runs are allowed the size too
    spec = T.load_tune(p, yes=True)
    exp = T.build_experiment(spec, {"deck.remove_from_tier.4": 1}, 1, 10**12, "trial-0")
    assert exp.conditions[0].games == 10**12
    # a run's hard limit holds even with --yes
    r = tune_file(tmp_path, name="hard", games=10**14)
    res = CliRunner().invoke(main, ["tune", str(r), "--yes", "--no-progress"])
    assert "tune.budget.games: 100,000,000,000,000 games in one run (1 condition) is above " \
        "the limit of 10,000,000,000,000" in one_error_line(res)


# ---- item 14: a study.db that is not ours ------------------------------------------------
def _header_only(db: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.db"
    make_study(real, "x")
    db.write_bytes(real.read_bytes()[:100])


def _not_sqlite(db: Path, tmp_path: Path) -> None:
    db.write_text("my notes, not a database\n")


def _folder(db: Path, tmp_path: Path) -> None:
    db.mkdir()
    (db / "keep.txt").write_text("mine")


def _link(db: Path, tmp_path: Path) -> None:
    make_study(tmp_path / "elsewhere.db", "t")  # even a study of this tune: not through a link
    db.symlink_to(tmp_path / "elsewhere.db")


def _other_study(db: Path, tmp_path: Path) -> None:
    make_study(db, "someone-else", trials=2)


def _snapshot(path: Path):
    if path.is_symlink():
        return ("link", os.readlink(path), path.resolve().read_bytes())
    if path.is_dir():
        return ("dir", sorted((p.name, p.read_bytes()) for p in path.iterdir()))
    return ("file", path.read_bytes())


@pytest.mark.parametrize("resume", [False, True], ids=["new", "resume"])
@pytest.mark.parametrize("make, says", [
    (_header_only, "is not an Optuna study (a damaged SQLite database: database disk image "
                   "is malformed)"),
    (_not_sqlite, "is not an Optuna study (not an SQLite database)"),
    (_folder, "is a folder, not an Optuna study file"),
    (_link, "the study file is a symbolic link; fishing2sim does not write through links: "
            "move the link away"),
    (_other_study, "an Optuna study file without the study 't' (its studies: "
                   "'someone-else')"),
], ids=["header-only", "not-sqlite", "folder", "link", "another-study"])
def test_a_study_db_that_is_not_ours_is_refused_and_kept(tmp_path, make, says, resume):
    p = tune_file(tmp_path)
    db = tmp_path / "reports" / "t" / "study.db"
    db.parent.mkdir(parents=True)
    (db.parent / MARKER).write_text("{}")  # a folder a tune made: its study.db is checked
    make(db, tmp_path)
    before = _snapshot(db)
    line = one_error_line(tune(p, "-w", 1, "--no-progress", *(["--resume"] if resume else [])))
    assert line.startswith(f"Error: {db}: {says}"), line
    assert "move" in line and "away" in line
    assert _snapshot(db) == before  # not deleted, not written
    assert sorted(x.name for x in db.parent.iterdir()) == [MARKER, "study.db"]
    assert not (tmp_path / "reports" / ".t.lock").exists()


@pytest.mark.parametrize("resume", [False, True], ids=["new", "resume"])
def test_a_tune_never_uses_a_folder_of_the_users_own(tmp_path, resume):
    """A folder the program did not make (no marker) is refused before its study.db is even
    looked at: the tune would replace the folder with its report."""
    p = tune_file(tmp_path)
    out = tmp_path / "reports" / "t"
    out.mkdir(parents=True)
    make_study(out / "study.db", "t")  # even a study of this tune's name
    (out / "thesis.tex").write_text("mine")
    before = {x.name: x.read_bytes() for x in out.iterdir()}
    line = one_error_line(tune(p, "-w", 1, "--no-progress", *(["--resume"] if resume else [])))
    assert line.startswith(f"Error: {out}: this folder was not made by fishing2sim"), line
    assert line.endswith("another name in the tune file"), line
    assert {x.name: x.read_bytes() for x in out.iterdir()} == before


def test_a_folder_holding_only_a_study_of_the_tunes_name_is_not_proved_ours(tmp_path):
    """An Optuna study file named like the tune may be the user's own: without the marker
    (or an older report's tune.yaml with its hash) the folder is refused, the file kept."""
    p = tune_file(tmp_path, trials=2)
    db = tmp_path / "reports" / "t" / "study.db"
    make_study(db, "t", trials=3)
    before = db.read_bytes()
    line = one_error_line(tune(p, "-w", 1, "--no-progress"))
    assert line.startswith(f"Error: {db.parent}: this folder was not made by fishing2sim"), line
    assert db.read_bytes() == before and sorted(os.listdir(db.parent)) == ["study.db"]


def test_a_study_of_the_same_tune_is_replaced_without_resume(tmp_path):
    p = tune_file(tmp_path, trials=2)
    db = tmp_path / "reports" / "t" / "study.db"
    make_study(db, "t", trials=3)  # an earlier study of this tune (by name)
    (db.parent / MARKER).write_text("{}")  # in the folder the tune made
    res = tune(p, "-w", 1, "--no-progress")
    assert res.exit_code == 0, res.output
    st = optuna.load_study(study_name="t", storage=f"sqlite:///{db}")
    assert len(st.trials) == 2  # the new study only
    assert "deck.remove_from_tier.4" in st.trials[0].params


# ---- item 7: one tune per folder ---------------------------------------------------------
def test_a_second_tune_on_the_same_folder_is_refused(tmp_path):
    p = tune_file(tmp_path, name="busy", trials=500, games=2000, seats="greedy")
    out = tmp_path / "reports" / "busy"
    db = out / "study.db"
    lock = tmp_path / "reports" / ".busy.lock"
    proc = subprocess.Popen([sys.executable, "-m", "fishing2sim.cli", "tune", str(p), "-w", "1",
                             "--no-progress"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_until(lambda: _complete(db) >= 2 or proc.poll() is not None, timeout=240)
        assert _complete(db) >= 2, proc.stderr.read() if proc.poll() is not None else ""
        assert lock.read_text().strip() == str(proc.pid)
        for extra in ([], ["--resume"]):
            line = one_error_line(tune(p, "-w", 1, "--no-progress", *extra))
            assert line == (f"Error: {out}: in use by another run (PID {proc.pid}); wait for "
                            "it to finish or stop it")
        # `run` of the same file shares the lock: it would replace the same report folder
        res = CliRunner().invoke(main, ["run", str(p), "--no-progress"])
        assert one_error_line(res).endswith(f"in use by another run (PID {proc.pid}); wait for "
                                            "it to finish or stop it")
        n = _complete(db)
        wait_until(lambda: _complete(db) > n, timeout=120)  # the first goes on
        assert _complete(db) > n and proc.poll() is None
        st = optuna.load_study(study_name="busy", storage=f"sqlite:///{db}")
        assert sum(t.state.name == "COMPLETE" for t in st.trials) > n
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        rc = proc.wait(timeout=30)
        err = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    assert rc == 130, err
    assert err.splitlines() == ["interrupted: the finished trials are in the study; run again "
                                "with --resume to continue"]
    assert not lock.exists()


def test_a_linked_lock_file_is_refused(tmp_path):
    p = tune_file(tmp_path)
    (tmp_path / "reports").mkdir()
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    lock = tmp_path / "reports" / ".t.lock"
    lock.symlink_to(target)
    line = one_error_line(tune(p, "-w", 1, "--no-progress"))
    assert line.startswith(f"Error: {lock}: the lock file is a symbolic link"), line
    assert target.read_text() == "keep me\n" and lock.is_symlink()
    assert sorted(x.name for x in (tmp_path / "reports").iterdir()) == [".t.lock"]
