"""The overfishing table (docs/rules.md E): how often a game ends by overfishing, in which
round, by a draw-1-card buoy, and how many rounds are played. The report's section:
report/overfishing.py."""
from __future__ import annotations

from fishing2sim.analysis.common import frame, played, row
from fishing2sim.analysis.stats import mean_ci, wilson

ANALYSIS = "overfishing"


def tables(exp, totals) -> dict:
    ovf: list = []
    for cond, t, base, n in played(exp, totals):
        row(ovf, base, "overfished_share", n, *wilson(t["overfished"][0], n))
        row(ovf, base, "overfished_by_draw_1_card_share", n, *wilson(t["overfished_d1c"][0], n))
        row(ovf, base, "mean_rounds_played", n, *mean_ci(*t["rounds_sum"].astype(float), n))
        for r in range(2, cond.deck.n_rounds + 1):
            row(ovf, base, "overfished_in_round_share", n,
                *wilson(t["overfished_round"][r], n), round=r)
    return {"overfishing": frame(ovf, exp, ["round"])}
