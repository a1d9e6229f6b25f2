"""The Python API: play one game with its full event log, or many games into a DataFrame.

    from fishing2sim.api import play_game, play_games
    g = play_game(players=4, seed=7)            # GameRecord, g.events is the log
    df = play_games(10_000, players=4, seed=1)  # one row per game

Public functions validate their input (a ValueError names the problem), allocate the
outputs, derive seeds, call the kernels and wrap the results.
"""
from __future__ import annotations

from fishing2sim.errors import InputError
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fishing2sim.config.deck import Deck, load_deck
from fishing2sim.engine import constants as K
from fishing2sim.engine.batch import (
    G_END, G_END_ROUND, G_ERR_CODE, G_FIRST_LEADER,
    G_PLAYS, G_ROUNDS, G_TRICKS, G_WINNERS, N_G, play_batch, rollouts,
)
from fishing2sim.engine.core import (
    ERR_EVENT_OVERFLOW, ERR_ILLEGAL_CHOICE, ERR_INVARIANT, ERR_NO_WORLD, ERR_ROLLOUT_ILLEGAL,
    run_game, setup_game,
)
from fishing2sim.engine.rng import game_seed
from fishing2sim.engine.state import (
    A_OPTIONS, A_POINTS, S_ASK_KIND, S_ASK_SEAT, S_END, S_END_ROUND, S_ERR_CHOICE, S_ERR_CODE,
    S_ERR_KIND, S_ERR_SEAT, S_EVN, S_N_OPTIONS, S_ROUND, STATE_SIZE, new_obs, new_state,
)
from fishing2sim.strategy.lineup import build_lineup, observe_mask, search_args
from fishing2sim.strategy.contract import DECISION_FUNCTIONS, StrategyFailure  # noqa: F401  (the API's name)

try:  # numba warns once per process that first-class functions are experimental
    from numba.core.errors import NumbaExperimentalFeatureWarning

    warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)
except ImportError:  # pragma: no cover
    pass

from fishing2sim.events import (END_NAMES, RULESET_NAMES, SHADE_NAMES, SUIT_NAMES,  # noqa: F401
                               decode_events)
from fishing2sim.engine.state import R_OCEAN, R_TRUMP

EVENT_CAPACITY = 16384


def check_players(players) -> int:
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
        raise InputError(f"players must be a whole number 3, 4 or 5, got {players!r}")
    if not 3 <= int(players) <= 5:
        raise InputError(f"players must be 3, 4 or 5, got {players}")
    return int(players)


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"seed must be a whole number from 0 to 2**63-1, got {seed!r}")
    if not 0 <= int(seed) < 2**63:
        raise InputError(f"seed must be from 0 to 2**63-1, got {seed}")
    return int(seed)


def check_ruleset(ruleset) -> str:
    if ruleset not in K.RULESETS:
        raise InputError(f"unknown ruleset {ruleset!r}: choose {' or '.join(RULESET_NAMES)}")
    return ruleset


def resolve_deck(ruleset: str, deck) -> Deck:
    if isinstance(deck, Deck):
        if deck.ruleset != ruleset:
            raise InputError(f"the deck is a {deck.ruleset} deck, the ruleset is {ruleset}")
        return deck
    return load_deck(deck, ruleset=ruleset)


def check_first_leader(first_leader, players: int) -> int:
    if first_leader is None:
        return -1
    if isinstance(first_leader, bool) or not isinstance(first_leader, (int, np.integer)) \
            or not 0 <= first_leader < players:
        raise InputError(f"first_leader must be a seat 0..{players - 1}, got {first_leader!r}")
    return int(first_leader)


@dataclass
class GameRecord:
    """One finished game."""

    players: int
    seed: int
    points: list[int]
    winners: list[int]
    end_reason: str  # "completed" or "overfished"
    end_round: int
    rounds_played: int
    ocean_after_draws: dict[int, int]  # round -> cards left in the ocean after its draws
    trump_choices: dict[int, str]  # round -> "light" / "dark" (original Fishing: none)
    events: list[dict] = field(default_factory=list)
    state: tuple | None = None  # (st, rng) at the end, for tests


