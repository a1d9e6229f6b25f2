"""The first minute: a mistake in a file is reported without loading the engine,
the compile notice comes before the compile, a name finds its file, and the small things a
designer reads first (a resumed run's rate, play's did-you-mean)."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import textwrap
import uuid
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
    r = subprocess.run([sys.executable, "-c", CHECK, json.dumps(calls)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.splitlines()[-1])
    assert got["codes"] == {name: 2 for name in calls}
    assert got["loaded"] == []  # none of numba, engine.core, engine.batch, api
    errors = r.stderr.splitlines()
    assert len(errors) == len(calls) and "Traceback" not in r.stderr
    for (name, (_, msg)), line in zip(TYPOS.items(), errors):
        assert line.startswith(f"Error: {tmp_path / name}.yaml: ") and msg in line, line
    assert "did you mean 'greedy'?" in errors[-1]


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


def fresh_bot(tmp_path) -> Path:
    """A strategy file numba has never compiled (a module name of its own)."""
    stem = f"fresh_{uuid.uuid4().hex[:10]}"
    path = tmp_path / f"{stem}.py"
    path.write_text(f"from fishing2sim.strategy.kit import decision, O_OPTIONS\n"
                    f"NAME = {stem!r}\n\n@decision\ndef play(obs, params, rng):\n"
                    f"    return obs[O_OPTIONS]\n")
    return path


def test_the_notice_says_what_compiles_and_only_when_something_does(tmp_path):
    """A strategy never compiled before: the run says so, naming the bot, once, before its
    games; a warm rerun, and a run of warm bots, say nothing (numba raises its compile event
    only for a real compile, never for a kernel loaded from its cache)."""
    bot = fresh_bot(tmp_path)
    p = tmp_path / "fresh.yaml"
    p.write_text(f"name: fresh\noutput: {tmp_path / 'reports'}\nplayers: 3\ngames: 200\n"
                 f"chunk: 100\nseats: [{bot}, greedy, random]\nanalyses: [overfishing]\n")
    res = CliRunner().invoke(main, ["run", str(p), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert res.output.count(f"compiling bot {bot.stem}") == 1
    assert "the engine" not in res.output  # warm: the engine comes from the cache
    assert res.output.index(f"compiling bot {bot.stem}") < res.output.index("200 games")
    assert first_run._ticker is None and not first_run._wanted
    for args in (["run", str(p), "--workers", "1"], ["run", str(small(tmp_path)), "--workers",
                                                      "2"]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 0 and "compiling" not in res.output, res.output


def test_no_progress_says_no_notice(tmp_path):
    bot = fresh_bot(tmp_path)
    p = tmp_path / "quiet.yaml"
    p.write_text(f"name: quiet\noutput: {tmp_path / 'reports'}\nplayers: 3\ngames: 100\n"
                 f"seats: [{bot}, greedy, random]\nanalyses: [overfishing]\n")
    res = CliRunner().invoke(main, ["run", str(p), "--workers", "1", "--no-progress"])
    assert res.exit_code == 0 and f"compiling bot {bot.stem}" not in res.output
    assert not any(line.startswith("compiling") for line in res.output.splitlines())


def _compile_here(tag: int) -> int:
    """(in a child process) compiles a function numba has not seen (no cache)."""
    from numba import njit

    f = njit(lambda x: x + tag)
    return f(1)


def test_a_childs_compile_is_named_by_the_parents_notice_with_its_seconds(monkeypatch):
    """The play command's child (and the runner's workers) send what they compile and how
    long it took to the parent, whose notice names it; the seconds go to the run line."""
    from fishing2sim.run.processes import call_in_child

    plain = io.StringIO()
    monkeypatch.setattr(sys, "stderr", plain)
    with first_run.notice(True):
        first_run.before_compile()
        assert call_in_child(_compile_here, 41) == 42
        assert first_run.compile_seconds() > 0
    assert plain.getvalue() == f"{first_run.NOTICE} bot {__name__}\n"
    with first_run.notice(False):  # not wanted: nothing said, the seconds still counted
        first_run.before_compile()
        call_in_child(_compile_here, 43)
        assert first_run.compile_seconds() > 0
    assert plain.getvalue().count("\n") == 1


def test_what_compiles_is_named_in_the_notices_words():
    assert first_run.describe("fishing2sim.engine.batch") == "the engine"
    assert first_run.describe("fishing2sim.strategy.reference") == "the engine"
    assert first_run.describe("fishing2sim.search.kernels") == "the search bots"
    assert first_run.describe("fishing2sim.student.features") == "the student (bot skilled)"
    assert first_run.describe("fishing2sim.bots.greedy") == "bot greedy"
    assert first_run.describe("strategies.greedy") == "bot greedy"
    assert first_run.describe("my_bot") == "bot my_bot"
    # numba's own functions, compiled as parts of ours and never cached: no sign of a cold
    # cache, so never a notice
    assert first_run.describe("numba.np.arrayobj") is None
    assert first_run.describe("") is None


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_on_a_terminal_the_notice_counts_the_seconds(monkeypatch, wait_until):
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    with first_run.notice(True):
        first_run.compiling("the engine")
        assert first_run.ticking()
        assert wait_until(lambda: f"{first_run.NOTICE} the engine ... 1 s" in term.getvalue(),
                          timeout=60)
        first_run.compiling("the engine")  # once per thing
        first_run.compiling("bot skilled")  # a second thing joins the line
        assert wait_until(lambda: re.search(r"the engine and bot skilled \.\.\. [2-9] s",
                                            term.getvalue()), timeout=60)
    text = term.getvalue()
    assert text.startswith(f"{first_run.NOTICE} the engine ...")
    assert f"\r{first_run.NOTICE} the engine ... 1 s" in text
    assert text.endswith(" s, done\n") and text.count("done") == 1
    assert "under a minute" not in text  # no duration promised
    assert not first_run.ticking()
    term = _Terminal()  # stopped by an error (or Ctrl-C): the line ends, no "done"
    monkeypatch.setattr(sys, "stderr", term)
    with pytest.raises(KeyboardInterrupt):
        with first_run.notice(True):
            first_run.compiling("the engine")
            raise KeyboardInterrupt
    assert term.getvalue().endswith(" s\n") and "done" not in term.getvalue()
    plain = io.StringIO()  # not a terminal: one plain line per thing
    monkeypatch.setattr(sys, "stderr", plain)
    with first_run.notice(True):
        first_run.compiling("the engine")
        first_run.compiling("bot skilled")
        assert not first_run.ticking()
    assert plain.getvalue() == f"{first_run.NOTICE} the engine\n{first_run.NOTICE} bot skilled\n"
    with first_run.notice(False):  # --no-progress
        first_run.compiling("the engine")
    assert plain.getvalue().count("\n") == 2


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
