"""docs/rules.md part A (Fishing 2), one scripted table per rule and ruling.

Every test sets a table up by hand (tests/scenario.py), lets the seats play by preference
lists and asserts exact outcomes: who played what, the highest and weakest card, who caught
which cards, points, trump, leader, hands, boats and the ocean.

Project rulings beyond docs/rules.md that are tested here as well:
  (1) determine-trump is forfeited when the hands are empty at the moment the buoy resolves
      (a draw-1-card resolved earlier in the same trick counts, a later one does not);
  (2) exchange-1-card with no other card left in the trick does nothing;
  (3) a decision with a single option is not asked of the strategy;
  (4) catch-1-card and draw-1-card go in the trick's play order;
  (5) a face-down card is an option of a later catch-1-other / exchange in the same trick.

Seats are 0..P-1 clockwise; the default table has 4 players, round 2, light trump, seat 0
leading. A hand's "spare" cards only keep the hands non-empty after the trick.
A table's hand_sizes must keep the real round-1 deal (9 with 4 players): the setup deals the
starting cards with it and stops the game (t.ended == "error") if it does not fit.
"""
from __future__ import annotations

from collections import Counter

import pytest

from fishing2sim.api import play_game
from fishing2sim.engine import constants as K
from scenario import DECK, Table, load_test_bot, only

OTHER = {"light": "dark", "dark": "light"}


# ---- helpers ----------------------------------------------------------------------------
def plays(ev):
    return [(e["player"], e["card"]) for e in only(ev, "play")]


def result(ev):
    """(highest player, highest card, weakest player, weakest card) of the one trick in ev."""
    r = only(ev, "trick_result")
    assert len(r) == 1
    r = r[0]
    return r["highest_player"], r["highest_card"], r["weakest_player"], r["weakest_card"]


def caught(ev):
    return [(e["player"], e["card"], e["by"]) for e in only(ev, "caught")]


def legal_cards(seat, hands, prefer=None, **table):
    """The cards ``seat`` may play in the trick set up by hands / prefer / table.

    Black box: each of the seat's hand cards is tried as its only preference; the scripted
    seat plays it exactly when it is one of its options (else it plays another card)."""
    legal = []
    for c in hands[seat]:
        pr = dict(prefer or {})
        pr[seat] = [c]
        t = Table(hands=hands, prefer=pr, **table)
        ev = t.play_trick()
        assert t.ended is None
        if (seat, c) in plays(ev):
            legal.append(c)
    return sorted(legal)


def index(ev, pred):
    for i, e in enumerate(ev):
        if pred(e):
            return i
    raise AssertionError("no such event")


def use_strategy(t, seat, strategy):
    """Seat ``seat`` of table t plays by ``strategy`` (a loaded strategy) from now on."""
    t.strats = tuple(
        tuple(strategy.functions[k] if s == seat else t.strats[k][s] for s in range(len(t.strats[k])))
        for k in range(len(t.strats)))


# =========================================================================================
# A2 / A3: setup and hand sizes, on whole games
# =========================================================================================
@pytest.mark.parametrize("players, removed, deal", [(3, range(1, 6), 10), (4, range(1, 3), 9),
                                                     (5, range(0), 8)])
def test_setup_starting_cards_and_tiered_ocean(players, removed, deal):
    g = play_game(players, seed=3)
    dealt = [e for e in g.events if e["event"] == "deal"]
    per_seat = Counter(e["player"] for e in dealt)
    assert per_seat == {p: deal for p in range(players)}
    values = {f"{c} {v}" for c in ("blue", "yellow") for v in range(1, 21) if v not in removed}
    assert {e["card"] for e in dealt} == values
    ocean = [e["card"] for e in sorted((e for e in g.events if e["event"] == "ocean"),
                                       key=lambda e: e["position"])]
    tiers = [int(DECK.table.loc[DECK.card(c), "tier"]) for c in ocean]
    assert tiers == sorted(tiers) and tiers[0] == 1 and tiers[-1] == 5  # tier 1 on top
    four_plus = {"red 1", "red 2", "red 3", "light green 1", "light green 2", "dark green 1",
                 "dark green 2", "blowfish 21"}
    if players == 3:
        assert len(ocean) == 59 - 8 and not four_plus & set(ocean)
    else:
        assert len(ocean) == 59 and four_plus <= set(ocean)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_round_hand_sizes(players):
    # A3: each round starts with the table's hand size (hands are empty between rounds)
    sizes = {3: [10, 10, 11, 11, 12, 12, 13, 13], 4: [9, 9, 10, 10, 11, 11, 12, 12],
             5: [8, 8, 9, 9, 10, 10, 11, 11]}[players]
    seen = 0
    for seed in range(6):
        g = play_game(players, seed=seed)
        rnd = 0
        drawn = Counter()
        for e in g.events:
            if e["event"] == "round_start":
                rnd = e["round"]
                assert e["hand_size"] == sizes[rnd - 1]
            elif e["event"] == "draw" and e["cause"] == "round":
                drawn[(rnd, e["player"])] += 1
        for r in range(2, g.rounds_played + 1):
            assert [drawn[(r, p)] for p in range(players)] == [sizes[r - 1]] * players
            seen += 1
    assert seen > 0


# =========================================================================================
# A4: suits and trump
# =========================================================================================
@pytest.mark.parametrize("trump", ["light", "dark"])
def test_inactive_shade_is_a_fourth_colour(trump):
    off = OTHER[trump]
    hands = {0: [f"{off} green 5", "red 1"],
             1: [f"{off} green 3", f"{trump} green 9", "blue 4"],
             2: ["blue 10", f"{trump} green 1"],
             3: [f"{off} green 9", "red 2"]}
    prefer = {1: [f"{trump} green 9", "blue 4", f"{off} green 3"], 2: [f"{trump} green 1"],
              3: ["red 2", f"{off} green 9"]}
    # holding the inactive shade, seat 1 must follow with it (not trump, not shed)
    assert legal_cards(1, hands, prefer, trump=trump) == [f"{off} green 3"]
    assert legal_cards(3, hands, prefer, trump=trump) == [f"{off} green 9"]
    # seat 2 holds none of it: it may trump or shed
    assert legal_cards(2, hands, prefer, trump=trump) == sorted(["blue 10", f"{trump} green 1"])
    t = Table(trump=trump, hands=hands, prefer=prefer)
    ev = t.play_trick()
    assert plays(ev) == [(0, f"{off} green 5"), (1, f"{off} green 3"), (2, f"{trump} green 1"),
                         (3, f"{off} green 9")]
    # the trump 1 beats the inactive 9; weakest = lowest card of the led (inactive) colour
    assert result(ev) == (2, f"{trump} green 1", 1, f"{off} green 3")
    assert t.fisher(2) == sorted([f"{off} green 5", f"{off} green 3", f"{trump} green 1",
                                  f"{off} green 9"])


@pytest.mark.parametrize("trump", ["light", "dark"])
def test_16_is_always_trump(trump):
    off = OTHER[trump]
    # the inactive shade is led: a 16 does not follow it, it trumps it
    hands = {0: [f"{off} green 14", "red 1"], 1: ["green 16 (1)", "blue 9"],
             2: ["green 16 (2)", f"{off} green 2"], 3: [f"{trump} green 1", "red 7"]}
    prefer = {1: ["green 16 (1)"], 2: ["green 16 (2)", f"{off} green 2"],
              3: [f"{trump} green 1"]}
    # seat 2 holds a 16 and an inactive card: the 16 is not the inactive colour
    assert legal_cards(2, hands, prefer, trump=trump) == [f"{off} green 2"]
    # seat 1 holds a 16 but no inactive card: it may play anything
    assert legal_cards(1, hands, prefer, trump=trump) == ["blue 9", "green 16 (1)"]
    t = Table(trump=trump, hands=hands, prefer=prefer)
    ev = t.play_trick()
    assert plays(ev) == [(0, f"{off} green 14"), (1, "green 16 (1)"), (2, f"{off} green 2"),
                         (3, f"{trump} green 1")]
    # the 16 is a trump: it beats the trump 1 (as an inactive card the trump 1 would win)
    assert result(ev) == (1, "green 16 (1)", 2, f"{off} green 2")
    assert t.leader == 1
    # trump led: a 16 follows trump (a player holding a 16 must play it)
    hands = {0: [f"{trump} green 5"], 1: ["green 16 (2)", "blue 9", f"{off} green 3"],
             2: ["red 4"], 3: ["red 5"]}
    assert legal_cards(1, hands, trump=trump) == ["green 16 (2)"]


