"""The per-card tables (docs/rules.md E, "Per-card impact"): for each ocean card, what
leaving it out of the deck does, from paired games (the same deal with and without the
card, fishing2sim/engine/card_impact.py), each effect the game without the card minus the game
with it, with a 95% CI built for differences that are mostly 0 (analysis/paired.py: Tango's
score interval for the flag and win-share effects, a t interval with a floor for game
length), never of zero width, and its p of no effect, raw (``p_value``) and adjusted
(``p_adjusted``) within its family: one figure's cards in one condition (51 to 59 cards),
by ``multiplicity:`` (Holm by default), as the contrasts are:

- ``overfishing_effect``: on the share of games that end by overfishing;
- ``drawer_win_effect``: on the win share of the player who drew the card from the ocean in
  the game with it (over the deals where someone drew it);
- ``game_length_effect``: on the rounds started;
- ``leader_edge_effect``: on the leader edge (the round-1 leader's win share; the same
  seat leads round 1 in both games);

and, descriptive and confounded (better players catch more cards), ``catcher_win_share``:
the win share of the player on whose fisher the card first landed. Also the levels:
``overfishing_without`` (the share overfished without the card), ``drawn_share`` and
``drawer_win_share`` (how often the card is drawn, and its drawer's win share with it).

Two tables: ``cards`` (tidy, a row per figure) and ``cards_ranked`` (a row per card, its
figures side by side, ranked by the size of the drawer effect: the cards that move the game
most first). Asked for with ``analyses: [cards]``; the totals are run/card_impact.py's ``cards_*``.
The report's section: report/card_impact.py."""
from __future__ import annotations

import math

import pandas as pd

from fishing2sim.analysis.common import base_columns, frame, played, row
from fishing2sim.analysis.paired import paired_mean_ci, paired_share_ci
from fishing2sim.analysis.stats import WIN_UNIT, adjust_p, mean_ci, wilson
from fishing2sim.engine.constants import F_TIER

ANALYSIS = "cards"
DEAL = "deal"  # the CI's unit: a deal, played with and without the card
# the paired effects: metric -> (totals key, the count behind it, scale, its interval)
EFFECTS = {
    "overfishing_effect": ("cards_over", "cards_n", 1.0, paired_share_ci),
    "drawer_win_effect": ("cards_drawer", "cards_drawn", WIN_UNIT, paired_share_ci),
    "game_length_effect": ("cards_rounds", "cards_n", 1.0, paired_mean_ci),
    "leader_edge_effect": ("cards_lead", "cards_n", WIN_UNIT, paired_share_ci),
}
RANK_BY = "drawer_win_effect"
RANKED_FIGURES = (*EFFECTS, "catcher_win_share")
ALPHA = 0.05  # an effect the report names: its adjusted p below this


def effect_ci(metric: str, s: float, ss: float, n: float) -> tuple[float, float, float, float]:
    """(estimate, 95% CI low, high, p of no effect) of one card's paired effect from the sum
    and sum of squares of its n per-deal differences (in the totals' unit)."""
    _, _, scale, ci = EFFECTS[metric]
    if n <= 0:
        return math.nan, math.nan, math.nan, math.nan
    return ci(float(s), float(ss), float(n), scale)


def widest_half_width(cond, t) -> float:
    """The widest 95% CI half-width of the condition's cards' overfishing effects (the
    precision target ``card_overfishing``, the report's own intervals); nan before two
    deals."""
    if "cards_n" not in t or not cond.cards:
        return math.nan
    widest = 0.0
    for c in cond.cards:
        n = float(t["cards_n"][c])
        if n < 2:
            return math.nan
        _, lo, hi, _ = effect_ci("overfishing_effect", *t["cards_over"][c], n)
        widest = max(widest, (hi - lo) / 2)
    return widest


