"""greedy: win every trick as cheaply as possible, else throw the weakest card.

Play: among the legal cards that would make it the highest card of the trick so far
(trump, the led suit and blowfish ranked as the rules rank them), play the weakest; a buoy
never counts as winning. Leading, every card is "highest so far", so it leads its weakest
card. If no card wins, it throws its weakest card (buoys first: they never win, and a
+3-points or catch-1-other buoy still pays in a lost trick). Every other decision is the
heuristic bots' shared one (kit.SHARED_DECISIONS: the trump shade held more, catch and
exchange the strongest card, give and move the weakest; in original Fishing, keep_value).
"""
from fishing2sim.strategy.kit import SHARED_DECISIONS, cheapest_win_or_weakest, decision

NAME = "greedy"
OBSERVES = True


@decision
def play(obs, params, rng):
    return cheapest_win_or_weakest(obs)


# every decision not defined above: the heuristic bots' shared ones
FALLBACK = SHARED_DECISIONS
