"""Where a run writes: only into folders this program made (a report folder carries the
marker file), never through a link, never deleting a folder of the user's own; a
checkpoint is read only if it is a regular file; precision targets that cannot work are
refused or capped, not a traceback."""
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.study import run
from fishing2sim.safe_files import (MARKER, FileSafetyError, check_replaceable, is_ours,
                                    read_regular, write_atomic)

BODY = "players: 4\ngames: 200\nchunk: 100\nseed: 9\nanalyses: [overfishing]\n"


def write_yaml(folder: Path, name: str, output: Path, body: str = BODY) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\noutput: {output}\n" + body)
    return path


def tree(folder: Path) -> dict:
    """Every entry below ``folder``: relative path -> bytes (files), 'dir' or 'link:<to>'."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for n in dirs + files:
            p = Path(root) / n
            rel = str(p.relative_to(folder))
            if p.is_symlink():
                out[rel] = f"link:{os.readlink(p)}"
            elif p.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = p.read_bytes()
    return out


def one_error(res) -> str:
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    assert "Traceback" not in res.output
    return lines[0]


def users_folder(where: Path) -> Path:
    where.mkdir(parents=True)
    (where / "chapter1.tex").write_text("\\chapter{One}\n")
    (where / "figs").mkdir()
    (where / "figs" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n not really")
    return where


# ---- the marker rule -----------------------------------------------------------------------
def test_a_run_never_replaces_a_folder_of_the_users_own(tmp_path):
    thesis = users_folder(tmp_path / "proj" / "thesis")
    before = tree(tmp_path / "proj")
    path = write_yaml(tmp_path, "thesis", tmp_path / "proj")
    line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress"]))
    assert str(thesis) in line and "not made by fishing2sim" in line
    assert "choose another --output, or another name in the experiment file" in line
    assert tree(tmp_path / "proj") == before  # the files survive, nothing was added


def test_the_same_with_output_on_the_command_line(tmp_path):
    users_folder(tmp_path / "elsewhere" / "thesis")
    before = tree(tmp_path / "elsewhere")
    path = write_yaml(tmp_path, "thesis", tmp_path / "reports")
    line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress", "--output",
                                               str(tmp_path / "elsewhere")]))
    assert "not made by fishing2sim" in line
    assert tree(tmp_path / "elsewhere") == before


def test_a_report_folder_carries_the_marker_and_is_replaced_by_the_next_run(tmp_path):
    path = write_yaml(tmp_path, "ck", tmp_path / "reports")
    run(path, workers=1, progress=False)
    out = tmp_path / "reports" / "ck"
    assert (out / MARKER).is_file() and is_ours(out)
    first = (out / "overfishing.csv").read_bytes()
    (out / "note.txt").write_text("a file the user put into the report folder")
    run(path, workers=1, progress=False)  # ours: replaced whole
    assert not (out / "note.txt").exists()
    assert (out / "overfishing.csv").read_bytes() == first
    assert sorted(os.listdir(tmp_path / "reports")) == ["ck"]


def test_a_report_of_an_older_version_without_the_marker_is_still_replaced(tmp_path):
    path = write_yaml(tmp_path, "ck", tmp_path / "reports")
    out = tmp_path / "reports" / "ck"
    out.mkdir(parents=True)
    for n in ("summary.md", "overfishing.csv", "overfishing.png", "report.html"):
        (out / n).write_text("an older report")
    (out / "config.yaml").write_text(f"name: ck\nconfig_hash: {'0a' * 32}\n")
    run(path, workers=1, progress=False)
    assert (out / MARKER).is_file()
    assert (out / "summary.md").read_text() != "an older report"


def test_what_counts_as_ours(tmp_path):
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "summary.md").write_text("x")
    (legacy / "overfishing.csv").write_text("x")
    assert not is_ours(legacy)  # no configuration with its hash: not proved ours
    (legacy / "config.yaml").write_text(f"config_hash: {'0a' * 32}\n")
    assert is_ours(legacy)
    (legacy / "notes.tex").write_text("x")  # a file no report has
    assert not is_ours(legacy)
    no_summary = tmp_path / "no_summary"
    no_summary.mkdir()
    (no_summary / "a.csv").write_text("x")
    assert not is_ours(no_summary)
    with_dir = tmp_path / "with_dir"
    with_dir.mkdir()
    (with_dir / "summary.md").write_text("x")
    (with_dir / "figs").mkdir()
    assert not is_ours(with_dir)
    linked = tmp_path / "linked"
    linked.symlink_to(legacy)
    with pytest.raises(FileSafetyError, match="symbolic link"):
        check_replaceable(linked)
    check_replaceable(tmp_path / "missing")  # a new folder is fine


def test_a_symlinked_report_folder_is_refused_and_its_target_untouched(tmp_path):
    real = tmp_path / "elsewhere"
    real.mkdir()
    (real / "stale.txt").write_text("the user's file")
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "ck").symlink_to(real)
    path = write_yaml(tmp_path, "ck", tmp_path / "reports")
    line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress"]))
    assert "symbolic link" in line
    assert sorted(os.listdir(real)) == ["stale.txt"]
    assert (tmp_path / "reports" / "ck").is_symlink()


@pytest.mark.parametrize("command", ["run", "tune", "train"])
def test_a_symlinked_output_folder_is_refused_before_anything_is_written(tmp_path, command):
    """--output naming a link: refused at once (not after the games), and nothing -- no
    lock, no checkpoints, no report, no study, no training folder -- goes through it."""
    victim = users_folder(tmp_path / "victim")
    before = tree(victim)
    link = tmp_path / "reports"
    link.symlink_to(victim)
    path = tmp_path / "job.yaml"  # small jobs: a regression fails in seconds
    path.write_text({
        "run": "name: ck\n" + BODY,
        "tune": "name: ck\nplayers: 4\nseed: 3\nanalyses: [overfishing]\ntune:\n"
                "  space: {deck.remove_from_tier.4: {int: [0, 3]}}\n"
                "  objective: {minimize: overfishing}\n"
                "  budget: {trials: 2, games: 200}\n  racing: {top: 0}\n",
        "train": "name: ck\nseed: 7\niterations: 1\nteacher: pimc\nbudget: [2, 1, 0, 0]\n"
                 "rate: 0.3\nconditions:\n  - {ruleset: fishing2, players: 4, games: 2}\n"
                 "hidden: 0\nevaluation: {deals: 0}\n",
    }[command])
    line = one_error(CliRunner().invoke(main, [command, str(path), "--output", str(link)]))
    assert line == (f"Error: {link}: the output folder is a symbolic link; fishing2sim does "
                    "not write through links: remove the link or choose another --output")
    assert tree(victim) == before and link.is_symlink()


def test_a_file_where_the_report_folder_goes_is_refused(tmp_path):
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "ck").write_text("a file of the user's")
    path = write_yaml(tmp_path, "ck", tmp_path / "reports")
    line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress"]))
    assert "is a file" in line or "a file stands where" in line
    assert (tmp_path / "reports" / "ck").read_text() == "a file of the user's"


# ---- the checkpoint folder -----------------------------------------------------------------
def test_a_symlinked_checkpoint_folder_is_refused_and_its_target_untouched(tmp_path):
    victim = users_folder(tmp_path / "victim")
    (victim / "ck").mkdir()  # where the run would keep its chunks: deleted before the fix
    (victim / "ck" / "keep.txt").write_text("the user's file")
    before = tree(victim)
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / ".checkpoints").symlink_to(victim)
    path = write_yaml(tmp_path, "ck", tmp_path / "reports")
    for extra in ([], ["--resume"]):
        line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress", *extra]))
        assert "symbolic link" in line and ".checkpoints" in line
        assert tree(victim) == before


def test_a_symlinked_checkpoint_folder_of_the_run_is_refused(tmp_path):
    victim = users_folder(tmp_path / "victim")
    before = tree(victim)
    (tmp_path / "reports" / ".checkpoints").mkdir(parents=True)
    (tmp_path / "reports" / ".checkpoints" / "ck").symlink_to(victim)
    path = write_yaml(tmp_path, "ck", tmp_path / "reports")
    line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress"]))
    assert "symbolic link" in line
    assert tree(victim) == before


def test_a_checkpoint_folder_holding_other_files_is_not_deleted(tmp_path):
    ck = tmp_path / "reports" / ".checkpoints" / "ck"
    ck.mkdir(parents=True)
    (ck / "thesis.tex").write_text("the user's file")
    path = write_yaml(tmp_path, "ck", tmp_path / "reports")
    line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress"]))
    assert "not checkpoints" in line
    assert (ck / "thesis.tex").read_text() == "the user's file"


def test_links_planted_in_the_checkpoint_folder_are_not_followed(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("do not overwrite")
    ck = tmp_path / "reports" / ".checkpoints" / "ck"
    ck.mkdir(parents=True)
    (ck / "config_hash").symlink_to(secret)
    (ck / "c0000-k000000.npz").symlink_to("/dev/zero")  # read: would never end
    fifo = ck / "c0000-k000001.npz"
    os.mkfifo(fifo)  # read: would hang
    path = write_yaml(tmp_path, "ck", tmp_path / "reports")
    line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress", "--resume"]))
    assert "config_hash: the file is a symbolic link" in line
    assert secret.read_text() == "do not overwrite"
    (ck / "config_hash").unlink()
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress", "--resume"])
    assert res.exit_code == 0, res.output
    assert res.output.count("discarded, its chunk is played again") == 2
    assert secret.read_text() == "do not overwrite"
    assert (tmp_path / "reports" / "ck" / "overfishing.csv").is_file()
    assert not (tmp_path / "reports" / ".checkpoints").exists()  # dropped after the report


# ---- the primitives ------------------------------------------------------------------------
def test_write_atomic_replaces_a_link_never_its_target(tmp_path):
    target = tmp_path / "id_rsa.pub"
    link = tmp_path / "report.html"
    link.symlink_to(target)  # dangling: a plain write would create the target
    write_atomic(link, "<html></html>")
    assert not target.exists()
    assert not link.is_symlink() and link.read_text() == "<html></html>"
    other = tmp_path / "other.txt"
    other.write_text("keep")
    link2 = tmp_path / "summary.md"
    link2.symlink_to(other)
    write_atomic(link2, "new")
    assert other.read_text() == "keep" and link2.read_text() == "new"
    # a link planted under the temporary file's name is not followed either
    planted = tmp_path / f".config.yaml.{os.getpid()}.tmp"
    planted.symlink_to(other)
    write_atomic(tmp_path / "config.yaml", "cfg")
    assert other.read_text() == "keep" and (tmp_path / "config.yaml").read_text() == "cfg"
    assert not planted.exists() and not planted.is_symlink()


def test_read_regular_refuses_links_devices_fifos_folders_and_big_files(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("x,y\n1,2\n")
    assert read_regular(f) == b"x,y\n1,2\n"
    link = tmp_path / "l.csv"
    link.symlink_to(f)
    with pytest.raises(FileSafetyError, match="symbolic link"):
        read_regular(link)
    with pytest.raises(FileSafetyError, match="a device"):
        read_regular(Path("/dev/zero"))
    fifo = tmp_path / "x.csv"
    os.mkfifo(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    with pytest.raises(FileSafetyError, match="a FIFO"):
        read_regular(fifo)
    with pytest.raises(FileSafetyError, match="a folder"):
        read_regular(tmp_path)
    with pytest.raises(FileSafetyError, match="more than"):
        read_regular(f, limit=3)
    inner = tmp_path / "report"
    inner.mkdir()
    with pytest.raises(FileSafetyError, match="outside the folder"):
        read_regular(inner / ".." / "a.csv", within=inner)


# ---- precision targets ---------------------------------------------------------------------
def test_a_trump_value_precision_in_an_original_fishing_run_is_refused(tmp_path):
    path = write_yaml(tmp_path, "pf", tmp_path / "reports",
                      "players: 4\ngames: 200\nchunk: 100\nruleset: fishing\n"
                      "analyses: [trump_value]\nprecision: {trump_value: 0.5 points}\n")
    line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress"]))
    assert "precision.trump_value: the original Fishing has no trump choice" in line
    assert not (tmp_path / "reports").exists()


def test_a_precision_far_below_reach_stops_at_max_games_without_overflow(tmp_path):
    path = write_yaml(tmp_path, "tiny", tmp_path / "reports",
                      "players: 4\ngames: 200\nchunk: 100\nseed: 3\nmax_games: 800\n"
                      "analyses: [overfishing]\nprecision: {overfishing: 1e-200pp}\n")
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "800 games" in res.output
    summary = (tmp_path / "reports" / "tiny" / "summary.md").read_text()
    assert "not reached" in summary and "nan" not in summary


@pytest.mark.parametrize("name", [".checkpoints", ".ck.lock", ".hidden"])
def test_a_name_that_would_collide_with_the_hidden_files_is_refused(tmp_path, name):
    """A report named .checkpoints would be the checkpoint folder itself: refused up front,
    before a game is played or a folder made."""
    path = tmp_path / "x.yaml"
    path.write_text(f"name: '{name}'\noutput: {tmp_path / 'reports'}\n" + BODY)
    line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress"]))
    assert "name: a report folder's name may not start with '.'" in line
    assert not (tmp_path / "reports").exists()
