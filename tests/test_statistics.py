"""Statistics whose words match their figures: the trump-choice ceiling as a bracket (known
exactly on constructed choices), figures pooled over a game's several events clustered by
game (coverage by simulation: the stated 95% covers 93-97%), and the same on real games."""
import math

import numpy as np
import pytest

from fishing2sim.analysis.contrasts import pooled_trump
from fishing2sim.engine import constants as K
from fishing2sim.engine.batch import (G_END, G_ROUNDS, N_G, N_T, T_CHOICE, T_CHOOSER,
                                      T_D1_POINTS, T_D1_WIN, T_D2_POINTS, T_D2_WIN)
from fishing2sim.analysis.stats import Z, mean_ci, ratio_ci, share_ci, t_quantile
from fishing2sim.run.totals import R, accumulate, add_blocks, empty_totals


def totals_of(d1, d2, light=None, players=4):
    """The totals of games built by hand: game g's trump choice in round 2 + k has the two
    pairs' light-minus-dark d1[g][k], d2[g][k] (points; None: no choice), chosen light
    where ``light`` says so (default: always), by seat 0."""
    n = len(d1)
    pairs = np.zeros((n, R, N_T), np.int64)
    pairs[:, :, T_CHOOSER] = -1
    for g in range(n):
        for k, (a, b) in enumerate(zip(d1[g], d2[g])):
            if a is None:
                continue
            r = 2 + k
            pairs[g, r, T_CHOOSER] = 0
            pairs[g, r, T_CHOICE] = K.C_LIGHT if light is None or light[g][k] else K.C_DARK
            pairs[g, r, T_D1_POINTS], pairs[g, r, T_D2_POINTS] = a, b
            pairs[g, r, T_D1_WIN], pairs[g, r, T_D2_WIN] = a, b
    out_int = np.zeros((n, N_G), np.int64)
    out_int[:, G_END] = K.END_COMPLETED
    out_int[:, G_ROUNDS] = 8
    out_points = np.zeros((n, players), np.int64)
    out_ocean = np.zeros((n, 2 * R), np.int64)
    t = empty_totals(players, 1)
    accumulate(t, players, [0] * players, out_int, out_points, out_ocean, pairs)
    add_blocks(t, 1, n)
    return t


def test_the_ceiling_bracket_is_exact_on_constructed_choices():
    # both pairs see the same difference D: the cross-fitted bound is mean |D| / 2 (the true
    # ceiling, reached by a chooser who knows D), the upper bound sqrt(mean D^2) / 2
    D = [[4, 0], [-4, 8], [2, -2], [0, 6]]
    t = totals_of(D, D)
    flat = np.array(D, float).ravel()
    low = pooled_trump(t, 0, "cross", 4.0)
    assert low[0] == pytest.approx(np.abs(flat).mean() / 2) == pytest.approx(1.625)
    prod = pooled_trump(t, 0, "prod")
    assert math.sqrt(prod[0]) / 2 == pytest.approx(math.sqrt((flat ** 2).mean()) / 2)
    assert math.sqrt(prod[0]) / 2 == pytest.approx(math.sqrt(17.5) / 2)
    gain = pooled_trump(t, 0, "g", 4.0)  # light always chosen: the mean of D / 2
    assert gain[0] == pytest.approx(flat.mean() / 2)
    assert low[4] == gain[4] == 8  # choices
    # a choice whose two pairs disagree in sign: the cross-fitted gain is negative for it
    t2 = totals_of([[4]], [[-2]])
    assert pooled_trump(t2, 0, "cross", 4.0)[0] == pytest.approx((1 * -2 + -1 * 4) / 4)
    # the per-round rows use the same sums (one choice per game and round)
    assert t["trump_points"][2, 4] == sum(2 * abs(d[0]) for d in D)


def test_pairs_that_come_out_zero_gain_nothing_in_the_lower_bound():
    # a pair with d = 0 leaves the cross-fitted choice to a coin flip: it gains 0 there
    t = totals_of([[0, 6]], [[6, 0]])
    assert pooled_trump(t, 0, "cross", 4.0)[0] == 0.0
    assert pooled_trump(t, 0, "prod")[0] == 0.0  # and the upper bound is 0 too


