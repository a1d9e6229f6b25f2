"""The waits of `fishing2sim serve` (docs/serve.md), in this process on one core (numba's
kernels are single-threaded; compiles and loads are done before the timing):

- a hint: pimc at its default budget (24 sampled deals, 1 rollout each, to the end of the
  round) valuing every option of the person's decision, its win chance (the same search to
  the game's end) and spread (24 searches of one deal), plus skilled's choice; the median
  and the maximum over the person's decisions of ``--games`` games (each hint fresh);
- the bots' moves: an answer's time until the person's next decision (every bot's move in
  between), the median over the same decisions, divided by the number of bot moves it
  held for a bot's move;
- a search bot's move (pimc in another seat): the median time of its decide_once.

    python -m benchmarks.bench_serve                          # 4 players, Fishing 2
    python -m benchmarks.bench_serve --ruleset fishing --players 3

Prints one JSON line (seconds).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ruleset", default="fishing2")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--bots", default="weights,skilled,counter,greedy")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    from fishing2sim.serve.hints import hint
    from fishing2sim.serve.table import Table

    bots = args.bots.split(",")[:args.players]
    Table(args.ruleset, args.players, 0, bots, 10_000)  # loads and compiles
    warm = Table(args.ruleset, args.players, 0, bots, 10_001)
    hint(warm)
    hints, answers, per_move, search_moves = [], [], [], []
    for g in range(args.games):
        t = Table(args.ruleset, args.players, 0, bots, g)
        while not t.over:
            t0 = time.perf_counter()
            hint(t)
            hints.append(time.perf_counter() - t0)
            n_ev = int(t.st[_evn()])
            t0 = time.perf_counter()
            t.answer(t.options()[0])
            dt = time.perf_counter() - t0
            answers.append(dt)
            moves = sum(1 for r in t.ev[n_ev:int(t.st[_evn()])] if r[0] in _MOVES) - 1
            if moves > 0:
                per_move.append(dt / moves)
        s = Table(args.ruleset, args.players, 0, ["pimc"] * args.players, 100 + g)
        before = s.bot_decisions
        t0 = time.perf_counter()
        while not s.over and s.bot_decisions - before < 12:
            s.answer(s.options()[0])
        if s.bot_decisions > before:
            search_moves.append((time.perf_counter() - t0) / (s.bot_decisions - before))
    print(json.dumps({
        "ruleset": args.ruleset, "players": args.players, "bots": bots,
        "decisions": len(hints),
        "hint_median_s": round(statistics.median(hints), 4),
        "hint_max_s": round(max(hints), 4),
        "answer_median_s": round(statistics.median(answers), 4),
        "bot_move_median_s": round(statistics.median(per_move), 6),
        "pimc_bot_move_mean_s": round(statistics.mean(search_moves), 4),
    }))


def _evn():
    from fishing2sim.engine.state import S_EVN

    return S_EVN


_MOVES = None


if __name__ == "__main__":
    from fishing2sim.engine import constants as _K

    _MOVES = {_K.EV_PLAY, _K.EV_TRUMP_CHOICE, _K.EV_CATCH_1_OTHER, _K.EV_DETERMINE_TRUMP,
              _K.EV_CATCH_1_CARD, _K.EV_EXCHANGE, _K.EV_ZERO_CATCH, _K.EV_PASS_1_LEFT,
              _K.EV_DETERMINE_COLOUR}
    main()
