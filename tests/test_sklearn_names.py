"""perfeval.functional's scikit-learn names give the installed scikit-learn's numbers, arrays, warnings and
errors (hypothesis, random data with ties, weights, string labels, pos_label, one class), at 1e-12."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import perfeval.functional as F
from perfeval.exceptions import InvalidDataError, InvalidParameterError, UndefinedMeasureWarning
from perfeval.functional import sklearn_labels as _sklearn_labels
from perfeval.functional import sklearn_names as _sklearn_names

sk = pytest.importorskip("sklearn.metrics")


def close(a: float, b: float) -> bool:
    if a == b:  # infinities too
        return True
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


def same_arrays(ours, theirs) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        assert a.shape == b.shape, (a, b)
        assert np.allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True), (a, b)


def quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **kw)


def both(name, *a, **kw):
    """(ours, scikit-learn's) of the same call; each an exception type when it raises."""
    out = []
    for mod in (F, sk):
        try:
            out.append(quiet(getattr(mod, name), *a, **kw))
        except ValueError as e:  # perfeval's errors are ValueErrors too
            out.append(type(e))
    return out


#: label codings: (negative, positive, pos_label to pass or None)
CODINGS = [(0, 1, None), (-1, 1, None), (False, True, None), ("no", "yes", "yes"), (2, 7, 7), ("b", "a", "a")]


@st.composite
def binary_data(draw, weights=("none", "int", "dyadic")):
    n = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    rate = draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))
    is_pos = rng.random(n) < rate
    neg, pos, pos_label = draw(st.sampled_from(CODINGS))
    y = np.where(is_pos, np.array(pos, dtype=object), np.array(neg, dtype=object))
    y = (
        y.astype(type(pos) if not isinstance(pos, bool) else bool)
        if not isinstance(pos, str)
        else y.astype(str)
    )
    s = np.round(rng.random(n), draw(st.sampled_from([1, 2, 6])))  # ties
    kind = draw(st.sampled_from(weights))
    w = None
    if kind == "int":
        w = rng.integers(0, 4, n).astype(float)
    elif kind == "dyadic":  # sums exact in float64: the dropped points cannot differ by rounding
        w = rng.integers(0, 9, n) / 4.0
    elif kind == "float":
        w = rng.random(n) * 3 + 0.01
    return y, s, w, pos_label


@settings(max_examples=150, deadline=None)
@given(binary_data(), st.booleans())
def test_curves_equal_scikit_learn(data, drop):
    y, s, w, pos_label = data
    for name in ("roc_curve", "precision_recall_curve", "det_curve"):
        ours, theirs = both(name, y, s, pos_label=pos_label, sample_weight=w, drop_intermediate=drop)
        if isinstance(theirs, type):
            assert isinstance(ours, type), (name, ours)
            continue
        assert not isinstance(ours, type), (name, ours)
        same_arrays(ours, theirs)


@settings(max_examples=150, deadline=None)
@given(binary_data(weights=("none", "int", "float")), st.sampled_from([None, 0.2, 0.5, 1.0]))
@example((np.array([1, 0]), np.array([0.2, 0.7]), np.array([0.0, 0.0]), None), None)  # every weight 0
def test_areas_equal_scikit_learn(data, max_fpr):
    y, s, w, pos_label = data
    ours, theirs = both("roc_auc_score", y, s, sample_weight=w, max_fpr=max_fpr)
    if isinstance(theirs, type) and isinstance(ours, type):  # both refuse (every weight 0: no case)
        assert issubclass(ours, ValueError) and (w is not None and not w.any()), (ours, theirs)
    elif isinstance(theirs, type) or isinstance(ours, type):
        # scikit-learn fails inside its partial area when one class is weighted 0; perfeval says NaN
        assert max_fpr not in (None, 1.0) and (isinstance(theirs, type) or math.isnan(ours))
    else:
        assert close(ours, theirs), (ours, theirs)
    kw = {} if pos_label is None else {"pos_label": pos_label}
    ours, theirs = both("average_precision_score", y, s, sample_weight=w, **kw)
    if isinstance(theirs, type):
        assert ours is theirs or issubclass(ours, ValueError)
    else:
        assert close(ours, theirs), (ours, theirs)


