"""The per-card section: what leaving each ocean card out of the deck does to the game, from
paired games (the same deal with and without the card), and the cards that move the game
most. Definitions: docs/rules.md E, "Per-card impact"; the tables: analysis/card_impact.py."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd

from fishing2sim.report.common import (
    Context,
    colour,
    figure_section,
    finish,
    fmt,
    int_,
    wrap,
)
from fishing2sim.analysis.card_impact import ALPHA
from fishing2sim.report.words import ADJUSTMENTS, effect, number

SHOWN = 12  # cards in the section's table per condition (all of them in cards_ranked.csv)
# (figure, panel title) of the plot's panels
PANELS = (("drawer_win_effect", "the win share of the player who drew it (pp), without "
           "the card minus with it"),
          ("overfishing_effect", "overfishing (pp), without the card minus with it"))


def _ranked(ctx: Context, c: int) -> pd.DataFrame:
    df = ctx.tables.get("cards_ranked")
    if df is None or not len(df):
        return pd.DataFrame()
    return df[df["condition"] == c].sort_values("rank")


def plot(ctx: Context, df: pd.DataFrame):
    """Per figure a panel: each card's effect with its 95% CI, the cards in the rank order of
    the first condition (the largest drawer effect on top), a colour per condition."""
    first = _ranked(ctx, ctx.indices[0])
    cards = list(first["card"])
    for c in ctx.indices[1:]:
        cards += [x for x in _ranked(ctx, c)["card"] if x not in cards]
    y = {card: len(cards) - i for i, card in enumerate(cards)}
    fig, axes = plt.subplots(1, len(PANELS), figsize=(12, max(4.0, 0.2 * len(cards) + 1.5)),
                             sharey=True)
    k = max(1, len(ctx.indices))
    for j, c in enumerate(ctx.indices):
        r = _ranked(ctx, c)
        off = (j - (k - 1) / 2) * 0.8 / k
        for ax, (fig_name, _) in zip(axes, PANELS):
            e = r[fig_name].astype(float) * 100
            lo = e - r[f"{fig_name}_ci_low"].astype(float) * 100
            hi = r[f"{fig_name}_ci_high"].astype(float) * 100 - e
            ax.errorbar(e, [y[x] + off for x in r["card"]], xerr=[lo.fillna(0), hi.fillna(0)],
                        fmt="o", capsize=2, markersize=3, color=colour(j),
                        label=wrap(ctx.label(c), 30) if ctx.sweep else None)
    for ax, (_, title) in zip(axes, PANELS):
        ax.axvline(0, color="grey", lw=1)
        ax.set_title(wrap(title + "; 95% CI", 50))
    axes[0].set_yticks(list(y.values()), list(y.keys()), fontsize=7)
    deals = ctx.games_text(df).replace("games", "deals")
    fig.suptitle(wrap(f"{ctx.exp.name}: each ocean card left out of the deck, on the same "
                      f"deals; {deals}", 100), fontsize=11)
    finish(axes, legend=ctx.sweep)
    return fig


def _pp(r, f) -> tuple:
    return (float(r[f]) * 100, float(r[f"{f}_ci_low"]) * 100, float(r[f"{f}_ci_high"]) * 100)


# the effects the plain lines speak of: figure -> (unit, what it moves, scale to the unit)
NAMED = {
    "drawer_win_effect": ("percentage points",
                          "the win share of the player who would have drawn it", 100.0),
    "overfishing_effect": ("percentage points", "overfishing", 100.0),
    "game_length_effect": ("rounds", "the game's length", 1.0),
    "leader_edge_effect": ("percentage points", "the leader edge", 100.0),
}
NAMED_MAX = 3  # cards named per figure (the largest surviving effects)


def survivors(r: pd.DataFrame, f: str) -> pd.DataFrame:
    """The cards whose effect ``f`` survives the family's adjustment (its adjusted p below
    0.05; every p itself with ``multiplicity: none``), the largest first."""
    p = r[f"{f}_p_adjusted"].astype(float)
    keep = r[p < ALPHA]
    return keep.assign(_s=-keep[f].astype(float).abs()).sort_values("_s").drop(columns="_s")


def _figure_lines(r: pd.DataFrame, f: str, method: str) -> list[str]:
    """The plain words of one figure: the surviving cards by name, or that none survives,
    with the family's size and the widest CI (no card named)."""
    unit, what, s = NAMED[f]
    fam = int(r[f"{f}_p_value"].notna().sum())
    if not fam:
        return []
    hit = survivors(r, f)
    adj = ADJUSTMENTS.get(method)
    how = f"{adj} over its {fam} cards" if adj else f"its {fam} cards judged one by one"
    out = []
    for _, x in hit.head(NAMED_MAX).iterrows():
        e, lo, hi = (float(x[f]) * s, float(x[f"{f}_ci_low"]) * s, float(x[f"{f}_ci_high"]) * s)
        text = effect(e, lo, hi, unit, what)
        tail = f"adjusted p = {float(x[f'{f}_p_adjusted']):.2g}, {int_(x[f'{f}_n'])} deals"
        text = text[:-1] + f"; {tail})" if text.endswith(")") else f"{text} ({tail})"
        out.append(f"Leaving out {x['card']} (tier {int(x['tier'])}) {text}.")
    others = r[r[f"{f}_p_value"].notna() & ~r.index.isin(hit.index)]
    if not len(others):
        return out
    hw = float(((others[f"{f}_ci_high"] - others[f"{f}_ci_low"]).astype(float) * s / 2).max())
    few = int(others[f"{f}_n"].min())
    rest = (f"{len(hit) or 'none'} of the {fam} cards' effects on {what} "
            f"{'survives' if len(hit) == 1 else 'survive'} ({how})"
            + (f"; the other {fam - len(hit)} are" if len(hit) else ": they are")
            + f" not told apart from none, their 95% CIs reaching at most ±{number(hw, hw)} "
            f"{unit} (the fewest deals behind one: {few:,})")
    if len(hit) > NAMED_MAX:
        rest = f"{len(hit) - NAMED_MAX} more survive: cards_ranked.csv. " + rest
    out.append(rest[:1].upper() + rest[1:] + ".")
    return out


