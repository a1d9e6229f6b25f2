"""Byte-identity check: every shipped experiment's CSVs, and the golden games, before and after.

    python benchmarks/same_output.py OUT                  # run this tree into OUT/, write
                                                          # OUT/manifest.json
    python benchmarks/same_output.py --compare A B        # which CSVs differ (two OUT folders)
    python benchmarks/same_output.py --tree ../other OUT  # run another checkout's code and
                                                          # experiments (not this one's)
    python benchmarks/same_output.py --base HEAD~1 OUT    # run the commit too (a temporary
                                                          # git worktree, as compare.py does)
                                                          # into OUT/base/ and this tree into
                                                          # OUT/new/, then compare

Every file in experiments/*.yaml is run with ``fishing2sim run FILE --games N`` (N chosen per
file below, so the whole set takes a few minutes on one core; the search bots' files play a
handful of games), each in a fresh process of the tree being checked (PYTHONPATH = the tree).
The tune files run as plain experiments: ``fishing2sim run`` accepts them and plays the
untuned file (it ignores the tune section). The manifest maps every CSV (relative path) to its
SHA-256, records the golden files' SHA-256 (tests/data/golden_*.csv), and the result of that
tree's tests/test_golden.py (which replays every golden game against those files). Exit code
1 when a comparison finds a difference or a golden test fails.

Every tree runs as a plain source checkout: an editable install (pip install -e) maps
fishing2sim.bots and fishing2sim.experiments to *its* checkout's strategies/ and
experiments/ whatever PYTHONPATH says, so another tree's run would play this tree's bots. A
sitecustomize.py on the children's PYTHONPATH takes the editable install's finders out, and
each tree's fishing2sim then finds its own strategies/ (strategies.py: a source checkout).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# games per condition (--games) for each shipped file; a file not listed plays DEFAULT_GAMES
GAMES = {
    "card_counts": 2000,
    "deck_balance": 2000,
    "depletion": 2000,
    "editions": 2000,
    "example": 2000,
    "overfishing": 2000,
    "strategies": 2000,      # rotate: whole blocks of 4
    "weights_tuned": 2000,
    "tune_deck": 2000,       # run untuned (fishing2sim run ignores its tune section)
    "tune_weights": 2000,
    "skilled": 400,          # trump_value replays every trump choice twice per shade
    "trump": 400,
    "ladder": 4,             # every pair (66) one rotation block; 38 pairs have a search bot
    "skilled_search": 4,     # pimc in every seat: ~1-3 ms per decision
    "skilled_trump": 8,      # pimc_trump: 32 worlds x 2 shades to the end of the game
}
DEFAULT_GAMES = 1000
# files not run, and why (none at present: even the search files run at a handful of games)
SKIP: dict[str, str] = {}


# run first in every child process (PYTHONPATH = [this folder, the tree]): no editable install
SITECUSTOMIZE = """\
import sys
sys.meta_path[:] = [f for f in sys.meta_path
                    if not getattr(f, "__module__", "").startswith("__editable__")]
sys.path_hooks[:] = [h for h in sys.path_hooks
                     if not getattr(h, "__module__", "").startswith("__editable__")]
sys.path_importer_cache.clear()
"""


def tree_env(tree: Path, shim: Path) -> dict:
    """The environment of a child process that runs ``tree``'s code, bots and experiments."""
    (shim / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(shim), str(tree)]))


