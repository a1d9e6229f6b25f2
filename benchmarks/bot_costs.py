"""Each shipped bot's cost per game: the CPU seconds one core takes to play a game with the
bot in every seat, at 3, 4 and 5 players of Fishing 2 (the original Fishing at 4), written
to fishing2sim/data/bot_costs.csv. The runner's progress bar weighs each game by its
lineup's cost from this table (a search game costs about a thousand random ones), so its
percentage and ETA count work, not games.

    python benchmarks/bot_costs.py                 # every shipped bot, writes the table
    python benchmarks/bot_costs.py --only skilled,pimc --games 400 --search-games 8

Each figure is the median of --repeats timed batches in this process (compiled first, so
the compile is not counted). Costs move with the machine's load: the table's use is their
ratios, which the load moves much less. Its date and the load average are in the table.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import io
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "fishing2sim" / "data" / "bot_costs.csv"
COLUMNS = ["bot", "ruleset", "players", "seconds_per_game", "games", "date", "load"]


def shipped_bots() -> list[str]:
    return sorted(p.stem for p in (ROOT / "strategies").glob("*.py") if p.stem != "__init__")


def cost(bot: str, ruleset: str, players: int, games: int, repeats: int) -> float:
    """CPU seconds per game (median of ``repeats`` batches) of ``bot`` in every seat."""
    from fishing2sim.api import run_games

    seats = [bot] * players
    run_games(1, players, seed=99, ruleset=ruleset, strategies=seats)  # compiled first
    times = []
    for r in range(repeats):
        t0 = time.process_time()
        run_games(games, players, seed=1000 + r, ruleset=ruleset, strategies=seats,
                  start=r * games)
        times.append((time.process_time() - t0) / games)
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated bots (default: every shipped bot)")
    ap.add_argument("--games", type=int, default=2000, help="games a batch, fast bots")
    ap.add_argument("--search-games", type=int, default=6, help="games a batch, search bots")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    from fishing2sim.safe_files import write_atomic
    from fishing2sim.strategy.loading import load_strategy

    bots = [b for b in args.only.split(",") if b] or shipped_bots()
    rows = []
    for bot in bots:
        search = bool(load_strategy(bot).search)
        n = args.search_games if search else args.games
        for ruleset, players in (("fishing2", 3), ("fishing2", 4), ("fishing2", 5),
                                 ("fishing", 4)):
            s = cost(bot, ruleset, players, n, args.repeats)
            rows.append({"bot": bot, "ruleset": ruleset, "players": players,
                         "seconds_per_game": f"{s:.3g}", "games": n * args.repeats,
                         "date": datetime.date.today().isoformat(),
                         "load": f"{os.getloadavg()[0]:.1f}"})
            print(f"{bot:14s} {ruleset:8s} {players} players: {s * 1e3:9.3f} ms a game "
                  f"({n * args.repeats} games)", flush=True)
    out = Path(args.out)
    old = [r for r in csv.DictReader(out.open())] if out.exists() else []
    keep = [r for r in old if r["bot"] not in set(bots)]
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, COLUMNS)
    w.writeheader()
    w.writerows(sorted(keep + rows, key=lambda r: (r["bot"], r["ruleset"], int(r["players"]))))
    write_atomic(out, buf.getvalue())
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
