"""How fast can a lineup of heuristic bots get by engine work alone? A bound from a profile.

    python research/bot_bound.py                    # greedy x 4 and the four heuristic bots
    python research/bot_bound.py --games 40000 --lineup weights,weights,weights,weights

Each lineup (and 4 x random, in the same run) plays under ``perf record`` in a fresh process
(research/profile_kernels.py). The samples inside the bots' own compiled code (functions of
the strategy files and of fishing2sim.strategy.kit) give the time per card play that the
bots' logic itself takes. Whatever the engine does, a card play of a bot seat costs at least
what a random seat's card play costs the engine (the same rules: legal cards, the play, the
trick's end; a random seat has no observation and no call) plus the bot's own logic. So

    best time per play  >=  random's time per play + the bots' own time per play

and that gives the most the lineup's games/s could rise by engine work (observations, the
call of a decision, the rules) alone, and its best ratio to random's games/s. In brackets:
the same bound if the strategy kit's helpers cost nothing either (only the strategy files'
own code left). Shares count only
samples in compiled code; the rates are under perf, so read the ratios.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_kernels import profile  # noqa: E402

LINEUPS = {
    "greedy x 4": "greedy,greedy,greedy,greedy",
    "greedy, counter, buoy_savvy, weights": "greedy,counter,buoy_savvy,weights",
}


def bot_file(name: str) -> bool:
    """A function of a strategy file (the bot's own logic)."""
    return name.startswith("strategies.") or name.startswith("fishing2sim.bots.")


def kit(name: str) -> bool:
    """A function of the strategy kit (the helpers the bots call)."""
    return name.startswith("fishing2sim.strategy.kit.")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40_000)
    ap.add_argument("--lineup", action="append", default=None,
                    help="comma-separated strategies (repeatable); default: greedy x 4 and "
                         "the four heuristic bots")
    args = ap.parse_args(argv)
    lineups = ({s: s for s in args.lineup} if args.lineup else LINEUPS)
    r_rate, plays, _, _ = profile(["random"] * 4, args.games)
    t_random = 1e9 / (r_rate * plays)
    print(f"random x 4: {r_rate:,.0f} games/s under perf, {plays:.0f} card plays per game, "
          f"{t_random:.0f} ns per play\n")
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bots")
    costs = {}
    for name in ("first_blind", "first_seeing"):  # the call alone; the call and the observation
        rate, plays, _, _ = profile([os.path.join(here, f"{name}.py")] * 4, args.games)
        costs[name] = 1e9 / (rate * plays)
    print(f"the call of a decision (a bot that plays its first option and reads nothing): "
          f"{costs['first_blind'] - t_random:.0f} ns per play over random's; its observation: "
          f"{costs['first_seeing'] - costs['first_blind']:.0f} ns per play more\n")
    print("| lineup | ns per play now | strategy files' code | kit's code | best ns per play "
          "(kit free) | games/s now | best games/s (x now) | best games/s / random's |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, spec in lineups.items():
        rate, plays, counts, total = profile(spec.split(","), args.games)
        t_play = 1e9 / (rate * plays)
        files = sum(k for n, k in counts.items() if bot_file(n)) / max(total, 1)
        helpers = sum(k for n, k in counts.items() if kit(n)) / max(total, 1)
        best = t_random + (files + helpers) * t_play  # the kit as it is
        best_free = t_random + files * t_play  # even if the kit cost nothing
        rates = [1e9 / (b * plays) for b in (best, best_free)]
        print(f"| {label} | {t_play:.0f} | {100 * files:.1f} % | {100 * helpers:.1f} % "
              f"| {best:.0f} ({best_free:.0f}) | {rate:,.0f} "
              f"| {rates[0]:,.0f} ({t_play / best:.2f} x); kit free {rates[1]:,.0f} "
              f"({t_play / best_free:.2f} x) | {rates[0] / r_rate:.2f} "
              f"({rates[1] / r_rate:.2f}) |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
