"""The schemas of an experiment file and of its deck edits (pydantic v2 models).

A schema checks what a key's value may be on its own, and the checks between keys of one
mapping; what needs the deck or the strategies (a card's name, a bot's parameters, the
sweep's conditions) is checked by the loader (:mod:`fishing2sim.config.experiment`) and by
:func:`fishing2sim.config.deck_edits.edit_deck`. Every model is strict (``5`` is no text,
``true`` no number), refuses unknown keys in the file's order with a did-you-mean, and
names what it expected in its ``help`` table (key path -> "a whole number > 0");
:func:`fishing2sim.config.messages.first_error` turns the first error into the one-line
message and :func:`check` raises it as :class:`SchemaError`.

The models validate the file's values as written: a loader reads the values it keeps from
the file (so the resolved config, and with it every hash, stays what the file says).
"""
from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator,
)
from pydantic_core import PydanticCustomError

from fishing2sim.config.keys import (
    DECK_KEYS, DEFAULT_EXAMPLES, KNOWN_ANALYSES, LADDER, MAX_EXAMPLES, MAX_GAMES_HARD,
    MAX_SEED, MAX_TIER, MULTIPLICITY, SUPPORTED_PLAYERS, TOP_KEYS,
)
from fishing2sim.config.messages import did_you_mean, first_error, got, problem
from fishing2sim.engine.constants import DECISION_NAMES, MAX_HAND, MAX_ROUNDS, RULESETS
from fishing2sim.safe_files import name_problem

__all__ = ["ADD_KEYS", "ConditionSettings", "DeckEdits", "DeckSpec", "ExperimentFile",
           "Schema", "SchemaError", "Seat", "check"]

# what a key expects: "<key path>: expected <this>, got <value>" (a key path relative to
# the model's mapping; [] a list's entries, * a mapping's keys; "" the mapping itself)
EXPERIMENT_HELP = {
    "": "a mapping of keys such as players, games, seats",
    "games": "a whole number > 0",
    "seed": f"a whole number 0..{MAX_SEED}",
    "chunk": "a whole number > 0",
    "workers": "a whole number >= 0",
    "strict": "true or false",
    "paired": "true or false",
    "examples": f"a whole number 0..{MAX_EXAMPLES}",
    "trump_value": "a mapping such as {max_round: 8}",
    "trump_value.max_round": f"a round number 2..{MAX_ROUNDS}",
    "cards": "a mapping such as {only: [blue 26, red 3]}",
    "cards.only": "a list of ocean card names such as [blue 26, red 3]",
    "cards.only[]": "a card name such as blue 26",
    "decisions": "a mapping such as {kinds: [catch-1-card, play], rate: 0.01, "
                 "play_rate: 0.00005}",
    "sprt": "a mapping {better: A, than: B, elo0: 0, elo1: 10}",
    "ladder": "a mapping such as {bots: [random, greedy, weights], search_games: 400, "
              "anchor: random}",
    "ladder.search_games": "a whole number > 0",
}
CONDITION_HELP = {"games": "a whole number > 0", "rotate": "true or false"}

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


class SchemaError(ValueError):
    """The first problem a schema found: ``"<key path>: <problem>"`` (``path``, ``text``)."""

    def __init__(self, path: str, text: str):
        super().__init__(f"{path}: {text}" if path else text)
        self.path, self.text = path, text


