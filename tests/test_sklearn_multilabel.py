"""The multilabel ranking measures (perfeval.measures.multilabel) and their scikit-learn names
(perfeval.functional.sklearn_multilabel): the installed scikit-learn's numbers within 1e-12 (hypothesis:
ties, weights with zeros, rows with no or every label relevant, 1 to 8 labels), its errors, the
textbook definitions row by row, and the exact mean over rows that chunks share."""

from __future__ import annotations

import inspect
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval.functional as F
from perfeval.exceptions import InvalidDataError, PerfError, UndefinedMeasureWarning
from perfeval.measures.multilabel import (
    coverage_rows,
    finish_mean,
    label_problems,
    lrap_rows,
    micro_problem,
    ranking_loss_rows,
    row_sums,
)

sk = pytest.importorskip("sklearn.metrics")

NAMES = ["label_ranking_average_precision_score", "coverage_error", "label_ranking_loss"]
ROWS = {
    "label_ranking_average_precision_score": lrap_rows,
    "coverage_error": coverage_rows,
    "label_ranking_loss": ranking_loss_rows,
}


def close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


def outcome(fn, *a, **kw):
    """The value, or the exception type."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*a, **kw)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)


# -- the textbook definitions, one row at a time -----------------------------------------------------------
def ref_lrap(y, s):
    out = []
    for yi, si in zip(y, s, strict=True):
        rel = [j for j in range(len(si)) if yi[j] != 0]
        if len(rel) in (0, len(si)):
            out.append(1.0)
            continue
        total = Fraction(0)
        for j in rel:
            at_or_above = [k for k in range(len(si)) if si[k] >= si[j]]
            total += Fraction(sum(1 for k in at_or_above if yi[k] != 0), len(at_or_above))
        out.append(float(total / len(rel)))
    return out


def ref_coverage(y, s):
    out = []
    for yi, si in zip(y, s, strict=True):
        rel = [si[j] for j in range(len(si)) if yi[j] != 0]
        out.append(float(sum(1 for v in si if v >= min(rel))) if rel else 0.0)
    return out


def ref_ranking_loss(y, s):
    out = []
    for yi, si in zip(y, s, strict=True):
        rel = [j for j in range(len(si)) if yi[j] != 0]
        irr = [k for k in range(len(si)) if yi[k] == 0]
        wrong = sum(1 for j in rel for k in irr if si[k] >= si[j])
        out.append(wrong / (len(rel) * len(irr)) if rel and irr else 0.0)
    return out


REFS = {lrap_rows: ref_lrap, coverage_rows: ref_coverage, ranking_loss_rows: ref_ranking_loss}


@st.composite
def multilabel(draw, k_min=1):
    """(Y, S, w): relevance rates from none to all (and rows forced to none or all), scores rounded
    to few decimals (ties), integer or float scores, weights none / whole with zeros / fractional."""
    n = draw(st.integers(1, 25))
    k = draw(st.integers(k_min, 8))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random((n, k)) < draw(st.sampled_from([0.0, 0.2, 0.5, 0.8, 1.0]))).astype(np.int64)
    y[rng.random(n) < 0.15] = 0
    y[rng.random(n) < 0.15] = 1
    decimals = draw(st.sampled_from([0, 1, 2, 6]))
    s = np.round(rng.normal(size=(n, k)), decimals)
    if draw(st.booleans()):
        s = np.round(s * 3).astype(np.int64)
    y = y.astype(draw(st.sampled_from([np.int64, np.float64, bool])))
    kind = draw(st.sampled_from(["none", "int", "float"]))
    w = None
    if kind == "int":
        w = rng.integers(0, 4, n).astype(float)
    elif kind == "float":
        w = np.where(rng.random(n) < 0.2, 0.0, rng.random(n) * 3)
    return y, s, w


@settings(max_examples=400, deadline=None)
@given(multilabel())
def test_equal_scikit_learn(data):
    y, s, w = data
    for name in NAMES:
        ours = outcome(getattr(F, name), y, s, sample_weight=w)
        theirs = outcome(getattr(sk, name), y, s, sample_weight=w)
        if isinstance(theirs, type):  # one label (coverage, ranking loss) or weights summing to 0
            assert isinstance(ours, type) and issubclass(ours, PerfError), (name, ours, theirs)
            if issubclass(theirs, ValueError):
                assert issubclass(ours, ValueError), (name, ours, theirs)
        else:
            assert isinstance(ours, float) and close(ours, theirs), (name, ours, theirs)


@settings(max_examples=300, deadline=None)
@given(multilabel())
def test_rows_equal_the_textbook_definition(data):
    y, s, _ = data
    for rows, ref in REFS.items():
        got = rows(y, s)
        assert got.dtype == np.float64 and got.shape == (len(y),)
        want = ref(y.tolist(), s.tolist())
        if rows is lrap_rows:
            assert np.allclose(got, want, rtol=1e-15, atol=0), (got, want)
        else:  # whole numbers, and the division of two: the same bits
            assert got.tolist() == want


def test_ties_and_edge_rows_by_hand():
    y = np.array([[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0]])
    s = np.array([[0.5, 0.5, 0.1, 0.9], [1, 2, 3, 4], [1, 1, 2, 2], [3, 3, 3, 3]], dtype=float)
    # row 0: label 0 ties label 1 below label 3: 1/3; label 2 last: 2/4; row 3: one tie of 4: 1/4
    assert lrap_rows(y, s).tolist() == [(1 / 3 + 2 / 4) / 2, 1.0, 1.0, 0.25]
    assert coverage_rows(y, s).tolist() == [4.0, 0.0, 4.0, 4.0]
    # row 0: label 1 (0.5) ties label 0: a wrong pair, as is label 3 above both and label 1 above 2
    assert ranking_loss_rows(y, s).tolist() == [4 / 4, 0.0, 0.0, 1.0]


def test_scores_beyond_2_53_keep_their_order():
    y = np.array([[1, 0, 0], [0, 1, 0]])
    s = np.array([[2**53 + 1, 2**53, 0], [2**53, 2**53 + 1, 2**53 + 1]], dtype=np.int64)
    assert lrap_rows(y, s).tolist() == [1.0, 0.5]
    for name in NAMES:
        assert getattr(F, name)(y, s) == getattr(sk, name)(y, s), name


@pytest.mark.parametrize(
    "codes", [(0, 2), (-1, 1), (2, 5), (0.0, 3.0), (False, True)], ids=["0/2", "-1/1", "2/5", "0./3.", "bool"]
)
def test_any_non_zero_value_is_relevant_as_in_scikit_learn(codes):
    """scikit-learn's multilabel indicator is any two whole values; a non-zero one is relevant."""
    rng = np.random.default_rng(5)
    pick = rng.random((12, 4)) < 0.5
    y = np.where(pick, np.array(codes[1]), np.array(codes[0]))
    s = np.round(rng.random((12, 4)), 1)
    for name in NAMES:
        assert close(getattr(F, name)(y, s), getattr(sk, name)(y, s)), name