def test_round_1_has_no_trump():
    # A4: round 1 is played without trump; the trump choice is first made in round 2
    t = Table(round=1, leader=0, n_rounds=2, hand_sizes=[9, 1],
              hands={0: ["blue 3", "blue 15"], 1: ["yellow 20", "yellow 19"],
                     2: ["blue 2", "blue 14"], 3: ["yellow 1", "yellow 2"]},
              boats={p: [f"red {p + 1}"] for p in range(4)},
              prefer={0: ["blue 3"], 1: ["yellow 20", "shade:dark"], 2: ["blue 2"],
                      3: ["yellow 1"]})
    assert t.trump is None
    ev = t.play_trick()
    assert only(ev, "trick_start")[0]["trump"] is None
    assert result(ev) == (0, "blue 3", 3, "yellow 1")  # yellow 20 is shed, not trump
    assert t.trump is None
    ev = t.run()  # trick 2 of round 1, then round 2 (seat 1 leads: fewest points, earliest)
    assert [e["round"] for e in only(ev, "trump_choice")] == [2]
    starts = only(ev, "trick_start")
    assert [(s["round"], s["trump"]) for s in starts] == [(1, None), (2, "dark")]
    assert [(e["player"], e["shade"]) for e in only(ev, "trump_choice")] == [(1, "dark")]


# =========================================================================================
# A5: playing a trick
# =========================================================================================
def test_leader_may_lead_any_card():
    lead = ["blue 5", "light green 3", "dark green 4", "green 16 (1)", "blowfish 22",
            "buoy +3-points", "buoy catch-1-card"]
    hands = {0: lead, 1: ["red 1"], 2: ["red 2"], 3: ["red 3"]}
    assert legal_cards(0, hands) == sorted(lead)
    assert legal_cards(0, hands, round=1) == sorted(lead)


def test_must_follow_led_colour():
    hands = {0: ["blue 5"], 1: ["blue 9", "yellow 3", "light green 2", "dark green 7", "blue 1"],
             2: ["red 1"], 3: ["red 2"]}
    assert legal_cards(1, hands) == ["blue 1", "blue 9"]
    t = Table(hands=hands, prefer={1: ["yellow 3", "light green 2", "blue 9"]})
    ev = t.play_trick()
    assert plays(ev)[1] == (1, "blue 9")


def test_must_follow_trump_when_trump_led():
    hands = {0: ["light green 5"],
             1: ["light green 2", "green 16 (2)", "dark green 9", "blue 1", "red 4"],
             2: ["red 1"], 3: ["red 2"]}
    assert legal_cards(1, hands, trump="light") == ["green 16 (2)", "light green 2"]
    # under dark trump the same lead is an inactive colour: the 16 is no longer a follow
    assert legal_cards(1, hands, trump="dark") == ["light green 2"]


@pytest.mark.parametrize("lead", ["blue 5", "light green 5"])
def test_buoys_and_blowfish_may_always_be_played(lead):
    hands = {0: [lead], 1: ["blue 9", "light green 9", "blowfish 23", "buoy catch-1-other (1)",
                            "yellow 3"],
             2: ["red 1"], 3: ["red 2"]}
    follow = "blue 9" if lead.startswith("blue") else "light green 9"
    assert legal_cards(1, hands) == sorted([follow, "blowfish 23", "buoy catch-1-other (1)"])


def test_buoy_lead_leaves_suit_open():
    hands = {0: ["buoy +3-points", "red 12"], 1: ["blue 9", "yellow 3", "light green 2", "red 1"],
             2: ["yellow 10", "blue 2"], 3: ["blue 4", "red 8"]}
    assert legal_cards(1, hands) == sorted(hands[1])  # nothing set by the buoy
    prefer = {1: ["yellow 3"], 2: ["blue 2", "yellow 10"], 3: ["blue 4"]}
    assert legal_cards(2, hands, prefer) == ["yellow 10"]  # the yellow 3 set the suit
    assert legal_cards(3, hands, prefer) == ["blue 4", "red 8"]
    t = Table(hands=hands, prefer=prefer)
    ev = t.play_trick()
    assert plays(ev) == [(0, "buoy +3-points"), (1, "yellow 3"), (2, "yellow 10"), (3, "blue 4")]
    assert result(ev) == (2, "yellow 10", 3, "blue 4")
    assert t.fisher(2) == sorted(["buoy +3-points", "yellow 3", "yellow 10", "blue 4"])
    assert t.points(0) == 3


def test_blowfish_lead_leaves_suit_open():
    hands = {0: ["blowfish 22", "red 12"], 1: ["blue 9", "yellow 3", "light green 2", "red 1"],
             2: ["yellow 10", "blue 2"], 3: ["blue 4", "red 8"]}
    assert legal_cards(1, hands) == sorted(hands[1])
    prefer = {1: ["yellow 3"], 2: ["blue 2", "yellow 10"], 3: ["blue 4"]}
    assert legal_cards(2, hands, prefer) == ["yellow 10"]
    t = Table(hands=hands, prefer=prefer)
    ev = t.play_trick()
    assert plays(ev) == [(0, "blowfish 22"), (1, "yellow 3"), (2, "yellow 10"), (3, "blue 4")]
    # the blowfish takes the suit the yellow 3 set: it is the highest yellow card
    assert result(ev) == (0, "blowfish 22", 3, "blue 4")
    assert t.fisher(3) == ["blowfish 22"]
    assert t.fisher(0) == sorted(["yellow 3", "yellow 10", "blue 4"])
    assert t.leader == 0


@pytest.mark.parametrize("lead, trump", [("blue 5", "light"), ("light green 5", "light")])
def test_holding_only_blowfish_is_not_holding_the_led_suit(lead, trump):
    hands = {0: [lead], 1: ["blowfish 22", "yellow 3", "buoy +3-points", "dark green 4"],
             2: ["red 1"], 3: ["red 2"]}
    assert legal_cards(1, hands, trump=trump) == sorted(hands[1])
    t = Table(trump=trump, hands=hands, prefer={1: ["yellow 3"]})
    assert plays(t.play_trick())[1] == (1, "yellow 3")


def test_without_led_suit_any_card():
    hands = {0: ["blue 5"], 1: ["yellow 3", "light green 2", "dark green 9", "red 4"],
             2: ["blue 12", "red 1"], 3: ["red 6", "yellow 1"]}
    assert legal_cards(1, hands) == sorted(hands[1])
    t = Table(hands=hands, prefer={1: ["light green 2"], 2: ["red 1", "blue 12"], 3: ["red 6"]})
    ev = t.play_trick()
    assert plays(ev) == [(0, "blue 5"), (1, "light green 2"), (2, "blue 12"), (3, "red 6")]
    # seat 1 trumps (highest), seat 3 sheds (weakest)
    assert result(ev) == (1, "light green 2", 3, "red 6")


# =========================================================================================
# A6: highest card
# =========================================================================================
def test_highest_trump_wins():
    t = Table(trump="light", hands={0: ["blue 20"], 1: ["light green 3"], 2: ["light green 9"],
                                     3: ["blue 26"]})
    ev = t.play_trick()
    assert result(ev) == (2, "light green 9", 0, "blue 20")
    assert t.fisher(2) == sorted(["blue 20", "light green 3", "light green 9", "blue 26"])
    assert t.leader == 2


def test_highest_of_led_colour_wins_without_trump():
    t = Table(trump="light", hands={0: ["red 5"], 1: ["red 9"], 2: ["yellow 20"],
                                     3: ["dark green 15"]})
    ev = t.play_trick()
    # the yellow 20 and the inactive dark 15 are shed: higher values, but not the led colour
    assert result(ev) == (1, "red 9", 3, "dark green 15")
    assert t.fisher(1) == sorted(["red 5", "red 9", "yellow 20", "dark green 15"])
    assert t.leader == 1


@pytest.mark.parametrize("first, second", [("green 16 (1)", "green 16 (2)"),
                                           ("green 16 (2)", "green 16 (1)")])
