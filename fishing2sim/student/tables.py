"""The student's scratch and the unseen cards' tables (fishing2sim/student/features.py reads
them): a stack buffer for a decision's scratch, the cards the seat has seen this round as
two 64-bit masks, and the unseen cards by suit, in all and by public place (docs/rules.md
C), gathered once per card play as card masks so that every option's counts are a few
popcounts. Everything reads only the observation."""
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from fishing2sim.engine.constants import (
    C_BOTH, HELD_BOAT, HELD_MAYBE, HELD_SURE, HOLDER_UNKNOWN, K_BLOWFISH, K_GREEN, MAX_CARDS, MAX_HAND,
    MAX_PLAYERS, MAX_TRICK, O_CARD_KIND, O_CARD_VALUE, O_HAND, O_HAND_N, O_HOLDER,
    O_N_OPTIONS, O_N_PLAYED, O_OPTIONS, O_PLAYED, O_PLAYERS, O_SEAT, O_TRICK_N, O_TRUMP,
    SUIT_NONE, SUIT_TRUMP,
)
from fishing2sim.strategy.kit import colour, suit
from fishing2sim.strategy.observation import _suit_base
from fishing2sim.student.simd import mask64_eq, mask64_ge

STACK_ALIGN = 64  # bytes: a cache line, and the width of the widest vector registers


@intrinsic
def _stack_f64(typingctx, n):
    """A pointer to ``n`` (a constant) float64 in the calling function's stack frame,
    freed when it returns: the hidden layer's scratch without a heap allocation, so the
    student's decisions compile without numba's reference counting. The buffer starts on
    a 64-byte boundary: the hidden layer adds to its sums 8 at a time, and a sum that
    straddles two cache lines cost a quarter of the student's speed wherever the stack
    happened to put it (docs/lab-notes.md, "Where a decision's time goes")."""
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
    for i in range(n):
        lo, hi = _see(lo, hi, obs[O_HAND + i])
    for i in range(min(max(obs[O_N_PLAYED], 0), MAX_CARDS)):
        lo, hi = _see(lo, hi, obs[O_PLAYED + i])
    return lo, hi


@njit(inline="always", _nrt=False)
def _see(lo, hi, c):
    """The masks lo, hi with card c's bit set (an id outside 0 .. MAX_CARDS-1: unchanged),
    without a branch on the card (which word is a coin flip the branch predictor loses)."""
    bit = np.uint64(1) << np.uint64(c & 63)
    lo |= bit & -np.uint64((c >= 0) & (c < 64))
    hi |= bit & -np.uint64((c >= 64) & (c < MAX_CARDS))
    return lo, hi


# The unseen cards, gathered once per card play (_fill_above) as card masks (two 64-bit
# words: bit c of word c // 64 is card c), so that an option's counts are a few popcounts:
# for each suit s (a colour code or SUIT_TRUMP) the unseen cards of that suit that are not
# blowfish (W_SUIT + 2 s); by public place (docs/rules.md C) the unseen cards held for
# sure, or perhaps, by a player still to play this trick (W_LATER_SURE, W_LATER_MAYBE), and
# those of unknown place (W_UNKNOWN); then, as float64 entries of the same buffer, per
# player the cards known in their hand (T_HELD), T_Q, the share of the unknown cards that
# the hands still to play hold, and T_TRUMPS_LATER. Each mask is built from the
# observation's per-card columns 64 cards at a time (simd.mask64_eq): no loop, nor branch,
# per card. An option's cards that could beat it are its suit's mask and the cards at or
# above its value (_above).
N_SUIT_SLOTS = SUIT_TRUMP + 1
N_VALUES = 29  # value slots 0 .. 28: a value is clamped to them (_value_slot)
W_SUIT = 0
W_LATER_SURE = W_SUIT + 2 * N_SUIT_SLOTS
W_LATER_MAYBE = W_LATER_SURE + 2
W_UNKNOWN = W_LATER_MAYBE + 2
T_HELD = W_UNKNOWN + 2
T_Q = T_HELD + MAX_PLAYERS
T_TRUMPS_LATER = T_Q + 1
# a lead (feature version 5, _fill_lead): per suit the hand's cards that nothing in another
# hand beats (T_BOSSES + s), and all of them (T_BOSSES_ALL)
T_BOSSES = T_TRUMPS_LATER + 1
T_BOSSES_ALL = T_BOSSES + N_SUIT_SLOTS
T_LEAD_FISH = T_BOSSES_ALL + 1  # and the blowfish in other hands (_weighted)
T_LEAD_TRUMPS = T_LEAD_FISH + 1  # and the trumps in other hands (_weighted)
TABLE_SIZE = T_LEAD_TRUMPS + 1
assert MAX_CARDS == 128  # two words of card bits


@njit(inline="always", _nrt=False)
def _value_slot(v):
    return min(max(v, 0), N_VALUES - 1)


