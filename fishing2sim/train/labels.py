"""Generating labelled positions (label.label_batch) from Python: the behaviour lineup,
the teacher search and its budget, chunks of games on one or more worker processes, and
the npz file the positions are stored in (stamped with the training file's config hash).

The positions of games start .. start+n-1 are the same whatever the chunk size and the
number of workers: each game's seed, label draws and search streams depend only on the
run's seed and the game's number, and the chunks are joined in game order.
"""
from __future__ import annotations

import contextlib
import contextvars
import io
import json
import zipfile
from pathlib import Path

import numpy as np

from fishing2sim import api
from fishing2sim.engine.constants import MAX_HAND, MAX_PLAYERS, N_DECISIONS, OBS_SIZE, RULESETS
from fishing2sim.engine.core import ERR_ROLLOUT_ILLEGAL
from fishing2sim.engine.state import S_ASK_SEAT, S_ERR_CODE, STATE_SIZE
from fishing2sim.run.processes import pool_map, submit_all
from fishing2sim.safe_files import write_atomic
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.lineup import build_lineup, observe_mask, search_args
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.student.features import features_batch
from fishing2sim.student.layout import N_FEATURES
from fishing2sim.student.stored import max_npz_bytes, read_npz
from fishing2sim.train.config import TrainError
from fishing2sim.train.label import (
    M_GAME, M_KIND, M_N_OPT, M_PLAYERS, M_RULESET, M_SEAT, N_META, OBS_KEEP, label_batch,
)

ROWS_PER_GAME = 500  # more than the decisions of any game (a bound for the buffers)
MAX_ROWS = 10 ** 8  # the most positions a positions file is read with, unless told
# the executor label_games submits its chunks to when none is given (train --dask-local /
# --scheduler: a Dask cluster's, set by using_executor for the whole training run)
_EXECUTOR: contextvars.ContextVar = contextvars.ContextVar("label_executor", default=None)


@contextlib.contextmanager
def using_executor(executor):
    """Within the block, label_games runs its chunks as tasks of ``executor`` (None: the
    local processes)."""
    token = _EXECUTOR.set(executor)
    try:
        yield
    finally:
        _EXECUTOR.reset(token)


def _deck(ruleset: str):
    return api.resolve_deck(ruleset, None)


def teacher_args(teacher: str, budget, players: int):
    """(sp, rollout lineups, their tables, observe masks) of the teacher search in every
    seat; ``budget``: its [worlds, rollouts, horizon, objective] (None: its defaults)."""
    t = load_strategy(teacher)
    if not t.search:
        raise StrategyError(f"teacher '{t.name}' ({t.source}) is not a search bot (pimc, "
                            "ismcts or a file with SEARCH = ...)")
    vec = None if budget is None else [float(x) for x in budget]
    _, sp, rf, rt, ro = search_args([t] * players, [vec] * players, players)
    return sp, rf, rt, ro


def label_chunk(ruleset: str, players: int, seed: int, start: int, n: int, behaviour: str,
                teacher: str, budget, rate: float):
    """The labelled positions of games start .. start+n-1 (see label.label_batch)."""
    deck = _deck(ruleset)
    funcs, table, strats = build_lineup(behaviour, players)
    sp, rf, rt, ro = teacher_args(teacher, budget, players)
    cap = max(1, int(n * ROWS_PER_GAME * min(1.0, rate * 1.2 + 0.01)))
    out_obs = np.zeros((cap, OBS_KEEP), np.int16)
    out_vals = np.zeros((cap, MAX_HAND), np.float32)
    out_meta = np.zeros((cap, N_META), np.int64)
    stats = np.zeros(5, np.int64)
    tail = np.zeros(OBS_SIZE - OBS_KEEP, np.int64)
    st = np.zeros(STATE_SIZE, np.int64)
    st[S_ASK_SEAT] = -1
    phase = np.zeros(1, np.int64)
    args = (np.ascontiguousarray(deck.arrays), players, RULESETS[ruleset],
            np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, np.uint64(seed),
            start, n, funcs, table, observe_mask(strats), sp, rf, rt, ro, float(rate), out_obs,
            out_vals, out_meta, tail, stats, st, phase)
    try:
        rows = label_batch(*args)
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as exc:  # raised inside a strategy: one message naming it
        deciding = [load_strategy(teacher)] * players if phase[0] else strats
        failure = api.raised_in_strategy([st], exc, deciding)
        if failure is None:
            raise
        raise _in_game(failure, start + int(stats[0])) from None
    if stats[4] != 0:
        raise labelling_failure(st, strats, teacher, players, deck, start + int(stats[0]) - 1)
    if rows >= cap:
        raise RuntimeError("label buffer full (raise ROWS_PER_GAME)")
    return out_obs[:rows].copy(), out_vals[:rows].copy(), out_meta[:rows].copy(), stats[:4], tail


