"""pimc_skilled: pimc (perfect-information Monte Carlo, strategies/pimc.py) whose rollouts
are played by the student policy ``skilled`` in every seat instead of ``weights``; its
decisions that it does not search are skilled's. The same budget as pimc: 24 worlds, 1
rollout per world and option, to the end of the round on the points margin."""
NAME = "pimc_skilled"
SEARCH = "pimc"
ROLLOUT = "skilled"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [24, 1, 0, 0]
