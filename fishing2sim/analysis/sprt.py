"""The SPRT of ``sprt:`` (docs/experiments.md, "Precision-driven runs"): its decision after
each batch, the batch schedule, and the estimate and CI that account for the sequential
stop.

**Scale.** Per unit (a game, or a rotation block) the SPRT's score of A against B is
x = 1/2 + (A's win share − B's win share)/2, in 0..1, and its Elo is the logistic Elo of the
mean score, 400 log10(s / (1 − s)). That is the *SPRT Elo*: it is not the ladder's rating
scale (the ladder scores a pair [A, A, B, B] by which side holds the most points and fits
Bradley–Terry strengths to all pairs).

**Decision** (:func:`decide`): the normal (GSPRT) log-likelihood ratio fishtest uses,
LLR = n (s1 − s0)(2 x̄ − s0 − s1) / (2 σ²), with s0, s1 the scores of elo0, elo1 and σ² the
variance of x over the units, against log(β / (1 − α)) and log((1 − β) / α).

**After the stop** (:func:`stopped_estimate`). The fixed-sample mean and its normal CI are
biased once the sample size depends on the data: a test stops early when its path ran high
(H1) or low (H0). The estimate here accounts for the stop, by the stage-wise ordering of the
sample space of a group-sequential test (Armitage 1957; Siegmund 1978; Jennison &
Turnbull, *Group Sequential Methods*, 2000, section 8.4; Whitehead, *The Design and Analysis
of Sequential Clinical Trials*, 1997): T = Σ (x − 1/2) is treated as a Brownian motion with
drift μ = E[x] − 1/2 per unit and variance σ² per unit (σ² its final estimate), observed at
the looks the run actually made (the units after each batch), with the test's boundaries
at each look. An outcome (stop at look k, value t) is more extreme than the observed
(k*, t*) if it crossed the upper boundary at an earlier look (k < k*), or if it reached look
k* and t > t*; so G(μ) = P_μ(more extreme) = Σ_{k<k*} P_μ(upper exit at look k) +
P_μ(no exit before k*, T_{k*} > t*), increasing in μ. The median-unbiased estimate is the μ
with G(μ) = 1/2, the 95% CI the μ's with G = 0.025 and 0.975 (the stop at a boundary and a
stop at ``max_games`` alike). G is computed exactly for the Brownian model by numerical
integration over the looks (the recursion of Armitage, McPherson and Rowe 1969: the density
of T on the continuation region of each look, on a grid of at most 601 points a step of an
eighth of the increment's SD apart, Simpson's rule), and solved for μ by the Illinois
method: deterministic, a few milliseconds.
"""
from __future__ import annotations

import math

import numpy as np
from fishing2sim.analysis.stats import Z

SQRT2 = math.sqrt(2.0)


def elo_to_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(s: float) -> float:
    s = min(max(s, 1e-9), 1 - 1e-9)
    return -400.0 * math.log10(1.0 / s - 1.0)


def bounds(spec: dict, tests: int = 1) -> tuple[float, float]:
    """(lower, upper): the LLR at or below which H0 is accepted, at or above which H1; with
    ``tests`` SPRTs in one file each at alpha / tests and beta / tests (Bonferroni: the
    chance that any of them decides wrongly stays within alpha, or beta)."""
    a, b = spec["alpha"] / tests, spec["beta"] / tests
    return math.log(b / (1 - a)), math.log((1 - b) / a)


def decide(spec: dict, n: int, mean: float, var: float, tests: int = 1) -> dict:
    """The SPRT after ``n`` units of mean score ``mean`` and variance ``var`` (over the units):
    the LLR, the bounds (``tests``: the file's SPRTs, :func:`bounds`), the decision (H1, H0
    or None) and the fixed-sample SPRT Elo with its normal 95% CI (``elo``, ``elo_low``,
    ``elo_high``: not corrected for the stop)."""
    s0, s1 = elo_to_score(spec["elo0"]), elo_to_score(spec["elo1"])
    llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var) if n and var > 0 else 0.0
    lower, upper = bounds(spec, tests)
    half = Z * math.sqrt(var / n) if n and var > 0 else math.nan
    decision = "H1" if llr >= upper else ("H0" if llr <= lower else None)
    return {"llr": llr, "lower": lower, "upper": upper, "score": mean,
            "elo": score_to_elo(mean), "elo_low": score_to_elo(mean - half),
            "elo_high": score_to_elo(mean + half), "units": n, "decision": decision,
            "tests": tests}


