"""The independent auditor (fishing2sim/audit.py) over the engine's event logs.

1. It passes over thousands of seeded engine games of both rulesets (the engine and the
   auditor share no rule code, so agreement is evidence both are right).
2. Mutation tests: corrupt one event of a real log and the auditor names that event.
"""

from __future__ import annotations

import copy
import functools

import pytest

from fishing2sim.audit import (
    AuditError, _Fishing2Referee, _FishingReferee, audit_game, load_deck,
)

N_SEEDS = 2000  # the full audit (slow); the default run audits SEEDS_DEFAULT games
SEEDS_DEFAULT = 200
SEED_COUNTS = [SEEDS_DEFAULT, pytest.param(N_SEEDS, marks=pytest.mark.slow, id="full")]


def _api():
    # imported here, not at the top, so the auditor's own tests (mutations of hand-written
    # logs) run even when the engine is broken; an engine that does not import fails every
    # test that needs its logs (never a skip: a skipped audit is an audit that did not run)
    from fishing2sim import api

    return api


@functools.lru_cache(maxsize=None)
def _events(players: int, seed: int, ruleset: str = "fishing2") -> tuple:
    return tuple(_api().play_game(players, seed, ruleset=ruleset, log=True).events)


def _log(players: int = 4, seed: int = 7, ruleset: str = "fishing2") -> list[dict]:
    """A fresh deep copy of a real log, safe to corrupt."""
    return copy.deepcopy(list(_events(players, seed, ruleset)))


def _find_log(pred, players=(4, 3, 5), seeds=range(200), ruleset="fishing2"):
    """The first real log (players, seed order) with an event index satisfying pred."""
    for n in players:
        for seed in seeds:
            events = _log(n, seed, ruleset)
            for i in range(len(events)):
                if pred(events, i):
                    return events, i
    pytest.fail("no log with the wanted event found (the seeded games changed?)")


def _assert_flags(events: list[dict], i: int, *words: str):
    with pytest.raises(AuditError) as info:
        audit_game(events)
    msg = str(info.value)
    assert msg.startswith(f"event #{i} ("), msg
    for w in words:
        assert w in msg, msg


# ---------------------------------------------------------------------------------------
# Without the engine.


def test_deck_tables_read_by_the_auditor():
    deck = load_deck("fishing2")
    assert len(deck.cards) == 99
    assert deck.hand_sizes[4] == (9, 9, 10, 10, 11, 11, 12, 12)
    assert deck.by_name["green 16 (2)"].colour == "both"
    assert sum(c.kind == "blowfish" for c in deck.cards) == 6


def test_unknown_ruleset_is_refused():
    with pytest.raises(AuditError, match="unknown ruleset 'fishing3'"):
        audit_game([{"event": "setup", "ruleset": "fishing3", "players": 4}])


def test_fishing_deck_read_by_the_auditor():
    deck = load_deck("fishing")
    assert len(deck.cards) == 100
    assert deck.hand_sizes[4] == (9, 9, 10, 10, 11, 11, 12, 12)
    assert sum(c.effect == "zero" for c in deck.cards) == 5
    assert sum(c.effect == "minus-3" for c in deck.cards) == 2


def test_log_must_start_with_setup():
    with pytest.raises(AuditError, match=r"^event #0 "):
        audit_game([{"event": "deal", "player": 0, "card": "blue 7"}])


def _rank(plays: list[tuple[int, str]], trump: str | None):
    """The auditor's own A6/A7 on [(player, card name)] in play order, named back."""
    deck = load_deck("fishing2")
    ref = _Fishing2Referee([], deck)
    hp, hc, wp, wc = ref.rank([(p, deck.by_name[c].id) for p, c in plays], trump)
    name = lambda c: None if c is None else deck.cards[c].name  # noqa: E731
    return hp, name(hc), wp, name(wc)


