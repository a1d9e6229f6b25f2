"""Search seats (engine/search.py, docs/search.md): the view of a seat, the world sampler,
the information boundary, the search's choices, and search bots in lineups and runs."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import wait_until, write_experiment

from fishing2sim import api
from fishing2sim.engine import constants as K
from fishing2sim.search import kernels as S
from fishing2sim.engine.core import setup_game
from fishing2sim.engine.rng import game_seed
from fishing2sim.engine.state import (
    A_HAND, A_HAND_N, A_OPTIONS, S_EVN, S_N_OPTIONS, STATE_SIZE, new_state,
)
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.lineup import build_lineup, observe_mask, search_args
from fishing2sim.strategy.loading import load_strategy


def kernel_args(ruleset="fishing2", players=4, lineup="random"):
    deck = api.resolve_deck(ruleset, None)
    funcs, table, strats = build_lineup(lineup, players)
    return deck, (np.ascontiguousarray(deck.arrays), players, K.RULESETS[ruleset],
                  np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds), \
        funcs, table, strats


# ---- the view and the sampler against the true game, over whole games ----------------------

@pytest.mark.parametrize("ruleset,players,games", [
    ("fishing2", 4, 12), ("fishing2", 3, 8), ("fishing2", 5, 8),
    ("fishing", 4, 12), ("fishing", 3, 8), ("fishing", 5, 8),
])
def test_every_true_card_place_is_allowed_and_every_world_is_consistent(ruleset, players,
                                                                        games):
    """At every decision of random games (each paused and resumed), for every seat: the
    games are those of the plain engine, the true place
    of each card it cannot see is one its view allows (so no inference is wrong), and
    sampled worlds put every hidden card in an allowed zone, keep every zone's count and
    change nothing else in the state."""
    deck, dargs, funcs, table, strats = kernel_args(ruleset, players)
    out = np.zeros(8, np.int64)
    points = np.zeros((games, K.MAX_PLAYERS), np.int64)
    done = S.audit_views(*dargs, 11, games, funcs, table, observe_mask(strats), 2, out, points)
    assert done == games
    # every decision paused and resumed: the very games of the plain engine
    plain = api.run_games(games, players, seed=11, ruleset=ruleset)
    assert np.array_equal(points, plain["points"])
    views, cards, wrong, worlds, no_world, bad_card, changed, hidden = out
    assert views > 400 * games  # every seat at every pause
    assert cards == hidden and cards > 20 * views
    assert wrong == 0, f"{wrong} true card places the view rules out"
    assert worlds == 2 * views
    assert no_world == 0 and bad_card == 0 and changed == 0


# ---- the view, event by event --------------------------------------------------------------

class Script:
    """A real game's setup (4 players, Fishing 2 unless told), then events written by hand:
    build_view reads the state only for the deck's suits and kinds."""

    def __init__(self, ruleset="fishing2", players=4, seed=3):
        self.deck = api.resolve_deck(ruleset, None)
        self.players = players
        self.st, self.rng = new_state()
        self.ev = np.zeros((4096, K.EV_FIELDS), np.int64)
        setup_game(self.st, self.rng, self.ev, np.ascontiguousarray(self.deck.arrays), players,
                   K.RULESETS[ruleset], np.ascontiguousarray(self.deck.hand_sizes[players]),
                   self.deck.n_rounds, 0, game_seed(seed, 0), 1, 0, 0)
        self.n = int(self.st[S_EVN])
        self.tier = np.ascontiguousarray(self.deck.arrays[:, K.F_TIER])
        self.view = S.new_view()

    def add(self, code, a=0, b=0, c=0, d=0, e=0):
        self.ev[self.n] = (code, a, b, c, d, e)
        self.n += 1

    def see(self, seat=0):
        pz, hidden, vw, snap = self.view
        S.build_view(self.st, self.ev, self.n, self.tier, seat, pz, hidden, vw, snap)
        return pz, hidden

    def hand(self, p):
        return [int(x) for x in self.st[A_HAND + p * K.MAX_HAND:
                                         A_HAND + p * K.MAX_HAND + self.st[A_HAND_N + p]]]

    def ocean(self):
        return [int(x) for x in self.ev[:self.n][self.ev[:self.n, 0] == K.EV_OCEAN][:, 2]]

    def cards(self, **where):
        """Card ids of the deck matching column values (colour=K.C_BLUE, kind=...)."""
        cols = {"kind": K.F_KIND, "colour": K.F_COLOUR, "tier": K.F_TIER,
                "effect": K.F_EFFECT, "value": K.F_VALUE}
        a = self.deck.arrays
        ok = np.ones(len(a), bool)
        for k, v in where.items():
            ok &= a[:, cols[k]] == v
        return [int(c) for c in np.nonzero(ok)[0]]


