"""The student's scratch and the unseen cards' tables (fishing2sim/train/features.py reads
them): a stack buffer for a decision's scratch, the cards the seat has seen this round as
two 64-bit masks, and the unseen cards by suit and value, in all and by public place
(docs/rules.md C), counted once per card play so that every option reads its counts in one
look-up. Everything reads only the observation."""
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from fishing2sim.engine.constants import (
    C_BOTH, HELD_BOAT, HELD_SURE, HOLDER_UNKNOWN, K_BLOWFISH, K_GREEN, MAX_CARDS, MAX_HAND,
    MAX_PLAYERS, MAX_TRICK, O_CARD_KIND, O_CARD_VALUE, O_HAND, O_HAND_N, O_HOLDER,
    O_N_OPTIONS, O_N_PLAYED, O_OPTIONS, O_PLAYED, O_PLAYERS, O_SEAT, O_TRICK_N, O_TRUMP,
    SUIT_NONE, SUIT_TRUMP,
)
from fishing2sim.strategy.kit import colour, suit
from fishing2sim.strategy.observation import _suit_base

STACK_ALIGN = 64  # bytes: a cache line, and the width of the widest vector registers


@intrinsic
def _stack_f64(typingctx, n):
    """A pointer to ``n`` (a constant) float64 in the calling function's stack frame,
    freed when it returns: the hidden layer's scratch without a heap allocation, so the
    student's decisions compile without numba's reference counting. The buffer starts on
    a 64-byte boundary: the hidden layer adds to its sums 8 at a time, and a sum that
    straddles two cache lines cost a quarter of the student's speed wherever the stack
    happened to put it (docs/strategies.md, "Where a decision's time goes")."""
    def codegen(context, builder, signature, args):
        buf = cgutils.alloca_once(builder, context.get_value_type(types.float64),
                                  size=args[0])
        buf.align = STACK_ALIGN
        return buf
    return types.CPointer(types.float64)(types.intp), codegen


@intrinsic
def _stack_u64(typingctx, n):
    """A pointer to ``n`` (a constant) uint64 in the calling function's stack frame (as
    _stack_f64)."""
    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, context.get_value_type(types.uint64),
                                   size=args[0])
    return types.CPointer(types.uint64)(types.intp), codegen


@intrinsic
def _words(typingctx, table):
    """The float64 table (a stack pointer or a C-contiguous array) as uint64 words: the
    counters of _fill_above share its buffer with the float entries."""
    if isinstance(table, types.CPointer) and table.dtype == types.float64:
        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], context.get_value_type(
                types.CPointer(types.uint64)))
    elif isinstance(table, types.Array) and table.dtype == types.float64 and \
            table.layout == "C":
        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            return builder.bitcast(data, context.get_value_type(types.CPointer(types.uint64)))
    else:
        return None
    return types.CPointer(types.uint64)(table), codegen


@intrinsic
def _popcount(typingctx, x):
    """The set bits of a uint64 (one instruction where the machine has it)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@intrinsic
def _data_f64(typingctx, arr):
    """A pointer to the data of a C-contiguous float64 array: reading through it skips
    the negative-index fix-up of every array read, for the hidden layer's inner loop
    (its offsets are in range by construction: features.hidden_of)."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.float64
            and arr.layout == "C"):
        return None

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data
    return types.CPointer(types.float64)(arr), codegen


@njit(inline="always", _nrt=False)
def _is_seen(lo, hi, c):
    if c < 64:
        return (lo >> np.uint64(c)) & np.uint64(1) != 0
    return (hi >> np.uint64(c - 64)) & np.uint64(1) != 0


@njit(cache=True, _nrt=False)
def _seen(obs):
    """The cards the seat knows the place of this round, as two 64-bit masks: its hand
    and the cards played (the rest may be in another hand)."""
    lo = np.uint64(0)
    hi = np.uint64(0)
    n = min(max(obs[O_HAND_N], 0), MAX_HAND)
    for i in range(n + min(max(obs[O_N_PLAYED], 0), MAX_CARDS)):
        c = obs[O_HAND + i] if i < n else obs[O_PLAYED + i - n]
        if 0 <= c < 64:
            lo |= np.uint64(1) << np.uint64(c)
        elif 64 <= c < MAX_CARDS:
            hi |= np.uint64(1) << np.uint64(c - 64)
    return lo, hi


