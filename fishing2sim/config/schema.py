"""The schemas of an experiment file's parts and the shared field types (pydantic v2 models).

A schema checks what a key's value may be on its own, and the checks between keys of one
mapping; the experiment file's top level and the keys that read each other (the grid, the
skill panel, the stopping rules) are :mod:`fishing2sim.config.file_schema`'s. What needs the
deck, the strategies or the built grid (a card's name, a bot's parameters, a baseline of the
conditions) is checked by the loader's functions and by
:func:`fishing2sim.config.deck_edits.edit_deck`. Every model is strict (``5`` is no text,
``true`` no number), refuses unknown keys in the file's order with a did-you-mean, and
names what it expected in its ``help`` table (key path -> "a whole number > 0");
:func:`fishing2sim.config.messages.first_error` turns the first error into the one-line
message and :func:`check` raises it as :class:`KeyProblem`.

The field types every schema shares are defined once, here: :func:`is_whole`,
:func:`is_number`, ``Games``, ``Seed``, ``Share``, ``StrategySpec``, a player count, a
ruleset, an amount in a unit (``0.5pp``). The models validate the file's values as written:
the resolved config, and with it every hash, stays what the file says.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from pydantic import (
    AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator,
)
from pydantic_core import PydanticCustomError

from fishing2sim.config.keys import (
    DECK_KEYS, MAX_GAMES_HARD, MAX_SEED, MAX_TIER, PLAY_LEVELS, SUPPORTED_PLAYERS,
)
from fishing2sim.config.messages import KeyProblem, did_you_mean, first_error, got, problem
from fishing2sim.engine.constants import MAX_HAND, MAX_ROUNDS, RULESETS

__all__ = ["ADD_KEYS", "LEVEL_SEATS", "TRACE_TOLERANCE", "ConditionSettings", "DeckEdits",
           "DeckSpec", "FileSchema", "Games", "LevelEntry", "Schema", "Seed",
           "Share", "Seat", "StrategySpec", "amount", "check", "is_number", "is_whole",
           "nested", "play_levels", "player_count", "ruleset_name", "strategy_spec"]

CONDITION_HELP = {"games": "a whole number > 0", "rotate": "true or false"}
#: a level written by its name alone: its seats (every seat the same bot)
LEVEL_SEATS = {"random": "random", "greedy": "greedy", "skilled": "skilled",
               "search": "pimc_close"}
#: the skill trace's default tolerance per figure (the figure's unit as reported) and the
#: figures a panel traces
TRACE_TOLERANCE = {"overfishing": ("pp", 2.0), "ocean_empty": ("pp", 2.0),
                   "ocean_left": ("cards", 0.5), "leader_edge": ("pp", 2.0),
                   "trump_value": ("points", 0.5)}


# ---- the shared field types ---------------------------------------------------------------
def is_whole(v) -> bool:
    """A whole number (a numpy integer too; never true or false)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def is_number(v) -> bool:
    """A number (int or float; never true or false)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _games(v):
    if not is_whole(v) or v < 1:
        raise problem(f"expected a whole number > 0, {got(v)}")
    if v > MAX_GAMES_HARD:
        raise problem(f"{v:,} games is above the limit of {MAX_GAMES_HARD:,} games per run")
    return int(v)


def _share(v):
    if not is_number(v) or not 0 < v <= 1:
        raise problem(f"expected a share of the decisions, a number > 0 and <= 1, {got(v)}")
    return float(v)


def player_count(p):
    if not is_whole(p) or p not in SUPPORTED_PLAYERS:
        raise problem(f"expected a player count 3, 4 or 5, {got(p)}")
    return int(p)


def stripped(v, expected: str) -> str:
    """``v`` stripped, a string with more than white space in it; else the problem
    "expected <expected>, got ..."."""
    if not isinstance(v, str) or not v.strip():
        raise problem(f"expected {expected}, {got(v)}")
    return v.strip()


def strategy_spec(v):
    """A seat's strategy: a name in strategies/ or a .py file (stripped)."""
    return stripped(v, "a strategy name or a .py file path")


def ruleset_name(v):
    if not isinstance(v, str) or v not in RULESETS:
        raise problem(f"unknown ruleset {v!r}{did_you_mean(v, RULESETS)}; known: "
                      f"{', '.join(RULESETS)}")
    return v


