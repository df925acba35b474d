"""The library's front door: the scikit-learn scorer, label codings, table columns, group ids."""

from __future__ import annotations

import datetime
import math
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.exceptions import InvalidDataError, InvalidParameterError, UndefinedMeasureWarning
from perfeval.functional import RANK_MEASURES, kddcup2002_task2, scorer
from perfeval.measures import list_measures

BINARY = [m.name for m in list_measures() if m.kind == "binary"]
#: measures with no direction (a calibration slope's ideal is 1): no scorer (refused, tested below)
UNDIRECTED = [m.name for m in list_measures() if m.kind == "binary" and m.direction == "none"]


@pytest.fixture(scope="module")
def xy():
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=240, n_features=6, n_informative=3, random_state=0, flip_y=0.1)
    return X, y


def _on_proba(clf, X, y, name, cv):
    """The measure on each fold's predict_proba[:, 1], computed by hand."""
    from sklearn.base import clone

    out = []
    for train, test in cv.split(X, y):
        m = clone(clf).fit(X[train], y[train])
        pos = list(m.classes_).index(m.classes_[1])
        p = m.predict_proba(X[test])[:, pos]
        yt = (y[test] == m.classes_[1]).astype(float)
        v = perfeval.evaluate(yt, p, measures=[name])[perfeval.measures.parse_measure(name).label]
        out.append(v)
    return np.array(out)


def test_a_measure_without_direction_has_no_scorer():
    assert UNDIRECTED
    for name in UNDIRECTED:
        with pytest.raises(InvalidParameterError, match="neither higher nor lower is better"):
            scorer(name)


@pytest.mark.parametrize("name", [m for m in BINARY if m not in UNDIRECTED])
@pytest.mark.parametrize("model", ["logistic", "naive_bayes"])
def test_every_binary_measure_through_cross_val_score(xy, name, model):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.naive_bayes import GaussianNB

    X, y = xy
    clf = LogisticRegression(max_iter=500) if model == "logistic" else GaussianNB()
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    spec = perfeval.measures.parse_measure(name)
    sign = 1 if spec.measure.higher_is_better else -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = cross_val_score(clf, X, y, scoring=scorer(name), cv=cv)
        want = sign * _on_proba(clf, X, y, name, cv)
    if name in RANK_MEASURES and model == "logistic":
        # a rank measure scores the decision function: the same order as the probabilities
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_scorer_matches_sklearn_on_the_issue_case(xy):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    X, y = xy
    clf = LogisticRegression(max_iter=500)
    acc = cross_val_score(clf, X, y, scoring=scorer("acc"), cv=4)
    sk = cross_val_score(clf, X, y, scoring="accuracy", cv=4)
    np.testing.assert_allclose(acc, sk, rtol=0, atol=1e-15)
    brier = cross_val_score(clf, X, y, scoring=scorer("brier"), cv=4)
    np.testing.assert_allclose(brier, cross_val_score(clf, X, y, scoring="neg_brier_score", cv=4), rtol=1e-12)
    ll = cross_val_score(clf, X, y, scoring=scorer("logloss"), cv=4)
    np.testing.assert_allclose(ll, cross_val_score(clf, X, y, scoring="neg_log_loss", cv=4), rtol=1e-10)
    assert np.all(np.isfinite(cross_val_score(clf, X, y, scoring=scorer("cxe"), cv=4)))


def test_scorer_with_string_classes_and_pos_label(xy):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    X, y = xy
    ys = np.where(y == 1, "spam", "ham")  # classes_ = [ham, spam]: spam is positive by default
    a = cross_val_score(LogisticRegression(max_iter=500), X, ys, scoring=scorer("roc"), cv=3)
    b = cross_val_score(LogisticRegression(max_iter=500), X, y, scoring=scorer("roc"), cv=3)
    np.testing.assert_allclose(a, b)
    c = cross_val_score(LogisticRegression(max_iter=500), X, ys, scoring=scorer("roc", pos_label="ham"), cv=3)
    np.testing.assert_allclose(c, b)  # the area of the other class with its own scores is the same
    d = cross_val_score(LogisticRegression(max_iter=500), X, ys, scoring=scorer("rec", pos_label="ham"), cv=3)
    e = cross_val_score(LogisticRegression(max_iter=500), X, 1 - y, scoring=scorer("rec"), cv=3)
    np.testing.assert_allclose(d, e)


def test_scorer_refuses_a_decision_function_for_probability_measures():
    with pytest.raises(InvalidParameterError, match="reads scores as probabilities"):
        scorer("logloss", response_method="decision_function")
    from sklearn.model_selection import cross_val_score
    from sklearn.svm import LinearSVC

    X = np.r_[np.zeros((10, 1)), np.ones((10, 1))] + np.arange(20)[:, None] * 0.01
    y = np.r_[np.zeros(10), np.ones(10)]
    with pytest.raises(Exception, match="predict_proba"):
        cross_val_score(LinearSVC(), X, y, scoring=scorer("brier"), cv=2, error_score="raise")


