"""Strategy plugins: find a bot by NAME (in strategies/) or by file path; build lineups.

A strategy file has ``NAME`` and one ``@decision`` function per decision it makes
(strategy_kit.DECISION_FUNCTIONS); the reference random strategy makes the others.
Files are imported as real modules (their folder on sys.path, then importlib), so numba's
on-disk cache works for them across processes (dropped when the engine or kit sources
changed since it was written: the bots' compiled code holds the kit's helpers). A lineup
is one tuple per decision kind of one function per seat: all have one signature, so the
jitted driver compiles once for every lineup and calls the seat's function through the
tuple.
"""
from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import types

from .engine.constants import MAX_PLAYERS
from .reference import choose_uniformly
from .strategy_kit import DECISION_FUNCTIONS

REPO_ROOT = Path(__file__).resolve().parent.parent


def _bots_package() -> tuple[Path, str]:
    """The shipped bots' folder and package: ``fishing2sim.bots`` (the repository's
    ``strategies/`` folder, mapped into the installed package by pyproject.toml), or
    ``strategies`` of a source checkout used without installing it."""
    try:
        import fishing2sim.bots as bots

        return Path(bots.__file__).resolve().parent, "fishing2sim.bots"
    except ImportError:
        return REPO_ROOT / "strategies", "strategies"


STRATEGIES_DIR, BOTS_PACKAGE = _bots_package()
_ARGS = (types.Array(types.int64, 1, "C"), types.Array(types.float64, 1, "C"),
         types.Array(types.uint64, 1, "C"))


class StrategyError(ValueError):
    """A strategy that cannot be found or does not follow the contract."""


@dataclass(frozen=True)
class Strategy:
    name: str
    source: str  # the file it came from
    functions: tuple  # one compiled decision function per D_* code
    defined: tuple  # names of the decisions the file defines itself
    defaults: tuple = ()  # default parameter vector (the file's PARAMS)
    param_names: tuple = ()
    observes: bool = True  # False: reads only its options (the engine skips building obs)

    @property
    def n_params(self) -> int:
        return len(self.defaults)


def known_strategies() -> list[str]:
    return sorted(p.stem for p in STRATEGIES_DIR.glob("*.py") if not p.stem.startswith("_"))


def describe_strategies() -> list[dict]:
    """The shipped bots, read from their files without importing (compiling) them: name,
    the docstring's first line, and the parameters as (name, default) pairs."""
    import ast

    out = []
    for stem in known_strategies():
        path = STRATEGIES_DIR / f"{stem}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        doc = (ast.get_docstring(tree) or "").strip().splitlines()
        line = doc[0] if doc else ""
        if line.startswith(f"{stem}:"):
            line = line[len(stem) + 1:].strip()
        found = {}
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id in ("NAME", "PARAMS", "PARAM_NAMES"):
                        try:
                            found[t.id] = ast.literal_eval(node.value)
                        except ValueError:
                            pass
        params = [float(x) for x in found.get("PARAMS", ())]
        names = list(found.get("PARAM_NAMES", ())) or [f"p{i}" for i in range(len(params))]
        out.append({"name": found.get("NAME", stem), "doc": line,
                    "params": list(zip(names, params))})
    return out


def _cache_dirs(path: Path) -> list[Path]:
    """Where numba may keep the compiled code of the functions in ``path``."""
    from numba.core import caching

    def probe():
        pass

    dirs = []
    for cls in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
                caching.UserWideCacheLocator):
        try:
            loc = cls.from_function(probe, str(path))
        except Exception:  # a locator that does not apply here
            loc = None
        if loc is not None:
            dirs.append(Path(loc.get_cache_path()))
    return dirs


def _stamp_file(folder: Path, path: Path) -> Path:
    return folder / f"{path.stem}.fishing2sim.stamp"


def _drop_stale_strategy_cache(path: Path) -> None:
    """numba keys a cached function on its own file only, but a strategy's compiled code
    holds the strategy_kit helpers (and engine constants) it calls: when those sources
    changed since the file's cache was written, drop that cache before importing."""
    from .engine import kernel_stamp

    stamp = kernel_stamp()
    for folder in _cache_dirs(path):
        cached = list(folder.glob(f"{path.stem}.*.nbi")) + list(folder.glob(f"{path.stem}.*.nbc"))
        if not cached:
            continue
        sf = _stamp_file(folder, path)
        try:
            if sf.is_file() and sf.read_text() == stamp:
                continue
            for f in cached:
                f.unlink(missing_ok=True)
        except OSError:  # a read-only cache cannot have been written by another version
            pass


def _write_strategy_stamp(path: Path) -> None:
    from .engine import kernel_stamp

    for folder in _cache_dirs(path):
        if any(folder.glob(f"{path.stem}.*.nbi")):
            sf = _stamp_file(folder, path)
            tmp = sf.with_suffix(f".{os.getpid()}.tmp")
            try:
                tmp.write_text(kernel_stamp())
                os.replace(tmp, sf)
            except OSError:
                pass


