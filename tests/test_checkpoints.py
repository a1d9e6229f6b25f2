"""Checkpoints and the report folder: a folder is locked by the run using it; every
checkpoint carries its run's config hash, its chunk, its game count and a checksum, and one
that fails a check is discarded with a one-line warning and played again, so the final CSVs
equal an uninterrupted run's byte for byte; a full disk loses nothing."""
import errno
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import wait_until, write_experiment

from fishing2sim.cli import main
from fishing2sim.config.experiment import load_experiment
from fishing2sim.run.checkpoints import _checksum, checkpoint_dir, lock_path
from fishing2sim.study import run

BODY = "players: 4\ngames: 600\nchunk: 100\nseed: 9\nanalyses: [overfishing, strategies]\n"
CSVS = ["overfishing.csv", "strategies.csv", "scores.csv"]
VICTIM = "c0000-k000003.npz"


def write_yaml(folder: Path, name: str, body: str = BODY) -> Path:
    return write_experiment(folder, name, body)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """An uninterrupted report, a full set of this run's checkpoints and one chunk of a run
    with another seed (the same name and output folder)."""
    root = tmp_path_factory.mktemp("ckpt")
    ref = write_yaml(root / "ref", "ck")
    run(ref, workers=1, progress=False)
    full = write_yaml(root / "full", "ck")
    run(full, workers=1, progress=False, write=False)  # keeps every checkpoint
    other = write_yaml(root / "other", "ck", BODY.replace("seed: 9", "seed: 10"))
    run(other, workers=1, progress=False, write=False)
    return {"report": root / "ref" / "reports" / "ck",
            "chunks": root / "full" / "reports" / ".checkpoints" / "ck",
            "other": root / "other" / "reports" / ".checkpoints" / "ck"}


def _arrays(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _save(path: Path, arrays: dict):
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _meta(arrays: dict) -> dict:
    return json.loads(arrays["_meta"].tobytes().decode())


def _with_meta(arrays: dict, **changes) -> dict:
    meta = {**_meta(arrays), **changes}
    out = dict(arrays)
    out["_meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    return out


def truncated(p, runs):
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])


def empty(p, runs):
    p.write_bytes(b"")


def random_bytes(p, runs):
    p.write_bytes(np.random.default_rng(1).integers(0, 256, 5000, dtype=np.uint8).tobytes())


def pickled_object_array(p, runs):
    np.save(p.open("wb"), np.array([{"games": 1}], dtype=object), allow_pickle=True)


def other_runs_chunk(p, runs):  # the same chunk of a run with another seed
    shutil.copy(runs["other"] / p.name, p)


def another_chunk_of_this_run(p, runs):
    shutil.copy(p.parent / "c0000-k000001.npz", p)


def counts_times_1000(p, runs):
    a = _arrays(p)
    _save(p, {k: (v if k == "_meta" else v * 1000) for k, v in a.items()})


def counts_times_1000_with_a_fresh_checksum(p, runs):  # only the game count can tell
    a = _arrays(p)
    data = {k: v * 1000 for k, v in a.items() if k != "_meta"}
    _save(p, _with_meta(a, checksum=_checksum(data)) | data)


def an_array_dropped(p, runs):
    a = _arrays(p)
    del a["trump_points"]
    _save(p, a)


def an_array_dropped_with_a_fresh_checksum(p, runs):
    a = _arrays(p)
    del a["trump_points"]
    data = {k: v for k, v in a.items() if k != "_meta"}
    _save(p, _with_meta(a, checksum=_checksum(data)) | data)


def no_stamp(p, runs):  # an old-style checkpoint: the arrays only
    a = _arrays(p)
    del a["_meta"]
    _save(p, a)


def a_directory(p, runs):
    p.unlink()
    p.mkdir()


