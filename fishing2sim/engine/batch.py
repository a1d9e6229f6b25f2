"""Batches of games: one kernel call plays many games and fills per-game output arrays.

``play_batch`` plays plain games. ``trump_batch`` plays the same games and, at every trump
choice (A10.3) up to ``max_round``, finishes the game from copies of the state once with
each shade, twice (docs/rules.md E): pair 1 on the game's own streams after the choice was
made (common random numbers for both shades), pair 2 on fresh streams. The main game then
goes on with the strategy's own choice, so both kernels give the same per-game results.
"""
import numpy as np
from numba import njit

from fishing2sim.engine.constants import (
    C_DARK, C_LIGHT, END_ERROR, EV_FIELDS, F_TIER, MAX_PLAYERS, MAX_ROUNDS, OBS_SIZE,
    STOP_AT_TRUMP, STOP_NEVER,
)
from fishing2sim.engine.core import (
    apply_trump_choice, ask_trump_choice, best_points, run_game, setup_game, winners_mask,
)
from fishing2sim.engine.records import (  # noqa: F401 (the records' names, read here too)
    G_END, G_END_ROUND, G_ROUNDS, G_WINNERS, G_FIRST_LEADER, G_PLAYS, G_TRICKS, G_ERR_CODE,
    G_ERR_SEAT, G_ERR_KIND, G_ERR_CHOICE, G_OCEAN_DRAWN, G_MAX_TIER, N_G, GAME_LAYOUT,
    T_CHOOSER, T_CHOICE, T_D1_POINTS, T_D2_POINTS, T_D1_WIN, T_D2_WIN, N_T, PAIR_LAYOUT,
)
from fishing2sim.engine.rng import game_seed, mix64, seed_streams
from fishing2sim.engine.sigs import DECK, EV, OBS, PARAMS, RNG, ST, STRATS, i64, types, void
from fishing2sim.engine.state import (
    A_POINTS, PH_TRUMP, R_OCEAN, R_OCEAN_END, R_POINTS, R_TRUMP, R_CHOOSER, RNG_SIZE,
    S_END, S_END_ROUND, S_ERR_CHOICE, S_ERR_CODE, S_ERR_KIND, S_ERR_SEAT, S_FIRST_LEADER,
    S_LEADER, S_LOG, S_EVN, S_N_PLAYS, S_N_TRICKS, S_OCEAN_TOP, S_PHASE, S_ROUND, A_OCEAN,
    A_OPTIONS, S_FORCED, S_N_OPTIONS, S_OBSERVE_MASK, S_SEARCH_MASK,
)

WIN_UNIT = 60  # win shares in 60ths: a win shared by k players is 60 / k for each (exact)


@njit(cache=True, _nrt=False)
def record_game(st, g, deck_tier, out_int, out_points, out_ocean, out_trump,
                out_round_points, players):
    out_int[g, G_END] = st[S_END]
    out_int[g, G_END_ROUND] = st[S_END_ROUND]
    out_int[g, G_ROUNDS] = st[S_ROUND]
    for p in range(players):
        out_points[g, p] = st[A_POINTS + p]
    out_int[g, G_WINNERS] = winners_mask(st, players)
    out_int[g, G_FIRST_LEADER] = st[S_FIRST_LEADER]
    out_int[g, G_PLAYS] = st[S_N_PLAYS]
    out_int[g, G_TRICKS] = st[S_N_TRICKS]
    out_int[g, G_ERR_CODE] = st[S_ERR_CODE]
    out_int[g, G_ERR_SEAT] = st[S_ERR_SEAT]
    out_int[g, G_ERR_KIND] = st[S_ERR_KIND]
    out_int[g, G_ERR_CHOICE] = st[S_ERR_CHOICE]
    drawn = st[S_OCEAN_TOP]
    out_int[g, G_OCEAN_DRAWN] = drawn
    out_int[g, G_MAX_TIER] = deck_tier[st[A_OCEAN + drawn - 1]] if drawn > 0 else 0
    for r in range(MAX_ROUNDS + 1):
        out_ocean[g, r] = st[R_OCEAN + r]
        out_ocean[g, MAX_ROUNDS + 1 + r] = st[R_OCEAN_END + r]
        out_trump[g, r] = st[R_TRUMP + r]
        out_trump[g, MAX_ROUNDS + 1 + r] = st[R_CHOOSER + r]
        for p in range(MAX_PLAYERS):
            out_round_points[g, r, p] = st[R_POINTS + r * MAX_PLAYERS + p]


