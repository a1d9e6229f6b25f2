"""A regular (non-editable) install: the wheel carries the bots and the experiment files,
and a fresh virtualenv outside the checkout plays, lists and runs them, with numba's cache
falling back to the user's cache folder when the installed package is read-only."""
import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from fishing2sim.strategy.files import known_strategies

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENT = """\
name: wheel
players: 4
games: 400
chunk: 100
seed: 4
seats: [greedy, random, weights, counter]
analyses: [overfishing, strategies]
"""


@contextlib.contextmanager
def one_bare_checkout_at_a_time():
    """The two tests that run the checkout bare re-stamp the bots' shared cache: one at a time
    across the suite's workers (a file lock), so neither sees the other's stamp."""
    with open(Path(tempfile.gettempdir()) / "fishing2sim-bare-checkout.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def sh(args, **kw) -> subprocess.CompletedProcess:
    res = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    assert res.returncode == 0, f"{args}: {res.stdout[-2000:]}{res.stderr[-3000:]}"
    return res


@pytest.mark.slow
def test_a_wheel_installs_and_runs_outside_the_checkout(tmp_path):
    dist = tmp_path / "dist"
    sh([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, ROOT])
    wheel = next(dist.glob("fishing2sim-*.whl"))
    venv = tmp_path / "venv"
    sh([sys.executable, "-m", "venv", venv])
    sh([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel])
    work = tmp_path / "work"
    work.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "VIRTUAL_ENV")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"),
               PATH=f"{venv / 'bin'}:{env.get('PATH', '')}")
    py = venv / "bin" / "python"
    cli = venv / "bin" / "fishing2sim"

    where = sh([py, "-c", "import fishing2sim, fishing2sim.bots as b; "
                "print(fishing2sim.__file__); print(b.__file__)"], cwd=work, env=env)
    pkg = Path(where.stdout.splitlines()[0]).parent
    assert "site-packages" in str(pkg) and str(ROOT) not in where.stdout
    assert Path(where.stdout.splitlines()[1]).parent == pkg / "bots"

    # the installed package read-only (as in a system install): numba caches elsewhere
    ro = subprocess.run(["mount", "--bind", str(pkg), str(pkg)], capture_output=True)
    read_only = ro.returncode == 0 and subprocess.run(
        ["mount", "-o", "remount,bind,ro", str(pkg)], capture_output=True).returncode == 0
    try:
        if read_only:
            probe = subprocess.run([py, "-c", f"open({str(pkg / 'x')!r}, 'w')"],
                                   capture_output=True, env=env)
            assert probe.returncode != 0  # really read-only
        played = sh([cli, "play", "--players", "4", "--seed", "7"], cwd=work, env=env)
        here = sh([sys.executable, "-m", "fishing2sim.cli", "play", "--players", "4",
                   "--seed", "7"], cwd=ROOT)
        assert played.stdout == here.stdout  # the same game as the checkout's
        assert "Game over" in played.stdout

        listed = sh([cli, "strategies"], cwd=work, env=env).stdout
        names = [ln.split()[0] for ln in listed.splitlines() if not ln.startswith(" ")]
        assert names == known_strategies()
        assert "weights" in names and "params:" in listed
        shipped = sh([cli, "experiments"], cwd=work, env=env).stdout
        assert [ln.split()[0] for ln in shipped.splitlines() if not ln.startswith(" ")] == \
            sorted(p.stem for p in (ROOT / "experiments").glob("*.yaml"))

        (work / "wheel.yaml").write_text(EXPERIMENT)
        sh([cli, "run", "wheel.yaml", "--workers", "2", "--no-progress"], cwd=work, env=env)
        ref = tmp_path / "ref"
        ref.mkdir()
        (ref / "wheel.yaml").write_text(EXPERIMENT)
        sh([sys.executable, "-m", "fishing2sim.cli", "run", ref / "wheel.yaml", "--workers", "1",
            "--no-progress", "--output", ref / "reports"], cwd=ROOT)
        for name in ("overfishing.csv", "strategies.csv", "scores.csv"):
            assert (work / "reports" / "wheel" / name).read_bytes() == \
                (ref / "reports" / "wheel" / name).read_bytes(), name

        # a shipped experiment by name
        sh([cli, "run", "depletion", "--games", "300", "--workers", "1", "--no-progress"],
           cwd=work, env=env)
        assert (work / "reports" / "depletion" / "depletion.csv").is_file()
    finally:
        if read_only:
            subprocess.run(["umount", "-l", str(pkg)], check=False)
    if read_only:  # numba kept its cache in the user's cache folder
        assert list((home / ".cache" / "numba").rglob("*.nbi"))
    shutil.rmtree(venv, ignore_errors=True)


def test_the_shipped_bots_load_installed_and_from_a_bare_checkout(tmp_path):
    """Code numba cached for a bot imported as fishing2sim.bots.x (an install) names that
    module: a source checkout used without installing it imports the bot as strategies.x
    and must not load that cache (the bots' cache is dropped when the package changes),
    and the other way round."""
    from benchmarks.same_output import SITECUSTOMIZE

    repo = Path(__file__).resolve().parent.parent
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    code = ("import fishing2sim.strategy.loading as l; "
            "print(l.BOTS_PACKAGE, l.load_strategy('greedy').name)")
    runs = []
    with one_bare_checkout_at_a_time():
        for env_path in (None, os.pathsep.join([str(tmp_path), str(repo)]), None):
            env = dict(os.environ)
            if env_path:
                env["PYTHONPATH"] = env_path
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, cwd=tmp_path)
            assert out.returncode == 0, out.stderr[-2000:]
            runs.append(out.stdout.split())
    assert [r[1] for r in runs] == ["greedy"] * 3
    assert runs[1][0] == "strategies" and runs[0][0] == runs[2][0]


def test_a_bot_cached_by_the_other_package_under_this_stamp_is_compiled_anew(tmp_path):
    """Two processes of the two packages at the same time (an install and a bare
    checkout): one may cache a bot under its package after the other stamped the cache with
    its own. The bot's cached code then names the other package; loading it drops the
    bots' cache and compiles the bot anew, instead of failing on every later run."""
    from benchmarks.same_output import SITECUSTOMIZE

    repo = Path(__file__).resolve().parent.parent
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    stamp = repo / "strategies" / "__pycache__" / "bots-package.stamp"
    code = ("import fishing2sim.strategy.loading as l; "
            "print(l.BOTS_PACKAGE, l.load_strategy('greedy').name)")
    bare = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(repo)]))
    installed = dict(os.environ)
    runs = []
    with one_bare_checkout_at_a_time():
        for env, restamp in ((installed, False), (bare, True), (installed, False)):
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, cwd=tmp_path)
            assert out.returncode == 0, out.stderr[-2000:]
            if restamp:  # the installed process's stamp over the bare process's cache
                # (any process of the installed package started meanwhile by another test
                # stamps it so too: the bare run's own stamp is not waited for)
                assert out.stdout.split() == ["strategies", "greedy"]
                stamp.write_text(runs[0][0])
                continue
            runs.append(out.stdout.split())
        assert runs[0] == runs[1] and runs[0][1] == "greedy" and runs[0][0] != "strategies"
        assert stamp.read_text() == runs[0][0]
