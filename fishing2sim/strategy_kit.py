"""The kit's former name: strategy files that import ``fishing2sim.strategy_kit``
keep working. New files import ``fishing2sim.strategy.kit``."""
from fishing2sim.strategy.kit import *  # noqa: F401,F403
