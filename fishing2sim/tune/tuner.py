"""``fishing2sim tune FILE.yaml``: search deck edits and bot parameters toward a design target.

An experiment file with a ``tune:`` section names a search space (sweepable key paths with
a range or a list of choices), an objective (a figure to maximise or minimise, or targets
on figures turned into one loss, plus an optional cost per deck change) and a budget. Every
trial is the file with the trial's values applied at their key paths, run by the
experiment runner (``run(..., write=False)``) with its games seeded from (seed, trial
number); Optuna proposes the values (TPE for integer / mixed spaces, CMA-ES for continuous
vectors) and keeps the study in ``<output>/<name>/study.db`` (SQLite), so ``--resume``
continues it and optuna-dashboard opens it. At the end the best few trials are re-run with
a fresh seed and more games (racing) next to the untuned file (the baseline), and the
report is written atomically (a temporary folder, then renamed).

    from fishing2sim.tune.tuner import load_tune, tune
    spec = load_tune("experiments/tune_deck.yaml")
    result = tune(spec, workers=2)

Every problem in the file is ONE :class:`TuneError` line ``"<file>: <key path>: <problem>"``.
The keys are documented in ``docs/tune.md``.
"""
from __future__ import annotations

import copy
import difflib
import hashlib
import json
import math
import os
import re
import shutil
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fishing2sim.config.experiment import (
    MAX_GAMES,
    MAX_GAMES_HARD,
    MAX_SEED,
    ExperimentError,
    load_experiment_data,
    read_experiment_file,
    set_key_path,
)

__all__ = ["TuneError", "TuneSpec", "TuneResult", "load_tune", "tune", "FIGURES"]

TUNE_KEYS = ("space", "objective", "budget", "racing", "sampler")
SPACE_KINDS = ("int", "float", "floats", "choices")
OBJECTIVE_KEYS = ("maximize", "minimize", "targets", "cost")
COST_KEYS = ("deck_changes",)
BUDGET_KEYS = ("trials", "games", "time")
RACING_KEYS = ("top", "games")
SAMPLERS = ("auto", "tpe", "cmaes", "random")
DEFAULT_TRIALS = 50
DEFAULT_GAMES = 5000
DEFAULT_RACE_TOP = 3
TRIAL_SEED_OFFSET = 2_000_000
RACE_SEED_OFFSET = 3_000_000
SAMPLER_SEED_OFFSET = 4_000_000
CONFIRM_SEED_OFFSET = 5_000_000  # the winner and the baseline, on a seed not used to pick
STUDY_FILE = "study.db"
Z = 1.959963984540054
_MC_DRAWS = 4000

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
ANALYSIS_OF_TABLE = {"overfishing": "overfishing", "strategies": "strategies",
                     "depletion": "depletion"}


class TuneError(ExperimentError):
    """A problem in a tune file: ``"<file>: <key path>: <problem>"``."""


# ---- helpers ------------------------------------------------------------------------------
def _did_you_mean(word, choices) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _short(v) -> str:
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v, separators=(",", ":"), default=str)
    return str(v)


def derive_seed(seed: int, index: int) -> int:
    """game_seed(seed, index) kept to 63 bits (the runner's condition seeds do the same)."""
    from fishing2sim.engine.rng import game_seed

    return int(game_seed(int(seed), int(index))) & MAX_SEED



def _section(t: dict, name: str, keys, given: str) -> dict:
    """The mapping ``tune.<name>`` (empty if absent), its keys checked against ``keys``."""
    sec = t.get(name) or {}
    if not isinstance(sec, dict):
        raise TuneError(f"{given}: tune.{name}: expected a mapping with {', '.join(keys)}"
                        f", got {sec!r}")
    for k in sec:
        if k not in keys:
            raise TuneError(f"{given}: tune.{name}.{k}: unknown key"
                            f"{_did_you_mean(k, keys)}; known: {', '.join(keys)}")
    return sec

def parse_duration(v, where: str) -> float | None:
    """``90``, ``"90s"``, ``"25m"``, ``"1.5h"`` -> seconds (None: no limit)."""
    if v is None:
        return None
    if _number(v) and v > 0:
        return float(v)
    if isinstance(v, str):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", v)
        if m and float(m.group(1)) > 0:
            return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]
    raise TuneError(f"{where}: expected a time such as 90, 90s, 25m or 1.5h, got {v!r}")


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
        labels = [_short(c) for c in self.choices]
        return self.choices[labels.index(trial.suggest_categorical(self.key, labels))]

    def value_from_params(self, params: dict):
        if self.kind == "floats":
            return [float(params[n]) for n in self.names]
        v = params[self.key]
        if self.kind == "choices":
            return self.choices[[_short(c) for c in self.choices].index(v)]
        return int(v) if self.kind == "int" else float(v)

    def params_of(self, value) -> dict:
        """The Optuna parameters that give ``value`` (for enqueueing a known point)."""
        if self.kind == "floats":
            return {n: float(x) for n, x in zip(self.names, value)}
        if self.kind == "choices":
            return {self.key: _short(value)}
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


def _parse_dim(where: str, key: str, spec) -> Dim:
    at = f"{where}.{key}"
    if not isinstance(spec, dict) or len(spec) != 1:
        raise TuneError(f"{at}: expected one of {{int: [lo, hi]}}, {{float: [lo, hi]}}, "
                        f"{{floats: [[lo, hi], ...]}}, {{choices: [...]}}, got {spec!r}")
    (kind, arg), = spec.items()
    if kind not in SPACE_KINDS:
        raise TuneError(f"{at}.{kind}: unknown kind of range{_did_you_mean(kind, SPACE_KINDS)}"
                        f"; known: {', '.join(SPACE_KINDS)}")
    at = f"{at}.{kind}"
    if kind == "choices":
        if not isinstance(arg, list) or not arg:
            raise TuneError(f"{at}: empty range: expected a non-empty list of values, "
                            f"got {arg!r}")
        labels = [_short(c) for c in arg]
        for i, lab in enumerate(labels):
            if lab in labels[:i]:
                raise TuneError(f"{at}[{i}]: value {lab} given twice")
        return Dim(key, kind, choices=tuple(arg))
    if kind == "floats":
        if not isinstance(arg, list) or not arg:
            raise TuneError(f"{at}: empty range: expected a non-empty list of [lo, hi] pairs, "
                            f"got {arg!r}")
        bounds = []
        for i, pair in enumerate(arg):
            lo, hi = _range(f"{at}[{i}]", pair, float)
            bounds.append((lo, hi))
        return Dim(key, kind, bounds=tuple(bounds))
    if kind == "int":
        step = 1
        if isinstance(arg, list) and len(arg) == 3:
            step = arg[2]
            if not _whole(step) or step < 1:
                raise TuneError(f"{at}[2]: the step must be a whole number >= 1, got {step!r}")
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
        raise TuneError(f"{at}: expected [lo, hi] ({what}), got {pair!r}")
    lo, hi = pair
    if lo > hi if typ is int else lo >= hi:
        raise TuneError(f"{at}: empty range: {lo} {'>' if lo > hi else '='} {hi} "
                        "(the range is [lo, hi] with lo < hi)")
    return typ(lo), typ(hi)


