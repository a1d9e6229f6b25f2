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

import fcntl
import hashlib
import json
import math
import os
import re
import shutil
import signal
import sys
import threading
import time
from collections import deque
from multiprocessing import connection as mp_connection
from multiprocessing import resource_tracker as _resource_tracker
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


def _units(cond, chunk: int) -> tuple[int, int]:
    """(units, units per chunk) of a condition: games, or with seat rotation blocks (one
    deal played once in every rotation of the lineup)."""
    if cond.rotate:
        return math.ceil(cond.games / cond.players), max(1, chunk // cond.players)
    return cond.games, chunk


def iter_plan(exp):
    """The chunks of every condition, generated one at a time (memory does not grow with
    the number of games)."""
    for cond in exp.conditions:
        units, per = _units(cond, exp.chunk)
        for k, start in enumerate(range(0, units, per)):
            yield Task(cond.index, k, start, min(per, units - start))


def plan(exp) -> list[Task]:
    """All chunks as a list (small experiments; the runner itself uses iter_plan)."""
    return list(iter_plan(exp))


def n_chunks(exp) -> int:
    total = 0
    for cond in exp.conditions:
        units, per = _units(cond, exp.chunk)
        total += -(-units // per)
    return total


def task_of(exp, condition: int, chunk: int) -> Task | None:
    """The task of (condition, chunk index), or None if the experiment has no such chunk."""
    if not 0 <= condition < len(exp.conditions):
        return None
    units, per = _units(exp.conditions[condition], exp.chunk)
    start = chunk * per
    if chunk < 0 or start >= units:
        return None
    return Task(condition, chunk, start, min(per, units - start))


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
#
# <output>/.checkpoints/<name>/cCCCC-kKKKKKK.npz, one per finished chunk: its integer
# totals plus "_meta" (JSON bytes: the run's config hash, the chunk's key, its game count
# and a SHA-256 of the arrays). Loaded without pickle; a file that fails any check is
# discarded with a one-line warning and its chunk played again.

CHECKPOINT_FORMAT = 1
_BLOCK_KEYS = ("_block_win", "_block_points")
_CHUNK_NAME = re.compile(r"c(\d{4,})-k(\d{6,})")


def checkpoint_dir(exp) -> Path:
    return exp.output_dir.parent / ".checkpoints" / exp.name


def lock_path(exp) -> Path:
    return exp.output_dir.parent / f".{exp.name}.lock"


def _checksum(arrays: dict) -> str:
    h = hashlib.sha256()
    for k in sorted(arrays):
        a = np.ascontiguousarray(arrays[k])
        h.update(f"{k}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def save_chunk(folder: Path, exp, task: Task, totals: dict) -> Path:
    """Write one finished chunk atomically (a temporary file, then os.replace): a crash or
    a full disk never leaves a partial checkpoint under its real name."""
    meta = {"format": CHECKPOINT_FORMAT, "config_hash": exp.config_hash, "chunk": task.key,
            "games": games_of(exp, task), "checksum": _checksum(totals)}
    arrays = dict(totals)
    arrays["_meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
    final = folder / f"{task.key}.npz"
    tmp = folder / f".{task.key}.{os.getpid()}.tmp.npz"
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return final


def read_chunk(exp, path: Path) -> tuple[dict | None, str]:
    """(the chunk's totals, "") if ``path`` is a valid checkpoint of this run, else
    (None, why not)."""
    m = _CHUNK_NAME.fullmatch(path.stem)
    task = task_of(exp, int(m.group(1)), int(m.group(2))) if m else None
    if task is None:
        return None, "not a chunk of this experiment"
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception:  # truncated, empty, random bytes, pickled data: all unreadable
        return None, "unreadable (not a complete checkpoint file)"
    raw = arrays.pop("_meta", None)
    try:
        meta = json.loads(raw.tobytes().decode()) if raw is not None and raw.dtype == np.uint8 \
            else None
    except (UnicodeDecodeError, ValueError):
        meta = None
    if not isinstance(meta, dict):
        return None, "it has no readable run stamp"
    if meta.get("config_hash") != exp.config_hash:
        return None, "written by another run (another configuration)"
    if meta.get("chunk") != task.key:
        return None, f"it holds chunk {meta.get('chunk')!r}, not {task.key}"
    expected = [k for k in empty_totals(1, 1) if k not in _BLOCK_KEYS]
    missing = [k for k in expected if k not in arrays]
    extra = [k for k in arrays if k not in expected]
    if missing or extra:
        what = f"missing {', '.join(missing)}" if missing else f"unexpected {', '.join(extra)}"
        return None, f"wrong arrays ({what})"
    strat = arrays["strat_seats"]
    ref = empty_totals(exp.conditions[task.condition].players,
                       strat.shape[0] if strat.ndim == 1 else 0)
    for k in expected:
        if arrays[k].dtype != np.int64 or arrays[k].shape != ref[k].shape:
            return None, f"array {k} has the wrong shape or type"
    if meta.get("checksum") != _checksum(arrays):
        return None, "its checksum does not match its contents"
    games = games_of(exp, task)
    n = int(arrays["games"][0])
    if meta.get("games") != games or n != games \
            or int(arrays["completed"][0]) + int(arrays["overfished"][0]) != games:
        return None, f"it holds {n} games, the chunk has {games}"
    return arrays, ""


def _warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr, flush=True)


def open_checkpoints(exp, resume: bool) -> tuple[Path, set, list]:
    """The checkpoint folder (created), the keys of its valid chunks and their totals per
    condition. Without ``resume`` an old folder is emptied first."""
    folder = checkpoint_dir(exp)
    for p in (folder.parent, folder):
        if p.exists() and not p.is_dir():
            raise RunError(f"{p} is a file, not a folder: the run keeps its checkpoints "
                           "there; move the file away")
    stamp = folder / "config_hash"
    try:
        if folder.exists() and not resume:
            shutil.rmtree(folder)
        if resume and stamp.is_file() and stamp.read_text() != exp.config_hash:
            raise RunError(
                f"{exp.path}: --resume: the experiment changed since the interrupted run "
                f"(its checkpoints in {folder} belong to another configuration); run without "
                "--resume to start again")
        folder.mkdir(parents=True, exist_ok=True)
        for tmp in folder.glob(".*.tmp.npz"):  # left by a killed save
            tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise RunError(f"cannot use the checkpoint folder {folder}: "
                       f"{exc.strerror or exc}") from None
    totals: list = [None] * len(exp.conditions)
    done: set = set()
    for path in sorted(folder.glob("c*-k*.npz")):
        t, why = read_chunk(exp, path)
        if t is None:
            _warn(f"checkpoint {path}: {why}: discarded, its chunk is played again")
            try:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink(missing_ok=True)
            except OSError as exc:
                raise RunError(f"cannot remove the bad checkpoint {path}: "
                               f"{exc.strerror or exc}") from None
            continue
        cond = int(_CHUNK_NAME.fullmatch(path.stem).group(1))
        totals[cond] = merge(totals[cond], t)
        done.add(path.stem)
    return folder, done, totals


def _write_stamp(folder: Path, exp) -> None:
    stamp = folder / "config_hash"
    if not stamp.is_file():
        tmp = folder / f".config_hash.{os.getpid()}.tmp"
        tmp.write_text(exp.config_hash)
        os.replace(tmp, stamp)


def _drop_checkpoints(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    parent = folder.parent
    try:
        if parent.exists() and not any(parent.iterdir()):
            parent.rmdir()
    except OSError:
        pass


class OutputLock:
    """An exclusive lock on a report folder (``<output>/.<name>.lock``, fcntl.flock, holding
    the PID): two runs never share checkpoints or a report. Released (and the file removed)
    by ``release``; the kernel drops it if the process dies."""

    def __init__(self, exp):
        self.exp = exp
        self.path = lock_path(exp)
        self.fd = None
        self.created = False

    def acquire(self) -> "OutputLock":
        parent = self.path.parent
        self.created = not parent.exists()  # removed again if the run leaves it empty
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"cannot create the output folder {parent}: "
                           f"{exc.strerror or exc}") from None
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise RunError(f"cannot create the lock file {self.path}: "
                               f"{exc.strerror or exc}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                try:
                    pid = os.read(fd, 64).decode().strip() or "unknown"
                finally:
                    os.close(fd)
                raise RunError(f"{self.exp.output_dir}: in use by another run (PID {pid}); "
                               "wait for it to finish or stop it") from None
            try:  # its previous holder may have removed the file between open and flock
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            self.fd = fd
            return self

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None
        if self.created:
            try:
                self.path.parent.rmdir()
            except OSError:  # not empty: the report or checkpoints are there
                pass


# ------------------------------------------------------------------------------------
# stopping: Ctrl-C (SIGINT) and SIGTERM


class RunInterrupted(KeyboardInterrupt):
    """The run was stopped by a signal; ``saved`` of ``total`` chunks are on disk."""

    def __init__(self, signum: int, saved: int, total: int):
        super().__init__(signum, saved, total)
        self.signum, self.saved, self.total = signum, saved, total

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    def __str__(self):
        return (f"interrupted; {self.saved} of {self.total} chunks saved; --resume continues")


class _Stop(KeyboardInterrupt):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


class _StopSignals:
    """While active (main thread only): SIGINT and SIGTERM raise _Stop once; any further
    signal is ignored while the run cleans up (and after it, with ``ignore_after_stop``:
    for a caller that exits right away)."""

    def __init__(self, ignore_after_stop: bool = False):
        self.old: dict = {}
        self.signum = None
        self.ignore_after_stop = ignore_after_stop

    def _handle(self, signum, frame):
        if self.signum is None:
            self.signum = signum
            raise _Stop(signum)

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for s in (signal.SIGINT, signal.SIGTERM):
                self.old[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc):
        for s, h in self.old.items():
            stopped = self.signum is not None and self.ignore_after_stop
            signal.signal(s, signal.SIG_IGN if stopped else h)
        return False


# ------------------------------------------------------------------------------------
# workers


_worker_exp = None


def _work(task: Task):
    return task, run_chunk(_worker_exp, task)


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def run(experiment, workers: int | None = None, resume: bool = False, progress: bool = True,
        write: bool = True, overrides: dict | None = None, scheduler: str | None = None,
        dask_local: int | None = None, in_process: bool | None = None,
        yes: bool = False, ignore_after_stop: bool = False) -> Results:
    """Run an experiment (a path or a loaded Experiment); write its report unless write=False.

    Local processes by default (``workers``: how many; with 1 the chunks run in this
    process unless ``in_process=False``). With ``scheduler`` (a Dask scheduler address,
    also the file's ``scheduler`` key) or ``dask_local`` (start a local Dask cluster of that
    many workers) the chunks run as Dask tasks instead; the totals merge the same way, so
    the CSVs are the same byte for byte. Returns the Results (tables as pandas DataFrames).

    Raises ExperimentError / RunError for bad input before anything is written (a path above
    the size limits of experiment.py needs ``yes=True``; a report folder in use by another
    run is refused).
    SIGINT (Ctrl-C) or SIGTERM stops the workers at once and raises RunInterrupted (a
    KeyboardInterrupt) naming how many chunks are saved: ``resume=True`` continues.
    ``ignore_after_stop`` keeps both signals ignored after such a stop (the command line,
    which then prints one line and exits: a second Ctrl-C cannot interrupt that).
    """
    from .experiment import Experiment, load_experiment

    exp = experiment if isinstance(experiment, Experiment) \
        else load_experiment(experiment, overrides, yes=yes)
    scheduler = scheduler or getattr(exp, "scheduler", None)
    if dask_local is not None and dask_local < 1:
        raise RunError(f"--dask-local needs a number of workers >= 1, got {dask_local}")
    if workers is None or workers == 0:
        workers = exp.workers or default_workers()
    if in_process is None:
        in_process = workers == 1
    total_chunks = n_chunks(exp)
    total_games = sum(c.games for c in exp.conditions)
    lock = OutputLock(exp)
    with _StopSignals(ignore_after_stop):
        saved = 0
        folder = None
        try:
            lock.acquire()
            backend = None
            if scheduler or dask_local:
                from .dask_backend import DaskBackend

                backend = DaskBackend(exp, scheduler=scheduler, n_local=dask_local)  # fails early
            try:
                folder, done, totals = open_checkpoints(exp, resume)
                saved = len(done)
                results = _play(exp, folder, done, totals, total_games, total_chunks, workers,
                                in_process, backend, progress)
            except BaseException:
                if backend is not None:
                    backend.close(fast=True)
                raise
            if backend is not None:
                backend.close()
            if write:
                from .report import write_report

                try:
                    write_report(exp, results)
                except OSError as exc:
                    raise RunError(f"cannot write the report {exp.output_dir}: "
                                   f"{exc.strerror or exc} (the older report is untouched and "
                                   "the finished chunks are kept: run again with --resume)"
                                   ) from None
                _drop_checkpoints(folder)
            return results
        except KeyboardInterrupt as exc:
            signum = getattr(exc, "signum", signal.SIGINT)
            n = len(list(folder.glob("c*-k*.npz"))) if folder is not None and folder.is_dir() \
                else saved
            if folder is not None and n == 0:
                _drop_checkpoints(folder)
            raise RunInterrupted(signum, n, total_chunks) from None
        except BaseException:
            if folder is not None and folder.is_dir() and not any(folder.glob("c*-k*.npz")):
                _drop_checkpoints(folder)
            raise
        finally:
            lock.release()


def _play(exp, folder, done, totals, total_games, total_chunks, workers, in_process,
          backend, progress) -> Results:
    pending = (t for t in iter_plan(exp) if t.key not in done)
    done_games = 0
    for key in done:
        m = _CHUNK_NAME.fullmatch(key)
        done_games += games_of(exp, task_of(exp, int(m.group(1)), int(m.group(2))))
    bar = _progress(total_games, done_games, progress, exp.name)
    t0 = time.perf_counter()
    played = 0
    if backend is not None:
        stream = backend.results(pending)
    elif in_process:
        stream = _serial(exp, pending)
    else:
        stream = _processes(exp, pending, workers)
    try:
        for task, t in stream:  # in the order chunks finish: the sums do not care
            try:
                _write_stamp(folder, exp)
                save_chunk(folder, exp, task, t)
            except OSError as exc:
                raise RunError(f"cannot save a checkpoint in {folder}: {exc.strerror or exc} "
                               "(the chunks saved so far are kept: run again with --resume)"
                               ) from None
            totals[task.condition] = merge(totals[task.condition], t)
            played += games_of(exp, task)
            bar.update(games_of(exp, task))
    finally:
        stream.close()
        bar.close()
    elapsed = time.perf_counter() - t0
    meta = {
        "games_per_condition": [c.games for c in exp.conditions],
        "games": total_games,
        "games_played_now": played,
        "elapsed_s": round(elapsed, 2),
        "games_per_second": round(played / elapsed, 1) if elapsed > 0 and played else None,
        "workers": backend.n_workers if backend is not None else workers,
        "backend": "dask" if backend is not None else ("serial" if in_process else "processes"),
        "package_version": __version__,
        "chunks": total_chunks,
    }
    from .analysis import tables_from_totals

    return Results(tables_from_totals(exp, totals), meta, totals)


def _serial(exp, pending):
    _init_local(exp)
    for task in pending:
        yield _work(task)


def _worker_main(conn, exp):
    """A worker process: plays the chunks it receives until it gets None. Ctrl-C is for
    the parent (it stops the workers); SIGTERM ends the process at once, even inside a
    compiled kernel."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    _init_local(exp)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            conn.send(("ok", task, run_chunk(exp, task)))
        except BaseException as exc:
            try:
                conn.send(("error", task, exc))
            except Exception:  # an exception that does not pickle
                conn.send(("error", task, RuntimeError(f"{type(exc).__name__}: {exc}")))
            return


def _start_workers(exp, workers: int):
    ctx = mp.get_context("spawn")
    procs, conns = [], []
    # the children start with SIGINT/SIGTERM blocked (the mask survives exec), so a Ctrl-C
    # while they import cannot print a traceback; each unblocks once it ignores SIGINT.
    # multiprocessing's resource tracker unblocks both signals after it starts (on the
    # first spawn), so it is started before the mask is set
    _resource_tracker.ensure_running()
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    old_env = os.environ.get("NUMBA_NUM_THREADS")
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    try:
        for i in range(workers):
            mine, theirs = ctx.Pipe()
            p = ctx.Process(target=_worker_main, args=(theirs, exp), daemon=True,
                            name=f"fishing2sim-worker-{i}")
            procs.append(p)
            conns.append(mine)
            p.start()
            theirs.close()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        _stop_workers(procs, conns, graceful=False)
        raise
    finally:
        if old_env is None:
            os.environ.pop("NUMBA_NUM_THREADS", None)
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    return procs, conns


def _stop_workers(procs, conns, graceful: bool) -> None:
    """Stop every worker: politely after a finished run, else SIGTERM at once (a compiled
    kernel cannot be interrupted from inside), then SIGKILL any that lingers."""
    try:
        if graceful:
            for c in conns:
                try:
                    c.send(None)
                except OSError:
                    pass
            deadline = time.monotonic() + 5
            for p in procs:
                if p.pid is not None:
                    p.join(max(0.0, deadline - time.monotonic()))
    finally:
        for p in procs:
            if p.pid is not None and p.exitcode is None:
                p.terminate()
        deadline = time.monotonic() + 1
        for p in procs:
            if p.pid is not None:
                p.join(max(0.0, deadline - time.monotonic()))
        for p in procs:
            if p.pid is not None and p.exitcode is None:
                p.kill()
                p.join(1)
        for c in conns:
            c.close()


def _worker_died(proc, task: Task) -> RunError:
    proc.join(1)  # its pipe closes a moment before it can be reaped
    code = proc.exitcode
    if code is not None and code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit code {code}"
    return RunError(f"a worker process died ({how}) while playing chunk {task.key}; the "
                    "chunks saved so far are kept: run again with --resume")


def _processes(exp, pending, workers):
    """Local worker processes (spawned: each loads numba's cached kernels once), each fed
    at most two chunks at a time through its own pipe."""
    procs, conns = _start_workers(exp, workers)
    inflight = [deque() for _ in procs]
    finished = False
    try:
        def feed(i):
            while len(inflight[i]) < 2:
                task = next(pending, None)
                if task is None:
                    return
                conns[i].send(task)
                inflight[i].append(task)

        for i in range(len(procs)):
            feed(i)
        while any(inflight):
            busy = [i for i in range(len(procs)) if inflight[i]]
            ready = mp_connection.wait([conns[i] for i in busy] + [procs[i].sentinel for i in busy],
                                       timeout=1.0)
            for i in busy:
                if conns[i] in ready or (procs[i].sentinel in ready and conns[i].poll()):
                    try:
                        status, task, payload = conns[i].recv()
                    except (EOFError, OSError):
                        status = None
                    if status is None:
                        raise _worker_died(procs[i], inflight[i][0])
                    inflight[i].popleft()
                    if status == "error":
                        raise payload
                    yield task, payload
                    feed(i)
                elif procs[i].sentinel in ready:
                    raise _worker_died(procs[i], inflight[i][0])
        finished = True
    finally:
        _stop_workers(procs, conns, graceful=finished)


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
