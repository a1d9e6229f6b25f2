"""skilled_rare_searched: `skilled`'s card play, with every other decision (the trump choice,
determine-trump, the buoys, exchange-1-card, and Fishing's zero, pass-1-left and
determine-colour) made by pimc at the teacher's budget (48 worlds, to the end of the round,
points margin) with `skilled` rollouts: how much of the student's gap lies outside the
card play (docs/strategies.md, "Where the student's gap is")."""
NAME = "skilled_rare_searched"
SEARCH = "pimc"
SEARCHES = ["trump_choice", "determine_trump", "catch_1_other", "exchange_take",
            "exchange_give", "catch_1_card", "zero_catch", "pass_1_left", "determine_colour"]
ROLLOUT = "skilled"
PARAM_NAMES = ["worlds", "rollouts", "horizon", "objective"]
PARAMS = [48, 1, 0, 0]
