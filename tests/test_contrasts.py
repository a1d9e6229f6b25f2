"""Baselines and contrasts, labels, paired deals, precision runs, the SPRT: values against
an independent computation from play_games, CI coverage, bad input."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import write_experiment as write
from click.testing import CliRunner

from fishing2sim.api import play_games
from fishing2sim.cli import main
from fishing2sim.analysis.contrasts import elo_to_score, independent, paired, paired_ratio, Figure
from fishing2sim.analysis.stats import crit, t_quantile
from fishing2sim.config.experiment import ExperimentError, load_experiment
from fishing2sim.study import run
from fishing2sim.engine.batch import T_CHOOSER, T_D1_POINTS, T_D2_POINTS

Z = 1.959963984540054


def welch_t(va: float, na: int, vb: float, nb: int) -> float:
    """The t quantile of a difference of two independent means (Welch-Satterthwaite's
    degrees of freedom from the variances of the means va, vb and the sizes na, nb)."""
    from fishing2sim.analysis.stats import t_quantile

    return t_quantile((va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1)))


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


def test_deck_contrasts_are_paired_and_match_play_games(decks_run):
    """A deck edit plays its baseline's deals with the edit (the coupled deal, the same
    seed): its contrasts are paired, the t interval of the per-game differences, on the
    games play_games plays with each deck."""
    exp, res, out = decks_run
    con = pd.read_csv(out / "contrasts.csv")
    assert list(con.columns[:2]) == ["condition", "name"]
    for cond in exp.conditions:
        if cond.baseline is None:
            continue
        base = exp.conditions[cond.baseline]
        assert cond.paired and base.paired and cond.seed == base.seed
        a = play_games(1500, cond.players, seed=cond.seed, deck=cond.deck)
        b = play_games(1500, base.players, seed=base.seed, deck=base.deck)
        rows = con[con.condition == cond.index].set_index("figure")
        assert set(rows.players) == {cond.players}
        for fig, xa, xb in zip(("overfishing", "ocean_empty", "ocean_left"),
                               last_round_figures(a), last_round_figures(b)):
            r = rows.loc[fig]
            assert r.method == "paired" and r.baseline == base.index
            d = xa - xb
            half = crit(1499) * d.std(ddof=1) / math.sqrt(1500)
            assert r.difference == pytest.approx(d.mean(), rel=1e-8, abs=1e-10)
            assert (r.diff_ci_high - r.diff_ci_low) / 2 == pytest.approx(half, rel=1e-6)
    # the summary leads with the contrasts in words; the plot is there
    md = (out / "summary.md").read_text()
    lead = md.split("## What was run")[0]
    assert "## In short" in lead
    # the verdict words follow the Holm-adjusted p of the report's family of contrasts
    r = con[(con["name"] == "5 players, without blue 26 and yellow 26")
            & (con["figure"] == "overfishing")].iloc[0]
    assert r.diff_ci_low > 0  # alone, its CI excludes 0
    verdict = "raises overfishing by" if r.p_adjusted < 0.05 else \
        "has no measurable effect on overfishing once the report's"
    assert "**5 players, without blue 26 and yellow 26** against **5 players, standard deck** " \
           + verdict in lead
    assert (out / "contrasts.png").is_file() and "![Contrasts against the baseline]" in md


# ---- explicit conditions, each with a label ----------------------------------------------------
DECK_CONDITIONS = """
    players: [4, 5]
    games: 1500
    chunk: 500
    seed: 31
    seats: random
    conditions:
      - {label: standard deck, baseline: true, deck.remove: []}
      - label: without blue 26 and yellow 26
        deck.remove: [blue 26, yellow 26]
    analyses: [overfishing, depletion, strategies]
