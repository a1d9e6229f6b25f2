"""The training run's report (train/run.py writes it after every run, resumed or not):
iterations.csv, agreement.csv, distill.csv (with a distill step), es.csv and es_curve.png
(with an ES step), learning_curve.png,
summary.md and report.html, each written atomically into the run's folder."""
from __future__ import annotations

import csv
import io
from pathlib import Path

from fishing2sim.report import render_html
from fishing2sim.report.document import md_cell
from fishing2sim.safe_files import write_atomic

# What one observation of an ES check's CIs is (es.csv's check_ci_unit)
CHECK_UNIT = "deal (its four seatings one observation)"
CHECK_UNIT_OVERFISHING = CHECK_UNIT + "; overfishing: the 5-player game"


def _csv(rows: list) -> str:
    f = io.StringIO()
    wr = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
    wr.writeheader()
    wr.writerows(rows)
    return f.getvalue()


def _with_ci_unit(row: dict) -> dict:
    """An iteration's row with ``ci_unit`` after its CI: ``game`` (the evaluation's
    Wilson interval counts games), empty when the iteration was not evaluated."""
    out = {}
    for k, v in row.items():
        out[k] = v
        if k == "ci_hi":
            n = row.get("eval_games")
            out["ci_unit"] = "game" if isinstance(n, (int, float)) and n > 0 else ""
    return out


def write_report(out: Path, c: dict, state: dict) -> None:
    """iterations.csv, agreement.csv, learning_curve.png, summary.md and report.html (the
    page of those files, as ``fishing2sim report`` makes it), each written atomically into
    the run's folder."""
    rows = state["rows"]
    if rows:
        write_atomic(out / "iterations.csv", _csv([_with_ci_unit(r) for r in rows]))
    ag = state.get("agreement", [])
    if ag:
        write_atomic(out / "agreement.csv", _csv(ag))
    dist = (state.get("distill") or {}).get("rows") if c["distill"] else None
    if dist:
        write_atomic(out / "distill.csv", _csv(dist))
    elif (out / "distill.csv").is_file():  # a step the file no longer has
        (out / "distill.csv").unlink()
    es_rows = es_csv_rows(state) if c.get("es") else []
    if es_rows:
        write_atomic(out / "es.csv", _csv(es_rows))
        es_plot(out, c, state)
    else:
        for name in ("es.csv", "es_curve.png"):  # a step the file no longer has
            if (out / name).is_file():
                (out / name).unlink()
    _plot(out, c, rows)
    write_atomic(out / "summary.md", _summary(c, state, rows, ag))
    render_html(out, fresh=True, locked=True)  # (train holds the folder's lock)


