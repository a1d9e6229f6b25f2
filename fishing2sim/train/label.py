"""Labels for the student: self-play positions, each with a teacher search's option values.

``label_batch`` plays games with the behaviour lineup (the current student, or any bot)
in every seat. Every decision of every seat with more than one option pauses the game
(the search kernel's pause, docs/search.md); a share ``rate`` of them, drawn from the
game's seed and the decision's number (so the same for any chunking), is labelled: the
deciding seat's observation is stored and the teacher search (pimc or ismcts with the
teacher's rollout lineup) computes every option's mean value from that seat's view. The
game then goes on with the behaviour strategy's own choice, so the positions are the ones
the student meets. Game g of a run is seeded ``game_seed(seed, start + g)`` and its search
streams from that seed: a position's label does not depend on the worker or the chunk.

A position is stored as the observation up to O_N_CARDS (the deck that follows is public
and the same for the whole run: ``restore_obs`` puts it back), the option values and
(game, seat, decision kind, number of options, ruleset, players).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fishing2sim.engine.constants import (
    END_PAUSED, END_RUNNING, STOP_NEVER, EV_FIELDS, F_TIER, MAX_CARDS, MAX_HAND, MAX_PLAYERS,
    N_DECISIONS, O_HAND, O_N_CARDS,
    O_N_PLAYED, O_OPTIONS, O_PLAYED, O_PLAYED_BY,
)
from fishing2sim.engine.core import (
    checked_choice, present, run_game, seat_params, setup_game,
)
from fishing2sim.engine.batch import new_buffers
from fishing2sim.engine.rng import game_seed, mix64
from fishing2sim.search.kernels import (
    EVENT_ROWS, new_search_work, new_view, search_decide, seed_search,
)
from fishing2sim.engine.state import (
    A_HAND_N, S_ASK_KIND, S_ASK_SEAT, S_END,
    RNG_SIZE, S_ERR_CODE, S_EVN, S_FORCED, S_N_OPTIONS, S_SEARCH_MASK,
)

OBS_KEEP = O_N_CARDS  # the stored part of an observation
M_GAME, M_SEAT, M_KIND, M_N_OPT, M_RULESET, M_PLAYERS = range(6)
N_META = 6
LABEL_SALT = np.uint64(0x1AB3E15EED5A17ED)


@njit(cache=True)
def label_batch(deck, players, ruleset, hand_sizes, n_rounds, seed, start, n, strats, params,
                observe_mask, sp, rstrats, rparams, robserve, rate, out_obs, out_vals,
                out_meta, out_tail, stats, st, phase):
    """Play games start .. start+n-1 and label a share ``rate`` of their decisions (see
    the module doc). Returns the number of rows written (stops at out_obs's capacity);
    stats += [games, decisions, labelled, rollouts]; stats[4] = an error code (a strategy
    broke the contract; 0: none), and the batch stops at once. ``st``: the state the games
    are played in (STATE_SIZE), left as the failed game's for api.kernel_failure's message;
    phase[0]: 1 while the teacher searches, 0 while a seat's own strategy decides (which
    strategy raised, if one does). out_tail: the observation past OBS_KEEP (the deck)."""
    rng = np.zeros(RNG_SIZE, np.uint64)
    ev = np.zeros((EVENT_ROWS, EV_FIELDS), np.int64)
    obs = new_buffers()
    robs = new_buffers()
    tier = deck[:, F_TIER].copy()
    srng = np.zeros(MAX_PLAYERS, np.uint64)
    view = new_view()
    world, br, br_rng, pos, zone, cards, assign, cap, scratch, values = new_search_work()
    all_mask = 0
    for p in range(players):
        for k in range(N_DECISIONS):
            all_mask |= 1 << (MAX_PLAYERS * k + p)
            observe_mask &= ~(1 << (MAX_PLAYERS * (1 + k) + p))  # never drawn by the engine
        observe_mask |= 1 << p
    threshold = np.uint64(int(rate * 4294967296.0))
    rows = 0
    cap_rows = out_obs.shape[0]
    for g in range(n):
        gs = game_seed(seed, start + g)
        setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, -1, gs, 1, 0,
                   observe_mask)
        st[S_SEARCH_MASK] = all_mask
        seed_search(srng, gs)
        run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
        d = 0
        while st[S_END] == END_PAUSED:
            s = st[S_ASK_SEAT]
            kind = st[S_ASK_KIND]
            n_opt = st[S_N_OPTIONS]
            o = obs[s]
            present(st, o, s, kind, n_opt, -1)
            stats[1] += 1
            u = mix64(gs ^ LABEL_SALT ^ (np.uint64(d + 1) * np.uint64(0x9E3779B97F4A7C15)))
            d += 1
            if (u >> np.uint64(32)) < threshold and rows < cap_rows:
                before = scratch[7][1]
                phase[0] = 1
                choice_t = search_decide(st, ev, st[S_EVN], tier, deck, sp, srng, rstrats,
                                         rparams, robserve, robs, world, br, br_rng, view,
                                         pos, zone, cards, assign, cap, scratch, values)
                phase[0] = 0
                if choice_t < 0:  # (its rollout strategy broke the contract in a world)
                    stats[0] += 1  # (this game counted, as at the other stops)
                    stats[4] = max(st[S_ERR_CODE], 1)
                    return rows
                stats[3] += scratch[7][1] - before
                for i in range(OBS_KEEP):
                    out_obs[rows, i] = o[i]
                # past the played count the buffer may hold an earlier round's cards
                # (the engine copies only what is new): stored as nothing
                for i in range(max(o[O_N_PLAYED], 0), MAX_CARDS):
                    out_obs[rows, O_PLAYED + i] = -1
                    out_obs[rows, O_PLAYED_BY + i] = -1
                if rows == 0:
                    for i in range(out_tail.shape[0]):
                        out_tail[i] = o[OBS_KEEP + i]
                for i in range(MAX_HAND):
                    out_vals[rows, i] = values[i] if i < n_opt else 0.0
                out_meta[rows, M_GAME] = start + g
                out_meta[rows, M_SEAT] = s
                out_meta[rows, M_KIND] = kind
                out_meta[rows, M_N_OPT] = n_opt
                out_meta[rows, M_RULESET] = ruleset
                out_meta[rows, M_PLAYERS] = players
                rows += 1
                stats[2] += 1
            choice = strats[kind][s](o, seat_params(params, s), rng[1 + s:2 + s])
            for i in range(n_opt):
                o[O_OPTIONS + i] = -1
            for i in range(st[A_HAND_N + s]):
                o[O_HAND + i] = -1
            # checked against the engine's options, as the engine checks a strategy's
            # choice: an illegal one would be forced as a negative code and pause again
            if checked_choice(st, s, kind, n_opt, choice) < 0:
                stats[0] += 1
                stats[4] = st[S_ERR_CODE]
                return rows
            st[S_FORCED] = choice + 1
            st[S_END] = END_RUNNING
            run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
        stats[0] += 1
        if st[S_ERR_CODE] != 0:
            stats[4] = st[S_ERR_CODE]
            return rows
    return rows
