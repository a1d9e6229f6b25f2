"""One identity per bot (fishing2sim/strategy/identity.py): a strategy is known by the NAME it has
after import together with its file, resolved once when the experiment is loaded, and read
by the tables, the reports' cheater label, the ladder and the SPRT."""
from __future__ import annotations

import math
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fishing2sim.api import play_games
from fishing2sim.analysis.contrasts import elo_to_score
from fishing2sim.config.experiment import ExperimentError, load_experiment
from fishing2sim.study import run
from fishing2sim.strategy.files import STRATEGIES_DIR, strategy_digest
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.loading import load_strategy

FIRST_OPTION = """\
from fishing2sim.strategy.kit import decision, option
NAME = {name}


@decision
def play(obs, params, rng):
    return option(obs, 0)
"""


def stem(tag: str) -> str:
    """A module name of its own (strategy files are imported by their stem)."""
    return f"idn_{tag}_{uuid.uuid4().hex[:8]}"


def plain_bot(folder: Path, tag: str, name_expr: str) -> Path:
    """A bot that plays the first legal card; ``name_expr`` is its NAME as Python source."""
    path = folder / f"{stem(tag)}.py"
    path.write_text(FIRST_OPTION.format(name=name_expr))
    return path


def search_bot(folder: Path, tag: str, name: str, method: str, rollout: str) -> Path:
    path = folder / f"{stem(tag)}.py"
    path.write_text(f'NAME = "{name}"\nSEARCH = "{method}"\nROLLOUT = "{rollout}"\n'
                    "PARAMS = [2, 1, 0, 0]\n")
    return path


def experiment(folder: Path, body: str, name: str = "x") -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\noutput: {folder / 'reports'}\n" + body)
    return path


def cli_run(path: Path):
    """``python -m fishing2sim.cli run FILE`` in a fresh process: (exit code, stderr)."""
    r = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "run", str(path),
                        "--workers", "1", "--no-progress"], capture_output=True, text=True,
                       timeout=600)
    return r.returncode, r.stderr


def assert_one_line_error(path: Path, *parts: str) -> str:
    """The run is refused: exit 2, one line on stderr holding every part, no report."""
    code, err = cli_run(path)
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for p in parts:
        assert p in err, err
    assert not (path.parent / "reports").exists()
    return err


# ---- the record ---------------------------------------------------------------------------

def test_each_seat_carries_its_identity_resolved_at_load(tmp_path):
    """Condition.identities: the imported NAME (here computed, not a literal), the resolved
    file, the digest of the config hash, the kind from SEARCH and the rollout's identity."""
    mine = plain_bot(tmp_path, "rec", '"my" + "bot"')
    cheat = search_bot(tmp_path, "rec_c", "oracle", "cheater", "greedy")
    path = experiment(tmp_path, f"players: 4\ngames: 8\nseats: [{mine}, {cheat}, pimc, "
                      f"{STRATEGIES_DIR / 'greedy.py'}]\nanalyses: [strategies]\n")
    c = load_experiment(path).conditions[0]
    a, b, p, g = c.identities
    assert (a.name, a.file, a.kind, a.rollout) == ("mybot", str(mine.resolve()), "heuristic",
                                                   None)
    assert a.digest == strategy_digest(mine)
    assert (b.name, b.kind, b.sees_every_hand, b.rollout.name) == ("oracle", "cheater", True,
                                                                   "greedy")
    assert (p.name, p.kind, p.sees_every_hand, p.rollout.name) == ("pimc", "search", False,
                                                                   "weights")
    # the shipped greedy by its file is the shipped greedy
    assert g.name == "greedy" and g.file == str((STRATEGIES_DIR / "greedy.py").resolve())
    # what the reports say of a seat's parameters, without loading the file again
    pimc = load_strategy("pimc")
    assert (p.param_names, p.defaults) == (tuple(pimc.param_names),
                                           tuple(float(x) for x in pimc.defaults))
    assert len(p.param_names) > 0 and (a.param_names, a.defaults) == ((), ())
    from fishing2sim.run.chunks import strategy_names

    assert strategy_names(c) == ["mybot", "oracle", "pimc", "greedy"]


# ---- 2. two files with one NAME -----------------------------------------------------------

@pytest.mark.parametrize("case", ["user_greedy", "cheater_named_pimc", "across_conditions",
                                  "ladder"])
