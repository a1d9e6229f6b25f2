"""weights: a parametric bot: every card it may play is scored by a weighted sum of features.

For each legal card the play decision computes named features of the card and of the
situation -- its strength, whether it would be the trick's highest card so far, how many
players still follow, whether it is trump / a blowfish / a buoy (+3-points, catch-1-other),
whether it is the boss of its suit, whether it would make its player the weakest of a trick
holding blowfish, the round's progress, the points gap to the best other player, the ocean
size, how much of the rest of the hand is trump in the next trick ... -- and plays the card
with the highest ``sum(w_i * f_i)``. The weights are the parameter vector (PARAM_NAMES
names them, PARAMS gives the defaults), so experiments can sweep or tune them.

The defaults were found by coordinate search over seat-rotated games: first against three
random bots, then against a table of greedy, counter and buoy_savvy. They win as often as
possible while the trick is open to later players only with strength to spare, avoid
spending trump when a plain card wins, lead strong, and win a little less eagerly while
behind or while the ocean is still full (losing early draws fresh ocean cards).

The other decisions follow fixed rules: trump choice and determine-trump take the shade
with the larger ``shade_count * cards + sum of values``; catch-1-other and exchange take
the strongest card; exchange gives and catch-1-card move the weakest; original Fishing
(kit.keep_value): zero-catch takes the card most worth keeping (never a minus-3
while there is another), pass-1-left passes the card least worth keeping (a low plain card,
not a zero, buoy or trump), determine-colour names the suit it holds the most high cards of.
"""
from fishing2sim.strategy.kit import (  # shared decisions
    C_DARK,
    C_LIGHT,
    C_NONE,
    E_CATCH_1_OTHER,
    E_PLUS_3,
    O_HAND_N,
    O_LED,
    O_OCEAN_N,
    O_PLAYERS,
    O_TRICK_N,
    O_TRICK_NO,
    O_TRUMP,
    SHARED_DECISIONS,
    SUIT_NONE,
    SUIT_TRUMP,
    blowfish_in_trick,
    decision,
    hand_card,
    has_effect,
    helper,
    is_blowfish,
    is_buoy,
    is_green,
    is_trump,
    leader_gap,
    n_options,
    option,
    power,
    richer_shade,
    suit,
    suit_under,
    to_play,
    trick_card,
    unseen_above,
    weakest_now,
    wins_now,
)

NAME = "weights"
OBSERVES = True
PARAM_NAMES = (
    "power",          # card strength / 47
    "win",            # 1 if the card would be the trick's highest so far
    "win_exposed",    # win * share of the other players still to play
    "win_cost",       # win * strength: < 0 wins as cheaply as possible
    "lose_cost",      # (1 - win) * strength: < 0 loses as cheaply as possible
    "trump",          # the card is trump
    "blowfish",       # the card is a blowfish
    "buoy",           # the card is a buoy
    "plus3",          # the card is the +3-points buoy
    "catch_other",    # the card is a catch-1-other buoy
    "lead_power",     # leading: strength
    "boss",           # win and no unseen card of its suit beats it
    "weakest_fish",   # it would be the weakest card, times the blowfish in the trick
    "late_win",       # win * progress through the round (0 .. 1)
    "behind_win",     # win * points behind the best other player / 20
    "ocean_win",      # win * ocean cards left / 60
    "shade_count",    # trump choice: weight of a card count against the sum of values
    "ruff",           # a trump played on a trick led in another suit
    "lead_trump",     # leading a trump
    "next_trumps",    # share of the rest of the hand that is trump in the next trick
    "suit_share",     # share of the hand in the card's suit (under the active trump)
)
PARAMS = (0.5, 3.0, -2.0, -0.5, -1.0, -1.0, 0.0, 0.3, 1.0, 0.3, 2.0, 0.0, 1.0, 0.0, -1.0,
          -1.0, 10.0, 0.0, 0.0, 0.5, 0.0)


@helper
def trumps_under(obs, shade):
    """Hand cards that are trump when ``shade`` is active."""
    k = 0
    for i in range(obs[O_HAND_N]):
        if suit_under(obs, hand_card(obs, i), shade) == SUIT_TRUMP:
            k += 1
    return k


