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

A mixin of the loader (fishing2sim/config/experiment.py): its methods report through
``self.fail(key path, problem)``.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator

from fishing2sim.config.keys import CONDITIONS, LEVEL, MAX_GAMES_HARD, PLAY_LEVELS, PROFILE
from fishing2sim.config.messages import did_you_mean as _did_you_mean
from fishing2sim.config.messages import got as _got
from fishing2sim.config.messages import problem
from fishing2sim.config.schema import ExperimentFile, FileSchema

__all__ = ["LEVEL_SEATS", "Level", "LevelsMixin", "Panel", "TRACE_TOLERANCE",
           "searches_card_plays", "trump_replayed"]

#: a level written by its name alone: its seats (every seat the same bot)
LEVEL_SEATS = {"random": "random", "greedy": "greedy", "skilled": "skilled", "search": "pimc"}
#: the skill trace's default tolerance per figure (the figure's unit as reported) and the
#: figures a panel traces
TRACE_TOLERANCE = {"overfishing": ("pp", 2.0), "ocean_empty": ("pp", 2.0),
                   "ocean_left": ("cards", 0.5), "leader_edge": ("pp", 2.0),
                   "trump_value": ("points", 0.5)}
_TOL = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*([A-Za-z%]*)\s*")


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


def trump_replayed(exp, cond) -> bool:
    """Does the run replay this condition's trump choices (analyses: trump_value)? Not for
    a panel's level whose seats search their card plays: four replays of every choice to
    the game's end with searched card plays are beyond any budget, so that level has no
    trump figures (outside a panel such a lineup is refused)."""
    if "trump_value" not in exp.analyses:
        return False
    return getattr(exp, "panel", None) is None or not searches_card_plays(cond)


def with_profile(analyses, panel) -> tuple:
    """The analyses of a run: a skill panel's always include the behaviour profile (what
    each level of play does differently, docs/experiments.md)."""
    analyses = tuple(analyses)
    if panel is not None and PROFILE not in analyses:
        analyses += (PROFILE,)
    return analyses


def _level_name(v):
    if not isinstance(v, str) or not v.strip():
        raise problem(f"expected a level's name (text), {_got(v)}")
    return v.strip()


def _whole_or_none(v):
    if v is None:
        return v
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise problem(f"expected a whole number > 0, {_got(v)}")
    if v > MAX_GAMES_HARD:
        raise problem(f"{v:,} games is above the limit of {MAX_GAMES_HARD:,} games per run")
    return v


def _rating(v):
    if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool)
                          or not math.isfinite(v)):
        raise problem(f"expected a rating on the ladder's Elo scale (a number), {_got(v)}")
    return v


class LevelSpec(FileSchema):
    keys: ClassVar[tuple] = ("level", "seats", "games", "max_games", "rating")
    required: ClassVar[tuple] = ("level",)
    required_hint: ClassVar[str] = " (the level's name, e.g. {level: search, seats: pimc})"
    level: Annotated[Any, AfterValidator(_level_name)] = None
    seats: Any = None
    games: Annotated[Any, AfterValidator(_whole_or_none)] = None
    max_games: Annotated[Any, AfterValidator(_whole_or_none)] = None
    rating: Annotated[Any, AfterValidator(_rating)] = None


class PanelSpec(FileSchema):
    keys: ClassVar[tuple] = ("levels", "relative_to", "converged_within")
    required: ClassVar[tuple] = ("levels",)
    required_hint: ClassVar[str] = " (the list of levels, e.g. [random, greedy, skilled])"
    levels: Any = None
    relative_to: Annotated[Any, AfterValidator(_level_name)] = None
    converged_within: Any = None