# ---- figures, targets, objective ----------------------------------------------------------
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


def parse_figure(at: str, text) -> Figure:
    if not isinstance(text, str):
        raise TuneError(f"{at}: expected a figure such as overfishing[players=5], got {text!r}")
    m = _FIG_RE.fullmatch(text)
    if not m:
        raise TuneError(f"{at}: {text!r} is not a figure (a name, optionally with "
                        "[key=value, ...], e.g. win_share[strategy=greedy])")
    name = ALIASES.get(m.group(1), m.group(1))
    if name not in FIGURES:
        raise TuneError(f"{at}: unknown figure {m.group(1)!r}"
                        f"{_did_you_mean(m.group(1), list(FIGURES) + list(ALIASES))}; known: "
                        f"{', '.join(FIGURES)}")
    where = {}
    if m.group(2) is not None:
        for part in m.group(2).split(","):
            if "=" not in part:
                raise TuneError(f"{at}: {text!r}: expected key=value inside [...], got "
                                f"{part.strip()!r}")
            k, v = (s.strip() for s in part.split("=", 1))
            if not k or not v:
                raise TuneError(f"{at}: {text!r}: expected key=value inside [...], got "
                                f"{part.strip()!r}")
            where[k] = v
    _, _, needs, accepts, _ = FIGURES[name]
    for k in where:
        if k in ROW_KEYS and k not in accepts:
            raise TuneError(f"{at}: {text!r}: {name} has no [{k}=...]"
                            + (f" (it takes {', '.join(accepts)})" if accepts else ""))
    for k in needs:
        if k not in where:
            raise TuneError(f"{at}: {text!r}: {name} needs [{k}=...]")
    if name == "win_share" and not ({"strategy", "seat"} & set(where)):
        raise TuneError(f"{at}: {text!r}: win_share needs [strategy=NAME] or [seat=N]")
    if {"strategy", "seat"} <= set(where):
        raise TuneError(f"{at}: {text!r}: give [strategy=...] or [seat=...], not both")
    return Figure(text.strip(), name, where)


_TARGET_RE = re.compile(r"(.+?)\s*(<=|>=|\bin\b)\s*(.+)")


def parse_target(at: str, text) -> Target:
    if not isinstance(text, str):
        raise TuneError(f"{at}: expected a target such as 'overfishing[players=5] <= 0.15', "
                        f"got {text!r}")
    m = _TARGET_RE.fullmatch(text.strip())
    if not m:
        raise TuneError(f"{at}: {text!r}: expected FIGURE <= X, FIGURE >= X or "
                        "FIGURE in [LO, HI]")
    fig = parse_figure(at, m.group(1))
    op, rest = m.group(2), m.group(3).strip()
    try:
        val = json.loads(rest)
    except ValueError:
        val = None
    if op == "in":
        if not (isinstance(val, list) and len(val) == 2 and all(_number(x) for x in val)):
            raise TuneError(f"{at}: {text!r}: expected 'in [LO, HI]' with two numbers")
        lo, hi = float(val[0]), float(val[1])
        if lo >= hi:
            raise TuneError(f"{at}: {text!r}: empty range: {val[0]} >= {val[1]}")
        return Target(fig, op, lo, hi, text.strip())
    if not _number(val):
        raise TuneError(f"{at}: {text!r}: expected a number after {op}")
    return Target(fig, op, float(val) if op == ">=" else None,
                  float(val) if op == "<=" else None, text.strip())


# ---- the spec -----------------------------------------------------------------------------
@dataclass
class TuneSpec:
    path: Path
    given: str
    name: str
    raw: dict  # the file without its tune section
    seed: int
    dims: list
    mode: str  # "maximize", "minimize" or "targets"
    figure: Figure | None
    targets: list
    cost: float  # per deck change
    trials: int
    games: int
    time_limit: float | None
    race_top: int
    race_games: int
    sampler: str  # tpe, cmaes or random (auto resolved)
    output_dir: Path
    baseline: dict  # key path -> the file's own value (None if the file has none)
    config_hash: str
    tune_raw: dict
    expansions: dict = field(default_factory=dict)  # figure text -> [condition index]
    labels: dict = field(default_factory=dict)  # condition index -> label text
    players: dict = field(default_factory=dict)  # condition index -> players
    param_labels: dict = field(default_factory=dict)  # Optuna name -> "name (PARAM_NAMES)"
    yes: bool = False  # above the size limits of a run (--yes)

    @property
    def direction(self) -> str:
        return "maximize" if self.mode == "maximize" else "minimize"

    @property
    def scratch(self) -> Path:
        return self.output_dir.parent / f".{self.name}.tune-scratch"

    @property
    def study_path(self) -> Path:
        return self.output_dir / STUDY_FILE


def _get_path(cfg, key):
    """The value at a key path in the file's mapping, or None."""
    from fishing2sim.config.experiment import _parse_key_path

    node = cfg
    for part in _parse_key_path(key):
        if isinstance(node, list):
            i = int(part) if (isinstance(part, int) or str(part).isdigit()) else None
            if i is None or not 0 <= i < len(node):
                return None
            node = node[i]
        elif isinstance(node, dict):
            if part in node:
                node = node[part]
            elif isinstance(part, str) and part.isdigit() and int(part) in node:
                node = node[int(part)]
            elif isinstance(part, int) and str(part) in node:
                node = node[str(part)]
            else:
                return None
        else:
            return None
    return copy.deepcopy(node)


