"""The measure registry: one definition per measure, shared by every command and backend."""

from perfeval.measures import perf as _perf  # noqa: F401  (registers PERF's measures)
from perfeval.measures import vocabulary as _vocabulary  # noqa: F401  (and the modern ones)
from perfeval.measures.base import REGISTRY, Measure, Param, Registry, get_measure, list_measures
from perfeval.measures.groups import NICKNAMES
from perfeval.measures.spec import MeasureSpec, parse_measure

__all__ = [
    "REGISTRY",
    "Measure",
    "MeasureSpec",
    "Param",
    "Registry",
    "get_measure",
    "list_measures",
    "parse_measure",
    "NICKNAMES",
]
