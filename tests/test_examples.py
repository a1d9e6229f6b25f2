"""Example games (run/examples.py): the same rows for 1 and 2 workers and after --resume;
each row's command replays a game with the row's outcome; examples: 0 keeps none; a
condition or game index out of range is one line and exit 2."""
import json
import shlex
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.config.experiment import load_experiment
from fishing2sim.run.checkpoints import checkpoint_dir
from fishing2sim.study import run

BODY = ("players: 4\ngames: 480\nchunk: 120\nseed: 5\n"
        "analyses: [depletion, overfishing, strategies, trump_value]\n"
        "conditions:\n"
        "  - {label: random}\n"
        "  - {label: mixed rotated, seats: [greedy, random, greedy, random], rotate: true}\n")


def write_yaml(folder: Path, name: str, body: str = BODY) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\noutput: {folder / 'reports'}\n" + body)
    return path


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    """One file, its report with 1 worker (and the rows in memory)."""
    root = tmp_path_factory.mktemp("examples")
    path = write_yaml(root, "ex")
    res = run(path, workers=1, progress=False, overrides={"output": str(root / "w1")})
    return {"root": root, "path": path, "results": res,
            "csv": (root / "w1" / "ex" / "examples.csv").read_bytes()}


def test_the_rows_cover_every_figure_and_condition(ref):
    df = pd.read_csv(ref["path"].parent / "w1" / "ex" / "examples.csv")
    assert list(df.columns) == ["condition", "figure", "outcome", "rank", "game",
                                "partner_condition", "value", "command"]
    for c in (0, 1):
        figs = set(df[df.condition == c].figure)
        assert {"overfishing", "completed", "comeback", "trump_stakes"} <= figs
        for fig, g in df[df.condition == c].groupby("figure"):
            assert list(g["rank"]) == list(range(1, len(g) + 1)) and len(g) <= 3
            if fig in ("comeback", "trump_stakes"):  # the largest first, all > 0
                assert list(g.value) == sorted(g.value, reverse=True) and (g.value > 0).all()
            else:  # the first games with the outcome, in game order
                assert list(g.game) == sorted(g.game) and g.value.isna().all()
    # rotated: a game index runs over deal * 4 + rotation (480 games: 120 deals)
    assert df[df.condition == 1].game.max() < 480
    assert len(ref["results"].examples) == len(df)
    # `fishing2sim report DIR` renders the page again from the folder, examples.csv in it
    folder = ref["path"].parent / "w1" / "ex"
    (folder / "report.html").unlink()
    assert CliRunner().invoke(main, ["report", str(folder)]).exit_code == 0
    assert 'data-table="examples"' in (folder / "report.html").read_text()


def test_two_workers_and_a_resume_keep_the_same_examples(ref):
    root, path = ref["root"], ref["path"]
    run(path, workers=2, progress=False, overrides={"output": str(root / "w2")})
    assert (root / "w2" / "ex" / "examples.csv").read_bytes() == ref["csv"]
    # a run stopped after some chunks: its checkpoints hold their examples
    over = {"output": str(root / "res")}
    run(path, workers=1, progress=False, write=False, overrides=over)
    ckpt = checkpoint_dir(load_experiment(path, over))
    for name in ("c0000-k000001.npz", "c0000-k000003.npz", "c0001-k000000.npz"):
        (ckpt / name).unlink()
    run(path, workers=2, progress=False, resume=True, overrides=over)
    assert (root / "res" / "ex" / "examples.csv").read_bytes() == ref["csv"]


def _replay(command: str) -> list[dict]:
    args = shlex.split(command)[1:]
    res = CliRunner().invoke(main, args + ["--json"])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]


def _outcome(events) -> dict:
    end = events[-1]
    assert end["event"] == "game_end"
    ocean = sum(e["event"] == "ocean" for e in events)
    drawn = sum(e["event"] == "draw" and e["source"] == "ocean" for e in events)
    points, worst, scoring = {}, 0, False
    for e in events:  # the standing after each scored round (its round_score events)
        if e["event"] == "round_score":
            points[e["player"]] = e["points"]
            scoring = True
        elif scoring and e["event"] in ("round_start", "overfished", "game_end"):
            top = max(points.values())
            worst = max([worst] + [top - points[w] for w in end["winners"]])
            scoring = False
    return {"overfished": end["reason"] == "overfished",
            "completed": end["reason"] == "completed", "empty": ocean == drawn,
            "comeback": worst}


def test_each_command_replays_a_game_with_the_rows_outcome(ref):
    df = pd.read_csv(ref["path"].parent / "w1" / "ex" / "examples.csv")
    for c in (0, 1):
        rows = df[(df.condition == c) & (df["rank"] == 1)]
        for _, row in rows.iterrows():
            if row.figure == "trump_stakes":
                continue  # its value is the replays', not the game's
            got = _outcome(_replay(row.command))
            if row.figure == "overfishing":
                assert got["overfished"], row.command
            elif row.figure == "depletion":
                assert got["empty"] and not got["overfished"], row.command
            elif row.figure == "completed":
                assert got["completed"], row.command
            elif row.figure == "comeback":
                assert got["comeback"] == row.value, row.command


def test_examples_0_writes_none(tmp_path):
    path = write_yaml(tmp_path, "none", "players: 4\ngames: 200\nchunk: 100\nexamples: 0\n")
    res = run(path, workers=1, progress=False)
    assert res.examples == []
    assert not (tmp_path / "reports" / "none" / "examples.csv").exists()
    assert (tmp_path / "reports" / "none" / "overfishing.csv").exists()


