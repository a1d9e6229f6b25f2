"""Where the student `skilled` departs from its teacher pimc (it overfishes where pimc does not).

    python research/diag_student.py                     # both parts, 5 players
    python research/diag_student.py --only decisions --budgets 48,192

Part "ends": for each lineup (every seat one bot), the cards the boats lack at the start of
each of the last rounds (the ocean's demand, in games that reach the round) and the boats'
spread (largest minus smallest) before it, from play_game's event log, and the share of
games that end by overfishing.

Part "decisions": the same self-play positions (the `skilled` bot in every seat) labelled
by pimc at each of --budgets sampled deals (the positions do not depend on the budget),
and for each labeller and for `skilled` itself: on card plays following in a trick where
some options would take it and some would not, the share of picks that take it; leading
(3 options or more), the share that lead the strongest card and the mean power rank of
the lead (0 the weakest, 1 the strongest).
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def ends(bot: str, games: int, players: int, seed: int) -> dict:
    from fishing2sim.api import play_game

    last = {6: [], 7: [], 8: []}
    spread = {6: [], 7: [], 8: []}
    over = 0
    for g in range(games):
        rec = play_game(players=players, seed=seed, game=g, strategies=bot)
        hand = rec.events[0]["hand_sizes"]
        boat = np.zeros(players)
        r = 1
        evs = rec.events
        for i, e in enumerate(evs):
            ev = e["event"]
            if ev == "round_start":
                r = e["round"]
            elif ev == "boat":
                boat[e["player"]] += 1
            elif ev == "draw" and e["source"] == "boat":
                boat[e["player"]] -= 1
            nxt = evs[i + 1]["event"] if i + 1 < len(evs) else ""
            if ev in ("boat", "round_score") and nxt not in ("boat", "round_score") \
                    and r + 1 in last:
                last[r + 1].append(np.maximum(0, hand[r] - boat).sum())
                spread[r + 1].append(boat.max() - boat.min())
        over += rec.end_reason == "overfished"
    return {"over": over / games, "demand": {k: np.mean(v) for k, v in last.items() if v},
            "spread": {k: np.mean(v) for k, v in spread.items() if v},
            "reached": {k: len(v) for k, v in last.items()}}


def decisions(players: int, games: int, budgets: list, seed: int, workers: int) -> None:
    from fishing2sim.engine.constants import D_PLAY
    from fishing2sim.student.layout import FEATURE_NAMES
    from fishing2sim.train.label import M_KIND, M_N_OPT
    from fishing2sim.train.labels import features_of, label_games
    from fishing2sim.strategy.loading import load_strategy
    from fishing2sim.train.net import scores

    f = {n: i for i, n in enumerate(FEATURE_NAMES)}
    w = np.asarray(load_strategy("skilled").defaults, np.float64)  # the shipped model
    lab = {}
    for b in budgets:
        t0 = time.perf_counter()
        lab[b] = label_games("fishing2", players, seed, games, "skilled", "pimc", [b, 1, 0, 0],
                             0.5, workers=workers, chunk=5)
        print(f"labelled {len(lab[b]['obs']):,} positions with pimc at {b} deals in "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
    b0 = budgets[0]
    for b in budgets[1:]:
        if not np.array_equal(lab[b]["obs"], lab[b0]["obs"]):
            raise SystemExit("the positions differ between the budgets")
    X, blocks = features_of(lab[b0])
    S = scores(X, blocks, w)
    m = lab[b0]["meta"]
    sel = [r for r in range(len(m)) if m[r, M_KIND] == D_PLAY and m[r, M_N_OPT] >= 2]
    print("\n| chooser | following, contested: takes the trick | leading: the strongest "
          "card | leading: mean power rank |\n|---|---|---|---|")
    for who in [*budgets, "skilled"]:
        take = contested = lead_top = leads = 0
        ranks = []
        for r in sel:
            n = int(m[r, M_N_OPT])
            wins = X[r, :n, f["win"]] > 0
            v = S[r, :n] if who == "skilled" else lab[who]["values"][r, :n]
            pick = int(np.argmax(v))
            if X[r, :n, f["lead_power"]].max() > 0:
                if n >= 3:
                    p = X[r, :n, f["power"]]
                    leads += 1
                    lead_top += p[pick] >= p.max()
                    ranks.append((p < p[pick]).sum() / (n - 1))
            elif wins.any() and not wins.all():
                contested += 1
                take += wins[pick]
        name = "`skilled`" if who == "skilled" else f"pimc, {who} deals"
        print(f"| {name} | {take / contested:.3f} ({contested:,}) | {lead_top / leads:.3f} "
              f"({leads:,}) | {np.mean(ranks):.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["ends", "decisions", "all"], default="all")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--games", type=int, default=300, help="games per heuristic lineup")
    ap.add_argument("--search-games", type=int, default=80, help="games with pimc seats")
    ap.add_argument("--label-games", type=int, default=100)
    ap.add_argument("--budgets", default="48,192")
    ap.add_argument("--lineups", default="random,greedy,skilled,weights_tuned,pimc")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    if a.only in ("ends", "all"):
        print(f"{a.players} players, Fishing 2, seed {a.seed}: the ocean's demand at the "
              "start of rounds 6-8 (cards the boats lack) and the boats' spread before it\n")
        print("| seats | games | overfished | demand r6 / r7 / r8 | spread r6 / r7 / r8 |")
        print("|---|---|---|---|---|")
        for bot in a.lineups.split(","):
            n = a.search_games if bot.startswith("pimc") else a.games
            e = ends(bot, n, a.players, a.seed)
            dem = " / ".join(f"{e['demand'].get(k, float('nan')):.1f}" for k in (6, 7, 8))
            spr = " / ".join(f"{e['spread'].get(k, float('nan')):.1f}" for k in (6, 7, 8))
            print(f"| `{bot}` | {n} | {100 * e['over']:.1f}% | {dem} | {spr} |", flush=True)
        print()
    if a.only in ("decisions", "all"):
        decisions(a.players, a.label_games, [int(b) for b in a.budgets.split(",")], 77,
                  a.workers)


if __name__ == "__main__":
    main()
