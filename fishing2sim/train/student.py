"""The student's decisions' former place, kept for the student files that training runs of
earlier versions wrote (``from fishing2sim.train.student import ...``): they live in
fishing2sim/student/decisions.py."""
from fishing2sim.student.decisions import (  # noqa: F401
    DECISIONS, catch_1_card, catch_1_other, choose, determine_colour, determine_trump,
    exchange_give, exchange_take, pass_1_left, play, trump_choice, zero_catch,
)
