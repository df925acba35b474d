"""scikit-learn's score-based names on multiclass and multilabel input (perfeval.functional.sklearn_scores)
give the installed scikit-learn's numbers (1e-12), warnings (category and text) and errors: hypothesis data
with ties, weights (zeros too), string labels, classes missing from y_true, ``labels=`` in another order,
all-zero label columns; Hand and Till's one-vs-one area against pairwise counting in Python loops."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfeval.functional as F
from perfeval.exceptions import InvalidDataError, InvalidParameterError, UndefinedMeasureWarning

sk = pytest.importorskip("sklearn.metrics")
from sklearn.exceptions import UndefinedMetricWarning  # noqa: E402


def outcome(fn, *a, **kw):
    """("value", v, warnings) or ("error", exception, warnings); warnings: (category, text) pairs."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            v = fn(*a, **kw)
            out: tuple = ("value", v)
        except (ValueError, NotImplementedError, ZeroDivisionError) as e:
            out = ("error", e)
    said = [
        (w.category, str(w.message))
        for w in seen
        if not str(w.message).startswith("invalid value encountered")  # numpy's, under scikit-learn's
    ]
    return (*out, said)


def same_warnings(ours: list, theirs: list) -> None:
    assert {t for _, t in ours} == {t for _, t in theirs}, (ours, theirs)
    kinds = {t: c for c, t in theirs}
    for c, t in ours:
        if kinds[t] is UndefinedMetricWarning:
            assert c is UndefinedMeasureWarning, (c, t)
        else:
            assert issubclass(c, kinds[t]), (c, t)


def close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-300, equal_nan=True))


def agree(name, *a, **kw) -> tuple:
    """The same call to both libraries: the same value (1e-12), or both raise; the same warnings."""
    ours = outcome(getattr(F, name), *a, **kw)
    theirs = outcome(getattr(sk, name), *a, **kw)
    if theirs[0] == "error" and kw.get("max_fpr") is not None and ours[0] == "value":
        # scikit-learn fails inside its partial area when a label's negatives all weigh 0 (as in the
        # binary case, tests/test_sklearn_names.py); perfeval says NaN, with roc_curve's warning
        assert np.isnan(ours[1]).any() and any("No negative samples" in t for _, t in ours[2])
        return ours, theirs
    if theirs[0] == "error":
        assert ours[0] == "error", (name, kw, ours, theirs)
        assert isinstance(ours[1], ValueError), ours[1]
        assert "\n" not in str(ours[1]) and str(ours[1]).startswith(f"{name}: ")
    else:
        assert ours[0] == "value", (name, kw, ours, theirs)
        assert close(ours[1], theirs[1]), (name, kw, ours[1], theirs[1])
        same_warnings(ours[2], theirs[2])
    return ours, theirs


NAMES = {
    "int": [0, 1, 2, 3, 4],
    "str": ["ant", "bee", "cat", "dog", "eel"],
    "float": [-1.0, 0.0, 2.0, 5.0, 9.0],
}


