"""``load_tune``: a tune file read, its ``tune:`` section checked by its schema
(fishing2sim/tune/schema.py) and the rest by trying the space on the file's experiment:
every key path applies, every key has a value giving a valid experiment, the figures are
computed for the file's conditions, the budget stays within the size limits of a run."""
from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from fishing2sim.config.experiment import (
    MAX_GAMES,
    MAX_GAMES_HARD,
    ExperimentError,
    load_experiment_data,
    read_experiment_file,
    set_key_path,
)
from fishing2sim.config.keypaths import parse_key_path
from fishing2sim.config.keys import PLAY_LEVELS
from fishing2sim.config.messages import KeyProblem
from fishing2sim.config.messages import did_you_mean as _did_you_mean
from fishing2sim.config.schema import check
from fishing2sim.run.chunks import strategy_names
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.tune.schema import (
    MAX_PARETO_OBJECTIVES, ROW_KEYS, Dim, Figure, TuneSection, _number, _whole,
)
from fishing2sim.tune.schema import short as _short

__all__ = ["TuneError", "TuneSpec", "build_experiment", "load_tune"]

STUDY_FILE = "study.db"
ANALYSIS_OF_TABLE = {"overfishing": "overfishing", "strategies": "strategies",
                     "depletion": "depletion"}


class TuneError(ExperimentError):
    """A problem in a tune file: ``"<file>: <key path>: <problem>"``."""


# ---- the spec -----------------------------------------------------------------------------
@dataclass
class TuneSpec:
    path: Path
    given: str
    name: str
    raw: dict  # the file without its tune section
    seed: int
    dims: list
    mode: str  # "maximize", "minimize", "targets" or "pareto"
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
    race_levels: tuple = ()  # tune.racing.play_levels: config.levels.Level each
    goals: list = field(default_factory=list)  # pareto: the objectives (schema.Goal)

    @property
    def direction(self) -> str:
        return "maximize" if self.mode == "maximize" else "minimize"

    @property
    def pareto(self) -> bool:
        return self.mode == "pareto"

    @property
    def scratch(self) -> Path:
        return self.output_dir.parent / f".{self.name}.tune-scratch"

    @property
    def study_path(self) -> Path:
        return self.output_dir / STUDY_FILE


def _get_path(cfg, key):
    """The value at a key path in the file's mapping, or None."""
    node = cfg
    for part in parse_key_path(key):
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
    for k in ("output", "workers"):
        if k in overrides:
            data[k] = overrides[k]
    sec = _section(t, overrides, given)
    own_sweep = data.get("sweep") or {}
    if isinstance(own_sweep, dict) and "games" in own_sweep:
        raise TuneError(f"{given}: sweep.games: a tune file's trials play tune.budget.games "
                        "games per condition; sweep games in an experiment without tune:")
    for d in sec.space if isinstance(own_sweep, dict) else ():
        if d.key in own_sweep:
            raise TuneError(f"{given}: tune.space.{d.key}: also swept (sweep.{d.key}): "
                            "give it in one place")
    try:  # the experiment itself
        base = load_experiment_data(data, path, yes=yes)
    except ExperimentError as exc:
        raise TuneError(str(exc)) from None
    tune_raw = copy.deepcopy(t)
    # what --resume compares: not the budget or the racing (a tune may be continued with
    # more trials or time)
    hashed = {k: tune_raw.get(k) for k in ("space", "objective", "sampler")}
    games = sec.budget.games
    h = hashlib.sha256(json.dumps({"experiment": base.config_hash, "tune": hashed,
                                   "games_per_trial": games}, sort_keys=True, default=str)
                       .encode()).hexdigest()
    obj = sec.objective
    spec = TuneSpec(path=Path(path).resolve(), given=given, name=base.name, raw=data,
                    seed=base.seed, dims=sec.space, mode=obj.mode, figure=obj._figure,
                    targets=obj._targets, cost=obj.cost.deck_changes if obj.cost else 0.0,
                    trials=sec.budget.trials, games=games, time_limit=sec.budget.time,
                    race_top=sec.racing.top, race_games=sec.racing.games,
                    sampler=sec.sampler, output_dir=base.output_dir,
                    baseline={d.key: _get_path(data, d.key) for d in sec.space},
                    config_hash=h, tune_raw=tune_raw, yes=bool(yes), goals=obj._goals)
    if sec.racing.play_levels is not None:
        spec.race_levels = check_levels(data, sec.racing.play_levels, path, given, yes)
    _check_budget(spec, _check_space(spec), overrides)
    return spec


