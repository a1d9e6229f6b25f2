"""The schema of a training file (experiments/train/*.yaml, what ``fishing2sim train``
reads): pydantic models on the experiment file's machinery (config/schema.py's ``Schema``:
strict, every unknown key refused with a did-you-mean; config/messages.py's one-line
message, ``<key path>: <problem>``). What needs the strategies (the teacher, the behaviour,
the opponents, the budget as the teacher reads it) or other files (the distill step's
members) is checked by train/config.py, which keeps the file's values as written."""
from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, Field

from fishing2sim.config.keys import MAX_SEED
from fishing2sim.config.messages import did_you_mean, got, problem
from fishing2sim.config.schema import Schema, is_number
from fishing2sim.safe_files import name_problem
from fishing2sim.strategy.contract import DECISION_FUNCTIONS

__all__ = ["ES_DEFAULTS", "EsStep", "TrainingFile"]

# the es step's settings when the file does not give them (seed and check_seed: from the
# file's seed, train/config.py)
ES_DEFAULTS = {"iterations": 100, "pairs": 24, "deals": 600, "sigma": 0.1, "lr": 0.02,
               "check_every": 10, "check_deals": 3000}
# Overfishing as a second term of the ES objective: F - overfishing x (the share of
# 5-player games, every seat the student, that end by overfishing). Off unless set, and
# then not in the settings at all (a file without it keeps its step's key).
OVERFISHING_DEALS = 600

Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]
AtLeast1 = Annotated[int, Field(ge=1)]


def _name(v):
    if not (isinstance(v, str) and v.strip() and "/" not in v and not v.startswith(".")):
        raise problem(f"expected a non-empty name without '/' (not starting with '.'), "
                      f"{got(v)}")
    why = name_problem(v)
    if why:
        raise problem(f"the name {why}")
    return v


def _budget(v):
    if not (isinstance(v, list) and len(v) == 4 and all(is_number(x) for x in v)):
        raise problem(f"expected [worlds, rollouts, horizon, objective], {got(v)}")
    return v


def _decisions(v):
    if not (isinstance(v, list) and v):
        raise problem(f"expected a list of decision kinds, {got(v)}")
    for i, x in enumerate(v):
        if x not in DECISION_FUNCTIONS:
            raise problem(f"unknown decision kind {x!r}{did_you_mean(x, DECISION_FUNCTIONS)}"
                          f"; known: {', '.join(DECISION_FUNCTIONS)}", index=i)
    return v


def _members(v):
    if v is not None and not (isinstance(v, list) and v and all(
            isinstance(x, str) and x.strip() for x in v)):
        raise problem(f"expected a list of member training files (relative to this file), "
                      f"{got(v)}")
    return v


class Condition(Schema):
    """An entry of ``conditions``: where iteration's self-play games come from."""

    ruleset: Literal["fishing2", "fishing"] = "fishing2"
    players: Annotated[int, Field(ge=3, le=5)] = 4
    games: AtLeast1 = 100
    opponents: Any = None  # one bot or one per other seat: train/config.py


class Evaluation(Schema):
    deals: Annotated[int, Field(ge=0)] = 500


class EsStep(Schema):
    """``es``: the evolution strategies step's settings (train/es.py)."""

    iterations: AtLeast1 = ES_DEFAULTS["iterations"]
    pairs: AtLeast1 = ES_DEFAULTS["pairs"]
    deals: AtLeast1 = ES_DEFAULTS["deals"]
    sigma: Annotated[float, Field(gt=0, le=10)] = ES_DEFAULTS["sigma"]
    lr: Annotated[float, Field(gt=0, le=10)] = ES_DEFAULTS["lr"]
    check_every: AtLeast1 = ES_DEFAULTS["check_every"]
    check_deals: Annotated[int, Field(ge=2)] = ES_DEFAULTS["check_deals"]
    seed: Seed = 0
    check_seed: Seed = 0
    overfishing: Annotated[float, Field(ge=0, le=100)] = 0.0
    overfishing_deals: AtLeast1 = OVERFISHING_DEALS


class TrainingFile(Schema):
    """A training file's top-level mapping."""

    name: Annotated[Any, AfterValidator(_name)] = None
    seed: Seed = 0
    iterations: AtLeast1 = 3
    teacher: str = "pimc"
    budget: Annotated[Any, AfterValidator(_budget)] = None
    rollout: Literal["teacher", "student"] = "teacher"
    behaviour: str = "prior"
    rate: Annotated[float, Field(gt=0, le=1)] = 0.5
    conditions: Annotated[list[Condition], Field(min_length=1)] = None
    decisions: Annotated[Any, AfterValidator(_decisions)] = None
    temperature: Annotated[float, Field(gt=0)] = 2.0
    l2: Annotated[float, Field(ge=0)] = 1e-4
    hidden: Annotated[int, Field(ge=0, le=256)] = 0
    epochs: AtLeast1 = 5
    evaluation: Evaluation = None
    workers: AtLeast1 = 1
    chunk: AtLeast1 = 10
    output: str = "reports"
    distill: Annotated[Any, AfterValidator(_members)] = None
    es: EsStep | None = None

    help: ClassVar[dict] = {
        "": "a mapping of settings such as teacher, budget, conditions",
        "seed": f"a whole number 0..{MAX_SEED}",
        "iterations": "a whole number >= 1",
        "teacher": "a search bot's name or file",
        "rollout": "'teacher' (the teacher file's ROLLOUT) or 'student' (the last "
                   "iteration's student)",
        "behaviour": "'prior' or an ordinary bot's name or file",
        "rate": "the share of decisions labelled, a number in (0, 1]",
        "conditions": "a list of {ruleset, players, games[, opponents]}",
        "conditions[]": "a mapping {ruleset, players, games[, opponents]}",
        "conditions[].ruleset": "fishing2 or fishing",
        "conditions[].players": "3, 4 or 5",
        "conditions[].games": "a whole number >= 1",
        "temperature": "a number > 0",
        "l2": "a number >= 0",
        "hidden": "a whole number 0..256",
        "epochs": "a whole number >= 1",
        "evaluation": "a mapping {deals: N}",
        "evaluation.deals": "a whole number >= 0",
        "workers": "a whole number >= 1",
        "chunk": "a whole number >= 1",
        "output": "a folder",
        "es": "a mapping of the step's settings (" + ", ".join(EsStep.model_fields) + ")",
        "es.iterations": "a whole number >= 1",
        "es.pairs": "a whole number >= 1",
        "es.deals": "a whole number >= 1",
        "es.check_every": "a whole number >= 1",
        "es.check_deals": "a whole number >= 2",
        "es.seed": f"a whole number 0..{MAX_SEED}",
        "es.check_seed": f"a whole number 0..{MAX_SEED}",
        "es.sigma": "a number in (0, 10]",
        "es.lr": "a number in (0, 10]",
        "es.overfishing": "a number in [0, 100] (the weight of 5-player overfishing in the "
                          "objective)",
        "es.overfishing_deals": "a whole number >= 1",
    }
