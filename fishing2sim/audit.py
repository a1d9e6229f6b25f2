"""The independent auditor: rebuilds a game from its event log and re-checks every rule.

Plain, slow, obvious Python. It shares no rule code with the engine on purpose: it does not
import ``fishing2sim.engine`` or ``fishing2sim.config.deck``, reads the deck CSV itself with the
``csv`` module, and works on card names. The event format is ``docs/events.md``; the rules
are ``docs/rules.md`` parts A (Fishing 2), B (the original Fishing) and C, plus the project's
rulings (docs/rules.md) repeated where they are used below (marked "Ruling").

    from fishing2sim.audit import audit_game
    summary = audit_game(play_game(4, seed=7, log=True).events)

``audit_game`` raises ``AuditError("event #i (<event>): <what is wrong>")`` at the first event
that breaks a rule (or, when an expected event is missing, at the event found in its place)
and otherwise returns a small summary.

How it works: one ``_Referee`` walks the log as a straight-line script of the game
(setup -> rounds -> tricks -> game end), taking each event in the order the rules demand
(``_Log.take``), checking every choice the log reports against the set the rules allow, and
moving cards between *places* (hands, boats, fishers, ocean, trick, out of game). A move
checks that the card is where the rules say it is (and on top, for boats and the ocean), so
every card is in exactly one place after every event; a full recount of all places runs
after the deal, after every round and at the end. Ruleset-specific parts (the trick, the
trump choice) are methods of a subclass: ``_Fishing2Referee`` (docs/rules.md A) and
``_FishingReferee`` (docs/rules.md B).
"""

from __future__ import annotations

import csv
import functools
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

__all__ = ["AuditError", "audit_game", "load_deck", "DEFAULT_DECK_DIR"]

DEFAULT_DECK_DIR = Path(__file__).resolve().parent / "data" / "decks"

SHADES = ("light", "dark")
TRUMP = "trump"  # the suit of a trump card in a trick (the colours are their own names)


class AuditError(AssertionError):
    """The log breaks a rule (or is not a complete log)."""


# ---------------------------------------------------------------------------------------
# The deck table, read straight from the CSV.


@dataclass(frozen=True)
class Card:
    id: int
    name: str
    kind: str  # colour / green / blowfish / buoy
    colour: str  # blue / yellow / red / light / dark / both / none
    value: int | None  # None for buoys
    effect: str  # catch-1-other / +3-points / ... / none
    tier: int  # 0 = starting card, 1..5 = ocean star tier
    min_players: int  # the card is used only with at least this many players ("4+" -> 4)


@dataclass(frozen=True)
class Deck:
    ruleset: str
    cards: tuple[Card, ...]
    by_name: dict[str, Card]
    hand_sizes: dict[int, tuple[int, ...]]  # players -> hand size per round


_KINDS = {
    "fishing2": {"colour", "green", "blowfish", "buoy"},
    "fishing": {"colour", "green", "buoy"},
}
_COLOURS = {
    "fishing2": {"blue", "yellow", "red", "light", "dark", "both", "none"},
    "fishing": {"blue", "yellow", "purple", "red", "green", "none"},
}
_EFFECTS = {
    "fishing2": {"none", "catch-1-other", "+3-points", "determine-trump", "draw-1-card",
                 "catch-1-card", "exchange-1-card"},
    "fishing": {"none", "zero", "pass-1-left", "minus-3", "catch-all-others", "play-first",
                "determine-colour", "lowest-wins"},
}


def load_deck(ruleset: str, deck_dir: str | Path | None = None) -> Deck:
    """Read ``<ruleset>.csv`` and ``<ruleset>_hands.csv`` from ``deck_dir``."""
    deck_dir = Path(deck_dir) if deck_dir is not None else DEFAULT_DECK_DIR
    files = [deck_dir / f"{ruleset}.csv", deck_dir / f"{ruleset}_hands.csv"]
    stamp = tuple((str(f.resolve()), f.stat().st_mtime_ns) for f in files if f.exists())
    return _load_deck(ruleset, deck_dir, stamp)


@functools.lru_cache(maxsize=16)
def _load_deck(ruleset: str, deck_dir: Path, stamp: tuple) -> Deck:
    """load_deck, cached while the files are unchanged (``stamp``: paths, mtimes)."""
    cards = []
    with open(deck_dir / f"{ruleset}.csv", newline="") as f:
        for row_no, row in enumerate(csv.DictReader(f)):
            where = f"{ruleset}.csv row {row_no + 2}"
            try:
                card = Card(
                    id=int(row["id"]),
                    name=row["name"].strip(),
                    kind=row["kind"].strip(),
                    colour=row["colour"].strip(),
                    value=int(row["value"]) if row["value"].strip() != "" else None,
                    effect=row["effect"].strip(),
                    tier=int(row["tier"]),
                    min_players=int(row["min_players"]),
                )
            except (KeyError, ValueError) as exc:
                raise AuditError(f"{where}: unreadable ({exc})") from None
            if card.id != row_no:
                raise AuditError(f"{where}: id {card.id} is not the row number {row_no}")
            if card.kind not in _KINDS.get(ruleset, {card.kind}):
                raise AuditError(f"{where}: unknown kind {card.kind!r}")
            if card.colour not in _COLOURS.get(ruleset, {card.colour}):
                raise AuditError(f"{where}: unknown colour {card.colour!r}")
            if card.effect not in _EFFECTS.get(ruleset, {card.effect}):
                raise AuditError(f"{where}: unknown effect {card.effect!r}")
            if (card.kind == "buoy") != (card.value is None):
                raise AuditError(f"{where}: buoys and only buoys have no value")
            cards.append(card)
    by_name = {c.name: c for c in cards}
    if len(by_name) != len(cards):
        raise AuditError(f"{ruleset}.csv: card names are not unique")
    hand_sizes = {}
    with open(deck_dir / f"{ruleset}_hands.csv", newline="") as f:
        reader = csv.DictReader(f)
        round_cols = [c for c in reader.fieldnames or () if c.startswith("round_")]
        round_cols.sort(key=lambda c: int(c.split("_", 1)[1]))
        for row in reader:
            hand_sizes[int(row["players"])] = tuple(int(row[c]) for c in round_cols)
    return Deck(ruleset, tuple(cards), by_name, hand_sizes)


