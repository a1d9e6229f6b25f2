"""The skill panel's cost: one shipped panel experiment (default card_counts.yaml, four
levels: random, greedy, skilled, search) run with 2 workers, its wall time, and the 95% CI
half-widths it reached per level (each condition's overfishing share, and each deck
contrast of overfishing).

    python benchmarks/bench_panel.py                       # experiments/card_counts.yaml
    python benchmarks/bench_panel.py experiments/deck_balance.yaml --workers 2

The run writes its report into a temporary folder (removed afterwards unless --keep DIR).
The machine's load average is printed beside the time: the figure is only comparable on a
quiet machine.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace


ROOT = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the workers)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed_run(default: Path, prefix: str) -> SimpleNamespace:
    """What this benchmark and bench_main_job.py share: the command line (an experiment
    file, default ``default``; --workers, 2; --keep DIR), the run into a new temporary
    folder whose name starts with ``prefix`` (or into DIR), its wall and CPU time and the
    load average before and after. Returns args, res (the results), wall and cpu (s), load0
    and load1, games, out."""
    ap = argparse.ArgumentParser()
    ap.add_argument("experiment", nargs="?", default=str(default))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", default=None, help="keep the report in this folder")
    args = ap.parse_args()
    from fishing2sim.study import run

    out = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix=prefix))
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    c0 = _cpu()
    res = run(args.experiment, workers=args.workers, progress=False,
              overrides={"output": str(out)})
    wall = time.perf_counter() - t0
    cpu = _cpu() - c0
    return SimpleNamespace(args=args, res=res, wall=wall, cpu=cpu, load0=load0,
                           load1=os.getloadavg(), out=out,
                           games=res.meta.get("games_played_now", res.meta.get("games")))


def main() -> int:
    t = timed_run(ROOT / "experiments" / "card_counts.yaml", "bench-panel-")
    args, res, wall, cpu, load0, load1, games, out = (
        t.args, t.res, t.wall, t.cpu, t.load0, t.load1, t.games, t.out)
    exp = res.exp if hasattr(res, "exp") else None
    tables = res.tables
    ovf = tables["overfishing"]
    ovf = ovf[(ovf["metric"] == "overfished_share") & ovf["round"].isna()]
    con = tables.get("contrasts")
    print(f"{Path(args.experiment).name}: {wall / 60:.1f} min wall, {args.workers} workers, "
          f"{games:,} games; load average {load0[0]:.2f} before, {load1[0]:.2f} after")
    print(f"CPU time {cpu / 60:.1f} min (this process and its workers): on {args.workers} "
          f"free cores at least {cpu / args.workers / 60:.1f} min wall")
    print("| level | games per condition | overfishing CI half-width (pp, widest) | "
          "overfishing contrast CI half-width (pp, widest) |")
    print("|---|---:|---:|---:|")
    for lv in dict.fromkeys(ovf["level"]):
        o = ovf[ovf["level"] == lv]
        hw = ((o["ci_high"] - o["ci_low"]) / 2).max() * 100
        n = int(o["n"].max())
        chw = float("nan")
        if con is not None and len(con):
            c = con[(con["figure"] == "overfishing") & (con["level"] == lv)]
            if len(c):
                chw = ((c["diff_ci_high"] - c["diff_ci_low"]) / 2).max() * 100
        print(f"| {lv} | {n:,} | {hw:.2f} | {chw:.2f} |")
    if not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    del exp
    return 0


if __name__ == "__main__":
    sys.exit(main())
