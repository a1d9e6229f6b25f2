"""The behaviour profile (analyses: [profile], every skill panel): the counts of a game read
by hand from its events, the CIs, the same profile for 1 and 2 workers, the panel report's
section and the behaviours named beside a figure the two strongest levels disagree on, and a
bad analyses entry as one line."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from fishing2sim.analysis.profile import panel_differences
from fishing2sim.api import EVENT_CAPACITY, logged_rows, new_work, play_game, resolve_deck
from fishing2sim.cli import main
from fishing2sim.engine import constants as K
from fishing2sim.report.common import Context
from fishing2sim.report.panel import trace_lines
from fishing2sim.report.profile import TITLE
from fishing2sim.run import profile as pf
from fishing2sim.strategy.lineup import build_lineup, observe_mask
from fishing2sim.study import run

PANEL = """
    players: 5
    games: 600
    chunk: 150
    seed: 4
    play_levels: [random, greedy]
    analyses: [overfishing]
"""


def write(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\noutput: {folder / 'reports'}\n" + textwrap.dedent(body))
    return path


def _rows(players: int, seed: int, bot: str, game: int = 0) -> tuple[np.ndarray, object]:
    """Game ``game`` of seed ``seed`` (as `fishing2sim play --seed S --game G`), its event
    rows."""
    deck = resolve_deck("fishing2", None)
    funcs, table, strats = build_lineup(bot, players, None, False)
    arrays = np.ascontiguousarray(deck.arrays)
    args = (arrays, players, K.RULESETS["fishing2"],
            np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, -1,
            np.uint64(seed), 0, 1, funcs, table, 0, observe_mask(strats))
    ev = np.zeros((EVENT_CAPACITY, K.EV_FIELDS), np.int64)
    return logged_rows(args, None, game, new_work(), ev).copy(), pf.Cards(arrays, "fishing2")


def _until_round(rows, r: int) -> np.ndarray:
    """The rows before round r's round_start."""
    at = [i for i, x in enumerate(rows) if x[0] == K.EV_ROUND_START and x[1] == r][0]
    return rows[:at]


def test_the_counts_of_round_1_and_2_of_a_game_read_by_hand():
    """`fishing2sim play -p 3 --seed 11 --strategy greedy --json`, read by hand. Round 1:
    contested following plays (some legal cards would take the trick, some not): trick 1
    player 0 (blue 10 led; blue 9 would not take) and player 1 last (only blue 16 takes),
    trick 2 player 0 last (yellow 14 and 16 beat 13), trick 4 and 6 player 0 (blue 9 would
    not take): 5, all taken, 2 of them last. Leads with 2 options or more: tricks 1-9, none
    the hand's highest value (greedy leads low). The boats before round 2: 12, 3, 15 cards;
    round 2 deals 10: a spread of 12, a shortfall of 7, and player 1 draws 7 from the ocean.
    Round 2's trump choice (player 1) holds no green card: not counted."""
    rows, cards = _rows(3, 11, "greedy")
    t = pf.empty(1)
    pf.count_game(t, _until_round(rows, 2), cards, 3, [0, 0, 0])
    sh = t["profile_share"][0]
    assert sh[pf.FOLLOW, pf.SH_N] == 5 and sh[pf.FOLLOW, pf.SH_Y] == 5
    assert sh[pf.LAST, pf.SH_N] == 2 and sh[pf.LAST, pf.SH_Y] == 2
    assert sh[pf.LEAD, pf.SH_N] == 9 and sh[pf.LEAD, pf.SH_Y] == 0
    t = pf.empty(1)
    pf.count_game(t, _until_round(rows, 3), cards, 3, [0, 0, 0])
    pr = t["profile_round"]
    assert list(pr[pf.BOAT_SPREAD, 1]) == [1, 12, 144]
    assert list(pr[pf.SHORTFALL, 2]) == [1, 7, 49]
    assert list(pr[pf.OCEAN_DRAWS, 2]) == [1, 7, 49]
    assert list(pr[pf.OCEAN_LACKED, 2]) == [1, 0, 0]
    assert t["profile_share"][0, pf.TRUMP_MORE, pf.SH_N] == 0
    assert t["profile_games"][0] == 1


def test_a_trump_choice_and_the_buoys_against_the_log():
    """A whole 4-player game: each trump choice against the chooser's light and dark cards,
    each buoy's plays by round and the ocean's draws, as a plain reading of the decoded log
    finds them."""
    rec = play_game(players=4, seed=3, strategies="greedy")
    rows, cards = _rows(4, 3, "greedy")
    t = pf.empty(1)
    pf.count_game(t, rows, cards, 4, [0] * 4)
    hands = {p: set() for p in range(4)}
    more = held = 0
    buoys: dict = {}
    draws: dict = {}
    r = 0
    for e in rec.events:
        kind = e["event"]
        if kind in ("deal", "draw"):
            hands[e["player"]].add(e["card"])
            if kind == "draw" and e["source"] == "ocean":
                draws[r] = draws.get(r, 0) + 1
        elif kind == "play":
            hands[e["player"]].discard(e["card"])
            if e["card"].startswith("buoy"):
                name = e["card"].split()[1]
                buoys[(name, r)] = buoys.get((name, r), 0) + 1
        elif kind == "catch_1_card":
            hands[e["player"]].discard(e["card"])
        elif kind == "exchange_1_card":
            hands[e["player"]].add(e["taken"])
            hands[e["player"]].discard(e["given"])
        elif kind == "round_start":
            r = e["round"]
        elif kind == "trump_choice":
            h = hands[e["player"]]
            light = sum(1 for c in h if c.startswith("light green"))
            dark = sum(1 for c in h if c.startswith("dark green"))
            if light != dark:
                held += 1
                more += e["shade"] == ("light" if light > dark else "dark")
    assert held > 0
    assert t["profile_share"][0, pf.TRUMP_MORE, pf.SH_N] == held
    assert t["profile_share"][0, pf.TRUMP_MORE, pf.SH_Y] == more
    for rr in range(1, rec.rounds_played + 1):
        assert t["profile_round"][pf.OCEAN_DRAWS, rr, pf.RD_SUM] == draws.get(rr, 0)
    effects = {v: k for k, v in K.EFFECTS.items()}
    got = {(effects[e], rr): int(t["profile_buoy"][e, rr, pf.RD_SUM])
           for e in range(pf.N_EFFECTS) for rr in range(9)
           if t["profile_buoy"][e, rr, pf.RD_SUM]}
    assert got == buoys