def describe_option(option: int, deck: Deck) -> str:
    """An option (or any integer a strategy returned) in words: a card's name, a face-down
    trick card, LIGHT / DARK, a suit, else the number itself."""
    o = int(option)
    if 0 <= o < deck.n_cards:
        return deck.name(o)
    if K.OPT_FACE_DOWN <= o < K.OPT_FACE_DOWN + K.MAX_TRICK:
        return f"the face-down card at trick position {o - K.OPT_FACE_DOWN}"
    if o - K.OPT_SHADE in (K.C_LIGHT, K.C_DARK):
        return SHADE_NAMES[o - K.OPT_SHADE].upper()
    if o - K.OPT_SUIT in SUIT_NAMES:
        return SUIT_NAMES[o - K.OPT_SUIT].upper()
    return str(o)


def _who(strats, seat: int) -> tuple[str, str, str]:
    s = strats[seat] if 0 <= seat < len(strats) else None
    name = s.name if s is not None else "?"
    source = s.source if s is not None else "?"
    return name, source, f"strategy '{name}' ({source}), seat {seat}"


def _rollout_deciding(strats, seat: int, what: str, in_world: bool = False):
    """The rollout strategy that made seat ``seat``'s decision ``what`` when that seat is a
    search bot (its own file runs no code: its rollout strategy decides where it searches,
    and every seat of its searched worlds: ``in_world``), else None."""
    s = strats[seat] if 0 <= seat < len(strats) else None
    if s is None or not s.search or s.rollout is None:
        return None
    return s.rollout if in_world or what in s.searches else None


def kernel_failure(st: np.ndarray, strats, deck: Deck) -> Exception:
    """The error a game state carries (S_ERR_CODE != 0), as an exception to raise."""
    code = int(st[S_ERR_CODE])
    if code in (ERR_ILLEGAL_CHOICE, ERR_ROLLOUT_ILLEGAL):
        seat, kind, choice = int(st[S_ERR_SEAT]), int(st[S_ERR_KIND]), int(st[S_ERR_CHOICE])
        options = [int(x) for x in st[A_OPTIONS:A_OPTIONS + st[S_N_OPTIONS]]]
        name, source, who = _who(strats, seat)
        what = DECISION_FUNCTIONS[kind] if 0 <= kind < K.N_DECISIONS else str(kind)
        rollout = _rollout_deciding(strats, seat, what, code == ERR_ROLLOUT_ILLEGAL)
        if rollout is not None:  # (in the search's worlds, or in a trump-choice replay)
            name, source = rollout.name, rollout.source
            who = (f"{who}: its search's rollout strategy '{name}' ({source})"
                   + (" in a searched world" if code == ERR_ROLLOUT_ILLEGAL else ""))
        return StrategyFailure(
            f"{who}: illegal {what} decision: returned {describe_option(choice, deck)}"
            f"{'' if describe_option(choice, deck) == str(choice) else f' ({choice})'}, "
            f"not one of its options: {', '.join(describe_option(o, deck) for o in options)}",
            name, source, seat, what, choice, options)
    if code == ERR_NO_WORLD:
        return RuntimeError("a search seat's view admits no world (a bug in engine/search.py)")
    if code == ERR_INVARIANT:
        return RuntimeError("engine invariant broken (a bug): run with check=True to find it")
    if code == ERR_EVENT_OVERFLOW:
        return RuntimeError("event log overflow")
    return RuntimeError(f"engine error code {code}")


def raised_in_strategy(states, exc: BaseException, strats) -> StrategyFailure | None:
    """An exception that came out of a kernel call: if a strategy was deciding when it
    was raised (S_ASK_SEAT of one of the ``states``), the StrategyFailure naming it."""
    for st in states:
        seat = int(st[S_ASK_SEAT])
        if seat >= 0:
            kind = int(st[S_ASK_KIND])
            name, source, who = _who(strats, seat)
            what = DECISION_FUNCTIONS[kind] if 0 <= kind < K.N_DECISIONS else str(kind)
            r = _rollout_deciding(strats, seat, what)
            if r is not None:  # (in the sampled worlds): name the file that raised
                return StrategyFailure(
                    f"{who}: decision {what}: its search's rollout strategy '{r.name}' "
                    f"({r.source}) raised {type(exc).__name__}: {exc}", name, source, seat, what)
            return StrategyFailure(f"{who}: decision {what} raised {type(exc).__name__}: {exc}",
                                   name, source, seat, what)
    return None


