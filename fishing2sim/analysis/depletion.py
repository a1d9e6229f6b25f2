"""The depletion table (docs/rules.md E): the ocean after each round's draws, how often it
is empty, which rounds and tiers a game reaches. The report's section: report/depletion.py."""
from __future__ import annotations

import numpy as np

from fishing2sim.analysis.common import frame, hist_quantile, played, row
from fishing2sim.analysis.stats import mean_ci, wilson

ANALYSIS = "depletion"


def tables(exp, totals) -> dict:
    dep: list = []
    for cond, t, base, n in played(exp, totals):
        for r in range(1, cond.deck.n_rounds + 1):
            h = t["ocean_hist"][r]
            reached = int(t["reached"][r])
            vals = np.arange(h.size)
            s, ss = float((h * vals).sum()), float((h * vals * vals).sum())
            row(dep, base, "ocean_after_draws_mean", reached, *mean_ci(s, ss, reached), round=r,
                ci_unit="game still running")
            # over all games: a game that has ended (by overfishing) counts an empty ocean
            row(dep, base, "ocean_after_draws_mean_all", n, *mean_ci(s, ss, n), round=r)
            row(dep, base, "ocean_after_draws_p05", reached, hist_quantile(h, 0.05), round=r)
            row(dep, base, "ocean_after_draws_p95", reached, hist_quantile(h, 0.95), round=r)
            row(dep, base, "ocean_empty_share", n, *wilson(t["empty_by"][r], n), round=r)
            row(dep, base, "ocean_empty_or_overfished_share", n,
                *wilson(t["empty_or_over_by"][r], n), round=r)
            row(dep, base, "round_reached_share", n, *wilson(reached, n), round=r)
        for tier in range(1, 6):
            row(dep, base, "tier_reached_share", n, *wilson(t["tier_reached"][tier], n), tier=tier)
    return {"depletion": frame(dep, exp, ["round", "tier"])}
