"""The report's operating points (docs/operating.md): when the measures asked pick an operating point
(TPR_AT_FPR, SEN_AT_SPC, SPC_AT_SEN, PRE_AT_REC, REC_AT_PRE, and the threshold choices YOUDEN,
TOPLEFT, BEST_FBETA, BEST_MCC, LEAST_COST), a table of each one's value, its score threshold (a case
is predicted positive when its score >= it), with ``ci`` the bootstrap interval of both (the value's
spec and its ``of=threshold`` twin, :func:`perfeval.ci`), and where the point lies on its curve; and
the ROC curve (precision / recall for PRE_AT_REC and REC_AT_PRE) with each point marked.

Every number is over all rows pooled (``evaluate`` without groups): an operating point is one
threshold, and the curves are drawn over all rows.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from perfeval.base.checks import to_numpy

__all__ = ["OperatingPoint", "operating_labels", "operating_points", "operating_section"]

#: the measures whose point lies on the precision / recall curve (the others: on the ROC curve)
ON_PR = ("PRE_AT_REC", "REC_AT_PRE")

#: the markers of the measures, in the order asked (a colour a model)
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*", "<", ">")


def operating_labels(labels: list[str]) -> list[str]:
    """The labels among ``labels`` of measures that pick an operating point (their value asked:
    ``of`` at ``value``), in order.
    """
    from perfeval.measures import parse_measure

    out = []
    for lab in labels:
        try:
            spec = parse_measure(lab)
        except Exception:  # a partition's label, not a spec
            continue
        if spec.measure.kind == "binary" and spec.kwargs.get("of") == "value":
            out.append(lab)
    return out


def _twin(label: str) -> str:
    """The label of the measure's ``of=threshold`` spec (its threshold as a value)."""
    from perfeval.engine.finish import threshold_companions
    from perfeval.measures import parse_measure

    _pairs, twins = threshold_companions([parse_measure(label)])
    return twins[0].label


class OperatingPoint:
    """One model's operating point of one measure: its value and threshold (``evaluate``'s, over
    all rows), the curve it lies on (``"roc"`` or ``"pr"``) and its (x, y) there (None: no point,
    the threshold NaN), and the intervals of the value and of the threshold (None without ``ci``).
    """

    def __init__(self, model: str, label: str, result: Any, curve: str, xy: tuple | None) -> None:
        self.model, self.label, self.curve, self.xy = model, label, curve, xy
        self.value = float(result.value)
        self.threshold = None if result.threshold is None else float(result.threshold)
        self.why = result.why
        self.value_interval: Any = None
        self.threshold_interval: Any = None
        self.interval_why = ""


def operating_points(
    y: Any, models: dict[str, Any], labels: list[str], pooled: dict[str, Any], w: Any = None
) -> list[OperatingPoint]:
    """Every model's point of every operating measure of ``labels`` (``pooled``: each model's report
    over all rows), with its place on its curve: the curve's vertex at the threshold, as
    :func:`perfeval.plot.operating_point` (the point each curve marks) computes it.
    """
    from perfeval.curves import summary as curve_summary
    from perfeval.measures import parse_measure
    from perfeval.plot import operating_point

    points = []
    ops = operating_labels(labels)
    for name, s in models.items():
        h = curve_summary(y, s, w) if ops else None
        for lab in ops:
            r = pooled[name].results[lab]
            curve = "pr" if parse_measure(lab).measure.name in ON_PR else "roc"
            t = r.threshold
            xy = None
            if t is not None and not math.isnan(t):
                with np.errstate(invalid="ignore", divide="ignore"):
                    got = operating_point(curve, None, h, float(t))
                if got is not None:
                    xy = (float(got[0]), float(got[1]))
            points.append(OperatingPoint(name, lab, r, curve, xy))
    return points


