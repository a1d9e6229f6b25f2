"""Strategy plugins: find a bot by NAME (in strategies/) or by file path; build lineups.

A strategy file has ``NAME`` and one ``@decision`` function per decision it makes
(strategy_kit.DECISION_FUNCTIONS); its ``FALLBACK`` (a mapping of decision names to
``@decision`` functions, e.g. strategy_kit.SHARED_DECISIONS), if it has one, makes the
decisions it leaves undefined, and the reference random strategy the rest. Loading
checks the names: a function named almost like a decision, or a ``@decision`` bound to no
decision name, is an error with a did-you-mean.
Files are imported as real modules (their folder on sys.path while they are imported, then
taken off it again), so numba's on-disk cache works for them across processes. numba keys
a cached function on its own file only, but a strategy's compiled code holds what it calls:
the engine and kit sources and the modules of the user's own folder it imports. A stamp
beside the cache holds a digest of all of them (``strategy_digest``) and the cache is dropped
when it differs. The same digest goes into an experiment's config hash.
A lineup is one tuple per decision kind of one function per seat: all have one signature,
so the jitted driver compiles once for every lineup and calls the seat's function through
the tuple. Strict mode (``load_strategy(spec, strict=True)``) compiles the strategy's own
functions again with bounds checking, so an out-of-range read raises an error naming it.
"""
from __future__ import annotations

import ast
import difflib
import hashlib
import importlib
import os
import sys
import types as pytypes
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fishing2sim.engine.constants import MAX_PLAYERS
from fishing2sim.strategy.contract import DECISION_FUNCTIONS, ContractError

REPO_ROOT = Path(__file__).resolve().parent.parent.parent


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
# numba (and the reference strategy, which compiles) load with the first strategy, not
# with this module: the experiment loader reports a file's mistakes without them


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
    digest: str = ""  # sha256 of the file and of the user's modules it imports
    strict: bool = False  # compiled with bounds checking
    search: str = ""  # a search bot (SEARCH_METHODS): the engine searches its card plays
    # and trump choices (docs/search.md); its other decisions and every seat in its
    # rollouts are its rollout strategy's
    rollout: "Strategy | None" = None
    searches: tuple = ()  # the decisions a search bot searches ("play", "trump_choice")

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
        if "PARAM_NAMES" not in found:  # imported from a sibling bot (weights_tuned)
            for node in tree.body:
                if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module \
                        and any(a.name == "PARAM_NAMES" and a.asname is None
                                for a in node.names):
                    names = _static_value(STRATEGIES_DIR / f"{node.module}.py", "PARAM_NAMES")
                    if isinstance(names, (list, tuple)):
                        found["PARAM_NAMES"] = names
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


# ---- what a strategy file is made of: the file and the user's modules it imports ---------

def _local_module(folder: Path, dotted: str) -> Path | None:
    """The file of module ``dotted`` when it lives in ``folder`` (the strategy's own folder,
    which is on the import path while the strategy is imported), else None."""
    base = folder.joinpath(*dotted.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand.resolve()
    return None


def _imported_files(path: Path, root: Path) -> list[Path]:
    """The files of ``root``'s folder that ``path`` imports (import x, from x import y,
    from . import y), read from its source: no code runs."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError, OSError):
        return []
    pkg = path.parent.relative_to(root).parts if path.parent != root and \
        root in path.parents else ()
    out = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the importing file's package
                up = pkg[: len(pkg) - (node.level - 1)] if node.level - 1 <= len(pkg) else ()
                prefix = ".".join(up)
                mod = ".".join(x for x in (prefix, node.module or "") if x)
            else:
                mod = node.module or ""
            names = [mod] if mod else []
            names += [f"{mod}.{a.name}" if mod else a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            for k in range(1, len(parts) + 1):  # a.b.c imports a, a.b and a.b.c
                f = _local_module(root, ".".join(parts[:k]))
                if f is not None and f != path:
                    out.append(f)
    return out


def strategy_sources(path: Path) -> list[Path]:
    """The strategy file and every module of its folder it imports, directly or not."""
    path = Path(path).resolve()
    root = path.parent
    seen, todo = [path], [path]
    while todo:
        for f in _imported_files(todo.pop(), root):
            if f not in seen:
                seen.append(f)
                todo.append(f)
    return seen


def strategy_digest(path, _depth: int = 0) -> str:
    """sha256 over the strategy file and the user's modules it imports (by content, in a
    fixed order, named relative to the strategy's folder: the same files elsewhere give the
    same digest); a search bot's covers its rollout strategy's too."""
    path = Path(path).resolve()
    h = hashlib.sha256()
    files = strategy_sources(path)
    for f in [files[0]] + sorted(files[1:]):
        h.update(str(f.relative_to(path.parent)).encode() + b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    rollout = _static_value(path, "ROLLOUT")
    if isinstance(rollout, str) and _depth == 0:
        try:
            h.update(strategy_digest(_rollout_path(path, rollout), 1).encode())
        except (StrategyError, OSError):
            pass  # loading the bot reports it
    return h.hexdigest()


def _static_value(path: Path, name: str):
    """A module-level constant of a file, read without importing it (None if absent)."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    found = None
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else []
        for t in targets:
            if isinstance(t, ast.Name) and t.id == name:
                try:
                    found = ast.literal_eval(node.value)  # the last one is the module's
                except ValueError:
                    found = None
    return found