def test_unsigned_scores_rank_by_value_where_scikit_learns_lrap_wraps():
    """docs/sklearn.md: scikit-learn's LRAP negates the scores; an unsigned 0 stays 0 and ranks first."""
    y, s = np.array([[0, 1, 0]]), np.array([[0, 5, 3]], dtype=np.uint8)
    assert sk.label_ranking_average_precision_score(y, s) == 0.5
    assert F.label_ranking_average_precision_score(y, s) == 1.0
    assert F.label_ranking_average_precision_score(y, s.astype(np.int64)) == 1.0


# -- the exact mean over rows ---------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(multilabel(k_min=2), st.integers(0, 2**32 - 1))
def test_chunks_in_any_order_give_the_same_bits(data, seed):
    y, s, w = data
    rng = np.random.default_rng(seed)
    for rows in REFS:
        v = rows(y, s)
        whole = finish_mean(row_sums(v, w))
        perm = rng.permutation(len(v))
        cuts = np.sort(rng.integers(0, len(v) + 1, 3))
        parts = [
            row_sums(v[perm][a:b], None if w is None else w[perm][a:b])
            for a, b in zip(np.r_[0, cuts], np.r_[cuts, len(v)], strict=True)
        ]
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        assert total.rows == len(v)
        assert finish_mean(total) == whole or (math.isnan(whole) and math.isnan(finish_mean(total)))
        if w is not None and w.any():
            keep = w > 0  # weight 0 is a dropped row, bit for bit
            assert finish_mean(row_sums(v[keep], w[keep])) == whole
            # the exact quotient, rounded once
            exact = sum(Fraction(float(a * b)) for a, b in zip(w, v, strict=True)) / sum(map(Fraction, w))
            assert whole == float(exact)
        if w is None:  # no weights: the same bits as ones
            assert finish_mean(row_sums(v, np.ones(len(v)))) == whole
            assert whole == float(sum(map(Fraction, v)) / len(v))


