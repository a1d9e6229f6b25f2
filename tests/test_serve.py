"""`fishing2sim serve` (docs/serve.md): a game at the table equals the engine's own
pause-and-answer loop; the hints are the search's values from the seat's view only; the
page's view holds nothing the seat has not seen; the HTTP rules (Host header, token, report
folders only, clear error pages); Ctrl-C."""
from __future__ import annotations

import json

import os
from html import unescape
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

if __import__("os").environ.get("CI", "").lower() != "true":  # CI: a missing extra fails
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")

with __import__("warnings").catch_warnings():  # starlette's note on httpx's successor
    __import__("warnings").simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from fishing2sim.config.deck import load_deck  # noqa: E402
from fishing2sim.engine import constants as K  # noqa: E402
from fishing2sim.engine.rng import game_seed  # noqa: E402
from fishing2sim.engine.state import (  # noqa: E402
    A_HAND, A_POINTS, S_ASK_SEAT, S_EVN, new_state,
)
from fishing2sim.errors import InputError  # noqa: E402
from fishing2sim.safe_files import MARKER  # noqa: E402
from fishing2sim.serve.app import make_app  # noqa: E402
from fishing2sim.serve.hints import hint, hint_seed, review  # noqa: E402
from fishing2sim.serve.table import HIDDEN, Table  # noqa: E402
from fishing2sim.report.replay import hands_at  # noqa: E402
from fishing2sim.serve.view import replay, table_view  # noqa: E402
from fishing2sim.strategy.lineup import build_lineup, observe_mask, search_args  # noqa: E402

GAMES = [("fishing2", 4, 1, ["random", "greedy", "random", "greedy"], 28),
         ("fishing", 3, 0, ["random", "greedy", "random"], 12)]


def engine_replay(ruleset, players, seat, bots, seed, game=0):
    """The same game without the server: the engine's own pause loop (play_to_pause),
    every one of the seat's decisions answered with its first option."""
    from fishing2sim.search.kernels import play_to_pause

    deck = load_deck(None, ruleset=ruleset)
    specs = list(bots)
    specs[seat] = "random"
    funcs, table, strats = build_lineup(specs, players)
    mask = observe_mask(strats)
    smask = 0
    for k in range(K.N_DECISIONS):
        mask &= ~(1 << (K.MAX_PLAYERS * (1 + k) + seat))
        smask |= 1 << (K.MAX_PLAYERS * k + seat)
    st, rng = new_state()
    ev = np.zeros((16384, K.EV_FIELDS), np.int64)
    paused = play_to_pause(np.ascontiguousarray(deck.arrays), players, K.RULESETS[ruleset],
                           np.ascontiguousarray(deck.hand_sizes[players]), deck.n_rounds, -1,
                           np.uint64(game_seed(seed, game)), funcs, table, mask, smask, 10**6,
                           st, rng, ev)
    assert not paused
    return [int(st[A_POINTS + p]) for p in range(players)]


@pytest.mark.parametrize("ruleset,players,seat,bots,seed", GAMES)
def test_a_game_at_the_table_is_the_engines_game(ruleset, players, seat, bots, seed):
    t = Table(ruleset, players, seat, bots, seed)
    kinds = set()
    while not t.over:
        assert int(t.st[S_ASK_SEAT]) == seat
        kinds.add(int(t.observation()[K.O_KIND]))
        t.answer(t.options()[0])
    assert t.final_points() == engine_replay(ruleset, players, seat, bots, seed)
    assert K.D_PLAY in kinds and len(t.decisions) > 40
    if ruleset == "fishing2":  # seed 28: every decision kind of Fishing 2 is the seat's
        assert kinds == set(range(K.D_CATCH_1_CARD + 1))


def test_every_decision_of_the_original_fishing_is_the_persons():
    kinds = set()
    for seed in (0, 1, 7):
        t = Table("fishing", 5, 0, ["random"] * 5, seed)
        while not t.over:
            kinds.add(int(t.observation()[K.O_KIND]))
            t.answer(t.options()[-1])
    assert kinds == {K.D_PLAY, K.D_ZERO_CATCH, K.D_PASS_1_LEFT, K.D_DETERMINE_COLOUR}


