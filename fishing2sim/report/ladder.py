"""The ladder section: one rating per bot (Bradley-Terry, Elo scale, the anchor at 0) with
95% CIs, every pair's win share, the search budget, the games and the time it took
(fishing2sim/analysis/ladder.py)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fishing2sim.analysis.ladder import ELO, budget_text
from fishing2sim.report.common import TITLES, Context, int_, isnan, wrap

Z_95 = 1.959963984540054
UPPER_BOUND = "sees every hand: an upper bound, not a fair player"
TERMS = {
    "rating (Elo scale)": "a bot's Bradley–Terry strength fitted by maximum likelihood to "
                          "all the ladder's games, in Elo points: a bot rated D points above "
                          "another is expected to score 1/(1 + 10^(−D/400)) against it (100 "
                          "points: 0.64). The anchor (random unless the file names another) is 0 by definition; a rating's "
                          "95% CI is that of its difference to the anchor. Each pair counts "
                          "once in the fit, however many games it played.",
    "rating difference": "the difference of two bots' ratings with its 95% CI from the "
                         "covariance of the fitted ratings (ladder_pairs.csv, rating_diff): "
                         "the direct comparison of the two, not two CIs against the anchor.",
    "score (ladder)": "a side's share of a pair's games won, a shared win split between the "
                      "tied winners; 0.5 is an even pair. A bot's score is the mean over its "
                      "pairs of its share in each pair (each pair counts once).",
    "cheater": "a search bot that sees every hand, boat and the ocean's order: an upper "
               "bound on what searching with its budget can reach, not a fair player.",
}


def _duration(seconds) -> str:
    if seconds is None or isnan(seconds):
        return "an unknown time"
    s = int(round(float(seconds)))
    if s < 60:
        return f"{float(seconds):.1f} s"
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return (f"{h} h " if h else "") + f"{m} min {s} s"


def _rating(r) -> str:
    if isnan(r["estimate"]):
        return "–"
    if r["ci_low"] == r["ci_high"]:
        return f"{r['estimate']:.0f} (anchor)"
    return f"{r['estimate']:.0f} [{r['ci_low']:.0f}, {r['ci_high']:.0f}]"


def _pct(r) -> str:
    return f"{r['estimate'] * 100:.1f}% [{r['ci_low'] * 100:.1f}, {r['ci_high'] * 100:.1f}]"


def _label(name: str, kind: str) -> str:
    return f"{name} (upper bound)" if kind.startswith("cheater") else name


def _ratings(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["metric"] == "rating"].sort_values("rank").reset_index(drop=True)


def plot(ctx: Context, df: pd.DataFrame):
    rat = _ratings(df)
    pairs = ctx.tables.get("ladder_pairs")
    names = list(rat["bot"])
    n = len(names)
    fig, (ax, hm) = plt.subplots(1, 2, figsize=(max(11.0, 1.1 * n + 5), max(4.5, 0.45 * n + 2)),
                                 gridspec_kw={"width_ratios": [1, 1.25]})
    y = np.arange(n)[::-1]
    est = rat["estimate"].astype(float).to_numpy()
    lo = rat["ci_low"].astype(float).to_numpy()
    hi = rat["ci_high"].astype(float).to_numpy()
    cheat = rat["kind"].astype(str).str.startswith("cheater").to_numpy()
    search = (rat["kind"].astype(str) == "search").to_numpy()
    colours = np.where(cheat, "#999999", np.where(search, "#d62728", "#1f77b4"))
    ok = ~np.isnan(est)
    ax.barh(y[ok], est[ok], color=colours[ok], height=0.6,
            hatch=None, edgecolor="black", linewidth=0.5)
    for k in np.flatnonzero(ok & cheat):
        ax.barh(y[k], est[k], color="none", hatch="//", edgecolor="black", height=0.6)
    err = np.vstack([np.nan_to_num(est - lo), np.nan_to_num(hi - est)])
    ax.errorbar(est[ok], y[ok], xerr=err[:, ok], fmt="none", ecolor="black", capsize=3)
    for yy, e, h in zip(y[ok], est[ok], hi[ok]):
        ax.annotate(f"{e:.0f}", (max(e, h), yy), textcoords="offset points", xytext=(4, -3),
                    fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels([_label(b, k) for b, k in zip(names, rat["kind"].astype(str))],
                       fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    top = np.nanmax(np.concatenate([hi[ok], [0.0]])) if ok.any() else 1.0
    low = np.nanmin(np.concatenate([lo[ok], [0.0]])) if ok.any() else 0.0
    ax.set_xlim(low - 0.05 * (top - low + 1), top + 0.18 * (top - low + 1))
    anchor = ctx.exp.ladder["anchor"]
    ax.set(xlabel=f"rating (Elo scale, {anchor} = 0; 95% CI)", title="Ratings")
    from matplotlib.patches import Patch

    kinds = [("#1f77b4", "heuristic", True), ("#d62728", "search", search.any()),
             ("#999999", "cheater (upper bound)", cheat.any())]
    ax.legend(handles=[Patch(facecolor=c, edgecolor="black", label=t,
                             hatch="//" if t.startswith("cheater") else None)
                       for c, t, shown in kinds if shown], fontsize=8, frameon=False,
              loc="lower right")
    ax.grid(True, axis="x", alpha=0.3)
    # the pairwise win shares: row's share of the games against column
    mat = np.full((n, n), np.nan)
    if pairs is not None and len(pairs):
        ws = pairs[pairs["metric"] == "win_share"]
        for r in ws.itertuples():
            if r.bot in names and r.opponent in names:
                mat[names.index(r.bot), names.index(r.opponent)] = r.estimate * 100
    im = hm.imshow(mat, cmap="RdBu", vmin=0, vmax=100)
    for i in range(n):
        for j in range(n):
            if not math.isnan(mat[i, j]):
                hm.text(j, i, f"{mat[i, j]:.0f}", ha="center", va="center", fontsize=7,
                        color="white" if abs(mat[i, j] - 50) > 30 else "black")
    hm.set_xticks(range(n))
    hm.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
    hm.set_yticks(range(n))
    hm.set_yticklabels([_label(b, k) for b, k in zip(names, rat["kind"].astype(str))],
                       fontsize=8)
    hm.set(title="Win share of the row's bot against the column's (%)")
    fig.colorbar(im, ax=hm, fraction=0.046, pad=0.04)
    title = f"{ctx.exp.name}: strength ladder ({_games_line(ctx)})"
    if cheat.any():
        title += "; the cheater sees every hand: an upper bound, not a fair player"
    fig.suptitle(wrap(title, 90), fontsize=11)
    return fig


def _games_line(ctx: Context) -> str:
    lad = ctx.exp.ladder
    g, sg = lad["games"], lad["search_games"]
    if any(k != "heuristic" for k in lad["kinds"]) and g != sg:
        return f"{int_(g)} games per pair, {int_(sg)} with a search bot"
    return f"{int_(g)} games per pair"


def budgets(ctx: Context) -> list[str]:
    lad = ctx.exp.ladder
    out = []
    for name, kind, b in zip(lad["bots"], lad["kinds"], lad["budgets"]):
        if b:
            who = f"`{name}`" + (f" ({UPPER_BOUND})" if kind == "cheater" else "")
            out.append(f"{who}: {budget_text(b, words=True)}")
    return out


def lead_text(ctx: Context, df: pd.DataFrame) -> str:
    """The ladder's plain answer for "In short"."""
    rat = _ratings(df)
    if not len(rat) or rat["estimate"].isna().all():
        return ""
    fair = rat[~rat["kind"].astype(str).str.startswith("cheater")]
    best = fair.iloc[0]
    text = (f"the strongest fair bot on the ladder is `{best['bot']}`, rated "
            f"{_rating(best)} on the Elo scale ({ctx.exp.ladder['anchor']} = 0)")
    lead = _lead(ctx, fair)
    cheat = rat[rat["kind"].astype(str).str.startswith("cheater")]
    for r in cheat.itertuples():
        text += (f"; `{r.bot}`, which {UPPER_BOUND}, rates {r.estimate:.0f} [{r.ci_low:.0f}, "
                 f"{r.ci_high:.0f}]")
        above = fair[fair["ci_low"] > r.ci_high]
        if len(above):
            text += (f", below {', '.join(f'`{b}`' for b in above['bot'])} (the CIs do not "
                     "overlap): seeing every hand did not make its search stronger at this "
                     "budget, so here it bounds what a player may know, not how well one can "
                     "play")
    return text + lead


