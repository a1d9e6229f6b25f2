"""Issue 58's smaller items: a report folder named like an option, `--open` with no web
browser, Ctrl-C in the first second of `run`, and `cards: {only: []}`."""
import os
import signal
import subprocess
import sys
import time
import webbrowser
from pathlib import Path

import pytest
from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.safe_files import write_marker
from test_file_safety import BODY, one_error

TIMEOUT = 120  # s: a guard against a hang, never a measure


@pytest.mark.parametrize("command", ["run", "tune", "train"])
@pytest.mark.parametrize("name", ["-rf", "--help", "-"])
def test_a_name_that_a_shell_takes_for_an_option_is_refused(tmp_path, command, name):
    body = {"run": BODY,
            "tune": "players: 4\nseed: 3\nanalyses: [overfishing]\ntune:\n"
                    "  space: {deck.remove_from_tier.4: {int: [0, 3]}}\n"
                    "  objective: {minimize: overfishing}\n"
                    "  budget: {trials: 2, games: 200}\n  racing: {top: 0}\n",
            "train": "seed: 7\niterations: 1\nteacher: pimc\nbudget: [2, 1, 0, 0]\n"
                     "rate: 0.3\nconditions:\n  - {ruleset: fishing2, players: 4, games: 2}\n"
                     "hidden: 0\nevaluation: {deals: 0}\n"}[command]
    path = tmp_path / "job.yaml"
    path.write_text(f"name: '{name}'\noutput: {tmp_path / 'reports'}\n" + body)
    quiet = ["--no-progress"] if command != "train" else []
    line = one_error(CliRunner().invoke(main, [command, str(path)] + quiet))
    assert f"name: the name {name!r} begins with '-'" in line \
        or f"the name {name!r} begins with '-'" in line, line
    assert line.endswith("so a report folder's name may not begin with '-'")
    assert not (tmp_path / "reports").exists()


def test_cards_only_empty_is_refused_at_load(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(f"name: c\noutput: {tmp_path / 'reports'}\nplayers: 4\ngames: 200\n"
                    "seats: skilled\nanalyses: [cards]\ncards: {only: []}\n")
    line = one_error(CliRunner().invoke(main, ["run", str(path), "--no-progress"]))
    assert line == (f"Error: {path}: cards.only: expected a list of at least one ocean card "
                    "name such as [blue 26, red 3] (leave cards.only out for every ocean "
                    "card), got []")
    assert not (tmp_path / "reports").exists()


def _no_browser_env() -> dict:
    """An environment where Python's webbrowser finds no browser: no display, no $BROWSER,
    and a PATH with no console browser on it."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "MIR_SOCKET")}
    env["PATH"] = str(Path(sys.executable).parent)
    return env


def test_report_open_without_a_browser_says_so(tmp_path):
    d = tmp_path / "reports" / "rep"
    d.mkdir(parents=True)
    (d / "summary.md").write_text("# rep\n\nA report.\n")
    write_marker(d, "run", "rep", "0")
    res = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "report", str(d), "--open"],
                         capture_output=True, text=True, timeout=TIMEOUT, env=_no_browser_env())
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == str(d / "report.html")
    assert res.stderr.strip() == (f"no web browser to open the report; the page is at "
                                  f"{d / 'report.html'}")
    assert (d / "report.html").read_text().startswith("<!DOCTYPE html>")


def test_run_open_without_a_browser_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(webbrowser, "open", lambda *a, **k: False)
    path = tmp_path / "o.yaml"
    path.write_text(f"name: o\noutput: {tmp_path / 'reports'}\n" + BODY)
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress", "--open"])
    assert res.exit_code == 0, res.output
    page = tmp_path / "reports" / "o" / "report.html"
    assert res.stderr.strip().splitlines()[-1] == (f"no web browser to open the report; the "
                                                   f"page is at {page}")
    assert page.is_file()


def _loaded(pid: int, what: str) -> bool:
    try:
        return what in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_ctrl_c_in_the_first_second_of_run_is_the_stop_line_and_130(tmp_path):
    """SIGINT while `run` still imports the engine's libraries (numpy is mapped, the
    experiment not yet loaded): the run's own stop line and exit code 130, not click's
    "Aborted!" with 1, and nothing made."""
    path = tmp_path / "e.yaml"
    path.write_text(f"name: e\noutput: {tmp_path / 'reports'}\n" + BODY)
    p = subprocess.Popen([sys.executable, "-m", "fishing2sim.cli", "run", str(path),
                          "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.monotonic() + TIMEOUT
    while not _loaded(p.pid, "_multiarray_umath") and p.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.002)  # a wait-until: polls for numpy's library in the process
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=TIMEOUT)
    assert p.returncode == 130, err
    assert err.strip() == "interrupted; nothing was played", err
    assert "Aborted!" not in err and "Traceback" not in err
    assert not (tmp_path / "reports").exists()


def test_ctrl_c_where_no_command_stops_on_its_own_is_130(tmp_path, monkeypatch):
    import fishing2sim.compare as compare

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(compare, "compare", interrupted)
    res = CliRunner().invoke(main, ["compare", str(tmp_path), str(tmp_path)])
    assert res.exit_code == 130
    assert res.stderr.strip() == "interrupted"
