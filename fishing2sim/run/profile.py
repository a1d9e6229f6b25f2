"""The behaviour profile's totals (``analyses: [profile]``, and every skill panel): what the
players of a lineup do, counted from the event logs of a fixed set of its games
(docs/rules.md E, "Behaviour profile").

Which games. A lineup with a search seat logs every game anyway (the search reads the log),
so all its games are counted, each read after it is played. Any other lineup plays its
games in the batch kernel without a log; its first :data:`PROFILE_GAMES` games (game
indexes 0 .. PROFILE_GAMES - 1 of the condition, in every rotation) are played again with
the log on, by the chunks that hold them. Both sets depend on the condition only, so they
are the same for any number of workers, on Dask and after ``--resume``.

The counts are exact integer sums, merged like every other total: per strategy and share
(``SHARES``) the sums over games of a game's decisions n and of those that did the thing y,
with n², y², n·y and the games with n > 0 (the CI of a share is clustered by game); per
round the games, the sum and the sum of squares of each per-game figure (``ROUND_FIGS``)
and of each buoy's plays.
"""
from __future__ import annotations

import numpy as np

from fishing2sim.config.keys import PROFILE, PROFILE_GAMES  # noqa: F401  (run_chunk's)
from fishing2sim.engine import constants as K

ANALYSIS = PROFILE
R = K.MAX_ROUNDS + 1
# the shares, each per strategy: (decisions counted, of them the ones that did the thing)
SHARES = ("follow_contested", "last_contested", "lead_strongest", "trump_more")
FOLLOW, LAST, LEAD, TRUMP_MORE = range(len(SHARES))
SH_N, SH_Y, SH_NN, SH_YY, SH_NY, SH_GAMES = range(6)
# the per-game figures of each round r, over the games that started round r
ROUND_FIGS = ("ocean_draws", "boat_spread", "shortfall", "ocean_lacked")
OCEAN_DRAWS, BOAT_SPREAD, SHORTFALL, OCEAN_LACKED = range(len(ROUND_FIGS))
RD_GAMES, RD_SUM, RD_SQ = range(3)
N_EFFECTS = 14  # the E_* codes of engine/constants.py (buoy effects)

PROFILE_FIELDS = {
    "profile_games": "games whose event log the profile read",
    "profile_share": "per strategy and share (SHARES): sums over games of n, y, n², y², "
                     "n·y and the games with n > 0",
    "profile_round": "per figure (ROUND_FIGS) and round r: games that started round r, sum "
                     "and sum of squares of the game's figure",
    "profile_buoy": "per buoy effect (E_*) and round r: games that started round r, sum and "
                    "sum of squares of the game's plays of that buoy",
}
_TRUMP = -2  # the trump suit (a card's suit as _suit gives it)
_READ = np.zeros(64, bool)  # the event codes count_game reads
_READ[[K.EV_PLAY, K.EV_TRICK_START, K.EV_DEAL, K.EV_DRAW, K.EV_CATCH_1_CARD, K.EV_EXCHANGE,
       K.EV_PASS_1_LEFT, K.EV_BOAT, K.EV_ROUND_START, K.EV_OVERFISHED,
       K.EV_TRUMP_CHOICE]] = True


def empty(n_strategies: int) -> dict:
    z = np.zeros
    return {"profile_games": z(1, np.int64),
            "profile_share": z((n_strategies, len(SHARES), 6), np.int64),
            "profile_round": z((len(ROUND_FIGS), R, 3), np.int64),
            "profile_buoy": z((N_EFFECTS, R, 3), np.int64)}


def wanted(exp) -> bool:
    return ANALYSIS in exp.analyses


# ---- the games --------------------------------------------------------------------------
def replayed(start: int, n: int) -> int:
    """How many of a chunk's games start .. start+n-1 are replayed: those below
    PROFILE_GAMES."""
    return max(0, min(n, PROFILE_GAMES - start))


def replay(play_one, start: int, m: int, cards: "Cards", P: int, slot, totals) -> None:
    """Count games start .. start+m-1 into ``totals``: ``play_one(g)`` plays game g again
    with the event log on and returns its event rows."""
    for g in range(start, start + m):
        count_game(totals, play_one(g), cards, P, slot)