def test_the_mean_of_nothing_is_nan_and_tiny_values_are_exact():
    assert math.isnan(finish_mean(row_sums(np.array([]))))
    assert math.isnan(finish_mean(row_sums(np.array([0.5, 1.0]), np.zeros(2))))
    v = np.array([5e-324, 1e300, -1e300, 2.0**-1070, 1.0])  # subnormals, cancellation
    assert finish_mean(row_sums(v)) == float(sum(map(Fraction, v.tolist())) / 5)
    with pytest.raises(OverflowError):
        row_sums(np.array([4.0]), np.array([1e308]))


# -- the per-label and micro problems --------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(multilabel(k_min=2))
def test_label_and_micro_problems_are_scikit_learns_averages(data):
    """roc_auc_score(average=None) scores each column, average="micro" the flattened cells with the
    weights repeated: the same numbers from perfeval's binary roc_auc_score on our problems."""
    y, s, w = data
    y = y.astype(np.int64)
    problems = list(label_problems(y, s, w))
    assert len(problems) == y.shape[1]
    for j, (t, sc, wt) in enumerate(problems):
        assert t.dtype == bool and sc.dtype == np.float64 and t.flags.c_contiguous and sc.flags.c_contiguous
        assert t.tolist() == (y[:, j] != 0).tolist() and sc.tolist() == s[:, j].astype(float).tolist()
        assert wt is w
    t, sc, wt = micro_problem(y, s, w)
    assert t.shape == sc.shape == (y.size,)
    assert wt is None if w is None else wt.tolist() == np.repeat(w, y.shape[1]).tolist()
    ours = [outcome(F.roc_auc_score, t, sc, sample_weight=wt) for t, sc, wt in problems]
    theirs = outcome(sk.roc_auc_score, y, s, average=None, sample_weight=w)
    if not isinstance(theirs, type):
        for a, b in zip(ours, theirs, strict=True):
            assert close(a, b)
    ours_micro = outcome(F.roc_auc_score, *micro_problem(y, s, w))
    theirs_micro = outcome(sk.roc_auc_score, y, s, average="micro", sample_weight=w)
    if not isinstance(theirs_micro, type) and not isinstance(ours_micro, type):
        assert close(ours_micro, theirs_micro)


# -- scikit-learn's errors -------------------------------------------------------------------------------
Y = np.array([[1, 0, 0], [0, 1, 1]])
S = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])

#: bad input: (arguments, keyword arguments, the part of scikit-learn's message ours repeats or None)
BAD = {
    "1-D": ((np.array([0, 1, 1]), np.array([0.1, 0.2, 0.3])), {}, None),
    "continuous": ((Y * 0.5, S), {}, "continuous-multioutput format is not supported"),
    "multiclass": (
        (np.array([[0, 1, 2], [0, 1, 1]]), S),
        {},
        "multiclass-multioutput format is not supported",
    ),
    "strings": ((Y.astype(str), S), {}, None),
    "shape": ((Y, S[:, :2]), {}, "y_true and y_score have different shape"),
    "rows": ((Y, S[:1]), {}, None),
    "NaN y_true": ((np.array([[1, 0, np.nan], [0, 1, 1]]), S), {}, None),
    "NaN y_score": ((Y, np.array([[0.1, np.nan, 0.3], [0.3, 0.2, 0.1]])), {}, None),
    "inf y_score": ((Y, np.array([[0.1, np.inf, 0.3], [0.3, 0.2, 0.1]])), {}, None),
    "empty": ((np.zeros((0, 3)), np.zeros((0, 3))), {}, None),
    "no column": ((np.zeros((2, 0)), np.zeros((2, 0))), {}, None),
    "3-D": ((np.zeros((2, 2, 2)), np.zeros((2, 2, 2))), {}, None),
    "1-D y_score": ((Y, np.array([0.1, 0.2])), {}, None),
    "string scores": ((Y, S.astype(str)), {}, None),
    "weights length": ((Y, S), {"sample_weight": np.ones(3)}, None),
}


