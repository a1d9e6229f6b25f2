"""A game at the table: one seat is a person's, the others are bots (docs/serve.md).

The engine pauses the game at each of the person's decisions (the seat's every decision
kind is in the game's search mask, as a search bot's are) and resumes it with the person's
choice (``st[S_FORCED]``), exactly as the search kernels answer a search bot; the other
seats' decisions are their bots', made inside the kernel. A search bot in another seat
pauses too and is answered here by the search (``decide_once``).

What the page shows of the game comes from the seat's observation (the engine's
``present``, the buffer a bot reads) and from the event log with everything the seat has
not seen taken out (``public_events``): never from the state's hidden places.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from fishing2sim.api import (
    EVENT_CAPACITY, call_kernel, check_players, check_ruleset, check_seed, describe_option,
    kernel_failure, resolve_deck,
)
from fishing2sim.engine import constants as K
from fishing2sim.engine.core import present, run_game, setup_game
from fishing2sim.engine.rng import game_seed
from fishing2sim.engine.state import (
    A_OPTIONS, A_POINTS, A_TRICK_CARD, S_ASK_KIND, S_ASK_SEAT, S_END, S_ERR_CODE, S_EVN,
    S_FIN_B, S_FORCED, S_N_OPTIONS, S_ROUND, S_SEARCH_MASK, new_obs, new_state,
)
from fishing2sim.errors import InputError
from fishing2sim.events import decode_events
from fishing2sim.strategy.contract import DECISION_FUNCTIONS
from fishing2sim.strategy.lineup import build_lineup, observe_mask, search_args

RULESET_TITLES = {"fishing2": "Fishing 2", "fishing": "Fishing"}
SHADES = {K.C_NONE: None, K.C_LIGHT: "light", K.C_DARK: "dark", K.C_GREEN: "green"}
HIDDEN = "a hidden card"

PROMPTS = {
    K.D_PLAY: "Play a card.",
    K.D_TRUMP_CHOICE: "Choose this round's trump shade (A10.3).",
    K.D_DETERMINE_TRUMP: "Your determine-trump buoy: choose the next trick's trump shade.",
    K.D_CATCH_1_OTHER: "Your catch-1-other buoy: catch one other card still in the trick.",
    K.D_EXCHANGE_TAKE: "Your exchange-1-card buoy: take one other card still in the trick "
                       "into your hand.",
    K.D_EXCHANGE_GIVE: "exchange-1-card: put one hand card face down into the trick.",
    K.D_CATCH_1_CARD: "A catch-1-card buoy: move one of your hand cards to your fisher.",
    K.D_ZERO_CATCH: "Your zero: catch one other card still in the trick.",
    K.D_PASS_1_LEFT: "pass-1-left: choose a hand card to pass face down to the player on "
                     "your left.",
    K.D_DETERMINE_COLOUR: "Your determine-colour buoy: name the next trick's suit.",
}


@dataclass
class Decision:
    """One of the person's decisions, kept for the review: the paused state (the log up to
    it is the game's own log: rows are only ever appended), its options and the choice."""

    number: int
    round: int
    kind: int
    st: np.ndarray
    options: list[int]
    choice: int
    values: list[float] | None = None


