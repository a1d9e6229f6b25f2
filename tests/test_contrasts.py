"""Baselines and contrasts, labels, paired deals, precision runs, the SPRT: values against
an independent computation from play_games, CI coverage, bad input."""
from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from fishing2sim.api import play_games
from fishing2sim.cli import main
from fishing2sim.contrasts import elo_to_score, independent, paired, Figure
from fishing2sim.experiment import ExperimentError, load_experiment
from fishing2sim.runner import run

Z = 1.959963984540054


def write(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{name}.yaml"
    p.write_text(f"name: {name}\noutput: {folder / 'reports'}\n" + textwrap.dedent(body))
    return p


def wilson(k, n):
    p = k / n
    den = 1 + Z * Z / n
    c = (p + Z * Z / (2 * n)) / den
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / den
    return p, c - h, c + h


def win_share(df: pd.DataFrame, players: int, seats) -> np.ndarray:
    """Per game: the summed win share (ties share) of the given seats, over their count."""
    pts = df[[f"points_{p}" for p in range(players)]].to_numpy()
    won = pts == pts.max(axis=1, keepdims=True)
    share = won / won.sum(axis=1, keepdims=True)
    return share[:, list(seats)].sum(axis=1) / len(seats)


def last_round_figures(df: pd.DataFrame, rounds: int = 8):
    over = (df.end_reason == "overfished").to_numpy()
    ocean = df[f"ocean_r{rounds}"].fillna(0).to_numpy()
    end = np.array([df[f"ocean_end_r{int(r)}"].iloc[i] for i, r in
                    enumerate(df.rounds_played)])
    empty = (end == 0) | over
    return over.astype(float), empty.astype(float), ocean.astype(float)


# ---- labels and baselines --------------------------------------------------------------------
DECKS = """
    players: [4, 5]
    games: 1500
    chunk: 500
    seed: 31
    seats: random
    sweep:
      deck.remove:
        - {value: [], label: standard deck, baseline: true}
        - {value: [blue 26, yellow 26], label: without blue 26 and yellow 26}
    analyses: [overfishing, depletion, strategies]
"""


def test_labels_and_a_baseline_per_player_count(tmp_path):
    exp = load_experiment(write(tmp_path, "decks", DECKS))
    names = [c.name for c in exp.conditions]
    assert names == ["4 players, standard deck", "4 players, without blue 26 and yellow 26",
                     "5 players, standard deck", "5 players, without blue 26 and yellow 26"]
    assert [c.baseline for c in exp.conditions] == [None, 0, None, 2]
    assert [c.is_baseline for c in exp.conditions] == [True, False, True, False]
    assert exp.conditions[1].labels == {"players": 4, "deck.remove": ["blue 26", "yellow 26"]}


def test_parameter_sweeps_are_named_by_param_names():
    exp = load_experiment(Path(__file__).resolve().parent.parent / "experiments" / "example.yaml")
    assert exp.conditions[0].name == "deck.remove_from_tier.5=0, sandbagger sandbag_fraction=0.3"


@pytest.fixture(scope="module")
def decks_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("decks")
    path = write(root, "decks", DECKS)
    res = run(path, workers=2, progress=False)
    return load_experiment(path), res, root / "reports" / "decks"


def test_independent_contrasts_match_play_games(decks_run):
    exp, res, out = decks_run
    con = pd.read_csv(out / "contrasts.csv")
    assert list(con.columns[:2]) == ["condition", "name"]
    for cond in exp.conditions:
        if cond.baseline is None:
            continue
        base = exp.conditions[cond.baseline]
        a = play_games(1500, cond.players, seed=cond.seed, deck=cond.deck)
        b = play_games(1500, base.players, seed=base.seed, deck=base.deck)
        oa, ea, la = last_round_figures(a)
        ob, eb, lb = last_round_figures(b)
        rows = con[con.condition == cond.index].set_index("figure")
        assert set(rows.players) == {cond.players}
        for fig, xa, xb in (("overfishing", oa, ob), ("ocean_empty", ea, eb)):
            r = rows.loc[fig]
            assert r.method == "independent" and r.baseline == base.index
            pa, la_, ha = wilson(xa.sum(), 1500)
            pb, lb_, hb = wilson(xb.sum(), 1500)
            d = pa - pb
            assert r.difference == pytest.approx(d, rel=1e-8, abs=1e-10)
            assert r.diff_ci_low == pytest.approx(
                d - math.sqrt((pa - la_) ** 2 + (hb - pb) ** 2), rel=1e-8, abs=1e-10)
            assert r.diff_ci_high == pytest.approx(
                d + math.sqrt((ha - pa) ** 2 + (pb - lb_) ** 2), rel=1e-8, abs=1e-10)
            assert r.ratio == pytest.approx(pa / pb, rel=1e-8)
            se = math.sqrt(1 / xa.sum() - 1 / 1500 + 1 / xb.sum() - 1 / 1500)
            assert r.ratio_ci_low == pytest.approx(pa / pb * math.exp(-Z * se), rel=1e-8)
        r = rows.loc["ocean_left"]
        d = la.mean() - lb.mean()
        se = math.sqrt(la.var(ddof=1) / 1500 + lb.var(ddof=1) / 1500)
        assert r.difference == pytest.approx(d, rel=1e-8, abs=1e-10)
        assert (r.diff_ci_high - r.diff_ci_low) / 2 == pytest.approx(Z * se, rel=1e-6)
    # the summary leads with the contrasts in words; the plot is there
    md = (out / "summary.md").read_text()
    lead = md.split("## What was run")[0]
    assert "## In short" in lead
    assert "**5 players, without blue 26 and yellow 26** against **5 players, standard deck** " \
           "raises overfishing by" in lead
    assert (out / "contrasts.png").is_file() and "![Contrasts against the baseline]" in md


PAIRED = """
    players: 4
    games: 1200
    chunk: 400
    seed: 41
    paired: true
    sweep:
      seats:
        - {value: random, label: all random, baseline: true}
        - {value: [greedy, random, random, random], label: greedy in seat 0}
    analyses: [overfishing, depletion, strategies]
"""


def test_paired_contrasts_match_play_games(tmp_path):
    path = write(tmp_path, "pairs", PAIRED)
    exp = load_experiment(path)
    a_c, b_c = exp.conditions[1], exp.conditions[0]
    assert a_c.seed == b_c.seed and a_c.paired and b_c.paired
    run(path, workers=2, progress=False)
    con = pd.read_csv(tmp_path / "reports" / "pairs" / "contrasts.csv")
    a = play_games(1200, 4, seed=a_c.seed, strategies=list(a_c.lineup))
    b = play_games(1200, 4, seed=b_c.seed, strategies=list(b_c.lineup))
    # the same deals: the first draws of round 1 match card for card
    assert (a.ocean_r1 == b.ocean_r1).all()
    oa, ea, la = last_round_figures(a)
    ob, eb, lb = last_round_figures(b)
    rows = con.set_index(["figure", con.strategy.fillna("")])
    for fig, xa, xb in (("overfishing", oa, ob), ("ocean_empty", ea, eb),
                        ("ocean_left", la, lb),
                        ("win_share", win_share(a, 4, [1, 2, 3]), win_share(b, 4, [0, 1, 2, 3]))):
        r = rows.loc[(fig, "random" if fig == "win_share" else "")]
        d = xa - xb
        assert r.method == "paired"
        assert r.difference == pytest.approx(d.mean(), rel=1e-8, abs=1e-10)
        half = Z * d.std(ddof=1) / math.sqrt(d.size)
        assert r.diff_ci_low == pytest.approx(d.mean() - half, rel=1e-8, abs=1e-10)
        assert r.diff_ci_high == pytest.approx(d.mean() + half, rel=1e-8, abs=1e-10)
    md = (tmp_path / "reports" / "pairs" / "summary.md").read_text()
    assert "(paired)" in md and "play the same deals" in md


def test_paired_cis_cover_at_the_stated_rate():
    """2,000 replications of 400 correlated pairs (rates 0.30 and 0.36, correlation about
    0.5): the paired 95% CI of the difference covers the true 0.06 in 93-97% of them and is
    narrower than the independent one, which ignores the correlation (it over-covers); on
    independent samples the independent CI covers in 93-97%."""
    rng = np.random.default_rng(7)
    reps, n = 2000, 400
    cover = cover_ind = cover_corr = 0
    widths = []
    for _ in range(reps):
        u = rng.random(n)
        shared = rng.random(n) < 0.5
        v = np.where(shared, u, rng.random(n))
        x = (v < 0.36).astype(float)
        y = (u < 0.30).astype(float)
        d, lo, hi, *_ = paired(x, y)
        cover += lo <= 0.06 <= hi
        fa = Figure(*_w(x.sum(), n), n, "rate", k=x.sum())
        fb = Figure(*_w(y.sum(), n), n, "rate", k=y.sum())
        _, ilo, ihi, *_ = independent(fa, fb)
        cover_corr += ilo <= 0.06 <= ihi
        widths.append((hi - lo) / (ihi - ilo))
        z = (rng.random(n) < 0.36).astype(float)  # independent of y
        fz = Figure(*_w(z.sum(), n), n, "rate", k=z.sum())
        _, ilo, ihi, *_ = independent(fz, fb)
        cover_ind += ilo <= 0.06 <= ihi
    assert 0.93 <= cover / reps <= 0.97
    assert 0.93 <= cover_ind / reps <= 0.97
    assert cover_corr / reps > 0.97
    assert np.mean(widths) < 0.85


def _w(k, n):
    return wilson(k, n)


# ---- precision --------------------------------------------------------------------------------
PRECISE = """
    players: 4
    games: 1000
    chunk: 500
    seed: 9
    precision: {overfishing: 1pp}
    max_games: 20000
    analyses: [overfishing]
"""


def test_precision_stops_at_the_right_chunk_for_any_worker_count(tmp_path):
    one = run(write(tmp_path / "a", "p", PRECISE), workers=1, progress=False)
    two = run(write(tmp_path / "b", "p", PRECISE), workers=2, progress=False)
    assert one.meta["stages"] == two.meta["stages"] == [[1000], [3500]]
    for name in ("overfishing.csv",):
        assert (tmp_path / "a/reports/p" / name).read_bytes() == \
            (tmp_path / "b/reports/p" / name).read_bytes()
    # independently: at 1,000 games the half-width is above 1pp, at 3,500 at or below
    g = play_games(3500, 4, seed=load_experiment(tmp_path / "a/p.yaml").conditions[0].seed)
    over = (g.end_reason == "overfished").to_numpy()
    for n, above in ((1000, True), (3500, False)):
        _, lo, hi = wilson(over[:n].sum(), n)
        assert ((hi - lo) / 2 > 0.01) == above
    info = one.meta["adaptive"][0]
    assert info["games"] == 3500 and info["precision"]["overfishing"]["reached"]
    md = (tmp_path / "a/reports/p/summary.md").read_text()
    assert "overfishing ±0.94pp (reached; wanted 1pp)" in md
    df = pd.read_csv(tmp_path / "a/reports/p/overfishing.csv")
    assert df[df.metric == "overfished_share"].n.iloc[0] == 3500


def test_precision_stops_at_max_games(tmp_path):
    res = run(write(tmp_path, "cap", PRECISE.replace("1pp", "0.2pp").replace("20000", "3000")),
              workers=1, progress=False)
    assert res.meta["stages"][-1] == [3000]
    assert res.meta["adaptive"][0]["capped"]
    md = (tmp_path / "reports/cap/summary.md").read_text()
    assert "not reached; wanted 0.2pp) — stopped at max_games" in md


def test_sprt_matches_an_independent_computation(tmp_path):
    path = write(tmp_path, "sprt", """
        players: 4
        games: 600
        chunk: 300
        seed: 11
        seats: [greedy, random, random, random]
        sprt: {better: greedy, than: random, elo0: 0, elo1: 20}
        max_games: 6000
        analyses: [strategies]
    """)
    res = run(path, workers=1, progress=False)
    st = res.meta["adaptive"][0]["sprt"]
    games = res.meta["stages"][-1][0]
    g = play_games(games, 4, seed=load_experiment(path).conditions[0].seed,
                   strategies=["greedy", "random", "random", "random"])
    x = 0.5 + (win_share(g, 4, [0]) - win_share(g, 4, [1, 2, 3])) / 2
    s0, s1 = elo_to_score(0), elo_to_score(20)
    var = x.var()
    llr = x.size * (s1 - s0) * (2 * x.mean() - s0 - s1) / (2 * var)
    assert st["llr"] == pytest.approx(llr, rel=1e-8)
    assert st["decision"] == "H1" and llr >= math.log(0.95 / 0.05)
    md = (tmp_path / "reports/sprt/summary.md").read_text()
    assert "SPRT shown better (H1)" in md


# ---- bad input: one line, exit 2, nothing written ---------------------------------------------
@pytest.mark.parametrize("body, where", [
    ("sweep:\n  players:\n    - {value: 4, label: 7}\n    - 5\n",
     "sweep.players[0].label: expected a name (text), got 7"),
    ("sweep:\n  players:\n    - {value: 4, label: a}\n    - {value: 5, label: a}\n",
     "sweep.players[1].label: label 'a' given twice"),
    ("sweep:\n  players:\n    - {value: 4, baseline: true}\n    - {value: 5, baseline: true}\n",
     "sweep.players[1].baseline: a second baseline (the first is sweep.players[0])"),
    ("sweep:\n  players:\n    - {value: 4, baseline: yes please}\n    - 5\n",
     "sweep.players[0].baseline: expected true or false"),
    ("sweep:\n  players:\n    - {label: four}\n    - 5\n",
     "sweep.players[0]: a labelled sweep value needs the key 'value'"),
    ("precision: {overfishng: 1pp}\n",
     "precision.overfishng: unknown figure (did you mean 'overfishing'?)"),
    ("precision: {overfishing: 1 points}\n",
     "precision.overfishing: expected a 95% CI half-width in pp such as 0.5pp, got '1 points'"),
    ("precision: {trump_value: 0.1pp}\nanalyses: [trump_value]\n",
     "precision.trump_value: expected a 95% CI half-width in points"),
    ("precision: {trump_value: 0.1 points}\nanalyses: [overfishing]\n",
     "precision.trump_value: needs the trump_value analysis"),
    ("max_games: 1000\n", "max_games: only with precision or sprt"),
    ("sprt: {better: greedy, than: random}\n",
     "sprt.better: strategy 'greedy' is not in the lineup of condition 0"),
    ("paired: sometimes\n", "paired: expected true or false"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, body, where):
    path = write(tmp_path, "bad", "games: 100\n" + body)
    with pytest.raises(ExperimentError, match=None) as e:
        load_experiment(path)
    assert str(e.value) == f"{path}: {where}" or str(e.value).startswith(f"{path}: {where}")
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert res.exit_code == 2
    assert res.output.count("\n") == 1 and "Traceback" not in res.output
    assert where in res.output
    assert not (tmp_path / "reports").exists()


@pytest.mark.slow
def test_paired_cis_cover_at_the_stated_rate_on_real_games():
    """500 replications of 200 paired real games (greedy against random in seat 0, the
    same deals): the paired 95% CI of the difference in seat 0's win share covers the
    difference over all 100,000 pairs in 93-97% of the replications (±2 standard errors of
    a coverage of 95% over 500 replications)."""
    reps, n = 500, 200
    a = play_games(reps * n, 4, seed=77, strategies=["greedy", "random", "random", "random"])
    b = play_games(reps * n, 4, seed=77, strategies="random")
    x, y = win_share(a, 4, [0]), win_share(b, 4, [0])
    truth = (x - y).mean()
    cover = 0
    for i in range(reps):
        s = slice(i * n, (i + 1) * n)
        _, lo, hi, *_ = paired(x[s], y[s], rate=False)
        cover += lo <= truth <= hi
    assert 0.93 <= cover / reps <= 0.97
