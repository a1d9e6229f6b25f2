"""The report of ``fishing2sim tune``: written to a temporary folder, then renamed into place.

Files: ``summary.md`` (plain words), ``report.html`` (the same document as a web page, with
the plots, the CSV tables and the YAML files), ``best.yaml`` (the file with the winner's values: a
ready-to-run experiment), ``trials.csv`` (every trial: values, figures with 95% CIs, seed),
``racing.csv`` (the re-run best trials and the baseline), ``trace.png`` (objective per
trial and best so far), ``importance.png`` / ``importance.csv`` (Optuna's parameter
importances, when they can be computed), ``tune.yaml`` (the resolved tune settings) and
``study.db`` (the Optuna study: ``optuna-dashboard sqlite:///study.db``). A Pareto study's
files (front.csv, front.png, front-N.yaml) come from fishing2sim/tune/pareto_report.py.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402

from fishing2sim import __version__  # noqa: E402
from fishing2sim.report import html as _html  # noqa: E402
from fishing2sim.report import write_folder_atomically  # noqa: E402
from fishing2sim.report.document import Doc  # noqa: E402
from fishing2sim.tune.levels_race import levels_section  # noqa: E402
from fishing2sim.tune.objective import Estimate, figure_names, show_estimate, value_text  # noqa: E402
from fishing2sim.tune.pareto_report import NOTHING_PLAYABLE, opening, write_pareto  # noqa: E402
from fishing2sim.tune.spec import best_config, plain, snippet  # noqa: E402

DPI = 110


def write_tune_report(result) -> Path:
    spec = result.spec

    def fill(tmp):
        _write_all(tmp, result)
        _copy_db(spec.study_path, tmp / "study.db")

    return write_folder_atomically(Path(spec.output_dir), fill, kind="tune")


def _copy_db(src: Path, dst: Path) -> None:
    """A consistent copy of the SQLite study (the backup API, not a file copy)."""
    a = sqlite3.connect(str(src))
    b = sqlite3.connect(str(dst))
    try:
        a.backup(b)
    finally:
        b.close()
        a.close()


def _diff(spec, pt, lo, hi) -> str:
    """A difference of values with its 95% CI, in pp for shares (as the run reports)."""
    hw = (hi - lo) / 2
    bare = (lambda x: value_text(spec, x, hw, True).removesuffix(" pp"))
    return f"{value_text(spec, pt, hw, diff=True)} (95% CI {bare(lo)} to {bare(hi)})"


def _settings(spec) -> dict:
    """tune.yaml: the resolved settings and the study's hash."""
    return {
        "file": str(spec.path), "name": spec.name, "seed": spec.seed,
        "sampler": spec.sampler, "trials": spec.trials, "games_per_trial": spec.games,
        "time_limit_s": spec.time_limit, "racing": {"top": spec.race_top,
                                                    "games": spec.race_games},
        "tune": plain(spec.tune_raw), "config_hash": spec.config_hash,
        "package_version": __version__,
    }


def _write_all(folder: Path, result) -> None:
    spec = result.spec
    if spec.pareto:  # no single winner: the front (fishing2sim/tune/pareto_report.py)
        write_pareto(folder, result, _settings(spec))
        return
    result.trials.to_csv(folder / "trials.csv", index=False, float_format="%.10g",
                         lineterminator="\n")
    if len(result.race):
        result.race.to_csv(folder / "racing.csv", index=False, float_format="%.10g",
                           lineterminator="\n")
    levels = (result.winner or {}).get("levels")
    if levels is not None and len(levels):
        levels.to_csv(folder / "racing_levels.csv", index=False, float_format="%.10g",
                      lineterminator="\n")
    plots = {}
    if _plot_trace(spec, result.trials, folder / "trace.png"):
        plots["trace"] = "trace.png"
    note = _importance(result, folder)
    result.importance_note = note
    if (folder / "importance.png").exists():
        plots["importance"] = "importance.png"
    if result.winner is not None:
        cfg = best_config(spec, result.winner["values"])
        (folder / "best.yaml").write_text(
            f"# {spec.name}: the best configuration found by fishing2sim tune "
            f"{spec.given}\n# (trial {result.winner['trial']}); run it with: fishing2sim run "
            "best.yaml\n" + yaml.safe_dump(plain(cfg), sort_keys=False,
                                           default_flow_style=None, width=100),
            encoding="utf-8")
    (folder / "tune.yaml").write_text(yaml.safe_dump(_settings(spec), sort_keys=False),
                                      encoding="utf-8")
    doc = _document(result, plots, note)
    (folder / "summary.md").write_text(doc.markdown(), encoding="utf-8")
    configs = {f: (folder / f).read_text(encoding="utf-8")
               for f in ("best.yaml", "tune.yaml") if (folder / f).exists()}
    tables = {t: pd.read_csv(folder / f"{t}.csv")
              for t in ("trials", "racing", "importance") if (folder / f"{t}.csv").exists()}
    images = {f: (folder / f).read_bytes() for f in plots.values()}  # the plots just made
    stamps = [f"fishing2sim {__version__}", f"config hash {spec.config_hash}",
              f"seed {spec.seed}"]
    (folder / "report.html").write_text(
        _html.render(doc, images, f"Tuning: {spec.name}", tables, configs, stamps),
        encoding="utf-8")


