"""Tune a few decision biases of the student `skilled` on its win share: a policy step
beyond imitation (the student is fitted to a search's option values, not to winning).

The knobs act on Fishing 2's six card-play weight blocks (leading / following / last in
the trick, first or second half of the round; features.play_block), two per block:

- ``take_b``: added to the linear weight of the feature ``win`` (the card would be the
  trick's highest so far, features.wins_now): a score bonus (or malus) for taking;
- ``power_b`` (with ``--power LO HI``): added to the linear weight of the feature
  ``power`` (the card's strength now): a bonus (or malus) for spending strong cards;
- ``hidden_b``: the hidden layer's output row of the block times this factor (the
  network's share of the score against the linear block's).

With every knob at its neutral value (0 and 1) the weights are the model's own. Each trial
plays the same deals (common random numbers): the bot in one seat against three
``weights`` (every deal from every seat) and [A, A, B, B] against ``weights_tuned`` (every
deal in the 4 rotations); its objective is the mean of the two shares. Optuna's TPE
sampler proposes the knobs (the search is seeded); trials run two at a time on two
processes. The best trial's knobs are then measured on other deals against the model's
own weights (paired: the same deals and seats), which is the figure that counts: the
tuning deals' best is biased upward by the choice.

    python research/tune_student.py --trials 100 --deals 3000 --check-deals 5000
    python research/tune_student.py ... --out MODEL.npz   # keep the tuned model
    python research/tune_student.py --trials 150 --deals 1500 --check-deals 5000 \
        --overfishing 2000 --take -1.0 0.5 --hidden 0.5 1.5     # two objectives
    python research/tune_student.py ... --power -2.0 0.5      # and a power bonus

With ``--overfishing N`` the study has two objectives, the same mean share and the share
of N 5-player games (every seat the tuned bot, the same deals each trial) that end by
overfishing, to be lowered; Optuna's multi-objective TPE proposes the knobs. The trials on
the front (no other trial better in both) are printed, and the strongest of them whose
overfishing is at most --overfishing-goal is checked on other deals, its overfishing on
--check-overfishing other games.

Prints a line per trial, then the check's table; writes nothing else.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from fishing2sim.run.processes import pooled, submit_all
from fishing2sim.train.es import games, play_blocks  # noqa: F401  (the trials' games)

PLAY_FEATURE_WIN = 23  # features.py: the option would be the trick's highest so far
PLAY_FEATURE_POWER = 0  # features.py: the card's strength now


def tuned_weights(w: np.ndarray, knobs: dict) -> np.ndarray:
    """The model's weights (file order) with the knobs applied."""
    from fishing2sim.student.layout import N_FEATURES
    from fishing2sim.train.net import hidden_of, split

    w = np.array(w, np.float64)
    lin, _, _, u = split(w, hidden_of(w))  # views into w
    for i, b in enumerate(play_blocks()):
        lin[b, PLAY_FEATURE_WIN] += knobs.get(f"take_{i}", 0.0)
        lin[b, PLAY_FEATURE_POWER] += knobs.get(f"power_{i}", 0.0)
        u[b] *= knobs.get(f"hidden_{i}", 1.0)
    assert lin.shape[1] == N_FEATURES
    return w


def overfished(w_file_order, n: int, seed: int) -> np.ndarray:
    """1 for each of n 5-player games (every seat the bot) that ends by overfishing."""
    from fishing2sim.api import run_games
    from fishing2sim.engine.batch import G_END
    from fishing2sim.engine.constants import END_OVERFISHED

    kw = np.asarray(w_file_order, np.float64)
    a = run_games(n, 5, seed=seed, strategies=["skilled"] * 5, params=[kw] * 5)
    return (a["int"][:, G_END] == END_OVERFISHED).astype(np.float64)


def _trial(args):
    w, knobs, deals, seed, n_over = args
    tw = tuned_weights(w, knobs)
    g = games(tw, deals, seed)
    n = len(g) // 2
    over = float(overfished(tw, n_over, seed + 2).mean()) if n_over else float("nan")
    return float(g[:n].mean()), float(g[n:].mean()), over


def _map(pool, fn, args: list) -> list:
    """[fn(x) for x in args] on the pool's processes (which leave Ctrl-C to this one)."""
    return [f.result() for f in submit_all(pool, fn, [(x,) for x in args])]