def rating_diff(ctx: Context, a: str, b: str):
    """The ladder_pairs row of a against b (its rating_diff and CI), or None."""
    pairs = ctx.tables.get("ladder_pairs")
    if pairs is None or not len(pairs) or "rating_diff" not in pairs.columns:
        return None
    r = pairs[(pairs["metric"] == "win_share") & (pairs["bot"] == a) & (pairs["opponent"] == b)]
    if not len(r) or isnan(r.iloc[0]["rating_diff"]):
        return None
    return r.iloc[0]


def _diff_text(r) -> str:
    return (f"{r['rating_diff']:.0f} Elo [{r['rating_diff_ci_low']:.0f}, "
            f"{r['rating_diff_ci_high']:.0f}]")


def _lead(ctx: Context, fair: pd.DataFrame) -> str:
    """'; `a` leads the next fair bot, `b`, by X Elo [lo, hi] (...)' from the covariance
    (a named, not "it": the sentence before may end on a cheater)."""
    if len(fair) < 2:
        return ""
    a, b = fair.iloc[0]["bot"], fair.iloc[1]["bot"]
    r = rating_diff(ctx, a, b)
    if r is None:
        return ""
    clear = r["rating_diff_ci_low"] > 0
    return (f"; `{a}` leads the next fair bot, `{b}`, by {_diff_text(r)} (the CI of the "
            "difference of the two ratings" + ("" if clear else
                                                 ", which includes 0: the ladder does not "
                                                 "tell the two apart") + ")")


