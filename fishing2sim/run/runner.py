"""Run an experiment: chunks of games on local processes, totals merged as they stream in.

    from fishing2sim.run.runner import run
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
import io
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

from fishing2sim import __version__, first_run
from fishing2sim.first_run import cache_places, cold_cache  # noqa: F401  (the runner's names, as before)
from fishing2sim.safe_files import (FileSafetyError, check_replaceable, read_regular, real_folder,
                         remove_ours, write_atomic)
from fishing2sim.run.chunks import (  # noqa: F401  (the runner's public names, as before)
    RunError, Task, _prepare, _units, games_of, iter_plan, n_chunks, plan, run_chunk,
    strategy_names, task_of,
)
from fishing2sim.run.totals import (  # noqa: F401
    BLOCK_KEYS as _BLOCK_KEYS, MAX_POINTS, R, UNIT_PREFIX, accumulate, add_blocks,
    empty_totals, merge, split_units, summed_keys, unit_keys, win_shares,
)


@dataclass
class Results:
    tables: dict
    meta: dict = field(default_factory=dict)
    totals: list = field(default_factory=list)  # per condition: the merged totals
    units: list = field(default_factory=list)  # per condition: chunk -> unit vectors (paired)
    exp: object = None  # the experiment as run (precision runs: each condition's games)


# ------------------------------------------------------------------------------------
# checkpoints
#
# <output>/.checkpoints/<name>/cCCCC-kKKKKKK.npz, one per finished chunk: its integer
# totals plus "_meta" (JSON bytes: the run's config hash, the chunk's key, its game count
# and a SHA-256 of the arrays). Loaded without pickle; a file that fails any check is
# discarded with a one-line warning and its chunk played again.

CHECKPOINT_FORMAT = 3
CONTRAST_PREFIX = "contrast."  # a precision target on a contrast: contrast.<figure>
MAX_CHECKPOINT = 1 << 30  # a checkpoint file is read only up to 1 GiB
_CHUNK_NAME = re.compile(r"c(\d{4,})-k(\d{6,})")


def checkpoint_dir(exp) -> Path:
    return exp.output_dir.parent / ".checkpoints" / exp.name


def lock_path(exp) -> Path:
    return OutputLock.file_of(exp.output_dir.parent, exp.name)


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
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return write_atomic(folder / f"{task.key}.npz", buf.getvalue())


def read_chunk(exp, path: Path) -> tuple[dict | None, str]:
    """(the chunk's totals, "") if ``path`` is a valid checkpoint of this run, else
    (None, why not)."""
    m = _CHUNK_NAME.fullmatch(path.stem)
    task = task_of(exp, int(m.group(1)), int(m.group(2))) if m else None
    if task is None:
        return None, "not a chunk of this experiment"
    try:  # a regular file only (a link, FIFO or device is not read), of bounded size
        data = read_regular(path, MAX_CHECKPOINT, what="checkpoint")
    except FileSafetyError as exc:
        return None, f"not read ({exc.message.split(': ', 1)[-1]})"
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
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
    expected = summed_keys()
    cond = exp.conditions[task.condition]
    held = [k for k in arrays if k.startswith(UNIT_PREFIX)]
    missing = [k for k in expected if k not in arrays]
    if getattr(cond, "paired", False):  # a paired condition's chunk holds its unit vectors
        missing += [k for k in unit_keys("trump_value" in exp.analyses) if k not in arrays]
    extra = [k for k in arrays if k not in expected
             and not (getattr(cond, "paired", False) and k in held)]
    for k in held:
        if k in extra:
            continue
        if arrays[k].dtype != np.int64 or arrays[k].ndim < 1 or arrays[k].shape[0] != task.count:
            return None, f"array {k} has the wrong shape or type"
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
    """The checkpoint folder (created), the keys of its valid chunks and (their totals per
    condition, their unit vectors per condition and chunk). Without ``resume`` an old folder is emptied first."""
    folder = checkpoint_dir(exp)
    for p in (folder.parent, folder):
        if p.is_symlink():
            raise RunError(f"{p} is a symbolic link: the run keeps its checkpoints there and "
                           "does not write or delete through links; remove the link")
        if p.exists() and not p.is_dir():
            raise RunError(f"{p} is a file, not a folder: the run keeps its checkpoints "
                           "there; move the file away")
    stamp = folder / "config_hash"
    try:
        if folder.exists() and not resume:
            if any(folder.iterdir()) and not _holds_checkpoints(folder):
                raise RunError(f"{folder}: this folder holds files that are not checkpoints "
                               "of fishing2sim; it is left as it is: move it away")
            n_old = len(list(folder.glob("c*-k*.npz")))
            if n_old:
                _warn(f"{n_old} saved chunk{'s' if n_old != 1 else ''} of an interrupted run "
                      f"in {folder} discarded: the run starts again (--resume continues one)")
            remove_ours(folder)
        if resume and stamp.is_file() and read_regular(stamp, 1024).decode(
                "utf-8", "replace") != exp.config_hash:
            raise RunError(
                f"{exp.path}: --resume: the experiment changed since the interrupted run "
                f"(its checkpoints in {folder} belong to another configuration); run without "
                "--resume to start again")
        real_folder(folder, "checkpoint folder")
        for tmp in folder.glob(".*.tmp"):  # left by a killed save (a link: only it goes)
            os.unlink(tmp)
    except OSError as exc:
        raise RunError(f"cannot use the checkpoint folder {folder}: "
                       f"{getattr(exc, 'message', None) or exc.strerror or exc}") from None
    totals: list = [None] * len(exp.conditions)
    units: list = [{} for _ in exp.conditions]
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
        m = _CHUNK_NAME.fullmatch(path.stem)
        cond, k = int(m.group(1)), int(m.group(2))
        totals[cond] = merge(totals[cond], t)
        if split_units(t):
            units[cond][k] = split_units(t)
        done.add(path.stem)
    return folder, done, (totals, units)


def _write_stamp(folder: Path, exp) -> None:
    stamp = folder / "config_hash"
    if not stamp.is_file() or stamp.is_symlink():
        write_atomic(stamp, exp.config_hash)


def _holds_checkpoints(folder: Path) -> bool:
    """True if every entry of ``folder`` is what a run keeps there (chunk files, the
    config stamp, temporary files of a save): only such a folder is ever deleted."""
    for e in os.scandir(folder):
        if e.is_dir(follow_symlinks=False):
            if not _CHUNK_NAME.fullmatch(Path(e.name).stem):  # a bad 'chunk' that is a folder
                return False
        elif not (e.name == "config_hash" or _CHUNK_NAME.fullmatch(Path(e.name).stem)
                  or e.name.endswith(".tmp") or e.name.endswith(".tmp.npz")):
            return False
    return True


def _drop_checkpoints(folder: Path) -> None:
    try:
        if folder.is_symlink() or not folder.is_dir() or not _holds_checkpoints(folder):
            return
        remove_ours(folder)
    except OSError:
        return
    parent = folder.parent
    try:
        if parent.is_dir() and not parent.is_symlink() and not any(parent.iterdir()):
            parent.rmdir()
    except OSError:
        pass


class OutputLock:
    """An exclusive lock on a report folder ``<folder>/<name>`` (the file
    ``<folder>/.<name>.lock``, fcntl.flock, holding the PID): two runs (``run`` or ``tune``)
    never share checkpoints, a study or a report. Released (and the file removed) by
    ``release``; the kernel drops it if the process dies. The lock file is opened with
    safe_files.open_lock: a link in its place is refused."""

    def __init__(self, folder: Path, name: str):
        self.target = Path(folder) / name  # the folder the lock guards (named in messages)
        self.path = self.file_of(folder, name)
        self.fd = None
        self.created = False

    @staticmethod
    def file_of(folder: Path, name: str) -> Path:
        return Path(folder) / f".{name}.lock"

    def __enter__(self) -> "OutputLock":
        return self.acquire()

    def __exit__(self, *exc) -> bool:
        self.release()
        return False

    def acquire(self) -> "OutputLock":
        from fishing2sim.safe_files import FileSafetyError, open_lock

        parent = self.path.parent
        self.created = not parent.exists()  # removed again if the run leaves it empty
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"cannot create the output folder {parent}: "
                           f"{exc.strerror or exc}") from None
        while True:
            try:
                fd = open_lock(self.path)
            except FileSafetyError as exc:
                raise RunError(str(exc)) from None
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
                raise RunError(f"{self.target}: in use by another run (PID {pid}); "
                               "wait for it to finish or stop it") from None
            try:  # its previous holder may have removed the file between open and flock
                same = os.stat(self.path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
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
        yes: bool = False, ignore_after_stop: bool = False,
        pool: WorkerPool | None = None) -> Results:
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
    ``pool`` (a WorkerPool; local processes only, not in_process) keeps the workers for
    the caller's next run. With ``progress`` and a cold cache, the compile notice comes
    before the first compile (fishing2sim/first_run.py).
    """
    with first_run.notice(progress):
        return _run(experiment, workers, resume, progress, write, overrides, scheduler,
                    dask_local, in_process, yes, ignore_after_stop, pool)


def _run(experiment, workers, resume, progress, write, overrides, scheduler, dask_local,
         in_process, yes, ignore_after_stop, pool) -> Results:
    from fishing2sim.config.experiment import Experiment, load_experiment

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
    first_run.before_compile()  # the workers (or this process) compile the engine now
    total_games = sum(c.games for c in exp.conditions)
    lock = OutputLock(exp.output_dir.parent, exp.name)
    with _StopSignals(ignore_after_stop):
        saved = 0
        folder = None
        try:
            lock.acquire()
            if write:  # refused now, not after the games: a folder of the user's own
                _check_output(exp)
            backend = None
            if scheduler or dask_local:
                from fishing2sim.run.dask import DaskBackend

                backend = DaskBackend(exp, scheduler=scheduler, n_local=dask_local)  # fails early
            try:
                folder, done, totals = open_checkpoints(exp, resume)
                saved = len(done)
                results = _play(exp, folder, done, totals, total_games, total_chunks, workers,
                                in_process, backend, progress, pool)
            except BaseException:
                if backend is not None:
                    backend.close(fast=True)
                raise
            if backend is not None:
                backend.close()
            if write:
                from fishing2sim.report import write_report

                try:
                    write_report(results.exp or exp, results)
                except FileSafetyError as exc:
                    raise RunError(f"{exc} (the finished chunks are kept: run again with "
                                   "--resume)") from None
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


def _check_output(exp) -> None:
    """The report folder may be written: missing, or a real folder this program made."""
    try:
        check_replaceable(exp.output_dir)
    except FileSafetyError as exc:
        raise RunError(str(exc)) from None


def _stage_tasks(exp, start: list, stop: list):
    """The chunks of every condition between ``start`` and ``stop`` games (plan order)."""
    for cond in exp.conditions:
        units, per = _units(cond, exp.chunk)
        g = cond.players if cond.rotate else 1
        lo, hi = start[cond.index] // g, stop[cond.index] // g
        for k in range(lo // per, -(-hi // per)):
            s0 = k * per
            yield Task(cond.index, k, s0, min(per, hi - s0))


def _step(exp, cond) -> int:
    units, per = _units(cond, exp.chunk)
    return per * (cond.players if cond.rotate else 1)


def grow_games(games: int, step: int, ratio: float) -> int:
    """The precision rule: a figure whose 95% CI half-width is ``ratio`` times its target
    needs about ratio^2 times the games (the square-root law), 5% more, in whole steps
    (chunks), at least one more step, at most four times the games so far. ``ratio`` is
    capped first (a target of 1e-200 would overflow a float when squared)."""
    if not ratio > 1:
        return games
    need = -(-int(math.ceil(games * min(ratio, 3.0) ** 2 * 1.05)) // step) * step
    return max(games, min(max(need, games + step), 4 * games))


def _next_games(exp, cond, t, games: int, contrast_hw: dict | None = None,
                looks: list | None = None) -> tuple[int, dict]:
    """Precision / SPRT: the games condition ``cond`` plays next (``games``: stop), decided
    from the totals of its whole chunks so far only (so any number of workers plays the
    same games), and what was decided. ``contrast_hw``: the half-widths of the contrasts
    with a precision target that this condition takes part in (as condition or baseline).
    ``looks``: the games at every decision so far, this one included (default: this one
    only); a stopped SPRT reports the estimate that accounts for them (fishing2sim/analysis/sprt.py)."""
    from fishing2sim.analysis.contrasts import half_widths, sprt_state
    from fishing2sim.analysis.sprt import next_games, stopped_estimate

    step = _step(exp, cond)
    cap = max(cond.max_games, games)
    info: dict = {"games": games}
    want = games
    if exp.precision:
        hw = {**half_widths(exp, cond, t), **(contrast_hw or {})}
        info["precision"] = {f: {"target": w, "half_width": hw[f], "as_written": text,
                                 "reached": bool(hw[f] <= w)}  # a figure without a CI: not
                             for f, w, text in exp.precision if f in hw}
        worst = max((hw[f] / w for f, w, _ in exp.precision if f in hw and hw[f] > w),
                    default=0.0)
        want = max(want, grow_games(games, step, worst))
    if exp.sprt is not None:
        st = sprt_state(exp, cond, t)
        info["sprt"] = st
        if st["decision"] is None:
            want = max(want, next_games(games, step))
    want = min(want, -(-cap // step) * step if cap % step else cap)
    info["capped"] = want <= games and (
        any(not v["reached"] for v in info.get("precision", {}).values())
        or ("sprt" in info and info["sprt"]["decision"] is None))
    if "sprt" in info and (info["sprt"]["decision"] is not None or want <= games):
        # the test stopped (a boundary, or max_games): the estimate that accounts for it
        g = cond.players if cond.rotate else 1
        seen = sorted({int(v) for v in (looks or [])} | {games})
        st = info["sprt"]
        st["sequential"] = stopped_estimate(exp.sprt, [v // g for v in seen], st["score"],
                                            st["var"])
    return max(want, games), info


def _contrast_widths(exp, totals, units) -> dict:
    """condition -> {"contrast.F": the widest 95% CI half-width of its contrasts of figure
    F} for the precision targets on contrasts: a condition and its baseline both get it
    (both must play more for the difference to narrow)."""
    targets = [f for f, _, _ in exp.precision if f.startswith(CONTRAST_PREFIX)]
    if not targets:
        return {}
    from fishing2sim.analysis.contrasts import contrast_table

    con = contrast_table(exp, totals, units)
    out: dict = {}
    for f in targets:
        rows = con[con["figure"] == f[len(CONTRAST_PREFIX):]]
        for r in rows.itertuples():
            hw = (r.diff_ci_high - r.diff_ci_low) / 2
            hw = math.inf if hw != hw else hw  # no CI yet: not reached
            for c in (int(r.condition), int(r.baseline)):
                d = out.setdefault(c, {})
                d[f] = max(d.get(f, 0.0), hw)
    return out


def _stop_together(exp, nxt: list, decisions: dict) -> None:
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


def _play(exp, folder, done, state, total_games, total_chunks, workers, in_process,
          backend, progress, pool=None) -> Results:
    totals, units = state
    n_cond = len(exp.conditions)
    stop = [c.games for c in exp.conditions]
    start = [0] * n_cond
    chunk_store: dict = {}  # adaptive runs: (condition, chunk) -> totals, merged per stage
    if exp.adaptive:
        # the decisions must see exactly the chunks below each stage's end: merge per stage
        chunk_store = _load_chunks(exp, folder, done)
        totals = [None] * n_cond
    done_games = 0
    for key in done:
        m = _CHUNK_NAME.fullmatch(key)
        c, k = int(m.group(1)), int(m.group(2))
        task = task_of(exp, c, k)
        if task is not None and task.start * (1 if not exp.conditions[c].rotate
                                              else exp.conditions[c].players) < stop[c]:
            done_games += games_of(exp, task)
    # the bar comes once the compile notice has ended its line (with the first chunk)
    later = progress and first_run.ticking()
    bar = _NoBar() if later else _progress(total_games, done_games, progress, exp.name)
    t0 = time.perf_counter()
    played = 0
    stages: list = []
    decisions: dict = {}
    try:
        while True:
            pending = [t for t in _stage_tasks(exp, start, stop) if t.key not in done]
            if backend is not None:
                stream = backend.results(iter(pending))
            elif in_process:
                stream = _serial(exp, iter(pending))
            else:
                stream = _processes(exp, iter(pending), workers, pool)
            try:
                for task, t in stream:  # in the order chunks finish: the sums do not care
                    try:
                        _write_stamp(folder, exp)
                        save_chunk(folder, exp, task, t)
                    except OSError as exc:
                        raise RunError(f"cannot save a checkpoint in {folder}: "
                                       f"{exc.strerror or exc} (the chunks saved so far are "
                                       "kept: run again with --resume)") from None
                    if exp.adaptive:
                        chunk_store[(task.condition, task.chunk)] = t
                    else:
                        totals[task.condition] = merge(totals[task.condition], t)
                        if split_units(t):
                            units[task.condition][task.chunk] = split_units(t)
                    played += games_of(exp, task)
                    first_run.compiled()
                    if later:
                        later = False
                        bar = _progress(total_games, done_games, progress, exp.name)
                    bar.update(games_of(exp, task))
            finally:
                stream.close()
            stages.append(list(stop))
            if not exp.adaptive:
                break
            totals = [None] * n_cond
            units = [{} for _ in range(n_cond)]
            for (c, k), t in sorted(chunk_store.items()):
                task = task_of(exp, c, k)
                if task is not None and games_of(exp, task) and \
                        k * _step(exp, exp.conditions[c]) < stop[c]:
                    totals[c] = merge(totals[c], t)
                    if split_units(t):
                        units[c][k] = split_units(t)
            nxt = list(stop)
            con_hw = _contrast_widths(exp, totals, units)
            for cond in exp.conditions:
                if totals[cond.index] is None:
                    continue
                nxt[cond.index], decisions[cond.index] = _next_games(
                    exp, cond, totals[cond.index], stop[cond.index],
                    con_hw.get(cond.index), [s[cond.index] for s in stages])
            _stop_together(exp, nxt, decisions)
            if nxt == stop:
                break
            start, stop = stop, nxt
            if hasattr(bar, "total"):
                bar.total = sum(stop)
                bar.refresh()
    finally:
        bar.close()
    elapsed = time.perf_counter() - t0
    import dataclasses

    final = dataclasses.replace(exp, conditions=tuple(
        dataclasses.replace(c, games=stop[c.index]) for c in exp.conditions)) \
        if exp.adaptive else exp
    meta = {
        "games_per_condition": list(stop),
        "games": sum(stop),
        "games_played_now": played,
        "elapsed_s": round(elapsed, 2),
        "games_per_second": round(played / elapsed, 1) if elapsed > 0 and played else None,
        "workers": backend.n_workers if backend is not None else workers,
        "backend": "dask" if backend is not None else ("serial" if in_process else "processes"),
        "package_version": __version__,
        "chunks": sum(1 for _ in _stage_tasks(exp, [0] * n_cond, stop)),
    }
    if backend is not None:
        meta["dask"] = {"where": backend.where, "scheduler": backend.address}
    if exp.adaptive:
        meta["stages"] = stages
        meta["adaptive"] = {i: d for i, d in sorted(decisions.items())}
    from fishing2sim.analysis.tables import tables_from_totals

    return Results(tables_from_totals(final, totals, units), meta, totals, units, final)


def _load_chunks(exp, folder, done) -> dict:
    out = {}
    for key in done:
        t, _ = read_chunk(exp, folder / f"{key}.npz")
        if t is not None:
            m = _CHUNK_NAME.fullmatch(key)
            out[(int(m.group(1)), int(m.group(2)))] = t
    return out


def _serial(exp, pending):
    _init_local(exp)
    for task in pending:
        yield _work(task)


PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Make this (child) process end when its parent dies, even inside a compiled kernel
    (a SIGKILLed parent cannot stop it): on Linux the kernel sends SIGKILL
    (prctl(PR_SET_PDEATHSIG)); elsewhere a daemon thread watches the parent's PID. The
    parent may have died already: checked right after. (Linux sends the signal when the
    *thread* that started the child ends: children are started and stopped by the same
    thread here. The watching thread cannot run while a compiled kernel holds the GIL:
    where prctl is missing, a worker stuck in a decision ends only when it leaves it.)"""
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent_pid:  # died before the prctl: reparented already
        os._exit(1)
    if not armed:
        def watch():
            while os.getppid() == parent_pid:
                time.sleep(0.5)
            os.kill(os.getpid(), signal.SIGKILL)  # a kernel holds the GIL: no os._exit here

        threading.Thread(target=watch, name="fishing2sim-parent-watch", daemon=True).start()


def child_signals(parent_pid: int) -> None:
    """The start of a child process that plays games (a run's worker, play's game): Ctrl-C
    is for the parent (which stops the child); SIGTERM ends it at once, even inside a
    compiled kernel; so does the parent's death. The parent starts it with both signals
    blocked (see _start_children): unblocked here, once SIGINT is ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent_pid)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def _worker_main(conn, exp, parent_pid):
    """A worker process: plays the chunks it receives until it gets None (a message
    ("exp", experiment) switches the experiment: a WorkerPool's next run)."""
    child_signals(parent_pid)
    _init_local(exp)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        if isinstance(task, tuple) and task and task[0] == "exp":
            exp = task[1]
            _init_local(exp)
            continue
        try:
            conn.send(("ok", task, run_chunk(exp, task)))
        except BaseException as exc:
            try:
                conn.send(("error", task, exc))
            except Exception:  # an exception that does not pickle
                conn.send(("error", task, RuntimeError(f"{type(exc).__name__}: {exc}")))
            return


def _start_workers(exp, workers: int):
    return start_children(_worker_main, (exp,), workers, "fishing2sim-worker")


def start_children(target, args: tuple, n: int, name: str, method: str = "spawn"):
    """``n`` child processes running ``target(conn, *args, parent_pid)`` (which starts with
    child_signals), each with a pipe: (processes, the parent's ends of the pipes)."""
    ctx = mp.get_context(method)
    procs, conns = [], []
    # the children start with SIGINT/SIGTERM blocked (the mask survives exec), so a Ctrl-C
    # while they import cannot print a traceback; each unblocks once it ignores SIGINT.
    # multiprocessing's resource tracker unblocks both signals after it starts (on the
    # first spawn), so it is started before the mask is set
    if method != "fork":
        _resource_tracker.ensure_running()
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    old_env = os.environ.get("NUMBA_NUM_THREADS")
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    try:
        for i in range(n):
            mine, theirs = ctx.Pipe()
            p = ctx.Process(target=target, args=(theirs, *args, os.getpid()), daemon=True,
                            name=f"{name}-{i}")
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


class WorkerPool:
    """Local worker processes kept from one run to the next (tune's trials: one start-up
    for the whole tune, not one per trial). ``run(..., pool=pool)`` uses it: the workers
    are started on first use (again after a run that failed or was stopped, which stops
    them at once) and get each run's experiment; ``close`` stops them."""

    def __init__(self):
        self.procs: list = []
        self.conns: list = []

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, exc_type, *exc) -> bool:
        self.close(graceful=exc_type is None)
        return False

    def workers_for(self, exp, workers: int):
        """The pool's (processes, pipes), ``workers`` of them, set to play ``exp``."""
        if len(self.procs) == workers and all(p.is_alive() for p in self.procs):
            try:
                for c in self.conns:
                    c.send(("exp", exp))
                return self.procs, self.conns
            except OSError:  # a worker died meanwhile: start afresh
                pass
        self.close(graceful=False)
        self.procs, self.conns = _start_workers(exp, workers)
        return self.procs, self.conns

    def close(self, graceful: bool = True) -> None:
        procs, conns, self.procs, self.conns = self.procs, self.conns, [], []
        if procs:
            _stop_workers(procs, conns, graceful=graceful)


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


def _how_it_died(proc) -> str:
    proc.join(1)  # its pipe closes a moment before it can be reaped
    code = proc.exitcode
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _worker_died(proc, task: Task) -> RunError:
    return RunError(f"a worker process died ({_how_it_died(proc)}) while playing chunk "
                    f"{task.key}; the chunks saved so far are kept: run again with --resume")


def _call_main(conn, fn, args, parent_pid):
    """call_in_child's child: fn(*args), its result or exception sent back (with a
    strategy's traceback of the debug mode, which does not pickle with the exception)."""
    child_signals(parent_pid)
    try:
        reply = ("ok", fn(*args), None)
    except BaseException as exc:
        reply = ("error", exc, getattr(exc, "traceback", None))
    try:
        conn.send(reply)
    except Exception:  # a result or an exception that does not pickle
        what = reply[1]
        conn.send(("error", RuntimeError(f"{type(what).__name__}: {what}"), reply[2]))
    conn.close()


def call_in_child(fn, *args):
    """``fn(*args)`` (a module-level function) in a child process, its result returned or
    its exception raised here: SIGINT and SIGTERM stop it at once, even inside a compiled
    kernel that never returns (the child is killed; raised here as a KeyboardInterrupt
    with ``.signum``; both signals are ignored afterwards, for a caller that exits), and
    the child dies with this process. The child is forked when this process runs a single
    thread (nothing to import or load again), else spawned."""
    method = "fork" if threading.active_count() == 1 \
        and "fork" in mp.get_all_start_methods() else "spawn"
    for f in (sys.stdout, sys.stderr):  # a forked child must not write their buffers again
        try:
            f.flush()
        except (OSError, ValueError, AttributeError):
            pass
    with _StopSignals(ignore_after_stop=True):
        procs, conns = start_children(_call_main, (fn, args), 1, "fishing2sim-child", method)
        done = False
        try:
            mp_connection.wait([conns[0], procs[0].sentinel])
            try:
                status, payload, shown = conns[0].recv()
            except (EOFError, OSError):
                raise RunError(f"the process playing the game died "
                               f"({_how_it_died(procs[0])})") from None
            done = True
        finally:
            _stop_workers(procs, conns, graceful=done)
    if status == "ok":
        return payload
    if shown and isinstance(payload, Exception):
        payload.traceback = shown
    raise payload


def _processes(exp, pending, workers, pool: WorkerPool | None = None):
    """Local worker processes (spawned: each loads numba's cached kernels once; a pool's,
    kept after a finished run), each fed at most two chunks at a time through its own
    pipe."""
    procs, conns = pool.workers_for(exp, workers) if pool is not None \
        else _start_workers(exp, workers)
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
        if pool is None:
            _stop_workers(procs, conns, graceful=finished)
        elif not finished:  # failed or stopped: at once (the next run starts new ones)
            pool.close(graceful=False)


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
