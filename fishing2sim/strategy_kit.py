"""What a strategy file imports: the decision decorator and helpers to read an observation.

A strategy is one Python file with ``NAME`` and one function per decision it makes
(RULES.md C), each decorated with ``@decision`` so it takes ``(obs, params, rng)`` and
returns one of the options:

    play              which card to play (options: the legal cards)
    trump_choice      the leader's shade at the start of rounds 2.. (options: LIGHT, DARK)
    determine_trump   the shade for the next trick (options: LIGHT, DARK)
    catch_1_other     the card to catch from the trick (options: other cards still in it)
    exchange_take     the trick card to take into hand (options: as catch_1_other)
    exchange_give     the hand card to put face down (options: the hand, taken card included)
    catch_1_card      the hand card to move to the fisher (options: the hand)
    zero_catch, pass_1_left, determine_colour   the original Fishing's decisions

A decision the file does not define is made by the reference random strategy (a uniform
choice among the options). ``obs`` is the observation (the O_* layout in
engine/constants.py): read it through the helpers below. ``params`` is the seat's parameter
vector from the experiment file (the file's ``PARAMS`` gives the defaults and the length).
``rng`` is the seat's own random stream: use ``rand_below(rng, n)``.
A trick card that lies face down shows as FACE_DOWN; as an option it is FACE_DOWN_OPTION + i.
"""
from numba import njit

from .engine.constants import (  # noqa: F401  (re-exported for strategy files)
    C_BLUE, C_BOTH, C_DARK, C_GREEN, C_LIGHT, C_NONE, C_PURPLE, C_RED, C_YELLOW,
    D_CATCH_1_CARD, D_CATCH_1_OTHER, D_DETERMINE_COLOUR, D_DETERMINE_TRUMP, D_EXCHANGE_GIVE,
    D_EXCHANGE_TAKE, D_PASS_1_LEFT, D_PLAY, D_TRUMP_CHOICE, D_ZERO_CATCH, E_CATCH_1_CARD,
    E_CATCH_1_OTHER, E_DETERMINE_TRUMP, E_DRAW_1_CARD, E_EXCHANGE_1_CARD, E_NONE, E_PLUS_3,
    FACE_DOWN, FACE_DOWN_OPTION, K_BLOWFISH, K_BUOY, K_COLOUR, K_GREEN, MAX_CARDS,
    O_BOAT_N, O_CARD_COLOUR, O_CARD_EFFECT, O_CARD_KIND, O_CARD_SUIT, O_CARD_VALUE,
    O_FISHER_N, O_HAND, O_HAND_N, O_KIND, O_LEADER, O_LED, O_N_OPTIONS, O_N_PLAYED,
    O_N_ROUNDS, O_OCEAN_N, O_OPTIONS, O_PLAYED, O_PLAYED_BY, O_PLAYERS, O_POINTS, O_ROUND,
    O_RULESET, O_SEAT, O_SUBJECT, O_TRICK_CARD, O_TRICK_IN, O_TRICK_N, O_TRICK_NO,
    O_TRICK_PLAYER, O_TRUMP, SUIT_NONE, SUIT_TRUMP,
)
from .engine.rng import rand_below as _rand_below

DECISION_SIGNATURE = "int64(int64[::1], float64[::1], uint64[::1])"
# the function name a strategy file uses for each decision, indexed by the D_* code
DECISION_FUNCTIONS = (
    "play", "trump_choice", "determine_trump", "catch_1_other", "exchange_take",
    "exchange_give", "catch_1_card", "zero_catch", "pass_1_left", "determine_colour",
)
LIGHT = C_LIGHT
DARK = C_DARK


def decision(fn):
    """Compile a decision function ``f(obs, params, rng) -> choice`` for the engine."""
    return njit(DECISION_SIGNATURE, cache=True)(fn)


@njit(cache=True)
def rand_below(rng, n):
    """A uniform integer in [0, n) from the seat's own stream."""
    return _rand_below(rng, 0, n)


@njit(cache=True)
def n_options(obs):
    return obs[O_N_OPTIONS]


@njit(cache=True)
def option(obs, i):
    return obs[O_OPTIONS + i]


@njit(cache=True)
def random_option(obs, rng):
    return obs[O_OPTIONS + _rand_below(rng, 0, obs[O_N_OPTIONS])]


@njit(cache=True)
def value(obs, card):
    """A card's printed value (-1 for buoys and face-down cards)."""
    if card < 0 or card >= FACE_DOWN_OPTION:
        return -1
    return obs[O_CARD_VALUE + card]


@njit(cache=True)
def kind(obs, card):
    return obs[O_CARD_KIND + card]


@njit(cache=True)
def effect(obs, card):
    return obs[O_CARD_EFFECT + card]


@njit(cache=True)
def colour(obs, card):
    return obs[O_CARD_COLOUR + card]


@njit(cache=True)
def suit_under(obs, card, trump):
    """The card's suit in a trick when ``trump`` is the active shade (SUIT_TRUMP for trump)."""
    if trump == C_LIGHT:
        return obs[O_CARD_SUIT + MAX_CARDS + card]
    if trump == C_DARK:
        return obs[O_CARD_SUIT + 2 * MAX_CARDS + card]
    return obs[O_CARD_SUIT + card]


@njit(cache=True)
def suit(obs, card):
    """The card's suit in the current trick (SUIT_TRUMP, a colour code, or SUIT_NONE)."""
    return suit_under(obs, card, obs[O_TRUMP])


@njit(cache=True)
def is_trump(obs, card):
    return suit(obs, card) == SUIT_TRUMP


@njit(cache=True)
def hand_size(obs):
    return obs[O_HAND_N]


@njit(cache=True)
def hand_card(obs, i):
    return obs[O_HAND + i]


@njit(cache=True)
def seat(obs):
    return obs[O_SEAT]


@njit(cache=True)
def players(obs):
    return obs[O_PLAYERS]


@njit(cache=True)
def points(obs, p):
    return obs[O_POINTS + p]
