"""pimc_close (strategies/pimc_close.py, search/close.py): a pimc seat that searches only
the card plays and trump choices whose two best options the student ``skilled`` scores
less than its margin apart, and plays skilled's choice elsewhere."""
from __future__ import annotations

import numpy as np
import pytest

from fishing2sim import api
from fishing2sim.config.schema import LEVEL_SEATS
from fishing2sim.engine import constants as K
from fishing2sim.engine.batch import new_buffers
from fishing2sim.engine.records import G_ERR_CODE
from fishing2sim.engine.core import fill_obs
from fishing2sim.engine.rng import game_seed
from fishing2sim.engine.state import A_OPTIONS, S_ASK_KIND, S_ASK_SEAT, S_N_OPTIONS, new_state
from fishing2sim.search import close as C
from fishing2sim.search import kernels as S
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.lineup import build_lineup, observe_mask, search_args
from fishing2sim.strategy.loading import load_strategy

BUDGET = [2, 1, 0, 0]  # 2 worlds: cheap enough for tests


@pytest.mark.parametrize("ruleset,players", [
    ("fishing2", 3), ("fishing2", 4), ("fishing2", 5), ("fishing", 4),
])
def test_it_plays_legal_games_searching_only_some_decisions(ruleset, players):
    a = api.run_games(3, players, seed=4, ruleset=ruleset, check=True,
                      strategies=["pimc_close"] + ["skilled"] * (players - 1),
                      params=[BUDGET + [0.005]] + [None] * (players - 1))
    searched, _, _, unsearched = a["search"]
    assert (a["int"][:, G_ERR_CODE] == 0).all()
    assert searched > 0 and unsearched > 0


def test_a_huge_margin_searches_every_decision_as_pimc_skilled(tmp_path):
    """Margin 1000: no decision is left to the student; the games are those of pimc with
    skilled rollouts searching the same decisions with the same budget, seed for seed."""
    plain = tmp_path / "pimc_skilled_plays.py"
    plain.write_text('NAME = "pimc_skilled_plays"\nSEARCH = "pimc"\nROLLOUT = "skilled"\n'
                     'SEARCHES = ["play", "trump_choice"]\nPARAMS = [2, 1, 0, 0]\n')
    others = ["skilled"] * 3
    a = api.run_games(4, 4, seed=2, strategies=["pimc_close"] + others,
                      params=[BUDGET + [1000], None, None, None])
    b = api.run_games(4, 4, seed=2, strategies=[str(plain)] + others,
                      params=[BUDGET, None, None, None])
    assert a["search"][3] == 0 and a["search"][0] == b["search"][0] > 0
    assert np.array_equal(a["points"], b["points"]) and np.array_equal(a["int"], b["int"])


def test_no_margin_searches_every_decision_and_a_smaller_one_searches_fewer():
    counts = []
    for margin in (0, 0.05, 0.005, 0.001):
        a = api.run_games(3, 4, seed=6, strategies=["pimc_close"] + ["skilled"] * 3,
                          params=[BUDGET + [margin], None, None, None])
        counts.append((int(a["search"][0]), int(a["search"][3])))
    assert counts[0][1] == 0
    total = sum(counts[1])
    assert [c[0] for c in counts] == sorted((c[0] for c in counts), reverse=True)
    assert counts[-1][0] < counts[1][0] < total


def paused_close(game, skip, margin=0.005):
    """A game with pimc_close in seat 0 (skilled elsewhere) paused at seat 0's
    (skip + 1)-th searched decision: (state, its rollout parameter table, sp)."""
    deck = api.resolve_deck("fishing2", None)
    funcs, table, strats = build_lineup(["pimc_close"] + ["skilled"] * 3, 4,
                                        params=[BUDGET + [margin], None, None, None])
    mask, sp, rf, rt, ro = search_args(strats, [BUDGET + [margin], None, None, None], 4)
    st, rng = new_state()
    ev = np.zeros((16384, K.EV_FIELDS), np.int64)
    ok = S.play_to_pause(np.ascontiguousarray(deck.arrays), 4, K.RULESETS["fishing2"],
                         np.ascontiguousarray(deck.hand_sizes[4]), deck.n_rounds, -1,
                         np.uint64(game_seed(1, game)), funcs, table, observe_mask(strats),
                         mask, skip, st, rng, ev)
    return (st, rt[0], sp) if ok else None


