"""Deprecated: the compiled kernels are :mod:`perfeval._native`.

The extension module was called ``_x87`` when it held only the classic dialect's x87 arithmetic; it
holds every kernel now and is named for that (csrc/native.h).  This alias is kept for one release
because docs/compatibility.md told users to call ``perfeval._x87.mantissa_bits()``: importing it
warns (DeprecationWarning) and gives :mod:`perfeval._native` itself.  Nothing in perfeval imports
it.  It is removed in perfeval 0.2.0, the release after 0.1.0.
"""

from __future__ import annotations

import sys
import warnings

from perfeval import _native

warnings.warn(
    "perfeval._x87 is renamed perfeval._native; the old name is removed in perfeval 0.2.0",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _native
