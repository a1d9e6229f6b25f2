"""The first page a designer reads: the answer to the file's question first (the trump
choice's worth at the strongest level; a tournament's verdict), who played, then one line per question in
plain words with its CI (the trump answer with its points scale), one word for each figure
(pp for percentage points; "runs out" for empty or overfished), the round-1 leader's edge as
a headline figure with its contrast, and no table of win shares that are fair by
construction."""
import math

import numpy as np
import pandas as pd
import pytest
from conftest import write_experiment as write

from fishing2sim.api import play_games
from fishing2sim.config.experiment import load_experiment
from fishing2sim.study import run
from fishing2sim.analysis.stats import crit
from fishing2sim.report.words import fmt

E = ["estimate", "ci_low", "ci_high"]

DECKS = """
players: 4
games: 1200
chunk: 400
seed: 31
analyses: [overfishing, depletion, strategies]
sweep:
  deck:
    - {value: {}, label: standard deck, baseline: true}
    - {value: {remove: [blue 26, yellow 26]}, label: without blue 26 and yellow 26}
"""

TRUMP = """
players: 4
games: 600
chunk: 300
seed: 5
analyses: [trump_value]
sweep:
  seats:
    - {value: random, label: random seats, baseline: true}
    - {value: greedy, label: greedy seats}
"""


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    root = tmp_path_factory.mktemp("first_page")
    path = write(root, "decks", DECKS)
    run(path, workers=1, progress=False)
    return load_experiment(path), root / "reports" / "decks"


def test_the_summary_opens_with_who_played(decks):
    _, out = decks
    md = (out / "summary.md").read_text()
    lead = md.split("## In short\n\n", 1)[1]
    assert lead.startswith("Who played: four `random` players in every condition.")


def test_the_leader_edge_is_a_headline_figure_with_its_contrast(decks):
    exp, out = decks
    con = pd.read_csv(out / "contrasts.csv")
    row = con[con.figure == "leader_edge"].iloc[0]
    # a deck contrast plays the same deals (the coupled deal): paired, game by game
    assert row.method == "paired" and row.unit == "pp"
    # independently: each condition's round-1 leader's win share from play_games
    shares = []
    for cond in exp.conditions:
        g = play_games(1200, 4, seed=cond.seed, deck=cond.deck)
        pts = g[[f"points_{p}" for p in range(4)]].to_numpy()
        won = pts == pts.max(axis=1, keepdims=True)
        ws = np.where(won, 1 / won.sum(axis=1, keepdims=True), 0.0)
        shares.append(ws[np.arange(1200), g["first_leader"].to_numpy()])
    a, b = shares[1].mean() - 0.25, shares[0].mean() - 0.25
    assert row.estimate == pytest.approx(a, abs=1e-9)
    assert row.baseline_estimate == pytest.approx(b, abs=1e-9)
    assert row.difference == pytest.approx(a - b, abs=1e-9)
    d = shares[1] - shares[0]
    half = crit(1199) * d.std(ddof=1) / math.sqrt(1200)
    assert (row.diff_ci_high - row.diff_ci_low) / 2 == pytest.approx(half, rel=1e-6)
    st = pd.read_csv(out / "strategies.csv")
    e = st[(st.metric == "first_leader_edge") & (st.condition == 1)].iloc[0]
    assert e.estimate == pytest.approx(a, abs=1e-9)
    md = (out / "summary.md").read_text()
    assert "the round-1 leader's edge (its win share above the fair share)" in md


def test_one_word_per_figure_and_pp_for_percentage_points(decks):
    _, out = decks
    md = (out / "summary.md").read_text()
    lead = md.split("## What was run")[0]
    assert "percentage points" not in lead
    assert " pp (95% CI" in lead or " pp either way" in lead
    # the contrast of ocean_empty is empty or overfished, and says so; "empty ocean" alone
    # names only the depletion table's ocean_empty_share
    assert "the share of games whose ocean runs out (empty at the end, or overfished)" in lead
    assert "end with an empty ocean" not in md


def test_no_win_share_table_when_one_strategy_sits_in_every_seat(decks):
    _, out = decks
    md = (out / "summary.md").read_text()
    section = md.split("## Strategies", 1)[1].split("\n## ", 1)[0]
    assert "Every seat plays the same strategy (`random`)" in section
    assert "| strategy | n | win share |" not in section
    assert "| round-1 leader's edge | round-1 leader wins | fair share | seats equal? (p) |" \
        in section
    assert not (out / "win_shares.png").exists()
    assert "wins most often" not in md


