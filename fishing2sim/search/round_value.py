"""The learned end-of-round value: the round's points margin plus an estimate of how that
margin moves in the rounds still to play (docs/search.md, "A learned end-of-round value").

A search whose rollouts stop at the end of the round (horizon 0) values a world by the
points margin then: what the round leaves for the rounds after (the boats' contents, who
must draw from the ocean, who leads the next round) is not in its values. A rollout to the
end of the game (horizon 1) sees it, at about six times the cost. Horizon 2 stops at the
round's end like horizon 0 and adds :func:`rest_of_game`: a linear estimate, over
:data:`N_RV` features of the state at the round's end (:func:`round_end_features`), of the
change of the seat's margin from then to the game's end, fitted by least squares on games
played by the rollout strategy (fishing2sim/train/round_value.py). Its coefficients are a
table per ruleset, player count and number of rounds still to play, read from
``fishing2sim/data/round_value.npz`` (strategy/round_table.py, when it is imported: numba
freezes them into the compiled search; the engine's stale-cache check covers that file).

The estimate reads the whole state of the rollout's world: a search's worlds are sampled,
so it uses nothing a seat could not have drawn in its own sampled world.
"""
import numpy as np
from numba import njit

from fishing2sim.engine.constants import (
    END_RUNNING, K_BLOWFISH, K_BUOY, K_GREEN, MAX_CARDS, MAX_PLAYERS,
)
from fishing2sim.engine.core import best_points, next_leader
from fishing2sim.engine.sigs import ST, i64, types
from fishing2sim.engine.state import (
    A_BOAT, A_BOAT_HEAD, A_BOAT_N, A_HAND_SIZES, A_KIND, A_POINTS, A_VALUE,
    PH_ROUND_START, S_END, S_N_ROUNDS, S_OCEAN_LEN, S_OCEAN_TOP, S_PHASE,
    S_PLAYERS, S_ROUND, S_RULESET,
)
from fishing2sim.strategy.round_table import (  # noqa: F401  (the table's layout and file)
    N_RV, N_RV_LEFT, N_RV_PLAYERS, N_RV_RULESETS, RV_COEF, RV_FILE, RV_NAMES, RV_OK,
    RV_SHAPE, RV_VERSION, load_coefficients,
)


@njit(cache=True, _nrt=False)
def _features(st, s):
    """Seat s's features of a state at a round's end (the round scored, the next not
    begun): a tuple of a flag and the N_RV features. The flag is 0.0 where there is
    nothing to estimate: the game is over, or the ocean cannot cover the next round's
    shortfall (the game then ends by overfishing before anyone draws, and the margin
    stands as it is). A "relative" figure is s's less the mean of the other seats'."""
    z = 0.0
    if st[S_END] != END_RUNNING or st[S_PHASE] != PH_ROUND_START:
        return (0.0, z, z, z, z, z, z, z, z, z, z, z, z)
    players = st[S_PLAYERS]
    h = st[A_HAND_SIZES + st[S_ROUND] + 1]
    ocean = st[S_OCEAN_LEN] - st[S_OCEAN_TOP]
    total_short = 0
    for p in range(players):
        total_short += max(0, h - st[A_BOAT_N + p])
    if total_short > ocean:
        return (0.0, z, z, z, z, z, z, z, z, z, z, z, z)
    leader = next_leader(st, players)
    margin = float(st[A_POINTS + s] - best_points(st, players, s))
    slack = float(ocean - total_short)
    # per seat: boat size, ocean shortfall, the next hand's strength from the boat (the
    # top h cards: values of colour and green cards), its greens, blowfish and buoys, and
    # the cards left in the boat after the draw; s's figures less the others' mean
    k = 1.0 / max(1, players - 1)
    r_boat = 0.0
    r_short = 0.0
    r_strength = 0.0
    r_greens = 0.0
    r_other = 0.0
    r_rest = 0.0
    for p in range(players):
        n = st[A_BOAT_N + p]
        head = st[A_BOAT_HEAD + p]
        strength = 0.0
        greens = 0.0
        other = 0.0
        for j in range(min(n, h)):
            c = st[A_BOAT + p * MAX_CARDS + (head + j) % MAX_CARDS]
            kind = st[A_KIND + c]
            if kind == K_BLOWFISH or kind == K_BUOY:
                other += 1.0
            else:
                strength += st[A_VALUE + c]
                if kind == K_GREEN:
                    greens += 1.0
        w = 1.0 if p == s else -k
        r_boat += w * n
        r_short += w * max(0, h - n)
        r_strength += w * strength
        r_greens += w * greens
        r_other += w * other
        r_rest += w * max(0, n - h)
    return (1.0, 1.0, margin / 10.0, max(margin, 0.0) / 10.0, r_boat / 10.0, r_short / 10.0,
            r_strength / (10.0 * h), r_greens / h, r_other / h, 1.0 if leader == s else 0.0,
            slack / 10.0, margin / 10.0 if slack < 2 * players else 0.0, r_rest / 10.0)


@njit(cache=True, _nrt=False)
def round_end_features(st, s, out):
    """Seat s's features of a state at a round's end into out[:N_RV]; False where there is
    nothing to estimate (:func:`_features`)."""
    f = _features(st, s)
    if f[0] == 0.0:
        return False
    for j in range(N_RV):
        out[j] = f[j + 1]
    return True


@njit(types.float64(ST, i64), cache=True, _nrt=False)
def rest_of_game(st, s):
    """The estimated change of seat s's points margin from this round's end to the game's
    end (0 where there is nothing to estimate: :func:`_features`)."""
    f = _features(st, s)
    if f[0] == 0.0:
        return 0.0
    left = st[S_N_ROUNDS] - st[S_ROUND]
    if left < 1 or left >= N_RV_LEFT:
        return 0.0
    c = RV_COEF[st[S_RULESET], st[S_PLAYERS], left]
    v = 0.0
    for j in range(N_RV):
        v += c[j] * f[j + 1]
    return v