def test_rank_measures_are_exactly_the_order_invariant_ones():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.random(300), 2) * 0.5 + 0.25  # in (0, 1), with ties
    for name in BINARY:
        spec = "cst:fn=1,fp=2" if name == "CST" else name  # all costs 0 by default: a constant
        a = perfeval.evaluate(y, s, measures=[spec]).results
        b = perfeval.evaluate(y, s**3, measures=[spec]).results  # strictly increasing on (0, 1)
        va, vb = next(iter(a.values())).value, next(iter(b.values())).value
        same = va == vb or (math.isnan(va) and math.isnan(vb))
        assert same == (name in RANK_MEASURES), name


@pytest.mark.parametrize(
    "y, pos_label, want",
    [
        (["yes", "no", "yes", "no"], "yes", 0.75),
        ([True, False, True, False], None, 0.75),
        ([1, -1, 1, -1], None, 0.75),
        ([2, 1, 2, 1], 2, 0.75),
        (["no", "yes", "no", "yes"], "no", 0.75),
    ],
)
def test_pos_label(y, pos_label, want):
    s = [0.9, 0.8, 0.3, 0.1]
    assert perfeval.evaluate(y, s, measures=["roc"], pos_label=pos_label)["ROC"] == want


def test_unknown_coding_is_an_error_that_says_pos_label():
    with pytest.raises(InvalidDataError, match=r"holds 'no', 'yes'; name the positive label with pos_label="):
        perfeval.evaluate(["yes", "no"], [0.9, 0.1], measures=["roc"])
    with pytest.raises(InvalidDataError, match="pos_label='maybe' does not occur"):
        perfeval.evaluate(["yes", "no"], [0.9, 0.1], measures=["roc"], pos_label="maybe")