CORRUPTIONS = [truncated, empty, random_bytes, pickled_object_array, other_runs_chunk,
               another_chunk_of_this_run, counts_times_1000,
               counts_times_1000_with_a_fresh_checksum, an_array_dropped,
               an_array_dropped_with_a_fresh_checksum, no_stamp,
               a_directory]


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
def test_a_bad_checkpoint_is_discarded_and_replayed(tmp_path, runs, corrupt, capsys):
    path = write_yaml(tmp_path, "ck")
    ckpt = tmp_path / "reports" / ".checkpoints" / "ck"
    shutil.copytree(runs["chunks"], ckpt)
    corrupt(ckpt / VICTIM, runs)
    res = run(path, workers=1, progress=False, resume=True)
    assert res.meta["games_played_now"] == 100  # the bad chunk only
    warnings = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"warning: checkpoint {ckpt / VICTIM}: ")
    assert warnings[0].endswith("discarded, its chunk is played again")
    for name in CSVS:
        assert (tmp_path / "reports" / "ck" / name).read_bytes() == \
            (runs["report"] / name).read_bytes(), name


def test_the_command_line_reports_a_bad_checkpoint_in_one_line(tmp_path, runs):
    path = write_yaml(tmp_path, "ck")
    ckpt = tmp_path / "reports" / ".checkpoints" / "ck"
    shutil.copytree(runs["chunks"], ckpt)
    random_bytes(ckpt / VICTIM, runs)
    res = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "run", str(path), "--resume",
                          "--workers", "1", "--no-progress"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stderr.splitlines() == [
        f"warning: checkpoint {ckpt / VICTIM}: unreadable (not a complete checkpoint file): "
        "discarded, its chunk is played again"]
    for name in CSVS:
        assert (tmp_path / "reports" / "ck" / name).read_bytes() == \
            (runs["report"] / name).read_bytes(), name


def test_intact_checkpoints_are_reused_without_a_warning(tmp_path, runs, capsys):
    path = write_yaml(tmp_path, "ck")
    shutil.copytree(runs["chunks"], tmp_path / "reports" / ".checkpoints" / "ck")
    res = run(path, workers=1, progress=False, resume=True)
    assert res.meta["games_played_now"] == 0  # all six chunks came from disk
    assert capsys.readouterr().err == ""
    for name in CSVS:
        assert (tmp_path / "reports" / "ck" / name).read_bytes() == \
            (runs["report"] / name).read_bytes(), name


def test_checkpoints_never_need_pickle(runs):
    for p in runs["chunks"].glob("c*.npz"):
        with zipfile.ZipFile(p) as z:
            for name in z.namelist():
                header = z.read(name)[:128]
                assert b"'descr': '|O'" not in header and b"'descr': '<i8'" in header \
                    or name == "_meta.npy", name


# ---- one run per report folder -----------------------------------------------------------
def test_a_second_run_on_a_folder_in_use_is_refused_with_the_other_pid(tmp_path):
    path = write_yaml(tmp_path, "busy", BODY.replace("games: 600", "games: 4000000")
                      .replace("chunk: 100", "chunk: 20000"))
    exp = load_experiment(path)
    proc = subprocess.Popen([sys.executable, "-m", "fishing2sim.cli", "run", str(path),
                             "--workers", "1", "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        lock = lock_path(exp)
        wait_until(lambda: lock.is_file() and lock.read_text().strip(), timeout=120)
        assert lock.read_text().strip() == str(proc.pid)
        before = sorted(p.name for p in checkpoint_dir(exp).glob("*"))
        # the same experiment, and the same name with another seed: both refused
        for args in ([str(path)], [str(path), "--resume"]):
            res = CliRunner().invoke(main, ["run", *args, "--no-progress"])
            assert res.exit_code == 2, res.output
            assert res.output.strip().splitlines() == [
                f"Error: {exp.output_dir}: in use by another run (PID {proc.pid}); wait for "
                "it to finish or stop it"]
        other = write_yaml(tmp_path, "busy", BODY.replace("seed: 9", "seed: 1"))
        res = CliRunner().invoke(main, ["run", str(other), "--no-progress"])
        assert res.exit_code == 2 and f"PID {proc.pid}" in res.output
        after = sorted(p.name for p in checkpoint_dir(exp).glob("*"))
        assert set(before) <= set(after)  # the refused runs deleted nothing
        assert proc.poll() is None  # and the first run goes on
    finally:
        proc.send_signal(signal.SIGTERM)  # stops its worker too
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_a_lock_left_by_a_killed_run_does_not_block(tmp_path, runs):
    path = write_yaml(tmp_path, "ck")
    exp = load_experiment(path)
    lock = lock_path(exp)
    lock.parent.mkdir(parents=True)
    lock.write_text("999999\n")  # a file, but nobody holds the lock any more
    run(path, workers=1, progress=False)
    assert not lock.exists()
    assert (tmp_path / "reports" / "ck" / "overfishing.csv").read_bytes() == \
        (runs["report"] / "overfishing.csv").read_bytes()


# ---- what a failed run leaves ------------------------------------------------------------
def test_checkpoints_being_a_file_is_one_line(tmp_path):
    path = write_yaml(tmp_path, "ck")
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / ".checkpoints").write_text("not a folder")
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"Error: {tmp_path / 'reports' / '.checkpoints'} is a file, not a folder: the run keeps "
        "its checkpoints there; move the file away"]
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == [".checkpoints"]


