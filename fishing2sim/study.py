"""A study is four calls: :func:`load` the experiment file, :func:`play` its games (totals
only), make the :func:`tables`, :func:`write_report`. The command line, the Python API and
the tuner all run experiments through :func:`run`, which makes those four calls inside one
lock on the report folder and one set of checkpoints:

    from fishing2sim.study import run
    results = run("experiments/trump.yaml")       # Results: .tables (DataFrames), .meta

The flow, one package a stage (docs/architecture.md):
fishing2sim.config (load) → fishing2sim.run (play, on fishing2sim.engine/search through
fishing2sim.strategy) → fishing2sim.analysis (tables) → fishing2sim.report (write_report).
"""
from __future__ import annotations

import signal
from dataclasses import dataclass, field

import pandas as pd

from fishing2sim import first_run
from fishing2sim.analysis import stopping
from fishing2sim.analysis.tables import tables_from_totals
from fishing2sim.config.experiment import Experiment, load_experiment
from fishing2sim.run import runner
from fishing2sim.run.checkpoints import OutputLock, drop_checkpoints, open_checkpoints
from fishing2sim.run.examples import COLUMNS as EXAMPLE_COLUMNS, example_rows
from fishing2sim.run.chunks import RunError, n_chunks
from fishing2sim.run.processes import (RunInterrupted, StopSignals, WorkerPool, check_workers,
                                       default_workers)
from fishing2sim.safe_files import FileSafetyError, check_replaceable
from fishing2sim.run.dask import DaskBackend

__all__ = ["Results", "load", "play", "tables", "write_report", "run"]


@dataclass
class Results:
    tables: dict
    meta: dict = field(default_factory=dict)
    totals: list = field(default_factory=list)  # per condition: the merged totals
    units: list = field(default_factory=list)  # per condition: chunk -> unit vectors (paired)
    exp: object = None  # the experiment as run (precision runs: each condition's games)
    examples: list = field(default_factory=list)  # the rows of examples.csv (run/examples.py)


def load(experiment, overrides: dict | None = None, yes: bool = False) -> Experiment:
    """The checked experiment of a path (or a loaded Experiment as it is). Raises
    ExperimentError naming what is wrong and where; compiles nothing."""
    if isinstance(experiment, Experiment):
        return experiment
    return load_experiment(experiment, overrides, yes=yes)


def play(exp: Experiment, folder, done, state, workers: int, in_process: bool, backend=None,
         progress: bool = False, pool: WorkerPool | None = None) -> runner.Played:
    """The games of ``exp`` (the chunks not in ``done``, checkpointed into ``folder``), with
    the precision and SPRT stopping rules of fishing2sim.analysis: totals only."""
    return runner.play(exp, folder, done, state, workers, in_process, backend, progress,
                       pool, decide=stopping.decide)


def tables(played: runner.Played) -> Results:
    """The report's tables (pandas DataFrames) of what was played; with example games
    (``examples:``, not 0) their rows too, the table ``examples`` (examples.csv)."""
    tabs = tables_from_totals(played.exp, played.totals, played.units)
    rows = example_rows(played.exp, played.examples, played.units)
    if rows:
        tabs["examples"] = pd.DataFrame(rows, columns=EXAMPLE_COLUMNS)
    return Results(tabs, played.meta, played.totals, played.units, played.exp, rows)


