"""The behaviour profile's section ("What the players do"): per condition (in a skill panel,
per level of play, the levels of one group side by side) the shares of the players'
decisions and the boats' and the ocean's figures at the end of the game, each with its 95%
CI; and the lines the skill trace shows beside a figure the two strongest levels disagree
on (:func:`disagreement_text`). Definitions: docs/rules.md E, "Behaviour profile"; the
tables: analysis/profile.py."""
from __future__ import annotations

import pandas as pd

from fishing2sim.analysis.panel import group_name
from fishing2sim.analysis.profile import WORDS, describe
from fishing2sim.config.keys import PROFILE_GAMES
from fishing2sim.report.common import Context
from fishing2sim.report.words import fmt, int_

TITLE = "What the players do (behaviour profile)"
SHARE_FIGS = ("follow_contested", "last_contested", "lead_strongest", "trump_more")


def _cell(r) -> str:
    if r is None:
        return "–"
    return fmt(r["estimate"], r["ci_low"], r["ci_high"], pct=r["unit"] == "share", table=True)


def _shown(df: pd.DataFrame, n_rounds: int) -> list[tuple]:
    """The rows of the section's tables: (label, figure, round) — the shares, then the
    boats and the ocean at the end of the game (the last rounds)."""
    rows = [(WORDS[f], f, None) for f in SHARE_FIGS if (df["figure"] == f).any()]
    last = n_rounds
    for f, r in (("boat_spread", last - 2), ("boat_spread", last - 1), ("ocean_draws", last),
                 ("shortfall", last - 1), ("shortfall", last), ("ocean_lacked", last)):
        if ((df["figure"] == f) & (df["round"] == r)).any():
            rows.append((describe(f, r=r), f, r))
    return rows


def _find(df, cond: int, fig: str, r, strategy=None):
    m = (df["condition"] == cond) & (df["figure"] == fig)
    m &= df["round"].isna() if r is None else (df["round"] == r)
    if strategy is not None:
        m &= df["strategy"] == strategy
    rows = df[m]
    return None if not len(rows) else rows.iloc[0]


def _columns(ctx: Context, df: pd.DataFrame) -> list[tuple[str, list]]:
    """(a table's title, its (column name, condition index) list): in a skill panel one
    table per group, its levels as columns; otherwise one table, the conditions as
    columns."""
    exp = ctx.exp
    conds = [c for c in ctx.conditions if (df["condition"] == c.index).any()]
    if getattr(exp, "panel", None) is None:
        return [("", [(c.name or f"condition {c.index}", c.index) for c in conds])]
    groups: dict = {}
    for c in conds:
        groups.setdefault(group_name(c), []).append((c.level, c.index))
    return list(groups.items())


def section(ctx: Context, df: pd.DataFrame, plot, doc) -> None:
    exp = ctx.exp
    doc.h(2, TITLE)
    doc.p("What the players of each lineup do, read from the event logs of a fixed set of "
          "its games: every game of a lineup with a search seat, else its first "
          f"{PROFILE_GAMES:,} games. Shares count decisions with the game as "
          "the CI's unit (one game's decisions are not independent); the other figures are "
          "per game, over the games that reached that round. Definitions: docs/rules.md E, "
          "\"Behaviour profile\"; every round and each buoy's plays by round: profile.csv.")
    n_rounds = max(c.deck.n_rounds for c in ctx.conditions)
    for title, cols in _columns(ctx, df):
        strategies = {i: sorted(set(df[(df["condition"] == i)
                                       & df["figure"].isin(SHARE_FIGS)]["strategy"]))
                      for _, i in cols}
        mixed = any(len(v) > 1 for v in strategies.values())
        rows = []
        for label, fig, r in _shown(df, n_rounds):
            names = sorted({s for v in strategies.values() for s in v}) \
                if mixed and fig in SHARE_FIGS else [None]
            for s in names:
                cells = [_cell(_find(df, i, fig, r, s)) for _, i in cols]
                rows.append([label if s is None else f"{label}, {s}", *cells])
        games = [int_(_games(df, i)) for _, i in cols]
        rows.append(["games read", *games])
        if title:
            doc.p(f"{title}:")
        doc.table(["behaviour (95% CI)", *[c for c, _ in cols]], rows)
    lines = summary_lines(ctx)
    if lines:
        doc.p("Where the two strongest levels disagree on a headline figure, the behaviours "
              "that differ most between them (unpaired 95% CI of the difference: the two "
              "levels' profiles are read from different games):")
        doc.ul(lines)


def _games(df, cond: int) -> int:
    rows = df[df["condition"] == cond]
    return int(rows["games"].max()) if len(rows) else 0


def _diff_text(r) -> str:
    """``behaviour: A 27.4 cards [25.9, 28.8], B 22.3 cards [21.3, 23.2] (A more;
    difference +5.1 cards [3.3, 6.8])``; shares in % and the difference in pp."""
    pct = r.unit == "share"

    def show(e, lo, hi, diff=False):
        text = fmt(e, lo, hi, pct=pct, table=True)
        if pct:
            return text.replace("%", " pp", 1) if diff else text
        return text.replace(" [", f" {r.unit} [", 1)

    a = show(r.strongest_estimate, r.strongest_ci_low, r.strongest_ci_high)
    b = show(r.second_estimate, r.second_ci_low, r.second_ci_high)
    d = show(r.difference, r.diff_ci_low, r.diff_ci_high, diff=True)
    if pct:
        more = "more often" if r.difference > 0 else "less often"
    else:
        more = "more" if r.difference > 0 else "fewer"
    return (f"{r.behaviour}: {r.strongest} {a}, {r.second} {b} "
            f"({r.strongest} {more}; difference {'+' if r.difference > 0 else ''}{d})")


def disagreement_text(ctx: Context, group: str, players: int, figure: str) -> str:
    """The behaviours that differ most between the two strongest levels of a group whose
    headline ``figure`` the skill trace does not find them agreeing on (they disagree, or
    too few games tell), as one clause ("" when there is none)."""
    df = ctx.tables.get("profile_differences")
    if df is None or not len(df):
        return ""
    rows = df[(df["group"] == group) & (df["players"] == players)
              & (df["figure_disagreed"] == figure)].sort_values("rank")
    if not len(rows):
        return ""
    return ("what they do differently, largest first: "
            + "; ".join(_diff_text(r) for r in rows.itertuples()))


def summary_lines(ctx: Context) -> list[str]:
    """One line per group and disagreed figure set: the behaviours that differ most."""
    df = ctx.tables.get("profile_differences")
    if df is None or not len(df):
        return []
    out = []
    for (group, players, strongest, second), g in df.groupby(
            ["group", "players", "strongest", "second"], sort=False):
        figs = ", ".join(dict.fromkeys(g["figure_disagreed"]))
        first = g[g["figure_disagreed"] == g["figure_disagreed"].iloc[0]]
        text = "; ".join(_diff_text(r) for r in first.sort_values("rank").itertuples())
        words = (f"who disagree on {figs}" if (g["trace"] == "no").all() else
                 f"whose {figs} the skill trace cannot yet call the same or different")
        out.append(f"{group} ({players} players), {strongest} against {second}, {words}: "
                   f"{text}.")
    return out


# ---- this section's row of report/sections.py -----------------------------------------------
ANALYSIS = "profile"  # the analyses: entry it reports (analysis/profile.py)
PLOTS = ()  # no plot: its figures are tables (profile.csv)


def write_section(ctx: Context, doc, plots: dict) -> None:
    """The section in ``doc``, from ``ctx.tables``."""
    section(ctx, ctx.tables[ANALYSIS], None, doc)
