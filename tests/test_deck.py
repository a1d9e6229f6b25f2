"""Deck files against docs/rules.md A1, A2, A3, B1, D1, D2, and the loader's validation messages."""

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from fishing2sim.config.deck import DECKS_DIR, Deck, DeckError, deck_for, load_deck
from fishing2sim.engine.constants import (
    C_BOTH, C_NONE, E_NONE, F_COLOUR, F_EFFECT, F_KIND, F_MIN_PLAYERS, F_TIER, F_VALUE,
    K_BLOWFISH, K_BUOY, K_COLOUR, K_GREEN, MAX_PLAYERS, N_FIELDS,
)

A3 = {3: [10, 10, 11, 11, 12, 12, 13, 13], 4: [9, 9, 10, 10, 11, 11, 12, 12],
      5: [8, 8, 9, 9, 10, 10, 11, 11]}


@pytest.fixture(scope="module")
def f2() -> Deck:
    return deck_for("fishing2")


@pytest.fixture(scope="module")
def f1() -> Deck:
    return deck_for("fishing")


def ids(deck: Deck, names) -> set[int]:
    return {deck.card(n) for n in names}


def tier_set(deck: Deck, tier: int) -> set[int]:
    return set(np.flatnonzero(deck.arrays[:, F_TIER] == tier).tolist())


# ---- Fishing 2 -------------------------------------------------------------------------------
def test_fishing2_shape(f2):
    assert f2.arrays.shape == (99, N_FIELDS) and f2.arrays.dtype == np.int64
    assert len(f2.names) == 99 and len(f2.table) == 99
    assert f2.n_rounds == 8 and f2.hand_sizes.shape == (MAX_PLAYERS + 1, 8)
    assert list(f2.table["id"]) == list(range(99))
    assert len(f2.sha256) == 64


def test_fishing2_order_and_names(f2):
    assert f2.names[:20] == tuple(f"blue {v}" for v in range(1, 21))
    assert f2.names[20:40] == tuple(f"yellow {v}" for v in range(1, 21))
    assert f2.names[40:52] == tuple(f"red {v}" for v in range(1, 13))
    assert f2.names[52:54] == ("blue 26", "yellow 26")
    assert f2.names[54:69] == tuple(f"light green {v}" for v in range(1, 16))
    assert f2.names[69:84] == tuple(f"dark green {v}" for v in range(1, 16))
    assert f2.names[84:86] == ("green 16 (1)", "green 16 (2)")
    assert f2.names[86:92] == tuple(f"blowfish {v}" for v in (21, 22, 23, 24, 25, 27))
    assert f2.names[92:] == (
        "buoy catch-1-other (1)", "buoy catch-1-other (2)", "buoy +3-points",
        "buoy determine-trump", "buoy draw-1-card", "buoy catch-1-card", "buoy exchange-1-card")
    assert f2.card("blue 7") == 6 and f2.name(6) == "blue 7"


def test_fishing2_groups_a1(f2):
    a = f2.arrays
    starting = a[:, F_TIER] == 0
    assert starting.sum() == 40
    assert (a[starting, F_KIND] == K_COLOUR).all()
    assert ((a[:, F_KIND] == K_COLOUR) & ~starting).sum() == 14
    assert (a[:, F_KIND] == K_GREEN).sum() == 32
    assert (a[:, F_KIND] == K_BLOWFISH).sum() == 6
    assert sorted(a[a[:, F_KIND] == K_BLOWFISH, F_VALUE]) == [21, 22, 23, 24, 25, 27]
    assert (a[a[:, F_KIND] == K_BLOWFISH, F_COLOUR] == C_NONE).all()
    buoys = a[:, F_KIND] == K_BUOY
    assert buoys.sum() == 7
    assert (a[buoys, F_VALUE] == -1).all() and (a[buoys, F_COLOUR] == C_NONE).all()
    assert (a[buoys, F_EFFECT] != E_NONE).all() and (a[~buoys, F_EFFECT] == E_NONE).all()
    effects = Counter(f2.table.loc[f2.table["kind"] == "buoy", "effect"])
    assert effects == {"catch-1-other": 2, "+3-points": 1, "determine-trump": 1,
                       "draw-1-card": 1, "catch-1-card": 1, "exchange-1-card": 1}
    assert sorted(a[a[:, F_COLOUR] == C_BOTH, F_VALUE]) == [16, 16]


