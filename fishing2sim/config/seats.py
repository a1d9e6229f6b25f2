"""The seats of a condition and the bots of a ladder: every strategy found, identified once
and its parameters checked (fishing2sim/strategy/identity.py).

A mixin of the loader (fishing2sim/config/experiment.py): its methods report through
``self.fail(key path, problem)``."""
from __future__ import annotations

import copy
import itertools
from pathlib import Path

from fishing2sim.config.keys import CONDITIONS, LADDER, LADDER_EXCLUDES
from fishing2sim.config.messages import got as _got
from fishing2sim.config.schema import Seat, strategy_spec
from fishing2sim.strategy.identity import StrategyIdentity, identify, named
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.strategy.files import resolve_path
from fishing2sim.strategy.search_bots import search_params_problem

__all__ = ["SeatsMixin"]


class SeatsMixin:
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
        if isinstance(entry, dict):
            seat = self.schema(Seat, entry, key)
            skey, spec, raw_params = f"{key}.strategy", seat.strategy, seat.params
        else:
            skey, spec, raw_params = key, self.schema(strategy_spec, entry, key), None
        path, shown = self.strategy(skey, spec)
        if raw_params is not None:
            pkey = f"{key}.params"
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

    # ---- ladder ---------------------------------------------------------------------------
    def ladder(self, cfg: dict, games: int, games_overridden: bool, analyses: list) -> dict:
        """Check the ladder: key and write its conditions into ``cfg``: one explicit
        condition per pair of bots (A, B), the lineup [A, A, B, B], seat-rotated, 4 players
        (fishing2sim/analysis/ladder.py). Returns the ladder's description (Experiment.ladder)."""
        spec = cfg[LADDER]  # its shape checked by the schema (LadderSpec)
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
        bots = spec["bots"]
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