@pytest.fixture(scope="module")
def panel_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("profile")
    one = write(root / "one", "panel", PANEL)
    two = write(root / "two", "panel", PANEL)
    run(one, workers=1, progress=False)
    run(two, workers=2, progress=False)
    return root / "one" / "reports" / "panel", root / "two" / "reports" / "panel"


def test_the_profile_is_the_same_for_1_and_2_workers(panel_runs):
    one, two = panel_runs
    for name in ("profile.csv", "profile_differences.csv"):
        assert (one / name).read_bytes() == (two / name).read_bytes()


def test_every_ci_covers_its_estimate_and_the_games_read(panel_runs):
    df = pd.read_csv(panel_runs[0] / "profile.csv")
    assert len(df) > 0
    assert ((df["ci_low"] <= df["estimate"] + 1e-12)
            & (df["estimate"] <= df["ci_high"] + 1e-12)).all()
    # a level's first PROFILE_GAMES games (of its 600: chunks 0 and 1 of 150)
    assert set(df["games"][df["unit"] == "share"]) == {pf.PROFILE_GAMES}
    assert pf.replayed(0, 150) == 150 and pf.replayed(150, 150) == 50
    assert pf.replayed(300, 150) == 0
    shares = df[df["unit"] == "share"]
    assert ((shares["ci_low"] >= 0) & (shares["ci_high"] <= 1)).all()
    # greedy takes every contested trick it can; random about half
    follow = shares[shares["figure"] == "follow_contested"].set_index("level")["estimate"]
    assert follow["greedy"] == 1.0 and 0.3 < follow["random"] < 0.6


def test_the_panel_report_has_the_section_and_names_the_behaviours(panel_runs):
    folder = panel_runs[0]
    text = (folder / "summary.md").read_text()
    assert f"## {TITLE}" in text
    conv = pd.read_csv(folder / "convergence.csv")
    assert (conv[conv["figure"] == "overfishing"]["converged"] == "no").all()
    diffs = pd.read_csv(folder / "profile_differences.csv")
    assert len(diffs) >= 2
    assert ((diffs["diff_ci_low"] > 0) | (diffs["diff_ci_high"] < 0)).all()
    line = next(x for x in text.splitlines() if "overfishing: not converged" in x)
    first, second = diffs.sort_values("rank")["behaviour"][:2]
    assert "what they do differently" in line and first in line and second in line
    assert "difference +" in line or "difference -" in line


def test_an_undecided_trace_line_names_the_behaviours_too(tmp_path):
    """Where the skill trace cannot yet tell whether the two strongest levels agree
    (converged "undecided"), the behaviours that differ most between them are named beside
    the figure as where they disagree, and profile_differences.csv says which (trace)."""
    res = run(write(tmp_path, "panel", PANEL), workers=1, progress=False, write=False)
    conv = res.tables["convergence"].copy()
    conv["converged"] = "undecided"
    diffs = panel_differences(res.exp, res.totals, conv)
    assert len(diffs) >= 2 and set(diffs["trace"]) == {"undecided"}
    assert panel_differences(res.exp, res.totals, conv.assign(converged="yes")).empty
    tables = {**res.tables, "convergence": conv, "profile_differences": diffs}
    lines = trace_lines(Context(res.exp, res, tables))
    over = next(x for x in lines if "overfishing: undecided" in x)
    first, second = diffs[diffs["figure_disagreed"] == "overfishing"].sort_values(
        "rank")["behaviour"][:2]
    assert "what they do differently" in over and first in over and second in over


def test_a_bad_analyses_entry_is_one_line(tmp_path):
    path = write(tmp_path, "bad", """
        players: 4
        games: 100
        analyses: [overfishing, profiel]
    """)
    res = CliRunner().invoke(main, ["run", str(path)])
    assert res.exit_code == 2
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "profiel" in lines[0] and "profile" in lines[0]


def test_every_game_of_a_search_level_is_read(tmp_path):
    """A lineup with a search seat logs every game: its profile reads them all (10 of 10),
    the other level its first PROFILE_GAMES (here all 20)."""
    path = write(tmp_path, "search", """
        players: 3
        games: 20
        chunk: 10
        seed: 1
        play_levels: [greedy, {level: search, games: 10}]
        analyses: [overfishing]
    """)
    run(path, workers=1, progress=False)
    df = pd.read_csv(tmp_path / "reports" / "search" / "profile.csv")
    games = df[df["unit"] == "share"].groupby("level")["games"].max()
    assert games["search"] == 10 and games["greedy"] == 20
    follow = df[(df["figure"] == "follow_contested")].set_index("level")
    assert follow.loc["search", "strategy"] == "pimc_close" and follow.loc["search", "n"] > 100