def test_fishing2_tiers_d1(f2):
    counts = Counter(f2.arrays[f2.arrays[:, F_TIER] > 0, F_TIER].tolist())
    assert counts == {1: 12, 2: 12, 3: 12, 4: 12, 5: 11}
    g = lambda sh, r: [f"{sh} green {v}" for v in r]  # noqa: E731
    assert tier_set(f2, 1) == ids(f2, [f"red {v}" for v in range(1, 13)])
    assert tier_set(f2, 2) == ids(f2, g("light", range(1, 7)) + g("dark", range(1, 7)))
    assert tier_set(f2, 3) == ids(f2, g("light", range(7, 13)) + g("dark", range(7, 13)))
    assert tier_set(f2, 4) == ids(f2, g("light", range(13, 16)) + g("dark", range(13, 16)) + [
        "green 16 (1)", "green 16 (2)", "blue 26", "yellow 26", "buoy +3-points",
        "buoy catch-1-other (1)"])
    assert tier_set(f2, 5) == ids(f2, [f"blowfish {v}" for v in (21, 22, 23, 24, 25, 27)] + [
        "buoy catch-1-other (2)", "buoy determine-trump", "buoy draw-1-card",
        "buoy catch-1-card", "buoy exchange-1-card"])


def test_fishing2_four_plus_marks_d1(f2):
    ocean = f2.arrays[:, F_TIER] > 0
    marked = set(np.flatnonzero(ocean & (f2.arrays[:, F_MIN_PLAYERS] == 4)).tolist())
    assert marked == ids(f2, ["red 1", "red 2", "red 3", "light green 1", "light green 2",
                              "dark green 1", "dark green 2", "blowfish 21"])
    assert (f2.arrays[ocean, F_MIN_PLAYERS] <= 4).all()
    assert ocean.sum() == 59


def test_fishing2_starting_cards_a2(f2):
    a = f2.arrays
    start = a[:, F_TIER] == 0
    for p, n in ((3, 30), (4, 36), (5, 40)):
        assert (start & (a[:, F_MIN_PLAYERS] <= p)).sum() == n
        assert n == p * f2.hand_sizes[p, 0]
    # 3 players remove values 1-5, 4 players values 1-2
    assert set(a[start & (a[:, F_MIN_PLAYERS] > 3), F_VALUE]) == {1, 2, 3, 4, 5}
    assert set(a[start & (a[:, F_MIN_PLAYERS] > 4), F_VALUE]) == {1, 2}


def test_fishing2_hand_table_a3(f2):
    for p, row in A3.items():
        assert f2.hand_sizes[p].tolist() == row
    assert not f2.hand_sizes[:3].any()


def test_arrays_read_only(f2):
    with pytest.raises(ValueError):
        f2.arrays[0, 0] = 1


def test_card_lookup_errors(f2):
    assert f2.card("Blue  7") == 6
    with pytest.raises(ValueError, match="close matches: 'blue 7'"):
        f2.card("blue 77")
    with pytest.raises(ValueError):
        f2.name(99)


def test_unknown_ruleset():
    with pytest.raises(ValueError, match="unknown ruleset 'x': choose fishing2 or fishing"):
        deck_for("x")
    with pytest.raises(ValueError, match="unknown ruleset"):
        load_deck(ruleset="x")


def test_default_decks_cached():
    assert load_deck() is deck_for("fishing2")
    assert load_deck(ruleset="fishing") is deck_for("fishing")


