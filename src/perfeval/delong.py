"""Deprecated: use :mod:`perfeval.stats.delong` (``from perfeval.stats.delong import delong``).

This module only re-exports, for one release, the names that used to live here (``delong``,
``delong_from_histogram``, ``delong_test``, ``DeLongResult``, ``DeLongComparison``, and the
structural components the bootstrap used).  Importing it warns (DeprecationWarning); it is removed
in perfeval 0.2.0.
"""

from __future__ import annotations

import warnings

from perfeval.stats.delong import (
    DeLongComparison,
    DeLongResult,
    delong,
    delong_from_histogram,
    delong_test,
)
from perfeval.stats.delong import case_components as _case_components
from perfeval.stats.delong import components as _components

__all__ = ["DeLongComparison", "DeLongResult", "delong", "delong_from_histogram", "delong_test"]

_OLD_PRIVATE = (_case_components, _components)  # kept importable for one release

warnings.warn(
    "perfeval.delong is moved to perfeval.stats.delong; the old path is removed in perfeval 0.2.0",
    DeprecationWarning,
    stacklevel=2,
)