def _intervals(
    points: list[OperatingPoint], y: Any, models: dict[str, Any], w: Any, threshold: float, **ci_kw: Any
) -> None:
    """Each point's bootstrap intervals of its value and of its threshold (one :func:`perfeval.ci`
    a model, the value and the threshold specs together: one set of replicates), or why not.
    """
    from perfeval.exceptions import PerfError
    from perfeval.stats import ci as _ci

    by_model: dict[str, list[OperatingPoint]] = {}
    for p in points:
        by_model.setdefault(p.model, []).append(p)
    for name, pts in by_model.items():
        asked = []
        for p in pts:
            asked += [p.label, _twin(p.label)]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # an undefined interval says why in its cell
                got = _ci(y, models[name], measures=asked, threshold=threshold, sample_weight=w, **ci_kw)
        except PerfError as e:
            for p in pts:
                p.interval_why = str(e)
            continue
        for p in pts:
            p.value_interval, p.threshold_interval = got[p.label], got[_twin(p.label)]


def _threshold_text(t: float | None) -> str:
    """A threshold as ``perfeval eval`` prints it: in full (the shortest text that reads back to the
    same double), +inf as no case predicted positive.
    """
    if t is None or math.isnan(t):
        return "undefined"
    if math.isinf(t):
        return "+inf (no case predicted positive)" if t > 0 else "-inf"
    return repr(float(t))


def _point_text(p: OperatingPoint) -> str:
    if p.xy is None:
        return "no point"
    x, y = p.xy
    names = ("FPR", "TPR") if p.curve == "roc" else ("recall", "precision")
    ys = "undefined" if math.isnan(y) else f"{y:.6f}"
    return f"{names[0]} {x:.6f}, {names[1]} {ys}"


