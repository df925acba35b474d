"""The calibration curve (reliability diagram), scikit-learn's form and perfeval's."""

from __future__ import annotations

from typing import Any

from perfeval.base.checks import to_numpy
from perfeval.curves import Curve
from perfeval.exceptions import InvalidParameterError
from perfeval.plot._base import Display, binary_label, literal, parameters, pyplot, styled
from perfeval.plot._curves import CurveDisplay

# perfeval.functional (and through it the door and the engine) is imported where a display
# computes its curve from predictions: `perfeval plot` does not load it.


class CalibrationDisplay(Display, CurveDisplay):
    """The calibration curve (reliability diagram) drawn as scikit-learn's
    ``sklearn.calibration.CalibrationDisplay`` draws it, from perfeval's
    :func:`perfeval.functional.calibration_curve`: the mean probability of each bin (x) against its
    share of positives (y), square markers joined by a line, and the dotted diagonal
    ``Perfectly calibrated``.

    Made by :meth:`from_predictions` or :meth:`from_estimator` (or from arrays, as scikit-learn's).
    Attributes as scikit-learn's: ``prob_true``, ``prob_pred``, ``y_prob``, ``estimator_name``,
    ``pos_label``, and after :meth:`plot` ``line_``, ``ax_``, ``figure_``.

    perfeval's own calibration plot stays: :meth:`from_models` (several models, PERF's 19
    overlapping bins by default, ``bins="perf"``, or ECE's ``"width"`` or ``"mass"`` bins with
    ``n_bins``, ECE's default (15) unless given, that ECE's value in the legend:
    :func:`perfeval.curves.calibration`;
    ``"uniform"`` and ``"quantile"`` their old names; ``sample_weight=``; the consistency band's
    ``band_level=`` and ``band=``), ``from_predictions`` given ``threshold=``, ``sample_weight=``,
    ``bins=``, ``band_level=`` or ``band=`` (undrawn: call :meth:`plot`), and :meth:`from_classes`
    (K classes: the top-label diagram, ECE_TOP's bins and value).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> d = CalibrationDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.4, 0.6, 0.9], n_bins=2)
    >>> d.prob_true.tolist(), d.prob_pred.tolist(), d.line_.get_label()
    ([0.0, 1.0], [0.25, 0.75], 'Classifier')
    """

    kind = "calibration"
    _what = "calibration curve"
    _response_method = "predict_proba"
    _from_predictions = parameters(
        "y_true y_prob n_bins strategy pos_label name ax ref_line threshold sample_weight kwargs"
    )
    _predictions_only = ("threshold", "sample_weight")
    _name_field = "estimator_name"
    _docs = {
        "threshold": "perfeval's: ``threshold``, ``sample_weight``, ``bins=``, ``band_level=`` or ``band=`` "
        "gives perfeval's display (its consistency band's level and draws: "
        ":func:`perfeval.curves.calibration`) "
        'instead (:meth:`from_models`: PERF\'s 19 overlapping bins by default, ``bins="perf"``; '
        'ECE\'s ``"width"`` or ``"mass"`` with ``n_bins``), the operating point at ``threshold`` (0.5 by '
        "default) marked, not yet drawn (call :meth:`plot`), as in earlier releases.",
        "sample_weight": "perfeval's: the weight of each case, in perfeval's display (see ``threshold``).",
        "kwargs": "matplotlib line properties (and perfeval's ``bins=``, ``band_level=``, ``band=``: see "
        "``threshold``).",
    }

    def __init__(
        self,
        prob_true: Any,
        prob_pred: Any,
        y_prob: Any,
        *,
        estimator_name: str | None = None,
        pos_label: Any = None,
    ):
        self._sklearn = True
        self.prob_true, self.prob_pred, self.y_prob = prob_true, prob_pred, y_prob
        self.estimator_name, self.pos_label = estimator_name, pos_label

    @property
    def name(self) -> str | None:
        return self.estimator_name

    @classmethod
    def _of_curves(cls, curves: list[Curve], names: list[str], **kw: Any) -> CalibrationDisplay:
        """The display of perfeval's form (several models, the operating points), as a CalibrationDisplay."""
        obj = cls.__new__(cls)
        CurveDisplay.__init__(obj, curves, names, **kw)
        obj._sklearn = False
        obj.prob_true = obj.prob_pred = obj.y_prob = obj.pos_label = None
        obj.estimator_name = names[0] if len(names) == 1 else None
        return obj

    @classmethod
    def from_classes(
        cls,
        y_true: Any,
        y_score: Any,
        *,
        classes: Any = None,
        sample_weight: Any = None,
        name: str = "model",
        bins: str = "width",
        n_bins: int | None = None,
        measure: Any = None,
        band_level: float = 0.9,
        band: str = "outcomes",
    ) -> CalibrationDisplay:
        """The top-label reliability diagram of K classes (``y_score`` of shape (n, K), a column a
        class): each case's confidence, its maximum probability, against whether its argmax is the
        true class, binned by ECE_TOP's bins (``bins`` width or mass, ``n_bins`` ECE_TOP's 15 by
        default; or those of ``measure``, an ECE_TOP spec), ECE_TOP's value in the legend, the
        consistency band of a calibrated model's confidences.  The cases are read as
        :func:`perfeval.evaluate` reads them with ``classes=`` (a tie at the maximum among t classes:
        right for 1/t of the case, as ECE_TOP counts it).  Undrawn: call :meth:`plot`.

        Examples
        --------
        >>> d = CalibrationDisplay.from_classes([0, 1, 2], [[.7, .2, .1], [.2, .5, .3], [.1, .3, .6]],
        ...                                     n_bins=2)
        >>> d.curves[0].extra["measure"], round(d.curves[0].extra["value"], 12)
        ('ECE_TOP:bins=width,n_bins=2', 0.4)
        """
        from perfeval.api.evaluation import evaluate
        from perfeval.curves import calibration as calibration_curve
        from perfeval.measures import parse_measure

        if measure is not None:
            asked = parse_measure(measure).label
        else:
            asked = f"ECE_TOP:bins={bins},n_bins={n_bins}" if n_bins is not None else f"ECE_TOP:bins={bins}"
        report = evaluate(y_true, y_score, classes=classes, sample_weight=sample_weight, measures=[asked])
        if report.params.get("task") != "multiclass" or report.summary is None:
            raise InvalidParameterError(
                "CalibrationDisplay.from_classes takes K classes' scores, a column a class (evaluate's "
                "classes=)"
            )
        curve = calibration_curve(report.summary, measure=asked, band_level=band_level, band=band)
        return cls._of_curves([curve], [name], kind="calibration", points=[None])

    @classmethod
    def _perfeval_form(cls, y_true: Any, y_prob: Any, a: dict[str, Any]) -> CalibrationDisplay | None:
        kwargs = a["kwargs"]
        own = {"bins", "band", "band_level"}
        if a["threshold"] is None and a["sample_weight"] is None and not own & kwargs.keys():
            return None
        bins = kwargs.pop("bins", "perf")
        band = {k: kwargs.pop(k) for k in ("band", "band_level") if k in kwargs}
        if kwargs:
            raise InvalidParameterError(
                f"perfeval's calibration display (threshold=, sample_weight=, bins=) takes no "
                f"line properties; got {', '.join(map(repr, kwargs))}"
            )
        return cls.from_models(
            y_true,
            {"model" if a["name"] is None else a["name"]: y_prob},
            kind="calibration",
            threshold=0.5 if a["threshold"] is None else a["threshold"],
            sample_weight=a["sample_weight"],
            bins=bins,
            n_bins=a["n_bins"],
            **band,
        )

    @classmethod
    def _fields(cls, y_true: Any, y_prob: Any, a: dict[str, Any]) -> dict[str, Any]:
        from perfeval.functional import calibration_curve

        pos = binary_label(f"{cls.__name__}.from_predictions", y_true, a["pos_label"])
        pyplot()
        prob_true, prob_pred = calibration_curve(
            y_true, y_prob, n_bins=a["n_bins"], strategy=a["strategy"], pos_label=a["pos_label"]
        )
        return {
            "prob_true": prob_true,
            "prob_pred": prob_pred,
            "y_prob": to_numpy(y_prob, "y_prob"),
            "estimator_name": "Classifier" if a["name"] is None else a["name"],
            "pos_label": pos,
        }

    def plot(
        self,
        *args: Any,
        ax: Any = None,
        name: str | None = None,
        ref_line: bool = True,
        chance: bool = True,
        mark_threshold: bool = True,
        title: str | None = None,
        **kwargs: Any,
    ) -> CalibrationDisplay:
        """Draw as scikit-learn does: the curve ``prob_pred`` (x) against ``prob_true`` (y), square
        markers, labelled ``name`` (default ``estimator_name``), the reference diagonal unless
        ``ref_line=False`` or the Axes has it already, the legend at the lower right.  A display of
        perfeval's form (:meth:`from_models`) is drawn perfeval's way (``chance``,
        ``mark_threshold``, ``title``; ``ax`` may be given by position there).
        """
        if args:
            if len(args) > 1 or ax is not None:
                raise InvalidParameterError("CalibrationDisplay.plot takes ax once (a keyword: ax=)")
            ax = args[0]
        if not self._sklearn:
            return super().plot(ax, chance=chance, mark_threshold=mark_threshold, title=title)
        ax = self._axes(ax)
        name = self.estimator_name if name is None else name
        info = f"(Positive class: {literal(self.pos_label)})" if self.pos_label is not None else ""
        defaults: dict[str, Any] = {"marker": "s", "linestyle": "-"}
        if name is not None:
            defaults["label"] = literal(name)
        style = styled(defaults, kwargs)
        ref_label = "Perfectly calibrated"
        if ref_line and ref_label not in ax.get_legend_handles_labels()[1]:
            ax.plot([0, 1], [0, 1], "k:", label=ref_label)
        self.line_ = ax.plot(self.prob_pred, self.prob_true, **style)[0]
        ax.legend(loc="lower right")
        ax.set(xlabel=f"Mean predicted probability {info}", ylabel=f"Fraction of positives {info}")
        return self
