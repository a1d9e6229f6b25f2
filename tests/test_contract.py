"""The strategy contract, tried as an attacker would: every hole a strategy file could use to
cheat, crash the run or confuse its author has a test written as the attack.

Each bot is a file written into a temporary folder (its own module name, so the process's
module table keeps them apart) and run by path, as a user's bot is.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from numba import njit

from fishing2sim.strategy import kit as kit
from fishing2sim.api import StrategyFailure, describe_option, play_game, play_games
from fishing2sim.config.deck import load_deck
from fishing2sim.cli import main
from fishing2sim.engine import constants as K
from fishing2sim.config.experiment import load_experiment
from fishing2sim.study import run
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.strategy.files import strategy_digest

HEAD = "from fishing2sim.strategy.kit import *\nfrom fishing2sim.strategy.kit import (\n" \
       "    O_HAND, O_HAND_N, O_OPTIONS, O_N_OPTIONS, O_ROUND, O_TRICK_NO, O_TRUMP, O_SEAT,\n" \
       "    O_PLAYED, O_N_PLAYED, O_KIND, O_TRICK_N, C_LIGHT, D_PLAY)\nfrom fishing2sim.engine" \
       ".constants import OBS_SIZE, MAX_HAND, MAX_CARDS\n"


def bot(tmp_path: Path, body: str, name: str | None = None, head: str = HEAD) -> Path:
    """A strategy file with a module name of its own."""
    stem = name or f"bot_{uuid.uuid4().hex[:10]}"
    path = tmp_path / f"{stem}.py"
    path.write_text(head + textwrap.dedent(body))
    return path


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ---- 1. the engine checks every choice against its own options ----------------------------

REVOKE = """
NAME = "revoker"

@decision
def play(obs, params, rng):
    # a hand card that is not among the options (it would not follow suit): write it into
    # the buffer's options, as if it were legal, and play it
    n = obs[O_N_OPTIONS]
    for i in range(obs[O_HAND_N]):
        c = obs[O_HAND + i]
        legal = False
        for j in range(n):
            if obs[O_OPTIONS + j] == c:
                legal = True
        if not legal:
            obs[O_OPTIONS] = c
            return c
    return obs[O_OPTIONS]
