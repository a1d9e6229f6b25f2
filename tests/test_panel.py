"""The skill panel (play_levels:): levels share deals, the interaction CIs agree with an
independent computation from play_games, the verdict words follow the signs, the skill
trace's convergence, byte identity for 1 and 2 workers and on Dask, --resume across levels,
and one line with exit 2 for each kind of bad input."""
from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import write_experiment as write
import yaml
from click.testing import CliRunner

from fishing2sim.analysis.panel import converged, level_ratings, sign_of, verdict
from fishing2sim.analysis.stats import Z
from fishing2sim.api import play_games
from fishing2sim.cli import main
from fishing2sim.config.experiment import load_experiment
from fishing2sim.study import run

REPO = Path(__file__).resolve().parent.parent
PANEL = """
    players: 4
    games: 1200
    chunk: 300
    seed: 5
    play_levels:
      levels:
        - random
        - {level: greedy, games: 600}
    sweep:
      deck:
        - {value: {}, label: standard deck, baseline: true}
        - {value: {remove: [blue 26, yellow 26]}, label: without blue 26 and yellow 26}
    analyses: [overfishing, depletion, strategies]
"""
TABLES = ["panel.csv", "verdicts.csv", "skill_trace.csv", "convergence.csv", "contrasts.csv",
          "overfishing.csv", "depletion.csv", "strategies.csv", "profile.csv",
          "profile_differences.csv"]


@pytest.fixture(scope="module")
def panel_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("panel")
    path = write(root, "panel", PANEL)
    res = run(path, workers=2, progress=False)
    return path, root / "reports" / "panel", res


def _figures(df: pd.DataFrame, rounds: int = 8):
    over = (df.end_reason == "overfished").to_numpy(float)
    ocean = df[f"ocean_r{rounds}"].fillna(0).to_numpy(float)
    return {"overfishing": over, "ocean_left": ocean}


def _var_of_sum(terms):
    """Var(Σ w mean(x)) for samples whose entry i is deal i of one seed (the four conditions
    of a deck contrast at two levels): the sum over the deals of each deal's contribution
    Σ w (x_i − mean(x)) / n, squared, times N / (N − 1)."""
    n = max(x.size for x, _ in terms)
    psi = np.zeros(n)
    for x, w in terms:
        psi[:x.size] += w * (x - x.mean()) / x.size
    return float((psi ** 2).sum()) * n / (n - 1)


def test_the_levels_of_a_condition_share_its_deals(panel_run):
    path, _, _ = panel_run
    exp = load_experiment(path)
    by = {(c.deck_sha256, c.level): c for c in exp.conditions}
    assert [c.level for c in exp.conditions] == ["random", "greedy"] * 2
    for deck in {c.deck_sha256 for c in exp.conditions}:
        r, g = by[(deck, "random")], by[(deck, "greedy")]
        assert r.seed == g.seed and r.paired and g.paired
        assert (r.games, g.games) == (1200, 600)
        a = play_games(200, 4, seed=r.seed, strategies=["random"] * 4, deck=r.deck)
        b = play_games(200, 4, seed=g.seed, strategies=["greedy"] * 4, deck=g.deck)
        assert (a.first_leader == b.first_leader).all()  # the same deals
    seeds = {c.seed for c in exp.conditions}
    assert len(seeds) == 1  # the decks too: the edited deck plays the coupled deal


def test_interaction_cis_match_an_independent_computation(panel_run):
    path, out, _ = panel_run
    exp = load_experiment(path)
    panel = pd.read_csv(out / "panel.csv")
    by = {(c.deck_sha256, c.level): c for c in exp.conditions}
    base_deck = exp.conditions[0].deck_sha256
    other = next(c.deck_sha256 for c in exp.conditions if c.deck_sha256 != base_deck)
    x = {}
    for deck in (base_deck, other):
        for lv, bot in (("random", "random"), ("greedy", "greedy")):
            c = by[(deck, lv)]
            x[(deck, lv)] = _figures(play_games(c.games, 4, seed=c.seed, strategies=[bot] * 4,
                                                deck=c.deck))
    for fig in ("overfishing", "ocean_left"):
        def mean(deck, lv):
            return x[(deck, lv)][fig].mean()

        effect_g = mean(other, "greedy") - mean(base_deck, "greedy")
        effect_r = mean(other, "random") - mean(base_deck, "random")
        d = effect_g - effect_r
        var = _var_of_sum([(x[(other, "greedy")][fig], 1), (x[(base_deck, "greedy")][fig], -1),
                           (x[(other, "random")][fig], -1), (x[(base_deck, "random")][fig], 1)])
        r = panel[(panel.figure == fig) & (panel.level == "greedy")].iloc[0]
        assert r.relative_to == "random"
        assert r.effect == pytest.approx(effect_g, rel=1e-8, abs=1e-10)
        assert r.reference_effect == pytest.approx(effect_r, rel=1e-8, abs=1e-10)
        assert r.difference == pytest.approx(d, rel=1e-8, abs=1e-10)
        half = Z * math.sqrt(var)
        assert (r.diff_ci_high - r.diff_ci_low) / 2 == pytest.approx(half, rel=0.01)
        # pairing matters: the independent CI (no covariance) is wider
        var_ind = sum(x[k][fig].var(ddof=1) / x[k][fig].size for k in x)
        assert half < Z * math.sqrt(var_ind)


