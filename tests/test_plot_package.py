"""perfeval.plot as a package: every public name where it was, matplotlib still imported only when a
plot is drawn, and the displays' constructors written once on the base (``plot/_base.py``), each
display's shown with its own signature and every parameter documented."""

from __future__ import annotations

import inspect
import pydoc
import re
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import perfeval.plot as P  # noqa: E402
from perfeval.plot._base import Display, parameters  # noqa: E402

#: the public names of perfeval.plot when it was one module (plot.py)
PUBLIC = [
    "AREA",
    "FORMATS",
    "MAX_GROUPS",
    "THIN_CELLS",
    "TITLES",
    "AccuracyDisplay",
    "CalibrationDisplay",
    "ConfusionMatrixDisplay",
    "CostDisplay",
    "CurveDisplay",
    "DetCurveDisplay",
    "LiftDisplay",
    "PrecisionRecallDisplay",
    "RocCurveDisplay",
    "check_path",
    "literal",
    "operating_point",
    "plot_by_group",
    "save",
    "thinned",
]
DISPLAYS = [
    P.RocCurveDisplay,
    P.PrecisionRecallDisplay,
    P.DetCurveDisplay,
    P.CalibrationDisplay,
    P.ConfusionMatrixDisplay,
]
METHODS = ("from_predictions", "from_estimator", "from_cv_results")
CONSTRUCTORS = [(d, m) for d in DISPLAYS for m in METHODS if hasattr(d, m)]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_is_where_it_was(name):
    ns: dict = {}
    exec(f"from perfeval.plot import {name}", ns)
    assert ns[name] is getattr(P, name)
    assert name in P.__all__


def test_importing_plot_imports_no_matplotlib():
    code = "import sys, perfeval.plot; print(any(m.split('.')[0] == 'matplotlib' for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_the_constructors_are_the_bases():
    """Each display's constructors are the base's (one implementation), shown with its own signature;
    from_cv_results only where scikit-learn has it (ROC and PR), none on perfeval's own curves."""
    for d in DISPLAYS:
        assert issubclass(d, Display)
    assert {(d.__name__, m) for d, m in CONSTRUCTORS if m == "from_cv_results"} == {
        ("RocCurveDisplay", "from_cv_results"),
        ("PrecisionRecallDisplay", "from_cv_results"),
    }
    for d in (P.CurveDisplay, P.LiftDisplay):
        assert not hasattr(d, "from_estimator") and not hasattr(d, "from_cv_results")
    roc, det = P.RocCurveDisplay.from_estimator, P.DetCurveDisplay.from_estimator
    assert roc.__qualname__ == "RocCurveDisplay.from_estimator" and roc.__doc__ != det.__doc__
    assert inspect.signature(roc) != inspect.signature(det)


@pytest.mark.parametrize("display,method", CONSTRUCTORS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_help_shows_every_parameter(display, method):
    """help() of every public constructor gives its signature and documents each of its parameters."""
    fn = getattr(display, method)
    text = pydoc.render_doc(fn, renderer=pydoc.plaintext)
    sig = inspect.signature(fn)
    assert f"{method}{sig}" in text
    documented = re.findall(r"^\s+(\*\*)?(\w+) : ", text, re.M)
    assert [name for _stars, name in documented] == list(sig.parameters), documented


@pytest.mark.parametrize("display", DISPLAYS, ids=lambda d: d.__name__)
def test_from_estimator_takes_from_predictions_parameters(display):
    """from_estimator: (estimator, X, y), then from_predictions' keywords with their defaults, but
    perfeval's own (threshold; sample_weight of the calibration), response_method before pos_label
    where the scores come from the estimator's choice of method."""
    fp = inspect.signature(display.from_predictions).parameters
    fe = inspect.signature(display.from_estimator).parameters
    assert list(fe)[:3] == ["estimator", "X", "y"]
    own = {"threshold"} | ({"sample_weight"} if display is P.CalibrationDisplay else set())
    own |= {"classes"} if display is P.RocCurveDisplay else set()  # K classes: from_predictions only
    expected = [n for n in list(fp)[2:] if n not in own]
    if display in (P.RocCurveDisplay, P.PrecisionRecallDisplay, P.DetCurveDisplay):
        expected.insert(expected.index("pos_label"), "response_method")
    assert list(fe)[3:] == expected
    for n in expected:
        if n in fp:
            assert fe[n].default == fp[n].default and fe[n].kind == fp[n].kind, n


def test_a_wrong_call_is_a_type_error_naming_the_constructor():
    with pytest.raises(TypeError, match=r"ConfusionMatrixDisplay\.from_estimator\(\).*'colour'"):
        P.ConfusionMatrixDisplay.from_estimator(None, [[0]], [0], colour="r")
    with pytest.raises(TypeError, match=r"CalibrationDisplay\.from_predictions\(\).*y_prob"):
        P.CalibrationDisplay.from_predictions([0, 1])


class _Scores:
    """A fitted binary classifier's stand-in: decision values, classes 0 and 1."""

    classes_ = np.array([0, 1])

    def decision_function(self, X):
        return np.asarray(X, dtype=float)[:, 0]


def test_a_new_display_gets_its_constructors_from_the_base():
    """A display that names its parameters and its curve has from_predictions and from_estimator
    (signature, docs, the estimator's scores and name, its plot's parameters passed on)."""
    from perfeval.functional import roc_curve

    class Toy(Display):
        _what = "toy curve"
        _from_predictions = parameters("y_true y_score sample_weight pos_label name ax kwargs")

        def __init__(self, *, fpr, tpr, name=None, pos_label=None):
            self.fpr, self.tpr, self.name, self.pos_label = fpr, tpr, name, pos_label

        @classmethod
        def _fields(cls, y_true, y_score, a):
            a = {**a, "drop_intermediate": False}
            return super()._fields(y_true, y_score, a)

        @classmethod
        def _curve(cls, y_true, y_score, **kw):
            fpr, tpr, _ = roc_curve(y_true, y_score, **kw)
            return {"fpr": fpr, "tpr": tpr}

        def plot(self, ax=None, *, name=None, **kwargs):
            self.drawn = (ax, name, kwargs)
            return self

    y, X = [0, 1, 0, 1], [[0.2], [0.7], [0.4], [0.3]]
    d = Toy.from_estimator(_Scores(), X, y, color="r")
    assert list(inspect.signature(Toy.from_estimator).parameters) == [
        "estimator",
        "X",
        "y",
        "sample_weight",
        "response_method",
        "pos_label",
        "name",
        "ax",
        "kwargs",
    ]
    assert "toy curve" in Toy.from_estimator.__doc__ and "response_method : " in Toy.from_estimator.__doc__
    expected = roc_curve(y, [0.2, 0.7, 0.4, 0.3], drop_intermediate=False)
    assert d.fpr.tolist() == expected[0].tolist() and d.tpr.tolist() == expected[1].tolist()
    assert d.name == "_Scores" and d.pos_label == 1 and d.drawn == (None, "_Scores", {"color": "r"})
    assert not hasattr(Toy, "from_cv_results")
