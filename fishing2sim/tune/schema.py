"""The schema of a tune file's ``tune:`` section (docs/tune.md): its space, objective,
budget, racing and sampler, checked by pydantic models like the experiment's
(fishing2sim/config/schema.py) and reported by the same formatter
(fishing2sim/config/messages.py): ``"<file>: tune.space.deck.remove_from_tier.5.int: empty
range: 3 > 1"``. What needs the experiment (the key paths apply, the figures are computed)
is checked by the tuner (fishing2sim/tune/tuner.py) on the file's experiment."""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from pydantic import AfterValidator, Field, PrivateAttr, model_validator
from pydantic_core import PydanticCustomError

from fishing2sim.config.messages import did_you_mean, got, problem
from fishing2sim.config.schema import Schema

__all__ = ["FIGURES", "Dim", "Figure", "Goal", "Target", "TuneSection", "parse_duration",
           "parse_figure", "parse_goal", "parse_target"]

TUNE_KEYS = ("space", "objective", "budget", "racing", "sampler")
SPACE_KINDS = ("int", "float", "floats", "choices")
SAMPLERS = ("auto", "tpe", "cmaes", "random")
DEFAULT_TRIALS = 50
DEFAULT_GAMES = 5000
DEFAULT_RACE_TOP = 3
#: the most objectives of a Pareto study (after a figure is taken once per condition it
#: matches): its front is drawn as every pair of them, 15 plots for 6
MAX_PARETO_OBJECTIVES = 6
# figure name -> (table, metric, row keys it needs, row keys it accepts, description)
FIGURES = {
    "overfishing": ("overfishing", "overfished_share", (), (),
                    "share of games ended by overfishing"),
    "overfishing_by_draw_1_card": ("overfishing", "overfished_by_draw_1_card_share", (), (),
                                   "share of games overfished during draw-1-card"),
    "mean_rounds": ("overfishing", "mean_rounds_played", (), (), "mean rounds played"),
    "win_share": ("strategies", "win_share", (), ("strategy", "seat"),
                  "win share of a strategy ([strategy=NAME]) or a seat ([seat=N])"),
    "mean_points": ("strategies", "mean_points", ("strategy",), ("strategy",),
                    "mean final points of a strategy"),
    "points_spread": ("strategies", "points_spread_mean", (), (),
                      "mean points spread (max - min) of a game"),
    "leader_win_share": ("strategies", "first_leader_win_share", (), (),
                         "win share of the round-1 leader"),
    "leader_edge": ("strategies", "first_leader_win_share", (), (),
                    "the round-1 leader's win share above the fair share 1/players, in "
                    "percentage points"),
    "completed": ("strategies", "completed_share", (), (), "share of games completed"),
    "tier_reached": ("depletion", "tier_reached_share", ("tier",), ("tier",),
                     "share of games that drew a card of ocean tier [tier=T]"),
    "ocean_empty": ("depletion", "ocean_empty_share", ("round",), ("round",),
                    "share of games whose ocean was empty by round [round=R]"),
}
# the figures that are shares (shown in percent, their differences in percentage points,
# as the run reports show them); leader_edge is in percentage points already
SHARE_FIGURES = ("overfishing", "overfishing_by_draw_1_card", "win_share", "leader_win_share",
                 "completed", "tier_reached", "ocean_empty")
ALIASES = {"mean_points_spread": "points_spread", "overfished_share": "overfishing",
           "first_leader_win_share": "leader_win_share"}
ROW_KEYS = ("strategy", "seat", "round", "tier")


def short(v) -> str:
    """A value as the tune's tables show it (a mapping, list or tuple as compact JSON)."""
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v, separators=(",", ":"), default=str)
    return str(v)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _At(Exception):
    """A problem at ``sub`` below the key being parsed (``.int[2]``)."""

    def __init__(self, sub: str, text: str):
        super().__init__(text)
        self.sub, self.text = sub, text


