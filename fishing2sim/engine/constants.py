"""Integer codes shared by the deck table, the kernels, the event log and the strategies.

A card is a small int: its row in the deck table (docs/rules.md A1 / B1). Its properties live in
parallel columns of the deck array ``deck[card, F_*]`` built once from the deck CSV.
These codes are the vocabulary of the whole package; nothing else hard-codes a number.
"""
from fishing2sim.engine.layout import Layout

# ---- rulesets ------------------------------------------------------------------------
RS_FISHING2 = 0  # docs/rules.md A
RS_FISHING = 1  # docs/rules.md B
RULESETS = {"fishing2": RS_FISHING2, "fishing": RS_FISHING}

# ---- deck columns (deck is an int64 array [n_cards, N_FIELDS]) -------------------------
F_KIND = 0
F_COLOUR = 1
F_VALUE = 2
F_EFFECT = 3
F_TIER = 4  # 0 = starting card, 1..5 = ocean star tier
F_MIN_PLAYERS = 5  # the card is used only when players >= this (the "4+" mark -> 4)
N_FIELDS = 6
# A deck that differs from its ruleset's standard deck carries the coupled deal's data in
# columns after N_FIELDS (config/deck.py, coupled_arrays; docs/rules.md, "Coupled
# deals"); the standard deck has none. F_STD: the card's id in the standard deck (-1: the
# standard deck has no such card); F_STD_N: the standard deck's card count (every row);
# from F_STD_TABLE on: the standard deck's cards, card j at row j % n_cards, column
# F_STD_TABLE + j // n_cards, as tier | min_players << 4 | (its id in this deck + 1) << 8.
F_STD = 6
F_STD_N = 7
F_STD_TABLE = 8

# ---- card kinds ----------------------------------------------------------------------
K_COLOUR = 0  # an ordinary colour card (blue, yellow, red; Fishing: purple too, zeros)
K_GREEN = 1  # Fishing 2: light / dark green (and the two 16s); Fishing: green (always trump)
K_BLOWFISH = 2  # Fishing 2 only: 21-25, 27, no colour of their own
K_BUOY = 3  # no value, no colour
KINDS = {"colour": K_COLOUR, "green": K_GREEN, "blowfish": K_BLOWFISH, "buoy": K_BUOY}

# ---- colours / shades ----------------------------------------------------------------
# Fishing 2: blue, yellow, red, light green, dark green, and "both" for the two 16s.
# Fishing: blue, yellow, purple, red, green.
C_NONE = -1
C_BLUE = 0
C_YELLOW = 1
C_RED = 2
C_LIGHT = 3
C_DARK = 4
C_BOTH = 5
C_PURPLE = 6
C_GREEN = 7
COLOURS = {
    "none": C_NONE, "blue": C_BLUE, "yellow": C_YELLOW, "red": C_RED,
    "light": C_LIGHT, "dark": C_DARK, "both": C_BOTH, "purple": C_PURPLE, "green": C_GREEN,
}
# The led suit / a card's suit in a trick is a colour code, or SUIT_TRUMP.
SUIT_TRUMP = 9
SUIT_NONE = -1

# ---- effects -------------------------------------------------------------------------
E_NONE = 0
# Fishing 2 buoys (A9)
E_CATCH_1_OTHER = 1
E_PLUS_3 = 2
E_DETERMINE_TRUMP = 3
E_DRAW_1_CARD = 4
E_CATCH_1_CARD = 5
E_EXCHANGE_1_CARD = 6
# Fishing (B3, B4)
E_ZERO = 7
E_PASS_1_LEFT = 8
E_MINUS_3 = 9
E_CATCH_ALL_OTHERS = 10
E_PLAY_FIRST = 11
E_DETERMINE_COLOUR = 12
E_LOWEST_WINS = 13
EFFECTS = {
    "none": E_NONE,
    "catch-1-other": E_CATCH_1_OTHER,
    "+3-points": E_PLUS_3,
    "determine-trump": E_DETERMINE_TRUMP,
    "draw-1-card": E_DRAW_1_CARD,
    "catch-1-card": E_CATCH_1_CARD,
    "exchange-1-card": E_EXCHANGE_1_CARD,
    "zero": E_ZERO,
    "pass-1-left": E_PASS_1_LEFT,
    "minus-3": E_MINUS_3,
    "catch-all-others": E_CATCH_ALL_OTHERS,
    "play-first": E_PLAY_FIRST,
    "determine-colour": E_DETERMINE_COLOUR,
    "lowest-wins": E_LOWEST_WINS,
}

