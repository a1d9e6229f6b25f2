"""legal_checker: a test bot that checks, at every decision it is asked, that its options
are exactly the legal set its own view implies, and answers with an illegal choice (which
stops the game with an error) when they are not.

play (A5): the hand cards of the led suit plus blowfish and buoys when it holds a card of
the led suit, else the whole hand; never empty. exchange-give, catch-1-card, pass-1-left:
the whole hand. trump choice and determine-trump: LIGHT and DARK. determine-colour: the five
suits. catch-1-other, exchange-take, zero-catch: the other cards still in the trick (a
face-down one as its option), at least one.
"""
from fishing2sim.strategy.kit import (
    D_CATCH_1_CARD, D_DETERMINE_COLOUR, D_DETERMINE_TRUMP, D_EXCHANGE_GIVE, D_PASS_1_LEFT,
    D_PLAY, D_TRUMP_CHOICE, DARK, K_BLOWFISH, K_BUOY, LIGHT, O_KIND, O_LED, O_SUBJECT,
    O_TRICK_IN, SUIT_NONE, decision, hand_card, hand_size, helper, kind, n_options,
    option, option_suit, option_trick_index, random_option, suit, trick_card, trick_n,
)

NAME = "legal_checker"


@helper
def is_option(obs, o):
    for i in range(n_options(obs)):
        if option(obs, i) == o:
            return True
    return False


@helper
def expected_count(obs):
    """How many options the decision must have, or -1 if an option is not legal."""
    k = obs[O_KIND]
    n = hand_size(obs)
    if k == D_PLAY:
        led = obs[O_LED]
        has = False
        for i in range(n):
            if led != SUIT_NONE and suit(obs, hand_card(obs, i)) == led:
                has = True
        m = 0
        for i in range(n):
            c = hand_card(obs, i)
            legal = not has or suit(obs, c) == led or kind(obs, c) == K_BLOWFISH or \
                kind(obs, c) == K_BUOY
            if legal:
                m += 1
                if not is_option(obs, c):
                    return -1
        return m
    if k == D_EXCHANGE_GIVE or k == D_CATCH_1_CARD or k == D_PASS_1_LEFT:
        for i in range(n):
            if not is_option(obs, hand_card(obs, i)):
                return -1
        return n
    if k == D_TRUMP_CHOICE or k == D_DETERMINE_TRUMP:
        return 2 if is_option(obs, LIGHT) and is_option(obs, DARK) else -1
    if k == D_DETERMINE_COLOUR:
        for i in range(n_options(obs)):
            if option_suit(option(obs, i)) < 0:
                return -1
        return 5
    # a card taken from the trick: the other cards still in it
    m = 0
    for i in range(trick_n(obs)):
        c = trick_card(obs, i)
        if obs[O_TRICK_IN + i] != 0 and c != obs[O_SUBJECT]:
            m += 1
    for i in range(n_options(obs)):
        o = option(obs, i)
        j = option_trick_index(o)
        if j < 0:
            found = False
            for t in range(trick_n(obs)):
                if trick_card(obs, t) == o and obs[O_TRICK_IN + t] != 0:
                    found = True
            if not found:
                return -1
    return m


@decision
def play(obs, params, rng):
    m = expected_count(obs)
    if m < 2 or m != n_options(obs):  # a decision with one option is never asked
        return -99
    return random_option(obs, rng)


trump_choice = determine_trump = catch_1_other = exchange_take = exchange_give = play
catch_1_card = zero_catch = pass_1_left = determine_colour = play
