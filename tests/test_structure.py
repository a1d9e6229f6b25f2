"""The structure of the package (docs/architecture.md): the flow config → strategy → engine
and search → run → analysis → report → study → tune / cli, with every import going down
that order (no circle, no import back up, between packages too), and the size limits."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PKG = REPO / "fishing2sim"

# lowest first: a unit may import only units of its own layer or below
LAYERS = [
    ["errors"],
    ["safe_files", "first_run"],
    ["engine"],
    ["strategy", "strategy_kit"],
    ["student"],
    ["search"],  # its kernels roll out with strategies and read the student's scores
    ["config"],
    ["events"],
    ["api", "audit", "render"],
    ["run"],
    ["analysis"],
    ["report"],
    ["study", "plan"],
    ["tune", "compare", "train", "serve"],
    ["cli"],
]
RANK = {u: i for i, layer in enumerate(LAYERS) for u in layer}

# modules allowed above 600 lines, each with its sentence in docs/architecture.md
LONG_MODULES = {"engine/core.py", "search/kernels.py", "audit.py"}

# packages whose modules still import each other in a circle: none (train/'s went with the
# student's package, student/); every folder of the package is checked
CIRCLES_LEFT_IN: set[str] = set()

# imports of the package's modules inside functions, outside cli.py: each one kept on
# purpose (numba or a compile, matplotlib, pydantic, starlette, the bots' package) says why
# beside it; the rest are at module top. This number only goes down.
MOST_FUNCTION_LEVEL_IMPORTS = 30

# the one module of the analysis and the report that plays games, with their bots: the
# example games replayed for the viewer (imported on first use by report/write.py and serve)
PLAYS_GAMES = {"report/replay.py"}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "fishing2sim"


def _imports():
    """(importing module, its unit, imported module) for every fishing2sim import, lazy
    ones inside functions included."""
    for p in PKG.rglob("*.py"):
        mod = ".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.ImportFrom) and n.module and n.level == 0 \
                    and n.module.split(".")[0] == "fishing2sim":
                targets = [n.module] if n.module != "fishing2sim" else \
                    [f"fishing2sim.{a.name}" for a in n.names]
            elif isinstance(n, ast.Import):
                targets = [a.name for a in n.names if a.name.split(".")[0] == "fishing2sim"]
            else:
                continue
            for t in targets:
                yield mod, _unit(mod), t


def _module_edges():
    """{module: [(imported module, inside a function)]}: every fishing2sim module an import
    names, ``from fishing2sim.x import y`` naming the module x.y too when there is one."""
    mods = {".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__"): p
            for p in PKG.rglob("*.py")}
    edges = {}
    for mod, p in mods.items():
        tree = ast.parse(p.read_text())
        inner = {id(n) for f in ast.walk(tree)
                 if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
        out = []
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                names = [n.module] + [f"{n.module}.{a.name}" for a in n.names]
            elif isinstance(n, ast.Import):
                names = [a.name for a in n.names]
            else:
                continue
            out += [(t, id(n) in inner, id(n)) for t in names if t in mods and t != mod]
        edges[mod] = out
    return edges


def _folder(module: str) -> str:
    return module.rsplit(".", 1)[0]


def test_no_module_imports_itself_back_inside_its_folder():
    """No circle of imports between the modules of one folder (the top-level modules are
    one folder too): an import inside a function is an edge as one at the top is."""
    edges = {m: {t for t, _, _ in ts if _folder(t) == _folder(m) and t != _folder(m)}
             for m, ts in _module_edges().items()}
    circles, done = [], set()

    def walk(m, path):
        if m in path:
            circles.append(path[path.index(m):] + [m])
            return
        if m in done:
            return
        for t in sorted(edges[m]):
            walk(t, path + [m])
        done.add(m)

    for m in sorted(edges):
        walk(m, [])
    assert [c for c in circles if _folder(c[0]) not in CIRCLES_LEFT_IN] == []


def test_the_package_imports_its_modules_at_the_top():
    """Imports of fishing2sim modules inside functions (outside cli.py, whose commands load
    what each needs) stay at most MOST_FUNCTION_LEVEL_IMPORTS."""
    lazy = {(m, n) for m, ts in _module_edges().items() if m != "fishing2sim.cli"
            for _, inside, n in ts if inside}
    assert len(lazy) <= MOST_FUNCTION_LEVEL_IMPORTS


def test_the_analysis_and_the_report_load_no_strategy_file():
    """The analysis and the report read what they need of a bot from its identity
    (strategy/identity.py: NAME, file stem, kind, parameter names and defaults): none of
    their modules imports a bot or the modules that load one, but report/replay.py, which
    replays the example games with their bots (loaded on first use, by write.py and serve)."""
    found = []
    for folder in ("analysis", "report"):
        for p in (PKG / folder).glob("*.py"):
            if f"{folder}/{p.name}" in PLAYS_GAMES:
                continue
            for n in ast.walk(ast.parse(p.read_text())):
                names = [n.module or ""] if isinstance(n, ast.ImportFrom) else \
                    [a.name for a in n.names] if isinstance(n, ast.Import) else []
                found += [f"{folder}/{p.name}: {m}" for m in names
                          if m.startswith(("fishing2sim.strategy.", "fishing2sim.bots"))
                          and m != "fishing2sim.strategy.identity"]
    assert found == []


def test_every_import_goes_down_the_flow():
    units = {_unit(".".join(p.relative_to(REPO).with_suffix("").parts))
             for p in PKG.rglob("*.py")} - {"__init__"}
    assert units - set(RANK) - {"fishing2sim", "bots"} == set(), "a unit without a layer"
    up = []
    for mod, u, t in _imports():
        v = _unit(t)
        if v in ("fishing2sim", "__version__", "bots") or u == "fishing2sim" or v == u:
            continue  # the version; the shipped bots are plugins, loaded by path
        if RANK[v] > RANK[u]:
            up.append(f"{mod} imports {t}")
    assert up == []
    # no relative import: the folder names say where a name comes from
    for p in PKG.rglob("*.py"):
        assert not any(isinstance(n, ast.ImportFrom) and n.level
                       for n in ast.walk(ast.parse(p.read_text()))), p


def test_the_analysis_does_not_load_the_runner_or_compile_a_bot():
    code = ("import sys, fishing2sim.analysis.tables, fishing2sim.analysis.stopping, "
            "fishing2sim.run.dask; "
            "print(sorted(m for m in sys.modules if m in ('fishing2sim.run.runner', "
            "'fishing2sim.run.processes', 'fishing2sim.report', 'fishing2sim.bots')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
    for p in (PKG / "analysis").glob("*.py"):  # the totals are read by name, not position
        assert not re.search(r"\[\s*\d\s*\+\s*\d\s*\*\s*j", p.read_text()), p


def test_modules_and_functions_stay_small():
    doc = (REPO / "docs" / "architecture.md").read_text()
    long = []
    for p in PKG.rglob("*.py"):
        rel = p.relative_to(PKG).as_posix()
        n = len(p.read_text().splitlines())
        if n > 600:
            long.append(rel)
            assert f"`{rel}`" in doc, f"{rel}: {n} lines and no sentence in architecture.md"
    assert set(long) <= LONG_MODULES
    assert not (PKG / "report.py").exists()
    big = []
    for p in [*PKG.rglob("*.py"), *(REPO / "strategies").glob("*.py")]:
        for node in ast.walk(ast.parse(p.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            kernel = any(re.search(r"\b(njit|jit|decision|helper)\b", ast.unparse(d))
                         for d in node.decorator_list)
            if not kernel and node.end_lineno - node.lineno + 1 > 80:
                big.append(f"{p.relative_to(REPO)}:{node.lineno} {node.name}")
    assert big == []


def test_nothing_of_the_product_or_its_tests_imports_the_research_folder():
    """research/ (docs/lab-notes.md) is outside the product: the package, the shipped bots,
    the benchmarks and the tests never import it, so its scripts can use internal names
    without freezing them."""
    found = []
    for folder in ("fishing2sim", "strategies", "benchmarks", "tests"):
        for p in (REPO / folder).rglob("*.py"):
            for n in ast.walk(ast.parse(p.read_text())):
                names = [n.module or ""] if isinstance(n, ast.ImportFrom) else \
                    [a.name for a in n.names] if isinstance(n, ast.Import) else []
                found += [f"{p.relative_to(REPO)}: {m}" for m in names
                          if m.split(".")[0] == "research"]
    assert found == []


def test_the_architecture_pages_module_table_names_every_module_and_no_other():
    """docs/architecture.md, "What each package does": each package's row names exactly the
    modules of its folder, and the top-level sentence every top-level module."""
    text = (REPO / "docs" / "architecture.md").read_text()
    section = text[text.index("## What each package does"):text.index("## Where a change goes")]
    rows = {m.group(1): m.group(2) for m in
            re.finditer(r"^\| `(\w+)/` \|[^|]*\|([^\n]*)\|$", section, re.M)}
    packages = {p.name for p in PKG.iterdir() if (p / "__init__.py").is_file()}
    assert set(rows) == packages
    for name, cell in rows.items():
        named = set(re.findall(r"`(\w+\.py)`", cell))
        real = {p.name for p in (PKG / name).glob("*.py")} - {"__init__.py"}
        assert named == real, (name, sorted(real - named), sorted(named - real))
    top = set(re.findall(r"`(\w+\.py)`", section.split("The top-level modules:")[1]))
    assert top == {p.name for p in PKG.glob("*.py")} - {"__init__.py"}


def test_no_script_shadows_a_module_a_library_may_import():
    """A script run as ``python benchmarks/NAME.py`` puts its folder first on the import
    path: a sibling named like a library module (``coverage.py``: numba imports coverage
    when it is installed) is imported in its place, by the library."""
    import importlib.metadata

    # what is installed, and modules the dependencies import when they are installed
    optional = {"coverage", "scipy", "IPython", "pyarrow", "psutil", "numexpr", "bottleneck",
                "tbb", "cffi", "pytest", "sklearn", "cupy", "torch"}
    installed = set(importlib.metadata.packages_distributions()) | \
        set(sys.stdlib_module_names) | optional
    clash = [f"{folder}/{p.name}" for folder in ("benchmarks", "research", "research/bots",
                                                 "benchmarks/bots")
             for p in (REPO / folder).glob("*.py") if p.stem in installed]
    assert clash == []


def test_the_report_sections_mirror_the_analysis_and_write_py_names_none():
    """report/sections.py lists one module per section, each declaring its analysis, its
    plots and its section; every analysis of analysis/tables.py has its report section;
    report/write.py loops over the table and imports no section module."""
    from fishing2sim.analysis.tables import SECTIONS as ANALYSES
    from fishing2sim.report.sections import SECTIONS

    for s in SECTIONS:
        assert callable(s.write_section), s
        assert all(callable(getattr(s, fn)) for _, fn, _ in s.PLOTS), s
    assert {a.ANALYSIS for a in ANALYSES} <= {s.ANALYSIS for s in SECTIONS}
    modules = {s.__name__ for s in SECTIONS}
    tree = ast.parse((PKG / "report" / "write.py").read_text())
    named = {f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
             for a in n.names} | {n.module for n in ast.walk(tree)
                                  if isinstance(n, ast.ImportFrom)}
    assert named & modules == set()


def test_every_package_folder_is_installed():
    """A regular install (`pip install .`) carries every package of the tree: each folder
    of fishing2sim with an __init__.py is in pyproject.toml's packages."""
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    folders = {"fishing2sim." + p.name for p in PKG.iterdir() if (p / "__init__.py").is_file()}
    assert folders <= listed, sorted(folders - listed)
