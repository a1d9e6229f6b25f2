"""Where the student and its teacher part, by round: the diagnostic behind docs/strategies.md
"What the student could not see, and the public card places".

Reads the labelled positions of a training run (``fishing2sim train ...``: the folder's
positions_*.npz) and a model, and prints, over the held-out games (game number divisible
by 10), for Fishing 2 card plays:

- leads with 3+ options: how often the teacher's values put the strongest card above the
  weakest, how often the student's scores do, and how often they agree, by round;
- contested tricks (following; some options would take the trick, some not): how often the
  teacher's best option takes it, how often the student's pick does, and their agreement.

With scikit-learn installed (not a dependency of the project) it also fits gradient-boosted
trees to the same two choices from the student's features of the two cards compared
(trained on the other games), to show how much any model could read from those features.

    python research/diag_places.py reports/skilled_policy fishing2sim/data/skilled.npz
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="a training run's folder (positions_*.npz)")
    ap.add_argument("model", type=Path, help="a model file (model.npz)")
    a = ap.parse_args()

    from fishing2sim.engine.constants import D_PLAY, O_ROUND, O_TRICK_N
    from fishing2sim.student.layout import F_WIN, FEATURE_NAMES
    from fishing2sim.train.label import M_GAME, M_KIND, M_N_OPT, M_RULESET
    from fishing2sim.train.labels import features_of, join, load_positions
    from fishing2sim.student.model import read_model
    from fishing2sim.train.net import scores

    d = join([load_positions(f) for f in sorted(a.folder.glob("positions_*.npz"))])
    X, blocks = features_of(d)
    m, vals, obs = d["meta"], d["values"].astype(np.float64), d["obs"]
    w = read_model(a.model)["weights"]
    power = FEATURE_NAMES.index("power")
    play = np.flatnonzero((m[:, M_RULESET] == 0) & (m[:, M_KIND] == D_PLAY) & (m[:, M_N_OPT] >= 2))
    S = scores(X[play], blocks[play], w)
    rows = {"lead": [], "contested": []}
    for j, r in enumerate(play):
        n = m[r, M_N_OPT]
        v, s, x = vals[r, :n], S[j, :n], X[r, :n]
        held = m[r, M_GAME] % 10 == 0
        if obs[r, O_TRICK_N] == 0 and n >= 3:
            top, low = int(np.argmax(x[:, power])), int(np.argmin(x[:, power]))
            rows["lead"].append((obs[r, O_ROUND], held, v[top] > v[low], s[top] > s[low],
                                 abs(v[top] - v[low]), np.concatenate([x[top], x[low]])))
        wins = x[:, F_WIN] > 0
        if obs[r, O_TRICK_N] > 0 and wins.any() and not wins.all():
            iw, il = np.flatnonzero(wins), np.flatnonzero(~wins)
            cw, cl = iw[np.argmin(x[iw, power])], il[np.argmin(x[il, power])]
            rows["contested"].append((obs[r, O_ROUND], held, v[wins].max() > v[~wins].max(),
                                      bool(wins[int(np.argmax(s))]),
                                      abs(v[wins].max() - v[~wins].max()),
                                      np.concatenate([x[cw], x[cl]])))
    try:
        from sklearn.ensemble import HistGradientBoostingClassifier
    except ImportError:
        HistGradientBoostingClassifier = None
    for what, label in (("lead", "strongest lead above the weakest"),
                        ("contested", "a contested trick taken")):
        rnd, held, y, st, gap, Z = (np.array([t[i] for t in rows[what]])
                                    for i in range(6))
        print(f"\n{what}: {len(y)} positions, {held.sum()} held out; {label}: teacher "
              f"{y.mean():.3f}, student {st.mean():.3f}")
        trees = None
        if HistGradientBoostingClassifier is not None and (~held).sum() > 100:
            g = HistGradientBoostingClassifier(max_iter=300, random_state=0)
            trees = g.fit(Z[~held], y[~held], sample_weight=gap[~held]).predict(Z)
        print("| round | held-out positions | teacher | student | agree | trees agree | "
              "points at stake |")
        print("|---|---|---|---|---|---|---|")
        for k in [*range(1, 9), 0]:
            sel = held & ((rnd == k) if k else True)
            if not sel.any():
                continue
            t = f"{(trees[sel] == y[sel]).mean():.3f}" if trees is not None else "–"
            print(f"| {k or 'all'} | {sel.sum()} | {y[sel].mean():.3f} | {st[sel].mean():.3f} | "
                  f"{(st[sel] == y[sel]).mean():.3f} | {t} | {gap[sel].mean():.2f} |")


if __name__ == "__main__":
    main()
