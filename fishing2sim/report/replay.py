"""A game replayed for the viewer (report.html's example games, ``fishing2sim serve``'s
replay page; docs/reference.md, "examples.json"): one compact JSON per game, with every
hand before each trick, the trick's cards and who caught them, the boats' and the ocean's
sizes, the buoy effects and trump changes, the points by round, the end, and each seat's
reasons at its decisions.

The game is the one ``fishing2sim play`` plays (the same seed, game index, lineup,
parameters, deck and first leader): it is played here with every decision of every seat
that is not the engine's own random draw paused, and answered exactly as the kernels
answer it (a strategy's decision function on the seat's observation and its own random
stream; a search seat's searched decisions by ``search_decide`` with the game's search
streams, as ``play_batch_search`` does), so the events are ``play``'s. At each pause the
deciding seat's reasons are taken from what the seat may know only: a strategy file's
``scores`` (``skilled``'s), or a search's option values (their mean over its sampled
worlds, which decided; for pimc also the 10th to 90th percentile of single sampled
worlds' values, the spread); a bot without either says "no scores".
"""
from __future__ import annotations

import numpy as np

from fishing2sim.api import (EVENT_CAPACITY, call_kernel, check_first_leader, check_players,
                             check_ruleset, check_seed, describe_option, kernel_failure,
                             resolve_deck)
from fishing2sim.engine import constants as K
from fishing2sim.engine.batch import new_buffers
from fishing2sim.engine.core import present, run_game, setup_game
from fishing2sim.engine.rng import game_seed
from fishing2sim.engine.state import (A_OPTIONS, A_POINTS, A_TRICK_CARD, S_ASK_KIND,
                                      S_ASK_SEAT, S_END, S_ERR_CODE, S_EVN, S_FIN_B, S_FORCED,
                                      S_N_OPTIONS, S_SEARCH_MASK, new_state)
from fishing2sim.errors import InputError
from fishing2sim.events import decode_events
from fishing2sim.report.viewer import EXAMPLES_VERSION, example_row, game_key
from fishing2sim.search import kernels as S
from fishing2sim.strategy.lineup import build_lineup, observe_mask, search_args

REPLAY_VERSION = 1
SPREAD_WORLDS = 24  # single sampled worlds behind a pimc option's spread (its percentiles)
TITLES = {"fishing2": "Fishing 2", "fishing": "Fishing"}


def condition_args(exp, condition: int) -> dict:
    """The game arguments of condition ``condition`` (its index, as in the report) of the
    loaded experiment ``exp`` (as ``fishing2sim play --experiment FILE --condition N``
    plays its games): ruleset, players, seed, bots, params, first_leader, deck, and the
    condition's name. With rotate: the lineup of the deal's first rotation."""
    c = next((x for x in exp.conditions if x.index == condition), None)
    if c is None:
        raise InputError(f"condition {condition} is out of range: the experiment has "
                         f"{len(exp.conditions)} conditions")
    return {"ruleset": c.deck.ruleset, "players": c.players, "seed": c.seed,
            "bots": list(c.lineup),
            "params": [list(p) if p is not None else None for p in c.params],
            "first_leader": None if c.first_leader < 0 else c.first_leader, "deck": c.deck,
            "name": c.name or c.label()}


def play_command(experiment: str, condition: int, game: int) -> str:
    """The command that replays the game in the terminal."""
    return (f"fishing2sim play --experiment {experiment} --condition {condition} "
            f"--game {game}")


# --------------------------------------------------------------------------------------------
# playing the game with its decisions paused
# --------------------------------------------------------------------------------------------
def _subject(st) -> int:
    """The card whose effect is decided (a buoy, a zero; -1 for a card play or the trump
    choice): it lies face up in the trick."""
    if int(st[S_ASK_KIND]) in (K.D_PLAY, K.D_TRUMP_CHOICE):
        return -1
    return int(st[A_TRICK_CARD + st[S_FIN_B]])


def _observation(st, seat: int) -> np.ndarray:
    """The seat's observation at its paused decision: the buffer the engine gives a bot."""
    o = np.full(K.OBS_SIZE, -1, np.int64)
    o[K.O_N_CARDS] = 0
    o[K.O_N_PLAYED] = 0
    o[K.O_PUB_STAMP] = -1
    present(st.copy(), o, seat, int(st[S_ASK_KIND]), int(st[S_N_OPTIONS]), _subject(st))
    return o


