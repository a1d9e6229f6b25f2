"""A policy step beyond imitation, on many weights at once: evolution strategies (ES) on
the student `skilled`'s Fishing 2 card-play blocks, scored by its win share.

research/tune_student.py tunes 12 to 18 hand-picked knobs with Optuna's TPE and found
none that beats the model's own weights. This script moves every weight of the six
Fishing 2 card-play blocks (features.play_block; per block its linear weights, its hidden
biases c and its hidden output row u: 6 x (81 + 32 + 32) = 870 numbers) along an
estimated gradient of the win share:

- the weights are z in units of each group's root mean square in the model (a block's
  linear weights, its c, its u), z = 0 being the model;
- each iteration draws ``--pairs`` directions e (seeded by the iteration and the pair) and
  plays the bot at z + sigma e and at z - sigma e on the same deals (common random
  numbers: the two differ only where the weights move a decision), new deals each
  iteration; the objective is tune_student's: the mean of the share against three
  ``weights`` (every deal from every seat) and of [A, A, B, B] against ``weights_tuned``;
- the gradient estimate sum((F+ - F-) e) / (2 n sigma) feeds Adam on z.

This is the training file's ``es`` step (fishing2sim/train/es.py: the same functions, the
same seeds, so the same z), run here on the shipped model alone, outside a training run.

Every ``--check-every`` iterations (and at the end) the current weights are measured on
other deals against the model's own, paired by deal (the figure that counts: the tuning
deals' directions are chosen on those deals). The script writes the tuned model only with
``--out``; the iterations' z are kept in ``--state`` (an npz), so a stopped run resumes.

    python research/es_student.py --iterations 80 --pairs 24 --deals 400 \
        --out /tmp/es.npz --state /tmp/es_state.npz
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tune_student import _refuse, check_out, check_place  # noqa: E402

from fishing2sim.train.es import _Evaluator, _Step, groups, weights_at  # noqa: E402,F401


MAX_STATE = 1 << 20  # bytes: a state holds three vectors of 870 numbers (about 21 kB)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=80)
    ap.add_argument("--pairs", type=int, default=24)
    ap.add_argument("--deals", type=int, default=400, help="deals per evaluation")
    ap.add_argument("--sigma", type=float, default=0.1)
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=20261205)
    ap.add_argument("--check-every", type=int, default=10)
    ap.add_argument("--check-deals", type=int, default=3000)
    ap.add_argument("--check-seed", type=int, default=20261401)
    ap.add_argument("--overfishing", type=float, default=None, metavar="LAMBDA",
                    help="objective F - LAMBDA x the share of 5-player games (every seat the "
                         "bot) ending by overfishing")
    ap.add_argument("--overfishing-deals", type=int, default=600,
                    help="5-player games an evaluation, with --overfishing")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--state", default=None, metavar="STATE.npz")
    ap.add_argument("--out", default=None, metavar="MODEL.npz")
    a = ap.parse_args()
    for name in ("iterations", "pairs", "deals", "check_every", "check_deals", "workers",
                 "overfishing_deals"):
        if getattr(a, name) < 1:
            _refuse(f"--{name.replace('_', '-')} {getattr(a, name)}: at least 1")
    if not (a.sigma > 0 and a.lr > 0):
        _refuse("--sigma and --lr: above 0")
    if a.overfishing is not None and not 0 <= a.overfishing <= 100:
        _refuse(f"--overfishing {a.overfishing}: a weight from 0 to 100")
    if a.out is not None:
        check_out(a.out)

    import io

    from fishing2sim.safe_files import read_regular, write_atomic
    from fishing2sim.student.model import model_path, read_model
    from fishing2sim.train.model import save_model

    shipped = read_model(model_path("skilled.npz"))
    w0 = shipped["weights"]
    idx, scale = groups(w0)
    dim = len(idx)
    z = np.zeros(dim)
    m = np.zeros(dim)
    v = np.zeros(dim)
    start = 0
    if a.state:
        state = check_place("--state", a.state, "a file's name")
        if state.exists():
            try:
                data = read_regular(state, MAX_STATE)
                if not data.startswith(b"PK"):
                    raise ValueError("not an npz file")
                with np.load(io.BytesIO(data), allow_pickle=False) as s:
                    z, m, v, start = s["z"], s["m"], s["v"], int(s["iteration"])
                if not z.shape == m.shape == v.shape == (dim,) or start < 0:
                    raise ValueError(f"not of these {dim} weights")
            except Exception as exc:  # not an npz, another run's, a FIFO, too large ...
                _refuse(f"--state {a.state}: not this script's state ({exc}); it is left as "
                        "it is: choose another name")
            print(f"resumed after iteration {start}")
    print(f"{dim} weights, {a.pairs} pairs x {a.deals} deals an iteration, sigma {a.sigma}, "
          f"lr {a.lr}", flush=True)

    s = {"seed": a.seed, "pairs": a.pairs, "deals": a.deals, "sigma": a.sigma, "lr": a.lr,
         "check_every": a.check_every, "iterations": a.iterations,
         "check_deals": a.check_deals, "check_seed": a.check_seed}
    if a.overfishing is not None:
        s.update(overfishing=a.overfishing, overfishing_deals=a.overfishing_deals)
    ev = _Evaluator(a.workers)  # the training's ES step, on the shipped model
    try:
        step = _Step(s, w0, "skilled", ev)
        for it in range(start, a.iterations):
            z, m, v, _, lines = step.iteration(it, z, m, v)
            if a.state:
                buf = io.BytesIO()
                np.savez(buf, z=z, m=m, v=v, iteration=it + 1)
                write_atomic(Path(a.state), buf.getvalue())
            for line in lines:
                print(line, flush=True)
    finally:
        ev.close()
    if a.out:
        save_model(Path(a.out), weights_at(w0, idx, scale, z), "es_student", {},
                   hidden=int(shipped["hidden"]))
        print(f"wrote {a.out}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("stopped: the finished iterations are in --state (if given); the same command "
              "resumes after the last of them", file=sys.stderr)
        raise SystemExit(130)
