"""benchmarks/bench_skilled.py's seat rotations (docs/lab-notes.md, "At 5 players,
overfishing as rarely as pimc loses games"): every seat plays each side equally often, so
a bot against itself gets exactly its even share, and a strong bot more."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("kind,players,share", [("five2", 5, 0.4), ("five3", 5, 0.6),
                                                ("pair", 4, 0.5), ("one", 4, 0.25)])
def test_every_seat_plays_each_side_equally_often(kind, players, share):
    from benchmarks.bench_skilled import _lineups

    rows = _lineups(kind, "A", "B", 0)
    assert len(rows) == players
    for lineup, seats in rows:
        assert len(lineup) == players
        assert seats == [i for i, x in enumerate(lineup) if x == "A"]
    n_a = round(share * players)
    assert all(sum(s in seats for _, seats in rows) == n_a for s in range(players))


@pytest.mark.parametrize("kind,share", [("five2", 0.4), ("five3", 0.6)])
def test_a_bot_against_itself_gets_exactly_its_even_share(kind, share):
    from benchmarks.bench_skilled import play_block

    # the same bot in every seat: the 5 rotations replay one game, so the share is exact
    r = play_block(kind, "greedy", "greedy", 11, 0, 4)
    assert np.allclose(r["shares"], share)


def test_a_strong_bot_takes_more_than_its_even_share_at_five_players():
    from benchmarks.bench_skilled import play_block

    r = play_block("five2", "skilled", "random", 12, 0, 60)
    s = r["shares"]
    half = 1.96 * s.std(ddof=1) / np.sqrt(len(s))
    assert s.mean() - half > 0.4  # two skilled seats against three random ones
    # three random seats against two skilled ones are the same 5 lineups, seen from the
    # other side: the shares add up to 1 deal by deal
    other = play_block("five3", "random", "skilled", 12, 0, 60)["shares"]
    assert np.allclose(s + other, 1.0)


@pytest.mark.parametrize("args,word", [(["--five-deals", "1"], "--five-deals must be at least 2"),
                                       (["--workers", "0"], "--workers must be at least 1"),
                                       (["--five-vs", "gredy"], "--five-vs: unknown strategy 'gredy'"),
                                       (["--bot", "nope.py"], "--bot: "),
                                       (["--against", "no/such/tree"],
                                        "--against: no/such/tree is no fishing2sim checkout")])
def test_a_bad_count_is_refused_with_exit_2(args, word):
    r = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_skilled.py"),
                        "--only", "five", *args], capture_output=True, text=True)
    assert r.returncode == 2 and word in r.stderr and "Traceback" not in r.stderr
    assert r.stdout == ""