def call_kernel(kernel, args, work, strats):
    """Call a game kernel; an exception raised inside a strategy becomes a StrategyFailure
    naming it (in the pure-Python debug mode, NUMBA_DISABLE_JIT=1, with its traceback)."""
    work[:, S_ASK_SEAT] = -1
    try:
        return kernel(*args)
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as exc:
        failure = raised_in_strategy(work, exc, strats)
        if failure is None:
            raise
        if _debug_mode():  # plain Python: the strategy's own traceback is worth showing
            import traceback

            failure.traceback = "".join(traceback.format_exception(exc))
        raise failure from None


def _debug_mode() -> bool:
    from numba.core import config

    return bool(config.DISABLE_JIT)


def new_outputs(n: int) -> tuple:
    """The per-game output arrays of play_batch / trump_batch for n games: (int, points,
    ocean, trump, round_points)."""
    R = K.MAX_ROUNDS + 1
    return (np.zeros((n, N_G), np.int64), np.zeros((n, K.MAX_PLAYERS), np.int64),
            np.zeros((n, 2 * R), np.int64), np.zeros((n, 2 * R), np.int64),
            np.zeros((n, R, K.MAX_PLAYERS), np.int64))


def new_work() -> np.ndarray:
    """The state rows a batch kernel plays in (row 0: the game, row 1: trump branches)."""
    return np.zeros((2, STATE_SIZE), np.int64)


def logged_rows(args, search, game: int, work, ev) -> np.ndarray:
    """Game ``game`` of a chunk's batch played again with the event log on (``args``:
    play_batch's arguments up to ``observe_mask``; ``search``: the lineup's search_args
    or None): its event rows, a view into ``ev`` (EVENT_CAPACITY rows)."""
    deck, players, ruleset, hands, n_rounds, first_leader, seed = args[:7]
    funcs, table, mask = args[9], args[10], args[12]
    if search is not None:
        from fishing2sim.search.kernels import play_batch_search  # (as play_game)
        play_batch_search(*args[:7], game, 1, funcs, table, 0, mask, *search, work, ev,
                          *new_outputs(1), np.zeros(3, np.int64))
    else:
        st, rng = work[0], new_state()[1]
        setup_game(st, rng, ev, deck, players, ruleset, hands, n_rounds, first_leader,
                   np.uint64(game_seed(int(seed), game)), 1, 0, mask)
        run_game(st, rng, ev, deck, new_obs(), funcs, table, K.STOP_NEVER)
    return log_rows(work, ev)


def search_games(args, search, work, strats, outputs, each=None) -> int:
    """A chunk's games with search seats (play_batch_search; ``args``: play_batch's
    arguments up to ``work``, ``outputs``: new_outputs' arrays). With ``each``, one game a
    call and ``each(rows)`` with every game's event rows (the search logs every game).
    Returns the number of games played."""
    from fishing2sim.search.kernels import play_batch_search  # (as play_game)
    ev = np.zeros((EVENT_CAPACITY, K.EV_FIELDS), np.int64)
    stats = np.zeros(3, np.int64)
    if each is None:
        return call_kernel(play_batch_search, (*args[:-1], *search, work, ev, *outputs, stats),
                           work, strats)
    start, n = args[7], args[8]
    for g in range(n):
        one = tuple(o[g:g + 1] for o in outputs)
        call_kernel(play_batch_search, (*args[:7], start + g, 1, *args[9:-1], *search, work,
                                        ev, *one, stats), work, strats)
        if one[0][0, G_ERR_CODE] != 0:
            return g + 1
        each(log_rows(work, ev))
    return n


def log_rows(work, ev) -> np.ndarray:
    """The event rows the game in ``work`` (row 0) logged into ``ev``."""
    return ev[: work[0, S_EVN]]


def checked_game(players, seed, ruleset, deck, first_leader, strategies, params,
                 strict) -> tuple:
    """The checked arguments of a game kernel (play_game, run_games): (players, seed,
    ruleset, deck, first_leader, funcs, ptable, strats, search args or None); bad input
    raises the InputError of the checker that found it."""
    players = check_players(players)
    seed = check_seed(seed)
    ruleset = check_ruleset(ruleset)
    deck = resolve_deck(ruleset, deck)
    first_leader = check_first_leader(first_leader, players)
    funcs, ptable, strats = build_lineup(strategies, players, params, strict)
    return (players, seed, ruleset, deck, first_leader, funcs, ptable, strats,
            search_args(strats, params, players))


