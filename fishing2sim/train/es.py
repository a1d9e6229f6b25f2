"""The training file's policy step, ``es:``: evolution strategies (ES) on the student's win
share, after the imitation (docs/lab-notes.md, "Evolution strategies on the win share").

The student is fitted to its teachers' option values, not to winning. This step moves every
weight of Fishing 2's six card-play blocks (features.play_block: leading, following, last in
the trick, each in the first or the second half of the round; per block its linear weights,
its hidden biases c and its hidden output row u: 6 x (81 + 32 + 32) = 870 numbers; the
shared first layer stays) along an estimated gradient of the win share:

- the weights are z in units of each group's root mean square in the start model (a block's
  linear weights, its c, its u); z = 0 is the start model, the run's last (distilled) one;
- iteration t draws ``pairs`` directions e (seeded by the step's seed and t) and plays the
  student at z + sigma e and at z - sigma e on the same ``deals`` new deals (common random
  numbers); the objective F is the mean of its share against three ``weights`` (every deal
  from every seat) and of [A, A, B, B] against ``weights_tuned`` (every deal in the four
  rotations);
- the estimate sum((F+ - F-) e) / (2 pairs sigma) feeds Adam on z (step ``lr``).

Every ``check_every`` iterations (and at the last) the current weights and the start
model's play ``check_deals`` other deals, paired by deal: the step's learning curve. The
evaluations run on the run's workers (processes, or its Dask cluster), joined in order: the
same z for any worker count. state.json keeps the step's z and Adam moments after every
iteration (one atomic write): a step stopped by Ctrl-C or a kill resumes after its last
finished iteration, and a longer step of the same settings resumes a shorter one. The
result is es.npz; model.npz is a copy of it.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

from fishing2sim.api import run_games
from fishing2sim.engine.batch import G_END
from fishing2sim.engine.constants import D_PLAY, END_OVERFISHED, N_DECISIONS
from fishing2sim.run.processes import close_pool, job_pool, submit_all
from fishing2sim.safe_files import write_atomic
from fishing2sim.student.layout import N_BLOCKS, N_FEATURES, N_WEIGHTS
from fishing2sim.student.model import file_sha256, read_model
from fishing2sim.train.config import TrainError, run_tag
from fishing2sim.train.evaluate import G_WINNERS, _shares
from fishing2sim.train.labels import _EXECUTOR
from fishing2sim.train.model import save_model, write_student
from fishing2sim.train.net import hidden_of


def play_blocks() -> list:
    """The weight blocks of Fishing 2's card plays, by features.play_block 0..5."""
    return [D_PLAY] + [N_DECISIONS + pb - 1 for pb in range(1, 6)]


def groups(w: np.ndarray):
    """The flat indices into the model's weights (file order) of the tuned numbers, and
    each one's scale (its group's root mean square in the model)."""
    h = hidden_of(w)
    c0 = N_WEIGHTS + N_FEATURES * h
    u0 = c0 + N_BLOCKS * h
    idx, scale = [], []
    for b in play_blocks():
        parts = [(b * N_FEATURES, N_FEATURES)]
        if h:
            parts += [(c0 + b * h, h), (u0 + b * h, h)]
        for start, n in parts:
            ii = np.arange(start, start + n)
            rms = float(np.sqrt(np.mean(w[ii] ** 2))) or 1e-3
            idx.append(ii)
            scale.append(np.full(n, rms))
    return np.concatenate(idx), np.concatenate(scale)


def weights_at(w0, idx, scale, z):
    """The start model's weights with the tuned numbers moved by ``z`` (in their units)."""
    w = np.array(w0, np.float64)
    w[idx] += scale * z
    return w