@settings(max_examples=150, deadline=None)
@given(binary_data(weights=("none", "int", "float")), st.sampled_from(["auto", True, False]), st.booleans())
def test_probability_losses_equal_scikit_learn(data, half, normalize):
    y, s, w, pos_label = data
    s = np.clip(s, 0, 1)
    ours, theirs = both("brier_score_loss", y, s, sample_weight=w, pos_label=pos_label, scale_by_half=half)
    if isinstance(theirs, type):
        assert isinstance(ours, type) and issubclass(ours, ValueError)
    elif w is not None and not w.any():
        assert ours is not None
    else:
        assert close(ours, theirs), (ours, theirs)
    labels = sorted(set(y.tolist())) if len(set(y.tolist())) == 2 else None
    for lab in (None, labels):
        if w is not None and not w.any():
            continue
        ours, theirs = both("log_loss", y, s, sample_weight=w, labels=lab, normalize=normalize)
        if isinstance(theirs, type):
            assert isinstance(ours, type) and issubclass(ours, ValueError), (ours, theirs)
        else:
            assert close(ours, theirs), (ours, theirs)


LABELS = [([0, 1], 1), ([-1, 1], 1), (["cat", "dog"], "dog"), (["cat", "dog"], "cat"), ([3, 5], 3)]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 30),
    st.integers(0, 2**32 - 1),
    st.sampled_from(LABELS),
    st.sampled_from(["none", "int", "float"]),
    st.sampled_from(["warn", 0.0, 1.0, np.nan]),
)
def test_hard_label_scores_equal_scikit_learn(n, seed, labels, weights, zero_division):
    rng = np.random.default_rng(seed)
    values, pos_label = labels
    values = np.array(values)
    y = values[(rng.random(n) < rng.random()).astype(int)]
    p = values[(rng.random(n) < rng.random()).astype(int)]
    w = {"none": None, "int": rng.integers(0, 3, n).astype(float), "float": rng.random(n) + 0.01}[weights]
    if w is not None and not w.any():
        w[0] = 1.0
    zd = {"zero_division": zero_division}
    for name, kw in [
        ("precision_score", {"pos_label": pos_label, **zd}),
        ("recall_score", {"pos_label": pos_label, **zd}),
        ("f1_score", {"pos_label": pos_label, **zd}),
        ("fbeta_score", {"pos_label": pos_label, "beta": 0.5, **zd}),
        ("fbeta_score", {"pos_label": pos_label, "beta": 2.0, **zd}),
        ("accuracy_score", {}),
        ("accuracy_score", {"normalize": False}),
        ("matthews_corrcoef", {}),
        ("balanced_accuracy_score", {}),
        ("balanced_accuracy_score", {"adjusted": True}),
    ]:
        ours, theirs = both(name, y, p, sample_weight=w, **kw)
        if isinstance(theirs, type):
            assert isinstance(ours, type), (name, kw, ours, theirs)
        else:
            assert close(ours, theirs), (name, kw, ours, theirs)
    for normalize in (None, "true", "pred", "all"):
        ours, theirs = both("confusion_matrix", y, p, sample_weight=w, normalize=normalize)
        assert ours.dtype == theirs.dtype and np.allclose(ours, theirs, rtol=1e-12, atol=0)
    ours, theirs = both("confusion_matrix", y, p, labels=values[::-1])
    assert np.array_equal(ours, theirs)


@settings(max_examples=120, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(2, 9),
    st.integers(0, 2**32 - 1),
    st.sampled_from([None, 1, 2, 5, 20]),
    st.booleans(),
    st.booleans(),
)
def test_ndcg_and_dcg_equal_scikit_learn(rows, cols, seed, k, ignore_ties, weighted):
    rng = np.random.default_rng(seed)
    rel = rng.integers(0, 4, (rows, cols)) * (rng.random((rows, cols)) < 0.6)
    score = np.round(rng.random((rows, cols)), 1)  # many ties
    w = rng.random(rows) + 0.1 if weighted else None
    kw = {"k": k, "ignore_ties": ignore_ties, "sample_weight": w}
    assert close(F.ndcg_score(rel, score, **kw), sk.ndcg_score(rel, score, **kw))
    for base in (2, 10):
        assert close(
            F.dcg_score(rel, score, log_base=base, **kw), sk.dcg_score(rel, score, log_base=base, **kw)
        )
    frac = rel * 0.37  # continuous relevance
    assert close(F.ndcg_score(frac, score, k=k), sk.ndcg_score(frac, score, k=k))


