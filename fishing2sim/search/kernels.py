"""Search seats: a seat whose card plays and trump choices are made by searching.

At such a decision the engine pauses (core.ask_strategy: st[S_END] = END_PAUSED, the
options at A_OPTIONS) and :func:`play_batch_search` answers it with :func:`search_decide`,
then resumes the game with the choice (st[S_FORCED]). The search plays copies of the
game forward with ordinary strategies (the rollout lineup) through the plain
``core.run_game``: a rollout never reaches a search seat, so no kernel calls itself.

Methods (docs/search.md):

- ``pimc``: perfect-information Monte Carlo. For each of ``worlds`` sampled worlds (the
  seat's hidden cards dealt again in a way consistent with everything the seat has seen,
  :func:`build_view` and :func:`sample_world`), every option is played forward ``rollouts``
  times; the option with the best mean value is chosen. All options of one world share
  their random streams (common random numbers).
- ``ismcts``: information-set Monte Carlo tree search (:func:`ismcts_decide`).
- ``cheater``: ismcts's tree search on the true state (every hand seen; no sampling): not
  a fair player, an upper bound on what searching can reach. (METHOD_TRUE_FLAT, pimc's
  flat search on the true state, is the truth of a position for tests and tools.)

What a seat knows is read from the game's event log (the main game of a search batch
logs its events): setup, draws, plays, catches, exchanges, passes and boats, each taken
in the seat's view (docs/search.md lists the rules): a card's identity is used only where
the seat sees it. The view gives every hidden card its *possible zones* (another player's
hand, a star tier of the ocean, one round's part of a boat, a fisher's face-down cards, the
trick's face-down cards); a world puts every hidden card into one of its possible zones,
with every zone's count as in the game.
"""
import numpy as np
from numba import njit

from fishing2sim.engine.constants import (
    C_DARK, C_GREEN, C_LIGHT, D_EXCHANGE_GIVE, D_PASS_1_LEFT, D_PLAY, D_TRUMP_CHOICE, END_ERROR, END_PAUSED, END_RUNNING,
    EV_BOAT, EV_CATCH_1_CARD, EV_CATCH_1_OTHER, EV_CATCH_ALL_OTHERS, EV_CAUGHT, EV_DEAL,
    EV_DRAW, EV_EXCHANGE, EV_OCEAN, EV_PASS_1_LEFT, EV_PLAY, EV_ROUND_SCORE, EV_ROUND_START,
    EV_FIELDS, F_TIER, O_N_PLAYED,
    EV_TRICK_START, EV_ZERO_CATCH, K_BLOWFISH, K_BUOY, MAX_CARDS, MAX_HAND, MAX_PLAYERS,
    MAX_ROUNDS, N_DECISIONS, OPT_SHADE, SUIT_NONE, SUIT_TRUMP, STOP_AT_ROUND_END, STOP_AT_TRUMP,
    STOP_NEVER,
    TS_COLOUR_SHIFT,
)
from fishing2sim.engine.batch import (
    T_CHOOSER, game_scratch, new_buffers, record_game, take_branch_error, trump_pairs,
)
from fishing2sim.engine.core import (
    ERR_ILLEGAL_CHOICE, ERR_NO_WORLD, ERR_ROLLOUT_ILLEGAL, apply_trump_choice, ask_trump_choice,
    best_points, play_card, run_game, setup_game,
)
from fishing2sim.engine.rng import game_seed, mix64, next_u64, rand_below, seed_streams
from fishing2sim.engine.sigs import DECK, EV, OBS, PARAMS, RNG, ST, STRATS, b1, i64, types, void
from fishing2sim.engine.state import (
    A_BOAT, A_BOAT_HEAD, A_BOAT_N, A_FISHER, A_FISHER_N, A_HAND, A_HAND_N, A_KIND, A_OCEAN,
    A_SCRATCH, A_TRICK_PLAYER, S_FIN_K, S_FIN_ON, S_FIN_TAKEN,
    A_OPTIONS, A_POINTS, A_SUIT, A_TRICK_CARD, A_TRICK_FD, A_TRICK_IN, RNG_SIZE, S_ASK_KIND,
    S_ASK_SEAT, S_CHECK, S_END, S_PHASE, S_ROUND, PH_TRUMP, S_ERR_CODE, S_ERR_SEAT, S_FORCED, S_LOG, S_N_OPTIONS, S_OBSERVE_MASK,
    S_EVN, S_OCEAN_LEN, S_OCEAN_TOP, S_PLAYERS, S_SEARCH_MASK, S_TRICK_N, STATE_SIZE,
)
from fishing2sim.search.close import sure_choice
from fishing2sim.search.round_value import rest_of_game
from fishing2sim.strategy.search_bots import N_SP

# zones of a hidden card (columns of the possible-zones table)
Z_HAND = 0  # + player
Z_FISHER = MAX_PLAYERS  # + player: a fisher's face-down (hidden) cards
Z_TRICK = 2 * MAX_PLAYERS  # the trick's face-down cards
Z_OCEAN = Z_TRICK + 1  # + star tier - 1
N_TIERS = 5
Z_BOAT = Z_OCEAN + N_TIERS  # + player * MAX_ROUNDS + round - 1: the part of the boat
N_ZONES = Z_BOAT + MAX_PLAYERS * MAX_ROUNDS  # that went under it at that round's end
SEG_Q = MAX_ROUNDS + 2  # a boat's parts, as a ring per player
U8_2 = types.Array(types.uint8, 2, "C")  # the possible-zones table
U8_1 = types.Array(types.uint8, 1, "C")
I64_1 = types.Array(types.int64, 1, "C")  # the search tree's node arrays

# search parameters, a row per seat (float64)
SP_METHOD = 0  # METHOD_*
SP_WORLDS = 1
SP_ROLLOUTS = 2  # rollouts per world and option
SP_HORIZON = 3  # HORIZON_*
SP_OBJECTIVE = 4  # OBJ_*
SP_MARGIN = 5  # pimc: search only where the student's two best options are closer (close.py)
METHOD_PIMC = 0
METHOD_TRUE_FLAT = 1  # pimc's flat search on the true state: a position's truth (tests, tools)
METHOD_ISMCTS = 2
METHOD_CHEATER = 3  # ismcts's tree on the true state (the cheater bot)
UCB_C = 0.7  # the exploration constant, on rewards scaled to about one unit (REWARD_SCALE)
REWARD_SCALE_MARGIN = 10.0  # points of margin per reward unit in the tree
HORIZON_ROUND = 0
HORIZON_GAME = 1
HORIZON_LEARNED = 2  # to the end of the round, plus the learned rest of the game (round_value.py)
OBJ_MARGIN = 0
OBJ_WIN = 1

