"""``fishing2sim tune FILE.yaml``: search deck edits and bot parameters toward a design target.

An experiment file with a ``tune:`` section names a search space (sweepable key paths with
a range or a list of choices), an objective (a figure to maximise or minimise, or targets
on figures turned into one loss, plus an optional cost per deck change) and a budget. Every
trial is the file with the trial's values applied at their key paths, run by the
experiment runner (``run(..., write=False)``) with its games seeded from (seed, trial
number); Optuna proposes the values (TPE for integer / mixed spaces, CMA-ES for continuous
vectors) and keeps the study in ``<output>/<name>/study.db`` (SQLite), so ``--resume``
continues it and optuna-dashboard opens it. At the end the best few trials are re-run with
a fresh seed and more games (racing) next to the untuned file (the baseline), and the
report is written atomically (a temporary folder, then renamed). With ``objective: {pareto:
[...]}`` the study has one direction per objective, and instead of racing its front (every
configuration no trial dominates) is played again on a fresh seed beside the untuned file
(fishing2sim/tune/pareto.py; its report: fishing2sim/tune/pareto_report.py).

    from fishing2sim.tune.tuner import load_tune, tune
    spec = load_tune("experiments/tune_deck.yaml")
    result = tune(spec, workers=2)

Every problem in the file is ONE :class:`TuneError` line ``"<file>: <key path>: <problem>"``:
the ``tune:`` section is checked by its schema (fishing2sim/tune/schema.py), the rest on the
file's experiment by ``load_tune`` (fishing2sim/tune/spec.py). A trial's figures and value
come from fishing2sim/tune/objective.py, the racing from fishing2sim/tune/racing.py; this
module runs the Optuna study. The keys are documented in ``docs/tune.md``.
"""
from __future__ import annotations

import math
import os
import shutil
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fishing2sim import __version__
from fishing2sim.run.checkpoints import OutputLock
from fishing2sim.run import processes  # processes.default_workers: a test sets the cores
from fishing2sim.run.processes import WorkerPool, check_workers
from fishing2sim.safe_files import (
    MARKER, FileSafetyError, check_replaceable, real_folder, write_marker,
)
from fishing2sim.tune.pareto import axes, measure_front, trial_line
from fishing2sim.tune.schema import FIGURES
from fishing2sim.tune.schema import short as _short
from fishing2sim.tune.spec import (  # noqa: F401 (load_tune: the names other modules import)
    TuneError, TuneSpec, _default_values, build_experiment, load_tune,
)
from fishing2sim.tune.objective import (  # noqa: F401 (the names the tests read here)
    TRIAL_SEED_OFFSET, Estimate, Evaluation, deck_changes, derive_seed, evaluate, figure_names,
    figures_of, objective_value, show_estimate, targets_met, value_text,
)
from fishing2sim.tune.objective import _say
from fishing2sim.tune.racing import CONFIRM_SEED_OFFSET, race  # noqa: F401

__all__ = ["TuneError", "TuneSpec", "TuneResult", "load_tune", "tune", "FIGURES"]

SAMPLER_SEED_OFFSET = 4_000_000