def _plot_trace(spec, df, path: Path) -> bool:
    ok = df[df["state"] == "COMPLETE"]
    if not len(ok):
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(ok["trial"], ok["value"], "o", ms=4, alpha=0.6, label="trial")
    best = ok["value"].cummax() if spec.direction == "maximize" else ok["value"].cummin()
    ax.step(ok["trial"], best, where="post", color="C3", label="best so far")
    ax.set_xlabel("trial")
    ax.set_ylabel("loss" if spec.mode == "targets" else
                  f"{spec.figure.text}" + (" − cost" if spec.cost else ""))
    ax.set_title(f"{spec.name}: optimisation trace ({spec.sampler})")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    return True


def _importance(result, folder: Path) -> str:
    """Optuna's parameter importances (fANOVA; PED-ANOVA when scikit-learn is missing)."""
    import optuna

    study = result.study
    complete = [t for t in study.get_trials(deepcopy=False)
                if t.state == optuna.trial.TrialState.COMPLETE]
    n_params = len({p for t in complete for p in t.params})
    if n_params < 2:
        return "parameter importance needs at least two parameters in the space"
    if len(complete) < 4:
        return f"parameter importance needs more finished trials (have {len(complete)})"
    imp, how, why = None, "", ""
    try:
        import sklearn  # noqa: F401

        imp = optuna.importance.get_param_importances(
            study, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=0))
        how = "fANOVA"
    except Exception as exc:  # no scikit-learn, or too few trials for it
        why = f"fANOVA unavailable ({type(exc).__name__})"
        try:
            imp = optuna.importance.get_param_importances(
                study, evaluator=optuna.importance.PedAnovaImportanceEvaluator())
            how = "PED-ANOVA"
        except Exception as exc2:
            return f"parameter importance could not be computed: {why}; PED-ANOVA: " \
                   f"{type(exc2).__name__}: {exc2}"
    if not imp:
        return "parameter importance could not be computed (no variation in the trials)"
    names = list(imp)
    vals = [imp[n] for n in names]
    labels = [result.spec.param_labels.get(n, n) for n in names]
    with open(folder / "importance.csv", "w", encoding="utf-8") as f:
        f.write("parameter,label,importance\n")
        for n, lab, v in zip(names, labels, vals):
            f.write(f"\"{n}\",\"{lab}\",{v:.6g}\n")
    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.3 * len(names) + 1)))
    ax.barh(labels[::-1], vals[::-1], color="C0")
    ax.set_xlabel(f"importance ({how})")
    ax.set_title(f"{result.spec.name}: parameter importance")
    fig.tight_layout()
    fig.savefig(folder / "importance.png", dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    return f"importances by {how}" + (f" ({why}; PED-ANOVA compares the best trials' "
                                      "parameter distribution with all trials')" if why else "")


def _objective_text(spec) -> str:
    if spec.mode == "targets":
        s = "targets " + "; ".join(f"`{t.text}`" for t in spec.targets) + \
            " (loss: the sum of squared violations, each divided by its bound or range width)"
    else:
        s = f"{spec.mode} `{spec.figure.text}`"
    if spec.cost:
        s += f", plus a cost of {spec.cost:g} per deck change"
    return s


def _document(result, plots: dict, note: str) -> Doc:
    """The report as a document: summary.md and report.html are its two renderings."""
    spec = result.spec
    doc = opening(result, f"Tuning: {spec.name}",
                  {'tpe': 'TPE', 'cmaes': 'CMA-ES', 'random': 'random'}[spec.sampler],
                  f"Objective: {_objective_text(spec)}")
    w = result.winner
    if w is None:
        doc.p(NOTHING_PLAYABLE)
        return doc
    _winner(doc, result, w)
    _against_baseline(doc, result, w)
    _racing(doc, result, w)
    levels_section(doc, result)
    doc.h(2, "Search")
    if "trace" in plots:
        doc.img("optimisation trace", "trace.png")
    doc.p(f"Parameter importance: {note}.")
    if "importance" in plots:
        doc.img("parameter importance", "importance.png")
    doc.p("Every trial (its values, figures with 95% CIs, seed and time) is in "
          "`trials.csv`. The Optuna study is `study.db`: open it with "
          "`optuna-dashboard sqlite:///study.db`, or continue it with "
          f"`fishing2sim tune {spec.given} --resume` and a larger `tune.budget.trials`.")
    return doc


def _winner(doc, result, w) -> None:
    """The winner: its trial, value, targets and ready-to-use snippet."""
    spec = result.spec
    ev = w["evaluation"]
    doc.h(2, "The winner")
    raced = spec.race_top > 0
    n_raced = int(result.race["rank"].notna().sum()) if len(result.race) else 0
    doc.p(f"Trial {w['trial']}" + (f", after re-running the best {n_raced} "
                                   f"trials with a fresh seed and {spec.race_games:,} games "
                                   "each (racing)" if raced else " (no racing)")
          + f": value {value_text(spec, ev.value)}"
          + (f", {ev.changes:g} deck change{'' if ev.changes == 1 else 's'}"
             if any(d.key.startswith("deck.") for d in spec.dims) else "") + ".")
    if spec.mode == "targets":
        met = all(m for _, _, m, _ in w["targets"])
        sure = all(s for _, _, _, s in w["targets"])
        if met:
            doc.p("It **meets every target** on the estimates" +
                  (", and every target's 95% CI lies inside its bound." if sure else
                   "; some CIs still reach past a bound (more games would settle it)."))
        else:
            missed = [lab for lab, _, m, _ in w["targets"] if not m]
            doc.p(f"It **misses** {', '.join(f'`{m}`' for m in missed)}: no configuration "
                  "tried meets every target (the closest is shown).")
    doc.p("Ready to use (the sections of the experiment file the space changes; "
          "`best.yaml` is the whole file):")
    doc.code(snippet(spec, w["values"]).rstrip(), "yaml")


def _against_baseline(doc, result, w) -> None:
    """The winner's figures against the untuned file's, on a fresh seed."""
    spec = result.spec
    ev = w["evaluation"]
    doc.h(2, "Figures against the baseline")
    doc.p(f"Both on the same fresh seed, not the one the winner was picked on (so its "
          f"figures are not flattered by the pick), {ev.games:,} games per condition; 95% "
          "CIs.")
    b = result.baseline
    tmap = {}
    if spec.mode == "targets":
        for lab, t, m, s in w["targets"]:
            tmap[lab] = (t, m)
    rows = []
    names = figure_names(spec)
    for i, f in enumerate(ev.figures):
        bl = show_estimate(names[i], b.figures[i]) if b is not None and i < len(b.figures) \
            else "–"
        tgt = ""
        key = f.label
        for lab, (t, m) in tmap.items():
            if lab == key or lab == t.text and key == t.figure.text:
                tgt = f"{t.text.split(t.figure.text, 1)[-1].strip()} ({'met' if m else 'missed'})"
        rows.append([f.label, bl, show_estimate(names[i], f), tgt or "–"])
    doc.table(["figure", "baseline (the file untuned)", "winner", "target"], rows)
    if "vs_baseline" in w:
        pt, lo, hi, sep = w["vs_baseline"]
        doc.p(f"Value, winner − baseline: {_diff(spec, pt, lo, hi)}: "
              + ("a real difference." if sep else "not distinguishable from the baseline."))
    if "vs_runner_up" in w:
        no, pt, lo, hi, sep = w["vs_runner_up"]
        if pt == 0 and lo == 0 and hi == 0:
            doc.p(f"The runner-up (trial {no}) ties with the winner: both meet every target "
                  "with the same cost, so the winner is **not distinguishable** from it (the "
                  "lower trial number wins the tie); either is as good.")
        else:
            doc.p(f"Value, winner − runner-up (trial {no}): {_diff(spec, pt, lo, hi)}: " + (
                  "the winner is **distinguishable** from the runner-up." if sep else
                  "the winner is **not distinguishable** from the runner-up at this "
                  "number of games: either is as good on this evidence."))
    doc.p("The intervals of a difference treat the two runs as independent (they share "
          "deals when their decks are the same, which makes the true interval narrower).")


def _racing(doc, result, w) -> None:
    """The racing rows: the best trials ranked on one seed."""
    spec = result.spec
    ev = w["evaluation"]
    if len(result.race):
        doc.h(2, "Racing")
        doc.p("The racing rows rank the best trials on one seed (the pick); the winner's "
              "`confirmed` row and the baseline play another, fresh seed, which is where the "
              "figures above come from.")
        names = figure_names(spec)
        rows = []
        for _, r in result.race.iterrows():
            cells = [show_estimate(n, Estimate(f.label, r[f.label], r[f.label + ' ci_low'],
                                               r[f.label + ' ci_high'], 0))
                     if f.label in r else "–" for n, f in zip(names, ev.figures)]
            rows.append([str(r["candidate"]), value_text(spec, r["value"]), *cells])
        doc.table(["candidate", "value", *(f.label for f in ev.figures)], rows)


def _summary(result, plots: dict, note: str) -> str:
    return _document(result, plots, note).markdown()
