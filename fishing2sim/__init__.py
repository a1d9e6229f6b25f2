"""fishing2sim: a Monte Carlo simulator for the card game Fishing 2 (and the original Fishing).

Rules: ``docs/rules.md``; deck data: ``fishing2sim/data/decks/``. Submodules are imported on demand
(``fishing2sim.config.deck``, ``fishing2sim.api``, ``fishing2sim.cli``, ``fishing2sim.engine``).
"""

__version__ = "0.1.0"
