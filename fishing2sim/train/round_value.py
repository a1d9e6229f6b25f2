"""Fitting the learned end-of-round value of search horizon 2
(fishing2sim/search/round_value.py; docs/search.md, "A learned end-of-round value").

Games are played by one strategy in every seat (the search's rollout strategy,
``weights`` by default). At every round's end that leaves rounds to play, each seat's
features (:func:`~fishing2sim.search.round_value.round_end_features`) are recorded with
the change of that seat's points margin (its points less the best other seat's) from then
to the game's end. A least-squares fit per ruleset, player count and number of rounds
still to play (ridge, :data:`RIDGE`) gives the coefficient table.

    python -m fishing2sim.train.round_value [--games N] [--seed S] [--out FILE]

writes the table to ``fishing2sim/data/round_value.npz`` (the shipped file's command is in
docs/search.md).
"""
from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from fishing2sim import api
from fishing2sim.engine import constants as K
from fishing2sim.engine.batch import new_buffers
from fishing2sim.errors import Fishing2simError
from fishing2sim.safe_files import write_atomic
from fishing2sim.strategy.contract import StrategyError
from fishing2sim.strategy.lineup import build_lineup, observe_mask
from fishing2sim.engine.constants import END_RUNNING, EV_FIELDS, STOP_AT_ROUND_END
from fishing2sim.engine.core import best_points, run_game, setup_game
from fishing2sim.engine.rng import game_seed
from fishing2sim.engine.state import (
    A_POINTS, RNG_SIZE, S_END, S_ERR_CODE, S_N_ROUNDS, S_ROUND,
)
from fishing2sim.search.round_value import (
    N_RV, N_RV_LEFT, RV_FILE, RV_NAMES, RV_SHAPE, RV_VERSION,
    round_end_features,
)

RIDGE = 1e-3  # added to the diagonal of X'X / rows
# the conditions the shipped table is fitted on: (ruleset, players)
CONDITIONS = (("fishing2", 3), ("fishing2", 4), ("fishing2", 5), ("fishing", 4))


@njit(cache=True)
def collect(deck, players, ruleset, hand_sizes, n_rounds, seed, n, strats, params,
            observe_mask, work, X, rows):
    """Play games 0 .. n-1 of ``seed``; at each round's end with rounds still to play,
    write every seat's features into X[k, :N_RV] and (rounds left, margin change to the
    game's end, seat, game) into rows[k]. Returns the number of rows written (-1 on a strategy
    error)."""
    st = work[0]
    rng = np.zeros(RNG_SIZE, np.uint64)
    ev = np.zeros((1, EV_FIELDS), np.int64)
    obs = new_buffers()
    k = 0
    margin_at = np.zeros(X.shape[0])
    for g in range(n):
        setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, -1,
                   game_seed(seed, g), 0, 0, observe_mask)
        first = k
        while True:
            run_game(st, rng, ev, deck, obs, strats, params, STOP_AT_ROUND_END)
            if st[S_ERR_CODE] != 0:
                return -1
            if st[S_END] != END_RUNNING:
                break
            for s in range(players):
                if k >= X.shape[0]:
                    break
                if round_end_features(st, s, X[k]):
                    rows[k, 0] = st[S_N_ROUNDS] - st[S_ROUND]
                    margin_at[k] = st[A_POINTS + s] - best_points(st, players, s)
                    rows[k, 2] = s
                    rows[k, 3] = g
                    k += 1
        for j in range(first, k):
            s = rows[j, 2]
            rows[j, 1] = st[A_POINTS + s] - best_points(st, players, s) - margin_at[j]
        if k >= X.shape[0]:
            break
    return k


def play_rows(ruleset: str, players: int, games: int, seed: int, strategy="weights"):
    """(features [rows, N_RV], rounds left, margin change, game [rows]) of ``games``
    games of ``strategy`` in every seat."""
    deck = api.resolve_deck(ruleset, None)
    funcs, ptable, strats = build_lineup(strategy, players)
    if strats[0].search:
        raise StrategyError(f"strategy '{strategy}' is a search bot; the table is fitted on "
                            "the games of a rollout strategy (a bot that does not search)")
    cap = games * players * (deck.n_rounds - 1)
    X = np.zeros((cap, N_RV))
    rows = np.zeros((cap, 4), np.int64)
    k = collect(np.ascontiguousarray(deck.arrays), players, K.RULESETS[ruleset],
                np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, seed, games,
                funcs, ptable, observe_mask(strats), api.new_work(), X, rows)
    if k < 0:
        raise RuntimeError(f"{strategy}: a strategy error while playing")
    return X[:k], rows[:k, 0], rows[:k, 1].astype(np.float64), rows[:k, 3]


def fit(X: np.ndarray, y: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """Least squares with a small ridge (not on the bias)."""
    n = max(1, len(y))
    a = X.T @ X / n
    reg = np.full(X.shape[1], ridge)
    reg[0] = 0.0
    a[np.diag_indices_from(a)] += reg
    return np.linalg.solve(a, X.T @ y / n)


def fit_table(games: int, seed: int, strategy="weights", conditions=CONDITIONS,
              held_out: int = 10, log=print):
    """The coefficient table, and per condition and rounds left: rows, the variance of the
    margin change and the fit's share of it on held-out games (every ``held_out``-th
    game's rows are not fitted)."""
    table = np.zeros(RV_SHAPE)
    report = []
    for ruleset, players in conditions:
        t0 = time.perf_counter()
        X, left, y, game = play_rows(ruleset, players, games, seed, strategy)
        hold = game % held_out == 0
        for r in range(1, N_RV_LEFT):
            m = left == r
            if m.sum() < 2 * N_RV:
                continue
            fit_m = m & ~hold
            coef = fit(X[fit_m], y[fit_m])
            table[K.RULESETS[ruleset], players, r] = coef
            test = m & hold
            resid = y[test] - X[test] @ coef
            var = float(np.var(y[test])) if test.any() else float("nan")
            r2 = 1.0 - float(np.var(resid)) / var if var > 0 else float("nan")
            report.append((ruleset, players, r, int(m.sum()), var, r2))
        log(f"{ruleset} {players} players: {len(y):,} rows of {games:,} games "
            f"({time.perf_counter() - t0:.1f} s)")
    return table, report


def save(table: np.ndarray, path: Path, games: int, seed: int, strategy: str) -> None:
    buf = io.BytesIO()
    np.savez(buf, version=np.int64(RV_VERSION), coef=table, names=np.array(RV_NAMES),
             games=np.int64(games), seed=np.int64(seed), strategy=np.array(strategy))
    write_atomic(path, buf.getvalue())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--strategy", default="weights")
    ap.add_argument("--out", type=Path, default=RV_FILE)
    a = ap.parse_args(argv)
    if a.games < 100:
        ap.error(f"--games must be at least 100, got {a.games}")
    if a.seed < 0:
        ap.error(f"--seed must be >= 0, got {a.seed}")
    if a.strategy != "weights":
        print(f"note: the search's rollouts play their bot's ROLLOUT; this table is fitted "
              f"on {a.strategy}'s games")
    t0 = time.perf_counter()
    try:
        table, report = fit_table(a.games, a.seed, a.strategy)
    except Fishing2simError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    for ruleset, players, r, n, var, r2 in report:
        print(f"{ruleset:9s} {players}p rounds left {r}: {n:8,} rows, variance {var:7.1f}, "
              f"held-out R^2 {r2:.3f}")
    save(table, a.out, a.games, a.seed, a.strategy)
    print(f"wrote {a.out} ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