def test_one_class_warns_and_gives_scikit_learns_values():
    y, s = np.ones(5, dtype=int), np.array([0.1, 0.4, 0.4, 0.8, 0.9])
    with pytest.warns(UndefinedMeasureWarning, match="No negative samples"):
        fpr, tpr, thr = F.roc_curve(y, s)
    assert np.isnan(fpr).all() and np.allclose(tpr, quiet(sk.roc_curve, y, s)[1])
    with pytest.warns(UndefinedMeasureWarning, match="Only one class"):
        assert math.isnan(F.roc_auc_score(y, s))
    assert math.isnan(quiet(sk.roc_auc_score, y, s))
    with pytest.warns(UndefinedMeasureWarning, match="recall is set to one"):
        assert F.average_precision_score(1 - y, s) == 0.0 == quiet(sk.average_precision_score, 1 - y, s)
    with pytest.warns(UndefinedMeasureWarning, match="Precision is ill-defined"):
        assert F.precision_score([1, 0, 1], [0, 0, 0]) == 0.0
    with pytest.raises(ValueError, match="Only one class is present"):
        F.det_curve(y, s)
    with pytest.raises(ValueError, match="only one label"):
        F.log_loss(y, np.full(5, 0.5))
    assert close(
        F.log_loss(y, np.full(5, 0.5), labels=[0, 1]), sk.log_loss(y, np.full(5, 0.5), labels=[0, 1])
    )


def test_errors_mean_what_scikit_learns_mean():
    y, s = ["a", "b", "b", "a"], [0.1, 0.9, 0.4, 0.3]
    for name in ("roc_curve", "precision_recall_curve", "det_curve"):
        with pytest.raises(ValueError, match="pos_label is not specified"):
            getattr(F, name)(y, s)
        with pytest.raises(ValueError, match="pos_label is not specified"):
            getattr(sk, name)(y, s)
    with pytest.raises(ValueError, match="pos_label=1 is not a valid label"):
        F.average_precision_score(y, s)
    with pytest.raises(ValueError, match="pos_label=1 is not a valid label"):
        F.precision_score(y, ["a", "a", "b", "b"])
    assert F.roc_auc_score(y, s) == sk.roc_auc_score(y, s)  # the greater label is positive
    with pytest.raises(ValueError, match="greater than 1"):
        F.brier_score_loss([0, 1], [0.5, 1.5])
    with pytest.raises(ValueError, match="negative y_true"):
        F.ndcg_score([[1, -1]], [[0.5, 0.2]])
    with pytest.raises(ValueError, match="more than 1 document"):
        F.ndcg_score([[1], [0]], [[0.5], [0.2]])
    with pytest.raises(ValueError, match="continuous values"):
        F.accuracy_score([0, 1], [0.2, 0.9])
    with pytest.raises(ValueError, match="Mix of label input types"):
        F.accuracy_score(["a", "b"], [0, 1])


@pytest.mark.parametrize("name", ["ndcg_score", "dcg_score"])
def test_one_document_a_query_is_refused_as_scikit_learn_refuses_it(name):
    """scikit-learn reads a one-column y_true as a 1-D target: ndcg_score says NDCG needs more than one
    document, dcg_score that the format is not supported; both raise a ValueError."""
    for rel, s in (([[1]], [[0.5]]), ([[1], [0]], [[0.5], [0.2]]), ([[2], [1]], [[0.5], [0.2]])):
        ours, theirs = both(name, rel, s)
        assert isinstance(theirs, type) and issubclass(theirs, ValueError)
        assert ours is InvalidDataError, (rel, ours)
        with pytest.raises(InvalidDataError) as e:
            getattr(F, name)(rel, s)
        assert str(e.value).startswith(f"{name}: ") and "\n" not in str(e.value)


def test_what_perfeval_does_not_compute_is_refused_not_approximated():
    y3, s = [0, 1, 2, 1], [0.1, 0.9, 0.4, 0.3]
    with pytest.raises(InvalidParameterError, match="binary ROC area only"):
        F.roc_auc_score([0, 1, 1, 0], np.eye(2)[[0, 1, 1, 0]])  # multiclass: tests/test_sklearn_scores.py
    with pytest.raises(ValueError, match="needs to be of shape"):
        F.average_precision_score(y3, s)
    # averages are computed now (perfeval.functional.sklearn_labels; tests/test_sklearn_labels.py)
    assert F.precision_score([0, 1, 1], [0, 1, 0], average="macro") == sk.precision_score(
        [0, 1, 1], [0, 1, 0], average="macro"
    )
    with pytest.raises(ValueError, match="multiclass"):
        F.f1_score(y3, [0, 1, 1, 2])
    with pytest.raises(InvalidParameterError, match="positive class's column"):
        F.brier_score_loss([0, 1], [[[0.4, 0.6]], [[0.3, 0.7]]])
    with pytest.raises(InvalidParameterError, match="zero_division"):
        F.recall_score([0, 1], [0, 1], zero_division="nan")


def test_first_threshold_is_inf_as_in_the_installed_scikit_learn():
    import sklearn

    y, s = [0, 1, 1, 0, 1], [3, 7, 7, 1, 9]  # integer scores: thresholds still float
    ours, theirs = F.roc_curve(y, s), sk.roc_curve(y, s)
    assert ours[2][0] == np.inf == theirs[2][0], sklearn.__version__
    assert ours[2].dtype == theirs[2].dtype == np.float64
    same_arrays(ours, theirs)


