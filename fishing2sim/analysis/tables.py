"""Totals -> tidy tables (docs/rules.md, "Figures"): every estimate with its n and a 95% CI.

Rates of games use Wilson intervals; means use the normal interval from the sum and the
sum of squares; with seat rotation a strategy's win share and points use the rotation
block (one deal in every rotation) as the unit; the trump-choice value uses the paired
differences of docs/rules.md E: per choice g = (chosen - other)/2 estimated from two pairs,
stakes = sqrt(mean(d1 * d2)) with d1, d2 two independent pairs' light-minus-dark.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from fishing2sim.run.chunks import strategy_names
from fishing2sim.analysis.contrasts import contrast_table, label_keys_of, pooled_trump
from fishing2sim.analysis.stats import (WIN_UNIT, Z, equal_means_test, mean_ci, mean_vs_value_p,  # noqa: F401
                    wilson)  # (Z: re-exported)
from fishing2sim.run.totals import (SQ, SUM, TRUMP_CROSS_SQ, TRUMP_CROSS_SUM, TRUMP_G_SQ, TRUMP_G_SUM,
                     TRUMP_PROD_SQ, TRUMP_PROD_SUM)

# ci_unit: what the 95% CI takes as its independent unit (a game, a rotation block, a
# trump choice, a game still running in that round); n counts what the metric counts
TABLE_COLUMNS = ["metric", "n", "estimate", "ci_low", "ci_high", "ci_unit"]


def hist_quantile(h: np.ndarray, q: float) -> float:
    n = h.sum()
    if n == 0:
        return math.nan
    c = np.cumsum(h)
    return float(np.searchsorted(c, q * n, side="left"))


def _row(out, base, metric, n, est, lo=math.nan, hi=math.nan, ci_unit="game", **keys):
    r = dict(base)
    r.update(keys)
    no_ci = isinstance(lo, float) and math.isnan(lo) and isinstance(hi, float) and math.isnan(hi)
    r.update(metric=metric, n=int(n), estimate=est, ci_low=lo, ci_high=hi,
             ci_unit="" if no_ci else ci_unit)
    out.append(r)


CHOICE = "trump choice"  # the unit of a round's trump figures: one choice per game and round


def _frame(rows, base_cols, key_cols) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=base_cols + key_cols + TABLE_COLUMNS)
    for c in key_cols:
        if c in ("round", "tier", "seat"):
            df[c] = df[c].astype("Int64")
    return df


def _sq(x):
    return math.sqrt(max(0.0, x)) if not math.isnan(x) else math.nan


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
    cu = CHOICE if r is not None else block  # pooled: a game's choices are one unit
    _row(out, base, f"policy_gain_{unit}", m, *gain, round=r, ci_unit=cu)
    _row(out, base, f"stakes_{unit}", m, _sq(est), _sq(lo), _sq(hi), round=r, ci_unit=cu)
    _row(out, base, f"stakes_half_{unit}", m, _sq(est) / 2, _sq(lo) / 2, _sq(hi) / 2, round=r,
         ci_unit=cu)
    _row(out, base, f"stakes_half_low_{unit}", m, *low, round=r, ci_unit=cu)


def tables_from_totals(exp, totals: list, units: list | None = None) -> dict[str, pd.DataFrame]:
    label_keys = label_keys_of(exp)
    base_cols = ["condition"] + label_keys
    dep, ovf, trump, strat, scores, tstrat = [], [], [], [], [], []
    mixed = False
    for cond, t in zip(exp.conditions, totals):
        if t is None:
            continue
        base = {"condition": cond.index}
        for k in label_keys:
            v = cond.labels.get(k)
            base[k] = v if not isinstance(v, (list, dict)) else str(v)
        n = int(t["games"][0])
        rounds = cond.deck.n_rounds
        block = "rotation block" if cond.rotate else "game"  # the unit of a strategy's figures
        # ---- depletion
        for r in range(1, rounds + 1):
            h = t["ocean_hist"][r]
            reached = int(t["reached"][r])
            vals = np.arange(h.size)
            s, ss = float((h * vals).sum()), float((h * vals * vals).sum())
            _row(dep, base, "ocean_after_draws_mean", reached, *mean_ci(s, ss, reached), round=r,
                 ci_unit="game still running")
            # over all games: a game that has ended (by overfishing) counts an empty ocean
            _row(dep, base, "ocean_after_draws_mean_all", n, *mean_ci(s, ss, n), round=r)
            _row(dep, base, "ocean_after_draws_p05", reached, hist_quantile(h, 0.05), round=r)
            _row(dep, base, "ocean_after_draws_p95", reached, hist_quantile(h, 0.95), round=r)
            _row(dep, base, "ocean_empty_share", n, *wilson(t["empty_by"][r], n), round=r)
            _row(dep, base, "ocean_empty_or_overfished_share", n,
                 *wilson(t["empty_or_over_by"][r], n), round=r)
            _row(dep, base, "round_reached_share", n, *wilson(reached, n), round=r)
        for tier in range(1, 6):
            _row(dep, base, "tier_reached_share", n, *wilson(t["tier_reached"][tier], n), tier=tier)
        # ---- overfishing
        _row(ovf, base, "overfished_share", n, *wilson(t["overfished"][0], n))
        _row(ovf, base, "overfished_by_draw_1_card_share", n, *wilson(t["overfished_d1c"][0], n))
        _row(ovf, base, "mean_rounds_played", n, *mean_ci(*t["rounds_sum"].astype(float), n))
        for r in range(2, rounds + 1):
            _row(ovf, base, "overfished_in_round_share", n,
                 *wilson(t["overfished_round"][r], n), round=r)
        # ---- trump-choice value
        names = strategy_names(cond)
        mixed = mixed or len(names) > 1
        for r in range(2, rounds + 1):
            m = int(t["trump_n"][r])
            if m == 0:
                continue
            _row(trump, base, "light_chosen_share", m, *wilson(t["trump_light"][r], m), round=r,
                 ci_unit=CHOICE)
            for unit, scale, key in (("points", 1.0, "trump_points"),
                                     ("win", WIN_UNIT, "trump_win")):
                _trump_rows(trump, base, m, t[key][r], unit, scale, r)
        m_all = int(t["trump_n"].sum())
        if m_all:  # the points scale beside the trump figures: a seat's mean final score and
            # the winner's mean lead over the runner-up (per game)
            s, ss = t["game_points"].astype(float)
            _row(trump, base, "mean_final_points", n, *mean_ci(s, ss, n, cond.players))
            _row(trump, base, "mean_winning_margin", n, *mean_ci(*t["margin"].astype(float), n))
        if m_all:  # pooled over the rounds analysed (round empty)
            for unit, scale, key in (("points", 1.0, "trump_points"),
                                     ("win", WIN_UNIT, "trump_win")):
                _trump_rows(trump, base, m_all, None, unit, scale, t=t, block=block)
            for i, name in enumerate(names):  # each strategy's own choices
                mi = int(t["strat_trump_n"][i].sum())
                for r in [*range(2, rounds + 1), None]:
                    k = mi if r is None else int(t["strat_trump_n"][i, r])
                    if k == 0:
                        continue
                    for u, (unit, scale, key) in enumerate((
                            ("points", 1.0, "strat_trump_points"),
                            ("win", WIN_UNIT, "strat_trump_win"))):
                        if r is None:  # pooled: clustered by unit
                            est = pooled_trump(t, u, "g", 4 * scale, strategy=i)[:3]
                        else:
                            sums = t[key][i, r]
                            est = mean_ci(float(sums[SUM]), float(sums[SQ]), k, 4 * scale)
                        _row(tstrat, base, f"policy_gain_{unit}", k, *est, strategy=name,
                             round=r, ci_unit=block if r is None else CHOICE)
        # ---- strategies and seats
        units_n = int(t["strat_units"][0])
        for i, name in enumerate(names):
            per_unit = t["strat_seats"][i] / max(units_n, 1)
            s, ss = t["strat_win"][i].astype(float)
            _row(strat, base, "win_share", t["strat_seats"][i],
                 *mean_ci(s, ss, units_n, WIN_UNIT * per_unit), strategy=name, ci_unit=block)
            s, ss = t["strat_points"][i].astype(float)
            _row(strat, base, "mean_points", t["strat_seats"][i],
                 *mean_ci(s, ss, units_n, per_unit), strategy=name, ci_unit=block)
            for pts in np.flatnonzero(t["score_hist"][i]):
                scores.append(dict(base, strategy=name, points=int(pts),
                                   count=int(t["score_hist"][i][pts])))
        for p in range(cond.players):
            s, ss = t["seat_win"][p].astype(float)
            _row(strat, base, "win_share", n, *mean_ci(s, ss, n, WIN_UNIT), seat=p)
        P = cond.players
        w, pw, _ = equal_means_test(t["seat_win"][:P, 0], t["seat_win_cross"][:P, :P], n)
        _row(strat, base, "seat_equality_chi2", n, w)
        _row(strat, base, "seat_equality_p_value", n, pw)
        s, ss = t["first_leader_win"].astype(float)
        _row(strat, base, "first_leader_win_share", n, *mean_ci(s, ss, n, WIN_UNIT))
        e, lo, hi = mean_ci(s, ss, n, WIN_UNIT)
        _row(strat, base, "first_leader_edge", n, e - 1 / P, lo - 1 / P, hi - 1 / P)
        _row(strat, base, "first_leader_fair_share_p_value", n,
             mean_vs_value_p(s, ss, n, WIN_UNIT / P))
        _row(strat, base, "points_spread_mean", n, *mean_ci(*t["spread"].astype(float), n))
        _row(strat, base, "completed_share", n, *wilson(t["completed"][0], n))
        _row(strat, base, "overfished_share", n, *wilson(t["overfished"][0], n))
    tables = {}
    if "depletion" in exp.analyses:
        tables["depletion"] = _frame(dep, base_cols, ["round", "tier"])
    if "overfishing" in exp.analyses:
        tables["overfishing"] = _frame(ovf, base_cols, ["round"])
    if "trump_value" in exp.analyses:
        tables["trump_value"] = _frame(trump, base_cols, ["round"])
        if mixed:
            tables["trump_by_strategy"] = _frame(tstrat, base_cols, ["strategy", "round"])
    if "strategies" in exp.analyses:
        tables["strategies"] = _frame(strat, base_cols, ["strategy", "seat"])
        tables["scores"] = pd.DataFrame(scores, columns=base_cols + ["strategy", "points", "count"])
    if any(c.baseline is not None for c in exp.conditions):
        tables["contrasts"] = contrast_table(exp, totals, units)
    if "ladder" in exp.analyses and getattr(exp, "ladder", None):
        from fishing2sim.analysis.ladder import ladder_tables

        tables.update(ladder_tables(exp, totals))
    return tables