"""


def test_explicit_conditions_are_the_conditions_of_the_same_sweep(tmp_path):
    """The conditions: list of DECK_CONDITIONS is the sweep of DECKS written per condition:
    the same names, decks, seeds and baselines; the labels hold the condition's name under
    ``conditions`` and the key paths it sets."""
    a = load_experiment(write(tmp_path, "c", DECK_CONDITIONS))
    b = load_experiment(write(tmp_path, "s", DECKS))
    for x, y in zip(a.conditions, b.conditions, strict=True):
        assert (x.name, x.players, x.deck.sha256, x.seed, x.baseline, x.is_baseline) == \
            (y.name, y.players, y.deck.sha256, y.seed, y.baseline, y.is_baseline)
    assert [c.labels for c in a.conditions[:2]] == [
        {"players": 4, "conditions": "standard deck", "deck.remove": []},
        {"players": 4, "conditions": "without blue 26 and yellow 26",
         "deck.remove": ["blue 26", "yellow 26"]}]
    assert a.resolved["conditions"][1] == {"label": "without blue 26 and yellow 26",
                                           "deck.remove": ["blue 26", "yellow 26"]}
    assert "conditions" not in b.resolved  # a file without it hashes as before


def test_explicit_conditions_cross_the_sweep_and_name_unlabelled_entries(tmp_path):
    exp = load_experiment(write(tmp_path, "x", """
        games: 100
        conditions:
          - {}
          - {deck.remove_from_tier.5: 2, first_leader: 0, baseline: true}
          - {label: greedy table, seats: greedy}
        sweep:
          rotate: [false, true]
    """))
    assert [c.name for c in exp.conditions] == [
        "conditions[0], rotate=False", "conditions[0], rotate=True",
        "deck.remove_from_tier.5=2, first_leader=0, rotate=False",
        "deck.remove_from_tier.5=2, first_leader=0, rotate=True",
        "greedy table, rotate=False", "greedy table, rotate=True"]
    assert [c.baseline for c in exp.conditions] == [2, 3, None, None, 2, 3]
    assert [c.first_leader for c in exp.conditions] == [-1, -1, 0, 0, -1, -1]
    assert exp.conditions[4].lineup == ("greedy",) * 4
    assert len(exp.conditions[2].deck.arrays) == 97
    assert exp.conditions[3].labels == {"conditions": "deck.remove_from_tier.5=2, first_leader=0",
                                        "deck.remove_from_tier.5": 2, "first_leader": 0,
                                        "rotate": True}


def test_the_documented_explicit_conditions_load_as_described(tmp_path):
    root = Path(__file__).resolve().parent.parent
    doc = (root / "docs" / "experiments.md").read_text().split("### Explicit conditions")[1]
    block = doc.split("```yaml\n")[1].split("```")[0]
    exp = load_experiment(write(tmp_path, "d", "games: 100\n" + block))
    assert [c.name for c in exp.conditions] == [
        f"{p} players, {n}" for p in (4, 5) for n in
        ("standard deck", "without blue 26 and yellow 26", "tier 5 smaller, bigger last hands")]
    assert [c.baseline for c in exp.conditions] == [None, 0, 0, None, 3, 3]
    assert "six\nconditions, `4 players, standard deck` ... `5 players, tier 5 smaller, bigger " \
           "last hands`" in doc
    doc_all = (root / "docs" / "experiments.md").read_text()  # its "A first experiment"
    first = doc_all.split("under `conditions:`:")[1]
    block = first.split("```yaml\n")[1].split("```")[0]
    exp = load_experiment(write(tmp_path, "r", "games: 100\n" + block))
    assert [c.name for c in exp.conditions][:2] == [
        "4 players, standard deck", "4 players, without blue 26 and yellow 26"]
    example = (root / "experiments" / "example.yaml").read_text()
    block = example.split("# conditions:\n")[1].split("\n\n")[0]
    block = "conditions:\n" + "\n".join(x[2:] for x in block.splitlines())
    assert [c.name for c in load_experiment(write(tmp_path, "e", block)).conditions] == [
        "standard deck", "without blue 26 and yellow 26"]


def test_explicit_conditions_report_like_the_same_sweep(tmp_path, decks_run):
    """Played, the conditions: list gives the sweep's contrasts value for value (the same
    games), under the same names; its CSVs carry the names in a ``conditions`` column."""
    _, _, sweep_out = decks_run
    path = write(tmp_path, "c", DECK_CONDITIONS)
    run(path, workers=2, progress=False)
    out = tmp_path / "reports" / "c"
    mine = pd.read_csv(out / "contrasts.csv")
    theirs = pd.read_csv(sweep_out / "contrasts.csv")
    assert list(mine.columns[:5]) == ["condition", "name", "conditions", "deck.remove",
                                      "baseline"]
    assert mine["conditions"].tolist() == ["without blue 26 and yellow 26"] * len(mine)
    same = [c for c in theirs.columns if c != "deck.remove"]
    pd.testing.assert_frame_equal(mine[same], theirs[same])
    over = pd.read_csv(out / "overfishing.csv")
    row = over[(over.metric == "overfished_share") & (over.condition == 3)].iloc[0]
    assert (row["players"], row["conditions"]) == (5, "without blue 26 and yellow 26")
    cond = load_experiment(path).conditions[3]
    g = play_games(1500, 5, seed=cond.seed, deck=cond.deck)
    assert row.estimate == pytest.approx((g.end_reason == "overfished").mean(), abs=1e-9)
    md = (out / "summary.md").read_text()
    theirs_md = (sweep_out / "summary.md").read_text()
    key = "- **5 players, without blue 26 and yellow 26** against **5 players, standard deck** "
    line = next(x for x in md.splitlines() if x.startswith(key) and "overfishing by" in x
                or x.startswith(key) and "effect on overfishing" in x)
    assert line in theirs_md.splitlines()  # the same sentence, word for word


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
        half = t_quantile(d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
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


# ---- paired trump figures --------------------------------------------------------------------
TRUMP_PAIRED = """
    players: 4
    games: 800
    chunk: 200
    seed: 5
    paired: true
    sweep:
      seats:
        - {value: greedy, label: greedy seats, baseline: true}
        - {value: counter, label: counter seats}
    analyses: [trump_value]
