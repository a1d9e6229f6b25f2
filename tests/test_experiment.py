"""Experiment files (fishing2sim.config.experiment) and deck edits (fishing2sim.config.deck_edits.edit_deck)."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from fishing2sim.config.deck import DeckError, deck_for
from fishing2sim.config.deck_edits import edit_deck
from fishing2sim.engine.constants import F_TIER
from fishing2sim.config.experiment import ANALYSES, ExperimentError, condition_seed, load_experiment
from fishing2sim.config.file_schema import ExperimentFile
from fishing2sim.config.messages import KeyProblem
from fishing2sim.config.schema import check

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted((REPO / "experiments").glob("*.yaml"))


def write(tmp_path, text, name="t.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def err(tmp_path, text, overrides=None) -> str:
    p = write(tmp_path, text)
    with pytest.raises(ExperimentError) as e:
        load_experiment(p, overrides)
    msg = str(e.value)
    assert msg.startswith(f"{p}: "), msg
    assert "\n" not in msg
    return msg


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    # the default output folder "reports" is relative to the current folder
    monkeypatch.chdir(tmp_path)


# ---- shipped files --------------------------------------------------------------------------
def test_shipped_files_load():
    names = {p.stem for p in SHIPPED}
    assert {"example", "trump", "overfishing", "depletion", "strategies",
            "deck_balance"} <= names
    for p in SHIPPED:
        exp = load_experiment(p)
        assert exp.conditions and exp.name
        json.dumps(exp.resolved)  # serialisable
        for c in exp.conditions:
            assert c.players in c.deck.playable
    trump = load_experiment(REPO / "experiments" / "trump.yaml")
    assert trump.analyses == ("trump_value", "depletion", "overfishing", "profile")  # a panel
    assert trump.conditions[0].players == 4
    st = load_experiment(REPO / "experiments" / "strategies.yaml")
    assert st.conditions[0].rotate and st.conditions[0].lineup == (
        "greedy", "counter", "buoy_savvy", "random")


def test_nothing_left_behind(tmp_path):
    load_experiment(write(tmp_path, "games: 10\noutput: out/deeper\n"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.yaml"]


# ---- defaults ---------------------------------------------------------------------------------
def test_defaults(tmp_path):
    exp = load_experiment(write(tmp_path, "seed: 5\n"))
    assert exp.name == "t" and exp.ruleset == "fishing2"
    assert exp.games == 100_000 and exp.chunk == 10_000 and exp.seed == 5
    assert exp.analyses == ANALYSES and exp.workers == 0 and exp.scheduler is None
    assert exp.trump_max_round == 8
    assert exp.output_dir == tmp_path / "reports" / "t"
    assert len(exp.conditions) == 1
    c = exp.conditions[0]
    assert c.index == 0 and c.labels == {} and c.players == 4 and c.games == 100_000
    assert c.lineup == ("random",) * 4 and c.params == (None,) * 4
    assert c.rotate is False and c.first_leader == -1
    assert c.deck is deck_for("fishing2") and c.deck_sha256 == deck_for("fishing2").sha256
    assert c.seed == condition_seed(5, 0) and 0 <= c.seed < 2**63
    r = exp.resolved
    assert r["players"] == 4 and r["seats"] == "random" and r["first_leader"] == "random"
    assert r["deck"]["remove"] == [] and r["trump_value"] == {"max_round": 8}
    assert r["output"] == "reports" and r["sweep"] == {}


def test_overrides_and_hash(tmp_path):
    p = write(tmp_path, "games: 1000\nseed: 3\n")
    a = load_experiment(p)
    b = load_experiment(p, {"workers": 2, "scheduler": "tcp://h:8786", "output": "elsewhere",
                            "games": None})
    assert b.workers == 2 and b.scheduler == "tcp://h:8786" and b.games == 1000
    assert b.output_dir == tmp_path / "elsewhere" / "t"
    assert a.config_hash == b.config_hash  # execution settings do not change results
    c = load_experiment(p, {"games": 2000})
    assert c.games == 2000 and c.conditions[0].games == 2000
    assert c.config_hash != a.config_hash
    assert "cannot be set from the command line" in err(tmp_path, "games: 1\n", {"seed": 1})
    assert "games (from the command line): expected a whole number > 0, got -1" in \
        err(tmp_path, "games: 1\n", {"games": -1})


def test_seats_params_rotate(tmp_path):
    bot = tmp_path / "bots" / "params_bot.py"
    bot.parent.mkdir()
    bot.write_text("from fishing2sim.strategy.kit import give_weakest\n"
                   "NAME = 'params_bot'\nPARAMS = [1.0, 2.0]\nplay = give_weakest\n")
    exp = load_experiment(write(tmp_path, """
        players: 3
        games: 1000
        rotate: true
        first_leader: 2
        seats: [greedy, {strategy: bots/params_bot.py, params: [3, 4]}, {strategy: sandbagger}]
    """))
    c = exp.conditions[0]
    assert c.lineup == ("greedy", str(bot), "sandbagger")
    assert c.params == (None, (3.0, 4.0), None)
    assert c.rotate and c.games == 1002 and c.first_leader == 2  # whole blocks of 3


# ---- sweeps -----------------------------------------------------------------------------------
def test_decks_share_the_standard_decks_deals(tmp_path):
    """Conditions that differ only by their deck play the standard deck's condition's deals
    (an edit that changes nothing is the standard deck, wherever it is in the sweep); other
    seats play their own deals unless paired: true, which shares them across both."""
    body = """
        games: 100
        players: 4
        sweep:
          deck.remove_from_tier.5: [2, 0, 1]
          seats: [random, greedy]
    """
    exp = load_experiment(write(tmp_path, body))
    own = [condition_seed(exp.seed, i) for i in range(6)]
    # order: (2, random), (2, greedy), (0, random), (0, greedy), (1, random), (1, greedy)
    assert [c.seed for c in exp.conditions] == [own[2], own[3], own[2], own[3], own[2], own[3]]
    assert all(c.paired for c in exp.conditions)
    exp = load_experiment(write(tmp_path, body.rstrip(" ") + "        paired: true\n", "p.yaml"))
    assert {c.seed for c in exp.conditions} == {own[2]}


def test_sweep_players_x_tier(tmp_path):
    exp = load_experiment(write(tmp_path, """
        games: 100
        sweep:
          players: [3, 4, 5]
          deck.remove_from_tier.5: [0, 1, 2, 3]
    """))
    assert len(exp.conditions) == 12
    full = deck_for("fishing2")
    seeds = set()
    for i, c in enumerate(exp.conditions):
        p, k = (3, 4, 5)[i // 4], i % 4
        assert c.index == i
        assert list(c.labels.items()) == [("players", p), ("deck.remove_from_tier.5", k)]
        assert c.players == p and c.deck.n_cards == 99 - k
        assert int(np.sum(c.deck.arrays[:, F_TIER] == 5)) == 11 - k
        assert c.lineup == ("random",) * p
        seeds.add(c.seed)
        # a player count's decks play the same deals (the coupled deal): the standard
        # deck's condition keeps its own seed, a deck contrast is paired
        assert c.seed == condition_seed(exp.seed, i - k) and c.paired
    assert len(seeds) == 3
    # the highest-id cards of the tier go first
    assert "buoy exchange-1-card" not in exp.conditions[1].deck.names
    assert full.names[-1] == "buoy exchange-1-card"
    # the same deck edit is built once and shared
    assert exp.conditions[1].deck is exp.conditions[5].deck


def test_players_list_and_params_sweep(tmp_path):
    exp = load_experiment(write(tmp_path, """
        players: [5, 3]
        games: 10
        seats: {strategy: sandbagger, params: [0.5]}
        sweep:
          seats.params: [[0.1], [0.9]]
    """))
    assert [c.label for c in exp.conditions] == [
        "players=5, seats.params=[0.1]", "players=5, seats.params=[0.9]",
        "players=3, seats.params=[0.1]", "players=3, seats.params=[0.9]"]
    assert exp.conditions[1].params == ((0.9,),) * 5


# ---- errors -----------------------------------------------------------------------------------
def test_unknown_key(tmp_path):
    msg = err(tmp_path, "gmaes: 10\n")
    assert "gmaes: unknown key (did you mean 'games'?)" in msg
    assert "deck.remvoe: unknown key (did you mean 'remove'?)" in err(
        tmp_path, "deck: {remvoe: [x]}\n")
    assert "seats.strat: unknown key (did you mean 'strategy'?)" in err(
        tmp_path, "seats: {strat: greedy}\n")
    assert "sweep.deck.remove_from_teir.5: unknown deck key" in err(
        tmp_path, "sweep: {deck.remove_from_teir.5: [1]}\n")
    assert "sweep.seed: seed is experiment-wide" in err(tmp_path, "sweep: {seed: [1, 2]}\n")


def test_wrong_types(tmp_path):
    assert "games: expected a whole number > 0, got 'many'" in err(tmp_path, "games: many\n")
    assert "seed: expected a whole number 0..9223372036854775807, got -1" in \
        err(tmp_path, "seed: -1\n")
    assert "players: expected a player count 3, 4 or 5, got 6" in err(tmp_path, "players: 6\n")
    assert "rotate: expected true or false, got 'yes please'" in \
        err(tmp_path, "rotate: yes please\n")
    assert "first_leader: expected random or a seat number 0..3, got 4" in \
        err(tmp_path, "first_leader: 4\n")
    assert "analyses[1]: unknown analysis 'overfshing' (did you mean 'overfishing'?)" in \
        err(tmp_path, "analyses: [depletion, overfshing]\n")
    assert "seats: 3 entries for 4 players" in err(tmp_path, "seats: [random, random, random]\n")
    assert "trump_value.max_round: expected a round number 2..12, got 1" in \
        err(tmp_path, "trump_value: {max_round: 1}\n")


def test_the_validated_file_holds_the_grid_and_the_stopping_rules():
    """The schema alone checks the keys that need no deck, strategy or built grid, and the
    validated model holds what the loader reads: the sweep's axes, the precision targets."""
    with pytest.raises(KeyProblem) as e:
        check(ExperimentFile, {"name": "x", "sweep": {"players": [3, 4, 3]}})
    assert str(e.value) == "sweep.players[2]: value 3 given twice"
    with pytest.raises(KeyProblem) as e:
        check(ExperimentFile, {"name": "x", "conditions": [{"label": "a"}, {"label": "a ",
                                                                            "players": 3}]})
    assert str(e.value) == "conditions[1].label: label 'a' given twice (also conditions[0])"
    top = check(ExperimentFile, {
        "name": "x", "analyses": ["overfishing"], "precision": {"overfishing": "0.5pp"},
        "sweep": {"players": [{"value": 3, "label": "three", "baseline": True}, 4]}})
    (axis,) = top.sweep
    assert (axis.key, axis.values, axis.labels, axis.baseline) == \
        ("players", [3, 4], ["three", None], 0)
    assert top.precision == (("overfishing", 0.005, "0.5pp"),)


