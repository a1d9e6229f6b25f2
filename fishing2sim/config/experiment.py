"""Experiment files: one YAML file describes a whole study (``fishing2sim run x.yaml``).

    from fishing2sim.config.experiment import load_experiment
    exp = load_experiment("experiments/trump.yaml", overrides={"workers": 2})
    for c in exp.conditions:
        c.players, c.deck, c.lineup, c.params, c.games, c.seed

``load_experiment`` reads and validates the file, applies the deck edits, expands the sweep
grid into conditions and checks that the output folder can be written. Every problem is ONE
:class:`ExperimentError` message ``"<file>: <key path>: <problem>"``. The schema is documented
in ``docs/experiments.md`` and, fully commented, in ``experiments/example.yaml``.

The validated file is the configuration: the YAML (config/yamlfile.py) checked by the
schema (config/file_schema.py: ExperimentFile, with the shared field types of
config/schema.py) into one model; this module's plain functions build the conditions and the
Experiment from it, with the functions of the parts that need the deck, the strategies or
the built grid: the grid (config/grid.py), the seats and a ladder's bots (config/seats.py),
the skill panel (config/levels.py), the stopping rules (config/adaptive.py), the per-card
figures (config/card_impact.py) and the decision stakes (config/decisions.py). Each raises a
KeyProblem at a key path; ``_Request.error`` makes it the one-line message.
"""
from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from fishing2sim.config.adaptive import stopping
from fishing2sim.config.card_impact import card_list
from fishing2sim.config.decisions import decision_settings
from fishing2sim.config.deck import Deck, DeckError, load_deck
from fishing2sim.config.deck_edits import edit_deck
from fishing2sim.config.file_schema import ExperimentFile
from fishing2sim.config.grid import (
    Grid, add_levels, condition_name, condition_seed, entry_name, expanding, grid_of,
    link_baselines, pair, pair_decks, set_path, settings, step,
)
from fishing2sim.config.keypaths import parse_key_path as _parse_key_path  # noqa: F401
from fishing2sim.config.keys import (  # noqa: F401 (the names other modules import from here)
    ANALYSES, CONDITIONS, CONTRAST_ANALYSIS, DECK_KEYS, DEFAULT_CHUNK, DEFAULT_GAMES,
    ENTRY_KEYS, EXECUTION_KEYS, KNOWN_ANALYSES, LABELLED_KEYS, LADDER, LADDER_EXCLUDES,
    LEVEL, LOAD_PROGRESS_CONDITIONS, MAX_CONDITIONS, MAX_CONDITIONS_HARD, MAX_GAMES, MAX_GAMES_HARD,
    MAX_SEED, MAX_YAML_DEPTH, MAX_YAML_VALUES, MULTIPLICITY, OVERRIDE_KEYS, PRECISION_FIGURES,
    PROFILE, PROFILE_GAMES, SWEEPABLE, TOP_KEYS,
)
from fishing2sim.config.levels import (
    Panel, level_caps, level_fair_play, level_precision, panel_of, with_profile,
)
from fishing2sim.config.messages import ExperimentError, KeyProblem, short as _short
from fishing2sim.config.resolved import config_hash, resolved
from fishing2sim.config.schema import ConditionSettings, DeckSpec, check
from fishing2sim.config.seats import Bots, ladder, locate_seats, no_search_seats, seats
from fishing2sim.config.shipped import (  # noqa: F401 (the names other modules import from here)
    first_sentences, shipped_experiment, shipped_experiments, shipped_experiments_dir,
)
from fishing2sim.config.yamlfile import _load_yaml, read_mapping  # noqa: F401

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



