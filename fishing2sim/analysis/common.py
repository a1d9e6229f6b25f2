"""What every analysis section shares: the tidy row (every estimate with its n, a 95% CI
and the CI's unit), the loop over the conditions that were played, and the frame a
section's rows become."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

# ci_unit: what the 95% CI takes as its independent unit (a game, a rotation block, a
# trump choice, a game still running in that round); n counts what the metric counts
TABLE_COLUMNS = ["metric", "n", "estimate", "ci_low", "ci_high", "ci_unit"]
CHOICE = "trump choice"  # the unit of a round's trump figures: one choice per game and round


def label_keys_of(exp) -> list[str]:
    """The sweep's label keys over every condition, in first-seen order."""
    keys: list[str] = []
    for cond in exp.conditions:
        for k in cond.labels:
            if k not in keys:
                keys.append(k)
    return keys


def hist_quantile(h: np.ndarray, q: float) -> float:
    n = h.sum()
    if n == 0:
        return math.nan
    c = np.cumsum(h)
    return float(np.searchsorted(c, q * n, side="left"))


def row(out, base, metric, n, est, lo=math.nan, hi=math.nan, ci_unit="game", **keys):
    """Append one figure's row to ``out`` (a figure without a CI has no ci_unit)."""
    r = dict(base)
    r.update(keys)
    no_ci = isinstance(lo, float) and math.isnan(lo) and isinstance(hi, float) and math.isnan(hi)
    r.update(metric=metric, n=int(n), estimate=est, ci_low=lo, ci_high=hi,
             ci_unit="" if no_ci else ci_unit)
    out.append(r)


def base_columns(exp) -> list[str]:
    return ["condition"] + label_keys_of(exp)


def played(exp, totals):
    """(condition, its totals, its row's condition and label columns, its games) of every
    condition that has totals."""
    label_keys = label_keys_of(exp)
    for cond, t in zip(exp.conditions, totals):
        if t is None:
            continue
        base = {"condition": cond.index}
        for k in label_keys:
            v = cond.labels.get(k)
            base[k] = v if not isinstance(v, (list, dict)) else str(v)
        yield cond, t, base, int(t["games"][0])


def frame(rows, exp, key_cols) -> pd.DataFrame:
    """A section's table: the condition and label columns, its key columns (round, tier,
    seat as nullable integers), then TABLE_COLUMNS."""
    df = pd.DataFrame(rows, columns=base_columns(exp) + key_cols + TABLE_COLUMNS)
    for c in key_cols:
        if c in ("round", "tier", "seat", "value"):
            df[c] = df[c].astype("Int64")
    return df


def rotation_unit(cond) -> str:
    """The unit of a strategy's figures: the rotation block with seat rotation."""
    return "rotation block" if cond.rotate else "game"