@dataclass
class Table:
    """A game between a person in ``seat`` and bots in the other seats."""

    ruleset: str
    players: int
    seat: int
    bots: list[str]
    seed: int
    game: int = 0
    deck_spec: object = None
    params: list | None = None  # one parameter vector (or None: its defaults) per seat
    first_leader: int | None = None
    source: str = ""  # where the game comes from (a report's condition), for the page
    decisions: list[Decision] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self):
        self.players = check_players(self.players)
        self.seed = check_seed(self.seed)
        self.ruleset = check_ruleset(self.ruleset)
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) \
                or not 0 <= self.seat < self.players:
            raise InputError(f"your seat must be 0..{self.players - 1}, got {self.seat!r}")
        if len(self.bots) != self.players:
            raise InputError(f"name a bot for each of the {self.players} seats")
        self.deck = resolve_deck(self.ruleset, self.deck_spec)
        self.arrays = np.ascontiguousarray(self.deck.arrays)
        specs = list(self.bots)
        specs[self.seat] = "random"  # never asked: every decision of this seat pauses
        params = None if self.params is None else \
            [None if p == self.seat else v for p, v in enumerate(self.params)]
        self.funcs, self.ptable, self.strats = build_lineup(specs, self.players, params)
        self.bot_search = search_args(self.strats, params, self.players)
        mask = observe_mask(self.strats)
        smask = 0
        for k in range(K.N_DECISIONS):
            mask &= ~(1 << (K.MAX_PLAYERS * (1 + k) + self.seat))  # no random draw for it
            smask |= 1 << (K.MAX_PLAYERS * k + self.seat)
        if self.bot_search is not None:
            smask |= self.bot_search[0]
        self.st, self.rng = new_state()
        self.work = np.zeros((2, self.st.size), np.int64)
        self.st = self.work[0]
        self.ev = np.zeros((EVENT_CAPACITY, K.EV_FIELDS), np.int64)
        self.obs = new_obs()
        self.gseed = int(game_seed(self.seed, self.game))
        setup_game(self.st, self.rng, self.ev, self.arrays, self.players,
                   K.RULESETS[self.ruleset], np.ascontiguousarray(
                       self.deck.hand_sizes[self.players]), self.deck.n_rounds,
                   -1 if self.first_leader is None else self.first_leader,
                   np.uint64(self.gseed), 1, 0, mask)
        self.st[S_SEARCH_MASK] = smask
        self.bot_decisions = 0
        self.hint_values = None  # the current decision's hint values, once asked
        self._run()

    # ---- playing
    def _run(self) -> None:
        """Play on until the person's decision or the end of the game (a search bot's
        pauses are answered by its search)."""
        while True:
            call_kernel(run_game, (self.st, self.rng, self.ev, self.arrays, self.obs,
                                   self.funcs, self.ptable, K.STOP_NEVER), self.work,
                        self.strats)
            if self.st[S_ERR_CODE] != 0:
                raise kernel_failure(self.st, self.strats, self.deck)
            if self.st[S_END] != K.END_PAUSED or int(self.st[S_ASK_SEAT]) == self.seat:
                return
            self._search_bot_decides()

    def _search_bot_decides(self) -> None:
        # the search kernels compile on first use (minutes, cold): loaded when a seat searches
        from fishing2sim.search.kernels import decide_once

        _, sp, rf, rt, ro = self.bot_search
        self.bot_decisions += 1
        values = np.zeros(K.MAX_HAND)
        sseed = np.uint64((self.gseed + 7919 * self.bot_decisions) % 2**64)
        choice = call_kernel(decide_once, (self.st, self.ev, self.arrays, sp, sseed, rf, rt,
                                           ro, values), self.st[None].copy(),
                             self.strats)
        if choice < 0:
            raise kernel_failure(self.st, self.strats, self.deck)
        self._resume(int(choice))

    def _resume(self, option: int) -> None:
        self.st[S_FORCED] = option + 1
        self.st[S_END] = K.END_RUNNING

    @property
    def over(self) -> bool:
        return int(self.st[S_END]) != K.END_PAUSED

    def options(self) -> list[int]:
        return [int(x) for x in self.st[A_OPTIONS:A_OPTIONS + self.st[S_N_OPTIONS]]] \
            if not self.over else []

    def answer(self, option: int) -> None:
        """The person's choice: one of the options, else an InputError in the rule's
        words. The game then plays on to the person's next decision or its end."""
        if self.over:
            raise InputError("the game is over: there is no decision to answer")
        options = self.options()
        if option not in options:
            raise InputError(self.refusal(option))
        st = self.st.copy()
        self.decisions.append(Decision(len(self.decisions), int(st[S_ROUND]),
                                       int(st[S_ASK_KIND]), st, options, option,
                                       self.hint_values))
        self.hint_values = None
        self._resume(option)
        self._run()

    def refusal(self, option: int) -> str:
        """Why ``option`` is not allowed now, in the rulebook's words."""
        kind = int(self.st[S_ASK_KIND])
        obs = self.observation()
        hand = [int(c) for c in obs[K.O_HAND:K.O_HAND + obs[K.O_HAND_N]]]
        name = describe_option(option, self.deck)
        if kind == K.D_PLAY and option in hand:
            led = int(obs[K.O_LED])
            suit = SUIT_WORDS.get(led, "the led suit")
            if self.ruleset == "fishing":
                return (f"{name} cannot be played: the led suit is {suit} and you hold a card "
                        f"of it; a player holding the led suit must play it (B2, A5; buoys "
                        f"may always be played)")
            return (f"{name} cannot be played: the led suit is {suit} and you hold a card of "
                    f"it. A5: once a suit is set, a player holding a card of that suit must "
                    f"play a card of that suit, a buoy or a blowfish")
        if kind == K.D_PLAY:
            return f"{name} is not in your hand"
        return (f"{name} is not one of this decision's options "
                f"({DECISION_FUNCTIONS[kind].replace('_', '-')}): choose one of "
                f"{', '.join(describe_option(o, self.deck) for o in self.options())}")

    # ---- what the seat knows
    def subject(self) -> int:
        """The card whose effect is being decided (a buoy, a zero; -1 for a card play or
        the trump choice): public, it lies face up in the trick."""
        kind = int(self.st[S_ASK_KIND])
        if kind in (K.D_PLAY, K.D_TRUMP_CHOICE):
            return -1
        return int(self.st[A_TRICK_CARD + self.st[S_FIN_B]])

    def observation(self) -> np.ndarray:
        """The seat's observation at its decision: the buffer the engine gives a bot (its
        ``present`` on a copy of the state, which it does not change)."""
        o = np.full(K.OBS_SIZE, -1, np.int64)
        o[K.O_N_CARDS] = 0
        o[K.O_N_PLAYED] = 0
        o[K.O_PUB_STAMP] = -1
        present(self.st.copy(), o, self.seat, int(self.st[S_ASK_KIND]),
                int(self.st[S_N_OPTIONS]), self.subject())
        return o

    def public_events(self) -> list[dict]:
        """The log as the seat saw it (public_events)."""
        rows = self.ev[:self.st[S_EVN]]
        return public_events(decode_events(rows, self.deck, self.seed, self.game), self.seat)

    def final_points(self) -> list[int]:
        return [int(self.st[A_POINTS + p]) for p in range(self.players)]


