"""Chunks: the plan of a run (which games each chunk plays) and playing one chunk.

A chunk (condition, chunk index) plays a fixed range of game indexes of its condition and
reduces them to totals (fishing2sim.run.totals). The local runner and the Dask backend both
call :func:`run_chunk`; neither imports the other.
"""
from __future__ import annotations

from fishing2sim.errors import Fishing2simError
import math
from dataclasses import dataclass

import numpy as np

from fishing2sim.engine import constants as K
from fishing2sim.config.decisions import thresholds
from fishing2sim.config.levels import trump_replayed
from fishing2sim.engine.records import (G_ERR_CODE, GAME_LAYOUT, MAX_SAMPLED, N_T, N_X,
                                         PAIR_LAYOUT)
from fishing2sim.run import profile
from fishing2sim.run.card_impact import add_cards, loo_decks, play_cards
from fishing2sim.run.decision_totals import block_rows, empty, fold, game_rows
from fishing2sim.run.examples import (OUTCOME_KEY, batch_examples, game_index, merge_examples,
                                      outcome_code)
from fishing2sim.strategy.identity import distinct_names
from fishing2sim.run.totals import R, accumulate, add_blocks, empty_totals

class RunError(Fishing2simError, ValueError):
    """A run that cannot start (e.g. --resume with a changed experiment file)."""


# ------------------------------------------------------------------------------------
# one chunk


@dataclass(frozen=True)
class Task:
    condition: int
    chunk: int
    start: int  # first game (or rotation block) index
    count: int  # games (or blocks)

    @property
    def key(self) -> str:
        return f"c{self.condition:04d}-k{self.chunk:06d}"


