"""illegal: a test bot whose every choice is not an option (card id 9999)."""
from fishing2sim.strategy_kit import decision

NAME = "illegal"
OBSERVES = False


@decision
def play(obs, params, rng):
    return 9999


trump_choice = determine_trump = catch_1_other = exchange_take = exchange_give = play
catch_1_card = zero_catch = pass_1_left = determine_colour = play