# ---- decisions a strategy makes (docs/rules.md C) -----------------------------------------
# Options are action ids of one space (below: OPT_*), so no option of one kind can be taken
# for another: a card is its id, a face-down trick card OPT_FACE_DOWN + its trick position,
# a shade OPT_SHADE + its C_* code, a suit OPT_SUIT + its C_* colour code.
D_PLAY = 0  # options: legal hand cards
D_TRUMP_CHOICE = 1  # options: OPT_LIGHT, OPT_DARK (A10.3)
D_DETERMINE_TRUMP = 2  # options: OPT_LIGHT, OPT_DARK (buoy)
D_CATCH_1_OTHER = 3  # options: other cards still in the trick (face-down: OPT_FACE_DOWN + i)
D_EXCHANGE_TAKE = 4  # options: other cards still in the trick (face-down: OPT_FACE_DOWN + i)
D_EXCHANGE_GIVE = 5  # options: hand cards (the taken card included)
D_CATCH_1_CARD = 6  # options: hand cards
D_ZERO_CATCH = 7  # Fishing: other cards still in the trick
D_PASS_1_LEFT = 8  # Fishing: hand cards
D_DETERMINE_COLOUR = 9  # Fishing: suits OPT_BLUE, OPT_YELLOW, OPT_PURPLE, OPT_RED, OPT_GREEN
N_DECISIONS = 10
DECISION_NAMES = (
    "play", "trump-choice", "determine-trump", "catch-1-other", "exchange-take",
    "exchange-give", "catch-1-card", "zero-catch", "pass-1-left", "determine-colour",
)

# ---- end of game ---------------------------------------------------------------------
END_RUNNING = 0
END_COMPLETED = 1
END_OVERFISHED = 2
END_ERROR = 3
END_PAUSED = 4  # at a search seat's decision (engine/search.py): never a game's result

# where run_game stops early (besides the end of the game)
STOP_NEVER = 0  # play to the end of the game
STOP_AT_TRUMP = 1  # when a leader is about to make the trump choice (phase PH_TRUMP)
STOP_AT_ROUND_END = 2  # when the round in play has been scored (the next one not begun)

# ---- limits --------------------------------------------------------------------------
MAX_PLAYERS = 5
MAX_CARDS = 128  # deck rows (99 / 100 used)
MAX_HAND = 40
MAX_TRICK = 12  # played cards plus face-down exchanged cards
MAX_ROUNDS = 12  # the deck file may ask for fewer or more than 8 rounds, up to this

# ---- the observation a strategy receives (docs/rules.md C) --------------------------------
# One int64 array, rebuilt by the engine before every decision. It holds exactly what the
# deciding seat may know: its own hand, the current trick (a face-down card shows as
# FACE_DOWN), the cards played so far this round (face up when played), the active trump,
# every player's points and hand / boat / fisher sizes, the ocean size and the round.
_OBS = Layout("the observation")
_o = _OBS.field
O_KIND = _o("kind")  # decision kind (D_*)
O_SEAT = _o("seat")  # the deciding seat
O_N_OPTIONS = _o("n_options")  # number of options at O_OPTIONS
O_ROUND = _o("round")  # 1-based round number
O_TRUMP = _o("trump")  # active shade (C_LIGHT / C_DARK), C_NONE in round 1 (Fishing: always
# C_GREEN)
O_LED = _o("led")  # led suit of the current trick (colour code, SUIT_TRUMP or SUIT_NONE);
# Fishing: the suit named by determine-colour from the trick's first card on (B4)
O_TRICK_N = _o("trick_n")  # cards in the current trick (face-down included)
O_PLAYERS = _o("players")
O_OCEAN_N = _o("ocean_n")  # cards left in the ocean
O_HAND_N = _o("hand_n")  # cards in each hand (all hands hold the same number)
O_TRICK_NO = _o("trick_no")  # 1-based trick number in the round
O_LEADER = _o("leader")  # the current trick's leader
O_RULESET = _o("ruleset")
O_N_PLAYED = _o("n_played")  # number of cards at O_PLAYED (cards played this round, in order)
O_SUBJECT = _o("subject")  # the card whose effect is being resolved (buoy / zero), else -1
O_N_ROUNDS = _o("n_rounds")
O_POINTS = _o("points", MAX_PLAYERS)
O_BOAT_N = _o("boat_n", MAX_PLAYERS)
O_FISHER_N = _o("fisher_n", MAX_PLAYERS)
O_LOWEST_WINS = _o("lowest_wins")  # Fishing: 1 while the current trick is a lowest-wins
# trick (B4)
O_HAND = _o("hand", MAX_HAND)  # own hand
O_TRICK_CARD = _o("trick_card", MAX_TRICK)  # cards of the current trick, play order
O_TRICK_PLAYER = _o("trick_player", MAX_TRICK)  # who played them (-1: face down)
O_TRICK_IN = _o("trick_in", MAX_TRICK)  # 1 while the card is still in the trick
O_PLAYED = _o("played", MAX_CARDS)  # cards played this round, in order
O_PLAYED_BY = _o("played_by", MAX_CARDS)  # who played them
O_OPTIONS = _o("options", MAX_HAND)  # the options of this decision
# Public card places (docs/rules.md C): per card id, where everyone at the table knows it to
# be from what they saw: HOLDER_UNKNOWN (-1) nowhere known (a hidden deal or draw), HOLDER_OCEAN (-2) still in the ocean for sure (no draw has
# reached its star tier), HOLDER_OUT (-3) not in this game (removed for the player count);
# else holder + MAX_PLAYERS * q for the player it was last seen going to (caught face up,
# or taken by exchange-1-card) with q = HELD_SURE (in that hand: its boat part is drawn),
# HELD_MAYBE (perhaps in that hand: a part drawn in part, or a hidden move since) or
# HELD_BOAT (still in that boat, not drawn yet).
O_HOLDER = _o("holder", MAX_CARDS)
# A card played this round keeps the place it had before (O_PLAYED says it was played; the
# kit's holder / held say so too): the engine copies the places only when they change.
O_PUB_STAMP = _o("pub_stamp")  # the engine's stamp of the places last copied here
# The deck (public): per-card columns, indexed by card id.
O_N_CARDS = _o("n_cards")  # cards in the deck
O_CARD_KIND = _o("card_kind", MAX_CARDS)  # K_*
O_CARD_COLOUR = _o("card_colour", MAX_CARDS)  # C_*
O_CARD_VALUE = _o("card_value", MAX_CARDS)  # value (-1: buoy)
O_CARD_EFFECT = _o("card_effect", MAX_CARDS)  # E_*
O_CARD_SUIT = _o("card_suit", 3 * MAX_CARDS)  # suit in a trick: no trump, light, dark
OBS_SIZE = _OBS.size
HELD_SURE = 0
HOLDER_UNKNOWN = -1
HOLDER_OCEAN = -2
HOLDER_OUT = -3
HELD_MAYBE = 1
HELD_BOAT = 2
OBS_LAYOUT = dict(_OBS.fields)
del _o
# A face-down card in the trick (exchange-1-card) is shown as this; as an option of a
# catch-1-other / exchange decision it is OPT_FACE_DOWN + its position in the trick.
FACE_DOWN = -2

