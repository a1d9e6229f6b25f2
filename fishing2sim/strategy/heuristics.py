"""Helpers for heuristic bots (reading the trick, judging cards, the cards still unseen),
ready-made bodies for the simple decisions, and the decisions the shipped bots share
(SHARED_DECISIONS). Everything reads only the observation. Re-exported by kit.py."""

from fishing2sim.engine.constants import (
    C_BOTH, C_DARK, C_GREEN, C_LIGHT, C_NONE, E_CATCH_ALL_OTHERS, E_MINUS_3, E_PLUS_3, E_ZERO, K_BLOWFISH, K_BUOY, K_GREEN,
    MAX_CARDS, O_CARD_COLOUR, O_CARD_EFFECT, O_CARD_KIND, O_CARD_VALUE, O_HAND,
    O_LED, O_LOWEST_WINS, O_N_PLAYED, O_OPTIONS, O_PLAYED, O_POINTS, O_RULESET, O_SEAT,
    O_TRICK_CARD, O_TRICK_IN, O_TRUMP, RS_FISHING, SUIT_NONE,
    SUIT_TRUMP, HOLDER_UNKNOWN, MAX_PLAYERS, O_HOLDER,
)
from fishing2sim.engine.judge import highest_index, weakest_index, would_win
from fishing2sim.strategy.contract import decision, helper
from fishing2sim.strategy.observation import (
    DARK, LIGHT, _count, _shade_code, _slot, _suit_base, colour, effect, hand_size, kind,
    n_cards, n_options, option, option_suit, players, points, suit, suit_under, trick_n,
)

# ---- helpers for heuristic bots: reading the trick, judging cards -----------------------
# Everything below reads only the observation. "Power" is a generic card strength for
# trick-taking: blowfish > trump > the rest by value; buoys have none (they never win).


@helper
def to_play(obs):
    """While choosing a card to play: how many players play after the deciding seat."""
    return players(obs) - trick_n(obs) - 1


@helper
def is_card(obs, card):
    """True for a real card id (not FACE_DOWN, not a face-down option, not a shade)."""
    return 0 <= card < n_cards(obs)


@helper
def is_buoy(obs, card):
    return kind(obs, card) == K_BUOY


@helper
def is_blowfish(obs, card):
    return kind(obs, card) == K_BLOWFISH


@helper
def is_green(obs, card):
    return kind(obs, card) == K_GREEN


@helper("boolean(int64[::1], int64, int64)")
def has_effect(obs, card, eff):
    return is_card(obs, card) and effect(obs, card) == eff


@helper("int64(int64[::1], int64)")
def led_with(obs, card):
    """The led suit once ``card`` is played (card < 0: the trick as it is)."""
    led = obs[O_LED]
    if led == SUIT_NONE and card >= 0:
        led = suit(obs, card)
    return led


@helper
def _judged(obs, card):
    """What the engine's judge (engine/judge.py) reads after ``obs``, for the trick with
    ``card`` played now (card < 0: the trick as it is): the trick's cards and their count,
    the card, the kind, value and suit columns, the led suit, then lowest-wins and whether
    the later of equal values is higher (``highest_index`` and ``would_win`` take all nine,
    ``weakest_index`` the first seven)."""
    return (O_TRICK_CARD, trick_n(obs), card if card < MAX_CARDS else -1, O_CARD_KIND,
            O_CARD_VALUE, _suit_base(obs, obs[O_TRUMP]), led_with(obs, card),
            obs[O_LOWEST_WINS], 1 if obs[O_RULESET] != RS_FISHING else 0)


@helper("int64(int64[::1], int64)")
def highest_with(obs, card):
    """A6: trick index of the highest card if ``card`` were played now (it would sit at
    index O_TRICK_N); card < 0: of the trick as it is. -1 for an empty trick.
    Original Fishing (B4): the lowest under lowest-wins; -1 when nobody has played the suit
    named by determine-colour or a trump (its namer would catch). The engine's own judge
    (engine/judge.py) decides."""
    j = _judged(obs, card)
    return highest_index(obs, j[0], j[1], j[2], j[3], j[4], j[5], j[6], j[7], j[8])


