"""Writing a run's report folder: :func:`write_report` and the atomic swap it uses
(:func:`write_folder_atomically`). Imported on first use through ``fishing2sim.report``,
so that ``fishing2sim report DIR``, which only renders a folder's page, does not load
matplotlib."""


from __future__ import annotations

import io
import os
import shutil
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from fishing2sim.report import html as _html
from fishing2sim.safe_files import check_replaceable, real_folder, remove_ours, write_atomic, write_marker
from fishing2sim.report.overview import config_yaml as _config_yaml
from fishing2sim.report.overview import lead, stamps as _stamps, what_was_run
from fishing2sim.report.common import (ANALYSES, DPI, TABLE_KEYS, TERMS, TITLES, Context, Doc, md_table,  # noqa: F401
                     package_version, sort_table)
from fishing2sim.report.layout import fit_titles
from fishing2sim.report.sections import PLOTS, SECTIONS  # noqa: F401 (PLOTS: every plot)
from fishing2sim.report.viewer import write_examples

__all__ = ["write_report", "write_folder_atomically", "TABLE_KEYS", "sort_table"]

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
    ``trump_by_strategy.png``, ``win_shares.png``, ``scores.png``, ``arc.png``,
    ``cards.png``, ``decisions.png``, ``panel.png``, ``skill_trace.png``), ``summary.md``,
    ``report.html`` and ``config.yaml``.
    """
    return write_folder_atomically(Path(exp.output_dir),
                                   lambda tmp: _write_all(tmp, exp, results))


def write_folder_atomically(out: Path, fill, kind: str = "run") -> Path:
    """Write a report folder whole or not at all: ``fill(tmp)`` writes the files into a
    temporary folder beside ``out``, which then replaces ``out`` (the old one is kept until
    the new one is in place, and restored if the swap fails). Returns the folder written.

    Only a folder this program made is replaced (it holds the marker file
    ``safe_files.MARKER``, written here with every report): a folder of the user's own, a
    link or a file in its place is refused with a FileSafetyError before anything is
    written."""
    out = Path(out)
    check_replaceable(out)
    parent = real_folder(out.parent, "output folder")
    pid = os.getpid()
    tmp = parent / f".{out.name}.tmp-{pid}"
    old = parent / f".{out.name}.old-{pid}"
    remove_ours(tmp)  # left by a killed run of this PID (a link there is refused)
    tmp.mkdir()  # never follows a link: a name that exists fails
    moved_aside = False
    try:
        fill(tmp)
        write_marker(tmp, kind, out.name, package_version())
        check_replaceable(out)  # again: the folder may have changed while the run played
        if out.exists():
            remove_ours(old)
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
    ctx = Context(exp, results, tables)
    for name in _table_order(tables):  # every file: a temporary file, then a rename
        write_atomic(folder / f"{name}.csv", tables[name].to_csv(
            None, index=False, float_format="%.10g", lineterminator="\n"))
    plots: dict[str, str] = {}
    g = globals()
    for section in SECTIONS:  # each plot through its module's name: a test may replace it
        for name, fn, fname in section.PLOTS:
            df = tables.get(name)
            if df is None or not len(df) or \
                    not getattr(section, "plotted", lambda ctx, df: True)(ctx, df):
                continue
            fig = getattr(section, fn)(ctx, df)
            try:
                g["_save_figure"](fig, folder / fname)
            finally:
                plt.close(fig)
            plots[name] = fname
    doc = g["_document"](ctx, plots)
    write_atomic(folder / "summary.md", g["_summary"](ctx, plots, doc))
    config_text = _config_yaml(exp)
    write_atomic(folder / "config.yaml", config_text)
    images = {f: (folder / f).read_bytes() for f in plots.values()}  # the plots just made
    examples = getattr(results, "examples", None)  # the rows of run/examples.py, replayed
    if isinstance(examples, list) and examples:  # (report/replay.py) into examples.json's
        from fishing2sim.report.replay import build_examples  # games (loads the kernels)

        examples = build_examples(exp, examples)
    elif isinstance(examples, list):
        examples = None
    if examples:
        write_examples(folder, examples)
    write_atomic(folder / "report.html",
                 _html.render(doc, images, exp.name, {n: tables[n] for n in _table_order(tables)},
                              config_text, _stamps(ctx), examples))


def _save_figure(fig, path: Path) -> None:
    fig.tight_layout()
    fit_titles(fig)  # on the panels' final widths
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    write_atomic(path, buf.getvalue())


def _table_order(tables: dict) -> list[str]:
    known = [n for n in ("contrasts", *ANALYSES, "trump_by_strategy", "scores") if n in tables]
    return known + sorted(n for n in tables if n not in known)


# --------------------------------------------------------------------------------------------
# the document
# --------------------------------------------------------------------------------------------
def _summary(ctx: Context, plots: dict[str, str], doc: Doc | None = None) -> str:
    return (doc or _document(ctx, plots)).markdown()


def _document(ctx: Context, plots: dict[str, str]) -> Doc:
    exp = ctx.exp
    doc = Doc()
    doc.h(1, exp.name)
    lead(ctx, doc)
    what_was_run(ctx, doc)
    for section in SECTIONS:  # the contrasts, the skill panel: before the analyses
        if section.ANALYSIS is None:
            section.write_section(ctx, doc, plots)
    names = list(exp.analyses or ()) or [a for a in ANALYSES if a in ctx.tables]
    for a in names:
        df = ctx.tables.get(a)
        if df is None or not len(df):
            if a in TITLES:
                doc.h(2, TITLES[a])
                doc.p("No results for this analysis.")
            continue
        for section in SECTIONS:
            if section.ANALYSIS == a:
                section.write_section(ctx, doc, plots)
    doc.h(2, "Terms")
    terms = dict(TERMS)
    for section in SECTIONS:
        if hasattr(section, "TERMS") and section.ANALYSIS in ctx.tables:
            terms.update(section.TERMS)
    doc.terms(terms)
    return doc