def labelling_failure(st, strats, teacher, players, deck, game):
    """The error of a labelling batch that stopped (label_batch's state): the engine's
    own message (api.kernel_failure) naming the strategy, the decision and the options, and
    the game. The behaviour lineup decides in the played games; the teacher's rollout
    strategy decides in its searched worlds (ERR_ROLLOUT_ILLEGAL)."""
    if int(st[S_ERR_CODE]) == ERR_ROLLOUT_ILLEGAL:
        strats = [load_strategy(teacher)] * players
    return _in_game(api.kernel_failure(st, strats, deck), game)


def _in_game(exc: Exception, game: int) -> Exception:
    """``exc`` with its message prefixed by the labelling game it stopped in."""
    exc.args = (f"labelling game {game}: {exc.args[0]}",) + tuple(exc.args[1:])
    return exc


def label_games(ruleset, players, seed, games, behaviour, teacher, budget, rate, workers=1,
                chunk=8, start=0, progress=None, executor=None):
    """label_chunk over chunks of ``chunk`` games on ``workers`` processes (or as tasks of
    ``executor``, e.g. a Dask cluster's: run.dask.dask_executor), joined in game order:
    {"obs", "values", "meta", "stats"}. ``progress(done, total)`` after each chunk."""
    chunks = [(s, min(chunk, start + games - s)) for s in range(start, start + games, chunk)]
    args = [(ruleset, players, seed, s, n, behaviour, teacher, budget, rate) for s, n in chunks]
    executor = executor if executor is not None else _EXECUTOR.get()

    def each(i, _):
        if progress:
            progress(i + 1, len(chunks))

    if executor is not None:
        parts = []
        for i, f in enumerate(submit_all(executor, label_chunk, args)):
            parts.append(f.result())
            each(i, parts[-1])
    elif workers <= 1:
        parts = []
        for i, a in enumerate(args):
            parts.append(label_chunk(*a))
            each(i, parts[-1])
    else:  # a worker ends with its parent: a killed training leaves no process behind
        parts = pool_map(label_chunk, args, workers, each)
    empty = (np.zeros((0, OBS_KEEP), np.int16), np.zeros((0, MAX_HAND), np.float32))
    return {
        "obs": np.concatenate([p[0] for p in parts]) if parts else empty[0],
        "values": np.concatenate([p[1] for p in parts]) if parts else empty[1],
        "meta": np.concatenate([p[2] for p in parts]) if parts else np.zeros((0, N_META), np.int64),
        "stats": np.sum([p[3] for p in parts], axis=0) if parts else np.zeros(4, np.int64),
        "tail_keys": np.array([[RULESETS[ruleset], players]], np.int64),
        "tails": np.array([next((p[4] for p in parts if len(p[0])), parts[0][4])
                           if parts else np.zeros(OBS_SIZE - OBS_KEEP, np.int64)]),
    }


def join(datas: list) -> dict:
    """Positions of several label_games calls, one after another."""
    out = {k: np.concatenate([d[k] for d in datas]) for k in ("obs", "values", "meta")}
    out["stats"] = np.sum([d["stats"] for d in datas], axis=0)
    keys, tails = [], []
    for d in datas:
        for k, t in zip(d["tail_keys"], d["tails"]):
            if not any((k == x).all() for x in keys):
                keys.append(k)
                tails.append(t)
    out["tail_keys"] = np.array(keys, np.int64).reshape(-1, 2)
    out["tails"] = np.array(tails, np.int64).reshape(len(keys), OBS_SIZE - OBS_KEEP)
    return out


def restore_obs(obs_keep: np.ndarray, tail: np.ndarray) -> np.ndarray:
    """Whole observations (rows) from stored ones and the deck part."""
    out = np.empty((obs_keep.shape[0], OBS_SIZE), np.int64)
    out[:, :OBS_KEEP] = obs_keep
    out[:, OBS_KEEP:] = tail[None, :]
    return out


