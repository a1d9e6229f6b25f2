"""The judge of a trick: which card is highest (A6; the original Fishing's B2 / B4) and
which is weakest (A7). One place per rule, used by the engine (on the game state) and by
strategy_kit (on an observation, optionally with a card a strategy is thinking of playing).

Both read one int64 array ``a`` through offsets, so the same code serves both layouts:
``a[cards + i]`` is the card at trick position i (i < n; a negative id, such as a face-down
card in an observation, is skipped); ``extra`` >= 0 is a further card at position n;
``a[kinds + c]`` / ``a[values + c]`` are card c's kind and value, ``a[suits + c]`` its suit
in a trick under the active trump (SUIT_TRUMP, a colour, or SUIT_NONE). Card ids outside
0 .. MAX_CARDS-1 are skipped, so a corrupted observation cannot lead a read astray.
"""
from numba import njit

from fishing2sim.engine.constants import K_BLOWFISH, K_COLOUR, K_GREEN, MAX_CARDS, SUIT_NONE, SUIT_TRUMP

@njit(cache=True, inline="always", _nrt=False)
def beats(v, best, low, later):
    """A card of value v beats the best so far (value best): higher (``low``: lower), and
    of equal values the later card when ``later`` (Fishing 2's two 16s, A6), else the
    earlier one (the original Fishing, ruling F6)."""
    return ((v == best) & (later != 0)) | ((v != best) & ((v < best) if low != 0 else (v > best)))


@njit(cache=True, inline="always", _nrt=False)
def highest_index(a, cards, n, extra, kinds, values, suits, led, low, later):
    """A6 / B2: the trick position of the highest card (-1: an empty trick, or, in the
    original Fishing, nobody played the named suit or a trump: its namer catches).

    No suit set (only buoys and blowfish): the highest blowfish, else the first card.
    Otherwise a trump wins over the led suit (blowfish count as the led suit, and so as
    trump when trump was led); of two equal values the later is higher when ``later``
    (Fishing 2: the two 16s), else the earlier (the original Fishing).
    ``low`` != 0: the original Fishing's lowest-wins trick (B4), the lowest card wins.
    """
    m = n + 1 if extra >= 0 else n
    if m == 0:
        return -1
    if led == SUIT_NONE:
        best = -1
        hv = -1
        for i in range(m):
            c = extra if i == n else a[cards + i]
            if 0 <= c < MAX_CARDS and a[kinds + c] == K_BLOWFISH and a[values + c] > hv:
                hv = a[values + c]
                best = i
        return best if best >= 0 else 0
    # (the conditions are combined with & and |, not "and" / "or": selects, not branches,
    # on the cards' random values)
    best_t, tv, best_l, lv = -1, 0, -1, 0
    for i in range(m):
        c = extra if i == n else a[cards + i]
        if c < 0 or c >= MAX_CARDS:
            continue
        v = a[values + c]
        s = a[suits + c]
        t_ok = (s == SUIT_TRUMP) & ((best_t < 0) | beats(v, tv, low, later))
        best_t = i if t_ok else best_t
        tv = v if t_ok else tv
        l_ok = ((s == led) | (a[kinds + c] == K_BLOWFISH)) & \
            ((best_l < 0) | beats(v, lv, low, later))
        best_l = i if l_ok else best_l
        lv = v if l_ok else lv
    if best_t >= 0 and led != SUIT_TRUMP:
        return best_t
    return best_l


@njit(cache=True, inline="always", _nrt=False)
def weakest_index(a, cards, n, extra, kinds, values, suits, led):
    """A7: the trick position of the weakest card (-1: none).

    No suit set: the lowest blowfish (none: no weakest card). Otherwise the lowest shed
    card (a colour or green card of neither the led suit nor trump; of equals the earlier),
    else the lowest card of the led suit, blowfish included (A7 ruling: the card that set
    the suit counts; with trump led this is the lowest trump; the earlier 16 is the lower),
    else the lowest trump.
    """
    m = n + 1 if extra >= 0 else n
    weakest = -1
    wv = 1 << 30
    if led == SUIT_NONE:
        for i in range(m):
            c = extra if i == n else a[cards + i]
            if 0 <= c < MAX_CARDS and a[kinds + c] == K_BLOWFISH and a[values + c] < wv:
                wv = a[values + c]
                weakest = i
        return weakest
    for i in range(m):
        c = extra if i == n else a[cards + i]
        if c < 0 or c >= MAX_CARDS:
            continue
        k = a[kinds + c]
        s = a[suits + c]
        v = a[values + c]
        ok = ((k == K_COLOUR) | (k == K_GREEN)) & (s != led) & (s != SUIT_TRUMP) & (v < wv)
        wv = v if ok else wv
        weakest = i if ok else weakest
    if weakest >= 0:
        return weakest
    for i in range(m):
        c = extra if i == n else a[cards + i]
        if c < 0 or c >= MAX_CARDS:
            continue
        v = a[values + c]
        ok = ((a[kinds + c] == K_BLOWFISH) | (a[suits + c] == led)) & (v < wv)
        wv = v if ok else wv
        weakest = i if ok else weakest
    if weakest >= 0:
        return weakest
    for i in range(m):  # not reached while a suit is set; kept for completeness
        c = extra if i == n else a[cards + i]
        if 0 <= c < MAX_CARDS and a[suits + c] == SUIT_TRUMP and a[values + c] < wv:
            wv = a[values + c]
            weakest = i
    return weakest


@njit(cache=True, inline="always", _nrt=False)
def would_win(a, cards, n, card, kinds, values, suits, led, low, later):
    """``card`` played now (at trick position n) would be the trick's highest card:
    ``highest_index(a, cards, n, card, ...) == n``, in one pass that stops at the first
    card that keeps it from winning (the bots ask this of every option). ``led``: the led
    suit once the card is played."""
    if card < 0 or card >= MAX_CARDS:
        return False
    if led == SUIT_NONE:  # only buoys and blowfish so far: the rare case, judged in full
        return highest_index(a, cards, n, card, kinds, values, suits, led, low, later) == n
    v = a[values + card]
    s = a[suits + card]
    if s == SUIT_TRUMP and led != SUIT_TRUMP:
        # A6: a trump over a colour lead wins if it beats every trump before it
        for i in range(n):
            c = a[cards + i]
            if 0 <= c < MAX_CARDS and a[suits + c] == SUIT_TRUMP and \
                    not beats(v, a[values + c], low, later):
                return False
        return True
    if s != led and a[kinds + card] != K_BLOWFISH:
        return False  # neither trump nor the led suit (nor a blowfish)
    for i in range(n):  # the highest of the led suit (blowfish included), and no trump
        c = a[cards + i]
        if 0 <= c < MAX_CARDS:
            sc = a[suits + c]
            if sc == SUIT_TRUMP and led != SUIT_TRUMP:
                return False
            if (sc == led or a[kinds + c] == K_BLOWFISH) and \
                    not beats(v, a[values + c], low, later):
                return False
    return True
