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
    zero_catch        original Fishing: the card a zero catches (options: other cards still
                      in the trick)
    pass_1_left       original Fishing: the hand card passed to the left (options: the hand)
    determine_colour  original Fishing: the next trick's suit (options: C_BLUE, C_YELLOW,
                      C_PURPLE, C_RED, C_GREEN)

A decision the file does not define is made by the reference random strategy (a uniform
choice among the options). ``obs`` is the observation (the O_* layout in
engine/constants.py): read it through the helpers below. ``params`` is the seat's parameter
vector from the experiment file (the file's ``PARAMS`` gives the defaults and the length).
``rng`` is the seat's own random stream: use ``rand_below(rng, n)``.
A trick card that lies face down shows as FACE_DOWN; as an option it is FACE_DOWN_OPTION + i.
Functions of the strategy's own that its decisions call are decorated with ``@helper``.
"""
from numba import njit
from numba.core import errors

from .engine.constants import (  # noqa: F401  (re-exported for strategy files)
    C_BLUE, C_BOTH, C_DARK, C_GREEN, C_LIGHT, C_NONE, C_PURPLE, C_RED, C_YELLOW,
    D_CATCH_1_CARD, D_CATCH_1_OTHER, D_DETERMINE_COLOUR, D_DETERMINE_TRUMP, D_EXCHANGE_GIVE,
    D_EXCHANGE_TAKE, D_PASS_1_LEFT, D_PLAY, D_TRUMP_CHOICE, D_ZERO_CATCH, E_CATCH_1_CARD,
    E_CATCH_1_OTHER, E_DETERMINE_TRUMP, E_DRAW_1_CARD, E_EXCHANGE_1_CARD, E_NONE, E_PLUS_3,
    FACE_DOWN, FACE_DOWN_OPTION, K_BLOWFISH, K_BUOY, K_COLOUR, K_GREEN, MAX_CARDS,
    O_BOAT_N, O_CARD_COLOUR, O_CARD_EFFECT, O_CARD_KIND, O_CARD_SUIT, O_CARD_VALUE,
    O_FISHER_N, O_HAND, O_HAND_N, O_KIND, O_LEADER, O_LED, O_LOWEST_WINS, O_N_OPTIONS,
    O_N_PLAYED, O_N_ROUNDS, O_OCEAN_N, O_OPTIONS, O_PLAYED, O_PLAYED_BY, O_PLAYERS, O_POINTS,
    O_ROUND, O_RULESET, O_SEAT, O_SUBJECT, O_TRICK_CARD, O_TRICK_IN, O_TRICK_N, O_TRICK_NO,
    O_TRICK_PLAYER, O_TRUMP, RS_FISHING, RS_FISHING2, SUIT_NONE, SUIT_TRUMP,
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
    """Compile a decision function ``f(obs, params, rng) -> choice`` for the engine.

    Compiled without numba's reference counting when the function allocates no arrays
    (every call then saves two atomic counter updates on each array it touches); a
    function that does allocate is compiled with it.
    """
    try:
        return njit(DECISION_SIGNATURE, cache=True, _nrt=False)(fn)
    except errors.NumbaError:
        return njit(DECISION_SIGNATURE, cache=True)(fn)


def helper(fn_or_signature):
    """Compile a helper of decision functions: ``@helper`` or ``@helper("int64(int64[::1],
    int64)")``. Like ``numba.njit(cache=True)`` without the reference counting (no atomic
    counter updates per call, and small helpers get inlined into their callers), so it may
    not allocate arrays: use plain ``@njit`` for one that does.

    Give a helper that is called with constant arguments (``has_effect(obs, c, E_PLUS_3)``)
    a signature: numba compiles a function again for every distinct constant otherwise.
    """
    if isinstance(fn_or_signature, str):
        return njit(fn_or_signature, cache=True, _nrt=False)
    return njit(cache=True, _nrt=False)(fn_or_signature)


@helper
def rand_below(rng, n):
    """A uniform integer in [0, n) from the seat's own stream."""
    return _rand_below(rng, 0, n)


@helper
def n_options(obs):
    return obs[O_N_OPTIONS]


