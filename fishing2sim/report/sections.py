"""The report's sections, one module each, mirroring analysis/ (analysis/tables.py,
``SECTIONS``). Each module declares what report/write.py needs of it:

- ``ANALYSIS``: the ``analyses:`` entry whose section it writes (as its analysis module's
  ``ANALYSIS``); None for the sections written first whenever their tables are there (the
  contrasts, then the skill panel);
- ``PLOTS``: its plots, each (table, the name of its plot function in the module, file);
  a plot is drawn when its table has rows (and the module's ``plotted(ctx, df)``, if it has
  one, says so);
- ``write_section(ctx, doc, plots)``: its section of the document (summary.md and
  report.html are two renderings of it: report/html.py needs nothing of a section);
- ``TERMS`` (optional): its words for the Terms list, shown when its table is there.

A new analysis: one module in analysis/ (added to analysis/tables.py's ``SECTIONS``), one
here in report/, and its row below (docs/architecture.md, "Where a change goes").
"""
from __future__ import annotations

from fishing2sim.report import arc, card_impact, contrasts, decisions, depletion, ladder
from fishing2sim.report import overfishing, panel, profile, scores, strategies, trump

# in the order of the plots; the document writes the ANALYSIS None rows first, then the
# analyses in the order asked for, each analysis's rows in this order
SECTIONS = (contrasts, depletion, overfishing, trump, strategies, scores, ladder, arc, panel,
            card_impact, decisions, profile)

# every plot a run's report can have: (table, plot function, file)
PLOTS = tuple(p for s in SECTIONS for p in s.PLOTS)