def _plot(out: Path, c: dict, rows: list) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.5))
        x = [r["positions_total"] for r in rows]
        y = [r["win_share_vs_weights"] for r in rows]
        lo = [r["win_share_vs_weights"] - r["ci_lo"] for r in rows]
        hi = [r["ci_hi"] - r["win_share_vs_weights"] for r in rows]
        ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3)
        ax.axhline(0.25, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("positions trained")
        ax.set_ylabel("win share vs three weights")
        ax.set_title(f"{c['name']}: learning curve")
        save_png(fig, out / "learning_curve.png")
    except Exception:  # a report without its plot is still a report
        pass


def save_png(fig, path: Path) -> None:
    """A training report's figure: laid out, written as a PNG atomically, closed."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(path, buf.getvalue())


def _before_es_seconds(c: dict, state: dict, rows: list) -> float:
    """The time of the training before its ES step: the iterations, and the distill step's
    members and fit when it has one."""
    d = state.get("distill")
    if c.get("distill") and d and d.get("iterations_s"):
        return sum(d["iterations_s"]) + d["fit_s"] + d["eval_s"]
    return sum(r["label_s"] + r["fit_s"] + r["eval_s"] for r in rows)


def _summary(c: dict, state: dict, rows: list, ag: list) -> str:
    lines = [f"# Training run {c['name']}", "",
             f"Teacher: {c['teacher']} {c['budget']}, rollouts: {c['rollout']}; "
             f"{c['iterations']} iterations; seed {c['seed']}; config hash "
             f"{state['config_hash'][:12]}.",
             "Student: a multinomial logit per block"
             + (f" plus a hidden layer of {c['hidden']} ReLU units ({c['epochs']} Adam passes)"
                if c["hidden"] else "") + f"; targets softmax(value / {c['temperature']}).",
             "",
             "| iteration | positions | in all | label s | fit s | eval s | "
             "win share vs three weights [95% CI over games, Wilson] |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['iteration']} | {r['positions']} | {r['positions_total']} | "
                     f"{r['label_s']} | {r['fit_s']} | {r['eval_s']} | "
                     f"{r['win_share_vs_weights']:.3f} [{r['ci_lo']:.3f}, {r['ci_hi']:.3f}] |")
    if rows:
        total = sum(r["label_s"] + r["fit_s"] + r["eval_s"] for r in rows)
        lines += ["", f"Time of the iterations: {int(total // 60)} min {total % 60:.0f} s "
                      f"(labelling {sum(r['label_s'] for r in rows) / 60:.1f} min)."]
    if ag:
        last = max(a["iteration"] for a in ag)
        lines += ["", f"Agreement with the teacher on held-out positions (iteration {last}):",
                  "", "| ruleset | decision | positions | top-1 | regret (points) |",
                  "|---|---|---|---|---|"]
        for a in ag:
            if a["iteration"] == last:
                lines.append(f"| {a['ruleset']} | {a['decision']} | {a['positions']} | "
                             f"{a['top1']:.3f} | {a['regret_points']:.3f} |")
    lines += distill_summary_lines(c, state)
    es_lines = es_summary_lines(c, state)
    if es_lines:
        whole = es_step_seconds(state) + _before_es_seconds(c, state, rows)
        lines += es_lines + ["", f"Time of the whole training, the ES step included: "
                                 f"{int(whole // 60)} min {whole % 60:.0f} s."]
    lines += ["", "![learning curve](learning_curve.png)", ""]
    return "\n".join(lines)


# ---- the distill step's and the ES step's parts ---------------------------------------
def distill_summary_lines(c: dict, state: dict) -> list:
    """summary.md's section on the distill step."""
    d = state.get("distill")
    if not c.get("distill") or not d:
        return []
    lines = ["", f"Distilled: one student fitted to the mean score of {len(d['members'])} "
                 f"students ({', '.join(d['members'])}) on this run's {d['positions']:,} "
                 f"positions (fit {d['fit_s']} s). "
                 + ("The ES step starts from it (distilled.npz)." if c.get("es") else
                    "model.npz is it (distilled.npz)."), "",
             "| student | teacher | budget | model sha256 | win share vs three weights "
             "[95% CI] |", "|---|---|---|---|---|"]
    for r in d["rows"]:
        lines.append(f"| {md_cell(r['student'])} | {md_cell(r['teacher'])} | {r['budget']} | "
                     f"{r['model_sha256']} | {r['win_share_vs_weights']:.3f} "
                     f"[{r['ci_lo']:.3f}, {r['ci_hi']:.3f}] |")
    m, lo, hi = d["difference"]
    if d["rows"][0]["games"] and m == m:  # (NaN without evaluation deals)
        lines += ["", f"The same deals for every student ({d['rows'][0]['games']:,} games "
                      "each, one bot seat against three weights, seat-rotated; a share's CI "
                      f"counts games, Wilson). Distilled minus {c['name']}'s last student: "
                      f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}] (paired by deal; a deal's four "
                      "seatings are one observation)."]
    else:
        lines += ["", "Not measured against three weights (evaluation: {deals: 0})."]
    if d.get("iterations_s"):
        t = d["iterations_s"]
        whole = sum(t) + d["fit_s"] + d["eval_s"]
        lines += ["", f"Time of the {'training before the ES step' if c.get('es') else 'whole training'}: "
                      f"{_min_s(whole)} (the iterations of "
                      + ", ".join(f"{n} {_min_s(x)}" for n, x in zip(d["members"], t))
                      + f"; the distill step {_min_s(d['fit_s'] + d['eval_s'])})."]
    return lines


def _min_s(s: float) -> str:
    return f"{int(s // 60)} min {s % 60:.0f} s"


def es_csv_rows(state: dict) -> list:
    """es.csv's rows: one per iteration, the check's columns empty where none was made;
    check_ci_unit says what one observation of the check's CIs is."""
    st = state.get("es") or {}
    rows = []
    for r in st.get("rows") or []:
        r = dict(r)
        if "check_diff" in r:  # the unit next to the CIs, before the check's seconds
            s = r.pop("check_s", None)
            r["check_ci_unit"] = CHECK_UNIT_OVERFISHING if "check_overfishing" in r \
                else CHECK_UNIT
            if s is not None:
                r["check_s"] = s
        rows.append(r)
    cols = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    return [{k: r.get(k, "") for k in cols} for r in rows]


