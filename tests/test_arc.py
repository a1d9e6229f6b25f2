"""The game-arc figures (analyses: [arc], docs/rules.md E "Game arc"): checked on games
built by hand, against an independent computation from the Python API's per-round points,
and the bad input."""
from __future__ import annotations

from fractions import Fraction as F
from types import SimpleNamespace

import numpy as np
import pandas as pd

from fishing2sim.analysis.stats import t_quantile
import pytest
from click.testing import CliRunner

from fishing2sim.analysis import arc
from fishing2sim.api import new_outputs, run_games
from fishing2sim.cli import main
from fishing2sim.config.experiment import load_experiment
from fishing2sim.engine import constants as K
from fishing2sim.engine.batch import G_END, G_END_ROUND, G_ROUNDS
from fishing2sim.run.totals import accumulate, add_blocks, empty_totals, summed_keys

# four 3-player games of 4 rounds: (points after rounds 1..4, final points, end, rounds
# started, end round). C is overfished before round 4's draws (3 rounds started and scored);
# D is overfished at a draw-1-card in round 3 (started, never scored; a +3 bonus in it).
GAMES = {
    "A": ([[3, 1, 0], [3, 4, 2], [5, 5, 6], [9, 7, 8]], [9, 7, 8], K.END_COMPLETED, 4, 4),
    "B": ([[2, 2, 0], [4, 2, 3], [4, 6, 6], [8, 8, 5]], [8, 8, 5], K.END_COMPLETED, 4, 4),
    "C": ([[0, 0, 0], [1, 3, 2], [4, 3, 2], [0, 0, 0]], [4, 3, 2], K.END_OVERFISHED, 3, 4),
    "D": ([[1, 0, 2], [2, 3, 2], [0, 0, 0], [0, 0, 0]], [5, 3, 2], K.END_OVERFISHED, 3, 3),
}
P, ROUNDS = 3, 4


def _stand_in(players=P, rounds=ROUNDS):
    cond = SimpleNamespace(index=0, labels={}, players=players,
                           deck=SimpleNamespace(n_rounds=rounds))
    return SimpleNamespace(conditions=[cond])


def _hand_built_totals():
    n = len(GAMES)
    out_int, out_points, out_ocean, _, rp = new_outputs(n)
    for g, (rounds, final, end, started, end_round) in enumerate(GAMES.values()):
        for r, pts in enumerate(rounds, start=1):
            rp[g, r, :P] = pts
        out_points[g, :P] = final
        out_int[g, G_END] = end
        out_int[g, G_ROUNDS] = started
        out_int[g, G_END_ROUND] = end_round
    t = empty_totals(P, 1, arc=True)
    accumulate(t, P, np.zeros(P, np.int64), out_int, out_points, out_ocean, None, None,
               ROUNDS, rp)
    add_blocks(t, 1, n)
    return t


def _value(df, metric, **eq):
    m = df["metric"] == metric
    for k, v in eq.items():
        m &= df[k] == v
    rows = df[m]
    assert len(rows) == 1, (metric, eq)
    return rows.iloc[0]


def test_arc_figures_of_games_built_by_hand():
    t = _hand_built_totals()
    df = arc.tables(_stand_in(), [t])["arc"]
    # lead changes: A 3 (0 -> 1 -> 2 -> 0); B 0 (a tie for the lead keeps seat 0, the first
    # sole leader, and the final tie changes nothing); C 1 (1 -> 0); D 1 (2 -> 1: only the
    # scored rounds count)
    assert _value(df, "lead_changes_mean").estimate == pytest.approx(1.25)
    shares = {int(r.value): r.estimate for r in df[df.metric == "lead_changes_share"]
              .itertuples()}
    assert shares == pytest.approx({0: 0.25, 1: 0.5, 2: 0.0, 3: 0.25})
    # the leader after round r (k tied for the most: each 1/k of their win shares)
    expected = {1: (F(1) + F(1, 2) + F(1, 3) + 0) / 4, 2: (0 + F(1, 2) + 0 + 0) / 4,
                3: (0 + F(1, 4) + 1) / 3}
    n_scored = {1: 4, 2: 4, 3: 3}
    for r, v in expected.items():
        row = _value(df, "leader_win_share", round=r)
        assert row.n == n_scored[r]
        assert row.estimate == pytest.approx(float(v), rel=1e-9, abs=1e-10)
        assert row.ci_low <= row.estimate <= row.ci_high
    assert not (df["round"] == ROUNDS).any()  # after the last round: the winner, no figure
    # comebacks: a winner among the fewest points, fewer than the most (C after round 1,
    # everyone level, is none)
    for r, k in {1: 0, 2: 3, 3: 2}.items():
        row = _value(df, "comeback_share", round=r)
        assert (row.n, row.estimate) == (n_scored[r], pytest.approx(k / n_scored[r]))
    # the fewest-points player (leads the next round), of the games that started round r+1
    few = {1: (4, F(1, 3) / 4), 2: (4, F(2, 4)), 3: (2, F(1, 2))}
    for r, (n, v) in few.items():
        row = _value(df, "fewest_points_win_share", round=r)
        assert row.n == n
        assert row.estimate == pytest.approx(float(v), rel=1e-9, abs=1e-10)
    # final margins 1, 0, 1, 2 (D's is after its unscored round's bonus)
    assert _value(df, "final_margin_mean").estimate == pytest.approx(1.0)
    m = {int(r.value): r.estimate for r in df[df.metric == "final_margin_share"].itertuples()}
    assert m == pytest.approx({0: 0.25, 1: 0.5, 2: 0.25})
    assert [_value(df, f"final_margin_{q}").estimate for q in ("p05", "p50", "p95")] == [0, 1, 2]
    assert set(df.loc[df.ci_low.notna(), "ci_unit"]) == {"game"}
    assert (df.loc[df.ci_low.isna(), "ci_unit"] == "").all()


