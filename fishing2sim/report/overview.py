"""The report's opening: the plain answers ("In short"), what was run (conditions, names,
baselines, the backend, precision reached) and config.yaml."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import yaml

from fishing2sim.report import contrasts as _contrasts
from fishing2sim.report import ladder as _ladder
from fishing2sim.report import strategies as _strategies
from fishing2sim.report import trump as _trump
from fishing2sim.report.common import (Context, Doc, first, int_, lineup_names, package_version,
                                        players_text, seat_labels, seat_md, seat_parts)
from fishing2sim.report.common import v_
from fishing2sim.report.panel import trace_lines, verdict_lines, who_played as panel_who


def who_played(ctx: Context) -> str:
    """The opening sentence of every summary: who sat at the table."""
    if getattr(ctx.exp, "panel", None) is not None:
        return panel_who(ctx.exp)
    lineups = [seat_parts(c) for c in ctx.conditions]
    if not lineups or not any(lineups):
        return ""
    rot = any(c.rotate for c in ctx.conditions)

    def one(seats) -> str:
        kinds = list(dict.fromkeys(seats))
        if len(kinds) == 1:
            return players_text(len(seats), *kinds[0])
        return ", ".join(seat_md(*k) + (f" ×{seats.count(k)}" if seats.count(k) > 1 else "")
                         for k in kinds) + (" (seat-rotated: every deal in every seat order)"
                                            if rot else "")

    if all(x == lineups[0] for x in lineups):
        return f"Who played: {one(lineups[0])} in every condition."
    if ctx.conditions and all(len(set(x)) == 1 for x in lineups):
        parts = [f"{ctx.label(c.index)}: {one(seat_parts(c))}" for c in ctx.conditions]
        return "Who played: " + "; ".join(parts) + "."
    return ("Who played: the lineups differ by condition (listed under What was run)"
            + (", seat-rotated" if rot else "") + ".")


def lead(ctx: Context, doc: Doc) -> None:
    """The verdict block: the answer to the file's question first (the trump choice's worth
    at the strongest level; a tournament's verdict), who played, then one line per question
    the file asks (the contrasts, or the headline figures), in plain words with their CIs."""
    doc.h(2, "In short")
    _trump.opening(ctx, doc)  # the main job's question first, at the strongest level
    verdict = _strategies.verdict(ctx)  # a tournament: who wins above the fair share
    lad = ctx.tables.get("ladder")
    if lad is not None and len(lad):  # a ladder: its strongest bot, the ratings' verdict
        text = _ladder.lead_text(ctx, lad)
        verdict = text[:1].upper() + text[1:] + "." if text else verdict
    if verdict:
        doc.p(verdict)
    who = who_played(ctx)
    if who:
        doc.p(who)
    con = ctx.tables.get("contrasts")
    if getattr(ctx.exp, "panel", None) is not None:
        lines = verdict_lines(ctx)
        if lines:
            doc.p("How each condition's effect (condition − baseline) depends on the level "
                  "of play, relative to "
                  f"{ctx.exp.panel.relative_to} players (95% CIs; the effects at each level "
                  "are in the contrasts below):")
            doc.ul(lines)
        trace = trace_lines(ctx)
        if trace:
            doc.p("Do the figures settle as play gets stronger (the skill trace)?")
            doc.ul(trace)
        return
    if con is not None and len(con):
        lines = _contrasts.plain_lines(ctx, con)
        n = len(_contrasts.shown(con))
        method = ctx.exp.multiplicity
        how = ("a CI that includes 0 is reported as no measurable effect" if n < 2
               or method == "none" else
               f"a contrast is reported as no measurable effect when its CI includes 0 or "
               f"when, among these {n} contrasts, "
               + ("Holm's" if method == "holm" else "the Benjamini-Hochberg")
               + " adjustment leaves its p at 0.05 or more")
        doc.p(f"How each condition differs from its baseline (95% CIs; {how}):")
        doc.ul(lines)
        return
    bits = []
    ovf = ctx.tables.get("overfishing")
    if ovf is not None and len(ovf):
        o = ovf[(ovf["metric"] == "overfished_share") & ovf["round"].isna()]
        if len(o):
            bits.append("games end by overfishing in " + ", ".join(
                f"{float(r.estimate) * 100:.0f}%"
                + (f" ({ctx.label(int(r.condition))})" if ctx.sweep else "")
                for r in o.itertuples()))
    if bits:
        doc.p("; ".join(bits)[:1].upper() + "; ".join(bits)[1:] + ".")


def stamps(ctx: Context) -> list[str]:
    exp = ctx.exp
    version = first(ctx.meta, "package_version", "version") or package_version()
    return [f"fishing2sim {version}", f"config hash {exp.config_hash}", f"seed {exp.seed}"]


def what_was_run(ctx: Context, doc: Doc) -> None:
    exp, meta = ctx.exp, ctx.meta
    res = exp.resolved or {}
    doc.h(2, "What was run")
    ruleset = first(res, "ruleset") or exp.ruleset or "fishing2"
    players = sorted({p for p in (ctx.players(c) for c in ctx.indices) if p is not None})
    lineups = []
    for c in ctx.conditions:
        lu = ", ".join(seat_labels(c))
        if lu and lu not in lineups:
            lineups.append(lu)
    rulesets = []
    for c in ctx.conditions:
        r = c.deck.ruleset
        if r and r not in rulesets:
            rulesets.append(r)
    items = []
    if len(rulesets) > 1:
        items.append("Rulesets: " + ", ".join(f"`{r}`" for r in rulesets) + " (per condition)")
    else:
        items.append(f"Ruleset: `{rulesets[0] if rulesets else ruleset}`")
    items.append(f"Players: {', '.join(map(str, players)) or '–'}")
    items.append(f"Games per condition: {ctx.games_text().split(' games')[0]}")
    items.append(f"Seed: {exp.seed}; config hash: `{exp.config_hash}`")
    if len(lineups) == 1:
        items.append(f"Lineup (seat 0, 1, ...): {lineups[0]}")
    elif lineups:
        items.append("Lineups: per condition, below")
    elapsed = first(meta, "elapsed_s", "elapsed_seconds", "elapsed")
    gps = first(meta, "games_per_second")
    workers = first(meta, "workers")
    version = first(meta, "package_version", "version") or package_version()
    run = []
    if elapsed is not None:
        run.append(f"{float(elapsed):.1f} s")
    if gps is not None:
        run.append(f"{float(gps):,.0f} games/s")
    if workers is not None:
        dask = meta.get("dask") or {}
        kind = "Dask " if meta.get("backend") == "dask" else ""
        run.append(f"{workers} {kind}worker{'s' if workers != 1 else ''}")
    items.append(f"Run: {', '.join(run) or '–'}; fishing2sim {version}")
    if meta.get("backend") == "dask":
        dask = meta.get("dask") or {}
        items.append(f"Ran on Dask: {dask.get('where', 'a Dask cluster')}"
                     + (f" (scheduler {dask['scheduler']})" if dask.get("scheduler") else ""))
    if exp.paired:
        items.append("Paired: conditions with the same players, deck, first leader and "
                     "rotation play the same deals (common random numbers); only the play "
                     "differs, and their contrasts are paired differences")
    items.append(f"Analyses: {', '.join(exp.analyses) or '–'}")
    if "examples" in ctx.tables:  # run/examples.py
        items.append(f"Example games: examples.csv names up to {exp.examples} games per "
                     "condition behind each headline figure (overfished, the ocean ran out, "
                     "completed, the largest comebacks and trump stakes, the deals a paired "
                     "contrast changed), each with the command that replays it")
    doc.ul(items)
    adaptive(ctx, doc)
    crow = []
    changes = {c: tuple(getattr(getattr(ctx.by_index.get(c), "deck", None), "changes", ()))
               for c in ctx.indices}
    edited = any(changes.values())  # a deck column where an edit changed a deck
    for c in ctx.indices:
        cond = ctx.by_index.get(c)
        lu = ", ".join(seat_labels(cond))
        sha = str(getattr(cond, "deck_sha256", "") or "")
        base = getattr(cond, "baseline", None)
        role = "baseline" if getattr(cond, "is_baseline", False) else (
            f"vs {ctx.label(base)}" if base is not None else "–")
        deck = ["; ".join(changes[c]) or "the deck file's"] if edited else []
        crow.append([str(c), ctx.label(c), _v_labels(cond), int_(ctx.players(c))] + deck
                    + [int_(ctx.games_by.get(c)), lu or "–", role,
                       f"`{sha[:12]}`" if sha else "–"])
    doc.table(["condition", "name", "sweep values", "players"] + (["deck"] if edited else [])
              + ["games", "lineup", "baseline", "deck sha256"], crow)
    doc.p("Every estimate below comes with its number of observations *n* and a 95% "
          "confidence interval (shown as [low, high]). Full tables: the `.csv` files in this "
          "folder (and at the end of report.html); the resolved configuration: `config.yaml`.")


def _v_labels(cond) -> str:
    labels = dict(getattr(cond, "labels", None) or {})
    if not labels:
        return "–"

    return ", ".join(f"{k}={v_(v)}" for k, v in labels.items())


def adaptive(ctx: Context, doc: Doc) -> None:
    """Precision and SPRT runs: how far each condition went and what it reached."""
    info = ctx.meta.get("adaptive")
    if not info:
        return
    rows = []
    for i, d in sorted(info.items(), key=lambda kv: int(kv[0])):
        bits = []
        for fig, p in (d.get("precision") or {}).items():
            scale = 100 if p["as_written"].endswith("pp") else 1
            unit = "pp" if scale == 100 else p["as_written"].split()[-1]
            hw = p["half_width"] * scale
            width = f"±{hw:.2g}{'' if unit == 'pp' else ' '}{unit}" if hw == hw else \
                "too few games for a CI"
            bits.append(f"{fig} {width} "
                        f"({'reached' if p['reached'] else 'not reached'}; wanted "
                        f"{p['as_written']})")
        s = d.get("sprt")
        if s:
            verdict = {"H1": "shown better (H1)", "H0": "not shown better (H0)"}.get(
                s["decision"], "undecided")
            seq = s.get("sequential")
            first = s.get("first_crossing") or {}
            if s.get("held_past"):
                elo = (f"the test crossed at {int_(first.get('games'))} games ({verdict}) and "
                       f"the run went on past it (a precision target or a paired condition "
                       f"held it), so the decision is that first crossing's and the figure "
                       f"the fixed-sample one, SPRT Elo {s['elo']:.1f} [{s['elo_low']:.1f}, "
                       f"{s['elo_high']:.1f}] (the correction for a sequential stop holds "
                       "only where the test's own crossing stopped the run)")
            elif seq:
                elo = (f"SPRT Elo {seq['elo']:.1f} [{seq['elo_low']:.1f}, "
                       f"{seq['elo_high']:.1f}] accounting for the sequential stop "
                       f"(median-unbiased; the fixed-sample figure, which ignores the stop, is "
                       f"{s['elo']:.1f} [{s['elo_low']:.1f}, {s['elo_high']:.1f}])")
            else:
                elo = (f"SPRT Elo so far {s['elo']:.1f} [{s['elo_low']:.1f}, "
                       f"{s['elo_high']:.1f}] (fixed-sample)")
            bits.append(f"SPRT {verdict}: LLR {s['llr']:.2f} in [{s['lower']:.2f}, "
                        f"{s['upper']:.2f}], {elo}")
        rows.append([str(i), ctx.label(int(i)), int_(d.get("games")),
                     "; ".join(bits) + (" — stopped at max_games" if d.get("capped") else "")])
    targets = ", ".join(f"{f} {t}" for f, _, t in ctx.exp.precision)
    spec = ctx.exp.sprt
    what = []
    if targets:
        what.append(f"until every 95% CI half-width reached its target ({targets})")
    if spec:
        k = len(ctx.exp.conditions)
        each = (f"; one test per condition, {k} in all, each at α/{k} and β/{k} "
                "(Bonferroni)" if k > 1 else "")
        what.append(f"until an SPRT decided whether `{spec['better']}` is better than "
                    f"`{spec['than']}` (Elo {spec['elo0']:g} against {spec['elo1']:g}, "
                    f"α = {spec['alpha']:g}, β = {spec['beta']:g}{each}; it looks after the "
                    "first batch and then each time half as many games again as so far, in "
                    "whole chunks)")
    doc.p("The run played whole chunks " + " and ".join(what) + " or the `max_games` cap; "
          "each decision used only finished batches of chunks, so any number of workers plays "
          "the same games. Precision reached:")
    doc.table(["condition", "name", "games", "reached"], rows)
    if spec:
        doc.p("SPRT Elo is the logistic Elo of the SPRT's score, 1/2 + (A's win share − B's "
              "win share)/2 per game (or rotation block): not the ladder's rating scale. "
              "After the test stopped, its estimate and 95% CI account for the stop: the "
              "median-unbiased estimate and the CI of the stage-wise ordering over the looks "
              "the run made (Jennison & Turnbull 2000, section 8.4; fishing2sim/analysis/sprt.py); the "
              "fixed-sample figure shown beside it ignores the stop, which biases it toward "
              "the boundary the test crossed.")


def _plain(x: Any) -> Any:
    """Make ``x`` safe for ``yaml.safe_dump`` (numpy scalars, tuples, paths, NA)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        items = sorted(x, key=str) if isinstance(x, (set, frozenset)) else x
        return [_plain(v) for v in items]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return [_plain(v) for v in x.tolist()]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    if x is pd.NA:
        return None
    return str(x)


def config_yaml(exp: Any) -> str:
    cfg = _plain(dict(exp.resolved or {}))
    cfg["seed"] = _plain(exp.seed)
    cfg["package_version"] = package_version()
    cfg["config_hash"] = _plain(exp.config_hash)
    cfg["conditions" if "conditions" not in cfg else "run_conditions"] = [
        {
            "index": _plain(c.index),
            **({"name": c.name} if c.name else {}),
            "labels": _plain(dict(c.labels)),
            "players": _plain(c.players),
            "lineup": lineup_names(c),
            "deck_sha256": _plain(c.deck_sha256),
            **({"baseline": c.baseline} if c.baseline is not None else {}),
            "games": c.games,
        }
        for c in sorted(exp.conditions or (), key=lambda c: c.index)
    ]
    return yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True)