# ---- the space ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Dim:
    """One key path of the space."""

    key: str
    kind: str  # int, float, floats, choices
    lo: float | None = None
    hi: float | None = None
    bounds: tuple = ()  # floats: ((lo, hi), ...)
    choices: tuple = ()
    step: int = 1

    @property
    def names(self) -> list[str]:
        """The Optuna parameter names of this key path."""
        if self.kind == "floats":
            return [f"{self.key}[{i}]" for i in range(len(self.bounds))]
        return [self.key]

    @property
    def continuous(self) -> bool:
        return self.kind in ("float", "floats")

    def suggest(self, trial):
        if self.kind == "int":
            return trial.suggest_int(self.key, int(self.lo), int(self.hi), step=self.step)
        if self.kind == "float":
            return trial.suggest_float(self.key, self.lo, self.hi)
        if self.kind == "floats":
            return [trial.suggest_float(n, lo, hi) for n, (lo, hi) in zip(self.names,
                                                                           self.bounds)]
        labels = [short(c) for c in self.choices]
        return self.choices[labels.index(trial.suggest_categorical(self.key, labels))]

    def value_from_params(self, params: dict):
        if self.kind == "floats":
            return [float(params[n]) for n in self.names]
        v = params[self.key]
        if self.kind == "choices":
            return self.choices[[short(c) for c in self.choices].index(v)]
        return int(v) if self.kind == "int" else float(v)

    def params_of(self, value) -> dict:
        """The Optuna parameters that give ``value`` (for enqueueing a known point)."""
        if self.kind == "floats":
            return {n: float(x) for n, x in zip(self.names, value)}
        if self.kind == "choices":
            return {self.key: short(value)}
        return {self.key: value}

    def values(self, limit: int = 64) -> list:
        """Representative values (all of a small discrete range) for the feasibility check."""
        if self.kind == "int":
            vals = list(range(int(self.lo), int(self.hi) + 1, self.step))
            if len(vals) > limit:
                idx = np.linspace(0, len(vals) - 1, limit).round().astype(int)
                vals = [vals[i] for i in sorted(set(idx))]
            return vals
        if self.kind == "choices":
            return list(self.choices)
        if self.kind == "float":
            return [self.lo, (self.lo + self.hi) / 2, self.hi]
        return [[lo for lo, _ in self.bounds], [(lo + hi) / 2 for lo, hi in self.bounds],
                [hi for _, hi in self.bounds]]


def parse_dim(key: str, spec) -> Dim:
    """One key path's range: {int: [lo, hi(, step)]}, {float: [lo, hi]},
    {floats: [[lo, hi], ...]} or {choices: [...]} (raises _At)."""
    if not isinstance(spec, dict) or len(spec) != 1:
        raise _At("", "expected one of {int: [lo, hi]}, {float: [lo, hi]}, "
                  f"{{floats: [[lo, hi], ...]}}, {{choices: [...]}}, {got(spec)}")
    (kind, arg), = spec.items()
    if kind not in SPACE_KINDS:
        raise _At(f".{kind}", f"unknown kind of range{did_you_mean(kind, SPACE_KINDS)}; "
                  f"known: {', '.join(SPACE_KINDS)}")
    at = f".{kind}"
    if kind == "choices":
        if not isinstance(arg, list) or not arg:
            raise _At(at, f"empty range: expected a non-empty list of values, {got(arg)}")
        labels = [short(c) for c in arg]
        for i, lab in enumerate(labels):
            if lab in labels[:i]:
                raise _At(f"{at}[{i}]", f"value {lab} given twice")
        return Dim(key, kind, choices=tuple(arg))
    if kind == "floats":
        if not isinstance(arg, list) or not arg:
            raise _At(at, "empty range: expected a non-empty list of [lo, hi] pairs, "
                      f"{got(arg)}")
        bounds = tuple(_range(f"{at}[{i}]", pair, float) for i, pair in enumerate(arg))
        return Dim(key, kind, bounds=bounds)
    if kind == "int":
        step = 1
        if isinstance(arg, list) and len(arg) == 3:
            step = arg[2]
            if not _whole(step) or step < 1:
                raise _At(f"{at}[2]", f"the step must be a whole number >= 1, {got(step)}")
            arg = arg[:2]
        lo, hi = _range(at, arg, int)
        return Dim(key, kind, lo=lo, hi=hi, step=step)
    lo, hi = _range(at, arg, float)
    return Dim(key, kind, lo=lo, hi=hi)


def _range(at, pair, typ):
    ok = isinstance(pair, list) and len(pair) == 2 and all(
        (_whole(x) if typ is int else _number(x)) for x in pair)
    if not ok:
        what = "whole numbers" if typ is int else "numbers"
        raise _At(at, f"expected [lo, hi] ({what}), {got(pair)}")
    lo, hi = pair
    if lo > hi if typ is int else lo >= hi:
        raise _At(at, f"empty range: {lo} {'>' if lo > hi else '='} {hi} "
                  "(the range is [lo, hi] with lo < hi)")
    return typ(lo), typ(hi)