"""


def test_a_bot_that_rewrites_its_options_cannot_revoke(tmp_path):
    path = bot(tmp_path, REVOKE)
    with pytest.raises(StrategyFailure) as e:
        play_game(4, seed=3, strategies=["random", "random", str(path), "random"])
    f = e.value
    assert (f.strategy, f.file, f.seat, f.decision) == ("revoker", str(path), 2, "play")
    assert f.choice not in f.options and len(f.options) >= 1
    deck = load_deck()
    msg = str(f)
    assert f"strategy 'revoker' ({path}), seat 2" in msg and "illegal play decision" in msg
    assert describe_option(f.choice, deck) in msg
    assert all(describe_option(o, deck) in msg for o in f.options)


def test_a_card_not_held_blames_the_seat_that_played_it(tmp_path):
    path = bot(tmp_path, """
        NAME = "thief"

        @decision
        def play(obs, params, rng):
            for c in range(100):  # a card that is in no part of its view: someone else's
                if not in_hand(obs, c) and not was_played(obs, c):
                    return c
            return obs[O_OPTIONS]
        """)
    with pytest.raises(StrategyFailure) as e:
        play_games(20, 4, seed=5, strategies=["greedy", str(path), "greedy", "greedy"])
    assert e.value.seat == 1 and e.value.strategy == "thief" and e.value.decision == "play"
    r = cli("play", "--seed", 5, "--strategy", "greedy", "--strategy", path,
            "--strategy", "greedy", "--strategy", "greedy")
    assert r.exit_code == 2
    assert r.output.count("\n") == 1 and "seat 1" in r.output and "thief" in r.output
    assert "Traceback" not in r.output


def test_an_illegal_choice_in_a_trump_replay_stops_the_run(tmp_path):
    """trump_batch replays each trump choice four times from copies of the state; an illegal
    choice in the light branches only (branches 1 and 3) must stop the run, not enter the
    trump sums as a sentinel."""
    path = bot(tmp_path, """
        NAME = "light_hater"

        @decision
        def trump_choice(obs, params, rng):
            return DARK

        @decision
        def play(obs, params, rng):
            if obs[O_ROUND] == 2 and obs[O_TRICK_NO] == 1 and obs[O_TRUMP] == C_LIGHT:
                return -7  # only where the light branch of a round-2 choice goes
            return random_option(obs, rng)
        """)
    exp_file = tmp_path / "t.yaml"
    exp_file.write_text(f"name: t\ngames: 40\nchunk: 40\nseats: {path}\n"
                        "analyses: [trump_value]\ntrump_value: {max_round: 2}\n")
    # the main games never meet light in round 2's first trick: they play through
    play_games(40, 4, seed=0, strategies=str(path))
    exp = load_experiment(exp_file, {"output": str(tmp_path / "out")})
    with pytest.raises(StrategyFailure) as e:
        run(exp, workers=0, progress=False)
    assert e.value.choice == -7 and e.value.decision == "play"
    assert not (tmp_path / "out" / "t" / "summary.md").exists()


def test_a_choice_from_another_option_space_is_illegal(tmp_path):
    """Options say what they are: the old shade code C_LIGHT (3) is card id 3, not LIGHT."""
    path = bot(tmp_path, """
        NAME = "old_codes"

        @decision
        def trump_choice(obs, params, rng):
            return C_LIGHT
        """)
    with pytest.raises(StrategyFailure) as e:
        play_game(4, seed=1, strategies=str(path))
    assert e.value.decision == "trump_choice"
    assert e.value.options == [kit.LIGHT, kit.DARK]
    assert "LIGHT, DARK" in str(e.value) and "returned blue" in str(e.value)


def test_option_spaces_do_not_overlap_and_the_kit_reads_them():
    cards = set(range(K.MAX_CARDS))
    face_down = {K.OPT_FACE_DOWN + i for i in range(K.MAX_TRICK)}
    shades = {kit.LIGHT, kit.DARK}
    suits = {kit.BLUE, kit.YELLOW, kit.PURPLE, kit.RED, kit.GREEN}
    spaces = [cards, face_down, shades, suits]
    assert sum(map(len, spaces)) == len(set().union(*spaces))
    assert max(set().union(*spaces)) < K.OPT_END

    @njit
    def read(o):
        return (kit.option_card(o), kit.option_trick_index(o), kit.option_shade(o),
                kit.option_suit(o))

    assert read(17) == (17, -1, -1, -1)
    assert read(K.OPT_FACE_DOWN + 3) == (-1, 3, -1, -1)
    assert read(kit.LIGHT) == (-1, -1, K.C_LIGHT, -1)
    assert read(kit.DARK) == (-1, -1, K.C_DARK, -1)
    assert read(kit.PURPLE) == (-1, -1, -1, K.C_PURPLE)
    assert kit.shade_option(K.C_DARK) == kit.DARK and kit.suit_option(K.C_RED) == kit.RED


SPACE_SPY = """
NAME = "space_spy"

@helper
def check(obs, rng):
    # every option must lie in the space of the decision asked (D_* in O_KIND); an option
    # outside it is reported by an illegal choice, which stops the game
    k = obs[O_KIND]
    for i in range(obs[O_N_OPTIONS]):
        o = obs[O_OPTIONS + i]
        card = 0 <= o < MAX_CARDS
        face_down = option_trick_index(o) >= 0
        if k == D_PLAY or k == D_EXCHANGE_GIVE or k == D_CATCH_1_CARD or k == D_PASS_1_LEFT:
            ok = card and in_hand(obs, o)
        elif k == D_TRUMP_CHOICE or k == D_DETERMINE_TRUMP:
            ok = o == LIGHT or o == DARK
        elif k == D_DETERMINE_COLOUR:
            ok = option_suit(o) >= 0
        else:
            ok = card or face_down
        if not ok:
            return -100 - k
    return random_option(obs, rng)

@decision
def play(obs, params, rng):
    return check(obs, rng)

trump_choice = determine_trump = catch_1_other = exchange_take = exchange_give = play
catch_1_card = zero_catch = pass_1_left = determine_colour = play
"""


@pytest.mark.parametrize("ruleset", ["fishing2", "fishing"])
def test_every_decision_gets_options_of_its_own_space(tmp_path, ruleset):
    """Over whole games, each decision kind's options lie in its own space."""
    path = bot(tmp_path, SPACE_SPY, head=HEAD + "from fishing2sim.strategy.kit import (\n"
               "    D_EXCHANGE_GIVE, D_CATCH_1_CARD, D_PASS_1_LEFT, D_TRUMP_CHOICE,\n"
               "    D_DETERMINE_TRUMP, D_DETERMINE_COLOUR)\n")
    play_games(200, 4, seed=9, ruleset=ruleset, strategies=str(path))