def test_the_perfeval_forms_keep_working():
    y, s = np.array([1, 0, 1, 0, 1]), np.array([0.9, 0.6, 0.4, 0.1, 0.7])
    assert F.confusion_matrix(y, s, threshold=0.5).tolist() == [[1, 1], [1, 2]]
    with pytest.warns(DeprecationWarning, match="threshold=0.5"):
        assert F.confusion_matrix(y, s).tolist() == [[1, 1], [1, 2]]
    assert close(F.log_loss(y, s, base=2) * math.log(2), F.log_loss(y, s))
    with pytest.warns(DeprecationWarning, match="use roc_auc_score"):
        assert F.roc_auc(y, s) == F.roc_auc_score(y, s)
    with pytest.warns(FutureWarning, match="y_proba"):
        assert F.log_loss(y, y_pred=s) == F.log_loss(y, s) and close(F.log_loss(y, s), sk.log_loss(y, s))
    full = F.roc_curve(y, s, drop_intermediate=False)
    assert len(full[0]) == len(np.unique(s)) + 1


def test_signatures_are_scikit_learns():
    """Every parameter of the installed scikit-learn's function is one of ours, of the same kind and
    default (its deprecated spellings aside); ours may add perfeval's own (``base``, ``threshold``)."""
    import inspect

    import sklearn.calibration

    names = list(_sklearn_names.__all__) + list(_sklearn_labels.__all__)
    assert {"top_k_accuracy_score", "calibration_curve"} <= set(names)
    for name in names:
        peer = sklearn.calibration if name == "calibration_curve" else sk
        theirs = inspect.signature(getattr(peer, name)).parameters
        ours = inspect.signature(getattr(F, name)).parameters
        for p in theirs.values():
            if isinstance(p.default, str) and p.default == "deprecated":
                continue
            assert p.name in ours, (name, p.name)
            q = ours[p.name]
            assert q.kind == p.kind, (name, p.name, q.kind, p.kind)
            assert q.default is p.default or q.default == p.default, (name, p.name, q.default, p.default)
        extra = set(ours) - set(theirs)
        assert extra <= {"base", "threshold"}, (name, extra)


# -- all-zero sample_weight ------------------------------------------------------------------------------
_Y = np.array([0, 1, 1, 0, 1, 0])
_S = np.array([0.1, 0.8, 0.5, 0.5, 0.3, 0.9])  # a tie of both classes
_P = (_S >= 0.5).astype(int)
_REL = np.array([[1, 0, 2, 0, 1], [0, 3, 1, 1, 0]])
_RS = np.array([[0.1, 0.8, 0.6, 0.6, 0.3], [0.5, 0.5, 0.2, 0.9, 0.1]])
_YM = np.array([0, 1, 2, 2, 1, 0])
_SM = np.array(
    [[0.5, 0.3, 0.2], [0.1, 0.1, 0.8], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2], [1.0, 0.0, 0.0]]
)

#: every scikit-learn name perfeval gives (a new one is a new case of the tests parametrised by it)
SKLEARN_NAMES = list(_sklearn_names.__all__) + list(_sklearn_labels.__all__)

#: every scikit-learn name of perfeval.functional.sklearn_names that takes sample_weight: its arguments and
#: the variants of its options that change what all-zero weights give (a new name must be added here)
ZERO_WEIGHT_CALLS = {
    "roc_auc_score": ((_Y, _S), [{}, {"max_fpr": 0.5}]),
    "average_precision_score": ((_Y, _S), [{}]),
    "roc_curve": ((_Y, _S), [{}, {"drop_intermediate": False}]),
    "precision_recall_curve": ((_Y, _S), [{}]),
    "det_curve": ((_Y, _S), [{}]),
    "brier_score_loss": ((_Y, _S), [{}]),
    "log_loss": ((_Y, _S), [{}, {"normalize": False}]),
    "ndcg_score": ((_REL, _RS), [{}, {"k": 2}]),
    "dcg_score": ((_REL, _RS), [{}]),
    "accuracy_score": ((_Y, _P), [{}, {"normalize": False}]),
    "precision_score": ((_Y, _P), [{}, {"zero_division": 1.0}]),
    "recall_score": ((_Y, _P), [{}, {"zero_division": 1.0}]),
    "f1_score": ((_Y, _P), [{}, {"zero_division": np.nan}]),
    "fbeta_score": ((_Y, _P), [{"beta": 2}]),
    "confusion_matrix": ((_Y, _P), [{}, {"normalize": "all"}, {"labels": [1, 0]}]),
    "matthews_corrcoef": ((_Y, _P), [{}]),
    "balanced_accuracy_score": ((_Y, _P), [{}, {"adjusted": True}]),
    "precision_recall_fscore_support": ((_YM, _YM[::-1]), [{}, {"average": "macro"}]),
    "cohen_kappa_score": ((_YM, _YM[::-1]), [{}, {"weights": "quadratic"}]),
    "multilabel_confusion_matrix": ((_YM, _YM[::-1]), [{}]),
    "hamming_loss": ((_YM, _YM[::-1]), [{}]),
    "jaccard_score": ((_YM, _YM[::-1]), [{"average": "micro"}, {"average": None}]),
    "classification_report": ((_YM, _YM[::-1]), [{}]),
    "top_k_accuracy_score": ((_YM, _SM), [{}, {"normalize": False}, {"k": 1}]),
}