def _fit_figures(fit: pd.DataFrame | None) -> dict:
    if fit is None or not len(fit):
        return {}
    return {r.metric: float(r.estimate) for r in fit.itertuples()} | \
        {"pairs": int(fit["n"].iloc[0])}


def _p_text(p: float) -> str:
    if isnan(p):
        return "p not defined"
    return "p < 1e-300" if p == 0 else (f"p = {p:.2g}" if p < 0.001 else f"p = {p:.3f}")


def fit_text(ws: pd.DataFrame, pred: pd.DataFrame, fit: pd.DataFrame | None = None) -> str:
    """How well one rating per bot describes the pairs: the chi^2 of the fit (ladder_fit),
    how many pairs' predicted share lies inside their 95% CI, and the pairs that miss most
    (the largest standardized residuals, in score and in Elo)."""
    p = pred.set_index(["bot", "opponent"])["estimate"]
    rows = [(r, float(p.get((r.bot, r.opponent), math.nan))) for r in ws.itertuples()]
    one_way = {}
    for r, q in rows:  # each pair once: from the side that scores more than predicted
        key = frozenset((r.bot, r.opponent))
        if key not in one_way or r.estimate > q:
            one_way[key] = (r, q)
    inside = sum(1 for r, q in one_way.values() if r.ci_low <= q <= r.ci_high)
    total = len(one_way)
    f = _fit_figures(fit)
    text = "How well one rating per bot describes the pairs: "
    if "chi2" in f and not isnan(f["chi2"]) and f.get("df", 0) > 0:
        df = int(f["df"])
        text += (f"χ² = {f['chi2']:,.1f} on {df} degrees of freedom ({f['pairs']} pairs less "
                 f"{f['pairs'] - df}, the bots less one; χ² is the sum over pairs of ((observed "
                 f"− predicted share) / SE of the observed share)²); the least χ² any set of "
                 f"ratings reaches is {f['chi2_min']:,.1f}, {_p_text(f['p_value_min'])} "
                 "(ladder_fit.csv). "
                 + ("The pairs' results are not described by one rating per bot within their "
                    "CIs: read the ratings as a summary and the pairwise table as the "
                    "measurement. " if f["p_value_min"] < 0.05 else
                    "One rating per bot is consistent with the pairs. "))
    text += (f"For {inside} of the {total} pairs the win share the ratings predict lies inside "
             "the pair's 95% CI (about 95% would if the Bradley–Terry model held exactly).")
    if "residual_z" in ws.columns:
        miss = sorted(((r, q) for r, q in one_way.values() if not isnan(r.residual_z)),
                      key=lambda rq: -abs(rq[0].residual_z))
        miss = [(r, q) for r, q in miss if abs(r.residual_z) > Z_95][:3]
        if miss:
            text += (" The pairs that miss most (standardized residual z = (observed − "
                     "predicted) / SE): " + "; ".join(
                         f"`{r.bot}` scores {r.estimate * 100:.1f}% against `{r.opponent}`, "
                         f"the ratings predict {q * 100:.1f}% (z = {r.residual_z:+.1f}; "
                         + (f"{r.residual_elo:+.0f} Elo off the fitted gap"
                            if not isnan(r.residual_elo) else "no finite Elo gap") + ")"
                         for r, q in miss) + ".")
        return text
    misses = sorted(((r, q) for r, q in one_way.values() if not r.ci_low <= q <= r.ci_high),
                    key=lambda rq: -abs(rq[0].estimate - rq[1]))
    if misses:
        text += (" The largest misses: " + "; ".join(
                     f"`{r.bot}` scores {r.estimate * 100:.0f}% [{r.ci_low * 100:.0f}, "
                     f"{r.ci_high * 100:.0f}] against `{r.opponent}`, the ratings predict "
                     f"{q * 100:.0f}%" for r, q in misses[:3]) + ".")
    return text


