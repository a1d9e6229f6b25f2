"""Plot layout that every section shares: legends outside the panels, titles that fit."""

from __future__ import annotations

import textwrap
from typing import Any, Iterable

#: the most lines a plot label is wrapped into; the rest is cut to "…". matplotlib lays out
#: and draws every glyph of a text each time a figure is drawn, so a condition name of
#: 200,000 characters took minutes per plot; summary.md and the CSVs keep the whole text.
PLOT_LABEL_LINES = 8


def wrap(text: str, width: int, max_lines: int = PLOT_LABEL_LINES) -> str:
    """``text`` wrapped to ``width`` for a plot, at most ``max_lines`` lines (the last one
    ending in "…" when cut)."""
    text = str(text)
    limit = width * max_lines + 1  # textwrap splits all it is given: give what can show
    cut = len(text) > limit
    lines = textwrap.wrap(text[:limit] if cut else text, width=width, break_long_words=True,
                          max_lines=max_lines, placeholder=" …")
    if cut and lines and not lines[-1].endswith("…"):
        lines[-1] += " …"
    return "\n".join(lines) or text[:limit]


def finish(ax_list: Iterable, legend: bool) -> None:
    """A grid on each axes; with ``legend``, one legend of their labels right of the last."""
    ax_list = list(ax_list)
    seen: dict[str, Any] = {}
    for ax in ax_list:
        ax.grid(True, alpha=0.3)
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    if legend and seen and ax_list:
        legend_outside(ax_list[-1], list(seen.values()), list(seen))


def legend_outside(ax, handles: list, labels: list[str], title: str | None = None):
    """A legend to the right of ``ax``, outside its data area; the figure is widened by the
    legend's width (once per figure, by the widest such legend) so the panels keep their
    size. tight_layout (``_save_figure``) then makes room for it."""
    leg = ax.legend(handles, labels, fontsize=8, frameon=False, loc="upper left",
                    bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, title=title,
                    title_fontsize=8)
    fig = ax.figure
    need = leg.get_window_extent(fig.canvas.get_renderer()).width / fig.dpi + 0.3
    done = getattr(fig, "_fishing2sim_legend_in", 0.0)
    if need > done:
        w, h = fig.get_size_inches()
        fig.set_size_inches(w + need - done, h)
        fig._fishing2sim_legend_in = need
    return leg


def fit_titles(fig) -> None:
    """Re-wrap the figure's title and each axes title so that every line fits: the figure
    title within the figure's width, an axes title within its axes' width. matplotlib
    clips a title that is wider than the figure."""
    renderer = fig.canvas.get_renderer()
    texts = []
    if fig._suptitle is not None and fig._suptitle.get_text():
        texts.append((fig._suptitle, 0.96 * fig.bbox.width))
    for ax in fig.get_axes():
        if ax.title.get_text() and ax.get_visible():
            texts.append((ax.title, 1.05 * ax.get_window_extent(renderer).width))
    for t, room in texts:
        text = t.get_text()
        flat = " ".join(text.split())
        width = max(len(line) for line in text.split("\n"))
        while t.get_window_extent(renderer).width > room and width > 12:
            width = max(12, int(width * min(0.95, room / t.get_window_extent(renderer).width)))
            t.set_text(wrap(flat, width))


# the sections' titles (their h2 headings), by analysis: here, without plotting, so the page
# (report/html.py) can find them without importing matplotlib
TITLES = {
    "contrasts": "Contrasts against the baseline",
    "depletion": "Ocean depletion",
    "overfishing": "Overfishing",
    "trump_value": "Trump-choice value",
    "strategies": "Strategies",
    "ladder": "Strength ladder",
    "arc": "Game arc",
    "panel": "Levels of play",
    "cards": "Per-card impact",
    "decisions": "Decision stakes",
    "profile": "What the players do (behaviour profile)",
}
