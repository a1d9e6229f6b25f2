"""pimc_close: skilled's choice where skilled is sure, a small pimc search where it is not.

At each of its card plays and trump choices it first scores the options as the student
policy ``skilled`` does, from its own observation (fishing2sim/search/close.py): if the two
best scores are at least MARGIN apart it plays skilled's choice at once; otherwise it
searches like pimc_skilled (perfect-information Monte Carlo, docs/search.md) with WORLDS
sampled worlds, ROLLOUTS rollouts per world and option played by skilled in every seat, to
the end of the round (HORIZON 0) on the points margin (OBJECTIVE 0). Its other decisions
are skilled's. The panels' ``search`` level (docs/strategies.md has its figures).
"""
NAME = "pimc_close"
SEARCH = "pimc"
ROLLOUT = "skilled"
SEARCHES = ["play", "trump_choice"]
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective", "margin"]
PARAMS = [8, 1, 0, 0, 0.5]