def test_unknown_strategy(tmp_path):
    msg = err(tmp_path, "seats: [random, greedy, gredy, random]\n")
    assert "seats[2]: unknown strategy 'gredy' (did you mean 'greedy'?); known: " in msg
    assert "random" in msg
    msg = err(tmp_path, "seats: [random, random, {strategy: gredy}, random]\n")
    assert "seats[2].strategy: unknown strategy 'gredy' (did you mean 'greedy'?)" in msg
    assert "seats: strategy file 'nope.py' not found" in err(tmp_path, "seats: nope.py\n")


def test_param_vector_length(tmp_path):
    msg = err(tmp_path, "seats: [random, random, {strategy: sandbagger, params: [1, 2]}, "
                        "random]\n")
    assert "seats[2].params: strategy 'sandbagger' takes 1 parameters (sandbag_fraction), got 2" \
        in msg
    assert "seats.params: expected a list of numbers, got 'x'" in err(
        tmp_path, "seats: {strategy: sandbagger, params: x}\n")


def test_yaml_syntax_error(tmp_path):
    msg = err(tmp_path, "games: 10\nseats: [random, random\nseed: 1\n")
    assert "line 3, column 5: YAML syntax error" in msg and "started on line 2" in msg
    assert "line 2, column 1: YAML syntax error: duplicate key 'games'" in \
        err(tmp_path, "games: 1\ngames: 2\n")


