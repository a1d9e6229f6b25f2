"""What every section of the report shares: the context (conditions, names, meta), number
formatting, plain-words phrases, plot helpers and the document blocks that become both
summary.md and report.html."""

from __future__ import annotations

from typing import Any, Iterable

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from fishing2sim.report.document import TERMS, Doc, md_table  # noqa: F401  (shared by every section)
from fishing2sim.report.words import (  # noqa: F401  (the reports import them from here too)
    isnan, num, int_, decimals, fmt, ci, pp_ci, max_hw, hw_text, number, ADJUSTMENTS, effect, sentence)
from fishing2sim.report.layout import (  # noqa: F401,E402  (shared by every plot)
    PLOT_LABEL_LINES, TITLES, finish, wrap)
from fishing2sim import __version__
from fishing2sim.analysis.contrasts import FIGURES

DPI = 110
STAT_COLUMNS = ("metric", "n", "estimate", "ci_low", "ci_high", "ci_unit")
#: Table-specific key columns (after ``condition`` and the sweep labels), in sort order.
TABLE_KEYS: dict[str, tuple[str, ...]] = {
    "depletion": ("round", "tier"),
    "overfishing": ("round",),
    "trump_value": ("round",),
    "trump_by_strategy": ("strategy", "round"),
    "strategies": ("strategy", "seat"),
    "scores": ("strategy", "points"),
    "ladder": ("rank", "bot", "kind", "budget"),
    "ladder_pairs": ("bot", "opponent"),
    "arc": ("round", "value"),
    "cards": ("tier", "card"),
    "cards_ranked": ("rank", "card", "tier"),
    "decisions": ("kind", "strategy"),
    "profile": ("strategy", "figure", "buoy", "round"),
}
#: Order in which tables are written and sections appear when ``exp.analyses`` says nothing.
ANALYSES = ("depletion", "overfishing", "trump_value", "strategies")
#: Table-specific value columns written after the statistic columns (not sweep labels).
TABLE_TAIL: dict[str, tuple[str, ...]] = {
    "cards": ("p_value", "p_adjusted"),
    "cards_ranked": tuple(f"{f}{s}" for f in ("overfishing_effect", "drawer_win_effect",
                                               "game_length_effect", "leader_edge_effect",
                                               "catcher_win_share")
                          for s in ("", "_ci_low", "_ci_high", "_n", "_p_value",
                                    "_p_adjusted")
                          if f != "catcher_win_share" or not s.startswith("_p")),
    "profile": ("unit", "games", "se", "sd"),
    "ladder_pairs": ("rating_diff", "rating_diff_ci_low", "rating_diff_ci_high",
                     "residual_z", "residual_elo"),
}
_KNOWN = {"condition", *STAT_COLUMNS, "count"} | {k for ks in TABLE_KEYS.values() for k in ks}


# --------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------
def sort_table(name: str, df: pd.DataFrame) -> pd.DataFrame:
    """Canonical column order and a deterministic row order for table ``name``.

    Columns: ``condition``, the sweep labels (in their given order), the key columns, then
    ``metric, n, estimate, ci_low, ci_high`` (or ``points, count`` for scores), then the
    table's TABLE_TAIL columns; any other column is taken for a sweep label. Rows: by condition, key columns, metric; missing keys first.
    The contrasts table keeps its own columns, rows by condition, figure and strategy.
    """
    df = df.copy()
    if name in ("panel", "verdicts", "skill_trace", "convergence", "profile_differences",
                "examples"):  # their own columns and row order
        return df.reset_index(drop=True)
    if name == "contrasts":
        if len(df):
            order = df["figure"].map({f: i for i, f in enumerate(FIGURES)})
            df = df.assign(_o=order).sort_values(["condition", "_o", "strategy"],
                                                 kind="mergesort", na_position="first")
            df = df.drop(columns="_o")
        return df.reset_index(drop=True)
    keys = [k for k in TABLE_KEYS.get(name, ()) if k in df.columns]
    extra = TABLE_TAIL.get(name, ())
    labels = [c for c in df.columns if c not in _KNOWN and c not in extra]
    tail = [c for c in (*STAT_COLUMNS, "count", *extra)
            if c in df.columns and c not in keys]
    head = (["condition"] if "condition" in df.columns else []) + labels + keys
    df = df[head + tail]
    by = (["condition"] if "condition" in df.columns else []) + keys
    if "metric" in df.columns:
        by.append("metric")
    if by and len(df):
        df = df.sort_values(by, kind="mergesort", na_position="first")
    return df.reset_index(drop=True)


