"""The decision stakes (analyses: [decisions], docs/rules.md E "Decision stakes"): replays
of a hand-built position, the games unchanged by the sampling, the figures against an
independent computation from the kernel's rows, determinism, and the bad inputs."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from fishing2sim.analysis.stats import t_quantile
from fishing2sim.cli import main
from fishing2sim.config.decisions import thresholds
from fishing2sim.config.experiment import load_experiment
from fishing2sim.engine import constants as K
from fishing2sim.engine.batch import N_G, N_T, play_batch, trump_batch
from fishing2sim.engine.decisions import (
    MAX_SAMPLED, N_X, X_D1_POINTS, X_D2_POINTS, X_G_POINTS, X_KIND, X_N_OPT, X_SEAT,
    decision_batch, replay_from,
)
from fishing2sim.engine.state import STATE_SIZE
from fishing2sim.strategy.lineup import build_lineup, observe_mask

from scenario import Table

R = K.MAX_ROUNDS + 1
ALL = 2 ** 32  # a rate of 1: every decision of the kind is sampled


def _catch_table(seat0_keeps):
    """Round 8 of 8, three tricks left. Seat 0 leads catch-1-card; seats 1-3 follow blue
    low, so seat 3 leads the last trick with its blue 16 or 15. In catch-1-card, seat 1
    moves yellow 2 or yellow 3 (it keeps the other and sheds it in the last trick: the
    same result either way), seat 0 moves blue 19 or ``seat0_keeps``' other card."""
    return Table(players=4, round=8, trump="light", leader=0, hands={
        0: ["buoy catch-1-card", "blue 20", seat0_keeps],
        1: ["blue 1", "yellow 2", "yellow 3"],
        2: ["blue 2", "blue 18", "blue 17"],
        3: ["blue 3", "blue 16", "blue 15"]},
        prefer={0: ["buoy catch-1-card", seat0_keeps], 1: ["blue 1", "yellow 2"],
                2: ["blue 2", "blue 17"], 3: ["blue 3", "blue 15"]})


def _replays(t):
    rates = np.zeros(K.N_DECISIONS, np.int64)
    rates[K.D_CATCH_1_CARD] = ALL
    out = np.zeros((1, MAX_SAMPLED, N_X), np.int64)
    k = replay_from(t.st, t.rng, t.ev, t.deck, t.strats, t.params, rates, np.uint64(99), out)
    rows = {int(r[X_SEAT]): r for r in out[0] if r[X_KIND] >= 0}
    return k, rows


def test_equivalent_options_have_zero_stakes_and_different_ones_do_not():
    # seat 0: blue 20 or blue 19 kept, either wins the last trick (equivalent); seat 1:
    # yellow 2 or 3 kept, either is shed (equivalent); seats 2 and 3 likewise
    k, rows = _replays(_catch_table("blue 19"))
    assert k == 4 and sorted(rows) == [0, 1, 2, 3]
    for s, r in rows.items():
        assert r[X_KIND] == K.D_CATCH_1_CARD and r[X_N_OPT] == 2
        assert r[X_D1_POINTS] == 0 and r[X_D2_POINTS] == 0 and r[X_G_POINTS] == 0, s
    # seat 0 now holds blue 20 and red 1: keeping the blue 20 wins the last trick's four
    # cards, keeping the red 1 sheds it; its scripted choice moves the red 1 (keeps 20)
    k, rows = _replays(_catch_table("red 1"))
    r0 = rows[0]
    assert abs(r0[X_D1_POINTS]) == 4 and r0[X_D2_POINTS] == r0[X_D1_POINTS]
    # g = the game's own result (blue 20 kept) minus option a's: 0 or +4, never negative
    assert r0[X_G_POINTS] in (0, 4)
    assert rows[1][X_D1_POINTS] == 0 and rows[1][X_D2_POINTS] == 0


