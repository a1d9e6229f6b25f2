"""`fishing2sim strategies` and `fishing2sim experiments`: what ships with the package, and
running a shipped experiment by name."""
import ast
from pathlib import Path

from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.config.experiment import load_experiment, shipped_experiment, shipped_experiments
from fishing2sim.strategy.files import STRATEGIES_DIR, known_strategies
from fishing2sim.strategy.loading import load_strategy

ROOT = Path(__file__).resolve().parent.parent


def test_strategies_lists_every_bot_with_its_doc_and_parameters():
    res = CliRunner().invoke(main, ["strategies"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    names = [ln.split()[0] for ln in lines if not ln.startswith(" ")]
    assert names == known_strategies() == sorted(p.stem for p in (ROOT / "strategies").glob("*.py")
                                                 if not p.stem.startswith("_"))
    by_name = {ln.split()[0]: ln for ln in lines if not ln.startswith(" ")}
    doc = ast.get_docstring(ast.parse((STRATEGIES_DIR / "greedy.py").read_text())).splitlines()[0]
    assert by_name["greedy"].split(None, 1)[1] == doc.split(":", 1)[1].strip()
    # parameters: the names and defaults of the loaded strategy, in order
    s = load_strategy("sandbagger")
    i = lines.index(by_name["sandbagger"])
    assert lines[i + 1].strip() == "params: " + ", ".join(
        f"{n}={v:g}" for n, v in zip(s.param_names, s.defaults))
    j = lines.index(by_name["greedy"])
    assert not lines[j + 1].startswith(" ")  # greedy has no parameters
    # one column for the docs, however long a name; an imported PARAM_NAMES is named too
    starts = {len(ln) - len(ln.split(None, 1)[1]) for ln in by_name.values()}
    assert len(starts) == 1, starts
    w = load_strategy("weights_tuned")
    k = lines.index(by_name["weights_tuned"])
    assert lines[k + 1].strip() == "params: " + ", ".join(
        f"{n}={v:g}" for n, v in zip(w.param_names, w.defaults))


def listed_experiments(output: str) -> dict:
    """name -> (its description, its path) from `fishing2sim experiments`."""
    out, name, text = {}, None, []
    for ln in output.splitlines():
        if not ln.startswith(" "):
            name, text = ln.split(None, 1)[0], [ln.split(None, 1)[1]]
        elif ln.strip().endswith(".yaml"):
            out[name] = (" ".join(text), Path(ln.strip()))
        else:
            text.append(ln.strip())
    return out


def test_experiments_lists_the_shipped_files():
    res = CliRunner().invoke(main, ["experiments"])
    assert res.exit_code == 0, res.output
    listed = listed_experiments(res.output)
    assert list(listed) == sorted(p.stem for p in (ROOT / "experiments").glob("*.yaml"))
    assert listed["trump"][0] == "How much is the trump choice worth? At every trump choice " \
        "(rounds 2-8) the game is finished twice with each shade, from copies of the state " \
        "(docs/rules.md E): what a perfect chooser would gain over a coin flip (a range: at " \
        "least, at most), what the seats' own choices gain, in points and in win chance, " \
        "beside a game's points."
    assert all(path.is_file() for _, path in listed.values())


def test_experiments_shows_whole_sentences_without_backticks():
    """Each description is the leading comment's first sentence (two when the first is a
    short question), whole, wrapped under its column: never cut mid-sentence."""
    res = CliRunner().invoke(main, ["experiments"])
    listed = listed_experiments(res.output)
    assert "`" not in res.output
    for name, (doc, path) in listed.items():
        comment = " ".join(" ".join(
            ln.lstrip("#").strip() for ln in path.read_text().split("\n\n")[0].splitlines()
            if ln.startswith("#")).replace("`", "").split())
        assert doc[-1] in ".?!", (name, doc)
        assert doc in comment, (name, doc)
    assert listed["card_counts"][0].endswith("overfishing, the ocean at the end, the round-1 "
                                             "leader's edge.")
    assert listed["overfishing"][0].startswith("How often does a game end by overfishing, by "
                                               "player count and size of the ocean's last "
                                               "tier? 3 player counts")
    assert listed["example"][0] == "every key of an experiment file, with its default and " \
        "meaning."
    width = max(len(ln) for ln in res.output.splitlines())
    assert width <= 120


def test_strategies_prints_no_markdown_backticks():
    res = CliRunner().invoke(main, ["strategies"])
    assert res.exit_code == 0 and "`" not in res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("weights_tuned "))
    assert line.split(None, 1)[1] == "the weights bot with a parameter vector tuned by " \
        "fishing2sim tune."


def test_a_shipped_experiment_runs_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert shipped_experiment("depletion") == str(ROOT / "experiments" / "depletion.yaml")
    assert shipped_experiment("depletion.yaml") == str(ROOT / "experiments" / "depletion.yaml")
    (tmp_path / "depletion.yaml").write_text("name: mine\n")  # a file of that name wins
    assert shipped_experiment("depletion.yaml") == "depletion.yaml"
    assert load_experiment(shipped_experiment("overfishing")).name == "overfishing"
    assert len(shipped_experiments()) == len(list((ROOT / "experiments").glob("*.yaml")))


def test_an_unknown_experiment_name_suggests_the_shipped_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["run", "trmp", "--no-progress"])
    assert res.exit_code == 2
    shipped = sorted(p.stem for p in (ROOT / "experiments").glob("*.yaml"))
    assert {"depletion", "overfishing", "trump"} <= set(shipped)
    assert res.output.strip().splitlines() == [
        "Error: trmp: file not found (did you mean 'trump'?); shipped experiments: "
        + ", ".join(shipped)]