def next_games(games: int, step: int) -> int:
    """An undecided SPRT's next stop: half as many games again as so far, in whole chunks of
    ``step`` games, at least one chunk (the runner then caps it at ``max_games``)."""
    return games + max(step, -(-(games // 2) // step) * step)


# ---- the estimate after a sequential stop -----------------------------------------------------
def _upper_tail(z: np.ndarray) -> np.ndarray:
    """P(N(0, 1) > z), by erfc (Numerical Recipes' erfcc: fractional error < 1.2e-7)."""
    x = np.asarray(z, float) / SQRT2
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * a)
    r = t * np.exp(-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (
        0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (
            1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
    return 0.5 * np.where(x >= 0, r, 2.0 - r)


def _grid(lo: float, hi: float, h: float, cap: int = 601):
    """Simpson nodes and weights on [lo, hi], spacing at most h (an odd count, at most cap)."""
    m = int(math.ceil((hi - lo) / h))
    m = min(max(m + (m % 2), 2), cap - 1)
    x = np.linspace(lo, hi, m + 1)
    w = np.ones(m + 1)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return x, w * (hi - lo) / (3.0 * m)


def exceed_prob(drifts, looks, low, high, k_obs: int, t_obs: float) -> np.ndarray:
    """G(drift) for each drift (per unit, variance 1 per unit): the probability, for a
    Brownian motion observed at ``looks`` (cumulative units) that stops at the first look k
    with T <= low[k] or T >= high[k], of an outcome more extreme than stopping at look
    ``k_obs`` (0-based) with T = ``t_obs`` in the stage-wise ordering."""
    d = np.atleast_1d(np.asarray(drifts, float))[:, None]  # (M, 1)
    looks = [float(v) for v in looks]
    s = math.sqrt(looks[0])
    if k_obs == 0:
        return _upper_tail((t_obs - d[:, 0] * looks[0]) / s)
    total = _upper_tail((high[0] - d[:, 0] * looks[0]) / s)
    sd_next = math.sqrt(looks[1] - looks[0])
    x, w = _grid(low[0], high[0], min(s, sd_next) / 8.0)
    f = np.exp(-0.5 * ((x[None, :] - d * looks[0]) / s) ** 2) / (s * math.sqrt(2 * math.pi))
    f = f * w[None, :]  # (M, N): density times the quadrature weight
    for j in range(1, k_obs + 1):
        delta = looks[j] - looks[j - 1]
        sj = math.sqrt(delta)
        mean = x[None, :] + d * delta  # (M, N)
        if j == k_obs:
            return total + np.sum(f * _upper_tail((t_obs - mean) / sj), axis=1)
        total = total + np.sum(f * _upper_tail((high[j] - mean) / sj), axis=1)
        sd_next = math.sqrt(looks[j + 1] - looks[j])
        y, wy = _grid(low[j], high[j], min(sj, sd_next) / 8.0)
        kern = np.exp(-0.5 * ((y[None, None, :] - mean[:, :, None]) / sj) ** 2) \
            / (sj * math.sqrt(2 * math.pi))  # (M, N, N')
        f = np.einsum("mn,mnk->mk", f, kern) * wy[None, :]
        x = y
    raise ValueError("k_obs beyond the looks")


def _solve(g, targets, lo: float, hi: float, tol: float) -> np.ndarray:
    """The x with g(x) = target for each target (g increasing, vectorised over x), by the
    Illinois method in lockstep from a bracket widened until it holds every target."""
    targets = np.asarray(targets, float)
    k = targets.size
    a, b = np.full(k, lo), np.full(k, hi)
    ga, gb = g(a) - targets, g(b) - targets
    for _ in range(60):  # widen: g(a) < target < g(b)
        low_bad, high_bad = ga > 0, gb < 0
        if not (low_bad.any() or high_bad.any()):
            break
        width = b - a
        a = np.where(low_bad, a - 2 * width, a)
        b = np.where(high_bad, b + 2 * width, b)
        ga, gb = g(a) - targets, g(b) - targets
    side = np.zeros(k)
    for _ in range(100):
        c = np.where(gb != ga, b - gb * (b - a) / (gb - ga), (a + b) / 2)
        c = np.clip(c, np.minimum(a, b), np.maximum(a, b))
        gc = g(c) - targets
        same = np.sign(gc) == np.sign(gb)
        # Illinois: when the same end is kept twice, halve its value
        a_new = np.where(same, a, b)
        ga_new = np.where(same, np.where(side == 1, ga / 2, ga), gb)
        side = np.where(same, 1, -1)
        a, ga, b, gb = a_new, ga_new, c, gc
        if np.all((np.abs(b - a) < tol) | (np.abs(gc) < 1e-13)):
            break
    return b


def stopped_estimate(spec: dict, looks: list, mean: float, var: float,
                     tests: int = 1) -> dict | None:
    """The SPRT Elo that accounts for the sequential stop: the median-unbiased estimate and
    the 95% CI of the stage-wise ordering (module docstring), after the run stopped at the
    last of ``looks`` (the units at each look, increasing) with mean score ``mean`` and
    variance ``var`` over the units. None when the variance is not positive."""
    looks = sorted({int(v) for v in looks if v > 0})
    if not looks or not var > 0:
        return None
    n = looks[-1]
    sigma = math.sqrt(var)
    s0, s1 = elo_to_score(spec["elo0"]), elo_to_score(spec["elo1"])
    lower, upper = bounds(spec, tests)
    # the continuation region of each look for U = T / sigma, T = sum (x - 1/2)
    mid = (s0 + s1) / 2 - 0.5
    low = [lower * sigma / (s1 - s0) + k * mid / sigma for k in looks]
    high = [upper * sigma / (s1 - s0) + k * mid / sigma for k in looks]
    u_obs = n * (mean - 0.5) / sigma
    k_obs = len(looks) - 1

    def g(dr):
        return exceed_prob(dr, looks, low, high, k_obs, u_obs)

    centre, se = u_obs / n, 1.0 / math.sqrt(n)
    lo_d, mid_d, hi_d = _solve(g, [0.025, 0.5, 0.975], centre - 4 * se, centre + 4 * se,
                               1e-7 * se)

    def elo(dr):
        return score_to_elo(0.5 + sigma * float(dr))

    return {"elo": elo(mid_d), "elo_low": elo(lo_d), "elo_high": elo(hi_d), "looks": looks,
            "method": "median-unbiased, stage-wise ordering (Brownian approximation)"}
