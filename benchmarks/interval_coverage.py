"""Coverage of the reports' 95% intervals, measured by simulation: for each setting, how often
the interval an estimator of the reports gives contains the true value, with that coverage's
own 95% Wilson interval. Each setting lives in a module beside this one (``coverage_*.py``)
that lists its cases in ``CASES``: ``(name, what, run)``, where ``run(reps, seed)`` returns
``(covered, total)``, or ``(name, what, run, goal)`` with a case's own goal (low, high): (0.93,
1.0) where no interval that covers at every value of the unknowns can come below 0.97 (counts
of a handful of events, whose intervals are conservative by necessity; said in ``what``).

    python benchmarks/interval_coverage.py                       # every case, default repetitions
    python benchmarks/interval_coverage.py --reps 2000 --only cards

A reported 95% interval passes where its coverage's own interval reaches into 0.93-0.97 (or
into its case's own goal).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOAL = (0.93, 0.97)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of k successes in n trials."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def case_modules() -> list:
    """Every ``coverage_*.py`` module beside this script, by name, loaded from its file.
    (This script is not named coverage.py: run from this folder, that name would shadow the
    ``coverage`` package numba's import looks for.)"""
    import importlib.util

    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
    out = []
    for path in sorted(HERE.glob("coverage_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        out.append(module)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=1000, help="simulated data sets per case")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    args = ap.parse_args(argv)
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    print(f"{'case':44s} {'coverage':>8s}  {'its 95% CI':>15s}  {'reps':>6s}  verdict  time")
    failed = 0
    for module in case_modules():
        for name, what, run, *own in module.CASES:
            if args.only and args.only not in name:
                continue
            goal = own[0] if own else GOAL
            t0 = time.perf_counter()
            covered, total = run(args.reps, args.seed)
            lo, hi = wilson(covered, total)
            ok = hi >= goal[0] and lo <= goal[1]
            failed += not ok
            print(f"{name:44s} {covered / total:8.3f}  [{lo:.3f}, {hi:.3f}]  {total:6d}  "
                  f"{'ok' if ok else 'OFF':7s}  {time.perf_counter() - t0:5.1f} s")
            print(f"    {what}" + ("" if goal == GOAL else
                                   f" (goal: {goal[0]:.2f}-{goal[1]:.2f})"))
    print("every case within its goal (0.93-0.97 unless said)" if not failed else
          f"{failed} case(s) outside their goal")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
