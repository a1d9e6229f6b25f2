"""``fishing2sim train FILE``: expert iteration for the student policy ``skilled``.

The training file (experiments/train/skilled_policy.yaml) names the teacher search and its
budget, where positions come from (rulesets, player counts, games per iteration), the
number of iterations and the fit's settings. Iteration i:

1. plays self-play games with the current student in every seat (iteration 1: the
   ``behaviour`` bot, by default the prior student, i.e. ``weights`` in the student's
   features), or, in a condition with ``opponents``, the student in each seat in turn
   against those bots, and has the teacher label a share of every decision (every
   seat's) with its option values (train/label.py), on ``workers`` processes; stored as
   positions_<i>.npz;
2. fits the student on every position so far (the games numbered 0 mod 10 held out),
   starting from the last weights (train/fit.py); stored as model_<i>.npz and a strategy
   file student_<i>.py that plays it;
3. measures the student: top-1 agreement and regret against the teacher on the held-out
   positions by decision kind, and its seat-rotated win share against three ``weights``;
4. with ``rollout: student`` the next iteration's teacher rolls out with this student
   (a search bot file teacher_<i+1>.py with ROLLOUT = the student's file).

With ``distill: [MEMBER.yaml, ...]`` a step follows the iterations (train/distill.py):
the member training files are trained (or resumed) beside the run, and one student is fitted
to the mean score of the run's last student and theirs; it is the run's model. With ``es:
{...}`` a last step tunes that model's Fishing 2 card plays on the win share itself
(evolution strategies, train/es.py); its result is the run's model.

state.json records the finished iterations, written last and atomically: an iteration
stopped by Ctrl-C or a kill counts as not done, and its files are written again; a second
run of the same file resumes after the last finished iteration (a longer run of the same
settings resumes a shorter one); a run of changed settings refuses the folder unless
--fresh. The run is deterministic given the file's seed on one machine: the positions do not
depend on the workers (on another processor the fit's floating-point sums may round
differently, docs/strategies.md).
The training file is read by train/config.py (its schema: train/schema.py), an iteration
is train/iteration.py. The report (train/report.py) is iterations.csv, agreement.csv (distill.csv),
learning_curve.png, summary.md and report.html; the last model (the distilled one) is
model.npz (copy it to fishing2sim/data/skilled.npz to ship it).
"""
from __future__ import annotations

from pathlib import Path

from fishing2sim.run.checkpoints import OutputLock
from fishing2sim.run.chunks import RunError
from fishing2sim.run.dask import dask_executor
from fishing2sim.run.processes import check_workers
from fishing2sim.safe_files import read_regular, write_atomic
from fishing2sim.train.checks import check_size, open_output, resume_weights
from fishing2sim.train.config import TrainError, config_hash, read_config
from fishing2sim.train.distill import check_member_folders, run_distill
from fishing2sim.train.es import run_es
from fishing2sim.train.fit import prior_weights
from fishing2sim.train.iteration import run_iteration
from fishing2sim.train.labels import using_executor
from fishing2sim.train.model import save_model
from fishing2sim.train.report import write_report


def train(path, workers=None, output=None, fresh=False, progress=print,
          scheduler: str | None = None, dask_local: int | None = None,
          using_dask: bool = False, yes: bool = False, config: dict | None = None) -> Path:
    """Run (or resume) the training file; returns its output folder. With ``scheduler`` (a
    Dask scheduler address) or ``dask_local`` (a local Dask cluster of that many workers)
    the labelling's chunks run as Dask tasks: the same chunks, joined in game order, so the
    same positions and models as locally. The folder is locked meanwhile (the lock file
    ``<output>/.<name>.lock``, as a run's): a second training of it stops with one line.
    Above the size limits (train/checks.py) only with ``yes``. ``config``: the file as
    read_config read it, if the caller has read it already (the command line reads it before
    it loads the trainer, so a mistake in the file is one line at once).
    """
    if dask_local:  # a local cluster's workers are processes of this machine
        try:
            check_workers(dask_local, "--dask-local")
        except ValueError as exc:
            raise TrainError(str(exc)) from None
    if scheduler or dask_local:
        with dask_executor(scheduler, dask_local) as ex, using_executor(ex):
            return train(path, workers, output, fresh, progress, using_dask=True, yes=yes,
                         config=config)
    c = config if config is not None else read_config(path)
    check_size(c, yes, f"training file {path}")
    h = config_hash(c)
    where = "--workers" if workers else f"{Path(path).name}: workers"
    workers = int(workers or c["workers"])
    if not using_dask:
        try:
            check_workers(workers, where)
        except ValueError as exc:
            raise TrainError(str(exc)) from None
    out = Path(output or c["output"]) / c["name"]

    if c["distill"]:  # the members' folders checked before any work (train/distill.py)
        check_member_folders(c, out.parent, fresh)
    lock = OutputLock(out.parent, c["name"])  # as a run's: two never share a folder
    try:
        lock.acquire()
    except RunError as exc:
        raise TrainError(str(exc)) from None
    try:
        return _train_in(c, h, out, workers, fresh, progress, yes)
    except MemoryError:  # (with --yes above the limits): one line, the finished work kept
        raise TrainError(f"training file {path}: out of memory; the finished iterations "
                         "are kept (fewer games, deals or pairs a step)") from None
    finally:
        lock.release()


def _train_in(c: dict, h: str, out: Path, workers: int, fresh: bool, progress,
              yes: bool = False) -> Path:
    """train's iterations in its folder ``out`` (the caller holds the folder's lock)."""
    state = open_output(out, h, fresh)
    w = prior_weights()
    if state["done"]:  # every file it will read checked before any work (train/checks.py)
        prev_model = out / f"model_{state['done']}.npz"
        w = resume_weights(c, h, out, state["done"])
        progress(f"resuming after iteration {state['done']} ({out})")
    else:
        prev_model = out / "model_0.npz"
        save_model(prev_model, w, h, {"iteration": 0, "prior": True})
    for i in range(state["done"] + 1, c["iterations"] + 1):
        prev_model, w = run_iteration(c, h, out, i, state, w, prev_model, workers, progress)
    if c["distill"]:  # the last step: one student fitted to several (train/distill.py)
        members = _train_members(c, out, workers, fresh, progress, yes)
        prev_model = run_distill(c, h, out, state, prev_model, members, progress)
    if c["es"]:  # a policy step on the win share (train/es.py)
        prev_model = run_es(c, h, out, state, prev_model, workers, progress)
    write_atomic(out / "model.npz", read_regular(prev_model, 1 << 28, what="model file"))
    write_report(out, c, state)
    return out


def _train_members(c: dict, out: Path, workers: int, fresh: bool, progress,
                   yes: bool = False) -> list:
    """Each member trained or resumed in the run's output folder: [(name, folder, config)]."""
    members = []
    for f in c["distill"]:
        m = read_config(f)
        progress(f"distill: member {m['name']} ({f}) in {out.parent / m['name']}")
        folder = train(f, workers, out.parent, fresh,
                       progress=lambda msg, n=m["name"]: progress(f"  {n}: {msg}"), yes=yes)
        members.append((m["name"], folder, m))
    return members
