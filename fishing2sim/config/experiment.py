"""Experiment files: one YAML file describes a whole study (``fishing2sim run x.yaml``).

    from fishing2sim.config.experiment import load_experiment
    exp = load_experiment("experiments/trump.yaml", overrides={"workers": 2})
    for c in exp.conditions:
        c.players, c.deck, c.lineup, c.params, c.games, c.seed

``load_experiment`` reads and validates the file, applies the deck edits, expands the sweep
grid into conditions and checks that the output folder can be written. Every problem is ONE
:class:`ExperimentError` message ``"<file>: <key path>: <problem>"``. The schema is documented
in ``docs/experiments.md`` and, fully commented, in ``experiments/example.yaml``.

The loading is in parts: the YAML (config/yamlfile.py), the schemas of each mapping and the
one error formatter (config/schema.py, config/messages.py), the grid (config/grid.py), the
seats and a ladder's bots (config/seats.py) and the stopping rules (config/adaptive.py);
this module builds the conditions and the Experiment from them.
"""
from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic_core import PydanticCustomError

from fishing2sim.config.adaptive import AdaptiveMixin
from fishing2sim.config.cards import CardsMixin
from fishing2sim.config.decisions import decision_settings
from fishing2sim.config.deck import Deck, DeckError, load_deck
from fishing2sim.config.deck_edits import edit_deck
from fishing2sim.config.grid import GridMixin, condition_seed
from fishing2sim.config.levels import LevelsMixin, Panel, with_profile
from fishing2sim.config.keypaths import parse_key_path as _parse_key_path  # noqa: F401
from fishing2sim.config.keys import (  # noqa: F401 (the names other modules import from here)
    ANALYSES, CONDITIONS, CONTRAST_ANALYSIS, DECK_KEYS, DEFAULT_CHUNK, DEFAULT_GAMES,
    ENTRY_KEYS, EXECUTION_KEYS, KNOWN_ANALYSES, LABELLED_KEYS, LADDER, LADDER_EXCLUDES,
    LEVEL, LOAD_PROGRESS_CONDITIONS, MAX_CONDITIONS, MAX_CONDITIONS_HARD, MAX_GAMES, MAX_GAMES_HARD,
    MAX_SEED, MAX_YAML_DEPTH, MAX_YAML_VALUES, MULTIPLICITY, OVERRIDE_KEYS, PRECISION_FIGURES,
    PROFILE, PROFILE_GAMES, SWEEPABLE, TOP_KEYS,
)
from fishing2sim.config.messages import ExperimentError, got as _got, short as _short
from fishing2sim.config.resolved import config_hash, resolved
from fishing2sim.config.schema import (
    ConditionSettings, DeckSpec, ExperimentFile, SchemaError, check, player_count,
)
from fishing2sim.config.seats import SeatsMixin
from fishing2sim.config.shipped import (  # noqa: F401 (the names other modules import from here)
    first_sentences, shipped_experiment, shipped_experiments, shipped_experiments_dir,
)
from fishing2sim.config.yamlfile import _load_yaml, read_mapping  # noqa: F401
from fishing2sim.strategy.identity import StrategyIdentity

__all__ = [
    "ANALYSES",
    "Condition",
    "Experiment",
    "ExperimentError",
    "condition_seed",
    "load_experiment",
]


@dataclass(frozen=True, eq=False)
class Condition:
    """One cell of the experiment's grid: a player count, a deck and a lineup."""

    index: int
    labels: dict  # sweep key path -> value, in the sweep's key order ({} without a sweep)
    players: int
    deck: Deck  # with the experiment's deck edits applied
    lineup: tuple  # one strategy spec per seat: a name in strategies/ or an absolute path
    params: tuple  # one tuple of floats (or None: the strategy's defaults) per seat
    rotate: bool  # seat rotation: the runner rotates the lineup over the same deals
    first_leader: int  # -1: random
    games: int  # with rotate: a whole number of rotation blocks (players games each)
    seed: int  # condition_seed(experiment seed, index)
    deck_sha256: str
    name: str = ""  # the condition's display name (labels of its sweep values)
    baseline: int | None = None  # the index of its baseline condition (None: none, or itself)
    is_baseline: bool = False
    paired: bool = False  # shares its deals with another condition (paired: true)
    max_games: int = 0  # precision / SPRT runs: the most games it may play (0: games)
    # one StrategyIdentity per seat (fishing2sim/strategy/identity.py): the bot's NAME after import,
    # its file, digest and kind, resolved once at load; what every table, report and
    # check reads
    identities: tuple = ()
    level: str = ""  # a skill panel's condition: its level of play (config/levels.py)
    cards: tuple = ()  # analyses: [cards]: the ids of the ocean cards left out one at a time

    @property
    def label(self) -> str:
        """``"players=3, deck.remove_from_tier.5=2"``, or ``"all"`` without a sweep."""
        if not self.labels:
            return "all"
        return ", ".join(f"{k}={_short(v)}" for k, v in self.labels.items())