@helper
def same_suit(obs, c):
    s = suit(obs, c)
    if s == SUIT_NONE:
        return 0
    k = 0
    for i in range(obs[O_HAND_N]):
        if suit(obs, hand_card(obs, i)) == s:
            k += 1
    return k


# a signature: numba would compile it again for the constant False of best_scored
@helper("float64(int64[::1], float64[::1], int64, float64, float64, int64, int64, boolean, int64, "
        "int64)")
def score(obs, params, c, exposed, progress, gap, fish, green_in_trick, t_now, t_flip):
    p = power(obs, c) / 47.0
    win = 1.0 if (not is_buoy(obs, c) and wins_now(obs, c)) else 0.0
    trump = is_trump(obs, c)
    s = params[0] * p + params[1] * win + params[2] * win * exposed
    s += params[3] * win * p + params[4] * (1.0 - win) * p
    if trump:
        s += params[5]
    if is_blowfish(obs, c):
        s += params[6]
    if is_buoy(obs, c):
        s += params[7]
        if has_effect(obs, c, E_PLUS_3):
            s += params[8]
        if has_effect(obs, c, E_CATCH_1_OTHER):
            s += params[9]
    if obs[O_TRICK_N] == 0:
        s += params[10] * p
        if trump:
            s += params[18]
    if win > 0 and params[11] != 0.0 and unseen_above(obs, c) == 0:
        s += params[11]
    if fish > 0 and params[12] != 0.0 and weakest_now(obs, c):
        s += params[12] * fish
    s += params[13] * win * progress
    s += params[14] * win * gap / 20.0
    s += params[15] * win * obs[O_OCEAN_N] / 60.0
    if trump and obs[O_LED] != SUIT_NONE and obs[O_LED] != SUIT_TRUMP:
        s += params[17]
    n = obs[O_HAND_N]
    if n > 1 and params[19] != 0.0 and obs[O_TRUMP] != C_NONE:
        # the rest of the hand that is trump in the next trick: a green in the trick
        # flips the shade (a determine-trump buoy is ignored)
        if green_in_trick or is_green(obs, c):
            nxt = C_DARK if obs[O_TRUMP] == C_LIGHT else C_LIGHT
            k = t_flip
        else:
            nxt = obs[O_TRUMP]
            k = t_now
        if suit_under(obs, c, nxt) == SUIT_TRUMP:
            k -= 1
        s += params[19] * k / (n - 1)
    if n > 0 and params[20] != 0.0:
        s += params[20] * same_suit(obs, c) / n
    return s


@helper
def best_scored(obs, params):
    exposed = to_play(obs) / (obs[O_PLAYERS] - 1)
    tricks = obs[O_TRICK_NO] + obs[O_HAND_N] - 1
    progress = (obs[O_TRICK_NO] - 1) / tricks if tricks > 1 else 1.0
    gap = leader_gap(obs)
    fish = blowfish_in_trick(obs)
    green_in_trick = False
    for i in range(obs[O_TRICK_N]):
        if is_green(obs, trick_card(obs, i)):
            green_in_trick = True
    t_now = t_flip = 0
    if obs[O_TRUMP] != C_NONE and params[19] != 0.0:
        t_now = trumps_under(obs, obs[O_TRUMP])
        t_flip = trumps_under(obs, C_DARK if obs[O_TRUMP] == C_LIGHT else C_LIGHT)
    best, best_s = option(obs, 0), -1e300
    for i in range(n_options(obs)):
        c = option(obs, i)
        s = score(obs, params, c, exposed, progress, gap, fish, green_in_trick, t_now, t_flip)
        if s > best_s:
            best, best_s = c, s
    return best


@decision
def play(obs, params, rng):
    return best_scored(obs, params)


@decision
def trump_choice(obs, params, rng):
    return richer_shade(obs, params[16])


@decision
def determine_trump(obs, params, rng):
    return richer_shade(obs, params[16])


# every decision not defined above: the heuristic bots' shared ones
FALLBACK = SHARED_DECISIONS
