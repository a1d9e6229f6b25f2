"""Headline figures of a condition and its contrasts against a baseline.

The headline figures (docs/experiments.md, "Contrasts"):

- ``overfishing``: the share of games that end by overfishing (a rate);
- ``ocean_empty``: the share of games whose ocean is empty by the end of the last round,
  an overfished game counting as an empty ocean from its end (a rate);
- ``ocean_left``: cards left in the ocean after the last round's draws, over all games
  (an overfished game counts 0);
- ``trump_value``: the policy gain per trump choice in points, pooled over the rounds
  analysed (what the seats' own choices gain over a coin flip);
- ``trump_stakes_half_low`` and ``trump_stakes_half``: the bracket of the trump-choice
  ceiling (the most any trump policy could gain per choice), in points, pooled: at least the
  cross-fitted gain (choose by one pair of replays, score on the other), at most half the
  root mean square of light − dark (half stakes);
- ``win_share``: each strategy's win share.

A contrast is condition − baseline with a 95% CI, and for rates also the ratio
condition / baseline. Two conditions that play the same deals (``paired: true``, the same
players, deck, first leader and rotation) are compared game by game: the CI is that of
the mean of the per-game (or per-rotation-block) differences ("paired"). The trump figures
are ratios of sums over a unit's trump choices (a game holds several choices, and the two
conditions' games hold different numbers of them), so their paired CI is the delta method's
(:func:`paired_ratio`): each unit's linearised contribution to the figure in one condition
minus its contribution in the other, the normal interval of the mean of those differences.
Otherwise the two estimates are independent: Newcombe's interval for a difference of rates
(from the Wilson intervals), the normal interval from the two standard errors for means, and
Katz's log interval for a ratio of rates ("independent").
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fishing2sim.analysis.stats import (WIN_UNIT, Z, adjust_p, crit, mean_ci, mean_se, p_from_ci,
                                        ratio_ci, share_ci, wilson)
from fishing2sim.strategy.identity import distinct_names
from fishing2sim.analysis.common import label_keys_of
from fishing2sim.analysis.sprt import decide, elo_to_score, score_to_elo  # noqa: F401 (re-exported)
from fishing2sim.run.totals import CL_SQ, CL_SUM, CL_XM, SUM, TRUMP_X
from fishing2sim.analysis.card_impact import widest_half_width
from fishing2sim.run.totals import ARC_UNIT

FIGURES = ("overfishing", "ocean_empty", "ocean_left", "trump_value", "trump_stakes_half_low",
           "trump_stakes_half", "leader_edge", "win_share", "lead_changes", "late_leader_win")
#: figure -> (analysis it belongs to, kind, unit of the estimate as reported, plain name)
FIGURE_INFO = {
    "overfishing": ("overfishing", "rate", "pp", "overfishing"),
    "ocean_empty": ("depletion", "rate", "pp", "the share of games whose ocean runs out "
                    "(empty at the end, or overfished)"),
    "ocean_left": ("depletion", "mean", "cards", "cards left in the ocean at the end"),
    "trump_value": ("trump_value", "mean", "points", "the trump-choice value (policy gain)"),
    "trump_stakes_half_low": ("trump_value", "mean", "points",
                              "a perfect trump chooser's gain (lower end)"),
    "trump_stakes_half": ("trump_value", "mean", "points",
                          "a perfect trump chooser's gain (upper end)"),
    "leader_edge": ("strategies", "mean", "pp", "the round-1 leader's edge (its win share "
                    "above the fair share)"),
    "win_share": ("strategies", "rate", "pp", "win share"),
    # the game's arc (analyses: [arc]; docs/rules.md E, "Game arc")
    "lead_changes": ("arc", "mean", "changes", "the lead changes per game"),
    "late_leader_win": ("arc", "mean", "pp", "the win share of the leader before the last "
                        "round"),
}
CONTRAST_COLUMNS = ["condition", "name", "baseline", "baseline_name", "players", "figure",
                    "strategy", "unit", "method", "n", "n_baseline", "estimate",
                    "baseline_estimate", "difference", "diff_ci_low", "diff_ci_high",
                    "ratio", "ratio_ci_low", "ratio_ci_high", "p_value", "p_adjusted",
                    "ci_unit"]


@dataclass
class Figure:
    """One headline figure of a condition: estimate, 95% CI, n, and for a rate its count k."""

    estimate: float
    ci_low: float
    ci_high: float
    n: int
    kind: str  # rate | mean
    k: float = math.nan  # rates: the count behind the estimate
    se: float = math.nan  # means: the standard error

    @property
    def half_width(self) -> float:
        return (self.ci_high - self.ci_low) / 2


def _rate(k, n) -> Figure:
    e, lo, hi = wilson(float(k), float(n))
    return Figure(e, lo, hi, int(n), "rate", k=float(k))


def _mean(s, ss, n, scale=1.0, share: bool = False) -> Figure:
    """A mean's figure (t interval); ``share``: a mean of shares, its CI kept in [0, 1]."""
    e, lo, hi = (share_ci if share else mean_ci)(float(s), float(ss), float(n), scale)
    return Figure(e, lo, hi, int(n), "mean", se=mean_se(float(s), float(ss), float(n), scale))


