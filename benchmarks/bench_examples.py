"""The cost of the example games (run/examples.py): one experiment run with `examples: 3`
(the default) and with `examples: 0`, measured alternately in one process (the kernels
compiled before the first timing), the medians and their ratio.

    python benchmarks/bench_examples.py                      # 20,000 games, 5 pairs
    python benchmarks/bench_examples.py --games 50000 --repeats 7 --players 5

The run is the default analyses (depletion, overfishing, trump_value, strategies) with
random seats, in this process (1 worker), without writing the report: the games, the
totals, the example rows and the tables, which is where the examples cost anything.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import textwrap
import time
from pathlib import Path


def experiment(folder: Path, games: int, players: int, examples: int) -> Path:
    path = folder / f"bench_examples_{examples}.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: bench_examples_{examples}
        players: {players}
        games: {games}
        chunk: 2000
        seed: 1
        seats: random
        examples: {examples}
        output: {folder / 'reports'}
    """))
    return path


def timed(path: Path) -> float:
    from fishing2sim.study import run

    t = time.perf_counter()
    run(path, workers=1, progress=False, write=False)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        paths = {k: experiment(Path(d), a.games, a.players, k) for k in (3, 0)}
        for k in (3, 0):  # compile (or load the cache) and warm up, untimed
            experiment(Path(d) / "warm", 200, a.players, k)
            timed(experiment(Path(d) / "warm", 200, a.players, k))
        times: dict = {3: [], 0: []}
        for i in range(a.repeats):  # alternately, the order swapped every pair
            for k in ((3, 0) if i % 2 == 0 else (0, 3)):
                times[k].append(timed(paths[k]))
    with_ex, without = statistics.median(times[3]), statistics.median(times[0])
    print(f"{a.games:,} games, {a.players} players, random seats, default analyses, "
          f"1 worker, {a.repeats} runs each (alternating)")
    print(f"with examples (examples: 3): median {with_ex:.2f} s  "
          f"({', '.join(f'{t:.2f}' for t in times[3])})")
    print(f"without (examples: 0):       median {without:.2f} s  "
          f"({', '.join(f'{t:.2f}' for t in times[0])})")
    print(f"ratio with / without: {with_ex / without:.3f}")


if __name__ == "__main__":
    main()
