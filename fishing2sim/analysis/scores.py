"""The scores table: how many times each strategy finished with each number of points (the
final points distribution). Asked for with the strategies analysis. The report's section:
report/scores.py."""
from __future__ import annotations

import numpy as np
import pandas as pd

from fishing2sim.analysis.common import base_columns, played
from fishing2sim.strategy.identity import distinct_names

ANALYSIS = "strategies"


def tables(exp, totals) -> dict:
    scores: list = []
    for cond, t, base, n in played(exp, totals):
        for i, name in enumerate(distinct_names(cond.identities)):
            for pts in np.flatnonzero(t["score_hist"][i]):
                scores.append(dict(base, strategy=name, points=int(pts),
                                   count=int(t["score_hist"][i][pts])))
    return {"scores": pd.DataFrame(scores, columns=base_columns(exp) + ["strategy", "points",
                                                                       "count"])}
