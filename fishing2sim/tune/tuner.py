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
report is written atomically (a temporary folder, then renamed).

    from fishing2sim.tune.tuner import load_tune, tune
    spec = load_tune("experiments/tune_deck.yaml")
    result = tune(spec, workers=2)

Every problem in the file is ONE :class:`TuneError` line ``"<file>: <key path>: <problem>"``:
the ``tune:`` section is checked by its schema (fishing2sim/tune/schema.py), the rest on the
file's experiment by ``load_tune`` (fishing2sim/tune/spec.py). The keys are documented in
``docs/tune.md``.
"""
from __future__ import annotations

import copy
import json
import math
import os
import shutil
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fishing2sim.config.experiment import MAX_SEED, ExperimentError, load_experiment_data
from fishing2sim.tune.schema import FIGURES, ROW_KEYS, SHARE_FIGURES, Figure, _number
from fishing2sim.tune.schema import short as _short
from fishing2sim.tune.spec import (  # noqa: F401 (load_tune: the names other modules import)
    TuneError, TuneSpec, _default_values, build_experiment, load_tune,
)

__all__ = ["TuneError", "TuneSpec", "TuneResult", "load_tune", "tune", "FIGURES"]

TRIAL_SEED_OFFSET = 2_000_000
RACE_SEED_OFFSET = 3_000_000
SAMPLER_SEED_OFFSET = 4_000_000
CONFIRM_SEED_OFFSET = 5_000_000  # the winner and the baseline, on a seed not used to pick
Z = 1.959963984540054
_MC_DRAWS = 4000

# ---- helpers ------------------------------------------------------------------------------
def derive_seed(seed: int, index: int) -> int:
    """game_seed(seed, index) kept to 63 bits (the runner's condition seeds do the same)."""
    from fishing2sim.engine.rng import game_seed

    return int(game_seed(int(seed), int(index))) & MAX_SEED



# ---- evaluating figures -------------------------------------------------------------------
@dataclass
class Estimate:
    label: str  # e.g. "overfishing[players=5]"
    estimate: float
    ci_low: float
    ci_high: float
    n: int

    @property
    def se(self) -> float:
        hw = (self.ci_high - self.ci_low) / 2
        return hw / Z if math.isfinite(hw) else 0.0


def _select(spec, fig: Figure, tables: dict, cond_index: int) -> Estimate:
    table, metric, *_ = FIGURES[fig.name]
    df = tables[table]
    rows = df[(df["condition"] == cond_index) & (df["metric"] == metric)]
    for k in ROW_KEYS:
        if k not in rows.columns:
            continue
        if k in fig.where:
            col = rows[k]
            rows = rows[col.notna() & (col.astype(str) == fig.where[k])]
        else:
            rows = rows[rows[k].isna()]
    if len(rows) != 1:
        raise RuntimeError(f"figure {fig.text}: {len(rows)} rows in condition {cond_index}")
    r = rows.iloc[0]
    est, lo, hi = float(r["estimate"]), float(r["ci_low"]), float(r["ci_high"])
    if fig.name == "leader_edge":
        fair = 1.0 / spec.players[cond_index]
        est, lo, hi = (100 * (x - fair) for x in (est, lo, hi))
    label = fig.text
    if len(spec.expansions[fig.text]) > 1:
        label = f"{fig.text} @ {spec.labels[cond_index]}"
    return Estimate(label, est, lo, hi, int(r["n"]))


def figures_of(spec: TuneSpec, tables: dict) -> list:
    """Every figure the objective uses, per matching condition (a list of Estimate; with
    targets, in target order, each target once per condition)."""
    out = []
    figs = [spec.figure] if spec.figure else [t.figure for t in spec.targets]
    for fig in figs:
        for ci in spec.expansions[fig.text]:
            out.append(_select(spec, fig, tables, ci))
    return out


def figure_names(spec: TuneSpec) -> list:
    """The FIGURES name of each figures_of entry (in its order)."""
    figs = [spec.figure] if spec.figure else [t.figure for t in spec.targets]
    return [fig.name for fig in figs for _ in spec.expansions[fig.text]]


def show(name: str | None, x, hw=math.nan, diff: bool = False) -> str:
    """A figure's value as the run reports write it: a share in percent (a difference of
    shares in pp), the leader edge in pp, other figures as numbers, each with the decimals
    its 95% CI half-width ``hw`` warrants. ``name`` None: the targets' loss, unitless."""
    from fishing2sim.report.common import number

    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if name is None:
        return f"{x:.4g}"
    if name in SHARE_FIGURES:
        return f"{number(100 * x, 100 * hw)}{' pp' if diff else '%'}"
    if name == "leader_edge":
        return f"{number(x, hw)} pp"
    return number(x, hw)


def show_estimate(name: str, e) -> str:
    """``12.3% [11.9, 12.7]``: an Estimate as the run reports' tables write a figure."""
    hw = (e.ci_high - e.ci_low) / 2
    unit = show(name, e.estimate, hw)
    if math.isnan(hw):
        return unit
    lo, hi = show(name, e.ci_low, hw), show(name, e.ci_high, hw)
    strip = (lambda t: t.removesuffix("%").removesuffix(" pp"))
    return f"{unit} [{strip(lo)}, {strip(hi)}]"


def value_text(spec: TuneSpec, x, hw=math.nan, diff: bool = False) -> str:
    """A trial's value in its figure's unit (the targets' loss: a plain number)."""
    return show(spec.figure.name if spec.mode != "targets" else None, x, hw, diff)


def _terms(spec: TuneSpec) -> list:
    """(target, figure index) pairs in figures_of order."""
    out = []
    i = 0
    for t in spec.targets:
        for _ in spec.expansions[t.figure.text]:
            out.append((t, i))
            i += 1
    return out


def objective_value(spec: TuneSpec, xs, changes: float) -> float:
    """The trial's value from its figures' estimates ``xs`` (in figures_of order)."""
    if spec.mode == "targets":
        return sum((t.violation(xs[i]) / t.scale) ** 2 for t, i in _terms(spec)) \
            + spec.cost * changes
    if spec.mode == "maximize":
        return xs[0] - spec.cost * changes
    return xs[0] + spec.cost * changes


def targets_met(spec: TuneSpec, ests: list) -> list:
    """Per target term: (text, 'met' / 'missed', whether the whole CI meets it)."""
    out = []
    for t, i in _terms(spec):
        e = ests[i]
        met = t.violation(e.estimate) == 0
        sure = t.violation(e.ci_low) == 0 and t.violation(e.ci_high) == 0
        out.append((e.label if e.label != t.figure.text else t.text, t, met, sure))
    return out


def deck_changes(spec: TuneSpec, values: dict) -> float:
    """How far the trial's deck edits are from the file's: |value - file's| summed over
    whole-number deck keys (a missing edit counts as 0), 1 per choice that differs from the
    file's value (or, if the file has none, from the first choice)."""
    n = 0.0
    for d in spec.dims:
        if not d.key.startswith("deck."):
            continue
        v = values[d.key]
        b = spec.baseline.get(d.key)
        if d.kind in ("int", "float"):
            n += abs(v - (b if _number(b) else 0))
        elif d.kind == "floats":
            bb = b if isinstance(b, list) and len(b) == len(v) else [0.0] * len(v)
            n += sum(1 for x, y in zip(v, bb) if x != y)
        else:
            ref = b if b is not None else d.choices[0]
            n += 0 if _short(v) == _short(ref) else 1
    return n


# ---- running ------------------------------------------------------------------------------
@dataclass
class Evaluation:
    values: dict
    seed: int
    games: int
    figures: list  # Estimate
    value: float
    changes: float
    seconds: float


def _run_trial(exp, workers: int, pool=None):
    """A trial's (or a racing) run: its games in worker processes even for one worker
    (``in_process=False``), so Ctrl-C stops it at once, inside a chunk too (a compiled
    kernel cannot be interrupted from inside: the runner kills its workers). ``pool`` (a
    runner.WorkerPool) keeps the workers from one trial to the next."""
    from fishing2sim.run.runner import run

    return run(exp, write=False, workers=workers, progress=False, in_process=False,
               pool=pool)


def evaluate(spec: TuneSpec, values: dict, seed: int, games: int, workers: int,
             tag: str, pool=None) -> Evaluation:
    from fishing2sim.run.runner import checkpoint_dir

    t0 = time.perf_counter()
    exp = build_experiment(spec, values, seed, games, tag)
    try:
        res = _run_trial(exp, workers, pool)
    finally:
        shutil.rmtree(checkpoint_dir(exp), ignore_errors=True)
    figs = figures_of(spec, res.tables)
    ch = deck_changes(spec, values)
    val = objective_value(spec, [f.estimate for f in figs], ch)
    return Evaluation(values, seed, games, figs, val, ch, time.perf_counter() - t0)


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

    from fishing2sim.safe_files import FileSafetyError, real_folder

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
    study = optuna.create_study(storage=storage, study_name=spec.name,
                                direction=spec.direction,
                                sampler=_make_sampler(spec, spec.seed))
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


def _say(progress, msg):
    if progress:
        print(msg, file=sys.stderr, flush=True)


def _prepare_output(spec: TuneSpec) -> None:
    """The study's folder: refused if it is a folder of the user's own, a link or a file;
    made and marked as this program's otherwise (the report later replaces it). The scratch
    folder of the trials' checkpoints may not be a link either."""
    from fishing2sim import __version__
    from fishing2sim.safe_files import MARKER, FileSafetyError, check_replaceable, real_folder, write_marker

    try:
        check_replaceable(spec.output_dir)
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
    from fishing2sim.run.runner import OutputLock, WorkerPool

    with OutputLock(spec.output_dir.parent, spec.name), WorkerPool() as pool:
        return _tune(spec, workers, resume, progress, write, pool)


def _tune(spec: TuneSpec, workers, resume: bool, progress: bool, write: bool,
          pool) -> TuneResult:
    from optuna.trial import TrialState

    from fishing2sim.run.runner import default_workers

    workers = workers or spec.raw.get("workers") or default_workers()
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
        trial.set_user_attr("seed", seed)
        trial.set_user_attr("games", spec.games)
        trial.set_user_attr("deck_changes", ev.changes)
        trial.set_user_attr("seconds", round(ev.seconds, 3))
        trial.set_user_attr("figures", [[f.label, f.estimate, f.ci_low, f.ci_high, f.n]
                                        for f in ev.figures])
        study.tell(trial, ev.value)
        best = study.best_value
        hw = (ev.figures[0].ci_high - ev.figures[0].ci_low) / 2 if ev.figures else math.nan
        _say(progress, f"trial {trial.number} ({len(done) + 1}/{spec.trials}): "
             f"value {value_text(spec, ev.value, hw)} (best {value_text(spec, best, hw)}) "
             f"in {ev.seconds:.1f} s")
    trials_df = trials_table(spec, study)
    race_df, winner, base_ev, verdict = race(spec, study, workers, progress, pool)
    elapsed = time.perf_counter() - t0
    result = TuneResult(spec, study, trials_df, race_df, winner, base_ev, verdict, None,
                        elapsed)
    if write:
        from fishing2sim.tune.report import write_tune_report

        result.report_dir = write_tune_report(result)
    shutil.rmtree(spec.scratch, ignore_errors=True)
    return result


def trials_table(spec: TuneSpec, study) -> pd.DataFrame:
    rows = []
    for t in study.get_trials(deepcopy=False):
        r = {"trial": t.number, "state": t.state.name,
             "value": t.value if t.value is not None else math.nan}
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
def _diff_ci(spec: TuneSpec, a: Evaluation, b: Evaluation, seed: int):
    """95% interval of value(a) - value(b) from the figures' sampling distributions (each
    figure normal with its CI's standard error, the two runs independent: conservative when
    they share deals)."""
    rng = np.random.default_rng(seed)

    def draws(ev):
        cols = [rng.normal(f.estimate, f.se, _MC_DRAWS) if f.se > 0
                else np.full(_MC_DRAWS, f.estimate) for f in ev.figures]
        return np.array([objective_value(spec, xs, ev.changes) for xs in zip(*cols)])

    d = draws(a) - draws(b)
    point = a.value - b.value
    lo, hi = np.percentile(d, [2.5, 97.5])
    return point, float(lo), float(hi)


def race(spec: TuneSpec, study, workers: int, progress: bool, pool=None):
    from optuna.trial import TrialState

    complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    if not complete:
        return pd.DataFrame(), None, None, "no trial gave a playable experiment"
    sign = -1 if spec.direction == "maximize" else 1
    complete.sort(key=lambda t: (sign * t.value, t.number))
    cands, seen = [], set()
    for t in complete:
        vals = {d.key: d.value_from_params(t.params) for d in spec.dims}
        k = json.dumps(vals, sort_keys=True, default=str)
        if k in seen:
            continue
        seen.add(k)
        cands.append((t.number, vals))
    top = cands[:max(1, spec.race_top)] if spec.race_top else cands[:1]
    race_seed = derive_seed(spec.seed, RACE_SEED_OFFSET)
    rows, evs = [], []
    if spec.race_top:
        for number, vals in top:
            _say(progress, f"racing trial {number} ({spec.race_games:,} games)")
            ev = evaluate(spec, vals, race_seed, spec.race_games, workers, f"race-{number}",
                          pool)
            evs.append((number, ev))
    else:
        t = next(t for t in complete if t.number == top[0][0])
        figs = [Estimate(*x) for x in t.user_attrs.get("figures", [])]
        evs.append((top[0][0], Evaluation(top[0][1], t.user_attrs.get("seed"), spec.games,
                                          figs, t.value, t.user_attrs.get("deck_changes", 0),
                                          t.user_attrs.get("seconds", 0))))
    evs.sort(key=lambda x: (sign * x[1].value, x[0]))
    winner_no, picked = evs[0]
    for rank, (number, ev) in enumerate(evs):
        rows.append(_race_row(spec, f"trial {number}", number, ev, rank + 1, picked.seed))
    # the winner's figures come from a seed not used to pick it: the best of several noisy
    # evaluations is biased in its own favour (the winner's curse); the baseline plays the
    # same fresh seed beside it
    confirm_seed = derive_seed(spec.seed, CONFIRM_SEED_OFFSET)
    _say(progress, f"confirming trial {winner_no} on a fresh seed ({spec.race_games:,} games)")
    w = evaluate(spec, picked.values, confirm_seed, spec.race_games, workers,
                 f"confirm-{winner_no}", pool)
    rows.append(_race_row(spec, f"trial {winner_no}, confirmed", winner_no, w, None,
                          confirm_seed))
    base_ev = None
    try:
        _say(progress, f"baseline (the file untuned, {spec.race_games:,} games)")
        base_ev = _evaluate_baseline(spec, confirm_seed, spec.race_games, workers, pool)
    except TuneError as exc:
        _say(progress, f"baseline not playable: {exc}")
    if base_ev is not None:
        rows.append(_race_row(spec, "baseline", None, base_ev, None, confirm_seed))
    verdict = ""
    winner = {"trial": winner_no, "values": w.values, "evaluation": w, "picked": picked}
    if len(evs) > 1:  # the evidence the pick rests on: the racing seed
        pt, lo, hi = _diff_ci(spec, picked, evs[1][1], race_seed)
        sep = (hi < 0 or lo > 0)
        winner["vs_runner_up"] = (evs[1][0], pt, lo, hi, sep)
    if base_ev is not None:
        pt, lo, hi = _diff_ci(spec, w, base_ev, confirm_seed + 1)
        winner["vs_baseline"] = (pt, lo, hi, hi < 0 or lo > 0)
    if spec.mode == "targets":
        terms = targets_met(spec, w.figures)
        winner["targets"] = terms
        verdict = "meets every target" if all(m for _, _, m, _ in terms) else \
            "misses some targets"
    return pd.DataFrame(rows), winner, base_ev, verdict


def _evaluate_baseline(spec, seed, games, workers, pool=None) -> Evaluation:
    from fishing2sim.run.runner import checkpoint_dir

    t0 = time.perf_counter()
    data = copy.deepcopy(spec.raw)
    data.update(seed=int(seed), games=int(games), name="baseline", output=str(spec.scratch))
    try:
        exp = load_experiment_data(data, spec.given, yes=spec.yes)
    except ExperimentError as exc:
        raise TuneError(str(exc)) from None
    # the baseline has no space labels: map the figures onto its conditions by players and
    # the file's own sweep labels (its conditions are in the same order)
    try:
        res = _run_trial(exp, workers, pool)
    finally:
        shutil.rmtree(checkpoint_dir(exp), ignore_errors=True)
    figs = figures_of(spec, res.tables)
    vals = {d.key: spec.baseline.get(d.key) for d in spec.dims}
    ch = 0.0
    val = objective_value(spec, [f.estimate for f in figs], ch)
    return Evaluation(vals, seed, games, figs, val, ch, time.perf_counter() - t0)


def _race_row(spec, who, number, ev: Evaluation, rank, seed=None):
    r = {"candidate": who, "trial": number, "rank": rank, "seed": seed, "games": ev.games,
         "value": ev.value, "deck_changes": ev.changes}
    for d in spec.dims:  # the baseline's keys the file leaves out: empty, not "None"
        v = ev.values.get(d.key)
        r[d.key] = None if v is None else _short(v)
    for f in ev.figures:
        r[f.label] = f.estimate
        r[f"{f.label} ci_low"] = f.ci_low
        r[f"{f.label} ci_high"] = f.ci_high
    return r
