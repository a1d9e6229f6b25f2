"""greedy: win every trick as cheaply as possible, else throw the lowest card.

Play: among the legal cards that would make it the highest card of the trick so far
(trump, the led suit and blowfish as the rules rank them), play the weakest; a buoy never
counts as winning. If no card wins, throw the weakest card (buoys first: they can never win,
and a +3-points or catch-1-other buoy pays off even in a lost trick). Trump choice and
determine-trump: the shade it holds more of (then the higher sum). Catch-1-other and
exchange take the strongest card, exchange gives and catch-1-card moves the weakest.
"""
from numba import njit

from fishing2sim.strategy_kit import (
    DARK, E_PLUS_3, LIGHT, decision, future_power, has_effect, is_buoy, n_options, option,
    power, shade_cards, shade_value, wins_now,
)

NAME = "greedy"
OBSERVES = True


@njit(cache=True)
def cheapest_win_or_lowest(obs):
    best = -1
    best_p = 1 << 30
    low = -1
    low_p = 1 << 30
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = power(obs, c)
        if not is_buoy(obs, c) and wins_now(obs, c) and p < best_p:
            best, best_p = c, p
        if p < low_p:
            low, low_p = c, p
    return best if best >= 0 else low


@njit(cache=True)
def richer_shade(obs):
    nl, nd = shade_cards(obs, LIGHT), shade_cards(obs, DARK)
    if nl != nd:
        return LIGHT if nl > nd else DARK
    return LIGHT if shade_value(obs, LIGHT) >= shade_value(obs, DARK) else DARK


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
        p = power(obs, c)
        if has_effect(obs, c, E_PLUS_3):
            p = 1000  # worth 3 points when played: keep it
        if p < low_p:
            low, low_p = c, p
    return low


@decision
def play(obs, params, rng):
    return cheapest_win_or_lowest(obs)


@decision
def trump_choice(obs, params, rng):
    return richer_shade(obs)


@decision
def determine_trump(obs, params, rng):
    return richer_shade(obs)


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
