"""spy_blind: the spy (tests/bots/spy.py) declaring OBSERVES = False, so the engine writes
only its options into its buffer: any card in the hand or options sections beyond what its
options grant is a card it cannot know."""
from spy import play

NAME = "spy_blind"
OBSERVES = False

zero_catch = pass_1_left = determine_colour = play
