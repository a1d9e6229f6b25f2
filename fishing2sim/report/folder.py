"""`fishing2sim report DIR`: the web page of a report folder, made from the folder's own
files, which are not trusted (a folder can come from anyone; README "Reports" says what is
embedded and what is not)."""
from __future__ import annotations

from fishing2sim.errors import Fishing2simError
import contextlib
import os
import stat
import sys
from pathlib import Path

import pandas as pd

from fishing2sim.report import html as _html
from fishing2sim.report.viewer import read_examples
from fishing2sim.report.document import Doc, table_cells
from fishing2sim.safe_files import FileSafetyError, open_regular, read_regular, write_atomic

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TEXT_MAX = 16 * 1024 * 1024     # summary.md, config.yaml
CSV_MAX = 64 * 1024 * 1024      # each CSV table
CSV_COLUMNS_MAX = 1000          # fields of a CSV table's header line
IMAGE_MAX = 16 * 1024 * 1024    # each image
EMBED_MAX = 64 * 1024 * 1024    # all images embedded in one page (a repeated one each time)


class ReportInputError(Fishing2simError, ValueError):
    """A file of a report folder that cannot be used: not UTF-8 text, not a CSV table (one
    line, naming it)."""


def render_html(folder: Path, warn=None, fresh: bool = False, locked: bool = False) -> Path:
    """``folder``/report.html, written from the folder's own files (summary.md's headings,
    paragraphs, lists, tables, code blocks and images, the CSVs, config.yaml, or a tune's
    best.yaml and tune.yaml, and examples.json's games, which are not replayed) unless it is already a complete page (``fresh``: written anew
    all the same, for a writer that has just changed the folder's files, as a training run
    after each iteration). Used by ``fishing2sim report DIR``.

    The folder's files are untrusted input: every file is read with
    :func:`~fishing2sim.safe_files.read_regular` (regular files only, with a size cap, never
    through a link); an image is embedded only if it is a PNG file named by its bare file
    name in ``folder``. What cannot be used is skipped with one line to ``warn`` (default:
    stderr) and the page is made without it: an image shows its alt text, a CSV table is
    left out. Only a summary.md that cannot be read as UTF-8 text is an error
    (:class:`ReportInputError` or :class:`~fishing2sim.safe_files.FileSafetyError`): it is
    the page. The page is written with :func:`~fishing2sim.safe_files.write_atomic` (whole
    or not at all, never through a link) under the folder's lock (the one ``run`` takes;
    ``locked``: the caller holds it, as a training does for its whole run)."""
    folder = Path(os.path.abspath(folder))
    warn = warn or _warn_stderr
    page = folder / "report.html"
    if not fresh and _complete_page(page):
        return page
    # the lock run and tune take on the folder; run/checkpoints.py loads the config's models
    # (pydantic: most of a second), which a page already complete does not need
    from fishing2sim.run.checkpoints import OutputLock

    with contextlib.nullcontext() if locked else OutputLock(folder.parent, folder.name):
        state = _page_state(page)
        if state == "complete" and not fresh:  # written meanwhile by another writer
            return page
        if state not in (None, "complete"):  # a link, a broken page, a special file:
            # never left in place
            warn(f"{page}: {state}; it is written anew")
            try:
                os.unlink(page)  # the entry itself, never what a link points to
            except FileNotFoundError:
                pass
            except IsADirectoryError:
                raise FileSafetyError(f"{page}: a folder stands where the page goes; "
                                      "move it away") from None
        summary = _summary_text(folder / "summary.md")
        doc = _parse_summary(summary)
        images = _images(doc, folder, warn)
        tables = _csv_tables(folder, warn)
        config = _config_text(folder / "config.yaml", warn)
        if not config and not os.path.lexists(folder / "config.yaml"):  # a tune's folder
            tuned = {f: _config_text(folder / f, warn) for f in ("best.yaml", "tune.yaml")
                     if os.path.lexists(folder / f)}
            config = tuned or config
        examples = read_examples(folder, warn)
        text = _html.render(doc, images, folder.name, tables, config, [], examples)
        try:
            write_atomic(page, text)
        except FileSafetyError:
            raise
        except OSError as exc:
            raise FileSafetyError(f"{page}: cannot write the page: "
                                  f"{exc.strerror or exc}") from None
    return page


def _warn_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _page_state(page: Path) -> str | None:
    """None if there is no ``page``, "complete" if it is a complete page (a regular file,
    not a link, that opens with ``<!DOCTYPE html>`` and ends with ``</html>``), else what
    it is instead."""
    try:
        mode = os.lstat(page).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link, not a page"
    if stat.S_ISDIR(mode):
        return "a folder, not a page"
    if not stat.S_ISREG(mode):
        return "a special file, not a page"
    try:
        fd = open_regular(page, what="page")
    except FileSafetyError:  # replaced meanwhile, or unreadable
        return "not a readable page"
    try:
        size = os.fstat(fd).st_size
        head = os.pread(fd, 64, 0)
        tail = os.pread(fd, 64, max(0, size - 64))
    finally:
        os.close(fd)
    if head.startswith(b"<!DOCTYPE html>") and tail.rstrip().endswith(b"</html>"):
        return "complete"
    return "not a complete page (it does not end with </html>)"


def _complete_page(page: Path) -> bool:
    return _page_state(page) == "complete"