def zones(pz, c):
    return set(np.nonzero(pz[c])[0].tolist())


H = [S.Z_HAND + p for p in range(5)]


def test_view_at_the_deal():
    s = Script()
    pz, hidden = s.see(0)
    for c in s.hand(0):
        assert hidden[c] == 0
    for p in (1, 2, 3):
        for c in s.hand(p):  # one of the other three hands, nowhere else
            assert hidden[c] == 1 and zones(pz, c) == {H[1], H[2], H[3]}
    for c in s.ocean():  # its own star tier of the ocean, nothing else
        assert hidden[c] == 1
        assert zones(pz, c) == {S.Z_OCEAN + int(s.tier[c]) - 1}


def test_view_ocean_draw_spreads_only_that_tier():
    s = Script()
    s.add(K.EV_ROUND_START, 2, 5)
    s.add(K.EV_DRAW, 2, s.ocean()[0], 1, 0)  # player 2 draws the top card (tier 1)
    pz, hidden = s.see(0)
    t1 = [c for c in s.ocean() if s.tier[c] == 1]
    t2 = [c for c in s.ocean() if s.tier[c] == 2]
    assert t1 and t2
    for c in t1:
        assert zones(pz, c) == {S.Z_OCEAN, H[2]}
    for c in t2:
        assert zones(pz, c) == {S.Z_OCEAN + 1}
    # seat 2 itself knows its card
    pz2, hidden2 = s.see(2)
    assert hidden2[s.ocean()[0]] == 0


def test_view_not_following_shows_a_void_and_a_buoy_shows_none():
    s = Script(seed=5)
    blue = [c for c in s.cards(kind=K.K_COLOUR, colour=K.C_BLUE)]
    red = [c for c in s.cards(kind=K.K_COLOUR, colour=K.C_RED)]
    buoy = s.cards(kind=K.K_BUOY)
    s.add(K.EV_ROUND_START, 1, 5)
    s.add(K.EV_TRICK_START, 1, 1, 1, K.C_NONE, 0)
    s.add(K.EV_PLAY, 1, blue[0])  # blue is led
    s.add(K.EV_PLAY, 2, red[0])  # 2 does not follow: no blue in 2's hand
    s.add(K.EV_PLAY, 3, buoy[0])  # a buoy may always be played: nothing shown
    pz, hidden = s.see(0)
    hidden_blue = [c for c in blue[1:] if hidden[c]]
    assert hidden_blue
    for c in hidden_blue:
        assert pz[c, H[2]] == 0
        if pz[c, H[1]] or pz[c, H[3]]:  # a dealt card: still possibly with 1 or 3
            assert pz[c, H[1]] == 1 and pz[c, H[3]] == 1
    other = [c for c in s.hand(1) + s.hand(3) if s.deck.arrays[c, K.F_COLOUR] != K.C_BLUE
             and c not in (blue[0], red[0], buoy[0])]
    for c in other:
        assert pz[c, H[2]] == 1


def test_view_boat_parts_and_boat_draws():
    s = Script()
    caught = s.ocean()[-3:]  # any three cards, caught face up by player 1 in round 1
    s.add(K.EV_ROUND_START, 1, 5)
    for c in caught:
        s.add(K.EV_PLAY, 1, c)
        s.add(K.EV_CAUGHT, 1, c, 1)
    s.add(K.EV_ROUND_SCORE, 1, 3, 3)
    for c in caught:
        s.add(K.EV_BOAT, 1, c)
    pz, hidden = s.see(0)
    part = S.Z_BOAT + 1 * K.MAX_ROUNDS + 0
    for c in caught:
        assert hidden[c] == 1 and zones(pz, c) == {part}
    s.add(K.EV_ROUND_START, 2, 5)
    s.add(K.EV_DRAW, 1, caught[1], 0, 0)  # player 1 draws 1 card from the boat
    pz, hidden = s.see(0)
    for c in caught:
        assert zones(pz, c) == {part, H[1]}
    pz1, hidden1 = s.see(1)  # player 1 sees what it drew, not the order of the rest
    assert hidden1[caught[1]] == 0
    assert zones(pz1, caught[0]) == {part} and zones(pz1, caught[2]) == {part}