def load_tune(path, overrides: dict | None = None, yes: bool = False) -> TuneSpec:
    """Read and validate a tune file (overrides: workers/output/trials/time/games). A budget
    above the size limits of a run (MAX_GAMES games in all) needs ``yes``."""
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    given = str(path)
    try:
        data = read_experiment_file(path)
    except ExperimentError as exc:
        raise TuneError(str(exc)) from None
    if "tune" not in data:
        raise TuneError(f"{given}: tune: missing: a tune file has a tune: section (space, "
                        "objective, budget); see docs/tune.md")
    t = data.pop("tune")
    if not isinstance(t, dict):
        raise TuneError(f"{given}: tune: expected a mapping with keys {', '.join(TUNE_KEYS)}, "
                        f"got {t!r}")
    for k in t:
        if k not in TUNE_KEYS:
            raise TuneError(f"{given}: tune.{k}: unknown key{_did_you_mean(k, TUNE_KEYS)}; "
                            f"known: {', '.join(TUNE_KEYS)}")
    if "output" in overrides:
        data["output"] = overrides["output"]
    if "workers" in overrides:
        data["workers"] = overrides["workers"]
    # ---- space
    space = t.get("space")
    if not isinstance(space, dict) or not space:
        raise TuneError(f"{given}: tune.space: expected a mapping key path -> range, e.g. "
                        f"{{deck.remove_from_tier.5: {{int: [0, 4]}}}}, got {space!r}")
    dims = []
    for key, spec in space.items():
        if not isinstance(key, str):
            raise TuneError(f"{given}: tune.space.{key}: a key path such as "
                            "deck.remove_from_tier.5")
        dims.append(_parse_dim(f"{given}: tune.space", key, spec))
    own_sweep = data.get("sweep") or {}
    for d in dims:
        if d.key == "games":
            raise TuneError(f"{given}: tune.space.games: not searchable: every trial plays "
                            "tune.budget.games games per condition (a search over the number "
                            "of games would favour the noisiest trials)")
    if isinstance(own_sweep, dict) and "games" in own_sweep:
        raise TuneError(f"{given}: sweep.games: a tune file's trials play tune.budget.games "
                        "games per condition; sweep games in an experiment without tune:")
    if isinstance(own_sweep, dict):
        for d in dims:
            if d.key in own_sweep:
                raise TuneError(f"{given}: tune.space.{d.key}: also swept (sweep.{d.key}): "
                                "give it in one place")
    # ---- objective
    obj = t.get("objective")
    if not isinstance(obj, dict) or not obj:
        raise TuneError(f"{given}: tune.objective: expected a mapping with maximize, minimize "
                        f"or targets (and optionally cost), got {obj!r}")
    for k in obj:
        if k not in OBJECTIVE_KEYS:
            raise TuneError(f"{given}: tune.objective.{k}: unknown key"
                            f"{_did_you_mean(k, OBJECTIVE_KEYS)}; known: "
                            f"{', '.join(OBJECTIVE_KEYS)}")
    modes = [k for k in ("maximize", "minimize", "targets") if k in obj]
    if len(modes) != 1:
        raise TuneError(f"{given}: tune.objective: give exactly one of maximize, minimize, "
                        f"targets (got {', '.join(modes) or 'none'})")
    mode = modes[0]
    figure, targets = None, []
    if mode == "targets":
        tl = obj["targets"]
        if isinstance(tl, str):
            tl = [tl]
        if not isinstance(tl, list) or not tl:
            raise TuneError(f"{given}: tune.objective.targets: expected a non-empty list such "
                            f"as ['overfishing[players=5] <= 0.15'], got {tl!r}")
        targets = [parse_target(f"{given}: tune.objective.targets[{i}]", x)
                   for i, x in enumerate(tl)]
    else:
        figure = parse_figure(f"{given}: tune.objective.{mode}", obj[mode])
    cost = 0.0
    c = obj.get("cost")
    if c is not None:
        if not isinstance(c, dict):
            raise TuneError(f"{given}: tune.objective.cost: expected {{deck_changes: WEIGHT}}, "
                            f"got {c!r}")
        for k in c:
            if k not in COST_KEYS:
                raise TuneError(f"{given}: tune.objective.cost.{k}: unknown cost"
                                f"{_did_you_mean(k, COST_KEYS)}; known: {', '.join(COST_KEYS)}")
        w = c.get("deck_changes", 0)
        if not _number(w) or w < 0:
            raise TuneError(f"{given}: tune.objective.cost.deck_changes: expected a weight "
                            f">= 0, got {w!r}")
        cost = float(w)
    # ---- budget
    b = _section(t, "budget", BUDGET_KEYS, given)
    trials = overrides.get("trials", b.get("trials", DEFAULT_TRIALS))
    tkey = "--trials" if "trials" in overrides else "tune.budget.trials"
    if not _whole(trials) or trials < 1:
        raise TuneError(f"{given}: {tkey}: expected a whole number >= 1, got {trials!r}")
    games = overrides.get("games", b.get("games", DEFAULT_GAMES))
    gkey = "--games" if "games" in overrides else "tune.budget.games"
    if not _whole(games) or games < 1:
        raise TuneError(f"{given}: {gkey}: expected a whole number >= 1, got {games!r}")
    tl_key = "--time" if "time" in overrides else "tune.budget.time"
    time_limit = parse_duration(overrides.get("time", b.get("time")), f"{given}: {tl_key}")
    # ---- racing
    r = _section(t, "racing", RACING_KEYS, given)
    top = r.get("top", DEFAULT_RACE_TOP)
    if not _whole(top) or top < 0:
        raise TuneError(f"{given}: tune.racing.top: expected a whole number >= 0, got {top!r}")
    race_games = r.get("games", 5 * games)
    if not _whole(race_games) or race_games < 1:
        raise TuneError(f"{given}: tune.racing.games: expected a whole number >= 1, "
                        f"got {race_games!r}")
    # ---- sampler
    sampler = t.get("sampler", "auto")
    if sampler not in SAMPLERS:
        raise TuneError(f"{given}: tune.sampler: unknown sampler {sampler!r}"
                        f"{_did_you_mean(sampler, SAMPLERS)}; known: {', '.join(SAMPLERS)}")
    n_cont = sum(len(d.names) for d in dims if d.continuous)
    if sampler == "auto":
        sampler = "cmaes" if all(d.continuous for d in dims) and n_cont >= 2 else "tpe"
    if sampler == "cmaes" and not all(d.kind in ("int", "float", "floats") for d in dims):
        raise TuneError(f"{given}: tune.sampler: cmaes searches numeric ranges only; the space "
                        "has choices: use tpe")
    # ---- the experiment itself
    try:
        base = load_experiment_data(data, path, yes=yes)
    except ExperimentError as exc:
        raise TuneError(str(exc)) from None
    seed = base.seed
    name = base.name
    baseline = {d.key: _get_path(data, d.key) for d in dims}
    tune_raw = copy.deepcopy(t)
    # what --resume compares: not the budget or the racing (a tune may be continued with
    # more trials or time)
    hashed = {k: tune_raw.get(k) for k in ("space", "objective", "sampler")}
    h = hashlib.sha256(json.dumps({"experiment": base.config_hash, "tune": hashed,
                                   "games_per_trial": games}, sort_keys=True, default=str)
                       .encode()).hexdigest()
    spec = TuneSpec(path=Path(path).resolve(), given=given, name=name, raw=data, seed=seed,
                    dims=dims, mode=mode, figure=figure, targets=targets, cost=cost,
                    trials=int(trials), games=int(games), time_limit=time_limit,
                    race_top=int(top), race_games=int(race_games), sampler=sampler,
                    output_dir=base.output_dir, baseline=baseline, config_hash=h,
                    tune_raw=tune_raw, yes=bool(yes))
    _check_budget(spec, _check_space(spec), overrides)
    return spec


