"""The numba kernels: game state, rules (docs/rules.md A), batches of games.

numba's on-disk cache (cache=True) keys each kernel on its own source file only, while the
kernels freeze the state layout and codes of state.py / constants.py as constants. So that
an edited layout never meets a stale compiled kernel, the first import compares a hash of
the kernel sources with the one the cache was built from and drops the cache if they differ.

On x86-64 the first import also tells LLVM to keep the kernels' selects as selects
(``-x86-cmov-converter=false``, before anything is compiled): by default LLVM turns a
select inside a loop back into a branch when it guesses the branch predictable, and the
judge's and the option builders' selects on a trick's random cards are not (random games
ran 1.1-1.2 x faster without that conversion; docs/benchmarks.md). It only chooses machine
instructions: every result is the same.
"""
import hashlib
import os
import platform
from pathlib import Path

import llvmlite.binding

from fishing2sim.safe_files import read_regular, write_atomic

_PKG = Path(__file__).resolve().parent.parent


def _sources():
    yield from sorted((_PKG / "engine").glob("*.py"))
    yield from sorted((_PKG / "search").glob("*.py"))
    yield _PKG / "strategy" / "kit.py"
    yield _PKG / "strategy" / "observation.py"
    yield _PKG / "strategy" / "heuristics.py"
    yield _PKG / "strategy" / "contract.py"
    yield _PKG / "strategy" / "reference.py"
    # the student's features, tables, vector operations and decisions
    # (strategies/skilled.py) and the labelling kernel
    yield from (_PKG / "student" / f for f in ("decisions.py", "features.py", "layout.py",
                                               "simd.py", "tables.py"))
    yield from (_PKG / "train" / f for f in ("label.py", "round_value.py"))
    # the learned end-of-round value's coefficients, frozen into the search kernels, and
    # the module that reads them
    yield _PKG / "data" / "round_value.npz"
    yield _PKG / "strategy" / "round_table.py"


def _cache_dirs():
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        # a link among them is not a folder of the cache: nothing is dropped through it
        return [p for p in Path(root).rglob("*")
                if p.is_dir() and not p.is_symlink() and "fishing2sim" in str(p)]
    return [p / "__pycache__" for p in (_PKG, _PKG / "engine", _PKG / "search",
                                        _PKG / "strategy", _PKG / "student", _PKG / "train",
                                        _PKG / "bots",
                                        _PKG.parent / "strategies")]


_stamp = None


def kernel_stamp() -> str:
    """A hash of every source a compiled kernel or strategy may have frozen into its code."""
    global _stamp
    if _stamp is None:
        h = hashlib.sha256()
        for p in _sources():
            if p.is_file():
                h.update(p.name.encode())
                h.update(p.read_bytes())
        _stamp = h.hexdigest()
    return _stamp


def _stamp_file() -> Path:
    """Where the stamp of the cache in use is kept: in that cache. A stamp kept in the
    package for a cache elsewhere (NUMBA_CACHE_DIR) would mark the package's own cache
    fresh without dropping it: the next run without NUMBA_CACHE_DIR would then load
    machine code compiled from sources since edited."""
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        return Path(root) / "fishing2sim-kernels.stamp"
    return _PKG / "engine" / "__pycache__" / "kernels.stamp"


def _drop_stale_cache():
    stamp = kernel_stamp()
    stamp_file = _stamp_file()
    # the stamp is read as a small regular file and written by write_atomic: a link, FIFO
    # or device planted under its name (or under the temporary file's) is never followed;
    # a stamp that cannot be read so counts as stale, and the cache is dropped
    try:
        try:
            if read_regular(stamp_file, limit=1024, what="kernel stamp") == stamp.encode():
                return
        except OSError:  # missing, or not a small regular file
            pass
        for d in _cache_dirs():
            if d.is_dir():
                for f in list(d.glob("*.nbi")) + list(d.glob("*.nbc")):
                    f.unlink(missing_ok=True)
        stamp_file.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(stamp_file, stamp)
    except OSError:  # a read-only install: the cache cannot be stale there
        pass


_drop_stale_cache()
if platform.machine().lower() in ("x86_64", "amd64"):
    llvmlite.binding.set_option("fishing2sim", "-x86-cmov-converter=false")
