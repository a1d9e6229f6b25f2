"""How well `fishing2sim run FILE --plan` foretells the run (docs/reference.md, "A plan
before the run"): for each file, the plan (its pilot, in this process), then the run itself
(the same file, ``--workers`` processes, no report written), and the ratios

- planned CPU seconds / the run's own (this process's and its workers', measured with
  ``time.process_time`` and ``resource.getrusage(RUSAGE_CHILDREN)``; compile and report
  writing are in neither);
- planned wall seconds / the run's own play time (meaningful on a quiet machine only: the
  plan assumes free cores);
- planned / the run's own 95% half-width, for every headline figure the plan names
  (median, smallest, largest and the share within ±30%).

    python benchmarks/plan_accuracy.py experiments/trump.yaml experiments/depletion.yaml
    python benchmarks/plan_accuracy.py FILE --games 20000 --workers 2

One JSON line per file.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fishing2sim import plan as planning  # noqa: E402
from fishing2sim.config.experiment import load_experiment, shipped_experiment  # noqa: E402
from fishing2sim.study import run  # noqa: E402


def _own_widths(tables: dict, exp) -> dict:
    """(figure words, unit, condition) -> the run's own half-width, in the plan's units."""
    out = {}
    for table, metric, words, factor, unit, (_, lo, hi) in planning.FIGURES:
        df = tables.get(table)
        if df is None or not hasattr(df, "columns") or lo not in df.columns:
            continue
        for _, r in planning.headline_rows(df, metric).iterrows():
            c = planning.condition_of(r, exp)
            if c is None:
                continue
            row_unit = unit or str(r.get("unit", ""))
            k = 100.0 if unit is None and row_unit == "pp" else factor
            label = words if unit is not None else f"{words} ({r.get('figure', '')})"
            out[(label, row_unit, c)] = (float(r[hi]) - float(r[lo])) / 2 * k
    return out


def check(path: str, games: int | None, workers: int, budget: float) -> dict:
    overrides = {"games": games} if games else {}
    exp = load_experiment(shipped_experiment(path), overrides)
    t0 = time.perf_counter()
    p = planning.make_plan(exp, workers, budget=budget)
    plan_s = time.perf_counter() - t0
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0 = time.process_time()
    res = run(exp, workers=workers, progress=False, write=False, in_process=False)
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (time.process_time() - cpu0) + (c1.ru_utime + c1.ru_stime - c0.ru_utime
                                          - c0.ru_stime)
    own = _own_widths(res.tables, exp)
    pairs = [(f"{label}, in {unit}", c, hw, own[(label, unit, c)])
             for label, unit, _, c, hw in p.widths if own.get((label, unit, c), 0) > 0]
    ratios = [hw / o for _, _, hw, o in pairs]
    outside = [{"figure": label, "condition": c, "planned": round(hw, 4), "own": round(o, 4)}
               for label, c, hw, o in pairs if not 0.7 <= hw / o <= 1.3]
    play_s = res.meta.get("play_s") or res.meta.get("elapsed_s")
    return {
        "file": Path(path).name, "games_override": games, "workers": workers,
        "load": round(os.getloadavg()[0], 1), "plan_seconds": round(plan_s, 1),
        "planned_cpu_s": round(p.cpu_seconds, 1), "run_cpu_s": round(cpu, 1),
        "cpu_ratio": round(p.cpu_seconds / cpu, 3) if cpu else None,
        "planned_wall_s": round(p.wall_seconds(), 1), "run_play_s": play_s,
        "wall_ratio": round(p.wall_seconds() / play_s, 3) if play_s else None,
        "widths": len(ratios),
        "width_ratio_median": round(statistics.median(ratios), 3) if ratios else None,
        "width_ratio_min": round(min(ratios), 3) if ratios else None,
        "width_ratio_max": round(max(ratios), 3) if ratios else None,
        "width_within_30pct": round(sum(0.7 <= r <= 1.3 for r in ratios) / len(ratios), 3)
        if ratios else None,
        "outside_30pct": outside,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--budget", type=float, default=10.0, help="the pilot's CPU seconds")
    a = ap.parse_args()
    for f in a.files:
        print(json.dumps(check(f, a.games, a.workers, a.budget)), flush=True)


if __name__ == "__main__":
    main()
