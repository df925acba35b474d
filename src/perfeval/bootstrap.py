"""Deprecated: use :mod:`perfeval.stats` (``from perfeval.stats import ci, compare``).

This module only re-exports, for one release, the names that used to live here: the public ones
(``ci``, ``compare``, ``ci_from_summary``, ``Interval``, ``Comparison``, ``METHODS``) and the
private helpers that tests and users imported, under their old names.  Importing it warns
(DeprecationWarning); it is removed in perfeval 0.2.0.
"""

from __future__ import annotations

import warnings

from perfeval.stats.api import ci, ci_from_summary, compare
from perfeval.stats.api import coded as _coded
from perfeval.stats.api import specs_of as _specs
from perfeval.stats.fastpaths import jack_roc_hist as _jack_roc_hist
from perfeval.stats.fastpaths import jack_roc_rows as _jack_roc_rows
from perfeval.stats.intervals import METHODS, Comparison, Interval
from perfeval.stats.intervals import acceleration as _acceleration
from perfeval.stats.intervals import as_dict as _as_dict
from perfeval.stats.intervals import bca as _bca
from perfeval.stats.intervals import check_level as _level
from perfeval.stats.intervals import interval as _interval
from perfeval.stats.intervals import p_value as _p_value
from perfeval.stats.intervals import percentile as _percentile
from perfeval.stats.replicates import CHUNK_CELLS as _CHUNK_CELLS
from perfeval.stats.replicates import JACK_GROUPS as _JACK_GROUPS
from perfeval.stats.replicates import Cases as _Cases
from perfeval.stats.replicates import Sorted as _Sorted
from perfeval.stats.replicates import group_parts as _group_parts
from perfeval.stats.replicates import group_replicates as _group_replicates
from perfeval.stats.replicates import group_weights as _group_weights
from perfeval.stats.replicates import hist_replicates as _hist_replicates
from perfeval.stats.replicates import jack_group_values as _jack_group_values
from perfeval.stats.replicates import jack_groups as _jack_groups
from perfeval.stats.replicates import row_replicates as _row_replicates
from perfeval.stats.replicates import threads_of as _threads
from perfeval.stats.replicates import value as _value

__all__ = ["METHODS", "Comparison", "Interval", "ci", "ci_from_summary", "compare"]

_OLD_PRIVATE = (  # kept importable for one release (the names tests and users imported from here)
    _CHUNK_CELLS,
    _JACK_GROUPS,
    _Cases,
    _Sorted,
    _acceleration,
    _as_dict,
    _bca,
    _coded,
    _group_parts,
    _group_replicates,
    _group_weights,
    _hist_replicates,
    _interval,
    _jack_group_values,
    _jack_groups,
    _jack_roc_hist,
    _jack_roc_rows,
    _level,
    _p_value,
    _percentile,
    _row_replicates,
    _specs,
    _threads,
    _value,
)

warnings.warn(
    "perfeval.bootstrap is moved to perfeval.stats; the old path is removed in perfeval 0.2.0",
    DeprecationWarning,
    stacklevel=2,
)
