"""The overfishing section: how often a game ends by overfishing, and in which round."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from fishing2sim.report.common import (TITLES, Context, ci, colour, finish, int_, panel_title, pp_width_note,
                     rows_of, scale_to, sentence, wrap, yerr)
from fishing2sim.report.layout import legend_outside


def plot(ctx: Context, df: pd.DataFrame):
    if ctx.sweep:
        fig = _plot_grouped(ctx, df)
        fig.suptitle(wrap(f"{ctx.exp.name}: share of games ending by overfishing (95% CI); "
                          f"{ctx.games_text(df)}", 90), fontsize=11)
        return fig
    c = ctx.indices[0] if ctx.indices else None
    rows = rows_of(df, "overfished_in_round_share", c).dropna(subset=["round"])
    rows = rows.sort_values("round")
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    x = rows["round"].astype(int).to_numpy()
    y = rows["estimate"].astype(float).to_numpy() * 100
    ax.bar(x, y, yerr=yerr(rows, 100), capsize=4, color=colour(0), alpha=0.85)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    overall = rows_of(df, "overfished_share", c, round=None)
    tot = f"; overall {ci(overall.iloc[0], pct=True)}" if len(overall) else ""
    ax.set(xlabel="round in which the game ended by overfishing", ylabel="games (%)",
           title=wrap(f"{ctx.exp.name}: games ending by overfishing, by round (95% CI); "
                      f"{ctx.games_text(df)}{tot}", 70))
    scale_to(ax, [0], rows["ci_high"].astype(float) * 100, top=100)
    finish((ax,), legend=False)
    return fig


def _plot_grouped(ctx: Context, df: pd.DataFrame):
    """Bars grouped deck × players: the player counts on the x axis, within each one a bar
    per deck (the condition's name without its player count), a colour per deck in the
    legend. Without a players sweep: a bar per condition, named on the x axis."""
    groups = ctx.player_groups
    decks: list[str] = []  # in the conditions' order
    for c in ctx.indices:
        d = ctx.label(c, drop_players=groups != [None])
        if d not in decks:
            decks.append(d)
    by_players = groups != [None]
    m = len(decks) if by_players else 1
    n_x = len(groups) if by_players else len(ctx.indices)
    fig, ax = plt.subplots(figsize=(max(6.5, n_x * (0.55 * m + 0.9) + 1.5), 5.2))
    width = 0.8 / m
    highs = [0.0]
    for c in ctx.indices:
        rows = rows_of(df, "overfished_share", c, round=None)
        if not len(rows):
            continue
        if by_players:
            j = decks.index(ctx.label(c, drop_players=True))
            x = groups.index(ctx.players(c)) + (j - (m - 1) / 2) * width
        else:
            j = x = ctx.indices.index(c)
        y = float(rows["estimate"].iloc[0]) * 100
        hi = float(rows["ci_high"].iloc[0]) * 100
        ax.bar([x], [y], yerr=yerr(rows.iloc[:1], 100), capsize=4 if m <= 4 else 2,
               width=width * 0.9 if by_players else 0.65, color=colour(j), alpha=0.9)
        ax.annotate(f"{y:.1f}%", (x, hi), textcoords="offset points", xytext=(0, 3),
                    ha="center", fontsize=8 if m <= 3 else 7,
                    rotation=0 if m <= 3 else 90, va="bottom")
        highs.append(hi)
    if by_players:
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([panel_title(p) for p in groups])
        ax.set_xlabel("players")
        handles = [Patch(facecolor=colour(j), alpha=0.9) for j in range(m)]
        legend_outside(ax, handles, [wrap(d, 30) for d in decks])
    else:
        ax.set_xticks(range(len(ctx.indices)))
        ax.set_xticklabels([wrap(ctx.label(c), 16) for c in ctx.indices], fontsize=8)
    ax.set_ylabel("games ending by overfishing (%)")
    scale_to(ax, [0], [h * (1.1 if m > 3 else 1.0) for h in highs], top=100)
    finish((ax,), legend=False)
    return fig


def section(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc) -> None:
    doc.h(2, TITLES["overfishing"])
    head = ["condition", "n", "overfished share", "by a draw-1-card", "mean rounds played"]
    rows, shown, paras, plain = [], [], [], []
    for c in ctx.indices:
        o = rows_of(df, "overfished_share", c, round=None)
        d = rows_of(df, "overfished_by_draw_1_card_share", c, round=None)
        m = rows_of(df, "mean_rounds_played", c, round=None)
        if not (len(o) or len(d) or len(m)):
            continue
        shown.append(o)
        n = o["n"].iloc[0] if len(o) else (m["n"].iloc[0] if len(m) else None)

        def cell(r, pct):
            return ci(r.iloc[0], pct=pct, table=True) if len(r) else "–"

        rows.append([ctx.label(c), int_(n), cell(o, True), cell(d, True), cell(m, False)])
        if len(o):
            est = float(o["estimate"].iloc[0]) * 100
            plain.append(f"{est:.0f}%" + (f" ({ctx.label(c)})" if ctx.sweep else ""))
            rr = rows_of(df, "overfished_in_round_share", c).dropna(subset=["round"])
            peak = ""
            if len(rr) and float(rr["estimate"].max()) > 0:
                p = rr.sort_values(["estimate", "round"], ascending=[False, True]).iloc[0]
                peak = (f"; most often in round {int(p['round'])}: "
                        f"{ci(p, pct=True, unit=' of games', n=p['n'])}")
            who = f"**{ctx.label(c)}**: " if ctx.sweep else ""
            paras.append(sentence(who, f"{ci(o.iloc[0], pct=True, unit=' of games', n=n)} "
                         f"end by overfishing{peak}"))
    if plain:
        doc.p("Games that end early because the ocean runs out: " + ", ".join(plain) + ".")
    doc.p("Share of games that end because the ocean cannot supply a draw (the overfishing "
          "rule of docs/rules.md), how many of them at a draw-1-card buoy, and in which round.")
    for p in paras:
        doc.p(p)
    pp_width_note(doc, shown, "the overfished share")
    doc.img("Overfishing", plot_file)
    doc.table(head, rows)
    if not ctx.sweep and ctx.indices:
        rr = rows_of(df, "overfished_in_round_share", ctx.indices[0]).dropna(subset=["round"])
        if len(rr):
            rr = rr.sort_values("round")
            doc.p("By round:")
            doc.table(["round", "n", "games overfished in this round"], [
                [str(int(r["round"])), int_(r["n"]), ci(r, pct=True, table=True)]
                for _, r in rr.iterrows()])


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = "overfishing"  # the analyses: entry it reports (analysis/overfishing.py)
PLOTS = (("overfishing", "plot", "overfishing.png"),)  # (table, this module's plot function, file)


def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    section(ctx, ctx.tables[ANALYSIS], plots.get("overfishing"), doc)
