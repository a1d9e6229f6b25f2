"""skilled_overfishing_tuned: the shipped `skilled` after 60 more iterations of the ES step
with overfishing in its objective (the mean win share less 1 x the share of 600 5-player
self-play games that end by overfishing; ``python research/es_student.py --iterations 60
--pairs 24 --deals 600 --overfishing 1.0 --overfishing-deals 600``, 18 iterations at step
0.02, then 42 at 0.05): 37.6% overfishing at 5 players, pimc's level, and weaker than
`skilled` (docs/strategies.md, "Evolution strategies with overfishing in the objective").
Kept to measure the trade-off against the shipped model; not a shipped bot."""
from fishing2sim.student.model import load_params
from fishing2sim.student.decisions import (  # noqa: F401  (the student's decisions)
    catch_1_card, catch_1_other, determine_colour, determine_trump, exchange_give,
    exchange_take, pass_1_left, play, trump_choice, zero_catch,
)

NAME = "skilled_overfishing_tuned"
OBSERVES = True
MODEL = "skilled_overfishing_tuned.npz"
MODEL_SHA256 = "f1ef897414f823c838b568e0a4ca76ebe73bb84c9ba1b7d30ffd055504f728c2"
PARAMS = load_params(MODEL, MODEL_SHA256, __file__)