def test_view_catch_1_card_and_exchange():
    s = Script(seed=9)
    s.add(K.EV_ROUND_START, 1, 5)
    s.add(K.EV_TRICK_START, 1, 1, 0, K.C_NONE, 0)
    y = s.hand(0)[0]
    s.add(K.EV_PLAY, 0, y)
    s.add(K.EV_EXCHANGE, 2, y, s.hand(2)[0])  # 2 takes y (seen), gives a card face down
    s.add(K.EV_CATCH_1_CARD, 3, s.hand(3)[0])  # 3 moves a hand card to its fisher, hidden
    pz, hidden = s.see(0)
    assert hidden[y] == 1 and zones(pz, y) == {H[2], S.Z_TRICK}
    for c in s.hand(3):
        assert S.Z_FISHER + 3 in zones(pz, c) and S.Z_FISHER + 2 not in zones(pz, c)
    for c in s.hand(1):  # a dealt card might be 2's (given face down) or 3's (caught)
        assert {H[1], H[2], H[3], S.Z_TRICK, S.Z_FISHER + 3} == zones(pz, c)
    for c in s.ocean():  # nobody drew: still only in its tier
        assert zones(pz, c) == {S.Z_OCEAN + int(s.tier[c]) - 1}
    pz2, hidden2 = s.see(2)  # the giver knows its face-down card
    assert hidden2[s.hand(2)[0]] == 0


def test_view_pass_1_left_is_simultaneous():
    s = Script("fishing", seed=4)
    x = s.hand(0)[0]
    s.add(K.EV_ROUND_START, 1, 10)
    for q in range(4):  # all pass at once: logged in play order
        s.add(K.EV_PASS_1_LEFT, q, x if q == 0 else s.hand(q)[0], (q + 1) % 4)
    pz, hidden = s.see(0)
    # seat 0 knows where its card went; 1 could not pass it on in the same pass
    assert hidden[x] == 1 and zones(pz, x) == {H[1]}
    # 3's card went to seat 0: seen
    assert hidden[s.hand(3)[0]] == 0
    # a card dealt to 1, 2 or 3 may now be in any of their hands (as before)
    for c in s.hand(2)[1:]:
        assert {H[1], H[2], H[3]} <= zones(pz, c)


def test_view_never_reads_a_card_it_cannot_see():
    """Hidden identities in the log replaced by other hidden cards of the same kind of
    place (another player's deal, another card of the same ocean tier): the view of seat
    0 is the same table for the swapped cards."""
    g = Script(seed=2)
    pz0, hidden0 = (a.copy() for a in g.see(0))
    # swap the deals of players 1 and 3 (same events, other cards) and two tier-2 cards
    h1, h3 = g.hand(1), g.hand(3)
    t2 = [i for i in range(g.n) if g.ev[i, 0] == K.EV_OCEAN and g.tier[g.ev[i, 2]] == 2]
    swap = {h1[0]: h3[0], h3[0]: h1[0], int(g.ev[t2[0], 2]): int(g.ev[t2[1], 2]),
            int(g.ev[t2[1], 2]): int(g.ev[t2[0], 2])}
    for i in range(g.n):
        if g.ev[i, 0] in (K.EV_DEAL, K.EV_OCEAN) and int(g.ev[i, 2]) in swap:
            g.ev[i, 2] = swap[int(g.ev[i, 2])]
    pz1, hidden1 = g.see(0)
    assert (pz1 == pz0).all() and (hidden1 == hidden0).all()


# ---- the search: information boundary, determinism, a clear best option ------------------

def paused(lineup=("pimc", "weights", "weights", "weights"), game=0, skip=0, players=4,
           ruleset="fishing2"):
    deck, dargs, funcs, table, strats = kernel_args(ruleset, players, list(lineup))
    mask, sp, rf, rt, ro = search_args(strats, None, players)
    st, rng = new_state()
    ev = np.zeros((16384, K.EV_FIELDS), np.int64)
    ok = S.play_to_pause(*dargs, -1, np.uint64(game_seed(1, game)), funcs, table, observe_mask(strats),
                         mask, skip, st, rng, ev)
    assert ok
    return deck, st, ev, sp, rf, rt, ro