def headline(exp, cond, t) -> dict:
    """figure -> Figure (``win_share``: strategy name -> Figure) of one condition's totals."""
    n = int(t["games"][0])
    last = cond.deck.n_rounds
    out: dict = {"overfishing": _rate(t["overfished"][0], n),
                 "ocean_empty": _rate(t["empty_or_over_by"][last], n)}
    h = t["ocean_hist"][last]
    v = np.arange(h.size)
    out["ocean_left"] = _mean((h * v).sum(), (h * v * v).sum(), n)
    m = int(t["trump_n"].sum())
    if m:
        out["trump_value"] = _pooled(t, 0, "g", 4.0)
        out["trump_stakes_half_low"] = _pooled(t, 0, "cross", 4.0)
        M = _pooled(t, 0, "prod")
        root = math.sqrt(max(M.estimate, 0.0))
        lo, hi = math.sqrt(max(M.ci_low, 0.0)), math.sqrt(max(M.ci_high, 0.0))
        se = M.se / (4 * root) if root > 0 else math.nan  # delta method for sqrt(M)/2
        out["trump_stakes_half"] = Figure(root / 2, lo / 2, hi / 2, m, "mean", se=se)
    s, ss = t["first_leader_win"].astype(float)
    edge = _mean(s, ss, n, WIN_UNIT, share=True)
    fair = 1.0 / cond.players
    out["leader_edge"] = Figure(edge.estimate - fair, edge.ci_low - fair, edge.ci_high - fair,
                                n, "mean", se=edge.se)
    units = int(t["strat_units"][0])
    ws = {}
    for i, name in enumerate(distinct_names(cond.identities)):
        per_unit = t["strat_seats"][i] / max(units, 1)
        s, ss = t["strat_win"][i].astype(float)
        f = _mean(s, ss, units, WIN_UNIT * per_unit, share=True)
        f.kind = "rate"
        f.k = s / (WIN_UNIT * per_unit)
        ws[name] = f
    out["win_share"] = ws
    if "arc_changes" in t:  # the game's arc, asked for by name
        out.update(arc_headline(cond, t, n))
    return out


def arc_headline(cond, t, n: int) -> dict:
    """``lead_changes`` (the mean lead changes per game, over every game) and
    ``late_leader_win`` (the win share of the leader after the last but one round, over
    the games that scored it: the leader before the last round)."""
    h = t["arc_changes"].astype(float)
    k = np.arange(h.size)
    out = {"lead_changes": _mean((h * k).sum(), (h * k * k).sum(), n)}
    r = cond.deck.n_rounds - 1
    m = int(t["arc_scored"][r]) if r >= 1 else 0
    if m:
        s, ss = t["arc_leader_win"][r].astype(float)
        out["late_leader_win"] = _mean(s, ss, m, ARC_UNIT, share=True)
    return out