@pytest.mark.parametrize("name", SKLEARN_NAMES)
def test_all_zero_sample_weight_as_scikit_learn(name):
    """Weights that are all 0: each scikit-learn name raises where the installed scikit-learn raises
    (perfeval's error, a ValueError where scikit-learn's is one, one line naming the function) and
    returns scikit-learn's value where it returns one (top_k_accuracy_score(normalize=False): 0)."""
    import inspect

    import sklearn.calibration

    from perfeval.exceptions import PerfError

    peer = getattr(sklearn.calibration if name == "calibration_curve" else sk, name)
    ours_fn = getattr(F, name)
    if "sample_weight" not in inspect.signature(peer).parameters:
        assert "sample_weight" not in inspect.signature(ours_fn).parameters
        return
    args, variants = ZERO_WEIGHT_CALLS[name]
    n = len(args[0])
    for kw in variants:
        for w in (np.zeros(n), np.zeros(n, dtype=np.int64), [0] * n, np.full(n, -0.0)):
            ours = outcome(ours_fn, *args, sample_weight=w, **kw)
            theirs = outcome(peer, *args, sample_weight=w, **kw)
            if isinstance(theirs, type):
                assert isinstance(ours, type) and issubclass(ours, PerfError), (kw, ours, theirs)
                if issubclass(theirs, ValueError):
                    assert issubclass(ours, ValueError), (kw, ours, theirs)
                with pytest.raises(PerfError) as e:
                    quiet(ours_fn, *args, sample_weight=w, **kw)
                assert "\n" not in str(e.value) and str(e.value).startswith(f"{name}: "), str(e.value)
            else:
                assert not isinstance(ours, type), (kw, ours, theirs)
                if isinstance(theirs, tuple) or isinstance(theirs, np.ndarray):
                    same_arrays(list(ours), list(theirs))
                else:
                    assert close(ours, theirs), (kw, ours, theirs)


# -- top_k_accuracy_score ----------------------------------------------------------------------------------
def outcome(fn, *a, **kw):
    """The value, or the exception type (any: scikit-learn's zero weight sum is a ZeroDivisionError)."""
    try:
        return quiet(fn, *a, **kw)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)


#: label sets of the multiclass cases: numbers, strings, and numbers no class of which is 0
CLASS_SETS = [[0, 1, 2], [0, 1, 2, 3, 4], ["ant", "bee", "cat", "dog"], [-3, 7, 11]]


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 30),
    st.integers(0, 2**32 - 1),
    st.sampled_from(CLASS_SETS),
    st.sampled_from([1, 2, 3, 4, 6]),
    st.sampled_from([1, 2, 6]),
    st.sampled_from(["none", "int", "float"]),
    st.booleans(),
    st.booleans(),
)
def test_top_k_accuracy_equals_scikit_learn_multiclass(
    n, seed, classes, k, decimals, weights, normalize, pass_labels
):
    """Scores rounded to one decimal tie often, within a row and across rows; the true label's place
    among tied labels is scikit-learn's (a later column first).  y_true may lack some labels (then
    ``labels`` is needed by both, or both refuse)."""
    rng = np.random.default_rng(seed)
    values = np.array(classes)
    y = values[rng.integers(0, len(values), n)]
    s = np.round(rng.random((n, len(values))), decimals)
    if decimals == 1:
        s[rng.random(n) < 0.2] = 0.5  # whole rows of one score
    w = {"none": None, "int": rng.integers(0, 3, n).astype(float), "float": rng.random(n) * 2 + 0.01}[weights]
    kw = {"k": k, "normalize": normalize, "sample_weight": w, "labels": values if pass_labels else None}
    ours, theirs = outcome(F.top_k_accuracy_score, y, s, **kw), outcome(sk.top_k_accuracy_score, y, s, **kw)
    if isinstance(theirs, type):
        assert isinstance(ours, type) and issubclass(ours, InvalidParameterError), (ours, theirs)
    else:
        assert not isinstance(ours, type), (ours, theirs)
        assert close(ours, theirs), (ours, theirs)


