"""The training file (experiments/train/*.yaml, what ``fishing2sim train FILE`` reads),
read and checked: the YAML read as an experiment file's is (config/yamlfile.py: one key
given twice, aliases that expand too far and nesting too deep are refused), its values
checked by its schema (train/schema.py), then what needs the strategies and the distill
step's member files. Every mistake is one TrainError line, ``training file FILE: <key
path>: <problem>``. The settings keep the file's values as written (the config hash is
of them)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from fishing2sim.config.messages import ExperimentError, KeyProblem
from fishing2sim.config.schema import check
from fishing2sim.config.yamlfile import parse_yaml
from fishing2sim.engine.constants import OBS_LAYOUT
from fishing2sim.errors import Fishing2simError
from fishing2sim.safe_files import read_regular
from fishing2sim.strategy.contract import DECISION_FUNCTIONS, StrategyError
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.strategy.search_bots import search_params_problem
from fishing2sim.student.layout import FEATURES_VERSION
from fishing2sim.train.schema import ES_DEFAULTS, OVERFISHING_DEALS, TrainingFile

EXECUTION = ("workers", "output", "chunk")
MAX_TRAINING_FILE = 1 << 20  # bytes


class TrainError(Fishing2simError, ValueError):
    """A mistake in a training file (one line)."""


def _need(cond, msg):
    if not cond:
        raise TrainError(msg)


_READING: set = set()  # the training files being read (a member naming its reader back)


def read_config(path) -> dict:
    """The training file, checked: every mistake is one TrainError line."""
    path = Path(path)
    where = f"training file {path}"
    raw = _read_yaml(path, where)
    try:
        check(TrainingFile, raw)
    except KeyProblem as exc:
        raise TrainError(f"{where}: {exc}") from None
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
    if "name" not in raw:  # (the file's own name: checked as a given one is)
        try:
            check(TrainingFile, {"name": c["name"]})
        except KeyProblem as exc:
            raise TrainError(f"{where}: {exc}") from None
    problem = search_params_problem([float(x) for x in c["budget"]])
    _need(not problem, f"{where}: budget: {problem}")
    for i, cond in enumerate(c["conditions"]):
        if "opponents" in cond:
            _check_opponents(cond, f"{where}: conditions[{i}]")
    _check_bots(c, where)
    c["distill"] = _members(c, raw.get("distill"), path, where)
    c["es"] = es_settings(c, raw.get("es"))
    c["path"] = str(path.resolve())
    return c


def _read_yaml(path: Path, where: str) -> dict:
    _need(path.is_file(), f"training file {path} "
          + ("is a folder, not a file" if path.is_dir() else
             "is not a regular file (a device or a FIFO)" if path.exists() else
             "does not exist"))
    try:
        text = read_regular(path, MAX_TRAINING_FILE, what="training file").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrainError(f"{where}: not UTF-8 text ({exc})") from None
    try:
        raw = parse_yaml(text, where)
    except ExperimentError as exc:
        raise TrainError(str(exc)) from None
    _need(isinstance(raw, dict), f"{where}: expected a mapping of settings such as "
                                 f"teacher, budget, conditions, got {type(raw).__name__}")
    return raw


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


def _members(c: dict, raw, path: Path, where: str) -> list:
    """``distill`` (train/distill.py): the member training files' resolved paths, each a
    valid training file without a ``distill`` step of its own, with a name apart from the
    run's and the other members' (they share the output folder)."""
    if raw is None:
        return []
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
    return files


def es_settings(c: dict, raw) -> dict | None:
    """``es`` (train/es.py): the step's settings, the defaults filled in (``seed`` and
    ``check_seed`` from the file's seed); None: no step."""
    if raw is None:
        return None
    s = {**ES_DEFAULTS, "seed": iteration_seed(c["seed"], 3000),
         "check_seed": iteration_seed(c["seed"], 3001), **raw}
    if "overfishing" in s:
        s.setdefault("overfishing_deals", OVERFISHING_DEALS)
    return s


def config_hash(c: dict) -> str:
    """Of everything that decides an iteration's positions and model: not the workers,
    the output folder or the chunk size, nor the number of iterations (iteration i is the
    same in a run of any length, so a longer run resumes a shorter one), nor the distill
    step's members, nor the ES step's settings (train/distill.py, train/es.py: each step
    keeps its own key in state.json)."""
    keep = {k: v for k, v in c.items() if k not in EXECUTION and k not in (
        "path", "teacher_file", "iterations", "distill", "es")}
    keep["features_version"] = FEATURES_VERSION
    # the stored positions are observations: a run of another layout is another run
    keep["observation"] = sorted(OBS_LAYOUT.items())
    return hashlib.sha256(json.dumps(keep, sort_keys=True, default=str).encode()).hexdigest()


def iteration_seed(seed: int, i: int) -> int:
    """The seed of a run's step i (its iteration's games; + 1000: its evaluation's deals;
    + 2000: its network's fit), from the training file's seed."""
    return (int(seed) * 1_000_003 + i * 7919) % (2 ** 63)


def run_tag(out: Path) -> str:
    """Module names of a run's files are unique to its folder (a process may load the
    students of two runs)."""
    return hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:8]
