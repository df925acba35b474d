"""Deprecations of the public face, said one way: a :class:`DeprecationWarning` (as for ``weights=``)
naming what to call instead and the release that removes the old spelling, which meanwhile still
gives the same result.

Two kinds: a function under a name of scikit-learn's or of :func:`perfeval.evaluate`'s vocabulary now
(:func:`renamed`: ``perfeval.functional.roc_auc`` is ``roc_auc_score``), and ``measures`` passed by
position where it is keyword-only now, as in :func:`perfeval.evaluate` (:func:`measures_keyword`).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from perfeval.exceptions import user_stacklevel

P = ParamSpec("P")
R = TypeVar("R")

#: the release that removes what is deprecated here (docs/sklearn.md, docs/statistics.md)
REMOVED_IN = "0.2.0"


def renamed(instead: str, *, note: str = "") -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A deprecated function: the same as before, with a DeprecationWarning at each call naming
    ``instead`` (what to call, as code) and ``note`` (how its result compares, when that needs
    saying).  The docstring gets the numpydoc ``.. deprecated::`` note after its first line.
    """

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        advice = f"use {instead}" + (f" ({note})" if note else "")
        message = (
            f"{fn.__module__}.{fn.__name__} is deprecated and is removed in perfeval {REMOVED_IN}: {advice}"
        )

        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            warnings.warn(message, DeprecationWarning, stacklevel=user_stacklevel())
            return fn(*args, **kwargs)

        head, _, rest = (fn.__doc__ or f"Deprecated: {advice}.").partition("\n")
        call.__doc__ = (
            f"{head}\n\n    .. deprecated:: 0.1.0\n       Removed in {REMOVED_IN}: {advice}.\n{rest}"
        )
        return call

    return wrap


def measures_keyword(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``measures`` keyword-only (as in :func:`perfeval.evaluate`) in the function ``name`` (as users
    call it: ``perfeval.ci``), which still takes it by position, right after the positional
    parameters, with a DeprecationWarning saying ``measures=``.  The signature shown (``help``,
    ``inspect.signature``) is the function's own.
    """
    message = (
        f"{name}(): measures passed by position is deprecated and is an error from perfeval "
        f"{REMOVED_IN}: pass measures=... (keyword-only, as in perfeval.evaluate)"
    )

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        params = inspect.signature(fn).parameters
        assert params["measures"].kind is inspect.Parameter.KEYWORD_ONLY, fn
        at = sum(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params.values())

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            if len(args) == at + 1:  # the one more: measures, where it was a positional parameter
                if "measures" in kwargs:
                    raise TypeError(f"{fn.__name__}() got multiple values for argument 'measures'")
                warnings.warn(message, DeprecationWarning, stacklevel=user_stacklevel())
                kwargs["measures"] = args[-1]
                args = args[:-1]
            return fn(*args, **kwargs)

        return call

    return wrap
