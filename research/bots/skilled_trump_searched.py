"""skilled_trump_searched: `skilled`, with its trump choices and determine-trump buoys made
by pimc at the teacher's budget (48 worlds, to the end of the round, points margin) with
`skilled` rollouts: how much of the student's gap lies in the shade it picks
(docs/strategies.md, "Where the student's gap is")."""
NAME = "skilled_trump_searched"
SEARCH = "pimc"
SEARCHES = ["trump_choice", "determine_trump"]
ROLLOUT = "skilled"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [48, 1, 0, 0]
