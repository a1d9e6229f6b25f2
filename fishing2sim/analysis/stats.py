"""The interval estimates every table uses: Wilson intervals for shares, Student's t
interval from a sum and a sum of squares for means (t with n − 1 degrees of freedom, n the
games or clusters), a share's mean kept inside [0, 1] (docs/rules.md, part E)."""
from __future__ import annotations

import math
from statistics import NormalDist

from fishing2sim.run.totals import WIN_UNIT as _WIN_UNIT

Z = 1.959963984540054  # the 97.5% normal quantile: 95% two-sided intervals
WIN_UNIT = float(_WIN_UNIT)  # win shares are counted in 60ths of a win (ties share it)


def t_quantile(df: float, p: float = 0.975) -> float:
    """The p quantile (p >= 0.5) of Student's t with ``df`` degrees of freedom: Hill's
    algorithm 396 (Comm. ACM 13, 1970) for the two-sided tail 2 (1 − p) (exact for df 1
    and 2, within about 1e-5 beyond), then for whole df up to 300 two Newton steps on the
    exact distribution function; the normal quantile for infinite df. nan below df 1."""
    if not df >= 1:
        return math.nan
    if math.isinf(df) or df > 1e7:
        return NormalDist().inv_cdf(p)
    q = 2.0 * (1.0 - p)  # the two-sided tail
    if df == 1:
        return math.cos(q * math.pi / 2) / math.sin(q * math.pi / 2)
    if df == 2:
        return math.sqrt(2.0 / (q * (2.0 - q)) - 2.0)
    a = 1.0 / (df - 0.5)
    b = 48.0 / (a * a)
    c = ((20700.0 * a / b - 98.0) * a - 16.0) * a + 96.36
    d = ((94.5 / (b + c) - 3.0) / b + 1.0) * math.sqrt(a * math.pi / 2) * df
    y = (d * q) ** (2.0 / df)
    if y > 0.05 + a:
        x = NormalDist().inv_cdf(q / 2)
        y = x * x
        if df < 5:
            c += 0.3 * (df - 4.5) * (x + 0.6)
        c = (((0.05 * d * x - 5.0) * x - 7.0) * x - 2.0) * x + b + c
        y = (((((0.4 * y + 6.3) * y + 36.0) * y + 94.5) / c - y - 3.0) / b + 1.0) * x
        y = math.expm1(a * y * y)
    else:
        y = ((1.0 / (((df + 6.0) / (df * y) - 0.089 * d - 0.822) * (df + 2.0) * 3.0)
              + 0.5 / (df + 4.0)) * y - 1.0) * (df + 1.0) / (df + 2.0) + 1.0 / y
    t = math.sqrt(df * y)
    if df == int(df) and df <= 300:  # two Newton steps on the exact distribution function
        for _ in range(2):
            t -= (_t_central(t, int(df)) - (2.0 * p - 1.0)) / (2.0 * _t_density(t, df))
    return t


def _t_central(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with a whole number of degrees of freedom, in closed form
    (Abramowitz and Stegun 26.7.3-4)."""
    th = math.atan(t / math.sqrt(df))
    c2, s = math.cos(th) ** 2, math.sin(th)
    if df % 2 == 0:
        term = total = 1.0
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        return s * total
    if df == 1:
        return 2.0 * th / math.pi
    term = total = math.cos(th)
    for k in range(1, (df - 1) // 2):
        term *= c2 * (2 * k) / (2 * k + 1)
        total += term
    return 2.0 / math.pi * (th + s * total)


def _t_density(t: float, df: float) -> float:
    return math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)
                    - (df + 1) / 2 * math.log1p(t * t / df)) / math.sqrt(df * math.pi)


def crit(df: float) -> float:
    """The multiplier of a standard error for a 95% two-sided interval with ``df`` degrees
    of freedom (Student's t; nan below 1)."""
    return t_quantile(df, 0.975)


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
    half = crit(n - 1) * math.sqrt(var / n) if n > 1 else math.nan
    return m / scale, (m - half) / scale, (m + half) / scale


def mean_se(s: float, ss: float, n: float, scale: float = 1.0) -> float:
    """The standard error of the mean behind :func:`mean_ci` (nan below 2 observations)."""
    if n <= 1:
        return math.nan
    m = s / n
    return math.sqrt(max(0.0, ss / n - m * m) / (n - 1)) / scale


def share_ci(s: float, ss: float, n: float, scale: float = 1.0) -> tuple[float, float, float]:
    """The mean of per-game shares in [0, 1] (a win share, ties sharing the win): the t
    interval of :func:`mean_ci` kept inside [0, 1]; where every game gave the same share
    (no spread to estimate, or a single game) the Wilson interval of that share over the n
    games. nan without games."""
    e, lo, hi = mean_ci(s, ss, n, scale)
    if n <= 0:
        return e, lo, hi
    if n < 2 or hi - lo <= 0:
        _, lo, hi = wilson(e * n, n)
    return e, max(0.0, lo), min(1.0, hi)


def ratio_ci(sx: float, sxx: float, sxm: float, sm: float, smm: float, clusters: float,
             scale: float = 1.0) -> tuple[float, float, float, float]:
    """A mean over events that come in clusters (a game's several trump choices), with the
    cluster as the unit: q = Σx / Σm over the clusters (x a cluster's sum, m its events),
    its standard error the delta method's (linearisation of a ratio of sums):
    se² = Σ (x_g − q m_g)² / (G (G − 1) m̄²), m̄ = Σm / G, from the sums Σx, Σx², Σxm, Σm,
    Σm² over the G clusters (clusters without events count, with x = m = 0), the interval
    q ± t se with t on G − 1 degrees of freedom. Returns
    (estimate, lo, hi, se), all divided by ``scale``."""
    if sm <= 0:
        return math.nan, math.nan, math.nan, math.nan
    q = sx / sm
    if clusters < 2:
        return q / scale, math.nan, math.nan, math.nan
    mbar = sm / clusters
    resid = max(0.0, sxx - 2 * q * sxm + q * q * smm)
    se = math.sqrt(resid / (clusters * (clusters - 1))) / mbar
    z = crit(clusters - 1)
    return q / scale, (q - z * se) / scale, (q + z * se) / scale, se / scale


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
