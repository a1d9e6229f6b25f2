"""The student's features: what ``skilled`` (strategies/skilled.py) reads of an option.

Every option of every decision kind is described by the same N_FEATURES numbers, computed
from the observation only (the deciding seat's view, docs/rules.md C): the card's own
properties (strength now and for later rounds, its worth on the boat, trump, blowfish,
buoy and which effect), for a card play how it stands in the trick (would it be the
trick's highest card so far, how many players still follow, the boss of its suit, where
the cards that could beat it are known to be, and for a lead what other hands hold of its
suit and what it leaves in its own hand), for a shade its trump cards in hand, for a suit
(original Fishing's determine-colour) the hand's cards of that colour. Features that do
not apply to a kind are 0.

The student scores an option by ``w[ruleset, kind] . features`` plus, for a model with a
hidden layer of H units, ``u[block] . relu(W1' features + c[block])`` (a residual one-layer
network shared by the blocks, with a bias and an output row per block), and takes the
best; the weights are fitted on a search's option values (fishing2sim/train/fit.py, the
network by fishing2sim/train/net.py). The parameter vector is the linear weights
(N_WEIGHTS), then W1 (N_FEATURES x H, row by feature), c (N_BLOCKS x H) and u
(N_BLOCKS x H): H follows from its length (``hidden_of``). A model file records
FEATURES_VERSION and the feature names: a file of another layout is refused.
"""
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros
from numba import njit

from fishing2sim.engine.constants import (
    C_BLUE, C_BOTH, C_DARK, C_GREEN, C_LIGHT, C_NONE, C_PURPLE, C_RED, C_YELLOW,
    E_MINUS_3, K_BLOWFISH, K_BUOY, K_GREEN, MAX_CARDS, MAX_HAND, N_DECISIONS, O_CARD_KIND, O_CARD_VALUE, O_HAND, O_HAND_N, O_KIND, O_LED, O_N_OPTIONS,
    O_N_CARDS, O_N_ROUNDS, O_OCEAN_N, O_OPTIONS, O_PLAYERS, O_ROUND,
    O_RULESET, O_TRICK_CARD, O_TRICK_IN, O_TRICK_N, O_TRICK_NO, O_TRUMP, OPT_DARK,
    OPT_FACE_DOWN, OPT_LIGHT, OPT_SUIT, OPT_END, MAX_TRICK, RS_FISHING, SUIT_NONE,
    SUIT_TRUMP, D_PLAY,
)
from fishing2sim.student.simd import (
    v8_fma, v8_load, v8_relu_dot, v8_store, v8_sum4, v8_zero,
)
from fishing2sim.student.tables import (
    N_SUIT_SLOTS, T_BOSSES, T_BOSSES_ALL, T_LEAD_FISH, T_LEAD_TRUMPS, T_Q, T_TRUMPS_LATER,
    TABLE_SIZE, W_LATER_MAYBE, W_LATER_SURE, W_UNKNOWN, _above, _data_f64, _fill_above, _in,
    _seen, _shade_others, _stack_f64, _stack_u64, _suit_words, _unseen_above, _weighted,
    _without, option_suits, unseen_blowfish,
)
from fishing2sim.strategy.kit import (
    colour, effect, future_power, keep_value, kind, leader_gap, power, suit, suit_under,
    trumps_left_next, value, weakest_now, wins_now,
)

from fishing2sim.student.layout import (
    BLOCKS_PER_RULESET, F_COLOUR, F_EFFECT0, F_FACE_DOWN, F_INTER, F_LEAD, F_PLACES, F_SHADE,
    HAND_SUIT_BITS, HAND_SUIT_MASK, MAX_HIDDEN, N_BLOCKS, N_FEATURES, N_MASK, N_WEIGHTS,
    PER_HIDDEN,
)
assert MAX_HAND <= HAND_SUIT_MASK and N_SUIT_SLOTS * HAND_SUIT_BITS <= 63


def n_params(hidden: int) -> int:
    """The length of the parameter vector of a model with ``hidden`` hidden units."""
    return N_WEIGHTS + int(hidden) * PER_HIDDEN


