"""The time of experiments/cards.yaml (analyses: [cards]) and the precision it
reaches: the whole run (its games, tables and report, in a temporary folder) with the
given workers, its wall time, the number of deals and of games played (each deal once with
the standard deck and once without each card), and the widest 95% CI half-width of the
cards' overfishing effects (the target: 1 percentage point). Also the load average before
and after, since other work on a shared machine slows the run.

    python benchmarks/bench_cards.py                 # experiments/cards.yaml, 2 workers
    python benchmarks/bench_cards.py --workers 1 --file my_cards.yaml

Prints one JSON line.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=str(ROOT / "experiments" / "cards.yaml"))
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    from fishing2sim.study import run

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        res = run(args.file, workers=args.workers, progress=False, overrides={"output": d})
        seconds = time.perf_counter() - t
        ranked = res.tables["cards_ranked"]
    hw = (ranked["overfishing_effect_ci_high"] - ranked["overfishing_effect_ci_low"]) / 2
    deals = ranked.groupby("condition")["n"].max()
    cards = ranked.groupby("condition")["card"].count()
    games = int(sum(deals[c] * (1 + cards[c]) for c in deals.index))
    print(json.dumps({
        "file": str(args.file), "workers": args.workers, "seconds": round(seconds, 1),
        "deals": {int(c): int(v) for c, v in deals.items()},
        "cards": {int(c): int(v) for c, v in cards.items()}, "games": games,
        "widest_overfishing_half_width_pp": round(float(hw.max()) * 100, 3),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}))


if __name__ == "__main__":
    main()
