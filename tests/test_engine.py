"""Engine-wide properties: invariants after every step, determinism, results, bad input."""
from pathlib import Path

import numpy as np
import pytest

from fishing2sim.api import play_game, play_games, run_games
from fishing2sim.config.deck import load_deck
from fishing2sim.engine import constants as K
from fishing2sim.engine.core import invariants_hold, run_game, setup_game
from fishing2sim.engine.state import (
    A_HAND_N, PH_TRUMP, S_END, S_PHASE, S_ROUND, new_obs, new_state,
)
from fishing2sim.strategy.lineup import build_lineup, observe_mask


@pytest.mark.parametrize("players", [3, 4, 5])
def test_invariants_hold_after_every_trick(players):
    # check=True makes the kernel verify after every trick: every card in exactly one
    # place, equal hand sizes, points = scored fisher cards + bonuses. A violation stops
    # the game with an error, which play_games raises.
    df = play_games(1500, players=players, seed=11, check=True)
    assert set(df.end_reason.unique()) <= {"completed", "overfished"}
    assert (df.rounds_played[df.end_reason == "completed"] == 8).all()
    assert (df.tricks >= 9).all()  # every game played at least its first round


def test_invariant_checker_detects_a_lost_card():
    deck = load_deck()
    st, rng = new_state()
    ev = np.zeros((1, K.EV_FIELDS), np.int64)
    setup_game(st, rng, ev, np.ascontiguousarray(deck.arrays), 4, 0,
               np.ascontiguousarray(deck.hand_sizes[4]), 8, -1, np.uint64(5), 0, 1, 0)
    assert invariants_hold(st, deck.arrays)
    st[A_HAND_N] -= 1  # a card vanishes from seat 0's hand
    assert not invariants_hold(st, deck.arrays)


LEGAL_CHECKER = str(Path(__file__).parent / "bots" / "legal_checker.py")


@pytest.mark.parametrize("ruleset", ["fishing2", "fishing"])
@pytest.mark.parametrize("players", [3, 4, 5])
def test_legal_set_never_empty_while_cards_remain(ruleset, players):
    """At every decision the options are exactly the legal set (A5 for plays; the hand, the
    shades, the suits or the other cards in the trick for the others), never empty: the
    checking bot stops the game otherwise. A game only ends by overfishing or after its
    last round, and every play event is a card from the player's hand."""
    df = play_games(300, players, seed=4, ruleset=ruleset, strategies=LEGAL_CHECKER)
    assert set(df.end_reason) <= {"completed", "overfished"}
    assert (df.rounds_played[df.end_reason == "completed"] == 8).all()
    for s in range(5):
        g = play_game(players, seed=s, ruleset=ruleset, strategies=LEGAL_CHECKER)
        hands = {p: set() for p in range(players)}
        for e in g.events:
            if e["event"] in ("deal", "draw"):
                hands[e["player"]].add(e["card"])
            elif e["event"] in ("play", "catch_1_card"):
                assert e["card"] in hands[e["player"]]
                hands[e["player"]].remove(e["card"])
            elif e["event"] == "exchange_1_card":
                hands[e["player"]].add(e["taken"])
                hands[e["player"]].remove(e["given"])
            elif e["event"] == "pass_1_left":
                hands[e["player"]].remove(e["card"])
                hands[e["to"]].add(e["card"])


def test_same_seed_same_game():
    a = play_game(4, seed=123)
    b = play_game(4, seed=123)
    assert a.events == b.events
    da = play_games(300, 4, seed=9)
    db = play_games(300, 4, seed=9)
    assert da.equals(db)


def test_different_seeds_give_different_games():
    a = play_game(4, seed=1)
    b = play_game(4, seed=2)
    assert a.events != b.events
    df = play_games(200, 4, seed=3)
    # 200 games of the same seed are different games, too
    deals = {tuple(e["card"] for e in play_game(4, seed=3, game=g).events if e["event"] == "deal")
             for g in range(20)}
    assert len(deals) == 20
    assert df.points_0.nunique() > 10


def test_batch_and_single_game_agree():
    df = play_games(30, 4, seed=77, start=5)
    for i, row in df.iterrows():
        g = play_game(4, seed=77, game=int(row.game))
        assert [row[f"points_{p}"] for p in range(4)] == g.points
        assert row.end_reason == g.end_reason
        assert row.rounds_played == g.rounds_played
        assert row.winners == g.winners