@settings(max_examples=200, deadline=None)
@given(
    binary_data(weights=("none", "int", "float")),
    st.sampled_from([1, 2, 3]),
    st.sampled_from(["prob", "decision", "integer"]),
    st.booleans(),
    st.booleans(),
)
def test_top_k_accuracy_equals_scikit_learn_binary(data, k, scale, normalize, column):
    """1-D scores (or one column): k = 1 predicts the greater label above 0.5 for probabilities and
    above 0 for other scores (a score exactly at the threshold is the smaller label), k >= 2 counts
    every case; one class in y_true needs ``labels``."""
    y, s, w, _pos = data
    s = {"prob": s, "decision": np.round((s - 0.5) * 6, 1), "integer": np.round(s * 4).astype(np.int64) - 2}[
        scale
    ]
    if column:
        s = s.reshape(-1, 1)
    for labels in (None, np.unique(y) if len(np.unique(y)) == 2 else None):
        kw = {"k": k, "normalize": normalize, "sample_weight": w, "labels": labels}
        ours, theirs = (
            outcome(F.top_k_accuracy_score, y, s, **kw),
            outcome(sk.top_k_accuracy_score, y, s, **kw),
        )
        if isinstance(theirs, type):
            assert isinstance(ours, type) and issubclass(ours, InvalidParameterError), (ours, theirs)
        else:
            assert not isinstance(ours, type), (ours, theirs)
            assert close(ours, theirs), (ours, theirs)


def test_top_k_ties_go_to_the_later_column_as_in_scikit_learn():
    equal = np.full((3, 3), 0.25)
    y = np.array([0, 1, 2])
    for k, hits in ((1, [False, False, True]), (2, [False, True, True]), (3, [True, True, True])):
        want = float(np.mean(hits))
        assert (
            quiet(F.top_k_accuracy_score, y, equal, k=k)
            == want
            == quiet(sk.top_k_accuracy_score, y, equal, k=k)
        )
    # a tie above the true label: the later tied column outranks it, the earlier one does not
    s = np.array([[0.9, 0.5, 0.9, 0.1]])
    for true, k in ((0, 1), (0, 2), (2, 1), (1, 3)):
        ours = F.top_k_accuracy_score([true], s, k=k, labels=[0, 1, 2, 3])
        assert ours == sk.top_k_accuracy_score([true], s, k=k, labels=[0, 1, 2, 3]), (true, k)
    assert F.top_k_accuracy_score([0], s, k=1, labels=[0, 1, 2, 3]) == 0.0  # column 2 comes first
    # integer scores beyond 2**53 stay distinct (not merged into ties by a cast to float64)
    big = np.array([[2**53 + 1, 2**53, 0]], dtype=np.int64)
    assert F.top_k_accuracy_score([1], big, k=1, labels=[0, 1, 2]) == 0.0
    assert sk.top_k_accuracy_score([1], big, k=1, labels=[0, 1, 2]) == 0.0
    # -0.0 and 0.0 tie, as in numpy's sort
    z = np.array([[0.0, -0.0, -1.0]])
    assert F.top_k_accuracy_score([0], z, k=1, labels=[0, 1, 2]) == sk.top_k_accuracy_score(
        [0], z, k=1, labels=[0, 1, 2]
    )


def test_top_k_k_at_least_the_classes_warns_as_scikit_learn():
    with pytest.warns(UndefinedMeasureWarning, match=r"'k' \(3\) greater than or equal to 'n_classes' \(3\)"):
        assert F.top_k_accuracy_score([0, 1, 2], np.eye(3), k=3) == 1.0
    with pytest.warns(UndefinedMeasureWarning, match="perfect score"):
        assert F.top_k_accuracy_score([0, 1, 1], [0.2, 0.7, 0.1]) == 1.0  # binary, k = 2


