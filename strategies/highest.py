"""highest: always play the strongest legal card.

A baseline to compare against: it spends its best card on every trick, so it wins many
early tricks and runs out of winners late. Strength: blowfish, then trump (the 16s
highest), then colour cards by value; a buoy only when nothing else is legal. The other
decisions are the simple sensible ones: the trump shade it holds more cards of, catch and
exchange the strongest card, give and move the weakest; original Fishing
(strategy_kit.keep_value): zero-catch the card most worth keeping (never a minus-3 while
there is another), pass-1-left the card least worth keeping (a low plain card, not a zero,
buoy or trump), determine-colour the suit it holds the most high cards of.
"""
from numba import njit

from fishing2sim.strategy_kit import (
    best_catch_option, decision, least_kept_option, n_options, option, power, richer_shade,
    richest_suit, strongest_option, weakest_option,
)

NAME = "highest"
OBSERVES = True


@njit(cache=True)
def strongest_card(obs):
    best, best_p = option(obs, 0), -1
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = power(obs, c)
        if p > best_p:
            best, best_p = c, p
    return best


@decision
def play(obs, params, rng):
    return strongest_card(obs)


@decision
def trump_choice(obs, params, rng):
    return richer_shade(obs, 100)


@decision
def determine_trump(obs, params, rng):
    return richer_shade(obs, 100)


@decision
def catch_1_other(obs, params, rng):
    return strongest_option(obs, True)


@decision
def exchange_take(obs, params, rng):
    return strongest_option(obs, False)


@decision
def exchange_give(obs, params, rng):
    return weakest_option(obs)


@decision
def catch_1_card(obs, params, rng):
    return weakest_option(obs)


@decision
def zero_catch(obs, params, rng):
    return best_catch_option(obs)


@decision
def pass_1_left(obs, params, rng):
    return least_kept_option(obs)


@decision
def determine_colour(obs, params, rng):
    return richest_suit(obs, 10)