@njit(cache=True, _nrt=False)
def hidden_of(n):
    """The hidden units of a parameter vector of length n (-1: no valid length)."""
    if n < N_WEIGHTS or (n - N_WEIGHTS) % PER_HIDDEN != 0:
        return -1
    h = (n - N_WEIGHTS) // PER_HIDDEN
    return h if h <= MAX_HIDDEN else -1


@njit(cache=True, _nrt=False)
def reads_places(w, b, hidden):
    """2 if the weights of block b give the lead features any weight (linear or through
    the hidden layer), else 1 if they give the other public-place features any, else 0: a
    model that reads none of them (a version-3 or version-4 model) skips counting them,
    and scores every option the same."""
    base = b * N_FEATURES
    for j in range(N_FEATURES - 1, F_PLACES - 1, -1):  # the lead features first
        used = w[base + j] != 0.0
        r = N_WEIGHTS + j * hidden
        k = 0
        while not used and k < hidden:  # (the first weight that is not 0 answers)
            used = w[r + k] != 0.0
            k += 1
        if used:
            return 2 if j >= F_LEAD else 1
    return 0


@njit(inline="always", _nrt=False)
def _put(out, w, base, j, x, store, nz):
    """Feature j of an option is x: written to out[j] (``store``; a nonzero x also sets
    bit j of the mask nz, so the hidden layer reads only those), and its share of the
    score returned."""
    if store:
        out[j] = x
        if x != 0.0:
            nz[j >> 6] |= np.uint64(1) << np.uint64(j & 63)
    return w[base + j] * x


@njit(cache=True, _nrt=False)
def _shade_of(o):
    if o == OPT_LIGHT:
        return C_LIGHT
    if o == OPT_DARK:
        return C_DARK
    return C_NONE


@njit(cache=True, _nrt=False)
def _suit_slot(c):
    if c == C_BLUE:
        return 0
    if c == C_YELLOW:
        return 1
    if c == C_PURPLE:
        return 2
    if c == C_RED:
        return 3
    if c == C_GREEN:
        return 4
    return -1


@njit(cache=True, _nrt=False)
def _context(obs):
    """What every option of a card play shares: the trick, the round, the score."""
    n = min(max(obs[O_HAND_N], 0), MAX_HAND)
    players = max(obs[O_PLAYERS], 2)
    tn = min(max(obs[O_TRICK_N], 0), MAX_TRICK)
    n_cards = min(max(obs[O_N_CARDS], 0), MAX_CARDS)
    lo, hi = _seen(obs)
    exposed = (players - tn - 1) / (players - 1)
    tricks = obs[O_TRICK_NO] + n - 1
    progress = (obs[O_TRICK_NO] - 1) / tricks if tricks > 1 else 1.0
    gap = leader_gap(obs)
    fish = 0
    buoys = 0
    minus3 = 0
    tvalue = 0
    green_in_trick = False
    for i in range(tn):
        c = obs[O_TRICK_CARD + i]
        if obs[O_TRICK_IN + i] != 0 and 0 <= c < MAX_CARDS:
            k = obs[O_CARD_KIND + c]
            if k == K_BLOWFISH:
                fish += 1
            elif k == K_BUOY:
                buoys += 1
                if effect(obs, c) == E_MINUS_3:
                    minus3 += 1
            else:
                tvalue += max(obs[O_CARD_VALUE + c], 0)
            if k == K_GREEN:
                green_in_trick = True
    unseen_fish = unseen_blowfish(obs, lo, hi, n_cards)
    hand_suits = 0  # the hand's cards of each suit code 0 .. N_SUIT_SLOTS-1, 6 bits a suit
    for i in range(n):
        hs = suit(obs, obs[O_HAND + i])
        if 0 <= hs < N_SUIT_SLOTS:
            hand_suits += 1 << (HAND_SUIT_BITS * hs)
    t_now = 0
    t_flip = 0
    nxt_flip = C_NONE
    if obs[O_TRUMP] != C_NONE:
        nxt_flip = C_DARK if obs[O_TRUMP] == C_LIGHT else C_LIGHT
        for i in range(n):
            c = obs[O_HAND + i]
            if suit_under(obs, c, obs[O_TRUMP]) == SUIT_TRUMP:
                t_now += 1
            if suit_under(obs, c, nxt_flip) == SUIT_TRUMP:
                t_flip += 1
    return (lo, hi, n_cards, exposed, progress, gap, fish, buoys, minus3, tvalue,
            green_in_trick, unseen_fish, t_now, t_flip, nxt_flip, hand_suits)


