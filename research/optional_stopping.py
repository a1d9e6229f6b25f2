"""What does a precision-driven run's optional stopping do to the coverage of its 95% CIs?

A precision run looks at its figures after each batch and stops once every 95% CI
half-width is at most its target (runner.grow_games decides how many games come next).
The looks depend on the data, so the final CI is not a fixed-sample CI. This simulation
plays the rule on shares of games (an overfishing-like share p, Wilson intervals, as the
runner reports them) with the runner's own rule, and counts how often the final CI covers
the true p, against a fixed-sample run of about the same length.

    python research/optional_stopping.py                 # 4,000 runs per case
    python research/optional_stopping.py --runs 20000

The figures are in docs/experiments.md ("Precision-driven runs").
"""
from __future__ import annotations

import argparse

import numpy as np

from fishing2sim.analysis.stopping import grow_games
from fishing2sim.analysis.stats import wilson


def one_run(rng, p, first, step, target, cap):
    n = first
    k = int(rng.binomial(n, p))
    while True:
        est, lo, hi = wilson(k, n)
        hw = (hi - lo) / 2
        nxt = min(grow_games(n, step, hw / target), cap)
        if nxt <= n:
            return est, lo, hi, n
        k += int(rng.binomial(nxt - n, p))
        n = nxt


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print("| true share | target | first batch | runs | mean games | covered (optional "
          "stopping) | covered (fixed games) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for p, target, first in ((0.60, 0.005, 2000), (0.10, 0.005, 2000), (0.02, 0.002, 1000),
                             (0.60, 0.01, 500)):
        step = 500 if first >= 1000 else 100
        cover, ns = 0, []
        for _ in range(args.runs):
            est, lo, hi, n = one_run(rng, p, first, step, target, 400_000)
            cover += lo <= p <= hi
            ns.append(n)
        fixed_n = int(np.mean(ns))
        k = rng.binomial(fixed_n, p, size=args.runs)
        fixed = sum(lo <= p <= hi for lo, hi in (wilson(x, fixed_n)[1:] for x in k))
        print(f"| {p:.2f} | {target * 100:g} pp | {first:,} | {args.runs:,} | {np.mean(ns):,.0f} "
              f"| {cover / args.runs:.3f} | {fixed / args.runs:.3f} |")


if __name__ == "__main__":
    main()
