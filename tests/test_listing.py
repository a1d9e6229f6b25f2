"""`fishing2sim strategies` and `fishing2sim experiments`: what ships with the package, and
running a shipped experiment by name."""
import ast
from pathlib import Path

from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.experiment import load_experiment, shipped_experiment, shipped_experiments
from fishing2sim.strategies import STRATEGIES_DIR, known_strategies, load_strategy

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


def test_experiments_lists_the_shipped_files():
    res = CliRunner().invoke(main, ["experiments"])
    assert res.exit_code == 0, res.output
    heads = [ln for ln in res.output.splitlines() if not ln.startswith(" ")]
    assert [h.split()[0] for h in heads] == sorted(
        p.stem for p in (ROOT / "experiments").glob("*.yaml"))
    trump = next(h for h in heads if h.startswith("trump "))
    assert trump.split(None, 1)[1] == "What is the trump choice worth? At every trump choice " \
        "(rounds 2-8) the game is finished"
    paths = [Path(ln.strip()) for ln in res.output.splitlines() if ln.startswith(" ")]
    assert all(p.is_file() for p in paths)


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
