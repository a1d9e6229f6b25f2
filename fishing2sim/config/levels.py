"""The skill panel of an experiment (``play_levels:``): every condition played at several
levels of play, each level a lineup with its own number of games.

    play_levels: [random, greedy, skilled, search]

or, with every option:

    play_levels:
      levels:
        - random                                   # a shorthand (LEVEL_SEATS)
        - {level: greedy, games: 20000}
        - {level: search, seats: {strategy: pimc, params: [24, 1, 0, 0]}, games: 1000}
      relative_to: random                          # the verdicts' reference level
      converged_within: {overfishing: 2pp}         # the skill trace's tolerance

The panel is one more dimension of the grid (the last): each level sets the seats (and the
games) of every condition. Conditions that differ only by their level play the same deals
(the same condition seed; game g of every level is the same deal), so the contrasts between
levels are paired (docs/experiments.md, "The skill panel").

The panel's keys are validated by the schema (config/file_schema.py: play_levels); the
functions here build the panel from them and check what needs the strategies or the built
conditions, a problem raised as a KeyProblem at its key path.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from fishing2sim.config.file_schema import ExperimentFile
from fishing2sim.config.keys import PLAY_LEVELS, PROFILE
from fishing2sim.config.messages import KeyProblem
from fishing2sim.config.schema import LEVEL_SEATS, TRACE_TOLERANCE, is_whole

__all__ = ["LEVEL_SEATS", "Level", "Panel", "TRACE_TOLERANCE", "level_caps", "level_fair_play",
           "level_precision", "panel_of", "searches_card_plays", "trump_replayed",
           "with_profile"]


@dataclass(frozen=True)
class Level:
    """One level of play of a panel."""

    index: int
    name: str
    seats: Any  # the seats spec, as the file gives seats (a name, a mapping or a list)
    games: int  # 0: the experiment's games
    max_games: int = 0  # precision runs: this level's cap (0: the experiment's max_games)
    rating: float | None = None  # the file's rating (None: the ladder's, where it has one)
    at: str = field(default="", compare=False)  # its key path in the file (for errors)

    def as_dict(self) -> dict:
        d = {"level": self.name, "seats": self.seats, "games": self.games}
        if self.max_games:
            d["max_games"] = self.max_games
        if self.rating is not None:
            d["rating"] = self.rating
        return d


@dataclass(frozen=True)
class Panel:
    """The levels, the verdicts' reference level and the skill trace's tolerances."""

    levels: tuple
    relative_to: str
    # figure -> (tolerance in the figure's own unit: a share as a fraction, cards, points;
    # as written)
    converged_within: dict = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [lv.name for lv in self.levels]

    def level(self, name: str) -> Level:
        return self.levels[self.names.index(name)]


def searches_card_plays(cond) -> bool:
    """A seat of the condition searches its card plays (not only its trump choice)."""
    return any(i.kind != "heuristic" and list(i.searches) != ["trump_choice"]
               for i in cond.identities)


def with_profile(analyses, panel) -> tuple:
    """The analyses of a run: a skill panel's always include the behaviour profile (what
    each level of play does differently, docs/experiments.md)."""
    analyses = tuple(analyses)
    if panel is not None and PROFILE not in analyses:
        analyses += (PROFILE,)
    return analyses


def trump_replayed(exp, cond) -> bool:
    """Does the run replay this condition's trump choices (analyses: trump_value)? Not for
    a panel's level whose seats search their card plays: four replays of every choice to
    the game's end with searched card plays are beyond any budget, so that level has no
    trump figures (outside a panel such a lineup is refused)."""
    if "trump_value" not in exp.analyses:
        return False
    return getattr(exp, "panel", None) is None or not searches_card_plays(cond)


def panel_of(top, bots, games: int | None, file_games) -> Panel | None:
    """The skill panel of a validated file (``games``: the command line's, which scales
    every level's games by one factor, N / the file's games: a quick look at a panel file
    keeps the levels' proportions), its levels' bots found before any is imported."""
    if top.play_levels is None:
        return None
    levels = []
    for lv in top.play_levels["levels"]:
        for j, entry in enumerate(lv.seats if isinstance(lv.seats, list) else [lv.seats]):
            spec = entry.get("strategy") if isinstance(entry, dict) else entry
            bots.locate(f"{lv.seats_at}[{j}]" if isinstance(lv.seats, list) else lv.seats_at,
                        spec.strip())
        n = lv.games
        if games is not None:  # a chunk larger than that is one partial chunk
            base = file_games if is_whole(file_games) and file_games > 0 \
                else ExperimentFile.model_fields["games"].default
            n = max(1, round((lv.games or base) * games / base))
        levels.append(Level(lv.index, lv.name, lv.seats, n, lv.max_games, lv.rating, lv.at))
    return Panel(tuple(levels), top.play_levels["relative_to"],
                 top.play_levels["converged_within"])


def level_fair_play(panel: Panel | None, conditions) -> None:
    """A panel's levels are levels of fair play: a level with a seat that sees every hand
    (a search bot whose SEARCH is the cheater, whatever its NAME or file) is refused. Its
    figures are an upper bound, not a level of play: the skill trace would take it for
    one of the two strongest levels and every table would name it as fair play."""
    for c in conditions if panel is not None else ():
        seer = next((i for i in c.identities if i.sees_every_hand), None)
        if seer is not None:
            lv = panel.level(c.level)
            raise KeyProblem(lv.at, f"level {lv.name!r} seats {seer.name!r} ({seer.file}), "
                             "which sees every hand (SEARCH = \"cheater\"): a panel compares "
                             "levels of fair play; measure the cheater's upper bound in a "
                             "ladder or an experiment of its own")


def level_caps(panel: Panel | None, max_games_given: bool, max_games: int,
               conditions) -> dict:
    """level name -> the most games a condition of that level may play in a precision
    run: the level's max_games, else the file's, else 10 x the level's games."""
    out = {}
    for lv in panel.levels if panel is not None else ():
        games = max((c.games for c in conditions if c.level == lv.name), default=0)
        out[lv.name] = lv.max_games or (max_games if max_games_given else 10 * games)
        if lv.max_games and lv.max_games < games:
            raise KeyProblem(f"{PLAY_LEVELS}[{lv.index}].max_games", f"{lv.max_games:,} is "
                             f"below the level's games ({games:,})")
    return out


def level_precision(panel: Panel, precision, caps: dict) -> None:
    """A precision target every level can reach within its max_games: a share's 95%
    CI half-width at the worst case (a share of 1/2) after max_games games."""
    for lv in panel.levels:
        cap = caps[lv.name]
        for fig, want, text in precision:
            base = fig.removeprefix("contrast.")
            if base not in ("overfishing", "ocean_empty", "win_share"):
                continue
            factor = math.sqrt(2) if fig != base else 1.0
            need = math.ceil((1.96 * 0.5 * factor / want) ** 2)
            if need > cap:
                key = f"{PLAY_LEVELS}[{lv.index}]" + (".max_games" if lv.max_games else "")
                raise KeyProblem(key, f"level {lv.name!r} cannot reach precision.{fig} {text} "
                                 f"within its {cap:,} games: a share near 50% needs up to "
                                 f"{need:,} games; give the level a larger max_games or a "
                                 "looser target")