def test_a_mixed_lineup_keeps_its_win_shares_and_gets_the_seats(tmp_path):
    path = write(tmp_path, "mixed", "players: 4\ngames: 400\nchunk: 200\nseed: 3\n"
                 "seats: [greedy, random, random, random]\nanalyses: [strategies]\n")
    run(path, workers=1, progress=False)
    out = tmp_path / "reports" / "mixed"
    md = (out / "summary.md").read_text()
    assert "`greedy` wins most often" in md
    assert "### Seats and the round-1 leader" in md
    assert (out / "win_shares.png").is_file()
    # the verdict first (who wins more than the fair share, with CIs), then who played
    ws = pd.read_csv(out / "strategies.csv")
    ws = ws[(ws.metric == "win_share") & ws.seat.isna()].set_index("strategy")
    g, r = ws.loc["greedy", E], ws.loc["random", E]
    assert g.ci_low > 0.25 > r.ci_high
    lead = md.split("## In short\n\n", 1)[1]
    assert lead.startswith(
        "**Who wins more than the fair share?** Win shares against the fair share of 25.0% "
        f"(4 players) — above it: `greedy` {fmt(*g, pct=True, table=True)}; below it: "
        f"`random` {fmt(*r, pct=True, table=True)} (95% CIs in brackets; tied winners share "
        "the win).\n\nWho played: `greedy`, `random` ×3 in every condition.")


def test_the_trump_answer_comes_first_with_its_points_scale(tmp_path):
    path = write(tmp_path, "tv", TRUMP)
    run(path, workers=1, progress=False)
    out = tmp_path / "reports" / "tv"
    md = (out / "summary.md").read_text()
    lead = md.split("## In short\n\n", 1)[1].split("## What was run")[0]
    assert lead.startswith("**How much is the trump choice worth?** Among random seats: four "
                           "`random` players (600 games), a perfect trump chooser would gain")
    tv = pd.read_csv(out / "trump_value.csv")
    pooled = tv[tv["round"].isna() & (tv.condition == 1)].set_index("metric")
    line = next(x for x in lead.split("\n\n")
                if x.startswith("Among greedy seats: four `greedy` players (600 games)"))
    low, high = pooled.loc["stakes_half_low_points"], pooled.loc["stakes_half_points"]
    assert (f"a perfect trump chooser would gain between {fmt(*low[E], table=True)} and "
            f"{fmt(*high[E], table=True)} points per choice over a coin flip") in line
    win = pooled.loc["stakes_half_win", E] * 100
    assert f"and {fmt(*win, table=True)} percentage points of its chance to win" in line
    score = pooled.loc["mean_final_points", "estimate"]
    margin = pooled.loc["mean_winning_margin", "estimate"]
    choices = pooled.loc["policy_gain_points", "n"] / 600 / 4
    assert (f"a player scores {score:.0f} points a game on average, the winner leads the "
            f"runner-up by {margin:.1f} points, and each player makes about {choices:.1f} "
            "trump choices a game") in line
    # the scale is right: the mean of every seat's points, the lead of the winner
    cond = load_experiment(path).conditions[1]
    g = play_games(600, 4, seed=cond.seed, strategies=list(cond.lineup))
    pts = np.sort(g[[f"points_{p}" for p in range(4)]].to_numpy(), axis=1)
    assert score == pytest.approx(pts.mean())
    assert margin == pytest.approx((pts[:, -1] - pts[:, -2]).mean())
    # who played comes after the answer
    answer = lead.split("Who played:")[0]
    assert "Among greedy seats" in answer
    for jargon in ("half stakes", "root mean square", "policy gain", "cross-fitted",
                   "ceiling", "95% CI "):  # one CI style: the brackets
        assert jargon not in answer


