"""Racing (docs/tune.md): the best trials re-run on a fresh seed with more games beside the
untuned file (the baseline), the winner confirmed on another seed, and the differences
with their CIs."""
from __future__ import annotations

import copy
import json
import time

import numpy as np
import pandas as pd

from fishing2sim.tune.levels_race import race_levels
from fishing2sim.tune.schema import short as _short
from fishing2sim.tune.spec import TuneError, TuneSpec, load_trial
from fishing2sim.tune.objective import (Estimate, Evaluation, _say, derive_seed, evaluate,
                                       objective_value, targets_met, trial_figures)

RACE_SEED_OFFSET = 3_000_000
CONFIRM_SEED_OFFSET = 5_000_000  # the winner and the baseline, on a seed not used to pick
_MC_DRAWS = 4000


def _diff_ci(spec: TuneSpec, a: Evaluation, b: Evaluation, seed: int):
    """95% interval of value(a) - value(b) from the figures' sampling distributions (each
    figure normal with its CI's standard error, the two runs independent: conservative when
    they share deals)."""
    rng = np.random.default_rng(seed)

    def draws(ev):
        cols = [rng.normal(f.estimate, f.se, _MC_DRAWS) if f.se > 0
                else np.full(_MC_DRAWS, f.estimate) for f in ev.figures]
        return np.array([objective_value(spec, xs, ev.changes) for xs in zip(*cols)])

    d = draws(a) - draws(b)
    point = a.value - b.value
    lo, hi = np.percentile(d, [2.5, 97.5])
    return point, float(lo), float(hi)


def race(spec: TuneSpec, study, workers: int, progress: bool, pool=None):
    from optuna.trial import TrialState

    complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    if not complete:
        return pd.DataFrame(), None, None, "no trial gave a playable experiment"
    sign = -1 if spec.direction == "maximize" else 1
    complete.sort(key=lambda t: (sign * t.value, t.number))
    cands, seen = [], set()
    for t in complete:
        vals = {d.key: d.value_from_params(t.params) for d in spec.dims}
        k = json.dumps(vals, sort_keys=True, default=str)
        if k in seen:
            continue
        seen.add(k)
        cands.append((t.number, vals))
    top = cands[:max(1, spec.race_top)] if spec.race_top else cands[:1]
    race_seed = derive_seed(spec.seed, RACE_SEED_OFFSET)
    rows, evs = [], []
    if spec.race_top:
        for number, vals in top:
            _say(progress, f"racing trial {number} ({spec.race_games:,} games)")
            ev = evaluate(spec, vals, race_seed, spec.race_games, workers, f"race-{number}",
                          pool)
            evs.append((number, ev))
    else:
        t = next(t for t in complete if t.number == top[0][0])
        figs = [Estimate(*x) for x in t.user_attrs.get("figures", [])]
        evs.append((top[0][0], Evaluation(top[0][1], t.user_attrs.get("seed"), spec.games,
                                          figs, t.value, t.user_attrs.get("deck_changes", 0),
                                          t.user_attrs.get("seconds", 0))))
    evs.sort(key=lambda x: (sign * x[1].value, x[0]))
    winner_no, picked = evs[0]
    for rank, (number, ev) in enumerate(evs):
        rows.append(_race_row(spec, f"trial {number}", number, ev, rank + 1, picked.seed))
    # the winner's figures come from a seed not used to pick it: the best of several noisy
    # evaluations is biased in its own favour (the winner's curse); the baseline plays the
    # same fresh seed beside it
    confirm_seed = derive_seed(spec.seed, CONFIRM_SEED_OFFSET)
    _say(progress, f"confirming trial {winner_no} on a fresh seed ({spec.race_games:,} games)")
    w = evaluate(spec, picked.values, confirm_seed, spec.race_games, workers,
                 f"confirm-{winner_no}", pool)
    rows.append(_race_row(spec, f"trial {winner_no}, confirmed", winner_no, w, None,
                          confirm_seed))
    base_ev = None
    try:
        _say(progress, f"baseline (the file untuned, {spec.race_games:,} games)")
        base_ev = _evaluate_baseline(spec, confirm_seed, spec.race_games, workers, pool)
    except TuneError as exc:
        _say(progress, f"baseline not playable: {exc}")
    if base_ev is not None:
        rows.append(_race_row(spec, "baseline", None, base_ev, None, confirm_seed))
    verdict = ""
    winner = {"trial": winner_no, "values": w.values, "evaluation": w, "picked": picked}
    if len(evs) > 1:  # the evidence the pick rests on: the racing seed
        pt, lo, hi = _diff_ci(spec, picked, evs[1][1], race_seed)
        sep = (hi < 0 or lo > 0)
        winner["vs_runner_up"] = (evs[1][0], pt, lo, hi, sep)
    if base_ev is not None:
        pt, lo, hi = _diff_ci(spec, w, base_ev, confirm_seed + 1)
        winner["vs_baseline"] = (pt, lo, hi, hi < 0 or lo > 0)
    if spec.race_levels:
        cands = [(f"trial {n}", n, ev.values) for n, ev in evs]
        cands.append(("baseline", None, None))
        winner["levels"] = race_levels(spec, cands, confirm_seed, workers, progress, pool)
    if spec.mode == "targets":
        terms = targets_met(spec, w.figures)
        winner["targets"] = terms
        verdict = "meets every target" if all(m for _, _, m, _ in terms) else \
            "misses some targets"
    return pd.DataFrame(rows), winner, base_ev, verdict


def _evaluate_baseline(spec, seed, games, workers, pool=None) -> Evaluation:
    t0 = time.perf_counter()
    data = copy.deepcopy(spec.raw)
    data.update(seed=int(seed), games=int(games), name="baseline", output=str(spec.scratch))
    exp = load_trial(spec, data)
    # the baseline has no space labels: map the figures onto its conditions by players and
    # the file's own sweep labels (its conditions are in the same order)
    figs = trial_figures(spec, exp, workers, pool)
    vals = {d.key: spec.baseline.get(d.key) for d in spec.dims}
    ch = 0.0
    val = objective_value(spec, [f.estimate for f in figs], ch)
    return Evaluation(vals, seed, games, figs, val, ch, time.perf_counter() - t0)


def _race_row(spec, who, number, ev: Evaluation, rank, seed=None):
    r = {"candidate": who, "trial": number, "rank": rank, "seed": seed, "games": ev.games,
         "value": ev.value, "deck_changes": ev.changes}
    for d in spec.dims:  # the baseline's keys the file leaves out: empty, not "None"
        v = ev.values.get(d.key)
        r[d.key] = None if v is None else _short(v)
    for f in ev.figures:
        r[f.label] = f.estimate
        r[f"{f.label} ci_low"] = f.ci_low
        r[f"{f.label} ci_high"] = f.ci_high
    return r
