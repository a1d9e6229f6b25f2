"""The cards of the per-card figures (``analyses: [cards]``, docs/experiments.md "Per-card
impact"): every ocean card of each condition's deck, or the names listed in
``cards: {only: [...]}``, resolved to the condition's card ids.

A mixin of the loader (fishing2sim/config/experiment.py): it needs each condition's deck
(after its deck edits) and player count, and reports through ``self.fail(key path,
problem)``."""
from __future__ import annotations

import dataclasses

import numpy as np

from fishing2sim.config.messages import did_you_mean as _did_you_mean
from fishing2sim.engine.constants import F_MIN_PLAYERS, F_TIER

__all__ = ["CardsMixin", "ocean_cards"]

ANALYSIS = "cards"


def ocean_cards(deck, players: int) -> list[int]:
    """The ids of the cards in the ocean of a game of ``players`` (star tier 1..5, the "4+"
    cards only with 4 or more players), in deck order."""
    a = deck.arrays
    return [int(c) for c in np.flatnonzero((a[:, F_TIER] > 0) & (a[:, F_MIN_PLAYERS] <= players))]


def _fold(name: str) -> str:
    return " ".join(str(name).split()).lower()


class CardsMixin:
    def card_list(self, cond, spec, base_names) -> object:
        """``cond`` with the ids of its cards (``spec``: the schema's ``cards:`` or None;
        ``base_names``: the names of the ruleset's deck before any edit)."""
        if any(i.kind != "heuristic" for i in cond.identities):
            bad = next(i for i in cond.identities if i.kind != "heuristic")
            self.fail("seats", f"{bad.name!r} searches; the cards analysis replays every deal "
                      "once without each card, beyond any search budget: use bots that do "
                      "not search (e.g. skilled) or leave cards out of analyses")
        ocean = ocean_cards(cond.deck, cond.players)
        only = spec.only if spec is not None else None
        if only is None:
            return dataclasses.replace(cond, cards=tuple(ocean))
        names = {_fold(n): i for i, n in enumerate(cond.deck.names)}
        where = f" (condition {cond.index}: {cond.name})" if cond.name != "all games" else ""
        ids: list[int] = []
        for j, name in enumerate(only):
            at = f"cards.only[{j}]"
            c = names.get(_fold(name))
            if c is None and _fold(name) in {_fold(n) for n in base_names}:
                self.fail(at, f"card {name!r} is not in the deck: a deck edit removed it"
                          f"{where}; leave it out of cards.only or keep it in the deck")
            if c is None:
                self.fail(at, f"no card named {name!r} in the deck"
                          f"{_did_you_mean(name, [cond.deck.names[k] for k in ocean])}")
            if c in ids:
                self.fail(at, f"card {cond.deck.names[c]!r} given twice")
            if c not in ocean:
                tier = int(cond.deck.arrays[c, F_TIER])
                self.fail(at, f"card {cond.deck.names[c]!r} is a starting card, not an ocean "
                          "card: only ocean cards are left out" if tier == 0 else
                          f"card {cond.deck.names[c]!r} is not in the ocean with "
                          f"{cond.players} players (its \"4+\" mark){where}")
            ids.append(c)
        return dataclasses.replace(cond, cards=tuple(ids))
