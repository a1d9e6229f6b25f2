"""Deck edits: a deck with cards removed, added or moved and its hand table changed (an
experiment's ``deck:`` key, docs/experiments.md). The shape of each edit is checked by its
schema (fishing2sim/config/schema.py: DeckEdits); what needs the deck (a card's name, a
tier's cards, the hand table's rounds) is checked here."""
from __future__ import annotations

import dataclasses

import difflib
import hashlib

import numpy as np
import pandas as pd

from fishing2sim.config.deck import (
    Deck, DeckError, _check_card, _make_table, _playable, coupled_arrays,
)
from fishing2sim.config.keys import MAX_TIER, SUPPORTED_PLAYERS
from fishing2sim.config.schema import ADD_KEYS, DeckEdits, check, is_whole
from fishing2sim.engine.constants import (
    COLOURS, EFFECTS, F_COLOUR, F_EFFECT, F_KIND, F_MIN_PLAYERS, F_TIER, F_VALUE, KINDS,
    MAX_CARDS, MAX_PLAYERS, N_FIELDS,
)

__all__ = ["edit_deck"]


def edit_deck(deck: Deck, remove=(), remove_from_tier=None, add=(), move=None,
              hand_sizes=None, rounds=None, where: str = "deck") -> Deck:
    """A new Deck: ``deck`` with cards removed, added or moved and its hand table changed.

    The edits are applied in this order, each to the result of the previous one:

    1. ``remove``: card names (exact, else case- and space-insensitive), each must exist once;
    2. ``remove_from_tier``: {tier: k}: removes the k cards of ocean tier ``tier`` (1-5) with
       the highest ids (the last k rows of that tier in the file; ``min_players`` is ignored);
    3. ``move``: {card name: new tier 1-5}: only ocean cards move (a starting card stays tier 0,
       an ocean card cannot become a starting card);
    4. ``add``: dicts with keys name, kind, tier and optionally colour (default none),
       value (default none: buoys), effect (default none), min_players (default 3),
       validated like a CSV row; new cards get the next ids, in the order given;
    5. ``hand_sizes``: {players: [hand size per round]}: every list has the same length, which
       sets the number of rounds; player counts not given keep their row, truncated;
    6. ``rounds``: the number of rounds; fewer truncates the hand table, more needs
       ``hand_sizes`` of that length. A player count whose row cannot be extended to the
       rounds (not given in ``hand_sizes``) becomes unplayable.

    Removed cards close the gap: ids stay 0..n-1 in the original order. The result has its
    own ``sha256`` (over ruleset, cards and hand table), the same ``path`` / ``hands_path`` and
    ruleset, and ``playable``: the player counts whose starting cards (tier 0,
    min_players <= players) are exactly players x the round-1 hand size. An unplayable count
    is no error here: :meth:`Deck.check_players` raises when it is asked for.
    Errors are DeckError messages starting with ``where`` and the key, e.g.
    ``"x.yaml: deck.remove[2]: no card named ..."``.
    """
    raw = {k: list(v) if isinstance(v, tuple) else v
           for k, v in (("remove", remove), ("remove_from_tier", remove_from_tier),
                        ("move", move), ("add", add), ("hand_sizes", hand_sizes),
                        ("rounds", rounds)) if v is not None}
    try:
        edits = check(DeckEdits, raw, base=where)
    except ValueError as exc:
        raise DeckError(str(exc)) from None
    records = _records(deck)
    alive = [True] * len(records)
    removed_by: dict[int, str] = {}
    find = _finder(deck, records, alive, removed_by)
    for j, name in enumerate(edits.remove):  # 1. remove
        at = f"{where}.remove[{j}]"
        i = find(name, at)
        alive[i] = False
        removed_by[i] = at
    for t_raw, k in raw.get("remove_from_tier", {}).items():  # 2. remove_from_tier
        at = f"{where}.remove_from_tier.{t_raw}"
        t = int(t_raw)  # a tier 1-5 (the schema checked it)
        ids = [i for i, r in enumerate(records) if alive[i] and r["tier"] == t]
        if k > len(ids):
            raise DeckError(f"{at}: cannot remove {k} cards: tier {t} has {len(ids)}")
        for i in ids[len(ids) - int(k):] if k else []:
            alive[i] = False
            removed_by[i] = at
    for name, t in edits.move.items():  # 3. move
        at = f"{where}.move[{name!r}]"
        i = find(name, at)
        if records[i]["tier"] == 0:
            raise DeckError(f"{at}: {records[i]['name']!r} is a starting card (tier 0): "
                            "starting cards cannot move")
        if not is_whole(t) or not 1 <= t <= MAX_TIER:
            raise DeckError(f"{at}: the new tier must be an ocean tier 1-{MAX_TIER} (an ocean "
                            f"card cannot become a starting card), got {t!r}")
        records[i]["tier"] = int(t)
    new_records = [r for i, r in enumerate(records) if alive[i]]
    _add_cards(new_records, edits.add, deck.ruleset, f"{where}.add")  # 4. add
    if not new_records:
        raise DeckError(f"{where}: the edits leave no cards in the deck")
    if len(new_records) > MAX_CARDS:
        raise DeckError(f"{where}: the edited deck has {len(new_records)} cards, at most "
                        f"{MAX_CARDS} allowed")
    n_rounds, new_hands = _hand_table(deck, edits.hand_sizes or {}, rounds, where)  # 5., 6.
    out = _edited(deck, new_records, n_rounds, new_hands)
    return dataclasses.replace(out, changes=deck.changes + _changes(
        [records[i]["name"] for i in sorted(removed_by)], edits, deck, n_rounds, new_hands))