def test_cli_pos_label(tmp_path, capsys):
    from perfeval.cli.main import main

    f = tmp_path / "l.csv"
    f.write_text("label,score\nyes,0.9\nno,0.8\nyes,0.3\nno,0.1\n")
    assert main(["eval", str(f), "-m", "roc", "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert "l.csv, line 2: the target column 'label' holds 'no', 'yes'" in err and "--pos-label yes" in err
    assert err.count("\n") == 1
    assert main(["eval", str(f), "-m", "roc", "--pos-label", "yes", "--format", "json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["measures"]["ROC"]["value"] == 0.75


@pytest.mark.parametrize("make", ["pandas", "polars", "pyarrow", "dict"])
def test_a_missing_column_is_one_clear_message(make):
    data = {"label": [1, 0, 1], "p": [0.9, 0.2, 0.4]}
    if make == "pandas":
        table = pytest.importorskip("pandas").DataFrame(data)
    elif make == "polars":
        table = pytest.importorskip("polars").DataFrame(data)
    elif make == "pyarrow":
        table = pytest.importorskip("pyarrow").table(data)
    else:
        table = {k: np.array(v) for k, v in data.items()}
    with pytest.raises(InvalidParameterError) as e:
        perfeval.evaluate(table, target="lable", score="p", measures=["roc"])
    assert str(e.value) == "column 'lable' is not in the table (columns: label, p; did you mean 'label'?)"
    assert perfeval.evaluate(table, target="label", score="p", measures=["roc"])["ROC"] == 1.0


def test_float_groups_are_ids_or_an_error():
    r = perfeval.evaluate([1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8], groups=[5.0, 5.0, 7.0, 7.0], measures=["gauc"])
    assert r.groups.tolist() == [5, 7] and r.groups.dtype == np.int64
    with pytest.raises(InvalidDataError, match="the float 5.5 at index 0; group ids are integers or strings"):
        perfeval.evaluate([1, 0], [0.9, 0.1], groups=[5.5, 5.5], measures=["gauc"])
    with pytest.raises(InvalidDataError, match="past 2\\*\\*53"):
        perfeval.evaluate([1, 0], [0.9, 0.1], groups=[2.0**53, 2.0**53], measures=["gauc"])
    with pytest.raises(InvalidDataError, match="holds nan at index 1"):
        perfeval.evaluate([1, 0], [0.9, 0.1], groups=[1.0, float("nan")], measures=["gauc"])
    with pytest.raises(InvalidDataError, match="holds None at index 1"):
        perfeval.evaluate([1, 0], [0.9, 0.1], groups=np.array(["a", None], dtype=object), measures=["gauc"])
    mixed = np.array([7, "u7", 7, "u7"], dtype=object)  # an object column of ints and strings (pandas)
    with pytest.raises(
        InvalidDataError, match="mixes integers \\(7 at index 0\\) and strings \\('u7' at index 1\\)"
    ):
        perfeval.evaluate([1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8], groups=mixed, measures=["gauc"])
    m = perfeval.Metric(["gauc"])
    with pytest.raises(InvalidDataError, match="mixes integers"):
        m.update([1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8], groups=mixed)
    r = perfeval.evaluate(  # numpy integers and Python ints are one kind
        [1, 0, 1, 0],
        [0.9, 0.1, 0.2, 0.8],
        groups=np.array([np.int64(5), 5, 7, 7], dtype=object),
        measures=["gauc"],
    )
    assert r.values["GAUC"] == 0.5
    with pytest.raises(InvalidDataError, match="got -1.0 at index 1"):
        perfeval.evaluate([1, 0], [0.9, 0.1], sample_weight=[1, -1], measures=["roc"])


def test_kddcup2002_with_a_label_absent():
    labels = ["change", "nc", "nc", "change", "nc"]
    s = [0.9, 0.1, 0.4, 0.8, 0.2]
    got = kddcup2002_task2(labels, s)  # no `control`: both tasks are still defined
    assert got == {"narrow": 1.0, "broad": 1.0, "score": 2.0}
    with pytest.warns(UndefinedMeasureWarning, match="broad task .* has no negative case"):
        got = kddcup2002_task2(["change", "control", "change"], [0.9, 0.1, 0.4])
    assert got["narrow"] == 1.0 and math.isnan(got["broad"]) and math.isnan(got["score"])


def test_pos_label_in_intervals_and_comparisons():
    y = ["y", "n", "y", "n", "y", "n"]
    a, b = [0.9, 0.1, 0.8, 0.3, 0.2, 0.4], [0.5, 0.1, 0.8, 0.3, 0.7, 0.4]
    y01 = [1, 0, 1, 0, 1, 0]
    assert perfeval.ci(y, a, measures="roc", method="delong", pos_label="y") == perfeval.ci(
        y01, a, measures="roc", method="delong"
    )
    got = perfeval.compare(y, a, b, measures="roc", method="delong", pos_label="y")["ROC"]
    assert got == perfeval.compare(y01, a, b, measures="roc", method="delong")["ROC"]
    with pytest.raises(InvalidDataError, match="pos_label='x' does not occur"):
        perfeval.ci(y, a, measures="roc", pos_label="x")


class _GradTensor:
    """What a torch tensor that requires grad offers: detach/cpu/numpy, and an __array__ that refuses
    (torch: "Can't call numpy() on Tensor that requires grad")."""

    def __init__(self, values, dtype="torch.float32"):
        self.values, self.dtype = np.asarray(values), dtype

    def __array__(self, *args, **kwargs):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad")

    def detach(self):
        return _Detached(self.values)

    def cpu(self):
        return self

    def numpy(self):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad")


class _Detached:
    def __init__(self, values):
        self.values = values

    def cpu(self):
        return self

    def numpy(self):
        return self.values


def test_every_door_reads_a_tensor_that_requires_grad():
    """evaluate, the functional API and its scikit-learn names detach a torch-like tensor themselves."""
    import perfeval
    from perfeval.functional import average_precision_score, roc_auc, roc_auc_score

    y, s = [1, 0, 1, 0, 1], [0.9, 0.4, 0.4, 0.2, 0.7]
    want = perfeval.evaluate(y, s, measures=["roc"])["ROC"]
    assert perfeval.evaluate(_GradTensor(y), _GradTensor(s), measures=["roc"])["ROC"] == want
    with pytest.warns(DeprecationWarning, match="use roc_auc_score"):
        assert roc_auc(_GradTensor(y), _GradTensor(s)) == want
    assert roc_auc_score(_GradTensor(y), _GradTensor(s)) == want
    assert average_precision_score(_GradTensor(y), _GradTensor(s)) == average_precision_score(y, s)


def test_targets_not_0_1_get_a_hint_that_fits_them():
    """The error for targets that are not 0/1 names one of their own labels (one that looks
    positive), calls a NaN a missing target, and says when the targets look like scores (the
    arguments swapped)."""
    with pytest.raises(
        InvalidDataError,
        match="holds 'click', 'no'; name the positive label with pos_label= \\(e.g. pos_label='click'\\)",
    ):
        perfeval.evaluate(["click", "no", "no"], [0.9, 0.1, 0.2], measures=["roc"])
    with pytest.raises(
        InvalidDataError, match="the NaN \\(first at index 2, 1 in all\\) is a missing target"
    ):
        perfeval.evaluate([0.0, 1.0, np.nan], [0.9, 0.1, 0.2], measures=["roc"])
    scores = np.linspace(0.05, 0.95, 20)
    with pytest.raises(
        InvalidDataError,
        match="scores or probabilities rather than targets \\(the targets come first, as in scikit-learn",
    ):
        perfeval.Metric(["roc"]).update(scores, np.arange(20) % 2)


def _deprecated(fn, *args):
    """A deprecated function's call: its warning expected (pytest's filters make it an error)."""
    with pytest.warns(DeprecationWarning, match="is deprecated and is removed in perfeval"):
        return fn(*args)


# -- targets that are not 0/1, through every door: what they look like, in Python's words (issue 30)
def _doors(y, s):
    """The message of each door of the library for targets ``y`` with a binary measure."""
    from perfeval import functional
    from perfeval.backends.stream import evaluate_stream

    calls = {
        "evaluate": lambda: perfeval.evaluate(y, s, measures=["roc"]),
        "Metric": lambda: perfeval.Metric(["roc"]).update(y, s),
        "stream": lambda: evaluate_stream([(np.asarray(y), np.asarray(s))], measures=["roc"]),
        "ci": lambda: perfeval.ci(y, s, measures="roc", n_boot=20),
        "functional": lambda: _deprecated(functional.roc_auc, y, s),
    }
    out = {}
    for name, call in calls.items():
        with pytest.raises(InvalidDataError) as e:
            call()
        out[name] = str(e.value)
        assert "\n" not in out[name]
    return out


@pytest.mark.parametrize("measure", ["roc", "apr"])
def test_a_regression_target_is_said_to_be_one(measure):
    """House prices: not offered pos_label=177.83...; a binary measure asked of them is refused with a
    line that says they look like a regression target and names the regression measures (issue 33:
    rmse, mse and the default are computed as regression, tests/test_regression_measures.py)."""
    rng = np.random.default_rng(1)
    price = rng.lognormal(5, 0.3, 300)
    with pytest.raises(InvalidDataError) as e:
        perfeval.evaluate(price, price * rng.normal(1, 0.1, 300), measures=[measure])
    msg = str(e.value)
    assert "but `y_true` holds 300 distinct real values (" in msg and "looks like a regression target" in msg
    assert "the regression measures read it (mae, rmse, r2, ...: `perfeval list-measures`)" in msg
    assert "pos_label" not in msg


def test_every_door_says_what_the_targets_look_like():
    """evaluate, Metric, the stream, the intervals and the functional door: the same reading of the
    targets; the doors that take no pos_label say how to code them instead."""
    s = [0.1, 0.4, 0.35, 0.8, 0.7, 0.2]
    price = [100.5, 230.25, 180.0, 99.9, 150.75, 300.1]
    for msg in _doors(price, s).values():
        assert "6 distinct real values" in msg or "real values (" in msg
        assert "looks like a regression target" in msg and "pos_label" not in msg
    species = ["setosa", "versicolor", "virginica"] * 2
    got = _doors(species, s)
    for msg in got.values():
        assert "holds 'setosa', 'versicolor', 'virginica': 3 classes" in msg
        assert "the multiclass measures read one score column per class" in msg
    for name in ("evaluate", "Metric", "ci"):
        assert "pos_label='setosa' evaluates 'setosa' against the other classes" in got[name]
    for name in ("stream", "functional"):  # no pos_label there
        assert "pos_label" not in got[name] and "np.asarray(y_true) == 'setosa'" in got[name]
    got = _doors(["no", "click", "no", "click", "no", "no"], s)
    for msg in got.values():
        assert "holds 'click', 'no'" in msg and "'no')" not in msg and "== 'no'" not in msg
    for name in ("evaluate", "Metric", "ci"):
        assert "pos_label='click'" in got[name]
    for name in ("stream", "functional"):
        assert "code them 0/1 first: np.asarray(y_true) == 'click'" in got[name]
    got = _doors([0, 1, 2, 3, 1, 0], s)
    for msg in got.values():
        assert "holds 0, 1, 2, 3: graded relevance, 4 classes or a count, not a binary target" in msg
        assert "the ranking measures (ndcg, map, ...) read the grades themselves" in msg
    for name in ("evaluate", "Metric", "ci"):
        assert "pos_label=3 would count grade 3 alone as positive" in got[name]
        assert "passing np.asarray(y_true) > 0 counts every grade above 0 (as MAP reads them)" in got[name]
    for name in ("stream", "functional"):
        assert "code them 0/1 first: np.asarray(y_true) > 0 counts every grade above 0" in got[name]


def test_graded_targets_printed_as_whole_numbers_and_the_advice_works():
    g = np.array([0.0, 1.0, 2.0, 3.0, 1.0, 0.0, 2.0, 0.0])
    s = np.array([0.1, 0.4, 0.6, 0.9, 0.3, 0.2, 0.5, 0.45])
    with pytest.raises(InvalidDataError) as e:
        perfeval.evaluate(g, s, measures=["ap", "roc"])
    assert "holds 0, 1, 2, 3: graded" in str(e.value) and "0.0" not in str(e.value)
    coded = perfeval.evaluate(np.asarray(g) > 0, s, measures=["ap", "roc"])
    parts = perfeval.evaluate(g, s, measures=["ap", "roc"], partitions={"relevant": [1, 2, 3]})
    assert coded["AP"] == parts["AP[relevant]"] and coded["ROC"] == parts["ROC[relevant]"]


@pytest.mark.parametrize(
    "labels, offered",
    [
        (["no", "click"], "(e.g. pos_label='click')"),
        (["No", "Yes"], "(e.g. pos_label='Yes')"),
        (["ham", "spam"], "(e.g. pos_label='spam')"),
        ([0, 2], "(e.g. pos_label=2)"),
        (["B", "M"], "name the positive label: pos_label='B' or pos_label='M'"),
        ([2, 4], "name the positive label: pos_label=2 or pos_label=4"),
        (
            ["false", "no"],
            "name the positive label with pos_label= (none of these looks like one: no positive",
        ),
        (
            ["no", "no"],
            "holds 'no'; name the positive label with pos_label= (it looks negative: no positive case?)",
        ),
    ],
)
def test_the_positive_label_offered_never_looks_negative(labels, offered):
    with pytest.raises(InvalidDataError) as e:
        perfeval.evaluate(labels * 2, [0.1, 0.2, 0.3, 0.4], measures=["roc"])
    assert offered in str(e.value), str(e.value)


def test_a_score_matrix_is_told_which_column_to_pass():
    """predict_proba's two columns, or one score a class: the error says which column to pass."""
    with pytest.raises(
        InvalidParameterError, match="predict_proba\\? pass the positive class's, y_score\\[:, 1\\]"
    ):
        perfeval.evaluate([1, 0, 1], np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]]), measures=["roc"])
    # one score a class: the multiclass measures, ROC read as one class against the rest, averaged
    r = perfeval.evaluate(["a", "b", "c"], np.eye(3), measures=["roc"])
    assert list(r.results) == ["ROC_OVR:average=macro"] and r.params["classes"] == ["a", "b", "c"]
    with pytest.raises(InvalidParameterError, match="`y_score` has 3 columns but `y_true` holds 2 distinct"):
        perfeval.evaluate(["a", "b", "a"], np.eye(3), measures=["roc"])


def test_mse_is_brier_on_0_1_targets_scikit_learns_mean_squared_error():
    """`mse` is kept as BRIER's alias: on 0/1 targets and probabilities it is scikit-learn's
    mean_squared_error (the same formula); a regression target is refused, never averaged."""
    from sklearn.metrics import mean_squared_error

    y = np.array([1, 0, 1, 1, 0, 0, 1])
    s = np.array([0.9, 0.2, 0.6, 0.4, 0.35, 0.1, 0.8])
    r = perfeval.evaluate(y, s, measures=["mse"])
    assert list(r.results) == ["BRIER"] and math.isclose(r["BRIER"], mean_squared_error(y, s), rel_tol=1e-12)


def test_a_stream_of_many_real_targets_shows_them_not_stand_ins():
    """The grouped stream keeps the first few hundred distinct targets: the error shows those it saw
    (it showed 0.5, 2.0, 3.0, values no row held)."""
    from perfeval.backends.stream import evaluate_stream_grouped

    y = np.arange(1000) * 1.5 + 100.25
    s, g = np.linspace(0, 1, 1000), np.arange(1000) % 10
    with pytest.raises(InvalidDataError) as e:
        evaluate_stream_grouped([(y[:500], s[:500], g[:500]), (y[500:], s[500:], g[500:])], measures=["roc"])
    msg = str(e.value)
    assert "holds real values (100.25, 101.75, 103.25, ...)" in msg and "regression target" in msg
    assert "0.5, 2" not in msg and "distinct" not in msg  # not every value seen: not counted


# -- trust at the edges: the door refuses what it cannot read, in one line of ours ----------------------
def _one_line_of_ours(fn, *a, match=None, **kw):
    from perfeval.exceptions import PerfError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(PerfError, match=match) as e:
            fn(*a, **kw)
    assert "\n" not in str(e.value) and "Traceback" not in str(e.value)
    return str(e.value)


@pytest.mark.parametrize("dtype", [object, "datetime64[ns]", "timedelta64[s]", complex, "U3", "S3", bool])
@pytest.mark.parametrize("where", ["y_true", "y_score"])
def test_empty_arrays_of_any_dtype_are_no_data_or_one_line(dtype, where):
    """An empty column of any dtype is either no data (evaluate's NaN, as for ``[]``) or one line of
    ours saying why it cannot be read: never numpy's IndexError."""
    empty = np.array([], dtype=dtype)
    y, s = (empty, np.zeros(0)) if where == "y_true" else (np.zeros(0), empty)
    for measures in (["roc", "acc"], ["ndcg"]):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = perfeval.evaluate(y, s, measures=measures)
        except perfeval.PerfError as e:
            assert "\n" not in str(e)
            assert np.dtype(dtype).kind in "cmMUS" or where == "y_score", (dtype, where, str(e))
        else:
            assert all(math.isnan(v) for v in r.values.values()), r.values
            assert np.dtype(dtype).kind not in "cmM" or where == "y_true", (dtype, where)


def test_complex_targets_are_refused_as_complex_scores_are():
    msg = _one_line_of_ours(perfeval.evaluate, np.array([1 + 0j, 0j]), [0.2, 0.8], measures=["roc"])
    assert "complex" in msg and "y_true" in msg
    y = np.array([1 + 0j, 0j])
    _one_line_of_ours(perfeval.evaluate, y, [0.2, 0.8], measures=["ndcg"], match="complex")


def _pandas_dates(tz=None):
    import pandas as pd

    s = pd.Series(pd.to_datetime(["2020-01-01", "2020-01-02"]))
    return s if tz is None else s.dt.tz_localize(tz)


def _pandas_durations():
    import pandas as pd

    return pd.Series(pd.to_timedelta([1, 2], unit="s"))


@pytest.mark.parametrize(
    "make,shown",
    [
        (lambda: np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"), "'2020-01-01' at index 0"),
        (lambda: np.array(["NaT", "2020-03-04T10:30"], dtype="datetime64[ns]"), "'2020-03-04T10:30' at 1"),
        (lambda: np.array([1, 2], dtype="timedelta64[s]"), "'0:00:01' at index 0"),
        (lambda: np.array([0.5, datetime.datetime(2020, 1, 2)], dtype=object), "index 1"),
        (lambda: np.array([np.datetime64("2020-01-01"), 0.5], dtype=object), "'2020-01-01' at index 0"),
        (_pandas_dates, "'2020-01-01' at index 0"),
        (lambda: _pandas_dates("UTC"), "'2020-01-01 00:00:00+00:00' at index 0"),
        (_pandas_durations, "'0:00:01' at index 0"),
    ],
)
def test_dates_and_durations_are_not_scores(make, shown):
    """numpy turns dates into day or nanosecond counts; the command refuses them as it reads them
    (``holds '2020-01-01', not a number``) and so does every Python door: evaluate, a table's column,
    Metric.update, the weights, the scikit-learn names."""
    pytest.importorskip("pandas")
    import pandas as pd

    s = make()
    y = [1, 0]
    msg = _one_line_of_ours(perfeval.evaluate, y, s, measures=["roc"])
    assert shown.replace(" at 1", " at index 1") in msg and "not a number" in msg and "`y_score`" in msg, msg
    shown = shown.replace(" at 1", " at index 1")
    frame = pd.DataFrame({"click": y, "when": s})
    assert shown in _one_line_of_ours(perfeval.evaluate, frame, target="click", score="when")
    m = perfeval.Metric(["roc"])
    assert shown in _one_line_of_ours(m.update, y, s)
    assert m.rows == 0
    assert "not a number" in _one_line_of_ours(
        perfeval.evaluate, y, [0.2, 0.4], sample_weight=s, measures=["roc"]
    )
    assert _one_line_of_ours(perfeval.functional.roc_auc_score, y, s).startswith(
        "roc_auc_score: `y_score` holds"
    )
    auc = perfeval.functional.roc_auc_score
    assert "not a number" in _one_line_of_ours(auc, y, [0.2, 0.4], sample_weight=s)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda F: F.log_loss([1, 0], [0.3, 0.4], base=1), "base must be a finite number > 0 other than 1"),
        (lambda F: F.log_loss([1, 0], [0.3, 0.4], base=0), "got 0"),
        (lambda F: F.log_loss([1, 0], [0.3, 0.4], base=-2), "got -2"),
        (lambda F: F.log_loss([1, 0], [0.3, 0.4], base=math.inf), "got inf"),
        (lambda F: F.log_loss([1, 0], [0.3, 0.4], base=math.nan), "got nan"),
        (lambda F: F.log_loss([1, 0], [0.3, 0.4], base="2"), "got '2'"),
        (lambda F: F.log_loss([1, 0], [0.3, 0.4], base=True), "got True"),
        (lambda F: F.dcg_score([[1, 0, 2]], [[0.1, 0.2, 0.3]], log_base=math.inf), "finite number > 0"),
        (lambda F: F.dcg_score([[1, 0, 2]], [[0.1, 0.2, 0.3]], log_base="e"), "log_base"),
        (lambda F: F.roc_auc_score([1, 0], [0.3, 0.4], max_fpr="0.5"), "max_fpr"),
        (lambda F: F.confusion_matrix([1, 0], [0.3, 0.4], threshold=math.nan), "threshold"),
        (lambda F: F.confusion_matrix([1, 0], [0.3, 0.4], threshold="0.5"), "threshold"),
        (lambda F: F.ndcg([1, 0], [0.3, 0.4], k=math.nan), "k must be a whole number"),
        (lambda F: F.ndcg([1, 0], [0.3, 0.4], k=math.inf), "k must be a whole number"),
        (lambda F: F.precision_at_k([1, 0], [0.3, 0.4], k=None), "k must be a whole number"),
        (lambda F: F.recall_at_k([1, 0], [0.3, 0.4], k="3"), "k must be a whole number"),
        (lambda F: F.scorer("fbeta", beta=-1), "beta"),
        (lambda F: F.scorer("acc", threshold=math.nan), "threshold"),
        (lambda F: F.scorer("roc", bins=3), "no parameter 'bins'"),
    ],
)
def test_parameters_outside_their_domain_are_one_line_of_ours(call, match):
    """A value outside a parameter's domain never reaches the arithmetic (a ZeroDivisionError, a
    math domain error, a silent 0.0 or NaN): each is refused by name.  The scorer checks its
    parameters when it is made, since inside cross_val_score an error is only a warning and NaN."""
    import perfeval.functional as F

    _one_line_of_ours(call, F, match=match)