def test_second_16_beats_first(first, second):
    t = Table(trump="dark", hands={0: ["dark green 5"], 1: [first], 2: [second],
                                    3: ["dark green 15"]})
    ev = t.play_trick()
    assert result(ev) == (2, second, 0, "dark green 5")
    assert t.leader == 2


def test_blowfish_is_trump_when_trump_led():
    t = Table(trump="light", hands={0: ["light green 10"], 1: ["light green 15"],
                                     2: ["blowfish 21"], 3: ["green 16 (1)"]})
    ev = t.play_trick()
    assert result(ev) == (2, "blowfish 21", 0, "light green 10")
    assert t.fisher(0) == ["blowfish 21"]
    assert t.fisher(2) == sorted(["light green 10", "light green 15", "green 16 (1)"])
    assert t.leader == 2


def test_blowfish_counts_as_led_colour():
    t = Table(hands={0: ["red 5"], 1: ["red 12"], 2: ["blowfish 23"], 3: ["yellow 7"]})
    ev = t.play_trick()
    assert result(ev) == (2, "blowfish 23", 3, "yellow 7")
    assert t.fisher(3) == ["blowfish 23"]
    assert t.fisher(2) == sorted(["red 5", "red 12", "yellow 7"])


def test_blowfish_can_be_the_weakest_card():
    # yellow 26 led, trumped; nothing shed: the lowest card of the led suit, blowfish
    # included, is the blowfish 22, whose player then catches both blowfish
    t = Table(trump="light", hands={0: ["yellow 26"], 1: ["blowfish 22"], 2: ["light green 3"],
                                     3: ["blowfish 25"]})
    ev = t.play_trick()
    assert result(ev) == (2, "light green 3", 1, "blowfish 22")
    assert t.fisher(1) == ["blowfish 22", "blowfish 25"]
    assert t.fisher(2) == ["light green 3", "yellow 26"]


def test_blowfish_is_not_trump_when_a_colour_is_trumped():
    t = Table(trump="light", hands={0: ["red 5"], 1: ["light green 2"], 2: ["blowfish 27"],
                                     3: ["red 12"]})
    ev = t.play_trick()
    assert result(ev) == (1, "light green 2", 0, "red 5")
    assert t.fisher(0) == ["blowfish 27"]
    assert t.fisher(1) == sorted(["red 5", "light green 2", "red 12"])
    assert t.leader == 1


def test_buoys_are_never_highest_or_weakest():
    t = Table(hands={0: ["buoy +3-points"], 1: ["blue 3"], 2: ["blue 2"], 3: ["blue 1"]})
    ev = t.play_trick()
    assert result(ev) == (1, "blue 3", 3, "blue 1")
    assert t.fisher(1) == sorted(["buoy +3-points", "blue 3", "blue 2", "blue 1"])


def test_only_buoys_first_buoy_catches():
    t = Table(players=3, leader=1, trump="light",
              hands={1: ["buoy +3-points", "blue 4"], 2: ["buoy determine-trump", "blue 5"],
                     0: ["buoy catch-1-other (1)", "blue 3"]},
              prefer={1: ["buoy +3-points"], 2: ["buoy determine-trump", "shade:dark"],
                      0: ["buoy catch-1-other (1)", "buoy determine-trump"]})
    ev = t.play_trick()
    assert plays(ev) == [(1, "buoy +3-points"), (2, "buoy determine-trump"),
                         (0, "buoy catch-1-other (1)")]
    assert result(ev) == (1, None, None, None)
    assert t.fisher(0) == ["buoy determine-trump"]
    assert t.fisher(1) == sorted(["buoy +3-points", "buoy catch-1-other (1)"])
    assert t.fisher(2) == []
    assert t.points(1) == 3 and t.trump == "dark" and t.leader == 1


def test_no_suit_set_highest_and_lowest_blowfish():
    t = Table(hands={0: ["buoy +3-points"], 1: ["blowfish 24"], 2: ["blowfish 21"],
                     3: ["blowfish 27"]})
    ev = t.play_trick()
    assert result(ev) == (3, "blowfish 27", 2, "blowfish 21")
    assert t.fisher(2) == ["blowfish 21", "blowfish 24", "blowfish 27"]
    assert t.fisher(3) == ["buoy +3-points"]
    assert t.leader == 3 and t.points(0) == 3


# =========================================================================================
# A7: weakest card
# =========================================================================================
def test_weakest_is_lowest_shed_card():
    # the red 6 is shed: weakest, although the led blue 3 is lower
    t = Table(players=5, hands={0: ["blue 3"], 1: ["blue 26"], 2: ["yellow 9"], 3: ["red 6"],
                                4: ["blowfish 22"]})
    ev = t.play_trick()
    assert result(ev) == (1, "blue 26", 3, "red 6")
    assert t.fisher(3) == ["blowfish 22"]
    assert t.fisher(1) == sorted(["blue 3", "blue 26", "yellow 9", "red 6"])
    # a trump played on a colour is not shed: the light green 1 is not the weakest
    t = Table(trump="light", hands={0: ["blue 10"], 1: ["light green 1"], 2: ["red 6"],
                                     3: ["blowfish 22"]})
    ev = t.play_trick()
    assert result(ev) == (1, "light green 1", 2, "red 6")
    assert t.fisher(2) == ["blowfish 22"]


@pytest.mark.parametrize("first, second", [("yellow 7", "red 7"), ("red 7", "yellow 7")])
def test_equal_shed_values_earlier_is_weaker(first, second):
    t = Table(hands={0: ["blue 10"], 1: [first], 2: [second], 3: ["blowfish 22"]})
    ev = t.play_trick()
    assert result(ev) == (3, "blowfish 22", 1, first)
    assert t.fisher(1) == ["blowfish 22"]
    assert t.fisher(3) == sorted(["blue 10", first, second])


def test_weakest_falls_back_to_lowest_of_led_suit_including_lead():
    # docs/rules.md A7: red 5 led, blowfish 22, dark 3 and dark 8 (dark is trump)
    t = Table(trump="dark", hands={0: ["red 5"], 1: ["blowfish 22"], 2: ["dark green 3"],
                                    3: ["dark green 8"]})
    ev = t.play_trick()
    assert result(ev) == (3, "dark green 8", 0, "red 5")
    assert t.fisher(0) == ["blowfish 22"]
    assert t.fisher(3) == sorted(["red 5", "dark green 3", "dark green 8"])
    # the lowest following card, when it is not the lead
    t = Table(trump="dark", hands={0: ["red 9"], 1: ["blowfish 22"], 2: ["red 4"],
                                    3: ["dark green 8"]})
    ev = t.play_trick()
    assert result(ev) == (3, "dark green 8", 2, "red 4")
    assert t.fisher(2) == ["blowfish 22"]


def test_weakest_is_lowest_trump_when_trump_led():
    t = Table(trump="dark", hands={0: ["dark green 9"], 1: ["dark green 4"], 2: ["blowfish 23"],
                                    3: ["dark green 12"]})
    ev = t.play_trick()
    assert result(ev) == (2, "blowfish 23", 1, "dark green 4")
    assert t.fisher(1) == ["blowfish 23"]
    assert t.fisher(2) == sorted(["dark green 9", "dark green 4", "dark green 12"])


@pytest.mark.parametrize("first, second", [("green 16 (1)", "green 16 (2)"),
                                           ("green 16 (2)", "green 16 (1)")])
def test_earlier_16_is_lower(first, second):
    t = Table(trump="light", hands={0: [first], 1: [second], 2: ["blowfish 22"],
                                     3: ["blowfish 25"]})
    ev = t.play_trick()
    assert result(ev) == (3, "blowfish 25", 0, first)
    assert t.fisher(0) == ["blowfish 22", "blowfish 25"]
    assert t.fisher(3) == ["green 16 (1)", "green 16 (2)"]


# =========================================================================================
# A8: end of a trick
# =========================================================================================
def test_blowfish_go_to_weakest():
    t = Table(players=5, hands={0: ["yellow 8"], 1: ["blowfish 24"], 2: ["yellow 26"],
                                3: ["blue 2"], 4: ["blowfish 21"]})
    ev = t.play_trick()
    assert result(ev) == (2, "yellow 26", 3, "blue 2")
    # the weakest card's player catches the blowfish first, then the highest the rest
    assert caught(ev) == [(3, "blowfish 24", "weakest"), (3, "blowfish 21", "weakest"),
                          (2, "yellow 8", "highest"), (2, "yellow 26", "highest"),
                          (2, "blue 2", "highest")]
    assert t.fisher(3) == ["blowfish 21", "blowfish 24"]
    assert t.fisher(2) == sorted(["yellow 8", "yellow 26", "blue 2"])
    assert t.leader == 2