@njit(cache=True, _nrt=False)
def option_score(obs, o, ctx, w, base, out, store, table, places, nz):
    """_option_score, compiled once (the linear student, features_batch and research/'s
    callers); the student's decision (_best_net) inlines it."""
    return _option_score(obs, o, ctx, w, base, out, store, table, places, nz)


@njit(inline="always", _nrt=False)
def _option_score(obs, o, ctx, w, base, out, store, table, places, nz):
    """The score w[base:] . features of option ``o`` (``store`` 1: the features written
    also go to out[0:N_FEATURES], and each nonzero one sets its bit of the mask nz
    (N_MASK words): a caller that reads all of out zeroes it first, one that reads only
    the masked features (_best_net) zeroes only nz; table: _fill_above's, filled for a
    card play; places 0: the public-place features are left 0, see reads_places).
    ``store`` is an int64 passed as np.int64(...), never a constant True / False: numba
    would compile a version per constant (tests/test_compile.py)."""
    (lo, hi, n_cards, exposed, progress, gap, fish, buoys, minus3, tvalue, green_in_trick,
     unseen_fish, t_now, t_flip, nxt_flip, hand_suits) = ctx
    n = min(max(obs[O_HAND_N], 0), MAX_HAND)
    players = max(obs[O_PLAYERS], 2)
    tn = min(max(obs[O_TRICK_N], 0), MAX_TRICK)
    play = obs[O_KIND] == D_PLAY
    sc = 0.0
    if 0 <= o < MAX_CARDS:
        k = kind(obs, o)
        p = power(obs, o) / 47.0
        sc += _put(out, w, base, 0, p, store, nz)
        sc += _put(out, w, base, 1, future_power(obs, o) / 47.0, store, nz)
        sc += _put(out, w, base, 2, keep_value(obs, o) / 40.0, store, nz)
        sc += _put(out, w, base, 3, max(value(obs, o), 0) / 26.0, store, nz)
        s = suit(obs, o)
        trump = s == SUIT_TRUMP
        if trump:
            sc += _put(out, w, base, 4, 1.0, store, nz)
        if k == K_BLOWFISH:
            sc += _put(out, w, base, 5, 1.0, store, nz)
        if k == K_BUOY:
            sc += _put(out, w, base, 6, 1.0, store, nz)
        if k == K_GREEN:
            sc += _put(out, w, base, 7, 1.0, store, nz)
        if colour(obs, o) == C_BOTH:
            sc += _put(out, w, base, 8, 1.0, store, nz)
        e = effect(obs, o)
        if 1 <= e <= 13:
            sc += _put(out, w, base, F_EFFECT0 + e - 1, 1.0, store, nz)
        same = 0  # the hand's cards of its suit
        if 0 <= s < N_SUIT_SLOTS:
            same = (hand_suits >> (HAND_SUIT_BITS * s)) & HAND_SUIT_MASK
        elif s != SUIT_NONE:
            for j in range(n):
                if suit(obs, obs[O_HAND + j]) == s:
                    same += 1
        share = same / n if n > 0 else 0.0
        sc += _put(out, w, base, 37, share, store, nz)
        n_rounds = max(obs[O_N_ROUNDS], 1)
        sc += _put(out, w, base, 45, (obs[O_ROUND] - 1) / n_rounds * p, store, nz)
        if play:
            win = 1.0 if (k != K_BUOY and wins_now(obs, o)) else 0.0
            sc += _put(out, w, base, 23, win, store, nz)
            sc += _put(out, w, base, 24, win * exposed, store, nz)
            sc += _put(out, w, base, 25, win * p, store, nz)
            sc += _put(out, w, base, 26, (1.0 - win) * p, store, nz)
            if tn == 0:
                sc += _put(out, w, base, 27, p, store, nz)
                sc += _put(out, w, base, 28, 1.0 if trump else 0.0, store, nz)
                sc += _put(out, w, base, 44, share, store, nz)
            a0, a1 = _above(obs, o, s, table)  # the unseen cards that could beat it
            if s != SUIT_NONE:
                if 0 <= s < N_SUIT_SLOTS:
                    ua = _without(a0, a1, o)
                else:
                    ua = _unseen_above(obs, o, lo, hi, n_cards, table)
                sc += _put(out, w, base, 29, min(ua, 10) / 10.0, store, nz)
                if ua == 0:
                    sc += _put(out, w, base, 30, 1.0, store, nz)
                    if win > 0.0:
                        sc += _put(out, w, base, F_INTER, 1.0, store, nz)
                    if tn == 0:
                        sc += _put(out, w, base, F_INTER + 6, 1.0, store, nz)
                elif win > 0.0:
                    sc += _put(out, w, base, F_INTER + 1, min(ua, 10) / 10.0 * exposed, store, nz)
            if trump and win == 0.0:
                sc += _put(out, w, base, F_INTER + 2, 1.0, store, nz)
            led = obs[O_LED]
            if tn > 0 and led != SUIT_NONE and s != SUIT_NONE:
                if s == led:
                    sc += _put(out, w, base, F_INTER + 3, 1.0, store, nz)
                elif not trump:
                    sc += _put(out, w, base, F_INTER + 4, 1.0, store, nz)
            if win > 0.0 and n > 0:
                sc += _put(out, w, base, F_INTER + 5, t_now / n, store, nz)
            if win == 0.0 and tn == players - 1:
                sc += _put(out, w, base, F_INTER + 7, p, store, nz)
            if fish > 0 and weakest_now(obs, o):
                sc += _put(out, w, base, 31, float(fish), store, nz)
            if win > 0.0:
                sc += _put(out, w, base, 32, progress, store, nz)
                sc += _put(out, w, base, 33, gap / 20.0, store, nz)
                sc += _put(out, w, base, 34, max(obs[O_OCEAN_N], 0) / 60.0, store, nz)
                if tn == players - 1:
                    sc += _put(out, w, base, 38, 1.0, store, nz)
                sc += _put(out, w, base, 39, tvalue / 50.0, store, nz)
                sc += _put(out, w, base, 40, float(buoys), store, nz)
                sc += _put(out, w, base, 41, float(fish), store, nz)
                sc += _put(out, w, base, 42, float(minus3), store, nz)
                sc += _put(out, w, base, 43, unseen_fish / 4.0 * exposed, store, nz)
            if places and s != SUIT_NONE and 0 <= s < N_SUIT_SLOTS:
                ks = _in(table, W_LATER_SURE, a0, a1)
                km = _in(table, W_LATER_MAYBE, a0, a1)
                ku = _in(table, W_UNKNOWN, a0, a1)
                q = table[T_Q]
                sc += _put(out, w, base, F_PLACES, min(ks + 0.5 * km, 4.0) / 4.0, store, nz)
                sc += _put(out, w, base, F_PLACES + 1, min(ku * q, 4.0) / 4.0, store, nz)
                if win > 0.0 and ks == 0.0:
                    hold = 0.5 ** km * (1.0 - q) ** ku
                    sc += _put(out, w, base, F_PLACES + 2, hold, store, nz)
                    sc += _put(out, w, base, F_PLACES + 3, hold * tvalue / 50.0, store, nz)
                if win > 0.0 and not trump and obs[O_LED] != SUIT_TRUMP:
                    kt = table[T_TRUMPS_LATER]
                    sc += _put(out, w, base, F_PLACES + 4, min(kt, 4.0) / 4.0, store, nz)
                if places >= 2 and tn == 0:
                    sc += _lead_features(obs, o, s, a0, a1, same, table, w, base, out,
                                         store, nz)
            if trump and obs[O_LED] != SUIT_NONE and obs[O_LED] != SUIT_TRUMP:
                sc += _put(out, w, base, 35, 1.0, store, nz)
            if n > 1 and obs[O_TRUMP] != C_NONE:
                # the rest of the hand that is trump in the next trick
                kk = trumps_left_next(obs, o, green_in_trick or k == K_GREEN, t_now, t_flip)
                sc += _put(out, w, base, 36, kk / (n - 1), store, nz)
    elif OPT_FACE_DOWN <= o < OPT_FACE_DOWN + MAX_TRICK:
        sc += _put(out, w, base, F_FACE_DOWN, 1.0, store, nz)
    elif o == OPT_LIGHT or o == OPT_DARK:
        sh = _shade_of(o)
        cnt = 0
        val = 0
        for j in range(n):
            c = obs[O_HAND + j]
            if kind(obs, c) == K_GREEN:
                col = colour(obs, c)
                if col == sh or col == C_BOTH:
                    cnt += 1
                    val += max(value(obs, c), 0)
        if n > 0:
            sc += _put(out, w, base, F_SHADE, cnt / n, store, nz)
            sc += _put(out, w, base, F_SHADE + 1, val / (26.0 * n), store, nz)
        if o == OPT_LIGHT:
            sc += _put(out, w, base, F_SHADE + 2, 1.0, store, nz)
        if places:
            sc += _put(out, w, base, F_PLACES + 5, min(_shade_others(obs, sh, n_cards), 10.0)
                       / 10.0, store, nz)
    elif OPT_SUIT <= o < OPT_END:
        col = o - OPT_SUIT
        cnt = 0
        val = 0
        high = 0
        for j in range(n):
            c = obs[O_HAND + j]
            if kind(obs, c) != K_BUOY and colour(obs, c) == col:
                cnt += 1
                v = max(value(obs, c), 0)
                val += v
                if v >= 10:
                    high += 1
        if n > 0:
            sc += _put(out, w, base, F_COLOUR, cnt / n, store, nz)
            sc += _put(out, w, base, F_COLOUR + 1, val / (18.0 * n), store, nz)
            sc += _put(out, w, base, F_COLOUR + 2, high / n, store, nz)
        slot = _suit_slot(col)
        if slot >= 0:
            sc += _put(out, w, base, F_COLOUR + 3 + slot, 1.0, store, nz)
    return sc


