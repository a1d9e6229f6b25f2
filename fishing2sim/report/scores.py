"""The final points of each strategy (scores.csv: the seat-games at each final score), drawn
as a step histogram per strategy and condition; part of the strategies section."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from fishing2sim.report.common import Context, colour, finish, panel_title, strategy_order, wrap
from fishing2sim.report.layout import legend_outside

STYLES = ("-", "--", ":", "-.")
BINS = 40  # at most this many bins over the range of final points


def bin_width(df: pd.DataFrame) -> int:
    lo, hi = int(df["points"].min()), int(df["points"].max())
    return max(1, math.ceil((hi - lo + 1) / BINS))


def plot(ctx: Context, df: pd.DataFrame):
    """A panel per player count; in it a step line per (condition, strategy): the share of
    that strategy's seat-games whose final points fall in each bin. A colour per condition
    (per strategy when the panel has one condition), a line style per strategy."""
    df = df[df["count"] > 0]
    groups = ctx.player_groups
    strategies = strategy_order(ctx, df["strategy"].astype(str).unique())
    w = bin_width(df)
    lo = int(df["points"].min()) // w * w
    edges = np.arange(lo, int(df["points"].max()) + w + 1, w)
    fig, axes = plt.subplots(1, len(groups), squeeze=False,
                             figsize=(max(6.5, 5.2 * len(groups)), 4.6), sharey=True)
    entries, styles = [], []  # the legend: (label, colour, line style)
    for ax, players in zip(axes[0], groups):
        conds = [c for c in ctx.group(players) if (df["condition"] == c).any()]
        by_condition = len(conds) > 1
        for i, c in enumerate(conds):
            sub = df[df["condition"] == c]
            for j, s in enumerate(strategies):
                rows = sub[sub["strategy"].astype(str) == s]
                if not len(rows):
                    continue
                counts, _ = np.histogram(rows["points"].astype(float), bins=edges,
                                         weights=rows["count"].astype(float))
                col = colour(i) if by_condition else colour(j)
                style = STYLES[j % len(STYLES)] if by_condition else "-"
                ax.stairs(counts / counts.sum() * 100, edges, color=col, linestyle=style,
                          linewidth=1.4)
                key = (wrap(ctx.label(c, drop_players=players is not None), 30), col, "-") \
                    if by_condition else (s, col, "-")
                if key not in entries:
                    entries.append(key)
                if by_condition and len(strategies) > 1 and (s, "grey", style) not in styles:
                    styles.append((s, "grey", style))
        ax.set(xlabel="final points", title=panel_title(players))
        ax.set_ylim(bottom=0)
    axes[0][0].set_ylabel(f"seat-games (%) per {w} point{'s' if w > 1 else ''}")
    finish(axes[0], legend=False)
    entries += styles
    legend_outside(axes[0][-1], [Line2D([], [], color=c, linestyle=ls) for _, c, ls in entries],
                   [lab for lab, _, _ in entries])
    fig.suptitle(f"{ctx.exp.name}: final points per strategy (the share of each strategy's "
                 f"seat-games); {ctx.games_text()}", fontsize=11)
    return fig


def section(ctx: Context, df: pd.DataFrame | None, plot_file: str | None, doc) -> None:
    """The plot's place in the strategies section (nothing without a plot)."""
    if df is None or not plot_file:
        return
    doc.h(3, "Final points")
    doc.p("How each strategy's final points are spread: the share of its seat-games (one "
          "seat in one game) at each final score, grouped in bins of "
          f"{bin_width(df[df['count'] > 0])} points; scores.csv holds every score's count.")
    doc.img("Final points per strategy", plot_file)


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = "strategies"  # written after the win shares, as analysis/scores.py is computed
# with them (analyses: [strategies])
PLOTS = (("scores", "plot", "scores.png"),)  # (table, this module's plot function, file)


def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    section(ctx, ctx.tables.get("scores"), plots.get("scores"), doc)
