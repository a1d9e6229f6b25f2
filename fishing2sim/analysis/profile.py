"""The behaviour profile (``analyses: [profile]``; every skill panel has it): what the
players of a condition's lineup do, from the games whose event log the run read
(run/profile.py; definitions: docs/rules.md E, "Behaviour profile").

The shares (contested tricks taken, leads of the strongest card, trump choices of the shade
held more) are ratios over decisions, with the game as the CI's unit (a game's decisions are
not independent: the clustered interval of stats.ratio_ci); the per-round figures (cards
drawn from the ocean, the boats' spread, the shortfall, the cards the ocean lacked, each
buoy's plays) are means over the games that reached that round (counts: an interval is kept at 0 or
above). :func:`differences` compares
two conditions' profiles (two levels of play of one panel group): each figure's difference
with its unpaired 95% CI, ordered by its size relative to the spread of one observation.
"""
from __future__ import annotations

import math

import pandas as pd

from fishing2sim.analysis.common import base_columns, played
from fishing2sim.analysis.panel import group_key, group_name
from fishing2sim.analysis.stats import crit, mean_ci, mean_se, ratio_ci
from fishing2sim.engine import constants as K
from fishing2sim.run.profile import (
    ANALYSIS, BOAT_SPREAD, N_EFFECTS, OCEAN_DRAWS, OCEAN_LACKED, RD_GAMES, RD_SQ, RD_SUM,
    SH_N, SH_NN, SH_NY, SH_Y, SH_YY, SHARES, SHORTFALL,
)
from fishing2sim.strategy.identity import distinct_names

__all__ = ["ANALYSIS", "tables", "figures", "differences", "panel_differences", "WORDS"]

EFFECT_NAMES = {v: k for k, v in K.EFFECTS.items()}
# a figure in words (the report's); {r}: the round; {b}: the buoy
WORDS = {
    "follow_contested": "contested tricks taken when following",
    "last_contested": "contested tricks taken when playing last",
    "lead_strongest": "leads of the strongest card",
    "trump_more": "trump choices of the shade held more",
    "ocean_draws": "cards drawn from the ocean in round {r}",
    "boat_spread": "the boats' spread after round {r}",
    "shortfall": "the boats' shortfall at the start of round {r}",
    "ocean_lacked": "cards the ocean lacked at the start of round {r}",
    "buoy_plays": "plays of {b} in round {r}",
}
UNITS = {"share": "share", "mean": "cards", "buoy_plays": "plays"}
COLUMNS = ["strategy", "figure", "buoy", "round", "unit", "n", "games", "estimate", "ci_low",
           "ci_high", "se", "sd", "ci_unit"]
_ROUND_FIGS = ((OCEAN_DRAWS, "ocean_draws", 1, 0), (BOAT_SPREAD, "boat_spread", 1, 1),
               (SHORTFALL, "shortfall", 2, 0), (OCEAN_LACKED, "ocean_lacked", 2, 0))


def figures(cond, t) -> list[dict]:
    """One condition's profile: a dict per figure (COLUMNS), shares first."""
    out = []
    games = int(t["profile_games"][0])
    if games == 0:
        return out
    names = distinct_names(cond.identities)
    sh = t["profile_share"]
    for s, name in enumerate(names):
        for k, fig in enumerate(SHARES):
            v = sh[s, k]
            if v[SH_N] == 0:
                continue
            e, lo, hi, se = ratio_ci(v[SH_Y], v[SH_YY], v[SH_NY], v[SH_N], v[SH_NN], games)
            out.append({"strategy": name, "figure": fig, "buoy": "", "round": None,
                        "unit": "share", "n": int(v[SH_N]), "games": games, "estimate": e,
                        "ci_low": max(0.0, lo), "ci_high": min(1.0, hi), "se": se,
                        "sd": math.sqrt(e * (1 - e))})
    rounds = cond.deck.n_rounds
    pr = t["profile_round"]
    for i, fig, first, less in _ROUND_FIGS:
        for r in range(first, rounds + 1 - less):
            out += _mean_row("", fig, "", r, "cards", pr[i, r])
    present = sorted({int(e) for k, e in zip(cond.deck.arrays[:, K.F_KIND],
                                             cond.deck.arrays[:, K.F_EFFECT])
                      if k == K.K_BUOY})
    pb = t["profile_buoy"]
    for e in present:
        if 0 < e < N_EFFECTS:
            for r in range(1, rounds + 1):
                out += _mean_row("", "buoy_plays", EFFECT_NAMES[e], r, "plays", pb[e, r])
    return out


def _mean_row(strategy, fig, buoy, r, unit, v) -> list[dict]:
    g = int(v[RD_GAMES])
    if g == 0:
        return []
    e, lo, hi = mean_ci(float(v[RD_SUM]), float(v[RD_SQ]), g)
    se = mean_se(float(v[RD_SUM]), float(v[RD_SQ]), g)
    sd = se * math.sqrt(g) if g > 1 else math.nan
    return [{"strategy": strategy, "figure": fig, "buoy": buoy, "round": r, "unit": unit,
             "n": g, "games": g, "estimate": e, "ci_low": max(0.0, lo), "ci_high": hi,
             "se": se,
             "sd": sd}]


