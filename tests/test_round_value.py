"""The learned end-of-round value (search horizon 2): its features against the state's
own figures, its estimate against the coefficient table, the fit, and the search that
uses it (docs/search.md, "A learned end-of-round value")."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fishing2sim import api
from fishing2sim.engine import constants as K
from fishing2sim.engine.batch import new_buffers
from fishing2sim.engine.core import run_game, setup_game
from fishing2sim.engine.rng import game_seed
from fishing2sim.engine.state import (
    A_BOAT, A_BOAT_HEAD, A_BOAT_N, A_HAND_SIZES, A_KIND, A_LAST_ORDER, A_POINTS, A_VALUE,
    RNG_SIZE, S_END, S_N_OPTIONS, S_N_ROUNDS, S_OCEAN_LEN, S_OCEAN_TOP, S_ROUND, S_RULESET, S_PLAYERS,
)
from fishing2sim.search import kernels as S
from fishing2sim.search import round_value as RV
from fishing2sim.strategy import round_table
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.lineup import build_lineup, observe_mask, search_args
from fishing2sim.train import round_value as fitter


def round_end_states(ruleset, players, games, seed=3, strategy="weights"):
    """Copies of the state at every round's end of ``games`` games, and each game's last
    state."""
    deck = api.resolve_deck(ruleset, None)
    funcs, table, strats = build_lineup(strategy, players)
    arrays = np.ascontiguousarray(deck.arrays)
    out, last = [], []
    for g in range(games):
        st = api.new_work()[0]
        rng = np.zeros(RNG_SIZE, np.uint64)
        ev = np.zeros((1, K.EV_FIELDS), np.int64)
        setup_game(st, rng, ev, arrays, players, K.RULESETS[ruleset],
                   np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, -1,
                   game_seed(seed, g), 0, 0, observe_mask(strats))
        obs = new_buffers()
        while True:
            run_game(st, rng, ev, arrays, obs, funcs, table, K.STOP_AT_ROUND_END)
            if st[S_END] != K.END_RUNNING:
                break
            out.append(st.copy())
        last.append(st.copy())
    return out, last


def features_by_hand(st, s):
    """docs/search.md's definitions, read from the state one figure at a time."""
    players = int(st[S_PLAYERS])
    h = int(st[A_HAND_SIZES + st[S_ROUND] + 1])
    ocean = int(st[S_OCEAN_LEN] - st[S_OCEAN_TOP])
    boat = [int(st[A_BOAT_N + p]) for p in range(players)]
    short = [max(0, h - n) for n in boat]
    if sum(short) > ocean:
        return None
    points = [int(st[A_POINTS + p]) for p in range(players)]
    margin = points[s] - max(points[p] for p in range(players) if p != s)
    order = [int(st[A_LAST_ORDER + k]) for k in range(players)]
    leader = min(order, key=lambda p: (points[p], order.index(p)))
    hands = []
    for p in range(players):
        cards = [int(st[A_BOAT + p * K.MAX_CARDS + (st[A_BOAT_HEAD + p] + j) % K.MAX_CARDS])
                 for j in range(min(boat[p], h))]
        plain = [c for c in cards if st[A_KIND + c] not in (K.K_BLOWFISH, K.K_BUOY)]
        hands.append((sum(int(st[A_VALUE + c]) for c in plain),
                      sum(1 for c in plain if st[A_KIND + c] == K.K_GREEN),
                      len(cards) - len(plain)))

    def rel(xs):
        return xs[s] - sum(x for p, x in enumerate(xs) if p != s) / (players - 1)

    slack = ocean - sum(short)
    return np.array([
        1.0, margin / 10, max(margin, 0) / 10, rel(boat) / 10, rel(short) / 10,
        rel([x[0] for x in hands]) / (10 * h), rel([x[1] for x in hands]) / h,
        rel([x[2] for x in hands]) / h, float(leader == s), slack / 10,
        margin / 10 if slack < 2 * players else 0.0,
        rel([max(0, n - h) for n in boat]) / 10])


@pytest.mark.parametrize("ruleset,players", [("fishing2", 3), ("fishing2", 4),
                                             ("fishing2", 5), ("fishing", 4)])
def test_the_round_end_features_are_the_states_own_figures(ruleset, players):
    states, last = round_end_states(ruleset, players, 6)
    assert len(states) >= 6 * 3  # every game reaches a few round ends
    out = np.zeros(RV.N_RV)
    for st in states:
        for s in range(players):
            want = features_by_hand(st, s)
            got = RV.round_end_features(st, s, out)
            assert got == (want is not None)
            if want is not None:
                np.testing.assert_allclose(out, want, rtol=0, atol=1e-12)
    for st in last:  # the game is over: nothing is estimated
        assert not RV.round_end_features(st, 0, out)
        assert RV.rest_of_game(st, 0) == 0.0


