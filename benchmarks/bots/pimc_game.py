"""pimc_game: pimc whose rollouts play to the end of the game (horizon 1) instead of the end
of the round, on the same points margin, with pimc's 24 worlds and weights rollouts
(benchmarks/bench_horizon.py)."""
NAME = "pimc_game"
SEARCH = "pimc"
ROLLOUT = "weights"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [24, 1, 1, 0]
