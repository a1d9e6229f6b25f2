"""The kernel's integer event rows (engine/constants.py, EV_*) as the event dicts of
docs/events.md: one small decoder per event kind."""
from __future__ import annotations

import numpy as np

from fishing2sim.config.deck import Deck
from fishing2sim.engine import constants as K

RULESET_NAMES = tuple(K.RULESETS)
END_NAMES = {K.END_COMPLETED: "completed", K.END_OVERFISHED: "overfished", K.END_ERROR: "error"}
SHADE_NAMES = {K.C_LIGHT: "light", K.C_DARK: "dark", K.C_NONE: None, K.C_GREEN: "green"}
# the suits determine-colour names (original Fishing, B4)
SUIT_NAMES = {K.C_BLUE: "blue", K.C_YELLOW: "yellow", K.C_PURPLE: "purple", K.C_RED: "red",
              K.C_GREEN: "green"}


class _Game:
    """What a decoder needs besides the row: the deck's card names, the seed and game."""

    def __init__(self, deck: Deck, seed: int, game: int):
        self.deck, self.seed, self.game = deck, seed, game
        self.name = deck.name
        self.fishing = deck.ruleset == "fishing"


def _setup(g, a, b, c, d, e):
    return {"event": "setup", "ruleset": RULESET_NAMES[b], "players": a, "seed": g.seed,
            "game": g.game, "first_leader": None if c < 0 else c, "rounds": d,
            "hand_sizes": [int(x) for x in g.deck.hand_sizes[a][:d]]}


def _trick_start(g, a, b, c, d, e):
    ev = {"event": "trick_start", "round": a, "trick": b, "leader": c,
          "trump": SHADE_NAMES.get(d)}
    if g.fishing:  # B4: the effects the previous trick left for this one
        colour = ((e >> K.TS_COLOUR_SHIFT) & 15) - 1
        namer = (e >> K.TS_NAMER_SHIFT) - 1
        ev["lowest_wins"] = bool(e & K.TS_LOWEST)
        ev["suit"] = SUIT_NAMES[colour] if colour >= 0 else None
        ev["named_by"] = namer if namer >= 0 else None
    return ev


def _card_or_none(g, x):
    return g.name(x) if x >= 0 else None


_shade = SHADE_NAMES.get

DECODERS = {
    K.EV_SETUP: _setup,
    K.EV_DEAL: lambda g, a, b, c, d, e: {"event": "deal", "player": a, "card": g.name(b)},
    K.EV_OCEAN: lambda g, a, b, c, d, e: {"event": "ocean", "position": a, "card": g.name(b)},
    K.EV_ROUND_START: lambda g, a, b, c, d, e: {"event": "round_start", "round": a,
                                                "hand_size": b},
    K.EV_DRAW: lambda g, a, b, c, d, e: {"event": "draw", "player": a, "card": g.name(b),
                                         "source": "ocean" if c else "boat",
                                         "cause": "draw-1-card" if d else "round"},
    K.EV_LEADER: lambda g, a, b, c, d, e: {"event": "leader", "round": a, "player": b},
    K.EV_TRUMP_CHOICE: lambda g, a, b, c, d, e: {"event": "trump_choice", "round": a,
                                                 "player": b, "shade": _shade(c)},
    K.EV_TRICK_START: _trick_start,
    K.EV_PLAY: lambda g, a, b, c, d, e: {"event": "play", "player": a, "card": g.name(b)},
    K.EV_BONUS: lambda g, a, b, c, d, e: {"event": "bonus", "player": a, "points": b},
    K.EV_TRICK_RESULT: lambda g, a, b, c, d, e: {
        "event": "trick_result", "highest_player": a, "highest_card": _card_or_none(g, b),
        "weakest_player": c if c >= 0 else None, "weakest_card": _card_or_none(g, d)},
    K.EV_CATCH_1_OTHER: lambda g, a, b, c, d, e: {"event": "catch_1_other", "player": a,
                                                  "card": g.name(b)},
    K.EV_DETERMINE_TRUMP: lambda g, a, b, c, d, e: {
        "event": "determine_trump", "player": a, "shade": _shade(b) if b >= 0 else None},
    K.EV_DRAW_1_CARD: lambda g, a, b, c, d, e: {"event": "draw_1_card", "player": a},
    K.EV_CATCH_1_CARD: lambda g, a, b, c, d, e: {"event": "catch_1_card", "player": a,
                                                 "card": g.name(b)},
    K.EV_EXCHANGE: lambda g, a, b, c, d, e: {"event": "exchange_1_card", "player": a,
                                             "taken": g.name(b), "given": g.name(c)},
    K.EV_CAUGHT: lambda g, a, b, c, d, e: {"event": "caught", "player": a, "card": g.name(b),
                                           "by": "highest" if c else "weakest"},
    K.EV_TRUMP: lambda g, a, b, c, d, e: {"event": "trump", "shade": _shade(a)},
    K.EV_ROUND_SCORE: lambda g, a, b, c, d, e: {"event": "round_score", "player": a,
                                                "caught": b, "points": c},
    K.EV_BOAT: lambda g, a, b, c, d, e: {"event": "boat", "player": a, "card": g.name(b)},
    K.EV_OVERFISHED: lambda g, a, b, c, d, e: {"event": "overfished", "needed": a, "ocean": b,
                                               "cause": "draw-1-card" if c else "round"},
    K.EV_ZERO_CATCH: lambda g, a, b, c, d, e: {"event": "zero_catch", "player": a,
                                               "card": g.name(b), "zero": g.name(c)},
    K.EV_CATCH_ALL_OTHERS: lambda g, a, b, c, d, e: {"event": "catch_all_others", "player": a,
                                                     "card": g.name(b)},
    K.EV_PASS_1_LEFT: lambda g, a, b, c, d, e: {"event": "pass_1_left", "player": a,
                                                "card": g.name(b), "to": c},
    K.EV_PLAY_FIRST: lambda g, a, b, c, d, e: {"event": "play_first", "player": a,
                                               "forfeited": bool(b)},
    K.EV_DETERMINE_COLOUR: lambda g, a, b, c, d, e: {
        "event": "determine_colour", "player": a, "suit": SUIT_NAMES[b] if b >= 0 else None},
    K.EV_LOWEST_WINS: lambda g, a, b, c, d, e: {"event": "lowest_wins", "player": a,
                                                "forfeited": bool(b)},
    # points are re-derived by the reader from the log; the kernel gives the mask
    K.EV_GAME_END: lambda g, a, b, c, d, e: {
        "event": "game_end", "reason": END_NAMES[a], "round": b,
        "winners": [p for p in range(K.MAX_PLAYERS) if c >> p & 1]},
}


def decode_events(rows: np.ndarray, deck: Deck, seed: int, game: int) -> list[dict]:
    """The kernel's integer event rows as the dicts of docs/events.md."""
    g = _Game(deck, seed, game)
    out: list[dict] = []
    for code, a, b, c, d, e in rows.tolist():
        decoder = DECODERS.get(code)
        if decoder is None:  # pragma: no cover
            raise RuntimeError(f"unknown event code {code}")
        out.append(decoder(g, a, b, c, d, e))
    _fill_game_end_points(out)
    return out


def _fill_game_end_points(events: list[dict]) -> None:
    if not events or events[0]["event"] != "setup":
        return
    players = events[0]["players"]
    pts = [0] * players
    for e in events:
        if e["event"] == "bonus":
            pts[e["player"]] += e["points"]
        elif e["event"] == "round_score":
            pts[e["player"]] = e["points"]
        elif e["event"] == "game_end":
            e["points"] = list(pts)