def _utf8(data: bytes, path: Path, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReportInputError(f"{path}: the {what} is not UTF-8 text (line {line}, byte "
                               f"0x{data[exc.start]:02x})") from None


def _summary_text(path: Path) -> str:
    return _utf8(read_regular(path, TEXT_MAX, within=path.parent, what="summary"), path,
                 "summary")


def _parse_summary(text: str) -> Doc:
    """summary.md as a document: fenced code blocks (a line that opens with three or more
    backticks, up to a line of at least as many, or the end) keep their lines; the rest is
    paragraphs (split at blank lines) that are headings, tables, lists, images (a paragraph
    that is exactly ``![alt](file)``) or text. Whatever does not match is a text paragraph
    (a ``![`` without ``](`` is text, as in markdown). Linear in the text: no regular
    expression."""
    doc = Doc()
    prose: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        fence = _fence(lines[i])
        if not fence:
            prose.append(lines[i])
            i += 1
            continue
        _paragraphs("\n".join(prose), doc)
        prose = []
        language = lines[i].strip()[len(fence):].strip()
        body = []
        i += 1
        while i < len(lines) and not (_fence(lines[i]) == lines[i].strip()
                                      and len(lines[i].strip()) >= len(fence)):
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        doc.code("\n".join(body), language)
    _paragraphs("\n".join(prose), doc)
    return doc


def _fence(line: str) -> str:
    """The backticks that open a fenced code block on ``line`` ("" if it opens none)."""
    s = line.lstrip(" ")
    if len(line) - len(s) > 3:
        return ""
    fence = s[:len(s) - len(s.lstrip("`"))]
    return fence if len(fence) >= 3 and "`" not in s[len(fence):] else ""


def _paragraphs(text: str, doc: Doc) -> None:
    for para in text.strip("\n").split("\n\n"):
        s = para.strip()
        if s.startswith("![") and s.endswith(")") and "](" in s and "\n" not in s:
            alt, fname = s[2:-1].split("](", 1)
            doc.img(alt, fname)
        elif para.startswith("#"):
            level = len(para) - len(para.lstrip("#"))
            doc.h(min(level, 3), para.lstrip("#").strip())
        elif para.startswith("|"):
            lines = [table_cells(ln) for ln in para.strip().splitlines()]
            doc.table(lines[0], lines[2:])
        elif para.startswith("- "):
            doc.ul([x[2:] for x in para.strip().splitlines() if x.startswith("- ")])
        else:
            doc.p(s)


def _images(doc: Doc, folder: Path, warn) -> dict[str, bytes]:
    """The PNG bytes of each image of ``doc`` that may be embedded: a bare file name in
    ``folder`` (no folder part, no ``..``, not absolute) of a regular PNG file (checked by
    its signature) of at most IMAGE_MAX bytes, while all embedded (an image named twice
    counting twice) stay within EMBED_MAX. Each other one is named in one warning line."""
    uses: dict[str, int] = {}
    for b in doc.blocks:
        if b[0] == "img":
            uses[b[2]] = uses.get(b[2], 0) + 1
    images: dict[str, bytes] = {}
    total = 0
    for fname, n in uses.items():
        shown = fname if len(fname) <= 200 else fname[:200] + "…"
        why = None
        if fname in ("", ".", "..") or "/" in fname or "\\" in fname or "\0" in fname:
            why = (f"{folder / 'summary.md'}: the image {shown!r} is not a file name in "
                   "the folder (only the folder's own PNG files are embedded)")
        else:
            try:
                png = read_regular(folder / fname, IMAGE_MAX, within=folder, what="image")
            except FileSafetyError as exc:
                why = str(exc)
            else:
                if not png.startswith(PNG_SIGNATURE):
                    why = f"{folder / fname}: not a PNG image; only PNG images are embedded"
                elif total + n * len(png) > EMBED_MAX:
                    why = (f"{folder / fname}: the images would pass the {EMBED_MAX:,} "
                           "bytes embedded in one page at most")
        if why is not None:
            warn(f"{why}; its alt text is shown instead")
            continue
        images[fname] = png
        total += n * len(png)
    return images


def _csv_tables(folder: Path, warn) -> dict[str, pd.DataFrame]:
    """Each ``*.csv`` of ``folder`` that is a regular file of at most CSV_MAX bytes of
    UTF-8 text whose rows have the header's number of fields (at most CSV_COLUMNS_MAX),
    read into memory first and parsed from there; each other one is skipped with one
    warning line."""
    import io

    tables = {}
    for p in sorted(folder.glob("*.csv")):
        try:
            text = _utf8(read_regular(p, CSV_MAX, within=folder, what="CSV table"), p,
                         "CSV table")
            if text.split("\n", 1)[0].count(",") >= CSV_COLUMNS_MAX:
                raise ReportInputError(f"{p}: the CSV table has more than {CSV_COLUMNS_MAX:,} "
                                       "columns")
            tables[p.stem] = _parse_csv(io.StringIO(text), p)
        except (FileSafetyError, ReportInputError) as exc:
            warn(f"{exc}; the table is left out")
    return tables


def _parse_csv(buf, path: Path) -> pd.DataFrame:
    import warnings

    with warnings.catch_warnings():
        # a first row longer than the header: pandas would take its first field for the
        # index (ParserWarning with index_col=False): an error here
        warnings.simplefilter("error", pd.errors.ParserWarning)
        try:
            return pd.read_csv(buf, index_col=False)
        except pd.errors.ParserWarning:
            raise ReportInputError(f"{path}: line 2 has more fields than the header") from None
        except (ValueError, pd.errors.ParserError) as exc:
            why = " ".join(str(exc).split()).replace("Error tokenizing data. C error: ", "")
            raise ReportInputError(f"{path}: not a CSV table ({why[:200]})") from None


def _config_text(path: Path, warn) -> str:
    """config.yaml's text; "" if there is none; if it cannot be read, a warning and ""."""
    if not os.path.lexists(path):
        return ""
    try:
        return _utf8(read_regular(path, TEXT_MAX, within=path.parent, what="configuration"),
                     path, "configuration")
    except (FileSafetyError, ReportInputError) as exc:
        warn(f"{exc}; the configuration is left out")
        return ""