LEVELS_KEY = "tune.racing.play_levels"


def check_levels(spec_raw: dict, raw, path, given: str, yes: bool = False) -> tuple:
    """The levels of ``tune.racing.play_levels`` (config.levels.Level each), checked as an
    experiment's play_levels (its problems named at tune.racing.play_levels)."""
    if raw is None:
        return ()
    data = copy.deepcopy(spec_raw)
    data.pop("seats", None)
    data["chunk"] = 1  # each level is raced as a run of its own (race_levels): no chunk rule
    data[PLAY_LEVELS] = copy.deepcopy(raw)
    try:
        exp = load_experiment_data(data, path, yes=yes)
    except ExperimentError as exc:
        text = str(exc)
        at = f"{given}: {PLAY_LEVELS}"
        if text.startswith(at):
            text = f"{given}: {LEVELS_KEY}" + text[len(at):]
        raise TuneError(text) from None
    return exp.panel.levels


def _section(t, overrides: dict, given: str) -> TuneSection:
    """The tune: section checked by its schema, with the command line's --trials, --games
    and --time in its budget (their problems named by the option)."""
    t = copy.deepcopy(t)
    rename = {}
    if isinstance(t, dict) and any(k in overrides for k in ("trials", "games", "time")):
        budget = t.get("budget") or {}
        if isinstance(budget, dict):
            for k in ("trials", "games", "time"):
                if k in overrides:
                    budget[k] = overrides[k]
                    rename[f"tune.budget.{k}"] = f"--{k}"
            t["budget"] = budget
    try:
        return check(TuneSection, t, base="tune", rename=rename)
    except KeyProblem as exc:
        raise TuneError(f"{given}: {exc}") from None


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
    if spec.pareto:  # the front again (at most every trial) and the baseline
        racing = (spec.trials + 1) * spec.race_games if spec.race_top else 0
    else:  # the top trials, the winner again, the baseline
        racing = (spec.race_top + 2) * spec.race_games
    total = (spec.trials * spec.games + racing) * n
    if total > MAX_GAMES and not spec.yes:
        raise TuneError(
            f"{spec.given}: tune.budget: {total:,} games in all ({spec.trials:,} trials of "
            f"{spec.games:,} games and {racing:,} racing games, {conds}) is above "
            f"{MAX_GAMES:,}; give --yes to run it anyway")


# ---- building a trial's experiment --------------------------------------------------------
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


def load_trial(spec: TuneSpec, data: dict, **how):
    """The experiment of a trial's (or a racing run's) file data; its problems a TuneError."""
    try:
        return load_experiment_data(data, spec.given, yes=spec.yes, **how)
    except ExperimentError as exc:
        raise TuneError(str(exc)) from None


def build_experiment(spec: TuneSpec, values: dict, seed: int, games: int, tag: str):
    return load_trial(spec, trial_data(spec, values, seed, games, tag),
                      origin={d.key: f"tune.space.{d.key}" for d in spec.dims},
                      grid_phrase="with the tune values")


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
    figs = [(f"tune.objective.{spec.mode}", spec.figure)] if spec.figure else [
        (f"tune.objective.targets[{i}]", t.figure) for i, t in enumerate(spec.targets)]
    if spec.pareto:
        figs = [(f"tune.objective.pareto[{i}]", g.figure) for i, g in enumerate(spec.goals)
                if g.figure is not None]
        _check_deck_changes(spec)
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
    if spec.pareto:
        _check_objective_count(spec)
    _name_params(spec, exp)


