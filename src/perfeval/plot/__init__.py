"""Plots of the curves in :mod:`perfeval.curves`, in scikit-learn's Display style.

>>> d = RocCurveDisplay.from_predictions(y, score, name="model A")   # doctest: +SKIP
>>> d.plot(ax=ax)                                                      # doctest: +SKIP

``RocCurveDisplay``, ``PrecisionRecallDisplay``, ``DetCurveDisplay``, ``CalibrationDisplay`` and
``ConfusionMatrixDisplay`` also draw what scikit-learn's displays of those names draw
(``from_predictions``, ``from_estimator``, ``from_cv_results``), from perfeval's numbers.
``CurveDisplay.from_models`` puts several models on one figure (the legend gives each one's area),
``plot_by_group`` draws small multiples, one panel a group; ``forest`` a measure's value in each
slice (with intervals when given), ``slice_curves`` some slices' curves beside the curve over
every case (docs/slices.md).  Every display marks the operating point at its threshold and the
chance line.  matplotlib is an optional dependency (``pip install 'perfeval[plot]'``), imported
when a plot is drawn.

The modules, one a family of displays: ``_base`` (:class:`Display`, the base of scikit-learn's
displays, where ``from_predictions``, ``from_estimator`` and ``from_cv_results`` are written once,
and what every display shares), ``_curves`` (perfeval's :class:`CurveDisplay` and its kinds),
``_binary`` (ROC, precision / recall, DET), ``_calibration``, ``_confusion``, ``_figures``
(:func:`plot_by_group`, :func:`save`), ``_slices`` (:func:`forest`, :func:`slice_curves`) and
``_regression`` (a regression target: :func:`predicted_figure`, :func:`residuals_figure`,
:func:`regression_by_group`).  A
new display of scikit-learn's names its constructors' parameters and how it is made from one set
of predictions, and inherits the constructors.
"""

from __future__ import annotations

from perfeval.plot._base import literal
from perfeval.plot._binary import DetCurveDisplay, PrecisionRecallDisplay, RocCurveDisplay
from perfeval.plot._calibration import CalibrationDisplay
from perfeval.plot._confusion import ConfusionMatrixDisplay
from perfeval.plot._curves import (
    AREA,
    THIN_CELLS,
    TITLES,
    AccuracyDisplay,
    CostDisplay,
    CurveDisplay,
    LiftDisplay,
    operating_point,
    thinned,
)
from perfeval.plot._figures import FORMATS, MAX_GROUPS, check_path, plot_by_group, save
from perfeval.plot._regression import predicted_figure, regression_by_group, residuals_figure
from perfeval.plot._slices import forest, slice_curves

__all__ = [
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
    "forest",
    "literal",
    "operating_point",
    "plot_by_group",
    "predicted_figure",
    "regression_by_group",
    "residuals_figure",
    "save",
    "slice_curves",
    "thinned",
]
