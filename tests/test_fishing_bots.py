"""The bots in strategies/ in the original Fishing (docs/rules.md B, C).

Every bot plays the original Fishing without error (invariants checked after every trick),
beats the reference random strategy there too, and makes sensible Fishing decisions: the
zero's catch, the card passed with pass-1-left and the suit named with determine-colour.
The strategy kit's judgement of a trick (wins_now / highest_with, which the bots play by)
agrees with the engine under green trump, named suits and lowest-wins.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from fishing2sim.api import play_games, run_games
from fishing2sim.config.deck import load_deck
from fishing2sim.engine import constants as K
from fishing2sim.engine import core
from fishing2sim.engine.batch import G_WINNERS
from fishing2sim.engine.state import (
    A_HAND_N, PH_ROUND_START, PH_TRICKS, S_END, S_LEADER, S_LOWEST_WINS, S_NAMED_SUIT,
    A_OPTIONS, S_N_ROUNDS, S_PHASE, S_PLAYS_N, S_ROUND, S_TRICK_NO, new_obs, new_state,
)
from fishing2sim.strategy import kit as kit
from fishing2sim.strategy.files import static_value, known_strategies, resolve_path
from fishing2sim.strategy.lineup import build_lineup
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.strategy.kit import DECISION_FUNCTIONS

# the heuristic bots (the search bots make their decisions by searching: test_search.py)
BOTS = [name for name in known_strategies() if name != "random"
        and static_value(resolve_path(name), "SEARCH") is None]
# the bots whose Fishing decisions follow the shared rules (strategy_kit); skilled's are
# fitted to a search's values (fishing2sim/train): it plays the whole-game checks only
RULED = [name for name in BOTS if name != "skilled"]
DECK = load_deck(ruleset="fishing")
SUITS = [kit.BLUE, kit.YELLOW, kit.PURPLE, kit.RED, kit.GREEN]  # determine-colour's options


def _obs(hand, options):
    """An observation of the original Fishing with ``hand`` and ``options`` (card names or
    ints), the deck columns filled in as the engine fills them."""
    a = DECK.arrays
    obs = np.zeros(K.OBS_SIZE, np.int64)
    obs[K.O_N_CARDS] = DECK.n_cards
    for c in range(DECK.n_cards):
        obs[K.O_CARD_KIND + c] = a[c, K.F_KIND]
        obs[K.O_CARD_COLOUR + c] = a[c, K.F_COLOUR]
        obs[K.O_CARD_VALUE + c] = a[c, K.F_VALUE]
        obs[K.O_CARD_EFFECT + c] = a[c, K.F_EFFECT]
        for row in range(3):  # green is trump under every setting
            obs[K.O_CARD_SUIT + row * K.MAX_CARDS + c] = (
                K.SUIT_TRUMP if a[c, K.F_KIND] == K.K_GREEN
                else a[c, K.F_COLOUR] if a[c, K.F_KIND] == K.K_COLOUR else K.SUIT_NONE)
    obs[K.O_TRUMP] = K.C_GREEN
    obs[K.O_RULESET] = K.RS_FISHING
    ids = [DECK.card(h) for h in hand]
    obs[K.O_HAND_N] = len(ids)
    obs[K.O_HAND:K.O_HAND + len(ids)] = ids
    opts = [o if isinstance(o, int) else DECK.card(o) for o in options]
    obs[K.O_N_OPTIONS] = len(opts)
    obs[K.O_OPTIONS:K.O_OPTIONS + len(opts)] = opts
    return obs


def _decide(bot, kind, hand, options):
    s = load_strategy(bot)
    fn = dict(zip(DECISION_FUNCTIONS, s.functions))[kind]
    params = np.asarray(s.defaults or (0.0,), np.float64)
    choice = fn(_obs(hand, options), params, np.array([1], np.uint64))
    return DECK.name(choice) if kind != "determine_colour" else choice


# ---- the three Fishing decisions ----------------------------------------------------------
@pytest.mark.parametrize("bot", BOTS)
def test_bot_defines_the_fishing_decisions(bot):
    s = load_strategy(bot)
    assert {"zero_catch", "pass_1_left", "determine_colour"} <= set(s.defined)


@pytest.mark.parametrize("bot", RULED)
def test_zero_catch_takes_the_card_most_worth_keeping_never_a_minus_3(bot):
    hand = ["blue 3"]
    assert _decide(bot, "zero_catch", hand,
                   ["blue 12", "buoy minus-3 (1)", "green 9", "yellow 16"]) == "green 9"
    # a minus-3 costs 3 points at once: anything else is better, even a buoy
    assert _decide(bot, "zero_catch", hand,
                   ["buoy minus-3 (2)", "buoy play-first"]) == "buoy play-first"
    assert _decide(bot, "zero_catch", hand,
                   ["buoy minus-3 (1)", "red 2"]) == "red 2"
    # catch-all-others catches a whole trick later: worth more than any colour card
    assert _decide(bot, "zero_catch", hand,
                   ["red 18", "buoy catch-all-others", "purple 17"]) == "buoy catch-all-others"
    # only a minus-3 left: it must take it (compulsory)
    assert _decide(bot, "zero_catch", hand, ["buoy minus-3 (1)"]) == "buoy minus-3 (1)"


@pytest.mark.parametrize("bot", RULED)
def test_pass_1_left_passes_a_low_plain_card(bot):
    hand = ["blue 17", "blue 4", "red 15", "red 14", "red 2", "purple 18", "green 3"]
    assert _decide(bot, "pass_1_left", hand, hand) == "red 2"
    # zeros, catch-all-others and trumps are kept: the plain card goes, even a high one
    hand = ["red 0", "buoy catch-all-others", "green 2", "blue 16", "green 0", "yellow 0"]
    assert _decide(bot, "pass_1_left", hand, hand) == "blue 16"
    # a buoy that only steers a trick gives the neighbour less than a high plain card
    hand = ["blue 16", "buoy play-first", "red 0"]
    assert _decide(bot, "pass_1_left", hand, hand) == "buoy play-first"
    hand = ["blue 9", "buoy determine-colour", "red 0"]
    assert _decide(bot, "pass_1_left", hand, hand) == "blue 9"
    # a minus-3 (a card to give away in a lost trick) goes before a zero or a trump
    hand = ["red 0", "buoy minus-3 (1)", "green 5", "buoy catch-all-others"]
    assert _decide(bot, "pass_1_left", hand, hand) == "buoy minus-3 (1)"


@pytest.mark.parametrize("bot", RULED)
def test_determine_colour_names_the_suit_it_is_strongest_in(bot):
    hand = ["blue 17", "blue 4", "red 15", "red 14", "red 2", "purple 18", "green 3"]
    assert _decide(bot, "determine_colour", hand, SUITS) == kit.RED
    hand = ["green 14", "green 12", "blue 18", "yellow 3", "buoy minus-3 (1)"]
    assert _decide(bot, "determine_colour", hand, SUITS) == kit.GREEN
    hand = ["purple 11", "purple 16", "purple 0", "yellow 17"]
    assert _decide(bot, "determine_colour", hand, SUITS) == kit.PURPLE


# ---- whole games ---------------------------------------------------------------------------
@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_bot_plays_fishing_with_invariant_checks(bot, players):
    lineup = [bot] + ["random"] * (players - 2) + ["greedy"]
    df = play_games(150, players, seed=5, ruleset="fishing", strategies=lineup, check=True)
    assert set(df.end_reason.unique()) <= {"completed", "overfished"}


def _wilson_low(p, n, z=1.96):
    d = 1 + z * z / n
    return (p + z * z / (2 * n)) / d - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d


@pytest.mark.parametrize("bot", BOTS)
def test_bot_beats_random_in_fishing(bot):
    # seat rotation over the same deals; a shared win among k players counts 1/k
    deals, players, total = 400, 4, 0.0
    for seat in range(players):
        lineup = ["random"] * players
        lineup[seat] = bot
        a = run_games(deals, players, seed=31, strategies=lineup, ruleset="fishing")
        masks = a["int"][:, G_WINNERS]
        k = np.array([bin(int(m)).count("1") for m in masks])
        total += float((((masks >> seat) & 1) / k).sum())
    share = total / (deals * players)
    assert _wilson_low(share, deals * players) > 1 / players, share


# ---- the kit reads Fishing tricks as the engine does ---------------------------------------
@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_kit_highest_agrees_with_the_engine_in_fishing():
    """Random legal cards, card by card: after every card the kit's highest_with (and the
    wins_now the bots call before playing) equals the engine's B2 / B4 judgement, also in
    tricks with a named suit and in lowest-wins tricks."""
    arrays = np.ascontiguousarray(DECK.arrays)
    funcs, params, _ = build_lineup("random", 4)
    gen = np.random.default_rng(5)
    compared = named = lowest = 0
    for seed in range(90):
        st, rng = new_state()
        ev = np.zeros((1, K.EV_FIELDS), np.int64)
        obs = new_obs()
        core.setup_game(st, rng, ev, arrays, 4, K.RS_FISHING,
                        np.ascontiguousarray(DECK.hand_sizes[4]), 8, -1, np.uint64(seed),
                        0, 0, 0)
        while st[S_END] == K.END_RUNNING:
            if st[S_PHASE] == PH_ROUND_START:
                if not core.begin_round(st, ev):
                    break
                st[S_PHASE] = PH_TRICKS
            st[S_TRICK_NO] += 1
            named += st[S_NAMED_SUIT] != K.SUIT_NONE
            lowest += st[S_LOWEST_WINS]
            for k in range(4):
                p = (st[S_LEADER] + k) % 4
                n = core.legal_options(st, p, new_obs(), True)
                mine = np.zeros(K.OBS_SIZE, np.int64)
                core.present(st, mine, p, K.D_PLAY, n, -1)
                card = int(st[A_OPTIONS + gen.integers(n)])
                expect_win = kit.wins_now(mine, card)
                core.play_card(st, ev, p, card)
                w = core.find_winner_fishing(st, st[S_PLAYS_N])
                assert expect_win == (w == st[S_PLAYS_N] - 1)
                seen = np.zeros(K.OBS_SIZE, np.int64)
                core.fill_obs(st, seen, p, K.D_PLAY, 0, -1)
                assert kit.highest_with(seen, -1) == w
                compared += 1
            core.finish_one_trick(st, rng, ev, obs, funcs, params)
            if st[S_END] != K.END_RUNNING:
                break
            if st[A_HAND_N] == 0:
                core.end_round(st, rng, ev)
                if st[S_ROUND] >= st[S_N_ROUNDS]:
                    break
                st[S_PHASE] = PH_ROUND_START
    print(compared, named, lowest)
    assert compared > 12000 and named > 15 and lowest > 15


def test_kit_nobody_follows_the_named_suit_no_card_wins():
    from scenario import Table

    t = Table(ruleset="fishing", named=("purple", 3),
              hands={0: ["blue 9", "red 1"], 1: ["red 4", "red 2"], 2: ["yellow 18", "red 3"],
                     3: ["blue 2", "red 6"]})
    obs = np.zeros(K.OBS_SIZE, np.int64)
    n = core.legal_options(t.st, 0, new_obs(), True)
    core.present(t.st, obs, 0, K.D_PLAY, n, -1)
    assert obs[K.O_LED] == K.C_PURPLE
    assert not kit.wins_now(obs, DECK.card("blue 9"))  # its namer would catch
    core.play_card(t.st, t.ev, 0, DECK.card("blue 9"))
    core.fill_obs(t.st, obs, 1, K.D_PLAY, 0, -1)
    assert kit.highest_with(obs, -1) == -1 == core.find_winner_fishing(t.st, 1)
    assert kit.wins_now(obs, DECK.card("green 3"))  # a trump would win


SPY = str(Path(__file__).parent / "bots" / "spy.py")


def test_no_hidden_card_in_the_buffer_a_fishing_strategy_receives():
    # docs/rules.md C in the original Fishing: other hands never show, not even past the counts
    # (pass-1-left asks every seat in turn for a hand card)
    play_games(300, 4, seed=9, ruleset="fishing",
               strategies=[SPY, "greedy", "counter", "random"])
    play_games(300, 4, seed=9, ruleset="fishing",
               strategies=["weights", "random", SPY, "buoy_savvy"])