# ---- loading ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Request:
    """What a load is asked: the file (as given: it names the file in every message; its
    folder anchors relative paths), the command line's values, and how a problem names
    where it is (``origin``: sweep key -> the key path its values came from, a tune's
    ``tune.space.<key>``; ``grid_phrase``: how a problem names the sweep condition)."""

    given: str
    overrides: dict
    yes: bool = False
    progress: bool = False
    origin: dict = field(default_factory=dict)
    grid_phrase: str = "in the sweep condition"

    @property
    def path(self) -> Path:
        return Path(self.given).expanduser()

    def error(self, exc: KeyProblem) -> ExperimentError:
        """The one-line message of ``exc``: ``"<file>: <key path>: <problem>"``."""
        key, text = exc.path, exc.text
        for k, shown in self.origin.items():  # a sweep key given elsewhere (a tune's space)
            if key == f"sweep.{k}" or key.startswith((f"sweep.{k}[", f"sweep.{k}.")):
                key = shown + key[len(f"sweep.{k}"):]
        if exc.labels:  # the condition being expanded
            which = "in the condition" if CONDITIONS in exc.labels else self.grid_phrase
            text += f" ({which} {', '.join(f'{k}={_short(v)}' for k, v in exc.labels.items())})"
        return ExperimentError(text if exc.whole else f"{self.given}: {key}: {text}")

    def size(self, n_conditions: int, n_games: int | None) -> None:
        """The documented limits of a run (above the soft ones only with --yes)."""
        for key, what, n, soft, hard in (
                ("sweep", f"{n_conditions:,} conditions", n_conditions, MAX_CONDITIONS,
                 MAX_CONDITIONS_HARD),
                ("games", f"{n_games or 0:,} games in all ({n_conditions:,} condition"
                 f"{'' if n_conditions == 1 else 's'})", n_games or 0, MAX_GAMES,
                 MAX_GAMES_HARD)):
            if n > hard or (n > soft and not self.yes):
                raise KeyProblem(key, f"{what} is above the limit of {hard:,}" if n > hard
                                 else f"{what} is above {soft:,}; give --yes to run it anyway")


class _Decks:
    """The decks of one file: each base deck (a ruleset's, or a deck file relative to the
    experiment file) read once, each edited deck made once."""

    def __init__(self, request: _Request):
        self.given, self.folder = request.given, request.path.resolve().parent
        self.edited: dict[str, Deck] = {}
        self.bases: dict[str, Deck] = {}

    def deck(self, ruleset: str, spec) -> Deck:
        spec = {} if spec is None else spec
        check(DeckSpec, spec, "deck")
        try:
            key = ruleset + " " + json.dumps(spec, sort_keys=True, default=str)
        except TypeError:  # keys of two types (4 and '4'): the edits report it
            key = ruleset + " " + repr(spec)
        if key not in self.edited:
            deck = self.base(ruleset, spec.get("file"))
            edits = {k: v for k, v in spec.items() if k != "file"}
            if any(v is not None for v in edits.values()):
                try:
                    deck = edit_deck(deck, where=f"{self.given}: deck", **edits)
                except DeckError as exc:  # its message names the file and the key path
                    raise KeyProblem("deck", str(exc), whole=True) from None
            self.edited[key] = deck
        return self.edited[key]

    def base(self, ruleset: str, file) -> Deck:
        """The ruleset's deck, or the deck file ``file``."""
        key = f"{ruleset} {file or ''}"
        if key not in self.bases:
            p = (self.folder / Path(file).expanduser()).resolve() if file else None
            try:
                if p is not None and not p.is_file():
                    raise DeckError(f"deck file {file!r} not found (looked for {p}; a path is "
                                    "relative to the experiment file's folder)")
                self.bases[key] = load_deck(p, ruleset=ruleset)
            except DeckError as exc:
                raise KeyProblem("deck.file", str(exc)) from None
        return self.bases[key]


def _top_level(request: _Request, raw: dict) -> tuple[dict, ExperimentFile, set]:
    """(the file's mapping with the command line's values, the validated file, the keys
    the command line set)."""
    for k in request.overrides:
        if k not in OVERRIDE_KEYS:
            raise KeyProblem(k, f"cannot be set from the command line (only "
                             f"{', '.join(OVERRIDE_KEYS)})")
    over_keys = {k for k, v in request.overrides.items() if v is not None}
    cfg = dict(raw)
    cfg.update({k: request.overrides[k] for k in over_keys})
    data = dict(cfg)
    data.setdefault("name", request.path.stem)
    data.setdefault("analyses", [LADDER] if LADDER in cfg else list(ANALYSES))
    top = check(ExperimentFile, data,
                rename={k: f"{k} (from the command line)" for k in over_keys},
                context={"given": set(cfg), "games_given": "games" in over_keys})
    return cfg, top, over_keys


def _load(request: _Request, raw: dict) -> Experiment:
    """The Experiment of the file's mapping ``raw``; every problem one ExperimentError."""
    try:
        return _experiment(request, raw)
    except KeyProblem as exc:
        raise request.error(exc) from None