# ---------------------------------------------------------------------------------------
# Reading the log.


class _Log:
    """The event list with a cursor; every error names the event it is about."""

    def __init__(self, events: list[dict]):
        self.events = events
        self.next = 0  # index of the next event to take
        self.cur: int | None = None  # index of the event being checked

    def fail(self, msg: str, index: int | None = None):
        i = self.cur if index is None else index
        if i is None or i >= len(self.events):
            raise AuditError(f"event #{len(self.events)} (end of log): {msg}")
        raise AuditError(f"event #{i} ({self.events[i]!r}): {msg}")

    def fail_next(self, msg: str):
        """A rule is broken by what comes (or does not come) at the next event."""
        self.fail(msg, self.next)

    def peek(self) -> str | None:
        if self.next >= len(self.events):
            return None
        ev = self.events[self.next]
        return ev.get("event") if isinstance(ev, dict) else None

    def take(self, kind: str, why: str = "") -> dict:
        i = self.next
        if i >= len(self.events):
            self.fail(f"the log ends; expected a {kind!r} event{why}", i)
        ev = self.events[i]
        self.cur = i
        if not isinstance(ev, dict):
            self.fail("an event must be a dict")
        if ev.get("event") != kind:
            self.fail(f"expected a {kind!r} event{why}, got {ev.get('event')!r}")
        self.next = i + 1
        return ev

    def get(self, ev: dict, key: str) -> Any:
        if key not in ev:
            self.fail(f"missing key {key!r}")
        return ev[key]


# ---------------------------------------------------------------------------------------
# Where the cards are.


class _Pile:
    """An unordered place (hand, fisher, trick, out of game). A dict keeps insertion order."""

    def __init__(self, label: str):
        self.label = label
        self.cards: dict[int, None] | deque = {}

    def __len__(self):
        return len(self.cards)

    def __contains__(self, c):
        return c in self.cards

    def __iter__(self):
        return iter(list(self.cards))

    def add(self, c: int):
        self.cards[c] = None

    def remove(self, c: int):
        del self.cards[c]


class _Stack(_Pile):
    """A face-down stack drawn from the top (boat, ocean); index 0 is the top."""

    def __init__(self, label: str):
        super().__init__(label)
        self.cards = deque()

    def top(self) -> int | None:
        return self.cards[0] if self.cards else None

    def add(self, c: int):  # cards are only ever put at the bottom (A10.1, setup)
        self.cards.append(c)

    def remove(self, c: int):  # cards are only ever drawn from the top
        assert self.cards[0] == c
        self.cards.popleft()


class _Table:
    def __init__(self, deck: Deck, players: int, log: _Log):
        self.deck = deck
        self.log = log
        self.box = _Pile("the game box (not yet dealt)")
        self.out = _Pile("out of the game")
        self.ocean = _Stack("the ocean")
        self.trick = _Pile("the trick")
        self.hands = [_Pile(f"player {p}'s hand") for p in range(players)]
        self.boats = [_Stack(f"player {p}'s boat") for p in range(players)]
        self.fishers = [_Pile(f"player {p}'s fisher") for p in range(players)]
        self.loc: dict[int, _Pile] = {}
        for c in deck.cards:
            self.box.add(c.id)
            self.loc[c.id] = self.box

    def places(self) -> Iterable[_Pile]:
        yield from (self.box, self.out, self.ocean, self.trick)
        yield from self.hands
        yield from self.boats
        yield from self.fishers

    def name(self, c: int) -> str:
        return self.deck.cards[c].name

    def move(self, c: int, src: _Pile, dst: _Pile):
        where = self.loc[c]
        if where is not src:
            self.log.fail(f"{self.name(c)} is not in {src.label} (it is in {where.label})")
        if isinstance(src, _Stack) and src.top() != c:
            self.log.fail(f"{self.name(c)} is not the top card of {src.label} "
                          f"(the top card is {self.name(src.top())})")
        src.remove(c)
        dst.add(c)
        self.loc[c] = dst

    def check_conservation(self):
        """Every card of the deck in exactly one place."""
        seen = 0
        for place in self.places():
            for c in place.cards:
                if self.loc[c] is not place:
                    self.log.fail(f"card conservation: {self.name(c)} is in {place.label} "
                                  f"and in {self.loc[c].label}")
            seen += len(place)
        if seen != len(self.deck.cards):
            self.log.fail(f"card conservation: {seen} cards placed, the deck has "
                          f"{len(self.deck.cards)}")


# ---------------------------------------------------------------------------------------
# The referee: the game as a script, shared by the rulesets.


class _Overfished(Exception):
    """The game ended by overfishing (the overfished event has been checked)."""


