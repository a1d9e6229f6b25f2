"""Shared fixtures: an experiment file written to tmp_path, a command-line run in this process,
and a wait for a condition (in place of a sleep)."""
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from fishing2sim.cli import main

# tests import their helpers (scenario.py, cli_run.py, bots/) by plain module name
sys.path.insert(0, str(Path(__file__).parent))

# The Ctrl-C tests send SIGINT to the processes they start. A shell without job control
# starts a background command with SIGINT ignored, and every child inherits that (Python
# then installs no KeyboardInterrupt): a suite started so would see those tests fail. A
# handler set here is reset to the default in each child the tests start.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def wait_until(predicate, timeout: float = 240.0, every: float = 0.02) -> bool:
    """Poll ``predicate()`` until it is true (True) or ``timeout`` seconds pass (False): the
    wait for a condition a test needs, never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(every)


def write_experiment(folder: Path, name: str, body: str = "", output: Path | None = None) -> Path:
    """``folder/NAME.yaml``: ``name: NAME``, ``output:`` (default folder/reports), then
    ``body`` (dedented); the folder is made if missing."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\noutput: {output or folder / 'reports'}\n"
                    + textwrap.dedent(body))
    return path


@pytest.fixture(name="wait_until")
def _wait_until():
    """``wait_until(predicate, timeout=240)``: True once the predicate holds, False at the
    timeout."""
    return wait_until


@pytest.fixture
def experiment_file(tmp_path):
    """``experiment_file(name, body, folder=tmp_path)``: an experiment file whose report goes
    to folder/reports (see write_experiment)."""
    def write(name: str = "t", body: str = "", folder: Path | None = None) -> Path:
        return write_experiment(folder or tmp_path, name, body)
    return write


@pytest.fixture
def cli():
    """``cli(*args)``: ``fishing2sim ARGS...`` run in this process (click's CliRunner); the
    click Result (exit_code, output)."""
    def invoke(*args):
        return CliRunner().invoke(main, [str(a) for a in args], prog_name="fishing2sim")
    return invoke
