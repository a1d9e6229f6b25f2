"""Experiment files: one YAML file describes a whole study (``fishing2sim run x.yaml``).

    from fishing2sim.config.experiment import load_experiment
    exp = load_experiment("experiments/trump.yaml", overrides={"workers": 2})
    for c in exp.conditions:
        c.players, c.deck, c.lineup, c.params, c.games, c.seed

``load_experiment`` reads and validates the file, applies the deck edits, expands the sweep
grid into conditions and checks that the output folder can be written. Every problem is ONE
:class:`ExperimentError` message ``"<file>: <key path>: <problem>"``. The schema is documented
in ``docs/experiments.md`` and, fully commented, in ``experiments/example.yaml``.
"""
from __future__ import annotations

from fishing2sim.errors import Fishing2simError
import copy
import dataclasses
import difflib
import hashlib
import itertools
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from fishing2sim.config.deck import SUPPORTED_PLAYERS, Deck, DeckError, edit_deck, load_deck
from fishing2sim.engine.constants import MAX_ROUNDS, RULESETS
from fishing2sim.strategy.identity import StrategyIdentity, distinct_names, identify, named
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.strategy.files import resolve_path
from fishing2sim.strategy.search_bots import search_params_problem

__all__ = [
    "ANALYSES",
    "Condition",
    "Experiment",
    "ExperimentError",
    "condition_seed",
    "load_experiment",
]

ANALYSES = ("depletion", "overfishing", "trump_value", "strategies")  # the default set
LADDER = "ladder"  # the ladder analysis (and key): only in a file with a ladder: key
KNOWN_ANALYSES = ANALYSES + (LADDER, "arc")  # arc: the game-arc figures, asked for by name
TOP_KEYS = ("name", "ruleset", "players", "games", "seed", "chunk", "first_leader", "seats",
            "rotate", "deck", "sweep", "analyses", "trump_value", "workers", "scheduler",
            "output", "strict", "tune", "paired", "precision", "max_games", "sprt",
            "conditions", "ladder", "multiplicity")  # tune: read by `fishing2sim tune` only
LADDER_KEYS = ("bots", "search_games", "anchor")
# keys a ladder file cannot have: the ladder makes its own conditions
LADDER_EXCLUDES = ("seats", "sweep", "conditions", "paired", "precision", "sprt", "max_games")
DECK_KEYS = ("file", "remove", "remove_from_tier", "add", "move", "hand_sizes", "rounds")
SEAT_KEYS = ("strategy", "params")
TRUMP_KEYS = ("max_round",)
LABELLED_KEYS = ("value", "label", "baseline")  # a sweep value written {value:, label:, baseline:}
ENTRY_KEYS = ("label", "baseline")  # an entry of conditions: key paths, and these
CONDITIONS = "conditions"  # the explicit conditions, one more dimension of the grid
# precision: figure -> (its unit as written, the unit's scale to the figure's own unit)
PRECISION_FIGURES = {
    "overfishing": ("pp", 0.01),  # the overfished share, in percentage points
    "ocean_empty": ("pp", 0.01),  # share of games whose ocean is empty (or overfished) by the end
    "ocean_left": ("cards", 1.0),  # cards left after the last round's draws, over all games
    "trump_value": ("points", 1.0),  # the policy gain per trump choice, pooled over rounds
    "win_share": ("pp", 0.01),  # every strategy's win share
}
MULTIPLICITY = ("holm", "bh", "none")  # stats.MULTIPLICITY
# the analysis a contrast figure comes with (contrasts.FIGURE_INFO)
CONTRAST_ANALYSIS = {"overfishing": "overfishing", "ocean_empty": "depletion",
                     "ocean_left": "depletion", "trump_value": "trump_value",
                     "win_share": "strategies"}
SPRT_KEYS = ("better", "than", "elo0", "elo1", "alpha", "beta")
# keys a sweep may vary (per condition); the others are experiment-wide
SWEEPABLE = ("players", "games", "first_leader", "seats", "rotate", "deck", "ruleset")
# keys the command line may override
OVERRIDE_KEYS = ("workers", "scheduler", "games", "output", "strict")
# keys that do not change any result: left out of config_hash (so --resume may reuse
# checkpoints after a change of workers, scheduler or output folder)
# not hashed: they change how a run plays or reports, never its games (multiplicity: the
# adjustment of the contrasts' verdict words)
EXECUTION_KEYS = ("workers", "scheduler", "output", "strict", "multiplicity")

DEFAULT_GAMES = 100_000
DEFAULT_CHUNK = 10_000
CONDITION_SEED_OFFSET = 1_000_000
MAX_SEED = 2**63 - 1

# the size of a run, checked before anything is expanded or played (docs/experiments.md):
# above the soft limits a run needs --yes (load_experiment(..., yes=True)); the hard limits
# always hold
MAX_GAMES = 10**9  # games in all (games x conditions)
MAX_GAMES_HARD = 10**13  # int64 sums of squares stay exact far below this
MAX_CONDITIONS = 1_000  # sweep size (conditions)
MAX_CONDITIONS_HARD = 100_000
# the YAML itself
MAX_YAML_DEPTH = 64  # nesting levels
MAX_YAML_VALUES = 1_000_000  # values after expanding aliases (an "alias bomb" expands far more)
LOAD_PROGRESS_CONDITIONS = 200  # show a progress bar while expanding more conditions


class ExperimentError(Fishing2simError, ValueError):
    """A problem in an experiment file: ``"<file>: <key path>: <problem>"``."""


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
    # a ladder (fishing2sim/analysis/ladder.py): {bots: their NAMEs in the file's order, kinds:
    # heuristic, search or cheater each (their identities'), budgets: per bot None or a
    # search bot's {params: {name: value}, rollout: its rollout strategy's NAME}, anchor:
    # the NAME rated 0, games / search_games: games per pair}; None otherwise
    ladder: dict | None = None

    @property
    def adaptive(self) -> bool:
        """A run whose length is decided by precision targets or an SPRT."""
        return bool(self.precision) or self.sprt is not None

    @property
    def has_baselines(self) -> bool:
        return any(c.baseline is not None for c in self.conditions)


def condition_seed(seed: int, index: int) -> int:
    """The seed of condition ``index``: game_seed(seed, 1_000_000 + index), kept to 63 bits.

    Game ``g`` of the condition is then game_seed(condition seed, g), as in play_games.
    """
    from fishing2sim.engine.rng import game_seed

    return int(game_seed(int(seed), CONDITION_SEED_OFFSET + int(index))) & MAX_SEED


# ---- helpers ------------------------------------------------------------------------------
def _short(v) -> str:
    if isinstance(v, (dict, list)):
        return json.dumps(v, separators=(",", ":"), default=str)
    return str(v)


