"""The student's feature layout (fishing2sim/student/features.py computes the features): the
feature names in order, the feature version, the weight blocks and the sizes of the
parameter vector. Plain constants: features.py and every module that reads a model import
them from here (features.py holds the functions: n_params, hidden_of, the scores), and the
compiled kernels freeze them in (fishing2sim.engine.kernel_stamp hashes this file)."""
from fishing2sim.engine.constants import N_DECISIONS

FEATURES_VERSION = 5
N_RULESETS = 2
# A card play's weights depend on where the card goes in the trick (leading, following,
# last) and on the half of the round: six blocks of weights per ruleset for card plays
# (the first is the D_PLAY block), one for every other decision kind.
N_PLAY_BLOCKS = 6
BLOCKS_PER_RULESET = N_DECISIONS + N_PLAY_BLOCKS - 1

FEATURE_NAMES = (
    "power",          # card strength now / 47 (strategy_kit.power)
    "future_power",   # strength for later rounds / 47
    "keep_value",     # worth on the boat / 40 (strategy_kit.keep_value)
    "value",          # printed value / 26 (0 for buoys)
    "trump",          # trump in the current trick
    "blowfish",
    "buoy",
    "green",
    "both_shades",    # one of the two 16s
    "e_catch_1_other", "e_plus_3", "e_determine_trump", "e_draw_1_card", "e_catch_1_card",
    "e_exchange_1_card", "e_zero", "e_pass_1_left", "e_minus_3", "e_catch_all_others",
    "e_play_first", "e_determine_colour", "e_lowest_wins",
    "face_down",      # a face-down trick card (its identity unseen)
    # card play: the card in the trick
    "win",            # would be the trick's highest card so far
    "win_exposed",    # win * share of the other players still to play
    "win_power",      # win * strength
    "lose_power",     # (1 - win) * strength
    "lead_power",     # leading: strength
    "lead_trump",     # leading a trump
    "unseen_above",   # cards of its suit that could beat it, not seen this round / 10
    "boss",           # no unseen card of its suit beats it
    "weakest_fish",   # would be the weakest card, times the blowfish in the trick
    "win_progress",   # win * progress through the round
    "win_behind",     # win * points behind the best other player / 20
    "win_ocean",      # win * ocean cards left / 60
    "ruff",           # a trump on a trick led in another suit
    "next_trumps",    # share of the rest of the hand that is trump in the next trick
    "suit_share",     # share of the hand in the card's suit (any card option)
    "win_last",       # win as the trick's last card
    "win_trick_value",  # win * values of the face-up cards in the trick / 50
    "win_buoys",      # win * buoys in the trick
    "win_blowfish",   # win * blowfish in the trick
    "win_minus_3",    # win * minus-3 buoys in the trick
    "win_fish_risk",  # win * unseen blowfish / 4 * share still to play
    "lead_suit_share",  # leading: share of the hand in the card's suit
    "round_power",    # round progress through the game * strength
    # trump choice / determine-trump: the shade
    "shade_cards",    # hand cards that are trump under the shade / hand size
    "shade_value",    # their values / (26 * hand size)
    "shade_light",    # the shade is LIGHT
    # determine-colour (original Fishing): the suit
    "colour_cards", "colour_value", "colour_high",
    "suit_blue", "suit_yellow", "suit_purple", "suit_red", "suit_green",
    # card play: interactions
    "win_boss",       # win and no unseen card of its suit beats it
    "win_unseen_exposed",  # win * unseen_above * share still to play
    "lose_trump",     # a trump that is not the highest card so far
    "follows",        # a card of the led suit
    "shed",           # a colour card of another suit than the led one (not trump)
    "win_hand_trumps",  # win * share of the hand that is trump now
    "lead_boss",      # leading a card no unseen card of its suit beats
    "last_lose_power",  # last to play and not the highest: strength given away
    # the public card places (docs/rules.md C; version 4): where the cards that could beat
    # an option are, for all at the table to know
    "later_above",    # cards that could beat it in the hands still to play this trick
                      # (sure 1, perhaps 1/2) / 4
    "unknown_later",  # cards of unknown place that could beat it x the share of the
                      # unknown cards the hands still to play hold / 4
    "hold",           # win x the chance no hand still to play holds a card that beats it
    "hold_trick_value",  # hold * values of the face-up cards in the trick / 50
    "win_later_trumps",  # win, not trump: trumps known in the hands still to play / 4
    "shade_others",   # the shade's trump cards known in other hands / 10
    # a lead's suit and the hand it leaves (version 5): the cards in other hands counted
    # 1 for sure, 1/2 perhaps, q each of unknown place (tables._weighted)
    "lead_suit_known",   # the suit's cards in other hands / 5 (at most 2)
    "lead_below_known",  # of those, the ones under the lead / 5 (at most 2)
    "lead_above_known",  # of those, the ones that could beat it / 5 (at most 2)
    "lead_mine_after",   # the hand's other cards of the suit / 5
    "lead_bosses_after",  # of those, the ones nothing in another hand beats / 3
    "lead_hand_bosses_after",  # the hand's other cards nothing in another hand beats / 5
    "lead_trumps_known",  # trump cards in other hands / 5 (at most 2)
    "lead_fish_at_risk",  # blowfish in other hands / 4, when a card there could beat it
    "lead_rank_in_suit",  # the share of the hand's other cards of the suit under it (1: none)
    "lead_unknown_share",  # q: the share of the unknown cards the other hands hold
)
N_FEATURES = len(FEATURE_NAMES)
# Version 3's features are version 4's first N_FEATURES_V3: a version-3 model reads as
# one whose weights of the newer features are 0 (model.py pads it), and plays the same.
N_FEATURES_V3 = FEATURE_NAMES.index("later_above")
# and version 4's are version 5's first N_FEATURES_V4, read the same way
N_FEATURES_V4 = FEATURE_NAMES.index("lead_suit_known")
F_PLACES = N_FEATURES_V3
F_LEAD = N_FEATURES_V4
F_EFFECT0 = FEATURE_NAMES.index("e_catch_1_other")  # effect codes 1 .. 13
F_FACE_DOWN = FEATURE_NAMES.index("face_down")
F_WIN = FEATURE_NAMES.index("win")
F_SHADE = FEATURE_NAMES.index("shade_cards")
F_COLOUR = FEATURE_NAMES.index("colour_cards")
F_INTER = FEATURE_NAMES.index("win_boss")
N_BLOCKS = N_RULESETS * BLOCKS_PER_RULESET
N_WEIGHTS = N_BLOCKS * N_FEATURES
PER_HIDDEN = N_FEATURES + 2 * N_BLOCKS  # parameters per hidden unit (W1's column, c, u)
MAX_HIDDEN = 256  # the student's scratch for the hidden layer lives on the stack
N_MASK = (N_FEATURES + 63) // 64  # 64-bit words of an option's nonzero-feature mask
HAND_SUIT_BITS = 6  # _context counts the hand's cards by suit in 6 bits each (MAX_HAND < 64)
HAND_SUIT_MASK = (1 << HAND_SUIT_BITS) - 1