# ---- 2. no seat sees what its observation does not grant ----------------------------------

PEEK = """
NAME = "peeker"
OBSERVES = {observes}

@decision
def play(obs, params, rng):
    # any card in the hand slots past its own hand, in another seat's buffer or in the
    # options of an earlier decision is a leak: signal it with an illegal choice
    mine = obs[O_HAND_N] if {observes} else 0
    for i in range(mine, MAX_HAND):
        if obs[O_HAND + i] >= 0:
            return -1000 - i
    for i in range(obs[O_N_OPTIONS], MAX_HAND):
        if obs[O_OPTIONS + i] >= 0:
            return -2000 - i
    {past}
    return random_option(obs, rng)
"""
PAST = """for i in range(MAX_HAND):  # the next seat's buffer, read past the end of its own
        if obs[OBS_SIZE + O_HAND + i] >= 0 or obs[OBS_SIZE + O_OPTIONS + i] >= 0:
            return -3000 - i"""


@pytest.mark.parametrize("ruleset", ["fishing2", "fishing"])
def test_a_seat_that_declares_it_does_not_observe_sees_no_hand(tmp_path, ruleset):
    path = bot(tmp_path, PEEK.format(observes="False", past=""))
    # the other seats observe: with a shared buffer their hands would be in reach
    for seat in range(4):
        lineup = ["greedy"] * 4
        lineup[seat] = str(path)
        play_games(30, 4, seed=seat, ruleset=ruleset, strategies=lineup)


@pytest.mark.parametrize("ruleset", ["fishing2", "fishing"])
def test_a_read_past_the_buffer_finds_no_other_hand(tmp_path, ruleset):
    path = bot(tmp_path, PEEK.format(observes="True", past=PAST))
    for seat in range(4):
        lineup = ["weights"] * 4
        lineup[seat] = str(path)
        play_games(30, 4, seed=seat, ruleset=ruleset, strategies=lineup)


def test_strict_mode_stops_an_out_of_range_read(tmp_path):
    path = bot(tmp_path, PEEK.format(observes="True", past=PAST))
    with pytest.raises(StrategyFailure) as e:
        play_game(4, seed=1, strategies=[str(path), "greedy", "greedy", "greedy"],
                  strict=True)
    assert "IndexError" in str(e.value) and e.value.strategy == "peeker"
    assert e.value.seat == 0 and e.value.decision == "play"
    r = cli("play", "--seed", 1, "--audit", "--strategy", path)
    assert r.exit_code == 2 and "IndexError" in r.output and r.output.count("\n") == 1


def test_strict_mode_checks_the_strategys_own_helpers(tmp_path):
    (tmp_path / "peek_lib.py").write_text(textwrap.dedent("""
        from fishing2sim.strategy.kit import helper, O_HAND

        @helper
        def far(obs):
            return obs[O_HAND + 100000]
        """))
    path = bot(tmp_path, """
        import peek_lib
        from peek_lib import far

        NAME = "far_reader"

        @decision
        def play(obs, params, rng):
            if obs[O_TRICK_NO] == 3:
                x = far(obs) + peek_lib.far(obs)
                if x == 123456789:
                    return -1
            return random_option(obs, rng)
        """)
    with pytest.raises(StrategyFailure) as e:
        play_game(4, seed=1, strategies=str(path), strict=True)
    assert "IndexError" in str(e.value)


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_strict_mode_does_not_compile_the_game_kernels_again(tmp_path):
    # strict functions are first-class functions of the one decision signature, like the
    # decorator's: the kernels keep one compiled version for every lineup, strict or not
    # (a lineup typed by its functions would compile play_batch again in every process and
    # grow its cache index with pickled strategies)
    import numba

    from fishing2sim.engine.batch import play_batch
    from fishing2sim.strategy.lineup import build_lineup

    path = bot(tmp_path, PEEK.format(observes="True", past=0))
    plain = numba.typeof(build_lineup(["greedy", str(path), "weights"], 3)[0])
    for lineup in (["greedy"] * 3, ["greedy", str(path), "weights"],
                   ["counter", "buoy_savvy", "sandbagger"]):  # decisions calling decisions
        funcs = build_lineup(lineup, 3, strict=True)[0]
        assert funcs[0][0] is not load_strategy("greedy").functions[0]  # recompiled
        assert numba.typeof(funcs) == plain
    play_games(20, 3, seed=2, strategies="greedy")
    before = len(play_batch.signatures)
    play_games(20, 3, seed=2, strategies=["greedy", str(path), "weights"], strict=True)
    assert len(play_batch.signatures) == before