def _names(names: list) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _changes(removed: list, edits, deck: Deck, n_rounds: int, new_hands) -> tuple:
    """What the edits changed, in the report's words (the cards by name)."""
    out = []
    if removed:
        out.append(f"without {_names(removed)}")
    for name, t in edits.move.items():
        out.append(f"{deck.names[deck.card(name)]} to tier {int(t)}")
    if edits.add:
        out.append(f"with {_names([a.name for a in edits.add])}")
    if n_rounds != deck.n_rounds:
        out.append(f"{n_rounds} rounds")
    elif not np.array_equal(new_hands, deck.hand_sizes):
        out.append("hand sizes changed")
    return tuple(out)


def _records(deck: Deck) -> list[dict]:
    """The deck's cards as dicts (value None for none, plain ints)."""
    records = [dict(r) for r in deck.table.to_dict("records")]
    for r in records:
        v = r["value"]
        r["value"] = None if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)) \
            else int(v)
        r["tier"] = int(r["tier"])
        r["min_players"] = int(r["min_players"])
    return records


def _finder(deck: Deck, records: list, alive: list, removed_by: dict):
    """find(name, at): the index of the card ``name`` names (exact, else case- and
    space-insensitive), still in the deck."""
    index = {r["name"]: i for i, r in enumerate(records)}
    folded = {" ".join(n.split()).lower(): i for n, i in index.items()}

    def find(name, at: str) -> int:
        if not isinstance(name, str):
            raise DeckError(f"{at}: expected a card name (text), got {name!r}")
        i = index.get(name)
        if i is None:
            i = folded.get(" ".join(name.split()).lower())
        if i is None:
            close = difflib.get_close_matches(name, list(index), n=3, cutoff=0.5)
            hint = (" (did you mean " + " or ".join(repr(c) for c in close) + "?)") if close else ""
            raise DeckError(f"{at}: no card named {name!r} in the deck {deck.path.name}{hint}")
        if not alive[i]:
            raise DeckError(f"{at}: card {records[i]['name']!r} was already removed by "
                            f"{removed_by[i]}")
        return i
    return find


