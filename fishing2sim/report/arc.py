"""The game-arc section: does the leader keep the lead, how often the player in last place
comes back, how close the finishes are, and the observational figure of the leader rule (the
player with the fewest points leads the next round). Definitions: docs/rules.md E, "Game
arc"; the table: analysis/arc.py."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import MaxNLocator

from fishing2sim.report.common import (
    Context,
    ci,
    colour,
    figure_section,
    finish,
    int_,
    rows_of,
    scale_to,
    wrap,
    yerr,
)

# (metric, panel, line style, legend text without a sweep)
LINES = (("leader_win_share", 0, "-", "the leader after round r wins"),
         ("comeback_share", 1, "-", "a player last after round r wins (comeback)"),
         ("fewest_points_win_share", 1, ":",
          "the fewest points after round r (leads round r+1) wins; observational"))


def _by_round(df, metric, c):
    return rows_of(df, metric, c).dropna(subset=["round"]).sort_values("round")


def plot(ctx: Context, df: pd.DataFrame):
    """Left: the leader's win share by round; right: the comeback share (solid) and the
    fewest-points player's win share (dotted); a colour per condition, the fair shares
    dashed."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.0), sharey=True)
    highs = [0.0]
    for j, c in enumerate(ctx.indices):
        for metric, panel, style, text in LINES:
            rows = _by_round(df, metric, c)
            if not len(rows):
                continue
            x = rows["round"].astype(int).to_numpy()
            y = rows["estimate"].astype(float).to_numpy() * 100
            # a sweep: one legend entry per condition (its solid line), the styles in the titles
            label = wrap(ctx.label(c), 30) if ctx.sweep and style == "-" and panel == 0 \
                else (None if ctx.sweep else wrap(text, 34))
            axes[panel].errorbar(x, y, yerr=yerr(rows, 100), fmt="o" + style, capsize=3,
                                 color=colour(j), label=label, markersize=4)
            highs += list(rows["ci_high"].astype(float) * 100)
    fair = sorted({ctx.players(c) for c in ctx.indices if ctx.players(c)})
    for ax in axes:
        for p in fair:
            ax.axhline(100 / p, color="grey", ls="--", lw=1,
                       label=f"fair share 1/{p} = {100 / p:.0f}%")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("after round r")
    axes[0].set_ylabel("games won (%)")
    axes[0].set_title(wrap("the leader after round r (the most points; k tied count 1/k "
                           "each) wins; 95% CI", 60))
    axes[1].set_title(wrap("solid: a player last after round r wins (comeback); dotted: the "
                           "fewest points after round r (leads round r+1) wins, "
                           "observational; 95% CI", 60))
    fig.suptitle(wrap(f"{ctx.exp.name}: the game's arc; {ctx.games_text(df)}", 100),
                 fontsize=11)
    scale_to(axes[0], [0], highs, top=100)
    finish(axes, legend=True)
    return fig


def _first(df, metric, c, **eq):
    rows = rows_of(df, metric, c, **eq)
    return rows.iloc[0] if len(rows) else None


