"""Stopping a run: one Ctrl-C (SIGINT to the whole process group, as a terminal sends it)
or a SIGTERM to the main process stops `fishing2sim run` and its worker processes within
2 s, even while a worker is inside a decision that never returns; it prints one line with
the saved chunks, exits 130 / 143, leaves no process behind, and --resume then gives the
uninterrupted run's CSVs byte for byte."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import wait_until, write_experiment

from fishing2sim.study import run
from fishing2sim.strategy.loading import load_strategy

CSVS = ["overfishing.csv", "strategies.csv", "scores.csv"]
STOP_WITHIN = 2.0


def live_processes():
    """(pid, state, parent pid, session) of every process (from /proc)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        yield int(entry), fields[0], int(fields[1]), int(fields[3])


def session_processes(sid: int) -> list[int]:
    """The PIDs of every live process of session ``sid``."""
    return [pid for pid, state, _, session in live_processes() if session == sid and state != "Z"]


def start(path: Path, *args) -> subprocess.Popen:
    """`fishing2sim run` in a session of its own (so its process group is all of it)."""
    return subprocess.Popen([sys.executable, "-m", "fishing2sim.cli", "run", str(path),
                             "--no-progress", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def stop(proc: subprocess.Popen, signum: int, group: bool,
         times: int = 1) -> tuple[float, int, str]:
    """Send ``signum`` (``times`` times, 0.1 s apart, while the run lives); (seconds until
    the main process exited, exit code, stderr)."""
    t0 = time.monotonic()
    for i in range(times):
        if i:
            time.sleep(0.1)
            if proc.poll() is not None:
                break
        try:
            if group:
                os.killpg(proc.pid, signum)
            else:
                proc.send_signal(signum)
        except ProcessLookupError:
            break
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    elapsed = time.monotonic() - t0
    err = proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    return elapsed, proc.returncode, err


def assert_no_survivors(sid: int):
    # the main process is gone; every worker (and multiprocessing's helper) must follow it
    # at once: nothing may keep running after the run
    wait_until(lambda: not session_processes(sid), timeout=1.0)
    left = session_processes(sid)
    if left:
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert not left, f"processes outlived the run: {left}"


@pytest.mark.parametrize("signum, group, code, times", [
    (signal.SIGINT, True, 130, 1),    # Ctrl-C in a terminal: the whole process group
    (signal.SIGINT, True, 130, 3),    # an impatient user: Ctrl-C three times
    (signal.SIGTERM, False, 143, 1),  # kill PID: the main process only
], ids=["ctrl-c", "ctrl-c-x3", "sigterm"])
def test_a_signal_stops_the_run_and_its_workers_and_resume_continues(tmp_path, signum, group,
                                                                     code, times):
    # greedy seats: a chunk takes tens of milliseconds, as random ones did before the engine
    # got twice as fast (with random seats a chunk now takes ~10 ms)
    body = ("players: 4\ngames: 30000\nchunk: 300\nseed: 5\nseats: greedy\n"
            "analyses: [overfishing, strategies]\n")
    a = write_experiment(tmp_path / "a", "stop", body)
    ckpt = tmp_path / "a" / "reports" / ".checkpoints" / "stop"
    proc = start(a, "--workers", "2")
    assert wait_until(lambda: len(list(ckpt.glob("c*.npz"))) >= 2), "no chunk finished"
    assert len(session_processes(proc.pid)) >= 3  # the run and its two workers at least
    elapsed, rc, err = stop(proc, signum, group, times)
    assert elapsed < STOP_WITHIN, f"took {elapsed:.2f} s to stop"
    assert rc == code, err  # the message says why, if the run ended another way
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    saved = len(list(ckpt.glob("c*.npz")))
    assert lines[0] == f"interrupted; {saved} of 100 chunks saved; --resume continues"
    assert 2 <= saved < 100
    assert "Traceback" not in err
    assert_no_survivors(proc.pid)
    assert not (tmp_path / "a" / "reports" / "stop").exists()  # no half-written report
    assert not (tmp_path / "a" / "reports" / ".stop.lock").exists()

    if signum != signal.SIGINT or times != 1:
        return
    # --resume plays only what is missing and gives the uninterrupted result
    res = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "run", str(a), "--resume",
                          "--no-progress", "--workers", "2"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    b = write_experiment(tmp_path / "b", "stop", body)
    run(b, workers=1, progress=False)
    for name in CSVS:
        assert (tmp_path / "a/reports/stop" / name).read_bytes() == \
            (tmp_path / "b/reports/stop" / name).read_bytes(), name


STUCK_BOT = '''"""stuck: a play decision that never returns (a bug in a user's bot)."""
from fishing2sim.strategy.kit import decision, option

NAME = "stuck"


@decision
def play(obs, params, rng):
    k = 0
    while params.size >= 0 and k >= 0:  # never false
        k = (k + 1) % 1000003
    return option(obs, 0)
'''


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_ctrl_c_stops_workers_inside_a_decision_that_never_returns(tmp_path):
    bot = tmp_path / "stuck_bot.py"
    bot.write_text(STUCK_BOT)
    load_strategy(str(bot))  # compile it once here: the workers load it from numba's cache
    # condition 0 (random bots) finishes its 4 chunks; condition 1 hangs in every worker
    path = write_experiment(tmp_path, "stuck",
                      "games: 800\nchunk: 200\nanalyses: [overfishing]\n"
                      "sweep:\n  seats: [random, ./stuck_bot.py]\n")
    ckpt = tmp_path / "reports" / ".checkpoints" / "stuck"
    proc = start(path, "--workers", "2")
    assert wait_until(lambda: len(list(ckpt.glob("c0000-*.npz"))) == 4)
    time.sleep(3)  # the workers are now inside the stuck decision
    assert proc.poll() is None
    elapsed, rc, err = stop(proc, signal.SIGINT, group=True)
    assert elapsed < STOP_WITHIN, f"took {elapsed:.2f} s to stop"
    assert rc == 130
    assert err.strip() == "interrupted; 4 of 8 chunks saved; --resume continues"
    assert_no_survivors(proc.pid)


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_ctrl_c_stops_a_local_dask_cluster_too(tmp_path):
    pytest.importorskip("distributed")
    path = write_experiment(tmp_path, "dask", "games: 400000\nchunk: 20000\nanalyses: [overfishing]\n")
    ckpt = tmp_path / "reports" / ".checkpoints" / "dask"
    proc = start(path, "--dask-local", "2")
    assert wait_until(lambda: len(list(ckpt.glob("c*.npz"))) >= 2), "no chunk finished"
    elapsed, rc, err = stop(proc, signal.SIGINT, group=True)
    assert elapsed < STOP_WITHIN, f"took {elapsed:.2f} s to stop"
    assert rc == 130
    saved = len(list(ckpt.glob("c*.npz")))
    assert err.strip() == f"interrupted; {saved} of 20 chunks saved; --resume continues"
    assert_no_survivors(proc.pid)


@pytest.mark.slow  # kills a worker and resumes: 10 s (the default run stays within 6 minutes)
def test_a_worker_killed_from_outside_is_one_line_and_resume_continues(tmp_path):
    body = "players: 4\ngames: 30000\nchunk: 300\nseed: 8\nanalyses: [overfishing]\n"
    a = write_experiment(tmp_path / "a", "dies", body)
    ckpt = tmp_path / "a" / "reports" / ".checkpoints" / "dies"
    proc = start(a, "--workers", "2")
    assert wait_until(lambda: len(list(ckpt.glob("c*.npz"))) >= 2), "no chunk finished"
    workers = [p for p in session_processes(proc.pid)
               if p != proc.pid and "spawn_main" in Path(f"/proc/{p}/cmdline").read_text()]
    assert len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)  # the out-of-memory killer, say
    proc.wait(timeout=30)
    err = proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: a worker process died (killed by SIGKILL)")
    assert lines[0].endswith("the chunks saved so far are kept: run again with --resume")
    assert_no_survivors(proc.pid)
    res = subprocess.run([sys.executable, "-m", "fishing2sim.cli", "run", str(a), "--resume",
                          "--no-progress", "--workers", "2"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    b = write_experiment(tmp_path / "b", "dies", body)
    run(b, workers=1, progress=False)
    assert (tmp_path / "a/reports/dies/overfishing.csv").read_bytes() == \
        (tmp_path / "b/reports/dies/overfishing.csv").read_bytes()


def test_workers_cannot_take_a_ctrl_c_while_they_import(tmp_path):
    # a worker still importing when Ctrl-C comes must not print a traceback: from its first
    # instruction SIGINT is blocked (until it ignores it). The first spawn of a run starts
    # multiprocessing's resource tracker, which unblocks SIGINT in the parent: checked in a
    # fresh interpreter, where that first spawn really happens
    a = write_experiment(tmp_path, "masks", "players: 4\ngames: 100\n")
    code = (
        "import sys\n"
        "from fishing2sim.config.experiment import load_experiment\n"
        "from fishing2sim.run.processes import start_workers as _start_workers, stop_workers as _stop_workers\n"
        f"exp = load_experiment({str(a)!r})\n"
        "procs, conns = _start_workers(exp, 2)\n"
        "for p in procs:\n"
        "    fields = dict(line.split(':', 1) for line in open(f'/proc/{p.pid}/status'))\n"
        "    blocked = int(fields['SigBlk'], 16) >> 1 & 1\n"
        "    ignored = int(fields['SigIgn'], 16) >> 1 & 1\n"
        "    print(blocked, ignored)\n"
        "_stop_workers(procs, conns, graceful=True)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    rows = [tuple(map(int, ln.split())) for ln in res.stdout.splitlines()]
    assert len(rows) == 2
    for blocked, ignored in rows:
        assert blocked or ignored, res.stdout


# ---- play, tune, and a parent killed outright ---------------------------------------------
LOOPER = str(Path(__file__).parent / "bots" / "looper.py")  # a decision that never returns
PLAY_STOP_LINE = "interrupted; the game was not finished"


_sessions: list = []  # the process groups the tests below start: killed after each test


@pytest.fixture(autouse=True)
def _no_strays():
    yield
    while _sessions:  # a failed test must not leave a looping process behind
        try:
            os.killpg(_sessions.pop(), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def start_cli(*args) -> subprocess.Popen:
    """`fishing2sim ARGS` in a session of its own (as start() does for run)."""
    proc = subprocess.Popen([sys.executable, "-m", "fishing2sim.cli", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    _sessions.append(proc.pid)
    return proc


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    return [p for p, state, parent, _ in live_processes() if parent == pid and state != "Z"]


def game_children(pid: int) -> list[int]:
    """The children of ``pid`` that play games (not multiprocessing's resource tracker)."""
    out = []
    for c in children(pid):
        try:
            cmd = Path(f"/proc/{c}/cmdline").read_bytes()
        except OSError:
            continue
        if b"resource_tracker" not in cmd:
            out.append(c)
    return out


def alive(pids) -> list[int]:
    left = []
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            left.append(p)
    return left


@pytest.fixture(scope="module")
def looper_compiled():
    load_strategy(LOOPER)  # compiled once here: the children load it from numba's cache


@pytest.mark.parametrize("signum, group, code, times", [
    (signal.SIGINT, True, 130, 1),
    (signal.SIGINT, True, 130, 3),
    (signal.SIGTERM, False, 143, 1),
], ids=["ctrl-c", "ctrl-c-x3", "sigterm"])
def test_play_stops_inside_a_decision_that_never_returns(looper_compiled, signum, group,
                                                         code, times):
    proc = start_cli("play", "--seed", 3, "--strategy", LOOPER)
    assert wait_until(lambda: len(game_children(proc.pid)) == 1, timeout=120)
    time.sleep(2)  # the game's child is now inside the looping decision
    assert proc.poll() is None
    elapsed, rc, err = stop(proc, signum, group, times)
    print(f"stopped in {elapsed:.2f} s")
    assert elapsed < STOP_WITHIN + 3, f"took {elapsed:.2f} s to stop"  # 2 s, with slack
    assert rc == code, err
    assert err.splitlines() == [PLAY_STOP_LINE], err
    assert_no_survivors(proc.pid)


@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_play_stops_a_search_it_cannot_finish(tmp_path):
    # pimc at its largest budget: hours for one game
    path = write_experiment(tmp_path, "huge", "players: 4\nseed: 1\nanalyses: [strategies]\n"
                      "seats: [{strategy: pimc, params: [4096, 1024, 1, 0]}, greedy, greedy, "
                      "greedy]\n")
    proc = start_cli("play", "--experiment", path, "--condition", 0, "--json")
    assert wait_until(lambda: len(game_children(proc.pid)) == 1, timeout=120)
    time.sleep(4)  # searching
    assert proc.poll() is None
    elapsed, rc, err = stop(proc, signal.SIGINT, group=True)
    print(f"stopped in {elapsed:.2f} s")
    assert elapsed < STOP_WITHIN + 3, f"took {elapsed:.2f} s to stop"
    assert rc == 130 and err.splitlines() == [PLAY_STOP_LINE], err
    assert_no_survivors(proc.pid)


def sigkill_parent_and_check(proc: subprocess.Popen, kids: list[int]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    proc.stderr.close()
    t0 = time.monotonic()
    gone = wait_until(lambda: not alive(kids), timeout=3.0)
    print(f"children gone {time.monotonic() - t0:.2f} s after the parent's SIGKILL")
    left = alive(kids)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert gone and not left, f"outlived their parent by 3 s: {left}"


def test_workers_die_with_a_sigkilled_run(tmp_path, looper_compiled):
    path = write_experiment(tmp_path, "orphans", f"games: 800\nchunk: 200\nanalyses: [overfishing]\n"
                      f"seats: {LOOPER}\n")
    proc = start(path, "--workers", "2")
    _sessions.append(proc.pid)
    assert wait_until(lambda: len(game_children(proc.pid)) == 2, timeout=120)
    kids = game_children(proc.pid)
    time.sleep(3)  # inside the looping decision
    assert proc.poll() is None and len(alive(kids)) == 2
    sigkill_parent_and_check(proc, kids)


def test_plays_child_dies_with_a_sigkilled_play(looper_compiled):
    proc = start_cli("play", "--strategy", LOOPER)
    assert wait_until(lambda: len(game_children(proc.pid)) == 1, timeout=120)
    kids = game_children(proc.pid)
    time.sleep(2)
    sigkill_parent_and_check(proc, kids)


TUNE_LOOPING = """\
players: 4
seed: 2
seats: [{looper}, random, random, random]
analyses: [overfishing]
tune:
  space:
    deck.remove_from_tier.4: {{int: [0, 3]}}
  objective: {{minimize: overfishing}}
  budget: {{trials: 3, games: 2000}}
  racing: {{top: 0}}
"""


@pytest.mark.parametrize("signum, group, code", [
    (signal.SIGINT, True, 130), (signal.SIGTERM, False, 143)], ids=["ctrl-c", "sigterm"])
@pytest.mark.slow  # long: the default suite stays near 6 minutes (CI runs it)
def test_tune_with_one_worker_stops_inside_a_chunk(tmp_path, looper_compiled, signum, group,
                                                   code):
    # one worker: the trial's chunk once played in tune's own process, where a compiled
    # decision ignores Ctrl-C; here it never ends at all
    path = write_experiment(tmp_path, "tl", TUNE_LOOPING.format(looper=LOOPER))
    proc = start_cli("tune", path, "-w", 1, "--no-progress")
    assert wait_until(lambda: len(game_children(proc.pid)) == 1, timeout=120)
    time.sleep(3)  # trial 0's worker is inside the looping decision
    assert proc.poll() is None
    elapsed, rc, err = stop(proc, signum, group)
    print(f"stopped in {elapsed:.2f} s")
    assert elapsed < STOP_WITHIN + 3, f"took {elapsed:.2f} s to stop"
    assert rc == code, err
    assert err.splitlines() == ["interrupted: the finished trials are in the study; run "
                                "again with --resume to continue"], err
    assert_no_survivors(proc.pid)
    assert not (tmp_path / "reports" / ".tl.lock").exists()


# ---- a training's job pools (train/labels.py, train/es.py) ----

SUBMIT_HOLDS_CTRL_C = """
import os, signal
from fishing2sim.run.processes import submit_all

class Pool:  # a pool whose first submit is hit by Ctrl-C, as a fork of its workers can be
    def __init__(self):
        self.jobs = []
    def submit(self, fn, *job):
        if not self.jobs:
            os.kill(os.getpid(), signal.SIGINT)
        self.jobs.append(job)
        return job
pool = Pool()
try:
    submit_all(pool, None, [(1,), (2,), (3,)])
except KeyboardInterrupt:
    print("interrupted after", pool.jobs)
print("handler after:", signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


def test_a_ctrl_c_while_a_training_pool_forks_is_raised_once_its_submits_are_made():
    """submit_all holds SIGINT back while it submits (a submit forks the pool's processes,
    and a Ctrl-C inside logging's fork hook was printed as "Exception ignored" and lost:
    the training went on). The Ctrl-C comes once every job is submitted, and the handler
    is as before."""
    r = subprocess.run([sys.executable, "-c", SUBMIT_HOLDS_CTRL_C], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["interrupted after [(1,), (2,), (3,)]",
                                     "handler after: True"], r.stdout
    assert r.stderr == ""


def test_a_stopped_training_pool_ends_its_processes_and_its_manager_thread():
    """close_pool(stopping=True) ends a pool's processes inside their jobs and waits for its
    manager thread, so the interpreter's exit hook finds no wake-up pipe left open (one it
    wrote to while the thread closed it printed "OSError: Bad file descriptor" after a
    Ctrl-C). A job_pool's processes ignore Ctrl-C and block no signal."""
    from concurrent.futures import process as cf_process

    from fishing2sim.run.processes import close_pool, job_pool, submit_all

    pool = job_pool(2)
    try:
        probe = submit_all(pool, signal.getsignal, [(signal.SIGINT,), (signal.SIGTERM,)])
        assert [f.result(timeout=60) for f in probe] == [signal.SIG_IGN, signal.SIG_DFL]
        masks = submit_all(pool, signal.pthread_sigmask, [(signal.SIG_BLOCK, [])] * 2)
        assert [f.result(timeout=60) for f in masks] == [set(), set()]
        procs = list(pool._processes.values())
        assert len(procs) == 2
        sleeping = submit_all(pool, time.sleep, [(60,)] * 3)
        assert wait_until(lambda: sleeping[0].running(), timeout=30)
    except BaseException:
        close_pool(pool, True)
        raise
    t0 = time.monotonic()
    close_pool(pool, True)
    assert time.monotonic() - t0 < STOP_WITHIN
    assert not any(p.is_alive() for p in procs)
    assert all(w._closed for w in cf_process._threads_wakeups.values())
    assert all(f.done() for f in sleeping)


def test_a_finished_training_pool_closes_without_ending_a_job():
    """close_pool(stopping=False), after the jobs: every result is kept, the processes
    have ended and the manager thread's wake-up pipe is closed."""
    from concurrent.futures import process as cf_process

    from fishing2sim.run.processes import close_pool, job_pool, submit_all

    pool = job_pool(2)
    futs = submit_all(pool, pow, [(2, k) for k in range(10)])
    procs = list(pool._processes.values())
    close_pool(pool, False)
    assert [f.result() for f in futs] == [2 ** k for k in range(10)]
    assert not any(p.is_alive() for p in procs)
    assert all(w._closed for w in cf_process._threads_wakeups.values())
