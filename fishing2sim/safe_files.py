"""Files the program writes and reads, made safe against the user's own files, links and
special files.

The rules (README "Reports", docs/experiments.md "Where a run writes"):

- **A folder is replaced or deleted only if this program made it.** Every report folder
  holds a marker file, :data:`MARKER`, written with the report. :func:`check_replaceable`
  refuses a folder without it, but for a report written before the marker: a folder that
  holds only the file names a report writes, with its configuration (``config.yaml`` of a
  run, ``tune.yaml`` of a tune) holding a config hash (:func:`_legacy_report`).
- **No write follows a link.** A file is written as a temporary file created with
  ``O_CREAT | O_EXCL | O_NOFOLLOW`` beside its place, then renamed over it
  (:func:`write_atomic`); a rename replaces a link itself, never what it points to. The
  folders the program makes (report, checkpoints, scratch) are refused if they are links
  (:func:`real_folder`); the lock file is opened with ``O_NOFOLLOW`` (:func:`open_lock`).
- **Reads are of regular files only, with a size cap** (:func:`read_regular`): a FIFO, a
  device (``/dev/zero``), a folder or a link is refused by type before a byte is read, and
  a file outside the folder it must stay in is refused by place.

Every refusal is a :class:`FileSafetyError` (one line, naming the path and what to do).
"""
from __future__ import annotations

from fishing2sim.errors import Fishing2simError
import errno
import json
import os
import stat
from pathlib import Path

__all__ = ["FileSafetyError", "MARKER", "write_atomic", "write_marker", "is_ours",
           "check_replaceable", "real_folder", "open_lock", "open_regular", "read_regular",
           "inside", "remove_ours"]

MARKER = ".fishing2sim-report"
MAX_READ = 64 * 1024 * 1024  # the default cap of read_regular (64 MiB)

# the files a report of fishing2sim writes (fishing2sim/report/write.py, tune/report.py,
# tune/pareto_report.py; tests/test_file_safety.py checks them against what is written): a
# folder without the marker is taken for a report of an older version (before the marker)
# only if it holds nothing else, and its configuration file holds the config hash
RUN_TABLES = ("depletion", "overfishing", "trump_value", "trump_by_strategy", "strategies",
              "scores", "arc", "cards", "cards_ranked", "decisions", "contrasts", "panel",
              "verdicts", "skill_trace", "convergence", "ladder", "ladder_pairs", "ladder_fit",
              "profile", "profile_differences")
RUN_PLOTS = ("contrasts", "depletion", "overfishing", "trump_value", "trump_by_strategy",
             "win_shares", "scores", "ladder", "arc", "panel", "skill_trace", "cards",
             "decisions")
_RUN_FILES = frozenset({"summary.md", "report.html", "config.yaml"}
                       | {f"{t}.csv" for t in RUN_TABLES} | {f"{p}.png" for p in RUN_PLOTS})
_TUNE_FILES = frozenset({"summary.md", "report.html", "tune.yaml", "best.yaml", "study.db",
                         "trials.csv", "racing.csv", "racing_levels.csv", "importance.csv",
                         "importance.png", "trace.png", "front.csv", "front.png"})
_FRONT_POINT = "front-"  # a Pareto tune's front-<n>.yaml
_LEGACY_CONFIG_MAX = 4 * 1024 * 1024  # a report's config.yaml: some kB a condition


class FileSafetyError(Fishing2simError, OSError):
    """A path the program refuses to write, replace, delete or read (one line)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def _no_link(path: Path, what: str) -> None:
    if path.is_symlink():
        raise FileSafetyError(f"{path}: the {what} is a symbolic link; fishing2sim does not "
                              "write through links: remove the link or choose another --output")


def real_folder(path: Path, what: str = "folder", create: bool = True) -> Path:
    """``path`` as a real folder (made if missing and ``create``); a link, a file or a
    special file in its place is refused."""
    path = Path(path)
    _no_link(path, what)
    if path.exists() and not path.is_dir():
        raise FileSafetyError(f"{path}: the {what} is a file, not a folder: move the file "
                              "away or choose another --output")
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except FileExistsError:  # made meanwhile as something else
            _no_link(path, what)
            raise FileSafetyError(f"{path}: the {what} is not a folder") from None
        _no_link(path, what)
    return path


def write_atomic(path: Path, data: bytes | str, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` whole or not at all, never through a link: a temporary
    file (``O_EXCL | O_NOFOLLOW``, so a link planted under its name is not followed) in the
    same folder, flushed to disk, then renamed over ``path``."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode(encoding)
    # a link at ``path`` (dangling or not) is replaced by the rename below, never followed
    if path.is_dir() and not path.is_symlink():
        raise FileSafetyError(f"{path}: a folder stands where fishing2sim writes a file")
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(tmp, flags, 0o644)
    except FileExistsError:  # left by a killed writer of this PID, or planted: replace it
        _unlink_entry(tmp)
        fd = os.open(tmp, flags, 0o644)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        _unlink_entry(tmp)
        raise
    return path


def _unlink_entry(path: Path) -> None:
    """Remove the directory entry ``path`` (a link itself, never its target)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        raise FileSafetyError(f"{path}: a folder stands where fishing2sim writes a "
                              "temporary file") from None


