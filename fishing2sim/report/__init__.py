"""Write an experiment's report: CSV tables, PNG plots, ``summary.md``, ``report.html`` and
``config.yaml``.

The one public function is :func:`write_report`. This package is the only part of
fishing2sim that imports matplotlib (with the non-interactive Agg backend). One module per
section (contrasts, depletion, overfishing, trump, strategies); ``common`` holds what they
share and ``html`` renders the page. summary.md and report.html are two renderings of the
same document, so they always say the same thing.

The report is written into a temporary sibling folder (``.<folder>.tmp-<pid>``) and only then
swapped into place (:func:`write_folder_atomically`): a failed or interrupted run never
leaves a half-written report.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import yaml

from . import contrasts as _contrasts
from . import depletion as _depletion
from . import html as _html
from . import overfishing as _overfishing
from . import strategies as _strategies
from . import trump as _trump
from .common import (ANALYSES, DPI, TABLE_KEYS, TERMS, TITLES, Context, Doc, first, int_,
                     md_table, package_version, sort_table, strategy_name)

__all__ = ["write_report", "write_folder_atomically", "TABLE_KEYS", "sort_table",
           "render_html"]

_package_version = package_version
_md_table = md_table


# --------------------------------------------------------------------------------------------
# public entry points
# --------------------------------------------------------------------------------------------
def write_report(exp: Any, results: Any) -> Path:
    """Write the report of ``exp`` from ``results`` into ``exp.output_dir``; return that folder.

    ``exp`` needs ``name``, ``output_dir``, ``resolved`` (plain dict), ``seed``,
    ``config_hash``, ``conditions`` (each with ``index``, ``labels``, ``players``,
    ``deck_sha256``, ``lineup``; optionally ``name`` and ``baseline``) and ``analyses``.
    ``results`` needs ``tables`` (name -> DataFrame) and ``meta`` (dict). Files written:
    ``<table>.csv`` for every table present, a plot per section with results
    (``contrasts.png``, ``depletion.png``, ``overfishing.png``, ``trump_value.png``,
    ``trump_by_strategy.png``, ``win_shares.png``), ``summary.md``, ``report.html`` and
    ``config.yaml``.
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


# plots: (table, function name in this module, file)
PLOTS = (
    ("contrasts", "_plot_contrasts", "contrasts.png"),
    ("depletion", "_plot_depletion", "depletion.png"),
    ("overfishing", "_plot_overfishing", "overfishing.png"),
    ("trump_value", "_plot_trump_value", "trump_value.png"),
    ("trump_by_strategy", "_plot_trump_by_strategy", "trump_by_strategy.png"),
    ("strategies", "_plot_win_shares", "win_shares.png"),
)
_plot_contrasts = _contrasts.plot
_plot_depletion = _depletion.plot
_plot_overfishing = _overfishing.plot
_plot_trump_value = _trump.plot
_plot_trump_by_strategy = _trump.plot_by_strategy
_plot_win_shares = _strategies.plot


def _write_all(folder: Path, exp: Any, results: Any) -> None:
    tables = {name: sort_table(name, df) for name, df in (results.tables or {}).items()}
    ctx = Context(exp, results, tables)
    for name in _table_order(tables):
        tables[name].to_csv(
            folder / f"{name}.csv", index=False, float_format="%.10g", lineterminator="\n"
        )
    plots: dict[str, str] = {}
    g = globals()
    for name, fn, fname in PLOTS:
        if name in tables and len(tables[name]) and \
                (name != "contrasts" or len(_contrasts.shown(tables[name]))):
            fig = g[fn](ctx, tables[name])
            try:
                g["_save_figure"](fig, folder / fname)
            finally:
                plt.close(fig)
            plots[name] = fname
    doc = g["_document"](ctx, plots)
    (folder / "summary.md").write_text(g["_summary"](ctx, plots, doc), encoding="utf-8")
    config_text = _config_yaml(exp)
    (folder / "config.yaml").write_text(config_text, encoding="utf-8")
    (folder / "report.html").write_text(
        _html.render(doc, folder, exp.name, {n: tables[n] for n in _table_order(tables)},
                     config_text, _stamps(ctx)), encoding="utf-8")


def render_html(folder: Path) -> Path:
    """(Re)write ``folder``/report.html from the report's own files (summary.md is not
    parsed: the page shows the summary as preformatted text if the folder was written by
    an older version). Used by ``fishing2sim report DIR``."""
    folder = Path(folder)
    page = folder / "report.html"
    if page.is_file():
        return page
    summary = (folder / "summary.md").read_text(encoding="utf-8")
    doc = Doc()
    for para in summary.split("\n\n"):
        if para.startswith("!["):
            alt, fname = para[2:].split("](", 1)
            doc.img(alt, fname.rstrip(")\n"))
        elif para.startswith("#"):
            level = len(para) - len(para.lstrip("#"))
            doc.h(min(level, 3), para.lstrip("#").strip())
        else:
            doc.p(para.strip())
    tables = {p.stem: pd.read_csv(p) for p in sorted(folder.glob("*.csv"))}
    config = (folder / "config.yaml").read_text(encoding="utf-8") \
        if (folder / "config.yaml").is_file() else ""
    page.write_text(_html.render(doc, folder, folder.name, tables, config, []),
                    encoding="utf-8")
    return page


