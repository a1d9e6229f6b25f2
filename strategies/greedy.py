"""greedy: win every trick as cheaply as possible, else throw the weakest card.

Play: among the legal cards that would make it the highest card of the trick so far
(trump, the led suit and blowfish ranked as the rules rank them), play the weakest; a buoy
never counts as winning. Leading, every card is "highest so far", so it leads its weakest
card. If no card wins, it throws its weakest card (buoys first: they never win, and a
+3-points or catch-1-other buoy still pays in a lost trick). Trump choice and
determine-trump: the shade it holds more cards of (then the higher sum of values).
Catch-1-other and exchange take the strongest card, exchange gives and catch-1-card moves
the weakest. Original Fishing (kit.keep_value): zero-catch takes the card most
worth keeping (never a minus-3 while there is another), pass-1-left passes the card least
worth keeping (a low plain card, not a zero, buoy or trump), determine-colour names the
suit it holds the most high cards of.
"""
from fishing2sim.strategy.kit import SHARED_DECISIONS, cheapest_win_or_weakest, decision

NAME = "greedy"
OBSERVES = True


@decision
def play(obs, params, rng):
    return cheapest_win_or_weakest(obs)


# every decision not defined above: the heuristic bots' shared ones
FALLBACK = SHARED_DECISIONS
