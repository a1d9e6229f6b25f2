"""cheater: ismcts's tree search on the true deal (sees every hand): an upper bound, not a fair player.

The same tree search as ismcts, except that every iteration walks the game as it really
is instead of a sampled deal: it knows every hand, boat and the ocean's order. No fair
player can do this; its results show how much any policy could gain from searching.
Reports label it as a cheater. WORLDS is the number of iterations of the tree.
"""
NAME = "cheater"
SEARCH = "cheater"
ROLLOUT = "weights"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [160, 1, 0, 0]