def _did_you_mean(word, choices) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _got(v) -> str:
    return f"got {v!r}"


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that rejects a key given twice in one mapping."""


def _construct_mapping(loader, node, deep=False):
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            continue  # PyYAML reports unhashable keys itself
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first given on line {seen[key] + 1})",
                key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                                 _construct_mapping)
# YAML 1.1 (PyYAML) reads a number in exponent form without a dot, such as 1e9 or -2e-3, as
# text; a designer writing a range means a number (YAML 1.2 reads it so)
_UniqueKeyLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


class _YAMLLimit(yaml.YAMLError):
    def __init__(self, problem, mark=None):
        super().__init__(problem)
        self.problem, self.mark = problem, mark


class _LimitedLoader(_UniqueKeyLoader):
    """Refuses nesting deeper than MAX_YAML_DEPTH while composing (PyYAML recurses there)."""

    _depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _YAMLLimit(f"nested deeper than {MAX_YAML_DEPTH} levels",
                                 self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _expanded_size(node, memo: dict) -> int:
    """How many values ``node`` stands for once every alias is expanded (an alias shares
    its anchor's node: counted once per use, computed once per node)."""
    key = id(node)
    if key not in memo:
        if isinstance(node, yaml.SequenceNode):
            memo[key] = 1 + sum(_expanded_size(c, memo) for c in node.value)
        elif isinstance(node, yaml.MappingNode):
            memo[key] = 1 + sum(_expanded_size(k, memo) + _expanded_size(v, memo)
                                for k, v in node.value)
        else:
            memo[key] = 1
    return memo[key]


def _load_yaml(text: str):
    loader = _LimitedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}) > MAX_YAML_VALUES:
            raise _YAMLLimit(f"the file expands to more than {MAX_YAML_VALUES:,} values "
                             "through its aliases (*name)", None)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def shipped_experiments_dir() -> Path | None:
    """The shipped experiment files: fishing2sim/experiments/ in an installed package, the
    repository's experiments/ in a source checkout."""
    pkg = Path(__file__).resolve().parent.parent
    for d in (pkg / "experiments", pkg.parent / "experiments"):
        if d.is_dir() and any(d.glob("*.yaml")):
            return d
    return None


def shipped_experiments() -> list[tuple[str, Path, str]]:
    """(name, path, the first paragraph of its leading comment, on one line) of every
    shipped experiment."""
    d = shipped_experiments_dir()
    out = []
    for path in sorted(d.glob("*.yaml")) if d else ():
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            text = line.lstrip("#").strip()
            if not line.startswith("#") or not text:
                break  # the paragraph ends at a blank line or the file's keys
            lines.append(text)
        doc = " ".join(" ".join(lines).split())
        if doc.lower().startswith(path.name.lower()):
            doc = doc[len(path.name):].lstrip(" -:—")
        out.append((path.stem, path, doc))
    return out


def first_sentences(text: str) -> str:
    """The first whole sentence of ``text``, and the next one too when the first is a short
    question (it names the topic; the next says what is measured): a sentence ends at . ?
    or ! followed by a space (or the end), outside parentheses and quotes, not after an
    abbreviation such as e.g."""
    ends, depth, quoted = [], 0, False
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif ch == '"':
            quoted = not quoted
        elif ch in ".?!" and depth == 0 and not quoted \
                and (i + 1 == len(text) or text[i + 1] == " ") \
                and not re.search(r"(?:\b(?:e\.g|i\.e|vs|etc)|\.\.)\.$", text[:i + 1]):
            ends.append(i + 1)
    if not ends:
        return text
    short_question = text[ends[0] - 1] == "?" and ends[0] <= 120 and len(ends) > 1
    return text[:ends[1] if short_question else ends[0]]


def shipped_experiment(spec: str) -> str:
    """The experiment file ``spec`` names: ``spec`` itself if it is an existing file (or a
    path), else ``spec.yaml`` in the current folder, else the shipped experiment it names
    (``trump`` or ``trump.yaml``; a shipped name wins over a folder of that name, such as
    a checkout's ``strategies/``), else ``spec`` (the loader reports it missing)."""
    if Path(spec).expanduser().is_file() or "/" in spec or "\\" in spec:
        return spec
    if not spec.endswith(".yaml") and Path(f"{spec}.yaml").is_file():
        return f"{spec}.yaml"
    stem = spec[:-5] if spec.endswith(".yaml") else spec
    for name, path, _ in shipped_experiments():
        if name == stem:
            return str(path)
    return spec


def _parse_key_path(key: str) -> list:
    """``"deck.remove_from_tier.5"`` / ``"seats[1].params"`` -> components (str or int)."""
    out: list = []
    for part in key.split("."):
        m = re.fullmatch(r"([^\[\]]*)((?:\[\d+\])*)", part)
        if not m or (not m.group(1) and not m.group(2)):
            raise ValueError(part)
        if m.group(1):
            out.append(m.group(1))
        out.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return out


def _overlap(a: list, b: list) -> bool:
    """Whether two key paths set the same place (one is the other or inside it)."""
    n = min(len(a), len(b))
    return [str(x) for x in a[:n]] == [str(x) for x in b[:n]]


def _key_str(parts) -> str:
    s = ""
    for p in parts:
        s += f"[{p}]" if isinstance(p, int) else (f".{p}" if s else str(p))
    return s


