"""The seats of a condition and the bots of a ladder: every strategy found, identified once
and its parameters checked (fishing2sim/strategy/identity.py).

:class:`Bots` is the one record of the bots a file names (each strategy found and imported
once); the functions below read the validated file and report a problem as a
:class:`~fishing2sim.config.messages.KeyProblem` at its key path."""
from __future__ import annotations

import copy
import itertools
from pathlib import Path

from fishing2sim.config.decisions import searching_seat
from fishing2sim.config.file_schema import Axis
from fishing2sim.config.keys import CONDITIONS, LADDER
from fishing2sim.config.messages import KeyProblem
from fishing2sim.config.messages import got as _got
from fishing2sim.config.schema import Seat, check
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.files import resolve_path
from fishing2sim.strategy.identity import StrategyIdentity, distinct_names, identify, named
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.strategy.search_bots import search_params_problem

__all__ = ["Bots", "ladder", "locate_seats", "no_search_seats", "seat", "seats"]


class Bots:
    """The bots of one experiment file: each lineup entry's identity, imported once, and
    the first bot of each NAME (two files with one NAME are refused)."""

    def __init__(self, folder: Path):
        self.folder = folder  # a path is relative to the experiment file's folder
        self.identities: dict[str, StrategyIdentity] = {}  # lineup entry -> identity
        self.names: dict[str, tuple[StrategyIdentity, str]] = {}  # NAME -> (first, where)

    def locate(self, key, spec) -> tuple[Path, str]:
        """The strategy file a seat names and its lineup entry (the name for strategies/,
        else the absolute path), found without importing it."""
        if spec.endswith(".py") or "/" in spec or "\\" in spec:
            path = (self.folder / Path(spec).expanduser()).resolve()
            if not path.is_file():
                raise KeyProblem(key, f"strategy file {spec!r} not found (looked for {path}; a "
                                 "path is relative to the experiment file's folder)")
            return path, str(path)
        return self._load(key, resolve_path, spec), spec

    def identify(self, key, spec) -> str:
        """The lineup entry of ``spec``, its bot identified (imported) once. A NAME is one
        bot: a second file with the NAME of another is an error naming both."""
        path, entry = self.locate(key, spec)
        if entry not in self.identities:
            ident = self._load(key, identify, path)
            first = self.names.setdefault(ident.name, (ident, key))
            if first[0].file != ident.file:
                raise KeyProblem(key, f"two files with the NAME {ident.name!r}: "
                                 f"{first[0].file} ({first[1]}) and {ident.file}: the tables "
                                 "know a bot by its NAME, so one would count as the other; "
                                 "give one of them another NAME")
            self.identities[entry] = ident
        return entry

    def n_params(self, key, path) -> tuple[int, tuple]:
        """(the length of the strategy's PARAMS, its PARAM_NAMES), of the bot as imported."""
        s = self._load(key, load_strategy, str(path))
        return s.n_params, tuple(s.param_names)

    def named(self, key, word, identities, where: str) -> StrategyIdentity | None:
        """The bot of ``identities`` that ``word`` names, by its NAME or by its file (None
        if none, or ``word`` is no text; two different bots is an error)."""
        found = named(word, identities, self.folder) if isinstance(word, str) else []
        if len(found) > 1:
            raise KeyProblem(key, f"{word!r} names two bots of {where}: {found[0]} and "
                             f"{found[1]} (one by its NAME, one by its file); name the bot "
                             "by its NAME")
        return found[0] if found else None

    @staticmethod
    def _load(key, how, what):
        """``how(what)``, a StrategyError (a misspelt name, a file that does not load)
        reported at ``key``."""
        try:
            return how(what)
        except StrategyError as exc:
            raise KeyProblem(key, str(exc)) from None


def seats(bots: Bots, given, players) -> tuple[list, list]:
    """(the lineup, each seat's parameters or None) of a condition's ``seats``."""
    if given is None:
        given = "random"
    if isinstance(given, list) and len(given) == players:
        entries = [(f"seats[{i}]", s) for i, s in enumerate(given)]
    elif isinstance(given, (str, dict)):
        entries = [("seats", given)] * players
    else:
        raise KeyProblem("seats", f"{len(given)} entries for {players} players: give one "
                         "strategy for every seat, or a list with one entry per seat"
                         if isinstance(given, list) else "expected a strategy name or file, "
                         "a mapping {strategy: ..., params: [...]} or a list of these, "
                         f"{_got(given)}")
    out = [seat(bots, key, entry) for key, entry in entries]
    return [e for e, _ in out], [p for _, p in out]


def seat(bots: Bots, key, entry) -> tuple[str, tuple | None]:
    """(the lineup entry, its parameters or None) of one seat."""
    if isinstance(entry, dict):
        s = check(Seat, entry, key)
        skey, spec, raw = f"{key}.strategy", s.strategy, s.params
    else:  # a strategy alone: its problem is the seat's
        skey, spec, raw = key, check(Seat, {"strategy": entry}, key,
                                     rename={f"{key}.strategy": key}).strategy, None
    shown = bots.identify(skey, spec)
    if raw is None:
        return shown, None
    vec = tuple(float(x) for x in raw)
    n, names = bots.n_params(skey, bots.locate(skey, spec)[0])
    if len(vec) != n:
        why = f"strategy {spec!r} takes {n} parameters" + (
            f" ({', '.join(names)})" if names else "") + f", got {len(vec)}"
    else:
        why = search_params_problem(vec) if bots.identities[shown].kind != "heuristic" \
            else None
    if why:
        raise KeyProblem(f"{key}.params", why)
    return shown, vec


