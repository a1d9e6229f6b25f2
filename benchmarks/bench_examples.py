"""The cost of the example games (run/examples.py): one experiment run with `examples: 3`
(the default) and with `examples: 0`, measured alternately in one process (the kernels
compiled before the first timing), the medians and their ratio.

    python benchmarks/bench_examples.py --games 8000 --repeats 7
    python benchmarks/bench_examples.py --games 200000 --repeats 7 --analyses overfishing

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--chunk", type=int, default=10_000)
    ap.add_argument("--analyses", default=None,
                    help="e.g. 'overfishing' (the cheapest games: the examples' largest "
                         "share); default: the default analyses")
    a = ap.parse_args()
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
