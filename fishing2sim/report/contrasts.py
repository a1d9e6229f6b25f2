"""The contrasts section: every headline figure, condition − baseline with its 95% CI (and
the ratio for shares), in plain words first, then a table and a plot."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fishing2sim.analysis.contrasts import FIGURE_INFO, by_construction
from fishing2sim.analysis.stats import Z, wilson

Z80 = 0.8416212335729143  # the 80% normal quantile: a test's power of 80%
from fishing2sim.report.common import TITLES, Context, effect, finish, fmt, isnan, number, wrap

UNIT_WORDS = {"pp": "pp", "cards": "cards", "points": "points", "changes": "changes"}


def _scale(unit: str) -> float:
    return 100.0 if unit == "pp" else 1.0


def _what(row) -> str:
    what = FIGURE_INFO.get(row["figure"], (None, None, None, row["figure"]))[3]
    if row["figure"] == "win_share" and not isnan(row.get("strategy")):
        what = f"`{row['strategy']}`'s win share"
    return what


def plain_lines(ctx: Context, df: pd.DataFrame) -> list[str]:
    """One sentence per contrast: "**A** against **B**: raises overfishing by ...". A win
    share contrast of a strategy that is alone in both lineups is left out (always equal)."""
    out = []
    fam = shown(df)
    method = ctx.exp.multiplicity
    for _, r in fam.iterrows():
        s = _scale(r["unit"])
        adj = (r.get("p_adjusted", math.nan), method, len(fam)) if len(fam) > 1 else None
        text = effect(r["difference"] * s, r["diff_ci_low"] * s, r["diff_ci_high"] * s,
                      UNIT_WORDS[r["unit"]], _what(r), adjusted=adj)
        if r["unit"] == "pp" and not isnan(r["ratio"]):  # also when the difference is 0
            text += f", ×{r['ratio']:.2f} (95% CI {r['ratio_ci_low']:.2f}–" \
                    f"{r['ratio_ci_high']:.2f})"
        if r["diff_ci_low"] <= 0 <= r["diff_ci_high"]:
            text += games_to_tell(ctx, r)
        if r["figure"] == "late_leader_win":
            text += survival_note(ctx, r)
        e = r["estimate"] * s
        b = r["baseline_estimate"] * s
        unit = "%" if r["unit"] == "pp" else f" {UNIT_WORDS[r['unit']]}"
        hw = (r["diff_ci_high"] - r["diff_ci_low"]) * s / 2
        text += f": {number(b, hw)}{unit} → {number(e, hw)}{unit}"
        out.append(f"**{r['name']}** against **{r['baseline_name']}** {text} "
                   f"({r['method']}).")
    return out


def survival_note(ctx: Context, r) -> str:
    """Beside ``late_leader_win`` (a share over the games that scored the round before the
    last): that survival share in the condition and in its baseline, so a change in who
    survives is not read as a change in whether the leader wins."""
    arc = ctx.tables.get("arc")
    if arc is None or not len(arc):
        return ""
    parts = []
    for c, m in ((r["condition"], r["n"]), (r["baseline"], r["n_baseline"])):
        tot = arc[(arc["condition"] == c) & (arc["metric"] == "lead_changes_mean")]
        if not len(tot) or isnan(m):
            return ""
        _, lo, hi = wilson(float(m), float(tot["n"].iloc[0]))
        parts.append(fmt(float(m) / float(tot["n"].iloc[0]), lo, hi, pct=True))
    return (f"; it counts only the games that complete the round before the last, "
            f"{parts[0]} of the condition's games and {parts[1]} of the baseline's")


def games_to_tell(ctx: Context, r) -> str:
    """For a contrast with no measurable effect: about how many games per condition would
    tell a difference of the observed size from none (the CI half-width shrinks as one over
    the square root of the games), or that none at all was seen."""
    d = abs(float(r["difference"]))
    hw = (float(r["diff_ci_high"]) - float(r["diff_ci_low"])) / 2
    try:
        games = int(ctx.exp.conditions[int(r["condition"])].games)
    except (AttributeError, IndexError, TypeError, ValueError):
        return ""
    if isnan(hw) or hw <= 0:
        return ""
    if d <= hw * 1e-3:
        return "; the two conditions came out the same"
    # 80% power: the true difference d lies (1.96 + 0.84) standard errors from 0
    need = games * (hw / d) ** 2 * ((Z + Z80) / Z) ** 2
    if need > 1e9:
        return "; more than a billion games per condition would be needed to tell a " \
               "difference this small from none"
    return (f"; about {_round_games(need):,} games per condition would tell a difference of "
            f"this size from none with 80% power (this run: {games:,})")


def _round_games(n: float) -> int:
    """Two significant figures."""
    if n < 100:
        return int(math.ceil(n))
    k = 10 ** (int(math.log10(n)) - 1)
    return int(math.ceil(n / k) * k)


def shown(df: pd.DataFrame) -> pd.DataFrame:
    """The contrasts worth showing: not a win share that is the same by construction (a
    strategy alone in both lineups: every CI is exactly 0)."""
    return df[~by_construction(df)]


def plot(ctx: Context, df: pd.DataFrame):
    df = shown(df)
    keys = []
    for _, r in df.iterrows():
        k = (r["figure"], None if isnan(r["strategy"]) else r["strategy"])
        if k not in keys:
            keys.append(k)
    fig, axes = plt.subplots(len(keys), 1, squeeze=False,
                             figsize=(10, 0.9 + sum(0.5 * max(2, (df["figure"] == f).sum())
                                                    + 1.2 for f, _ in keys)))
    for ax, (figure, strat) in zip(axes[:, 0], keys):
        sub = df[(df["figure"] == figure)]
        if strat is not None:
            sub = sub[sub["strategy"] == strat]
        unit = sub["unit"].iloc[0]
        s = _scale(unit)
        y = np.arange(len(sub))[::-1]
        d = sub["difference"].astype(float).to_numpy() * s
        lo = sub["diff_ci_low"].astype(float).to_numpy() * s
        hi = sub["diff_ci_high"].astype(float).to_numpy() * s
        err = np.clip(np.nan_to_num(np.vstack([d - lo, hi - d])), 0, None)
        cols = ["#c0392b" if (a > 0 or b < 0) else "#7f8c8d" for a, b in zip(lo, hi)]
        for k in range(len(d)):
            ax.errorbar(d[k:k + 1], y[k:k + 1], xerr=err[:, k:k + 1], fmt="o", color=cols[k],
                        capsize=4)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_yticks(y)
        ax.set_yticklabels([wrap(n, 40) + "\n" + wrap(f"vs {b}", 40) for n, b in
                            zip(sub["name"], sub["baseline_name"])], fontsize=8)
        ax.set_ylim(-0.7, len(sub) - 0.3)
        span = [v for v in np.concatenate([lo, hi, [0.0]]) if not math.isnan(v)]
        a, b = min(span), max(span)
        pad = (b - a) * 0.1 or 1.0
        ax.set_xlim(a - pad, b + pad)
        what = FIGURE_INFO[figure][3] + (f": {strat}" if strat else "")
        ax.set_title(wrap(f"{what} — condition − baseline ({UNIT_WORDS[unit]}, 95% CI)", 80),
                     fontsize=10)
        finish((ax,), legend=False)
    fig.suptitle(f"{ctx.exp.name}: contrasts against the baseline (red: the CI excludes 0)",
                 fontsize=11)
    return fig


def section(ctx: Context, df: pd.DataFrame, plot_file: str | None, doc) -> None:
    doc.h(2, TITLES["contrasts"])
    methods = sorted(set(df["method"]))
    how = []
    if "paired" in methods:
        text = "conditions that play the same deals are compared game by game (paired)"
        if ((df["method"] == "paired") & df["figure"].str.startswith("trump")).any():
            text += ("; a trump figure, an average over the games' trump choices, through "
                     "each game's share of the difference (the delta method)")
        how.append(text)
    if "independent" in methods:
        how.append("conditions with their own deals are compared as independent samples")
    text = "; ".join(how)
    n_fam = len(shown(df))
    method = ctx.exp.multiplicity
    fam = ""
    if n_fam > 1 and method != "none":
        fam = (f" The verdict words (raises, lowers, no measurable effect) take the "
               f"{n_fam} contrasts of this report as one family: "
               + ("Holm's step-down adjustment keeps the chance of even one false verdict "
                  "below 5%" if method == "holm" else
                  "the Benjamini-Hochberg adjustment keeps the expected share of false "
                  "verdicts below 5%")
               + " (`multiplicity: none` turns it off). The 95% CIs shown, and those in "
               "contrasts.csv, are each contrast's own (unadjusted); contrasts.csv holds "
               "both p-values (`p_value`, `p_adjusted`).")
    elif n_fam > 1:
        fam = (f" The {n_fam} contrasts are judged one by one (`multiplicity: none`): among "
               "many, some CIs exclude 0 by chance.")
    doc.p("Each condition against its baseline: the difference condition − baseline with its "
          "95% CI, and for shares the ratio. " + text[:1].upper() + text[1:] + "." + fam)
    # the figures first, then the (often long) names: at a narrow window the difference and
    # its CI are what must show
    head = ["difference [95% CI]", "ratio [95% CI]", "figure", "condition", "baseline",
            "condition value", "baseline value", "adjusted p", "method"]
    rows = []
    for _, r in shown(df).iterrows():
        s = _scale(r["unit"])
        hw = (r["diff_ci_high"] - r["diff_ci_low"]) * s / 2
        u = "%" if r["unit"] == "pp" else ""
        ratio = "–" if isnan(r["ratio"]) else \
            f"{r['ratio']:.3f} [{r['ratio_ci_low']:.3f}, {r['ratio_ci_high']:.3f}]"
        diff = f"{number(r['difference'] * s, hw)} [{number(r['diff_ci_low'] * s, hw)}, " \
            f"{number(r['diff_ci_high'] * s, hw)}] {UNIT_WORDS[r['unit']]}" if not isnan(hw) \
            else f"{number(r['difference'] * s, hw)} {UNIT_WORDS[r['unit']]} (too few games " \
            "for a CI)"
        rows.append([diff, ratio,
                     _what(r).replace("`", ""), r["name"], r["baseline_name"],
                     f"{number(r['estimate'] * s, hw)}{u}",
                     f"{number(r['baseline_estimate'] * s, hw)}{u}",
                     "–" if isnan(r.get("p_adjusted", math.nan)) else
                     f"{r['p_adjusted']:.2g}", r["method"]])
    doc.img("Contrasts against the baseline", plot_file)
    doc.table(head, rows)


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = None  # not an analyses: entry: written first, wherever a condition has a baseline
PLOTS = (("contrasts", "plot", "contrasts.png"),)  # (table, this module's plot function, file)


def plotted(ctx: Context, df: pd.DataFrame) -> bool:
    """The contrasts are drawn only when the plot has a row to show."""
    return len(shown(df)) > 0

def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables`` and the plot files made."""
    df = ctx.tables.get("contrasts")
    if df is not None and len(df):
        section(ctx, df, plots.get("contrasts"), doc)
