"""The ocean-depletion section: cards left among games still running and over all games,
the share of games that end with an empty ocean, and survival (games still running)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from fishing2sim.report.common import (TITLES, Context, ci, colour, finish, hw_text, int_, isnan, max_hw, num,
                     panel_title, rows_of, scale_to, sentence, wrap)
from fishing2sim.report.layout import legend_outside
from fishing2sim.report.common import yerr

ALL_GAMES_NOTE = ("The ocean is counted two ways: among the games still running in a round, "
                  "and over all games, where a game that ended by overfishing counts as an "
                  "empty ocean from its end (it stops drawing, so it leaves the running "
                  "games' average).")


def plot(ctx: Context, df: pd.DataFrame):
    groups = ctx.player_groups
    fig, axes = plt.subplots(len(groups), 3, figsize=(15, 4.2 * len(groups)), squeeze=False)
    for g, players in enumerate(groups):
        ax1, ax2, ax3 = axes[g]
        conds = ctx.group(players)
        band = len(conds) <= 2
        top_left, top_mid = [], []
        for i, c in enumerate(conds):
            col = colour(i)
            lab = wrap(ctx.label(c, drop_players=players is not None), 40)
            mean = rows_of(df, "ocean_after_draws_mean", c).sort_values("round")
            allg = rows_of(df, "ocean_after_draws_mean_all", c).sort_values("round")
            if len(mean):
                r = mean["round"].astype(float).to_numpy()
                ax1.plot(r, mean["estimate"].astype(float), marker="o", color=col,
                         label=f"{lab} (running games)")
                top_left += list(rows_of(df, "ocean_after_draws_p95", c)["estimate"]
                                 if band else mean["estimate"])
                if band:
                    lo = rows_of(df, "ocean_after_draws_p05", c)[["round", "estimate"]]
                    hi = rows_of(df, "ocean_after_draws_p95", c)[["round", "estimate"]]
                    b = lo.merge(hi, on="round", suffixes=("_lo", "_hi")).sort_values("round")
                    if len(b):
                        ax1.fill_between(b["round"].astype(float),
                                         b["estimate_lo"].astype(float),
                                         b["estimate_hi"].astype(float), color=col, alpha=0.12,
                                         linewidth=0)
            if len(allg):
                ax1.plot(allg["round"].astype(float), allg["estimate"].astype(float),
                         marker="s", linestyle="--", color=col, label=f"{lab} (all games)")
            empty = rows_of(df, "ocean_empty_or_overfished_share", c).sort_values("round")
            if not len(empty):
                empty = rows_of(df, "ocean_empty_share", c).sort_values("round")
            if len(empty):
                off = (i - (len(conds) - 1) / 2) * 0.08
                ax2.errorbar(empty["round"].astype(float) + off,
                             empty["estimate"].astype(float) * 100,
                             yerr=_err(empty), marker="o", capsize=3, color=col, label=lab)
                top_mid += list(empty["ci_high"].astype(float) * 100)
            surv = rows_of(df, "round_reached_share", c).sort_values("round")
            if len(surv):
                ax3.step(surv["round"].astype(float), surv["estimate"].astype(float) * 100,
                         where="mid", marker="o", color=col, label=lab)
        ax1.set(xlabel="round", ylabel="cards left in the ocean",
                title=wrap(f"{panel_title(players, colon=True)}Ocean after each round's draws "
                           "(solid: running games; dashed: all games"
                           + ("; band: 5th–95th percentile)" if band else ")"), 55))
        scale_to(ax1, [0], top_left or [1])
        ax2.set(xlabel="round", ylabel="games (%)",
                title=wrap(f"{panel_title(players, colon=True)}Ocean empty or game overfished by round r, "
                           "all games (95% CI)", 55))
        scale_to(ax2, [0], top_mid or [1], top=102)
        ax3.set(xlabel="round", ylabel="games still running (%)",
                title=wrap(f"{panel_title(players, colon=True)}Survival: games still running at the "
                           "start of round r", 55))
        ax3.set_ylim(0, 102)
        for ax in (ax1, ax2, ax3):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        finish((ax1, ax2, ax3), legend=False)
        # one legend per row, right of its last panel: a colour per condition, and the two
        # line styles of the left panel
        handles = [Line2D([], [], color=colour(i), marker="o") for i in range(len(conds))]
        labels = [wrap(ctx.label(c, drop_players=players is not None), 40) for c in conds]
        handles += [Line2D([], [], color="grey", marker="o"),
                    Line2D([], [], color="grey", marker="s", linestyle="--")]
        labels += ["running games (left)", "all games (left)"]
        legend_outside(ax3, handles, labels, title=panel_title(players) or None)
    fig.suptitle(f"{ctx.exp.name}: ocean depletion — {ctx.games_text(df)}", fontsize=12)
    return fig


def _err(rows):
    return yerr(rows, 100)


def section(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc) -> None:
    doc.h(2, TITLES["depletion"])
    cc = ctx.sweep
    plain = _plain_answers(ctx, df)
    if plain:
        doc.p(" ".join(plain[:1]) if not cc else "In short: " + " ".join(plain))
    doc.p(ALL_GAMES_NOTE)
    _rounds(ctx, df, plot_file, doc)


def _plain_answers(ctx: Context, df: pd.DataFrame) -> list[str]:
    """The plain answer first: the last round, all games."""
    cc = ctx.sweep
    plain = []
    for c in ctx.indices:
        allg = rows_of(df, "ocean_after_draws_mean_all", c).dropna(subset=["round"])
        eo = rows_of(df, "ocean_empty_or_overfished_share", c).dropna(subset=["round"])
        if not len(allg):
            continue
        last = allg.sort_values("round").iloc[-1]
        who = f"**{ctx.label(c)}**: " if cc else ""
        txt = (f"at the end of round {int(last['round'])} the ocean holds "
               f"{num(last['estimate'])} cards on average over all games")
        if len(eo):
            e = eo.sort_values("round").iloc[-1]
            txt += f", and {float(e['estimate']) * 100:.0f}% of games have run it dry " \
                   "(empty ocean or overfished)"
        plain.append(sentence(who, txt))
    return plain


def _rounds(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc) -> None:
    """Each condition's paragraph, the CIs' widths, the plot and the table of rounds."""
    cc = ctx.sweep
    head = (["condition"] if cc else []) + [
        "round", "running games", "ocean left (running games)", "p05–p95",
        "ocean left (all games)", "empty or overfished (all games)",
        "empty ocean (all games)", "still running (survival)"]
    rows, paras, shown_mean, shown_empty = [], [], [], []
    for c in ctx.indices:
        mean = rows_of(df, "ocean_after_draws_mean", c).dropna(subset=["round"])
        allg = rows_of(df, "ocean_after_draws_mean_all", c).dropna(subset=["round"])
        empty = rows_of(df, "ocean_empty_share", c).dropna(subset=["round"])
        eo = rows_of(df, "ocean_empty_or_overfished_share", c).dropna(subset=["round"])
        surv = rows_of(df, "round_reached_share", c).dropna(subset=["round"])
        p05 = rows_of(df, "ocean_after_draws_p05", c)
        p95 = rows_of(df, "ocean_after_draws_p95", c)
        rounds = sorted({int(r) for r in pd.concat([mean["round"], empty["round"]]).dropna()})

        def cell(frame, r, pct=False):
            x = frame[frame["round"] == r]
            return ci(x.iloc[0], pct=pct, table=True) if len(x) else "–"

        for r in rounds:
            mr = mean[mean["round"] == r]
            lo = p05[p05["round"] == r]["estimate"]
            hi = p95[p95["round"] == r]["estimate"]
            rows.append(([ctx.label(c)] if cc else []) + [
                str(r), int_(mr["n"].iloc[0]) if len(mr) else "–", cell(mean, r),
                f"{num(lo.iloc[0])}–{num(hi.iloc[0])}" if len(lo) and len(hi)
                and not (isnan(lo.iloc[0]) or isnan(hi.iloc[0])) else "–",
                cell(allg, r), cell(eo, r, True), cell(empty, r, True), cell(surv, r, True)])
        shown_mean.append(mean)
        shown_empty.append(empty)
        bits = []
        if len(mean):
            last = mean.sort_values("round").iloc[-1]
            bits.append(f"after round {int(last['round'])}'s draws the games still running "
                        f"hold {ci(last, unit=' cards', n=last['n'])} on average")
        if len(allg):
            last = allg.sort_values("round").iloc[-1]
            bits.append(f"over all games {ci(last, unit=' cards', n=last['n'])}")
        if len(surv):
            s = surv.sort_values("round").iloc[-1]
            bits.append(f"{ci(s, pct=True, unit=' of games')} are still running at the start "
                        f"of round {int(s['round'])}")
        tiers = rows_of(df, "tier_reached_share", c).dropna(subset=["tier"])
        if len(tiers):
            tiers = tiers.sort_values("tier").groupby("tier", sort=True).tail(1)
            tb = ", ".join(f"tier {int(t['tier'])} {ci(t, pct=True, table=True)}"
                           for _, t in tiers.iterrows())
            bits.append(f"share of games in which a card of each tier is drawn "
                        f"(n = {int_(tiers['n'].max())}): {tb}")
        if bits:
            who = f"**{ctx.label(c)}**: " if cc else ""
            paras.append(sentence(who, "; ".join(bits)))
    for p in paras:
        doc.p(p)
    hw_m = max_hw(pd.concat(shown_mean)) if shown_mean else float("nan")
    hw_e = max_hw(pd.concat(shown_empty), 100) if shown_empty else float("nan")
    widths = [t for t in (hw_text(hw_m, " cards"), hw_text(hw_e, " pp")) if t]
    if widths:
        doc.p(f"95% CIs are at most {' (means) and '.join(widths)}"
              f"{' (shares)' if len(widths) == 2 else ''} wide.")
    doc.img("Ocean depletion", plot_file)
    doc.table(head, rows)


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = "depletion"  # the analyses: entry it reports (analysis/depletion.py)
PLOTS = (("depletion", "plot", "depletion.png"),)  # (table, this module's plot function, file)


def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    section(ctx, ctx.tables[ANALYSIS], plots.get("depletion"), doc)
