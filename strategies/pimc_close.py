"""pimc_close: skilled's choice where skilled is sure, a small pimc search where it is not.

At each of its card plays and trump choices it first scores the options as the student
policy ``skilled`` does, from its own observation (fishing2sim/search/close.py): if the two
best scores are at least MARGIN apart it plays skilled's choice at once (about 85% of its
decisions at the default margin); otherwise it searches like pimc_skilled (perfect-
information Monte Carlo, docs/search.md): WORLDS sampled worlds, ROLLOUTS rollouts per world
and option with skilled in every seat, to the end of the round plus the learned estimate
of the rest of the game (HORIZON 2), on the points margin (OBJECTIVE 0). Its other
decisions are skilled's. The panels' ``search`` level (docs/strategies.md has its figures).
"""
NAME = "pimc_close"
SEARCH = "pimc"
ROLLOUT = "skilled"
SEARCHES = ["play", "trump_choice"]
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective", "margin"]
PARAMS = [8, 1, 2, 0, 0.002]