def games(w_file_order, deals: int, seed: int, bot: str = "skilled") -> np.ndarray:
    """Per game, the share of the win of ``bot`` (a student's strategy: ``skilled``, or a
    student file of the run's, whose model has as many weights) playing the weights
    ``w_file_order``: [4 * deals] against three weights (seat by seat), then [4 * deals] of
    its two seats against weights_tuned (rotation by rotation)."""
    kw = np.asarray(w_file_order, np.float64)  # (the strategy's PARAMS are in file order)
    out = []
    for seat in range(4):
        lineup = ["weights"] * 4
        lineup[seat] = bot
        params = [kw if s == bot else None for s in lineup]
        a = run_games(deals, 4, seed=seed, strategies=lineup, params=params)
        out.append(_shares(a["int"][:, G_WINNERS], [seat]))
    for r in range(4):
        lineup = [bot if (i - r) % 4 < 2 else "weights_tuned" for i in range(4)]
        params = [kw if s == bot else None for s in lineup]
        seats = [i for i in range(4) if lineup[i] == bot]
        a = run_games(deals, 4, seed=seed + 1, strategies=lineup, params=params)
        out.append(_shares(a["int"][:, G_WINNERS], seats))
    return np.concatenate(out)


def overfished(w_file_order, n: int, seed: int, bot: str = "skilled") -> np.ndarray:
    """1 for each of n 5-player Fishing 2 games (every seat ``bot`` playing the weights
    ``w_file_order``) that ends by overfishing, else 0."""
    kw = np.asarray(w_file_order, np.float64)
    a = run_games(n, 5, seed=seed, strategies=[bot] * 5, params=[kw] * 5)
    return (a["int"][:, G_END] == END_OVERFISHED).astype(np.float64)


def score(w, deals: int, seed: int, bot: str = "skilled", over_deals: int = 0,
          over_weight: float = 0.0):
    """An evaluation: the objective F, the games' shares and the 5-player games'
    overfishing (None without ``over_deals``). F is the mean of the two rows' shares, less
    ``over_weight`` x the share of ``over_deals`` 5-player games ending by overfishing."""
    g = games(w, deals, seed, bot)
    n = len(g) // 2
    f = 0.5 * (float(g[:n].mean()) + float(g[n:].mean()))
    if not over_deals:
        return f, g, None
    o = overfished(w, over_deals, seed + 2, bot)
    return f - over_weight * float(o.mean()), g, o


def iteration_deals_seed(seed: int, t: int) -> int:
    """The deals' seed of iteration t (0-based)."""
    return seed + 7919 * (t + 1)


def directions(seed: int, t: int, pairs: int, dim: int) -> np.ndarray:
    return np.random.default_rng([seed, t]).standard_normal((pairs, dim))


def adam(z, m, v, g, t: int, lr: float):
    """One ascending Adam step (t: 1-based): the new z, m, v."""
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    z = z + lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return z, m, v


def paired_check(got: np.ndarray, ref: np.ndarray) -> list:
    """Per row (against three weights, against weights_tuned): (share, the start model's,
    difference, lo, hi), paired by deal (a deal's four seatings one observation)."""
    n = len(ref) // 2
    out = []
    for part in (slice(0, n), slice(n, 2 * n)):
        d = (got[part] - ref[part]).reshape(4, -1).mean(axis=0)
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        out.append((float(got[part].mean()), float(ref[part].mean()), float(d.mean()),
                    float(d.mean() - half), float(d.mean() + half)))
    return out


class _Evaluator:
    """score() of many weight vectors, in order: on the run's Dask cluster when it has one,
    else on ``workers`` processes (or here, with one)."""

    def __init__(self, workers: int):
        self.executor = _EXECUTOR.get()
        self.pool = None
        if self.executor is None and workers > 1:
            self.pool = job_pool(workers)

    def map(self, jobs: list) -> list:
        ex = self.executor or self.pool
        if ex is None:
            return [score(*j) for j in jobs]
        return [f.result() for f in submit_all(ex, score, jobs)]

    def close(self, stopping: bool = False):
        if self.pool is not None:
            close_pool(self.pool, stopping)


def step_key(h: str, start_sha: str, s: dict) -> str:
    """The step's inputs: the run's configuration, the start model, the settings (not the
    number of iterations: a longer step resumes a shorter one)."""
    keep = {k: v for k, v in s.items() if k != "iterations"}
    return hashlib.sha256(json.dumps([h, start_sha, keep], sort_keys=True).encode()).hexdigest()


