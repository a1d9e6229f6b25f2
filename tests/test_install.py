"""A regular (non-editable) install: the wheel carries the bots and the experiment files,
and a fresh virtualenv outside the checkout plays, lists and runs them, with numba's cache
falling back to the user's cache folder when the installed package is read-only."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fishing2sim.strategy.loading import known_strategies

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
