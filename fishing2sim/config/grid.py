"""The grid of an experiment: its sweep, its explicit conditions, their names and baselines.

A mixin of the loader (fishing2sim/config/experiment.py): its methods report through
``self.fail(key path, problem)``."""
from __future__ import annotations

import copy
import dataclasses
import re
from pathlib import Path

from fishing2sim.config.keypaths import key_str as _key_str
from fishing2sim.config.keypaths import overlap as _overlap
from fishing2sim.config.keypaths import parse_key_path as _parse_key_path
from fishing2sim.config.keys import (
    CONDITION_SEED_OFFSET, CONDITIONS, DECK_KEYS, ENTRY_KEYS, LABELLED_KEYS, MAX_SEED,
    SWEEPABLE, TOP_KEYS,
)
from fishing2sim.config.messages import did_you_mean as _did_you_mean
from fishing2sim.config.messages import got as _got
from fishing2sim.config.messages import short as _short

__all__ = ["GridMixin", "condition_seed"]



def condition_seed(seed: int, index: int) -> int:
    """The seed of condition ``index``: game_seed(seed, 1_000_000 + index), kept to 63 bits.

    Game ``g`` of the condition is then game_seed(condition seed, g), as in play_games.
    """
    from fishing2sim.engine.rng import game_seed

    return int(game_seed(int(seed), CONDITION_SEED_OFFSET + int(index))) & MAX_SEED


class GridMixin:
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

    def pair(self, conditions, seed, by_games: bool = True) -> list:
        """paired: true: conditions with the same players, deck, first leader, rotation and
        games play the same deals (the seed of the first of them). A skill panel's
        (``by_games`` False): whatever their games, game g of each is the same deal."""
        first: dict = {}
        count: dict = {}

        def key_of(c):
            return (c.players, c.deck_sha256, c.first_leader, c.rotate) + (
                (c.games,) if by_games else ())

        for c in conditions:
            key = key_of(c)
            first.setdefault(key, c.index)
            count[key] = count.get(key, 0) + 1
        out = []
        for c in conditions:
            key = key_of(c)
            out.append(dataclasses.replace(c, seed=condition_seed(seed, first[key]),
                                           paired=count[key] > 1))
        return out

    @staticmethod
    def step(cond, chunk) -> int:
        """Games per chunk of a condition (whole rotation blocks with rotate)."""
        return max(1, chunk // cond.players) * cond.players if cond.rotate else chunk
