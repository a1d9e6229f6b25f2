"""The report folders under the served folder (docs/serve.md): listed by name and read
only through the names listed, so no request reaches a file outside them (no ``..``, no
link, no absolute path: a name is one path part of a folder found by listing)."""
from __future__ import annotations

import os
from pathlib import Path

from fishing2sim.safe_files import MARKER, is_ours

MEDIA = {".html": "text/html; charset=utf-8", ".csv": "text/csv; charset=utf-8",
         ".md": "text/markdown; charset=utf-8", ".png": "image/png"}


def report_folders(folder: Path) -> list[str]:
    """The names of the report folders directly in ``folder`` (real folders this program
    made, holding a report.html; links are left out), sorted."""
    folder = Path(folder)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(e.name for e in entries
                  if not e.is_symlink() and e.is_dir(follow_symlinks=False)
                  and is_ours(folder / e.name)
                  and _regular(folder / e.name / "report.html"))


def _regular(path: Path) -> bool:
    return not path.is_symlink() and path.is_file()


def report_file(folder: Path, name: str, file: str) -> tuple[Path, str]:
    """The path and media type of ``file`` in the report folder ``name`` under ``folder``;
    anything but a listed report's plain file is a LookupError naming it."""
    if name not in report_folders(folder):
        raise LookupError(f"no report folder named {name!r} under the served folder")
    media = MEDIA.get(Path(file).suffix.lower())
    if media is None or "/" in file or "\\" in file or file.startswith(".") \
            or file == MARKER:
        raise LookupError(f"{name}/{file}: not a file of a report this server shows")
    path = Path(folder) / name / file
    if not _regular(path):
        raise LookupError(f"{name}/{file}: no such file in the report")
    return path, media