@pytest.mark.parametrize(
    "args,kw,match",
    [
        (([0, 1, 2], np.eye(3)), {"k": 0}, "k must be a whole number >= 1, got 0"),
        (([0, 1, 2], np.eye(3)), {"k": True}, "k must be a whole number"),
        (([0, 1, 2], np.eye(3)), {"k": 1.5}, "k must be a whole number"),
        (([0, 1, 2], np.eye(3)), {"normalize": "yes"}, "normalize must be True or False"),
        (([0, 1, 2], np.eye(3)), {"labels": [0, 1, 1]}, "must be unique"),
        (([0, 1, 2], np.eye(3)), {"labels": [2, 1, 0]}, "must be ordered"),
        (([0, 1, 2], np.eye(3)), {"labels": [0, 1, 2, 3]}, r"Number of given labels \(4\)"),
        (([0, 1, 5], np.eye(3)), {"labels": [0, 1, 2]}, "not in parameter 'labels': 5 at index 2"),
        (([0, 1, 2], np.eye(4)[:3]), {}, r"Number of classes in 'y_true' \(3\) not equal"),
        (([0, 1, 1], np.eye(3)), {}, "binary while y_score is 2d with 3 classes"),
        (([0, 1, 2], [0.1, 0.5, 0.2]), {}, "needs to be of shape `\\(n_samples, n_classes\\)`"),
        (([0, 1, 2], [[0.1, np.nan, 0.3]] * 3), {}, "holds nan at row 0, column 1"),
        (([0, 1, 2], [[0.1, np.inf, 0.3]] * 3), {}, "scores must be finite"),
        (([0, 1, 2], [["a", "b", "c"]] * 3), {}, "must hold numbers"),
        (([0, 1, 2, 1], np.eye(3)), {}, "different lengths, 4 and 3"),
        (([0, 1, 2], np.eye(3)), {"sample_weight": [1, -1, 1]}, "non-negative"),
        (([0, 1, 2], np.eye(3)), {"sample_weight": [1, 1]}, "2 values for 3 cases"),
        (([0, 1, 2], np.eye(3)), {"sample_weight": [0, 0, 0]}, "weights sum to zero"),
        (([0.5, 1.5, 2.5], np.eye(3)), {}, "continuous values"),
        (([0, 1, 2], np.ones((3, 3, 1))), {}, "1-D or 2-D"),
    ],
)
def test_top_k_bad_input_is_one_line_of_ours(args, kw, match):
    with pytest.raises(InvalidParameterError, match=match) as e:
        quiet(F.top_k_accuracy_score, *args, **kw)
    assert "\n" not in str(e.value) and str(e.value).startswith("top_k_accuracy_score: ")


# -- calibration_curve -------------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(
    binary_data(weights=("none",)),
    st.integers(1, 12),
    st.sampled_from(["uniform", "quantile"]),
    st.sampled_from(["float64", "float32", "edges"]),
)
def test_calibration_curve_equals_scikit_learn(data, n_bins, strategy, kind):
    """Ties, probabilities exactly on the bin edges (the edges of linspace and of the percentiles),
    float32 input, string labels, one class."""
    from sklearn.calibration import calibration_curve

    y, s, _w, pos_label = data
    if kind == "float32":
        s = s.astype(np.float32)
    elif kind == "edges":
        s = np.linspace(0.0, 1.0, n_bins + 1)[np.arange(len(y)) % (n_bins + 1)]
    kw = {"pos_label": pos_label, "n_bins": n_bins, "strategy": strategy}
    ours, theirs = outcome(F.calibration_curve, y, s, **kw), outcome(calibration_curve, y, s, **kw)
    if isinstance(theirs, type):
        assert isinstance(ours, type) and issubclass(ours, InvalidParameterError), (ours, theirs)
    else:
        assert not isinstance(ours, type), (ours, theirs)
        same_arrays(ours, theirs)
        assert ours[0].dtype == ours[1].dtype == np.float64


def test_calibration_curve_pos_label_and_quantile_edges():
    from sklearn.calibration import calibration_curve

    y = np.array(["ham", "spam", "spam", "ham", "spam", "ham", "spam"])
    p = np.array([0.1, 0.8, 0.55, 0.3, 0.9, 0.55, 0.2])
    for pos in ("spam", "ham"):
        for strategy in ("uniform", "quantile"):
            same_arrays(
                F.calibration_curve(y, p, pos_label=pos, n_bins=3, strategy=strategy),
                calibration_curve(y, p, pos_label=pos, n_bins=3, strategy=strategy),
            )
    t, m = F.calibration_curve([0, 1, 1, 0], [0.2, 0.2, 0.2, 0.2], n_bins=4, strategy="quantile")
    assert t.tolist() == [0.5] and m.tolist() == [0.2]  # one value: every edge is it, one bin


