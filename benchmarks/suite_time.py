"""How long does the README's test command take here? Runs the default suite (what
`python -m pytest -q` runs: the slow tests are left out) a few times and reports each wall
time with the machine's load average before and after, so a figure measured on a shared
machine says how shared it was. The engine's compiled kernels are reused from numba's cache;
a first run on a fresh install adds the one-off compile (benchmarks/first_minute.py).

    python benchmarks/suite_time.py               # one run
    python benchmarks/suite_time.py --repeats 3   # the median of three
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args(argv)
    times = []
    for i in range(args.repeats):
        before = os.getloadavg()[0]
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                           cwd=ROOT, capture_output=True, text=True)
        dt = time.perf_counter() - t0
        after = os.getloadavg()[0]
        last = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
        print(f"run {i + 1}: {dt / 60:.1f} min ({dt:.0f} s), load average {before:.1f} -> "
              f"{after:.1f}, exit {r.returncode}: {last}", flush=True)
        times.append(dt)
    if len(times) > 1:
        print(f"median: {statistics.median(times) / 60:.1f} min")


if __name__ == "__main__":
    main()
