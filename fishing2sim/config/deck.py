"""Deck files: load, validate and index the card tables of both rulesets.

A deck is two CSV files in ``fishing2sim/data/decks/`` (or a user's own pair):

- ``<name>.csv``: one row per card, columns ``id,name,kind,colour,value,effect,tier,min_players``
  (docs/rules.md A1 / B1, tiers and "4+" marks from D1 / D2);
- ``<name>_hands.csv``: the hand size at the start of each round per player count,
  columns ``players,round_1,...,round_N`` (docs/rules.md A3; N = number of rounds).

``load_deck`` turns them into a :class:`Deck` whose ``arrays`` is the int64 table the kernels
use (columns in the ``F_*`` order of :mod:`fishing2sim.engine.constants`). Every problem in a
file is reported as one :class:`DeckError` naming the file, the row and the column.
"""

from __future__ import annotations

from fishing2sim.errors import Fishing2simError, InputError
import csv
import difflib
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fishing2sim.config.keys import MAX_TIER, SUPPORTED_PLAYERS
from fishing2sim.safe_files import read_input
from fishing2sim.engine.constants import (
    COLOURS,
    EFFECTS,
    F_COLOUR,
    F_EFFECT,
    F_KIND,
    F_MIN_PLAYERS,
    F_STD,
    F_STD_N,
    F_STD_TABLE,
    F_TIER,
    F_VALUE,
    KINDS,
    MAX_CARDS,
    MAX_HAND,
    MAX_PLAYERS,
    MAX_ROUNDS,
    N_FIELDS,
    RULESETS,
)

__all__ = [
    "DECK_COLUMNS",
    "DECKS_DIR",
    "DEFAULT_DECKS",
    "EXPECTED_CARDS",
    "SUPPORTED_PLAYERS",
    "Deck",
    "DeckError",
    "coupled_arrays",
    "deck_for",
    "is_standard",
    "load_deck",
]

DECKS_DIR = Path(__file__).resolve().parent.parent / "data" / "decks"
DECK_COLUMNS = ("id", "name", "kind", "colour", "value", "effect", "tier", "min_players")
DEFAULT_DECKS = {"fishing2": DECKS_DIR / "fishing2.csv", "fishing": DECKS_DIR / "fishing.csv"}

# ---- ruleset checks (docs/rules.md A1 / B1) --------------------------------------------------
EXPECTED_CARDS = {"fishing2": 99, "fishing": 100}
# what each ruleset's engine understands
RULESET_KINDS = {
    "fishing2": ("colour", "green", "blowfish", "buoy"),
    "fishing": ("colour", "green", "buoy"),
}
RULESET_COLOURS = {
    "fishing2": ("none", "blue", "yellow", "red", "light", "dark", "both"),
    "fishing": ("none", "blue", "yellow", "purple", "red", "green"),
}
RULESET_EFFECTS = {
    "fishing2": ("none", "catch-1-other", "+3-points", "determine-trump", "draw-1-card",
                 "catch-1-card", "exchange-1-card"),
    "fishing": ("none", "zero", "pass-1-left", "minus-3", "catch-all-others", "play-first",
                "determine-colour", "lowest-wins"),
}
# effects a non-buoy card may carry (Fishing's zeros)
CARD_EFFECTS = ("none", "zero")
MAX_CARD_VALUE = 1_000_000  # far above any real card; the engine keeps values in int64


class DeckError(Fishing2simError, ValueError):
    """A deck or hand-size file is malformed; the message names file, row and column."""


def _check_ruleset(ruleset: str) -> str:
    if ruleset not in RULESETS:
        raise InputError(f"unknown ruleset {ruleset!r}: choose fishing2 or fishing")
    return ruleset


