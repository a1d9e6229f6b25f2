"""Where a run's games are played: local worker processes fed chunk by chunk (or this
process alone), a pool of workers kept from one run to the next (tune), one child process
for a call that must stop at once on Ctrl-C (``play``), the job pools of a training (and
of the benchmarks), and the signal handling that stops them all. Every child dies with its
parent (PR_SET_PDEATHSIG on Linux)."""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections import deque
from contextlib import contextmanager
from multiprocessing import connection as mp_connection
from multiprocessing import resource_tracker as _resource_tracker

import multiprocessing as mp

from fishing2sim import first_run
from fishing2sim.run.chunks import RunError, Task, run_chunk
from fishing2sim.errors import InputError


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


STOPPING = threading.Event()  # set by a stopping signal, cleared as a run starts


class StopSignals:
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
            STOPPING.set()
            raise _Stop(signum)

    def __enter__(self):
        STOPPING.clear()
        if threading.current_thread() is threading.main_thread():
            for s in (signal.SIGINT, signal.SIGTERM):
                self.old[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc):
        for s, h in self.old.items():
            stopped = self.signum is not None and self.ignore_after_stop
            signal.signal(s, signal.SIG_IGN if stopped else h)
        return False


_worker_exp = None


def _work(task: Task):
    return task, run_chunk(_worker_exp, task)


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


WORKERS_PER_CORE = 4  # more local processes than this per core: refused (check_workers)


def worker_limit() -> int:
    """The most local worker processes a run, tune or training starts on this machine: 4
    per core it may use, at least 8. Each process holds its own copy of the compiled engine
    (about 200 to 250 MB resident, measured on a trump run); beyond the cores they add memory, not speed, and a slip of the
    finger (``--workers 10000``) would otherwise fill the memory until the system kills the
    run."""
    return max(8, WORKERS_PER_CORE * default_workers())


def check_workers(workers: int, where: str = "--workers") -> int:
    """``workers`` if this machine allows that many local processes (worker_limit), else
    one clear error naming ``where`` (the option or the file's key) and the limit."""
    limit = worker_limit()
    if workers > limit:
        raise InputError(
            f"{where}: {workers:,} local worker processes is more than this machine allows "
            f"({limit}: {WORKERS_PER_CORE} per core, {default_workers()} cores; more "
            "processes than cores add memory, not speed); use Dask (--scheduler) for more")
    return workers


def serial(exp, pending):
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


def job_pool(workers: int):
    """A ProcessPoolExecutor of ``workers`` processes for a training's jobs: each starts
    with child_signals (Ctrl-C is the parent's; SIGTERM and the parent's death end it).
    Submit to it with submit_all and close it with close_pool."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(workers, initializer=child_signals, initargs=(os.getpid(),))


def submit_all(pool, fn, jobs) -> list:
    """pool.submit(fn, *job) for every job, in order (a job_pool's, or any executor's: a
    Dask client's), with a stopping signal held back: a submit may fork the pool's
    processes, and a Ctrl-C raised inside a fork hook (logging has one) is printed as
    "Exception ignored" and lost, so the run would go on. Meanwhile SIGINT and SIGTERM are
    only noted; the first is raised again once the handlers are back. (A mask would not
    do: any thread that does not block the signal, numpy's BLAS threads among them, takes
    it, and the main thread runs the handler all the same.)"""
    held: list = []
    old = {}
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(s) is not None:  # (None: not set from Python, not ours)
                old[s] = signal.signal(s, lambda signum, frame: held.append(signum))
    try:
        return [pool.submit(fn, *job) for job in jobs]
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if held:
            signal.raise_signal(held[0])


def close_pool(pool, stopping: bool) -> None:
    """Shut a job_pool down and wait until its manager thread has ended (and its jobs, unless
    ``stopping``). ``stopping`` (an exception is on its way out: Ctrl-C, a failed job)
    cancels the jobs not started and ends the processes inside theirs: no result is kept.
    Waiting matters: Python 3.11's exit hook wakes every pool's manager thread still alive,
    and can write to the pipe of one that is closing it, printing an OSError traceback
    ("Bad file descriptor") after the run has ended."""
    if stopping:
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.terminate()
    pool.shutdown(wait=True, cancel_futures=stopping)


@contextmanager
def pooled(workers: int):
    """A job_pool for a with-block, closed by close_pool as it ends: at once (its processes
    ended inside their jobs) if the block raises, Ctrl-C included."""
    pool = job_pool(workers)
    try:
        yield pool
    except BaseException:
        close_pool(pool, True)
        raise
    close_pool(pool, False)


def pool_map(fn, jobs, workers: int, each=None) -> list:
    """[fn(*job) for job in jobs], on a job_pool of ``workers`` processes; ``each(i,
    result)`` as each result comes, in order. Ctrl-C or a failed job ends it at once."""
    out = []
    with pooled(workers) as pool:
        for i, fut in enumerate(submit_all(pool, fn, jobs)):
            out.append(fut.result())
            if each is not None:
                each(i, out[-1])
    return out


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
    first_run.child_listener(lambda kind, value: conn.send((kind, None, value)))
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


def start_workers(exp, workers: int):
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
        stop_workers(procs, conns, graceful=False)
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
        self.procs, self.conns = start_workers(exp, workers)
        return self.procs, self.conns

    def close(self, graceful: bool = True) -> None:
        procs, conns, self.procs, self.conns = self.procs, self.conns, [], []
        if procs:
            stop_workers(procs, conns, graceful=graceful)


def stop_workers(procs, conns, graceful: bool) -> None:
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
    first_run.child_listener(lambda kind, value: conn.send((kind, value, None)))
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
    with StopSignals(ignore_after_stop=True):
        procs, conns = start_children(_call_main, (fn, args), 1, "fishing2sim-child", method)
        done = False
        try:
            while True:
                mp_connection.wait([conns[0], procs[0].sentinel])
                try:
                    status, payload, shown = conns[0].recv()
                except (EOFError, OSError):
                    raise RunError(f"the process playing the game died "
                                   f"({_how_it_died(procs[0])})") from None
                if status == "compiling":  # the notice names what the child compiles
                    first_run.compiling(payload)
                elif status == "compiled":
                    first_run.spent(0, payload)
                else:
                    break
            done = True
        finally:
            stop_workers(procs, conns, graceful=done)
    if status == "ok":
        return payload
    if shown and isinstance(payload, Exception):
        payload.traceback = shown
    raise payload


def processes(exp, pending, workers, pool: WorkerPool | None = None):
    """Local worker processes (spawned: each loads numba's cached kernels once; a pool's,
    kept after a finished run), each fed at most two chunks at a time through its own
    pipe."""
    procs, conns = pool.workers_for(exp, workers) if pool is not None \
        else start_workers(exp, workers)
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
                    if status == "compiling":  # the notice names what the worker compiles
                        first_run.compiling(payload)
                        continue
                    if status == "compiled":
                        first_run.spent(i, payload)
                        continue
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
            stop_workers(procs, conns, graceful=finished)
        elif not finished:  # failed or stopped: at once (the next run starts new ones)
            pool.close(graceful=False)


def _init_local(exp):
    global _worker_exp
    _worker_exp = exp