def _lineup(names, players=4, ruleset="fishing2"):
    from fishing2sim.config.deck import load_deck

    deck = load_deck(ruleset=ruleset)
    funcs, table, strats = build_lineup(names, players)
    head = (np.ascontiguousarray(deck.arrays), players, K.RULESETS[ruleset],
            np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, -1,
            np.uint64(11), 0)
    return head, funcs, table, observe_mask(strats)


def _outputs(n):
    return [np.zeros((n, N_G), np.int64), np.zeros((n, K.MAX_PLAYERS), np.int64),
            np.zeros((n, 2 * R), np.int64), np.zeros((n, 2 * R), np.int64),
            np.zeros((n, R, K.MAX_PLAYERS), np.int64)]


def _decision_run(head, funcs, table, mask, n, rates, trump):
    out = _outputs(n)
    pairs = np.zeros((n, R, N_T), np.int64)
    dec = np.zeros((n, MAX_SAMPLED, N_X), np.int64)
    sampled = np.zeros(n, np.int64)
    done = decision_batch(*head, n, funcs, table, 0, mask, np.zeros((2, STATE_SIZE), np.int64),
                          rates, trump, K.MAX_ROUNDS, *out, pairs, dec, sampled)
    assert done == n
    return out, pairs, dec, sampled


@pytest.mark.parametrize("names, ruleset", [
    (["random"] * 4, "fishing2"), (["greedy", "random", "counter", "greedy"], "fishing2"),
    (["random", "greedy", "random", "greedy"], "fishing")])
def test_sampling_leaves_every_game_as_it_was(names, ruleset):
    n = 300
    head, funcs, table, mask = _lineup(names, ruleset=ruleset)
    plain = _outputs(n)
    play_batch(*head, n, funcs, table, 0, mask, np.zeros((2, STATE_SIZE), np.int64), *plain)
    rates = np.full(K.N_DECISIONS, int(0.3 * ALL), np.int64)
    rates[K.D_PLAY] = int(0.01 * ALL)
    rates[K.D_TRUMP_CHOICE] = 0
    out, _, dec, sampled = _decision_run(head, funcs, table, mask, n, rates, 0)
    for a, b in zip(plain, out):
        assert np.array_equal(a, b)
    kinds = dec[:, :, X_KIND]
    assert sampled.sum() == (kinds >= 0).sum() > 50
    seen = np.bincount(kinds[kinds >= 0], minlength=K.N_DECISIONS)
    if ruleset == "fishing":  # (the original Fishing has no trump choice to replay)
        assert (seen[[K.D_PLAY, K.D_ZERO_CATCH, K.D_PASS_1_LEFT, K.D_DETERMINE_COLOUR]]
                > 0).all()
        return
    assert (seen[[K.D_PLAY, K.D_CATCH_1_OTHER, K.D_CATCH_1_CARD, K.D_EXCHANGE_TAKE,
                  K.D_EXCHANGE_GIVE, K.D_DETERMINE_TRUMP]] > 0).all()
    # with the trump-choice replays too: trump_batch's games and pairs, unchanged
    tout = _outputs(n)
    tpairs = np.zeros((n, R, N_T), np.int64)
    d = np.zeros((1, K.EV_FIELDS), np.int64)
    trump_batch(*head, n, funcs, table, 0, mask, np.zeros((2, STATE_SIZE), np.int64),
                K.MAX_ROUNDS, *tout, tpairs, -1, d, d, d, np.zeros(3, np.int64))
    out2, pairs2, dec2, _ = _decision_run(head, funcs, table, mask, n, rates, 1)
    assert all(np.array_equal(a, b) for a, b in zip(tout, out2))
    assert np.array_equal(tpairs, pairs2) and (tout[0] == plain[0]).all()


EXPERIMENT = """name: dec
players: 4
games: 600
chunk: {chunk}
seed: 5
seats: [greedy, random, greedy, random]
analyses: [decisions]
decisions: {{kinds: [catch-1-other, catch-1-card, play], rate: 0.5, play_rate: 0.004}}
"""