@dataclass(frozen=True, eq=False)
class Deck:
    """A validated deck. Card ids are row indices of ``arrays`` and of ``names``.

    ``arrays`` and ``hand_sizes`` are read-only (decks are cached and shared); copy them
    if you need to modify them.
    """

    ruleset: str
    path: Path
    hands_path: Path
    table: pd.DataFrame
    arrays: np.ndarray  # int64 [n_cards, N_FIELDS], F_* column order
    names: tuple[str, ...]
    hand_sizes: np.ndarray  # int64 [MAX_PLAYERS + 1, n_rounds]; row p = p players
    n_rounds: int
    sha256: str
    # the player counts this deck can deal (starting cards = players x round-1 hand size);
    # a deck file must deal 3, 4 and 5 players, an edited deck (edit_deck) may not
    playable: tuple[int, ...] = SUPPORTED_PLAYERS
    # what deck edits changed, in words ("without blue 26 and yellow 26", "with ...",
    # "... to tier 3", "hand sizes changed"): the report names the cards an edit such as
    # remove_from_tier removed; () for a deck file as it is
    changes: tuple[str, ...] = ()

    @property
    def n_cards(self) -> int:
        return len(self.names)

    @property
    def ruleset_code(self) -> int:
        return RULESETS[self.ruleset]

    def card(self, name: str) -> int:
        """The id of the card called ``name`` (exact, else case/space-insensitive)."""
        index = _name_index(self)
        if name in index:
            return index[name]
        key = " ".join(str(name).split()).lower()
        for n, i in index.items():
            if n.lower() == key:
                return i
        close = difflib.get_close_matches(str(name), self.names, n=5, cutoff=0.5)
        hint = f"; close matches: {', '.join(repr(c) for c in close)}" if close else ""
        raise InputError(f"no card named {name!r} in the {self.ruleset} deck ({self.path}){hint}")

    def starting_cards(self, players: int) -> int:
        """Number of starting cards (tier 0, min_players <= players) dealt to ``players``."""
        a = self.arrays
        return int(np.sum((a[:, F_TIER] == 0) & (a[:, F_MIN_PLAYERS] <= players)))

    def check_players(self, players: int) -> int:
        """``players`` if this deck can deal them, else a DeckError saying why."""
        p = int(players)
        if p not in SUPPORTED_PLAYERS:
            raise DeckError(f"players must be {', '.join(map(str, SUPPORTED_PLAYERS))}, got {p}")
        if p in self.playable:
            return p
        hand = int(self.hand_sizes[p, 0])
        if hand == 0:
            raise DeckError(f"the deck cannot deal {p} players: no hand sizes for {p} players "
                            f"over its {self.n_rounds} rounds")
        raise DeckError(f"the deck cannot deal {p} players: {self.starting_cards(p)} starting "
                        f"cards for {p} x {hand}")

    def name(self, card_id: int) -> str:
        """The name of card ``card_id``."""
        cid = int(card_id)
        if not 0 <= cid < len(self.names):
            raise InputError(f"card id {card_id} out of range 0..{len(self.names) - 1}")
        return self.names[cid]

    def __repr__(self) -> str:
        return (f"Deck(ruleset={self.ruleset!r}, path={str(self.path)!r}, "
                f"n_cards={self.n_cards}, n_rounds={self.n_rounds}, sha256={self.sha256[:12]}...)")


@functools.lru_cache(maxsize=None)
def _name_index_cached(names: tuple[str, ...]) -> dict[str, int]:
    return {n: i for i, n in enumerate(names)}


def _name_index(deck: Deck) -> dict[str, int]:
    return _name_index_cached(deck.names)