@pytest.mark.parametrize("args,words", [
    (["--condition", "2", "--game", "0"], "--condition 2: the experiment has 2 conditions"),
    (["--condition", "0", "--game", "480"], "--game 480: condition 0 plays games 0..479"),
    (["--condition", "1", "--game", "999"], "--game 999: condition 1 plays games 0..479"),
])
def test_a_condition_or_game_out_of_range_is_one_line_and_exit_2(ref, args, words):
    res = CliRunner().invoke(main, ["play", "--experiment", str(ref["path"]), *args])
    assert res.exit_code == 2, res.output
    assert words in res.output
    assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output


def test_a_paired_contrast_names_deals_where_the_change_changed_the_outcome(tmp_path):
    """deck_pair: a contrast whose conditions play the same deals (paired: true; a deck
    edit changes the deals, so the conditions that share them differ in their seats)."""
    path = write_yaml(tmp_path, "pair", (
        "players: 4\ngames: 400\nchunk: 100\nseed: 3\npaired: true\n"
        "analyses: [overfishing, strategies, trump_value]\n"
        "conditions:\n  - {label: random, baseline: true}\n"
        "  - {label: mixed, seats: [greedy, random, greedy, random]}\n"))
    res = run(path, workers=2, progress=False)
    pairs = [r for r in res.examples if r["figure"] == "deck_pair"]
    assert [r["rank"] for r in pairs] == [1, 2, 3]
    assert {(r["condition"], r["partner_condition"]) for r in pairs} == {(1, 0)}
    assert [r["game"] for r in pairs] == sorted(r["game"] for r in pairs)
    for r in pairs:  # the same deal in both conditions, a different outcome
        changed = _replay(r["command"])[-1]
        base = _replay(r["command"].replace("--condition 1", "--condition 0"))[-1]
        assert (changed["reason"], changed["winners"]) != (base["reason"], base["winners"])
    df = pd.read_csv(tmp_path / "reports" / "pair" / "examples.csv")
    assert df[df.figure == "deck_pair"].partner_condition.tolist() == [0, 0, 0]


def test_the_report_links_each_headline_section_to_its_games(ref):
    """The run's rows are replayed into examples.json (every row's game) and the page links the overfishing, depletion and trump
    sections and "In short" to each condition's groups; each link names a group the page
    has, and each group's games are in the page."""
    import re

    from fishing2sim.report.viewer import groups, read_examples

    folder = ref["path"].parent / "w1" / "ex"
    data = read_examples(folder, warn=pytest.fail)
    df = pd.read_csv(folder / "examples.csv")
    assert {f"c{r.condition}-g{r.game}" for r in df.itertuples()} <= set(data["games"])
    page = (folder / "report.html").read_text()
    ids = {g["id"] for g in groups(data)}
    lines = re.findall(r"<p class=\"ex-links\">(.*?)</p>", page)
    assert len(lines) >= 4  # In short, Overfishing, Ocean depletion, Trump-choice value
    linked = set(re.findall(r'href="#(examples-c\d+-\w+)"', " ".join(lines)))
    assert linked == ids
    for c in (0, 1):
        assert f'href="#examples-c{c}-overfishing">condition {c}: see ' in page
        assert f'href="#examples-c{c}-trump_stakes">condition {c}: see ' in page
    for gid in ids:
        assert f'id="{gid}"' in page


def test_a_deck_contrast_names_deals_where_the_edit_changed_the_outcome(tmp_path):
    """deck_pair of a deck sweep: the edited deck plays the standard deck's deals with the
    edit (the coupled deal), so each row's command and its partner's replay the same deal
    (the same starting hands and round-1 leader, the ocean with the edit) with another
    outcome."""
    path = write_yaml(tmp_path, "deck", (
        "players: 4\ngames: 300\nchunk: 100\nseed: 3\nanalyses: [overfishing]\n"
        "sweep:\n  deck.remove:\n"
        "    - {value: [], label: standard deck, baseline: true}\n"
        "    - {value: [blue 26, yellow 26], label: without two 26s}\n"))
    res = run(path, workers=1, progress=False)
    pairs = [r for r in res.examples if r["figure"] == "deck_pair"]
    assert [r["rank"] for r in pairs] == [1, 2, 3]
    assert {(r["condition"], r["partner_condition"]) for r in pairs} == {(1, 0)}
    for r in pairs:
        edited = _replay(r["command"])
        base = _replay(r["command"].replace("--condition 1", "--condition 0"))
        deal = [[e for e in ev if e["event"] == "deal"] for ev in (edited, base)]
        lead = [next(e for e in ev if e["event"] == "leader") for ev in (edited, base)]
        assert deal[0] == deal[1] and len(deal[0]) == 36 and lead[0] == lead[1]
        ocean = [[e["card"] for e in ev if e["event"] == "ocean"] for ev in (edited, base)]
        assert ocean[0] == [c for c in ocean[1] if c not in ("blue 26", "yellow 26")]
        assert (edited[-1]["reason"], edited[-1]["winners"]) != \
            (base[-1]["reason"], base[-1]["winners"])
    df = pd.read_csv(tmp_path / "reports" / "deck" / "examples.csv")
    assert df[df.figure == "deck_pair"].partner_condition.tolist() == [0, 0, 0]
