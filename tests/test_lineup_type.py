"""A lineup reaches the kernels already typed: numba does not type the tuple of 50 decision
functions again on every call (that was about 2 ms of every play_games call), and the type
it carries is the one numba itself infers for the plain tuple."""
import numba
import numpy as np
from numba.core.typing.typeof import typeof_impl

from fishing2sim.api import play_games, run_games
from fishing2sim.engine.sigs import STRATS
from fishing2sim.strategy.lineup import Lineup, build_lineup

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


def test_a_kernel_call_looks_up_no_address_of_a_kept_function():
    """numba unboxes each passed decision function on every kernel call, looking up its
    wrapper and native addresses (function_type._get_wrapper_address / _get_jit_address,
    which ask the function's compile result); a paused game calls the kernel once per
    decision. The lineup's functions keep both addresses, so the kernel calls of a replay
    ask no compile result, and the replay is the game play_games plays."""
    from fishing2sim.report.replay import replay_game

    first = replay_game("fishing2", 4, 3, MIXED, game=0, reasons=False)
    funcs = build_lineup(MIXED, 4)[0]
    asked = []
    originals = {}
    for row in funcs:
        for fn in row:
            if id(fn) not in originals:
                originals[id(fn)] = (fn, fn.get_compile_result)
                fn.get_compile_result = (lambda s, _f=fn.get_compile_result:
                                         asked.append(s) or _f(s))
    try:
        again = replay_game("fishing2", 4, 3, MIXED, game=0, reasons=False)
    finally:
        for fn, find in originals.values():
            fn.get_compile_result = find
    assert asked == []
    assert again == first
    played = play_games(1, 4, seed=3, strategies=MIXED)
    assert first["end"]["points"] == [int(played[f"points_{p}"].iloc[0]) for p in range(4)]


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


def _wide(tmp_path, base: str, n: int):
    """A copy of strategies/BASE.py that declares n parameters it never reads."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "strategies" / f"{base}.py").read_text()
    text = text.replace(f'NAME = "{base}"', f'NAME = "{base}_wide"')
    path = tmp_path / f"{base}_wide.py"
    path.write_text(text + f"\nPARAMS = (0.0,) * {n}\n")
    return str(path)


def test_every_seat_gets_exactly_its_own_parameters(tmp_path):
    """The params table holds each seat's vector and, in its last column, its length: a
    student, which reads its layout from its vector's length, plays the same games next
    to a seat with a longer vector (before, it got its row padded to the longest and
    played other, far weaker games), and so do a search seat's student rollouts."""
    from fishing2sim.student.features import n_params

    wide = _wide(tmp_path, "highest", n_params(64))
    for lineup, games in ((["skilled"] + ["highest"] * 3, 200),
                          (["pimc_skilled"] + ["highest"] * 3, 2)):
        plain = play_games(games, 4, seed=11, strategies=lineup)
        beside = play_games(games, 4, seed=11, strategies=[lineup[0]] + [wide] * 3)
        key = [c for c in plain.columns if "strat" not in c]
        assert plain[key].equals(beside[key]), lineup[0]
    # two search seats: their rollout tables are padded to the wider rollout's vector
    for rollout in ("highest", wide):
        (tmp_path / f"search_{len(rollout)}.py").write_text(
            f'"""A search seat rolling out with {rollout}."""\nNAME = "search_{len(rollout)}"\n'
            f'SEARCH = "pimc"\nROLLOUT = {rollout!r}\nPARAM_NAMES = ["worlds", "rollouts", '
            '"horizon", "objective"]\nPARAMS = [4, 1, 0, 0]\n')
    plain, beside = (
        play_games(2, 4, seed=11, strategies=["pimc_skilled", str(tmp_path / f"search_{n}.py"),
                                              "highest", "highest"])
        for n in (len("highest"), len(wide)))
    assert plain[key].equals(beside[key])
    funcs, table, strats = build_lineup(["skilled", wide, "highest", "random"], 4)
    lengths = [s.n_params for s in strats]
    assert lengths == [n_params(32), n_params(64), 0, 0]
    assert table.shape[1] == n_params(64) + 1
    assert list(table[:4, -1]) == lengths
    assert np.array_equal(table[0, :n_params(32)], np.asarray(strats[0].defaults))


def test_a_strategy_sees_its_own_vector_in_games_and_in_labelling(tmp_path):
    """A probe that plays as `highest` only when its parameter vector is exactly its own
    three numbers (else its first option) plays highest's games, in play_games and as the
    behaviour of a labelling batch (train/label.py calls the strategies itself): both hand
    a seat its own vector, not its row of the params table with the length column."""
    from pathlib import Path

    from fishing2sim.train.labels import label_chunk

    text = (Path(__file__).resolve().parent.parent / "strategies" / "highest.py").read_text()
    text = text.replace('NAME = "highest"', 'NAME = "probe"').replace(
        "    return top_power_option(obs)\n",
        "    return top_power_option(obs) if params.shape[0] == 3 else option(obs, 0)\n", 1
    ).replace("import SHARED_DECISIONS, decision,", "import SHARED_DECISIONS, decision, option,")
    probe = tmp_path / "probe.py"
    probe.write_text(text + "\nPARAMS = (1.0, 2.0, 3.0)\n")
    assert "params.shape[0] == 3" in probe.read_text()
    for players in (3, 5):
        a = play_games(40, players, seed=4, strategies="highest")
        b = play_games(40, players, seed=4, strategies=str(probe))
        key = [c for c in a.columns if "strat" not in c]
        assert a[key].equals(b[key])
    for ruleset in ("fishing2", "fishing"):
        mine = label_chunk(ruleset, 4, 9, 0, 2, str(probe), "pimc", [2, 1, 0, 0], 0.3)
        theirs = label_chunk(ruleset, 4, 9, 0, 2, "highest", "pimc", [2, 1, 0, 0], 0.3)
        assert len(mine[0]) > 10
        for x, y in zip(mine[:3], theirs[:3]):
            assert np.array_equal(x, y)
