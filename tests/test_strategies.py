"""The bots in strategies/, the plugin contract and the information boundary (docs/rules.md C).

Every heuristic bot must load, play seeded games without error and beat the reference random
strategy: its seat's win share, over the same deals played once from every seat (seat
rotation), must be above 1/players with a 95% Wilson interval clear of it. A shared win
among k players counts 1/k.
"""
from __future__ import annotations

import math
from pathlib import Path
import textwrap

import numpy as np
import pytest

from fishing2sim.api import StrategyFailure, play_game, play_games, run_games
from fishing2sim.config.deck import load_deck
from fishing2sim.engine import constants as K
from fishing2sim.engine import core
from fishing2sim.engine.state import (
    A_BOAT, A_BOAT_HEAD, A_BOAT_N, A_FISHER, A_FISHER_N, A_HAND, A_HAND_N, A_OCEAN, A_PLAYED,
    A_OPTIONS, PH_ROUND_START, PH_TRUMP, S_END, S_LEADER, S_N_ROUNDS, S_OCEAN_LEN,
    S_OCEAN_TOP, S_PHASE, S_PLAYED_N, S_PLAYS_N, S_ROUND, S_TRICK_N, S_TRICK_NO, new_obs,
    new_state,
)
from fishing2sim.strategy.files import (STRATEGIES_DIR, static_value, known_strategies, resolve_path)
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.lineup import build_lineup, observe_mask
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.strategy import kit as kit
from fishing2sim.strategy.kit import DECISION_FUNCTIONS

# the heuristic bots (the search bots make their decisions by searching: test_search.py)
BOTS = [name for name in known_strategies() if name != "random"
        and static_value(resolve_path(name), "SEARCH") is None]
FISHING2_DECISIONS = ("play", "trump_choice", "determine_trump", "catch_1_other",
                      "exchange_take", "exchange_give", "catch_1_card")
_GAME_G_WINNERS = 3  # column of run_games' "int" array: bitmask of the seats sharing the win


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


def rotated_win_share(bot, deals: int, players: int = 4, seed: int = 2024,
                      opponent="random") -> tuple[float, int]:
    """The bot's win share over ``deals`` deals played once from every seat (the same game
    seeds in every rotation; the rest of the table is ``opponent``). Shared wins count 1/k."""
    total = 0.0
    for seat in range(players):
        lineup = [opponent] * players
        lineup[seat] = bot
        a = run_games(deals, players, seed=seed, strategies=lineup)
        masks = a["int"][:, _GAME_G_WINNERS]
        k = np.array([bin(int(m)).count("1") for m in masks])
        total += float((((masks >> seat) & 1) / k).sum())
    return total / (deals * players), deals * players


def test_the_bots_are_there():
    assert {"greedy", "sandbagger", "counter", "buoy_savvy", "weights", "highest"} <= set(BOTS)


@pytest.mark.parametrize("bot", BOTS)
def test_bot_follows_the_contract(bot):
    s = load_strategy(bot)
    assert s.name == bot
    assert s.observes  # the heuristic bots read the observation
    assert set(FISHING2_DECISIONS) <= set(s.defined)
    assert set(s.defined) <= set(DECISION_FUNCTIONS)
    doc = (STRATEGIES_DIR / f"{bot}.py").read_text().lstrip()
    assert doc.startswith('"""') and len(doc.split('"""')[1]) > 100  # a docstring with its idea
    if s.param_names:
        assert len(s.param_names) == len(s.defaults)


@pytest.mark.parametrize("bot", BOTS)
def test_bot_plays_300_games_against_random(bot):
    df = play_games(300, 4, seed=31, strategies=[bot, "random", "random", "random"])
    assert not df.equals(play_games(300, 4, seed=31))  # the bot's choices are played
    assert set(df.end_reason.unique()) <= {"completed", "overfished"}
    # the same seeds give the same games
    again = play_games(20, 4, seed=31, strategies=[bot, "random", "random", "random"])
    assert again.equals(df.iloc[:20].reset_index(drop=True))


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("players", [3, 5])
def test_bot_plays_3_and_5_player_games_with_invariant_checks(bot, players):
    lineup = [bot] + ["random"] * (players - 1)
    df = play_games(60, players, seed=32, strategies=lineup, check=True)
    assert set(df.end_reason) <= {"completed", "overfished"}
    assert (df.rounds_played[df.end_reason == "completed"] == 8).all()