# The unseen cards by suit and value, counted once per card play (_fill_above) so that an
# option's unseen_above is a few instructions: for each suit s (a colour code or
# SUIT_TRUMP), a counter of the unseen cards (not blowfish) at each value, kept as bit
# planes (row ROW_WORDS words: the planes in use, then plane i, whose bit v is bit i of the
# count of value v). The cards at or above a value v are then sum_i popcount(plane_i >> v)
# << i: no histogram to clear, nor suffix sums to run, for values no option has. Three
# more such counters count them by public place (docs/rules.md C): held for sure, or
# perhaps, by a player still to play this trick (T_LATER_SURE, T_LATER_MAYBE), and of
# unknown place (T_UNKNOWN); then, as float64 entries of the same buffer, per player the
# cards known in their hand (T_HELD) and T_Q, the share of the unknown cards that the hands
# still to play hold.
N_SUIT_SLOTS = SUIT_TRUMP + 1
N_VALUES = 29  # values 0 .. 27, and one slot past the largest (bits of a plane)
N_PLANES = 8  # counts up to 255: every card of a deck (MAX_CARDS) could share one value
assert MAX_CARDS < 1 << N_PLANES
ROW_WORDS = 1 + N_PLANES
SUIT_TABLE = N_SUIT_SLOTS * ROW_WORDS  # one counter per suit slot
T_LATER_SURE = SUIT_TABLE
T_LATER_MAYBE = 2 * SUIT_TABLE
T_UNKNOWN = 3 * SUIT_TABLE
T_HELD = 4 * SUIT_TABLE
T_Q = T_HELD + MAX_PLAYERS
T_TRUMPS_LATER = T_Q + 1
TABLE_SIZE = T_TRUMPS_LATER + 1


@njit(inline="always", _nrt=False)
def _count_clear(cnt, row):
    """An empty counter at word ``row`` of cnt (one plane in use)."""
    cnt[row] = np.uint64(1)
    cnt[row + 1] = np.uint64(0)


@njit(inline="always", _nrt=False)
def _count_add(cnt, row, bit):
    """One more card in the counter at word ``row``: bit is 1 << its value (0 .. N_VALUES-1;
    0 leaves the counter as it is). Plane 1 takes the bit; a value already there carries
    into the next planes (_carry, out of line: rare, two cards of one suit and value)."""
    x = cnt[row + 1]
    cnt[row + 1] = x ^ bit
    carry = x & bit
    if carry != np.uint64(0):
        _carry(cnt, row, carry)


@njit(cache=True, _nrt=False)
def _carry(cnt, row, bit):
    """Add ``bit`` to the bit-sliced count from plane 2 on, using a new plane where needed."""
    used = cnt[row]
    i = 2
    while True:
        if np.uint64(i) > used:  # a plane not yet in use
            cnt[row + i] = bit
            cnt[row] = np.uint64(i)
            return
        x = cnt[row + i]
        if x & bit == np.uint64(0):
            cnt[row + i] = x | bit
            return
        cnt[row + i] = x & ~bit
        i += 1


@njit(inline="always", _nrt=False)
def _count_from(cnt, row, v):
    """The cards at value v or above in the counter at word ``row``."""
    k = np.uint64(0)
    sh = np.uint64(v)
    for i in range(min(int(cnt[row]), N_PLANES)):  # (a counter never cleared: bounded)
        k += _popcount(cnt[row + 1 + i] >> sh) << np.uint64(i)
    return int(k)


@njit(inline="always", _nrt=False)
def _value_slot(v):
    return min(max(v, 0), N_VALUES - 1)


@njit(cache=True, _nrt=False)
def option_suits(obs):
    """The suits of the options, as bits (a suit code s is bit s): the rows of the tables
    a card play reads."""
    need = 0
    for i in range(min(max(obs[O_N_OPTIONS], 0), MAX_HAND)):
        s = suit(obs, obs[O_OPTIONS + i])
        if 0 <= s < N_SUIT_SLOTS:
            need |= 1 << s
    return need


