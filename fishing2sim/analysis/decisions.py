"""The decision-stakes table (docs/rules.md E, "Decision stakes"): per decision kind, how
much the choice moves the deciding seat's result (the stakes, as a bracket), and what the
seats' own choices gain over a uniformly random option (the policy gain), pooled over the
seats and per strategy; in points and in win share. Asked for with ``analyses:
[decisions]``; the totals are run/decision_totals.py's ``dec_*``, from the replays of
engine/decisions.py. Every CI is clustered by unit (a game, or a rotation block): a game's
replayed decisions are not independent. The report's section: report/decisions.py."""
from __future__ import annotations

import math

from fishing2sim.analysis.common import frame, played, rotation_unit, row
from fishing2sim.analysis.stats import WIN_UNIT, ratio_ci
from fishing2sim.engine.constants import DECISION_NAMES
from fishing2sim.run.decision_totals import DEC_X
from fishing2sim.strategy.identity import distinct_names

ANALYSIS = "decisions"
UNITS = (("points", 1.0), ("win", WIN_UNIT))


def _sq(x):
    return math.sqrt(max(0.0, x)) if not math.isnan(x) else math.nan


def _clustered(sums, m, units, scale) -> tuple:
    """(estimate, lo, hi) of the mean per decision of a figure from its clustered sums."""
    sx, sxx, sxm = (float(v) for v in sums)
    return ratio_ci(sx, sxx, sxm, float(m[0]), float(m[1]), units, scale)[:3]


def _kind_rows(out, base, t, d, units, unit_name) -> None:
    kind = DECISION_NAMES[d]
    m = int(t["dec_n"][d])
    row(out, base, "mean_options", m, t["dec_options"][d] / m, kind=kind)
    for unit, scale in UNITS:
        game, gm = t["dec_game"][d], t["dec_game_m"][d]
        gain = _clustered(game[DEC_X[f"g_{unit}"]], gm, units, scale)
        est, lo, hi = _clustered(game[DEC_X[f"prod_{unit}"]], gm, units, scale * scale)
        low = _clustered(game[DEC_X[f"cross_{unit}"]], gm, units, 4 * scale)
        keys = {"kind": kind, "ci_unit": unit_name}
        row(out, base, f"policy_gain_{unit}", m, *gain, **keys)
        row(out, base, f"stakes_{unit}", m, _sq(est), _sq(lo), _sq(hi), **keys)
        row(out, base, f"stakes_half_{unit}", m, _sq(est) / 2, _sq(lo) / 2, _sq(hi) / 2,
            **keys)
        row(out, base, f"stakes_half_low_{unit}", m, *low, **keys)


def _strategy_rows(out, base, t, d, names, units, unit_name) -> None:
    for s, name in enumerate(names):
        gm = t["dec_strat_game_m"][s, d]
        if gm[0] == 0:
            continue
        for u, (unit, scale) in enumerate(UNITS):
            gain = _clustered(t["dec_strat_game"][s, d, u], gm, units, scale)
            row(out, base, f"policy_gain_{unit}", int(gm[0]), *gain,
                kind=DECISION_NAMES[d], strategy=name, ci_unit=unit_name)


def tables(exp, totals) -> dict:
    out: list = []
    for cond, t, base, n in played(exp, totals):
        if "dec_n" not in t:
            continue
        units = float(t["strat_units"][0])
        unit_name = rotation_unit(cond)
        names = distinct_names(cond.identities)
        sampled, left = (int(v) for v in t["dec_sampled"])
        row(out, base, "decisions_sampled", n, float(sampled))
        row(out, base, "decisions_left_out", n, float(left))
        for d in range(len(DECISION_NAMES)):
            if t["dec_n"][d] == 0:
                continue
            _kind_rows(out, base, t, d, units, unit_name)
            _strategy_rows(out, base, t, d, names, units, unit_name)
    return {"decisions": frame(out, exp, ["kind", "strategy"])}
