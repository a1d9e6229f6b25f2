"""A trial's figures and value: the tune's figures read from a run's tables (each with its
95% CI), the objective's value (a figure maximised or minimised, or the targets' loss, plus
the cost of deck changes) and one evaluation of a configuration."""
from __future__ import annotations

import math
import sys
import shutil
import time
from dataclasses import dataclass


from fishing2sim import study  # study.run: the tests put a toy runner there
from fishing2sim.config.experiment import MAX_SEED
from fishing2sim.report.words import number
from fishing2sim.run.checkpoints import checkpoint_dir
from fishing2sim.tune.schema import FIGURES, ROW_KEYS, SHARE_FIGURES, Figure, Goal, _number
from fishing2sim.tune.schema import short as _short
from fishing2sim.tune.spec import TuneSpec, build_experiment

TRIAL_SEED_OFFSET = 2_000_000
Z = 1.959963984540054


def derive_seed(seed: int, index: int) -> int:
    """game_seed(seed, index) kept to 63 bits (the runner's condition seeds do the same)."""
    from fishing2sim.engine.rng import game_seed  # numba: a typo in a tune file is reported
    # before the engine loads

    return int(game_seed(int(seed), int(index))) & MAX_SEED



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
    for fig in _figs(spec):
        for ci in spec.expansions[fig.text]:
            out.append(_select(spec, fig, tables, ci))
    return out


def figure_names(spec: TuneSpec) -> list:
    """The FIGURES name of each figures_of entry (in its order)."""
    return [fig.name for fig in _figs(spec) for _ in spec.expansions[fig.text]]


def _figs(spec: TuneSpec) -> list:
    """The objective's figures (a Pareto study's deck_changes is none)."""
    if spec.pareto:
        return [g.figure for g in spec.goals if g.figure is not None]
    return [spec.figure] if spec.figure else [t.figure for t in spec.targets]


def show(name: str | None, x, hw=math.nan, diff: bool = False) -> str:
    """A figure's value as the run reports write it: a share in percent (a difference of
    shares in pp), the leader edge in pp, other figures as numbers, each with the decimals
    its 95% CI half-width ``hw`` warrants. ``name`` None: the targets' loss, unitless."""
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


# ---- a Pareto study's objectives (fishing2sim/tune/pareto.py plays the front) ------------
@dataclass(frozen=True)
class Axis:
    """One objective of the study (a goal at one condition)."""

    label: str  # e.g. "leader_edge @ players=4", "deck_changes"
    name: str | None  # the FIGURES name (how its values are shown); None: deck_changes
    sense: str  # "minimize" or "maximize"
    goal: Goal
    fig_index: int | None  # its figure's index in figures_of order; None: deck_changes

    def show(self, x, hw=math.nan) -> str:
        if self.name is None:
            return f"{x:g}"
        return show(self.name, x, hw)


def axes(spec: TuneSpec) -> list:
    """The study's objectives in order: each goal once per condition its figure matches
    (as a target matches them), deck_changes once."""
    out, i = [], 0
    for g in spec.goals:
        if g.figure is None:
            out.append(Axis(g.text, None, "minimize", g, None))
            continue
        conds = spec.expansions[g.figure.text]
        for ci in conds:
            label = g.text if g.target is None else f"{g.text} (violation)"
            if len(conds) > 1:
                label = f"{label} @ {spec.labels[ci]}"
            out.append(Axis(label, g.figure.name, g.sense, g, i))
            i += 1
    return out


def _violation_ci(t, est: float, lo: float, hi: float) -> tuple:
    """A target's violation and the range it takes over the figure's CI [lo, hi]."""
    ends = (t.violation(lo), t.violation(hi))
    if t.op == "<=":
        inside = lo <= t.hi
    elif t.op == ">=":
        inside = hi >= t.lo
    else:
        inside = lo <= t.hi and hi >= t.lo
    return t.violation(est), 0.0 if inside else min(ends), max(ends)


def axis_value(a: Axis, figures: list, changes: float) -> tuple:
    """(value, ci_low, ci_high) of objective ``a`` from a run's figures (Estimate, in
    figures_of order) and the deck changes (exact: no interval)."""
    if a.fig_index is None:
        return float(changes), float(changes), float(changes)
    e = figures[a.fig_index]
    if a.goal.target is not None:
        return _violation_ci(a.goal.target, e.estimate, e.ci_low, e.ci_high)
    return e.estimate, e.ci_low, e.ci_high


def objective_values(spec: TuneSpec, xs, changes: float) -> list:
    """The values of a trial, one per objective, from its figures' estimates ``xs``."""
    figs = [Estimate("", float(x), float(x), float(x), 0) for x in xs]
    return [axis_value(a, figs, changes)[0] for a in axes(spec)]


def objective_value(spec: TuneSpec, xs, changes: float) -> float:
    """The trial's value from its figures' estimates ``xs`` (in figures_of order); a Pareto
    study's values, one per objective (fishing2sim/tune/pareto.py)."""
    if spec.pareto:
        return objective_values(spec, xs, changes)
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
    return study.run(exp, write=False, workers=workers, progress=False, in_process=False,
               pool=pool)


def trial_figures(spec: TuneSpec, exp, workers: int, pool=None) -> list:
    """Play ``exp`` as a trial (_run_trial; its checkpoints removed afterwards, finished
    or not) and read the objective's figures from its tables."""
    try:
        res = _run_trial(exp, workers, pool)
    finally:
        shutil.rmtree(checkpoint_dir(exp), ignore_errors=True)
    return figures_of(spec, res.tables)


def evaluate(spec: TuneSpec, values: dict, seed: int, games: int, workers: int,
             tag: str, pool=None) -> Evaluation:
    t0 = time.perf_counter()
    exp = build_experiment(spec, values, seed, games, tag)
    figs = trial_figures(spec, exp, workers, pool)
    ch = deck_changes(spec, values)
    val = objective_value(spec, [f.estimate for f in figs], ch)
    return Evaluation(values, seed, games, figs, val, ch, time.perf_counter() - t0)


def _say(progress, msg):
    if progress:
        print(msg, file=sys.stderr, flush=True)
