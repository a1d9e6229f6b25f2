"""The rules as numba kernels: Fishing 2 (docs/rules.md part A) and the original Fishing
(part B); decisions per part C.

Where the rules come from: docs/rules.md restates the rulebooks, settles their open points
and lists the readings this project adds. Each branch below carries the rule it encodes as
a short comment ("A5: ...", "B3: ...").

The two rulesets share the state layout, the deal, the rounds (A10: draws, leader, scoring)
and the trick's play (A5: legal cards, led suit). Where they differ, the kernels read the
state: st[S_RULESET] (set at setup) picks the end of a trick (finish_trick: A8 or B3/B4) and
whether rounds open with a trump choice; the per-card suit table A_SUIT makes the original
Fishing's green trump under every setting; S_LOWEST_WINS, S_NAMED_SUIT and S_NAMER carry
the original Fishing's next-trick effects (B4) into the next trick.

Everything here works on a state array ``st`` (layout in state.py), the RNG array ``rng``,
the immutable deck array ``deck`` [n_cards, N_FIELDS], an observation buffer ``obs``, an
event buffer ``ev`` (written only when st[S_LOG] is 1), the lineup ``strats`` (a tuple of
MAX_PLAYERS decision functions of one signature, see strategy.py) and ``params``
[MAX_PLAYERS, width]: a row per seat, its parameter vector and, in the last column, that
vector's length (seat_params; strategy.lineup.build_lineup writes it). No Python object is
touched inside a game.
"""
import numpy as np
from numba import njit

from fishing2sim.engine.constants import (
    C_BLUE, C_BOTH, C_DARK, C_GREEN, C_LIGHT, C_NONE, C_PURPLE, C_RED, C_YELLOW,
    D_CATCH_1_CARD, D_CATCH_1_OTHER, D_DETERMINE_COLOUR, D_DETERMINE_TRUMP,
    D_EXCHANGE_GIVE, D_EXCHANGE_TAKE, D_PASS_1_LEFT, D_PLAY, D_TRUMP_CHOICE, D_ZERO_CATCH,
    E_CATCH_1_CARD, E_CATCH_1_OTHER, E_CATCH_ALL_OTHERS, E_DETERMINE_COLOUR,
    E_DETERMINE_TRUMP, E_DRAW_1_CARD, E_EXCHANGE_1_CARD, E_LOWEST_WINS, E_MINUS_3, E_NONE,
    E_PASS_1_LEFT, E_PLAY_FIRST, E_PLUS_3, E_ZERO, EV_CATCH_ALL_OTHERS,
    EV_DETERMINE_COLOUR, EV_LOWEST_WINS, EV_PASS_1_LEFT, EV_PLAY_FIRST, EV_ZERO_CATCH,
    O_LOWEST_WINS, RS_FISHING, TS_COLOUR_SHIFT, TS_LOWEST, TS_NAMER_SHIFT,
    END_COMPLETED, END_ERROR, END_OVERFISHED, END_PAUSED, END_RUNNING, EV_BOAT, EV_BONUS,
    EV_CATCH_1_CARD, EV_CATCH_1_OTHER, EV_CAUGHT, EV_DEAL, EV_DETERMINE_TRUMP, EV_DRAW,
    EV_DRAW_1_CARD, EV_EXCHANGE, EV_GAME_END, EV_LEADER, EV_OCEAN, EV_OVERFISHED, EV_PLAY,
    EV_ROUND_SCORE, EV_ROUND_START, EV_SETUP, EV_TRICK_RESULT, EV_TRICK_START, EV_TRUMP,
    EV_TRUMP_CHOICE, F_COLOUR, F_EFFECT, F_KIND, F_MIN_PLAYERS, F_TIER, F_VALUE, FACE_DOWN,
    F_STD, F_STD_N, F_STD_TABLE, N_FIELDS,
    K_BLOWFISH, K_BUOY, K_COLOUR, K_GREEN, MAX_CARDS, MAX_HAND,
    MAX_PLAYERS, MAX_TRICK, O_BOAT_N, O_FISHER_N, O_HAND, O_HAND_N, O_KIND, O_LEADER, O_LED,
    O_HOLDER, O_PUB_STAMP, HELD_BOAT, HOLDER_OCEAN, HOLDER_OUT, HOLDER_UNKNOWN, HELD_MAYBE, HELD_SURE, O_N_OPTIONS, O_N_PLAYED, O_N_ROUNDS, O_OCEAN_N, O_OPTIONS, O_PLAYED, O_PLAYED_BY,
    O_PLAYERS, O_POINTS, O_N_CARDS, O_CARD_KIND, O_CARD_COLOUR, O_CARD_VALUE,
    O_CARD_EFFECT, O_CARD_SUIT, O_ROUND, O_RULESET, O_SEAT, O_SUBJECT, O_TRICK_CARD, O_TRICK_IN,
    O_TRICK_N, O_TRICK_NO, O_TRICK_PLAYER, O_TRUMP, OPT_BLUE, OPT_DARK, OPT_FACE_DOWN,
    OPT_GREEN, OPT_LIGHT, OPT_PURPLE, OPT_RED, OPT_SHADE, OPT_SUIT, OPT_YELLOW, SUIT_NONE,
    STOP_AT_ROUND_END, STOP_AT_TRUMP, SUIT_TRUMP,
)
from fishing2sim.engine.judge import highest_index, weakest_index
from fishing2sim.engine.rng import GOLDEN, mix64, rand_below, scaled_below, seed_streams
from fishing2sim.engine.sigs import (  # explicit signatures: see sigs.py
    DECISION, DECK, EV, HAND_SIZES, OBS, PARAMS, RNG, ST, STRATS, b1, i64, types, void,
)
from fishing2sim.engine.state import (
    A_KIND, A_COLOUR, A_VALUE, A_EFFECT, A_SCRATCH, A_SUIT, S_SUIT_BASE, S_OBSERVE_MASK,
    DECK_BLOCK_END, S_DECK_SET, A_OPT_AT, A_DRAWN_BY, A_CAUGHT_BY,
    A_BOAT, A_BOAT_HEAD, A_BOAT_N, A_BONUS, A_FISHER, A_FISHER_N, A_HAND, A_HAND_N,
    A_HAND_SIZES, A_LAST_ORDER, A_OCEAN, A_PLAYED, A_PLAYED_BY, A_POINTS, A_SCORED,
    A_TRICK_CARD, A_TRICK_FD, A_TRICK_IN, A_TRICK_PLAYER, PH_OVER, PH_ROUND_START,
    PH_TRICKS, PH_TRUMP, R_CHOOSER, R_OCEAN, R_OCEAN_END, R_POINTS, R_TRUMP, S_CHECK,
    S_DET_TRUMP, S_LOWEST_WINS, S_NAMED_SUIT, S_NAMER, S_END, S_END_ROUND, S_ERR_CHOICE,
    S_ERR_CODE, S_ERR_KIND, S_ERR_SEAT,
    S_EVN, S_FIRST_LEADER, S_FORCED, S_IN_TRICK, S_SEARCH_MASK, S_FIN_ON, S_FIN_B,
    S_FIN_K, S_FIN_TAKEN, S_FIN_LEADER, S_FIN_LOW, S_FIN_NAMED, S_FIN_NAMER, S_LEADER, S_LED, S_LOG, S_N_CARDS, S_N_PLAYS, S_N_ROUNDS,
    S_N_TRICKS, A_OBS_PLAYED, A_OPTIONS, S_ASK_KIND, S_ASK_SEAT, S_N_OPTIONS, S_OCEAN_LEN,
    S_OCEAN_TOP, S_PHASE, S_PLAYED_N, S_PLAYERS,
    S_PLAYS_N, S_ROUND, S_RULESET, S_TRICK_N, S_TRICK_NO, S_TRUMP,
    A_DEC_NEXT, A_DEC_RATE, S_DEC_N, S_DEC_ON, S_DEC_SEED, S_DEC_SUBJECT,
    A_FD_CARD, A_PUB, A_TIER_LO, A_PUB_DOUBT, A_PUB_HI, A_PUB_LO, A_PUSHED, S_PUB_STAMP,
)

# error codes (st[S_ERR_CODE])
ERR_ILLEGAL_CHOICE = 1
ERR_EVENT_OVERFLOW = 2
ERR_INVARIANT = 3
ERR_SETUP = 4
# a search seat's view admits no world (engine/search.py): a bug, never the user's
ERR_NO_WORLD = 10
# a search seat's rollout strategy made an illegal choice in one of the search's worlds
# (S_ERR_SEAT: the search seat, whose rollout strategy plays every seat of those worlds)
ERR_ROLLOUT_ILLEGAL = 11

# ------------------------------------------------------------------------------------
# event log


@njit(void(ST, EV, i64, i64, i64, i64, i64, i64), cache=True, _nrt=False)
def log_event(st, ev, code, a, b, c, d, e):
    if st[S_LOG] == 0:
        return
    i = st[S_EVN]
    if i >= ev.shape[0]:
        st[S_ERR_CODE] = ERR_EVENT_OVERFLOW
        return
    ev[i, 0] = code
    ev[i, 1] = a
    ev[i, 2] = b
    ev[i, 3] = c
    ev[i, 4] = d
    ev[i, 5] = e
    st[S_EVN] = i + 1


# ------------------------------------------------------------------------------------
# cards and suits


@njit(i64(DECK, i64, i64, i64), cache=True)
def card_suit(deck, card, trump, ruleset):
    """A4: the suit a card belongs to in a trick, given the active shade (B2: in the
    original Fishing green is always trump)."""
    kind = deck[card, F_KIND]
    if kind == K_COLOUR:
        return deck[card, F_COLOUR]
    if kind == K_GREEN:
        if ruleset == RS_FISHING:
            return SUIT_TRUMP  # B2: green is always trump (no shades)
        c = deck[card, F_COLOUR]
        # A4 ruling: the two 16s carry both shades, so they are always trump.
        if c == C_BOTH or c == trump:
            return SUIT_TRUMP
        return c  # the inactive shade counts as a fourth colour
    return SUIT_NONE  # A4: blowfish and buoys belong to no suit by themselves


