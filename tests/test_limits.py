"""The size of a run is checked before anything is expanded or played, and every user
mistake is one line naming the file / key / row, exit code 2, no traceback."""
import resource
from pathlib import Path

import pytest
from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.config.experiment import (MAX_CONDITIONS, MAX_GAMES, MAX_GAMES_HARD,
                                    MAX_YAML_DEPTH, ExperimentError, load_experiment)
from fishing2sim.run.chunks import iter_plan, n_chunks

ROOT = Path(__file__).resolve().parent.parent


def one_line_error(args) -> str:
    res = CliRunner().invoke(main, args, prog_name="fishing2sim")
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    assert "Traceback" not in res.output
    return lines[0]


def write(tmp_path: Path, text: str, name="x.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_games_beyond_the_hard_limit_on_the_command_line(tmp_path):
    p = write(tmp_path, f"name: g\noutput: {tmp_path / 'r'}\n")
    msg = one_line_error(["run", str(p), "--games", str(10**30), "--no-progress"])
    assert msg == (f"Error: {p}: games (from the command line): "
                   f"{10**30:,} games is above the limit of {MAX_GAMES_HARD:,} games per run")
    assert not (tmp_path / "r").exists()


def test_a_big_run_needs_yes_and_then_plans_lazily(tmp_path):
    p = write(tmp_path, f"name: g\ngames: {10**12}\noutput: {tmp_path / 'r'}\n")
    msg = one_line_error(["run", str(p), "--no-progress"])
    assert msg == (f"Error: {p}: games: {10**12:,} games in all (1 condition) is above "
                   f"{MAX_GAMES:,}; give --yes to run it anyway")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    exp = load_experiment(p, yes=True)
    assert n_chunks(exp) == 10**12 // 10_000
    first = next(iter_plan(exp))
    assert (first.start, first.count) == (0, 10_000)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 50


def test_games_times_conditions_counts(tmp_path):
    p = write(tmp_path, f"name: g\ngames: {MAX_GAMES // 2}\nplayers: [3, 4, 5]\n"
              f"output: {tmp_path / 'r'}\n")
    with pytest.raises(ExperimentError, match=r"games in all \(3 conditions\) is above"):
        load_experiment(p)
    assert len(load_experiment(p, yes=True).conditions) == 3


def test_a_large_sweep_needs_yes_and_shows_progress_while_it_loads(tmp_path, capsys):
    values = ", ".join(str(10 + i) for i in range(1200))
    p = write(tmp_path, f"name: s\ngames: 10\noutput: {tmp_path / 'r'}\n"
              f"sweep:\n  first_leader: [0, 1, 2]\n  games: [{values}]\n")
    msg = one_line_error(["run", str(p), "--no-progress"])
    assert msg == (f"Error: {p}: sweep: 3,600 conditions is above {MAX_CONDITIONS:,}; give "
                   "--yes to run it anyway")
    capsys.readouterr()
    exp = load_experiment(p, yes=True, progress=True)
    assert len(exp.conditions) == 3600
    assert "loading x.yaml" in capsys.readouterr().err


def test_progress_names_the_file(tmp_path, capsys):
    values = ", ".join(str(10 + i) for i in range(300))
    p = write(tmp_path, f"name: s\ngames: 10\noutput: {tmp_path / 'r'}\n"
              f"sweep:\n  games: [{values}]\n", name="wide.yaml")
    load_experiment(p, progress=True)
    assert "loading wide.yaml" in capsys.readouterr().err
    load_experiment(p, progress=False)
    assert capsys.readouterr().err == ""


def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path):
    lines = ["name: bomb", "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    p = write(tmp_path, "\n".join(lines) + "\nseats: *a8\n")
    msg = one_line_error(["run", str(p), "--no-progress"])
    assert msg == (f"Error: {p}: the file expands to more than 1,000,000 values through its "
                   "aliases (*name)")


def test_a_few_aliases_are_fine(tmp_path):
    p = write(tmp_path, f"name: a\noutput: {tmp_path / 'r'}\ngames: 10\n"
              "seats: &s [random, greedy, random, greedy]\nsweep:\n  seats: [*s, *s]\n")
    with pytest.raises(ExperimentError, match=r"sweep.seats\[1\]: value .* given twice"):
        load_experiment(p)


def test_deep_nesting_is_one_line(tmp_path):
    p = write(tmp_path, "name: deep\nseats: " + "[" * 5000 + "]" * 5000 + "\n")
    msg = one_line_error(["run", str(p), "--no-progress"])
    assert msg == (f"Error: {p}: line 2, column {8 + MAX_YAML_DEPTH - 1}: nested deeper than "
                   f"{MAX_YAML_DEPTH} levels")


def test_a_card_value_above_the_limit_in_an_added_card(tmp_path):
    p = write(tmp_path, f"name: v\noutput: {tmp_path / 'r'}\ndeck:\n  add:\n"
              "    - {name: blue 99, kind: colour, colour: blue, value: 99999999999999999999, "
              "tier: 2}\n")
    msg = one_line_error(["run", str(p), "--no-progress"])
    assert msg == (f"Error: {p}: deck.add[0].value: value must be 0..1,000,000, found "
                   "99999999999999999999")


def test_a_card_value_above_the_limit_in_a_deck_file(tmp_path):
    rows = (ROOT / "fishing2sim" / "data" / "decks" / "fishing2.csv").read_text().splitlines()
    cells = rows[3].split(",")
    cells[4] = str(2**64)
    rows[3] = ",".join(cells)
    deck = write(tmp_path, "\n".join(rows) + "\n", name="deck.csv")
    msg = one_line_error(["play", "--deck", str(deck)])
    assert msg == (f"Error: {deck}: row 3 (id 2), column 'value': value must be 0..1,000,000, "
                   f"found {2**64}")


@pytest.mark.parametrize("game", [2**63, 10**30])
def test_play_game_beyond_int64(game):
    msg = one_line_error(["play", "--game", str(game)])
    assert msg == f"Error: --game must be from 0 to 2**63-1, got {game}"


def test_dask_local_zero_is_refused(tmp_path):
    p = write(tmp_path, f"name: d\ngames: 10\noutput: {tmp_path / 'r'}\n")
    msg = one_line_error(["run", str(p), "--dask-local", "0", "--no-progress"])
    assert msg == "Error: --dask-local must be a number of workers >= 1, got 0"
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("args, words, command", [
    (["run"], ["Missing argument", "EXPERIMENT"], "fishing2sim run"),
    (["play", "--players", "four"], ["--players", "'four' is not a valid integer"],
     "fishing2sim play"),
    (["play", "--bogus"], ["No such option", "--bogus"], "fishing2sim play"),
    (["plya"], ["No such command", "plya"], "fishing2sim"),
])
def test_usage_errors_are_one_line(args, words, command):
    # click's wording varies between versions; the problem and the hint stay on one line
    msg = one_line_error(args)
    assert all(w in msg for w in words), msg
    assert msg.endswith(f" (try '{command} --help')"), msg


def test_help_and_version_still_exit_0():
    assert CliRunner().invoke(main, ["--help"]).exit_code == 0
    res = CliRunner().invoke(main, ["--version"])
    assert res.exit_code == 0 and "fishing2sim" in res.output
