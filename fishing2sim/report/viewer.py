"""The example games of a report (docs/reference.md, "examples.json"): the rows naming
them (condition, figure, outcome, rank, game, partner_condition, value, command) replayed
into the viewer's JSON, stored in the report folder as ``examples.json`` so that
``fishing2sim report DIR`` renders the page again without replaying, and the viewer's own
JavaScript and CSS, which report.html embeds and ``fishing2sim serve``'s replay page
loads (one viewer for both). The replays themselves are report/replay.py's."""
from __future__ import annotations

import base64
import gzip
import json
from importlib.resources import files
from pathlib import Path

from markupsafe import Markup

from fishing2sim.safe_files import FileSafetyError, read_regular, write_atomic

EXAMPLES_FILE = "examples.json"
EXAMPLES_MAX = 64 * 1024 * 1024  # the largest examples.json a page embeds
EXAMPLES_VERSION = 1
ROW_KEYS = ("condition", "figure", "outcome", "rank", "game", "partner_condition", "value",
            "command")


def game_key(condition: int, game: int) -> str:
    """A game's key in examples.json and the tail of its anchor ``game-c{c}-g{g}``."""
    return f"c{int(condition)}-g{int(game)}"


def example_row(r) -> dict:
    """An example row as plain JSON values (a mapping or a pandas row)."""
    get = r.get if hasattr(r, "get") else (lambda k, d=None: getattr(r, k, d))
    out = {}
    for k in ROW_KEYS:
        v = get(k, None)
        try:
            if v is None or v != v or v == "":  # missing, NaN or empty
                v = None
        except (TypeError, ValueError):
            pass
        if v is not None and k in ("condition", "rank", "game", "partner_condition"):
            v = int(v)
        elif v is not None and k == "value":
            v = float(v)
        elif v is not None:
            v = str(v)
        out[k] = v
    return out


def write_examples(folder: Path, data: dict) -> Path:
    """``folder``/examples.json, written atomically."""
    path = Path(folder) / EXAMPLES_FILE
    write_atomic(path, json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    return path


def read_examples(folder: Path, warn) -> dict | None:
    """``folder``/examples.json if it is a regular file of at most EXAMPLES_MAX bytes of
    JSON with rows and games (a folder's files are untrusted: the page shows its text as
    text only); None if there is none, and with one line to ``warn`` if it cannot be used."""
    path = Path(folder) / EXAMPLES_FILE
    if not path.exists() and not path.is_symlink():
        return None
    try:
        data = json.loads(read_regular(path, EXAMPLES_MAX, within=Path(folder),
                                       what="examples file").decode("utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list) \
                or not isinstance(data.get("games"), dict):
            raise ValueError("no rows and games")
        data["rows"] = [example_row(r) for r in data["rows"] if isinstance(r, dict)]
        data["rows"] = [r for r in data["rows"]
                        if r["condition"] is not None and r["game"] is not None
                        and r["figure"] is not None]
    except (FileSafetyError, UnicodeDecodeError, ValueError, TypeError) as exc:
        warn(f"{path}: not a report's example games ({exc}); they are left out")
        return None
    return data


def groups(data: dict) -> list[dict]:
    """The rows grouped by (condition, figure), in their order, each group's rows by rank:
    [{"id": "examples-c{c}-{figure}", "condition", "figure", "outcome", "rows"}]."""
    out: dict[tuple, dict] = {}
    for r in data["rows"]:
        g = out.setdefault((r["condition"], r["figure"]), {
            "id": f"examples-c{r['condition']}-{r['figure']}", "condition": r["condition"],
            "figure": r["figure"], "outcome": r["outcome"] or r["figure"], "rows": []})
        g["rows"].append(r)
    for g in out.values():
        g["rows"].sort(key=lambda r: (r["rank"] is None, r["rank"] or 0))
        for r in g["rows"]:
            r["key"] = game_key(r["condition"], r["game"])
            r["pair"] = game_key(r["partner_condition"], r["game"]) \
                if r["partner_condition"] is not None else None
    return list(out.values())


def embed_json(data) -> Markup:
    """``data`` as JSON text safe inside a <script type="application/json"> element (no
    ``<``, ``>`` or ``&`` that could end it or start a comment)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e")
                  .replace("&", "\\u0026").replace("\u2028", "\\u2028")
                  .replace("\u2029", "\\u2029"))


def embed_packed(data) -> Markup:
    """``data``'s JSON gzipped and in base64 (the page's viewer unpacks it with the
    browser's DecompressionStream): a game's JSON shrinks about tenfold, so a report's
    example games stay a small part of its page. Base64 holds no ``<``, ``>`` or ``&``."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return Markup(base64.b64encode(gzip.compress(text, mtime=0)).decode("ascii"))


def asset(name: str) -> str:
    """The viewer's ``viewer.js`` or ``viewer.css`` (installed with the package)."""
    return (files("fishing2sim.report") / "templates" / name).read_text(encoding="utf-8")
