"""The report of a Pareto study (``tune.objective.pareto``): written into the temporary
folder of fishing2sim/tune/report.py (then renamed into place, as every report).

Files: ``front.csv`` (every point of the front: its values and each objective with its 95%
CI on the fresh seed, and the untuned file), ``front.png`` (the front, every pair of
objectives), ``front-N.yaml`` (point N as a whole experiment: ``fishing2sim run
front-N.yaml``), ``trials.csv``, ``summary.md``, ``report.html``, ``tune.yaml`` and the study
``study.db`` (written by the caller)."""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402

from fishing2sim import __version__  # noqa: E402
from fishing2sim.report import html as _html  # noqa: E402
from fishing2sim.report.document import Doc  # noqa: E402
from fishing2sim.tune.objective import Estimate, axis_value  # noqa: E402
from fishing2sim.tune.schema import MAX_PARETO_OBJECTIVES  # noqa: E402
from fishing2sim.tune.schema import short as _short  # noqa: E402
from fishing2sim.tune.spec import _default_values, best_config, plain, snippet  # noqa: E402

DPI = 110
SAMPLER_NAMES = {"tpe": "TPE", "random": "random"}


def point_file(p) -> str:
    return f"front-{p.point}.yaml"


def front_table(spec, front) -> pd.DataFrame:
    """front.csv: one row per point of the front, then the untuned file."""
    rows = []
    for p in front.points:
        rows.append(_row(spec, front, f"point {p.point}", p.trial, " ".join(map(str, p.trials)),
                         p.values, p.evaluation, p.objectives, p.on_front_again, point_file(p)))
    if front.baseline is not None:
        rows.append(_row(spec, front, "baseline", None, "", front.baseline.values,
                         front.baseline, front.baseline_objectives, None, ""))
    df = pd.DataFrame(rows)
    if len(df):
        df["trial"] = pd.array([r["trial"] for r in rows], dtype="Int64")
        df["seed"] = pd.array([r["seed"] for r in rows], dtype="Int64")
    return df


def _row(spec, front, who, trial, trials, values, ev, objs, again, snippet_file) -> dict:
    r = {"point": who, "trial": trial, "trials": trials}
    for d in spec.dims:
        v = values.get(d.key)
        r[d.key] = None if v is None else _short(v)
    r["deck_changes"] = ev.changes
    for a, (x, lo, hi) in zip(front.axes, objs):
        r[a.label] = x
        r[f"{a.label} ci_low"] = lo
        r[f"{a.label} ci_high"] = hi
    r["on_front_again"] = again
    r["games"] = ev.games
    r["seed"] = ev.seed
    r["experiment"] = snippet_file
    return r


def write_pareto(folder: Path, result, settings: dict) -> None:
    """Every file of a Pareto study's report but study.db."""
    spec, front = result.spec, result.front
    result.trials.to_csv(folder / "trials.csv", index=False, float_format="%.10g",
                         lineterminator="\n")
    table = front_table(spec, front)
    if len(table):
        table.to_csv(folder / "front.csv", index=False, float_format="%.10g",
                     lineterminator="\n")
    configs = {}
    for p in front.points:
        cfg = best_config(spec, p.values)
        cfg["name"] = f"{spec.name}_front_{p.point}"
        text = (f"# {spec.name}: point {p.point} of the Pareto front found by fishing2sim "
                f"tune {spec.given}\n# (trial {p.trial}); run it with: fishing2sim run "
                f"{point_file(p)}\n" + yaml.safe_dump(plain(cfg), sort_keys=False,
                                                      default_flow_style=None, width=100))
        (folder / point_file(p)).write_text(text, encoding="utf-8")
        configs[point_file(p)] = text
    result.importance_note = ("not computed for a Pareto study (Optuna's importances "
                              "rank the parameters for one objective)")
    tune_text = yaml.safe_dump(settings, sort_keys=False)
    (folder / "tune.yaml").write_text(tune_text, encoding="utf-8")
    configs["tune.yaml"] = tune_text
    plots = {}
    if front.points and _plot_front(result, folder / "front.png"):
        plots["front"] = "front.png"
    doc = document(result, plots)
    (folder / "summary.md").write_text(doc.markdown(), encoding="utf-8")
    tables = {t: pd.read_csv(folder / f"{t}.csv")
              for t in ("front", "trials") if (folder / f"{t}.csv").exists()}
    images = {f: (folder / f).read_bytes() for f in plots.values()}
    stamps = [f"fishing2sim {__version__}", f"config hash {spec.config_hash}",
              f"seed {spec.seed}"]
    (folder / "report.html").write_text(
        _html.render(doc, images, f"Tuning: {spec.name} (Pareto front)", tables, configs,
                     stamps), encoding="utf-8")


# ---- the plot -----------------------------------------------------------------------------
def _trial_points(result) -> list:
    """Every finished trial's objectives (on its own games), for the plot's background."""
    out = []
    for t in result.study.get_trials(deepcopy=False):
        if t.values is None or "figures" not in t.user_attrs:
            continue
        figs = [Estimate(*x) for x in t.user_attrs["figures"]]
        out.append([axis_value(a, figs, t.user_attrs.get("deck_changes", 0))[0]
                    for a in result.front.axes])
    return out