class _Game:
    """A game of ``play`` played with its decisions paused (module docstring)."""

    def __init__(self, ruleset, players, seed, bots, game, deck, params, first_leader):
        self.players = check_players(players)
        self.seed = check_seed(seed)
        self.ruleset = check_ruleset(ruleset)
        self.deck = resolve_deck(self.ruleset, deck)
        self.game = game
        leader = check_first_leader(first_leader, self.players)
        self.funcs, self.ptable, self.strats = build_lineup(bots, self.players, params)
        self.search = search_args(self.strats, params, self.players)
        mask = observe_mask(self.strats)
        self.searched = 0 if self.search is None else self.search[0]
        pause = self.searched
        for p in range(self.players):  # a seat with scores: every decision it makes itself
            for k in range(K.N_DECISIONS):
                if self._scorer(p) is not None \
                        and not (mask >> (K.MAX_PLAYERS * (1 + k) + p)) & 1:
                    pause |= 1 << (K.MAX_PLAYERS * k + p)
        self.work = np.zeros((2, new_state()[0].size), np.int64)
        self.st, self.rng = self.work[0], new_state()[1]
        self.ev = np.zeros((EVENT_CAPACITY, K.EV_FIELDS), np.int64)
        self.obs = new_buffers()
        self.arrays = np.ascontiguousarray(self.deck.arrays)
        self.gseed = game_seed(self.seed, game)
        setup_game(self.st, self.rng, self.ev, self.arrays, self.players,
                   K.RULESETS[self.ruleset],
                   np.ascontiguousarray(self.deck.hand_sizes[self.players]),
                   self.deck.n_rounds, leader, np.uint64(self.gseed), 1, 0, mask)
        self.st[S_SEARCH_MASK] = pause
        if self.search is not None:
            self._search_buffers()

    def _scorer(self, seat: int):
        """The seat's strategy with scores (a strategy file's ``scores``; a search seat's
        rollout strategy for the decisions it does not search), else None."""
        s = self.strats[seat]
        s = s.rollout if s.search else s
        return s if getattr(s, "scores", None) is not None else None

    def reasons_by(self) -> list[str]:
        """Each seat's reasons, in words: whose scores or search, or "no scores"."""
        out = []
        for p in range(self.players):
            s, scorer = self.strats[p], self._scorer(p)
            words = [f"{s.name}'s search"] if s.search else []
            words += [f"{scorer.name}'s scores"] if scorer is not None else []
            out.append("; ".join(words) or "no scores")
        return out

    def _search_buffers(self):
        self.srng = np.zeros(K.MAX_PLAYERS, np.uint64)
        S.seed_search(self.srng, np.uint64(self.gseed))

    def play(self, reasons: bool = True) -> list[dict]:
        """Play the game to its end; returns its decisions paused (a search seat's searched
        ones, and every decision of a seat with scores), each with the deciding seat's
        reasons if ``reasons``; the other seats play inside the kernel."""
        decisions: list[dict] = []
        while True:
            if self.search is None:
                call_kernel(run_game, (self.st, self.rng, self.ev, self.arrays, self.obs,
                                       self.funcs, self.ptable, K.STOP_NEVER), self.work,
                            self.strats)
            else:
                self._searching(decisions, reasons)
            if self.st[S_ERR_CODE] != 0:
                raise kernel_failure(self.st, self.strats, self.deck)
            if self.st[S_END] != K.END_PAUSED:
                return decisions
            seat, kind = int(self.st[S_ASK_SEAT]), int(self.st[S_ASK_KIND])
            options = [int(x) for x in self.st[A_OPTIONS:A_OPTIONS + self.st[S_N_OPTIONS]]]
            d = {"seat": seat, "kind": K.DECISION_NAMES[kind], "at": int(self.st[S_EVN]),
                 "options": options}
            choice = self._asked(seat, kind, d, reasons)
            d["choice"] = options.index(choice) if choice in options else -1
            decisions.append(d)
            self.st[S_FORCED] = choice + 1
            self.st[S_END] = K.END_RUNNING

    def _searching(self, decisions: list[dict], reasons: bool) -> None:
        """Play on in the search kernel (replay_searching: the searched decisions answered
        there, as play_batch_search answers them, with their values and pimc's spread)
        until another pause or the end; the searched decisions appended."""
        _, sp, rf, rt, ro = self.search
        one = sp.copy()
        one[:, S.SP_WORLDS] = 1
        rows = 2048
        meta = np.zeros((rows, 5 + K.MAX_HAND), np.int64)
        values = np.zeros((rows, K.MAX_HAND))
        spread = np.zeros((rows, K.MAX_HAND, 2))
        k = call_kernel(S.replay_searching, (
            self.st, self.rng, self.ev, self.arrays, self.obs, self.funcs, self.ptable,
            self.searched, sp, one, self.srng, rf, rt, ro, SPREAD_WORLDS if reasons else 0,
            np.uint64((int(self.gseed) * 31 + len(decisions) * 1_000_003) % 2**64), meta,
            values, spread, 0), self.work, self.strats)
        if k < 0 or k >= rows:
            raise kernel_failure(self.st, self.strats, self.deck)
        for r in range(k):
            seat, kind, at, n, choice = (int(x) for x in meta[r, :5])
            options = [int(x) for x in meta[r, 5:5 + n]]
            d = {"seat": seat, "kind": K.DECISION_NAMES[kind], "at": at, "options": options,
                 "choice": options.index(choice), "by": f"{self.strats[seat].name}'s search"}
            if reasons:
                d["values"] = [round(float(v), 3) for v in values[r, :n]]
                if int(sp[seat, S.SP_METHOD]) == S.METHOD_PIMC:
                    d["spread"] = [[round(float(a), 2), round(float(b), 2)]
                                   for a, b in spread[r, :n]]
            decisions.append(d)

    def _asked(self, seat: int, kind: int, d: dict, reasons: bool) -> int:
        """A seat with scores: its decision as the engine asks it (its function on the
        seat's observation and stream); its reasons: the scores."""
        o = _observation(self.st, seat)
        row = self.ptable[seat]
        params = row[:int(row[row.shape[0] - 1])]
        s = self._scorer(seat)
        d["by"] = f"{s.name}'s scores"
        if reasons:
            own = np.asarray(s.defaults, np.float64) if self.strats[seat].search else params
            d["values"] = [round(float(v), 3) for v in s.scores(o.copy(), own)]
        fn = self.funcs[kind][seat]
        return int(fn(o, params, self.rng[1 + seat:2 + seat]))

    def events(self) -> list[dict]:
        return decode_events(self.ev[:self.st[S_EVN]], self.deck, self.seed, self.game)

    def points(self) -> list[int]:
        return [int(self.st[A_POINTS + p]) for p in range(self.players)]


