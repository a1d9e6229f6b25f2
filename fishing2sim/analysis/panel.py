"""The skill panel's tables (``play_levels:``, docs/rules.md E, "Levels of play"): each deck
contrast at every level of play, how the effect differs between levels (the interaction,
with its 95% CI), one verdict per contrast, and the skill trace (each headline figure
against the levels' playing strength, and whether it has converged).

Pairing. The levels of a condition play the same deals (the same condition seed; game g of
every level is one deal), so two levels' estimates of one condition are correlated. Every
estimate here is a linear function of condition means (or of ratios of sums, the trump
value), and its variance is computed from the per-unit vectors by *influence*: each
condition's estimate m_k has the per-unit influence phi_k,i (for a mean (x_i - m_k) / n_k;
for a ratio of sums q = Σx / Σm, (x_i - q m_i) / Σm), a combination Σ w_k m_k has per-deal
influence psi_i = Σ_k w_k phi_k,i summed over the conditions that play deal i (conditions of
one seed), and its variance is Σ_i psi_i² · N / (N − 1) over the deals of each seed (N of
them), summed over the seeds. For one mean that is s² / n; for two conditions of the same
deals and games it is the paired variance s_d² / n; for levels with different games it
uses every game of each and the covariance of the deals they share.
"""
from __future__ import annotations

import csv
import math
from importlib import resources

import numpy as np
import pandas as pd

from fishing2sim.analysis.contrasts import (
    FIGURE_INFO, _unit_values, _vectors, headline,
)
from fishing2sim.analysis.stats import Z, adjust_p, p_from_ci
from fishing2sim.config.keys import LEVEL
from fishing2sim.strategy.identity import distinct_names

ANALYSIS = "play_levels"  # not an analyses: entry; the panel's tables come with the panel
#: the figures a panel compares between levels (a win share belongs to a lineup, so it is
#: not compared across lineups)
PANEL_FIGURES = ("overfishing", "ocean_empty", "ocean_left", "leader_edge", "trump_value")
INTERACTION_COLUMNS = ["contrast", "players", "figure", "unit", "level", "relative_to",
                       "effect", "effect_ci_low", "effect_ci_high", "reference_effect",
                       "reference_ci_low", "reference_ci_high", "difference", "diff_ci_low",
                       "diff_ci_high", "p_value", "p_adjusted", "n", "n_reference", "ci_unit"]
VERDICT_COLUMNS = ["contrast", "players", "figure", "unit", "verdict", "levels_up",
                   "levels_down", "levels_none", "text"]
TRACE_COLUMNS = ["group", "players", "figure", "unit", "level", "rating", "rating_source",
                 "strength_rank", "n", "estimate", "ci_low", "ci_high", "ci_unit"]
CONVERGENCE_COLUMNS = ["group", "players", "figure", "unit", "strongest", "second",
                       "difference", "diff_ci_low", "diff_ci_high", "tolerance", "converged",
                       "ci_unit"]


# ---- influence: a linear combination of condition estimates with its paired CI --------------
def influence(cond, t, vec: dict, figure: str) -> tuple[float, np.ndarray] | None:
    """(the condition's estimate of ``figure``, its per-unit influence vector), or None
    when the condition has no unit vectors for it."""
    if vec is None:
        return None
    if figure == "trump_value":
        if "unit_trump_g" not in vec:
            return None
        x = vec["unit_trump_g"].astype(float)
        m = vec["unit_trump_n"].astype(float)
        sm = float(m.sum())
        if sm <= 0:
            return None
        q = float(x.sum()) / sm
        return q / 4.0, (x - q * m) / (4.0 * sm)
    x = _unit_values(cond, t, vec, figure)
    if x is None or not len(x):
        return None
    x = np.asarray(x, float)
    mean = float(x.mean())
    return mean, (x - mean) / x.size


def combine(terms) -> tuple[float, float, float]:
    """(estimate, lo, hi) of Σ w_k m_k from ``terms`` = [(w, seed, (m, phi)), ...]: the
    influence of each deal summed over the terms that play it (the same seed)."""
    est = 0.0
    by_seed: dict = {}
    for w, seed, (m, phi) in terms:
        est += w * m
        psi = by_seed.get(seed)
        if psi is None or psi.size < phi.size:
            grown = np.zeros(phi.size)
            if psi is not None:
                grown[:psi.size] = psi
            psi = grown
        psi[:phi.size] += w * phi
        by_seed[seed] = psi
    var = 0.0
    for psi in by_seed.values():
        n = psi.size
        if n < 2:
            return est, math.nan, math.nan
        var += float((psi * psi).sum()) * n / (n - 1)
    half = Z * math.sqrt(var)
    return est, est - half, est + half