@helper("int64(int64[::1], int64)")
def option(obs, i):
    return obs[O_OPTIONS + i]


@helper
def random_option(obs, rng):
    return obs[O_OPTIONS + _rand_below(rng, 0, obs[O_N_OPTIONS])]


@helper
def value(obs, card):
    """A card's printed value (-1 for buoys and face-down cards)."""
    if card < 0 or card >= FACE_DOWN_OPTION:
        return -1
    return obs[O_CARD_VALUE + card]


@helper
def kind(obs, card):
    return obs[O_CARD_KIND + card]


@helper
def effect(obs, card):
    return obs[O_CARD_EFFECT + card]


@helper
def colour(obs, card):
    return obs[O_CARD_COLOUR + card]


@helper("int64(int64[::1], int64, int64)")
def suit_under(obs, card, trump):
    """The card's suit in a trick when ``trump`` is the active shade (SUIT_TRUMP for trump)."""
    if trump == C_LIGHT:
        return obs[O_CARD_SUIT + MAX_CARDS + card]
    if trump == C_DARK:
        return obs[O_CARD_SUIT + 2 * MAX_CARDS + card]
    return obs[O_CARD_SUIT + card]


@helper
def suit(obs, card):
    """The card's suit in the current trick (SUIT_TRUMP, a colour code, or SUIT_NONE)."""
    return suit_under(obs, card, obs[O_TRUMP])


@helper
def is_trump(obs, card):
    return suit(obs, card) == SUIT_TRUMP


@helper
def hand_size(obs):
    return obs[O_HAND_N]


@helper("int64(int64[::1], int64)")
def hand_card(obs, i):
    return obs[O_HAND + i]


@helper
def seat(obs):
    return obs[O_SEAT]


@helper
def players(obs):
    return obs[O_PLAYERS]


@helper("int64(int64[::1], int64)")
def points(obs, p):
    return obs[O_POINTS + p]


# ---- helpers for heuristic bots: reading the trick, judging cards -----------------------
# Everything below reads only the observation. "Power" is a generic card strength for
# trick-taking: blowfish > trump > the rest by value; buoys have none (they never win).

from .engine.constants import (  # noqa: E402
    E_CATCH_ALL_OTHERS, E_MINUS_3, E_ZERO, O_N_CARDS,
)


@helper
def trick_n(obs):
    """Cards in the current trick (a face-down exchanged card included)."""
    return obs[O_TRICK_N]


@helper("int64(int64[::1], int64)")
def trick_card(obs, i):
    """The card at trick position i (FACE_DOWN for a face-down card)."""
    return obs[O_TRICK_CARD + i]


@helper("int64(int64[::1], int64)")
def trick_player(obs, i):
    return obs[O_TRICK_PLAYER + i]


@helper
def to_play(obs):
    """While choosing a card to play: how many players play after the deciding seat."""
    return obs[O_PLAYERS] - obs[O_TRICK_N] - 1


@helper
def is_card(obs, card):
    """True for a real card id (not FACE_DOWN, not a face-down option, not a shade)."""
    return 0 <= card < obs[O_N_CARDS]


@helper
def is_buoy(obs, card):
    return is_card(obs, card) and obs[O_CARD_KIND + card] == K_BUOY


@helper
def is_blowfish(obs, card):
    return is_card(obs, card) and obs[O_CARD_KIND + card] == K_BLOWFISH


@helper
def is_green(obs, card):
    return is_card(obs, card) and obs[O_CARD_KIND + card] == K_GREEN


@helper("boolean(int64[::1], int64, int64)")
def has_effect(obs, card, eff):
    return is_card(obs, card) and obs[O_CARD_EFFECT + card] == eff


@helper("int64(int64[::1], int64, int64, int64)")
def _card_or_extra(obs, i, n, extra):
    if i == n:
        return extra
    return obs[O_TRICK_CARD + i]


@helper("int64(int64[::1], int64)")
def led_with(obs, card):
    """The led suit once ``card`` is played (card < 0: the trick as it is)."""
    led = obs[O_LED]
    if led == SUIT_NONE and card >= 0:
        led = suit(obs, card)
    return led