# Tricks the engine's random games almost never produce: the auditor's rules on them.
@pytest.mark.parametrize("plays, trump, want", [
    # rulebook example: Hedwig's yellow 10 catches, Nicole's shed blue 2 is weakest
    ([(0, "yellow 7"), (1, "yellow 3"), (2, "yellow 10"), (3, "blue 2")], None,
     (2, "yellow 10", 3, "blue 2")),
    # A7 ruling example: red 5 led, blowfish 22, dark 3, dark 8 (dark trump)
    ([(0, "red 5"), (1, "blowfish 22"), (2, "dark green 3"), (3, "dark green 8")], "dark",
     (3, "dark green 8", 0, "red 5")),
    # A6: only buoys: the first buoy's player catches; no weakest
    ([(1, "buoy +3-points"), (2, "buoy draw-1-card"), (0, "buoy catch-1-card")], "light",
     (1, None, None, None)),
    # A6 ruling: no suit set: highest and lowest blowfish
    ([(0, "blowfish 23"), (1, "buoy determine-trump"), (2, "blowfish 27"),
      (3, "blowfish 21")], "light", (2, "blowfish 27", 3, "blowfish 21")),
    # A6: the later 16 beats the earlier; A7 ruling: the earlier 16 is lower
    ([(0, "green 16 (2)"), (1, "green 16 (1)"), (2, "light green 15")], "dark",
     (1, "green 16 (1)", 2, "light green 15")),
    ([(0, "green 16 (2)"), (1, "green 16 (1)"), (2, "blowfish 27")], "dark",
     (2, "blowfish 27", 0, "green 16 (2)")),
    # A7: shed cards of equal value: the earlier is weaker; the inactive shade is shed
    ([(0, "red 9"), (1, "blue 4"), (2, "yellow 4"), (3, "light green 4")], "dark",
     (0, "red 9", 1, "blue 4")),
    # A5: a blowfish lead leaves the suit to the next colour card; trump led makes
    # blowfish trump (blowfish 21 beats the 16), a buoy is neither highest nor weakest
    ([(0, "blowfish 21"), (1, "light green 2"), (2, "green 16 (1)"), (3, "buoy catch-1-other (2)")],
     "light", (0, "blowfish 21", 1, "light green 2")),
    # trumping a colour lead: highest trump wins, blowfish stay the led colour
    ([(0, "blue 26"), (1, "blowfish 27"), (2, "dark green 1")], "dark",
     (2, "dark green 1", 0, "blue 26")),
])
def test_auditor_highest_and_weakest(plays, trump, want):
    assert _rank(plays, trump) == want


# ---------------------------------------------------------------------------------------
# Many seeded games.


def _audit_seeded(players: int, n_seeds: int, ruleset: str) -> dict:
    """Audit games 0 .. n_seeds-1 (seed 0, the ruleset's random lineup): every one passes.
    The number of each event kind (a forfeited effect, or a determine-colour naming no
    suit, as "forfeited KIND") and of each end reason ("end completed", ...)."""
    counts: dict[str, int] = {}
    for seed in range(n_seeds):
        events = _api().play_game(players, seed, ruleset=ruleset, log=True).events
        try:
            summary = audit_game(events)
        except AuditError as exc:
            raise AssertionError(f"{ruleset} players={players} seed={seed}: {exc}") from None
        assert summary["players"] == players and summary["ruleset"] == ruleset
        kinds = [f"end {summary['end_reason']}"] + [e["event"] for e in events] + [
            f"forfeited {e['event']}" for e in events
            if e.get("forfeited") or (e["event"] == "determine_colour" and e["suit"] is None)]
        for k in kinds:
            counts[k] = counts.get(k, 0) + 1
    return counts


@pytest.mark.parametrize("n_seeds", SEED_COUNTS)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_auditor_passes_seeded_games(players, n_seeds):
    counts = _audit_seeded(players, n_seeds, "fishing2")
    assert counts["end completed"] + counts.get("end overfished", 0) == n_seeds


def test_audit_summary():
    events = _log(4, 7)
    summary = audit_game(events)
    end = events[-1]
    assert summary["players"] == 4
    assert summary["end_reason"] == end["reason"]
    assert summary["points"] == list(end["points"])
    assert summary["winners"] == sorted(end["winners"])


# ---------------------------------------------------------------------------------------
# Mutations: one corrupted event, and the auditor names it.


def _suit(card, trump):
    """A card's suit in a trick (A4), written again here for the test's own bookkeeping."""
    if card.kind == "colour":
        return card.colour
    if card.kind == "green":
        return "trump" if trump is not None and card.colour in (trump, "both") else card.colour
    return None