# ---- the verdict words ------------------------------------------------------------------
def sign_of(lo: float, hi: float, p_adjusted: float = 0.0) -> int:
    """+1 / -1: a measurable rise / fall (the CI clear of 0 and the family-adjusted p below
    0.05); 0: no measurable effect."""
    if math.isnan(lo) or math.isnan(hi) or not p_adjusted < 0.05:
        return 0
    return 1 if lo > 0 else (-1 if hi < 0 else 0)


def _who(levels: list[str]) -> str:
    names = [f"{n}" for n in levels]
    text = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{text} players"


def half_text(lo: float, hi: float, unit: str) -> str:
    """A CI's half-width in words, ``±1.8 pp`` (a share's in percentage points)."""
    if math.isnan(lo) or math.isnan(hi):
        return "no CI"
    hw = (hi - lo) / 2 * (100.0 if unit == "pp" else 1.0)
    d = max(0, 1 - math.floor(math.log10(hw))) if hw > 0 else 1
    return f"±{hw:.{min(d, 4)}f} {unit}"


def verdict(signs: dict, reference: str, differs=None, widths: dict | None = None
            ) -> tuple[str, str]:
    """(kind, words) of one contrast from its sign at each level (level -> +1, -1 or 0, in
    the panel's order); ``reference`` is the level the words are relative to; ``differs(a,
    b)``: whether the effects at levels a and b differ measurably (the interaction's CI
    excludes 0 and its family-adjusted p is below 0.05); ``widths``: level -> its effect's
    CI half-width in words.

    holds     every level the same measurable direction: "holds at every level of play"
    none      no level measurable: "is not measurable at any level of play"
    reverses  both directions measured and the interaction between an up and a down level
              measurable: "reverses with <the levels against the reference's direction (or
              the first measured one)>"
    only      one direction at some levels, none at the others, and every other level's
              effect measurably smaller than a measured level's: "appears only with <them>"
    partly    measured at some levels, the interaction not measurable: "measurable with
              <them>; with <the others> too few games to tell (±<half-width>)"
    """
    differs = differs or (lambda a, b: False)
    widths = widths or {}
    ups = [lv for lv, s in signs.items() if s > 0]
    downs = [lv for lv, s in signs.items() if s < 0]
    if not ups and not downs:
        return "none", "is not measurable at any level of play"
    if ups and downs:
        if any(differs(u, d) for u in ups for d in downs):
            ref = signs.get(reference, 0) or signs[next(lv for lv in signs if signs[lv])]
            against = downs if ref > 0 else ups
            return "reverses", f"reverses with {_who(against)}"
        return "partly", (f"rises with {_who(ups)} and falls with {_who(downs)}, but the "
                          "difference between these levels is not measurable")
    if len(ups) + len(downs) == len(signs):
        return "holds", "holds at every level of play"
    seen = ups or downs
    rest = [lv for lv in signs if lv not in seen]
    if all(any(differs(lv, m) for m in seen) for lv in rest):
        return "only", f"appears only with {_who(seen)}"
    tell = "; ".join(f"with {_who([lv])} too few games to tell ({widths.get(lv, 'no CI')})"
                     for lv in rest)
    return "partly", f"is measurable with {_who(seen)}; {tell}"


# ---- the tables -------------------------------------------------------------------------
def group_key(cond) -> tuple:
    """What a condition is apart from its level (its other labels)."""
    return tuple((k, str(v)) for k, v in cond.labels.items() if k != LEVEL)


def group_name(cond) -> str:
    """A condition's name without its level (the level is the name's last part)."""
    name = cond.name or ""
    tail = f", {cond.level}"
    if name.endswith(tail):
        return name[: -len(tail)]
    return "all games" if name == cond.level else name


def _cells(exp, totals, units):
    """group key -> level -> condition index, and the unit vectors of each condition."""
    cells: dict = {}
    for c in exp.conditions:
        if totals[c.index] is None:
            continue
        cells.setdefault(group_key(c), {})[c.level] = c.index
    vecs = [_vectors(units[c.index]) if units else None for c in exp.conditions]
    return cells, vecs


