"""The scikit-learn names given a column's name for `sample_weight` (``sample_weight="w"``): the
library's one line for a string where the values go (no_table's), said at their shared door with the
function's prefix of their other messages ("roc_auc_score: ..."), not
"must be one-dimensional, got shape ()"."""

from __future__ import annotations

import numpy as np
import pytest

import perfeval.functional as F
from perfeval.exceptions import InvalidParameterError

Y = np.array([0, 1, 0, 1, 1, 0])
S = np.array([0.1, 0.9, 0.3, 0.7, 0.6, 0.2])
CLS, P = np.array([0, 1, 2, 0, 1, 2]), np.array([[0.2, 0.3, 0.5]] * 6)
REL, RANK = np.array([[1, 0, 2], [0, 1, 1]]), np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])

CALLS = {
    "roc_auc_score": lambda w: F.roc_auc_score(Y, S, sample_weight=w),
    "average_precision_score": lambda w: F.average_precision_score(Y, S, sample_weight=w),
    "roc_curve": lambda w: F.roc_curve(Y, S, sample_weight=w),
    "log_loss": lambda w: F.log_loss(Y, S, sample_weight=w),
    "top_k_accuracy_score": lambda w: F.top_k_accuracy_score(CLS, P, k=2, sample_weight=w),
    "f1_score": lambda w: F.f1_score(Y, (S > 0.5).astype(int), sample_weight=w),
    "mean_absolute_error": lambda w: F.mean_absolute_error(S, S, sample_weight=w),
    "ndcg_score": lambda w: F.ndcg_score(REL, RANK, sample_weight=w),
}


@pytest.mark.parametrize("fn", CALLS)
def test_a_column_name_for_sample_weight_is_said_so(fn):
    with pytest.raises(InvalidParameterError) as got:
        CALLS[fn]("w")
    assert str(got.value) == (  # prefixed with the function's name, as their other messages
        f"{fn}: `sample_weight` must be one-dimensional, got the string 'w': a column's name? {fn}() "
        "takes no table: pass the column's values themselves, one a row (sample_weight=table['w'])"
    )


def test_the_multiclass_roc_area_says_it_too():
    with pytest.raises(
        InvalidParameterError,
        match=r"^roc_auc_score: `sample_weight` .* a column's name\? roc_auc_score\(\) takes no table",
    ):
        F.roc_auc_score(CLS, P, multi_class="ovr", sample_weight="w")


def test_the_ranking_names_check_their_weights_at_the_door():
    """ndcg_score's weights are one a query (row), as before; now named with the function."""
    with pytest.raises(
        ValueError, match=r"^ndcg_score: `sample_weight` has 1 values for 2 queries \(rows\)$"
    ):
        F.ndcg_score(REL, RANK, sample_weight=[1.0])
    with pytest.raises(ValueError, match=r"^dcg_score: `sample_weight` must be finite non-negative numbers"):
        F.dcg_score(REL, RANK, sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match=r"^ndcg_score: the weights of the queries sum to zero$"):
        F.ndcg_score(REL, RANK, sample_weight=[0.0, 0.0])
