"""Intervals for the mean of paired differences that are mostly 0 (docs/rules.md E, "Per-card
impact"): a card left out of the deck changes few deals' outcome, so the normal interval of
the per-deal differences under-covers and, when no deal differs, has zero width.

- ``paired_share_ci``: differences between -1 and 1 (a flag's, a win share's), from their sum
  and sum of squares: Tango's score interval for the difference of paired proportions, on the
  deals that differ (the discordant pairs b, c: b - c = the sum, b + c = the sum of squares,
  exact for differences of -1, 0 or 1). Its test at 0 is McNemar's. It never has zero width:
  with no deal differing out of n it is ±z²/(n + z²).
- ``paired_mean_ci``: differences of a count (rounds), the t interval of the mean with one
  pseudo-deal a unit up and one a unit down added to its spread (a floor: no zero width).
"""
from __future__ import annotations

import math

from fishing2sim.analysis.stats import Z, crit, p_from_ci


# the 97.5% quantile of Student's t: analysis/stats.py's, under the name this module's
# intervals read it by
t975 = crit


def _score(delta: float, b: float, c: float, n: float) -> float:
    """Tango's score statistic of "the difference is delta" for b deals +1, c deals -1 of
    n: (b - c - n delta) / sqrt(n (2 q + delta (1 - delta))), q the constrained maximum
    likelihood estimate of the share of -1 deals."""
    if delta < 0:
        return -_score(-delta, c, b, n)
    w = delta * (2 * n - b + c) - (b + c)
    q = (-w + math.sqrt(max(0.0, w * w + 8 * n * c * delta * (1 - delta)))) / (4 * n)
    var = n * (2 * q + delta * (1 - delta))
    num = b - c - n * delta
    if var <= 0:
        return 0.0 if num == 0 else math.copysign(math.inf, num)
    return num / math.sqrt(var)


def _root(f, lo: float, hi: float, target: float) -> float:
    """The delta in [lo, hi] where the decreasing f crosses target (bisection)."""
    for _ in range(60):
        mid = (lo + hi) / 2
        if f(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def tango_ci(b: float, c: float, n: float) -> tuple[float, float, float, float]:
    """(b - c) / n with Tango's 95% score interval and McNemar's two-sided p of no
    difference: b deals whose difference is +1, c whose is -1, of n paired deals."""
    if n <= 0:
        return math.nan, math.nan, math.nan, math.nan
    d = (b - c) / n
    def f(x):
        return _score(x, b, c, n)
    lo = -1.0 if f(-1.0) <= Z else _root(f, -1.0, d, Z)
    hi = 1.0 if f(1.0) >= -Z else _root(f, d, 1.0, -Z)
    p = 1.0 if b + c <= 0 else math.erfc(abs(b - c) / math.sqrt(2 * (b + c)))
    return d, min(lo, d), max(hi, d), p


def paired_share_ci(s: float, ss: float, n: float,
                    scale: float = 1.0) -> tuple[float, float, float, float]:
    """The mean of n paired differences between -scale and scale (sum s, sum of squares ss)
    in units of ``scale``, its 95% interval and p: Tango's interval on b - c = s, b + c = the
    sum of squares (at least |s|: a tie's half win counts as half a differing deal)."""
    if n <= 0:
        return math.nan, math.nan, math.nan, math.nan
    su, ssu = s / scale, ss / scale ** 2
    disc = min(float(n), max(ssu, abs(su)))
    return tango_ci((disc + su) / 2, (disc - su) / 2, n)


def paired_mean_ci(s: float, ss: float, n: float,
                   unit: float = 1.0) -> tuple[float, float, float, float]:
    """The mean of n paired differences of a count (sum s, sum of squares ss), its 95%
    interval and p: the t interval (n + 1 degrees of freedom) of the differences with two
    pseudo-deals, one ``unit`` up and one down, added to their spread; the mean is the
    observed one."""
    if n <= 0:
        return math.nan, math.nan, math.nan, math.nan
    m = s / n
    n2, ss2 = n + 2, ss + 2 * unit * unit
    var = max(0.0, ss2 - s * s / n2) / (n2 - 1)
    half = t975(n2 - 1) * math.sqrt(var / n2)
    return m, m - half, m + half, p_from_ci(m, m - half, m + half)