# "0.5pp", "2 cards": a number and its unit
_AMOUNT = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*([A-Za-z%]*)\s*")


def amount(want, unit: str):
    """The number of ``want`` written in ``unit`` (``"0.5pp"``), or None."""
    m = _AMOUNT.fullmatch(str(want)) if is_number(want) or isinstance(want, str) else None
    if m is None or m.group(2) not in (unit, unit.rstrip("s")) or float(m.group(1)) <= 0:
        return None
    return m.group(1)


Games = Annotated[Any, AfterValidator(_games)]  # games of a run: 1..MAX_GAMES_HARD
Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]
Share = Annotated[Any, AfterValidator(_share)]  # a share of the decisions: > 0 and <= 1
StrategySpec = Annotated[Any, AfterValidator(strategy_spec)]


class Schema(BaseModel):
    """A mapping of the file: strict, and its unknown keys refused in the file's order."""

    model_config = ConfigDict(strict=True, extra="forbid", arbitrary_types_allowed=True,
                              populate_by_name=True)
    keys: ClassVar[tuple] = ()  # the known keys in the order a message lists them (the
    # fields' order by default)
    key_hints: ClassVar[dict] = {}  # key -> the problem to report instead of "unknown key"
    required: ClassVar[tuple] = ()  # keys that must be given
    required_hint: ClassVar[str] = ""  # " (...)" after "missing key 'x'"
    suggestions: ClassVar[int] = 1  # did-you-mean: how many close keys
    unknown_word: ClassVar[str] = "key"  # "unknown key"
    help: ClassVar[dict] = {}  # key path -> what it expects (the table above)

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data):
        if not isinstance(data, dict):
            return data
        known = list(cls.keys) or [f.alias or n for n, f in cls.model_fields.items()]
        for k in data:
            if not isinstance(k, str) or k not in known:
                if k in cls.key_hints:
                    raise problem(cls.key_hints[k], key=k)
                raise problem(f"unknown {cls.unknown_word}"
                              f"{did_you_mean(k, known, n=cls.suggestions)}; "
                              f"known: {', '.join(known)}", key=k)
        for k in cls.required:
            if k not in data:
                raise problem(f"missing key {k!r}{cls.required_hint}")
        return data


ENTRY_HINT = ("a label names a condition, and this is not one: write it in an entry of "
              "conditions ({label: ..., baseline: true, <key path>: <value>}) or on a sweep "
              "value ({value: ..., label: ..., baseline: true})")
BASELINE_HINT = ENTRY_HINT.replace("a label names", "baseline marks")


class FileSchema(Schema):
    """A mapping of the experiment file itself: a ``label`` or ``baseline`` given where no
    condition is named is told where it goes."""

    key_hints: ClassVar[dict] = {"label": ENTRY_HINT, "baseline": BASELINE_HINT}


def check(model: type[BaseModel], data, base: str = "", rename: dict | None = None,
          context: dict | None = None):
    """``model`` validated on ``data``: the model, or :class:`KeyProblem` for the first
    error (``base``: the key path of ``data`` in the file; ``context``: what the model's
    validators read besides the data)."""
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise KeyProblem(*first_error(exc, data, getattr(model, "help", {}), base=base,
                                       rename=rename)) from None


