"""How long does the test suite take here? Runs it and records each run's wall time, with
the machine's load average before and after (so a figure measured on a shared machine says
how shared it was), in one generated file, docs/test-times.csv, which the docs link to
instead of re-typing its figures.

    python benchmarks/suite_time.py                      # the default suite, compiled code cached
    python benchmarks/suite_time.py --repeats 3          # three runs and their median
    python benchmarks/suite_time.py --suite slow         # the slow tests, one at a time
    python benchmarks/suite_time.py --suite ci           # all of .ci/run in a fresh clone of HEAD
    python benchmarks/suite_time.py --record             # ... and add the runs to docs/test-times.csv
    python benchmarks/suite_time.py --against /tmp/base --repeats 2   # beside another tree
    python benchmarks/suite_time.py --against /tmp/base --shared      # ... the tests both have

``--against PATH`` (a checkout or a git worktree of another commit, e.g. ``git worktree add
/tmp/base e48f807``): each tree runs its own suite in its own folder, with its own code, bots
and compiled cache; PATH's through a temporary venv that sees this interpreter's packages and
installs PATH editable (``pip install --no-deps -e``: only the build backend is fetched), so
its tests that start ``python -m fishing2sim`` or the ``fishing2sim`` command run PATH's code.
First one untimed run of each (its compiled cache filled), then the trees alternate (ABBA),
--repeats timed runs each. Printed: each tree's median, its seconds per test, and the median
of the pairs' ratios (this tree / PATH). ``--shared`` runs, in both trees, only the tests
whose ids both trees collect (a test added, renamed or removed since is left out): are the
same tests slower?

``default`` is the README's test command (`python -m pytest -q`: the slow tests are left
out), ``slow`` is .ci/run's `python -m pytest -q -m slow -n 0`, and ``ci`` clones HEAD into a
temporary folder and runs `bash .ci/run` there with ``CI=true``: a fresh clone's first test
run compiles the engine and the bots (numba's cache starts empty there).
"""
from __future__ import annotations

import argparse
import csv
import datetime
import io
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "docs" / "test-times.csv"
COLUMNS = ["date", "commit", "suite", "passed", "failed", "seconds", "load_before",
           "load_after", "exit"]
PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider"]  # after the interpreter
SUITES = {"default": PYTEST, "slow": PYTEST + ["-m", "slow", "-n", "0"]}


def counts(output: str) -> tuple[int, int]:
    """The passed and failed counts of pytest's closing lines (summed over a .ci/run's two
    runs); 0 where none is printed."""
    passed = sum(int(n) for n in re.findall(r"(\d+) passed", output))
    failed = sum(int(n) for n in re.findall(r"(\d+) failed", output))
    return passed, failed


# a pytest plugin that keeps only the test ids listed in the file $SUITE_TIME_ONLY
ONLY_PLUGIN = """\
import os

_KEEP = set(open(os.environ["SUITE_TIME_ONLY"]).read().splitlines())


def pytest_collection_modifyitems(config, items):
    drop = [i for i in items if i.nodeid not in _KEEP]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [i for i in items if i.nodeid in _KEEP]
"""


def collected(tree: Path, env: dict | None, python: str) -> set[str]:
    """The ids of the tests the default suite of ``tree`` runs."""
    r = subprocess.run([python] + PYTEST + ["--collect-only", "-n", "0"], cwd=tree, env=env,
                       capture_output=True, text=True)
    ids = {line for line in r.stdout.splitlines()
           if "::" in line and " " not in line.split("::")[0]}
    if r.returncode != 0 or not ids:
        raise SystemExit(f"collecting {tree}'s tests failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return ids


def only_shared(trees: dict, folder: Path) -> dict:
    """``trees`` (name: (tree, env, python)) with each one's run restricted to the tests
    every tree collects: the plugin above, through PYTHONPATH and ``-p``."""
    ids = [collected(*t) for t in trees.values()]
    shared = set.intersection(*ids)
    (folder / "only.txt").write_text("\n".join(sorted(shared)) + "\n")
    (folder / "suite_time_only.py").write_text(ONLY_PLUGIN)
    print(f"shared: {len(shared)} tests (" + ", ".join(
        f"{name} {len(i)}" for name, i in zip(trees, ids)) + ")", flush=True)
    out = {}
    for name, (tree, env, python) in trees.items():
        env = dict(env or os.environ, SUITE_TIME_ONLY=str(folder / "only.txt"))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder),
                                                          env.get("PYTHONPATH")]))
        out[name] = (tree, env, python, ["-p", "suite_time_only"])
    return out


