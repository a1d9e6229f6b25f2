"""`fishing2sim run FILE --plan` and `--quick` (fishing2sim/plan.py): the pilot's planned
half-widths against the run's own, the time split by level, nothing written by a plan, and
the refusals."""
from __future__ import annotations

import os

import pandas as pd
import pytest
from click.testing import CliRunner

from fishing2sim import plan as planning
from fishing2sim.cli import main
from fishing2sim.config.experiment import load_experiment
from fishing2sim.study import run
from conftest import write_experiment as write
from tests.cli_run import fishing2sim, message_lines

PANEL = """
    players: 4
    games: 4000
    chunk: 500
    seed: 11
    play_levels:
      levels:
        - random
        - {level: greedy, games: 2000}
    sweep:
      deck:
        - {value: {}, label: standard deck, baseline: true}
        - {value: {remove: [blue 26, yellow 26]}, label: without blue 26 and yellow 26}
    analyses: [overfishing, depletion]
"""


def test_the_planned_widths_are_the_runs_own_within_a_third(tmp_path):
    """A pilot of a quarter of every condition's games plans each headline half-width; the
    full run's own half-widths (the same seeds) are within 30% of the plan."""
    path = write(tmp_path, "panel", PANEL)
    exp = load_experiment(path)
    p = planning.make_plan(exp, 1, fraction=0.25)
    assert [c.pilot_games for c in p.conditions] == [c.games // 4 for c in exp.conditions]
    assert {c.level for c in p.conditions} == {"random", "greedy"}
    res = run(path, workers=1, progress=False, write=False)
    over = res.tables["overfishing"]
    over = over[(over.metric == "overfished_share") & over["round"].isna()]
    planned = [w for w in p.widths if w[0] == "overfishing share"]
    assert len(planned) == len(exp.conditions)
    for _, unit, level, c, hw in planned:
        row = over[over.condition == c].iloc[0]
        own = (row.ci_high - row.ci_low) / 2 * 100
        assert unit == "pp" and exp.conditions[c].level == level
        assert 0.7 <= hw / own <= 1.3, (c, hw, own)
    contrasts = res.tables["contrasts"]
    planned = [w for w in p.widths if w[0] == "difference from the baseline (overfishing)"]
    assert planned
    for _, unit, _, c, hw in planned:
        row = contrasts[(contrasts.condition == c) & (contrasts.figure == "overfishing")]
        own = (row.diff_ci_high.iloc[0] - row.diff_ci_low.iloc[0]) / 2 * 100
        assert 0.7 <= hw / own <= 1.3, (c, hw, own)


def test_the_plan_splits_the_time_by_level_and_names_the_largest(tmp_path):
    exp = load_experiment(write(tmp_path, "panel", PANEL))
    conds = [planning.ConditionPlan(c.index, c.level, c.name, c.games, 100,
                                    1.0 if c.level == "random" else 9.0)
             for c in exp.conditions]
    p = planning.Plan(exp, 2, conds, pilot_seconds=20.0)
    # a condition's CPU seconds: its pilot's seconds per game times its games
    assert p.cpu_seconds == pytest.approx(2 * 4000 / 100 * 1.0 + 2 * 2000 / 100 * 9.0)
    assert p.wall_seconds() == pytest.approx(p.cpu_seconds / min(2, os.cpu_count()))
    lines = planning.describe(p)
    greedy = next(ln for ln in lines if ln.strip().startswith("greedy"))
    assert "2,000" in greedy and "<- most of the time" in greedy and "82%" in greedy  # 360/440
    random_line = next(ln for ln in lines if ln.strip().startswith("random"))
    assert "4,000" in random_line and "most of the time" not in random_line
    # --quick: one factor on every level, for about a minute (no factor above 1)
    f = planning.quick_factor(p, seconds=p.wall_seconds() / 4)
    assert f == pytest.approx(0.25)
    assert planning.quick_factor(p, seconds=10 * p.wall_seconds()) == 1.0
    quick = planning.describe(p, 0.25)
    assert "every level's games x 0.25" in quick[0]
    assert "1,000" in next(ln for ln in quick if ln.strip().startswith("random"))


def test_plan_prints_and_writes_nothing(tmp_path):
    path = write(tmp_path, "panel", PANEL)
    res = CliRunner().invoke(main, ["run", str(path), "--plan", "--no-progress"])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "plan for panel.yaml: 4 conditions" in out
    assert "expected time: about" in out and "overfishing share, in pp: random ±" in out
    assert "deck effect at the level (overfishing), in pp: greedy ±" in out
    assert not (tmp_path / "reports" / "panel").exists()
    assert not any((tmp_path / "reports").glob("*")) if (tmp_path / "reports").exists() \
        else True


def test_quick_scales_every_level_by_one_factor(tmp_path, monkeypatch):
    """--quick with a run that would take longer than aimed at: every level's games times
    the same factor (here the aim is a tenth of the planned time)."""
    path = write(tmp_path, "panel", PANEL)
    real = planning.make_plan

    def plan_then_aim(exp, workers, **kw):
        p = real(exp, workers, **kw)
        monkeypatch.setattr(planning, "QUICK_SECONDS", p.wall_seconds() / 10)
        return p

    monkeypatch.setattr(planning, "make_plan", plan_then_aim)
    res = CliRunner().invoke(main, ["run", str(path), "--quick", "--no-progress",
                                    "--workers", "1"])
    assert res.exit_code == 0, res.output
    over = pd.read_csv(tmp_path / "reports" / "panel" / "overfishing.csv")
    games = over.groupby("level")["n"].max().to_dict()
    assert games["random"] == 400 and games["greedy"] == 200, games  # 4000 and 2000 x 0.1
    assert "every level's games x 0.1" in res.output


@pytest.mark.parametrize("args,words", [
    (["--plan", "--quick"], "give either --plan or --quick, not both"),
    (["--plan", "--resume"], "--plan plays a file anew: leave out --resume"),
])
def test_plan_refusals_are_one_line(tmp_path, args, words):
    path = write(tmp_path, "panel", PANEL)
    p = fishing2sim("run", path, *args, timeout=300)
    assert p.returncode == 2
    assert message_lines(p.stderr) == [f"Error: {words}"], p.stderr


def test_an_adaptive_files_plan_foresees_where_it_stops(tmp_path):
    """A precision file is planned by its own stopping rule: the games each condition is
    expected to stop at are the run's own (the same seeds), and --quick is refused (one
    line): such a file's length is its rule's."""
    path = write(tmp_path, "prec", """
        players: 4
        games: 2000
        max_games: 40000
        chunk: 500
        seed: 5
        seats: random
        precision: {overfishing: 1pp}
        analyses: [overfishing]
    """)
    exp = load_experiment(path)
    p = planning.make_plan(exp, 1)
    start, cap, short, expected = p.adaptive[0]
    assert (start, cap, short) == (2000, 40000, [])
    assert p.conditions[0].games == expected > 2000
    res = run(path, workers=1, progress=False, write=False)
    over = res.tables["overfishing"]
    played = int(over[(over.metric == "overfished_share") & over["round"].isna()].n.iloc[0])
    assert abs(expected - played) <= 500, (expected, played)
    lines = planning.describe(p)
    assert any(f"expected to stop at {expected:,}" in line for line in lines), lines
    q = fishing2sim("run", path, "--quick", timeout=300)
    assert q.returncode == 2
    assert "--quick needs a file of fixed games" in message_lines(q.stderr)[-1], q.stderr