@pytest.mark.parametrize("signs, kind, words", [
    ({"random": 1, "greedy": 1, "skilled": 1}, "holds", "holds at every level of play"),
    ({"random": -1, "greedy": -1, "skilled": -1}, "holds", "holds at every level of play"),
    ({"random": 1, "greedy": 0, "skilled": 0}, "only", "appears only with random players"),
    ({"random": 0, "greedy": 1, "skilled": 1}, "only",
     "appears only with greedy and skilled players"),
    ({"random": 1, "greedy": -1, "skilled": -1}, "reverses",
     "reverses with greedy and skilled players"),
    ({"random": 0, "greedy": 1, "skilled": -1}, "reverses", "reverses with skilled players"),
    ({"random": 0, "greedy": 0, "skilled": 0}, "none", "is not measurable at any level of play"),
])
def test_verdict_words(signs, kind, words):
    # every pair of levels measurably different: the words of the levels' own signs
    assert verdict(signs, "random", lambda a, b: True) == (kind, words)


@pytest.mark.parametrize("signs, kind, words", [
    ({"random": 1, "greedy": 0}, "partly",
     "is measurable with random players; with greedy players too few games to tell (±1.8 pp)"),
    ({"random": 1, "greedy": 0, "skilled": 0}, "partly",
     "is measurable with random players; with greedy players too few games to tell "
     "(±1.8 pp); with skilled players too few games to tell (±0.9 pp)"),
    ({"random": 1, "greedy": -1}, "partly", "rises with random players and falls with "
     "greedy players, but the difference between these levels is not measurable"),
    ({"random": 1, "greedy": 1}, "holds", "holds at every level of play"),
    ({"random": 0, "greedy": 0}, "none", "is not measurable at any level of play"),
])
def test_verdict_words_without_a_measurable_interaction(signs, kind, words):
    # no pair of levels measurably different (the adjusted interaction CI includes 0):
    # "appears only" and "reverses" are not said, the widths are
    widths = {"random": "±0.6 pp", "greedy": "±1.8 pp", "skilled": "±0.9 pp"}
    assert verdict(signs, "random", lambda a, b: False, widths) == (kind, words)


def test_only_with_needs_every_other_level_to_differ():
    signs = {"random": 1, "greedy": 0, "skilled": 0}
    differs = {frozenset(("random", "greedy"))}  # skilled not told apart from random
    kind, words = verdict(signs, "random", lambda a, b: frozenset((a, b)) in differs,
                          {"skilled": "±2.0 pp"})
    assert (kind, words) == ("partly", "is measurable with random players; with greedy "
                             "players too few games to tell (no CI); with skilled players "
                             "too few games to tell (±2.0 pp)")


def _verdict_of(greedy: tuple, random: tuple, interaction: tuple) -> dict:
    """The verdict row of one contrast of a two-level panel from constructed figures: each
    level's effect and the interaction greedy − random, as (estimate, lo, hi) in fractions."""
    from fishing2sim.analysis.panel import _verdict_row
    from fishing2sim.analysis.stats import adjust_p, p_from_ci

    effects = {lv: pd.Series({"difference": e[0], "diff_ci_low": e[1], "diff_ci_high": e[2],
                              "p_adjusted": p_from_ci(*e)})
               for lv, e in (("random", random), ("greedy", greedy))}
    row = {"level": "greedy", "relative_to": "random", "difference": interaction[0],
           "diff_ci_low": interaction[1], "diff_ci_high": interaction[2],
           "p_value": p_from_ci(*interaction)}
    row["p_adjusted"] = adjust_p([row["p_value"]], "holm")[0]
    return _verdict_row([row], "edit", 4, "overfishing", effects, "random")