# the view's scalars (vw[V_*]) and rings
V_BASE = 0  # index of the suit row (0: no trump, 1: light, 2: dark)
V_LED = 1
V_TOP = 2  # ocean cards drawn
V_ROUND = 3
V_PASSES = 4  # pass-1-left events in the current block
V_SEG_HEAD = 8  # + player
V_SEG_COUNT = V_SEG_HEAD + MAX_PLAYERS
V_SEG_ZONE = V_SEG_COUNT + MAX_PLAYERS  # + player * SEG_Q + j
V_SEG_N = V_SEG_ZONE + MAX_PLAYERS * SEG_Q
V_POS_TIER = V_SEG_N + MAX_PLAYERS * SEG_Q  # + ocean position
V_SIZE = V_POS_TIER + MAX_CARDS


@njit(cache=True)
def new_view():
    """(possible zones [card, zone], hidden [card], scalars and rings, scratch [card, zone])."""
    return (np.zeros((MAX_CARDS, N_ZONES), np.uint8), np.zeros(MAX_CARDS, np.uint8),
            np.zeros(V_SIZE, np.int64), np.zeros((MAX_CARDS, N_ZONES), np.uint8))


@njit(void(U8_2, U8_1, i64, i64, i64), cache=True, _nrt=False)
def _spread(pz, hidden, n_cards, src, dst):
    """Every hidden card that may be in zone src may now be in zone dst too."""
    for x in range(n_cards):
        if hidden[x] != 0 and pz[x, src] != 0:
            pz[x, dst] = 1


@njit(void(U8_2, U8_1, i64, i64, i64), cache=True, _nrt=False)
def _move_zone(pz, hidden, n_cards, src, dst):
    """Zone src is emptied into zone dst."""
    for x in range(n_cards):
        if hidden[x] != 0 and pz[x, src] != 0:
            pz[x, src] = 0
            pz[x, dst] = 1


@njit(void(U8_2, i64, i64), cache=True, _nrt=False)
def _clear_zone(pz, n_cards, z):
    for x in range(n_cards):
        pz[x, z] = 0


@njit(void(U8_2, i64, i64), cache=True, _nrt=False)
def _only(pz, x, z):
    for k in range(N_ZONES):
        pz[x, k] = 0
    pz[x, z] = 1


@njit(void(ST, i64, i64, i64), cache=True, _nrt=False)
def _seg_push(vw, q, zone, n):
    c = vw[V_SEG_COUNT + q]
    j = (vw[V_SEG_HEAD + q] + c) % SEG_Q
    vw[V_SEG_ZONE + q * SEG_Q + j] = zone
    vw[V_SEG_N + q * SEG_Q + j] = n
    vw[V_SEG_COUNT + q] = c + 1


@njit(i64(ST, i64), cache=True, _nrt=False)
def _seg_pop1(vw, q):
    """One card leaves the top of q's boat: the zone of the part it came from."""
    j = vw[V_SEG_HEAD + q]
    zone = vw[V_SEG_ZONE + q * SEG_Q + j]
    vw[V_SEG_N + q * SEG_Q + j] -= 1
    if vw[V_SEG_N + q * SEG_Q + j] == 0:
        vw[V_SEG_HEAD + q] = (j + 1) % SEG_Q
        vw[V_SEG_COUNT + q] -= 1
    return zone


