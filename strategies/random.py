"""random: the reference random strategy of docs/rules.md C.

Every decision picks uniformly at random among its options: a legal card to play, either
shade for the trump choice and determine-trump, any other card still in the trick for
catch-1-other and exchange-1-card, any hand card to give, catch or pass, any suit to name.
Random-vs-random statistics are the project's baseline, so this stays exactly this.
"""
from fishing2sim.strategy.reference import choose_uniformly

NAME = "random"
OBSERVES = False  # reads only its options: the engine skips building the observation

play = trump_choice = determine_trump = choose_uniformly
catch_1_other = exchange_take = exchange_give = catch_1_card = choose_uniformly
zero_catch = pass_1_left = determine_colour = choose_uniformly