@pytest.mark.parametrize("start", ["light", "dark"])
@pytest.mark.parametrize("greens", [("dark green 3",), ("light green 3",),
                                    ("light green 3", "dark green 4")])
def test_trump_changes_after_green_played(start, greens):
    hands = {0: ["blue 5"], 1: [greens[0]], 2: [greens[1] if len(greens) > 1 else "blue 7"],
             3: ["blue 9"]}
    t = Table(trump=start, hands=hands)
    ev = t.play_trick()
    # any light or dark card played flips the shade once (two greens do not flip it back)
    assert t.trump == OTHER[start]
    assert [e["shade"] for e in only(ev, "trump")] == [OTHER[start]]


@pytest.mark.parametrize("lead", ["blue 5", "green 16 (2)"])
def test_trump_changes_after_16_played(lead):
    second = "green 16 (1)" if lead == "blue 5" else "dark green 2"
    t = Table(trump="dark", hands={0: [lead], 1: [second], 2: ["blue 7"], 3: ["blue 9"]})
    t.play_trick()
    assert t.trump == "light"


def test_trump_unchanged_without_green():
    for start in ("light", "dark"):
        t = Table(trump=start, hands={0: ["blue 5"], 1: ["blowfish 22"], 2: ["buoy +3-points"],
                                      3: ["yellow 9"]})
        ev = t.play_trick()
        assert t.trump == start
        assert [e["shade"] for e in only(ev, "trump")] == [start]


@pytest.mark.parametrize("cards, chosen", [
    # greens played: the flip would make it dark, the buoy keeps it light
    (("light green 5", "light green 7", "dark green 3"), "light"),
    # no green played: no flip would happen, the buoy makes it dark
    (("blue 5", "blue 7", "blue 9"), "dark"),
])
def test_determine_trump_overrides_flip(cards, chosen):
    t = Table(trump="light", hands={0: [cards[0], "red 1"], 1: ["buoy determine-trump", "red 2"],
                                     2: [cards[1], "red 3"], 3: [cards[2], "red 4"]},
              prefer={0: [cards[0]], 1: ["buoy determine-trump", f"shade:{chosen}"],
                      2: [cards[1]], 3: [cards[2]]})
    ev = t.play_trick()
    assert plays(ev)[1] == (1, "buoy determine-trump")
    assert [(e["player"], e["shade"]) for e in only(ev, "determine_trump")] == [(1, chosen)]
    assert t.trump == chosen
    # the buoy's choice is the next trick's trump
    t.set_prefer({})
    assert only(t.play_trick(), "trick_start")[0]["trump"] == chosen


def test_determine_trump_forfeited_in_last_trick():
    t = Table(trump="light", n_rounds=3, hand_sizes=[9, 1, 1], points={0: 0, 1: 5, 2: 5, 3: 5},
              hands={0: ["blue 5"], 1: ["buoy determine-trump"], 2: ["blue 7"], 3: ["blue 9"]},
              boats={p: [f"yellow {p + 1}"] for p in range(4)},
              prefer={1: ["shade:dark"], 0: ["shade:light"]})
    ev = t.run()
    dt = only(ev, "determine_trump")
    assert [(e["player"], e["shade"]) for e in dt] == [(1, None)]  # no next trick: forfeited
    # round 3: seat 0 (fewest points) chooses the trump; seat 1's wish played no part
    assert [(e["round"], e["player"], e["shade"]) for e in only(ev, "trump_choice")] == \
        [(3, 0, "light")]
    assert [(s["round"], s["trump"]) for s in only(ev, "trick_start")] == [(2, "light"),
                                                                          (3, "light")]


def test_determine_trump_after_earlier_draw_1_card_applies():
    # ruling (1): the draw-1-card resolved first refilled the hands: there is a next trick
    t = Table(trump="light",
              hands={0: ["buoy draw-1-card"], 1: ["buoy determine-trump"], 2: ["blue 7"],
                     3: ["blue 9"]},
              boats={p: [f"yellow {p + 1}"] for p in range(4)}, prefer={1: ["shade:dark"]})
    ev = t.play_trick()
    assert [(e["player"], e["shade"]) for e in only(ev, "determine_trump")] == [(1, "dark")]
    assert t.trump == "dark"
    assert [t.hand(p) for p in range(4)] == [[f"yellow {p + 1}"] for p in range(4)]


def test_determine_trump_before_later_draw_1_card_is_forfeited():
    # ruling (1): when the determine-trump resolves the hands are empty; the later
    # draw-1-card adds a trick, but the choice is already forfeited
    t = Table(trump="light",
              hands={0: ["buoy determine-trump"], 1: ["buoy draw-1-card"], 2: ["blue 7"],
                     3: ["blue 9"]},
              boats={p: [f"yellow {p + 1}"] for p in range(4)}, prefer={0: ["shade:dark"]})
    ev = t.play_trick()
    assert [(e["player"], e["shade"]) for e in only(ev, "determine_trump")] == [(0, None)]
    assert t.trump == "light"  # no green played, no choice made
    assert [t.hand(p) for p in range(4)] == [[f"yellow {p + 1}"] for p in range(4)]
    assert only(t.play_trick(), "trick_start")[0]["trump"] == "light"


def test_determine_trump_after_round_ending_catch_1_card_is_forfeited():
    # ruling (1): the catch-1-card resolved first emptied the hands (second-to-last trick)
    t = Table(trump="light", n_rounds=2,
              hands={0: ["buoy catch-1-card", "red 1"], 1: ["buoy determine-trump", "red 2"],
                     2: ["blue 7", "red 3"], 3: ["blue 9", "red 4"]},
              prefer={0: ["buoy catch-1-card"], 1: ["buoy determine-trump", "shade:dark"],
                      2: ["blue 7"], 3: ["blue 9"]})
    ev = t.run()
    assert len(only(ev, "trick_start")) == 1
    assert len(only(ev, "catch_1_card")) == 4
    assert [(e["player"], e["shade"]) for e in only(ev, "determine_trump")] == [(1, None)]
    assert t.ended == "completed"


def test_highest_player_leads_next_even_if_caught_nothing():
    # only blowfish: the highest (27) and the weakest (21) are both blowfish, and the
    # weakest card's player catches every blowfish
    t = Table(players=3, hands={0: ["blowfish 21", "red 1"], 1: ["blowfish 27", "red 2"],
                                2: ["blowfish 23", "red 3"]},
              prefer={0: ["blowfish 21"], 1: ["blowfish 27"], 2: ["blowfish 23"]})
    ev = t.play_trick()
    assert result(ev) == (1, "blowfish 27", 0, "blowfish 21")
    assert t.fisher(0) == ["blowfish 21", "blowfish 23", "blowfish 27"]
    assert t.fisher(1) == []
    assert t.leader == 1
    assert only(t.play_trick(), "trick_start")[0]["leader"] == 1
    # the two catch-1-others take each other; the blowfish go to the weakest
    t = Table(hands={0: ["blowfish 21"], 1: ["buoy catch-1-other (1)"], 2: ["blowfish 27"],
                     3: ["buoy catch-1-other (2)"]},
              prefer={1: ["buoy catch-1-other (2)"], 3: ["buoy catch-1-other (1)"]})
    ev = t.play_trick()
    assert result(ev) == (2, "blowfish 27", 0, "blowfish 21")
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_other")] == \
        [(1, "buoy catch-1-other (2)"), (3, "buoy catch-1-other (1)")]
    assert t.fisher(0) == ["blowfish 21", "blowfish 27"]
    assert t.fisher(2) == []
    assert t.leader == 2


def test_buoy_effects_resolve_in_play_order():
    # seat 3 leads: its catch-1-other (2) resolves before seat 0's catch-1-other (1)
    t = Table(leader=3, hands={3: ["buoy catch-1-other (2)"], 0: ["buoy catch-1-other (1)"],
                               1: ["yellow 15"], 2: ["yellow 4"]},
              prefer={3: ["yellow 15", "yellow 4"], 0: ["yellow 15", "yellow 4"]})
    ev = t.play_trick()
    assert result(ev) == (1, "yellow 15", 2, "yellow 4")
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_other")] == \
        [(3, "yellow 15"), (0, "yellow 4")]
    assert t.fisher(3) == ["yellow 15"] and t.fisher(0) == ["yellow 4"]
    assert t.fisher(1) == ["buoy catch-1-other (1)", "buoy catch-1-other (2)"]
    assert t.leader == 1  # its card was taken, it still leads next


