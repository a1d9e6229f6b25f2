"""The decision stakes' replays (docs/rules.md E, "Decision stakes"): batches of games that
sample their decisions and finish copies of the state under a pair of the options.

``decision_batch`` plays the games of ``play_batch`` (of ``trump_batch`` with ``trump``:
the trump-choice pairs too). Every decision with more than one option is counted; one is
sampled when a draw from the game's seed and the decision's number falls below its kind's
threshold (``rates``, a share of 2**32 per decision kind), so the sample is the same for
any chunking and nothing else in the game draws for it. At a sampled decision the game
pauses (engine/core.py, ``sample_pause``); the seat's own choice c is asked first, on its
own stream, as the game would have; then two options a != b are drawn (a uniform among
all options, b among the others) and the game is finished from copies of the state with
a and with b, twice: pair 1 on the game's own streams after the choice (common random
numbers), pair 2 on fresh streams. The main game then goes on with c, so every game's
result is the one play_batch gives. At the game's end each row gets the policy gain
(the deciding seat's result in the game itself, with c, minus its result with a on the
same streams: an unbiased estimate of what c gains over a uniformly random option).
"""
import numpy as np
from numba import njit

from fishing2sim.engine.batch import (
    T_CHOOSER, copy_game, game_scratch, new_buffers, record_game, take_branch_error,
    trump_pairs, win_share,
)
from fishing2sim.engine.constants import (
    MAX_ROUNDS, STOP_AT_TRUMP, STOP_NEVER, END_PAUSED, END_RUNNING,
)
from fishing2sim.engine.core import (
    apply_trump_choice, ask_once, ask_trump_choice, draw_gap, run_game, setup_game,
)
from fishing2sim.engine.records import (  # noqa: F401 (the records' names, read here too)
    X_KIND, X_SEAT, X_N_OPT, X_D1_POINTS, X_D2_POINTS, X_D1_WIN, X_D2_WIN, X_G_POINTS, X_G_WIN,
    X_A_POINTS, X_A_WIN, N_X, DECISION_LAYOUT, MAX_SAMPLED,
)
from fishing2sim.engine.rng import GOLDEN, game_seed, mix64, scaled_below, seed_streams
from fishing2sim.engine.state import (
    A_DEC_RATE, A_OPTIONS, A_POINTS, PH_TRUMP, RNG_SIZE, S_ASK_KIND, S_ASK_SEAT, S_DEC_N,
    S_DEC_ON, S_DEC_SEED, S_DEC_SUBJECT, S_END, S_ERR_CODE, S_FORCED, S_LOG, S_N_OPTIONS,
    S_PHASE, S_PLAYERS, S_ROUND, S_SEARCH_MASK,
)

PAIR_SALT = np.uint64(0xD5C1510E5A1A7E5)
FRESH_SALT = np.uint64(0x5EED0F5F2E5A1705)


@njit(cache=True)
def option_branch(src, src_rng, br, br_rng, ev, deck, obs, strats, params, option, fresh):
    """Finish the game paused in ``src`` from a copy, the paused decision taken as
    ``option``; fresh != 0: on new streams seeded from it. The copy samples nothing."""
    copy_game(src, src_rng, br, br_rng)
    br[S_LOG] = 0
    br[S_SEARCH_MASK] = 0
    br[S_DEC_ON] = 0
    br[S_FORCED] = option + 1
    br[S_END] = END_RUNNING
    if fresh != np.uint64(0):
        seed_streams(br_rng, fresh)
    run_game(br, br_rng, ev, deck, obs, strats, params, STOP_NEVER)


@njit(cache=True)
def replay_pause(st, rng, br, br_rng, ev, deck, obs, strats, params, players, gseed,
                 out_dec, g, k):
    """The game paused at a sampled decision: the seat's own choice, then (row k of
    out_dec[g] if k < MAX_SAMPLED) the two pairs of branches; the game is left ready to go
    on with the choice. Returns -1 when the seat's choice or a branch failed (the game
    then carries the error), else the rows used (k or k + 1)."""
    s = st[S_ASK_SEAT]
    kind = st[S_ASK_KIND]
    n_opt = st[S_N_OPTIONS]
    st[S_FORCED] = 0
    st[S_END] = END_RUNNING
    c = ask_once(st, rng, obs, strats[kind][s], params, s, kind, n_opt, st[S_DEC_SUBJECT])
    if c < 0:
        return -1
    if k < MAX_SAMPLED:
        h = mix64(gseed ^ PAIR_SALT ^ (np.uint64(st[S_DEC_N]) * GOLDEN))
        ia = scaled_below(h, n_opt)
        ib = scaled_below(mix64(h), n_opt - 1)
        if ib >= ia:
            ib += 1
        a = st[A_OPTIONS + ia]
        b = st[A_OPTIONS + ib]
        fresh = mix64(gseed ^ FRESH_SALT ^ (np.uint64(st[S_DEC_N]) * GOLDEN))
        res = np.zeros(8, np.int64)
        own = np.uint64(0)
        for j in range(4):
            option_branch(st, rng, br, br_rng, ev, deck, obs, strats, params,
                          a if j % 2 == 0 else b, fresh if j >= 2 else own)
            if br[S_ERR_CODE] != 0:
                take_branch_error(st, br)
                return -1
            res[2 * j] = br[A_POINTS + s]
            res[2 * j + 1] = win_share(br, s, players)
        row = out_dec[g, k]
        row[X_KIND] = kind
        row[X_SEAT] = s
        row[X_N_OPT] = n_opt
        row[X_D1_POINTS] = res[0] - res[2]
        row[X_D1_WIN] = res[1] - res[3]
        row[X_D2_POINTS] = res[4] - res[6]
        row[X_D2_WIN] = res[5] - res[7]
        row[X_A_POINTS] = res[0]
        row[X_A_WIN] = res[1]
        k += 1
    else:
        k += 1  # counted: the caller reports the decisions left out
    st[S_FORCED] = c + 1
    st[S_END] = END_RUNNING
    return k