@helper("int64(int64[::1], int64)")
def highest_with(obs, card):
    """A6: trick index of the highest card if ``card`` were played now (it would sit at
    index O_TRICK_N); card < 0: of the trick as it is. -1 for an empty trick.
    Original Fishing (B4): the lowest under lowest-wins; -1 when nobody has played the suit
    named by determine-colour or a trump (its namer would catch)."""
    n = obs[O_TRICK_N]
    m = n + 1 if card >= 0 else n
    if m == 0:
        return -1
    trump = obs[O_TRUMP]
    led = led_with(obs, card)
    if led == SUIT_NONE:  # only buoys and blowfish: the highest blowfish, else the first buoy
        best = -1
        hv = -1
        for i in range(m):
            c = _card_or_extra(obs, i, n, card)
            if c >= 0 and obs[O_CARD_KIND + c] == K_BLOWFISH and obs[O_CARD_VALUE + c] > hv:
                hv = obs[O_CARD_VALUE + c]
                best = i
        return best if best >= 0 else 0
    # one pass: the best trump (blowfish count only when trump was led) and the best card
    # of the led suit (blowfish included); a trump in the trick makes the first win
    low = obs[O_LOWEST_WINS] != 0  # original Fishing's lowest-wins trick
    best_t, tv, best_l, lv = -1, -1, -1, -1
    for i in range(m):
        c = _card_or_extra(obs, i, n, card)
        if c < 0:
            continue
        v = obs[O_CARD_VALUE + c]
        s = suit_under(obs, c, trump)
        # the later of two 16s is higher; lowest-wins: the lowest (values are unique)
        if s == SUIT_TRUMP and (best_t < 0 or (v < tv if low else v >= tv)):
            best_t, tv = i, v
        if (s == led or obs[O_CARD_KIND + c] == K_BLOWFISH) and \
                (best_l < 0 or (v < lv if low else v >= lv)):
            best_l, lv = i, v
    if best_t >= 0 and led != SUIT_TRUMP:
        return best_t
    return best_l


@helper("int64(int64[::1], int64)")
def weakest_with(obs, card):
    """A7: trick index of the weakest card if ``card`` were played now (-1: none)."""
    n = obs[O_TRICK_N]
    m = n + 1 if card >= 0 else n
    trump = obs[O_TRUMP]
    led = led_with(obs, card)
    weakest = -1
    wv = 1 << 30
    if led == SUIT_NONE:
        for i in range(m):
            c = _card_or_extra(obs, i, n, card)
            if c >= 0 and obs[O_CARD_KIND + c] == K_BLOWFISH and obs[O_CARD_VALUE + c] < wv:
                wv = obs[O_CARD_VALUE + c]
                weakest = i
        return weakest
    for i in range(m):  # the lowest shed card, the earlier of equals
        c = _card_or_extra(obs, i, n, card)
        if c >= 0 and (obs[O_CARD_KIND + c] == K_COLOUR or obs[O_CARD_KIND + c] == K_GREEN):
            s = suit_under(obs, c, trump)
            if s != led and s != SUIT_TRUMP and obs[O_CARD_VALUE + c] < wv:
                wv = obs[O_CARD_VALUE + c]
                weakest = i
    if weakest >= 0:
        return weakest
    for i in range(m):  # else the lowest card of the led suit, blowfish included
        c = _card_or_extra(obs, i, n, card)
        if c >= 0 and (obs[O_CARD_KIND + c] == K_BLOWFISH or suit_under(obs, c, trump) == led):
            if obs[O_CARD_VALUE + c] < wv:
                wv = obs[O_CARD_VALUE + c]
                weakest = i
    if weakest >= 0:
        return weakest
    for i in range(m):  # else the lowest trump
        c = _card_or_extra(obs, i, n, card)
        if c >= 0 and suit_under(obs, c, trump) == SUIT_TRUMP and obs[O_CARD_VALUE + c] < wv:
            wv = obs[O_CARD_VALUE + c]
            weakest = i
    return weakest