@njit(cache=True, _nrt=False)
def build_view(st, ev, n_ev, tier, s, pz, hidden, vw, snap):
    """Seat s's view of the game from its event log ev[:n_ev] (docs/search.md): which
    cards s cannot see (hidden[c] = 1) and the zones each may be in (pz[c, zone] = 1).
    A card's identity in an event is read only where s sees it (its own cards, cards
    played face up, caught face up); everything else is read from counts and positions."""
    players = st[S_PLAYERS]
    n_cards = MAX_CARDS
    for x in range(n_cards):
        hidden[x] = 0
        for z in range(N_ZONES):
            pz[x, z] = 0
    for i in range(V_SIZE):
        vw[i] = 0
    vw[V_LED] = SUIT_NONE
    for i in range(n_ev):
        code = ev[i, 0]
        a = ev[i, 1]
        b = ev[i, 2]
        c = ev[i, 3]
        if code != EV_PASS_1_LEFT:
            vw[V_PASSES] = 0
        if code == EV_DEAL:  # A2: the starting cards (all of them are dealt)
            if a != s:
                hidden[b] = 1
                for q in range(players):
                    if q != s:
                        pz[b, Z_HAND + q] = 1
        elif code == EV_OCEAN:  # the tiers are public, the order is not
            t = tier[b]
            vw[V_POS_TIER + a] = t
            hidden[b] = 1
            pz[b, Z_OCEAN + t - 1] = 1
        elif code == EV_DRAW:  # (player, card, from the ocean, cause)
            if c != 0:
                src = Z_OCEAN + vw[V_POS_TIER + vw[V_TOP]] - 1
                vw[V_TOP] += 1
            else:
                src = _seg_pop1(vw, a)
            if a == s:
                hidden[b] = 0
            else:
                _spread(pz, hidden, n_cards, src, Z_HAND + a)
        elif code == EV_TRICK_START:  # (round, trick, leader, trump, flags)
            trump = ev[i, 4]
            vw[V_BASE] = 1 if trump == C_LIGHT else 2 if trump == C_DARK else 0
            colour = ((ev[i, 5] >> TS_COLOUR_SHIFT) & 15) - 1  # the original Fishing's
            vw[V_LED] = SUIT_NONE if colour < 0 else SUIT_TRUMP if colour == C_GREEN \
                else colour  # named suit (B4): the led suit from the first card on
            _clear_zone(pz, n_cards, Z_TRICK)
        elif code == EV_PLAY:
            suit = st[A_SUIT + vw[V_BASE] * MAX_CARDS + b]
            led = vw[V_LED]
            if a != s and led != SUIT_NONE and suit != led:
                kind = st[A_KIND + b]
                if kind != K_BLOWFISH and kind != K_BUOY:
                    # A5: not following shows that a holds no card of the led suit now
                    for x in range(n_cards):
                        if hidden[x] != 0 and st[A_SUIT + vw[V_BASE] * MAX_CARDS + x] == led:
                            pz[x, Z_HAND + a] = 0
            if led == SUIT_NONE and suit != SUIT_NONE:
                vw[V_LED] = suit
            hidden[b] = 0
        elif code == EV_CAUGHT or code == EV_CATCH_1_OTHER or code == EV_ZERO_CATCH \
                or code == EV_CATCH_ALL_OTHERS:
            # a card still in the trick to a's fisher: face up, or a face-down card
            if hidden[b] != 0:
                _spread(pz, hidden, n_cards, Z_TRICK, Z_FISHER + a)
        elif code == EV_CATCH_1_CARD:  # a hand card of a's choice to a's fisher, hidden
            if a != s:
                _spread(pz, hidden, n_cards, Z_HAND + a, Z_FISHER + a)
        elif code == EV_EXCHANGE:  # (player, taken, given)
            if hidden[b] != 0:  # the face-down card of an earlier exchange
                if a == s:
                    hidden[b] = 0
                else:
                    _spread(pz, hidden, n_cards, Z_TRICK, Z_HAND + a)
            elif a != s:  # a face-up card: now in a's hand
                hidden[b] = 1
                _only(pz, b, Z_HAND + a)
            if a != s:  # the given card lies face down in the trick
                _spread(pz, hidden, n_cards, Z_HAND + a, Z_TRICK)
            else:
                hidden[c] = 0
        elif code == EV_PASS_1_LEFT:  # (player, card, to): all pass at once (B3)
            if vw[V_PASSES] % players == 0:
                for x in range(n_cards):
                    for q in range(players):
                        snap[x, q] = pz[x, Z_HAND + q]
            vw[V_PASSES] += 1
            if a == s:
                hidden[b] = 1
                _only(pz, b, Z_HAND + c)
            elif c == s:
                hidden[b] = 0
            else:
                for x in range(n_cards):
                    if hidden[x] != 0 and snap[x, a] != 0:
                        pz[x, Z_HAND + c] = 1
        elif code == EV_ROUND_SCORE:  # (player, caught): the fisher goes under the boat
            r = vw[V_ROUND]
            zone = Z_BOAT + a * MAX_ROUNDS + r - 1
            for q in range(players):  # the hands are empty at a round's end
                _clear_zone(pz, n_cards, Z_HAND + q)
            _move_zone(pz, hidden, n_cards, Z_FISHER + a, zone)
            if b > 0:
                _seg_push(vw, a, zone, b)
        elif code == EV_BOAT:
            if hidden[b] == 0:  # a card seen in the fisher: its place in the boat is not
                hidden[b] = 1
                _only(pz, b, Z_BOAT + a * MAX_ROUNDS + vw[V_ROUND] - 1)
        elif code == EV_ROUND_START:
            vw[V_ROUND] = a
    # a game paused at exchange-1-card's give: the take has happened but is logged with
    # the give (one event): the taken card is in the taker's hand
    if st[S_END] == END_PAUSED and st[S_FIN_ON] != 0 and st[S_ASK_KIND] == D_EXCHANGE_GIVE:
        q = st[S_ASK_SEAT]
        taken = st[S_FIN_TAKEN]
        face_down = False
        for i in range(st[S_TRICK_N]):
            if st[A_TRICK_CARD + i] == taken and st[A_TRICK_IN + i] == 0:
                face_down = st[A_TRICK_FD + i] != 0
        if q == s:
            hidden[taken] = 0
        elif face_down and hidden[taken] != 0:  # which card it is stays unseen
            _spread(pz, hidden, n_cards, Z_TRICK, Z_HAND + q)
        else:
            hidden[taken] = 1
            _only(pz, taken, Z_HAND + q)


@njit(cache=True, _nrt=False)
def _slots(st, s, hidden, vw, pos, zone):
    """The places of s's hidden cards in the true state, in a fixed order, and their
    zones; returns how many (-1: a hidden card where the view has no zone for it)."""
    players = st[S_PLAYERS]
    n = 0
    for q in range(players):
        if q == s:
            continue
        for i in range(st[A_HAND_N + q]):
            pos[n] = A_HAND + q * MAX_HAND + i
            zone[n] = Z_HAND + q
            n += 1
    for i in range(st[S_OCEAN_TOP], st[S_OCEAN_LEN]):
        pos[n] = A_OCEAN + i
        zone[n] = Z_OCEAN + vw[V_POS_TIER + i] - 1
        n += 1
    for q in range(players):
        head = st[A_BOAT_HEAD + q]
        idx = 0
        j = vw[V_SEG_HEAD + q]
        for k in range(vw[V_SEG_COUNT + q]):
            jj = (j + k) % SEG_Q
            z = vw[V_SEG_ZONE + q * SEG_Q + jj]
            for m in range(vw[V_SEG_N + q * SEG_Q + jj]):
                pos[n] = A_BOAT + q * MAX_CARDS + (head + idx) % MAX_CARDS
                zone[n] = z
                n += 1
                idx += 1
        if idx != st[A_BOAT_N + q]:
            return -1
        for i in range(st[A_FISHER_N + q]):
            p = A_FISHER + q * MAX_CARDS + i
            if hidden[st[p]] != 0:
                pos[n] = p
                zone[n] = Z_FISHER + q
                n += 1
    for i in range(st[S_TRICK_N]):
        if st[A_TRICK_IN + i] != 0 and hidden[st[A_TRICK_CARD + i]] != 0:
            pos[n] = A_TRICK_CARD + i
            zone[n] = Z_TRICK
            n += 1
    return n