def _run(tmp_path, chunk=200, name="a"):
    path = tmp_path / f"{name}.yaml"
    path.write_text(EXPERIMENT.format(chunk=chunk))
    res = CliRunner().invoke(main, ["run", str(path), "--workers", "1", "--no-progress",
                                    "--output", str(tmp_path / name)])
    assert res.exit_code == 0, res.output
    return path, tmp_path / name / "dec"


def _row(df, metric, kind, strategy=None):
    m = (df["metric"] == metric) & (df["kind"] == kind)
    m &= df["strategy"].isna() if strategy is None else df["strategy"] == strategy
    rows = df[m]
    assert len(rows) == 1, (metric, kind, strategy)
    return rows.iloc[0]


def _independent(path):
    """The figures from decision_batch's rows, computed here: per kind the pooled means and
    the CIs clustered by game, by the linearisation written out directly."""
    exp = load_experiment(path)
    cond = exp.conditions[0]
    funcs, table, strats = build_lineup(list(cond.lineup), 4)
    deck = cond.deck
    head = (np.ascontiguousarray(deck.arrays), 4, 0, np.ascontiguousarray(deck.hand_sizes[4]),
            deck.n_rounds, cond.first_leader, np.uint64(cond.seed), 0)
    _, _, dec, _ = _decision_run(head, funcs, table, observe_mask(strats), cond.games,
                                 thresholds(exp.decisions, "fishing2"), 0)
    names = ["greedy", "random"]
    slot = np.array([0, 1, 0, 1])
    res = {}
    for kind in ("catch-1-other", "catch-1-card", "play"):
        code = K.DECISION_NAMES.index(kind)
        mine = dec[:, :, X_KIND] == code
        m = mine.sum(axis=1).astype(float)
        d1 = dec[:, :, X_D1_POINTS].astype(float)
        d2 = dec[:, :, X_D2_POINTS].astype(float)
        g = dec[:, :, X_G_POINTS].astype(float)

        def clustered(v, sel):
            x = np.where(sel, v, 0).sum(axis=1)
            mm = sel.sum(axis=1).astype(float)
            q = x.sum() / mm.sum()
            G = len(x)
            se = math.sqrt(((x - q * mm) ** 2).sum() / (G * (G - 1))) / (mm.sum() / G)
            t = t_quantile(G - 1)  # t on the games less one
            return q, q - t * se, q + t * se

        res[kind] = {"n": int(m.sum()), "gain": clustered(g, mine),
                     "prod": clustered(d1 * d2, mine), "changed": int((mine & (d1 != 0)).sum())}
        for s, name in enumerate(names):
            own = mine & (slot[np.where(mine, dec[:, :, X_SEAT], 0)] == s)
            res[kind][name] = clustered(g, own)
    return res


def test_figures_match_an_independent_computation_and_the_report(tmp_path):
    path, folder = _run(tmp_path)
    df = pd.read_csv(folder / "decisions.csv")
    assert (folder / "decisions.png").exists()
    summary = (folder / "summary.md").read_text()
    assert "## Decision stakes" in summary
    assert "Choosing the hand card to move with catch-1-card" in summary
    html = (folder / "report.html").read_text()
    assert "Decision stakes" in html
    ind = _independent(path)
    for kind, want in ind.items():
        gain = _row(df, "policy_gain_points", kind)
        assert gain.n == want["n"] > 0
        for got, exp in zip((gain.estimate, gain.ci_low, gain.ci_high), want["gain"]):
            assert got == pytest.approx(exp, rel=1e-6, abs=1e-9)
        stakes = _row(df, "stakes_points", kind)
        assert stakes.estimate == pytest.approx(math.sqrt(max(0.0, want["prod"][0])), rel=1e-9)
        half = _row(df, "stakes_half_points", kind)
        assert half.estimate == pytest.approx(stakes.estimate / 2, rel=1e-8)
        for name in ("greedy", "random"):
            own = _row(df, "policy_gain_points", kind, name)
            assert own.estimate == pytest.approx(want[name][0], rel=1e-6, abs=1e-9)
    # the choice of catch-1-card's card sometimes changes the seat's points (which card is
    # kept decides later tricks): pairs that differ, and a stakes CI above 0
    assert ind["catch-1-card"]["changed"] > 0
    assert _row(df, "stakes_points", "catch-1-card").ci_high > 0
    # the reference random strategy gains nothing over a random option, in expectation
    rnd = _row(df, "policy_gain_points", "catch-1-card", "random")
    assert rnd.ci_low < 0 < rnd.ci_high


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_the_same_run_twice_and_chunked_otherwise_gives_the_same_table(tmp_path):
    _, a = _run(tmp_path, 200, "a")
    _, b = _run(tmp_path, 200, "b")
    _, c = _run(tmp_path, 150, "c")
    ta = (a / "decisions.csv").read_bytes()
    assert ta == (b / "decisions.csv").read_bytes() == (c / "decisions.csv").read_bytes()


