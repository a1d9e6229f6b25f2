"""The first minute on a fresh install: how long until a typo is reported, and until the
compile notice appears, with numba's cache cold and warm.

    python benchmarks/first_minute.py                   # this checkout, 3 runs each
    python benchmarks/first_minute.py --runs 5 --source /path/to/another/checkout
    python benchmarks/first_minute.py --warm --runs 3  # warm figures only: one compile
    python benchmarks/first_minute.py --warm --against /tmp/old  # and the same, alternated,
                                                                 # for another checkout

Cold means a fresh copy of the package (one for the typo, another for the run:
``fishing2sim/``, ``strategies/`` as ``fishing2sim/bots/``, ``experiments/``) in a
temporary folder, first on ``PYTHONPATH``, with ``NUMBA_CACHE_DIR`` and ``HOME``
pointed at empty temporary folders: nothing compiled, nothing cached, and the checkout
itself untouched. Warm is the same copy once a run has compiled it. Each figure is the
median of ``--runs`` fresh processes:

- typo: ``fishing2sim run typo.yaml`` (a misspelt key) until the process has printed its
  one error line and exited;
- notice: ``fishing2sim run small.yaml`` (400 games of greedy bots, 1 worker) until the
  ``compiling the engine`` line is on stderr, and until the run is done (the first run's
  whole compile).

With ``--warm`` one copy is compiled once (not timed) and only the warm figures are
measured, ``--runs`` times each on it: the cheap way to see what a change costs the first
line of a run. ``--against DIR`` measures a second checkout (the commit before a change,
in a ``git worktree``) the same way, its runs alternated with the first's, so that the
load of a shared machine falls on both alike.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTICE = "compiling the engine"
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc", "*.stamp")


def fresh_copy(source: Path, where: Path) -> dict:
    """A copy of the package with an empty numba cache: the environment to run it in."""
    src = where / "src"  # laid out as a wheel installs it: the bots are fishing2sim.bots
    # (so that an editable install's import hook for them is not used)
    for name, to in (("fishing2sim", "fishing2sim"), ("strategies", "fishing2sim/bots"),
                     ("experiments", "experiments")):
        if (source / name).is_dir():
            shutil.copytree(source / name, src / to, ignore=IGNORE)
    for d in ("cache", "home"):
        (where / d).mkdir()
    (where / "typo.yaml").write_text("name: typo\nrulset: fishing2\ngames: 400\n")
    (where / "small.yaml").write_text(f"name: small\noutput: {where / 'reports'}\n"
                                      "games: 400\nseats: greedy\nanalyses: [overfishing]\n")
    env = dict(os.environ, PYTHONPATH=str(src), NUMBA_CACHE_DIR=str(where / "cache"),
               HOME=str(where / "home"))
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def cli(*args) -> list:
    return [sys.executable, "-m", "fishing2sim.cli", *args]


def time_typo(env: dict, where: Path) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cli("run", "typo.yaml", "--no-progress"), cwd=where, env=env,
                       capture_output=True, text=True, timeout=600)
    dt = time.perf_counter() - t0
    assert r.returncode == 2 and "rulset: unknown key" in r.stderr, r.stderr[-2000:]
    return dt


def time_notice(env: dict, where: Path) -> tuple[float | None, float]:
    """(seconds to the notice line, None if there was none; seconds to the run's end)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cli("run", "small.yaml", "--workers", "1"), cwd=where, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = None
    for line in p.stderr:
        if seen is None and NOTICE in line:
            seen = time.perf_counter() - t0
    p.wait(timeout=900)
    assert p.returncode == 0
    return seen, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--source", type=Path, default=ROOT,
                    help="the checkout to measure (default: this one)")
    ap.add_argument("--warm", action="store_true",
                    help="compile once, then measure only the warm figures --runs times")
    ap.add_argument("--against", type=Path, default=None,
                    help="with --warm: a second checkout, measured in alternation")
    a = ap.parse_args()
    if a.warm:
        sources = [a.source.resolve()] + ([a.against.resolve()] if a.against else [])
        for source, figures in zip(sources, warm_only(sources, a.runs)):
            report(a, figures, source)
        return
    figures: dict[str, list] = {k: [] for k in (
        "typo, cold cache", "typo, warm cache", "notice, cold cache", "first run, cold cache",
        "run, warm cache")}
    for _ in range(a.runs):
        with tempfile.TemporaryDirectory(prefix="fishing2sim-first-") as tmp:
            where = Path(tmp)  # a copy of its own: the typo's process may compile something
            env = fresh_copy(a.source.resolve(), where)
            figures["typo, cold cache"].append(time_typo(env, where))
        with tempfile.TemporaryDirectory(prefix="fishing2sim-first-") as tmp:
            where = Path(tmp)
            env = fresh_copy(a.source.resolve(), where)
            seen, total = time_notice(env, where)
            figures["notice, cold cache"].append(seen)
            figures["first run, cold cache"].append(total)
            figures["typo, warm cache"].append(time_typo(env, where))
            seen, total = time_notice(env, where)
            assert seen is None, "a notice on a warm cache"
            figures["run, warm cache"].append(total)
    report(a, figures)


def warm_only(sources: list, runs: int) -> list:
    """The warm figures of each checkout in ``sources``, ``runs`` times each on one copy
    compiled once beforehand (untimed), the checkouts taking turns."""
    figures = [{"typo, warm cache": [], "run, warm cache": []} for _ in sources]
    with tempfile.TemporaryDirectory(prefix="fishing2sim-first-") as tmp:
        copies = []
        for i, source in enumerate(sources):
            where = Path(tmp) / str(i)
            where.mkdir()
            env = fresh_copy(source, where)
            time_notice(env, where)  # the compile, not timed
            copies.append((env, where))
        for _ in range(runs):
            for (env, where), fig in zip(copies, figures):
                fig["typo, warm cache"].append(time_typo(env, where))
                seen, total = time_notice(env, where)
                assert seen is None, "a notice on a warm cache"
                fig["run, warm cache"].append(total)
    return figures


def report(a, figures: dict, source: Path | None = None) -> None:
    print(f"{source or a.source.resolve()}: medians of {a.runs} runs (seconds)")
    for k, xs in figures.items():
        if any(x is None for x in xs):
            print(f"  {k:<24} no notice in {sum(x is None for x in xs)} of {len(xs)} runs")
            xs = [x for x in xs if x is not None]
        if xs:
            print(f"  {k:<24} {statistics.median(xs):7.2f}   (runs: "
                  f"{', '.join(f'{x:.2f}' for x in xs)})")


if __name__ == "__main__":
    main()