def _add_cards(new_records: list, cards: list, ruleset: str, where: str) -> None:
    """The cards of ``add:`` appended to ``new_records``, each checked like a CSV row."""
    taken = {" ".join(r["name"].split()).lower(): r["name"] for r in new_records}
    for j, card in enumerate(cards):
        at = f"{where}[{j}]"
        fold = " ".join(card.name.split()).lower()
        if fold in taken:
            raise DeckError(f"{at}.name: the deck already has a card named {taken[fold]!r}")
        cells = {key: "" if getattr(card, key) is None else str(getattr(card, key)).strip()
                 for key in ADD_KEYS[1:]}
        kind, colour, value, effect, tier, min_players = _check_card(
            cells, ruleset, lambda c, _at=at: f"{_at}.{c}")
        taken[fold] = card.name
        new_records.append({"id": 0, "name": card.name, "kind": kind, "colour": colour,
                            "value": None if value < 0 else value, "effect": effect,
                            "tier": tier, "min_players": min_players})


def _hand_table(deck: Deck, given: dict, rounds, where: str) -> tuple[int, np.ndarray]:
    """(the rounds, the hand table) after ``hand_sizes`` (``given``, checked) and
    ``rounds``."""
    old = deck.hand_sizes
    n_rounds = len(next(iter(given.values()))) if given else deck.n_rounds
    if rounds is not None:
        at = f"{where}.rounds"
        if given and rounds != n_rounds:
            raise DeckError(f"{at}: {rounds} rounds but hand_sizes gives {n_rounds}")
        if not given and rounds > deck.n_rounds:
            raise DeckError(f"{at}: {rounds} rounds but the hand table has {deck.n_rounds}: "
                            f"more rounds need hand_sizes (a list of {rounds} hand sizes "
                            "per player count)")
        n_rounds = int(rounds)
    new_hands = np.zeros((MAX_PLAYERS + 1, n_rounds), dtype=np.int64)
    for p in SUPPORTED_PLAYERS:
        if p in given:
            new_hands[p] = given[p]
        elif old.shape[1] >= n_rounds and old[p, 0] > 0:
            new_hands[p] = old[p, :n_rounds]
        # else: this player count has no hand sizes for these rounds: unplayable
    return n_rounds, new_hands


def _edited(deck: Deck, new_records: list, n_rounds: int, new_hands: np.ndarray) -> Deck:
    """The edited Deck of these cards and hand table (its own sha256)."""
    ruleset = deck.ruleset
    # the new deck
    arrays = np.zeros((len(new_records), N_FIELDS), dtype=np.int64)
    for cid, r in enumerate(new_records):
        r["id"] = cid
        arrays[cid, F_KIND] = KINDS[r["kind"]]
        arrays[cid, F_COLOUR] = COLOURS[r["colour"]]
        arrays[cid, F_VALUE] = -1 if r["value"] is None else r["value"]
        arrays[cid, F_EFFECT] = EFFECTS[r["effect"]]
        arrays[cid, F_TIER] = r["tier"]
        arrays[cid, F_MIN_PLAYERS] = r["min_players"]
    arrays.flags.writeable = False
    new_hands.flags.writeable = False
    names = tuple(r["name"] for r in new_records)
    h = hashlib.sha256()
    h.update(f"fishing2sim edited deck v1\n{ruleset}\n{len(names)}\n".encode())
    h.update("\n".join(names).encode())
    h.update(b"\0")
    h.update(arrays.tobytes())
    h.update(np.int64(n_rounds).tobytes())
    h.update(new_hands.tobytes())
    return Deck(ruleset=ruleset, path=deck.path, hands_path=deck.hands_path,
                table=_make_table(new_records), arrays=coupled_arrays(arrays, names, ruleset),
                names=names,
                hand_sizes=new_hands, n_rounds=int(n_rounds), sha256=h.hexdigest(),
                playable=_playable(arrays, new_hands))
