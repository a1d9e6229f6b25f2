"""The report as a document: a list of blocks rendered twice, as summary.md (here) and as
report.html (html.py), so the two always say the same thing; and the terms it defines."""

from __future__ import annotations

#: Every term the report uses, defined once (the same text is in docs/experiments.md).
TERMS = {
    "95% CI": "the 95% confidence interval: the range that covers the true value in 95 of "
              "100 such runs. Shown as [low, high].",
    "n": "the number of observations behind an estimate (games, trump choices, or "
         "seat-games of a strategy).",
    "pp (percentage points)": "the difference of two percentages: from 8.8% to 12.0% is "
                              "+3.2 pp (a ratio of ×1.36).",
    "no measurable effect (at most X)": "the 95% CI of the difference includes 0: the run "
                                        "cannot tell the effect from chance, and it is at "
                                        "most X either way.",
    "baseline": "the condition the others are compared with (marked baseline: true in the "
                "experiment file; one per player count when players are swept).",
    "contrast": "condition − baseline, with its 95% CI; for shares also the ratio "
                "condition / baseline.",
    "paired / independent": "paired: the two conditions played the same deals (paired: "
                            "true; same players, deck and seats, only the play differs), so "
                            "the difference is taken game by game and its CI is narrower; "
                            "independent: separate deals, the two CIs combine.",
    "overfishing": "a game ends by overfishing when the ocean cannot supply a draw; the "
                   "overfished share is the share of games that end so.",
    "ocean (running games)": "cards left in the ocean after a round's draws, averaged over "
                             "the games still running in that round.",
    "ocean (all games)": "the same over all games, an overfished game counting as an empty "
                         "ocean (0 cards) from its end.",
    "survival": "the share of games still running at the start of each round.",
    "policy gain (trump value)": "for each trump choice the game is finished once with "
                                 "each shade; the policy gain is the mean of (chosen − "
                                 "other)/2 in the chooser's final points: what the seats' "
                                 "own choices gain over a coin flip.",
    "perfect chooser (trump choice)": "what a chooser who always knew the better shade "
                                      "would gain per choice over a coin flip, as a range. "
                                      "At least: take the shade that did better in one pair "
                                      "of replays and score it on an independent pair (CSV "
                                      "metric stakes_half_low_points). At most: half the "
                                      "typical points gap between the shades, the square "
                                      "root of the gap's mean square (stakes_half_points; "
                                      "stakes_points is the whole gap).",
    "win share": "the share of games a strategy wins, tied winners sharing the win; the "
                 "fair share is 1/players.",
}



# --------------------------------------------------------------------------------------------
# document blocks: one list, two renderings (summary.md and report.html)
# --------------------------------------------------------------------------------------------
class Doc:
    """A list of blocks: ("h1"|"h2"|"h3"|"p", text), ("img", alt, file),
    ("table", header, rows), ("terms", {term: definition}), ("code", language, text) (a
    block whose lines are kept as they are: a fenced block in summary.md, ``<pre><code>`` in
    report.html)."""

    def __init__(self):
        self.blocks: list = []

    def h(self, level: int, text: str):
        self.blocks.append((f"h{level}", text))

    def p(self, text: str):
        if text:
            self.blocks.append(("p", text))

    def img(self, alt: str, fname: str | None):
        if fname:
            self.blocks.append(("img", alt, fname))

    def ul(self, items: list[str]):
        if items:
            self.blocks.append(("ul", list(items)))

    def table(self, header: list[str], rows: list[list[str]]):
        self.blocks.append(("table", header, rows))

    def terms(self, terms: dict):
        self.blocks.append(("terms", terms))

    def code(self, text: str, language: str = ""):
        """Lines shown and copied as they are (the YAML to paste into a file)."""
        self.blocks.append(("code", language, text.rstrip("\n")))

    def markdown(self) -> str:
        out: list[str] = []
        for b in self.blocks:
            kind = b[0]
            if kind.startswith("h"):
                out += ["#" * int(kind[1]) + " " + b[1], ""]
            elif kind == "p":
                out += [b[1], ""]
            elif kind == "ul":
                out += [f"- {x}" for x in b[1]] + [""]
            elif kind == "img":
                out += [f"![{b[1]}]({b[2]})", ""]
            elif kind == "table":
                out += [md_table(b[1], b[2]), ""]
            elif kind == "terms":
                out += [f"- **{t}**: {d}" for t, d in b[1].items()] + [""]
            elif kind == "code":
                fence = fence_for(b[2])
                out += [fence + b[1], b[2], fence, ""]
        return "\n".join(out).rstrip() + "\n"


def fence_for(text: str) -> str:
    """The fence of a code block holding ``text``: three backticks, or more than the longest
    run of backticks that starts one of its lines (so that line cannot close the block)."""
    longest = 0
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        longest = max(longest, len(stripped) - len(stripped.lstrip("`")))
    return "`" * max(3, longest + 1)


def md_cell(text) -> str:
    """A table cell's markdown: a "|" in it is escaped ("\\|", as GitHub's tables read it) and a
    line break becomes a space, so a name holding either (a bot's NAME, a parameter's name)
    stays in its own cell of its own row. ``table_cells`` reads it back."""
    return str(text).replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def md_table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(map(md_cell, header)) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(map(md_cell, r)) + " |" for r in rows]
    return "\n".join(out)


def table_cells(line: str) -> list[str]:
    """The cells of one markdown table row written by ``md_table``: split at each "|" that
    is not escaped, each "\\|" read back as "|"."""
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") and not s.endswith("\\|") else s
    cells, cur, i = [], [], 0
    while i < len(s):
        if s.startswith("\\|", i):
            cur.append("|")
            i += 2
        elif s[i] == "|":
            cells.append("".join(cur).strip())
            cur = []
            i += 1
        else:
            cur.append(s[i])
            i += 1
    cells.append("".join(cur).strip())
    return cells


