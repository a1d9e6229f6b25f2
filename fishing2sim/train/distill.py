"""The training file's last step, ``distill:``: one student fitted to the mean score of
several (docs/lab-notes.md, "Where the student's gap is").

``distill: [skilled_ismcts.yaml, skilled_game.yaml]`` names member training files (a
relative name is relative to the training file). After the run's own iterations:

1. each member is trained, or resumed, in the run's output folder, as ``fishing2sim train
   MEMBER --output <the run's output>`` would do it: ``<output>/<member's name>/``. The
   member's own ``output`` is not used. The run's workers, Dask cluster and ``--fresh`` are
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


_READING: set = set()  # the training files being read (a member naming its reader back)


def check_members(c: dict, raw, path: Path, where: str) -> None:
    """``distill``: a list of member training files, each a valid training file without a
    ``distill`` step of its own, with a name apart from the run's and the other members'
    (they share the output folder). Sets ``c["distill"]`` to the resolved paths."""
    from fishing2sim.train.run import TrainError, read_config

    if raw is None:
        c["distill"] = []
        return
    if not (isinstance(raw, list) and raw and all(isinstance(x, str) and x.strip()
                                                  for x in raw)):
        raise TrainError(f"{where}: distill must be a list of member training files "
                         f"(relative to this file), got {raw!r}")
    names, files = {c["name"]}, []
    for spec in raw:
        p = Path(spec).expanduser()
        p = (p if p.is_absolute() else path.resolve().parent / p).resolve()
        if p == path.resolve() or p in _READING:
            raise TrainError(f"{where}: distill: {spec} is this training file"
                             + ("" if p == path.resolve() else " or names it"))
        _READING.add(path.resolve())
        try:
            m = read_config(p)
        except TrainError as exc:
            raise TrainError(f"{where}: distill: {exc}") from None
        finally:
            _READING.discard(path.resolve())
        if m["distill"]:
            raise TrainError(f"{where}: distill: {spec} has a distill step of its own "
                             "(members are plain training files)")
        if m["name"] in names:
            raise TrainError(f"{where}: distill: {spec} is named {m['name']!r}, as "
                             + ("this file's run" if m["name"] == c["name"] else
                                "another member") + " (they share the output folder)")
        names.add(m["name"])
        files.append(str(p))
    c["distill"] = files


def mean_score_values(models: list, X, blocks, temperature: float) -> np.ndarray:
    """The values whose soft targets softmax(values / temperature) are softmax(the mean
    score of ``models``) (parameter vectors of any hidden size)."""
    from fishing2sim.train.net import scores

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
    from fishing2sim.train.run import check_output, config_hash, read_config

    for f in c["distill"]:
        m = read_config(f)
        check_output(parent / m["name"], config_hash(m), fresh)


def _train_members(c: dict, out: Path, workers: int, fresh: bool, progress,
                   yes: bool = False) -> list:
    """Each member trained or resumed in the run's output folder: [(name, folder, config)]."""
    from fishing2sim.train.run import read_config, train

    members = []
    for f in c["distill"]:
        m = read_config(f)
        progress(f"distill: member {m['name']} ({f}) in {out.parent / m['name']}")
        folder = train(f, workers, out.parent, fresh,
                       progress=lambda msg, n=m["name"]: progress(f"  {n}: {msg}"), yes=yes)
        members.append((m["name"], folder, m))
    return members


def _iterations_s(folder: Path) -> float:
    """The time of a run's iterations (labelling, fit, evaluation), from its state.json."""
    st = json.loads(read_regular(folder / "state.json", 1 << 26, what="training state"))
    return round(sum(r["label_s"] + r["fit_s"] + r["eval_s"] for r in st["rows"]), 1)


def run_distill(c: dict, h: str, out: Path, state: dict, last_model: Path, workers: int,
                fresh: bool, progress, yes: bool = False) -> Path:
    """The distill step after the run's iterations (the caller holds the run's lock);
    returns the distilled model's path."""
    from fishing2sim.train.checks import max_rows, read_linear
    from fishing2sim.train.fit import prior_weights
    from fishing2sim.train.labels import load_positions
    from fishing2sim.student.model import file_sha256, read_model
    from fishing2sim.train.model import save_model
    from fishing2sim.train.run import fit_iteration

    members = _train_members(c, out, workers, fresh, progress, yes)
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
    from fishing2sim.train.evaluate import rotated_games, rotated_mean, wilson
    from fishing2sim.train.model import file_sha256, write_student
    from fishing2sim.train.run import iteration_seed, run_tag

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


def summary_lines(c: dict, state: dict) -> list:
    """summary.md's section on the distill step."""
    from fishing2sim.report.document import md_cell

    d = state.get("distill")
    if not c.get("distill") or not d:
        return []
    lines = ["", f"Distilled: one student fitted to the mean score of {len(d['members'])} "
                 f"students ({', '.join(d['members'])}) on this run's {d['positions']:,} "
                 f"positions (fit {d['fit_s']} s). "
                 + ("The ES step starts from it (distilled.npz)." if c.get("es") else
                    "model.npz is it (distilled.npz)."), "",
             "| student | teacher | budget | model sha256 | win share vs three weights "
             "[95% CI] |", "|---|---|---|---|---|"]
    for r in d["rows"]:
        lines.append(f"| {md_cell(r['student'])} | {md_cell(r['teacher'])} | {r['budget']} | "
                     f"{r['model_sha256']} | {r['win_share_vs_weights']:.3f} "
                     f"[{r['ci_lo']:.3f}, {r['ci_hi']:.3f}] |")
    m, lo, hi = d["difference"]
    if d["rows"][0]["games"] and m == m:  # (NaN without evaluation deals)
        lines += ["", f"The same deals for every student ({d['rows'][0]['games']:,} games "
                      "each, one bot seat against three weights, seat-rotated; a share's CI "
                      f"counts games, Wilson). Distilled minus {c['name']}'s last student: "
                      f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}] (paired by deal; a deal's four "
                      "seatings are one observation)."]
    else:
        lines += ["", "Not measured against three weights (evaluation: {deals: 0})."]
    if d.get("iterations_s"):
        t = d["iterations_s"]
        whole = sum(t) + d["fit_s"] + d["eval_s"]
        lines += ["", f"Time of the {'training before the ES step' if c.get('es') else 'whole training'}: "
                      f"{_min_s(whole)} (the iterations of "
                      + ", ".join(f"{n} {_min_s(x)}" for n, x in zip(d["members"], t))
                      + f"; the distill step {_min_s(d['fit_s'] + d['eval_s'])})."]
    return lines


def _min_s(s: float) -> str:
    return f"{int(s // 60)} min {s % 60:.0f} s"

