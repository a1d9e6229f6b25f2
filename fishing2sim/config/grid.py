"""The grid of an experiment: its dimensions (the player counts, the entries of conditions,
the sweep, the skill panel's levels), each condition's settings, names, baselines and
paired deals.

Plain functions over the validated file (config/file_schema.py: its axes); a problem is a
:class:`~fishing2sim.config.messages.KeyProblem` at its key path."""
from __future__ import annotations

import copy
import dataclasses
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from fishing2sim.config.deck import is_standard
from fishing2sim.config.file_schema import Axis
from fishing2sim.config.keypaths import key_str as _key_str
from fishing2sim.config.keypaths import parse_key_path as _parse_key_path
from fishing2sim.config.keys import (
    CONDITION_SEED_OFFSET, CONDITIONS, LEVEL, MAX_SEED, SWEEPABLE,
)
from fishing2sim.config.messages import KeyProblem
from fishing2sim.config.messages import short as _short

__all__ = ["Grid", "add_levels", "condition_name", "condition_seed", "entry_name", "expanding",
           "grid_of", "link_baselines", "pair", "pair_decks", "set_path", "settings", "step"]


def condition_seed(seed: int, index: int) -> int:
    """The seed of condition ``index``: game_seed(seed, 1_000_000 + index), kept to 63 bits.

    Game ``g`` of the condition is then game_seed(condition seed, g), as in play_games.
    """
    from fishing2sim.engine.rng import game_seed  # (numba: not imported to read a file)

    return int(game_seed(int(seed), CONDITION_SEED_OFFSET + int(index))) & MAX_SEED


@dataclass
class Grid:
    """The dimensions of the grid, in order, and the roots of the keys they set (a
    problem at such a key names the condition being expanded)."""

    axes: list
    swept_roots: set = field(default_factory=set)

    @property
    def keys(self) -> list:
        return [a.key for a in self.axes]

    def labels_of(self, key) -> list:
        return next((a.labels for a in self.axes if a.key == key), [])

    @property
    def entries(self) -> list:
        return next((a.values for a in self.axes if a.key == CONDITIONS), [])


def grid_of(top, ladder: Axis | None = None) -> Grid:
    """The player counts (players: [3, 4, 5]), the entries of conditions (a ladder's: one
    per pair of bots), then the sweep."""
    axes, roots = [], set()
    if isinstance(top.players, list):
        axes.append(Axis("players", list(top.players), [None] * len(top.players)))
        roots.add("players")
    entries = top.conditions if ladder is None else ladder
    if entries is not None:
        axes.append(entries)
        roots |= {_parse_key_path(k)[0] for e in entries.values for k in e}
    for a in top.sweep or ():
        axes.append(a)
        roots.add(_parse_key_path(a.key)[0])
    return Grid(axes, roots)


def add_levels(grid: Grid, panel) -> None:
    """The panel's levels as the grid's last dimension (each sets seats and games)."""
    grid.axes.append(Axis(LEVEL, list(panel.levels), [lv.name for lv in panel.levels]))
    grid.swept_roots |= {"seats", "games"}


def settings(cfg, top, grid: Grid, combos) -> list:
    """Each condition's (settings: the file's, with its grid values set; labels; the
    index of its entry of conditions or None)."""
    base = {k: cfg.get(k) for k in SWEEPABLE}
    base["ruleset"] = top.ruleset
    base["players"] = cfg.get("players", 4)
    base["games"] = top.games
    out = []
    for combo in combos:
        c, labels, entry = copy.deepcopy(base), {}, None
        for axis, i in zip(grid.axes, combo):
            value = axis.values[i]
            if axis.key == CONDITIONS:  # an explicit condition: its name, then its settings
                entry = i  # named once the condition is built
                labels[CONDITIONS] = axis.labels[i] or f"{CONDITIONS}[{i}]"
                for k, v in value.items():
                    set_path(c, k, v, at=f"{CONDITIONS}[{i}].{k}")
                    labels[k] = v
            elif axis.key == LEVEL:  # a level of the panel: its seats and games
                c["seats"] = copy.deepcopy(value.seats)
                if value.games:
                    c["games"] = value.games
                labels[LEVEL] = value.name
            else:
                if axis.key == "players" and isinstance(c["players"], list):
                    c["players"] = value
                else:
                    set_path(c, axis.key, value)
                labels[axis.key] = value
        out.append((c, labels, entry))
    return out


def set_path(cfg: dict, key: str, value, at: str | None = None) -> None:
    """Set ``key`` (a key path such as ``deck.remove_from_tier.5``) in ``cfg``; a problem
    at ``at`` (default: ``sweep.<key>``)."""
    parts = _parse_key_path(key)
    where = at or f"sweep.{key}"
    node = cfg
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        above = _key_str(parts[:depth])
        if isinstance(node, list):
            i = int(part) if isinstance(part, int) or str(part).isdigit() else None
            why = (f"{above or 'it'} is a list: address an entry by its number" if i is None
                   else f"{above} has {len(node)} entries, no entry {i}"
                   if not 0 <= i < len(node) else None)
        elif node is None:
            why = f"{above} is empty"
        elif not isinstance(node, dict):
            why = (f"{above} is not a mapping or a list in the file ({_short(node)}): write "
                   "it out in full to sweep inside it")
        else:
            i = int(part) if isinstance(part, str) and part.isdigit() \
                and (int(part) in node or part not in node) else part
            why = ("seats is not a list in the file: write one entry per seat to sweep "
                   "inside it") if not last and node.get(i) is None \
                and _key_str(parts[:depth + 1]) == "seats" else None
        if why:
            raise KeyProblem(where, why)
        if last:
            node[i] = copy.deepcopy(value)
        else:
            if isinstance(node, dict) and node.get(i) is None:
                node[i] = {}
            node = node[i]