def test_missing_targets_among_python_objects_are_said_missing():
    """pandas' nullable columns hold NA (booleans, text) or NaN, Python's None: a missing target,
    said so with where it is, not a label to name as pos_label=."""
    pd = pytest.importorskip("pandas")
    for y, shown, where in [
        (pd.Series([True, None, False, None], dtype="boolean"), "'<NA>'", "first at index 1, 2 in all"),
        (np.array(["a", "b", None], dtype=object), "'None'", "first at index 2, 1 in all"),
    ]:
        msg = _one_line_of_ours(perfeval.evaluate, y, np.linspace(0, 1, len(y)), measures=["roc"])
        assert f"{shown} is a missing target ({where}): drop or fill" in msg, msg
        assert "pos_label=" not in msg
    msg = _one_line_of_ours(
        perfeval.evaluate, [1, 0], [0.2, 0.4], sample_weight=pd.Series([1, None], dtype="Int64")
    )
    assert msg.startswith("`sample_weight` must be finite non-negative numbers, got nan at index 1"), msg


def test_a_missing_target_with_pos_label_is_no_negative():
    """With pos_label= every other label is negative, but a missing one (pandas' NaN of a text
    column, None, NA, a NaN among numbers) is neither class: one line saying where, as without
    pos_label= and as the command's loader says it, never a silent negative (nor pandas' TypeError
    of NA), in evaluate() and in a Metric."""
    pd = pytest.importorskip("pandas")
    s = [0.2, 0.1, 0.3, 0.9]
    for y, pos, shown in [
        (pd.Series(["yes", "no", np.nan, "yes"]), "yes", "'nan'"),
        (np.array(["yes", "no", None, "yes"], dtype=object), "yes", "'None'"),
        (pd.Series(["yes", "no", None, "yes"], dtype="string"), "yes", "'<NA>'"),
        (pd.Series(["yes", "no", None, "yes"], dtype="category"), "yes", "'nan'"),
        (pd.Series([1, 0, None, 1], dtype="Int64"), 1, "NaN"),
        (np.array([1.0, 0.0, np.nan, 1.0]), 1, "NaN"),
    ]:
        want = f"`y_true` holds {shown}, a missing target (first at index 2, 1 in all)"
        for measures in (["roc", "ece"], ["youden"]):
            msg = _one_line_of_ours(perfeval.evaluate, y, s, pos_label=pos, measures=measures)
            assert msg.startswith(want), msg
        msg = _one_line_of_ours(perfeval.evaluate, y, s, pos_label=pos, groups=[1, 1, 2, 2], measures=["roc"])
        assert msg.startswith(want), msg
        m = perfeval.Metric(["roc"], pos_label=pos)
        assert _one_line_of_ours(m.update, y, s).startswith(want)


