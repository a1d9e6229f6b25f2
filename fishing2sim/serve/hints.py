"""The hints (docs/serve.md): for every option of the person's decision, the value the
search bot ``pimc`` gives it at its default budget, and the option ``skilled`` would take.

The values are search_decide's own (``decide_once`` on a copy of the paused game): pimc
samples its worlds from the deciding seat's view only (docs/search.md), so a hint never
uses a card the seat has not seen. Each value is the option's mean, over the sampled worlds,
of the seat's points minus the best other seat's points at the end of the round (pimc's
default horizon and objective). search_decide returns means only, so two more searches
give the rest without changing the kernels: the win chance is the same search with pimc's
other objective (its share of the win, ties shared) played to the end of the game, and the
spread is the 10th to 90th percentile of the option's value in SPREAD_DEALS searches of one
sampled deal each (fresh deals: the spread of a single deal's value, around the mean).
"""
from __future__ import annotations

import numpy as np

from fishing2sim.api import call_kernel, describe_option
from fishing2sim.engine import constants as K
from fishing2sim.engine.state import S_ASK_KIND, S_N_OPTIONS
from fishing2sim.strategy.lineup import build_lineup, search_args
from fishing2sim.strategy.loading import load_strategy

HINT_BOT = "pimc"
POLICY_BOT = "skilled"
SPREAD_DEALS = 24  # single sampled deals behind the spread


def hint_seed(gseed: int, number: int) -> np.uint64:
    """The search's seed for the person's decision ``number`` of the game seeded gseed."""
    return np.uint64((gseed + 1_000_003 * (number + 1)) % 2**64)


def search_values(table, st: np.ndarray, sseed: np.uint64, **change) -> list[float]:
    """pimc's value of each option of the paused state ``st`` (the table's game, paused at
    the person's decision), searched from the person's seat with seed ``sseed``;
    ``change``: parameters other than pimc's defaults (worlds, horizon, objective)."""
    # the search kernels compile on first use (minutes, cold); the server warms them up
    from fishing2sim.search import kernels as S

    specs = ["random"] * table.players
    specs[table.seat] = HINT_BOT
    _, _, strats = build_lineup(specs, table.players)
    _, sp, rf, rt, ro = search_args(strats, None, table.players)
    for key, value in change.items():
        sp[table.seat, {"worlds": S.SP_WORLDS, "horizon": S.SP_HORIZON,
                        "objective": S.SP_OBJECTIVE}[key]] = value
    values = np.zeros(K.MAX_HAND)
    choice = call_kernel(S.decide_once, (st, table.ev, table.arrays, sp, sseed, rf, rt, ro,
                                       values), st[None].copy(), strats)
    if choice < 0:  # pragma: no cover  (a view without a world: an engine bug)
        raise RuntimeError("the search found no world for this position (a bug)")
    return [float(v) for v in values[:int(st[S_N_OPTIONS])]]


def policy_choice(table, obs: np.ndarray) -> int:
    """The option ``skilled`` takes, deciding on the seat's observation ``obs``."""
    s = load_strategy(POLICY_BOT)
    kind = int(obs[K.O_KIND])
    params = np.asarray(s.defaults, np.float64)
    rng = np.zeros(1, np.uint64)
    return int(s.functions[kind](obs.copy(), params, rng))


def hint(table) -> dict:
    """The hint for the table's current decision: {"options": [{"option", "label",
    "value"}], "best": the search's best option, "skilled": skilled's option}."""
    number = len(table.decisions)
    if table.hint_values is None:
        table.hint_values = search_values(table, table.st, hint_seed(table.gseed, number))
    values = table.hint_values
    options = table.options()
    best = options[int(np.argmax(values))]
    skilled = policy_choice(table, table.observation())
    seed = hint_seed(table.gseed, number)
    win = search_values(table, table.st, seed, horizon=1, objective=1)
    deals = np.array([search_values(table, table.st, np.uint64((int(seed) + 1 + w) % 2**64),
                                    worlds=1) for w in range(SPREAD_DEALS)])
    lo, hi = np.percentile(deals, [10, 90], axis=0)
    return {"decision": number, "kind": int(table.st[S_ASK_KIND]),
            "options": [{"option": o, "label": describe_option(o, table.deck),
                         "value": round(v, 2), "win": round(w, 3),
                         "spread": [round(float(a), 1), round(float(b), 1)]}
                        for o, v, w, a, b in zip(options, values, win, lo, hi)],
            "best": best, "skilled": skilled, "bot": HINT_BOT}


def review(table) -> dict:
    """After the game: the points by round, and the person's decisions ranked by how
    much the search's best option was worth over the one played (each decision's values
    from its own hint, computed now for the decisions without one)."""
    rows = []
    for d in table.decisions:
        if d.values is None:
            d.values = search_values(table, d.st, hint_seed(table.gseed, d.number))
        chosen = d.values[d.options.index(d.choice)]
        i = int(np.argmax(d.values))
        rows.append({"decision": d.number + 1, "round": d.round,
                     "kind": K.DECISION_NAMES[d.kind],
                     "played": describe_option(d.choice, table.deck),
                     "best": describe_option(d.options[i], table.deck),
                     "loss": round(d.values[i] - chosen, 2)})
    rows.sort(key=lambda r: (-r["loss"], r["decision"]))
    return {"decisions": rows, "rounds": round_points(table.public_events(), table.players)}


def round_points(events: list[dict], players: int) -> list[dict]:
    """The points after each scored round (its round_score events): [{"round", "points"}]."""
    rounds: dict[int, list] = {}
    r = 0
    for e in events:
        if e["event"] == "round_start":
            r = e["round"]
        elif e["event"] == "round_score":
            rounds.setdefault(r, [0] * players)[e["player"]] = e["points"]
    return [{"round": k, "points": v} for k, v in sorted(rounds.items())]