def _import_file(path: Path):
    if path.parent == STRATEGIES_DIR:  # the engine keeps this folder's cache current
        if BOTS_PACKAGE == "strategies" and str(REPO_ROOT) not in sys.path:
            sys.path.insert(0, str(REPO_ROOT))
        return importlib.import_module(f"{BOTS_PACKAGE}.{path.stem}")
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    existing = sys.modules.get(path.stem)
    if existing is not None and Path(getattr(existing, "__file__", "") or "").resolve() != path:
        raise StrategyError(
            f"strategy file {path}: its module name '{path.stem}' is already taken by "
            f"{getattr(existing, '__file__', 'a built-in module')}; rename the file")
    if existing is None:
        _drop_stale_strategy_cache(path)
    module = importlib.import_module(path.stem)
    if existing is None:
        _write_strategy_stamp(path)
    return module


def _check_function(path: Path, fname: str, fn):
    if not hasattr(fn, "nopython_signatures"):
        raise StrategyError(
            f"strategy file {path}: {fname} is not a decision function: decorate it with "
            "@decision (from fishing2sim.strategy_kit)")
    sigs = fn.nopython_signatures
    if len(sigs) != 1 or tuple(sigs[0].args) != _ARGS or sigs[0].return_type != types.int64:
        got = ", ".join(str(s) for s in sigs) or "no compiled signature"
        raise StrategyError(
            f"strategy file {path}: {fname} has the wrong signature ({got}); a decision "
            "takes (obs, params, rng) and returns an int: decorate it with @decision")


def resolve_path(spec: str) -> Path:
    if spec.endswith(".py") or "/" in spec or "\\" in spec:
        path = Path(spec).expanduser().resolve()
        if not path.is_file():
            raise StrategyError(f"strategy file {spec} does not exist")
        return path
    path = STRATEGIES_DIR / f"{spec}.py"
    if not path.is_file():
        raise StrategyError(
            f"unknown strategy '{spec}': known strategies are {', '.join(known_strategies())}"
            " (or give the path of a .py file)")
    return path


_cache: dict[Path, Strategy] = {}


def load_strategy(spec) -> Strategy:
    """A strategy by name (a file in strategies/) or by path to a .py file."""
    if isinstance(spec, Strategy):
        return spec
    path = resolve_path(str(spec))
    if path in _cache:
        return _cache[path]
    try:
        module = _import_file(path)
    except StrategyError:
        raise
    except Exception as exc:  # a user's file: report it, do not crash
        raise StrategyError(
            f"strategy file {path}: cannot be imported: {type(exc).__name__}: {exc}") from None
    name = getattr(module, "NAME", None)
    if not isinstance(name, str) or not name:
        raise StrategyError(f"strategy file {path}: no NAME (a non-empty string) defined")
    funcs, defined = [], []
    for fname in DECISION_FUNCTIONS:
        fn = getattr(module, fname, None)
        if fn is None:
            funcs.append(choose_uniformly)
            continue
        _check_function(path, fname, fn)
        funcs.append(fn)
        defined.append(fname)
    if not defined:
        raise StrategyError(
            f"strategy file {path}: defines none of the decisions "
            f"({', '.join(DECISION_FUNCTIONS)})")
    raw = getattr(module, "PARAMS", ())
    try:
        defaults = tuple(float(x) for x in raw)
    except (TypeError, ValueError):
        raise StrategyError(f"strategy file {path}: PARAMS must be a list of numbers") from None
    param_names = tuple(getattr(module, "PARAM_NAMES", ()))
    if param_names and len(param_names) != len(defaults):
        raise StrategyError(f"strategy file {path}: PARAM_NAMES has {len(param_names)} names "
                            f"for {len(defaults)} PARAMS")
    s = Strategy(name, str(path), tuple(funcs), tuple(defined), defaults, param_names,
                 bool(getattr(module, "OBSERVES", True)))
    _cache[path] = s
    return s


def build_lineup(specs, players: int, params=None):
    """(strats, params table, strategies) for the kernels.

    ``specs``: one strategy (name, path or Strategy) for every seat or a list, one per seat.
    ``params``: None, or a list with one vector (or None for the defaults) per seat.
    ``strats[kind][seat]`` is the seat's function for decision ``kind``; unused seats are
    padded with seat 0's, so the driver's type never depends on the lineup.
    """
    if specs is None:
        specs = "random"
    if isinstance(specs, (str, Path, Strategy)):
        specs = [specs] * players
    specs = list(specs)
    if len(specs) != players:
        raise StrategyError(f"the lineup names {len(specs)} strategies for {players} seats")
    strats = [load_strategy(s) for s in specs]
    if params is not None and len(params) != players:
        raise StrategyError(f"params: {len(params)} vectors for {players} seats")
    width = max([1] + [s.n_params for s in strats])
    table = np.zeros((MAX_PLAYERS, width), np.float64)
    for seat, s in enumerate(strats):
        vec = s.defaults
        if params is not None and params[seat] is not None:
            vec = np.asarray(params[seat], np.float64).ravel()
            if vec.shape != (s.n_params,):
                raise StrategyError(
                    f"strategy '{s.name}' ({s.source}) takes {s.n_params} parameters"
                    f"{' (' + ', '.join(s.param_names) + ')' if s.param_names else ''}, "
                    f"got {vec.size}")
        table[seat, : len(vec)] = vec
    seats = strats + [strats[0]] * (MAX_PLAYERS - players)
    funcs = tuple(tuple(s.functions[k] for s in seats) for k in range(len(DECISION_FUNCTIONS)))
    return funcs, table, strats


def observe_mask(strats) -> int:
    """Bit p set: seat p's strategy reads the observation (the engine builds it)."""
    return sum(1 << p for p, s in enumerate(strats) if s.observes)