def test_fewer_greedy_games_do_not_turn_into_appears_only():
    # the same deck edit at 4 players (two real panels): random +1.5 pp [0.8, 2.2]; with 1,500
    # greedy games +1.2 pp [0.3, 2.2], with 500 +0.8 pp [-1.0, 2.6]; the interaction's CI
    # includes 0 in both. The first holds at both levels; the second must say that the
    # greedy level cannot tell, not "appears only with random players"
    rnd = (0.015, 0.008, 0.022)
    big = _verdict_of((0.012, 0.003, 0.022), rnd, (-0.003, -0.014, 0.008))
    assert (big["verdict"], big["text"]) == ("holds", "holds at every level of play")
    small = _verdict_of((0.008, -0.010, 0.026), rnd, (-0.007, -0.026, 0.012))
    assert (small["verdict"], small["text"]) == (
        "partly", "is measurable with random players; with greedy players too few games to "
        "tell (±1.8 pp)")
    # a measurable interaction (adjusted) is what "appears only with" needs
    only = _verdict_of((0.000, -0.006, 0.006), rnd, (-0.015, -0.024, -0.006))
    assert (only["verdict"], only["text"]) == ("only", "appears only with random players")


def test_convergence_words():
    assert converged(-0.01, 0.015, 0.02) == "yes"
    assert converged(0.03, 0.05, 0.02) == "no"
    assert converged(-0.05, -0.03, 0.02) == "no"
    assert converged(0.01, 0.03, 0.02) == "undecided"
    assert converged(math.nan, math.nan, 0.02) == "undecided"


def test_skill_trace_uses_the_ladder_ratings(panel_run):
    path, out, _ = panel_run
    exp = load_experiment(path)
    ladder = pd.read_csv(Path(__file__).parents[1] / "docs" / "ladder-report" / "ladder.csv")
    rating = ladder[ladder.metric == "rating"].set_index("bot")["estimate"]
    got = level_ratings(exp)
    assert got["random"] == (0.0, "ladder")
    assert got["greedy"][0] == pytest.approx(rating["greedy"], abs=0.05)
    trace = pd.read_csv(out / "skill_trace.csv")
    assert set(trace.level) == {"random", "greedy"}
    conv = pd.read_csv(out / "convergence.csv")
    assert set(conv.strongest) == {"greedy"} and set(conv.second) == {"random"}
    # each figure at each level is the level's own headline figure
    ovf = pd.read_csv(out / "overfishing.csv")
    for r in trace[trace.figure == "overfishing"].itertuples():
        c = next(c for c in exp.conditions if c.level == r.level
                 and r.group.endswith(c.name.split(", ")[-2]))
        o = ovf[(ovf.condition == c.index) & (ovf.metric == "overfished_share")
                & ovf["round"].isna()].iloc[0]
        assert r.estimate == pytest.approx(o.estimate)


def test_the_report_says_who_played_first_and_shows_the_grid(panel_run):
    _, out, _ = panel_run
    md = (out / "summary.md").read_text()
    first = md.split("## In short", 1)[1].strip().splitlines()[0]
    assert first.startswith("Who played: every condition at two levels of play — random "
                            "(four `random` players, 1,200 games per condition); greedy "
                            "(four `greedy` players, 600 games per condition)")
    assert "## Levels of play" in md
    assert "| contrast | random | greedy | verdict |" in md
    html = (out / "report.html").read_text()
    assert "Levels of play" in html and "<th>greedy</th>" in html
    assert (out / "panel.png").stat().st_size > 1000
    assert (out / "skill_trace.png").stat().st_size > 1000


def test_one_and_two_workers_and_dask_give_the_same_bytes(tmp_path, panel_run):
    _, out, _ = panel_run
    one = write(tmp_path / "one", "panel", PANEL)
    run(one, workers=1, progress=False)
    dask = write(tmp_path / "dask", "panel", PANEL)
    run(dask, dask_local=2, progress=False)
    for name in TABLES:
        ref = (out / name).read_bytes()
        assert (tmp_path / "one" / "reports" / "panel" / name).read_bytes() == ref, name
        assert (tmp_path / "dask" / "reports" / "panel" / name).read_bytes() == ref, name


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_resume_across_levels(tmp_path, panel_run):
    _, out, _ = panel_run
    path = write(tmp_path, "panel", PANEL)
    run(path, workers=2, progress=False, write=False)  # keeps every checkpoint
    ckpt = tmp_path / "reports" / ".checkpoints" / "panel"
    exp = load_experiment(path)
    greedy = [c.index for c in exp.conditions if c.level == "greedy"]
    removed = [p for p in ckpt.glob("c*-k*.npz") if int(p.name[1:5]) in greedy]
    assert len(removed) == 4  # 600 games in chunks of 300, two decks
    for p in removed[1:]:  # as if the run had stopped in the greedy level
        p.unlink()
    res = run(path, workers=2, progress=False, resume=True)
    assert res.meta["games_played_now"] == 900
    for name in TABLES:
        assert (tmp_path / "reports" / "panel" / name).read_bytes() == \
            (out / name).read_bytes(), name


