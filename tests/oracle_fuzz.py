#!/usr/bin/env python3
"""Differential fuzzing of the classic ``perf`` command against the original PERF 5.12 binary.

Generates random inputs (ties, class codings, out-of-range and tiny predictions, block mode, several
pairs per line, ...) and random option sets (including the original's value-swallowing quirks), runs
both programs and compares stdout, stderr and exit status byte for byte.  Cases where the original
crashes, spins or hits its item limit are not compared (those are this project's documented
deviations, covered by the golden suite).

The original binary is not part of this repository.  Point ``PERF_ORACLE`` at it (see
docs/compatibility.md for how to obtain and run it) and run::

    PERF_ORACLE=/path/to/perf python tests/oracle_fuzz.py --runs 5000 --seed 1

Exit status 0 when every compared run agrees; mismatching cases are written to ``--keep DIR``.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

MEASURE_FLAGS = [
    "-acc",
    "-rms",
    "-sen",
    "-spc",
    "-npv",
    "-ppv",
    "-roc",
    "-auc",
    "-r50",
    "-pre",
    "-rec",
    "-prf",
    "-prb",
    "-apr",
    "-cxe",
    "-rkl",
    "-lft",
    "-top1",
    "-top10",
    "-break_even",
    "-pr_breakeven",
]
GROUPS = ["-all", "-stats", "-easy", "-confusion", "-conf", "-table", "-loss"]
PLOTS = ["roc", "pr", "lift", "cost", "acc", "ROC", "precision", "calibration", "x"]


def fmt_num(rng: random.Random, x: float) -> str:
    if x != x or x in (float("inf"), float("-inf")):
        return rng.choice(["inf", "INF", "Infinity", "+inf"]) if x > 0 else rng.choice(["-inf", "-Infinity"])
    style = rng.random()
    if style < 0.03:
        return float(x).hex()
    if style < 0.06:
        return ("+" if math.copysign(1.0, x) > 0 else "") + repr(x)
    if style < 0.08 and x == int(x) and abs(x) < 1e15:
        return "%d." % x
    if style < 0.55:
        return "%.*f" % (rng.choice([1, 2, 3, 4, 6]), x)
    if style < 0.75:
        return repr(x)
    if style < 0.85:
        return "%.9g" % x
    if style < 0.92:
        return "%e" % x
    return "%.17g" % x


SPECIAL = [
    float("inf"),
    float("-inf"),
    1e30,
    -1e30,
    3.4e38,
    1e-40,
    1e-45,
    -0.0,
    0.0,
    1.0,
    0.5,
    0.1,
    2.0,
    0.999999,
    1.000001,
    1e-7,
]


def gen_predictions(rng: random.Random, n: int) -> list[float]:
    kind = rng.random()
    if kind < 0.06:  # special values mixed in
        return [rng.choice(SPECIAL) if rng.random() < 0.3 else rng.random() for _ in range(n)]
    if kind < 0.3:  # coarse: many ties
        k = rng.choice([1, 2])
        return [round(rng.random(), k) for _ in range(n)]
    if kind < 0.45:  # a few distinct values
        vals = [round(rng.random(), 3) for _ in range(rng.randint(1, 5))]
        return [rng.choice(vals) for _ in range(n)]
    if kind < 0.6:  # out of range (SVM-like margins)
        return [rng.gauss(0, 1.5) for _ in range(n)]
    if kind < 0.65:  # extremes
        return [rng.choice([0.0, 1.0, 0.5, 1e-20, 2e-20, 0.25, 0.75]) for _ in range(n)]
    if kind < 0.7:  # sorted (quicksort's worst case) or reversed
        xs = sorted(rng.random() for _ in range(n))
        return xs if rng.random() < 0.5 else xs[::-1]
    return [rng.random() for _ in range(n)]


def gen_targets(rng: random.Random, n: int, preds: list[float]) -> list[float]:
    coding = rng.choice([(0, 1)] * 6 + [(-1, 1), (2, 7), (0.1, 0.3)])
    rate = rng.choice([0.05, 0.2, 0.5, 0.8, 1.0, 0.0, rng.random()])
    out = []
    for p in preds:
        if rng.random() < 0.6:  # informative
            pos = rng.random() < min(1.0, max(0.0, p if 0 <= p <= 1 else 0.5 + p / 6))
        else:
            pos = rng.random() < rate
        out.append(coding[1] if pos else coding[0])
    if rng.random() < 0.02 and n > 2:
        out[rng.randrange(n)] = 0.5 * (coding[0] + coding[1])  # a third value
    return out


def gen_data(rng: random.Random, blocks: bool) -> str:
    n = rng.choice(
        [0, 1, 2, 3, 5, 10, 30, 100, 250, 400]
        + [rng.randint(1, 2000)] * 3
        + ([rng.randint(2000, 60000)] if rng.random() < 0.05 else [])
    )
    preds = gen_predictions(rng, n)
    targets = gen_targets(rng, n, preds)
    lines = []
    sep = rng.choice([" ", "\t", "  ", " \t"])
    nb = rng.randint(1, 6)
    for t, p in zip(targets, preds, strict=False):
        fields = [fmt_num(rng, t) if isinstance(t, float) and t != int(t) else str(int(t)), fmt_num(rng, p)]
        if blocks:
            fields.insert(0, str(rng.choice([rng.randint(1, nb), rng.randint(-3, 300)])))
        lines.append(sep.join(fields))
    if not blocks and rng.random() < 0.1 and len(lines) > 3:  # several pairs per line
        merged = []
        while lines:
            k = rng.randint(1, 3)
            merged.append(" ".join(lines[:k]))
            lines = lines[k:]
        lines = merged
    end = rng.choice(["\n", "\r\n", "\t\n"])
    text = end.join(lines)
    if lines and rng.random() < 0.9:
        text += end
    return text


#: (upper end of the draw, how the option is drawn): the mix of options one argument is made of
_OPTION_DRAWS = [
    (0.45, lambda rng: [rng.choice(MEASURE_FLAGS)]),
    (0.6, lambda rng: [rng.choice(GROUPS)]),
    (
        0.68,
        lambda rng: [
            rng.choice(["-t", "-thresh", "-threshold"]),
            rng.choice(
                [
                    "0.5",
                    "0.3",
                    "0",
                    "0.75",
                    "-1",
                    "abc",
                    "1",
                    "inf",
                    "-inf",
                    "1e-300",
                    "-0",
                    "0x1p-1",
                    ".5",
                    "0.5abc",
                    "nan",
                ]
            ),
        ],
    ),
    (0.73, lambda rng: ["-percent", rng.choice(["0", "10", "25", "14.1", "50", "100", "33.3"])]),
    (0.78, lambda rng: ["-plot", rng.choice(PLOTS)]),
    (0.82, lambda rng: ["-ntop", rng.choice(["1", "3", "2.999", "10", "20", "0"])]),
    (0.85, lambda rng: [rng.choice(["-nrm", "-norm"]), rng.choice(["1", "2", "3", "0.5", "0"])]),
    (0.88, lambda rng: ["-slq", rng.choice(["0.01", "0.1", "0.3", "0.05", "0.001", "0.0009", "-1"])]),
    (0.91, lambda rng: ["-cal", rng.choice(["1", "3", "10", "100", "2.5"])]),
    (0.94, lambda rng: ["-sar", *rng.choice([["1", "1", "1"], ["1", "2", "3"], ["0", "1", "0"]])]),
    (
        0.97,
        lambda rng: [
            "-cost",
            *rng.choice([["1", "2", "3", "4"], ["0", "1", "5", "0"], ["-1", "0", "0", "1"]]),
        ],
    ),
    # the original's quirks: a value option swallowing the next option
    (
        1.01,
        lambda rng: rng.choice(
            [
                ["-plot", "-acc"],
                ["-t", "-blocks", "-apr"],
                ["-t", "-cost", "1", "2", "3", "4"],
                ["-ACC"],
                ["-Roc"],
                ["-ntop", "-rms", "-roc"],
            ]
        ),
    ),
]


def gen_args(rng: random.Random) -> tuple[list[str], bool]:
    if rng.random() < 0.15:
        return _block_args(rng), True
    args: list[str] = []
    for _ in range(rng.choice([0, 0, 1, 2, 3, 5])):
        r = rng.random()
        args += next(draw for limit, draw in _OPTION_DRAWS if r < limit)(rng)
    if rng.random() < 0.05:
        args = [a.upper() if a.startswith("-") else a for a in args]
    return args, False


def _block_args(rng: random.Random) -> list[str]:
    args = ["-blocks", *rng.sample(["-apr", "-rkl", "-rms", "-top1"], rng.randint(1, 4))]
    if rng.random() < 0.2:
        args += ["-plot", rng.choice(PLOTS)]
    if rng.random() < 0.1:
        args += [rng.choice(["-roc", "-acc"])]  # error case
    rng.shuffle(args)
    return args


def run(cmd: list[str], data: bytes, cwd: str) -> tuple[bytes, bytes, int] | None:
    try:
        r = subprocess.run(cmd, input=data, capture_output=True, cwd=cwd, timeout=60)
    except subprocess.TimeoutExpired:
        return None
    return r.stdout, r.stderr, r.returncode


def comparable(orig: tuple[bytes, bytes, int] | None) -> bool:
    """Runs the project deliberately does differently are not compared."""
    if orig is None:
        return False
    out, _err, status = orig
    return status in (0, 1, 255) and b"Aborting." not in out


def same_usage_error(orig, mine) -> bool:
    """An unrecognised option: the first line and the status must agree; the help text is our own."""
    if orig is None or mine is None or b"Error: Unrecognized program option" not in orig[0]:
        return False
    first = lambda out: next((ln for ln in out.splitlines() if ln.strip()), b"")  # noqa: E731
    return first(orig[0]) == first(mine[0]) and orig[2] == mine[2] and orig[1] == mine[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--oracle", default=os.environ.get("PERF_ORACLE"), help="the original perf binary")
    ap.add_argument("--perf", default=shutil.which("perf") or "perf", help="the perf command under test")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", default="fuzz-mismatches", help="where to write mismatching cases")
    a = ap.parse_args()
    if not a.oracle or not os.path.exists(a.oracle):
        print("no original binary: set PERF_ORACLE or pass --oracle", file=sys.stderr)
        return 2
    ok, compared, skipped, bad = fuzz(a.oracle, a.perf, a.runs, a.seed, a.keep)
    print(f"{ok} passed, {bad} failed, {skipped} skipped")
    return 0 if bad == 0 else 1


GOLDEN_INPUTS = os.environ.get(
    "PERF_GOLDEN_INPUTS",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "inputs"),
)
#: the official KDD Cup 2004 sample files: real competition data for a share of the runs
REAL = {
    False: ["testperfdata", "badtestperfdata", "phy_perf_sample_test.dat", "bad_phy_perf_sample_test.dat"],
    True: ["bio_perf_sample_test.dat", "bad_bio_perf_sample_test.dat"],
}


def real_data(rng: random.Random, blocks: bool) -> bytes | None:
    names = [n for n in REAL[blocks] if os.path.exists(os.path.join(GOLDEN_INPUTS, n))]
    if not names:
        return None
    with open(os.path.join(GOLDEN_INPUTS, rng.choice(names)), "rb") as fh:
        return fh.read()


def fuzz(oracle: str, perf: str, runs: int, seed: int, keep: str | None) -> tuple[int, int, int, int]:
    rng = random.Random(seed)
    ok = compared = skipped = bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            args, blocks = gen_args(rng)
            blocks = blocks or any(x.lower() == "-blocks" for x in args)
            text = (real_data(rng, blocks) if rng.random() < 0.1 else None) or gen_data(rng, blocks).encode()
            mode = rng.random()
            if mode < 0.08:  # -files: one value (block mode: "block target") a line, both files complete
                rows = [ln.split() for ln in text.decode().splitlines() if ln.strip()]
                rows = [r for r in rows if len(r) == (3 if blocks else 2)]
                with open(os.path.join(tmp, "t.txt"), "w") as fh:
                    fh.writelines(" ".join(r[:-1]) + "\n" for r in rows)
                with open(os.path.join(tmp, "p.txt"), "w") as fh:
                    fh.writelines(r[-1] + "\n" for r in rows)
                args = args + ["-files", "t.txt", "p.txt"]
                stdin = b""
            elif mode < 0.18:
                with open(os.path.join(tmp, "data.txt"), "wb") as fh:
                    fh.write(text)
                args = args + ["-file", "data.txt"]
                stdin = b""
            else:
                stdin = text
            orig = run([oracle, *args], stdin, tmp)
            if not comparable(orig):
                skipped += 1
                continue
            mine = run([perf, *args], stdin, tmp)
            compared += 1
            if mine == orig or same_usage_error(orig, mine):
                ok += 1
                continue
            bad += 1
            if keep:
                os.makedirs(keep, exist_ok=True)
                base = os.path.join(keep, f"case{seed}_{i}")
                with open(base + ".in", "wb") as fh:
                    fh.write(text)
                with open(base + ".args", "w") as fh:
                    fh.write(" ".join(args) + "\n")
            print(f"MISMATCH run {i}: perf {' '.join(args)}", file=sys.stderr)
    return ok, compared, skipped, bad


if __name__ == "__main__":
    sys.exit(main())