@helper("int64(int64[::1], int64)")
def weakest_with(obs, card):
    """A7: trick index of the weakest card if ``card`` were played now (-1: none); the
    engine's own judge (engine/judge.py) decides."""
    j = _judged(obs, card)
    return weakest_index(obs, j[0], j[1], j[2], j[3], j[4], j[5], j[6])


@helper("boolean(int64[::1], int64)")
def wins_now(obs, card):
    """Playing ``card`` now makes it the trick's highest card (so far): the same answer
    as ``highest_with(obs, card) == trick_n(obs)``, from the engine's judge in one pass
    that stops at the first card that beats it."""
    j = _judged(obs, card)
    return would_win(obs, j[0], j[1], j[2], j[3], j[4], j[5], j[6], j[7], j[8])


@helper("boolean(int64[::1], int64)")
def weakest_now(obs, card):
    """Playing ``card`` now makes it the trick's weakest card (so far)."""
    return 0 <= card < MAX_CARDS and weakest_with(obs, card) == trick_n(obs)


@helper
def blowfish_in_trick(obs):
    """Blowfish still in the current trick."""
    k = 0
    for i in range(trick_n(obs)):
        c = obs[O_TRICK_CARD + i]
        if obs[O_TRICK_IN + i] != 0 and kind(obs, c) == K_BLOWFISH:
            k += 1
    return k


_GREEN_APART = -(1 << 40)  # _fixed_power: a green card judged by each caller its own way


@helper
def _fixed_power(obs, card):
    """The strength ``power`` and ``future_power`` agree on: buoys and face-down cards 0,
    blowfish 20 + value, the two 16s 40, colour cards their value; _GREEN_APART for the
    other green cards."""
    if not is_card(obs, card):
        return 0
    k = obs[O_CARD_KIND + card]
    if k == K_BUOY:
        return 0
    v = obs[O_CARD_VALUE + card]
    if k == K_BLOWFISH:
        return 20 + v
    if k == K_GREEN:
        return 40 if obs[O_CARD_COLOUR + card] == C_BOTH else _GREEN_APART
    return v


@helper
def power(obs, card):
    """Trick-taking strength under the active trump: blowfish 41..47, the two 16s 40,
    other trump 25..39 (round 1, with no trump: every green), colour and inactive green
    cards their value (0..26), buoys and face-down cards 0."""
    p = _fixed_power(obs, card)
    if p != _GREEN_APART:
        return p
    v = obs[O_CARD_VALUE + card]
    if (obs[O_CARD_COLOUR + card] == C_GREEN or obs[O_TRUMP] == C_NONE
            or suit(obs, card) == SUIT_TRUMP):
        return 24 + v  # (the original Fishing's green is always trump)
    return v


@helper
def future_power(obs, card):
    """Strength of a card for later rounds, where the trump shade is not known yet:
    greens count half their trump bonus (the original Fishing's green all of it),
    blowfish and the 26s high, buoys and face-down cards 0."""
    p = _fixed_power(obs, card)
    if p != _GREEN_APART:
        return p
    return (24 if obs[O_CARD_COLOUR + card] == C_GREEN else 12) + obs[O_CARD_VALUE + card]


@helper("int64(int64[::1], int64, boolean)")
def _shade_total(obs, shade, values):
    """Over the hand cards that are trump when ``shade`` is active (the two 16s count for
    both): their number, or (values) the sum of their values."""
    shade = _shade_code(shade)
    t = 0
    for i in range(hand_size(obs)):
        c = obs[O_HAND + i]
        if kind(obs, c) == K_GREEN:
            col = obs[O_CARD_COLOUR + c]
            if col == shade or col == C_BOTH:
                t += obs[O_CARD_VALUE + c] if values else 1
    return t


