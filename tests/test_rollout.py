"""Rollouts: a game stopped at the end of a round (api.game_state) played forward from
copies (api.rollout) to the end of the game or of the next round, with any lineup."""
import numpy as np
import pytest

from fishing2sim.api import StrategyFailure, game_state, play_games, rollout

LINEUP = ["greedy", "counter", "random", "weights"]


@pytest.mark.parametrize("ruleset", ["fishing2", "fishing"])
def test_a_rollout_on_the_games_own_streams_is_the_games_own_continuation(ruleset):
    games = play_games(40, 4, seed=3, ruleset=ruleset, strategies=LINEUP)
    compared = 0
    for g in range(40):
        row = games.iloc[g]
        for rounds in (1, 3):
            state = game_state(4, seed=3, game=g, ruleset=ruleset, strategies=LINEUP,
                               rounds=rounds)
            before = state.st.copy()
            r = rollout(state, 2, strategies=LINEUP, seed=None)
            assert np.array_equal(state.st, before)  # the source is never changed
            for i in range(2):
                assert r["points"][i].tolist() == [row[f"points_{p}"] for p in range(4)]
                assert r["overfished"][i] == (row.end_reason == "overfished")
                assert r["round"][i] == row.end_round
            compared += 1
    assert compared == 80


def test_round_by_round_rollouts_add_up_to_the_game():
    games = play_games(30, 4, seed=5, strategies="greedy")
    for g in range(30):
        state = game_state(4, seed=5, game=g, strategies="greedy", rounds=0)
        assert state.round == 0 and state.points == [0, 0, 0, 0]
        for r in range(1, 9):
            step = rollout(state, 1, strategies="greedy", to="round", seed=None)
            nxt = game_state(4, seed=5, game=g, strategies="greedy", rounds=r)
            # the rollout to the end of round r is the state after r rounds
            assert step["points"][0].tolist() == nxt.points
            assert step["round"][0] == nxt.round
            assert bool(step["over"][0]) == nxt.over
            if nxt.over:
                break
            assert nxt.round == r
            state = nxt
        assert state.points != [0, 0, 0, 0] or games.iloc[g].end_round <= 2
        final = [int(games.iloc[g][f"points_{p}"]) for p in range(4)]
        assert nxt.points == final


def test_fresh_streams_differ_and_repeat_with_the_seed():
    state = game_state(4, seed=1, game=2, strategies="random", rounds=3)
    a = rollout(state, 200, strategies="random", seed=11)
    b = rollout(state, 200, strategies="random", seed=11)
    c = rollout(state, 200, strategies="random", seed=12)
    assert np.array_equal(a["points"], b["points"])
    assert not np.array_equal(a["points"], c["points"])
    assert len({tuple(p) for p in a["points"].tolist()}) > 50  # random play: varied ends
    # no rollout lowers a player's points (points are only ever gained)
    assert (a["points"] >= np.array(state.points)).all()


def test_any_lineup_can_roll_out_and_its_errors_name_it(tmp_path):
    state = game_state(4, seed=2, game=0, strategies="greedy", rounds=2)
    # the engine draws the random strategy's choices itself: a lineup change is honoured
    rnd = rollout(state, 50, strategies="random", seed=4)
    grd = rollout(state, 50, strategies="greedy", seed=4)
    assert not np.array_equal(rnd["points"], grd["points"])
    bad = tmp_path / "cheat.py"
    bad.write_text("from fishing2sim.strategy.kit import *\n\nNAME = 'cheat'\n\n"
                   "@decision\ndef play(obs, params, rng):\n    return 12345\n")
    with pytest.raises(StrategyFailure) as e:
        rollout(state, 3, strategies=[str(bad), "greedy", "greedy", "greedy"])
    assert e.value.strategy == "cheat" and e.value.decision == "play"


def test_bad_arguments_are_named():
    state = game_state(4, seed=0, rounds=1)
    with pytest.raises(ValueError, match="to must be"):
        rollout(state, 1, to="trick")
    with pytest.raises(ValueError, match="number of rollouts"):
        rollout(state, -1)
    with pytest.raises(ValueError, match="rounds must be"):
        game_state(4, seed=0, rounds=99)
    with pytest.raises(ValueError, match="GameState"):
        rollout("state", 1)
