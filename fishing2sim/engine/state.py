"""The layout of a game state: one int64 array plus one uint64 RNG array.

Copying both arrays copies the game exactly (hands, boats, fishers, ocean order, trick,
points, phase and every random stream), which is what paired counterfactual replays need.
Offsets are module constants (engine/layout.py): numba freezes them into the kernels.
"""
import numpy as np

from fishing2sim.engine.constants import (MAX_CARDS, MAX_HAND, MAX_PLAYERS, MAX_ROUNDS, MAX_TRICK,
                                         N_DECISIONS, OBS_SIZE)
from fishing2sim.engine.layout import Layout

_STATE = Layout("the game state")
_field = _STATE.field


# scalars
S_PLAYERS = _field("players")
S_RULESET = _field("ruleset")
S_N_ROUNDS = _field("n_rounds")
S_ROUND = _field("round")  # 1-based; 0 before the first round
S_PHASE = _field("phase")
S_TRUMP = _field("trump")  # active shade, C_NONE in round 1; Fishing: always C_GREEN
S_LEADER = _field("leader")  # leader of the current trick
S_TRICK_NO = _field("trick_no")  # 1-based trick number in the round
S_TRICK_N = _field("trick_n")  # items in the trick (plays, then face-down cards)
S_PLAYS_N = _field("plays_n")  # cards played in the current trick
S_IN_TRICK = _field("in_trick")  # 1 from a trick's start to its end
S_LED = _field("led")
S_OCEAN_TOP = _field("ocean_top")  # index of the ocean's top card in A_OCEAN
S_OCEAN_LEN = _field("ocean_len")
S_END = _field("end")  # END_* code
S_END_ROUND = _field("end_round")
S_N_CARDS = _field("n_cards")
S_FIRST_LEADER = _field("first_leader")
S_DET_TRUMP = _field("det_trump")  # shade chosen by determine-trump this trick, or -1
S_LOG = _field("log")  # 1: write the event log
S_CHECK = _field("check")  # 1: check the invariants after every step
S_EVN = _field("evn")  # events written
S_ERR_SEAT = _field("err_seat")
S_ERR_KIND = _field("err_kind")
S_ERR_CHOICE = _field("err_choice")
S_ERR_CODE = _field("err_code")
S_N_PLAYS = _field("n_plays")  # card plays in the game (a statistic)
S_N_TRICKS = _field("n_tricks")
# the decision in progress (-1: none), so an exception raised inside a strategy can be
# pinned on its seat and decision
S_ASK_SEAT = _field("ask_seat")
S_ASK_KIND = _field("ask_kind")
S_N_OPTIONS = _field("n_options")  # the options of the current decision, at A_OPTIONS
S_OBSERVE_MASK = _field("observe_mask")  # bit p: seat p's strategy reads the observation
# search seats (engine/search.py): bit MAX_PLAYERS * kind + p: seat p's decisions of that
# kind are made by a search, so the engine pauses there (st[S_END] = END_PAUSED) and the
# search kernel answers through S_FORCED (the choice + 1; 0: none) before it resumes
S_SEARCH_MASK = _field("search_mask")
S_FORCED = _field("forced")
# the end of a trick in progress, so that a game paused at a decision there resumes where
# it stopped: 1 once the trick's result is judged and logged; the next effect to resolve
# (index in the trick); the step inside it (catch-1-card, pass-1-left: the player's turn;
# exchange: 1 once the card is taken); the card taken; Fishing's next-trick effects so far
S_FIN_ON = _field("fin_on")
S_FIN_B = _field("fin_b")
S_FIN_K = _field("fin_k")
S_FIN_TAKEN = _field("fin_taken")
S_FIN_LEADER = _field("fin_leader")
S_FIN_LOW = _field("fin_low")
S_FIN_NAMED = _field("fin_named")
S_FIN_NAMER = _field("fin_namer")
# Fishing (docs/rules.md B4): the current trick's next-trick effects, set at the end of the
# previous trick (play-first sets S_LEADER directly)
S_LOWEST_WINS = _field("lowest_wins")  # 1: the lowest card wins this trick
S_NAMED_SUIT = _field("named_suit")  # determine-colour's suit (green: SUIT_TRUMP), or SUIT_NONE
S_NAMER = _field("namer")  # the player who named it, or -1
# per-player
A_POINTS = _field("points", MAX_PLAYERS)
A_BONUS = _field("bonus", MAX_PLAYERS)  # +3 (and Fishing's minus-3: -3) points
A_SCORED = _field("scored", MAX_PLAYERS)  # fisher cards scored at round ends
A_HAND_N = _field("hand_n", MAX_PLAYERS)
A_HAND = _field("hand", MAX_PLAYERS * MAX_HAND)
A_BOAT_HEAD = _field("boat_head", MAX_PLAYERS)
A_BOAT_N = _field("boat_n", MAX_PLAYERS)
A_BOAT = _field("boat", MAX_PLAYERS * MAX_CARDS)  # circular queue per player
A_FISHER_N = _field("fisher_n", MAX_PLAYERS)
A_FISHER = _field("fisher", MAX_PLAYERS * MAX_CARDS)
A_LAST_ORDER = _field("last_order", MAX_PLAYERS)  # play order of the last finished trick
A_HAND_SIZES = _field("hand_sizes", MAX_ROUNDS + 1)  # index = round
# the deck's columns, copied at setup so the kernels need no deck argument
A_KIND = _field("kind", MAX_CARDS)
A_COLOUR = _field("colour", MAX_CARDS)
A_VALUE = _field("value", MAX_CARDS)
A_EFFECT = _field("effect", MAX_CARDS)
A_SUIT = _field("suit", 3 * MAX_CARDS)  # a card's suit in a trick: [no trump, light, dark]
# (Fishing: green is SUIT_TRUMP in all three rows)
S_SUIT_BASE = _field("suit_base")  # A_SUIT + MAX_CARDS * (index of the active trump)
# ocean and trick
A_OCEAN = _field("ocean", MAX_CARDS)
A_TRICK_CARD = _field("trick_card", MAX_TRICK)
A_TRICK_PLAYER = _field("trick_player", MAX_TRICK)
A_TRICK_IN = _field("trick_in", MAX_TRICK)  # 1 while still in the trick
A_TRICK_FD = _field("trick_fd", MAX_TRICK)  # 1: face down (exchange-1-card)
A_PLAYED = _field("played", MAX_CARDS)  # cards played this round, in order (public)
A_PLAYED_BY = _field("played_by", MAX_CARDS)
S_PLAYED_N = _field("played_n")
# per-round records (index = round)
R_OCEAN = _field("r_ocean", MAX_ROUNDS + 1)  # ocean size after the round's draws
R_OCEAN_END = _field("r_ocean_end", MAX_ROUNDS + 1)  # ocean size at the round's end
R_TRUMP = _field("r_trump", MAX_ROUNDS + 1)  # trump choice (A10.3)
R_CHOOSER = _field("r_chooser", MAX_ROUNDS + 1)
R_POINTS = _field("r_points", (MAX_ROUNDS + 1) * MAX_PLAYERS)  # points after the round