def _units(cond, chunk: int) -> tuple[int, int]:
    """(units, units per chunk) of a condition: games, or with seat rotation blocks (one
    deal played once in every rotation of the lineup)."""
    if cond.rotate:
        return math.ceil(cond.games / cond.players), max(1, chunk // cond.players)
    return cond.games, chunk


def iter_plan(exp):
    """The chunks of every condition, generated one at a time (memory does not grow with
    the number of games)."""
    for cond in exp.conditions:
        units, per = _units(cond, exp.chunk)
        for k, start in enumerate(range(0, units, per)):
            yield Task(cond.index, k, start, min(per, units - start))


def plan(exp) -> list[Task]:
    """All chunks as a list (small experiments; the runner itself uses iter_plan)."""
    return list(iter_plan(exp))


def n_chunks(exp) -> int:
    total = 0
    for cond in exp.conditions:
        units, per = _units(cond, exp.chunk)
        total += -(-units // per)
    return total


def task_of(exp, condition: int, chunk: int) -> Task | None:
    """The task of (condition, chunk index), or None if the experiment has no such chunk
    (a precision or SPRT run may have chunks up to its ``max_games``)."""
    if not 0 <= condition < len(exp.conditions):
        return None
    cond = exp.conditions[condition]
    if getattr(cond, "max_games", 0) > cond.games:
        import dataclasses

        cond = dataclasses.replace(cond, games=cond.max_games)
    units, per = _units(cond, exp.chunk)
    start = chunk * per
    if chunk < 0 or start >= units:
        return None
    return Task(condition, chunk, start, min(per, units - start))


def games_of(exp, task: Task) -> int:
    cond = exp.conditions[task.condition]
    return task.count * (cond.players if cond.rotate else 1)


def strategy_names(cond) -> list[str]:
    """The distinct strategies of a condition's lineup, in lineup order: the NAMEs of its
    seats' identities (resolved at load, one file per NAME), the rows of the tables and
    the strategy slots of the totals."""
    return distinct_names(cond.identities)



def step_of(exp, cond) -> int:
    """The games of one chunk of ``cond`` (with seat rotation: of every rotation): the
    step in which an adaptive run grows a condition."""
    units, per = _units(cond, exp.chunk)
    return per * (cond.players if cond.rotate else 1)


_prepared: dict = {}


def _prepare(exp, cond):
    """Per process: the lineups (one per rotation) of a condition, built once, and with
    analyses: [cards] the decks without each of its cards (run/card_impact.py)."""
    key = (exp.config_hash, cond.index, exp.strict)
    if key in _prepared:
        return _prepared[key]
    # strategy/lineup.py imports the bots' package: the analysis imports this module
    from fishing2sim.strategy.lineup import build_lineup, observe_mask, search_args

    P = cond.players
    rotations = range(P) if cond.rotate else range(1)
    lineups = []
    names = strategy_names(cond)
    for r in rotations:
        # rotation r: seat p plays lineup entry (p - r) mod P
        idx = [(p - r) % P for p in range(P)]
        specs = [cond.lineup[i] for i in idx]
        params = [cond.params[i] for i in idx]
        funcs, table, strats = build_lineup(specs, P, params, exp.strict)
        slot = np.array([names.index(cond.identities[i].name) for i in idx], np.int64)
        lineups.append((funcs, table, observe_mask(strats), slot, strats,
                        search_args(strats, params, P)))
    arrays = np.ascontiguousarray(cond.deck.arrays)
    hands = np.ascontiguousarray(cond.deck.hand_sizes[P])
    loo = None
    if "cards" in exp.analyses:  # the decks without each listed card (run/card_impact.py)
        loo = loo_decks(arrays, cond.cards, cond.deck)
    _prepared[key] = (lineups, names, arrays, hands, loo)
    return _prepared[key]


def run_chunk(exp, task: Task) -> dict:
    """Play one chunk and reduce it to totals (a dict of int64 arrays; with the per-unit
    vectors of fishing2sim.run.totals for a condition that shares its deals)."""
    # the kernels load numba, the search kernels compile: the analysis imports this module
    from fishing2sim.api import call_kernel, kernel_failure, new_outputs, new_work, search_games
    from fishing2sim.engine.batch import play_batch, trump_batch

    cond = exp.conditions[task.condition]
    lineups, names, arrays, hands, loo = _prepare(exp, cond)
    P = cond.players
    n = task.count
    trump = trump_replayed(exp, cond)
    arc = "arc" in exp.analyses
    totals = empty_totals(P, len(names), arc, loo is not None)
    dec = _decisions(exp, cond, totals, len(names))
    prof = _profile(exp, cond, totals, len(names))
    units = {} if getattr(cond, "paired", False) else None
    examples = None
    for rotation, (funcs, table, mask, slot, strats, search) in enumerate(lineups):
        out_int, out_points, out_ocean, out_trump, out_round_points = new_outputs(n)
        work = new_work()
        args = (arrays, P, K.RULESETS[cond.deck.ruleset], hands, cond.deck.n_rounds,
                cond.first_leader, np.uint64(cond.seed), task.start, n, funcs, table, 0, mask,
                work)
        if search is not None:  # (the search kernels are loaded only when a seat searches)
            from fishing2sim.search.kernels import trump_batch_search
        if search is not None and trump:  # search seats (engine/search.py): searching
            pairs = np.zeros((n, R, N_T), np.int64)  # only trump choices (experiment.py)
            done = call_kernel(trump_batch_search, (
                *args[:-1], *search, work, exp.trump_max_round, out_int, out_points, out_ocean,
                out_trump, out_round_points, pairs), work, strats)
        elif search is not None:
            pairs = None
            each = None if prof is None else (  # (a search logs every game: count each)
                lambda rows: profile.count_game(totals, rows, prof, P, slot))
            done = search_games(args, search, work, strats, (
                out_int, out_points, out_ocean, out_trump, out_round_points), each)
        elif dec is not None:  # analyses: [decisions] (engine/decisions.py)
            pairs = np.zeros((n, R, N_T), np.int64) if trump else None
            done = _decision_chunk(exp, dec, args, trump, pairs, slot, work, strats, (
                out_int, out_points, out_ocean, out_trump, out_round_points))
        elif trump:
            pairs = np.zeros((n, R, N_T), np.int64)
            dummy = np.zeros((1, K.EV_FIELDS), np.int64)
            done = call_kernel(trump_batch, (
                *args, exp.trump_max_round, out_int, out_points, out_ocean, out_trump,
                out_round_points, pairs, -1, dummy, dummy, dummy, np.zeros(3, np.int64)),
                work, strats)
        else:
            pairs = None
        if not trump and search is None and loo is None and dec is None:
            done = call_kernel(play_batch, (*args, out_int, out_points, out_ocean, out_trump,
                                            out_round_points), work, strats)
        if loo is not None:  # (with trump_value or decisions the standard games play twice)
            done, out_cards = play_cards(args, loo, out_int, out_points, out_ocean, out_trump,
                                         out_round_points, strats)
        if done and out_int[done - 1, G_ERR_CODE] != 0:
            raise kernel_failure(work[0], strats, cond.deck)
        if prof is not None and (search is None or trump):
            _replay_profile(args, search, task, prof, P, slot, totals)
        accumulate(totals, P, slot, out_int, out_points, out_ocean, pairs, units,
                   cond.deck.n_rounds, out_round_points if arc else None)
        if exp.examples:  # the example games (run/examples.py): no sums, merged apart
            examples = _examples(exp, cond, task, rotation, examples, units, (
                out_int, out_ocean, out_round_points, pairs), (GAME_LAYOUT, PAIR_LAYOUT))
        if loo is not None:
            add_cards(totals, P, cond.cards, out_int, out_points, out_cards)
    if dec is not None:
        fold(totals, block_rows(dec["rows"]))
    add_blocks(totals, len(lineups), n, units)
    totals.update(examples or {})
    return totals


def _replay_profile(args, search, task, prof, P, slot, totals) -> None:
    """The behaviour profile's games of a chunk whose kernel logs no events: the first
    games of its condition replayed with the log on (run/profile.py)."""
    from fishing2sim.api import EVENT_CAPACITY, logged_rows, new_work

    ev = np.zeros((EVENT_CAPACITY, K.EV_FIELDS), np.int64)
    profile.replay(lambda g: logged_rows(args, search, g, new_work(), ev), task.start,
                   profile.replayed(task.start, task.count), prof, P, slot, totals)


def _profile(exp, cond, totals, n_strategies):
    """With the behaviour profile (run/profile.py): its totals added to ``totals`` and the
    deck's columns it reads; else None."""
    if not profile.wanted(exp):
        return None
    totals.update(profile.empty(n_strategies))
    return profile.cards_of(cond)


def _examples(exp, cond, task, rotation, examples, units, outputs, layouts) -> dict:
    """The chunk's example rows so far merged with one rotation's (``outputs``: the
    kernels' int, ocean and round-points outputs and the trump pairs or None); a paired
    condition's units get the rotation's outcome codes."""
    out_int, out_ocean, round_points, pairs = outputs
    P = cond.players
    games = game_index(np.arange(task.start, task.start + task.count, dtype=np.int64),
                       rotation, P, cond.rotate)
    if units is not None:
        units.setdefault(OUTCOME_KEY, []).append(outcome_code(out_int, layouts[0]))
    return merge_examples(examples, batch_examples(
        exp.examples, P, games, out_int, out_ocean, round_points, pairs, cond.deck.n_rounds,
        layouts), exp.examples)


def _decisions(exp, cond, totals, n_strategies):
    """With analyses: [decisions]: the decision totals added to ``totals`` and the
    chunk's kernel settings (the kinds' thresholds, the per-unit rows summed over the
    rotations); else None (nothing else is added or played)."""
    if "decisions" not in exp.analyses or not exp.decisions:
        return None

    totals.update(empty(n_strategies))
    return {"rates": thresholds(exp.decisions, cond.deck.ruleset), "rows": [],
            "totals": totals}


def _decision_chunk(exp, dec, args, trump, pairs, slot, work, strats, outputs) -> int:
    """One rotation of a chunk through decision_batch (the games of play_batch, or of
    trump_batch with ``trump``), its replays added to dec's per-unit rows."""
    # the kernels load numba: the analysis imports this module
    from fishing2sim.api import call_kernel
    from fishing2sim.engine.decisions import decision_batch

    n = outputs[0].shape[0]
    out_dec = np.zeros((n, MAX_SAMPLED, N_X), np.int64)
    sampled = np.zeros(n, np.int64)
    pr = pairs if pairs is not None else np.zeros((n, R, 1), np.int64)
    done = call_kernel(decision_batch, (*args, dec["rates"], 1 if trump else 0,
                                        exp.trump_max_round, *outputs, pr, out_dec,
                                        sampled), work, strats)
    dec["rows"].append(game_rows(dec["totals"], out_dec, sampled, slot))
    return done