@njit(cache=True, _nrt=False)
def _fill_above(obs, lo, hi, n_cards, table, need, places):
    """table (TABLE_SIZE float64): the unseen cards of each suit at each value, in all and
    (places 1) by public place (see T_LATER_SURE ...), as counters, for the suits in
    ``need`` (bits; the other counters are not read, nor written); T_TRUMPS_LATER: the
    trumps known in the hands still to play (sure 1, perhaps 1/2)."""
    cnt = _words(table)
    tables = 4 if places else 1
    for t in range(tables):
        for s in range(N_SUIT_SLOTS):
            if (need >> s) & 1 != 0:
                _count_clear(cnt, t * SUIT_TABLE + s * ROW_WORDS)
    for i in range(T_HELD, TABLE_SIZE):
        table[i] = 0.0
    players = min(max(obs[O_PLAYERS], 2), MAX_PLAYERS)
    me = obs[O_SEAT]
    n = min(max(obs[O_HAND_N], 0), MAX_HAND)
    later = 0  # the players still to play this trick, as bits
    for i in range(players - min(max(obs[O_TRICK_N], 0), MAX_TRICK) - 1):
        later |= 1 << ((me + 1 + i) % players)
    pool = 0.0
    suits = _suit_base(obs, obs[O_TRUMP])  # the suit column under the active shade
    # the unseen cards in order (n_cards <= MAX_CARDS: _context): the clear bits of the
    # seen masks, one word at a time, with no branch per seen card
    for w in range(2):
        first = 64 * w
        if first >= n_cards:
            break
        m = ~(lo if w == 0 else hi)
        if n_cards - first < 64:
            m &= (np.uint64(1) << np.uint64(n_cards - first)) - np.uint64(1)
        while m != np.uint64(0):
            c = first + trailing_zeros(m)
            m &= m - np.uint64(1)
            s = obs[suits + c]  # suit(obs, c), its column found once
            counted = obs[O_CARD_KIND + c] != K_BLOWFISH and 0 <= s < N_SUIT_SLOTS
            trump = counted and s == SUIT_TRUMP
            counted = counted and (need >> s) & 1 != 0
            if not counted and not places:
                continue
            row = s * ROW_WORDS
            bit = np.uint64(1) << np.uint64(_value_slot(obs[O_CARD_VALUE + c]))
            if counted:
                _count_add(cnt, row, bit)
            if not places:
                continue
            code = obs[O_HOLDER + c]
            if code >= 0:
                p = code % MAX_PLAYERS
                q = code // MAX_PLAYERS
                if q != HELD_BOAT and (later >> p) & 1 != 0:
                    wq = 1.0 if q == HELD_SURE else 0.5
                    table[T_HELD + p] += wq
                    if trump:
                        table[T_TRUMPS_LATER] += wq
                    if counted:
                        _count_add(cnt, (T_LATER_SURE if q == HELD_SURE else T_LATER_MAYBE)
                                   + row, bit)
            elif code == HOLDER_UNKNOWN:
                pool += 1.0
                if counted:
                    _count_add(cnt, T_UNKNOWN + row, bit)
    slots = 0.0  # the unknown cards in the hands still to play
    for p in range(players):
        if (later >> p) & 1 != 0:
            slots += max(n - table[T_HELD + p], 0.0)
    table[T_Q] = min(slots / pool, 1.0) if pool > 0.0 else 0.0


@njit(inline="always", _nrt=False)  # (inlined: no version per table offset)
def _above_in(obs, card, t, table):
    """Table t's count of the cards that could beat ``card`` (0 for no suit)."""
    s = suit(obs, card)
    if not 0 <= s < N_SUIT_SLOTS:
        return 0.0
    return float(_count_from(_words(table), t + s * ROW_WORDS,
                             _value_slot(obs[O_CARD_VALUE + card])))


@njit(cache=True, _nrt=False)
def _shade_others(obs, shade, n_cards):
    """The shade's trump cards (greens of that shade and the two 16s) that other players
    hold for all to know (sure 1, perhaps 1/2)."""
    me = obs[O_SEAT]
    k = 0.0
    for c in range(n_cards):
        code = obs[O_HOLDER + c]
        if code >= 0 and code % MAX_PLAYERS != me and obs[O_CARD_KIND + c] == K_GREEN:
            col = colour(obs, c)
            if col == shade or col == C_BOTH:
                q = code // MAX_PLAYERS
                if q == HELD_SURE:
                    k += 1.0
                elif q != HELD_BOAT:
                    k += 0.5
    return k


@njit(cache=True, _nrt=False)
def _unseen_above(obs, card, lo, hi, n_cards, table):
    """Cards of ``card``'s suit (under the active trump) that could beat it and that the
    seat has not seen this round (strategy_kit.unseen_above, from the seen masks): read
    from the table of _fill_above."""
    s = suit(obs, card)
    if s == SUIT_NONE:
        return 0
    v = obs[O_CARD_VALUE + card]
    if not 0 <= s < N_SUIT_SLOTS:  # (no such suit code today: count them one by one)
        k = 0
        for c in range(n_cards):
            if c != card and obs[O_CARD_KIND + c] != K_BLOWFISH and \
                    obs[O_CARD_VALUE + c] >= v and not _is_seen(lo, hi, c) and suit(obs, c) == s:
                k += 1
        return k
    k = _count_from(_words(table), s * ROW_WORDS, _value_slot(v))
    if 0 <= card < n_cards and obs[O_CARD_KIND + card] != K_BLOWFISH and \
            not _is_seen(lo, hi, card):
        k -= 1  # the card itself is not counted
    return k