@njit(inline="always", _nrt=False)
def _lead_features(obs, o, s, a0, a1, same, table, w, base, out, store, nz):
    """The lead features of card o of suit slot s (a0, a1: the unseen cards that could
    beat it; same: the hand's cards of its suit, o among them): their share of the score."""
    s0, s1 = _suit_words(table, s)
    suit_n = _weighted(table, s0, s1)
    above = _weighted(table, a0, a1)
    boss = 1.0 if above < 0.5 else 0.0
    p = power(obs, o)
    lower = 0
    n = min(max(obs[O_HAND_N], 0), MAX_HAND)
    for i in range(n):
        c = obs[O_HAND + i]
        if c != o and suit(obs, c) == s and power(obs, c) < p:
            lower += 1
    mine = same - 1
    sc = _put(out, w, base, F_LEAD, min(suit_n / 5.0, 2.0), store, nz)
    sc += _put(out, w, base, F_LEAD + 1, min(max(suit_n - above, 0.0) / 5.0, 2.0), store, nz)
    sc += _put(out, w, base, F_LEAD + 2, min(above / 5.0, 2.0), store, nz)
    sc += _put(out, w, base, F_LEAD + 3, mine / 5.0, store, nz)
    sc += _put(out, w, base, F_LEAD + 4, (table[T_BOSSES + s] - boss) / 3.0, store, nz)
    sc += _put(out, w, base, F_LEAD + 5, (table[T_BOSSES_ALL] - boss) / 5.0, store, nz)
    sc += _put(out, w, base, F_LEAD + 6, min(table[T_LEAD_TRUMPS] / 5.0, 2.0), store, nz)
    if above >= 0.5:
        sc += _put(out, w, base, F_LEAD + 7, table[T_LEAD_FISH] / 4.0, store, nz)
    sc += _put(out, w, base, F_LEAD + 8, lower / mine if mine > 0 else 1.0, store, nz)
    sc += _put(out, w, base, F_LEAD + 9, table[T_Q], store, nz)
    return sc


