"""Run an experiment: chunks of games on local processes, totals merged as they stream in.

    from fishing2sim.runner import run
    results = run("experiments/trump.yaml")       # Results: .tables (DataFrames), .meta

Every chunk (condition, chunk index) plays a fixed range of game indexes; game g of a
condition is always the same game (its seed derives from the condition's seed and g), so
the result never depends on the chunk size, the number of workers or the order in which
chunks finish. A chunk's result is a dict of integer arrays (counts, sums, sums of
squares, histograms) and totals are their sums: exact, so the CSVs are byte-identical for
any number of workers. Finished chunks are saved to a checkpoint folder as they arrive;
``resume=True`` reuses them after an interruption.
"""
from __future__ import annotations

import math
import os
import shutil
import signal
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import multiprocessing as mp
import numpy as np

from . import __version__
from .engine import constants as K

R = K.MAX_ROUNDS + 1
MAX_POINTS = 1024  # score histogram bins (the last one collects anything higher)


class RunError(ValueError):
    """A run that cannot start (e.g. --resume with a changed experiment file)."""


@dataclass
class Results:
    tables: dict
    meta: dict = field(default_factory=dict)
    totals: list = field(default_factory=list)  # per condition: the merged totals


# ------------------------------------------------------------------------------------
# one chunk


@dataclass(frozen=True)
class Task:
    condition: int
    chunk: int
    start: int  # first game (or rotation block) index
    count: int  # games (or blocks)

    @property
    def key(self) -> str:
        return f"c{self.condition:04d}-k{self.chunk:06d}"


