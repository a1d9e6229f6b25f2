"""Loading a strategy file: find a bot by NAME (in strategies/) or by file path, import it
and check it against the contract.

A strategy file has ``NAME`` and one ``@decision`` function per decision it makes
(kit.DECISION_FUNCTIONS); its ``FALLBACK`` (a mapping of decision names to ``@decision``
functions, e.g. kit.SHARED_DECISIONS), if it has one, makes the decisions it leaves
undefined, and the reference random strategy the rest. Loading checks the names: a function
named almost like a decision, or a ``@decision`` bound to no decision name, is an error with
a did-you-mean. Files are imported as real modules under their file's name (from the file:
their folder is never on sys.path; only the modules of the folder their import statements
name are found there, while they are imported), so numba's on-disk cache works for them
across processes; files.py keeps that cache current. Strict mode (``load_strategy(spec,
strict=True)``) compiles the strategy's own functions again with bounds checking, so an
out-of-range read raises an error naming it. A search bot's file is read by search_bots.py;
lineups for the kernels are built by lineup.py.
"""
from __future__ import annotations

import difflib
import importlib
import importlib.machinery
import importlib.util
import sys
import types as pytypes
from pathlib import Path

from fishing2sim.strategy.contract import (DECISION_FUNCTIONS, ContractError, Strategy,
                                           StrategyError)
from fishing2sim.strategy.files import (BOTS_PACKAGE, REPO_ROOT, STRATEGIES_DIR,
                                        _drop_stale_strategy_cache, static_value,
                                        _write_strategy_stamp, drop_bots_cache,
                                        keep_bots_cache_current, known_strategies,
                                        other_bots_package, resolve_path,
                                        strategy_digest, strategy_sources)
from fishing2sim.strategy.search_bots import search_bot
from fishing2sim import first_run
from fishing2sim.strategy.contract import DECISION_SIGNATURE

# numba (and the reference strategy, which compiles) load with the first strategy, not
# with this module: the experiment loader reports a file's mistakes without them


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
                    names = static_value(STRATEGIES_DIR / f"{node.module}.py", "PARAM_NAMES")
                    if isinstance(names, (list, tuple)):
                        found["PARAM_NAMES"] = names
        params = [float(x) for x in found.get("PARAMS", ())]
        names = list(found.get("PARAM_NAMES", ())) or [f"p{i}" for i in range(len(params))]
        out.append({"name": found.get("NAME", stem), "doc": line,
                    "params": list(zip(names, params))})
    return out


def _import_file(path: Path):
    if path.parent == STRATEGIES_DIR:  # the engine keeps this folder's cache current
        keep_bots_cache_current()
        if BOTS_PACKAGE == "strategies" and str(REPO_ROOT) not in sys.path:
            sys.path.insert(0, str(REPO_ROOT))
        try:
            return importlib.import_module(f"{BOTS_PACKAGE}.{path.stem}")
        except ModuleNotFoundError as exc:
            if not other_bots_package(exc):
                raise
            drop_bots_cache()  # compiled by a process of the other package: compile anew
            return importlib.import_module(f"{BOTS_PACKAGE}.{path.stem}")
    existing = sys.modules.get(path.stem)
    if existing is not None:
        if Path(getattr(existing, "__file__", "") or "").resolve() != path:
            raise StrategyError(
                f"strategy file {path}: its module name '{path.stem}' is already taken by "
                f"{getattr(existing, '__file__', None) or 'a built-in module'}; rename the file")
        return existing
    _drop_stale_strategy_cache(path)
    installed = _installed_spec(path.stem, path)
    if installed is not None:
        raise StrategyError(
            f"strategy file {path}: its module name '{path.stem}' is the name of an installed "
            f"module ({installed.origin or 'built in'}); rename the file")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    finder = _FolderModules(path)
    sys.meta_path.append(finder)  # last: an installed module is found first
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(path.stem, None)
        raise
    finally:
        sys.meta_path.remove(finder)
    _write_strategy_stamp(path)
    return module