def write_report(results: Results) -> None:
    """The report folder of ``results`` (CSVs, plots, summary.md, report.html), replaced
    atomically. A folder that is not a report of this program is refused (RunError)."""
    # the report imports matplotlib (most of a second): loaded only to write one
    from fishing2sim.report import write_report as write

    exp = results.exp
    try:
        write(exp, results)
    except FileSafetyError as exc:
        raise RunError(f"{exc} (the finished chunks are kept: run again with --resume)"
                       ) from None
    except OSError as exc:
        raise RunError(f"cannot write the report {exp.output_dir}: {exc.strerror or exc} (the "
                       "older report is untouched and the finished chunks are kept: run again "
                       "with --resume)") from None


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
    the size limits of the experiment file needs ``yes=True``; a report folder in use by
    another run is refused).
    SIGINT (Ctrl-C) or SIGTERM stops the workers at once and raises RunInterrupted (a
    KeyboardInterrupt) naming how many chunks are saved: ``resume=True`` continues.
    ``ignore_after_stop`` keeps both signals ignored after such a stop (the command line,
    which then prints one line and exits: a second Ctrl-C cannot interrupt that).
    ``pool`` (a WorkerPool; local processes only, not in_process) keeps the workers for
    the caller's next run. With ``progress`` and a cold cache, the compile notice comes
    before the first compile (fishing2sim/first_run.py).
    """
    with first_run.notice(progress):
        exp = load(experiment, overrides, yes)
        scheduler = scheduler or getattr(exp, "scheduler", None)
        if dask_local is not None and dask_local < 1:
            raise RunError(f"--dask-local needs a number of workers >= 1, got {dask_local}")
        if dask_local is not None:  # a local cluster's workers are processes of this machine
            check_workers(dask_local, "--dask-local")
        where = "--workers" if workers else f"{exp.path.name}: workers"
        if workers is None or workers == 0:
            workers = exp.workers or default_workers()
        if not (scheduler or dask_local):
            check_workers(workers, where)
        if in_process is None:
            in_process = workers == 1
        first_run.before_compile()  # the workers (or this process) compile the engine now
        with StopSignals(ignore_after_stop), _Session(exp, resume, write) as s:
            backend = _backend(exp, scheduler, dask_local)  # fails early
            try:
                played = play(exp, s.folder, s.done, s.state, workers, in_process, backend,
                              progress, pool)
            except BaseException:
                if backend is not None:
                    backend.close(fast=True)
                raise
            if backend is not None:
                backend.close()
            results = tables(played)
            if write:
                write_report(results)
                s.finished()
            return results


def _backend(exp, scheduler, dask_local):
    if not (scheduler or dask_local):
        return None

    return DaskBackend(exp, scheduler=scheduler, n_local=dask_local)


class _Session:
    """One run's hold on its report folder: the lock, the report folder checked before any
    game is played, the checkpoints opened (``resume``: the saved chunks kept), and on the
    way out the checkpoints dropped once the report is written, or kept (a stop names how
    many) when the run ends early."""

    def __init__(self, exp, resume: bool, write: bool):
        self.exp, self.resume, self.write = exp, resume, write
        self.lock = OutputLock(exp.output_dir.parent, exp.name)
        self.folder = None
        self.done: set = set()
        self.state = None

    def __enter__(self) -> "_Session":
        try:
            self.lock.acquire()
        except KeyboardInterrupt as exc:
            raise RunInterrupted(getattr(exc, "signum", signal.SIGINT), 0,
                                 n_chunks(self.exp)) from None
        try:
            if self.write:  # refused now, not after the games: a folder of the user's own
                try:
                    check_replaceable(self.exp.output_dir)
                except FileSafetyError as exc:
                    raise RunError(str(exc)) from None
            self.folder, self.done, self.state = open_checkpoints(self.exp, self.resume)
        except BaseException:
            self.lock.release()
            raise
        return self

    def finished(self) -> None:
        drop_checkpoints(self.folder)

    def _saved(self) -> int:
        return len(list(self.folder.glob("c*-k*.npz")))

    def __exit__(self, exc_type, exc, tb) -> bool:
        try:
            if exc_type is None:
                return False
            here = self.folder is not None and self.folder.is_dir()
            n = self._saved() if here else len(self.done)
            if here and n == 0:
                drop_checkpoints(self.folder)
            if issubclass(exc_type, KeyboardInterrupt):
                signum = getattr(exc, "signum", signal.SIGINT)
                raise RunInterrupted(signum, n, n_chunks(self.exp)) from None
            return False
        finally:
            self.lock.release()
