"""``fishing2sim compare DIR_A DIR_B``: the headline figures two report folders share, as
contrasts A − B with 95% CIs.

The two runs are independent samples, so each contrast is
:func:`fishing2sim.analysis.contrasts.independent`'s (Newcombe's interval for a difference of shares,
from the two Wilson intervals; Welch's t interval from the two standard errors for means
and win shares; Katz's log interval for a ratio of shares), computed from the figures'
estimates, CIs and n in the folders' CSVs. Conditions are matched by name (by position when
each folder holds one condition).

Two runs with the same seed play the same deals in a condition of the same index (or of
the same paired group) with the same players and deck: their figures are not independent,
and a paired comparison needs the per-game data, which report folders do not hold. Such
folders are refused, with what to do instead: run both as conditions of one experiment with
``paired: true``.

Report folders are untrusted input: every file is read with
:func:`fishing2sim.safe_files.read_regular` (regular files only, a size cap), every value
used is checked (finite, within its figure's range, the CI around the estimate, n a whole
number of games), and anything unexpected is a :class:`CompareError` (one line naming the
file, line and column). Matched conditions of different player counts or rulesets are
refused unless the caller allows them; ``--csv`` never writes into either folder.
"""
from __future__ import annotations

from fishing2sim.errors import Fishing2simError

import io
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fishing2sim.analysis.contrasts import FIGURE_INFO, FIGURES, Figure, independent
from fishing2sim.safe_files import FileSafetyError, read_regular
from fishing2sim.analysis.stats import crit
from fishing2sim.config.experiment import _load_yaml
from fishing2sim.config.keys import MAX_GAMES_HARD
from fishing2sim.report.words import number

CSV_MAX = 64 * 1024 * 1024
CONFIG_MAX = 16 * 1024 * 1024
COLUMNS = ["condition", "condition_b", "figure", "strategy", "unit", "n_a", "estimate_a",
           "ci_low_a", "ci_high_a", "n_b", "estimate_b", "ci_low_b", "ci_high_b",
           "difference", "diff_ci_low", "diff_ci_high", "ratio", "ratio_ci_low",
           "ratio_ci_high"]
# figure -> (table, metric, which round: "last" (the condition's last) or None (pooled))
SOURCES = {
    "overfishing": ("overfishing", "overfished_share", None),
    "ocean_empty": ("depletion", "ocean_empty_or_overfished_share", "last"),
    "ocean_left": ("depletion", "ocean_after_draws_mean_all", "last"),
    "trump_value": ("trump_value", "policy_gain_points", None),
    "trump_stakes_half_low": ("trump_value", "stakes_half_low_points", None),
    "trump_stakes_half": ("trump_value", "stakes_half_points", None),
    "win_share": ("strategies", "win_share", None),
}


class CompareError(Fishing2simError, ValueError):
    """A folder that cannot be compared (one line)."""


@dataclass
class Folder:
    path: Path
    seed: int
    paired: bool
    conditions: list  # dicts: index, name, players, deck_sha256, ruleset (config.yaml)
    tables: dict  # table name -> DataFrame (the CSVs present)


def _read(path: Path, limit: int, what: str) -> bytes:
    if not path.exists() and not path.is_symlink():
        raise CompareError(f"{path.parent}: not a report folder (no {path.name}; "
                           "fishing2sim run FILE writes one)")
    try:
        return read_regular(path, limit, within=path.parent, what=what)
    except FileSafetyError as exc:
        raise CompareError(str(exc)) from None
    except OSError as exc:
        raise CompareError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None


