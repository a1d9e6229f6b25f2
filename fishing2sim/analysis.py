"""Totals -> tidy tables (RULES.md E): every estimate with its n and a 95% CI.

Rates of games use Wilson intervals; means use the normal interval from the sum and the
sum of squares; with seat rotation a strategy's win share and points use the rotation
block (one deal in every rotation) as the unit; the trump-choice value uses the paired
differences of RULES.md E: per choice g = (chosen - other)/2 estimated from two pairs,
stakes = sqrt(mean(d1 * d2)) with d1, d2 two independent pairs' light-minus-dark.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .engine import constants as K

Z = 1.959963984540054
WIN_UNIT = 60.0
TABLE_COLUMNS = ["metric", "n", "estimate", "ci_low", "ci_high"]


def wilson(k: float, n: float) -> tuple[float, float, float]:
    if n <= 0:
        return math.nan, math.nan, math.nan
    p = k / n
    den = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / den
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / den
    return p, max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(s: float, ss: float, n: float, scale: float = 1.0) -> tuple[float, float, float]:
    if n <= 0:
        return math.nan, math.nan, math.nan
    m = s / n
    var = max(0.0, ss / n - m * m) * n / (n - 1) if n > 1 else math.nan
    half = Z * math.sqrt(var / n) if n > 1 else math.nan
    return m / scale, (m - half) / scale, (m + half) / scale


def hist_quantile(h: np.ndarray, q: float) -> float:
    n = h.sum()
    if n == 0:
        return math.nan
    c = np.cumsum(h)
    return float(np.searchsorted(c, q * n, side="left"))


def _row(out, base, metric, n, est, lo=math.nan, hi=math.nan, **keys):
    r = dict(base)
    r.update(keys)
    r.update(metric=metric, n=int(n), estimate=est, ci_low=lo, ci_high=hi)
    out.append(r)


def _frame(rows, base_cols, key_cols) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=base_cols + key_cols + TABLE_COLUMNS)
    for c in key_cols:
        if c in ("round", "tier", "seat"):
            df[c] = df[c].astype("Int64")
    return df


def tables_from_totals(exp, totals: list) -> dict[str, pd.DataFrame]:
    from .runner import strategy_names

    label_keys: list[str] = []
    for cond in exp.conditions:
        for k in cond.labels:
            if k not in label_keys:
                label_keys.append(k)
    base_cols = ["condition"] + label_keys
    dep, ovf, trump, strat, scores = [], [], [], [], []
    for cond, t in zip(exp.conditions, totals):
        if t is None:
            continue
        base = {"condition": cond.index}
        for k in label_keys:
            v = cond.labels.get(k)
            base[k] = v if not isinstance(v, (list, dict)) else str(v)
        n = int(t["games"][0])
        rounds = cond.deck.n_rounds
        # ---- depletion
        for r in range(1, rounds + 1):
            h = t["ocean_hist"][r]
            reached = int(t["reached"][r])
            vals = np.arange(h.size)
            s, ss = float((h * vals).sum()), float((h * vals * vals).sum())
            _row(dep, base, "ocean_after_draws_mean", reached, *mean_ci(s, ss, reached), round=r)
            _row(dep, base, "ocean_after_draws_p05", reached, hist_quantile(h, 0.05), round=r)
            _row(dep, base, "ocean_after_draws_p95", reached, hist_quantile(h, 0.95), round=r)
            _row(dep, base, "ocean_empty_share", n, *wilson(t["empty_by"][r], n), round=r)
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
        for r in range(2, rounds + 1):
            row = t["trump"][r].astype(float)
            m = row[0]
            if m == 0:
                continue
            _row(trump, base, "light_chosen_share", m, *wilson(row[1], m), round=r)
            for j, (unit, scale) in enumerate((("points", 1.0), ("win", WIN_UNIT))):
                g, gg, pr, pp = row[2 + 4 * j: 6 + 4 * j]
                _row(trump, base, f"policy_gain_{unit}", m, *mean_ci(g, gg, m, 4 * scale), round=r)
                est, lo, hi = mean_ci(pr, pp, m, scale * scale)
                sq = lambda x: math.sqrt(max(0.0, x)) if not math.isnan(x) else math.nan
                _row(trump, base, f"stakes_{unit}", m, sq(est), sq(lo), sq(hi), round=r)
        # ---- strategies and seats
        names = strategy_names(cond)
        units = int(t["strat_units"][0])
        for i, name in enumerate(names):
            per_unit = t["strat_seats"][i] / max(units, 1)
            s, ss = t["strat_win"][i].astype(float)
            _row(strat, base, "win_share", t["strat_seats"][i],
                 *mean_ci(s, ss, units, WIN_UNIT * per_unit), strategy=name)
            s, ss = t["strat_points"][i].astype(float)
            _row(strat, base, "mean_points", t["strat_seats"][i],
                 *mean_ci(s, ss, units, per_unit), strategy=name)
            for pts in np.flatnonzero(t["score_hist"][i]):
                scores.append(dict(base, strategy=name, points=int(pts),
                                   count=int(t["score_hist"][i][pts])))
        for p in range(cond.players):
            s, ss = t["seat_win"][p].astype(float)
            _row(strat, base, "win_share", n, *mean_ci(s, ss, n, WIN_UNIT), seat=p)
        s, ss = t["first_leader_win"].astype(float)
        _row(strat, base, "first_leader_win_share", n, *mean_ci(s, ss, n, WIN_UNIT))
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
    if "strategies" in exp.analyses:
        tables["strategies"] = _frame(strat, base_cols, ["strategy", "seat"])
        tables["scores"] = pd.DataFrame(scores, columns=base_cols + ["strategy", "points", "count"])
    return tables