@njit(cache=True)
def sample_world(st, world, s, pz, hidden, vw, srng, pos, zone, cards, assign, cap, work):
    """Write into ``world`` a copy of st whose hidden cards (in s's view) are dealt again:
    each into one of its possible zones, every zone holding as many as in st. The result
    depends on st only through the view, the set of hidden cards and the zones' sizes,
    never on where each hidden card really is. Returns False if no world was found."""
    world[:] = st
    n = _slots(st, s, hidden, vw, pos, zone)
    if n < 0:
        return False
    # the hidden cards, in card order (not in the order of their true places)
    k = 0
    for c in range(MAX_CARDS):
        if hidden[c] != 0:
            cards[k] = c
            k += 1
    if k != n:
        return False
    for z in range(N_ZONES):
        cap[z] = 0
    for i in range(n):
        cap[zone[i]] += 1
    # most constrained cards first, ties in random order
    order = work[0]
    nallowed = work[1]
    for i in range(n):
        order[i] = i
    for i in range(n - 1, 0, -1):
        j = rand_below(srng, 0, i + 1)
        t = order[i]
        order[i] = order[j]
        order[j] = t
    for i in range(n):
        m = 0
        for z in range(N_ZONES):
            if pz[cards[i], z] != 0 and cap[z] > 0:
                m += 1
        if m == 0:
            return False
        nallowed[i] = m
    for i in range(1, n):  # stable insertion sort by the number of zones allowed
        v = order[i]
        j = i - 1
        while j >= 0 and nallowed[order[j]] > nallowed[v]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = v
    left = work[2]
    for z in range(N_ZONES):
        left[z] = cap[z]
    for i in range(n):
        assign[i] = -1
    parent = work[3]
    via = work[4]
    queue = work[5]
    for oi in range(n):
        e = order[oi]
        c = cards[e]
        total = 0
        for z in range(N_ZONES):
            if pz[c, z] != 0 and left[z] > 0:
                total += left[z]
        if total > 0:  # a zone with room, in proportion to its room
            r = rand_below(srng, 0, total)
            for z in range(N_ZONES):
                if pz[c, z] != 0 and left[z] > 0:
                    if r < left[z]:
                        assign[e] = z
                        left[z] -= 1
                        break
                    r -= left[z]
            continue
        # every zone allowed for c is full: move other cards along a path to a zone with
        # room (breadth first over zones)
        for z in range(N_ZONES):
            parent[z] = -2
        qh = 0
        qt = 0
        for z in range(N_ZONES):
            if pz[c, z] != 0 and cap[z] > 0:
                parent[z] = -1
                queue[qt] = z
                qt += 1
        found = -1
        while qh < qt and found < 0:
            z = queue[qh]
            qh += 1
            for e2 in range(n):
                if assign[e2] != z:
                    continue
                c2 = cards[e2]
                for z2 in range(N_ZONES):
                    if pz[c2, z2] != 0 and cap[z2] > 0 and parent[z2] == -2:
                        parent[z2] = z
                        via[z2] = e2
                        queue[qt] = z2
                        qt += 1
                        if left[z2] > 0:
                            found = z2
                            break
                if found >= 0:
                    break
        if found < 0:
            return False
        z = found
        left[z] -= 1
        while parent[z] >= 0:
            e2 = via[z]
            assign[e2] = z
            z = parent[z]
        assign[e] = z
    # each zone's places get its cards in random order
    for z in range(N_ZONES):
        if cap[z] == 0:
            continue
        m = 0
        for i in range(n):
            if assign[i] == z:
                work[6][m] = cards[i]
                m += 1
        for i in range(m - 1, 0, -1):
            j = rand_below(srng, 0, i + 1)
            t = work[6][i]
            work[6][i] = work[6][j]
            work[6][j] = t
        m = 0
        for i in range(n):
            if zone[i] == z:
                world[pos[i]] = work[6][m]
                m += 1
    return True


@njit(types.float64(ST, i64, i64, i64, i64), cache=True, _nrt=False)
def _value(br, s, players, objective, horizon):
    """Seat s's value of a rollout that stopped at its horizon: its points margin over the
    best other seat (objective OBJ_MARGIN; horizon HORIZON_LEARNED adds the learned estimate
    of the margin's change in the rounds still to play) or its share of the win (OBJ_WIN)."""
    best = best_points(br, players, s)
    mine = br[A_POINTS + s]
    if objective == OBJ_WIN:
        if mine < best:
            return 0.0
        if mine > best:
            return 1.0
        k = 1
        for q in range(players):
            if q != s and br[A_POINTS + q] == mine:
                k += 1
        return 1.0 / k
    if horizon == HORIZON_LEARNED:
        return float(mine - best) + rest_of_game(br, s)
    return float(mine - best)


@njit(void(ST, i64, RNG), cache=True, _nrt=False)
def _pending_passes(world, s, srng):
    """A world paused inside a pass-1-left (original Fishing) holds the cards the players
    before the searching seat chose to pass, which it cannot see: each is replaced by a
    card of that player's hand in this world if the world dealt it elsewhere."""
    if world[S_ASK_KIND] != D_PASS_1_LEFT or world[S_FIN_ON] == 0:
        return
    for j in range(world[S_FIN_K]):
        q = world[A_TRICK_PLAYER + j]
        if q == s:
            continue
        c = world[A_SCRATCH + q]
        n = world[A_HAND_N + q]
        held = False
        for i in range(n):
            if world[A_HAND + q * MAX_HAND + i] == c:
                held = True
                break
        if not held and n > 0:
            world[A_SCRATCH + q] = world[A_HAND + q * MAX_HAND + rand_below(srng, 0, n)]


@njit(void(ST, i64, i64, b1), cache=True)
def _reset_paused_world(world, robserve, players, pause):
    """A world to search in: no log, no checks; ``pause``: every seat's card plays and
    trump choices pause (the tree's steps), else none do (a rollout)."""
    world[S_FORCED] = 0
    world[S_LOG] = 0
    world[S_CHECK] = 0
    if pause:
        mask = 0
        obs_mask = robserve
        for p in range(players):
            mask |= (1 << (MAX_PLAYERS * D_PLAY + p)) | (1 << (MAX_PLAYERS * D_TRUMP_CHOICE + p))
            obs_mask &= ~((1 << (MAX_PLAYERS * (1 + D_PLAY) + p))
                          | (1 << (MAX_PLAYERS * (1 + D_TRUMP_CHOICE) + p)))
        world[S_SEARCH_MASK] = mask
        world[S_OBSERVE_MASK] = obs_mask
    else:
        world[S_SEARCH_MASK] = 0
        world[S_OBSERVE_MASK] = robserve


@njit(i64(I64_1, I64_1, I64_1, i64, i64), cache=True, _nrt=False)
def _child(child, sibling, action, node, opt):
    """The child of ``node`` reached by option ``opt`` (-1: none yet)."""
    c = child[node]
    while c >= 0 and action[c] != opt:
        c = sibling[c]
    return c


@njit(cache=True)
def _next_world(st, world, s, true_state, pz, hidden, vw, srng, pos, zone, cards, assign, cap,
                work):
    """The world of a search's next iteration: the true state (``true_state``: the cheater's
    and the flat search on the true state), else a world sampled from seat s's view. False
    if no world could be built (the state then carries the error)."""
    if true_state:
        world[:] = st
        return True
    if not sample_world(st, world, s, pz, hidden, vw, srng[s:s + 1], pos, zone, cards, assign,
                        cap, work):
        st[S_ERR_CODE] = ERR_NO_WORLD
        st[S_END] = END_ERROR
        return False
    _pending_passes(world, s, srng[s:s + 1])
    return True