@njit(inline="always", _nrt=False)
def _unseen(lo, hi, n_cards):
    """The cards of the deck (0 .. n_cards-1) not in the seen masks, as two words."""
    lo = np.uint64(lo)
    hi = np.uint64(hi)
    if n_cards >= 128:
        return ~lo, ~hi
    if n_cards >= 64:
        return ~lo, ~hi & ((np.uint64(1) << np.uint64(n_cards - 64)) - np.uint64(1))
    return ~lo & ((np.uint64(1) << np.uint64(max(n_cards, 0))) - np.uint64(1)), np.uint64(0)


@njit(inline="always", _nrt=False)
def _eq(obs, column, x):
    """The cards whose entry of the per-card ``column`` is x, as two words."""
    return mask64_eq(obs, column, x), mask64_eq(obs, column + 64, x)


@njit(inline="always", _nrt=False)
def _pop2(w0, w1):
    return int(_popcount(w0) + _popcount(w1))


@njit(cache=True, _nrt=False)
def unseen_blowfish(obs, lo, hi, n_cards):
    """The blowfish the seat has not seen this round."""
    u0, u1 = _unseen(lo, hi, n_cards)
    f0, f1 = _eq(obs, O_CARD_KIND, K_BLOWFISH)
    return _pop2(u0 & f0, u1 & f1)


@njit(cache=True, _nrt=False)
def option_suits(obs):
    """The suits of the options, as bits (a suit code s is bit s): the masks a card play
    reads (a lead: those of the whole hand, which the lead features read)."""
    need = 0
    for i in range(min(max(obs[O_N_OPTIONS], 0), MAX_HAND)):
        s = suit(obs, obs[O_OPTIONS + i])
        if 0 <= s < N_SUIT_SLOTS:
            need |= 1 << s
    if obs[O_TRICK_N] == 0:
        for i in range(min(max(obs[O_HAND_N], 0), MAX_HAND)):
            s = suit(obs, obs[O_HAND + i])
            if 0 <= s < N_SUIT_SLOTS:
                need |= 1 << s
    return need


@njit(cache=True, _nrt=False)
def _fill_above(obs, lo, hi, n_cards, table, need, places):
    """table (TABLE_SIZE float64): the unseen cards of each suit, not blowfish, as card
    masks (W_SUIT), for the suits in ``need`` (bits; the other suits' masks are not read,
    nor written), and (places 1) by public place (W_LATER_SURE, W_LATER_MAYBE, W_UNKNOWN:
    every unseen card there), the cards known in the hands still to play (T_HELD), T_Q and
    T_TRUMPS_LATER: the trumps known in the hands still to play (sure 1, perhaps 1/2); and
    (places 2, a lead) the lead's counts of _fill_lead."""
    cnt = _words(table)
    u0, u1 = _unseen(lo, hi, n_cards)
    f0, f1 = _eq(obs, O_CARD_KIND, K_BLOWFISH)
    c0 = u0 & ~f0  # the unseen cards that are counted: not blowfish
    c1 = u1 & ~f1
    suits = _suit_base(obs, obs[O_TRUMP])  # the suit column under the active shade
    for s in range(N_SUIT_SLOTS):
        if (need >> s) & 1 != 0 or (places != 0 and s == SUIT_TRUMP):
            s0, s1 = _eq(obs, suits, s)
            cnt[W_SUIT + 2 * s] = c0 & s0
            cnt[W_SUIT + 2 * s + 1] = c1 & s1
    if places == 0:
        return
    players = min(max(obs[O_PLAYERS], 2), MAX_PLAYERS)
    me = obs[O_SEAT]
    n = min(max(obs[O_HAND_N], 0), MAX_HAND)
    for p in range(MAX_PLAYERS):
        table[T_HELD + p] = 0.0
    sure0 = np.uint64(0)  # the unseen cards held by a player still to play this trick
    sure1 = np.uint64(0)
    maybe0 = np.uint64(0)
    maybe1 = np.uint64(0)
    later = 0  # those players, as bits
    for i in range(players - min(max(obs[O_TRICK_N], 0), MAX_TRICK) - 1):
        p = (me + 1 + i) % players
        later |= 1 << p
        e0, e1 = _eq(obs, O_HOLDER, p + MAX_PLAYERS * HELD_SURE)
        m0, m1 = _eq(obs, O_HOLDER, p + MAX_PLAYERS * HELD_MAYBE)
        e0 &= u0
        e1 &= u1
        m0 &= u0
        m1 &= u1
        table[T_HELD + p] = _pop2(e0, e1) + 0.5 * _pop2(m0, m1)
        sure0 |= e0
        sure1 |= e1
        maybe0 |= m0
        maybe1 |= m1
    k0, k1 = _eq(obs, O_HOLDER, HOLDER_UNKNOWN)
    k0 &= u0
    k1 &= u1
    cnt[W_LATER_SURE] = sure0
    cnt[W_LATER_SURE + 1] = sure1
    cnt[W_LATER_MAYBE] = maybe0
    cnt[W_LATER_MAYBE + 1] = maybe1
    cnt[W_UNKNOWN] = k0
    cnt[W_UNKNOWN + 1] = k1
    t0 = cnt[W_SUIT + 2 * SUIT_TRUMP]
    t1 = cnt[W_SUIT + 2 * SUIT_TRUMP + 1]
    table[T_TRUMPS_LATER] = _pop2(t0 & sure0, t1 & sure1) + 0.5 * _pop2(t0 & maybe0,
                                                                         t1 & maybe1)
    pool = float(_pop2(k0, k1))
    slots = 0.0  # the unknown cards in the hands still to play
    for p in range(players):
        if (later >> p) & 1 != 0:
            slots += max(n - table[T_HELD + p], 0.0)
    table[T_Q] = min(slots / pool, 1.0) if pool > 0.0 else 0.0
    if places >= 2 and obs[O_TRICK_N] == 0:
        _fill_lead(obs, table, n)