def pooled_trump(t, unit: int, x: str, scale: float = 1.0, strategy: int | None = None) -> tuple:
    """(estimate, lo, hi, se, choices) of a trump figure pooled over the rounds analysed:
    the mean over choices of ``x`` (TRUMP_X: g, prod or cross; ``unit`` 0 points, 1 win
    share in 60ths) divided by ``scale``, its CI clustered by unit (a game, or a rotation
    block: a game's choices are not independent). With ``strategy``: that strategy's own
    choices (g only)."""
    units = float(t["strat_units"][0])
    if strategy is None:
        row, (sm, smm) = t["trump_game"][unit, TRUMP_X[x]], t["trump_game_m"]
    else:
        row, (sm, smm) = t["strat_trump_game"][strategy, unit], t["strat_trump_game_m"][strategy]
    est, lo, hi, se = ratio_ci(float(row[CL_SUM]), float(row[CL_SQ]), float(row[CL_XM]),
                               float(sm), float(smm), units, scale)
    return est, lo, hi, se, int(sm)


def _pooled(t, unit: int, x: str, scale: float = 1.0) -> Figure:
    est, lo, hi, se, m = pooled_trump(t, unit, x, scale)
    return Figure(est, lo, hi, m, "mean", se=se)


# ---- the two kinds of contrast ----------------------------------------------------------
def independent(a: Figure, b: Figure) -> tuple:
    """(difference, lo, hi, ratio, lo, hi) of a − b for independent estimates."""
    d = a.estimate - b.estimate
    if a.kind == "rate" and not math.isnan(a.k) and not math.isnan(b.k) and a.se != a.se:
        # Newcombe (1998) method 10, from the two Wilson intervals
        lo = d - math.sqrt((a.estimate - a.ci_low) ** 2 + (b.ci_high - b.estimate) ** 2)
        hi = d + math.sqrt((a.ci_high - a.estimate) ** 2 + (b.estimate - b.ci_low) ** 2)
        ratio, rlo, rhi = math.nan, math.nan, math.nan
        if a.k > 0 and b.k > 0:
            ratio = a.estimate / b.estimate
            se = math.sqrt(max(0.0, 1 / a.k - 1 / a.n + 1 / b.k - 1 / b.n))
            rlo, rhi = ratio * math.exp(-Z * se), ratio * math.exp(Z * se)
        return d, lo, hi, ratio, rlo, rhi
    se_a = a.se if not math.isnan(a.se) else a.half_width / Z
    se_b = b.se if not math.isnan(b.se) else b.half_width / Z
    se = math.sqrt(se_a ** 2 + se_b ** 2)
    z = crit(_welch_df(se_a, a.n, se_b, b.n))
    ratio, rlo, rhi = math.nan, math.nan, math.nan
    if a.kind == "rate" and a.estimate > 0 and b.estimate > 0:
        ratio = a.estimate / b.estimate
        sl = math.sqrt((se_a / a.estimate) ** 2 + (se_b / b.estimate) ** 2)
        rlo, rhi = ratio * math.exp(-z * sl), ratio * math.exp(z * sl)
    return d, d - z * se, d + z * se, ratio, rlo, rhi


def _welch_df(se_a: float, n_a: int, se_b: float, n_b: int) -> float:
    """Welch-Satterthwaite's degrees of freedom of a difference of two independent means
    (infinite where a standard error is 0 on both sides)."""
    num = (se_a ** 2 + se_b ** 2) ** 2
    den = (se_a ** 4 / (n_a - 1) if n_a > 1 else 0.0) + (se_b ** 4 / (n_b - 1) if n_b > 1 else 0.0)
    if den <= 0:
        return math.inf if num > 0 or (n_a > 1 and n_b > 1) else math.nan
    return num / den