@dataclass(frozen=True)
class Figure:
    text: str  # as written
    name: str  # canonical name in FIGURES
    where: dict  # selector: key -> text value (row keys and condition labels)

    @property
    def table(self) -> str:
        return FIGURES[self.name][0]


@dataclass(frozen=True)
class Target:
    figure: Figure
    op: str  # "<=", ">=", "in"
    lo: float | None
    hi: float | None
    text: str

    @property
    def scale(self) -> float:
        if self.op == "in":
            return self.hi - self.lo
        b = self.hi if self.op == "<=" else self.lo
        return abs(b) if b else 1.0

    def violation(self, x: float) -> float:
        if self.op == "<=":
            return max(0.0, x - self.hi)
        if self.op == ">=":
            return max(0.0, self.lo - x)
        return max(0.0, self.lo - x, x - self.hi)


_FIG_RE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*")


def parse_figure(text) -> Figure:
    """A figure such as ``win_share[strategy=greedy]`` (raises problem)."""
    if not isinstance(text, str):
        raise problem(f"expected a figure such as overfishing[players=5], got {text!r}")
    m = _FIG_RE.fullmatch(text)
    if not m:
        raise problem(f"{text!r} is not a figure (a name, optionally with "
                        "[key=value, ...], e.g. win_share[strategy=greedy])")
    name = ALIASES.get(m.group(1), m.group(1))
    if name not in FIGURES:
        raise problem(f"unknown figure {m.group(1)!r}"
                        f"{did_you_mean(m.group(1), list(FIGURES) + list(ALIASES))}; known: "
                        f"{', '.join(FIGURES)}")
    where = {}
    if m.group(2) is not None:
        for part in m.group(2).split(","):
            if "=" not in part:
                raise problem(f"{text!r}: expected key=value inside [...], got "
                                f"{part.strip()!r}")
            k, v = (s.strip() for s in part.split("=", 1))
            if not k or not v:
                raise problem(f"{text!r}: expected key=value inside [...], got "
                                f"{part.strip()!r}")
            where[k] = v
    _, _, needs, accepts, _ = FIGURES[name]
    for k in where:
        if k in ROW_KEYS and k not in accepts:
            raise problem(f"{text!r}: {name} has no [{k}=...]"
                            + (f" (it takes {', '.join(accepts)})" if accepts else ""))
    for k in needs:
        if k not in where:
            raise problem(f"{text!r}: {name} needs [{k}=...]")
    if name == "win_share" and not ({"strategy", "seat"} & set(where)):
        raise problem(f"{text!r}: win_share needs [strategy=NAME] or [seat=N]")
    if {"strategy", "seat"} <= set(where):
        raise problem(f"{text!r}: give [strategy=...] or [seat=...], not both")
    return Figure(text.strip(), name, where)


_TARGET_RE = re.compile(r"(.+?)\s*(<=|>=|\bin\b)\s*(.+)")


def parse_target(text) -> Target:
    """A target such as ``overfishing[players=5] <= 0.15`` (raises problem)."""
    if not isinstance(text, str):
        raise problem(f"expected a target such as 'overfishing[players=5] <= 0.15', "
                        f"got {text!r}")
    m = _TARGET_RE.fullmatch(text.strip())
    if not m:
        raise problem(f"{text!r}: expected FIGURE <= X, FIGURE >= X or "
                        "FIGURE in [LO, HI]")
    fig = parse_figure(m.group(1))
    op, rest = m.group(2), m.group(3).strip()
    try:
        val = json.loads(rest)
    except ValueError:
        val = None
    if op == "in":
        if not (isinstance(val, list) and len(val) == 2 and all(_number(x) for x in val)):
            raise problem(f"{text!r}: expected 'in [LO, HI]' with two numbers")
        lo, hi = float(val[0]), float(val[1])
        if lo >= hi:
            raise problem(f"{text!r}: empty range: {val[0]} >= {val[1]}")
        return Target(fig, op, lo, hi, text.strip())
    if not _number(val):
        raise problem(f"{text!r}: expected a number after {op}")
    return Target(fig, op, float(val) if op == ">=" else None,
                  float(val) if op == "<=" else None, text.strip())


DECK_CHANGES = "deck_changes"


@dataclass(frozen=True)
class Goal:
    """One objective of a Pareto study: a figure minimised or maximised, a target's
    violation minimised (0 once met), or the deck changes minimised (``figure`` None)."""

    text: str
    sense: str  # "minimize" or "maximize"
    figure: Figure | None  # None: deck_changes
    target: Target | None = None