@helper("boolean(int64[::1], int64)")
def wins_now(obs, card):
    """Playing ``card`` now makes it the trick's highest card (so far): the same answer as
    ``highest_with(obs, card) == trick_n(obs)``, in one pass that stops at the first card
    that beats it."""
    n = obs[O_TRICK_N]
    led = obs[O_LED]
    if card < 0 or n == 0 or led == SUIT_NONE:
        return highest_with(obs, card) == n  # leading, or only buoys/blowfish so far
    trump = obs[O_TRUMP]
    low = obs[O_LOWEST_WINS] != 0
    v = obs[O_CARD_VALUE + card]
    s = suit_under(obs, card, trump)
    if led != SUIT_TRUMP and s == SUIT_TRUMP:  # A6: it must top every trump in the trick
        for i in range(n):
            c = obs[O_TRICK_CARD + i]
            if c >= 0 and suit_under(obs, c, trump) == SUIT_TRUMP:
                if (v >= obs[O_CARD_VALUE + c]) == low:  # the later of two 16s is higher
                    return False
        return True
    if s != led and obs[O_CARD_KIND + card] != K_BLOWFISH:
        return False
    for i in range(n):  # A6: the highest of the led suit (blowfish included), no trump
        c = obs[O_TRICK_CARD + i]
        if c >= 0:
            sc = suit_under(obs, c, trump)
            if sc == SUIT_TRUMP and led != SUIT_TRUMP:
                return False
            if sc == led or obs[O_CARD_KIND + c] == K_BLOWFISH:
                if (v >= obs[O_CARD_VALUE + c]) == low:
                    return False
    return True


@helper("boolean(int64[::1], int64)")
def weakest_now(obs, card):
    """Playing ``card`` now makes it the trick's weakest card (so far)."""
    return weakest_with(obs, card) == obs[O_TRICK_N]


@helper
def blowfish_in_trick(obs):
    """Blowfish still in the current trick."""
    k = 0
    for i in range(obs[O_TRICK_N]):
        c = obs[O_TRICK_CARD + i]
        if c >= 0 and obs[O_TRICK_IN + i] != 0 and obs[O_CARD_KIND + c] == K_BLOWFISH:
            k += 1
    return k


@helper
def power(obs, card):
    """Trick-taking strength under the active trump: blowfish 41..47, the two 16s 40,
    other trump 25..39 (round 1, with no trump: every green), colour and inactive green
    cards their value (0..26), buoys and face-down cards 0."""
    if not is_card(obs, card):
        return 0
    k = obs[O_CARD_KIND + card]
    v = obs[O_CARD_VALUE + card]
    if k == K_BUOY:
        return 0
    if k == K_BLOWFISH:
        return 20 + v
    if k == K_GREEN:
        col = obs[O_CARD_COLOUR + card]
        if col == C_BOTH:
            return 40
        if col == C_GREEN or obs[O_TRUMP] == C_NONE or suit(obs, card) == SUIT_TRUMP:
            return 24 + v  # (the original Fishing's green is always trump)
    return v


@helper
def future_power(obs, card):
    """Strength of a card for later rounds, where the trump shade is not known yet:
    greens count half their trump bonus (the original Fishing's green all of it),
    blowfish and the 26s high, buoys and face-down cards 0."""
    if not is_card(obs, card):
        return 0
    k = obs[O_CARD_KIND + card]
    v = obs[O_CARD_VALUE + card]
    if k == K_BUOY:
        return 0
    if k == K_BLOWFISH:
        return 20 + v
    if k == K_GREEN:
        col = obs[O_CARD_COLOUR + card]
        if col == C_BOTH:
            return 40
        return (24 if col == C_GREEN else 12) + v
    return v


@helper("int64(int64[::1], int64, boolean)")
def _shade_total(obs, shade, values):
    """Over the hand cards that are trump when ``shade`` is active (the two 16s count for
    both): their number, or (values) the sum of their values."""
    t = 0
    for i in range(obs[O_HAND_N]):
        c = obs[O_HAND + i]
        if obs[O_CARD_KIND + c] == K_GREEN:
            col = obs[O_CARD_COLOUR + c]
            if col == shade or col == C_BOTH:
                t += obs[O_CARD_VALUE + c] if values else 1
    return t


