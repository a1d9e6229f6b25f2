"""The trump-choice section: policy gain (what the seats' own choices gain over a coin flip)
and what a perfect chooser would gain, as a range (at least: choose on one pair of replays,
score on the other; at most: half the typical gap between the shades), by round and pooled,
and per strategy in mixed lineups; and the report's opening answer to "How much is the
trump choice worth?" (``opening``)."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from fishing2sim.analysis.panel import group_key, group_name, strength_order
from fishing2sim.analysis.stats import adjust_p, p_from_ci
from fishing2sim.report.common import (ADJUSTMENTS, TITLES, Context, ci, colour, effect, finish, fmt, hw_text, int_, isnan, max_hw, pp_ci,
                     players_text, rows_of, scale_to, seat_md, seat_parts, strategy_order,
                     wrap, yerr)
from fishing2sim.report.panel import level_lineup


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
                (f"stakes_half_low_{unit}", "perfect chooser, at least", "^", False),
                (f"stakes_half_{unit}", "perfect chooser, at most", "s", False),
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
    fig.suptitle(wrap(f"{ctx.exp.name}: trump-choice value — what the seats' own choices "
                      "gain (filled) and what a perfect chooser would gain (open: at least ▲, "
                      "at most ■); "
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
    doc.p("How it is measured: at each trump choice the game is finished twice with each "
          "shade, from copies of the state (two independent pairs of replays). *What the "
          "seats' own choices gain* (the policy gain, `policy_gain_points`) is the mean of "
          "(chosen − other)/2: their gain over a coin flip. *What a perfect chooser would "
          "gain*, one who always knew the better shade, no replay measures without noise, so "
          "it is given as a range: *at least* what a chooser gains who takes the shade that "
          "did better in one pair of replays, scored on the other pair "
          "(`stakes_half_low_points`); *at most* half the typical points gap between the two "
          "shades, the gap measured as the square root of its mean square, which is never "
          "below its mean size (`stakes_half_points`). In the table the rows marked *all* "
          "pool the rounds (the figures of the answer at the top); their CIs take the game "
          "as the unit, since a game's choices are not independent.")
    adj = round_family(ctx, df)
    head, rows, widths = _round_table(ctx, df, adj)
    if widths:
        doc.p(f"95% CIs of the policy gain are at most {' and '.join(widths)} wide. "
              + family_words(ctx, df, adj))
    doc.img("Trump-choice value", plot_file)
    doc.table(head, rows)
    note = same_shade_words(df)
    if note:
        doc.p(note)
    if by_strategy is not None and len(by_strategy):
        _by_strategy(ctx, doc, by_strategy, by_strategy_plot)


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


def _light(row) -> str:
    """The share of choices that took light; ``all light`` / ``all dark`` where every
    choice of the round took the same shade."""
    if row is None:
        return "–"
    if float(row["estimate"]) in (0.0, 1.0):
        return f"all {'light' if float(row['estimate']) == 1.0 else 'dark'}"
    return _cell(row, True)


def same_shade_words(df: pd.DataFrame) -> str:
    """A note for the rounds whose every choice took one shade (``all light``)."""
    rows = rows_of(df, "light_chosen_share").dropna(subset=["round"])
    fixed = rows[rows["estimate"].astype(float).isin([0.0, 1.0])]
    if not len(fixed):
        return ""
    rounds = sorted({int(r) for r in fixed["round"]})
    text = ("*All light* (or *all dark*): every choice of that round took the same shade, "
            "whatever the hand; the seats' own choices then gain what that fixed shade gains "
            "over a coin flip.")
    if 2 in rounds:
        text += (" In round 2 no hand holds a green card with the standard deck: round 1 is "
                 "played with the starting cards, and the first cards drawn from the ocean "
                 "are tier 1's red ones, so a rule that counts its greens of each shade finds "
                 "none and keeps to its default.")
    return text


def _round_table(ctx: Context, df: pd.DataFrame, adj: dict | None = None):
    """The table of every round (and all rounds pooled) and the widest CIs' texts."""
    cc = ctx.sweep
    adj = adj or {}
    head = (["condition"] if cc else []) + [
        "round", "n choices", "own choices gain (points)", "adjusted p",
        "perfect chooser gains, at least (points)", "perfect chooser gains, at most (points)",
        "own choices gain (win share)", "perfect chooser gains, at most (win share)",
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
                pp_ci(pw), pp_ci(sw), _light(lc)])
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


