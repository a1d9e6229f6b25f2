"""The student's strength: seat-rotated win shares on paired deals (every rotation plays
the same game seeds), with Wilson 95% intervals, as benchmarks/bench_strategies.py counts
them (a win shared by k players counts 1/k)."""
from __future__ import annotations

import math

import numpy as np

from fishing2sim.api import run_games

G_WINNERS = 3  # run_games' "int" column: bitmask of the seats sharing the win


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n <= 0:
        return 0.0, 1.0
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / d
    return centre - half, centre + half


def _shares(masks, seats):
    k = np.array([bin(int(m)).count("1") for m in masks], np.float64)
    got = np.zeros(len(masks))
    for s in seats:
        got += ((masks >> s) & 1) / k
    return got


def seat_lineup(bot, opponents, seat: int, players: int) -> list:
    """``bot`` in ``seat``, the ``opponents`` clockwise after it (repeated if fewer)."""
    lineup = [bot] * players
    for k in range(1, players):
        lineup[(seat + k) % players] = opponents[(k - 1) % len(opponents)]
    return lineup


def rotated_games(bot, opponents, deals: int, players: int = 4, seed: int = 1,
                  ruleset: str = "fishing2") -> np.ndarray:
    """The share of each game that one ``bot`` seat wins against ``opponents`` (clockwise
    from it), ``deals`` deals played from every seat: [players * deals], seat by seat (the
    same deals in every seat's block, so two bots' arrays are paired game for game)."""
    out = []
    for seat in range(players):
        lineup = seat_lineup(bot, opponents, seat, players)
        a = run_games(deals, players, seed=seed, ruleset=ruleset, strategies=lineup)
        out.append(_shares(a["int"][:, G_WINNERS], [seat]))
    return np.concatenate(out)


def rotated_share(bot, opponents, deals: int, players: int = 4, seed: int = 1,
                  ruleset: str = "fishing2"):
    """Win share of one ``bot`` seat against ``opponents`` (clockwise from it), over
    ``deals`` deals played from every seat: (share, games, lo, hi)."""
    g = rotated_games(bot, opponents, deals, players, seed, ruleset)
    share = rotated_mean(g, players)
    return (share, len(g), *wilson(share, len(g)))


def rotated_mean(g, players: int = 4) -> float:
    """The mean of rotated_games' shares, summed seat by seat (as they always were): every
    report of the same games gives the same figure to the last digit."""
    total = 0.0
    for block in np.split(g, players):
        total += float(block.sum())
    return total / len(g)


def pair_share(a_bot, b_bot, deals: int, seed: int = 1, ruleset: str = "fishing2"):
    """[A, A, B, B] seat-rotated (4 players): the share of games A's two seats win (a win
    shared between an A and a B seat counts by its share): (share, games, lo, hi)."""
    total = 0.0
    for r in range(4):
        lineup = [a_bot if (i - r) % 4 < 2 else b_bot for i in range(4)]
        seats = [i for i in range(4) if lineup[i] == a_bot]
        a = run_games(deals, 4, seed=seed, ruleset=ruleset, strategies=lineup)
        total += float(_shares(a["int"][:, G_WINNERS], seats).sum())
    n = deals * 4
    return (total / n, n, *wilson(total / n, n))