@njit(void(ST, i64), cache=True, _nrt=False)
def set_trump(st, shade):
    """Make ``shade`` the active trump; the suit table follows it."""
    st[S_TRUMP] = shade
    if shade == C_LIGHT:
        st[S_SUIT_BASE] = A_SUIT + MAX_CARDS
    elif shade == C_DARK:
        st[S_SUIT_BASE] = A_SUIT + 2 * MAX_CARDS
    else:
        st[S_SUIT_BASE] = A_SUIT


@njit(cache=True, _nrt=False)
def other_shade(shade):
    return C_DARK if shade == C_LIGHT else C_LIGHT


@njit(cache=True, _nrt=False)
def first_trump(st):
    """The trump at the start of round 1: none (A4), or the original Fishing's green (B2)."""
    return C_GREEN if st[S_RULESET] == RS_FISHING else C_NONE


@njit(cache=True, _nrt=False)
def clear_next_trick(st):
    """B4: no lowest-wins, no named suit for the coming trick."""
    st[S_LOWEST_WINS] = 0
    st[S_NAMED_SUIT] = SUIT_NONE
    st[S_NAMER] = -1


# ------------------------------------------------------------------------------------
# stacks


@njit(cache=True, _nrt=False)
def hand_remove(st, p, card):
    """Remove ``card`` from p's hand (the last card takes its place); False if p lacks it."""
    base = A_HAND + p * MAX_HAND
    n = st[A_HAND_N + p]
    for i in range(n):
        if st[base + i] == card:
            st[base + i] = st[base + n - 1]
            st[A_HAND_N + p] = n - 1
            return True
    return False


@njit(void(ST, i64, i64), cache=True, _nrt=False)
def hand_add(st, p, card):
    n = st[A_HAND_N + p]
    st[A_HAND + p * MAX_HAND + n] = card
    st[A_HAND_N + p] = n + 1


@njit(cache=True, _nrt=False)
def fisher_add(st, p, card):
    # the first catcher stays (a select, not a branch on the game's history)
    first = st[A_CAUGHT_BY + card]
    st[A_CAUGHT_BY + card] = first if first != 0 else p + 1
    n = st[A_FISHER_N + p]
    st[A_FISHER + p * MAX_CARDS + n] = card
    st[A_FISHER_N + p] = n + 1


@njit(cache=True, _nrt=False)
def boat_pop(st, p):
    head = st[A_BOAT_HEAD + p]
    card = st[A_BOAT + p * MAX_CARDS + head]
    st[A_BOAT_HEAD + p] = (head + 1) % MAX_CARDS
    st[A_BOAT_N + p] -= 1
    return card


@njit(cache=True, _nrt=False)
def boat_push_under(st, p, card):
    n = st[A_BOAT_N + p]
    st[A_BOAT + p * MAX_CARDS + (st[A_BOAT_HEAD + p] + n) % MAX_CARDS] = card
    st[A_BOAT_N + p] = n + 1


@njit(void(ST, i64), cache=True, _nrt=False)
def pub_changed(st, x):
    """The public card places changed (x: what changed, mixed into the stamp, so two
    copies of a game that went different ways do not share a stamp)."""
    st[S_PUB_STAMP] = np.int64(mix64(np.uint64(st[S_PUB_STAMP]) ^ np.uint64(x + 1))
                               >> np.uint64(1))


@njit(void(ST, i64), cache=True, _nrt=False)
def pub_drawn(st, x):
    """Draws changed what the public places say: the stamp takes every boat's draws and
    the ocean's (folded into one number: one mix of the stamp)."""
    x = x + 64 * st[S_OCEAN_TOP]
    for p in range(st[S_PLAYERS]):
        x = x * 1099511628211 + 64 * st[A_BOAT_N + p] + p
    pub_changed(st, x)


@njit(void(ST, i64), cache=True, _nrt=False)
def pub_doubt(st, p):
    """A hidden move of p's (a card put face down, moved by catch-1-card or passed): every
    card publicly p's may have been the one moved."""
    for c in range(st[S_N_CARDS]):
        if st[A_PUB + c] == p + 1:
            st[A_PUB_DOUBT + c] = 1
    pub_changed(st, 1000 + p)


@njit(cache=True, _nrt=False)
def ocean_size(st):
    return st[S_OCEAN_LEN] - st[S_OCEAN_TOP]


@njit(cache=True, _nrt=False)
def ocean_pop(st, p):
    """The ocean's top card, drawn by seat p."""
    card = st[A_OCEAN + st[S_OCEAN_TOP]]
    st[S_OCEAN_TOP] += 1
    st[A_DRAWN_BY + card] = p + 1
    return card


@njit(void(ST, i64, i64, RNG), cache=True, _nrt=False)
def shuffle_slice(st, start, n, rng):
    """Fisher-Yates shuffle of st[start:start+n] with the game stream.

    The draws are rand_below(rng, 0, i + 1)'s, with the stream's counter held in a
    register (rng.py: a draw is mix64 of the counter plus GOLDEN): no draw waits for the
    previous one's store and load of rng[0], so their mixing overlaps."""
    s = rng[0]
    for i in range(n - 1, 0, -1):
        s += GOLDEN
        j = scaled_below(mix64(s), i + 1)
        t = st[start + i]
        st[start + i] = st[start + j]
        st[start + j] = t
    rng[0] = s


# ------------------------------------------------------------------------------------
# setup (A2)

EDIT_SALT = np.uint64(0x5DEECE66D1F2A3B7)  # the coupled deal's stream of added cards