@dataclass(frozen=True, eq=False)
class Experiment:
    """A validated experiment file."""

    name: str
    path: Path
    ruleset: str
    games: int
    seed: int
    chunk: int
    analyses: tuple
    trump_max_round: int
    workers: int
    scheduler: str | None
    output_dir: Path  # <output>/<name>, absolute
    conditions: tuple
    resolved: dict  # the whole config, every default filled (JSON / YAML serialisable)
    config_hash: str  # what --resume compares before reusing checkpoints
    strict: bool = False  # strategies run with bounds checking (strict mode)
    multiplicity: str = "holm"  # the contrasts' family adjustment: holm, bh or none
    precision: tuple = ()  # ((figure, target half-width in the figure's unit, as written), ...)
    sprt: dict | None = None  # {better, than, elo0, elo1, alpha, beta}
    paired: bool = False
    examples: int = 3  # example games kept per condition and figure (run/examples.py)
    # a ladder (fishing2sim/analysis/ladder.py): {bots: their NAMEs in the file's order, kinds:
    # heuristic, search or cheater each (their identities'), budgets: per bot None or a
    # search bot's {params: {name: value}, rollout: its rollout strategy's NAME}, anchor:
    # the NAME rated 0, games / search_games: games per pair}; None otherwise
    ladder: dict | None = None
    # the skill panel (play_levels:, fishing2sim/config/levels.py): its levels, the verdicts'
    # reference level, the skill trace's tolerances; None without one
    panel: Panel | None = None
    # the decision stakes (analyses: [decisions], config/decisions.py): {kinds, rate,
    # play_rate}; None otherwise
    decisions: dict | None = None

    @property
    def adaptive(self) -> bool:
        """A run whose length is decided by precision targets or an SPRT."""
        return bool(self.precision) or self.sprt is not None

    @property
    def has_baselines(self) -> bool:
        return any(c.baseline is not None for c in self.conditions)



