"""The resolved config of an experiment (every default filled: what the report shows) and
its hash (what --resume compares before reusing checkpoints)."""
from __future__ import annotations

import copy
import hashlib
import json

from fishing2sim.config.deck import deck_for
from fishing2sim.config.keys import CONDITIONS, DEFAULT_EXAMPLES, EXECUTION_KEYS, LADDER

__all__ = ["config_hash", "resolved", "resolved_deck", "resolved_seats"]


def resolved(cfg, top, entries, max_round, ladder, precision, sprt, max_games,
             panel=None) -> dict:
    """The whole config, every default filled (what the report shows and the hash
    covers)."""
    config = {
        "name": top.name,
        "ruleset": top.ruleset,
        "players": copy.deepcopy(cfg.get("players", 4)),
        "games": top.games,
        "seed": top.seed,
        "chunk": top.chunk,
        "first_leader": cfg.get("first_leader", "random"),
        "seats": resolved_seats(cfg.get("seats", "random")),
        "rotate": cfg.get("rotate", False),
        "deck": resolved_deck(cfg.get("deck")),
        "sweep": {k: copy.deepcopy(v) for k, v in (cfg.get("sweep") or {}).items()},
        **({CONDITIONS: copy.deepcopy(cfg[CONDITIONS])} if entries is not None else {}),
        "analyses": list(top.analyses),
        "trump_value": {"max_round": max_round},
        "workers": top.workers,
        "scheduler": top.scheduler,
        "output": top.output,
        "strict": top.strict,
        "multiplicity": top.multiplicity,
    }
    if top.paired:
        config["paired"] = True
    if top.examples != DEFAULT_EXAMPLES:  # (only then: every other file's hash stays)
        config["examples"] = top.examples
    if ladder is not None:  # its conditions are generated: the ladder key says it all
        config.pop(CONDITIONS, None)
        config.pop("seats", None)
        config[LADDER] = ladder.pop("resolved")
    if panel is not None:  # each level sets the seats (and games) of its conditions
        config.pop("seats", None)
        config["play_levels"] = {
            "levels": [lv.as_dict() for lv in panel.levels],
            "relative_to": panel.relative_to,
            "converged_within": dict(panel.converged_within)}
    if precision or sprt:
        config["max_games"] = max_games
    if precision:
        config["precision"] = {f: text for f, _, text in precision}
    if sprt:
        config["sprt"] = dict(sprt)
    return config

def config_hash(resolved: dict, conditions) -> str:
    h = hashlib.sha256()
    hashed = {k: v for k, v in resolved.items() if k not in EXECUTION_KEYS}
    h.update(json.dumps(hashed, sort_keys=True, separators=(",", ":"),
                        default=str).encode())
    for c in conditions:  # a seat's digest covers its files' content, never their paths,
        # so the same experiment in another folder or install has the same hash
        lineup = ",".join(i.digest for i in c.identities)
        h.update(f"\ncondition {c.index} deck {c.deck_sha256} lineup {lineup}".encode())
        if c.deck_sha256 != deck_for(c.deck.ruleset).sha256:  # its deals: the coupled deal's
            h.update(b" coupled deal")
    return h.hexdigest()

def resolved_seats(seats):
    return copy.deepcopy(seats) if seats is not None else "random"

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
