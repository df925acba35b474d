"""The measure registry: one definition per measure, shared by every command and backend."""

from perfeval.measures import perf as _perf  # noqa: F401  (registers PERF's measures)
from perfeval.measures.base import REGISTRY, Measure, Param, Registry, get_measure, list_measures
from perfeval.measures.groups import NICKNAMES

__all__ = ["REGISTRY", "Measure", "Param", "Registry", "get_measure", "list_measures", "NICKNAMES"]
