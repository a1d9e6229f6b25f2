"""A module beside a strategy file never runs unless the strategy imports it: the strategy's
folder is never on the import path, so a module a dependency looks up lazily (scipy,
coverage, numexpr, ...: numba, pandas and matplotlib look for optional modules) is never
found there, in `run` (its processes and a Dask cluster's workers), `tune` and `play`."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# optional modules a dependency looks up: scipy (numba imports it, if it can, when it is
# first imported: with the first strategy), and others that pandas, numba and matplotlib
# look for and this environment lacks
PLANTED = ["scipy", "coverage", "numexpr", "bottleneck", "pytz", "pyarrow", "cython"]
# scipy is installed here: the processes of the test see it as not installed, as where the
# planted scipy.py was found (a sitecustomize, so the run's own processes and Dask workers
# are started the same way)
HIDE_SCIPY = """\
import sys
from importlib.machinery import PathFinder


class HideScipy:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] != "scipy":
            return None
        if path is None:  # only where a missing scipy would be looked up: not site-packages
            path = [p for p in sys.path if "-packages" not in p]
        spec = PathFinder.find_spec(name, path)
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return spec


sys.meta_path.insert(0, HideScipy())
"""
BOT = """\
from fishing2sim.strategy.kit import give_weakest
from mylib import ANSWER  # a module of the bot's own folder that it imports: found

NAME = "besides"
play = give_weakest
assert ANSWER == 42
"""


def plant(tmp_path: Path) -> Path:
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in PLANTED:
        (bots / f"{name}.py").write_text(textwrap.dedent(f"""\
            import pathlib
            pathlib.Path({str(tmp_path)!r}, "RAN-{name}").write_text("x")
            raise ImportError("the planted {name} ran")
            """))
    (bots / "mylib.py").write_text("ANSWER = 42\n")
    path = bots / "besides_bot.py"
    path.write_text(BOT)
    return path


def cli(tmp_path: Path, *args) -> subprocess.CompletedProcess:
    # a fresh process (the dependencies' lazy imports happen once per process), started in
    # a folder of its own: not the bot's
    (tmp_path / "cwd").mkdir(exist_ok=True)
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(HIDE_SCIPY)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(site)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    return subprocess.run([sys.executable, "-m", "fishing2sim.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path / "cwd",
                          env=env)


def ran(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.glob("RAN-*"))


@pytest.mark.parametrize("how", [
    "run", "run-processes", pytest.param("run-dask", marks=pytest.mark.slow), "tune", "play"])
def test_a_module_beside_a_bot_never_runs(tmp_path, how):
    path = plant(tmp_path)
    before = {p: p.read_bytes() for p in (tmp_path / "bots").iterdir()}
    exp = tmp_path / "e.yaml"
    exp.write_text(f"name: e\nplayers: 4\ngames: 200\nchunk: 100\nseed: 3\n"
                   f"seats: [{path}, random, random, random]\nanalyses: [overfishing]\n")
    out = tmp_path / "out"
    if how == "run":
        r = cli(tmp_path, "run", exp, "--workers", "0", "--no-progress", "--output", out)
    elif how == "run-processes":
        r = cli(tmp_path, "run", exp, "--workers", "2", "--no-progress", "--output", out)
    elif how == "run-dask":
        r = cli(tmp_path, "run", exp, "--dask-local", "2", "--no-progress", "--output", out)
    elif how == "tune":
        exp.write_text(exp.read_text() + textwrap.dedent("""\
            tune:
              space:
                deck.remove_from_tier.4: {int: [0, 1]}
              objective: {minimize: overfishing}
              budget: {trials: 2, games: 200}
              racing: {top: 0}
            """))
        r = cli(tmp_path, "tune", exp, "--workers", "1", "--no-progress", "--output", out)
    else:
        r = cli(tmp_path, "play", "--players", "3", "--seed", "5", "--strategy", path)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert ran(tmp_path) == []
    assert {p: p.read_bytes() for p in (tmp_path / "bots").iterdir()
            if p.suffix == ".py"} == {p: b for p, b in before.items()}
