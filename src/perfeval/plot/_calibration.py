"""The calibration curve (reliability diagram), scikit-learn's form and perfeval's."""

from __future__ import annotations

from typing import Any

from perfeval.exceptions import InvalidParameterError
from perfeval.plot._base import binary_label, literal, pyplot, response_of, styled
from perfeval.plot._curves import CurveDisplay


class CalibrationDisplay(CurveDisplay):
    """The calibration curve (reliability diagram) drawn as scikit-learn's
    ``sklearn.calibration.CalibrationDisplay`` draws it, from perfeval's
    :func:`perfeval.functional.calibration_curve`: the mean probability of each bin (x) against its
    share of positives (y), square markers joined by a line, and the dotted diagonal
    ``Perfectly calibrated``.

    Made by :meth:`from_predictions` or :meth:`from_estimator` (or from arrays, as scikit-learn's).
    Attributes as scikit-learn's: ``prob_true``, ``prob_pred``, ``y_prob``, ``estimator_name``,
    ``pos_label``, and after :meth:`plot` ``line_``, ``ax_``, ``figure_``.

    perfeval's own calibration plot stays: :meth:`from_models` (several models, PERF's 19
    overlapping bins by default, ``bins=``, ``sample_weight=``), and ``from_predictions`` given
    ``threshold=``, ``sample_weight=`` or ``bins=`` (undrawn: call :meth:`plot`).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> d = CalibrationDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.4, 0.6, 0.9], n_bins=2)
    >>> d.prob_true.tolist(), d.prob_pred.tolist(), d.line_.get_label()
    ([0.0, 1.0], [0.25, 0.75], 'Classifier')
    """

    kind = "calibration"

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
    def _perfeval_form(cls, d: CurveDisplay) -> CalibrationDisplay:
        """The display of perfeval's form (several models, the operating points), as a CalibrationDisplay."""
        obj = cls.__new__(cls)
        CurveDisplay.__init__(
            obj, d.curves, d.names, kind=d.kind, points=d.points, threshold=d.threshold, base_rate=d.base_rate
        )
        obj._sklearn = False
        obj.prob_true = obj.prob_pred = obj.y_prob = obj.pos_label = None
        obj.estimator_name = d.names[0] if len(d.names) == 1 else None
        return obj

    @classmethod
    def from_models(
        cls,
        y_true: Any,
        scores: dict[str, Any],
        *,
        kind: str | None = None,
        threshold: float = 0.5,
        sample_weight: Any = None,
        **curve_kw: Any,
    ) -> CalibrationDisplay:
        """The calibration plot of perfeval's form, of several models' scores (``bins="perf"``: PERF's 19
        overlapping bins; ``"uniform"`` or ``"quantile"`` with ``n_bins``, 10 by default).
        """
        d = CurveDisplay.from_models(
            y_true,
            scores,
            kind=kind or cls.kind,
            threshold=threshold,
            sample_weight=sample_weight,
            **curve_kw,
        )
        return cls._perfeval_form(d)

    @classmethod
    def from_predictions(  # type: ignore[override]
        cls,
        y_true: Any,
        y_prob: Any,
        *,
        n_bins: int = 5,
        strategy: str = "uniform",
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        ref_line: bool = True,
        threshold: float | None = None,
        sample_weight: Any = None,
        **kwargs: Any,
    ) -> CalibrationDisplay:
        """The calibration curve of probabilities, drawn as scikit-learn's
        ``CalibrationDisplay.from_predictions``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Binary labels ({0, 1}, {-1, 1}, or two labels with ``pos_label``).
        y_prob : array-like of shape (n_samples,)
            The probability of the positive class.
        n_bins, strategy
            As :func:`perfeval.functional.calibration_curve`.
        pos_label : optional
            The positive class.
        name : str, optional
            The legend's name (default ``"Classifier"``).
        ax : matplotlib Axes, optional
        ref_line : bool, default True
            Draw the diagonal, ``Perfectly calibrated`` (once an Axes).
        threshold, sample_weight, bins
            perfeval's: any of them gives perfeval's display instead (``bins="perf"`` by default),
            undrawn, as in earlier releases.
        **kwargs
            matplotlib line properties.
        """
        if threshold is not None or sample_weight is not None or "bins" in kwargs:
            bins = kwargs.pop("bins", "perf")
            if kwargs:
                raise InvalidParameterError(
                    f"perfeval's calibration display (threshold=, sample_weight=, bins=) takes no "
                    f"line properties; got {', '.join(map(repr, kwargs))}"
                )
            d = CurveDisplay.from_models(
                y_true,
                {"model" if name is None else name: y_prob},
                kind="calibration",
                threshold=0.5 if threshold is None else threshold,
                sample_weight=sample_weight,
                bins=bins,
                n_bins=n_bins,
            )
            return cls._perfeval_form(d)
        from perfeval._validation import to_numpy
        from perfeval.functional import calibration_curve

        pos = binary_label(f"{cls.__name__}.from_predictions", y_true, pos_label)
        pyplot()
        prob_true, prob_pred = calibration_curve(
            y_true, y_prob, n_bins=n_bins, strategy=strategy, pos_label=pos_label
        )
        d = cls(
            prob_true,
            prob_pred,
            to_numpy(y_prob, "y_prob"),
            estimator_name="Classifier" if name is None else name,
            pos_label=pos,
        )
        return d.plot(ax=ax, ref_line=ref_line, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        *,
        n_bins: int = 5,
        strategy: str = "uniform",
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        ref_line: bool = True,
        **kwargs: Any,
    ) -> CalibrationDisplay:
        """The calibration curve of a fitted binary classifier's ``predict_proba`` on (X, y), as
        scikit-learn's ``CalibrationDisplay.from_estimator``: the ``pos_label`` column (default the
        last of ``classes_``); the estimator's class name is the default ``name``.
        """
        pyplot()
        y_prob, pos = response_of(estimator, X, "predict_proba", pos_label)
        return cls.from_predictions(
            y,
            y_prob,
            n_bins=n_bins,
            strategy=strategy,
            pos_label=pos,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            ref_line=ref_line,
            **kwargs,
        )

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
        plt = pyplot()
        if ax is None:
            _fig, ax = plt.subplots()
        self.ax_, self.figure_ = ax, ax.figure
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
