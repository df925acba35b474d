"""The HTML report of K classes (a score column a class): the measures (each label with its
average), the per-class table (support, each averaged measure's value a class, the classes where a
measure is undefined and why), the one-vs-rest ROC and precision / recall curves of every class on
one chart each (with the micro-averaged curve), and the confusion matrix of the argmax (counts and
row-normalised) as heatmaps.  One self-contained page, as :func:`perfeval.plot.html.build`'s: images
embedded, no script, every name from the user escaped.
"""

from __future__ import annotations

import datetime as _dt
import math
import warnings
from typing import Any

import numpy as np

from perfeval._version import __version__
from perfeval.plot.html import CSS, _esc, _figure, _fmt, _png, _table

# matplotlib is optional (perfeval[plot]): imported where a figure is drawn; the engine where a
# report is made from arrays (classes_report).

#: above this many classes the curves' legends name only the micro-averaged curve (the per-class
#: table gives every class's area) and the heatmaps' cells hold no text
LEGEND_CLASSES = 10
VALUES_CLASSES = 20

CLASS_CSS = """
table.confusion td.num{min-width:3.5em} table.confusion th.true{text-align:left}
"""


def _number(v: float) -> str:
    """A count or weight as eval prints it (every digit that matters)."""
    return f"{float(v):.15g}"


def _label(c: Any) -> str:
    return str(c.item() if isinstance(c, np.generic) else c)


def _measures(report: Any) -> str:
    """The headline table: each measure's label (its average in it), whether higher is better, its
    value over all cases.
    """
    rows = []
    for lab, r in report.results.items():
        v = float(r.value)
        cls = "num undef" if not math.isfinite(v) else "num"
        rows.append(
            f"<tr><td>{_esc(lab)}</td><td>{_esc(r.direction)}</td>"
            f"<td class='{cls}' data-measure='{_esc(lab)}'>{_fmt(v)}</td></tr>"
        )
    return (
        '<div class="scroll"><table class="measures"><tr><th>measure</th><th>better</th><th>value</th></tr>'
        + "\n".join(rows)
        + "</table></div>"
    )


def _value_notes(report: Any) -> str:
    """Why a headline value is not a number, as ``perfeval eval`` says it (the measure's reason)."""
    from perfeval.engine.report import why_not_finite

    notes = []
    for lab, r in report.results.items():
        v = float(r.value)
        if math.isfinite(v):
            continue
        why = f"undefined: {r.why}" if r.why else why_not_finite(v, lab, "for this data")
        notes.append(f"<b>{_esc(lab)}</b> is {_esc((why or 'undefined').rstrip('.'))}.")
    if not notes:
        return ""
    return "<ul class='notes value-notes'>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>"


def _per_class(report: Any, summary: Any, classes: list) -> list[str]:
    """The per-class table: each class's support and the value a class of every averaged measure;
    under it the classes where a measure is undefined, and why (left out of its macro and weighted
    averages).
    """
    from perfeval.engine.report import class_reasons

    per = [(lab, r) for lab, r in report.results.items() if r.per_class is not None]
    support = np.asarray(summary.n_class, dtype=np.float64)
    head = "<tr><th>class</th><th>support</th>" + "".join(f"<th>{_esc(lab)}</th>" for lab, _ in per) + "</tr>"
    rows = []
    for i, c in enumerate(classes):
        cells = [
            f"<td class='key' data-class='{_esc(_label(c))}'>{_esc(_label(c))}</td>",
            f"<td class='num' data-col='support'>{_number(support[i])}</td>",
        ]
        for lab, r in per:
            v = float(np.asarray(r.per_class, dtype=np.float64)[i])
            cls = "num undef" if not math.isfinite(v) else "num"
            cells.append(f"<td class='{cls}' data-measure='{_esc(lab)}'>{_fmt(v)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    parts = [
        "<h2>Per class</h2>",
        "<p class='meta'>Each class against the rest: its support (the weight of its cases among the "
        "targets) and its value of every measure averaged over the classes; the averages of the table "
        "above are of these values (macro: their mean; weighted: by support).</p>",
        '<div class="scroll"><table class="classes">' + head + "\n".join(rows) + "</table></div>",
    ]
    undefined: dict[str, list[str]] = {}  # the class and its reason -> the measures
    for lab, r in per:
        reasons = class_reasons(summary, lab, r.per_class, r.classes or classes)
        for c in r.undefined_classes:
            why = reasons.get(str(c), "undefined")
            undefined.setdefault(f"{_label(c)}: {why}", []).append(lab)
    if undefined:
        parts.append(
            "<ul class='notes undefined-classes'>"
            + "".join(
                f"<li>undefined, left out of the averages: <b>{_esc(what)}</b>; in {_esc(', '.join(labs))}</li>"
                for what, labs in undefined.items()
            )
            + "</ul>"
        )
    return parts