def _illegal_swap(events: list[dict]):
    """(index, card name): a play that followed suit, and a hand card that would not have."""
    deck = load_deck("fishing2")
    hands: dict[int, set[str]] = {}
    trump, led = None, None
    for i, ev in enumerate(events):
        kind = ev["event"]
        if kind in ("deal", "draw"):
            hands.setdefault(ev["player"], set()).add(ev["card"])
        elif kind == "catch_1_card":
            hands[ev["player"]].discard(ev["card"])
        elif kind == "exchange_1_card":
            hands[ev["player"]].add(ev["taken"])
            hands[ev["player"]].discard(ev["given"])
        elif kind == "trick_start":
            trump, led = ev["trump"], None
        elif kind == "play":
            p, card = ev["player"], deck.by_name[ev["card"]]
            hand = hands[p]
            if led is not None and _suit(card, trump) == led:
                wrong = sorted(h for h in hand if _suit(deck.by_name[h], trump) not in (None, led))
                if wrong:
                    return i, wrong[0]
            hand.discard(ev["card"])
            if led is None:
                led = _suit(card, trump)
    return None


def _flags_an_illegal_swap(logs, find):
    """In the first of ``logs`` where ``find(events)`` gives (index, card name), that play
    made with the other card: the auditor flags it as an illegal play."""
    for events in logs:
        found = find(events)
        if found:
            i, wrong = found
            events[i]["card"] = wrong
            _assert_flags(events, i, "illegal play")
            return
    pytest.fail("no play to corrupt")


def test_mutation_illegal_play():
    _flags_an_illegal_swap((_log(4, seed) for seed in range(50)), _illegal_swap)


def test_mutation_caught_player():
    events, i = _find_log(lambda ev, i: ev[i]["event"] == "caught")
    events[i]["player"] = (events[i]["player"] + 1) % events[0]["players"]
    _assert_flags(events, i)


def test_mutation_trick_result_highest_player():
    events, i = _find_log(lambda ev, i: ev[i]["event"] == "trick_result")
    events[i]["highest_player"] = (events[i]["highest_player"] + 1) % events[0]["players"]
    _assert_flags(events, i, "highest_player")


def test_mutation_dropped_draw():
    def draw_then_same_player(ev, i):
        return (ev[i]["event"] == "draw" and ev[i + 1]["event"] == "draw"
                and ev[i + 1]["player"] == ev[i]["player"])

    events, i = _find_log(draw_then_same_player)
    del events[i]
    _assert_flags(events, i)


def test_mutation_dropped_ocean_draw():
    def ocean_draw_then_ocean_draw(ev, i):
        return (ev[i]["event"] == "draw" and ev[i]["source"] == "ocean"
                and ev[i + 1]["event"] == "draw" and ev[i + 1]["source"] == "ocean")

    events, i = _find_log(ocean_draw_then_ocean_draw)
    del events[i]
    _assert_flags(events, i)


def test_mutation_trump_shade():
    events, i = _find_log(lambda ev, i: ev[i]["event"] == "trump" and ev[i]["shade"])
    events[i]["shade"] = {"light": "dark", "dark": "light"}[events[i]["shade"]]
    _assert_flags(events, i, "shade")


def test_mutation_round_score_points():
    events, i = _find_log(lambda ev, i: ev[i]["event"] == "round_score")
    events[i]["points"] += 1
    _assert_flags(events, i, "points")


def test_mutation_round_leader():
    events, i = _find_log(lambda ev, i: ev[i]["event"] == "leader" and ev[i]["round"] >= 2)
    events[i]["player"] = (events[i]["player"] + 1) % events[0]["players"]
    _assert_flags(events, i, "leader")


def test_mutation_trick_leader():
    events, i = _find_log(lambda ev, i: ev[i]["event"] == "trick_start" and ev[i]["trick"] >= 2)
    events[i]["leader"] = (events[i]["leader"] + 1) % events[0]["players"]
    _assert_flags(events, i, "leader")


def test_mutation_missing_bonus():
    events, i = _find_log(lambda ev, i: ev[i]["event"] == "bonus")
    del events[i]
    _assert_flags(events, i, "bonus")


def test_mutation_blowfish_to_highest():
    events, i = _find_log(lambda ev, i: ev[i]["event"] == "caught" and ev[i]["by"] == "weakest")
    events[i]["by"] = "highest"
    _assert_flags(events, i, "weakest")