"""


def _trump_pairs(cond, games: int, max_round: int):
    """The trump-choice pairs of a condition's games 0..games-1, from the engine's pair
    kernel called directly (not through the runner's totals)."""
    from fishing2sim.engine import constants as K
    from fishing2sim.engine.batch import N_G, N_T, trump_batch
    from fishing2sim.engine.state import STATE_SIZE
    from fishing2sim.strategy.lineup import build_lineup, observe_mask

    R = K.MAX_ROUNDS + 1
    deck = cond.deck
    funcs, table, strats = build_lineup(list(cond.lineup), cond.players)
    out = [np.zeros((games, N_G), np.int64), np.zeros((games, K.MAX_PLAYERS), np.int64),
           np.zeros((games, 2 * R), np.int64), np.zeros((games, 2 * R), np.int64),
           np.zeros((games, R, K.MAX_PLAYERS), np.int64)]
    pairs = np.zeros((games, R, N_T), np.int64)
    evs = [np.zeros((1, K.EV_FIELDS), np.int64) for _ in range(3)]
    trump_batch(np.ascontiguousarray(deck.arrays), cond.players, K.RULESETS[deck.ruleset],
                np.ascontiguousarray(deck.hand_sizes[cond.players]), deck.n_rounds,
                cond.first_leader, np.uint64(cond.seed), 0, games, funcs, table, 0,
                observe_mask(strats), np.zeros((2, STATE_SIZE), np.int64), max_round, *out,
                pairs, -1, *evs, np.zeros(3, np.int64))
    return out[1][:, :cond.players], pairs


def _per_game_trump(cond, games: int, max_round: int):
    """Per game: (choices analysed, sum of g = sign (d1 + d2), sum of d1 d2, sum of
    sign(d1) d2 + sign(d2) d1), the shades
    chosen read from play_games (the main games are play_games' games)."""
    points, pairs = _trump_pairs(cond, games, max_round)
    df = play_games(games, cond.players, seed=cond.seed, strategies=list(cond.lineup))
    assert (df[[f"points_{p}" for p in range(cond.players)]].to_numpy() == points).all()
    m = np.zeros(games)
    g = np.zeros(games)
    prod = np.zeros(games)
    cross = np.zeros(games)  # sign(d1) d2 + sign(d2) d1: the cross-fitted gain, times 4
    for r in range(2, max_round + 1):
        shade = df[f"trump_r{r}"]
        chosen = shade.notna().to_numpy()
        assert (chosen == (pairs[:, r, T_CHOOSER] >= 0)).all()  # every choice analysed, no other
        sign = np.where(shade == "light", 1, -1)
        d1, d2 = pairs[:, r, T_D1_POINTS], pairs[:, r, T_D2_POINTS]
        m += chosen
        g += np.where(chosen, sign * (d1 + d2), 0)
        prod += np.where(chosen, d1 * d2, 0)
        cross += np.where(chosen, np.sign(d1) * d2 + np.sign(d2) * d1, 0)
    return m, g, prod, cross


def _delta_ci(xa, ma, xb, mb, f, df):
    """f(x̄a / m̄a) − f(x̄b / m̄b) and its 95% CI half-width: the gradient of the difference
    in the four per-game means, through their sample covariance."""
    n = xa.size
    qa, qb = xa.sum() / ma.sum(), xb.sum() / mb.sum()
    grad = np.array([df(qa) / ma.mean(), -df(qa) * qa / ma.mean(),
                     -df(qb) / mb.mean(), df(qb) * qb / mb.mean()])
    cov = np.cov(np.vstack([xa, ma, xb, mb]), ddof=1)
    return f(qa) - f(qb), t_quantile(n - 1) * math.sqrt(grad @ cov @ grad / n)


@pytest.fixture(scope="module")
def trump_paired(tmp_path_factory):
    root = tmp_path_factory.mktemp("trump_paired")
    path = write(root / "two", "tp", TRUMP_PAIRED)
    run(path, workers=2, progress=False)
    run(write(root / "one", "tp", TRUMP_PAIRED), workers=1, progress=False)
    return load_experiment(path), root


def test_paired_trump_contrasts_match_an_independent_computation(trump_paired):
    exp, root = trump_paired
    con = pd.read_csv(root / "two/reports/tp/contrasts.csv").set_index("figure")
    a_c, b_c = exp.conditions[1], exp.conditions[0]
    assert a_c.seed == b_c.seed and a_c.paired
    ma, ga, pa, ca = _per_game_trump(a_c, exp.games, exp.trump_max_round)
    mb, gb, pb, cb = _per_game_trump(b_c, exp.games, exp.trump_max_round)
    for fig, xa, xb, f, df in (
            ("trump_value", ga, gb, lambda q: q / 4, lambda q: 0.25),
            ("trump_stakes_half_low", ca, cb, lambda q: q / 4, lambda q: 0.25),
            ("trump_stakes_half", pa, pb, lambda q: math.sqrt(q) / 2,
             lambda q: 1 / (4 * math.sqrt(q)))):
        r = con.loc[fig]
        d, half = _delta_ci(xa, ma, xb, mb, f, df)
        assert r.method == "paired"
        assert (r.n, r.n_baseline) == (ma.sum(), mb.sum())
        assert r.estimate == pytest.approx(f(xa.sum() / ma.sum()), rel=1e-9)
        assert r.baseline_estimate == pytest.approx(f(xb.sum() / mb.sum()), rel=1e-9)
        assert r.difference == pytest.approx(d, rel=1e-9, abs=1e-12)
        assert r.diff_ci_low == pytest.approx(d - half, rel=1e-8, abs=1e-10)
        assert r.diff_ci_high == pytest.approx(d + half, rel=1e-8, abs=1e-10)
    # the same numbers for any number of workers
    assert (root / "one/reports/tp/contrasts.csv").read_bytes() == \
        (root / "two/reports/tp/contrasts.csv").read_bytes()
    # the report says so, sentence and table
    md = (root / "two/reports/tp/summary.md").read_text()
    for what in ("the trump-choice value (policy gain)",
                 "a perfect trump chooser's gain (lower end)",
                 "a perfect trump chooser's gain (upper end)"):
        line = next(x for x in md.splitlines() if x.startswith("- **counter seats**")
                    and what in x)
        assert line.endswith("(paired).")
        row = next(x for x in md.splitlines() if x.startswith("| ") and f"| {what} |" in x)
        assert f"| {what} | counter seats | greedy seats |" in row and row.endswith("| paired |")
    assert "a trump figure, an average over the games' trump choices, through each game's " \
           "share of the difference (the delta method)" in md


def test_a_paired_checkpoint_without_its_trump_unit_vectors_is_played_again(tmp_path, capsys):
    """A chunk saved without the per-game trump sums (an older checkpoint of the same
    experiment) cannot pair the trump figures: it is discarded with one warning and played
    again, and the contrasts equal an uninterrupted run's."""
    from fishing2sim.run.checkpoints import _checksum

    body = TRUMP_PAIRED.replace("games: 800", "games: 200").replace("chunk: 200", "chunk: 100")
    ref = write(tmp_path / "ref", "ck", body)
    run(ref, workers=1, progress=False)
    path = write(tmp_path / "x", "ck", body)
    run(path, workers=1, progress=False, write=False)  # keeps the checkpoints
    victim = tmp_path / "x/reports/.checkpoints/ck/c0001-k000001.npz"
    with np.load(victim, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files if k != "unit_trump_g"}
    data = {k: v for k, v in arrays.items() if k != "_meta"}
    meta = json.loads(arrays["_meta"].tobytes().decode())
    meta["checksum"] = _checksum(data)
    with open(victim, "wb") as f:
        np.savez(f, **data, _meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))
    capsys.readouterr()
    res = run(path, workers=1, progress=False, resume=True)
    assert res.meta["games_played_now"] == 100
    err = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert err == [f"warning: checkpoint {victim}: wrong arrays (missing unit_trump_g): "
                   "discarded, its chunk is played again"]
    assert (tmp_path / "x/reports/ck/contrasts.csv").read_bytes() == \
        (tmp_path / "ref/reports/ck/contrasts.csv").read_bytes()


