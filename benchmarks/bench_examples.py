"""The cost of the example games (run/examples.py): one experiment run with `examples: 3`
(the default) and with `examples: 0`, measured alternately in one process (the kernels
compiled before the first timing), the medians and their ratio.

    python benchmarks/bench_examples.py --games 8000 --repeats 7
    python benchmarks/bench_examples.py --games 200000 --repeats 7 --analyses overfishing
    python benchmarks/bench_examples.py --file experiments/trump.yaml --repeats 1

With ``--file`` the run is that experiment file as a user runs it (its own seats, the
report written, ``--workers`` processes), once with its examples (its own ``examples:``,
default 3) and once with ``examples: 0``, alternately: this counts the report's replays of
the example games (report/replay.py, the bots' reasons of each group's first game) as
well as the selection, and the script times the replays' own step (``build_examples``).

The run is the default analyses (depletion, overfishing, trump_value, strategies) with
random seats, in this process (1 worker), without writing the report: the games, the
totals, the example rows and the tables, which is where the examples cost anything. On a
shared machine two runs' wall times differ by more than the examples cost, so the script
also times the examples' own step in every chunk (run/chunks.py ``_examples``, the
selection on the kernels' output) and gives its share of the run's wall time.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import textwrap
import time
from pathlib import Path


def experiment(folder: Path, games: int, players: int, examples: int,
               analyses: str | None = None, chunk: int = 10_000) -> Path:
    path = folder / f"bench_examples_{examples}.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: bench_examples_{examples}
        players: {players}
        games: {games}
        chunk: {chunk}
        seed: 1
        seats: random
        examples: {examples}
        output: {folder / 'reports'}
    """) + (f"analyses: [{analyses}]\n" if analyses else ""))
    return path


SPENT = [0.0]  # seconds in the examples' own step (run/chunks.py _examples)


def count_examples_time() -> None:
    from fishing2sim.run import chunks

    inner = chunks._examples

    def timed_examples(*args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            SPENT[0] += time.perf_counter() - t

    chunks._examples = timed_examples


def timed(path: Path) -> float:
    """One run's wall time (its checkpoints, written as in any run, removed afterwards)."""
    from fishing2sim.study import run

    t = time.perf_counter()
    run(path, workers=1, progress=False, write=False)
    elapsed = time.perf_counter() - t
    shutil.rmtree(path.parent / "reports" / ".checkpoints")
    return elapsed


REPLAY = [0.0]  # seconds in the report's replays (report/replay.py build_examples)


def count_replay_time() -> None:
    from fishing2sim.report import replay

    inner = replay.build_examples

    def timed_build(*args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            REPLAY[0] += time.perf_counter() - t

    replay.build_examples = timed_build


def file_mode(a) -> None:
    """--file: the experiment with and without its examples, the report written."""
    import resource

    import yaml

    from fishing2sim.study import run

    count_examples_time()
    count_replay_time()
    text = Path(a.file).read_text()
    times: dict = {"with": [], "without": []}
    cpu: dict = {"with": [], "without": []}
    with tempfile.TemporaryDirectory() as d:
        paths = {}
        for k in ("with", "without"):
            cfg = yaml.safe_load(text)
            if k == "without":
                cfg["examples"] = 0
            cfg["output"] = str(Path(d) / k)
            paths[k] = Path(d) / Path(a.file).name.replace(".yaml", f"_{k}.yaml")
            paths[k].write_text(yaml.safe_dump(cfg, sort_keys=False))
        overrides = {"games": a.games} if a.games_given else None
        for i in range(a.repeats):
            for k in (("with", "without") if i % 2 == 0 else ("without", "with")):
                c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                p0, t = time.process_time(), time.perf_counter()
                run(paths[k], workers=a.workers, progress=False, overrides=overrides,
                    in_process=a.workers == 1)
                times[k].append(time.perf_counter() - t)
                c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[k].append(time.process_time() - p0 + c1.ru_utime + c1.ru_stime
                              - c0.ru_utime - c0.ru_stime)
        size = {k: (Path(d) / k / yaml.safe_load(text)["name"] / "report.html").stat().st_size
                for k in ("with", "without")}
    w, wo = statistics.median(times["with"]), statistics.median(times["without"])
    cw, cwo = statistics.median(cpu["with"]), statistics.median(cpu["without"])
    print(f"{a.file}{f' --games {a.games:,}' if a.games_given else ''}, {a.workers} workers, "
          f"{a.repeats} run(s) each (alternating), the report written")
    print(f"with examples: wall {w:.1f} s, CPU {cw:.1f} s; without: wall {wo:.1f} s, "
          f"CPU {cwo:.1f} s; ratio wall {w / wo:.3f}, CPU {cw / cwo:.3f}")
    print(f"the selection's own step {SPENT[0] / a.repeats:.2f} s a run; the report's "
          f"replays {REPLAY[0] / a.repeats:.1f} s a run ({100 * REPLAY[0] / a.repeats / w:.1f}%"
          " of the run's wall time)")
    print(f"report.html: {size['with'] / 1e6:.2f} MB with examples, "
          f"{size['without'] / 1e6:.2f} MB without (+{(size['with'] - size['without']) / 1e6:.2f}"
          " MB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--chunk", type=int, default=10_000)
    ap.add_argument("--analyses", default=None,
                    help="e.g. 'overfishing' (the cheapest games: the examples' largest "
                         "share); default: the default analyses")
    ap.add_argument("--file", default=None, help="an experiment file, run as a user runs it")
    ap.add_argument("--workers", type=int, default=2, help="with --file")
    a = ap.parse_args()
    a.games_given = "--games" in __import__("sys").argv
    if a.file:
        return file_mode(a)
    count_examples_time()
    with tempfile.TemporaryDirectory() as d:
        paths = {k: experiment(Path(d), a.games, a.players, k, a.analyses, a.chunk)
                 for k in (3, 0)}
        (Path(d) / "warm").mkdir()
        for k in (3, 0):  # compile (or load the cache) and warm up, untimed
            timed(experiment(Path(d) / "warm", 200, a.players, k, a.analyses, a.chunk))
        times: dict = {3: [], 0: []}
        SPENT[0] = 0.0
        for i in range(a.repeats):  # alternately, the order swapped every pair
            for k in ((3, 0) if i % 2 == 0 else (0, 3)):
                times[k].append(timed(paths[k]))
    with_ex, without = statistics.median(times[3]), statistics.median(times[0])
    print(f"{a.games:,} games, {a.players} players, random seats, analyses: "
          f"{a.analyses or 'the default'}, chunk {a.chunk:,}, 1 worker, {a.repeats} runs each "
          "(alternating)")
    print(f"with examples (examples: 3): median {with_ex:.2f} s  "
          f"({', '.join(f'{t:.2f}' for t in times[3])})")
    print(f"without (examples: 0):       median {without:.2f} s  "
          f"({', '.join(f'{t:.2f}' for t in times[0])})")
    print(f"ratio with / without: {with_ex / without:.3f}")
    own = SPENT[0] / a.repeats
    print(f"the examples' own step: {own * 1000:.1f} ms a run, "
          f"{100 * own / with_ex:.2f}% of the run's median wall time")


if __name__ == "__main__":
    main()
