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
The report (train/report.py) is iterations.csv, agreement.csv (distill.csv),
learning_curve.png, summary.md and report.html; the last model (the distilled one) is
model.npz (copy it to fishing2sim/data/skilled.npz to ship it).
"""
from __future__ import annotations

import hashlib
import json
import io
import time
from pathlib import Path

import numpy as np
import yaml

from fishing2sim import __version__
from fishing2sim.config.keys import MAX_SEED
from fishing2sim.engine.constants import N_DECISIONS, RULESETS
from fishing2sim.errors import Fishing2simError
from fishing2sim.safe_files import (FileSafetyError, check_replaceable, name_problem,
                                    read_regular, real_folder, remove_ours, write_atomic,
                                    write_marker)
from fishing2sim.strategy.contract import DECISION_FUNCTIONS, StrategyError
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.strategy.search_bots import search_params_problem

KEYS = {"name", "seed", "iterations", "teacher", "budget", "rollout", "behaviour", "rate",
        "conditions", "decisions", "temperature", "l2", "hidden", "epochs", "evaluation",
        "workers", "chunk", "output", "distill", "es"}
EXECUTION = ("workers", "output", "chunk")


class TrainError(Fishing2simError, ValueError):
    """A mistake in a training file (one line)."""


def _need(cond, msg):
    if not cond:
        raise TrainError(msg)


def _number(v, whole: bool = False) -> bool:
    return isinstance(v, int if whole else (int, float)) and not isinstance(v, bool)


def read_config(path) -> dict:
    """The training file, checked: every mistake is one TrainError line."""
    path = Path(path)
    where = f"training file {path}"
    raw = _read_yaml(path, where)
    c = {
        "name": raw.get("name", path.stem), "seed": raw.get("seed", 0),
        "iterations": raw.get("iterations", 3), "teacher": raw.get("teacher", "pimc"),
        "budget": raw.get("budget", [48, 1, 0, 0]), "rollout": raw.get("rollout", "teacher"),
        "behaviour": raw.get("behaviour", "prior"), "rate": raw.get("rate", 0.5),
        "conditions": raw.get("conditions", [{"ruleset": "fishing2", "players": 4,
                                              "games": 100}]),
        "decisions": raw.get("decisions", list(DECISION_FUNCTIONS)),
        "temperature": raw.get("temperature", 2.0), "l2": raw.get("l2", 1e-4),
        "hidden": raw.get("hidden", 0), "epochs": raw.get("epochs", 5),
        "evaluation": raw.get("evaluation", {"deals": 500}),
        "workers": raw.get("workers", 1), "chunk": raw.get("chunk", 10),
        "output": raw.get("output", "reports"),
    }
    _check_settings(c, where)
    _check_conditions(c, where)
    _check_bots(c, where)
    from fishing2sim.train.distill import check_members

    check_members(c, raw.get("distill"), path, where)
    from fishing2sim.train.es import check_es

    check_es(c, raw.get("es"), where)
    c["path"] = str(path.resolve())
    return c


def _read_yaml(path: Path, where: str) -> dict:
    _need(path.is_file(), f"training file {path} "
          + ("is a folder, not a file" if path.is_dir() else
             "is not a regular file (a device or a FIFO)" if path.exists() else
             "does not exist"))
    try:
        raw = yaml.safe_load(read_regular(path, 1 << 20, what="training file").decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise TrainError(f"{where}: not valid YAML ({str(exc).splitlines()[0]})") from None
    _need(isinstance(raw, dict), f"{where}: expected a mapping of settings")
    unknown = sorted(set(raw) - KEYS)
    if unknown:
        raise TrainError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(KEYS))})")
    return raw


def _check_settings(c: dict, where: str) -> None:
    _need(isinstance(c["name"], str) and c["name"].strip() and "/" not in c["name"]
          and not c["name"].startswith("."),
          f"{where}: name must be a non-empty name without '/' (not starting with '.')")
    why = name_problem(c["name"])
    _need(not why, f"{where}: the name {why}")
    _need(_number(c["seed"], whole=True) and 0 <= c["seed"] <= MAX_SEED,
          f"{where}: seed must be a whole number 0..{MAX_SEED}, got {c['seed']!r}")
    for k in ("iterations", "workers", "chunk", "hidden", "epochs"):
        v = c[k]
        low = 0 if k == "hidden" else 1
        _need(_number(v, whole=True) and v >= low and (k != "hidden" or v <= 256),
              f"{where}: {k} must be a whole number >= {low}"
              f"{' and <= 256' if k == 'hidden' else ''}, got {v!r}")
    b = c["budget"]
    _need(isinstance(b, list) and len(b) == 4 and all(_number(x) for x in b),
          f"{where}: budget must be [worlds, rollouts, horizon, objective], got {b!r}")
    problem = search_params_problem([float(x) for x in b])
    _need(not problem, f"{where}: budget: {problem}")
    _need(c["rollout"] in ("teacher", "student"),
          f"{where}: rollout must be 'teacher' (the teacher file's ROLLOUT) or 'student' "
          f"(the last iteration's student), got {c['rollout']!r}")
    r = c["rate"]
    _need(_number(r) and 0 < r <= 1,
          f"{where}: rate (the share of decisions labelled) must be in (0, 1], got {r!r}")
    for k in ("temperature", "l2"):
        v = c[k]
        _need(_number(v) and (v > 0 if k == "temperature" else v >= 0),
              f"{where}: {k} must be a number {'> 0' if k == 'temperature' else '>= 0'}, "
              f"got {v!r}")
    d = c["decisions"]
    _need(isinstance(d, list) and d, f"{where}: decisions must be a list of decision kinds")
    for x in d:
        _need(x in DECISION_FUNCTIONS, f"{where}: unknown decision kind {x!r} "
                                       f"(known: {', '.join(DECISION_FUNCTIONS)})")
    ev = c["evaluation"]
    _need(isinstance(ev, dict) and set(ev) <= {"deals"} and isinstance(ev.get("deals", 500), int)
          and ev.get("deals", 500) >= 0, f"{where}: evaluation is {{deals: N}} (N >= 0)")


def _check_conditions(c: dict, where: str) -> None:
    conds = c["conditions"]
    _need(isinstance(conds, list) and conds,
          f"{where}: conditions must be a list of {{ruleset, players, games}}")
    for cond in conds:
        _need(isinstance(cond, dict) and set(cond) <= {"ruleset", "players", "games",
                                                       "opponents"},
              f"{where}: a condition is {{ruleset, players, games[, opponents]}}, "
              f"got {cond!r}")
        _need(cond.get("ruleset", "fishing2") in RULESETS,
              f"{where}: unknown ruleset {cond.get('ruleset')!r} (fishing2 or fishing)")
        _need(cond.get("players", 4) in (3, 4, 5), f"{where}: players must be 3, 4 or 5")
        g = cond.get("games", 100)
        _need(_number(g, whole=True) and g >= 1,
              f"{where}: games must be a whole number >= 1, got {g!r}")
        if "opponents" in cond:
            _check_opponents(cond, where)


def _check_opponents(cond: dict, where: str) -> None:
    """``opponents``: one ordinary bot, or one per other seat, who play against the
    student in that condition's games (the student takes every seat in turn)."""
    players = cond.get("players", 4)
    opp = cond["opponents"]
    if isinstance(opp, str):
        opp = [opp] * (players - 1)
    _need(isinstance(opp, list) and len(opp) == players - 1
          and all(isinstance(x, str) and x for x in opp),
          f"{where}: opponents must be a bot's name or a list of {players - 1} (one per "
          f"other seat), got {cond['opponents']!r}")
    digests = []
    for name in opp:
        try:
            bot = load_strategy(name)
        except StrategyError as exc:
            raise TrainError(f"{where}: opponents: {exc}") from None
        _need(not bot.search, f"{where}: opponents: '{name}' is a search bot; the "
                              "opponents must be ordinary bots")
        digests.append(bot.digest)
    cond["opponents"] = opp
    # in the config hash: an edited opponent file is another run (as the behaviour's)
    cond["opponents_digests"] = digests


