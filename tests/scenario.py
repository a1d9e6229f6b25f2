"""A table set up by hand for scripted rule tests.

    t = Table(players=4, trump="light", leader=0,
              hands={0: ["yellow 7"], 1: ["yellow 3"], 2: ["yellow 10"], 3: ["blue 2"]})
    events = t.play_trick()          # every seat plays its only card
    t.fisher(2)                      # -> the four cards, by name

Seats choose by preference lists (tests/bots/scripted.py): ``prefer={seat: [names...]}``;
a shade is given as "shade:light" / "shade:dark", a suit named by determine-colour as
"suit:red" (blue, yellow, purple, red, green).

The original Fishing: ``Table(ruleset="fishing", ...)`` uses the fishing deck (green is
always trump, ``trump`` is ignored); ``lowest_wins=True`` and ``named=("red", 2)`` (the suit
and the seat that named it) set the next-trick effects of docs/rules.md B4 for the first trick.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from fishing2sim.api import decode_events
from fishing2sim.config.deck import load_deck
from fishing2sim.engine import constants as K
from fishing2sim.engine import core
from fishing2sim.engine.state import (
    A_BOAT, A_BOAT_HEAD, A_BOAT_N, A_BONUS, A_FISHER, A_FISHER_N, A_HAND, A_HAND_N,
    A_LAST_ORDER, A_OCEAN, A_POINTS, A_SCORED, PH_TRICKS, PH_ROUND_START, S_END, S_EVN,
    S_LEADER, S_LED, S_LOWEST_WINS, S_NAMED_SUIT, S_NAMER, S_OCEAN_LEN, S_OCEAN_TOP, S_PHASE,
    S_ROUND, S_TRUMP, new_obs, new_state,
)
from fishing2sim.strategy.loading import load_strategy

DECK = load_deck()
DECKS = {"fishing2": DECK, "fishing": load_deck(ruleset="fishing")}
BOTS = Path(__file__).parent / "bots"


@functools.cache
def load_test_bot(name: str):
    """The test bot tests/bots/NAME.py, loaded (compiled) on first use, not when a test module
    is imported: collecting the tests compiles nothing."""
    return load_strategy(str(BOTS / f"{name}.py"))


SHADES = {"light": K.C_LIGHT, "dark": K.C_DARK, None: K.C_NONE}
SUITS = {"blue": K.C_BLUE, "yellow": K.C_YELLOW, "purple": K.C_PURPLE, "red": K.C_RED,
         "green": K.C_GREEN}
SHADE_CODE = K.OPT_SHADE  # a shade's option: OPT_SHADE + its code (LIGHT, DARK)
SUIT_CODE = K.OPT_SUIT  # a suit's option (determine-colour)


def card(name: str) -> int:
    return DECK.card(name)


def names(ids) -> list[str]:
    return [DECK.name(int(c)) for c in ids]


class Table:
    def __init__(self, players=4, round=2, trump="light", leader=0, hands=None, ocean=(),
                 boats=None, fishers=None, points=None, prefer=None, last_order=None,
                 n_rounds=8, hand_sizes=None, check=False, ruleset="fishing2",
                 lowest_wins=False, named=None):
        self.players = players
        self.ruleset = ruleset
        self.D = DECKS[ruleset]
        self.st, self.rng = new_state()
        self.ev = np.zeros((4096, K.EV_FIELDS), np.int64)
        self.obs = new_obs()
        self.deck = np.ascontiguousarray(self.D.arrays)
        hs = np.ascontiguousarray(self.D.hand_sizes[players]) if hand_sizes is None \
            else np.asarray(hand_sizes, np.int64)
        core.setup_game(self.st, self.rng, self.ev, self.deck, players, K.RULESETS[ruleset],
                        hs, n_rounds, leader, np.uint64(12345), 1, int(check), 0)
        card = self.card
        st = self.st
        st[S_EVN] = 0  # forget the setup's log: the scenario starts here
        # clear everything dealt, then place the scenario's cards
        for p in range(players):
            st[A_HAND_N + p] = 0
            st[A_BOAT_N + p] = 0
            st[A_BOAT_HEAD + p] = 0
            st[A_FISHER_N + p] = 0
        hands = hands or {}
        for p in range(players):
            for c in hands.get(p, []):
                core.hand_add(st, p, card(c))
        for i, c in enumerate(ocean):
            st[A_OCEAN + i] = card(c)
        st[S_OCEAN_TOP] = 0
        st[S_OCEAN_LEN] = len(ocean)
        for p, cards in (boats or {}).items():
            for c in cards:
                core.boat_push_under(st, p, card(c))
        for p, cards in (fishers or {}).items():
            for c in cards:
                core.fisher_add(st, p, card(c))
        for p, pts in (points or {}).items():
            st[A_POINTS + p] = pts
            st[A_SCORED + p] = pts
        order = last_order if last_order is not None else [(leader + k) % players for k in range(players)]
        for k, p in enumerate(order):
            st[A_LAST_ORDER + k] = p
        st[S_ROUND] = round
        st[S_LEADER] = leader
        if ruleset == "fishing":
            core.set_trump(st, K.C_GREEN)  # B2: green is always trump
        else:
            core.set_trump(st, SHADES[trump] if round > 1 else K.C_NONE)
        # B4: the effects the previous trick left for the first trick
        st[S_LOWEST_WINS] = int(lowest_wins)
        if named is not None:
            suit, namer = named
            st[S_NAMED_SUIT] = K.SUIT_TRUMP if suit == "green" else SUITS[suit]
            st[S_NAMER] = namer
            st[S_LED] = st[S_NAMED_SUIT]
        st[S_PHASE] = PH_TRICKS
        self.set_prefer(prefer or {})

    def card(self, name: str) -> int:
        return self.D.card(name)

    def names(self, ids) -> list[str]:
        return [self.D.name(int(c)) for c in ids]

    def set_prefer(self, prefer):
        width = max([1] + [len(v) for v in prefer.values()])
        # the engine's params table: every seat's vector (its preferences, -1 filling the
        # rest), then in the last column the vector's length (strategy.lineup.build_lineup)
        self.params = np.full((K.MAX_PLAYERS, width + 1), -1.0)
        self.params[:, -1] = width
        for p, prefs in prefer.items():
            for j, name in enumerate(prefs):
                if name.startswith("shade:"):
                    self.params[p, j] = SHADE_CODE + SHADES[name[6:]]
                elif name.startswith("suit:"):
                    self.params[p, j] = SUIT_CODE + SUITS[name[5:]]
                else:
                    self.params[p, j] = self.card(name)
        self.strats = tuple((f,) * K.MAX_PLAYERS for f in load_test_bot("scripted").functions)

    # --- running ---------------------------------------------------------------------
    def _events_since(self, start):
        rows = self.ev[start:self.st[S_EVN]]
        return [e for e in decode_events(rows, self.D, 0, 0)]

    def play_trick(self):
        start = self.st[S_EVN]
        core.play_one_trick(self.st, self.rng, self.ev, self.obs, self.strats, self.params)
        return self._events_since(start)

    def run(self, stop_at_trump=False):
        """Play on (the rest of the round, then further rounds) until the game ends."""
        start = self.st[S_EVN]
        core.run_game(self.st, self.rng, self.ev, self.deck, self.obs, self.strats,
                      self.params, K.STOP_AT_TRUMP if stop_at_trump else K.STOP_NEVER)
        return self._events_since(start)

    def start_next_round(self):
        """From the end of a round: A10 draws and leader (the state's phase must be PH_ROUND_START)."""
        self.st[S_PHASE] = PH_ROUND_START
        start = self.st[S_EVN]
        ok = core.begin_round(self.st, self.ev)
        return ok, self._events_since(start)

    # --- looking ---------------------------------------------------------------------
    def hand(self, p):
        st = self.st
        return sorted(self.names(st[A_HAND + p * K.MAX_HAND + i]
                                 for i in range(st[A_HAND_N + p])))

    def fisher(self, p):
        st = self.st
        return sorted(self.names(st[A_FISHER + p * K.MAX_CARDS + i]
                                 for i in range(st[A_FISHER_N + p])))

    def boat(self, p):
        """Top first."""
        st = self.st
        return self.names(st[A_BOAT + p * K.MAX_CARDS + (st[A_BOAT_HEAD + p] + i) % K.MAX_CARDS]
                          for i in range(st[A_BOAT_N + p]))

    def ocean(self):
        st = self.st
        return self.names(st[A_OCEAN + i] for i in range(st[S_OCEAN_TOP], st[S_OCEAN_LEN]))

    def points(self, p):
        return int(self.st[A_POINTS + p])

    def bonus(self, p):
        return int(self.st[A_BONUS + p])

    @property
    def trump(self):
        return {K.C_LIGHT: "light", K.C_DARK: "dark", K.C_NONE: None,
                K.C_GREEN: "green"}[int(self.st[S_TRUMP])]

    @property
    def lowest_wins(self):
        """B4: the coming trick is a lowest-wins trick."""
        return bool(self.st[S_LOWEST_WINS])

    @property
    def named(self):
        """B4: (suit, namer) named for the coming trick, or None."""
        s = int(self.st[S_NAMED_SUIT])
        if s == K.SUIT_NONE:
            return None
        suit = "green" if s == K.SUIT_TRUMP else {v: k for k, v in SUITS.items()}[s]
        return suit, int(self.st[S_NAMER])

    @property
    def leader(self):
        return int(self.st[S_LEADER])

    @property
    def ended(self):
        return {0: None, 1: "completed", 2: "overfished", 3: "error"}[int(self.st[S_END])]


def only(events, kind):
    return [e for e in events if e["event"] == kind]
