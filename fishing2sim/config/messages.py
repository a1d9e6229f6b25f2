"""The one error formatter: a pydantic ``ValidationError`` as the project's one-line message.

Every schema in :mod:`fishing2sim.config.schema` (and the tune section's, in
:mod:`fishing2sim.tune.schema`) is validated against the data as written in the file; the
first error becomes ``"<key path>: <problem>"``, the key path written as the file writes
it (``deck.remove_from_tier.5``, ``seats[2].params``), the problem one of:

- a check of the schema itself (a validator raising :func:`problem`): its text as is;
- an unknown key: ``unknown key (did you mean 'games'?); known: name, ruleset, ...``
  (:class:`fishing2sim.config.schema.Schema` checks the keys in the file's order);
- a wrong type or value: ``expected <help>, got <value>``, the help found in the schema's
  ``help`` table for the field's key path (``seats[].params`` for every seat's,
  ``remove_from_tier.*`` for every tier's), else said from pydantic's error type
  (``a whole number >= 1``).

The caller prefixes the file (``"x.yaml: "``) and, where it applies, the sweep condition
being expanded.
"""
from __future__ import annotations

import difflib
import json

from pydantic import ValidationError
from pydantic_core import PydanticCustomError

from fishing2sim.errors import Fishing2simError

__all__ = ["ExperimentError", "KeyProblem", "did_you_mean", "first_error", "got", "problem",
           "short"]


class ExperimentError(Fishing2simError, ValueError):
    """A problem in an experiment file: ``"<file>: <key path>: <problem>"``."""


class KeyProblem(ValueError):
    """The first problem found at a key path of the file: ``"<key path>: <problem>"``
    (``path``, ``text``), raised by a schema (:func:`fishing2sim.config.schema.check`) or by
    a check that needs the deck, the strategies or the grid; the loader adds the file's
    name and the condition being expanded (``labels``, ``swept``: set where one is).
    ``whole``: ``text`` already names its key path (a deck edit's message)."""

    def __init__(self, path: str, text: str, whole: bool = False):
        super().__init__(text if whole else (f"{path}: {text}" if path else text))
        self.path, self.text, self.whole = path, text, whole
        self.labels: dict = {}
        self.swept: set = set()


def did_you_mean(word, choices, n: int = 1, cutoff: float = 0.6) -> str:
    """`` (did you mean 'games'?)`` (or ``'a' or 'b'`` for n > 1), or ``""``."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=n, cutoff=cutoff)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


def got(v) -> str:
    return f"got {v!r}"


def short(v) -> str:
    """A value as a condition's label shows it (a mapping or a list as compact JSON)."""
    if isinstance(v, (dict, list)):
        return json.dumps(v, separators=(",", ":"), default=str)
    return str(v)


def problem(text: str, key=None, index: int | None = None,
            tail: str | None = None) -> PydanticCustomError:
    """The error a schema's validator raises: ``text`` is the whole problem; ``key`` (a key
    of the mapping being validated: ``.key``), ``index`` (an entry of the list: ``[i]``)
    and ``tail`` (a key path written out, ``[2].label``) are appended to the key path."""
    ctx = {"text": text}
    if key is not None:
        ctx["key"] = key
    if index is not None:
        ctx["index"] = index
    if tail:
        ctx["tail"] = tail
    return PydanticCustomError("problem", "{text}", ctx)


def key_path(data, loc) -> tuple[list, object]:
    """(the parts of ``loc`` in ``data`` as the file writes them, the value there): each
    ``("[]", i)`` for a list's entry or ``(".", key)`` for a mapping's key.

    Walking the data tells a list's index from a mapping's key and drops the parts pydantic
    adds to a location (a union member's tag, ``[key]``)."""
    parts, node = [], data
    for part in loc:
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            parts.append(("[]", part))
            node = node[part]
        elif isinstance(node, dict) and _key(node, part) is not None:
            key = _key(node, part)
            parts.append((".", key))
            node = node[key]
        elif isinstance(node, dict) and isinstance(part, str) and part.isidentifier():
            parts.append((".", part))  # a key not given: its default checked
            node = None
    return parts, node


def _key(node: dict, part):
    if part in node:
        return part
    for k in node:  # a key pydantic gives as text (an int key of a mapping, say)
        if str(k) == str(part):
            return k
    return None


def _join(parts, base: str = "", star: int | None = None) -> str:
    """The key path of ``parts`` below ``base``; with ``star`` the help table's form: list
    entries ``[]`` and the last ``star`` mapping keys ``*``."""
    keys = [i for i, (kind, _) in enumerate(parts) if kind == "."]
    starred = set(keys[len(keys) - star:]) if star else set()
    out = base
    for i, (kind, key) in enumerate(parts):
        if kind == "[]":
            out += "[]" if star is not None else f"[{key}]"
        else:
            k = "*" if i in starred else str(key)
            out = f"{out}.{k}" if out else k
    return out


def _help(table: dict, parts) -> str | None:
    """The help for a key path: its own entry, else the entry with its mapping keys (from
    the last one) written ``*``."""
    for star in range(sum(1 for kind, _ in parts if kind == ".") + 1):
        shown = _join(parts, "", star)
        if shown in table:
            return table[shown]
    return None


# what a pydantic error type expects, for a key the help table does not name
_EXPECTED = {
    "int_type": "a whole number", "int_from_float": "a whole number",
    "float_type": "a number", "bool_type": "true or false", "string_type": "text",
    "list_type": "a list", "dict_type": "a mapping", "model_type": "a mapping",
    "model_attributes_type": "a mapping", "greater_than_equal": "a number >= {ge}",
    "greater_than": "a number > {gt}", "less_than_equal": "a number <= {le}",
    "less_than": "a number < {lt}",
}


def first_error(exc: ValidationError, data, help_table: dict, base: str = "",
                rename: dict | None = None) -> tuple[str, str]:
    """(key path, problem) for the first error of ``exc`` (raised validating
    ``data``). ``help_table``: key path (relative to ``data``) -> what it expects;
    ``base``: the key path of ``data`` in the file (``"deck"``); ``rename``: a key path
    shown otherwise (``{"games": "games (from the command line)"}``)."""
    err = exc.errors(include_url=False)[0]
    parts, value = key_path(data, err["loc"])
    ctx = err.get("ctx") or {}
    if "key" in ctx:  # an unknown key (or another problem of one key) of that mapping
        parts.append((".", ctx["key"]))
    if "index" in ctx:
        parts.append(("[]", ctx["index"]))
    path = _join(parts, base) + ctx.get("tail", "")
    shown = (rename or {}).get(path, path)
    if err["type"] == "problem":
        text = ctx["text"]
    elif err["type"] == "missing":
        text = f"missing key {err['loc'][-1]!r}"
    else:
        expected = _help(help_table, parts) or _EXPECTED.get(err["type"], "").format(**ctx) \
            or err["msg"].lower()
        text = f"expected {expected}, {got(err.get('input', value))}"
    return shown, text
