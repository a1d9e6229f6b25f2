"""random: the reference random strategy of RULES.md C.

Every decision picks uniformly at random among its options: a legal card to play, either
shade for the trump choice and determine-trump, any other card still in the trick for
catch-1-other and exchange-1-card, any hand card to give, catch or pass, any suit to name.
Random-vs-random statistics are the project's baseline, so this stays exactly this.
"""
from numba import njit

from fishing2sim.engine.constants import O_N_OPTIONS, O_OPTIONS
from fishing2sim.engine.rng import rand_below
from fishing2sim.engine.strategy_sig import DECIDE_SIGNATURE

NAME = "random"
OBSERVES = False  # it reads only its options: the engine skips building the observation


@njit(DECIDE_SIGNATURE, cache=True)
def decide(kind, obs, params, rng):
    return obs[O_OPTIONS + rand_below(rng, 0, obs[O_N_OPTIONS])]
