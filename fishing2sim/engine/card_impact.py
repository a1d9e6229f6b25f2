"""The leave-one-out games of the per-card figures (docs/rules.md E, "Per-card impact").

``cards_batch`` plays each deal once with the standard deck (the game of play_batch, the
same per-game record) and then once without each listed ocean card, on the same deal: the
same starting hands, the same ocean order with that one card taken out, the same round-1
leader and the same random streams for every seat. So the two games of a deal differ only
by that card (common random numbers), and the paired difference is much less noisy than
two independent games. The game without the card is played with the deck without it
(``decks[k]``: the deck's rows with row ``drops[k]`` deleted, so card ids above it move
down by one): the seats see that deck's card list, as players at the table would.
"""
import numpy as np
from numba import njit

from fishing2sim.engine.batch import game_scratch, record_game, take_branch_error
from fishing2sim.engine.constants import MAX_PLAYERS, O_N_CARDS, STOP_NEVER
from fishing2sim.engine.core import ERR_SETUP, run_game, setup_game
from fishing2sim.engine.records import (  # noqa: F401 (the records' names, read here too)
    C_DRAWER, C_CATCHER, C_END, C_ROUNDS, C_POINTS, N_C, CARD_LAYOUT,
)
from fishing2sim.engine.rng import game_seed
from fishing2sim.engine.state import (
    A_CAUGHT_BY, A_DRAWN_BY, A_LAST_ORDER, A_OCEAN, A_POINTS, RNG_SIZE, S_END, S_ERR_CODE,
    S_FIRST_LEADER, S_LEADER, S_OCEAN_LEN, S_ROUND, STATE_SIZE,
)


@njit(cache=True)
def without_card(st, base, drop, players):
    """Make the freshly dealt game ``st`` (the deck without card ``drop``, the same seed)
    the deal of ``base`` (the standard deck's game just dealt) without that card: its ocean
    order with the card taken out (ids above ``drop`` one lower) and its round-1 leader.
    The starting hands already agree (the same shuffle of the same starting cards). False
    if the card was not in base's ocean (the game then carries ERR_SETUP)."""
    m = 0
    for j in range(base[S_OCEAN_LEN]):
        x = base[A_OCEAN + j]
        if x != drop:
            st[A_OCEAN + m] = x - 1 if x > drop else x
            m += 1
    if m != st[S_OCEAN_LEN] or m != base[S_OCEAN_LEN] - 1:
        st[S_ERR_CODE] = ERR_SETUP
        return False
    st[S_FIRST_LEADER] = base[S_FIRST_LEADER]
    st[S_LEADER] = base[S_LEADER]
    for k in range(players):
        st[A_LAST_ORDER + k] = base[A_LAST_ORDER + k]
    return True


@njit(cache=True)
def fresh_deck_view(obs):
    """Every seat's buffer copies the deck again at its next observation (the games of a
    batch switch between decks of the same size)."""
    for p in range(obs.shape[0]):
        obs[p, O_N_CARDS] = -1


@njit(cache=True)
def cards_batch(deck, decks, drops, players, ruleset, hand_sizes, n_rounds, first_leader,
                seed, start, n, strats, params, check, observe_mask, work, out_int,
                out_points, out_ocean, out_trump, out_round_points, out_cards):
    """As play_batch (the standard deck's games, the same records), plus per deal and listed
    card k (``drops[k]``, its id in ``deck``; ``decks[k]`` the deck without it) the game
    without that card on the same deal, into out_cards[g, k, C_*]. A strategy error stops
    the batch (work[0] then carries it); returns the number of deals played."""
    st = work[0]
    st2 = work[1]
    base = np.zeros(STATE_SIZE, np.int64)
    rng, base_rng, ev, obs, tier = game_scratch(deck, np.int64(1))  # (not a literal: one compile)
    rng2 = np.zeros(RNG_SIZE, np.uint64)
    for g in range(n):
        gseed = game_seed(seed, start + g)
        fresh_deck_view(obs)
        setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, first_leader,
                   gseed, 0, check, observe_mask)
        for i in range(STATE_SIZE):
            base[i] = st[i]
        for i in range(RNG_SIZE):
            base_rng[i] = rng[i]
        run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
        record_game(st, g, tier, out_int, out_points, out_ocean, out_trump, out_round_points,
                    players)
        if st[S_ERR_CODE] != 0:
            return g + 1
        for k in range(drops.shape[0]):
            c = drops[k]
            out_cards[g, k, C_DRAWER] = st[A_DRAWN_BY + c] - 1
            out_cards[g, k, C_CATCHER] = st[A_CAUGHT_BY + c] - 1
            dk = decks[k]
            fresh_deck_view(obs)
            setup_game(st2, rng2, ev, dk, players, ruleset, hand_sizes, n_rounds,
                       first_leader, gseed, 0, check, observe_mask)
            if st2[S_ERR_CODE] == 0 and without_card(st2, base, c, players):
                for i in range(RNG_SIZE):
                    rng2[i] = base_rng[i]
                run_game(st2, rng2, ev, dk, obs, strats, params, STOP_NEVER)
            if st2[S_ERR_CODE] != 0:
                take_branch_error(st, st2)
                record_game(st, g, tier, out_int, out_points, out_ocean, out_trump,
                            out_round_points, players)
                return g + 1
            out_cards[g, k, C_END] = st2[S_END]
            out_cards[g, k, C_ROUNDS] = st2[S_ROUND]
            for p in range(MAX_PLAYERS):
                out_cards[g, k, C_POINTS + p] = st2[A_POINTS + p]
    return n
