"""Racing on a skill panel (``tune.racing.play_levels``, docs/tune.md): the raced trials and
the untuned file re-run at every level of play, so a designer sees whether the winner's deck
meets its targets only with the seats it was tuned with or with stronger and weaker players
too.

Each level plays as its own run of the experiment with the level's seats (and its games, or
the racing's games): the same seed, so the levels and the candidates of one deck play the
same deals. ``racing_levels.csv``: one row per candidate and level with the objective's
value, whether every target is met, and each figure with its 95% CI.
"""
from __future__ import annotations

import copy

import pandas as pd

from fishing2sim.config.keys import DEFAULT_CHUNK
from fishing2sim.tune.objective import (
    Estimate, _say, deck_changes, figure_names, objective_value, show_estimate, targets_met,
    trial_figures, value_text,
)
from fishing2sim.tune.spec import TuneError, TuneSpec, load_trial, trial_data

LEVEL_SPLIT = 4  # chunks per worker at least, for a level's games


def level_chunk(chunk: int, games: int, workers: int) -> int:
    """A level's chunk: the file's, but at most the level's games, and with more than one
    worker small enough that every worker has LEVEL_SPLIT chunks (a search level of 1,000
    games would otherwise be one chunk a player count, played on one core while the others
    wait). The games are numbered, not chunked: a level's figures are the same for any
    chunk and any number of workers (tests/test_tune_levels.py)."""
    chunk = min(chunk, games)
    if workers > 1:
        chunk = min(chunk, max(1, -(-games // (LEVEL_SPLIT * workers))))
    return chunk


def race_levels(spec: TuneSpec, candidates: list, seed: int, workers: int, progress: bool,
                pool=None) -> pd.DataFrame:
    """``candidates``: [(label, trial number or None, values or None for the file
    untuned)]; each re-run at every level of ``spec.race_levels``."""
    rows = []
    for lv in spec.race_levels:
        games = lv.games or spec.race_games
        for label, number, values in candidates:
            _say(progress, f"{label} with {lv.name} players ({games:,} games)")
            if values is None:
                data = copy.deepcopy(spec.raw)
                data.update(seed=int(seed), games=int(games), name=f"level-{lv.name}-base",
                            output=str(spec.scratch))
                changes = 0.0
            else:
                data = trial_data(spec, values, seed, games, f"level-{lv.name}-{number}")
                changes = deck_changes(spec, values)
            data["seats"] = copy.deepcopy(lv.seats)
            data["chunk"] = level_chunk(int(data.get("chunk") or DEFAULT_CHUNK), games, workers)
            figs = trial_figures(spec, load_trial(spec, data), workers, pool)
            value = objective_value(spec, [f.estimate for f in figs], changes)
            row = {"candidate": label, "trial": number, "level": lv.name, "games": games,
                   "value": value, "deck_changes": changes}
            if spec.mode == "targets":
                row["targets"] = "met" if all(m for _, _, m, _ in targets_met(spec, figs)) \
                    else "missed"
            for f in figs:
                row[f.label] = f.estimate
                row[f"{f.label} ci_low"] = f.ci_low
                row[f"{f.label} ci_high"] = f.ci_high
            rows.append(row)
    return pd.DataFrame(rows)


def levels_section(doc, result) -> None:
    """The tune report's "At every level of play": each candidate's targets per level."""
    df = (result.winner or {}).get("levels")
    if df is None or not len(df):
        return
    spec = result.spec
    doc.h(2, "At every level of play")
    levels = list(dict.fromkeys(df["level"]))
    doc.p("The raced trials and the file untuned, re-run with every seat played at each "
          f"level of the panel ({', '.join(levels)}; tune.racing.play_levels), on one seed: "
          "does the deck meet its targets only with the seats it was tuned with?")
    names = figure_names(spec)
    labels = [c for c in df.columns if c.endswith(" ci_low")]
    labels = [c.removesuffix(" ci_low") for c in labels]
    rows = []
    for _, r in df.iterrows():
        cells = [show_estimate(n, Estimate(lab, r[lab], r[lab + " ci_low"],
                                           r[lab + " ci_high"], 0))
                 for n, lab in zip(names, labels)]
        rows.append([str(r["candidate"]), str(r["level"]), value_text(spec, r["value"]),
                     str(r.get("targets", "–")), *cells])
    doc.table(["candidate", "level", "value", "targets", *labels], rows)
    if "targets" in df:
        for cand, g in df.groupby("candidate", sort=False):
            missed = list(g[g["targets"] == "missed"]["level"])
            doc.p(f"{cand}: " + ("meets every target at every level of play." if not missed
                                 else f"misses a target with {', '.join(missed)} players."))
