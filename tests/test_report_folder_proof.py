"""A folder is ours only if we can prove it: a folder of the user's that looks like a report
(a summary.md, some CSV, Markdown and YAML files) is never replaced, written into or
deleted by run, tune, train or report DIR; a report of an older version (before the
marker) is recognised by its file names and its config.yaml's config hash."""
import hashlib
import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.safe_files import MARKER, FileSafetyError, check_replaceable, is_ours
from test_file_safety import BODY, one_error, tree, write_yaml

TUNE = ("players: 4\nseed: 3\nanalyses: [overfishing]\ntune:\n"
        "  space: {deck.remove_from_tier.4: {int: [0, 3]}}\n"
        "  objective: {minimize: overfishing}\n"
        "  budget: {trials: 2, games: 200}\n  racing: {top: 0}\n")
TRAIN = ("seed: 7\niterations: 1\nteacher: pimc\nbudget: [2, 1, 0, 0]\n"
         "rate: 0.3\nconditions:\n  - {ruleset: fishing2, players: 4, games: 2}\n"
         "hidden: 0\nevaluation: {deals: 0}\n")
HASH = hashlib.sha256(b"an older report").hexdigest()


def thesis(proj: Path) -> Path:
    """The user's folder of the issue: it looks like a report, but is not one."""
    d = proj / "thesis"
    d.mkdir(parents=True)
    (d / "summary.md").write_text("# My thesis\n\nThe chapter summaries.\n")
    (d / "measurements.csv").write_text("day,catch\n1,12\n2,9\n")
    (d / "notes.md").write_text("- ask about the trump rule\n")
    (d / "settings.yaml").write_text("font: 11pt\n")
    return d


def job(tmp_path: Path, command: str, output: Path) -> Path:
    path = tmp_path / "thesis.yaml"
    body = {"run": BODY, "tune": TUNE, "train": TRAIN}[command]
    path.write_text(f"name: thesis\noutput: {output}\n" + body)
    return path


def old_report(where: Path, config: str | None = None) -> Path:
    """A report as a fishing2sim before the marker wrote it."""
    where.mkdir(parents=True)
    for n in ("summary.md", "overfishing.csv", "overfishing.png", "report.html"):
        (where / n).write_text("an older report")
    (where / "config.yaml").write_text(config if config is not None else
                                       f"name: ck\nseed: 9\nconfig_hash: {HASH}\n")
    return where


@pytest.mark.parametrize("command", ["run", "tune", "train"])
def test_a_users_folder_that_looks_like_a_report_is_left_byte_identical(tmp_path, command):
    d = thesis(tmp_path / "proj")
    before = tree(tmp_path / "proj")
    path = job(tmp_path, command, tmp_path / "proj")
    quiet = ["--no-progress"] if command != "train" else []
    line = one_error(CliRunner().invoke(main, [command, str(path)] + quiet))
    what, named_in = {"run": ("report", "experiment"), "tune": ("report", "tune"),
                      "train": ("training", "training")}[command]
    assert line == (f"Error: {d}: this folder was not made by fishing2sim (it has no {MARKER} "
                    f"file) and the {what} folder would replace it: your files there are "
                    f"left as they are; choose another --output, or another name in the "
                    f"{named_in} file")
    assert tree(tmp_path / "proj") == before  # every file as it was, and no new file


@pytest.mark.parametrize("fresh", [False, True])
def test_train_output_and_fresh_leave_a_users_folder_byte_identical(tmp_path, fresh):
    d = thesis(tmp_path / "proj")
    before = tree(tmp_path / "proj")
    path = job(tmp_path, "train", tmp_path / "elsewhere")
    args = ["train", str(path), "--output", str(tmp_path / "proj")] + (["--fresh"] * fresh)
    line = one_error(CliRunner().invoke(main, args))
    assert line.startswith(f"Error: {d}: this folder was not made by fishing2sim")
    assert tree(tmp_path / "proj") == before
    assert not (tmp_path / "elsewhere").exists()


def test_report_dir_leaves_a_users_folder_byte_identical(tmp_path):
    d = thesis(tmp_path / "proj")
    (d / "report.html").write_text("<html><body>my draft page")  # not a complete page
    before = tree(tmp_path / "proj")
    line = one_error(CliRunner().invoke(main, ["report", str(d)]))
    assert line.startswith(f"Error: {d}: not a report folder made by fishing2sim")
    assert tree(tmp_path / "proj") == before