def parse_goal(entry) -> Goal:
    """A ``pareto:`` entry: ``FIGURE`` (minimised), ``{maximize: FIGURE}``, ``{minimize:
    FIGURE}``, a target ``FIGURE <= X`` (its violation minimised) or ``deck_changes``
    (raises problem)."""
    sense = "minimize"
    if isinstance(entry, dict):
        if len(entry) != 1 or next(iter(entry)) not in ("maximize", "minimize"):
            raise problem("expected a figure, a target, deck_changes, {maximize: FIGURE} or "
                          f"{{minimize: FIGURE}}, {got(entry)}")
        (sense, entry), = entry.items()
    if not isinstance(entry, str):
        raise problem(f"expected a figure such as overfishing[players=5], {got(entry)}")
    text = entry.strip()
    if text == DECK_CHANGES:
        if sense == "maximize":
            raise problem("deck_changes can only be minimised (fewer changes to the deck)")
        return Goal(text, sense, None)
    if sense == "minimize" and _TARGET_RE.fullmatch(text):
        t = parse_target(text)
        return Goal(text, "minimize", t.figure, t)
    return Goal(text, sense, parse_figure(text))


def parse_duration(v) -> float | None:
    """``90``, ``"90s"``, ``"25m"``, ``"1.5h"`` -> seconds (None: no limit)."""
    if v is None:
        return None
    if _number(v) and v > 0:
        return float(v)
    if isinstance(v, str):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", v)
        if m and float(m.group(1)) > 0:
            return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]
    raise problem(f"expected a time such as 90, 90s, 25m or 1.5h, {got(v)}")


# ---- the models ---------------------------------------------------------------------------
def _space(space):
    if not isinstance(space, dict) or not space:
        raise problem("expected a mapping key path -> range, e.g. "
                      f"{{deck.remove_from_tier.5: {{int: [0, 4]}}}}, {got(space)}")
    dims = []
    for key, spec in space.items():
        if not isinstance(key, str):
            raise problem("a key path such as deck.remove_from_tier.5", key=key)
        try:
            dims.append(parse_dim(key, spec))
        except _At as exc:
            raise problem(exc.text, key=f"{key}{exc.sub}") from None
    for d in dims:
        if d.key == "games":
            raise problem("not searchable: every trial plays tune.budget.games games per "
                          "condition (a search over the number of games would favour the "
                          "noisiest trials)", key="games")
    return dims


def _weight(w):
    if not _number(w) or w < 0:
        raise problem(f"expected a weight >= 0, {got(w)}")
    return float(w)


class Cost(Schema):
    unknown_word: ClassVar[str] = "cost"
    deck_changes: Annotated[Any, AfterValidator(_weight)] = 0.0


