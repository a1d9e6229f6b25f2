"""numba types of the kernels' arguments, for explicit signatures.

numba compiles a kernel once per distinct argument type, and a constant argument in a call
from another kernel (``log_event(st, ev, EV_PLAY, p, card, 0, 0, 0)``) has its own literal
type: without a signature every such call compiles a copy of the callee (log_event was
compiled 44 times, ask and fill_obs 10 times each, which was a third of the cold compile).
A kernel that is called with constants gets one of the signatures built from these types;
the constants are then converted to int64 and the kernel compiles once.
"""
from numba import types

from fishing2sim.engine.constants import MAX_PLAYERS, N_DECISIONS

i64 = types.int64
b1 = types.boolean
void = types.void
ST = types.Array(types.int64, 1, "C")  # the state, one seat's observation
OBS = types.Array(types.int64, 2, "C")  # the observation buffers, a row per seat
RNG = types.Array(types.uint64, 1, "C")
EV = types.Array(types.int64, 2, "C")  # the event buffer
DECK = types.Array(types.int64, 2, "C", readonly=True)
HAND_SIZES = types.Array(types.int64, 1, "C", readonly=True)
PARAMS = types.Array(types.float64, 2, "C")
DECISION = types.FunctionType(i64(ST, types.Array(types.float64, 1, "C"), RNG))
STRATS = types.UniTuple(types.UniTuple(DECISION, MAX_PLAYERS), N_DECISIONS)
