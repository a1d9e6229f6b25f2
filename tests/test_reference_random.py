"""docs/rules.md C: the reference random strategy picks uniformly among the options."""
import math

import numpy as np

from fishing2sim.api import play_games
from fishing2sim.engine import constants as K
from fishing2sim.strategy.reference import choose_uniformly
from fishing2sim.strategy.loading import load_strategy


def test_random_strategy_is_uniform_over_options():
    obs = np.zeros(K.OBS_SIZE, np.int64)
    n = 7
    obs[K.O_N_OPTIONS] = n
    obs[K.O_OPTIONS:K.O_OPTIONS + n] = np.arange(100, 100 + n)
    params = np.zeros(1)
    rng = np.array([12345], np.uint64)
    draws = 70_000
    counts = np.zeros(n, int)
    for _ in range(draws):
        counts[choose_uniformly(obs, params, rng) - 100] += 1
    # chi-square with 6 degrees of freedom: the 99.9% quantile is 22.46
    expected = draws / n
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 22.46, counts


def test_random_plugin_is_the_reference_for_every_decision():
    s = load_strategy("random")
    assert all(f is choose_uniformly for f in s.functions)
    assert s.observes is False


def test_random_trump_choice_is_a_coin_flip():
    df = play_games(4000, 4, seed=5)
    t = df[[f"trump_r{r}" for r in range(2, 9)]].to_numpy().ravel()
    t = t[~pd_isna(t)]
    light = float(np.mean(t == "light"))
    half = 1.96 * math.sqrt(0.25 / t.size)
    assert abs(light - 0.5) < half * 1.3  # ~99.9% two-sided
    assert t.size > 20000


def pd_isna(a):
    import pandas as pd

    return pd.isna(a)


def test_round_1_leader_is_uniform():
    df = play_games(4000, 4, seed=6)
    counts = np.bincount(df.first_leader, minlength=4)
    chi2 = ((counts - 1000) ** 2 / 1000).sum()
    assert chi2 < 16.27  # 3 dof, 99.9%
    fixed = play_games(50, 4, seed=6, first_leader=2)
    assert (fixed.first_leader == 2).all()
