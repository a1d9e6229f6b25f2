"""The trump-choice section: policy gain (what the seats' own choices gain over a coin flip)
and the ceiling (the most any policy could gain) as a bracket — at least the cross-fitted
gain, at most half stakes — by round and pooled, and per strategy in mixed lineups."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from fishing2sim.analysis.stats import adjust_p, p_from_ci
from fishing2sim.report.common import (ADJUSTMENTS, TITLES, Context, ci, colour, effect, finish, fmt, hw_text, int_, isnan, max_hw, pp_ci,
                     rows_of, scale_to, sentence, strategy_order, wrap, yerr)


def plot(ctx: Context, df: pd.DataFrame):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    k = len(ctx.indices)
    nser = 3 * k
    width = 0.7
    highs = {ax1: [0.0], ax2: [0.0]}
    lows = {ax1: [0.0], ax2: [0.0]}
    for i, c in enumerate(ctx.indices):
        suffix = f" — {wrap(ctx.label(c), 30)}" if ctx.sweep else ""
        for ax, unit, scale in ((ax1, "points", 1.0), (ax2, "win", 100.0)):
            for j, (metric, name, marker, fill) in enumerate((
                (f"policy_gain_{unit}", "policy gain", "o", True),
                (f"stakes_half_low_{unit}", "ceiling, at least", "^", False),
                (f"stakes_half_{unit}", "ceiling, at most (half stakes)", "s", False),
            )):
                rows = rows_of(df, metric, c).dropna(subset=["round"]).sort_values("round")
                if not len(rows) and metric.startswith("stakes_half"):
                    full = rows_of(df, f"stakes_{unit}", c).dropna(subset=["round"])
                    rows = full.assign(estimate=full.estimate / 2, ci_low=full.ci_low / 2,
                                       ci_high=full.ci_high / 2).sort_values("round")
                if not len(rows):
                    continue
                s = 3 * i + j
                off = (s - (nser - 1) / 2) * (width / max(nser, 1)) if nser > 1 else 0.0
                col = colour(i) if k > 1 else colour(j)
                ax.errorbar(rows["round"].astype(float) + off,
                            rows["estimate"].astype(float) * scale,
                            yerr=yerr(rows, scale), marker=marker, linestyle="none",
                            capsize=3, color=col, markerfacecolor=col if fill else "white",
                            label=name + suffix)
                highs[ax] += list(rows["ci_high"].astype(float) * scale)
                lows[ax] += list(rows["ci_low"].astype(float) * scale)
    for ax in (ax1, ax2):
        ax.axhline(0, color="black", linewidth=0.8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        scale_to(ax, lows[ax], highs[ax])
    ax1.set(xlabel="round of the trump choice", ylabel="chooser's final points per choice",
            title="In points (95% CI)")
    ax2.set(xlabel="round of the trump choice",
            ylabel="chooser's win share per choice (percentage points)",
            title="In win share (95% CI)")
    fig.suptitle(wrap(f"{ctx.exp.name}: trump-choice value — policy gain (filled) and the "
                      "ceiling, the most any policy could gain (open: at least ▲, at most ■); "
                      f"{ctx.games_text()}", 100), fontsize=11)
    finish((ax1, ax2), legend=True)
    return fig


def plot_by_strategy(ctx: Context, df: pd.DataFrame):
    pooled = df[df["round"].isna() & (df["metric"] == "policy_gain_points")]
    strategies = strategy_order(ctx, pooled["strategy"].astype(str).unique())
    k, m = len(ctx.indices), max(len(strategies), 1)
    fig, ax = plt.subplots(figsize=(max(6.5, 0.6 * k * m + 3), 5))
    width = 0.8 / m
    lo_all, hi_all = [0.0], [0.0]
    for j, s in enumerate(strategies):
        xs, ys, errs = [], [], []
        for g, c in enumerate(ctx.indices):
            r = pooled[(pooled["condition"] == c) & (pooled["strategy"].astype(str) == s)]
            if not len(r):
                continue
            xs.append(g + (j - (m - 1) / 2) * width)
            ys.append(float(r["estimate"].iloc[0]))
            errs.append(yerr(r.iloc[:1])[:, 0])
            lo_all.append(float(r["ci_low"].iloc[0]))
            hi_all.append(float(r["ci_high"].iloc[0]))
        if xs:
            ax.bar(xs, ys, width=width * 0.92, yerr=np.array(errs).T, capsize=3,
                   color=colour(j), label=s)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(k))
    ax.set_xticklabels([wrap(ctx.label(c), 18) for c in ctx.indices], fontsize=8)
    ax.set(ylabel="policy gain per choice (points)",
           title=wrap(f"{ctx.exp.name}: each strategy's own trump choices, policy gain over a "
                      "coin flip (95% CI, pooled over rounds)", 70))
    scale_to(ax, lo_all, hi_all)
    finish((ax,), legend=True)
    return fig


def _pooled(df, metric, c):
    r = rows_of(df, metric, c, round=None)
    return r.iloc[0] if len(r) else None


def section(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc,
            by_strategy: pd.DataFrame | None = None, by_strategy_plot: str | None = None) -> None:
    doc.h(2, TITLES["trump_value"])
    plain = _plain_answers(ctx, df)
    if plain:
        doc.p(" ".join(plain))
    doc.p("For each trump choice the game is finished twice with each shade (two independent "
          "pairs). *Policy gain* is the mean of (chosen − other)/2: what the seats' own choices "
          "gain over a coin flip. The *ceiling*, the most any trump policy could gain per "
          "choice, is given as a bracket: *at least* the gain of choosing by one pair and "
          "scoring the choice on the other (cross-fitted, `stakes_half_low_points`), *at most* "
          "half the root mean square of light − dark (half stakes, `stakes_half_points`; the "
          "full value is `stakes_points`). Rows with an empty round pool all rounds analysed; "
          "their CIs take the game as the unit (a game's choices are not independent).")
    adj = round_family(ctx, df)
    head, rows, widths = _round_table(ctx, df, adj)
    if widths:
        doc.p(f"95% CIs of the policy gain are at most {' and '.join(widths)} wide. "
              + family_words(ctx, df, adj))
    doc.img("Trump-choice value", plot_file)
    doc.table(head, rows)
    if by_strategy is not None and len(by_strategy):
        _by_strategy(ctx, doc, by_strategy, by_strategy_plot)


def _plain_answers(ctx: Context, df: pd.DataFrame) -> list[str]:
    """Per condition: what the seats' own choices gain, and the ceiling's bracket."""
    plain = []
    for c in ctx.indices:
        pg = _pooled(df, "policy_gain_points", c)
        hs = _pooled(df, "stakes_half_points", c)
        low = _pooled(df, "stakes_half_low_points", c)
        if pg is None:
            continue
        who = f"**{ctx.label(c)}**: " if ctx.sweep else ""
        txt = "the seats' own trump choices " + effect(
            pg["estimate"], pg["ci_low"], pg["ci_high"], "points per choice",
            "the chooser's final points", up="raise", down="lower").replace(
            "has no measurable", "have no measurable")
        if hs is not None and low is not None:
            txt += ("; the most any trump policy could gain is at least "
                    f"{fmt(low['estimate'], low['ci_low'], low['ci_high'], unit=' points')} "
                    f"and at most {fmt(hs['estimate'], hs['ci_low'], hs['ci_high'], unit=' points')}"
                    " per choice")
        elif hs is not None:
            txt += ("; the most any trump policy could gain is at most "
                    f"{fmt(hs['estimate'], hs['ci_low'], hs['ci_high'], unit=' points')} per "
                    "choice")
        plain.append(sentence(who, txt))
    return plain


def _get(sub, metric, r):
    """A round's row of ``metric`` (a half stakes row from the full one where only that
    is there)."""
    x = rows_of(sub, metric, None, round=r)
    if not len(x) and metric.startswith("stakes_half_"):
        x = rows_of(sub, metric.replace("stakes_half_", "stakes_"), None, round=r)
        if len(x):
            x = x.assign(estimate=x.estimate / 2, ci_low=x.ci_low / 2, ci_high=x.ci_high / 2)
    return x.iloc[0] if len(x) else None


def _p_text(p) -> str:
    return "–" if p is None or isnan(p) else f"{p:.2g}"


def _cell(row, pct=False):
    return "–" if row is None else ci(row, pct=pct, table=True)


def round_family(ctx: Context, df: pd.DataFrame) -> dict:
    """The per-round policy-gain rows (points and win share, every round of every
    condition) as one family: (condition, round, metric) -> the p of "gains 0", read from
    the CI, adjusted by the file's ``multiplicity`` (Holm by default)."""
    rows = df[df["round"].notna() & df["metric"].isin(["policy_gain_points",
                                                        "policy_gain_win"])]
    if "strategy" in rows:
        rows = rows[rows["strategy"].isna()]
    keys = [(int(r.condition), int(r.round), r.metric) for r in rows.itertuples()]
    p = [p_from_ci(float(r.estimate), float(r.ci_low), float(r.ci_high))
         for r in rows.itertuples()]
    return dict(zip(keys, adjust_p(p, ctx.exp.multiplicity)))


