"""The training run's report (train/run.py writes it after every run, resumed or not):
iterations.csv, agreement.csv, distill.csv (with a distill step), es.csv and es_curve.png
(with an ES step), learning_curve.png,
summary.md and report.html, each written atomically into the run's folder."""
from __future__ import annotations

import csv
import io
from pathlib import Path

from fishing2sim.safe_files import write_atomic


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
    from fishing2sim.train import es

    es_rows = es.csv_rows(state) if c.get("es") else []
    if es_rows:
        write_atomic(out / "es.csv", _csv(es_rows))
        es.plot(out, c, state)
    else:
        for name in ("es.csv", "es_curve.png"):  # a step the file no longer has
            if (out / name).is_file():
                (out / name).unlink()
    _plot(out, c, rows)
    write_atomic(out / "summary.md", _summary(c, state, rows, ag))
    from fishing2sim.report import render_html

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
    from fishing2sim.train.distill import summary_lines

    lines += summary_lines(c, state)
    from fishing2sim.train import es

    es_lines = es.summary_lines(c, state)
    if es_lines:
        whole = es.step_seconds(state) + _before_es_seconds(c, state, rows)
        lines += es_lines + ["", f"Time of the whole training, the ES step included: "
                                 f"{int(whole // 60)} min {whole % 60:.0f} s."]
    lines += ["", "![learning curve](learning_curve.png)", ""]
    return "\n".join(lines)
