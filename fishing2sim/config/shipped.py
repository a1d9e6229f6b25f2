"""The shipped experiment files: where they are, their names, their one-line descriptions."""
from __future__ import annotations

import re
from pathlib import Path

__all__ = ["first_sentences", "shipped_experiment", "shipped_experiments",
           "shipped_experiments_dir"]


def shipped_experiments_dir() -> Path | None:
    """The shipped experiment files: fishing2sim/experiments/ in an installed package, the
    repository's experiments/ in a source checkout."""
    pkg = Path(__file__).resolve().parent.parent
    for d in (pkg / "experiments", pkg.parent / "experiments"):
        if d.is_dir() and any(d.glob("*.yaml")):
            return d
    return None


def shipped_experiments() -> list[tuple[str, Path, str]]:
    """(name, path, the first paragraph of its leading comment, on one line) of every
    shipped experiment."""
    d = shipped_experiments_dir()
    out = []
    for path in sorted(d.glob("*.yaml")) if d else ():
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            text = line.lstrip("#").strip()
            if not line.startswith("#") or not text:
                break  # the paragraph ends at a blank line or the file's keys
            lines.append(text)
        doc = " ".join(" ".join(lines).split())
        if doc.lower().startswith(path.name.lower()):
            doc = doc[len(path.name):].lstrip(" -:—")
        out.append((path.stem, path, doc))
    return out


def first_sentences(text: str) -> str:
    """The first whole sentence of ``text``, and the next one too when the first is a short
    question (it names the topic; the next says what is measured): a sentence ends at . ?
    or ! followed by a space (or the end), outside parentheses and quotes, not after an
    abbreviation such as e.g."""
    ends, depth, quoted = [], 0, False
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif ch == '"':
            quoted = not quoted
        elif ch in ".?!" and depth == 0 and not quoted \
                and (i + 1 == len(text) or text[i + 1] == " ") \
                and not re.search(r"(?:\b(?:e\.g|i\.e|vs|etc)|\.\.)\.$", text[:i + 1]):
            ends.append(i + 1)
    if not ends:
        return text
    short_question = text[ends[0] - 1] == "?" and ends[0] <= 120 and len(ends) > 1
    return text[:ends[1] if short_question else ends[0]]


def shipped_experiment(spec: str) -> str:
    """The experiment file ``spec`` names: ``spec`` itself if it is an existing file (or a
    path), else ``spec.yaml`` in the current folder, else the shipped experiment it names
    (``trump`` or ``trump.yaml``; a shipped name wins over a folder of that name, such as
    a checkout's ``strategies/``), else ``spec`` (the loader reports it missing)."""
    if Path(spec).expanduser().is_file() or "/" in spec or "\\" in spec:
        return spec
    if not spec.endswith(".yaml") and Path(f"{spec}.yaml").is_file():
        return f"{spec}.yaml"
    stem = spec[:-5] if spec.endswith(".yaml") else spec
    for name, path, _ in shipped_experiments():
        if name == stem:
            return str(path)
    return spec

