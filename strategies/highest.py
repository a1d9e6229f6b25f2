"""highest: always play the strongest legal card.

A baseline to compare against: it spends its best card on every trick, so it wins many
early tricks and runs out of winners late. Strength: blowfish, then trump (the 16s
highest), then colour cards by value; a buoy only when nothing else is legal.
"""
from fishing2sim.strategy.kit import SHARED_DECISIONS, decision, top_power_option

NAME = "highest"
OBSERVES = True
FALLBACK = SHARED_DECISIONS  # every decision not defined here: the heuristic bots' shared ones


@decision
def play(obs, params, rng):
    return top_power_option(obs)