def _confusion_table(confusion: np.ndarray, classes: list) -> str:
    """The confusion matrix of the argmax, every digit (the heatmaps round)."""
    head = "<tr><th>true \\ predicted</th>" + "".join(f"<th>{_esc(_label(c))}</th>" for c in classes) + "</tr>"
    rows = [
        f"<tr><th class='true'>{_esc(_label(c))}</th>"
        + "".join(f"<td class='num'>{_number(v)}</td>" for v in row)
        + "</tr>"
        for c, row in zip(classes, confusion.tolist(), strict=True)
    ]
    return '<div class="scroll"><table class="confusion">' + head + "\n".join(rows) + "</table></div>"


def row_normalised(confusion: np.ndarray) -> np.ndarray:
    """Each row divided by its sum (the share of a true class's cases predicted as each class); a
    class with no case among the targets has no row to divide: NaN.
    """
    cm = np.asarray(confusion, dtype=np.float64)
    total = cm.sum(axis=1, keepdims=True)
    out = np.full(cm.shape, np.nan)
    np.divide(cm, total, out=out, where=total > 0)
    return out


def _curves_figure(kind: str, summary: Any, classes: list) -> Any:
    """One chart: every class's one-vs-rest curve of ``kind`` (roc or pr), and the micro-averaged
    curve (every (case, class) pair as one binary problem), dashed.
    """
    import matplotlib.pyplot as plt

    from perfeval import curves
    from perfeval.plot import CurveDisplay

    make = curves.roc if kind == "roc" else curves.precision_recall
    k = len(classes)
    drawn = [make(summary.one_vs_rest(j)) for j in range(k)] + [make(summary.micro())]
    names = [_label(c) for c in classes] + ["micro-average"]
    fig, ax = plt.subplots(figsize=(5.2, 4.6), layout="constrained")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a class without a case draws nothing: said in the legend
        d = CurveDisplay(drawn, names, kind=kind).plot(ax=ax, mark_threshold=False, chance=kind == "roc")
    micro = d.lines_[-1]
    micro.set(color="k", linestyle="--", linewidth=1.4)
    if k > LEGEND_CLASSES:
        for line in d.lines_[:-1]:
            line.set(label=f"_{line.get_label()}", linewidth=0.8, alpha=0.6)
    ax.legend(loc="lower right" if kind == "roc" else "lower left", fontsize=8)
    ax.set_title("ROC curves, one vs rest" if kind == "roc" else "Precision / recall, one vs rest")
    return fig


def _heatmap(confusion: np.ndarray, classes: list, normalised: bool) -> Any:
    """The confusion matrix as a heatmap (scikit-learn's ConfusionMatrixDisplay): counts, or each
    row's shares; a row with no case says so in its cells.
    """
    import matplotlib.pyplot as plt

    from perfeval.plot import ConfusionMatrixDisplay, literal

    k = len(classes)
    size = min(9.0, max(4.4, 2.4 + 0.45 * k))
    fig, ax = plt.subplots(figsize=(size, size * 0.9), layout="constrained")
    values = row_normalised(confusion) if normalised else np.asarray(confusion, dtype=np.float64)
    whole = not normalised and bool(np.all(values == np.round(values)))
    shown = values.astype(np.int64) if whole else values
    d = ConfusionMatrixDisplay(shown, display_labels=[literal(_label(c)) for c in classes])
    d.plot(
        ax=ax,
        include_values=k <= VALUES_CLASSES,
        values_format=None if whole else (".2f" if normalised else ".6g"),
        cmap="Blues",
        xticks_rotation="vertical" if k > 6 else "horizontal",
        colorbar=True,
    )
    if d.text_ is not None:
        for i, j in zip(*np.nonzero(np.isnan(values)), strict=True):
            d.text_[i, j].set(text="n/a", color="0.4")
    ax.set_title("Row-normalised" if normalised else "Counts (weights)")
    return fig