def _check_budget(spec: TuneSpec, exp, overrides: dict) -> None:
    """The size limits of a run (experiment.py: MAX_GAMES games in all, above it only with
    --yes; MAX_GAMES_HARD per run always), for the whole tune: its trials and its racing."""
    n = len(exp.conditions)
    conds = f"{n:,} condition{'' if n == 1 else 's'}"
    for key, games in (("--games" if "games" in overrides else "tune.budget.games",
                        spec.games), ("tune.racing.games", spec.race_games)):
        if games * n > MAX_GAMES_HARD:
            raise TuneError(f"{spec.given}: {key}: {games * n:,} games in one run ({conds}) "
                            f"is above the limit of {MAX_GAMES_HARD:,}")
    racing = (spec.race_top + 2) * spec.race_games  # the top trials, the winner again, the baseline
    total = (spec.trials * spec.games + racing) * n
    if total > MAX_GAMES and not spec.yes:
        raise TuneError(
            f"{spec.given}: tune.budget: {total:,} games in all ({spec.trials:,} trials of "
            f"{spec.games:,} games and {racing:,} racing games, {conds}) is above "
            f"{MAX_GAMES:,}; give --yes to run it anyway")


# ---- building a trial's experiment --------------------------------------------------------
def _rewrite(msg: str, spec: TuneSpec) -> str:
    for d in spec.dims:
        msg = msg.replace(f": sweep.{d.key}", f": tune.space.{d.key}")
    return msg.replace("(in the sweep condition ", "(with the tune values ")


def trial_data(spec: TuneSpec, values: dict, seed: int, games: int, tag: str) -> dict:
    """The file's mapping with the trial's values as one-value sweeps (so the conditions are
    labelled with them and the sweep's key-path checks apply)."""
    data = copy.deepcopy(spec.raw)
    sweep = dict(data.get("sweep") or {})
    for key, v in values.items():
        sweep[key] = [copy.deepcopy(v)]
    data["sweep"] = sweep
    data["seed"] = int(seed)
    data["games"] = int(games)
    data["name"] = tag
    data["output"] = str(spec.scratch)
    return data


def build_experiment(spec: TuneSpec, values: dict, seed: int, games: int, tag: str):
    try:
        return load_experiment_data(trial_data(spec, values, seed, games, tag), spec.given,
                                    yes=spec.yes)
    except ExperimentError as exc:
        raise TuneError(_rewrite(str(exc), spec)) from None


def _default_values(spec: TuneSpec) -> dict:
    """A point of the space: the file's own value where it is inside, else the middle."""
    out = {}
    for d in spec.dims:
        out[d.key] = _clip(d, spec.baseline.get(d.key))
    return out


def _clip(d: Dim, v):
    if d.kind == "int":
        if _whole(v) and d.lo <= v <= d.hi and (v - d.lo) % d.step == 0:
            return v
        vals = d.values(limit=10**9)
        if not _number(v):  # not in the file: a missing edit is 0 (no change)
            v = 0
        return min(vals, key=lambda x: abs(x - v))
    if d.kind == "float":
        if not _number(v):
            v = 0.0
        return float(min(max(v, d.lo), d.hi))
    if d.kind == "floats":
        if isinstance(v, list) and len(v) == len(d.bounds) and all(_number(x) for x in v):
            return [float(min(max(x, lo), hi)) for x, (lo, hi) in zip(v, d.bounds)]
        return [(lo + hi) / 2 for lo, hi in d.bounds]
    labels = [_short(c) for c in d.choices]
    return d.choices[labels.index(_short(v))] if _short(v) in labels else d.choices[0]


def _check_space(spec: TuneSpec):
    """Every key path applies; every key has at least one value giving a dealable deck; the
    figures exist for the file's conditions. Returns the experiment of a valid point."""
    point = _default_values(spec)
    exp = None
    first_err = None
    for d in spec.dims:
        ok = False
        first_err = None
        for v in d.values():
            values = dict(point)
            values[d.key] = v
            try:
                e = build_experiment(spec, values, spec.seed, 1, "check")
            except TuneError as exc:
                if first_err is None:
                    first_err = str(exc)
                if f": tune.space.{d.key}: " in str(exc):
                    raise  # the key path itself is wrong, whatever the value
                continue
            ok = True
            if exp is None and v == point[d.key]:
                exp = e
            point[d.key] = v
            break
        if ok and d.continuous:
            _check_inside(spec, d, point)
        if not ok:
            tail = first_err[len(spec.given) + 2:] if first_err.startswith(
                spec.given + ": ") else first_err
            tail = re.sub(r" \(with the tune values [^()]*\)$", "", tail)
            raise TuneError(f"{spec.given}: tune.space.{d.key}: no value of the range gives a "
                            f"valid experiment (e.g. {_short(d.values()[0])}: {tail})")
    if exp is None:
        exp = build_experiment(spec, point, spec.seed, 1, "check")
    _check_figures(spec, exp)
    return exp


def _check_inside(spec: TuneSpec, d: Dim, point: dict) -> None:
    """A float range's middle must be valid too when one of its values is: a key that
    takes whole numbers only (e.g. a search bot's worlds) would otherwise pass the check on
    a whole end and then fail almost every trial."""
    mid = d.values()[1]
    values = dict(point)
    values[d.key] = mid
    try:
        build_experiment(spec, values, spec.seed, 1, "check")
    except TuneError as exc:
        msg = str(exc)
        tail = msg[len(spec.given) + 2:] if msg.startswith(spec.given + ": ") else msg
        tail = re.sub(r" \(with the tune values [^()]*\)$", "", tail)
        hint = ("; a whole-number key takes {int: [lo, hi]}" if "whole number" in tail
                else "")
        raise TuneError(f"{spec.given}: tune.space.{d.key}: values inside the range are not "
                        f"valid (e.g. {_short(_round(mid))}: {tail}){hint}") from None


def _round(v):
    return [round(x, 4) for x in v] if isinstance(v, list) else round(v, 4)


def _cond_matches(cond, where: dict) -> bool:
    for k, v in where.items():
        if k in ROW_KEYS:
            continue
        if k == "players":
            if str(cond.players) != v:
                return False
            continue
        if k not in cond.labels or _short(cond.labels[k]) != v:
            return False
    return True