def rows_of(df: pd.DataFrame, metric: str, condition: int | None = None, **eq) -> pd.DataFrame:
    m = df["metric"] == metric
    if condition is not None:
        m &= df["condition"] == condition
    for col, val in eq.items():
        if col not in df.columns:
            continue
        m &= df[col].isna() if val is None else (df[col] == val)
    return df[m.fillna(False).astype(bool)]


# --------------------------------------------------------------------------------------------
# context: conditions, names, meta
# --------------------------------------------------------------------------------------------
class Context:
    def __init__(self, exp: Any, results: Any, tables: dict[str, pd.DataFrame]):
        self.exp = exp
        self.meta = dict(results.meta or {})
        self.tables = tables
        self.conditions = sorted(list(exp.conditions or ()), key=lambda c: c.index)
        self.by_index = {c.index: c for c in self.conditions}
        idx = set(self.by_index)
        for name, df in tables.items():
            if name != "contrasts" and "condition" in df.columns:
                idx |= {int(i) for i in df["condition"].dropna().unique()}
        self.indices = sorted(idx)
        self.sweep = len(self.indices) > 1
        per = self.meta.get("games_per_condition")
        self.games_by: dict[int, int] = {}
        for pos, i in enumerate(self.indices):
            g = getattr(self.by_index.get(i), "games", None)
            if g is None and isinstance(per, (list, tuple)) and pos < len(per):
                g = per[pos]
            elif g is None and isinstance(per, (int, np.integer)):
                g = per
            if g is None:
                g = first(exp.resolved or {}, "games")
            if g is not None:
                self.games_by[i] = int(g)
        vals = sorted(set(self.games_by.values()))
        self.games = vals[0] if len(vals) == 1 else None
        self.games_range = (vals[0], vals[-1]) if vals else None
        players = [self.players(i) for i in self.indices]
        swept = any("players" == k for c in self.conditions
                    for k in c.labels)
        self.player_groups = sorted({p for p in players if p is not None}) \
            if swept and len({p for p in players if p is not None}) > 1 else [None]

    def label(self, index: int, short: bool = False, drop_players: bool = False) -> str:
        c = self.by_index.get(index)
        name = getattr(c, "name", "") or ""
        if name:
            if drop_players:
                p = self.players(index)
                parts = [x for x in name.split(", ") if x != f"{p} players"]
                return ", ".join(parts) or name
            return name
        labels = dict(getattr(c, "labels", None) or {})
        if drop_players:
            labels.pop("players", None)
        if not labels:
            if drop_players and getattr(c, "labels", None):
                return f"{self.players(index)} players"
            return f"condition {index}" if self.sweep or c is None else "all games"
        if short:
            return ", ".join(f"{k.rsplit('.', 1)[-1] if k.count('.') < 2 else _tail(k)}={v_(v)}"
                             for k, v in labels.items())
        return ", ".join(f"{k}={v_(v)}" for k, v in labels.items())

    def players(self, index: int) -> int | None:
        c = self.by_index.get(index)
        p = getattr(c, "players", None)
        return int(p) if p is not None else None

    def group(self, players: int | None) -> list[int]:
        """The conditions of one player count (all of them without a players sweep)."""
        if players is None:
            return list(self.indices)
        return [i for i in self.indices if self.players(i) == players]

    def games_text(self, df: pd.DataFrame | None = None) -> str:
        per = " per condition" if self.sweep else ""
        if self.games is not None:
            return f"{int_(self.games)} games{per}"
        if self.games_range is not None:
            lo, hi = self.games_range
            return f"{int_(lo)}–{int_(hi)} games{per}"
        if df is not None and "n" in df.columns and len(df):
            return f"up to {int_(df['n'].max())} games{per}"
        return f"games{per} unknown"


def _tail(key: str) -> str:
    parts = key.split(".")
    return ".".join(parts[-2:])


def first(d: dict, *keys: str) -> Any:
    for k in keys:
        if k in d and d[k] is not None:
            return d[k]
    return None