def _check_bots(c: dict, where: str) -> None:
    """The teacher must be a search bot, the behaviour an ordinary one."""
    try:
        t = load_strategy(c["teacher"])
    except StrategyError as exc:
        raise TrainError(f"{where}: teacher: {exc}") from None
    _need(t.search, f"{where}: teacher '{t.name}' is not a search bot (pimc, ismcts, or a "
                    "file with SEARCH = ...)")
    c["teacher_file"] = t.source
    c["teacher_digest"] = t.digest
    if c["behaviour"] != "prior":
        try:
            bh = load_strategy(c["behaviour"])
        except StrategyError as exc:
            raise TrainError(f"{where}: behaviour: {exc}") from None
        _need(not bh.search, f"{where}: behaviour must be an ordinary bot, not a search bot")
        c["behaviour_digest"] = bh.digest


def config_hash(c: dict) -> str:
    """Of everything that decides an iteration's positions and model: not the workers,
    the output folder or the chunk size, nor the number of iterations (iteration i is the
    same in a run of any length, so a longer run resumes a shorter one), nor the distill
    step's members, nor the ES step's settings (train/distill.py, train/es.py: each step
    keeps its own key in state.json)."""
    keep = {k: v for k, v in c.items() if k not in EXECUTION and k not in (
        "path", "teacher_file", "iterations", "distill", "es")}
    from fishing2sim.engine.constants import OBS_LAYOUT
    from fishing2sim.student.layout import FEATURES_VERSION

    keep["features_version"] = FEATURES_VERSION
    # the stored positions are observations: a run of another layout is another run
    keep["observation"] = sorted(OBS_LAYOUT.items())
    return hashlib.sha256(json.dumps(keep, sort_keys=True, default=str).encode()).hexdigest()


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