def _check_figures(spec: TuneSpec, exp) -> None:
    from fishing2sim.run.runner import strategy_names

    figs = [(f"tune.objective.{spec.mode}", spec.figure)] if spec.figure else [
        (f"tune.objective.targets[{i}]", t.figure) for i, t in enumerate(spec.targets)]
    space = {d.key for d in spec.dims}
    label_keys = {"players"} | {k for c in exp.conditions for k in c.labels if k not in space}
    for at, fig in figs:
        table = fig.table
        if ANALYSIS_OF_TABLE[table] not in exp.analyses:
            raise TuneError(f"{spec.given}: {at}: {fig.text!r} is not computed: it needs the "
                            f"{ANALYSIS_OF_TABLE[table]} analysis, which the file's analyses "
                            f"({', '.join(exp.analyses)}) leave out")
        for k in fig.where:
            if k not in ROW_KEYS and k not in label_keys:
                raise TuneError(f"{spec.given}: {at}: {fig.text!r}: no condition key {k!r}"
                                f"{_did_you_mean(k, sorted(label_keys))}; the conditions are "
                                f"labelled by {', '.join(sorted(label_keys))}")
        conds = [c for c in exp.conditions if _cond_matches(c, fig.where)]
        if not conds:
            raise TuneError(f"{spec.given}: {at}: {fig.text!r} is not computed: no condition "
                            f"has {', '.join(f'{k}={v}' for k, v in fig.where.items() if k not in ROW_KEYS)}")
        if spec.figure is not None and len(conds) > 1:
            raise TuneError(f"{spec.given}: {at}: {fig.text!r} matches {len(conds)} conditions "
                            f"({'; '.join(_cond_label(c, spec) for c in conds)}): pick one with "
                            "[key=value]")
        for c in conds:
            if "strategy" in fig.where:
                names = strategy_names(c)
                if fig.where["strategy"] not in names:
                    raise TuneError(
                        f"{spec.given}: {at}: {fig.text!r} is not computed: no strategy "
                        f"{fig.where['strategy']!r} in the lineup"
                        f"{_did_you_mean(fig.where['strategy'], names)} (strategies: "
                        f"{', '.join(names)})")
            if "seat" in fig.where:
                s = fig.where["seat"]
                if not s.isdigit() or int(s) >= c.players:
                    raise TuneError(f"{spec.given}: {at}: {fig.text!r}: seat must be 0.."
                                    f"{c.players - 1}")
            if "tier" in fig.where and fig.where["tier"] not in [str(i) for i in range(1, 6)]:
                raise TuneError(f"{spec.given}: {at}: {fig.text!r}: tier must be 1..5")
            if "round" in fig.where and (not fig.where["round"].isdigit()
                                         or not 1 <= int(fig.where["round"]) <= c.deck.n_rounds):
                raise TuneError(f"{spec.given}: {at}: {fig.text!r}: round must be 1.."
                                f"{c.deck.n_rounds}")
        spec.expansions[fig.text] = [c.index for c in conds]
    for c in exp.conditions:
        spec.labels[c.index] = _cond_label(c, spec)
        spec.players[c.index] = c.players
    _name_params(spec, exp)


def _name_params(spec: TuneSpec, exp) -> None:
    """Label the entries of a seat's parameter vector with the strategy's PARAM_NAMES."""
    from fishing2sim.strategy.loading import StrategyError, load_strategy

    for d in spec.dims:
        m = re.fullmatch(r"seats\[(\d+)\]\.params(?:\[(\d+)\])?", d.key)
        if not m:
            continue
        seat = int(m.group(1))
        try:
            names = load_strategy(exp.conditions[0].lineup[seat]).param_names
        except (StrategyError, IndexError):
            continue
        if m.group(2) is not None:
            i = int(m.group(2))
            if i < len(names):
                spec.param_labels[d.key] = f"{d.key} ({names[i]})"
        elif d.kind == "floats":
            for i, n in enumerate(d.names):
                if i < len(names):
                    spec.param_labels[n] = f"{n} ({names[i]})"


def _cond_label(cond, spec=None) -> str:
    space = {d.key for d in spec.dims} if spec is not None else set()
    space_free = {k: v for k, v in cond.labels.items() if k not in space}
    bits = [f"players={cond.players}"] + [f"{k}={_short(v)}" for k, v in space_free.items()
                                          if k != "players"]
    return ", ".join(bits)


# ---- evaluating figures -------------------------------------------------------------------
@dataclass
class Estimate:
    label: str  # e.g. "overfishing[players=5]"
    estimate: float
    ci_low: float
    ci_high: float
    n: int

    @property
    def se(self) -> float:
        hw = (self.ci_high - self.ci_low) / 2
        return hw / Z if math.isfinite(hw) else 0.0


def _select(spec, fig: Figure, tables: dict, cond_index: int) -> Estimate:
    table, metric, *_ = FIGURES[fig.name]
    df = tables[table]
    rows = df[(df["condition"] == cond_index) & (df["metric"] == metric)]
    for k in ROW_KEYS:
        if k not in rows.columns:
            continue
        if k in fig.where:
            col = rows[k]
            rows = rows[col.notna() & (col.astype(str) == fig.where[k])]
        else:
            rows = rows[rows[k].isna()]
    if len(rows) != 1:
        raise RuntimeError(f"figure {fig.text}: {len(rows)} rows in condition {cond_index}")
    r = rows.iloc[0]
    est, lo, hi = float(r["estimate"]), float(r["ci_low"]), float(r["ci_high"])
    if fig.name == "leader_edge":
        fair = 1.0 / spec.players[cond_index]
        est, lo, hi = (100 * (x - fair) for x in (est, lo, hi))
    label = fig.text
    if len(spec.expansions[fig.text]) > 1:
        label = f"{fig.text} @ {spec.labels[cond_index]}"
    return Estimate(label, est, lo, hi, int(r["n"]))


def figures_of(spec: TuneSpec, tables: dict) -> list:
    """Every figure the objective uses, per matching condition (a list of Estimate; with
    targets, in target order, each target once per condition)."""
    out = []
    figs = [spec.figure] if spec.figure else [t.figure for t in spec.targets]
    for fig in figs:
        for ci in spec.expansions[fig.text]:
            out.append(_select(spec, fig, tables, ci))
    return out


def figure_names(spec: TuneSpec) -> list:
    """The FIGURES name of each figures_of entry (in its order)."""
    figs = [spec.figure] if spec.figure else [t.figure for t in spec.targets]
    return [fig.name for fig in figs for _ in spec.expansions[fig.text]]


def show(name: str | None, x, hw=math.nan, diff: bool = False) -> str:
    """A figure's value as the run reports write it: a share in percent (a difference of
    shares in pp), the leader edge in pp, other figures as numbers, each with the decimals
    its 95% CI half-width ``hw`` warrants. ``name`` None: the targets' loss, unitless."""
    from fishing2sim.report.common import number

    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if name is None:
        return f"{x:.4g}"
    if name in SHARE_FIGURES:
        return f"{number(100 * x, 100 * hw)}{' pp' if diff else '%'}"
    if name == "leader_edge":
        return f"{number(x, hw)} pp"
    return number(x, hw)


def show_estimate(name: str, e) -> str:
    """``12.3% [11.9, 12.7]``: an Estimate as the run reports' tables write a figure."""
    hw = (e.ci_high - e.ci_low) / 2
    unit = show(name, e.estimate, hw)
    if math.isnan(hw):
        return unit
    lo, hi = show(name, e.ci_low, hw), show(name, e.ci_high, hw)
    strip = (lambda t: t.removesuffix("%").removesuffix(" pp"))
    return f"{unit} [{strip(lo)}, {strip(hi)}]"


def value_text(spec: TuneSpec, x, hw=math.nan, diff: bool = False) -> str:
    """A trial's value in its figure's unit (the targets' loss: a plain number)."""
    return show(spec.figure.name if spec.mode != "targets" else None, x, hw, diff)