def tables(exp, totals) -> dict:
    rows = []
    for cond, t, base, _ in played(exp, totals):
        if "profile_games" not in t:
            continue
        for f in figures(cond, t):
            rows.append({**base, "players": cond.players, **f})
    cols = base_columns(exp) + ["players"] + COLUMNS
    df = pd.DataFrame(rows, columns=list(dict.fromkeys(cols)))
    df["round"] = df["round"].astype("Int64")
    df["ci_unit"] = "game"  # every CI takes the game as its unit (docs/rules.md E)
    return {"profile": df}


def describe(fig: str, buoy: str = "", r=None) -> str:
    return WORDS[fig].format(r=r, b=buoy)


def differences(a: list[dict], b: list[dict]) -> list[dict]:
    """Figure by figure, profile ``a`` minus profile ``b`` (two conditions' figures, the
    same strategy name or both the table's) with the unpaired 95% CI of the difference
    (the two sets of games are different games: their standard errors add), ordered by the
    difference's size in units of the pooled spread of one observation (a decision for a
    share, a game for a per-game figure), largest first; per figure (and buoy) only its
    round with the largest."""
    key = lambda f: (f["figure"], f["buoy"], f["round"])  # noqa: E731
    bs = {key(f): f for f in b}
    out = []
    for fa in a:
        fb = bs.get(key(fa))
        if fb is None or any(math.isnan(x) for x in (fa["se"], fb["se"])):
            continue
        d = fa["estimate"] - fb["estimate"]
        se = math.sqrt(fa["se"] ** 2 + fb["se"] ** 2)
        df = min(fa["games"], fb["games"]) - 1
        z = crit(df) if df >= 1 else math.nan
        sd = math.sqrt((fa["sd"] ** 2 + fb["sd"] ** 2) / 2)
        size = abs(d) / sd if sd > 0 else 0.0
        out.append({"figure": fa["figure"], "buoy": fa["buoy"], "round": fa["round"],
                    "unit": fa["unit"], "a": fa["estimate"], "a_low": fa["ci_low"],
                    "a_high": fa["ci_high"], "b": fb["estimate"], "b_low": fb["ci_low"],
                    "b_high": fb["ci_high"], "difference": d, "diff_ci_low": d - z * se,
                    "diff_ci_high": d + z * se, "size": size, "games_a": fa["games"],
                    "games_b": fb["games"]})
    out.sort(key=lambda r: -r["size"])
    seen, best = set(), []
    for r in out:
        if (r["figure"], r["buoy"]) not in seen:
            seen.add((r["figure"], r["buoy"]))
            best.append(r)
    return best


DIFF_COLUMNS = ["group", "players", "figure_disagreed", "strongest", "second", "rank",
                "behaviour", "figure", "buoy", "round", "unit", "strongest_estimate",
                "strongest_ci_low", "strongest_ci_high", "second_estimate", "second_ci_low",
                "second_ci_high", "difference", "diff_ci_low", "diff_ci_high", "size",
                "games_strongest", "games_second", "ci_unit", "trace"]
TOP_BEHAVIOURS = 3  # the behaviours named beside a figure the two strongest levels disagree on


def panel_differences(exp, totals, convergence) -> pd.DataFrame:
    """Where the skill trace does not find the two strongest levels agreeing on a headline
    figure (analysis/panel.py, converged "no": they disagree; "undecided": too few games to
    tell): the behaviours that differ most between them (:func:`differences`, only those
    whose CI excludes 0), at most TOP_BEHAVIOURS; ``trace`` is the trace's word."""
    rows = []
    if convergence is None or not len(convergence):
        return pd.DataFrame(rows, columns=DIFF_COLUMNS)
    by_group: dict = {}
    for c in exp.conditions:
        if totals[c.index] is not None and "profile_games" in totals[c.index]:
            by_group.setdefault(group_key(c), {})[c.level] = c
    for r in convergence[convergence["converged"].isin(("no", "undecided"))].itertuples():
        for levels in by_group.values():
            first = next(iter(levels.values()))
            if group_name(first) != r.group or first.players != r.players:
                continue
            if r.strongest not in levels or r.second not in levels:
                continue
            a, b = levels[r.strongest], levels[r.second]
            diffs = [d for d in differences(figures(a, totals[a.index]),
                                            figures(b, totals[b.index]))
                     if d["diff_ci_low"] > 0 or d["diff_ci_high"] < 0]
            for i, d in enumerate(diffs[:TOP_BEHAVIOURS]):
                rows.append({
                    "group": r.group, "players": r.players, "figure_disagreed": r.figure,
                    "strongest": r.strongest, "second": r.second, "rank": i + 1,
                    "behaviour": describe(d["figure"], d["buoy"], d["round"]),
                    "figure": d["figure"], "buoy": d["buoy"], "round": d["round"],
                    "unit": d["unit"], "strongest_estimate": d["a"],
                    "strongest_ci_low": d["a_low"], "strongest_ci_high": d["a_high"],
                    "second_estimate": d["b"], "second_ci_low": d["b_low"],
                    "second_ci_high": d["b_high"], "difference": d["difference"],
                    "diff_ci_low": d["diff_ci_low"], "diff_ci_high": d["diff_ci_high"],
                    "size": d["size"], "games_strongest": d["games_a"],
                    "games_second": d["games_b"], "ci_unit": "game",
                    "trace": r.converged})
    df = pd.DataFrame(rows, columns=DIFF_COLUMNS)
    df["round"] = df["round"].astype("Int64")
    return df
