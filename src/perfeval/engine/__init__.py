"""Layer 3, the engine: check -> code -> summarize -> finish.

``door`` (:mod:`perfeval.engine.door`: the arrays checked and their targets coded once), ``finish``
(:mod:`perfeval.engine.finish`: each kind of summary built once and every measure finished from it),
``report`` (:class:`~perfeval.engine.report.Report`, what every front door returns) and ``signature``
(a report's reproducible signature).  The names the front doors, backends and dialects use are
re-exported here (``from perfeval.engine import finish, resolve``); the function ``finish`` shadows
the module of that name as an attribute of this package (the module is
``sys.modules["perfeval.engine.finish"]``).
"""

from perfeval.engine.finish import (
    DEFAULT_MEASURES,
    TIES,
    binary_report,
    binary_values,
    finish,
    grouped_report,
    resolve,
    safe,
    warn_undefined,
)

__all__ = [
    "DEFAULT_MEASURES",
    "TIES",
    "binary_report",
    "binary_values",
    "finish",
    "grouped_report",
    "resolve",
    "safe",
    "warn_undefined",
]