def _at_play_with_an_illegal_card(seed=3):
    t = Table("fishing2", 4, 0, ["random"] * 4, seed)
    while not t.over:
        obs = t.observation()
        if obs[K.O_KIND] == K.D_PLAY and len(t.options()) < obs[K.O_HAND_N]:
            return t, obs
        t.answer(t.options()[0])
    raise AssertionError("no decision with an illegal card")


def test_an_illegal_card_is_refused_with_the_rule():
    t, obs = _at_play_with_an_illegal_card()
    hand = [int(c) for c in obs[K.O_HAND:K.O_HAND + obs[K.O_HAND_N]]]
    bad = next(c for c in hand if c not in t.options())
    n = len(t.decisions)
    with pytest.raises(InputError, match=r"cannot be played: the led suit is .* A5: once a "
                                         r"suit is set"):
        t.answer(bad)
    assert len(t.decisions) == n and not t.over  # nothing happened
    with pytest.raises(InputError, match="not in your hand"):
        t.answer(10**6)


def _swapped(t: Table, a: int, b: int, i: int = 0) -> Table:
    """The same table with card i of seats a's and b's hands swapped (state and deal
    events): a game the person's seat cannot tell apart."""
    import copy

    u = copy.copy(t)
    u.st, u.ev = t.st.copy(), t.ev.copy()
    u.work = np.zeros_like(t.work)
    x, y = int(u.st[A_HAND + a * K.MAX_HAND + i]), int(u.st[A_HAND + b * K.MAX_HAND + i])
    u.st[A_HAND + a * K.MAX_HAND + i], u.st[A_HAND + b * K.MAX_HAND + i] = y, x
    for k in range(int(u.st[S_EVN])):
        if u.ev[k, 0] == K.EV_DEAL and u.ev[k, 2] in (x, y):
            u.ev[k, 2] = y if u.ev[k, 2] == x else x
    u.hint_values = None
    return u


def test_the_hint_is_the_searchs_values_from_the_seats_view_only():
    from fishing2sim.search.kernels import decide_once

    t = Table("fishing2", 4, 0, ["random", "greedy", "random", "greedy"], 5)
    for _ in range(3):
        t.answer(t.options()[0])
    h = hint(t)
    # the same search called directly, with the hint's seed, on the same paused game
    _, _, strats = build_lineup(["pimc", "random", "random", "random"], 4)
    _, sp, rf, rt, ro = search_args(strats, None, 4)
    values = np.zeros(K.MAX_HAND)
    decide_once(t.st.copy(), t.ev, t.arrays, sp, hint_seed(t.gseed, 3), rf, rt, ro, values)
    assert [o["value"] for o in h["options"]] == [round(v, 2) for v in values[:len(t.options())]]
    assert len({o["value"] for o in h["options"]}) > 1  # real values, not a constant
    from fishing2sim.search import kernels as S

    sp[0, S.SP_OBJECTIVE], sp[0, S.SP_HORIZON] = S.OBJ_WIN, S.HORIZON_GAME  # the win chance
    decide_once(t.st.copy(), t.ev, t.arrays, sp, hint_seed(t.gseed, 3), rf, rt, ro, values)
    assert [o["win"] for o in h["options"]] == [round(v, 3) for v in values[:len(t.options())]]
    assert all(0 <= o["win"] <= 1 and o["spread"][0] <= o["spread"][1] for o in h["options"])
    assert h["skilled"] in t.options() and h["best"] in t.options()
    view = table_view(t)
    changed = 0
    for a, b in ((1, 2), (2, 3), (1, 3)):
        u = _swapped(t, a, b)
        changed += not np.array_equal(u.st, t.st)
        assert hint(u) == h  # the search's values and skilled's choice
        assert table_view(u) == view  # and the page
    assert changed == 3  # the swaps are real differences of the hidden deal


def test_the_page_shows_no_card_the_seat_has_not_seen():
    t = Table("fishing2", 4, 2, ["random"] * 4, 8)
    while not t.over and len(t.decisions) < 60:
        t.answer(t.options()[-1])
    events = t.public_events()
    kinds = {e["event"] for e in events}
    assert "boat" not in kinds
    ocean = [e for e in events if e["event"] == "ocean"]
    assert len(ocean) == 59 and all(e["card"] == HIDDEN for e in ocean)
    assert {e["player"] for e in events if e["event"] == "deal"} == {2}
    others = [e for e in events if e["event"] == "draw" and e["player"] != 2]
    assert others and all(e["card"] == HIDDEN for e in others)
    mine = [e for e in events if e["event"] == "draw" and e["player"] == 2]
    assert mine and all(e["card"] != HIDDEN for e in mine)