def _rollout_path(path: Path, spec: str) -> Path:
    """A search bot's ROLLOUT: a shipped bot's name, or a .py file (relative to the
    search bot's folder)."""
    if spec.endswith(".py") or "/" in spec or "\\" in spec:
        p = Path(spec).expanduser()
        if not p.is_absolute():
            p = Path(path).parent / p
        return resolve_path(str(p))
    return resolve_path(spec)


def _cache_stamp(path: Path) -> str:
    from fishing2sim.engine import kernel_stamp

    return f"{kernel_stamp()} {strategy_digest(path)}"


def _drop_stale_strategy_cache(path: Path) -> None:
    """numba keys a cached function on its own file only, but a strategy's compiled code
    holds the strategy_kit helpers (and engine constants) it calls and the helpers of the
    user's modules it imports: when any of those sources changed since the file's cache
    was written, drop the cache of the file and of those modules before importing."""
    stamp = _cache_stamp(path)
    sources = strategy_sources(path)
    for folder in _cache_dirs(path):
        cached = list(folder.glob(f"{path.stem}.*.nbi")) + list(folder.glob(f"{path.stem}.*.nbc"))
        if not cached:
            continue
        sf = _stamp_file(folder, path)
        try:
            if sf.is_file() and sf.read_text() == stamp:
                continue
            for src in sources:
                for d in _cache_dirs(src):
                    for f in list(d.glob(f"{src.stem}.*.nbi")) + list(d.glob(f"{src.stem}.*.nbc")):
                        f.unlink(missing_ok=True)
        except OSError:  # a read-only cache cannot have been written by another version
            pass


def _write_strategy_stamp(path: Path) -> None:
    stamp = _cache_stamp(path)
    for folder in _cache_dirs(path):
        if any(folder.glob(f"{path.stem}.*.nbi")):
            sf = _stamp_file(folder, path)
            tmp = sf.with_suffix(f".{os.getpid()}.tmp")
            try:
                tmp.write_text(stamp)
                os.replace(tmp, sf)
            except OSError:
                pass


def _import_file(path: Path):
    if path.parent == STRATEGIES_DIR:  # the engine keeps this folder's cache current
        if BOTS_PACKAGE == "strategies" and str(REPO_ROOT) not in sys.path:
            sys.path.insert(0, str(REPO_ROOT))
        return importlib.import_module(f"{BOTS_PACKAGE}.{path.stem}")
    existing = sys.modules.get(path.stem)
    if existing is not None:
        if Path(getattr(existing, "__file__", "") or "").resolve() != path:
            raise StrategyError(
                f"strategy file {path}: its module name '{path.stem}' is already taken by "
                f"{getattr(existing, '__file__', None) or 'a built-in module'}; rename the file")
        return existing
    _drop_stale_strategy_cache(path)
    # the folder is on the import path only while the strategy is imported, and last: a
    # module of the user's folder never shadows an installed one for the rest of the run
    folder = str(path.parent)
    added = folder not in sys.path
    if added:
        sys.path.append(folder)
    try:
        module = importlib.import_module(path.stem)
    finally:
        if added:
            try:
                sys.path.remove(folder)
            except ValueError:
                pass
    if Path(getattr(module, "__file__", "") or "").resolve() != path:
        raise StrategyError(
            f"strategy file {path}: its module name '{path.stem}' is the name of an installed "
            f"module ({getattr(module, '__file__', None) or 'built in'}); rename the file")
    _write_strategy_stamp(path)
    return module