def test_an_ocean_short_of_the_next_draw_leaves_the_margin_as_it_stands():
    """A10.2: the ocean cannot cover the next round's shortfall, so the game ends by
    overfishing before anyone draws: the margin at the round's end is the final one."""
    states, _ = round_end_states("fishing2", 4, 2)
    st = states[0].copy()
    h = int(st[A_HAND_SIZES + st[S_ROUND] + 1])
    short = sum(max(0, h - int(st[A_BOAT_N + p])) for p in range(4))
    assert short > 0
    out = np.zeros(RV.N_RV)
    st[S_OCEAN_TOP] = st[S_OCEAN_LEN] - short  # exactly enough: estimated
    assert RV.round_end_features(st, 0, out)
    st[S_OCEAN_TOP] += 1  # one card short: overfishing, nothing to estimate
    assert not RV.round_end_features(st, 0, out)
    assert RV.rest_of_game(st, 0) == 0.0


def test_the_estimate_is_the_tables_row_times_the_features():
    states, _ = round_end_states("fishing2", 5, 3)
    out = np.zeros(RV.N_RV)
    seen_nonzero = False
    for st in states:
        left = int(st[S_N_ROUNDS] - st[S_ROUND])
        for s in range(5):
            if not RV.round_end_features(st, s, out):
                continue
            want = float(RV.RV_COEF[st[S_RULESET], st[S_PLAYERS], left] @ out)
            assert RV.rest_of_game(st, s) == pytest.approx(want, abs=1e-9)
            seen_nonzero |= want != 0.0
    assert seen_nonzero  # the shipped table is not all zeros


def test_the_shipped_table_is_read_and_a_foreign_file_is_refused(tmp_path, monkeypatch):
    table = RV.load_coefficients()
    assert RV.RV_OK and np.array_equal(table, RV.RV_COEF) and np.abs(table).sum() > 0
    for c in ((0, 3), (0, 4), (0, 5), (1, 4)):  # every condition of the shipped fit
        assert np.abs(table[c][1:]).sum() > 0
    bad = tmp_path / "rv.npz"
    np.savez(bad, version=np.int64(RV.RV_VERSION + 1), coef=table)
    assert RV.load_coefficients(bad) is None  # another version
    np.savez(bad, version=np.int64(RV.RV_VERSION), coef=table[:, :, :4])
    assert RV.load_coefficients(bad) is None  # another layout
    bad.write_bytes(b"not a table")
    assert RV.load_coefficients(bad) is None
    bad.write_bytes(RV.RV_FILE.read_bytes()[:200])  # truncated
    assert RV.load_coefficients(bad) is None
    assert RV.load_coefficients(tmp_path / "missing.npz") is None
    # without a usable table a bot asking for horizon 2 is refused with one line (it would
    # otherwise search as horizon 0 without saying so)
    monkeypatch.setattr(round_table, "RV_OK", False)
    with pytest.raises(StrategyError, match="horizon 2 needs the learned end-of-round "
                                            "value's table .*round_value.npz, which is "
                                            "missing"):
        api.play_games(1, strategies=["pimc", "random", "random", "random"],
                       params=[[4, 1, 2, 0], None, None, None])


def test_the_fit_is_deterministic_and_predicts_held_out_games():
    a, report = fitter.fit_table(600, 7, conditions=(("fishing2", 4),), log=lambda m: None)
    b, _ = fitter.fit_table(600, 7, conditions=(("fishing2", 4),), log=lambda m: None)
    assert np.array_equal(a, b)
    # on the held-out games (every 10th), the fitted estimate explains part of the margin's
    # change in the middle rounds (R^2 about 0.3 at 100,000 games; a fit of noise gives
    # about 0 or less)
    r2 = {r: x for _, _, r, _, _, x in report}
    assert all(r2[r] > 0.1 for r in (2, 3, 4, 5)), r2


def test_a_saved_table_loads_as_it_was_fitted(tmp_path):
    table = np.random.default_rng(1).normal(size=RV.RV_COEF.shape)
    fitter.save(table, tmp_path / "rv.npz", 10, 1, "weights")
    assert np.array_equal(RV.load_coefficients(tmp_path / "rv.npz"), table)


# ---- the search with horizon 2 ------------------------------------------------------------

