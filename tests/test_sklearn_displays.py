"""perfeval.plot's CalibrationDisplay, ConfusionMatrixDisplay and the cross-validation curves
(``from_cv_results``) draw what the installed scikit-learn draws: the same rendered pixels (Agg), and
the same line data, cell values, texts and attributes; bad input is one line of perfeval's errors."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from perfeval import curves as C  # noqa: E402
from perfeval import plot as P  # noqa: E402
from perfeval.exceptions import InvalidParameterError  # noqa: E402

skm = pytest.importorskip("sklearn.metrics")
skc = pytest.importorskip("sklearn.calibration")
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402
from sklearn.model_selection import cross_validate  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def pixels(d) -> np.ndarray:
    d.figure_.canvas.draw()
    return np.asarray(d.figure_.canvas.buffer_rgba()).copy()


def texts(items) -> list[str]:
    return [t.get_text() for t in items]


def legend(ax) -> list[str]:
    leg = ax.get_legend()
    return [] if leg is None else texts(leg.get_texts())


def same_line(a, b) -> None:
    for get in ("get_xdata", "get_ydata"):
        x, y = np.asarray(getattr(a, get)(), float), np.asarray(getattr(b, get)(), float)
        assert x.shape == y.shape and np.allclose(x, y, rtol=1e-12, atol=1e-12), (x, y)
    for get in ("get_label", "get_marker", "get_linestyle", "get_drawstyle", "get_color", "get_alpha"):
        assert getattr(a, get)() == getattr(b, get)(), get


def same_picture(ours, theirs) -> None:
    """The same figure, pixel for pixel, and the same axis labels and legend."""
    assert ours.ax_.get_xlabel() == theirs.ax_.get_xlabel()
    assert ours.ax_.get_ylabel() == theirs.ax_.get_ylabel()
    assert legend(ours.ax_) == legend(theirs.ax_)
    assert np.array_equal(pixels(ours), pixels(theirs))


# -- RocCurveDisplay, PrecisionRecallDisplay, DetCurveDisplay: the pixels (their lines: tests/test_plot.py) --
@pytest.mark.parametrize("n", [30, 500])
@pytest.mark.parametrize(
    "kw", [{}, {"sample_weight": "w"}, {"plot_chance_level": True}, {"drop_intermediate": False}]
)
def test_curve_displays_draw_scikit_learns_pixels(n, kw):
    rng = np.random.default_rng(n)
    y = (rng.random(n) < 0.4).astype(int)
    s = np.round(rng.random(n) * 0.7 + 0.3 * y, 2)  # ties
    kw = {k: (rng.integers(1, 4, n) / 2 if v == "w" else v) for k, v in kw.items()}
    pairs = [(P.RocCurveDisplay, skm.RocCurveDisplay), (P.PrecisionRecallDisplay, skm.PrecisionRecallDisplay)]
    if "plot_chance_level" not in kw:
        pairs.append((P.DetCurveDisplay, skm.DetCurveDisplay))
    for ours, theirs in pairs:
        same_picture(
            ours.from_predictions(y, s, name="m", **kw), theirs.from_predictions(y, s, name="m", **kw)
        )
        plt.close("all")


# -- CalibrationDisplay --------------------------------------------------------------------------------------
#: (labels, pos_label to pass)
CODINGS = [((0, 1), None), ((-1, 1), None), (("ham", "spam"), "spam"), (("ham", "spam"), "ham"), ((3, 8), 3)]


@pytest.mark.parametrize("coding", CODINGS)
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [3, 10])
def test_calibration_display_draws_what_scikit_learn_draws(coding, strategy, n_bins):
    rng = np.random.default_rng(n_bins)
    values, pos_label = coding
    y = np.array(values)[(rng.random(400) < 0.35).astype(int)]
    p = np.round(rng.random(400), 2)  # ties, values on the uniform edges
    kw = {"n_bins": n_bins, "strategy": strategy, "pos_label": pos_label}
    ours = P.CalibrationDisplay.from_predictions(y, p, **kw)
    theirs = skc.CalibrationDisplay.from_predictions(y, p, **kw)
    same_line(ours.line_, theirs.line_)
    same_picture(ours, theirs)
    assert np.allclose(ours.prob_true, theirs.prob_true, rtol=1e-12, atol=1e-12)
    assert np.allclose(ours.prob_pred, theirs.prob_pred, rtol=1e-12, atol=1e-12)
    assert np.array_equal(ours.y_prob, theirs.y_prob)
    assert ours.estimator_name == theirs.estimator_name == "Classifier"
    assert ours.pos_label == theirs.pos_label == (1 if pos_label is None else pos_label)


def test_calibration_display_from_estimator_with_string_labels():
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(500, 3)), 1)
    y = np.where(X[:, 0] + rng.normal(scale=0.8, size=500) > 0, "spam", "ham")
    est = LogisticRegression().fit(X, y)
    for pos_label in (None, "ham", "spam"):
        for strategy in ("uniform", "quantile"):
            kw = {"pos_label": pos_label, "strategy": strategy, "n_bins": 8}
            ours = P.CalibrationDisplay.from_estimator(est, X, y, **kw)
            theirs = skc.CalibrationDisplay.from_estimator(est, X, y, **kw)
            same_line(ours.line_, theirs.line_)
            same_picture(ours, theirs)
            assert ours.estimator_name == "LogisticRegression" and ours.pos_label == (pos_label or "spam")
            plt.close("all")


def test_calibration_display_plot_options_and_shared_axes():
    rng = np.random.default_rng(7)
    y = (rng.random(300) < 0.5).astype(int)
    a, b = rng.random(300), np.clip(rng.random(300) * 0.5 + 0.3 * y, 0, 1)
    drawn = []
    for mod in (P, skc):
        fig, ax = plt.subplots()
        d1 = mod.CalibrationDisplay.from_predictions(y, a, name="A", ax=ax)
        d2 = mod.CalibrationDisplay.from_predictions(y, b, name="B", ax=ax, c="red", lw=3, ls="--")
        d3 = mod.CalibrationDisplay.from_predictions(y, b, ax=ax, ref_line=False, marker="o")
        d2.plot(ax=ax, name="B again")
        drawn.append((d1, d2, d3, ax))
    (o1, o2, o3, oax), (t1, t2, t3, tax) = drawn
    for o, t in ((o1, t1), (o2, t2), (o3, t3)):
        same_line(o.line_, t.line_)
    assert legend(oax) == legend(tax) and legend(oax).count("Perfectly calibrated") == 1
    assert np.array_equal(pixels(o1), pixels(t1))
    # from arrays, as scikit-learn's constructor
    prob_true, prob_pred = np.array([0.1, 0.5, 0.8]), np.array([0.2, 0.45, 0.9])
    ours = P.CalibrationDisplay(prob_true, prob_pred, a, estimator_name="m", pos_label="yes").plot()
    theirs = skc.CalibrationDisplay(prob_true, prob_pred, a, estimator_name="m", pos_label="yes").plot()
    same_line(ours.line_, theirs.line_)
    same_picture(ours, theirs)
    ours = P.CalibrationDisplay(prob_true, prob_pred, a).plot()  # no name: no label, the legend still drawn
    theirs = skc.CalibrationDisplay(prob_true, prob_pred, a).plot()
    same_picture(ours, theirs)


def test_calibration_display_keeps_perfevals_form():
    rng = np.random.default_rng(0)
    y = (rng.random(1000) < 0.3).astype(int)
    models = {
        "A": np.round(rng.random(1000), 2),
        "B": np.round(np.clip(rng.normal(0.3 + 0.3 * y, 0.2), 0, 1), 2),
    }
    d = P.CalibrationDisplay.from_models(y, models)
    assert isinstance(d, P.CalibrationDisplay) and not hasattr(d, "ax_")  # undrawn until plot()
    fig, ax = plt.subplots()
    d.plot(ax)  # ax by position, as perfeval's displays take it
    assert d.ax_ is ax and len(d.lines_) == 2
    for line, s in zip(d.lines_, models.values(), strict=True):
        curve = C.calibration(y, s)  # PERF's 19 overlapping bins
        assert np.array_equal(line.get_xdata(), curve.x) and np.array_equal(line.get_ydata(), curve.y)
    assert "perfect calibration" in legend(ax)
    w = rng.random(1000)
    for kw, bins in (
        ({"threshold": 0.4}, "perf"),
        ({"sample_weight": w}, "perf"),
        ({"bins": "quantile"}, "quantile"),
    ):
        d = P.CalibrationDisplay.from_predictions(y, models["A"], name="A", n_bins=6, **kw)
        assert not hasattr(d, "ax_") and d.names == ["A"]
        weights = kw.get("sample_weight")
        curve = C.calibration(y, models["A"], weights, bins=bins, n_bins=6)
        d.plot()
        assert np.array_equal(d.lines_[0].get_xdata(), curve.x) and np.array_equal(
            d.lines_[0].get_ydata(), curve.y
        )
    with pytest.raises(InvalidParameterError, match="takes no line properties"):
        P.CalibrationDisplay.from_predictions(y, models["A"], threshold=0.5, color="red")


# -- ConfusionMatrixDisplay ----------------------------------------------------------------------------------
def same_matrix_picture(ours, theirs) -> None:
    assert np.allclose(ours.confusion_matrix, theirs.confusion_matrix, rtol=1e-12, atol=0)
    assert ours.confusion_matrix.dtype == theirs.confusion_matrix.dtype
    assert np.allclose(
        np.asarray(ours.im_.get_array()), np.asarray(theirs.im_.get_array()), rtol=1e-12, atol=0
    )
    assert ours.im_.get_cmap().name == theirs.im_.get_cmap().name
    assert ours.im_.get_interpolation() == theirs.im_.get_interpolation()
    assert (ours.text_ is None) == (theirs.text_ is None)
    if ours.text_ is not None:
        assert texts(ours.text_.ravel()) == texts(theirs.text_.ravel())
        assert [t.get_color() for t in ours.text_.ravel()] == [t.get_color() for t in theirs.text_.ravel()]
    for get in ("get_xticklabels", "get_yticklabels"):
        assert texts(getattr(ours.ax_, get)()) == texts(getattr(theirs.ax_, get)())
    assert [t.get_rotation() for t in ours.ax_.get_xticklabels()] == [
        t.get_rotation() for t in theirs.ax_.get_xticklabels()
    ]
    assert ours.ax_.get_ylim() == theirs.ax_.get_ylim() and len(ours.figure_.axes) == len(theirs.figure_.axes)
    same_picture(ours, theirs)


LABEL_SETS = [[0, 1], [0, 1, 2, 3], ["cat", "dog", "eel"], [-1, 1], [2.0, 5.0, 7.0]]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 60),
    st.integers(0, 2**32 - 1),
    st.sampled_from(LABEL_SETS),
    st.sampled_from(["none", "int", "float"]),
    st.sampled_from([None, "true", "pred", "all"]),
    st.booleans(),
)
def test_confusion_matrix_display_draws_what_scikit_learn_draws(
    n, seed, values, weights, normalize, given_labels
):
    rng = np.random.default_rng(seed)
    values = np.array(values)
    y, p = values[rng.integers(0, len(values), n)], values[rng.integers(0, len(values), n)]
    w = {"none": None, "int": rng.integers(1, 4, n), "float": rng.random(n) + 0.01}[weights]
    kw = {"sample_weight": w, "normalize": normalize, "labels": values[::-1] if given_labels else None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one label only: both warn
        ours = P.ConfusionMatrixDisplay.from_predictions(y, p, **kw)
        theirs = skm.ConfusionMatrixDisplay.from_predictions(y, p, **kw)
    same_matrix_picture(ours, theirs)
    plt.close("all")


@pytest.mark.parametrize(
    "kw",
    [
        {"display_labels": ["no", "maybe", "yes"]},
        {"values_format": ".1%", "normalize": "true"},
        {"values_format": "d"},
        {"include_values": False},
        {"colorbar": False, "cmap": "Blues"},
        {"xticks_rotation": "vertical"},
        {"xticks_rotation": 45.0},
        {"im_kw": {"vmin": 0, "vmax": 40, "interpolation": "bilinear"}},
        {"text_kw": {"fontsize": 7, "c": "white"}},
        {"labels": [2, 0]},
    ],
)
def test_confusion_matrix_display_options(kw):
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 3, 90), rng.integers(0, 3, 90)
    ours = P.ConfusionMatrixDisplay.from_predictions(y, p, **kw)
    theirs = skm.ConfusionMatrixDisplay.from_predictions(y, p, **kw)
    same_matrix_picture(ours, theirs)


def test_confusion_matrix_display_from_estimator_and_from_arrays():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = np.array(["low", "mid", "high"])[np.digitize(X[:, 0] + rng.normal(scale=0.7, size=300), [-0.5, 0.5])]
    est = LogisticRegression().fit(X, y)
    for kw in (
        {},
        {"normalize": "pred"},
        {"labels": ["low", "mid", "high"], "display_labels": ["L", "M", "H"]},
    ):
        ours = P.ConfusionMatrixDisplay.from_estimator(est, X, y, **kw)
        theirs = skm.ConfusionMatrixDisplay.from_estimator(est, X, y, **kw)
        same_matrix_picture(ours, theirs)
        plt.close("all")
    cm = np.array([[5, 1], [2, 9]])
    fig, ax = plt.subplots()
    ours = P.ConfusionMatrixDisplay(cm, display_labels=["a", "b"]).plot(ax=ax)
    assert ours.ax_ is ax and ours.figure_ is fig
    theirs = skm.ConfusionMatrixDisplay(cm, display_labels=["a", "b"]).plot()
    same_matrix_picture(ours, theirs)


# -- from_cv_results -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cv():
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(240, 3)), 1)
    y = np.where(X[:, 0] + rng.normal(size=240) > 0.3, "spam", "ham")
    w = rng.integers(1, 4, 240) / 2.0
    out = {}
    for est in (LogisticRegression(), LinearSVC()):
        out[type(est).__name__] = cross_validate(est, X, y, cv=4, return_estimator=True, return_indices=True)
    return X, y, w, out


DISPLAYS = [(P.RocCurveDisplay, skm.RocCurveDisplay), (P.PrecisionRecallDisplay, skm.PrecisionRecallDisplay)]
FOLD_STYLES = [{"color": c} for c in ("C0", "C1", "C2", "C3")]


@pytest.mark.parametrize("displays", DISPLAYS, ids=["roc", "pr"])
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"plot_chance_level": True},
        {"name": "LR", "curve_kwargs": {"color": "red", "lw": 2}},
        {"name": ["a", "b", "c", "d"], "curve_kwargs": FOLD_STYLES, "plot_chance_level": True},
        {"curve_kwargs": FOLD_STYLES},
        {"pos_label": "ham", "drop_intermediate": False},
        {"weighted": True, "despine": True},
        {"response_method": "decision_function", "chance_level_kwargs": {"color": "grey", "label": "chance"}},
        {"model": "LinearSVC", "plot_chance_level": True},
    ],
)
def test_from_cv_results_draws_what_scikit_learn_draws(cv, displays, kw):
    X, y, w, results = cv
    kw = dict(kw)
    res = results[kw.pop("model", "LogisticRegression")]
    if kw.pop("weighted", False):
        kw["sample_weight"] = w
    ours_cls, theirs_cls = displays
    ours = ours_cls.from_cv_results(res, X, y, **kw)
    theirs = theirs_cls.from_cv_results(res, X, y, **kw)
    assert isinstance(ours.line_, list) and len(ours.line_) == len(theirs.line_) == 4
    for a, b in zip(ours.line_, theirs.line_, strict=True):
        same_line(a, b)
    same_picture(ours, theirs)
    assert ours.pos_label == theirs.pos_label
    if ours_cls is P.RocCurveDisplay:
        assert np.allclose(ours.roc_auc, theirs.roc_auc, rtol=1e-12)
    else:
        assert np.allclose(ours.average_precision, theirs.average_precision, rtol=1e-12)
        assert ours.prevalence_pos_label == theirs.prevalence_pos_label
    assert (ours.chance_level_ is None) == (theirs.chance_level_ is None)
    if ours.chance_level_ is not None:
        o, t = ours.chance_level_, theirs.chance_level_
        for a, b in zip(o if isinstance(o, list) else [o], t if isinstance(t, list) else [t], strict=True):
            same_line(a, b)


@pytest.mark.parametrize("displays", DISPLAYS, ids=["roc", "pr"])
def test_several_curves_from_arrays_as_scikit_learn(displays):
    ours_cls, theirs_cls = displays
    xs = [np.array([0.0, 0.2, 1.0]), np.array([0.0, 0.5, 1.0])]
    ys = [np.array([0.0, 0.7, 1.0]), np.array([0.0, 0.6, 1.0])]
    if ours_cls is P.RocCurveDisplay:
        args = {"fpr": xs, "tpr": ys, "roc_auc": [0.8, 0.6]}
    else:
        args = {
            "precision": ys,
            "recall": xs,
            "average_precision": [0.8, 0.6],
            "prevalence_pos_label": [0.3, 0.4],
        }
    for plot_kw in (
        {},
        {"name": "m", "plot_chance_level": True},
        {"curve_kwargs": FOLD_STYLES[:2], "name": ["a", "b"]},
    ):
        ours = ours_cls(**args).plot(**plot_kw)
        theirs = theirs_cls(**args).plot(**plot_kw)
        for a, b in zip(ours.line_, theirs.line_, strict=True):
            same_line(a, b)
        same_picture(ours, theirs)
        plt.close("all")


# -- the parameters are scikit-learn's -----------------------------------------------------------------------
#: (ours, scikit-learn's, method, the parameters only perfeval's has)
SIGNATURES = [
    (P.CalibrationDisplay, skc.CalibrationDisplay, "__init__", set()),
    (P.CalibrationDisplay, skc.CalibrationDisplay, "from_predictions", {"threshold", "sample_weight"}),
    (P.CalibrationDisplay, skc.CalibrationDisplay, "from_estimator", set()),
    (P.CalibrationDisplay, skc.CalibrationDisplay, "plot", {"args", "chance", "mark_threshold", "title"}),
    (P.ConfusionMatrixDisplay, skm.ConfusionMatrixDisplay, "__init__", set()),
    (P.ConfusionMatrixDisplay, skm.ConfusionMatrixDisplay, "plot", set()),
    (P.ConfusionMatrixDisplay, skm.ConfusionMatrixDisplay, "from_predictions", set()),
    (P.ConfusionMatrixDisplay, skm.ConfusionMatrixDisplay, "from_estimator", set()),
    (P.RocCurveDisplay, skm.RocCurveDisplay, "from_cv_results", set()),
    (P.PrecisionRecallDisplay, skm.PrecisionRecallDisplay, "from_cv_results", set()),
    (P.RocCurveDisplay, skm.RocCurveDisplay, "plot", {"chance", "mark_threshold", "title", "kwargs"}),
    (P.PrecisionRecallDisplay, skm.PrecisionRecallDisplay, "plot", {"chance", "mark_threshold", "title"}),
]


@pytest.mark.parametrize("ours,theirs,method,extra", SIGNATURES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_display_parameters_are_scikit_learns(ours, theirs, method, extra):
    """Every parameter of the installed scikit-learn's method is ours, of the same kind and default,
    in the same order; ours adds only perfeval's own."""
    sk_params = inspect.signature(getattr(theirs, method)).parameters
    our_params = inspect.signature(getattr(ours, method)).parameters
    for p in sk_params.values():
        assert p.name in our_params, (method, p.name)
        q = our_params[p.name]
        assert q.kind == p.kind, (method, p.name, q.kind, p.kind)
        assert q.default is p.default or q.default == p.default, (method, p.name, q.default, p.default)
    shared = [name for name in our_params if name in sk_params]
    assert shared == list(sk_params), (method, shared)
    assert set(our_params) - set(sk_params) == extra, (method, set(our_params) - set(sk_params))


