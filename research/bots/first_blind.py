"""first_blind: plays its first legal card and reads nothing else (research/bot_bound.py:
what the call of a decision costs)."""
from fishing2sim.strategy.kit import decision, option

NAME = "first_blind"
OBSERVES = False


@decision
def play(obs, params, rng):
    return option(obs, 0)
