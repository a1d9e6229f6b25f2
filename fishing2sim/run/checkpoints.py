"""Checkpoints of a run: one file per finished chunk, written atomically, read back with
every check (docs/experiments.md, "Interrupted runs"), and the lock that keeps two runs,
tunes or report writes out of one report folder.

<output>/.checkpoints/<name>/cCCCC-kKKKKKK.npz, one per finished chunk: its integer
totals plus "_meta" (JSON bytes: the run's config hash, the chunk's key, its game count
and a SHA-256 of the arrays). Loaded without pickle; a file that fails any check is
discarded with a one-line warning and its chunk played again.
"""
from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import re
import shutil
import sys
from pathlib import Path

import numpy as np

from fishing2sim.safe_files import (FileSafetyError, open_lock, read_regular, real_folder,
                                    remove_ours, write_atomic)
from fishing2sim.run import profile
from fishing2sim.run.chunks import RunError, Task, games_of, task_of
from fishing2sim.config.levels import trump_replayed
from fishing2sim.run.examples import OUTCOME_KEY, example_keys, merge_examples, split_examples
from fishing2sim.run.totals import (UNIT_PREFIX, empty_totals, merge, split_units, summed_keys,
                                    unit_keys)
from fishing2sim.run.decision_totals import DEC_FIELDS, empty

CHECKPOINT_FORMAT = 3
MAX_CHECKPOINT = 1 << 30  # a checkpoint file is read only up to 1 GiB
CHUNK_NAME = re.compile(r"c(\d{4,})-k(\d{6,})")


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
    m = CHUNK_NAME.fullmatch(path.stem)
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
    arc = "arc" in exp.analyses  # the game-arc totals are kept only when asked for
    cards = "cards" in exp.analyses  # and so are the per-card totals
    expected = summed_keys(arc, cards)
    if "decisions" in exp.analyses:  # the decision totals, kept only when asked for
        expected += list(DEC_FIELDS)
    if profile.wanted(exp):  # the behaviour profile's totals, kept only when asked for
        expected += list(profile.PROFILE_FIELDS)
    cond = exp.conditions[task.condition]
    held = [k for k in arrays if k.startswith(UNIT_PREFIX)]
    examples = example_keys(exp)  # the example games' rows (run/examples.py)
    missing = [k for k in expected + examples if k not in arrays]
    if getattr(cond, "paired", False):  # a paired condition's chunk holds its unit vectors
        missing += [k for k in unit_keys(trump_replayed(exp, cond))
                    + ((OUTCOME_KEY,) if examples else ()) if k not in arrays]
    extra = [k for k in arrays if k not in expected and k not in examples
             and not (getattr(cond, "paired", False) and k in held)]
    for k in held:
        if k in extra:
            continue
        if arrays[k].dtype != np.int64 or arrays[k].ndim < 1 or arrays[k].shape[0] != task.count:
            return None, f"array {k} has the wrong shape or type"
    if missing or extra:
        what = f"missing {', '.join(missing)}" if missing else f"unexpected {', '.join(extra)}"
        return None, f"wrong arrays ({what})"
    for k in examples:  # rows (key, game), at most K
        a = arrays[k]
        if a.dtype != np.int64 or a.ndim != 2 or a.shape[1] != 2 or len(a) > exp.examples:
            return None, f"array {k} has the wrong shape or type"
    strat = arrays["strat_seats"]
    ref = empty_totals(exp.conditions[task.condition].players,
                       strat.shape[0] if strat.ndim == 1 else 0, arc, cards)
    if "decisions" in exp.analyses:
        ref.update(empty(strat.shape[0] if strat.ndim == 1 else 0))
    if profile.wanted(exp):
        ref.update(profile.empty(strat.shape[0] if strat.ndim == 1 else 0))
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


def open_checkpoints(exp, resume: bool) -> tuple[Path, set, tuple]:
    """The checkpoint folder (created), the keys of its valid chunks and (their totals per
    condition, their unit vectors per condition and chunk, their example games merged per
    condition). Without ``resume`` an old folder is emptied first."""
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
    examples: list = [None] * len(exp.conditions)
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
        m = CHUNK_NAME.fullmatch(path.stem)
        cond, k = int(m.group(1)), int(m.group(2))
        totals[cond] = merge(totals[cond], t)
        if split_units(t):
            units[cond][k] = split_units(t)
        if split_examples(t):
            examples[cond] = merge_examples(examples[cond], split_examples(t), exp.examples)
        done.add(path.stem)
    return folder, done, (totals, units, examples)


def write_stamp(folder: Path, exp) -> None:
    stamp = folder / "config_hash"
    if not stamp.is_file() or stamp.is_symlink():
        write_atomic(stamp, exp.config_hash)


def _holds_checkpoints(folder: Path) -> bool:
    """True if every entry of ``folder`` is what a run keeps there (chunk files, the
    config stamp, temporary files of a save): only such a folder is ever deleted."""
    for e in os.scandir(folder):
        if e.is_dir(follow_symlinks=False):
            if not CHUNK_NAME.fullmatch(Path(e.name).stem):  # a bad 'chunk' that is a folder
                return False
        elif not (e.name == "config_hash" or CHUNK_NAME.fullmatch(Path(e.name).stem)
                  or e.name.endswith(".tmp") or e.name.endswith(".tmp.npz")):
            return False
    return True


def drop_checkpoints(folder: Path) -> None:
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
    safe_files.open_lock: a link in its place is refused, and so is a link in place of
    ``folder`` (a run writes nothing through it)."""

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
        parent = self.path.parent
        try:  # the output folder (the lock's, the checkpoints', the report's) is no link:
            real_folder(parent, "output folder", create=False)  # refused before any game
        except FileSafetyError as exc:
            raise RunError(str(exc)) from None
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


def load_chunks(exp, folder, done) -> dict:
    out = {}
    for key in done:
        t, _ = read_chunk(exp, folder / f"{key}.npz")
        if t is not None:
            m = CHUNK_NAME.fullmatch(key)
            out[(int(m.group(1)), int(m.group(2)))] = t
    return out