@njit(cache=True)
def new_buffers():
    """The observation buffers of a batch (as state.new_obs): a row per seat, one spare."""
    obs = np.empty((MAX_PLAYERS + 1, OBS_SIZE), np.int64)
    obs[:] = -1
    return obs


@njit(cache=True)
def game_scratch(deck, ev_rows):
    """The scratch a batch kernel reuses for every game: two random states (the game's and
    a branch's or replay's), ``ev_rows`` event rows, the observation buffers and the deck's
    tiers."""
    return (np.zeros(RNG_SIZE, np.uint64), np.zeros(RNG_SIZE, np.uint64),
            np.zeros((ev_rows, EV_FIELDS), np.int64), new_buffers(), deck[:, F_TIER].copy())


@njit(cache=True)
def play_batch(deck, players, ruleset, hand_sizes, n_rounds, first_leader, seed, start, n,
               strats, params, check, observe_mask, work, out_int, out_points, out_ocean,
               out_trump, out_round_points):
    """Play games start .. start+n-1 of the experiment seeded ``seed``; game g writes row g-start.

    ``work`` [2, STATE_SIZE] holds the game's state (row 0; row 1 is the trump branches'):
    after a strategy error or an exception raised inside a strategy it tells which seat
    and decision it was (S_ERR_*, S_ASK_*; the options at A_OPTIONS).
    Stops early on a strategy error (that game's row carries the error); returns the number
    of games played.
    """
    st = work[0]
    rng = np.zeros(RNG_SIZE, np.uint64)
    ev = np.zeros((1, EV_FIELDS), np.int64)
    obs = new_buffers()
    tier = deck[:, F_TIER].copy()
    for g in range(n):
        setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, first_leader,
                   game_seed(seed, start + g), 0, check, observe_mask)
        run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
        record_game(st, g, tier, out_int, out_points, out_ocean, out_trump, out_round_points,
                    players)
        if st[S_ERR_CODE] != 0:
            return g + 1
    return n


@njit(cache=True)
def win_share(st, p, players):
    """Seat p's share of the win in 60ths (shared wins split equally)."""
    best = best_points(st, players, -1)
    if st[A_POINTS + p] != best:
        return 0
    k = 0
    for q in range(players):
        if st[A_POINTS + q] == best:
            k += 1
    return 60 // k


@njit(void(ST, RNG, ST, RNG), cache=True, _nrt=False)
def copy_game(src, src_rng, dst, dst_rng):
    """Copy a game's state and random streams (src, src_rng) into (dst, dst_rng): where a
    branch starts. (Element by element: a slice copy compiles numba's shape-mismatch error
    path, with its string formatting, into every cold start; the signature compiles this at
    import.)"""
    for i in range(src.shape[0]):
        dst[i] = src[i]
    for i in range(src_rng.shape[0]):
        dst_rng[i] = src_rng[i]


@njit(types.UniTuple(i64, 2)(ST, RNG, ST, RNG, EV, DECK, OBS, STRATS, PARAMS, i64, i64, i64,
                                  types.uint64), cache=True)
def play_branch(src, src_rng, br, br_rng, ev, deck, obs, strats, params, shade, players, c,
                fresh_seed):
    """Finish the game from a copy of (src, src_rng) with ``shade`` as the trump choice;
    return (points, win share in 60ths) of seat c. fresh_seed != 0: new streams. The
    branch never searches: a search seat (engine/search.py) plays on with its rollout
    strategy's decisions."""
    copy_game(src, src_rng, br, br_rng)
    br[S_LOG] = 0
    br[S_SEARCH_MASK] = 0
    br[S_FORCED] = 0
    if fresh_seed != 0:
        seed_streams(br_rng, np.uint64(fresh_seed))
    apply_trump_choice(br, ev, shade)
    run_game(br, br_rng, ev, deck, obs, strats, params, STOP_NEVER)
    if br[S_ERR_CODE] != 0:
        return -(1 << 40), 0
    return br[A_POINTS + c], win_share(br, c, players)


@njit(void(ST, ST), cache=True)
def take_branch_error(st, br):
    """A strategy failed in a branch: the game stops with the branch's error."""
    st[S_ERR_CODE] = br[S_ERR_CODE]
    st[S_ERR_SEAT] = br[S_ERR_SEAT]
    st[S_ERR_KIND] = br[S_ERR_KIND]
    st[S_ERR_CHOICE] = br[S_ERR_CHOICE]
    st[S_N_OPTIONS] = br[S_N_OPTIONS]
    for i in range(br[S_N_OPTIONS]):
        st[A_OPTIONS + i] = br[A_OPTIONS + i]
    st[S_END] = END_ERROR


