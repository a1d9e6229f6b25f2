"""report.html: the summary as one self-contained web page (plots embedded as base64 PNG,
sortable tables, the CSV tables, the configuration and the stamps). No network access, no
external files: it opens from anywhere, also when mailed alone. :func:`render` reads no file;
its callers decide what is embedded (report/__init__.py)."""

from __future__ import annotations

import base64
import html
import re
import pandas as pd

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #2c3e50}h2{margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:1em 0;font-size:.88em;display:block;max-width:100%;
overflow-x:auto}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top;
overflow-wrap:break-word}
th{background:#eef2f5;cursor:pointer;user-select:none}
th.asc::after{content:' \\25B2'}th.desc::after{content:' \\25BC'}
tr:nth-child(even) td{background:#fafafa}details.csv table{font-size:.8em}
details.csv th,details.csv td{padding:.2em .35em}
details.csv{margin-left:calc(50% - 50vw + 1.5em);margin-right:calc(50% - 50vw + 1.5em)}
img{max-width:100%;height:auto;border:1px solid #ddd;margin:.5em 0}
code{background:#f3f3f3;padding:0 .2em}pre{background:#f6f8fa;padding:1em;overflow-x:auto}
pre code{background:none;padding:0}
.stamp{color:#666;font-size:.85em}details{margin:.6em 0}
"""

SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var asc = !th.classList.contains('asc');
      table.querySelectorAll('th').forEach(function (h) { h.classList.remove('asc', 'desc'); });
      th.classList.add(asc ? 'asc' : 'desc');
      function key(row) {
        var t = row.cells[col] ? row.cells[col].textContent.trim() : '';
        var m = t.replace(/,/g, '').match(/^[-+\\u2212]?[0-9.]+/);
        return m ? parseFloat(m[0].replace('\\u2212', '-')) : t.toLowerCase();
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (typeof x !== typeof y) { x = String(x); y = String(y); }
        return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def inline(text: str) -> str:
    """The summary's inline markdown (bold, italics, code) as HTML."""
    t = html.escape(text, quote=False)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    t = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", t)
    t = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", t)
    return t


def _breakable(text: str) -> str:
    """A header as HTML that may break after ``_ . = [`` inside a word (CSV column names
    such as ``overfishing[players=4] ci_low`` have no spaces to wrap at)."""
    return re.sub(r"(?<=\w)([_.=\[])(?=\w)", r"\1<wbr>", inline(text))


def _table(header, rows, cls="sortable") -> str:
    h = "".join(f"<th>{_breakable(str(c))}</th>" for c in header)
    body = "".join("<tr>" + "".join(f"<td>{inline(str(c))}</td>" for c in r) + "</tr>"
                   for r in rows)
    return f'<table class="{cls}"><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>'


def render(doc, images: dict, title: str, tables: dict, config_text: str | dict,
           stamps: list[str]) -> str:
    """The page of ``doc``. It reads no file: ``images`` maps an image block's file name to
    the PNG bytes to embed (a name missing from it shows the block's alt text instead),
    ``tables`` maps a CSV table's name to its DataFrame, ``config_text`` is config.yaml's
    text (or maps each configuration file shown to its text: a tune's best.yaml and
    tune.yaml)."""
    parts = []
    for b in doc.blocks:
        kind = b[0]
        if kind.startswith("h"):
            anchor = re.sub(r"[^a-z0-9]+", "-", b[1].lower()).strip("-")
            parts.append(f'<{kind} id="{anchor}">{inline(b[1])}</{kind}>')
        elif kind == "p":
            parts.append(f"<p>{inline(b[1])}</p>")
        elif kind == "ul":
            parts.append("<ul>" + "".join(f"<li>{inline(x)}</li>" for x in b[1]) + "</ul>")
        elif kind == "img":
            png = images.get(b[2])
            if png is None:  # not embedded (the caller said why): its alt text stands in
                parts.append(f'<figure class="missing" data-file="{html.escape(b[2])}">'
                             f"<figcaption>{inline(b[1])} (<code>{html.escape(b[2])}</code> "
                             "is not embedded)</figcaption></figure>")
                continue
            data = base64.b64encode(png).decode("ascii")
            parts.append(f'<figure><img class="plot" alt="{html.escape(b[1])}" '
                         f'data-file="{html.escape(b[2])}" src="data:image/png;base64,{data}">'
                         f"</figure>")
        elif kind == "table":
            parts.append(_table(b[1], b[2]))
        elif kind == "terms":
            parts.append("<dl>" + "".join(f"<dt><strong>{inline(t)}</strong></dt><dd>"
                                          f"{inline(d)}</dd>" for t, d in b[1].items())
                         + "</dl>")
        elif kind == "code":  # its lines as they are: shown and copied verbatim
            lang = f' class="language-{html.escape(b[1])}"' if b[1] else ""
            parts.append(f'<pre class="code"><code{lang}>{html.escape(b[2], quote=False)}'
                         "</code></pre>")
    parts.append('<h2 id="csv-tables">CSV tables</h2>')
    parts.append("<p>The full tables of this folder (the same numbers as the CSV files).</p>")
    for name, df in tables.items():
        shown = df.head(2000)
        more = f" (the first 2,000 of {len(df):,} rows)" if len(df) > 2000 else ""
        parts.append(f'<details class="csv" data-table="{html.escape(name)}"><summary>'
                     f"<code>{html.escape(name)}.csv</code>{more}</summary>"
                     + _table(list(shown.columns), [[_cell(v) for v in row]
                                                    for row in shown.itertuples(index=False)])
                     + "</details>")
    configs = {"config.yaml": config_text} if isinstance(config_text, str) else config_text
    if configs:
        parts.append('<h2 id="configuration">Configuration</h2>')
    for name, text in configs.items():
        parts.append(f"<details open><summary><code>{html.escape(name)}</code></summary><pre>"
                     f"{html.escape(text)}</pre></details>")
    parts.append('<p class="stamp">' + " · ".join(html.escape(s) for s in stamps) + "</p>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(parts) + f"\n<script>{SCRIPT}</script>\n</body></html>\n")


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
