"""scripted: a test bot that follows a preference list given as its parameters.

For every decision it returns the first entry of its parameter vector that is one of the
options (options are action ids of one space: cards by id, a shade as LIGHT / DARK =
OPT_SHADE + its code, a suit named by the original Fishing's determine-colour as
OPT_SUIT + its code), else the first option.
"""
from fishing2sim.strategy.kit import O_N_OPTIONS, O_OPTIONS, decision, helper

NAME = "scripted"
OBSERVES = False


@helper
def first_preferred(obs, params):
    n = obs[O_N_OPTIONS]
    for j in range(params.shape[0]):
        want = int(params[j])
        if want < 0:
            continue
        for i in range(n):
            if obs[O_OPTIONS + i] == want:
                return want
    return obs[O_OPTIONS]


@decision
def play(obs, params, rng):
    return first_preferred(obs, params)


catch_1_other = exchange_take = exchange_give = catch_1_card = zero_catch = pass_1_left = play
trump_choice = determine_trump = determine_colour = play
