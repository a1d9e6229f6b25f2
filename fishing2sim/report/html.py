"""report.html: the summary as one self-contained web page (plots embedded as base64 PNG,
sortable tables, the CSV tables, the configuration and the stamps). No network access, no
external files: it opens from anywhere, also when mailed alone. :func:`render` reads no file;
its callers decide what is embedded (report/write.py, report/folder.py, tune/report.py).

The page is the Jinja2 template ``templates/report.html.j2`` (installed with the package),
rendered with autoescaping: every text is escaped, and only the filters below turn text into
markup, from escaped text."""

from __future__ import annotations

import base64
import html
import re
from functools import lru_cache

import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from fishing2sim.report import viewer as _viewer
from fishing2sim.report.layout import TITLES

CSV_ROWS_SHOWN = 2000  # rows of each CSV table shown in the page


def inline(text) -> Markup:
    """The summary's inline markdown (bold, italics, code) as HTML, from escaped text."""
    t = html.escape(str(text), quote=False)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    t = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", t)
    t = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", t)
    return Markup(t)


def _breakable(text) -> Markup:
    """A header as HTML that may break after ``_ . = [`` inside a word (CSV column names
    such as ``overfishing[players=4] ci_low`` have no spaces to wrap at)."""
    return Markup(re.sub(r"(?<=\w)([_.=\[])(?=\w)", r"\1<wbr>", str(inline(text))))


def _anchor(text) -> str:
    """A heading's id: its words in lower case, joined by hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")


def _base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@lru_cache(maxsize=1)
def _template():
    env = Environment(loader=PackageLoader("fishing2sim.report", "templates"),
                      autoescape=True, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True, undefined=StrictUndefined)
    env.filters.update(inline=inline, breakable=_breakable, anchor=_anchor, base64=_base64)
    return env.get_template("report.html.j2")


def render(doc, images: dict, title: str, tables: dict, config_text: str | dict,
           stamps: list[str], examples: dict | None = None) -> str:
    """The page of ``doc``. It reads no file: ``images`` maps an image block's file name to
    the PNG bytes to embed (a name missing from it shows the block's alt text instead),
    ``tables`` maps a CSV table's name to its DataFrame, ``config_text`` is config.yaml's
    text (or maps each configuration file shown to its text: a tune's best.yaml and
    tune.yaml); ``examples``: the folder's examples.json (report/viewer.py), whose games
    the page's viewer shows."""
    csv_tables = []
    for name, df in tables.items():
        shown = df.head(CSV_ROWS_SHOWN)
        csv_tables.append({"name": name, "total": len(df), "header": list(shown.columns),
                           "rows": [[_cell(v) for v in row]
                                    for row in shown.itertuples(index=False)]})
    configs = {"config.yaml": config_text} if isinstance(config_text, str) else config_text
    return _template().render(blocks=_with_example_links(doc.blocks, examples),
                              images=images, title=title,
                              csv_tables=csv_tables, configs=configs, stamps=stamps,
                              **_examples(examples))


# the report section (its h2 title) whose figures each example figure stands behind
EXAMPLE_SECTIONS = {"overfishing": ("overfishing",), "completed": ("overfishing",),
                    "depletion": ("depletion",), "trump_stakes": ("trump_value",),
                    "comeback": ("strategies",), "deck_pair": ("contrasts", "panel")}


def _with_example_links(blocks: list, examples: dict | None) -> list:
    """``blocks`` with, after the "In short" heading and after each section's heading,
    a line of links to the example games behind its figures ("condition 0: see 3
    overfished games"), each opening its group in the page's viewer."""
    if not examples or not examples.get("rows"):
        return blocks
    groups = _viewer.groups(examples)

    def links(figures) -> tuple | None:
        out = [(f"#{g['id']}", f"condition {g['condition']}: see {len(g['rows'])} "
                f"{g['outcome']} game{'s' if len(g['rows']) != 1 else ''}")
               for g in groups if figures is None or g["figure"] in figures]
        return ("links", out) if out else None

    titles = {TITLES[a]: {f for f, secs in EXAMPLE_SECTIONS.items() if a in secs}
              for a in {a for secs in EXAMPLE_SECTIONS.values() for a in secs}}
    out = []
    for b in blocks:
        out.append(b)
        if b[0] != "h2":
            continue
        extra = links(None) if b[1] == "In short" else \
            links(titles[b[1]]) if b[1] in titles else None
        if extra is not None:
            out.append(extra)
    return out


def _examples(examples: dict | None) -> dict:
    """The template's example games: their groups, one box per game (a paired deal's
    partner beside it), the games' JSON, the viewer's script and style."""
    if not examples or not examples.get("rows"):
        return {"example_groups": [], "example_boxes": [], "examples_json": "",
                "viewer_js": "", "viewer_css": ""}
    groups = _viewer.groups(examples)
    boxes: dict[str, str | None] = {}
    for g in groups:
        for r in g["rows"]:
            if boxes.get(r["key"]) is None:
                boxes[r["key"]] = r["pair"]
    return {"example_groups": groups,
            "example_boxes": [{"key": k, "pair": p} for k, p in boxes.items()],
            "examples_json": _viewer.embed_packed({"games": examples.get("games", {})}),
            "viewer_js": Markup(_viewer.asset("viewer.js").replace("</", "<\\/")),
            "viewer_css": Markup(_viewer.asset("viewer.css"))}


def _cell(v) -> str:
    if v is None or v is pd.NA:
        return ""
    try:
        if pd.isna(v):
            return ""
    except (TypeError, ValueError):
        pass
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)
