"""The old paths of the modules moved into folders or renamed (issue 31), importable until perfeval 0.2.0.

``import perfeval.stream`` (or ``from perfeval.stream import evaluate_stream``) gives
:mod:`perfeval.backends.stream` itself, the same module object under both names, with a
:class:`DeprecationWarning` naming the new path and the release that removes the old one.  The
private old names (``perfeval._validation``, ...) warn too: whoever imported them imports them from
the new path before 0.2.0.  One table, no file per old module.

The package ``perfeval`` puts a small finder at the end of :data:`sys.meta_path` that loads this
module only when an import of ``perfeval.<name>`` found no file (so ``perf``'s start-up reads
nothing more); nothing in perfeval imports an old path (tests/test_layering.py).
"""

from __future__ import annotations

import sys
import warnings
from importlib.abc import Loader
from importlib.machinery import ModuleSpec
from types import ModuleType

from perfeval.base.deprecation import REMOVED_IN

#: old module path -> new module path
MOVED = {
    # the compiled kernels held only the classic dialect's x87 arithmetic when they were named so;
    # docs/compatibility.md once told users to call perfeval._x87.mantissa_bits()
    "perfeval._x87": "perfeval._native",
    "perfeval._console": "perfeval.base.console",
    "perfeval._text": "perfeval.base.text",
    "perfeval._nicknames": "perfeval.base.nicknames",
    "perfeval._progress": "perfeval.base.progress",
    "perfeval._deprecation": "perfeval.base.deprecation",
    "perfeval._validation": "perfeval.base.checks",
    "perfeval.door": "perfeval.engine.door",
    "perfeval.report": "perfeval.engine.report",
    "perfeval.signature": "perfeval.engine.signature",
    "perfeval.evaluation": "perfeval.api.evaluation",
    "perfeval.explanation": "perfeval.api.explanation",
    "perfeval.stream": "perfeval.backends.stream",
    "perfeval.metric": "perfeval.backends.metric",
    "perfeval._metric_state": "perfeval.backends.metric_state",
    "perfeval.dask": "perfeval.backends.dask",
    "perfeval._sklearn_names": "perfeval.functional.sklearn_names",
    "perfeval.html": "perfeval.plot.html",
}


class _Alias(Loader):
    """The loader of an old path: the new module, put in :data:`sys.modules` under the old name."""

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # a blank module, replaced in exec_module (the import system then returns the new)

    def exec_module(self, module: ModuleType) -> None:
        old = module.__name__
        new = MOVED[old]
        __import__(new)
        how = "renamed" if old.rpartition(".")[0] == new.rpartition(".")[0] else "moved to"
        warnings.warn(
            f"{old} is {how} {new}; the old path is removed in perfeval {REMOVED_IN}",
            DeprecationWarning,
            stacklevel=2,  # the import machinery's frames are skipped: the warning names the importer
        )
        sys.modules[old] = sys.modules[new]


def find_spec(name: str) -> ModuleSpec | None:
    """The spec of an old path (``perfeval.stream``), else None."""
    return ModuleSpec(name, _Alias()) if name in MOVED else None