def test_buoy_moved_by_earlier_effect_still_resolves():
    t = Table(trump="light",
              hands={0: ["buoy catch-1-other (1)", "red 1"], 1: ["buoy determine-trump", "red 2"],
                     2: ["light green 4", "red 3"], 3: ["light green 9", "red 4"]},
              prefer={0: ["buoy catch-1-other (1)", "buoy determine-trump"],
                      1: ["buoy determine-trump", "shade:light"], 2: ["light green 4"]})
    ev = t.play_trick()
    assert result(ev) == (3, "light green 9", 2, "light green 4")
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_other")] == \
        [(0, "buoy determine-trump")]
    # the determine-trump was moved to seat 0's fisher, yet it resolves: light stays
    # (greens were played, so without it the shade would flip to dark)
    assert [(e["player"], e["shade"]) for e in only(ev, "determine_trump")] == [(1, "light")]
    assert t.trump == "light"
    assert t.fisher(0) == ["buoy determine-trump"]
    assert t.fisher(3) == sorted(["buoy catch-1-other (1)", "light green 4", "light green 9"])


# =========================================================================================
# A9: buoys
# =========================================================================================
def test_catch_1_other_moves_card_to_fisher():
    t = Table(hands={0: ["yellow 5"], 1: ["buoy catch-1-other (1)"], 2: ["yellow 18"],
                     3: ["yellow 2"]},
              prefer={1: ["yellow 18"]})
    ev = t.play_trick()
    assert result(ev) == (2, "yellow 18", 3, "yellow 2")
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_other")] == [(1, "yellow 18")]
    assert t.fisher(1) == ["yellow 18"]
    assert t.fisher(2) == sorted(["yellow 5", "buoy catch-1-other (1)", "yellow 2"])
    assert t.leader == 2


@pytest.mark.parametrize("target", ["blowfish 22", "buoy +3-points"])
def test_catch_1_other_may_take_blowfish_and_buoys(target):
    t = Table(hands={0: ["blue 5"], 1: ["buoy catch-1-other (1)"], 2: ["blowfish 22"],
                     3: ["buoy +3-points"]},
              prefer={1: [target]})
    ev = t.play_trick()
    assert result(ev) == (2, "blowfish 22", 0, "blue 5")
    assert t.fisher(1) == [target]
    if target == "blowfish 22":
        assert t.fisher(0) == []
        assert t.fisher(2) == sorted(["blue 5", "buoy catch-1-other (1)", "buoy +3-points"])
    else:
        assert t.fisher(0) == ["blowfish 22"]
        assert t.fisher(2) == sorted(["blue 5", "buoy catch-1-other (1)"])
    assert t.points(3) == 3


def test_plus_3_scores_when_played_and_counts_1_at_round_end():
    t = Table(n_rounds=2, points={p: 5 for p in range(4)},
              hands={0: ["yellow 5", "blue 2"], 1: ["buoy +3-points", "blue 3"],
                     2: ["yellow 9", "blue 1"], 3: ["yellow 7", "blue 4"]},
              prefer={0: ["yellow 5"], 1: ["buoy +3-points"], 2: ["yellow 9"], 3: ["yellow 7"]})
    ev = t.play_trick()
    i_play = index(ev, lambda e: e["event"] == "play" and e["card"] == "buoy +3-points")
    assert ev[i_play + 1] == {"event": "bonus", "player": 1, "points": 3}
    assert i_play + 1 < index(ev, lambda e: e["event"] == "trick_result")
    assert [t.points(p) for p in range(4)] == [5, 8, 5, 5]  # at once, before the round ends
    assert t.bonus(1) == 3
    assert t.fisher(2) == sorted(["yellow 5", "buoy +3-points", "yellow 9", "yellow 7"])
    ev = t.run()  # trick 2: seat 2 leads blue 1, seat 3's blue 4 is highest
    scores = [(e["player"], e["caught"], e["points"]) for e in only(ev, "round_score")]
    # the +3-points card counts 1 on seat 2's fisher; the bonus stays with seat 1
    assert scores == [(0, 0, 5), (1, 0, 8), (2, 4, 9), (3, 4, 9)]
    assert [t.points(p) for p in range(4)] == [5, 8, 9, 9]
    assert t.ended == "completed"


def test_draw_1_card_boat_first_then_ocean_in_play_order():
    # seat 2 leads; seats 3 and 0 have empty boats: seat 3 (earlier in the trick) draws first
    t = Table(leader=2,
              hands={2: ["buoy draw-1-card", "red 12"], 3: ["blue 5", "red 11"],
                     0: ["blue 7", "red 10"], 1: ["blue 9", "red 9"]},
              boats={1: ["red 1"], 2: ["red 2", "red 3"]},
              ocean=["yellow 1", "yellow 2", "yellow 3"],
              prefer={2: ["buoy draw-1-card"], 3: ["blue 5"], 0: ["blue 7"], 1: ["blue 9"]})
    ev = t.play_trick()
    assert [(e["player"], e["card"], e["source"], e["cause"]) for e in only(ev, "draw")] == [
        (2, "red 2", "boat", "draw-1-card"), (3, "yellow 1", "ocean", "draw-1-card"),
        (0, "yellow 2", "ocean", "draw-1-card"), (1, "red 1", "boat", "draw-1-card")]
    assert t.ocean() == ["yellow 3"]
    assert t.boat(2) == ["red 3"] and t.boat(1) == []
    assert t.hand(3) == ["red 11", "yellow 1"] and t.hand(0) == ["red 10", "yellow 2"]
    assert t.hand(2) == ["red 12", "red 2"] and t.hand(1) == ["red 1", "red 9"]


def test_draw_1_card_adds_a_trick():
    t = Table(n_rounds=2,
              hands={0: ["buoy draw-1-card"], 1: ["blue 5"], 2: ["blue 7"], 3: ["blue 9"]},
              boats={p: [f"yellow {p + 1}"] for p in range(4)})
    ev = t.run()
    starts = only(ev, "trick_start")
    assert [(s["round"], s["trick"], s["leader"]) for s in starts] == [(2, 1, 0), (2, 2, 3)]
    scores = [(e["player"], e["caught"]) for e in only(ev, "round_score")]
    assert scores == [(0, 0), (1, 0), (2, 0), (3, 8)]
    assert t.ended == "completed"


def _overfish_table(ocean, points=None, fishers=None):
    return Table(points=points or {p: 0 for p in range(4)}, fishers=fishers,
                 hands={0: ["buoy +3-points", "red 10"], 1: ["buoy draw-1-card", "red 11"],
                        2: ["buoy catch-1-other (1)", "red 12"], 3: ["blue 5", "red 9"]},
                 boats={0: ["red 1"]}, ocean=ocean,
                 prefer={0: ["buoy +3-points"], 1: ["buoy draw-1-card"],
                         2: ["buoy catch-1-other (1)", "blue 5"], 3: ["blue 5"]})


def test_draw_1_card_can_overfish():
    # seats 1, 2, 3 need the ocean (3 cards), it holds 2: the game ends at once
    t = _overfish_table(["yellow 1", "yellow 2"], points={0: 10, 1: 12, 2: 11, 3: 4})
    ev = t.play_trick()
    assert t.ended == "overfished"
    assert [(e["needed"], e["ocean"], e["cause"]) for e in only(ev, "overfished")] == \
        [(3, 2, "draw-1-card")]
    assert only(ev, "draw") == []  # checked before anyone draws
    assert only(ev, "catch_1_other") == []  # later buoys do not resolve
    assert only(ev, "caught") == [] and only(ev, "trump") == []  # the trick is not caught
    assert all(t.fisher(p) == [] for p in range(4))
    assert t.boat(0) == ["red 1"] and t.ocean() == ["yellow 1", "yellow 2"]
    assert [t.hand(p) for p in range(4)] == [["red 10"], ["red 11"], ["red 12"], ["red 9"]]
    assert [t.points(p) for p in range(4)] == [13, 12, 11, 4]  # the +3 stays
    assert [(e["reason"], e["winners"]) for e in only(ev, "game_end")] == [("overfished", [0])]


