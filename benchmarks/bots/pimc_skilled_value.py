"""pimc_skilled_value: pimc_skilled (pimc with the student policy skilled in every seat of
its rollouts) whose rollouts stop at the end of the round and value a world by the points
margin plus the learned estimate of how the margin moves in the rounds still to play
(horizon 2: fishing2sim/search/round_value.py, whose table is fitted on weights' games),
with pimc's 24 worlds (benchmarks/bench_horizon.py --bot)."""
NAME = "pimc_skilled_value"
SEARCH = "pimc"
ROLLOUT = "skilled"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [24, 1, 2, 0]