@helper("int64(int64[::1], int64)")
def shade_cards(obs, shade):
    """Hand cards that are trump when ``shade`` is active (the two 16s count for both)."""
    return _shade_total(obs, shade, False)


@helper("int64(int64[::1], int64)")
def shade_value(obs, shade):
    """Sum of the values of the hand cards that are trump when ``shade`` is active."""
    return _shade_total(obs, shade, True)


@helper
def in_hand(obs, card):
    for i in range(obs[O_HAND_N]):
        if obs[O_HAND + i] == card:
            return True
    return False


@helper
def was_played(obs, card):
    """``card`` was played this round (the O_PLAYED list)."""
    for i in range(obs[O_N_PLAYED]):
        if obs[O_PLAYED + i] == card:
            return True
    return False


@helper("int64(int64[::1], int64, int64)")
def _unseen_above(obs, card, limit):
    """unseen_above, counting no further than ``limit``."""
    s = suit(obs, card)
    if s == SUIT_NONE:
        return 0
    v = obs[O_CARD_VALUE + card]
    trump = obs[O_TRUMP]
    k = 0
    for c in range(obs[O_N_CARDS]):
        if c != card and obs[O_CARD_KIND + c] != K_BLOWFISH and obs[O_CARD_VALUE + c] >= v:
            if suit_under(obs, c, trump) == s and not in_hand(obs, c) and not was_played(obs, c):
                k += 1
                if k >= limit:
                    return k
    return k


@helper
def unseen_above(obs, card):
    """Cards of ``card``'s suit (under the active trump) that could beat it and are
    neither in the hand nor played this round (so may be in another hand). Blowfish are
    not counted. For a 16 the other 16 counts (a later 16 beats an earlier one)."""
    return _unseen_above(obs, card, 1 << 30)


@helper
def is_boss(obs, card):
    """``card`` has a suit and no card of that suit that could beat it is unseen (see
    unseen_above); blowfish and buoys are never bosses."""
    return suit(obs, card) != SUIT_NONE and _unseen_above(obs, card, 1) == 0


@helper
def unseen_blowfish(obs):
    """Blowfish neither in the hand nor played this round."""
    k = 0
    for c in range(obs[O_N_CARDS]):
        if obs[O_CARD_KIND + c] == K_BLOWFISH and not in_hand(obs, c) and not was_played(obs, c):
            k += 1
    return k


@helper
def leader_gap(obs):
    """The best other player's points minus the deciding seat's (>0: behind)."""
    me = obs[O_SEAT]
    best = -(1 << 40)
    for p in range(obs[O_PLAYERS]):
        if p != me and obs[O_POINTS + p] > best:
            best = obs[O_POINTS + p]
    return best - obs[O_POINTS + me]


# ---- ready-made bodies for the simple decisions ------------------------------------------


@helper("int64(int64[::1], boolean)")
def strongest_option(obs, future):
    """The option with the highest ``power`` (future: ``future_power``, for a card that
    goes to the fisher and so to the next rounds); never a minus-3 buoy (original Fishing)
    while there is another option. Ties: the first."""
    best, best_p = obs[O_OPTIONS], -(1 << 30)
    for i in range(obs[O_N_OPTIONS]):
        c = obs[O_OPTIONS + i]
        p = future_power(obs, c) if future else power(obs, c)
        if has_effect(obs, c, E_MINUS_3):
            p = -1000
        if p > best_p:
            best, best_p = c, p
    return best


@helper
def weakest_option(obs):
    """The option with the lowest ``power``, keeping the +3-points buoy (3 points when
    played) while there is another option. Ties: the first."""
    best, best_p = obs[O_OPTIONS], 1 << 30
    for i in range(obs[O_N_OPTIONS]):
        c = obs[O_OPTIONS + i]
        p = 1000 if has_effect(obs, c, E_PLUS_3) else power(obs, c)
        if p < best_p:
            best, best_p = c, p
    return best


@helper("int64(int64[::1], int64)")
def richer_shade(obs, per_card):
    """LIGHT or DARK: the shade whose trump cards in hand score more, scoring
    ``per_card`` per card plus the sum of their values (ties: LIGHT)."""
    light = per_card * shade_cards(obs, C_LIGHT) + shade_value(obs, C_LIGHT)
    dark = per_card * shade_cards(obs, C_DARK) + shade_value(obs, C_DARK)
    return C_LIGHT if light >= dark else C_DARK


