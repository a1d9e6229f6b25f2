"""The first run's compile notice: said before the first compile starts, not after it.

numba compiles the engine's kernels (and a strategy's decisions) the first time they are
imported or called, once per install: up to a minute, during which nothing else is said. A
command that may compile runs inside ``with notice(enabled):``; the code that is about to
import or call something that compiles calls :func:`before_compile` first. With a cold
cache the first such call prints ``NOTICE`` on stderr: on a terminal with the seconds
counting up on that line (a small thread) until :func:`compiled` (the first chunk is back)
or the block ends, elsewhere as one plain line.

This module imports no kernel, no numba and no numpy: the command line's checks of a file
run without them (a typo is reported in well under a second on a cold cache).
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from pathlib import Path

NOTICE = "compiling the engine (first run only, under a minute)"

_depth = 0  # nested notice() blocks: the outermost one decides
_wanted = False
_checked = False  # before_compile has looked at the cache (once per outermost block)
_ticker: "_Ticker | None" = None


def cache_places() -> list[Path]:
    """The folders where numba may keep the engine's compiled kernels."""
    engine = Path(__file__).resolve().parent / "engine"
    places = [engine / "__pycache__"]
    if os.environ.get("NUMBA_CACHE_DIR"):
        places.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    places.append(Path.home() / ".cache" / "numba")
    return places


def cold_cache(places=None) -> bool:
    """True if numba has no cached kernels yet (no play_batch index file, ``*.nbi``, in any
    cache folder numba would use): the first run compiles the engine."""
    for p in cache_places() if places is None else places:
        try:
            if p.is_dir() and any(p.rglob("batch.play_batch*.nbi")):
                return False
        except OSError:
            continue
    return True


class _Ticker:
    """The notice on stderr; on a terminal, the elapsed seconds rewritten once a second."""

    def __init__(self, stream):
        self.stream = stream
        self.t0 = time.monotonic()
        self.live = _is_terminal(stream)
        self.stop_event = threading.Event()
        self.thread = None
        if self.live:
            self._write(f"{NOTICE} ...")
            self.thread = threading.Thread(target=self._run, name="fishing2sim-compile-notice",
                                           daemon=True)
            self.thread.start()
        else:
            self._write(NOTICE + "\n")

    def _write(self, text):
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def _run(self):
        while not self.stop_event.wait(1.0):
            self._write(f"\r{NOTICE} ... {time.monotonic() - self.t0:.0f} s")

    def stop(self, done: bool = True):
        if self.thread is not None:
            self.stop_event.set()
            self.thread.join()
            self._write(f"\r{NOTICE} ... {time.monotonic() - self.t0:.0f} s"
                        + (", done\n" if done else "\n"))


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def notice(enabled: bool = True):
    """A block that may compile: the notice is said (once) if ``enabled`` and the cache is
    cold when :func:`before_compile` is first called inside it. Nested blocks follow the
    outermost one."""
    global _depth, _wanted, _checked
    outer = _depth == 0
    if outer:
        _wanted, _checked = bool(enabled), False
    _depth += 1
    done = False
    try:
        yield
        done = True
    finally:
        _depth -= 1
        if outer:
            compiled(done)  # (interrupted, or an error: the line ends without "done")
            _wanted = False


def before_compile() -> None:
    """Say the notice if this is the first compile of a block that wants it."""
    global _checked, _ticker
    if not _wanted or _checked:
        return
    _checked = True
    if cold_cache():
        _ticker = _Ticker(sys.stderr)


def ticking() -> bool:
    """The notice's seconds are counting on the terminal (nothing else should write there)."""
    return _ticker is not None and _ticker.live


def compiled(done: bool = True) -> None:
    """The compile is over (the first games are played): end the notice's line."""
    global _ticker
    if _ticker is not None:
        t, _ticker = _ticker, None
        t.stop(done)
