"""Write an experiment's report: CSV tables, PNG plots, ``summary.md`` and ``config.yaml``.

The one public function is :func:`write_report`. It is the only module of the package that
imports matplotlib (with the non-interactive Agg backend).

The report is written into a temporary sibling folder (``.<folder>.tmp-<pid>``) and only then
swapped into place: an existing report is renamed aside, the new folder renamed into place and
the old one deleted. If anything fails before the swap, the temporary folder is removed and the
previous report is left untouched, so a failed run never leaves a half-written report.

Inputs are duck-typed (see :func:`write_report`); the figures are those of ``RULES.md`` part E.
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path
from typing import Any, Iterable

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

__all__ = ["write_report", "TABLE_KEYS", "sort_table"]

DPI = 110
STAT_COLUMNS = ("metric", "n", "estimate", "ci_low", "ci_high")
#: Table-specific key columns (after ``condition`` and the sweep labels), in sort order.
TABLE_KEYS: dict[str, tuple[str, ...]] = {
    "depletion": ("round", "tier"),
    "overfishing": ("round",),
    "trump_value": ("round",),
    "strategies": ("strategy", "seat"),
    "scores": ("strategy", "points"),
}
#: Order in which tables are written and sections appear when ``exp.analyses`` says nothing.
ANALYSES = ("depletion", "overfishing", "trump_value", "strategies")
_KNOWN = {"condition", *STAT_COLUMNS, "count"} | {k for ks in TABLE_KEYS.values() for k in ks}


# --------------------------------------------------------------------------------------------
# public entry point
# --------------------------------------------------------------------------------------------
def write_report(exp: Any, results: Any) -> Path:
    """Write the report of ``exp`` from ``results`` into ``exp.output_dir``; return that folder.

    ``exp`` needs ``name``, ``output_dir``, ``resolved`` (plain dict), ``seed``,
    ``config_hash``, ``conditions`` (each with ``index``, ``labels``, ``players``,
    ``deck_sha256``, ``lineup``) and ``analyses``. ``results`` needs ``tables`` (name ->
    DataFrame) and ``meta`` (dict). Files written: ``<table>.csv`` for every table present,
    ``depletion.png``, ``overfishing.png``, ``trump_value.png``, ``win_shares.png`` (each
    only if its table is present), ``summary.md`` and ``config.yaml``.
    """
    return write_folder_atomically(Path(exp.output_dir),
                                   lambda tmp: _write_all(tmp, exp, results))


def write_folder_atomically(out: Path, fill) -> Path:
    """Write a report folder whole or not at all: ``fill(tmp)`` writes the files into a
    temporary folder beside ``out``, which then replaces ``out`` (the old one is kept until
    the new one is in place, and restored if the swap fails). A link to the folder: the
    folder it points to is replaced. Returns the folder written."""
    if out.is_symlink():  # a link to the report folder: replace the folder it points to
        out = out.resolve()
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    pid = os.getpid()
    tmp = parent / f".{out.name}.tmp-{pid}"
    old = parent / f".{out.name}.old-{pid}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    moved_aside = False
    try:
        fill(tmp)
        if out.exists():
            if old.exists():
                shutil.rmtree(old)
            os.rename(out, old)
            moved_aside = True
        try:
            os.rename(tmp, out)
        except BaseException:
            if moved_aside:
                os.rename(old, out)
                moved_aside = False
            raise
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if moved_aside:
        shutil.rmtree(old, ignore_errors=True)
    return out


def _write_all(folder: Path, exp: Any, results: Any) -> None:
    tables = {name: sort_table(name, df) for name, df in (results.tables or {}).items()}
    ctx = _Context(exp, results, tables)
    for name in _table_order(tables):
        tables[name].to_csv(
            folder / f"{name}.csv", index=False, float_format="%.10g", lineterminator="\n"
        )
    plots: dict[str, str] = {}
    for name, fn, fname in (
        ("depletion", _plot_depletion, "depletion.png"),
        ("overfishing", _plot_overfishing, "overfishing.png"),
        ("trump_value", _plot_trump_value, "trump_value.png"),
        ("strategies", _plot_win_shares, "win_shares.png"),
    ):
        if name in tables and len(tables[name]):
            fig = fn(ctx, tables[name])
            try:
                _save_figure(fig, folder / fname)
            finally:
                plt.close(fig)
            plots[name] = fname
    (folder / "summary.md").write_text(_summary(ctx, plots), encoding="utf-8")
    (folder / "config.yaml").write_text(_config_yaml(exp), encoding="utf-8")


def _save_figure(fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, metadata={"Software": None})


def _table_order(tables: dict) -> list[str]:
    known = [n for n in (*ANALYSES, "scores") if n in tables]
    return known + sorted(n for n in tables if n not in known)


# --------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------
def sort_table(name: str, df: pd.DataFrame) -> pd.DataFrame:
    """Canonical column order and a deterministic row order for table ``name``.

    Columns: ``condition``, the sweep labels (in their given order), the key columns, then
    ``metric, n, estimate, ci_low, ci_high`` (or ``points, count`` for scores); any other
    column is kept after those. Rows: by condition, key columns, metric; missing keys first.
    """
    df = df.copy()
    keys = [k for k in TABLE_KEYS.get(name, ()) if k in df.columns]
    labels = [c for c in df.columns if c not in _KNOWN]
    tail = [c for c in (*STAT_COLUMNS, "count") if c in df.columns and c not in keys]
    head = (["condition"] if "condition" in df.columns else []) + labels + keys
    df = df[head + tail]
    by = (["condition"] if "condition" in df.columns else []) + keys
    if "metric" in df.columns:
        by.append("metric")
    if by and len(df):
        df = df.sort_values(by, kind="mergesort", na_position="first")
    return df.reset_index(drop=True)


def _rows(df: pd.DataFrame, metric: str, condition: int | None = None, **eq) -> pd.DataFrame:
    m = df["metric"] == metric
    if condition is not None:
        m &= df["condition"] == condition
    for col, val in eq.items():
        m &= df[col].isna() if val is None else (df[col] == val)
    return df[m.fillna(False).astype(bool)]


# --------------------------------------------------------------------------------------------
# context: conditions, labels, meta
# --------------------------------------------------------------------------------------------
class _Context:
    def __init__(self, exp: Any, results: Any, tables: dict[str, pd.DataFrame]):
        self.exp = exp
        self.meta = dict(getattr(results, "meta", None) or {})
        self.tables = tables
        self.conditions = sorted(list(exp.conditions or ()), key=lambda c: c.index)
        self.by_index = {c.index: c for c in self.conditions}
        idx = set(self.by_index)
        for df in tables.values():
            if "condition" in df.columns:
                idx |= {int(i) for i in df["condition"].dropna().unique()}
        self.indices = sorted(idx)
        self.sweep = len(self.indices) > 1
        # games per condition: the condition's own ``games``, else meta["games_per_condition"]
        # (a list in condition order, or one number), else the resolved config's ``games``
        per = self.meta.get("games_per_condition")
        self.games_by: dict[int, int] = {}
        for pos, i in enumerate(self.indices):
            g = getattr(self.by_index.get(i), "games", None)
            if g is None and isinstance(per, (list, tuple)) and pos < len(per):
                g = per[pos]
            elif g is None and isinstance(per, (int, np.integer)):
                g = per
            if g is None:
                g = _first(exp.resolved or {}, "games")
            if g is not None:
                self.games_by[i] = int(g)
        vals = sorted(set(self.games_by.values()))
        self.games = vals[0] if len(vals) == 1 else None
        self.games_range = (vals[0], vals[-1]) if vals else None

    def label(self, index: int, short: bool = False) -> str:
        c = self.by_index.get(index)
        labels = dict(getattr(c, "labels", None) or {})
        if not labels:
            return f"condition {index}" if self.sweep or c is None else "all games"
        if short:
            return ", ".join(f"{k.rsplit('.', 1)[-1] if k.count('.') < 2 else _tail(k)}={_v(v)}"
                             for k, v in labels.items())
        return ", ".join(f"{k}={_v(v)}" for k, v in labels.items())

    def players(self, index: int) -> int | None:
        c = self.by_index.get(index)
        p = getattr(c, "players", None)
        return int(p) if p is not None else None

    def games_text(self, df: pd.DataFrame | None = None) -> str:
        per = " per condition" if self.sweep else ""
        if self.games is not None:
            return f"{_int(self.games)} games{per}"
        if self.games_range is not None:
            lo, hi = self.games_range
            return f"{_int(lo)}–{_int(hi)} games{per}"
        if df is not None and "n" in df.columns and len(df):
            return f"up to {_int(df['n'].max())} games{per}"
        return f"games{per} unknown"


def _tail(key: str) -> str:
    parts = key.split(".")
    return ".".join(parts[-2:])


def _first(d: dict, *keys: str) -> Any:
    for k in keys:
        if k in d and d[k] is not None:
            return d[k]
    return None


def _v(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_v(x) for x in v) + "]"
    return str(v)


def _name(s: Any) -> str:
    """A lineup entry's display name: a strategy name, or a file path's stem."""
    s = str(getattr(s, "name", s))
    return Path(s).stem if ("/" in s or s.endswith(".py")) else s


# --------------------------------------------------------------------------------------------
# number formatting
# --------------------------------------------------------------------------------------------
def _isnan(x: Any) -> bool:
    try:
        return x is None or x is pd.NA or bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def _num(x: Any) -> str:
    """A percentile: at most one decimal, no trailing ``.0``."""
    return f"{float(x):.1f}".removesuffix(".0")


def _int(x: Any) -> str:
    if _isnan(x):
        return "–"
    return f"{int(x):,}"


def _decimals(hw: float, default: int) -> int:
    if _isnan(hw):
        return default
    if hw <= 0:
        return min(default, 1)
    return int(min(4, max(default if default < 1 else 1, -math.floor(math.log10(hw)))))


def _fmt(est: Any, lo: Any = None, hi: Any = None, *, pct: bool = False, table: bool = False,
         default: int = 2, n: Any = None, unit: str = "") -> str:
    """``12.3% [11.9, 12.7]`` (table) or ``12.3% (95% CI 11.9–12.7%, n = 2,000)`` (text).

    No CI is shown when it is NaN; ``unit`` follows the estimate in text mode.
    """
    if _isnan(est):
        return "–"
    s = 100.0 if pct else 1.0
    u = "%" if pct else ""
    e = float(est) * s
    ntext = f", n = {_int(n)}" if n is not None else ""
    has_ci = not (_isnan(lo) or _isnan(hi))
    hw = (float(hi) - float(lo)) * s / 2 if has_ci else float("nan")
    d = _decimals(hw, 1 if pct else default)
    if not has_ci:
        return f"{e:.{d}f}{u}{unit}" + (f" (n = {_int(n)})" if n is not None else "")
    l, h = float(lo) * s, float(hi) * s
    if table:
        return f"{e:.{d}f}{u} [{l:.{d}f}, {h:.{d}f}]"
    sep = " to " if l < 0 else "–"
    return f"{e:.{d}f}{u}{unit} (95% CI {l:.{d}f}{sep}{h:.{d}f}{u}{ntext})"


def _ci(row: Any, **kw: Any) -> str:
    """:func:`_fmt` of a table row's estimate and CI."""
    return _fmt(row["estimate"], row["ci_low"], row["ci_high"], **kw)