def plan(exp) -> list[Task]:
    """The chunks of every condition. With seat rotation the unit is a block: one deal
    played once in every rotation of the lineup."""
    tasks = []
    for cond in exp.conditions:
        units = cond.games
        per = exp.chunk
        if cond.rotate:
            units = math.ceil(cond.games / cond.players)
            per = max(1, exp.chunk // cond.players)
        for k, start in enumerate(range(0, units, per)):
            tasks.append(Task(cond.index, k, start, min(per, units - start)))
    return tasks


def games_of(exp, task: Task) -> int:
    cond = exp.conditions[task.condition]
    return task.count * (cond.players if cond.rotate else 1)


def strategy_names(cond) -> list[str]:
    """The distinct strategies of a condition's lineup, in lineup order."""
    from .strategies import load_strategy

    names = []
    for spec in cond.lineup:
        n = load_strategy(spec).name
        if n not in names:
            names.append(n)
    return names


_prepared: dict = {}


def _prepare(exp, cond):
    """Per process: the lineups (one per rotation) of a condition, built once."""
    key = (exp.config_hash, cond.index, exp.strict)
    if key in _prepared:
        return _prepared[key]
    from .strategies import build_lineup, load_strategy, observe_mask

    P = cond.players
    rotations = range(P) if cond.rotate else range(1)
    lineups = []
    names = strategy_names(cond)
    for r in rotations:
        # rotation r: seat p plays lineup entry (p - r) mod P
        idx = [(p - r) % P for p in range(P)]
        specs = [cond.lineup[i] for i in idx]
        params = [cond.params[i] for i in idx]
        funcs, table, strats = build_lineup(specs, P, params, exp.strict)
        slot = np.array([names.index(load_strategy(s).name) for s in specs], np.int64)
        lineups.append((funcs, table, observe_mask(strats), slot, strats))
    arrays = np.ascontiguousarray(cond.deck.arrays)
    hands = np.ascontiguousarray(cond.deck.hand_sizes[P])
    _prepared[key] = (lineups, names, arrays, hands)
    return _prepared[key]


def run_chunk(exp, task: Task) -> dict:
    """Play one chunk and reduce it to totals (a dict of int64 arrays)."""
    from .api import call_kernel, kernel_failure, new_work
    from .engine.batch import N_G, N_T, G_ERR_CODE, play_batch, trump_batch

    cond = exp.conditions[task.condition]
    lineups, names, arrays, hands = _prepare(exp, cond)
    P = cond.players
    n = task.count
    trump = "trump_value" in exp.analyses
    totals = empty_totals(P, len(names))
    for funcs, table, mask, slot, strats in lineups:
        out_int = np.zeros((n, N_G), np.int64)
        out_points = np.zeros((n, K.MAX_PLAYERS), np.int64)
        out_ocean = np.zeros((n, 2 * R), np.int64)
        out_trump = np.zeros((n, 2 * R), np.int64)
        out_round_points = np.zeros((n, R, K.MAX_PLAYERS), np.int64)
        work = new_work()
        args = (arrays, P, K.RULESETS[cond.deck.ruleset], hands, cond.deck.n_rounds,
                cond.first_leader, np.uint64(cond.seed), task.start, n, funcs, table, 0, mask,
                work)
        if trump:
            pairs = np.zeros((n, R, N_T), np.int64)
            dummy = np.zeros((1, K.EV_FIELDS), np.int64)
            done = call_kernel(trump_batch, (
                *args, exp.trump_max_round, out_int, out_points, out_ocean, out_trump,
                out_round_points, pairs, -1, dummy, dummy, dummy, np.zeros(3, np.int64)),
                work, strats)
        else:
            pairs = None
            done = call_kernel(play_batch, (*args, out_int, out_points, out_ocean, out_trump,
                                            out_round_points), work, strats)
        if done and out_int[done - 1, G_ERR_CODE] != 0:
            raise kernel_failure(work[0], strats, cond.deck)
        accumulate(totals, P, slot, out_int, out_points, out_ocean, pairs)
    add_blocks(totals, len(lineups), n)
    return totals


# ------------------------------------------------------------------------------------
# totals: integer sufficient statistics of every analysis


def empty_totals(players: int, n_strategies: int) -> dict:
    S = n_strategies
    z = np.zeros
    return {
        "games": z(1, np.int64),
        "completed": z(1, np.int64),
        "overfished": z(1, np.int64),
        "overfished_d1c": z(1, np.int64),  # through draw-1-card
        "overfished_round": z(R + 1, np.int64),  # by end_round
        "rounds_sum": z(2, np.int64),  # sum, sum of squares of rounds started
        "reached": z(R, np.int64),  # games that started round r
        "ocean_hist": z((R, K.MAX_CARDS + 1), np.int64),  # after round r's draws
        "empty_by": z(R, np.int64),  # ocean empty by (the end of) round r
        "tier_reached": z(6, np.int64),  # games that drew a card of tier t
        "seat_win": z((K.MAX_PLAYERS, 2), np.int64),  # sum, sumsq of win shares (60ths)
        "first_leader_win": z(2, np.int64),
        "spread": z(2, np.int64),  # max - min points: sum, sumsq
        "strat_win": z((S, 2), np.int64),  # per unit (game or block): sum, sumsq
        "strat_points": z((S, 2), np.int64),
        "strat_seats": z(S, np.int64),  # seat-games played by the strategy
        "strat_units": z(1, np.int64),  # units (games, or rotation blocks)
        "score_hist": z((S, MAX_POINTS), np.int64),
        # trump pairs per round: n, light chosen, sum g, sum g^2, sum d1*d2, sum (d1*d2)^2
        # with g = sign * (d1 + d2); first for points, then for win share (60ths)
        "trump": z((R, 10), np.int64),
        # block accumulators (rotation): per strategy, this chunk's per-block sums
        "_block_win": z((0, S), np.int64),
        "_block_points": z((0, S), np.int64),
    }


def win_shares(out_int, out_points, players):
    """Per game and seat: the win share in 60ths."""
    pts = out_points[:, :players]
    best = pts.max(axis=1, keepdims=True)
    won = pts == best
    k = won.sum(axis=1, keepdims=True)
    return np.where(won, 60 // k, 0)


def accumulate(t: dict, P: int, slot, out_int, out_points, out_ocean, pairs):
    from .engine.batch import (G_END, G_END_ROUND, G_FIRST_LEADER, G_MAX_TIER, G_ROUNDS,
                               T_CHOICE, T_CHOOSER, T_D1_POINTS, T_D1_WIN, T_D2_POINTS,
                               T_D2_WIN)

    n = out_int.shape[0]
    t["games"] += n
    end = out_int[:, G_END]
    over = end == K.END_OVERFISHED
    t["completed"] += int((end == K.END_COMPLETED).sum())
    t["overfished"] += int(over.sum())
    rounds = out_int[:, G_ROUNDS]
    d1c = over & (rounds == out_int[:, G_END_ROUND])
    t["overfished_d1c"] += int(d1c.sum())
    t["overfished_round"] += np.bincount(out_int[over, G_END_ROUND], minlength=R + 1)[:R + 1]
    t["rounds_sum"] += [int(rounds.sum()), int((rounds * rounds).sum())]
    for r in range(1, R):
        reached = rounds >= r
        t["reached"][r] += int(reached.sum())
        t["ocean_hist"][r] += np.bincount(out_ocean[reached, r], minlength=K.MAX_CARDS + 1)
        last = np.minimum(rounds, r)
        ocean_end = out_ocean[np.arange(n), R + last]
        t["empty_by"][r] += int(((ocean_end == 0) & (last >= 1)).sum())
    t["tier_reached"] += np.bincount(out_int[:, G_MAX_TIER], minlength=6)[::-1].cumsum()[::-1][:6]
    t["tier_reached"][0] = 0
    ws = win_shares(out_int, out_points, P)
    t["seat_win"][:P, 0] += ws.sum(axis=0)
    t["seat_win"][:P, 1] += (ws * ws).sum(axis=0)
    fl = ws[np.arange(n), out_int[:, G_FIRST_LEADER]]
    t["first_leader_win"] += [int(fl.sum()), int((fl * fl).sum())]
    pts = out_points[:, :P]
    spread = pts.max(axis=1) - pts.min(axis=1)
    t["spread"] += [int(spread.sum()), int((spread * spread).sum())]
    S = t["strat_win"].shape[0]
    # per game: each strategy's summed win share and points over its seats
    gw = np.zeros((n, S), np.int64)
    gp = np.zeros((n, S), np.int64)
    for p in range(P):
        gw[:, slot[p]] += ws[:, p]
        gp[:, slot[p]] += pts[:, p]
        t["strat_seats"][slot[p]] += n
        t["score_hist"][slot[p]] += np.bincount(np.minimum(np.maximum(pts[:, p], 0), MAX_POINTS - 1),
                                                minlength=MAX_POINTS)
    t["_block_win"] = np.vstack([t["_block_win"], gw]) if t["_block_win"].size else gw
    t["_block_points"] = np.vstack([t["_block_points"], gp]) if t["_block_points"].size else gp
    if pairs is not None:
        ch = pairs[:, :, T_CHOOSER] >= 0
        for r in range(1, R):
            m = ch[:, r]
            if not m.any():
                continue
            sign = np.where(pairs[m, r, T_CHOICE] == K.C_LIGHT, 1, -1)
            row = t["trump"][r]
            row[0] += int(m.sum())
            row[1] += int((sign > 0).sum())
            for j, (a, b) in enumerate(((T_D1_POINTS, T_D2_POINTS), (T_D1_WIN, T_D2_WIN))):
                d1 = pairs[m, r, a]
                d2 = pairs[m, r, b]
                g = sign * (d1 + d2)
                prod = d1 * d2
                row[2 + 4 * j] += int(g.sum())
                row[3 + 4 * j] += int((g * g).sum())
                row[4 + 4 * j] += int(prod.sum())
                row[5 + 4 * j] += int((prod * prod).sum())


def add_blocks(t: dict, n_rot: int, n_units: int):
    """Fold the per-game strategy sums into per-unit sums and their squares. A unit is a
    game, or with seat rotation a block: the same deal played in every rotation."""
    gw, gp = t.pop("_block_win"), t.pop("_block_points")
    if n_rot > 1:  # rows are [rotation][block]: sum the rotations of each block
        gw = gw.reshape(n_rot, n_units, -1).sum(axis=0)
        gp = gp.reshape(n_rot, n_units, -1).sum(axis=0)
    t["strat_units"] += gw.shape[0]
    t["strat_win"][:, 0] += gw.sum(axis=0)
    t["strat_win"][:, 1] += (gw * gw).sum(axis=0)
    t["strat_points"][:, 0] += gp.sum(axis=0)
    t["strat_points"][:, 1] += (gp * gp).sum(axis=0)


def merge(into: dict | None, t: dict) -> dict:
    if into is None:
        return {k: v.copy() for k, v in t.items()}
    for k, v in t.items():
        into[k] += v
    return into


# ------------------------------------------------------------------------------------
# checkpoints


def checkpoint_dir(exp) -> Path:
    return exp.output_dir.parent / ".checkpoints" / exp.name


def save_chunk(folder: Path, task: Task, totals: dict):
    tmp = folder / f".{task.key}.{os.getpid()}.tmp.npz"
    np.savez(tmp, **totals)
    os.replace(tmp, folder / f"{task.key}.npz")


def load_chunk(path: Path) -> dict:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def open_checkpoints(exp, resume: bool) -> tuple[Path, set]:
    folder = checkpoint_dir(exp)
    stamp = folder / "config_hash"
    if folder.exists() and not resume:
        shutil.rmtree(folder)
    if resume and folder.exists():
        if not stamp.is_file() or stamp.read_text() != exp.config_hash:
            raise RunError(
                f"{exp.path}: --resume: the experiment changed since the interrupted run "
                f"(its checkpoints in {folder} belong to another configuration); run without "
                "--resume to start again")
    folder.mkdir(parents=True, exist_ok=True)
    stamp.write_text(exp.config_hash)
    done = {p.stem for p in folder.glob("c*-k*.npz")}
    return folder, done


# ------------------------------------------------------------------------------------
# workers


_worker_exp = None


def _init_worker(exp):
    global _worker_exp
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    _worker_exp = exp


def _work(task: Task):
    return task, run_chunk(_worker_exp, task)


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def run(experiment, workers: int | None = None, resume: bool = False, progress: bool = True,
        write: bool = True, overrides: dict | None = None, scheduler: str | None = None,
        dask_local: int | None = None) -> Results:
    """Run an experiment (a path or a loaded Experiment); write its report unless write=False.

    Local processes by default (``workers``: how many; 1 runs in this process). With
    ``scheduler`` (a Dask scheduler address, also the file's ``scheduler`` key) or
    ``dask_local`` (start a local Dask cluster of that many workers) the chunks run as Dask
    tasks instead; the totals merge the same way, so the CSVs are the same byte for byte.
    Returns the Results (tables as pandas DataFrames). Raises ExperimentError / RunError for
    bad input before anything is written; KeyboardInterrupt leaves finished chunks on disk.
    """
    from .experiment import Experiment, load_experiment

    exp = experiment if isinstance(experiment, Experiment) else load_experiment(experiment, overrides)
    scheduler = scheduler or getattr(exp, "scheduler", None)
    if workers is None or workers == 0:
        workers = exp.workers or default_workers()
    tasks = plan(exp)
    backend = None
    if scheduler or dask_local:
        from .dask_backend import DaskBackend

        backend = DaskBackend(exp, scheduler=scheduler, n_local=dask_local)  # fails early
    folder, done = open_checkpoints(exp, resume)
    totals: list = [None] * len(exp.conditions)
    for task in tasks:
        if task.key in done:
            totals[task.condition] = merge(totals[task.condition],
                                           load_chunk(folder / f"{task.key}.npz"))
    pending = [t for t in tasks if t.key not in done]
    total_games = sum(games_of(exp, t) for t in tasks)
    done_games = total_games - sum(games_of(exp, t) for t in pending)
    bar = _progress(total_games, done_games, progress, exp.name)
    t0 = time.perf_counter()
    played = 0
    try:
        if backend is not None:
            stream = backend.results(pending)
        elif workers == 1:
            stream = _serial(exp, pending)
        else:
            stream = _processes(exp, pending, workers)
        for task, t in stream:  # in the order chunks finish: the sums do not care
            save_chunk(folder, task, t)
            totals[task.condition] = merge(totals[task.condition], t)
            played += games_of(exp, task)
            bar.update(games_of(exp, task))
    finally:
        bar.close()
        if backend is not None:
            backend.close()
    elapsed = time.perf_counter() - t0
    meta = {
        "games_per_condition": [c.games if not c.rotate else math.ceil(c.games / c.players) * c.players
                                for c in exp.conditions],
        "games": total_games,
        "games_played_now": played,
        "elapsed_s": round(elapsed, 2),
        "games_per_second": round(played / elapsed, 1) if elapsed > 0 and played else None,
        "workers": backend.n_workers if backend is not None else workers,
        "backend": "dask" if backend is not None else ("serial" if workers == 1 else "processes"),
        "package_version": __version__,
        "chunks": len(tasks),
    }
    from .analysis import tables_from_totals

    results = Results(tables_from_totals(exp, totals), meta, totals)
    if write:
        from .report import write_report

        write_report(exp, results)
        shutil.rmtree(folder, ignore_errors=True)
        parent = folder.parent
        if parent.exists() and not any(parent.iterdir()):
            parent.rmdir()
    return results


def _serial(exp, pending):
    _init_local(exp)
    for task in pending:
        yield _work(task)


def _processes(exp, pending, workers):
    """Local processes (spawned: each loads numba's cached kernels once)."""
    ctx = mp.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker,
                             initargs=(exp,)) as pool:
        queue = list(pending)
        running = set()
        try:
            while queue or running:
                while queue and len(running) < 2 * workers:
                    running.add(pool.submit(_work, queue.pop(0)))
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for f in finished:
                    yield f.result()
        except BaseException:
            for f in running:
                f.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _init_local(exp):
    global _worker_exp
    _worker_exp = exp


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _progress(total, initial, enabled, name):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", unit_scale=True, desc=name,
                dynamic_ncols=True, smoothing=0.1)