@pytest.mark.parametrize("case", list(BAD))
@pytest.mark.parametrize("name", NAMES)
def test_errors_where_scikit_learn_raises(name, case):
    args, kw, text = BAD[case]
    with pytest.raises(ValueError) as theirs:
        getattr(sk, name)(*args, **kw)
    with pytest.raises(InvalidDataError) as ours:
        getattr(F, name)(*args, **kw)
    message = str(ours.value)
    assert "\n" not in message and message.startswith(f"{name}: "), message
    if text is not None:
        assert text in str(theirs.value) and text in message, (message, str(theirs.value))


def test_one_label_lrap_is_1_the_others_refuse_it_as_scikit_learn():
    y, s = np.array([[0], [1], [1]]), np.array([[0.1], [0.2], [0.3]])
    assert (
        F.label_ranking_average_precision_score(y, s) == sk.label_ranking_average_precision_score(y, s) == 1.0
    )
    for name in ("coverage_error", "label_ranking_loss"):
        with pytest.raises(ValueError, match="binary format is not supported"):
            getattr(sk, name)(y, s)
        with pytest.raises(InvalidDataError, match="binary format is not supported"):
            getattr(F, name)(y, s)


def test_weights_all_zero_and_negative():
    """All 0: NaN and a warning for LRAP (scikit-learn: NaN and numpy's warning), refused by the
    others (scikit-learn: ZeroDivisionError).  Negative weights: refused (scikit-learn takes them)."""
    z = np.zeros(2)
    with pytest.warns(RuntimeWarning):
        assert math.isnan(sk.label_ranking_average_precision_score(Y, S, sample_weight=z))
    with pytest.warns(UndefinedMeasureWarning, match="0 for every sample") as said:
        assert math.isnan(F.label_ranking_average_precision_score(Y, S, sample_weight=z))
    assert said[0].filename == __file__
    for name in ("coverage_error", "label_ranking_loss"):
        with pytest.raises(ZeroDivisionError):
            getattr(sk, name)(Y, S, sample_weight=z)
        with pytest.raises(InvalidDataError, match=f"^{name}: `sample_weight` is 0 for every sample"):
            getattr(F, name)(Y, S, sample_weight=z)
    for name in NAMES:
        with pytest.raises(InvalidDataError, match="index 1"):
            getattr(F, name)(Y, S, sample_weight=[1.0, -1.0])


def test_sparse_y_true_as_scikit_learn():
    sparse = pytest.importorskip("scipy.sparse")
    y = sparse.csr_matrix(Y)
    for name in ("label_ranking_average_precision_score", "label_ranking_loss"):
        assert getattr(F, name)(y, S) == getattr(F, name)(Y, S)
        assert close(getattr(F, name)(y, S), getattr(sk, name)(y, S))
    with pytest.raises(ValueError):
        sk.coverage_error(y, S)
    with pytest.raises(InvalidDataError, match="sparse"):
        F.coverage_error(y, S)


def test_signatures_are_scikit_learns():
    for name in NAMES:
        theirs = inspect.signature(getattr(sk, name)).parameters
        ours = inspect.signature(getattr(F, name)).parameters
        assert list(ours) == list(theirs), name
        for p in theirs.values():
            assert ours[p.name].kind == p.kind and ours[p.name].default == p.default, (name, p.name)


def test_exported():
    import perfeval

    for name in NAMES:
        assert name in F.__all__ and getattr(perfeval.functional, name) is getattr(F, name)