def _max_hw(rows: pd.DataFrame, scale: float = 1.0) -> float:
    if rows is None or not len(rows):
        return float("nan")
    hw = (rows["ci_high"].astype(float) - rows["ci_low"].astype(float)) * scale / 2
    hw = hw.dropna()
    return float(hw.max()) if len(hw) else float("nan")


def _hw_text(hw: float, unit: str) -> str:
    if _isnan(hw):
        return ""
    d = _decimals(hw / 10, 1)
    return f"±{hw:.{d}f}{unit}"


def _yerr(rows: pd.DataFrame, scale: float = 1.0) -> np.ndarray:
    e = rows["estimate"].astype(float).to_numpy() * scale
    lo = rows["ci_low"].astype(float).to_numpy() * scale
    hi = rows["ci_high"].astype(float).to_numpy() * scale
    err = np.vstack([e - lo, hi - e])
    return np.clip(np.nan_to_num(err, nan=0.0), 0.0, None)


# --------------------------------------------------------------------------------------------
# plots
# --------------------------------------------------------------------------------------------
def _colour(i: int):
    return plt.get_cmap("tab10")(i % 10)


def _finish(fig, ax_list: Iterable, ctx: _Context, legend: bool) -> None:
    for ax in ax_list:
        ax.grid(True, alpha=0.3)
        if legend and ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, frameon=False)