# ---- reading ------------------------------------------------------------------------------
def _read_rows(path: Path, what: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and (1-based data row number, cells) of a CSV file; blank lines are skipped."""
    try:
        text = read_input(path).decode("utf-8-sig")
    except FileNotFoundError:
        raise DeckError(f"{path}: {what} file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckError(f"{path}: cannot read {what} file: {exc}") from None
    try:
        raw = [r for r in csv.reader(text.splitlines()) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise DeckError(f"{path}: not a valid CSV file: {exc}") from None
    if not raw:
        raise DeckError(f"{path}: {what} file is empty (no header row)")
    header = [c.strip() for c in raw[0]]
    rows = []
    for n, r in enumerate(raw[1:], start=1):
        cells = [c.strip() for c in r]
        if len(cells) != len(header):
            ident = f" (id {cells[0]})" if cells and header and header[0] == "id" else ""
            raise DeckError(f"{path}: row {n}{ident}: has {len(cells)} fields but the header has "
                            f"{len(header)} ({', '.join(header)})")
        rows.append((n, cells))
    return header, rows


def _check_header(path: Path, header: list[str], expected: list[str] | tuple[str, ...]) -> None:
    dup = sorted({c for c in header if header.count(c) > 1})
    if dup:
        raise DeckError(f"{path}: header row: column {dup[0]!r} appears more than once")
    missing = [c for c in expected if c not in header]
    extra = [c for c in header if c not in expected]
    if missing:
        raise DeckError(f"{path}: header row: column {missing[0]!r} is missing "
                        f"(expected columns: {', '.join(expected)})")
    if extra:
        raise DeckError(f"{path}: header row: unexpected column {extra[0]!r} "
                        f"(expected columns: {', '.join(expected)})")


def _where(path: Path, n: int, ident: str | None, col: str) -> str:
    idpart = f" (id {ident})" if ident not in (None, "") else ""
    return f"{path}: row {n}{idpart}, column {col!r}"


def _int(path: Path, n: int, ident: str | None, col: str, s: str) -> int:
    try:
        return int(s)
    except ValueError:
        raise DeckError(f"{_where(path, n, ident, col)}: {s!r} is not an integer") from None


def _cell_int(loc, col: str, s: str) -> int:
    try:
        return int(s)
    except ValueError:
        raise DeckError(f"{loc(col)}: {s!r} is not an integer") from None


def _check_card(get: dict[str, str], ruleset: str, loc) -> tuple[str, str, int, str, int, int]:
    """Validate one card's cells (strings, as in the CSV; ``value`` "" for none).

    ``loc(column)`` names the place for an error message. Returns
    (kind, colour, value (-1: buoy), effect, tier, min_players).
    """
    kinds_ok = RULESET_KINDS[ruleset]
    colours_ok = RULESET_COLOURS[ruleset]
    effects_ok = RULESET_EFFECTS[ruleset]

    def choice(c: str, allowed: tuple[str, ...]) -> str:
        v = get[c]
        if v not in allowed:
            raise DeckError(f"{loc(c)}: unknown {c} {v!r} for ruleset "
                            f"{ruleset} (allowed: {', '.join(allowed)})")
        return v

    kind = choice("kind", kinds_ok)
    colour = choice("colour", colours_ok)
    effect = choice("effect", effects_ok)
    tier = _cell_int(loc, "tier", get["tier"])
    min_players = _cell_int(loc, "min_players", get["min_players"])
    if kind == "buoy":
        if get["value"] != "":
            raise DeckError(f"{loc('value')}: a buoy has no value "
                            f"(leave it empty), found {get['value']!r}")
        value = -1
        if effect == "none":
            raise DeckError(f"{loc('effect')}: a buoy needs an effect "
                            f"(allowed: {', '.join(e for e in effects_ok if e != 'none')})")
        if colour != "none":
            raise DeckError(f"{loc('colour')}: a buoy has colour none, "
                            f"found {colour!r}")
    else:
        if get["value"] == "":
            raise DeckError(f"{loc('value')}: a {kind} card needs a value")
        value = _cell_int(loc, "value", get["value"])
        if not 0 <= value <= MAX_CARD_VALUE:
            raise DeckError(f"{loc('value')}: value must be 0..{MAX_CARD_VALUE:,}, "
                            f"found {value}")
        if effect not in CARD_EFFECTS:
            raise DeckError(f"{loc('effect')}: effect {effect!r} is a buoy "
                            f"effect: kind must be buoy, found {kind!r}")
        if effect == "zero" and value != 0:
            raise DeckError(f"{loc('value')}: a card with effect zero "
                            f"must have value 0, found {value}")
        if kind == "blowfish" and colour != "none":
            raise DeckError(f"{loc('colour')}: a blowfish has colour none, "
                            f"found {colour!r}")
        if kind in ("colour", "green") and colour == "none":
            raise DeckError(f"{loc('colour')}: a {kind} card needs a colour")
    if not 0 <= tier <= MAX_TIER:
        raise DeckError(f"{loc('tier')}: tier must be 0 (starting card) "
                        f"or 1-{MAX_TIER} (ocean star tier), found {tier}")
    if tier == 0 and kind not in ("colour", "green"):
        raise DeckError(f"{loc('tier')}: tier 0 marks a starting card, "
                        f"which must be a colour card, found kind {kind!r}")
    if not 3 <= min_players <= MAX_PLAYERS:
        raise DeckError(f"{loc('min_players')}: min_players must be "
                        f"3-{MAX_PLAYERS}, found {min_players}")
    return kind, colour, value, effect, tier, min_players


def _parse_cards(path: Path, ruleset: str,
                 exact: bool = True) -> tuple[pd.DataFrame, np.ndarray, tuple[str, ...]]:
    """The cards of a deck file. ``exact``: the ruleset's card count is required (the
    shipped decks); a user's deck may have any number of cards from 1 to MAX_CARDS."""
    header, rows = _read_rows(path, "deck")
    _check_header(path, header, DECK_COLUMNS)
    col = {c: header.index(c) for c in DECK_COLUMNS}
    expected = EXPECTED_CARDS[ruleset]
    if exact and len(rows) != expected:
        raise DeckError(f"{path}: a {ruleset} deck must have {expected} cards (data rows), "
                        f"this file has {len(rows)}")
    if not rows:
        raise DeckError(f"{path}: the deck has no cards (no data rows)")
    if len(rows) > MAX_CARDS:
        raise DeckError(f"{path}: at most {MAX_CARDS} cards allowed, this file has {len(rows)}")

    arrays = np.zeros((len(rows), N_FIELDS), dtype=np.int64)
    names: list[str] = []
    seen_ids: dict[int, int] = {}
    seen_names: dict[str, int] = {}
    records = []
    for n, cells in rows:
        get = {c: cells[col[c]] for c in DECK_COLUMNS}
        ident = get["id"]
        cid = _int(path, n, None, "id", ident)
        if cid in seen_ids:
            raise DeckError(f"{_where(path, n, ident, 'id')}: duplicate id {cid} "
                            f"(already used in row {seen_ids[cid]})")
        seen_ids[cid] = n
        if cid != n - 1:
            raise DeckError(f"{_where(path, n, ident, 'id')}: ids must be 0..n-1 in row order; "
                            f"expected {n - 1}, found {cid}")
        name = get["name"]
        if not name:
            raise DeckError(f"{_where(path, n, ident, 'name')}: empty name")
        if name in seen_names:
            raise DeckError(f"{_where(path, n, ident, 'name')}: duplicate name {name!r} "
                            f"(already used in row {seen_names[name]})")
        seen_names[name] = n

        kind, colour, value, effect, tier, min_players = _check_card(
            get, ruleset, lambda c, _n=n, _i=ident: _where(path, _n, _i, c))
        arrays[cid] = 0
        arrays[cid, F_KIND] = KINDS[kind]
        arrays[cid, F_COLOUR] = COLOURS[colour]
        arrays[cid, F_VALUE] = value
        arrays[cid, F_EFFECT] = EFFECTS[effect]
        arrays[cid, F_TIER] = tier
        arrays[cid, F_MIN_PLAYERS] = min_players
        names.append(name)
        records.append({"id": cid, "name": name, "kind": kind, "colour": colour,
                        "value": None if value < 0 else value, "effect": effect, "tier": tier,
                        "min_players": min_players})
    arrays.flags.writeable = False
    return _make_table(records), arrays, tuple(names)


