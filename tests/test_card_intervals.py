"""The per-card effects' intervals and family rule (docs/rules.md E, "Per-card impact"): the
sparse paired differences' intervals (analysis/paired.py) never have zero width and agree
with their tests; in a 600-deal three-player run the plain lines name only the effects that
survive the family's adjustment, and cards.csv holds both p-values and each effect's own n.
(Their coverage: benchmarks/coverage_cards.py.)"""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from fishing2sim.analysis.card_impact import effect_ci
from fishing2sim.analysis.paired import paired_mean_ci, paired_share_ci, t975, tango_ci
from fishing2sim.analysis.stats import Z
from fishing2sim.study import run


def _constrained_score(delta, b, c, n):
    """Tango's statistic with the constrained maximum likelihood found on a fine grid (not
    the closed form): the share q of -1 deals maximising the likelihood given delta."""
    q = np.linspace(max(0.0, -delta), (1 - delta) / 2, 200001)[1:-1]
    ll = b * np.log(q + delta) + c * np.log(q) + (n - b - c) * np.log(1 - 2 * q - delta)
    qq = q[np.argmax(ll)]
    return (b - c - n * delta) / math.sqrt(n * (2 * qq + delta * (1 - delta)))


@pytest.mark.parametrize("b, c, n", [(5, 1, 200), (20, 5, 200), (2, 3, 27), (9, 0, 60)])
def test_tango_interval_ends_are_where_the_score_test_reaches_z(b, c, n):
    d, lo, hi, p = tango_ci(b, c, n)
    assert d == pytest.approx((b - c) / n)
    assert _constrained_score(lo, b, c, n) == pytest.approx(Z, abs=2e-3)
    assert _constrained_score(hi, b, c, n) == pytest.approx(-Z, abs=2e-3)
    # its test at 0 is McNemar's, and the CI excludes 0 exactly when p < 0.05
    assert p == pytest.approx(math.erfc(abs(b - c) / math.sqrt(2 * (b + c))))
    assert (lo > 0 or hi < 0) == (p < 0.05)


def test_no_deal_differing_gives_a_nonzero_interval():
    # 27 deals, none differing: the normal interval is [0, 0]; Tango's is ±z²/(n + z²)
    d, lo, hi, p = paired_share_ci(0.0, 0.0, 27)
    assert d == 0 and p == 1.0
    assert hi == pytest.approx(Z * Z / (27 + Z * Z), rel=1e-6) and lo == pytest.approx(-hi)
    # a count's: the t interval with its floor
    m, lo, hi, p = paired_mean_ci(0.0, 0.0, 27)
    assert m == 0 and hi > 0.05 and lo == pytest.approx(-hi)
    # a tie's half win counts as half a differing deal: the interval still holds the mean
    d, lo, hi, _ = paired_share_ci(30.0, 900.0, 10, 60.0)
    assert d == pytest.approx(0.05) and lo < 0 < d < hi


def test_t_quantiles():
    assert t975(1) == pytest.approx(12.7062, abs=1e-4)
    assert t975(2) == pytest.approx(4.3027, abs=1e-4)
    assert t975(10) == pytest.approx(2.2281, abs=1e-4)
    assert t975(30) == pytest.approx(2.0423, abs=1e-4)


def test_the_effects_use_the_sparse_intervals():
    # the drawer effect in 60ths of a win: 3 deals +1 win, 1 deal -1 of 40
    e = effect_ci("drawer_win_effect", 120.0, 4 * 3600.0, 40)
    assert e == pytest.approx(tango_ci(3, 1, 40))
    assert effect_ci("overfishing_effect", 0, 0, 200)[2] > 0


def _file(tmp_path, extra: str = ""):
    path = tmp_path / "cards3.yaml"
    path.write_text(f"name: cards3\noutput: {tmp_path / 'reports'}\nplayers: 3\ngames: 600\n"
                    f"seed: 11\nseats: random\nanalyses: [cards]\n{extra}")
    return path


def _plain_named(md: str) -> list[tuple[str, str]]:
    """(card, what) of each plain line naming a card's effect in the section."""
    part = md.split("## Per-card impact", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"Leaving out (.+?) \(tier \d+\) \w+ (.+?) by ", part)


WHAT = {"the win share of the player who would have drawn it": "drawer_win_effect",
        "overfishing": "overfishing_effect", "the game's length": "game_length_effect",
        "the leader edge": "leader_edge_effect"}


@pytest.mark.parametrize("multiplicity", ["holm", "none"])
def test_a_600_deal_three_player_run_names_only_the_effects_that_survive(tmp_path,
                                                                        multiplicity):
    path = _file(tmp_path, f"multiplicity: {multiplicity}\n")
    run(path, workers=1, progress=False)
    folder = tmp_path / "reports" / "cards3"
    df = pd.read_csv(folder / "cards.csv")
    eff = df[df["metric"].str.endswith("_effect")]
    sizes = eff.groupby("metric").size()
    assert sizes.drop("drawer_win_effect").eq(51).all() and sizes["drawer_win_effect"] <= 51
    assert eff["p_value"].notna().all() and eff["p_adjusted"].notna().all()
    assert (eff["p_adjusted"] >= eff["p_value"] - 1e-12).all()
    assert (eff["ci_high"] > eff["ci_low"]).all()  # no zero-width CI
    # each effect's own n: the drawer effect's is the deals that drew the card
    drawn = df[df["metric"] == "drawn_share"].set_index("card")
    drawer = eff[eff["metric"] == "drawer_win_effect"].set_index("card")
    assert (drawer["n"] == (drawn.loc[drawer.index, "estimate"] * 600).round()).all()
    assert drawer["n"].min() < 100
    ranked = pd.read_csv(folder / "cards_ranked.csv").set_index("card")
    assert (ranked.loc[drawer.index, "drawer_win_effect_n"] == drawer["n"]).all()
    assert (ranked["overfishing_effect_n"] == 600).all()
    # the plain lines name exactly the effects whose (adjusted) p is below 0.05
    named = {(card, WHAT[what]) for card, what in _plain_named(
        (folder / "summary.md").read_text())}
    key = eff.set_index(["card", "metric"])["p_adjusted"]
    for card, metric in named:
        assert key[(card, metric)] < 0.05, (card, metric)
    hits = key[key < 0.05]
    raw = eff[eff["p_value"] < 0.05]
    if multiplicity == "holm":
        # in this run 6 or more CIs exclude 0 alone, none survives Holm over its 51 cards
        assert len(raw) >= 6 and not len(hits) and not named
        assert "None of the 51 cards' effects on the win share" in \
            (folder / "summary.md").read_text()
    else:
        per_figure = hits.groupby(level="metric").size()
        assert len(named) == int(per_figure.clip(upper=3).sum()) > 0


def test_the_precision_target_stops_on_the_reports_intervals():
    # card_overfishing's width is the report's own: a card whose 200 deals never differed
    # is not known to within 0 pp (the normal interval's [0, 0] would have stopped the run)
    from types import SimpleNamespace

    from fishing2sim.analysis.card_impact import widest_half_width

    cond = SimpleNamespace(cards=[0, 1])
    t = {"cards_n": np.array([200, 200]), "cards_over": np.array([[0, 0], [1, 1]])}
    _, lo0, hi0, _ = tango_ci(0, 0, 200)
    _, lo1, hi1, _ = tango_ci(1, 0, 200)
    assert widest_half_width(cond, t) == pytest.approx(max(hi0 - lo0, hi1 - lo1) / 2)
    assert widest_half_width(cond, t) > 0.009