def _installed_spec(name: str, path: Path):
    """The spec of the module ``name`` the import path finds (an installed module the
    strategy file's name would shadow), or None: none, or the file itself (its folder is on
    the import path anyway, e.g. the current folder under ``python -m``)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or (spec.origin and Path(spec.origin).resolve() == path):
        return None
    return spec


class _FolderModules:
    """The modules of a strategy's folder that the strategy file imports: the names its
    import statements (and those of the folder's modules it imports) give, read from the
    source by files.strategy_sources. Only those names are looked up in the folder, and
    only while the strategy is imported: the folder is never on sys.path, so a module of a
    dependency that is imported lazily (numba, pandas and matplotlib look for optional
    modules such as scipy or coverage) is never found there."""

    def __init__(self, path: Path):
        self.folder = str(path.parent)
        self.names = set()
        for f in strategy_sources(path)[1:]:
            rel = f.relative_to(path.parent).parts
            self.names.add(rel[0] if len(rel) > 1 else f.stem)

    def find_spec(self, name, path=None, target=None):
        if path is not None or name not in self.names:
            return None
        return importlib.machinery.PathFinder.find_spec(name, [self.folder])


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
        close = _close_name(name, DECISION_FUNCTIONS)
        if close:
            raise StrategyError(
                f"strategy file {path}: '{name}' is not a decision name: did you mean "
                f"'{close}'? (decisions: {', '.join(DECISION_FUNCTIONS)})")
        if _is_decision(obj) and id(obj) not in bound:
            raise StrategyError(
                f"strategy file {path}: @decision function '{name}' is not a decision name "
                f"and no decision name is bound to it; name it after the decision it makes "
                f"({', '.join(DECISION_FUNCTIONS)}) or assign it, e.g. 'play = {name}'")


def _slip(a: str, b: str, any_edit: bool) -> bool:
    """``a`` and ``b`` differ by one swap of neighbouring letters (the slip difflib's ratio
    misses: 'paly' for 'play'); with ``any_edit``, also by one letter changed, added or
    dropped."""
    if a == b or abs(len(a) - len(b)) > 1 or (len(a) != len(b) and not any_edit):
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return (len(diff) == 1 and any_edit) or (
            len(diff) == 2 and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _close_name(name: str, names, any_edit: bool = False) -> str | None:
    """The one of ``names`` that ``name`` looks like a slip of, or None. A decision name is
    matched by a swap of two letters or difflib's ratio (a helper named ``plan`` is not a
    slip of ``play``); a hint for a name numba could not find, by any one edit."""
    names = list(names)
    slips = [n for n in names if len(name) >= 4 and _slip(name, n, any_edit)]
    if slips:
        return slips[0]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
    return close[0] if close else None


def _unknown_name_at(path: Path, missing: str) -> str:
    """Where a name numba could not find is used in the file: ' (file, line N, in F; did
    you mean 'x'?)', or '' if the file does not use it (numba's message names no line)."""
    import ast

    try:
        tree = ast.parse(path.read_text(), str(path))
    except (OSError, SyntaxError, ValueError):
        return ""
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        uses = sorted((n.lineno for n in ast.walk(fn)
                       if isinstance(n, ast.Name) and n.id == missing
                       and isinstance(n.ctx, ast.Load)))
        if not uses:
            continue
        known = {a.arg for a in fn.args.args} | {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Store)} | {
            n.name for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {
            (a.asname or a.name).split(".")[0] for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        close = _close_name(missing, sorted(known - {missing}), any_edit=True)
        hint = f"; did you mean '{close}'?" if close else ""
        return f" ({path.name}, line {uses[0]}, in {fn.name}{hint})"
    return ""


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
        missing = next((re.match(r"NameError: name '(\w+)' is not defined", ln)
                        for ln in lines if ln.startswith("NameError")), None)
        if missing:  # numba names the name but not its line: the file's own text does
            text = f"name '{missing.group(1)}' is not defined" \
                   f"{_unknown_name_at(path, missing.group(1))}"
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
    first_run.before_compile()  # importing a strategy compiles it (and the kit)
    try:
        module = _import_file(path)
    except StrategyError:
        raise
    except SystemExit as exc:  # sys.exit() at import: not a finished run, a broken file
        raise StrategyError(
            f"strategy file {path}: cannot be imported: it called sys.exit({exc.code!r}) "
            "while being imported (a strategy file defines its bot; it may not end the "
            "program)") from None
    except Exception as exc:  # a user's file: report it, do not crash
        raise StrategyError(
            f"strategy file {path}: cannot be imported: {_short_error(exc, path)}") from None
    name = getattr(module, "NAME", None)
    if not isinstance(name, str) or not name:
        raise StrategyError(f"strategy file {path}: no NAME (a non-empty string) defined")
    bad = [ch for ch in name if ch == "`" or not ch.isprintable()]
    if bad:
        raise StrategyError(f"strategy file {path}: NAME {name!r} holds {bad[0]!r}: a NAME is "
                            "printed in the reports' code spans and lines, so it may not hold "
                            "a backtick or a control character")
    _check_names(path, module)
    if getattr(module, "SEARCH", None) is not None:
        return search_bot(path, module, name, strict, load_strategy)
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
    scorer = getattr(module, "scores", None)
    if scorer is not None and not callable(scorer):
        raise StrategyError(f"strategy file {path}: scores must be a function "
                            "scores(obs, params) -> each option's score")
    if strict:
        try:
            funcs = _strict_functions(path, module, funcs)
        except Exception as exc:
            raise StrategyError(f"strategy file {path}: cannot be compiled in strict mode: "
                                f"{_short_error(exc, path)}") from None
    return Strategy(name, str(path), tuple(funcs), tuple(defined), defaults, param_names,
                    observes, strategy_digest(path), bool(strict), scores=scorer)


# ---- search bots (docs/search.md) ----------------------------------------------------------

def _strict_functions(path: Path, module, funcs: list) -> list:
    """The decision functions compiled again with boundscheck=True, and with them every
    compiled function of the strategy file and of the user's modules it imports (their
    globals copied, so the originals stay as they are). The kit and the engine are
    bounds-safe by construction and are not recompiled. Not cached (numba's cache does not
    key on the flag): a few seconds per strategy."""
    from numba import njit
    from numba.core import config
    from numba.core.dispatcher import Dispatcher

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


