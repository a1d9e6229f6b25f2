"""The strategies section: win share per strategy (ties share the win), mean points, the
round-1 leader's edge and the win share by seat."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fishing2sim.report.common import (TITLES, Context, ci, colour, effect, finish, identities, int_, pp_ci,
                     pp_width_note, panel_title, rows_of, scale_to, sentence, strategy_order,
                     wrap, yerr)


def sees_every_hand_of(ctx: Context):
    """Whether a strategy (by the NAME the tables show) sees every hand: a cheater search
    bot (SEARCH = "cheater", as imported) of the lineups, whatever its NAME or file."""
    out = {i.name for c in ctx.conditions for i in identities(c) if i.sees_every_hand}
    return lambda s: s in out


def mixed(ctx: Context, df: pd.DataFrame) -> bool:
    """Whether any condition seats more than one strategy: only then do win shares per
    strategy say anything (one strategy in every seat wins exactly its fair share)."""
    ws = df[(df["metric"] == "win_share") & df["strategy"].notna() & df["seat"].isna()]
    return bool(len(ws)) and bool((ws.groupby("condition")["strategy"].nunique() > 1).any())


def _p_cell(test: pd.DataFrame, players) -> str:
    """The seat-equality test's p-value, or in words why there is none: too few games (the
    test needs more games than players), or games that all ended alike (no spread)."""
    if not len(test):
        return "–"
    p = float(test["estimate"].iloc[0])
    if p == p:
        return f"{p:.2g}"
    return "too few games" if float(test["n"].iloc[0]) <= (players or 5) else "no spread to test"


def seats_table(ctx: Context, df: pd.DataFrame, doc) -> list[str]:
    """The seats and the round-1 leader: per condition each seat's win share, the leader's
    win share and edge over the fair share, and the test of equal seats; returns the plain
    sentences on the leader's edge."""
    cc = ctx.sweep
    whole = df[df["strategy"].isna()]
    most = max((ctx.players(c) or 0 for c in ctx.indices), default=0)
    head = (["condition"] if cc else []) + ["round-1 leader's edge", "round-1 leader wins",
                                            "fair share", "seats equal? (p)"] + [
        f"seat {p}" for p in range(most)]
    rows, plain = [], []
    for c in ctx.indices:
        sub = whole[whole["condition"] == c]
        p = ctx.players(c)
        edge = rows_of(sub, "first_leader_edge", None, seat=None)
        lead = rows_of(sub, "first_leader_win_share", None, seat=None)
        test = rows_of(sub, "seat_equality_p_value", None, seat=None)
        if not len(lead):
            continue
        seats = sub[(sub["metric"] == "win_share") & sub["seat"].notna()].sort_values("seat")
        cells = [ci(r, pct=True, table=True) for _, r in seats.iterrows()]
        rows.append(([ctx.label(c)] if cc else []) + [
            pp_ci(edge.iloc[0]) if len(edge) else "–", ci(lead.iloc[0], pct=True, table=True),
            f"{100 / p:.1f}%" if p else "–",
            _p_cell(test, p)]
            + cells + ["–"] * (most - len(cells)))
        if len(edge):
            e = edge.iloc[0]
            who = f"**{ctx.label(c)}**: " if cc else ""
            plain.append(sentence(who, "the round-1 leader wins "
                                  f"{ci(lead.iloc[0], pct=True)} of games against a fair share "
                                  f"of {100 / p:.1f}%: " + effect(
                                      float(e["estimate"]) * 100, float(e["ci_low"]) * 100,
                                      float(e["ci_high"]) * 100, "pp", "its chances",
                                      up="leading first raises", down="leading first lowers"
                                  ).replace("has no measurable effect on its chances",
                                            "leading first has no measurable effect on its "
                                            "chances")))
    if rows:
        doc.p("The seats: each seat's win share, and the round-1 leader's edge (its win share "
              "minus the fair share, in percentage points, pp). *Seats equal?* is the p-value "
              "of the test that every seat wins equally often (small: the seat matters).")
        doc.table(head, rows)
    return plain


