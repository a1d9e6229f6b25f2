"""benchmarks/diag_leads.py (docs/strategies.md, "Where the student's gap is"): its
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


def test_the_lead_features_count_what_the_table_knows():
    from benchmarks.diag_leads import N_LEAD, lead_features
    from fishing2sim.strategy.observation import suit

    checked = nonzero = 0
    for ruleset, players in (("fishing2", 4), ("fishing2", 3), ("fishing", 5)):
        d = label_games(ruleset, players, 11, 3, "weights", "pimc", [1, 1, 0, 0], 1.0, chunk=3)
        obs = restore_obs(d["obs"], d["tails"][0])
        out = np.full((len(obs), K.MAX_HAND, N_LEAD), -7.0)
        lead_features(obs, out)
        for r, o in enumerate(obs):
            lead = o[K.O_KIND] == K.D_PLAY and o[K.O_TRICK_N] == 0
            for i in range(int(d["meta"][r, M_N_OPT])):
                card = int(o[K.O_OPTIONS + i])
                if not lead or suit(o, card) == K.SUIT_NONE:
                    assert (out[r, i] == -7.0).all()  # not a lead's card: left as it was
                    continue
                ref = _reference(o, card)
                assert out[r, i].tolist() == pytest.approx(ref, abs=1e-9), (ruleset, r, card)
                checked += 1
                nonzero += np.count_nonzero(out[r, i, :10])
    assert checked > 300 and nonzero > 3 * checked  # the features are mostly not 0