def section(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc) -> None:
    doc.h(2, TITLES["ladder"])
    lad = ctx.exp.ladder
    rat = _ratings(df)
    score = df[df["metric"] == "score"].set_index("bot")
    pairs = ctx.tables.get("ladder_pairs")
    ws = pairs[pairs["metric"] == "win_share"] if pairs is not None else pd.DataFrame()
    pred = pairs[pairs["metric"] == "predicted_win_share"] if pairs is not None else ws
    finite = len(rat) and not rat["estimate"].isna().any()
    _plain_answers(ctx, df, doc, lad, rat, score, ws, finite)
    _how_played(ctx, doc, lad)
    doc.img("Ratings and pairwise win shares", plot_file)
    _tables(ctx, doc, rat, score, ws)
    if finite and len(pred):
        doc.p(fit_text(ws, pred, ctx.tables.get("ladder_fit")))
    doc.p(f"One Elo point is {1 / ELO:.5f} of Bradley–Terry strength; 100 points is an "
          "expected score of 0.64, 200 points 0.76, 400 points 0.91.")


def _plain_answers(ctx, df, doc, lad, rat, score, ws, finite) -> None:
    """Plain words first: the ranking, and the two best fair bots head to head."""
    if finite:
        order = ", ".join(f"`{r['bot']}` {r['estimate']:.0f}"
                          + (" (the cheater: an upper bound, not a fair player)"
                             if str(r["kind"]).startswith("cheater") else "")
                          for _, r in rat.iterrows())
        text = lead_text(ctx, df)
        doc.p(f"Ranked by rating (Elo scale, `{lad['anchor']}` = 0): {order}. "
              + text[:1].upper() + text[1:] + ".")
        fair = rat[~rat["kind"].astype(str).str.startswith("cheater")]
        if len(fair) >= 2:
            a, b = fair.iloc[0]["bot"], fair.iloc[1]["bot"]
            r = ws[(ws["bot"] == a) & (ws["opponent"] == b)]
            if len(r):
                r = r.iloc[0]
                clear = r["ci_low"] > 0.5
                d = rating_diff(ctx, a, b)
                doc.p(f"Head to head, `{a}` won {_pct(r)} of its {int_(r['n'])} games "
                      f"against `{b}`, the next fair bot"
                      + (" (CI clear of an even 50%)" if clear else
                         " (the CI includes an even 50%: the two are not distinguishable "
                         "head to head)")
                      + ("; that is one pair's games, the rating difference above uses "
                         "every pair." if d is not None else "."))
    else:
        extreme = [b for b, r in score.iterrows() if r["estimate"] in (0.0, 1.0)]
        doc.p("No finite ratings exist: "
              + (", ".join(f"`{b}`" for b in extreme) + " won or lost every game"
                 if extreme else "a group of bots won or lost every game against the rest")
              + ", so the Bradley–Terry model cannot place it; the table ranks the bots by "
              "score.")


