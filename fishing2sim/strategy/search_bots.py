"""Search bots (docs/search.md): a strategy file with ``SEARCH`` names a search method, its
``ROLLOUT`` the ordinary strategy that plays its other decisions and every seat in its
rollouts, and its ``PARAMS`` the search budget, checked here."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from fishing2sim.strategy import round_table
from fishing2sim.strategy.contract import DECISION_FUNCTIONS, Strategy, StrategyError
from fishing2sim.strategy.files import _rollout_path, static_value, strategy_digest

SEARCH_METHODS = {"pimc": 0, "cheater": 3, "ismcts": 2}  # engine/search.py METHOD_*
SEARCH_PARAM_NAMES = ("worlds", "rollouts", "horizon", "objective", "margin")
N_SP = 1 + len(SEARCH_PARAM_NAMES)  # a seat's row of the search kernels' parameters (SP_*)
SEARCHABLE = DECISION_FUNCTIONS  # a search can make every decision (docs/search.md)
# (lowest, highest, whole numbers only) of each search parameter
SEARCH_PARAM_RANGES = ((1, 4096, True), (1, 1024, True), (0, 2, True), (0, 1, True),
                       (0, 1000, False))
SEARCH_PARAM_HELP = ("worlds: sampled worlds per decision (ismcts: iterations, one sampled world"
                     " each; cheater: iterations of the tree on the true state)",
                     "rollouts: rollouts per world and option",
                     "horizon: 0 = to the end of the round, 1 = to the end of the game, "
                     "2 = to the end of the round plus the learned rest of the game",
                     "objective: 0 = points margin over the best other seat, 1 = win share",
                     "margin (pimc with a student rollout; optional): only the card plays "
                     "and trump choices whose two best options the student scores less "
                     "than margin apart are searched, the others are the student's; 0 (or "
                     "absent) = every one is searched")
# the module of the student's decisions: a margin needs a rollout that plays them
STUDENT_DECISIONS = "fishing2sim.student.decisions"


def search_bot(path: Path, module, name: str, strict: bool, load_strategy) -> Strategy:
    """The Strategy of search bot ``path`` (its rollout loaded by ``load_strategy``)."""
    method = module.SEARCH
    if not isinstance(method, str) or method not in SEARCH_METHODS:
        raise StrategyError(f"strategy file {path}: SEARCH must be one of "
                            f"{', '.join(map(repr, SEARCH_METHODS))}, got {method!r}")
    # SEARCH and ROLLOUT must be what a reader of the file sees: the digest (the config
    # hash, the compiled-code cache's stamp) reads ROLLOUT without running the file
    for key in ("SEARCH", "ROLLOUT"):
        value = getattr(module, key, None)
        if value is not None and static_value(path, key) != value:
            raise StrategyError(f"strategy file {path}: {key} must be a plain string "
                                f"assigned at the top of the file ({key} = {value!r}), not "
                                "computed or changed later")
    own = [f for f in DECISION_FUNCTIONS if getattr(module, f, None) is not None]
    if own:
        raise StrategyError(f"strategy file {path}: a search bot (SEARCH = {method!r}) makes "
                            f"its decisions by searching and defines none itself; found "
                            f"{', '.join(own)} (its other decisions are its ROLLOUT strategy's)")
    rspec = getattr(module, "ROLLOUT", None)
    if not isinstance(rspec, str) or not rspec:
        raise StrategyError(f"strategy file {path}: a search bot needs ROLLOUT, the name (or "
                            f".py file) of the strategy its rollouts are played with")
    rpath = _rollout_path(path, rspec)
    if rpath == path:
        raise StrategyError(f"strategy file {path}: ROLLOUT {rspec!r} is the search bot "
                            "itself (a search cannot roll out with a search)")
    rollout = load_strategy(rpath, strict)
    if rollout.search:
        raise StrategyError(f"strategy file {path}: ROLLOUT {rspec!r} is itself a search bot "
                            f"(SEARCH = {rollout.search!r}); a search rolls out with an "
                            "ordinary strategy")
    raw = getattr(module, "PARAMS", None)
    try:
        defaults = tuple(float(x) for x in raw)
    except (TypeError, ValueError, OverflowError):
        raise StrategyError(f"strategy file {path}: PARAMS must be a list of numbers "
                            f"({', '.join(SEARCH_PARAM_NAMES)})") from None
    if len(defaults) not in (len(SEARCH_PARAM_NAMES) - 1, len(SEARCH_PARAM_NAMES)):
        raise StrategyError(f"strategy file {path}: a search bot's PARAMS are "
                            f"{len(SEARCH_PARAM_NAMES) - 1} or {len(SEARCH_PARAM_NAMES)} "
                            f"numbers ({', '.join(SEARCH_PARAM_NAMES)}), got {len(defaults)}")
    problem = search_params_problem(defaults) or margin_problem(defaults, method, rollout)
    if problem:
        raise StrategyError(f"strategy file {path}: PARAMS: {problem}")
    searches = getattr(module, "SEARCHES", SEARCHABLE)
    if isinstance(searches, str) or not isinstance(searches, (list, tuple)) or not searches \
            or any(x not in SEARCHABLE for x in searches) or len(set(searches)) != len(searches):
        raise StrategyError(f"strategy file {path}: SEARCHES must list the decisions it "
                            f"searches, one or both of {', '.join(map(repr, SEARCHABLE))}; "
                            f"got {searches!r}")
    return Strategy(name, str(path), rollout.functions, (), defaults,
                    SEARCH_PARAM_NAMES[:len(defaults)],
                    rollout.observes, strategy_digest(path), bool(strict), method, rollout,
                    tuple(searches))


def search_params_problem(vec) -> str:
    """What is wrong with a search bot's parameter vector ("" if nothing)."""
    if len(vec) not in (len(SEARCH_PARAM_NAMES) - 1, len(SEARCH_PARAM_NAMES)):
        return (f"a search bot takes {len(SEARCH_PARAM_NAMES) - 1} or "
                f"{len(SEARCH_PARAM_NAMES)} parameters ({', '.join(SEARCH_PARAM_NAMES)}), "
                f"got {len(vec)}")
    for x, pname, (lo, hi, whole), text in zip(vec, SEARCH_PARAM_NAMES, SEARCH_PARAM_RANGES,
                                               SEARCH_PARAM_HELP):
        if not np.isfinite(x) or x < lo or x > hi or (whole and x != int(x)):
            kind = "a whole number" if whole else "a number"
            return f"{pname} must be {kind} from {lo} to {hi}, got {x:g} ({text})"
    if vec[2] == 2 and vec[3] != 0:
        return ("horizon 2 (the learned rest of the game) estimates the points margin: it "
                "needs objective 0, got objective 1")
    if vec[2] == 2:
        if not round_table.RV_OK:
            return (f"horizon 2 needs the learned end-of-round value's table "
                    f"{round_table.RV_FILE}, which is missing, unreadable or of another "
                    "version: fit it again with python -m fishing2sim.train.round_value")
    return ""




def margin_problem(vec, method: str, rollout: Strategy) -> str:
    """What is wrong with a search bot's margin ("" if nothing): the search only where the
    student is unsure reads the student's scores, so it needs pimc and a student rollout."""
    if len(vec) < len(SEARCH_PARAM_NAMES) or vec[4] == 0:
        return ""
    play = rollout.functions[DECISION_FUNCTIONS.index("play")]
    if method != "pimc" or getattr(play, "py_func", play).__module__ != STUDENT_DECISIONS:
        return (f"margin {vec[4]:g} needs SEARCH 'pimc' and a student ROLLOUT (skilled or a "
                f"trained student file), got {method!r} rolling out with {rollout.name!r}")
    return ""