def _save_figure(fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, metadata={"Software": None})


def _table_order(tables: dict) -> list[str]:
    known = [n for n in ("contrasts", *ANALYSES, "trump_by_strategy", "scores") if n in tables]
    return known + sorted(n for n in tables if n not in known)


# --------------------------------------------------------------------------------------------
# the document
# --------------------------------------------------------------------------------------------
def _summary(ctx: Context, plots: dict[str, str], doc: Doc | None = None) -> str:
    return (doc or _document(ctx, plots)).markdown()


def _lead(ctx: Context, doc: Doc) -> None:
    """The plain answers: the contrasts in words, or the headline figures."""
    con = ctx.tables.get("contrasts")
    if con is not None and len(con):
        lines = _contrasts.plain_lines(ctx, con)
        doc.h(2, "In short")
        doc.p("How each condition differs from its baseline (95% CIs; a CI that includes 0 "
              "is reported as no measurable effect):")
        doc.ul(lines)
        return
    bits = []
    ovf = ctx.tables.get("overfishing")
    if ovf is not None and len(ovf):
        o = ovf[(ovf["metric"] == "overfished_share") & ovf["round"].isna()]
        if len(o):
            bits.append("games end by overfishing in " + ", ".join(
                f"{float(r.estimate) * 100:.0f}%"
                + (f" ({ctx.label(int(r.condition))})" if ctx.sweep else "")
                for r in o.itertuples()))
    if bits:
        doc.h(2, "In short")
        doc.p("; ".join(bits)[:1].upper() + "; ".join(bits)[1:] + ".")


def _stamps(ctx: Context) -> list[str]:
    exp = ctx.exp
    version = first(ctx.meta, "package_version", "version") or package_version()
    return [f"fishing2sim {version}", f"config hash {exp.config_hash}", f"seed {exp.seed}"]


def _document(ctx: Context, plots: dict[str, str]) -> Doc:
    exp, meta = ctx.exp, ctx.meta
    res = exp.resolved or {}
    doc = Doc()
    doc.h(1, exp.name)
    _lead(ctx, doc)
    doc.h(2, "What was run")
    ruleset = first(res, "ruleset") or getattr(exp, "ruleset", None) or "fishing2"
    players = sorted({p for p in (ctx.players(c) for c in ctx.indices) if p is not None})
    lineups = []
    for c in ctx.conditions:
        lu = ", ".join(strategy_name(s) for s in (getattr(c, "lineup", None) or ()))
        if lu and lu not in lineups:
            lineups.append(lu)
    rulesets = []
    for c in ctx.conditions:
        r = getattr(getattr(c, "deck", None), "ruleset", None)
        if r and r not in rulesets:
            rulesets.append(r)
    items = []
    if len(rulesets) > 1:
        items.append("Rulesets: " + ", ".join(f"`{r}`" for r in rulesets) + " (per condition)")
    else:
        items.append(f"Ruleset: `{rulesets[0] if rulesets else ruleset}`")
    items.append(f"Players: {', '.join(map(str, players)) or '–'}")
    items.append(f"Games per condition: {ctx.games_text().split(' games')[0]}")
    items.append(f"Seed: {exp.seed}; config hash: `{exp.config_hash}`")
    if len(lineups) == 1:
        items.append(f"Lineup (seat 0, 1, ...): {lineups[0]}")
    elif lineups:
        items.append("Lineups: per condition, below")
    elapsed = first(meta, "elapsed_s", "elapsed_seconds", "elapsed")
    gps = first(meta, "games_per_second")
    workers = first(meta, "workers")
    version = first(meta, "package_version", "version") or package_version()
    run = []
    if elapsed is not None:
        run.append(f"{float(elapsed):.1f} s")
    if gps is not None:
        run.append(f"{float(gps):,.0f} games/s")
    if workers is not None:
        dask = meta.get("dask") or {}
        kind = "Dask " if meta.get("backend") == "dask" else ""
        run.append(f"{workers} {kind}worker{'s' if workers != 1 else ''}")
    items.append(f"Run: {', '.join(run) or '–'}; fishing2sim {version}")
    if meta.get("backend") == "dask":
        dask = meta.get("dask") or {}
        items.append(f"Ran on Dask: {dask.get('where', 'a Dask cluster')}"
                     + (f" (scheduler {dask['scheduler']})" if dask.get("scheduler") else ""))
    if getattr(exp, "paired", False):
        items.append("Paired: conditions with the same players, deck, first leader and "
                     "rotation play the same deals (common random numbers); only the play "
                     "differs, and their contrasts are paired differences")
    items.append(f"Analyses: {', '.join(exp.analyses) or '–'}")
    doc.ul(items)
    _adaptive(ctx, doc)
    crow = []
    for c in ctx.indices:
        cond = ctx.by_index.get(c)
        lu = ", ".join(strategy_name(s) for s in (getattr(cond, "lineup", None) or ()))
        sha = str(getattr(cond, "deck_sha256", "") or "")
        base = getattr(cond, "baseline", None)
        role = "baseline" if getattr(cond, "is_baseline", False) else (
            f"vs {ctx.label(base)}" if base is not None else "–")
        crow.append([str(c), ctx.label(c), _v_labels(cond), int_(ctx.players(c)),
                     int_(ctx.games_by.get(c)), lu or "–", role,
                     f"`{sha[:12]}`" if sha else "–"])
    doc.table(["condition", "name", "sweep values", "players", "games", "lineup", "baseline",
               "deck sha256"], crow)
    doc.p("Every estimate below comes with its number of observations *n* and a 95% "
          "confidence interval (shown as [low, high]). Full tables: the `.csv` files in this "
          "folder (and at the end of report.html); the resolved configuration: `config.yaml`.")
    con = ctx.tables.get("contrasts")
    if con is not None and len(con):
        _contrasts.section(ctx, con, plots.get("contrasts"), doc)
    names = list(exp.analyses or ()) or [a for a in ANALYSES if a in ctx.tables]
    for a in names:
        df = ctx.tables.get(a)
        if df is None or not len(df):
            if a in TITLES:
                doc.h(2, TITLES[a])
                doc.p("No results for this analysis.")
            continue
        if a == "depletion":
            _depletion.section(ctx, df, plots.get(a), doc)
        elif a == "overfishing":
            _overfishing.section(ctx, df, plots.get(a), doc)
        elif a == "trump_value":
            _trump.section(ctx, df, plots.get(a), doc, ctx.tables.get("trump_by_strategy"),
                           plots.get("trump_by_strategy"))
        elif a == "strategies":
            _strategies.section(ctx, df, plots.get(a), doc)
    doc.h(2, "Terms")
    doc.terms(TERMS)
    return doc