CHECK_BOTS = ("import fishing2sim, fishing2sim.strategy.loading as s; "
              "print(fishing2sim.__file__); print(s.STRATEGIES_DIR)")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_tree(tree: Path, out: Path, workers: int, golden: bool, only: list[str] | None) -> dict:
    """Run every experiment of ``tree`` into ``out``; write and return the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    shim = out / ".shim"
    shim.mkdir(exist_ok=True)
    env = tree_env(tree, shim)
    found = subprocess.run([sys.executable, "-c", CHECK_BOTS], cwd=tree, env=env,
                           capture_output=True, text=True).stdout.split()
    assert len(found) == 2 and all(f.startswith(str(tree)) for f in found), \
        f"{tree} runs the package and bots {found}"
    rev = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--",
                                 "fishing2sim", "strategies", "experiments"],
                                capture_output=True, text=True).stdout.strip())
    manifest = {"tree": str(tree), "commit": rev, "dirty": dirty, "experiments": {},
                "skipped": {}, "csv": {}, "golden_files": {}, "golden_test": None}
    for f in sorted((tree / "experiments").glob("*.yaml")):
        name = f.stem
        if only and name not in only:
            continue
        if name in SKIP:
            manifest["skipped"][name] = SKIP[name]
            print(f"skip {name}: {SKIP[name]}", flush=True)
            continue
        games = GAMES.get(name, DEFAULT_GAMES)
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "run", str(f), "--games",
                            str(games), "--output", str(out), "--no-progress", "-w",
                            str(workers)], cwd=tree, env=env, capture_output=True, text=True)
        dt = time.perf_counter() - t
        manifest["experiments"][name] = {"games": games, "returncode": r.returncode,
                                         "seconds": round(dt, 1)}
        print(f"{name}: --games {games}, {dt:.0f} s, exit {r.returncode}", flush=True)
        if r.returncode != 0:
            print(r.stderr[-3000:], file=sys.stderr)
    for csv in sorted(out.rglob("*.csv")):
        manifest["csv"][str(csv.relative_to(out))] = sha256(csv)
    for g in sorted((tree / "tests" / "data").glob("golden_*.csv")):
        manifest["golden_files"][g.name] = sha256(g)
    if golden:
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "tests/test_golden.py"], cwd=tree, env=env, capture_output=True,
                           text=True)
        last = (r.stdout.strip().splitlines() or [""])[-1]
        manifest["golden_test"] = {"passed": r.returncode == 0, "summary": last}
        print(f"tests/test_golden.py: {last} ({time.perf_counter() - t:.0f} s)", flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def load(path: Path) -> dict:
    """A manifest: OUT/manifest.json, or the CSV hashes of a folder without one."""
    m = path / "manifest.json"
    if m.exists():
        return json.loads(m.read_text())
    return {"csv": {str(c.relative_to(path)): sha256(c) for c in sorted(path.rglob("*.csv"))},
            "golden_files": {}, "golden_test": None, "experiments": {}}


def compare(a: dict, b: dict, label_a: str = "A", label_b: str = "B") -> int:
    """Print which CSVs (and golden files) differ; 0 when identical."""
    bad = 0
    for key in ("csv", "golden_files"):
        ca, cb = a.get(key, {}), b.get(key, {})
        same = [k for k in ca if cb.get(k) == ca[k]]
        differ = [k for k in ca if k in cb and cb[k] != ca[k]]
        only_a = [k for k in ca if k not in cb]
        only_b = [k for k in cb if k not in ca]
        print(f"{key}: {len(same)} identical, {len(differ)} differ, {len(only_a)} only in "
              f"{label_a}, {len(only_b)} only in {label_b}")
        for k in differ:
            print(f"  DIFFERS  {k}")
        for k in only_a:
            print(f"  ONLY {label_a}  {k}")
        for k in only_b:
            print(f"  ONLY {label_b}  {k}")
        bad += len(differ) + len(only_a) + len(only_b)
    for label, m in ((label_a, a), (label_b, b)):
        failed = [n for n, e in m.get("experiments", {}).items() if e.get("returncode")]
        if failed:
            print(f"{label}: experiments that failed: {', '.join(failed)}")
            bad += len(failed)
        g = m.get("golden_test")
        if g is not None:
            print(f"{label}: tests/test_golden.py {'passed' if g['passed'] else 'FAILED'}: "
                  f"{g['summary']}")
            bad += not g["passed"]
    print("IDENTICAL" if bad == 0 else "DIFFERENT")
    return 0 if bad == 0 else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", type=Path, help="the output folder")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("DIR_A", "DIR_B"))
    ap.add_argument("--base", default=None, help="also run this commit and compare")
    ap.add_argument("--tree", type=Path, default=REPO,
                    help="the checkout to run (default: this one), e.g. a worktree")
    ap.add_argument("--workers", "-w", type=int, default=1)
    ap.add_argument("--no-golden", action="store_true", help="skip tests/test_golden.py")
    ap.add_argument("--only", default=None, help="comma-separated experiment names")
    args = ap.parse_args(argv)
    if args.compare:
        a, b = args.compare
        return compare(load(a), load(b), str(a), str(b))
    if args.out is None:
        ap.error("give an output folder (or --compare DIR_A DIR_B)")
    only = args.only.split(",") if args.only else None
    if args.base is None:
        run_tree(args.tree.resolve(), args.out, args.workers, not args.no_golden, only)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(base),
                        args.base], check=True, capture_output=True)
        try:
            mb = run_tree(base, args.out / "base", args.workers, not args.no_golden, only)
            mn = run_tree(args.tree.resolve(), args.out / "new", args.workers, not args.no_golden, only)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)],
                           capture_output=True)
    return compare(mb, mn, f"base {args.base}", "this tree")


if __name__ == "__main__":
    sys.exit(main())