def test_paired_trump_falls_back_to_independent_without_a_positive_stakes_estimate():
    x = np.array([1.0, -3.0, 2.0, -1.0])  # mean product below 0: the root has no slope
    m = np.array([1.0, 2.0, 1.0, 1.0])
    assert paired_ratio(x, m, x + 5, m, 2.0, root=True) is None
    d, lo, hi, *_ = paired_ratio(x, m, x + 5, m, 4.0)  # the policy gain needs no root
    assert d == pytest.approx((x.sum() / m.sum() - (x + 5).sum() / m.sum()) / 4)
    assert lo < d < hi


def _simulated_units(rng, n, shared: bool):
    """n units (games) of two conditions on the same deals: a unit holds 1-7 trump choices
    (half the units of B as many as in A, the others fewer on average), each with a policy value g and a product d1 d2 whose unit means move with
    the deal's effect e (shared between the conditions when ``shared``). Per choice, A: g has
    mean 3.0, d1 d2 mean 2^2 + 1 + 1 = 6; B: 2.5 and 1.5^2 + 2 = 4.25."""
    e = rng.normal(size=n)
    eb = e if shared else rng.normal(size=n)
    ma = 1 + rng.binomial(6, 0.6, n)
    mb = np.where(rng.random(n) < 0.5, ma, 1 + rng.binomial(6, 0.5, n))
    out = []
    for m, dev, g_mean, c in ((ma, e, 3.0, 2.0), (mb, eb, 2.5, 1.5)):
        g = m * (g_mean + dev) + np.sqrt(m) * 3.0 * rng.normal(size=n)
        # per choice D = c + e + eta, d1 = D + nu1, d2 = D + nu2: E[d1 d2] = c^2 + 1 + 1
        k = np.arange(7)[None, :] < m[:, None]
        D = c + dev[:, None] + rng.normal(size=(n, 7))
        prod = ((D + 3 * rng.normal(size=(n, 7))) * (D + 3 * rng.normal(size=(n, 7))) * k)
        out.append((g, prod.sum(axis=1), m))
    return out