# ---- names, baselines, paired deals -------------------------------------------------------
def condition_name(grid: Grid, combo, cond, n_params) -> str:
    """The condition's name: its values' labels (an entry of conditions: its label), else
    ``key=value`` (a parameter vector by the strategy's PARAM_NAMES, a player count as "N
    players"); ``n_params(key, file)``: a strategy's (count, PARAM_NAMES)."""
    parts = []
    for axis, i in zip(grid.axes, combo):
        if axis.labels[i]:
            parts.append(axis.labels[i])
        elif axis.key == CONDITIONS:
            parts.append(entry_name(grid, i, cond, n_params))
        else:
            parts.append(name_part(axis.key, cond.labels[axis.key], cond, n_params))
    return ", ".join(parts) if parts else "all games"


def entry_name(grid: Grid, i: int, cond, n_params) -> str:
    """Entry i of conditions: its label, else its settings as ``key=value``, else
    ``conditions[i]``."""
    own = [name_part(k, cond.labels[k], cond, n_params) for k in grid.entries[i]]
    return grid.labels_of(CONDITIONS)[i] or ", ".join(own) or f"{CONDITIONS}[{i}]"


def name_part(key, value, cond, n_params) -> str:
    """An unlabelled value's part of a name."""
    if key == "players":
        return f"{value} players"
    m = re.fullmatch(r"seats(?:\[(\d+)\]|\.(\d+))?\.params", key)
    names = ()
    if m and isinstance(value, list):
        seat = int(m.group(1) or m.group(2) or 0)
        if seat < len(cond.identities):
            names = n_params(key, Path(cond.identities[seat].file))[1]
    if names and len(names) == len(value):
        who = _short(cond.identities[seat].name)
        return f"{who} " + ", ".join(f"{n}={_short(v)}" for n, v in zip(names, value))
    return f"{key}={_short(value)}"


def link_baselines(grid: Grid, conditions, combos) -> list:
    """Each condition linked to its baseline: the condition with the baseline value of
    every dimension that has one."""
    base_of = {a.key: a.baseline for a in grid.axes if a.baseline is not None}
    if not base_of:
        return conditions
    where = {combo: i for i, combo in enumerate(combos)}
    out = []
    for cond, combo in zip(conditions, combos):
        base = tuple(base_of.get(k, i) for k, i in zip(grid.keys, combo))
        out.append(dataclasses.replace(cond, is_baseline=True) if base == combo
                   else dataclasses.replace(cond, baseline=where[base]))
    return out


def pair(conditions, seed, by_games: bool = True) -> list:
    """paired: true: conditions with the same players, ruleset, first leader, rotation and
    games play the same deals, whatever their deck (an edited deck the coupled deal: the
    same deal with the edit, docs/rules.md "Coupled deals") or lineup. A skill panel's (``by_games``
    False): whatever their games, game g of each is the same deal. The deals are those
    of the group's first condition with the standard deck (else its first condition):
    the seed the standard deck's conditions had when only the same deck shared deals."""
    return _share(conditions, seed, lambda c: (c.players, c.deck.ruleset, c.first_leader,
                                               c.rotate) + ((c.games,) if by_games else ()))


def pair_decks(conditions) -> list:
    """Without paired: true: conditions that differ only by their deck (the same players,
    lineup, parameters, first leader, rotation and games) play the same deals, the
    coupled deal of each deck (docs/rules.md "Coupled deals"): a deck contrast is a paired contrast.
    The standard deck's condition keeps its seed (else the group's first one's); a
    condition with the same deck as that one keeps its own deals."""
    groups: dict = {}
    for c in conditions:
        key = (c.players, c.deck.ruleset, c.lineup, c.params, c.first_leader, c.rotate,
               c.games)
        groups.setdefault(key, []).append(c)
    out = {c.index: c for c in conditions}
    for members in groups.values():
        anchor = next((c for c in members if _standard(c)), members[0])
        moved = [c for c in members if c.deck_sha256 != anchor.deck_sha256]
        for c in moved:
            out[c.index] = dataclasses.replace(c, seed=anchor.seed, paired=True)
        if moved:
            out[anchor.index] = dataclasses.replace(anchor, paired=True)
    return [out[c.index] for c in conditions]


def _standard(c) -> bool:
    """The condition plays its ruleset's standard deck (the shipped one, or an edit that
    changed nothing)."""
    return is_standard(c.deck)


def _share(conditions, seed, key_of) -> list:
    """Conditions of one key play the deals of its first standard-deck condition (else of
    its first condition); paired when the key has more than one."""
    first: dict = {}
    count: dict = {}
    for c in conditions:
        key = key_of(c)
        if key not in first or (_standard(c) and not _standard(first[key])):
            first[key] = c
        count[key] = count.get(key, 0) + 1
    return [dataclasses.replace(c, seed=condition_seed(seed, first[key_of(c)].index),
                                paired=count[key_of(c)] > 1) for c in conditions]


def step(cond, chunk) -> int:
    """Games per chunk of a condition (whole rotation blocks with rotate)."""
    return max(1, chunk // cond.players) * cond.players if cond.rotate else chunk


@contextmanager
def expanding(labels: dict, grid: Grid):
    """A problem raised inside is told the condition being expanded (``labels``), when its
    key is one the grid sets."""
    try:
        yield
    except KeyProblem as exc:
        root = exc.path.replace("[", ".").split(".", 1)[0]
        if not exc.labels and labels and root in grid.swept_roots:
            exc.labels = dict(labels)
        raise