# --------------------------------------------------------------------------------------------
# the replay's JSON
# --------------------------------------------------------------------------------------------
NOTE_EVENTS = {
    "trump_choice": lambda e: f"seat {e['player']} chooses {e['shade']} as trump (A10.3)",
    "determine_trump": lambda e: f"seat {e['player']}'s determine-trump: {e.get('shade')}",
    "catch_1_other": lambda e: f"seat {e['player']}'s catch-1-other catches {e['card']}",
    "catch_1_card": lambda e: f"seat {e['player']}'s catch-1-card: {e['card']} to the fisher",
    "catch_all_others": lambda e: f"seat {e['player']} catches {e['card']} (catch-all-others)",
    "exchange_1_card": lambda e: f"seat {e['player']}'s exchange-1-card takes {e['taken']}, "
                                 f"gives {e['given']}",
    "zero_catch": lambda e: f"seat {e['player']}'s zero catches {e['card']}",
    "pass_1_left": lambda e: f"seat {e['player']} passes {e['card']} to seat {e['to']}",
    "determine_colour": lambda e: f"seat {e['player']}'s determine-colour: {e.get('suit')}",
    "draw_1_card": lambda e: "draw-1-card: every player draws 1 card; one more trick",
    "lowest_wins": lambda e: "lowest-wins: the lowest card catches this trick",
    "play_first": lambda e: f"seat {e['player']} plays first (play-first)",
    "bonus": lambda e: f"seat {e['player']}: bonus of {e['points']} points",
    "overfished": lambda e: f"OVERFISHING: {e['needed']} cards needed from the ocean, "
                            f"{e['ocean']} left",
}


