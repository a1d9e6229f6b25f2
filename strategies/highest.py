"""highest: always play the strongest legal card.

A baseline to compare against: it spends its best card on every trick, so it wins many
early tricks and runs out of winners late. Strength: blowfish, then trump (the 16s
highest), then colour cards by value; a buoy only when nothing else is legal. The other
decisions are the simple sensible ones: the trump shade it holds more cards of, catch and
exchange the strongest card, give and move the weakest; original Fishing
(kit.keep_value): zero-catch the card most worth keeping (never a minus-3 while
there is another), pass-1-left the card least worth keeping (a low plain card, not a zero,
buoy or trump), determine-colour the suit it holds the most high cards of.
"""
from fishing2sim.strategy.kit import SHARED_DECISIONS, decision, top_power_option

NAME = "highest"
OBSERVES = True


@decision
def play(obs, params, rng):
    return top_power_option(obs)


# every decision not defined above: the heuristic bots' shared ones
FALLBACK = SHARED_DECISIONS
