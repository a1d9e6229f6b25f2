"""Batches of games: one kernel call plays many games and fills per-game output arrays."""
import numpy as np
from numba import njit

from .constants import MAX_PLAYERS, MAX_ROUNDS, OBS_SIZE
from .core import run_game, setup_game
from .rng import game_seed
from .state import (
    A_POINTS, R_OCEAN, R_OCEAN_END, R_POINTS, R_TRUMP, R_CHOOSER, RNG_SIZE, S_END,
    S_END_ROUND, S_ERR_CHOICE, S_ERR_CODE, S_ERR_KIND, S_ERR_SEAT, S_FIRST_LEADER,
    S_N_PLAYS, S_N_TRICKS, S_ROUND, STATE_SIZE,
)

# columns of the per-game integer output
G_END = 0  # END_* code
G_END_ROUND = 1  # round in which the game ended (overfishing: the round that could not start
G_ROUNDS = 2  # rounds completed or started
G_WINNERS = 3  # bitmask of seats sharing the win
G_FIRST_LEADER = 4
G_PLAYS = 5
G_TRICKS = 6
G_ERR_CODE = 7
G_ERR_SEAT = 8
G_ERR_KIND = 9
G_ERR_CHOICE = 10
N_G = 11


@njit(cache=True)
def record_game(st, g, out_int, out_points, out_ocean, out_trump, out_round_points, players):
    out_int[g, 0] = st[S_END]
    out_int[g, 1] = st[S_END_ROUND]
    out_int[g, 2] = st[S_ROUND]
    best = -(1 << 40)
    for p in range(players):
        out_points[g, p] = st[A_POINTS + p]
        if st[A_POINTS + p] > best:
            best = st[A_POINTS + p]
    mask = 0
    for p in range(players):
        if st[A_POINTS + p] == best:
            mask |= 1 << p
    out_int[g, 3] = mask
    out_int[g, 4] = st[S_FIRST_LEADER]
    out_int[g, 5] = st[S_N_PLAYS]
    out_int[g, 6] = st[S_N_TRICKS]
    out_int[g, 7] = st[S_ERR_CODE]
    out_int[g, 8] = st[S_ERR_SEAT]
    out_int[g, 9] = st[S_ERR_KIND]
    out_int[g, 10] = st[S_ERR_CHOICE]
    for r in range(MAX_ROUNDS + 1):
        out_ocean[g, r] = st[R_OCEAN + r]
        out_ocean[g, MAX_ROUNDS + 1 + r] = st[R_OCEAN_END + r]
        out_trump[g, r] = st[R_TRUMP + r]
        out_trump[g, MAX_ROUNDS + 1 + r] = st[R_CHOOSER + r]
        for p in range(MAX_PLAYERS):
            out_round_points[g, r, p] = st[R_POINTS + r * MAX_PLAYERS + p]


@njit(cache=True)
def play_batch(deck, players, ruleset, hand_sizes, n_rounds, first_leader, seed, start, n,
               strats, params, check, observe_mask, out_int, out_points, out_ocean, out_trump,
               out_round_points):
    """Play games start .. start+n-1 of the experiment seeded ``seed``; game g writes row g-start.

    Stops early on a strategy error (that game's row carries the error); returns the number
    of games played.
    """
    st = np.zeros(STATE_SIZE, np.int64)
    rng = np.zeros(RNG_SIZE, np.uint64)
    ev = np.zeros((1, 6), np.int64)
    obs = np.zeros(OBS_SIZE, np.int64)
    for g in range(n):
        setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, first_leader,
                   game_seed(seed, start + g), 0, check, observe_mask)
        run_game(st, rng, ev, deck, obs, strats, params, False)
        record_game(st, g, out_int, out_points, out_ocean, out_trump, out_round_points,
                    players)
        if st[S_ERR_CODE] != 0:
            return g + 1
    return n