@pytest.mark.parametrize(
    "args,kw,match",
    [
        (([0, 1], [0.5, 1.5]), {}, r"values outside \[0, 1\]: 1.5 at index 1"),
        (([0, 1], [-0.1, 0.5]), {}, r"values outside \[0, 1\]"),
        (([0, 1], [np.nan, 0.5]), {}, "holds nan at index 0"),
        (([0, 1], [0.5, 0.5]), {"n_bins": 0}, "n_bins must be a whole number >= 1"),
        (([0, 1], [0.5, 0.5]), {"n_bins": 2.5}, "n_bins must be a whole number"),
        (([0, 1], [0.5, 0.5]), {"strategy": "kmeans"}, "strategy must be 'uniform' or 'quantile'"),
        (([0, 1, 2], [0.1, 0.5, 0.9]), {"pos_label": 2}, "Only binary classification is supported"),
        ((["a", "b"], [0.1, 0.9]), {}, "pos_label is not specified"),
        (([0, 1, 1], [0.1, 0.9]), {}, "different lengths, 3 and 2"),
        (([0, 1], [[0.1, 0.9], [0.2, 0.8]]), {}, "one-dimensional"),
        (([0, 1], ["a", "b"]), {}, "must hold numbers"),
    ],
)
def test_calibration_curve_bad_input_is_one_line_of_ours(args, kw, match):
    with pytest.raises(InvalidParameterError, match=match) as e:
        F.calibration_curve(*args, **kw)
    assert "\n" not in str(e.value) and str(e.value).startswith("calibration_curve: ")


# -- what docs/sklearn.md says scikit-learn does where perfeval differs -----------------------------------
def test_the_differences_docs_sklearn_md_lists_are_scikit_learns():
    """Each sentence of "What differs, and why" about scikit-learn, against the installed scikit-learn."""
    import sklearn.exceptions
    from sklearn.calibration import calibration_curve

    y, s = np.array([0, 1, 1, 0, 1]), np.array([0.1, 0.8, 0.4, 0.3, 0.9])
    # scikit-learn accepts negative sample weights; perfeval refuses them
    assert quiet(sk.roc_auc_score, y, s, sample_weight=[1, -1, 1, 1, 1]) == 1.0
    with pytest.raises(InvalidDataError, match="index 1"):
        F.roc_auc_score(y, s, sample_weight=[1, -1, 1, 1, 1])
    # scikit-learn keeps float32 input in float32 for log_loss and brier_score_loss
    for name in ("log_loss", "brier_score_loss"):
        f32, f64 = getattr(sk, name)(y, s.astype(np.float32)), getattr(sk, name)(y, s)
        assert f32 == float(np.float32(f32)) and abs(f32 - f64) > 1e-10, name
        assert close(
            getattr(F, name)(y, s.astype(np.float32)), getattr(F, name)(y, s.astype(np.float32).astype(float))
        )
    # calibration_curve lets NaN through (NaN in its bin); perfeval refuses it
    _, prob_pred = calibration_curve([0, 1, 1, 0], [np.nan, 0.5, 0.9, 0.2], n_bins=2)
    assert np.isnan(prob_pred).any()
    # all-zero weights: numpy's ZeroDivisionError in top_k_accuracy_score, ndcg_score and dcg_score
    rel, rs = [[1, 0, 2], [0, 1, 1]], [[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]]
    for name, args in (
        ("top_k_accuracy_score", ([0, 1, 2], np.eye(3))),
        ("ndcg_score", (rel, rs)),
        ("dcg_score", (rel, rs)),
    ):
        with pytest.raises(ZeroDivisionError):
            getattr(sk, name)(*args, sample_weight=np.zeros(len(args[0])))
        with pytest.raises(InvalidDataError):
            getattr(F, name)(*args, sample_weight=np.zeros(len(args[0])))
    # max_fpr with one class left after the weights of 0: NaN without positives, a ValueError without
    # negatives in scikit-learn; NaN and the one-class warning in perfeval for both
    assert math.isnan(quiet(sk.roc_auc_score, y, s, sample_weight=[1, 0, 0, 1, 0], max_fpr=0.5))
    with pytest.raises(ValueError, match="At least 2 points"):
        quiet(sk.roc_auc_score, y, s, sample_weight=[0, 1, 1, 0, 1], max_fpr=0.5)
    for w in ([1, 0, 0, 1, 0], [0, 1, 1, 0, 1]):
        with pytest.warns(UndefinedMeasureWarning, match="Only one class"):
            assert math.isnan(F.roc_auc_score(y, s, sample_weight=w, max_fpr=0.5))
    # dcg_score accepts negative relevance; perfeval refuses it (ndcg_score: both refuse)
    assert close(sk.dcg_score([[1, -1, 2]], [[0.1, 0.2, 0.3]]), 2 - 1 / math.log2(3) + 1 / 2)
    with pytest.raises(InvalidDataError):
        F.dcg_score([[1, -1, 2]], [[0.1, 0.2, 0.3]])
    # the warning classes differ: a filter on one does not catch the other
    assert not issubclass(UndefinedMeasureWarning, sklearn.exceptions.UndefinedMetricWarning)
    assert not issubclass(sklearn.exceptions.UndefinedMetricWarning, UndefinedMeasureWarning)
