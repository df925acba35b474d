"""How sure is the number: confidence intervals of any measure, and paired comparisons of two models.

:func:`ci` gives bootstrap intervals (BCa or percentile) of any measure and DeLong's interval of the
ROC area; :func:`compare` the difference of two models on the same cases with its interval and a
p-value (paired bootstrap, or DeLong's test), :func:`compare_models` that of every model with a
baseline (each as ``compare`` gives it, every model walked once); :func:`ci_from_summary` intervals
from an exact summary alone (a stream's, a Dask cluster's); :func:`slice_ci` the intervals of the
slices of ``evaluate(..., by=[...])`` and of their gaps, with the tests of the gaps.

The package, by layer:

* :mod:`perfeval.stats.intervals`: the result types (:class:`Interval`, :class:`Comparison`) and the
  interval arithmetic (percentile, BCa, the jackknife acceleration,
  the p-values: the BCa interval inverted and the count (k + 1) / (R + 1));
* :mod:`perfeval.stats.replicates`: the replicate engines (Poisson bootstrap of a summary or of
  cases seeded from (seed, r), whole-group resampling) and the generic jackknife;
* :mod:`perfeval.stats.fastpaths`: the table of each measure's fast paths (compiled replicate
  kernels, exact jackknife, DeLong), consulted by both ``ci`` and ``compare``;
* :mod:`perfeval.stats.delong`: DeLong's variance, interval and test of ROC areas (``delong``,
  ``delong_from_histogram``, ``delong_test``: imported from the module, whose name they would hide);
* :mod:`perfeval.stats.api`: ``ci``, ``ci_from_summary``, ``compare`` and ``compare_models``;
* :mod:`perfeval.stats.slices`: ``slice_ci``, the slices' intervals, gaps and tests (issue 34);
* :mod:`perfeval.stats.paired`: the paired tests of per-query values that IR compares runs with
  (Student's paired t-test, Fisher's randomization test, the paired bootstrap test) and Holm's and
  Bonferroni's corrections (``perfeval trec`` and :func:`perfeval.trec.compare` use them).
"""

from __future__ import annotations

from perfeval.stats.api import ci, ci_from_summary, compare, compare_models
from perfeval.stats.fastpaths import FAST_PATHS, FastPaths
from perfeval.stats.intervals import METHODS, Comparison, Interval
from perfeval.stats.slices import SliceIntervals, slice_ci

__all__ = [
    "FAST_PATHS",
    "METHODS",
    "Comparison",
    "FastPaths",
    "Interval",
    "SliceIntervals",
    "ci",
    "ci_from_summary",
    "compare",
    "compare_models",
    "slice_ci",
]
