"""pimc_value: pimc whose rollouts stop at the end of the round (as pimc's) and value a
world by the points margin plus the learned estimate of how the margin moves in the rounds
still to play (horizon 2: fishing2sim/search/round_value.py), with pimc's 24 worlds and
weights rollouts (benchmarks/bench_horizon.py --bot)."""
NAME = "pimc_value"
SEARCH = "pimc"
ROLLOUT = "weights"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [24, 1, 2, 0]