@njit(cache=True)
def trump_pairs(st, rng, br, br_rng, ev, deck, obs, strats, params, players, gseed, r,
                choice, out_pairs, g):
    """The trump choice ``choice`` of round r just made in game g (seeded gseed): its two
    pairs of branches (docs/rules.md E; pair 1 on the game's own streams, pair 2 on fresh
    ones) into out_pairs[g, r, T_*]. Every branch is checked at once: the next one starts
    again from st and would wipe the error (and its points would enter the sums). Returns
    False when a branch failed (the game then carries the branch's error)."""
    c = st[S_LEADER]
    pl, wl = play_branch(st, rng, br, br_rng, ev, deck, obs, strats, params, C_LIGHT,
                         players, c, 0)
    if br[S_ERR_CODE] != 0:
        take_branch_error(st, br)
        return False
    pd, wd = play_branch(st, rng, br, br_rng, ev, deck, obs, strats, params, C_DARK,
                         players, c, 0)
    if br[S_ERR_CODE] != 0:
        take_branch_error(st, br)
        return False
    fresh = mix64(gseed ^ np.uint64(0xF1F2 + r))
    ql, xl = play_branch(st, rng, br, br_rng, ev, deck, obs, strats, params, C_LIGHT,
                         players, c, fresh)
    if br[S_ERR_CODE] != 0:
        take_branch_error(st, br)
        return False
    qd, xd = play_branch(st, rng, br, br_rng, ev, deck, obs, strats, params, C_DARK,
                         players, c, fresh)
    if br[S_ERR_CODE] != 0:
        take_branch_error(st, br)
        return False
    out_pairs[g, r, T_CHOOSER] = c
    out_pairs[g, r, T_CHOICE] = choice
    out_pairs[g, r, T_D1_POINTS] = pl - pd
    out_pairs[g, r, T_D2_POINTS] = ql - qd
    out_pairs[g, r, T_D1_WIN] = wl - wd
    out_pairs[g, r, T_D2_WIN] = xl - xd
    return True


@njit(cache=True)
def logged_branches(st, rng, br, br_rng, ev_a, ev_b, ev_n, deck, obs, strats, params):
    """Finish copies of the logged game once with each shade as the trump choice, light
    into the event log ev_a and dark into ev_b (each holds the game's log so far); the
    events written go to ev_n[1] and ev_n[2]. Returns False when a branch failed (the game
    then carries the branch's error)."""
    for k in range(2):
        evx = ev_a if k == 0 else ev_b
        copy_game(st, rng, br, br_rng)
        apply_trump_choice(br, evx, C_LIGHT if k == 0 else C_DARK)
        run_game(br, br_rng, evx, deck, obs, strats, params, STOP_NEVER)
        ev_n[1 + k] = br[S_EVN]
        if br[S_ERR_CODE] != 0:
            take_branch_error(st, br)
            return False
    return True


@njit(cache=True)
def rollouts(src, src_rng, deck, strats, params, observe_mask, stop, n, seed, work,
             out_points, out_end):
    """Play ``n`` rollouts from the state (src, src_rng), each from a fresh copy, with the
    lineup ``strats`` (its observe_mask: strategies.observe_mask), to the end of the game
    (stop = STOP_NEVER) or of the round in play (STOP_AT_ROUND_END). The source is not
    changed.

    ``seed`` < 0: every rollout continues on the state's own random streams (all n are
    the game's own continuation); else rollout i gets fresh streams from (seed, i).
    Writes each rollout's points per seat to out_points[i] and (end reason, round) to
    out_end[i] (end reason END_RUNNING: stopped at the end of the round; the round: the
    game's end round, or the round just scored). A strategy
    error stops the batch: the error is in work[1]. Returns the number of rollouts played.
    """
    br = work[1]
    br_rng = np.zeros(RNG_SIZE, np.uint64)
    ev = np.zeros((1, EV_FIELDS), np.int64)
    obs = new_buffers()
    for i in range(n):
        br[:] = src
        br[S_LOG] = 0
        br[S_OBSERVE_MASK] = observe_mask
        if seed < 0:
            br_rng[:] = src_rng
        else:
            seed_streams(br_rng, game_seed(seed, i))
        run_game(br, br_rng, ev, deck, obs, strats, params, stop)
        if br[S_ERR_CODE] != 0:
            return i
        for p in range(MAX_PLAYERS):
            out_points[i, p] = br[A_POINTS + p]
        out_end[i, 0] = br[S_END]
        out_end[i, 1] = br[S_END_ROUND] if br[S_END] != 0 else br[S_ROUND]
    return n