def iteration_seed(seed: int, i: int) -> int:
    """The seed of a run's step i (its iteration's games; + 1000: its evaluation's deals;
    + 2000: its network's fit), from the training file's seed."""
    return (int(seed) * 1_000_003 + i * 7919) % (2 ** 63)


def run_tag(out: Path) -> str:
    """Module names of a run's files are unique to its folder (a process may load the
    students of two runs)."""
    return hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:8]


def _student(out: Path, i: int, model: Path) -> Path:
    from fishing2sim.train.model import write_student

    name = f"student_{run_tag(out)}_{i}"
    return write_student(out / f"{name}.py", model, name)


def check_output(out: Path, h: str, fresh: bool) -> dict | None:
    """The run's folder as _open_output will find it, nothing touched: its state when it
    holds this configuration's run, None when it is missing or will be replaced; a folder
    of the user's own, a link, a file, or another configuration's run without ``fresh``
    is refused (one line)."""
    try:
        check_replaceable(out, "training folder", "training file")
        state_file = out / "state.json"
        if out.is_dir() and state_file.is_file():
            state = json.loads(read_regular(state_file, 1 << 26, what="training state"))
            if state.get("config_hash") == h:
                return state
            if not fresh:
                raise TrainError(f"{out} holds a training run of another configuration "
                                 f"(config hash {str(state.get('config_hash', '?'))[:12]}…, "
                                 f"this file's {h[:12]}…); use --fresh to start over")
    except FileSafetyError as exc:
        raise TrainError(str(exc)) from None
    except ValueError as exc:  # a state.json that is not JSON
        raise TrainError(f"{out}/state.json: not a training state ({exc})") from None
    return None


def _open_output(out: Path, h: str, fresh: bool) -> dict:
    """The run's folder and its state: a folder of this program only (its marker), resumed
    when it holds this configuration's run, replaced with ``fresh`` when another's; a
    folder of the user's own, a link or a file is refused (one line, nothing touched)."""
    state = check_output(out, h, fresh)
    if state is not None:
        return state
    try:
        if out.is_dir() and (out / "state.json").is_file():
            remove_ours(out)
        real_folder(out, "training folder")
        write_marker(out, "training", out.name, __version__)
    except FileSafetyError as exc:
        raise TrainError(str(exc)) from None
    return {"config_hash": h, "done": 0, "rows": []}