def test_two_files_with_one_name_are_one_error_naming_both(tmp_path, case):
    """A user's file whose NAME is "greedy" beside the shipped greedy, or a cheater named
    pimc beside the shipped pimc, would be counted as one row (the cheater's wins as the fair
    pimc's): one line naming both files, exit 2, before any game."""
    if case == "cheater_named_pimc":
        mine = search_bot(tmp_path, "twin", "pimc", "cheater", "greedy")
        shipped = STRATEGIES_DIR / "pimc.py"
        body = (f"players: 4\ngames: 8\nseats: [{{strategy: {mine}, params: [2, 1, 0, 0]}}, "
                "{strategy: pimc, params: [2, 1, 0, 0]}, greedy, greedy]\n"
                "analyses: [strategies]\n")
    else:
        mine = plain_bot(tmp_path, "twin", '"greedy"')
        shipped = STRATEGIES_DIR / "greedy.py"
        body = {
            "user_greedy": f"players: 4\ngames: 8\nseats: [{mine}, greedy, random, random]\n"
                           "analyses: [strategies]\n",
            # a NAME is one bot in the whole experiment: the contrasts match rows by NAME
            "across_conditions": f"players: 4\ngames: 8\nseats: random\nsweep:\n  seats:\n"
                                 f"    - {{value: greedy, baseline: true}}\n    - {mine}\n"
                                 "analyses: [strategies]\n",
            "ladder": f"games: 8\nladder: {{bots: [random, greedy, {mine}]}}\n",
        }[case]
    path = experiment(tmp_path, body)
    with pytest.raises(ExperimentError) as e:
        load_experiment(path)
    msg = str(e.value)
    assert "\n" not in msg and str(mine.resolve()) in msg and str(shipped.resolve()) in msg
    name = "pimc" if case == "cheater_named_pimc" else "greedy"
    assert f"two files with the NAME {name!r}" in msg, msg
    if case in ("user_greedy", "cheater_named_pimc"):  # and through the command line
        assert_one_line_error(path, str(mine.resolve()), str(shipped.resolve()))


# ---- 3. the ladder uses the imported NAME -------------------------------------------------

def test_the_ladder_rates_each_bot_under_its_imported_name(tmp_path):
    """A ladder bot whose NAME is computed ("my" + "bot") is rated as mybot, its pairs
    are its own (the two sides' shares add up to 1, not a merged 1.000), and the anchor may
    name a bot by its file."""
    mine = plain_bot(tmp_path, "lad", '"my" + "bot"')
    path = experiment(tmp_path, f"games: 16\nchunk: 8\nseed: 5\nladder: {{bots: [random, "
                      f"greedy, {mine}], anchor: {mine.name}}}\n", "lad")
    exp = load_experiment(path)
    assert exp.ladder["bots"] == ["random", "greedy", "mybot"]
    assert exp.ladder["anchor"] == "mybot"
    assert [c.name for c in exp.conditions] == ["random vs greedy", "random vs mybot",
                                                "greedy vs mybot"]
    run(path, workers=1, progress=False)
    out = tmp_path / "reports" / "lad"
    lad = pd.read_csv(out / "ladder.csv")
    rating = lad[lad.metric == "rating"].set_index("bot")
    assert sorted(rating.index) == ["greedy", "mybot", "random"]
    assert rating.loc["mybot", "estimate"] == 0  # the anchor, named by its file
    pairs = pd.read_csv(out / "ladder_pairs.csv")
    ws = pairs[pairs.metric == "win_share"].set_index(["bot", "opponent"])["estimate"]
    for a, b in (("random", "mybot"), ("greedy", "mybot"), ("random", "greedy")):
        assert ws[(a, b)] + ws[(b, a)] == pytest.approx(1.0)
    # the pair mybot vs random, played directly: mybot's seats are 0 and 1 of the lineup
    c = exp.conditions[1]
    blocks = c.games // 4
    per_unit = np.zeros(blocks)
    for r in range(4):
        idx = [(p - r) % 4 for p in range(4)]
        df = play_games(blocks, 4, seed=c.seed, strategies=[c.lineup[i] for i in idx])
        mine_seats = {p for p in range(4) if idx[p] >= 2}
        per_unit += [len(set(w) & mine_seats) / len(w) for w in df.winners]
    assert ws[("mybot", "random")] == pytest.approx(per_unit.sum() / c.games, abs=1e-9)


def test_a_ladder_bot_whose_computed_name_is_another_bots_is_refused(tmp_path):
    """NAME = "ran" + "dom" beside random scored 1.000 [1, 1] (both merged into one side):
    it is two files with one NAME."""
    mine = plain_bot(tmp_path, "lad2", '"ran" + "dom"')
    path = experiment(tmp_path, f"games: 8\nladder: {{bots: [random, greedy, {mine}]}}\n")
    assert_one_line_error(path, "ladder.bots[2]", "two files with the NAME 'random'",
                          str(mine.resolve()), str((STRATEGIES_DIR / "random.py").resolve()))


# ---- 4. the cheater label follows SEARCH --------------------------------------------------

def test_the_cheater_label_follows_search_whatever_the_name(tmp_path):
    """A cheater renamed "fairbot" (in a file of another name) is labelled as seeing every
    hand; a fair search bot NAMEd "cheater" is not."""
    cheat = search_bot(tmp_path, "sneaky", "fairbot", "cheater", "greedy")
    fair = search_bot(tmp_path, "honest", "cheater", "pimc", "greedy")
    path = experiment(tmp_path, f"players: 4\ngames: 8\nchunk: 4\nseed: 2\nseats: [{cheat}, "
                      f"{fair}, random, random]\nanalyses: [strategies]\n", "ch")
    run(path, workers=1, progress=False)
    out = tmp_path / "reports" / "ch"
    md = (out / "summary.md").read_text()
    assert "| fairbot (sees every hand) |" in md
    assert "`fairbot` sees every hand" in md and "not a fair player" in md
    assert "| cheater |" in md and "cheater (sees every hand)" not in md
    strat = pd.read_csv(out / "strategies.csv")
    assert set(strat.strategy.dropna()) == {"fairbot", "cheater", "random"}


