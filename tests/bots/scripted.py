"""scripted: a test bot that follows a preference list given as its parameters.

For every decision it returns the first entry of its parameter vector that is one of the
options (cards by id; a shade s is written as SHADE_CODE + s; a suit s named by the original
Fishing's determine-colour as SUIT_CODE + s), else the first option.
"""
from numba import njit

from fishing2sim.strategy_kit import O_N_OPTIONS, O_OPTIONS, decision

NAME = "scripted"
OBSERVES = False
SHADE_CODE = 2000
SUIT_CODE = 3000


@njit(cache=True)
def first_preferred(obs, params, code):
    n = obs[O_N_OPTIONS]
    for j in range(params.shape[0]):
        want = int(params[j])
        if want < 0:
            continue
        want -= code
        if want < 0:
            continue
        for i in range(n):
            if obs[O_OPTIONS + i] == want:
                return want
    return obs[O_OPTIONS]


@decision
def cards(obs, params, rng):
    return first_preferred(obs, params, 0)


@decision
def shades(obs, params, rng):
    return first_preferred(obs, params, SHADE_CODE)


@decision
def suits(obs, params, rng):
    return first_preferred(obs, params, SUIT_CODE)


play = catch_1_other = exchange_take = exchange_give = catch_1_card = cards
zero_catch = pass_1_left = cards
trump_choice = determine_trump = shades
determine_colour = suits
