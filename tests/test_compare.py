"""`fishing2sim compare DIR_A DIR_B`: the contrasts of two report folders' shared headline
figures, independent intervals, refusing folders that played the same deals."""
from __future__ import annotations

import math
import os
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.compare import COLUMNS
from fishing2sim.study import run
from fishing2sim.analysis.stats import t_quantile


def experiment(root: Path, name: str, seed: int, seats: str = "greedy", **extra) -> Path:
    p = root / f"{name}.yaml"
    body = dict(players="[4, 5]", games=400, seed=seed, seats=seats,
                analyses="[overfishing, depletion, strategies]")
    body.update(extra)
    p.write_text(f"name: {name}\noutput: {root / 'reports'}\n"
                 + "".join(f"{k}: {v}\n" for k, v in body.items()))
    run(p, workers=1, progress=False)
    return root / "reports" / name


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    return (experiment(root, "a", 1), experiment(root, "b", 2),
            experiment(root, "same_deals", 1, seats="random"), root)


def test_compare_gives_independent_contrasts_of_the_shared_figures(folders, tmp_path):
    a, b, _, _ = folders
    out = tmp_path / "c.csv"
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--csv", str(out)])
    assert res.exit_code == 0, res.output
    df = pd.read_csv(out)
    assert list(df.columns) == COLUMNS
    assert set(df["condition"]) == {"4 players", "5 players"}
    assert set(df["figure"]) == {"overfishing", "ocean_empty", "ocean_left", "win_share"}
    lines = res.output.splitlines()
    assert lines[0].split() == ["condition", "figure", "A", "B", "A", "−", "B", "[95%",
                                "CI]", "ratio", "[95%", "CI]"]
    assert len(lines) == 2 + len(df)
    ov = pd.read_csv(a / "overfishing.csv")
    ovb = pd.read_csv(b / "overfishing.csv")
    for cond, players in ((0, "4 players"), (1, "5 players")):
        r = df[(df["condition"] == players) & (df["figure"] == "overfishing")].iloc[0]
        x = ov[(ov["condition"] == cond) & (ov["metric"] == "overfished_share")].iloc[0]
        y = ovb[(ovb["condition"] == cond) & (ovb["metric"] == "overfished_share")].iloc[0]
        d = x["estimate"] - y["estimate"]
        # Newcombe's interval from the two Wilson intervals of the CSVs
        lo = d - math.hypot(x["estimate"] - x["ci_low"], y["ci_high"] - y["estimate"])
        hi = d + math.hypot(x["ci_high"] - x["estimate"], y["estimate"] - y["ci_low"])
        assert r["difference"] == pytest.approx(d)
        assert (r["diff_ci_low"], r["diff_ci_high"]) == pytest.approx((lo, hi))
        assert r["n_a"] == x["n"] == 400 and r["n_b"] == y["n"]
        assert f"{100 * d:.1f}" in next(ln for ln in lines if ln.startswith(players)
                                        and " overfishing " in ln)
    dep, depb = pd.read_csv(a / "depletion.csv"), pd.read_csv(b / "depletion.csv")
    r = df[(df["condition"] == "4 players") & (df["figure"] == "ocean_left")].iloc[0]
    pick = (lambda t: t[(t["condition"] == 0) & (t["metric"] == "ocean_after_draws_mean_all")
                        & (t["round"] == t["round"].max())].iloc[0])
    x, y = pick(dep), pick(depb)
    # each CSV CI is t on n − 1 degrees of freedom; the difference's is Welch's t
    sa = (x["ci_high"] - x["ci_low"]) / 2 / t_quantile(x["n"] - 1)
    sb = (y["ci_high"] - y["ci_low"]) / 2 / t_quantile(y["n"] - 1)
    df = (sa ** 2 + sb ** 2) ** 2 / (sa ** 4 / (x["n"] - 1) + sb ** 4 / (y["n"] - 1))
    assert r["difference"] == pytest.approx(x["estimate"] - y["estimate"])
    assert r["diff_ci_high"] - r["diff_ci_low"] == pytest.approx(
        2 * t_quantile(df) * math.hypot(sa, sb))
    assert r["unit"] == "cards" and math.isnan(r["ratio"])


def test_one_condition_each_is_matched_by_position(tmp_path):
    """... and of different player counts only when told: a 4-player and a 5-player report
    measure different games."""
    a = experiment(tmp_path, "one_a", 5, players=4, games=300)
    b = experiment(tmp_path, "one_b", 6, players=5, games=300, seats="random")
    res = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1, res.output
    assert (f"{a} and {b}: condition 'all games' of A has players 4 and condition "
            "'all games' of B players 5") in res.output
    assert "--allow-different-setup" in res.output
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--allow-different-setup"])
    assert res.exit_code == 0, res.output
    assert "all games" in res.output and "win_share greedy" not in res.output


def copy_folder(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True)
    for f in src.iterdir():
        if f.is_file():
            (dst / f.name).write_bytes(f.read_bytes())
    return dst


def files_of(*folders) -> dict:
    return {f: f.read_bytes() for d in folders for f in sorted(d.iterdir()) if f.is_file()}