def decide(deck, st, ev, sp, rf, rt, ro, sseed=7):
    values = np.zeros(K.MAX_HAND)
    choice = S.decide_once(st, ev, np.ascontiguousarray(deck.arrays), sp, sseed, rf, rt, ro,
                           values)
    return int(choice), values[:st[S_N_OPTIONS]].copy()


def swap_hidden_deals(st, ev, a, b, i=0):
    """Swap card i of player a's and of player b's hand, in the state and in the log's
    deal events: another game the seat at the table cannot tell apart."""
    x = int(st[A_HAND + a * K.MAX_HAND + i])
    y = int(st[A_HAND + b * K.MAX_HAND + i])
    st, ev = st.copy(), ev.copy()
    st[A_HAND + a * K.MAX_HAND + i] = y
    st[A_HAND + b * K.MAX_HAND + i] = x
    for k in range(int(st[S_EVN])):
        if ev[k, 0] == K.EV_DEAL and ev[k, 2] in (x, y):
            ev[k, 2] = y if ev[k, 2] == x else x
    return st, ev


@pytest.mark.parametrize("method,worlds", [(S.METHOD_PIMC, 6), (S.METHOD_ISMCTS, 40)])
def test_search_never_uses_a_hidden_card_and_the_cheater_does(method, worlds):
    deck, st, ev, sp, rf, rt, ro = paused()
    sp[0, S.SP_METHOD] = method
    sp[0, S.SP_WORLDS] = worlds
    base = decide(deck, st, ev, sp, rf, rt, ro)
    sp_cheat = sp.copy()
    sp_cheat[0, S.SP_METHOD] = S.METHOD_TRUE_FLAT
    cheat = decide(deck, st, ev, sp_cheat, rf, rt, ro)
    cheat_changed = False
    for a, b in ((1, 2), (2, 3), (1, 3)):
        for i in range(3):
            st2, ev2 = swap_hidden_deals(st, ev, a, b, i)
            other = decide(deck, st2, ev2, sp, rf, rt, ro)
            assert other[0] == base[0] and np.array_equal(other[1], base[1])
            c2 = decide(deck, st2, ev2, sp_cheat, rf, rt, ro)
            cheat_changed |= not np.array_equal(c2[1], cheat[1])
    assert cheat_changed  # the swaps are real differences: the cheater sees them


def test_the_cheater_searches_the_true_deal():
    """The cheater bot (ismcts's tree on the true state): deterministic given its seed, and
    its option values change when hidden cards are swapped in the true game (a fair search
    of the same seat's view does not change, test above)."""
    deck, st, ev, sp, rf, rt, ro = paused()
    sp[0, S.SP_METHOD] = S.METHOD_CHEATER
    sp[0, S.SP_WORLDS] = 60
    base = decide(deck, st, ev, sp, rf, rt, ro)
    again = decide(deck, st, ev, sp, rf, rt, ro)
    assert base[0] == again[0] and np.array_equal(base[1], again[1])
    changed = False
    for a, b in ((1, 2), (2, 3), (1, 3)):
        for i in range(3):
            st2, ev2 = swap_hidden_deals(st, ev, a, b, i)
            changed |= not np.array_equal(decide(deck, st2, ev2, sp, rf, rt, ro)[1], base[1])
    assert changed
    c = load_strategy("cheater")
    assert c.search == "cheater" and c.defaults == (160.0, 1.0, 0.0, 0.0)


def test_pimc_is_deterministic_given_its_seed():
    deck, st, ev, sp, rf, rt, ro = paused(skip=3)
    a = decide(deck, st, ev, sp, rf, rt, ro, sseed=11)
    b = decide(deck, st, ev, sp, rf, rt, ro, sseed=11)
    c = decide(deck, st, ev, sp, rf, rt, ro, sseed=12)
    assert a[0] == b[0] and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])  # another seed, other worlds and rollouts
    g1 = api.play_games(3, seed=4, strategies=["pimc", "greedy", "greedy", "greedy"],
                        params=[[4, 1, 0, 0], None, None, None])
    g2 = api.play_games(3, seed=4, strategies=["pimc", "greedy", "greedy", "greedy"],
                        params=[[4, 1, 0, 0], None, None, None])
    assert g1.equals(g2)