def read_folder(folder) -> Folder:
    """A report folder's config.yaml and headline CSVs, checked."""
    p = Path(folder)
    if p.is_symlink() or not p.is_dir():
        raise CompareError(f"{folder}: no such report folder" if not p.exists() else
                           f"{folder}: not a report folder (a folder is needed)")
    raw = _read(p / "config.yaml", CONFIG_MAX, "config.yaml")
    try:
        cfg = _load_yaml(raw.decode("utf-8"))
    except Exception as exc:  # undecodable, YAML errors, the loader's size limits
        why = getattr(exc, "problem", None) or type(exc).__name__
        raise CompareError(f"{p / 'config.yaml'}: not a report's config.yaml ({why})") from None
    bad = f"{p / 'config.yaml'}: not a report's config.yaml"
    if not isinstance(cfg, dict):
        raise CompareError(f"{bad} (not a mapping)")
    seed, conds = cfg.get("seed"), cfg.get("conditions")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise CompareError(f"{bad} (its seed is not a whole number)")
    if not isinstance(conds, list) or not conds:
        raise CompareError(f"{bad} (no conditions)")
    out = []
    for i, c in enumerate(conds):
        if not isinstance(c, dict) or not isinstance(c.get("index"), int) \
                or not isinstance(c.get("players"), int) \
                or not isinstance(c.get("deck_sha256"), str):
            raise CompareError(f"{bad} (conditions[{i}] lacks its index, players or "
                               "deck_sha256)")
        labels = c.get("labels") if isinstance(c.get("labels"), dict) else {}
        ruleset = labels.get("ruleset", cfg.get("ruleset"))
        out.append({"index": c["index"], "name": str(c.get("name", c["index"])),
                    "players": c["players"], "deck_sha256": c["deck_sha256"],
                    "games": c.get("games"),
                    "ruleset": str(ruleset) if ruleset is not None else None})
    tables = {}
    for name in dict.fromkeys(t for t, _, _ in SOURCES.values()):
        f = p / f"{name}.csv"
        if not f.exists() and not f.is_symlink():
            continue
        data = _read(f, CSV_MAX, f"{name}.csv")
        try:
            df = pd.read_csv(io.BytesIO(data))
        except Exception as exc:  # a CSV parser's many errors: one line
            raise CompareError(f"{f}: not a report table ({type(exc).__name__})") from None
        df.attrs["file"] = f
        need = {"condition", "metric", "n", "estimate", "ci_low", "ci_high"}
        if not need <= set(df.columns):
            raise CompareError(f"{f}: not a report table (no column "
                               f"{sorted(need - set(df.columns))[0]})")
        for col in ("condition", "n", "estimate", "ci_low", "ci_high"):
            df[col] = pd.to_numeric(df[col], errors="coerce")
        tables[name] = df
    if not tables:
        raise CompareError(f"{p}: no table of headline figures (overfishing.csv, "
                           "depletion.csv, trump_value.csv, strategies.csv)")
    return Folder(p, seed, bool(cfg.get("paired", False)), out, tables)


def _deal_index(folder: Folder, cond: dict) -> int:
    """The condition whose seed ``cond`` plays: its own, or with paired: true the first of
    the conditions with its players, deck and games (experiment.py's pair)."""
    if folder.paired:
        for c in folder.conditions:
            if (c["players"], c["deck_sha256"], c["games"]) == \
                    (cond["players"], cond["deck_sha256"], cond["games"]):
                return c["index"]
    return cond["index"]


def match(a: Folder, b: Folder) -> list:
    """The (condition of A, condition of B) pairs compared."""
    if len(a.conditions) == 1 and len(b.conditions) == 1:
        return [(a.conditions[0], b.conditions[0])]
    by_name = {c["name"]: c for c in b.conditions}
    pairs = [(c, by_name[c["name"]]) for c in a.conditions if c["name"] in by_name]
    if not pairs:
        raise CompareError(f"{a.path} and {b.path} have no condition name in common "
                           f"({', '.join(c['name'] for c in a.conditions[:3])}... and "
                           f"{', '.join(c['name'] for c in b.conditions[:3])}...): "
                           "conditions are matched by name")
    return pairs


def check_setups(a: Folder, b: Folder, pairs: list) -> None:
    """Refuse matched conditions of different player counts or rulesets: their figures
    measure different games (``--allow-different-setup`` compares them anyway)."""
    for ca, cb in pairs:
        for key, what in (("players", "players"), ("ruleset", "ruleset")):
            x, y = ca[key], cb[key]
            if x is None or y is None or x == y:
                continue
            raise CompareError(
                f"{a.path} and {b.path}: condition {ca['name']!r} of A has {what} {x} and "
                f"condition {cb['name']!r} of B {what} {y}: their figures measure different "
                "games; give --allow-different-setup to compare them anyway")