def test_empty_file(tmp_path):
    assert "the file is empty" in err(tmp_path, "")
    assert "the file is empty" in err(tmp_path, "# only a comment\n")
    assert "top level: expected a mapping" in err(tmp_path, "- games\n")


def test_deck_cannot_deal(tmp_path):
    msg = err(tmp_path, """
        players: [3, 4]
        deck: {remove: [blue 12]}
    """)
    assert "deck: the deck cannot deal 3 players: 29 starting cards for 3 x 10" in msg
    # an edit that only breaks an unused player count is fine
    exp = load_experiment(write(tmp_path, """
        players: 3
        deck: {hand_sizes: {3: [10, 10, 11, 11, 12, 12, 13, 13, 14]}}
    """))
    assert exp.conditions[0].deck.n_rounds == 9 and exp.conditions[0].deck.playable == (3,)
    msg = err(tmp_path, """
        players: 3
        sweep: {deck.remove: [[], [red 12], [blue 12]]}
    """)
    assert "the deck cannot deal 3 players" in msg and "deck.remove=[\"blue 12\"]" in msg


def test_unknown_card(tmp_path):
    msg = err(tmp_path, "deck: {remove: [blue 1, blowfish 27, blowfsh 26]}\n")
    assert f"{tmp_path / 't.yaml'}: deck.remove[2]: no card named 'blowfsh 26'" in msg
    assert "did you mean" in msg
    msg = err(tmp_path, "deck: {move: {blue 1: 3}}\n")
    assert "deck.move['blue 1']: 'blue 1' is a starting card" in msg


