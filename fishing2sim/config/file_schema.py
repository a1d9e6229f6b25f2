"""The schema of an experiment file's top level: every experiment-wide key, and the keys that
read each other (the grid's sweep, conditions and player list, the skill panel, the stopping
rules, the keys an analysis needs).

:class:`ExperimentFile` is the validated file: the loader (config/experiment.py) reads it,
and only what needs the deck, the strategies or the built grid is checked there. Its field
types are the shared ones of :mod:`fishing2sim.config.schema`; what it normalises (the
grid's axes, the panel's levels, the precision targets) is kept in the model, while the
resolved config is built from the values as written (so every hash stays what the file
says).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, Field, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

from fishing2sim.config.keypaths import overlap, parse_key_path
from fishing2sim.config.keys import (
    CONDITIONS, CONTRAST_ANALYSIS, DECK_KEYS, DEFAULT_EXAMPLES, ENTRY_KEYS, KNOWN_ANALYSES,
    LABELLED_KEYS, LADDER, LADDER_EXCLUDES, MAX_EXAMPLES, MAX_SEED, MULTIPLICITY, PLAY_LEVELS,
    PRECISION_FIGURES, SWEEPABLE, TOP_KEYS,
)
from fishing2sim.config.messages import did_you_mean, got, problem, short
from fishing2sim.config.schema import (
    FileSchema, Games, Seed, Share, amount, is_number, player_count, ruleset_name,
)
from fishing2sim.config.schema import play_levels as _play_levels
from fishing2sim.engine.constants import DECISION_NAMES, MAX_ROUNDS
from fishing2sim.safe_files import name_problem

__all__ = ["Axis", "ExperimentFile", "settable"]

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
    if not (isinstance(v, str) or hasattr(v, "__fspath__")) or not str(v).strip():
        raise problem(f"expected a folder path, {got(v)}")
    return str(v)


def _distinct(v, what: str, whats: str, known, refused: dict | None = None) -> list:
    """A list (or one name) of distinct names out of ``known`` (``refused``: a name ->
    why it is not one)."""
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not v:
        raise problem(f"expected a list of {whats} ({', '.join(known)}), {got(v)}")
    for i, a in enumerate(v):
        if isinstance(a, str) and a in (refused or {}):
            raise problem(refused[a], index=i)
        if a not in known:
            raise problem(f"unknown {what} {a!r}{did_you_mean(a, known)}; known: "
                          f"{', '.join(known)}", index=i)
        if a in v[:i]:
            raise problem(f"{what} {a!r} given twice", index=i)
    return list(v)


def _analyses(v):
    return _distinct(v, "analysis", "analyses", KNOWN_ANALYSES)


def _decision_kinds(v):
    """Decision names (docs/rules.md C); whether the ruleset has them: config/decisions.py."""
    known = [d for d in DECISION_NAMES if d != "trump-choice"]
    return _distinct(v, "decision kind", "decision kinds", known,
                     refused={"trump-choice": "the trump choice has its own replays of every "
                              "choice: analyses: trump_value (docs/rules.md E)"})


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


class DecisionsSpec(FileSchema):
    kinds: Annotated[Any, AfterValidator(_decision_kinds)] = None
    rate: Share = None
    play_rate: Share = None


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
            if not is_number(getattr(self, k)):
                raise problem(f"expected an Elo difference (a number), {got(getattr(self, k))}",
                              key=k)
        if not self.elo1 > self.elo0:
            raise problem(f"expected elo1 > elo0 ({self.elo0}), {got(self.elo1)}", key="elo1")
        for k in ("alpha", "beta"):
            v = getattr(self, k)
            if not is_number(v) or not 0 < v < 0.5:
                raise problem(f"expected an error rate 0 < {k} < 0.5, {got(v)}", key=k)
        return self


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


# ---- the grid: sweep, conditions, a list of player counts ---------------------------------
@dataclass(frozen=True)
class Axis:
    """One dimension of the grid as the file gives it: a sweep key's values (or the entries
    of conditions, the player counts), each value's label and the baseline value."""

    key: str
    values: list
    labels: list  # per value its label, or None
    baseline: int | None = None