# the options of the current decision as the engine computed them: a strategy gets a copy
# in its observation and its choice is checked against these (no strategy can write here)
A_OPTIONS = _field("options", MAX_HAND)
A_OPT_AT = _field("opt_at", MAX_HAND)  # a card play's options: the hand position of each
A_OBS_PLAYED = _field("obs_played", MAX_PLAYERS)  # how much of the played list seat p's
# observation buffer holds
A_SCRATCH = _field("scratch", MAX_CARDS)  # work space of a kernel call (no allocation)
S_DECK_SET = _field("deck_set")  # 1: the deck's block (A_KIND .. DECK_BLOCK_END) is filled
# the decision stakes' sampling (engine/decisions.py; 0 in every other game): S_DEC_ON 1
# while the game samples its decisions (st[S_FORCED] is then -1 between decisions); the
# draws made; the game's seed (its 64 bits); the sampled decision's subject (a buoy card,
# or -1); per decision kind its sampling rate (a share of 2**32) and the decisions with a
# choice of that kind still to pass before the next one sampled (-1: none is sampled)
S_DEC_ON = _field("dec_on")
S_DEC_N = _field("dec_n")
S_DEC_SEED = _field("dec_seed")
S_DEC_SUBJECT = _field("dec_subject")
A_DEC_RATE = _field("dec_rate", N_DECISIONS)
A_DEC_NEXT = _field("dec_next", N_DECISIONS)
DECK_BLOCK_END = A_SUIT + 3 * MAX_CARDS  # the deck's block, kept between games of a batch
# per card, for the per-card figures (docs/rules.md E, "Per-card impact"): 1 + the seat that
# drew it from the ocean, and 1 + the seat on whose fisher it first landed (0: none yet)
A_DRAWN_BY = _field("drawn_by", MAX_CARDS)
A_CAUGHT_BY = _field("caught_by", MAX_CARDS)
# public card places (docs/rules.md C, "Public card places"): per card, 1 + the player it was
# last seen going to (caught face up, or taken by exchange-1-card; 0: none), the part of
# that player's boat it went into (their boat's pushed count before and after that
# round's fisher went under it; -1, -1: straight into the hand), 1 once a hidden move of
# that player (a card put face down, moved by catch-1-card, passed) may have moved it,
# and 1 while the card itself lies face down or was moved unseen to a fisher this round.
# Per player the cards ever put under the boat (drawn: that less the boat's size); a stamp that changes
# whenever any of this does (an observation buffer copies the places again only then).
A_PUB = _field("pub", MAX_CARDS)
A_PUB_LO = _field("pub_lo", MAX_CARDS)
A_PUB_HI = _field("pub_hi", MAX_CARDS)
A_PUB_DOUBT = _field("pub_doubt", MAX_CARDS)
A_FD_CARD = _field("fd_card", MAX_CARDS)
A_TIER_LO = _field("tier_lo", MAX_CARDS)  # an ocean card: 1 + where its star tier starts
# in the ocean's stack (public: tier 1 on top, tier sizes known); 0: a starting card; -1:
# not in this game
A_PUSHED = _field("pushed", MAX_PLAYERS)
S_PUB_STAMP = _field("pub_stamp")

STATE_SIZE = _STATE.size
LAYOUT = dict(_STATE.fields)
RNG_SIZE = MAX_PLAYERS + 1  # [0]: the game's stream (shuffles); [1 + seat]: seat's decisions

PH_ROUND_START = 0  # before the round's draws
PH_TRUMP = 1  # drawn; the leader is about to choose the trump (A10.3)
PH_TRICKS = 2  # playing tricks
PH_OVER = 3


def new_state():
    return np.zeros(STATE_SIZE, np.int64), np.zeros(RNG_SIZE, np.uint64)


def new_obs():
    """The observation buffers: row p is seat p's own (only the engine and seat p write
    it); the last row stays empty, so a read just past the last seat's row finds nothing."""
    return np.zeros((MAX_PLAYERS + 1, OBS_SIZE), np.int64)