def run_once(suite: str, tree: Path = ROOT, env: dict | None = None,
             python: str = sys.executable, extra: list[str] = ()) -> dict:
    """One run of the suite (in ``tree``, by ``python``, with ``env`` if given); its row for
    the record."""
    with tempfile.TemporaryDirectory() as tmp:
        if suite == "ci":
            cwd = Path(tmp) / "clone"
            subprocess.run(["git", "clone", "-q", str(tree), str(cwd)], check=True)
            cmd = ["bash", ".ci/run"]
            env = {**(env or os.environ), "CI": "true"}
        else:
            cwd, cmd = tree, [python] + SUITES[suite] + list(extra)
        before = os.getloadavg()[0]
        t0 = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
        dt = time.perf_counter() - t0
    passed, failed = counts(r.stdout)
    for line in r.stdout.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            print(f"  {line}", flush=True)  # which tests failed, before the run's row
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree,
                            capture_output=True, text=True).stdout.strip()
    return {"date": datetime.date.today().isoformat(), "commit": commit, "suite": suite,
            "passed": passed, "failed": failed, "seconds": round(dt),
            "load_before": round(before, 1), "load_after": round(os.getloadavg()[0], 1),
            "exit": r.returncode}


def record(rows: list[dict], path: Path = RECORD) -> None:
    """Adds the rows to the record (written whole or not at all: safe_files.write_atomic)."""
    from fishing2sim.safe_files import write_atomic

    old = list(csv.DictReader(path.open())) if path.exists() else []
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, COLUMNS)
    w.writeheader()
    w.writerows(old + rows)
    write_atomic(path, buf.getvalue())


def say(row: dict, label: str) -> None:
    print(f"{label}: {row['commit']} {row['seconds'] / 60:.1f} min ({row['seconds']} s), "
          f"load average {row['load_before']} -> {row['load_after']}, exit {row['exit']}: "
          f"{row['passed']} passed, {row['failed']} failed", flush=True)


def tree_python(tree: Path, folder: Path) -> tuple[str, dict]:
    """A venv in ``folder`` that sees this interpreter's packages and has ``tree`` installed
    editable; its python and an environment with its bin/ first on PATH."""
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps",
                    "-e", str(tree)], check=True)
    env = dict(os.environ, PATH=os.pathsep.join([str(venv / "bin"), os.environ["PATH"]]))
    env.pop("PYTHONPATH", None)
    return str(py), env


def against(suite: str, other: Path, repeats: int, shared: bool = False) -> list[dict]:
    """This tree and ``other`` in turn (ABBA after one untimed run of each); prints each
    tree's median and the median of the pairs' ratios; returns the timed rows. ``shared``:
    only the tests both trees collect."""
    with tempfile.TemporaryDirectory() as folder:
        py, env = tree_python(other, Path(folder))
        trees = {"this": (ROOT, None, sys.executable), "base": (other, env, py)}
        if shared:
            trees = only_shared(trees, Path(folder))
        for name, tree in trees.items():
            say(run_once(suite, *tree), f"untimed ({name})")
        times = {"this": [], "base": []}
        rows = []
        for i in range(repeats):
            for name in (("this", "base") if i % 2 == 0 else ("base", "this")):
                row = run_once(suite, *trees[name])
                if shared:  # recorded apart from whole runs of the suite
                    row["suite"] = "shared"
                say(row, f"run {i + 1} ({name})")
                times[name].append(row)
                rows.append(row)
    ratios = [a["seconds"] / b["seconds"] for a, b in zip(times["this"], times["base"])]
    for name, rs in times.items():
        med = statistics.median(r["seconds"] for r in rs)
        tests = statistics.median(r["passed"] + r["failed"] for r in rs)
        print(f"{name}: median {med / 60:.1f} min ({med:.0f} s), {tests:.0f} tests, "
              f"{med / max(tests, 1):.3f} s per test")
    print(f"this / base: x{statistics.median(ratios):.2f} (pairs x{min(ratios):.2f} – "
          f"x{max(ratios):.2f})")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", choices=["default", "slow", "ci"], default="default")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--against", type=Path, default=None, metavar="PATH",
                    help="another tree (a worktree of another commit) to time in turn")
    ap.add_argument("--shared", action="store_true",
                    help="with --against: only the tests both trees collect")
    ap.add_argument("--record", action="store_true", help=f"add the runs to {RECORD.name}")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    if args.shared and (args.against is None or args.suite != "default"):
        ap.error("--shared goes with --against and the default suite")
    if args.against is not None:
        if not (args.against / "fishing2sim").is_dir():
            ap.error(f"--against {args.against}: not a fishing2sim tree")
        rows = against(args.suite, args.against.resolve(), args.repeats, args.shared)
        if args.record:
            record(rows)
            print(f"recorded in {RECORD.relative_to(ROOT)}")
        return max(r["exit"] for r in rows)
    rows = []
    for i in range(args.repeats):
        row = run_once(args.suite)
        rows.append(row)
        say(row, f"run {i + 1} ({args.suite})")
    if len(rows) > 1:
        print(f"median: {statistics.median(r['seconds'] for r in rows) / 60:.1f} min")
    if args.record:
        record(rows)
        print(f"recorded in {RECORD.relative_to(ROOT)}")
    return max(r["exit"] for r in rows)


if __name__ == "__main__":
    raise SystemExit(main())