def build_classes(
    report: Any,
    *,
    scores: Any = None,
    sample_weight: Any = None,
    command: str = "",
    source: str = "",
) -> str:
    """The HTML text of the report of K classes.

    Parameters
    ----------
    report : Report
        A report of K classes over all cases (``report.params["task"] == "multiclass"``, its
        ``summary`` the :class:`~perfeval.summaries.classes.ClassSummary`), as
        :func:`perfeval.evaluate` with ``classes=`` or ``perfeval eval --classes`` make it.
    scores : array-like of shape (n_samples, n_classes), optional
        The scores, for the range the input table shows.
    sample_weight : array-like of shape (n_samples,), optional
        The weights, for the input table (the report's numbers already hold them).
    command, source : str
        The command line and the input's name, shown at the top.

    Returns
    -------
    str
        One self-contained HTML page (images embedded, no script, no network).
    """
    import matplotlib

    from perfeval.exceptions import InvalidParameterError

    matplotlib.use("Agg", force=False)
    summary = report.summary
    if report.params.get("task") != "multiclass" or summary is None:
        raise InvalidParameterError(
            "build_classes takes a report of K classes over all cases (evaluate(y, S, classes=...), "
            "without groups)"
        )
    classes = list(report.params["classes"])
    confusion = np.asarray(summary.confusion, dtype=np.float64)
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>perfeval report</title><style>{CSS}{CLASS_CSS}</style></head><body>",
        "<h1>Evaluation report</h1>",
        f"<p class='meta'>perfeval {__version__} &middot; "
        f"{_esc(_dt.datetime.now().isoformat(timespec='seconds'))}"
        f"<br>command: <code>{_esc(command)}</code></p>",
        "<h2>Input</h2>",
        _input_table(report, summary, classes, scores, sample_weight, source),
        "<h2>Measures</h2>",
        _measures(report),
        _value_notes(report),
        "<p class='meta'>Over all cases, as <code>perfeval eval</code> with the same classes; each "
        "label says how the classes are averaged. The predicted class of a case is the argmax of its "
        "row; a tie at the max shares the case among the tied classes.</p>",
        f"<p class='meta signature'>Signature: <code>{_esc(str(report.signature))}</code></p>",
    ]
    parts += _per_class(report, summary, classes)
    parts += [
        "<h2>Plots</h2>",
        "<div class='plots'>",
        _figure(
            "roc-classes",
            _png(_curves_figure("roc", summary, classes)),
            "<b>ROC curves, one vs rest</b>: each class's cases against the rest, scored by the class's "
            "column (legend: its ROC area, the per-class value of ROC_OVR); dashed: the micro-average, "
            "every (case, class) pair as one binary problem.",
        ),
        _figure(
            "pr-classes",
            _png(_curves_figure("pr", summary, classes)),
            "<b>Precision / recall, one vs rest</b>: each class against the rest (legend: its average "
            "precision, the per-class value of AP_OVR); dashed: the micro-average.",
        ),
        _figure(
            "confusion",
            _png(_heatmap(confusion, classes, normalised=False)),
            "<b>Confusion matrix of the argmax</b>: rows the true class, columns the predicted one; a "
            "tie at the max shares the case among the tied classes (the table below gives every digit).",
        ),
        _figure(
            "confusion-normalised",
            _png(_heatmap(confusion, classes, normalised=True)),
            "<b>Row-normalised</b>: the share of each true class's cases predicted as each class (the "
            "diagonal: each class's recall); n/a: a class with no case among the targets.",
        ),
        "</div>",
        "<h3>Confusion matrix of the argmax</h3>",
        _confusion_table(confusion, classes),
        "</body></html>",
    ]
    return "\n".join(parts)


def _input_table(
    report: Any, summary: Any, classes: list, scores: Any, sample_weight: Any, source: str
) -> str:
    how = report.params.get("classes_from") or "given"
    shown = ", ".join(_label(c) for c in classes[:12]) + (", ..." if len(classes) > 12 else "")
    rows: list[list[Any]] = [
        ["source", source or "(arrays)"],
        ["rows", int(report.params.get("rows") or 0)],
        ["classes", f"{len(classes)}: {shown} (from {how})"],
    ]
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=np.float64)
        dropped = int(np.sum(w == 0))
        rows.append(
            [
                "weights",
                f"{_number(summary.total)} in all"
                + (f" ({dropped:,} rows of weight 0 left out)" if dropped else ""),
            ]
        )
    if scores is not None:
        s = np.asarray(scores, dtype=np.float64)
        rows.append(["score range", f"{s.min():.6g} .. {s.max():.6g}" if s.size else "empty"])
    rows.append(["prediction", "the argmax of each row (a tie at the max shares the case)"])
    return _table(["", "value"], rows, "summary")


def classes_report(
    y_true: Any,
    y_score: Any,
    *,
    classes: Any = None,
    measures: Any = None,
    sample_weight: Any = None,
    command: str = "",
    source: str = "",
) -> str:
    """The HTML report of K classes of arrays: :func:`perfeval.evaluate` (``classes=``: the labels of
    the score columns, in order; by default as ``evaluate`` finds them), then :func:`build_classes`.

    Examples
    --------
    >>> page = classes_report(["a", "b", "c"], [[.7, .2, .1], [.2, .5, .3], [.1, .3, .6]],
    ...                       classes=["a", "b", "c"])   # doctest: +SKIP
    """
    from perfeval.api.evaluation import evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what is undefined is said in the page
        more = {} if measures is None else {"measures": measures}
        report = evaluate(y_true, y_score, classes=classes, sample_weight=sample_weight, **more)
    return build_classes(
        report, scores=y_score, sample_weight=sample_weight, command=command, source=source
    )