@njit(cache=True)
def finish_rows(st, out_dec, g, k, players):
    """At the game's end: each replayed decision's policy gain (the game's own result for
    the deciding seat minus its result with option a on the same streams)."""
    for i in range(min(k, MAX_SAMPLED)):
        row = out_dec[g, i]
        s = row[X_SEAT]
        row[X_G_POINTS] = st[A_POINTS + s] - row[X_A_POINTS]
        row[X_G_WIN] = win_share(st, s, players) - row[X_A_WIN]


@njit(cache=True)
def start_sampling(st, rates, gseed):
    """The game in st samples its decisions from now on: ``rates`` per decision kind (a
    share of 2**32), the draws from ``gseed``."""
    st[S_DEC_ON] = 1
    st[S_FORCED] = -1
    st[S_DEC_SEED] = np.int64(gseed)
    for i in range(rates.shape[0]):
        st[A_DEC_RATE + i] = rates[i]
        draw_gap(st, i)


@njit(cache=True)
def play_sampled(st, rng, br, br_rng, ev, deck, obs, strats, params, players, gseed, trump,
                 max_round, out_pairs, out_dec, g):
    """Play the sampling game in st to its end, replaying its sampled decisions into
    out_dec[g] (with ``trump``: the trump-choice pairs of rounds up to max_round into
    out_pairs[g], as trump_batch); returns the decisions sampled (-1: a strategy failed,
    the game carries the error)."""
    stop = STOP_AT_TRUMP if trump != 0 else STOP_NEVER
    k = 0
    while True:
        run_game(st, rng, ev, deck, obs, strats, params, stop)
        if st[S_END] == END_PAUSED:
            k = replay_pause(st, rng, br, br_rng, ev, deck, obs, strats, params, players,
                             gseed, out_dec, g, k)
            if k < 0:
                return -1
            continue
        if st[S_PHASE] != PH_TRUMP or st[S_END] != END_RUNNING:
            break
        # the trump choice of trump_batch, asked outside the sampling
        r = st[S_ROUND]
        st[S_FORCED] = 0
        choice = ask_trump_choice(st, rng, obs, strats, params)
        st[S_FORCED] = -1
        if choice < 0:
            return -1
        if r <= max_round:
            if not trump_pairs(st, rng, br, br_rng, ev, deck, obs, strats, params,
                               players, gseed, r, choice, out_pairs, g):
                return -1
        apply_trump_choice(st, ev, choice)
    if st[S_ERR_CODE] != 0:
        return -1
    finish_rows(st, out_dec, g, k, players)
    return k


@njit(cache=True)
def replay_from(st, rng, ev, deck, strats, params, rates, gseed, out_dec):
    """Play a game set up by hand (tests/scenario.py) from its state to the end, sampling
    its decisions with ``rates`` and replaying them into out_dec[0]; returns the decisions
    sampled (-1: a strategy failed)."""
    br = np.zeros_like(st)
    br_rng = np.zeros(RNG_SIZE, np.uint64)
    obs = new_buffers()
    pairs = np.zeros((1, MAX_ROUNDS + 1, 1), np.int64)
    for i in range(out_dec.shape[1]):
        out_dec[0, i, X_KIND] = -1
    start_sampling(st, rates, gseed)
    return play_sampled(st, rng, br, br_rng, ev, deck, obs, strats, params, st[S_PLAYERS],
                        gseed, 0, 0, pairs, out_dec, 0)


@njit(cache=True)
def decision_batch(deck, players, ruleset, hand_sizes, n_rounds, first_leader, seed, start, n,
                   strats, params, check, observe_mask, work, rates, trump, max_round,
                   out_int, out_points, out_ocean, out_trump, out_round_points, out_pairs,
                   out_dec, out_sampled):
    """As play_batch (``trump`` != 0: as trump_batch, the pairs in out_pairs), plus the
    replays of the sampled decisions (see the module doc) in out_dec[g, i, X_*] and the
    number of decisions sampled in game g in out_sampled[g] (rows beyond MAX_SAMPLED are
    not replayed). ``rates``: per decision kind, its threshold (a share of 2**32)."""
    st = work[0]
    br = work[1]
    rng, br_rng, ev, obs, tier = game_scratch(deck, np.int64(1))  # (not a literal: one compile)
    for g in range(n):
        gseed = game_seed(seed, start + g)
        setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, first_leader,
                   gseed, 0, check, observe_mask)
        start_sampling(st, rates, gseed)
        for r in range(MAX_ROUNDS + 1):
            out_pairs[g, r, T_CHOOSER] = -1
        for i in range(out_dec.shape[1]):
            out_dec[g, i, X_KIND] = -1
        k = play_sampled(st, rng, br, br_rng, ev, deck, obs, strats, params, players, gseed,
                         trump, max_round, out_pairs, out_dec, g)
        out_sampled[g] = max(k, 0)
        record_game(st, g, tier, out_int, out_points, out_ocean, out_trump, out_round_points,
                    players)
        if st[S_ERR_CODE] != 0:
            return g + 1
    return n
