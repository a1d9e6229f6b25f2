"""pimc: searches every card play and trump choice (perfect-information Monte Carlo).

At each of its card plays and trump choices the engine samples WORLDS deals of the cards
this seat cannot see, each consistent with everything the seat has seen (docs/search.md),
plays every option forward ROLLOUTS times in each world with the ROLLOUT strategy in every
seat, and picks the option with the best mean value: the points margin over the best other
seat at the end of the round (HORIZON 0) or of the game (HORIZON 1), or the win share
(OBJECTIVE 1). Its other decisions (buoys, exchanges, Fishing's effects) are the ROLLOUT
strategy's. To search with another rollout strategy, copy this file, rename NAME and set
ROLLOUT to a bot's name or a .py file.
"""
NAME = "pimc"
SEARCH = "pimc"
ROLLOUT = "weights"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [24, 1, 0, 0]