def _clustered_data(rng, games, mu, icc):
    m = rng.integers(5, 8, games)  # 5-7 choices a game, like rounds 2-8
    a = rng.normal(0, math.sqrt(icc), games)  # the game's shared part
    x = [mu + a[g] + rng.normal(0, math.sqrt(1 - icc), m[g]) for g in range(games)]
    xs = np.array([v.sum() for v in x])
    sq = sum(float((v * v).sum()) for v in x)  # choice-level sum of squares
    return xs, m.astype(float), sq


def test_the_clustered_ci_covers_95_percent_and_the_unclustered_one_does_not():
    rng = np.random.default_rng(20261201)
    mu, games, reps = 0.3, 300, 1000
    hit_cl = hit_naive = 0
    for _ in range(reps):
        xs, m, sq = _clustered_data(rng, games, mu, icc=0.3)
        est, lo, hi, se = ratio_ci(xs.sum(), (xs * xs).sum(), (xs * m).sum(), m.sum(),
                                   (m * m).sum(), games)
        hit_cl += lo <= mu <= hi
        e2, lo2, hi2 = mean_ci(xs.sum(), sq, m.sum())  # every choice taken as independent
        assert e2 == pytest.approx(est)
        hit_naive += lo2 <= mu <= hi2
    assert 0.93 <= hit_cl / reps <= 0.97, hit_cl / reps
    assert hit_naive / reps < 0.92, hit_naive / reps  # what the report said before


def test_ratio_ci_matches_the_delta_method_written_out():
    rng = np.random.default_rng(5)
    xs, m, _ = _clustered_data(rng, 50, 1.0, 0.5)
    est, lo, hi, se = ratio_ci(xs.sum(), (xs * xs).sum(), (xs * m).sum(), m.sum(),
                               (m * m).sum(), 50, scale=2.0)
    q = xs.sum() / m.sum()
    z = (xs - q * m) / m.mean()
    assert est == pytest.approx(q / 2)
    assert se == pytest.approx(z.std(ddof=1) / math.sqrt(50) / 2)
    assert hi - est == pytest.approx(2.009575 * se, rel=1e-6)  # t on 49 degrees of freedom


@pytest.mark.slow
def test_random_seats_policy_gain_ci_covers_zero_on_real_games(tmp_path):
    """Real games: random choosers gain exactly 0 in expectation, so the pooled policy
    gain's clustered 95% CI must cover 0 in 93-97% of 240 independent runs."""
    from fishing2sim.config.experiment import load_experiment_data
    from fishing2sim.study import run

    reps, hits = 240, 0
    for i in range(reps):
        exp = load_experiment_data({"name": f"cov{i}", "players": 4, "games": 300,
                                    "chunk": 300, "seed": 1000 + i,
                                    "output": str(tmp_path),
                                    "analyses": ["trump_value"]}, "coverage")
        res = run(exp, workers=1, progress=False, write=False)
        df = res.tables["trump_value"]
        row = df[df["round"].isna() & (df["metric"] == "policy_gain_points")].iloc[0]
        hits += row.ci_low <= 0 <= row.ci_high
    assert 0.93 <= hits / reps <= 0.97, hits / reps