def _check_objective_count(spec: TuneSpec) -> None:
    """At most MAX_PARETO_OBJECTIVES objectives once a figure is taken once per condition it
    matches (the front is drawn pair by pair)."""
    # the number of objective.axes(spec) (objective.py imports this module)
    n = sum(1 if g.figure is None else len(spec.expansions[g.figure.text]) for g in spec.goals)
    if n > MAX_PARETO_OBJECTIVES:
        raise TuneError(f"{spec.given}: tune.objective.pareto: {n} objectives once each figure "
                        f"is taken per condition it matches; a Pareto study takes at most "
                        f"{MAX_PARETO_OBJECTIVES}: name one condition per figure with "
                        "[key=value] (e.g. overfishing[players=5])")


def _check_deck_changes(spec: TuneSpec) -> None:
    """deck_changes as a Pareto objective needs a deck key in the space (else it is 0)."""
    for i, g in enumerate(spec.goals):
        if g.figure is None and not any(d.key.startswith("deck.") for d in spec.dims):
            raise TuneError(f"{spec.given}: tune.objective.pareto[{i}]: 'deck_changes' is not "
                            "computed: the space has no deck.* key path (every trial would "
                            "have 0 changes)")


def _name_params(spec: TuneSpec, exp) -> None:
    """Label the entries of a seat's parameter vector with the strategy's PARAM_NAMES."""
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


# ---- a trial's values as a file (best.yaml, front-N.yaml, the snippets) ------------------
def best_config(spec, values: dict) -> dict:
    """The file (without its tune section) with ``values`` set at their key paths."""
    cfg = copy.deepcopy(spec.raw)
    for key, v in values.items():
        set_key_path(cfg, key, v, spec.given)
    cfg["name"] = f"{spec.name}_best"
    cfg.pop("output", None)
    cfg.pop("workers", None)
    return _absolute_paths(cfg, Path(spec.path).parent)


def _absolute_paths(cfg: dict, folder: Path) -> dict:
    """Deck and strategy files as absolute paths: best.yaml lives in the report folder."""
    def fix(spec):
        if isinstance(spec, str) and (spec.endswith(".py") or "/" in spec or "\\" in spec):
            return str((folder / Path(spec).expanduser()).resolve())
        if isinstance(spec, dict) and "strategy" in spec:
            return dict(spec, strategy=fix(spec["strategy"]))
        return spec

    deck = cfg.get("deck")
    if isinstance(deck, dict) and isinstance(deck.get("file"), str):
        deck["file"] = str((folder / Path(deck["file"]).expanduser()).resolve())
    seats = cfg.get("seats")
    cfg["seats"] = [fix(x) for x in seats] if isinstance(seats, list) else fix(seats)
    if isinstance(cfg.get("sweep"), dict):
        for k, vals in cfg["sweep"].items():
            if k == "seats" and isinstance(vals, list):
                cfg["sweep"][k] = [[fix(x) for x in v] if isinstance(v, list) else fix(v)
                                   for v in vals]
            elif re.fullmatch(r"seats\[\d+\](\.strategy)?", k) and isinstance(vals, list):
                cfg["sweep"][k] = [fix(v) for v in vals]
    return cfg


def snippet(spec, values: dict) -> str:
    """The top-level sections the space touches, from the best configuration, as YAML."""
    cfg = best_config(spec, values)
    roots = []
    for d in spec.dims:
        r = parse_key_path(d.key)[0]
        if r not in roots:
            roots.append(r)
    part = {r: cfg[r] for r in roots if r in cfg}
    return yaml.safe_dump(plain(part), sort_keys=False, default_flow_style=None, width=100)


def plain(x):
    if isinstance(x, dict):
        return {(k if isinstance(k, (int, str)) else str(k)): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, float):
        return round(x, 4)
    if hasattr(x, "item"):
        return plain(x.item())
    return x
