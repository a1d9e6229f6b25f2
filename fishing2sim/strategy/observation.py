"""Bounds-safe readers of the observation a strategy receives (the O_* layout in
engine/constants.py): its options, the cards and their table, the hand, the seats and their
points. Re-exported by kit.py, the module a strategy file imports."""
from fishing2sim.engine.constants import (  # noqa: F401  (re-exported for strategy files)
    C_BLUE, C_BOTH, C_DARK, C_GREEN, C_LIGHT, C_NONE, C_PURPLE, C_RED, C_YELLOW,
    D_CATCH_1_CARD, D_CATCH_1_OTHER, D_DETERMINE_COLOUR, D_DETERMINE_TRUMP, D_EXCHANGE_GIVE,
    D_EXCHANGE_TAKE, D_PASS_1_LEFT, D_PLAY, D_TRUMP_CHOICE, D_ZERO_CATCH, E_CATCH_1_CARD,
    E_CATCH_1_OTHER, E_DETERMINE_TRUMP, E_DRAW_1_CARD, E_EXCHANGE_1_CARD, E_NONE, E_PLUS_3,
    FACE_DOWN, FACE_DOWN_OPTION, K_BLOWFISH, K_BUOY, K_COLOUR, K_GREEN, MAX_CARDS,
    O_BOAT_N, O_CARD_COLOUR, O_CARD_EFFECT, O_CARD_KIND, O_CARD_SUIT, O_CARD_VALUE,
    O_FISHER_N, O_HAND, O_HAND_N, O_KIND, O_LEADER, O_LED, O_LOWEST_WINS, O_N_CARDS, O_N_OPTIONS,
    O_N_PLAYED, O_N_ROUNDS, O_OCEAN_N, O_OPTIONS, O_PLAYED, O_PLAYED_BY, O_PLAYERS, O_POINTS,
    O_ROUND, O_RULESET, O_SEAT, O_SUBJECT, O_TRICK_CARD, O_TRICK_IN, O_TRICK_N, O_TRICK_NO,
    O_TRICK_PLAYER, O_TRUMP, OPT_BLUE, OPT_DARK, OPT_END, OPT_FACE_DOWN, OPT_GREEN,
    OPT_LIGHT, OPT_PURPLE, OPT_RED, OPT_SHADE, OPT_SUIT, OPT_YELLOW, RS_FISHING, RS_FISHING2,
    SUIT_NONE, SUIT_TRUMP, MAX_HAND, MAX_PLAYERS, MAX_TRICK, HELD_BOAT, HELD_MAYBE, HELD_SURE,
    HOLDER_OCEAN, HOLDER_OUT, HOLDER_UNKNOWN, O_HOLDER,
)
from fishing2sim.engine.rng import rand_below as _rand_below
from fishing2sim.strategy.contract import (  # noqa: F401  (re-exported for strategy files)
    DECISION_ARGS, DECISION_FUNCTIONS, DECISION_SIGNATURE, ContractError, decision, helper,
)

# the options of trump_choice / determine_trump and of determine_colour
LIGHT = OPT_LIGHT
DARK = OPT_DARK
BLUE = OPT_BLUE
YELLOW = OPT_YELLOW
PURPLE = OPT_PURPLE
RED = OPT_RED
GREEN = OPT_GREEN


@helper
def rand_below(rng, n):
    """A uniform integer in [0, n) from the seat's own stream."""
    return _rand_below(rng, 0, n)


# ---- bounds-safe primitives: every read of the observation below goes through these ----

@helper("int64(int64[::1], int64, int64)")
def _count(obs, at, cap):
    """The count at obs[at], clamped to 0 .. cap (a buffer a strategy wrote over cannot
    make a loop read past its region)."""
    n = obs[at]
    if n < 0:
        return 0
    return n if n < cap else cap


@helper("int64(int64[::1], int64, int64)")
def _card_field(obs, base, card):
    """obs[base + card] for a card id 0 .. MAX_CARDS-1, else -1."""
    if 0 <= card < MAX_CARDS:
        return obs[base + card]
    return -1


@helper("int64(int64[::1], int64, int64, int64)")
def _slot(obs, base, i, cap):
    """obs[base + i] for 0 <= i < cap, else -1."""
    if 0 <= i < cap:
        return obs[base + i]
    return -1


@helper
def n_options(obs):
    return _count(obs, O_N_OPTIONS, MAX_HAND)


