"""What a game costs, by its lineup: the progress bar's weights.

A game with pimc in every seat costs about a thousand random ones, so a skill panel's bar
that counted games sat at 50% for minutes while its search level played. The bar counts
work instead: each game weighted by its lineup's cost, the mean over its seats of the
seconds one core takes per game with that seat's bot in every seat, measured by
``python benchmarks/bot_costs.py`` into ``fishing2sim/data/bot_costs.csv``. A bot the table
does not name (a strategy file of one's own) costs what a shipped bot of its kind does: a
search bot the shipped search bots' median, any other bot ``weights``'.
"""
from __future__ import annotations

import csv
import functools
import statistics
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "data" / "bot_costs.csv"


@functools.lru_cache(maxsize=1)
def table() -> dict:
    """(bot, ruleset, players) -> CPU seconds per game; {} without a readable table."""
    try:
        with TABLE.open() as f:
            return {(r["bot"], r["ruleset"], int(r["players"])): float(r["seconds_per_game"])
                    for r in csv.DictReader(f)}
    except (OSError, ValueError, KeyError):
        return {}


def bot_cost(name: str, kind: str, ruleset: str, players: int) -> float | None:
    """Seconds per game with ``name`` in every seat (the nearest player count the table has;
    a bot it does not name: its kind's), or None without a table."""
    t = table()
    if not t:
        return None
    own = {p: s for (b, r, p), s in t.items() if b == name and r == ruleset} or \
          {p: s for (b, r, p), s in t.items() if b == name}
    if own:
        return own[min(own, key=lambda p: abs(p - players))]
    like = "cheater" if kind == "cheater" else "pimc" if kind == "search" else "weights"
    if like == "pimc":
        searches = [s for (b, r, p), s in t.items() if b in ("pimc", "ismcts", "pimc_skilled")
                    and r == ruleset and p == players]
        if searches:
            return statistics.median(searches)
    return bot_cost(like, "heuristic", ruleset, players) if like != name else None


def game_cost(cond) -> float:
    """A game's weight for the bar: the mean cost of its seats' bots (1.0 without a table)."""
    ids = getattr(cond, "identities", ()) or ()
    costs = [bot_cost(i.name, i.kind, cond.deck.ruleset, cond.players) for i in ids]
    costs = [c for c in costs if c]
    return statistics.fmean(costs) if costs else 1.0
