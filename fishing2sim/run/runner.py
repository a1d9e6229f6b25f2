"""Play an experiment's games: chunks on local processes (or Dask), totals merged as they
stream in, each finished chunk saved as a checkpoint.

Every chunk (condition, chunk index) plays a fixed range of game indexes; game g of a
condition is always the same game (its seed derives from the condition's seed and g), so
the result never depends on the chunk size, the number of workers or the order in which
chunks finish. A chunk's result is a dict of integer arrays (counts, sums, sums of
squares, histograms) and totals are their sums: exact, so the CSVs are byte-identical for
any number of workers. :func:`play` returns the totals only; the tables are made from them
by fishing2sim.analysis (fishing2sim/study.py calls both).

An adaptive run (precision targets, an SPRT) plays in stages: between two stages the
caller's ``decide`` (fishing2sim.analysis.stopping.decide) says how many games each
condition plays next, from the totals of its whole chunks so far.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from fishing2sim import __version__, first_run
from fishing2sim.run.checkpoints import CHUNK_NAME, load_chunks, save_chunk, write_stamp
from fishing2sim.run.chunks import RunError, Task, _units, games_of, step_of, task_of
from fishing2sim.run.processes import processes, serial
from fishing2sim.run.examples import merge_examples, split_examples
from fishing2sim.run.totals import merge, split_units
from fishing2sim.run.costs import game_cost


@dataclass
class Played:
    """What a run played: per condition the merged totals and (paired conditions) the
    per-chunk unit vectors, the run's facts (``meta``), the experiment as played
    (adaptive runs: each condition's games) and per condition its example games' rows
    (run/examples.py; None with ``examples: 0``)."""
    totals: list
    units: list
    meta: dict = field(default_factory=dict)
    exp: object = None
    examples: list = field(default_factory=list)


def stage_tasks(exp, start: list, stop: list):
    """The chunks of every condition between ``start`` and ``stop`` games (plan order)."""
    for cond in exp.conditions:
        units, per = _units(cond, exp.chunk)
        g = cond.players if cond.rotate else 1
        lo, hi = start[cond.index] // g, stop[cond.index] // g
        for k in range(lo // per, -(-hi // per)):
            s0 = k * per
            yield Task(cond.index, k, s0, min(per, hi - s0))


def stop_together(exp, nxt: list, decisions: dict) -> None:
    """Conditions that share their deals (paired with their baseline) play the same games:
    each group goes on while any of its members must, so their contrast stays paired."""
    conds = exp.conditions
    group = list(range(len(conds)))

    def root(i):
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for c in conds:
        b = c.baseline
        if b is not None and c.paired and conds[b].paired and c.seed == conds[b].seed:
            group[root(c.index)] = root(b)
    most: dict = {}
    for c in conds:
        r = root(c.index)
        most[r] = max(most.get(r, 0), nxt[c.index])
    for c in conds:
        n = most[root(c.index)]
        if n != nxt[c.index]:
            nxt[c.index] = n
            if c.index in decisions:
                decisions[c.index]["with_paired"] = True
                decisions[c.index]["capped"] = False


class _Stage:
    """The games of one run so far: the merged totals (or, adaptive, every chunk's, merged
    per stage so that each decision sees exactly the chunks below the stage's end)."""

    def __init__(self, exp, folder, done, state):
        self.exp = exp
        self.totals, self.units, self.examples = state
        self.store: dict = {}
        if exp.adaptive:
            self.store = load_chunks(exp, folder, done)
            self.totals = [None] * len(exp.conditions)

    def add(self, task, t) -> None:
        if self.exp.adaptive:
            self.store[(task.condition, task.chunk)] = t
        else:
            self.totals[task.condition] = merge(self.totals[task.condition], t)
            if split_units(t):
                self.units[task.condition][task.chunk] = split_units(t)
            self._add_examples(task.condition, t)

    def _add_examples(self, c, t) -> None:
        if split_examples(t):
            self.examples[c] = merge_examples(self.examples[c], split_examples(t),
                                              self.exp.examples)

    def merge_below(self, stop: list) -> None:
        """Adaptive: the totals of the chunks below ``stop`` games of each condition."""
        n = len(self.exp.conditions)
        self.totals, self.units, self.examples = [None] * n, [{} for _ in range(n)], [None] * n
        for (c, k), t in sorted(self.store.items()):
            task = task_of(self.exp, c, k)
            if task is not None and games_of(self.exp, task) and \
                    k * step_of(self.exp, self.exp.conditions[c]) < stop[c]:
                self.totals[c] = merge(self.totals[c], t)
                if split_units(t):
                    self.units[c][k] = split_units(t)
                self._add_examples(c, t)


def _done_games(exp, done, stop, weight=None) -> float:
    """The games of the chunks already saved (each weighted by ``weight[condition]``)."""
    n = 0
    for key in done:
        m = CHUNK_NAME.fullmatch(key)
        c, k = int(m.group(1)), int(m.group(2))
        task = task_of(exp, c, k)
        if task is not None and task.start * (1 if not exp.conditions[c].rotate
                                              else exp.conditions[c].players) < stop[c]:
            n += games_of(exp, task) * (weight[c] if weight else 1)
    return n


def play(exp, folder, done, state, workers, in_process, backend, progress, pool=None,
         decide=None) -> Played:
    """Play every chunk of ``exp`` not in ``done`` (``state``: the totals and units of the
    chunks saved in ``folder``), saving each as it finishes. ``decide(exp, totals, units,
    stop, stages) -> (next stop, decisions)`` is the stopping rule of an adaptive run."""
    n_cond = len(exp.conditions)
    stop = [c.games for c in exp.conditions]
    start = [0] * n_cond
    stage = _Stage(exp, folder, done, state)
    weight = _weights(exp)  # a game's share of the bar: its lineup's cost (run/costs.py)
    total_games = sum(s * w for s, w in zip(stop, weight))
    done_games = _done_games(exp, done, stop, weight)
    # the bar comes once the compile notice has ended its line (with the first chunk); a
    # notice that starts later (a worker compiles) clears the bar's line first
    later = progress and first_run.ticking()
    bar = _NoBar() if later else _progress(total_games, done_games, progress, exp.name,
                                           weighted=len(set(weight)) > 1)
    first_run.set_on_start(getattr(bar, "clear", None))
    t0 = time.perf_counter()
    c0 = first_run.compile_seconds()
    played = 0
    stages: list = []
    decisions: dict = {}
    try:
        while True:
            pending = [t for t in stage_tasks(exp, start, stop) if t.key not in done]
            if backend is not None:
                stream = backend.results(iter(pending))
            elif in_process:
                stream = serial(exp, iter(pending))
            else:
                stream = processes(exp, iter(pending), workers, pool)
            try:
                for task, t in stream:  # in the order chunks finish: the sums do not care
                    _save(folder, exp, task, t)
                    stage.add(task, t)
                    played += games_of(exp, task)
                    first_run.compiled()
                    if later:
                        later = False
                        bar = _progress(total_games, done_games, progress, exp.name,
                                        weighted=len(set(weight)) > 1)
                    bar.update(games_of(exp, task) * weight[task.condition])
            finally:
                stream.close()
            stages.append(list(stop))
            if not exp.adaptive:
                break
            stage.merge_below(stop)
            nxt, decisions = decide(exp, stage.totals, stage.units, stop, stages, decisions)
            stop_together(exp, nxt, decisions)
            if nxt == stop:
                break
            start, stop = stop, nxt
            if hasattr(bar, "total"):
                bar.total = sum(s * w for s, w in zip(stop, weight))
                bar.refresh()
    finally:
        first_run.set_on_start(None)
        bar.close()
    elapsed = time.perf_counter() - t0
    compiling = first_run.compile_seconds()
    final = dataclasses.replace(exp, conditions=tuple(
        dataclasses.replace(c, games=stop[c.index]) for c in exp.conditions)) \
        if exp.adaptive else exp
    meta = _meta(exp, stop, played, elapsed, workers, in_process, backend)
    # the seconds of the run's time that went to compiling (in the workers, or here), and
    # the rest, the play's
    meta["compile_s"] = round(min(elapsed, compiling - c0), 2)
    meta["play_s"] = round(elapsed - meta["compile_s"], 2)
    if exp.adaptive:
        meta["stages"] = stages
        meta["adaptive"] = {i: d for i, d in sorted(decisions.items())}
    return Played(stage.totals, stage.units, meta, final, stage.examples)


def _save(folder, exp, task, t) -> None:
    try:
        write_stamp(folder, exp)
        save_chunk(folder, exp, task, t)
    except OSError as exc:
        raise RunError(f"cannot save a checkpoint in {folder}: {exc.strerror or exc} (the "
                       "chunks saved so far are kept: run again with --resume)") from None


def _meta(exp, stop, played, elapsed, workers, in_process, backend) -> dict:
    meta = {
        "games_per_condition": list(stop),
        "games": sum(stop),
        "games_played_now": played,
        "elapsed_s": round(elapsed, 2),
        "games_per_second": round(played / elapsed, 1) if elapsed > 0 and played else None,
        "workers": backend.n_workers if backend is not None else workers,
        "backend": "dask" if backend is not None else ("serial" if in_process else "processes"),
        "package_version": __version__,
        "chunks": sum(1 for _ in stage_tasks(exp, [0] * len(exp.conditions), stop)),
    }
    if backend is not None:
        meta["dask"] = {"where": backend.where, "scheduler": backend.address}
    return meta


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _weights(exp) -> list[float]:
    """Each condition's weight of a game on the bar: 1 where every lineup costs alike
    (within a factor 1.5), else its lineup's cost relative to the cheapest, so the bar's
    share and ETA count work (a search game about a thousand random ones)."""
    costs = [game_cost(c) for c in exp.conditions]
    lo = min(costs, default=1.0)
    if not costs or max(costs) <= 1.5 * lo:
        return [1.0] * len(costs)
    return [c / lo for c in costs]


def _progress(total, initial, enabled, name, weighted=False):
    """The bar: in games, or (``weighted``) in work, a game counted by its lineup's cost,
    shown as a share with its ETA."""
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    if weighted:
        return tqdm(total=total, initial=initial, desc=f"{name} (work, by each game's cost)",
                    dynamic_ncols=True, smoothing=0.1,
                    bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]")
    return tqdm(total=total, initial=initial, unit="game", unit_scale=True, desc=name,
                dynamic_ncols=True, smoothing=0.1)
