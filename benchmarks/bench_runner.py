"""Runner figures: throughput against the raw engine, scaling with workers, peak memory,
and the wall time of the shipped trump experiment.

    python benchmarks/bench_runner.py                  # all figures (several minutes)
    python benchmarks/bench_runner.py --games 1000000 --memory-games 100000 10000000

Every figure is measured in this one run; speeds are medians over repeats.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def experiment(folder: Path, games: int, chunk: int = 20000) -> Path:
    path = folder / "bench.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: bench
        players: 4
        games: {games}
        chunk: {chunk}
        seed: 1
        seats: random
        analyses: [depletion, overfishing, strategies]
        output: {folder / 'reports'}
    """))
    return path


def runner_rate(games: int, workers: int, scheduler: str | None = None) -> float:
    from fishing2sim.study import run

    with tempfile.TemporaryDirectory() as d:
        path = experiment(Path(d), games)
        t = time.perf_counter()
        run(path, workers=workers, progress=False, write=False, scheduler=scheduler)
        return games / (time.perf_counter() - t)


def dask_rates(games: int, repeats: int) -> tuple[float, float]:
    """games/s on a local Dask cluster of 1 and of 2 worker processes."""
    from distributed import LocalCluster

    out = []
    for n in (1, 2):
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                          dashboard_address=None) as c:
            runner_rate(20_000, 0, c.scheduler_address)  # workers load their caches
            out.append(statistics.median(runner_rate(games, 0, c.scheduler_address)
                                         for _ in range(repeats)))
    return out[0], out[1]


def engine_rate(games: int) -> float:
    from fishing2sim.api import run_games

    run_games(10, 4, seed=0)
    t = time.perf_counter()
    run_games(games, 4, seed=1)
    return games / (time.perf_counter() - t)


PEAK = textwrap.dedent("""\
    import resource, sys, tempfile, pathlib
    sys.path.insert(0, {root!r})
    from benchmarks.bench_runner import experiment
    from fishing2sim.study import run
    with tempfile.TemporaryDirectory() as d:
        run(experiment(pathlib.Path(d), {games}), workers={workers}, progress=False)
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(me, kids)
""")


def peak_memory(games: int, workers: int) -> tuple[float, float]:
    """Peak RSS (MiB) of the runner's process and of its largest worker, in a fresh process."""
    out = subprocess.run([sys.executable, "-c", PEAK.format(root=str(ROOT), games=games,
                                                             workers=workers)],
                         capture_output=True, text=True, check=True)
    me, kids = out.stdout.split()
    return int(me) / 1024, int(kids) / 1024


def trump_wall_time() -> float:
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "fishing2sim.cli", "run",
                        str(ROOT / "experiments" / "trump.yaml"), "--output", d, "--no-progress"],
                       check=True, capture_output=True)
        return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--memory-games", type=int, nargs="*", default=[100_000, 1_000_000])
    ap.add_argument("--skip-trump", action="store_true")
    ap.add_argument("--dask-games", type=int, default=200_000,
                    help="games of the Dask comparison (0: skip it)")
    args = ap.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    rows = []
    runner_rate(20_000, 1)  # warm the caches
    eng, one, two = [], [], []
    for _ in range(args.repeats):
        eng.append(engine_rate(min(args.games, 200_000)))
        one.append(runner_rate(args.games, 1))
        two.append(runner_rate(args.games, 2))
    e, o, t = (statistics.median(x) for x in (eng, one, two))
    rows += [("engine, raw, one core (games/s)", f"{e:,.0f}"),
             (f"runner, {args.games:,} games, 1 worker (games/s)", f"{o:,.0f}"),
             ("runner 1 worker / raw engine", f"{o / e:.2f}"),
             (f"runner, {args.games:,} games, 2 workers (games/s)", f"{t:,.0f}"),
             ("2 workers / 1 worker", f"{t / o:.2f}")]
    if args.dask_games:
        d1, d2 = dask_rates(args.dask_games, args.repeats)
        local2 = statistics.median(runner_rate(args.dask_games, 2) for _ in range(args.repeats))
        rows += [(f"Dask, {args.dask_games:,} games, 1 worker (games/s)", f"{d1:,.0f}"),
                 (f"Dask, {args.dask_games:,} games, 2 workers (games/s)", f"{d2:,.0f}"),
                 ("Dask 2 workers / Dask 1 worker", f"{d2 / d1:.2f}"),
                 (f"local runner, {args.dask_games:,} games, 2 processes (games/s)",
                  f"{local2:,.0f}"),
                 ("Dask 2 workers / local 2 processes", f"{d2 / local2:.2f}")]
    for g in args.memory_games:
        me, kid = peak_memory(g, 2)
        rows.append((f"peak RSS, {g:,} games, 2 workers: runner / largest worker",
                     f"{me:.0f} MiB / {kid:.0f} MiB"))
    if not args.skip_trump:
        rows.append(("`fishing2sim run experiments/trump.yaml` (warm cache, all cores)",
                     f"{trump_wall_time():.0f} s"))
    print("| figure (median of %d repeats) | value |" % args.repeats)
    print("|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")


if __name__ == "__main__":
    main()
