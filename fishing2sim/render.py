"""A readable account of one game, from its event log (docs/events.md)."""
from __future__ import annotations


def _seat(p) -> str:
    return f"seat {p}"


GAME_NAMES = {"fishing2": "Fishing 2", "fishing": "Fishing (the original Fischen)"}

_FORFEITED = "forfeited (no next trick this round)"


def render_game(events: list[dict]) -> str:
    """The account of a game: one line per event, with a round's draws, a trick's catches,
    the catch-all-others cards and the pass-1-left passes each gathered on one line."""
    a = _Account()
    for e in events:
        a.event(e)
    a.flush_all()
    return "\n".join(a.out)


class _Account:
    """The account being written; ``on_<event>`` writes one event kind."""

    def __init__(self):
        self.out: list[str] = []
        self.draws: dict[int, dict[str, list[str]]] = {}
        self.caught: dict[tuple[int, str], list[str]] = {}
        self.catch_all: dict[int, list[str]] = {}
        self.passes: list[tuple[int, str, int]] = []
        self.fishing = False
        self.ocean_n = 0
        self.minus3 = False

    def w(self, line: str) -> None:
        self.out.append(line)

    def effect(self, name: str, text: str | None) -> None:
        """A buoy's or an effect's line: ``name: text``; no text: forfeited (no next trick
        this round)."""
        self.w(f"      {name}: {text or _FORFEITED}")

    # ---- the gathered lines
    def flush_draws(self):
        if not self.draws:
            return
        parts = []
        for p in sorted(self.draws):
            d = self.draws[p]
            s = []
            if d["boat"]:
                s.append(f"{len(d['boat'])} from boat")
            if d["ocean"]:
                s.append(f"{len(d['ocean'])} from ocean ({', '.join(d['ocean'])})")
            parts.append(f"{_seat(p)}: {', '.join(s)}")
        self.w("  draws: " + "; ".join(parts))
        self.draws.clear()

    def flush_caught(self):
        for (p, by), cards in self.caught.items():
            how = " (blowfish, as weakest)" if by == "weakest" else ""
            self.w(f"    {_seat(p)} catches {', '.join(cards)}{how}")
        self.caught.clear()

    def flush_catch_all(self):
        for p, cards in self.catch_all.items():
            self.effect("catch-all-others", f"{_seat(p)} catches {', '.join(cards)}")
        self.catch_all.clear()

    def flush_passes(self):
        if self.passes:
            self.effect("pass-1-left", "; ".join(
                f"{_seat(p)} passes {c} to {_seat(to)}" for p, c, to in self.passes))
            self.passes.clear()

    def flush_all(self):
        self.flush_draws()
        self.flush_caught()
        self.flush_catch_all()
        self.flush_passes()

    def event(self, e: dict) -> None:
        k = e["event"]
        if k != "draw" or e["cause"] != "round":
            self.flush_draws()
        self.minus3 = k == "bonus" and e["points"] < 0  # follows the card it is about
        if self.minus3 and (self.caught or self.catch_all):
            group = self.caught if self.caught else self.catch_all
            group[next(reversed(group))][-1] += " (-3 points at once)"
            return
        if k != "caught":
            self.flush_caught()
        if k != "catch_all_others":
            self.flush_catch_all()
        if k != "pass_1_left":
            self.flush_passes()
        handler = getattr(self, f"on_{k}", None)
        if handler is not None:
            handler(e)

    # ---- the game
    def on_setup(self, e):
        lead = "random" if e["first_leader"] is None else _seat(e["first_leader"])
        self.fishing = e["ruleset"] == "fishing"
        self.w(f"{GAME_NAMES.get(e['ruleset'], e['ruleset'])} — {e['players']} players, "
               f"seed {e['seed']}, game {e['game']} "
               f"(round-1 leader: {lead}); hand sizes by round: {e['hand_sizes']}")
        if e.get("condition") is not None:
            self.w(f"Condition {e['condition']}: {e.get('condition_name') or ''}".rstrip())
        if e.get("strategies"):
            self.w("Seats: " + ", ".join(f"{_seat(i)} {n}"
                                         for i, n in enumerate(e["strategies"])))
        if self.fishing:
            self.w("Green is always trump.")

    def on_ocean(self, e):
        self.ocean_n += 1

    def on_round_start(self, e):
        if e["round"] == 1:
            self.w(f"Ocean: {self.ocean_n} cards, tier 1 on top")
        self.w("")
        self.w(f"== Round {e['round']}: {e['hand_size']} cards in hand ==")

    def on_draw(self, e):
        if e["cause"] == "round":
            self.draws.setdefault(e["player"], {"boat": [], "ocean": []})[e["source"]].append(
                e["card"])
        else:
            self.w(f"      {_seat(e['player'])} draws {e['card']} from the {e['source']}")

    def on_leader(self, e):
        self.w(f"  leader: {_seat(e['player'])}")

    def on_trump_choice(self, e):
        self.w(f"  {_seat(e['player'])} chooses {e['shade']} green as trump")

    def on_round_score(self, e):
        self.w(f"  {_seat(e['player'])}: {e['caught']} cards caught -> {e['points']} points")

    def on_overfished(self, e):
        self.w("")
        self.w(f"OVERFISHING: {e['needed']} cards needed from the ocean, {e['ocean']} left "
               f"({'draw-1-card' if e['cause'] == 'draw-1-card' else 'start of a round'})")

    def on_game_end(self, e):
        pts = ", ".join(f"{_seat(p)} {v}" for p, v in enumerate(e.get("points", [])))
        wins = " and ".join(_seat(p) for p in e["winners"])
        self.w("")
        self.w(f"Game over ({e['reason']}, round {e['round']}). Points: {pts}. "
               f"Winner{'s' if len(e['winners']) > 1 else ''}: {wins}")

    # ---- the tricks
    def on_trick_start(self, e):
        if self.fishing:
            extra = ""
            if e.get("suit"):
                extra += (f", {e['suit']} named by {_seat(e['named_by'])} (everyone "
                          f"must follow it)")
            if e.get("lowest_wins"):
                extra += ", the LOWEST card wins"
            self.w(f"  Trick {e['trick']} — {_seat(e['leader'])} leads{extra}")
        else:
            trump = f"trump {e['trump']} green" if e["trump"] else "no trump"
            self.w(f"  Trick {e['trick']} — {_seat(e['leader'])} leads, {trump}")

    def on_play(self, e):
        self.w(f"    {_seat(e['player'])} plays {e['card']}")

    def on_bonus(self, e):
        why = " (minus-3)" if self.minus3 else ""
        self.w(f"      {_seat(e['player'])} scores {e['points']:+d} points at once{why}")

    def on_trick_result(self, e):
        hi = e["highest_card"] or "the first buoy"
        if self.fishing and e["highest_card"] is None:
            hi = "no card of the named suit or trump, or only buoys"
        s = f"    {'catching card' if self.fishing else 'highest'}: {hi} " \
            f"({_seat(e['highest_player'])})"
        if e["weakest_card"]:
            s += f"; weakest: {e['weakest_card']} ({_seat(e['weakest_player'])})"
        self.w(s)

    def on_caught(self, e):
        self.caught.setdefault((e["player"], e["by"]), []).append(e["card"])

    # ---- the buoys (Fishing 2) and the effects (Fishing)
    def on_catch_1_other(self, e):
        self.effect("catch-1-other", f"{_seat(e['player'])} catches {e['card']}")

    def on_determine_trump(self, e):
        self.effect("determine-trump", e["shade"] and f"{_seat(e['player'])} sets {e['shade']} "
                    "green for the next trick")

    def on_draw_1_card(self, e):
        self.effect("draw-1-card", "every player draws 1 card; one more trick this round")

    def on_catch_1_card(self, e):
        self.effect("catch-1-card", f"{_seat(e['player'])} moves {e['card']} from hand to fisher")

    def on_exchange_1_card(self, e):
        self.effect("exchange-1-card",
                    f"{_seat(e['player'])} takes {e['taken']}, puts {e['given']} face down")

    def on_zero_catch(self, e):
        self.effect(e["zero"], f"{_seat(e['player'])} catches {e['card']}")

    def on_catch_all_others(self, e):
        self.catch_all.setdefault(e["player"], []).append(e["card"])

    def on_pass_1_left(self, e):
        self.passes.append((e["player"], e["card"], e["to"]))

    def on_play_first(self, e):
        self.effect("play-first", None if e["forfeited"] else
                    f"{_seat(e['player'])} leads the next trick")

    def on_determine_colour(self, e):
        self.effect("determine-colour", e["suit"] and f"{_seat(e['player'])} names {e['suit']} "
                    "for the next trick")

    def on_lowest_wins(self, e):
        self.effect("lowest-wins", None if e["forfeited"] else
                    "the lowest card wins the next trick")