def _experiment(request: _Request, raw: dict) -> Experiment:
    cfg, top, over_keys = _top_level(request, raw)
    bots, decks = Bots(request.path.resolve().parent), _Decks(request)
    the_ladder, ladder_axis = ladder(bots, cfg, top, "games" in over_keys) \
        if top.ladder is not None else (None, None)
    panel = panel_of(top, bots, request.overrides.get("games"), raw.get("games"))
    grid = grid_of(top, ladder_axis)
    if panel is not None:
        add_levels(grid, panel)
    n_conditions = math.prod(len(a.values) for a in grid.axes)
    request.size(n_conditions, None)  # before expanding anything
    if "games" not in grid.keys and panel is None:
        request.size(n_conditions, n_conditions * top.games)
    conditions = _conditions(request, cfg, top, grid, bots, decks, panel is not None)
    level_fair_play(panel, conditions)
    precision, sprt, max_games = stopping(bots, cfg, top, conditions)
    if precision or sprt:
        request.size(len(conditions), len(conditions) * max_games)
        caps = level_caps(panel, top.max_games is not None, max_games, conditions)
        if panel is not None and precision:
            level_precision(panel, precision, caps)
        conditions = [dataclasses.replace(
            c, games=_whole_chunks(c, c.games, top.chunk),
            max_games=max(caps.get(c.level, max_games), _whole_chunks(c, c.games, top.chunk)))
            for c in conditions]
    request.size(len(conditions), sum(c.games for c in conditions))
    n_rounds = max(c.deck.n_rounds for c in conditions)
    max_round = top.trump_value.max_round if top.trump_value else None
    if max_round is not None and max_round > n_rounds:
        raise KeyProblem("trump_value.max_round", f"round {max_round} but the deck has only "
                         f"{n_rounds} rounds")
    max_round = n_rounds if max_round is None else max_round
    output_dir = Path(os.path.abspath(Path(top.output).expanduser() / top.name))
    _probe("output (from the command line)" if "output" in over_keys else "output", output_dir)
    config = resolved(cfg, top, grid.entries if CONDITIONS in grid.keys else None, max_round,
                      the_ladder, precision, sprt, max_games, panel)
    if "cards" in top.analyses:  # (in the hash: which cards are left out)
        only = top.cards.only if top.cards is not None else None
        config["cards"] = {"only": list(only) if only is not None else "every ocean card"}
    analyses = with_profile(top.analyses, panel)
    if PROFILE in analyses:  # (only then: every other file's hash stays as it was)
        config["profile"] = {"games_replayed": PROFILE_GAMES}
    decisions = decision_settings(top, conditions)
    if decisions is not None:  # (only then: every other file's hash stays as it was)
        config["decisions"] = dict(decisions)
    return Experiment(
        name=top.name, path=request.path.resolve(), ruleset=top.ruleset, games=top.games,
        seed=top.seed, chunk=top.chunk, analyses=analyses,
        trump_max_round=int(max_round), workers=top.workers, scheduler=top.scheduler,
        output_dir=output_dir, conditions=tuple(conditions), resolved=config,
        config_hash=config_hash(config, conditions), strict=top.strict,
        precision=precision, sprt=sprt, paired=top.paired, ladder=the_ladder,
        multiplicity=top.multiplicity, panel=panel, decisions=decisions,
        examples=top.examples)