def _is_decision(fn) -> bool:
    return bool(getattr(fn, "__fishing2sim_decision__", False))


def _fallback(path: Path, module) -> dict:
    """The file's FALLBACK: {decision name: @decision function} for the decisions it does
    not define ({} without one)."""
    fallback = getattr(module, "FALLBACK", None)
    if fallback is None:
        return {}
    if not isinstance(fallback, dict) or not all(k in DECISION_FUNCTIONS for k in fallback):
        raise StrategyError(
            f"strategy file {path}: FALLBACK must map decision names "
            f"({', '.join(DECISION_FUNCTIONS)}) to @decision functions, e.g. "
            f"FALLBACK = SHARED_DECISIONS (from fishing2sim.strategy.kit); got {fallback!r}")
    return fallback


def _check_function(path: Path, fname: str, fn):
    from numba import types
    from numba.core import config

    if config.DISABLE_JIT and _is_decision(fn):  # the debug mode: plain Python functions
        return
    if not hasattr(fn, "nopython_signatures"):
        raise StrategyError(
            f"strategy file {path}: {fname} is not a decision function: decorate it with "
            "@decision (from fishing2sim.strategy.kit)")
    sigs = fn.nopython_signatures
    args = (types.Array(types.int64, 1, "C"), types.Array(types.float64, 1, "C"),
            types.Array(types.uint64, 1, "C"))
    if len(sigs) != 1 or tuple(sigs[0].args) != args or sigs[0].return_type != types.int64:
        got = ", ".join(str(s) for s in sigs) or "no compiled signature"
        raise StrategyError(
            f"strategy file {path}: {fname} has the wrong signature ({got}); a decision "
            "takes (obs, params, rng) and returns an int: decorate it with @decision")


def _own(module, obj) -> bool:
    """``obj`` is a function (plain or compiled) defined in ``module`` itself."""
    fn = getattr(obj, "py_func", obj)
    return callable(fn) and getattr(fn, "__module__", None) == module.__name__


def _check_names(path: Path, module) -> None:
    """A function named almost like a decision, or a @decision bound to no decision name,
    is an error with a did-you-mean: otherwise a misspelled decision is silently ignored."""
    bound = {id(getattr(module, n)) for n in DECISION_FUNCTIONS if hasattr(module, n)}
    for name, obj in vars(module).items():
        if name in DECISION_FUNCTIONS or name.startswith("__") or not _own(module, obj):
            continue
        close = difflib.get_close_matches(name, DECISION_FUNCTIONS, n=1, cutoff=0.8)
        if close:
            raise StrategyError(
                f"strategy file {path}: '{name}' is not a decision name: did you mean "
                f"'{close[0]}'? (decisions: {', '.join(DECISION_FUNCTIONS)})")
        if _is_decision(obj) and id(obj) not in bound:
            raise StrategyError(
                f"strategy file {path}: @decision function '{name}' is not a decision name "
                f"and no decision name is bound to it; name it after the decision it makes "
                f"({', '.join(DECISION_FUNCTIONS)}) or assign it, e.g. 'play = {name}'")


def resolve_path(spec: str) -> Path:
    if spec.endswith(".py") or "/" in spec or "\\" in spec:
        path = Path(spec).expanduser().resolve()
        if not path.is_file():
            raise StrategyError(f"strategy file {spec} does not exist")
        return path
    path = STRATEGIES_DIR / f"{spec}.py"
    if not path.is_file():
        known = known_strategies()
        close = difflib.get_close_matches(spec, known, n=1, cutoff=0.6)
        raise StrategyError(
            f"unknown strategy {spec!r}{f' (did you mean {close[0]!r}?)' if close else ''}; "
            f"known: {', '.join(known)} (or give the path of a .py file)")
    return path


def _short_error(exc: Exception, path: Path) -> str:
    """A compile or import error in a user's file, in a line or two: numba's typing errors
    run to a dozen lines; keep the first statement of the problem and the file's line."""
    from numba.core import errors

    if isinstance(exc, ContractError):
        return str(exc)
    text = str(exc)
    if isinstance(exc, errors.NumbaError):
        import re

        text = re.sub(r"\x1b\[[0-9;]*m", "", text)
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        first = next((ln for ln in lines if not ln.startswith(("During:", "File"))), "")
        where = next((ln for ln in lines if ln.startswith("File") and path.name in ln), "")
        text = f"{first}{' (' + where + ')' if where else ''}"
    return f"{type(exc).__name__}: {text}"