def write_marker(folder: Path, kind: str, name: str, version: str) -> Path:
    """Mark ``folder`` as a report folder of this program (:data:`MARKER`)."""
    text = json.dumps({"tool": "fishing2sim", "kind": kind, "name": name,
                       "version": version}, sort_keys=True) + "\n"
    return write_atomic(Path(folder) / MARKER, text)


def _legacy_names(names: set) -> str | None:
    """The configuration file of a report (before the marker) holding only ``names``:
    config.yaml for a run's, tune.yaml for a tune's; None if a name is not a report's."""
    if "config.yaml" in names:
        return "config.yaml" if names <= _RUN_FILES else None
    if "tune.yaml" in names and all(
            n in _TUNE_FILES or (n.startswith(_FRONT_POINT) and n.endswith(".yaml")
                                 and n[len(_FRONT_POINT):-5].isdigit()) for n in names):
        return "tune.yaml"
    return None


def _legacy_report(folder: Path) -> bool:
    """True if ``folder`` (without the marker) is a report of an older fishing2sim: regular
    files only, each named as a report names its files, and a configuration file
    (config.yaml, or a tune's tune.yaml) that parses as a report's: a mapping with the
    config hash (64 hex digits). A folder of the user's that merely looks like a report
    (a summary.md and some CSV files) is not."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    for e in entries:
        if e.is_symlink() or not e.is_file(follow_symlinks=False):
            return False
    config = _legacy_names({e.name for e in entries})
    if config is None:
        return False
    try:
        import yaml

        cfg = yaml.load(read_regular(Path(folder) / config, _LEGACY_CONFIG_MAX,
                                     what="report configuration"),
                        Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (FileSafetyError, OSError, ValueError, yaml.YAMLError, RecursionError):
        return False
    h = cfg.get("config_hash") if isinstance(cfg, dict) else None
    return isinstance(h, str) and len(h) == 64 and all(c in "0123456789abcdef" for c in h)


def is_ours(folder: Path) -> bool:
    """True if ``folder`` is a real folder this program made: it holds a regular
    :data:`MARKER` file, or it is a report of an older version (:func:`_legacy_report`)."""
    folder = Path(folder)
    if folder.is_symlink() or not folder.is_dir():
        return False
    m = folder / MARKER
    if m.is_symlink():
        return False
    if m.is_file():
        return True
    return _legacy_report(folder)


def check_replaceable(folder: Path, what: str = "report folder",
                      named_in: str = "experiment file") -> None:
    """Refuse (one line) to replace or delete ``folder`` unless it is missing or ours
    (``named_in``: the file whose name the folder takes, for the message's advice)."""
    folder = Path(folder)
    _no_link(folder, what)
    if not folder.exists():
        return
    if not folder.is_dir():
        raise FileSafetyError(f"{folder}: a file stands where the {what} goes; move it away "
                              "or choose another --output or name")
    if not is_ours(folder):
        raise FileSafetyError(
            f"{folder}: this folder was not made by fishing2sim (it has no {MARKER} file) "
            f"and the {what} would replace it: your files there are left as they are; "
            f"choose another --output, or another name in the {named_in}")


def remove_ours(folder: Path) -> None:
    """Delete ``folder`` if it is a real folder (never through a link); missing is fine."""
    import shutil

    folder = Path(folder)
    if folder.is_symlink():
        raise FileSafetyError(f"{folder}: a symbolic link stands where fishing2sim keeps a "
                              "folder of its own; remove the link")
    if folder.is_dir():
        shutil.rmtree(folder)


def open_lock(path: Path) -> int:
    """Open (create) a lock file without following a link: a link in its place is
    refused. Returns the file descriptor."""
    path = Path(path)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP or path.is_symlink():
            raise FileSafetyError(f"{path}: the lock file is a symbolic link; fishing2sim "
                                  "does not write through links: remove it") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise FileSafetyError(f"{path}: the lock file is not a regular file: remove it")
    return fd


def inside(path: Path, folder: Path) -> bool:
    """True if ``path``, links resolved, lies inside ``folder`` (links resolved)."""
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
    except ValueError:
        return False
    return True


def open_regular(path: Path, within: Path | None = None, what: str = "file") -> int:
    """A read-only file descriptor of ``path`` if it is a regular file (not a link, FIFO,
    device or folder) and, with ``within``, inside that folder; anything else is a
    FileSafetyError naming the path. Opened non-blocking, so a FIFO cannot hang the call.
    The caller closes the descriptor."""
    path = Path(path)
    if within is not None and not inside(path.parent, within):
        raise FileSafetyError(f"{path}: the {what} lies outside the folder {within}; only "
                              "files inside it are read")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileSafetyError(f"{path}: no such {what}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileSafetyError(f"{path}: the {what} is a symbolic link; only regular "
                                  "files are read") from None
        raise FileSafetyError(f"{path}: cannot read the {what}: "
                              f"{exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else \
                "a FIFO" if stat.S_ISFIFO(mode) else \
                "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else \
                "not a regular file"
            raise FileSafetyError(f"{path}: the {what} is {kind}; only regular files are read")
    except BaseException:
        os.close(fd)
        raise
    return fd


MAX_NAME_BYTES = 120  # a report folder's name: its lock and temporary names add to it


def name_problem(name: str) -> str | None:
    """What keeps ``name`` (an experiment's, tune's or training's, which names its report
    folder, its lock ``.<name>.lock`` and its temporary folders) from being a folder name
    on one line, or None: a control character (a line break would split every line that
    prints it), a leading '-' (a shell command naming the folder, ``rm -r -rf`` or
    ``cp -r reports/x -rf``, would take it for an option, quoted or not), or more than
    MAX_NAME_BYTES bytes in UTF-8 (file systems allow 255 for a name, and the run adds to
    it)."""
    if name.startswith("-"):
        return (f"{name!r} begins with '-': a shell command that names the folder would read "
                "it as an option, so a report folder's name may not begin with '-'")
    bad = next((ch for ch in name if not ch.isprintable()), None)
    if bad is not None:
        return (f"holds {bad!r}: a report folder's name is printed on one line and names "
                "files, so it may not hold a control character")
    n = len(name.encode("utf-8"))
    if n > MAX_NAME_BYTES:
        return (f"has {n} bytes (UTF-8), more than the {MAX_NAME_BYTES} a report folder's "
                "name may have (file systems allow 255 for a name, and the run adds its lock "
                "and temporary files' suffixes to it)")
    return None


MAX_INPUT = 8 * 1024 * 1024  # the cap of read_input: an experiment, tune or deck file


class NotAFile(OSError):
    """An input file that is a FIFO, a device or larger than read_input reads: ``str`` is
    the reason, worded to follow "cannot read the file: "."""


def read_input(path: Path, limit: int = MAX_INPUT) -> bytes:
    """The bytes of a file the user gave to read (an experiment, tune or deck file). A
    symbolic link the user made is followed, but what it ends at must be a regular file of
    at most ``limit`` bytes: /dev/zero or /dev/urandom would otherwise be read until the
    memory is full, and a FIFO would hang the command (it is opened non-blocking and
    refused). Raises FileNotFoundError and IsADirectoryError as open() does, NotAFile for
    the rest; the caller words them."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else \
                "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"
            raise NotAFile(f"it is {kind}, not a regular file")
        data = _read_at_most(fd, limit)
        if data is None:
            raise NotAFile(f"it has more than the {limit:,} bytes read at most")
        return data
    finally:
        os.close(fd)


def _read_at_most(fd: int, limit: int) -> bytes | None:
    """The bytes left in ``fd``, or None if there are more than ``limit`` (read in 1 MiB
    pieces, so a file that grows while it is read stops at the limit too)."""
    chunks, n = [], 0
    while True:
        b = os.read(fd, 1 << 20)
        if not b:
            return b"".join(chunks)
        n += len(b)
        if n > limit:
            return None
        chunks.append(b)


def read_regular(path: Path, limit: int = MAX_READ, within: Path | None = None,
                 what: str = "file") -> bytes:
    """The bytes of ``path`` if it is a regular file (not a link, FIFO, device or folder)
    of at most ``limit`` bytes and, with ``within``, inside that folder. Anything else is
    a FileSafetyError naming the path; the file is opened non-blocking, so a FIFO cannot
    hang the call (:func:`open_regular`)."""
    path = Path(path)
    fd = open_regular(path, within, what)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise FileSafetyError(f"{path}: the {what} has {size:,} bytes, more than "
                                  f"the {limit:,} read at most")
        data = _read_at_most(fd, limit)
        if data is None:  # grew while read
            raise FileSafetyError(f"{path}: the {what} has more than the {limit:,} "
                                  "bytes read at most")
        return data
    finally:
        os.close(fd)