@st.composite
def multiclass_data(draw, probabilities=True):
    n = draw(st.integers(1, 40))
    k = draw(st.integers(3, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    names = np.array(NAMES[draw(st.sampled_from(sorted(NAMES)))][:k])
    present = draw(st.sampled_from(["all", "all", "some", "two"]))
    pool = k if present == "all" else (k - 1 if present == "some" else 2)
    codes = rng.integers(0, pool, n)
    if present == "all" and n >= k:
        codes[:k] = np.arange(k)
    y = names[codes]
    digits = draw(st.sampled_from([1, 2, 6]))
    p = rng.dirichlet(np.full(k, draw(st.sampled_from([0.3, 1.0, 5.0]))), n)
    p = np.round(p, digits)  # ties
    if probabilities:
        p[:, -1] = np.clip(1 - p[:, :-1].sum(axis=1), 0, 1)
        p = np.round(p, 12)
    kind = draw(st.sampled_from(["none", "int", "float"]))
    w = None
    if kind == "int":
        w = rng.integers(0, 4, n).astype(float)
    elif kind == "float":
        w = rng.random(n) * 3 + 0.01
    if w is not None and not w.any():
        w[0] = 1.0
    labels = draw(st.sampled_from(["none", "sorted", "sorted", "reversed"]))
    lab = (
        None if labels == "none" else (sorted(names.tolist()) if labels == "sorted" else names.tolist()[::-1])
    )
    return y, p, w, lab, sorted(names.tolist())


@settings(max_examples=200, deadline=None)
@given(
    multiclass_data(),
    st.sampled_from(["ovr", "ovo", "raise"]),
    st.sampled_from(["macro", "weighted", "micro", None, "samples"]),
    st.booleans(),
)
def test_roc_auc_multiclass_equals_scikit_learn(data, multi_class, average, weighted):
    y, p, w, labels, _names = data
    agree(
        "roc_auc_score",
        y,
        p,
        multi_class=multi_class,
        average=average,
        labels=labels,
        sample_weight=w if weighted else None,
    )


@st.composite
def multilabel_data(draw):
    n = draw(st.integers(1, 30))
    m = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random((n, m)) < draw(st.sampled_from([0.1, 0.4, 0.8]))).astype(int)
    if draw(st.booleans()):
        y[:, rng.integers(0, m)] = 0  # an all-zero column
    s = np.round(rng.random((n, m)), draw(st.sampled_from([1, 2, 6])))
    kind = draw(st.sampled_from(["none", "int", "float"]))
    w = None
    if kind == "int":
        w = rng.integers(0, 4, n).astype(float)
        w[0] = max(w[0], 1.0)
    elif kind == "float":
        w = rng.random(n) * 3 + 0.01
    return y, s, w


@settings(max_examples=200, deadline=None)
@given(
    multilabel_data(),
    st.sampled_from(["macro", "weighted", "micro", "samples", None]),
    st.sampled_from([None, 0.5]),
)
def test_multilabel_areas_equal_scikit_learn(data, average, max_fpr):
    y, s, w = data
    ours, theirs = agree("roc_auc_score", y, s, average=average, sample_weight=w, max_fpr=max_fpr)
    if max_fpr is None:
        agree("average_precision_score", y, s, average=average, sample_weight=w)


@settings(max_examples=150, deadline=None)
@given(multiclass_data(), st.sampled_from(["macro", "weighted", "micro", "samples", None]))
def test_average_precision_multiclass_equals_scikit_learn(data, average):
    y, p, w, _labels, _names = data
    agree("average_precision_score", y, p, average=average, sample_weight=w)


@settings(max_examples=200, deadline=None)
@given(multiclass_data(probabilities=False), st.booleans(), st.booleans(), st.booleans())
def test_log_loss_multiclass_equals_scikit_learn(data, normalize, renormalise, weighted):
    y, p, w, labels, _names = data
    if renormalise:  # rows summing to one; else scikit-learn's warning
        p = p / np.where(p.sum(axis=1, keepdims=True) > 0, p.sum(axis=1, keepdims=True), 1)
    kw = {"normalize": normalize, "labels": labels, "sample_weight": w if weighted else None}
    agree("log_loss", y, p, **kw)


@settings(max_examples=200, deadline=None)
@given(multiclass_data(probabilities=False), st.sampled_from(["auto", True, False]), st.booleans())
def test_brier_multiclass_equals_scikit_learn(data, half, two_columns):
    y, p, w, labels, _names = data
    if two_columns:  # (n, 2) probabilities of two labels: scikit-learn's multiclass form too
        y, p, labels = np.where(y == y[0], y[0], "other" if y.dtype.kind == "U" else -7), p[:, :2], None
        if len(np.unique(y)) == 2:
            labels = sorted(np.unique(y).tolist())
    agree("brier_score_loss", y, p, sample_weight=w, labels=labels, scale_by_half=half)


@settings(max_examples=100, deadline=None)
@given(multiclass_data(probabilities=False), st.integers(1, 4), st.booleans())
def test_top_k_still_agrees_with_labels_and_weights(data, k, normalize):
    y, p, w, labels, _names = data
    agree("top_k_accuracy_score", y, p, k=k, normalize=normalize, sample_weight=w, labels=labels)


# -- Hand and Till against pairwise counting ------------------------------------------------------------
def hand_till_by_pairs(y: list, p: list, classes: list, weighted: bool) -> float:
    """Hand and Till (2001) by counting every pair of cases in Python loops: for each pair of classes
    present, the mean of A(a|b) (column a ranks a's case above b's, ties half) and A(b|a)."""
    present = [c for c in classes if c in y]
    total = 0.0
    weights = 0.0
    for a, b in itertools.combinations(present, 2):
        ia, ib = classes.index(a), classes.index(b)
        cases_a = [i for i, t in enumerate(y) if t == a]
        cases_b = [i for i, t in enumerate(y) if t == b]

        def area(col: int, pos: list, neg: list) -> float:
            hits = 0.0
            for i in pos:
                for j in neg:
                    hits += 1.0 if p[i][col] > p[j][col] else (0.5 if p[i][col] == p[j][col] else 0.0)
            return hits / (len(pos) * len(neg))

        pair = (area(ia, cases_a, cases_b) + area(ib, cases_b, cases_a)) / 2
        share = (len(cases_a) + len(cases_b)) / len(y) if weighted else 1.0
        total += share * pair
        weights += share
    return total / weights


@settings(max_examples=100, deadline=None)
@given(multiclass_data(), st.booleans())
def test_one_vs_one_is_hand_and_till_by_pairwise_counting(data, weighted):
    y, p, _w, _labels, names = data
    if len(set(y.tolist())) < 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            ours = F.roc_auc_score(
                y, p, multi_class="ovo", average="weighted" if weighted else "macro", labels=names
            )
        except InvalidDataError:  # rows off the simplex: scikit-learn's error
            assert not np.allclose(1, p.sum(axis=1))
            return
    ref = hand_till_by_pairs(y.tolist(), p.tolist(), names, weighted)
    assert abs(ours - ref) <= 1e-12 * max(1.0, abs(ref))


# -- the fixed cases: scikit-learn's texts ------------------------------------------------------------------
Y3 = np.array([0, 1, 2, 2, 1, 0])
P3 = np.array(
    [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6], [0.3, 0.3, 0.4], [0.3, 0.4, 0.3], [0.5, 0.5, 0.0]]
)