def test_kit_accessors_are_bounds_safe():
    obs = np.full(K.OBS_SIZE, -1, np.int64)
    obs[K.O_N_CARDS] = 99

    @njit
    def probe(obs):
        bad = 10**7
        return (kit.kind(obs, bad), kit.effect(obs, -bad), kit.colour(obs, bad),
                kit.value(obs, bad), kit.option(obs, bad), kit.hand_card(obs, -3),
                kit.trick_card(obs, bad), kit.trick_player(obs, bad), kit.points(obs, 7),
                kit.suit_under(obs, bad, K.C_LIGHT), kit.highest_with(obs, bad),
                kit.weakest_with(obs, bad), kit.power(obs, bad))

    assert probe(obs) == (-1, -1, -1, -1, -1, -1, -1, -1, -1, K.SUIT_NONE, -1, -1, 0)
    obs[K.O_HAND_N] = 10**9  # a count a strategy wrote over: loops stay in their region
    obs[K.O_N_OPTIONS] = 10**9
    obs[K.O_TRICK_N] = 10**9

    @njit
    def loops(obs):
        return (kit.hand_size(obs), kit.n_options(obs), kit.trick_n(obs),
                kit.in_hand(obs, 5), kit.shade_cards(obs, K.C_LIGHT))

    assert loops(obs) == (K.MAX_HAND, K.MAX_HAND, K.MAX_TRICK, False, 0)


# ---- 5. loading checks names and types; an exception names the strategy ------------------

@pytest.mark.parametrize("body,expect", [
    ("@decision\ndef trump_chioce(obs, params, rng):\n    return LIGHT\n",
     "'trump_chioce' is not a decision name: did you mean 'trump_choice'?"),
    ("@decision\ndef my_choice(obs, params, rng):\n    return LIGHT\n",
     "@decision function 'my_choice' is not a decision name"),
    ("def catch_1_cards(obs):\n    return 0\n",
     "did you mean 'catch_1_card'?"),
    # two letters swapped: a slip difflib's ratio alone misses (0.75 for 'paly')
    ("@decision\ndef paly(obs, params, rng):\n    return obs[O_OPTIONS]\n",
     "'paly' is not a decision name: did you mean 'play'?"),
    ("@decision\ndef play(obs, params, rng):\n    return 1.5\n",
     "returns float64, not an integer"),
    ("@decision\ndef play(obs, params, rng):\n    if obs[0] > 0:\n        return 1\n",
     "can return None"),
    # declarations a bot author can get wrong: one line each, not a Python traceback
    ("PARAMS = [10**400]\n", "PARAMS must be a list of numbers"),
    ("PARAMS = [1.0]\nPARAM_NAMES = 5\n", "PARAM_NAMES must be a list of names"),
    ("PARAMS = [1.0]\nPARAM_NAMES = [7]\n", "PARAM_NAMES must be a list of names"),
])
def test_loading_rejects_what_would_be_ignored_or_truncated(tmp_path, body, expect):
    path = bot(tmp_path, f"NAME = 'x'\n\n@decision\ndef determine_trump(obs, params, rng):\n"
                         f"    return DARK\n\n{body}")
    with pytest.raises(StrategyError) as e:
        load_strategy(str(path))
    assert expect in str(e.value) and str(path) in str(e.value)
    assert "\n" not in str(e.value)
    r = cli("play", "--strategy", path)
    assert r.exit_code == 2 and expect in r.output and r.output.count("\n") == 1