def _refuse(message: str):
    """Bad input: one line on stderr and exit 2."""
    print(message, file=sys.stderr)
    raise SystemExit(2)


def check_args(a) -> None:
    """Every count and range sensible, --out a new file's name (or a model file's) in a
    folder that exists: otherwise one line and exit 2, before any game is played."""
    for name in ("trials", "deals"):
        if getattr(a, name) < 1:
            _refuse(f"--{name} {getattr(a, name)}: at least 1")
    if a.check_deals < 2:
        _refuse(f"--check-deals {a.check_deals}: at least 2 (two halves of other deals)")
    if a.overfishing < 0 or a.check_overfishing < 1:
        _refuse("--overfishing: 0 (off) or more games; --check-overfishing: at least 1")
    for name in ("take", "hidden", "power"):
        r = getattr(a, name)
        if r is not None and not r[0] < r[1]:
            _refuse(f"--{name} {r[0]:g} {r[1]:g}: LO must be below HI")
    if a.hidden[0] < 0:
        _refuse(f"--hidden {a.hidden[0]:g} {a.hidden[1]:g}: a factor is not negative")
    if a.out is not None:
        check_out(a.out)


def check_place(flag: str, name: str, what: str):
    """The Path ``name`` if it is no link nor folder, in a folder that exists: otherwise
    one line naming ``flag`` and exit 2."""
    from pathlib import Path

    p = Path(name)
    if p.is_symlink() or p.is_dir() or not p.parent.is_dir():
        _refuse(f"{flag} {name}: " + ("a symbolic link" if p.is_symlink() else
                                      f"a folder, not {what}" if p.is_dir()
                                      else f"no folder {p.parent}"))
    return p


