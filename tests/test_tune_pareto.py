"""fishing2sim tune with objective pareto: a known toy front, the objectives' values and CIs,
determinism, resume after an interruption, bad input."""
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

optuna = pytest.importorskip("optuna")

from fishing2sim.cli import main  # noqa: E402
from fishing2sim.config.experiment import load_experiment  # noqa: E402
from fishing2sim.tune import tuner as T  # noqa: E402
from fishing2sim.tune.pareto import _violation_ci, axes, non_dominated  # noqa: E402
from fishing2sim.tune.schema import parse_target  # noqa: E402

HW = 0.01  # the toy figures' CI half-width


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def write(tmp_path, text, name) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


# ---- a toy study whose front is known -----------------------------------------------------
TOY = """\
    name: {name}
    players: 4
    seed: {seed}
    seats: random
    analyses: [overfishing, strategies]
    tune:
      space:
        deck.remove_from_tier.4: {{int: [0, 3]}}
        deck.remove_from_tier.5: {{int: [0, 1]}}
      objective:
        pareto: [overfishing, deck_changes, {{maximize: "win_share[seat=0]"}}]
      budget: {{trials: {trials}, games: 100}}
      racing: {{top: 1, games: 200}}
      sampler: {sampler}
"""


def toy_overfishing(x: int, y: int) -> float:
    """x cards removed from tier 4 lower it, y from tier 5 raise it: with deck changes
    x + y, the front is y = 0, x = 0..3 (every y > 0 is dominated by (x, 0))."""
    return 0.1 * (3 - x) + 0.05 * y


def fake_runner(monkeypatch, stop_at=None):
    """The runner replaced by the toy figures of the trial's deck edits (the file has none:
    0); everything else (study, front, re-measure, report) is the real code path. With
    ``stop_at`` the run of that call is interrupted (Ctrl-C)."""
    from fishing2sim import study as runner

    calls = []

    def fake_run(exp, **kw):
        calls.append(exp.name)
        if stop_at is not None and len(calls) == stop_at:
            raise KeyboardInterrupt
        of, st = [], []
        for c in exp.conditions:
            x = int(c.labels.get("deck.remove_from_tier.4", 0))
            y = int(c.labels.get("deck.remove_from_tier.5", 0))
            est = toy_overfishing(x, y)
            of.append(dict(condition=c.index, metric="overfished_share", n=100, estimate=est,
                           ci_low=est - HW, ci_high=est + HW))
            st.append(dict(condition=c.index, strategy=pd.NA, seat=0, metric="win_share",
                           n=100, estimate=0.25, ci_low=0.24, ci_high=0.26))
        return runner.Results({"overfishing": pd.DataFrame(of),
                               "strategies": pd.DataFrame(st)}, {})

    monkeypatch.setattr(runner, "run", fake_run)
    return calls


def toy_file(tmp_path, name="toy", seed=11, trials=30, sampler="random"):
    return write(tmp_path, TOY.format(name=name, seed=seed, trials=trials, sampler=sampler),
                 f"{name}.yaml")


