"""The example games' viewer (docs/reference.md, "examples.json"): a game replayed into the
viewer's JSON is `fishing2sim play`'s game (its tricks and points), each decision carries
the deciding bot's reasons (skilled's scores, a search's values equal to a direct call of
the search, "no scores" otherwise), and report.html shows the games in a real Chromium:
every example link opens its game, whose tricks and final points are those of
`fishing2sim play --experiment FILE --condition N --game G --json`."""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from fishing2sim.api import play_game
from fishing2sim.cli import main
from fishing2sim.config.experiment import load_experiment
from fishing2sim.report.replay import build_examples, condition_args, hands_at, replay_game
from fishing2sim.report.viewer import EXAMPLES_FILE, groups, read_examples, write_examples

from test_html_report import ARGS, CHROMIUM, _browser_or_skip


def _plays_by_trick(events):
    tricks = []
    for e in events:
        if e["event"] == "trick_start":
            tricks.append([])
        elif e["event"] == "play":
            tricks[-1].append(f"seat {e['player']}: {e['card']}")
    return tricks


def _viewer_plays(r):
    lab = r["labels"]
    return [[f"seat {p}: {lab[c]}" for p, c in t["plays"]] for t in r["tricks"]]


def test_a_replay_is_plays_game_with_every_bots_reasons():
    bots = ["skilled", "greedy", "random", "weights"]
    r = replay_game("fishing2", 4, 7, bots, game=2)
    g = play_game(players=4, seed=7, strategies=bots, game=2)
    assert _viewer_plays(r) == _plays_by_trick(g.events)
    assert r["end"]["points"] == g.points and r["end"]["winners"] == g.winners
    assert r["rounds"][-1]["points"] == g.points
    lab = r["labels"]
    deals = [[e["card"] for e in g.events if e["event"] == "deal" and e["player"] == p]
             for p in range(4)]
    assert [sorted(lab[c] for c in h) for h in r["tricks"][0]["hands"]] == \
        [sorted(h) for h in deals]
    decisions = [d for t in r["tricks"] for d in t.get("decisions", [])]
    assert {d["seat"] for d in decisions} == {0}  # the seats with reasons pause only
    assert r["reasons"] == ["skilled's scores", "no scores", "no scores", "no scores"]
    skilled = [d for d in decisions if d["seat"] == 0]
    assert len(skilled) > 50 and all(d["by"] == "skilled's scores" for d in skilled)
    for d in skilled:  # skilled takes its best-scored option
        assert len(d["values"]) == len(d["options"])
        assert d["values"][d["choice"]] == max(d["values"])
    hands = hands_at(r)  # (a trick stores its hands where they are not derived)
    assert hands[0] == r["tricks"][0]["hands"] and sum("hands" in t for t in r["tricks"]) < 20
    for t, h in zip(r["tricks"], hands):
        for p, c in t["plays"]:  # each trick's plays come out of the hands before it
            assert c in h[p]
        for d in t.get("decisions", []):
            if d["kind"] == "play":  # a card play's choice is the card the seat played
                took = d["chosen"] if "chosen" in d else d["options"][d["choice"]]
                assert [d["seat"], took] in t["plays"]
    assert all(0 <= t["ocean"] and len(t["boats"]) == 4 for t in r["tricks"])


def test_a_search_seats_reasons_equal_a_direct_call_of_the_search():
    """The first searched decision of a game: its values are those of decide_once on the
    paused game with the game's own search seed (the streams play_batch_search seeds)."""
    from fishing2sim.api import resolve_deck
    from fishing2sim.engine import constants as K
    from fishing2sim.engine.rng import game_seed
    from fishing2sim.engine.state import new_state
    from fishing2sim.search.kernels import decide_once, play_to_pause
    from fishing2sim.strategy.lineup import build_lineup, observe_mask, search_args

    spec = ["greedy", "pimc", "greedy"]
    r = replay_game("fishing2", 3, 11, spec, game=1)
    g = play_game(players=3, seed=11, strategies=spec, game=1)
    assert _viewer_plays(r) == _plays_by_trick(g.events)
    assert r["end"]["points"] == g.points
    searched = [d for t in r["tricks"] for d in t.get("decisions", []) if d["seat"] == 1
                and d.get("by") == "pimc's search"]
    assert len(searched) > 20
    assert r["reasons"] == ["no scores", "pimc's search", "no scores"]
    first = searched[0]
    for d in searched:
        assert d["values"][d["choice"]] == max(d["values"])
        assert len(d["spread"]) == len(d["options"])
        assert all(lo <= hi for lo, hi in d["spread"])
    deck = resolve_deck("fishing2", None)
    funcs, ptable, strats = build_lineup(spec, 3)
    mask, sp, rf, rt, ro = search_args(strats, None, 3)
    st, rng = new_state()
    ev = np.zeros((16384, K.EV_FIELDS), np.int64)
    gs = game_seed(11, 1)
    arrays = np.ascontiguousarray(deck.arrays)
    assert play_to_pause(arrays, 3, K.RULESETS["fishing2"],
                         np.ascontiguousarray(deck.hand_sizes[3]), deck.n_rounds, -1, gs,
                         funcs, ptable, observe_mask(strats), mask, 0, st, rng, ev)
    values = np.zeros(K.MAX_HAND)
    decide_once(st, ev, arrays, sp, np.uint64(gs), rf, rt, ro, values)
    n = len(first["options"])
    assert first["values"] == [round(round(float(v), 3), 2) for v in values[:n]]
    values[:] = 0
    decide_once(st, ev, arrays, sp, np.uint64(gs + 1), rf, rt, ro, values)  # another seed
    assert first["values"] != [round(float(v), 2) for v in values[:n]]