def _v_labels(cond) -> str:
    labels = dict(getattr(cond, "labels", None) or {})
    if not labels:
        return "–"
    from .common import v_

    return ", ".join(f"{k}={v_(v)}" for k, v in labels.items())


def _adaptive(ctx: Context, doc: Doc) -> None:
    """Precision and SPRT runs: how far each condition went and what it reached."""
    info = ctx.meta.get("adaptive")
    if not info:
        return
    rows = []
    for i, d in sorted(info.items(), key=lambda kv: int(kv[0])):
        bits = []
        for fig, p in (d.get("precision") or {}).items():
            scale = 100 if p["as_written"].endswith("pp") else 1
            unit = "pp" if scale == 100 else p["as_written"].split()[-1]
            hw = p["half_width"] * scale
            bits.append(f"{fig} ±{hw:.2g}{'' if unit == 'pp' else ' '}{unit} "
                        f"({'reached' if p['reached'] else 'not reached'}; wanted "
                        f"{p['as_written']})")
        s = d.get("sprt")
        if s:
            verdict = {"H1": "shown better (H1)", "H0": "not shown better (H0)"}.get(
                s["decision"], "undecided")
            bits.append(f"SPRT {verdict}: LLR {s['llr']:.2f} in [{s['lower']:.2f}, "
                        f"{s['upper']:.2f}], Elo {s['elo']:.1f} [{s['elo_low']:.1f}, "
                        f"{s['elo_high']:.1f}]")
        rows.append([str(i), ctx.label(int(i)), int_(d.get("games")),
                     "; ".join(bits) + (" — stopped at max_games" if d.get("capped") else "")])
    targets = ", ".join(f"{f} {t}" for f, _, t in getattr(ctx.exp, "precision", ()) or ())
    spec = getattr(ctx.exp, "sprt", None)
    what = []
    if targets:
        what.append(f"until every 95% CI half-width reached its target ({targets})")
    if spec:
        what.append(f"until an SPRT decided whether `{spec['better']}` is better than "
                    f"`{spec['than']}` (Elo {spec['elo0']:g} against {spec['elo1']:g}, "
                    f"α = {spec['alpha']:g}, β = {spec['beta']:g})")
    doc.p("The run played whole chunks " + " and ".join(what) + " or the `max_games` cap; "
          "each decision used only finished batches of chunks, so any number of workers plays "
          "the same games. Precision reached:")
    doc.table(["condition", "name", "games", "reached"], rows)


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
    cfg["package_version"] = package_version()
    cfg["config_hash"] = _plain(exp.config_hash)
    cfg["conditions" if "conditions" not in cfg else "run_conditions"] = [
        {
            "index": _plain(c.index),
            **({"name": c.name} if getattr(c, "name", "") else {}),
            "labels": _plain(dict(getattr(c, "labels", None) or {})),
            "players": _plain(getattr(c, "players", None)),
            "lineup": [strategy_name(s) for s in (getattr(c, "lineup", None) or ())],
            "deck_sha256": _plain(getattr(c, "deck_sha256", None)),
            **({"baseline": c.baseline} if getattr(c, "baseline", None) is not None else {}),
            **({"games": c.games} if getattr(c, "games", None) is not None else {}),
        }
        for c in sorted(exp.conditions or (), key=lambda c: c.index)
    ]
    return yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True)
