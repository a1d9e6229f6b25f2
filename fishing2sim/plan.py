"""A plan before the run (docs/reference.md, "run --plan"): what a file will take and give,
from a short pilot of its own conditions.

The pilot plays a few games of every condition in this process (each level's games scaled
by one factor so that the pilot takes about ``budget`` CPU seconds, at least one game, or
one rotation block, a condition), timing each condition's play apart from the compile.
From it:

- the time: a condition's pilot seconds per game times its games, summed and shared over the
  workers (the chunks are independent, so a run on W workers takes about 1/W of the CPU
  time while there are chunks for every worker);
- the widths: the pilot's own tables (the report's, ``analysis.tables``), each headline
  figure's 95% half-width scaled by sqrt(pilot units / full units) (a CI's width goes as one
  over the square root of its sample). A share whose pilot saw no variation (all or none of
  the games) is given the width of the add-two estimate, (x + 2) / (n + 4), so that a rare
  outcome never plans a width of zero.

``--quick`` scales every level by one factor so that the whole file takes about a minute
by the same estimate (``quick_factor``).

A file that stops by a precision target is planned by its own stopping rule
(analysis/stopping.py): each condition starts with the file's games and grows by
``grow_games`` while a targeted figure's expected half-width (the pilot's, scaled by the
square-root law) is above its target, up to its max_games; the time and the widths are then
those of the games it is expected to stop at. An SPRT's stop depends on the effect it finds:
its plan gives the most it may play (max_games) and says so.
"""
from __future__ import annotations

import dataclasses
import math
import os
import time
from dataclasses import dataclass, field

import numpy as np

from fishing2sim.analysis.contrasts import half_widths
from fishing2sim.analysis.stopping import contrast_widths, grow_games
from fishing2sim.analysis.tables import tables_from_totals
from fishing2sim.config.keys import PROFILE
from fishing2sim.run.chunks import Task, run_chunk, step_of
from fishing2sim.run.totals import merge, split_units

Z = 1.959964
# the headline figures a plan reports: (table, the rows' metric, the figure's words, the
# factor to its unit, its unit (None: the row's own), the columns of its estimate and
# interval); the rows kept are those of the whole game (no round)
FIGURES = (
    ("overfishing", "overfished_share", "overfishing share", 100.0, "pp",
     ("estimate", "ci_low", "ci_high")),
    ("depletion", "ocean_empty_share", "the ocean runs out", 100.0, "pp",
     ("estimate", "ci_low", "ci_high")),
    ("trump_value", "stakes_half_points", "trump choice's worth", 1.0, "points",
     ("estimate", "ci_low", "ci_high")),
    ("trump_value", "stakes_half_win", "trump choice's worth", 100.0, "pp of win chance",
     ("estimate", "ci_low", "ci_high")),
    ("contrasts", None, "difference from the baseline", 1.0, None,
     ("difference", "diff_ci_low", "diff_ci_high")),
    ("panel", None, "deck effect at the level", 1.0, None,
     ("effect", "effect_ci_low", "effect_ci_high")),
)


@dataclass
class ConditionPlan:
    index: int
    level: str
    name: str
    games: int
    pilot_games: int
    pilot_seconds: float

    @property
    def cpu_seconds(self) -> float:
        return self.pilot_seconds / max(1, self.pilot_games) * self.games


@dataclass
class Plan:
    exp: object
    workers: int
    conditions: list
    widths: list = field(default_factory=list)  # (figure words, unit, level, condition, hw)
    pilot_seconds: float = 0.0
    compile_seconds: float = 0.0
    # an adaptive file: condition -> (the file's games, its cap, the targets not expected
    # to be reached by the cap); empty for a file of fixed games
    adaptive: dict = field(default_factory=dict)

    @property
    def cpu_seconds(self) -> float:
        return sum(c.cpu_seconds for c in self.conditions)

    def wall_seconds(self) -> float:
        """CPU seconds over the workers (at most the cores), never below the longest
        single chunk."""
        longest = max((c.cpu_seconds / max(1, math.ceil(c.games / self.exp.chunk))
                       for c in self.conditions), default=0.0)
        cores = min(max(1, self.workers), os.cpu_count() or 1)
        return max(self.cpu_seconds / cores, longest)

    def by_level(self) -> dict:
        out: dict = {}
        for c in self.conditions:
            d = out.setdefault(c.level, {"conditions": 0, "games": set(), "cpu": 0.0})
            d["conditions"] += 1
            d["games"].add(c.games)
            d["cpu"] += c.cpu_seconds
        return out


