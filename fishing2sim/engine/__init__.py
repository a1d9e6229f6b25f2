"""The numba kernels: game state, rules (RULES.md A), batches of games."""
