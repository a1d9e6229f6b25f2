"""Chunks as Dask tasks: the same chunks, seeds and totals as the local runner.

Dask (``pip install 'fishing2sim[dask]'``) is imported only here. Each chunk is one task
with a stable key; a worker that dies mid-run loses nothing: the scheduler runs its tasks
again elsewhere (Dask's own resilience, plus ``retries``), and the runner saves every
finished chunk to its checkpoint folder as it arrives, so --resume works as locally.
"""
from __future__ import annotations

import logging
import os
import signal

from fishing2sim.run.chunks import RunError, Task, run_chunk

CONNECT_TIMEOUT = "5s"


def _dask_chunk(exp, task: Task):
    """Runs on a Dask worker: numba kernels load from the worker's own on-disk cache."""
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    return task, run_chunk(exp, task)


class dask_executor:
    """``with dask_executor(scheduler, n_local) as ex:`` a concurrent.futures executor whose
    tasks run on the Dask scheduler at ``scheduler`` (or on a local cluster of ``n_local``
    worker processes, closed on exit): what the training's labelling submits its chunks
    to."""

    def __init__(self, scheduler: str | None = None, n_local: int | None = None):
        self.scheduler, self.n_local = scheduler, n_local
        self.backend = None

    def __enter__(self):
        self.backend = DaskBackend(None, self.scheduler, self.n_local)
        return self.backend.client.get_executor(pure=False, retries=3)

    def __exit__(self, kind, value, tb):
        self.backend.close(fast=kind is not None)
        return False


class _QuietAfterStop(logging.Filter):
    """Once Ctrl-C or SIGTERM has stopped the run (processes.STOPPING), what Dask and
    tornado log about it (workers lost, scattered data gone, a task's comm closed, and a
    NameError from a race in distributed's own sync() when the signal lands inside it) is
    dropped: the run's one line says what happened. Before a stop everything passes."""

    stopping = None  # processes.STOPPING, set by quiet_after_stop (this module does not
    # import the local runner: tests/test_structure.py)

    def filter(self, record: logging.LogRecord) -> bool:
        return self.stopping is None or not self.stopping.is_set()


_QUIET_AFTER_STOP = _QuietAfterStop()


def quiet_after_stop() -> None:
    """Put _QuietAfterStop on every logger of distributed and tornado there is (a logger's
    filter sees the records made by that logger; called once the cluster and its client
    exist, when distributed's modules, and so their loggers, are all imported), whatever
    handlers print them."""
    # the local runner's flag; imported here only (the analysis imports this module, never
    # the local runner: tests/test_structure.py)
    from fishing2sim.run.processes import STOPPING

    _QUIET_AFTER_STOP.stopping = STOPPING
    names = ["distributed", "tornado", "tornado.application",
             *(n for n in list(logging.root.manager.loggerDict)
               if n.startswith(("distributed.", "tornado.")))]
    for name in names:
        logger = logging.getLogger(name)
        if _QUIET_AFTER_STOP not in logger.filters:
            logger.addFilter(_QUIET_AFTER_STOP)


class DaskBackend:
    def __init__(self, exp, scheduler: str | None = None, n_local: int | None = None):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise RunError("running on Dask needs the dask extra: "
                           "pip install 'fishing2sim[dask]'") from None
        self.exp = exp
        self.cluster = None
        if scheduler:
            try:
                self.client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                raise RunError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        else:
            if n_local is None or n_local < 1:
                raise RunError(f"--dask-local needs a number of workers >= 1, got {n_local}")
            # The workers' own warnings (a task cancelled by Ctrl-C, ...) are Dask's
            # bookkeeping, not the user's business; errors still reach stderr. A worker
            # process reads its log levels from the environment when it imports distributed
            # (DASK_LOGGING__DISTRIBUTED=warning brings them back); silence_logs does the
            # same for the scheduler in this process.
            os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")
            self.cluster = LocalCluster(n_workers=n_local, threads_per_worker=1,
                                        processes=True, dashboard_address=None,
                                        silence_logs=logging.ERROR)
            self.client = Client(self.cluster)
        quiet_after_stop()
        info = self.client.scheduler_info()
        self.n_workers = len(info.get("workers", {}))
        self.address = info.get("address") or scheduler
        self.where = f"the Dask scheduler {scheduler}" if scheduler else \
            f"a local Dask cluster of {n_local} worker{'s' if n_local != 1 else ''}"

    def results(self, pending):
        from distributed import as_completed

        if not pending:
            return
        exp_future = self.client.scatter(self.exp, broadcast=True, hash=False)
        futures = [self.client.submit(_dask_chunk, exp_future, task, pure=False, retries=3,
                                      key=f"fishing2sim-{self.exp.config_hash[:12]}-{task.key}")
                   for task in pending]
        try:
            for fut in as_completed(futures):
                task, totals = fut.result()
                fut.release()
                yield task, totals
        except BaseException:
            self.client.cancel(futures)
            raise

    def close(self, fast: bool = False):
        """Close the client (and the local cluster). ``fast`` (after Ctrl-C or an error):
        kill the local cluster's worker processes first, even inside a compiled kernel,
        instead of waiting for them to finish their tasks."""
        if fast and self.cluster is not None:
            from distributed.core import Status

            for name in ["distributed", *logging.root.manager.loggerDict]:
                if name.startswith("distributed"):
                    logging.getLogger(name).setLevel(logging.CRITICAL)
            for nanny in list(getattr(self.cluster, "workers", {}).values()):
                pid = getattr(nanny, "pid", None)
                try:
                    nanny.status = Status.closing_gracefully  # it closes, not restarts, the worker
                    if pid:
                        os.kill(pid, signal.SIGKILL)
                except (OSError, AttributeError):
                    pass
        try:
            self.client.close(timeout=1 if fast else None)
        finally:
            if self.cluster is not None:
                self.cluster.close(timeout=1 if fast else None)