def plot(ctx: Context, df: pd.DataFrame):
    ws = df[(df["metric"] == "win_share") & df["strategy"].notna() & df["seat"].isna()]
    strategies = strategy_order(ctx, ws["strategy"].astype(str).unique())
    groups = ctx.player_groups
    m = max(len(strategies), 1)
    sizes = [max(len(ctx.group(p)), 1) for p in groups]
    fig, axes = plt.subplots(1, len(groups), squeeze=False,
                             figsize=(max(6.5, sum(max(0.6 * m, 1.25) * s + 2 for s in sizes)),
                                      5.2),
                             gridspec_kw={"width_ratios": sizes})
    width = 0.8 / m
    for ax, players in zip(axes[0], groups):
        conds = ctx.group(players)
        highs = [0.0]
        for j, s in enumerate(strategies):
            xs, ys, errs = [], [], []
            for g, c in enumerate(conds):
                r = ws[(ws["condition"] == c) & (ws["strategy"].astype(str) == s)]
                if not len(r):
                    continue
                xs.append(g + (j - (m - 1) / 2) * width)
                ys.append(float(r["estimate"].iloc[0]) * 100)
                errs.append(yerr(r.iloc[:1], 100)[:, 0])
                highs.append(float(r["ci_high"].iloc[0]) * 100)
            if not xs:
                continue
            err = np.array(errs).T
            ax.bar(xs, ys, width=width * 0.92, yerr=err, capsize=3, color=colour(j), label=s)
            for x, y, e in zip(xs, ys, err[1]):
                ax.annotate(f"{y:.1f}%", (x, y + e), textcoords="offset points", xytext=(0, 2),
                            ha="center", fontsize=7)
        fair_done = False
        for g, c in enumerate(conds):
            p = ctx.players(c)
            if p:
                ax.hlines(100 / p, g - 0.45, g + 0.45, colors="black", linestyles="dashed",
                          linewidth=1, label=None if fair_done else "fair share (1/players)")
                fair_done = True
                highs.append(100 / p)
        ax.set_xticks(range(len(conds)))
        ax.set_xticklabels([wrap(ctx.label(c, drop_players=players is not None)
                                 if ctx.sweep else "all games", 18) for c in conds], fontsize=8)
        ax.set(ylabel="win share (%)", title=panel_title(players))
        scale_to(ax, [0], highs, top=100)
    finish(axes[0], legend=True)  # one legend, right of the last panel
    fig.suptitle(wrap(f"{ctx.exp.name}: win share per strategy (95% CI; ties share the win); "
                      f"{ctx.games_text()}", 90), fontsize=11)
    return fig


def section(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc) -> None:
    doc.h(2, TITLES["strategies"])
    head = (["condition"] if ctx.sweep else []) + [
        "strategy", "n", "win share", "fair share (1/players)", "mean points"]
    sees_all = sees_every_hand_of(ctx)
    strat = df[df["strategy"].notna() & df["seat"].isna()]
    order = strategy_order(ctx, strat["strategy"].astype(str).unique())
    rows, shown, paras, plain = _by_condition(ctx, df, strat, order, sees_all)
    if mixed(ctx, df):
        doc.p("; ".join(plain) + "." if plain else
              "Win share per strategy (tied winners share the win) and mean final points.")
        seeing = [s for s in order if sees_all(s)]
        if seeing:
            doc.p(", ".join(f"`{s}`" for s in seeing) + (" sees" if len(seeing) == 1 else
                  " see") + " every hand (a search on the true deal, docs/search.md): not a "
                  "fair player, an upper bound on what searching could reach.")
        pp_width_note(doc, shown, "the win shares")
        doc.img("Win share per strategy", plot_file)
        doc.table(head, rows)
        for para in paras:
            doc.p(para)
        leader = seats_table(ctx, df, _Collect())
        doc.h(3, "Seats and the round-1 leader")
        for t in leader:
            doc.p(t)
        seats_table(ctx, df, doc)
    else:
        # one strategy in every seat: its win share is the fair share by construction, so
        # the table shows what does vary, the seats and the round-1 leader
        names = ", ".join(f"`{s}`" for s in order)
        doc.p(f"Every seat plays the same strategy ({names}), so each strategy wins exactly "
              "its fair share; what the games can show is whether the seat matters.")
        for t in seats_table(ctx, df, _Collect()):
            doc.p(t)
        seats_table(ctx, df, doc)
        for para in paras:
            doc.p(para)


