#!/usr/bin/env python3
"""Reading a CSV with a string column: perfeval's table reader against its all-numeric read.

Run by hand (never in CI):

    python benchmarks/bench_csv_read.py --runs 3 [--src before=/path/to/old/src] [--src after=src]

Data (made once into benchmarks/data/csv/, seeded, written by pandas ``to_csv(index=False)``):
1,000,000 rows of ``user,item,y,score``: ``str.csv`` with string user ids (``u12345``, 100,000 of
them), ``num.csv`` the same with the ids as integers (``12345``), ``quoted.csv`` the string one
written with ``quoting=csv.QUOTE_NONNUMERIC`` (every string quoted, as R's write.csv does); item
int64 ids above 2^53, y 0/1, score float64, every one distinct (``repr``, 17 digits).

Measured, each in a fresh process, the variants and files interleaved round by round (the machine
may be loaded: CPU time, user + sys of every thread, is given beside the wall time):

* ``read_table(FILE, identity=user)`` (the whole-file reader of ``perfeval eval``, user as the group
  column), after one warm-up read in the same process;
* ``perfeval eval FILE --target y --score score --group user -m gauc``, the whole command;
* peers, in the same rounds: ``pandas.read_csv`` and ``pyarrow.csv.read_csv`` (its default
  inference and threads).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "csv"
N = 1_000_000
FILES = ("num.csv", "str.csv", "quoted.csv")

INNER = r"""
import json, sys, time
what, path = sys.argv[1], sys.argv[2]
if what == "perfeval":
    from perfeval.io.readers import read_table
    read = lambda: read_table(path, identity=lambda names, header: [0])
elif what == "pandas":
    import pandas as pd
    read = lambda: pd.read_csv(path)
else:
    import pyarrow.csv as pc
    read = lambda: pc.read_csv(path)
read()  # warm-up
w, c = time.perf_counter(), time.process_time()
read()
print(json.dumps([time.perf_counter() - w, time.process_time() - c]))
"""


def make_data() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    if all((DATA / f).exists() for f in FILES):
        return
    import csv

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(17)
    users = rng.integers(0, 100_000, N)
    item = rng.integers(2**53, 2**62, N, dtype=np.int64)
    y = rng.integers(0, 2, N)
    score = rng.random(N)
    frame = {"user": users, "item": item, "y": y, "score": score}
    pd.DataFrame(frame).to_csv(DATA / "num.csv", index=False)
    strings = pd.DataFrame({**frame, "user": [f"u{u}" for u in users.tolist()]})
    strings.to_csv(DATA / "str.csv", index=False)
    strings.to_csv(DATA / "quoted.csv", index=False, quoting=csv.QUOTE_NONNUMERIC)


def inner(src: str | None, what: str, path: Path) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=src) if src else dict(os.environ)
    out = subprocess.run(
        [sys.executable, "-c", INNER, what, str(path)], env=env, check=True, capture_output=True, text=True
    ).stdout
    wall, cpu = json.loads(out)
    return wall, cpu


def command(src: str, path: Path) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=src)
    argv = [sys.executable, "-m", "perfeval", "eval", str(path)]
    argv += ["--target", "y", "--score", "score", "--group", "user", "-m", "gauc"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - w
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--src", action="append", default=[], help="NAME=PATH of a perfeval src folder")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--no-command", action="store_true")
    args = ap.parse_args()
    make_data()
    srcs = [tuple(s.split("=", 1)) for s in args.src] or [("this", str(HERE.parent / "src"))]
    jobs = []
    for name, src in srcs:
        for f in FILES:
            jobs.append((f"read_table {name}", f, lambda src=src, f=f: inner(src, "perfeval", DATA / f)))
            if not args.no_command:
                jobs.append((f"perfeval eval {name}", f, lambda src=src, f=f: command(src, DATA / f)))
    if not args.no_peers:
        for peer in ("pandas", "pyarrow"):
            for f in FILES:
                jobs.append((f"{peer}.read_csv", f, lambda peer=peer, f=f: inner(None, peer, DATA / f)))
    times: dict[tuple[str, str], list[tuple[float, float]]] = {(j[0], j[1]): [] for j in jobs}
    for _ in range(args.runs):
        for label, f, job in jobs:
            times[(label, f)].append(job())
    print("| what | file | median wall s | median CPU s (user+sys) | runs wall (s) |")
    print("|---|---|---|---|---|")
    for (label, f), ts in times.items():
        wall = statistics.median(t[0] for t in ts)
        cpu = statistics.median(t[1] for t in ts)
        runs = " ".join(f"{t[0]:.3f}" for t in ts)
        print(f"| {label} | {f} | {wall:.3f} | {cpu:.3f} | {runs} |")


if __name__ == "__main__":
    main()
