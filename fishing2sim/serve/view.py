"""What the page shows (docs/serve.md): a table's game as the person's seat knows it, built
from the seat's observation and the public log only, and a replay with every hand shown."""
from __future__ import annotations

from fishing2sim.api import describe_option
from fishing2sim.engine import constants as K
from fishing2sim.render import render_game
from fishing2sim.report.replay import replay_game
from fishing2sim.serve.table import PROMPTS, RULESET_TITLES, SHADES, SUIT_WORDS, Table


def _cards(obs, at: int, n: int, deck) -> list[str]:
    return [deck.name(int(c)) if c >= 0 else "face down" for c in obs[at:at + n]]


def table_view(t: Table) -> dict:
    """The seat's view of the game, as JSON: the decision and its options (the hand's other
    cards marked not legal), the trick, the trump, the cards played this round, every
    seat's points and sizes, the ocean's count, and the public log as readable lines."""
    events = t.public_events()
    out = {"ruleset": t.ruleset, "title": RULESET_TITLES[t.ruleset], "players": t.players,
           "seat": t.seat,
           "bots": [s.name if p != t.seat else "you" for p, s in enumerate(t.strats)],
           "seed": t.seed, "game": t.game, "source": t.source, "over": t.over,
           "log": render_game(events).splitlines()}
    if t.over:
        end = next((e for e in reversed(events) if e["event"] == "game_end"), None)
        out["end"] = {"points": t.final_points() if end is None else end["points"],
                      "winners": [] if end is None else end["winners"],
                      "reason": "" if end is None else end["reason"],
                      "decisions": len(t.decisions)}
        return out
    obs = t.observation()
    deck = t.deck
    kind = int(obs[K.O_KIND])
    options = t.options()
    hand = [int(c) for c in obs[K.O_HAND:K.O_HAND + obs[K.O_HAND_N]]]
    played_by = obs[K.O_PLAYED_BY:K.O_PLAYED_BY + obs[K.O_N_PLAYED]]
    out.update({
        "decision": {"number": len(t.decisions) + 1, "kind": K.DECISION_NAMES[kind],
                     "prompt": PROMPTS[kind],
                     "subject": deck.name(t.subject()) if t.subject() >= 0 else None,
                     "options": [{"option": o, "label": describe_option(o, deck)}
                                 for o in options]},
        "hand": [{"card": c, "label": deck.name(c), "legal": c in options} for c in hand]
        if kind == K.D_PLAY else [{"card": c, "label": deck.name(c), "legal": False}
                                  for c in hand],
        "round": int(obs[K.O_ROUND]), "rounds": int(obs[K.O_N_ROUNDS]),
        "trick_no": int(obs[K.O_TRICK_NO]), "leader": int(obs[K.O_LEADER]),
        "trump": SHADES.get(int(obs[K.O_TRUMP])),
        "led": SUIT_WORDS.get(int(obs[K.O_LED])),
        "lowest_wins": bool(obs[K.O_LOWEST_WINS] == 1) if t.ruleset == "fishing" else False,
        "trick": [{"card": label, "player": int(p), "in": bool(i)} for label, p, i in zip(
            _cards(obs, K.O_TRICK_CARD, int(obs[K.O_TRICK_N]), deck),
            obs[K.O_TRICK_PLAYER:K.O_TRICK_PLAYER + obs[K.O_TRICK_N]],
            obs[K.O_TRICK_IN:K.O_TRICK_IN + obs[K.O_TRICK_N]])],
        "played": [{"card": label, "player": int(p)} for label, p in zip(
            _cards(obs, K.O_PLAYED, int(obs[K.O_N_PLAYED]), deck), played_by)],
        "points": [int(x) for x in obs[K.O_POINTS:K.O_POINTS + t.players]],
        "hand_n": int(obs[K.O_HAND_N]),
        "boat_n": [int(x) for x in obs[K.O_BOAT_N:K.O_BOAT_N + t.players]],
        "fisher_n": [int(x) for x in obs[K.O_FISHER_N:K.O_FISHER_N + t.players]],
        "ocean_n": int(obs[K.O_OCEAN_N]),
    })
    return out


def replay(ruleset: str, players: int, seed: int, bots: list, game: int = 0,
           deck=None, params=None, first_leader=None, title_extra: str = "") -> dict:
    """A game replayed with every hand shown, the viewer's JSON (report/replay.py: the
    same as a report's example games, the bots' reasons included)."""
    return replay_game(ruleset, players, seed, bots, game, deck, params, first_leader,
                       source=title_extra)