def test_result_columns():
    df = play_games(400, 5, seed=4)
    assert {"points_0", "points_4", "winners", "end_reason", "end_round", "rounds_played",
            "ocean_r1", "ocean_r8", "trump_r2", "trump_r8"} <= set(df.columns)
    # ocean after round 1's draws: no draws in round 1, the whole ocean (5 players: 59)
    assert (df.ocean_r1 == 59).all()
    # the ocean only shrinks
    oc = df[[f"ocean_r{r}" for r in range(1, 9)]].to_numpy()
    d = np.diff(oc, axis=1)
    assert np.all((d <= 0) | np.isnan(d))
    # rounds not reached have no ocean figure and no trump choice
    over = df[df.end_reason == "overfished"]
    assert len(over) > 20
    for _, row in over.head(40).iterrows():
        assert row.end_round >= 2
        assert row.rounds_played in (row.end_round, row.end_round - 1)
        for r in range(1, 9):
            assert np.isnan(row[f"ocean_r{r}"]) == (r > row.rounds_played)
        for r in range(row.rounds_played + 1, 9):
            assert row[f"trump_r{r}"] is np.nan or str(row[f"trump_r{r}"]) == "nan"
    # winners hold the maximum
    pts = df[[f"points_{p}" for p in range(5)]].to_numpy()
    for w, p in zip(df.winners, pts):
        assert sorted(w) == sorted(np.flatnonzero(p == p.max()).tolist())


def test_stop_at_trump_choice_and_copy_state_replays_exactly():
    # paired replays (later experiments) copy the state at the trump choice: a copy played
    # on with the same choice is the same game
    deck = load_deck()
    funcs, params, strats = build_lineup("random", 4)
    arrays = np.ascontiguousarray(deck.arrays)
    st, rng = new_state()
    ev = np.zeros((1, K.EV_FIELDS), np.int64)
    obs = new_obs()
    setup_game(st, rng, ev, arrays, 4, 0, np.ascontiguousarray(deck.hand_sizes[4]), 8, -1,
               np.uint64(99), 0, 0, observe_mask(strats))
    run_game(st, rng, ev, arrays, obs, funcs, params, K.STOP_AT_TRUMP)
    assert st[S_PHASE] == PH_TRUMP and st[S_ROUND] == 2
    st2, rng2 = st.copy(), rng.copy()
    run_game(st, rng, ev, arrays, obs, funcs, params, K.STOP_NEVER)
    run_game(st2, rng2, ev, arrays, obs, funcs, params, K.STOP_NEVER)
    assert np.array_equal(st, st2) and np.array_equal(rng, rng2)
    assert st[S_END] in (K.END_COMPLETED, K.END_OVERFISHED)