class _Referee:
    ruleset = ""

    def __init__(self, events: list[dict], deck: Deck):
        self.log = _Log(events)
        self.deck = deck

    # -- small helpers ---------------------------------------------------------------------

    def card(self, ev: dict, key: str = "card") -> int:
        name = self.log.get(ev, key)
        card = self.deck.by_name.get(name) if isinstance(name, str) else None
        if card is None:
            self.log.fail(f"{key} {name!r} is not a card of the {self.ruleset} deck")
        return card.id

    def player(self, ev: dict, key: str = "player") -> int:
        p = self.log.get(ev, key)
        if isinstance(p, bool) or not isinstance(p, int) and not hasattr(p, "__index__"):
            self.log.fail(f"{key} {p!r} is not a seat number")
        p = int(p)
        if not 0 <= p < self.P:
            self.log.fail(f"{key} {p} is not a seat of a {self.P}-player game")
        return p

    def take_play(self, want: int, plays: list[tuple[int, int]], *trump) -> int:
        """Player ``want``'s next card of the trick, from their hand and legal (the ruleset's
        check_legal, given ``trump`` in Fishing 2): moved to the trick, added to ``plays``."""
        log, t = self.log, self.t
        ev = log.take("play", f" (player {want}'s card)")
        self.expect(ev, "player", want, " (clockwise from the leader)")
        c = self.card(ev)
        if c not in t.hands[want]:
            log.fail(f"{self.c(c).name} is not in player {want}'s hand")
        self.check_legal(want, c, [pc for _, pc in plays], *trump)
        t.move(c, t.hands[want], t.trick)
        plays.append((want, c))
        return c

    def expect(self, ev: dict, key: str, want: Any, why: str = ""):
        got = self.log.get(ev, key)
        if got != want or type(got) is bool and type(want) is not bool:
            self.log.fail(f"{key} should be {want!r}{why}, not {got!r}")

    def c(self, card_id: int) -> Card:
        return self.deck.cards[card_id]

    def hands_empty(self) -> bool:
        return all(len(h) == 0 for h in self.t.hands)

    # -- the game ---------------------------------------------------------------------------

    def run(self) -> dict:
        self.setup()
        self.first_deal()
        self.rounds_scored = 0
        self.round_played = 0  # the last round in which tricks were played
        end_reason = "completed"
        try:
            for r in range(1, self.n_rounds + 1):
                self.round_started = r
                if r > 1:
                    self.round_draws(r)
                else:
                    self.take_leader(r)
                self.before_first_trick(r)
                self.round_played = r
                self.play_tricks(r)
                self.score_round(r)
        except _Overfished:
            end_reason = "overfished"
        self.game_end(end_reason)
        return {
            "ruleset": self.ruleset,
            "players": self.P,
            "rounds_played": self.rounds_scored,  # rounds finished and scored
            "end_round": self.round_started,  # the round in which the game ended
            "end_reason": end_reason,
            "points": list(self.points),
            "winners": self.winners,
            "events": len(self.log.events),
        }

    def setup(self):
        log = self.log
        ev = log.take("setup", " first")
        self.expect(ev, "ruleset", self.ruleset)
        P = log.get(ev, "players")
        if P not in self.deck.hand_sizes:
            log.fail(f"{P!r} players: the hand-size table has rows for "
                     f"{sorted(self.deck.hand_sizes)}")
        self.P = P
        self.hand_sizes = self.deck.hand_sizes[P]
        self.n_rounds = len(self.hand_sizes)
        self.expect(ev, "hand_sizes", list(self.hand_sizes), " (the hand-size table)")
        self.expect(ev, "rounds", self.n_rounds, " (the hand-size table)")
        fl = log.get(ev, "first_leader")
        self.first_leader = None if fl is None else self.player(ev, "first_leader")
        self.t = _Table(self.deck, P, log)
        self.points = [0] * P
        self.last_trick_order: list[int] = []  # play order of the previous round's final trick

    def first_deal(self):
        """Deal and ocean events (and round 1's round_start), in any order."""
        log, t, P = self.log, self.t, self.P
        used = [c for c in self.deck.cards if c.min_players <= P]
        starting = [c.id for c in used if c.tier == 0]
        ocean = [c.id for c in used if c.tier > 0]
        hs = self.hand_sizes[0]
        if len(starting) != P * hs:
            log.fail(f"the deck has {len(starting)} starting cards for {P} players, the "
                     f"hand-size table deals {hs} each", 0)
        started = False
        while log.peek() in ("deal", "ocean", "round_start"):
            kind = log.peek()
            ev = log.take(kind)
            if kind == "round_start":
                if started:
                    log.fail("a second round_start before the first trick")
                started = True
                self.expect(ev, "round", 1)
                self.expect(ev, "hand_size", hs)
            elif kind == "deal":
                p, c = self.player(ev), self.card(ev)
                if self.c(c).tier != 0:
                    log.fail(f"{self.c(c).name} is not a starting card")
                if self.c(c).min_players > P:
                    log.fail(f"{self.c(c).name} is removed with {P} players (A2)")
                if len(t.hands[p]) >= hs:
                    log.fail(f"player {p} is dealt more than {hs} cards")
                t.move(c, t.box, t.hands[p])
            else:
                c = self.card(ev)
                self.expect(ev, "position", len(t.ocean))
                if self.c(c).tier == 0 or self.c(c).min_players > P:
                    log.fail(f"{self.c(c).name} does not belong in the {P}-player ocean (A2)")
                if len(t.ocean) and self.c(t.ocean.cards[-1]).tier > self.c(c).tier:
                    log.fail(f"tier {self.c(c).tier} card below a tier "
                             f"{self.c(t.ocean.cards[-1]).tier} card: the ocean is stacked "
                             f"tier 1 on top ... tier 5 at the bottom (A2)")
                t.move(c, t.box, t.ocean)
        if not started:
            log.fail_next("expected round_start for round 1")
        for p in range(P):
            if len(t.hands[p]) != hs:
                log.fail_next(f"player {p} was dealt {len(t.hands[p])} cards, not {hs}")
        if len(t.ocean) != len(ocean):
            log.fail_next(f"the ocean has {len(t.ocean)} cards, not {len(ocean)}")
        for c in list(t.box):  # what is left in the box is out of this game
            if self.c(c).min_players <= P:  # pragma: no cover - counts above catch it
                log.fail_next(f"{self.c(c).name} was neither dealt nor put in the ocean")
            t.move(c, t.box, t.out)
        t.check_conservation()

    def ordered_by_last_trick(self) -> dict[int, int]:
        """Seat -> position in the previous round's final trick (0 = played first)."""
        return {p: i for i, p in enumerate(self.last_trick_order)}

    def take_leader(self, r: int):
        log = self.log
        ev = log.take("leader", f" (round {r}'s first leader)")
        self.expect(ev, "round", r)
        p = self.player(ev)
        if r == 1:
            if self.first_leader is not None and p != self.first_leader:
                log.fail(f"round 1 leader should be the setup's first_leader "
                         f"{self.first_leader}")
        else:
            # A10.3: fewest points; ties to the earlier player in the previous final trick.
            pos = self.ordered_by_last_trick()
            want = min(range(self.P), key=lambda q: (self.points[q], pos[q]))
            if p != want:
                log.fail(f"round {r} leader should be player {want} (fewest points "
                         f"{self.points}, ties to whoever played earlier in the previous "
                         f"round's final trick {self.last_trick_order}) (A10.3)")
        self.round_leader = p

    def round_draws(self, r: int):
        """A10.2: draw the hand size from the boat, shortfalls from the ocean, or overfish."""
        log, t, P = self.log, self.t, self.P
        hs = self.hand_sizes[r - 1]
        for p in range(P):
            if len(t.hands[p]):
                log.fail_next(f"player {p} starts round {r} with cards in hand")
            if len(t.fishers[p]):
                log.fail_next(f"player {p}'s fisher was not put under the boat (A10.1)")
        short = [max(0, hs - len(t.boats[p])) for p in range(P)]
        total = sum(short)
        if log.peek() != "overfished" or total <= len(t.ocean):
            ev = log.take("round_start", f" (round {r})")
            self.expect(ev, "round", r)
            self.expect(ev, "hand_size", hs, " (the hand-size table)")
        if total > len(t.ocean):
            self.take_overfished(total, "round",
                                 f" (round {r}: total shortfall {short} > ocean {len(t.ocean)})")
        pos = self.ordered_by_last_trick()
        order = sorted((p for p in range(P) if short[p]), key=lambda p: (-short[p], pos[p]))
        queue = deque(p for p in order for _ in range(short[p]))
        leader_seen = False
        while log.peek() in ("draw", "leader"):
            if log.peek() == "leader":
                if leader_seen:
                    log.fail_next("a second leader event")
                self.take_leader(r)
                leader_seen = True
                continue
            ev = log.take("draw")
            p, c = self.player(ev), self.card(ev)
            self.expect(ev, "cause", "round")
            if len(t.hands[p]) >= hs:
                log.fail(f"player {p} already holds the hand size {hs}")
            src = log.get(ev, "source")
            if src == "boat":
                if not len(t.boats[p]):
                    log.fail(f"player {p}'s boat is empty")
                t.move(c, t.boats[p], t.hands[p])
            elif src == "ocean":
                if len(t.boats[p]):
                    log.fail(f"player {p} draws from the ocean with {len(t.boats[p])} cards "
                             f"on the boat (A10.2)")
                if not queue or queue[0] != p:
                    log.fail(f"ocean draw order: expected player {queue[0] if queue else None}"
                             f" (shortfalls {short}: the most short first, ties to the earlier"
                             f" player in the previous round's final trick "
                             f"{self.last_trick_order}) (A10.2)")
                t.move(c, t.ocean, t.hands[p])
                queue.popleft()
            else:
                log.fail(f"source must be 'boat' or 'ocean', not {src!r}")
        for p in range(P):
            if len(t.hands[p]) != hs:
                log.fail_next(f"player {p} holds {len(t.hands[p])} cards after the draws, "
                              f"not {hs} (A10.2)")
        if not leader_seen:
            self.take_leader(r)
        t.check_conservation()

    def take_overfished(self, needed: int, cause: str, why: str):
        ev = self.log.take("overfished", why)
        self.expect(ev, "needed", needed)
        self.expect(ev, "ocean", len(self.t.ocean))
        self.expect(ev, "cause", cause)
        raise _Overfished

    def before_first_trick(self, r: int):
        """Ruleset hook: e.g. Fishing 2's trump choice (A10.3)."""

    def play_tricks(self, r: int):
        leader, n = self.round_leader, 0
        while True:
            n += 1
            leader = self.trick(r, n, leader)
            sizes = {len(h) for h in self.t.hands}
            if len(sizes) != 1:
                self.log.fail(f"hands of different sizes {[len(h) for h in self.t.hands]}")
            if sizes == {0}:
                return

    def trick(self, r: int, n: int, leader: int) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def score_round(self, r: int):
        """A10.1: 1 point per fisher card; the shuffled fisher goes under the boat."""
        log, t, P = self.log, self.t, self.P
        scored = [False] * P
        while log.peek() in ("round_score", "boat"):
            kind = log.peek()
            ev = log.take(kind)
            p = self.player(ev)
            if kind == "round_score":
                if scored[p]:
                    log.fail(f"player {p} is scored twice in round {r}")
                scored[p] = True
                self.expect(ev, "caught", len(t.fishers[p]),
                            f" (cards on player {p}'s fisher)")
                self.points[p] += len(t.fishers[p])
                self.expect(ev, "points", self.points[p])
            else:
                if not scored[p]:
                    log.fail(f"player {p}'s fisher goes to the boat before it is scored")
                t.move(self.card(ev), t.fishers[p], t.boats[p])  # under the boat
        for p in range(P):
            if not scored[p]:
                log.fail_next(f"player {p} has no round_score for round {r}")
        self.rounds_scored = r
        t.check_conservation()

    def game_end(self, reason: str):
        log = self.log
        ev = log.take("game_end")
        self.expect(ev, "reason", reason)
        # round: the round the game ended in (docs/events.md); overfishing at the start of
        # round r reports r, though round r never started.
        self.expect(ev, "round", self.round_started)
        self.expect(ev, "points", self.points)
        best = max(self.points)
        self.winners = [p for p in range(self.P) if self.points[p] == best]
        got = log.get(ev, "winners")
        if not isinstance(got, list) or sorted(got) != self.winners:
            log.fail(f"winners should be {self.winners} (everyone with {best} points) (A11)")
        self.t.check_conservation()
        if log.next != len(log.events):
            log.fail_next("events after game_end")


