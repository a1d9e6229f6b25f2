"""The main job's cost and what it answers: ``experiments/trump.yaml`` (a skill panel:
random, greedy and skilled seats, every trump choice replayed) run with 2 workers, its wall
and CPU time, and per level the games, the pooled trump figures with their 95% CI
half-widths (what a perfect chooser would gain, at least and at most, and what the seats'
own choices gain, in points and in win chance).

    python benchmarks/bench_main_job.py                  # experiments/trump.yaml, 2 workers
    python benchmarks/bench_main_job.py --workers 2 --keep /tmp/trump-report

The report goes to a temporary folder (removed afterwards unless --keep DIR). The numba
cache should be warm (run the file once first): the figure is the run's, not the compile's.
The load average is printed beside the time: on a shared machine the wall time is only an
upper bound; the CPU time over the workers is the figure that carries over (on 2 free
cores the wall time is about CPU / 2 plus the report).
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_panel import timed_run  # noqa: E402  (the run and its times)


METRICS = (("stakes_half_low_points", "perfect chooser, at least (points)", 1.0),
           ("stakes_half_points", "perfect chooser, at most (points)", 1.0),
           ("policy_gain_points", "own choices (points)", 1.0),
           ("stakes_half_low_win", "perfect chooser, at least (pp of win chance)", 100.0),
           ("stakes_half_win", "perfect chooser, at most (pp of win chance)", 100.0),
           ("policy_gain_win", "own choices (pp of win chance)", 100.0))


def main() -> int:
    t = timed_run(ROOT / "experiments" / "trump.yaml", "bench-main-")
    args, res, wall, cpu, load0, load1, games, out = (
        t.args, t.res, t.wall, t.cpu, t.load0, t.load1, t.games, t.out)
    print(f"{Path(args.experiment).name}: {wall:.0f} s wall, {args.workers} workers, "
          f"{games:,} games; load average {load0[0]:.2f} before, {load1[0]:.2f} after")
    print(f"CPU time {cpu:.0f} s (this process and its workers): on {args.workers} free "
          f"cores about {cpu / args.workers:.0f} s wall")
    tv = res.tables["trump_value"]
    pooled = tv[tv["round"].isna()]
    print("| level | games | " + " | ".join(m[1] for m in METRICS) + " |")
    print("|---|---:|" + "---:|" * len(METRICS))
    for lv in dict.fromkeys(pooled["level"]):
        p = pooled[pooled["level"] == lv].set_index("metric")
        n = int(p.loc["mean_final_points", "n"])
        cells = []
        for metric, _, scale in METRICS:
            r = p.loc[metric]
            hw = (r.ci_high - r.ci_low) / 2 * scale
            cells.append(f"{r.estimate * scale:.2f} ±{hw:.2f}")
        print(f"| {lv} | {n:,} | " + " | ".join(cells) + " |")
    if not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
