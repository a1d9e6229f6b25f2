"""Write an experiment's report: CSV tables, PNG plots, ``summary.md``, ``report.html`` and
``config.yaml``.

The one public function is :func:`write_report`. This package is the only part of
fishing2sim that imports matplotlib (with the non-interactive Agg backend). One module per
section (contrasts, depletion, overfishing, trump, strategies, arc, cards); ``common`` holds what they
share and ``html`` renders the page. summary.md and report.html are two renderings of the
same document, so they always say the same thing.

The report is written into a temporary sibling folder (``.<folder>.tmp-<pid>``) and only then
swapped into place (:func:`write_folder_atomically`): a failed or interrupted run never
leaves a half-written report.
"""

from __future__ import annotations

__all__ = ["write_report", "write_folder_atomically", "TABLE_KEYS", "sort_table",
           "render_html", "ReportInputError"]

# The names are loaded on first use (PEP 562): rendering a folder's page (folder.py) needs
# neither matplotlib nor the sections, which take most of a second to import.
_FROM = {"render_html": "folder", "ReportInputError": "folder"}


def __getattr__(name: str):
    import importlib
    import importlib.util

    if name.startswith("__"):
        raise AttributeError(name)
    if importlib.util.find_spec(f"fishing2sim.report.{name}") is not None:
        return importlib.import_module(f"fishing2sim.report.{name}")  # `from . import html`
    module = importlib.import_module(f"fishing2sim.report.{_FROM.get(name, 'write')}")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module 'fishing2sim.report' has no attribute {name!r}") from None