# -- bad input: one line, perfeval's errors ------------------------------------------------------------------
def _bad_cases():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    res = cross_validate(LogisticRegression(), X, y, cv=3, return_estimator=True, return_indices=True)
    y3 = rng.integers(0, 3, 60)
    multi = LogisticRegression().fit(X, y3)
    p = rng.random(60)
    return [
        (lambda: P.RocCurveDisplay.from_cv_results({"estimator": res["estimator"]}, X, y), "required keys"),
        (lambda: P.RocCurveDisplay.from_cv_results(res, X[:50], y[:50]), "Expected 60, got 50"),
        (lambda: P.PrecisionRecallDisplay.from_cv_results(res, X, y3), "The target `y` is not binary"),
        (lambda: P.RocCurveDisplay.from_cv_results(res, X, y, sample_weight=np.ones(5)), "5 values for 60"),
        (
            lambda: P.RocCurveDisplay.from_cv_results(res, X, y, pos_label=7),
            "pos_label=7 is not a valid label",
        ),
        (lambda: P.RocCurveDisplay.from_cv_results(res, X, y, name=["a", "b", "c"]), "To avoid labeling"),
        (lambda: P.RocCurveDisplay.from_cv_results(res, X, y, curve_kwargs=[{}]), "a list of length 3"),
        (
            lambda: P.RocCurveDisplay.from_cv_results(res, X, y, curve_kwargs={"c": "r", "color": "b"}),
            "aliases",
        ),
        (lambda: P.RocCurveDisplay(fpr=[p, p], tpr=[p]).plot(), "same length. Got: self.fpr: 2, self.tpr: 1"),
        (lambda: P.PrecisionRecallDisplay([p], [p]).plot(plot_chance_level=True), "prevalence_pos_label"),
        (lambda: P.CalibrationDisplay.from_predictions(y3, p), "not binary"),
        (lambda: P.CalibrationDisplay.from_predictions(y, p * 2), r"outside \[0, 1\]"),
        (lambda: P.CalibrationDisplay.from_predictions(y, p, strategy="kmeans"), "strategy must be"),
        (
            lambda: P.CalibrationDisplay.from_predictions(np.where(y, "a", "b"), p),
            "pos_label is not specified",
        ),
        (lambda: P.CalibrationDisplay.from_estimator(LinearSVC().fit(X, y), X, y), "predict_proba"),
        (lambda: P.CalibrationDisplay.from_estimator(multi, X, y3), "binary classifier"),
        (lambda: P.CalibrationDisplay(p, p, p).plot(None, None), "takes ax once"),
        (lambda: P.ConfusionMatrixDisplay.from_predictions(y, p), "continuous values"),
        (lambda: P.ConfusionMatrixDisplay.from_predictions(y, y[:10]), "different lengths, 60 and 10"),
        (lambda: P.ConfusionMatrixDisplay.from_predictions(y, y, normalize="rows"), "normalize must be"),
        (lambda: P.ConfusionMatrixDisplay.from_predictions(y, y, labels=[5, 6]), "At least one label"),
        (
            lambda: P.ConfusionMatrixDisplay.from_estimator(LinearRegression().fit(X, y), X, y),
            "only supports",
        ),
        (lambda: P.ConfusionMatrixDisplay(np.ones((2, 3))).plot(), "square 2-D array, got shape (2, 3)"),
        (
            lambda: P.ConfusionMatrixDisplay(np.eye(2), display_labels=["a"]).plot(),
            "1 display_labels for a 2 x 2",
        ),
    ]


@pytest.mark.parametrize("case", range(24))
def test_display_bad_input_is_one_line_of_ours(case):
    call, match = _bad_cases()[case]
    with pytest.raises(InvalidParameterError) as e:
        call()
    assert match in str(e.value) or __import__("re").search(match, str(e.value)), str(e.value)
    assert "\n" not in str(e.value)


def test_the_bad_cases_are_all_run():
    assert len(_bad_cases()) == 24
