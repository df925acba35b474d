"""evaluate() of a label matrix (multilabel): the engine's numbers against scikit-learn's, on
hypothesis data with ties and weights (zeros too), and its door's one-line errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.exceptions import InvalidDataError, InvalidParameterError, UndefinedMeasureWarning

sk = pytest.importorskip("sklearn.metrics")


@st.composite
def label_data(draw):
    n = draw(st.integers(2, 40))
    k = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = (rng.random((n, k)) < draw(st.sampled_from([0.2, 0.5]))).astype(int)
    y[0, :] = 1  # every label on somewhere and off somewhere: scikit-learn's ROC is defined
    y[1, :] = 0
    s = np.round(rng.random((n, k)), draw(st.integers(1, 3)))  # ties
    w = None
    if draw(st.booleans()):
        w = rng.random(n)
        w[rng.random(n) < 0.2] = 0.0
        w[:2] = 1.0
    return y, s, w


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(label_data(), st.sampled_from([0.3, 0.5]))
def test_multilabel_measures_equal_scikit_learn(data, t):
    y, s, w = data
    p = (s >= t).astype(int)
    r = perfeval.evaluate(
        y,
        s,
        sample_weight=w,
        measures=[
            "roc_ml:average=macro",
            "roc_ml:average=micro",
            "roc_ml:average=weighted",
            "ap_ml:average=macro",
            "ap_ml:average=micro",
            f"hamming@{t}",
            f"subset_acc@{t}",
            f"f_ml@{t}:average=micro",
            f"pre_ml@{t}:average=micro",
            "lrap",
            "coverage",
            "ranking_loss",
        ],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = {
            "ROC_ML:average=macro": sk.roc_auc_score(y, s, sample_weight=w),
            "ROC_ML:average=micro": sk.roc_auc_score(y, s, average="micro", sample_weight=w),
            "ROC_ML:average=weighted": sk.roc_auc_score(y, s, average="weighted", sample_weight=w),
            "AP_ML:average=macro": sk.average_precision_score(y, s, sample_weight=w),
            "AP_ML:average=micro": sk.average_precision_score(y, s, average="micro", sample_weight=w),
            f"HAMMING@{t:g}": sk.hamming_loss(y, p, sample_weight=w),
            f"SUBSET_ACC@{t:g}": sk.accuracy_score(y, p, sample_weight=w),
            f"F_ML@{t:g}:average=micro": sk.f1_score(y, p, average="micro", sample_weight=w),
            f"PRE_ML@{t:g}:average=micro": sk.precision_score(y, p, average="micro", sample_weight=w),
            "LRAP": sk.label_ranking_average_precision_score(y, s, sample_weight=w),
            "COVERAGE": sk.coverage_error(y, s, sample_weight=w),
            "RANKING_LOSS": sk.label_ranking_loss(y, s, sample_weight=w),
        }
    for label, v in want.items():
        got = r.results[label].value
        if (
            label.startswith("PRE_ML")
            and not p[(w is None) | (w > 0) if w is not None else slice(None)].any()
        ):
            # nothing predicted: precision is 0/0, undefined (scikit-learn: zero_division, 0)
            assert math.isnan(got), label
            continue
        if math.isnan(v):
            assert math.isnan(got), label
        else:
            assert close(got, v), (label, got, v)


def test_a_label_never_on_is_listed_not_guessed():
    y = np.array([[1, 0], [0, 0], [1, 0]])
    s = np.array([[0.9, 0.1], [0.2, 0.3], [0.6, 0.8]])
    with pytest.warns(UndefinedMeasureWarning):
        r = perfeval.evaluate(y, s, measures=["roc"], classes=["spam", "urgent"])
    res = r.results["ROC_ML:average=macro"]
    assert res.undefined_classes == ["urgent"] and res.value == 1.0
    assert r.params["task"] == "multilabel" and r.params["classes"] == ["spam", "urgent"]


def test_label_matrix_door_errors():
    with pytest.raises(InvalidDataError, match="holds 0 or 1 in each cell .* got 2 at row 1, column 0"):
        perfeval.evaluate([[1, 0], [2, 1]], [[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(InvalidDataError, match="same shape"):
        perfeval.evaluate([[1, 0], [0, 1]], [[0.1, 0.2, 0.3], [0.3, 0.4, 0.5]])
    with pytest.raises(InvalidParameterError, match="NDCG is a ranking measure"):
        perfeval.evaluate([[1, 0], [0, 1]], [[0.1, 0.2], [0.3, 0.4]], measures=["ndcg"])


@pytest.mark.parametrize(
    ("column", "shown"),
    [
        ("Int64", "'<NA>'"),  # pandas' nullable integers: an object matrix of rows (was: "holds [0, 1]
        # at index 0, not a number (list)")
        ("float", "NaN"),  # (was: "got nan": not said to be missing)
        ("object", "'None'"),  # (was: AttributeError, a traceback)
    ],
)
def test_a_missing_label_is_one_line_naming_its_row_and_column(column, shown):
    pd = pytest.importorskip("pandas")
    b = {"Int64": pd.array([1, pd.NA, 0, pd.NA], dtype="Int64"), "float": [1.0, np.nan, 0.0, np.nan],
         "object": pd.Series([1, None, 0, None], dtype=object)}[column]  # fmt: skip
    y = pd.DataFrame({"spam": pd.array([0, 1, 1, 0], dtype="Int64"), "urgent": b})
    s = np.array([[0.2, 0.8], [0.7, 0.4], [0.9, 0.1], [0.3, 0.6]])
    want = (
        f"`y_true` of K labels holds {shown}, a missing label, at row 1, column 1 ('urgent') (and 1 more): "
        "each cell is 0 or 1 (label off or on); drop or fill those cases"
    )
    for table in (y, y.astype(object).to_numpy()):
        with pytest.raises(InvalidDataError) as e:
            perfeval.evaluate(table, s, measures=["roc_ml:average=macro"], classes=["spam", "urgent"])
        assert str(e.value) == want
    with pytest.raises(InvalidDataError) as e:
        perfeval.evaluate(y, s, measures=["hamming@0.5"])  # the table's column names
    assert str(e.value) == want
    with pytest.raises(InvalidDataError) as e:
        perfeval.evaluate(y.astype(object).to_numpy().tolist(), s, measures=["hamming@0.5"])
    assert str(e.value) == want.replace(" ('urgent')", "")