def test_paired_trump_cis_cover_at_the_stated_rate():
    """2,000 replications of 300 paired units: the paired 95% CIs of the policy-gain and
    half-stakes differences (delta method on the ratios of per-unit sums) cover the true
    differences at 95% within the 99.9% binomial interval of a coverage over 2,000
    replications (±3.29 standard errors: 93.4-96.6%), and their estimated variances match
    the differences' spread over the replications; on the same data the independent CI of
    the two per-unit ratio estimates, which ignores the shared deals, over-covers, and on
    unshared units the paired CI still covers."""
    rng = np.random.default_rng(13)
    reps, n = 2000, 300
    tol = 3.29 * math.sqrt(0.95 * 0.05 / reps)
    true_gain = (3.0 - 2.5) / 4
    true_half = (math.sqrt(6.0) - math.sqrt(4.25)) / 2
    cover = {"gain": 0, "half": 0, "gain_unshared": 0, "gain_ind": 0}
    est = {"gain": [], "half": []}  # (difference, estimated variance) per replication
    for _ in range(reps):
        (ga, pa, ma), (gb, pb, mb) = _simulated_units(rng, n, shared=True)
        d, lo, hi, *_ = paired_ratio(ga, ma, gb, mb, 4.0)
        cover["gain"] += lo <= true_gain <= hi
        est["gain"].append((d, ((hi - lo) / (2 * Z)) ** 2))
        d, lo, hi, *_ = paired_ratio(pa, ma, pb, mb, 2.0, root=True)
        cover["half"] += lo <= true_half <= hi
        est["half"].append((d, ((hi - lo) / (2 * Z)) ** 2))
        # independent: each condition's own linearised standard error, combined
        d = ga.sum() / ma.sum() / 4 - gb.sum() / mb.sum() / 4
        se = math.hypot(*((g - g.sum() / m.sum() * m).std(ddof=1) / m.mean() / 4
                          / math.sqrt(n) for g, m in ((ga, ma), (gb, mb))))
        cover["gain_ind"] += d - Z * se <= true_gain <= d + Z * se
        (ga, _, ma), (gb, _, mb) = _simulated_units(rng, n, shared=False)
        _, lo, hi, *_ = paired_ratio(ga, ma, gb, mb, 4.0)
        cover["gain_unshared"] += lo <= true_gain <= hi
    rate = {k: v / reps for k, v in cover.items()}
    for k in ("gain", "half", "gain_unshared"):
        assert abs(rate[k] - 0.95) <= tol, rate
    assert rate["gain_ind"] > 0.95 + tol, rate
    # the estimated variance is the estimator's: its mean over the replications matches the
    # spread of the differences (within 3.29 standard errors of a sample variance, ±10%)
    for k, v in est.items():
        d, var = np.array(v).T
        assert var.mean() / d.var(ddof=1) == pytest.approx(1, abs=3.29 * math.sqrt(2 / reps))


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
        rotate: true
        sprt: {better: greedy, than: random, elo0: 0, elo1: 20}
        max_games: 6000
        analyses: [strategies]
    """)
    res = run(path, workers=1, progress=False)
    st = res.meta["adaptive"][0]["sprt"]
    deals = res.meta["stages"][-1][0] // 4
    seed = load_experiment(path).conditions[0].seed
    # per rotation block (a deal played in every rotation; rotation r seats greedy at r)
    a = np.zeros(deals)
    b = np.zeros(deals)
    for r in range(4):
        lineup = ["random"] * 4
        lineup[r] = "greedy"
        g = play_games(deals, 4, seed=seed, strategies=lineup)
        a += win_share(g, 4, [r]) / 4
        b += win_share(g, 4, [p for p in range(4) if p != r]) / 4
    x = 0.5 + (a - b) / 2
    s0, s1 = elo_to_score(0), elo_to_score(20)
    var = x.var()
    llr = x.size * (s1 - s0) * (2 * x.mean() - s0 - s1) / (2 * var)
    assert st["llr"] == pytest.approx(llr, rel=1e-8)
    assert st["decision"] == "H1" and llr >= math.log(0.95 / 0.05)
    md = (tmp_path / "reports/sprt/summary.md").read_text()
    assert "SPRT shown better (H1)" in md
    # after the stop: the estimate that accounts for it, on the SPRT's own (labelled) scale
    seq = st["sequential"]
    assert seq["looks"] == [s[0] // 4 for s in res.meta["stages"]]  # in rotation blocks
    assert seq["elo_low"] < seq["elo"] < seq["elo_high"]
    assert (f"SPRT Elo {seq['elo']:.1f} [{seq['elo_low']:.1f}, {seq['elo_high']:.1f}] "
            "accounting for the sequential stop") in md
    assert "not the ladder's rating scale" in md


def test_the_stopped_estimate_is_exact_for_one_look_and_matches_a_brownian_simulation():
    """fishing2sim/analysis/sprt.py: with a single look the stage-wise ordering is the fixed-sample
    one (estimate and CI equal the normal ones); over several looks the recursion's
    P(more extreme) equals a Monte Carlo of the same stopped Brownian motion."""
    from fishing2sim.analysis.sprt import decide, exceed_prob, stopped_estimate

    spec = {"elo0": 0.0, "elo1": 20.0, "alpha": 0.05, "beta": 0.05}
    fixed = decide(spec, 1000, 0.52, 0.09)
    seq = stopped_estimate(spec, [1000], 0.52, 0.09)
    for k in ("elo", "elo_low", "elo_high"):
        assert seq[k] == pytest.approx(fixed[k], abs=1e-4)
    looks, low, high = [600, 900, 1350, 2025], [-30, -25, -20, -10], [30, 25, 22, 20]
    rng = np.random.default_rng(5)
    reps = 200_000
    inc = np.diff([0] + looks)
    for drift in (0.0, 0.01):
        g = float(exceed_prob([drift], looks, low, high, 3, 5.0)[0])
        path = np.cumsum(rng.normal(drift * inc, np.sqrt(inc), size=(reps, 4)), axis=1)
        alive, more = np.ones(reps, bool), np.zeros(reps, bool)
        for k in range(3):
            up, down = alive & (path[:, k] >= high[k]), alive & (path[:, k] <= low[k])
            more |= up
            alive &= ~(up | down)
        more |= alive & (path[:, 3] > 5.0)
        assert abs(g - more.mean()) < 3.3 * math.sqrt(g * (1 - g) / reps), (drift, g)


def _simulated_sprt(monkeypatch, spec, true_elo, sigma, first, step, cap, reps, seed):
    """The runner's SPRT on constructed data: per unit a normal score of mean
    elo_to_score(true_elo) and SD sigma; the batches, the decisions and the stopped
    estimate are the runner's own (_next_games with the real decision code; only the
    reduction of a condition's totals to n, mean and variance, tested above, is replaced by
    the simulated sums). Rows: fixed-sample (elo, lo, hi), stopped (elo, lo, hi)."""
    from types import SimpleNamespace

    import fishing2sim.analysis.stopping as stopping
    from fishing2sim.analysis.stopping import next_games as _next_games
    from fishing2sim.analysis.sprt import decide

    def state(exp, cond, t):
        out = decide(exp.sprt, t["n"], t["mean"], t["var"])
        out["var"] = t["var"]
        return out

    monkeypatch.setattr(stopping, "sprt_state", state)
    exp = SimpleNamespace(precision=(), sprt=spec, chunk=step)
    mu = elo_to_score(true_elo)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(reps):
        cond = SimpleNamespace(index=0, games=first, max_games=cap, rotate=False, players=4)
        n, sx, sxx, looks, stop = 0, 0.0, 0.0, [], first
        while True:
            d = stop - n  # the batch: its sum and sum of squares of d normal scores
            bs = d * mu + sigma * math.sqrt(d) * rng.standard_normal()
            sxx += sigma ** 2 * rng.chisquare(d - 1) + bs * bs / d
            sx += bs
            n = stop
            looks.append(n)
            mean = sx / n
            nxt, info = _next_games(exp, cond, {"n": n, "mean": mean, "var": sxx / n - mean ** 2},
                                    n, looks=looks)
            if nxt == n:
                break
            stop = nxt
        st, seq = info["sprt"], info["sprt"]["sequential"]
        assert seq["looks"] == looks
        rows.append((st["elo"], st["elo_low"], st["elo_high"], seq["elo"], seq["elo_low"],
                     seq["elo_high"]))
    return np.array(rows)


@pytest.mark.parametrize("true_elo", [0.0, 10.0])
@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_the_sprt_estimate_after_the_stop_covers_and_is_median_unbiased(monkeypatch, true_elo):
    """1,000 simulated SPRTs (elo0 = 0, elo1 = 10, alpha = beta = 0.05; scores of SD 0.3; a
    first batch of 300 units, chunks of 150, the runner's growth by half; max_games 60,000)
    at true Elo = elo0 and = elo1. The stopped CI covers the truth 93-97% of the time (0.95
    within 3.3 binomial SEs of 1,000 runs, 2.3 points, rounded in); the stopped estimate's
    median is within 3.3 SEs of a sample median (1.2533 SD / sqrt(runs), about 0.22 Elo) of
    the truth. The fixed-sample estimate is not: its median misses by more than that
    tolerance (the stop biases it toward the boundary it crossed), and its CI covers less
    often than the stopped one."""
    spec = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    reps = 1000
    res = _simulated_sprt(monkeypatch, spec, true_elo, 0.3, 300, 150, 60000, reps, seed=3)
    fixed_cover = np.mean((res[:, 1] <= true_elo) & (true_elo <= res[:, 2]))
    seq_cover = np.mean((res[:, 4] <= true_elo) & (true_elo <= res[:, 5]))
    assert 0.93 <= seq_cover <= 0.97, seq_cover
    for col, ok in ((3, True), (0, False)):
        est = res[:, col]
        tol = 3.3 * 1.2533 * est.std(ddof=1) / math.sqrt(reps)
        bias = float(np.median(est)) - true_elo
        assert (abs(bias) < tol) == ok, (col, bias, tol)
    assert fixed_cover < seq_cover


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
    ("seats: [greedy, random, random, random]\nsprt: {better: greedy, than: random}\n",
     "sprt: needs rotate: true (without seat rotation the two strategies sit in different "
     "seats and the seat, not the strategy, can decide the test); condition 0 does not "
     "rotate"),
    ("paired: sometimes\n", "paired: expected true or false"),
    # explicit conditions and their labels
    ("conditions:\n  - {label: a}\n  - {label: a, deck.remove: [blue 26]}\n",
     "conditions[1].label: label 'a' given twice (also conditions[0])"),
    ("conditions:\n  - {label: 7}\n", "conditions[0].label: expected a name (text), got 7"),
    ("conditions:\n  - {label: '  '}\n",
     "conditions[0].label: expected a name (text), got '  '"),
    ("conditions:\n  - {baseline: yes please}\n",
     "conditions[0].baseline: expected true or false, got 'yes please'"),
    ("conditions:\n  - {baseline: true}\n  - {players: 5, baseline: true}\n",
     "conditions[1].baseline: a second baseline (the first is conditions[0]): mark one "
     "condition as the baseline"),
    ("conditions: standard deck\n",
     "conditions: expected a non-empty list of conditions, each a mapping of key paths to "
     "values with an optional label and baseline"),
    ("conditions: []\n", "conditions: expected a non-empty list of conditions"),
    ("conditions:\n  - standard deck\n",
     "conditions[0]: expected a mapping of key paths to values (with an optional label and "
     "baseline), got 'standard deck'"),
    ("conditions:\n  - {label: s, seed: 3}\n",
     "conditions[0].seed: seed is experiment-wide and cannot be set per condition"),
    ("conditions:\n  - {deck.remvoe: [blue 26]}\n",
     "conditions[0].deck.remvoe: unknown deck key 'remvoe' (did you mean 'remove'?)"),
    ("conditions:\n  - {value: 4, label: four}\n",
     "conditions[0].value: an entry of conditions sets key paths"),
    ("conditions:\n  - {label: a, players: 5}\n  - {label: b, players: 5}\n",
     "conditions[1]: the same settings as conditions[0]: one condition listed twice"),
    ("conditions:\n  - {deck: {remove: [blue 26]}, deck.remove: [blue 25]}\n",
     "conditions[0].deck.remove: overlaps conditions[0].deck: set it in one place"),
    ("sweep:\n  deck.remove: [[], [blue 25]]\nconditions:\n  - {}\n"
     "  - {deck.remove: [blue 26]}\n",
     "sweep.deck.remove: also set by conditions[1].deck.remove: set it in one place"),
    ("players: [4, 5]\nconditions:\n  - {players: 3}\n",
     "conditions[0].players: players is already a list"),
    ("conditions:\n  - {label: x, deck.remove: [blue 99]}\n",
     "deck.remove[0]: no card named 'blue 99' in the deck fishing2.csv"),
    # a label or baseline on something that is not a condition
    ("label: my run\n", "label: a label names a condition, and this is not one: write it in "
     "an entry of conditions ({label: ..., baseline: true, <key path>: <value>}) or on a "
     "sweep value ({value: ..., label: ..., baseline: true})"),
    ("baseline: true\n", "baseline: baseline marks a condition, and this is not one"),
    ("seats: {strategy: greedy, label: g}\n", "seats.label: a label names a condition"),
    ("deck: {remove: [blue 26], label: short}\n", "deck.label: a label names a condition"),
    ("conditions:\n  - {seats: {strategy: greedy, label: g}}\n",
     "seats.label: a label names a condition"),
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


def test_an_sprt_held_past_its_first_crossing_keeps_that_decision_and_no_sequential_ci(
        monkeypatch):
    """A test that crossed (H1 at 300 units) but was held on (a precision target, a paired
    group) and is undecided at its last look: the decision is the first crossing's, and the
    stage-wise estimate (valid only where the crossing stopped the run) is not given; the
    fixed-sample figure is."""
    from types import SimpleNamespace

    import fishing2sim.analysis.stopping as stopping
    from fishing2sim.analysis.sprt import decide

    def state(exp, cond, t):
        out = decide(exp.sprt, t["n"], t["mean"], t["var"])
        out["var"] = t["var"]
        return out

    monkeypatch.setattr(stopping, "sprt_state", state)
    spec = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    exp = SimpleNamespace(precision=(), sprt=spec, chunk=150)
    cond = SimpleNamespace(index=0, games=300, max_games=450, rotate=False, players=4)
    _, first = stopping.next_games(exp, cond, {"n": 300, "mean": 0.58, "var": 0.09}, 300,
                                   looks=[300])
    assert first["sprt"]["decision"] == "H1" and first["sprt"]["sequential"] is not None
    assert first["sprt"]["first_crossing"]["games"] == 300
    nxt, last = stopping.next_games(exp, cond, {"n": 450, "mean": 0.51, "var": 0.09}, 450,
                                    looks=[300, 450], before=first)
    st = last["sprt"]
    assert decide(spec, 450, 0.51, 0.09)["decision"] is None  # undecided at the last look
    assert nxt == 450 and st["decision"] == "H1" and st["held_past"]
    assert st["sequential"] is None and st["first_crossing"]["games"] == 300
    assert st["elo_low"] < st["elo"] < st["elo_high"]  # the fixed-sample figure


def test_several_sprts_in_one_file_share_alpha_and_beta():
    from fishing2sim.analysis.sprt import bounds

    spec = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    assert bounds(spec) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert bounds(spec, 4) == pytest.approx((math.log(0.0125 / 0.9875),
                                             math.log(0.9875 / 0.0125)))
