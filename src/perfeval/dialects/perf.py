"""The ``perf`` dialect: PERF 5.12's numbers through the modern API.

The scores and targets are read as PERF reads them (float32), PERF's options are formed from the
measure specs (``-t`` for the threshold, ``-ntop N``, ``-sar wacc wroc wrms``, ``-cost``, ``-nrm P``,
``-slq W``, ``-cal S``), and the classic engine (:mod:`perfeval.classic.values`) computes them with
every quirk and its 80-bit arithmetic: the values are what ``perf`` prints, before rounding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval.base.checks import Cases
from perfeval.classic.values import values
from perfeval.engine.report import MeasureResult, Report
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import MeasureSpec


def _options(specs: list[MeasureSpec], threshold: float) -> list[str]:
    argv: list[str] = []
    thresholds = {s.kwargs["threshold"] for s in specs if "threshold" in s.kwargs}
    if len(thresholds) > 1:
        raise InvalidParameterError(
            f"the perf dialect has one threshold for every measure (PERF's -t), got {sorted(thresholds)}"
        )
    thr = thresholds.pop() if thresholds else threshold
    for s in specs:
        m, kw = s.measure, s.kwargs
        if not m.perf_options:
            raise InvalidParameterError(
                f"dialect perf does not define {s.label} (PERF 5.12 has no such measure); dialects that "
                "do: perfeval"
            )
        name = m.name
        if name == "SAR":
            argv += ["-sar", repr(kw["w_acc"]), repr(kw["w_roc"]), repr(kw["w_rms"])]
        elif name == "CST":
            argv += ["-cost", *(repr(kw[k]) for k in ("tp", "fn", "fp", "tn"))]
        elif name == "NTOP":
            argv += ["-ntop", str(int(kw["n"]))]
        elif name == "NRM":
            argv += ["-nrm", repr(kw["p"])]
        elif name == "SLQ":
            argv += ["-slq", repr(1.0 / kw["bins"])]
        elif name in ("CA1", "CA2"):
            argv += ["-cal", str(int(kw.get("window", 100)))]
        elif name == "R50" and kw["negatives"] != 50:
            raise InvalidParameterError("PERF's R50 counts 50 negatives; the perf dialect has no other")
        else:
            argv.append(m.perf_options[0])
    return [*argv, "-t", repr(float(thr))]


#: the measures PERF finishes from the sorted predictions and each tie's share of positives (its
#: "fractions") or from counts at the threshold: none reads the order PERF's quicksort leaves inside
#: ties (which decides max_acc_thresh, CA2, and the last bits of RMS, CXE, NRM, SLQ, CA1 and SAR)
ORDER_FREE = frozenset(
    {
        "ACC",
        "PPV",
        "NPV",
        "SEN",
        "SPC",
        "PRE",
        "REC",
        "PRF",
        "LFT",
        "CST",
        "PRB",
        "APR",
        "ROC",
        "R50",
        "RKL",
        "TOP1",
        "TOP10",
        "NTOP",
    }
)


def check_specs(specs: list[MeasureSpec], threshold: float, pos_label: Any) -> list[str]:
    """PERF's options for the specs (a measure PERF has not, refused), and no positive label."""
    argv = _options(specs, threshold)  # a measure PERF has not: said first
    if pos_label is not None:
        raise InvalidParameterError("the perf dialect reads the targets as PERF does: no pos_label")
    return argv


def refuse_groups_and_weights(grouped: bool, weighted: bool) -> None:
    if grouped or weighted:
        raise InvalidParameterError("the perf dialect takes neither groups nor weights (PERF has none)")


def evaluate_perf(cases: Cases, specs: list[MeasureSpec], *, threshold: float, pos_label: Any) -> Report:
    """The measures as ``perf`` computes them (float32 input, PERF's rules), unrounded."""
    argv = _options(specs, threshold)  # a measure PERF has not: said first
    refuse_groups_and_weights(cases.g is not None, cases.w is not None)
    check_specs(specs, threshold, pos_label)
    y = np.asarray(cases.y)
    if y.dtype.kind not in "iufb":
        raise InvalidParameterError("the perf dialect needs numeric targets (PERF reads numbers)")
    t32, p32 = y.astype(np.float32), np.asarray(cases.s).astype(np.float32)
    # measures that do not read the order inside ties need not PERF's quicksort (1.1 s at 10M rows):
    # a radix sort (_native.sort_by_pred) gives them the same bits
    fast = all(s.measure.name in ORDER_FREE for s in specs)
    got, _warnings = values(t32.tobytes(), p32.tobytes(), argv, any_tie_order=fast)
    results = {
        s.label: MeasureResult(s.label, float(got.get(s.measure.name, np.nan)), s.direction) for s in specs
    }
    params = {
        "threshold": threshold,
        "rows": int(cases.rows_in),
        "groups": None,
        "weighted": False,
        "partitions": None,
        "ties": "PERF 5.12's (float32 scores; half credit in ROC; APR over the tie's orders)",
        "tie_rule": "dialect=perf",
        "dialect": "perf",
        "pos_label": None,
        "backend": "memory",
    }
    return Report(results, None, params)
