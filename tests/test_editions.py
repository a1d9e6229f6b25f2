"""The two games side by side: ``ruleset`` as a sweep key, experiments/editions.yaml, and a
small editions run whose tables match the Python API game for game."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from fishing2sim.api import play_games
from fishing2sim.cli import main
from fishing2sim.config.experiment import ExperimentError, load_experiment

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def write(tmp_path, text, name="t.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_editions_file_compares_the_two_rulesets():
    exp = load_experiment(REPO / "experiments" / "editions.yaml")
    assert [(c.players, c.deck.ruleset) for c in exp.conditions] == [
        (p, rs) for p in (3, 4, 5) for rs in ("fishing2", "fishing")]
    assert [c.labels for c in exp.conditions][:2] == [
        {"players": 3, "ruleset": "fishing2"}, {"players": 3, "ruleset": "fishing"}]
    assert {c.deck.n_cards for c in exp.conditions} == {99, 100}
    assert set(exp.analyses) == {"overfishing", "depletion", "strategies"}


def test_ruleset_sweep_uses_each_rulesets_deck_and_edits(tmp_path):
    exp = load_experiment(write(tmp_path, """\
        games: 10
        sweep:
          ruleset: [fishing, fishing2]
          deck.remove_from_tier.5: [0, 1]
        """))
    got = [(c.deck.ruleset, c.deck.n_cards) for c in exp.conditions]
    assert got == [("fishing", 100), ("fishing", 99), ("fishing2", 99), ("fishing2", 98)]
    assert len({c.deck_sha256 for c in exp.conditions}) == 4
    # the ruleset is part of the configuration hash
    other = load_experiment(write(tmp_path, """\
        games: 10
        sweep:
          ruleset: [fishing2, fishing]
          deck.remove_from_tier.5: [0, 1]
        """, "u.yaml"))
    assert other.config_hash != exp.config_hash


def test_top_level_ruleset_fishing(tmp_path):
    exp = load_experiment(write(tmp_path, "ruleset: fishing\ngames: 10\nplayers: [3, 5]\n"))
    assert exp.ruleset == "fishing"
    assert [c.deck.ruleset for c in exp.conditions] == ["fishing", "fishing"]


@pytest.mark.parametrize("body, message", [
    ("sweep:\n  ruleset: [fishing2, fishing3]\n",
     "ruleset: unknown ruleset 'fishing3' (did you mean 'fishing'?); known: fishing2, fishing "
     "(in the sweep condition ruleset=fishing3)"),
    ("sweep:\n  ruleset.x: [fishing2]\n", "sweep.ruleset.x: ruleset has no keys inside it"),
    ("ruleset: [fishing]\n", "ruleset: unknown ruleset"),
    ("sweep:\n  ruleset: [fishing]\ndeck:\n  remove: ['blowfish 27']\n",
     "no card named 'blowfish 27'"),
])
def test_bad_ruleset_sweep_is_one_message(tmp_path, body, message):
    p = write(tmp_path, "games: 10\n" + body)
    with pytest.raises(ExperimentError) as e:
        load_experiment(p)
    assert message in str(e.value)
    assert str(e.value).startswith(f"{p}: ")


def test_a_small_editions_run_matches_the_api(tmp_path):
    path = write(tmp_path, f"""\
        name: ed
        output: {tmp_path / 'reports'}
        players: 4
        games: 600
        chunk: 300
        seed: 9
        sweep:
          ruleset: [fishing2, fishing]
        analyses: [overfishing, depletion, strategies]
        """)
    res = CliRunner().invoke(main, ["run", str(path), "--workers", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "reports" / "ed"
    exp = load_experiment(path)
    ovf = pd.read_csv(out / "overfishing.csv")
    strat = pd.read_csv(out / "strategies.csv")
    for c in exp.conditions:
        games = play_games(600, 4, seed=c.seed, ruleset=c.deck.ruleset)
        row = ovf[(ovf.condition == c.index) & (ovf.metric == "overfished_share")].iloc[0]
        assert row.estimate == pytest.approx((games.end_reason == "overfished").mean())
        row = ovf[(ovf.condition == c.index) & (ovf.metric == "mean_rounds_played")].iloc[0]
        assert row.estimate == pytest.approx(games.rounds_played.mean())
        pts = games[[f"points_{p}" for p in range(4)]].to_numpy()
        row = strat[(strat.condition == c.index) & (strat.metric == "points_spread_mean")]
        assert row.iloc[0].estimate == pytest.approx((pts.max(1) - pts.min(1)).mean())
    # the original Fishing never ends by a draw-1-card (there is none)
    d1c = ovf[(ovf.metric == "overfished_by_draw_1_card_share")].set_index("condition")
    assert d1c.loc[1, "estimate"] == 0
    md = (out / "summary.md").read_text()
    assert "ruleset=fishing" in md
    # the header names both games, not the file's default ruleset
    assert "- Rulesets: `fishing2`, `fishing` (per condition)" in md
    assert "- Ruleset: `fishing2`" not in md