# ---- multiplicity ----------------------------------------------------------------------------
def test_holm_and_benjamini_hochberg_adjust_as_written_out():
    from fishing2sim.analysis.stats import adjust_p

    p = [0.01, 0.04, 0.03, 0.005, math.nan]
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, running maximum
    assert adjust_p(p, "holm")[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # BH: sorted times 4/1, 4/2, 4/3, 4/4, running minimum from the top
    assert adjust_p(p, "bh")[:4] == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert math.isnan(adjust_p(p, "holm")[4]) and math.isnan(adjust_p(p, "bh")[4])
    assert adjust_p(p, "none")[:4] == p[:4]


def test_the_p_value_agrees_with_the_ci_it_comes_from():
    from fishing2sim.analysis.stats import p_from_ci

    assert p_from_ci(1.0, 1.0 - Z, 1.0 + Z) == pytest.approx(0.3173, abs=1e-4)  # se 1
    assert p_from_ci(0.5, 0.0, 2.0) == pytest.approx(0.05)  # the CI just touches 0
    assert p_from_ci(-0.5, -2.0, 0.0) == pytest.approx(0.05)
    assert p_from_ci(0.0, 0.0, 0.0) == 1.0


def test_the_verdict_words_follow_the_adjusted_p():
    from fishing2sim.report.common import effect

    # the CI excludes 0 and the adjusted p is below 0.05: a verdict
    assert effect(3.0, 1.0, 5.0, "percentage points", "overfishing",
                  adjusted=(0.01, "holm", 18)).startswith("raises overfishing by 3.0")
    # excludes 0, but not once the 18 contrasts are taken together: no measurable effect,
    # with both figures said
    text = effect(3.0, 1.0, 5.0, "percentage points", "overfishing",
                  adjusted=(0.2, "holm", 18))
    assert text.startswith("has no measurable effect on overfishing once the report's 18 "
                           "contrasts are taken together (Holm's adjustment: p = 0.2")
    assert "alone it would raise it by 3.0 percentage points, 95% CI 1.0 to 5.0" in text
    # a CI that includes 0 is no measurable effect whatever the adjustment
    assert effect(1.0, -1.0, 3.0, "points", "x", adjusted=(0.01, "holm", 3)).startswith(
        "has no measurable effect on x (at most 3")
    # opposite sign: lowers
    assert effect(-3.0, -5.0, -1.0, "points", "x", adjusted=(0.01, "bh", 3)).startswith(
        "lowers x by 3.0 points (95% CI 1.0 to 5.0)")
    # multiplicity: none
    assert effect(3.0, 1.0, 5.0, "points", "x", adjusted=(0.2, "none", 3)).startswith("raises")


# ---- seats ---------------------------------------------------------------------------------
def _seat_sums(ws):
    ws = np.asarray(ws, float)
    return ws.sum(axis=0), ws.T @ ws, ws.shape[0]


def test_the_seat_equality_test_holds_its_level_and_finds_unequal_seats():
    from fishing2sim.analysis.stats import equal_means_test

    rng = np.random.default_rng(11)
    P, games, reps = 4, 400, 1000

    def games_won(p):
        winner = rng.choice(P, size=games, p=p)
        ws = np.zeros((games, P))
        ws[np.arange(games), winner] = 60
        tie = rng.random(games) < 0.1  # a tenth of the games shared by two seats
        other = (winner + 1) % P
        ws[tie, winner[tie]] = 30
        ws[tie, other[tie]] = 30
        return ws

    rejected = sum(equal_means_test(*_seat_sums(games_won([0.25] * 4)))[1] < 0.05
                   for _ in range(reps))
    assert 0.03 <= rejected / reps <= 0.07, rejected / reps
    found = sum(equal_means_test(*_seat_sums(games_won([0.37, 0.21, 0.21, 0.21])))[1] < 0.05
                for _ in range(200))
    assert found / 200 > 0.8


def test_the_seat_test_in_strategies_csv_matches_an_independent_computation(tmp_path):
    from fishing2sim.api import play_games
    from fishing2sim.study import run
    from fishing2sim.analysis.stats import chi2_sf

    path = tmp_path / "seats.yaml"
    path.write_text(f"name: seats\noutput: {tmp_path}\nplayers: 4\ngames: 600\nchunk: 200\n"
                    "seed: 21\nanalyses: [strategies]\n")
    run(path, workers=1, progress=False)
    import pandas as pd

    df = pd.read_csv(tmp_path / "seats" / "strategies.csv")
    got = {m: df[df.metric == m].estimate.iloc[0]
           for m in ("seat_equality_chi2", "seat_equality_p_value",
                     "first_leader_fair_share_p_value")}
    from fishing2sim.config.experiment import load_experiment

    cond = load_experiment(path).conditions[0]
    g = play_games(600, 4, seed=cond.seed)
    pts = g[[f"points_{p}" for p in range(4)]].to_numpy()
    won = pts == pts.max(axis=1, keepdims=True)
    ws = np.where(won, 60 // won.sum(axis=1, keepdims=True), 0).astype(float)
    d = ws[:, :3] - ws[:, 3:]
    w = 600 * d.mean(axis=0) @ np.linalg.solve(np.cov(d.T, ddof=1), d.mean(axis=0))
    assert got["seat_equality_chi2"] == pytest.approx(w, rel=1e-9)
    assert got["seat_equality_p_value"] == pytest.approx(chi2_sf(w, 3), rel=1e-9)
    fl = ws[np.arange(600), g["first_leader"].to_numpy()]
    z = (fl.mean() - 15) / (fl.std(ddof=1) / math.sqrt(600))
    assert got["first_leader_fair_share_p_value"] == pytest.approx(
        math.erfc(abs(z) / math.sqrt(2)), rel=1e-9)


# ---- precision runs --------------------------------------------------------------------------
PAIRED_PRECISION = """
players: 4
games: 1000
chunk: 500
seed: 5
paired: true
analyses: [overfishing, strategies]
sweep:
  seats:
    - {value: random, baseline: true}
    - greedy
max_games: 16000
"""


def _write(tmp_path, name, body):
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"name: {name}\noutput: {tmp_path / 'reports'}\n" + body)
    return p


def test_a_precision_target_on_a_contrast_is_reached_and_paired_conditions_stop_together(
        tmp_path):
    import pandas as pd

    from fishing2sim.study import run

    # greedy seats overfish far less often than random ones (36% against 61% with 5
    # players; with 4 a few percent against 8%): only the random condition's own
    # overfishing CI is wide; paired, the greedy condition plays on with it
    res = run(_write(tmp_path, "pc", PAIRED_PRECISION
                     + "precision: {contrast.overfishing: 1.5pp, overfishing: 0.9pp}\n"),
              workers=1, progress=False)
    info = res.meta["adaptive"]
    games = res.meta["games_per_condition"]
    assert games[0] == games[1] > 1000
    assert info[0]["precision"]["overfishing"]["half_width"] > \
        info[1]["precision"]["overfishing"]["half_width"]
    con = pd.read_csv(tmp_path / "reports" / "pc" / "contrasts.csv")
    row = con[con.figure == "overfishing"].iloc[0]
    assert row.method == "paired"  # the first games share deals: still paired at the end
    hw = (row.diff_ci_high - row.diff_ci_low) / 2
    assert hw <= 0.015
    assert info[1]["precision"]["contrast.overfishing"]["half_width"] == pytest.approx(hw)
    assert info[1]["precision"]["contrast.overfishing"]["reached"]


@pytest.mark.parametrize("extra, message", [
    ("precision: {contrast.overfishing: 1pp}\n",
     "precision.contrast.overfishing: a precision target on a contrast needs a baseline"),
    ("precision: {contrast.ocean_left: 0.1 cards}\nanalyses: [overfishing]\n",
     "precision.contrast.ocean_left: the contrasts of ocean_left come with the depletion "
     "analysis"),
    ("precision: {contrast.overfishng: 1pp}\n",
     "precision.contrast.overfishng: unknown figure (did you mean 'contrast.overfishing'?)"),
])
def test_bad_contrast_precision_targets_are_one_line(tmp_path, extra, message):
    from click.testing import CliRunner

    from fishing2sim.cli import main

    body = "players: 4\ngames: 400\nchunk: 200\n" + extra
    if "baseline" not in message:
        body += "paired: true\nsweep:\n  seats:\n    - {value: random, baseline: true}\n" \
                "    - greedy\n"
    res = CliRunner().invoke(main, ["run", str(_write(tmp_path, "bad", body)), "--no-progress"])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], res.output
    assert not (tmp_path / "reports").exists()