BAD = {
    "an unknown bot": (
        "play_levels: [random, {level: smart, seats: gredy}]",
        "play_levels[1].seats: unknown strategy 'gredy'"),
    "a level below the chunk": (
        "play_levels: [random, {level: search, seats: pimc, games: 100}]",
        "play_levels[1].games: level 'search' plays 100 games, below the chunk size "
        "(300)"),
    "no reference level": (
        "play_levels: {levels: [greedy, skilled], relative_to: random}",
        "play_levels.relative_to: 'random' is not a level of the panel"),
    "unreachable precision": (
        "play_levels: [{level: random, max_games: 50000},\n"
        "              {level: greedy, games: 600, max_games: 1200}]\n"
        "precision: {overfishing: 0.5pp}",
        "play_levels[1].max_games: level 'greedy' cannot reach precision.overfishing 0.5pp "
        "within its 1,200 games"),
    "seats as well": (
        "seats: greedy\nplay_levels: [random, greedy]",
        "seats: play_levels sets the seats of every condition"),
    "one level": ("play_levels: [random]", "play_levels: a panel compares levels of play"),
    "a level twice": ("play_levels: [random, random]",
                      "play_levels[1].level: level 'random' given twice"),
    "a bad tolerance": (
        "play_levels: {levels: [random, greedy], converged_within: {overfishing: 2 cards}}",
        "play_levels.converged_within.overfishing: expected a tolerance in pp"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_panels_are_one_line_and_exit_2(tmp_path, case):
    body, expected = BAD[case]
    path = write(tmp_path, "bad", f"players: 4\ngames: 1200\nchunk: 300\n{body}\n")
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1, res.output
    assert "Traceback" not in res.output
    assert expected in lines[0], lines[0]
    assert not (tmp_path / "reports").exists() or not any((tmp_path / "reports").iterdir())


def test_games_from_the_command_line_scales_every_level_by_one_factor(tmp_path):
    """--games N scales every level's games by N / the file's games, so the levels keep
    their proportions (a search level given few games is never set to N); the chunk rule
    is the file's own: a quick look at a shipped panel."""
    path = write(tmp_path, "quick", PANEL)  # games 1200; random 1200, greedy 600
    exp = load_experiment(path, overrides={"games": 200})
    assert {c.level: c.games for c in exp.conditions} == {"random": 200, "greedy": 100}
    shipped = load_experiment(REPO / "experiments" / "card_counts.yaml", {"games": 4000})
    got = {c.level: c.games for c in shipped.conditions}
    base = load_experiment(REPO / "experiments" / "card_counts.yaml")
    file_games = yaml.safe_load((REPO / "experiments" / "card_counts.yaml").read_text())["games"]
    want = {c.level: max(1, round(c.games * 4000 / file_games)) for c in base.conditions}
    assert got == want and got["search"] < 4000
    res = CliRunner().invoke(main, ["run", str(path), "--games", "200", "--workers", "1",
                                    "--no-progress"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "reports" / "quick" / "verdicts.csv").exists()


@pytest.mark.parametrize("form", ["shipped", "renamed"])
def test_a_level_that_sees_every_hand_is_refused(tmp_path, form):
    """A level with a seat that sees every hand is no level of fair play: refused at load
    (the skill trace would take it for one of the two strongest levels), whatever the
    cheater's NAME or file is called."""
    if form == "shipped":
        seats, name = "cheater", "cheater"
    else:
        bot = tmp_path / "bots" / "fair_searcher.py"
        bot.parent.mkdir()
        bot.write_text((REPO / "strategies" / "cheater.py").read_text()
                       .replace('NAME = "cheater"', 'NAME = "fair_searcher"'))
        seats, name = str(bot), "fair_searcher"
    path = write(tmp_path, "seer", "players: 4\ngames: 1200\nchunk: 300\nplay_levels:\n"
                 "  levels:\n    - random\n    - greedy\n"
                 f"    - {{level: strongest, seats: {{strategy: {seats}, params: [2, 1, 1, 0]}}, "
                 "games: 300}\n")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in res.output, res.output
    assert lines[0].startswith(f"Error: {path}: play_levels.levels[2]: level 'strongest' "
                               f"seats '{name}'"), lines[0]
    assert "sees every hand" in lines[0]
    assert not (tmp_path / "reports").exists()
    assert {p: p.read_bytes() for p in tmp_path.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
            and not p.name.endswith(".stamp")} == before