def locate_seats(bots: Bots, given) -> None:
    """Every strategy of a condition's seats found (a misspelt name reported) before any
    strategy is imported; the rest of the seats is checked with the condition."""
    if isinstance(given, (str, dict)):
        entries = [("seats", given)]
    elif isinstance(given, list):
        entries = [(f"seats[{i}]", s) for i, s in enumerate(given)]
    else:
        return
    for key, entry in entries:
        spec = entry.get("strategy") if isinstance(entry, dict) else entry
        if isinstance(spec, str) and spec.strip():
            bots.locate(f"{key}.strategy" if isinstance(entry, dict) else key, spec.strip())


def no_search_seats(cond, what: str) -> None:
    """trump_value with seats that search card plays is refused (docs/search.md)."""
    found = searching_seat(cond, card_plays_only=True)
    if found:
        raise KeyProblem(found[0], f"{found[1].name!r} searches its card plays; {what} replays "
                         "every trump choice to the game's end four times, which with "
                         "searched card plays is beyond any budget: use a bot that searches "
                         "only the trump choice (SEARCHES = ['trump_choice'], e.g. pimc_trump) "
                         "or leave trump_value out of analyses for this lineup")


def sprt_bots(bots: Bots, raw: dict, conditions) -> dict:
    """The SPRT of ``sprt:`` (``raw``: as written, its values checked by the schema), its
    two bots named by their NAMEs (a bot may be given by its NAME or by its file)."""
    full = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    full.update(raw)
    for k in ("better", "than"):
        word, name = full[k].strip(), None
        for c in conditions:
            found = bots.named(f"sprt.{k}", word, c.identities,
                               f"the lineup of condition {c.index}")
            if found is None:
                raise KeyProblem(f"sprt.{k}", f"strategy {word!r} is not in the lineup of "
                                 f"condition {c.index} "
                                 f"({', '.join(distinct_names(c.identities))})")
            name = found.name
        full[k] = name
    if full["better"] == full["than"]:
        raise KeyProblem("sprt.than", f"compare two different strategies ({full['better']!r} "
                         "both times)")
    return {k: (float(v) if k not in ("better", "than") else v) for k, v in full.items()}


# ---- ladder -------------------------------------------------------------------------------
def ladder(bots: Bots, cfg: dict, top, games_overridden: bool) -> tuple[dict, Axis]:
    """The ladder's bots identified and its conditions written into ``cfg``: one explicit
    condition per pair of bots (A, B), the lineup [A, A, B, B], seat-rotated, 4 players
    (fishing2sim/analysis/ladder.py); the keys it excludes are the schema's. Returns the
    ladder's description (Experiment.ladder) and its conditions as the grid's axis."""
    spec, games = top.ladder, top.games
    given = cfg[LADDER]
    names, kinds, budgets, search, idents = [], [], [], [], []
    for i, entry in enumerate(spec.bots):
        at = f"{LADDER}.bots[{i}]"
        shown, vec = seat(bots, at, entry)
        ident = bots.identities[shown]
        searching = ident.kind != "heuristic"
        why = (f"a second bot named {ident.name!r} (also {LADDER}.bots"
               f"[{names.index(ident.name)}]): every bot on a ladder needs its own name; to "
               "rate another version, copy the file and change its NAME"
               if ident.name in names else
               f"{ident.name!r} is a search bot; analyses: trump_value is measured without "
               "search seats (its replays would search at every decision of every branch): "
               "leave trump_value out of a ladder's analyses"
               if searching and "trump_value" in top.analyses else None)
        if why:
            raise KeyProblem(at, why)
        names.append(ident.name)
        idents.append(ident)
        search.append(searching)
        kinds.append(ident.kind)
        if not searching:
            budgets.append(None)
        else:  # the search budget: its parameters by name, and its rollout strategy
            s = load_strategy(ident.file)
            vals = list(vec) if vec is not None else list(s.defaults)
            budgets.append({"params": {str(n): float(v) for n, v in zip(s.param_names, vals)},
                            "rollout": ident.rollout.name})
    search_games = given.get("search_games", games)
    if games_overridden:  # --games N: every pair plays N games
        search_games = games
    anchor = given.get("anchor", "random")
    found = bots.named(f"{LADDER}.anchor", anchor, idents, "the ladder")
    if found is None:
        raise KeyProblem(f"{LADDER}.anchor", "the anchor (the bot rated 0) must be one of the "
                         f"ladder's bots ({', '.join(names)}), {_got(anchor)}"
                         + ("; random is the default anchor: add it to the bots or name "
                            "another" if "anchor" not in given else ""))
    entries = []
    # the pairs with search bots first: their long chunks start first and the short
    # chunks of the other pairs fill the workers' time at the end
    for i, j in sorted(itertools.combinations(range(len(spec.bots)), 2),
                       key=lambda ij: -(search[ij[0]] + search[ij[1]])):
        e = {"label": f"{names[i]} vs {names[j]}",
             "seats": [spec.bots[i], spec.bots[i], spec.bots[j], spec.bots[j]]}
        if search[i] or search[j]:
            e["games"] = search_games
        entries.append(e)
    cfg[CONDITIONS] = entries
    cfg["rotate"] = True
    cfg["players"] = 4
    axis = Axis(CONDITIONS, [{k: v for k, v in e.items() if k != "label"} for e in entries],
                [e["label"] for e in entries])
    return {"bots": names, "kinds": kinds, "budgets": budgets, "anchor": found.name,
            "games": -(-games // 4) * 4, "search_games": -(-search_games // 4) * 4,
            "resolved": {"bots": copy.deepcopy(given["bots"]), "search_games": search_games,
                         "anchor": anchor}}, axis