_cache: dict[tuple, Strategy] = {}
_loading: list[Path] = []  # the files being loaded, outermost first (search bots' ROLLOUTs)


def _rollout_cycle(path: Path) -> StrategyError:
    """Loading ``path`` again while it is being loaded: the ROLLOUTs of search bots lead
    back to it (a -> b -> a)."""
    chain = _loading[_loading.index(path):] + [path]
    return StrategyError(
        f"strategy file {chain[0]}: the search bots' ROLLOUTs form a cycle: "
        f"{' → '.join(p.stem for p in chain)} (a search rolls out with an ordinary strategy)")


def load_strategy(spec, strict: bool = False) -> Strategy:
    """A strategy by name (a file in strategies/) or by path to a .py file. ``strict``:
    its own functions compiled again with bounds checking (strict mode)."""
    if isinstance(spec, Strategy):
        if spec.strict or not strict:
            return spec
        spec = spec.source
    path = resolve_path(str(spec))
    key = (path, bool(strict))
    if key in _cache:
        return _cache[key]
    if path in _loading:
        raise _rollout_cycle(path)
    _loading.append(path)
    try:
        s = _load(path, strict)
    finally:
        _loading.pop()
    _cache[key] = s
    return s


def _load(path: Path, strict: bool) -> Strategy:
    from fishing2sim import first_run

    first_run.before_compile()  # importing a strategy compiles it (and the kit)
    try:
        module = _import_file(path)
    except StrategyError:
        raise
    except Exception as exc:  # a user's file: report it, do not crash
        raise StrategyError(
            f"strategy file {path}: cannot be imported: {_short_error(exc, path)}") from None
    name = getattr(module, "NAME", None)
    if not isinstance(name, str) or not name:
        raise StrategyError(f"strategy file {path}: no NAME (a non-empty string) defined")
    _check_names(path, module)
    if getattr(module, "SEARCH", None) is not None:
        return _search_bot(path, module, name, strict)
    from fishing2sim.strategy.reference import choose_uniformly  # imported here: it compiles on import

    fallback = _fallback(path, module)
    funcs, defined = [], []
    for fname in DECISION_FUNCTIONS:
        fn = getattr(module, fname, None)
        if fn is None:
            fn = fallback.get(fname)
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
    except (TypeError, ValueError, OverflowError):
        raise StrategyError(f"strategy file {path}: PARAMS must be a list of numbers") from None
    param_names = getattr(module, "PARAM_NAMES", ())
    if isinstance(param_names, str) or not isinstance(param_names, (list, tuple)) \
            or not all(isinstance(x, str) and x for x in param_names):
        raise StrategyError(f"strategy file {path}: PARAM_NAMES must be a list of names "
                            f"(non-empty strings), one per PARAMS entry; got {param_names!r}")
    param_names = tuple(param_names)
    if param_names and len(param_names) != len(defaults):
        raise StrategyError(f"strategy file {path}: PARAM_NAMES has {len(param_names)} names "
                            f"for {len(defaults)} PARAMS")
    observes = getattr(module, "OBSERVES", True)
    if not isinstance(observes, bool):
        raise StrategyError(f"strategy file {path}: OBSERVES must be True or False")
    if strict:
        try:
            funcs = _strict_functions(path, module, funcs)
        except Exception as exc:
            raise StrategyError(f"strategy file {path}: cannot be compiled in strict mode: "
                                f"{_short_error(exc, path)}") from None
    return Strategy(name, str(path), tuple(funcs), tuple(defined), defaults, param_names,
                    observes, strategy_digest(path), bool(strict))


# ---- search bots (docs/search.md) ----------------------------------------------------------

SEARCH_METHODS = {"pimc": 0, "cheater": 3, "ismcts": 2}  # engine/search.py METHOD_*
SEARCH_PARAM_NAMES = ("worlds", "rollouts", "horizon", "objective")
SEARCHABLE = DECISION_FUNCTIONS  # a search can make every decision (docs/search.md)
# (lowest, highest, whole numbers only) of each search parameter
SEARCH_PARAM_RANGES = ((1, 4096, True), (1, 1024, True), (0, 1, True), (0, 1, True))
SEARCH_PARAM_HELP = ("worlds: sampled worlds per decision (ismcts: iterations, one sampled world"
                     " each; cheater: iterations of the tree on the true state)",
                     "rollouts: rollouts per world and option",
                     "horizon: 0 = to the end of the round, 1 = to the end of the game",
                     "objective: 0 = points margin over the best other seat, 1 = win share")


