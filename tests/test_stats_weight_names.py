"""ci, compare and compare_models name a bad weight vector `sample_weight`, the keyword the user
passed, in evaluate's words for the same problem (and a bad score by its own argument)."""

from __future__ import annotations

import numpy as np
import pytest

import perfeval
from perfeval.exceptions import PerfError

Y = np.array([0, 1, 0, 1, 1, 0])
S = np.array([0.1, 0.9, 0.3, 0.7, 0.6, 0.2])
B = S[::-1].copy()

BAD = {
    "wrong length": [1.0, 1.0, 1.0],
    "negative": [1.0, 1.0, -1.0, 1.0, 1.0, 1.0],
    "NaN": [1.0, 1.0, np.nan, 1.0, 1.0, 1.0],
    "infinite": [1.0, 1.0, np.inf, 1.0, 1.0, 1.0],
    "two-dimensional": np.ones((6, 2)),
}

#: each function, the name of its scores' argument checked first (where the length is said)
CALLS = {
    "ci": (lambda w, **kw: perfeval.ci(Y, S, measures="auc", sample_weight=w, n_boot=20, **kw), "y_score"),
    "compare": (
        lambda w, **kw: perfeval.compare(Y, S, B, measures="auc", sample_weight=w, n_boot=20, **kw),
        "score_a",
    ),
    "compare_models": (
        lambda w, **kw: perfeval.stats.compare_models(
            Y, {"a": S, "b": B}, "a", measures="auc", sample_weight=w, n_boot=20, **kw
        ),
        "models['b']",
    ),
}


def said(call) -> str:
    with pytest.raises(PerfError) as got:
        call()
    return str(got.value)


@pytest.mark.parametrize("bad", BAD, ids=list(BAD))
@pytest.mark.parametrize("func", CALLS)
@pytest.mark.parametrize("over_groups", [False, True], ids=["cases", "groups"])
def test_a_bad_weight_vector_is_named_sample_weight_as_evaluate_says_it(func, bad, over_groups):
    call, score = CALLS[func]
    kw = {"groups": [1, 1, 2, 2, 3, 3]} if over_groups else {}
    expected = said(lambda: perfeval.evaluate(Y, S, measures=["auc"], sample_weight=BAD[bad]))
    assert expected.startswith("`sample_weight`")
    assert said(lambda: call(BAD[bad], **kw)) == expected.replace("`y_score`", f"`{score}`")


def test_delongs_comparison_names_it_too():
    msg = said(
        lambda: perfeval.compare(Y, S, B, measures="auc", method="delong", sample_weight=[1, -1, 1, 1, 1, 1])
    )
    assert msg == "`sample_weight` must be finite non-negative numbers, got -1.0 at index 1"


def test_a_bad_score_is_named_by_its_argument():
    assert said(lambda: perfeval.compare(Y, S, S[:4], measures="auc", n_boot=20)) == (
        "`y_true` and `score_b` must have the same length, got 6 and 4"
    )
    nan = np.r_[S[:5], np.nan]
    assert said(lambda: perfeval.compare(Y, nan, B, measures="auc", n_boot=20)).startswith(
        "`score_a` holds NaN at index 5"
    )
    models = {"a": S, "b": S[:3]}
    assert said(lambda: perfeval.stats.compare_models(Y, models, "a", measures="auc", n_boot=20)) == (
        "`y_true` and `models['b']` must have the same length, got 6 and 3"
    )