def test_arc_totals_exist_only_when_asked_for():
    plain, with_arc = empty_totals(4, 2), empty_totals(4, 2, arc=True)
    assert not any(k.startswith("arc_") for k in plain)
    assert set(with_arc) - set(plain) == {k for k in with_arc if k.startswith("arc_")}
    assert summed_keys() == [k for k in summed_keys(True) if not k.startswith("arc_")]


def _independent(a: dict, players: int) -> dict:
    """The arc figures of run_games' arrays, game by game in plain Python."""
    n_rounds = a["n_rounds"]
    res = {"changes": [], "lead": {}, "come": {}, "few": {}, "margin": []}
    for g in range(a["int"].shape[0]):
        final = list(a["points"][g, :players])
        best = max(final)
        winners = [p for p in range(players) if final[p] == best]
        share = [F(1, len(winners)) if p in winners else F(0) for p in range(players)]
        top2 = sorted(final)[-2:]
        res["margin"].append(top2[1] - top2[0])
        started = a["int"][g, G_ROUNDS]
        d1c = a["int"][g, G_END] == K.END_OVERFISHED and a["int"][g, G_END_ROUND] == started
        scored = started - int(d1c)
        cur, changes = None, 0
        for r in range(1, n_rounds + 1):
            if r > scored:
                break
            pts = list(a["round_points"][g, r, :players])
            hi, lo = max(pts), min(pts)
            lead = [p for p in range(players) if pts[p] == hi]
            last = [p for p in range(players) if pts[p] == lo]
            if len(lead) == 1:
                changes += cur is not None and lead[0] != cur
                cur = lead[0]
            if r == n_rounds:
                continue
            res["lead"].setdefault(r, []).append(sum(share[p] for p in lead) / len(lead))
            come = lo < hi and any(p in winners for p in last)
            res["come"].setdefault(r, []).append(int(come))
            if started >= r + 1:
                res["few"].setdefault(r, []).append(sum(share[p] for p in last) / len(last))
        res["changes"].append(changes)
    return res


