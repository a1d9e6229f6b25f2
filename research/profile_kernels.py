"""Where the engine's time goes: a sampling profile of the compiled kernels, per function.

    python research/profile_kernels.py                         # 4 x random, Fishing 2
    python research/profile_kernels.py --lineup greedy,greedy,greedy,greedy --games 30000
    python research/profile_kernels.py --ruleset fishing --top 30

Needs Linux `perf` (Debian: linux-perf). perf cannot name numba's compiled code by itself:
the games run in a child process that compiles the kernels afresh (an empty numba cache in
a temporary folder, so the compiled modules are in memory), writes the address of every
compiled function, and plays the games under `perf record`; the samples are then assigned
to functions by address. Functions that LLVM inlined are counted in their caller.
Shares are of the samples inside compiled code (the Python around a batch is not counted).
"""
from __future__ import annotations

import argparse
import bisect
import collections
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import gc, json, sys, time
from fishing2sim.api import run_games
from fishing2sim.engine.batch import G_PLAYS
lineup, games, ruleset, map_path, code_path, code_path_target = json.loads(sys.argv[1])
run_games(20, len(lineup), seed=0, strategies=lineup, ruleset=ruleset)
from numba.core.registry import CPUDispatcher
addrs = {}
for obj in gc.get_objects():
    if isinstance(obj, CPUDispatcher):
        for cres in obj.overloads.values():
            lib = cres.library
            for f in lib._final_module.functions:
                if f.is_declaration:
                    continue
                try:
                    a = lib.get_pointer_to_function(f.name)
                except Exception:
                    continue
                if a:
                    addrs[a] = f.name
with open(map_path, "w") as fh:
    for a, name in sorted(addrs.items()):
        fh.write(f"{a:x} {name}\n")
if code_path:  # --annotate: the machine code of the named functions, for objdump
    import ctypes
    maps = []
    with open("/proc/self/maps") as fh:
        for line in fh:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            maps.append((lo, hi))
    starts = sorted(addrs)
    with open(code_path, "wb") as fh:
        for i, a in enumerate(starts):
            if code_path_target not in addrs[a]:
                continue
            end = starts[i + 1] if i + 1 < len(starts) else a + (1 << 16)
            end = min([end, a + (1 << 16)] + [hi for lo, hi in maps if lo <= a < hi])
            fh.write(a.to_bytes(8, "little") + (end - a).to_bytes(8, "little"))
            fh.write(ctypes.string_at(a, end - a))
t = time.perf_counter()
a = run_games(games, len(lineup), seed=1, strategies=lineup, ruleset=ruleset)
dt = time.perf_counter() - t
print(games / dt, int(a["int"][:, G_PLAYS].sum()) / games)
"""


def readable(symbol: str) -> str:
    """fishing2sim.engine.core.play_trick from a mangled numba symbol (_ZN, then
    length-prefixed names up to numba's B<n> suffix)."""
    cfunc = symbol.startswith("cfunc.")
    rest = symbol[len("cfunc."):] if cfunc else symbol
    if not rest.startswith("_ZN"):
        return symbol[:60]
    rest = rest[3:]
    parts = []
    while rest and rest[0].isdigit():
        k = 0
        while k < len(rest) and rest[k].isdigit():
            k += 1
        size = int(rest[:k])
        parts.append(rest[k:k + size])
        rest = rest[k + size:]
    return ("cfunc " if cfunc else "") + ".".join(parts)


def profile(lineup: list, games: int, ruleset: str = "fishing2", frequency: int = 4000,
            annotate: str = ""):
    """Play ``games`` games of ``lineup`` under ``perf record`` in a fresh process; returns
    (games/s under perf, card plays per game, Counter of samples per compiled function,
    samples in compiled code); with ``annotate`` (a part of a function's name, e.g.
    ``_fill_above``) also prints that function's machine code with its samples per
    instruction."""
    import json

    with tempfile.TemporaryDirectory() as tmp:
        map_path = os.path.join(tmp, "functions.map")
        code_path = os.path.join(tmp, "code.bin") if annotate else ""
        data = os.path.join(tmp, "perf.data")
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "numba"))
        child = os.path.join(tmp, "child.py")
        with open(child, "w") as fh:
            fh.write(CHILD)
        run = subprocess.run(
            ["perf", "record", "-q", "-F", str(frequency), "-o", data, "--", sys.executable,
             child, json.dumps([lineup, games, ruleset, map_path, code_path, annotate])],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            text=True)
        if run.returncode != 0:
            sys.exit(f"perf record failed: {run.stderr.strip()[-800:]}")
        rate, plays = (float(x) for x in run.stdout.strip().splitlines()[-1].split())
        rows = []
        with open(map_path) as fh:
            for line in fh:
                a, name = line.split(None, 1)
                rows.append((int(a, 16), name.strip()))
        starts = [a for a, _ in rows]
        ips = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True,
                             text=True).stdout.split()
        if annotate:
            _annotate(code_path, ips, tmp)
    counts = collections.Counter()
    total = 0
    for x in ips:
        a = int(x, 16)
        i = bisect.bisect_right(starts, a) - 1
        # a sample belongs to the nearest function below it, if that is within 1 MiB
        if i >= 0 and a - starts[i] < (1 << 20):
            counts[readable(rows[i][1])] += 1
            total += 1
    return rate, plays, counts, total


def _annotate(code_path: str, ips: list, tmp: str):
    """Print each dumped function's hottest instructions (objdump), samples per line."""
    hits = collections.Counter(int(x, 16) for x in ips)
    with open(code_path, "rb") as fh:
        data = fh.read()
    at = 0
    while at < len(data):
        start = int.from_bytes(data[at:at + 8], "little")
        size = int.from_bytes(data[at + 8:at + 16], "little")
        code = data[at + 16:at + 16 + size]
        at += 16 + size
        path = os.path.join(tmp, "f.bin")
        with open(path, "wb") as fh:
            fh.write(code)
        asm = subprocess.run(["objdump", "-D", "-b", "binary", "-mi386:x86-64",
                              f"--adjust-vma={start:#x}", path], capture_output=True,
                             text=True).stdout.splitlines()
        lines = []
        for line in asm:
            head = line.split(":", 1)[0].strip()
            try:
                a = int(head, 16)
            except ValueError:
                continue
            lines.append((a, line.split("\t")[-1].strip()))
        inside = sum(hits[a] for a in range(start, start + size))
        print(f"\n{start:#x}, {size} bytes, {inside} samples")
        for a, text in lines:
            print(f"{hits[a]:6d} {a - start:6x}  {text}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lineup", default="random,random,random,random")
    ap.add_argument("--games", type=int, default=40000)
    ap.add_argument("--ruleset", default="fishing2")
    ap.add_argument("--frequency", type=int, default=4000)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--annotate", default="", metavar="NAME",
                    help="also print the machine code of the functions whose symbol "
                         "contains NAME, with the samples of each instruction")
    args = ap.parse_args(argv)
    lineup = args.lineup.split(",")
    rate, _, counts, total = profile(lineup, args.games, args.ruleset, args.frequency,
                                     args.annotate)
    print(f"{','.join(lineup)}, {args.ruleset}: {rate:,.0f} games/s under perf; "
          f"{total} samples in compiled code\n")
    print("| function | share |")
    print("|---|---:|")
    for name, k in counts.most_common(args.top):
        print(f"| {name} | {100 * k / max(total, 1):.1f} % |")


if __name__ == "__main__":
    main()
