"""The strategies table (docs/rules.md E): each strategy's win share and mean points, each
seat's win share and the test that the seats are equal, the first leader's edge, the spread
of points, completed and overfished games. The report's section: report/strategies.py."""
from __future__ import annotations

from fishing2sim.analysis.common import frame, played, rotation_unit, row
from fishing2sim.analysis.stats import (WIN_UNIT, equal_means_test, mean_ci, mean_vs_value_p,
                                        share_ci, wilson)
from fishing2sim.strategy.identity import distinct_names

ANALYSIS = "strategies"


def _seat_rows(strat, base, t, n, players) -> None:
    for p in range(players):
        s, ss = t["seat_win"][p].astype(float)
        row(strat, base, "win_share", n, *share_ci(s, ss, n, WIN_UNIT), seat=p)
    w, pw, _ = equal_means_test(t["seat_win"][:players, 0],
                                t["seat_win_cross"][:players, :players], n)
    row(strat, base, "seat_equality_chi2", n, w)
    row(strat, base, "seat_equality_p_value", n, pw)
    s, ss = t["first_leader_win"].astype(float)
    e, lo, hi = share_ci(s, ss, n, WIN_UNIT)
    row(strat, base, "first_leader_win_share", n, e, lo, hi)
    fair = 1 / players
    row(strat, base, "first_leader_edge", n, e - fair, lo - fair, hi - fair)
    row(strat, base, "first_leader_fair_share_p_value", n,
        mean_vs_value_p(s, ss, n, WIN_UNIT / players))


def tables(exp, totals) -> dict:
    strat: list = []
    for cond, t, base, n in played(exp, totals):
        units_n = int(t["strat_units"][0])
        block = rotation_unit(cond)
        for i, name in enumerate(distinct_names(cond.identities)):
            per_unit = t["strat_seats"][i] / max(units_n, 1)
            s, ss = t["strat_win"][i].astype(float)
            row(strat, base, "win_share", t["strat_seats"][i],
                *share_ci(s, ss, units_n, WIN_UNIT * per_unit), strategy=name, ci_unit=block)
            s, ss = t["strat_points"][i].astype(float)
            row(strat, base, "mean_points", t["strat_seats"][i],
                *mean_ci(s, ss, units_n, per_unit), strategy=name, ci_unit=block)
        _seat_rows(strat, base, t, n, cond.players)
        row(strat, base, "points_spread_mean", n, *mean_ci(*t["spread"].astype(float), n))
        row(strat, base, "completed_share", n, *wilson(t["completed"][0], n))
        row(strat, base, "overfished_share", n, *wilson(t["overfished"][0], n))
    return {"strategies": frame(strat, exp, ["strategy", "seat"])}
