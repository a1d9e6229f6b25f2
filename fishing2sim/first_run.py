"""The compile notice: said when something compiles, naming what, and only then.

numba compiles the engine's kernels, the search's and the student's, and a strategy's
decisions the first time they are needed after an install or a change, then keeps them in
its on-disk cache. A command that may compile runs inside ``with notice(enabled):``, and
calls :func:`before_compile` before it imports or calls anything that compiles: that
registers a listener for numba's own compile event in this process. numba raises that event
only for a real compile, never for a kernel loaded from its cache, so a warm run says
nothing, and a cold one says what it compiles as it starts: ``compiling the engine``,
``compiling bot skilled``, on stderr; on a terminal with the seconds counting up on that
line (a small thread) until :func:`compiled` (the first chunk is back) or the block ends,
elsewhere as one plain line per thing compiled. No duration is promised: the line counts
the seconds this machine takes.

Worker processes (the runner's, the play command's child) compile too: each calls
:func:`child_listener` with a function that sends what it compiles to the parent, which
passes it to :func:`compiling`. (A Dask cluster's workers report nothing: their compiles
are the cluster's.)

This module imports no kernel, no numba and no numpy at import: the command line's checks
of a file run without them (a typo is reported in well under a second on a cold cache).
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time

NOTICE = "compiling"

_depth = 0  # nested notice() blocks: the outermost one decides
_wanted = False
_ticker: "_Ticker | None" = None
_said: set = set()  # what this block's notice named already
_on_start = None  # called (no argument) when a notice starts: the runner clears its bar
_listening = False  # this process's numba listener is registered
_sender = None  # in a child process: where what compiles is sent, instead of a notice
_sent: set = set()
_busy = [0, 0.0]  # this process's compiles under way (numba nests them) and the first's start
_spent: dict = {}  # the seconds each process (None: this one) spent compiling in this block


def describe(module: str) -> str | None:
    """What a compiled function's module belongs to, in the notice's words; None for
    numba's and numpy's own functions (compiled as parts of ours, never cached by numba,
    so they are no sign of a cold cache)."""
    if not module or module.split(".")[0] in ("numba", "numpy", "llvmlite"):
        return None
    if module.startswith(("fishing2sim.engine", "fishing2sim.strategy", "fishing2sim.api",
                          "fishing2sim.audit", "fishing2sim.run")):
        return "the engine"
    if module.startswith("fishing2sim.search"):
        return "the search bots"
    if module.startswith(("fishing2sim.student", "fishing2sim.train")):
        return "the student (bot skilled)"
    if module.startswith("fishing2sim.bots."):
        return f"bot {module.rsplit('.', 1)[1]}"
    return f"bot {module.rsplit('.', 1)[-1]}"


class _Ticker:
    """The notice on stderr; on a terminal, the elapsed seconds rewritten once a second."""

    def __init__(self, stream, what: str):
        self.stream = stream
        self.what = [what]
        self.t0 = time.monotonic()
        self.live = is_terminal(stream)
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.thread = None
        if self.live:
            self._write(f"{self.text()} ...")
            self.thread = threading.Thread(target=self._run, name="fishing2sim-compile-notice",
                                           daemon=True)
            self.thread.start()
        else:
            self._write(f"{NOTICE} {what}\n")

    def text(self) -> str:
        return f"{NOTICE} {', '.join(self.what[:-1])}{' and ' if len(self.what) > 1 else ''}" \
               f"{self.what[-1]}"

    def add(self, what: str) -> None:
        with self.lock:
            self.what.append(what)
        if not self.live:
            self._write(f"{NOTICE} {what}\n")

    def _write(self, text):
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def _line(self) -> str:
        with self.lock:
            return f"\r{self.text()} ... {time.monotonic() - self.t0:.0f} s"

    def _run(self):
        while not self.stop_event.wait(1.0):
            self._write(self._line())

    def stop(self, done: bool = True) -> float:
        if self.thread is not None:
            self.stop_event.set()
            self.thread.join()
            self._write(self._line() + (", done\n" if done else "\n"))
        return time.monotonic() - self.t0


def is_terminal(stream) -> bool:
    """``stream`` is a terminal (a closed or odd stream: no)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def notice(enabled: bool = True):
    """A block that may compile: what compiles inside it is said if ``enabled``. Nested
    blocks follow the outermost one."""
    global _depth, _wanted, _on_start
    outer = _depth == 0
    if outer:
        _wanted, _on_start = bool(enabled), None
        _said.clear()
        _spent.clear()
    _depth += 1
    done = False
    try:
        yield
        done = True
    finally:
        _depth -= 1
        if outer:
            compiled(done)  # (interrupted, or an error: the line ends without "done")
            _wanted, _on_start = False, None


def compiling(what: str) -> None:
    """Something starts to compile (here or in a worker): say so, once per thing."""
    global _ticker
    if not _wanted or what in _said:
        return
    _said.add(what)
    if _ticker is None:
        if _on_start is not None:
            _on_start()
        _ticker = _Ticker(sys.stderr, what)
    else:
        _ticker.add(what)


def _listener():
    """numba's compile listener: what compiles goes to the parent (in a child) or to the
    notice (here)."""
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev):
            if _busy[0] == 0:
                _busy[1] = time.monotonic()
            _busy[0] += 1
            d = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
            fn = getattr(d, "py_func", None)
            what = describe(getattr(fn, "__module__", "") or "")
            if what is None:
                return
            if _sender is None:
                compiling(what)
            elif what not in _sent:
                _sent.add(what)
                _send("compiling", what)

        def on_end(self, ev):
            _busy[0] -= 1
            if _busy[0] == 0:
                seconds = time.monotonic() - _busy[1]
                if _sender is None:
                    spent(None, seconds)
                else:
                    _send("compiled", seconds)

    return Listener()


def before_compile() -> None:
    """Listen for numba's compiles in this process (once): called before anything that
    may compile is imported or called."""
    global _listening
    if _listening:
        return
    from numba.core import event

    event.register("numba:compile", _listener())
    _listening = True


def _send(kind: str, value) -> None:
    try:
        _sender(kind, value)
    except Exception:  # a closed pipe: the parent is gone or done
        pass


def spent(process, seconds: float) -> None:
    """``process`` (None: this one; else a worker's key) spent ``seconds`` compiling."""
    _spent[process] = _spent.get(process, 0.0) + seconds


def child_listener(send) -> None:
    """In a worker or child process: what compiles here is sent with ``send("compiling",
    what)`` (once per thing) and the seconds of each compile with ``send("compiled", s)``,
    instead of said."""
    global _sender
    _sender = send
    _sent.clear()
    before_compile()


def set_on_start(fn) -> None:
    """``fn()`` is called when a notice starts (the runner clears its progress bar's line
    there); None: nothing."""
    global _on_start
    _on_start = fn


def ticking() -> bool:
    """The notice's seconds are counting on the terminal (nothing else should write there)."""
    return _ticker is not None and _ticker.live


def compile_seconds() -> float:
    """The seconds compiling took in the current (or last) block: this process's, plus the
    longest of its workers' (they compile side by side)."""
    workers = [s for k, s in _spent.items() if k is not None]
    return _spent.get(None, 0.0) + max(workers, default=0.0)


def compiled(done: bool = True) -> None:
    """The compile is over (the first games are played): end the notice's line."""
    global _ticker
    if _ticker is not None:
        t, _ticker = _ticker, None
        t.stop(done)
