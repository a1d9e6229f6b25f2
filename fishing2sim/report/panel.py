"""The skill panel's section ("Levels of play"): who played at each level, each deck
contrast at every level as a grid (conditions as rows, levels as columns), one verdict per
contrast, how the effect differs from the reference level (the interaction, 95% CI), and
the skill trace (each headline figure against the levels' playing strength, and whether the
two strongest levels agree). Definitions: docs/rules.md E, "Levels of play"; the tables:
analysis/panel.py."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd

from fishing2sim.analysis.contrasts import FIGURE_INFO
from fishing2sim.analysis.panel import group_name, strength_order
from fishing2sim.report.common import (Context, NUMBERS, colour, finish, int_, players_text,
                                       seat_md, seat_parts, wrap)
from fishing2sim.report.profile import disagreement_text
from fishing2sim.report.words import isnan, number

UNIT_WORDS = {"pp": "pp", "cards": "cards", "points": "points", "changes": "changes"}


def _scale(unit: str) -> float:
    return 100.0 if unit == "pp" else 1.0


def cell(est, lo, hi, unit: str, signed: bool = True) -> str:
    """``+2.9 pp [1.5, 4.2]``."""
    if isnan(est):
        return "–"
    s = _scale(unit)
    hw = (hi - lo) * s / 2 if not (isnan(lo) or isnan(hi)) else math.nan
    e = number(est * s, hw)
    e = ("+" + e if est * s > 0 and signed and not e.startswith("-") else e)
    if isnan(hw):
        return f"{e} {unit}"
    return f"{e} {unit} [{number(lo * s, hw)}, {number(hi * s, hw)}]"


def level_lineup(exp, name: str) -> str:
    """``four `pimc` players`` (or the lineup's names) of a level."""
    cond = next((c for c in exp.conditions if c.level == name), None)
    if cond is None:
        return ""
    seats = seat_parts(cond)
    kinds = list(dict.fromkeys(seats))
    counts = {c.players for c in exp.conditions if c.level == name}
    if len(kinds) == 1 and len(counts) > 1:
        return f"{seat_md(*kinds[0])} in every seat"
    if len(kinds) == 1:
        return players_text(len(seats), *kinds[0])
    return ", ".join(seat_md(*k) for k in seats)


def level_games(exp, name: str) -> int:
    return max((c.games for c in exp.conditions if c.level == name), default=0)


def who_played(exp) -> str:
    """The summary's first sentence for a panel: every level and its lineup."""
    levels = exp.panel.names
    parts = [f"{lv} ({level_lineup(exp, lv)}, {int_(level_games(exp, lv))} games per "
             "condition)" for lv in levels]
    return (f"Who played: every condition at {NUMBERS.get(len(levels), len(levels))} levels "
            f"of play — " + "; ".join(parts) + ". The levels of a condition play the same "
            "deals, so the differences between levels are paired.")


def verdict_lines(ctx: Context, limit: int | None = None) -> list[str]:
    """One sentence per contrast and figure: the verdict, then the effect at each level."""
    ver = ctx.tables.get("verdicts")
    con = ctx.tables.get("contrasts")
    if ver is None or not len(ver) or con is None:
        return []
    exp = ctx.exp
    out = []
    for r in ver.itertuples():
        what = FIGURE_INFO[r.figure][3]
        bits = []
        for lv in exp.panel.names:
            row = _effect_row(ctx, r.contrast, r.figure, lv)
            if row is not None:
                text = cell(row["difference"], row["diff_ci_low"], row["diff_ci_high"], r.unit)
                clear = not row["diff_ci_low"] <= 0 <= row["diff_ci_high"]
                if clear and not row["p_adjusted"] < 0.05:  # the words follow the family
                    text += (f", not measurable once the report's contrasts are taken "
                             f"together (adjusted p = {row['p_adjusted']:.2g})")
                bits.append(f"{lv} {text}")
        out.append(f"**{r.contrast}**, {what}: the effect {r.text} ({'; '.join(bits)}).")
    return out[:limit] if limit else out


def _effect_row(ctx: Context, contrast: str, figure: str, level: str):
    con = ctx.tables["contrasts"]
    rows = con[(con["figure"] == figure) & (con["level"] == level)
               & con["strategy"].isna()]
    for _, row in rows.iterrows():
        if group_name(ctx.exp.conditions[int(row["condition"])]) == contrast:
            return row
    return None


def _grid(ctx: Context, doc, fig: str) -> None:
    ver = ctx.tables["verdicts"]
    v = ver[ver["figure"] == fig]
    if not len(v):
        return
    unit = FIGURE_INFO[fig][2]
    levels = ctx.exp.panel.names
    rows = []
    for r in v.itertuples():
        cells = []
        for lv in levels:
            row = _effect_row(ctx, r.contrast, fig, lv)
            cells.append("–" if row is None else cell(row["difference"], row["diff_ci_low"],
                                                     row["diff_ci_high"], unit))
        rows.append([r.contrast, *cells, r.text])
    doc.p(f"{FIGURE_INFO[fig][3][:1].upper() + FIGURE_INFO[fig][3][1:]}: condition − its "
          f"baseline at each level ({unit}, 95% CI):")
    doc.table(["contrast", *levels, "verdict"], rows)


def _interaction_lines(ctx: Context) -> list[str]:
    df = ctx.tables.get("panel")
    if df is None or not len(df):
        return []
    out = []
    for r in df[df["relative_to"] == ctx.exp.panel.relative_to].itertuples():
        what = FIGURE_INFO[r.figure][3]
        d = cell(r.difference, r.diff_ci_low, r.diff_ci_high, r.unit)
        clear = not (isnan(r.diff_ci_low) or r.diff_ci_low <= 0 <= r.diff_ci_high)
        adj = getattr(r, "p_adjusted", math.nan)
        if not clear:
            note = " (the CI includes 0: no measurable difference)"
        elif not adj < 0.05:
            note = (" (not measurable once the panel's interaction lines are taken together: "
                    f"adjusted p = {adj:.2g})")
        else:
            note = ""
        out.append(f"{r.contrast}, {what}: the effect with {r.level} players minus the effect "
                   f"with {r.relative_to} players is {d}{note}.")
    return out


def family_note(ctx: Context) -> str:
    """The interaction lines' family: its size and adjustment."""
    df = ctx.tables.get("panel")
    method = ctx.exp.multiplicity
    k = 0 if df is None else int(df["p_value"].notna().sum())
    how = {"holm": "Holm's adjustment", "bh": "the Benjamini-Hochberg adjustment"}.get(method)
    if how is None:
        return (f"The {k} interaction lines (every pair of levels, each contrast and figure) "
                "are not adjusted for their number (multiplicity: none).")
    return (f"The {k} interaction lines (every pair of levels, each contrast and figure, "
            f"panel.csv) are one family, {how}: a difference between levels counts as "
            "measurable when its CI excludes 0 and its adjusted p is below 0.05; only then "
            "does a verdict say \"appears only with\" or \"reverses with\".")


def trace_lines(ctx: Context) -> list[str]:
    conv = ctx.tables.get("convergence")
    if conv is None or not len(conv):
        return []
    out, told = [], {}
    for r in conv.itertuples():
        what = FIGURE_INFO[r.figure][3]
        d = cell(r.difference, r.diff_ci_low, r.diff_ci_high, r.unit)
        tol = cell(r.tolerance, math.nan, math.nan, r.unit, signed=False)
        pair = f"the two strongest levels, {r.strongest} and {r.second}"
        if r.converged == "yes":
            text = f"converged: {pair}, agree within ±{tol} (difference {d})"
        elif r.converged == "no":
            text = f"not converged: {pair}, differ by {d}, more than ±{tol}"
            text += _why(ctx, r, told)
        else:
            text = (f"undecided: {pair}, differ by {d}; the CI reaches past ±{tol}, so more "
                    "games at these levels would tell")
            text += _why(ctx, r, told)
        out.append(f"{r.group}, {what}: {text}.")
    return out


def _why(ctx: Context, r, told: dict) -> str:
    """"; what they do differently ..." for a trace line that is not converged (the
    behaviours of analysis/profile.py's panel_differences), or "". A group's later lines
    point to its first (the same two levels' profiles); ``told`` records the first."""
    why = disagreement_text(ctx, r.group, r.players, r.figure)
    if why and (r.group, r.players) in told:
        why = f"what they do differently: as for {told[(r.group, r.players)]} above"
    elif why:
        told[(r.group, r.players)] = FIGURE_INFO[r.figure][3]
    return f"; {why}" if why else ""


def section(ctx: Context, doc, plots: dict) -> None:
    exp = ctx.exp
    doc.h(2, "Levels of play")
    doc.p(who_played(exp))
    ratings = ctx.tables.get("skill_trace")
    rated = ""
    if ratings is not None and len(ratings):
        first = ratings.drop_duplicates("level")
        rated = "; ".join(f"{r.level} {r.rating:.0f}" if not isnan(r.rating) else
                          f"{r.level} unrated"
                          for r in first.itertuples())
        doc.p("Playing strength (the ladder's rating, Elo with random = 0, or the file's "
              f"rating): {rated}. The two strongest levels are "
              + ("those rated highest." if first["rating"].notna().all() else
                 "the last two the file lists (not every level has a rating)."))
    ver = ctx.tables.get("verdicts")
    if ver is not None and len(ver):
        doc.p(f"Each contrast at every level, relative to {exp.panel.relative_to} players "
              "(a level's effect counts as measurable when its 95% CI excludes 0 and the "
              "report's family adjustment keeps its p below 0.05):")
        doc.ul(verdict_lines(ctx))
        for fig in dict.fromkeys(ver["figure"]):
            _grid(ctx, doc, fig)
        doc.img("each contrast's effect at each level of play", plots.get("verdicts"))
        lines = _interaction_lines(ctx)
        if lines:
            doc.p("How the effect differs between levels (paired: the levels play the same "
                  "deals; 95% CI; panel.csv holds every pair of levels). "
                  + family_note(ctx))
            doc.ul(lines)
    lines = trace_lines(ctx)
    if lines:
        doc.p("The skill trace: each headline figure against playing strength. A figure is "
              "converged when the 95% CI of the difference between the two strongest levels "
              "lies within the tolerance (play_levels.converged_within):")
        doc.ul(lines)
        doc.img("each headline figure against playing strength", plots.get("skill_trace"))


# ---- plots ------------------------------------------------------------------------------
def _figures(df) -> list[str]:
    return list(dict.fromkeys(df["figure"]))


def plot_effects(ctx: Context, df: pd.DataFrame):
    """One panel per figure: each contrast's effect (condition − baseline) at each level,
    the levels on the x axis from the weakest, 95% CIs."""
    ver = ctx.tables["verdicts"]
    figs = _figures(ver)
    levels = strength_order(ctx.exp)
    fig, axes = _axes(len(figs))
    for ax, f in zip(axes, figs):
        unit = FIGURE_INFO[f][2]
        s = _scale(unit)
        for j, name in enumerate(dict.fromkeys(ver[ver["figure"] == f]["contrast"])):
            xs, ys, lo, hi = [], [], [], []
            for x, lv in enumerate(levels):
                row = _effect_row(ctx, name, f, lv)
                if row is None:
                    continue
                xs.append(x)
                ys.append(row["difference"] * s)
                lo.append(_bar(row["difference"] - row["diff_ci_low"], s))
                hi.append(_bar(row["diff_ci_high"] - row["difference"], s))
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", capsize=3, color=colour(j),
                        label=wrap(name, 34), markersize=4)
        ax.axhline(0, color="grey", lw=1, ls="--")
        ax.set_xticks(range(len(levels)), levels)
        ax.set_xlabel("level of play (weakest first)")
        ax.set_ylabel(f"effect ({unit})")
        ax.set_title(wrap(f"{FIGURE_INFO[f][3]}: condition − baseline; 95% CI", 50))
    fig.suptitle(wrap(f"{ctx.exp.name}: each effect at each level of play", 100), fontsize=11)
    _tidy(axes, len(figs))
    return fig


