"""Totals -> tidy tables (docs/rules.md E): every estimate with its n and a 95% CI.

One module per section, each mirroring the report's section of the same name
(fishing2sim/report/): ``ANALYSIS`` (the ``analyses:`` key that asks for it) and
``tables(exp, totals) -> {table name: DataFrame}``. A new figure is a row in its section's
module here and a line in the report's; a new section is one module in each and one entry
in SECTIONS.

Rates of games use Wilson intervals; means use the normal interval from the sum and the
sum of squares; with seat rotation a strategy's win share and points use the rotation
block (one deal in every rotation) as the unit.
"""
from __future__ import annotations

import pandas as pd

from fishing2sim.analysis import (arc, card_impact, decisions, depletion, overfishing, profile,
                                  scores, strategies, trump)
from fishing2sim.analysis.contrasts import contrast_table
from fishing2sim.analysis import panel
from fishing2sim.analysis.ladder import ladder_tables

# in the order of the report's tables
SECTIONS = (depletion, overfishing, trump, strategies, scores, arc, card_impact, decisions, profile)


def tables_from_totals(exp, totals: list, units: list | None = None) -> dict[str, pd.DataFrame]:
    """Every table the experiment's analyses ask for; contrasts where a condition has a
    baseline; the ladder's tables for a ladder."""
    out: dict = {}
    for section in SECTIONS:
        if section.ANALYSIS in exp.analyses:
            out.update(section.tables(exp, totals))
    if any(c.baseline is not None for c in exp.conditions):
        out["contrasts"] = contrast_table(exp, totals, units)
    if getattr(exp, "panel", None) is not None:
        out.update(panel.tables(exp, totals, units, out.get("contrasts")))
        if profile.ANALYSIS in exp.analyses:  # what the disagreeing levels do differently
            out["profile_differences"] = profile.panel_differences(
                exp, totals, out.get("convergence"))
    if "ladder" in exp.analyses and exp.ladder:
        out.update(ladder_tables(exp, totals))
    return out