def train(path, workers=None, output=None, fresh=False, progress=print,
          scheduler: str | None = None, dask_local: int | None = None,
          using_dask: bool = False, yes: bool = False) -> Path:
    """Run (or resume) the training file; returns its output folder. With ``scheduler`` (a
    Dask scheduler address) or ``dask_local`` (a local Dask cluster of that many workers)
    the labelling's chunks run as Dask tasks: the same chunks, joined in game order, so the
    same positions and models as locally. The folder is locked meanwhile (the lock file
    ``<output>/.<name>.lock``, as a run's): a second training of it stops with one line.
    Above the size limits (train/checks.py) only with ``yes``.
    """
    if dask_local:  # a local cluster's workers are processes of this machine
        from fishing2sim.run.processes import check_workers

        try:
            check_workers(dask_local, "--dask-local")
        except ValueError as exc:
            raise TrainError(str(exc)) from None
    if scheduler or dask_local:
        from fishing2sim.run.dask import dask_executor
        from fishing2sim.train.labels import using_executor

        with dask_executor(scheduler, dask_local) as ex, using_executor(ex):
            return train(path, workers, output, fresh, progress, using_dask=True, yes=yes)
    c = read_config(path)
    from fishing2sim.train.checks import check_size

    check_size(c, yes, f"training file {path}")
    h = config_hash(c)
    from fishing2sim.run.checkpoints import OutputLock
    from fishing2sim.run.chunks import RunError
    from fishing2sim.run.processes import check_workers

    where = "--workers" if workers else f"{Path(path).name}: workers"
    workers = int(workers or c["workers"])
    if not using_dask:
        try:
            check_workers(workers, where)
        except ValueError as exc:
            raise TrainError(str(exc)) from None
    out = Path(output or c["output"]) / c["name"]

    if c["distill"]:  # the members' folders checked before any work (train/distill.py)
        from fishing2sim.train.distill import check_member_folders

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
    from fishing2sim.train.checks import resume_weights
    from fishing2sim.train.fit import prior_weights
    from fishing2sim.train.model import save_model

    state = _open_output(out, h, fresh)
    w = prior_weights()
    if state["done"]:  # every file it will read checked before any work (train/checks.py)
        prev_model = out / f"model_{state['done']}.npz"
        w = resume_weights(c, h, out, state["done"])
        progress(f"resuming after iteration {state['done']} ({out})")
    else:
        prev_model = out / "model_0.npz"
        save_model(prev_model, w, h, {"iteration": 0, "prior": True})
    for i in range(state["done"] + 1, c["iterations"] + 1):
        prev_model, w = _iteration(c, h, out, i, state, w, prev_model, workers, progress)
    if c["distill"]:  # the last step: one student fitted to several (train/distill.py)
        from fishing2sim.train.distill import run_distill

        prev_model = run_distill(c, h, out, state, prev_model, workers, fresh, progress, yes)
    if c["es"]:  # a policy step on the win share (train/es.py)
        from fishing2sim.train.es import run_es

        prev_model = run_es(c, h, out, state, prev_model, workers, progress)
    write_atomic(out / "model.npz", read_regular(prev_model, 1 << 28, what="model file"))
    from fishing2sim.train.report import write_report

    write_report(out, c, state)
    return out


def _behaviour_and_teacher(c: dict, out: Path, i: int, prev_model: Path) -> tuple[str, str]:
    """Iteration ``i``'s self-play lineup (the last student, or the file's behaviour first)
    and its teacher (with ``rollout: student``, a search rolling out with the last student)."""
    if i == 1 and c["behaviour"] != "prior":
        behaviour = c["behaviour"]
    else:
        behaviour = str(_student(out, i - 1, prev_model))
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
    from fishing2sim.train.label import M_KIND
    from fishing2sim.train.labels import join, label_games

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
    from fishing2sim.train.evaluate import seat_lineup
    from fishing2sim.train.labels import join, label_games

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
    from fishing2sim.student.layout import N_WEIGHTS
    from fishing2sim.train.fit import agreement, fit
    from fishing2sim.train.label import M_GAME, M_KIND, M_N_OPT, M_RULESET
    from fishing2sim.train.net import fit_net
    from fishing2sim.train.checks import max_rows
    from fishing2sim.train.labels import features_of, join, load_positions

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


def _iteration(c, h, out, i, state, w, prev_model, workers, progress):
    """One iteration: label, fit, save the model, evaluate, and record it in state.json
    (which says which iterations are finished: the files of an unfinished one are written
    again when the run resumes)."""
    from fishing2sim.train.evaluate import rotated_share
    from fishing2sim.train.labels import save_positions
    from fishing2sim.train.model import save_model

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
        share = rotated_share(str(_student(out, i, model_i)), ["weights"],
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