def family_words(ctx: Context, df: pd.DataFrame, adj: dict) -> str:
    """The per-round rows' family in words: its size, its adjustment, the rounds whose gain
    is measurable after it."""
    k = sum(1 for v in adj.values() if not isnan(v))
    method = ctx.exp.multiplicity
    if method not in ADJUSTMENTS:
        return (f"The {k} per-round policy-gain CIs are each their own, not adjusted for "
                "the others (`multiplicity: none`): among seven rounds, one CI excludes 0 by "
                "chance in about one report of three even where the true value is 0.")
    hits = sorted({f"{r}" for (c, r, m), v in adj.items() if v < 0.05})
    return (f"The {k} per-round policy-gain rows (points and win share, every round) are one "
            f"family, {ADJUSTMENTS[method]} (column *adjusted p*): a round's gain counts as "
            "measurable only where its adjusted p is below 0.05 ("
            + (f"round{'s' if len(hits) > 1 else ''} {', '.join(hits)}" if hits else "none")
            + "); a CI that excludes 0 with a larger adjusted p is no measurable gain (random "
            "choosers gain exactly 0 in every round).")


def _round_table(ctx: Context, df: pd.DataFrame, adj: dict | None = None):
    """The table of every round (and all rounds pooled) and the widest CIs' texts."""
    cc = ctx.sweep
    adj = adj or {}
    head = (["condition"] if cc else []) + [
        "round", "n choices", "policy gain (points)", "adjusted p", "ceiling at least (points)",
        "ceiling at most (points)", "policy gain (win share)", "ceiling at most (win share)",
        "light chosen"]
    rows, shown_p, shown_w = [], [], []
    for c in ctx.indices:
        sub = df[df["condition"] == c]
        rounds = sorted({int(r) for r in sub["round"].dropna()})
        for r in [*rounds, None]:
            pg, st = _get(sub, "policy_gain_points", r), _get(sub, "stakes_half_points", r)
            pl = _get(sub, "stakes_half_low_points", r)
            pw, sw = _get(sub, "policy_gain_win", r), _get(sub, "stakes_half_win", r)
            lc = _get(sub, "light_chosen_share", r)
            if all(x is None for x in (pg, st, pw, sw, lc)):
                continue
            n = next((x["n"] for x in (pg, st, pw, sw, lc) if x is not None), None)
            rows.append(([ctx.label(c)] if cc else []) + [
                "all" if r is None else str(r), int_(n), _cell(pg),
                _p_text(adj.get((c, r, "policy_gain_points"))), _cell(pl), _cell(st),
                pp_ci(pw), pp_ci(sw), _cell(lc, True)])
        shown_p.append(rows_of(sub, "policy_gain_points"))
        shown_w.append(rows_of(sub, "policy_gain_win"))
    hp = max_hw(pd.concat(shown_p)) if shown_p else float("nan")
    hwn = max_hw(pd.concat(shown_w), 100) if shown_w else float("nan")
    widths = [t for t in (hw_text(hp, " points"), hw_text(hwn, " pp")) if t]
    return head, rows, widths


