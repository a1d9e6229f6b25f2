"""weights: a parametric bot: every card it may play is scored by a weighted sum of features.

The play decision computes, for each legal card, named features of the card and the
situation (strength, whether it would win the trick so far, how many players still follow,
whether it is trump / a blowfish / a buoy, whether it is the boss of its suit, whether it
makes its player the weakest of a trick holding blowfish, the round's progress, the score
gap to the leader ...) and plays the card with the highest ``sum(w_i * f_i)``; the weights
are the parameter vector (PARAM_NAMES gives their names, PARAMS the defaults, which play
well against random bots). The other decisions follow fixed sensible rules: the trump shade
with the larger ``shade_count * w_shade_count + shade_value``, catch/exchange the strongest
card, give/move the weakest.
"""
from numba import njit

from fishing2sim.strategy_kit import (
    DARK, E_CATCH_1_OTHER, E_PLUS_3, LIGHT, O_HAND_N, O_OCEAN_N, O_PLAYERS, O_TRICK_N,
    O_TRICK_NO, blowfish_in_trick, decision, future_power, has_effect, is_blowfish, is_buoy,
    is_trump, leader_gap, n_options, option, power, shade_cards, shade_value, to_play,
    unseen_above, weakest_now, wins_now,
)

NAME = "weights"
OBSERVES = True
PARAM_NAMES = (
    "power",          # card strength / 47
    "win",            # 1 if the card would be the trick's highest so far
    "win_exposed",    # win * share of the other players still to play
    "win_cost",       # win * strength: < 0 wins as cheaply as possible
    "lose_cost",      # (1 - win) * strength: < 0 loses as cheaply as possible
    "trump",          # the card is trump
    "blowfish",       # the card is a blowfish
    "buoy",           # the card is a buoy
    "plus3",          # the card is the +3-points buoy
    "catch_other",    # the card is a catch-1-other buoy
    "lead_power",     # leading: strength
    "boss",           # win and no unseen card of its suit beats it
    "weakest_fish",   # it would be the weakest card, times the blowfish in the trick
    "late_win",       # win * progress through the round (0 .. 1)
    "behind_win",     # win * points behind the best other player / 20
    "ocean_win",      # win * ocean cards left / 60
    "shade_count",    # trump choice: weight of a card count against the sum of values
)
PARAMS = (0.0, 3.0, -1.5, -1.0, -1.0, 0.0, 0.0, 0.3, 1.0, 0.3, 2.0, 1.0, 1.0, 0.0, 0.0, 0.0,
          10.0)


@njit(cache=True)
def score(obs, params, c):
    p = power(obs, c) / 47.0
    win = 1.0 if (not is_buoy(obs, c) and wins_now(obs, c)) else 0.0
    others = obs[O_PLAYERS] - 1
    exposed = to_play(obs) / others
    total = obs[O_TRICK_NO] + obs[O_HAND_N] - 1
    progress = (obs[O_TRICK_NO] - 1) / total if total > 1 else 1.0
    s = params[0] * p + params[1] * win + params[2] * win * exposed
    s += params[3] * win * p + params[4] * (1.0 - win) * p
    if is_trump(obs, c):
        s += params[5]
    if is_blowfish(obs, c):
        s += params[6]
    if is_buoy(obs, c):
        s += params[7]
        if has_effect(obs, c, E_PLUS_3):
            s += params[8]
        if has_effect(obs, c, E_CATCH_1_OTHER):
            s += params[9]
    if obs[O_TRICK_N] == 0:
        s += params[10] * p
    if win > 0 and params[11] != 0.0 and unseen_above(obs, c) == 0:
        s += params[11]
    if params[12] != 0.0 and weakest_now(obs, c):
        s += params[12] * blowfish_in_trick(obs)
    s += params[13] * win * progress
    s += params[14] * win * leader_gap(obs) / 20.0
    s += params[15] * win * obs[O_OCEAN_N] / 60.0
    return s


@njit(cache=True)
def best_scored(obs, params):
    best, best_s = option(obs, 0), -1e300
    for i in range(n_options(obs)):
        c = option(obs, i)
        s = score(obs, params, c)
        if s > best_s:
            best, best_s = c, s
    return best


@njit(cache=True)
def chosen_shade(obs, params):
    w = params[16]
    light = w * shade_cards(obs, LIGHT) + shade_value(obs, LIGHT)
    dark = w * shade_cards(obs, DARK) + shade_value(obs, DARK)
    return LIGHT if light >= dark else DARK


@njit(cache=True)
def strongest(obs, future):
    best, best_p = option(obs, 0), -1
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = future_power(obs, c) if future else power(obs, c)
        if p > best_p:
            best, best_p = c, p
    return best


@njit(cache=True)
def weakest_keep_bonus(obs):
    low, low_p = option(obs, 0), 1 << 30
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = 1000 if has_effect(obs, c, E_PLUS_3) else power(obs, c)
        if p < low_p:
            low, low_p = c, p
    return low


@decision
def play(obs, params, rng):
    return best_scored(obs, params)


@decision
def trump_choice(obs, params, rng):
    return chosen_shade(obs, params)


@decision
def determine_trump(obs, params, rng):
    return chosen_shade(obs, params)


@decision
def catch_1_other(obs, params, rng):
    return strongest(obs, True)


@decision
def exchange_take(obs, params, rng):
    return strongest(obs, False)


@decision
def exchange_give(obs, params, rng):
    return weakest_keep_bonus(obs)


@decision
def catch_1_card(obs, params, rng):
    return weakest_keep_bonus(obs)