# ---- Fishing ---------------------------------------------------------------------------------
def test_fishing_groups_b1(f1):
    t = f1.table
    assert len(t) == 100 and f1.arrays.shape == (100, N_FIELDS)
    start = t["tier"] == 0
    assert start.sum() == 40
    for c in ("blue", "yellow", "purple", "red"):
        assert sorted(t.loc[start & (t["colour"] == c), "value"]) == list(range(1, 11))
        assert sorted(t.loc[~start & (t["colour"] == c) & (t["effect"] == "none"), "value"]) \
            == list(range(11, 19))
    green = (t["kind"] == "green") & (t["effect"] == "none")
    assert sorted(t.loc[green, "value"]) == list(range(1, 17))
    assert (t.loc[green, "colour"] == "green").all()
    zeros = t[t["effect"] == "zero"]
    assert sorted(zeros["name"]) == sorted(f"{c} 0" for c in
                                           ("blue", "yellow", "purple", "red", "green"))
    assert (zeros["value"] == 0).all()
    assert zeros.set_index("name").loc["green 0", "kind"] == "green"
    assert (zeros.set_index("name").drop("green 0")["kind"] == "colour").all()
    buoys = t[t["kind"] == "buoy"]
    assert Counter(buoys["effect"]) == {"pass-1-left": 1, "minus-3": 2, "catch-all-others": 1,
                                        "play-first": 1, "determine-colour": 1, "lowest-wins": 1}
    assert "buoy minus-3 (2)" in f1.names and "buoy lowest-wins" in f1.names


def test_fishing_tiers_d2(f1):
    counts = Counter(f1.arrays[f1.arrays[:, F_TIER] > 0, F_TIER].tolist())
    assert counts == {1: 12, 2: 12, 3: 12, 4: 12, 5: 12}
    C4 = ("blue", "yellow", "purple", "red")
    col = lambda r: [f"{c} {v}" for c in C4 for v in r]  # noqa: E731
    assert tier_set(f1, 1) == ids(f1, col(range(11, 14)))
    assert tier_set(f1, 2) == ids(f1, col(range(14, 17)))
    assert tier_set(f1, 3) == ids(f1, col(range(17, 19)) + [f"green {v}" for v in range(1, 5)])
    assert tier_set(f1, 4) == ids(f1, [f"green {v}" for v in range(5, 15)]
                                  + ["buoy minus-3 (1)", "buoy minus-3 (2)"])
    assert tier_set(f1, 5) == ids(f1, ["green 15", "green 16"] + [f"{c} 0" for c in C4] + [
        "green 0", "buoy pass-1-left", "buoy catch-all-others", "buoy play-first",
        "buoy determine-colour", "buoy lowest-wins"])
    ocean = f1.arrays[:, F_TIER] > 0
    assert (f1.arrays[ocean, F_MIN_PLAYERS] == 3).all()  # no "4+" marks


def test_fishing_starting_cards_b1(f1):
    t = f1.table
    start = t["tier"] == 0
    for p, n in ((3, 30), (4, 36), (5, 40)):
        assert (start & (t["min_players"] <= p)).sum() == n == p * f1.hand_sizes[p, 0]
    removed3 = set(t.loc[start & (t["min_players"] > 3), "name"])
    assert removed3 == {f"{c} {v}" for c in ("blue", "yellow", "purple", "red") for v in (1, 2)} \
        | {"blue 3", "red 3"}
    removed4 = set(t.loc[start & (t["min_players"] > 4), "name"])
    assert removed4 == {f"{c} 1" for c in ("blue", "yellow", "purple", "red")}
    for p, row in A3.items():
        assert f1.hand_sizes[p].tolist() == row


# ---- malformed decks -------------------------------------------------------------------------
def copy_deck(tmp_path: Path, ruleset="fishing2", edit=None, hands=True) -> Path:
    src = DECKS_DIR / f"{ruleset}.csv"
    lines = src.read_text().splitlines()
    if edit:
        lines = edit(lines)
    dst = tmp_path / "mydeck.csv"
    dst.write_text("\n".join(lines) + "\n")
    if hands:
        (tmp_path / "mydeck_hands.csv").write_text((DECKS_DIR / f"{ruleset}_hands.csv").read_text())
    return dst


def replace_row(n, old, new):
    """Replace text in data row n (1-based)."""
    def edit(lines):
        assert old in lines[n]
        lines[n] = lines[n].replace(old, new, 1)
        return lines
    return edit


def test_user_deck_copy_loads(tmp_path):
    d = load_deck(copy_deck(tmp_path))
    assert d.hands_path == tmp_path / "mydeck_hands.csv"
    assert np.array_equal(d.arrays, deck_for("fishing2").arrays)
    assert d.sha256 == deck_for("fishing2").sha256
    # without its own hand table: the ruleset's default
    other = tmp_path / "other"
    other.mkdir()
    d2 = load_deck(copy_deck(other, hands=False))
    assert d2.hands_path == DECKS_DIR / "fishing2_hands.csv"
    assert load_deck(copy_deck(tmp_path, "fishing"), ruleset="fishing").n_cards == 100