def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# ---- loading ------------------------------------------------------------------------------
class _Loader(GridMixin, SeatsMixin, AdaptiveMixin, LevelsMixin, CardsMixin):
    origin: dict = {}  # sweep key -> the key path its values came from (load_experiment_data)
    grid_phrase = "in the sweep condition"

    def __init__(self, path, overrides, yes=False, progress=False):
        self.yes = yes
        self.progress = progress
        # lineup entry -> the identity of its bot; NAME -> (the first bot of that NAME, where)
        self.identities: dict[str, StrategyIdentity] = {}
        self.names: dict[str, tuple[StrategyIdentity, str]] = {}
        self.given = str(path)
        self.path = Path(path).expanduser()
        self.folder = self.path.resolve().parent
        self.overrides = overrides or {}
        self.swept_roots: set[str] = set()
        self.labels: dict = {}
        self.value_labels: dict[str, list] = {}  # sweep key -> label of each value (or None)
        self.baselines: dict[str, int] = {}  # sweep key -> index of its baseline value
        self._entries: list = []  # the entries of conditions (key path -> value each)
        self._deck_cache: dict[str, Deck] = {}
        self._base_decks: dict[str, Deck] = {}
        self.ruleset = "fishing2"

    # every error goes through here
    def fail(self, key: str, problem: str):
        for k, shown in self.origin.items():  # a sweep key given elsewhere (a tune's space)
            if key == f"sweep.{k}" or key.startswith((f"sweep.{k}[", f"sweep.{k}.")):
                key = shown + key[len(f"sweep.{k}"):]
        root = key.replace("[", ".").split(".", 1)[0]
        if self.labels and root in self.swept_roots:
            problem += self.where_in_grid()
        raise ExperimentError(f"{self.given}: {key}: {problem}")

    def where_in_grid(self) -> str:
        """`` (in the sweep condition players=3, ...)`` (``condition`` for an entry of
        conditions): the condition being expanded."""
        which = "in the condition" if CONDITIONS in self.labels else self.grid_phrase
        return f" ({which} {', '.join(f'{k}={_short(v)}' for k, v in self.labels.items())})"

    def schema(self, model, data, base: str = "", rename: dict | None = None):
        """``data`` checked by ``model`` (a schema, or one of its value checks): its first
        problem reported through fail."""
        try:
            if isinstance(model, type):
                return check(model, data, base=base, rename=rename)
            return model(data)
        except SchemaError as exc:
            self.fail(exc.path, exc.text)
        except PydanticCustomError as exc:  # a value check's own problem
            self.fail(base, exc.context["text"])

    def read(self) -> dict:
        return read_mapping(self.path, self.given)

    # ---- experiment-wide keys -------------------------------------------------------------
    def whole(self, key, v, lo, hi=None, what="a whole number") -> int:
        ok = _whole(v) and v >= lo and (hi is None or v <= hi)
        if not ok:
            rng = f" {lo}..{hi}" if hi is not None else (f" > {lo - 1}" if lo else " >= 0")
            self.fail(key, f"expected {what}{rng}, {_got(v)}")
        return int(v)

    def games_limit(self, key, games) -> None:
        if _whole(games) and games > MAX_GAMES_HARD:
            self.fail(key, f"{games:,} games is above the limit of {MAX_GAMES_HARD:,} games "
                      "per run")

    def size_check(self, n_conditions: int, n_games: int | None) -> None:
        """The documented limits of a run (above the soft ones only with --yes)."""
        if n_conditions > MAX_CONDITIONS_HARD:
            raise ExperimentError(f"{self.given}: sweep: {n_conditions:,} conditions is above "
                                  f"the limit of {MAX_CONDITIONS_HARD:,}")
        if n_conditions > MAX_CONDITIONS and not self.yes:
            raise ExperimentError(f"{self.given}: sweep: {n_conditions:,} conditions is above "
                                  f"{MAX_CONDITIONS:,}; give --yes to run it anyway")
        if n_games is None:
            return
        what = (f"{n_games:,} games in all ({n_conditions:,} condition"
                f"{'' if n_conditions == 1 else 's'})")
        if n_games > MAX_GAMES_HARD:
            raise ExperimentError(f"{self.given}: games: {what} is above the limit of "
                                  f"{MAX_GAMES_HARD:,}")
        if n_games > MAX_GAMES and not self.yes:
            raise ExperimentError(f"{self.given}: games: {what} is above {MAX_GAMES:,}; "
                                  "give --yes to run it anyway")

    def top_level(self) -> tuple[dict, ExperimentFile, set]:
        """(the file's mapping with the command line's values, its experiment-wide keys
        checked by the schema, the keys the command line set)."""
        raw = self.read()
        self.raw_games = raw.get("games")  # the levels' default, before the command line's
        for k in self.overrides:
            if k not in OVERRIDE_KEYS:
                raise ExperimentError(f"{self.given}: {k}: cannot be set from the command line "
                                      f"(only {', '.join(OVERRIDE_KEYS)})")
        cfg = dict(raw)
        over_keys = {k for k, v in self.overrides.items() if v is not None}
        cfg.update({k: self.overrides[k] for k in over_keys})
        data = dict(cfg)
        data.setdefault("name", self.path.stem)
        data.setdefault("analyses", [LADDER] if LADDER in cfg else list(ANALYSES))
        top = self.schema(ExperimentFile, data,
                          rename={k: f"{k} (from the command line)" for k in over_keys})
        self.ruleset = top.ruleset
        return cfg, top, over_keys

    def load(self) -> Experiment:
        cfg, top, over_keys = self.top_level()
        ladder = self.ladder(cfg, top.games, "games" in over_keys, top.analyses) \
            if top.ladder is not None else None
        panel = self.panel(cfg, top)
        sweep_keys, sweep_values, entries = self.axes(cfg, top)
        if panel is not None:
            sweep_keys, sweep_values = self.level_axis(panel, sweep_keys, sweep_values)
        n_conditions = math.prod(len(v) for v in sweep_values)
        self.size_check(n_conditions, None)  # before expanding anything
        if "games" not in sweep_keys and panel is None:
            self.size_check(n_conditions, n_conditions * top.games)
        conditions = self.build(cfg, top, sweep_keys, sweep_values, n_conditions,
                                panel is not None)
        self.level_fair_play(panel, conditions)
        precision, sprt, max_games = self.adaptive(cfg, top.analyses, conditions)
        if precision or sprt:
            caps = self.level_caps(panel, cfg, max_games, conditions)
            if panel is not None and precision:
                self.level_precision(panel, precision, caps)
            conditions = [dataclasses.replace(
                c, games=-(-c.games // self.step(c, top.chunk)) * self.step(c, top.chunk),
                max_games=max(caps.get(c.level, max_games),
                              -(-c.games // self.step(c, top.chunk)) * self.step(c, top.chunk)))
                for c in conditions]
        self.size_check(len(conditions), sum(c.games for c in conditions))

        n_rounds = max(c.deck.n_rounds for c in conditions)
        max_round = top.trump_value.max_round if top.trump_value else None
        if max_round is None:
            max_round = n_rounds
        elif max_round > n_rounds:
            self.fail("trump_value.max_round", f"round {max_round} but the deck has only "
                      f"{n_rounds} rounds")
        output_dir = Path(os.path.abspath(Path(top.output).expanduser() / top.name))
        self.probe("output (from the command line)" if "output" in over_keys else "output",
                   output_dir)
        config = resolved(cfg, top, entries, max_round, ladder, precision, sprt, max_games,
                          panel)
        if "cards" in top.analyses:  # (in the hash: which cards are left out)
            only = top.cards.only if top.cards is not None else None
            config["cards"] = {"only": list(only) if only is not None else "every ocean card"}
        elif top.cards is not None:
            self.fail("cards", "the cards analysis is not asked for: add cards to analyses "
                      "(or leave the cards key out)")
        analyses = with_profile(top.analyses, panel)
        if PROFILE in analyses:  # (only then: every other file's hash stays as it was)
            config["profile"] = {"games_replayed": PROFILE_GAMES}
        decisions = decision_settings(self, top, conditions)
        if decisions is not None:  # (only then: every other file's hash stays as it was)
            config["decisions"] = dict(decisions)
        return Experiment(
            name=top.name, path=self.path.resolve(), ruleset=top.ruleset, games=top.games,
            seed=top.seed, chunk=top.chunk, analyses=analyses,
            trump_max_round=int(max_round), workers=top.workers, scheduler=top.scheduler,
            output_dir=output_dir, conditions=tuple(conditions), resolved=config,
            config_hash=config_hash(config, conditions), strict=top.strict,
            precision=precision, sprt=sprt, paired=top.paired, ladder=ladder,
            multiplicity=top.multiplicity, panel=panel, decisions=decisions,
            examples=top.examples)

    # ---- the grid -------------------------------------------------------------------------
    def axes(self, cfg, top) -> tuple[list, list, list | None]:
        """(the grid's keys, each key's values, the entries of conditions or None): the
        player counts (players: [3, 4, 5]), the entries of conditions, then the sweep."""
        sweep_keys, sweep_values = self.sweep(cfg)
        entries = self.explicit(cfg, sweep_keys)
        self._entries = entries or []
        if entries is not None:
            sweep_keys = [CONDITIONS] + sweep_keys
            sweep_values = [entries] + sweep_values
        ps = cfg.get("players", 4)
        if isinstance(ps, list):
            if not ps:
                self.fail("players", "expected a player count 3, 4 or 5 or a non-empty list")
            for i, p in enumerate(ps):
                self.players(f"players[{i}]", p)
                if p in ps[:i]:
                    self.fail(f"players[{i}]", f"player count {p} given twice")
            if "players" in sweep_keys:
                self.fail("sweep.players", "players is already a list (a sweep over player "
                          "counts): give the player counts in one place")
            for i, e in enumerate(entries or ()):
                if "players" in e:
                    self.fail(f"{CONDITIONS}[{i}].players", "players is already a list (a "
                              "sweep over player counts): give the player counts in one "
                              "place")
            sweep_keys = ["players"] + sweep_keys
            sweep_values = [list(ps)] + sweep_values
            self.swept_roots.add("players")
        return sweep_keys, sweep_values, entries

    def settings(self, cfg, top, sweep_keys, sweep_values, combos) -> list:
        """Each condition's settings (the file's, with its grid values set) and labels."""
        base = {k: cfg.get(k) for k in SWEEPABLE}
        base["ruleset"] = top.ruleset
        base["players"] = cfg.get("players", 4)
        base["games"] = top.games
        grid = []
        for combo in combos:
            c = copy.deepcopy(base)
            labels = {}
            entry = None
            for key, vals, i in zip(sweep_keys, sweep_values, combo):
                value = vals[i]
                if key == CONDITIONS:  # an explicit condition: its name, then its settings
                    entry = i  # named once the condition is built (below)
                    labels[key] = self.value_labels[key][i] or f"{CONDITIONS}[{i}]"
                    for k, v in value.items():
                        self.set_path(c, k, v, at=f"{CONDITIONS}[{i}].{k}")
                        labels[k] = v
                    continue
                if key == LEVEL:  # a level of the panel: its seats and games
                    c["seats"] = copy.deepcopy(value.seats)
                    if value.games:
                        c["games"] = value.games
                    labels[key] = value.name
                    continue
                if key == "players" and isinstance(c["players"], list):
                    c["players"] = value
                else:
                    self.set_path(c, key, value)
                labels[key] = value
            grid.append((c, labels, entry))
        return grid

    def build(self, cfg, top, sweep_keys, sweep_values, n_conditions,
              panel: bool = False) -> list:
        """The conditions of the grid, named, linked to their baselines and paired."""
        bar = None
        if self.progress and n_conditions >= LOAD_PROGRESS_CONDITIONS:
            from tqdm import tqdm

            bar = tqdm(total=n_conditions, desc=f"loading {self.path.name}", unit="condition",
                       leave=False, dynamic_ncols=True)
        combos = list(itertools.product(*[range(len(v)) for v in sweep_values]))
        # each condition's settings, then every seat's strategy found (not yet imported:
        # importing one loads numba and compiles), then the conditions built
        grid = self.settings(cfg, top, sweep_keys, sweep_values, combos)
        for c, labels, _ in grid:
            self.labels = labels
            self.locate_seats(c.get("seats"))
        conditions = []
        for index, (combo, (c, labels, entry)) in enumerate(zip(combos, grid)):
            self.labels = labels
            cond = self.condition(index, c, labels, top.seed)
            if CONDITIONS in labels:
                labels[CONDITIONS] = self.entry_name(entry, cond)
            cond = dataclasses.replace(cond, name=self.condition_name(sweep_keys, combo, cond))
            if "trump_value" in top.analyses and not (panel and LEVEL in labels):
                self.no_search_seats(cond, "analyses: trump_value")
            if "cards" in top.analyses:
                cond = self.card_list(cond, top.cards, self.base_deck(None).names)
            conditions.append(cond)
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
        self.labels = {}
        conditions = self.link_baselines(conditions, sweep_keys, combos)
        if panel:  # the levels of a condition play the same deals, whatever their games
            return self.pair(conditions, top.seed, by_games=False)
        return self.pair(conditions, top.seed) if top.paired else conditions

    # ---- one condition --------------------------------------------------------------------
    def players(self, key, p) -> int:
        return self.schema(player_count, p, key)

    def condition(self, index, c, labels, seed) -> Condition:
        s = self.schema(ConditionSettings, c)
        self.ruleset = s.ruleset  # the condition's deck is this ruleset's (a swept ruleset)
        players, games, rotate = s.players, s.games, bool(s.rotate)
        deck = self.deck(c.get("deck"))  # before the seats, which import their strategies
        lineup, params = self.seats(c.get("seats"), players)
        try:
            deck.check_players(players)
        except DeckError as exc:
            self.fail("deck", str(exc))
        if rotate:
            games = -(-games // players) * players
        return Condition(index=index, labels=labels, players=players, deck=deck,
                         lineup=tuple(lineup), params=tuple(params), rotate=rotate,
                         first_leader=s.first_leader, games=games,
                         seed=condition_seed(seed, index), deck_sha256=deck.sha256,
                         identities=tuple(self.identities[e] for e in lineup),
                         level=labels.get(LEVEL, ""))

    # ---- deck -----------------------------------------------------------------------------
    def deck(self, spec) -> Deck:
        if spec is None:
            spec = {}
        self.schema(DeckSpec, spec, "deck")
        try:
            cache_key = self.ruleset + " " + json.dumps(spec, sort_keys=True, default=str)
        except TypeError:  # keys of two types (4 and '4'): the edits report it
            cache_key = self.ruleset + " " + repr(spec)
        if cache_key in self._deck_cache:
            return self._deck_cache[cache_key]
        deck = self.base_deck(spec.get("file"))
        edits = {k: v for k, v in spec.items() if k != "file"}
        if any(v is not None for v in edits.values()):
            try:
                deck = edit_deck(deck, where=f"{self.given}: deck", **edits)
            except DeckError as exc:
                msg = str(exc)
                if self.labels and "deck" in self.swept_roots:
                    msg += self.where_in_grid()
                raise ExperimentError(msg) from None
        self._deck_cache[cache_key] = deck
        return deck

    def base_deck(self, file) -> Deck:
        """The ruleset's deck, or the deck file ``file`` (relative to the experiment file)."""
        base_key = f"{self.ruleset} {file or ''}"
        if base_key not in self._base_decks:
            try:
                if file:
                    p = (self.folder / Path(file).expanduser()).resolve()
                    if not p.is_file():
                        self.fail("deck.file", f"deck file {file!r} not found (looked for {p}; "
                                  "a path is relative to the experiment file's folder)")
                    base = load_deck(p, ruleset=self.ruleset)
                else:
                    base = load_deck(None, ruleset=self.ruleset)
            except DeckError as exc:
                self.fail("deck.file", str(exc))
            self._base_decks[base_key] = base
        return self._base_decks[base_key]

    # ---- output ---------------------------------------------------------------------------
    def probe(self, key, folder: Path) -> None:
        """Create ``folder`` (and its parents) if needed, write and delete a temporary file,
        then remove the folders it created: nothing is left behind."""
        missing = []
        p = folder
        while not p.exists() and p != p.parent:
            missing.append(p)
            p = p.parent
        if not p.is_dir():
            self.fail(key, f"cannot create the report folder {folder}: {p} is a file, "
                      "not a folder")
        created = []
        try:
            for d in reversed(missing):
                d.mkdir()
                created.append(d)
            fd, tmp = tempfile.mkstemp(prefix=".fishing2sim-probe-", dir=folder)
            os.close(fd)
            os.unlink(tmp)
        except OSError as exc:
            what = "create" if len(created) < len(missing) else "write to"
            self.fail(key, f"cannot {what} the report folder {folder}: "
                      f"{exc.strerror or exc}")
        finally:
            for d in reversed(created):
                try:
                    d.rmdir()
                except OSError:
                    pass


def load_experiment(path, overrides: dict | None = None, yes: bool = False,
                    progress: bool = False) -> Experiment:
    """Read, validate and expand an experiment file.

    ``overrides`` (from the command line) may set ``workers``, ``scheduler``, ``games`` and
    ``output``; a value of None leaves the file's. Raises :class:`ExperimentError`, one
    message ``"<file>: <key path>: <problem>"``, on any problem, and for a run above the
    size limits (MAX_GAMES games in all, MAX_CONDITIONS conditions) unless ``yes``.
    ``progress`` shows a bar while a large sweep expands.
    """
    return _Loader(path, overrides, yes=yes, progress=progress).load()


# ---- experiments held in memory (used by ``fishing2sim tune``) ----------------------------
class _DataLoader(_Loader):
    """A _Loader whose file content is given as a dict (``path`` still names it in errors
    and anchors relative paths)."""

    def __init__(self, data, path, overrides, yes=False, origin=None, grid_phrase=None):
        super().__init__(path, overrides, yes=yes)
        self.data = data
        self.origin = dict(origin or {})
        self.grid_phrase = grid_phrase or self.grid_phrase

    def read(self) -> dict:
        if not isinstance(self.data, dict):
            raise ExperimentError(f"{self.given}: top level: expected a mapping of keys such "
                                  f"as players, games, seats, got a {type(self.data).__name__}")
        return copy.deepcopy(self.data)


def read_experiment_file(path) -> dict:
    """The file's YAML mapping, read like ``load_experiment`` reads it (same errors)."""
    return _Loader(path, None).read()


def load_experiment_data(data: dict, path, overrides: dict | None = None,
                         yes: bool = False, origin: dict | None = None,
                         grid_phrase: str | None = None) -> Experiment:
    """``load_experiment`` for a file's content already read into ``data``.

    ``origin``: sweep key -> the key path its values came from (a tune's
    ``tune.space.<key>``): its problems are reported there; ``grid_phrase``: how a
    problem names the sweep condition it is in (``with the tune values``)."""
    return _DataLoader(data, path, overrides, yes=yes, origin=origin,
                       grid_phrase=grid_phrase).load()


def set_key_path(cfg: dict, key: str, value, path="<experiment>") -> None:
    """Set ``key`` (a sweep key path such as ``deck.remove_from_tier.5``) in ``cfg``."""
    _Loader(path, None).set_path(cfg, key, value)
