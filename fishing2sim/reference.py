"""The reference random strategy of docs/rules.md C, as the engine's default for every decision.

Every decision picks uniformly at random among its options. strategies/random.py is this
strategy as a plugin; any decision another strategy leaves undefined is made by these.
"""
from .strategy_kit import decision, random_option


@decision
def choose_uniformly(obs, params, rng):
    return random_option(obs, rng)
