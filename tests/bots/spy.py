"""spy: a test bot that answers with an illegal choice (7000 + offset) if a card it cannot
know shows anywhere in the hand or options sections of its observation, also past the counts
(docs/rules.md C); otherwise a uniform choice. It plays, and in the original Fishing also makes
the zero's catch, pass-1-left (which asks every seat in turn for a hand card) and
determine-colour."""
from fishing2sim.engine.constants import D_DETERMINE_COLOUR, MAX_HAND, O_KIND, O_N_CARDS
from fishing2sim.strategy.kit import (
    O_HAND, O_OPTIONS, decision, helper, in_hand, random_option, was_played,
)

NAME = "spy"


@helper
def hidden(obs, v):
    # card 0 (blue 1) is not used with 4 players; -1 is a cleared slot, 0 an untouched one
    return 0 < v < obs[O_N_CARDS] and not in_hand(obs, v) and not was_played(obs, v)


@helper
def check(obs, rng):
    for i in range(MAX_HAND):
        if hidden(obs, obs[O_HAND + i]):
            return 7000 + i
    if obs[O_KIND] != D_DETERMINE_COLOUR:  # its options are suit codes, not cards
        for i in range(MAX_HAND):
            if hidden(obs, obs[O_OPTIONS + i]):
                return 7100 + i
    return random_option(obs, rng)


@decision
def play(obs, params, rng):
    return check(obs, rng)


zero_catch = pass_1_left = determine_colour = play
