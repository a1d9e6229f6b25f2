"""research/diag_leads.py (docs/strategies.md, "Where the student's gap is"): its
candidate lead features, against a recount card by card with the kit's readers of the
public card places."""
from __future__ import annotations

import numpy as np
import pytest

from fishing2sim.engine import constants as K
from fishing2sim.train.label import M_N_OPT
from fishing2sim.train.labels import label_games, restore_obs


def _reference(o, card):
    """The eleven lead features of ``card``, one card at a time (the definitions of the
    diagnostic's docstring and LEAD_FEATURES)."""
    from fishing2sim.strategy.heuristics import held, holder, in_hand, power, was_played
    from fishing2sim.strategy.observation import suit

    me, players, n = int(o[K.O_SEAT]), int(o[K.O_PLAYERS]), int(o[K.O_HAND_N])
    weight, pool, known = {}, 0, 0.0
    for c in range(int(o[K.O_N_CARDS])):
        if in_hand(o, c) or was_played(o, c):
            continue
        place, who = held(o, c), holder(o, c)
        if who >= 0 and who != me and place in (K.HELD_SURE, K.HELD_MAYBE):
            weight[c] = 1.0 if place == K.HELD_SURE else 0.5
            known += weight[c]
        elif place == K.HOLDER_UNKNOWN:
            weight[c] = None
            pool += 1
    q = min(1.0, max(0.0, ((players - 1) * n - known) / pool)) if pool else 0.0

    def w(c):
        return q if weight[c] is None else weight[c]

    others = [c for c in weight if o[K.O_CARD_KIND + c] != K.K_BLOWFISH]
    s, p = suit(o, card), power(o, card)
    same = sum(w(c) for c in others if suit(o, c) == s)
    below = sum(w(c) for c in others if suit(o, c) == s and power(o, c) < p)
    trumps = sum(w(c) for c in others if suit(o, c) == K.SUIT_TRUMP)
    fish = len(weight) - len(others)
    hand = [int(o[K.O_HAND + i]) for i in range(n)]
    mine = [c for c in hand if c != card and suit(o, c) == s]

    def boss(c):
        return sum(w(x) for x in others if suit(o, x) == suit(o, c)
                   and power(o, x) > power(o, c)) < 0.5

    bosses_all = sum(boss(c) for c in hand if c != card and suit(o, c) != K.SUIT_NONE)
    return [min(same / 5, 2), min(below / 5, 2), min((same - below) / 5, 2),
            min(same / 10, 2), len(mine) / 5, sum(boss(c) for c in mine) / 3,
            bosses_all / 5, min(trumps / 5, 2),
            fish / 4 if same - below >= 0.5 else 0.0,
            sum(power(o, c) < p for c in mine) / len(mine) if mine else 1.0, q]


@pytest.fixture(scope="module")
def positions():
    """Labelled positions of 3-5 players of both rulesets (one set for both places)."""
    out = []
    for ruleset, players in (("fishing2", 4), ("fishing2", 3), ("fishing", 5)):
        d = label_games(ruleset, players, 11, 3, "weights", "pimc", [1, 1, 0, 0], 1.0, chunk=3)
        out.append((ruleset, players, d, restore_obs(d["obs"], d["tails"][0])))
    return out


@pytest.mark.parametrize("place", [0, 1])
def test_the_lead_features_count_what_the_table_knows(positions, place):
    """place 0: every lead's candidates; place 1 (--place follow): every following card's
    (cards in the trick, more than one player still to play), the same eleven and the two
    of FOLLOW_EXTRA; every other card play's left as it was."""
    from research.diag_leads import FOLLOW_EXTRA, N_LEAD, follow_extra, lead_features
    from fishing2sim.strategy.observation import suit

    checked = nonzero = 0
    for ruleset, players, d, obs in positions:
        out = np.full((len(obs), K.MAX_HAND, N_LEAD), -7.0)
        extra = np.full((len(obs), K.MAX_HAND, len(FOLLOW_EXTRA)), -7.0)
        lead_features(obs, out, place)
        follow_extra(obs, extra, place)
        for r, o in enumerate(obs):
            tn = int(o[K.O_TRICK_N])
            at = 0 if tn == 0 else (2 if tn >= players - 1 else 1)
            here = o[K.O_KIND] == K.D_PLAY and at == place
            for i in range(int(d["meta"][r, M_N_OPT])):
                card = int(o[K.O_OPTIONS + i])
                if not here:
                    assert (extra[r, i] == -7.0).all()
                if not here or suit(o, card) == K.SUIT_NONE:
                    assert (out[r, i] == -7.0).all()  # not a card of the place: as it was
                    continue
                ref = _reference(o, card)
                assert out[r, i].tolist() == pytest.approx(ref, abs=1e-9), (ruleset, r, card)
                led = int(o[K.O_LED])
                hand = [int(o[K.O_HAND + j]) for j in range(int(o[K.O_HAND_N]))]
                kept = sum(c != card and suit(o, c) == led for c in hand) \
                    if led != K.SUIT_NONE else 0
                assert extra[r, i].tolist() == [
                    kept / 5, 1.0 if suit(o, card) == led and kept == 0 else 0.0]
                checked += 1
                nonzero += np.count_nonzero(out[r, i, :10])
    assert checked > 300 and nonzero > 3 * checked  # the features are mostly not 0
