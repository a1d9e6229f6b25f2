"""Coverage cases of the reports' intervals in hard settings (benchmarks/interval_coverage.py
runs them): few clusters for the t intervals of ``mean_ci`` and ``ratio_ci``, a share's CI
at a handful of games, an SPRT held past its crossing, and the skill panel's interaction CI
when the levels play unequal games. Every case calls the package's own estimator on simulated data whose true value is
known; ``run(reps, seed)`` returns (covered, total).

    python benchmarks/interval_coverage.py --only few_clusters
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from fishing2sim.analysis import stopping
from fishing2sim.analysis.panel import combine
from fishing2sim.analysis.sprt import decide, elo_to_score, next_games as sprt_next
from fishing2sim.analysis.stats import mean_ci, ratio_ci, share_ci


# ---- few clusters -------------------------------------------------------------------------
def _win_shares(rng, n: int) -> np.ndarray:
    """n games' win shares of one seat: 0, a shared win (1/2, 1/3) or 1, mean 0.25."""
    values = np.array([0.0, 1 / 3, 0.5, 1.0])
    probs = np.array([0.735, 0.03, 0.04, 0.195])  # mean 0.01 + 0.02 + 0.195 = 0.225
    return rng.choice(values, size=n, p=probs)


SHARE_MEAN = float(np.dot([0.0, 1 / 3, 0.5, 1.0], [0.735, 0.03, 0.04, 0.195]))


def mean_ci_cases(games: int):
    def run(reps: int, seed: int) -> tuple[int, int]:
        """Two per-game figures over ``games`` games, each rep one of each: a skewed one
        (gamma of shape 4, skewness 1, like cards left in the ocean) and a seat's win share
        with ties (0, 1/3, 1/2 or 1; mean 22.5%)."""
        rng = np.random.default_rng(seed)
        hit = 0
        for _ in range(reps):
            x = rng.gamma(4.0, 1.0, games)
            _, lo, hi = mean_ci(x.sum(), (x * x).sum(), games)
            hit += lo <= 4.0 <= hi
            x = _win_shares(rng, games)
            _, lo, hi = mean_ci(x.sum(), (x * x).sum(), games)
            hit += lo <= SHARE_MEAN <= hi
        return hit, 2 * reps
    return run


def share_ci_case(games: int):
    def run(reps: int, seed: int) -> tuple[int, int]:
        rng = np.random.default_rng(seed)
        hit = 0
        for _ in range(reps):
            x = _win_shares(rng, games)
            _, lo, hi = share_ci(x.sum(), (x * x).sum(), games)
            hit += lo <= SHARE_MEAN <= hi
        return hit, reps
    return run


def ratio_ci_case(clusters: int):
    def run(reps: int, seed: int) -> tuple[int, int]:
        """A mean over events clustered in games (5-7 trump choices a game, a game's shared
        part 30% of the variance), ``clusters`` games: ratio_ci's clustered interval."""
        rng = np.random.default_rng(seed)
        mu, icc, hit = 0.3, 0.3, 0
        for _ in range(reps):
            m = rng.integers(5, 8, clusters).astype(float)
            a = rng.normal(0, math.sqrt(icc), clusters)
            xs = np.array([mu * k + a[g] * k + rng.normal(0, math.sqrt((1 - icc) * k))
                           for g, k in enumerate(m)])
            _, lo, hi, _ = ratio_ci(xs.sum(), (xs * xs).sum(), (xs * m).sum(), m.sum(),
                                    (m * m).sum(), clusters)
            hit += lo <= mu <= hi
        return hit, reps
    return run