@njit(void(ST, ST, i64), cache=True, _nrt=False)
def rollout_failed(st, world, s):
    """A strategy failed in one of search seat s's worlds: the game stops with the world's
    error and the options of the decision it broke. An illegal choice there is the rollout
    strategy's (every seat of s's worlds plays it; the search's own choices are options of
    the world): ERR_ROLLOUT_ILLEGAL with S_ERR_SEAT = s, so the message names that strategy
    and its search seat, never the real lineup's strategy in the world's seat."""
    take_branch_error(st, world)
    if st[S_ERR_CODE] == ERR_ILLEGAL_CHOICE:
        st[S_ERR_CODE] = ERR_ROLLOUT_ILLEGAL
        st[S_ERR_SEAT] = s


@njit(cache=True, _nrt=False)
def search_settings(sp, s):
    """Seat s's search settings in sp[s]: (method, worlds, rollouts, horizon, the rollouts'
    stop, objective)."""
    horizon = np.int64(sp[s, SP_HORIZON])
    stop = STOP_NEVER if horizon == HORIZON_GAME else STOP_AT_ROUND_END
    return (np.int64(sp[s, SP_METHOD]), np.int64(sp[s, SP_WORLDS]),
            np.int64(sp[s, SP_ROLLOUTS]), horizon, stop, np.int64(sp[s, SP_OBJECTIVE]))


@njit(cache=True)
def ismcts_decide(st, ev, n_ev, tier, deck, sp, srng, rstrats, rparams, robserve, robs,
                  world, br, br_rng, view, pos, zone, cards, assign, cap, work, values):
    """Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012): each of
    ``worlds`` iterations samples a world from the seat's view and walks one tree of
    decisions (every seat's card plays and trump choices, in the order the game asks
    them) with UCB1 over the options legal in that world (counted by availability),
    adds one node, then plays on with the rollout lineup to the horizon; every node on
    the path is credited with the value for the seat that chose its option. The most
    visited option of the root is chosen."""
    s = st[S_ASK_SEAT]
    n_opt = st[S_N_OPTIONS]
    players = st[S_PLAYERS]
    method, iters, n_roll, horizon, stop, objective = search_settings(sp, s)
    scale = 1.0 if objective == OBJ_WIN else REWARD_SCALE_MARGIN
    cheat = method == METHOD_CHEATER
    pz, hidden, vw, snap = view
    if not cheat:
        build_view(st, ev, n_ev, tier, s, pz, hidden, vw, snap)
    m = iters + 2
    action = np.empty(m, np.int64)
    player = np.empty(m, np.int64)
    parent = np.empty(m, np.int64)
    child = np.empty(m, np.int64)  # first child
    sibling = np.empty(m, np.int64)
    visits = np.zeros(m, np.float64)
    avail = np.zeros(m, np.float64)
    reward = np.zeros(m, np.float64)
    path = np.empty(m, np.int64)
    nodes = 1
    parent[0] = -1
    child[0] = -1
    sibling[0] = -1
    action[0] = -1
    player[0] = -1
    base = next_u64(srng, s)
    work[7][0] += 1
    work[7][2] += iters
    for it in range(iters):
        if not _next_world(st, world, s, cheat, pz, hidden, vw, srng, pos, zone, cards,
                           assign, cap, work):
            return -1
        _reset_paused_world(world, robserve, players, True)
        seed_streams(br_rng, mix64(base + np.uint64(it)))
        for q in range(robs.shape[0]):
            robs[q, O_N_PLAYED] = -1
        node = 0
        depth = 0
        path[0] = 0
        expanded = False
        while world[S_END] == END_PAUSED and not expanded:
            q = world[S_ASK_SEAT]
            k = world[S_N_OPTIONS]
            # availability: every child whose option is legal here was available
            untried = 0
            for i in range(k):
                opt = world[A_OPTIONS + i]
                c = _child(child, sibling, action, node, opt)
                if c >= 0:
                    avail[c] += 1.0
                else:
                    untried += 1
            if untried > 0 and nodes < m:
                r = rand_below(srng, s, untried)
                pick = -1
                for i in range(k):
                    opt = world[A_OPTIONS + i]
                    c = _child(child, sibling, action, node, opt)
                    if c < 0:
                        if r == 0:
                            pick = opt
                            break
                        r -= 1
                c = nodes
                nodes += 1
                action[c] = pick
                player[c] = q
                parent[c] = node
                child[c] = -1
                sibling[c] = child[node]
                child[node] = c
                avail[c] = 1.0
                expanded = True
            else:
                best = -1
                best_u = -1e300
                for i in range(k):
                    opt = world[A_OPTIONS + i]
                    c = _child(child, sibling, action, node, opt)
                    if c < 0:
                        continue
                    u = reward[c] / (visits[c] * scale) + UCB_C * np.sqrt(
                        np.log(avail[c]) / visits[c])
                    if u > best_u:
                        best_u = u
                        best = c
                c = best
                if c < 0:  # the tree is full: play on without it
                    break
            node = c
            depth += 1
            path[depth] = node
            world[S_FORCED] = action[node] + 1
            world[S_END] = END_RUNNING
            run_game(world, br_rng, ev, deck, robs, rstrats, rparams, stop)
            if world[S_ERR_CODE] != 0:
                break
        # play on with the rollout lineup (from a pause, the rollout strategy decides);
        # a world that reached the horizon (or the game's end) is valued as it is
        total = np.zeros(MAX_PLAYERS, np.float64)
        if world[S_ERR_CODE] == 0:
            if world[S_END] == END_PAUSED:
                _reset_paused_world(world, robserve, players, False)
                world[S_END] = END_RUNNING
                for rr in range(n_roll):
                    br[:] = world
                    if rr > 0:
                        seed_streams(br_rng, mix64(base + np.uint64(it * 1009 + rr)))
                    for q in range(robs.shape[0]):
                        robs[q, O_N_PLAYED] = -1
                    run_game(br, br_rng, ev, deck, robs, rstrats, rparams, stop)
                    work[7][1] += 1
                    if br[S_ERR_CODE] != 0:
                        world[:] = br
                        break
                    for q in range(players):
                        total[q] += _value(br, q, players, objective, horizon)
            else:
                for q in range(players):
                    total[q] += _value(world, q, players, objective, horizon) * n_roll
        if world[S_ERR_CODE] != 0:
            rollout_failed(st, world, s)
            return -1
        for d in range(1, depth + 1):
            c = path[d]
            visits[c] += n_roll
            reward[c] += total[player[c]]
    # the most visited option at the root (ties: the first option)
    best = 0
    best_v = -1.0
    for i in range(n_opt):
        opt = st[A_OPTIONS + i]
        c = _child(child, sibling, action, 0, opt)
        v = visits[c] if c >= 0 else 0.0
        values[i] = reward[c] / visits[c] if c >= 0 and visits[c] > 0 else 0.0
        if v > best_v:
            best_v = v
            best = i
    return st[A_OPTIONS + best]