def test_mutation_winners():
    events = _log(4, 7)
    end = events[-1]
    end["winners"] = [p for p in range(4) if p not in end["winners"]][:1]
    _assert_flags(events, len(events) - 1, "winners")


# ---------------------------------------------------------------------------------------
# The original Fishing (docs/rules.md B).


def _flog(players: int = 4, seed: int = 7) -> list[dict]:
    return _log(players, seed, "fishing")


def _find_flog(pred, players=(4, 5, 3), seeds=range(400)):
    """The first real Fishing log (players, seed order) with an event index satisfying pred."""
    return _find_log(pred, players, seeds, "fishing")


def _winner(plays, lowest=False, named=None, namer=None):
    """The auditor's own B2/B4 on [(player, card name)] in play order, named back."""
    deck = load_deck("fishing")
    ref = _FishingReferee([], deck)
    ref.lowest, ref.named, ref.namer = lowest, named, namer
    p, c = ref.winner([(p, deck.by_name[c].id) for p, c in plays])
    return p, None if c is None else deck.cards[c].name


@pytest.mark.parametrize("plays, lowest, named, want", [
    # B2: the highest of the led colour; a shed card does not win
    ([(0, "red 5"), (1, "red 12"), (2, "blue 18"), (3, "red 0")], False, None, (1, "red 12")),
    # B2: green is always trump; a green zero beats every colour
    ([(0, "blue 18"), (1, "green 0"), (2, "blue 17")], False, None, (1, "green 0")),
    # B2: a zero is highest when nobody else follows
    ([(0, "yellow 0"), (1, "blue 3"), (2, "red 17")], False, None, (0, "yellow 0")),
    # B2: a buoy lead leaves the suit to the next colour card; only buoys: the first buoy
    ([(2, "buoy play-first"), (3, "purple 4"), (0, "purple 9")], False, None, (0, "purple 9")),
    ([(2, "buoy play-first"), (3, "buoy minus-3 (1)"), (0, "buoy lowest-wins")], False, None,
     (2, None)),
    # B4 lowest-wins: the lowest of the led suit, or the lowest trump if a trump was played
    ([(0, "red 5"), (1, "red 12"), (2, "blue 1"), (3, "red 3")], True, None, (3, "red 3")),
    ([(0, "red 2"), (1, "green 14"), (2, "red 0"), (3, "green 9")], True, None, (3, "green 9")),
    # B4 determine-colour: the named suit is led from the first card; nobody follows or
    # trumps: the namer catches (also when only buoys are played)
    ([(0, "blue 9"), (1, "purple 2"), (2, "purple 7")], False, "purple", (2, "purple 7")),
    ([(0, "blue 9"), (1, "red 2"), (2, "yellow 7")], False, "purple", (1, None)),
    ([(0, "buoy minus-3 (1)"), (1, "buoy lowest-wins")], False, "blue", (1, None)),
    ([(0, "blue 9"), (1, "green 2"), (2, "purple 7")], False, "purple", (1, "green 2")),
    ([(0, "blue 9"), (1, "purple 2"), (2, "purple 7")], True, "purple", (1, "purple 2")),
])
def test_auditor_fishing_winner(plays, lowest, named, want):
    assert _winner(plays, lowest, named, namer=1) == want


@pytest.mark.parametrize("n_seeds", SEED_COUNTS)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_auditor_passes_seeded_fishing_games(players, n_seeds):
    counts = _audit_seeded(players, n_seeds, "fishing")
    # every Fishing rule was exercised by these games, and not only forfeited
    for k in ("zero_catch", "catch_all_others", "pass_1_left", "play_first",
              "determine_colour", "lowest_wins", "bonus"):
        assert counts.get(k, 0) > counts.get(f"forfeited {k}", 0), k


def test_fishing_audit_summary():
    events = _flog(4, 7)
    summary = audit_game(events)
    assert summary["ruleset"] == "fishing"
    assert summary["points"] == list(events[-1]["points"])