def check_independent(a: Folder, b: Folder, pairs: list) -> None:
    """Refuse pairs that play the same deals (the same seed, condition seed, players and
    deck): their difference is not that of independent samples."""
    if a.seed != b.seed:
        return
    for ca, cb in pairs:
        if _deal_index(a, ca) == _deal_index(b, cb) and ca["players"] == cb["players"] \
                and ca["deck_sha256"] == cb["deck_sha256"]:
            raise CompareError(
                f"{a.path} and {b.path} played the same deals (seed {a.seed}, condition "
                f"{ca['name']!r}: the same players and deck), so their figures are not "
                "independent and a paired comparison needs per-game data, which report "
                "folders do not hold: run both as conditions of one experiment with "
                "paired: true (or run one of them with another seed)")


def _figures(folder: Folder, index: int) -> dict:
    """figure -> Figure (win_share: strategy -> Figure) of one condition, from the CSVs."""
    out: dict = {}
    for fig, (table, metric, which) in SOURCES.items():
        df = folder.tables.get(table)
        if df is None:
            continue
        rows = df[(df["condition"] == index) & (df["metric"] == metric)]
        if "seat" in rows.columns:
            rows = rows[rows["seat"].isna()]
        if "round" in rows.columns:
            if which == "last":
                rows = rows[rows["round"] == pd.to_numeric(rows["round"]).max()]
            else:
                rows = rows[rows["round"].isna()]
        if fig == "win_share":
            rows = rows[rows["strategy"].notna()] if "strategy" in rows.columns else rows[:0]
            found = {str(r["strategy"]): _figure(fig, r, df, i) for i, r in rows.iterrows()}
            if found:
                out[fig] = found
        else:
            if "strategy" in rows.columns:
                rows = rows[rows["strategy"].isna()]
            if len(rows) > 1:
                lines = ", ".join(str(i + 2) for i in rows.index[:3])
                raise CompareError(f"{df.attrs['file']}: lines {lines}: {metric} of condition "
                                   f"{index} given {len(rows)} times; a report table holds "
                                   "it once")
            if len(rows) == 1:
                out[fig] = _figure(fig, rows.iloc[0], df, rows.index[0])
    return out


def _checked(fig: str, r, df, i) -> tuple:
    """(estimate, ci_low, ci_high, n) of a table's row, or a CompareError naming the file,
    line and column: finite, a share within [0, 1] and a count of cards at least 0, the CI
    around the estimate, n a whole number of games from 1 to MAX_GAMES_HARD. A doctored or
    damaged value is refused, never dropped without a word."""
    where = f"{df.attrs['file']}: line {i + 2} ({r['metric']} of condition {r['condition']:g})"
    n = float(r["n"])
    if not (math.isfinite(n) and n.is_integer() and 1 <= n <= MAX_GAMES_HARD):
        raise CompareError(f"{where}, column n: {n:g} is not a whole number of games "
                           f"from 1 to {MAX_GAMES_HARD:,}")
    vals = {c: float(r[c]) for c in ("estimate", "ci_low", "ci_high")}
    kind, unit = FIGURE_INFO[fig][1], FIGURE_INFO[fig][2]
    lo_ok, hi_ok = (0.0, 1.0) if kind == "rate" else \
        (0.0, math.inf) if unit == "cards" else (-math.inf, math.inf)
    for c, v in vals.items():
        if not math.isfinite(v):
            raise CompareError(f"{where}, column {c}: {v:g} is not a finite number")
        # a win share's normal interval may reach past 0 or 1; its estimate may not
        if (c == "estimate" or fig != "win_share") and not lo_ok <= v <= hi_ok:
            raise CompareError(f"{where}, column {c}: {v:g} is outside "
                               f"[{lo_ok:g}, {hi_ok:g}], the range of {fig}")
    est, lo, hi = vals["estimate"], vals["ci_low"], vals["ci_high"]
    tol = 1e-9 * max(1.0, abs(est))  # the CSVs' 10 significant digits
    if not lo - tol <= est <= hi + tol:
        raise CompareError(f"{where}, column estimate: {est:g} lies outside its 95% CI "
                           f"[{lo:g}, {hi:g}]")
    return est, lo, hi, n