@helper("int64(int64[::1], int64)")
def shade_cards(obs, shade):
    """Hand cards that are trump when ``shade`` (C_LIGHT / C_DARK, or the option LIGHT /
    DARK) is active (the two 16s count for both)."""
    return _shade_total(obs, shade, False)


@helper("int64(int64[::1], int64)")
def shade_value(obs, shade):
    """Sum of the values of the hand cards that are trump when ``shade`` is active."""
    return _shade_total(obs, shade, True)


@helper
def in_hand(obs, card):
    for i in range(hand_size(obs)):
        if obs[O_HAND + i] == card:
            return True
    return False


@helper
def was_played(obs, card):
    """``card`` was played this round (the O_PLAYED list)."""
    for i in range(_count(obs, O_N_PLAYED, MAX_CARDS)):
        if obs[O_PLAYED + i] == card:
            return True
    return False


# The public card places (docs/rules.md C): what everyone at the table saw of a card.
@helper("int64(int64[::1], int64)")
def holder(obs, card):
    """The player everyone saw ``card`` go to (caught face up, or taken by exchange-1-card)
    who has not played it since; -1 if there is none."""
    code = _slot(obs, O_HOLDER, card, MAX_CARDS)
    if code < 0 or was_played(obs, card):
        return -1
    return code % MAX_PLAYERS


@helper("int64(int64[::1], int64)")
def held(obs, card):
    """Where ``card`` is for all to know: with a holder, HELD_SURE (in the holder's hand:
    the part of the boat it went into has been drawn), HELD_MAYBE (perhaps in that hand: that
    part is drawn in part, or the holder made a hidden move since) or HELD_BOAT (still in
    the holder's boat); without one, HOLDER_OCEAN (still in the ocean: no draw has reached
    its star tier), HOLDER_OUT (not in this game) or HOLDER_UNKNOWN (anything else, also a
    card played this round, which the raw O_HOLDER still shows where it was)."""
    code = _slot(obs, O_HOLDER, card, MAX_CARDS)
    if code < 0:
        return code
    if was_played(obs, card):
        return HOLDER_UNKNOWN
    return code // MAX_PLAYERS


@helper("int64(int64[::1], int64, int64)")
def _unseen_above(obs, card, limit):
    """unseen_above, counting no further than ``limit``."""
    s = suit(obs, card)
    if s == SUIT_NONE:
        return 0
    v = obs[O_CARD_VALUE + card]
    base = _suit_base(obs, obs[O_TRUMP])
    k = 0
    for c in range(n_cards(obs)):
        if c != card and obs[O_CARD_KIND + c] != K_BLOWFISH and obs[O_CARD_VALUE + c] >= v:
            if obs[base + c] == s and not in_hand(obs, c) and not was_played(obs, c):
                k += 1
                if k >= limit:
                    return k
    return k


@helper
def unseen_above(obs, card):
    """Cards of ``card``'s suit (under the active trump) that could beat it and are
    neither in the hand nor played this round (so may be in another hand). Blowfish are
    not counted. For a 16 the other 16 counts (a later 16 beats an earlier one)."""
    return _unseen_above(obs, card, 1 << 30)


@helper
def is_boss(obs, card):
    """``card`` has a suit and no card of that suit that could beat it is unseen (see
    unseen_above); blowfish and buoys are never bosses."""
    return suit(obs, card) != SUIT_NONE and _unseen_above(obs, card, 1) == 0


@helper
def unseen_blowfish(obs):
    """Blowfish neither in the hand nor played this round."""
    k = 0
    for c in range(n_cards(obs)):
        if obs[O_CARD_KIND + c] == K_BLOWFISH and not in_hand(obs, c) and not was_played(obs, c):
            k += 1
    return k


@helper
def leader_gap(obs):
    """The best other player's points minus the deciding seat's (>0: behind)."""
    me = obs[O_SEAT]
    best = -(1 << 40)
    for p in range(players(obs)):
        if p != me and obs[O_POINTS + p] > best:
            best = obs[O_POINTS + p]
    return best - points(obs, me)


# ---- ready-made bodies for the simple decisions ------------------------------------------