def test_a_misspelt_variable_is_named_with_its_file_line_and_a_did_you_mean(tmp_path):
    """numba's typing error names the missing name but not its line or function (its
    message is 'Failed in nopython mode pipeline'); the loader's line says all three."""
    body = ("NAME = 'x'\n\n@decision\ndef play(obs, params, rng):\n"
            "    lowest = obs[O_OPTIONS]\n    return lowst\n")
    path = bot(tmp_path, body)
    line = (HEAD + body).splitlines().index("    return lowst") + 1
    expect = f"name 'lowst' is not defined ({path.name}, line {line}, in play; " \
             "did you mean 'lowest'?)"
    with pytest.raises(StrategyError) as e:
        load_strategy(str(path))
    assert expect in str(e.value) and "\n" not in str(e.value)
    r = cli("play", "--strategy", path)
    assert r.exit_code == 2 and expect in r.output and r.output.count("\n") == 1


def test_a_helper_named_one_letter_away_from_a_decision_is_no_slip(tmp_path):
    """Only a swap of two letters (or difflib's 0.8) reads as a slip of a decision name: a
    helper ``plan`` (one letter from ``play``) loads."""
    path = bot(tmp_path, "NAME = 'x'\n\n@helper\ndef plan(obs):\n    return obs[O_OPTIONS]\n\n"
                         "@decision\ndef play(obs, params, rng):\n    return plan(obs)\n")
    assert load_strategy(str(path)).name == "x"


def test_a_shared_decision_assigned_to_a_name_is_fine(tmp_path):
    path = bot(tmp_path, """
        NAME = "sharer"

        @decision
        def cheapest(obs, params, rng):
            return weakest_option(obs)

        play = cheapest
        catch_1_card = give_weakest
        """)
    assert load_strategy(str(path)).defined == ("play", "catch_1_card")


def test_a_fallback_makes_the_decisions_a_file_leaves_undefined(tmp_path):
    path = bot(tmp_path, """
        NAME = "falls_back"

        @decision
        def play(obs, params, rng):
            return weakest_option(obs)

        catch_1_card = take_strongest  # the file's own choice wins over the fallback's
        FALLBACK = SHARED_DECISIONS
        """)
    s = load_strategy(str(path))
    assert set(s.defined) == set(kit.DECISION_FUNCTIONS)
    for i, name in enumerate(kit.DECISION_FUNCTIONS):
        want = {"play": None, "catch_1_card": kit.take_strongest}.get(
            name, kit.SHARED_DECISIONS.get(name))
        if want is not None:
            assert s.functions[i] is want, name
    # the shipped heuristic bots make exactly the shared decisions they do not define
    greedy = load_strategy("greedy")
    for i, name in enumerate(kit.DECISION_FUNCTIONS):
        if name != "play":
            assert greedy.functions[i] is kit.SHARED_DECISIONS[name], name
    # without FALLBACK the reference random strategy makes the rest (as before)
    plain = load_strategy(str(bot(tmp_path, "NAME = 'plain_fb'\nplay = give_weakest\n")))
    assert plain.defined == ("play",)


@pytest.mark.parametrize("fallback", ["{'catch_1_cards': give_weakest}", "[give_weakest]"])
def test_a_fallback_must_map_decision_names(tmp_path, fallback):
    path = bot(tmp_path, f"NAME = 'bad_fb'\nplay = give_weakest\nFALLBACK = {fallback}\n")
    with pytest.raises(StrategyError, match="FALLBACK must map decision names"):
        load_strategy(str(path))


def test_an_integer_of_another_width_is_accepted(tmp_path):
    path = bot(tmp_path, """
        import numpy as np
        NAME = "narrow"

        @decision
        def play(obs, params, rng):
            return np.int32(obs[O_OPTIONS])
        """)
    g = play_game(4, seed=2, strategies=str(path))
    assert g.end_reason in ("completed", "overfished")


RAISER = """
NAME = "raiser"

@decision
def play(obs, params, rng):
    if obs[O_TRICK_NO] == 4:
        raise ValueError("boom")
    return random_option(obs, rng)
"""


def test_an_exception_in_a_decision_names_strategy_seat_and_decision(tmp_path):
    path = bot(tmp_path, RAISER)
    with pytest.raises(StrategyFailure) as e:
        play_games(5, 4, seed=1, strategies=["random", "random", "random", str(path)])
    f = e.value
    assert (f.strategy, f.file, f.seat, f.decision) == ("raiser", str(path), 3, "play")
    assert str(f).endswith("decision play raised ValueError: boom")
    r = cli("play", "--strategy", "random", "--strategy", "random", "--strategy", "random",
            "--strategy", path)
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert f"Error: strategy 'raiser' ({path}), seat 3: decision play raised ValueError: boom" \
        in r.output