@pytest.mark.parametrize("df, p, want", [
    # Student's t quantiles (tables; scipy.stats.t.ppf to 7 digits)
    (1, 0.975, 12.706205), (2, 0.975, 4.302653), (3, 0.975, 3.182446), (4, 0.975, 2.776445),
    (5, 0.975, 2.570582), (10, 0.975, 2.228139), (29, 0.975, 2.045230), (49, 0.975, 2.009575),
    (59, 0.975, 2.000995), (100, 0.975, 1.983972), (1000, 0.975, 1.962339),
    (10, 0.95, 1.812461), (5, 0.995, 4.032143), (30, 0.9, 1.310415),
])
def test_t_quantile_matches_the_tables(df, p, want):
    assert t_quantile(df, p) == pytest.approx(want, rel=2e-6)


def test_t_quantile_tends_to_the_normal_and_refuses_no_degrees():
    assert t_quantile(float("inf")) == pytest.approx(Z, rel=1e-12)
    assert t_quantile(1e9) == pytest.approx(Z, rel=1e-9)
    assert math.isnan(t_quantile(0.5))


def test_mean_ci_uses_t_with_n_minus_1_degrees():
    x = np.array([1.0, 2.0, 4.0, 7.0, 3.0])
    m, lo, hi = mean_ci(x.sum(), (x * x).sum(), x.size)
    assert hi - m == pytest.approx(2.776445 * x.std(ddof=1) / math.sqrt(5), rel=1e-6)


