"""The per-card section: what leaving each ocean card out of the deck does to the game, from
paired games (the same deal with and without the card), and the cards that move the game
most. Definitions: docs/rules.md E, "Per-card impact"; the tables: analysis/cards.py."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd

from fishing2sim.report.common import (
    TITLES,
    Context,
    colour,
    finish,
    fmt,
    int_,
    wrap,
)
from fishing2sim.report.words import effect

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


def _plain(ctx: Context, c: int) -> list[str]:
    """The plain answers of one condition: the cards whose removal moves their drawer's win
    share most, the range of the overfishing effects, the widest CI, the descriptive figure."""
    r = _ranked(ctx, c)
    if not len(r):
        return []
    out = []
    for _, x in r.head(3).iterrows():
        out.append(f"Leaving out {x['card']} (tier {int(x['tier'])}) "
                   + effect(*_pp(x, "drawer_win_effect"), "percentage points",
                            "the win share of the player who would have drawn it")
                   + "; it " + effect(*_pp(x, "overfishing_effect"), "percentage points",
                                      "overfishing") + ".")
    over = r["overfishing_effect"].astype(float) * 100
    hw = ((r["overfishing_effect_ci_high"] - r["overfishing_effect_ci_low"]).astype(float)
          * 50).max()
    lo_card = r.loc[over.idxmin(), "card"]
    hi_card = r.loc[over.idxmax(), "card"]
    out.append(f"Overfishing without one card: from {over.min():+.1f} pp ({lo_card}) to "
               f"{over.max():+.1f} pp ({hi_card}) against the standard deck, each to within "
               f"±{hw:.1f} pp (95% CI, the widest of the {len(r)} cards).")
    length = r["game_length_effect"].astype(float)
    out.append(f"Game length: from {length.min():+.3f} to {length.max():+.3f} rounds; the "
               f"leader edge: from {r['leader_edge_effect'].min() * 100:+.1f} to "
               f"{r['leader_edge_effect'].max() * 100:+.1f} pp.")
    best = r.sort_values("catcher_win_share", ascending=False).iloc[0]
    if not math.isnan(float(best["catcher_win_share"])):
        out.append(f"Descriptive, confounded (better players catch more cards): whoever "
                   f"catches {best['card']} wins "
                   + fmt(best["catcher_win_share"], best["catcher_win_share_ci_low"],
                         best["catcher_win_share_ci_high"], pct=True)
                   + f" of the games (fair share {100 / ctx.players(c):.0f}%); not the "
                   "card's effect.")
    return out


def _cell(x, f, pct=True) -> str:
    return fmt(x[f], x[f"{f}_ci_low"], x[f"{f}_ci_high"], pct=pct, table=True,
               default=3).replace("%", " pp" if f.endswith("effect") else "%", 1)


def section(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc) -> None:
    doc.h(2, TITLES["cards"])
    doc.p("What each ocean card does to the game: every deal is played with the standard deck "
          "and again without the card, on the same deal (the same starting hands, the same "
          "ocean order with that card taken out, the same round-1 leader and the same random "
          "streams), so each effect is a paired difference, without the card minus with it. "
          "The drawer is the player who drew the card from the ocean in the game with it. "
          "Ranked by the size of the drawer effect. Definitions: docs/rules.md E, "
          "\"Per-card impact\"; every card: cards_ranked.csv.")
    for c in ctx.indices:
        plain = _plain(ctx, c)
        if ctx.sweep and plain:
            doc.p(f"**{ctx.label(c)}**: " + " ".join(plain))
        else:
            for line in plain:
                doc.p(line)
    doc.img("Per-card impact", plot_file)
    for c in ctx.indices:
        r = _ranked(ctx, c)
        if not len(r):
            continue
        rows = [[str(int(x["rank"])), str(x["card"]), str(int(x["tier"])), int_(x["n"]),
                 _cell(x, "drawer_win_effect"), _cell(x, "overfishing_effect"),
                 _cell(x, "game_length_effect", pct=False), _cell(x, "leader_edge_effect"),
                 _cell(x, "catcher_win_share")]
                for _, x in r.head(SHOWN).iterrows()]
        if ctx.sweep:
            doc.p(f"{ctx.label(c)}, the {min(SHOWN, len(r))} cards that move the game most:")
        doc.table(["rank", "card", "tier", "deals", "drawer's win share", "overfishing",
                   "rounds", "leader edge", "catcher wins (confounded)"], rows)