def v_(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(v_(x) for x in v) + "]"
    return str(v)


def identities(c: Any) -> tuple:
    """A condition's StrategyIdentity per seat (fishing2sim/strategy/identity.py), resolved when the
    experiment was loaded; () for a condition that carries none."""
    return tuple(getattr(c, "identities", None) or ())


def lineup_names(c: Any) -> list[str]:
    """The names a condition's seats play under, as the tables show them: each seat's
    NAME (its identity's), else the lineup entries as given."""
    ids = identities(c)
    return [i.name for i in ids] if ids else [str(s) for s in getattr(c, "lineup", None) or ()]


def params_note(ident: Any, vec: Any) -> str:
    """The parameters a seat plays with, in words, where they differ from its strategy's
    defaults ("horizon 2"; "" for the defaults or none given): two conditions of one bot
    at two budgets must not read as the same lineup."""
    if vec is None or ident is None:
        return ""
    names, defaults = ident.param_names, ident.defaults
    vec = tuple(float(x) for x in vec)
    if len(vec) != len(defaults):
        return "its own parameters"
    diff = [(n, v) for n, v, d in zip(names, vec, defaults) if v != d]
    if len(diff) > 3:
        return f"{len(diff)} of its {len(vec)} parameters changed"
    return ", ".join(f"{n} {v:g}" for n, v in diff)


def seat_parts(c: Any) -> list[tuple[str, str]]:
    """(name, params_note) per seat of condition ``c``."""
    names = lineup_names(c)
    ids = identities(c)
    params = tuple(getattr(c, "params", None) or ())
    return [(n, params_note(ids[i] if i < len(ids) else None,
                            params[i] if i < len(params) else None))
            for i, n in enumerate(names)]


def seat_labels(c: Any) -> list[str]:
    """lineup_names, each with its seat's parameters where they differ from the bot's
    defaults (``pimc (horizon 2)``): the words of "What was run"."""
    return [f"{n} ({note})" if note else n for n, note in seat_parts(c)]


NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five"}


def players_text(count: int, name: str, note: str) -> str:
    """``five `pimc` players with horizon 2``."""
    return (f"{NUMBERS.get(count, count)} `{name}` players"
            + (f" with {note}" if note else ""))


def seat_md(name: str, note: str) -> str:
    """A seat in markdown: the name as code, then its parameters note in brackets."""
    return f"`{name}`" + (f" ({note})" if note else "")


def strategy_order(ctx: Context, names: Iterable[str]) -> list[str]:
    names = set(names)
    order: list[str] = []
    for c in ctx.conditions:
        for s in lineup_names(c):
            if s in names and s not in order:
                order.append(s)
    return order + sorted(names - set(order))


# --------------------------------------------------------------------------------------------
# plots
# --------------------------------------------------------------------------------------------
def colour(i: int):
    return plt.get_cmap("tab10")(i % 10)


def yerr(rows: pd.DataFrame, scale: float = 1.0) -> np.ndarray:
    e = rows["estimate"].astype(float).to_numpy() * scale
    lo = rows["ci_low"].astype(float).to_numpy() * scale
    hi = rows["ci_high"].astype(float).to_numpy() * scale
    err = np.vstack([e - lo, hi - e])
    return np.clip(np.nan_to_num(err, nan=0.0), 0.0, None)


def scale_to(ax, lows: Iterable[float], highs: Iterable[float], *, zero: bool = True,
             top: float | None = None) -> None:
    """Axis limits from the data (with a margin), including 0 if ``zero``."""
    lo = [float(x) for x in lows if not isnan(x)]
    hi = [float(x) for x in highs if not isnan(x)]
    if not lo or not hi:
        return
    a, b = min(lo), max(hi)
    if zero:
        a, b = min(a, 0.0), max(b, 0.0)
    pad = (b - a) * 0.12 or 1.0
    a2 = a - pad if a < 0 or not zero else 0.0
    b2 = b + pad
    if top is not None:
        b2 = min(b2, top)
    ax.set_ylim(a2, b2)


def panel_title(players: int | None, colon: bool = False) -> str:
    if players is None:
        return ""
    return f"{players} players" + (": " if colon else "")


def package_version() -> str:
    return __version__


def pp_width_note(doc, shown: list, what: str) -> None:
    """The widest 95% CI of the shares in ``shown`` (tables of a section), in percentage
    points: "95% CIs of <what> are at most ... wide." (nothing without a CI)."""
    hw = max_hw(pd.concat(shown), 100) if shown else float("nan")
    if hw == hw:
        doc.p(f"95% CIs of {what} are at most {hw_text(hw, ' pp')} wide.")


def figure_section(ctx: Context, doc, key: str, intro: str, words, figure: str,
                   plot_file: str | None) -> None:
    """The top of a section built around one figure (game arc, per-card impact, decision
    stakes): its heading (TITLES[key]) and ``intro``, each condition's sentences
    (``words(c)``: in a sweep one paragraph after the condition's bold label, else a
    paragraph each), then the figure."""
    doc.h(2, TITLES[key])
    doc.p(intro)
    for c in ctx.indices:
        lines = words(c)
        if ctx.sweep and lines:
            doc.p(f"**{ctx.label(c)}**: " + " ".join(lines))
        else:
            for line in lines:
                doc.p(line)
    doc.img(figure, plot_file)
