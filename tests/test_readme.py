"""The README stays true: its strategy example runs, its files and commands exist."""
import re
from pathlib import Path

from click.testing import CliRunner

from fishing2sim.api import play_games
from fishing2sim.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_strategy_example_runs_from_a_file_outside_the_repo(tmp_path):
    section = README[README.index("## Writing a strategy"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    path = tmp_path / "cheap_readme_example.py"
    path.write_text(code)
    df = play_games(200, 4, seed=1, strategies=[str(path), "random", "random", "random"])
    assert set(df.end_reason) <= {"completed", "overfished"}
    assert not df.equals(play_games(200, 4, seed=1))  # its choices are played


def test_readme_names_only_files_that_exist():
    for rel in set(re.findall(r"(experiments/\w+\.yaml|docs/\w+\.md|benchmarks/\w+\.py)", README)):
        assert (ROOT / rel).is_file(), rel


def test_readme_commands_exist():
    res = CliRunner().invoke(main, ["--help"])
    assert res.exit_code == 0
    used = set(re.findall(r"`?fishing2sim ([a-z]+)", README))
    assert {"run", "play"} <= used
    assert used <= set(main.commands), used - set(main.commands)
    assert "fishing2sim run experiments/trump.yaml" in README
    assert "pip install -e '.[test]' && python -m pytest -q" in README
    assert (ROOT / ".ci" / "run").read_text().strip().endswith("python -m pytest -q")