@njit(cache=True, _nrt=False)
def play_block(obs):
    """0 .. N_PLAY_BLOCKS-1: leading / following / last in the trick, times the first or
    second half of the round."""
    tn = min(max(obs[O_TRICK_N], 0), MAX_TRICK)
    players = max(obs[O_PLAYERS], 2)
    at = 0 if tn == 0 else (2 if tn >= players - 1 else 1)
    tricks = obs[O_TRICK_NO] + obs[O_HAND_N] - 1
    late = 1 if tricks > 1 and 2 * (obs[O_TRICK_NO] - 1) >= tricks else 0
    return at + 3 * late


@njit(cache=True, _nrt=False)
def block_of(obs):
    """The weight block of the decision in ``obs`` (0 .. N_BLOCKS-1)."""
    rs = 1 if obs[O_RULESET] == RS_FISHING else 0
    dk = obs[O_KIND]
    if dk < 0 or dk >= N_DECISIONS:
        dk = 0
    b = dk
    if dk == D_PLAY:
        pb = play_block(obs)
        if pb > 0:
            b = N_DECISIONS + pb - 1
    return rs * BLOCKS_PER_RULESET + b


@njit(cache=True, _nrt=False)
def weights_at(obs):
    """Where the weights of the decision in ``obs`` start in the parameter vector."""
    return block_of(obs) * N_FEATURES