@njit(cache=True)
def trump_batch(deck, players, ruleset, hand_sizes, n_rounds, first_leader, seed, start, n,
                strats, params, check, observe_mask, work, max_round, out_int, out_points,
                out_ocean, out_trump, out_round_points, out_pairs, log_game, ev_main, ev_a,
                ev_b, ev_n):
    """As play_batch, plus the trump-choice pairs of docs/rules.md E in out_pairs[g, round, T_*].

    The game with index ``log_game`` (relative to start; -1: none) is logged into ev_main,
    and the two branches of pair 1 at its first analysed choice into ev_a (light) and ev_b
    (dark), each a whole game's log: the same up to the trump choice; ev_n[0..2] receives
    the number of events in ev_main, ev_a and ev_b.
    """
    st = work[0]
    br = work[1]
    rng, br_rng, ev, obs, tier = game_scratch(deck, np.int64(1))  # (not a literal: one compile)
    for g in range(n):
        gseed = game_seed(seed, start + g)
        log = 1 if g == log_game else 0
        evg = ev_main if log else ev
        setup_game(st, rng, evg, deck, players, ruleset, hand_sizes, n_rounds, first_leader,
                   gseed, log, check, observe_mask)
        for r in range(MAX_ROUNDS + 1):
            out_pairs[g, r, T_CHOOSER] = -1
        logged = False
        while True:
            run_game(st, rng, evg, deck, obs, strats, params, STOP_AT_TRUMP)
            if st[S_PHASE] != PH_TRUMP or st[S_END] != 0:
                break
            r = st[S_ROUND]
            # the strategy's own choice first: the branches then continue on streams
            # that played no part in it, so the choice is independent of their noise
            choice = ask_trump_choice(st, rng, obs, strats, params)
            if choice < 0:
                break
            if r <= max_round:
                if log and not logged:
                    ev_a[:] = ev_main
                    ev_b[:] = ev_main
                    if not logged_branches(st, rng, br, br_rng, ev_a, ev_b, ev_n, deck, obs,
                                           strats, params):
                        break
                    logged = True
                if not trump_pairs(st, rng, br, br_rng, ev, deck, obs, strats, params,
                                   players, gseed, r, choice, out_pairs, g):
                    break
            apply_trump_choice(st, evg, choice)
        if log:
            ev_n[0] = st[S_EVN]
        record_game(st, g, tier, out_int, out_points, out_ocean, out_trump, out_round_points,
                    players)
        if st[S_ERR_CODE] != 0:
            return g + 1
    return n


FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)


@njit(cache=True)
def digest_batch(deck, players, ruleset, hand_sizes, n_rounds, first_leader, seed, start, n,
                 strats, params, observe_mask, work, ev, out_int, out_points, out_hash):
    """Play games start .. start+n-1 of the experiment seeded ``seed`` with the event log on
    and write each game's results (as play_batch) and a 64-bit FNV-1a hash of its event
    rows to out_hash[g]. The golden file (tests/golden.py) pins every seeded game with it.
    Returns the number of games played (a strategy error stops the batch, as play_batch).
    """
    st = work[0]
    rng = np.zeros(RNG_SIZE, np.uint64)
    obs = new_buffers()
    R = MAX_ROUNDS + 1
    dummy_ocean = np.zeros((1, 2 * R), np.int64)
    dummy_rp = np.zeros((1, R, MAX_PLAYERS), np.int64)
    tier = deck[:, F_TIER].copy()
    for g in range(n):
        setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, first_leader,
                   game_seed(seed, start + g), 1, 0, observe_mask)
        run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
        record_game(st, 0, tier, out_int[g:g + 1], out_points[g:g + 1], dummy_ocean,
                    dummy_ocean, dummy_rp, players)
        h = FNV_OFFSET
        for i in range(st[S_EVN]):
            for j in range(ev.shape[1]):
                h = (h ^ np.uint64(ev[i, j])) * FNV_PRIME
        out_hash[g] = h
        if st[S_ERR_CODE] != 0:
            return g + 1
    return n