def _plot_depletion(ctx: _Context, df: pd.DataFrame):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    for i, c in enumerate(ctx.indices):
        col = _colour(i)
        lab = ctx.label(c, short=True)
        mean = _rows(df, "ocean_after_draws_mean", c).sort_values("round")
        if len(mean):
            r = mean["round"].astype(float).to_numpy()
            ax1.plot(r, mean["estimate"].astype(float), marker="o", color=col, label=lab)
            lo = _rows(df, "ocean_after_draws_p05", c)[["round", "estimate"]]
            hi = _rows(df, "ocean_after_draws_p95", c)[["round", "estimate"]]
            band = lo.merge(hi, on="round", suffixes=("_lo", "_hi")).sort_values("round")
            if len(band):
                ax1.fill_between(band["round"].astype(float), band["estimate_lo"].astype(float),
                                 band["estimate_hi"].astype(float), color=col, alpha=0.15,
                                 linewidth=0)
        empty = _rows(df, "ocean_empty_share", c).sort_values("round")
        if len(empty):
            ax2.errorbar(empty["round"].astype(float), empty["estimate"].astype(float) * 100,
                         yerr=_yerr(empty, 100), marker="o", capsize=3, color=col, label=lab)
    ax1.set(xlabel="round", ylabel="cards left in the ocean",
            title="Ocean after each round's draws\n(line: mean; band: 5th–95th percentile)")
    ax1.set_ylim(bottom=0)
    ax2.set(xlabel="round", ylabel="games with an empty ocean (%)",
            title="Share of games whose ocean is empty by round r\n(95% CI)")
    ax2.set_ylim(-2, 102)
    for ax in (ax1, ax2):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(f"{ctx.exp.name}: ocean depletion — {ctx.games_text(df)}", fontsize=12)
    _finish(fig, (ax1, ax2), ctx, legend=ctx.sweep)
    return fig


