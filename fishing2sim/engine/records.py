"""The fixed records the batch kernels fill, one row per game (G_*), per trump choice
(T_*), per listed card (C_*) and per sampled decision (X_*), laid out by engine/layout.py.

Kept apart from the kernels (engine/batch.py, engine/card_impact.py, engine/decisions.py),
which import them: the run's totals (fishing2sim/run/) read these records by name, and the
analysis, which imports the totals' names, loads no numba.
"""
from fishing2sim.engine.constants import MAX_PLAYERS
from fishing2sim.engine.layout import Layout

# columns of the per-game integer output [game, G_*]
_GAME = Layout("the per-game record")
G_END = _GAME.field("end")  # END_* code
G_END_ROUND = _GAME.field("end_round")  # overfishing at a round's start: that round; else the
# last round played
G_ROUNDS = _GAME.field("rounds")  # rounds started
G_WINNERS = _GAME.field("winners")  # bitmask of seats sharing the win
G_FIRST_LEADER = _GAME.field("first_leader")
G_PLAYS = _GAME.field("plays")
G_TRICKS = _GAME.field("tricks")
G_ERR_CODE = _GAME.field("err_code")
G_ERR_SEAT = _GAME.field("err_seat")
G_ERR_KIND = _GAME.field("err_kind")
G_ERR_CHOICE = _GAME.field("err_choice")
G_OCEAN_DRAWN = _GAME.field("ocean_drawn")  # cards drawn from the ocean in the whole game
G_MAX_TIER = _GAME.field("max_tier")  # the highest star tier a card was drawn from (0: none)
N_G = _GAME.size
GAME_LAYOUT = dict(_GAME.fields)

# columns of the per-choice trump output [game, round, T_*]
_PAIR = Layout("the trump-pair record")
T_CHOOSER = _PAIR.field("chooser")  # -1: no choice analysed in this round
T_CHOICE = _PAIR.field("choice")
T_D1_POINTS = _PAIR.field("d1_points")  # pair 1: chooser's points after light minus after dark
T_D2_POINTS = _PAIR.field("d2_points")  # pair 2 (fresh streams)
T_D1_WIN = _PAIR.field("d1_win")  # the same in win share (60ths)
T_D2_WIN = _PAIR.field("d2_win")
N_T = _PAIR.size
PAIR_LAYOUT = dict(_PAIR.fields)

# columns of the per-card output [game, card, C_*]
_CARD = Layout("the per-card record")
C_DRAWER = _CARD.field("drawer")  # standard-deck game: the seat that drew the card from the
# ocean (-1: nobody)
C_CATCHER = _CARD.field("catcher")  # standard-deck game: the seat on whose fisher it first
# landed (-1: nobody)
C_END = _CARD.field("end")  # the game without the card: END_* code
C_ROUNDS = _CARD.field("rounds")  # the game without the card: rounds started
C_POINTS = _CARD.field("points", MAX_PLAYERS)  # the game without the card: each seat's points
N_C = _CARD.size
CARD_LAYOUT = dict(_CARD.fields)

# columns of the per-decision output [game, i, X_*] (i < MAX_SAMPLED per game)
_DEC = Layout("the decision-replay record")
X_KIND = _DEC.field("kind")  # D_* code; -1: no row
X_SEAT = _DEC.field("seat")
X_N_OPT = _DEC.field("n_opt")
X_D1_POINTS = _DEC.field("d1_points")  # pair 1: the seat's points after a minus after b
X_D2_POINTS = _DEC.field("d2_points")  # pair 2 (fresh streams)
X_D1_WIN = _DEC.field("d1_win")  # the same in win share (60ths)
X_D2_WIN = _DEC.field("d2_win")
X_G_POINTS = _DEC.field("g_points")  # the game's own result (choice c) minus a's, pair 1
X_G_WIN = _DEC.field("g_win")
X_A_POINTS = _DEC.field("a_points")  # (a's result on pair 1, kept until the game ends)
X_A_WIN = _DEC.field("a_win")
N_X = _DEC.size
DECISION_LAYOUT = dict(_DEC.fields)
MAX_SAMPLED = 16  # decisions replayed per game at most (more are counted as left out)