class LevelsMixin:
    def panel(self, cfg, top) -> Panel | None:
        """The checked ``play_levels:`` of the file, or None."""
        raw = cfg.get(PLAY_LEVELS)
        if raw is None:
            return None
        at = PLAY_LEVELS
        if isinstance(raw, list):
            spec = {"levels": raw}
            lat = at
        elif isinstance(raw, dict):
            spec = raw
            self.schema(PanelSpec, raw, at)
            lat = f"{at}.levels"
        else:
            self.fail(at, "expected a list of levels (e.g. [random, greedy, skilled, search]) "
                      f"or a mapping {{levels: [...], relative_to: ...}}, {_got(raw)}")
        if cfg.get("seats") is not None:
            self.fail("seats", f"{at} sets the seats of every condition (each level its own "
                      "lineup): give the seats in the levels, not here")
        for k in (cfg.get("sweep") or {}):
            if str(k).split(".")[0].split("[")[0] in ("seats", "games"):
                self.fail(f"sweep.{k}", f"{at} sets the seats and games of every condition: "
                          "a sweep cannot vary them too")
        for i, e in enumerate(cfg.get(CONDITIONS) or []):
            for k in (e if isinstance(e, dict) else {}):
                if str(k).split(".")[0].split("[")[0] in ("seats", "games"):
                    self.fail(f"{CONDITIONS}[{i}].{k}", f"{at} sets the seats and games of "
                              "every condition: a condition cannot set them too")
        levels = self.levels(lat, spec["levels"], top)
        names = [lv.name for lv in levels]
        ref = spec.get("relative_to")
        if ref is None:
            ref = names[0]
        ref = str(ref).strip()
        if ref not in names:
            self.fail(f"{at}.relative_to", f"{ref!r} is not a level of the panel"
                      f"{_did_you_mean(ref, names)} (levels: {', '.join(names)}): the verdicts "
                      "are relative to a level the panel plays")
        return Panel(tuple(levels), ref, self.tolerances(f"{at}.converged_within",
                                                         spec.get("converged_within")))

    def levels(self, at, raw, top) -> list[Level]:
        if not isinstance(raw, list) or len(raw) < 2:
            n = len(raw) if isinstance(raw, list) else None
            self.fail(at, "a panel compares levels of play: give a list of at least 2 levels "
                      f"(names such as {', '.join(LEVEL_SEATS)}, or {{level: ..., seats: "
                      f"..., games: ...}}), {f'got {n}' if n is not None else _got(raw)}")
        out: list[Level] = []
        for i, e in enumerate(raw):
            here = f"{at}[{i}]"
            if isinstance(e, str):
                e = {"level": e}
            if not isinstance(e, dict):
                self.fail(here, f"expected a level's name ({', '.join(LEVEL_SEATS)}) or a "
                          f"mapping {{level: ..., seats: ..., games: ...}}, {_got(e)}")
            s = self.schema(LevelSpec, e, here)
            name = s.level
            if name in [lv.name for lv in out]:
                self.fail(f"{here}.level", f"level {name!r} given twice")
            seats = e.get("seats")
            if seats is None:
                seats = LEVEL_SEATS.get(name, name)
                where = f"{here}.level" if isinstance(raw[i], dict) else here
            else:
                where = f"{here}.seats"
            self.level_seats(where, seats, name)
            games = s.games or 0
            if self.overrides.get("games") is not None:
                # --games N: every level's games scaled by one factor, N / the file's games
                # (a quick look at a panel file keeps the levels' proportions: a search
                # level is never set to N); a chunk larger than that is one partial chunk
                n, base = self.overrides["games"], self.file_games()
                scaled = max(1, round((games or base) * n / base))
                out.append(Level(i, name, seats, scaled, s.max_games or 0, s.rating, here))
                continue
            if (games or top.games) < top.chunk:
                self.fail(f"{here}.games" if games else "games",
                          f"level {name!r} plays {games or top.games:,} games, below the "
                          f"chunk size ({top.chunk:,}): every level plays at least one whole "
                          "chunk (give more games or a smaller chunk)")
            out.append(Level(i, name, seats, games, s.max_games or 0, s.rating, here))
        return out

    def file_games(self) -> int:
        """The file's own ``games`` (the levels' default), before the command line's."""
        g = getattr(self, "raw_games", None)
        ok = isinstance(g, int) and not isinstance(g, bool) and g > 0
        return g if ok else ExperimentFile.model_fields["games"].default

    def level_fair_play(self, panel: Panel | None, conditions) -> None:
        """A panel's levels are levels of fair play: a level with a seat that sees every hand
        (a search bot whose SEARCH is the cheater, whatever its NAME or file) is refused. Its
        figures are an upper bound, not a level of play: the skill trace would take it for
        one of the two strongest levels and every table would name it as fair play."""
        if panel is None:
            return
        for c in conditions:
            seer = next((i for i in c.identities if i.sees_every_hand), None)
            if seer is not None:
                lv = panel.level(c.level)
                self.fail(lv.at, f"level {lv.name!r} seats {seer.name!r} ({seer.file}), which "
                          "sees every hand (SEARCH = \"cheater\"): a panel compares levels of "
                          "fair play; measure the cheater's upper bound in a ladder or an "
                          "experiment of its own")

    def level_seats(self, at, seats, name) -> None:
        """The level's bots found (a misspelt name reported at the level) before any is
        imported."""
        entries = seats if isinstance(seats, list) else [seats]
        for j, entry in enumerate(entries):
            key = f"{at}[{j}]" if isinstance(seats, list) else at
            spec = entry.get("strategy") if isinstance(entry, dict) else entry
            if not isinstance(spec, str) or not spec.strip():
                self.fail(key, f"expected a strategy name or file for level {name!r}, "
                          f"{_got(spec)}")
            self.locate(key, spec.strip())

    def tolerances(self, at, raw) -> dict:
        out = {f: unit_tol[1] * (0.01 if unit_tol[0] == "pp" else 1.0)
               for f, unit_tol in TRACE_TOLERANCE.items()}
        if raw is None:
            return out
        if not isinstance(raw, dict):
            self.fail(at, f"expected a mapping figure -> tolerance such as {{overfishing: "
                      f"2pp}}, {_got(raw)}")
        for fig, want in raw.items():
            if fig not in TRACE_TOLERANCE:
                self.fail(f"{at}.{fig}", f"unknown figure{_did_you_mean(str(fig), TRACE_TOLERANCE)}"
                          f"; known: {', '.join(TRACE_TOLERANCE)}")
            unit = TRACE_TOLERANCE[fig][0]
            m = _TOL.fullmatch(str(want)) if isinstance(want, (str, int, float)) \
                and not isinstance(want, bool) else None
            if m is None or m.group(2) not in (unit, unit.rstrip("s")) or float(m.group(1)) <= 0:
                self.fail(f"{at}.{fig}", f"expected a tolerance in {unit} such as "
                          f"{'2pp' if unit == 'pp' else '0.5 ' + unit}, {_got(want)}")
            out[fig] = float(m.group(1)) * (0.01 if unit == "pp" else 1.0)
        return out

    def level_axis(self, panel: Panel, sweep_keys, sweep_values) -> tuple[list, list]:
        """The grid's keys and values with the panel's levels as the last dimension."""
        self.value_labels[LEVEL] = [lv.name for lv in panel.levels]
        self.swept_roots |= {"seats", "games"}
        return sweep_keys + [LEVEL], sweep_values + [list(panel.levels)]

    def level_caps(self, panel: Panel | None, cfg, max_games: int, conditions) -> dict:
        """level name -> the most games a condition of that level may play in a precision
        run: the level's max_games, else the file's, else 10 x the level's games."""
        if panel is None:
            return {}
        out = {}
        for lv in panel.levels:
            games = max((c.games for c in conditions if c.level == lv.name), default=0)
            out[lv.name] = lv.max_games or (max_games if cfg.get("max_games") is not None
                                            else 10 * games)
            if lv.max_games and lv.max_games < games:
                self.fail(f"{PLAY_LEVELS}[{lv.index}].max_games", f"{lv.max_games:,} is below "
                          f"the level's games ({games:,})")
        return out

    def level_precision(self, panel: Panel, precision, caps: dict) -> None:
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
                    key = f"{PLAY_LEVELS}[{lv.index}]" + (".max_games" if lv.max_games
                                                          else "")
                    self.fail(key, f"level {lv.name!r} cannot reach precision.{fig} {text} "
                              f"within its {cap:,} games: a share near 50% needs up to "
                              f"{need:,} games; give the level a larger max_games or a "
                              "looser target")
