"""The per-card tables (docs/rules.md E, "Per-card impact"): for each ocean card, what
leaving it out of the deck does, from paired games (the same deal with and without the
card, fishing2sim/engine/cards.py), each effect the game without the card minus the game
with it, with the normal 95% CI of the mean of the per-deal differences:

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
most first). Asked for with ``analyses: [cards]``; the totals are run/cards.py's ``cards_*``.
The report's section: report/cards.py."""
from __future__ import annotations

import math

import pandas as pd

from fishing2sim.analysis.common import base_columns, frame, played, row
from fishing2sim.analysis.stats import WIN_UNIT, mean_ci, wilson
from fishing2sim.engine.constants import F_TIER

ANALYSIS = "cards"
DEAL = "deal"  # the CI's unit: a deal, played with and without the card
# the paired effects: metric -> (totals key, the count behind it, scale)
EFFECTS = {
    "overfishing_effect": ("cards_over", "cards_n", 1.0),
    "drawer_win_effect": ("cards_drawer", "cards_drawn", WIN_UNIT),
    "game_length_effect": ("cards_rounds", "cards_n", 1.0),
    "leader_edge_effect": ("cards_lead", "cards_n", WIN_UNIT),
}
RANK_BY = "drawer_win_effect"
RANKED_FIGURES = (*EFFECTS, "catcher_win_share")


def widest_half_width(cond, t) -> float:
    """The widest 95% CI half-width of the condition's cards' overfishing effects (the
    precision target ``card_overfishing``); nan before two deals."""
    if "cards_n" not in t or not cond.cards:
        return math.nan
    widest = 0.0
    for c in cond.cards:
        n = float(t["cards_n"][c])
        _, lo, hi = mean_ci(*t["cards_over"][c].astype(float), n)
        if math.isnan(lo):
            return math.nan
        widest = max(widest, (hi - lo) / 2)
    return widest


def card_rows(out, cond, t, base, n) -> None:
    """The rows of one condition: its cards' effects, levels and descriptive figure."""
    for c in cond.cards:
        m = int(t["cards_n"][c])
        if m == 0:
            continue
        keys = dict(card=cond.deck.names[c], tier=int(cond.deck.arrays[c, F_TIER]))
        for metric, (key, count, scale) in EFFECTS.items():
            k = int(t[count][c])
            if k:
                row(out, base, metric, k, *mean_ci(*t[key][c].astype(float), k, scale),
                    ci_unit=DEAL, **keys)
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


def ranked(exp, df: pd.DataFrame) -> pd.DataFrame:
    """A row per condition and card, its figures side by side, ranked within the condition
    by the size of its drawer effect (the largest first; nan last)."""
    keys = base_columns(exp)
    cols = keys + ["rank", "card", "tier", "n"]
    for f in RANKED_FIGURES:
        cols += [f, f"{f}_ci_low", f"{f}_ci_high"]
    rows = []
    for (cond, card), g in df.groupby(["condition", "card"], sort=False):
        r = {k: g.iloc[0][k] for k in keys}
        r.update(card=card, tier=int(g.iloc[0]["tier"]),
                 n=int(g.loc[g["metric"] == "overfishing_effect", "n"].max()))
        for f in RANKED_FIGURES:
            x = g[g["metric"] == f]
            e = x.iloc[0] if len(x) else None
            r.update({f: e["estimate"] if e is not None else math.nan,
                      f"{f}_ci_low": e["ci_low"] if e is not None else math.nan,
                      f"{f}_ci_high": e["ci_high"] if e is not None else math.nan})
        rows.append(r)
    out = pd.DataFrame(rows, columns=[c for c in cols if c != "rank"])
    if not len(out):
        return pd.DataFrame(columns=cols)
    size = out[RANK_BY].abs().fillna(-1.0)
    out = out.assign(_s=-size).sort_values(["condition", "_s", "card"], kind="mergesort")
    out["rank"] = out.groupby("condition").cumcount() + 1
    return out.drop(columns="_s")[cols].reset_index(drop=True)


def tables(exp, totals) -> dict:
    out: list = []
    for cond, t, base, n in played(exp, totals):
        if "cards_n" in t:
            card_rows(out, cond, t, base, n)
    df = frame(out, exp, ["card", "tier"])
    df["tier"] = df["tier"].astype("Int64")
    return {"cards": df, "cards_ranked": ranked(exp, df)}