@pytest.mark.slow  # a search bot's rollout raising, through the CLI: 16 s; the illegal-choice case stays in the default run (the default run stays within 6 minutes)
def test_an_exception_in_a_search_bots_rollout_names_the_file_that_raised(tmp_path):
    """A search bot's own file has no code that runs in a search; its rollout strategy's
    does: an exception there names the search seat, its decision and the rollout file."""
    path = bot(tmp_path, RAISER)
    search = tmp_path / "searcher_raise.py"
    search.write_text(f'NAME = "searcher"\nSEARCH = "pimc"\nROLLOUT = "{path.name}"\n'
                      "PARAMS = [2, 1, 0, 0]\n")
    with pytest.raises(StrategyFailure) as e:
        play_game(4, seed=1, strategies=[str(search), "greedy", "greedy", "greedy"])
    f = e.value
    assert (f.strategy, f.file, f.seat) == ("searcher", str(search), 0)
    assert f"rollout strategy 'raiser' ({path}) raised ValueError: boom" in str(f)
    r = cli("play", "--seed", 1, "--strategy", search, "--strategy", "greedy",
            "--strategy", "greedy", "--strategy", "greedy")
    assert r.exit_code == 2 and r.output.count("\n") == 1 and str(path) in r.output


def test_an_exception_in_a_worker_process_is_one_line_exit_2(tmp_path):
    path = bot(tmp_path, RAISER)
    exp_file = tmp_path / "r.yaml"
    exp_file.write_text(f"name: r\ngames: 20\nchunk: 10\nseats: [random, {path}, random]\n"
                        "players: 3\n")
    r = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "run", str(exp_file),
                        "--workers", "2", "--no-progress", "--output", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert f"strategy 'raiser' ({path}), seat 1: decision play raised ValueError: boom" \
        in r.stderr
    assert not (tmp_path / "o" / "r").exists()


@pytest.mark.parametrize("method", ["pimc", "ismcts"])
def test_an_illegal_choice_in_a_search_bots_rollout_names_the_rollout_strategy(tmp_path,
                                                                               method):
    """A search bot whose ROLLOUT strategy writes its buffer and plays illegally: the run
    stops, and the failure names that rollout strategy (and its search bot), never an
    innocent bot of the real lineup, with the options of the decision it broke."""
    rollout = bot(tmp_path, REVOKE)
    search = tmp_path / f"searcher_{method}.py"
    search.write_text(f'NAME = "searcher"\nSEARCH = "{method}"\nROLLOUT = "{rollout.name}"\n'
                      "PARAMS = [4, 1, 0, 0]\n")
    with pytest.raises(StrategyFailure) as e:
        play_game(4, seed=3, strategies=[str(search), "greedy", "greedy", "greedy"])
    f = e.value
    assert f.strategy == "revoker" and f.file == str(rollout), str(f)
    assert "searcher" in str(f) and f.choice not in f.options
    assert "greedy" not in str(f) and f.seat == 0 and f.decision == "play"


# ---- 6. edits of imported modules reach the cache and the config hash; import path --------

LIB_V1 = """
from fishing2sim.strategy.kit import helper, option

@helper
def pick(obs):
    return option(obs, 0)
"""


def _points(path: Path, folder: Path) -> list:
    """The points of one game in a fresh process (numba's on-disk cache in play)."""
    r = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "play", "--seed", "3",
                        "--json", "--strategy", str(path)], capture_output=True, text=True,
                       timeout=600, cwd=folder)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])["points"]


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_an_edited_imported_module_reaches_the_cache_and_the_hash(tmp_path):
    lib = tmp_path / "picklib.py"
    lib.write_text(LIB_V1)
    path = bot(tmp_path, """
        from picklib import pick
        NAME = "importer"

        @decision
        def play(obs, params, rng):
            return pick(obs)
        """)
    exp_file = tmp_path / "e.yaml"
    exp_file.write_text(f"name: e\ngames: 10\nseats: {path}\n")
    d1 = strategy_digest(path)
    h1 = load_experiment(exp_file).config_hash
    first = _points(path, tmp_path)
    assert _points(path, tmp_path) == first  # from the cache: the same
    lib.write_text(LIB_V1.replace("option(obs, 0)", "option(obs, n_options(obs) - 1)")
                   .replace("import helper, option", "import helper, n_options, option"))
    assert strategy_digest(path) != d1
    assert load_experiment(exp_file).config_hash != h1
    assert _points(path, tmp_path) != first  # the edit is played, not the cached old code


