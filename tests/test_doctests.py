"""The examples in the docstrings run and print what they show: every module of the package is
searched (no hand-kept list), so a new example is tested the day it is written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import warnings

import pytest

import perfeval


def _modules() -> list[str]:
    names = ["perfeval"]
    for info in pkgutil.walk_packages(perfeval.__path__, "perfeval."):
        if not info.name.endswith("__main__"):  # running it would run the command
            names.append(info.name)
    return sorted(names)


def _with_examples() -> list[str]:
    finder = doctest.DocTestFinder()
    out = []
    for name in _modules():
        with warnings.catch_warnings():
            if name in ("perfeval.bootstrap", "perfeval.delong"):  # dated shims: importing them warns
                warnings.simplefilter("ignore", DeprecationWarning)
            mod = importlib.import_module(name)
        # an example marked +SKIP (one that needs a display) is not one that runs
        if any(not ex.options.get(doctest.SKIP) for t in finder.find(mod) for ex in t.examples):
            out.append(name)
    return out


WITH_EXAMPLES = _with_examples()


def test_the_search_finds_the_examples():
    # the modules known to hold examples are found (a broken search would test nothing)
    assert {
        "perfeval.api.evaluation",
        "perfeval.summaries.histogram",
        "perfeval.measures.spec",
        "perfeval.functional",
    } <= set(WITH_EXAMPLES)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