P4 = np.c_[P3 * 0.9, np.full(6, 0.1)]


@pytest.mark.parametrize(
    ("name", "args", "kw", "text"),
    [
        ("roc_auc_score", (Y3, P3), {}, "multi_class must be in ('ovo', 'ovr')"),
        ("roc_auc_score", (Y3, P3), {"multi_class": "ovr", "max_fpr": 0.5}, "Partial AUC computation"),
        ("roc_auc_score", (Y3, P3 * 2), {"multi_class": "ovr"}, "Target scores need to be probabilities"),
        ("roc_auc_score", (Y3, P3), {"multi_class": "ovo", "average": "micro"}, "average must be one of"),
        ("roc_auc_score", (Y3, P3), {"multi_class": "ovr", "labels": [2, 1, 0]}, "must be ordered"),
        ("roc_auc_score", (Y3, P3), {"multi_class": "ovr", "labels": [0, 1, 1]}, "must be unique"),
        ("roc_auc_score", (Y3, P3), {"multi_class": "ovr", "labels": [0, 1, 2, 3]}, "Number of given labels"),
        ("roc_auc_score", (Y3, P3), {"multi_class": "ovr", "labels": [0, 1, 3]}, "contains labels not in"),
        ("roc_auc_score", (Y3, P4), {"multi_class": "ovr"}, "Number of classes in y_true not equal"),
        (
            "roc_auc_score",
            (Y3, P3),
            {"multi_class": "ovo", "sample_weight": np.ones(6)},
            "sample_weight is not",
        ),
        ("average_precision_score", (Y3, P3), {"pos_label": 2}, "pos_label is fixed to 1 for multiclass"),
        ("average_precision_score", (Y3, P3[:, :2]), {}, "`y_score` needs to be of shape"),
        ("average_precision_score", (np.eye(3)[Y3], P3), {"pos_label": 0}, "fixed to 1 for multilabel"),
        ("log_loss", (Y3, P3 * 2), {}, "y_prob contains values greater than 1"),
        ("log_loss", (Y3, P3 - 0.5), {}, "y_prob contains values lower than 0"),
        ("log_loss", (Y3, P3[:, :2]), {}, "y_true and y_prob contain different number of classes: 3 vs 2"),
        ("log_loss", (Y3, P3), {"labels": [0, 1, 2, 3]}, "The number of classes in labels is different"),
        ("log_loss", (Y3, P3), {"labels": [0, 1]}, "not belonging to the passed labels"),
        ("brier_score_loss", (Y3, P3 * 2), {}, "y_prob contains values greater than 1"),
        ("brier_score_loss", (Y3, P3[:, :2]), {}, "contain different number of classes"),
    ],
)
def test_errors_say_what_scikit_learn_says(name, args, kw, text):
    with pytest.raises(ValueError) as theirs:
        getattr(sk, name)(*args, **kw)
    assert text in str(theirs.value)
    with pytest.raises((InvalidDataError, InvalidParameterError)) as ours:
        getattr(F, name)(*args, **kw)
    assert text in str(ours.value) and "\n" not in str(ours.value), str(ours.value)


