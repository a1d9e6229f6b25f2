"""One iteration of a training run (train/run.py): self-play games with the current student
(or the file's behaviour), a teacher search labelling their decisions (train/labels.py), the
student fitted on every position so far (train/fit.py, train/net.py), its files (the
model, its strategy file, the positions, the Newton fit's weights) and its evaluation
against three ``weights`` (train/evaluate.py), recorded in state.json."""
from __future__ import annotations

import io
import json
import time
from pathlib import Path

import numpy as np

from fishing2sim.engine.constants import N_DECISIONS
from fishing2sim.safe_files import write_atomic
from fishing2sim.strategy.contract import DECISION_FUNCTIONS
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.student.layout import N_WEIGHTS
from fishing2sim.train.checks import max_rows
from fishing2sim.train.config import TrainError, iteration_seed, run_tag
from fishing2sim.train.evaluate import rotated_share, seat_lineup
from fishing2sim.train.fit import agreement, fit
from fishing2sim.train.label import M_GAME, M_KIND, M_N_OPT, M_RULESET
from fishing2sim.train.labels import (
    features_of, join, label_games, load_positions, save_positions,
)
from fishing2sim.train.model import save_model, write_student
from fishing2sim.train.net import fit_net


def _kind_mask(c) -> np.ndarray:
    m = np.zeros(N_DECISIONS, bool)
    for x in c["decisions"]:
        m[DECISION_FUNCTIONS.index(x)] = True
    return m


TEACHER_TEMPLATE = '''"""The teacher of iteration {i}: {search}, rolling out with student {j}."""
NAME = "teacher_{tag}_{i}"
SEARCH = "{search}"
ROLLOUT = "student_{tag}_{j}.py"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = {budget}
'''


def student_file(out: Path, i: int, model: Path) -> Path:
    name = f"student_{run_tag(out)}_{i}"
    return write_student(out / f"{name}.py", model, name)


def _behaviour_and_teacher(c: dict, out: Path, i: int, prev_model: Path) -> tuple[str, str]:
    """Iteration ``i``'s self-play lineup (the last student, or the file's behaviour first)
    and its teacher (with ``rollout: student``, a search rolling out with the last student)."""
    if i == 1 and c["behaviour"] != "prior":
        behaviour = c["behaviour"]
    else:
        behaviour = str(student_file(out, i - 1, prev_model))
    teacher = c["teacher"]
    if c["rollout"] == "student" and i > 1:
        search = load_strategy(c["teacher"]).search
        tf = out / f"teacher_{run_tag(out)}_{i}.py"
        write_atomic(tf, TEACHER_TEMPLATE.format(i=i, j=i - 1, search=search, tag=run_tag(out),
                                                 budget=[int(x) for x in c["budget"]]))
        teacher = str(tf)
    return behaviour, teacher


def _label(c: dict, i: int, behaviour: str, teacher: str, workers: int, progress) -> dict:
    """Iteration ``i``'s self-play positions of every condition, labelled by the teacher."""
    kinds = _kind_mask(c)
    parts = []
    seed = iteration_seed(c["seed"], i)
    for ci, cond in enumerate(c["conditions"]):
        rs, players = cond.get("ruleset", "fishing2"), cond.get("players", 4)
        games = cond.get("games", 100)
        t1 = time.perf_counter()
        if "opponents" in cond:
            d = _label_against(cond, seed + ci, behaviour, teacher, c, workers)
        else:
            d = label_games(rs, players, seed + ci, games, behaviour, teacher, c["budget"],
                            c["rate"], workers=workers, chunk=c["chunk"])
        keep = kinds[d["meta"][:, M_KIND]]
        for k in ("obs", "values", "meta"):
            d[k] = d[k][keep]
        parts.append(d)
        progress(f"iteration {i}: {rs} {players} players: {games} games, "
                 f"{len(d['obs'])} positions labelled in {time.perf_counter() - t1:.0f} s")
    return join(parts)


def _label_against(cond: dict, seed: int, behaviour: str, teacher: str, c: dict,
                   workers: int) -> dict:
    """A condition with ``opponents``: its games split into one block per seat, the
    student in that seat and the opponents in the others in their order after it; the
    blocks are consecutive games of the condition's deals (games start, start + n, ...),
    so every game is another deal."""
    rs, players = cond.get("ruleset", "fishing2"), cond.get("players", 4)
    games = cond.get("games", 100)
    parts, start = [], 0
    for seat in range(players):
        n = games // players + (1 if seat < games % players else 0)
        if n == 0:
            continue
        lineup = seat_lineup(behaviour, cond["opponents"], seat, players)
        parts.append(label_games(rs, players, seed, n, lineup, teacher, c["budget"],
                                 c["rate"], workers=workers, chunk=c["chunk"], start=start))
        start += n
    return join(parts)


