"""ismcts: searches every card play and trump choice with information-set Monte Carlo tree search.

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012): each of WORLDS iterations
samples a deal of the cards this seat cannot see (consistent with everything it has seen,
docs/search.md), walks one search tree over the decisions that follow (every seat's card
plays and trump choices) choosing by UCB1 among the options legal in that deal, adds one
node, and plays on with the ROLLOUT strategy in every seat to the end of the round (HORIZON
0) or game (HORIZON 1); the value (OBJECTIVE: 0 points margin, 1 win share) of each seat
is credited to the options it chose on the way. It picks its most visited option. Unlike
pimc, opponents in the tree choose knowing only what the search's own seat knows, so it
does not assume that everyone sees every hand. Other decisions are the ROLLOUT strategy's.
"""
NAME = "ismcts"
SEARCH = "ismcts"
ROLLOUT = "weights"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [160, 1, 0, 0]
