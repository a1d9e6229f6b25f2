"""What the start page offers (docs/serve.md): the shipped bots and the ruleset's own deck,
and the strategy and deck files the person named when starting the server
(``fishing2sim serve --strategy FILE --deck FILE``).

The files are read once, here, at the start: a request chooses among the offered names
and never names a path, so no request makes the server open a file or run a file's code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fishing2sim.config.deck import Deck, DeckError, load_deck
from fishing2sim.errors import InputError
from fishing2sim.strategy.files import known_strategies
from fishing2sim.strategy.loading import load_strategy

STANDARD = "standard"
RULESETS = ("fishing2", "fishing")


@dataclass(frozen=True)
class Offer:
    """``bots``: a name shown on the page -> what the lineup loads (a shipped bot's name,
    or a strategy file's absolute path); ``decks``: a deck file's name -> its deck per
    ruleset it is valid for (the standard deck is every ruleset's own, not listed)."""

    bots: dict[str, str] = field(default_factory=dict)
    decks: dict[str, dict[str, Deck]] = field(default_factory=dict)

    def bot(self, name: str, where: str) -> str:
        if name not in self.bots:
            raise InputError(f"{where}: unknown bot {name!r}; this server offers "
                             f"{', '.join(self.bots)}")
        return self.bots[name]

    def deck(self, name: str, ruleset: str) -> Deck | None:
        """The deck chosen by ``name`` for ``ruleset`` (None: the ruleset's own)."""
        if name in ("", STANDARD):
            return None
        if name not in self.decks:
            raise InputError(f"unknown deck {name!r}; this server offers "
                             f"{', '.join([STANDARD, *self.decks])}")
        if ruleset not in self.decks[name]:
            valid = " and ".join(self.decks[name])
            raise InputError(f"the deck {name!r} is a deck of {valid}, not of {ruleset}")
        return self.decks[name][ruleset]


def make_offer(strategy_files=(), deck_files=()) -> Offer:
    """The offer with the given files, each checked now: a strategy file is loaded
    (compiled) as a run would load it, a deck file read and validated for each ruleset.
    A file that fails, or whose name is taken, is an InputError naming it."""
    bots = {name: name for name in known_strategies()}
    for f in strategy_files:
        path = Path(f)
        if not path.is_file():
            raise InputError(f"--strategy {f}: no such file")
        strategy = load_strategy(str(path.resolve()))
        if strategy.name in bots:
            taken = "a shipped bot's" if bots[strategy.name] == strategy.name else \
                "another --strategy file's"
            raise InputError(f"--strategy {f}: its name {strategy.name!r} is {taken} name; "
                             "rename the file")
        bots[strategy.name] = str(path.resolve())
    decks: dict[str, dict[str, Deck]] = {}
    for f in deck_files:
        path = Path(f)
        if not path.is_file():
            raise InputError(f"--deck {f}: no such file")
        name = path.stem
        if name == STANDARD or name in decks:
            raise InputError(f"--deck {f}: the name {name!r} is taken; rename the file")
        valid, errors = {}, []
        for ruleset in RULESETS:
            try:
                valid[ruleset] = load_deck(path, ruleset=ruleset)
            except DeckError as exc:
                errors.append(str(exc))
        if not valid:
            raise InputError(f"--deck {f}: {errors[0]}")
        decks[name] = valid
    return Offer(bots, decks)
