"""majority: chooses the trump shade it holds more of (ties: light); plays like random."""
from fishing2sim.strategy.kit import (
    C_DARK, C_LIGHT, DARK, LIGHT, colour, decision, hand_card, hand_size,
)

NAME = "majority"


@decision
def trump_choice(obs, params, rng):
    light = 0
    dark = 0
    for i in range(hand_size(obs)):
        c = colour(obs, hand_card(obs, i))
        if c == C_LIGHT:
            light += 1
        elif c == C_DARK:
            dark += 1
    return LIGHT if light >= dark else DARK