def _fishing_illegal_swap(events: list[dict], named_only: bool):
    """(index, card name): a play that followed the led (or named) suit, and a hand card of
    another suit the player held (playing it would have been illegal)."""
    deck = load_deck("fishing")

    def suit(name):
        c = deck.by_name[name]
        return None if c.kind == "buoy" else "trump" if c.kind == "green" else c.colour

    hands: dict[int, set[str]] = {}
    led, named = None, None
    for i, ev in enumerate(events):
        kind = ev["event"]
        if kind in ("deal", "draw"):
            hands.setdefault(ev["player"], set()).add(ev["card"])
        elif kind == "pass_1_left":  # events of one pass come together; order is harmless
            hands[ev["player"]].discard(ev["card"])
            hands.setdefault(ev["to"], set()).add(ev["card"])
        elif kind == "trick_start":
            named = ev["suit"]
            led = None if named is None else "trump" if named == "green" else named
        elif kind == "play":
            p, card = ev["player"], ev["card"]
            if led is not None and suit(card) == led and (named or not named_only):
                wrong = sorted(h for h in hands[p] if suit(h) not in (None, led))
                if wrong:
                    return i, wrong[0]
            hands[p].discard(card)
            if led is None:
                led = suit(card)
    return None


@pytest.mark.parametrize("named_only", [True, False])
def test_fishing_mutation_illegal_play(named_only):
    _flags_an_illegal_swap((_flog(players, seed) for players in (4, 5, 3) for seed in range(300)),
                           lambda events: _fishing_illegal_swap(events, named_only))


def test_fishing_mutation_trick_start_lowest_wins():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "trick_start"
                           and ev[i]["lowest_wins"])
    events[i]["lowest_wins"] = False
    _assert_flags(events, i, "lowest_wins")


def test_fishing_mutation_zero_catch_player():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "zero_catch")
    events[i]["player"] = (events[i]["player"] + 1) % events[0]["players"]
    _assert_flags(events, i, "player")


def test_fishing_mutation_zero_catches_a_card_not_in_the_trick():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "zero_catch")
    trick = [e["card"] for e in events[i - 10:i] if e["event"] == "play"]
    events[i]["card"] = next(c for c in ("green 16", "green 15", "green 14") if c not in trick)
    _assert_flags(events, i, "not in the trick")


def test_fishing_mutation_missing_minus_3():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "bonus")
    assert events[i]["points"] == -3
    del events[i]
    _assert_flags(events, i, "bonus")


def test_fishing_mutation_minus_3_to_the_wrong_player():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "bonus")
    events[i]["player"] = (events[i]["player"] + 1) % events[0]["players"]
    _assert_flags(events, i, "player")


def test_fishing_mutation_catch_all_others_misses_a_card():
    # drop the last card of a catch-all-others: the auditor flags the event in its place
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "catch_all_others"
                           and ev[i - 1]["event"] == "catch_all_others"
                           and ev[i + 1]["event"] != "catch_all_others")
    del events[i]
    _assert_flags(events, i, "catch_all_others")


def test_fishing_mutation_pass_1_left_direction():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "pass_1_left")
    events[i]["to"] = (events[i]["player"] - 1) % events[0]["players"]
    _assert_flags(events, i, "to")


def test_fishing_mutation_pass_1_left_received_card():
    # a player passes on the card it receives in the same pass: not allowed (ruling F3)
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "pass_1_left"
                           and ev[i + 1]["event"] == "pass_1_left")
    events[i + 1]["card"] = events[i]["card"]
    _assert_flags(events, i + 1, "hand")


def test_fishing_mutation_determine_colour_suit():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "determine_colour"
                           and ev[i]["suit"] is not None)
    events[i]["suit"] = "light"
    _assert_flags(events, i, "suit")


def test_fishing_mutation_play_first_forfeited():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "play_first")
    events[i]["forfeited"] = not events[i]["forfeited"]
    _assert_flags(events, i, "forfeited")


def test_fishing_mutation_play_first_ignored():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "play_first"
                           and not ev[i]["forfeited"])
    j = next(j for j in range(i, len(events)) if events[j]["event"] == "trick_start")
    events[j]["leader"] = (events[j]["leader"] + 1) % events[0]["players"]
    _assert_flags(events, j, "leader")


def test_fishing_mutation_trump_event():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "trick_start" and ev[i]["trick"] > 1)
    events.insert(i, {"event": "trump", "shade": "light"})
    _assert_flags(events, i, "trump")


def test_fishing_mutation_caught_by_the_wrong_player():
    events, i = _find_flog(lambda ev, i: ev[i]["event"] == "caught")
    events[i]["player"] = (events[i]["player"] + 1) % events[0]["players"]
    _assert_flags(events, i, "player")