def _table(points: list[OperatingPoint], level: float | None) -> str:
    from perfeval.plot.html import _esc, _fmt

    head = ["model", "measure", "value", "threshold (score &ge;)"]
    if level is not None:
        head += [f"value: {level * 100:g}% interval", f"threshold: {level * 100:g}% interval"]
    head += ["the point on its curve"]
    out = ["<div class='scroll'><table class='operating'><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for p in points:
        at = f"data-model='{_esc(p.model)}' data-measure='{_esc(p.label)}'"
        vcls = "num" if math.isfinite(p.value) else "num undef"
        cells = [
            f"<td>{_esc(p.model)}</td>",
            f"<td>{_esc(p.label)}</td>",
            f"<td class='{vcls}' {at} data-col='value' data-exact='{p.value!r}'>{_fmt(p.value)}</td>",
            f"<td class='num' {at} data-col='threshold'>{_esc(_threshold_text(p.threshold))}</td>",
        ]
        if level is not None:
            for what, iv in (("value", p.value_interval), ("threshold", p.threshold_interval)):
                if iv is None:
                    why = p.interval_why or "not computed"
                    cells.append(f"<td class='undef' {at} data-col='{what}-interval'>{_esc(why)}</td>")
                    continue
                text = (
                    f"[{_fmt(iv.low)}, {_fmt(iv.high)}]"
                    if what == "value"
                    else f"[{_threshold_text(iv.low)}, {_threshold_text(iv.high)}]"
                )
                cells.append(
                    f"<td class='num' {at} data-col='{what}-interval' data-low='{iv.low!r}' "
                    f"data-high='{iv.high!r}'>{_esc(text)}</td>"
                )
        cells.append(f"<td {at} data-col='point' data-curve='{p.curve}'>{_esc(_point_text(p))}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out) + "</table></div>"


def _marked_figure(kind: str, y: Any, models: dict[str, Any], w: Any, points: list[OperatingPoint]) -> Any:
    """The curves of ``kind`` of every model (over all rows), each operating point on it marked:
    a colour a model (its curve's), a marker a measure, named in the legend.
    """
    import matplotlib.pyplot as plt

    from perfeval.plot import CurveDisplay, literal

    fig, ax = plt.subplots(figsize=(5.2, 4.6), layout="constrained")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a curve that cannot be drawn says so in its legend
        d = CurveDisplay.from_models(y, models, kind=kind, sample_weight=w).plot(ax=ax, mark_threshold=False)
    colour = {name: line.get_color() for name, line in zip(models, d.lines_, strict=True)}
    labels = list(dict.fromkeys(p.label for p in points))
    marker = {lab: MARKERS[i % len(MARKERS)] for i, lab in enumerate(labels)}
    for p in points:
        if p.xy is None or not all(math.isfinite(v) for v in p.xy):
            continue
        who = f"{literal(p.model)}: " if len(models) > 1 else ""
        ax.plot(
            [p.xy[0]],
            [p.xy[1]],
            linestyle="None",
            marker=marker[p.label],
            markersize=8,
            markerfacecolor="none",
            markeredgewidth=1.8,
            color=colour[p.model],
            label=f"{who}{literal(p.label)} at {_threshold_text(p.threshold)}",
        )
    ax.legend(loc="lower right" if kind == "roc" else "lower left", fontsize=7.5)
    ax.set_title("ROC curve: the operating points" if kind == "roc" else "Precision / recall: the operating points")
    return fig


def operating_section(
    y_true: Any,
    models: dict[str, Any],
    labels: list[str],
    pooled: dict[str, Any],
    *,
    sample_weight: Any = None,
    threshold: float = 0.5,
    ci: float | None = None,
    grouped: bool = False,
    **ci_kw: Any,
) -> list[str]:
    """The report's section of operating points (empty when no measure asked picks one): the table
    and the curves with the points marked.  ``pooled``: each model's report over all rows;
    ``ci_kw``: :func:`perfeval.ci`'s method, n_boot, seed, progress.
    """
    from perfeval.plot.html import _esc, _figure, _png

    y = to_numpy(y_true, "y_true")
    w = None if sample_weight is None else to_numpy(sample_weight, "sample_weight")
    points = operating_points(y, models, labels, pooled, w)
    if not points:
        return []
    if ci is not None:
        _intervals(points, y, models, w, threshold, level=ci, **ci_kw)
    pooled_words = " (every row pooled, groups ignored: one threshold for all)" if grouped else ""
    how = ""
    if ci is not None:
        first = next((p.value_interval for p in points if p.value_interval is not None), None)
        if first is not None:
            how = (
                f" In brackets: {ci * 100:g}% intervals of the value and of the threshold ({_esc(first.method)} "
                f"bootstrap, {first.n_boot} replicates, seed {first.seed}, the same replicates for both; "
                f"<code>perfeval.ci</code> of the measure and of its <code>of=threshold</code> spec"
                + (", rows resampled: not the intervals of the mean over groups above" if grouped else "")
                + ")."
            )
    notes = []
    if ci is not None:  # why an interval is [undefined, undefined], as the measures table says it
        from perfeval.stats.intervals import undefined_intervals

        named = [
            (f"{what} of {p.label} of {p.model}", iv)
            for p in points
            for what, iv in (("the value", p.value_interval), ("the threshold", p.threshold_interval))
            if iv is not None
        ]
        undefined = undefined_intervals(named)
        if undefined:
            notes.append(f"<i>[undefined, undefined]</i>: {_esc(undefined)}.")
    for p in points:
        if not math.isfinite(p.value) and p.why:
            notes.append(f"<b>{_esc(p.label)}</b> of {_esc(p.model)} is undefined: {_esc(p.why.rstrip('.'))}.")
    parts = [
        "<h2>Operating points</h2>",
        "<p class='meta'>Each measure that picks an operating point, with the score threshold of that "
        f"point (a case is predicted positive when its score &ge; the threshold){pooled_words}, as "
        "<code>perfeval eval</code> prints it under its table, and where the point lies on its curve "
        f"(marked below: TPR at FPR on the ROC curve, precision and recall targets on the precision / "
        f"recall curve, the threshold choices on the ROC curve).{how}</p>",
        _table(points, ci),
    ]
    if notes:
        parts.append("<ul class='notes'>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>")
    parts.append("<div class='plots'>")
    for kind in ("roc", "pr"):
        mine = [p for p in points if p.curve == kind]
        if not mine:
            continue
        names = ", ".join(dict.fromkeys(p.label for p in mine))
        parts.append(
            _figure(
                f"operating-{kind}",
                _png(_marked_figure(kind, y, models, w, mine)),
                f"<b>{'ROC curve' if kind == 'roc' else 'Precision / recall'}, the operating points</b>: "
                f"{_esc(names)}; a marker a measure, in its model's colour; the legend gives each "
                "point's threshold.",
            )
        )
    parts.append("</div>")
    return parts

