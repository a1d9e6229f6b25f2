"""The per-card figures (analyses: [cards], docs/rules.md E "Per-card impact"): the games of
a deal with and without a card, checked against the Python API's games (the standard-deck
games exactly, the leave-one-out effects against independent play_games runs of the deck
without the card), the descriptive figure against an independent count from the event log,
and the bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from fishing2sim.api import new_outputs, new_work, play_game, play_games
from fishing2sim.cli import main
from fishing2sim.config.deck_edits import edit_deck
from fishing2sim.config.experiment import load_experiment
from fishing2sim.engine import constants as K
from fishing2sim.engine.batch import G_END, G_ROUNDS
from fishing2sim.engine.card_impact import C_DRAWER, C_END, C_POINTS, C_ROUNDS, N_C, cards_batch
from fishing2sim.run.card_impact import loo_decks
from fishing2sim.run.totals import empty_totals, summed_keys
from fishing2sim.strategy.lineup import build_lineup, observe_mask
from fishing2sim.study import run

Z3 = 3.29  # a 99.9% two-sided normal quantile: the tolerance of the statistical checks


def _file(tmp_path, body: str, name: str = "cards_test"):
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\noutput: {tmp_path / 'reports'}\n" + body)
    return path


def _kernel(cond, n: int, start: int = 0):
    """cards_batch on n deals of a loaded condition: (out_int, out_points, out_cards)."""
    funcs, table, strats = build_lineup(list(cond.lineup), cond.players, list(cond.params),
                                        False)
    arrays = np.ascontiguousarray(cond.deck.arrays)
    decks, drops = loo_decks(arrays, cond.cards, cond.deck)
    out = new_outputs(n)
    oc = np.zeros((n, len(drops), N_C), np.int64)
    done = cards_batch(arrays, decks, drops, cond.players, K.RULESETS[cond.deck.ruleset],
                       np.ascontiguousarray(cond.deck.hand_sizes[cond.players]),
                       cond.deck.n_rounds, cond.first_leader, np.uint64(cond.seed), start, n,
                       funcs, table, 0, observe_mask(strats), new_work(), *out, oc)
    assert done == n
    return out[0], out[1], oc


def test_the_standard_games_are_play_games_and_a_card_never_drawn_changes_nothing(tmp_path):
    # random seats read nothing of the game, so a deal whose standard game never drew the
    # card plays the same game without it: the coupling is exact up to the card's draw
    exp = load_experiment(_file(tmp_path, "players: 4\ngames: 300\nseats: random\n"
                                "analyses: [cards]\ncards: {only: [blue 26, buoy draw-1-card,"
                                " red 1]}\n"))
    cond = exp.conditions[0]
    out_int, out_points, oc = _kernel(cond, 300)
    ref = play_games(300, 4, seed=cond.seed)
    assert (out_points[:, :4] == ref[[f"points_{p}" for p in range(4)]].to_numpy()).all()
    assert (out_int[:, G_ROUNDS] == ref["rounds_played"].to_numpy()).all()
    not_drawn = oc[:, :, C_DRAWER] < 0
    assert not_drawn[:, 0].sum() > 20 and not_drawn[:, 2].sum() == 0  # red 1 is on top
    for k in range(3):
        m = not_drawn[:, k]
        assert (oc[m, k, C_POINTS:C_POINTS + 4] == out_points[m, :4]).all()
        assert (oc[m, k, C_END] == out_int[m, G_END]).all()
        assert (oc[m, k, C_ROUNDS] == out_int[m, G_ROUNDS]).all()
    # where it was drawn, the games differ (the ocean below it moved up by one card)
    assert (oc[:, 2, C_POINTS:C_POINTS + 4] != out_points[:, :4]).any(axis=1).mean() > 0.5


def test_an_edited_decks_games_without_a_card_keep_its_coupled_deal(tmp_path):
    """An edited deck plays the coupled deal (docs/rules.md "Coupled deals"); its game
    without a card is that deal without the card: where the card was never drawn, the same
    game."""
    exp = load_experiment(_file(tmp_path, "players: 4\ngames: 200\nseats: random\n"
                                "deck: {remove: [blue 26], move: {blowfish 21: 3}}\n"
                                "analyses: [cards]\ncards: {only: [yellow 26, buoy draw-1-card]}\n"))
    cond = exp.conditions[0]
    assert cond.deck.arrays.shape[1] > K.N_FIELDS
    out_int, out_points, oc = _kernel(cond, 200)
    ref = play_games(200, 4, seed=cond.seed, deck=cond.deck)
    assert (out_points[:, :4] == ref[[f"points_{p}" for p in range(4)]].to_numpy()).all()
    not_drawn = oc[:, :, C_DRAWER] < 0
    assert not_drawn[:, 1].sum() > 10
    for k in range(2):
        m = not_drawn[:, k]
        assert (oc[m, k, C_POINTS:C_POINTS + 4] == out_points[m, :4]).all()
        assert (oc[m, k, C_END] == out_int[m, G_END]).all()


@pytest.mark.parametrize("card", ["buoy draw-1-card", "light green 3"])
def test_leave_one_out_effects_agree_with_independent_play_games(tmp_path, card):
    # the paired effect (same deals) against the difference of two independent samples:
    # play_games with the deck without the card, and with the standard deck
    games = 4000
    res = run(_file(tmp_path, f"players: 5\ngames: {games}\nchunk: 2000\nseed: 7\n"
                    f"seats: random\nanalyses: [cards]\ncards: {{only: [{card}]}}\n"),
              workers=1, progress=False, write=False)
    df = res.tables["cards"]
    exp = load_experiment(_file(tmp_path, "players: 5\ngames: 10\nseats: random\n"
                                "analyses: [overfishing]\n", "plain"))
    deck = exp.conditions[0].deck
    without = edit_deck(deck, remove=[card])
    a = play_games(games, 5, seed=101, deck=without)
    b = play_games(games, 5, seed=202, deck=deck)
    for metric, col, f in (("overfishing_effect", "end_reason", lambda s: s == "overfished"),
                           ("game_length_effect", "rounds_played", lambda s: s)):
        r = df[(df["metric"] == metric) & (df["card"] == card)].iloc[0]
        assert int(r["n"]) == games
        x, y = f(a[col]).astype(float), f(b[col]).astype(float)
        d = x.mean() - y.mean()
        se_ind = math.sqrt(x.var(ddof=1) / games + y.var(ddof=1) / games)
        se_pair = (r["ci_high"] - r["ci_low"]) / 2 / 1.96
        assert abs(r["estimate"] - d) <= Z3 * math.hypot(se_ind, se_pair), (metric, card)
    # the level without the card agrees too (a share of games, Wilson's CI)
    r = df[(df["metric"] == "overfishing_without") & (df["card"] == card)].iloc[0]
    p = (a["end_reason"] == "overfished").mean()
    se = math.hypot((r["ci_high"] - r["ci_low"]) / 2 / 1.96, math.sqrt(p * (1 - p) / games))
    assert abs(r["estimate"] - p) <= Z3 * se


def _first_catch(events, card):
    for e in events:
        if e["event"] in ("caught", "catch_1_other", "catch_1_card") and e["card"] == card:
            return e["player"]
    return None


def _drawer(events, card):
    for e in events:
        if e["event"] == "draw" and e["source"] == "ocean" and e["card"] == card:
            return e["player"]
    return None


def test_the_descriptive_figure_and_the_drawer_agree_with_a_count_from_the_event_log(tmp_path):
    cards = ["blue 26", "buoy +3-points", "dark green 2"]
    games = 150
    path = _file(tmp_path, f"players: 4\ngames: {games}\nseed: 3\nseats: greedy\n"
                 f"analyses: [cards]\ncards: {{only: [{', '.join(cards)}]}}\n")
    res = run(path, workers=1, progress=False, write=False)
    df = res.tables["cards"]
    seed = load_experiment(path).conditions[0].seed
    records = [play_game(4, seed=seed, game=g, strategies="greedy") for g in range(games)]
    for card in cards:
        caught, drawn = [], []
        for rec in records:
            share = {p: 1 / len(rec.winners) for p in rec.winners}
            who = _first_catch(rec.events, card)
            if who is not None:
                caught.append(share.get(who, 0.0))
            who = _drawer(rec.events, card)
            if who is not None:
                drawn.append(share.get(who, 0.0))
        got = df[df["card"] == card].set_index("metric")
        assert got.loc["catcher_win_share", "n"] == len(caught) > 0
        assert got.loc["catcher_win_share", "estimate"] == pytest.approx(np.mean(caught))
        assert got.loc["drawn_share", "estimate"] == pytest.approx(len(drawn) / games)
        assert got.loc["drawer_win_share", "estimate"] == pytest.approx(np.mean(drawn))
        assert got.loc["drawer_win_effect", "n"] == len(drawn)
    ranked = res.tables["cards_ranked"]
    assert sorted(ranked["card"]) == sorted(cards)
    assert list(ranked["rank"]) == [1, 2, 3]
    size = ranked["drawer_win_effect"].abs().to_numpy()
    assert (np.diff(size) <= 0).all()  # the largest drawer effect first


def test_every_ocean_card_by_default_and_the_report(tmp_path):
    path = _file(tmp_path, "players: [3, 5]\ngames: 40\nseats: random\n"
                 "analyses: [cards]\n")
    exp = load_experiment(path)
    # 3 players: no "4+" cards (red 1-3, light and dark green 1-2, blowfish 21: D1)
    assert [len(c.cards) for c in exp.conditions] == [59 - 8, 59]
    res = run(path, workers=1, progress=False)
    folder = exp.output_dir
    assert {"cards.csv", "cards_ranked.csv", "cards.png", "summary.md",
            "report.html"} <= {p.name for p in folder.iterdir()}
    md = (folder / "summary.md").read_text()
    assert "## Per-card impact" in md and "confounded" in md and "![Per-card impact](cards.png)" in md
    assert "Per-card impact" in (folder / "report.html").read_text()
    assert len(res.tables["cards_ranked"]) == 51 + 59


def test_card_totals_only_when_asked():
    assert not [k for k in empty_totals(4, 1) if k.startswith("cards_")]
    assert not [k for k in summed_keys() if k.startswith("cards_")]
    assert "cards_over" in summed_keys(cards=True)


def _refused(tmp_path, body: str) -> str:
    path = _file(tmp_path, body)
    res = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not (tmp_path / "reports").exists()  # nothing written
    return res.output.strip()


def test_an_unknown_card_is_one_line_with_the_nearest_name(tmp_path):
    out = _refused(tmp_path, "players: 4\ngames: 10\nanalyses: [cards]\n"
                   "cards: {only: [blue 26, blu 25]}\n")
    assert "cards.only[1]: no card named 'blu 25'" in out
    assert "did you mean 'blue 26'" in out or "did you mean" in out


def test_a_card_a_deck_edit_removed_is_refused(tmp_path):
    out = _refused(tmp_path, "players: 4\ngames: 10\nanalyses: [cards]\n"
                   "deck: {remove: [blue 26]}\ncards: {only: [blue 26]}\n")
    assert "cards.only[0]: card 'blue 26' is not in the deck: a deck edit removed it" in out


@pytest.mark.parametrize("body, text", [
    ("players: 4\ncards: {only: [blue 26]}\n", "cards: the cards analysis is not asked for"),
    ("players: 4\nanalyses: [cards]\ncards: {only: [blue 5]}\n",
     "cards.only[0]: card 'blue 5' is a starting card, not an ocean card"),
    ("players: 3\nanalyses: [cards]\ncards: {only: [red 1]}\n",
     "cards.only[0]: card 'red 1' is not in the ocean with 3 players"),
    ("players: 4\nanalyses: [cards]\ncards: {only: [red 1, red 1]}\n",
     "cards.only[1]: card 'red 1' given twice"),
    ("players: 4\nanalyses: [cards]\ncards: {only: blue 26}\n", "cards.only: expected"),
    ("players: 4\nanalyses: [overfishing]\nprecision: {card_overfishing: 1pp}\n",
     "precision.card_overfishing: needs the cards analysis"),
    ("players: 4\nanalyses: [cards]\nseats: pimc\n", "searches; the cards analysis"),
])
def test_bad_cards_input_is_one_line(tmp_path, body, text):
    assert text in _refused(tmp_path, "games: 10\n" + body)


def test_the_other_analyses_are_those_of_the_run_without_cards(tmp_path):
    # the standard-deck games are the games of the file without the cards analysis, also
    # with trump_value (whose kernel then plays them) and with seat rotation
    body = ("players: 4\ngames: 120\nchunk: 40\nseed: 5\nrotate: true\n"
            "seats: [greedy, random, greedy, random]\n")
    plain = run(_file(tmp_path, body + "analyses: [overfishing, trump_value, strategies]\n",
                      "plain"), workers=1, progress=False, write=False)
    both = run(_file(tmp_path, body + "analyses: [overfishing, trump_value, strategies, cards]"
                     "\ncards: {only: [yellow 26, buoy catch-1-card]}\n"),
               workers=1, progress=False, write=False)
    for name in ("overfishing", "trump_value", "strategies"):
        assert plain.tables[name].equals(both.tables[name]), name
    over = both.tables["cards"]
    assert set(over.loc[over["metric"] == "overfishing_effect", "n"]) == {120}
