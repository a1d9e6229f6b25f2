"""refuser: a test bot that answers every decision it is asked with an illegal choice.

A seat played by it stops the game with an error the moment the engine asks it anything,
so a game that runs on shows that the seat was never asked (project ruling: a decision
with a single option is not asked of the strategy).
"""
from fishing2sim.strategy.kit import decision

NAME = "refuser"
OBSERVES = False


@decision
def refuse(obs, params, rng):
    return -7


play = trump_choice = determine_trump = catch_1_other = exchange_take = refuse
exchange_give = catch_1_card = zero_catch = pass_1_left = determine_colour = refuse
