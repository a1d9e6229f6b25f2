"""The friction points a designer hit: seats in `play`, a condition's game, the
first-run compile message, --open, ocean figures that agree with overfishing, survival,
per-strategy trump value, plots that read right, the module structure, docs that match."""
from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from conftest import write_experiment as write
from click.testing import CliRunner

from fishing2sim import cli
from fishing2sim.api import play_games
from fishing2sim.cli import main
from fishing2sim.config.experiment import PRECISION_FIGURES, TOP_KEYS, load_experiment
from fishing2sim.study import run

REPO = Path(__file__).resolve().parent.parent


# ---- fishing2sim play ------------------------------------------------------------------------
def test_play_shows_the_seats_in_text_and_json():
    args = ["play", "--strategy", "greedy", "--strategy", "random", "--strategy", "counter",
            "--strategy", "random"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[1] == \
        "Seats: seat 0 greedy, seat 1 random, seat 2 counter, seat 3 random"
    res = CliRunner().invoke(main, args + ["--json"])
    setup = json.loads(res.output.splitlines()[0])
    assert setup["event"] == "setup"
    assert setup["strategies"] == ["greedy", "random", "counter", "random"]


def test_play_a_condition_of_an_experiment(tmp_path):
    path = write(tmp_path, "cc", """
        players: [4, 5]
        games: 100
        seed: 3
        seats: [greedy, random, random, random]
        sweep:
          deck.remove:
            - {value: [], label: standard deck, baseline: true}
            - {value: [blue 26, yellow 26], label: without blue 26 and yellow 26}
    """.replace("seats: [greedy, random, random, random]", "seats: greedy"))
    exp = load_experiment(path)
    res = CliRunner().invoke(main, ["play", "--experiment", str(path), "--condition", "3",
                                    "--json", "--game", "2"])
    assert res.exit_code == 0, res.output
    events = [json.loads(x) for x in res.output.splitlines()]
    setup = events[0]
    assert setup["players"] == 5 and setup["seed"] == exp.conditions[3].seed
    assert setup["strategies"] == ["greedy"] * 5 and setup["condition"] == 3
    assert setup["condition_name"] == "5 players, without blue 26 and yellow 26"
    ocean = [e for e in events if e["event"] == "ocean"]
    assert len(ocean) == 57 - 0 or len(ocean) > 0
    names = {e["card"] for e in events if "card" in e}
    assert "blue 26" not in names and "yellow 26" not in names
    # the same game as the runner's game 2 of that condition
    df = play_games(3, 5, seed=exp.conditions[3].seed, strategies="greedy",
                    deck=exp.conditions[3].deck)
    end = [e for e in events if e["event"] == "game_end"][0]
    assert end["points"] == [int(df[f"points_{p}"].iloc[2]) for p in range(5)]
    text = CliRunner().invoke(main, ["play", "--experiment", str(path), "--condition", "1"])
    assert "Condition 1: 4 players, without blue 26 and yellow 26" in text.output
    # mistakes: one line, exit 2
    for args, msg in ((["--condition", "9"], "the experiment has 4 conditions (0..3)"),
                      (["--condition", "1", "--players", "3"], "leave them out"),
                      ([], "--experiment FILE and --condition N go together")):
        extra = ["--experiment", str(path)] if args else ["--experiment", str(path)]
        res = CliRunner().invoke(main, ["play", *extra, *args])
        assert res.exit_code == 2 and msg in res.output and "Traceback" not in res.output


# ---- the first run ---------------------------------------------------------------------------
def test_run_open_opens_the_page(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr(cli, "_open_page", lambda page: opened.append(page))
    path = write(tmp_path, "o", "games: 200\nanalyses: [overfishing]\n")
    res = CliRunner().invoke(main, ["run", str(path), "--workers", "1", "--no-progress",
                                    "--open"])
    assert res.exit_code == 0, res.output
    assert opened == [tmp_path / "reports" / "o" / "report.html"]
    assert opened[0].is_file()


# ---- figures that agree ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    root = tmp_path_factory.mktemp("mixed")
    path = write(root, "mixed", """
        players: 5
        games: 600
        chunk: 300
        seed: 23
        seats: [greedy, random, greedy, random, random]
        analyses: [depletion, overfishing, trump_value, strategies]
        trump_value: {max_round: 4}
    """)
    res = run(path, workers=1, progress=False)
    return load_experiment(path), res, root / "reports" / "mixed"


def test_ocean_over_all_games_and_survival_match_play_games(mixed):
    exp, res, out = mixed
    g = play_games(600, 5, seed=exp.conditions[0].seed,
                   strategies=["greedy", "random", "greedy", "random", "random"])
    dep = pd.read_csv(out / "depletion.csv")

    def est(metric, r):
        return dep[(dep.metric == metric) & (dep["round"] == r)].iloc[0]

    over = (g.end_reason == "overfished").to_numpy()
    for r in (6, 7, 8):
        assert est("ocean_after_draws_mean_all", r).estimate == pytest.approx(
            g[f"ocean_r{r}"].fillna(0).mean(), rel=1e-8)
        assert est("ocean_after_draws_mean", r).estimate == pytest.approx(
            g[f"ocean_r{r}"].mean(), rel=1e-8)
        assert est("round_reached_share", r).estimate == pytest.approx(
            (g.rounds_played >= r).mean(), rel=1e-8)
        end = np.array([g[f"ocean_end_r{min(int(p), r)}"].iloc[i]
                        for i, p in enumerate(g.rounds_played)])
        both = (end == 0) | (over & (g.end_round <= r).to_numpy())
        assert est("ocean_empty_or_overfished_share", r).estimate == pytest.approx(
            both.mean(), rel=1e-8)
    # over all games, every overfished game counts as empty by the end
    assert est("ocean_empty_or_overfished_share", 8).estimate >= over.mean()
    md = (out / "summary.md").read_text()
    assert "a game that ended by overfishing counts as an empty ocean" in md
    assert "still running (survival)" in md


def test_per_strategy_trump_value_adds_up(mixed):
    exp, res, out = mixed
    tv = pd.read_csv(out / "trump_value.csv")
    ts = pd.read_csv(out / "trump_by_strategy.csv")
    pooled = tv[tv["round"].isna() & (tv.metric == "policy_gain_points")].iloc[0]
    mine = ts[ts["round"].isna() & (ts.metric == "policy_gain_points")]
    assert sorted(mine.strategy) == ["greedy", "random"]
    assert mine.n.sum() == pooled.n
    assert (mine.estimate * mine.n).sum() / mine.n.sum() == pytest.approx(pooled.estimate,
                                                                         rel=1e-8)
    for r in range(2, 5):
        per = ts[(ts["round"] == r) & (ts.metric == "policy_gain_points")]
        whole = tv[(tv["round"] == r) & (tv.metric == "policy_gain_points")].iloc[0]
        assert per.n.sum() == whole.n
    # the CSV names halves: stakes_half_points is half of stakes_points, row by row
    full = tv[tv.metric == "stakes_points"].set_index("round", drop=False)
    half = tv[tv.metric == "stakes_half_points"].set_index("round", drop=False)
    assert np.allclose(half.estimate.to_numpy(), full.estimate.to_numpy() / 2)
    md = (out / "summary.md").read_text()
    assert "### Each strategy's own trump choices" in md
    assert "![Trump-choice value per strategy](trump_by_strategy.png)" in md


# ---- plots that read right --------------------------------------------------------------------
def test_category_plots_have_a_panel_per_player_count_and_no_lines(tmp_path, monkeypatch):
    from fishing2sim.report import write as report

    figs = {}

    def keep(fig, path):
        figs[path.name] = fig
        path.write_bytes(b"png")

    monkeypatch.setattr(report, "_save_figure", keep)
    monkeypatch.setattr(matplotlib.pyplot, "close", lambda fig=None: None)
    path = write(tmp_path, "p", """
        players: [3, 4]
        games: 300
        seed: 5
        seats: greedy
        sweep:
          deck.remove_from_tier.5:
            - {value: 0, label: standard deck, baseline: true}
            - {value: 3, label: three fewer tier-5 cards}
        analyses: [overfishing, strategies]
    """)
    run(path, workers=1, progress=False)
    ovf = figs["overfishing.png"]  # bars grouped deck x players: players on the x axis
    (a,) = ovf.get_axes()
    assert a.get_lines() == [] or all(len(l.get_xdata()) <= 2 for l in a.get_lines())
    assert [t.get_text() for t in a.get_xticklabels()] == ["3 players", "4 players"]
    assert [t.get_text() for t in a.get_legend().get_texts()] == [
        "standard deck", "three fewer tier-5 cards"]
    top = a.get_ylim()[1]
    assert top < 100  # scaled to the data, not 0-100%
    assert "win_shares.png" not in figs  # one strategy: the seats instead of win shares
    for f in figs.values():  # titles fit: no line longer than the figure allows
        for a in f.get_axes():
            for line in a.get_title().splitlines():
                assert len(line) <= 90


SIX_DECKS = """
    players: [3, 4]
    games: 200
    chunk: 200
    seed: 8
    seats: greedy
    sweep:
      deck:
        - {value: {}, label: standard deck, baseline: true}
        - {value: {remove: [blue 26, yellow 26]}, label: without blue 26 and yellow 26}
        - {value: {remove: [blue 26, yellow 26, green 16 (2)]}, label: without blue 26 yellow 26 and green 16}
        - {value: {remove_from_tier: {4: 3}}, label: three tier-4 cards removed from the ocean}
        - {value: {remove_from_tier: {5: 3}}, label: three tier-5 cards removed from the ocean}
        - {value: {remove_from_tier: {3: 2}}, label: two tier-3 cards removed from the ocean}
    analyses: [depletion, overfishing, strategies]
"""


def _inside(inner, outer, tol=1.0) -> bool:
    return (inner.x0 >= outer.x0 - tol and inner.x1 <= outer.x1 + tol
            and inner.y0 >= outer.y0 - tol and inner.y1 <= outer.y1 + tol)


def _check_layout(figs: dict) -> None:
    """Every legend inside the figure and off every panel; every title inside the figure."""
    for name, fig in figs.items():
        r = fig.canvas.get_renderer()
        box = fig.bbox
        axes = [a for a in fig.get_axes() if a.get_visible()]
        legends = [a.get_legend() for a in axes if a.get_legend() is not None]
        for leg in legends:  # outside every panel's data area
            lb = leg.get_window_extent(r)
            assert _inside(lb, box), (name, lb, box)
            for a in axes:
                assert not lb.overlaps(a.get_window_extent(r)), (name, lb)
        titles = [a.title for a in axes if a.title.get_text()]
        if fig._suptitle is not None:
            titles.append(fig._suptitle)
        for t in titles:  # wrapped to fit: nothing clipped at the figure's edge
            assert _inside(t.get_window_extent(r), box), (name, t.get_text())
        assert _inside(fig.get_tightbbox(r).transformed(fig.dpi_scale_trans), box), name


def test_plots_read_right_with_six_decks(tmp_path, monkeypatch):
    """6 decks x 2 player counts: every legend is outside every panel's data area, the
    overfishing bars are grouped by players (one bar per deck in each group), every title
    and legend lies inside the figure, and the final points are drawn (scores.png); the same
    for a tournament of four strategies with a long name (its win-share title wraps)."""
    from fishing2sim.report import write as report

    figs = {}
    save = report._save_figure

    def keep(fig, path):
        save(fig, path)  # the real layout: tight_layout and the titles fitted
        figs[path.name] = fig

    monkeypatch.setattr(report, "_save_figure", keep)
    monkeypatch.setattr(matplotlib.pyplot, "close", lambda fig=None: None)
    out = run(write(tmp_path, "six", SIX_DECKS), workers=1, progress=False)
    folder = tmp_path / "reports" / "six"
    assert {"depletion.png", "overfishing.png", "scores.png"} <= set(figs)
    _check_layout(figs)
    # a tournament (four strategies, a long name): its win-share title wraps inside the figure
    six = dict(figs)
    figs.clear()
    run(write(tmp_path, "a_tournament_of_four_strategies_in_four_seats_with_rotation", """
        players: 4
        games: 200
        seed: 4
        seats: [greedy, counter, buoy_savvy, random]
        rotate: true
        analyses: [strategies]
    """), workers=1, progress=False)
    tour, figs = dict(figs), six
    assert {"win_shares.png", "scores.png"} <= set(tour)
    _check_layout(tour)
    assert "\n" in tour["win_shares.png"]._suptitle.get_text()  # wrapped, not clipped
    sc = tour["scores.png"]
    assert len(sc.get_axes()[0].patches) == 4  # a step line per strategy
    assert [t.get_text() for t in sc.get_axes()[0].get_legend().get_texts()] == [
        "greedy", "counter", "buoy_savvy", "random"]
    dep = figs["depletion.png"]
    assert len([a.get_legend() for a in dep.get_axes() if a.get_legend()]) == 2  # one a row
    ovf = figs["overfishing.png"]
    (ax,) = ovf.get_axes()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["3 players", "4 players"]
    assert len(ax.get_legend().get_texts()) == 6
    xs = sorted(p.get_x() + p.get_width() / 2 for p in ax.patches)
    assert len(xs) == 12
    for g in (0, 1):  # a group of 6 bars around each player count, in deck order
        group = [x for x in xs if abs(x - g) < 0.5]
        assert len(group) == 6 and max(group) - min(group) < 0.9
    colours = [p.get_facecolor() for p in sorted(ax.patches, key=lambda p: p.get_x())]
    assert colours[:6] == colours[6:]  # the same colour for a deck at 3 and at 4 players
    sc = figs["scores.png"]
    assert [a.get_title() for a in sc.get_axes()] == ["3 players", "4 players"]
    assert all(len(a.patches) == 6 for a in sc.get_axes())  # a step line per condition
    scores = pd.read_csv(folder / "scores.csv")
    assert scores["count"].sum() == 200 * (6 * 3 + 6 * 4)
    md = (folder / "summary.md").read_text()
    assert "### Final points" in md and "![Final points per strategy](scores.png)" in md
    assert out is not None


# ---- structure and docs -----------------------------------------------------------------------
def test_docs_match_the_code():
    doc = (REPO / "docs" / "experiments.md").read_text()
    for key in TOP_KEYS:
        assert f"`{key}`" in doc, key
    for fig in PRECISION_FIGURES:
        assert f"`{fig}`" in doc, fig
    assert "used by a later version" not in doc  # the scheduler key is used
    trump = load_experiment(REPO / "experiments" / "trump.yaml")
    seats = sorted({c.lineup[0] for c in trump.conditions})
    row = next(line for line in doc.splitlines() if line.startswith("| `trump.yaml`"))
    for s in seats:
        assert s in row
    rules = (REPO / "docs" / "rules.md").read_text()
    for section in ("## A. Fishing 2", "## B. Fishing", "## C. Decisions", "## E. Figures"):
        assert section in rules
    here = Path(__file__).resolve()
    for p in [*(REPO / "docs").glob("*.md"), REPO / "README.md",
              *(REPO / "experiments").glob("*.yaml"), *(REPO / "fishing2sim").rglob("*.py"),
              *(REPO / "strategies").glob("*.py"), *(REPO / "tests").rglob("*.py")]:
        if p == here:
            continue
        text = p.read_text()
        assert "../shared" not in text and "RULES.md" not in text, p
    events = (REPO / "docs" / "events.md").read_text()
    assert "`strategies`" in events and "`condition`" in events


def test_a_slow_run_reports_its_rate_with_a_decimal():
    """A search run plays a few games a second: its closing line says 0.27 games/s, not 0."""
    from fishing2sim.cli import _rate

    assert [_rate(x) for x in (0.27, 3.456, 12345.6)] == ["0.27", "3.5", "12,346"]