def play_game(players: int = 4, seed: int = 0, ruleset: str = "fishing2", strategies=None,
              params=None, log: bool = True, first_leader=None, deck=None, game: int = 0,
              check: bool = False, strict: bool = False) -> GameRecord:
    """Play one game: game number ``game`` of the experiment seeded ``seed``.

    ``strategies`` is a strategy name / file for every seat or a list, one per seat
    (default: the reference random strategy). The same (seed, game) is the same game.
    ``strict``: the strategies run with bounds checking (strict mode).
    """
    (players, seed, ruleset, deck, first_leader, funcs, ptable, strats,
     search) = checked_game(players, seed, ruleset, deck, first_leader, strategies, params, strict)
    work = new_work()
    st, rng = work[0], new_state()[1]
    arrays = np.ascontiguousarray(deck.arrays)
    if search is not None:  # search seats: the search kernel plays the game (logged)
        from fishing2sim.search.kernels import play_batch_search  # (loaded only when a seat searches)
        ev = np.zeros((EVENT_CAPACITY, K.EV_FIELDS), np.int64)
        call_kernel(play_batch_search, (
            arrays, players, K.RULESETS[ruleset], np.ascontiguousarray(deck.hand_sizes[players]),
            deck.n_rounds, first_leader, seed, game, 1, funcs, ptable, int(check),
            observe_mask(strats), *search, work, ev, *new_outputs(1), np.zeros(3, np.int64)),
            work, strats)
    else:
        ev = np.zeros((EVENT_CAPACITY if log else 1, K.EV_FIELDS), np.int64)
        setup_game(st, rng, ev, arrays, players, K.RULESETS[ruleset],
                   np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, first_leader,
                   np.uint64(game_seed(seed, game)), int(log), int(check),
                   observe_mask(strats))
        call_kernel(run_game, (st, rng, ev, arrays, new_obs(), funcs, ptable, K.STOP_NEVER),
                    work, strats)
    if st[S_ERR_CODE] != 0:
        raise kernel_failure(st, strats, deck)

    pts = [int(st[A_POINTS + p]) for p in range(players)]
    best = max(pts)
    rounds_played = int(st[S_ROUND])
    events = decode_events(ev[: st[S_EVN]], deck, seed, game) if log else []
    return GameRecord(
        players=players,
        seed=seed,
        points=pts,
        winners=[p for p in range(players) if pts[p] == best],
        end_reason=END_NAMES[int(st[S_END])],
        end_round=int(st[S_END_ROUND]),
        rounds_played=rounds_played,
        ocean_after_draws={r: int(st[R_OCEAN + r]) for r in range(1, rounds_played + 1)},
        trump_choices={r: SHADE_NAMES[int(st[R_TRUMP + r])] for r in range(2, rounds_played + 1)}
        if ruleset != "fishing" else {},
        events=events,
        state=(st, rng),
    )


def play_games(n: int, players: int = 4, seed: int = 0, ruleset: str = "fishing2",
               strategies=None, params=None, first_leader=None, deck=None, start: int = 0,
               check: bool = False, strict: bool = False) -> pd.DataFrame:
    """Play games start .. start+n-1 of the experiment seeded ``seed``; one row per game.

    Columns: game, points_0.., winners (list of seats), n_winners, end_reason, end_round,
    rounds_played, first_leader, plays, tricks, ocean_r1.. (cards left after each round's
    draws, NaN for rounds not reached), ocean_end_r1.., trump_r2.. ("light" / "dark"; NaN in
    the original Fishing, which has no trump choice).
    """
    arrays = run_games(n, players, seed, ruleset, strategies, params, first_leader, deck,
                       start, check, strict)
    return games_frame(arrays, players, start)


