"""first_seeing: plays its first legal card and has the engine build its observation
(research/bot_bound.py: what the observation costs on top of the call)."""
from fishing2sim.strategy.kit import decision, option

NAME = "first_seeing"
OBSERVES = True


@decision
def play(obs, params, rng):
    return option(obs, 0)
