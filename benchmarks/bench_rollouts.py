"""Rollouts per second from mid-game states (api.game_state / api.rollout), one core.

    python benchmarks/bench_rollouts.py                  # prints a markdown table
    python benchmarks/bench_rollouts.py --states 50 --rollouts 400 --repeats 5

The states are 4-player Fishing 2 games stopped after round 3 (of 8), one per game number;
from each, ``--rollouts`` rollouts on fresh streams to the end of the next round and to the
end of the game. Medians over repeats in one run; also the fixed cost of one rollout call.
"""
from __future__ import annotations

import argparse
import statistics
import time


def measure(states, lineup, to, rollouts, repeats):
    from fishing2sim.api import rollout

    rollout(states[0], 2, strategies=lineup, to=to)  # compile / load
    rates = []
    for r in range(repeats):
        t = time.perf_counter()
        for i, s in enumerate(states):
            rollout(s, rollouts, strategies=lineup, to=to, seed=1000 * r + i)
        rates.append(len(states) * rollouts / (time.perf_counter() - t))
    return statistics.median(rates)


def call_cost(state, repeats=51):
    from fishing2sim.api import rollout

    rollout(state, 1, to="round")
    ts = []
    for i in range(repeats):
        t = time.perf_counter()
        rollout(state, 1, to="round", seed=i)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=20)
    ap.add_argument("--rollouts", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    from fishing2sim.api import game_state

    rows = []
    for name, lineup in (("random", "random"), ("greedy", "greedy"),
                         ("weights", "weights")):
        states = [game_state(4, seed=7, game=g, strategies=lineup, rounds=3)
                  for g in range(args.states)]
        states = [s for s in states if not s.over]
        to_round = measure(states, lineup, "round", args.rollouts, args.repeats)
        to_game = measure(states, lineup, "game", args.rollouts, args.repeats)
        rows.append((name, to_round, to_game))
    print(f"States: {args.states} 4-player Fishing 2 games after round 3; "
          f"{args.rollouts} rollouts each; medians of {args.repeats} repeats\n")
    print("| lineup | rollouts/s to the end of round 4 | rollouts/s to the end of the game |")
    print("|---|---:|---:|")
    for name, a, b in rows:
        print(f"| {name} x 4 | {a:,.0f} | {b:,.0f} |")
    state = game_state(4, seed=7, game=0, rounds=3)
    print(f"\nOne rollout call's fixed cost (1 rollout to the end of a round): "
          f"{call_cost(state) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
