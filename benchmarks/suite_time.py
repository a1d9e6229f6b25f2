"""How long does the test suite take here? Runs it and records each run's wall time, with
the machine's load average before and after (so a figure measured on a shared machine says
how shared it was), in one generated file, docs/test-times.csv, which the docs link to
instead of re-typing its figures.

    python benchmarks/suite_time.py                      # the default suite, compiled code cached
    python benchmarks/suite_time.py --repeats 3          # three runs and their median
    python benchmarks/suite_time.py --suite slow         # the slow tests, one at a time
    python benchmarks/suite_time.py --suite ci           # all of .ci/run in a fresh clone of HEAD
    python benchmarks/suite_time.py --record             # ... and add the runs to docs/test-times.csv

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
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
SUITES = {"default": PYTEST, "slow": PYTEST + ["-m", "slow", "-n", "0"]}


def counts(output: str) -> tuple[int, int]:
    """The passed and failed counts of pytest's closing lines (summed over a .ci/run's two
    runs); 0 where none is printed."""
    passed = sum(int(n) for n in re.findall(r"(\d+) passed", output))
    failed = sum(int(n) for n in re.findall(r"(\d+) failed", output))
    return passed, failed


def run_once(suite: str) -> dict:
    """One run of the suite; its row for the record."""
    with tempfile.TemporaryDirectory() as tmp:
        if suite == "ci":
            cwd = Path(tmp) / "clone"
            subprocess.run(["git", "clone", "-q", str(ROOT), str(cwd)], check=True)
            cmd = ["bash", ".ci/run"]
        else:
            cwd, cmd = ROOT, SUITES[suite]
        before = os.getloadavg()[0]
        t0 = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                           env={**os.environ, "CI": "true"} if suite == "ci" else None)
        dt = time.perf_counter() - t0
    passed, failed = counts(r.stdout)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", choices=["default", "slow", "ci"], default="default")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--record", action="store_true", help=f"add the runs to {RECORD.name}")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    rows = []
    for i in range(args.repeats):
        row = run_once(args.suite)
        rows.append(row)
        print(f"run {i + 1} ({args.suite}): {row['seconds'] / 60:.1f} min ({row['seconds']} s), "
              f"load average {row['load_before']} -> {row['load_after']}, exit {row['exit']}: "
              f"{row['passed']} passed, {row['failed']} failed", flush=True)
    if len(rows) > 1:
        print(f"median: {statistics.median(r['seconds'] for r in rows) / 60:.1f} min")
    if args.record:
        record(rows)
        print(f"recorded in {RECORD.relative_to(ROOT)}")
    return max(r["exit"] for r in rows)


if __name__ == "__main__":
    raise SystemExit(main())