def test_the_review_ranks_the_decisions_by_what_the_best_option_was_worth():
    t = Table("fishing", 3, 1, ["greedy", "random", "greedy"], 4)
    while not t.over:
        t.answer(t.options()[-1])
    r = review(t)
    losses = [d["loss"] for d in r["decisions"]]
    assert len(losses) == len(t.decisions) and losses == sorted(losses, reverse=True)
    assert min(losses) >= 0 and max(losses) > 0
    for d in t.decisions:  # each loss is the best value minus the played option's
        row = next(x for x in r["decisions"] if x["decision"] == d.number + 1)
        assert row["loss"] == round(max(d.values) - d.values[d.options.index(d.choice)], 2)
    assert [x["round"] for x in r["rounds"]] == list(range(1, len(r["rounds"]) + 1))
    assert r["rounds"][-1]["points"] == t.final_points()


def test_a_replay_shows_every_hand_before_every_trick():
    r = replay("fishing", 3, 2, ["random"] * 3)
    from fishing2sim.api import play_game

    g = play_game(players=3, seed=2, ruleset="fishing")
    assert r["end"]["points"] == g.points
    first = r["tricks"][0]
    lab = r["labels"]  # (the report's viewer's JSON: report/replay.py)
    deals = [[e["card"] for e in g.events if e["event"] == "deal" and e["player"] == p]
             for p in range(3)]
    assert [sorted(lab[c] for c in h) for h in first["hands"]] == [sorted(h) for h in deals]
    for t, hands in zip(r["tricks"], hands_at(r)):  # each trick's plays come out of the
        for p, c in t["plays"]:  # hands shown before it
            assert c in hands[p]


# ---- HTTP ---------------------------------------------------------------------------

HOST = "127.0.0.1:8123"


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    rep = root / "study"
    rep.mkdir()
    (rep / MARKER).write_text("report\n")
    (rep / "report.html").write_text("<html><body>the study's page</body></html>")
    (rep / "results.csv").write_text("a,b\n1,2\n")
    secret = tmp_path / "secret.html"
    secret.write_text("SECRET outside the folder")
    (rep / "leak.html").symlink_to(secret)
    out = tmp_path / "elsewhere"
    out.mkdir()
    (out / MARKER).write_text("report\n")
    (out / "report.html").write_text("SECRET report outside")
    (root / "linked").symlink_to(out)
    app = make_app(root, "tok", {HOST}, cookie="f2s")
    client = TestClient(app, base_url=f"http://{HOST}", follow_redirects=False)
    return client


def _in(client):
    r = client.get("/?token=tok")
    assert r.status_code == 303 and r.headers["location"] == "/"
    return client


def test_a_request_without_the_token_is_refused(served):
    r = served.get("/")
    assert r.status_code == 403 and "Open the address the server printed" in r.text
    assert served.get("/?token=wrong").status_code == 403
    served.cookies.set("f2s", "wrong")
    assert served.get("/").status_code == 403
    served.cookies.clear()
    _in(served)
    r = served.get("/")
    assert r.status_code == 200 and "Play a seat" in r.text and "study" in r.text


def test_a_foreign_host_header_is_refused(served):
    _in(served)
    for host in ("evil.example:8123", "127.0.0.1:9999", "localhost"):
        r = served.get("/?token=tok", headers={"host": host})
        assert r.status_code == 400 and "This server answers to 127.0.0.1:8123" in r.text


def test_only_the_report_folders_under_the_folder_are_served(served):
    _in(served)
    r = served.get("/reports/study/report.html")
    assert r.status_code == 200 and "the study's page" in r.text
    assert served.get("/reports/study").text == r.text
    assert served.get("/reports/study/results.csv").text == "a,b\n1,2\n"
    assert "linked" not in served.get("/reports").text  # a link out is not listed
    for path in ("/reports/linked/report.html", "/reports/study/leak.html",
                 "/reports/study/..%2F..%2Fsecret.html", "/reports/..%2Fsecret.html",
                 "/reports/study/%2Fetc%2Fpasswd", "/reports/nope/report.html",
                 "/reports/study/.fishing2sim-report", "/reports/../secret.html"):
        r = served.get(path)
        assert r.status_code in (400, 404), path
        assert "SECRET" not in r.text and "Traceback" not in r.text, path
        assert "<h1>" in r.text, path
    text = unescape(served.get("/reports/nope/report.html").text)
    assert "no report folder named 'nope'" in text