# ---------------------------------------------------------------------------------------
# Fishing 2 (docs/rules.md A).


class _Fishing2Referee(_Referee):
    ruleset = "fishing2"

    def setup(self):
        super().setup()
        self.trump: str | None = None  # round 1 has no trump (A4)

    def before_first_trick(self, r: int):
        if r == 1:
            self.trump = None
            return
        ev = self.log.take("trump_choice", f" (round {r}, A10.3)")
        self.expect(ev, "round", r)
        self.expect(ev, "player", self.round_leader, " (the round leader chooses)")
        shade = self.log.get(ev, "shade")
        if shade not in SHADES:
            self.log.fail(f"shade must be light or dark, not {shade!r}")
        self.trump = shade

    # -- suits (A4, A5) -------------------------------------------------------------------

    def suit(self, c: int, trump: str | None) -> str | None:
        """A colour or green card's suit: its colour, or TRUMP. Blowfish and buoys: None."""
        card = self.c(c)
        if card.kind == "colour":
            return card.colour
        if card.kind == "green":
            if trump is not None and card.colour in (trump, "both"):
                return TRUMP  # A4 ruling: the 16s are always trump
            return card.colour  # the inactive shade is a fourth colour
        return None

    def led_suit(self, cards: list[int], trump: str | None) -> str | None:
        """A5: set by the first colour or trump card played."""
        for c in cards:
            s = self.suit(c, trump)
            if s is not None:
                return s
        return None

    def check_legal(self, p: int, c: int, played: list[int], trump: str | None):
        card = self.c(c)
        led = self.led_suit(played, trump)
        if led is None or card.kind in ("buoy", "blowfish"):
            return  # A5: no suit yet, or buoys/blowfish may always be played
        if self.suit(c, trump) == led:
            return
        # A5 ruling: holding blowfish or buoys never counts as holding the led suit.
        holding = [self.c(h).name for h in self.t.hands[p] if self.suit(h, trump) == led]
        if holding:
            self.log.fail(f"illegal play: {led} is led and player {p} holds {holding} (A5)")

    # -- highest and weakest (A6, A7) -------------------------------------------------------

    def rank(self, plays: list[tuple[int, int]], trump: str | None):
        """(highest_player, highest_card, weakest_player, weakest_card) of a finished trick.

        ``plays`` is [(player, card)] in play order. Ties of equal value (the two 16s; shed
        cards) are broken by play order: the later is higher, the earlier is weaker."""
        cards = [c for _, c in plays]
        led = self.led_suit(cards, trump)
        entries = [(self.c(c).value, i, p, c) for i, (p, c) in enumerate(plays)]
        if led is None:
            blowfish = [e for e in entries if self.c(e[3]).kind == "blowfish"]
            if not blowfish:  # A6: only buoys: the first buoy's player catches
                return plays[0][0], None, None, None
            hi, lo = max(blowfish), min(blowfish)  # A6 ruling
            return hi[2], hi[3], lo[2], lo[3]

        def is_blowfish(e):
            return self.c(e[3]).kind == "blowfish"

        # A5/A6: blowfish count as the led suit (as trump when trump was led).
        of_led = [e for e in entries if self.suit(e[3], trump) == led or is_blowfish(e)]
        trumps = [e for e in entries
                  if self.suit(e[3], trump) == TRUMP or (led == TRUMP and is_blowfish(e))]
        shed = [e for e in entries if self.suit(e[3], trump) not in (None, led, TRUMP)]
        hi = max(trumps) if trumps else max(of_led)
        lo = min(shed) if shed else min(of_led) if of_led else min(trumps)  # A7
        return hi[2], hi[3], lo[2], lo[3]

    # -- one trick ------------------------------------------------------------------------

    def trick(self, r: int, n: int, leader: int) -> int:
        log, t = self.log, self.t
        trump = self.trump
        ev = log.take("trick_start", f" (round {r}, trick {n})")
        self.expect(ev, "round", r)
        self.expect(ev, "trick", n)
        self.expect(ev, "leader", leader,
                    " (the round leader)" if n == 1 else " (the previous trick's highest)")
        self.expect(ev, "trump", trump)
        if len(t.trick):
            log.fail("the trick is not empty")
        plays = self.trick_plays(leader, trump)
        order = [p for p, _ in plays]

        # A8 step 1: highest and weakest, from the cards as played.
        hi_p, hi_c, lo_p, lo_c = self.rank(plays, trump)
        ev = log.take("trick_result")
        name = lambda c: None if c is None else self.c(c).name  # noqa: E731
        for key, want in (("highest_card", name(hi_c)), ("highest_player", hi_p),
                          ("weakest_card", name(lo_c)), ("weakest_player", lo_p)):
            self.expect(ev, key, want, " (A6/A7)")

        # A8 step 2: buoy effects in play order, on the cards still in the trick.
        face_down: set[int] = set()
        determined: str | None = None
        for p, b in plays:
            effect = self.c(b).effect
            if self.c(b).kind != "buoy" or effect == "+3-points":
                continue
            shade = self.buoy(p, b, effect, order, face_down)
            if effect == "determine-trump":
                determined = shade
        self.trick_catches(hi_p, lo_p, face_down)  # A8 step 3
        self.trump_change(trump, plays, determined)  # A8 step 4
        self.last_trick_order = order
        return hi_p  # A8 step 5

    def trick_plays(self, leader: int, trump) -> list[tuple[int, int]]:
        """Every player's card, clockwise from the leader, each legal and from the hand; a
        +3-points buoy scores when played (A9)."""
        log = self.log
        plays: list[tuple[int, int]] = []
        for k in range(self.P):
            want = (leader + k) % self.P
            c = self.take_play(want, plays, trump)
            if self.c(c).effect == "+3-points":  # A9: scored when played
                ev = log.take("bonus", " (+3-points was played)")
                self.expect(ev, "player", want)
                self.expect(ev, "points", 3)
                self.points[want] += 3
        return plays

    def buoy(self, p: int, b: int, effect: str, order: list, face_down: set):
        """Player ``p``'s buoy ``b`` resolves (A8 step 2); determine-trump's shade returned."""
        log, t = self.log, self.t
        others = [c for c in t.trick if c != b]
        if effect == "catch-1-other":
            if not others:
                return None  # no event: nothing left to catch
            ev = log.take("catch_1_other", f" (player {p}'s {self.c(b).name} resolves)")
            self.expect(ev, "player", p)
            c = self.card(ev)
            if c == b:
                log.fail("catch-1-other must catch another card, not itself")
            t.move(c, t.trick, t.fishers[p])
            face_down.discard(c)
        elif effect == "determine-trump":
            ev = log.take("determine_trump", f" (player {p}'s determine-trump resolves)")
            self.expect(ev, "player", p)
            shade = log.get(ev, "shade")
            if self.hands_empty():  # Ruling: forfeited when there is no next trick
                if shade is not None:
                    log.fail("determine-trump is forfeited (null shade): the hands are "
                             "empty, there is no next trick")
            elif shade not in SHADES:
                log.fail(f"shade must be light or dark (the hands still hold cards), "
                         f"not {shade!r}")
            return shade
        elif effect == "draw-1-card":
            self.draw_1_card(p, order)
        elif effect == "catch-1-card":
            for q in order:  # Ruling: play order; an empty hand does nothing
                if not len(t.hands[q]):
                    continue
                ev = log.take("catch_1_card", f" (catch-1-card: player {q} catches a "
                              f"hand card, play order)")
                self.expect(ev, "player", q, " (catch-1-card in play order)")
                t.move(self.card(ev), t.hands[q], t.fishers[q])
        elif effect == "exchange-1-card":
            if not others:
                return None  # Ruling: no event when nothing else is in the trick
            ev = log.take("exchange_1_card", f" (player {p}'s exchange-1-card resolves)")
            self.expect(ev, "player", p)
            taken, given = self.card(ev, "taken"), self.card(ev, "given")
            if taken == b:
                log.fail("exchange-1-card must take another card, not itself")
            t.move(taken, t.trick, t.hands[p])
            face_down.discard(taken)
            t.move(given, t.hands[p], t.trick)
            face_down.add(given)  # Ruling: face down, no effect, goes to the highest
        else:
            log.fail(f"unknown buoy effect {effect!r}")
        return None

    def draw_1_card(self, p: int, order: list) -> None:
        """draw-1-card: every player draws 1, in the trick's play order (A9/A11)."""
        log, t = self.log, self.t
        # The overfished event may follow draw_1_card or stand in its place.
        if log.peek() != "overfished":
            ev = log.take("draw_1_card", f" (player {p}'s draw-1-card resolves)")
            self.expect(ev, "player", p)
        needy = [q for q in order if not len(t.boats[q])]
        if len(needy) > len(t.ocean):  # A9/A11: checked before anyone draws
            self.take_overfished(len(needy), "draw-1-card",
                                 f" ({len(needy)} players need the ocean, it holds "
                                 f"{len(t.ocean)})")
        elif log.peek() == "overfished":
            log.fail_next(f"not overfished: {len(needy)} players need the ocean, it "
                          f"holds {len(t.ocean)}")
        for q in order:  # every player draws 1, in this trick's play order
            ev = log.take("draw", f" (draw-1-card: player {q} draws, play order)")
            self.expect(ev, "player", q, " (draw-1-card draws in play order)")
            self.expect(ev, "cause", "draw-1-card")
            src = "boat" if len(t.boats[q]) else "ocean"
            self.expect(ev, "source", src)
            t.move(self.card(ev), t.boats[q] if src == "boat" else t.ocean, t.hands[q])

    def trick_catches(self, hi_p: int, lo_p: int, face_down: set) -> None:
        """A8 step 3: the weakest catches the blowfish, the highest everything else."""
        log, t = self.log, self.t
        highest_started = False
        while log.peek() == "caught":
            ev = log.take("caught")
            c = self.card(ev)
            p = self.player(ev)
            if c not in t.trick:
                log.fail(f"{self.c(c).name} is not in the trick")
            to_weakest = self.c(c).kind == "blowfish" and c not in face_down
            by, want = ("weakest", lo_p) if to_weakest else ("highest", hi_p)
            self.expect(ev, "by", by)
            if p != want:
                log.fail(f"{self.c(c).name} goes to the {by} card's player {want} (A8 step 3)")
            if by == "highest":
                highest_started = True
            elif highest_started:
                log.fail("the weakest catches the blowfish before the highest catches (A8)")
            t.move(c, t.trick, t.fishers[p])
        if len(t.trick):
            log.fail_next(f"{[self.c(c).name for c in t.trick]} left in the trick: not caught")

    def trump_change(self, trump, plays, determined) -> None:
        """A8 step 4: the next trick's shade (never in round 1: there is no trump)."""
        log = self.log
        if determined is not None:
            nxt = determined
        elif trump is not None and any(self.c(c).kind == "green" for _, c in plays):
            nxt = "dark" if trump == "light" else "light"
        else:
            nxt = trump
        # The trump event is optional in round 1: there is no trump to report (A4).
        if trump is not None or log.peek() == "trump":
            ev = log.take("trump", " (the next trick's shade, A8 step 4)")
            self.expect(ev, "shade", nxt, " (A8 step 4)")
        self.trump = nxt


