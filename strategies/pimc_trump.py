"""pimc_trump: weights_tuned's play, with the trump choice searched by pimc.

Every decision is weights_tuned's except the trump choice at the start of rounds 2-8,
which pimc's search makes: WORLDS deals of the unseen cards consistent with this seat's
view, both shades played out ROLLOUTS times in each with weights_tuned in every seat, to
the end of the round (HORIZON 0) or game (HORIZON 1). Set against weights_tuned, it shows
how much of the trump choice's stakes a good chooser captures (experiments/skilled.yaml).
"""
NAME = "pimc_trump"
SEARCH = "pimc"
SEARCHES = ["trump_choice"]
ROLLOUT = "weights_tuned"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [32, 2, 1, 0]