@pytest.mark.parametrize(
    "kw,match",
    [
        ({"measures": None}, "`measures` must be names"),
        ({"measures": 5}, "`measures` must be names"),
        ({"measures": {"roc": 1}}, "`measures` must be names"),
        ({"measures": ["roc", 5]}, "a measure is a name such as 'roc'"),
        (
            {"measures": ["acc"], "threshold": math.nan},
            r"`threshold` must be a number \(\+-inf allowed\), got nan",
        ),
        ({"measures": ["roc"], "threshold": math.nan}, "got nan"),  # unused by ROC: still not a threshold
        ({"measures": ["acc"], "threshold": "0.5"}, "got '0.5'"),
        ({"measures": ["roc"], "tie_bounds": "no"}, "`tie_bounds` must be True or False"),
        ({"measures": ["roc"], "partitions": ["change"]}, "`partitions` maps a name to the labels"),
    ],
)
def test_evaluate_and_metric_options_outside_their_domain_are_one_line(kw, match):
    """Options of evaluate() and Metric that reached Python's own errors (a TypeError, an
    AttributeError) or were taken as something else (the text "no" as True), refused by name."""
    _one_line_of_ours(perfeval.evaluate, [1, 0, 1, 0], [0.1, 0.4, 0.35, 0.8], match=match, **kw)
    if "tie_bounds" not in kw and "partitions" not in kw:
        _one_line_of_ours(perfeval.Metric, match=match, **kw)
    assert perfeval.evaluate([1, 0], [0.2, 0.4], measures=["acc"], threshold=-math.inf)["ACC@-inf"] == 0.5


