"""The observation's public card places (docs/rules.md C, "Public card places").

Everyone at the table sees every card caught face up and knows whose boat it went into;
boats are drawn from the oldest part first, so once a player has drawn past that part the
card is in that player's hand. The engine keeps this for every card and copies it into the
observation (O_HOLDER). These tests play whole games trick by trick and hold every place
the observation names against the true state, in both rulesets and for 3-5 players.
"""
from __future__ import annotations

import numpy as np
import pytest

from fishing2sim.config.deck import load_deck
from fishing2sim.engine import constants as K
from fishing2sim.engine import core
from fishing2sim.engine.state import (
    A_OCEAN, S_OCEAN_LEN, S_OCEAN_TOP, A_BOAT, A_BOAT_HEAD, A_BOAT_N, A_FISHER, A_FISHER_N, A_HAND, A_HAND_N, A_PLAYED,
    A_PUB_DOUBT, PH_ROUND_START, PH_TRICKS, PH_TRUMP, S_END, S_N_ROUNDS, S_PHASE,
    S_PLAYED_N, S_PUB_STAMP, S_ROUND, new_obs, new_state,
)
from fishing2sim.strategy import kit
from fishing2sim.strategy.lineup import build_lineup, observe_mask


def _places(st, players):
    hand, boat, fisher = {}, {}, {}
    for p in range(players):
        for i in range(st[A_HAND_N + p]):
            hand[int(st[A_HAND + p * K.MAX_HAND + i])] = p
        for i in range(st[A_BOAT_N + p]):
            boat[int(st[A_BOAT + p * K.MAX_CARDS + (st[A_BOAT_HEAD + p] + i) % K.MAX_CARDS])] = p
        for i in range(st[A_FISHER_N + p]):
            fisher[int(st[A_FISHER + p * K.MAX_CARDS + i])] = p
    return hand, boat, fisher


def _observe(st, seat):
    obs = np.full(K.OBS_SIZE, -1, np.int64)
    n = core.legal_options(st, seat, new_obs(), True)
    core.present(st, obs, seat, K.D_PLAY, n, -1)
    return obs


def _games(ruleset, players, seeds, lineup):
    """Yield (state, seat's observation, seat) after every trick of every game."""
    deck = load_deck(ruleset=ruleset)
    funcs, params, strats = build_lineup(lineup, players)
    arrays = np.ascontiguousarray(deck.arrays)
    rs = K.RULESETS[ruleset]
    for seed in seeds:
        st, rng = new_state()
        ev = np.zeros((1, K.EV_FIELDS), np.int64)
        obs = new_obs()
        core.setup_game(st, rng, ev, arrays, players, rs,
                        np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, -1,
                        np.uint64(seed), 0, 0, observe_mask(strats))
        while st[S_END] == K.END_RUNNING:  # run_game's loop, with a look after every trick
            ph = st[S_PHASE]
            if ph == PH_ROUND_START:
                if not core.begin_round(st, ev):
                    break
                st[S_PHASE] = PH_TRUMP if st[S_ROUND] > 1 and rs != K.RS_FISHING \
                    else PH_TRICKS
            elif ph == PH_TRUMP:
                core.apply_trump_choice(st, ev, K.C_LIGHT if seed % 2 else K.C_DARK)
            else:
                core.play_one_trick(st, rng, ev, obs, funcs, params)
                if st[S_END] != K.END_RUNNING:
                    break
                if st[A_HAND_N] > 0:
                    for seat in range(players):
                        yield st, _observe(st, seat), seat
                    continue
                core.end_round(st, rng, ev)
                if st[S_ROUND] >= st[S_N_ROUNDS]:
                    break
                st[S_PHASE] = PH_ROUND_START


@pytest.mark.parametrize("ruleset,players", [("fishing2", 3), ("fishing2", 4),
                                             ("fishing2", 5), ("fishing", 4)])
