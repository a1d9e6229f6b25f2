"""The decision stakes' settings (``analyses: [decisions]``, docs/experiments.md): which
decision kinds are replayed and at what rate, checked against each condition's ruleset
and seats. The replays themselves: engine/decisions.py; the figures: analysis/decisions.py.
"""
from __future__ import annotations

import numpy as np

from fishing2sim.config.keys import DECISION_PLAY_RATE, DECISION_RATE
from fishing2sim.config.messages import KeyProblem
from fishing2sim.engine.constants import D_PLAY, DECISION_NAMES, N_DECISIONS

ANALYSIS = "decisions"
# the decisions of each ruleset that the analysis replays (docs/rules.md C; the trump choice
# has its own replays, analyses: trump_value)
RULESET_DECISIONS = {
    "fishing2": ("play", "determine-trump", "catch-1-other", "exchange-take", "exchange-give",
                 "catch-1-card"),
    "fishing": ("play", "zero-catch", "pass-1-left", "determine-colour"),
}
RULESET_TITLES = {"fishing2": "Fishing 2", "fishing": "Fishing"}


def searching_seat(cond, card_plays_only: bool = False):
    """(key path, identity) of the condition's first seat that searches (its card plays,
    with ``card_plays_only``), or None."""
    for i, ident in enumerate(cond.identities):
        if ident.kind != "heuristic" and not (card_plays_only and
                                              list(ident.searches) == ["trump_choice"]):
            return (f"seats[{i}]" if len(set(cond.lineup)) > 1 else "seats"), ident
    return None


def decision_settings(top, conditions) -> dict | None:
    """``{kinds, rate, play_rate}`` when the file asks for the decision stakes (the kinds
    in the order of DECISION_NAMES), else None; a problem (the ruleset has no such
    decision, a seat searches) is a KeyProblem at its key path."""
    spec = top.decisions
    if ANALYSIS not in top.analyses:  # (decisions: without it: the schema's problem)
        return None
    rulesets = sorted({c.deck.ruleset for c in conditions})
    given = spec.kinds if spec is not None and spec.kinds else None
    for i, kind in enumerate(given or ()):
        for r in rulesets:
            if kind not in RULESET_DECISIONS[r]:
                other = [o for o in RULESET_DECISIONS if kind in RULESET_DECISIONS[o]]
                where = f"a decision of {RULESET_TITLES[other[0]]}, " if other else ""
                raise KeyProblem(f"decisions.kinds[{i}]", f"{kind!r} is {where}not one of "
                                 f"{RULESET_TITLES[r]} (ruleset {r}); its decisions: "
                                 f"{', '.join(RULESET_DECISIONS[r])}")
    kinds = [d for d in DECISION_NAMES if (d in given if given is not None else
                                           any(d in RULESET_DECISIONS[r] for r in rulesets))]
    for cond in conditions:
        found = searching_seat(cond)
        if found:
            raise KeyProblem(found[0], f"{found[1].name!r} searches; analyses: decisions "
                             "replays sampled decisions to the game's end with every seat's "
                             "own strategy, which a search seat does not have: use rule-based "
                             "bots or leave decisions out of analyses for this lineup")
    rate = spec.rate if spec is not None and spec.rate is not None else DECISION_RATE
    play = spec.play_rate if spec is not None and spec.play_rate is not None \
        else DECISION_PLAY_RATE
    return {"kinds": kinds, "rate": rate, "play_rate": play}


def thresholds(settings: dict, ruleset: str) -> np.ndarray:
    """Per decision kind (D_* code) its sampling rate as a share of 2**32 (0: not
    sampled), for engine/decisions.py."""
    out = np.zeros(N_DECISIONS, np.int64)
    for kind in settings["kinds"]:
        if kind in RULESET_DECISIONS[ruleset]:
            code = DECISION_NAMES.index(kind)
            rate = settings["play_rate"] if code == D_PLAY else settings["rate"]
            out[code] = int(round(rate * 2.0 ** 32))
    return out