def _plot_front(result, path: Path) -> bool:
    """Every pair of objectives: the trials (grey), the front with its 95% CIs, the file."""
    front = result.front
    ax_list = front.axes
    # the pairs of at most MAX_PARETO_OBJECTIVES objectives (the loader's limit): 15 plots
    pairs = list(itertools.combinations(range(min(len(ax_list), MAX_PARETO_OBJECTIVES)), 2))
    ncols = min(3, len(pairs))
    nrows = math.ceil(len(pairs) / ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 4.0 * nrows), squeeze=False)
    background = _trial_points(result)
    for k, (i, j) in enumerate(pairs):
        ax = grid[k // ncols][k % ncols]
        if background:
            ax.plot([b[i] for b in background], [b[j] for b in background], ".",
                    color="0.75", ms=5, label="trial (own games)")
        xs = [p.objectives[i] for p in front.points]
        ys = [p.objectives[j] for p in front.points]
        ax.errorbar([x[0] for x in xs], [y[0] for y in ys],
                    xerr=[[x[0] - x[1] for x in xs], [x[2] - x[0] for x in xs]],
                    yerr=[[y[0] - y[1] for y in ys], [y[2] - y[0] for y in ys]],
                    fmt="o", color="C0", ms=5, capsize=3, label="front (95% CI)")
        for p, x, y in zip(front.points, xs, ys):
            ax.annotate(str(p.point), (x[0], y[0]), textcoords="offset points",
                        xytext=(4, 4), fontsize=8)
        if front.baseline_objectives is not None:
            b = front.baseline_objectives
            ax.plot(b[i][0], b[j][0], "x", color="C3", ms=8, mew=2, label="untuned file")
        ax.set_xlabel(_axis_label(ax_list[i]), fontsize=8)
        ax.set_ylabel(_axis_label(ax_list[j]), fontsize=8)
        ax.grid(alpha=0.3)
        if k == 0:
            ax.legend(fontsize=7)
    for k in range(len(pairs), nrows * ncols):
        grid[k // ncols][k % ncols].axis("off")
    fig.suptitle(f"{result.spec.name}: Pareto front ({len(front.points)} points)")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    return True


def _axis_label(a) -> str:
    return f"{a.label} ({'lower' if a.sense == 'minimize' else 'higher'} is better)"


# ---- the document -------------------------------------------------------------------------
def _cell(a, o) -> str:
    x, lo, hi = o
    hw = (hi - lo) / 2
    if a.name is None:
        return a.show(x)
    strip = (lambda t: t.removesuffix("%").removesuffix(" pp"))
    return f"{a.show(x, hw)} [{strip(a.show(lo, hw))}, {strip(a.show(hi, hw))}]"


def _goals_text(spec) -> str:
    out = []
    for g in spec.goals:
        if g.target is not None:
            out.append(f"the violation of `{g.text}` (0 once met) minimised")
        else:
            out.append(f"`{g.text}` {'minimised' if g.sense == 'minimize' else 'maximised'}")
    return "; ".join(out)


def opening(result, title: str, sampler: str, objective: str) -> Doc:
    """A tuning report's first lines, the Pareto study's and the single objective's
    (tune/report.py): its title, then what ran (finished and unplayable trials, games,
    ``sampler``, seed, time) and ``objective``."""
    spec, df = result.spec, result.trials
    doc = Doc()
    doc.h(1, title)
    n_ok = int((df["state"] == "COMPLETE").sum()) if len(df) else 0
    n_bad = int((df["error"].fillna("") != "").sum()) if len(df) else 0
    doc.p(f"`fishing2sim tune {spec.given}`: {n_ok} finished trials"
          + (f" ({n_bad} not playable)" if n_bad else "")
          + f" of {spec.games:,} games each, proposed by Optuna's {sampler} sampler "
          f"(seed {spec.seed}), in {result.elapsed_s:,.0f} s. {objective}.")
    return doc


NOTHING_PLAYABLE = "No trial gave a playable experiment: the space has no valid configuration."


def document(result, plots: dict) -> Doc:
    """summary.md and report.html of a Pareto study."""
    spec, front = result.spec, result.front
    doc = opening(result, f"Tuning: {spec.name} (Pareto front)",
                  f"multi-objective {SAMPLER_NAMES[spec.sampler]}",
                  f"Objectives, kept apart: {_goals_text(spec)}")
    if not front.points:
        doc.p(NOTHING_PLAYABLE)
        return doc
    _front_section(doc, spec, front, plots)
    doc.h(2, "Ready-to-run experiments")
    doc.p("Each point of the front as a whole experiment file in this folder "
          "(`fishing2sim run front-N.yaml`; deck and strategy files as absolute paths). "
          "The sections of the file the space changes:")
    for p in front.points:
        doc.p(f"Point {p.point} (trial {p.trial}), `{point_file(p)}`:")
        doc.code(snippet(spec, p.values).rstrip(), "yaml")
    doc.h(2, "Search")
    doc.p(f"Parameter importance: {result.importance_note}.")
    doc.p("Every trial (its values, figures with 95% CIs, whether it is on the front on its "
          "own games, seed and time) is in `trials.csv`. The Optuna study is `study.db`: "
          "open it with `optuna-dashboard sqlite:///study.db` (its Pareto-front plot), or "
          f"continue it with `fishing2sim tune {spec.given} --resume` and a larger "
          "`tune.budget.trials`.")
    return doc


def _front_section(doc, spec, front, plots) -> None:
    doc.h(2, "The Pareto front")
    n_dup = sum(len(p.trials) - 1 for p in front.points)
    doc.p(f"{len(front.points)} configuration{'' if len(front.points) == 1 else 's'} that no "
          "other trial dominates (none is at least as good on every objective and better on "
          "one), on the trials' own games" + (f" ({n_dup} further trials repeat one of them)"
                                              if n_dup else "") + ". "
          + (f"Each was played again on one fresh seed (seed {front.seed}, the same deals for "
             f"the same deck) with {front.games:,} games per condition, beside the untuned "
             "file: the figures below are from that run (a front picked on noisy trials is "
             "flattered by the pick), with 95% CIs." if front.remeasured else
             "Without racing (`racing.top: 0`) the figures are the trials' own, with 95% CIs: "
             "a front picked on noisy trials is flattered by the pick."))
    rows = []
    for p in front.points:
        rows.append([str(p.point), str(p.trial), _values_text(spec, p.values),
                     *(_cell(a, o) for a, o in zip(front.axes, p.objectives)),
                     "yes" if p.on_front_again else "no"])
    if front.baseline is not None:
        rows.append(["the file untuned", "–", "–",
                     *(_cell(a, o) for a, o in zip(front.axes, front.baseline_objectives)),
                     "–"])
    doc.table(["point", "trial", "changed from the file", *(a.label for a in front.axes),
               "on the front again"], rows)
    dominated = [p for p in front.points if not p.on_front_again]
    if front.remeasured:
        doc.p("On the fresh seed " + (
            "every point is still on the front." if not dominated else
            " ".join(dominated_words(front, p) for p in dominated)))
    doc.p("Two points are told apart on an objective when the 95% CI of their difference "
          "excludes 0 (the CI of a difference from the two points' CIs taken as independent: "
          "half-width sqrt(h1² + h2²)); overlapping CIs alone do not say that two points are "
          "the same. A target's objective is its violation: how far its figure lies past "
          "the bound (0 once met), in the figure's unit. `front.csv` holds the table.")
    if "front" in plots:
        doc.img("the Pareto front", "front.png")


def better_by(a, p, q, k: int) -> tuple[float, float]:
    """(d, h): how much point q is better than point p on objective k (positive: better,
    in the objective's sense) and the half-width of that difference's 95% CI, from the two
    CIs as independent (nan without CIs)."""
    x1, lo1, hi1 = p.objectives[k]
    x2, lo2, hi2 = q.objectives[k]
    d = (x1 - x2) if a.sense == "minimize" else (x2 - x1)
    return d, math.hypot((hi1 - lo1) / 2, (hi2 - lo2) / 2)


def dominated_words(front, p) -> str:
    """Why point p left the front on the fresh seed, said from the CIs of its differences
    to a point that dominates it: *not a real trade-off* only when that point is measurably
    better on an objective and p measurably better on none; else dominated on the point
    estimates only."""
    ax = front.axes
    rivals = [q for q in front.points if q is not p and all(
        better_by(a, p, q, k)[0] >= 0 for k, a in enumerate(ax))]
    best = None
    for q in rivals:
        diffs = [better_by(a, p, q, k) for k, a in enumerate(ax)]
        wins = [k for k, (d, h) in enumerate(diffs) if d - h > 0]
        losses = [k for k, (d, h) in enumerate(diffs) if d + h < 0]
        if wins and not losses:
            best = (q, wins)
            break
    if best is not None:
        q, wins = best
        what = ", ".join(ax[k].label for k in wins)
        return (f"Point {p.point} is not a real trade-off: point {q.point} is measurably "
                f"better on {what} (95% CI of the difference clear of 0) and measurably worse "
                "on none.")
    names = ", ".join(str(q.point) for q in rivals) or "another point"
    return (f"Point {p.point} is dominated by point{'s' if len(rivals) > 1 else ''} {names} "
            "on the point estimates only: no CI of a difference favours "
            f"{'them' if len(rivals) > 1 else 'it'} clear of 0, so on these games it is not "
            f"told apart from {'them' if len(rivals) > 1 else 'it'}.")


def _values_text(spec, values: dict) -> str:
    """The keys whose value differs from the file's own (trial 0's), as key = value."""
    own = _default_values(spec)
    out = [f"{d.key} = {_short(values[d.key])}" for d in spec.dims
           if _short(values[d.key]) != _short(own[d.key])]
    return "; ".join(out) or "the file's own"
