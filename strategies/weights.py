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
    C_NONE, DARK, E_CATCH_1_OTHER, E_PLUS_3, LIGHT, O_HAND_N, O_LED, O_OCEAN_N, O_PLAYERS,
    O_TRICK_N, O_TRICK_NO, O_TRUMP, SUIT_NONE, SUIT_TRUMP, blowfish_in_trick, decision,
    future_power, hand_card, has_effect, is_blowfish, is_buoy, is_green, is_trump,
    leader_gap, n_options, option, power, shade_cards, shade_value, suit, suit_under,
    to_play, trick_card, unseen_above, weakest_now, wins_now,
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
    "ruff",           # a trump played on a trick led in another suit
    "lead_trump",     # leading a trump
    "next_trumps",    # share of the rest of the hand that is trump in the next trick
    "suit_share",     # share of the hand in the card's suit (under the active trump)
)
PARAMS = (0.5, 3.0, -1.5, -0.5, -1.0, -1.0, 0.0, 0.3, 1.0, 0.3, 2.0, 1.0, 1.0, 0.0, 0.0, 0.0,
          10.0, 0.0, 0.0, 0.5, 0.0)


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
    trump = is_trump(obs, c)
    if trump and obs[O_LED] != SUIT_NONE and obs[O_LED] != SUIT_TRUMP:
        s += params[17]
    if trump and obs[O_TRICK_N] == 0:
        s += params[18]
    n = obs[O_HAND_N]
    if n > 1 and (params[19] != 0.0 or params[20] != 0.0):
        s += params[19] * next_trumps(obs, c) / (n - 1)
        s += params[20] * same_suit(obs, c) / n
    return s


@njit(cache=True)
def next_trumps(obs, c):
    """Other hand cards that are trump in the next trick if c is played now (a green in
    the trick flips the shade; determine-trump is ignored)."""
    if obs[O_TRUMP] == C_NONE:
        return 0
    flip = is_green(obs, c)
    for i in range(obs[O_TRICK_N]):
        if is_green(obs, trick_card(obs, i)):
            flip = True
    nxt = obs[O_TRUMP]
    if flip:
        nxt = DARK if nxt == LIGHT else LIGHT
    k = 0
    for i in range(obs[O_HAND_N]):
        h = hand_card(obs, i)
        if h != c and suit_under(obs, h, nxt) == SUIT_TRUMP:
            k += 1
    return k


@njit(cache=True)
def same_suit(obs, c):
    s = suit(obs, c)
    if s == SUIT_NONE:
        return 0
    k = 0
    for i in range(obs[O_HAND_N]):
        if suit(obs, hand_card(obs, i)) == s:
            k += 1
    return k


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