# ---------------------------------------------------------------------------------------
# The original Fishing / Fischen (docs/rules.md B).

FISHING_SUITS = ("blue", "yellow", "purple", "red", "green")  # what determine-colour names


class _FishingReferee(_Referee):
    """B1-B4 on top of the shared game script (setup, A10 rounds, A11 end).

    Green is always trump; there is no trump choice, no trump change and no weakest card.
    The state carried from one trick into the next (B4): ``lowest`` (lowest-wins),
    ``named`` / ``namer`` (determine-colour); play-first decides the returned leader."""

    ruleset = "fishing"

    def setup(self):
        super().setup()
        self.lowest, self.named, self.namer = False, None, None

    def before_first_trick(self, r: int):
        # B4: effects played in a round's last trick are forfeited: nothing carries over
        self.lowest, self.named, self.namer = False, None, None

    # -- suits (B2) ---------------------------------------------------------------------

    def suit(self, c: int) -> str | None:
        """A card's suit in a trick: its colour, TRUMP for every green, None for buoys."""
        card = self.c(c)
        if card.kind == "buoy":
            return None
        if card.kind == "green":
            return TRUMP
        return card.colour

    def led_suit(self, cards: list[int]) -> str | None:
        """B4: the named suit from the first card on; else B2 / A5: the first colour or
        trump card sets it (a buoy lead leaves it open)."""
        if self.named is not None:
            return TRUMP if self.named == "green" else self.named
        for c in cards:
            s = self.suit(c)
            if s is not None:
                return s
        return None

    def check_legal(self, p: int, c: int, played: list[int]):
        led = self.led_suit(played)
        if led is None or self.c(c).kind == "buoy":
            return  # nothing led yet, or a buoy (always allowed)
        if self.suit(c) == led:
            return
        holding = [self.c(h).name for h in self.t.hands[p] if self.suit(h) == led]
        if holding:
            why = " (named by determine-colour, B4)" if self.named is not None else ""
            self.log.fail(f"illegal play: {led} is led{why} and player {p} holds {holding}")

    def winner(self, plays: list[tuple[int, int]]) -> tuple[int, int | None]:
        """(player, card) that catches the trick; card None when no card does (only
        buoys: the first buoy's player; nobody followed the named suit: its namer)."""
        led = self.led_suit([c for _, c in plays])
        if led is None:
            return plays[0][0], None  # B2: only buoys
        entries = [(self.c(c).value, i, p, c) for i, (p, c) in enumerate(plays)]
        trumps = [e for e in entries if self.suit(e[3]) == TRUMP]
        pool = trumps or [e for e in entries if self.suit(e[3]) == led]
        if not pool:  # B4: nobody played the named suit or a trump
            return self.namer, None
        # B4 lowest-wins: the lowest trump, else the lowest of the led suit. Equal values
        # (only in edited decks): the card played earlier wins.
        if self.lowest:
            best = min(pool, key=lambda e: (e[0], e[1]))
        else:
            best = max(pool, key=lambda e: (e[0], -e[1]))
        return best[2], best[3]

    # -- moving cards to a fisher (B3: minus-3) -------------------------------------------

    def to_fisher(self, c: int, p: int):
        t = self.t
        t.move(c, t.trick, t.fishers[p])
        if self.c(c).effect == "minus-3":  # B3: whoever moves it to their fisher: -3 at once
            ev = self.log.take("bonus", f" (minus-3: {self.c(c).name} reached player {p}'s "
                               "fisher)")
            self.expect(ev, "player", p)
            self.expect(ev, "points", -3)
            self.points[p] -= 3

    # -- one trick ------------------------------------------------------------------------

    def trick(self, r: int, n: int, leader: int) -> int:
        log, t = self.log, self.t
        ev = log.take("trick_start", f" (round {r}, trick {n})")
        self.expect(ev, "round", r)
        self.expect(ev, "trick", n)
        self.expect(ev, "leader", leader, " (the round leader)" if n == 1 else
                    " (the previous trick's catching player, or its play-first player)")
        self.expect(ev, "trump", "green", " (B2: green is always trump)")
        self.expect(ev, "lowest_wins", self.lowest, " (B4: lowest-wins in the previous trick)")
        self.expect(ev, "suit", self.named, " (B4: determine-colour in the previous trick)")
        self.expect(ev, "named_by", self.namer)
        if len(t.trick):
            log.fail("the trick is not empty")

        plays = self.trick_plays(leader)
        order = [p for p, _ in plays]

        win_p, win_c = self.winner(plays)
        ev = log.take("trick_result")
        self.expect(ev, "highest_player", win_p, " (B2/B4: the catching player)")
        self.expect(ev, "highest_card", None if win_c is None else self.c(win_c).name,
                    " (B2/B4: the catching card)")
        self.expect(ev, "weakest_player", None, " (no weakest card in Fishing)")
        self.expect(ev, "weakest_card", None, " (no weakest card in Fishing)")
        next_leader, lowest, named, namer = self.effects(plays, order, win_p)

        # B3: the catching player catches what is left
        while log.peek() == "caught":
            ev = log.take("caught")
            c = self.card(ev)
            if c not in t.trick:
                log.fail(f"{self.c(c).name} is not in the trick")
            self.expect(ev, "player", win_p, " (the catching player catches the rest, B3)")
            self.expect(ev, "by", "highest")
            self.to_fisher(c, win_p)
        if len(t.trick):
            log.fail_next(f"{[self.c(c).name for c in t.trick]} left in the trick: not caught")
        if log.peek() == "trump":
            log.fail_next("a trump event: green is always trump in Fishing (B2)")

        self.lowest, self.named, self.namer = lowest, named, namer
        self.last_trick_order = order
        return next_leader


    def trick_plays(self, leader: int) -> list[tuple[int, int]]:
        """Every player's card, clockwise from the leader, each legal and from the hand."""
        plays: list[tuple[int, int]] = []
        for k in range(self.P):
            self.take_play((leader + k) % self.P, plays)
        return plays

    def effects(self, plays, order, win_p):
        """B3 / B4: the effects in play order, on the cards still in the trick: (the next
        trick's leader, lowest-wins, the named suit, who named it). Ruling: a card's effect
        resolves even if an earlier effect moved the card; next-trick effects are settled at
        their turn and forfeited when the hands are empty (no next trick)."""
        log, t = self.log, self.t
        more = not self.hands_empty()
        next_leader, lowest, named, namer = win_p, False, None, None
        for p, b in plays:
            effect = self.c(b).effect
            others = [c for c in t.trick if c != b]
            if effect == "zero":
                if not others:
                    continue  # nothing left to catch: no event
                ev = log.take("zero_catch", f" (player {p}'s {self.c(b).name} resolves)")
                self.expect(ev, "player", p)
                self.expect(ev, "zero", self.c(b).name)
                c = self.card(ev)
                if c == b:
                    log.fail("a zero catches another card, not itself")
                self.to_fisher(c, p)
            elif effect == "catch-all-others":
                for _ in others:
                    ev = log.take("catch_all_others", f" (player {p}'s catch-all-others: "
                                  f"{len(others)} other cards in the trick)")
                    self.expect(ev, "player", p)
                    c = self.card(ev)
                    if c == b or c not in others:
                        log.fail(f"{self.c(c).name} is not another card still in the trick")
                    self.to_fisher(c, p)
            elif effect == "pass-1-left":
                if more:  # empty hands: nothing to pass
                    self.pass_1_left(order)
            elif effect == "play-first":
                ev = log.take("play_first", f" (player {p}'s play-first resolves)")
                self.expect(ev, "player", p)
                self.expect(ev, "forfeited", not more, " (forfeited in a round's last trick)")
                if more:
                    next_leader = p
            elif effect == "determine-colour":
                suit = self.determine_colour(p, more)
                if suit is not None:
                    named, namer = suit, p
            elif effect == "lowest-wins":
                ev = log.take("lowest_wins", f" (player {p}'s lowest-wins resolves)")
                self.expect(ev, "player", p)
                self.expect(ev, "forfeited", not more, " (forfeited in a round's last trick)")
                lowest = lowest or more
            elif effect not in ("none", "minus-3"):
                log.fail(f"unknown effect {effect!r}")
        return next_leader, lowest, named, namer

    def pass_1_left(self, order) -> None:
        """Every player passes a hand card to the left, all at once."""
        log, t, P = self.log, self.t, self.P
        passed = []
        for q in order:  # Ruling: logged in play order; all pass at once
            ev = log.take("pass_1_left", f" (player {q} passes, play order)")
            self.expect(ev, "player", q, " (pass-1-left in play order)")
            self.expect(ev, "to", (q + 1) % P, " (to the left)")
            c = self.card(ev)
            if c not in t.hands[q]:  # nothing has moved yet: the hand before passing
                log.fail(f"{self.c(c).name} is not in player {q}'s hand")
            passed.append((q, c))
        for q, c in passed:
            t.move(c, t.hands[q], t.hands[(q + 1) % P])

    def determine_colour(self, p: int, more: bool):
        """Player ``p`` names the next trick's suit (None: forfeited, no next trick)."""
        log = self.log
        ev = log.take("determine_colour", f" (player {p}'s determine-colour resolves)")
        self.expect(ev, "player", p)
        suit = log.get(ev, "suit")
        if not more:
            if suit is not None:
                log.fail("determine-colour is forfeited (null suit): the hands are "
                         "empty, there is no next trick")
            return None
        if suit not in FISHING_SUITS:
            log.fail(f"suit must be one of {', '.join(FISHING_SUITS)}, not {suit!r}")
        return suit


_REFEREES: dict[str, type[_Referee]] = {"fishing2": _Fishing2Referee, "fishing": _FishingReferee}


def audit_game(events: list[dict], deck_dir: str | Path | None = None) -> dict:
    """Re-check a whole game from its event log; raise AuditError at the first violation.

    Returns a summary: ruleset, players, rounds_played (rounds scored), end_round,
    end_reason ("completed" / "overfished"), points, winners, events (count)."""
    events = list(events)
    if not events or not isinstance(events[0], dict) or events[0].get("event") != "setup":
        first = events[0] if events else None
        raise AuditError(f"event #0 ({first!r}): the log must start with a setup event")
    ruleset = events[0].get("ruleset")
    if ruleset not in _REFEREES:
        raise AuditError(f"event #0 ({events[0]!r}): unknown ruleset {ruleset!r}")
    deck = load_deck(ruleset, deck_dir)
    return _REFEREES[ruleset](events, deck).run()