def _step(c) -> int:
    return c.players if c.rotate else 1


def make_plan(exp, workers: int, budget: float = 10.0, echo=None,
              fraction: float | None = None) -> Plan:
    """Play the pilot of ``exp`` and return its plan (nothing is written).

    Two passes over the conditions: first each plays 1, 4, 16, ... games (or rotation
    blocks) until it has taken a fifth of its share of the budget, which measures what a
    game of it costs here, analyses and all; then every condition plays on to the same
    fraction of its games, chosen so that the pilot takes about ``budget`` CPU seconds.
    ``fraction`` fixes that fraction instead (no first pass: the same pilot every time).
    Costs are CPU seconds of this process (``time.process_time``), so a busy machine does
    not inflate them."""
    conds = exp.conditions
    units = [(-(-c.games // c.players) if c.rotate else c.games) for c in conds]
    pilot = dataclasses.replace(exp, conditions=tuple(
        dataclasses.replace(c, max_games=0) for c in conds), chunk=max(max(units), 1),
        precision=(), sprt=None,  # the behaviour profile replays a condition's first
        analyses=tuple(a for a in exp.analyses if a != PROFILE))  # games: not a game's cost
    if echo is not None:
        echo(f"pilot: a few games of each of the {len(conds)} condition"
             f"{'' if len(conds) == 1 else 's'} (about {budget:.0f} s of CPU)")
    compile_s = _warm(pilot, conds)
    t_all = time.perf_counter()
    played, cpu, chunks = [0] * len(conds), [0.0] * len(conds), [[] for _ in conds]

    def play(i: int, upto: int) -> None:
        c = conds[i]
        if upto <= played[i]:
            return
        t0 = time.process_time()
        chunks[i].append(run_chunk(pilot, Task(c.index, len(chunks[i]), played[i],
                                               upto - played[i])))
        cpu[i] += time.process_time() - t0
        played[i] = upto

    if fraction is None:
        target = 0.2 * budget / len(conds)
        for i in range(len(conds)):
            while cpu[i] < target and played[i] < units[i]:
                play(i, min(units[i], 4 * played[i] or 1))
        per_unit = [cpu[i] / played[i] for i in range(len(conds))]
        full = sum(per_unit[i] * units[i] for i in range(len(conds))) or 1.0
        f = min(1.0, budget / full)
    else:
        f = min(1.0, fraction)
    for i in range(len(conds)):
        play(i, max(played[i], 1, min(units[i], int(round(units[i] * f)))))
    plans, totals, unit_vectors = [], [], []
    for i, c in enumerate(conds):
        plans.append(ConditionPlan(c.index, c.level or c.name or c.label, c.name or c.label,
                                   c.games, min(c.games, played[i] * _step(c)), cpu[i]))
        merged, vecs = None, {}
        for k, t in enumerate(chunks[i]):
            merged = merge(merged, t)
            if split_units(t):
                vecs[k] = split_units(t)
        totals.append(merged)
        unit_vectors.append(vecs)
    tables_exp = dataclasses.replace(pilot, conditions=tuple(
        dataclasses.replace(c, games=p.pilot_games) for c, p in zip(pilot.conditions, plans)))
    plan = Plan(exp, workers, plans, pilot_seconds=time.perf_counter() - t_all,
                compile_seconds=compile_s)
    full = exp
    if exp.adaptive:
        plan.adaptive = expected_stops(exp, plans, totals, unit_vectors)
        for p in plans:
            p.games = plan.adaptive[p.index][3]
        full = dataclasses.replace(exp, conditions=tuple(
            dataclasses.replace(c, games=p.games) for c, p in zip(exp.conditions, plans)))
    plan.widths = _widths(tables_exp, full, tables_from_totals(tables_exp, totals,
                                                               unit_vectors))
    return plan


def expected_stops(exp, plans, totals, unit_vectors) -> dict:
    """condition -> (the file's games, the cap, the targets not reached by the cap, the
    games the run is expected to stop at): the stopping rule of analysis/stopping.py played
    on the pilot's half-widths, each scaled by sqrt(pilot games / games). An SPRT's stop
    is not foreseen: its condition is planned at its cap."""
    con_hw = contrast_widths(exp, totals, unit_vectors) if exp.precision else {}
    out = {}
    for cond, p, t in zip(exp.conditions, plans, totals):
        cap = max(cond.max_games, cond.games)
        hw = {**half_widths(exp, cond, t), **con_hw.get(cond.index, {})} \
            if exp.precision else {}
        targets = [(f, w) for f, w, _ in exp.precision if f in hw and np.isfinite(hw[f])]
        step = step_of(exp, cond)
        games = cond.games

        def ratio(g: int) -> float:
            return max((hw[f] * math.sqrt(max(1, p.pilot_games) / g) / w
                        for f, w in targets), default=0.0)

        if exp.sprt is not None:
            games = cap
        while games < cap and ratio(games) > 1:
            games = min(grow_games(games, step, ratio(games)), cap)
        short = [f for f, w in targets if hw[f] * math.sqrt(max(1, p.pilot_games) / games) > w]
        out[cond.index] = (cond.games, cap, short, games)
    return out


def _warm(pilot, conds) -> float:
    """Play one game of each lineup once (compiling it if the cache is cold), so that no
    compile counts in a condition's cost; its seconds."""
    t0 = time.perf_counter()
    seen: set = set()
    for c in conds:
        key = (c.lineup, c.params, c.players, c.rotate)
        if key not in seen:
            seen.add(key)
            run_chunk(pilot, Task(c.index, 0, 0, 1))
    return time.perf_counter() - t0


def headline_rows(df, metric):
    """The rows of a figure's table that hold ``metric`` (None: every row), the whole game's
    (not a round's)."""
    if metric is not None:
        if "metric" not in df.columns:
            return df.iloc[0:0]
        df = df[df["metric"] == metric]
    if "round" in df.columns:
        df = df[df["round"].isna()]
    return df


def _widths(pilot, exp, tables: dict) -> list:
    """(figure, unit, level, condition, planned half-width) of every headline figure."""
    scale = [math.sqrt(p.games / max(1, f.games))
             for p, f in zip(pilot.conditions, exp.conditions)]
    out = []
    for table, metric, words, factor, unit, (est, lo, hi) in FIGURES:
        df = tables.get(table)
        if df is None or not hasattr(df, "columns") or lo not in df.columns:
            continue
        for _, r in headline_rows(df, metric).iterrows():
            c = condition_of(r, exp)
            if c is None:
                continue
            row_unit = unit or str(r.get("unit", ""))
            k = 100.0 if unit is None and row_unit == "pp" else factor  # shares: in pp
            hw = (float(r[hi]) - float(r[lo])) / 2 * k
            n = float(r.get("n", 0) or 0)
            if k == 100.0 and unit is not None and (not np.isfinite(hw) or hw <= 0):
                hw = _add_two(float(r[est]), n)
            if not np.isfinite(hw):
                continue
            label = words if unit is not None else f"{words} ({r.get('figure', '')})"
            cond = exp.conditions[c]
            out.append((label, row_unit, cond.level or cond.name or cond.label, c,
                        hw * scale[c]))
    return out


def condition_of(r, exp) -> int | None:
    """The index of the condition of ``exp`` a table row speaks of (a skill panel's row: its
    level's edited condition at that player count); None for none."""
    if "condition" in r.index:
        c = int(r["condition"])
    elif "level" in r.index and "players" in r.index and "contrast" in r.index:
        # a panel row: its level's edited condition at that player count
        hits = [c.index for c in exp.conditions if c.level == r["level"]
                and c.players == int(r["players"]) and c.baseline is not None
                and (c.name == r["contrast"] or c.label == r["contrast"])]
        if not hits:
            hits = [c.index for c in exp.conditions if c.level == r["level"]
                    and c.players == int(r["players"]) and c.baseline is not None]
        c = hits[0] if hits else None
    else:
        return None
    return c if c is not None and 0 <= c < len(exp.conditions) else None


def _add_two(share: float, n: float) -> float:
    """The half-width in pp of a share (0 to 1) with no variation in its pilot: the add-two
    estimate's binomial width."""
    if n <= 0:
        return float("nan")
    x = share * n
    pt = (x + 2) / (n + 4)
    return Z * math.sqrt(pt * (1 - pt) / n) * 100.0


QUICK_SECONDS = 60.0  # --quick: the run's time aimed at


def quick_factor(plan: Plan, seconds: float | None = None) -> float:
    """The factor on every level's games for a run of about ``seconds`` (QUICK_SECONDS;
    at most 1)."""
    seconds = QUICK_SECONDS if seconds is None else seconds
    wall = plan.wall_seconds()
    return 1.0 if wall <= seconds else seconds / wall


def describe(plan: Plan, factor: float = 1.0) -> list[str]:
    """The plan as lines: per level its games, CPU time and share of the time; the expected
    wall time; per figure and level the largest planned half-width (with ``factor``: of a
    run with every level's games times ``factor``)."""
    exp = plan.exp
    lines = [f"plan for {exp.path.name}: {len(exp.conditions)} condition"
             f"{'' if len(exp.conditions) == 1 else 's'}, {plan.workers} worker"
             f"{'' if plan.workers == 1 else 's'}"
             + (f", every level's games x {factor:.3g}" if factor != 1.0 else "")]
    levels = plan.by_level()
    total = plan.cpu_seconds or 1.0
    top = max(levels, key=lambda k: levels[k]["cpu"])
    lines.append(f"  {'level':<12} {'games/condition':>16} {'conditions':>10} "
                 f"{'CPU time':>10} {'share':>6}")
    for name, d in levels.items():
        games = "/".join(f"{max(1, round(g * factor)):,}" for g in sorted(d["games"]))
        mark = "  <- most of the time" if name == top and len(levels) > 1 else ""
        lines.append(f"  {name:<12} {games:>16} {d['conditions']:>10} "
                     f"{_duration(d['cpu'] * factor):>10} {d['cpu'] / total:>6.0%}{mark}")
    lines.append(f"expected time: about {_duration(plan.wall_seconds() * factor)} on "
                 f"{plan.workers} worker{'' if plan.workers == 1 else 's'} (from a "
                 f"{plan.pilot_seconds:.0f} s pilot of "
                 f"{sum(c.pilot_games for c in plan.conditions):,} games on this machine "
                 "now; compiling not included)")
    lines += _adaptive_lines(plan)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    cores = os.cpu_count() or 1
    if load > 0.5 * cores:
        lines.append(f"  the machine is busy now (load {load:.1f} on {cores} cores): the time "
                     "above is on free cores; expect the run to take longer")
    if plan.widths:
        lines.append("expected 95% half-widths (the largest over each level's conditions):")
        best: dict = {}
        for label, unit, level, _, hw in plan.widths:
            k = (label, unit)
            best.setdefault(k, {})
            best[k][level] = max(best[k].get(level, 0.0), hw / math.sqrt(factor))
        for (label, unit), per in best.items():
            bits = ", ".join(f"{lv} ±{_num(w)}" for lv, w in per.items())
            lines.append(f"  {label}, in {unit}: {bits}")
    return lines


def _adaptive_lines(plan: Plan) -> list[str]:
    """An adaptive file: what its rule is expected to play, condition by condition."""
    exp = plan.exp
    if not plan.adaptive:
        return []
    if exp.sprt is not None:
        head = ("an SPRT stops when its test decides, which the pilot cannot foresee: the "
                "games and time above are the most it may play (max_games)")
    else:
        targets = ", ".join(f"{f} to ±{text}" for f, _, text in exp.precision)
        head = (f"it plays until {targets} (precision): the games above are where each "
                "condition is expected to stop, from the pilot's widths")
    lines = [head]
    for c in exp.conditions:
        start, cap, short, games = plan.adaptive[c.index]
        name = c.name or c.label or f"condition {c.index}"
        tail = f"; {', '.join(short)} not reached by the cap" if short else ""
        stop = (f"at most {cap:,}" if exp.sprt is not None
                else f"expected to stop at {games:,} (at most {cap:,})")
        lines.append(f"  {name}: {start:,} games first, {stop}{tail}")
    return lines


def _num(w: float) -> str:
    return f"{w:.2g}" if w < 1 else f"{w:.1f}"


def _duration(s: float) -> str:
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"
