"""`sample_weight` is the one spelling; `weights=` still works for one release, with a warning."""

from __future__ import annotations

import pytest

import perfeval
from perfeval.exceptions import InvalidParameterError

Y, S, W = [1, 0, 1, 0], [0.9, 0.4, 0.6, 0.1], [1.0, 2.0, 0.5, 1.0]


def test_weights_is_a_deprecated_spelling_of_sample_weight():
    with pytest.warns(DeprecationWarning, match="sample_weight"):
        old = perfeval.evaluate(Y, S, measures=["acc", "rms"], weights=W)
    new = perfeval.evaluate(Y, S, measures=["acc", "rms"], sample_weight=W)
    assert old["ACC"] == new["ACC"] and old["RMS"] == new["RMS"]
    assert new.params["weighted"]


def test_both_spellings_at_once_is_an_error():
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        perfeval.evaluate(Y, S, measures=["acc"], sample_weight=W, weights=W)