class _Follow:
    """The hands, boats and ocean followed through the events (every card move)."""

    def __init__(self, players: int):
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.boats = [0] * players
        self.fishers = [0] * players
        self.ocean = 0

    def see(self, e: dict) -> None:
        kind, h = e["event"], self.hands
        if kind == "deal":
            h[e["player"]].append(e["card"])
        elif kind == "draw":
            h[e["player"]].append(e["card"])
            if e["source"] == "boat":
                self.boats[e["player"]] -= 1
            else:
                self.ocean -= 1
        elif kind == "ocean":
            self.ocean += 1
        elif kind == "boat":
            self.boats[e["player"]] += 1
            self.fishers[e["player"]] = max(0, self.fishers[e["player"]] - 1)
        elif kind in ("play", "catch_1_card"):
            h[e["player"]].remove(e["card"])
            if kind == "catch_1_card":
                self.fishers[e["player"]] += 1
        elif kind in ("caught", "catch_1_other", "zero_catch", "catch_all_others"):
            self.fishers[e["player"]] += 1
        elif kind == "exchange_1_card":
            h[e["player"]].append(e["taken"])
            h[e["player"]].remove(e["given"])
        elif kind == "pass_1_left":
            h[e["player"]].remove(e["card"])
            h[e["to"]].append(e["card"])


class _Labels:
    """The replay's names (cards, options): each stored once, referred to by its index."""

    def __init__(self):
        self.names: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.names)
            self.names.append(name)
        return i


def _decision_json(d: dict, deck, lab: _Labels) -> dict:
    """A decision: seat, kind, and with the bot's reasons: by (whose), options (label
    indices), choice (an index into them), values and spread (per option); without
    (a bot with no scores): chosen (the label index of the option taken) only."""
    out = {"seat": d["seat"], "kind": d["kind"]}
    if "values" not in d:
        out["chosen"] = lab(describe_option(d["options"][d["choice"]], deck))
        return out
    out.update(by=d["by"], options=[lab(describe_option(o, deck)) for o in d["options"]],
               choice=d["choice"], values=[round(v, 2) for v in d["values"]])
    if "spread" in d:
        out["spread"] = [[round(a, 1), round(b, 1)] for a, b in d["spread"]]
    return out


def _after(hands: list[list[int]], plays: list[list[int]]) -> list[list[int]]:
    """The hands after a trick's plays, as the viewer derives the next trick's."""
    out = [list(h) for h in hands]
    for p, c in plays:
        if c in out[p]:
            out[p].remove(c)
    return out


def hands_at(replay: dict) -> list[list[list[int]]]:
    """Every hand before each trick of a replay (label indices): a trick stores its hands
    only where they are not the previous trick's hands less its plays."""
    out, prev, prev_plays = [], None, []
    for t in replay["tricks"]:
        prev = t["hands"] if "hands" in t else _after(prev, prev_plays)
        prev_plays = t["plays"]
        out.append(prev)
    return out


def _compact(tricks: list[dict]) -> None:
    """Leave out what the viewer derives: a trick's hands equal to the previous trick's
    less its plays, and empty notes and decisions."""
    prev = None
    for t in tricks:
        full = t["hands"]
        if prev is not None and _after(prev["hands_full"], prev["plays"]) == full:
            del t["hands"]
        t["hands_full"] = full
        prev = t
    for t in tricks:
        del t["hands_full"]
        for key in ("notes", "decisions"):
            if not t[key]:
                del t[key]


