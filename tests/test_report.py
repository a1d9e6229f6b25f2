"""The experiment report: files, deterministic CSVs, summary contents, atomic replacement."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml

from fishing2sim.report import trump as trump_section
from fishing2sim.report import write as report

GAMES = 2000


def _cond(index, players, labels):
    lineup = ("greedy",) + ("random",) * (players - 1)
    return SimpleNamespace(index=index, labels=labels, players=players,
                           deck_sha256=f"{index:02d}" + "ab" * 31, lineup=lineup, name="",
                           rotate=False, baseline=None, is_baseline=False, games=GAMES,
                           deck=SimpleNamespace(ruleset="fishing2"), identities=())


def _exp(root: Path, sweep: bool = True, name: str = "trump"):
    if sweep:
        conds = (_cond(0, 3, {"players": 3}), _cond(1, 4, {"players": 4}))
    else:
        conds = (_cond(0, 4, {}),)
    return SimpleNamespace(
        name=name, output_dir=root / "reports" / name, seed=7, config_hash="cafe1234",
        resolved={"name": name, "ruleset": "fishing2", "games": GAMES, "seed": 7,
                  "sweep": {"players": [3, 4]} if sweep else {}},
        conditions=conds,
        analyses=("depletion", "overfishing", "trump_value", "strategies"),
        ruleset="fishing2", paired=False, multiplicity="holm", precision=(), sprt=None,
        ladder=None,
    )


def _row(cond, labels, keys, metric, n, est, half=None):
    lo, hi = (np.nan, np.nan) if half is None else (est - half, est + half)
    return {"condition": cond, **labels, **keys, "metric": metric, "n": n, "estimate": est,
            "ci_low": lo, "ci_high": hi}


def _tables(exp, shuffle_seed=0):
    rng = np.random.default_rng(123)  # values fixed; only the row order varies with shuffle_seed
    dep, ovf, trump, strat, scores = [], [], [], [], []
    for c in exp.conditions:
        lab = dict(c.labels)
        for r in range(1, 9):
            k = {"round": r, "tier": pd.NA}
            mean = max(0.0, 60 - 8.1 * r + rng.normal())
            dep.append(_row(c.index, lab, k, "ocean_after_draws_mean", GAMES, mean, 0.1 + rng.random() / 3))
            dep.append(_row(c.index, lab, k, "ocean_after_draws_p05", GAMES, max(0, mean - 5)))
            dep.append(_row(c.index, lab, k, "ocean_after_draws_p95", GAMES, mean + 5))
            dep.append(_row(c.index, lab, k, "ocean_empty_share", GAMES, min(1, r / 9), 0.02))
            dep.append(_row(c.index, lab, k, "round_reached_share", GAMES, 1 - r / 40, 0.01))
            ovf.append(_row(c.index, lab, {"round": r}, "overfished_in_round_share", GAMES,
                            0.01 * r, 0.004))
            if r >= 2:
                trump.append(_row(c.index, lab, {"round": r}, "policy_gain_points", 500, 0.3 + rng.normal() / 10, 0.2))
                trump.append(_row(c.index, lab, {"round": r}, "stakes_points", 500, 2.5 / np.sqrt(r), 0.4))
                trump.append(_row(c.index, lab, {"round": r}, "policy_gain_win", 500, 0.01, 0.005))
                trump.append(_row(c.index, lab, {"round": r}, "stakes_win", 500, 0.08, 0.01))
                trump.append(_row(c.index, lab, {"round": r}, "light_chosen_share", 500, 0.5, 0.04))
        for t in range(1, 6):  # overall rows, as the analysis writes them
            dep.append(_row(c.index, lab, {"round": pd.NA, "tier": t}, "tier_reached_share",
                            GAMES, min(1.0, 5 / (t + 1)), 0.01))
        k = {"round": pd.NA}
        ovf.append(_row(c.index, lab, k, "overfished_share", GAMES, 0.1 + c.index / 20, 0.013))
        ovf.append(_row(c.index, lab, k, "overfished_by_draw_1_card_share", GAMES, 0.02, 0.006))
        ovf.append(_row(c.index, lab, k, "mean_rounds_played", GAMES, 7.6, 0.05))
        for s, w in (("greedy", 0.4), ("random", 0.6 / (c.players - 1))):
            k = {"strategy": s, "seat": pd.NA}
            strat.append(_row(c.index, lab, k, "win_share", GAMES, w, 0.02))
            strat.append(_row(c.index, lab, k, "mean_points", GAMES, 80 + 10 * w, 0.5))
            for pts in (70, 80, 90):
                scores.append({"condition": c.index, **lab, "strategy": s, "points": pts,
                               "count": int(rng.integers(1, 500))})
        for seat in range(c.players):
            strat.append(_row(c.index, lab, {"strategy": pd.NA, "seat": seat}, "win_share",
                              GAMES, 1 / c.players, 0.02))
        k = {"strategy": pd.NA, "seat": pd.NA}
        for m, v in (("points_spread_mean", 21.5), ("first_leader_win_share", 0.27),
                     ("completed_share", 0.88), ("overfished_share", 0.12)):
            strat.append(_row(c.index, lab, k, m, GAMES, v, 0.02))

    def frame(rows, ints):
        df = pd.DataFrame(rows)
        for col in ints:
            df[col] = df[col].astype("Int64")
        perm = np.random.default_rng(shuffle_seed).permutation(len(df))
        return df.iloc[perm].reset_index(drop=True)

    tables = {
        "depletion": frame(dep, ["round", "tier"]),
        "overfishing": frame(ovf, ["round"]),
        "trump_value": frame(trump, ["round"]),
        "strategies": frame(strat, ["seat"]),
        "scores": frame(scores, []),
    }
    # as the runner writes it: games per condition is a list in condition order
    k = len(exp.conditions)
    meta = {"games_per_condition": [GAMES] * k, "games": GAMES * k, "elapsed_s": 3.2,
            "games_per_second": 1250.0, "workers": 2, "package_version": "0.1.0"}
    return SimpleNamespace(tables=tables, meta=meta)


@pytest.fixture
def fast_plots(monkeypatch):
    """Build every figure but skip the slow layout and PNG encoding."""
    monkeypatch.setattr(report, "_save_figure", lambda fig, path: path.write_bytes(b"png"))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("rep")
    exp = _exp(root)
    out = report.write_report(exp, _tables(exp))
    return exp, out


def test_files_exist(written):
    exp, out = written
    assert out == exp.output_dir and out.is_dir()
    names = {p.name for p in out.iterdir()}
    assert names == {"depletion.csv", "overfishing.csv", "trump_value.csv", "strategies.csv",
                     "scores.csv", "depletion.png", "overfishing.png", "trump_value.png",
                     "win_shares.png", "scores.png", "summary.md", "config.yaml", "report.html",
                     ".fishing2sim-report"}
    for png in out.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # nothing left beside the report
    assert [p.name for p in out.parent.iterdir()] == [exp.name]


def test_csv_columns_and_order(written):
    exp, out = written
    stats = ["metric", "n", "estimate", "ci_low", "ci_high"]
    expected = {
        "depletion": ["condition", "players", "round", "tier", *stats],
        "overfishing": ["condition", "players", "round", *stats],
        "trump_value": ["condition", "players", "round", *stats],
        "strategies": ["condition", "players", "strategy", "seat", *stats],
        "scores": ["condition", "players", "strategy", "points", "count"],
    }
    for name, cols in expected.items():
        df = pd.read_csv(out / f"{name}.csv")
        assert list(df.columns) == cols, name
        keys = [c for c in cols if c in ("condition", "round", "tier", "strategy", "seat",
                                         "points", "metric")]
        again = df.sort_values(keys, kind="mergesort", na_position="first")
        assert list(again.index) == list(range(len(df))), f"{name} rows not sorted"
    dep = pd.read_csv(out / "depletion.csv")
    assert len(dep) == 2 * (8 * 5 + 5)


def test_csv_byte_identical_across_writes(tmp_path, fast_plots):
    exp = _exp(tmp_path)
    report.write_report(exp, _tables(exp, shuffle_seed=1))
    first = {p.name: p.read_bytes() for p in exp.output_dir.glob("*.csv")}
    report.write_report(exp, _tables(exp, shuffle_seed=2))  # same results, other row order
    second = {p.name: p.read_bytes() for p in exp.output_dir.glob("*.csv")}
    assert first == second and len(first) == 5
    assert b"\r\n" not in first["depletion.csv"]


def test_summary_contents(written):
    exp, out = written
    md = (out / "summary.md").read_text()
    assert md.startswith(f"# {exp.name}\n")
    for png in ("depletion.png", "overfishing.png", "trump_value.png", "win_shares.png"):
        assert f"]({png})" in md
    for s in ("fishing2", "Seed: 7", "2,000", "greedy, random, random", "players=3",
              "players=4", "3.2 s", "1,250 games/s", "n = ", "95% CI", "at most ±",
              "overfished share", "policy gain", "half the typical points gap", "win share",
              "stakes_half_points", "## Terms"):
        assert s in md, s
    # overfished share of condition 1 (players=4) with its CI, as a percentage, in the table
    # and in the text (with its n)
    assert "| players=4 | 2,000 | 15.0% [13.7, 16.3] |" in md
    assert "15.0% of games (95% CI 13.7–16.3%, n = 2,000) end by overfishing" in md
    assert "matters most in round" not in md and "stakes/2" not in md
    # every section opens with its plain answer before the definitions
    ovf = md.split("## Overfishing\n\n", 1)[1]
    assert ovf.startswith("Games that end early because the ocean runs out: 10%")


def test_config_yaml(written):
    exp, out = written
    cfg = yaml.safe_load((out / "config.yaml").read_text())
    assert cfg["ruleset"] == "fishing2" and cfg["seed"] == 7
    assert cfg["config_hash"] == "cafe1234"
    assert cfg["package_version"] == report._package_version()
    assert [c["deck_sha256"] for c in cfg["conditions"]] == [c.deck_sha256 for c in exp.conditions]


def test_no_sweep_and_missing_tables(tmp_path):
    exp = _exp(tmp_path, sweep=False)
    res = _tables(exp)
    del res.tables["trump_value"]
    out = report.write_report(exp, res)
    names = {p.name for p in out.iterdir()}
    assert "trump_value.png" not in names and "trump_value.csv" not in names
    assert "overfishing.png" in names
    df = pd.read_csv(out / "overfishing.csv")
    assert list(df.columns)[:2] == ["condition", "round"]
    md = (out / "summary.md").read_text()
    assert "By round:" in md and "No results for this analysis." in md


def test_failure_keeps_old_report(tmp_path, monkeypatch, fast_plots):
    exp = _exp(tmp_path)
    report.write_report(exp, _tables(exp))
    before = {p.name: p.read_bytes() for p in exp.output_dir.iterdir()}

    def boom(*a, **k):
        raise RuntimeError("plot failed")

    monkeypatch.setattr(trump_section, "plot", boom)
    with pytest.raises(RuntimeError, match="plot failed"):
        report.write_report(exp, _tables(exp))
    after = {p.name: p.read_bytes() for p in exp.output_dir.iterdir()}
    assert after == before
    assert sorted(p.name for p in exp.output_dir.parent.iterdir()) == [exp.name]


def test_failure_leaves_no_report(tmp_path, monkeypatch, fast_plots):
    exp = _exp(tmp_path)

    def boom(*a, **k):
        raise RuntimeError("summary failed")

    monkeypatch.setattr(report, "_summary", boom)
    with pytest.raises(RuntimeError):
        report.write_report(exp, _tables(exp))
    assert not exp.output_dir.exists()
    assert list(exp.output_dir.parent.iterdir()) == []
    assert not any(n.startswith(".") for n in os.listdir(exp.output_dir.parent))