def test_reports_of_different_rulesets_are_refused_unless_told(folders, tmp_path):
    a, b, _, _ = folders
    other = copy_folder(b, tmp_path / "fishing")
    cfg = other / "config.yaml"
    assert "ruleset: fishing2\n" in cfg.read_text()
    cfg.write_text(cfg.read_text().replace("ruleset: fishing2\n", "ruleset: fishing\n"))
    res = CliRunner().invoke(main, ["compare", str(a), str(other)])
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1, res.output
    assert "of A has ruleset fishing2 and condition '4 players' of B ruleset fishing" \
        in res.output
    res = CliRunner().invoke(main, ["compare", str(a), str(other), "--allow-different-setup"])
    assert res.exit_code == 0, res.output


# (column, value written into the row of 4-player overfishing, the message's end)
DOCTORED = [
    ("n", "nan", "column n: nan is not a whole number of games from 1 to 10,000,000,000,000"),
    ("n", "inf", "column n: inf is not a whole number of games"),
    ("n", "0", "column n: 0 is not a whole number of games"),
    ("n", "-400", "column n: -400 is not a whole number of games"),
    ("n", "1e300", "column n: 1e+300 is not a whole number of games"),
    ("n", "400.5", "column n: 400.5 is not a whole number of games"),
    ("estimate", "nan", "column estimate: nan is not a finite number"),
    ("estimate", "inf", "column estimate: inf is not a finite number"),
    ("ci_high", "-inf", "column ci_high: -inf is not a finite number"),
    ("ci_low", "abc", "column ci_low: nan is not a finite number"),
    ("estimate", "1.5", "column estimate: 1.5 is outside [0, 1], the range of overfishing"),
    ("estimate", "0.9", "column estimate: 0.9 lies outside its 95% CI"),
]


@pytest.mark.parametrize("column, value, message", DOCTORED)
def test_a_doctored_value_is_one_line_naming_file_line_and_column(folders, tmp_path, column,
                                                                  value, message):
    a, b, _, _ = folders
    doctored = copy_folder(b, tmp_path / "doctored")
    table = doctored / "overfishing.csv"
    df = pd.read_csv(table, dtype=str, keep_default_na=False)
    row = df.index[(df["condition"] == "0") & (df["metric"] == "overfished_share")
                   & (df["round"] == "")][0]
    df.loc[row, column] = value
    table.write_text(df.to_csv(index=False, lineterminator="\n"))
    before = files_of(a, doctored)
    out = tmp_path / "c.csv"
    res = CliRunner().invoke(main, ["compare", str(a), str(doctored), "--csv", str(out)])
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output
    assert f"{table}: line {row + 2} (overfished_share of condition 0), {message}" \
        in res.output, res.output
    assert not out.exists() and files_of(a, doctored) == before


def test_the_table_is_never_written_into_a_report_folder(folders, tmp_path):
    a, b, _, _ = folders
    before = files_of(a, b)
    for target in (a / "overfishing.csv", b / "new.csv", a / "sub" / ".." / "summary.md"):
        res = CliRunner().invoke(main, ["compare", str(a), str(b), "--csv", str(target)])
        assert res.exit_code == 2, res.output
        assert len(res.output.strip().splitlines()) == 1, res.output
        assert f"--csv {target}: inside the report folder" in res.output
    assert files_of(a, b) == before and not (b / "new.csv").exists()


def test_folders_with_the_same_deals_are_refused(folders, tmp_path):
    a, _, same, _ = folders
    out = tmp_path / "c.csv"
    for other in (same, a):  # the same seed, players and decks (and a folder with itself)
        res = CliRunner().invoke(main, ["compare", str(a), str(other), "--csv", str(out)])
        assert res.exit_code == 2, res.output
        assert len(res.output.strip().splitlines()) == 1
        assert "played the same deals (seed 1, condition '4 players'" in res.output
        assert "run both as conditions of one experiment with paired: true" in res.output
    assert not out.exists()


def test_bad_folders_are_one_line_exit_2_nothing_written(folders, tmp_path):
    a, b, _, root = folders
    out = tmp_path / "c.csv"
    empty = tmp_path / "empty"
    empty.mkdir()
    linked = tmp_path / "linked"
    linked.mkdir()
    for f in a.iterdir():
        if f.name != "overfishing.csv":
            (linked / f.name).write_bytes(f.read_bytes())
    os.symlink(a / "overfishing.csv", linked / "overfishing.csv")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.yaml").write_text("seed: [1\n")
    fifo = tmp_path / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / "config.yaml")
    other = tmp_path / "other"  # no condition name in common
    other.mkdir()
    (other / "config.yaml").write_text(textwrap.dedent("""\
        seed: 9
        conditions:
        - {index: 0, name: x, players: 4, deck_sha256: abc, games: 10}
        - {index: 1, name: y, players: 5, deck_sha256: abc, games: 10}
    """))
    (other / "overfishing.csv").write_text("condition,metric,n,estimate,ci_low,ci_high\n")
    cases = [
        (tmp_path / "missing", "no such report folder"),
        (empty, "not a report folder (no config.yaml"),
        (linked, "symbolic link"),
        (broken, "not a report's config.yaml"),
        (fifo, "config.yaml"),
        (other, "no condition name in common"),
    ]
    for folder, msg in cases:
        res = CliRunner().invoke(main, ["compare", str(a), str(folder), "--csv", str(out)])
        assert res.exit_code == 2, (folder, res.output)
        assert len(res.output.strip().splitlines()) == 1, res.output
        assert msg in res.output and "Traceback" not in res.output, (msg, res.output)
    assert not out.exists()
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--csv", str(tmp_path)])
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1
