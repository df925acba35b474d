"""perfeval: exact, fast evaluation of predictions, the successor of Rich Caruana's PERF 5.12.

The package is imported by the classic ``perf`` command on every run, so this module stays light:
numpy and everything that needs it are imported on first use (``perfeval.ScoreHistogram``).
"""

import sys as _sys

# The first statements of the package, before any import (no `from __future__`: it is one):
# started as the `perf` or `perfeval` command, Ctrl-C ends the process as it ends a C program (no
# traceback from the middle of an import) until `perfeval` arms its own handling in main(), and again
# once main() is done.  The C module _signal, not signal: importing signal imports enum.  What runs
# before this line is the interpreter's (its site module, finding this package): out of our reach.
if getattr(_sys.modules.get("__main__"), "__file__", "").replace("\\", "/").rsplit("/", 1)[-1] in (
    "perf",
    "perfeval",
    "perf.exe",
    "perfeval.exe",
):
    import _signal

    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)

from perfeval._version import __version__


class _Moved:
    """The old paths of the modules moved into folders (``perfeval.stream`` is
    ``perfeval.backends.stream``) until 0.2.0: a finder at the end of :data:`sys.meta_path`, asked
    only when no file was found, that reads its table (perfeval/base/moved.py) then only.
    """

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> object:
        if not name.startswith("perfeval.") or name.count(".") != 1:
            return None
        from perfeval.base.moved import find_spec

        return find_spec(name)


# typeshed's MetaPathFinderProtocol types find_spec's arguments with importlib's types, which this
# module does not import (start-up): the finder is one by its method
_sys.meta_path.append(_Moved)  # type: ignore[arg-type]

__all__ = [
    "__version__",
    "PerfError",
    "InputFormatError",
    "InvalidParameterError",
    "InvalidDataError",
    "UnknownMeasureError",
    "UndefinedMeasureWarning",
    "ZeroWeightGroupsWarning",
    "GradesAsLabelsWarning",
    "CommentLinesWarning",
    "Measure",
    "Param",
    "get_measure",
    "list_measures",
    "ScoreHistogram",
    "RankingData",
    "MeasureSpec",
    "parse_measure",
    "evaluate",
    "evaluate_stream",
    "Metric",
    "explain",
    "Explanation",
    "Report",
    "ci",
    "compare",
    "functional",
]

_LAZY = {
    "PerfError": "perfeval.exceptions",
    "InputFormatError": "perfeval.exceptions",
    "InvalidParameterError": "perfeval.exceptions",
    "InvalidDataError": "perfeval.exceptions",
    "UnknownMeasureError": "perfeval.exceptions",
    "UndefinedMeasureWarning": "perfeval.exceptions",
    "ZeroWeightGroupsWarning": "perfeval.exceptions",
    "GradesAsLabelsWarning": "perfeval.exceptions",
    "CommentLinesWarning": "perfeval.exceptions",
    "Measure": "perfeval.measures",
    "Param": "perfeval.measures",
    "get_measure": "perfeval.measures",
    "list_measures": "perfeval.measures",
    "ScoreHistogram": "perfeval.summaries",
    "RankingData": "perfeval.summaries.ranking",
    "MeasureSpec": "perfeval.measures",
    "parse_measure": "perfeval.measures",
    "evaluate": "perfeval.api.evaluation",
    "evaluate_stream": "perfeval.backends.stream",
    "Metric": "perfeval.backends.metric",
    "explain": "perfeval.api.explanation",
    "Explanation": "perfeval.api.explanation",
    "Report": "perfeval.engine.report",
    "ci": "perfeval.stats",
    "compare": "perfeval.stats",
}


# Start-up (`perf` imports this package on every run): each export is imported on first use, and
# importlib with it (the package's namespace holds its public names only).
#: the public submodules, reached as attributes once ``import perfeval`` is done (``perfeval.stats.
#: compare_models(...)``, as the docs write it), each imported on first use
_SUBMODULES = ("functional", "stats", "curves", "plot", "spark", "trec", "dialects", "contest")


def __getattr__(name: str):  # PEP 562: import on first use
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"perfeval.{name}")
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'perfeval' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(mod), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
