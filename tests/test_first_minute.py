"""The first minute: a mistake in a file is reported without loading the engine,
the compile notice comes before the compile, a name finds its file, and the small things a
designer reads first (a resumed run's rate, play's did-you-mean)."""
from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from fishing2sim import first_run
from fishing2sim import study
from fishing2sim.run import runner
from fishing2sim.run.processes import RunInterrupted
from fishing2sim.strategy import loading as strategies
from fishing2sim.cli import main

REPO = Path(__file__).resolve().parent.parent
KERNELS = ("numba", "fishing2sim.engine.core", "fishing2sim.engine.batch", "fishing2sim.api")

TYPOS = {  # one misspelt word each: key, ruleset, analysis, strategy (in a sweep too), card
    "key": ("rulset: fishing2\n", "rulset: unknown key (did you mean 'ruleset'?)"),
    "ruleset": ("ruleset: fishing3\n", "unknown ruleset 'fishing3' (did you mean 'fishing'?)"),
    "analysis": ("analyses: [overfishin]\n", "unknown analysis 'overfishin' (did you mean"),
    "strategy": ("seats: gredy\n", "unknown strategy 'gredy' (did you mean 'greedy'?)"),
    "swept": ("sweep: {seats: [greedy, gredy]}\n", "unknown strategy 'gredy'"),
    "card": ("seats: greedy\ndeck: {remove: [blue 99]}\n", "no card named 'blue 99'"),
}

CHECK = textwrap.dedent("""
    import json, sys
    from fishing2sim.cli import main
    out = {}
    for name, args in json.loads(sys.argv[1]).items():
        try:
            main(args, standalone_mode=True)
        except SystemExit as exc:
            out[name] = exc.code
    print(json.dumps({"codes": out,
                      "loaded": [m for m in %r if m in sys.modules]}))
""" % (KERNELS,))


def test_a_typo_is_reported_without_loading_the_engine(tmp_path):
    """Checking a file (the command line's run, tune and play) imports no numba and no
    kernel: on a cold cache a one-word typo is reported in about a second, not after the
    engine's compile. A fresh interpreter, so nothing was imported before."""
    calls = {}
    for name, (body, _) in TYPOS.items():
        p = tmp_path / f"{name}.yaml"
        p.write_text(f"name: {name}\ngames: 100\n{body}")
        calls[name] = ["run", str(p), "--no-progress"]
    (tmp_path / "tune.yaml").write_text("name: t\nrulset: fishing2\n")
    calls["tune"] = ["tune", str(tmp_path / "tune.yaml"), "--no-progress"]
    calls["play"] = ["play", "--strategy", "gredy"]
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", CHECK, json.dumps(calls)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.splitlines()[-1])
    assert got["codes"] == {name: 2 for name in calls}
    assert got["loaded"] == []  # none of numba, engine.core, engine.batch, api
    errors = r.stderr.splitlines()
    assert len(errors) == len(calls) and "Traceback" not in r.stderr
    for (name, (_, msg)), line in zip(TYPOS.items(), errors):
        assert line.startswith(f"Error: {tmp_path / name}.yaml: ") and msg in line, line
    assert "did you mean 'greedy'?" in errors[-1]
    assert elapsed < 60  # (seconds in fact; the bound is for a loaded machine)


def test_the_loader_reports_a_typo_before_importing_a_strategy(tmp_path, monkeypatch):
    """A file whose deck or a later condition's seat is wrong fails before any strategy is
    imported (importing one compiles it)."""
    from fishing2sim.config.experiment import ExperimentError, load_experiment

    imported = []
    monkeypatch.setattr(strategies, "_cache", {})
    real = strategies._import_file
    monkeypatch.setattr(strategies, "_import_file",
                        lambda path: imported.append(path) or real(path))
    for name in ("swept", "card"):
        p = tmp_path / f"{name}.yaml"
        p.write_text(f"name: {name}\n{TYPOS[name][0]}")
        with pytest.raises(ExperimentError, match=TYPOS[name][1]):
            load_experiment(p)
    assert imported == []


# ---- the compile notice ----------------------------------------------------------------
def small(tmp_path, name="n", games=400, chunk=200) -> Path:
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"name: {name}\noutput: {tmp_path / 'reports'}\ngames: {games}\n"
                 f"chunk: {chunk}\nseats: greedy\nanalyses: [overfishing]\n")
    return p