@njit(cache=True)
def search_decide(st, ev, n_ev, tier, deck, sp, srng, rstrats, rparams, robserve, robs,
                  world, br, br_rng, view, pos, zone, cards, assign, cap, work, values):
    """The choice of the paused search seat st[S_ASK_SEAT] among the options at
    A_OPTIONS (values[i]: option i's mean value). ``rstrats[s]``, ``rparams[s]``,
    ``robserve[s]``: seat s's rollout lineup, its parameter table and observe mask.
    Returns -1 if no world could be built (the state then carries the error)."""
    s = st[S_ASK_SEAT]
    rs = rstrats[s]
    rp = rparams[s]
    ro = robserve[s]
    kind = st[S_ASK_KIND]
    n_opt = st[S_N_OPTIONS]
    players = st[S_PLAYERS]
    method, worlds, n_roll, horizon, stop, objective = search_settings(sp, s)
    pz, hidden, vw, snap = view
    if method == METHOD_ISMCTS or method == METHOD_CHEATER:
        return ismcts_decide(st, ev, n_ev, tier, deck, sp, srng, rs, rp, ro,
                             robs, world, br, br_rng, view, pos, zone, cards, assign, cap, work,
                             values)
    for i in range(n_opt):
        values[i] = 0.0
    if method == METHOD_PIMC and sp[s, SP_MARGIN] > 0.0:
        sure = sure_choice(st, robs, rp, sp[s, SP_MARGIN])
        if sure >= 0:  # not searched: the student's choice (values 0)
            work[7][3] += 1
            return sure
    if method == METHOD_PIMC:
        build_view(st, ev, n_ev, tier, s, pz, hidden, vw, snap)
    base = next_u64(srng, s)
    work[7][0] += 1
    work[7][2] += worlds
    for w in range(worlds):
        if not _next_world(st, world, s, method != METHOD_PIMC, pz, hidden, vw, srng, pos,
                           zone, cards, assign, cap, work):
            return -1
        world[S_SEARCH_MASK] = 0
        world[S_FORCED] = 0
        world[S_LOG] = 0
        world[S_CHECK] = 0
        world[S_OBSERVE_MASK] = ro
        world[S_END] = END_RUNNING
        for i in range(n_opt):
            option = st[A_OPTIONS + i]
            for r in range(n_roll):
                br[:] = world
                seed_streams(br_rng, mix64(base + np.uint64(w * 1000003 + r)))
                for q in range(robs.shape[0]):
                    robs[q, O_N_PLAYED] = -1  # the played list is copied afresh
                br[S_FORCED] = option + 1  # the paused decision resumes with it
                run_game(br, br_rng, ev, deck, robs, rs, rp, stop)
                work[7][1] += 1
                if br[S_ERR_CODE] != 0:  # a rollout strategy failed: the game stops
                    rollout_failed(st, br, s)
                    return -1
                values[i] += _value(br, s, players, objective, horizon)
    best = 0
    for i in range(1, n_opt):
        if values[i] > values[best]:
            best = i
    for i in range(n_opt):
        values[i] /= max(1, worlds * n_roll)
    return st[A_OPTIONS + best]


EVENT_ROWS = 16384  # a whole game's event log (api.EVENT_CAPACITY)
SEARCH_SALT = np.uint64(0x5EA2C4B07D1E5EED)


@njit(cache=True)
def new_search_work():
    """The search's buffers: (world, branch, branch streams, places, zones, cards,
    assignment, zone sizes, scratch rows, option values). Scratch row 7 counts the
    searches: [decisions, rollouts, worlds, decisions left to the student (close.py)]."""
    return (np.zeros(STATE_SIZE, np.int64), np.zeros(STATE_SIZE, np.int64),
            np.zeros(RNG_SIZE, np.uint64), np.zeros(MAX_CARDS, np.int64),
            np.zeros(MAX_CARDS, np.int64), np.zeros(MAX_CARDS, np.int64),
            np.zeros(MAX_CARDS, np.int64), np.zeros(N_ZONES, np.int64),
            np.zeros((8, MAX_CARDS), np.int64), np.zeros(MAX_HAND, np.float64))


@njit(cache=True)
def search_scratch():
    """A search batch's buffers: (the rollouts' observation buffers, the seats' search
    streams, the view (new_view), the search's work (new_search_work))."""
    return new_buffers(), np.zeros(MAX_PLAYERS, np.uint64), new_view(), new_search_work()


@njit(cache=True)
def seed_search(srng, gseed):
    """Each seat's search stream of a game (apart from the game's own streams)."""
    for q in range(MAX_PLAYERS):
        srng[q] = mix64(gseed ^ SEARCH_SALT) + np.uint64(q + 1) * np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def start_search_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, first_leader,
                      gseed, check, observe_mask, search_mask, srng):
    """Set up a logged game of a batch with search seats (search_mask) and seed their
    search streams."""
    setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, first_leader,
               gseed, 1, check, observe_mask)
    st[S_SEARCH_MASK] = search_mask
    seed_search(srng, gseed)