@helper
def keep_value(obs, card):
    """Original Fishing: what a card is worth to its holder, in hand now or on the boat for
    the next rounds. Colour cards their value (1..18); green (always trump) 24 + value;
    a zero catches a card when played: a colour zero 18, the green zero 30; catch-all-others
    catches the whole trick: 40; play-first, determine-colour, lowest-wins and pass-1-left
    steer a trick: 15; a minus-3 buoy is only worth giving away in a trick someone else
    catches: 8. Face-down cards and ids that are no card: 0."""
    if not is_card(obs, card):
        return 0
    k = obs[O_CARD_KIND + card]
    e = obs[O_CARD_EFFECT + card]
    v = obs[O_CARD_VALUE + card]
    if k == K_BUOY:
        if e == E_CATCH_ALL_OTHERS:
            return 40
        if e == E_MINUS_3:
            return 8
        return 15
    green = k == K_GREEN
    if e == E_ZERO:
        return 30 if green else 18
    return 24 + v if green else v


@helper
def best_catch_option(obs):
    """zero-catch (original Fishing): the option most worth keeping (keep_value), never a
    minus-3 buoy (it costs 3 points at once) while there is another option. Ties: the first."""
    best, best_v = obs[O_OPTIONS], -(1 << 30)
    for i in range(obs[O_N_OPTIONS]):
        c = obs[O_OPTIONS + i]
        v = -1000 if has_effect(obs, c, E_MINUS_3) else keep_value(obs, c)
        if v > best_v:
            best, best_v = c, v
    return best


@helper
def least_kept_option(obs):
    """pass-1-left (original Fishing): the hand card least worth keeping (keep_value): a
    low plain card rather than a zero, a buoy or a trump. Ties: the first."""
    best, best_v = obs[O_OPTIONS], 1 << 30
    for i in range(obs[O_N_OPTIONS]):
        c = obs[O_OPTIONS + i]
        v = keep_value(obs, c)
        if v < best_v:
            best, best_v = c, v
    return best


@helper("int64(int64[::1], int64)")
def richest_suit(obs, high):
    """determine-colour (original Fishing): the option suit of which the hand holds the
    most cards of value >= ``high``, then the largest sum of values (ties: the first)."""
    best, best_s = obs[O_OPTIONS], -1
    for i in range(obs[O_N_OPTIONS]):
        s = obs[O_OPTIONS + i]
        score = 0
        for j in range(obs[O_HAND_N]):
            c = obs[O_HAND + j]
            if obs[O_CARD_KIND + c] != K_BUOY and obs[O_CARD_COLOUR + c] == s:
                v = obs[O_CARD_VALUE + c]
                score += v + (1000 if v >= high else 0)
        if score > best_s:
            best, best_s = s, score
    return best


# ---- ready-made decisions the bots share (assign them: ``catch_1_card = give_weakest``) --

@decision
def shade_held_more(obs, params, rng):
    """trump_choice / determine_trump: the shade held in more cards (then higher values)."""
    return richer_shade(obs, 100)


@decision
def take_strongest(obs, params, rng):
    """catch_1_other: the strongest other card in the trick, for later rounds."""
    return strongest_option(obs, True)


@decision
def take_strongest_now(obs, params, rng):
    """exchange_take: the strongest other card in the trick, to play this round."""
    return strongest_option(obs, False)


@decision
def give_weakest(obs, params, rng):
    """exchange_give / catch_1_card: the weakest card."""
    return weakest_option(obs)


@decision
def catch_most_valuable(obs, params, rng):
    """zero_catch (Fishing): the card most worth keeping, a minus-3 only if nothing else."""
    return best_catch_option(obs)


@decision
def pass_least_kept(obs, params, rng):
    """pass_1_left (Fishing): the card least worth keeping."""
    return least_kept_option(obs)


@decision
def name_richest_suit(obs, params, rng):
    """determine_colour (Fishing): the suit held with the most high cards."""
    return richest_suit(obs, 10)
