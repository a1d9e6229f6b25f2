"""scripted: a test bot that follows a preference list given as its parameters.

For every decision it returns the first entry of its parameter vector that is one of the
options (cards by id; a shade s is written as SHADE_CODE + s), else the first option.
"""
from numba import njit

from fishing2sim.engine.constants import D_DETERMINE_TRUMP, D_TRUMP_CHOICE, O_KIND, O_N_OPTIONS, O_OPTIONS
from fishing2sim.engine.strategy_sig import DECIDE_SIGNATURE

NAME = "scripted"
OBSERVES = False
SHADE_CODE = 2000


@njit(DECIDE_SIGNATURE, cache=True)
def decide(kind, obs, params, rng):
    n = obs[O_N_OPTIONS]
    shade = kind == D_TRUMP_CHOICE or kind == D_DETERMINE_TRUMP
    for j in range(params.shape[0]):
        want = int(params[j])
        if want < 0:
            continue
        if shade:
            want -= SHADE_CODE
        for i in range(n):
            if obs[O_OPTIONS + i] == want:
                return want
    return obs[O_OPTIONS]