@njit(cache=True)
def play_batch_search(deck, players, ruleset, hand_sizes, n_rounds, first_leader, seed, start,
                      n, strats, params, check, observe_mask, search_mask, sp, rstrats, rparams,
                      robserve, work, ev, out_int, out_points, out_ocean, out_trump,
                      out_round_points, stats):
    """play_batch with search seats (bit MAX_PLAYERS * kind + seat of search_mask; their
    parameters in sp[seat]): the same games, each seat's decisions by its strategy in
    ``strats`` except the searched ones, answered by search_decide with rollouts of seat
    s's rollout lineup ``rstrats[s]`` (rparams[s], robserve[s]). ``ev``: the event log of the game in play (at
    least EVENT_ROWS rows; the search reads it, and after the call it holds the last
    game's log). stats[0..2] += searched decisions, rollouts, worlds (stats[3], if there is
    one, += decisions left to the student unsearched: close.py). Returns the number
    of games played."""
    st = work[0]
    rng = np.zeros(RNG_SIZE, np.uint64)
    obs = new_buffers()
    tier = deck[:, F_TIER].copy()
    robs, srng, view, search_work = search_scratch()
    world, br, br_rng, pos, zone, cards, assign, cap, scratch, values = search_work
    played = n
    for g in range(n):
        gs = game_seed(seed, start + g)
        start_search_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds,
                          first_leader, gs, check, observe_mask, search_mask, srng)
        run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
        while st[S_END] == END_PAUSED:
            choice = search_decide(st, ev, st[S_EVN], tier, deck, sp, srng, rstrats, rparams,
                                   robserve, robs, world, br, br_rng, view, pos, zone, cards,
                                   assign, cap, scratch, values)
            if choice < 0:
                break
            st[S_FORCED] = choice + 1
            st[S_END] = END_RUNNING
            run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
        record_game(st, g, tier, out_int, out_points, out_ocean, out_trump, out_round_points,
                    players)
        if st[S_ERR_CODE] != 0:
            played = g + 1
            break
    for i in range(min(stats.shape[0], 4)):
        stats[i] += scratch[7][i]
    return played


@njit(cache=True)
def audit_views(deck, players, ruleset, hand_sizes, n_rounds, seed, n, strats, params,
                observe_mask, worlds, out, out_points):
    """A check of the view and the sampler (tests and docs/search.md): plays n games in
    which every decision of every seat pauses; at every pause, for every seat,
    the true place of each card must be one the seat's view allows, and ``worlds`` sampled
    worlds must put every hidden card in an allowed zone, keep every zone's count and
    change nothing else. The choice then is the reference random one (the seat's own
    stream), so the games are the random-vs-random games of play_batch, resumed at every
    decision (out_points[g]: their final points). out: [views checked, cards checked,
    true places not allowed, worlds sampled, worlds not found, world cards not allowed,
    worlds changing anything else, hidden cards (sum)]."""
    st = work_st = np.zeros(STATE_SIZE, np.int64)
    rng = np.zeros(RNG_SIZE, np.uint64)
    ev = np.zeros((EVENT_ROWS, EV_FIELDS), np.int64)
    obs = new_buffers()
    tier = deck[:, F_TIER].copy()
    srng = np.zeros(MAX_PLAYERS, np.uint64)
    pz, hidden, vw, snap = new_view()
    world, br, br_rng, pos, zone, cards, assign, cap, scratch, values = new_search_work()
    all_mask = 0
    for p in range(players):
        for k in range(N_DECISIONS):
            all_mask |= 1 << (MAX_PLAYERS * k + p)
            # a paused decision must not be drawn by the engine as a random seat's
            observe_mask &= ~(1 << (MAX_PLAYERS * (1 + k) + p))
    for g in range(n):
        gs = game_seed(seed, g)
        setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, -1, gs, 1, 0,
                   observe_mask)
        st[S_SEARCH_MASK] = all_mask
        seed_search(srng, gs)
        run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
        while st[S_END] == END_PAUSED:
            for s in range(players):
                build_view(st, ev, st[S_EVN], tier, s, pz, hidden, vw, snap)
                out[0] += 1
                m = _slots(st, s, hidden, vw, pos, zone)
                nh = 0
                for c in range(MAX_CARDS):
                    nh += hidden[c]
                out[7] += nh
                if m != nh:
                    out[2] += 1
                    continue
                for i in range(m):
                    out[1] += 1
                    c = st[pos[i]]
                    if hidden[c] == 0 or pz[c, zone[i]] == 0:
                        out[2] += 1
                for w in range(worlds):
                    out[3] += 1
                    if not sample_world(st, world, s, pz, hidden, vw, srng[s:s + 1], pos,
                                        zone, cards, assign, cap, scratch):
                        out[4] += 1
                        continue
                    for i in range(m):
                        c = world[pos[i]]
                        if c < 0 or c >= MAX_CARDS or hidden[c] == 0 or pz[c, zone[i]] == 0:
                            out[5] += 1
                    # the same cards in the hidden places, nothing else changed
                    for i in range(m):
                        world[pos[i]] = -world[pos[i]] - 1
                    for i in range(m):
                        c = -world[pos[i]] - 1
                        found = False
                        for j in range(m):
                            if st[pos[j]] == c and world[pos[j]] < 0:
                                found = True
                                break
                        if not found:
                            out[6] += 1
                    for i in range(m):
                        world[pos[i]] = st[pos[i]]
                    for i in range(STATE_SIZE):
                        if world[i] != st[i]:
                            out[6] += 1
                            break
            seat = st[S_ASK_SEAT]
            choice = st[A_OPTIONS + rand_below(rng, 1 + seat, st[S_N_OPTIONS])]
            st[S_FORCED] = choice + 1
            st[S_END] = END_RUNNING
            run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
        for p in range(players):
            out_points[g, p] = st[A_POINTS + p]
        if st[S_ERR_CODE] != 0:
            return g
    return n


@njit(cache=True)
def play_to_pause(deck, players, ruleset, hand_sizes, n_rounds, first_leader, gseed, strats,
                  params, observe_mask, search_mask, skip, st, rng, ev):
    """Play a logged game until its (skip + 1)-th pause at a search seat (earlier pauses
    are answered with the first option); returns False if the game ended first. For tests
    and tools: st, rng, ev then hold the paused game (search_decide's input)."""
    obs = new_buffers()
    setup_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds, first_leader, gseed,
               1, 0, observe_mask)
    st[S_SEARCH_MASK] = search_mask
    run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
    for k in range(skip):
        if st[S_END] != END_PAUSED:
            return False
        st[S_FORCED] = st[A_OPTIONS] + 1
        st[S_END] = END_RUNNING
        run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
    return st[S_END] == END_PAUSED