@njit(inline="always", _nrt=False)
def _weighted(table, w0, w1):
    """Of the cards w0, w1, how many are in the hands still to play: 1 each known there
    for sure, 1/2 each perhaps, T_Q each of unknown place (from _fill_above's masks)."""
    cnt = _words(table)
    return (_pop2(w0 & cnt[W_LATER_SURE], w1 & cnt[W_LATER_SURE + 1])
            + 0.5 * _pop2(w0 & cnt[W_LATER_MAYBE], w1 & cnt[W_LATER_MAYBE + 1])
            + table[T_Q] * _pop2(w0 & cnt[W_UNKNOWN], w1 & cnt[W_UNKNOWN + 1]))


@njit(inline="always", _nrt=False)
def _suit_words(table, s):
    """The unseen cards of suit slot s, not blowfish (W_SUIT), as two words."""
    cnt = _words(table)
    return cnt[W_SUIT + 2 * s], cnt[W_SUIT + 2 * s + 1]


@njit(inline="always", _nrt=False)
def _fill_lead(obs, table, n):
    """A lead's bosses: the hand's cards that no card in another hand could beat (weighted
    below 1/2, _weighted of _above), counted per suit (T_BOSSES + s) and in all; and the
    blowfish and the trumps in other hands (T_LEAD_FISH, T_LEAD_TRUMPS)."""
    f0, f1 = _eq(obs, O_CARD_KIND, K_BLOWFISH)
    table[T_LEAD_FISH] = _weighted(table, f0, f1)
    t0, t1 = _suit_words(table, SUIT_TRUMP)
    table[T_LEAD_TRUMPS] = _weighted(table, t0, t1)
    for s in range(N_SUIT_SLOTS):
        table[T_BOSSES + s] = 0.0
    total = 0.0
    for i in range(n):
        c = obs[O_HAND + i]
        s = suit(obs, c)
        if 0 <= s < N_SUIT_SLOTS:
            a0, a1 = _above(obs, c, s, table)
            if _weighted(table, a0, a1) < 0.5:
                table[T_BOSSES + s] += 1.0
                total += 1.0
    table[T_BOSSES_ALL] = total


@njit(inline="always", _nrt=False)
def _above(obs, card, s, table):
    """The unseen cards, not blowfish, that could beat ``card`` (of suit s under the active
    shade, a value slot at least its own; the card itself too if unseen), as two words,
    from the masks of _fill_above; none for a card of no suit slot."""
    if not 0 <= s < N_SUIT_SLOTS:
        return np.uint64(0), np.uint64(0)
    cnt = _words(table)
    w0 = cnt[W_SUIT + 2 * s]
    w1 = cnt[W_SUIT + 2 * s + 1]
    t = _value_slot(obs[O_CARD_VALUE + card])
    if t > 0:  # (slot 0: every value is at or above it)
        w0 &= mask64_ge(obs, O_CARD_VALUE, t)
        w1 &= mask64_ge(obs, O_CARD_VALUE + 64, t)
    return w0, w1


@njit(inline="always", _nrt=False)
def _in(table, t, w0, w1):
    """Of the cards w0, w1 (_above), how many are in the place mask at word t."""
    cnt = _words(table)
    return float(_pop2(w0 & cnt[t], w1 & cnt[t + 1]))


@njit(inline="always", _nrt=False)
def _without(w0, w1, card):
    """How many of the cards w0, w1 are not ``card``."""
    if 0 <= card < 64:
        w0 &= ~(np.uint64(1) << np.uint64(card))
    elif 64 <= card < MAX_CARDS:
        w1 &= ~(np.uint64(1) << np.uint64(card - 64))
    return _pop2(w0, w1)


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
    from the masks of _fill_above."""
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
    w0, w1 = _above(obs, card, s, table)
    return _without(w0, w1, card)  # the card itself is not counted
