"""What numba compiles: every kernel and strategy function once, decisions without reference
counting.

numba compiles a function again for every distinct argument type, and a constant argument
passed from another jitted function has its own literal type: before the kernels had
explicit signatures, log_event was compiled 44 times and ask / fill_obs 10 times each, half
of a cold start. The first test compiles everything afresh in a child process (an empty
NUMBA_CACHE_DIR: the warm cache would load the callers whole and compile nothing) and plays
every bot in both rulesets, logged and not, with the trump pairs, then lists any function
compiled more than once or for a literal argument.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent('''
    import gc, json
    import numba
    from numba.core.registry import CPUDispatcher
    from fishing2sim import api
    from fishing2sim.engine import batch
    import pathlib, tempfile
    from fishing2sim.study import run
    from fishing2sim.strategy.files import known_strategies

    from fishing2sim.strategy.loading import load_strategy

    bots = known_strategies()

    def small(bot):  # search bots at a tiny budget: this checks compiling, not strength
        s = load_strategy(bot)  # (a margin, pimc_close's fifth parameter, kept)
        return [2, 1, 0, 0, *s.defaults[4:]] if s.search else None

    for ruleset in ("fishing2", "fishing"):
        for players in (3, 4, 5):
            lineup = (bots * 2)[players:2 * players]
            params = [small(b) for b in lineup]
            api.play_games(30, players, seed=1, ruleset=ruleset, strategies=lineup,
                           params=params)
            api.play_game(players, seed=2, ruleset=ruleset, strategies=lineup, params=params)
    exp = pathlib.Path(tempfile.mkdtemp()) / "compile_check.yaml"
    exp.write_text("""
    name: compile_check
    players: 4
    games: 40
    seed: 3
    seats: [greedy, counter, buoy_savvy, weights]
    analyses: [trump_value, depletion, strategies]
    """)
    run(exp, write=False, workers=1, progress=False)
    exp.write_text("""
    name: compile_check_search
    players: 4
    games: 8
    seed: 3
    seats: [{strategy: pimc_trump, params: [2, 1, 0, 0]}, weights, greedy, counter]
    analyses: [trump_value, strategies]
    """)
    run(exp, write=False, workers=1, progress=False)
    bad = {}
    for f in gc.get_objects():
        if isinstance(f, CPUDispatcher):
            mod = f.py_func.__module__
            if not (mod.startswith("fishing2sim") or mod.startswith("strategies")):
                continue
            sigs = [str(s) for s in f.signatures]
            literal = [s for s in f.signatures
                       if any(isinstance(a, numba.types.Literal) for a in s)]
            if len(sigs) > 1 or literal:
                bad[mod + "." + f.py_func.__qualname__] = sigs
    print(json.dumps(bad))
''')


@pytest.mark.slow
def test_every_function_compiles_once_and_never_for_a_literal(tmp_path):
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)},
                         timeout=600, cwd=tmp_path)  # its runs keep checkpoints: not in the repo
    assert out.returncode == 0, out.stderr[-3000:]
    bad = json.loads(out.stdout.strip().splitlines()[-1])
    assert bad == {}, "compiled more than once or for a constant:\n" + "\n".join(
        f"{k}: {len(v)} versions, e.g. {v[0]}" for k, v in bad.items())


DECISIONS = textwrap.dedent('''
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    from dec_bot import allocating, plain
    obs = np.full(4, 5, np.int64)
    args = (np.zeros(1), np.zeros(2, np.uint64))
    results = [plain(obs, *args), allocating(obs, *args)]
    try:
        asm = plain.inspect_asm(plain.signatures[0])
    except Exception:  # loaded from the cache: numba keeps no assembly to inspect
        asm = None
    print(json.dumps({"results": [int(r) for r in results],
                      "plain_nrt": plain.targetoptions.get("_nrt", True),
                      "alloc_nrt": allocating.targetoptions.get("_nrt", True),
                      "plain_counts": None if asm is None else "NRT_incref" in asm}))
''')
DEC_BOT = textwrap.dedent('''
    import numpy as np
    from fishing2sim.strategy.kit import decision

    @decision
    def plain(obs, params, rng):
        return obs[0]

    @decision
    def allocating(obs, params, rng):
        scratch = np.zeros(3, np.int64)
        scratch[1] = obs[0]
        return scratch[1]
''')


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_a_decision_is_compiled_without_reference_counting_unless_it_allocates(tmp_path):
    """Cold: the plain decision is compiled without reference counting (no counter update
    in its code), the allocating one with it. Warm (the same cache): both load and answer
    alike."""
    (tmp_path / "dec_bot.py").write_text(DEC_BOT)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", DECISIONS, str(tmp_path)], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-3000:]
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    cold, warm = runs
    assert cold == {"results": [5, 5], "plain_nrt": False, "alloc_nrt": True,
                    "plain_counts": False}
    assert warm["results"] == [5, 5]


def test_every_module_a_cached_kernel_reads_is_in_the_kernel_stamp():
    """numba's cache keys a kernel on its own file only; engine.kernel_stamp drops the
    cache when any source a kernel may have frozen in changes. Every package module that
    compiles to the cache, or defines an intrinsic, must be among those sources: one left
    out (train/tables.py was, for three releases) lets an edit of it meet the callers'
    stale machine code, the old code still playing."""
    from pathlib import Path

    from fishing2sim.engine import _sources

    pkg = Path(__file__).resolve().parent.parent / "fishing2sim"
    stamped = {p.resolve() for p in _sources()}
    kernels = [p for p in pkg.rglob("*.py")
               if any(m in p.read_text() for m in ("cache=True", "@intrinsic", "@helper"))
               and p.name != "__init__.py"]
    assert len(kernels) >= 15
    missing = sorted(str(p.relative_to(pkg)) for p in kernels if p.resolve() not in stamped)
    assert missing == []
    # the learned end-of-round value's table is frozen into the search kernels
    assert (pkg / "data" / "round_value.npz").resolve() in stamped


def test_a_cache_elsewhere_keeps_its_own_stamp_and_leaves_the_packages(tmp_path, monkeypatch):
    """With NUMBA_CACHE_DIR set, the stale-cache check drops that cache and stamps it, and
    leaves the package's own cache and stamp alone: the stamp was once always written to
    the package, so a run with a cache elsewhere marked the package's cache fresh without
    dropping it, and the next ordinary run loaded machine code of sources edited since."""
    from fishing2sim import engine

    package_stamp = engine._PKG / "engine" / "__pycache__" / "kernels.stamp"
    before = package_stamp.read_bytes() if package_stamp.is_file() else None
    stale = tmp_path / "cache" / "fishing2sim" / "engine" / "core.run_game-1.py311.nbi"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old machine code")
    (tmp_path / "cache" / "fishing2sim-kernels.stamp").write_text("a stamp of other sources")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    engine._drop_stale_cache()
    assert not stale.exists()  # that cache was stale: dropped
    assert (tmp_path / "cache" / "fishing2sim-kernels.stamp").read_text() == \
        engine.kernel_stamp()
    after = package_stamp.read_bytes() if package_stamp.is_file() else None
    assert after == before  # the package's stamp is not this cache's to write
    stale.write_bytes(b"fresh machine code")  # a fresh stamp: the cache is kept
    engine._drop_stale_cache()
    assert stale.read_bytes() == b"fresh machine code"


def test_the_stale_cache_check_follows_no_link(tmp_path, monkeypatch):
    """The stamp is read and written without following a link, and a linked folder in the
    cache is not dropped through: links planted at the stamp's name, at the name of its
    temporary file and among the cache's folders leave their targets as they were."""
    import os

    from fishing2sim import engine

    cache = tmp_path / "cache"
    stale = cache / "fishing2sim" / "engine" / "core.run_game-1.py311.nbi"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old machine code")
    fresh_looking = tmp_path / "fresh.txt"  # a user's file holding today's stamp
    fresh_looking.write_text(engine.kernel_stamp())
    stamp = cache / "fishing2sim-kernels.stamp"
    stamp.symlink_to(fresh_looking)  # read through the link, it would keep the stale cache
    victim = tmp_path / "victim.txt"  # a user's file the temporary name points to
    victim.write_text("the user's text")
    tmp_name = cache / f".fishing2sim-kernels.stamp.{os.getpid()}.tmp"
    tmp_name.symlink_to(victim)
    elsewhere = tmp_path / "users" / "fishing2sim-notes"  # a user's folder, linked in
    elsewhere.mkdir(parents=True)
    (elsewhere / "keep.nbi").write_bytes(b"the user's file")
    (cache / "fishing2sim-linked").symlink_to(elsewhere, target_is_directory=True)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))

    engine._drop_stale_cache()

    assert not stale.exists()  # a stamp behind a link counts as stale: the cache is dropped
    assert victim.read_text() == "the user's text"  # not written through the link
    assert fresh_looking.read_text() == engine.kernel_stamp()
    assert not stamp.is_symlink() and stamp.read_text() == engine.kernel_stamp()
    assert (elsewhere / "keep.nbi").read_bytes() == b"the user's file"
    engine._drop_stale_cache()  # the stamp now a real file: fresh, nothing dropped
    assert stamp.read_text() == engine.kernel_stamp()
