"""The game-arc table (docs/rules.md E, "Game arc"): how the lead moves during a game, from
the points after every round. Per condition: the lead changes per game (mean and
distribution), the win share of the leader after each round, the comeback share (games won
by a player last after round r), the final margin (mean, distribution, quantiles) and the
observational catch-up figure of the leader rule (the win share of the player with the
fewest points after round r, who leads round r + 1). Asked for with ``analyses: [arc]``
only; the totals are run/totals.py's ``arc_*``. The report's section: report/arc.py."""
from __future__ import annotations

import numpy as np

from fishing2sim.analysis.common import frame, hist_quantile, played, row
from fishing2sim.analysis.stats import mean_ci, share_ci, wilson
from fishing2sim.run.totals import ARC_UNIT

ANALYSIS = "arc"
QUANTILES = (("p05", 0.05), ("p25", 0.25), ("p50", 0.5), ("p75", 0.75), ("p95", 0.95))


def tables(exp, totals) -> dict:
    out: list = []
    for cond, t, base, n in played(exp, totals):
        if "arc_changes" not in t:
            continue
        h = t["arc_changes"].astype(float)
        k = np.arange(h.size)
        row(out, base, "lead_changes_mean", n, *mean_ci((h * k).sum(), (h * k * k).sum(), n))
        for v in range(max(cond.deck.n_rounds, 1)):
            row(out, base, "lead_changes_share", n, *wilson(h[v], n), value=v)
        for r in range(1, cond.deck.n_rounds):
            m = int(t["arc_scored"][r])
            if m == 0:
                continue
            s, ss = t["arc_leader_win"][r].astype(float)
            row(out, base, "leader_win_share", m, *share_ci(s, ss, m, ARC_UNIT), round=r)
            row(out, base, "comeback_share", m, *wilson(t["arc_comeback"][r], m), round=r)
            m1 = int(t["arc_next"][r])
            if m1:
                s, ss = t["arc_last_win"][r].astype(float)
                row(out, base, "fewest_points_win_share", m1, *share_ci(s, ss, m1, ARC_UNIT),
                    round=r)
        mh = t["arc_margin"]
        row(out, base, "final_margin_mean", n, *mean_ci(*t["margin"].astype(float), n))
        for name, q in QUANTILES:
            row(out, base, f"final_margin_{name}", n, hist_quantile(mh, q))
        for v in np.flatnonzero(mh):
            row(out, base, "final_margin_share", n, *wilson(mh[v], n), value=int(v))
    return {"arc": frame(out, exp, ["round", "value"])}