def test_arc_run_matches_an_independent_computation_from_the_api(tmp_path):
    path = tmp_path / "arc.yaml"
    path.write_text("name: arcrun\nplayers: 4\ngames: 900\nchunk: 300\nseed: 7\n"
                    "analyses: [arc]\n")
    res = CliRunner().invoke(main, ["run", str(path), "--workers", "1", "--no-progress",
                                    "--output", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    out = tmp_path / "out" / "arcrun" / "arc.csv"
    assert (out.parent / "arc.png").exists()
    summary = (out.parent / "summary.md").read_text()
    assert "## Game arc" in summary and "The leader after round r wins" in summary
    df = pd.read_csv(out)
    assert list(df.columns) == ["condition", "round", "value", "metric", "n", "estimate",
                                "ci_low", "ci_high", "ci_unit"]
    cond = load_experiment(path).conditions[0]
    a = run_games(900, 4, seed=cond.seed, deck=cond.deck)
    ind = _independent(a, 4)
    assert _value(df, "lead_changes_mean").estimate == pytest.approx(np.mean(ind["changes"]))
    assert _value(df, "final_margin_mean").estimate == pytest.approx(np.mean(ind["margin"]))
    assert sum(ind["changes"]) > 0 and any(ind["come"][4])
    for r in range(1, cond.deck.n_rounds):
        for metric, key in (("leader_win_share", "lead"), ("comeback_share", "come"),
                            ("fewest_points_win_share", "few")):
            row = _value(df, metric, round=r)
            vals = ind[key][r]
            assert row.n == len(vals)
            assert row.estimate == pytest.approx(float(sum(F(v) for v in vals) / len(vals)),
                                                 rel=1e-9, abs=1e-10)


def test_analyses_arc_misspelt_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("players: 4\ngames: 10\nanalyses: [acr]\n")
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert res.exit_code == 2
    assert "unknown analysis 'acr' (did you mean 'arc'?)" in res.output
    assert "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_an_arc_chunk_checkpoint_is_read_back_and_a_plain_one_is_refused(tmp_path):
    from fishing2sim.run.checkpoints import read_chunk, save_chunk
    from fishing2sim.run.chunks import plan, run_chunk

    path = tmp_path / "ck.yaml"
    path.write_text("name: ck\nplayers: 3\ngames: 60\nchunk: 30\nseed: 4\n"
                    "analyses: [arc]\n")
    exp = load_experiment(path)
    task = plan(exp)[0]
    totals = run_chunk(exp, task)
    assert int(totals["arc_changes"].sum()) == 30 and int(totals["arc_margin"].sum()) == 30
    back, why = read_chunk(exp, save_chunk(tmp_path, exp, task, totals))
    assert why == "" and all(np.array_equal(back[k], v) for k, v in totals.items())
    plain = {k: v for k, v in totals.items() if not k.startswith("arc_")}
    back, why = read_chunk(exp, save_chunk(tmp_path, exp, task, plain))
    assert back is None and why.startswith("wrong arrays (missing arc_")


def test_arc_headline_contrasts_match_an_independent_computation(tmp_path):
    """lead_changes and late_leader_win (the leader after the last but one round) enter
    contrasts.csv with analyses: [arc]: condition − baseline, independent normal CIs, from
    run_games' own per-game figures."""
    path = tmp_path / "arcc.yaml"
    path.write_text("name: arcc\nplayers: 4\ngames: 900\nchunk: 300\nseed: 8\n"
                    "sweep:\n  deck:\n    - {value: {}, label: standard, baseline: true}\n"
                    "    - {value: {remove: [blue 26, yellow 26]}, label: fewer}\n"
                    "analyses: [arc]\n")
    res = CliRunner().invoke(main, ["run", str(path), "--workers", "1", "--no-progress",
                                    "--output", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    con = pd.read_csv(tmp_path / "out" / "arcc" / "contrasts.csv")
    exp = load_experiment(path)
    base, cond = exp.conditions
    figs = {}
    for c in (base, cond):
        ind = _independent(run_games(900, 4, seed=c.seed, deck=c.deck), 4)
        late = np.array([float(v) for v in ind["lead"][c.deck.n_rounds - 1]])
        figs[c.index] = {"lead_changes": np.array(ind["changes"], float),
                         "late_leader_win": late}
    for fig in ("lead_changes", "late_leader_win"):
        r = con[con.figure == fig].iloc[0]
        x, y = figs[cond.index][fig], figs[base.index][fig]
        assert r.method == "independent" and r.n == x.size and r.n_baseline == y.size
        assert r.difference == pytest.approx(x.mean() - y.mean(), rel=1e-8, abs=1e-10)
        va, vb = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
        dfw = (va + vb) ** 2 / (va ** 2 / (x.size - 1) + vb ** 2 / (y.size - 1))
        half = t_quantile(dfw) * np.sqrt(va + vb)  # Welch's t
        assert (r.diff_ci_high - r.diff_ci_low) / 2 == pytest.approx(half, rel=1e-6)
    assert r.unit == "pp"


def test_late_leader_win_contrast_gives_its_survival_share_beside_it():
    """Issue 59: late_leader_win is a share over the games that complete the round before
    the last; its contrast line gives that share of all games in both conditions."""
    from fishing2sim.report.contrasts import survival_note

    arc_table = pd.DataFrame([
        {"condition": 0, "metric": "lead_changes_mean", "n": 400},
        {"condition": 1, "metric": "lead_changes_mean", "n": 400}])
    ctx = SimpleNamespace(tables={"arc": arc_table})
    r = {"condition": 1, "baseline": 0, "n": 300, "n_baseline": 380}
    assert survival_note(ctx, r) == (
        "; it counts only the games that complete the round before the last, 75.0% (95% CI "
        "70.5–79.0%) of the condition's games and 95.0% (95% CI 92.4–96.7%) of the "
        "baseline's")
    assert survival_note(SimpleNamespace(tables={}), r) == ""
