"""fishing2sim tune: space parsing, bad input, a known optimum, resume after SIGKILL, workers."""
import math
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from conftest import wait_until

optuna = pytest.importorskip("optuna")

from fishing2sim.tune import tuner as T  # noqa: E402
from fishing2sim import study  # noqa: E402
from fishing2sim.cli import main  # noqa: E402
from fishing2sim.config.experiment import load_experiment  # noqa: E402
from fishing2sim.config.yamlfile import read_mapping  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_WEIGHTS = [0.5, 3.0, -2.0, -0.5, -1.0, -1.0, 0.0, 0.3, 1.0, 0.3, 2.0, 0.0, 1.0, 0.0,
                   -1.0, -1.0, 10.0, 0.0, 0.0, 0.5, 0.0]


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def write(tmp_path, text, name="t.yaml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


DECK = """\
    name: {name}
    players: [4, 5]
    seed: 3
    seats: random
    analyses: [overfishing, strategies]
    tune:
      space:
        {space}
      objective:
        {objective}
      budget: {{trials: {trials}, games: {games}}}
      racing: {{top: {top}, games: {race}}}
"""


def deck_file(tmp_path, name="t", space="deck.remove_from_tier.4: {int: [0, 3]}",
              objective='targets: ["overfishing[players=4] <= 0.12", "leader_edge <= 2"]',
              trials=4, games=300, top=2, race=600):
    return write(tmp_path, DECK.format(name=name, space=space, objective=objective,
                                       trials=trials, games=games, top=top, race=race),
                 f"{name}.yaml")


# ---- parsing ----------------------------------------------------------------------------
def test_space_kinds_and_sampler_choice(tmp_path):
    p = write(tmp_path, """\
        players: 4
        seats: [{strategy: weights, params: %s}, greedy, counter, random]
        analyses: [strategies]
        tune:
          space:
            seats[0].params[3]: {float: [-2, 1]}
            seats[0].params[5]: {float: [-3, 0]}
          objective: {maximize: "win_share[strategy=weights]"}
    """ % DEFAULT_WEIGHTS)
    spec = T.load_tune(p)
    assert [(d.key, d.kind, d.lo, d.hi) for d in spec.dims] == [
        ("seats[0].params[3]", "float", -2.0, 1.0), ("seats[0].params[5]", "float", -3.0, 0.0)]
    assert spec.sampler == "cmaes" and spec.direction == "maximize"
    assert spec.baseline == {"seats[0].params[3]": -0.5, "seats[0].params[5]": -1.0}
    assert (spec.trials, spec.games, spec.race_top, spec.race_games) == (50, 5000, 3, 25000)

    q = deck_file(tmp_path, space='deck.remove_from_tier.5: {int: [0, 4, 2]}\n'
                  '        deck.hand_sizes.5: {choices: [[8, 8, 9, 9, 10, 10, 11, 11], '
                  '[7, 7, 8, 8, 9, 9, 10, 10]]}')
    spec = T.load_tune(q, {"trials": 9, "time": "2m"})
    d5, hs = spec.dims
    assert (d5.kind, d5.values(), hs.kind, len(hs.choices)) == ("int", [0, 2, 4], "choices", 2)
    assert spec.sampler == "tpe" and spec.trials == 9 and spec.time_limit == 120
    assert spec.mode == "targets" and [t.op for t in spec.targets] == ["<=", "<="]
    # leader_edge has no selector: one term per condition
    assert spec.expansions == {"overfishing[players=4]": [0], "leader_edge": [0, 1]}
    # the shipped tune files are valid experiments for `run` too (the tune section ignored)
    for name in ("tune_deck", "tune_weights"):
        assert T.load_tune(REPO / "experiments" / f"{name}.yaml").dims
        assert load_experiment(REPO / "experiments" / f"{name}.yaml").conditions
    w = T.load_tune(REPO / "experiments" / "tune_weights.yaml")
    assert w.sampler == "cmaes" and len(w.dims[0].names) == 21
    assert w.param_labels["seats[0].params[16]"] == "seats[0].params[16] (shade_count)"
    assert w.baseline["seats[0].params"] == DEFAULT_WEIGHTS


def test_targets_loss_and_deck_changes(tmp_path):
    p = deck_file(tmp_path, space="deck.remove_from_tier.4: {int: [0, 3]}\n"
                  "        deck.remove_from_tier.5: {int: [0, 4]}",
                  objective='targets: ["overfishing[players=4] in [0.05, 0.10]", '
                  '"overfishing[players=5] <= 0.5"]\n        cost: {deck_changes: 0.01}')
    spec = T.load_tune(p)
    t = spec.targets
    assert (t[0].scale, t[1].scale) == (pytest.approx(0.05), 0.5)
    assert T.objective_value(spec, [0.07, 0.4], 0) == 0
    # 0.13 is 0.03 above the range (0.6 widths), 0.6 is 0.1 above 0.5 (0.2 of the bound)
    assert T.objective_value(spec, [0.13, 0.6], 3) == pytest.approx(0.36 + 0.04 + 0.03)
    assert T.objective_value(spec, [0.02, 0.5], 0) == pytest.approx(0.36)
    assert T.deck_changes(spec, {"deck.remove_from_tier.4": 2,
                                 "deck.remove_from_tier.5": 1}) == 3


# ---- bad input --------------------------------------------------------------------------
BAD = [
    ("deck.remove_from_tiar.5: {int: [0, 2]}", None,
     "tune.space.deck.remove_from_tiar.5: unknown deck key 'remove_from_tiar' "
     "(did you mean 'remove_from_tier'?)"),
    ("sweeps.x: {int: [0, 2]}", None, "tune.space.sweeps.x: unknown key (did you mean 'sweep'?)"),
    ("deck.remove_from_tier.5: {int: [3, 1]}", None,
     "tune.space.deck.remove_from_tier.5.int: empty range: 3 > 1"),
    ("deck.hand_sizes.5: {choices: []}", None,
     "tune.space.deck.hand_sizes.5.choices: empty range"),
    ("seats[0].params: {floats: [[0, 1], [2, 2]]}", None,
     "tune.space.seats[0].params.floats[1]: empty range: 2 = 2"),
    ("deck.remove_from_tier.5: {intt: [0, 2]}", None,
     "tune.space.deck.remove_from_tier.5.intt: unknown kind of range (did you mean 'int'?)"),
    (None, 'targets: ["overfishin[players=4] <= 0.1"]',
     "tune.objective.targets[0]: unknown figure 'overfishin' (did you mean 'overfishing'?)"),
    (None, 'targets: ["tier_reached[tier=5] <= 0.1"]',
     "tune.objective.targets[0]: 'tier_reached[tier=5]' is not computed: it needs the "
     "depletion analysis"),
    (None, 'targets: ["overfishing[players=6] <= 0.1"]',
     "tune.objective.targets[0]: 'overfishing[players=6]' is not computed: no condition has "
     "players=6"),
    (None, 'maximize: "win_share[strategy=greedy]"',
     "tune.objective.maximize: 'win_share[strategy=greedy]' matches 2 conditions"),
    (None, 'maximize: "win_share[strategy=greedy, players=4]"',
     "'win_share[strategy=greedy, players=4]' is not computed: no strategy 'greedy' in the "
     "lineup"),
    (None, 'targets: ["overfishing[players=4] <= x"]', "expected a number after <="),
    # every value makes the deck undealable
    ("deck.hand_sizes.5: {choices: [[20, 20, 20, 20, 20, 20, 20, 20]]}", None,
     "tune.space.deck.hand_sizes.5: no value of the range gives a valid experiment (e.g. "
     "[20,20,20,20,20,20,20,20]: deck: the deck cannot deal 5 players: 40 starting cards for "
     "5 x 20)"),
    ("deck.remove_from_tier.1: {int: [13, 20]}", None,
     "tune.space.deck.remove_from_tier.1: no value of the range gives a valid experiment "
     "(e.g. 13: deck.remove_from_tier.1: cannot remove 13 cards: tier 1 has 12)"),
    ("seats[0].params[3]: {float: [0, 2]}", None,
     "tune.space.seats[0].params[3]: seats is not a mapping or a list in the file (random)"),
    # the number of games is the budget's, not a search key
    ("games: {int: [1, 10]}", None, "tune.space.games: not searchable: every trial plays "
     "tune.budget.games games per condition"),
]


@pytest.mark.parametrize("space, objective, message", BAD)
def test_bad_input_is_one_line_exit_2_nothing_written(tmp_path, space, objective, message):
    kw = {}
    if space:
        kw["space"] = space
    if objective:
        kw["objective"] = objective
    p = deck_file(tmp_path, name="bad", **kw)
    res = CliRunner().invoke(main, ["tune", str(p), "-w", "1", "--no-progress"])
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and "Traceback" not in res.output
    assert res.output.startswith(f"Error: {p}: "), res.output
    assert message in res.output, res.output
    assert not (tmp_path / "reports").exists()


def test_float_range_on_a_whole_number_key_and_swept_games(tmp_path):
    """A float range over a search bot's worlds passes on its whole ends but not inside:
    one line before any game (not a study of failed trials); a file sweeping games too."""
    p = write(tmp_path, """\
        name: fl
        players: 4
        seats: [{strategy: pimc, params: [4, 1, 0, 0]}, weights, weights, weights]
        analyses: [strategies]
        tune:
          space:
            seats[0].params[0]: {float: [1, 8]}
          objective: {maximize: "win_share[strategy=pimc]"}
    """)
    res = CliRunner().invoke(main, ["tune", str(p), "-w", "1", "--no-progress"])
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and "Traceback" not in res.output
    assert (f"Error: {p}: tune.space.seats[0].params[0]: values inside the range are not "
            "valid (e.g. 4.5: seats[0].params: worlds must be a whole number") in res.output
    assert res.output.rstrip().endswith("a whole-number key takes {int: [lo, hi]}")
    # the same key as an int range is fine
    p.write_text(p.read_text().replace("{float: [1, 8]}", "{int: [1, 8]}"))
    assert T.load_tune(p).dims[0].kind == "int"
    q = deck_file(tmp_path, name="sg")
    q.write_text(q.read_text().replace("seats: random", "seats: random\nsweep: {games: [10, 20]}"))
    res = CliRunner().invoke(main, ["tune", str(q), "-w", "1", "--no-progress"])
    assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
    assert f"Error: {q}: sweep.games: a tune file's trials play tune.budget.games" in res.output
    assert not (tmp_path / "reports").exists()


def test_missing_tune_section_and_bad_budget(tmp_path):
    p = write(tmp_path, "players: 4\ngames: 10\n")
    res = CliRunner().invoke(main, ["tune", str(p)])
    assert res.exit_code == 2 and "tune: missing" in res.output
    p = deck_file(tmp_path, name="b2")
    res = CliRunner().invoke(main, ["tune", str(p), "--time", "soon"])
    assert res.exit_code == 2 and "--time: expected a time such as 90, 90s, 25m" in res.output
    assert not (tmp_path / "reports").exists()


def fake_win_shares(monkeypatch, estimate, half: float) -> None:
    """study.run replaced by a figure of the trial's experiment, no game played: the win
    share of `weights` (seat 0) is estimate(its parameter vector) +- half."""
    def fake_run(exp, **kw):
        est = estimate(exp.conditions[0].params[0])
        rows = [dict(condition=0, strategy="weights", seat=pd.NA, metric="win_share", n=1000,
                     estimate=est, ci_low=est - half, ci_high=est + half)]
        return study.Results({"strategies": pd.DataFrame(rows)}, {})

    monkeypatch.setattr(study, "run", fake_run)


def weights_tune(tmp_path, name: str, more_space: str, trials: int, top: int) -> Path:
    """A tune file over `weights`' parameter 3 in seat 0 (and ``more_space``, lines of the
    space) against greedy, counter and random, maximising its win share."""
    return write(tmp_path, """\
        name: %s
        players: 4
        seed: 7
        seats: [{strategy: weights, params: %s}, greedy, counter, random]
        analyses: [strategies]
        tune:
          space:
            seats[0].params[3]: {float: [-3, 3]}
%s          objective: {maximize: "win_share[strategy=weights]"}
          budget: {trials: %d, games: 100}
          racing: {top: %d, games: 100}
    """ % (name, DEFAULT_WEIGHTS, more_space, trials, top))


# ---- a known optimum --------------------------------------------------------------------
@pytest.mark.slow  # 120 trials toward a known optimum: 9 s (the default run stays within 6 minutes)
def test_analytic_objective_through_the_same_code_path(tmp_path, monkeypatch):
    """CMA-ES over two weights of a seat's parameter vector; the runner is replaced by an
    analytic figure of the trial's experiment, so everything else (key paths, study, racing,
    report) is the real code path. The optimum is (0.7, -1.2)."""
    fake_win_shares(monkeypatch, lambda w: 0.5 - (w[3] - 0.7) ** 2 - (w[5] + 1.2) ** 2, 0.01)
    p = weights_tune(tmp_path, "analytic", "            seats[0].params[5]: {float: [-3, 3]}\n",
                     trials=120, top=2)
    res = T.tune(T.load_tune(p), workers=1)
    a, b = (res.winner["values"][k] for k in ("seats[0].params[3]", "seats[0].params[5]"))
    assert abs(a - 0.7) < 0.15 and abs(b + 1.2) < 0.15, (a, b)
    assert res.spec.sampler == "cmaes"
    best = yaml.safe_load((res.report_dir / "best.yaml").read_text())
    assert best["seats"][0]["params"][3] == pytest.approx(round(a, 4))
    assert best["seats"][0]["params"][:3] == DEFAULT_WEIGHTS[:3]
    # the baseline is the file's own vector: 0.5 - 1.2^2 - 0.2^2
    assert res.baseline.value == pytest.approx(0.5 - 1.44 - 0.04)
    assert res.winner["vs_baseline"][3]  # clearly better
    imp = pd.read_csv(res.report_dir / "importance.csv")
    assert set(imp["label"]) == {"seats[0].params[3] (win_cost)",
                                 "seats[0].params[5] (trump)"}
    assert imp["importance"].sum() == pytest.approx(1.0)


def test_real_games_find_the_known_best_deck(tmp_path):
    """The 4-player overfishing rate rises as tier 4 loses cards (about 9% with none removed,
    18% with all 3): maximising it must remove all 3 (then the report shows 3)."""
    p = deck_file(tmp_path, name="toy", space="deck.remove_from_tier.4: {int: [0, 3]}",
                  objective='maximize: "overfishing[players=4]"', trials=6, games=800,
                  top=2, race=3000)
    res = CliRunner().invoke(main, ["tune", str(p), "-w", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "reports" / "toy"
    assert sorted(x.name for x in out.iterdir()) == [
        ".fishing2sim-report", "best.yaml", "racing.csv", "report.html", "study.db", "summary.md",
        "trace.png", "trials.csv", "tune.yaml"]
    best = yaml.safe_load((out / "best.yaml").read_text())
    assert best["deck"]["remove_from_tier"] == {4: 3}
    race = pd.read_csv(out / "racing.csv")
    w = race[race["rank"] == 1].iloc[0]
    b = race[race["candidate"] == "baseline"].iloc[0]
    assert w["deck.remove_from_tier.4"] == 3
    assert pd.isna(b["deck.remove_from_tier.4"])  # the file has no edit: empty, not "None"
    lo = w["overfishing[players=4] ci_low"]
    assert lo > b["overfishing[players=4] ci_high"]  # clearly above the untuned deck
    trials = pd.read_csv(out / "trials.csv")
    assert len(trials) == 6 and (trials["state"] == "COMPLETE").all()
    assert trials.loc[0, "deck.remove_from_tier.4"] == 0  # the file's own deck first
    for c in ("overfishing[players=4]", "overfishing[players=4] ci_low",
              "overfishing[players=4] ci_high", "seed", "games"):
        assert trials[c].notna().all()
    summary = (out / "summary.md").read_text()
    assert "remove_from_tier: {4: 3}" in summary and "runner-up" in summary
    assert "optuna-dashboard sqlite:///study.db" in summary
    st = optuna.load_study(study_name="toy", storage=f"sqlite:///{out / 'study.db'}")
    assert len(st.trials) == 6 and st.best_value == trials["value"].max()


# ---- determinism and resume -------------------------------------------------------------
@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_same_trials_for_1_and_2_workers(tmp_path):
    tables = []
    for w in (1, 2):
        p = deck_file(tmp_path, name=f"w{w}", space="deck.remove_from_tier.4: {int: [0, 3]}\n"
                      "        deck.remove_from_tier.5: {int: [0, 4]}", trials=4, games=400,
                      top=0)
        spec = T.load_tune(p)
        res = T.tune(spec, workers=w)
        tables.append(res.trials.drop(columns=["seconds"]))
    pd.testing.assert_frame_equal(tables[0], tables[1])
    assert tables[0]["value"].notna().all()


def _complete(db: Path) -> int:
    try:
        con = sqlite3.connect(str(db), timeout=1)
        try:
            return con.execute("select count(*) from trials where state = 'COMPLETE'"
                               ).fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_resume_after_sigkill_continues_the_same_study(tmp_path):
    p = deck_file(tmp_path, name="killed", space="deck.remove_from_tier.4: {int: [0, 3]}\n"
                  "        deck.remove_from_tier.5: {int: [0, 4]}", trials=10, games=1500,
                  top=0)
    db = tmp_path / "reports" / "killed" / "study.db"
    cmd = [sys.executable, "-m", "fishing2sim.cli", "tune", str(p), "-w", "1", "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    wait_until(lambda: _complete(db) >= 3 or proc.poll() is not None, timeout=240)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = optuna.load_study(study_name="killed", storage=f"sqlite:///{db}")
    done = {t.number: (t.params, t.value) for t in before.trials if t.value is not None}
    assert 3 <= len(done) < 10
    assert not (tmp_path / "reports" / "killed" / "summary.md").exists()

    res = CliRunner().invoke(main, ["tune", str(p), "-w", "1", "--resume", "--no-progress"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "reports" / "killed"
    trials = pd.read_csv(out / "trials.csv", dtype={"seed": "Int64"})
    ok = trials[trials["state"] == "COMPLETE"]
    assert len(ok) == 10  # the budget, counting the trials finished before the kill
    assert set(trials["state"]) <= {"COMPLETE", "FAIL"}
    assert (trials["state"] == "FAIL").sum() <= 1  # the trial the kill interrupted
    for number, (params, value) in done.items():  # kept as they were
        row = trials[trials["trial"] == number].iloc[0]
        assert row["value"] == pytest.approx(value, rel=1e-9)
    # every value is what its trial's values and seed give when evaluated again
    spec = T.load_tune(p)
    for _, row in ok.sample(2, random_state=0).iterrows():
        values = {"deck.remove_from_tier.4": int(row["deck.remove_from_tier.4"]),
                  "deck.remove_from_tier.5": int(row["deck.remove_from_tier.5"])}
        assert int(row["seed"]) == T.derive_seed(3, T.TRIAL_SEED_OFFSET + int(row["trial"]))
        ev = T.evaluate(spec, values, int(row["seed"]), 1500, 1, "check")
        assert ev.value == pytest.approx(row["value"], rel=1e-9)
    st = optuna.load_study(study_name="killed", storage=f"sqlite:///{out / 'study.db'}")
    assert sum(t.value is not None for t in st.trials) == 10
    after = {t.number: (t.params, t.value) for t in st.trials}
    assert all(after[k] == v for k, v in done.items())  # exactly the same trials

    # a changed objective is refused on --resume
    p.write_text(p.read_text().replace("<= 0.12", "<= 0.13"))
    res = CliRunner().invoke(main, ["tune", str(p), "--resume", "--no-progress"])
    assert res.exit_code == 2 and "changed since the interrupted run" in res.output


def test_best_yaml_runs_from_the_report_folder(tmp_path):
    """best.yaml lives in the report folder: a relative strategy file becomes absolute."""
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mybot.py").write_text((REPO / "strategies" / "greedy.py").read_text())
    p = write(tmp_path, """\
        name: rel
        players: 4
        seed: 5
        seats: [bots/mybot.py, random, random, random]
        analyses: [overfishing]
        tune:
          space:
            deck.remove_from_tier.4: {int: [0, 1]}
          objective: {minimize: overfishing}
          budget: {trials: 2, games: 200}
          racing: {top: 0}
    """)
    res = T.tune(T.load_tune(p), workers=1)
    best = res.report_dir / "best.yaml"
    cfg = yaml.safe_load(best.read_text())
    assert cfg["seats"][0] == str(tmp_path / "bots" / "mybot.py")
    exp = load_experiment(best)
    assert exp.conditions[0].lineup[0] == str(tmp_path / "bots" / "mybot.py")
    assert cfg["deck"]["remove_from_tier"][4] == res.winner["values"]["deck.remove_from_tier.4"]
    # no racing: the best trial is picked on its own games, then confirmed on a fresh seed
    # beside the baseline: its figures come from the seed that did not pick it
    w = res.winner["trial"]
    assert list(res.race["candidate"]) == [f"trial {w}", f"trial {w}, confirmed", "baseline"]
    assert list(res.race["games"]) == [200, 1000, 1000]
    seeds = list(res.race["seed"])
    assert seeds[0] == T.derive_seed(T.load_tune(p).seed, T.TRIAL_SEED_OFFSET + w)
    assert seeds[1] == seeds[2] == T.derive_seed(T.load_tune(p).seed, T.CONFIRM_SEED_OFFSET)
    assert res.winner["evaluation"].seed == seeds[1] != res.winner["picked"].seed


def test_numbers_in_exponent_form_are_numbers(tmp_path):
    """YAML 1.1 reads 1e9 and -2e-3 (no dot) as text; the experiment loader reads them as the
    numbers a designer means, in a tune range and anywhere else."""
    p = write(tmp_path, """\
        players: 4
        seats: [{strategy: weights, params: %s}, greedy, counter, random]
        analyses: [strategies]
        tune:
          space:
            seats[0].params[3]: {float: [-2e0, 1E0]}
            seats[0].params[5]: {float: [-3.0e0, .5e-1]}
          objective: {maximize: "win_share[strategy=weights]"}
    """ % DEFAULT_WEIGHTS)
    spec = T.load_tune(p)
    assert [(d.lo, d.hi) for d in spec.dims] == [(-2.0, 1.0), (-3.0, 0.05)]
    numbers = write(tmp_path, "a: [1e9, -2e-3, 1_0e1, 7, 1.5, x1e9, '1e9']\n", "n.yaml")
    assert read_mapping(numbers, "n.yaml") == {"a": [1e9, -0.002, 100.0, 7, 1.5, "x1e9", "1e9"]}


def test_tune_writes_shares_as_the_run_reports_do(tmp_path, monkeypatch):
    """A share is a percentage on the trial lines, the closing line and in summary.md (its
    differences in pp), as in a run's report, not a fraction."""
    fake_win_shares(monkeypatch, lambda w: 0.25 + 0.01 * w[3], 0.012)
    p = weights_tune(tmp_path, "shares", "", trials=3, top=1)
    res = CliRunner().invoke(main, ["tune", str(p), "-w", "1"])
    assert res.exit_code == 0, res.output
    trial_lines = [ln for ln in res.output.splitlines() if ln.startswith("trial ")]
    assert len(trial_lines) == 3
    import re

    for ln in trial_lines:
        assert re.fullmatch(r"trial \d \(\d/3\): value \d+\.\d% \(best \d+\.\d%\) in "
                            r"\d+\.\d s", ln), ln
    assert re.search(r"winner: trial \d, value \d+\.\d%", res.output.splitlines()[-1])
    summary = (tmp_path / "reports" / "shares" / "summary.md").read_text()
    assert re.search(r": value \d+\.\d%", summary)
    row = next(ln for ln in summary.splitlines() if ln.startswith("| win_share"))
    assert re.fullmatch(r"\| win_share\[strategy=weights\] \| \d+\.\d% \[\d+\.\d, \d+\.\d\] "
                        r"\| \d+\.\d% \[\d+\.\d, \d+\.\d\] \| – \|", row), row
    assert re.search(r"Value, winner − baseline: -?\d+\.\d pp \(95% CI -?\d+\.\d to "
                     r"-?\d+\.\d\)", summary)
    assert "0.2" not in row