def verdict(ctx: Context) -> str:
    """A tournament's verdict, the summary's first words: per condition, which strategies
    win more than the fair share (1/players), which less, which the games do not tell
    apart from it, each with its win share and 95% CI. Empty unless the lineup is mixed."""
    df = ctx.tables.get("strategies")
    if df is None or not len(df) or not mixed(ctx, df):
        return ""
    strat = df[df["strategy"].notna() & df["seat"].isna()]
    order = strategy_order(ctx, strat["strategy"].astype(str).unique())
    parts = []
    for c in ctx.indices:
        p = ctx.players(c)
        groups: dict = {"above": [], "below": [], "not told apart from": []}
        rows = []
        for s in order:
            w = rows_of(strat[strat["strategy"].astype(str) == s], "win_share", c)
            if len(w):
                rows.append((s, w.iloc[0]))
        if len(rows) < 2 or not p:
            continue
        for s, w in sorted(rows, key=lambda sw: -float(sw[1]["estimate"])):
            where = "above" if w["ci_low"] > 1 / p else "below" if w["ci_high"] < 1 / p \
                else "not told apart from"
            groups[where].append(f"`{s}` {ci(w, pct=True, table=True)}")
        said = "; ".join(f"{k} it: {', '.join(v)}" for k, v in groups.items() if v)
        who = f"**{ctx.label(c)}**: " if ctx.sweep else ""
        parts.append(f"{who}{'w' if who else 'W'}in shares against the fair share of {100 / p:.1f}% "
                     f"({p} players) — {said}")
    if not parts:
        return ""
    return ("**Who wins more than the fair share?** " + ". ".join(parts)
            + " (95% CIs in brackets; tied winners share the win).")


def _by_condition(ctx: Context, df: pd.DataFrame, strat: pd.DataFrame, order, sees_all):
    """The table's rows, the win-share rows shown, each condition's paragraph and the
    plain answers (who wins most often)."""
    cc = ctx.sweep
    rows, shown, paras, plain = [], [], [], []
    for c in ctx.indices:
        sub = strat[strat["condition"] == c]
        p = ctx.players(c)
        best = None
        for s in order:
            ss = sub[sub["strategy"].astype(str) == s]
            w = rows_of(ss, "win_share")
            m = rows_of(ss, "mean_points")
            if not (len(w) or len(m)):
                continue
            shown.append(w)
            n = w["n"].iloc[0] if len(w) else m["n"].iloc[0]
            rows.append(([ctx.label(c)] if cc else []) + [
                f"{s} (sees every hand)" if sees_all(s) else s, int_(n),
                ci(w.iloc[0], pct=True, table=True) if len(w) else "–",
                f"{100 / p:.1f}%" if p else "–",
                ci(m.iloc[0], table=True) if len(m) else "–"])
            if len(w) and (best is None or w["estimate"].iloc[0] > best[1]["estimate"]):
                best = (s, w.iloc[0])
        bits = []
        if best is not None and len(sub["strategy"].unique()) > 1:
            s, w = best
            clear = p and float(w["ci_low"]) > 1 / p
            plain.append(f"`{s}` wins most often{f' ({ctx.label(c)})' if cc else ''}: "
                         f"{float(w['estimate']) * 100:.1f}% of its games"
                         + (", clearly above the fair share" if clear else ""))
            bits.append(f"`{s}` wins most often, "
                        f"{ci(w, pct=True, unit=' of its games', n=w['n'])}"
                        + (f", against a fair share of {100 / p:.1f}%" if p else ""))
        elif len(sub):
            m = rows_of(sub, "mean_points")
            if len(m):
                bits.append(f"the mean final score is {ci(m.iloc[0], unit=' points')}")
        whole = df[(df["condition"] == c) & df["strategy"].isna()]
        for metric, text, pct in (
            ("points_spread_mean", "the points spread (max − min) averages", False),
            ("completed_share", "games completed", True),
        ):
            r = rows_of(whole, metric, None, seat=None)
            if len(r):
                r = r.iloc[0]
                bits.append(f"{text} {ci(r, pct=pct, unit='' if pct else ' points', n=r['n'])}")
        if bits:
            who = f"**{ctx.label(c)}**: " if cc else ""
            paras.append(sentence(who, "; ".join(bits)))
    return rows, shown, paras, plain


class _Collect:
    """A document that keeps nothing (to ask seats_table for its sentences first)."""

    def p(self, text):
        pass

    def table(self, head, rows):
        pass


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = "strategies"  # the analyses: entry it reports (analysis/strategies.py)
PLOTS = (("strategies", "plot", "win_shares.png"),)  # (table, this module's plot function, file)


def plotted(ctx: Context, df: pd.DataFrame) -> bool:
    """The win shares are drawn only for lineups that mix strategies."""
    return mixed(ctx, df)

def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    section(ctx, ctx.tables[ANALYSIS], plots.get("strategies"), doc)
