"""The decisions of the student policy ``skilled`` (strategies/skilled.py and the student
files a training run writes): every decision kind of both rulesets is the option with the
highest score over its features, linear plus an optional hidden layer
(fishing2sim/student/features.py); the weights are the strategy's parameter vector
(features.n_params(hidden): rulesets x decision kinds x features, then the hidden layer).

It reads only the observation and draws nothing from its random stream, so its choices
are a function of what its seat has seen.
"""
from fishing2sim.strategy.contract import decision
from fishing2sim.student.features import best_option


choose = best_option


@decision
def play(obs, params, rng):
    return choose(obs, params)


@decision
def trump_choice(obs, params, rng):
    return choose(obs, params)


@decision
def determine_trump(obs, params, rng):
    return choose(obs, params)


@decision
def catch_1_other(obs, params, rng):
    return choose(obs, params)


@decision
def exchange_take(obs, params, rng):
    return choose(obs, params)


@decision
def exchange_give(obs, params, rng):
    return choose(obs, params)


@decision
def catch_1_card(obs, params, rng):
    return choose(obs, params)


@decision
def zero_catch(obs, params, rng):
    return choose(obs, params)


@decision
def pass_1_left(obs, params, rng):
    return choose(obs, params)


@decision
def determine_colour(obs, params, rng):
    return choose(obs, params)


DECISIONS = (play, trump_choice, determine_trump, catch_1_other, exchange_take,
             exchange_give, catch_1_card, zero_catch, pass_1_left, determine_colour)