def test_unwritable_output(tmp_path):
    (tmp_path / "afile").write_text("x")
    msg = err(tmp_path, "output: afile/reports\n")
    assert "output: cannot create the report folder" in msg and "is a file" in msg
    msg = err(tmp_path, "name: t\n", {"output": "afile"})
    assert "output (from the command line): cannot create" in msg


# ---- edit_deck --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def f2():
    return deck_for("fishing2")


def test_edit_remove(f2):
    d = edit_deck(f2, remove=["blowfish 27", "Blue  12"])
    assert d.n_cards == 97 and "blowfish 27" not in d.names and "blue 12" not in d.names
    assert d is not f2 and d.sha256 != f2.sha256 and d.ruleset == f2.ruleset
    assert d.path == f2.path and list(d.table["id"]) == list(range(97))
    assert list(d.table["name"]) == list(d.names)
    assert not d.arrays.flags.writeable
    assert d.playable == ()  # blue 12 is a starting card for every player count
    with pytest.raises(DeckError, match=r"^deck.remove\[1\]: no card named 'blowfsh 27'.*"
                                        r"did you mean 'blowfish 27'"):
        edit_deck(f2, remove=["red 1", "blowfsh 27"])
    with pytest.raises(DeckError, match=r"remove\[1\]: card 'red 1' was already removed"):
        edit_deck(f2, remove=["red 1", "red 1"])
    # the same edits give the same hash
    assert edit_deck(f2, remove=["blowfish 27"]).sha256 == \
        edit_deck(f2, remove=["blowfish 27"]).sha256


