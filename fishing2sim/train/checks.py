"""The checks of a training before any work: its size limits (as a run's: MAX_GAMES games
in all, above it only with --yes; MAX_GAMES_HARD always), and, when it resumes, the files of
its folder it will read (the last model, the Newton fit's linear weights, the labelled
positions), each read through student/stored.py and checked for shape, dtype, finite values
and, for the positions, the run's config hash; and the run's folder (check_output,
open_output): a folder of this program only. Every problem is one TrainError line naming
the file; nothing is written before these checks pass."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from fishing2sim import __version__
from fishing2sim.config.keys import MAX_GAMES, MAX_GAMES_HARD
from fishing2sim.safe_files import (FileSafetyError, check_replaceable, read_regular,
                                    real_folder, remove_ours, write_marker)
from fishing2sim.student.layout import N_WEIGHTS
from fishing2sim.student.model import read_model
from fishing2sim.student.stored import read_npy
from fishing2sim.train.config import TrainError, read_config
from fishing2sim.train.labels import ROWS_PER_GAME, load_positions


def _error(msg: str):
    return TrainError(msg)


def es_games(s: dict) -> int:
    """The games of an ES step (train/es.py): per iteration ``pairs`` x 2 evaluations of
    8 x ``deals`` games (+ ``overfishing_deals``), and the checks (the start model's once)."""
    over = s.get("overfishing_deals", 0) if "overfishing" in s else 0
    per_eval = 8 * s["deals"] + over
    checks = s["iterations"] // s["check_every"] + 2
    return s["iterations"] * s["pairs"] * 2 * per_eval + checks * (8 * s["check_deals"]
                                                                  + over)


def size_parts(c: dict) -> list:
    """(key, games, how) of a training: its labelled games, its evaluations' games, its
    distill step's evaluation and its ES step's games."""
    it = c["iterations"]
    games = sum(cond.get("games", 100) for cond in c["conditions"])
    deals = c["evaluation"].get("deals", 500)
    parts = [("conditions", games * it, f"{games:,} games x {it:,} iterations"),
             ("evaluation.deals", 4 * deals * it,
              f"4 seats x {deals:,} deals x {it:,} iterations")]
    if c.get("distill"):
        n = len(c["distill"]) + 2
        parts.append(("distill", 4 * deals * n, f"{n} students x 4 seats x {deals:,} deals"))
    if c.get("es"):
        s = c["es"]
        parts.append(("es", es_games(s), f"{s['iterations']:,} iterations x {s['pairs']:,} "
                                          f"pairs x 2 x 8 x {s['deals']:,} deals, and checks"))
    return parts


def check_size(c: dict, yes: bool, where: str) -> None:
    """A training's size limits (and its distill members'): one line above them."""
    parts = size_parts(c)
    for key, n, how in parts:
        if n > MAX_GAMES_HARD:
            raise _error(f"{where}: {key}: {n:,} games ({how}) is above the limit of "
                         f"{MAX_GAMES_HARD:,}")
    total = sum(n for _, n, _ in parts)
    if total > MAX_GAMES and not yes:
        raise _error(f"{where}: {total:,} games in all ("
                     + "; ".join(f"{key}: {n:,}" for key, n, _ in parts if n)
                     + f") is above {MAX_GAMES:,}; give --yes to run it anyway")
    for f in c.get("distill") or []:
        check_size(read_config(f), yes, f"{where}: distill: training file {f}")


# ---- the folder's files, when a training resumes ------------------------------------------
def read_linear(path: Path) -> np.ndarray:
    """linear_N.npy: the Newton fit's N_WEIGHTS finite float64 weights."""
    w = read_npy(path, ("f", 1, N_WEIGHTS), TrainError, "linear weights file")
    if w.dtype != np.float64 or w.shape != (N_WEIGHTS,) or not np.isfinite(w).all():
        raise _error(f"linear weights file {path}: {w.shape} {w.dtype} with "
                     f"{int((~np.isfinite(w)).sum()):,} values not finite; expected "
                     f"{N_WEIGHTS} finite float64 (damaged: use --fresh to start over)")
    return w


def max_rows(c: dict) -> int:
    """The most positions one iteration can label (train/labels.py's buffers)."""
    return sum(cond.get("games", 100) for cond in c["conditions"]) * (ROWS_PER_GAME + 1)


def resume_weights(c: dict, h: str, out: Path, done: int) -> np.ndarray:
    """The weights a resumed training goes on from (linear_<done>.npy's, else the last
    model's), every file it will read checked first: model_<done>.npz, linear_<done>.npy
    and, when it fits again, positions_1 .. <done>.npz (of this run's config hash)."""
    w = read_model(out / f"model_{done}.npz")["weights"].copy()
    lin = out / f"linear_{done}.npy"
    if lin.exists() or lin.is_symlink():  # the Newton fit's weights, the next fit's start
        w = read_linear(lin)
    if done < c["iterations"] or c.get("distill"):
        before = out / f"linear_{done - 1}.npy"  # the distill step's start
        if c.get("distill") and done > 1 and (before.exists() or before.is_symlink()):
            read_linear(before)
        for j in range(1, done + 1):
            p = out / f"positions_{j}.npz"
            if not (p.exists() or p.is_symlink()):
                raise _error(f"{p} is missing (iteration {j} is recorded as done); use "
                             "--fresh to start over")
            load_positions(p, config_hash=h, rows=max_rows(c))
    return w


# ---- the run's folder ------------------------------------------------------------------
def check_output(out: Path, h: str, fresh: bool) -> dict | None:
    """The run's folder as open_output will find it, nothing touched: its state when it
    holds this configuration's run, None when it is missing or will be replaced; a folder
    of the user's own, a link, a file, or another configuration's run without ``fresh``
    is refused (one line)."""
    try:
        check_replaceable(out, "training folder", "training file")
        state_file = out / "state.json"
        if out.is_dir() and state_file.is_file():
            state = json.loads(read_regular(state_file, 1 << 26, what="training state"))
            if state.get("config_hash") == h:
                return state
            if not fresh:
                raise TrainError(f"{out} holds a training run of another configuration "
                                 f"(config hash {str(state.get('config_hash', '?'))[:12]}…, "
                                 f"this file's {h[:12]}…); use --fresh to start over")
    except FileSafetyError as exc:
        raise TrainError(str(exc)) from None
    except ValueError as exc:  # a state.json that is not JSON
        raise TrainError(f"{out}/state.json: not a training state ({exc})") from None
    return None


def open_output(out: Path, h: str, fresh: bool) -> dict:
    """The run's folder and its state: a folder of this program only (its marker), resumed
    when it holds this configuration's run, replaced with ``fresh`` when another's; a
    folder of the user's own, a link or a file is refused (one line, nothing touched)."""
    state = check_output(out, h, fresh)
    if state is not None:
        return state
    try:
        if out.is_dir() and (out / "state.json").is_file():
            remove_ours(out)
        real_folder(out, "training folder")
        write_marker(out, "training", out.name, __version__)
    except FileSafetyError as exc:
        raise TrainError(str(exc)) from None
    return {"config_hash": h, "done": 0, "rows": []}