def _by_strategy(ctx: Context, doc, by_strategy: pd.DataFrame, plot: str | None) -> None:
    """A mixed lineup: each strategy's own choices, pooled over the rounds."""
    cc = ctx.sweep
    doc.h(3, "Each strategy's own trump choices")
    pooled = by_strategy[by_strategy["round"].isna()]
    texts, trows = [], []
    for c in ctx.indices:
        sub = pooled[pooled["condition"] == c]
        for s in strategy_order(ctx, sub["strategy"].astype(str).unique()):
            p = rows_of(sub[sub["strategy"].astype(str) == s], "policy_gain_points")
            w = rows_of(sub[sub["strategy"].astype(str) == s], "policy_gain_win")
            if not len(p):
                continue
            p = p.iloc[0]
            who = f"`{s}`" + (f" ({ctx.label(c)})" if cc else "")
            texts.append(f"{who}: its choices " + effect(
                p["estimate"], p["ci_low"], p["ci_high"], "points per choice",
                "its final points", up="raise", down="lower").replace(
                "has no measurable", "have no measurable"))
            trows.append(([ctx.label(c)] if cc else []) + [
                s, int_(p["n"]), ci(p, table=True), pp_ci(w.iloc[0]) if len(w) else "–"])
    doc.p("With a mixed lineup each strategy's own choices are valued separately (pooled "
          "over rounds): " + "; ".join(texts) + ".")
    doc.img("Trump-choice value per strategy", plot)
    doc.table((["condition"] if cc else []) + ["strategy", "n choices", "policy gain (points)",
                                               "policy gain (win share)"], trows)