def test_a_table_of_different_bots_plays():
    df = play_games(200, 5, seed=33, strategies=["greedy", "counter", "buoy_savvy", "weights",
                                                 "sandbagger"], check=True)
    assert set(df.end_reason) <= {"completed", "overfished"}
    assert all(df.winners.apply(lambda w: seat in w).any() for seat in range(5))


@pytest.mark.parametrize("bot", BOTS)
def test_bot_beats_random(bot):
    # 4 rotations x 500 deals: every bot here wins well above 25% (the weakest, highest and
    # sandbagger, near 45%), so 2,000 games separate it from 1/4 with a wide margin
    share, n = rotated_win_share(bot, 500)
    lo, hi = wilson(share, n)
    assert share > 0.25 and lo > 0.25, (bot, share, lo, hi)


@pytest.mark.slow
@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_bot_beats_random_big(bot, players):
    share, n = rotated_win_share(bot, 2500, players=players, seed=77)
    lo, _ = wilson(share, n)
    assert lo > 1 / players, (bot, players, share, lo)


def test_random_wins_its_share_against_itself():
    # the harness itself: a random seat among random seats wins about 1/4
    share, n = rotated_win_share("random", 500)
    lo, hi = wilson(share, n)
    assert lo < 0.25 < hi


# ---- strategy files outside the repository ------------------------------------------

def test_strategy_file_outside_the_repo_is_loaded_by_path_and_plays(tmp_path):
    src = (STRATEGIES_DIR / "greedy.py").read_text().replace('NAME = "greedy"',
                                                               'NAME = "my_greedy_copy"')
    path = tmp_path / "my_greedy_copy.py"
    path.write_text(src)
    s = load_strategy(str(path))
    assert s.name == "my_greedy_copy" and s.source == str(path.resolve())
    lineup = [str(path), "random", "random", "random"]
    df = play_games(200, 4, seed=5, strategies=lineup)
    # the same code plays the same games as the shipped file
    shipped = play_games(200, 4, seed=5, strategies=["greedy", "random", "random", "random"])
    assert df.equals(shipped)
    g = play_game(4, seed=5, strategies=lineup)
    assert g.end_reason in ("completed", "overfished")