# ---- the option space: what a decision returns ----------------------------------------
# Card ids are 0 .. MAX_CARDS-1; every other kind of option lies in its own range above.
OPT_FACE_DOWN = 1000  # + trick position (0 .. MAX_TRICK-1)
FACE_DOWN_OPTION = OPT_FACE_DOWN  # the older name
OPT_SHADE = 2000  # + C_LIGHT / C_DARK
OPT_LIGHT = OPT_SHADE + C_LIGHT
OPT_DARK = OPT_SHADE + C_DARK
OPT_SUIT = 3000  # + a colour code (original Fishing's determine-colour)
OPT_BLUE = OPT_SUIT + C_BLUE
OPT_YELLOW = OPT_SUIT + C_YELLOW
OPT_RED = OPT_SUIT + C_RED
OPT_PURPLE = OPT_SUIT + C_PURPLE
OPT_GREEN = OPT_SUIT + C_GREEN
OPT_END = 4000  # no option is this or above

# ---- event log codes (docs/events.md) ------------------------------------------------
EV_SETUP = 0
EV_DEAL = 1
EV_OCEAN = 2
EV_ROUND_START = 3
EV_DRAW = 4
EV_LEADER = 5
EV_TRUMP_CHOICE = 6
EV_TRICK_START = 7
EV_PLAY = 8
EV_BONUS = 9
EV_TRICK_RESULT = 10
EV_CATCH_1_OTHER = 11
EV_DETERMINE_TRUMP = 12
EV_DRAW_1_CARD = 13
EV_CATCH_1_CARD = 14
EV_EXCHANGE = 15
EV_CAUGHT = 16
EV_TRUMP = 17
EV_ROUND_SCORE = 18
EV_BOAT = 19
EV_OVERFISHED = 20
EV_GAME_END = 21
# Fishing (docs/rules.md B3, B4)
EV_ZERO_CATCH = 22
EV_CATCH_ALL_OTHERS = 23
EV_PASS_1_LEFT = 24
EV_PLAY_FIRST = 25
EV_DETERMINE_COLOUR = 26
EV_LOWEST_WINS = 27
EV_FIELDS = 6  # code + 5 integers
# Fishing: the spare field of EV_TRICK_START packs the trick's next-trick effects:
# bit 0 lowest-wins, bits 1-4 the named colour + 1 (0: none), bits 5.. the namer + 1.
TS_LOWEST = 1
TS_COLOUR_SHIFT = 1
TS_NAMER_SHIFT = 5
