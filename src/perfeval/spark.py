"""perfeval where the data already is: exact evaluation of a PySpark DataFrame (docs/spark.md).

    import perfeval.spark
    report = perfeval.spark.evaluate(df, target="click", score="ctr", group="user", measures=["gauc"])

:func:`evaluate` takes the options of :func:`perfeval.evaluate` for a table (``target=``, ``score=``,
``group=``, ``weight=``, ``measures=``, ``threshold=``, ``pos_label=``) and gives the same Report, the
same numbers; :func:`explain` and :func:`binning` put Spark's own binned evaluator beside the exact
values.  Needs pyspark (``pip install 'perfeval[spark]'``), imported when a function is called.
"""

from perfeval.api.spark_explanation import explain_spark as explain
from perfeval.backends.spark import Binning, binning
from perfeval.backends.spark import evaluate_spark as evaluate

__all__ = ["evaluate", "explain", "binning", "Binning"]
