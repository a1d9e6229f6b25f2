"""pimc's horizon: pimc rolling out to the end of the game (benchmarks/bots/pimc_game.py),
or another bot (--bot, e.g. benchmarks/bots/pimc_value.py: the learned rest of the game),
against pimc rolling out to the end of the round (the shipped default), head to head; or
any bot against any other (--opponent, e.g. --bot cheater --opponent ismcts: what seeing
every hand is worth to the same search).

    python benchmarks/bench_horizon.py [--deals 200] [--workers 2] [--seed 31] [--bot FILE]
                                       [--opponent pimc]

4 players of Fishing 2, [A, A, B, B] seat-rotated: each deal played 4 times, A's two seats
moving one seat a time. The deals are split into --workers blocks, block i on seed
--seed + i, one process each. Prints A's share of the games (a win shared between an A and
a B seat counts by its share) with its 95% CI over deals (a deal's 4 rotations are one
observation), and the wall time."""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from fishing2sim.run.processes import pool_map

BOT = str(Path(__file__).resolve().parent / "bots" / "pimc_game.py")


def block(seed: int, deals: int, bot: str = BOT, opponent: str = "pimc") -> np.ndarray:
    """A's share of each deal's 4 games (mean over the rotations), deal by deal."""
    from fishing2sim.api import run_games
    from fishing2sim.train.evaluate import G_WINNERS, _shares

    per_deal = np.zeros(deals)
    for r in range(4):
        lineup = [bot if (i - r) % 4 < 2 else opponent for i in range(4)]
        seats = [i for i in range(4) if lineup[i] == bot]
        a = run_games(deals, 4, seed=seed, strategies=lineup)
        per_deal += _shares(a["int"][:, G_WINNERS], seats) / 4
    return per_deal


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--bot", default=BOT, help="the bot A (default: pimc_game)")
    ap.add_argument("--opponent", default="pimc", help="the bot B (default: pimc)")
    a = ap.parse_args(argv)
    t = time.perf_counter()
    w = max(1, a.workers)
    sizes = [a.deals // w + (1 if i < a.deals % w else 0) for i in range(w)]
    x = np.concatenate(pool_map(block, [(a.seed + i, sizes[i], a.bot, a.opponent)
                                        for i in range(w)], w))
    m = float(x.mean())
    half = 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))
    print(f"{Path(a.bot).stem} against {Path(a.opponent).stem}, [A, A, B, B], "
          f"{4 * len(x)} games ({len(x)} deals x 4 rotations): {m:.3f} "
          f"[{m - half:.3f}, {m + half:.3f}] of the games; {time.perf_counter() - t:.0f} s "
          f"on {w} processes")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # its processes ended with the pool: nothing is left running
        print("stopped: what is printed above is all that was measured", file=sys.stderr)
        raise SystemExit(130)