class _Step:
    """The step's fixed parts: the start model's weights and the tuned numbers' places,
    the strategy that plays them, the evaluator and the settings."""

    def __init__(self, s: dict, w0, bot: str, ev: _Evaluator):
        self.s, self.w0, self.bot, self.ev = s, w0, bot, ev
        self.idx, self.scale = groups(w0)
        self.own = []  # the start model's games on the check deals: played once

    def at(self, z):
        return weights_at(self.w0, self.idx, self.scale, z)

    def job(self, w, deals: int, seed: int, over_deals=None):
        """score()'s arguments for the weights w on these deals, with ``over_deals``
        5-player games (default: the settings' overfishing_deals) when the settings weigh
        overfishing."""
        s = self.s
        if "overfishing" not in s:
            return (w, deals, seed, self.bot, 0, 0.0)
        return (w, deals, seed, self.bot, over_deals or s["overfishing_deals"],
                float(s["overfishing"]))

    def iteration(self, t: int, z, m, v):
        """Iteration t (0-based) from z and Adam's moments: the new z, m, v, its row and
        its progress lines (for the caller to print once the iteration is kept)."""
        s, t0 = self.s, time.perf_counter()
        eps = directions(s["seed"], t, s["pairs"], len(z))
        seed = iteration_deals_seed(s["seed"], t)
        res = self.ev.map([self.job(self.at(z + sign * s["sigma"] * e), s["deals"], seed)
                           for e in eps for sign in (1.0, -1.0)])
        f = np.array([r[0] for r in res]).reshape(s["pairs"], 2)
        changed = float(np.mean([np.mean(res[2 * i][1] != res[2 * i + 1][1])
                                 for i in range(s["pairs"])]))
        diff = f[:, 0] - f[:, 1]
        g = (diff[:, None] * eps).sum(axis=0) / (2 * s["pairs"] * s["sigma"])
        z, m, v = adam(z, m, v, g, t + 1, s["lr"])
        row = {"iteration": t + 1, "objective": round(float(f.mean()), 5),
               "abs_difference": round(float(np.abs(diff).mean()), 5),
               "games_changed": round(changed, 4),
               "z_rms": round(float(np.sqrt(np.mean(z ** 2))), 5),
               "seconds": round(time.perf_counter() - t0, 1)}
        extra = ""
        if res[0][2] is not None:
            row["overfishing"] = round(float(np.mean([r[2].mean() for r in res])), 4)
            extra = f", overfishing {row['overfishing']:.3f}"
        lines = [f"es: iteration {t + 1}: F {f.mean():.4f}, |F+ - F-| "
                 f"{np.abs(diff).mean():.4f}, games changed {changed:.2f}{extra}, "
                 f"{row['seconds']:.0f} s"]
        if (t + 1) % s["check_every"] == 0 or t + 1 == s["iterations"]:
            t1 = time.perf_counter()
            checked, line = self.check(t + 1, z)
            row.update(checked)
            row["check_s"] = round(time.perf_counter() - t1, 1)
            lines.append(line)
        return z, m, v, row, lines

    def check(self, t: int, z):
        """The weights z and the start model on the check deals, paired by deal: the
        row's columns and a progress line."""
        s = self.s
        if not self.own:
            self.own.extend(self.ev.map([self.job(self.w0, s["check_deals"], s["check_seed"],
                                                  s["check_deals"])]))
        got = self.ev.map([self.job(self.at(z), s["check_deals"], s["check_seed"],
                                    s["check_deals"])])
        (a, a0, da, la, ha), (b, b0, db, lb, hb) = paired_check(got[0][1], self.own[0][1])
        line = (f"es: check after iteration {t}, {s['check_deals']} other deals: against "
                f"three weights {a:.3f} (start {a0:.3f}, {da:+.3f} [{la:+.3f}, {ha:+.3f}]); "
                f"against weights_tuned {b:.3f} (start {b0:.3f}, {db:+.3f})")
        over = {}
        if got[0][2] is not None:
            o, o0 = got[0][2], self.own[0][2]
            d = o - o0  # the same deals: paired by game
            half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
            over = {"check_overfishing": round(float(o.mean()), 4),
                    "check_start_overfishing": round(float(o0.mean()), 4),
                    "check_overfishing_diff": round(float(d.mean()), 4),
                    "check_overfishing_diff_lo": round(float(d.mean() - half), 4),
                    "check_overfishing_diff_hi": round(float(d.mean() + half), 4)}
            line += (f"; 5-player overfishing {o.mean():.3f} (start {o0.mean():.3f}, "
                     f"{d.mean():+.3f} [{d.mean() - half:+.3f}, {d.mean() + half:+.3f}])")
        return {"check_vs_weights": round(a, 4), "check_start_vs_weights": round(a0, 4),
                "check_diff": round(da, 4), "check_diff_lo": round(la, 4),
                "check_diff_hi": round(ha, 4), "check_vs_weights_tuned": round(b, 4),
                "check_start_vs_weights_tuned": round(b0, 4),
                "check_diff_weights_tuned": round(db, 4),
                "check_diff_weights_tuned_lo": round(lb, 4),
                "check_diff_weights_tuned_hi": round(hb, 4), **over}, line


