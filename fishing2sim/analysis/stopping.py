"""The stopping rules of an adaptive run (docs/experiments.md, "precision" and "sprt"): from
the totals of each condition's whole chunks so far, how many games it plays next. The
runner calls :func:`decide` between stages; it never imports the figures itself.

Decided from whole chunks only, so any number of workers plays the same games.
"""
from __future__ import annotations

import math

from fishing2sim.analysis.contrasts import contrast_table, half_widths, sprt_state
from fishing2sim.analysis.sprt import next_games as sprt_next, stopped_estimate
from fishing2sim.run.chunks import step_of

CONTRAST_PREFIX = "contrast."  # a precision target on a contrast: contrast.<figure>


def decide(exp, totals: list, units: list, stop: list, stages: list,
           previous: dict | None = None) -> tuple[list, dict]:
    """Every condition's games for the next stage (``stop``: the games played so far;
    ``stages``: ``stop`` at every decision so far; ``previous``: what was decided at the
    look before, per condition) and what was decided, per condition."""
    nxt = list(stop)
    decisions: dict = {}
    con_hw = contrast_widths(exp, totals, units)
    for cond in exp.conditions:
        if totals[cond.index] is None:
            continue
        nxt[cond.index], decisions[cond.index] = next_games(
            exp, cond, totals[cond.index], stop[cond.index], con_hw.get(cond.index),
            [s[cond.index] for s in stages], (previous or {}).get(cond.index))
    return nxt, decisions


def grow_games(games: int, step: int, ratio: float) -> int:
    """The precision rule: a figure whose 95% CI half-width is ``ratio`` times its target
    needs about ratio^2 times the games (the square-root law), 5% more, in whole steps
    (chunks), at least one more step, at most four times the games so far. ``ratio`` is
    capped first (a target of 1e-200 would overflow a float when squared)."""
    if not ratio > 1:
        return games
    need = -(-int(math.ceil(games * min(ratio, 3.0) ** 2 * 1.05)) // step) * step
    return max(games, min(max(need, games + step), 4 * games))


def next_games(exp, cond, t, games: int, contrast_hw: dict | None = None,
                looks: list | None = None, before: dict | None = None) -> tuple[int, dict]:
    """Precision / SPRT: the games condition ``cond`` plays next (``games``: stop), decided
    from the totals of its whole chunks so far only (so any number of workers plays the
    same games), and what was decided. ``contrast_hw``: the half-widths of the contrasts
    with a precision target that this condition takes part in (as condition or baseline).
    ``looks``: the games at every decision so far, this one included (default: this one
    only); a stopped SPRT reports the estimate that accounts for them (fishing2sim/analysis/sprt.py).
    ``before``: what was decided at the look before (the SPRT's first crossing is kept:
    the test's decision is that crossing's, and a test held past it, by a precision target
    or a paired group, reports the fixed-sample figure, not the sequential one)."""
    step = step_of(exp, cond)
    cap = max(cond.max_games, games)
    info: dict = {"games": games}
    want = games
    if exp.precision:
        hw = {**half_widths(exp, cond, t), **(contrast_hw or {})}
        info["precision"] = {f: {"target": w, "half_width": hw[f], "as_written": text,
                                 "reached": bool(hw[f] <= w)}  # a figure without a CI: not
                             for f, w, text in exp.precision if f in hw}
        worst = max((hw[f] / w for f, w, _ in exp.precision if f in hw and hw[f] > w),
                    default=0.0)
        want = max(want, grow_games(games, step, worst))
    if exp.sprt is not None:
        st = sprt_state(exp, cond, t)
        info["sprt"] = st
        first = ((before or {}).get("sprt") or {}).get("first_crossing")
        if first is None and st["decision"] is not None:
            first = {"games": games, "decision": st["decision"], "llr": st["llr"]}
        st["first_crossing"] = first
        if first is None:
            want = max(want, sprt_next(games, step))
    want = min(want, -(-cap // step) * step if cap % step else cap)
    info["capped"] = want <= games and (
        any(not v["reached"] for v in info.get("precision", {}).values())
        or ("sprt" in info and info["sprt"]["decision"] is None))
    if "sprt" in info:
        _stopped_sprt(exp, cond, info["sprt"], games, looks, want)
    return max(want, games), info


def _stopped_sprt(exp, cond, st: dict, games: int, looks, want: int) -> None:
    """The figures of a stopped SPRT. At the test's own first crossing (or at max_games,
    never crossed) the estimate that accounts for the stop; once the run went on past the
    first crossing, that crossing's decision and the fixed-sample figure (the sequential
    correction assumes the test stopped where it crossed)."""
    first = st.get("first_crossing")
    if first is not None and first["games"] < games:
        st["decision"] = first["decision"]
        st["held_past"] = True
        st["sequential"] = None
        return
    if st["decision"] is not None or want <= games:
        g = cond.players if cond.rotate else 1
        seen = sorted({int(v) for v in (looks or [])} | {games})
        st["sequential"] = stopped_estimate(exp.sprt, [v // g for v in seen], st["score"],
                                            st["var"], tests=sprt_tests(exp))


def sprt_tests(exp) -> int:
    """How many SPRTs the file runs: one per condition (Bonferroni: each at alpha/k,
    beta/k)."""
    return max(1, len(getattr(exp, "conditions", ()) or ()))


def contrast_widths(exp, totals, units) -> dict:
    """condition -> {"contrast.F": the widest 95% CI half-width of its contrasts of figure
    F} for the precision targets on contrasts: a condition and its baseline both get it
    (both must play more for the difference to narrow)."""
    targets = [f for f, _, _ in exp.precision if f.startswith(CONTRAST_PREFIX)]
    if not targets:
        return {}
    con = contrast_table(exp, totals, units)
    out: dict = {}
    for f in targets:
        rows = con[con["figure"] == f[len(CONTRAST_PREFIX):]]
        for r in rows.itertuples():
            hw = (r.diff_ci_high - r.diff_ci_low) / 2
            hw = math.inf if hw != hw else hw  # no CI yet: not reached
            for c in (int(r.condition), int(r.baseline)):
                d = out.setdefault(c, {})
                d[f] = max(d.get(f, 0.0), hw)
    return out