def test_ovo_without_average_is_refused_as_scikit_learn_refuses_it():
    with pytest.raises(NotImplementedError, match="average=None is not implemented"):
        sk.roc_auc_score(Y3, P3, multi_class="ovo", average=None)
    with pytest.raises(InvalidParameterError, match="average=None is not implemented"):
        F.roc_auc_score(Y3, P3, multi_class="ovo", average=None)


def test_a_class_absent_from_y_true_warns_and_spreads_nan_as_scikit_learn():
    labels = [0, 1, 2, 3]
    p4 = P4
    with pytest.warns(UndefinedMeasureWarning, match="Only one class is present"):
        macro = F.roc_auc_score(Y3, p4, multi_class="ovr", labels=labels)
    assert math.isnan(macro)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted = F.roc_auc_score(Y3, p4, multi_class="ovr", labels=labels, average="weighted")
        assert close(weighted, sk.roc_auc_score(Y3, p4, multi_class="ovr", labels=labels, average="weighted"))
        per = F.roc_auc_score(Y3, p4, multi_class="ovr", labels=labels, average=None)
    assert np.isnan(per[3]) and not np.isnan(per[:3]).any()
    # one-vs-one: the pairs of the classes y_true holds only, silently (scikit-learn's rule)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert close(
            F.roc_auc_score(Y3, p4, multi_class="ovo", labels=labels),
            sk.roc_auc_score(Y3, p4, multi_class="ovo", labels=labels),
        )


def test_log_loss_warns_for_rows_off_one_and_for_unordered_labels():
    y = ["b", "a", "c", "a"]
    p = np.array([[0.2, 0.7, 0.2], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8], [0.5, 0.5, 0.0]])
    with pytest.warns(UserWarning, match="do not sum to one"):
        ours = F.log_loss(y, p)
    with pytest.warns(UserWarning, match="do not sum to one"):
        assert close(ours, sk.log_loss(y, p))
    q = p / p.sum(axis=1, keepdims=True)
    with pytest.warns(UserWarning, match=r"Pass the ordered labels=\['a', 'b', 'c'\]"):
        ours = F.log_loss(y, q, labels=["c", "b", "a"])
    assert close(ours, quiet_sk("log_loss", y, q, labels=["c", "b", "a"]))
    assert close(F.log_loss(y, q, base=2) * math.log(2), F.log_loss(y, q))


def quiet_sk(name, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sk, name)(*a, **kw)


def test_binary_input_still_refuses_two_score_columns_where_it_did():
    with pytest.raises(InvalidParameterError, match="binary ROC area only"):
        F.roc_auc_score([0, 1, 1], [[0.4, 0.6], [0.3, 0.7], [0.5, 0.5]])
    with pytest.raises(InvalidParameterError, match="binary average precision"):
        F.average_precision_score([0, 1, 1], [[0.4, 0.6], [0.3, 0.7], [0.5, 0.5]])
