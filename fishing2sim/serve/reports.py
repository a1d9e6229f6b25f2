"""The report folders under the served folder (docs/serve.md): listed by name and read
only through the names listed, so no request reaches a file outside them (no ``..``, no
link, no absolute path: a name is one path part of a folder found by listing)."""
from __future__ import annotations

import os
from pathlib import Path

from fishing2sim.errors import InputError
from fishing2sim.report.replay import condition_args
from fishing2sim.safe_files import MARKER, is_ours
from fishing2sim.config.experiment import load_experiment_data
from fishing2sim.safe_files import read_regular

MEDIA = {".html": "text/html; charset=utf-8", ".csv": "text/csv; charset=utf-8",
         ".md": "text/markdown; charset=utf-8", ".png": "image/png"}


def report_folders(folder: Path) -> list[str]:
    """The names of the report folders directly in ``folder`` (real folders this program
    made, holding a report.html; links are left out), sorted."""
    folder = Path(folder)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(e.name for e in entries
                  if not e.is_symlink() and e.is_dir(follow_symlinks=False)
                  and is_ours(folder / e.name)
                  and _regular(folder / e.name / "report.html"))


def _regular(path: Path) -> bool:
    return not path.is_symlink() and path.is_file()


def report_file(folder: Path, name: str, file: str) -> tuple[Path, str]:
    """The path and media type of ``file`` in the report folder ``name`` under ``folder``;
    anything but a listed report's plain file is a LookupError naming it."""
    if name not in report_folders(folder):
        raise LookupError(f"no report folder named {name!r} under the served folder")
    media = MEDIA.get(Path(file).suffix.lower())
    if media is None or "/" in file or "\\" in file or file.startswith(".") \
            or file == MARKER:
        raise LookupError(f"{name}/{file}: not a file of a report this server shows")
    path = Path(folder) / name / file
    if not _regular(path):
        raise LookupError(f"{name}/{file}: no such file in the report")
    return path, media


EXTRA_KEYS = ("package_version", "config_hash", "conditions", "run_conditions", "version")


def report_game(folder: Path, name: str, condition: int, game: int) -> dict:
    """The arguments of game ``game`` of condition ``condition`` of the report ``name``
    (its config.yaml rebuilt into the experiment's conditions, as `fishing2sim play
    --experiment FILE --condition N --game G` plays it): players, ruleset, seed, bots,
    params, first_leader, deck, game. A condition or game out of range, or a configuration
    that no longer rebuilds the conditions the report lists, is an InputError."""
    import yaml

    if name not in report_folders(folder):
        raise LookupError(f"no report folder named {name!r} under the served folder")
    path = Path(folder) / name / "config.yaml"
    if not _regular(path):
        raise InputError(f"{name}: the report has no config.yaml to replay its games from")
    try:
        cfg = yaml.safe_load(read_regular(path, 16 * 1024 * 1024, within=path.parent))
    except yaml.YAMLError as exc:
        raise InputError(f"{name}/config.yaml: not readable YAML ({exc})") from None
    if not isinstance(cfg, dict):
        raise InputError(f"{name}/config.yaml: not a report's configuration")
    listed = cfg.get("run_conditions", cfg.get("conditions"))
    if not isinstance(listed, list) or not listed:
        raise InputError(f"{name}/config.yaml lists no conditions")
    data = _given({k: v for k, v in cfg.items() if k not in EXTRA_KEYS and k != "output"})
    if "run_conditions" in cfg:
        data["conditions"] = cfg["conditions"]
    files = sorted(set(_files(data)))
    if files:  # a report folder may come from anyone: the server opens no file it names
        raise InputError(f"{name}: its configuration names files ({', '.join(files)}); the "
                         "server replays and plays only the shipped bots and decks (a "
                         "strategy file's code would run): use `fishing2sim play "
                         "--experiment FILE --condition N --game G`")
    exp = load_experiment_data(data, path)
    n = len(exp.conditions)
    if not 0 <= condition < n:
        raise InputError(f"{name}: condition {condition} is out of range: the report has {n} "
                         f"condition{'s' if n != 1 else ''} (0..{n - 1})")
    c = next(x for x in exp.conditions if x.index == condition)
    row = next((x for x in listed if isinstance(x, dict) and x.get("index") == condition), {})
    if row.get("deck_sha256") not in (None, c.deck_sha256):
        raise InputError(f"{name}: condition {condition}'s deck is not the one the report "
                         "played (its deck file changed?): its games cannot be replayed")
    games = int(row.get("games", c.games))
    if not 0 <= game < games:
        raise InputError(f"{name}: game {game} is out of range: condition {condition} played "
                         f"{games:,} games (0..{games - 1})")
    args = condition_args(exp, condition)
    cname = args.pop("name")
    return {**args, "game": game,
            "title_extra": f"{name}, condition {condition} ({cname}), game {game}"}


def _given(cfg: dict) -> dict:
    """The resolved configuration as a file would give it: the unset keys (None, an empty
    list or mapping), which the resolved form spells out, left out (the deck's too)."""
    out = {}
    for k, v in cfg.items():
        if isinstance(v, dict) and k == "deck":
            v = _given(v)
        if v is None or v == {} or v == []:
            continue
        out[k] = v
    return out


def _files(x):
    """The file names in a configuration: strategy files (``*.py``), deck files (``*.csv``,
    the deck's ``file``)."""
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "file" and isinstance(v, str):
                yield Path(v).name
            else:
                yield from _files(v)
    elif isinstance(x, list):
        for v in x:
            yield from _files(v)
    elif isinstance(x, str) and x.lower().endswith((".py", ".csv")):
        yield Path(x).name
