"""The trump-choice tables (docs/rules.md E): how often light is chosen, the policy gain and
the stakes of the leader's trump choice, per round and pooled, with the points scale beside
them; with several strategies, each strategy's own policy gain. The stakes use the paired
replays: per choice g = (chosen - other)/2 estimated from two pairs, stakes =
sqrt(mean(d1 * d2)) with d1, d2 two independent pairs' light-minus-dark. The report's
section: report/trump.py."""
from __future__ import annotations

import math

from fishing2sim.analysis.common import CHOICE, frame, played, rotation_unit, row
from fishing2sim.analysis.contrasts import pooled_trump
from fishing2sim.analysis.stats import WIN_UNIT, mean_ci, wilson
from fishing2sim.run.totals import (SQ, SUM, TRUMP_CROSS_SQ, TRUMP_CROSS_SUM, TRUMP_G_SQ,
                                    TRUMP_G_SUM, TRUMP_PROD_SQ, TRUMP_PROD_SUM)
from fishing2sim.strategy.identity import distinct_names

ANALYSIS = "trump_value"
UNITS = (("points", 1.0), ("win", WIN_UNIT))


def _sq(x):
    return math.sqrt(max(0.0, x)) if not math.isnan(x) else math.nan


def _within_half(ci: tuple) -> tuple:
    """(estimate, lo, hi) with the limits kept inside [-1/2, 1/2] (nan stays nan)."""
    e, lo, hi = ci
    return e, (max(lo, -0.5) if lo == lo else lo), (min(hi, 0.5) if hi == hi else hi)


def _trump_rows(out, base, m, sums, unit, scale, r=None, t=None, block="game"):
    """The trump rows of one round from its sums (one choice per game and round: the
    choices are the units), or pooled over the rounds (r None) from the totals ``t``,
    clustered by unit (a game's several choices are not independent)."""
    if r is None:
        u = 0 if unit == "points" else 1
        gain = pooled_trump(t, u, "g", 4 * scale)[:3]
        low = pooled_trump(t, u, "cross", 4 * scale)[:3]
        est, lo, hi = pooled_trump(t, u, "prod", scale * scale)[:3]
    else:
        g, gg, pr, pp, cr, cc = (float(sums[i]) for i in (
            TRUMP_G_SUM, TRUMP_G_SQ, TRUMP_PROD_SUM, TRUMP_PROD_SQ, TRUMP_CROSS_SUM,
            TRUMP_CROSS_SQ))
        gain = mean_ci(g, gg, m, 4 * scale)
        low = mean_ci(cr, cc, m, 4 * scale)
        est, lo, hi = mean_ci(pr, pp, m, scale * scale)
    if unit == "win":  # a gain of (chosen − other)/2 in win shares lies in [-1/2, 1/2]
        gain, low = _within_half(gain), _within_half(low)
    cu = CHOICE if r is not None else block  # pooled: a game's choices are one unit
    row(out, base, f"policy_gain_{unit}", m, *gain, round=r, ci_unit=cu)
    row(out, base, f"stakes_{unit}", m, _sq(est), _sq(lo), _sq(hi), round=r, ci_unit=cu)
    row(out, base, f"stakes_half_{unit}", m, _sq(est) / 2, _sq(lo) / 2, _sq(hi) / 2, round=r,
        ci_unit=cu)
    row(out, base, f"stakes_half_low_{unit}", m, *low, round=r, ci_unit=cu)


def _strategy_rows(out, base, t, names, rounds, block) -> None:
    """Each strategy's own trump choices: its policy gain per round and pooled."""
    for i, name in enumerate(names):
        mi = int(t["strat_trump_n"][i].sum())
        for r in [*range(2, rounds + 1), None]:
            k = mi if r is None else int(t["strat_trump_n"][i, r])
            if k == 0:
                continue
            for u, (unit, scale) in enumerate(UNITS):
                if r is None:  # pooled: clustered by unit
                    est = pooled_trump(t, u, "g", 4 * scale, strategy=i)[:3]
                else:
                    sums = t[("strat_trump_points", "strat_trump_win")[u]][i, r]
                    est = mean_ci(float(sums[SUM]), float(sums[SQ]), k, 4 * scale)
                if unit == "win":
                    est = _within_half(est)
                row(out, base, f"policy_gain_{unit}", k, *est, strategy=name,
                    round=r, ci_unit=block if r is None else CHOICE)


def tables(exp, totals) -> dict:
    trump: list = []
    tstrat: list = []
    mixed = False
    for cond, t, base, n in played(exp, totals):
        names = distinct_names(cond.identities)
        mixed = mixed or len(names) > 1
        rounds = cond.deck.n_rounds
        for r in range(2, rounds + 1):
            m = int(t["trump_n"][r])
            if m == 0:
                continue
            row(trump, base, "light_chosen_share", m, *wilson(t["trump_light"][r], m), round=r,
                ci_unit=CHOICE)
            for (unit, scale), key in zip(UNITS, ("trump_points", "trump_win")):
                _trump_rows(trump, base, m, t[key][r], unit, scale, r)
        m_all = int(t["trump_n"].sum())
        if m_all:  # the points scale beside the trump figures: a seat's mean final score and
            # the winner's mean lead over the runner-up (per game)
            s, ss = t["game_points"].astype(float)
            row(trump, base, "mean_final_points", n, *mean_ci(s, ss, n, cond.players))
            row(trump, base, "mean_winning_margin", n, *mean_ci(*t["margin"].astype(float), n))
            # pooled over the rounds analysed (round empty)
            for unit, scale in UNITS:
                _trump_rows(trump, base, m_all, None, unit, scale, t=t,
                            block=rotation_unit(cond))
            _strategy_rows(tstrat, base, t, names, rounds, rotation_unit(cond))
    out = {"trump_value": frame(trump, exp, ["round"])}
    if mixed:
        out["trump_by_strategy"] = frame(tstrat, exp, ["strategy", "round"])
    return out