def _step_state(state: dict, key: str, start_sha: str, dim: int, iterations: int,
                progress) -> dict:
    """The folder's state of this step (resumed), or a new one: for another key, or when
    the folder's step ran more iterations than the file asks for (it starts over)."""
    st = state.get("es") or {}
    if st.get("key") == key and st["done"] > iterations:
        progress(f"es: the folder's step ran {st['done']} iterations, this file asks for "
                 f"{iterations}: starting the step over")
    if st.get("key") != key or st["done"] > iterations:
        st = {"key": key, "start_sha256": start_sha, "dim": dim, "done": 0, "rows": [],
              "z": [0.0] * dim, "m": [0.0] * dim, "v": [0.0] * dim}
    for k in ("z", "m", "v"):  # a resumed step's numbers: as many as it tunes, finite
        x = st.get(k)
        if not (isinstance(x, list) and len(x) == dim and all(
                isinstance(y, (int, float)) and not isinstance(y, bool) and np.isfinite(y)
                for y in x)):
            raise TrainError(f"state.json: the es step's {k} is not {dim} finite numbers "
                             "(damaged); use --fresh to start over")
    return st


def run_es(c: dict, h: str, out: Path, state: dict, start_model: Path, workers: int,
           progress) -> Path:
    """The ES step after the run's iterations and distill step (the caller holds the run's
    lock); returns es.npz's path."""
    s = c["es"]
    start_sha = file_sha256(start_model)
    target = out / "es.npz"
    d = read_model(start_model)
    dim = len(groups(d["weights"])[0])
    st = _step_state(state, step_key(h, start_sha, s), start_sha, dim, s["iterations"],
                     progress)
    if (st["done"] >= s["iterations"] and target.is_file()
            and file_sha256(target) == st.get("model_sha256")):
        progress(f"es: done before ({target})")
        return target
    if st["done"]:
        progress(f"es: resuming after iteration {st['done']}")
    progress(f"es: {dim} weights, {s['pairs']} pairs x {s['deals']} deals an iteration, "
             f"sigma {s['sigma']}, lr {s['lr']}")
    name = f"es_{run_tag(out)}"  # a strategy of the start model's size: it plays every z
    bot = str(write_student(out / f"{name}.py", start_model, name))
    z, m, v = (np.array(st[k], np.float64) for k in ("z", "m", "v"))
    ev = _Evaluator(workers)
    stopping = True
    try:
        step = _Step(s, d["weights"], bot, ev)
        for t in range(st["done"], s["iterations"]):
            z, m, v, row, lines = step.iteration(t, z, m, v)
            st["rows"] = [r for r in st["rows"] if r["iteration"] <= t] + [row]
            st.update(done=t + 1, z=z.tolist(), m=m.tolist(), v=v.tolist())
            state["es"] = st
            write_atomic(out / "state.json", json.dumps(state, indent=1))
            for line in lines:  # printed once the iteration is kept
                progress(line)
        stopping = False
    finally:
        ev.close(stopping)
    st["model_sha256"] = save_model(
        target, step.at(z), h, {"es_iterations": st["done"], "start_sha256": start_sha,
                                "es": {k: s[k] for k in sorted(s) if k != "iterations"}},
        hidden=int(d["hidden"]))
    state["es"] = st
    write_atomic(out / "state.json", json.dumps(state, indent=1))
    return target