@njit(cache=True, _nrt=False, fastmath=True)
def _hidden_score(x, nz, w, b, hidden, z):
    """u[b] . relu(W1' x + c[b]) for the features x whose nonzero entries are the set
    bits of nz (N_MASK words; the others are not read) (z: scratch of ``hidden``); w is
    read through its data pointer (every offset below is inside n_params(hidden)). The
    sums W1' x + c are built 32 units at a time in registers (a sum kept in memory waits
    for its own store at every feature), then the rest one by one. A width that is a
    multiple of 32 (the shipped model's) goes through ReLU and output row in registers
    too, adding in the order the loop below (compiled with fastmath) adds: the same score
    to the last bit."""
    w = _data_f64(w)
    w1 = N_WEIGHTS
    c0 = w1 + N_FEATURES * hidden + b * hidden
    u0 = w1 + N_FEATURES * hidden + N_BLOCKS * hidden + b * hidden
    if hidden % 32 == 0:
        return _hidden_score_32(x, nz, w, hidden, c0, u0)
    k0 = 0
    while k0 + 32 <= hidden:
        a0, a1, a2, a3 = _sums_32(x, nz, w, hidden, c0, k0)
        v8_store(z, k0, a0)
        v8_store(z, k0 + 8, a1)
        v8_store(z, k0 + 16, a2)
        v8_store(z, k0 + 24, a3)
        k0 += 32
    if k0 < hidden:
        for k in range(k0, hidden):
            z[k] = w[c0 + k]
        for q in range(N_MASK):
            m = nz[q]
            while m != np.uint64(0):
                j = 64 * q + trailing_zeros(m)
                xj = x[j]
                r = w1 + j * hidden
                for k in range(k0, hidden):
                    z[k] += xj * w[r + k]
                m &= m - np.uint64(1)
    s = 0.0
    for k in range(hidden):
        if z[k] > 0.0:
            s += w[u0 + k] * z[k]
    return s


@njit(inline="always", _nrt=False)
def _sums_32(x, nz, w, hidden, c0, k0):
    """Hidden units k0 .. k0+31's sums c + W1' x over the features set in nz, in four
    vector registers (w: the data pointer)."""
    a0 = v8_load(w, c0 + k0)
    a1 = v8_load(w, c0 + k0 + 8)
    a2 = v8_load(w, c0 + k0 + 16)
    a3 = v8_load(w, c0 + k0 + 24)
    for q in range(N_MASK):
        m = nz[q]
        while m != np.uint64(0):
            j = 64 * q + trailing_zeros(m)
            xj = x[j]
            r = N_WEIGHTS + j * hidden + k0
            a0 = v8_fma(a0, xj, w, r)
            a1 = v8_fma(a1, xj, w, r + 8)
            a2 = v8_fma(a2, xj, w, r + 16)
            a3 = v8_fma(a3, xj, w, r + 24)
            m &= m - np.uint64(1)
    return a0, a1, a2, a3