LOAD_AND_PLAY = textwrap.dedent("""
    import sys
    from fishing2sim.api import play_games
    df = play_games(30, 4, seed=1, strategies=[sys.argv[1]] + ["random"] * 3)
    print(int(df.points_0.sum()))
""")


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_a_user_strategy_cache_built_by_another_version_is_dropped(tmp_path):
    """numba keys a cached function on its own file only, but a user's bot has the
    kit helpers compiled into it: its cache is kept while the kit and engine
    sources are the ones it was built from, and dropped (recompiled) when they are not."""
    import os
    import subprocess
    import sys

    from fishing2sim.strategy.files import _cache_stamp

    src = (STRATEGIES_DIR / "greedy.py").read_text().replace('NAME = "greedy"',
                                                               'NAME = "cache_probe"')
    path = tmp_path / "cache_probe.py"
    path.write_text(src)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    cache = tmp_path / "__pycache__"
    stamp = cache / "cache_probe.fishing2sim.stamp"

    def run():
        out = subprocess.run([sys.executable, "-c", LOAD_AND_PLAY, str(path)], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        files = {f.name: (f.stat().st_ino, f.stat().st_mtime_ns)
                 for f in cache.glob("cache_probe.*.nb*")}
        return int(out.stdout.split()[-1]), files

    points, first = run()
    assert first and stamp.read_text() == _cache_stamp(path)
    again, kept = run()
    assert again == points and kept == first  # same sources: the cache is used as it is
    stamp.write_text("built by another version of fishing2sim")
    after, rebuilt = run()
    assert after == points and stamp.read_text() == _cache_stamp(path)
    assert all(rebuilt.get(name) != info for name, info in first.items())  # recompiled



def test_a_strategy_cache_check_follows_no_link(tmp_path):
    """A user's bot's cache stamp is read and written without following a link, and a
    linked cache folder is not dropped through: links planted at the stamp's name, at the
    name of its temporary file and in place of the cache folder leave their targets as
    they were (the engine's own cache: test_compile.py)."""
    import os

    from fishing2sim.strategy.files import (_cache_dirs, _cache_stamp,
                                            _drop_stale_strategy_cache, _stamp_file,
                                            _write_strategy_stamp)

    bot = tmp_path / "bot" / "linkbot.py"
    bot.parent.mkdir()
    bot.write_text('NAME = "linkbot"\n')
    [cache] = [d for d in _cache_dirs(bot) if d.parent == bot.parent]
    cache.mkdir(exist_ok=True)  # (the locator may have made it)
    stale = cache / "linkbot.play-9.py311.nbi"
    stale.write_bytes(b"old machine code")
    fresh_looking = tmp_path / "fresh.txt"  # a user's file holding today's stamp
    fresh_looking.write_text(_cache_stamp(bot))
    stamp = _stamp_file(cache, bot)
    stamp.symlink_to(fresh_looking)  # read through the link, the stale cache would stay
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's text")
    (cache / f".{stamp.name}.{os.getpid()}.tmp").symlink_to(victim)

    _drop_stale_strategy_cache(bot)
    assert not stale.exists()  # a stamp behind a link counts as stale: dropped
    stale.write_bytes(b"new machine code")
    _write_strategy_stamp(bot)
    assert victim.read_text() == "the user's text"  # not written through either link
    assert fresh_looking.read_text() == _cache_stamp(bot)
    assert not stamp.is_symlink() and stamp.read_text() == _cache_stamp(bot)
    _drop_stale_strategy_cache(bot)  # now a real, fresh stamp: kept
    assert stale.read_bytes() == b"new machine code"

    # the cache folder itself a link to a user's folder: nothing in it is dropped or written
    users = tmp_path / "users"
    users.mkdir()
    (users / "linkbot.keep.nbi").write_bytes(b"the user's file")
    for f in cache.iterdir():
        f.unlink()
    cache.rmdir()
    cache.symlink_to(users, target_is_directory=True)
    _drop_stale_strategy_cache(bot)
    _write_strategy_stamp(bot)
    assert sorted(f.name for f in users.iterdir()) == ["linkbot.keep.nbi"]
    assert (users / "linkbot.keep.nbi").read_bytes() == b"the user's file"

def test_strategy_parameters_reach_the_bot():
    # sandbagger ducking for the whole round plays different games from never ducking
    lineup = ["sandbagger", "random", "random", "random"]
    never = play_games(100, 4, seed=8, strategies=lineup, params=[[0.0], None, None, None])
    always = play_games(100, 4, seed=8, strategies=lineup, params=[[1.0], None, None, None])
    default = play_games(100, 4, seed=8, strategies=lineup)
    assert not never.equals(always)
    assert never.points_0.mean() > always.points_0.mean()
    explicit = play_games(100, 4, seed=8, strategies=lineup, params=[[0.5], None, None, None])
    assert default.equals(explicit)


# ---- strategies that break the contract --------------------------------------------

ILLEGAL_CHOICE = '''
"""illegal_choice: plays the lowest card id that is not one of its options."""
from fishing2sim.strategy.kit import decision, n_options, option

NAME = "illegal_choice"


@decision
def play(obs, params, rng):
    c = 0
    while True:
        taken = False
        for i in range(n_options(obs)):
            if option(obs, i) == c:
                taken = True
        if not taken:
            return c
        c += 1
'''


def test_an_illegal_choice_raises_naming_strategy_decision_and_choice(tmp_path):
    path = tmp_path / "illegal_choice_bot.py"
    path.write_text(ILLEGAL_CHOICE)
    # card 0 (blue 1) is not used with 4 players, so it is never an option: the first play
    # decision the bot is asked is illegal
    with pytest.raises(StrategyFailure,
                       match=r"strategy 'illegal_choice' \(.*illegal_choice_bot.py\), seat 1: "
                             r"illegal play decision: returned blue 1 \(0\), not one of its "
                             r"options: "):
        play_games(10, 4, seed=1, strategies=["random", str(path), "random", "random"])


BAD_FILES = {
    "no_name_bot": ('''
from fishing2sim.strategy.kit import decision, option


@decision
def play(obs, params, rng):
    return option(obs, 0)
''', r"no NAME"),
    "undecorated_bot": ('''
from fishing2sim.strategy.kit import O_OPTIONS

NAME = "undecorated"


def play(obs, params, rng):
    return obs[O_OPTIONS]
''', r"play is not a decision function.*@decision"),
    "wrong_signature_bot": ('''
from numba import njit

NAME = "wrong_signature"


@njit("int64(int64)")
def trump_choice(x):
    return x
''', r"trump_choice has the wrong signature \(\(int64,\) -> int64\)"),
    "param_names_bot": ('''
from fishing2sim.strategy.kit import decision, option

NAME = "param_names"
PARAMS = [1.0]
PARAM_NAMES = ["a", "b"]


@decision
def play(obs, params, rng):
    return option(obs, 0)
''', r"PARAM_NAMES has 2 names for 1 PARAMS"),
    "backtick_name_bot": ('''
NAME = "a`b"
''', r"NAME 'a`b' holds '`'.*may not hold a backtick"),
    "newline_name_bot": ('''
NAME = "a\\nb"
''', r"NAME 'a\\nb' holds '\\n'"),
    "no_decision_bot": ('''
NAME = "no_decision"
''', r"defines none of the decisions"),
    "broken_import_bot": ('''
from fishing2sim.strategy.kit import no_such_helper
NAME = "broken"
''', r"cannot be imported: ImportError"),
    # sys.exit at import would end the program as if it had finished (exit 0, no report)
    "exit_zero_bot": ('''
import sys
NAME = "exit_zero"
sys.exit(0)
''', r"cannot be imported: it called sys.exit\(0\) while being imported"),
    "exit_code_bot": ('''
NAME = "exit_code"
raise SystemExit(3)
''', r"cannot be imported: it called sys.exit\(3\)"),
}


@pytest.mark.parametrize("stem", sorted(BAD_FILES))
def test_bad_strategy_file_is_an_error_naming_file_and_problem(tmp_path, stem):
    text, problem = BAD_FILES[stem]
    path = tmp_path / f"{stem}.py"
    path.write_text(textwrap.dedent(text))
    with pytest.raises(StrategyError, match=problem) as err:
        play_games(5, 4, seed=1, strategies=[str(path), "random", "random", "random"])
    assert path.name in str(err.value)



@pytest.mark.parametrize("command", ["run", "play"])
def test_a_strategy_file_that_exits_at_import_fails_the_command(tmp_path, command):
    """sys.exit(0) in a strategy file would end the command as if it had succeeded: exit 0,
    no report, no word. It is one line naming the file, exit 2, and nothing is written."""
    from click.testing import CliRunner

    from fishing2sim.cli import main

    bot = tmp_path / "exit_zero_bot.py"
    bot.write_text(textwrap.dedent(BAD_FILES["exit_zero_bot"][0]))
    (tmp_path / "e.yaml").write_text("name: e\ngames: 40\nseats: [./exit_zero_bot.py, random, "
                                     "random, random]\noutput: out\n")
    args = (["run", str(tmp_path / "e.yaml"), "--no-progress"] if command == "run" else
            ["play", "--strategy", str(bot)])
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert lines[-1].startswith("Error: ") and "exit_zero_bot.py" in lines[-1]
    assert "it called sys.exit(0) while being imported" in lines[-1]
    assert "Traceback" not in r.output
    assert not (tmp_path / "out").exists()

def test_parameter_vector_of_the_wrong_length_is_an_error():
    with pytest.raises(StrategyError, match=r"strategy 'sandbagger' \(.*sandbagger\.py\) "
                                            r"takes 1 parameters \(sandbag_fraction\), got 2"):
        play_games(5, 4, seed=1, strategies=["sandbagger", "random", "random", "random"],
                   params=[[0.1, 0.2], None, None, None])
    with pytest.raises(StrategyError, match=r"weights.*takes \d+ parameters \(power, win, "):
        play_games(5, 4, seed=1, strategies=["weights"] * 4, params=[[1.0]] * 4)


def test_unknown_strategy_name_lists_the_known_ones():
    with pytest.raises(StrategyError, match=r"unknown strategy 'no_such_bot'; known: "
                                            r".*greedy.*random") as err:
        play_games(5, 4, seed=1, strategies=["no_such_bot", "random", "random", "random"])
    for name in BOTS:
        assert name in str(err.value)
    with pytest.raises(StrategyError, match=r"strategy file .*missing_bot\.py does not exist"):
        load_strategy("/nonexistent/dir/missing_bot.py")


# ---- the information boundary (docs/rules.md C) -----------------------------------------

def _mid_round_state(seed: int):
    """A 4-player state in round 3 or later, a few tricks in, with a trick half played."""
    deck = load_deck()
    funcs, params, strats = build_lineup(["greedy", "random", "counter", "random"], 4)
    arrays = np.ascontiguousarray(deck.arrays)
    st, rng = new_state()
    ev = np.zeros((1, K.EV_FIELDS), np.int64)
    obs = new_obs()
    core.setup_game(st, rng, ev, arrays, 4, 0, np.ascontiguousarray(deck.hand_sizes[4]), 8,
                    -1, np.uint64(seed), 0, 0, observe_mask(strats))
    core.run_game(st, rng, ev, arrays, obs, funcs, params, K.STOP_AT_TRUMP)  # round 2's trump choice
    while st[S_PHASE] == PH_TRUMP and st[S_ROUND] < 4:
        core.apply_trump_choice(st, ev, K.C_LIGHT)
        core.run_game(st, rng, ev, arrays, obs, funcs, params, K.STOP_AT_TRUMP)
    if st[S_PHASE] != PH_TRUMP or st[S_END] != K.END_RUNNING:
        return None
    core.apply_trump_choice(st, ev, K.C_DARK)
    for _ in range(2):
        core.play_one_trick(st, rng, ev, obs, funcs, params)
    if st[S_END] != K.END_RUNNING or st[A_HAND_N] < 3:
        return None
    leader = st[S_LEADER]
    for k in range(2):  # the next trick, half played
        p = (leader + k) % 4
        n = core.legal_options(st, p, new_obs(), True)
        core.play_card(st, ev, p, st[A_OPTIONS + n - 1])
    return st, rng


def _observe(st, seat=0):
    obs = np.zeros(K.OBS_SIZE, np.int64)
    n = core.legal_options(st, seat, new_obs(), True)
    core.present(st, obs, seat, K.D_PLAY, n, -1)
    return obs


def _hide_what_seat_0_cannot_know(st, gen):
    """Swap cards between seats 1 and 2's hands, reorder every hand but seat 0's, reorder
    the ocean and every boat, swap a boat card with an ocean card and reorder the fishers.
    Every count stays the same."""
    st = st.copy()
    n = st[A_HAND_N]
    h1, h2 = A_HAND + 1 * K.MAX_HAND, A_HAND + 2 * K.MAX_HAND
    st[h1], st[h2] = st[h2], st[h1]
    for p in (1, 2, 3):
        base = A_HAND + p * K.MAX_HAND
        st[base:base + n] = gen.permutation(st[base:base + n])
    top, end = st[S_OCEAN_TOP], st[S_OCEAN_LEN]
    st[A_OCEAN + top:A_OCEAN + end] = gen.permutation(st[A_OCEAN + top:A_OCEAN + end])
    for p in range(4):
        idx = [A_BOAT + p * K.MAX_CARDS + (st[A_BOAT_HEAD + p] + i) % K.MAX_CARDS
               for i in range(st[A_BOAT_N + p])]
        st[idx] = gen.permutation(st[idx])
        if idx and end > top:  # replace one boat card by an ocean card (and back)
            j = A_OCEAN + top + int(gen.integers(end - top))
            st[idx[0]], st[j] = st[j], st[idx[0]]
        f = A_FISHER + p * K.MAX_CARDS
        st[f:f + st[A_FISHER_N + p]] = gen.permutation(st[f:f + st[A_FISHER_N + p]])
    return st


def test_observation_shows_nothing_seat_0_may_not_know():
    gen = np.random.default_rng(3)
    checked = 0
    for seed in range(40):
        got = _mid_round_state(seed)
        if got is None:
            continue
        st, _ = got
        before = _observe(st)
        hidden = _hide_what_seat_0_cannot_know(st, gen)
        assert not np.array_equal(hidden, st)  # other hands, ocean, boats really changed
        h1 = A_HAND + K.MAX_HAND
        assert hidden[h1] != st[h1]
        after = _observe(hidden)
        assert np.array_equal(before, after), np.flatnonzero(before != after)
        # the check can fail: a card swapped into seat 0's own hand shows
        own = hidden.copy()
        own[A_HAND], own[A_HAND + K.MAX_HAND] = own[A_HAND + K.MAX_HAND], own[A_HAND]
        assert not np.array_equal(before, _observe(own))
        # every card the obs names is in seat 0's hand or was played this round
        hand = set(st[A_HAND:A_HAND + st[A_HAND_N]].tolist())
        played = set(st[A_PLAYED:A_PLAYED + st[S_PLAYED_N]].tolist())
        assert set(before[K.O_HAND:K.O_HAND + before[K.O_HAND_N]].tolist()) == hand
        trick = before[K.O_TRICK_CARD:K.O_TRICK_CARD + before[K.O_TRICK_N]]
        assert before[K.O_TRICK_N] == st[S_TRICK_N] == 2
        assert set(trick.tolist()) <= played
        assert before[K.O_PLAYED:K.O_PLAYED + before[K.O_N_PLAYED]].tolist() == \
            st[A_PLAYED:A_PLAYED + st[S_PLAYED_N]].tolist()
        opts = before[K.O_OPTIONS:K.O_OPTIONS + before[K.O_N_OPTIONS]]
        assert set(opts.tolist()) <= hand
        checked += 1
    assert checked >= 10


SPY = str(Path(__file__).parent / "bots" / "spy.py")


SPY_BLIND = str(Path(__file__).parent / "bots" / "spy_blind.py")


def test_the_spy_reports_a_hidden_card():
    """The detector of the next test works: a card planted past the hand is reported."""
    spy = load_strategy(SPY).functions[DECISION_FUNCTIONS.index("play")]
    deck = load_deck()
    obs = np.full(K.OBS_SIZE, -1, np.int64)
    obs[K.O_N_CARDS] = deck.n_cards
    obs[K.O_HAND_N] = 2
    obs[K.O_HAND:K.O_HAND + 2] = [5, 6]
    obs[K.O_N_PLAYED] = 0
    obs[K.O_N_OPTIONS] = 2
    obs[K.O_OPTIONS:K.O_OPTIONS + 2] = [5, 6]
    rng = np.array([1], np.uint64)
    assert spy(obs, np.zeros(1), rng) in (5, 6)
    obs[K.O_HAND + 4] = 40  # another player's card, past the count
    assert spy(obs, np.zeros(1), rng) == 7004


@pytest.mark.parametrize("lineup", [
    [SPY, "greedy", "counter", "random"],
    ["weights", SPY, "sandbagger", "buoy_savvy"],
    [SPY_BLIND, "greedy", "counter", "weights"],  # declares it does not observe
    ["greedy", "greedy", SPY_BLIND, "random"],
])
def test_no_hidden_card_anywhere_in_the_buffer_a_strategy_receives(lineup):
    try:
        df = play_games(300, 4, seed=9, strategies=lineup)
    except StrategyFailure as exc:  # the spy answers 7000 + slot when it sees a hidden card
        pytest.fail(f"a strategy saw a card it cannot know: {exc}")
    assert set(df.end_reason) <= {"completed", "overfished"}


# ---- the helpers the bots judge tricks with agree with the engine -------------------

def test_kit_highest_and_weakest_agree_with_the_engine_after_every_card():
    # play whole games card by card (random legal cards; blowfish and buoys favoured);
    # after every card compare the strategy kit's reading of the observation with the
    # engine's A6 / A7 judgement
    deck = load_deck()
    arrays = np.ascontiguousarray(deck.arrays)
    funcs, params, strats = build_lineup("random", 4)
    gen = np.random.default_rng(12)
    compared = fish = buoys = trumped = 0
    for seed in range(25):
        st, rng = new_state()
        ev = np.zeros((1, K.EV_FIELDS), np.int64)
        obs = new_obs()
        core.setup_game(st, rng, ev, arrays, 4, 0, np.ascontiguousarray(deck.hand_sizes[4]),
                        8, -1, np.uint64(seed), 0, 0, 0)
        core.run_game(st, rng, ev, arrays, obs, funcs, params, K.STOP_AT_TRUMP)
        while st[S_END] == K.END_RUNNING and st[S_PHASE] == PH_TRUMP:
            core.apply_trump_choice(st, ev, int(gen.choice([K.C_LIGHT, K.C_DARK])))
            while st[A_HAND_N] > 0 and st[S_END] == K.END_RUNNING:
                st[S_TRICK_NO] += 1
                for k in range(4):
                    p = (st[S_LEADER] + k) % 4
                    n = core.legal_options(st, p, new_obs(), True)
                    # the kit's wins_now for every option = the engine after playing it
                    mine = np.zeros(K.OBS_SIZE, np.int64)
                    core.present(st, mine, p, K.D_PLAY, n, -1)
                    opts = st[A_OPTIONS:A_OPTIONS + n].tolist()
                    odd = [c for c in opts if kit.is_blowfish(mine, c) or kit.is_buoy(mine, c)]
                    # blowfish and buoys are rare: play them half the time they are legal
                    card = int(gen.choice(odd if odd and gen.random() < 0.5 else opts))
                    expect_win = kit.wins_now(mine, card)
                    core.play_card(st, ev, p, card)
                    hi, wk = core.highest_and_weakest(st, st[S_PLAYS_N])
                    assert expect_win == (hi == st[S_PLAYS_N] - 1)
                    seen = np.zeros(K.OBS_SIZE, np.int64)
                    core.fill_obs(st, seen, p, K.D_PLAY, 0, -1)
                    assert kit.highest_with(seen, -1) == hi
                    assert kit.weakest_with(seen, -1) == wk
                    compared += 1
                    fish += kit.is_blowfish(seen, card)
                    buoys += kit.is_buoy(seen, card)
                    trumped += kit.is_trump(seen, card) and seen[K.O_LED] != K.SUIT_TRUMP
                core.finish_one_trick(st, rng, ev, obs, funcs, params)
            if st[S_END] != K.END_RUNNING:
                break
            core.end_round(st, rng, ev)
            if st[S_ROUND] >= st[S_N_ROUNDS]:
                break
            st[S_PHASE] = PH_ROUND_START
            core.run_game(st, rng, ev, arrays, obs, funcs, params, K.STOP_AT_TRUMP)
    assert compared > 5000 and fish > 40 and buoys > 40 and trumped > 200, \
        (compared, fish, buoys, trumped)


# ---- the original Fishing's decisions (the ruleset's engine is not there yet) -------

def _fishing_obs(hand, options, trick=()):
    deck = load_deck(ruleset="fishing")
    a = deck.arrays
    obs = np.zeros(K.OBS_SIZE, np.int64)
    obs[K.O_N_CARDS] = deck.n_cards
    for c in range(deck.n_cards):
        obs[K.O_CARD_KIND + c] = a[c, 0]
        obs[K.O_CARD_COLOUR + c] = a[c, 1]
        obs[K.O_CARD_VALUE + c] = a[c, 2]
        obs[K.O_CARD_EFFECT + c] = a[c, 3]
    obs[K.O_TRUMP] = K.C_GREEN
    ids = [deck.card(h) for h in hand]
    obs[K.O_HAND_N] = len(ids)
    obs[K.O_HAND:K.O_HAND + len(ids)] = ids
    opts = [o if isinstance(o, int) else deck.card(o) for o in options]
    obs[K.O_N_OPTIONS] = len(opts)
    obs[K.O_OPTIONS:K.O_OPTIONS + len(opts)] = opts
    return obs, deck


# skilled's Fishing decisions are fitted to a search's values (fishing2sim/train), not these rules
@pytest.mark.parametrize("bot", [b for b in BOTS if b != "skilled"])
def test_original_fishing_decisions(bot):
    s = load_strategy(bot)
    fn = dict(zip(DECISION_FUNCTIONS, s.functions))
    params = np.asarray(s.defaults or (0.0,), np.float64)
    rng = np.array([1], np.uint64)
    hand = ["blue 17", "blue 4", "red 15", "red 14", "red 2", "purple 18", "green 3"]
    # determine-colour: red holds two high cards (15, 14), blue and purple one each
    obs, deck = _fishing_obs(hand, [kit.BLUE, kit.YELLOW, kit.PURPLE, kit.RED, kit.GREEN])
    assert fn["determine_colour"](obs, params, rng) == kit.RED
    # pass-1-left: the worst card
    obs, deck = _fishing_obs(hand, hand)
    assert deck.name(fn["pass_1_left"](obs, params, rng)) == "red 2"
    # zero-catch: the best card, never a minus-3 buoy
    minus3 = next(c for c in range(deck.n_cards) if deck.arrays[c, 3] == K.E_MINUS_3)
    obs, deck = _fishing_obs(hand, ["blue 12", deck.name(minus3), "green 9", "yellow 16"])
    assert deck.name(fn["zero_catch"](obs, params, rng)) == "green 9"