def settable(key, at: str, vary: str = "swept") -> list:
    """The components of a key path a condition may set (a sweep key, or a key of an
    entry of conditions), checked; problems at ``at`` (relative to the field)."""
    if not isinstance(key, str):
        raise problem(f"a {'sweep key' if vary == 'swept' else 'key of a condition'} is a key "
                      "path such as players or deck.remove_from_tier.5", tail=at)
    try:
        parts = parse_key_path(key)
    except ValueError:
        raise problem("not a key path (keys joined by dots, list items as [i])",
                      tail=at) from None
    root = parts[0]
    if root not in SWEEPABLE:
        if root in TOP_KEYS:
            raise problem(f"{root} is experiment-wide and cannot be {vary}; sweepable: "
                          f"{', '.join(SWEEPABLE)} (and the keys inside deck and seats)",
                          tail=at)
        raise problem(f"unknown key{did_you_mean(root, TOP_KEYS)}; sweepable: "
                      f"{', '.join(SWEEPABLE)}", tail=at)
    if root == "deck" and len(parts) > 1 and parts[1] not in DECK_KEYS:
        raise problem(f"unknown deck key {parts[1]!r}{did_you_mean(parts[1], DECK_KEYS)}; "
                      f"known: {', '.join(DECK_KEYS)}", tail=at)
    if root in ("players", "games", "first_leader", "rotate", "ruleset") and len(parts) > 1:
        raise problem(f"{root} has no keys inside it", tail=at)
    return parts


def _named(at: str, entry: dict, labels: list, base, what: str, where):
    """(the entry's label or None, whether it is the baseline), checked: a label given
    once, one baseline (``where(j)``: how entry j is named)."""
    lab, b = entry.get("label"), entry.get("baseline", False)
    why, key = None, "label"
    if lab is not None and (not isinstance(lab, str) or not lab.strip()):
        why = f"expected a name (text), {got(lab)}"
    elif lab is not None and lab.strip() in labels:
        why = f"label {lab.strip()!r} given twice (also {where(labels.index(lab.strip()))})"
    elif not isinstance(b, bool):
        why, key = f"expected true or false, {got(b)}", "baseline"
    elif b and base is not None:
        why, key = (f"a second baseline (the first is {where(base)}): mark one {what} as the "
                    "baseline"), "baseline"
    if why:
        raise problem(why, tail=f"{at}.{key}")
    return (lab.strip() if lab is not None else None), b


def _sweep(raw):
    """``sweep:`` -> its axes (values unwrapped from {value:, label:, baseline:})."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise problem(f"expected a mapping key path -> list of values, {got(raw)}")
    axes = []
    for key, vals in raw.items():
        at = f".{key}"
        settable(key, at)
        if not isinstance(vals, list) or not vals:
            raise problem(f"expected a non-empty list of values, {got(vals)}", tail=at)
        values, labels, base = [], [], None
        for i, v in enumerate(vals):
            if isinstance(v, dict) and "value" in v and set(v) <= set(LABELLED_KEYS):
                lab, b = _named(f"{at}[{i}]", v, labels, base, "value of a sweep key",
                                lambda j: f"sweep.{key}[{j}]")
                base = i if b else base
                values.append(v["value"])
                labels.append(lab)
                continue
            if isinstance(v, dict) and ("label" in v or "baseline" in v):
                raise problem("a labelled sweep value needs the key 'value' (write {value: "
                              "..., label: ..., baseline: true})", tail=f"{at}[{i}]")
            values.append(v)
            labels.append(None)
        for i, v in enumerate(values):
            if v in values[:i]:
                raise problem(f"value {short(v)} given twice", tail=f"{at}[{i}]")
        axes.append(Axis(key, values, labels, base))
    return axes


def _conditions(raw):
    """``conditions:`` -> one axis: each entry's settings (key path -> value)."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw:
        raise problem("expected a non-empty list of conditions, each a mapping of key paths "
                      "to values with an optional label and baseline, e.g. [{label: standard "
                      "deck, baseline: true}, {label: no blue 26, deck.remove: [blue 26]}], "
                      f"{got(raw)}")
    entries, labels, base = [], [], None
    for i, e in enumerate(raw):
        at = f"[{i}]"
        if not isinstance(e, dict):
            raise problem("expected a mapping of key paths to values (with an optional label "
                          f"and baseline), {got(e)}", tail=at)
        settings, mine = {}, []
        for k, v in e.items():
            if k in ENTRY_KEYS:
                continue
            if k == "value":
                raise problem("an entry of conditions sets key paths (e.g. deck.remove: "
                              "[blue 26]); {value: ..., label: ...} is the form of a sweep "
                              "value", tail=f"{at}.value")
            parts = settable(k, f"{at}.{k}", vary="set per condition")
            for k2, p2 in mine:
                if overlap(parts, p2):
                    raise problem(f"overlaps {CONDITIONS}{at}.{k2}: set it in one place",
                                  tail=f"{at}.{k}")
            mine.append((k, parts))
            settings[k] = v
        lab, b = _named(at, e, labels, base, "condition",
                        lambda j: f"{CONDITIONS}[{j}]")
        base = i if b else base
        for j, other in enumerate(entries):
            if other == settings:
                raise problem(f"the same settings as {CONDITIONS}[{j}]: one condition listed "
                              "twice", tail=at)
        entries.append(settings)
        labels.append(lab)
    return Axis(CONDITIONS, entries, labels, base)