@njit(inline="always", _nrt=False)
def _hidden_score_32(x, nz, w, hidden, c0, u0):
    """_hidden_score for a width that is a multiple of 32 (w: the data pointer): the sums
    of each 32 units kept in four vector registers from c to the last feature, then their
    ReLU times the output row added into four more, reduced as LLVM's vectorised loop
    reduced them."""
    p0 = v8_zero()
    p1 = v8_zero()
    p2 = v8_zero()
    p3 = v8_zero()
    for k0 in range(0, hidden, 32):
        a0, a1, a2, a3 = _sums_32(x, nz, w, hidden, c0, k0)
        p0 = v8_relu_dot(p0, a0, w, u0 + k0)
        p1 = v8_relu_dot(p1, a1, w, u0 + k0 + 8)
        p2 = v8_relu_dot(p2, a2, w, u0 + k0 + 16)
        p3 = v8_relu_dot(p3, a3, w, u0 + k0 + 24)
    return v8_sum4(p0, p1, p2, p3)


@njit(cache=True, _nrt=False)
def _best_net(obs, w, ctx, b, hidden):
    n_opt = min(max(obs[O_N_OPTIONS], 0), MAX_HAND)
    x = _stack_f64(N_FEATURES)
    nz = _stack_u64(N_MASK)
    z = _stack_f64(MAX_HIDDEN)
    table = _stack_f64(TABLE_SIZE)
    places = reads_places(w, b, hidden)
    if obs[O_KIND] == D_PLAY:
        _fill_above(obs, ctx[0], ctx[1], ctx[2], table, option_suits(obs), places)
    base = b * N_FEATURES
    best = 0
    best_s = -1e300
    for i in range(n_opt):
        for q in range(N_MASK):
            nz[q] = np.uint64(0)
        # (inlined: a call passes the context and both arrays field by field, and the
        # inlined body sees store and the mask's words as the loop's own)
        s = _option_score(obs, obs[O_OPTIONS + i], ctx, w, base, x, np.int64(1), table,
                          places, nz)
        s += _hidden_score(x, nz, w, b, hidden, z)
        if s > best_s:
            best, best_s = i, s
    return obs[O_OPTIONS + best]


@njit(cache=True, _nrt=False)
def best_option(obs, w):
    """The option with the highest score (ties: the first); w: the parameter vector
    (n_params(H); H = 0: the linear score alone). Nothing is allocated on the heap."""
    n_opt = min(max(obs[O_N_OPTIONS], 0), MAX_HAND)
    hidden = hidden_of(w.shape[0])
    if hidden < 0 or n_opt <= 1:  # a single option needs no score
        return obs[O_OPTIONS]
    ctx = _context(obs)
    b = block_of(obs)
    if hidden > 0:
        return _best_net(obs, w, ctx, b, hidden)
    base = b * N_FEATURES
    best = 0
    best_s = -1e300
    unused = _stack_f64(N_FEATURES)  # (store 0: nothing is written; one type for `out`)
    no_mask = _stack_u64(N_MASK)  # (and for `nz`)
    table = _stack_f64(TABLE_SIZE)
    places = reads_places(w, b, np.int64(0))
    if obs[O_KIND] == D_PLAY:
        _fill_above(obs, ctx[0], ctx[1], ctx[2], table, option_suits(obs), places)
    for i in range(n_opt):
        s = option_score(obs, obs[O_OPTIONS + i], ctx, w, base, unused, np.int64(0), table,
                         places, no_mask)
        if s > best_s:
            best, best_s = i, s
    return obs[O_OPTIONS + best]


@njit(cache=True)
def features_batch(obs_rows, X, blocks):
    """X[r, i, :] = the features of option i of every stored position r (obs_rows[r]: a
    whole observation; X zeroed by the caller), blocks[r] its weight block."""
    w = np.zeros(N_WEIGHTS, np.float64)
    for r in range(obs_rows.shape[0]):
        obs = obs_rows[r]
        blocks[r] = block_of(obs)
        ctx = _context(obs)
        x = _stack_f64(N_FEATURES)  # (the same type for `out` as the players' calls)
        nz = _stack_u64(N_MASK)
        table = _stack_f64(TABLE_SIZE)
        if obs[O_KIND] == D_PLAY:
            _fill_above(obs, ctx[0], ctx[1], ctx[2], table, option_suits(obs), np.int64(2))
        for i in range(min(max(obs[O_N_OPTIONS], 0), MAX_HAND)):
            for j in range(N_FEATURES):
                x[j] = 0.0
            option_score(obs, obs[O_OPTIONS + i], ctx, w, np.int64(0), x, np.int64(1), table,
                         np.int64(2), nz)
            for j in range(N_FEATURES):
                X[r, i, j] = x[j]