def test_search_finds_the_option_worth_the_most():
    """The option values are the mean points margin of the rollouts: the cheater's values
    equal the margins measured by playing each option out by hand, and its choice is the
    best of them."""
    deck, st, ev, sp, rf, rt, ro = paused(skip=5)
    sp[0, S.SP_METHOD] = S.METHOD_TRUE_FLAT
    sp[0, S.SP_WORLDS] = 3
    choice, values = decide(deck, st, ev, sp, rf, rt, ro)
    n = int(st[S_N_OPTIONS])
    assert n >= 2
    assert choice == int(st[A_OPTIONS + int(np.argmax(values))])
    assert values.max() > values.min()  # the options differ


def test_a_search_seat_obeys_the_rules_by_the_auditor():
    from fishing2sim.audit import audit_game

    for ruleset in ("fishing2", "fishing"):
        rec = api.play_game(4, seed=3, ruleset=ruleset,
                            strategies=["pimc", "ismcts", "cheater", "ismcts"],
                            params=[[3, 1, 0, 0], [30, 1, 0, 1], [2, 1, 1, 1], [20, 2, 1, 0]])
        audit_game(rec.events)
        plays = [e for e in rec.events if e["event"] == "play" and e["player"] == 0]
        assert len(plays) > 20


# ---- search bots as strategies ------------------------------------------------------------

def test_search_bots_load_with_their_rollout_strategy():
    p = load_strategy("pimc")
    assert p.search == "pimc" and p.rollout.name == "weights"
    assert p.param_names == ("worlds", "rollouts", "horizon", "objective")
    assert p.functions == p.rollout.functions  # its other decisions are weights'
    c = load_strategy("cheater")
    assert c.search == "cheater"
    assert load_strategy("ismcts").search == "ismcts"


def test_ismcts_is_deterministic_and_prefers_what_its_tree_found_best():
    deck, st, ev, sp, rf, rt, ro = paused(("ismcts", "weights", "weights", "weights"), skip=4)
    sp[0, S.SP_WORLDS] = 60
    a = decide(deck, st, ev, sp, rf, rt, ro, sseed=3)
    b = decide(deck, st, ev, sp, rf, rt, ro, sseed=3)
    assert a[0] == b[0] and np.array_equal(a[1], b[1])
    assert a[0] in [int(x) for x in st[A_OPTIONS:A_OPTIONS + st[S_N_OPTIONS]]]


@pytest.mark.parametrize("vec,msg", [
    ([0, 1, 0, 0], "worlds must be a whole number from 1 to 4096, got 0"),
    ([2.5, 1, 0, 0], "worlds must be a whole number from 1 to 4096, got 2.5"),
    ([4, -1, 0, 0], "rollouts must be a whole number from 1 to 1024, got -1"),
    ([4, 1, 3, 0], "horizon must be a whole number from 0 to 2, got 3"),
    ([4, 1, 0, 0, 1], "takes 4 parameters"),
])
def test_bad_search_parameters_are_one_clear_error(vec, msg):
    with pytest.raises(StrategyError, match=msg.replace("(", r"\(")):
        api.play_games(1, strategies=["pimc", "random", "random", "random"],
                       params=[vec, None, None, None])


def write_bot(folder, name, body):
    path = folder / f"{name}.py"
    path.write_text(f'NAME = "{name}"\n' + body)
    return path


