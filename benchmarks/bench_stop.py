"""How fast does `fishing2sim run` stop? Ctrl-C (SIGINT to the process group, as a terminal
sends it) or SIGTERM (to the main process) while the workers play, and while every worker
is inside a decision that never returns: the time from the signal to the exit of the main
process, the exit code, and the processes of the run still alive afterwards.

    python benchmarks/bench_stop.py              # 5 repeats of each case
    python benchmarks/bench_stop.py --repeats 10
"""
from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STUCK_BOT = '''"""stuck: a play decision that never returns."""
from fishing2sim.strategy.kit import decision, option

NAME = "stuck"


@decision
def play(obs, params, rng):
    k = 0
    while params.size >= 0 and k >= 0:
        k = (k + 1) % 1000003
    return option(obs, 0)
'''


def session_processes(sid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[3]) == sid and fields[0] != "Z":
                out.append(int(entry))
    return out


def one(folder: Path, stuck: bool, signum: int, group: bool) -> tuple[float, int, int]:
    body = "games: 400000\nchunk: 2000\nanalyses: [overfishing]\n"
    if stuck:
        body = "games: 800\nchunk: 200\nanalyses: [overfishing]\nseats: ./stuck_bot.py\n"
    path = folder / "stop.yaml"
    path.write_text(f"name: stop\noutput: {folder / 'reports'}\n" + body)
    ckpt = folder / "reports" / ".checkpoints" / "stop"
    proc = subprocess.Popen([sys.executable, "-m", "fishing2sim.cli", "run", str(path),
                             "--workers", "2", "--no-progress"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    if stuck:  # wait until both workers are busy in the decision
        time.sleep(1.0)
        while time.time() < deadline and len(session_processes(proc.pid)) < 3:
            time.sleep(0.05)
        time.sleep(3.0)
    else:
        while time.time() < deadline and len(list(ckpt.glob("c*.npz"))) < 4:
            time.sleep(0.02)
    t0 = time.monotonic()
    if group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    proc.wait()
    took = time.monotonic() - t0
    time.sleep(0.5)
    left = session_processes(proc.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return took, proc.returncode, len(left)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "stuck_bot.py").write_text(STUCK_BOT)
        from fishing2sim.strategy.loading import load_strategy

        load_strategy(str(Path(tmp) / "stuck_bot.py"))  # compiled once, cached for the workers
        print("| case | stop time, median (max) | exit code | processes left |")
        print("|---|---|---|---|")
        for case, (label, stuck, signum, group) in enumerate((
                ("Ctrl-C while playing", False, signal.SIGINT, True),
                ("SIGTERM while playing", False, signal.SIGTERM, False),
                ("Ctrl-C inside a decision that never returns", True, signal.SIGINT, True))):
            times, codes, left = [], set(), 0
            for i in range(args.repeats):
                folder = Path(tmp) / f"case{case}-{i}"
                folder.mkdir()
                if stuck:
                    (folder / "stuck_bot.py").write_text(STUCK_BOT)
                took, rc, n = one(folder, stuck, signum, group)
                times.append(took)
                codes.add(rc)
                left += n
            print(f"| {label} | {statistics.median(times):.2f} s ({max(times):.2f} s) | "
                  f"{', '.join(map(str, sorted(codes)))} | {left} |")


if __name__ == "__main__":
    main()
