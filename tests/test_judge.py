"""The trick judge's one-pass question (would this card, played now, win?) gives the same
answer as its full judgement (highest_index) on random tricks of every shape: colour and
trump leads, blowfish, buoys, equal values (the two 16s: the later wins in Fishing 2, the
earlier in Fishing), lowest-wins tricks and ids that are no card."""
import numpy as np

from fishing2sim.engine.constants import (
    K_BLOWFISH, K_BUOY, K_COLOUR, K_GREEN, MAX_CARDS, SUIT_NONE, SUIT_TRUMP,
)
from fishing2sim.engine.judge import highest_index, would_win

CARDS, KINDS, VALUES, SUITS = 0, 16, 16 + MAX_CARDS, 16 + 2 * MAX_CARDS
SIZE = 16 + 3 * MAX_CARDS


def random_table(gen):
    """A deck of 40 cards: kinds, values (few distinct, so ties are common) and suits
    (three colours and trump; buoys and blowfish have no suit)."""
    a = np.full(SIZE, -7, np.int64)
    for c in range(40):
        k = int(gen.choice([K_COLOUR, K_COLOUR, K_GREEN, K_BLOWFISH, K_BUOY]))
        a[KINDS + c] = k
        a[VALUES + c] = int(gen.integers(0, 6))
        if k in (K_BLOWFISH, K_BUOY):
            a[SUITS + c] = SUIT_NONE
        else:
            a[SUITS + c] = int(gen.choice([0, 1, 2, SUIT_TRUMP]))
    return a


def test_would_win_is_highest_index_in_one_pass():
    gen = np.random.default_rng(3)
    checked = wins = ties = 0
    for _ in range(300):
        a = random_table(gen)
        for _ in range(60):
            n = int(gen.integers(0, 7))
            trick = gen.integers(-2, 42, n)  # a few ids that are no card (face down, junk)
            a[CARDS:CARDS + n] = trick
            card = int(gen.integers(-1, 41))
            first = next((int(c) for c in trick if 0 <= c < 40), card)
            led = int(a[SUITS + first]) if 0 <= first < 40 else SUIT_NONE
            if gen.random() < 0.2:
                led = SUIT_TRUMP
            for low in (0, 1):
                for later in (0, 1):
                    full = highest_index(a, CARDS, n, card, KINDS, VALUES, SUITS, led, low,
                                         later)
                    fast = would_win(a, CARDS, n, card, KINDS, VALUES, SUITS, led, low, later)
                    assert fast == (0 <= card < MAX_CARDS and full == n), \
                        (trick.tolist(), card, led, low, later, full)
                    checked += 1
                    wins += fast
                    ties += any(0 <= c < 40 and a[VALUES + c] == a[VALUES + card]
                                for c in trick) if 0 <= card < 40 else 0
    assert checked == 300 * 60 * 4
    assert 0.1 < wins / checked < 0.6 and ties > 5000, (wins, ties)
