"""counter: count the cards played this round and cash boss cards.

It reads the cards played this round (O_PLAYED, with who played them) and its own hand.
A card is the *boss* of its suit when no card of that suit that could beat it is unseen
(neither played this round nor in its hand). From the same list it learns which players
showed out of blue, yellow or red (they did not follow a trick led in that colour: they can
trump it). Leading, it cashes a boss: trump bosses first (only a blowfish beats them),
then colour bosses no opponent can trump; else a blowfish, else its strongest card.
Following, it plays the cheapest boss that wins the trick so far when players are still to
come, else the cheapest card that wins so far, else its weakest card. Trump choice and
determine-trump: the shade it holds more and higher of (10 per card plus the values).
Catch-1-other and exchange take the strongest card; exchange gives and catch-1-card move
the weakest; original Fishing (kit.keep_value): zero-catch the card most worth
keeping (never a minus-3 while there is another), pass-1-left the card least worth keeping
(a low plain card, not a zero, buoy or trump), determine-colour the suit it holds the most
high cards of. Original Fishing: purple counts like the other colours.
"""
from fishing2sim.strategy.kit import (  # shared decisions
    C_BLUE,
    C_PURPLE,
    C_RED,
    C_YELLOW,
    K_BLOWFISH,
    K_BUOY,
    O_CARD_COLOUR,
    O_CARD_KIND,
    O_N_PLAYED,
    O_PLAYED,
    O_PLAYED_BY,
    O_PLAYERS,
    O_SEAT,
    O_TRICK_N,
    SHARED_DECISIONS,
    cheapest_win_or_weakest,
    decision,
    helper,
    is_blowfish,
    is_boss,
    is_buoy,
    is_trump,
    n_options,
    option,
    power,
    richer_shade,
    to_play,
    wins_now,
)

NAME = "counter"
OBSERVES = True


@helper
def void_mask(obs, colour):
    """Bit p: player p did not follow a trick led in ``colour`` (blue, yellow, red, purple)
    this round. Tricks are the played list in groups of one card per player."""
    players = obs[O_PLAYERS]
    mask = 0
    n = obs[O_N_PLAYED]
    for t in range(n // players):
        led = -1
        for k in range(players):
            c = obs[O_PLAYED + t * players + k]
            kind = obs[O_CARD_KIND + c]
            if kind == K_BUOY or kind == K_BLOWFISH:
                continue
            if led < 0:
                led = obs[O_CARD_COLOUR + c]
                if led != colour:
                    break
            elif obs[O_CARD_COLOUR + c] != colour:
                mask |= 1 << obs[O_PLAYED_BY + t * players + k]
    return mask


@helper
def trumpable(obs, c):
    """Some opponent showed out of c's colour this round."""
    col = obs[O_CARD_COLOUR + c]
    if col != C_BLUE and col != C_YELLOW and col != C_RED and col != C_PURPLE:
        return False
    return (void_mask(obs, col) & ~(1 << obs[O_SEAT])) != 0


@helper
def lead(obs):
    boss, boss_key = -1, -1
    fish, fish_p = -1, -1
    top, top_p = option(obs, 0), -1
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = power(obs, c)
        if is_boss(obs, c):
            key = p + (200 if is_trump(obs, c) else (0 if trumpable(obs, c) else 100))
            if key > boss_key:
                boss, boss_key = c, key
        if is_blowfish(obs, c) and p > fish_p:
            fish, fish_p = c, p
        if p > top_p:
            top, top_p = c, p
    if boss >= 0 and boss_key >= 100:
        return boss
    if fish >= 0:
        return fish
    return top


@helper
def follow(obs):
    boss, boss_p = -1, 1 << 30
    if to_play(obs) > 0:  # players still to come: the cheapest boss that wins so far
        for i in range(n_options(obs)):
            c = option(obs, i)
            p = power(obs, c)
            if p < boss_p and not is_buoy(obs, c) and is_boss(obs, c) and wins_now(obs, c):
                boss, boss_p = c, p
    if boss >= 0:
        return boss
    return cheapest_win_or_weakest(obs)


@decision
def play(obs, params, rng):
    if obs[O_TRICK_N] == 0:
        return lead(obs)
    return follow(obs)


@decision
def trump_choice(obs, params, rng):
    return richer_shade(obs, 10)


determine_trump = trump_choice

# every decision not defined above: the heuristic bots' shared ones
FALLBACK = SHARED_DECISIONS
