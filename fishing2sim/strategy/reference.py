"""The reference random strategy of docs/rules.md C, as the engine's default for every decision.

Every decision picks uniformly at random among its options. strategies/random.py is this
strategy as a plugin; any decision another strategy leaves undefined is made by these.
It reads its observation directly (the same draw as strategy_kit.random_option: the count
clamped to 0 .. MAX_HAND), so loading it does not load the strategy kit.
"""
from fishing2sim.strategy.contract import decision
from fishing2sim.engine.constants import MAX_HAND, O_N_OPTIONS, O_OPTIONS
from fishing2sim.engine.rng import rand_below


@decision
def choose_uniformly(obs, params, rng):
    n = obs[O_N_OPTIONS]
    n = 0 if n < 0 else (n if n < MAX_HAND else MAX_HAND)
    return obs[O_OPTIONS + rand_below(rng, 0, n)]
