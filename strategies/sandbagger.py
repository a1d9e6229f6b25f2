"""sandbagger: lose tricks on purpose early in a round, fight late.

In the first part of each round (PARAMS[0], the fraction of the round's tricks, default
one half) it ducks: it plays its weakest card that does not win the trick so far (buoys
first, so a +3-points or catch-1-other buoy still pays), keeping its strong cards for later.
Losing early keeps its points low, so it leads the next round, chooses the trump and draws
fresh ocean cards instead of its own caught cards; a weak card also tends to be the trick's
weakest, which catches the trick's blowfish. It never ducks in the last round or once the
ocean is empty: there is nothing fresh left to draw. For the rest of the round it fights:
it leads its strongest card and follows with the cheapest card that wins the trick so far,
else throws its weakest. Trump choice and determine-trump: the shade it holds more cards of;
catch-1-other and exchange take the strongest card; exchange gives and catch-1-card move
the weakest; original Fishing (kit.keep_value): zero-catch the card most worth
keeping (never a minus-3 while there is another), pass-1-left the card least worth keeping
(a low plain card, not a zero, buoy or trump), determine-colour the suit it holds the most
high cards of.
"""
from fishing2sim.strategy.kit import (  # shared decisions
    O_HAND_N,
    O_N_ROUNDS,
    O_OCEAN_N,
    O_ROUND,
    O_TRICK_N,
    O_TRICK_NO,
    SHARED_DECISIONS,
    cheapest_win_or_weakest,
    decision,
    helper,
    is_buoy,
    low_power_option,
    n_options,
    option,
    power,
    top_power_option,
    wins_now,
)

NAME = "sandbagger"
OBSERVES = True
PARAM_NAMES = ("sandbag_fraction",)
PARAMS = (0.5,)


@helper
def duck(obs):
    """The weakest card that does not win the trick so far (else the weakest card)."""
    best, best_p = -1, 1 << 30
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = power(obs, c)
        if (is_buoy(obs, c) or not wins_now(obs, c)) and p < best_p:
            best, best_p = c, p
    return best if best >= 0 else low_power_option(obs)


@helper
def fight(obs):
    """Lead the strongest card; follow with the cheapest winner, else the weakest card."""
    if obs[O_TRICK_N] == 0:
        return top_power_option(obs)
    return cheapest_win_or_weakest(obs)


@decision
def play(obs, params, rng):
    tricks = obs[O_TRICK_NO] + obs[O_HAND_N] - 1  # this round's tricks, as it stands
    fresh = obs[O_ROUND] < obs[O_N_ROUNDS] and obs[O_OCEAN_N] > 0
    if fresh and obs[O_TRICK_NO] <= params[0] * tricks:
        return duck(obs)
    return fight(obs)


# every decision not defined above: the heuristic bots' shared ones
FALLBACK = SHARED_DECISIONS
