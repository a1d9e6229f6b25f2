"""The coupled deal (docs/rules.md, "Coupled deals"): a deck that differs from its
ruleset's standard deck deals the standard deck's deal with the edit: the same starting
hands, every untouched tier in the same order, the removed cards taken out of their places,
the added cards put in at uniformly random places, the same round-1 leader and the same game
stream afterwards. The standard deck deals as before (tests/test_golden.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fishing2sim.config.deck import DECKS_DIR, coupled_arrays, deck_for, load_deck
from fishing2sim.config.deck_edits import edit_deck
from fishing2sim.engine import constants as K
from fishing2sim.engine.core import setup_game
from fishing2sim.engine.state import (
    A_BOAT, A_FISHER, A_HAND, A_HAND_N, A_OCEAN, S_ERR_CODE, S_FIRST_LEADER,
    S_OCEAN_LEN, new_state,
)

STD = deck_for("fishing2")
CARD = {"kind": "colour", "effect": "none", "tier": 4, "min_players": 3}
EDITS = {
    "remove": {"remove": ["blue 26", "yellow 26"]},
    "add": {"add": [dict(CARD, name="blue 27", colour="blue", value=27),
                    dict(CARD, name="yellow 27", colour="yellow", value=27)]},
    "remove_from_tier": {"remove_from_tier": {5: 3}},
    "move": {"move": {"blowfish 21": 4}},
    "remove and add": {"remove": ["blue 26"],
                       "add": [dict(CARD, name="red 27", colour="red", value=27, tier=5)]},
}


def deal(deck, seed: int, players: int):
    """(hands, ocean, its tiers, round-1 leader, the game stream after setup), cards by name."""
    st, rng = new_state()
    ev = np.zeros((1, K.EV_FIELDS), np.int64)
    setup_game(st, rng, ev, np.ascontiguousarray(deck.arrays), players, 0,
               np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, -1,
               np.uint64(seed), 0, 1, 0)
    assert st[S_ERR_CODE] == 0
    hands = [[deck.names[c] for c in st[A_HAND + p * K.MAX_HAND:
                                         A_HAND + p * K.MAX_HAND + st[A_HAND_N + p]]]
             for p in range(players)]
    ids = st[A_OCEAN:A_OCEAN + st[S_OCEAN_LEN]]
    ocean = [deck.names[c] for c in ids]
    tiers = [int(deck.arrays[c, K.F_TIER]) for c in ids]
    assert not st[A_BOAT:A_FISHER].any()  # the boats lent to the deal are empty again
    return hands, ocean, tiers, int(st[S_FIRST_LEADER]), rng.copy(), st


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("players", [3, 4, 5])
def test_an_edited_deck_deals_the_standard_deal_with_the_edit(edit, players):
    ed = edit_deck(STD, **EDITS[edit])
    assert ed.arrays.shape[1] > K.N_FIELDS
    removed = set(STD.names) - set(ed.names)
    added = set(ed.names) - set(STD.names)
    moved = {n for n in set(ed.names) & set(STD.names)
             if ed.arrays[ed.card(n), K.F_TIER] != STD.arrays[STD.card(n), K.F_TIER]}
    for seed in range(20):
        h0, o0, t0, lead0, rng0, _ = deal(STD, seed, players)
        h1, o1, t1, lead1, rng1, _ = deal(ed, seed, players)
        assert h1 == h0 and lead1 == lead0
        assert np.array_equal(rng1, rng0)  # every later draw of the game agrees
        assert [c for c in o1 if c not in added | moved] == \
            [c for c in o0 if c not in removed | moved]
        assert t1 == sorted(t1)  # tier 1 on top ... tier 5 at the bottom
        assert sorted(o1) == sorted(n for n in ed.names
                                    if ed.arrays[ed.card(n), K.F_TIER] > 0
                                    and ed.arrays[ed.card(n), K.F_MIN_PLAYERS] <= players)


def test_a_deck_file_is_coupled_by_its_cards_not_its_rows(tmp_path):
    """A deck file's card that the standard deck has (name, kind, colour, value, effect) is
    that card, whatever its row; a copy of the standard deck deals exactly as it does."""
    lines = (DECKS_DIR / "fishing2.csv").read_text().splitlines()
    head, rows = lines[0], lines[1:]
    gone = next(r for r in rows if r.split(",")[1] == "light green 14")
    kept = [r for r in rows if r is not gone][::-1]  # every row elsewhere
    body = [head] + [f"{i}," + r.split(",", 1)[1] for i, r in enumerate(kept)]
    (tmp_path / "mine.csv").write_text("\n".join(body) + "\n")
    (tmp_path / "copy.csv").write_text("\n".join(lines) + "\n")
    mine = load_deck(tmp_path / "mine.csv")
    copy = load_deck(tmp_path / "copy.csv")
    assert copy.arrays.shape[1] == K.N_FIELDS and STD.arrays.shape[1] == K.N_FIELDS
    for seed in range(10):
        h0, o0, _, lead0, rng0, st0 = deal(STD, seed, 4)
        h1, o1, _, lead1, rng1, _ = deal(mine, seed, 4)
        assert [sorted(h) for h in h1] == [sorted(h) for h in h0] and lead1 == lead0
        assert o1 == [c for c in o0 if c != "light green 14"] and np.array_equal(rng1, rng0)
        assert np.array_equal(deal(copy, seed, 4)[5], st0)


def test_the_same_name_with_another_value_is_another_card():
    arrays = np.array(STD.arrays)
    arrays[STD.card("blue 26"), K.F_VALUE] = 30
    out = coupled_arrays(arrays, STD.names, "fishing2")
    assert out[STD.card("blue 26"), K.F_STD] == -1
    assert out[STD.card("blue 20"), K.F_STD] == STD.card("blue 20")
    assert np.array_equal(coupled_arrays(STD.arrays, STD.names, "fishing2"), STD.arrays)


def _chi2_ok(counts) -> bool:
    """The counts fit a uniform distribution: chi-square below its 0.999 quantile
    (Wilson-Hilferty)."""
    counts = np.asarray(counts, float)
    df = counts.size - 1
    e = counts.sum() / counts.size
    chi2 = float(((counts - e) ** 2 / e).sum())
    q = df * (1 - 2 / (9 * df) + 3.0902 * math.sqrt(2 / (9 * df))) ** 3
    return chi2 < q


def test_an_edited_decks_deals_stay_uniform():
    """Over many deals an added card lies at every place of its tier equally often, and so
    does a card of a tier the edit took cards out of (fixed seeds: a chi-square test)."""
    ed = edit_deck(STD, remove=["blue 26", "yellow 26"],
                   add=[dict(CARD, name="blue 27", colour="blue", value=27)])
    n = int(np.sum((ed.arrays[:, K.F_TIER] == 4) & (ed.arrays[:, K.F_MIN_PLAYERS] <= 4)))
    at_added = np.zeros(n, np.int64)
    at_kept = np.zeros(n, np.int64)
    first_added = np.zeros(2, np.int64)  # [1]: the added card lies above a kept one
    for seed in range(6000):
        _, ocean, tiers, _, _, _ = deal(ed, 1000 + seed, 4)
        top = tiers.index(4)
        block = ocean[top:top + n]
        at_added[block.index("blue 27")] += 1
        at_kept[block.index("light green 13")] += 1
        first_added[block.index("blue 27") < block.index("light green 13")] += 1
    assert _chi2_ok(at_added) and _chi2_ok(at_kept)
    assert abs(first_added[1] / 6000 - 0.5) < 3.3 * math.sqrt(0.25 / 6000)