def _players(v):
    """A player count, or a list of them (one more dimension of the grid); a player count
    alone is checked per condition (a sweep may set it)."""
    if not isinstance(v, list):
        return v
    if not v:
        raise problem("expected a player count 3, 4 or 5 or a non-empty list")
    for i, p in enumerate(v):
        try:
            player_count(p)
        except PydanticCustomError as exc:  # its own problem, at its entry
            raise problem(exc.context["text"], index=i) from None
        if p in v[:i]:
            raise problem(f"player count {p} given twice", index=i)
    return v


# ---- the stopping rules ---------------------------------------------------------------------
def _precision(raw):
    """``precision:`` -> ((figure, target in the figure's unit, as written), ...)."""
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not raw:
        raise problem("expected a mapping figure -> wanted 95% CI half-width such as "
                      f"{{overfishing: 0.5pp}}, {got(raw)}")
    known = [*PRECISION_FIGURES, *(f"contrast.{f}" for f in CONTRAST_ANALYSIS)]
    out = []
    for fig, want in raw.items():
        fig = str(fig)
        if fig not in known:
            raise problem(f"unknown figure{did_you_mean(fig, known)}; known: "
                          f"{', '.join(PRECISION_FIGURES)}, or contrast.<figure> for the "
                          "difference to the baseline", key=fig)
        unit, scale = PRECISION_FIGURES[fig.removeprefix("contrast.")]
        value = amount(want, unit)
        if value is None:
            raise problem(f"expected a 95% CI half-width in {unit} such as "
                          f"{'0.5pp' if unit == 'pp' else '0.1 ' + unit}, {got(want)}", key=fig)
        out.append((fig, float(value) * scale,
                    f"{value} {unit}" if unit != "pp" else f"{value}pp"))
    return tuple(out)


def _needs(self) -> tuple[str, str] | None:
    """(key path, problem) of the first key that needs an analysis (or another key) the
    file does not ask for."""
    for fig, _, _ in self.precision:
        at, base = f"precision.{fig}", fig.removeprefix("contrast.")
        if fig != base and CONTRAST_ANALYSIS[base] not in self.analyses:
            return at, (f"the contrasts of {base} come with the {CONTRAST_ANALYSIS[base]} "
                        "analysis (add it to analyses)")
        if base == "trump_value" and "trump_value" not in self.analyses:
            return at, "needs the trump_value analysis (add it to analyses)"
        if base == "card_overfishing" and "cards" not in self.analyses:
            return at, "needs the cards analysis (add it to analyses)"
    if self.max_games is not None and not (self.precision or self.sprt):
        return "max_games", "only with precision or sprt (the run's cap on games per condition)"
    if self.cards is not None and "cards" not in self.analyses:
        return "cards", ("the cards analysis is not asked for: add cards to analyses (or leave "
                         "the cards key out)")
    if self.decisions is not None and "decisions" not in self.analyses:
        return "decisions", ("the decision settings are read only with the decisions analysis: "
                             "add decisions to analyses (or leave the decisions key out)")
    return None


def _ladder_keys(self, given: dict) -> tuple[str, str] | None:
    """(key path, problem) of a key a ladder file cannot have."""
    if self.ladder is None:
        return None
    for k in LADDER_EXCLUDES:
        if k in given:
            return k, ("cannot be combined with ladder: the ladder makes its own conditions, "
                       "one per pair of bots (lineup [A, A, B, B], seat-rotated)")
    if "rotate" in given and self.rotate is not True:
        return "rotate", ("a ladder is always seat-rotated: leave rotate out or set it to true, "
                          f"{got(self.rotate)}")
    if self.players != 4:
        return "players", ("a ladder is played by 4 players (each pair as [A, A, B, B]): leave "
                           f"players out or set it to 4, {got(self.players)}")
    return None


