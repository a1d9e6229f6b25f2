"""The files a user gives to read (experiment, tune and deck files) are read only if they
end at a regular file of at most 8 MiB (fishing2sim/safe_files.py, read_input): a device
(/dev/zero would be read until the memory is full), a FIFO (it would hang the command) or
an oversized file is one line naming the file, exit 2. A link the user made to a regular
file is followed. A report folder's name that could not name a folder on one line (a
control character, more than 120 bytes) is refused, and a path the file system cannot hold
is one line wherever it is first met."""
import os
import re
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from fishing2sim.cli import main
from fishing2sim.config.deck import DeckError, load_deck
from fishing2sim.config.experiment import load_experiment
from fishing2sim.config.messages import ExperimentError
from fishing2sim.config.yamlfile import read_mapping
from fishing2sim.safe_files import MAX_INPUT, NotAFile, read_input

DEVICE = "/dev/null"  # a device that ends at once: were it read, the test would still end


def one_error(res) -> str:
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    return lines[0]


@pytest.mark.skipif(not os.path.exists(DEVICE), reason="no /dev/null")
def test_a_device_is_refused_as_experiment_and_as_deck():
    line = one_error(CliRunner().invoke(main, ["run", DEVICE, "--no-progress"]))
    assert line == f"Error: {DEVICE}: cannot read the file: it is a device, not a regular file"
    line = one_error(CliRunner().invoke(main, ["play", "--deck", DEVICE]))
    assert line == (f"Error: {DEVICE}: cannot read deck file: it is a device, not a regular "
                    "file")


def test_an_oversized_file_is_refused_without_reading_it_all(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"# " + b"a" * MAX_INPUT + b"\ngames: 10\n")
    line = one_error(CliRunner().invoke(main, ["run", str(big), "--no-progress"]))
    assert line == (f"Error: {big}: cannot read the file: it has more than the "
                    f"{MAX_INPUT:,} bytes read at most")
    deck = tmp_path / "big.csv"
    deck.write_bytes(b"a" * (MAX_INPUT + 1))
    with pytest.raises(DeckError, match=r"big\.csv: cannot read deck file: it has more than"):
        load_deck(deck)


def _returns_within(fn, seconds=10.0):
    """fn's exception (or None), raised within ``seconds``; a read that blocks fails."""
    out = []

    def call():
        try:
            fn()
            out.append(None)
        except Exception as exc:
            out.append(exc)

    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(seconds)
    assert out, "the read blocked"
    return out[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    exc = _returns_within(lambda: read_input(fifo))
    assert isinstance(exc, NotAFile) and str(exc) == "it is a FIFO, not a regular file"
    exc = _returns_within(lambda: read_mapping(fifo, "pipe.yaml"))
    assert isinstance(exc, ExperimentError)
    assert str(exc) == "pipe.yaml: cannot read the file: it is a FIFO, not a regular file"
    exc = _returns_within(lambda: load_deck(fifo))
    assert isinstance(exc, DeckError) and "cannot read deck file: it is a FIFO" in str(exc)


def test_a_link_to_a_regular_file_is_followed_and_a_folder_named_as_before(tmp_path):
    real = tmp_path / "real.yaml"
    real.write_text("name: linked\ngames: 10\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    assert load_experiment(link).name == "linked"
    with pytest.raises(IsADirectoryError):
        read_input(tmp_path)
    line = one_error(CliRunner().invoke(main, ["run", str(tmp_path), "--no-progress"]))
    assert "a folder, not an experiment file" in line
    assert read_input(real) == Path(real).read_bytes()


# ---- names and paths the file system cannot hold ------------------------------------------

@pytest.mark.parametrize("name, words", [
    ("x\ny", r"name: the name holds '\n': a report folder's name is printed on one line"),
    ("a" * 121, "name: the name has 121 bytes (UTF-8), more than the 120 a report folder's"),
    ("é" * 61, "name: the name has 122 bytes"),
])
def test_an_experiment_name_that_cannot_name_a_folder_on_one_line_is_refused(tmp_path, name,
                                                                             words):
    import yaml

    f = tmp_path / "n.yaml"
    f.write_text(yaml.safe_dump({"name": name, "games": 10, "output": str(tmp_path / "out")}))
    line = one_error(CliRunner().invoke(main, ["run", str(f), "--no-progress"]))
    assert line.startswith("Error: ") and words in line
    assert not (tmp_path / "out").exists()
    assert load_experiment(_named(tmp_path, "a" * 120)).name == "a" * 120  # the limit itself


def _named(folder: Path, name: str) -> Path:
    f = folder / "ok.yaml"
    f.write_text(f"name: {name}\ngames: 10\n")
    return f


def test_a_training_name_is_checked_the_same_way(tmp_path):
    from fishing2sim.train.config import TrainError, read_config
    from test_skilled import TINY

    for name, words in (('"x\\ty"', "holds '\\t'"), ("b" * 121, "has 121 bytes")):
        text = "\n".join(ln for ln in TINY.splitlines() if not ln.startswith("name:"))
        f = tmp_path / "t.yaml"
        f.write_text(f"{text}\nname: {name}\n")
        with pytest.raises(TrainError, match=re.escape(words)):
            read_config(f)


def test_a_path_too_long_for_the_file_system_is_one_line(tmp_path):
    """Wherever it is first used (the output folder, a deck file, a strategy file named in
    an experiment), a name longer than the file system holds is one line and exit 2."""
    long = "b" * 300
    ok = _named(tmp_path, "ok")
    for args in (["run", str(ok), "--no-progress", "--output", str(tmp_path / long)],
                 ["play", "--deck", str(tmp_path / f"{long}.csv")],
                 ["play", "--strategy", str(tmp_path / f"{long}.py")]):
        line = one_error(CliRunner().invoke(main, args))
        assert long in line, args
        assert line.endswith("the file system cannot hold this name (File name too long: "
                             "255 bytes a name at most)"), line
    assert not any(p.name == "ok" for p in tmp_path.rglob("*") if p.is_dir())