def _terms(spec: TuneSpec) -> list:
    """(target, figure index) pairs in figures_of order."""
    out = []
    i = 0
    for t in spec.targets:
        for _ in spec.expansions[t.figure.text]:
            out.append((t, i))
            i += 1
    return out


def objective_value(spec: TuneSpec, xs, changes: float) -> float:
    """The trial's value from its figures' estimates ``xs`` (in figures_of order)."""
    if spec.mode == "targets":
        return sum((t.violation(xs[i]) / t.scale) ** 2 for t, i in _terms(spec)) \
            + spec.cost * changes
    if spec.mode == "maximize":
        return xs[0] - spec.cost * changes
    return xs[0] + spec.cost * changes


def targets_met(spec: TuneSpec, ests: list) -> list:
    """Per target term: (text, 'met' / 'missed', whether the whole CI meets it)."""
    out = []
    for t, i in _terms(spec):
        e = ests[i]
        met = t.violation(e.estimate) == 0
        sure = t.violation(e.ci_low) == 0 and t.violation(e.ci_high) == 0
        out.append((e.label if e.label != t.figure.text else t.text, t, met, sure))
    return out


def deck_changes(spec: TuneSpec, values: dict) -> float:
    """How far the trial's deck edits are from the file's: |value - file's| summed over
    whole-number deck keys (a missing edit counts as 0), 1 per choice that differs from the
    file's value (or, if the file has none, from the first choice)."""
    n = 0.0
    for d in spec.dims:
        if not d.key.startswith("deck."):
            continue
        v = values[d.key]
        b = spec.baseline.get(d.key)
        if d.kind in ("int", "float"):
            n += abs(v - (b if _number(b) else 0))
        elif d.kind == "floats":
            bb = b if isinstance(b, list) and len(b) == len(v) else [0.0] * len(v)
            n += sum(1 for x, y in zip(v, bb) if x != y)
        else:
            ref = b if b is not None else d.choices[0]
            n += 0 if _short(v) == _short(ref) else 1
    return n


# ---- running ------------------------------------------------------------------------------
@dataclass
class Evaluation:
    values: dict
    seed: int
    games: int
    figures: list  # Estimate
    value: float
    changes: float
    seconds: float


def _run_trial(exp, workers: int, pool=None):
    """A trial's (or a racing) run: its games in worker processes even for one worker
    (``in_process=False``), so Ctrl-C stops it at once, inside a chunk too (a compiled
    kernel cannot be interrupted from inside: the runner kills its workers). ``pool`` (a
    runner.WorkerPool) keeps the workers from one trial to the next."""
    from fishing2sim.run.runner import run

    return run(exp, write=False, workers=workers, progress=False, in_process=False,
               pool=pool)


def evaluate(spec: TuneSpec, values: dict, seed: int, games: int, workers: int,
             tag: str, pool=None) -> Evaluation:
    from fishing2sim.run.runner import checkpoint_dir

    t0 = time.perf_counter()
    exp = build_experiment(spec, values, seed, games, tag)
    try:
        res = _run_trial(exp, workers, pool)
    finally:
        shutil.rmtree(checkpoint_dir(exp), ignore_errors=True)
    figs = figures_of(spec, res.tables)
    ch = deck_changes(spec, values)
    val = objective_value(spec, [f.estimate for f in figs], ch)
    return Evaluation(values, seed, games, figs, val, ch, time.perf_counter() - t0)