def test_bad_requests_are_clear_pages_never_a_traceback(served):
    _in(served)
    cases = [("post", "/new", {"players": "9", "seat": "0", "seed": "1"},
              "players must be a whole number from 3 to 5, got '9'"),
             ("post", "/new", {"players": "3", "seat": "0", "seed": "1", "bot1": "nobody"},
              "seat 1: unknown bot 'nobody'"),
             ("get", "/game/nosuchgame", None, "no such game"),
             ("get", "/replay?players=3&seed=x", None, "seed must be a whole number"),
             ("get", "/replay?players=4&seed=1&bots=random,random", None,
              "name one bot, or one for each of the 4 seats"),
             ("get", "/nowhere", None, "/nowhere: no such page")]
    for method, path, data, words in cases:
        r = served.post(path, data=data) if method == "post" else served.get(path)
        assert r.status_code in (400, 404), path
        assert words in unescape(r.text), (path, r.text[-400:])
        assert "Traceback" not in r.text
    r = served.get("/api/game/nosuchgame")
    assert r.status_code == 404 and "no such game" in r.json()["error"]


def test_a_game_over_http_survives_a_reload(served):
    _in(served)
    r = served.post("/new", data={"ruleset": "fishing", "players": "3", "seat": "1",
                                  "bot0": "greedy", "bot2": "random", "seed": "6"})
    assert r.status_code == 303
    game = r.headers["location"].rsplit("/", 1)[1]
    v = served.get(f"/api/game/{game}").json()
    assert v["decision"]["options"] and v["seat"] == 1
    first = v["decision"]["options"][0]["option"]
    after = served.post(f"/api/game/{game}/answer", data={"option": str(first)}).json()
    assert served.get(f"/api/game/{game}").json() == after  # a reload: the same game
    assert "id='app' data-game" in served.get(f"/game/{game}").text
    bad = served.post(f"/api/game/{game}/answer", data={"option": "99999"})
    assert bad.status_code == 400 and "is not" in bad.json()["error"]


def test_ctrl_c_stops_the_server(tmp_path):
    """SIGINT: the server stops and the command exits with code 130 (docs/serve.md)."""
    p = subprocess.Popen([sys.executable, "-m", "fishing2sim.cli", "serve", str(tmp_path),
                          "--port", "0"], stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        lines = []
        while not any("token=" in x for x in lines):
            line = p.stderr.readline()
            assert line, "".join(lines)
            lines.append(line)
        url = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", "".join(lines))
        assert url
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=30) == 130
        assert "stopped" in p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_serve_refuses_a_missing_folder_and_a_bad_port(tmp_path):
    from click.testing import CliRunner

    from fishing2sim.cli import main

    r = CliRunner().invoke(main, ["serve", str(tmp_path / "none")])
    assert r.exit_code == 2 and "no such folder" in r.output
    r = CliRunner().invoke(main, ["serve", str(tmp_path), "--port", "70000"])
    assert r.exit_code == 2 and "--port must be from 0 to 65535" in r.output
    assert Path(tmp_path).is_dir()


