"""weights_tuned: the ``weights`` bot with a parameter vector tuned by ``fishing2sim tune``.

It makes exactly the decisions of ``strategies/weights.py`` (imported from it); only its
default parameter vector ``PARAMS`` differs. The vector was found by

    fishing2sim tune experiments/tune_weights.yaml

(CMA-ES over the 21 weights, each within +-1 of the ``weights`` default; every trial a
seat-rotated 4-player tournament against three untuned ``weights`` bots; the best trials
re-run on a fresh seed with more games). It has its own NAME, so a lineup can hold it next to
the untuned ``weights`` and the report tells them apart. The measured win shares are in
README.md ("Tuning").
"""
from .weights import (  # noqa: F401  (the decisions of the weights bot)
    FALLBACK,
    PARAM_NAMES,
    determine_trump,
    play,
    trump_choice,
)

NAME = "weights_tuned"
OBSERVES = True
PARAMS = (-0.0203, 2.8095, -2.0659, -1.089, -1.3095, -0.2137, 0.2891, 0.2709, 1.1721, -0.3813,
          1.7697, 0.508, 1.0618, 0.9111, -0.8062, -1.7354, 9.7449, 0.3503, 0.1892, 0.6706,
          0.7036)
