"""A game's cost by its lineup (fishing2sim/run/costs.py): the progress bar counts work, so a
skill panel's search level fills the bar as it takes the time."""
from __future__ import annotations

import textwrap
from pathlib import Path

from fishing2sim.config.experiment import load_experiment
from fishing2sim.run import costs
from fishing2sim.run.runner import _weights

REPO = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "c.yaml"
    p.write_text(f"name: c\noutput: {tmp_path}\n" + textwrap.dedent(body))
    return p


def test_the_cost_table_names_every_shipped_bot_at_every_player_count():
    table = costs.table()
    bots = {p.stem for p in (REPO / "strategies").glob("*.py")} - {"__init__"}
    for bot in bots:
        for players in (3, 4, 5):
            assert table.get((bot, "fishing2", players), 0) > 0, (bot, players)
    # a search game costs far more than a heuristic one: what the weights are for
    assert table[("pimc", "fishing2", 4)] > 100 * table[("weights", "fishing2", 4)]


def test_a_panels_search_level_weighs_its_games_by_their_cost(tmp_path):
    exp = load_experiment(write(tmp_path, """
        players: 4
        games: 400
        chunk: 100
        play_levels:
          levels: [random, {level: skilled, games: 200}, {level: search, games: 100}]
        analyses: [overfishing]
    """))
    w = dict(zip((c.level for c in exp.conditions), _weights(exp)))
    t = costs.table()
    assert w["random"] == 1.0
    assert w["skilled"] == t[("skilled", "fishing2", 4)] / t[("random", "fishing2", 4)]
    assert w["search"] == t[("pimc_close", "fishing2", 4)] / t[("random", "fishing2", 4)]


def test_lineups_of_like_cost_count_games_as_before(tmp_path):
    exp = load_experiment(write(tmp_path, """
        players: 4
        games: 400
        chunk: 100
        sweep: {seats: [greedy, buoy_savvy, [random, greedy, random, greedy]]}
        analyses: [overfishing]
    """))
    assert _weights(exp) == [1.0, 1.0, 1.0]


def test_a_bot_the_table_does_not_name_costs_what_its_kind_does():
    t = costs.table()
    assert costs.bot_cost("my_own_bot", "heuristic", "fishing2", 4) == t[("weights", "fishing2", 4)]
    assert costs.bot_cost("my_searcher", "cheater", "fishing2", 4) == t[("cheater", "fishing2", 4)]
    searches = sorted(t[(b, "fishing2", 4)] for b in ("pimc", "ismcts", "pimc_skilled"))
    assert costs.bot_cost("my_searcher", "search", "fishing2", 4) == searches[1]