SUIT_WORDS = {K.C_BLUE: "blue", K.C_YELLOW: "yellow", K.C_PURPLE: "purple", K.C_RED: "red",
              K.C_GREEN: "green", K.SUIT_TRUMP: "trump"}
for _c in (K.C_LIGHT, K.C_DARK):
    SUIT_WORDS.setdefault(_c, SHADES[_c])


def public_events(events: list[dict], seat: int) -> list[dict]:
    """The events as ``seat`` saw them: other hands' deals and the boats' order left out,
    and every card the seat did not see (the ocean's, another player's draw, catch-1-card,
    given exchange card or pass, a face-down card caught later) named ``HIDDEN``."""
    out = []
    face_down: set[str] = set()  # cards another player put face down in the trick
    for e in events:
        kind = e["event"]
        if kind == "deal" and e["player"] != seat or kind == "boat":
            continue
        e = dict(e)
        if kind == "ocean":  # its size is public, its order is not
            e["card"] = HIDDEN
        elif kind in ("draw", "catch_1_card") and e["player"] != seat:
            e["card"] = HIDDEN
        elif kind == "exchange_1_card" and e["player"] != seat:
            if e["taken"] in face_down:  # another's face-down card, taken unseen
                e["taken"] = HIDDEN
            face_down.add(e["given"])
            e["given"] = HIDDEN
        elif kind == "pass_1_left" and seat not in (e["player"], e["to"]):
            e["card"] = HIDDEN
        elif kind in ("caught", "catch_1_other", "zero_catch", "catch_all_others") \
                and e["card"] in face_down:
            e["card"] = HIDDEN
        elif kind == "trick_result":
            for key in ("highest_card", "weakest_card"):
                if e.get(key) in face_down:
                    e[key] = HIDDEN
        elif kind == "trick_start":
            face_down.clear()
        out.append(e)
    return out