def test_resume_refuses_when_an_imported_module_changed(tmp_path):
    lib = tmp_path / "picklib2.py"
    lib.write_text(LIB_V1)
    path = bot(tmp_path, "from picklib2 import pick\nNAME = 'imp2'\n\n@decision\n"
                         "def play(obs, params, rng):\n    return pick(obs)\n")
    exp_file = tmp_path / "e.yaml"
    exp_file.write_text(f"name: e\ngames: 40\nchunk: 10\nseats: {path}\n")
    out = tmp_path / "out"
    exp = load_experiment(exp_file, {"output": str(out)})
    ck = out / ".checkpoints" / "e"
    ck.mkdir(parents=True)
    (ck / "config_hash").write_text(exp.config_hash)  # as an interrupted run leaves it
    lib.write_text(LIB_V1 + "\n# edited\n")
    r = cli("run", exp_file, "--resume", "--output", out, "--no-progress")
    assert r.exit_code == 2 and "resume" in r.output.lower()


def test_a_module_beside_a_strategy_does_not_shadow_an_installed_one(tmp_path):
    (tmp_path / "matplotlib.py").write_text(
        "import pathlib\npathlib.Path(__file__).with_name('HIJACKED').write_text('x')\n"
        "raise ImportError('the fake matplotlib ran')\n")
    path = bot(tmp_path, "NAME = 'plain'\nplay = give_weakest\n")
    exp_file = tmp_path / "p.yaml"
    exp_file.write_text(f"name: p\ngames: 200\nseats: [{path}, random, random, random]\n"
                        "analyses: [strategies, overfishing]\n")
    r = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "run", str(exp_file),
                        "--workers", "0", "--no-progress", "--output", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "HIJACKED").exists()
    assert list((tmp_path / "o" / "p").glob("*.png"))  # the report's plots were drawn
    assert str(tmp_path) not in sys.path  # and in this process, after loading it
    load_strategy(str(path))
    assert str(tmp_path) not in sys.path


# ---- 7. the pure-Python debug mode ------------------------------------------------------

def test_debug_mode_plays_the_same_game_in_plain_python(tmp_path):
    path = bot(tmp_path, RAISER.replace("raiser", "debugged").replace(
        "obs[O_TRICK_NO] == 4", "obs[O_TRICK_NO] == 99"))
    args = [sys.executable, "-m", "fishing2sim.cli", "play", "--players", "3", "--seed", "7",
            "--json", "--strategy", "greedy", "--strategy", str(path), "--strategy", "random"]
    jitted = subprocess.run(args, capture_output=True, text=True, timeout=600)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    plain = subprocess.run(args, capture_output=True, text=True, timeout=900, env=env)
    assert jitted.returncode == 0 and plain.returncode == 0, plain.stderr[-2000:]
    assert plain.stdout == jitted.stdout  # every event of the game


def test_debug_mode_shows_the_strategys_traceback(tmp_path):
    path = bot(tmp_path, RAISER)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    r = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "play", "--players", "3",
                        "--strategy", str(path)], capture_output=True, text=True,
                       timeout=900, env=env)
    assert r.returncode == 2
    assert "Traceback" in r.stderr and f'File "{path}", line' in r.stderr
    assert 'raise ValueError("boom")' in r.stderr
    assert r.stderr.rstrip().splitlines()[-1].startswith("Error: strategy 'raiser'")


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["fishing2", "fishing"])
def test_every_shipped_bot_plays_the_same_games_in_strict_mode(ruleset):
    from fishing2sim.strategy.files import STRATEGIES_DIR

    bots = sorted(p.stem for p in Path(STRATEGIES_DIR).glob("*.py") if p.stem[0] != "_")
    assert len(bots) >= 8
    cols = [f"points_{p}" for p in range(4)]
    for b in bots:
        lineup = [b, "greedy", "random", b]
        strict = play_games(40, 4, seed=1, ruleset=ruleset, strategies=lineup, strict=True)
        plain = play_games(40, 4, seed=1, ruleset=ruleset, strategies=lineup)
        assert strict[cols].equals(plain[cols]), b
