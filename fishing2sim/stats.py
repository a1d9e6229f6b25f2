"""The interval estimates every table uses: Wilson intervals for shares, the normal
interval from a sum and a sum of squares for means (docs/rules.md, part E)."""
from __future__ import annotations

import math

from .totals import WIN_UNIT as _WIN_UNIT

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