def test_edit_remove_from_tier(f2):
    d = edit_deck(f2, remove_from_tier={5: 2, "4": 1})
    t5 = [n for n, t in zip(f2.names, f2.arrays[:, F_TIER]) if t == 5]
    t4 = [n for n, t in zip(f2.names, f2.arrays[:, F_TIER]) if t == 4]
    assert d.n_cards == 96
    assert set(f2.names) - set(d.names) == set(t5[-2:]) | {t4[-1]}
    assert d.playable == (3, 4, 5)
    with pytest.raises(DeckError, match=r"x: deck.remove_from_tier.5: cannot remove 12 cards: "
                                        r"tier 5 has 11"):
        edit_deck(f2, remove_from_tier={5: 12}, where="x: deck")
    with pytest.raises(DeckError, match="not an ocean tier"):
        edit_deck(f2, remove_from_tier={0: 1})


def test_edit_add(f2):
    d = edit_deck(f2, add=[{"name": "red 13", "kind": "colour", "colour": "red", "value": 13,
                            "effect": "none", "tier": 1, "min_players": 3},
                           {"name": "buoy extra", "kind": "buoy", "effect": "+3-points",
                            "tier": 5}])
    assert d.n_cards == 101 and d.names[-2:] == ("red 13", "buoy extra")
    assert d.card("red 13") == 99 and d.table.iloc[99]["value"] == 13
    assert d.arrays[100, F_TIER] == 5 and d.arrays[100, 2] == -1  # F_VALUE: a buoy has none
    with pytest.raises(DeckError, match=r"deck.add\[0\].colour: unknown colour 'pink'"):
        edit_deck(f2, add=[{"name": "pink 1", "kind": "colour", "colour": "pink", "value": 1,
                            "tier": 1}])
    with pytest.raises(DeckError, match=r"deck.add\[0\].name: the deck already has a card "
                                        r"named 'red 1'"):
        edit_deck(f2, add=[{"name": "Red 1", "kind": "colour", "colour": "red", "value": 1,
                            "tier": 1}])
    with pytest.raises(DeckError, match=r"add\[0\].valeu: unknown key \(did you mean 'value'"):
        edit_deck(f2, add=[{"name": "r", "kind": "colour", "valeu": 1, "tier": 1}])
    with pytest.raises(DeckError, match=r"add\[0\]: missing key 'tier'"):
        edit_deck(f2, add=[{"name": "r", "kind": "colour"}])
    # a new starting card makes the player counts whose deal it joins unplayable
    d = edit_deck(f2, add=[{"name": "red 0", "kind": "colour", "colour": "red", "value": 0,
                            "tier": 0, "min_players": 5}])
    assert d.playable == (3, 4)
    with pytest.raises(DeckError, match="cannot deal 5 players: 41 starting cards for 5 x 8"):
        d.check_players(5)
    assert d.check_players(4) == 4


def test_edit_move(f2):
    d = edit_deck(f2, move={"blowfish 21": 4})
    assert d.arrays[d.card("blowfish 21"), F_TIER] == 4 and d.n_cards == 99
    assert f2.arrays[f2.card("blowfish 21"), F_TIER] == 5  # the original is untouched
    with pytest.raises(DeckError, match="starting cards cannot move"):
        edit_deck(f2, move={"blue 5": 2})
    with pytest.raises(DeckError, match="cannot become a starting card"):
        edit_deck(f2, move={"red 5": 0})
    with pytest.raises(DeckError, match="was already removed by deck.remove"):
        edit_deck(f2, remove=["red 5"], move={"red 5": 2})