# ---- one condition ------------------------------------------------------------------------
def nested(model: type[BaseModel], data, tail: str = ""):
    """``model`` validated on ``data`` inside another schema's validator: its first problem
    raised at ``tail`` (the key path of ``data`` below the field being validated) and the
    key path inside ``data``."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        path, text = first_error(exc, data, getattr(model, "help", {}))
        raise problem(text, tail=tail + (("" if path.startswith("[") else ".") + path
                                          if path else "")) from None


def _at(check, v, key):
    """``check(v)``, its problem reported at ``key`` (of the mapping being validated)."""
    try:
        return check(v)
    except PydanticCustomError as exc:
        raise problem(exc.context["text"], key=key) from None


class ConditionSettings(BaseModel):
    """The keys a sweep may vary, checked for one condition (after the sweep set them);
    seats and deck are the loader's and the deck's (they need the strategies and the
    deck)."""

    model_config = ConfigDict(strict=True, extra="ignore")
    help: ClassVar[dict] = CONDITION_HELP

    ruleset: Annotated[Any, AfterValidator(ruleset_name)]
    players: Any
    games: Games
    rotate: bool | None = None
    first_leader: Any = None

    @model_validator(mode="after")
    def _first_leader(self):
        if isinstance(self.players, list):
            raise problem("a list of player counts is only allowed at the top level",
                          key="players")
        self.players = _at(player_count, self.players, "players")
        fl, n = self.first_leader, self.players
        if fl is None or fl == "random":
            self.first_leader = -1
        elif is_whole(fl) and 0 <= fl < n:
            self.first_leader = int(fl)
        else:
            raise problem(f"expected random or a seat number 0..{n - 1}, {got(fl)}",
                          key="first_leader")
        return self


# ---- a seat -------------------------------------------------------------------------------
def _numbers(v):
    if v is not None and (not isinstance(v, list) or not all(is_number(x) for x in v)):
        raise problem(f"expected a list of numbers, {got(v)}")
    return v


class Seat(FileSchema):
    """A seat written ``{strategy: ..., params: [...]}``."""

    required: ClassVar[tuple] = ("strategy",)
    required_hint: ClassVar[str] = " (a strategy name or file)"

    strategy: StrategySpec
    params: Annotated[Any, AfterValidator(_numbers)] = None


# ---- the deck -----------------------------------------------------------------------------

def _deck_file(v):
    if v is not None and (not isinstance(v, str) or not v.strip()):
        raise problem(f"expected a deck CSV file path, {got(v)}")
    return v


class DeckSpec(FileSchema):
    """The deck: key of a condition: its file here, its edits in :class:`DeckEdits`."""

    help: ClassVar[dict] = {"": f"a mapping with keys {', '.join(DECK_KEYS)}"}

    file: Annotated[Any, AfterValidator(_deck_file)] = None
    remove: Any = None
    remove_from_tier: Any = None
    add: Any = None
    move: Any = None
    hand_sizes: Any = None
    rounds: Any = None


# ---- deck edits (fishing2sim.config.deck_edits.edit_deck) ---------------------------------------
ADD_KEYS = ("name", "kind", "colour", "value", "effect", "tier", "min_players")


def _digits(k):
    return int(k) if isinstance(k, str) and k.strip().isdigit() else k


def _tier_key(k):
    k = _digits(k)
    if not is_whole(k) or not 1 <= int(k) <= MAX_TIER:
        raise problem(f"{k!r} is not an ocean tier (1-{MAX_TIER})")
    return int(k)


def _count(k):
    if not is_whole(k) or k < 0:
        raise problem(f"expected a whole number of cards >= 0, {got(k)}")
    return int(k)


def _card_name(v):
    return stripped(v, "a non-empty card name")


def _cell(key):
    def check(v):
        if isinstance(v, (bool, list, dict)):
            raise problem(f"{v!r} is not a valid {key}")
        return v
    return AfterValidator(check)


class AddCard(Schema):
    """A card of ``add:``: validated like a CSV row (deck._check_card) once it is a row."""

    required: ClassVar[tuple] = ("name", "kind", "tier")
    required_hint: ClassVar[str] = " (a card needs name, kind and tier)"
    suggestions: ClassVar[int] = 3

    name: Annotated[Any, AfterValidator(_card_name)]
    kind: Annotated[Any, _cell("kind")]
    colour: Annotated[Any, _cell("colour")] = "none"
    value: Annotated[Any, _cell("value")] = None
    effect: Annotated[Any, _cell("effect")] = "none"
    tier: Annotated[Any, _cell("tier")]
    min_players: Annotated[Any, _cell("min_players")] = 3


def _hand_sizes(v):
    """{players: [hand size per round]} -> {int players: [int, ...]}, one length for all."""
    if v is None:
        return None
    if not isinstance(v, dict) or not v:
        raise problem("expected a mapping players -> list of hand sizes per round, e.g. "
                      f"{{4: [9, 9, 10, 10]}}, {got(v)}")
    given, length = {}, None
    for k, row in v.items():
        p = _digits(k)
        if not is_whole(p) or int(p) not in SUPPORTED_PLAYERS:
            raise problem(f"{p!r} is not a player count (allowed: "
                          f"{', '.join(map(str, SUPPORTED_PLAYERS))})", key=k)
        p = int(p)
        if p in given:
            raise problem(f"{p} players given twice", key=k)
        if not isinstance(row, (list, tuple)) or not row:
            raise problem(f"expected a list of hand sizes, one per round, {got(row)}", key=k)
        if not 1 <= len(row) <= MAX_ROUNDS:
            raise problem(f"{len(row)} rounds, 1-{MAX_ROUNDS} allowed", key=k)
        for r, h in enumerate(row):
            if not is_whole(h) or not 1 <= h <= MAX_HAND:
                raise problem(f"a hand size must be a whole number 1-{MAX_HAND}, {got(h)}",
                              key=f"{k}[{r}]")
        if length is not None and len(row) != length:
            raise problem(f"{len(row)} rounds but the other player counts have {length}: "
                          "every list must have the same length", key=k)
        length = len(row)
        given[p] = [int(h) for h in row]
    return given


def _rounds(v):
    if v is not None and (not is_whole(v) or not 1 <= v <= MAX_ROUNDS):
        raise problem(f"expected a whole number of rounds 1-{MAX_ROUNDS}, {got(v)}")
    return v


class DeckEdits(Schema):
    """The edits of a deck, each on its own; what needs the deck (a card's name, a tier's
    cards, the hand table's rounds) is :func:`fishing2sim.config.deck_edits.edit_deck`'s."""

    help: ClassVar[dict] = {
        "remove": "a list of card names",
        "remove[]": "a card name (text)",
        "remove_from_tier": "a mapping tier -> number of cards, e.g. {5: 2}",
        "move": "a mapping card name -> tier, e.g. {'blowfish 21': 4}",
        "add": f"a list of cards (each a mapping with keys {', '.join(ADD_KEYS)})",
        "add[]": f"a mapping with keys {', '.join(ADD_KEYS)}",
    }

    remove: list[str] = []
    remove_from_tier: dict[Annotated[Any, AfterValidator(_tier_key)],
                           Annotated[Any, AfterValidator(_count)]] = {}
    move: dict[Any, Any] = {}
    add: list[AddCard] = []
    hand_sizes: Annotated[Any, AfterValidator(_hand_sizes)] = None
    rounds: Annotated[Any, AfterValidator(_rounds)] = None


# ---- the skill panel (play_levels:, config/levels.py) -------------------------------------
def _rating(v):
    if v is not None and (not is_number(v) or not math.isfinite(v)):
        raise problem(f"expected a rating on the ladder's Elo scale (a number), {got(v)}")
    return v


def _level_name(v):
    return stripped(v, "a level's name (text)")


class LevelSpec(FileSchema):
    keys: ClassVar[tuple] = ("level", "seats", "games", "max_games", "rating")
    required: ClassVar[tuple] = ("level",)
    required_hint: ClassVar[str] = " (the level's name, e.g. {level: search, seats: pimc})"
    level: Annotated[Any, AfterValidator(_level_name)] = None
    seats: Any = None
    games: Games | None = None
    max_games: Games | None = None
    rating: Annotated[Any, AfterValidator(_rating)] = None


class PanelSpec(FileSchema):
    keys: ClassVar[tuple] = ("levels", "relative_to", "converged_within")
    required: ClassVar[tuple] = ("levels",)
    required_hint: ClassVar[str] = " (the list of levels, e.g. [random, greedy, skilled])"
    levels: Any = None
    relative_to: Annotated[Any, AfterValidator(_level_name)] = None
    converged_within: Any = None


@dataclass(frozen=True)
class LevelEntry:
    """A level of ``play_levels:`` as validated: its seats as written (or its name's)."""

    index: int
    name: str
    seats: Any
    games: int  # 0: the experiment's
    max_games: int
    rating: float | None
    at: str  # its key path (play_levels[1] or play_levels.levels[1])
    seats_at: str  # where a problem of its seats is reported


def _level_seats(entry, name: str, here: str) -> tuple[Any, str]:
    """(the level's seats, where their problems are reported), their shape checked."""
    seats = entry.get("seats") if isinstance(entry, dict) else None
    if seats is None:  # the name's seats: a problem is the name's
        seats = LEVEL_SEATS.get(name, name)
        where = f"{here}.level" if isinstance(entry, dict) else here
    else:
        where = f"{here}.seats"
    for j, e in enumerate(seats if isinstance(seats, list) else [seats]):
        spec = e.get("strategy") if isinstance(e, dict) else e
        if not isinstance(spec, str) or not spec.strip():
            key = f"{where}[{j}]" if isinstance(seats, list) else where
            raise problem(f"expected a strategy name or file for level {name!r}, {got(spec)}",
                          tail=key[len(PLAY_LEVELS):])
    return seats, where


def _levels(raw, lat: str) -> list[LevelEntry]:
    if not isinstance(raw, list) or len(raw) < 2:
        n = len(raw) if isinstance(raw, list) else None
        raise problem("a panel compares levels of play: give a list of at least 2 levels "
                      f"(names such as {', '.join(LEVEL_SEATS)}, or {{level: ..., seats: "
                      f"..., games: ...}}), {f'got {n}' if n is not None else got(raw)}",
                      tail=lat[len(PLAY_LEVELS):])
    out: list[LevelEntry] = []
    for i, e in enumerate(raw):
        here = f"{lat}[{i}]"
        if not isinstance(e, (str, dict)):
            raise problem(f"expected a level's name ({', '.join(LEVEL_SEATS)}) or a mapping "
                          f"{{level: ..., seats: ..., games: ...}}, {got(e)}",
                          tail=here[len(PLAY_LEVELS):])
        entry = {"level": e} if isinstance(e, str) else e
        s = nested(LevelSpec, entry, here[len(PLAY_LEVELS):])
        if s.level in [lv.name for lv in out]:
            raise problem(f"level {s.level!r} given twice",
                          tail=f"{here[len(PLAY_LEVELS):]}.level")
        seats, where = _level_seats(e, s.level, here)
        out.append(LevelEntry(i, s.level, seats, s.games or 0, s.max_games or 0, s.rating,
                              here, where))
    return out


def _tolerances(raw) -> dict:
    out = {f: tol * (0.01 if unit == "pp" else 1.0) for f, (unit, tol) in TRACE_TOLERANCE.items()}
    if raw is None:
        return out
    if not isinstance(raw, dict):
        raise problem(f"expected a mapping figure -> tolerance such as {{overfishing: 2pp}}, "
                      f"{got(raw)}", tail=".converged_within")
    for fig, want in raw.items():
        if fig not in TRACE_TOLERANCE:
            raise problem(f"unknown figure{did_you_mean(str(fig), TRACE_TOLERANCE)}; known: "
                          f"{', '.join(TRACE_TOLERANCE)}", tail=f".converged_within.{fig}")
        unit = TRACE_TOLERANCE[fig][0]
        value = amount(want, unit)
        if value is None:
            raise problem(f"expected a tolerance in {unit} such as "
                          f"{'2pp' if unit == 'pp' else '0.5 ' + unit}, {got(want)}",
                          tail=f".converged_within.{fig}")
        out[fig] = float(value) * (0.01 if unit == "pp" else 1.0)
    return out


def play_levels(raw):
    """``play_levels:`` -> {levels: [LevelEntry], relative_to, converged_within}."""
    if raw is None:
        return None
    if isinstance(raw, list):
        spec, lat = {"levels": raw}, PLAY_LEVELS
    elif isinstance(raw, dict):
        spec, lat = raw, f"{PLAY_LEVELS}.levels"
        nested(PanelSpec, raw)
    else:
        raise problem("expected a list of levels (e.g. [random, greedy, skilled, search]) or "
                      f"a mapping {{levels: [...], relative_to: ...}}, {got(raw)}")
    levels = _levels(spec["levels"], lat)
    names = [lv.name for lv in levels]
    ref = spec.get("relative_to")
    ref = names[0] if ref is None else str(ref).strip()
    if ref not in names:
        raise problem(f"{ref!r} is not a level of the panel{did_you_mean(ref, names)} (levels: "
                      f"{', '.join(names)}): the verdicts are relative to a level the panel "
                      "plays", tail=".relative_to")
    return {"levels": levels, "relative_to": ref,
            "converged_within": _tolerances(spec.get("converged_within"))}