@helper("int64(int64[::1], int64)")
def option(obs, i):
    """Option i (0 <= i < n_options), else -1."""
    return _slot(obs, O_OPTIONS, i, MAX_HAND)


@helper
def random_option(obs, rng):
    return obs[O_OPTIONS + _rand_below(rng, 0, n_options(obs))]


# ---- options: one action-id space (see the module doc) ----------------------------------

@helper
def option_card(o):
    """The card id an option stands for (a card in hand or face up in the trick), else -1."""
    return o if 0 <= o < MAX_CARDS else -1


@helper
def option_trick_index(o):
    """The trick position of a face-down card option (OPT_FACE_DOWN + i), else -1."""
    return o - OPT_FACE_DOWN if OPT_FACE_DOWN <= o < OPT_FACE_DOWN + MAX_TRICK else -1


@helper
def option_shade(o):
    """C_LIGHT / C_DARK for the option LIGHT / DARK, else -1."""
    return o - OPT_SHADE if o == OPT_LIGHT or o == OPT_DARK else -1


@helper
def option_suit(o):
    """The colour code (C_BLUE, ...) of a determine-colour option (BLUE, ...), else -1."""
    return o - OPT_SUIT if OPT_SUIT <= o < OPT_END else -1


@helper
def shade_option(shade):
    """The option (LIGHT / DARK) for a shade code C_LIGHT / C_DARK."""
    return OPT_SHADE + shade


@helper
def suit_option(c):
    """The determine-colour option for a colour code (C_BLUE -> BLUE, ...)."""
    return OPT_SUIT + c


@helper
def _shade_code(shade):
    """A shade given as a code (C_LIGHT) or as an option (LIGHT): its code."""
    return shade - OPT_SHADE if shade >= OPT_SHADE else shade


# ---- cards and the table ---------------------------------------------------------------

@helper
def value(obs, card):
    """A card's printed value (-1 for buoys, face-down cards and ids that are no card)."""
    return _card_field(obs, O_CARD_VALUE, card)


@helper
def kind(obs, card):
    return _card_field(obs, O_CARD_KIND, card)


@helper
def effect(obs, card):
    return _card_field(obs, O_CARD_EFFECT, card)


@helper
def colour(obs, card):
    return _card_field(obs, O_CARD_COLOUR, card)


@helper("int64(int64[::1], int64)")
def _suit_base(obs, trump):
    """Where the suit column under the active shade ``trump`` starts."""
    trump = _shade_code(trump)
    if trump == C_LIGHT:
        return O_CARD_SUIT + MAX_CARDS
    if trump == C_DARK:
        return O_CARD_SUIT + 2 * MAX_CARDS
    return O_CARD_SUIT


@helper("int64(int64[::1], int64, int64)")
def suit_under(obs, card, trump):
    """The card's suit in a trick when ``trump`` is the active shade (SUIT_TRUMP for trump;
    SUIT_NONE for buoys, blowfish and ids that are no card)."""
    if 0 <= card < MAX_CARDS:
        return obs[_suit_base(obs, trump) + card]
    return SUIT_NONE


@helper
def suit(obs, card):
    """The card's suit in the current trick (SUIT_TRUMP, a colour code, or SUIT_NONE)."""
    return suit_under(obs, card, obs[O_TRUMP])


@helper
def is_trump(obs, card):
    return suit(obs, card) == SUIT_TRUMP


@helper
def hand_size(obs):
    return _count(obs, O_HAND_N, MAX_HAND)


@helper("int64(int64[::1], int64)")
def hand_card(obs, i):
    return _slot(obs, O_HAND, i, MAX_HAND)


@helper
def trick_n(obs):
    """Cards in the current trick (a face-down exchanged card included)."""
    return _count(obs, O_TRICK_N, MAX_TRICK)


@helper("int64(int64[::1], int64)")
def trick_card(obs, i):
    """The card at trick position i (FACE_DOWN for a face-down card)."""
    return _slot(obs, O_TRICK_CARD, i, MAX_TRICK)


@helper("int64(int64[::1], int64)")
def trick_player(obs, i):
    return _slot(obs, O_TRICK_PLAYER, i, MAX_TRICK)


@helper
def n_cards(obs):
    return _count(obs, O_N_CARDS, MAX_CARDS)


@helper
def seat(obs):
    return obs[O_SEAT]


@helper
def players(obs):
    return _count(obs, O_PLAYERS, MAX_PLAYERS)


@helper("int64(int64[::1], int64)")
def points(obs, p):
    return _slot(obs, O_POINTS, p, MAX_PLAYERS)