def test_bad_value(tmp_path):
    # row 7 = blue 7
    p = copy_deck(tmp_path, edit=replace_row(7, ",7,none", ",seven,none"))
    with pytest.raises(DeckError) as e:
        load_deck(p)
    msg = str(e.value)
    assert "mydeck.csv" in msg and "row 7" in msg and "id 6" in msg and "'value'" in msg
    assert "'seven' is not an integer" in msg


def test_unknown_colour(tmp_path):
    p = copy_deck(tmp_path, edit=replace_row(3, ",blue,", ",purple,"))
    with pytest.raises(DeckError) as e:
        load_deck(p)
    msg = str(e.value)
    assert "row 3" in msg and "id 2" in msg and "'colour'" in msg and "'purple'" in msg
    assert "allowed: none, blue, yellow, red, light, dark, both" in msg


def test_unknown_kind_and_effect(tmp_path):
    p = copy_deck(tmp_path, edit=replace_row(5, ",colour,", ",fish,"))
    with pytest.raises(DeckError, match=r"row 5 \(id 4\), column 'kind'.*allowed: colour"):
        load_deck(p)
    p = copy_deck(tmp_path, edit=replace_row(99, "exchange-1-card,5", "zero,5"))
    with pytest.raises(DeckError, match=r"row 99 \(id 98\), column 'effect'"):
        load_deck(p)


def test_duplicate_id(tmp_path):
    p = copy_deck(tmp_path, edit=replace_row(11, "10,", "9,"))
    with pytest.raises(DeckError) as e:
        load_deck(p)
    msg = str(e.value)
    assert "row 11" in msg and "'id'" in msg and "duplicate id 9" in msg and "row 10" in msg


def test_ids_out_of_order(tmp_path):
    p = copy_deck(tmp_path, edit=replace_row(11, "10,", "110,"))
    with pytest.raises(DeckError, match=r"row 11 \(id 110\), column 'id'.*expected 10"):
        load_deck(p)


def test_duplicate_name(tmp_path):
    p = copy_deck(tmp_path, edit=replace_row(2, "blue 2", "blue 1"))
    with pytest.raises(DeckError, match=r"row 2 \(id 1\), column 'name'.*duplicate name"):
        load_deck(p)


def test_missing_and_extra_column(tmp_path):
    def drop_tier(lines):
        return [",".join(c for i, c in enumerate(l.split(",")) if i != 6) for l in lines]
    with pytest.raises(DeckError) as e:
        load_deck(copy_deck(tmp_path, edit=drop_tier))
    msg = str(e.value)
    assert "mydeck.csv" in msg and "header row" in msg and "column 'tier' is missing" in msg

    def add_col(lines):
        return [l + (",notes" if i == 0 else ",") for i, l in enumerate(lines)]
    with pytest.raises(DeckError, match="header row: unexpected column 'notes'"):
        load_deck(copy_deck(tmp_path, edit=add_col))


def test_bad_tier_and_min_players(tmp_path):
    p = copy_deck(tmp_path, edit=replace_row(41, ",1,4", ",6,4"))  # red 1
    with pytest.raises(DeckError, match=r"row 41 \(id 40\), column 'tier'.*found 6"):
        load_deck(p)
    p = copy_deck(tmp_path, edit=replace_row(41, ",1,4", ",1,2"))
    with pytest.raises(DeckError, match=r"row 41 \(id 40\), column 'min_players'.*found 2"):
        load_deck(p)
    p = copy_deck(tmp_path, edit=replace_row(41, ",1,4", ",1,x"))
    with pytest.raises(DeckError, match=r"row 41 \(id 40\), column 'min_players'.*not an integer"):
        load_deck(p)


def test_buoy_without_effect(tmp_path):
    p = copy_deck(tmp_path, edit=replace_row(95, "+3-points,4", "none,4"))
    with pytest.raises(DeckError, match=r"row 95 \(id 94\), column 'effect'.*needs an effect"):
        load_deck(p)