@pytest.mark.parametrize("kwargs, message", [
    (dict(players=2), "players must be 3, 4 or 5"),
    (dict(players=6), "players must be 3, 4 or 5"),
    (dict(players="4"), "players must be a whole number"),
    (dict(ruleset="fishing3"), "unknown ruleset 'fishing3'"),
    (dict(seed=-5), "seed must be from 0"),
    (dict(seed=2**64), "seed must be from 0"),
    (dict(seed=1.5), "seed must be a whole number"),
    (dict(first_leader=4), "first_leader must be a seat 0..3"),
])
def test_bad_input_is_a_value_error_naming_the_problem(kwargs, message):
    args = dict(players=4, seed=1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        play_game(**args)


def test_malformed_deck_file_is_a_value_error(tmp_path):
    deck = load_deck()
    text = deck.path.read_text().replace("blue,7,none,0,3", "blue,seven,none,0,3")
    bad = tmp_path / "mydeck.csv"
    bad.write_text(text)
    with pytest.raises(ValueError, match=r"row 7.*value"):
        play_game(4, seed=1, deck=str(bad))


def test_illegal_choice_stops_the_run_naming_strategy_decision_and_choice():
    from pathlib import Path

    from fishing2sim.api import StrategyFailure

    path = str(Path(__file__).parent / "bots" / "refuser.py")
    with pytest.raises(StrategyFailure, match=r"strategy 'refuser' \(.*refuser.py\), seat 0: "
                                              r"illegal (play|trump_choice) decision: "
                                              r"returned -7, not one of its options: "):
        play_games(5, 4, seed=1, strategies=[path, "random", "random", "random"])


def _dealt(st, arrays, hand_sizes, n_rounds, ruleset, seed):
    rng = np.zeros(K.MAX_PLAYERS + 1, np.uint64)
    ev = np.zeros((1, K.EV_FIELDS), np.int64)
    setup_game(st, rng, ev, arrays, 4, ruleset, hand_sizes, n_rounds, -1, np.uint64(seed),
               0, 0, 0)
    return st, rng, ev


def test_a_state_used_before_deals_exactly_as_a_fresh_one():
    """setup_game keeps the deck's block of a state between games of a batch; a state that
    held a played game of another deck, another ruleset, or the same deck with one card
    changed deals exactly as a fresh state (every field)."""
    decks = {}
    for name in ("fishing2", "fishing"):
        d = load_deck(ruleset=name)
        decks[name] = (np.ascontiguousarray(d.arrays), np.ascontiguousarray(d.hand_sizes[4]),
                       d.n_rounds)
    arr = decks["fishing2"][0].copy()
    arr[5, K.F_VALUE] += 1  # the same number of cards, one value differs
    decks["changed"] = (arr,) + decks["fishing2"][1:]
    funcs, table, strats = build_lineup(["random"] * 4, 4)
    obs = new_obs()
    for (d1, r1), (d2, r2) in [(("fishing2", 0), ("fishing2", 0)),
                               (("fishing2", 0), ("fishing", 1)),
                               (("fishing", 1), ("fishing2", 0)),
                               (("fishing2", 0), ("fishing2", 1)),
                               (("fishing2", 0), ("changed", 0)),
                               (("changed", 0), ("fishing2", 0))]:
        st, rng, ev = _dealt(new_state()[0], *decks[d1], r1, 3)
        run_game(st, rng, ev, decks[d1][0], obs, funcs, table, 0)
        assert st[S_END] != 0  # a whole game was played in it
        used = _dealt(st, *decks[d2], r2, 9)[0]
        fresh = _dealt(new_state()[0], *decks[d2], r2, 9)[0]
        assert np.array_equal(used, fresh), (d1, r1, d2, r2)


def test_a_random_card_play_writes_no_buffer_and_knows_each_options_place():
    """The engine draws a random seat's card itself: legal_positions gives the same legal
    cards as legal_options (A5: with a suit led the cards of that suit, blowfish and
    buoys; none of it held, or no suit set yet: every card) as their places in the hand
    (A_OPT_AT), which play_card_at removes without a search, and writes nothing else (no
    buffer, no card list); when every card is legal it says so (-n)."""
    from fishing2sim.engine import core
    from fishing2sim.engine.state import A_HAND, A_KIND, A_OPT_AT, A_OPTIONS, S_LED, \
        S_SUIT_BASE

    d = load_deck()
    st = _dealt(new_state()[0], np.ascontiguousarray(d.arrays),
                np.ascontiguousarray(d.hand_sizes[4]), d.n_rounds, 0, 21)[0]
    hand = [int(c) for c in st[A_HAND + K.MAX_HAND:A_HAND + K.MAX_HAND + st[A_HAND_N + 1]]]
    suits = {int(st[st[S_SUIT_BASE] + c]) for c in hand} - {K.SUIT_NONE}
    missing = min({K.C_BLUE, K.C_YELLOW, K.C_RED, K.C_LIGHT, K.C_DARK, K.SUIT_TRUMP} - suits)
    assert suits
    seen = set()
    for led in [K.SUIT_NONE, missing] + sorted(suits):
        st[S_LED] = led
        obs = new_obs()
        n = core.legal_options(st, 1, obs, True)
        opts = [int(c) for c in st[A_OPTIONS:A_OPTIONS + n]]
        held = led != K.SUIT_NONE and any(st[st[S_SUIT_BASE] + c] == led for c in hand)
        want = [c for c in hand if not held or st[st[S_SUIT_BASE] + c] == led
                or st[A_KIND + c] in (K.K_BLOWFISH, K.K_BUOY)]
        assert opts == want
        assert list(obs[1, K.O_OPTIONS:K.O_OPTIONS + n]) == opts
        st[A_OPTIONS:A_OPTIONS + K.MAX_HAND] = -5
        st[A_OPT_AT:A_OPT_AT + K.MAX_HAND] = -5
        before = st.copy()
        m = core.legal_positions(st, 1)
        changed = np.flatnonzero(st != before)
        assert set(changed) <= set(range(A_OPT_AT, A_OPT_AT + len(hand)))
        if m < 0:  # every card legal: the k-th option is the k-th hand card
            assert not held and -m == len(hand) == n
        else:
            assert held and m == n
            assert [hand[st[A_OPT_AT + k]] for k in range(m)] == opts
        seen.add(m < 0)
    assert seen == {True, False}


def test_every_record_is_laid_out_by_name_without_gaps():
    """The state, the observation, the per-game and the trump-pair records each come from
    one Layout (engine/layout.py): consecutive named fields, the width their sum."""
    from fishing2sim.engine import batch, state
    from fishing2sim.engine.layout import Layout

    for fields, size in ((state.LAYOUT, state.STATE_SIZE), (K.OBS_LAYOUT, K.OBS_SIZE),
                         (batch.GAME_LAYOUT, batch.N_G), (batch.PAIR_LAYOUT, batch.N_T)):
        at = 0
        for off, n in sorted(fields.values()):
            assert off == at
            at += n
        assert at == size
    assert (batch.G_END, batch.G_MAX_TIER, batch.N_G) == (0, 12, 13)  # the shipped widths
    assert (batch.T_CHOOSER, batch.T_D2_WIN, batch.N_T) == (0, 5, 6)
    lay = Layout("a test record")
    lay.field("a")
    with pytest.raises(ValueError, match="laid out twice"):
        lay.field("a")