def _search_bot(path: Path, module, name: str, strict: bool) -> Strategy:
    method = module.SEARCH
    if not isinstance(method, str) or method not in SEARCH_METHODS:
        raise StrategyError(f"strategy file {path}: SEARCH must be one of "
                            f"{', '.join(map(repr, SEARCH_METHODS))}, got {method!r}")
    # SEARCH and ROLLOUT must be what a reader of the file sees: the digest (the config
    # hash, the compiled-code cache's stamp) reads ROLLOUT without running the file
    for key in ("SEARCH", "ROLLOUT"):
        value = getattr(module, key, None)
        if value is not None and _static_value(path, key) != value:
            raise StrategyError(f"strategy file {path}: {key} must be a plain string "
                                f"assigned at the top of the file ({key} = {value!r}), not "
                                "computed or changed later")
    own = [f for f in DECISION_FUNCTIONS if getattr(module, f, None) is not None]
    if own:
        raise StrategyError(f"strategy file {path}: a search bot (SEARCH = {method!r}) makes "
                            f"its decisions by searching and defines none itself; found "
                            f"{', '.join(own)} (its other decisions are its ROLLOUT strategy's)")
    rspec = getattr(module, "ROLLOUT", None)
    if not isinstance(rspec, str) or not rspec:
        raise StrategyError(f"strategy file {path}: a search bot needs ROLLOUT, the name (or "
                            f".py file) of the strategy its rollouts are played with")
    rpath = _rollout_path(path, rspec)
    if rpath == path:
        raise StrategyError(f"strategy file {path}: ROLLOUT {rspec!r} is the search bot "
                            "itself (a search cannot roll out with a search)")
    rollout = load_strategy(rpath, strict)
    if rollout.search:
        raise StrategyError(f"strategy file {path}: ROLLOUT {rspec!r} is itself a search bot "
                            f"(SEARCH = {rollout.search!r}); a search rolls out with an "
                            "ordinary strategy")
    raw = getattr(module, "PARAMS", None)
    try:
        defaults = tuple(float(x) for x in raw)
    except (TypeError, ValueError, OverflowError):
        raise StrategyError(f"strategy file {path}: PARAMS must be a list of numbers "
                            f"({', '.join(SEARCH_PARAM_NAMES)})") from None
    if len(defaults) != len(SEARCH_PARAM_NAMES):
        raise StrategyError(f"strategy file {path}: a search bot's PARAMS are "
                            f"{len(SEARCH_PARAM_NAMES)} numbers ({', '.join(SEARCH_PARAM_NAMES)}),"
                            f" got {len(defaults)}")
    problem = search_params_problem(defaults)
    if problem:
        raise StrategyError(f"strategy file {path}: PARAMS: {problem}")
    searches = getattr(module, "SEARCHES", SEARCHABLE)
    if isinstance(searches, str) or not isinstance(searches, (list, tuple)) or not searches \
            or any(x not in SEARCHABLE for x in searches) or len(set(searches)) != len(searches):
        raise StrategyError(f"strategy file {path}: SEARCHES must list the decisions it "
                            f"searches, one or both of {', '.join(map(repr, SEARCHABLE))}; "
                            f"got {searches!r}")
    return Strategy(name, str(path), rollout.functions, (), defaults, SEARCH_PARAM_NAMES,
                    rollout.observes, strategy_digest(path), bool(strict), method, rollout,
                    tuple(searches))


def search_params_problem(vec) -> str:
    """What is wrong with a search bot's parameter vector ("" if nothing)."""
    if len(vec) != len(SEARCH_PARAM_NAMES):
        return (f"a search bot takes {len(SEARCH_PARAM_NAMES)} parameters "
                f"({', '.join(SEARCH_PARAM_NAMES)}), got {len(vec)}")
    for x, pname, (lo, hi, whole), text in zip(vec, SEARCH_PARAM_NAMES, SEARCH_PARAM_RANGES,
                                               SEARCH_PARAM_HELP):
        if not np.isfinite(x) or x < lo or x > hi or (whole and x != int(x)):
            kind = "a whole number" if whole else "a number"
            return f"{pname} must be {kind} from {lo} to {hi}, got {x:g} ({text})"
    return ""