@helper("int64(int64[::1], boolean)")
def strongest_option(obs, future):
    """The option with the highest ``power`` (future: ``future_power``, for a card that
    goes to the fisher and so to the next rounds); never a minus-3 buoy (original Fishing)
    while there is another option. Ties: the first."""
    best, best_p = obs[O_OPTIONS], -(1 << 30)
    for i in range(n_options(obs)):
        c = obs[O_OPTIONS + i]
        p = future_power(obs, c) if future else power(obs, c)
        if has_effect(obs, c, E_MINUS_3):
            p = -1000
        if p > best_p:
            best, best_p = c, p
    return best


@helper
def top_power_option(obs):
    """The option with the highest ``power`` (buoys too, at 0). Ties: the first."""
    best, best_p = option(obs, 0), -1
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = power(obs, c)
        if p > best_p:
            best, best_p = c, p
    return best


@helper
def low_power_option(obs):
    """The option with the lowest ``power`` (buoys first, at 0). Ties: the first."""
    best, best_p = option(obs, 0), 1 << 30
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = power(obs, c)
        if p < best_p:
            best, best_p = c, p
    return best


@helper
def cheapest_winner(obs):
    """Among the options that would be the trick's highest card so far (``wins_now``; never
    a buoy), the one with the lowest ``power``; -1 when none would. Ties: the first."""
    best, best_p = -1, 1 << 30
    for i in range(n_options(obs)):
        c = option(obs, i)
        p = power(obs, c)
        if p < best_p and not is_buoy(obs, c) and wins_now(obs, c):  # cheap tests first
            best, best_p = c, p
    return best


@helper
def cheapest_win_or_weakest(obs):
    """``cheapest_winner``, else (no option wins) ``low_power_option``."""
    win = cheapest_winner(obs)
    return win if win >= 0 else low_power_option(obs)


@helper
def weakest_option(obs):
    """The option with the lowest ``power``, keeping the +3-points buoy (3 points when
    played) while there is another option. Ties: the first."""
    best, best_p = obs[O_OPTIONS], 1 << 30
    for i in range(n_options(obs)):
        c = obs[O_OPTIONS + i]
        p = 1000 if has_effect(obs, c, E_PLUS_3) else power(obs, c)
        if p < best_p:
            best, best_p = c, p
    return best


@helper("int64(int64[::1], int64, boolean, int64, int64)")
def trumps_left_next(obs, card, flips, t_now, t_flip):
    """With a shade active: the hand's other cards that are trump in the next trick once
    ``card`` is played, from the hand's trumps under the active shade (``t_now``) and under
    the other one (``t_flip``). The shade flips when ``flips`` (a green card in the trick,
    or ``card`` green; a determine-trump buoy is ignored); ``card`` itself does not count."""
    nxt = obs[O_TRUMP]
    if flips:
        nxt = C_DARK if nxt == C_LIGHT else C_LIGHT
    k = t_flip if flips else t_now
    return k - 1 if suit_under(obs, card, nxt) == SUIT_TRUMP else k


@helper("int64(int64[::1], int64)")
def richer_shade(obs, per_card):
    """The option LIGHT or DARK: the shade whose trump cards in hand score more, scoring
    ``per_card`` per card plus the sum of their values (ties: LIGHT)."""
    light = per_card * shade_cards(obs, C_LIGHT) + shade_value(obs, C_LIGHT)
    dark = per_card * shade_cards(obs, C_DARK) + shade_value(obs, C_DARK)
    return LIGHT if light >= dark else DARK


@helper
def keep_value(obs, card):
    """Original Fishing: what a card is worth to its holder, in hand now or on the boat for
    the next rounds. Colour cards their value (1..18); green (always trump) 24 + value;
    a zero catches a card when played: a colour zero 18, the green zero 30; catch-all-others
    catches the whole trick: 40; play-first, determine-colour, lowest-wins and pass-1-left
    steer a trick: 15; a minus-3 buoy is only worth giving away in a trick someone else
    catches: 8. Face-down cards and ids that are no card: 0."""
    if not is_card(obs, card):
        return 0
    k = obs[O_CARD_KIND + card]
    e = obs[O_CARD_EFFECT + card]
    v = obs[O_CARD_VALUE + card]
    if k == K_BUOY:
        if e == E_CATCH_ALL_OTHERS:
            return 40
        if e == E_MINUS_3:
            return 8
        return 15
    green = k == K_GREEN
    if e == E_ZERO:
        return 30 if green else 18
    return 24 + v if green else v


