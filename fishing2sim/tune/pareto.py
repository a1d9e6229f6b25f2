"""A Pareto study (``tune.objective.pareto``, docs/tune.md): the objectives kept apart in an
Optuna multi-objective study instead of folded into one loss. This module names the
objectives (one per figure and matching condition, a target's violation, the deck
changes), computes a trial's values and their 95% CIs, and plays the front again: every
configuration no other trial dominates, re-run on a fresh seed beside the untuned file."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from fishing2sim.tune.objective import (  # noqa: F401 (Axis, axes, ...: a Pareto study's names)
    Axis, Estimate, Evaluation, _say, _violation_ci, axes, axis_value, derive_seed, evaluate,
    objective_values,
)
from fishing2sim.tune.racing import CONFIRM_SEED_OFFSET, _evaluate_baseline
from fishing2sim.tune.spec import TuneError, TuneSpec

__all__ = ["Axis", "Front", "axes", "measure_front", "non_dominated", "objective_values"]


def non_dominated(points: list, senses: list) -> list:
    """Per point (a list of values), whether no other point is at least as good on every
    objective and better on one."""
    sign = [-1.0 if s == "maximize" else 1.0 for s in senses]
    p = [[s * x for s, x in zip(sign, pt)] for pt in points]

    def dominates(q, r):
        return all(a <= b for a, b in zip(q, r)) and any(a < b for a, b in zip(q, r))

    return [not any(dominates(q, r) for j, q in enumerate(p) if j != i)
            for i, r in enumerate(p)]


# ---- the front, played again --------------------------------------------------------------
@dataclass
class Point:
    point: int  # 1.. in the front's order
    trial: int  # the first trial of this configuration on the front
    trials: list  # every trial of it on the front
    values: dict  # key path -> value
    evaluation: Evaluation  # on the fresh seed (or the trial's own games without racing)
    objectives: list  # (value, ci_low, ci_high) per axis
    on_front_again: bool = True  # not dominated by another point on the fresh seed


@dataclass
class Front:
    axes: list
    points: list = field(default_factory=list)
    baseline: Evaluation | None = None
    baseline_objectives: list | None = None
    remeasured: bool = True  # False: racing.top 0, the front's figures are the trials'
    seed: int | None = None
    games: int = 0


def _from_trial(spec: TuneSpec, t, values: dict) -> Evaluation:
    figs = [Estimate(*x) for x in t.user_attrs.get("figures", [])]
    return Evaluation(values, t.user_attrs.get("seed"), spec.games, figs, list(t.values),
                      t.user_attrs.get("deck_changes", 0), t.user_attrs.get("seconds", 0))


def front_trials(spec: TuneSpec, study) -> list:
    """The front's configurations: (values, [trials]) for each distinct configuration
    among the study's non-dominated trials (Optuna's best_trials), in trial order."""
    groups: dict = {}
    for t in sorted(study.best_trials, key=lambda t: t.number):
        vals = {d.key: d.value_from_params(t.params) for d in spec.dims}
        k = json.dumps(vals, sort_keys=True, default=str)
        groups.setdefault(k, (vals, []))[1].append(t)
    return list(groups.values())


def measure_front(spec: TuneSpec, study, workers: int, progress: bool, pool=None) -> Front:
    """The front played again: every configuration of it on one fresh seed (the
    confirmation seed: the same deals for the same deck) with racing.games games, the
    untuned file beside them; with racing.top 0 the trials' own figures."""
    ax = axes(spec)
    front = Front(ax, remeasured=spec.race_top > 0)
    seed = derive_seed(spec.seed, CONFIRM_SEED_OFFSET)
    groups = front_trials(spec, study)
    points = []
    for vals, ts in groups:
        t = ts[0]
        if front.remeasured:
            _say(progress, f"front: trial {t.number} again ({spec.race_games:,} games)")
            ev = evaluate(spec, vals, seed, spec.race_games, workers, f"front-{t.number}",
                          pool)
        else:
            ev = _from_trial(spec, t, vals)
        objs = [axis_value(a, ev.figures, ev.changes) for a in ax]
        points.append(Point(0, t.number, [x.number for x in ts], vals, ev, objs))
    points.sort(key=lambda p: ([o[0] if a.sense == "minimize" else -o[0]
                                for a, o in zip(ax, p.objectives)], p.trial))
    again = non_dominated([[o[0] for o in p.objectives] for p in points],
                          [a.sense for a in ax])
    for i, (p, ok) in enumerate(zip(points, again)):
        p.point, p.on_front_again = i + 1, ok
    front.points = points
    if front.remeasured:
        front.seed, front.games = seed, spec.race_games
        try:
            _say(progress, f"baseline (the file untuned, {spec.race_games:,} games)")
            front.baseline = _evaluate_baseline(spec, seed, spec.race_games, workers, pool)
            front.baseline_objectives = [axis_value(a, front.baseline.figures, 0.0)
                                         for a in ax]
        except TuneError as exc:
            _say(progress, f"baseline not playable: {exc}")
    return front


def trial_line(spec: TuneSpec, ev: Evaluation) -> str:
    """A trial's objectives as its progress line shows them."""
    out = []
    for a in axes(spec):
        x, lo, hi = axis_value(a, ev.figures, ev.changes)
        out.append(f"{a.label} {a.show(x, (hi - lo) / 2)}")
    return "; ".join(out)