def _plain(ctx: Context, c: int) -> list[str]:
    """The plain answers of one condition: per effect the cards whose effect survives the
    family's adjustment (only those are named), the others' widest CI; the descriptive
    figure."""
    r = _ranked(ctx, c)
    if not len(r):
        return []
    out = []
    for f in NAMED:
        if f"{f}_p_adjusted" in r.columns:
            out += _figure_lines(r, f, ctx.exp.multiplicity)
    best = r.sort_values("catcher_win_share", ascending=False).iloc[0]
    if not math.isnan(float(best["catcher_win_share"])):
        out.append(f"Descriptive, confounded (better players catch more cards): whoever "
                   f"catches {best['card']} wins "
                   + fmt(best["catcher_win_share"], best["catcher_win_share_ci_low"],
                         best["catcher_win_share_ci_high"], pct=True)
                   + f" of the games (fair share {100 / ctx.players(c):.0f}%); not the "
                   "card's effect.")
    return out


def _p(x, f) -> str:
    p = float(x[f"{f}_p_adjusted"])
    return "–" if math.isnan(p) else f"{p:.2g}"


def _cell(x, f, pct=True) -> str:
    return fmt(x[f], x[f"{f}_ci_low"], x[f"{f}_ci_high"], pct=pct, table=True,
               default=3).replace("%", " pp" if f.endswith("effect") else "%", 1)


def _intro(ctx: Context) -> str:
    """The section's opening paragraph, its words on the family rule last."""
    ranked = ctx.tables.get("cards_ranked")
    sizes = sorted({int(n) for n in ranked.groupby("condition").size()}) \
        if ranked is not None and len(ranked) else []
    size = " or ".join(str(k) for k in sizes) or "no"
    adj = ADJUSTMENTS.get(ctx.exp.multiplicity)
    rule = (f"its p after {adj} over the family" if adj else
            "its own p (`multiplicity: none`: among so many cards some CIs exclude 0 by "
            "chance)")
    return ("What each ocean card does to the game: every deal is played with the standard deck "
            "and again without the card, on the same deal (the same starting hands, the same "
            "ocean order with that card taken out, the same round-1 leader and the same random "
            "streams), so each effect is a paired difference, without the card minus with it. "
            "The drawer is the player who drew the card from the ocean in the game with it. "
            "Ranked by the size of the drawer effect. Definitions: docs/rules.md E, "
            "\"Per-card impact\"; every card: cards_ranked.csv. "
            f"Each figure's per-card effects in one condition are one family ({size} "
            f"cards); the words name a card only where {rule} is below 0.05 "
            "(`multiplicity:`, as for the contrasts). The 95% CIs shown are each card's own; "
            "cards.csv and cards_ranked.csv hold both p-values (`p_value`, `p_adjusted`) and "
            "each effect's own n (the drawer effect's: the deals whose standard game drew "
            "the card). The CIs are built for differences that are mostly 0 (Tango's score "
            "interval; for the rounds a t interval with a floor), so none has zero width.")


def section(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc) -> None:
    figure_section(ctx, doc, "cards", _intro(ctx), lambda c: _plain(ctx, c), "Per-card impact",
                   plot_file)
    for c in ctx.indices:
        r = _ranked(ctx, c)
        if not len(r):
            continue
        rows = [[str(int(x["rank"])), str(x["card"]), str(int(x["tier"])),
                 _cell(x, "drawer_win_effect"), int_(x["drawer_win_effect_n"]),
                 _p(x, "drawer_win_effect"), _cell(x, "overfishing_effect"),
                 _p(x, "overfishing_effect"), _cell(x, "game_length_effect", pct=False),
                 _cell(x, "leader_edge_effect"), int_(x["n"]),
                 _cell(x, "catcher_win_share")]
                for _, x in r.head(SHOWN).iterrows()]
        if ctx.sweep:
            doc.p(f"{ctx.label(c)}, the {min(SHOWN, len(r))} cards that move the game most:")
        doc.table(["rank", "card", "tier", "drawer's win share", "drawn (deals)",
                   "adjusted p", "overfishing", "adjusted p", "rounds", "leader edge",
                   "deals", "catcher wins (confounded)"], rows)


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = "cards"  # the analyses: entry it reports (analysis/card_impact.py)
PLOTS = (("cards", "plot", "cards.png"),)  # (table, this module's plot function, file)


def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    section(ctx, ctx.tables[ANALYSIS], plots.get("cards"), doc)