def test_the_notice_comes_before_the_first_compile(tmp_path, monkeypatch):
    """With a cold cache the notice is said before the first strategy is imported (the
    first compile of a run), once, and ended with the first chunk."""
    monkeypatch.setattr(first_run, "cold_cache", lambda places=None: True)
    monkeypatch.setattr(strategies, "_cache", {})
    seen = []
    real = strategies._import_file
    monkeypatch.setattr(strategies, "_import_file",
                        lambda path: seen.append(first_run._ticker is not None) or real(path))
    res = CliRunner().invoke(main, ["run", str(small(tmp_path)), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert seen and seen[0] is True  # the notice was out before the first import
    assert res.output.count(first_run.NOTICE) == 1
    assert res.output.index(first_run.NOTICE) < res.output.index("400 games")
    assert first_run._ticker is None and not first_run._wanted
    res = CliRunner().invoke(main, ["run", str(small(tmp_path)), "--workers", "1",
                                    "--no-progress"])
    assert res.exit_code == 0 and first_run.NOTICE not in res.output
    monkeypatch.setattr(first_run, "cold_cache", lambda places=None: False)
    res = CliRunner().invoke(main, ["run", str(small(tmp_path)), "--workers", "1"])
    assert res.exit_code == 0 and "compiling" not in res.output


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_on_a_terminal_the_notice_counts_the_seconds(monkeypatch):
    monkeypatch.setattr(first_run, "cold_cache", lambda places=None: True)
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    with first_run.notice(True):
        first_run.before_compile()
        assert first_run.ticking()
        time.sleep(2.3)
        first_run.before_compile()  # once per block
    text = term.getvalue()
    assert text.startswith(first_run.NOTICE + " ...")
    assert f"\r{first_run.NOTICE} ... 1 s" in text and f"\r{first_run.NOTICE} ... 2 s" in text
    assert text.endswith(" s, done\n") and text.count("done") == 1
    assert not first_run.ticking()
    term = _Terminal()  # stopped by an error (or Ctrl-C): the line ends, no "done"
    monkeypatch.setattr(sys, "stderr", term)
    with pytest.raises(KeyboardInterrupt):
        with first_run.notice(True):
            first_run.before_compile()
            raise KeyboardInterrupt
    assert term.getvalue().endswith(" s\n") and "done" not in term.getvalue()
    plain = io.StringIO()  # not a terminal: one plain line
    monkeypatch.setattr(sys, "stderr", plain)
    with first_run.notice(True):
        first_run.before_compile()
        assert not first_run.ticking()
    assert plain.getvalue() == first_run.NOTICE + "\n"


# ---- names and files ---------------------------------------------------------------------
def test_a_name_finds_its_yaml_in_the_folder_and_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    small(tmp_path, "ocean_tweaks", games=200)
    res = CliRunner().invoke(main, ["run", "ocean_tweaks", "--workers", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == "ocean_tweaks: ocean_tweaks.yaml"
    assert (tmp_path / "reports" / "ocean_tweaks" / "summary.md").is_file()


def test_a_shipped_name_wins_over_a_folder_of_that_name(tmp_path, monkeypatch):
    from fishing2sim.config.experiment import load_experiment, shipped_experiment

    monkeypatch.chdir(tmp_path)
    (tmp_path / "strategies").mkdir()  # as in a checkout: the bots' folder
    assert shipped_experiment("strategies") == str(REPO / "experiments" / "strategies.yaml")
    assert load_experiment(shipped_experiment("strategies")).name == "strategies"
    (tmp_path / "mine").mkdir()  # a folder, and no experiment of that name
    res = CliRunner().invoke(main, ["run", "mine", "--no-progress"])
    assert res.exit_code == 2
    assert res.output.strip() == ("Error: mine: a folder, not an experiment file: give a YAML "
                                  "file, or the name of a shipped experiment (fishing2sim "
                                  "experiments lists them)")


def test_play_suggests_a_strategy_name():
    res = CliRunner().invoke(main, ["play", "--strategy", "gredy"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.output.startswith("Error: unknown strategy 'gredy' (did you mean 'greedy'?); "
                                 "known: ")


# ---- interrupted and resumed runs --------------------------------------------------------
def interrupted(tmp_path, monkeypatch) -> Path:
    """A run of 2 chunks stopped after its first chunk was saved."""
    path = small(tmp_path, "r", games=400, chunk=200)
    real = runner.save_chunk
    calls = []

    def save_then_stop(*args, **kwargs):
        real(*args, **kwargs)
        calls.append(1)
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "save_chunk", save_then_stop)
    with pytest.raises(RunInterrupted):
        study.run(path, workers=1, progress=False)
    monkeypatch.setattr(runner, "save_chunk", real)
    assert calls == [1]
    return path


def test_a_resumed_run_says_how_many_games_it_played_now(tmp_path, monkeypatch):
    path = interrupted(tmp_path, monkeypatch)
    res = CliRunner().invoke(main, ["run", str(path), "--resume", "--workers", "1",
                                    "--no-progress"])
    assert res.exit_code == 0, res.output
    last = res.output.splitlines()[-1]
    assert last.startswith("400 games (200 played now) in "), last
    secs = float(last.split(" in ")[1].split(" s")[0])
    rate = last.split("(")[2].split(" games/s")[0]
    assert abs(float(rate.replace(",", "")) - 200 / secs) <= max(1, 0.06 * 200 / secs)
    res = CliRunner().invoke(main, ["run", str(path), "--workers", "1", "--no-progress"])
    assert res.output.splitlines()[-1].startswith("400 games in ")  # all played now


def test_a_plain_rerun_warns_that_it_discards_the_saved_chunks(tmp_path, monkeypatch):
    path = interrupted(tmp_path, monkeypatch)
    res = CliRunner().invoke(main, ["run", str(path), "--workers", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    warning = [ln for ln in res.output.splitlines() if ln.startswith("warning:")]
    assert len(warning) == 1
    assert "1 saved chunk of an interrupted run" in warning[0]
    assert warning[0].endswith("discarded: the run starts again (--resume continues one)")