def tables(exp, totals: list, units: list | None, contrasts: pd.DataFrame | None) -> dict:
    """``panel`` (the interactions), ``verdicts``, ``skill_trace`` and ``convergence``."""
    if exp.panel is None:
        return {}
    cells, vecs = _cells(exp, totals, units)
    figures = [f for f in PANEL_FIGURES if FIGURE_INFO[f][0] in exp.analyses]
    inter, verdicts = _interactions(exp, totals, cells, vecs, contrasts, figures)
    trace, conv = _trace(exp, totals, cells, vecs, figures)
    return {"panel": pd.DataFrame(inter, columns=INTERACTION_COLUMNS),
            "verdicts": pd.DataFrame(verdicts, columns=VERDICT_COLUMNS),
            "skill_trace": pd.DataFrame(trace, columns=TRACE_COLUMNS),
            "convergence": pd.DataFrame(conv, columns=CONVERGENCE_COLUMNS)}


def _term(exp, totals, vecs, index, figure, w):
    c = exp.conditions[index]
    inf = influence(c, totals[index], vecs[index], figure)
    return None if inf is None else (w, c.seed, inf)


def _interactions(exp, totals, cells, vecs, contrasts, figures):
    """Each deck contrast's effect at each level against the other levels' (every pair of
    levels; the rows are one family, adjusted by ``exp.multiplicity``), and one verdict per
    contrast and figure, its "appears only" and "reverses" resting on those adjusted
    interactions."""
    panel = exp.panel
    ref = panel.relative_to
    rows, groups = [], []
    if contrasts is None or not len(contrasts):
        return rows, []
    con = contrasts[contrasts["strategy"].isna()] if "strategy" in contrasts else contrasts
    for key, by_level in cells.items():
        first = exp.conditions[next(iter(by_level.values()))]
        if first.baseline is None:
            continue
        for fig in figures:
            effects = {}
            for lv in panel.names:
                i = by_level.get(lv)
                r = con[(con["condition"] == i) & (con["figure"] == fig)] if i is not None \
                    else con.iloc[:0]
                if len(r):
                    effects[lv] = r.iloc[0]
            if len(effects) < 2:
                continue
            name = group_name(first)
            # every pair of levels: the reference's pairs first, then the others in the
            # panel's order (the report's words use the reference's)
            order = [ref] + [lv for lv in panel.names if lv != ref]
            pairs = [(lv, other) for j, other in enumerate(order) for lv in order[j + 1:]
                     if lv in effects and other in effects]
            start = len(rows)
            for lv, other in pairs:
                rows.append(_interaction(exp, totals, vecs, by_level, effects, lv, other,
                                         name, first.players, fig))
            groups.append((name, first.players, fig, effects, start, len(rows)))
    adjusted = adjust_p([r["p_value"] for r in rows], exp.multiplicity)
    for r, p in zip(rows, adjusted):
        r["p_adjusted"] = p
    return rows, [_verdict_row(rows[a:b], name, players, fig, effects, ref)
                  for name, players, fig, effects, a, b in groups]


def _verdict_row(inter: list, name, players, fig, effects: dict, ref: str) -> dict:
    """The verdict of one contrast and figure from its effects at each level and its
    interaction rows (adjusted)."""
    signs = {lv: sign_of(float(r["diff_ci_low"]), float(r["diff_ci_high"]),
                         float(r["p_adjusted"])) for lv, r in effects.items()}
    measured = {frozenset((r["level"], r["relative_to"])) for r in inter
                if sign_of(r["diff_ci_low"], r["diff_ci_high"], r["p_adjusted"])}
    unit = FIGURE_INFO[fig][2]
    widths = {lv: half_text(float(r["diff_ci_low"]), float(r["diff_ci_high"]), unit)
              for lv, r in effects.items()}
    kind, words = verdict(signs, ref, lambda a, b: frozenset((a, b)) in measured, widths)
    return {"contrast": name, "players": players, "figure": fig, "unit": unit,
            "verdict": kind, "levels_up": ", ".join(k for k, s in signs.items() if s > 0),
            "levels_down": ", ".join(k for k, s in signs.items() if s < 0),
            "levels_none": ", ".join(k for k, s in signs.items() if s == 0), "text": words}


def _interaction(exp, totals, vecs, by_level, effects, lv, ref, name, players, fig) -> dict:
    """The effect at ``lv`` minus the effect at ``ref``, with its paired CI."""
    r, rr = effects[lv], effects[ref]
    a, b = by_level[lv], by_level[ref]
    ca, cb = exp.conditions[a], exp.conditions[b]
    terms = [_term(exp, totals, vecs, a, fig, 1.0),
             _term(exp, totals, vecs, ca.baseline, fig, -1.0),
             _term(exp, totals, vecs, b, fig, -1.0),
             _term(exp, totals, vecs, cb.baseline, fig, 1.0)]
    d, lo, hi = combine(terms) if None not in terms else (
        float(r["difference"]) - float(rr["difference"]), math.nan, math.nan)
    return {"contrast": name, "players": players, "figure": fig,
            "unit": FIGURE_INFO[fig][2], "level": lv, "relative_to": ref,
            "effect": float(r["difference"]), "effect_ci_low": float(r["diff_ci_low"]),
            "effect_ci_high": float(r["diff_ci_high"]),
            "reference_effect": float(rr["difference"]),
            "reference_ci_low": float(rr["diff_ci_low"]),
            "reference_ci_high": float(rr["diff_ci_high"]),
            "difference": d, "diff_ci_low": lo, "diff_ci_high": hi,
            "p_value": p_from_ci(d, lo, hi), "n": int(r["n"]), "n_reference": int(rr["n"]),
            "ci_unit": r.get("ci_unit") or "game"}