# ---- the opening: "How much is the trump choice worth?" -----------------------------------
QUESTION = "How much is the trump choice worth?"


def _br(row, scale: float = 1.0, unit: str = "") -> str:
    """``0.99 [0.97, 1.01]`` (``unit`` after the estimate), ``–`` without a row."""
    if row is None:
        return "–"
    text = fmt(row["estimate"] * scale, row["ci_low"] * scale, row["ci_high"] * scale,
               table=True)
    text = re.sub(r"(?<![\d.])-(0\.?0*)(?![\d.]*[1-9])", r"\1", text)  # no "-0.0"
    return text.replace(" [", f"{unit} [", 1) if unit else text


def _who(ctx: Context, c: int) -> str:
    """Who chose at condition ``c``: ``skilled players (four `skilled` players, 30,000
    games)`` in a panel, the condition's label and lineup otherwise."""
    cond = ctx.by_index.get(c)
    games = f"{int_(ctx.games_by.get(c))} games"
    panel = getattr(ctx.exp, "panel", None)
    if panel is not None and cond is not None:
        group = group_name(cond)
        where = "" if group == "all games" else f", {group}"
        return f"{cond.level} players ({level_lineup(ctx.exp, cond.level)}, {games}{where})"
    seats = seat_parts(cond) if cond is not None else []
    kinds = list(dict.fromkeys(seats))
    lineup = players_text(len(seats), *kinds[0]) if len(kinds) == 1 else \
        ", ".join(seat_md(*k) for k in seats)
    label = f"{ctx.label(c)}: " if ctx.sweep else ""
    return f"{label}{lineup} ({games})" if lineup else f"{label}{games}"


def answered(ctx: Context) -> list[int]:
    """The conditions the opening answers for: in a skill panel the strongest level with
    trump figures of each group (players, deck), else every condition with them."""
    df = ctx.tables.get("trump_value")
    if df is None or not len(df):
        return []
    have = [c for c in ctx.indices if _pooled(df, "stakes_half_points", c) is not None]
    panel = getattr(ctx.exp, "panel", None)
    if panel is None:
        return have
    order = strength_order(ctx.exp)
    best: dict = {}
    for c in have:
        cond = ctx.by_index[c]
        key = group_key(cond)
        if key not in best or order.index(cond.level) > order.index(
                ctx.by_index[best[key]].level):
            best[key] = c
    return list(best.values())


def answer_text(ctx: Context, df: pd.DataFrame, c: int) -> str:
    """The answer for condition ``c``: what a perfect chooser would gain (a range), in
    points and in win chance, the points scale, and what the seats' own choices gain."""
    get = lambda m: _pooled(df, m, c)  # noqa: E731
    low, high, gain = get("stakes_half_low_points"), get("stakes_half_points"), \
        get("policy_gain_points")
    low_w, high_w, gain_w = get("stakes_half_low_win"), get("stakes_half_win"), \
        get("policy_gain_win")
    score, margin = get("mean_final_points"), get("mean_winning_margin")
    text = f"Among {_who(ctx, c)}, a perfect trump chooser would gain "
    text += (f"between {_br(low)} and {_br(high)} points" if low is not None else
             f"at most {_br(high)} points")
    text += " per choice over a coin flip"
    if high_w is not None:
        text += (", between " + _br(low_w, 100) + " and " if low_w is not None else
                 ", at most ") + f"{_br(high_w, 100)} percentage points of its chance to win"
    text += "."
    games = ctx.games_by.get(c)
    players = ctx.players(c)
    if score is not None and margin is not None:
        per = (f", and each player makes about {gain['n'] / games / players:.1f} trump "
               "choices a game (the leader of each of rounds 2 to 8 chooses)"
               if gain is not None and games and players else "")
        text += (f" For scale: a player scores {score['estimate']:.0f} points a game on "
                 f"average, the winner leads the runner-up by {margin['estimate']:.1f} points{per}.")
    if gain is not None:
        if gain["ci_low"] <= 0 <= gain["ci_high"]:
            own = " The players' own choices gain nothing measurable over a coin flip: "
        else:
            own = " The players' own choices " + ("gain " if gain["estimate"] > 0 else "lose ")
        text += (own + f"{_br(gain, unit=' points')} per choice"
                 + (f" ({_br(gain_w, 100, ' pp')} of win chance)" if gain_w is not None
                    else "") + ("" if own.endswith(": ") else " over a coin flip") + ".")
    return text