def _panel_keys(self, games_given: bool) -> tuple[str, str] | None:
    """(key path, problem) of a key the skill panel sets itself, or a level below a chunk."""
    if self.play_levels is None:
        return None
    if self.seats is not None:
        return "seats", (f"{PLAY_LEVELS} sets the seats of every condition (each level its own "
                         "lineup): give the seats in the levels, not here")
    given = [(f"sweep.{a.key}", a.key, "a sweep cannot vary them too")
             for a in self.sweep or ()] + [
        (f"{CONDITIONS}[{i}].{k}", k, "a condition cannot set them too")
        for i, e in enumerate(self.conditions.values if self.conditions else ()) for k in e]
    for at, k, what in given:
        if str(k).split(".")[0].split("[")[0] in ("seats", "games"):
            return at, f"{PLAY_LEVELS} sets the seats and games of every condition: {what}"
    for lv in self.play_levels["levels"]:
        if not games_given and (lv.games or self.games) < self.chunk:
            return (f"{lv.at}.games" if lv.games else "games",
                    f"level {lv.name!r} plays {lv.games or self.games:,} games, below the "
                    f"chunk size ({self.chunk:,}): every level plays at least one whole chunk "
                    "(give more games or a smaller chunk)")
    return None


def _grid_keys(self) -> tuple[str, str] | None:
    """(key path, problem) of a key set in two places of the grid."""
    swept = [(a.key, parse_key_path(a.key)) for a in self.sweep or ()]
    for i, e in enumerate(self.conditions.values if self.conditions else ()):
        for k in e:
            for k2, p2 in swept:
                if overlap(parse_key_path(k), p2):
                    return f"sweep.{k2}", f"also set by {CONDITIONS}[{i}].{k}: set it in one place"
    if isinstance(self.players, list):
        if any(k == "players" for k, _ in swept):
            return "sweep.players", ("players is already a list (a sweep over player counts): "
                                     "give the player counts in one place")
        for i, e in enumerate(self.conditions.values if self.conditions else ()):
            if "players" in e:
                return f"{CONDITIONS}[{i}].players", (
                    "players is already a list (a sweep over player counts): give the player "
                    "counts in one place")
    return None


class ExperimentFile(FileSchema):
    """The top level: the experiment-wide keys, in the order a reader meets their
    problems; the keys a sweep may vary (players, seats, deck, ...) are checked per
    condition (:class:`~fishing2sim.config.schema.ConditionSettings`, the deck's
    :class:`~fishing2sim.config.schema.DeckSpec`) once the grid has set them."""

    help: ClassVar[dict] = EXPERIMENT_HELP

    keys: ClassVar[tuple] = TOP_KEYS

    # the fields in the order their problems are reported
    name: Annotated[Any, AfterValidator(_name)]
    ruleset: Annotated[Any, AfterValidator(ruleset_name)] = "fishing2"
    games: Games = 100_000
    seed: Seed = 0
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
    # a player count (checked per condition, ConditionSettings) or a list of them
    players: Annotated[Any, AfterValidator(_players)] = 4
    first_leader: Any = None  # per condition (ConditionSettings)
    seats: Any = None  # per condition (the loader's seats: they need the strategies)
    rotate: Any = None  # per condition (ConditionSettings)
    deck: Any = None  # per condition (DeckSpec, then the deck's edits)
    play_levels: Annotated[Any, AfterValidator(_play_levels)] = None  # the skill panel
    sweep: Annotated[Any, AfterValidator(_sweep)] = None
    conditions: Annotated[Any, AfterValidator(_conditions)] = None
    precision: Annotated[Any, AfterValidator(_precision)] = ()
    max_games: Games | None = None
    tune: Any = None  # read by `fishing2sim tune` only (fishing2sim/tune/schema.py)

    @model_validator(mode="after")
    def _between_keys(self, info: ValidationInfo):
        for i, a in enumerate(self.analyses or ()):
            if a == LADDER and self.ladder is None:
                raise problem("the ladder analysis needs a ladder: key listing the bots to "
                              "rate, e.g. ladder: {bots: [random, greedy, weights]} "
                              "(docs/experiments.md, Ladder)", key=f"analyses[{i}]")
        if self.ladder is not None and LADDER not in self.analyses:
            raise problem("a file with ladder: rates its bots with the ladder analysis: add "
                          "ladder to analyses (or leave analyses out)", key="analyses")
        context = info.context or {}  # the keys given (a ladder's excluded keys), and
        # whether the command line set games (a panel's levels are then scaled)
        found = (_ladder_keys(self, context.get("given", {}))
                 or _panel_keys(self, context.get("games_given", False))
                 or _grid_keys(self) or _needs(self))
        if found is not None:
            raise problem(found[1], key=found[0])
        return self
