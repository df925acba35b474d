"""Grouped streaming of a ~5 GB text file: one huge group, and 10 million small groups.

    python benchmarks/bench_grouped_stream.py [--gb 5] [--runs 3] [--keep] [--files huge,small]
                                              [--commands grouped,ranking,plain]

Writes (once, kept under benchmarks/data/ unless removed) two files of `target score group`
lines with 6-decimal scores (at most a million distinct values, as in bench_stream.py):

- huge.txt:  every row in group 1;
- small.txt: 10,000,000 groups (64-bit integer ids of 10 digits, in random order), about 25 rows each.

Then runs, each in a fresh process, median of ``--runs``:

- ``perfeval eval FILE --stream --group 3 -m gauc,roc,apr,rms`` (per group, spilled by group);
- ``perfeval eval FILE --stream --group 3 -m ndcg@10,map,mrr,gauc`` (per-query measures);
- ``perfeval eval FILE --stream -m roc,apr,rms`` (the plain stream, no groups), for rows/s beside it.

It reports wall time, rows/s, the process's peak RSS (wait4) and the spill's peak size on disk
(TMPDIR set to a fresh directory, polled every 0.2 s).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
PERFEVAL = str(Path(sys.executable).parent / "perfeval")


def _digits(v: np.ndarray, width: int) -> np.ndarray:
    """The decimal digits of non-negative integers, zero-padded to `width`, as an (n, width) uint8 array."""
    out = np.empty((len(v), width), np.uint8)
    x = v.astype(np.int64)
    for i in range(width - 1, -1, -1):
        out[:, i] = 48 + x % 10
        x //= 10
    return out


def write(path: Path, target_bytes: float, huge: bool, seed: int = 0) -> int:
    """Write the file in blocks of 4M lines; returns the number of lines."""
    rng = np.random.default_rng(seed)
    block = 4_000_000
    rows = 0
    with open(path, "wb") as fh:
        while fh.tell() < target_bytes:
            t = rng.integers(0, 2, block)
            s = rng.integers(0, 1_000_000, block)
            cols = [
                (48 + t).astype(np.uint8)[:, None],
                np.full((block, 1), 32, np.uint8),
                np.frombuffer(b"0.", np.uint8)[None, :].repeat(block, 0),
                _digits(s, 6),
                np.full((block, 1), 32, np.uint8),
            ]
            if huge:
                cols.append(np.full((block, 1), ord("1"), np.uint8))
            else:
                cols.append(
                    _digits(1_000_000_000 + rng.integers(0, 10_000_000, block) * 97, 10)
                )  # 10M int64 ids
            cols.append(np.full((block, 1), 10, np.uint8))
            fh.write(np.hstack(cols).tobytes())
            rows += block
    return rows


def _du(path: str) -> int:
    total = 0
    for dp, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.stat(os.path.join(dp, f)).st_size
            except OSError:
                pass
    return total


def run(cmd: list[str]) -> tuple[float, int, int, str]:
    """(seconds, peak RSS in bytes, peak spill bytes, stdout) of one fresh process."""
    tmp = tempfile.mkdtemp(prefix="bench-spill-", dir=str(DATA))
    env = dict(os.environ, TMPDIR=tmp)
    peak = [0]
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _du(tmp))
            time.sleep(0.2)

    th = threading.Thread(target=poll, daemon=True)
    th.start()
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read().decode()
    err = p.stderr.read().decode()
    _pid, status, usage = os.wait4(p.pid, 0)
    secs = time.perf_counter() - t0
    done.set()
    th.join()
    shutil.rmtree(tmp, ignore_errors=True)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({status}): {err.strip()[-500:]}")
    return secs, usage.ru_maxrss * 1024, peak[0], out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gb", type=float, default=5.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the data files")
    ap.add_argument("--files", default="huge,small", help="which files: huge, small or both")
    ap.add_argument(
        "--commands", default="grouped,ranking,plain", help="which commands: grouped, ranking, plain"
    )
    a = ap.parse_args()
    DATA.mkdir(exist_ok=True)
    files = {}
    for name, huge in [(n, n == "huge") for n in a.files.split(",")]:
        path = DATA / f"grouped_{name}_{a.gb:g}gb.txt"
        if not path.exists():
            t0 = time.perf_counter()
            rows = write(path, a.gb * 1e9, huge)
            print(
                f"wrote {path.name}: {path.stat().st_size / 1e9:.2f} GB, {rows:,} rows, "
                f"{time.perf_counter() - t0:.0f} s",
                flush=True,
            )
        files[name] = path
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}")
    print("| file | command | median s | runs (s) | rows/s | peak RSS | peak spill | input |")
    print("|---|---|---|---|---|---|---|---|")
    for name, path in files.items():
        size = path.stat().st_size
        with open(path, "rb") as fh:
            width = len(fh.readline())
        rows = size // width
        commands = {
            "grouped": (
                "grouped: --stream --group 3 -m gauc,roc,apr,rms",
                [PERFEVAL, "eval", str(path), "--stream", "--group", "3", "-m", "gauc,roc,apr,rms"],
            ),
            "ranking": (
                "ranking: --stream --group 3 -m ndcg@10,map,mrr,gauc",
                [PERFEVAL, "eval", str(path), "--stream", "--group", "3", "-m", "ndcg@10,map,mrr,gauc"],
            ),
            "plain": (
                "plain: --stream -m roc,apr,rms",
                [PERFEVAL, "eval", str(path), "--stream", "-m", "roc,apr,rms"],
            ),
        }
        for label, cmd in [commands[c] for c in a.commands.split(",")]:
            results = [run(cmd) for _ in range(a.runs)]
            secs = [r[0] for r in results]
            med = statistics.median(secs)
            print(
                f"| {name} | {label} | {med:.1f} | {' '.join(f'{x:.1f}' for x in secs)} | "
                f"{rows / med / 1e6:.2f} M | {max(r[1] for r in results) / 2**20:,.0f} MiB | "
                f"{max(r[2] for r in results) / 1e9:.2f} GB | {size / 1e9:.2f} GB |",
                flush=True,
            )
    if not a.keep:
        for path in files.values():
            path.unlink()


if __name__ == "__main__":
    main()
