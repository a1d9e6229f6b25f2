"""Lineups for the kernels: one tuple per decision kind of one compiled function per seat
(one signature for all, so the jitted driver compiles once for every lineup), the seats'
parameter table, the search seats' arguments, and which seats read an observation."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from fishing2sim.engine.constants import MAX_PLAYERS
from fishing2sim.engine.sigs import DECISION, STRATS
from fishing2sim.strategy.contract import DECISION_FUNCTIONS, Strategy, StrategyError
from fishing2sim.strategy.loading import load_strategy
from fishing2sim.strategy.search_bots import (
    N_SP, SEARCH_METHODS, margin_problem, search_params_problem,
)

def search_args(strats, params, players: int):
    """The search kernel's extra arguments for a lineup with search seats (None without):
    (search mask, search parameters [MAX_PLAYERS, N_SP], each seat's rollout lineup (a
    tuple of MAX_PLAYERS lineups: every seat of seat s's rollouts plays s's rollout
    strategy), their parameter tables [MAX_PLAYERS, MAX_PLAYERS, width] and observe masks).
    ``params``: None or one vector (or None) per seat."""
    seats = [p for p, s in enumerate(strats) if s.search]
    if not seats:
        return None
    mask = 0
    sp = np.zeros((MAX_PLAYERS, N_SP), np.float64)
    lineups = {}
    for p in seats:
        s = strats[p]
        vec = s.defaults
        if params is not None and params[p] is not None:
            vec = tuple(float(x) for x in np.asarray(params[p], np.float64).ravel())
        problem = search_params_problem(vec) or margin_problem(vec, s.search, s.rollout)
        if problem:
            raise StrategyError(f"strategy '{s.name}' ({s.source}): {problem}")
        for name in s.searches:
            mask |= 1 << (MAX_PLAYERS * DECISION_FUNCTIONS.index(name) + p)
        sp[p, :1 + len(vec)] = (SEARCH_METHODS[s.search], *vec)  # (no margin: 0)
        if s.rollout.source not in lineups:
            lineups[s.rollout.source] = build_lineup([s.rollout] * players, players)
    first = lineups[strats[seats[0]].rollout.source]
    per_seat = [lineups[strats[p].rollout.source] if p < len(strats) and strats[p].search
                else first
                for p in range(MAX_PLAYERS)]
    width = max(t.shape[1] for _, t, _ in per_seat)
    tables = np.zeros((MAX_PLAYERS, MAX_PLAYERS, width), np.float64)
    for p, (_, t, _) in enumerate(per_seat):  # (each row's count stays in the last column)
        tables[p, :, :t.shape[1] - 1] = t[:, :-1]
        tables[p, :, -1] = t[:, -1]
    return (mask, sp, tuple(f for f, _, _ in per_seat), tables,
            np.array([observe_mask(r) for _, _, r in per_seat], np.int64))


# ---- strict mode: the strategy's own code compiled again with bounds checking -------------

def build_lineup(specs, players: int, params=None, strict: bool = False):
    """(strats, params table, strategies) for the kernels.

    The params table has a row per seat: the seat's parameter vector, zeros, and in the
    last column the vector's length; the engine hands each strategy exactly its own
    vector, however long the other seats' are (a student reads its layout from it).

    ``specs``: one strategy (name, path or Strategy) for every seat or a list, one per seat.
    ``params``: None, or a list with one vector (or None for the defaults) per seat.
    ``strats[kind][seat]`` is the seat's function for decision ``kind``; unused seats are
    padded with seat 0's, so the driver's type never depends on the lineup. ``strict``:
    the strategies in strict mode (bounds checking).
    """
    if specs is None:
        specs = "random"
    if isinstance(specs, (str, Path, Strategy)):
        specs = [specs] * players
    specs = list(specs)
    if len(specs) != players:
        raise StrategyError(f"the lineup names {len(specs)} strategies for {players} seats")
    strats = [load_strategy(s, strict) for s in specs]
    if params is not None and len(params) != players:
        raise StrategyError(f"params: {len(params)} vectors for {players} seats")
    width = max([0] + [s.n_params for s in strats] + [s.rollout.n_params for s in strats
                                                       if s.search]) + 1
    table = np.zeros((MAX_PLAYERS, width), np.float64)
    for seat, s in enumerate(strats):
        vec = s.defaults
        if params is not None and params[seat] is not None:
            vec = np.asarray(params[seat], np.float64).ravel()
            if vec.shape != (s.n_params,):
                raise StrategyError(
                    f"strategy '{s.name}' ({s.source}) takes {s.n_params} parameters"
                    f"{' (' + ', '.join(s.param_names) + ')' if s.param_names else ''}, "
                    f"got {vec.size}")
        if s.search:  # the seat's own decisions are its rollout strategy's (search_args)
            vec = np.asarray(s.rollout.defaults, np.float64)
        table[seat, : len(vec)] = vec
        table[seat, -1] = len(vec)
    seats = strats + [strats[0]] * (MAX_PLAYERS - players)
    funcs = tuple(tuple(s.functions[k] for s in seats) for k in range(len(DECISION_FUNCTIONS)))
    return _typed_lineup(funcs), table, strats


class Lineup(tuple):
    """The lineup's decision functions, strats[kind][seat], as the kernels take them.
    numba would type a plain tuple of 50 functions anew on every kernel call (about 2 ms,
    most of a short call's cost): a Lineup carries its type, which is the same for every
    lineup (sigs.STRATS), and each function's compiled addresses are looked up once."""


_lineup_type_registered = False


def _typed_lineup(funcs: tuple):
    global _lineup_type_registered
    from numba.core import config

    if config.DISABLE_JIT:  # plain Python: the kernels take the plain tuple
        return funcs
    if not _lineup_type_registered:
        from numba.core.typing.typeof import typeof_impl

        typeof_impl.register(Lineup)(lambda val, c: STRATS)
        _lineup_type_registered = True
    for row in funcs:
        for fn in row:
            _remember_address(fn)
    return Lineup(funcs)


def _remember_address(fn) -> None:
    """numba looks up a first-class function's compiled wrapper on every call that passes
    it (through ``__wrapper_address__`` when the object has one): a decision function has
    exactly one compiled signature (the decorator and strict mode disable further
    compiles), so its address is looked up once and kept on the function."""
    if getattr(fn, "__wrapper_address__", None) is not None:
        return
    from numba.experimental.function_type import _get_wrapper_address

    sig = DECISION.signature
    addr = _get_wrapper_address(fn, sig)
    fn.__wrapper_address__ = lambda: addr
    # the native entry point is looked up through get_compile_result: the one result
    find = fn.get_compile_result
    cres = find(sig)

    def get_compile_result(s, _find=find, _sig=sig, _cres=cres):
        return _cres if s is _sig or s == _sig else _find(s)

    fn.get_compile_result = get_compile_result
    fn.__kept_addresses__ = (sig, addr, _jit_address(fn, sig))
    _keep_addresses()


_equal_signatures: dict = {}  # id -> a signature found equal to DECISION's (kept alive)


def _kept(func, sig):
    """``func``'s kept (signature, wrapper address, native address) when ``sig`` is its
    signature, else None. numba passes the same signature object from each call site (it
    unpickles it once), so equality is tested once per object."""
    kept = getattr(func, "__kept_addresses__", None)
    if kept is None:
        return None
    if sig is kept[0] or id(sig) in _equal_signatures:
        return kept
    if sig == kept[0]:
        _equal_signatures[id(sig)] = sig
        return kept
    return None


def _keep_addresses() -> None:
    """numba looks up each passed function's two addresses on every kernel call that
    passes it (function_type._get_wrapper_address after a signature check, and
    _get_jit_address, an LLVM symbol lookup; about 0.1 ms each, and a lineup passes 50
    functions): most of a paused game's cost, one kernel call per decision (a replay, the
    table in serve). For a function whose addresses ``_remember_address`` kept, the kept
    ones are returned. The compiled code calls both by their module attribute, so
    replacing the attribute is what it calls; any other function goes to numba's own."""
    from numba.experimental import function_type

    if getattr(function_type._get_jit_address, "keeps_addresses", False):
        return
    wrapper_own, jit_own = function_type._get_wrapper_address, function_type._get_jit_address

    def get_wrapper_address(func, sig):
        kept = _kept(func, sig)
        return kept[1] if kept is not None else wrapper_own(func, sig)

    def get_jit_address(func, sig):
        kept = _kept(func, sig)
        return kept[2] if kept is not None else jit_own(func, sig)

    get_jit_address.keeps_addresses = True
    function_type._get_wrapper_address = get_wrapper_address
    function_type._get_jit_address = get_jit_address


def _jit_address(fn, sig) -> int:
    from numba.experimental.function_type import _get_jit_address

    return _get_jit_address(fn, sig)


def observe_mask(strats) -> int:
    """The seats' flags for the engine (st[S_OBSERVE_MASK]). Bit p: seat p's strategy reads
    the observation (the engine builds it). Bit MAX_PLAYERS * (1 + k) + p: seat p's
    decision k is the reference random strategy, which the engine draws itself (the same
    draw from the seat's stream, without the call)."""
    from fishing2sim.strategy.reference import choose_uniformly  # (it compiles on import)

    mask = sum(1 << p for p, s in enumerate(strats) if s.observes)
    for p, s in enumerate(strats):
        for k, fn in enumerate(s.functions):
            if fn is choose_uniformly and DECISION_FUNCTIONS[k] not in s.searches:
                mask |= 1 << (MAX_PLAYERS * (1 + k) + p)
    return mask
