"""``perfeval.spark.explain``: Spark's own binned numbers beside the exact ones, as the table of
:func:`perfeval.explain` (docs/spark.md): perfeval's exact ROC and AP of a PySpark DataFrame, the
``spark`` dialect finished from the same merged summary, and Spark's ``BinaryClassificationEvaluator``
run in the frame's session, with what binning cost under it.  pyspark is imported when called.
"""

from __future__ import annotations

from typing import Any

from perfeval.api.explanation import Cell, Explanation
from perfeval.backends.spark import binning
from perfeval.engine import resolve
from perfeval.exceptions import InvalidParameterError


def explained(measures: Any) -> list:
    """The measures :func:`explain_spark` takes (ROC and AP: Spark's evaluator's areaUnderROC and
    areaUnderPR), resolved; any other is one line.
    """
    specs = resolve(measures, 0.5)
    for s in specs:
        if s.label not in ("ROC", "AP"):
            raise InvalidParameterError(
                f"explain on Spark: {s.label} is not among Spark's BinaryClassificationEvaluator's "
                "measures (roc: areaUnderROC, ap: areaUnderPR)"
            )
    return specs


def explain_spark(
    df: Any,
    *,
    target: str,
    score: str,
    weight: str | None = None,
    measures: Any = ("roc", "ap"),
    num_bins: int = 1000,
) -> Any:
    """:func:`perfeval.explain` of a Spark DataFrame: perfeval's exact ROC and AP
    (:func:`evaluate_spark`), the ``spark`` dialect's value finished from the same merged summary
    (Spark's rule over one partition of its sorted scores), and Spark's own
    ``BinaryClassificationEvaluator(numBins=num_bins)`` run on ``df`` in its session, a row each;
    under Spark's row, what binning cost on these data and that its binned number depends on its
    partitioning.

    Raises
    ------
    InvalidParameterError
        A measure other than ROC and AP (Spark's evaluator has areaUnderROC and areaUnderPR), a
        negative ``num_bins``, a column that is not in the frame.
    """
    if num_bins < 0:
        raise InvalidParameterError(f"num_bins={num_bins}: Spark's numBins is 0 (no binning) or more")
    specs = explained(measures)
    got = binning(df, target=target, score=score, weight=weight, num_bins=num_bins)
    rows = {name: (exact, own, ours) for name, exact, own, ours in got.rows}
    labels = [s.label for s in specs]
    dialect, tool = f"spark:numBins={num_bins}", f"Spark numBins={num_bins}"
    parts = int(df.sparkSession.sparkContext.defaultParallelism)
    run = got.distinct // num_bins if num_bins else 0
    merged = (
        f"distinct scores merged in runs of {run} into {-(-got.distinct // run)} thresholds "
        f"(numBins={num_bins}) [{got.distinct} distinct scores]"
        if run >= 2
        else f"every distinct score a threshold (fewer than 2 x numBins={num_bins}) "
        f"[{got.distinct} distinct scores]"
    )
    cells: dict[str, dict[str, Any]] = {"perfeval": {}, dialect: {}, tool: {}}
    for m in labels:
        exact, own, ours = rows[m]
        cells["perfeval"][m] = Cell(exact)
        cells[dialect][m] = Cell(ours, rules=[f"{merged}, over one partition of the sorted scores"])
        rules = []
        if run >= 2:
            rules.append(
                f"what binning cost here: Spark - exact = {own - exact:.3g}"
                + (" (its binning and its trapezoids together)" if m == "AP" else "")
            )
        rules.append(
            f"BinaryClassificationEvaluator run in this session: Spark sorts the distinct scores into "
            f"partitions (spark.default.parallelism: {parts} here) and merges runs within each apart, so "
            f"its binned number depends on its partitioning [Spark - spark dialect = {own - ours:.3g}]"
        )
        if m == "AP":
            rules.append("areaUnderPR: the trapezoid area under the PR curve, not average precision")
        cells[tool][m] = Cell(own, rules=rules)
    return Explanation(labels, cells, got.cases, None)
