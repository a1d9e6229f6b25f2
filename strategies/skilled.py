"""skilled: a fast policy distilled from search (fishing2sim/train).

Every decision of both rulesets -- card plays, the trump choice, determine-trump, the
buoys' catch-1-other and catch-1-card, exchange-1-card's take and give, and the original
Fishing's zero-catch, pass-1-left and determine-colour -- takes the option with the highest
score: a linear score ``w . features(option)`` (fishing2sim/student/features.py: the card's
strength now and later, its worth on the boat, trump, blowfish, buoy effects, how it
stands in the trick, the boss of its suit, what a lead leaves in other hands and in its
own, the shade's trump cards in hand, ...) plus a
hidden layer of 32 ReLU units over the same features (train/net.py). The weights (a linear
block and an output row per ruleset and decision kind, the hidden layer shared) were
fitted in self-play positions (expert iteration; ``fishing2sim train
experiments/train/skilled_policy.yaml``) to the mean score of three students, each taught
by a search's option values (pimc to the end of the round, ismcts, and pimc to the end of
the game: the training file's distill step), then Fishing 2's card plays tuned on the win
share itself (evolution strategies: the training file's es step), and are the parameter
vector, read from the model file MODEL (fishing2sim/data) whose sha256 this file pins: a different or damaged model file is refused with one line. It
reads only the observation and draws nothing from its random stream.
"""
import numpy as np

from fishing2sim.engine.constants import MAX_HAND, O_N_OPTIONS
from fishing2sim.student.decisions import (  # noqa: F401  (the student's decisions)
    catch_1_card, catch_1_other, determine_colour, determine_trump, exchange_give,
    exchange_take, pass_1_left, play, trump_choice, zero_catch,
)
from fishing2sim.student.features import features_batch
from fishing2sim.student.layout import N_FEATURES
from fishing2sim.student.model import load_params
from fishing2sim.student.scores import scores as _net_scores

NAME = "skilled"
OBSERVES = True
MODEL = "skilled.npz"
MODEL_SHA256 = "281c5012d52c24d8ae7b2d51dadfca5bc1608243bb191de2b23e60cd6238a6a2"
PARAMS = load_params(MODEL, MODEL_SHA256, __file__)


def scores(obs, params):
    """The score of each option of the decision in ``obs`` (the bots' reasons in a
    report's example games, docs/reference.md): the same linear-plus-hidden-layer score
    the decisions maximise, in float64 (student/scores.py)."""
    n = int(min(max(obs[O_N_OPTIONS], 0), MAX_HAND))
    X = np.zeros((1, MAX_HAND, N_FEATURES), np.float64)
    blocks = np.zeros(1, np.int64)
    features_batch(np.ascontiguousarray(obs[None]), X, blocks)
    return [float(v) for v in _net_scores(X[:, :max(n, 1)], blocks,
                                         np.asarray(params, np.float64))[0, :n]]
