"""A bad weight vector passed as ``weights=`` (the deprecated spelling of ``sample_weight=``) is
named `weights`, the keyword the user typed, in the words ``sample_weight=`` gets, on every path of
evaluate, ci and compare (binary, over groups, K classes, K labels, regression)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import perfeval
from perfeval.exceptions import PerfError

Y = np.array([0, 1, 0, 1, 1, 0])
S = np.array([0.1, 0.9, 0.3, 0.7, 0.6, 0.2])
Y3 = np.array([0, 1, 2, 2, 1, 0])
S3 = np.array(
    [[0.7, 0.2, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.5, 0.3, 0.2]]
)
YL = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]])
SL = np.array([[0.8, 0.1], [0.3, 0.6], [0.7, 0.9], [0.2, 0.3], [0.6, 0.4], [0.1, 0.8]])
YR = np.array([1.5, 2.5, 3.1, 0.2, 1.1, 4.0])
SR = np.array([1.0, 2.0, 3.0, 0.5, 1.0, 3.5])

BAD = {
    "wrong length": [1.0, 2.0],
    "negative": [1.0, 1.0, -1.0, 1.0, 1.0, 1.0],
    "NaN": [1.0, 1.0, np.nan, 1.0, 1.0, 1.0],
    "two-dimensional": np.ones((6, 2)),
    "not numbers": ["a", "b", "c", "d", "e", "f"],
}

#: each path, called with its weights under a keyword
CALLS = {
    "evaluate": lambda kw: perfeval.evaluate(Y, S, measures=["roc"], **kw),
    "evaluate groups": lambda kw: perfeval.evaluate(Y, S, groups=[1, 1, 2, 2, 3, 3], measures=["gauc"], **kw),
    "evaluate classes": lambda kw: perfeval.evaluate(Y3, S3, classes=[0, 1, 2], **kw),
    "evaluate labels": lambda kw: perfeval.evaluate(YL, SL, **kw),
    "evaluate regression": lambda kw: perfeval.evaluate(YR, SR, task="regression", **kw),
    "evaluate dialect": lambda kw: perfeval.evaluate(Y, S, measures=["roc"], dialect="sklearn", **kw),
    "ci": lambda kw: perfeval.ci(Y, S, measures="roc", n_boot=10, **kw),
    "ci groups": lambda kw: perfeval.ci(Y, S, groups=[1, 1, 2, 2, 3, 3], measures="gauc", n_boot=10, **kw),
    "ci classes": lambda kw: perfeval.ci(Y3, S3, classes=[0, 1, 2], n_boot=10, **kw),
    "ci labels": lambda kw: perfeval.ci(YL, SL, n_boot=10, **kw),
    "ci regression": lambda kw: perfeval.ci(YR, SR, task="regression", measures="mae", n_boot=10, **kw),
    "compare": lambda kw: perfeval.compare(Y, S, S[::-1], measures="roc", n_boot=10, **kw),
    "compare classes": lambda kw: perfeval.compare(Y3, S3, S3[::-1], classes=[0, 1, 2], n_boot=10, **kw),
    "compare regression": lambda kw: perfeval.compare(
        YR, SR, SR[::-1], task="regression", measures="mae", n_boot=10, **kw
    ),
}


def said(call) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(PerfError) as got:
            call()
    return str(got.value)


@pytest.mark.parametrize("bad", BAD, ids=list(BAD))
@pytest.mark.parametrize("path", CALLS)
def test_weights_is_named_as_typed_in_sample_weights_words(path, bad):
    modern = said(lambda: CALLS[path]({"sample_weight": BAD[bad]}))
    assert modern.startswith("`sample_weight` ")
    old = said(lambda: CALLS[path]({"weights": BAD[bad]}))
    assert old == modern.replace("`sample_weight`", "`weights`")
    assert "sample_weight" not in old


@pytest.mark.parametrize("path", [p for p in CALLS if p.startswith("evaluate")])
def test_a_column_name_given_to_weights_names_weights(path):
    msg = said(lambda: CALLS[path]({"weights": "w"}))
    assert msg.startswith("`weights='w'`: a column's name?")  # the hint first, as sample_weight's
    assert "pass it as weight='w'" in msg and "`weights` takes the values themselves" in msg
    assert "sample_weight" not in msg