@pytest.fixture(scope="module")
def with_report(tmp_path_factory):
    """A served folder holding one small real report (two conditions)."""
    from click.testing import CliRunner

    from fishing2sim.cli import main

    root = tmp_path_factory.mktemp("reports")
    exp = root.parent / f"{root.name}-small.yaml"
    exp.write_text(f"""name: small
output: {root}
players: 4
games: 40
chunk: 40
seed: 5
seats: random
sweep:
  seats: [random, greedy]
analyses: [overfishing]
""")
    res = CliRunner().invoke(main, ["run", str(exp), "--workers", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    client = TestClient(make_app(root, "tok", {HOST}, cookie="f2s"), base_url=f"http://{HOST}",
                        follow_redirects=False)
    return _in(client), exp


def test_a_reports_game_is_replayed_by_condition_and_index(with_report):
    from fishing2sim.api import play_game
    from fishing2sim.config.experiment import load_experiment

    client, exp = with_report
    assert "/replay/small" in client.get("/").text
    r = client.get("/replay/small?condition=1&game=3")
    assert r.status_code == 200
    c = load_experiment(exp).conditions[1]  # as `fishing2sim play --experiment FILE
    g = play_game(players=4, seed=c.seed, strategies="greedy", game=3)  # --condition 1 --game 3`
    text = unescape(r.text)
    assert f"final points {g.points}" in text and "condition 1" in text
    assert "src='/static/viewer.js'" in text and client.get("/static/viewer.js").status_code \
        == 200  # the report's viewer, with the game's JSON
    shown = json.loads(text.split("id='f2-games'>", 1)[1].split("</script>", 1)[0])
    assert len(shown["games"]["replay"]["tricks"]) == sum(
        1 for e in g.events if e["event"] == "trick_start")
    for path, words in (("/replay/small?condition=2&game=0",
                         "condition 2 is out of range: the report has 2 conditions (0..1)"),
                        ("/replay/small?condition=1&game=40",
                         "game 40 is out of range: condition 1 played 40 games (0..39)"),
                        ("/replay/nope?condition=0&game=0", "no report folder named 'nope'"),
                        ("/replay/small?condition=x&game=0", "condition must be a whole")):
        r = client.get(path)
        assert r.status_code in (400, 404) and words in unescape(r.text), (path, r.text[-300:])


def test_a_reports_example_game_is_shown_from_its_examples_json(tmp_path, with_report):
    """A game that is one of the report's example games is not played again: the replay
    page shows examples.json's game (here marked), in the report's viewer."""
    import shutil

    from fishing2sim.config.experiment import load_experiment
    from fishing2sim.report.replay import build_examples
    from fishing2sim.report.viewer import write_examples

    client, exp = with_report
    root = tmp_path / "served"
    shutil.copytree(Path(exp).parent / Path(exp).name.replace("-small.yaml", ""), root)
    data = build_examples(load_experiment(exp), [{"condition": 1, "figure": "overfishing",
                                                  "rank": 1, "game": 3}], str(exp))
    plain = json.loads(json.dumps(data["games"]["c1-g3"]))
    data["games"]["c1-g3"]["title"] = "the stored example"
    write_examples(root / "small", data)
    c = _in(TestClient(make_app(root, "tok", {HOST}, cookie="f2s"),
                       base_url=f"http://{HOST}", follow_redirects=False))
    text = unescape(c.get("/replay/small?condition=1&game=3").text)
    assert "the stored example, 4 players" in text
    shown = json.loads(text.split("id='f2-games'>", 1)[1].split("</script>", 1)[0])
    assert shown["games"]["replay"]["tricks"] == plain["tricks"]
    assert "the stored example" not in unescape(c.get("/replay/small?condition=1&game=4").text)


def test_a_reports_condition_is_played_at_the_table(with_report):
    from fishing2sim.config.experiment import load_experiment

    client, exp = with_report
    r = client.post("/play/small", data={"condition": "1", "game": "3", "seat": "2"})
    assert r.status_code == 303
    game = r.headers["location"].rsplit("/", 1)[1]
    v = client.get(f"/api/game/{game}").json()
    assert v["bots"] == ["greedy", "greedy", "you", "greedy"] and v["game"] == 3
    assert v["source"] == "small, condition 1 (seats=greedy), game 3"
    while not v["over"]:
        v = client.post(f"/api/game/{game}/answer",
                        data={"option": str(v["decision"]["options"][0]["option"])}).json()
    c = load_experiment(exp).conditions[1]
    assert v["end"]["points"] == engine_replay("fishing2", 4, 2, ["greedy"] * 4, c.seed, 3)
    r = client.post("/play/small", data={"condition": "1", "game": "0", "seat": "4"})
    assert r.status_code == 400 and "seat must be a whole number from 0 to 3" in r.text


def test_search_bots_play_in_the_other_seats():
    t = Table("fishing", 3, 1, ["pimc", "random", "ismcts"], 2)
    while not t.over:
        t.answer(t.options()[0])
    assert t.bot_decisions > 40 and sum(t.final_points()) > 0


def test_a_report_seating_a_strategy_file_is_not_run(tmp_path, with_report):
    """A report folder may come from anyone: a condition that seats a strategy file is
    refused, and the file's code never runs."""
    import shutil

    client, exp = with_report
    root = tmp_path / "served"
    shutil.copytree(Path(exp).parent / Path(exp).name.replace("-small.yaml", ""), root)
    bot = tmp_path / "evil.py"
    bot.write_text("open(__file__ + '.ran', 'w').close()\nNAME = 'evil'\n")
    cfg = (root / "small" / "config.yaml").read_text()
    (root / "small" / "config.yaml").write_text(
        cfg.replace("  - greedy\n", f"  - {bot}\n", 1))  # the sweep's second value
    c = _in(TestClient(make_app(root, "tok", {HOST}, cookie="f2s"),
                       base_url=f"http://{HOST}", follow_redirects=False))
    for r in (c.get("/replay/small?condition=1&game=0"),
              c.post("/play/small", data={"condition": "1", "game": "0", "seat": "0"})):
        assert r.status_code == 400 and "names files (evil.py)" in unescape(r.text)
    assert not (tmp_path / "evil.py.ran").exists()


def test_public_events_hide_every_card_the_seat_did_not_see():
    from fishing2sim.serve.table import public_events

    ev = [{"event": "ocean", "position": 0, "card": "blue 11"},
          {"event": "deal", "player": 0, "card": "blue 1"},
          {"event": "deal", "player": 1, "card": "blue 2"},
          {"event": "trick_start", "round": 1, "trick": 1, "leader": 1},
          {"event": "play", "player": 1, "card": "buoy exchange-1-card"},
          {"event": "exchange_1_card", "player": 1, "taken": "blue 3", "given": "blue 2"},
          {"event": "exchange_1_card", "player": 2, "taken": "blue 2", "given": "red 4"},
          {"event": "trick_result", "highest_player": 0, "highest_card": "blue 9",
           "weakest_player": 3, "weakest_card": "red 4"},
          {"event": "caught", "player": 0, "card": "red 4", "by": "highest"},
          {"event": "caught", "player": 0, "card": "blue 3", "by": "highest"},
          {"event": "pass_1_left", "player": 2, "card": "red 5", "to": 3},
          {"event": "pass_1_left", "player": 3, "card": "red 6", "to": 0},
          {"event": "draw", "player": 1, "card": "red 7", "source": "ocean", "cause": "round"},
          {"event": "catch_1_card", "player": 0, "card": "red 8"},
          {"event": "boat", "player": 0, "card": "red 8"}]
    out = public_events(ev, 0)
    cards = [(e["event"], e.get("card", e.get("taken"))) for e in out]
    assert ("deal", "blue 1") in cards and all(e.get("card") != "blue 2" for e in out)
    assert [e for e in out if e["event"] == "ocean"][0]["card"] == HIDDEN
    ex = [e for e in out if e["event"] == "exchange_1_card"]
    assert ex[0]["taken"] == "blue 3" and ex[0]["given"] == HIDDEN  # taken face up
    assert ex[1]["taken"] == HIDDEN and ex[1]["given"] == HIDDEN  # a face-down card
    tr = next(e for e in out if e["event"] == "trick_result")
    assert tr["highest_card"] == "blue 9" and tr["weakest_card"] == HIDDEN
    caught = [e["card"] for e in out if e["event"] == "caught"]
    assert caught == [HIDDEN, "blue 3"]
    passes = [e["card"] for e in out if e["event"] == "pass_1_left"]
    assert passes == [HIDDEN, "red 6"]  # only the card passed to seat 0
    assert next(e for e in out if e["event"] == "draw")["card"] == HIDDEN
    assert next(e for e in out if e["event"] == "catch_1_card")["card"] == "red 8"
    assert not any(e["event"] == "boat" for e in out)


def _deck_without_a_tier_4_card(path: Path) -> Path:
    """The Fishing 2 deck with its last tier-4 card left out (ids renumbered)."""
    src = load_deck(None, ruleset="fishing2").path.read_text().splitlines()
    head, rows = src[0], [r.split(",") for r in src[1:]]
    tier = head.split(",").index("tier")
    last = max(i for i, r in enumerate(rows) if r[tier] == "4")
    rows = [r for i, r in enumerate(rows) if i != last]
    path.write_text("\n".join([head] + [",".join([str(i)] + r[1:])
                                        for i, r in enumerate(rows)]) + "\n")
    return path


def test_the_start_page_offers_the_files_named_at_the_start(tmp_path):
    """`serve --strategy FILE --deck FILE`: the page offers them by name; a game seats the
    file's bot and plays the file's deck; a form names offered names only, never a path."""
    from fishing2sim.serve.offer import make_offer

    bot = tmp_path / "my_lowest.py"
    bot.write_text((Path(__file__).parents[1] / "strategies" / "greedy.py").read_text()
                   .replace('NAME = "greedy"', 'NAME = "my_lowest"'))
    deck = _deck_without_a_tier_4_card(tmp_path / "short_ocean.csv")
    offer = make_offer([bot], [deck])
    root = tmp_path / "reports"
    root.mkdir()
    c = _in(TestClient(make_app(root, "tok", {HOST}, cookie="f2s", offer=offer),
                       base_url=f"http://{HOST}", follow_redirects=False))
    page = c.get("/").text
    assert "<option>my_lowest</option>" in page and "<option>short_ocean</option>" in page
    r = c.post("/new", data={"ruleset": "fishing2", "players": "4", "seat": "0", "seed": "3",
                             "bot1": "my_lowest", "bot2": "greedy", "bot3": "my_lowest",
                             "deck": "short_ocean"})
    assert r.status_code == 303
    view = c.get("/api" + r.headers["location"]).json()
    assert view["bots"] == ["you", "my_lowest", "greedy", "my_lowest"]
    standard = load_deck(None, ruleset="fishing2")
    table = Table("fishing2", 4, 0, ["random"] * 4, 3)
    assert view["ocean_n"] == table_view(table)["ocean_n"] - 1  # one tier-4 card fewer
    assert len(offer.decks["short_ocean"]["fishing2"].names) == len(standard.names) - 1
    refused = [({"bot1": str(bot)}, f"seat 1: unknown bot {str(bot)!r}"),
               ({"bot1": "greedy", "deck": str(deck)}, f"unknown deck {str(deck)!r}"),
               ({"bot1": "greedy", "deck": "short_ocean", "ruleset": "fishing"},
                "the deck 'short_ocean' is a deck of fishing2, not of fishing")]
    for extra, words in refused:
        form = {"players": "3", "seat": "0", "seed": "1", "bot2": "greedy", **extra}
        r = c.post("/new", data=form)
        assert r.status_code == 400 and words in unescape(r.text), r.text[-300:]
    r = c.get("/replay?players=3&seed=1&bots=my_lowest&deck=short_ocean")
    assert r.status_code == 200 and "my_lowest" in r.text


def test_serve_refuses_a_bad_strategy_or_deck_file_in_one_line(tmp_path):
    typo = tmp_path / "typo.py"
    typo.write_text((Path(__file__).parents[1] / "strategies" / "greedy.py").read_text()
                    .replace('NAME = "greedy"', 'NAME = "typo"')
                    .replace("return cheapest_win_or_weakest(obs)",
                             "return cheapest_win_or_weakst(obs)"))
    line = typo.read_text().splitlines().index("    return cheapest_win_or_weakst(obs)") + 1
    taken = tmp_path / "greedy.py"
    taken.write_text((Path(__file__).parents[1] / "strategies" / "greedy.py").read_text())
    bad_deck = tmp_path / "bad.csv"
    bad_deck.write_text("id,name\n0,nothing\n")
    cases = [(["--strategy", str(tmp_path / "none.py")], "none.py: no such file"),
             (["--strategy", str(taken)], "its name 'greedy' is a shipped bot's name"),
             (["--strategy", str(typo)], "name 'cheapest_win_or_weakst' is not defined "
                                         f"(typo.py, line {line}, in play; did you mean"),
             (["--deck", str(bad_deck)], f"--deck {bad_deck}:"),
             (["--deck", str(tmp_path / "gone.csv")], "gone.csv: no such file")]
    for args, words in cases:
        p = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "serve", str(tmp_path),
                            "--port", "0", *args], capture_output=True, text=True, timeout=300)
        assert p.returncode == 2, (args, p.stderr)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], (args, p.stderr)
        assert "Traceback" not in p.stderr