def test_draw_1_card_with_exactly_enough_ocean():
    t = _overfish_table(["yellow 1", "yellow 2", "yellow 3"])
    ev = t.play_trick()
    assert t.ended is None
    assert [(e["player"], e["card"]) for e in only(ev, "draw")] == [
        (0, "red 1"), (1, "yellow 1"), (2, "yellow 2"), (3, "yellow 3")]
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_other")] == [(2, "blue 5")]
    assert t.ocean() == []


def test_catch_1_card_every_player_moves_one_card():
    t = Table(leader=1,
              hands={1: ["buoy catch-1-card", "red 1", "red 2"], 2: ["blue 5", "yellow 1", "yellow 2"],
                     3: ["blue 9", "yellow 3", "yellow 4"], 0: ["blue 3", "yellow 5", "yellow 6"]},
              prefer={1: ["buoy catch-1-card", "red 2"], 2: ["blue 5", "yellow 2"],
                      3: ["blue 9", "yellow 3"], 0: ["blue 3", "yellow 6"]})
    ev = t.play_trick()
    assert result(ev) == (3, "blue 9", 0, "blue 3")
    # ruling (4): in the trick's play order
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_card")] == [
        (1, "red 2"), (2, "yellow 2"), (3, "yellow 3"), (0, "yellow 6")]
    assert [t.hand(p) for p in range(4)] == [["yellow 5"], ["red 1"], ["yellow 1"], ["yellow 4"]]
    assert t.fisher(1) == ["red 2"] and t.fisher(2) == ["yellow 2"] and t.fisher(0) == ["yellow 6"]
    assert t.fisher(3) == sorted(["buoy catch-1-card", "blue 5", "blue 9", "blue 3", "yellow 3"])


def test_catch_1_card_in_second_to_last_trick_ends_round():
    t = Table(n_rounds=2,
              hands={0: ["buoy catch-1-card", "red 1"], 1: ["blue 5", "red 2"],
                     2: ["blue 9", "red 3"], 3: ["blue 3", "red 4"]},
              prefer={0: ["buoy catch-1-card"], 1: ["blue 5"], 2: ["blue 9"], 3: ["blue 3"]})
    ev = t.run()
    assert len(only(ev, "trick_start")) == 1  # the second trick is never played
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_card")] == [
        (0, "red 1"), (1, "red 2"), (2, "red 3"), (3, "red 4")]
    scores = [(e["player"], e["caught"]) for e in only(ev, "round_score")]
    assert scores == [(0, 1), (1, 1), (2, 5), (3, 1)]
    assert t.ended == "completed"


def test_catch_1_card_in_last_trick_moves_nothing():
    t = Table(hands={0: ["buoy catch-1-card"], 1: ["blue 5"], 2: ["blue 9"], 3: ["blue 3"]})
    ev = t.play_trick()
    assert only(ev, "catch_1_card") == []
    assert t.fisher(2) == sorted(["buoy catch-1-card", "blue 5", "blue 9", "blue 3"])


def test_exchange_card_is_face_down():
    # a face-down green does not change the trump; the taken card's player keeps it
    t = Table(trump="light",
              hands={0: ["blue 5"], 1: ["buoy exchange-1-card", "dark green 4"], 2: ["blue 9"],
                     3: ["blue 2"]},
              prefer={1: ["buoy exchange-1-card", "dark green 4", "blue 9"]})
    ev = t.play_trick()
    assert [(e["player"], e["taken"], e["given"]) for e in only(ev, "exchange_1_card")] == \
        [(1, "blue 9", "dark green 4")]
    assert result(ev) == (2, "blue 9", 3, "blue 2")  # from the cards as played
    assert t.trump == "light"
    assert t.hand(1) == ["blue 9"]
    assert t.fisher(2) == sorted(["blue 5", "buoy exchange-1-card", "blue 2", "dark green 4"])
    assert t.leader == 2
    # a face-down blowfish goes to the highest card's player, a played one to the weakest
    t = Table(players=5, hands={0: ["blue 5"], 1: ["buoy exchange-1-card", "blowfish 25"],
                                2: ["blue 26"], 3: ["yellow 2"], 4: ["blowfish 22"]},
              prefer={1: ["buoy exchange-1-card", "blowfish 25", "blue 5"]})
    ev = t.play_trick()
    assert [(e["player"], e["taken"], e["given"]) for e in only(ev, "exchange_1_card")] == \
        [(1, "blue 5", "blowfish 25")]
    assert result(ev) == (2, "blue 26", 3, "yellow 2")
    assert (2, "blowfish 25", "highest") in caught(ev)
    assert t.fisher(3) == ["blowfish 22"]
    assert t.fisher(2) == sorted(["blue 26", "buoy exchange-1-card", "yellow 2", "blowfish 25"])
    assert t.hand(1) == ["blue 5"]


def test_face_down_buoy_has_no_effect():
    t = Table(hands={0: ["blue 5"], 1: ["buoy exchange-1-card", "buoy catch-1-other (2)"],
                     2: ["blue 9"], 3: ["blue 2"]},
              prefer={1: ["buoy exchange-1-card", "buoy catch-1-other (2)", "blue 9"]})
    ev = t.play_trick()
    assert [(e["taken"], e["given"]) for e in only(ev, "exchange_1_card")] == \
        [("blue 9", "buoy catch-1-other (2)")]
    assert only(ev, "catch_1_other") == []
    assert t.fisher(1) == []
    assert t.fisher(2) == sorted(["blue 5", "buoy exchange-1-card", "buoy catch-1-other (2)",
                                  "blue 2"])


def test_green_taken_by_exchange_still_changes_trump():
    # the light green 7 was played (it flips the shade) even though it ends up in a hand
    t = Table(trump="light",
              hands={0: ["blue 5"], 1: ["buoy exchange-1-card", "red 1"], 2: ["light green 7"],
                     3: ["blue 2"]},
              prefer={1: ["buoy exchange-1-card", "red 1", "light green 7"]})
    ev = t.play_trick()
    assert [(e["taken"], e["given"]) for e in only(ev, "exchange_1_card")] == \
        [("light green 7", "red 1")]
    assert result(ev) == (2, "light green 7", 3, "blue 2")
    assert t.trump == "dark"
    assert t.fisher(2) == sorted(["blue 5", "buoy exchange-1-card", "blue 2", "red 1"])


def test_exchange_may_give_back_the_same_card():
    # the blowfish taken and given back lies face down: the highest card's player catches it
    t = Table(hands={0: ["blue 5"], 1: ["buoy exchange-1-card", "red 1"], 2: ["blue 26"],
                     3: ["blowfish 22"]},
              prefer={1: ["buoy exchange-1-card", "blowfish 22"]})
    ev = t.play_trick()
    assert result(ev) == (2, "blue 26", 0, "blue 5")
    assert [(e["player"], e["taken"], e["given"]) for e in only(ev, "exchange_1_card")] == \
        [(1, "blowfish 22", "blowfish 22")]
    assert (2, "blowfish 22", "highest") in caught(ev)
    assert t.fisher(0) == []
    assert t.fisher(2) == sorted(["blue 5", "buoy exchange-1-card", "blue 26", "blowfish 22"])
    assert t.hand(1) == ["red 1"]