class Objective(Schema):
    """One of maximize, minimize (a figure), targets (a list) or pareto (a list of
    objectives kept apart), and a cost."""

    maximize: Any = None
    minimize: Any = None
    targets: Any = None
    pareto: Any = None
    cost: Cost | None = None
    _mode: str = PrivateAttr("")
    _figure: Any = PrivateAttr(None)
    _targets: list = PrivateAttr(default_factory=list)
    _goals: list = PrivateAttr(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _not_empty(cls, data):
        if data == {}:
            raise problem(f"expected a mapping with maximize, minimize or targets (and "
                          f"optionally cost), or pareto, {got(data)}")
        return data

    @model_validator(mode="after")
    def _one(self):
        if "pareto" in self.model_fields_set:
            return self._pareto()
        modes = [k for k in ("maximize", "minimize", "targets") if k in self.model_fields_set]
        if len(modes) != 1:
            raise problem("give exactly one of maximize, minimize, targets (got "
                          f"{', '.join(modes) or 'none'})")
        self._mode = modes[0]
        if self._mode != "targets":
            self._figure = _parsed(parse_figure, getattr(self, self._mode), self._mode)
            self._targets = []
            return self
        tl = [self.targets] if isinstance(self.targets, str) else self.targets
        if not isinstance(tl, list) or not tl:
            raise problem("expected a non-empty list such as ['overfishing[players=5] <= "
                          f"0.15'], {got(tl)}", key="targets")
        self._figure = None
        self._targets = [_parsed(parse_target, x, "targets", i) for i, x in enumerate(tl)]
        return self

    def _pareto(self):
        others = [k for k in ("maximize", "minimize", "targets", "cost")
                  if k in self.model_fields_set]
        if others:
            raise problem(f"pareto keeps its objectives apart; it does not mix with "
                          f"{' or '.join(others)} (the weighted form folds the targets and "
                          "the cost into one loss): give pareto alone, with deck_changes as "
                          "one of its objectives for the cost", key="pareto")
        gl = self.pareto
        if not isinstance(gl, list):
            raise problem("expected a list of at least 2 objectives such as "
                          f"[overfishing[players=5], leader_edge, deck_changes], {got(gl)}",
                          key="pareto")
        if len(gl) < 2:
            raise problem(f"a Pareto study needs at least 2 objectives, got {len(gl)}: with "
                          "one, use minimize or maximize", key="pareto")
        if len(gl) > MAX_PARETO_OBJECTIVES:
            raise problem(f"a Pareto study takes at most {MAX_PARETO_OBJECTIVES} objectives, "
                          f"got {len(gl):,}: its front is every trade-off between them, "
                          "drawn pair by pair; keep the objectives that matter or fold "
                          "some into targets", key="pareto")
        self._mode = "pareto"
        self._goals = [_parsed(parse_goal, x, "pareto", i) for i, x in enumerate(gl)]
        for i, g in enumerate(self._goals):
            if g.text in [h.text for h in self._goals[:i]]:
                raise problem(f"{g.text!r} given twice", key="pareto", index=i)
        return self

    @property
    def mode(self) -> str:
        return self._mode


def _parsed(parse, text, key, index=None):
    try:
        return parse(text)
    except PydanticCustomError as exc:
        raise problem(exc.context["text"], key=key, index=index) from None


def _time(v):
    return parse_duration(v)


class Budget(Schema):
    trials: Annotated[int, Field(ge=1)] = DEFAULT_TRIALS
    games: Annotated[int, Field(ge=1)] = DEFAULT_GAMES
    time: Annotated[Any, AfterValidator(_time)] = None


class Racing(Schema):
    top: Annotated[int, Field(ge=0)] = DEFAULT_RACE_TOP
    games: Annotated[int, Field(ge=1)] = None  # not given: 5 x the budget's games
    # a skill panel the raced trials re-run on (tune/levels_race.py checks it)
    play_levels: Any = None


def _sampler(v):
    if v not in SAMPLERS:
        raise problem(f"unknown sampler {v!r}{did_you_mean(v, SAMPLERS)}; known: "
                      f"{', '.join(SAMPLERS)}")
    return v


class TuneSection(Schema):
    """The ``tune:`` section (validated with the command line's --trials, --games and
    --time in its budget)."""

    help: ClassVar[dict] = {
        "": f"a mapping with keys {', '.join(TUNE_KEYS)}",
        "objective": "a mapping with maximize, minimize or targets (and optionally cost), "
                     "or pareto",
        "objective.cost": "{deck_changes: WEIGHT}",
        "budget": "a mapping with trials, games, time",
        "budget.trials": "a whole number >= 1",
        "budget.games": "a whole number >= 1",
        "racing": "a mapping with top, games, play_levels",
        "racing.top": "a whole number >= 0",
        "racing.games": "a whole number >= 1",
    }

    space: Annotated[Any, AfterValidator(_space), Field(validate_default=True)] = None
    objective: Objective | None = None
    budget: Budget | None = None
    racing: Racing | None = None
    sampler: Annotated[Any, AfterValidator(_sampler)] = "auto"

    @model_validator(mode="after")
    def _checks(self):
        if self.objective is None:
            raise problem("expected a mapping with maximize, minimize or targets (and "
                          "optionally cost), or pareto, got None", key="objective")
        self.budget = self.budget or Budget()
        self.racing = self.racing or Racing()
        if self.racing.games is None:
            self.racing.games = 5 * self.budget.games
        dims = self.space
        n_cont = sum(len(d.names) for d in dims if d.continuous)
        if self.sampler == "auto":
            self.sampler = "cmaes" if all(d.continuous for d in dims) and n_cont >= 2 \
                and self.objective.mode != "pareto" \
                else "tpe"
        if self.sampler == "cmaes" and self.objective.mode == "pareto":
            raise problem("cmaes optimises one objective; a Pareto study uses tpe or random",
                          key="sampler")
        if self.sampler == "cmaes" and not all(d.kind in ("int", "float", "floats")
                                               for d in dims):
            raise problem("cmaes searches numeric ranges only; the space has choices: use "
                          "tpe", key="sampler")
        return self
