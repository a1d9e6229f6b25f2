"""The README and the pages of docs/ stay true: the strategy example runs, the files, links
and commands they name exist, the README holds what a new user needs."""
import re
from pathlib import Path

from click.testing import CliRunner

from fishing2sim.api import play_games
from fishing2sim.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
DOCS = {p.name: p.read_text() for p in sorted((ROOT / "docs").glob("*.md"))}
REFERENCE = DOCS["reference.md"]


def _first_python_block(text: str, start: str) -> str:
    return re.search(r"```python\n(.*?)```", text[text.index(start):], re.S).group(1)


def test_readme_strategy_example_runs_from_a_file_outside_the_repo(tmp_path):
    code = _first_python_block(README, "## Writing a strategy")
    # docs/strategies.md shows the same example
    assert _first_python_block(DOCS["strategies.md"], "## Writing a strategy") == code
    path = tmp_path / "cheap_readme_example.py"
    path.write_text(code)
    df = play_games(200, 4, seed=1, strategies=[str(path), "random", "random", "random"])
    assert set(df.end_reason) <= {"completed", "overfished"}
    assert not df.equals(play_games(200, 4, seed=1))  # its choices are played


def test_readme_names_only_files_that_exist():
    # (a path followed by ": " starts a quoted error message, such as experiments/t.yaml: ...)
    for text in (README, *DOCS.values()):
        for rel in set(re.findall(r"(experiments/\w+\.yaml|docs/[\w/-]+\.(?:md|csv)|(?:benchmarks|research)/(?:bots/)?\w+\.py|reports/README\.md)(?!: )", text)):
            assert (ROOT / rel).is_file(), rel


def _anchors(text: str) -> set[str]:
    """GitHub's ids of a page's headings: lower case, punctuation dropped, spaces to -."""
    out = set()
    for line in text.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_every_link_of_the_readme_and_the_docs_leads_somewhere():
    pages = {ROOT / "README.md": README, **{ROOT / "docs" / n: t for n, t in DOCS.items()}}
    for page, text in pages.items():
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://")):
                continue
            rel, _, anchor = target.partition("#")
            dest = (page.parent / rel).resolve() if rel else page
            assert dest.exists(), (page.name, target)
            if anchor and dest.suffix == ".md":
                assert anchor in _anchors(dest.read_text()), (page.name, target)


def test_the_readme_is_what_a_new_user_needs_and_links_every_page():
    lines = README.splitlines()
    assert len(lines) <= 320, len(lines)
    sections = [line for line in lines if line.startswith("## ")]
    for words in ("## Two commands", "## A short tour", "## Reports",
                  "## How strong are the bots?", "## Writing a strategy", "## Running on Dask",
                  "## Performance"):
        assert words in sections, words
    for name in DOCS:
        assert f"(docs/{name})" in README, name
    assert "(docs/ladder-report/summary.md)" in README


def test_readme_commands_exist():
    res = CliRunner().invoke(main, ["--help"])
    assert res.exit_code == 0
    used = set(re.findall(r"`?fishing2sim ([a-z]+)", README))
    assert {"run", "play"} <= used
    assert used <= set(main.commands), used - set(main.commands)
    assert "fishing2sim run experiments/trump.yaml" in README
    assert "pip install -e '.[test]' && python -m pytest -q" in README
    # .ci/run runs the same two commands, each on its own line (so that set -e sees a
    # failure of either), then the slow tests and the wheel install
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert "set -euo pipefail" in ci
    i = ci.index("python -m pip install -q -e '.[test]'")
    assert ci[i + 1] == "python -m pytest -q"
    assert "python -m pytest -q -m slow -n 0" in ci  # the slow tests one at a time


def test_the_main_job_leaves_the_repository_clean():
    # everything `fishing2sim run experiments/trump.yaml` writes under reports/ (the
    # report, its checkpoints, its lock, the report writer's temporary folders) is ignored
    import shutil
    import subprocess

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        import pytest

        pytest.skip("not a git checkout")
    written = ["reports/trump/summary.md", "reports/trump/config.yaml",
               "reports/trump/trump_value.png", "reports/.checkpoints/trump/c0000-k000000.npz",
               "reports/.checkpoints/trump/config_hash", "reports/.trump.lock",
               "reports/.trump.tmp-123/summary.md", "reports/.trump.old-123/summary.md"]
    res = subprocess.run(["git", "check-ignore", "--no-index", *written], cwd=ROOT,
                         capture_output=True, text=True)
    assert sorted(res.stdout.split()) == sorted(written)
    tracked = subprocess.run(["git", "ls-files", "reports"], cwd=ROOT, capture_output=True,
                             text=True).stdout.split()
    assert tracked == ["reports/README.md"]
    assert (ROOT / "docs" / "example-report" / "summary.md").is_file()
    assert "[docs/example-report/summary.md](docs/example-report/summary.md)" in README


def test_the_docs_document_stopping_and_the_limits():
    from fishing2sim.config.experiment import MAX_CONDITIONS, MAX_GAMES, MAX_YAML_DEPTH

    assert "interrupted; 37 of 100 chunks saved; --resume continues" in REFERENCE
    assert "exit code 130" in REFERENCE and "exit code 143" in REFERENCE
    assert f"| {MAX_CONDITIONS:,} |" in REFERENCE and "10^9" in REFERENCE and MAX_GAMES == 10**9
    assert f"{MAX_YAML_DEPTH} levels" in REFERENCE
    assert "--resume" in README
    assert "pip install ." in README and "pip install -e ." in README
    assert "fishing2sim strategies" in README and "fishing2sim experiments" in README


def test_the_rollout_example_runs():
    code = _first_python_block(REFERENCE, "Rollouts play a game forward")
    code = code.replace("rollout(s, 1000,", "rollout(s, 50,")  # a shorter run, same calls
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    s, r = scope["s"], scope["r"]
    assert s.round == 3 and not s.over and sum(s.points) > 0
    assert r["points"].shape == (50, 4) and (r["points"] >= s.points).all()