def search_args(strats, params, players: int):
    """The search kernel's extra arguments for a lineup with search seats (None without):
    (search mask, search parameters [MAX_PLAYERS, N_SP], each seat's rollout lineup (a
    tuple of MAX_PLAYERS lineups: every seat of seat s's rollouts plays s's rollout
    strategy), their parameter tables [MAX_PLAYERS, MAX_PLAYERS, width] and observe masks).
    ``params``: None or one vector (or None) per seat."""
    seats = [p for p, s in enumerate(strats) if s.search]
    if not seats:
        return None
    from fishing2sim.search.kernels import N_SP  # (the search kernels are loaded only when a seat searches)

    mask = 0
    sp = np.zeros((MAX_PLAYERS, N_SP), np.float64)
    lineups = {}
    for p in seats:
        s = strats[p]
        vec = s.defaults
        if params is not None and params[p] is not None:
            vec = tuple(float(x) for x in np.asarray(params[p], np.float64).ravel())
        problem = search_params_problem(vec)
        if problem:
            raise StrategyError(f"strategy '{s.name}' ({s.source}): {problem}")
        for name in s.searches:
            mask |= 1 << (MAX_PLAYERS * DECISION_FUNCTIONS.index(name) + p)
        sp[p] = (SEARCH_METHODS[s.search], *vec)
        if s.rollout.source not in lineups:
            lineups[s.rollout.source] = build_lineup([s.rollout] * players, players)
    first = lineups[strats[seats[0]].rollout.source]
    per_seat = [lineups[strats[p].rollout.source] if p < len(strats) and strats[p].search
                else first
                for p in range(MAX_PLAYERS)]
    width = max(t.shape[1] for _, t, _ in per_seat)
    tables = np.zeros((MAX_PLAYERS, MAX_PLAYERS, width), np.float64)
    for p, (_, t, _) in enumerate(per_seat):
        tables[p, :, :t.shape[1]] = t
    return (mask, sp, tuple(f for f, _, _ in per_seat), tables,
            np.array([observe_mask(r) for _, _, r in per_seat], np.int64))


# ---- strict mode: the strategy's own code compiled again with bounds checking -------------

def _strict_functions(path: Path, module, funcs: list) -> list:
    """The decision functions compiled again with boundscheck=True, and with them every
    compiled function of the strategy file and of the user's modules it imports (their
    globals copied, so the originals stay as they are). The kit and the engine are
    bounds-safe by construction and are not recompiled. Not cached (numba's cache does not
    key on the flag): a few seconds per strategy."""
    from numba import njit
    from numba.core import config
    from numba.core.dispatcher import Dispatcher

    from fishing2sim.strategy.contract import DECISION_SIGNATURE

    if config.DISABLE_JIT:  # plain Python: every index is checked anyway
        return funcs
    user_files = {str(f) for f in strategy_sources(path)}
    modules: dict[str, pytypes.ModuleType] = {}
    done: dict[int, object] = {}

    def user_module(mod) -> bool:
        return str(Path(getattr(mod, "__file__", "") or "").resolve()) in user_files

    def copy_module(mod):
        if mod.__name__ not in modules:
            new = pytypes.ModuleType(mod.__name__)
            modules[mod.__name__] = new
            g = dict(vars(mod))
            for k, v in list(g.items()):
                g[k] = convert(v)
            new.__dict__.update(g)
        return modules[mod.__name__]

    def convert(obj):
        if isinstance(obj, pytypes.ModuleType):
            return copy_module(obj) if user_module(obj) else obj
        if not isinstance(obj, Dispatcher):
            return obj
        mod = sys.modules.get(obj.py_func.__module__)
        if mod is None or not user_module(mod):
            return obj
        if id(obj) not in done:
            g = copy_module(mod).__dict__
            py = obj.py_func
            fn = pytypes.FunctionType(py.__code__, g, py.__name__, py.__defaults__,
                                      py.__closure__)
            opts = {k: v for k, v in obj.targetoptions.items() if k not in ("cache", "nopython")}
            opts["boundscheck"] = True
            done[id(obj)] = njit(**opts)(fn)
        return done[id(obj)]

    out = []
    for fn in funcs:
        strict = convert(fn)
        if strict is not fn:
            strict.compile(DECISION_SIGNATURE)
        out.append(strict)
    # no further signatures, as the decorator gives (after all of them are compiled: one
    # decision may call another): the lineup is then typed as first-class functions, so
    # the game kernels are not compiled again per lineup (nor does their cache index
    # collect the functions)
    for fn, strict in zip(funcs, out):
        if strict is not fn:
            strict.disable_compile()
    return out