@pytest.mark.parametrize(
    "make,missing",
    [
        (lambda pa: pa.array([0.1, None, 0.3, 0.4]), True),
        (lambda pa: pa.chunked_array([[0.1, None], [0.3, 0.4]]), True),
        (lambda pa: pa.array([1, 2, 3, 4]).cast(pa.decimal128(30, 2)), False),
        (lambda pa: pa.array(["0.1", "0.2", "0.3", "0.4"]).dictionary_encode(), False),
    ],
)
def test_pyarrow_arrays_that_need_a_copy_are_read(make, missing):
    """A pyarrow array with a null, of decimals or a dictionary cannot be read without a copy:
    ``to_numpy()`` raised pyarrow's ArrowInvalid from every door; it is copied, as ``np.asarray``
    copies it, and a null is then a missing value said in one line of ours."""
    import perfeval.functional as F

    pa = pytest.importorskip("pyarrow")
    s, y = make(pa), [0, 1, 0, 1]
    calls = [
        lambda: perfeval.evaluate(y, s, measures=["roc"])["ROC"],
        lambda: _deprecated(F.roc_auc, y, s),
        lambda: F.roc_auc_score(y, s),
    ]
    if missing:
        for call in calls:
            _one_line_of_ours(call, match="(?i)nan")
        targets = pa.array([0, 1, None, 1])
        _one_line_of_ours(perfeval.evaluate, targets, [0.1, 0.2, 0.3, 0.4], measures=["roc"], match="missing")
    else:
        want = perfeval.evaluate(y, [1, 2, 3, 4], measures=["roc"])["ROC"]
        assert [call() for call in calls] == pytest.approx([want] * 3)
        m = perfeval.Metric(["roc"])
        m.update(pa.array([0, 1, 0, 1]).dictionary_encode(), s)
        assert m.compute()["ROC"] == pytest.approx(want)