def _plain(ctx: Context, df, c) -> list[str]:
    """The plain answers of one condition: the leader early and late, lead changes,
    comebacks, the margin, the observational leader-rule figure."""
    out = []
    p = ctx.players(c)
    fair = f"{100 / p:.0f}%" if p else "1/players"
    lead = _by_round(df, "leader_win_share", c)
    if len(lead):
        early, late = lead.iloc[0], lead.iloc[-1]
        mid = lead.iloc[len(lead) // 2]
        parts = [f"after round {int(r['round'])}, {ci(r, pct=True)}"
                 for r in (early, mid, late) if r is not None]
        out.append(f"The leader after round r wins (fair share {fair}): "
                   + "; ".join(dict.fromkeys(parts)) + ".")
    lc = _first(df, "lead_changes_mean", c)
    if lc is not None:
        none = _first(df, "lead_changes_share", c, value=0)
        tail = f"; {ci(none, pct=True)} of games have none" if none is not None else ""
        out.append(f"A game has {ci(lc, default=2)} lead changes on average{tail}.")
    come = _by_round(df, "comeback_share", c)
    if len(come):
        mid = come.iloc[len(come) // 2]
        late = come.iloc[-1]
        out.append(f"A player last after round {int(mid['round'])} comes back to win "
                   f"{ci(mid, pct=True)} of games; last after round {int(late['round'])}, "
                   f"{ci(late, pct=True)}.")
    med = _first(df, "final_margin_p50", c)
    q1, q3 = _first(df, "final_margin_p25", c), _first(df, "final_margin_p75", c)
    tie = _first(df, "final_margin_share", c, value=0)
    mean = _first(df, "final_margin_mean", c)
    if med is not None and mean is not None:
        shared = f"; {ci(tie, pct=True)} of games end in a shared win" if tie is not None \
            else "; no game ends in a shared win"
        out.append(f"The winner's final margin over the runner-up: median {med['estimate']:.0f} "
                   f"points (middle half {q1['estimate']:.0f}–{q3['estimate']:.0f}), mean "
                   f"{ci(mean, default=1)}{shared}.")
    few = _by_round(df, "fewest_points_win_share", c)
    if len(few):
        mid = few.iloc[len(few) // 2]
        out.append(f"Observational, not the effect of the rule: the player with the fewest "
                   f"points after round {int(mid['round'])}, who leads round "
                   f"{int(mid['round']) + 1} and chooses trump, wins {ci(mid, pct=True)} "
                   f"(fair share {fair}); this mixes being behind with leading.")
    return out


# the section's opening paragraph
INTRO = ("How the lead moves during a game, from the points after every round (+3 and "
         "minus-3 buoys included): does the early leader keep the lead, how often does the "
         "player in last place come back, how close are the finishes? Definitions (ties "
         "included): docs/rules.md E, \"Game arc\".")


def section(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc) -> None:
    figure_section(ctx, doc, "arc", INTRO, lambda c: _plain(ctx, df, c), "Game arc", plot_file)
    for c in ctx.indices:
        lead = _by_round(df, "leader_win_share", c)
        if not len(lead):
            continue
        rows = []
        for _, r in lead.iterrows():
            k = int(r["round"])
            come = _first(df, "comeback_share", c, round=k)
            few = _first(df, "fewest_points_win_share", c, round=k)
            rows.append([str(k), int_(r["n"]), ci(r, pct=True, table=True),
                         ci(come, pct=True, table=True) if come is not None else "–",
                         ci(few, pct=True, table=True) if few is not None else "–"])
        if ctx.sweep:
            doc.p(f"{ctx.label(c)}, by round:")
        doc.table(["after round", "n", "leader wins", "last comes back",
                   "fewest points (leads next) wins, observational"], rows)
    head = ["lead changes"] + [ctx.label(c) for c in ctx.indices]
    vals = sorted({int(v) for v in df.loc[df["metric"] == "lead_changes_share", "value"]
                   .dropna()})
    table = []
    for v in vals:
        cells, seen = [], False
        for c in ctx.indices:
            r = _first(df, "lead_changes_share", c, value=v)
            cells.append(ci(r, pct=True, table=True) if r is not None else "–")
            seen = seen or (r is not None and float(r["estimate"]) > 0)
        if seen:  # (a number of changes no game of any condition had is left out)
            table.append([str(v)] + cells)
    if table:
        doc.p("Lead changes per game (share of games):")
        doc.table(head, table)


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = "arc"  # the analyses: entry it reports (analysis/arc.py)
PLOTS = (("arc", "plot", "arc.png"),)  # (table, this module's plot function, file)


def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    section(ctx, ctx.tables[ANALYSIS], plots.get("arc"), doc)