def test_toy_study_reports_the_known_front(tmp_path, monkeypatch):
    fake_runner(monkeypatch)
    p = toy_file(tmp_path)
    spec = T.load_tune(p)
    assert [a.label for a in axes(spec)] == ["overfishing", "deck_changes",
                                             "win_share[seat=0]"]
    res = CliRunner().invoke(main, ["tune", str(p), "-w", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "Pareto front: 4 points" in res.output
    out = tmp_path / "reports" / "toy"
    trials = pd.read_csv(out / "trials.csv")
    ok = trials[trials["state"] == "COMPLETE"]
    assert len(ok) == 30
    keys = ["deck.remove_from_tier.4", "deck.remove_from_tier.5"]
    explored = {tuple(int(v) for v in r) for r in ok[keys].itertuples(index=False)}
    assert {(x, 0) for x in range(4)} <= explored  # every front point was tried
    # the front of the explored points, computed here by brute force
    brute = {(x, y) for x, y in explored if not any(
        toy_overfishing(a, b) <= toy_overfishing(x, y) and a + b <= x + y and (a, b) != (x, y)
        for a, b in explored)}
    assert brute == {(x, 0) for x in range(4)}
    # on the trials' own games: on the front exactly when y = 0 (equal repeats tie)
    assert list(ok["front"]) == [y == 0 for y in ok["deck.remove_from_tier.5"]]
    front = pd.read_csv(out / "front.csv")
    pts = front[front["point"] != "baseline"]
    got = sorted((int(r[keys[0]]), int(r[keys[1]])) for _, r in pts.iterrows())
    assert got == [(0, 0), (1, 0), (2, 0), (3, 0)]
    # ordered by the first objective; each objective with its CI from the fresh seed
    assert list(pts["point"]) == ["point 1", "point 2", "point 3", "point 4"]
    for _, r in pts.iterrows():
        x = int(r[keys[0]])
        assert r["overfishing"] == pytest.approx(toy_overfishing(x, 0))
        assert r["overfishing ci_low"] == pytest.approx(toy_overfishing(x, 0) - HW)
        assert r["overfishing ci_high"] == pytest.approx(toy_overfishing(x, 0) + HW)
        assert r["deck_changes"] == r["deck_changes ci_low"] == r["deck_changes ci_high"] == x
        assert r["win_share[seat=0]"] == pytest.approx(0.25) and r["on_front_again"]
        assert r["games"] == 200
        assert r["seed"] == T.derive_seed(11, T.CONFIRM_SEED_OFFSET)
        # every point is a ready-to-run experiment
        cfg = yaml.safe_load((out / r["experiment"]).read_text())
        assert cfg["deck"]["remove_from_tier"] == {4: x, 5: 0}
        exp = load_experiment(out / r["experiment"])
        assert exp.conditions[0].deck.n_cards == load_experiment(p).conditions[0].deck.n_cards - x
    base = front[front["point"] == "baseline"].iloc[0]
    assert base["overfishing"] == pytest.approx(0.3) and base["deck_changes"] == 0
    summary = (out / "summary.md").read_text()
    assert "## The Pareto front" in summary and "every point is still on the front" in summary
    assert summary.count("```yaml") == 4 and "front-4.yaml" in summary
    assert "| 4 | " in summary and "30.0% [29.0, 31.0]" in summary
    html = (out / "report.html").read_text()
    assert "Pareto front" in html and "front-1.yaml" in html and "data:image/png" in html
    assert (out / "front.png").read_bytes()[:4] == b"\x89PNG"
    st = optuna.load_study(study_name="toy", storage=f"sqlite:///{out / 'study.db'}")
    D = optuna.study.StudyDirection
    assert st.directions == [D.MINIMIZE, D.MINIMIZE, D.MAXIMIZE]
    assert len(st.best_trials) == int(ok["front"].sum())


def test_objectives_values_and_dominance():
    t = parse_target("overfishing <= 0.1")
    assert _violation_ci(t, 0.12, 0.09, 0.15) == pytest.approx((0.02, 0.0, 0.05))
    assert _violation_ci(t, 0.2, 0.15, 0.25) == pytest.approx((0.1, 0.05, 0.15))
    t = parse_target("overfishing in [0.05, 0.10]")
    assert _violation_ci(t, 0.12, 0.11, 0.13) == pytest.approx((0.02, 0.01, 0.03))
    assert _violation_ci(t, 0.07, 0.04, 0.12) == pytest.approx((0.0, 0.0, 0.02))
    t = parse_target("mean_rounds >= 7")
    assert _violation_ci(t, 6.0, 5.5, 6.5) == pytest.approx((1.0, 0.5, 1.5))
    pts = [[1, 5], [2, 4], [2, 6], [1, 5], [3, 3]]
    assert non_dominated(pts, ["minimize", "minimize"]) == [True, True, False, True, True]
    assert non_dominated(pts, ["minimize", "maximize"]) == [True, False, True, True, False]


def test_a_target_is_one_objective_per_condition(tmp_path):
    p = write(tmp_path, """\
        players: [4, 5]
        seats: random
        analyses: [overfishing, strategies]
        tune:
          space:
            deck.remove_from_tier.4: {int: [0, 3]}
          objective:
            pareto: ["overfishing[players=5]", "leader_edge <= 2", deck_changes]
    """, "t.yaml")
    spec = T.load_tune(p)
    assert spec.sampler == "tpe"
    assert [a.label for a in axes(spec)] == [
        "overfishing[players=5]", "leader_edge <= 2 (violation) @ players=4",
        "leader_edge <= 2 (violation) @ players=5", "deck_changes"]
    assert T.objective_value(spec, [0.5, 1.0, 3.5], 2) == pytest.approx([0.5, 0.0, 1.5, 2])


# ---- determinism and resume ---------------------------------------------------------------
@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_same_seed_same_study_on_real_games(tmp_path):
    """Real games, TPE: the same file and seed give the same trials and the same front."""
    tables = []
    for run in ("a", "b"):
        p = write(tmp_path, f"""\
            name: det_{run}
            players: [4, 5]
            seed: 5
            seats: random
            analyses: [overfishing, strategies]
            tune:
              space:
                deck.remove_from_tier.4: {{int: [0, 3]}}
                deck.hand_sizes.5: {{choices: [[8, 8, 9, 9, 10, 10, 11, 11], [8, 8, 8, 8, 8, 8, 8, 8]]}}
              objective:
                pareto: ["overfishing[players=5]", "leader_edge <= 2", deck_changes]
              budget: {{trials: 5, games: 200}}
              racing: {{games: 300}}
        """, f"det_{run}.yaml")
        res = T.tune(T.load_tune(p), workers=1)
        front = pd.read_csv(res.report_dir / "front.csv")
        tables.append((res.trials.drop(columns=["seconds"]), front))
        assert front["point"].iloc[-1] == "baseline" and len(front) >= 2
        assert res.trials["front"].any()
    pd.testing.assert_frame_equal(tables[0][0], tables[1][0])
    pd.testing.assert_frame_equal(tables[0][1], tables[1][1])


def test_resume_after_an_interrupted_trial(tmp_path, monkeypatch):
    """Ctrl-C during trial 3 leaves it running in the study; --resume marks it failed,
    evaluates its point again, keeps the finished trials and reaches the budget."""
    calls = fake_runner(monkeypatch, stop_at=4)
    p = toy_file(tmp_path, name="intr", trials=8, sampler="tpe")
    with pytest.raises(KeyboardInterrupt):
        T.tune(T.load_tune(p), workers=1)
    db = tmp_path / "reports" / "intr" / "study.db"
    before = optuna.load_study(study_name="intr", storage=f"sqlite:///{db}")
    states = [t.state.name for t in before.trials]
    assert states == ["COMPLETE"] * 3 + ["RUNNING"]
    done = {t.number: (t.params, t.values) for t in before.trials[:3]}
    cut = before.trials[3].params
    assert not (tmp_path / "reports" / "intr" / "summary.md").exists()
    calls.clear()
    fake_runner(monkeypatch)
    res = T.tune(T.load_tune(p), workers=1, resume=True)
    st = optuna.load_study(study_name="intr", storage=f"sqlite:///{res.report_dir / 'study.db'}")
    complete = [t for t in st.trials if t.state.name == "COMPLETE"]
    assert len(complete) == 8 and st.trials[3].state.name == "FAIL"
    assert all((st.trials[k].params, st.trials[k].values) == v for k, v in done.items())
    retry = [t for t in st.trials if t.user_attrs.get("retry_of") == 3]
    assert len(retry) == 1 and retry[0].params == cut and retry[0].state.name == "COMPLETE"
    assert (res.report_dir / "front.csv").exists()


# ---- bad input ----------------------------------------------------------------------------
DECK = """\
    name: bad
    players: [4, 5]
    seed: 3
    seats: random
    analyses: [overfishing, strategies]
    tune:
      space:
        {space}
      objective:
        {objective}
      budget: {{trials: 3, games: 100}}
"""

BAD = [
    ('pareto: ["tier_reached[tier=5]", deck_changes]',
     "tune.objective.pareto[0]: 'tier_reached[tier=5]' is not computed: it needs the "
     "depletion analysis"),
    ('pareto: [leader_edge, "overfishing[players=6]"]',
     "tune.objective.pareto[1]: 'overfishing[players=6]' is not computed: no condition has "
     "players=6"),
    ("pareto: [overfishin, deck_changes]",
     "tune.objective.pareto[0]: unknown figure 'overfishin' (did you mean 'overfishing'?)"),
    ('pareto: ["overfishing[players=4]"]',
     "tune.objective.pareto: a Pareto study needs at least 2 objectives, got 1"),
    ("pareto: leader_edge", "tune.objective.pareto: expected a list of at least 2 objectives"),
    ('pareto: [leader_edge, deck_changes]\n        targets: ["leader_edge <= 2"]',
     "tune.objective.pareto: pareto keeps its objectives apart; it does not mix with targets"),
    ("pareto: [leader_edge, deck_changes]\n        minimize: leader_edge",
     "tune.objective.pareto: pareto keeps its objectives apart; it does not mix with minimize"),
    ("pareto: [leader_edge, overfishing]\n        cost: {deck_changes: 0.01}",
     "tune.objective.pareto: pareto keeps its objectives apart; it does not mix with cost"),
    ("pareto: [leader_edge, leader_edge]", "tune.objective.pareto[1]: 'leader_edge' given twice"),
    ("pareto: [leader_edge, {maximize: deck_changes}]",
     "tune.objective.pareto[1]: deck_changes can only be minimised"),
    ("pareto: [leader_edge, deck_changes]\n      sampler: cmaes",
     "tune.sampler: cmaes optimises one objective; a Pareto study uses tpe or random"),
    # 100 objectives: 4,950 pairs to draw; refused at load
    ("pareto: [" + ", ".join(f'"overfishing[players=4] <= 0.{k:03d}"' for k in range(100))
     + "]", "tune.objective.pareto: a Pareto study takes at most 6 objectives, got 100"),
    # 3 figures over 2 conditions each and deck_changes: 7 objectives
    ('pareto: [leader_edge, overfishing, "overfishing <= 0.1", deck_changes]',
     "tune.objective.pareto: 7 objectives once each figure is taken per condition it "
     "matches; a Pareto study takes at most 6"),
]


@pytest.mark.parametrize("objective, message", BAD)
def test_bad_pareto_is_one_line_exit_2_nothing_written(tmp_path, objective, message):
    p = write(tmp_path, DECK.format(space="deck.remove_from_tier.4: {int: [0, 3]}",
                                    objective=objective), "bad.yaml")
    res = CliRunner().invoke(main, ["tune", str(p), "-w", "1", "--no-progress"])
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and "Traceback" not in res.output
    assert res.output.startswith(f"Error: {p}: {message}"), res.output
    assert not (tmp_path / "reports").exists()


def test_deck_changes_without_a_deck_key_is_not_computed(tmp_path):
    p = write(tmp_path, DECK.format(space="first_leader: {int: [0, 3]}",
                                    objective="pareto: [leader_edge, deck_changes]"),
              "bad.yaml")
    res = CliRunner().invoke(main, ["tune", str(p), "-w", "1", "--no-progress"])
    assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
    assert res.output.startswith(
        f"Error: {p}: tune.objective.pareto[1]: 'deck_changes' is not computed: the space "
        "has no deck.* key path"), res.output
    assert not (tmp_path / "reports").exists()


def test_without_racing_the_front_is_the_trials_own(tmp_path, monkeypatch):
    calls = fake_runner(monkeypatch)
    p = toy_file(tmp_path, name="norace", trials=12)
    p.write_text(p.read_text().replace("racing: {top: 1, games: 200}", "racing: {top: 0}"))
    res = T.tune(T.load_tune(p), workers=1)
    assert len(calls) == 12  # the trials only: nothing played again, no baseline
    front = pd.read_csv(res.report_dir / "front.csv")
    assert "baseline" not in set(front["point"]) and (front["games"] == 100).all()
    for _, r in front.iterrows():  # each point's figures are those of its first trial
        t = res.trials[res.trials["trial"] == r["trial"]].iloc[0]
        assert r["overfishing"] == pytest.approx(t["overfishing"], rel=1e-9) and t["front"]
    assert "Without racing (`racing.top: 0`)" in (res.report_dir / "summary.md").read_text()


def test_the_shipped_pareto_file():
    repo = Path(__file__).resolve().parent.parent
    spec = T.load_tune(repo / "experiments" / "tune_deck_pareto.yaml")
    assert spec.pareto and spec.sampler == "tpe"
    assert [a.sense for a in axes(spec)] == ["minimize", "maximize", "minimize", "minimize"]


def _point(i, *objectives):
    from types import SimpleNamespace

    return SimpleNamespace(point=i, objectives=list(objectives), on_front_again=True)


def test_pareto_trade_off_words_come_from_the_cis_of_the_differences():
    from types import SimpleNamespace

    from fishing2sim.tune.pareto_report import dominated_words

    ax = [SimpleNamespace(label="overfishing", sense="minimize"),
          SimpleNamespace(label="win share", sense="maximize")]
    # point 2 is worse than point 1 on both point estimates; the CIs of the differences
    # (half-width sqrt(0.02² + 0.02²) = 0.028) decide the words
    p1 = _point(1, (0.10, 0.08, 0.12), (0.50, 0.48, 0.52))
    near = _point(2, (0.11, 0.09, 0.13), (0.49, 0.47, 0.51))  # 0.01 apart: not told apart
    front = SimpleNamespace(axes=ax, points=[p1, near])
    assert dominated_words(front, near) == (
        "Point 2 is dominated by point 1 on the point estimates only: no CI of a difference "
        "favours it clear of 0, so on these games it is not told apart from it.")
    far = _point(2, (0.15, 0.13, 0.17), (0.49, 0.47, 0.51))  # 0.05 worse on overfishing
    front = SimpleNamespace(axes=ax, points=[p1, far])
    assert dominated_words(front, far) == (
        "Point 2 is not a real trade-off: point 1 is measurably better on overfishing (95% CI "
        "of the difference clear of 0) and measurably worse on none.")