def _make_sampler(spec: TuneSpec, seed: int):
    import optuna

    seed = int(seed) & 0xFFFFFFFF  # numpy's RandomState takes 32 bits

    if spec.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if spec.sampler == "cmaes":
        # starts at the middle of the ranges with sigma = the narrowest width / 6 (Optuna's
        # defaults); the file's own point is the study's first trial
        return optuna.samplers.CmaEsSampler(seed=seed, n_startup_trials=0,
                                            warn_independent_sampling=False)
    n_startup = max(2, min(10, spec.trials // 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=n_startup,
                                          multivariate=True)


def _counted(trials) -> list:
    """Trials that used budget: finished, or failed with a recorded reason."""
    from optuna.trial import TrialState

    return [t for t in trials if t.state == TrialState.COMPLETE
            or (t.state == TrialState.FAIL and "error" in t.user_attrs)]


_OPTUNA_TABLES = {"studies", "trials", "version_info"}


def study_names(db: Path) -> list[str] | None:
    """The names of the studies in the Optuna study file ``db`` (None: no file, or an empty
    one, which holds nothing); a TuneError if ``db`` is a link, a folder, anything but a
    regular file, or a file that is not an Optuna study (another file, a damaged or
    truncated database)."""
    import sqlite3
    import stat

    try:
        st = os.lstat(db)
    except FileNotFoundError:
        return None
    move = "fishing2sim leaves it as it is: move it away (or choose another --output)"
    if stat.S_ISLNK(st.st_mode):
        raise TuneError(f"{db}: the study file is a symbolic link; fishing2sim does not write "
                        "through links: move the link away (or choose another --output)")
    if stat.S_ISDIR(st.st_mode):
        raise TuneError(f"{db}: is a folder, not an Optuna study file: {move}")
    if not stat.S_ISREG(st.st_mode):
        raise TuneError(f"{db}: is not a regular file, not an Optuna study: {move}")
    if st.st_size == 0:
        return None
    why = None
    try:
        with open(db, "rb") as f:
            head = f.read(16)
        if head != b"SQLite format 3\x00":
            why = "not an SQLite database"
        else:
            con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
            try:
                check = con.execute("pragma quick_check").fetchone()
                tables = {r[0] for r in con.execute(
                    "select name from sqlite_master where type = 'table'")}
                if check is None or check[0] != "ok":
                    why = f"a damaged SQLite database: {check[0] if check else 'unreadable'}"
                elif not _OPTUNA_TABLES <= tables:
                    why = "an SQLite database without Optuna's tables"
                else:
                    return [r[0] for r in con.execute("select study_name from studies")]
            finally:
                con.close()
    except sqlite3.Error as exc:
        why = f"a damaged SQLite database: {exc}"
    except OSError as exc:
        why = f"unreadable: {exc.strerror or exc}"
    raise TuneError(f"{db}: is not an Optuna study ({why}): {move}")


def check_study_file(spec: TuneSpec, resume: bool) -> bool:
    """Whether ``spec.study_path`` holds a study to continue (``resume``) or to replace (a
    study of this tune: named like it); a TuneError (one line, nothing deleted) for a file
    that is not an Optuna study or that holds another tune's studies only."""
    db = spec.study_path
    names = study_names(db)
    if names is None:
        return False
    if spec.name in names:
        return True
    listed = ", ".join(repr(n) for n in names) or "none"
    raise TuneError(f"{db}: an Optuna study file without the study {spec.name!r} (its studies: "
                    f"{listed}); fishing2sim leaves it as it is: move it away (or choose "
                    "another --output)")


def open_study(spec: TuneSpec, resume: bool):
    """The study in ``spec.study_path``: continued with ``resume``, else a new one (a study
    of this tune left there is replaced; any other file is refused, never deleted). The
    caller holds the folder's lock (runner.OutputLock)."""
    import optuna
    from optuna.trial import TrialState

    from fishing2sim.safe_files import FileSafetyError, real_folder

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        real_folder(spec.output_dir, "report folder")
    except FileSafetyError as exc:
        raise TuneError(str(exc)) from None
    db = spec.study_path
    ours = check_study_file(spec, resume)
    if ours and not resume:
        db.unlink()
    elif db.exists() and not ours:  # an empty file: it holds nothing
        db.unlink()
    storage = optuna.storages.RDBStorage(f"sqlite:///{db}")
    if resume and ours:
        study = optuna.load_study(study_name=spec.name, storage=storage)
        old = study.user_attrs.get("config_hash")
        if old != spec.config_hash:
            raise TuneError(f"{spec.given}: --resume: the tune file changed since the "
                            f"interrupted run (its study in {db} belongs to another "
                            "configuration); run without --resume to start again")
        for t in study.get_trials(deepcopy=False):
            if t.state == TrialState.RUNNING:  # interrupted: evaluate its point again
                storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
                study.enqueue_trial(dict(t.params), user_attrs={"retry_of": t.number},
                                    skip_if_exists=False)
        n_done = len(study.get_trials(deepcopy=False))
        study.sampler = _make_sampler(spec, derive_seed(spec.seed, SAMPLER_SEED_OFFSET + n_done))
        return study, storage
    study = optuna.create_study(storage=storage, study_name=spec.name,
                                direction=spec.direction,
                                sampler=_make_sampler(spec, spec.seed))
    study.set_user_attr("config_hash", spec.config_hash)
    study.set_user_attr("seed", spec.seed)
    study.set_user_attr("file", str(spec.path))
    p = {}  # the file's own point first: trial 0 measures the untuned configuration
    for d, v in zip(spec.dims, _default_values(spec).values()):
        p.update(d.params_of(v))
    study.enqueue_trial(p)
    return study, storage


@dataclass
class TuneResult:
    spec: TuneSpec
    study: object
    trials: pd.DataFrame
    race: pd.DataFrame
    winner: dict | None
    baseline: Evaluation | None
    verdict: str
    report_dir: Path | None
    elapsed_s: float
    importance_note: str = ""


def _say(progress, msg):
    if progress:
        print(msg, file=sys.stderr, flush=True)


def _prepare_output(spec: TuneSpec) -> None:
    """The study's folder: refused if it is a folder of the user's own, a link or a file;
    made and marked as this program's otherwise (the report later replaces it). The scratch
    folder of the trials' checkpoints may not be a link either."""
    from fishing2sim import __version__
    from fishing2sim.safe_files import MARKER, FileSafetyError, check_replaceable, real_folder, write_marker

    try:
        check_replaceable(spec.output_dir)
        if spec.scratch.is_symlink():
            raise FileSafetyError(f"{spec.scratch}: the tune's scratch folder is a symbolic "
                                  "link; fishing2sim does not write through links: remove it")
        real_folder(spec.output_dir, "report folder")
        if not (spec.output_dir / MARKER).is_file():
            write_marker(spec.output_dir, "tune", spec.name, __version__)
    except FileSafetyError as exc:
        raise TuneError(str(exc)) from None


def tune(spec: TuneSpec, workers: int | None = None, resume: bool = False,
         progress: bool = False, write: bool = True) -> TuneResult:
    """Run the study (or continue it), race the best trials, write the report. The report
    folder is locked meanwhile (runner.OutputLock, as ``run`` locks it): a second tune or a
    run on the same folder is refused (a RunError naming the PID)."""
    from fishing2sim.run.runner import OutputLock, WorkerPool

    with OutputLock(spec.output_dir.parent, spec.name), WorkerPool() as pool:
        return _tune(spec, workers, resume, progress, write, pool)


def _tune(spec: TuneSpec, workers, resume: bool, progress: bool, write: bool,
          pool) -> TuneResult:
    from optuna.trial import TrialState

    from fishing2sim.run.runner import default_workers

    workers = workers or spec.raw.get("workers") or default_workers()
    t0 = time.perf_counter()
    _prepare_output(spec)
    study, storage = open_study(spec, resume)
    while True:
        done = _counted(study.get_trials(deepcopy=False))
        if len(done) >= spec.trials:
            break
        if spec.time_limit is not None and time.perf_counter() - t0 > spec.time_limit:
            _say(progress, f"time limit reached after {len(done)} trials")
            break
        trial = study.ask()
        values = {d.key: d.suggest(trial) for d in spec.dims}
        seed = derive_seed(spec.seed, TRIAL_SEED_OFFSET + trial.number)
        try:  # an interruption leaves the trial RUNNING: --resume evaluates it again
            ev = evaluate(spec, values, seed, spec.games, workers, f"trial-{trial.number}",
                          pool)
        except TuneError as exc:  # e.g. an undealable deck for this combination
            trial.set_user_attr("error", str(exc).split(": ", 1)[-1])
            trial.set_user_attr("seed", seed)
            study.tell(trial, state=TrialState.FAIL)
            _say(progress, f"trial {trial.number}: not playable: {exc}")
            continue
        trial.set_user_attr("seed", seed)
        trial.set_user_attr("games", spec.games)
        trial.set_user_attr("deck_changes", ev.changes)
        trial.set_user_attr("seconds", round(ev.seconds, 3))
        trial.set_user_attr("figures", [[f.label, f.estimate, f.ci_low, f.ci_high, f.n]
                                        for f in ev.figures])
        study.tell(trial, ev.value)
        best = study.best_value
        hw = (ev.figures[0].ci_high - ev.figures[0].ci_low) / 2 if ev.figures else math.nan
        _say(progress, f"trial {trial.number} ({len(done) + 1}/{spec.trials}): "
             f"value {value_text(spec, ev.value, hw)} (best {value_text(spec, best, hw)}) "
             f"in {ev.seconds:.1f} s")
    trials_df = trials_table(spec, study)
    race_df, winner, base_ev, verdict = race(spec, study, workers, progress, pool)
    elapsed = time.perf_counter() - t0
    result = TuneResult(spec, study, trials_df, race_df, winner, base_ev, verdict, None,
                        elapsed)
    if write:
        from fishing2sim.tune.report import write_tune_report

        result.report_dir = write_tune_report(result)
    shutil.rmtree(spec.scratch, ignore_errors=True)
    return result


def trials_table(spec: TuneSpec, study) -> pd.DataFrame:
    rows = []
    for t in study.get_trials(deepcopy=False):
        r = {"trial": t.number, "state": t.state.name,
             "value": t.value if t.value is not None else math.nan}
        try:
            vals = {d.key: d.value_from_params(t.params) for d in spec.dims}
        except KeyError:
            vals = {}
        for d in spec.dims:
            r[d.key] = _short(vals[d.key]) if d.key in vals else None
        r["deck_changes"] = t.user_attrs.get("deck_changes", math.nan)
        for label, est, lo, hi, n in t.user_attrs.get("figures", []):
            r[label] = est
            r[f"{label} ci_low"] = lo
            r[f"{label} ci_high"] = hi
        r["games"] = t.user_attrs.get("games")
        r["seed"] = t.user_attrs.get("seed")
        r["seconds"] = t.user_attrs.get("seconds")
        r["error"] = t.user_attrs.get("error", "")
        rows.append(r)
    df = pd.DataFrame(rows)
    for c in ("seed", "games"):  # whole numbers (a seed has 63 bits: never via a float)
        if c in df.columns:
            df[c] = pd.array([r[c] for r in rows], dtype="Int64")
    return df


# ---- racing -------------------------------------------------------------------------------
def _diff_ci(spec: TuneSpec, a: Evaluation, b: Evaluation, seed: int):
    """95% interval of value(a) - value(b) from the figures' sampling distributions (each
    figure normal with its CI's standard error, the two runs independent: conservative when
    they share deals)."""
    rng = np.random.default_rng(seed)

    def draws(ev):
        cols = [rng.normal(f.estimate, f.se, _MC_DRAWS) if f.se > 0
                else np.full(_MC_DRAWS, f.estimate) for f in ev.figures]
        return np.array([objective_value(spec, xs, ev.changes) for xs in zip(*cols)])

    d = draws(a) - draws(b)
    point = a.value - b.value
    lo, hi = np.percentile(d, [2.5, 97.5])
    return point, float(lo), float(hi)


def race(spec: TuneSpec, study, workers: int, progress: bool, pool=None):
    from optuna.trial import TrialState

    complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    if not complete:
        return pd.DataFrame(), None, None, "no trial gave a playable experiment"
    sign = -1 if spec.direction == "maximize" else 1
    complete.sort(key=lambda t: (sign * t.value, t.number))
    cands, seen = [], set()
    for t in complete:
        vals = {d.key: d.value_from_params(t.params) for d in spec.dims}
        k = json.dumps(vals, sort_keys=True, default=str)
        if k in seen:
            continue
        seen.add(k)
        cands.append((t.number, vals))
    top = cands[:max(1, spec.race_top)] if spec.race_top else cands[:1]
    race_seed = derive_seed(spec.seed, RACE_SEED_OFFSET)
    rows, evs = [], []
    if spec.race_top:
        for number, vals in top:
            _say(progress, f"racing trial {number} ({spec.race_games:,} games)")
            ev = evaluate(spec, vals, race_seed, spec.race_games, workers, f"race-{number}",
                          pool)
            evs.append((number, ev))
    else:
        t = next(t for t in complete if t.number == top[0][0])
        figs = [Estimate(*x) for x in t.user_attrs.get("figures", [])]
        evs.append((top[0][0], Evaluation(top[0][1], t.user_attrs.get("seed"), spec.games,
                                          figs, t.value, t.user_attrs.get("deck_changes", 0),
                                          t.user_attrs.get("seconds", 0))))
    evs.sort(key=lambda x: (sign * x[1].value, x[0]))
    winner_no, picked = evs[0]
    for rank, (number, ev) in enumerate(evs):
        rows.append(_race_row(spec, f"trial {number}", number, ev, rank + 1, picked.seed))
    # the winner's figures come from a seed not used to pick it: the best of several noisy
    # evaluations is biased in its own favour (the winner's curse); the baseline plays the
    # same fresh seed beside it
    confirm_seed = derive_seed(spec.seed, CONFIRM_SEED_OFFSET)
    _say(progress, f"confirming trial {winner_no} on a fresh seed ({spec.race_games:,} games)")
    w = evaluate(spec, picked.values, confirm_seed, spec.race_games, workers,
                 f"confirm-{winner_no}", pool)
    rows.append(_race_row(spec, f"trial {winner_no}, confirmed", winner_no, w, None,
                          confirm_seed))
    base_ev = None
    try:
        _say(progress, f"baseline (the file untuned, {spec.race_games:,} games)")
        base_ev = _evaluate_baseline(spec, confirm_seed, spec.race_games, workers, pool)
    except TuneError as exc:
        _say(progress, f"baseline not playable: {exc}")
    if base_ev is not None:
        rows.append(_race_row(spec, "baseline", None, base_ev, None, confirm_seed))
    verdict = ""
    winner = {"trial": winner_no, "values": w.values, "evaluation": w, "picked": picked}
    if len(evs) > 1:  # the evidence the pick rests on: the racing seed
        pt, lo, hi = _diff_ci(spec, picked, evs[1][1], race_seed)
        sep = (hi < 0 or lo > 0)
        winner["vs_runner_up"] = (evs[1][0], pt, lo, hi, sep)
    if base_ev is not None:
        pt, lo, hi = _diff_ci(spec, w, base_ev, confirm_seed + 1)
        winner["vs_baseline"] = (pt, lo, hi, hi < 0 or lo > 0)
    if spec.mode == "targets":
        terms = targets_met(spec, w.figures)
        winner["targets"] = terms
        verdict = "meets every target" if all(m for _, _, m, _ in terms) else \
            "misses some targets"
    return pd.DataFrame(rows), winner, base_ev, verdict


def _evaluate_baseline(spec, seed, games, workers, pool=None) -> Evaluation:
    from fishing2sim.run.runner import checkpoint_dir

    t0 = time.perf_counter()
    data = copy.deepcopy(spec.raw)
    data.update(seed=int(seed), games=int(games), name="baseline", output=str(spec.scratch))
    try:
        exp = load_experiment_data(data, spec.given, yes=spec.yes)
    except ExperimentError as exc:
        raise TuneError(str(exc)) from None
    # the baseline has no space labels: map the figures onto its conditions by players and
    # the file's own sweep labels (its conditions are in the same order)
    try:
        res = _run_trial(exp, workers, pool)
    finally:
        shutil.rmtree(checkpoint_dir(exp), ignore_errors=True)
    figs = figures_of(spec, res.tables)
    vals = {d.key: spec.baseline.get(d.key) for d in spec.dims}
    ch = 0.0
    val = objective_value(spec, [f.estimate for f in figs], ch)
    return Evaluation(vals, seed, games, figs, val, ch, time.perf_counter() - t0)


def _race_row(spec, who, number, ev: Evaluation, rank, seed=None):
    r = {"candidate": who, "trial": number, "rank": rank, "seed": seed, "games": ev.games,
         "value": ev.value, "deck_changes": ev.changes}
    for d in spec.dims:  # the baseline's keys the file leaves out: empty, not "None"
        v = ev.values.get(d.key)
        r[d.key] = None if v is None else _short(v)
    for f in ev.figures:
        r[f.label] = f.estimate
        r[f"{f.label} ci_low"] = f.ci_low
        r[f"{f.label} ci_high"] = f.ci_high
    return r