# ---- 12. ROLLOUTs that lead back ----------------------------------------------------------

def test_rollouts_in_a_cycle_are_one_line_naming_the_cycle(tmp_path):
    a, b = stem("cyc_a"), stem("cyc_b")
    (tmp_path / f"{a}.py").write_text(f'NAME = "a"\nSEARCH = "pimc"\nROLLOUT = "{b}.py"\n'
                                      "PARAMS = [2, 1, 0, 0]\n")
    (tmp_path / f"{b}.py").write_text(f'NAME = "b"\nSEARCH = "pimc"\nROLLOUT = "{a}.py"\n'
                                      "PARAMS = [2, 1, 0, 0]\n")
    cycle = f"{a} → {b} → {a}"
    for _ in range(2):  # the same error again: nothing is left half-loaded
        with pytest.raises(StrategyError, match=f"ROLLOUTs form a cycle: {cycle}"):
            load_strategy(str(tmp_path / f"{a}.py"))
    path = experiment(tmp_path, f"players: 4\ngames: 4\nseats: [{a}.py, greedy, random, "
                      "random]\nanalyses: [strategies]\n")
    assert_one_line_error(path, ": seats[0]: ", cycle)


def test_a_rollout_that_is_the_bot_itself_is_one_line(tmp_path):
    me = stem("self")
    (tmp_path / f"{me}.py").write_text(f'NAME = "me"\nSEARCH = "pimc"\nROLLOUT = "{me}.py"\n'
                                       "PARAMS = [2, 1, 0, 0]\n")
    path = experiment(tmp_path, f"players: 4\ngames: 4\nseats: [{me}.py, greedy, random, "
                      "random]\nanalyses: [strategies]\n")
    assert_one_line_error(path, ": seats[0]: ", "is the search bot itself")


# ---- 20. the SPRT names a bot by its NAME or by its file ----------------------------------

def test_the_sprt_names_a_bot_by_its_name_or_by_its_file(tmp_path):
    """better: the bot's file stem, its .py path or its NAME: the same bot, the same run,
    and the LLR of an independent computation."""
    mine = plain_bot(tmp_path, "sprt", '"foo"')
    results = []
    for i, word in enumerate(["foo", mine.stem, mine.name]):
        path = experiment(tmp_path, f"players: 4\ngames: 200\nchunk: 100\nseed: 11\n"
                          f"seats: [{mine}, random, random, random]\nrotate: true\n"
                          f"sprt: {{better: {word}, than: random, elo0: 0, elo1: 200}}\n"
                          "max_games: 400\nanalyses: [strategies]\n", f"s{i}")
        exp = load_experiment(path)
        assert (exp.sprt["better"], exp.sprt["than"]) == ("foo", "random")
        res = run(path, workers=1, progress=False)
        results.append((res.meta["adaptive"][0]["sprt"], res.meta["stages"][-1][0]))
    assert results[1] == results[0] and results[2] == results[0]
    st, games = results[0]
    deals = games // 4  # rotation blocks: rotation r seats the bot at seat r
    a, b = np.zeros(deals), np.zeros(deals)
    for r in range(4):
        lineup = ["random"] * 4
        lineup[r] = str(mine)
        g = play_games(deals, 4, seed=exp.conditions[0].seed, strategies=lineup)
        pts = g[[f"points_{p}" for p in range(4)]].to_numpy()
        won = pts == pts.max(axis=1, keepdims=True)
        share = won / won.sum(axis=1, keepdims=True)
        a += share[:, r] / 4
        b += (share.sum(axis=1) - share[:, r]) / 3 / 4
    x = 0.5 + (a - b) / 2
    s0, s1 = elo_to_score(0), elo_to_score(200)
    llr = x.size * (s1 - s0) * (2 * x.mean() - s0 - s1) / (2 * x.var())
    assert st["llr"] == pytest.approx(llr, rel=1e-8) and not math.isnan(llr)


def test_an_sprt_name_of_two_bots_or_of_none_is_refused_up_front(tmp_path):
    x, y = stem("sx"), stem("sy")
    (tmp_path / f"{x}.py").write_text(FIRST_OPTION.format(name=f'"{y}"'))
    (tmp_path / f"{y}.py").write_text(FIRST_OPTION.format(name='"other"'))
    seats = f"players: 4\ngames: 8\nseats: [{x}.py, {y}.py, random, random]\n"
    path = experiment(tmp_path, seats + f"sprt: {{better: {y}, than: random}}\n")
    with pytest.raises(ExperimentError, match=rf"sprt.better: '{y}' names two bots of the "
                                              "lineup of condition 0"):
        load_experiment(path)
    path = experiment(tmp_path, seats + "sprt: {better: nobody, than: random}\n")
    assert_one_line_error(path, "sprt.better: strategy 'nobody' is not in the lineup of "
                          f"condition 0 ({y}, other, random)")
