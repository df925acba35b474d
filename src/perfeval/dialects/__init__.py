"""Dialects: another tool's number, computed by perfeval's engine under that tool's rules.

``perfeval.evaluate(..., dialect="sklearn")`` gives scikit-learn's numbers, ``dialect="trec_eval"``
trec_eval's, and so on (:data:`DIALECTS`); ``perfeval.explain`` puts them side by side and names the
rule behind each difference.  A dialect is a set of policies (:mod:`perfeval.dialects.table`) over
the one engine, applied by :func:`perfeval.dialects.apply.evaluate_dialect`.
"""

from perfeval.dialects.table import DIALECTS, Dialect, Policy

__all__ = ["DIALECTS", "Dialect", "Policy", "dialect_names"]


def dialect_names() -> list[str]:
    """The dialects' names, perfeval's first."""
    return list(DIALECTS)