def paused_at(round_wanted, players=4):
    deck = api.resolve_deck("fishing2", None)
    lineup = ["pimc", "weights", "weights", "weights"][:players]
    funcs, table, strats = build_lineup(lineup, players)
    mask, sp, rf, rt, ro = search_args(strats, None, players)
    for skip in range(0, 200, 3):
        st = api.new_work()[0]
        rng = np.zeros(RNG_SIZE, np.uint64)
        ev = np.zeros((16384, K.EV_FIELDS), np.int64)
        ok = S.play_to_pause(np.ascontiguousarray(deck.arrays), players, 0,
                             np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds,
                             -1, np.uint64(game_seed(1, 0)), funcs, table,
                             observe_mask(strats), mask, skip, st, rng, ev)
        if ok and st[S_ROUND] == round_wanted and st[S_N_OPTIONS] > 1:
            return deck, st, ev, sp, rf, rt, ro
    raise AssertionError(f"no pause in round {round_wanted}")


def values(deck, st, ev, sp, rf, rt, ro, horizon, sseed=5, method=S.METHOD_PIMC):
    sp = sp.copy()
    sp[0, S.SP_METHOD] = method
    sp[0, S.SP_WORLDS] = 6 if method == S.METHOD_PIMC else 40
    sp[0, S.SP_HORIZON] = horizon
    out = np.zeros(K.MAX_HAND)
    S.decide_once(st, ev, np.ascontiguousarray(deck.arrays), sp, sseed, rf, rt, ro, out)
    return out[:st[S_N_OPTIONS]].copy()


@pytest.mark.parametrize("method", [S.METHOD_PIMC, S.METHOD_ISMCTS])
def test_horizon_2_adds_the_estimate_where_rounds_remain_and_nothing_in_the_last(method):
    """The rollouts of horizons 0 and 2 are the same (the same stop, the same streams);
    horizon 2 adds each world's estimate of the rest of the game: different values in
    round 3, and none in round 8, which leaves nothing to estimate (pimc's flat search and
    ismcts's tree alike)."""
    early = paused_at(3)
    v0 = values(*early, horizon=0, method=method)
    v2 = values(*early, horizon=2, method=method)
    assert not np.allclose(v0, v2)
    last = paused_at(8)
    assert np.array_equal(values(*last, horizon=0, method=method),
                          values(*last, horizon=2, method=method))


def test_horizon_2_never_uses_a_hidden_card():
    """The estimate reads the sampled world, not the true game: swap cards the seat cannot
    see, and its values do not change (as for horizon 0, tests/test_search.py)."""
    from test_search import swap_hidden_deals

    deck, st, ev, sp, rf, rt, ro = paused_at(3)
    base = values(deck, st, ev, sp, rf, rt, ro, horizon=2)
    for a, b in ((1, 2), (2, 3)):
        st2, ev2 = swap_hidden_deals(st, ev, a, b, 0)
        assert np.array_equal(values(deck, st2, ev2, sp, rf, rt, ro, horizon=2), base)


@pytest.mark.parametrize("vec,msg", [
    ([4, 1, 3, 0], "horizon must be a whole number from 0 to 2, got 3"),
    ([4, 1, 2, 1], "horizon 2 (the learned rest of the game) estimates the points margin"),
])
def test_a_bad_horizon_is_one_clear_error(vec, msg):
    with pytest.raises(StrategyError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        api.play_games(1, strategies=["pimc", "random", "random", "random"],
                       params=[vec, None, None, None])


def test_a_horizon_2_bot_plays_whole_games_deterministically():
    bot = str(Path(__file__).resolve().parent.parent / "benchmarks" / "bots" / "pimc_value.py")
    lineup = [bot, "weights", "weights", "weights"]
    a = api.play_games(2, 4, seed=9, strategies=lineup, params=[[4, 1, 2, 0], None, None, None])
    b = api.play_games(2, 4, seed=9, strategies=lineup, params=[[4, 1, 2, 0], None, None, None])
    assert a.equals(b)
    c = api.play_games(2, 4, seed=9, strategies=lineup, params=[[4, 1, 0, 0], None, None, None])
    assert not a[["points_0", "points_1"]].equals(c[["points_0", "points_1"]])


def test_the_fit_command_refuses_bad_input_with_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "rv.npz"
    with pytest.raises(SystemExit) as e:
        fitter.main(["--games", "5", "--out", str(out)])
    assert e.value.code == 2 and "--games must be at least 100, got 5" in capsys.readouterr().err
    for strategy, msg in (("nosuch", "unknown strategy 'nosuch'"),
                          ("pimc", "'pimc' is a search bot")):
        assert fitter.main(["--games", "100", "--strategy", strategy, "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("Error:") and msg in err[0]
    assert not out.exists()


def test_a_ladder_names_horizon_2_in_words():
    from fishing2sim.analysis.ladder import budget_text

    text = budget_text({"params": {"worlds": 24, "rollouts": 1, "horizon": 2, "objective": 0},
                        "rollout": "weights"}, words=True)
    assert "horizon=2 (to the end of the round, plus the learned rest of the game)" in text