def test_a_panel_answers_the_trump_question_at_its_strongest_level_first(tmp_path):
    """With levels of play the answer is the strongest level's (by the ladder's ratings:
    greedy above random), then how the range changes with the level, then the table of every
    level; the trump section explains its words plainly, once."""
    path = write(tmp_path, "panel", "players: 4\ngames: 600\nchunk: 300\nseed: 5\n"
                 "play_levels: [random, greedy]\nanalyses: [trump_value]\n")
    run(path, workers=1, progress=False)
    out = tmp_path / "reports" / "panel"
    md = (out / "summary.md").read_text()
    lead = md.split("## In short\n\n", 1)[1].split("## What was run")[0]
    assert lead.startswith("**How much is the trump choice worth?** Among greedy players "
                           "(four `greedy` players, 600 games), a perfect trump chooser")
    tv = pd.read_csv(out / "trump_value.csv")
    pooled = tv[tv["round"].isna()].set_index(["level", "metric"])
    g_low, g_high = pooled.loc[("greedy", "stakes_half_low_points")], \
        pooled.loc[("greedy", "stakes_half_points")]
    r_low, r_high = pooled.loc[("random", "stakes_half_low_points")], \
        pooled.loc[("random", "stakes_half_points")]
    # both ends of random's range lie below greedy's (their CIs clear): "less"
    assert r_low.ci_high < g_low.ci_low and r_high.ci_high < g_high.ci_low
    est = lambda r: fmt(*r[E], table=True).split(" [")[0]  # noqa: E731
    assert ("How it changes with the level of play — what a perfect chooser would gain, "
            "against the greedy players' range: among random players less "
            f"({est(r_low)} to {est(r_high)} points).") in lead
    table = [x for x in lead.splitlines() if x.startswith("| random |")
             or x.startswith("| greedy |")]
    assert [x.split(" | ")[0] for x in table] == ["| random", "| greedy"]
    assert f"| {fmt(*g_low[E], table=True)} to {fmt(*g_high[E], table=True)} |" in table[1]
    section = md.split("## Trump-choice value", 1)[1].split("\n## ", 1)[0]
    for gone in ("Rows with an empty round", "cross-fitted", "root mean square", "ceiling"):
        assert gone not in section
    assert "half the typical points gap between the two shades" in section
    # round 2: greedy holds no green card and keeps to light, said in words, not 100.000%
    assert "| greedy | 2 |" in section and "100.0" not in section
    row2 = next(x for x in section.splitlines() if x.startswith("| greedy | 2 |"))
    assert row2.endswith("| all light |")
    assert "In round 2 no hand holds a green card with the standard deck" in section


def test_no_measurable_effect_says_how_many_games_would_tell(tmp_path):
    from fishing2sim.report.contrasts import games_to_tell

    class Ctx:
        class exp:
            conditions = [type("C", (), {"games": 2000})()] * 2

    r = {"difference": 0.01, "diff_ci_low": -0.02, "diff_ci_high": 0.04, "condition": 1}
    # 80% power: the standard error must shrink to 0.01 / (1.96 + 0.84), from 0.03 / 1.96:
    # 9 x ((1.96 + 0.84) / 1.96)^2 = 18.4 times the games, 36,776, two figures rounded up
    assert games_to_tell(Ctx, r) == ("; about 37,000 games per condition would tell a "
                                     "difference of this size from none with 80% power (this "
                                     "run: 2,000)")
    r0 = dict(r, difference=0.0)
    assert games_to_tell(Ctx, r0) == "; the two conditions came out the same"