def _how_played(ctx, doc, lad) -> None:
    """The pairs, games, time and search budgets, and how the ratings are fitted."""
    games = ctx.meta.get("games")
    elapsed = ctx.meta.get("elapsed_s")
    workers = ctx.meta.get("workers")
    n_pairs = len(ctx.conditions)
    doc.p(f"How it was played: every pair of the {len(lad['bots'])} bots ({n_pairs} pairs) "
          "played 4-player games as [A, A, B, B] with the seats rotated, each deal once in "
          f"every rotation (each bot in every seat twice); {_games_line(ctx)}, "
          f"{int_(games)} games in all, played in {_duration(elapsed)}"
          + (f" on {workers} worker{'s' if workers != 1 else ''}" if workers else "") + ".")
    b = budgets(ctx)
    if b:
        doc.p("Search budget (the search bots' card plays and trump choices are searched; "
              "their other decisions are their rollout strategy's):")
        doc.ul(b)
    doc.p("The ratings are fitted by maximum likelihood (Bradley–Terry; a shared win counts "
          "as a fraction) with **each pair weighted equally**, however many games it played "
          "(its log-likelihood term weighted by the mean games per pair over its own games), "
          "so the pairs with many games do not decide the ratings. Their 95% CIs come from "
          "the spread of each pair's results over its deals (a sandwich estimate, with the "
          "same weights: the four games of a deal are not independent); a rating's CI is that "
          "of its difference to the anchor, and the CI of the difference of any two ratings "
          "(ladder_pairs.csv, `rating_diff`) comes from their covariance. A bot's score is "
          "the mean over its pairs of its win share in the pair, each pair counting once.")


def rank_ranges(ctx, bots: list) -> dict:
    """bot -> the places the 95% CIs of the rating differences allow it (``1–3``, or ``4``):
    from 1 + the bots whose rating difference to it has a CI wholly above 0, to the bots
    less those wholly below (ladder_pairs.csv, each pair's own CI, unadjusted); {} without
    the differences."""
    pairs = ctx.tables.get("ladder_pairs")
    if pairs is None or not len(pairs) or "rating_diff_ci_low" not in pairs:
        return {}
    d = pairs[pairs["metric"] == "win_share"]
    out = {}
    for b in bots:
        x = d[d["bot"] == b]
        if not len(x):
            return {}
        above = int((x["rating_diff_ci_high"] < 0).sum())
        below = int((x["rating_diff_ci_low"] > 0).sum())
        lo, hi = above + 1, len(bots) - below
        out[b] = f"{lo}" if lo == hi else f"{lo}–{hi}"
    return out


def _tables(ctx, doc, rat, score, ws) -> None:
    """The ratings table and the pairwise win shares."""
    rows = []
    ranges = rank_ranges(ctx, list(rat["bot"]))
    for _, r in rat.iterrows():
        sc = score.loc[r["bot"]] if r["bot"] in score.index else None
        rows.append([str(int(r["rank"])), ranges.get(r["bot"], "–"), f"`{r['bot']}`", _rating(r),
                     _pct(sc) if sc is not None else "–", int_(r["n"]),
                     f"cheater ({UPPER_BOUND})" if str(r["kind"]).startswith("cheater")
                     else str(r["kind"])])
    if ranges:
        doc.p("*Places the CIs allow*: every rank the 95% CIs of the rating differences "
              "leave a bot (ladder_pairs.csv, each pair's own CI): bots that share a range are "
              "not told apart.")
    doc.table(["rank", "places the CIs allow", "bot", "rating [95% CI]",
               "score, mean over its pairs [95% CI]", "games", "kind"], rows)
    # the pairwise table: row's win share against column
    names = list(rat["bot"])
    if len(ws):
        cell = {(r.bot, r.opponent): r for r in ws.itertuples()}
        prow = []
        for a in names:
            line = [f"`{a}`"]
            for o in names:
                r = cell.get((a, o))
                line.append("–" if r is None else
                            f"{r.estimate * 100:.0f} [{r.ci_low * 100:.0f}, "
                            f"{r.ci_high * 100:.0f}]")
            prow.append(line)
        doc.p("Pairwise win shares (%): the row's bot's share of its games against the "
              "column's, with its 95% CI (ladder_pairs.csv; it also holds the share the "
              "ratings predict for each pair, the rating difference with its CI and the "
              "residuals).")
        doc.table(["bot \\ opponent"] + names, prow)


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = "ladder"  # the analyses: entry it reports (analysis/ladder.py)
PLOTS = (("ladder", "plot", "ladder.png"),)  # (table, this module's plot function, file)


def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    section(ctx, ctx.tables[ANALYSIS], plots.get("ladder"), doc)
