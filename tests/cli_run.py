"""Running the command line as a user does, for the tests of bad input: the command in a
subprocess, and the lines of its error output that are the message (numba's warnings and
their indented source lines, and any other lines the caller names, left out)."""
import subprocess
import sys


def fishing2sim(*args, cwd=None, timeout=None) -> subprocess.CompletedProcess:
    """``fishing2sim ARGS...`` (as ``python -m fishing2sim.cli``), its output captured."""
    return subprocess.run([sys.executable, "-m", "fishing2sim.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout)


def message_lines(stderr: str, skip=()) -> list:
    """The lines of stderr that are not blank, not a warning, not indented and do not
    start with one of ``skip`` (e.g. a run's progress lines)."""
    return [ln for ln in stderr.splitlines() if ln.strip() and "Warning" not in ln
            and not ln.startswith((" ", *skip))]
