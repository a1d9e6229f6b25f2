"""The strategy contract's names and decorators: which decisions there are, and how a
decision function (and a helper of one) is compiled. Kept apart from the kit so that
loading a strategy (or the reference random strategy) does not load every kit helper; a
strategy file imports all of this from fishing2sim.strategy.kit.
"""

from dataclasses import dataclass

from fishing2sim.errors import Fishing2simError

DECISION_SIGNATURE = "int64(int64[::1], float64[::1], uint64[::1])"

# the function name a strategy file uses for each decision, indexed by the D_* code
DECISION_FUNCTIONS = (
    "play", "trump_choice", "determine_trump", "catch_1_other", "exchange_take",
    "exchange_give", "catch_1_card", "zero_catch", "pass_1_left", "determine_colour",
)

DECISION_ARGS = "(int64[::1], float64[::1], uint64[::1])"


class StrategyFailure(Fishing2simError, RuntimeError):
    """A strategy broke the contract during a game: it returned a choice that is not one of
    its options, or it raised an exception. The message names the strategy, its file, the
    seat, the decision and what went wrong; the same facts are attributes."""

    def __init__(self, message, strategy=None, file=None, seat=None, decision=None,
                 choice=None, options=None):
        super().__init__(message)
        self.strategy, self.file, self.seat, self.decision = strategy, file, seat, decision
        self.choice, self.options = choice, options
        self.traceback = None  # the debug mode (NUMBA_DISABLE_JIT=1): the exception's

    def __reduce__(self):  # raised in a worker process, re-raised in the main one
        return (StrategyFailure, (str(self), self.strategy, self.file, self.seat,
                                  self.decision, self.choice, self.options))


class ContractError(Fishing2simError, TypeError):
    """A decision function that cannot be one: it returns something other than an integer."""


def decision(fn):
    """Compile a decision function ``f(obs, params, rng) -> choice`` for the engine.

    Compiled without numba's reference counting when the function allocates no arrays
    (every call then saves two atomic counter updates on each array it touches); a
    function that does allocate is compiled with it. The return type is inferred and must
    be an integer (a float or a path that returns None is a ContractError, not silently
    truncated). Under NUMBA_DISABLE_JIT=1 (the debug mode) the function stays plain Python.
    """
    from numba import njit
    from numba.core import config, errors, types

    if config.DISABLE_JIT:
        fn.__fishing2sim_decision__ = True
        return fn
    try:
        d = njit(DECISION_ARGS, cache=True, _nrt=False)(fn)
    except errors.NumbaError:
        d = njit(DECISION_ARGS, cache=True)(fn)
    ret = d.nopython_signatures[0].return_type
    if ret != types.int64:
        where = f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}"
        if isinstance(ret, types.Integer) or ret == types.boolean:
            d = njit(DECISION_SIGNATURE, cache=True, _nrt=d.targetoptions.get("_nrt", True))(fn)
        elif isinstance(ret, (types.Optional, types.NoneType)):
            raise ContractError(
                f"decision {fn.__name__} ({where}) can return None (a path without a "
                "return?); a decision returns one of its options, an integer")
        else:
            raise ContractError(
                f"decision {fn.__name__} ({where}) returns {ret}, not an integer; a "
                "decision returns one of its options (an int64 from obs, or a constant "
                "such as LIGHT)")
    d.__fishing2sim_decision__ = True
    return d


def helper(fn_or_signature):
    """Compile a helper of decision functions: ``@helper`` or ``@helper("int64(int64[::1],
    int64)")``. Like ``numba.njit(cache=True)`` without the reference counting (no atomic
    counter updates per call, and small helpers get inlined into their callers), so it may
    not allocate arrays: use plain ``@njit`` for one that does.

    Give a helper that is called with constant arguments (``has_effect(obs, c, E_PLUS_3)``)
    a signature: numba compiles a function again for every distinct constant otherwise.
    """
    from numba import njit

    if isinstance(fn_or_signature, str):
        return njit(fn_or_signature, cache=True, _nrt=False)
    return njit(cache=True, _nrt=False)(fn_or_signature)


class StrategyError(Fishing2simError, ValueError):
    """A strategy that cannot be found or does not follow the contract."""


@dataclass(frozen=True)
class Strategy:
    name: str
    source: str  # the file it came from
    functions: tuple  # one compiled decision function per D_* code
    defined: tuple  # names of the decisions the file defines itself
    defaults: tuple = ()  # default parameter vector (the file's PARAMS)
    param_names: tuple = ()
    observes: bool = True  # False: reads only its options (the engine skips building obs)
    digest: str = ""  # sha256 of the file and of the user's modules it imports
    strict: bool = False  # compiled with bounds checking
    search: str = ""  # a search bot (SEARCH_METHODS): the engine searches its card plays
    # and trump choices (docs/search.md); its other decisions and every seat in its
    # rollouts are its rollout strategy's
    rollout: "Strategy | None" = None
    searches: tuple = ()  # the decisions a search bot searches ("play", "trump_choice")
    scores: object = None  # the file's scores(obs, params): each option's score, shown as
    # the bot's reasons in a report's example games (None: the bot gives no scores)

    @property
    def n_params(self) -> int:
        return len(self.defaults)


