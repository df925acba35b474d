"""The classic engine run in-process on a joined submission: what a contest criterion is scored by.

Used by the scorer (perfeval.contest.score) and by the task loader's dry run of each criterion
(perfeval.contest.tasks), so that neither imports the other.
"""

from __future__ import annotations

import io

import numpy as np

from perfeval import _native as K
from perfeval.classic.engine import Classic, Out
from perfeval.classic.options import parse_options
from perfeval.classic.reader import Cases, parse_bytes


def classic_cases(cols: tuple):
    """The joined input as the classic reader stores it: target (and block id) texts read by the
    classic reader; the predictions already float32.
    """
    *texts, p = cols
    read = [
        parse_bytes(("\n".join(c) + "\n").encode(), pat, "the answer key")[0]
        for c, pat in zip(texts, "if" if len(texts) == 2 else "f", strict=False)
    ]
    return Cases(read[-1], K.copy(np.ascontiguousarray(p, np.float32)), read[0] if len(texts) == 2 else None)


def run_classic(argv: list[str], cases, blocks: bool) -> dict[str, float]:
    """Run the classic engine in this process on a copy of the cases; the printed values by label,
    in full precision: each is the double ``perf`` rounds to the digits it prints.
    """
    req = parse_options(argv)
    mine = Cases(K.copy(cases.targets), K.copy(cases.preds), cases.blocks)  # the engine sorts in place
    err = io.StringIO()
    out = Out(err=err.write)
    job = Classic(req, out)
    job.run_blocks(mine) if blocks else job.run_normal(mine)
    values = {}
    for line in b"".join(out.chunks).decode().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] not in values:
            values[parts[0]] = job.printed.get(
                parts[0], float("nan") if parts[1] == "-nan" else float(parts[1])
            )
    return values