def card_rows(out, cond, t, base, n) -> None:
    """The rows of one condition: its cards' effects, levels and descriptive figure."""
    for c in cond.cards:
        m = int(t["cards_n"][c])
        if m == 0:
            continue
        keys = dict(card=cond.deck.names[c], tier=int(cond.deck.arrays[c, F_TIER]))
        for metric, (key, count, _, _) in EFFECTS.items():
            k = int(t[count][c])
            if k:
                est, lo, hi, p = effect_ci(metric, *t[key][c], k)
                row(out, base, metric, k, est, lo, hi, ci_unit=DEAL, p_value=p, **keys)
        if m == n:  # (every deal of the condition was played without the card)
            row(out, base, "overfishing_without", m,
                *wilson(float(t["overfished"][0] + t["cards_over"][c, 0]), m), **keys)
        drawn = int(t["cards_drawn"][c])
        row(out, base, "drawn_share", m, *wilson(drawn, m), **keys)
        if drawn:
            row(out, base, "drawer_win_share", drawn,
                *mean_ci(*t["cards_drawer_std"][c].astype(float), drawn, WIN_UNIT), **keys)
        caught = int(t["cards_caught"][c])
        if caught:
            row(out, base, "catcher_win_share", caught,
                *mean_ci(*t["cards_catcher"][c].astype(float), caught, WIN_UNIT), **keys)


def ranked_columns(figure: str) -> tuple[str, ...]:
    """A figure's columns in ``cards_ranked``: its estimate, 95% CI, own n (the deals it was
    measured on) and, for an effect, its raw and adjusted p."""
    tail = ("_p_value", "_p_adjusted") if figure in EFFECTS else ()
    return tuple(f"{figure}{x}" for x in ("", "_ci_low", "_ci_high", "_n", *tail))


def ranked(exp, df: pd.DataFrame) -> pd.DataFrame:
    """A row per condition and card, its figures side by side (each with its own n), ranked
    within the condition by the size of its drawer effect (the largest first; nan last).
    ``n``: the deals played without the card."""
    keys = base_columns(exp)
    cols = keys + ["rank", "card", "tier", "n"]
    for f in RANKED_FIGURES:
        cols += list(ranked_columns(f))
    rows = []
    for (cond, card), g in df.groupby(["condition", "card"], sort=False):
        r = {k: g.iloc[0][k] for k in keys}
        r.update(card=card, tier=int(g.iloc[0]["tier"]),
                 n=int(g.loc[g["metric"] == "overfishing_effect", "n"].max()))
        for f in RANKED_FIGURES:
            x = g[g["metric"] == f]
            e = x.iloc[0] if len(x) else None
            names = ranked_columns(f)
            src = ("estimate", "ci_low", "ci_high", "n", "p_value", "p_adjusted")
            r.update({c: (e[k] if e is not None else (0 if k == "n" else math.nan))
                      for c, k in zip(names, src)})
        rows.append(r)
    out = pd.DataFrame(rows, columns=[c for c in cols if c != "rank"])
    if not len(out):
        return pd.DataFrame(columns=cols)
    size = out[RANK_BY].abs().fillna(-1.0)
    out = out.assign(_s=-size).sort_values(["condition", "_s", "card"], kind="mergesort")
    out["rank"] = out.groupby("condition").cumcount() + 1
    return out.drop(columns="_s")[cols].reset_index(drop=True)


def family_adjust(df: pd.DataFrame, method: str) -> pd.Series:
    """Each effect's p adjusted within its family: one figure's cards in one condition."""
    adj = pd.Series(math.nan, index=df.index, dtype=float)
    eff = df[df["metric"].isin(list(EFFECTS))]
    for _, g in eff.groupby(["condition", "metric"], sort=False):
        adj.loc[g.index] = adjust_p(g["p_value"].astype(float).tolist(), method)
    return adj


def tables(exp, totals) -> dict:
    out: list = []
    for cond, t, base, n in played(exp, totals):
        if "cards_n" in t:
            card_rows(out, cond, t, base, n)
    df = frame(out, exp, ["card", "tier"])
    df["tier"] = df["tier"].astype("Int64")
    df["p_value"] = pd.Series([r.get("p_value", math.nan) for r in out], index=df.index,
                              dtype=float)
    df["p_adjusted"] = family_adjust(df, exp.multiplicity)
    return {"cards": df, "cards_ranked": ranked(exp, df)}