@helper
def best_catch_option(obs):
    """zero-catch (original Fishing): the option most worth keeping (keep_value), never a
    minus-3 buoy (it costs 3 points at once) while there is another option. Ties: the first."""
    best, best_v = obs[O_OPTIONS], -(1 << 30)
    for i in range(n_options(obs)):
        c = obs[O_OPTIONS + i]
        v = -1000 if has_effect(obs, c, E_MINUS_3) else keep_value(obs, c)
        if v > best_v:
            best, best_v = c, v
    return best


@helper
def least_kept_option(obs):
    """pass-1-left (original Fishing): the hand card least worth keeping (keep_value): a
    low plain card rather than a zero, a buoy or a trump. Ties: the first."""
    best, best_v = obs[O_OPTIONS], 1 << 30
    for i in range(n_options(obs)):
        c = obs[O_OPTIONS + i]
        v = keep_value(obs, c)
        if v < best_v:
            best, best_v = c, v
    return best


@helper("int64(int64[::1], int64)")
def richest_suit(obs, high):
    """determine-colour (original Fishing): the option suit of which the hand holds the
    most cards of value >= ``high``, then the largest sum of values (ties: the first)."""
    best, best_s = obs[O_OPTIONS], -1
    for i in range(n_options(obs)):
        o = obs[O_OPTIONS + i]
        s = option_suit(o)
        score = 0
        for j in range(hand_size(obs)):
            c = obs[O_HAND + j]
            if kind(obs, c) != K_BUOY and colour(obs, c) == s:
                v = obs[O_CARD_VALUE + c]
                score += v + (1000 if v >= high else 0)
        if score > best_s:
            best, best_s = o, score
    return best


# ---- ready-made decisions the bots share (assign them: ``catch_1_card = give_weakest``) --

@decision
def shade_held_more(obs, params, rng):
    """trump_choice / determine_trump: the shade held in more cards (then higher values)."""
    return richer_shade(obs, 100)


@decision
def take_strongest(obs, params, rng):
    """catch_1_other: the strongest other card in the trick, for later rounds."""
    return strongest_option(obs, True)


@decision
def take_strongest_now(obs, params, rng):
    """exchange_take: the strongest other card in the trick, to play this round."""
    return strongest_option(obs, False)


@decision
def give_weakest(obs, params, rng):
    """exchange_give / catch_1_card: the weakest card."""
    return weakest_option(obs)


@decision
def catch_most_valuable(obs, params, rng):
    """zero_catch (Fishing): the card most worth keeping, a minus-3 only if nothing else."""
    return best_catch_option(obs)


@decision
def pass_least_kept(obs, params, rng):
    """pass_1_left (Fishing): the card least worth keeping."""
    return least_kept_option(obs)


@decision
def name_richest_suit(obs, params, rng):
    """determine_colour (Fishing): the suit held with the most high cards."""
    return richest_suit(obs, 10)


# The decisions the heuristic bots share, by decision name: a strategy file that says
# ``FALLBACK = SHARED_DECISIONS`` makes with these every decision it does not define itself
# (a file without FALLBACK leaves them to the reference random strategy).
SHARED_DECISIONS = {
    "trump_choice": shade_held_more,
    "determine_trump": shade_held_more,
    "catch_1_other": take_strongest,
    "exchange_take": take_strongest_now,
    "exchange_give": give_weakest,
    "catch_1_card": give_weakest,
    "zero_catch": catch_most_valuable,
    "pass_1_left": pass_least_kept,
    "determine_colour": name_richest_suit,
}