def test_wrong_card_count(tmp_path):
    # a user's deck may have any number of cards (1..MAX_CARDS); the shipped files must
    # have the ruleset's count (99 / 100)
    p = copy_deck(tmp_path, edit=lambda lines: lines[:-1])
    assert load_deck(p).n_cards == 98
    from fishing2sim.config.deck import _parse_cards
    with pytest.raises(DeckError, match="fishing2 deck must have 99 cards.*has 98"):
        _parse_cards(p, "fishing2", exact=True)
    empty = copy_deck(tmp_path, edit=lambda lines: lines[:1])
    with pytest.raises(DeckError, match="no cards"):
        load_deck(empty)


def test_starting_cards_vs_hand_table(tmp_path):
    # blue 3 (row 3) made available with 3 players: 31 starting cards vs 3 x 10 dealt
    p = copy_deck(tmp_path, edit=replace_row(3, ",0,4", ",0,3"))
    with pytest.raises(DeckError) as e:
        load_deck(p)
    msg = str(e.value)
    assert "mydeck_hands.csv" in msg and "players 3" in msg and "'round_1'" in msg
    assert "31 starting cards" in msg and "30 are dealt" in msg


def test_bad_hand_table(tmp_path):
    p = copy_deck(tmp_path)
    hands = tmp_path / "mydeck_hands.csv"
    good = hands.read_text()
    hands.write_text(good.replace("4,9,9,10", "4,9,0,10"))
    with pytest.raises(DeckError, match=r"row 2 \(players 4\), column 'round_2'.*positive"):
        load_deck(p)
    hands.write_text("\n".join(good.splitlines()[:-1]) + "\n")
    with pytest.raises(DeckError, match="no row for 5 players"):
        load_deck(p)
    hands.write_text(good.replace("round_3", "round_x"))
    with pytest.raises(DeckError, match="header row: column 'round_x'"):
        load_deck(p)
    # fewer rounds is allowed: the number of rounds follows the table
    lines = [",".join(l.split(",")[:5]) for l in good.splitlines()]
    hands.write_text("\n".join(lines) + "\n")
    assert load_deck(p).n_rounds == 4


def test_an_edited_deck_names_what_its_edits_changed():
    """remove_from_tier removes cards by position (the tier's last rows): the deck says
    which, by name, for the report; a deck file as it is has no changes."""
    from fishing2sim.config.deck_edits import edit_deck

    d = load_deck(None, ruleset="fishing2")
    assert d.changes == ()
    tier4 = [i for i in range(d.n_cards) if d.arrays[i, F_TIER] == 4]
    gone = [d.names[i] for i in tier4[-2:]]
    e = edit_deck(d, remove_from_tier={4: 2})
    assert e.changes == (f"without {gone[0]} and {gone[1]}",)
    assert not set(gone) & set(e.names)
    m = edit_deck(e, remove=["blue 26"], move={"blowfish 21": 4}, rounds=7)
    assert m.changes == e.changes + ("without blue 26", "blowfish 21 to tier 4", "7 rounds")
    assert edit_deck(d, remove_from_tier={4: 0}).changes == ()


def test_the_reports_conditions_table_names_the_cards_an_edit_removed(tmp_path):
    from fishing2sim.config.experiment import load_experiment
    from fishing2sim.study import run

    p = tmp_path / "edit.yaml"
    p.write_text(f"name: edit\noutput: {tmp_path}\nplayers: 4\ngames: 100\nchunk: 100\n"
                 "seats: random\nanalyses: [overfishing]\nsweep:\n  deck.remove_from_tier.4:\n"
                 "    - {value: 0, label: standard deck, baseline: true}\n"
                 "    - {value: 2, label: fewer}\n")
    exp = load_experiment(p)
    gone = exp.conditions[1].deck.changes[0]
    assert gone.startswith("without ") and " and " in gone
    run(exp, workers=1, progress=False)
    summary = (tmp_path / "edit" / "summary.md").read_text()
    header = next(line for line in summary.splitlines() if line.startswith("| condition |"))
    assert "| deck |" in header
    assert f"| {gone} |" in summary and "| the deck file's |" in summary
    assert gone in (tmp_path / "edit" / "report.html").read_text()
