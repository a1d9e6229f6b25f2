"""Where does the student lose its teacher's points, and would features of a lead's suit
help? On a training run's positions (held-out games, numbered 0 mod 10):

1. the regret of a model (the shipped `skilled` unless --model) on Fishing 2 card plays
   with 2 options or more, by place in the trick and player count, and by round: the
   teacher's best value less the value of the model's pick, in points per decision, and
   each group's share of all that regret;
2. on the leads alone (--place lead, the default), the student's network shape fitted
   twice on the same positions, targets and held-out games (PyTorch, from the same seed):
   on the student's features, and on those plus the candidate lead features below
   (LEAD_FEATURES), and the held-out top-1 agreement and regret of both. --ablate adds
   each candidate alone and each left out. --place follow fits the card plays that follow
   with more than one player still to play instead (the same candidates, counted there,
   and FOLLOW_EXTRA), --place last the trick's last cards; --control replaces the
   candidates by noise of the same shape (what more inputs give without information).

    python research/diag_leads.py FOLDER [--model MODEL.npz] [--seeds 2] [--ablate]
        [--place lead|follow|last] [--control]

The candidate features read only the observation (docs/rules.md C): every card the seat
has not seen this round and that everyone knows to be in another hand counts 1 (for sure)
or 1/2 (perhaps); one of unknown place counts q, the share of the other hands' cards
that are of unknown place; one known to be in a boat, in the ocean or out of the game
counts 0. PyTorch (CPU: ``pip install torch``) is this diagnostic's dependency, not the
package's.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from numba import njit

from fishing2sim.engine.constants import (
    D_PLAY, HELD_MAYBE, HELD_SURE, K_BLOWFISH, MAX_CARDS, MAX_HAND, MAX_PLAYERS, O_CARD_KIND,
    O_HAND, O_HAND_N, O_HOLDER, O_KIND, O_LED, O_N_CARDS, O_N_OPTIONS, O_N_PLAYED, O_OPTIONS,
    O_PLAYED, O_PLAYERS, O_ROUND, O_SEAT, O_TRICK_N, SUIT_NONE, SUIT_TRUMP,
)
from fishing2sim.strategy.heuristics import power
from fishing2sim.strategy.observation import suit

LEAD_FEATURES = (
    "suit_known",        # the suit's cards in other hands (weighted as above) / 5
    "below_known",       # of those, the ones weaker than the lead (they follow under it) / 5
    "above_known",       # of those, the ones that could beat it / 5
    "suit_unseen",       # the suit's cards in other hands / 10 (how soon the suit runs out)
    "mine_after",        # the hand's other cards of the suit / 5
    "bosses_after",      # of those, the ones nothing in another hand beats / 3
    "hand_bosses_after",  # the hand's other cards that nothing in another hand beats / 5
    "trumps_known",      # trump cards in other hands / 5
    "fish_at_risk",      # unseen blowfish in other hands / 4, if the lead can be beaten
    "rank_in_suit",      # the share of the hand's other cards of the suit below the lead
    "unknown_share",     # q: the share of the other hands' cards of unknown place
)
N_LEAD = len(LEAD_FEATURES)


@njit(cache=False)
def _weights(obs, wt):
    """wt[c]: 1 / 0.5 for a card surely / perhaps in another hand, -1 for one of unknown
    place, 0 otherwise (seen this round, this seat's, in a boat, the ocean, out); returns
    q, the share of the other hands' cards that are of unknown place."""
    me = obs[O_SEAT]
    n_cards = obs[O_N_CARDS]
    hn = obs[O_HAND_N]
    seen = np.zeros(MAX_CARDS, np.bool_)
    for i in range(hn):
        seen[obs[O_HAND + i]] = True
    for i in range(obs[O_N_PLAYED]):
        seen[obs[O_PLAYED + i]] = True
    unknown = 0.0
    known = 0.0
    for c in range(n_cards):
        wt[c] = 0.0
        if seen[c]:
            continue
        h = obs[O_HOLDER + c]
        if h >= 0:
            if h % MAX_PLAYERS == me:
                continue
            q = h // MAX_PLAYERS
            if q == HELD_SURE:
                wt[c] = 1.0
            elif q == HELD_MAYBE:
                wt[c] = 0.5
            known += wt[c]
        elif h == -1:
            wt[c] = -1.0
            unknown += 1.0
    if unknown <= 0:
        return 0.0
    q = ((obs[O_PLAYERS] - 1) * hn - known) / unknown
    return min(1.0, max(0.0, q))


@njit(cache=False)
def _place(obs):
    """0 leading, 1 following, 2 the trick's last card."""
    if obs[O_TRICK_N] == 0:
        return 0
    return 2 if obs[O_TRICK_N] >= obs[O_PLAYERS] - 1 else 1


@njit(cache=False)
def lead_features(obs_rows, out, place=0):
    """out[r, j, :]: the candidate features of option j of every lead (a card play with
    no card in the trick yet) in obs_rows; other rows and options are left as they are.
    place 1 computes them for following card plays instead (cards in the trick, more
    than one player still to play), place 2 for the trick's last card."""
    wt = np.zeros(MAX_CARDS)
    for r in range(obs_rows.shape[0]):
        obs = obs_rows[r]
        if obs[O_KIND] != D_PLAY or _place(obs) != place:
            continue
        n_cards = obs[O_N_CARDS]
        hn = obs[O_HAND_N]
        q = _weights(obs, wt)
        fish = 0.0
        for c in range(n_cards):
            if wt[c] != 0 and obs[O_CARD_KIND + c] == K_BLOWFISH:
                fish += 1.0
        for j in range(obs[O_N_OPTIONS]):
            card = obs[O_OPTIONS + j]
            if card < 0 or card >= n_cards:
                continue
            s = suit(obs, card)
            if s == SUIT_NONE:
                continue
            p = power(obs, card)
            same = below = above = trumps = 0.0
            for c in range(n_cards):
                if wt[c] == 0 or obs[O_CARD_KIND + c] == K_BLOWFISH:
                    continue
                x = wt[c] if wt[c] > 0 else q
                sc = suit(obs, c)
                if sc == SUIT_TRUMP:
                    trumps += x
                if sc == s:
                    same += x
                    if power(obs, c) < p:
                        below += x
                    else:
                        above += x
            mine = bosses = hand_bosses = lower = 0.0
            for i in range(hn):
                c2 = obs[O_HAND + i]
                s2 = suit(obs, c2)
                if c2 == card or s2 == SUIT_NONE:
                    continue
                p2 = power(obs, c2)
                threat = 0.0
                for c in range(n_cards):
                    if wt[c] != 0 and obs[O_CARD_KIND + c] != K_BLOWFISH and \
                            suit(obs, c) == s2 and power(obs, c) > p2:
                        threat += wt[c] if wt[c] > 0 else q
                boss = 1.0 if threat < 0.5 else 0.0
                hand_bosses += boss
                if s2 == s:
                    mine += 1.0
                    bosses += boss
                    if p2 < p:
                        lower += 1.0
            out[r, j, 0] = min(same / 5, 2.0)
            out[r, j, 1] = min(below / 5, 2.0)
            out[r, j, 2] = min(above / 5, 2.0)
            out[r, j, 3] = min(same / 10, 2.0)
            out[r, j, 4] = mine / 5
            out[r, j, 5] = bosses / 3
            out[r, j, 6] = hand_bosses / 5
            out[r, j, 7] = min(trumps / 5, 2.0)
            out[r, j, 8] = fish / 4 if above >= 0.5 else 0.0
            out[r, j, 9] = lower / mine if mine > 0 else 1.0
            out[r, j, 10] = q


FOLLOW_EXTRA = (
    "led_mine_after",  # the hand's other cards of the led suit / 5 (none led: 0)
    "void_after",      # the card follows and leaves none of the led suit in the hand
)


@njit(cache=False)
def follow_extra(obs_rows, out, place):
    """out[r, j, :]: the candidates FOLLOW_EXTRA of option j of the card plays at place."""
    for r in range(obs_rows.shape[0]):
        obs = obs_rows[r]
        if obs[O_KIND] != D_PLAY or _place(obs) != place:
            continue
        led = obs[O_LED]
        for j in range(obs[O_N_OPTIONS]):
            card = obs[O_OPTIONS + j]
            if card < 0 or card >= obs[O_N_CARDS]:
                continue
            mine = 0.0
            for i in range(obs[O_HAND_N]):
                c2 = obs[O_HAND + i]
                if led != SUIT_NONE and c2 != card and suit(obs, c2) == led:
                    mine += 1.0
            out[r, j, 0] = mine / 5
            out[r, j, 1] = 1.0 if suit(obs, card) == led and mine == 0 else 0.0


def _load(folder: Path):
    """(positions, features, blocks) of a training folder, as diag_context.py reads them."""
    try:
        from research.diag_context import load
    except ImportError:  # run as a script: benchmarks/ is the first import path
        from diag_context import load
    return load(folder)


def _lead_rows(data, idx, place=0):
    """The candidate features [len(idx), MAX_HAND, N_LEAD] of the positions idx (with
    FOLLOW_EXTRA after them for a place other than the lead)."""
    from fishing2sim.train.label import M_PLAYERS, M_RULESET
    from fishing2sim.train.labels import restore_obs
    m = data["meta"]
    width = N_LEAD + (len(FOLLOW_EXTRA) if place else 0)
    out = np.zeros((len(idx), MAX_HAND, width))
    for (rs, players), tail in zip(data["tail_keys"], data["tails"]):
        at = np.flatnonzero((m[idx, M_RULESET] == rs) & (m[idx, M_PLAYERS] == players))
        if len(at):
            part = np.zeros((len(at), MAX_HAND, width))
            obs = restore_obs(data["obs"][idx[at]], tail)
            lead_features(obs, part, place)
            if place:
                extra = np.zeros((len(at), MAX_HAND, len(FOLLOW_EXTRA)))
                follow_extra(obs, extra, place)
                part[:, :, N_LEAD:] = extra
            out[at] = part
    return out


def regret_table(data, X, blocks, model: Path) -> None:
    from fishing2sim.train.label import M_GAME, M_KIND, M_N_OPT, M_PLAYERS, M_RULESET
    from fishing2sim.student.model import read_model
    from fishing2sim.train.net import scores
    m = data["meta"]
    V = data["values"][:, :X.shape[1]]
    n_opt = m[:, M_N_OPT]
    real = np.arange(X.shape[1])[None, :] < n_opt[:, None]
    S = np.where(real, scores(X, blocks, read_model(model)["weights"]), -np.inf)
    best = np.where(real, V, -np.inf).max(1)
    regret = best - V[np.arange(len(V)), S.argmax(1)]
    stakes = best - np.where(real, V, 0).sum(1) / np.maximum(n_opt, 1)
    sel = (m[:, M_GAME] % 10 == 0) & (m[:, M_KIND] == D_PLAY) & (m[:, M_RULESET] == 0) & \
        (n_opt >= 2)
    obs = data["obs"]
    place = np.where(obs[:, O_TRICK_N] == 0, 0,
                     np.where(obs[:, O_TRICK_N] >= obs[:, O_PLAYERS] - 1, 2, 1))
    total = regret[sel].sum()
    print(f"{model.name}: {sel.sum():,} held-out Fishing 2 card plays with 2 options or "
          f"more; regret {regret[sel].mean():.3f} points a decision, top-1 "
          f"{(regret[sel] <= 1e-9).mean():.3f}")
    print("| place | players | decisions | regret a decision | share of all regret | stakes "
          "(best − mean) |")
    print("|---|---|---:|---:|---:|---:|")
    for p, name in enumerate(("leading", "following", "last")):
        for players in (3, 4, 5):
            s = sel & (place == p) & (m[:, M_PLAYERS] == players)
            if s.any():
                print(f"| {name} | {players} | {s.sum():,} | {regret[s].mean():.3f} | "
                      f"{regret[s].sum() / total:.1%} | {stakes[s].mean():.2f} |")
    print("by round: " + ", ".join(
        f"{r}: {regret[sel & (obs[:, O_ROUND] == r)].mean():.2f}"
        for r in range(1, 9) if (sel & (obs[:, O_ROUND] == r)).any()))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--model", type=Path, default=Path(__file__).resolve().parent.parent
                    / "fishing2sim" / "data" / "skilled.npz")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--temperature", type=float, default=8.0)
    ap.add_argument("--ablate", action="store_true")
    ap.add_argument("--place", choices=("lead", "follow", "last"), default="lead",
                    help="the card plays whose candidate features are fitted")
    ap.add_argument("--control", action="store_true",
                    help="replace the candidates by uniform noise of the same shape (what "
                         "a few more inputs give without information)")
    a = ap.parse_args(argv)
    place = ("lead", "follow", "last").index(a.place)
    import torch
    from torch import nn

    from fishing2sim.train.label import M_GAME, M_KIND, M_N_OPT, M_RULESET

    torch.set_num_threads(2)
    data, X, blocks = _load(a.folder)
    regret_table(data, X, blocks, a.model)
    m = data["meta"]
    n_opt = m[:, M_N_OPT].astype(np.int64)
    obs = data["obs"]
    at = np.where(obs[:, O_TRICK_N] == 0, 0,
                  np.where(obs[:, O_TRICK_N] >= obs[:, O_PLAYERS] - 1, 2, 1))
    idx = np.flatnonzero((m[:, M_KIND] == D_PLAY) & (m[:, M_RULESET] == 0) &
                         (at == place) & (n_opt >= 2))
    width = X.shape[1]
    XL = _lead_rows(data, idx, place)[:, :width].astype(np.float32)
    names = LEAD_FEATURES + (FOLLOW_EXTRA if place else ())
    if a.control:
        XL = np.random.default_rng(7).random(XL.shape).astype(np.float32)
    Xa = X[idx]
    V = data["values"][idx, :width].astype(np.float32)
    real = np.arange(width)[None, :] < n_opt[idx][:, None]
    held = m[idx, M_GAME] % 10 == 0
    _, block = np.unique(blocks[idx], return_inverse=True)
    print(f"\n{a.place}: {len(idx):,} Fishing 2 card plays there with 2 options or more, "
          f"{held.sum():,} held out")

    def fit(x, seed):
        torch.manual_seed(seed)
        nb, f = int(block.max()) + 1, x.shape[2]
        lin = nn.Parameter(torch.zeros(nb, f))
        W1 = nn.Linear(f, a.hidden, bias=False)
        c = nn.Parameter(torch.zeros(nb, a.hidden))
        u = nn.Parameter(torch.zeros(nb, a.hidden))
        opt = torch.optim.Adam([lin, c, u, *W1.parameters()], lr=3e-3)
        xt, vt, mt, bt = (torch.tensor(x), torch.tensor(V), torch.tensor(real),
                          torch.tensor(block))

        def score(rows):
            xb, b = xt[rows], bt[rows]
            s = (xb * lin[b][:, None, :]).sum(-1)
            s = s + (torch.relu(W1(xb) + c[b][:, None, :]) * u[b][:, None, :]).sum(-1)
            return s.masked_fill(~mt[rows], -1e9)

        rows = np.flatnonzero(~held)
        rng = np.random.default_rng(seed)
        for _ in range(a.epochs):
            rng.shuffle(rows)
            for i in range(0, len(rows), 512):
                r = torch.tensor(rows[i:i + 512])
                T = torch.softmax((vt[r] / a.temperature).masked_fill(~mt[r], -1e9), -1)
                loss = -(T * torch.log_softmax(score(r), -1)).sum(-1).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            for g in opt.param_groups:
                g["lr"] *= 0.7
        test = np.flatnonzero(held)
        with torch.no_grad():
            pick = score(torch.tensor(test)).numpy().argmax(1)
        best = np.where(real[test], V[test], -np.inf).max(1)
        regret = best - V[test][np.arange(len(test)), pick]
        return (regret <= 1e-9).mean(), regret.mean()

    t0 = time.perf_counter()
    for seed in range(a.seeds):
        b = fit(Xa, seed)
        w = fit(np.concatenate([Xa, XL], 2), seed)
        print(f"seed {seed}: the student's features: top-1 {b[0]:.3f}, regret {b[1]:.3f}; "
              f"with the {len(names)} candidates: top-1 {w[0]:.3f}, regret {w[1]:.3f} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    if a.ablate:
        base = fit(Xa, 0)[1]
        full = fit(np.concatenate([Xa, XL], 2), 0)[1]
        for f, name in enumerate(names):
            rest = [g for g in range(len(names)) if g != f]
            alone = fit(np.concatenate([Xa, XL[:, :, [f]]], 2), 0)[1]
            without = fit(np.concatenate([Xa, XL[:, :, rest]], 2), 0)[1]
            print(f"{name}: alone {alone - base:+.3f}, left out {without - full:+.3f} "
                  "(regret, seed 0)", flush=True)


if __name__ == "__main__":
    main()
