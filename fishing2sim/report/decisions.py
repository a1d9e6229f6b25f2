"""The decision-stakes section: which decisions matter and which are no real choice. Per
decision kind the stakes (how much choosing between two options moves the deciding seat's
final points), the ceiling's bracket (what the best choice could gain over a random one)
and the seats' own policy gain. Definitions: docs/rules.md E, "Decision stakes"; the
table: analysis/decisions.py."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fishing2sim.engine.constants import DECISION_NAMES
from fishing2sim.report.common import (Context, ci, colour, figure_section, finish, int_, rows_of,
                                       wrap)

# what a designer calls each decision (the rulebooks' words)
CHOICE_WORDS = {
    "play": "the card to play",
    "determine-trump": "the shade with determine-trump",
    "catch-1-other": "the card to catch with catch-1-other",
    "exchange-take": "the card to take with exchange-1-card",
    "exchange-give": "the card to put back face down with exchange-1-card",
    "catch-1-card": "the hand card to move with catch-1-card",
    "zero-catch": "the card to catch with a zero",
    "pass-1-left": "the card to pass with pass-1-left",
    "determine-colour": "the suit to name with determine-colour",
}

TERMS = {
    "stakes (a decision)": "a share of the decisions is replayed: the game finished from a "
                           "copy with each of two options drawn at random, twice (the game's "
                           "own streams, fresh ones); the stakes are sqrt(mean of d1 × d2), "
                           "the root mean square difference of the deciding seat's final "
                           "points between two options (0 when the options are equivalent)",
    "seats' gain (a decision)": "the game's own result for the deciding seat minus its result "
                                "with a uniformly random option on the same streams: what its "
                                "choices gain over a random choice (0 for the random strategy)",
}


def _pooled(df, metric, c):
    """The rows of ``metric`` pooled over the seats (no strategy), in DECISION_NAMES order."""
    rows = rows_of(df, metric, c)
    rows = rows[rows["strategy"].isna()] if "strategy" in rows else rows
    order = {k: i for i, k in enumerate(DECISION_NAMES)}
    return rows.assign(_o=rows["kind"].map(order)).sort_values("_o")


def _first(df, metric, c, kind):
    rows = _pooled(df, metric, c)
    rows = rows[rows["kind"] == kind]
    return rows.iloc[0] if len(rows) else None


def plot(ctx: Context, df: pd.DataFrame):
    """Left: each decision kind's stakes in points (95% CI); right: the seats' policy gain
    over a random option (95% CI); a colour per condition."""
    kinds = [k for k in DECISION_NAMES if (df["kind"] == k).any()]
    fig, axes = plt.subplots(1, 2, figsize=(12, 1.2 + 0.55 * len(kinds) * max(
        1, len(ctx.indices)) ** 0.5), sharey=True)
    nc = max(1, len(ctx.indices))
    for j, c in enumerate(ctx.indices):
        for panel, metric in ((0, "stakes_points"), (1, "policy_gain_points")):
            rows = _pooled(df, metric, c)
            if not len(rows):
                continue
            y = np.array([kinds.index(k) for k in rows["kind"]]) + (j - (nc - 1) / 2) * 0.8 / nc
            est = rows["estimate"].astype(float).to_numpy()
            lo = np.nan_to_num(est - rows["ci_low"].astype(float).to_numpy())
            hi = np.nan_to_num(rows["ci_high"].astype(float).to_numpy() - est)
            axes[panel].errorbar(est, y, xerr=[np.maximum(lo, 0), np.maximum(hi, 0)], fmt="o",
                                 capsize=3, color=colour(j), markersize=4,
                                 label=wrap(ctx.label(c), 30) if ctx.sweep and panel == 0
                                 else None)
    axes[0].set_yticks(range(len(kinds)))
    axes[0].set_yticklabels(kinds)
    axes[0].invert_yaxis()
    axes[1].axvline(0, color="grey", lw=1)
    axes[0].set_xlim(left=0)
    axes[0].set_xlabel("points")
    axes[1].set_xlabel("points")
    axes[0].set_title(wrap("stakes: how much choosing between two options moves the deciding "
                           "seat's final points (root mean square); 95% CI", 60))
    axes[1].set_title(wrap("the seats' own choices: points gained over a uniformly random "
                           "option; 95% CI", 60))
    fig.suptitle(wrap(f"{ctx.exp.name}: the stakes of each decision; {ctx.games_text(df)}",
                      100), fontsize=11)
    finish(axes, legend=ctx.sweep)
    return fig


def _sentence(df, c, kind) -> str | None:
    st = _first(df, "stakes_points", c, kind)
    if st is None:
        return None
    low, half = (_first(df, m, c, kind) for m in ("stakes_half_low_points",
                                                  "stakes_half_points"))
    gain = _first(df, "policy_gain_points", c, kind)
    opts = _first(df, "mean_options", c, kind)
    words = CHOICE_WORDS.get(kind, kind)
    text = (f"Choosing {words} ({int_(st['n'])} replayed, {float(opts['estimate']):.1f} "
            f"options on average): the typical (root mean square) difference between two "
            f"options is {ci(st, default=2)} points (the stakes; not a bound on any one "
            "decision)")
    if low is not None and half is not None:
        text += (f"; the better of two options gains at least "
                 f"{max(0.0, float(low['estimate'])):.2g} and at most "
                 f"{float(half['estimate']):.2g} points over a coin flip between them")
    if gain is not None:
        text += f"; the seats' own choices gain {ci(gain, default=2)} over a random option"
    return text + "."


def _words(df, c) -> list[str]:
    """The condition's sentences: the decision that moves the result most and least, then
    one sentence a decision kind."""
    kinds = list(_pooled(df, "stakes_points", c)["kind"])
    lines = [s for s in (_sentence(df, c, k) for k in kinds) if s]
    if not lines:
        return lines
    ranked = _pooled(df, "stakes_points", c).sort_values("estimate", ascending=False)
    if len(ranked) > 1:
        most, least = ranked.iloc[0], ranked.iloc[-1]
        lines.insert(0, f"The decision that moves the result most is {most['kind']} "
                        f"(stakes {ci(most, default=2)} points); the least, {least['kind']} "
                        f"(stakes {ci(least, default=2)} points). The stakes are the typical "
                        "(root mean square) difference between two options.")
    return lines


def _table(ctx, df, c, doc) -> None:
    rows = []
    for _, st in _pooled(df, "stakes_points", c).iterrows():
        k = st["kind"]
        cells = [k, int_(st["n"])]
        for m in ("mean_options", "stakes_points", "stakes_half_low_points",
                  "stakes_half_points", "policy_gain_points", "stakes_win",
                  "policy_gain_win"):
            r = _first(df, m, c, k)
            pct = m.endswith("_win")
            cells.append("–" if r is None else ci(r, pct=pct, table=True, default=2))
        rows.append(cells)
    if not rows:
        return
    if ctx.sweep:
        doc.p(f"{ctx.label(c)}:")
    doc.table(["decision", "n", "options", "stakes (points)", "ceiling at least",
               "ceiling at most (half stakes)", "seats' gain (points)", "stakes (win share)",
               "seats' gain (win share)"], rows)


# the section's opening paragraph
INTRO = ("Which decisions matter and which are no real choice. A share of the decisions "
         "with a choice is replayed: the game is finished from a copy of the position once "
         "with each of two options drawn at random, twice (on the game's own streams and "
         "on fresh ones), and the deciding seat's final points compared. The stakes are "
         "the root mean square difference between two options; the ceiling (what the best "
         "choice gains over a coin flip between them) is the bracket from the cross-fitted "
         "gain to half the stakes; the seats' gain is what their own choices gain over a "
         "uniformly random option. The trump choice has its own section. Definitions: "
         "docs/rules.md E, \"Decision stakes\".")


def section(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc) -> None:
    figure_section(ctx, doc, "decisions", INTRO, lambda c: _words(df, c), "Decision stakes",
                   plot_file)
    for c in ctx.indices:
        _table(ctx, df, c, doc)
    by = df[df["strategy"].notna() & (df["metric"] == "policy_gain_points")] \
        if "strategy" in df else df.iloc[0:0]
    if by["strategy"].nunique() > 1:
        doc.p("Each strategy's own choices, points gained over a random option:")
        doc.table(["condition", "decision", "strategy", "n", "gain (points)"],
                  [[ctx.label(int(r["condition"])), r["kind"], r["strategy"], int_(r["n"]),
                    ci(r, table=True, default=2)] for _, r in by.iterrows()])


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = "decisions"  # the analyses: entry it reports (analysis/decisions.py)
PLOTS = (("decisions", "plot", "decisions.png"),)  # (table, this module's plot function, file)


def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    section(ctx, ctx.tables[ANALYSIS], plots.get("decisions"), doc)