def _make_table(records: list[dict]) -> pd.DataFrame:
    table = pd.DataFrame.from_records(records, columns=list(DECK_COLUMNS))
    table["value"] = table["value"].astype("Int64")
    return table


def _parse_hands(path: Path, arrays: np.ndarray, deck_path: Path) -> np.ndarray:
    header, rows = _read_rows(path, "hand-size")
    if not header or header[0] != "players":
        raise DeckError(f"{path}: header row: the first column must be 'players', "
                        f"found {header[0] if header else ''!r}")
    n_rounds = len(header) - 1
    if n_rounds < 1:
        raise DeckError(f"{path}: header row: no round columns (expected round_1,...,round_N)")
    if n_rounds > MAX_ROUNDS:
        raise DeckError(f"{path}: header row: {n_rounds} rounds, at most {MAX_ROUNDS} allowed")
    expected = ["players"] + [f"round_{r}" for r in range(1, n_rounds + 1)]
    for c, e in zip(header, expected):
        if c != e:
            raise DeckError(f"{path}: header row: column {c!r} found where {e!r} was expected "
                            f"(columns must be {', '.join(expected)})")
    hand_sizes = np.zeros((MAX_PLAYERS + 1, n_rounds), dtype=np.int64)
    seen: dict[int, int] = {}
    for n, cells in rows:
        p = _int(path, n, None, "players", cells[0])
        where_p = f"{path}: row {n} (players {cells[0]}), column 'players'"
        if p not in SUPPORTED_PLAYERS:
            raise DeckError(f"{where_p}: player count {p} not supported "
                            f"(allowed: {', '.join(map(str, SUPPORTED_PLAYERS))})")
        if p in seen:
            raise DeckError(f"{where_p}: duplicate row for {p} players (already in row {seen[p]})")
        seen[p] = n
        for r, cell in enumerate(cells[1:], start=1):
            c = f"round_{r}"
            where = f"{path}: row {n} (players {p}), column {c!r}"
            try:
                h = int(cell)
            except ValueError:
                raise DeckError(f"{where}: {cell!r} is not an integer") from None
            if h <= 0:
                raise DeckError(f"{where}: hand size must be a positive integer, found {h}")
            if h > MAX_HAND:
                raise DeckError(f"{where}: hand size {h} exceeds the maximum {MAX_HAND}")
            hand_sizes[p, r - 1] = h
    for p in SUPPORTED_PLAYERS:
        if p not in seen:
            raise DeckError(f"{path}: column 'players': no row for {p} players "
                            f"(rows for {', '.join(map(str, SUPPORTED_PLAYERS))} are required)")
        starting = int(np.sum((arrays[:, F_TIER] == 0) & (arrays[:, F_MIN_PLAYERS] <= p)))
        dealt = p * int(hand_sizes[p, 0])
        if starting != dealt:
            raise DeckError(
                f"{path}: row {seen[p]} (players {p}), column 'round_1': with {p} players the deck "
                f"{deck_path.name} has {starting} starting cards (tier 0, min_players <= {p}) "
                f"but {p} x {hand_sizes[p, 0]} = {dealt} are dealt")
    hand_sizes.flags.writeable = False
    return hand_sizes


