"""cheater: pimc's search on the true deal (sees every hand): an upper bound, not a fair player.

The same search as pimc, except that every "world" is the game as it really is: it knows
every hand, boat and the ocean's order. No fair player can do this; its results show how
much any policy could gain from searching with this budget. Reports label it as a cheater.
WORLDS is the number of repeats of the rollouts (with fresh random streams) per option.
"""
NAME = "cheater"
SEARCH = "cheater"
ROLLOUT = "weights"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [24, 1, 0, 0]
