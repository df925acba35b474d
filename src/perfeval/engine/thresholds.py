"""An operating point's threshold beside its value: each measure that picks an operating point (its
``of`` parameter at ``value``: TPR_AT_FPR, YOUDEN, ...) is finished with its ``of=threshold`` twin,
and the twin's result is set on the value's (``MeasureResult.threshold``, per group
``threshold_per_group``), then taken out of the report unless it was asked.

The value and its twin read one choice of point (:mod:`perfeval.measures.operating` keeps the
choice with the summary, or with the groups), so the threshold costs a lookup, not a second
choice.  Every front door that finishes from the engine does this: :func:`perfeval.evaluate` (in
memory, :func:`perfeval.engine.finish`), the streamed and Dask summaries
(:func:`perfeval.engine.binary_report`), the grouped streams and Dask's groups (at their doors),
and the ``eval`` command.
"""

from __future__ import annotations

from typing import Any

from perfeval.measures.spec import MeasureSpec

#: (the value's label, its twin's label, whether the twin was added: not asked)
Pair = tuple[str, str, bool]


def threshold_companions(specs: list[MeasureSpec]) -> tuple[list[Pair], list[MeasureSpec]]:
    """For each binary measure of ``specs`` that picks an operating point (its ``of`` parameter at
    ``value``), the same measure with ``of=threshold``: (the pairs (value label, threshold label,
    added), the specs added: those not asked already, marked ``companion``).
    """
    asked = {s.label for s in specs}
    pairs, added = [], []
    for s in specs:
        if s.measure.kind != "binary" or s.kwargs.get("of") != "value":
            continue
        twin = MeasureSpec(s.measure, tuple({**s.kwargs, "of": "threshold"}.items()))
        object.__setattr__(twin, "_set", s._set | {"of"})
        object.__setattr__(twin, "companion", True)
        pairs.append((s.label, twin.label, twin.label not in asked))
        if twin.label not in asked:
            added.append(twin)
            asked.add(twin.label)
    return pairs, added


def with_thresholds(report: Any, pairs: list[Pair]) -> Any:
    """Each operating point's threshold set on its value's result (``threshold``; per group
    ``threshold_per_group``, the headline's ``threshold`` left None: the groups' points differ), the
    twins added by :func:`threshold_companions` taken out of the report (partitions too:
    ``LABEL[name]``).  Returns the report.
    """
    for value, twin, added in pairs:
        for key in [k for k in report.results if k == twin or k.startswith(twin + "[")]:
            r = report.results.pop(key) if added else report.results[key]
            v = report.results.get(value + key[len(twin) :])
            if v is None:
                continue
            if r.per_group is not None:
                v.threshold_per_group = r.per_group
            else:
                v.threshold = r.value
        if added and report.intervals:  # drawn for the twin too: not asked, not shown
            for key in [k for k in report.intervals if k == twin or k.startswith(twin + "[")]:
                del report.intervals[key]
    return report