# ---- an SPRT held past its crossing ---------------------------------------------------------
def sprt_held_case(true_elo: float):
    def run(reps: int, seed: int) -> tuple[int, int]:
        """SPRTs (elo0 0, elo1 10, alpha = beta = 0.05; scores of SD 0.3, a first batch of
        300 units, chunks of 150, the runner's growth by half) held on after their first
        crossing until 3,000 units (as a precision target or a paired condition holds a
        run): the CI the report gives (stopping.next_games: the fixed-sample one once held
        past the crossing, the stage-wise one where the crossing stopped the run) covers
        the true SPRT Elo."""
        spec = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
        mu, sigma, hold, cap = elo_to_score(true_elo), 0.3, 3000, 60000
        rng = np.random.default_rng(seed)
        keep = stopping.sprt_state

        def state(exp, cond, t):
            out = decide(exp.sprt, t["n"], t["mean"], t["var"])
            out["var"] = t["var"]
            return out

        stopping.sprt_state = state
        hit = 0
        try:
            exp = SimpleNamespace(precision=(), sprt=spec, chunk=150)
            for _ in range(reps):
                cond = SimpleNamespace(index=0, games=300, max_games=cap, rotate=False,
                                       players=4)
                n, sx, sxx, looks, stop, before = 0, 0.0, 0.0, [], 300, None
                while True:
                    d = stop - n
                    bs = d * mu + sigma * math.sqrt(d) * rng.standard_normal()
                    sxx += sigma ** 2 * rng.chisquare(d - 1) + bs * bs / d
                    sx += bs
                    n = stop
                    looks.append(n)
                    mean = sx / n
                    nxt, info = stopping.next_games(
                        exp, cond, {"n": n, "mean": mean, "var": sxx / n - mean ** 2}, n,
                        looks=looks, before=before)
                    before = info
                    if nxt == n and n >= hold or n >= cap:
                        break
                    stop = nxt if nxt > n else min(max(sprt_next(n, 150), n + 150), hold)
                st = info["sprt"]
                seq = st.get("sequential")
                lo, hi = (seq["elo_low"], seq["elo_high"]) if seq else (st["elo_low"],
                                                                         st["elo_high"])
                hit += lo <= true_elo <= hi
        finally:
            stopping.sprt_state = keep
        return hit, reps
    return run


# ---- the panel's interaction under unequal games ------------------------------------------------
def panel_case(games_a: int, games_b: int):
    def run(reps: int, seed: int) -> tuple[int, int]:
        """Two levels of play on the same deals, level A with ``games_a`` games, level B
        with the first ``games_b`` of them; each plays a baseline and a deck edit (the
        four conditions share the deals: a deal's own part, 40% of a game's variance, is
        common to them). The interaction (edit − baseline at A) − (edit − baseline at B),
        its CI by analysis/panel.combine, against the true one (a zero interaction here:
        +1.2 pp at both levels, on shares near 30%)."""
        rng = np.random.default_rng(seed)
        means = {"bA": 0.30, "cA": 0.312, "bB": 0.28, "cB": 0.292}
        truth = (means["cA"] - means["bA"]) - (means["cB"] - means["bB"])
        hit = 0
        for _ in range(reps):
            deal = rng.normal(0, 1, games_a)
            terms = []
            for k, w in (("cA", 1.0), ("bA", -1.0), ("cB", -1.0), ("bB", 1.0)):
                n = games_a if k.endswith("A") else games_b
                z = math.sqrt(0.4) * deal[:n] + math.sqrt(0.6) * rng.normal(0, 1, n)
                thr = _normal_quantile(1 - means[k])
                x = (z > thr).astype(float)
                m = float(x.mean())
                terms.append((w, 7, (m, (x - m) / n)))
            _, lo, hi = combine(terms)
            hit += lo <= truth <= hi
        return hit, reps
    return run


def _normal_quantile(p: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


CASES = [
    ("few_clusters: mean_ci, 50 games", "the t interval of a skewed per-game mean (gamma, "
     "shape 4) and of a win share with ties, 50 games", mean_ci_cases(50)),
    ("few_clusters: mean_ci, 60 games", "the same, 60 games", mean_ci_cases(60)),
    ("few_clusters: ratio_ci, 50 games", "the clustered ratio of sums (5-7 events a game, "
     "ICC 0.3), 50 games", ratio_ci_case(50)),
    ("few_clusters: ratio_ci, 60 games", "the same, 60 games", ratio_ci_case(60)),
    ("tiny_runs: share_ci, 50 games", "a win share with ties (true 22.5%), its CI kept in "
     "[0, 100]%, 50 games", share_ci_case(50)),
    ("sprt_held: true Elo = elo0", "an SPRT held past its crossing to 3,000 units: the "
     "report's CI (fixed-sample once held)", sprt_held_case(0.0)),
    ("sprt_held: true Elo = elo1", "the same at the true Elo elo1 = 10", sprt_held_case(10.0)),
    ("panel: interaction, 1,500 and 500 games", "the interaction CI of two levels of unequal "
     "games on the same deals (shares near 30%)", panel_case(1500, 500)),
]