def plot_trace(ctx: Context, df: pd.DataFrame):
    """One panel per figure: the figure at each level against the level's rating (or its
    rank when a level has none), a line per condition, 95% CIs."""
    figs = _figures(df)
    rated = df["rating"].notna().all()
    fig, axes = _axes(len(figs))
    for ax, f in zip(axes, figs):
        rows = df[df["figure"] == f]
        unit = FIGURE_INFO[f][2]
        s = _scale(unit)
        for j, (name, g) in enumerate(rows.groupby("group", sort=False)):
            g = g.sort_values("strength_rank")
            x = g["rating"] if rated else g["strength_rank"]
            down = [_bar(v, s) for v in g["estimate"] - g["ci_low"]]
            up = [_bar(v, s) for v in g["ci_high"] - g["estimate"]]
            ax.errorbar(x, g["estimate"] * s, yerr=[down, up],
                        fmt="o-", capsize=3, color=colour(j), label=wrap(name, 34),
                        markersize=4)
        first = rows.drop_duplicates("level").sort_values("strength_rank")
        if rated:
            for x, lv in zip(first["rating"], first["level"]):
                ax.annotate(lv, (x, 0), xycoords=("data", "axes fraction"), xytext=(0, 3),
                            textcoords="offset points", ha="center", fontsize=8,
                            color="grey")
        else:
            ax.set_xticks(list(first["strength_rank"]), list(first["level"]))
        ax.set_xlabel("playing strength (ladder rating, Elo)" if rated
                      else "level of play (weakest first)")
        ax.set_ylabel(f"{f} ({'%' if unit == 'pp' else unit})")
        ax.set_title(wrap(f"{FIGURE_INFO[f][3]} against playing strength; 95% CI", 50))
    fig.suptitle(wrap(f"{ctx.exp.name}: the skill trace", 100), fontsize=11)
    _tidy(axes, len(figs))
    return fig


def _bar(half: float, scale: float) -> float:
    """An error bar's length: 0 for a CI that does not reach past the estimate (a share of
    0 or 1, a rounding error) or that is missing."""
    v = float(half) * scale
    return v if v > 0 else 0.0


def _axes(n: int):
    """Two panels a row."""
    cols = min(2, n)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 4.4 * rows), squeeze=False)
    return fig, list(axes.flat)


def _tidy(axes, n: int) -> None:
    for ax in axes[n:]:
        ax.set_visible(False)
    finish(axes[:n], legend=True)


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = None  # not an analyses: entry: written after the contrasts, for a skill panel
# (play_levels:, analysis/panel.py)
PLOTS = (("verdicts", "plot_effects", "panel.png"),  # (table, this module's plot function,
         ("skill_trace", "plot_trace", "skill_trace.png"))  # file)


def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    if getattr(ctx.exp, "panel", None) is not None:
        section(ctx, doc, plots)