def test_edit_hand_sizes_and_rounds(f2):
    d = edit_deck(f2, rounds=6)
    assert d.n_rounds == 6 and d.hand_sizes.shape[1] == 6 and d.playable == (3, 4, 5)
    assert d.hand_sizes[4].tolist() == [9, 9, 10, 10, 11, 11]
    d = edit_deck(f2, hand_sizes={4: [9, 9, 9, 9, 9, 9, 9, 9, 9, 9]})
    assert d.n_rounds == 10 and d.playable == (4,)  # 3 and 5 have no 10-round row
    with pytest.raises(DeckError, match="cannot deal 3 players: no hand sizes"):
        d.check_players(3)
    d = edit_deck(f2, hand_sizes={"5": [8, 8, 9, 9]})
    assert d.n_rounds == 4 and d.hand_sizes[3].tolist() == [10, 10, 11, 11]
    assert d.hand_sizes[5].tolist() == [8, 8, 9, 9] and d.playable == (3, 4, 5)
    d = edit_deck(f2, hand_sizes={4: [10, 10]})
    assert d.playable == (3, 5)
    with pytest.raises(DeckError, match="more rounds need hand_sizes"):
        edit_deck(f2, rounds=9)
    with pytest.raises(DeckError, match="every list must have the same length"):
        edit_deck(f2, hand_sizes={3: [10, 10], 4: [9]})
    with pytest.raises(DeckError, match="7 rounds but hand_sizes gives 2"):
        edit_deck(f2, hand_sizes={3: [10, 10]}, rounds=7)
    with pytest.raises(DeckError, match=r"hand_sizes.4\[1\]: a hand size must be"):
        edit_deck(f2, hand_sizes={4: [9, 0]})
    with pytest.raises(DeckError, match="not a player count"):
        edit_deck(f2, hand_sizes={6: [9]})


# ---- the config hash: content, never paths --------------------------------------------------
BOT = '''"""copy: the first option."""
from fishing2sim.strategy.kit import decision, option

NAME = "copy"


@decision
def play(obs, params, rng):
    return option(obs, 0)
'''
HASHED = """\
    name: h
    games: 100
    seats: [./bots/{stem}.py, random, greedy, random]
    deck: {{file: ./my_deck.csv}}
"""


def _copy_of_the_study(folder: Path, bot: str = BOT, stem: str = "copy_bot") -> Path:
    """The study in ``folder``. Loading imports its bot file by its module name ``stem``
    (one file per module name in a process: each test its own stem)."""
    (folder / "bots").mkdir(parents=True)
    (folder / "bots" / f"{stem}.py").write_text(bot)
    (folder / "my_deck.csv").write_text(
        (REPO / "fishing2sim" / "data" / "decks" / "fishing2.csv").read_text())
    return write(folder, HASHED.format(stem=stem))


def _hash_in_a_fresh_process(path: Path) -> tuple[str, str]:
    """(config hash, the first seat's lineup entry) of ``path`` loaded by another process
    (which imports its own file of the bot's module name)."""
    r = subprocess.run([sys.executable, "-c", "import sys; from fishing2sim.config.experiment "
                        "import load_experiment as L; e = L(sys.argv[1]); "
                        "print(e.config_hash, e.conditions[0].lineup[0])", str(path)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    h, entry = r.stdout.split()
    return h, entry


def test_the_same_experiment_in_another_folder_has_the_same_hash(tmp_path):
    a = load_experiment(_copy_of_the_study(tmp_path / "one"))
    b_hash, b_entry = _hash_in_a_fresh_process(_copy_of_the_study(tmp_path / "deeper" / "two"))
    assert a.conditions[0].lineup[0] != b_entry  # two different files
    assert a.config_hash == b_hash


def test_the_hash_follows_the_strategy_files_content(tmp_path):
    p = _copy_of_the_study(tmp_path / "one", stem="copy_bot_edited")
    a = load_experiment(p)
    bot = tmp_path / "one" / "bots" / "copy_bot_edited.py"
    bot.write_text(BOT + "\n# an edit\n")
    assert load_experiment(p).config_hash != a.config_hash
    # and a copy with the edit elsewhere: the hash of the content, not of the file
    other = _copy_of_the_study(tmp_path / "two", BOT + "\n# an edit\n", "copy_bot_edited")
    assert _hash_in_a_fresh_process(other)[0] == load_experiment(p).config_hash


def test_the_hash_follows_which_seat_plays_which_file(tmp_path):
    p = _copy_of_the_study(tmp_path / "one", stem="copy_bot_seat")
    a = load_experiment(p)
    p.write_text(p.read_text().replace("[./bots/copy_bot_seat.py, random, greedy, random]",
                                       "[random, ./bots/copy_bot_seat.py, greedy, random]"))
    assert load_experiment(p).config_hash != a.config_hash