class Cards:
    """A deck's columns as Python lists (the counting reads them per event)."""

    def __init__(self, arrays, ruleset: str):
        self.kind = arrays[:, K.F_KIND].tolist()
        self.colour = arrays[:, K.F_COLOUR].tolist()
        self.value = arrays[:, K.F_VALUE].tolist()
        self.effect = arrays[:, K.F_EFFECT].tolist()
        self.fishing = ruleset == "fishing"
        # each card's suit under each active shade (none, light, dark; the original
        # Fishing's green is always trump)
        self.suits = {t: [self._suit(c, t) for c in range(len(self.kind))]
                      for t in (K.C_NONE, K.C_LIGHT, K.C_DARK, K.C_GREEN)}

    def suit(self, c: int, trump: int) -> int | None:
        return self.suits[trump][c]

    def _suit(self, c: int, trump: int) -> int | None:
        """A colour or trump card's suit (A4, B2): its colour, or _TRUMP; else None."""
        k = self.kind[c]
        if k == K.K_COLOUR:
            return self.colour[c]
        if k == K.K_GREEN:
            if self.fishing:
                return _TRUMP
            col = self.colour[c]
            if trump in (K.C_LIGHT, K.C_DARK) and col in (trump, K.C_BOTH):
                return _TRUMP
            return col
        return None

    def led(self, cards: list, trump: int, named: int) -> int | None:
        if named >= 0:  # B4: determine-colour's suit
            return _TRUMP if named == K.C_GREEN else named
        su = self.suits[trump]
        for c in cards:
            s = su[c]
            if s is not None:
                return s
        return None

    def top(self, cards: list, trump: int, named: int, lowest: bool) -> int:
        """The index of the trick's highest card (A6, B2, B4), -1 when it is no card's
        (buoys only, or determine-colour's namer)."""
        led = self.led(cards, trump, named)
        blow = K.K_BLOWFISH
        if led is None:
            fish = [i for i, c in enumerate(cards) if self.kind[c] == blow]
            if not fish:
                return 0 if cards and not self.fishing and named < 0 else -1
            return max(fish, key=lambda i: (self.value[cards[i]], i))
        trumps = [i for i, c in enumerate(cards) if self.suit(c, trump) == _TRUMP
                  or (led == _TRUMP and self.kind[c] == blow)]
        pool = trumps or [i for i, c in enumerate(cards) if self.suit(c, trump) == led
                          or self.kind[c] == blow]
        if not pool:
            return -1
        if lowest:
            return min(pool, key=lambda i: (self.value[cards[i]], i))
        return max(pool, key=lambda i: (self.value[cards[i]], i))  # the later 16 is higher

    def taking(self, plays: list, opts: list, trump: int, named: int, lowest: bool) -> list:
        """For each option of a follower: would it be the trick's highest card so far?"""
        led = self.led(plays, trump, named)
        if led is None:  # only buoys and blowfish so far (rare): judge every option whole
            k = len(plays)
            return [self.top(plays + [o], trump, named, lowest) == k for o in opts]
        blow = K.K_BLOWFISH
        su = self.suits[trump]
        suits = [su[c] for c in plays]
        trumps = [self.value[c] for c, s in zip(plays, suits)
                  if s == _TRUMP or (led == _TRUMP and self.kind[c] == blow)]
        pool = trumps or [self.value[c] for c, s in zip(plays, suits)
                          if s == led or self.kind[c] == blow]
        out = []
        for o in opts:
            s = su[o]
            is_trump = s == _TRUMP or (led == _TRUMP and self.kind[o] == blow)
            if trumps or is_trump:
                enters = is_trump
                pool_o = trumps
            else:
                enters = s == led or self.kind[o] == blow
                pool_o = pool
            if not enters:
                out.append(False)
            elif not pool_o:
                out.append(True)
            elif lowest:
                out.append(self.value[o] < min(pool_o))
            else:
                out.append(self.value[o] >= max(pool_o))  # the later of equal values (16s)
        return out

    def options(self, hand, played: list, trump: int, named: int) -> list:
        """The legal cards (A5, B2, B4): a holder of the led suit plays it, a buoy or a
        blowfish."""
        led = self.led(played, trump, named) if played or named >= 0 else None
        if led is None:
            return list(hand)
        su = self.suits[trump]
        follow = [h for h in hand if su[h] == led]
        if not follow:
            return list(hand)
        return follow + [h for h in hand if self.kind[h] in (K.K_BUOY, K.K_BLOWFISH)]


