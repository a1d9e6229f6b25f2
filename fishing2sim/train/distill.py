"""The training file's last step, ``distill:``: one student fitted to the mean score of
several (docs/lab-notes.md, "Where the student's gap is").

``distill: [skilled_ismcts.yaml, skilled_game.yaml]`` names member training files (a
relative name is relative to the training file). After the run's own iterations:

1. each member is trained, or resumed (by train/run.py), in the run's output folder, as
   ``fishing2sim train MEMBER --output <the run's output>`` would do it:
   ``<output>/<member's name>/``. The member's own ``output`` is not used. The run's workers, Dask cluster and ``--fresh`` are
   used for the members too;
2. the run's last student and the members' students score every position of the run;
3. the distilled student is fitted as the run's last iteration was, with the same positions,
   held-out games, Newton start, seed and settings. Its targets are softmax(mean score of
   the students) instead of softmax(the teacher's values / temperature);
4. it is ``distilled.npz`` in the run's folder, and ``model.npz`` is a copy of it;
5. every student of the ensemble and the distilled one play the same deals against three
   ``weights`` (the evaluation's deals x 4 seats), which gives ``distill.csv`` and the
   paired difference of the distilled student and the run's last one.

state.json records the finished step under the key of its inputs (the run's configuration,
its last iteration, the members' model files). A second run with the same inputs does
nothing. When a member's model has changed, the step is done again.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

from fishing2sim.safe_files import read_regular, write_atomic
from fishing2sim.student.model import file_sha256, read_model
from fishing2sim.train.checks import check_output, max_rows, read_linear
from fishing2sim.train.config import config_hash, iteration_seed, read_config, run_tag
from fishing2sim.train.evaluate import rotated_games, rotated_mean, wilson
from fishing2sim.train.fit import prior_weights
from fishing2sim.train.iteration import fit_iteration
from fishing2sim.train.labels import load_positions
from fishing2sim.train.model import save_model, write_student
from fishing2sim.train.net import scores


def mean_score_values(models: list, X, blocks, temperature: float) -> np.ndarray:
    """The values whose soft targets softmax(values / temperature) are softmax(the mean
    score of ``models``) (parameter vectors of any hidden size)."""
    s = sum(scores(X, blocks, np.asarray(w, np.float64)) for w in models) / len(models)
    return s * temperature


def distill_prepare(models: list, temperature: float):
    """fit_iteration's ``prepare``: the training's fitted rows, the ensemble's values."""
    def prepare(alldata, X, blocks, rows):
        return rows, mean_score_values(models, X, blocks, temperature)
    return prepare


def _key(h: str, last: int, shas: list) -> str:
    return hashlib.sha256(json.dumps([h, last, shas]).encode()).hexdigest()


def check_member_folders(c: dict, parent: Path, fresh: bool) -> None:
    """Before the run starts: every member's folder in ``parent`` is missing, ours, or
    holds that member's run (or ``fresh``); otherwise one line, and nothing is done."""
    for f in c["distill"]:
        m = read_config(f)
        check_output(parent / m["name"], config_hash(m), fresh)


def _iterations_s(folder: Path) -> float:
    """The time of a run's iterations (labelling, fit, evaluation), from its state.json."""
    st = json.loads(read_regular(folder / "state.json", 1 << 26, what="training state"))
    return round(sum(r["label_s"] + r["fit_s"] + r["eval_s"] for r in st["rows"]), 1)


def run_distill(c: dict, h: str, out: Path, state: dict, last_model: Path, members: list,
                progress) -> Path:
    """The distill step after the run's iterations and its members' trainings
    (``members``: [(name, folder, config)], train/run.py trains them; the caller holds the
    run's lock); returns the distilled model's path."""
    last = int(state["done"])
    files = [last_model] + [folder / "model.npz" for _, folder, _ in members]
    shas = [file_sha256(p) for p in files]
    key = _key(h, last, shas)
    target = out / "distilled.npz"
    done = state.get("distill") or {}
    if (done.get("key") == key and target.is_file()
            and file_sha256(target) == done.get("model_sha256")):
        progress(f"distill: done before ({target})")
        return target
    t0 = time.perf_counter()
    models = [read_model(p)["weights"] for p in files]
    start = read_linear(out / f"linear_{last - 1}.npy") if last > 1 else prior_weights()
    data = load_positions(out / f"positions_{last}.npz", config_hash=h, rows=max_rows(c))
    _, w, _, total = fit_iteration(c, out, last, data, start,
                                   prepare=distill_prepare(models, c["temperature"]))
    fit_s = time.perf_counter() - t0
    names = [c["name"]] + [n for n, _, _ in members]
    sha = save_model(target, w, h, {"iteration": last, "positions": total,
                                     "distilled": names, "members_sha256": shas},
                     hidden=c["hidden"])
    times = [_iterations_s(out)] + [_iterations_s(folder) for _, folder, _ in members]
    t1 = time.perf_counter()
    rows, diff = _evaluate(c, out, last, [(c["name"], c, last_model)]
                           + [(n, m, folder / "model.npz") for n, folder, m in members],
                           target)
    state["distill"] = {"key": key, "model_sha256": sha, "members": names,
                        "members_sha256": shas, "positions": total,
                        "fit_s": round(fit_s, 1), "eval_s": round(time.perf_counter() - t1, 1),
                        "rows": rows, "difference": diff, "iterations_s": times}
    write_atomic(out / "state.json", json.dumps(state, indent=1))
    d = rows[-1]
    progress(f"distill: {len(files)} students into one, fit {fit_s:.0f} s, win share vs "
             f"three weights {d['win_share_vs_weights']:.3f} [{d['ci_lo']:.3f}, "
             f"{d['ci_hi']:.3f}]")
    return target


def _evaluate(c: dict, out: Path, last: int, students: list, target: Path):
    """Every student and the distilled one against three weights on the same deals (the
    run's last evaluation's): distill.csv's rows, and the paired difference distilled -
    the run's last student (a deal's seatings one observation), or NaNs with no deals."""
    deals = int(c["evaluation"].get("deals", 500))
    seed = iteration_seed(c["seed"], 1000 + last)
    rows, games = [], []
    entries = [(n, "member", m["teacher"], m["budget"], p) for n, m, p in students]
    entries.append((f"{c['name']} (distilled)", "distilled", "", "", target))
    for k, (name, role, teacher, budget, model) in enumerate(entries):
        share = lo = hi = float("nan")
        if deals > 0:
            tag = f"distill_{run_tag(out)}_{k}"
            bot = write_student(out / f"{tag}.py", model, tag)
            g = rotated_games(str(bot), ["weights"], deals, seed=seed)
            games.append(g)
            share = rotated_mean(g)  # as the iterations' evaluations sum it
            lo, hi = wilson(share, len(g))
        rows.append({"student": name, "role": role, "teacher": teacher,
                     "budget": " ".join(str(x) for x in budget) if budget else "",
                     "model_sha256": file_sha256(model)[:12],
                     "win_share_vs_weights": share, "ci_lo": lo, "ci_hi": hi,
                     "ci_unit": "game" if deals > 0 else "", "games": 4 * deals})
    diff = [float("nan")] * 3
    if deals > 1:
        d = (games[-1] - games[0]).reshape(4, deals).mean(axis=0)
        half = 1.96 * d.std(ddof=1) / np.sqrt(deals)
        diff = [float(d.mean()), float(d.mean() - half), float(d.mean() + half)]
    return rows, diff