def build_lineup(specs, players: int, params=None, strict: bool = False):
    """(strats, params table, strategies) for the kernels.

    ``specs``: one strategy (name, path or Strategy) for every seat or a list, one per seat.
    ``params``: None, or a list with one vector (or None for the defaults) per seat.
    ``strats[kind][seat]`` is the seat's function for decision ``kind``; unused seats are
    padded with seat 0's, so the driver's type never depends on the lineup. ``strict``:
    the strategies in strict mode (bounds checking).
    """
    if specs is None:
        specs = "random"
    if isinstance(specs, (str, Path, Strategy)):
        specs = [specs] * players
    specs = list(specs)
    if len(specs) != players:
        raise StrategyError(f"the lineup names {len(specs)} strategies for {players} seats")
    strats = [load_strategy(s, strict) for s in specs]
    if params is not None and len(params) != players:
        raise StrategyError(f"params: {len(params)} vectors for {players} seats")
    width = max([1] + [s.n_params for s in strats] + [s.rollout.n_params for s in strats
                                                       if s.search])
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
        if s.search:  # the seat's own decisions are its rollout strategy's (search_args)
            vec = np.asarray(s.rollout.defaults, np.float64)
        table[seat, : len(vec)] = vec
    seats = strats + [strats[0]] * (MAX_PLAYERS - players)
    funcs = tuple(tuple(s.functions[k] for s in seats) for k in range(len(DECISION_FUNCTIONS)))
    return _typed_lineup(funcs), table, strats


class Lineup(tuple):
    """The lineup's decision functions, strats[kind][seat], as the kernels take them.
    numba would type a plain tuple of 50 functions anew on every kernel call (about 2 ms,
    most of a short call's cost): a Lineup carries its type, which is the same for every
    lineup (sigs.STRATS), and each function's compiled addresses are looked up once."""


_lineup_type_registered = False


def _typed_lineup(funcs: tuple):
    global _lineup_type_registered
    from numba.core import config

    if config.DISABLE_JIT:  # plain Python: the kernels take the plain tuple
        return funcs
    if not _lineup_type_registered:
        from numba.core.typing.typeof import typeof_impl

        from fishing2sim.engine.sigs import STRATS

        typeof_impl.register(Lineup)(lambda val, c: STRATS)
        _lineup_type_registered = True
    for row in funcs:
        for fn in row:
            _remember_address(fn)
    return Lineup(funcs)


def _remember_address(fn) -> None:
    """numba looks up a first-class function's compiled wrapper on every call that passes
    it (through ``__wrapper_address__`` when the object has one): a decision function has
    exactly one compiled signature (the decorator and strict mode disable further
    compiles), so its address is looked up once and kept on the function."""
    if getattr(fn, "__wrapper_address__", None) is not None:
        return
    from numba.experimental.function_type import _get_wrapper_address

    from fishing2sim.engine.sigs import DECISION

    sig = DECISION.signature
    addr = _get_wrapper_address(fn, sig)
    fn.__wrapper_address__ = lambda: addr
    # the native entry point is looked up through get_compile_result: the one result
    find = fn.get_compile_result
    cres = find(sig)

    def get_compile_result(s, _find=find, _sig=sig, _cres=cres):
        return _cres if s is _sig or s == _sig else _find(s)

    fn.get_compile_result = get_compile_result


def observe_mask(strats) -> int:
    """The seats' flags for the engine (st[S_OBSERVE_MASK]). Bit p: seat p's strategy reads
    the observation (the engine builds it). Bit MAX_PLAYERS * (1 + k) + p: seat p's
    decision k is the reference random strategy, which the engine draws itself (the same
    draw from the seat's stream, without the call)."""
    from fishing2sim.strategy.reference import choose_uniformly

    mask = sum(1 << p for p, s in enumerate(strats) if s.observes)
    for p, s in enumerate(strats):
        for k, fn in enumerate(s.functions):
            if fn is choose_uniformly and DECISION_FUNCTIONS[k] not in s.searches:
                mask |= 1 << (MAX_PLAYERS * (1 + k) + p)
    return mask