def _make_sampler(spec: TuneSpec, seed: int):
    import optuna

    seed = int(seed) & 0xFFFFFFFF  # numpy's RandomState takes 32 bits

    if spec.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if spec.sampler == "cmaes":
        # starts at the middle of the ranges with sigma = the narrowest width / 6 (Optuna's
        # defaults); the file's own point is the study's first trial
        return optuna.samplers.CmaEsSampler(seed=seed, n_startup_trials=0,
                                            warn_independent_sampling=False)
    n_startup = max(2, min(10, spec.trials // 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=n_startup,
                                          multivariate=True)


def _counted(trials) -> list:
    """Trials that used budget: finished, or failed with a recorded reason."""
    from optuna.trial import TrialState

    return [t for t in trials if t.state == TrialState.COMPLETE
            or (t.state == TrialState.FAIL and "error" in t.user_attrs)]


_OPTUNA_TABLES = {"studies", "trials", "version_info"}


def study_names(db: Path) -> list[str] | None:
    """The names of the studies in the Optuna study file ``db`` (None: no file, or an empty
    one, which holds nothing); a TuneError if ``db`` is a link, a folder, anything but a
    regular file, or a file that is not an Optuna study (another file, a damaged or
    truncated database)."""
    import sqlite3
    import stat

    try:
        st = os.lstat(db)
    except FileNotFoundError:
        return None
    move = "fishing2sim leaves it as it is: move it away (or choose another --output)"
    if stat.S_ISLNK(st.st_mode):
        raise TuneError(f"{db}: the study file is a symbolic link; fishing2sim does not write "
                        "through links: move the link away (or choose another --output)")
    if stat.S_ISDIR(st.st_mode):
        raise TuneError(f"{db}: is a folder, not an Optuna study file: {move}")
    if not stat.S_ISREG(st.st_mode):
        raise TuneError(f"{db}: is not a regular file, not an Optuna study: {move}")
    if st.st_size == 0:
        return None
    why = None
    try:
        with open(db, "rb") as f:
            head = f.read(16)
        if head != b"SQLite format 3\x00":
            why = "not an SQLite database"
        else:
            con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
            try:
                check = con.execute("pragma quick_check").fetchone()
                tables = {r[0] for r in con.execute(
                    "select name from sqlite_master where type = 'table'")}
                if check is None or check[0] != "ok":
                    why = f"a damaged SQLite database: {check[0] if check else 'unreadable'}"
                elif not _OPTUNA_TABLES <= tables:
                    why = "an SQLite database without Optuna's tables"
                else:
                    return [r[0] for r in con.execute("select study_name from studies")]
            finally:
                con.close()
    except sqlite3.Error as exc:
        why = f"a damaged SQLite database: {exc}"
    except OSError as exc:
        why = f"unreadable: {exc.strerror or exc}"
    raise TuneError(f"{db}: is not an Optuna study ({why}): {move}")


def check_study_file(spec: TuneSpec, resume: bool) -> bool:
    """Whether ``spec.study_path`` holds a study to continue (``resume``) or to replace (a
    study of this tune: named like it); a TuneError (one line, nothing deleted) for a file
    that is not an Optuna study or that holds another tune's studies only."""
    db = spec.study_path
    names = study_names(db)
    if names is None:
        return False
    if spec.name in names:
        return True
    listed = ", ".join(repr(n) for n in names) or "none"
    raise TuneError(f"{db}: an Optuna study file without the study {spec.name!r} (its studies: "
                    f"{listed}); fishing2sim leaves it as it is: move it away (or choose "
                    "another --output)")


def open_study(spec: TuneSpec, resume: bool):
    """The study in ``spec.study_path``: continued with ``resume``, else a new one (a study
    of this tune left there is replaced; any other file is refused, never deleted). The
    caller holds the folder's lock (runner.OutputLock)."""
    import optuna
    from optuna.trial import TrialState

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        real_folder(spec.output_dir, "report folder")
    except FileSafetyError as exc:
        raise TuneError(str(exc)) from None
    db = spec.study_path
    ours = check_study_file(spec, resume)
    if ours and not resume:
        db.unlink()
    elif db.exists() and not ours:  # an empty file: it holds nothing
        db.unlink()
    storage = optuna.storages.RDBStorage(f"sqlite:///{db}")
    if resume and ours:
        study = optuna.load_study(study_name=spec.name, storage=storage)
        old = study.user_attrs.get("config_hash")
        if old != spec.config_hash:
            raise TuneError(f"{spec.given}: --resume: the tune file changed since the "
                            f"interrupted run (its study in {db} belongs to another "
                            "configuration); run without --resume to start again")
        for t in study.get_trials(deepcopy=False):
            if t.state == TrialState.RUNNING:  # interrupted: evaluate its point again
                storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
                study.enqueue_trial(dict(t.params), user_attrs={"retry_of": t.number},
                                    skip_if_exists=False)
        n_done = len(study.get_trials(deepcopy=False))
        study.sampler = _make_sampler(spec, derive_seed(spec.seed, SAMPLER_SEED_OFFSET + n_done))
        return study, storage
    if spec.pareto:  # one direction per objective (fishing2sim/tune/pareto.py)
        sense = {"directions": [a.sense for a in axes(spec)]}
    else:
        sense = {"direction": spec.direction}
    study = optuna.create_study(storage=storage, study_name=spec.name,
                                sampler=_make_sampler(spec, spec.seed), **sense)
    study.set_user_attr("config_hash", spec.config_hash)
    study.set_user_attr("seed", spec.seed)
    study.set_user_attr("file", str(spec.path))
    p = {}  # the file's own point first: trial 0 measures the untuned configuration
    for d, v in zip(spec.dims, _default_values(spec).values()):
        p.update(d.params_of(v))
    study.enqueue_trial(p)
    return study, storage


@dataclass
class TuneResult:
    spec: TuneSpec
    study: object
    trials: pd.DataFrame
    race: pd.DataFrame
    winner: dict | None
    baseline: Evaluation | None
    verdict: str
    report_dir: Path | None
    elapsed_s: float
    importance_note: str = ""
    front: object = None  # a Pareto study's front (pareto.Front)


def _prepare_output(spec: TuneSpec) -> None:
    """The study's folder: refused if it is a folder of the user's own, a link or a file;
    made and marked as this program's otherwise (the report later replaces it). The scratch
    folder of the trials' checkpoints may not be a link either."""
    try:
        check_replaceable(spec.output_dir, named_in="tune file")
        if spec.scratch.is_symlink():
            raise FileSafetyError(f"{spec.scratch}: the tune's scratch folder is a symbolic "
                                  "link; fishing2sim does not write through links: remove it")
        real_folder(spec.output_dir, "report folder")
        if not (spec.output_dir / MARKER).is_file():
            write_marker(spec.output_dir, "tune", spec.name, __version__)
    except FileSafetyError as exc:
        raise TuneError(str(exc)) from None


def tune(spec: TuneSpec, workers: int | None = None, resume: bool = False,
         progress: bool = False, write: bool = True) -> TuneResult:
    """Run the study (or continue it), race the best trials, write the report. The report
    folder is locked meanwhile (runner.OutputLock, as ``run`` locks it): a second tune or a
    run on the same folder is refused (a RunError naming the PID)."""
    with OutputLock(spec.output_dir.parent, spec.name), WorkerPool() as pool:
        return _tune(spec, workers, resume, progress, write, pool)


def _tune(spec: TuneSpec, workers, resume: bool, progress: bool, write: bool,
          pool) -> TuneResult:
    from optuna.trial import TrialState

    where = "--workers" if workers else f"{spec.path.name}: workers"
    workers = check_workers(workers or spec.raw.get("workers") or processes.default_workers(),
                            where)
    t0 = time.perf_counter()
    _prepare_output(spec)
    study, storage = open_study(spec, resume)
    while True:
        done = _counted(study.get_trials(deepcopy=False))
        if len(done) >= spec.trials:
            break
        if spec.time_limit is not None and time.perf_counter() - t0 > spec.time_limit:
            _say(progress, f"time limit reached after {len(done)} trials")
            break
        trial = study.ask()
        values = {d.key: d.suggest(trial) for d in spec.dims}
        seed = derive_seed(spec.seed, TRIAL_SEED_OFFSET + trial.number)
        try:  # an interruption leaves the trial RUNNING: --resume evaluates it again
            ev = evaluate(spec, values, seed, spec.games, workers, f"trial-{trial.number}",
                          pool)
        except TuneError as exc:  # e.g. an undealable deck for this combination
            trial.set_user_attr("error", str(exc).split(": ", 1)[-1])
            trial.set_user_attr("seed", seed)
            study.tell(trial, state=TrialState.FAIL)
            _say(progress, f"trial {trial.number}: not playable: {exc}")
            continue
        _tell(spec, study, trial, seed, ev)
        _say(progress, f"trial {trial.number} ({len(done) + 1}/{spec.trials}): "
             f"{_progress_text(spec, study, ev)} in {ev.seconds:.1f} s")
    trials_df = trials_table(spec, study)
    front = None
    if spec.pareto:  # no single winner: the front, played again
        front = measure_front(spec, study, workers, progress, pool)
        race_df, winner, base_ev, verdict = pd.DataFrame(), None, front.baseline, ""
    else:
        race_df, winner, base_ev, verdict = race(spec, study, workers, progress, pool)
    elapsed = time.perf_counter() - t0
    result = TuneResult(spec, study, trials_df, race_df, winner, base_ev, verdict, None,
                        elapsed, front=front)
    if write:
        # tune/report.py imports matplotlib (most of a second): loaded only to write
        from fishing2sim.tune.report import write_tune_report

        result.report_dir = write_tune_report(result)
    shutil.rmtree(spec.scratch, ignore_errors=True)
    return result


def _tell(spec: TuneSpec, study, trial, seed: int, ev) -> None:
    """A finished trial's figures kept in the study, and its value (values) told."""
    trial.set_user_attr("seed", seed)
    trial.set_user_attr("games", spec.games)
    trial.set_user_attr("deck_changes", ev.changes)
    trial.set_user_attr("seconds", round(ev.seconds, 3))
    trial.set_user_attr("figures", [[f.label, f.estimate, f.ci_low, f.ci_high, f.n]
                                    for f in ev.figures])
    study.tell(trial, ev.value)


def _progress_text(spec: TuneSpec, study, ev) -> str:
    """A trial's line: its value and the best so far, or a Pareto study's objectives and
    the size of its front."""
    if spec.pareto:
        return f"{trial_line(spec, ev)} (front: {len(study.best_trials)} trials)"
    best = study.best_value
    hw = (ev.figures[0].ci_high - ev.figures[0].ci_low) / 2 if ev.figures else math.nan
    return f"value {value_text(spec, ev.value, hw)} (best {value_text(spec, best, hw)})"


def trials_table(spec: TuneSpec, study) -> pd.DataFrame:
    rows = []
    on_front = {t.number for t in study.best_trials} if spec.pareto else set()
    for t in study.get_trials(deepcopy=False):
        r = {"trial": t.number, "state": t.state.name}
        if spec.pareto:  # whether the trial is on the front (on its own games)
            r["front"] = t.number in on_front
        else:
            r["value"] = t.value if t.value is not None else math.nan
        try:
            vals = {d.key: d.value_from_params(t.params) for d in spec.dims}
        except KeyError:
            vals = {}
        for d in spec.dims:
            r[d.key] = _short(vals[d.key]) if d.key in vals else None
        r["deck_changes"] = t.user_attrs.get("deck_changes", math.nan)
        for label, est, lo, hi, n in t.user_attrs.get("figures", []):
            r[label] = est
            r[f"{label} ci_low"] = lo
            r[f"{label} ci_high"] = hi
        r["games"] = t.user_attrs.get("games")
        r["seed"] = t.user_attrs.get("seed")
        r["seconds"] = t.user_attrs.get("seconds")
        r["error"] = t.user_attrs.get("error", "")
        rows.append(r)
    df = pd.DataFrame(rows)
    for c in ("seed", "games"):  # whole numbers (a seed has 63 bits: never via a float)
        if c in df.columns:
            df[c] = pd.array([r[c] for r in rows], dtype="Int64")
    return df


# ---- racing -------------------------------------------------------------------------------
