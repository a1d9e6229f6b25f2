"""buoy_savvy: play the strong cards like a greedy player, and time the buoys and blowfish.

Cards: lead the strongest card, follow with the cheapest card that wins the trick so far.
When no card wins, it spends the trick on a buoy that pays off in a lost trick, in this
order: +3-points (3 points, so it goes early), catch-1-other (it catches the trick's best
card for itself), exchange-1-card when the trick holds a card stronger than its weakest (it
takes that card into hand and puts its weakest face down), determine-trump when it holds
more of one shade; otherwise it throws its weakest card, and if the trick holds blowfish
it throws the card that makes it the weakest (the weakest card's player catches them).
A blowfish wins tricks but is itself caught by the weakest card's player: it plays one
only when that player is not ahead of it on points. Buoy decisions: determine-trump and
the trump choice name the shade it holds most of; catch-1-other takes the card most useful
next round (blowfish, the 16s, high greens, the 26s), from the points leader if it can;
exchange takes the card strongest this round and gives its weakest (never the +3 buoy);
catch-1-card moves its weakest card. Original Fishing (kit.keep_value): zero-catch
takes the card most worth keeping (never a minus-3 while there is another), pass-1-left
passes the card least worth keeping (a low plain card, not a zero, buoy or trump),
determine-colour names the suit it holds the most high cards of.
"""
from fishing2sim.strategy.kit import (  # shared decisions
    DARK,
    E_CATCH_1_OTHER,
    E_DETERMINE_TRUMP,
    E_EXCHANGE_1_CARD,
    E_PLUS_3,
    FACE_DOWN_OPTION,
    LIGHT,
    O_PLAYERS,
    O_POINTS,
    O_SEAT,
    O_TRICK_IN,
    O_TRICK_N,
    SHARED_DECISIONS,
    blowfish_in_trick,
    decision,
    future_power,
    has_effect,
    helper,
    highest_with,
    is_blowfish,
    is_buoy,
    n_options,
    option,
    power,
    shade_cards,
    top_power_option,
    trick_card,
    trick_player,
    weakest_now,
    weakest_with,
    wins_now,
)

NAME = "buoy_savvy"
OBSERVES = True


@helper
def points_leader(obs):
    """The seat with the most points other than the deciding seat."""
    me = obs[O_SEAT]
    best, best_p = -1, -(1 << 40)
    for p in range(obs[O_PLAYERS]):
        if p != me and obs[O_POINTS + p] > best_p:
            best, best_p = p, obs[O_POINTS + p]
    return best


@helper
def trick_best_power(obs):
    best = 0
    for i in range(obs[O_TRICK_N]):
        if obs[O_TRICK_IN + i] != 0:
            p = power(obs, trick_card(obs, i))
            if p > best:
                best = p
    return best


@helper
def fish_ok(obs, c):
    """Play blowfish c only if the weakest card's player would not be ahead of us."""
    w = weakest_with(obs, c)
    if w < 0 or w >= obs[O_TRICK_N]:
        return True
    q = trick_player(obs, w)
    return obs[O_POINTS + q] <= obs[O_POINTS + obs[O_SEAT]]


@helper
def follow(obs):
    win, win_p = -1, 1 << 30
    low, low_p = option(obs, 0), 1 << 30
    weak, weak_p = -1, 1 << 30
    plus3, c1o, exch, det = -1, -1, -1, -1
    nl, nd = shade_cards(obs, LIGHT), shade_cards(obs, DARK)
    fish = blowfish_in_trick(obs)
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = power(obs, c)
        if is_buoy(obs, c):
            if has_effect(obs, c, E_PLUS_3):
                plus3 = c
            elif has_effect(obs, c, E_CATCH_1_OTHER):
                c1o = c
            elif has_effect(obs, c, E_EXCHANGE_1_CARD):
                exch = c
            elif has_effect(obs, c, E_DETERMINE_TRUMP):
                det = c
        elif wins_now(obs, c) and p < win_p and (not is_blowfish(obs, c) or fish_ok(obs, c)):
            win, win_p = c, p
        if p < low_p:
            low, low_p = c, p
        if fish > 0 and not is_buoy(obs, c) and weakest_now(obs, c) and p < weak_p:
            weak, weak_p = c, p
    if win >= 0:
        return win
    if plus3 >= 0:
        return plus3
    if c1o >= 0:
        return c1o
    if exch >= 0 and trick_best_power(obs) > low_p:
        return exch
    if det >= 0 and nl != nd:
        return det
    if weak >= 0:
        return weak
    return low


@helper
def best_catch(obs):
    """The card most useful next round; from the points leader's catch if it can."""
    lead_p = points_leader(obs)
    hi = highest_with(obs, -1)
    hi_p = trick_player(obs, hi) if hi >= 0 else -1
    w = weakest_with(obs, -1)
    w_p = trick_player(obs, w) if w >= 0 else -1
    best, best_s = option(obs, 0), -1
    for i in range(n_options(obs)):
        c = option(obs, i)
        s = 2 * future_power(obs, c)
        owner = w_p if is_blowfish(obs, c) else hi_p  # who would catch it otherwise
        if c >= FACE_DOWN_OPTION:
            owner = hi_p
        if owner == lead_p:
            s += 10
        if s > best_s:
            best, best_s = c, s
    return best


@decision
def play(obs, params, rng):
    if obs[O_TRICK_N] == 0:
        return top_power_option(obs)
    return follow(obs)


@decision
def catch_1_other(obs, params, rng):
    return best_catch(obs)


# every decision not defined above: the heuristic bots' shared ones
FALLBACK = SHARED_DECISIONS