# ---- loading ------------------------------------------------------------------------------
class _Loader:
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
        root = re.split(r"[.\[]", key, maxsplit=1)[0]
        if self.labels and root in self.swept_roots:
            problem += self.where_in_grid()
        raise ExperimentError(f"{self.given}: {key}: {problem}")

    def where_in_grid(self) -> str:
        """`` (in the sweep condition players=3, ...)`` (``condition`` for an entry of
        conditions): the condition being expanded."""
        which = "condition" if CONDITIONS in self.labels else "sweep condition"
        return f" (in the {which} {', '.join(f'{k}={_short(v)}' for k, v in self.labels.items())})"

    def read(self) -> dict:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            hint = ""
            if "/" not in self.given and "\\" not in self.given:
                names = [n for n, _, _ in shipped_experiments()]
                hint = (f"{_did_you_mean(self.given.removesuffix('.yaml'), names)}; shipped "
                        f"experiments: {', '.join(names)}") if names else ""
            raise ExperimentError(f"{self.given}: file not found{hint}") from None
        except IsADirectoryError:
            raise ExperimentError(f"{self.given}: a folder, not an experiment file: give a "
                                  "YAML file, or the name of a shipped experiment (fishing2sim "
                                  "experiments lists them)") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ExperimentError(f"{self.given}: cannot read the file: {exc}") from None
        try:
            data = _load_yaml(text)  # a SafeLoader subclass with size limits
        except _YAMLLimit as exc:
            where = f"line {exc.mark.line + 1}, column {exc.mark.column + 1}: " if exc.mark \
                else ""
            raise ExperimentError(f"{self.given}: {where}{exc.problem}") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "YAML"
            problem = getattr(exc, "problem", None) or str(exc)
            context = getattr(exc, "context", None)
            what = f"{context}: {problem}" if context and problem else problem
            cmark = getattr(exc, "context_mark", None)
            if cmark is not None and mark is not None and cmark.line != mark.line:
                what += f" (it started on line {cmark.line + 1})"
            raise ExperimentError(f"{self.given}: {where}: YAML syntax error: {what}") from None
        if data is None:
            raise ExperimentError(f"{self.given}: the file is empty: an experiment is a mapping "
                                  "of keys such as players, games, seats (see "
                                  "experiments/example.yaml)")
        if not isinstance(data, dict):
            raise ExperimentError(f"{self.given}: top level: expected a mapping of keys such as "
                                  f"players, games, seats, got a {type(data).__name__}")
        return data

    def check_keys(self, key: str, data: dict, known) -> None:
        for k in data:
            if not isinstance(k, str) or k not in known:
                where = f"{key}.{k}" if key else str(k)
                if k in ENTRY_KEYS:
                    self.fail(where, f"{'a label names' if k == 'label' else 'baseline marks'} "
                              "a condition, and this is not one: write it in an entry of "
                              "conditions ({label: ..., baseline: true, <key path>: <value>}) "
                              "or on a sweep value ({value: ..., label: ..., baseline: true})")
                self.fail(where, f"unknown key{_did_you_mean(k, known)}; known: "
                          f"{', '.join(known)}")

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

    def load(self) -> Experiment:
        raw = self.read()
        self.check_keys("", raw, TOP_KEYS)
        for k, v in self.overrides.items():
            if k not in OVERRIDE_KEYS:
                raise ExperimentError(f"{self.given}: {k}: cannot be set from the command line "
                                      f"(only {', '.join(OVERRIDE_KEYS)})")
        cfg = dict(raw)
        over_keys = set()
        for k, v in self.overrides.items():
            if v is not None:
                cfg[k] = v
                over_keys.add(k)

        def key_of(k):
            return f"{k} (from the command line)" if k in over_keys else k

        name = cfg.get("name", self.path.stem)
        if not isinstance(name, str) or not name.strip() or name.strip() in (".", "..") \
                or "/" in name or "\\" in name:
            self.fail("name", f"expected a folder name (text without '/'), {_got(name)}")
        name = name.strip()
        if name.startswith("."):  # .checkpoints, .<name>.lock and temporary folders live there
            self.fail("name", "a report folder's name may not start with '.' (the run keeps "
                      f"its hidden files beside the report: .checkpoints, .<name>.lock), {_got(name)}")
        ruleset = cfg.get("ruleset", "fishing2")
        if not isinstance(ruleset, str) or ruleset not in RULESETS:
            self.fail("ruleset", f"unknown ruleset {ruleset!r}{_did_you_mean(ruleset, RULESETS)}"
                      f"; known: {', '.join(RULESETS)}")
        self.ruleset = ruleset
        games = cfg.get("games", DEFAULT_GAMES)
        self.whole(key_of("games"), games, 1, what="a whole number")
        self.games_limit(key_of("games"), games)
        seed = cfg.get("seed", 0)
        self.whole("seed", seed, 0, MAX_SEED, what="a whole number")
        chunk = self.whole("chunk", cfg.get("chunk", DEFAULT_CHUNK), 1)
        workers = self.whole(key_of("workers"), cfg.get("workers", 0), 0)
        scheduler = cfg.get("scheduler")
        if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
            self.fail(key_of("scheduler"), f"expected a scheduler address such as "
                      f"tcp://host:8786, or null, {_got(scheduler)}")
        scheduler = scheduler.strip() if scheduler else None
        strict = cfg.get("strict", False)
        if not isinstance(strict, bool):
            self.fail(key_of("strict"), f"expected true or false, {_got(strict)}")
        multiplicity = cfg.get("multiplicity", "holm")
        if multiplicity not in MULTIPLICITY:
            self.fail("multiplicity", "expected holm (Holm's step-down, the default), bh "
                      "(Benjamini-Hochberg) or none"
                      f"{_did_you_mean(str(multiplicity), MULTIPLICITY)}, {_got(multiplicity)}")
        output = cfg.get("output", "reports")
        if not isinstance(output, (str, Path)) or not str(output).strip():
            self.fail(key_of("output"), f"expected a folder path, {_got(output)}")
        output = str(output)
        analyses = cfg.get("analyses", [LADDER] if LADDER in cfg else list(ANALYSES))
        if isinstance(analyses, str):
            analyses = [analyses]
        if not isinstance(analyses, list) or not analyses:
            self.fail("analyses", f"expected a list of analyses ({', '.join(KNOWN_ANALYSES)}), "
                      f"{_got(analyses)}")
        for i, a in enumerate(analyses):
            if a not in KNOWN_ANALYSES:
                self.fail(f"analyses[{i}]", f"unknown analysis {a!r}"
                          f"{_did_you_mean(a, KNOWN_ANALYSES)}; known: "
                          f"{', '.join(KNOWN_ANALYSES)}")
            if a in analyses[:i]:
                self.fail(f"analyses[{i}]", f"analysis {a!r} given twice")
            if a == LADDER and LADDER not in cfg:
                self.fail(f"analyses[{i}]", "the ladder analysis needs a ladder: key listing "
                          "the bots to rate, e.g. ladder: {bots: [random, greedy, weights]} "
                          "(docs/experiments.md, Ladder)")
        if LADDER in cfg and LADDER not in analyses:
            self.fail("analyses", "a file with ladder: rates its bots with the ladder "
                      "analysis: add ladder to analyses (or leave analyses out)")
        ladder = self.ladder(cfg, games, "games" in over_keys, analyses) \
            if LADDER in cfg else None
        trump = cfg.get("trump_value")
        if trump is None:
            trump = {}
        if not isinstance(trump, dict):
            self.fail("trump_value", f"expected a mapping such as {{max_round: 8}}, {_got(trump)}")
        self.check_keys("trump_value", trump, TRUMP_KEYS)
        max_round = trump.get("max_round")
        if max_round is not None:
            self.whole("trump_value.max_round", max_round, 2, MAX_ROUNDS,
                       what="a round number")

        # ---- the grid -------------------------------------------------------------------
        sweep_keys, sweep_values = self.sweep(cfg)
        entries = self.explicit(cfg, sweep_keys)
        self._entries = entries or []
        if entries is not None:
            sweep_keys = [CONDITIONS] + sweep_keys
            sweep_values = [entries] + sweep_values
        base = {k: cfg.get(k) for k in SWEEPABLE}
        base["ruleset"] = ruleset
        base["players"] = cfg.get("players", 4)
        base["games"] = games
        if isinstance(base["players"], list):
            ps = base["players"]
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
        n_conditions = math.prod(len(v) for v in sweep_values)
        self.size_check(n_conditions, None)  # before expanding anything
        if "games" not in sweep_keys and _whole(games):
            self.size_check(n_conditions, n_conditions * games)
        bar = None
        if self.progress and n_conditions >= LOAD_PROGRESS_CONDITIONS:
            from tqdm import tqdm

            bar = tqdm(total=n_conditions, desc=f"loading {self.path.name}", unit="condition",
                       leave=False, dynamic_ncols=True)
        paired = cfg.get("paired", False)
        if not isinstance(paired, bool):
            self.fail("paired", f"expected true or false, {_got(paired)}")
        conditions = []
        combos = list(itertools.product(*[range(len(v)) for v in sweep_values]))
        grid = []  # each condition's settings, then every seat's strategy found (not yet
        # imported: importing one loads numba and compiles), then the conditions built
        for index, combo in enumerate(combos):
            c = copy.deepcopy(base)
            labels = {}
            for key, vals, i in zip(sweep_keys, sweep_values, combo):
                value = vals[i]
                if key == CONDITIONS:  # an explicit condition: its name, then its settings
                    entry = i  # named once the condition is built (below)
                    labels[key] = self.value_labels[key][i] or f"{CONDITIONS}[{i}]"
                    for k, v in value.items():
                        self.set_path(c, k, v, at=f"{CONDITIONS}[{i}].{k}")
                        labels[k] = v
                    continue
                if key == "players" and isinstance(c["players"], list):
                    c["players"] = value
                else:
                    self.set_path(c, key, value)
                labels[key] = value
            grid.append((c, labels, entry if CONDITIONS in labels else None))
        for c, labels, _ in grid:
            self.labels = labels
            self.locate_seats(c.get("seats"))
        for index, (combo, (c, labels, entry)) in enumerate(zip(combos, grid)):
            self.labels = labels
            cond = self.condition(index, c, labels, games, seed)
            if CONDITIONS in labels:
                labels[CONDITIONS] = self.entry_name(entry, cond)
            cond = dataclasses.replace(cond, name=self.condition_name(sweep_keys, combo, cond))
            if "trump_value" in analyses:
                self.no_search_seats(cond, "analyses: trump_value")
            conditions.append(cond)
            if bar is not None:
                bar.update(1)
        self.labels = {}
        conditions = self.link_baselines(conditions, sweep_keys, combos)
        if paired:
            conditions = self.pair(conditions, seed)
        precision, sprt, max_games = self.adaptive(cfg, analyses, conditions, chunk)
        if precision or sprt:
            conditions = [dataclasses.replace(
                c, games=-(-c.games // self.step(c, chunk)) * self.step(c, chunk),
                max_games=max(max_games, -(-c.games // self.step(c, chunk)) * self.step(c, chunk)))
                for c in conditions]
        if bar is not None:
            bar.close()
        self.size_check(len(conditions), sum(c.games for c in conditions))

        n_rounds = max(c.deck.n_rounds for c in conditions)
        if max_round is None:
            max_round = n_rounds
        elif max_round > n_rounds:
            self.fail("trump_value.max_round", f"round {max_round} but the deck has only "
                      f"{n_rounds} rounds")

        output_dir = Path(os.path.abspath(Path(output).expanduser() / name))
        self.probe(key_of("output"), output_dir)

        resolved = {
            "name": name,
            "ruleset": ruleset,
            "players": copy.deepcopy(cfg.get("players", 4)),
            "games": games,
            "seed": seed,
            "chunk": chunk,
            "first_leader": cfg.get("first_leader", "random"),
            "seats": self.resolved_seats(cfg.get("seats", "random")),
            "rotate": cfg.get("rotate", False),
            "deck": self.resolved_deck(cfg.get("deck")),
            "sweep": {k: copy.deepcopy(v) for k, v in (cfg.get("sweep") or {}).items()},
            **({CONDITIONS: copy.deepcopy(cfg[CONDITIONS])} if entries is not None else {}),
            "analyses": list(analyses),
            "trump_value": {"max_round": max_round},
            "workers": workers,
            "scheduler": scheduler,
            "output": output,
            "strict": strict,
            "multiplicity": multiplicity,
        }
        if paired:
            resolved["paired"] = True
        if ladder is not None:  # its conditions are generated: the ladder key says it all
            resolved.pop(CONDITIONS, None)
            resolved.pop("seats", None)
            resolved[LADDER] = ladder.pop("resolved")
        if precision or sprt:
            resolved["max_games"] = max_games
        if precision:
            resolved["precision"] = {f: text for f, _, text in precision}
        if sprt:
            resolved["sprt"] = dict(sprt)
        h = hashlib.sha256()
        hashed = {k: v for k, v in resolved.items() if k not in EXECUTION_KEYS}
        h.update(json.dumps(hashed, sort_keys=True, separators=(",", ":"),
                            default=str).encode())
        for c in conditions:  # a seat's digest covers its files' content, never their paths,
            # so the same experiment in another folder or install has the same hash
            lineup = ",".join(i.digest for i in c.identities)
            h.update(f"\ncondition {c.index} deck {c.deck_sha256} lineup {lineup}".encode())
        return Experiment(
            name=name, path=self.path.resolve(), ruleset=ruleset, games=games, seed=seed,
            chunk=chunk, analyses=tuple(analyses), trump_max_round=int(max_round),
            workers=workers, scheduler=scheduler, output_dir=output_dir,
            conditions=tuple(conditions), resolved=resolved, config_hash=h.hexdigest(),
            strict=strict, precision=precision, sprt=sprt, paired=paired, ladder=ladder,
            multiplicity=multiplicity)

    # ---- ladder ---------------------------------------------------------------------------
    def ladder(self, cfg: dict, games: int, games_overridden: bool, analyses: list) -> dict:
        """Check the ladder: key and write its conditions into ``cfg``: one explicit
        condition per pair of bots (A, B), the lineup [A, A, B, B], seat-rotated, 4 players
        (fishing2sim/analysis/ladder.py). Returns the ladder's description (Experiment.ladder)."""
        spec = cfg[LADDER]
        if not isinstance(spec, dict):
            self.fail(LADDER, "expected a mapping such as {bots: [random, greedy, weights], "
                      f"search_games: 400, anchor: random}}, {_got(spec)}")
        self.check_keys(LADDER, spec, LADDER_KEYS)
        for k in LADDER_EXCLUDES:
            if k in cfg:
                self.fail(k, "cannot be combined with ladder: the ladder makes its own "
                          "conditions, one per pair of bots (lineup [A, A, B, B], "
                          "seat-rotated)")
        if cfg.get("rotate", True) is not True:
            self.fail("rotate", f"a ladder is always seat-rotated: leave rotate out or set "
                      f"it to true, {_got(cfg.get('rotate'))}")
        if cfg.get("players", 4) != 4:
            self.fail("players", "a ladder is played by 4 players (each pair as [A, A, B, "
                      f"B]): leave players out or set it to 4, {_got(cfg.get('players'))}")
        bots = spec.get("bots")
        if not isinstance(bots, list) or len(bots) < 2:
            n = len(bots) if isinstance(bots, list) else None
            self.fail(f"{LADDER}.bots", "a ladder rates bots against each other: give a list "
                      f"of at least 2 bots (strategy names, files or {{strategy: ..., params: "
                      f"[...]}}), {f'got {n} bot' if n is not None else _got(bots)}"
                      f"{'s' if n == 0 else ''}")
        names, kinds, budgets, search, idents = [], [], [], [], []
        for i, entry in enumerate(bots):
            at = f"{LADDER}.bots[{i}]"
            shown, vec = self.seat(at, entry)
            ident = self.identities[shown]
            name = ident.name
            if name in names:
                self.fail(at, f"a second bot named {name!r} (also {LADDER}.bots"
                          f"[{names.index(name)}]): every bot on a ladder needs its own "
                          "name; to rate another version, copy the file and change its NAME")
            searching = ident.kind != "heuristic"
            if searching and "trump_value" in analyses:
                self.fail(at, f"{name!r} is a search bot; analyses: trump_value is measured "
                          "without search seats (its replays would search at every decision "
                          "of every branch): leave trump_value out of a ladder's analyses")
            names.append(name)
            idents.append(ident)
            search.append(searching)
            kinds.append(ident.kind)
            if not searching:
                budgets.append(None)
            else:  # the search budget: its parameters by name, and its rollout strategy
                s = load_strategy(ident.file)
                vals = list(vec) if vec is not None else list(s.defaults)
                budgets.append({"params": {str(n): float(v)
                                           for n, v in zip(s.param_names, vals)},
                                "rollout": ident.rollout.name})
        search_games = spec.get("search_games", games)
        self.whole(f"{LADDER}.search_games", search_games, 1)
        self.games_limit(f"{LADDER}.search_games", search_games)
        if games_overridden:  # --games N: every pair plays N games
            search_games = games
        anchor = spec.get("anchor", "random")
        found = self.named_bot(f"{LADDER}.anchor", anchor, idents, "the ladder") \
            if isinstance(anchor, str) else None
        if found is None:
            self.fail(f"{LADDER}.anchor", f"the anchor (the bot rated 0) must be one of the "
                      f"ladder's bots ({', '.join(names)}), {_got(anchor)}"
                      + ("; random is the default anchor: add it to the bots or name another"
                         if "anchor" not in spec else ""))
        entries = []
        # the pairs with search bots first: their long chunks start first and the short
        # chunks of the other pairs fill the workers' time at the end
        for i, j in sorted(itertools.combinations(range(len(bots)), 2),
                           key=lambda ij: -(search[ij[0]] + search[ij[1]])):
            e = {"label": f"{names[i]} vs {names[j]}",
                 "seats": [bots[i], bots[i], bots[j], bots[j]]}
            if search[i] or search[j]:
                e["games"] = search_games
            entries.append(e)
        cfg[CONDITIONS] = entries
        cfg["rotate"] = True
        cfg["players"] = 4
        return {"bots": names, "kinds": kinds, "budgets": budgets, "anchor": found.name,
                "games": -(-games // 4) * 4, "search_games": -(-search_games // 4) * 4,
                "resolved": {"bots": copy.deepcopy(bots), "search_games": search_games,
                             "anchor": anchor}}

    # ---- sweep ----------------------------------------------------------------------------
    def sweep(self, cfg) -> tuple[list, list]:
        sweep = cfg.get("sweep")
        if sweep is None:
            return [], []
        if not isinstance(sweep, dict):
            self.fail("sweep", f"expected a mapping key path -> list of values, {_got(sweep)}")
        keys, values = [], []
        for key, vals in sweep.items():
            at = f"sweep.{key}"
            root = self.key_path(at, key)[0]
            if not isinstance(vals, list) or not vals:
                self.fail(at, f"expected a non-empty list of values, {_got(vals)}")
            vals = self.labelled(at, key, vals)
            for i, v in enumerate(vals):
                if v in vals[:i]:
                    self.fail(f"{at}[{i}]", f"value {_short(v)} given twice")
            keys.append(key)
            values.append(vals)
            self.swept_roots.add(root)
        return keys, values

    def key_path(self, at: str, key, vary: str = "swept") -> list:
        """The components of a key path a condition may set (a sweep key, or a key of an
        entry of conditions), checked."""
        if not isinstance(key, str):
            self.fail(at, f"a {'sweep key' if vary == 'swept' else 'key of a condition'} is "
                      "a key path such as players or deck.remove_from_tier.5")
        try:
            parts = _parse_key_path(key)
        except ValueError:
            self.fail(at, "not a key path (keys joined by dots, list items as [i])")
        root = parts[0]
        if root not in SWEEPABLE:
            if root in TOP_KEYS:
                self.fail(at, f"{root} is experiment-wide and cannot be {vary}; sweepable: "
                          f"{', '.join(SWEEPABLE)} (and the keys inside deck and seats)")
            self.fail(at, f"unknown key{_did_you_mean(root, TOP_KEYS)}; sweepable: "
                      f"{', '.join(SWEEPABLE)}")
        if root == "deck" and len(parts) > 1 and parts[1] not in DECK_KEYS:
            self.fail(at, f"unknown deck key {parts[1]!r}"
                      f"{_did_you_mean(parts[1], DECK_KEYS)}; known: {', '.join(DECK_KEYS)}")
        if root in ("players", "games", "first_leader", "rotate", "ruleset") \
                and len(parts) > 1:
            self.fail(at, f"{root} has no keys inside it")
        return parts

    def label_of(self, at: str, entry: dict, labels: list, first_at) -> str | None:
        """The entry's ``label`` (stripped), checked: text, not given before in ``labels``
        (``first_at(j)`` names where label j was given)."""
        lab = entry.get("label")
        if lab is None:
            return None
        if not isinstance(lab, str) or not lab.strip():
            self.fail(f"{at}.label", f"expected a name (text), {_got(lab)}")
        lab = lab.strip()
        if lab in labels:
            self.fail(f"{at}.label", f"label {lab!r} given twice (also "
                      f"{first_at(labels.index(lab))})")
        return lab

    def baseline_of(self, at: str, entry: dict, base, first_at, what: str) -> bool:
        b = entry.get("baseline", False)
        if not isinstance(b, bool):
            self.fail(f"{at}.baseline", f"expected true or false, {_got(b)}")
        if b and base is not None:
            self.fail(f"{at}.baseline", f"a second baseline (the first is {first_at(base)}): "
                      f"mark one {what} as the baseline")
        return b

    def explicit(self, cfg, sweep_keys) -> list | None:
        """The entries of ``conditions:`` (each a dict key path -> value), or None; remember
        their labels and the baseline entry. Every entry is one more value of the grid:
        crossed with the player counts and the sweep, like a sweep key's values."""
        raw = cfg.get(CONDITIONS)
        if raw is None:
            return None
        if not isinstance(raw, list) or not raw:
            self.fail(CONDITIONS, "expected a non-empty list of conditions, each a mapping of "
                      "key paths to values with an optional label and baseline, e.g. "
                      "[{label: standard deck, baseline: true}, {label: no blue 26, "
                      f"deck.remove: [blue 26]}}], {_got(raw)}")
        entries, labels, base = [], [], None
        swept = [(k, _parse_key_path(k)) for k in sweep_keys]

        def first_at(j):
            return f"{CONDITIONS}[{j}]"

        for i, e in enumerate(raw):
            at = first_at(i)
            if not isinstance(e, dict):
                self.fail(at, "expected a mapping of key paths to values (with an optional "
                          f"label and baseline), {_got(e)}")
            settings, mine = {}, []
            for k, v in e.items():
                if k in ENTRY_KEYS:
                    continue
                if k == "value":
                    self.fail(f"{at}.value", "an entry of conditions sets key paths (e.g. "
                              "deck.remove: [blue 26]); {value: ..., label: ...} is the form "
                              "of a sweep value")
                parts = self.key_path(f"{at}.{k}", k, vary="set per condition")
                for k2, p2 in mine:
                    if _overlap(parts, p2):
                        self.fail(f"{at}.{k}", f"overlaps {at}.{k2}: set it in one place")
                for k2, p2 in swept:
                    if _overlap(parts, p2):
                        self.fail(f"sweep.{k2}", f"also set by {at}.{k}: set it in one place")
                mine.append((k, parts))
                settings[k] = v
            lab = self.label_of(at, e, labels, first_at)
            if self.baseline_of(at, e, base, first_at, "condition"):
                base = i
            for j, other in enumerate(entries):
                if other == settings:
                    self.fail(at, f"the same settings as {first_at(j)}: one condition listed "
                              "twice")
            entries.append(settings)
            labels.append(lab)
            self.swept_roots |= {p[0] for _, p in mine}
        self.value_labels[CONDITIONS] = labels
        if base is not None:
            self.baselines[CONDITIONS] = base
        return entries

    def labelled(self, at: str, key: str, vals: list) -> list:
        """Unwrap ``{value: ..., label: ..., baseline: true}`` sweep values; remember each
        value's label and the key's baseline value."""
        out, labels, base = [], [], None
        for i, v in enumerate(vals):
            if isinstance(v, dict) and "value" in v and set(v) <= set(LABELLED_KEYS):
                lab = self.label_of(f"{at}[{i}]", v, labels, lambda j: f"{at}[{j}]")
                if self.baseline_of(f"{at}[{i}]", v, base, lambda j: f"{at}[{j}]",
                                    "value of a sweep key"):
                    base = i
                out.append(v["value"])
                labels.append(lab)
            else:
                if isinstance(v, dict) and ("label" in v or "baseline" in v) and "value" not in v:
                    self.fail(f"{at}[{i}]", "a labelled sweep value needs the key 'value' "
                              "(write {value: ..., label: ..., baseline: true})")
                out.append(v)
                labels.append(None)
        self.value_labels[key] = labels
        if base is not None:
            self.baselines[key] = base
        return out

    def set_path(self, cfg: dict, key: str, value, at: str | None = None) -> None:
        parts = _parse_key_path(key)
        where = at or f"sweep.{key}"
        node = cfg
        for depth, part in enumerate(parts):
            last = depth == len(parts) - 1
            here = _key_str(parts[: depth + 1])
            if isinstance(node, list):
                if not isinstance(part, int) and not (isinstance(part, str) and part.isdigit()):
                    self.fail(where, f"{_key_str(parts[:depth]) or 'it'} is a list: "
                              "address an entry by its number")
                i = int(part)
                if not 0 <= i < len(node):
                    self.fail(where, f"{_key_str(parts[:depth])} has {len(node)} "
                              f"entries, no entry {i}")
                if last:
                    node[i] = copy.deepcopy(value)
                else:
                    node = node[i]
                continue
            if node is None:
                self.fail(where, f"{_key_str(parts[:depth])} is empty")
            if not isinstance(node, dict):
                self.fail(where, f"{_key_str(parts[:depth])} is not a mapping or a list "
                          f"in the file ({_short(node)}): write it out in full to sweep inside it")
            if isinstance(part, str) and part.isdigit():
                k = int(part)
                if k not in node and part in node:
                    k = part
            else:
                k = part
            if last:
                node[k] = copy.deepcopy(value)
            else:
                if node.get(k) is None:
                    if here == "seats":
                        self.fail(where, "seats is not a list in the file: write one "
                                  "entry per seat to sweep inside it")
                    node[k] = {}
                node = node[k]

    # ---- names, baselines, paired deals, precision ------------------------------------------
    def condition_name(self, keys, combo, cond) -> str:
        """The condition's name: its sweep values' labels (an entry of conditions: its
        label), else ``key=value`` (a parameter vector by the strategy's PARAM_NAMES, a
        player count as "N players")."""
        parts = []
        for key, i in zip(keys, combo):
            lab = (self.value_labels.get(key) or [None] * (i + 1))[i]
            if lab:
                parts.append(lab)
            elif key == CONDITIONS:
                parts.append(self.entry_name(i, cond))
            else:
                parts.append(self.name_part(key, cond.labels[key], cond))
        return ", ".join(parts) if parts else "all games"

    def entry_name(self, i: int, cond) -> str:
        """Entry i of conditions: its label, else its settings as ``key=value``, else
        ``conditions[i]``."""
        own = [self.name_part(k, cond.labels[k], cond) for k in self._entries[i]]
        return self.value_labels[CONDITIONS][i] or ", ".join(own) or f"{CONDITIONS}[{i}]"

    def name_part(self, key, value, cond) -> str:
        """An unlabelled value's part of a name."""
        if key == "players":
            return f"{value} players"
        m = re.fullmatch(r"seats(?:\[(\d+)\]|\.(\d+))?\.params", key)
        names = ()
        if m and isinstance(value, list):
            seat = int(m.group(1) or m.group(2) or 0)
            if seat < len(cond.identities):
                names = self.n_params(key, Path(cond.identities[seat].file))[1]
        if names and len(names) == len(value):
            who = _short(cond.identities[seat].name)
            return f"{who} " + ", ".join(f"{n}={_short(v)}" for n, v in zip(names, value))
        return f"{key}={_short(value)}"

    def link_baselines(self, conditions, keys, combos) -> list:
        if not self.baselines:
            return conditions
        where = {combo: i for i, combo in enumerate(combos)}
        out = []
        for cond, combo in zip(conditions, combos):
            base = tuple(self.baselines.get(k, i) for k, i in zip(keys, combo))
            if base == combo:
                out.append(dataclasses.replace(cond, is_baseline=True))
            else:
                out.append(dataclasses.replace(cond, baseline=where[base]))
        return out

    def pair(self, conditions, seed) -> list:
        """paired: true: conditions with the same players, deck, first leader, rotation and
        games play the same deals (the seed of the first of them)."""
        first: dict = {}
        count: dict = {}
        for c in conditions:
            key = (c.players, c.deck_sha256, c.first_leader, c.rotate, c.games)
            first.setdefault(key, c.index)
            count[key] = count.get(key, 0) + 1
        out = []
        for c in conditions:
            key = (c.players, c.deck_sha256, c.first_leader, c.rotate, c.games)
            out.append(dataclasses.replace(c, seed=condition_seed(seed, first[key]),
                                           paired=count[key] > 1))
        return out

    @staticmethod
    def step(cond, chunk) -> int:
        """Games per chunk of a condition (whole rotation blocks with rotate)."""
        return max(1, chunk // cond.players) * cond.players if cond.rotate else chunk

    def adaptive(self, cfg, analyses, conditions, chunk):
        raw = cfg.get("precision")
        precision = []
        if raw is not None:
            if not isinstance(raw, dict) or not raw:
                self.fail("precision", "expected a mapping figure -> wanted 95% CI half-width "
                          f"such as {{overfishing: 0.5pp}}, {_got(raw)}")
            known = [*PRECISION_FIGURES, *(f"contrast.{f}" for f in PRECISION_FIGURES)]
            for fig, want in raw.items():
                at = f"precision.{fig}"
                fig = str(fig)
                base_fig = fig.removeprefix("contrast.")
                if fig not in known:
                    self.fail(at, f"unknown figure{_did_you_mean(fig, known)}; known: "
                              f"{', '.join(PRECISION_FIGURES)}, or contrast.<figure> for the "
                              "difference to the baseline")
                if fig != base_fig and not any(c.baseline is not None for c in conditions):
                    self.fail(at, "a precision target on a contrast needs a baseline (no "
                              "condition has one: see 'Names and baselines')")
                need = CONTRAST_ANALYSIS[base_fig]
                if fig != base_fig and need not in analyses:
                    self.fail(at, f"the contrasts of {base_fig} come with the {need} analysis "
                              "(add it to analyses)")
                unit, scale = PRECISION_FIGURES[base_fig]
                m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*([A-Za-z%]*)\s*",
                                 str(want)) if isinstance(want, (str, int, float)) \
                    and not isinstance(want, bool) else None
                if m is None or m.group(2) not in (unit, unit.rstrip("s")) \
                        or float(m.group(1)) <= 0:
                    self.fail(at, f"expected a 95% CI half-width in {unit} such as "
                              f"{'0.5pp' if unit == 'pp' else '0.1 ' + unit}, {_got(want)}")
                if base_fig == "trump_value" and "trump_value" not in analyses:
                    self.fail(at, "needs the trump_value analysis (add it to analyses)")
                if base_fig == "trump_value":
                    orig = [c.index for c in conditions if c.deck.ruleset == "fishing"]
                    if orig:
                        self.fail(at, "the original Fishing has no trump choice (green is "
                                  "always trump), so its trump value cannot reach a precision: "
                                  f"condition{'s' if len(orig) > 1 else ''} "
                                  f"{', '.join(map(str, orig))} play{'s' if len(orig) == 1 else ''}"
                                  " ruleset fishing")
                precision.append((fig, float(m.group(1)) * scale, f"{m.group(1)} {unit}"
                                  if unit != "pp" else f"{m.group(1)}pp"))
        sprt = cfg.get("sprt")
        if sprt is not None:
            if not isinstance(sprt, dict):
                self.fail("sprt", f"expected a mapping {{better: A, than: B, elo0: 0, elo1: 10}}"
                          f", {_got(sprt)}")
            self.check_keys("sprt", sprt, SPRT_KEYS)
            full = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
            full.update(sprt)
            for k in ("better", "than"):
                if not isinstance(full.get(k), str) or not full[k].strip():
                    self.fail(f"sprt.{k}", f"expected a strategy of the lineup, "
                              f"{_got(full.get(k))}")
            for k in ("elo0", "elo1"):
                if not _number(full[k]):
                    self.fail(f"sprt.{k}", f"expected an Elo difference (a number), "
                              f"{_got(full[k])}")
            if not full["elo1"] > full["elo0"]:
                self.fail("sprt.elo1", f"expected elo1 > elo0 ({full['elo0']}), "
                          f"{_got(full['elo1'])}")
            for k in ("alpha", "beta"):
                if not _number(full[k]) or not 0 < full[k] < 0.5:
                    self.fail(f"sprt.{k}", f"expected an error rate 0 < {k} < 0.5, "
                              f"{_got(full[k])}")
            for k in ("better", "than"):  # a bot named by its NAME or by its file: its NAME
                word, name = full[k].strip(), None
                for c in conditions:
                    found = self.named_bot(f"sprt.{k}", word, c.identities,
                                           f"the lineup of condition {c.index}")
                    if found is None:
                        self.fail(f"sprt.{k}", f"strategy {word!r} is not in the lineup of "
                                  f"condition {c.index} "
                                  f"({', '.join(distinct_names(c.identities))})")
                    name = found.name
                full[k] = name
            if full["better"] == full["than"]:
                self.fail("sprt.than", f"compare two different strategies ({full['better']!r} "
                          "both times)")
            sprt = {k: (float(v) if k not in ("better", "than") else v)
                    for k, v in full.items()}
        max_games = cfg.get("max_games")
        if max_games is not None and not (precision or sprt):
            self.fail("max_games", "only with precision or sprt (the run's cap on games per "
                      "condition)")
        if precision or sprt:
            most = max(c.games for c in conditions)
            if max_games is None:
                max_games = 10 * most
            self.whole("max_games", max_games, 1)
            self.games_limit("max_games", max_games)
            if max_games < most:
                self.fail("max_games", f"{max_games:,} is below games ({most:,})")
            self.size_check(len(conditions), len(conditions) * max_games)
        return tuple(precision), sprt, max_games

    # ---- one condition --------------------------------------------------------------------
    def players(self, key, p) -> int:
        if not _whole(p) or p not in SUPPORTED_PLAYERS:
            self.fail(key, f"expected a player count 3, 4 or 5, {_got(p)}")
        return int(p)

    def condition(self, index, c, labels, games_default, seed) -> Condition:
        ruleset = c.get("ruleset")
        if not isinstance(ruleset, str) or ruleset not in RULESETS:
            self.fail("ruleset", f"unknown ruleset {ruleset!r}{_did_you_mean(ruleset, RULESETS)}"
                      f"; known: {', '.join(RULESETS)}")
        self.ruleset = ruleset  # the condition's deck is this ruleset's (a swept ruleset)
        if isinstance(c["players"], list):
            self.fail("players", "a list of player counts is only allowed at the top level")
        players = self.players("players", c["players"])
        games = self.whole("games", c["games"], 1)
        self.games_limit("games", games)
        rotate = c.get("rotate")
        if rotate is None:
            rotate = False
        if not isinstance(rotate, bool):
            self.fail("rotate", f"expected true or false, {_got(rotate)}")
        fl = c.get("first_leader")
        if fl is None or fl == "random":
            first_leader = -1
        elif _whole(fl) and 0 <= fl < players:
            first_leader = int(fl)
        else:
            self.fail("first_leader", f"expected random or a seat number 0..{players - 1}, "
                      f"{_got(fl)}")
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
                         first_leader=first_leader, games=games,
                         seed=condition_seed(seed, index), deck_sha256=deck.sha256,
                         identities=tuple(self.identities[e] for e in lineup))

    # ---- seats ----------------------------------------------------------------------------
    def seats(self, seats, players) -> tuple[list, list]:
        if seats is None:
            seats = "random"
        if isinstance(seats, list):
            if len(seats) != players:
                self.fail("seats", f"{len(seats)} entries for {players} players: give one "
                          "strategy for every seat, or a list with one entry per seat")
            entries = [(f"seats[{i}]", s) for i, s in enumerate(seats)]
        elif isinstance(seats, (str, dict)):
            entries = [("seats", seats)] * players
        else:
            self.fail("seats", f"expected a strategy name or file, a mapping {{strategy: ..., "
                      f"params: [...]}} or a list of these, {_got(seats)}")
        lineup, params = [], []
        for key, entry in entries:
            spec, vec = self.seat(key, entry)
            lineup.append(spec)
            params.append(vec)
        return lineup, params

    def seat(self, key, entry) -> tuple[str, tuple | None]:
        vec = None
        skey = key
        if isinstance(entry, dict):
            self.check_keys(key, entry, SEAT_KEYS)
            if "strategy" not in entry:
                self.fail(key, "missing key 'strategy' (a strategy name or file)")
            skey = f"{key}.strategy"
            raw_params = entry.get("params")
            spec = entry["strategy"]
        else:
            raw_params = None
            spec = entry
        if not isinstance(spec, str) or not spec.strip():
            self.fail(skey, f"expected a strategy name or a .py file path, {_got(spec)}")
        spec = spec.strip()
        path, shown = self.strategy(skey, spec)
        if raw_params is not None:
            pkey = f"{key}.params"
            if not isinstance(raw_params, list) or not all(_number(x) for x in raw_params):
                self.fail(pkey, f"expected a list of numbers, {_got(raw_params)}")
            vec = tuple(float(x) for x in raw_params)
            n, names = self.n_params(skey, path)
            if len(vec) != n:
                named = f" ({', '.join(names)})" if names else ""
                self.fail(pkey, f"strategy {spec!r} takes {n} parameters{named}, "
                          f"got {len(vec)}")
            if self.identities[shown].kind != "heuristic":
                problem = search_params_problem(vec)
                if problem:
                    self.fail(pkey, problem)
        return shown, vec

    def no_search_seats(self, cond, what: str) -> None:
        """trump_value with seats that search card plays is refused (docs/search.md)."""
        for i, ident in enumerate(cond.identities):
            if ident.kind != "heuristic" and list(ident.searches) != ["trump_choice"]:
                self.fail(f"seats[{i}]" if len(set(cond.lineup)) > 1 else "seats",
                          f"{ident.name!r} searches its card plays; {what} replays every "
                          "trump choice to the game's end four times, which with searched "
                          "card plays is beyond any budget: use a bot that searches only the "
                          "trump choice (SEARCHES = ['trump_choice'], e.g. pimc_trump) or "
                          "leave trump_value out of analyses for this lineup")

    def strategy(self, key, spec) -> tuple[Path, str]:
        """(the file, the lineup entry: the name for strategies/, else the absolute path),
        its bot identified (imported)."""
        path, entry = self.locate(key, spec)
        self.identify(key, path, entry)
        return path, entry

    def locate(self, key, spec) -> tuple[Path, str]:
        """The strategy file a seat names and its lineup entry, found without importing it."""
        if spec.endswith(".py") or "/" in spec or "\\" in spec:
            path = (self.folder / Path(spec).expanduser()).resolve()
            if not path.is_file():
                self.fail(key, f"strategy file {spec!r} not found (looked for {path}; a path "
                          "is relative to the experiment file's folder)")
            return path, str(path)
        try:
            path = resolve_path(spec)
        except StrategyError as exc:  # the name misspelt: did you mean, and the known ones
            self.fail(key, str(exc))
        return path, spec

    def locate_seats(self, seats) -> None:
        """Every strategy of a condition's seats found (a misspelt name reported) before any
        strategy is imported; the rest of the seats is checked with the condition."""
        if isinstance(seats, (str, dict)):
            entries = [("seats", seats)]
        elif isinstance(seats, list):
            entries = [(f"seats[{i}]", s) for i, s in enumerate(seats)]
        else:
            return
        for key, entry in entries:
            spec = entry.get("strategy") if isinstance(entry, dict) else entry
            if isinstance(spec, str) and spec.strip():
                self.locate(f"{key}.strategy" if isinstance(entry, dict) else key,
                            spec.strip())

    def identify(self, key, path: Path, entry: str) -> StrategyIdentity:
        """The identity of a lineup entry's bot, imported once (fishing2sim/strategy/identity.py).
        A NAME is one bot: a second file with the NAME of another is an error naming both."""
        if entry in self.identities:
            return self.identities[entry]
        try:
            ident = identify(path)
        except StrategyError as exc:
            self.fail(key, str(exc))
        first = self.names.setdefault(ident.name, (ident, key))
        if first[0].file != ident.file:
            self.fail(key, f"two files with the NAME {ident.name!r}: {first[0].file} "
                      f"({first[1]}) and {ident.file}: the tables know a bot by its NAME, so "
                      "one would count as the other; give one of them another NAME")
        self.identities[entry] = ident
        return ident

    def named_bot(self, key, word: str, identities, where: str) -> StrategyIdentity | None:
        """The bot of ``identities`` that ``word`` names, by its NAME or by its file (None
        if none; two different bots is an error)."""
        found = named(word, identities, self.folder)
        if len(found) > 1:
            self.fail(key, f"{word!r} names two bots of {where}: {found[0]} and {found[1]} "
                      "(one by its NAME, one by its file); name the bot by its NAME")
        return found[0] if found else None

    def n_params(self, key, path: Path) -> tuple[int, tuple]:
        """(the length of the strategy's PARAMS, its PARAM_NAMES), of the bot as imported."""
        try:
            s = load_strategy(str(path))
        except StrategyError as exc:
            self.fail(key, str(exc))
        return s.n_params, tuple(s.param_names)

    # ---- deck -----------------------------------------------------------------------------
    def deck(self, spec) -> Deck:
        if spec is None:
            spec = {}
        if not isinstance(spec, dict):
            self.fail("deck", f"expected a mapping with keys {', '.join(DECK_KEYS)}, "
                      f"{_got(spec)}")
        self.check_keys("deck", spec, DECK_KEYS)
        cache_key = self.ruleset + " " + json.dumps(spec, sort_keys=True, default=str)
        if cache_key in self._deck_cache:
            return self._deck_cache[cache_key]
        file = spec.get("file")
        if file is not None and (not isinstance(file, str) or not file.strip()):
            self.fail("deck.file", f"expected a deck CSV file path, {_got(file)}")
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
        deck = self._base_decks[base_key]
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

    # ---- resolved config ------------------------------------------------------------------
    @staticmethod
    def resolved_seats(seats):
        return copy.deepcopy(seats) if seats is not None else "random"

    @staticmethod
    def resolved_deck(spec) -> dict:
        spec = dict(spec or {})

        def int_keys(d):
            return {int(k) if isinstance(k, str) and k.isdigit() else k: v
                    for k, v in (d or {}).items()}

        adds = []
        for a in spec.get("add") or []:
            full = {"colour": "none", "value": None, "effect": "none", "min_players": 3}
            full.update(a)
            adds.append(full)
        return {
            "file": spec.get("file"),
            "remove": list(spec.get("remove") or []),
            "remove_from_tier": int_keys(spec.get("remove_from_tier")),
            "add": adds,
            "move": dict(spec.get("move") or {}),
            "hand_sizes": {k: list(v) for k, v in int_keys(spec.get("hand_sizes")).items()},
            "rounds": spec.get("rounds"),
        }

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

    def __init__(self, data, path, overrides, yes=False):
        super().__init__(path, overrides, yes=yes)
        self.data = data

    def read(self) -> dict:
        if not isinstance(self.data, dict):
            raise ExperimentError(f"{self.given}: top level: expected a mapping of keys such "
                                  f"as players, games, seats, got a {type(self.data).__name__}")
        return copy.deepcopy(self.data)


def read_experiment_file(path) -> dict:
    """The file's YAML mapping, read like ``load_experiment`` reads it (same errors)."""
    return _Loader(path, None).read()


def load_experiment_data(data: dict, path, overrides: dict | None = None,
                         yes: bool = False) -> Experiment:
    """``load_experiment`` for a file's content already read into ``data``."""
    return _DataLoader(data, path, overrides, yes=yes).load()


def set_key_path(cfg: dict, key: str, value, path="<experiment>") -> None:
    """Set ``key`` (a sweep key path such as ``deck.remove_from_tier.5``) in ``cfg``."""
    _Loader(path, None).set_path(cfg, key, value)
