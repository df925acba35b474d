"""The confusion matrix drawn as scikit-learn draws it."""

from __future__ import annotations

from itertools import product
from typing import Any

import numpy as np

from perfeval.exceptions import InvalidParameterError
from perfeval.plot._base import Display, literal, parameters, pyplot, styled

# perfeval.functional and the scikit-learn face (and through them the door and the engine) are
# imported where a display computes its matrix: `perfeval plot` does not load them.


class ConfusionMatrixDisplay(Display):
    """The confusion matrix drawn as scikit-learn's ``ConfusionMatrixDisplay`` draws it, from
    perfeval's :func:`perfeval.functional.confusion_matrix`: an image of the counts (rows the true
    labels, columns the predicted ones), each cell's value written in it in the colour that stands
    out from the cell (the colour map's far end), a colour bar.

    Attributes as scikit-learn's: ``confusion_matrix``, ``display_labels``, and after :meth:`plot`
    ``im_``, ``text_`` (an array of matplotlib Text, None without values), ``ax_``, ``figure_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> d = ConfusionMatrixDisplay.from_predictions(["a", "b", "b"], ["a", "a", "b"])
    >>> d.confusion_matrix.tolist(), [t.get_text() for t in d.text_.ravel()]
    ([[1, 0], [1, 1]], ['1', '0', '1', '1'])
    """

    _what = "confusion matrix"
    _response_method = "predict"
    _from_predictions = parameters(
        "y_true y_pred labels sample_weight normalize display_labels include_values xticks_rotation "
        "values_format cmap ax colorbar im_kw text_kw"
    )
    _predictions_only = ()
    _docs = {"y_true": "The true labels."}

    def __init__(self, confusion_matrix: Any, *, display_labels: Any = None):
        self.confusion_matrix = confusion_matrix
        self.display_labels = display_labels

    def plot(
        self,
        *,
        include_values: bool = True,
        cmap: Any = "viridis",
        xticks_rotation: Any = "horizontal",
        values_format: str | None = None,
        ax: Any = None,
        colorbar: bool = True,
        im_kw: dict[str, Any] | None = None,
        text_kw: dict[str, Any] | None = None,
    ) -> ConfusionMatrixDisplay:
        """Draw the matrix (``imshow``, nearest interpolation) with its values, formatted ``d`` or
        ``.2g`` whichever is shorter (``values_format`` to choose), the tick labels
        ``display_labels`` (default 0 ... n - 1), ``True label`` / ``Predicted label``.
        """
        plt = pyplot()
        cm = np.asarray(self.confusion_matrix)
        if cm.ndim != 2 or cm.shape[0] != cm.shape[1] or cm.shape[0] == 0:
            raise InvalidParameterError(
                f"ConfusionMatrixDisplay: confusion_matrix must be a square 2-D array, got shape {cm.shape}"
            )
        n = cm.shape[0]
        labels = np.arange(n) if self.display_labels is None else self.display_labels
        if len(labels) != n:
            raise InvalidParameterError(
                f"ConfusionMatrixDisplay: {len(labels)} display_labels for a {n} x {n} confusion matrix"
            )
        if ax is None:
            fig, ax = plt.subplots()
        else:
            fig = ax.figure
        self.im_ = ax.imshow(cm, **styled({"interpolation": "nearest", "cmap": cmap}, im_kw))
        self.text_ = None
        cmap_min, cmap_max = self.im_.cmap(0), self.im_.cmap(1.0)
        if include_values:
            self.text_ = np.empty_like(cm, dtype=object)
            thresh = (cm.max() + cm.min()) / 2.0
            for i, j in product(range(n), range(n)):
                color = cmap_max if cm[i, j] < thresh else cmap_min
                if values_format is None:
                    text = format(cm[i, j], ".2g")
                    if cm.dtype.kind != "f":
                        whole = format(cm[i, j], "d")
                        if len(whole) < len(text):
                            text = whole
                else:
                    text = format(cm[i, j], values_format)
                style = styled({"ha": "center", "va": "center", "color": color}, text_kw)
                self.text_[i, j] = ax.text(j, i, text, **style)
        if colorbar:
            fig.colorbar(self.im_, ax=ax)
        shown = [literal(v.item() if hasattr(v, "item") else v) for v in labels]
        ax.set(
            xticks=np.arange(n),
            yticks=np.arange(n),
            xticklabels=shown,
            yticklabels=shown,
            ylabel="True label",
            xlabel="Predicted label",
        )
        ax.set_ylim((n - 0.5, -0.5))
        plt.setp(ax.get_xticklabels(), rotation=xticks_rotation)
        self.figure_, self.ax_ = fig, ax
        return self

    @classmethod
    def _fields(cls, y_true: Any, y_pred: Any, a: dict[str, Any]) -> dict[str, Any]:
        from perfeval.functional import confusion_matrix
        from perfeval.functional.sklearn_names import hard_labels

        pyplot()
        fn = f"{cls.__name__}.from_predictions"
        _yt, _yp, present, _w = hard_labels(fn, y_true, y_pred, a["sample_weight"])
        labels, display_labels = a["labels"], a["display_labels"]
        if display_labels is None:
            display_labels = present if labels is None else labels
        cm = confusion_matrix(
            y_true, y_pred, labels=labels, sample_weight=a["sample_weight"], normalize=a["normalize"]
        )
        return {"confusion_matrix": cm, "display_labels": display_labels}
