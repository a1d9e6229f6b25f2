"""The cards of the per-card figures (``analyses: [cards]``, docs/experiments.md "Per-card
impact"): every ocean card of each condition's deck, or the names listed in
``cards: {only: [...]}``, resolved to the condition's card ids.

It needs each condition's deck (after its deck edits) and player count; a problem is a
KeyProblem at its key path."""
from __future__ import annotations

import dataclasses

import numpy as np

from fishing2sim.config.messages import KeyProblem
from fishing2sim.config.messages import did_you_mean as _did_you_mean
from fishing2sim.engine.constants import F_MIN_PLAYERS, F_TIER

__all__ = ["card_list", "ocean_cards"]

ANALYSIS = "cards"


def ocean_cards(deck, players: int) -> list[int]:
    """The ids of the cards in the ocean of a game of ``players`` (star tier 1..5, the "4+"
    cards only with 4 or more players), in deck order."""
    a = deck.arrays
    return [int(c) for c in np.flatnonzero((a[:, F_TIER] > 0) & (a[:, F_MIN_PLAYERS] <= players))]


def _fold(name: str) -> str:
    return " ".join(str(name).split()).lower()


def card_list(cond, spec, base_names) -> object:
    """``cond`` with the ids of its cards (``spec``: the schema's ``cards:`` or None;
    ``base_names``: the names of the ruleset's deck before any edit)."""
    bad = next((i for i in cond.identities if i.kind != "heuristic"), None)
    if bad is not None:
        raise KeyProblem("seats", f"{bad.name!r} searches; the cards analysis replays every "
                         "deal once without each card, beyond any search budget: use bots "
                         "that do not search (e.g. skilled) or leave cards out of analyses")
    ocean = ocean_cards(cond.deck, cond.players)
    only = spec.only if spec is not None else None
    if only is None:
        return dataclasses.replace(cond, cards=tuple(ocean))
    names = {_fold(n): i for i, n in enumerate(cond.deck.names)}
    where = f" (condition {cond.index}: {cond.name})" if cond.name != "all games" else ""
    ids: list[int] = []
    for j, name in enumerate(only):
        c = names.get(_fold(name))
        why = _not_a_card(cond, name, c, ids, ocean, base_names, where)
        if why:
            raise KeyProblem(f"cards.only[{j}]", why)
        ids.append(c)
    return dataclasses.replace(cond, cards=tuple(ids))


def _not_a_card(cond, name, c, ids, ocean, base_names, where) -> str | None:
    """Why ``name`` (card id ``c`` in the condition's deck, or None) cannot be left out."""
    deck = cond.deck
    if c is None and _fold(name) in {_fold(n) for n in base_names}:
        return (f"card {name!r} is not in the deck: a deck edit removed it{where}; leave it "
                "out of cards.only or keep it in the deck")
    if c is None:
        return f"no card named {name!r} in the deck" \
            f"{_did_you_mean(name, [deck.names[k] for k in ocean])}"
    if c in ids:
        return f"card {deck.names[c]!r} given twice"
    if c not in ocean:
        if int(deck.arrays[c, F_TIER]) == 0:
            return (f"card {deck.names[c]!r} is a starting card, not an ocean card: only "
                    "ocean cards are left out")
        return (f"card {deck.names[c]!r} is not in the ocean with {cond.players} players "
                f"(its \"4+\" mark){where}")
    return None
