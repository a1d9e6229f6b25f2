"""Refit the student on a training run's positions with other settings of its network, and
measure the refit against the run's own model: a minute or two a setting instead of a whole
training run (the labelling is 90% of it). The diagnostic behind docs/strategies.md "What
does not make the student stronger".

Reads the run's folder (``fishing2sim train FILE``: positions_*.npz, linear_*.npy,
model.npz) and its training file, refits the last iteration's model exactly as the run
did (the same positions, games numbered 0 mod 10 held out, the same Newton start and seed)
with the options given changed (the temperature refits the linear block too), and prints:

- whether the refit's weights are the run's (with no option changed they are: the tool
  fits as the training does);
- the held-out agreement with the teacher of Fishing 2 card plays (top-1, regret in
  points per decision) for the refit and the run's model, and the regret on the fitted
  positions (a sample), which says whether the fit or the model limits the student;
- both students' win shares against three ``weights`` on the same deals (every deal from
  every seat), and their paired difference with its 95% CI.

It writes nothing into the run's folder (the students' files live in a temporary folder);
``--out MODEL.npz`` keeps the refit's model file (e.g. for benchmarks/bench_skilled.py
``--bot``, through a student file: fishing2sim.train.model.write_student).

    python research/refit_student.py experiments/train/skilled_policy.yaml reports/skilled_policy
    python research/refit_student.py FILE FOLDER --epochs 40 --decay 0.93
    python research/refit_student.py FILE FOLDER --hidden 8 --epochs 40 --decay 0.93
    python research/refit_student.py FILE FOLDER --stakes 1
    python research/refit_student.py FILE FOLDER --distill MODEL.npz,MODEL2.npz

Two options change what the network is fitted to rather than how: ``--stakes A`` fits it
on the positions drawn again (with replacement, as many, seeded) with a chance in
proportion to (stakes + 0.05 points)^A, the stakes of a position being its best option's
value less the mean of its options' (the decisions where the choice matters weigh
more); ``--distill MODELS`` fits it to the mean of those models' scores instead of the
teacher's values (the targets softmax(mean score): one network taught by an ensemble,
research/ensemble_bot.py; the training file's ``distill`` step does this with its
members, train/distill.py). Both fit the linear block too; the agreement is still with
the teacher.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def _refuse(message: str):
    """Bad input: one line on stderr and exit 2."""
    print(message, file=sys.stderr)
    raise SystemExit(2)


def _what(a) -> str:
    out = ""
    if a.stakes is not None:
        out += f", positions drawn by stakes^{a.stakes:g}"
    if a.distill:
        out += f", fitted to the mean score of {a.distill}"
    return out


def _prepare(a, temperature):
    """The rows and values the network is fitted on (fit_iteration's ``prepare``), or None
    for the training's own (the teacher's values on every fitted position)."""
    if a.stakes is None and not a.distill:
        return None
    if a.stakes is not None and not np.isfinite(a.stakes):
        _refuse(f"--stakes {a.stakes}: not a number")
    from fishing2sim.train.distill import mean_score_values
    from fishing2sim.train.label import M_N_OPT
    from fishing2sim.student.model import ModelError, read_model

    models = []
    for spec in (a.distill.split(",") if a.distill else []):
        try:
            models.append(np.asarray(read_model(Path(spec))["weights"], np.float64))
        except ModelError as exc:
            _refuse(f"--distill: {exc}")

    def prepare(alldata, X, blocks, rows):
        rows = np.flatnonzero(rows)
        values = alldata["values"]
        if models:  # the targets softmax(mean score), as the training's distill step's
            values = mean_score_values(models, X, blocks, temperature)
        if a.stakes is not None:
            v = alldata["values"][rows].astype(np.float64)
            n = alldata["meta"][rows, M_N_OPT]
            real = np.arange(v.shape[1])[None, :] < n[:, None]
            best = np.where(real, v, -np.inf).max(axis=1)
            mean = np.where(real, v, 0.0).sum(axis=1) / np.maximum(n, 1)
            p = (np.maximum(best - mean, 0.0) + 0.05) ** a.stakes
            rng = np.random.default_rng(7)
            rows = np.sort(rng.choice(rows, size=len(rows), p=p / p.sum()))
        return rows, values
    return prepare


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("training_file", type=Path)
    ap.add_argument("folder", type=Path, help="the run's folder (<output>/<name>)")
    ap.add_argument("--hidden", type=int, help="hidden units (default: the file's)")
    ap.add_argument("--epochs", type=int, help="Adam passes (default: the file's)")
    ap.add_argument("--temperature", type=float,
                    help="the soft targets' temperature in points (default: the file's)")
    ap.add_argument("--lr", type=float, default=None, help="Adam's first step size (3e-3)")
    ap.add_argument("--decay", type=float, default=None,
                    help="the step size's factor after every pass (0.6)")
    ap.add_argument("--stakes", type=float, default=None, metavar="A",
                    help="draw the fitted positions again by (stakes + 0.05)^A")
    ap.add_argument("--distill", default=None, metavar="MODELS",
                    help="fit to the mean score of these model files (comma-separated)")
    ap.add_argument("--out", type=Path, default=None, metavar="MODEL.npz",
                    help="also keep the refit's model file here (not in the run's folder)")
    ap.add_argument("--deals", type=int, default=1000, help="deals x 4 seats (1,000)")
    ap.add_argument("--seed", type=int, default=20261202, help="the deals' seed")
    a = ap.parse_args(argv)

    from fishing2sim.train.evaluate import rotated_games, wilson
    from fishing2sim.train.fit import agreement, prior_weights
    from fishing2sim.train.label import M_GAME, M_KIND, M_N_OPT, M_RULESET
    from fishing2sim.train.labels import features_of, join, load_positions
    from fishing2sim.student.model import read_model
    from fishing2sim.train.model import save_model, write_student
    from fishing2sim.train.config import read_config
    from fishing2sim.train.iteration import fit_iteration

    c = read_config(a.training_file)
    folder = a.folder
    if a.out is not None and a.out.resolve().parent == folder.resolve():
        _refuse(f"--out {a.out}: not in the run's folder (its files are the run's)")
    if a.out is not None and (a.out.is_dir() or not a.out.parent.is_dir()):
        _refuse(f"--out {a.out}: " + ("a folder, not a model file's name" if a.out.is_dir()
                                      else f"no folder {a.out.parent}"))
    last = len(list(folder.glob("positions_*.npz")))
    if last == 0:
        _refuse(f"{folder}: no positions_*.npz (not a training run's folder)")
    c2 = dict(c)
    if a.hidden is not None:
        c2["hidden"] = a.hidden
    if a.epochs is not None:
        c2["epochs"] = a.epochs
    if a.temperature is not None:
        c2["temperature"] = a.temperature
    net = {k: v for k, v in (("lr", a.lr), ("decay", a.decay)) if v is not None}
    start = np.load(folder / f"linear_{last - 1}.npy") if last > 1 else prior_weights()
    data = load_positions(folder / f"positions_{last}.npz")
    prepare = _prepare(a, c2["temperature"])
    t0 = time.perf_counter()
    _, w, _, total = fit_iteration(c2, folder, last, data, start, net, prepare=prepare)
    fit_s = time.perf_counter() - t0
    if a.out is not None:
        save_model(a.out, w, "refit", {"refit": True, "options": _what(a).lstrip(", ")},
                   hidden=c2["hidden"])
    mine = read_model(folder / f"model_{last}.npz")["weights"]
    same = mine.shape == w.shape and np.array_equal(mine, w)
    print(f"refit of iteration {last} ({total:,} positions), hidden {c2['hidden']}, epochs "
          f"{c2['epochs']}, temperature {c2['temperature']}, "
          f"{net or 'the default step sizes'}"
          f"{_what(a)}: fit {fit_s:.0f} s; "
          f"{'the same weights as' if same else 'other weights than'} the run's "
          f"model_{last}.npz")

    alldata = join([load_positions(folder / f"positions_{j}.npz") for j in range(1, last + 1)])
    X, blocks = features_of(alldata)
    m, v = alldata["meta"], alldata["values"]
    play = (m[:, M_RULESET] == 0) & (m[:, M_KIND] == 0)
    held = play & (m[:, M_GAME] % 10 == 0)
    fitted = np.flatnonzero(play & (m[:, M_GAME] % 10 != 0))
    fitted = fitted[np.random.default_rng(0).permutation(len(fitted))[:held.sum()]]
    for name, wt in (("refit", w), ("run's model", mine)):
        ah = agreement(X[held], v[held], m[held, M_KIND], blocks[held], m[held, M_N_OPT], wt)[0]
        af = agreement(X[fitted], v[fitted], m[fitted, M_KIND], blocks[fitted],
                       m[fitted, M_N_OPT], wt)[0]
        print(f"  {name}: Fishing 2 card plays held out ({ah[0]:,}): top-1 {ah[1]:.3f}, "
              f"regret {ah[2]:.3f} points; fitted ({af[0]:,}): top-1 {af[1]:.3f}, regret "
              f"{af[2]:.3f}")

    with tempfile.TemporaryDirectory() as tmp:  # the students' files: nothing is kept
        tmp = Path(tmp)
        save_model(tmp / "model.npz", w, "refit", {"refit": True}, hidden=c2["hidden"])
        tag = tmp.name  # module names unique to the folder (a process may refit twice)
        bots = {"refit": write_student(tmp / f"student_refit_{tag}.py", tmp / "model.npz",
                                       f"student_refit_{tag}"),
                "run's model": write_student(tmp / f"student_run_{tag}.py",
                                             folder / f"model_{last}.npz", f"student_run_{tag}")}
        got = {k: rotated_games(str(p), ["weights"], a.deals, seed=a.seed)
               for k, p in bots.items()}
    n = len(got["refit"])
    for k, g in got.items():
        lo, hi = wilson(float(g.mean()), n)
        print(f"  {k}: win share against three weights {g.mean():.3f} [{lo:.3f}, {hi:.3f}] "
              f"({n:,} games)")
    # paired by deal: a deal's four seatings are one observation
    d = (got["refit"] - got["run's model"]).reshape(4, a.deals).mean(axis=0)
    half = 1.96 * d.std(ddof=1) / np.sqrt(a.deals)
    print(f"  refit - run's model: {d.mean():+.3f} [{d.mean() - half:+.3f}, "
          f"{d.mean() + half:+.3f}] (paired: the same deals and seats, a deal one "
          f"observation)")


if __name__ == "__main__":
    main()