def count_game(t: dict, rows: np.ndarray, cards: Cards, P: int, slot) -> None:
    """Add one game's event log (the kernel's integer rows) to the profile totals ``t``;
    ``slot[seat]`` is the seat's strategy."""
    S = t["profile_share"].shape[0]
    n = np.zeros((S, len(SHARES)), np.int64)
    y = np.zeros((S, len(SHARES)), np.int64)
    per = np.zeros((len(ROUND_FIGS), R), np.int64)
    buoy = np.zeros((N_EFFECTS, R), np.int64)
    hands = [set() for _ in range(P)]
    boats = [0] * P
    r, trump, named, lowest, plays, started = 0, K.C_NONE, -1, False, [], 0
    rows = rows[_READ[rows[:, 0]]]  # (a third of the rows: caught cards, results, ...)
    for code, a, b, c, d, e in rows.tolist():
        if code == K.EV_PLAY:
            s = slot[a]
            hand = hands[a]
            opts = cards.options(hand, plays, trump, named)
            if not plays:
                _lead(cards, opts, b, n[s], y[s])
            elif len(opts) >= 2:
                took = cards.taking(plays, opts, trump, named, lowest)
                if any(took) and not all(took):
                    mine = took[opts.index(b)]
                    n[s, FOLLOW] += 1
                    y[s, FOLLOW] += mine
                    if len(plays) == P - 1:
                        n[s, LAST] += 1
                        y[s, LAST] += mine
            if cards.kind[b] == K.K_BUOY:
                buoy[cards.effect[b], r] += 1
            hand.discard(b)
            plays.append(b)
        elif code == K.EV_TRICK_START:
            plays, trump = [], d
            if cards.fishing:
                named = ((e >> K.TS_COLOUR_SHIFT) & 15) - 1
                lowest = bool(e & K.TS_LOWEST)
        elif code in (K.EV_DEAL, K.EV_DRAW):
            hands[a].add(b)
            if code == K.EV_DRAW:
                if c:
                    per[OCEAN_DRAWS, r] += 1
                else:
                    boats[a] -= 1
        elif code == K.EV_CATCH_1_CARD:
            hands[a].discard(b)
        elif code == K.EV_EXCHANGE:
            hands[a].add(b)
            hands[a].discard(c)
        elif code == K.EV_PASS_1_LEFT:
            hands[a].discard(b)
            hands[c].add(b)
        elif code == K.EV_BOAT:
            boats[a] += 1
        elif code == K.EV_ROUND_START:
            r = started = a
            if r >= 2:  # the boats after round r - 1, before round r's draws (A10.2)
                per[BOAT_SPREAD, r - 1] = max(boats) - min(boats)
                per[SHORTFALL, r] = sum(max(0, b - x) for x in boats)
        elif code == K.EV_OVERFISHED and not c:  # at a round's start (A10.2)
            per[OCEAN_LACKED, r] = a - b
        elif code == K.EV_TRUMP_CHOICE:
            _trump_choice(cards, hands[b], c, n[slot[b]], y[slot[b]])
    _add(t, n, y, per, buoy, started)


def _lead(cards: Cards, opts: list, card: int, n, y) -> None:
    """A lead among 2 options or more with a value: was it one of the highest value?"""
    valued = [cards.value[o] for o in opts if cards.kind[o] != K.K_BUOY]
    if len(opts) >= 2 and valued:
        n[LEAD] += 1
        y[LEAD] += cards.kind[card] != K.K_BUOY and cards.value[card] == max(valued)


def _trump_choice(cards: Cards, hand, shade: int, n, y) -> None:
    """A10.3: the shade chosen against the hand's light and dark cards (the two 16s carry
    both shades and count for neither); a hand with as many of each is not counted."""
    light = sum(1 for h in hand if cards.kind[h] == K.K_GREEN and cards.colour[h] == K.C_LIGHT)
    dark = sum(1 for h in hand if cards.kind[h] == K.K_GREEN and cards.colour[h] == K.C_DARK)
    if light != dark:
        n[TRUMP_MORE] += 1
        y[TRUMP_MORE] += shade == (K.C_LIGHT if light > dark else K.C_DARK)


def _add(t, n, y, per, buoy, started: int) -> None:
    t["profile_games"] += 1
    sh = t["profile_share"]
    sh[:, :, SH_N] += n
    sh[:, :, SH_Y] += y
    sh[:, :, SH_NN] += n * n
    sh[:, :, SH_YY] += y * y
    sh[:, :, SH_NY] += n * y
    sh[:, :, SH_GAMES] += n > 0
    rounds = np.arange(R)
    live = ((rounds >= 1) & (rounds <= started)).astype(np.int64)
    masks = np.repeat(live[None, :], len(ROUND_FIGS), axis=0)
    masks[BOAT_SPREAD] = (rounds >= 1) & (rounds < started)  # after round r: r + 1 started
    masks[SHORTFALL, 1] = masks[OCEAN_LACKED, 1] = 0  # round 1 is dealt, not drawn
    for arr, key, m in ((per, "profile_round", masks), (buoy, "profile_buoy", live)):
        v = t[key]
        v[:, :, RD_GAMES] += m
        v[:, :, RD_SUM] += arr * m
        v[:, :, RD_SQ] += arr * arr * m


def cards_of(cond) -> Cards:
    return Cards(np.ascontiguousarray(cond.deck.arrays), cond.deck.ruleset)