def test_exchange_taken_buoy_resolves_and_can_be_played_again():
    t = Table(hands={0: ["buoy exchange-1-card", "red 1", "yellow 1"],
                     1: ["buoy catch-1-other (1)", "blue 8", "red 5"],
                     2: ["yellow 10", "blue 7", "red 6"], 3: ["yellow 4", "blue 3", "red 7"]},
              prefer={0: ["buoy exchange-1-card", "red 1", "buoy catch-1-other (1)"],
                      1: ["buoy catch-1-other (1)", "yellow 4"], 2: ["yellow 10"],
                      3: ["yellow 4"]})
    ev = t.play_trick()
    assert plays(ev) == [(0, "buoy exchange-1-card"), (1, "buoy catch-1-other (1)"),
                         (2, "yellow 10"), (3, "yellow 4")]
    assert result(ev) == (2, "yellow 10", 3, "yellow 4")
    assert [(e["player"], e["taken"], e["given"]) for e in only(ev, "exchange_1_card")] == \
        [(0, "buoy catch-1-other (1)", "red 1")]
    # the catch-1-other, now in seat 0's hand, still resolves for seat 1
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_other")] == [(1, "yellow 4")]
    assert t.fisher(1) == ["yellow 4"]
    assert t.fisher(2) == sorted(["buoy exchange-1-card", "yellow 10", "red 1"])
    assert t.hand(0) == ["buoy catch-1-other (1)", "yellow 1"]
    # next trick: seat 0 plays the same catch-1-other again
    t.set_prefer({2: ["blue 7"], 3: ["blue 3"], 0: ["buoy catch-1-other (1)", "blue 8"],
                  1: ["blue 8"]})
    ev = t.play_trick()
    assert plays(ev) == [(2, "blue 7"), (3, "blue 3"), (0, "buoy catch-1-other (1)"),
                         (1, "blue 8")]
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_other")] == [(0, "blue 8")]
    assert t.fisher(0) == ["blue 8"]
    assert t.fisher(1) == sorted(["yellow 4", "blue 7", "blue 3", "buoy catch-1-other (1)"])


def test_face_down_card_can_be_taken_by_later_catch_1_other():
    t = Table(hands={0: ["blue 5"], 1: ["buoy exchange-1-card", "blowfish 27"],
                     2: ["buoy catch-1-other (1)", "red 3"], 3: ["blue 9"]},
              prefer={1: ["buoy exchange-1-card", "blowfish 27", "blue 9"],
                      2: ["buoy catch-1-other (1)", "buoy catch-1-other (1)"]})
    # ruling (5): the face-down card (trick position 4, after the 4 plays) is an option
    t.params[2, 0] = K.FACE_DOWN_OPTION + 4
    ev = t.play_trick()
    assert [(e["taken"], e["given"]) for e in only(ev, "exchange_1_card")] == \
        [("blue 9", "blowfish 27")]
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_other")] == \
        [(2, "blowfish 27")]
    assert result(ev) == (3, "blue 9", 0, "blue 5")
    assert t.fisher(2) == ["blowfish 27"]
    assert t.fisher(0) == []
    assert t.fisher(3) == sorted(["blue 5", "buoy exchange-1-card", "buoy catch-1-other (1)"])


def test_exchange_with_nothing_left_does_nothing():
    # ruling (2): the two catch-1-others take each other; nothing is left for the exchange
    t = Table(players=3,
              hands={0: ["buoy catch-1-other (1)", "red 1"], 1: ["buoy catch-1-other (2)", "red 2"],
                     2: ["buoy exchange-1-card", "red 5"]},
              prefer={0: ["buoy catch-1-other (1)", "buoy catch-1-other (2)"],
                      1: ["buoy catch-1-other (2)", "buoy catch-1-other (1)"],
                      2: ["buoy exchange-1-card"]})
    ev = t.play_trick()
    assert result(ev) == (0, None, None, None)
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_other")] == \
        [(0, "buoy catch-1-other (2)"), (1, "buoy catch-1-other (1)")]
    assert only(ev, "exchange_1_card") == []
    assert t.hand(2) == ["red 5"]
    assert t.fisher(0) == ["buoy catch-1-other (2)", "buoy exchange-1-card"]
    assert t.fisher(1) == ["buoy catch-1-other (1)"]
    assert t.fisher(2) == []
    assert t.ended is None


def test_effects_are_compulsory():
    # the catch-1-other's player wants none of the trick's cards; it still takes one
    t = Table(hands={0: ["yellow 5"], 1: ["buoy catch-1-other (1)"], 2: ["yellow 9"],
                     3: ["yellow 2"]},
              prefer={1: ["buoy catch-1-other (1)", "red 12"]})
    ev = t.play_trick()
    taken = [(e["player"], e["card"]) for e in only(ev, "catch_1_other")]
    assert len(taken) == 1 and taken[0][0] == 1
    card = taken[0][1]
    assert card in ("yellow 5", "yellow 9", "yellow 2")
    assert t.fisher(1) == [card]
    assert t.fisher(2) == sorted({"buoy catch-1-other (1)", "yellow 5", "yellow 9",
                                  "yellow 2"} - {card})
    # the exchange's player wants nothing either: it still takes one card and gives one
    t = Table(hands={0: ["yellow 5"], 1: ["buoy exchange-1-card", "red 1"], 2: ["yellow 9"],
                     3: ["yellow 2"]},
              prefer={1: ["buoy exchange-1-card", "red 12"]})
    ev = t.play_trick()
    ex = only(ev, "exchange_1_card")
    assert len(ex) == 1 and ex[0]["taken"] in ("yellow 5", "yellow 9", "yellow 2")
    assert len(t.hand(1)) == 1
    assert len(t.fisher(2)) == 4


def test_single_option_is_not_asked():
    # ruling (3): seat 1 refuses every decision it is asked; it has one legal card (it
    # must follow blue) and one card left for the catch-1-card, so the game runs on
    hands = {0: ["blue 5", "red 1"], 1: ["blue 9", "yellow 3"],
             2: ["buoy catch-1-card", "red 2"], 3: ["blue 2", "red 3"]}
    prefer = {0: ["blue 5"], 2: ["buoy catch-1-card"], 3: ["blue 2"]}
    t = Table(hands=hands, prefer=prefer)
    use_strategy(t, 1, load_test_bot("refuser"))
    ev = t.play_trick()
    assert t.ended is None
    assert plays(ev)[1] == (1, "blue 9")
    assert [(e["player"], e["card"]) for e in only(ev, "catch_1_card")] == [
        (0, "red 1"), (1, "yellow 3"), (2, "red 2"), (3, "red 3")]
    # control: with two legal cards the seat is asked, and its refusal stops the game
    t = Table(hands={**hands, 1: ["blue 9", "blue 3"]}, prefer=prefer)
    use_strategy(t, 1, load_test_bot("refuser"))
    t.play_trick()
    assert t.ended == "error"


# =========================================================================================
# A10 / A11: rounds and the end of the game
# =========================================================================================
def test_round_score_one_point_per_fisher_card():
    t = Table(n_rounds=2, points={0: 2, 1: 0, 2: 7, 3: 1},
              fishers={0: ["red 1", "red 2", "red 3"], 2: ["red 4"]},
              hands={0: ["blue 5"], 1: ["blue 6"], 2: ["blue 7"], 3: ["blue 8"]})
    ev = t.run()
    scores = [(e["player"], e["caught"], e["points"]) for e in only(ev, "round_score")]
    assert scores == [(0, 3, 5), (1, 0, 0), (2, 1, 8), (3, 4, 5)]
    assert [t.points(p) for p in range(4)] == [5, 0, 8, 5]


def test_fisher_goes_under_the_boat():
    t = Table(n_rounds=3, hand_sizes=[9, 1, 2],
              hands={0: ["yellow 5"], 1: ["yellow 6"], 2: ["yellow 7"], 3: ["yellow 8"]},
              boats={0: ["red 1", "red 2"], 1: ["red 3", "red 4"], 2: ["red 5", "red 6"],
                     3: ["red 7", "red 8"]},
              fishers={0: ["blue 1"]})
    ev = t.run(stop_at_trump=True)  # round 2's last trick, scoring, round 3's draws
    assert sorted(e["card"] for e in only(ev, "boat") if e["player"] == 3) == \
        ["yellow 5", "yellow 6", "yellow 7", "yellow 8"]
    # round 3 draws 2 from the top: the old boat cards, not the freshly caught ones
    assert [t.hand(p) for p in range(4)] == [["red 1", "red 2"], ["red 3", "red 4"],
                                             ["red 5", "red 6"], ["red 7", "red 8"]]
    assert t.boat(0) == ["blue 1"] and t.boat(1) == [] and t.boat(2) == []
    assert sorted(t.boat(3)) == ["yellow 5", "yellow 6", "yellow 7", "yellow 8"]
    assert all(t.fisher(p) == [] for p in range(4))


@pytest.mark.parametrize("last_order, order", [([3, 2, 0, 1], [0, 2, 1]),
                                               ([3, 1, 0, 2], [0, 1, 2])])