def test_runs_without_the_analysis_keep_no_decision_totals(tmp_path):
    from fishing2sim.run.chunks import plan, run_chunk

    path = tmp_path / "p.yaml"
    path.write_text("name: p\nplayers: 3\ngames: 40\nchunk: 40\nseed: 4\n"
                    "analyses: [strategies]\n")
    exp = load_experiment(path)
    assert exp.decisions is None and "decisions" not in exp.resolved
    totals = run_chunk(exp, plan(exp)[0])
    assert not [k for k in totals if k.startswith("dec_")]


@pytest.mark.parametrize("text, where, says", [
    ("decisions: {kinds: [pass-1-left]}\n", "decisions.kinds[0]",
     "'pass-1-left' is a decision of Fishing, not one of Fishing 2 (ruleset fishing2)"),
    ("decisions: {kinds: [catch-1-crad]}\n", "decisions.kinds[0]",
     "unknown decision kind 'catch-1-crad' (did you mean 'catch-1-card'?)"),
    ("decisions: {kinds: [play, trump-choice]}\n", "decisions.kinds[1]",
     "the trump choice has its own replays"),
    ("decisions: {rate: 2}\n", "decisions.rate", "expected a share of the decisions"),
    ("decisions: {rte: 0.1}\n", "decisions.rte", "(did you mean 'rate'?)"),
])
def test_bad_decision_settings_are_one_line_and_exit_2(tmp_path, text, where, says):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\nplayers: 4\ngames: 10\nanalyses: [decisions]\n" + text)
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress", "--output", str(out)])
    assert res.exit_code == 2
    assert f"{where}: " in res.output and says in res.output, res.output
    assert "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not out.exists()


def test_a_fishing_file_names_its_own_decisions(tmp_path):
    path = tmp_path / "f.yaml"
    path.write_text("name: f\nruleset: fishing\nplayers: 4\ngames: 10\nanalyses: [decisions]\n"
                    "decisions: {kinds: [catch-1-card]}\n")
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert res.exit_code == 2 and "decisions.kinds[0]: 'catch-1-card' is a decision of " \
        "Fishing 2, not one of Fishing (ruleset fishing)" in res.output, res.output
    path.write_text("name: f\nruleset: fishing\nplayers: 4\ngames: 10\nanalyses: [decisions]\n")
    assert load_experiment(path).decisions["kinds"] == [
        "play", "zero-catch", "pass-1-left", "determine-colour"]


def test_decision_settings_without_the_analysis_are_refused(tmp_path):
    path = tmp_path / "n.yaml"
    path.write_text("name: n\nplayers: 4\ngames: 10\nanalyses: [strategies]\n"
                    "decisions: {rate: 0.1}\n")
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert res.exit_code == 2 and "decisions: the decision settings are read only with " \
        "the decisions analysis" in res.output