def features_of(data: dict) -> np.ndarray:
    """The features [n, most options, N_FEATURES] (float32) of stored positions and their
    weight blocks [n] (features.block_of)."""
    obs, meta = data["obs"], data["meta"]
    m = int(meta[:, M_N_OPT].max()) if len(meta) else 1
    X = np.zeros((obs.shape[0], m, N_FEATURES), np.float32)
    blocks = np.zeros(obs.shape[0], np.int64)
    for (rs, players), tail in zip(data["tail_keys"], data["tails"]):
        sel = np.flatnonzero((meta[:, M_RULESET] == rs) & (meta[:, M_PLAYERS] == players))
        if not len(sel):
            continue
        for a in range(0, len(sel), 20000):
            part = sel[a:a + 20000]
            Xp = np.zeros((len(part), MAX_HAND, N_FEATURES), np.float64)
            bp = np.zeros(len(part), np.int64)
            features_batch(restore_obs(obs[part], tail), Xp, bp)
            X[part] = Xp[:, :m]
            blocks[part] = bp
    return X, blocks


def save_positions(path, data: dict, config_hash: str, meta: dict | None = None) -> None:
    arrays = dict(obs=data["obs"], values=data["values"], meta=data["meta"],
                  stats=np.asarray(data["stats"], np.int64), tail_keys=data["tail_keys"],
                  tails=data["tails"],
                  config_hash=np.array(config_hash),
                  info=np.array(json.dumps(meta or {}, sort_keys=True)))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, a in arrays.items():
            b = io.BytesIO()
            np.lib.format.write_array(b, np.ascontiguousarray(a), allow_pickle=False)
            z.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)),
                       b.getvalue(), compress_type=zipfile.ZIP_DEFLATED)
    write_atomic(Path(path), buf.getvalue())


def load_positions(path, config_hash: str | None = None, rows: int = MAX_ROWS) -> dict:
    """A positions file (save_positions'), checked: its arrays' dtypes and shapes, the
    values finite, the meta columns in range, a deck part for every (ruleset, players) of
    its positions, at most ``rows`` positions and, if given, the run's ``config_hash``.
    Anything else is one TrainError line naming the file (student/stored.py reads it)."""
    tail = OBS_SIZE - OBS_KEEP
    specs = {"obs": ("i", 2, rows * OBS_KEEP), "values": ("f", 2, rows * MAX_HAND),
             "meta": ("i", 2, rows * N_META), "stats": ("i", 1, 16),
             "tail_keys": ("i", 2, 2 * 64), "tails": ("i", 2, 64 * tail),
             "config_hash": ("U", (0, 1), 1, 256), "info": ("U", (0, 1), 1, 1 << 16)}
    limit = max_npz_bytes(specs) * 101 // 100  # (deflate may add a little)
    d = read_npz(path, specs, TrainError, "positions file", "training's positions",
                 limit=limit)
    problem = _positions_problem(d, tail)
    stamp = "".join(str(x) for x in d["config_hash"].ravel())
    if problem is None and config_hash is not None and stamp != config_hash:
        problem = (f"labelled by another training (config hash {stamp[:12]}…, this one's "
                   f"{config_hash[:12]}…)")
    if problem:
        raise TrainError(f"positions file {path}: {problem}; use --fresh to start over")
    return d


def _positions_problem(d: dict, tail: int) -> str | None:
    n = len(d["obs"])
    want = {"obs": (np.int16, (n, OBS_KEEP)), "values": (np.float32, (n, MAX_HAND)),
            "meta": (np.int64, (n, N_META)), "stats": (np.int64, (4,)),
            "tail_keys": (np.int64, (len(d["tail_keys"]), 2)),
            "tails": (np.int64, (len(d["tail_keys"]), tail))}
    for k, (dtype, shape) in want.items():
        if d[k].dtype != dtype or d[k].shape != shape:
            return (f"its '{k}' array is {d[k].shape} {d[k].dtype}, expected {shape} "
                    f"{np.dtype(dtype)}")
    if not np.isfinite(d["values"]).all():
        return "its option values are not all finite"
    m = d["meta"]
    ranges = {M_GAME: (0, 2 ** 62), M_KIND: (0, N_DECISIONS - 1), M_N_OPT: (1, MAX_HAND),
              M_RULESET: (0, len(RULESETS) - 1), M_PLAYERS: (3, MAX_PLAYERS)}
    for col, (lo, hi) in ranges.items():
        if n and not ((m[:, col] >= lo) & (m[:, col] <= hi)).all():
            return f"its meta column {col} has values outside {lo}..{hi}"
    if n and not ((m[:, M_SEAT] >= 0) & (m[:, M_SEAT] < m[:, M_PLAYERS])).all():
        return "its meta column of the seats has seats outside the table"
    keys = {tuple(int(x) for x in k) for k in d["tail_keys"]}
    if n and not {(int(a), int(b)) for a, b in np.unique(m[:, [M_RULESET, M_PLAYERS]],
                                                          axis=0)} <= keys:
        return "positions of a ruleset and player count without their deck part"
    return None
