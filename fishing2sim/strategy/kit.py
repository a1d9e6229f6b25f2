"""What a strategy file imports: the decision decorator and helpers to read an observation.

A strategy is one Python file with ``NAME`` and one function per decision it makes
(docs/rules.md C), each decorated with ``@decision`` so it takes ``(obs, params, rng)`` and
returns one of the options:

    play              which card to play (options: the legal cards)
    trump_choice      the leader's shade at the start of rounds 2.. (options: LIGHT, DARK)
    determine_trump   the shade for the next trick (options: LIGHT, DARK)
    catch_1_other     the card to catch from the trick (options: other cards still in it)
    exchange_take     the trick card to take into hand (options: as catch_1_other)
    exchange_give     the hand card to put face down (options: the hand, taken card included)
    catch_1_card      the hand card to move to the fisher (options: the hand)
    zero_catch        original Fishing: the card a zero catches (options: other cards still
                      in the trick)
    pass_1_left       original Fishing: the hand card passed to the left (options: the hand)
    determine_colour  original Fishing: the next trick's suit (options: BLUE, YELLOW,
                      PURPLE, RED, GREEN)

A decision the file does not define is made by the reference random strategy (a uniform
choice among the options). ``obs`` is the observation (the O_* layout in
engine/constants.py): read it through the helpers below. ``params`` is the seat's parameter
vector from the experiment file (the file's ``PARAMS`` gives the defaults and the length).
``rng`` is the seat's own random stream: use ``rand_below(rng, n)``.

Options are action ids of one space, so an option never means two things: a card option is
the card's id (0 .. MAX_CARDS-1); a face-down trick card is OPT_FACE_DOWN + its trick
position (in the trick it shows as FACE_DOWN); the shades are LIGHT and DARK (OPT_LIGHT,
OPT_DARK); the suits BLUE, YELLOW, PURPLE, RED, GREEN (OPT_*). These are not the codes the
observation uses for a trump or a colour (C_LIGHT, C_BLUE, ... in O_TRUMP, a card's colour):
``option_card``, ``option_shade``, ``option_suit``, ``option_trick_index`` read an option,
``shade_option`` / ``suit_option`` make one. Functions of the strategy's own that its
decisions call are decorated with ``@helper``.

Every accessor here is bounds-safe: a card id, index or count out of range reads nothing
and gives -1 (or 0 / False), so a strategy that reads through the kit cannot read past its
observation.
"""
from fishing2sim.strategy.observation import *  # noqa: F401,F403
from fishing2sim.strategy.heuristics import *  # noqa: F401,F403