def test_the_close_rule_reads_skilleds_scores_and_plays_its_choice_where_sure():
    """At paused decisions of seat 0: the kernel's scores are skilled's own (its
    ``scores``, numpy), and sure_choice is skilled's choice exactly where the two best
    scores are at least the margin apart, else -1 (search)."""
    skilled = load_strategy("skilled")
    seen = {"sure": 0, "close": 0}
    for game in range(3):
        for skip in range(0, 24, 3):
            got = paused_close(game, skip)
            if got is None:
                break
            st, rt, sp = got
            s, kind, n = int(st[S_ASK_SEAT]), int(st[S_ASK_KIND]), int(st[S_N_OPTIONS])
            assert s == 0 and kind in (K.D_PLAY, K.D_TRUMP_CHOICE) and n >= 2
            w = np.ascontiguousarray(rt[0, :int(rt[0, -1])])
            obs = new_buffers()
            obs[0, K.O_OPTIONS:K.O_OPTIONS + n] = st[A_OPTIONS:A_OPTIONS + n]
            fill_obs(st, obs[0], 0, kind, n, -1)
            want = np.array(skilled.scores(obs[0], w))
            out = np.zeros(K.MAX_HAND)
            assert C.student_scores(obs[:1].copy(), w, out) == n
            assert out[:n] == pytest.approx(want, abs=1e-9)
            top = np.sort(want)[::-1]
            gap = top[0] - top[1]
            choice = int(skilled.functions[kind](obs[0].copy(), w, np.zeros(1, np.uint64)))
            for margin in (gap / 2, gap * 2 + 1e-6):
                sure = C.sure_choice(st, new_buffers(), rt, margin)
                if gap >= margin:
                    assert sure == choice
                    seen["sure"] += 1
                else:
                    assert sure == -1
                    seen["close"] += 1
            assert C.sure_choice(st, new_buffers(), rt, 0.0) == -1  # no margin: search
    assert seen["sure"] > 5 and seen["close"] > 5


def test_a_margin_needs_pimc_and_a_student_rollout(tmp_path):
    path = tmp_path / "close_greedy.py"
    path.write_text('NAME = "close_greedy"\nSEARCH = "pimc"\nROLLOUT = "greedy"\n'
                    'PARAMS = [2, 1, 0, 0, 0.5]\n')
    with pytest.raises(StrategyError, match="margin 0.5 needs SEARCH 'pimc' and a student "
                                            "ROLLOUT"):
        load_strategy(str(path))
    path = tmp_path / "greedy_no_margin.py"
    path.write_text('NAME = "greedy_no_margin"\nSEARCH = "pimc"\nROLLOUT = "greedy"\n'
                    'PARAMS = [2, 1, 0, 0, 0]\n')
    assert load_strategy(str(path)).param_names[-1] == "margin"  # 0: no margin, no student
    with pytest.raises(StrategyError, match="margin must be a number from 0 to 1000, got -1"):
        api.play_games(1, strategies=["pimc_close", "random", "random", "random"],
                       params=[BUDGET + [-1], None, None, None])


def test_the_panels_search_level_is_pimc_close():
    assert LEVEL_SEATS["search"] == "pimc_close"
    bot = load_strategy(LEVEL_SEATS["search"])
    assert bot.search == "pimc" and bot.rollout.name == "skilled"
    assert bot.param_names == ("worlds", "rollouts", "horizon", "objective", "margin")
    assert bot.defaults[4] > 0 and list(bot.searches) == ["play", "trump_choice"]