# ---- the report's page ---------------------------------------------------------------

@pytest.fixture(scope="module")
def examples_report(tmp_path_factory):
    """A small real run with two conditions (a deck edit) and its example rows (among them
    the first overfished and completed games, and the deck contrast's paired deals),
    replayed into the folder's examples.json; then `fishing2sim report DIR` renders the
    page again from it."""
    root = tmp_path_factory.mktemp("viewer")
    path = root / "ex.yaml"
    path.write_text(f"""name: ex
output: {root / 'reports'}
players: 5
games: 30
chunk: 30
seed: 4
seats: [skilled, greedy, weights, random, greedy]
sweep:
  deck.remove:
    - {{value: [], label: standard deck, baseline: true}}
    - {{value: [blue 26, yellow 26], label: without two 26s}}
analyses: [overfishing]
""")
    res = CliRunner().invoke(main, ["run", str(path), "--workers", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    folder = root / "reports" / "ex"
    exp = load_experiment(path)
    ends = {}
    for c in (0, 1):
        a = condition_args(exp, c)
        a.pop("name")
        ends[c] = [play_game(players=a["players"], seed=a["seed"], ruleset=a["ruleset"],
                             strategies=a["bots"], params=a["params"], deck=a["deck"],
                             first_leader=a["first_leader"], game=g, log=False).end_reason
                   for g in range(12)]
    over = [g for g, e in enumerate(ends[0]) if e == "overfished"][:2]
    done = [g for g, e in enumerate(ends[0]) if e == "completed"][:1]
    assert over and done, ends
    # the run's own rows (run/examples.py), already replayed into the folder's examples.json
    # and linked from the page's sections: among them the deck contrast's paired deals
    # (the edited deck plays the standard deck's deals with the edit), shown side by side
    rows = read_examples(folder, warn=pytest.fail)["rows"]
    assert {(r["condition"], r["figure"]) for r in rows} >= {
        (0, "overfishing"), (0, "completed"), (1, "deck_pair")}
    assert all(r["partner_condition"] == 0 for r in rows if r["figure"] == "deck_pair")
    data = build_examples(exp, rows, experiment=str(path))
    write_examples(folder, data)
    (folder / "report.html").unlink()
    res = CliRunner().invoke(main, ["report", str(folder)])
    assert res.exit_code == 0, res.output
    return path, folder, data


def _play_json(path, c, g):
    res = CliRunner().invoke(main, ["play", "--experiment", str(path), "--condition", str(c),
                                    "--game", str(g), "--json"])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]


def test_examples_json_is_stored_and_read_back(examples_report, tmp_path):
    path, folder, data = examples_report
    back = read_examples(folder, warn=pytest.fail)
    assert back["games"] == json.loads(json.dumps(data["games"]))
    ids = {g["id"] for g in groups(back)}
    assert {"examples-c0-overfishing", "examples-c0-completed", "examples-c1-deck_pair",
            "examples-c1-overfishing"} <= ids
    assert ids == {f"examples-c{r['condition']}-{r['figure']}" for r in data["rows"]}
    pairs = [r["game"] for r in back["rows"] if r["figure"] == "deck_pair"]
    assert pairs and all({f"c1-g{g}", f"c0-g{g}"} <= set(back["games"])  # both sides
                         for g in pairs)
    assert all(r["command"].startswith(f"fishing2sim play --experiment {path} --condition ")
               for r in back["rows"])
    # a broken file is left out with one warning, and the page is made without it
    bad = tmp_path / "bad"
    shutil.copytree(folder, bad)
    (bad / EXAMPLES_FILE).write_text("{not json")
    warned = []
    assert read_examples(bad, warned.append) is None and len(warned) == 1
    assert "examples.json: not a report's example games" in warned[0]


def test_every_example_link_opens_a_game_equal_to_play(examples_report):
    sync_playwright = _browser_or_skip()
    path, folder, data = examples_report
    html = (folder / "report.html").read_text()
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html
    # every viewer shows its stored game; the stored game is play's for each figure's first
    # game and its deck pair (each `play` starts a process: ~1.5 s in a suite's worker)
    want = {key: (_viewer_plays(r), r["end"]["points"]) for key, r in data["games"].items()}
    first = {}
    for r in sorted(data["rows"], key=lambda r: (r["rank"] is None, r["rank"] or 0)):
        first.setdefault((r["condition"], r["figure"]), r)
    played = {(c, r["game"]) for r in first.values()
              for c in (r["condition"], r["partner_condition"]) if c is not None}
    assert len(played) >= 4 and {f"c{c}-g{g}" for c, g in played} <= set(want)
    for c, g in sorted(played):
        ev = _play_json(path, c, g)
        assert want[f"c{c}-g{g}"] == (
            _plays_by_trick(ev), next(e for e in ev if e["event"] == "game_end")["points"])
    errors = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 800, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(folder.joinpath("report.html").resolve().as_uri(), wait_until="load")
            seen = set()
            for gid in page.eval_on_selector_all(".ex-group", "els => els.map(e => e.id)"):
                page.evaluate(f"location.hash = '#{gid}'")  # a figure's link: its first game
                first = page.get_attribute(f"#{gid} a[href^='#game-']", "href")[1:]
                page.wait_for_selector(f"#{first} .f2-viewer", state="visible")
                for link in page.eval_on_selector_all(
                        f"#{gid} a[href^='#game-']", "els => els.map(e => e.getAttribute('href'))"):
                    page.click(f"#{gid} a[href='{link}']")
                    box = page.locator(link)
                    box.locator(".f2-viewer").first.wait_for(state="visible")
                    assert page.locator(".f2-game:visible").count() == 1
                    if gid.endswith("-deck_pair"):  # the deal with and without the edit
                        assert box.locator(".f2-pair .f2-viewer").count() == 2
                    for v in range(box.locator(".f2-viewer").count()):
                        key = [link[6:], box.get_attribute("data-pair")][v]
                        seen.add(key)
                        assert _read_viewer(page, box.locator(".f2-viewer").nth(v)) == want[key]
                    # the viewer fits an 800 px window: nothing of it out of sight
                    right, scroll, client = box.evaluate(
                        "e => [e.getBoundingClientRect().right, e.scrollWidth, e.clientWidth]")
                    assert right <= 800 and scroll <= client
            assert seen == set(data["games"])
            page.locator(".f2-game:not([hidden]) .f2-viewer").first.screenshot(path=str(SHOT))
        finally:
            browser.close()
    assert errors == []


SHOT = __import__("pathlib").Path(os.environ.get("TMPDIR", "/tmp")) / "f2-viewer.png"


# every trick's plays, stepped through by the viewer's own key handler in the page (one
# round trip a viewer, not three a trick)
_STEP_ALL = """v => {
  const key = k => v.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
  key('Home');
  const tricks = [];
  for (;;) {
    tricks.push([...v.querySelectorAll('.f2-plays li')].map(li => li.innerText));
    const at = v.getAttribute('data-trick');
    key('ArrowRight');
    if (v.getAttribute('data-trick') === at) { return tricks; }
  }
}"""


def _read_viewer(page, viewer):
    """Every trick's plays and the final points; the real keyboard moves the viewer (End,
    Home, ArrowRight) before the page steps through the tricks."""
    viewer.focus()
    viewer.press("End")
    last = viewer.get_attribute("data-trick")
    viewer.press("Home")
    first = viewer.get_attribute("data-trick")
    viewer.press("ArrowRight")
    assert (viewer.get_attribute("data-trick") != first) == (last != first)
    tricks = viewer.evaluate(_STEP_ALL)
    assert len(tricks) == 1 + int(last) - int(first)
    points = json.loads(viewer.locator(".f2-final").get_attribute("data-points"))
    return tricks, points


def test_the_page_shows_no_viewer_without_examples(examples_report, tmp_path):
    _, folder, _ = examples_report
    bare = tmp_path / "bare"
    shutil.copytree(folder, bare)
    os.unlink(bare / EXAMPLES_FILE)
    (bare / "report.html").unlink()
    res = CliRunner().invoke(main, ["report", str(bare)])
    assert res.exit_code == 0, res.output
    html = (bare / "report.html").read_text()
    assert "f2-games" not in html and "example-games" not in html
    assert 'id="example-games"' in (folder / "report.html").read_text()