@pytest.mark.parametrize("wins", [[1, 0], [1, 1], [0, 0], [0.5, 1.0], [1], [0], [1, 0, 0]])
def test_share_ci_stays_in_0_1_and_never_has_zero_width(wins):
    # two games, one won (the "50.0% (95% CI -48.0 to 148.0%)"), all won, a tie
    x = np.array(wins, float)
    e, lo, hi = share_ci(x.sum(), (x * x).sum(), x.size)
    assert e == pytest.approx(x.mean())
    assert 0.0 <= lo <= e <= hi <= 1.0
    assert hi - lo > 0.3  # a handful of games tells little, and the CI says so


@pytest.mark.parametrize("games", [2, pytest.param(1, marks=pytest.mark.slow)])
def test_a_tiny_run_prints_no_impossible_share_and_no_nan(tmp_path, games):
    """Issue 59: with 2 games the report said "the round-1 leader wins 50.0% (95% CI -48.0 to
    148.0%)", with 1 game "±nan pp" and `seats equal? (p)` nan. Every share's CI now lies in
    [0, 100]% and a figure without a CI says so in words."""
    import re

    from fishing2sim.study import run

    path = tmp_path / "tiny.yaml"
    path.write_text(f"name: tiny\nplayers: 4\ngames: {games}\nchunk: {games}\nseed: 3\n"
                    "seats: [greedy, random, random, random]\n"
                    "analyses: [depletion, overfishing, trump_value, strategies, arc]\n"
                    "sweep:\n  deck:\n    - {value: {}, label: standard, baseline: true}\n"
                    "    - {value: {remove: [blue 26, yellow 26]}, label: without}\n"
                    f"output: {tmp_path / 'reports'}\n")
    run(path, workers=1, progress=False)
    md = (tmp_path / "reports" / "tiny" / "summary.md").read_text()
    html = (tmp_path / "reports" / "tiny" / "report.html").read_text()
    for text in (md, re.sub(r"<[^>]+>", " ", html.split("<script", 1)[0])):
        assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    shares = re.findall(r"(-?\d+\.\d+)% \[(-?\d+\.\d+), (-?\d+\.\d+)\]", md) + re.findall(
        r"(-?\d+\.\d+)% \(95% CI (-?\d+\.\d+)(?:–| to )(-?\d+\.\d+)%", md)
    assert shares  # the seats' and the leader's shares are there
    for e, lo, hi in shares:
        assert 0.0 <= float(lo) <= float(e) <= float(hi) <= 100.0, (e, lo, hi)
    assert "too few games" in md
