"""docs/rules.md part B (the original Fishing / Fischen), one scripted table per rule and ruling.

Every test sets a table up by hand (tests/scenario.py, ``ruleset="fishing"``), lets the seats
play by preference lists and asserts exact outcomes: who played what, which card catches,
who caught which cards, points, leader, hands and the next trick's effects.

Project rulings beyond docs/rules.md B (docs/rules.md, "Fishing"), tested here as well:
  (F1) the effects of a trick's cards resolve in the order the cards were played, the
       next-trick effects (play-first, determine-colour, lowest-wins) at their turn too;
  (F2) a card's effect resolves even if an earlier effect moved the card (a zero caught by an
       earlier zero still catches; a catch-all-others caught by an earlier zero still
       catches all others);
  (F3) pass-1-left: every player chooses from their hand as it was before anyone passed
       (so nobody can pass on the card they receive); chosen and logged in play order;
  (F4) a zero or catch-all-others with no other card left in the trick does nothing;
  (F5) next-trick effects are forfeited whenever the hands are empty when they resolve
       (the round's last trick); the event is logged as forfeited;
  (F6) two cards of equal value (edited decks only): the one played earlier catches;
  (F7) a decision with a single option is not asked (as in Fishing 2).

Seats are 0..P-1 clockwise; the default table has 4 players, round 2, seat 0 leading.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from fishing2sim.api import play_game, play_games
from fishing2sim.engine import constants as K
from fishing2sim.engine import core
from fishing2sim.engine.state import A_VALUE
from scenario import DECKS, Table, load_test_bot, only

DECK = DECKS["fishing"]
COLOURS = ("blue", "yellow", "purple", "red")


def T(**kw) -> Table:
    return Table(ruleset="fishing", **kw)


# ---- helpers ----------------------------------------------------------------------------
def plays(ev):
    return [(e["player"], e["card"]) for e in only(ev, "play")]


def result(ev):
    """(catching player, catching card) of the one trick in ev."""
    r = only(ev, "trick_result")
    assert len(r) == 1
    r = r[0]
    assert r["weakest_player"] is None and r["weakest_card"] is None  # B2: no weakest card
    return r["highest_player"], r["highest_card"]


def caught(ev):
    return [(e["player"], e["card"]) for e in only(ev, "caught")]


def legal_cards(seat, hands, prefer=None, **table):
    """The cards ``seat`` may play in the trick set up by hands / prefer / table (black box:
    each hand card is tried as the seat's only preference)."""
    legal = []
    for c in hands[seat]:
        pr = dict(prefer or {})
        pr[seat] = [c]
        t = T(hands=hands, prefer=pr, **table)
        ev = t.play_trick()
        assert t.ended is None
        if (seat, c) in plays(ev):
            legal.append(c)
    return sorted(legal)


def use_strategy(t, seat, strategy):
    t.strats = tuple(
        tuple(strategy.functions[k] if s == seat else t.strats[k][s]
              for s in range(len(t.strats[k])))
        for k in range(len(t.strats)))


def kinds(ev):
    return [e["event"] for e in ev]


# =========================================================================================
# B1: cards and setup (whole games)
# =========================================================================================
@pytest.mark.parametrize("players, removed, deal", [
    (3, {f"{c} {v}" for c in COLOURS for v in (1, 2)} | {"blue 3", "red 3"}, 10),
    (4, {f"{c} 1" for c in COLOURS}, 9),
    (5, set(), 8),
])
def test_setup_starting_cards_and_tiered_ocean(players, removed, deal):
    g = play_game(players, seed=3, ruleset="fishing")
    dealt = [e for e in g.events if e["event"] == "deal"]
    assert Counter(e["player"] for e in dealt) == {p: deal for p in range(players)}
    assert {e["card"] for e in dealt} == {f"{c} {v}" for c in COLOURS
                                          for v in range(1, 11)} - removed
    ocean = [e["card"] for e in sorted((e for e in g.events if e["event"] == "ocean"),
                                       key=lambda e: e["position"])]
    # B1: no ocean card is removed; D2: tier 1 on top ... tier 5 at the bottom
    assert len(ocean) == 60 and len(set(ocean)) == 60
    tiers = [int(DECK.table.loc[DECK.card(c), "tier"]) for c in ocean]
    assert tiers == sorted(tiers) and tiers[0] == 1 and tiers[-1] == 5
    assert set(ocean[-12:]) == {"green 15", "green 16", "blue 0", "yellow 0", "purple 0",
                                "red 0", "green 0", "buoy pass-1-left",
                                "buoy catch-all-others", "buoy play-first",
                                "buoy determine-colour", "buoy lowest-wins"}


@pytest.mark.parametrize("players", [3, 4, 5])
def test_round_hand_sizes_assumption_a3(players):
    sizes = {3: [10, 10, 11, 11, 12, 12, 13, 13], 4: [9, 9, 10, 10, 11, 11, 12, 12],
             5: [8, 8, 9, 9, 10, 10, 11, 11]}[players]
    seen = 0
    for seed in range(6):
        g = play_game(players, seed=seed, ruleset="fishing")
        assert g.events[0]["hand_sizes"] == sizes
        rnd, drawn = 0, Counter()
        for e in g.events:
            if e["event"] == "round_start":
                rnd = e["round"]
                assert e["hand_size"] == sizes[rnd - 1]
            elif e["event"] == "draw":
                drawn[(rnd, e["player"])] += 1
        for r in range(2, g.rounds_played + 1):
            assert [drawn[(r, p)] for p in range(players)] == [sizes[r - 1]] * players
            seen += 1
    assert seen > 0


def test_no_trump_choice_no_trump_change_green_always_trump():
    for seed in range(20):
        g = play_game(4, seed=seed, ruleset="fishing")
        k = Counter(e["event"] for e in g.events)
        assert k["trump_choice"] == 0 and k["trump"] == 0 and k["determine_trump"] == 0
        assert {e["trump"] for e in g.events if e["event"] == "trick_start"} == {"green"}
        assert g.trump_choices == {}
    df = play_games(50, 4, seed=1, ruleset="fishing")
    for r in range(2, 9):
        assert df[f"trump_r{r}"].isna().all()


# =========================================================================================
# B2: trick rules
# =========================================================================================
@pytest.mark.parametrize("rnd", [1, 5])
def test_green_is_always_trump(rnd):
    # a green trumps a colour lead in every round (round 1 too: no shades, no choice)
    t = T(round=rnd, hands={0: ["blue 9", "red 4"], 1: ["green 1", "red 5"],
                            2: ["blue 18", "red 6"], 3: ["red 17", "purple 2"]},
          prefer={3: ["red 17"]})
    assert t.trump == "green"
    ev = t.play_trick()
    assert only(ev, "trick_start")[0]["trump"] == "green"
    assert plays(ev) == [(0, "blue 9"), (1, "green 1"), (2, "blue 18"), (3, "red 17")]
    assert result(ev) == (1, "green 1")
    assert t.fisher(1) == ["blue 18", "blue 9", "green 1", "red 17"]
    assert t.trump == "green" and only(ev, "trump") == [] and t.leader == 1


def test_must_follow_led_colour_purple_is_a_colour():
    hands = {0: ["purple 5"], 1: ["purple 9", "purple 0", "green 4", "blue 3",
                                  "buoy play-first"],
             2: ["red 1"], 3: ["red 2"]}
    # B2: a purple lead must be followed with purple (a zero is a purple card); buoys always
    assert legal_cards(1, hands) == ["buoy play-first", "purple 0", "purple 9"]


def test_trump_led_must_follow_trump():
    hands = {0: ["green 5"], 1: ["green 2", "green 0", "blue 3", "red 18"],
             2: ["red 1"], 3: ["red 2"]}
    assert legal_cards(1, hands) == ["green 0", "green 2"]


def test_without_the_led_colour_any_card():
    hands = {0: ["blue 5"], 1: ["yellow 3", "green 2", "red 4"], 2: ["blue 1"],
             3: ["blue 2"]}
    assert legal_cards(1, hands) == ["green 2", "red 4", "yellow 3"]
    t = T(hands=hands, prefer={1: ["red 4"]})
    ev = t.play_trick()
    assert result(ev) == (0, "blue 5")  # red 4 is shed: higher, but not the led colour


def test_leader_may_lead_any_card():
    lead = ["blue 5", "green 3", "red 0", "buoy lowest-wins", "buoy minus-3 (1)"]
    assert legal_cards(0, {0: lead, 1: ["red 1"], 2: ["red 2"], 3: ["red 3"]}) == sorted(lead)


def test_zero_must_follow_its_suit():
    hands = {0: ["red 7"], 1: ["red 0", "blue 16"], 2: ["red 1"], 3: ["red 2"]}
    assert legal_cards(1, hands) == ["red 0"]


def test_zero_can_be_highest_when_nobody_follows():
    t = T(hands={0: ["blue 0"], 1: ["red 5"], 2: ["yellow 18"], 3: ["purple 16"]},
          prefer={0: ["blue 0", "yellow 18"]})
    ev = t.play_trick()
    assert result(ev) == (0, "blue 0")
    # its own zero catches the yellow 18 first, then it catches the rest as the highest
    assert [(e["player"], e["card"], e["zero"]) for e in only(ev, "zero_catch")] == \
        [(0, "yellow 18", "blue 0")]
    assert caught(ev) == [(0, "blue 0"), (0, "red 5"), (0, "purple 16")]
    assert t.fisher(0) == ["blue 0", "purple 16", "red 5", "yellow 18"]


def test_green_zero_is_a_trump():
    t = T(hands={0: ["blue 10"], 1: ["green 0"], 2: ["blue 17"], 3: ["red 3"]},
          prefer={1: ["green 0", "blue 17"]})
    ev = t.play_trick()
    assert result(ev) == (1, "green 0")
    assert t.fisher(1) == ["blue 10", "blue 17", "green 0", "red 3"]


def test_zero_loses_to_a_higher_card_of_its_suit():
    t = T(hands={0: ["red 5"], 1: ["red 0"], 2: ["red 2"], 3: ["yellow 1"]},
          prefer={1: ["red 0", "red 5"]})
    ev = t.play_trick()
    assert result(ev) == (0, "red 5")
    assert t.fisher(1) == ["red 5"]
    assert t.fisher(0) == ["red 0", "red 2", "yellow 1"]


def test_buoys_may_always_be_played():
    hands = {0: ["blue 5"], 1: ["blue 9", "buoy lowest-wins", "green 3", "red 1"],
             2: ["red 2"], 3: ["red 3"]}
    assert legal_cards(1, hands) == ["blue 9", "buoy lowest-wins"]
    hands = {0: ["green 5"], 1: ["green 9", "buoy minus-3 (1)", "red 1"], 2: ["red 2"],
             3: ["red 3"]}
    assert legal_cards(1, hands) == ["buoy minus-3 (1)", "green 9"]


def test_buoy_lead_leaves_suit_to_the_next_colour_or_trump_card():
    hands = {0: ["buoy minus-3 (1)", "red 12"], 1: ["blue 9", "yellow 3", "green 2"],
             2: ["yellow 10", "blue 2"], 3: ["blue 4", "red 8"]}
    assert legal_cards(1, hands) == sorted(hands[1])  # the buoy set nothing
    prefer = {1: ["yellow 3"], 2: ["blue 2", "yellow 10"], 3: ["blue 4"]}
    assert legal_cards(2, hands, prefer) == ["yellow 10"]  # the yellow 3 set the suit
    assert legal_cards(3, hands, prefer) == ["blue 4", "red 8"]
    t = T(hands=hands, prefer=prefer)
    ev = t.play_trick()
    assert result(ev) == (2, "yellow 10")
    assert t.fisher(2) == ["blue 4", "buoy minus-3 (1)", "yellow 10", "yellow 3"]


def test_only_buoys_first_buoy_catches():
    t = T(players=3, leader=1,
          hands={1: ["buoy minus-3 (1)", "blue 4"], 2: ["buoy lowest-wins", "blue 5"],
                 0: ["buoy minus-3 (2)", "blue 3"]},
          prefer={1: ["buoy minus-3 (1)"], 2: ["buoy lowest-wins"], 0: ["buoy minus-3 (2)"]})
    ev = t.play_trick()
    assert result(ev) == (1, None)
    assert t.fisher(1) == ["buoy lowest-wins", "buoy minus-3 (1)", "buoy minus-3 (2)"]
    assert t.points(1) == -6 and t.leader == 1 and t.lowest_wins


# =========================================================================================
# B3: end-of-trick effects
# =========================================================================================
def test_zero_catches_one_other_card_before_the_highest():
    t = T(hands={0: ["yellow 9", "blue 1"], 1: ["yellow 0", "blue 2"],
                 2: ["yellow 14", "blue 3"], 3: ["green 6", "blue 4"]},
          prefer={0: ["yellow 9"], 1: ["yellow 0", "yellow 14"], 2: ["yellow 14"],
                  3: ["green 6"]})
    ev = t.play_trick()
    assert result(ev) == (3, "green 6")
    assert kinds(ev)[-5:] == ["trick_result", "zero_catch", "caught", "caught", "caught"]
    assert t.fisher(1) == ["yellow 14"]
    assert t.fisher(3) == ["green 6", "yellow 0", "yellow 9"]
    assert t.leader == 3


def test_zero_effect_is_compulsory():
    # the zero's player prefers no card of the trick: it still catches one
    t = T(hands={0: ["blue 7"], 1: ["blue 0"], 2: ["blue 12"], 3: ["blue 3"]},
          prefer={1: ["blue 0", "red 18"]})
    ev = t.play_trick()
    assert len(only(ev, "zero_catch")) == 1
    assert len(t.fisher(1)) == 1 and len(t.fisher(2)) == 3


def test_zeros_resolve_in_play_order():
    t = T(hands={0: ["blue 7"], 1: ["blue 0"], 2: ["green 0"], 3: ["blue 12"]},
          prefer={1: ["blue 0", "blue 12", "green 0"], 2: ["green 0", "blue 12", "blue 7"]})
    ev = t.play_trick()
    assert result(ev) == (2, "green 0")
    # the first zero takes the blue 12; the second would too, but it is gone
    assert [(e["player"], e["card"]) for e in only(ev, "zero_catch")] == \
        [(1, "blue 12"), (2, "blue 7")]
    assert t.fisher(1) == ["blue 12"]
    assert t.fisher(2) == ["blue 0", "blue 7", "green 0"]


def test_zero_resolves_even_if_an_earlier_zero_caught_it():
    # ruling F2: seat 1's zero catches seat 2's zero card; seat 2's zero still catches
    t = T(hands={0: ["red 8"], 1: ["red 0"], 2: ["green 0"], 3: ["red 3"]},
          prefer={1: ["red 0", "green 0"], 2: ["green 0", "red 8"]})
    ev = t.play_trick()
    assert result(ev) == (2, "green 0")
    assert [(e["player"], e["card"]) for e in only(ev, "zero_catch")] == \
        [(1, "green 0"), (2, "red 8")]
    assert t.fisher(1) == ["green 0"]
    assert t.fisher(2) == ["red 0", "red 3", "red 8"]


def test_catch_all_others():
    t = T(hands={0: ["purple 5", "blue 1"], 1: ["buoy catch-all-others", "blue 2"],
                 2: ["purple 12", "blue 3"], 3: ["purple 2", "blue 4"]},
          prefer={0: ["purple 5"], 1: ["buoy catch-all-others"], 2: ["purple 12"],
                  3: ["purple 2"]})
    ev = t.play_trick()
    assert result(ev) == (2, "purple 12")
    assert [(e["player"], e["card"]) for e in only(ev, "catch_all_others")] == \
        [(1, "purple 5"), (1, "purple 12"), (1, "purple 2")]
    assert caught(ev) == [(2, "buoy catch-all-others")]  # the highest catches only the buoy
    assert t.fisher(1) == ["purple 12", "purple 2", "purple 5"]
    assert t.leader == 2


def test_zero_after_catch_all_others_catches_the_buoy_later_zeros_nothing():
    t = T(players=5, hands={0: ["red 9"], 1: ["buoy catch-all-others"], 2: ["red 0"],
                            3: ["red 14"], 4: ["green 0"]})
    ev = t.play_trick()
    assert result(ev) == (4, "green 0")
    assert [e["card"] for e in only(ev, "catch_all_others")] == \
        ["red 9", "red 0", "red 14", "green 0"]
    # the red 0 (already moved) catches the buoy; the green 0 finds nothing left (F4)
    assert [(e["player"], e["card"]) for e in only(ev, "zero_catch")] == \
        [(2, "buoy catch-all-others")]
    assert caught(ev) == []
    assert t.fisher(1) == ["green 0", "red 0", "red 14", "red 9"]
    assert t.fisher(2) == ["buoy catch-all-others"]
    assert t.fisher(4) == []
    assert t.leader == 4  # B3: the highest card's player leads even if it caught nothing


def test_zero_before_catch_all_others_takes_its_card_first():
    t = T(hands={0: ["yellow 0"], 1: ["yellow 11"], 2: ["buoy catch-all-others"],
                 3: ["yellow 3"]},
          prefer={0: ["yellow 0", "yellow 11"]})
    ev = t.play_trick()
    assert result(ev) == (1, "yellow 11")
    assert [(e["player"], e["card"]) for e in only(ev, "zero_catch")] == [(0, "yellow 11")]
    assert [e["card"] for e in only(ev, "catch_all_others")] == ["yellow 0", "yellow 3"]
    assert t.fisher(0) == ["yellow 11"]
    assert t.fisher(2) == ["yellow 0", "yellow 3"]
    assert t.fisher(1) == ["buoy catch-all-others"]


def test_catch_all_others_resolves_even_if_a_zero_caught_it():
    # ruling F2: the zero takes the catch-all-others buoy; the buoy still catches all others
    t = T(hands={0: ["blue 0"], 1: ["buoy catch-all-others"], 2: ["blue 6"], 3: ["blue 2"]},
          prefer={0: ["blue 0", "buoy catch-all-others"]})
    ev = t.play_trick()
    assert result(ev) == (2, "blue 6")
    assert t.fisher(0) == ["buoy catch-all-others"]
    assert t.fisher(1) == ["blue 0", "blue 2", "blue 6"]
    assert t.fisher(2) == [] and t.leader == 2


def test_minus_3_caught_by_the_highest_and_worth_1_at_round_end():
    t = T(n_rounds=2, points={2: 10},
          hands={0: ["buoy minus-3 (1)"], 1: ["red 5"], 2: ["red 9"], 3: ["red 1"]})
    ev = t.run()
    i = next(i for i, e in enumerate(ev) if e["event"] == "caught"
             and e["card"] == "buoy minus-3 (1)")
    assert ev[i + 1] == {"event": "bonus", "player": 2, "points": -3}
    assert [(e["player"], e["caught"], e["points"]) for e in only(ev, "round_score")][2] == \
        (2, 4, 11)  # 10 - 3 at once, + 4 cards (the minus-3 counts 1) at round end
    assert t.bonus(2) == -3
    assert t.points(2) == 11 and t.ended == "completed"


def test_minus_3_caught_through_a_zero():
    t = T(points={1: 4},
          hands={0: ["buoy minus-3 (2)"], 1: ["blue 0"], 2: ["blue 9"], 3: ["blue 3"]},
          prefer={1: ["blue 0", "buoy minus-3 (2)"]})
    ev = t.play_trick()
    i = kinds(ev).index("zero_catch")
    assert ev[i]["card"] == "buoy minus-3 (2)" and ev[i]["player"] == 1
    assert ev[i + 1] == {"event": "bonus", "player": 1, "points": -3}
    assert t.points(1) == 1 and t.points(2) == 0
    assert t.fisher(2) == ["blue 0", "blue 3", "blue 9"]


def test_minus_3_caught_by_catch_all_others_negative_points():
    t = T(hands={0: ["buoy minus-3 (1)"], 1: ["buoy catch-all-others"],
                 2: ["buoy minus-3 (2)"], 3: ["yellow 4"]})
    ev = t.play_trick()
    assert result(ev) == (3, "yellow 4")
    assert [(e["player"], e["points"]) for e in only(ev, "bonus")] == [(1, -3), (1, -3)]
    assert t.points(1) == -6  # points may be negative
    assert t.fisher(3) == ["buoy catch-all-others"]


def test_pass_1_left_every_player_passes_at_once():
    t = T(hands={0: ["buoy pass-1-left", "blue 4", "blue 5"],
                 1: ["yellow 6", "yellow 7", "yellow 8"], 2: ["red 9", "red 10", "red 11"],
                 3: ["purple 12", "purple 13", "purple 14"]},
          # seat 1 would rather pass the blue 4 it receives: it cannot (ruling F3)
          prefer={0: ["buoy pass-1-left", "blue 4"], 1: ["yellow 6", "blue 4", "yellow 7"],
                  2: ["red 9", "red 10"], 3: ["purple 12", "purple 13"]})
    ev = t.play_trick()
    assert result(ev) == (1, "yellow 6")
    assert [(e["player"], e["card"], e["to"]) for e in only(ev, "pass_1_left")] == [
        (0, "blue 4", 1), (1, "yellow 7", 2), (2, "red 10", 3), (3, "purple 13", 0)]
    assert [t.hand(p) for p in range(4)] == [["blue 5", "purple 13"], ["blue 4", "yellow 8"],
                                             ["red 11", "yellow 7"], ["purple 14", "red 10"]]


def test_pass_1_left_in_play_order_from_the_leader():
    t = T(leader=2, hands={0: ["blue 4", "blue 5"], 1: ["yellow 6", "yellow 7"],
                           2: ["buoy pass-1-left", "red 10"], 3: ["purple 12", "purple 13"]},
          prefer={0: ["blue 4"], 1: ["yellow 6"], 3: ["purple 12"]})
    ev = t.play_trick()
    assert [(e["player"], e["card"], e["to"]) for e in only(ev, "pass_1_left")] == [
        (2, "red 10", 3), (3, "purple 13", 0), (0, "blue 5", 1), (1, "yellow 7", 2)]


def test_pass_1_left_in_the_last_trick_does_nothing():
    t = T(hands={0: ["buoy pass-1-left"], 1: ["red 5"], 2: ["red 9"], 3: ["red 1"]})
    ev = t.play_trick()
    assert only(ev, "pass_1_left") == []
    assert all(t.hand(p) == [] for p in range(4))
    assert t.fisher(2) == ["buoy pass-1-left", "red 1", "red 5", "red 9"]


# =========================================================================================
# B4: effects on the next trick
# =========================================================================================
def test_play_first_leads_the_next_trick():
    t = T(hands={0: ["blue 9", "red 1"], 1: ["buoy play-first", "red 2"],
                 2: ["blue 12", "red 3"], 3: ["blue 4", "red 4"]},
          prefer={1: ["buoy play-first"]})
    ev = t.play_trick()
    assert result(ev) == (2, "blue 12")
    assert only(ev, "play_first") == [{"event": "play_first", "player": 1, "forfeited": False}]
    assert t.fisher(2) == ["blue 12", "blue 4", "blue 9", "buoy play-first"]
    assert t.leader == 1
    ev = t.play_trick()
    assert only(ev, "trick_start")[0]["leader"] == 1
    assert plays(ev)[0] == (1, "red 2")
    assert t.leader == 3  # then the highest card's player again


def test_play_first_forfeited_in_the_last_trick():
    t = T(n_rounds=3, points={0: 5, 1: 9, 2: 9, 3: 1},
          hands={0: ["blue 9"], 1: ["buoy play-first"], 2: ["blue 12"], 3: ["blue 4"]},
          boats={p: [f"yellow {p + 11}"] for p in range(4)}, hand_sizes=[9, 1, 1])
    ev = t.run()
    assert only(ev, "play_first") == [{"event": "play_first", "player": 1, "forfeited": True}]
    # round 3's leader is chosen by A10.3 (fewest points), not by the buoy
    starts = only(ev, "trick_start")
    assert [(s["round"], s["leader"]) for s in starts] == [(2, 0), (3, 3)]


def test_determine_colour_names_the_next_trick_suit():
    hands = {0: ["blue 18", "blue 3", "red 5"], 1: ["blue 8", "yellow 7", "red 12"],
             2: ["buoy determine-colour", "red 0", "blue 2"],
             3: ["blue 11", "purple 9", "green 4"]}
    t = T(hands=hands,
          prefer={0: ["blue 18", "blue 3", "red 5"], 1: ["blue 8", "yellow 7", "red 12"],
                  2: ["buoy determine-colour", "suit:red", "blue 2", "red 0"],
                  3: ["blue 11", "purple 9"]})
    ev = t.play_trick()
    assert result(ev) == (0, "blue 18")
    assert only(ev, "determine_colour") == [{"event": "determine_colour", "player": 2,
                                             "suit": "red"}]
    assert t.named == ("red", 2)
    ev = t.play_trick()
    start = only(ev, "trick_start")[0]
    assert (start["leader"], start["suit"], start["named_by"]) == (0, "red", 2)
    # everyone holding red must play it, the leader too (seat 0 preferred the blue 3)
    assert plays(ev) == [(0, "red 5"), (1, "red 12"), (2, "red 0"), (3, "purple 9")]
    assert result(ev)[0] == 1
    assert t.named is None  # only for one trick


def test_determine_colour_binds_the_leader():
    hands = {0: ["blue 3", "red 5", "green 9"], 1: ["red 12"], 2: ["red 0"], 3: ["purple 9"]}
    assert legal_cards(0, hands, named=("red", 2)) == ["red 5"]
    assert legal_cards(0, hands, named=("purple", 2)) == ["blue 3", "green 9", "red 5"]


@pytest.mark.parametrize("suit", ["blue", "yellow", "purple", "red", "green"])
def test_determine_colour_may_name_any_of_the_five_suits(suit):
    t = T(hands={0: ["blue 9", "red 1"], 1: ["buoy determine-colour", "red 2"],
                 2: ["blue 12", "red 3"], 3: ["blue 4", "red 4"]},
          prefer={1: ["buoy determine-colour", f"suit:{suit}"]})
    ev = t.play_trick()
    assert [e["suit"] for e in only(ev, "determine_colour")] == [suit]
    assert t.named == (suit, 1)


def test_determine_colour_nobody_follows_the_namer_catches_and_leads():
    t = T(named=("purple", 3),
          hands={0: ["blue 9", "red 1"], 1: ["red 4", "red 2"], 2: ["yellow 18", "red 3"],
                 3: ["blue 2", "red 6"]},
          prefer={0: ["blue 9"], 1: ["red 4"], 2: ["yellow 18"], 3: ["blue 2"]})
    ev = t.play_trick()
    assert only(ev, "trick_start")[0]["suit"] == "purple"
    assert result(ev) == (3, None)  # nobody played purple or a trump: the namer catches
    assert t.fisher(3) == ["blue 2", "blue 9", "red 4", "yellow 18"]
    assert t.leader == 3


def test_determine_colour_a_trump_still_wins():
    t = T(named=("purple", 0),
          hands={0: ["purple 3"], 1: ["green 2"], 2: ["purple 10"], 3: ["blue 1"]})
    ev = t.play_trick()
    assert result(ev) == (1, "green 2")


def test_determine_colour_named_green_must_be_followed_with_trump():
    hands = {0: ["blue 18", "green 3"], 1: ["green 12", "red 4"], 2: ["yellow 4"],
             3: ["green 0", "purple 9"]}
    assert legal_cards(0, hands, named=("green", 1)) == ["green 3"]
    assert legal_cards(1, hands, named=("green", 1)) == ["green 12"]
    assert legal_cards(2, hands, named=("green", 1)) == ["yellow 4"]
    t = T(named=("green", 1), hands=hands)
    ev = t.play_trick()
    assert result(ev) == (1, "green 12")


def test_determine_colour_a_buoy_lead_does_not_open_the_named_suit():
    hands = {0: ["buoy minus-3 (1)", "red 6"], 1: ["red 9", "blue 4"], 2: ["blue 2"],
             3: ["blue 5"]}
    prefer = {0: ["buoy minus-3 (1)"]}
    assert legal_cards(1, hands, prefer, named=("red", 2)) == ["red 9"]
    # without a named suit the buoy lead leaves it open
    assert legal_cards(1, hands, prefer) == ["blue 4", "red 9"]


def test_determine_colour_trick_of_only_buoys_namer_catches():
    t = T(players=3, named=("blue", 1),
          hands={0: ["buoy minus-3 (1)"], 1: ["buoy lowest-wins"], 2: ["buoy minus-3 (2)"]})
    ev = t.play_trick()
    assert result(ev) == (1, None)  # not the first buoy's player (seat 0)
    assert t.fisher(1) == ["buoy lowest-wins", "buoy minus-3 (1)", "buoy minus-3 (2)"]
    assert t.points(1) == -6


def test_play_first_leads_even_when_a_suit_was_named():
    t = T(hands={0: ["yellow 9", "red 1"], 1: ["buoy play-first", "red 2"],
                 2: ["yellow 12", "red 3"], 3: ["buoy determine-colour", "yellow 3"]},
          prefer={1: ["buoy play-first"], 3: ["buoy determine-colour", "suit:yellow"]})
    ev = t.play_trick()
    assert result(ev) == (2, "yellow 12")
    assert t.leader == 1 and t.named == ("yellow", 3)
    ev = t.play_trick()
    start = only(ev, "trick_start")[0]
    assert (start["leader"], start["suit"], start["named_by"]) == (1, "yellow", 3)
    # seat 1 holds no yellow: any card; seat 3 must play its yellow
    assert plays(ev) == [(1, "red 2"), (2, "red 3"), (3, "yellow 3"), (0, "red 1")]
    assert result(ev) == (3, "yellow 3")


def test_determine_colour_forfeited_in_the_last_trick():
    t = T(n_rounds=3, hand_sizes=[9, 1, 1],
          hands={0: ["blue 9"], 1: ["buoy determine-colour"], 2: ["blue 12"], 3: ["blue 4"]},
          boats={p: [f"yellow {p + 11}"] for p in range(4)},
          prefer={1: ["buoy determine-colour", "suit:red"]})
    ev = t.run()
    assert only(ev, "determine_colour") == [{"event": "determine_colour", "player": 1,
                                             "suit": None}]
    start = only(ev, "trick_start")[-1]
    assert start["round"] == 3 and start["suit"] is None and start["named_by"] is None


def test_lowest_wins_lowest_of_the_led_suit():
    t = T(lowest_wins=True, hands={0: ["yellow 9"], 1: ["yellow 3"], 2: ["yellow 15"],
                                   3: ["blue 1"]})
    ev = t.play_trick()
    assert only(ev, "trick_start")[0]["lowest_wins"] is True
    assert result(ev) == (1, "yellow 3")  # the blue 1 is shed, not the led suit
    assert t.fisher(1) == ["blue 1", "yellow 15", "yellow 3", "yellow 9"]


def test_lowest_wins_with_a_trump_the_lowest_trump():
    t = T(lowest_wins=True, hands={0: ["red 2"], 1: ["green 14"], 2: ["red 0"],
                                   3: ["green 9"]},
          prefer={2: ["red 0", "red 2"]})
    ev = t.play_trick()
    assert result(ev) == (3, "green 9")  # the lowest trump, though the red 0 is lower
    assert t.fisher(2) == ["red 2"]
    assert t.fisher(3) == ["green 14", "green 9", "red 0"]


def test_lowest_wins_a_zero_wins():
    t = T(lowest_wins=True, hands={0: ["red 5"], 1: ["red 0"], 2: ["red 13"], 3: ["red 1"]},
          prefer={1: ["red 0", "red 13"]})
    ev = t.play_trick()
    assert result(ev) == (1, "red 0")
    assert t.fisher(1) == ["red 0", "red 1", "red 13", "red 5"]


def test_lowest_wins_buoy_applies_to_the_next_trick_only():
    t = T(hands={0: ["blue 9", "red 10", "purple 3"], 1: ["buoy lowest-wins", "red 2", "purple 4"],
                 2: ["blue 12", "red 3", "purple 5"], 3: ["blue 4", "red 4", "purple 6"]},
          prefer={0: ["blue 9", "red 10", "purple 3"], 1: ["buoy lowest-wins", "red 2"],
                  2: ["blue 12", "red 3"], 3: ["blue 4", "red 4"]})
    ev = t.play_trick()
    assert result(ev) == (2, "blue 12")  # the buoy's own trick: the highest wins
    assert only(ev, "lowest_wins") == [{"event": "lowest_wins", "player": 1,
                                        "forfeited": False}]
    assert t.lowest_wins
    ev = t.play_trick()
    assert plays(ev) == [(2, "red 3"), (3, "red 4"), (0, "red 10"), (1, "red 2")]
    assert result(ev) == (1, "red 2")
    assert not t.lowest_wins
    ev = t.play_trick()
    assert result(ev) == (3, "purple 6")  # the highest wins again


def test_lowest_wins_forfeited_in_the_last_trick():
    t = T(n_rounds=3, hand_sizes=[9, 1, 1],
          hands={0: ["blue 9"], 1: ["buoy lowest-wins"], 2: ["blue 12"], 3: ["blue 4"]},
          boats={p: [f"yellow {p + 11}"] for p in range(4)})
    ev = t.run()
    assert only(ev, "lowest_wins") == [{"event": "lowest_wins", "player": 1,
                                        "forfeited": True}]
    start = only(ev, "trick_start")[-1]
    assert start["round"] == 3 and start["lowest_wins"] is False
    # round 3 is played highest-wins: the yellow 14 (seat 3) catches
    assert only(ev, "trick_result")[-1]["highest_card"] == "yellow 14"


@pytest.mark.parametrize("first", ["buoy pass-1-left", "buoy determine-colour"])
def test_effects_resolve_in_play_order_next_trick_effects_too(first):
    # ruling F1: the pass and the naming happen in the order their buoys were played
    second = {"buoy pass-1-left": "buoy determine-colour",
              "buoy determine-colour": "buoy pass-1-left"}[first]
    t = T(hands={0: ["blue 9", "red 1"], 1: [first, "red 2"], 2: ["blue 12", "red 3"],
                 3: [second, "red 4"]},
          prefer={1: [first, "suit:red"], 3: [second, "suit:red"]})
    ev = t.play_trick()
    order = [k for k in kinds(ev) if k in ("pass_1_left", "determine_colour")]
    if first == "buoy pass-1-left":
        assert order == ["pass_1_left"] * 4 + ["determine_colour"]
    else:
        assert order == ["determine_colour"] + ["pass_1_left"] * 4
    assert t.named[0] == "red"


def test_equal_values_earlier_card_catches():
    # ruling F6 (edited decks only): give the blue 12 the value 11 in this game's table
    for lowest in (False, True):
        t = T(lowest_wins=lowest, hands={0: ["blue 11"], 1: ["blue 12"], 2: ["blue 3"],
                                         3: ["blue 13"]})
        t.st[A_VALUE + DECK.card("blue 12")] = 11
        t.st[A_VALUE + DECK.card("blue 13")] = 3
        ev = t.play_trick()
        assert result(ev) == ((2, "blue 3") if lowest else (0, "blue 11"))


def test_single_option_decision_is_not_asked():
    # ruling F7: the refuser seat must follow red (one legal card) and keeps one card to
    # pass: it is never asked; the game runs on
    t = T(hands={0: ["red 5", "blue 1"], 1: ["red 9", "yellow 3"],
                 2: ["buoy pass-1-left", "blue 2"], 3: ["red 2", "blue 3"]},
          prefer={0: ["red 5"], 2: ["buoy pass-1-left"], 3: ["red 2"]})
    use_strategy(t, 1, load_test_bot("refuser"))
    ev = t.play_trick()
    assert t.ended is None
    assert [(e["player"], e["card"]) for e in only(ev, "pass_1_left")] == [
        (0, "blue 1"), (1, "yellow 3"), (2, "blue 2"), (3, "blue 3")]
    # with two cards to choose from it is asked, and its refusal stops the game
    t = T(hands={0: ["red 5", "blue 1", "blue 4"], 1: ["red 9", "yellow 3", "yellow 4"],
                 2: ["buoy pass-1-left", "blue 2", "blue 5"], 3: ["red 2", "blue 3", "blue 6"]},
          prefer={0: ["red 5"], 2: ["buoy pass-1-left"], 3: ["red 2"]})
    use_strategy(t, 1, load_test_bot("refuser"))
    t.play_trick()
    assert t.ended == "error"


def test_observation_shows_green_trump_named_suit_and_lowest_wins():
    t = T(named=("red", 2), lowest_wins=True, hands={p: ["blue 5", "blue 6"] for p in range(4)})
    obs = np.zeros(K.OBS_SIZE, np.int64)
    core.fill_obs(t.st, obs, 0, K.D_PLAY, 0, -1)
    assert obs[K.O_TRUMP] == K.C_GREEN
    assert obs[K.O_LED] == K.C_RED
    assert obs[K.O_LOWEST_WINS] == 1
    assert obs[K.O_RULESET] == K.RS_FISHING


# =========================================================================================
# A10 / A11 in the original Fishing: rounds, negative points, overfishing, the end
# =========================================================================================
def test_negative_points_lead_the_next_round():
    t = T(round=1, hand_sizes=[9] + [1] * 7, points={0: 3, 1: -6, 2: 0, 3: -2},
          boats={p: [f"blue {p + 11}"] for p in range(4)})
    ok, ev = t.start_next_round()
    assert ok and t.leader == 1
    assert [(e["round"], e["player"]) for e in only(ev, "leader")] == [(2, 1)]
    assert only(ev, "trump_choice") == []


@pytest.mark.parametrize("ocean_n, ok", [(4, False), (5, True)])
def test_overfishing_only_at_the_start_of_a_round(ocean_n, ok):
    boats = {0: [f"blue {v}" for v in range(1, 10)], 1: [f"blue {v}" for v in range(10, 15)],
             2: [f"yellow {v}" for v in range(1, 9)], 3: [f"yellow {v}" for v in range(9, 18)]}
    ocean = [f"red {v}" for v in range(1, ocean_n + 1)]
    t = T(round=1, boats=boats, ocean=ocean, points={0: 3, 1: -5, 2: 4, 3: 9})
    got, ev = t.start_next_round()
    assert got is ok
    if ok:
        assert t.ended is None and t.ocean() == []
        return
    assert t.ended == "overfished"
    assert [(e["needed"], e["ocean"], e["cause"]) for e in only(ev, "overfished")] == \
        [(5, 4, "round")]
    assert only(ev, "draw") == []
    assert [t.points(p) for p in range(4)] == [3, -5, 4, 9]
    assert [e["winners"] for e in only(ev, "game_end")] == [[3]]


def test_game_ends_after_round_8_shared_win():
    t = T(round=8, points={0: 10, 1: 14, 2: 8, 3: 5},
          hands={0: ["blue 9"], 1: ["blue 1"], 2: ["blue 2"], 3: ["blue 3"]})
    ev = t.run()
    assert [t.points(p) for p in range(4)] == [14, 14, 8, 5]
    assert [(e["reason"], e["round"], e["winners"]) for e in only(ev, "game_end")] == \
        [("completed", 8, [0, 1])]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_invariants_hold_after_every_trick(players):
    # every card in exactly one place, equal hand sizes, points = fisher cards scored +
    # minus-3 bonuses, after every trick (a violation raises)
    df = play_games(1500, players=players, seed=11, ruleset="fishing", check=True)
    assert set(df.end_reason.unique()) <= {"completed", "overfished"}
    assert (df.rounds_played[df.end_reason == "completed"] == 8).all()


def test_every_effect_happens_in_random_games():
    seen = Counter()
    for seed in range(150):
        g = play_game(4, seed=seed, ruleset="fishing")
        seen.update(e["event"] for e in g.events)
        seen.update(f"forfeited {e['event']}" for e in g.events if e.get("forfeited"))
    for k in ("zero_catch", "catch_all_others", "pass_1_left", "play_first",
              "determine_colour", "lowest_wins", "bonus"):
        assert seen[k] > 0, k


def test_same_seed_same_game_and_batch_agrees():
    a = play_game(4, seed=5, ruleset="fishing")
    assert a.events == play_game(4, seed=5, ruleset="fishing").events
    df = play_games(20, 4, seed=5, ruleset="fishing")
    for _, row in df.iterrows():
        g = play_game(4, seed=5, game=int(row.game), ruleset="fishing")
        assert [row[f"points_{p}"] for p in range(4)] == g.points
        assert row.end_reason == g.end_reason


def test_the_fishing2_deck_is_refused_for_fishing():
    from fishing2sim.config.deck import load_deck

    with pytest.raises(ValueError, match="fishing2 deck"):
        play_game(4, seed=1, ruleset="fishing", deck=load_deck())


def test_cli_play_fishing_prints_a_readable_game():
    from fishing2sim.cli import main

    out = CliRunner().invoke(main, ["play", "--ruleset", "fishing", "--players", "4",
                                    "--seed", "7"])
    assert out.exit_code == 0, out.output
    text = out.output
    assert text.startswith("Fishing (the original Fischen) — 4 players, seed 7")
    assert "Green is always trump." in text and "== Round 1: 9 cards in hand ==" in text
    assert "light green" not in text and "trump choice" not in text
    assert "Game over" in text.splitlines()[-1]