def check_out(name: str) -> None:
    """--out names a new file, or a model file to write over, in a folder that exists:
    otherwise one line and exit 2 (research/es_student.py checks its --out so too)."""
    out = check_place("--out", name, "a model file's name")
    if out.exists():  # only a model file may be written over (a FIFO, yours: never)
        from fishing2sim.student.model import ModelError, read_model

        try:
            if not out.is_file():
                raise ModelError("not a regular file")
            read_model(out)
        except ModelError:
            _refuse(f"--out {name}: a file that is not a model file stands there; "
                    "it is left as it is: choose another name")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--deals", type=int, default=3000,
                    help="tuning deals (x 4 seats, x 2 rows)")
    ap.add_argument("--check-deals", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=20261203, help="the tuning deals' seed")
    ap.add_argument("--check-seed", type=int, default=20261301)
    ap.add_argument("--sampler-seed", type=int, default=1)
    ap.add_argument("--out", default=None, metavar="MODEL.npz")
    ap.add_argument("--take", type=float, nargs=2, default=[-0.4, 0.4], metavar=("LO", "HI"),
                    help="the take bonuses' range (score units)")
    ap.add_argument("--hidden", type=float, nargs=2, default=[0.6, 1.4], metavar=("LO", "HI"),
                    help="the hidden-output factors' range")
    ap.add_argument("--power", type=float, nargs=2, default=None, metavar=("LO", "HI"),
                    help="also a power bonus per block, in this range (score units)")
    ap.add_argument("--overfishing", type=int, default=0, metavar="N",
                    help="5-player games a trial: overfishing as a second objective")
    ap.add_argument("--overfishing-goal", type=float, default=0.401)
    ap.add_argument("--check-overfishing", type=int, default=20000)
    a = ap.parse_args()
    check_args(a)

    import optuna

    from fishing2sim.student.model import model_path, read_model
    from fishing2sim.train.model import save_model

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    d = read_model(model_path("skilled.npz"))
    w = d["weights"]
    two = a.overfishing > 0
    study = optuna.create_study(directions=["maximize", "minimize"] if two else ["maximize"],
                                sampler=optuna.samplers.TPESampler(seed=a.sampler_seed))
    study.enqueue_trial({**{f"take_{i}": 0.0 for i in range(6)},
                         **{f"hidden_{i}": 1.0 for i in range(6)},
                         **({f"power_{i}": 0.0 for i in range(6)} if a.power else {})})
    t0 = time.perf_counter()
    with pooled(2) as pool:
        done = 0
        while done < a.trials:
            batch = [study.ask() for _ in range(min(2, a.trials - done))]
            for t in batch:
                for i in range(6):
                    t.suggest_float(f"take_{i}", *a.take)
                    t.suggest_float(f"hidden_{i}", *a.hidden)
                    if a.power:
                        t.suggest_float(f"power_{i}", *a.power)
            res = _map(pool, _trial, [(w, t.params, a.deals, a.seed, a.overfishing)
                                      for t in batch])
            for t, (sw, st, ov) in zip(batch, res):
                study.tell(t, [(sw + st) / 2, ov] if two else (sw + st) / 2)
                print(f"trial {t.number}: vs weights {sw:.3f}, vs weights_tuned {st:.3f}, "
                      f"mean {(sw + st) / 2:.4f}"
                      + (f", overfishing {ov:.3f}" if two else "")
                      + f" ({time.perf_counter() - t0:.0f} s)", flush=True)
            done += len(batch)
        if two:
            front = sorted(study.best_trials, key=lambda t: t.values[1])
            print("the front (strength, overfishing):", flush=True)
            for t in front:
                print(f"  trial {t.number}: mean {t.values[0]:.4f}, overfishing "
                      f"{t.values[1]:.3f}", flush=True)
            ok = [t for t in front if t.values[1] <= a.overfishing_goal]
            if not ok:
                print(f"no trial overfishes in at most {a.overfishing_goal:.3f}")
                return
            best = max(ok, key=lambda t: t.values[0])
        else:
            best = study.best_trial
        print("best:", json.dumps({k: round(v, 3) for k, v in best.params.items()}),
              f"values {best.values} (neutral: {study.trials[0].values})", flush=True)
        # the check: other deals, the tuned and the model's own weights, paired
        half = a.check_deals // 2
        parts = [(w, best.params, half, a.check_seed), (w, best.params, a.check_deals - half,
                                                        a.check_seed + 7),
                 (w, {}, half, a.check_seed), (w, {}, a.check_deals - half, a.check_seed + 7)]
        g = _map(pool, _games_args, parts)
        if two:
            over = _map(pool, _over_args, [(w, best.params, a.check_overfishing,
                                            a.check_seed + 11), (w, {}, a.check_overfishing,
                                                                 a.check_seed + 11)])
    def by_deal(parts):  # per row, a deal's mean over its 4 seats / rotations
        rows = ([], [])
        for x in parts:
            n = len(x) // 8
            rows[0].append(x[:4 * n].reshape(4, n).mean(axis=0))
            rows[1].append(x[4 * n:].reshape(4, n).mean(axis=0))
        return [np.concatenate(r) for r in rows]

    tuned, own = by_deal(g[:2]), by_deal(g[2:])
    print(f"\ncheck on {a.check_deals} other deals (seeds {a.check_seed}, "
          f"{a.check_seed + 7}):\n")
    print("| row | tuned | the model's own | tuned - own, paired by deal [95% CI] |")
    print("|---|---|---|---|")
    for name, i in (("vs three weights", 0), ("vs [A,A,B,B] weights_tuned", 1)):
        x, y = tuned[i], own[i]
        dd = x - y
        half_w = 1.96 * dd.std(ddof=1) / np.sqrt(len(dd))
        print(f"| {name} | {x.mean():.3f} | {y.mean():.3f} | {dd.mean():+.3f} "
              f"[{dd.mean() - half_w:+.3f}, {dd.mean() + half_w:+.3f}] |")
    if two:
        from fishing2sim.train.evaluate import wilson

        for name, o in (("tuned", over[0]), ("the model's own", over[1])):
            lo, hi = wilson(float(o.mean()), len(o))
            print(f"5-player overfishing, {name}: {o.mean():.3f} [{lo:.3f}, {hi:.3f}] "
                  f"({len(o)} games)")
    print(f"\n{time.perf_counter() - t0:.0f} s")
    if a.out:
        sha = save_model(a.out, tuned_weights(w, best.params), str(d["config_hash"]),
                         {**json.loads(str(d["meta"])), "tuned": best.params},
                         hidden=int(d["hidden"]))
        print(f"kept: {a.out} (sha256 {sha})")


def _over_args(args):
    w, knobs, n, seed = args
    return overfished(tuned_weights(w, knobs), n, seed)


def _games_args(args):
    w, knobs, deals, seed = args
    return games(tuned_weights(w, knobs), deals, seed)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("stopped: nothing written (the trial lines above are the results so far)",
              file=sys.stderr)
        raise SystemExit(130)