def _plot_overfishing(ctx: _Context, df: pd.DataFrame):
    if ctx.sweep:
        rows = pd.concat([_rows(df, "overfished_share", c, round=None) for c in ctx.indices])
        fig, ax = plt.subplots(figsize=(max(6.5, 1.1 * len(rows) + 2), 4.8))
        x = np.arange(len(rows))
        y = rows["estimate"].astype(float).to_numpy() * 100
        ax.errorbar(x, y, yerr=_yerr(rows, 100), marker="o", markersize=7, capsize=5,
                    linestyle="-", color=_colour(0))
        for xi, yi in zip(x, y):
            ax.annotate(f"{yi:.1f}%", (xi, yi), textcoords="offset points", xytext=(8, 4),
                        fontsize=8)
        ax.set_xticks(x)
        ax.set_xlim(-0.5, len(rows) - 0.5)
        labels = [ctx.label(int(c), short=True) for c in rows["condition"]]
        ax.set_xticklabels(labels, rotation=30 if max(map(len, labels), default=0) > 12 else 0,
                           ha="right" if max(map(len, labels), default=0) > 12 else "center")
        ax.set(ylabel="games ending by overfishing (%)", xlabel="condition",
               title=f"{ctx.exp.name}: share of games ending by overfishing (95% CI)\n"
                     f"{ctx.games_text(df)}")
        ax.set_ylim(bottom=0)
    else:
        c = ctx.indices[0] if ctx.indices else None
        rows = _rows(df, "overfished_in_round_share", c).dropna(subset=["round"])
        rows = rows.sort_values("round")
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        x = rows["round"].astype(int).to_numpy()
        y = rows["estimate"].astype(float).to_numpy() * 100
        ax.bar(x, y, yerr=_yerr(rows, 100), capsize=4, color=_colour(0), alpha=0.85)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        overall = _rows(df, "overfished_share", c, round=None)
        tot = (f"; overall {_ci(overall.iloc[0], pct=True)}"
               if len(overall) else "")
        ax.set(xlabel="round in which the game ended by overfishing", ylabel="games (%)",
               title=f"{ctx.exp.name}: games ending by overfishing, by round (95% CI)\n"
                     f"{ctx.games_text(df)}{tot}")
        ax.set_ylim(bottom=0)
    _finish(fig, (ax,), ctx, legend=False)
    return fig