def test_a_failed_run_leaves_no_checkpoint_folder(tmp_path):
    bot = tmp_path / "bad_bot.py"
    bot.write_text('"""bad: chooses what is not an option."""\n'
                   "from fishing2sim.strategy.kit import decision\n\nNAME = 'bad'\n\n\n"
                   "@decision\ndef play(obs, params, rng):\n    return 10**6\n")
    path = write_yaml(tmp_path, "fails", BODY + "seats: ./bad_bot.py\n")
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress", "--workers", "1"])
    assert res.exit_code == 2
    assert "illegal play decision" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "reports").exists()  # nothing at all: not even the folder


# ---- a full disk -------------------------------------------------------------------------
@pytest.fixture
def tiny_disk(tmp_path):
    """A 96 KiB tmpfs (needs root); skipped where mounting is not allowed."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(mnt)],
                       capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_full_disk_while_saving_checkpoints_is_one_line_and_leaves_no_partial_file(
        tmp_path, tiny_disk, runs):
    path = tmp_path / "ck.yaml"
    path.write_text(f"name: ck\noutput: {tiny_disk}\n" + BODY)
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress", "--workers", "1"])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0], res.output
    assert "run again with --resume" in lines[0]
    ckpt = tiny_disk / ".checkpoints" / "ck"
    saved = sorted(p.name for p in ckpt.iterdir())
    assert not [n for n in saved if "tmp" in n], saved  # no partial file
    assert 1 <= len([n for n in saved if n.endswith(".npz")]) < 6
    for p in ckpt.glob("c*.npz"):  # what was saved is whole
        assert _arrays(p)["games"][0] == 100
    assert not (tiny_disk / "ck").exists()


def test_a_full_disk_while_writing_the_report_keeps_the_older_report(tmp_path, runs,
                                                                     monkeypatch):
    path = write_yaml(tmp_path, "ck")
    out = tmp_path / "reports" / "ck"
    shutil.copytree(runs["report"], out)
    (out / "summary.md").write_text("the older report")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    import fishing2sim.report.write as report

    real = report._save_figure

    def full(fig, p):  # the disk fills up while the plots are written
        real(fig, p)
        with open(p, "r+b") as f:
            f.truncate(10)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(p))

    monkeypatch.setattr(report, "_save_figure", full)
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress", "--workers", "1"])
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines() == [
        f"Error: cannot write the report {out}: No space left on device (the older report is "
        "untouched and the finished chunks are kept: run again with --resume)"]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(os.listdir(tmp_path / "reports")) == [".checkpoints", "ck"]
    monkeypatch.setattr(report, "_save_figure", real)
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress", "--workers", "1",
                                    "--resume"])
    assert res.exit_code == 0, res.output
    for name in CSVS:
        assert (out / name).read_bytes() == (runs["report"] / name).read_bytes(), name
    assert sorted(os.listdir(tmp_path / "reports")) == ["ck"]