def _whole_chunks(cond, games: int, chunk: int) -> int:
    """``games`` rounded up to whole chunks of the condition."""
    return -(-games // step(cond, chunk)) * step(cond, chunk)


def _conditions(request, cfg, top, grid: Grid, bots: Bots, decks: _Decks,
                panel: bool = False) -> list:
    """The conditions of the grid, named, linked to their baselines and paired."""
    bar = None
    n_conditions = math.prod(len(a.values) for a in grid.axes)
    if request.progress and n_conditions >= LOAD_PROGRESS_CONDITIONS:
        from tqdm import tqdm

        bar = tqdm(total=n_conditions, desc=f"loading {request.path.name}",
                   unit="condition", leave=False, dynamic_ncols=True)
    combos = list(itertools.product(*[range(len(a.values)) for a in grid.axes]))
    # each condition's settings, then every seat's strategy found (not yet imported:
    # importing one loads numba and compiles), then the conditions built
    grid_settings = settings(cfg, top, grid, combos)
    for c, labels, _ in grid_settings:
        with expanding(labels, grid):
            locate_seats(bots, c.get("seats"))
    conditions = []
    for index, (combo, (c, labels, entry)) in enumerate(zip(combos, grid_settings)):
        with expanding(labels, grid):
            cond = _condition(index, c, labels, top.seed, bots, decks)
            if CONDITIONS in labels:
                labels[CONDITIONS] = entry_name(grid, entry, cond, bots.n_params)
            cond = dataclasses.replace(cond, name=condition_name(grid, combo, cond,
                                                                 bots.n_params))
            if "trump_value" in top.analyses and not (panel and LEVEL in labels):
                no_search_seats(cond, "analyses: trump_value")
            if "cards" in top.analyses:
                cond = card_list(cond, top.cards, decks.base(c["ruleset"], None).names)
        conditions.append(cond)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    conditions = link_baselines(grid, conditions, combos)
    if panel:  # the levels of a condition play the same deals, whatever their games
        return pair(conditions, top.seed, by_games=False)
    return pair(conditions, top.seed) if top.paired else pair_decks(conditions)


def _condition(index, c, labels, seed, bots: Bots, decks: _Decks) -> Condition:
    """One condition of its settings (the file's, with its grid values set)."""
    s = check(ConditionSettings, c)
    deck = decks.deck(s.ruleset, c.get("deck"))  # before the seats: they import strategies
    lineup, params = seats(bots, c.get("seats"), s.players)
    try:
        deck.check_players(s.players)
    except DeckError as exc:
        raise KeyProblem("deck", str(exc)) from None
    games = -(-s.games // s.players) * s.players if s.rotate else s.games
    return Condition(index=index, labels=labels, players=s.players, deck=deck,
                     lineup=tuple(lineup), params=tuple(params), rotate=bool(s.rotate),
                     first_leader=s.first_leader, games=games,
                     seed=condition_seed(seed, index), deck_sha256=deck.sha256,
                     identities=tuple(bots.identities[e] for e in lineup),
                     level=labels.get(LEVEL, ""))


def _probe(key, folder: Path) -> None:
    """Create ``folder`` (and its parents) if needed, write and delete a temporary file,
    then remove the folders it created: nothing is left behind."""
    missing = []
    p = folder
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    created = []
    try:
        if not p.is_dir():
            raise OSError(f"{p} is a file, not a folder")
        for d in reversed(missing):
            d.mkdir()
            created.append(d)
        fd, tmp = tempfile.mkstemp(prefix=".fishing2sim-probe-", dir=folder)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        what = "create" if len(created) < len(missing) or not p.is_dir() else "write to"
        raise KeyProblem(key, f"cannot {what} the report folder {folder}: "
                         f"{exc.strerror or exc}") from None
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
    request = _Request(str(path), overrides or {}, yes=yes, progress=progress)
    return _load(request, read_experiment_file(path))


def read_experiment_file(path) -> dict:
    """The file's YAML mapping, read like ``load_experiment`` reads it (same errors)."""
    return read_mapping(Path(path).expanduser(), str(path))


# ---- experiments held in memory (used by ``fishing2sim tune``) ----------------------------
def load_experiment_data(data: dict, path, overrides: dict | None = None,
                         yes: bool = False, origin: dict | None = None,
                         grid_phrase: str | None = None) -> Experiment:
    """``load_experiment`` for a file's content already read into ``data`` (``path``
    still names it in errors and anchors relative paths).

    ``origin``: sweep key -> the key path its values came from (a tune's
    ``tune.space.<key>``): its problems are reported there; ``grid_phrase``: how a
    problem names the sweep condition it is in (``with the tune values``)."""
    request = _Request(str(path), overrides or {}, yes=yes, origin=dict(origin or {}),
                       grid_phrase=grid_phrase or _Request.grid_phrase)
    if not isinstance(data, dict):
        raise ExperimentError(f"{path}: top level: expected a mapping of keys such as "
                              f"players, games, seats, got a {type(data).__name__}")
    return _load(request, copy.deepcopy(data))


def set_key_path(cfg: dict, key: str, value, path="<experiment>") -> None:
    """Set ``key`` (a sweep key path such as ``deck.remove_from_tier.5``) in ``cfg``."""
    try:
        set_path(cfg, key, value)
    except KeyProblem as exc:
        raise _Request(str(path), {}).error(exc) from None