def _plot_trump_value(ctx: _Context, df: pd.DataFrame):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    k = len(ctx.indices)
    width = 0.7
    nser = 2 * k
    for i, c in enumerate(ctx.indices):
        suffix = f" — {ctx.label(c, short=True)}" if ctx.sweep else ""
        for ax, unit, scale in ((ax1, "points", 1.0), (ax2, "win", 100.0)):
            for j, (metric, half, name, marker, ls) in enumerate((
                (f"policy_gain_{unit}", 1.0, "policy gain", "o", "-"),
                (f"stakes_{unit}", 0.5, "stakes/2", "s", "--"),
            )):
                rows = _rows(df, metric, c).dropna(subset=["round"]).sort_values("round")
                if not len(rows):
                    continue
                s = 2 * i + j
                off = (s - (nser - 1) / 2) * (width / max(nser, 1)) if nser > 1 else 0.0
                ax.errorbar(rows["round"].astype(float) + off,
                            rows["estimate"].astype(float) * scale * half,
                            yerr=_yerr(rows, scale * half), marker=marker, linestyle=ls,
                            capsize=3, color=_colour(i) if k > 1 else _colour(j),
                            label=name + suffix)
    for ax in (ax1, ax2):
        ax.axhline(0, color="black", linewidth=0.8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax1.set(xlabel="round of the trump choice", ylabel="chooser's final points",
            title="Trump choice value in points (95% CI)")
    ax2.set(xlabel="round of the trump choice", ylabel="chooser's win share (percentage points)",
            title="Trump choice value in win share (95% CI)")
    fig.suptitle(f"{ctx.exp.name}: what the trump choice is worth — policy gain vs stakes/2 "
                 f"(the most any policy could gain); {ctx.games_text()}", fontsize=11)
    _finish(fig, (ax1, ax2), ctx, legend=True)
    return fig


def _strategy_order(ctx: _Context, names: Iterable[str]) -> list[str]:
    names = set(names)
    order: list[str] = []
    for c in ctx.conditions:
        for s in getattr(c, "lineup", None) or ():
            s = _name(s)
            if s in names and s not in order:
                order.append(s)
    return order + sorted(names - set(order))


def _plot_win_shares(ctx: _Context, df: pd.DataFrame):
    ws = df[(df["metric"] == "win_share") & df["strategy"].notna() & df["seat"].isna()]
    strategies = _strategy_order(ctx, ws["strategy"].astype(str).unique())
    k, m = len(ctx.indices), max(len(strategies), 1)
    fig, ax = plt.subplots(figsize=(max(6.5, 0.55 * k * m + 3), 4.8))
    width = 0.8 / m
    for j, s in enumerate(strategies):
        xs, ys, errs = [], [], []
        for g, c in enumerate(ctx.indices):
            r = ws[(ws["condition"] == c) & (ws["strategy"].astype(str) == s)]
            if not len(r):
                continue
            xs.append(g + (j - (m - 1) / 2) * width)
            ys.append(float(r["estimate"].iloc[0]) * 100)
            errs.append(_yerr(r.iloc[:1], 100)[:, 0])
        if not xs:
            continue
        err = np.array(errs).T
        ax.bar(xs, ys, width=width * 0.92, yerr=err, capsize=3, color=_colour(j), label=s)
        for x, y, e in zip(xs, ys, err[1]):
            ax.annotate(f"{y:.1f}%", (x, y + e), textcoords="offset points", xytext=(0, 2),
                        ha="center", fontsize=7)
    fair_done = False
    for g, c in enumerate(ctx.indices):
        p = ctx.players(c)
        if p:
            ax.hlines(100 / p, g - 0.45, g + 0.45, colors="black", linestyles="dashed",
                      linewidth=1, label=None if fair_done else "1/players")
            fair_done = True
    if ctx.sweep:
        ax.set_xticks(range(k))
        ax.set_xticklabels([ctx.label(c, short=True) for c in ctx.indices])
    else:
        ax.set_xticks([])
    ax.set(ylabel="win share (%)", title=f"{ctx.exp.name}: win share per strategy (95% CI; "
           f"ties share the win)\n{ctx.games_text()}")
    ax.set_ylim(bottom=0)
    _finish(fig, (ax,), ctx, legend=True)
    return fig


# --------------------------------------------------------------------------------------------
# summary.md
# --------------------------------------------------------------------------------------------
def _sentence(who: str, text: str) -> str:
    text = text[:1].upper() + text[1:] if not who else text
    return f"{who}{text}."


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def _summary(ctx: _Context, plots: dict[str, str]) -> str:
    exp, meta = ctx.exp, ctx.meta
    res = exp.resolved or {}
    L: list[str] = [f"# {exp.name}", ""]
    L.append("## What was run")
    L.append("")
    ruleset = _first(res, "ruleset") or getattr(exp, "ruleset", None) or "fishing2"
    players = sorted({p for p in (ctx.players(c) for c in ctx.indices) if p is not None})
    lineups = []
    for c in ctx.conditions:
        lu = ", ".join(_name(s) for s in (getattr(c, "lineup", None) or ()))
        if lu and lu not in lineups:
            lineups.append(lu)
    rulesets = []
    for c in ctx.conditions:
        r = getattr(getattr(c, "deck", None), "ruleset", None)
        if r and r not in rulesets:
            rulesets.append(r)
    if len(rulesets) > 1:  # a swept ruleset: each condition names its own below
        L.append("- Rulesets: " + ", ".join(f"`{r}`" for r in rulesets) + " (per condition)")
    else:
        L.append(f"- Ruleset: `{rulesets[0] if rulesets else ruleset}`")
    L.append(f"- Players: {', '.join(map(str, players)) or '–'}")
    L.append(f"- Games per condition: {ctx.games_text().split(' games')[0]}")
    L.append(f"- Seed: {exp.seed}; config hash: `{exp.config_hash}`")
    if len(lineups) == 1:
        L.append(f"- Lineup (seat 0, 1, ...): {lineups[0]}")
    elif lineups:
        L.append("- Lineups: per condition, below")
    elapsed = _first(meta, "elapsed_s", "elapsed_seconds", "elapsed")
    gps = _first(meta, "games_per_second")
    workers = _first(meta, "workers")
    version = _first(meta, "package_version", "version") or _package_version()
    run = []
    if elapsed is not None:
        run.append(f"{float(elapsed):.1f} s")
    if gps is not None:
        run.append(f"{float(gps):,.0f} games/s")
    if workers is not None:
        run.append(f"{workers} worker{'s' if workers != 1 else ''}")
    L.append(f"- Run: {', '.join(run) or '–'}; fishing2sim {version}")
    L.append(f"- Analyses: {', '.join(exp.analyses) or '–'}")
    L.append("")
    crow = []
    for c in ctx.indices:
        cond = ctx.by_index.get(c)
        lu = ", ".join(_name(s) for s in (getattr(cond, "lineup", None) or ()))
        sha = str(getattr(cond, "deck_sha256", "") or "")
        crow.append([str(c), ctx.label(c), _int(ctx.players(c)), _int(ctx.games_by.get(c)),
                     lu or "–", f"`{sha[:12]}`" if sha else "–"])
    L.append(_md_table(["condition", "labels", "players", "games", "lineup", "deck sha256"],
                       crow))
    L.append("")
    L.append("Every estimate below comes with its number of observations *n* and a 95% "
             "confidence interval (shown as [low, high]). Full tables: the `.csv` files in this "
             "folder; the resolved configuration: `config.yaml`.")
    L.append("")
    sections = {
        "depletion": _section_depletion,
        "overfishing": _section_overfishing,
        "trump_value": _section_trump,
        "strategies": _section_strategies,
    }
    names = list(exp.analyses or ()) or [a for a in ANALYSES if a in ctx.tables]
    for a in names:
        fn = sections.get(a)
        if fn is None:
            continue
        df = ctx.tables.get(a)
        if df is None or not len(df):
            L += [f"## {_TITLES[a]}", "", "No results for this analysis.", ""]
            continue
        L += fn(ctx, df, plots.get(a))
    return "\n".join(L).rstrip() + "\n"


_TITLES = {
    "depletion": "Ocean depletion",
    "overfishing": "Overfishing",
    "trump_value": "Trump-choice value",
    "strategies": "Strategies",
}


def _package_version() -> str:
    from . import __version__

    return __version__


def _img(title: str, fname: str | None) -> list[str]:
    return [f"![{title}]({fname})", ""] if fname else []


def _cond_col(ctx: _Context) -> bool:
    return ctx.sweep


def _section_depletion(ctx, df, plot) -> list[str]:
    L = [f"## {_TITLES['depletion']}", ""]
    cc = _cond_col(ctx)
    head = (["condition"] if cc else []) + [
        "round", "n (mean)", "ocean cards left (mean)", "p05–p95", "n (share)",
        "empty ocean share"]
    rows, paras, shown_mean, shown_empty = [], [], [], []
    for c in ctx.indices:
        mean = _rows(df, "ocean_after_draws_mean", c).dropna(subset=["round"])
        empty = _rows(df, "ocean_empty_share", c).dropna(subset=["round"])
        p05 = _rows(df, "ocean_after_draws_p05", c)
        p95 = _rows(df, "ocean_after_draws_p95", c)
        rounds = sorted({int(r) for r in pd.concat([mean["round"], empty["round"]]).dropna()})
        for r in rounds:
            mr = mean[mean["round"] == r]
            er = empty[empty["round"] == r]
            lo = p05[p05["round"] == r]["estimate"]
            hi = p95[p95["round"] == r]["estimate"]
            rows.append(([ctx.label(c)] if cc else []) + [
                str(r), _int(mr["n"].iloc[0]) if len(mr) else "–",
                _ci(mr.iloc[0], table=True) if len(mr) else "–",
                f"{_num(lo.iloc[0])}–{_num(hi.iloc[0])}" if len(lo) and len(hi) else "–",
                _int(er["n"].iloc[0]) if len(er) else "–",
                _ci(er.iloc[0], pct=True, table=True) if len(er) else "–",
            ])
        shown_mean.append(mean)
        shown_empty.append(empty)
        bits = []
        if len(mean):
            last = mean.sort_values("round").iloc[-1]
            bits.append(f"after round {int(last['round'])}'s draws the ocean holds "
                        f"{_ci(last, unit=' cards', n=last['n'])}"
                        " on average")
        if len(empty):
            e = empty.sort_values("round")
            first = e[e["estimate"].astype(float) >= 0.5]
            if len(first):
                f = first.iloc[0]
                bits.append(f"the ocean is empty by round {int(f['round'])} in "
                            f"{_ci(f, pct=True, unit=' of games', n=f['n'])}")
            else:
                f = e.iloc[-1]
                bits.append(f"by round {int(f['round'])} it is empty in only "
                            f"{_ci(f, pct=True, unit=' of games', n=f['n'])}")
        tiers = _rows(df, "tier_reached_share", c).dropna(subset=["tier"])
        if len(tiers):
            # one row per tier: the overall row (round <NA>) or else the last round's
            tiers = tiers.sort_values(["tier", "round"], na_position="last")
            tiers = tiers.groupby("tier", sort=True).tail(1)
            last_r = tiers["round"].dropna()
            when = (f"by round {int(last_r.max())}" if len(last_r) == len(tiers)
                    else "in the whole game")
            tb = ", ".join(f"tier {int(t['tier'])} {_ci(t, pct=True, table=True)}"
                           for _, t in tiers.iterrows())
            bits.append(f"share of games in which a card of each tier is drawn {when} "
                        f"(n = {_int(tiers['n'].max())}): {tb}")
        if bits:
            who = f"**{ctx.label(c)}**: " if cc else ""
            paras.append(_sentence(who, "; ".join(bits)))
    L.append("Cards left in the ocean after each round's draws (mean and 5th–95th percentile "
             "of games) and the share of games whose ocean is empty by round r.")
    L.append("")
    L += [p + "\n" for p in paras]
    hw_m = _max_hw(pd.concat(shown_mean)) if shown_mean else float("nan")
    hw_e = _max_hw(pd.concat(shown_empty), 100) if shown_empty else float("nan")
    widths = [t for t in (_hw_text(hw_m, " cards"), _hw_text(hw_e, " percentage points")) if t]
    if widths:
        L.append(f"95% CIs are at most {' (means) and '.join(widths)}"
                 f"{' (empty share)' if len(widths) == 2 else ''} wide.")
        L.append("")
    L += _img("Ocean depletion", plot)
    L += [_md_table(head, rows), ""]
    return L


def _share_body(intro: str, paras: list[str], shown: list, what: str, title: str,
                plot: str | None, head: list[str], rows: list[list[str]]) -> list[str]:
    """A section about shares: its intro, one paragraph per condition, the widest 95% CI of
    ``what`` (from the rows in ``shown``), the plot and the table."""
    L = [intro, ""] + [p + "\n" for p in paras]
    hw = _max_hw(pd.concat(shown), 100) if shown else float("nan")
    if not _isnan(hw):
        L += [f"95% CIs of {what} are at most {_hw_text(hw, ' percentage points')} wide.", ""]
    return L + _img(title, plot) + [_md_table(head, rows), ""]


def _section_overfishing(ctx, df, plot) -> list[str]:
    L = [f"## {_TITLES['overfishing']}", ""]
    head = ["condition", "n", "overfished share", "by a draw-1-card", "mean rounds played"]
    rows, shown, paras = [], [], []
    for c in ctx.indices:
        o = _rows(df, "overfished_share", c, round=None)
        d = _rows(df, "overfished_by_draw_1_card_share", c, round=None)
        m = _rows(df, "mean_rounds_played", c, round=None)
        if not (len(o) or len(d) or len(m)):
            continue
        shown.append(o)
        n = o["n"].iloc[0] if len(o) else (m["n"].iloc[0] if len(m) else None)

        def cell(r, pct):
            return _ci(r.iloc[0], pct=pct, table=True) \
                if len(r) else "–"

        rows.append([ctx.label(c), _int(n), cell(o, True), cell(d, True), cell(m, False)])
        if len(o):
            rr = _rows(df, "overfished_in_round_share", c).dropna(subset=["round"])
            peak = ""
            if len(rr) and float(rr["estimate"].max()) > 0:
                p = rr.sort_values(["estimate", "round"], ascending=[False, True]).iloc[0]
                peak = (f"; most often in round {int(p['round'])}: "
                        f"{_ci(p, pct=True, unit=' of games', n=p['n'])}")
            who = f"**{ctx.label(c)}**: " if ctx.sweep else ""
            paras.append(_sentence(who, f"{_ci(o.iloc[0], pct=True, unit=' of games', n=n)} "
                         f"end by overfishing{peak}"))
    L += _share_body("Share of games that end because the ocean cannot supply a draw "
                     "(RULES.md A11), how many of them at a draw-1-card buoy, and in which "
                     "round.", paras, shown, "the overfished share", "Overfishing", plot,
                     head, rows)
    if not ctx.sweep and ctx.indices:
        rr = _rows(df, "overfished_in_round_share", ctx.indices[0]).dropna(subset=["round"])
        if len(rr):
            rr = rr.sort_values("round")
            L.append("By round:")
            L.append("")
            L.append(_md_table(["round", "n", "games overfished in this round"], [
                [str(int(r["round"])), _int(r["n"]),
                 _ci(r, pct=True, table=True)]
                for _, r in rr.iterrows()]))
            L.append("")
    return L


def _section_trump(ctx, df, plot) -> list[str]:
    L = [f"## {_TITLES['trump_value']}", ""]
    cc = _cond_col(ctx)
    head = (["condition"] if cc else []) + [
        "round", "n choices", "policy gain (points)", "stakes/2 (points)",
        "policy gain (win share)", "stakes/2 (win share)", "light chosen"]
    rows, shown_p, shown_w, paras = [], [], [], []
    for c in ctx.indices:
        sub = df[(df["condition"] == c) & df["round"].notna()]
        rounds = sorted({int(r) for r in sub["round"]})

        def get(metric, r):
            x = _rows(sub, metric, None, round=r)
            return x.iloc[0] if len(x) else None

        def cell(row, half=1.0, pct=False):
            if row is None:
                return "–"
            return _fmt(row["estimate"] * half, row["ci_low"] * half, row["ci_high"] * half,
                        pct=pct, table=True)

        best = None
        for r in rounds:
            pg, st = get("policy_gain_points", r), get("stakes_points", r)
            pw, sw = get("policy_gain_win", r), get("stakes_win", r)
            lc = get("light_chosen_share", r)
            n = next((x["n"] for x in (pg, st, pw, sw, lc) if x is not None), None)
            rows.append(([ctx.label(c)] if cc else []) + [
                str(r), _int(n), cell(pg), cell(st, 0.5), cell(pw, pct=True),
                cell(sw, 0.5, pct=True), cell(lc, pct=True)])
            if st is not None and (best is None or st["estimate"] > best[1]["estimate"]):
                best = (r, st, pg)
        shown_p.append(pd.concat([_rows(sub, "policy_gain_points"),
                                  _rows(sub, "stakes_points").assign(
                                      ci_low=lambda d: d.ci_low / 2,
                                      ci_high=lambda d: d.ci_high / 2)]))
        shown_w.append(pd.concat([_rows(sub, "policy_gain_win"),
                                  _rows(sub, "stakes_win").assign(
                                      ci_low=lambda d: d.ci_low / 2,
                                      ci_high=lambda d: d.ci_high / 2)]))
        if best is not None:
            r, st, pg = best
            who = f"**{ctx.label(c)}**: " if cc else ""
            txt = (f"the choice matters most in round {r}: stakes/2 = "
                   + _fmt(st["estimate"] / 2, st["ci_low"] / 2, st["ci_high"] / 2,
                          unit=" points", n=st["n"]) +
                   " per choice")
            if pg is not None:
                txt += (f", while the strategies' choices gain "
                        f"{_ci(pg, unit=' points', n=pg['n'])}")
            paras.append(_sentence(who, txt))
    L.append("For each trump choice the game is finished once with each shade. *Policy gain* "
             "is the mean of (chosen − other)/2: what the strategies' choices gain over a coin "
             "flip. *Stakes/2* (half the root mean square of light − dark, from independent "
             "pairs) bounds what any trump policy could gain per choice (RULES.md E).")
    L.append("")
    L += [p + "\n" for p in paras]
    hp = _max_hw(pd.concat(shown_p)) if shown_p else float("nan")
    hwn = _max_hw(pd.concat(shown_w), 100) if shown_w else float("nan")
    widths = [t for t in (_hw_text(hp, " points"), _hw_text(hwn, " percentage points")) if t]
    if widths:
        L += [f"95% CIs are at most {' and '.join(widths)} wide.", ""]
    L += _img("Trump-choice value", plot)
    L += [_md_table(head, rows), ""]
    return L


def _section_strategies(ctx, df, plot) -> list[str]:
    L = [f"## {_TITLES['strategies']}", ""]
    cc = _cond_col(ctx)
    head = (["condition"] if cc else []) + [
        "strategy", "n", "win share", "fair share (1/players)", "mean points"]
    rows, shown, paras = [], [], []
    strat = df[df["strategy"].notna() & df["seat"].isna()]
    order = _strategy_order(ctx, strat["strategy"].astype(str).unique())
    for c in ctx.indices:
        sub = strat[strat["condition"] == c]
        p = ctx.players(c)
        best = None
        for s in order:
            ss = sub[sub["strategy"].astype(str) == s]
            w = _rows(ss, "win_share")
            m = _rows(ss, "mean_points")
            if not (len(w) or len(m)):
                continue
            shown.append(w)
            n = w["n"].iloc[0] if len(w) else m["n"].iloc[0]
            rows.append(([ctx.label(c)] if cc else []) + [
                s, _int(n),
                _ci(w.iloc[0], pct=True, table=True)
                if len(w) else "–",
                f"{100 / p:.1f}%" if p else "–",
                _ci(m.iloc[0], table=True) if len(m) else "–",
            ])
            if len(w) and (best is None or w["estimate"].iloc[0] > best[1]["estimate"]):
                best = (s, w.iloc[0])
        bits = []
        if best is not None:
            s, w = best
            bits.append(f"`{s}` wins most often, "
                        f"{_ci(w, pct=True, unit=' of its games', n=w['n'])}"
                        + (f", against a fair share of {100 / p:.1f}%" if p else ""))
        whole = df[(df["condition"] == c) & df["strategy"].isna()]
        for metric, text, pct in (
            ("first_leader_win_share", "the round-1 leader wins", True),
            ("points_spread_mean", "the points spread (max − min) averages", False),
            ("completed_share", "games completed", True),
        ):
            r = _rows(whole, metric, None, seat=None)
            if len(r):
                r = r.iloc[0]
                bits.append(f"{text} {_ci(r, pct=pct, unit='' if pct else ' points', n=r['n'])}")
        seats = whole[(whole["metric"] == "win_share") & whole["seat"].notna()].sort_values("seat")
        if len(seats):
            bits.append("win share by seat: " + ", ".join(
                f"seat {int(r['seat'])} {_ci(r, pct=True, table=True)}"
                for _, r in seats.iterrows()) + f" (n = {_int(seats['n'].max())})")
        if bits:
            who = f"**{ctx.label(c)}**: " if cc else ""
            paras.append(_sentence(who, "; ".join(bits)))
    L += _share_body("Win share per strategy (tied winners share the win) and mean final "
                     "points.", paras, shown, "the win shares", "Win share per strategy", plot,
                     head, rows)
    return L


# --------------------------------------------------------------------------------------------
# config.yaml
# --------------------------------------------------------------------------------------------
def _plain(x: Any) -> Any:
    """Make ``x`` safe for ``yaml.safe_dump`` (numpy scalars, tuples, paths, NA)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        items = sorted(x, key=str) if isinstance(x, (set, frozenset)) else x
        return [_plain(v) for v in items]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return [_plain(v) for v in x.tolist()]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    if x is pd.NA:
        return None
    return str(x)


def _config_yaml(exp: Any) -> str:
    cfg = _plain(dict(exp.resolved or {}))
    cfg["seed"] = _plain(exp.seed)
    cfg["package_version"] = _package_version()
    cfg["config_hash"] = _plain(exp.config_hash)
    cfg["conditions" if "conditions" not in cfg else "run_conditions"] = [
        {
            "index": _plain(c.index),
            "labels": _plain(dict(getattr(c, "labels", None) or {})),
            "players": _plain(getattr(c, "players", None)),
            "lineup": [_name(s) for s in (getattr(c, "lineup", None) or ())],
            "deck_sha256": _plain(getattr(c, "deck_sha256", None)),
        }
        for c in sorted(exp.conditions or (), key=lambda c: c.index)
    ]
    return yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True)
