"""Reading an experiment file's YAML: unique keys, numbers in exponent form, size limits.

``read_mapping`` gives the file's top-level mapping or raises ExperimentError with one
line (``"<file>: line 3, column 5: YAML syntax error: ..."``)."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from fishing2sim.config.keys import MAX_YAML_DEPTH, MAX_YAML_VALUES
from fishing2sim.config.messages import ExperimentError, did_you_mean
from fishing2sim.safe_files import read_input

__all__ = ["parse_yaml", "read_mapping"]


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that rejects a key given twice in one mapping."""


def _construct_mapping(loader, node, deep=False):
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            continue  # PyYAML reports unhashable keys itself
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first given on line {seen[key] + 1})",
                key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                                 _construct_mapping)
# YAML 1.1 (PyYAML) reads a number in exponent form without a dot, such as 1e9 or -2e-3, as
# text; a designer writing a range means a number (YAML 1.2 reads it so)
_UniqueKeyLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


class _YAMLLimit(yaml.YAMLError):
    def __init__(self, problem, mark=None):
        super().__init__(problem)
        self.problem, self.mark = problem, mark


class _LimitedLoader(_UniqueKeyLoader):
    """Refuses nesting deeper than MAX_YAML_DEPTH while composing (PyYAML recurses there)."""

    _depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _YAMLLimit(f"nested deeper than {MAX_YAML_DEPTH} levels",
                                 self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _expanded_size(node, memo: dict) -> int:
    """How many values ``node`` stands for once every alias is expanded (an alias shares
    its anchor's node: counted once per use, computed once per node)."""
    key = id(node)
    if key not in memo:
        if isinstance(node, yaml.SequenceNode):
            memo[key] = 1 + sum(_expanded_size(c, memo) for c in node.value)
        elif isinstance(node, yaml.MappingNode):
            memo[key] = 1 + sum(_expanded_size(k, memo) + _expanded_size(v, memo)
                                for k, v in node.value)
        else:
            memo[key] = 1
    return memo[key]


def _load_yaml(text: str):
    loader = _LimitedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}) > MAX_YAML_VALUES:
            raise _YAMLLimit(f"the file expands to more than {MAX_YAML_VALUES:,} values "
                             "through its aliases (*name)", None)
        return loader.construct_document(node)
    finally:
        loader.dispose()



def parse_yaml(text: str, given: str):
    """The YAML document ``text`` (None if empty), read with this module's limits (a key
    given twice in a mapping, nesting deeper than MAX_YAML_DEPTH, aliases expanding to more
    than MAX_YAML_VALUES values are refused); a problem is one ExperimentError line,
    ``"<given>: line 3, column 5: ..."``. The experiment files' reader (read_mapping) and
    the training files' (fishing2sim/train/config.py) both read through it."""
    try:
        return _load_yaml(text)  # a SafeLoader subclass with size limits
    except _YAMLLimit as exc:
        where = f"line {exc.mark.line + 1}, column {exc.mark.column + 1}: " if exc.mark \
            else ""
        raise ExperimentError(f"{given}: {where}{exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "YAML"
        problem = getattr(exc, "problem", None) or str(exc)
        context = getattr(exc, "context", None)
        what = f"{context}: {problem}" if context and problem else problem
        cmark = getattr(exc, "context_mark", None)
        if cmark is not None and mark is not None and cmark.line != mark.line:
            what += f" (it started on line {cmark.line + 1})"
        raise ExperimentError(f"{given}: {where}: YAML syntax error: {what}") from None


def read_mapping(path: Path, given: str) -> dict:
    """The mapping of the experiment file ``path`` (``given``: as the user named it)."""
    try:
        text = read_input(path).decode("utf-8")
    except FileNotFoundError:
        hint = ""
        if "/" not in given and "\\" not in given:
            from fishing2sim.config.shipped import shipped_experiments

            names = [n for n, _, _ in shipped_experiments()]
            hint = (f"{did_you_mean(given.removesuffix('.yaml'), names)}; shipped "
                    f"experiments: {', '.join(names)}") if names else ""
        raise ExperimentError(f"{given}: file not found{hint}") from None
    except IsADirectoryError:
        raise ExperimentError(f"{given}: a folder, not an experiment file: give a "
                              "YAML file, or the name of a shipped experiment (fishing2sim "
                              "experiments lists them)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ExperimentError(f"{given}: cannot read the file: {exc}") from None
    data = parse_yaml(text, given)
    if data is None:
        raise ExperimentError(f"{given}: the file is empty: an experiment is a mapping "
                              "of keys such as players, games, seats (see "
                              "experiments/example.yaml)")
    if not isinstance(data, dict):
        raise ExperimentError(f"{given}: top level: expected a mapping of keys such as "
                              f"players, games, seats, got a {type(data).__name__}")
    return data