@pytest.mark.parametrize("where", ["y_score", "sample_weight"])
def test_an_integer_beyond_float64_is_one_line_of_ours(where):
    """A Python integer past float64's range (a 400-digit id pasted as a score) raised Python's
    OverflowError from every door; it is refused by name, with its index."""
    import perfeval.functional as F

    big = [1, 10**400, 1, 1]
    kw = {"y_score": big} if where == "y_score" else {"y_score": [0.1, 0.2, 0.3, 0.4], "sample_weight": big}
    y = [0, 1, 0, 1]
    msg = _one_line_of_ours(perfeval.evaluate, y, measures=["roc"], **kw)
    assert f"`{where}` holds an integer of 401 digits at index 1" in msg, msg
    _one_line_of_ours(F.roc_auc_score, y, **kw, match="401 digits at index 1")
    m = perfeval.Metric(["roc"])
    _one_line_of_ours(m.update, y, kw["y_score"], sample_weight=kw.get("sample_weight"), match="401 digits")
    assert m.rows == 0
    if where == "y_score":
        _one_line_of_ours(F.ndcg, y, big, match="401 digits at index 1")
        _one_line_of_ours(F.log_loss, y, [0.1, -(10**400), 0.3, 0.4], match="401 digits|y_prob")


def test_a_trec_table_with_an_integer_beyond_float64_is_one_line_of_ours():
    pd = pytest.importorskip("pandas")
    import perfeval.trec as T

    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [0.5, 10**400]})
    msg = _one_line_of_ours(T.evaluate, qrels, run, measures=["map"])
    assert "column 'score' holds an integer of 401 digits at row 2" in msg, msg
    msg = _one_line_of_ours(T.evaluate, qrels, run.assign(score=[0.5, None]), measures=["map"])
    assert "column 'score' holds nan at row 2" in msg, msg  # not np.float64(nan)


def test_ragged_nested_sequences_are_one_line_of_ours():
    """Nested lists of different lengths made numpy raise its own ValueError at every door."""
    import perfeval.functional as F

    ragged = [[0.1], [0.2, 0.3], [0.3], [0.4]]
    y = [0, 1, 0, 1]
    for fn in (
        lambda: perfeval.evaluate(y, ragged, measures=["roc"]),
        lambda: F.roc_auc_score(y, ragged),
        lambda: F.log_loss(y, ragged),
        lambda: F.ndcg_score([[1, 0]], [[0.1], [0.2, 0.3]]),
        lambda: perfeval.Metric(["roc"]).update(y, ragged),
    ):
        _one_line_of_ours(fn, match="nested sequences of different lengths")


def test_a_nan_score_is_shown_as_a_number_not_numpys_repr():
    msg = _one_line_of_ours(perfeval.evaluate, [0, 1], np.array([0.1, np.nan]), measures=["roc"])
    assert "got nan at index 1" in msg and "np.float64" not in msg, msg
    import perfeval.functional as F

    msg = _one_line_of_ours(F.accuracy_score, [0, 1, np.nan], [0, 1, 1])
    assert "holds nan at index 2" in msg and "np.float64" not in msg, msg
