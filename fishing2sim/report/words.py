"""Numbers and plain words of the reports: how an estimate with its CI is written, and the
verdict words of a difference ("raises ... by", "has no measurable effect on ...")."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd


def isnan(x: Any) -> bool:
    try:
        return x is None or x is pd.NA or bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def num(x: Any) -> str:
    """A percentile: at most one decimal, no trailing ``.0``."""
    return f"{float(x):.1f}".removesuffix(".0")


def int_(x: Any) -> str:
    if isnan(x):
        return "–"
    return f"{int(x):,}"


def decimals(hw: float, default: int) -> int:
    if isnan(hw):
        return default
    if hw <= 0:
        return min(default, 1)
    return int(min(4, max(default if default < 1 else 1, -math.floor(math.log10(hw)))))


def fmt(est: Any, lo: Any = None, hi: Any = None, *, pct: bool = False, table: bool = False,
        default: int = 2, n: Any = None, unit: str = "") -> str:
    """``12.3% [11.9, 12.7]`` (table) or ``12.3% (95% CI 11.9–12.7%, n = 2,000)`` (text)."""
    if isnan(est):
        return "–"
    s = 100.0 if pct else 1.0
    u = "%" if pct else ""
    e = float(est) * s
    ntext = f", n = {int_(n)}" if n is not None else ""
    has_ci = not (isnan(lo) or isnan(hi))
    hw = (float(hi) - float(lo)) * s / 2 if has_ci else float("nan")
    d = decimals(hw, 1 if pct else default)
    if not has_ci:
        return f"{e:.{d}f}{u}{unit}" + (f" (n = {int_(n)})" if n is not None else "")
    lo_, hi_ = float(lo) * s, float(hi) * s
    if table:
        return f"{e:.{d}f}{u} [{lo_:.{d}f}, {hi_:.{d}f}]"
    sep = " to " if lo_ < 0 else "–"
    return f"{e:.{d}f}{u}{unit} (95% CI {lo_:.{d}f}{sep}{hi_:.{d}f}{u}{ntext})"


def ci(row: Any, **kw: Any) -> str:
    return fmt(row["estimate"], row["ci_low"], row["ci_high"], **kw)


def pp_ci(row: Any) -> str:
    """A difference of shares (a fraction) in a table: ``-2.1 pp [-3.4, -0.8]``."""
    if row is None:
        return "–"
    return ci(row, pct=True, table=True).replace("%", " pp", 1)


def max_hw(rows: pd.DataFrame, scale: float = 1.0) -> float:
    if rows is None or not len(rows):
        return float("nan")
    hw = (rows["ci_high"].astype(float) - rows["ci_low"].astype(float)) * scale / 2
    hw = hw.dropna()
    return float(hw.max()) if len(hw) else float("nan")


def hw_text(hw: float, unit: str) -> str:
    if isnan(hw):
        return ""
    d = decimals(hw / 10, 1)
    return f"±{hw:.{d}f}{unit}"


def number(x: float, hw: float) -> str:
    """``x`` with as many decimals as its CI half-width ``hw`` warrants."""
    d = decimals(hw, 1)
    return f"{x:.{d}f}"


ADJUSTMENTS = {"holm": "Holm's adjustment", "bh": "the Benjamini-Hochberg adjustment"}


def effect(d: float, lo: float, hi: float, unit: str, what: str, *, up: str = "raises",
           down: str = "lowers", adjusted: tuple | None = None) -> str:
    """Plain words for a difference with its 95% CI: "raises overfishing by 6.5 percentage
    points (95% CI 3.1 to 9.8)", or "has no measurable effect on overfishing (at most 1.2
    percentage points either way)" when the CI includes 0. ``adjusted`` (p adjusted for the
    report's family of contrasts, method, family size): a CI that excludes 0 whose adjusted
    p is 0.05 or more is no measurable effect either, said with both figures."""
    if isnan(d):
        return f"cannot be compared on {what}"
    if isnan(lo) or isnan(hi):
        return f"changes {what} by {d:+.3g} {unit} (too few games for a CI)"
    hw = (hi - lo) / 2
    if lo <= 0 <= hi:
        most = max(abs(lo), abs(hi))
        return f"has no measurable effect on {what} (at most {number(most, hw)} {unit} " \
               "either way, 95%)"
    verb = up if d > 0 else down
    a, b = (lo, hi) if d > 0 else (-hi, -lo)  # the CI of the size of the change
    if adjusted is not None and not isnan(adjusted[0]) and adjusted[0] >= 0.05 \
            and adjusted[1] in ADJUSTMENTS:
        p, method, k = adjusted
        return (f"has no measurable effect on {what} once the report's {k} contrasts are "
                f"taken together ({ADJUSTMENTS[method]}: p = {p:.2g}; alone it would "
                f"{verb.removesuffix('s')} it by {number(abs(d), hw)} {unit}, 95% CI "
                f"{number(a, hw)} to {number(b, hw)})")
    return f"{verb} {what} by {number(abs(d), hw)} {unit} (95% CI {number(a, hw)} to " \
           f"{number(b, hw)})"


def sentence(who: str, text: str) -> str:
    text = text[:1].upper() + text[1:] if not who else text
    return f"{who}{text}."
