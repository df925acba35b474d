"""The examples in the docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["perfeval.exceptions", "perfeval.measures.base", "perfeval.measures.spec", "perfeval.summaries.histogram",
           "perfeval.evaluation", "perfeval.functional", "perfeval.classic.options", "perfeval.delong",
           "perfeval.bootstrap", "perfeval.io.columns"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