def check(model: type[BaseModel], data, base: str = "", rename: dict | None = None):
    """``model`` validated on ``data``: the model, or :class:`SchemaError` for the first
    error (``base``: the key path of ``data`` in the file)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise SchemaError(*first_error(exc, data, getattr(model, "help", {}), base=base,
                                       rename=rename)) from None


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _at_most_hard(games):
    if games > MAX_GAMES_HARD:
        raise problem(f"{games:,} games is above the limit of {MAX_GAMES_HARD:,} games per run")
    return games


Games = Annotated[int, Field(ge=1), AfterValidator(_at_most_hard)]


# ---- experiment-wide keys -----------------------------------------------------------------
def _name(v):
    if not isinstance(v, str) or not v.strip() or v.strip() in (".", "..") or "/" in v \
            or "\\" in v:
        raise problem(f"expected a folder name (text without '/'), {got(v)}")
    if v.strip().startswith("."):  # .checkpoints, .<name>.lock and temporary folders
        raise problem("a report folder's name may not start with '.' (the run keeps its "
                      f"hidden files beside the report: .checkpoints, .<name>.lock), "
                      f"{got(v.strip())}")
    why = name_problem(v.strip())
    if why:
        raise problem(f"the name {why}")
    return v.strip()


def _ruleset(v):
    if not isinstance(v, str) or v not in RULESETS:
        raise problem(f"unknown ruleset {v!r}{did_you_mean(v, RULESETS)}; known: "
                      f"{', '.join(RULESETS)}")
    return v


def _scheduler(v):
    if v is not None and (not isinstance(v, str) or not v.strip()):
        raise problem(f"expected a scheduler address such as tcp://host:8786, or null, {got(v)}")
    return v.strip() if v else None


def _multiplicity(v):
    if v not in MULTIPLICITY:
        raise problem("expected holm (Holm's step-down, the default), bh (Benjamini-Hochberg) "
                      f"or none{did_you_mean(str(v), MULTIPLICITY)}, {got(v)}")
    return v


def _output(v):
    from pathlib import Path

    if not isinstance(v, (str, Path)) or not str(v).strip():
        raise problem(f"expected a folder path, {got(v)}")
    return str(v)


class TrumpValue(FileSchema):
    max_round: Annotated[int, Field(ge=2, le=MAX_ROUNDS)] | None = None


def _cards_only(v):
    if v is not None and not v:  # it would play every game and report no card
        raise problem("expected a list of at least one ocean card name such as [blue 26, "
                      "red 3] (leave cards.only out for every ocean card), got []")
    return v


class CardsSpec(FileSchema):
    """``cards:`` (analyses: [cards]): the ocean cards to leave out one at a time (null:
    every ocean card)."""
    only: Annotated[list[str] | None, AfterValidator(_cards_only)] = None
def _rate(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
        raise problem(f"expected a share of the decisions, a number > 0 and <= 1, {got(v)}")
    return float(v)


def _decision_kinds(v):
    """Decision names (docs/rules.md C); whether the ruleset has them: config/decisions.py."""
    known = [d for d in DECISION_NAMES if d != "trump-choice"]
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not v:
        raise problem(f"expected a list of decision kinds ({', '.join(known)}), {got(v)}")
    for i, d in enumerate(v):
        if d == "trump-choice":
            raise problem("the trump choice has its own replays of every choice: analyses: "
                          "trump_value (docs/rules.md E)", index=i)
        if d not in known:
            raise problem(f"unknown decision kind {d!r}{did_you_mean(d, known)}; known: "
                          f"{', '.join(known)}", index=i)
        if d in v[:i]:
            raise problem(f"decision kind {d!r} given twice", index=i)
    return list(v)


class DecisionsSpec(FileSchema):
    kinds: Annotated[Any, AfterValidator(_decision_kinds)] = None
    rate: Annotated[Any, AfterValidator(_rate)] = None
    play_rate: Annotated[Any, AfterValidator(_rate)] = None


class Sprt(FileSchema):
    better: Any = None
    than: Any = None
    elo0: Any = 0.0
    elo1: Any = 10.0
    alpha: Any = 0.05
    beta: Any = 0.05

    @model_validator(mode="after")
    def _values(self):
        for k in ("better", "than"):
            v = getattr(self, k)
            if not isinstance(v, str) or not v.strip():
                raise problem(f"expected a strategy of the lineup, {got(v)}", key=k)
        for k in ("elo0", "elo1"):
            if not _number(getattr(self, k)):
                raise problem(f"expected an Elo difference (a number), {got(getattr(self, k))}",
                              key=k)
        if not self.elo1 > self.elo0:
            raise problem(f"expected elo1 > elo0 ({self.elo0}), {got(self.elo1)}", key="elo1")
        for k in ("alpha", "beta"):
            v = getattr(self, k)
            if not _number(v) or not 0 < v < 0.5:
                raise problem(f"expected an error rate 0 < {k} < 0.5, {got(v)}", key=k)
        return self


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _bots(bots):
    if not isinstance(bots, list) or len(bots) < 2:
        n = len(bots) if isinstance(bots, list) else None
        raise problem("a ladder rates bots against each other: give a list of at least 2 "
                      "bots (strategy names, files or {strategy: ..., params: [...]}), "
                      f"{f'got {n} bot' if n is not None else got(bots)}"
                      f"{'s' if n == 0 else ''}")
    return bots


class LadderSpec(FileSchema):
    bots: Annotated[Any, AfterValidator(_bots)] = None
    search_games: Games = None  # null: "expected a whole number", as before
    anchor: Any = "random"


def _analyses(v):
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not v:
        raise problem(f"expected a list of analyses ({', '.join(KNOWN_ANALYSES)}), {got(v)}")
    for i, a in enumerate(v):
        if a not in KNOWN_ANALYSES:
            raise problem(f"unknown analysis {a!r}{did_you_mean(a, KNOWN_ANALYSES)}; known: "
                          f"{', '.join(KNOWN_ANALYSES)}", index=i)
        if a in v[:i]:
            raise problem(f"analysis {a!r} given twice", index=i)
    return list(v)


class ExperimentFile(FileSchema):
    """The top level: the experiment-wide keys checked here, in the order a reader meets
    their problems; the keys a sweep may vary (players, seats, deck, ...) are checked per
    condition (:class:`ConditionSettings`, the deck's :class:`DeckSpec`) once the sweep has
    set them; sweep, conditions and precision by the loader."""

    help: ClassVar[dict] = EXPERIMENT_HELP

    keys: ClassVar[tuple] = TOP_KEYS

    # the fields in the order their problems are reported
    name: Annotated[Any, AfterValidator(_name)]
    ruleset: Annotated[Any, AfterValidator(_ruleset)] = "fishing2"
    games: Games = 100_000
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] = 0
    chunk: Annotated[int, Field(ge=1)] = 10_000
    workers: Annotated[int, Field(ge=0)] = 0
    scheduler: Annotated[Any, AfterValidator(_scheduler)] = None
    strict: bool = False
    multiplicity: Annotated[Any, AfterValidator(_multiplicity)] = "holm"
    output: Annotated[Any, AfterValidator(_output)] = "reports"
    analyses: Annotated[Any, AfterValidator(_analyses)] = None
    ladder: LadderSpec = None  # given as null: "expected a mapping", as before
    trump_value: TrumpValue | None = None
    cards: CardsSpec | None = None
    decisions: DecisionsSpec | None = None
    paired: bool = False
    examples: Annotated[int, Field(ge=0, le=MAX_EXAMPLES)] = DEFAULT_EXAMPLES
    sprt: Sprt | None = None
    # checked per condition (ConditionSettings, DeckSpec, the loader's seats) once the sweep
    # has set them, or by the loader (the grid, the stopping rules)
    players: Any = 4
    first_leader: Any = None
    seats: Any = None
    rotate: Any = None
    deck: Any = None
    sweep: Any = None
    conditions: Any = None
    precision: Any = None
    max_games: Any = None
    play_levels: Any = None  # the skill panel: checked by the loader (config/levels.py)
    tune: Any = None  # read by `fishing2sim tune` only (fishing2sim/tune/schema.py)

    @model_validator(mode="after")
    def _ladder_analysis(self):
        for i, a in enumerate(self.analyses or ()):
            if a == LADDER and self.ladder is None:
                raise problem("the ladder analysis needs a ladder: key listing the bots to "
                              "rate, e.g. ladder: {bots: [random, greedy, weights]} "
                              "(docs/experiments.md, Ladder)", key=f"analyses[{i}]")
        if self.ladder is not None and LADDER not in self.analyses:
            raise problem("a file with ladder: rates its bots with the ladder analysis: add "
                          "ladder to analyses (or leave analyses out)", key="analyses")
        return self


# ---- one condition ------------------------------------------------------------------------
def player_count(p):
    if not _whole(p) or p not in SUPPORTED_PLAYERS:
        raise problem(f"expected a player count 3, 4 or 5, {got(p)}")
    return int(p)


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

    ruleset: Annotated[Any, AfterValidator(_ruleset)]
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
        elif _whole(fl) and 0 <= fl < n:
            self.first_leader = int(fl)
        else:
            raise problem(f"expected random or a seat number 0..{n - 1}, {got(fl)}",
                          key="first_leader")
        return self


# ---- a seat -------------------------------------------------------------------------------
def strategy_spec(v):
    """A seat's strategy: a name in strategies/ or a .py file (stripped)."""
    if not isinstance(v, str) or not v.strip():
        raise problem(f"expected a strategy name or a .py file path, {got(v)}")
    return v.strip()


def _numbers(v):
    if v is not None and (not isinstance(v, list) or not all(_number(x) for x in v)):
        raise problem(f"expected a list of numbers, {got(v)}")
    return v


class Seat(FileSchema):
    """A seat written ``{strategy: ..., params: [...]}``."""

    required: ClassVar[tuple] = ("strategy",)
    required_hint: ClassVar[str] = " (a strategy name or file)"

    strategy: Annotated[Any, AfterValidator(strategy_spec)]
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


def _whole_np(v) -> bool:
    import numpy as np

    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _digits(k):
    return int(k) if isinstance(k, str) and k.strip().isdigit() else k


def _tier_key(k):
    k = _digits(k)
    if not _whole_np(k) or not 1 <= int(k) <= MAX_TIER:
        raise problem(f"{k!r} is not an ocean tier (1-{MAX_TIER})")
    return int(k)


def _count(k):
    if not _whole_np(k) or k < 0:
        raise problem(f"expected a whole number of cards >= 0, {got(k)}")
    return int(k)


def _card_name(v):
    if not isinstance(v, str) or not v.strip():
        raise problem(f"expected a non-empty card name, {got(v)}")
    return v.strip()


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
        if not _whole_np(p) or int(p) not in SUPPORTED_PLAYERS:
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
            if not _whole_np(h) or not 1 <= h <= MAX_HAND:
                raise problem(f"a hand size must be a whole number 1-{MAX_HAND}, {got(h)}",
                              key=f"{k}[{r}]")
        if length is not None and len(row) != length:
            raise problem(f"{len(row)} rounds but the other player counts have {length}: "
                          "every list must have the same length", key=k)
        length = len(row)
        given[p] = [int(h) for h in row]
    return given


def _rounds(v):
    if v is not None and (not _whole_np(v) or not 1 <= v <= MAX_ROUNDS):
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
