"""highest: always play the strongest legal card.

A baseline a designer can compare against: it spends its best card on every trick, so it
wins many early tricks and runs out of winners late. Strength: blowfish, then trump (the
16s highest), then colour cards by value; buoys are played only when nothing else is legal.
The other decisions are the simple sensible ones: the trump shade it holds more of,
catch/exchange the strongest card, give/move the weakest.
"""
from numba import njit

from fishing2sim.strategy_kit import (
    DARK, E_PLUS_3, LIGHT, decision, future_power, has_effect, n_options, option, power,
    shade_cards, shade_value,
)

NAME = "highest"
OBSERVES = True


@njit(cache=True)
def extreme(obs, future, high, keep_bonus):
    best, best_p = option(obs, 0), -(1 << 30)
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = future_power(obs, c) if future else power(obs, c)
        if keep_bonus and has_effect(obs, c, E_PLUS_3):
            p = 1000
        if not high:
            p = -p
        if p > best_p:
            best, best_p = c, p
    return best


@njit(cache=True)
def richer_shade(obs):
    nl, nd = shade_cards(obs, LIGHT), shade_cards(obs, DARK)
    if nl != nd:
        return LIGHT if nl > nd else DARK
    return LIGHT if shade_value(obs, LIGHT) >= shade_value(obs, DARK) else DARK


@decision
def play(obs, params, rng):
    return extreme(obs, False, True, False)


@decision
def trump_choice(obs, params, rng):
    return richer_shade(obs)


@decision
def determine_trump(obs, params, rng):
    return richer_shade(obs)


@decision
def catch_1_other(obs, params, rng):
    return extreme(obs, True, True, False)


@decision
def exchange_take(obs, params, rng):
    return extreme(obs, False, True, False)


@decision
def exchange_give(obs, params, rng):
    return extreme(obs, False, False, True)


@decision
def catch_1_card(obs, params, rng):
    return extreme(obs, False, False, True)
