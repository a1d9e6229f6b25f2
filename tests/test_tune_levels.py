"""fishing2sim tune with tune.racing.play_levels: the raced trials and the untuned file
re-run at every level of play, checked against play_games; bad levels are one line."""
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

pytest.importorskip("optuna")

from fishing2sim.api import play_games  # noqa: E402
from fishing2sim.cli import main  # noqa: E402
from fishing2sim.config.grid import condition_seed  # noqa: E402
from fishing2sim.tune.objective import derive_seed  # noqa: E402
from fishing2sim.tune.racing import CONFIRM_SEED_OFFSET  # noqa: E402

TUNE = """\
    name: lv
    players: 4
    games: 1000
    chunk: 250
    seed: 21
    seats: skilled
    analyses: [overfishing, strategies]
    tune:
      space:
        deck.remove_from_tier.5: {{int: [0, 2]}}
      objective:
        targets: ["overfishing[players=4] <= 0.07"]
        cost: {{deck_changes: 0.01}}
      budget: {{trials: 3, games: 250}}
      racing:
        top: 2
        games: 500
        play_levels: {levels}
"""


def write(tmp_path: Path, levels: str) -> Path:
    p = tmp_path / "lv.yaml"
    p.write_text(textwrap.dedent(TUNE.format(levels=levels)))
    return p


def test_racing_replays_the_candidates_at_every_level(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = write(tmp_path, "[random, greedy, {level: skilled, games: 250}]")
    res = CliRunner().invoke(main, ["tune", str(p), "-w", "2", "--no-progress"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "reports" / "lv"
    df = pd.read_csv(out / "racing_levels.csv")
    race = pd.read_csv(out / "racing.csv")
    raced = [f"trial {int(t)}" for t in race["trial"].dropna().unique()]
    assert set(df["candidate"]) == set(raced) | {"baseline"}
    assert list(dict.fromkeys(df["level"])) == ["random", "greedy", "skilled"]
    assert set(df[df.level == "skilled"]["games"]) == {250}
    assert set(df[df.level != "skilled"]["games"]) == {500}
    fig = "overfishing[players=4]"
    # the baseline at each level: the file's own deck, the level's seats, the confirm seed
    seed = condition_seed(derive_seed(21, CONFIRM_SEED_OFFSET), 0)
    for lv, games in (("random", 500), ("greedy", 500), ("skilled", 250)):
        g = play_games(games, 4, seed=seed, strategies=[lv] * 4)
        share = float((g.end_reason == "overfished").mean())
        row = df[(df.candidate == "baseline") & (df.level == lv)].iloc[0]
        assert row[fig] == pytest.approx(share, rel=1e-8, abs=1e-10)
        assert row["targets"] == ("met" if share <= 0.07 else "missed")
    md = (out / "summary.md").read_text()
    assert "## At every level of play" in md
    assert "| candidate | level | value | targets |" in md


def test_an_unknown_bot_in_the_racing_panel_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = write(tmp_path, "[random, {level: smart, seats: gredy}]")
    res = CliRunner().invoke(main, ["tune", str(p), "-w", "1", "--no-progress"])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in res.output
    assert "tune.racing.play_levels[1].seats: unknown strategy 'gredy'" in lines[0]
    assert not (tmp_path / "reports").exists()


def test_the_levels_figures_do_not_depend_on_the_workers(tmp_path, monkeypatch):
    """With more workers a level's games are cut into smaller chunks (levels_race.
    level_chunk: every worker gets work, a search level too); the games are numbered, not
    chunked, so one worker and two give the same table to the last digit."""
    from fishing2sim.tune.levels_race import level_chunk

    assert level_chunk(10000, 1000, 1) == 1000
    assert level_chunk(10000, 1000, 2) == 125
    assert level_chunk(250, 40000, 2) == 250
    tables = []
    for w in ("1", "2"):
        d = tmp_path / f"w{w}"
        d.mkdir()
        monkeypatch.chdir(d)
        p = write(d, "[random, {level: skilled, games: 250}]")
        res = CliRunner().invoke(main, ["tune", str(p), "-w", w, "--no-progress"])
        assert res.exit_code == 0, res.output
        tables.append((d / "reports" / "lv" / "racing_levels.csv").read_bytes())
    assert tables[0] == tables[1]