def game_json(events: list[dict], decisions: list[dict], deck, players: int) -> dict:
    """The replay's body from the game's events and its paused decisions: "labels" (the
    names of its cards and options, which the rest refers to by index), "tricks" (each:
    round, trick, leader, trump, every hand before it where it is not the previous trick's
    hands less its plays (hands_at), the plays, who caught it, the boats' and fishers'
    sizes and the ocean's count after it, its notes, its decisions), "rounds"
    (the points after each scored round) and "end"."""
    f = _Follow(players)
    lab = _Labels()
    tricks: list[dict] = []
    rounds: dict[int, list[int]] = {}
    before: list[str] = []  # notes before the first trick of a round (its trump choice)
    rnd, end, di, in_trick = 0, {}, 0, False
    for i, e in enumerate(events):
        while di < len(decisions) and decisions[di]["at"] <= i:
            if tricks:
                tricks[-1]["decisions"].append(_decision_json(decisions[di], deck, lab))
            di += 1
        kind = e["event"]
        f.see(e)
        if kind == "round_start":
            rnd, in_trick = e["round"], False
        elif kind == "trick_start":
            was = tricks[-1]["trump"] if tricks else None
            if e.get("trump") != was and (tricks or e.get("trump")):
                before.append(f"trump: {was or 'none'} \u2192 {e.get('trump') or 'none'}")
            tricks.append({"round": e["round"], "trick": e["trick"], "leader": e["leader"],
                           "trump": e.get("trump"), "hands": [[lab(c) for c in h] for h in f.hands],
                           "plays": [], "caught_by": None, "notes": before, "decisions": []})
            before, in_trick = [], True
        elif kind == "play" and tricks:
            tricks[-1]["plays"].append([e["player"], lab(e["card"])])
        elif kind == "trick_result" and tricks:
            tricks[-1]["caught_by"] = e["highest_player"]
        elif kind == "round_score":
            rounds.setdefault(rnd, [0] * players)[e["player"]] = e["points"]
        elif kind == "game_end":
            end = {"reason": e["reason"], "round": e["round"], "points": e["points"],
                   "winners": e["winners"]}
        elif kind in NOTE_EVENTS:
            (tricks[-1]["notes"] if in_trick and tricks else before).append(
                NOTE_EVENTS[kind](e))
        if tricks and kind in ("trick_result", "caught", "boat", "draw", "catch_1_other",
                               "zero_catch", "catch_all_others", "round_score"):
            tricks[-1].update(boats=list(f.boats), fishers=list(f.fishers), ocean=f.ocean)
    if tricks:
        tricks[-1]["notes"] += before
    for d in decisions[di:]:  # (none: every decision comes before the game's end)
        if tricks:
            tricks[-1]["decisions"].append(_decision_json(d, deck, lab))
    _compact(tricks)
    return {"labels": lab.names, "tricks": tricks,
            "rounds": [{"round": r, "points": p} for r, p in sorted(rounds.items())],
            "end": end}


def replay_game(ruleset: str, players: int, seed: int, bots, game: int = 0, deck=None,
                params=None, first_leader=None, reasons: bool = True, source: str = "") -> dict:
    """Game ``game`` of seed ``seed`` (the game ``fishing2sim play`` plays with these
    arguments) as the viewer's JSON (module docstring; the seed as text: JavaScript's
    numbers hold 53 bits); ``reasons``: each decision with
    the deciding seat's reasons."""
    specs = bots if isinstance(bots, (list, tuple)) else [bots] * check_players(players)
    g = _Game(ruleset, players, seed, list(specs), game, deck, params, first_leader)
    decisions = g.play(reasons)
    events = g.events()
    body = game_json(events, decisions, g.deck, g.players)
    return {"version": REPLAY_VERSION, "ruleset": g.ruleset, "title": TITLES[g.ruleset],
            "players": g.players, "seed": str(g.seed), "game": game, "source": source,
            "bots": [s.name for s in g.strats[:g.players]], "reasons": g.reasons_by(),
            **body}


def build_examples(exp, rows, experiment: str | None = None, reasons: bool = True,
                   reasons_up_to: int = 1) -> dict:
    """The examples.json of ``rows`` (the example rows of run/examples.py: mappings or a
    DataFrame's rows) of the loaded experiment ``exp``: every distinct (condition, game)
    replayed once, a paired deal's partner game too. ``experiment``: the file named in a
    row's command when it has none. ``reasons``: the bots' reasons for the games of rank
    ``reasons_up_to`` or better in their group (the first game of each, by default: the
    reasons of a search seat cost about two more games, and every game's reasons would
    make the page several times larger)."""
    rows = [example_row(r) for r in (rows.to_dict("records") if hasattr(rows, "to_dict") else rows)]
    rows.sort(key=lambda r: (r["rank"] is None, r["rank"] or 0))  # the first of each first
    games: dict[str, dict] = {}
    for r in rows:
        wanted = [r["condition"]] + ([r["partner_condition"]]
                                     if r["partner_condition"] is not None else [])
        for c in wanted:
            key = game_key(c, r["game"])
            if key in games:
                continue
            a = condition_args(exp, c)
            name = a.pop("name")
            why = reasons and r["rank"] is not None and r["rank"] <= reasons_up_to
            games[key] = replay_game(**a, game=r["game"], reasons=why,
                                     source=f"condition {c} ({name}), game {r['game']}")
            games[key]["condition"] = c
        if r["command"] is None and experiment is not None:
            r["command"] = play_command(experiment, r["condition"], r["game"])
    return {"version": EXAMPLES_VERSION, "rows": rows, "games": games}