@pytest.mark.parametrize("body,msg", [
    ('SEARCH = "pimc"\nROLLOUT = "pimc"\nPARAMS = [2, 1, 0, 0]\n', "is itself a search bot"),
    ('SEARCH = "pimc"\nROLLOUT = "nosuchbot"\nPARAMS = [2, 1, 0, 0]\n', "nosuchbot"),
    ('SEARCH = "mcts"\nROLLOUT = "greedy"\nPARAMS = [2, 1, 0, 0]\n', "SEARCH must be one of"),
    # an unhashable SEARCH (a list, a dict) is the same clear error, not a TypeError
    ('SEARCH = ["pimc"]\nROLLOUT = "greedy"\nPARAMS = [2, 1, 0, 0]\n', "SEARCH must be one of"),
    ('SEARCH = {"pimc": 1}\nROLLOUT = "greedy"\nPARAMS = [2, 1, 0, 0]\n', "SEARCH must be one of"),
    ('SEARCH = "pimc"\nPARAMS = [2, 1, 0, 0]\n', "needs ROLLOUT"),
    ('SEARCH = "pimc"\nROLLOUT = "greedy"\nPARAMS = [2, 1]\n', "PARAMS are 4 or 5 numbers"),
    ('SEARCH = "pimc"\nROLLOUT = "greedy"\nPARAMS = [10**400, 1, 0, 0]\n', "PARAMS must be a list"),
    # computed or changed later: they must be what a reader of the file sees (the config
    # hash reads ROLLOUT without running the file)
    ('SEARCH = "chea" + "ter"\nROLLOUT = "greedy"\nPARAMS = [2, 1, 0, 0]\n',
     "SEARCH must be a plain string"),
    ('SEARCH = "pimc"\nROLLOUT = "greedy"\nPARAMS = [2, 1, 0, 0]\nglobals()["SEARCH"] = "cheater"\n',
     "SEARCH must be a plain string"),
    ('SEARCH = "pimc"\nROLLOUT = "gree" + "dy"\nPARAMS = [2, 1, 0, 0]\n',
     "ROLLOUT must be a plain string"),
])
def test_bad_search_bot_files_are_one_clear_error(tmp_path, body, msg):
    path = write_bot(tmp_path, f"bot{abs(hash(body)) % 10**6}", body)
    with pytest.raises(StrategyError, match=msg):
        load_strategy(str(path))


def test_search_seats_roll_out_each_with_its_own_strategy(tmp_path):
    """Two search seats with different rollout strategies: each seat's rollouts are
    played with its own (the games differ from those of a lineup where both roll out
    with weights, and pimc's own decisions are the same as with a weights partner)."""
    path = write_bot(tmp_path, "pimc_greedy",
                     'SEARCH = "pimc"\nROLLOUT = "greedy"\nPARAMS = [2, 1, 0, 0]\n')
    g1 = api.play_games(2, seed=3, strategies=["pimc", str(path), "random", "random"],
                        params=[[2, 1, 0, 0], None, None, None])
    g2 = api.play_games(2, seed=3, strategies=["pimc", "pimc", "random", "random"],
                        params=[[2, 1, 0, 0], [2, 1, 0, 0], None, None])
    assert not g1.equals(g2)
    args = search_args([load_strategy("pimc"), load_strategy(str(path)),
                        load_strategy("random"), load_strategy("random")], None, 4)
    mask, sp, rstrats, rtables, robserve = args
    assert rstrats[0][0][0] is load_strategy("weights").functions[0]
    assert rstrats[1][0][0] is load_strategy("greedy").functions[0]


def test_pimc_finds_a_clearly_better_card():
    """Positions where one card is clearly best: by at least 3 points over the round in a
    search over 160 worlds consistent with seat 0's view, and also best in the true deal
    (pimc's flat search on the true state): pimc at a budget of 24 worlds, with other worlds and
    rollouts, picks that card."""
    found = 0
    for game in range(8):
        for skip in range(0, 60, 4):
            try:
                deck, st, ev, sp, rf, rt, ro = paused(game=game, skip=skip)
            except AssertionError:
                break
            if st[S_N_OPTIONS] < 2:
                continue
            sp[0, S.SP_WORLDS] = 160
            best, values = decide(deck, st, ev, sp, rf, rt, ro, sseed=1000 + skip)
            if values.max() - np.sort(values)[-2] < 3.0:
                continue
            cheat = sp.copy()
            cheat[0, S.SP_METHOD] = S.METHOD_TRUE_FLAT
            cheat[0, S.SP_WORLDS] = 48
            if decide(deck, st, ev, cheat, rf, rt, ro)[0] != best:
                continue
            sp[0, S.SP_WORLDS] = 24
            choice, _ = decide(deck, st, ev, sp, rf, rt, ro, sseed=skip)
            assert choice == best, (game, skip, values)
            found += 1
    assert found >= 5


# ---- search seats in experiment runs -----------------------------------------------------

