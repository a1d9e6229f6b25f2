"""A lineup reaches the kernels already typed: numba does not type the tuple of 50 decision
functions again on every call (that was about 2 ms of every play_games call), and the type
it carries is the one numba itself infers for the plain tuple."""
import numba
import numpy as np
from numba.core.typing.typeof import typeof_impl

from fishing2sim.api import play_games, run_games
from fishing2sim.engine.sigs import STRATS
from fishing2sim.strategy.loading import Lineup, build_lineup

MIXED = ["greedy", "counter", "random", "weights"]


def test_the_lineup_carries_the_type_numba_infers():
    for spec in (MIXED, "random", ["weights"] * 3):
        players = 3 if spec == ["weights"] * 3 else 4
        funcs = build_lineup(spec, players)[0]
        assert isinstance(funcs, Lineup)
        assert numba.typeof(funcs) == STRATS
        assert numba.typeof(tuple(tuple(row) for row in funcs)) == STRATS


def test_play_games_does_not_type_the_lineup_again():
    play_games(3, 4, seed=0, strategies=MIXED)  # compile / load
    original = typeof_impl.dispatch(tuple)
    typed = []

    def counting(val, c):
        typed.append(len(val))
        return original(val, c)

    typeof_impl.register(tuple)(counting)
    try:
        df = play_games(50, 4, seed=1, strategies=MIXED)
        a = run_games(50, 4, seed=1, strategies=MIXED)
    finally:
        typeof_impl.register(tuple)(original)
    assert typed == [], f"tuples typed on the call: {typed}"
    # the games are the ones a plain tuple plays
    assert np.array_equal(df[[f"points_{p}" for p in range(4)]].to_numpy(), a["points"][:, :4])


def test_a_decision_function_keeps_its_address_between_calls():
    funcs = build_lineup(MIXED, 4)[0]
    again = build_lineup(MIXED, 4)[0]
    for row, row2 in zip(funcs, again):
        for f, g in zip(row, row2):
            assert f is g and f.__wrapper_address__() == g.__wrapper_address__() > 0


def test_random_play_loads_neither_the_search_kernels_nor_the_kit():
    """Start-up cost: a game of random seats loads only the kernels it runs. The search
    kernels load with the first search seat, the strategy kit with the first strategy file
    that imports it (each cached kernel or helper loaded costs start-up time)."""
    import subprocess
    import sys

    code = ("import sys; from fishing2sim.api import play_games, run_games; "
            "play_games(2, 4, seed=1); run_games(3, 5, seed=2, ruleset='fishing'); "
            "print(sorted(m for m in ('fishing2sim.search.kernels', 'fishing2sim.strategy.kit') "
            "if m in sys.modules)); "
            "play_games(1, 4, seed=1, strategies=['greedy', 'random', 'random', 'random']); "
            "print('fishing2sim.strategy.kit' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "True"  # (the check itself sees a module once it is loaded)