def _hands_path_for(path: Path, ruleset: str) -> Path:
    own = path.with_name(f"{path.stem}_hands.csv")
    if own.exists():
        return own
    return DEFAULT_DECKS[ruleset].with_name(f"{DEFAULT_DECKS[ruleset].stem}_hands.csv")


def _load(path: Path, hands_path: Path, ruleset: str) -> Deck:
    exact = path == DEFAULT_DECKS[ruleset]
    table, arrays, names = _parse_cards(path, ruleset, exact)
    if not exact:
        arrays = coupled_arrays(arrays, names, ruleset)
    hand_sizes = _parse_hands(hands_path, arrays, path)
    h = hashlib.sha256()
    for p in (path, hands_path):
        data = read_input(p)  # read (and checked) by the parsers above
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return Deck(ruleset=ruleset, path=path, hands_path=hands_path, table=table, arrays=arrays,
                names=names, hand_sizes=hand_sizes, n_rounds=int(hand_sizes.shape[1]),
                sha256=h.hexdigest(), playable=_playable(arrays, hand_sizes))


@functools.lru_cache(maxsize=None)
def _load_cached(path: Path, hands_path: Path, ruleset: str) -> Deck:
    return _load(path, hands_path, ruleset)


def load_deck(path: str | Path | None = None, ruleset: str = "fishing2") -> Deck:
    """Load and validate a deck.

    ``path=None`` loads the ruleset's bundled deck (cached). A user's deck file is read
    fresh each time; its hand table is ``<stem>_hands.csv`` next to it if that exists,
    else the ruleset's default hand table. Raises :class:`DeckError` on any problem.
    """
    _check_ruleset(ruleset)
    if path is None:
        p = DEFAULT_DECKS[ruleset]
        return _load_cached(p, _hands_path_for(p, ruleset), ruleset)
    p = Path(path).expanduser().resolve()
    return _load(p, _hands_path_for(p, ruleset), ruleset)