def run_games(n, players=4, seed=0, ruleset="fishing2", strategies=None, params=None,
              first_leader=None, deck=None, start=0, check=False, strict=False) -> dict:
    """The raw per-game arrays of play_games (no DataFrame)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InputError(f"the number of games must be a whole number >= 0, got {n!r}")
    (players, seed, ruleset, deck, first_leader, funcs, ptable, strats,
     search) = checked_game(players, seed, ruleset, deck, first_leader, strategies, params, strict)
    out_int, out_points, out_ocean, out_trump, out_round_points = new_outputs(n)
    work = new_work()
    args = (np.ascontiguousarray(deck.arrays), players, K.RULESETS[ruleset],
            np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, first_leader, seed,
            start, n, funcs, ptable, int(check), observe_mask(strats))
    outs = (out_int, out_points, out_ocean, out_trump, out_round_points)
    # searched decisions, rollouts, worlds, decisions left unsearched to the student
    search_stats = np.zeros(4, np.int64)
    if search is not None:
        from fishing2sim.search.kernels import play_batch_search  # (loaded only when a seat searches)
        ev = np.zeros((EVENT_CAPACITY, K.EV_FIELDS), np.int64)
        done = call_kernel(play_batch_search, (*args, *search, work, ev, *outs, search_stats),
                           work, strats)
    else:
        done = call_kernel(play_batch, (*args, work, *outs), work, strats)
    if done and out_int[done - 1, G_ERR_CODE] != 0:
        raise kernel_failure(work[0], strats, deck)
    return {"int": out_int, "points": out_points, "ocean": out_ocean, "trump": out_trump,
            "round_points": out_round_points, "n_rounds": deck.n_rounds,
            "search": search_stats}


@dataclass
class GameState:
    """A game stopped at the end of a round (that round scored, the next one not begun),
    to play forward from with ``rollout``. It holds the engine's own arrays (the state and
    the random streams): rollouts never change them; ``copy()`` before changing one."""

    st: np.ndarray
    rng: np.ndarray
    deck: Deck
    players: int
    ruleset: str

    @property
    def round(self) -> int:
        """The rounds begun so far (= scored, unless the game ended inside one)."""
        return int(self.st[S_ROUND])

    @property
    def over(self) -> bool:
        return int(self.st[S_END]) != K.END_RUNNING

    @property
    def points(self) -> list[int]:
        return [int(self.st[A_POINTS + p]) for p in range(self.players)]

    def copy(self) -> "GameState":
        return GameState(self.st.copy(), self.rng.copy(), self.deck, self.players,
                         self.ruleset)


def game_state(players: int = 4, seed: int = 0, game: int = 0, ruleset: str = "fishing2",
               strategies=None, params=None, rounds: int = 1, first_leader=None, deck=None,
               strict: bool = False) -> GameState:
    """Game ``game`` of the experiment seeded ``seed``, played by the lineup to the end of
    round ``rounds`` (0: before the first round's draws). A game that ends before (by
    overfishing) is returned ended."""
    players = check_players(players)
    seed = check_seed(seed)
    ruleset = check_ruleset(ruleset)
    deck = resolve_deck(ruleset, deck)
    first_leader = check_first_leader(first_leader, players)
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or \
            not 0 <= rounds <= deck.n_rounds:
        raise InputError(f"rounds must be a whole number from 0 to {deck.n_rounds}, "
                         f"got {rounds!r}")
    funcs, ptable, strats = build_lineup(strategies, players, params, strict)
    work = new_work()
    st, rng = work[0], new_state()[1]
    ev = np.zeros((1, K.EV_FIELDS), np.int64)
    arrays = np.ascontiguousarray(deck.arrays)
    setup_game(st, rng, ev, arrays, players, K.RULESETS[ruleset],
               np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, first_leader,
               np.uint64(game_seed(seed, game)), 0, 0, observe_mask(strats))
    obs = new_obs()
    for _ in range(rounds):
        if st[S_END] != K.END_RUNNING:
            break
        call_kernel(run_game, (st, rng, ev, arrays, obs, funcs, ptable, K.STOP_AT_ROUND_END),
                    work, strats)
        if st[S_ERR_CODE] != 0:
            raise kernel_failure(st, strats, deck)
    return GameState(st.copy(), rng, deck, players, ruleset)


def rollout(state: GameState, n: int = 1, strategies=None, params=None, to: str = "game",
            seed: int | None = 0, strict: bool = False) -> dict:
    """Play ``n`` rollouts from ``state`` (unchanged) with the lineup ``strategies`` (any
    lineup, not only the one that played so far) to the end of the game (``to="game"``)
    or of the next round (``to="round"``).

    ``seed``: rollout i plays on fresh random streams from (seed, i), so rollouts differ
    where chance or a randomised strategy decides; None: every rollout continues on the
    game's own streams (the game's own continuation, when the lineup is the same).
    Returns {"points": (n, players) points at the end, "over": (n,) the game ended,
    "overfished": (n,) it ended by overfishing, "round": (n,) the game's end round (as
    play_games' end_round) or the round just scored}.
    """
    if not isinstance(state, GameState):
        raise InputError(f"state must be a GameState (from game_state), got {type(state)}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InputError(f"the number of rollouts must be a whole number >= 0, got {n!r}")
    stops = {"game": K.STOP_NEVER, "round": K.STOP_AT_ROUND_END}
    if to not in stops:
        raise InputError(f"to must be 'game' or 'round', got {to!r}")
    if seed is not None:
        seed = check_seed(seed)
    funcs, ptable, strats = build_lineup(strategies, state.players, params, strict)
    out_points = np.zeros((n, K.MAX_PLAYERS), np.int64)
    out_end = np.zeros((n, 2), np.int64)
    work = new_work()
    done = call_kernel(rollouts, (
        state.st, state.rng, np.ascontiguousarray(state.deck.arrays), funcs, ptable,
        observe_mask(strats), stops[to], n, -1 if seed is None else seed, work, out_points,
        out_end), work, strats)
    if done < n:
        raise kernel_failure(work[1], strats, state.deck)
    return {"points": out_points[:, :state.players], "over": out_end[:, 0] != K.END_RUNNING,
            "overfished": out_end[:, 0] == K.END_OVERFISHED, "round": out_end[:, 1]}


def games_frame(a: dict, players: int, start: int = 0) -> pd.DataFrame:
    out_int, n_rounds = a["int"], a["n_rounds"]
    n = out_int.shape[0]
    R = K.MAX_ROUNDS + 1
    cols: dict[str, object] = {"game": np.arange(start, start + n)}
    for p in range(players):
        cols[f"points_{p}"] = a["points"][:, p]
    masks = out_int[:, G_WINNERS]
    cols["winners"] = [[p for p in range(players) if m >> p & 1] for m in masks.tolist()]
    cols["n_winners"] = np.array([bin(m).count("1") for m in masks.tolist()], np.int64)
    cols["end_reason"] = pd.Categorical.from_codes(
        (out_int[:, G_END] == K.END_OVERFISHED).astype(np.int8), dtype=_END_REASONS)
    cols["end_round"] = out_int[:, G_END_ROUND]
    cols["rounds_played"] = out_int[:, G_ROUNDS]
    cols["first_leader"] = out_int[:, G_FIRST_LEADER]
    cols["plays"] = out_int[:, G_PLAYS]
    cols["tricks"] = out_int[:, G_TRICKS]
    played = out_int[:, G_ROUNDS][:, None]
    rounds = np.arange(1, n_rounds + 1)[None, :]
    reached = rounds <= played
    ocean = np.where(reached, a["ocean"][:, 1:n_rounds + 1], -1).astype(float)
    ocean[~reached] = np.nan
    ocean_end = np.where(reached, a["ocean"][:, R + 1:R + n_rounds + 1], -1).astype(float)
    ocean_end[~reached] = np.nan
    for r in range(1, n_rounds + 1):
        cols[f"ocean_r{r}"] = ocean[:, r - 1]
    for r in range(1, n_rounds + 1):
        cols[f"ocean_end_r{r}"] = ocean_end[:, r - 1]
    trump = a["trump"][:, :R]
    for r in range(2, n_rounds + 1):
        t = trump[:, r]
        chosen = reached[:, r - 1] & ((t == K.C_LIGHT) | (t == K.C_DARK))  # Fishing: never
        cols[f"trump_r{r}"] = pd.Categorical.from_codes(
            np.where(chosen, (t == K.C_DARK).astype(np.int8), -1), dtype=_SHADES)
    return pd.DataFrame(cols, copy=False)


_END_REASONS = pd.CategoricalDtype(["completed", "overfished"])
_SHADES = pd.CategoricalDtype(["light", "dark"])
