"""One identity per bot: what a strategy of an experiment is, resolved once at load.

A bot is identified by the NAME its file really has once imported, together with that file
(its resolved path): :func:`identify` imports it (strategies.load_strategy, cached) and
returns a small frozen :class:`StrategyIdentity`. The experiment loader resolves one per
seat of every condition (``Condition.identities``) and every other part of a run reads it
there, never the file name or the file's text again: the tables' strategy rows and the
strategy slots of the totals (chunks.strategy_names), the reports' cheater label and the
seats' parameters beside their defaults, the ladder's bots and kinds, the SPRT's two
strategies. So no module of the analysis or the report loads a strategy file.

The NAME is what the tables show, so within one experiment a NAME belongs to one file: two
different files with one NAME are an error naming both (the loader checks it, before any
game). The kind follows the imported ``SEARCH``: a cheater (``SEARCH = "cheater"``) is
labelled as one whatever it is named and however its file is named, and a skill panel's
level that seats one is refused (config/levels.py, ``level_fair_play``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

KINDS = ("heuristic", "search", "cheater")


@dataclass(frozen=True)
class StrategyIdentity:
    name: str  # the NAME the file defines (after import): what the tables show
    file: str  # the file's resolved path
    digest: str  # strategies.strategy_digest of the file (its config-hash entry)
    kind: str  # heuristic, search (SEARCH = "pimc" or "ismcts") or cheater
    rollout: "StrategyIdentity | None" = None  # a search bot's rollout strategy
    searches: tuple = ()  # the decisions a search bot searches
    param_names: tuple = ()  # its parameters' names (PARAM_NAMES) and default values (PARAMS),
    defaults: tuple = ()  # floats: what the reports compare a seat's parameters with

    @property
    def sees_every_hand(self) -> bool:
        """A cheater: its search sees every hand, so reports label it an upper bound."""
        return self.kind == "cheater"

    @property
    def stem(self) -> str:
        return Path(self.file).stem

    def __str__(self) -> str:
        return f"{self.name!r} ({self.file})"


def identity_of(strategy) -> StrategyIdentity:
    """The identity of a loaded strategies.Strategy. The digest is taken of the files as
    they are now (a process imports a file once: an edit since changes the config hash, as
    --resume must see, though not the NAME)."""
    # (strategy/files.py imports the bots' package: the analysis reads identities without it)
    from fishing2sim.strategy.files import strategy_digest

    kind = "heuristic" if not strategy.search else \
        "cheater" if strategy.search == "cheater" else "search"
    rollout = identity_of(strategy.rollout) if strategy.rollout is not None else None
    file = Path(strategy.source).resolve()
    return StrategyIdentity(strategy.name, str(file), strategy_digest(file), kind, rollout,
                            tuple(strategy.searches), tuple(strategy.param_names),
                            tuple(float(x) for x in strategy.defaults))


def identify(spec) -> StrategyIdentity:
    """The identity of a strategy (a shipped bot's name, a .py path or a Strategy); raises
    strategies.StrategyError for a file that cannot be loaded."""
    # (as identity_of: strategy/loading.py imports strategy/files.py)
    from fishing2sim.strategy.loading import load_strategy

    return identity_of(load_strategy(spec))


def distinct_names(identities) -> list[str]:
    """The NAMEs of a lineup's identities, each once, in lineup order."""
    names: list[str] = []
    for i in identities:
        if i.name not in names:
            names.append(i.name)
    return names


def named(word: str, identities, folder: Path | None = None) -> list[StrategyIdentity]:
    """The bots of ``identities`` that ``word`` names: by NAME, or by file (a shipped bot's
    name or a file's stem, or a .py path, relative to ``folder``); each bot once."""
    word = str(word).strip()
    path = None
    if word.endswith(".py") or "/" in word or "\\" in word:
        p = Path(word).expanduser()
        path = str(((folder or Path.cwd()) / p).resolve() if not p.is_absolute()
                   else p.resolve())
    out: list[StrategyIdentity] = []
    for i in identities:
        if i not in out and (i.name == word or i.stem == word or i.file == path):
            out.append(i)
    return out