def deck_for(ruleset: str) -> Deck:
    """The bundled deck of ``ruleset`` ('fishing2' or 'fishing')."""
    return load_deck(None, _check_ruleset(ruleset))


def _playable(arrays: np.ndarray, hand_sizes: np.ndarray) -> tuple[int, ...]:
    """The player counts whose starting cards are exactly players x round-1 hand size."""
    out = []
    for p in SUPPORTED_PLAYERS:
        h = int(hand_sizes[p, 0])
        starting = int(np.sum((arrays[:, F_TIER] == 0) & (arrays[:, F_MIN_PLAYERS] <= p)))
        if h > 0 and starting == p * h:
            out.append(p)
    return tuple(out)


# ---- the coupled deal (docs/rules.md, "Coupled deals") -----------------------------------
IDENTITY = (F_KIND, F_COLOUR, F_VALUE, F_EFFECT)  # with the name: which cards are the same


def is_standard(deck: Deck) -> bool:
    """The deck is its ruleset's standard deck: the same cards in the same rows and the same
    hand table (the shipped file, or an edit that changed nothing)."""
    std = deck_for(deck.ruleset)
    return deck.sha256 == std.sha256 or (
        deck.names == std.names and np.array_equal(deck.arrays, std.arrays)
        and np.array_equal(deck.hand_sizes, std.hand_sizes))


def coupled_arrays(arrays: np.ndarray, names: tuple[str, ...], ruleset: str,
                   always: bool = False) -> np.ndarray:
    """``arrays`` (a deck's F_* columns) with the coupled deal's columns (F_STD ...,
    engine/constants.py) when its cards differ from the ruleset's standard deck: its games
    then deal the standard deck's deal with the edit (engine/core.py, coupled_tier). A card
    is the same card in both decks when its name, kind, colour, value and effect agree; a
    standard card with no such card here is removed, a card here with none there added.
    The standard deck's own cards (the same cards, tiers and "4+" marks) get no columns
    unless ``always`` (their coupled deal is then the standard deal)."""
    arrays = np.asarray(arrays)[:, :N_FIELDS]
    std = deck_for(ruleset)
    if not always and names == std.names and np.array_equal(arrays, std.arrays):
        return arrays
    n, n_std = len(names), std.n_cards
    here = {name: i for i, name in enumerate(names)}
    std_id = np.full(n, -1, np.int64)
    table = np.zeros(n * -(-n_std // n), np.int64)
    for j, name in enumerate(std.names):
        e = here.get(name, -1)
        if e >= 0 and any(arrays[e, f] != std.arrays[j, f] for f in IDENTITY):
            e = -1  # the same name, another card
        if e >= 0:
            std_id[e] = j
        table[j] = std.arrays[j, F_TIER] | std.arrays[j, F_MIN_PLAYERS] << 4 | (e + 1) << 8
    width = F_STD_TABLE + len(table) // n
    out = np.zeros((n, width), np.int64)
    out[:, :N_FIELDS] = arrays
    out[:, F_STD] = std_id
    out[:, F_STD_N] = n_std
    out[:, F_STD_TABLE:] = table.reshape(-1, n).T  # card j: row j % n, column j // n
    out.flags.writeable = False
    return out