def test_a_report_of_an_older_version_is_still_replaced(tmp_path):
    out = old_report(tmp_path / "reports" / "ck")
    path = write_yaml(tmp_path, "ck", tmp_path / "reports")
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert (out / MARKER).is_file()
    assert (out / "summary.md").read_text() != "an older report"
    assert yaml.safe_load((out / "config.yaml").read_text())["config_hash"] != HASH


@pytest.mark.parametrize("config", ["name: ck\nseed: 9\n",  # no config hash
                                    "config_hash: 12\n",  # not a hash
                                    f"config_hash: {HASH[:-1]}\n",
                                    "- a list\n", "{unclosed: [\n", ""])
def test_an_old_report_needs_a_configuration_with_its_hash(tmp_path, config):
    d = old_report(tmp_path / "r", config)
    assert not is_ours(d)
    with pytest.raises(FileSafetyError, match="not made by fishing2sim"):
        check_replaceable(d)


def test_what_counts_as_an_old_report(tmp_path):
    d = old_report(tmp_path / "r")
    assert is_ours(d)
    (d / "notes.md").write_text("x")  # a name no report writes
    assert not is_ours(d)
    (d / "notes.md").unlink()
    (d / "overfishing.csv").unlink()
    (d / "overfishing.csv").symlink_to(d / "summary.md")  # a link
    assert not is_ours(d)
    (d / "overfishing.csv").unlink()
    (d / "cards").mkdir()  # a folder
    assert not is_ours(d)
    (d / "cards").rmdir()
    os.unlink(d / "config.yaml")
    (d / "config.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    (tmp_path / "elsewhere.yaml").write_text(f"config_hash: {HASH}\n")
    assert not is_ours(d)  # the configuration is read only as a regular file
    # a tune's report: tune.yaml with the hash, a Pareto front's point files
    t = tmp_path / "t"
    t.mkdir()
    for n in ("summary.md", "trials.csv", "front.csv", "front-0.yaml", "front-12.yaml",
              "study.db"):
        (t / n).write_text("x")
    (t / "tune.yaml").write_text(f"name: t\nconfig_hash: {HASH}\n")
    assert is_ours(t)
    (t / "front-x.yaml").write_text("x")
    assert not is_ours(t)
    (t / "front-x.yaml").unlink()
    (t / "tune.yaml").write_text("name: t\n")
    assert not is_ours(t)
    only_db = tmp_path / "db"  # an Optuna study of the user's: no proof it is ours
    only_db.mkdir()
    (only_db / "study.db").write_text("x")
    assert not is_ours(only_db)


def test_the_names_of_an_old_report_are_those_a_report_writes():
    """The legacy list stays in step with the report: every table an analysis returns and
    every plot the report draws is named in safe_files."""
    import ast

    from fishing2sim.report import write
    from fishing2sim.safe_files import RUN_PLOTS, RUN_TABLES

    assert {f for _, _, f in write.PLOTS} == {f"{p}.png" for p in RUN_PLOTS}
    tables = set()  # the keys of the dicts the analyses' table functions return
    for p in (Path(write.__file__).parent.parent / "analysis").glob("*.py"):
        for n in ast.walk(ast.parse(p.read_text())):
            if not (isinstance(n, ast.FunctionDef) and n.name in (
                    "tables", "ladder_tables", "tables_from_totals")):
                continue
            for r in ast.walk(n):
                if isinstance(r, ast.Return) and isinstance(r.value, ast.Dict) or \
                        isinstance(r, ast.Assign) and isinstance(r.value, ast.Dict) \
                        and [getattr(t, "id", "") for t in r.targets] == ["out"]:
                    tables |= {k.value for k in r.value.keys if isinstance(k, ast.Constant)}
                elif isinstance(r, ast.Subscript) and isinstance(r.ctx, ast.Store) \
                        and getattr(r.value, "id", "") == "out" \
                        and isinstance(r.slice, ast.Constant):
                    tables.add(r.slice.value)
    assert tables == set(RUN_TABLES)