def test_who_played_names_the_parameters_that_differ_from_a_bots_defaults(tmp_path):
    """Two levels of one bot at two budgets must not read as the same players: "Who
    played" and "What was run" name each seat's parameters where they differ from its
    strategy's defaults (an explicit vector equal to the defaults reads as the bot alone;
    more than three changes are counted, not listed)."""
    from fishing2sim.config.experiment import load_experiment_data
    from fishing2sim.report.common import seat_labels
    from fishing2sim.report.panel import who_played

    tuned = [0.5, 3.0, -2.0, -0.5, -1.0, -1.0, 0.0, 0.3, 1.0, 0.3, 2.0, 0.0, 1.0, 0.0, -1.0,
             -1.0, 10.0, 0.0, 0.0, 0.5, 0.0]  # weights' defaults
    many = list(tuned)
    many[:4] = [1.0, 2.0, -1.0, 0.5]
    exp = load_experiment_data({
        "name": "budgets", "players": 4, "games": 100, "chunk": 100, "seed": 3,
        "output": str(tmp_path),
        "play_levels": {"levels": [
            {"level": "round", "seats": {"strategy": "pimc", "params": [24, 1, 0, 0]}},
            {"level": "learned", "seats": {"strategy": "pimc", "params": [48, 1, 2, 0]}},
            {"level": "mixed", "seats": [{"strategy": "weights", "params": tuned},
                                         {"strategy": "weights", "params": many},
                                         "greedy", "greedy"]},
        ]}}, "budgets")
    text = who_played(exp)
    assert "round (four `pimc` players, 100 games per condition)" in text
    assert "learned (four `pimc` players with worlds 48, horizon 2, 100 games" in text
    assert ("mixed (`weights`, `weights` (4 of its 21 parameters changed), `greedy`, "
            "`greedy`, 100 games") in text
    by = {c.level: c for c in exp.conditions}
    assert seat_labels(by["learned"]) == ["pimc (worlds 48, horizon 2)"] * 4
    assert seat_labels(by["round"]) == ["pimc"] * 4
    # a plain run: the opening sentence and the lineup line of "What was run"
    path = tmp_path / "one.yaml"
    path.write_text(f"name: one\noutput: {tmp_path / 'reports'}\n"
                    "players: 4\ngames: 200\nchunk: 100\nseed: 5\nanalyses: [overfishing]\n"
                    "seats: {strategy: weights, params: [0.5, 5.0, -2.0, -0.5, -1.0, -1.0, "
                    "0.0, 0.3, 1.0, 0.3, 2.0, 0.0, 1.0, 0.0, -1.0, -1.0, 10.0, 0.0, 0.0, 0.5, "
                    "0.0]}\n")
    run(path, workers=1, progress=False)
    md = (tmp_path / "reports" / "one" / "summary.md").read_text()
    assert md.split("## In short\n\n", 1)[1].startswith(
        "Who played: four `weights` players with win 5 in every condition.")
    assert "- Lineup (seat 0, 1, ...): " + ", ".join(["weights (win 5)"] * 4) in md


def test_a_name_holding_a_table_bar_stays_in_its_own_cell(tmp_path):
    """A bot NAME or a parameter name may hold " | " (or a line break): summary.md's table
    rows keep the header's number of cells (the bar escaped as GitHub reads it), and the
    page rebuilt from summary.md (``fishing2sim report DIR``) shows the name whole, in one
    cell."""
    import html as _h
    import re

    from fishing2sim.report.document import md_cell, md_table, table_cells
    from fishing2sim.report.folder import render_html

    # the writer and the reader agree, whatever the cell holds
    cells = ["a | b", "x\\", "p\\|q", "", "two\nlines", "|edge|"]
    line = md_table(["h"] * len(cells), [cells]).split("\n")[2]
    assert table_cells(line) == [c.replace("\n", " ") for c in cells]
    assert md_cell("a | b") == "a \\| b"

    bot = tmp_path / "bar_bot.py"
    bot.write_text(
        "from fishing2sim.strategy.reference import choose_uniformly as u\n"
        "NAME = 'odd | name'\nOBSERVES = False\nPARAMS = [1.0]\n"
        "PARAM_NAMES = ['gain | loss']\n"
        "play = trump_choice = determine_trump = catch_1_other = exchange_take = u\n"
        "exchange_give = catch_1_card = zero_catch = pass_1_left = determine_colour = u\n")
    path = tmp_path / "bars.yaml"
    path.write_text(f"name: bars\noutput: {tmp_path / 'reports'}\nplayers: 4\ngames: 200\n"
                    f"chunk: 100\nseed: 5\nanalyses: [overfishing, strategies]\n"
                    f"seats: [{{strategy: {bot}, params: [2.0]}}, random, random, random]\n")
    run(path, workers=1, progress=False)
    folder = tmp_path / "reports" / "bars"
    md = (folder / "summary.md").read_text()
    assert "odd \\| name" in md and "gain \\| loss 2" in md
    tables = [p for p in md.split("\n\n") if p.startswith("|")]
    assert tables
    for t in tables:
        rows = [table_cells(r) for r in t.splitlines()]
        assert {len(r) for r in rows} == {len(rows[0])}, t
    assert any(c.startswith("odd | name") for t in tables for r in t.splitlines()
               for c in table_cells(r))
    (folder / "report.html").unlink()
    page = render_html(folder, warn=lambda m: None).read_text()
    cell = re.search(r"<td>([^<]*odd \| name[^<]*)</td>", _h.unescape(page))
    assert cell is not None and "\\|" not in cell.group(1)