def es_summary_lines(c: dict, state: dict) -> list:
    """summary.md's section on the ES step."""
    st = state.get("es")
    if not c.get("es") or not st or not st.get("rows"):
        return []
    s = c["es"]
    rows = st["rows"]
    secs = sum(r["seconds"] + r.get("check_s", 0.0) for r in rows)
    of = "overfishing" in s
    what = ("the win share" if not of else
            f"the win share less {s['overfishing']} x 5-player overfishing (weight "
            f"{s['overfishing']}: the share of {s['overfishing_deals']} 5-player games an "
            "evaluation, every seat the student, that end by overfishing)")
    lines = ["", f"Evolution strategies on {what}: {st['done']} iterations on "
                 f"{st['dim']} weights of Fishing 2's card plays ({s['pairs']} pairs x "
                 f"{s['deals']} deals an iteration, sigma {s['sigma']}, lr {s['lr']}; "
                 f"{_min_s(secs)}). model.npz is its result (es.npz), started from "
                 f"{st['start_sha256'][:12]}.", "",
             f"Checks on {s['check_deals']} other deals (seed {s['check_seed']}), paired by "
             "deal with the start model (a deal's four seatings one observation)"
             + (f"; 5-player overfishing on {s['check_deals']} games, paired by game"
                if of else "") + ":", "",
             "| iteration | against three weights | start | difference [95% CI] | against "
             "weights_tuned [A,A,B,B] | start | difference [95% CI] |"
             + (" 5-player overfishing | start | difference [95% CI] |" if of else ""),
             "|---|---|---|---|---|---|---|" + ("---|---|---|" if of else "")]
    for r in rows:
        if "check_diff" in r:
            more = ""
            if "check_overfishing" in r:
                more = (f" {r['check_overfishing']:.3f} | {r['check_start_overfishing']:.3f} | "
                        f"{r['check_overfishing_diff']:+.3f} "
                        f"[{r['check_overfishing_diff_lo']:+.3f}, "
                        f"{r['check_overfishing_diff_hi']:+.3f}] |")
            lines.append(
                f"| {r['iteration']} | {r['check_vs_weights']:.3f} | "
                f"{r['check_start_vs_weights']:.3f} | {r['check_diff']:+.3f} "
                f"[{r['check_diff_lo']:+.3f}, {r['check_diff_hi']:+.3f}] | "
                f"{r['check_vs_weights_tuned']:.3f} | {r['check_start_vs_weights_tuned']:.3f}"
                f" | {r['check_diff_weights_tuned']:+.3f} [{r['check_diff_weights_tuned_lo']:+.3f}, "
                f"{r['check_diff_weights_tuned_hi']:+.3f}] |" + more)
    return lines + ["", "![evolution strategies](es_curve.png)"]


def es_step_seconds(state: dict) -> float:
    st = state.get("es") or {}
    return round(sum(r["seconds"] + r.get("check_s", 0.0) for r in st.get("rows") or []), 1)


def es_plot(out: Path, c: dict, state: dict) -> None:
    """es_curve.png: the checks' paired differences by iteration, with their CIs."""
    st = state.get("es") or {}
    rows = [r for r in st.get("rows") or [] if "check_diff" in r]
    if not c.get("es") or not rows:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.5))
        x = [r["iteration"] for r in rows]
        series = [("check_diff", "against three weights"),
                  ("check_diff_weights_tuned", "[A,A,B,B] against weights_tuned")]
        if "check_overfishing_diff" in rows[-1]:
            series.append(("check_overfishing_diff", "5-player overfishing (share of games)"))
        for key, label in series:
            y = [r[key] for r in rows]
            lo = [r[key] - r[f"{key}_lo"] for r in rows]
            hi = [r[f"{key}_hi"] - r[key] for r in rows]
            ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=label)
        ax.axhline(0.0, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("ES iteration")
        ax.set_ylabel("win share - the start model's" if len(series) == 2
                      else "share - the start model's")
        ax.set_title(f"{c['name']}: evolution strategies (checks, paired by deal)")
        ax.legend(fontsize=8)
        save_png(fig, out / "es_curve.png")
    except Exception:  # a report without its plot is still a report
        pass