@njit(cache=True)
def decide_once(st, ev, deck, sp, sseed, rstrats, rparams, robserve, values):
    """search_decide on a paused game (a copy of it: st is not changed), with the search
    streams seeded from ``sseed``; the option values go to ``values``."""
    tier = deck[:, F_TIER].copy()
    robs, srng, view, search_work = search_scratch()
    seed_search(srng, sseed)
    world, br, br_rng, pos, zone, cards, assign, cap, scratch, vals = search_work
    cp = st.copy()
    choice = search_decide(cp, ev, cp[S_EVN], tier, deck, sp, srng, rstrats, rparams,
                           robserve, robs, world, br, br_rng, view, pos, zone, cards, assign,
                           cap, scratch, vals)
    for i in range(cp[S_N_OPTIONS]):
        values[i] = vals[i]
    return choice


@njit(cache=True)
def replay_searching(st, rng, ev, deck, obs, strats, params, searched, sp, sp_one, srng,
                     rstrats, rparams, robserve, n_spread, seed, out_meta, out_values,
                     out_spread, k):
    """Play a paused-at-will game (report/replay.py) on from its state: each pause at a
    searched decision (bit MAX_PLAYERS * kind + seat of ``searched``) is answered by
    search_decide with the game's search streams ``srng``, as play_batch_search answers it,
    and recorded as row k, k + 1, ... : out_meta[k] = [seat, kind, event count, options,
    choice], then the options; out_values[k]: their values; out_spread[k, i] (a pimc
    seat): the 10th and 90th percentile of option i's value in n_spread searches of one
    sampled world each
    (``sp_one``, seeds seed + k * n_spread + 1 ...; they leave the game's streams as they
    are). Returns the next row when the game pauses at another decision (a seat answered by
    the caller) or ends (-1 - row if a search found no world)."""
    tier = deck[:, F_TIER].copy()
    robs = new_buffers()
    view = new_view()
    world, br, br_rng, pos, zone, cards, assign, cap, scratch, values = new_search_work()
    wvals = np.zeros((max(n_spread, 1), MAX_HAND), np.float64)
    one = np.zeros(MAX_HAND, np.float64)
    while True:
        run_game(st, rng, ev, deck, obs, strats, params, STOP_NEVER)
        if st[S_END] != END_PAUSED or st[S_ERR_CODE] != 0:
            return k
        seat = st[S_ASK_SEAT]
        kind = st[S_ASK_KIND]
        if not (searched >> (MAX_PLAYERS * kind + seat)) & 1:
            return k
        if k >= out_meta.shape[0]:
            return k
        n = st[S_N_OPTIONS]
        spread = n_spread if np.int64(sp[seat, SP_METHOD]) == METHOD_PIMC else 0
        for w in range(spread):
            if decide_once(st, ev, deck, sp_one, seed + np.uint64(k * n_spread + w + 1),
                           rstrats, rparams, robserve, one) < 0:
                return -1 - k
            for i in range(n):
                wvals[w, i] = one[i]
        for i in range(n):
            if spread > 0:
                out_spread[k, i, 0] = np.percentile(wvals[:spread, i], 10.0)
                out_spread[k, i, 1] = np.percentile(wvals[:spread, i], 90.0)
        choice = search_decide(st, ev, st[S_EVN], tier, deck, sp, srng, rstrats, rparams,
                               robserve, robs, world, br, br_rng, view, pos, zone, cards,
                               assign, cap, scratch, values)
        if choice < 0:
            return -1 - k
        out_meta[k, 0] = seat
        out_meta[k, 1] = kind
        out_meta[k, 2] = st[S_EVN]
        out_meta[k, 3] = n
        out_meta[k, 4] = choice
        for i in range(n):
            out_meta[k, 5 + i] = st[A_OPTIONS + i]
            out_values[k, i] = values[i]
        k += 1
        st[S_FORCED] = choice + 1
        st[S_END] = END_RUNNING


@njit(cache=True)
def trump_batch_search(deck, players, ruleset, hand_sizes, n_rounds, first_leader, seed,
                       start, n, strats, params, check, observe_mask, search_mask, sp, rstrats,
                       rparams, robserve, work, max_round, out_int, out_points, out_ocean,
                       out_trump, out_round_points, out_pairs):
    """batch.trump_batch with search seats (docs/search.md): the chooser's choice is its
    search's when it searches trump choices; the four replays of each choice play on
    without searching. The games are those of play_batch_search."""
    st = work[0]
    br = work[1]
    rng, rep_rng, ev, obs, tier = game_scratch(deck, np.int64(EVENT_ROWS))  # (not a literal)
    robs, srng, view, search_work = search_scratch()
    world, sbr, br_rng, pos, zone, cards, assign, cap, scratch, values = search_work
    for g in range(n):
        gseed = game_seed(seed, start + g)
        start_search_game(st, rng, ev, deck, players, ruleset, hand_sizes, n_rounds,
                          first_leader, gseed, check, observe_mask, search_mask, srng)
        for r in range(MAX_ROUNDS + 1):
            out_pairs[g, r, T_CHOOSER] = -1
        while True:
            run_game(st, rng, ev, deck, obs, strats, params, STOP_AT_TRUMP)
            while st[S_END] == END_PAUSED:  # a searched card play
                choice = search_decide(st, ev, st[S_EVN], tier, deck, sp, srng, rstrats,
                                       rparams, robserve, robs, world, sbr, br_rng, view, pos,
                                       zone, cards, assign, cap, scratch, values)
                if choice < 0:
                    break
                st[S_FORCED] = choice + 1
                st[S_END] = END_RUNNING
                run_game(st, rng, ev, deck, obs, strats, params, STOP_AT_TRUMP)
            if st[S_PHASE] != PH_TRUMP or st[S_END] != END_RUNNING:
                break
            r = st[S_ROUND]
            choice = ask_trump_choice(st, rng, obs, strats, params)
            if choice < 0 and st[S_END] == END_PAUSED:
                opt = search_decide(st, ev, st[S_EVN], tier, deck, sp, srng, rstrats,
                                    rparams, robserve, robs, world, sbr, br_rng, view, pos,
                                    zone, cards, assign, cap, scratch, values)
                if opt < 0:
                    break
                st[S_END] = END_RUNNING
                choice = opt - OPT_SHADE
            if choice < 0:
                break
            if r <= max_round and not trump_pairs(st, rng, br, rep_rng, ev, deck, obs, strats,
                                                  params, players, gseed, r, choice,
                                                  out_pairs, g):
                break
            apply_trump_choice(st, ev, choice)
        record_game(st, g, tier, out_int, out_points, out_ocean, out_trump, out_round_points,
                    players)
        if st[S_ERR_CODE] != 0:
            return g + 1
    return n