def test_shortfall_tie_goes_to_earlier_in_final_trick(last_order, order):
    # round 2 needs 9 cards: seat 0 is short 3, seats 1 and 2 are short 2, seat 3 none
    boats = {0: [f"blue {v}" for v in range(1, 7)], 1: [f"blue {v}" for v in range(7, 14)],
             2: [f"blue {v}" for v in range(14, 21)], 3: [f"yellow {v}" for v in range(1, 10)]}
    ocean = [f"red {v}" for v in range(1, 9)]
    t = Table(round=1, boats=boats, ocean=ocean, last_order=last_order,
              points={0: 1, 1: 2, 2: 3, 3: 4})
    ok, ev = t.start_next_round()
    assert ok
    draws = [(e["player"], e["card"]) for e in only(ev, "draw") if e["source"] == "ocean"]
    short = {0: 3, 1: 2, 2: 2}
    expected, k = [], 1
    for p in order:
        for _ in range(short[p]):
            expected.append((p, f"red {k}"))
            k += 1
    assert draws == expected
    assert t.ocean() == ["red 8"]
    assert [len(t.hand(p)) for p in range(4)] == [9, 9, 9, 9]


@pytest.mark.parametrize("points, last_order, leader", [
    ({0: 10, 1: 7, 2: 12, 3: 7}, [2, 3, 0, 1], 3),
    ({0: 10, 1: 7, 2: 12, 3: 7}, [2, 1, 3, 0], 1),
    ({0: 6, 1: 7, 2: 12, 3: 7}, [2, 3, 1, 0], 0),
])
def test_leader_has_fewest_points_tie_earlier_in_final_trick(points, last_order, leader):
    t = Table(round=1, hand_sizes=[9] + [1] * 7, points=points, last_order=last_order,
              boats={p: [f"blue {p + 1}"] for p in range(4)})
    ok, ev = t.start_next_round()
    assert ok
    assert t.leader == leader
    assert [(e["round"], e["player"]) for e in only(ev, "leader")] == [(2, leader)]


@pytest.mark.parametrize("ocean_n, ok", [(4, False), (5, True)])
def test_overfishing_at_round_start_before_anyone_draws(ocean_n, ok):
    # total shortfall 5 (seat 1 short 4, seat 2 short 1)
    boats = {0: [f"blue {v}" for v in range(1, 10)], 1: [f"blue {v}" for v in range(10, 15)],
             2: [f"yellow {v}" for v in range(1, 9)], 3: [f"yellow {v}" for v in range(9, 18)]}
    ocean = [f"red {v}" for v in range(1, ocean_n + 1)]
    t = Table(round=1, boats=boats, ocean=ocean, points={0: 3, 1: 5, 2: 4, 3: 9})
    got, ev = t.start_next_round()
    assert got is ok
    if ok:
        assert t.ended is None and t.ocean() == []
        assert [len(t.hand(p)) for p in range(4)] == [9, 9, 9, 9]
        return
    assert t.ended == "overfished"
    assert [(e["needed"], e["ocean"], e["cause"]) for e in only(ev, "overfished")] == \
        [(5, 4, "round")]
    assert only(ev, "draw") == []
    assert all(t.hand(p) == [] for p in range(4))
    assert [t.boat(p) for p in range(4)] == [boats[p] for p in range(4)]
    assert t.ocean() == ocean
    assert [t.points(p) for p in range(4)] == [3, 5, 4, 9]
    assert [e["winners"] for e in only(ev, "game_end")] == [[3]]


def test_trump_choice_by_leader_before_the_lead():
    t = Table(n_rounds=3, hand_sizes=[9, 1, 1], trump="light",
              points={0: 10, 1: 10, 2: 0, 3: 10},
              hands={0: ["blue 5"], 1: ["blue 6"], 2: ["blue 7"], 3: ["blue 8"]},
              boats={0: ["yellow 1"], 1: ["yellow 2"], 2: ["yellow 3"], 3: ["yellow 4"]},
              prefer={0: ["shade:light"], 1: ["shade:light"], 2: ["shade:dark"],
                      3: ["shade:light"]})
    ev = t.run()
    i_start = index(ev, lambda e: e["event"] == "round_start" and e["round"] == 3)
    i_lead = index(ev, lambda e: e["event"] == "leader" and e["round"] == 3)
    i_choice = index(ev, lambda e: e["event"] == "trump_choice")
    i_trick = index(ev, lambda e: e["event"] == "trick_start" and e["round"] == 3)
    draws = [i for i, e in enumerate(ev) if e["event"] == "draw" and i > i_start]
    assert len(draws) == 4 and max(draws) < i_choice  # after drawing ...
    assert ev[i_lead]["player"] == 2  # seat 2 has the fewest points
    assert i_lead < i_choice < i_trick  # ... and before leading
    assert only(ev, "trump_choice") == [{"event": "trump_choice", "round": 3, "player": 2,
                                         "shade": "dark"}]
    assert ev[i_trick]["trump"] == "dark" and ev[i_trick]["leader"] == 2
    assert ev[i_trick + 1] == {"event": "play", "player": 2, "card": "yellow 3"}


def test_shared_win():
    t = Table(n_rounds=2, points={0: 10, 1: 14, 2: 8, 3: 5},
              hands={0: ["blue 9"], 1: ["blue 1"], 2: ["blue 2"], 3: ["blue 3"]})
    ev = t.run()
    assert [t.points(p) for p in range(4)] == [14, 14, 8, 5]
    assert [(e["reason"], e["winners"]) for e in only(ev, "game_end")] == [("completed", [0, 1])]


def test_overfishing_points_as_they_stand():
    # draw-1-card overfishes in round 3: seat 1's 5 fisher cards of the unfinished round
    # are not scored, the +3 just played is kept
    t = Table(round=3, points={0: 10, 1: 12, 2: 11, 3: 9},
              fishers={1: ["red 1", "red 2", "red 3", "red 4", "red 5"]},
              hands={0: ["buoy +3-points", "red 10"], 1: ["buoy draw-1-card", "red 11"],
                     2: ["blue 5", "red 12"], 3: ["blue 6", "red 9"]},
              ocean=["yellow 1"],
              prefer={0: ["buoy +3-points"], 1: ["buoy draw-1-card"], 2: ["blue 5"],
                      3: ["blue 6"]})
    ev = t.play_trick()
    assert t.ended == "overfished"
    assert [t.points(p) for p in range(4)] == [13, 12, 11, 9]
    assert [(e["reason"], e["winners"]) for e in only(ev, "game_end")] == [("overfished", [0])]
    assert only(ev, "round_score") == []


def test_overfishing_at_round_start_keeps_finished_round_score():
    # round 2 ends normally (scored), then round 3 cannot be dealt: points as they stand
    t = Table(points={0: 10, 1: 12, 2: 11, 3: 9},
              hands={0: ["blue 5"], 1: ["blue 6"], 2: ["blue 7"], 3: ["blue 8"]})
    ev = t.run()
    assert [(e["player"], e["caught"]) for e in only(ev, "round_score")] == \
        [(0, 0), (1, 0), (2, 0), (3, 4)]
    assert t.ended == "overfished"
    assert [t.points(p) for p in range(4)] == [10, 12, 11, 13]
    assert [e["winners"] for e in only(ev, "game_end")] == [[3]]
    assert only(ev, "trick_start")[-1]["round"] == 2


def test_game_ends_after_round_8():
    t = Table(round=8, hands={0: ["blue 5"], 1: ["blue 6"], 2: ["blue 7"], 3: ["blue 8"]},
              boats={p: [f"yellow {p + 1}"] for p in range(4)}, ocean=["red 1", "red 2"])
    ev = t.run()
    assert only(ev, "round_start") == []
    assert [(e["reason"], e["round"]) for e in only(ev, "game_end")] == [("completed", 8)]
    assert t.ended == "completed" and t.boat(0) == ["yellow 1"]
    # from round 7: exactly one more round is played
    t = Table(round=7, hand_sizes=[9] + [1] * 7,
              hands={0: ["blue 5"], 1: ["blue 6"], 2: ["blue 7"], 3: ["blue 8"]},
              boats={p: [f"yellow {p + 1}"] for p in range(4)}, ocean=["red 1", "red 2"])
    ev = t.run()
    assert [e["round"] for e in only(ev, "round_start")] == [8]
    assert [(s["round"], s["trick"]) for s in only(ev, "trick_start")] == [(7, 1), (8, 1)]
    assert [(e["reason"], e["round"]) for e in only(ev, "game_end")] == [("completed", 8)]
    assert len(only(ev, "round_score")) == 8