def paired(x: np.ndarray, y: np.ndarray, rate: bool = True) -> tuple:
    """(difference, lo, hi, ratio, lo, hi) of mean(x) − mean(y) from per-unit pairs
    (x[i], y[i]) of the same deal: the t interval (n − 1 degrees of freedom) of the mean
    difference, and the
    delta-method interval of the log ratio of means."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = x.size
    d = x - y
    md = float(d.mean())
    if n < 2:
        return md, math.nan, math.nan, math.nan, math.nan, math.nan
    se = float(d.std(ddof=1)) / math.sqrt(n)
    z = crit(n - 1)
    ratio, rlo, rhi = math.nan, math.nan, math.nan
    mx, my = float(x.mean()), float(y.mean())
    if rate and mx > 0 and my > 0:
        ratio = mx / my
        c = np.cov(x, y, ddof=1)
        v = (c[0, 0] / mx ** 2 + c[1, 1] / my ** 2 - 2 * c[0, 1] / (mx * my)) / n
        sl = math.sqrt(max(v, 0.0))
        rlo, rhi = ratio * math.exp(-z * sl), ratio * math.exp(z * sl)
    return md, md - z * se, md + z * se, ratio, rlo, rhi


def paired_ratio(xa, ma, xb, mb, scale: float = 1.0, root: bool = False) -> tuple | None:
    """(difference, lo, hi, nan, nan, nan) of f(Σxa / Σma) − f(Σxb / Σmb) from per-unit sums
    of the same deals (unit i of one condition paired with unit i of the other), with
    f(q) = q / scale, or with ``root`` f(q) = sqrt(q) / scale.

    The delta method (linearisation of a ratio of sums): with q = Σx / Σm and m̄ = Σm / n,
    unit i contributes f'(q) (x_i − q m_i) / m̄ to f(q) − f(true q); the CI is the normal
    interval of the mean of the units' contributions in one condition minus those in the
    other. None with ``root`` when a q is not positive (the square root has no slope there:
    the caller compares such figures as independent)."""
    xa, ma, xb, mb = (np.asarray(v, float) for v in (xa, ma, xb, mb))
    n = xa.size
    sa, sb = float(ma.sum()), float(mb.sum())
    if n == 0 or sa <= 0 or sb <= 0:
        return None
    qa, qb = float(xa.sum()) / sa, float(xb.sum()) / sb
    if root:
        if qa <= 0 or qb <= 0:
            return None
        fa, fb = math.sqrt(qa) / scale, math.sqrt(qb) / scale
        ga, gb = 1 / (2 * math.sqrt(qa) * scale), 1 / (2 * math.sqrt(qb) * scale)
    else:
        fa, fb = qa / scale, qb / scale
        ga = gb = 1 / scale
    d = fa - fb
    if n < 2:
        return d, math.nan, math.nan, math.nan, math.nan, math.nan
    z = ga * (xa - qa * ma) / (sa / n) - gb * (xb - qb * mb) / (sb / n)
    se = float(z.std(ddof=1)) / math.sqrt(n)
    q = crit(n - 1)
    return d, d - q * se, d + q * se, math.nan, math.nan, math.nan


#: the trump figures, ratios of per-unit sums: figure -> (numerator, scale, root), the
#: denominator being unit_trump_n (docs/rules.md E: g = sign (d1 + d2), policy gain g/4;
#: half stakes sqrt(mean d1 d2)/2)
TRUMP_RATIOS = {"trump_value": ("unit_trump_g", 4.0, False),
                "trump_stakes_half_low": ("unit_trump_cross", 4.0, False),
                "trump_stakes_half": ("unit_trump_prod", 2.0, True)}


def _paired_contrast(cond, base_cond, ta, tb, va, vb, fig, strategy, kind):
    """The paired contrast of a figure from the two conditions' unit vectors, or None
    when it cannot be paired."""
    if fig in TRUMP_RATIOS:
        num, scale, root = TRUMP_RATIOS[fig]
        if num not in va or num not in vb:
            return None
        return paired_ratio(va[num], va["unit_trump_n"], vb[num], vb["unit_trump_n"],
                            scale, root)
    x = _unit_values(cond, ta, va, fig, strategy)
    y = _unit_values(base_cond, tb, vb, fig, strategy)
    if x is None or y is None:  # no unit vectors for it (the arc's): compared as independent
        return None
    return paired(x, y, rate=kind == "rate")


def _unit_values(cond, t, vec: dict, figure: str, strategy: str | None = None):
    """Per-unit values of a figure (each unit's mean over its games)."""
    g = cond.players if cond.rotate else 1
    if figure == "overfishing":
        return vec["unit_overfished"] / g
    if figure == "ocean_empty":
        return vec["unit_empty"] / g
    if figure == "ocean_left":
        return vec["unit_ocean_last"] / g
    if figure == "leader_edge":
        return vec["unit_first_leader"] / (WIN_UNIT * g) - 1.0 / cond.players
    if figure == "win_share":
        names = distinct_names(cond.identities)
        i = names.index(strategy)
        per_unit = t["strat_seats"][i] / max(int(t["strat_units"][0]), 1)
        return vec["unit_win"][:, i] / (WIN_UNIT * per_unit)
    return None


def _vectors(units_of: dict | None) -> dict | None:
    """A condition's unit vectors in game order (chunks sorted by index)."""
    if not units_of:
        return None
    keys = sorted(units_of)
    return {k: np.concatenate([units_of[c][k] for c in keys]) for k in units_of[keys[0]]}


def by_construction(df: pd.DataFrame):
    """The rows of a contrast table that are equal by construction: the win share of a
    strategy alone in both lineups (every CI exactly [0, 0]). They are no test."""
    return (df["figure"] == "win_share") & (df["diff_ci_low"] == 0) & (df["diff_ci_high"] == 0)


def contrast_table(exp, totals: list, units: list | None = None) -> pd.DataFrame:
    """Every condition with a baseline: each headline figure of its analyses, condition −
    baseline, as rows of CONTRAST_COLUMNS (the sweep labels are added after ``name``)."""
    label_keys = label_keys_of(exp)
    heads = {c.index: headline(exp, c, t) for c, t in zip(exp.conditions, totals)
             if t is not None}
    rows = []
    for cond in exp.conditions:
        b = cond.baseline
        if b is None or cond.index not in heads or b not in heads:
            continue
        base_cond = exp.conditions[b]
        ha, hb = heads[cond.index], heads[b]
        ta, tb = totals[cond.index], totals[b]
        same = (cond.paired and base_cond.paired and cond.seed == base_cond.seed
                and units is not None and units[cond.index] and units[b])
        va = _vectors(units[cond.index]) if same else None
        vb = _vectors(units[b]) if same else None
        if va is not None and (vb is None or len(va["unit_overfished"]) != len(vb["unit_overfished"])):
            va = vb = None
        for fig in FIGURES:
            analysis, kind, unit, _ = FIGURE_INFO[fig]
            if analysis not in exp.analyses:
                continue
            pairs = []
            if fig == "win_share":
                for s, fa in ha["win_share"].items():
                    if s in hb["win_share"]:
                        pairs.append((s, fa, hb["win_share"][s]))
            elif fig in ha and fig in hb:
                pairs.append((None, ha[fig], hb[fig]))
            for s, fa, fb in pairs:
                res = _paired_contrast(cond, base_cond, ta, tb, va, vb, fig, s, kind) \
                    if va is not None else None
                method = "paired"
                if res is None:
                    res, method = independent(fa, fb), "independent"
                row = {"condition": cond.index, "name": cond.name or str(cond.index),
                       "baseline": b, "baseline_name": base_cond.name or str(b),
                       "players": cond.players, "figure": fig, "strategy": s, "unit": unit,
                       "method": method, "n": fa.n, "n_baseline": fb.n,
                       "estimate": fa.estimate, "baseline_estimate": fb.estimate}
                row.update(zip(CONTRAST_COLUMNS[13:19], res))
                row["p_value"] = p_from_ci(*res[:3])
                # the CI's unit: a deal played in every rotation, or a game (a trump
                # figure's game holds several choices; a share's game is one outcome)
                row["ci_unit"] = "rotation block" if cond.rotate and (
                    method == "paired" or fig == "win_share") else "game"
                for k in label_keys:
                    if k in CONTRAST_COLUMNS:
                        continue
                    v = cond.labels.get(k)
                    row[k] = v if not isinstance(v, (list, dict)) else str(v)
                rows.append(row)
    extra = [k for k in label_keys if k not in CONTRAST_COLUMNS]
    cols = CONTRAST_COLUMNS[:2] + extra + CONTRAST_COLUMNS[2:]
    df = pd.DataFrame(rows, columns=cols)
    # the family: every contrast the report shows (a win share equal by construction, CI
    # [0, 0], is no test); its adjusted p decides the verdict words, the CIs stay unadjusted
    p = df["p_value"].where(~by_construction(df)).astype(float)
    df["p_adjusted"] = adjust_p(p.tolist(), exp.multiplicity)
    return df


# ---- precision and SPRT ------------------------------------------------------------------
def half_widths(exp, cond, t) -> dict:
    """figure -> the widest 95% CI half-width of the figure (in its own unit: a share as a
    fraction, points, cards) in this condition's totals."""
    h = headline(exp, cond, t)
    out = {}
    for fig, _, _ in exp.precision:
        if fig.startswith("contrast."):  # a contrast's: the runner measures it on the table
            continue
        if fig == "win_share":
            out[fig] = max((f.half_width for f in h["win_share"].values()), default=math.nan)
        elif fig == "card_overfishing":  # analyses: [cards]: the widest of its cards'

            out[fig] = widest_half_width(cond, t)
        elif fig in h:
            out[fig] = h[fig].half_width
        else:
            out[fig] = math.nan
    return out


def sprt_state(exp, cond, t) -> dict:
    """The SPRT of ``exp.sprt`` in one condition. Per unit (a game, or a rotation block) the
    score of A against B is 1/2 + (A's win share − B's win share)/2, in 0..1; the log
    likelihood ratio of elo1 against elo0 is the normal (GSPRT) approximation used by
    fishtest: LLR = n (s1 − s0) (2 x̄ − s0 − s1) / (2 σ²) (fishing2sim/analysis/sprt.py). Its Elo is
    the SPRT Elo, the logistic Elo of that score: not the ladder's rating scale."""
    spec = exp.sprt
    names = distinct_names(cond.identities)
    i, j = names.index(spec["better"]), names.index(spec["than"])
    units = int(t["strat_units"][0])
    per = t["strat_seats"] / max(units, 1)
    a = WIN_UNIT * per[i]
    b = WIN_UNIT * per[j]
    sw = t["strat_win"].astype(float)
    cross = float(t["strat_win_cross"][i, j])
    # score x = 1/2 + (wi/a - wj/b)/2 per unit: its sum and sum of squares from the totals
    sd = sw[i, SUM] / a - sw[j, SUM] / b
    sdd = sw[i, 1] / a ** 2 + sw[j, 1] / b ** 2 - 2 * cross / (a * b)
    n = units
    mean = 0.5 + sd / (2 * n) if n else math.nan
    var = (sdd / n - (sd / n) ** 2) / 4 if n else math.nan
    out = decide(spec, n, mean, var, tests=max(1, len(exp.conditions)))
    out["var"] = var
    return out
