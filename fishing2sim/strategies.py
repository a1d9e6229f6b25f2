"""Strategy plugins: find a bot by NAME (in strategies/) or by file path; build lineups.

A strategy is one Python file with ``NAME`` and a jitted ``decide`` of the signature in
engine/strategy_sig.py. Files are imported as real modules (their folder on sys.path, then
importlib.import_module), so numba's on-disk cache works for them across processes.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .engine.constants import MAX_PLAYERS

REPO_ROOT = Path(__file__).resolve().parent.parent
STRATEGIES_DIR = REPO_ROOT / "strategies"


class StrategyError(ValueError):
    """A strategy that cannot be found or does not follow the contract."""


@dataclass(frozen=True)
class Strategy:
    name: str
    decide: object  # a numba dispatcher with DECIDE_SIGNATURE
    source: str  # the file it came from
    n_params: int = 0
    defaults: tuple = ()
    observes: bool = True  # False: decide() reads only its options (skips building obs)


def known_strategies() -> list[str]:
    return sorted(p.stem for p in STRATEGIES_DIR.glob("*.py") if not p.stem.startswith("_"))


def _import_file(path: Path):
    folder = str(path.parent)
    if path.parent == STRATEGIES_DIR:
        if str(REPO_ROOT) not in sys.path:
            sys.path.insert(0, str(REPO_ROOT))
        return importlib.import_module(f"strategies.{path.stem}")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(path.stem)


def load_strategy(spec: str | Strategy) -> Strategy:
    """A strategy by name (a file in strategies/) or by path to a .py file."""
    if isinstance(spec, Strategy):
        return spec
    spec = str(spec)
    if spec.endswith(".py") or "/" in spec or "\\" in spec:
        path = Path(spec).expanduser().resolve()
        if not path.is_file():
            raise StrategyError(f"strategy file {spec} does not exist")
    else:
        path = STRATEGIES_DIR / f"{spec}.py"
        if not path.is_file():
            raise StrategyError(
                f"unknown strategy '{spec}': known strategies are {', '.join(known_strategies())}"
            )
    try:
        module = _import_file(path)
    except Exception as exc:  # a user's file: report, do not crash
        raise StrategyError(f"strategy file {path}: cannot be imported: {exc}") from None
    name = getattr(module, "NAME", None)
    if not isinstance(name, str) or not name:
        raise StrategyError(f"strategy file {path}: no NAME (a non-empty string) defined")
    decide = getattr(module, "decide", None)
    if decide is None or not hasattr(decide, "signatures"):
        raise StrategyError(f"strategy file {path}: no jitted decide(kind, obs, params, rng)")
    defaults = tuple(float(x) for x in getattr(module, "PARAMS", ()))
    observes = bool(getattr(module, "OBSERVES", True))
    return Strategy(name, decide, str(path), len(defaults), defaults, observes)


def build_lineup(specs, players: int, params=None):
    """(tuple of MAX_PLAYERS decide functions, float64 params [MAX_PLAYERS, k], strategies).

    ``specs`` is one strategy for every seat or a list with one per seat. Unused seats are
    padded with the first strategy, so the driver's type never depends on the lineup.
    """
    if specs is None:
        specs = "random"
    if isinstance(specs, (str, Strategy)):
        specs = [specs] * players
    specs = list(specs)
    if len(specs) != players:
        raise StrategyError(f"the lineup names {len(specs)} strategies for {players} seats")
    strats = [load_strategy(s) for s in specs]
    width = max([1] + [s.n_params for s in strats])
    table = np.zeros((MAX_PLAYERS, width), np.float64)
    for seat, s in enumerate(strats):
        table[seat, : s.n_params] = s.defaults
    if params is not None:
        for seat, vec in enumerate(params):
            if vec is None:
                continue
            vec = np.asarray(vec, np.float64)
            if vec.shape != (strats[seat].n_params,):
                raise StrategyError(
                    f"strategy '{strats[seat].name}' ({strats[seat].source}) takes "
                    f"{strats[seat].n_params} parameters, got {vec.size}"
                )
            table[seat, : vec.size] = vec
    funcs = [s.decide for s in strats] + [strats[0].decide] * (MAX_PLAYERS - players)
    return tuple(funcs), table, strats


def observe_mask(strats) -> int:
    """Bit p set: seat p's strategy reads the observation (the engine builds it)."""
    return sum(1 << p for p, s in enumerate(strats) if s.observes)