@njit(i64(ST, DECK, i64, i64, RNG, types.uint64, i64), cache=True, _nrt=False)
def coupled_tier(st, deck, tier, players, rng, gseed, dst):
    """The coupled deal of one tier of a deck that differs from the standard deck
    (docs/rules.md, "Coupled deals"): the standard deck's cards of the tier used with this
    player count, shuffled with the game stream as the standard deck's deal shuffles them
    (the same draws), each mapped to this deck's card, the cards the edit removed taken
    out; then each card the edit added (in id order) put in at a uniformly random place,
    drawn from a stream of its own (the game stream is not touched). Writes the tier's
    cards to st[dst:]; returns their number. The boats (empty at setup) hold the standard
    deck's shuffle meanwhile and are cleared again."""
    n = deck.shape[0]
    hold = A_BOAT
    k = 0
    for j in range(deck[0, F_STD_N]):
        code = deck[j % n, F_STD_TABLE + j // n]
        if code & 15 == tier and (code >> 4) & 15 <= players:
            e = (code >> 8) - 1
            if e >= 0 and (deck[e, F_TIER] != tier or deck[e, F_MIN_PLAYERS] > players):
                e = -1  # moved to another tier, or left out with this player count
            st[hold + k] = e
            k += 1
    shuffle_slice(st, hold, k, rng)
    m = 0
    for i in range(k):
        if st[hold + i] >= 0:
            st[dst + m] = st[hold + i]
            m += 1
        st[hold + i] = 0
    s = mix64(gseed ^ EDIT_SALT ^ np.uint64(tier + 1))
    for c in range(n):
        if deck[c, F_TIER] != tier or deck[c, F_MIN_PLAYERS] > players:
            continue
        j = deck[c, F_STD]
        if j >= 0:
            code = deck[j % n, F_STD_TABLE + j // n]
            if code & 15 == tier and (code >> 4) & 15 <= players:
                continue  # in the standard deck's shuffle above
        s += GOLDEN
        at = scaled_below(mix64(s), m + 1)
        for i in range(m, at, -1):
            st[dst + i] = st[dst + i - 1]
        st[dst + at] = c
        m += 1
    return m



@njit(void(ST, RNG, EV, DECK, i64, i64, HAND_SIZES, i64, i64, types.uint64, i64, i64, i64),
      cache=True, _nrt=False)
def setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, first_leader,
               gseed, log, check, observe_mask):
    """Deal a new game: A2 starting cards, the tiered ocean, the round-1 leader.

    The deck's block of the state (A_KIND .. the suit table) is the same for every game of
    a batch: it is kept when the state already holds this deck under this ruleset, and
    everything else is cleared."""
    n_cards = deck.shape[0]
    same = st[S_N_CARDS] == n_cards and st[S_RULESET] == ruleset and st[S_DECK_SET] == 1
    if same:
        for c in range(n_cards):
            if st[A_KIND + c] != deck[c, F_KIND] or st[A_COLOUR + c] != deck[c, F_COLOUR] \
                    or st[A_VALUE + c] != deck[c, F_VALUE] or st[A_EFFECT + c] != deck[c, F_EFFECT]:
                same = False
                break
    if same:
        st[:A_KIND] = 0
        st[DECK_BLOCK_END:] = 0
    else:
        st[:] = 0
    seed_streams(rng, gseed)
    st[S_PUB_STAMP] = np.int64(mix64(gseed ^ np.uint64(0x9B7E1D5C3A2F4E61)) >> np.uint64(1))
    st[S_PLAYERS] = players
    st[S_RULESET] = ruleset
    st[S_N_ROUNDS] = n_rounds
    st[S_LOG] = log
    st[S_CHECK] = check
    st[S_OBSERVE_MASK] = observe_mask
    st[S_ASK_SEAT] = -1
    st[S_ASK_KIND] = -1
    st[S_N_CARDS] = n_cards
    st[S_DECK_SET] = 1
    for r in range(1, n_rounds + 1):
        st[A_HAND_SIZES + r] = hand_sizes[r - 1]
    if not same:
        for c in range(n_cards):
            st[A_KIND + c] = deck[c, F_KIND]
            st[A_COLOUR + c] = deck[c, F_COLOUR]
            st[A_VALUE + c] = deck[c, F_VALUE]
            st[A_EFFECT + c] = deck[c, F_EFFECT]
            st[A_SUIT + c] = card_suit(deck, c, C_NONE, ruleset)
            st[A_SUIT + MAX_CARDS + c] = card_suit(deck, c, C_LIGHT, ruleset)
            st[A_SUIT + 2 * MAX_CARDS + c] = card_suit(deck, c, C_DARK, ruleset)
    set_trump(st, first_trump(st))  # A4: round 1 has no trump (B2: green always is)
    st[S_LED] = SUIT_NONE
    st[S_DET_TRUMP] = -1
    clear_next_trick(st)
    # A2: starting cards (tier 0) used with this player count, shuffled and dealt.
    tmp = A_SCRATCH  # st[tmp + i]: the starting cards, shuffled
    coupled = deck.shape[1] > N_FIELDS  # not the standard deck: the coupled deal
    n_start = 0
    if coupled:
        n_start = coupled_tier(st, deck, 0, players, rng, gseed, tmp)
    else:
        for c in range(n_cards):
            if deck[c, F_TIER] == 0 and deck[c, F_MIN_PLAYERS] <= players:
                st[tmp + n_start] = c
                n_start += 1
        shuffle_slice(st, tmp, n_start, rng)
    deal = hand_sizes[0]
    if n_start != deal * players:
        st[S_ERR_CODE] = ERR_SETUP
        st[S_END] = END_ERROR
        return
    if st[S_LOG] != 0:
        log_event(st, ev, EV_SETUP, players, ruleset, first_leader, n_rounds, 0)
    for i in range(n_start):
        p = i // deal
        hand_add(st, p, st[tmp + i])
        if st[S_LOG] != 0:
            log_event(st, ev, EV_DEAL, p, st[tmp + i], 0, 0, 0)
    # A2: the ocean: each star tier shuffled separately, tier 1 on top ... tier 5 at the
    # bottom; with fewer players than a card's min_players (the "4+" mark) it is removed.
    n_ocean = 0
    for tier in range(1, 6):
        start = n_ocean
        if coupled:
            n_ocean += coupled_tier(st, deck, tier, players, rng, gseed, A_OCEAN + start)
        else:
            for c in range(n_cards):
                if deck[c, F_TIER] == tier and deck[c, F_MIN_PLAYERS] <= players:
                    st[A_OCEAN + n_ocean] = c
                    n_ocean += 1
            shuffle_slice(st, A_OCEAN + start, n_ocean - start, rng)
        for i in range(start, n_ocean):  # public: where each tier lies in the stack
            st[A_TIER_LO + st[A_OCEAN + i]] = start + 1
    for c in range(n_cards):  # public: the cards this player count leaves out
        if deck[c, F_MIN_PLAYERS] > players:
            st[A_TIER_LO + c] = -1
    st[S_OCEAN_TOP] = 0
    st[S_OCEAN_LEN] = n_ocean
    if st[S_LOG] != 0:
        for i in range(n_ocean):
            log_event(st, ev, EV_OCEAN, i, st[A_OCEAN + i], 0, 0, 0)
    # A2: round 1 leader chosen uniformly at random unless the experiment fixes it.
    if first_leader < 0:
        first_leader = rand_below(rng, 0, players)
    st[S_FIRST_LEADER] = first_leader
    st[S_LEADER] = first_leader
    for k in range(players):
        st[A_LAST_ORDER + k] = (first_leader + k) % players
    st[S_ROUND] = 0
    st[S_PHASE] = PH_ROUND_START
    st[S_END] = END_RUNNING


# ------------------------------------------------------------------------------------
# asking a strategy (docs/rules.md C)


@njit(void(ST, ST, i64, i64, i64, i64), cache=True, _nrt=False)
def fill_obs(st, obs, seat, kind, n_opt, subject):
    """Write what ``seat`` may know into its buffer ``obs`` (the options are already at
    O_OPTIONS). The buffer is the seat's own: only the engine and the seat write it."""
    players = st[S_PLAYERS]
    obs[O_KIND] = kind
    obs[O_SEAT] = seat
    obs[O_N_OPTIONS] = n_opt
    obs[O_ROUND] = st[S_ROUND]
    obs[O_TRUMP] = st[S_TRUMP]
    obs[O_LED] = st[S_LED]
    obs[O_PLAYERS] = players
    obs[O_OCEAN_N] = ocean_size(st)
    obs[O_TRICK_NO] = st[S_TRICK_NO]
    obs[O_LEADER] = st[S_LEADER]
    obs[O_RULESET] = st[S_RULESET]
    obs[O_SUBJECT] = subject
    obs[O_N_ROUNDS] = st[S_N_ROUNDS]
    obs[O_LOWEST_WINS] = st[S_LOWEST_WINS]
    for p in range(players):
        obs[O_POINTS + p] = st[A_POINTS + p]
        obs[O_BOAT_N + p] = st[A_BOAT_N + p]
        obs[O_FISHER_N + p] = st[A_FISHER_N + p]
    n = st[A_HAND_N + seat]
    obs[O_HAND_N] = n
    base = A_HAND + seat * MAX_HAND
    for i in range(n):
        obs[O_HAND + i] = st[base + i]
    # docs/rules.md C: nothing of an earlier decision may stay past the counts. Cleared to -1 up
    # to the first slot that already is -1 (everything past it was cleared before and never
    # written since; ask clears the hand and options after every decision).
    i = n
    while i < MAX_HAND and obs[O_HAND + i] != -1:
        obs[O_HAND + i] = -1
        i += 1
    i = n_opt
    while i < MAX_HAND and obs[O_OPTIONS + i] != -1:
        obs[O_OPTIONS + i] = -1
        i += 1
    # the deck is public and the same for the whole batch: copy it once
    if obs[O_N_CARDS] != st[S_N_CARDS]:
        n_cards = st[S_N_CARDS]
        obs[O_N_CARDS] = n_cards
        for c in range(n_cards):
            obs[O_CARD_KIND + c] = st[A_KIND + c]
            obs[O_CARD_COLOUR + c] = st[A_COLOUR + c]
            obs[O_CARD_VALUE + c] = st[A_VALUE + c]
            obs[O_CARD_EFFECT + c] = st[A_EFFECT + c]
        for i in range(3 * MAX_CARDS):
            obs[O_CARD_SUIT + i] = st[A_SUIT + i]
        obs[O_TRICK_N] = MAX_TRICK  # a fresh buffer: clear the whole trick below
    tn = st[S_TRICK_N]
    for i in range(tn):
        if st[A_TRICK_FD + i] != 0:
            obs[O_TRICK_CARD + i] = FACE_DOWN  # A9: the exchanged card lies face down
        else:
            obs[O_TRICK_CARD + i] = st[A_TRICK_CARD + i]
        obs[O_TRICK_PLAYER + i] = st[A_TRICK_PLAYER + i]
        obs[O_TRICK_IN + i] = st[A_TRICK_IN + i]
    # nothing of an earlier trick past the current one: clear what the last observation
    # wrote past tn (all of it in a fresh buffer, or if a strategy overwrote the count)
    prev = obs[O_TRICK_N]
    if prev < 0 or prev > MAX_TRICK:
        prev = MAX_TRICK
    for i in range(tn, prev):
        obs[O_TRICK_CARD + i] = -1
        obs[O_TRICK_PLAYER + i] = -1
        obs[O_TRICK_IN + i] = 0
    obs[O_TRICK_N] = tn
    # the cards played this round are public: copy only what the buffer lacks
    pn = st[S_PLAYED_N]
    have = st[A_OBS_PLAYED + seat]
    if have > pn or obs[O_N_PLAYED] != have:
        have = 0
    if obs[O_PUB_STAMP] != st[S_PUB_STAMP]:  # the public places: copied when they change
        obs[O_PUB_STAMP] = st[S_PUB_STAMP]
        for c in range(MAX_CARDS):
            h = st[A_PUB + c] - 1 if c < st[S_N_CARDS] else -1
            if h < 0:
                lo = st[A_TIER_LO + c]
                if c >= st[S_N_CARDS] or lo < 0:
                    obs[O_HOLDER + c] = HOLDER_OUT
                elif lo > 0 and st[S_OCEAN_TOP] <= lo - 1:
                    obs[O_HOLDER + c] = HOLDER_OCEAN  # no draw has reached its tier yet
                else:
                    obs[O_HOLDER + c] = HOLDER_UNKNOWN
                continue
            popped = st[A_PUSHED + h] - st[A_BOAT_N + h]  # drawn from h's boat so far
            if popped >= st[A_PUB_HI + c]:
                q = HELD_MAYBE if st[A_PUB_DOUBT + c] != 0 else HELD_SURE
            elif popped <= st[A_PUB_LO + c]:
                q = HELD_BOAT
            else:
                q = HELD_MAYBE
            obs[O_HOLDER + c] = h + MAX_PLAYERS * q
    for i in range(have, pn):
        obs[O_PLAYED + i] = st[A_PLAYED + i]
        obs[O_PLAYED_BY + i] = st[A_PLAYED_BY + i]
    obs[O_N_PLAYED] = pn
    st[A_OBS_PLAYED + seat] = pn


@njit(void(ST, OBS, i64, i64, i64), cache=True, _nrt=False)
def set_options_2(st, obs, p, a, b):
    """The two options a, b of p's decision (to st[A_OPTIONS:] and p's buffer)."""
    st[A_OPTIONS] = a
    st[A_OPTIONS + 1] = b
    obs[p, O_OPTIONS] = a
    obs[p, O_OPTIONS + 1] = b


@njit(void(ST, ST, i64, i64, i64, i64), cache=True, _nrt=False)
def present(st, obs, seat, kind, n_opt, subject):
    """Write into ``obs`` (one seat's buffer) ``seat``'s view of a decision of ``kind``
    whose n_opt options the engine has put at st[A_OPTIONS:] (for tests and tools; the
    engine's option builders write the seat's buffer themselves)."""
    for i in range(n_opt):
        obs[O_OPTIONS + i] = st[A_OPTIONS + i]
    fill_obs(st, obs, seat, kind, n_opt, subject)


@njit(inline="always", _nrt=False)
def checked_choice(st, seat, kind, n_opt, choice):
    """``choice`` if it is one of the decision's n_opt options at st[A_OPTIONS:]; else the
    game ends with ERR_ILLEGAL_CHOICE (seat, decision kind and choice recorded) and the
    result is -1. Inlined where it is called (ask, take_forced), as its body was."""
    for i in range(n_opt):
        if st[A_OPTIONS + i] == choice:
            return choice
    st[S_N_OPTIONS] = n_opt
    st[S_ERR_CODE] = ERR_ILLEGAL_CHOICE
    st[S_ERR_SEAT] = seat
    st[S_ERR_KIND] = kind
    st[S_ERR_CHOICE] = choice
    st[S_END] = END_ERROR
    return -1


@njit(inline="always", _nrt=False)
def ask(st, rng, obs, decide, params, seat, kind, n_opt, subject):
    """Ask ``seat``'s strategy to choose one of the n_opt options at st[A_OPTIONS:].

    The seat decides on its own buffer obs[seat], where the option builders wrote the
    options too; the rest of its view is written (fill_obs) if its strategy reads it.
    The choice is checked against the engine's own options, whatever the strategy wrote
    into its buffer; after the decision the buffer's hand and options are cleared, so no
    buffer holds a hand while its seat is not deciding. Inlined where it is called (the
    call of a numba function copies every array argument's fields; ask_once is the
    compiled-once version for the rarer decisions). A decision with a single option is not asked (there
    is no choice). A choice that is not one of the options stops the game with END_ERROR
    and the error fields set (the options stay at A_OPTIONS for the message).
    """
    o = obs[seat]
    if n_opt == 1:
        o[O_OPTIONS] = -1
        return st[A_OPTIONS]
    if st[S_FORCED] != 0:
        if st[S_FORCED] > 0:  # a paused decision resumed with the search's choice
            return take_forced(st, o, seat, kind, n_opt)
        # -1: the game samples its decisions for the stakes (engine/decisions.py)
        if sampled_here(st, seat, kind, n_opt, subject):
            return -1
    mask = st[S_OBSERVE_MASK]
    if (mask >> (MAX_PLAYERS * (1 + kind) + seat)) & 1:
        # the seat's strategy for this decision is the reference random strategy: the same
        # draw from the seat's stream (kit.random_option), without the call
        for i in range(n_opt):
            o[O_OPTIONS + i] = -1
        return st[A_OPTIONS + rand_below(rng, 1 + seat, n_opt)]
    return ask_strategy(st, rng, obs, decide, params, seat, kind, n_opt, subject)


@njit(inline="always", _nrt=False)
def seat_params(params, seat):
    """Seat ``seat``'s parameter vector: its row of the params table (strategy.lineup's
    build_lineup) up to the length the row's last column holds, so that a strategy gets
    exactly its own vector however long the other seats' are."""
    row = params[seat]
    return row[:int(row[row.shape[0] - 1])]


@njit(inline="always", _nrt=False)
def ask_strategy(st, rng, obs, decide, params, seat, kind, n_opt, subject):
    """ask's call of the seat's strategy (not inlined: it is the rarer, longer path).

    A search seat's decision (bit MAX_PLAYERS * kind + seat of st[S_SEARCH_MASK]) is not
    asked here: the game pauses (st[S_END] = END_PAUSED, the options at A_OPTIONS) and the
    search kernel (search.py) resumes it with its choice in st[S_FORCED]."""
    o = obs[seat]
    if (st[S_SEARCH_MASK] >> (MAX_PLAYERS * kind + seat)) & 1:
        st[S_N_OPTIONS] = n_opt
        st[S_ASK_SEAT] = seat
        st[S_ASK_KIND] = kind
        st[S_END] = END_PAUSED
        return -1
    mask = st[S_OBSERVE_MASK]
    observes = (mask >> seat) & 1
    if observes:
        fill_obs(st, o, seat, kind, n_opt, subject)
    else:  # a strategy that reads only its options (the reference random strategy)
        o[O_KIND] = kind
        o[O_SEAT] = seat
        o[O_N_OPTIONS] = n_opt
    st[S_ASK_SEAT] = seat
    st[S_ASK_KIND] = kind
    choice = decide(o, seat_params(params, seat), rng[1 + seat:2 + seat])
    st[S_ASK_SEAT] = -1
    for i in range(n_opt):
        o[O_OPTIONS + i] = -1
    if observes:
        for i in range(st[A_HAND_N + seat]):
            o[O_HAND + i] = -1
    return checked_choice(st, seat, kind, n_opt, choice)


@njit(i64(ST, ST, i64, i64, i64), cache=True, _nrt=False)
def take_forced(st, o, seat, kind, n_opt):
    """The choice st[S_FORCED] - 1 that a search made for the decision a game paused at
    (checked against the options like any strategy's)."""
    forced = st[S_FORCED] - 1
    st[S_FORCED] = -st[S_DEC_ON]  # a game sampling its decisions samples on
    for i in range(n_opt):
        o[O_OPTIONS + i] = -1
    return checked_choice(st, seat, kind, n_opt, forced)


@njit(void(ST, i64), cache=True, _nrt=False)
def draw_gap(st, kind):
    """The decisions of ``kind`` to pass before the next one sampled: geometric with the
    kind's rate, drawn from the game's seed and the draw's number (the same sample for any
    chunking, and no stream of the game draws for it)."""
    rate = st[A_DEC_RATE + kind]
    if rate <= 0:
        st[A_DEC_NEXT + kind] = -1
        return
    d = st[S_DEC_N] + 1
    st[S_DEC_N] = d
    u = mix64(np.uint64(st[S_DEC_SEED]) ^ (np.uint64(d) * GOLDEN)) >> np.uint64(11)
    x = (np.float64(u) + 1.0) / 9007199254740992.0  # in (0, 1]
    q = rate / 4294967296.0
    gap = 0.0 if q >= 1.0 else np.floor(np.log(x) / np.log1p(-q))
    st[A_DEC_NEXT + kind] = np.int64(min(gap, 4.0e18))


@njit(inline="always", _nrt=False)
def sampled_here(st, seat, kind, n_opt, subject):
    """A decision with a choice in a game that samples its decisions (engine/decisions.py):
    True if it is its kind's next one sampled (the game then pauses: sample_pause), else
    one fewer to pass (inlined: it runs at every card play of such a game)."""
    nxt = st[A_DEC_NEXT + kind]
    if nxt > 0:
        st[A_DEC_NEXT + kind] = nxt - 1
        return False
    if nxt < 0:
        return False
    return sample_pause(st, seat, kind, n_opt, subject)


@njit(b1(ST, i64, i64, i64, i64), cache=True, _nrt=False)
def sample_pause(st, seat, kind, n_opt, subject):
    """Pause the game at its kind's next sampled decision (sampled_here): st[S_END] =
    END_PAUSED, the options at A_OPTIONS, the subject at S_DEC_SUBJECT; the gap to the
    next one drawn."""
    draw_gap(st, kind)
    st[S_N_OPTIONS] = n_opt
    st[S_ASK_SEAT] = seat
    st[S_ASK_KIND] = kind
    st[S_DEC_SUBJECT] = subject
    st[S_END] = END_PAUSED
    return True


@njit(i64(ST, RNG, OBS, DECISION, PARAMS, i64, i64, i64, i64), cache=True, _nrt=False)
def ask_once(st, rng, obs, decide, params, seat, kind, n_opt, subject):
    """ask compiled once, for the rarer decisions (buoys, the trump choice, Fishing's
    effects): ask itself is inlined only where cards are played, which keeps the cold
    compile short."""
    return ask(st, rng, obs, decide, params, seat, kind, n_opt, subject)


# ------------------------------------------------------------------------------------
# playing a trick (A5)


@njit(inline="always", _nrt=False)
def legal_options(st, p, obs, to_obs):
    """A5: write the legal cards of player p to st[A_OPTIONS:] and (``to_obs``: p's
    strategy will see them) to p's buffer obs[p] (both stores here: copying them over later
    costs more than the rest of a decision), return how many. One pass when p follows."""
    o = obs[p]
    n = st[A_HAND_N + p]
    base = A_HAND + p * MAX_HAND
    led = st[S_LED]
    if led != SUIT_NONE:
        sb = st[S_SUIT_BASE]
        # A5: follow the led suit; buoys and blowfish may always be played.
        # A5 ruling: holding a blowfish or buoy never counts as holding the led suit.
        # (branch-free: every card is written, the count moves on for the legal ones)
        has = 0
        k = 0
        for i in range(n):
            c = st[base + i]
            follows = np.int64(st[sb + c] == led)
            kd = st[A_KIND + c]
            st[A_OPTIONS + k] = c
            st[A_OPT_AT + k] = i
            k += follows | np.int64(kd == K_BLOWFISH) | np.int64(kd == K_BUOY)
            has |= follows
        if has != 0:
            if to_obs:
                for i in range(k):
                    o[O_OPTIONS + i] = st[A_OPTIONS + i]
            return k
    # A5: no suit set yet, or none of it held: any card.
    for i in range(n):
        st[A_OPTIONS + i] = st[base + i]
        st[A_OPT_AT + i] = i
    if to_obs:
        for i in range(n):
            o[O_OPTIONS + i] = st[A_OPTIONS + i]
    return n


@njit(inline="always", _nrt=False)
def legal_positions(st, p):
    """A5 (as legal_options) for a seat whose card the engine draws itself (the reference
    random strategy): the number of p's legal cards, negative (-n) when every card of the
    hand is legal (the k-th option is then the hand's k-th card; st[A_OPT_AT:] is not to
    be read); else their hand positions, in hand order, at st[A_OPT_AT:]. No list of the
    cards is written (the card drawn is read from the hand), nor p's buffer."""
    n = st[A_HAND_N + p]
    led = st[S_LED]
    if led == SUIT_NONE:
        return -n  # A5: no suit set yet: any card
    base = A_HAND + p * MAX_HAND
    sb = st[S_SUIT_BASE]
    # A5: follow the led suit; buoys and blowfish may always be played.
    # A5 ruling: holding a blowfish or buoy never counts as holding the led suit.
    # (branch-free, as legal_options)
    has = 0
    k = 0
    for i in range(n):
        c = st[base + i]
        follows = np.int64(st[sb + c] == led)
        kd = st[A_KIND + c]
        st[A_OPT_AT + k] = i
        k += follows | np.int64(kd == K_BLOWFISH) | np.int64(kd == K_BUOY)
        has |= follows
    return k if has != 0 else -n  # A5: none of the led suit held: any card


@njit(cache=True, _nrt=False)
def play_card(st, ev, p, card):
    hand_remove(st, p, card)
    put_in_trick(st, ev, p, card)


@njit(inline="always", _nrt=False)
def play_card_at(st, ev, p, card, at):
    """play_card of the card at position ``at`` of p's hand (no search for it)."""
    base = A_HAND + p * MAX_HAND
    n = st[A_HAND_N + p] - 1
    st[base + at] = st[base + n]
    st[A_HAND_N + p] = n
    put_in_trick(st, ev, p, card)


@njit(inline="always", _nrt=False)
def put_in_trick(st, ev, p, card):
    """A5: p's card (already out of p's hand) goes into the trick."""
    i = st[S_TRICK_N]
    st[A_TRICK_CARD + i] = card
    st[A_TRICK_PLAYER + i] = p
    st[A_TRICK_IN + i] = 1
    st[A_TRICK_FD + i] = 0
    st[S_TRICK_N] = i + 1
    st[S_PLAYS_N] += 1

    st[S_N_PLAYS] += 1
    j = st[S_PLAYED_N]
    st[A_PLAYED + j] = card
    st[A_PLAYED_BY + j] = p
    st[S_PLAYED_N] = j + 1
    if st[S_LOG] != 0:
        log_event(st, ev, EV_PLAY, p, card, 0, 0, 0)
    # A5: the led suit is set by the first colour or trump card played.
    if st[S_LED] == SUIT_NONE:
        s = st[st[S_SUIT_BASE] + card]
        if s != SUIT_NONE:
            st[S_LED] = s
    # A9: +3-points scores when it is played.
    if st[A_EFFECT + card] == E_PLUS_3:
        st[A_POINTS + p] += 3
        st[A_BONUS + p] += 3
        if st[S_LOG] != 0:
            log_event(st, ev, EV_BONUS, p, 3, 0, 0, 0)


@njit(inline="always", _nrt=False)
def find_highest_weakest(st, n_plays):
    """A6, A7: the trick indexes of the highest and the weakest card (-1: none), judged
    over the cards as played (judge.py)."""
    led = st[S_LED]
    sb = st[S_SUIT_BASE]
    highest = highest_index(st, A_TRICK_CARD, n_plays, -1, A_KIND, A_VALUE, sb, led, 0, 1)
    weakest = weakest_index(st, A_TRICK_CARD, n_plays, -1, A_KIND, A_VALUE, sb, led)
    return highest, weakest


@njit(cache=True, _nrt=False)
def trick_targets(st, exclude, obs, p):
    """Options of p for catch-1-other / exchange / zero-catch: the other cards still in
    the trick (to st[A_OPTIONS:] and p's buffer)."""
    o = obs[p]
    k = 0
    for i in range(st[S_TRICK_N]):
        if i != exclude and st[A_TRICK_IN + i] != 0:
            c = OPT_FACE_DOWN + i if st[A_TRICK_FD + i] != 0 else st[A_TRICK_CARD + i]
            st[A_OPTIONS + k] = c
            o[O_OPTIONS + k] = c
            k += 1
    return k


@njit(cache=True, _nrt=False)
def trick_index_of(st, option):
    if option >= OPT_FACE_DOWN:
        return option - OPT_FACE_DOWN
    for i in range(st[S_TRICK_N]):
        if st[A_TRICK_CARD + i] == option and st[A_TRICK_IN + i] != 0:
            return i
    return -1


STOPPED = -2  # ask_trick_card: the game stopped (a strategy error)


@njit(cache=True, _nrt=False)
def ask_trick_card(st, rng, obs, decide, params, p, kind, b, card):
    """Ask p (decision ``kind``, answered by ``decide``) for 1 other card still in the
    trick than ``card``, the one at index b whose effect asks: the chosen card's trick
    index; -1 when there is none to choose, STOPPED when the game stopped."""
    n = trick_targets(st, b, obs, p)
    if n == 0:
        return -1
    choice = ask_once(st, rng, obs, decide, params, p, kind, n, card)
    if choice < 0:
        return STOPPED
    return trick_index_of(st, choice)


@njit(cache=True, _nrt=False)
def hand_options(st, p, obs):
    """Options of p: every hand card (to st[A_OPTIONS:] and p's buffer)."""
    o = obs[p]
    n = st[A_HAND_N + p]
    base = A_HAND + p * MAX_HAND
    for i in range(n):
        c = st[base + i]
        st[A_OPTIONS + i] = c
        o[O_OPTIONS + i] = c
    return n


@njit(i64(ST, i64, i64), cache=True, _nrt=False)
def best_points(st, players, skip):
    """The highest points among seats 0 .. players-1 other than ``skip`` (-1: every seat)."""
    best = -(1 << 40)
    for p in range(players):
        if p != skip and st[A_POINTS + p] > best:
            best = st[A_POINTS + p]
    return best


@njit(i64(ST, i64), cache=True, _nrt=False)
def winners_mask(st, players):
    """Bit p: seat p has the highest points (shares the win)."""
    best = best_points(st, players, -1)
    mask = 0
    for p in range(players):
        if st[A_POINTS + p] == best:
            mask |= 1 << p
    return mask


@njit(void(ST, EV, i64, i64), cache=True, _nrt=False)
def end_game(st, ev, reason, end_round):
    """A11. end_round: the round in which the game ended (overfishing at the start of
    round r: r, although round r never started)."""
    st[S_END] = reason
    st[S_END_ROUND] = end_round
    st[S_PHASE] = PH_OVER
    if st[S_LOG] != 0:
        log_event(st, ev, EV_GAME_END, reason, end_round, winners_mask(st, st[S_PLAYERS]), 0,
                  0)


@njit(inline="always", _nrt=False)
def resolve_buoy(st, rng, ev, obs, strats, params, b):
    """A9: the effect of the buoy played at trick index b. Returns False if the game ended."""
    card = st[A_TRICK_CARD + b]
    p = st[A_TRICK_PLAYER + b]
    effect = st[A_EFFECT + card]
    players = st[S_PLAYERS]
    if effect == E_CATCH_1_OTHER:
        # A9: move 1 other card still in the trick to its player's fisher.
        i = ask_trick_card(st, rng, obs, strats[D_CATCH_1_OTHER][p], params, p,
                           np.int64(D_CATCH_1_OTHER), b, card)  # (not a literal: one compile)
        if i == STOPPED:
            return False
        if i >= 0:
            st[A_TRICK_IN + i] = 0
            fisher_add(st, p, st[A_TRICK_CARD + i])
            if st[S_LOG] != 0:
                log_event(st, ev, EV_CATCH_1_OTHER, p, st[A_TRICK_CARD + i], 0, 0, 0)
    elif effect == E_DETERMINE_TRUMP:
        # A9: choose the shade of the next trick; no effect if the round has no next
        # trick (project ruling: judged when the buoy resolves, by the hands then).
        if st[A_HAND_N] > 0:
            set_options_2(st, obs, p, OPT_LIGHT, OPT_DARK)
            choice = ask_once(st, rng, obs, strats[D_DETERMINE_TRUMP][p], params,
                              p, D_DETERMINE_TRUMP, 2, card)
            if choice < 0:
                return False
            choice -= OPT_SHADE
            st[S_DET_TRUMP] = choice
            if st[S_LOG] != 0:
                log_event(st, ev, EV_DETERMINE_TRUMP, p, choice, 0, 0, 0)
        else:
            if st[S_LOG] != 0:
                log_event(st, ev, EV_DETERMINE_TRUMP, p, -1, 0, 0, 0)
    elif effect == E_DRAW_1_CARD:
        # A9: every player draws 1, from the boat or else the ocean; ocean draws in the
        # order played in this trick; the ocean is checked before anyone draws.
        need = 0
        for k in range(players):
            if st[A_BOAT_N + st[A_TRICK_PLAYER + k]] == 0:
                need += 1
        if st[S_LOG] != 0:
            log_event(st, ev, EV_DRAW_1_CARD, p, 0, 0, 0, 0)
        if need > ocean_size(st):
            if st[S_LOG] != 0:
                log_event(st, ev, EV_OVERFISHED, need, ocean_size(st), 1, 0, 0)
            end_game(st, ev, END_OVERFISHED, st[S_ROUND])  # A11: the game ends at once
            return False
        for k in range(players):
            q = st[A_TRICK_PLAYER + k]
            if st[A_BOAT_N + q] > 0:
                c = boat_pop(st, q)
                if st[S_LOG] != 0:
                    log_event(st, ev, EV_DRAW, q, c, 0, 1, 0)
            else:
                c = ocean_pop(st, np.int64(q))
                if st[S_LOG] != 0:
                    log_event(st, ev, EV_DRAW, q, c, 1, 1, 0)
            hand_add(st, q, c)
        pub_drawn(st, 2000)
        st[R_OCEAN_END + st[S_ROUND]] = ocean_size(st)
    elif effect == E_CATCH_1_CARD:
        # A9: every player moves 1 hand card of their choice to their fisher.
        for k in range(st[S_FIN_K], players):
            st[S_FIN_K] = k  # a game paused at k's choice resumes there
            q = st[A_TRICK_PLAYER + k]
            n = hand_options(st, q, obs)
            if n > 0:
                choice = ask_once(st, rng, obs, strats[D_CATCH_1_CARD][q], params,
                                  q, D_CATCH_1_CARD, n, card)
                if choice < 0:
                    return False
                hand_remove(st, q, choice)
                fisher_add(st, q, choice)
                st[A_FD_CARD + choice] = 1  # moved face down
                pub_doubt(st, q)
                if st[S_LOG] != 0:
                    log_event(st, ev, EV_CATCH_1_CARD, q, choice, 0, 0, 0)
    elif effect == E_EXCHANGE_1_CARD:
        # A9: take 1 other card still in the trick into hand, then put 1 hand card face
        # down into the trick (project ruling: nothing happens if no other card is left).
        n = trick_targets(st, b, obs, p) if st[S_FIN_K] == 0 else 1
        if n > 0:
            if st[S_FIN_K] == 0:
                choice = ask_once(st, rng, obs, strats[D_EXCHANGE_TAKE][p], params,
                                  p, D_EXCHANGE_TAKE, n, card)
                if choice < 0:
                    return False
                i = trick_index_of(st, choice)
                taken = st[A_TRICK_CARD + i]
                st[A_TRICK_IN + i] = 0
                hand_add(st, p, taken)
                st[A_PUB + taken] = p + 1  # taken face up into p's hand
                st[A_PUB_LO + taken] = -1
                st[A_PUB_HI + taken] = -1
                st[A_PUB_DOUBT + taken] = 0
                pub_changed(st, 3000 + taken)
                st[S_FIN_K] = 1  # taken: a game paused at the give resumes there
                st[S_FIN_TAKEN] = taken
            taken = st[S_FIN_TAKEN]
            n = hand_options(st, p, obs)
            given = ask_once(st, rng, obs, strats[D_EXCHANGE_GIVE][p], params,
                             p, D_EXCHANGE_GIVE, n, card)
            if given < 0:
                return False
            hand_remove(st, p, given)
            j = st[S_TRICK_N]
            st[A_TRICK_CARD + j] = given
            st[A_TRICK_PLAYER + j] = -1
            st[A_TRICK_IN + j] = 1
            st[A_TRICK_FD + j] = 1
            st[S_TRICK_N] = j + 1
            st[A_FD_CARD + given] = 1
            pub_doubt(st, p)
            if st[S_LOG] != 0:
                log_event(st, ev, EV_EXCHANGE, p, taken, given, 0, 0)
    return True


@njit(inline="always", _nrt=False)
def finish_trick(st, rng, ev, obs, strats, params):
    """A8: highest and weakest, buoy effects, catching, trump change, next leader
    (the original Fishing: finish_trick_fishing, B3 / B4)."""
    if st[S_RULESET] == RS_FISHING:
        finish_trick_fishing(st, rng, ev, obs, strats, params)
        return
    players = st[S_PLAYERS]
    n_plays = st[S_PLAYS_N]
    # 1. highest and weakest card, from the cards as played (judged again when a paused
    # game resumes here: the cards as played do not change)
    hi, wk = find_highest_weakest(st, n_plays)
    hp = st[A_TRICK_PLAYER + hi]
    wp = st[A_TRICK_PLAYER + wk] if wk >= 0 else -1
    if st[S_FIN_ON] == 0:
        st[S_FIN_ON] = 1
        st[S_FIN_B] = 0
        st[S_FIN_K] = 0
        st[S_DET_TRUMP] = -1
        if st[S_LOG] != 0:
            hc = st[A_TRICK_CARD + hi]
            if st[A_KIND + hc] == K_BUOY:
                hc = -1
            wc = st[A_TRICK_CARD + wk] if wk >= 0 else -1
            log_event(st, ev, EV_TRICK_RESULT, hp, hc, wp, wc, 0)
    # the kinds of the cards as played (bit K_*), so that steps 2-4 pass over the trick
    # only for the kinds it holds (no effect changes the cards as played)
    kinds = 0
    for i in range(n_plays):
        kinds |= 1 << st[A_KIND + st[A_TRICK_CARD + i]]
    # 2. buoy effects in the order played (A8 ruling: even if an earlier effect moved it)
    if kinds & (1 << K_BUOY):
        for b in range(st[S_FIN_B], n_plays):
            if st[A_KIND + st[A_TRICK_CARD + b]] == K_BUOY:
                st[S_FIN_B] = b  # a game paused in this buoy's effect resumes here
                if not resolve_buoy(st, rng, ev, obs, strats, params, b):
                    return
                st[S_FIN_K] = 0
    # 3. the weakest card's player catches the blowfish still in the trick (not a
    # face-down card), then the highest card's player catches everything else.
    if wp >= 0 and kinds & (1 << K_BLOWFISH):
        for i in range(n_plays):
            if st[A_TRICK_IN + i] != 0 and st[A_KIND + st[A_TRICK_CARD + i]] == K_BLOWFISH:
                st[A_TRICK_IN + i] = 0
                fisher_add(st, wp, st[A_TRICK_CARD + i])
                if st[S_LOG] != 0:
                    log_event(st, ev, EV_CAUGHT, wp, st[A_TRICK_CARD + i], 0, 0, 0)
    for i in range(st[S_TRICK_N]):
        if st[A_TRICK_IN + i] != 0:
            st[A_TRICK_IN + i] = 0
            fisher_add(st, hp, st[A_TRICK_CARD + i])
            if st[S_LOG] != 0:
                log_event(st, ev, EV_CAUGHT, hp, st[A_TRICK_CARD + i], 1, 0, 0)
    # 4. trump change: a played light or dark green (a 16 too) flips the shade, unless a
    # determine-trump buoy resolved, whose choice sets the next trick's trump.
    if st[S_TRUMP] != C_NONE:
        if st[S_DET_TRUMP] >= 0:
            set_trump(st, st[S_DET_TRUMP])
        elif kinds & (1 << K_GREEN):
            set_trump(st, other_shade(st[S_TRUMP]))
        if st[S_LOG] != 0:
            log_event(st, ev, EV_TRUMP, st[S_TRUMP], 0, 0, 0, 0)
    # 5. the highest card's player leads next
    for k in range(players):
        st[A_LAST_ORDER + k] = st[A_TRICK_PLAYER + k]
    st[S_LEADER] = hp
    st[S_TRICK_N] = 0
    st[S_PLAYS_N] = 0
    st[S_IN_TRICK] = 0
    st[S_FIN_ON] = 0
    st[S_LED] = SUIT_NONE
    st[S_N_TRICKS] += 1


# ------------------------------------------------------------------------------------
# the original Fishing's end of a trick (docs/rules.md B3, B4)


@njit(cache=True, _nrt=False)
def trick_flags(st):
    """The trick_start event's spare field: the original Fishing's next-trick effects in
    force in this trick (0 for Fishing 2), packed as TS_* in constants.py."""
    if st[S_RULESET] != RS_FISHING:
        return 0
    named = st[S_NAMED_SUIT]
    colour = C_GREEN if named == SUIT_TRUMP else named  # SUIT_NONE = -1 -> 0 below
    return (st[S_LOWEST_WINS] * TS_LOWEST + ((colour + 1) << TS_COLOUR_SHIFT)
            + ((st[S_NAMER] + 1) << TS_NAMER_SHIFT))


@njit(inline="always", _nrt=False)
def find_winner_fishing(st, n_plays):
    """B2 / B4: the trick index of the card that catches the trick, or -1 when no card
    does because nobody played the suit named by determine-colour or a trump (then the
    naming player catches). A trick of only buoys (no suit set, none named): the first buoy.
    Under lowest-wins the lowest trump wins if a trump was played, else the lowest card of
    the led suit. Zeros are ordinary cards of value 0. (judge.py: the same judge as A6.)"""
    return highest_index(st, A_TRICK_CARD, n_plays, -1, A_KIND, A_VALUE, st[S_SUIT_BASE],
                         st[S_LED], st[S_LOWEST_WINS], 0)


@njit(void(ST, EV, i64, i64, i64, i64), cache=True, _nrt=False)
def catch_to_fisher(st, ev, p, i, code, c):
    """Move the card at trick index i to p's fisher and log it (event code, p, card, c);
    B3: a minus-3 card costs whoever moves it to their fisher 3 points at once."""
    card = st[A_TRICK_CARD + i]
    st[A_TRICK_IN + i] = 0
    fisher_add(st, p, card)
    if st[S_LOG] != 0:
        log_event(st, ev, code, p, card, c, 0, 0)
    if st[A_EFFECT + card] == E_MINUS_3:
        st[A_POINTS + p] -= 3
        st[A_BONUS + p] -= 3
        if st[S_LOG] != 0:
            log_event(st, ev, EV_BONUS, p, -3, 0, 0, 0)


@njit(inline="always", _nrt=False)
def finish_trick_fishing(st, rng, ev, obs, strats, params):
    """B3 / B4: the card that catches, the effects in play order, catching, next leader."""
    players = st[S_PLAYERS]
    n_plays = st[S_PLAYS_N]
    # the catching card, from the cards as played, under this trick's effects (B4)
    w = find_winner_fishing(st, n_plays)
    if w >= 0:
        hp = st[A_TRICK_PLAYER + w]
        hc = st[A_TRICK_CARD + w]
        if st[A_KIND + hc] == K_BUOY:
            hc = -1
    else:  # B4: nobody played the named suit or a trump: the naming player catches
        hp = st[S_NAMER]
        hc = -1
    if st[S_FIN_ON] == 0:  # (a paused game resumes below, where it stopped)
        st[S_FIN_ON] = 1
        st[S_FIN_B] = 0
        st[S_FIN_K] = 0
        st[S_FIN_LEADER] = hp
        st[S_FIN_LOW] = 0
        st[S_FIN_NAMED] = SUIT_NONE
        st[S_FIN_NAMER] = -1
        if st[S_LOG] != 0:
            log_event(st, ev, EV_TRICK_RESULT, hp, hc, -1, -1, 0)
    # B3 / B4: the effects in the order their cards were played, on the cards still in the
    # trick (project ruling: a card's effect resolves even if an earlier effect moved the
    # card; the next-trick effects are settled at their turn too, and are forfeited when
    # the hands are empty: the round has no next trick).
    more = st[A_HAND_N] > 0
    # the effects of the cards as played (bit E_*): the loop below runs only when one of
    # them does something here (no effect changes the cards as played)
    effects = 0
    for b in range(n_plays):
        effects |= 1 << st[A_EFFECT + st[A_TRICK_CARD + b]]
    acts = (effects & ~((1 << E_NONE) | (1 << E_MINUS_3))) != 0
    for b in range(st[S_FIN_B], n_plays if acts else 0):
        st[S_FIN_B] = b
        card = st[A_TRICK_CARD + b]
        effect = st[A_EFFECT + card]
        if effect == E_NONE or effect == E_MINUS_3:
            continue
        p = st[A_TRICK_PLAYER + b]
        if effect == E_ZERO:
            # B3: a zero's player moves 1 other card still in the trick to their fisher
            i = ask_trick_card(st, rng, obs, strats[D_ZERO_CATCH][p], params, p,
                               np.int64(D_ZERO_CATCH), b, card)  # (not a literal)
            if i == STOPPED:
                return
            if i >= 0:
                catch_to_fisher(st, ev, p, i, EV_ZERO_CATCH, card)
        elif effect == E_CATCH_ALL_OTHERS:
            # B3: its player moves all other cards still in the trick to their fisher
            for i in range(st[S_TRICK_N]):
                if i != b and st[A_TRICK_IN + i] != 0:
                    catch_to_fisher(st, ev, p, i, EV_CATCH_ALL_OTHERS, 0)
        elif effect == E_PASS_1_LEFT:
            # B3: every player chooses 1 hand card (all at once: nobody sees what they will
            # receive) and passes it to the left; nothing with empty hands
            if more:
                chosen = A_SCRATCH  # st[chosen + q]: the card q passes
                for k in range(st[S_FIN_K], players):
                    st[S_FIN_K] = k  # a game paused at k's choice resumes there
                    q = st[A_TRICK_PLAYER + k]
                    n = hand_options(st, q, obs)
                    choice = ask_once(st, rng, obs, strats[D_PASS_1_LEFT][q], params,
                                      q, D_PASS_1_LEFT, n, card)
                    if choice < 0:
                        return
                    st[chosen + q] = choice
                st[S_FIN_K] = 0
                for q in range(players):
                    hand_remove(st, q, st[chosen + q])
                    pub_doubt(st, q)
                for k in range(players):
                    q = st[A_TRICK_PLAYER + k]
                    to = (q + 1) % players
                    hand_add(st, to, st[chosen + q])
                    if st[S_LOG] != 0:
                        log_event(st, ev, EV_PASS_1_LEFT, q, st[chosen + q], to, 0, 0)
        elif effect == E_PLAY_FIRST:
            # B4: its player leads the next trick instead of the catching player
            if more:
                st[S_FIN_LEADER] = p
            if st[S_LOG] != 0:
                log_event(st, ev, EV_PLAY_FIRST, p, 0 if more else 1, 0, 0, 0)
        elif effect == E_DETERMINE_COLOUR:
            # B4: its player names the next trick's suit (blue, yellow, purple, red, green)
            if more:
                o = obs[p]
                for i in range(5):
                    c = OPT_BLUE if i == 0 else OPT_YELLOW if i == 1 else \
                        OPT_PURPLE if i == 2 else OPT_RED if i == 3 else OPT_GREEN
                    st[A_OPTIONS + i] = c
                    o[O_OPTIONS + i] = c
                choice = ask_once(st, rng, obs, strats[D_DETERMINE_COLOUR][p], params,
                                  p, D_DETERMINE_COLOUR, 5, card)
                if choice < 0:
                    return
                choice -= OPT_SUIT
                st[S_FIN_NAMED] = SUIT_TRUMP if choice == C_GREEN else choice
                st[S_FIN_NAMER] = p
                if st[S_LOG] != 0:
                    log_event(st, ev, EV_DETERMINE_COLOUR, p, choice, 0, 0, 0)
            elif st[S_LOG] != 0:
                log_event(st, ev, EV_DETERMINE_COLOUR, p, -1, 0, 0, 0)
        elif effect == E_LOWEST_WINS:
            # B4: in the next trick the lowest card wins
            if more:
                st[S_FIN_LOW] = 1
            if st[S_LOG] != 0:
                log_event(st, ev, EV_LOWEST_WINS, p, 0 if more else 1, 0, 0, 0)
    # B3: the catching player catches what is left (even if nothing is left)
    for i in range(st[S_TRICK_N]):
        if st[A_TRICK_IN + i] != 0:
            catch_to_fisher(st, ev, hp, i, EV_CAUGHT, 1)
    # B3 / B4: the catching player (or play-first's) leads the next trick, under its effects
    for k in range(players):
        st[A_LAST_ORDER + k] = st[A_TRICK_PLAYER + k]
    st[S_LEADER] = st[S_FIN_LEADER]
    st[S_TRICK_N] = 0
    st[S_PLAYS_N] = 0
    st[S_IN_TRICK] = 0
    st[S_FIN_ON] = 0
    st[S_LOWEST_WINS] = st[S_FIN_LOW]
    st[S_NAMED_SUIT] = st[S_FIN_NAMED]
    st[S_NAMER] = st[S_FIN_NAMER]
    st[S_LED] = st[S_FIN_NAMED]  # B4: the named suit is the led suit from the first card on
    st[S_N_TRICKS] += 1


@njit(inline="always", _nrt=False)
def play_trick(st, rng, ev, obs, strats, params):
    """A5: every player plays a card, from the leader on; then the trick's end. A trick
    already begun (a copy of a state in the middle of a trick, or a game paused at a
    search seat's card) goes on from the next player."""
    players = st[S_PLAYERS]
    leader = st[S_LEADER]
    if st[S_IN_TRICK] == 0:
        st[S_IN_TRICK] = 1
        st[S_TRICK_NO] += 1
        if st[S_LOG] != 0:
            log_event(st, ev, EV_TRICK_START, st[S_ROUND], st[S_TRICK_NO], leader,
                      st[S_TRUMP], trick_flags(st))
    for k in range(st[S_PLAYS_N], players):
        p = leader + k
        if p >= players:
            p -= players
        # a seat whose card plays are the reference random strategy's: the draw of ask's
        # random branch, without writing and clearing the seat's buffer
        # (a game sampling its decisions, S_FORCED -1, samples these too)
        rnd = ((st[S_OBSERVE_MASK] >> (MAX_PLAYERS * (1 + D_PLAY) + p)) & 1) != 0 \
            and st[S_FORCED] <= 0
        if rnd:
            n = legal_positions(st, p)
            every = n < 0  # every hand card is legal: the j-th option is the j-th card
            if every:
                n = -n
            base = A_HAND + p * MAX_HAND
            if n == 1:
                j = 0
            else:
                if st[S_FORCED] < 0:  # the options, for a sampled decision's replays
                    for i in range(n):
                        st[A_OPTIONS + i] = st[base + (i if every else st[A_OPT_AT + i])]
                    if sampled_here(st, p, D_PLAY, n, -1):
                        return
                j = rand_below(rng, 1 + p, n)
            at = j if every else st[A_OPT_AT + j]
            play_card_at(st, ev, p, st[base + at], at)
            continue
        n = legal_options(st, p, obs, True)
        card = ask(st, rng, obs, strats[D_PLAY][p], params, p, D_PLAY, n, -1)
        if card < 0:
            return
        play_card(st, ev, p, card)
    finish_trick(st, rng, ev, obs, strats, params)


# ------------------------------------------------------------------------------------
# rounds (A10) and the end of the game (A11)


@njit(cache=True, _nrt=False)
def last_position(st, p):
    for k in range(st[S_PLAYERS]):
        if st[A_LAST_ORDER + k] == p:
            return k
    return 0


@njit(cache=True, _nrt=False)
def next_leader(st, players):
    """A10.3: the next round's leader has the fewest points; ties go to whoever played
    earlier in the previous round's final trick."""
    leader = st[A_LAST_ORDER]
    for k in range(1, players):
        p = st[A_LAST_ORDER + k]
        if st[A_POINTS + p] < st[A_POINTS + leader]:
            leader = p
    return leader


@njit(cache=True, _nrt=False)
def begin_round(st, ev):
    """A10.2: draws for the new round; A10.3: its leader. Returns False on overfishing."""
    players = st[S_PLAYERS]
    r = st[S_ROUND] + 1
    st[S_ROUND] = r
    st[S_TRICK_NO] = 0
    st[S_PLAYED_N] = 0
    h = st[A_HAND_SIZES + r]
    if st[S_LOG] != 0:
        log_event(st, ev, EV_ROUND_START, r, h, 0, 0, 0)
    st[S_LED] = SUIT_NONE
    clear_next_trick(st)  # B4: next-trick effects never reach into a new round
    if r == 1:
        st[R_OCEAN + 1] = ocean_size(st)
        st[R_OCEAN_END + 1] = ocean_size(st)
        set_trump(st, first_trump(st))
        if st[S_LOG] != 0:
            log_event(st, ev, EV_LEADER, 1, st[S_LEADER], 0, 0, 0)
        return True
    short = A_SCRATCH  # st[short + p]: cards p must draw from the ocean
    done = A_SCRATCH + MAX_PLAYERS  # st[done + p]: p has drawn them
    total = 0
    for p in range(players):
        s = h - st[A_HAND_N + p] - st[A_BOAT_N + p]
        if s < 0:
            s = 0
        st[short + p] = s
        st[done + p] = 0
        total += s
    # A10.2: if the ocean cannot cover the total shortfall, overfishing before any draw.
    if total > ocean_size(st):
        if st[S_LOG] != 0:
            log_event(st, ev, EV_OVERFISHED, total, ocean_size(st), 0, 0, 0)
        st[S_ROUND] = r - 1  # the round never started
        end_game(st, ev, END_OVERFISHED, r)
        return False
    # draw from the top of the boat first (in last trick's play order, for the log)
    for k in range(players):
        p = st[A_LAST_ORDER + k]
        while st[A_HAND_N + p] < h and st[A_BOAT_N + p] > 0:
            c = boat_pop(st, p)
            hand_add(st, p, c)
            if st[S_LOG] != 0:
                log_event(st, ev, EV_DRAW, p, c, 0, 0, 0)
    # A10.2: the player short the most draws all theirs first; ties -> earlier in the
    # previous round's final trick.
    for _ in range(players):
        best = -1
        for k in range(players):
            p = st[A_LAST_ORDER + k]
            if st[done + p] == 0 and st[short + p] > 0 and \
                    (best < 0 or st[short + p] > st[short + best]):
                best = p
        if best < 0:
            break
        st[done + best] = 1
        for _j in range(st[short + best]):
            c = ocean_pop(st, np.int64(best))
            hand_add(st, best, c)
            if st[S_LOG] != 0:
                log_event(st, ev, EV_DRAW, best, c, 1, 0, 0)
    pub_drawn(st, 5000)
    st[R_OCEAN + r] = ocean_size(st)
    st[R_OCEAN_END + r] = ocean_size(st)
    leader = next_leader(st, players)
    st[S_LEADER] = leader
    if st[S_LOG] != 0:
        log_event(st, ev, EV_LEADER, r, leader, 0, 0, 0)
    return True


@njit(cache=True, _nrt=False)
def ask_trump_choice(st, rng, obs, strats, params):
    """A10.3: after drawing and before leading, the leader chooses the active shade
    (returns it as C_LIGHT / C_DARK, -1 on an illegal choice; apply_trump_choice makes it
    so)."""
    set_options_2(st, obs, st[S_LEADER], OPT_LIGHT, OPT_DARK)
    choice = ask_once(st, rng, obs, strats[D_TRUMP_CHOICE][st[S_LEADER]], params,
                      st[S_LEADER], D_TRUMP_CHOICE, 2, -1)
    return choice - OPT_SHADE if choice >= 0 else -1


@njit(cache=True, _nrt=False)
def choose_trump(st, rng, ev, obs, strats, params):
    choice = ask_trump_choice(st, rng, obs, strats, params)
    if choice >= 0:
        apply_trump_choice(st, ev, choice)


@njit(void(ST, EV, i64), cache=True, _nrt=False)
def apply_trump_choice(st, ev, shade):
    r = st[S_ROUND]
    set_trump(st, shade)
    st[R_TRUMP + r] = shade
    st[R_CHOOSER + r] = st[S_LEADER]
    if st[S_LOG] != 0:
        log_event(st, ev, EV_TRUMP_CHOICE, r, st[S_LEADER], shade, 0, 0)
    st[S_PHASE] = PH_TRICKS


@njit(cache=True, _nrt=False)
def end_round(st, rng, ev):
    """A10.1: score 1 point per fisher card; shuffle the fisher under the boat."""
    players = st[S_PLAYERS]
    r = st[S_ROUND]
    for p in range(players):
        n = st[A_FISHER_N + p]
        st[A_POINTS + p] += n
        st[A_SCORED + p] += n
        if st[S_LOG] != 0:
            log_event(st, ev, EV_ROUND_SCORE, p, n, st[A_POINTS + p], 0, 0)
        base = A_FISHER + p * MAX_CARDS
        lo = st[A_PUSHED + p]
        st[A_PUSHED + p] = lo + n
        # what changed, folded into one number (one mix of the stamp per fisher, not one
        # per card: each mix waits for the one before)
        x = 4000 + MAX_CARDS * p + n
        for i in range(n):  # the cards seen going to this fisher go under p's boat
            c = st[base + i]
            if st[A_FD_CARD + c] == 0:
                st[A_PUB + c] = p + 1
                st[A_PUB_LO + c] = lo
                st[A_PUB_HI + c] = lo + n
                st[A_PUB_DOUBT + c] = 0
                x = x * 1099511628211 + c + 1
            else:
                st[A_FD_CARD + c] = 0  # unseen on this fisher only: seen when played again
        pub_changed(st, x)
        shuffle_slice(st, base, n, rng)
        for i in range(n):
            boat_push_under(st, p, st[base + i])
            if st[S_LOG] != 0:
                log_event(st, ev, EV_BOAT, p, st[base + i], 0, 0, 0)
        st[A_FISHER_N + p] = 0
    for p in range(players):
        st[R_POINTS + r * MAX_PLAYERS + p] = st[A_POINTS + p]


@njit(cache=True, _nrt=False)
def invariants_hold(st, deck):
    """Every card in exactly one place; equal hand sizes; points = scored + bonuses."""
    players = st[S_PLAYERS]
    n_cards = st[S_N_CARDS]
    seen = A_SCRATCH  # st[seen + c]: places card c was found in
    for c in range(n_cards):
        st[seen + c] = 0
    for p in range(players):
        if st[A_HAND_N + p] != st[A_HAND_N]:
            return False
        if st[A_POINTS + p] != st[A_SCORED + p] + st[A_BONUS + p]:
            return False
        for i in range(st[A_HAND_N + p]):
            st[seen + st[A_HAND + p * MAX_HAND + i]] += 1
        for i in range(st[A_BOAT_N + p]):
            st[seen + st[A_BOAT + p * MAX_CARDS + (st[A_BOAT_HEAD + p] + i) % MAX_CARDS]] += 1
        for i in range(st[A_FISHER_N + p]):
            st[seen + st[A_FISHER + p * MAX_CARDS + i]] += 1
    for i in range(st[S_OCEAN_TOP], st[S_OCEAN_LEN]):
        st[seen + st[A_OCEAN + i]] += 1
    for i in range(st[S_TRICK_N]):
        if st[A_TRICK_IN + i] != 0:
            st[seen + st[A_TRICK_CARD + i]] += 1
    for c in range(n_cards):
        if st[seen + c] != (1 if deck[c, F_MIN_PLAYERS] <= players else 0):
            return False
    return True


@njit(cache=True, _nrt=False)
def play_one_trick(st, rng, ev, obs, strats, params):
    """play_trick called from Python (a table stepped trick by trick, as the rule tests
    do): compiled at its first call for the seats' type (not when the engine is
    imported) and cached. play_trick itself is inlined into the kernels that call it, so
    a call from Python would compile it anew in every process."""
    play_trick(st, rng, ev, obs, strats, params)


@njit(cache=True, _nrt=False)
def finish_one_trick(st, rng, ev, obs, strats, params):
    """finish_trick called from Python (a trick played card by card, then judged, as the
    rule tests do), compiled and cached as play_one_trick is."""
    finish_trick(st, rng, ev, obs, strats, params)


@njit(cache=True, _nrt=False)
def highest_and_weakest(st, n_plays):
    """find_highest_weakest called from Python (the trick's judgement after each card),
    compiled and cached as play_one_trick is."""
    return find_highest_weakest(st, n_plays)


@njit(void(ST, RNG, EV, DECK, OBS, STRATS, PARAMS, i64), cache=True, _nrt=False)
def run_game(st, rng, ev, deck, obs, strats, params, stop):
    """Play on from the state's phase until the game ends, or earlier:

    ``stop`` = STOP_AT_TRUMP: return when a leader is about to make the trump choice
    (phase PH_TRUMP): the caller may copy the state and call apply_trump_choice.
    STOP_AT_ROUND_END: return once the round in play is scored (phase PH_ROUND_START;
    a rollout to the end of the round). STOP_NEVER: play to the end of the game.
    """
    while st[S_END] == END_RUNNING:
        ph = st[S_PHASE]
        if ph == PH_ROUND_START:
            if not begin_round(st, ev):
                return
            # A10.3: rounds 2.. open with the trump choice (B2: the original Fishing has none)
            if st[S_ROUND] > 1 and st[S_RULESET] != RS_FISHING:
                st[S_PHASE] = PH_TRUMP
            else:
                st[S_PHASE] = PH_TRICKS
        elif ph == PH_TRUMP:
            if stop == STOP_AT_TRUMP:
                return
            choose_trump(st, rng, ev, obs, strats, params)
        else:
            play_trick(st, rng, ev, obs, strats, params)
            if st[S_END] != END_RUNNING:
                return
            if st[S_CHECK] != 0 and not invariants_hold(st, deck):
                st[S_ERR_CODE] = ERR_INVARIANT
                st[S_END] = END_ERROR
                return
            if st[A_HAND_N] == 0:  # all hands hold the same number: the round is over
                end_round(st, rng, ev)
                if st[S_ROUND] >= st[S_N_ROUNDS]:
                    end_game(st, ev, END_COMPLETED, st[S_ROUND])
                else:
                    st[S_PHASE] = PH_ROUND_START
                    if stop == STOP_AT_ROUND_END:
                        return
    if st[S_ERR_CODE] == ERR_EVENT_OVERFLOW:
        st[S_END] = END_ERROR