def _compare(df: pd.DataFrame, c: int, ref: int) -> str:
    """How condition ``c``'s range of a perfect chooser's gain (points) compares with that
    of ``ref``: ``less``, ``more`` (the CIs of both ends clear of ``ref``'s), or ``about
    as much``."""
    ends = []
    for m in ("stakes_half_low_points", "stakes_half_points"):
        a, b = _pooled(df, m, c), _pooled(df, m, ref)
        if a is None or b is None:
            continue
        ends.append(-1 if a["ci_high"] < b["ci_low"] else 1 if a["ci_low"] > b["ci_high"] else 0)
    if ends and all(e == -1 for e in ends):
        return "less"
    if ends and all(e == 1 for e in ends):
        return "more"
    return "about as much"


def opening(ctx: Context, doc) -> bool:
    """The report's first words when it analyses the trump choice: the answer at the
    strongest level of play (or per condition), then, in a skill panel, how it changes
    with the level (a table of every level). False when there is nothing to answer."""
    df = ctx.tables.get("trump_value")
    top = answered(ctx)
    if df is None or not top:
        return False
    texts = [answer_text(ctx, df, c) for c in top]
    doc.p(f"**{QUESTION}** " + texts[0] + " Brackets: 95% CIs.")
    for t in texts[1:]:
        doc.p(t)
    if getattr(ctx.exp, "panel", None) is None:
        return True
    order = strength_order(ctx.exp)
    rows, words = [], []
    for ref in top:
        key = group_key(ctx.by_index[ref])
        same = [c for c in ctx.indices if group_key(ctx.by_index[c]) == key
                and _pooled(df, "stakes_half_points", c) is not None]
        same.sort(key=lambda c: order.index(ctx.by_index[c].level))
        for c in same:
            cond = ctx.by_index[c]
            g = lambda m: _pooled(df, m, c)  # noqa: E731
            rows.append([cond.level + ("" if len(top) == 1 else f" ({group_name(cond)})"),
                         int_(ctx.games_by.get(c)),
                         f"{_br(g('stakes_half_low_points'))} to {_br(g('stakes_half_points'))}",
                         f"{_br(g('stakes_half_low_win'), 100)} to "
                         f"{_br(g('stakes_half_win'), 100)}",
                         _br(g("policy_gain_points")), _br(g("policy_gain_win"), 100)])
            if c != ref:
                lo, hi = g("stakes_half_low_points"), g("stakes_half_points")
                rng = f"{_br(lo).split(' [')[0]} to " if lo is not None else "at most "
                words.append(f"among {cond.level} players"
                             + ("" if len(top) == 1 else f" ({group_name(cond)})")
                             + f" {_compare(df, c, ref)} ({rng}{_br(hi).split(' [')[0]} "
                             "points)")
    # "about as much": the CIs overlap, so these games cannot tell the two ranges apart
    strongest = ctx.by_index[top[0]].level
    if words:
        doc.p("How it changes with the level of play — what a perfect chooser would gain, "
              f"against the {strongest} players' range: " + "; ".join(reversed(words))
              + f". Less or more where the CIs of both ends of the range lie clear of the "
              f"{strongest} players', about as much where they overlap (these games do not "
              "tell the two apart).")
    doc.table(["level", "games", "perfect chooser gains (points per choice)",
               "perfect chooser gains (pp of win chance)", "own choices gain (points)",
               "own choices gain (pp of win chance)"], rows)
    return True


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = "trump_value"  # the analyses: entry it reports (analysis/trump.py)
PLOTS = (("trump_value", "plot", "trump_value.png"),  # (table, this module's plot function,
         ("trump_by_strategy", "plot_by_strategy", "trump_by_strategy.png"))  # file)


def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    section(ctx, ctx.tables[ANALYSIS], plots.get("trump_value"), doc,
            ctx.tables.get("trump_by_strategy"), plots.get("trump_by_strategy"))
