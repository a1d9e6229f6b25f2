"""Where the strategy files are and what each is made of: the shipped bots' folder, a name
or path resolved to a file, the user's own modules a file imports, the digest of all of
them (which goes into an experiment's config hash) and the stamp beside numba's cache that
drops a stale compiled strategy. Nothing here imports or compiles a strategy."""
from __future__ import annotations

import ast
import difflib
import hashlib
from pathlib import Path


from fishing2sim.safe_files import write_atomic
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.engine import kernel_stamp
from fishing2sim.safe_files import read_regular

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
_bots_cache_checked = False


def keep_bots_cache_current() -> None:
    """The shipped bots' cached code names the package they were imported as: code cached
    as ``fishing2sim.bots.x`` (an install) does not load as ``strategies.x`` (a source
    checkout used without installing it) and the other way round. A stamp beside their cache
    holds the package; when it differs, their cache is dropped (once per process; the
    engine's stamp covers the sources, engine/__init__.py)."""
    global _bots_cache_checked
    if _bots_cache_checked:
        return
    _bots_cache_checked = True
    stamp = STRATEGIES_DIR / "__pycache__" / "bots-package.stamp"
    try:
        if stamp.is_file() and stamp.read_text() == BOTS_PACKAGE:
            return
    except OSError:
        pass
    drop_bots_cache()


def drop_bots_cache() -> None:
    """Drop the shipped bots' cached code and stamp the cache with this process's package.
    Also when a bot's cached code names the other package although the stamp names this
    one (a process of the other package, running at the same time, compiled it after this
    stamp was written): strategy/loading.py then drops it and imports the bot again."""
    folder = STRATEGIES_DIR / "__pycache__"
    try:
        # numba's cache folders of a file in the bots' folder (any file: they are per folder)
        for d in {folder, *_cache_dirs(STRATEGIES_DIR / "__init__.py")}:
            for f in list(d.glob("*.nbi")) + list(d.glob("*.nbc")):
                f.unlink(missing_ok=True)
        folder.mkdir(exist_ok=True)
        write_atomic(folder / "bots-package.stamp", BOTS_PACKAGE)
    except OSError:  # a read-only install: its cache was written by this install
        pass


def other_bots_package(exc: BaseException) -> bool:
    """Is ``exc`` a ModuleNotFoundError for the bots' other package (``strategies`` in an
    install, ``fishing2sim.bots`` in a bare checkout): code cached under the other name?"""
    other = "strategies" if BOTS_PACKAGE != "strategies" else "fishing2sim.bots"
    name = getattr(exc, "name", None) or ""
    return isinstance(exc, ModuleNotFoundError) and (name == other or
                                                     name.startswith(other + "."))


def known_strategies() -> list[str]:
    return sorted(p.stem for p in STRATEGIES_DIR.glob("*.py") if not p.stem.startswith("_"))


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
    rollout = static_value(path, "ROLLOUT")
    if isinstance(rollout, str) and _depth == 0:
        try:
            h.update(strategy_digest(_rollout_path(path, rollout), 1).encode())
        except (StrategyError, OSError):
            pass  # loading the bot reports it
    return h.hexdigest()


def static_value(path: Path, name: str):
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
    return f"{kernel_stamp()} {strategy_digest(path)}"


def _drop_stale_strategy_cache(path: Path) -> None:
    """numba keys a cached function on its own file only, but a strategy's compiled code
    holds the kit helpers (and engine constants) it calls and the helpers of the
    user's modules it imports: when any of those sources changed since the file's cache
    was written, drop the cache of the file and of those modules before importing."""
    stamp = _cache_stamp(path)
    sources = strategy_sources(path)
    for folder in _cache_dirs(path):
        cached = list(folder.glob(f"{path.stem}.*.nbi")) + list(folder.glob(f"{path.stem}.*.nbc"))
        if not cached:
            continue
        if _stamp_reads(_stamp_file(folder, path), stamp):
            continue
        try:
            for src in sources:
                for d in _cache_dirs(src):
                    if d.is_symlink():  # a linked cache folder is not dropped through
                        continue
                    for f in list(d.glob(f"{src.stem}.*.nbi")) + list(d.glob(f"{src.stem}.*.nbc")):
                        if f.is_file() and not f.is_symlink():
                            f.unlink(missing_ok=True)
        except OSError:  # a read-only cache cannot have been written by another version
            pass


def _stamp_reads(sf: Path, stamp: str) -> bool:
    """Whether the stamp file ``sf`` holds ``stamp``, read without following a link (a
    link, FIFO or device there counts as stale: the cache is compiled again)."""
    try:
        return read_regular(sf, limit=4096, what="cache stamp") == stamp.encode()
    except OSError:  # missing, a link, not a regular file: stale
        return False


def _write_strategy_stamp(path: Path) -> None:
    stamp = _cache_stamp(path)
    for folder in _cache_dirs(path):
        if not folder.is_symlink() and any(folder.glob(f"{path.stem}.*.nbi")):
            try:
                write_atomic(_stamp_file(folder, path), stamp)  # never through a link
            except OSError:  # a read-only cache: it stays unstamped, compiled again
                pass


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