def _figure(fig: str, r, df, i) -> Figure:
    est, lo, hi, n = _checked(fig, r, df, i)
    kind = FIGURE_INFO[fig][1]
    # a mean's CI is t on n − 1 degrees of freedom: its standard error back from it
    se = (hi - lo) / 2 / crit(n - 1) if n > 1 else math.nan
    if fig == "win_share":  # a mean per unit: the t interval, the ratio from its se
        return Figure(est, lo, hi, int(n), "rate", k=est * n, se=se)
    if kind == "rate":  # Wilson intervals: Newcombe's difference
        return Figure(est, lo, hi, int(n), "rate", k=round(est * n))
    return Figure(est, lo, hi, int(n), "mean", se=se)


def compare(dir_a, dir_b, allow_different_setup: bool = False) -> pd.DataFrame:
    """The contrasts A − B of every headline figure both folders hold (COLUMNS); matched
    conditions of different player counts or rulesets only with
    ``allow_different_setup``."""
    a, b = read_folder(dir_a), read_folder(dir_b)
    pairs = match(a, b)
    if not allow_different_setup:
        check_setups(a, b, pairs)
    check_independent(a, b, pairs)
    rows = []
    for ca, cb in pairs:
        fa, fb = _figures(a, ca["index"]), _figures(b, cb["index"])
        for fig in FIGURES:
            if fig not in fa or fig not in fb:
                continue
            items = [(s, fa[fig][s], fb[fig][s]) for s in fa[fig] if s in fb[fig]] \
                if fig == "win_share" else [(None, fa[fig], fb[fig])]
            for s, x, y in items:
                rows.append(dict(
                    condition=ca["name"], condition_b=cb["name"], figure=fig, strategy=s,
                    unit=FIGURE_INFO[fig][2], n_a=x.n, estimate_a=x.estimate,
                    ci_low_a=x.ci_low, ci_high_a=x.ci_high, n_b=y.n, estimate_b=y.estimate,
                    ci_low_b=y.ci_low, ci_high_b=y.ci_high,
                    **dict(zip(COLUMNS[13:], independent(x, y)))))
    if not rows:
        raise CompareError(f"{a.path} and {b.path} share no headline figure (overfishing, "
                           "ocean_empty, ocean_left, trump_value, win_share) in a matched "
                           "condition")
    return pd.DataFrame(rows, columns=COLUMNS)


def check_csv_path(csv_file, folders) -> None:
    """``--csv FILE`` never writes into a report folder (it would replace the report's own
    tables): a path inside either folder is refused."""
    target = Path(csv_file).expanduser().resolve()
    for folder in folders:
        root = Path(folder).expanduser().resolve()
        if target == root or root in target.parents:
            raise CompareError(f"--csv {csv_file}: inside the report folder {folder}; compare "
                               "writes nothing into a report folder: give a path outside it")


def table_text(df: pd.DataFrame) -> str:
    """The contrasts as a plain-text table: shares in percent, differences in pp."""
    head = ["condition", "figure", "A", "B", "A − B [95% CI]", "ratio [95% CI]"]
    lines = []
    for _, r in df.iterrows():
        s = 100.0 if r["unit"] == "pp" else 1.0
        u = "%" if r["unit"] == "pp" else ""
        hw = (r["diff_ci_high"] - r["diff_ci_low"]) * s / 2
        name = r["condition"] if r["condition"] == r["condition_b"] else \
            f"{r['condition']} / {r['condition_b']}"
        fig = r["figure"] + (f" {r['strategy']}" if isinstance(r["strategy"], str) else "")
        ratio = "–" if math.isnan(r["ratio"]) else \
            f"{r['ratio']:.3f} [{r['ratio_ci_low']:.3f}, {r['ratio_ci_high']:.3f}]"
        lines.append([name, fig, f"{number(r['estimate_a'] * s, hw)}{u}",
                      f"{number(r['estimate_b'] * s, hw)}{u}",
                      f"{number(r['difference'] * s, hw)} [{number(r['diff_ci_low'] * s, hw)}, "
                      f"{number(r['diff_ci_high'] * s, hw)}] {r['unit']}", ratio])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *lines)]
    fmt = (lambda row: "  ".join(f"{c:<{w}}" for c, w in zip(row, widths)).rstrip())
    return "\n".join([fmt(head), fmt(["-" * w for w in widths])] + [fmt(x) for x in lines])
