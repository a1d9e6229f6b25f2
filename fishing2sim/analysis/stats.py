"""The interval estimates every table uses: Wilson intervals for shares, the normal
interval from a sum and a sum of squares for means (docs/rules.md, part E)."""
from __future__ import annotations

import math

from fishing2sim.run.totals import WIN_UNIT as _WIN_UNIT

Z = 1.959963984540054  # the 97.5% normal quantile: 95% two-sided intervals
WIN_UNIT = float(_WIN_UNIT)  # win shares are counted in 60ths of a win (ties share it)


def wilson(k: float, n: float) -> tuple[float, float, float]:
    if n <= 0:
        return math.nan, math.nan, math.nan
    p = k / n
    den = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / den
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / den
    return p, max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(s: float, ss: float, n: float, scale: float = 1.0) -> tuple[float, float, float]:
    if n <= 0:
        return math.nan, math.nan, math.nan
    m = s / n
    var = max(0.0, ss / n - m * m) * n / (n - 1) if n > 1 else math.nan
    half = Z * math.sqrt(var / n) if n > 1 else math.nan
    return m / scale, (m - half) / scale, (m + half) / scale


def ratio_ci(sx: float, sxx: float, sxm: float, sm: float, smm: float, clusters: float,
             scale: float = 1.0) -> tuple[float, float, float, float]:
    """A mean over events that come in clusters (a game's several trump choices), with the
    cluster as the unit: q = Σx / Σm over the clusters (x a cluster's sum, m its events),
    its standard error the delta method's (linearisation of a ratio of sums):
    se² = Σ (x_g − q m_g)² / (G (G − 1) m̄²), m̄ = Σm / G, from the sums Σx, Σx², Σxm, Σm,
    Σm² over the G clusters (clusters without events count, with x = m = 0). Returns
    (estimate, lo, hi, se), all divided by ``scale``."""
    if sm <= 0:
        return math.nan, math.nan, math.nan, math.nan
    q = sx / sm
    if clusters < 2:
        return q / scale, math.nan, math.nan, math.nan
    mbar = sm / clusters
    resid = max(0.0, sxx - 2 * q * sxm + q * q * smm)
    se = math.sqrt(resid / (clusters * (clusters - 1))) / mbar
    return q / scale, (q - Z * se) / scale, (q + Z * se) / scale, se / scale


def p_from_ci(d: float, lo: float, hi: float) -> float:
    """The two-sided p-value of "no difference" implied by an estimate and its 95% CI: the
    standard error read from the side of the CI toward 0 (so the CI excludes 0 exactly when
    p < 0.05, also for Newcombe's asymmetric interval). nan without a CI."""
    if any(math.isnan(v) for v in (d, lo, hi)):
        return math.nan
    se = (d - lo) / Z if d >= 0 else (hi - d) / Z
    if se <= 0:
        return 1.0 if d == 0 else 0.0
    return math.erfc(abs(d) / se / math.sqrt(2.0))


MULTIPLICITY = ("holm", "bh", "none")


def adjust_p(p, method: str = "holm") -> list:
    """p-values adjusted for a family of tests: Holm's step-down (the family-wise error
    rate), Benjamini–Hochberg's step-up (the false discovery rate) or none. nan entries are
    not tests and stay nan."""
    p = [float(x) for x in p]
    idx = [i for i, x in enumerate(p) if not math.isnan(x)]
    out = [math.nan] * len(p)
    m = len(idx)
    if method == "none" or m == 0:
        return p
    order = sorted(idx, key=lambda i: p[i])
    if method == "holm":
        run = 0.0
        for rank, i in enumerate(order):
            run = max(run, min(1.0, (m - rank) * p[i]))
            out[i] = run
    elif method == "bh":
        run = 1.0
        for rank in range(m - 1, -1, -1):
            i = order[rank]
            run = min(run, min(1.0, m * p[i] / (rank + 1)))
            out[i] = run
    else:
        raise ValueError(f"unknown multiplicity adjustment {method!r}")
    return out


def chi2_sf(x: float, k: int) -> float:
    """P(X > x) for a chi-square variable with k (whole) degrees of freedom, in closed form
    (the regularised upper gamma function at a half-integer shape)."""
    if x <= 0:
        return 1.0
    h = x / 2.0
    if k % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, k // 2):
            term *= h / i
            total += term
        return min(1.0, math.exp(-h) * total)
    total = math.erfc(math.sqrt(h))
    term = math.sqrt(h) * math.exp(-h) * 2.0 / math.sqrt(math.pi)
    for i in range(1, (k + 1) // 2):
        total += term
        term *= h / (i + 0.5)
    return min(1.0, total)


def equal_means_test(s, cross, n: float) -> tuple[float, float, int]:
    """The Wald test that k means are equal, from per-observation vectors (a game's win
    share of each seat): ``s`` the k sums, ``cross`` the k x k sums of products, ``n`` the
    observations. The differences to the last mean, d̄, and their sample covariance S_d
    give W = n d̄ᵀ S_d⁻¹ d̄, chi-square with k − 1 degrees of freedom under equality.
    Returns (W, p-value, k − 1); (nan, nan, k − 1) when S_d is singular (e.g. every game
    alike)."""
    import numpy as np

    s = np.asarray(s, float)
    cross = np.asarray(cross, float)
    k = s.size
    if n < k + 1 or k < 2:
        return math.nan, math.nan, k - 1
    mean = s / n
    cov = (cross - n * np.outer(mean, mean)) / (n - 1)
    C = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    d = C @ mean
    Sd = C @ cov @ C.T
    try:
        if np.linalg.cond(Sd) > 1e12:
            return math.nan, math.nan, k - 1
        w = float(n * d @ np.linalg.solve(Sd, d))
    except np.linalg.LinAlgError:
        return math.nan, math.nan, k - 1
    return w, chi2_sf(w, k - 1), k - 1


def mean_vs_value_p(s: float, ss: float, n: float, value: float) -> float:
    """The two-sided p-value of "the mean is ``value``" from a sum and a sum of squares."""
    if n < 2:
        return math.nan
    m = s / n
    var = max(0.0, ss / n - m * m) * n / (n - 1)
    if var <= 0:
        return 1.0 if m == value else 0.0
    return math.erfc(abs(m - value) / math.sqrt(var / n) / math.sqrt(2.0))