def fit_iteration(c: dict, out: Path, i: int, data: dict, w, net: dict | None = None,
                  prepare=None):
    """The student of iteration ``i`` fitted on every position so far (the folder's
    positions_1 .. i-1 and ``data``; the games numbered 0 mod 10 held out) from the
    linear weights ``w``, and its agreement with the teacher on this iteration's held-out
    positions. ``net``: other step sizes of the network's fit (``lr``, ``decay``:
    train/net.fit_net's; research/refit_student.py). ``prepare(alldata, X, blocks,
    rows)``, if given, returns the rows and the values to fit instead (the diagnostics of
    research/refit_student.py); the agreement is still with the teacher's values."""
    alldata = join([load_positions(out / f"positions_{j}.npz", rows=max_rows(c))
                    for j in range(1, i)] + [data])
    X, blocks = features_of(alldata)
    m = alldata["meta"]
    held = m[:, M_GAME] % 10 == 0
    fit_rows, values = ~held, alldata["values"]
    if prepare is not None:
        fit_rows, values = prepare(alldata, X, blocks, fit_rows)
    w = fit(X[fit_rows], values[fit_rows], blocks[fit_rows], m[fit_rows, M_N_OPT],
            c["temperature"], c["l2"], w0=w[:N_WEIGHTS])
    w_lin = w
    if c["hidden"]:
        w = fit_net(X[fit_rows], values[fit_rows], blocks[fit_rows],
                    m[fit_rows, M_N_OPT], w_lin, c["hidden"], c["temperature"], c["epochs"],
                    seed=iteration_seed(c["seed"], 2000 + i), **(net or {}))
    cur = np.zeros(len(m), bool)
    cur[len(m) - len(data["meta"]):] = True
    sel = held & cur
    agree = {}
    for rs in (0, 1):
        s2 = sel & (m[:, M_RULESET] == rs)
        if s2.any():
            agree[rs] = agreement(X[s2], alldata["values"][s2], m[s2, M_KIND], blocks[s2],
                                  m[s2, M_N_OPT], w)
    return w_lin, w, agree, int(len(m))


def run_iteration(c, h, out, i, state, w, prev_model, workers, progress):
    """One iteration: label, fit, save the model, evaluate, and record it in state.json
    (which says which iterations are finished: the files of an unfinished one are written
    again when the run resumes)."""
    t0 = time.perf_counter()
    behaviour, teacher = _behaviour_and_teacher(c, out, i, prev_model)
    data = _label(c, i, behaviour, teacher, workers, progress)
    t_label = time.perf_counter() - t0
    t1 = time.perf_counter()
    w_lin, w, agree, total = fit_iteration(c, out, i, data, w)
    t_fit = time.perf_counter() - t1
    if not (np.isfinite(w_lin).all() and np.isfinite(w).all()):  # nothing of it is saved
        raise TrainError(f"iteration {i}: the fit's weights are not all finite; nothing "
                         f"of iteration {i} is saved")
    save_positions(out / f"positions_{i}.npz", data, h, {"iteration": i})
    model_i = out / f"model_{i}.npz"
    save_model(model_i, w, h, {"iteration": i, "positions": total}, hidden=c["hidden"])
    buf = io.BytesIO()
    np.save(buf, w_lin, allow_pickle=False)
    write_atomic(out / f"linear_{i}.npy", buf.getvalue())
    t1 = time.perf_counter()
    share = (float("nan"),) * 4
    if c["evaluation"].get("deals", 500) > 0:  # the new student against three weights
        share = rotated_share(str(student_file(out, i, model_i)), ["weights"],
                              c["evaluation"]["deals"],
                              seed=iteration_seed(c["seed"], 1000 + i))
    t_eval = time.perf_counter() - t1
    state["rows"].append({
        "iteration": i, "positions": int(len(data["meta"])), "positions_total": total,
        "label_s": round(t_label, 1), "fit_s": round(t_fit, 1), "eval_s": round(t_eval, 1),
        "win_share_vs_weights": share[0], "ci_lo": share[2], "ci_hi": share[3],
        "eval_games": share[1]})
    for rs, ag in agree.items():
        for k, (n, top1, regret) in ag.items():
            state.setdefault("agreement", []).append(
                {"iteration": i, "ruleset": "fishing" if rs else "fishing2",
                 "decision": DECISION_FUNCTIONS[k], "positions": n,
                 "top1": round(top1, 4), "regret_points": round(regret, 4)})
    state["done"] = i
    write_atomic(out / "state.json", json.dumps(state, indent=1))
    progress(f"iteration {i}: {total} positions, fit {t_fit:.0f} s, win share vs three "
             f"weights {share[0]:.3f} [{share[2]:.3f}, {share[3]:.3f}] "
             f"({time.perf_counter() - t0:.0f} s)")
    return model_i, w_lin