# ---- the skill trace --------------------------------------------------------------------
def ladder_ratings() -> dict:
    """bot NAME -> its rating on the ladder (Elo, random = 0), from the ratings installed
    with the package (fishing2sim/data/ladder_ratings.csv, the last ladder run's)."""
    try:
        text = resources.files("fishing2sim").joinpath("data/ladder_ratings.csv").read_text()
    except (FileNotFoundError, OSError):
        return {}
    return {r["bot"]: float(r["rating"]) for r in csv.DictReader(text.splitlines())}


def level_ratings(exp) -> dict:
    """level -> (rating or nan, where it came from): the file's ``rating``, else the
    ladder's rating of the level's bot when every seat is that bot at its default
    parameters."""
    ladder = ladder_ratings()
    out = {}
    for lv in exp.panel.levels:
        if lv.rating is not None:
            out[lv.name] = (float(lv.rating), "file")
            continue
        cond = next((c for c in exp.conditions if c.level == lv.name), None)
        names = distinct_names(cond.identities) if cond is not None else []
        default = cond is not None and all(p is None for p in cond.params)
        if len(names) == 1 and default and names[0] in ladder:
            out[lv.name] = (ladder[names[0]], "ladder")
        else:
            out[lv.name] = (math.nan, "")
    return out


def strength_order(exp) -> list[str]:
    """The levels from the weakest to the strongest: by rating when every level has one,
    else in the panel's order (the file lists them from the weakest)."""
    ratings = level_ratings(exp)
    names = exp.panel.names
    if all(not math.isnan(ratings[n][0]) for n in names):
        return sorted(names, key=lambda n: (ratings[n][0], names.index(n)))
    return list(names)


def converged(lo: float, hi: float, tol: float) -> str:
    """Do the two strongest levels agree within ``tol``? ``yes``: the 95% CI of their
    difference lies inside [-tol, tol]; ``no``: it lies wholly outside; ``undecided``:
    it straddles the tolerance (more games would tell)."""
    if math.isnan(lo) or math.isnan(hi):
        return "undecided"
    if -tol <= lo and hi <= tol:
        return "yes"
    if lo > tol or hi < -tol:
        return "no"
    return "undecided"


def _trace(exp, totals, cells, vecs, figures):
    ratings = level_ratings(exp)
    order = strength_order(exp)
    rows, conv = [], []
    for key, by_level in cells.items():
        first = exp.conditions[next(iter(by_level.values()))]
        name = group_name(first)
        for fig in figures:
            unit = FIGURE_INFO[fig][2]
            have = []  # the levels with this figure (a searching level has no trump figures)
            for lv in order:
                i = by_level.get(lv)
                if i is None:
                    continue
                f = headline(exp, exp.conditions[i], totals[i]).get(fig)
                if f is None:
                    continue
                have.append(lv)
                r, src = ratings[lv]
                rows.append({"group": name, "players": first.players, "figure": fig,
                             "unit": unit, "level": lv, "rating": r, "rating_source": src,
                             "strength_rank": order.index(lv) + 1, "n": f.n,
                             "estimate": f.estimate, "ci_low": f.ci_low, "ci_high": f.ci_high,
                             "ci_unit": "game"})
            top = have[-2:]
            if len(top) < 2:
                continue
            second, strongest = top
            terms = [_term(exp, totals, vecs, by_level[strongest], fig, 1.0),
                     _term(exp, totals, vecs, by_level[second], fig, -1.0)]
            if None in terms:
                continue
            d, lo, hi = combine(terms)
            tol = exp.panel.converged_within.get(fig, math.nan)
            conv.append({"group": name, "players": first.players, "figure": fig,
                         "unit": unit, "strongest": strongest, "second": second,
                         "difference": d, "diff_ci_low": lo, "diff_ci_high": hi,
                         "tolerance": tol, "converged": converged(lo, hi, tol),
                         "ci_unit": "game"})
    return rows, conv
