"""Explicit random streams: SplitMix64 over a uint64 state cell.

Each game's streams derive from (experiment seed, game index) only, so results never depend
on the number of workers. ``rand_below`` uses the top 32 bits times n (bias < n / 2**32).
Each function has its signature, so that numba compiles it once (see sigs.py).
"""
import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
S32 = np.uint64(32)


@njit("uint64(uint64)", cache=True)
def mix64(z):
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@njit("uint64(uint64[::1], int64)", cache=True)
def next_u64(rng, i):
    s = rng[i] + GOLDEN
    rng[i] = s
    return mix64(s)


@njit("int64(uint64, int64)", cache=True)
def scaled_below(x, n):
    """A draw x (mixed 64 bits) as an integer in [0, n): its top 32 bits times n."""
    return np.int64(((x >> S32) * np.uint64(n)) >> S32)


@njit("int64(uint64[::1], int64, int64)", cache=True)
def rand_below(rng, i, n):
    """Uniform integer in [0, n) from stream i."""
    return scaled_below(next_u64(rng, i), n)


@njit("uint64(int64, int64)", cache=True)
def game_seed(seed, game):
    """The seed of game ``game`` of an experiment seeded with ``seed``."""
    return mix64(mix64(np.uint64(seed) + GOLDEN) ^ (np.uint64(game) * M2 + GOLDEN))


@njit("void(uint64[::1], uint64)", cache=True)
def seed_streams(rng, gseed):
    for i in range(rng.shape[0]):
        rng[i] = mix64(gseed + np.uint64(i + 1) * M1)