SEARCH_RUN = ("players: 4\ngames: 48\nchunk: 4\nseed: 5\nrotate: true\n"
              "seats: [{strategy: pimc, params: [3, 1, 0, 0]}, greedy, "
              "{strategy: ismcts, params: [12, 1, 0, 1]}, greedy]\n"
              "analyses: [overfishing, strategies, depletion]\n")


@pytest.mark.slow  # three runs with worker processes (about a minute)
def test_search_seats_give_the_same_csvs_for_1_and_2_workers_dask_and_a_resume(tmp_path):
    import subprocess
    import sys

    from fishing2sim.study import run

    a = write_experiment(tmp_path / "a", "srch", SEARCH_RUN)
    b = write_experiment(tmp_path / "b", "srch", SEARCH_RUN)
    c = write_experiment(tmp_path / "c", "srch", SEARCH_RUN)
    d = write_experiment(tmp_path / "d", "srch", SEARCH_RUN)
    run(a, workers=1, progress=False)
    run(b, workers=2, progress=False)
    run(d, dask_local=2, progress=False)  # a real local Dask cluster
    names = ["overfishing.csv", "strategies.csv", "scores.csv", "depletion.csv"]
    for name in names:
        for other in ("b", "d"):
            assert (tmp_path / "a/reports/srch" / name).read_bytes() == \
                (tmp_path / other / "reports/srch" / name).read_bytes(), (other, name)
    # killed after a few chunks, then resumed: the same result
    ckpt = tmp_path / "c" / "reports" / ".checkpoints" / "srch"
    proc = subprocess.Popen([sys.executable, "-m", "fishing2sim.cli", "run", str(c),
                             "--workers", "1", "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: len(list(ckpt.glob("c*.npz"))) >= 2, timeout=300)
    proc.kill()
    proc.wait()
    assert 1 <= len(list(ckpt.glob("c*.npz"))) < 3
    run(c, workers=2, progress=False, resume=True)
    for name in names:
        assert (tmp_path / "a/reports/srch" / name).read_bytes() == \
            (tmp_path / "c/reports/srch" / name).read_bytes(), name
    # the values are those of the same games played through the API: rotation r puts
    # lineup entry (p - r) mod 4 in seat p, over the same 12 deals
    from fishing2sim.config.experiment import load_experiment

    cond = load_experiment(a).conditions[0]
    lineup = ["pimc", "greedy", "ismcts", "greedy"]
    params = [[3, 1, 0, 0], None, [12, 1, 0, 1], None]
    pimc_points, searched = [], 0
    for r in range(4):
        idx = [(p - r) % 4 for p in range(4)]
        g = api.run_games(12, 4, seed=cond.seed, strategies=[lineup[i] for i in idx],
                          params=[params[i] for i in idx])
        pimc_points += list(g["points"][:, idx.index(0)])
        searched += g["search"][0]
    st = pd_read(tmp_path / "a/reports/srch/strategies.csv")
    row = st[(st.metric == "mean_points") & (st.strategy == "pimc")].iloc[0]
    assert row.n == 48 and row.estimate == pytest.approx(np.mean(pimc_points), rel=1e-9)
    assert searched > 48 * 2 * 20  # two search seats, each searching every card play


def pd_read(path):
    import pandas as pd

    return pd.read_csv(path)


@pytest.mark.parametrize("body,message", [
    ("seats: [{strategy: pimc, params: [0, 1, 0, 0]}, greedy, greedy, greedy]\n",
     "seats[0].params: worlds must be a whole number from 1 to 4096, got 0"),
    ("seats: [{strategy: pimc, params: [4, 1, 0]}, greedy, greedy, greedy]\n",
     "seats[0].params: strategy 'pimc' takes 4 parameters"),
    ("seats: [pimc, greedy, greedy, greedy]\nanalyses: [trump_value]\n",
     "'pimc' searches its card plays; analyses: trump_value"),
])
def test_bad_search_seats_in_an_experiment_are_exit_2(tmp_path, body, message):
    from click.testing import CliRunner

    from fishing2sim.cli import main

    path = write_experiment(tmp_path, "bad", "players: 4\ngames: 8\n" + body)
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert "Traceback" not in res.output
    assert not (tmp_path / "reports").exists()


@pytest.mark.slow  # a searching chooser through the trump analysis: 12 s (the default run stays within 6 minutes)
def test_a_search_chooser_is_measured_by_the_trump_analysis(tmp_path):
    """pimc_trump plays exactly as weights_tuned except its trump choices, which its
    search makes: the same deals give the same games up to the first choice that differs,
    the trump analysis replays its choices, and a recursive or card-searching lineup is
    refused."""
    from fishing2sim.study import run

    body = ("players: 4\ngames: 60\nchunk: 20\nseed: 3\npaired: true\n"
            "seats: weights_tuned\nsweep:\n  seats:\n"
            "    - {value: weights_tuned, baseline: true}\n"
            "    - {value: {strategy: pimc_trump, params: [4, 1, 0, 0]}}\n"
            "analyses: [trump_value, overfishing]\n")
    path = write_experiment(tmp_path, "tr", body)
    run(path, workers=1, progress=False)
    tv = pd_read(tmp_path / "reports/tr/trump_value.csv")
    pooled = tv[(tv.metric == "policy_gain_points") & tv["round"].isna()]
    assert len(pooled) == 2 and (pooled.n > 60).all()  # every trump choice replayed
    # the search's choices differ from the heuristic's somewhere in these games
    h = api.play_games(20, 4, seed=1, strategies="weights_tuned")
    s = api.play_games(20, 4, seed=1, strategies="pimc_trump", params=[[4, 1, 0, 0]] * 4)
    cols = [f"trump_r{r}" for r in range(2, 9)]
    assert (h[cols].astype(str) != s[cols].astype(str)).to_numpy().any()
    assert (h.ocean_r1 == s.ocean_r1).all()  # round 1 has no trump choice: the same play


def test_reports_label_the_cheater_as_not_a_fair_player(tmp_path):
    from fishing2sim.study import run

    body = ("players: 4\ngames: 8\nchunk: 4\nseed: 2\nrotate: true\n"
            "seats: [{strategy: cheater, params: [2, 1, 0, 0]}, "
            "{strategy: pimc, params: [2, 1, 0, 0]}, greedy, greedy]\n"
            "analyses: [strategies]\n")
    path = write_experiment(tmp_path, "ch", body)
    run(path, workers=1, progress=False)
    md = (tmp_path / "reports/ch/summary.md").read_text()
    assert "`cheater` sees every hand" in md and "not a fair player" in md
    assert "| cheater (sees every hand) |" in md
    assert "| pimc |" in md and "pimc (sees every hand)" not in md


def test_reports_label_a_users_cheater_file_too(tmp_path):
    """A cheater is a cheater by its SEARCH, not by its name: a user's file with SEARCH =
    "cheater" is labelled in the strategies section like the shipped one."""
    from fishing2sim.study import run

    write_bot(tmp_path, "oracle", 'SEARCH = "cheater"\nROLLOUT = "greedy"\nPARAMS = [2, 1, 0, 0]\n')
    body = ("players: 4\ngames: 4\nchunk: 4\nseed: 2\n"
            f"seats: [{tmp_path / 'oracle.py'}, greedy, greedy, greedy]\n"
            "analyses: [strategies]\n")
    path = write_experiment(tmp_path, "uc", body)
    run(path, workers=1, progress=False)
    md = (tmp_path / "reports/uc/summary.md").read_text()
    assert "| oracle (sees every hand) |" in md
    assert "`oracle` sees every hand" in md and "not a fair player" in md
    assert "greedy (sees every hand)" not in md


SEARCH_BOTS = ["pimc", "ismcts", "cheater", "pimc_trump", "pimc_skilled", "pimc_close"]


@pytest.mark.parametrize("bot", SEARCH_BOTS)
def test_shipped_search_bots_follow_their_contract(bot):
    from fishing2sim.strategy.files import STRATEGIES_DIR, known_strategies

    assert bot in known_strategies()
    s = load_strategy(bot)
    assert s.name == bot and s.search in ("pimc", "ismcts", "cheater")
    assert s.defined == () and not s.rollout.search
    assert s.param_names == ("worlds", "rollouts", "horizon", "objective",
                             "margin")[:len(s.defaults)]
    assert set(s.searches) <= set(DECISION_NAMES)
    doc = (STRATEGIES_DIR / f"{bot}.py").read_text().lstrip()
    assert doc.startswith('"""') and len(doc.split('"""')[1]) > 100


from fishing2sim.strategy.kit import DECISION_FUNCTIONS as DECISION_NAMES  # noqa: E402