def test_every_public_place_is_true(ruleset, players):
    counts = np.zeros(4, np.int64)  # sure, maybe, boat, nowhere (of cards held anywhere)
    out = in_ocean = 0
    lineup = ["greedy", "random", "counter", "random", "greedy"][:players]
    for st, obs, seat in _games(ruleset, players, range(12), lineup):
        assert obs[K.O_PUB_STAMP] == st[S_PUB_STAMP]
        hand, boat, fisher = _places(st, players)
        played = set(st[A_PLAYED:A_PLAYED + st[S_PLAYED_N]].tolist())
        ocean = set(st[A_OCEAN + st[S_OCEAN_TOP]:A_OCEAN + st[S_OCEAN_LEN]].tolist())
        for c in range(obs[K.O_N_CARDS]):
            code = obs[K.O_HOLDER + c]
            anywhere = c in hand or c in boat or c in fisher or c in ocean or c in played
            if code == K.HOLDER_OUT:
                assert not anywhere
                out += 1
            elif code == K.HOLDER_OCEAN:
                assert c in ocean
                in_ocean += 1
            if code < 0:
                assert code in (K.HOLDER_UNKNOWN, K.HOLDER_OCEAN, K.HOLDER_OUT)
                counts[3] += c in hand or c in boat
                continue
            h, q = code % K.MAX_PLAYERS, code // K.MAX_PLAYERS
            assert 0 <= h < players and q in (K.HELD_SURE, K.HELD_MAYBE, K.HELD_BOAT)
            if c in played:  # the place it had before it was played: the kit says none
                assert kit.holder(obs, c) == -1 and kit.held(obs, c) == K.HOLDER_UNKNOWN
                continue
            if q == K.HELD_SURE:
                assert hand.get(c) == h, (c, code, hand.get(c), boat.get(c))
            elif q == K.HELD_BOAT:
                assert boat.get(c) == h, (c, code, hand.get(c), boat.get(c))
            elif st[A_PUB_DOUBT + c] == 0:  # drawn in part: in that hand or that boat
                assert hand.get(c) == h or boat.get(c) == h
            counts[q] += 1
    # the kit's readers decode the last observation's places
    for c in range(obs[K.O_N_CARDS]):
        code = obs[K.O_HOLDER + c]
        if code >= 0 and c in played:
            code = K.HOLDER_UNKNOWN
        assert kit.holder(obs, c) == (code % K.MAX_PLAYERS if code >= 0 else -1)
        assert kit.held(obs, c) == (code // K.MAX_PLAYERS if code >= 0 else code)
    assert kit.holder(obs, -1) == -1 and kit.held(obs, K.MAX_CARDS) == K.HOLDER_UNKNOWN
    # the places are worth having: many cards are placed for sure, also in the boats
    assert counts[K.HELD_SURE] > 0.1 * counts.sum()
    assert counts[K.HELD_BOAT] > 0.05 * counts.sum()
    assert counts[K.HELD_MAYBE] > 0
    assert in_ocean > 0 and (out > 0) == (players < 5)  # 3 and 4 players leave cards out
    print(ruleset, players, counts)


def test_places_are_the_same_in_every_seat_and_depend_on_public_events_only():
    """Every seat sees the same places (they are public), and two games that differ only in
    hidden cards (the ocean's order inside a tier) show the same places until a hidden
    card is seen."""
    for st, obs, seat in _games("fishing2", 4, range(3), ["greedy"] * 4):
        if seat == 0:
            first = obs[K.O_HOLDER:K.O_HOLDER + K.MAX_CARDS].copy()
        else:
            assert np.array_equal(first, obs[K.O_HOLDER:K.O_HOLDER + K.MAX_CARDS])


def test_a_copied_observation_buffer_takes_the_places_again():
    """A buffer last filled in another game (or another copy of this one) is refreshed:
    the stamp differs, so the places are copied again."""
    got = []
    for seed in (5, 6):
        for st, obs, seat in _games("fishing2", 4, [seed], ["greedy"] * 4):
            if st[S_ROUND] >= 3 and st[A_HAND_N] <= 4 and seat == 0:
                got.append((st.copy(), obs.copy()))
                break
    (st_a, obs_a), (st_b, obs_b) = got
    assert not np.array_equal(obs_a[K.O_HOLDER:K.O_HOLDER + K.MAX_CARDS],
                              obs_b[K.O_HOLDER:K.O_HOLDER + K.MAX_CARDS])
    reused = obs_a.copy()
    n = core.legal_options(st_b, 0, new_obs(), True)
    core.present(st_b, reused, 0, K.D_PLAY, n, -1)
    assert np.array_equal(reused[K.O_HOLDER:K.O_HOLDER + K.MAX_CARDS],
                          obs_b[K.O_HOLDER:K.O_HOLDER + K.MAX_CARDS])
