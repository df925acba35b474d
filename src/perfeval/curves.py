"""Curves as data: ROC, precision/recall, lift, cost and accuracy versus threshold, calibration.

numpy arrays computed from a :class:`~perfeval.summaries.ScoreHistogram`, one point per distinct
score (a tie group is one step, so no curve depends on the order of tied cases).  Plots
(:mod:`perfeval.plot`) draw exactly these arrays; the classic ``perf -plot`` keeps printing the
original's text columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfeval.base.checks import check_scores, floats, to_numpy
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import get_measure
from perfeval.summaries import ScoreHistogram


@dataclass
class Curve:
    """Points of one curve: ``x`` and ``y`` arrays, the ``thresholds`` where defined, and labels.

    ``area`` is the curve's summary number (ROC area, average precision) where it has one.
    """

    kind: str
    x: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray | None
    xlabel: str
    ylabel: str
    area: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def summary(y_true: Any, y_score: Any, sample_weight: Any = None) -> ScoreHistogram:
    """The exact summary every curve is drawn from (``y_true`` may already be one), inputs checked."""
    if isinstance(y_true, ScoreHistogram):
        return y_true

    s = floats(to_numpy(y_score, "y_score"), "y_score")
    check_scores(s)
    return ScoreHistogram.from_arrays(to_numpy(y_true, "y_true"), s, sample_weight)


def _cum(h: ScoreHistogram) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(thresholds from the top, TP and FP with score >= each threshold)."""
    return h.cumulative()


def roc(y_true: Any, y_score: Any = None, sample_weight: Any = None) -> Curve:
    """False positive rate (x) against true positive rate (y), from (0, 0) to (1, 1)."""
    h = summary(y_true, y_score, sample_weight)
    thr, tp, fp = _cum(h)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = np.concatenate([[0.0], fp / h.n_neg])
        y = np.concatenate([[0.0], tp / h.n_pos])
    return Curve(
        "roc",
        x,
        y,
        np.concatenate([[np.inf], thr]),
        "false positive rate (FP / negatives)",
        "true positive rate (TP / positives)",
        area=get_measure("ROC")(h),
    )


def precision_recall(y_true: Any, y_score: Any = None, sample_weight: Any = None) -> Curve:
    """Recall (x) against precision (y), one point per threshold from the top."""
    h = summary(y_true, y_score, sample_weight)
    thr, tp, fp = _cum(h)
    with np.errstate(invalid="ignore", divide="ignore"):
        x, y = tp / h.n_pos, tp / (tp + fp)
    return Curve(
        "pr",
        x,
        y,
        thr,
        "recall (TP / positives)",
        "precision (TP / predicted positive)",
        area=get_measure("AP")(h),
    )


def lift(y_true: Any, y_score: Any = None, sample_weight: Any = None) -> Curve:
    """Share of cases predicted positive (x) against lift (y): precision over the base rate."""
    h = summary(y_true, y_score, sample_weight)
    thr, tp, fp = _cum(h)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = (tp + fp) / h.n
        y = (tp / (tp + fp)) / np.divide(h.n_pos, h.n)  # no case of weight > 0: NaN, as the others
    return Curve("lift", x, y, thr, "share of cases predicted positive", "lift (precision / base rate)")


def accuracy(y_true: Any, y_score: Any = None, sample_weight: Any = None) -> Curve:
    """Threshold (x) against accuracy (y): predicted positive when score >= threshold."""
    h = summary(y_true, y_score, sample_weight)
    thr, tp, fp = _cum(h)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = (tp + (h.n_neg - fp)) / h.n
    best = int(np.nanargmax(acc)) if len(acc) else 0
    return Curve(
        "acc",
        thr,
        acc,
        thr,
        "threshold (score >= threshold predicts 1)",
        "accuracy",
        extra={
            "best_threshold": float(thr[best]) if len(thr) else np.nan,
            "best": float(acc[best]) if len(acc) else np.nan,
        },
    )


def cost(
    y_true: Any,
    y_score: Any = None,
    sample_weight: Any = None,
    *,
    tp: float = 0.0,
    fn: float = 1.0,
    fp: float = 1.0,
    tn: float = 0.0,
) -> Curve:
    """Threshold (x) against total cost (y) = tp TP + fn FN + fp FP + tn TN (default: errors)."""
    h = summary(y_true, y_score, sample_weight)
    thr, tps, fps = _cum(h)
    c = tp * tps + fn * (h.n_pos - tps) + fp * fps + tn * (h.n_neg - fps)
    best = int(np.argmin(c)) if len(c) else 0
    return Curve(
        "cost",
        thr,
        c,
        thr,
        "threshold (score >= threshold predicts 1)",
        f"cost ({tp:g} TP + {fn:g} FN + {fp:g} FP + {tn:g} TN)",
        extra={
            "best_threshold": float(thr[best]) if len(thr) else np.nan,
            "best": float(c[best]) if len(c) else np.nan,
        },
    )


#: the calibration plot's old words for the measures' bins, still accepted: ``--bins uniform`` is
#: ``width``, ``quantile`` is ``mass`` (ECE's own rules: :mod:`perfeval.measures.calibration`)
BIN_ALIASES = {"uniform": "width", "quantile": "mass"}


def _ece_param(name: str) -> Any:
    """ECE's registry parameter ``name`` (its domain: the calibration plot checks against it)."""
    return next(p for p in get_measure("ECE").params if p.name == name)


def calibration_bins(bins: Any) -> str:
    """The calibration plot's binning in the measures' words: ``"perf"`` (PERF's 19 overlapping
    bins, CA1's) or a value of ECE's ``bins`` parameter (the registry's domain: ``"width"``,
    ``"mass"``); the old words ``"uniform"`` and ``"quantile"`` name ``"width"`` and ``"mass"``.

    Examples
    --------
    >>> calibration_bins("quantile"), calibration_bins("Width")
    ('mass', 'width')
    """
    words = ("perf", *_ece_param("bins").choices)
    word = bins.strip().lower() if isinstance(bins, str) else bins
    word = BIN_ALIASES.get(word, word)
    if word not in words:
        old = ", ".join(f"{a} for {b}" for a, b in BIN_ALIASES.items())
        raise InvalidParameterError(
            f"the calibration plot's bins must be one of {', '.join(words)} (or the old names: {old}), "
            f"got {bins!r}"
        )
    return str(word)


def binning_text(bins: str, n_bins: int | None = None) -> str:
    """What a calibration plot's bins are, as its figure says it: ``15 equal-width bins``."""
    if bins == "perf":
        return "PERF's 19 overlapping bins, CA1's"
    how = "equal-width" if bins == "width" else "equal-mass"
    return f"{n_bins} {how} bin{'' if n_bins == 1 else 's'}"


def _calibration_measure(
    measure: Any, bins: str | None, n_bins: int | None, top: bool
) -> tuple[Any, str, int]:
    """(the ECE spec whose bins the diagram draws, its bins, its n_bins): ``measure`` (an ECE, MCE
    or, for K classes, ECE_TOP spec) or the calibration error of ``bins`` and ``n_bins``.
    """
    from perfeval.measures import parse_measure

    name = "ECE_TOP" if top else "ECE"
    if measure is None:
        if bins is None or bins == "perf":
            return None, "perf", 19
        spec = parse_measure(f"{name}:bins={bins},n_bins={n_bins}")
        return spec, bins, int(n_bins or 0)
    spec = parse_measure(measure)
    allowed = ("ECE_TOP",) if top else ("ECE", "MCE")
    if spec.measure.name not in allowed:
        raise InvalidParameterError(
            f"the calibration plot draws the bins of {' or '.join(allowed)}, got measure={spec.label!r}"
        )
    kw = spec.kwargs
    for given, its in ((bins, kw["bins"]), (n_bins, kw["n_bins"])):
        if given is not None and given != its:
            raise InvalidParameterError(
                f"the calibration plot draws {spec.label}'s bins (bins={kw['bins']}, n_bins={kw['n_bins']}), "
                "not others: give measure= or bins= and n_bins=, not both"
            )
    return spec, str(kw["bins"]), int(kw["n_bins"])


def calibration(
    y_true: Any,
    y_score: Any = None,
    sample_weight: Any = None,
    *,
    bins: str | None = None,
    n_bins: int | None = None,
    band_level: float = 0.9,
    band: str = "outcomes",
    measure: Any = None,
) -> Curve:
    """Mean score (x) against the observed share of positives (y) per bin, with the bin counts: the
    reliability diagram.

    ``bins="perf"`` (the default): PERF's 19 overlapping bins [i/20, i/20 + 1/10] (its CA1);
    ``"width"`` or ``"mass"``: ``n_bins`` bins (ECE's default, 15, as ``perfeval plot``) by ECE's
    rules, the very bins whose gaps ECE averages (:mod:`perfeval.measures.calibration`: equal-width
    bins of [0, 1], the last closed; equal-mass bins with their edges at the weighted quantiles over
    the distinct scores, a tie never split), and ``extra["measure"]``, ``extra["value"]``: that
    ECE's label and value (``ECE:bins=mass,n_bins=10``).  The old words ``"uniform"`` and
    ``"quantile"`` name ``"width"`` and ``"mass"`` (:func:`calibration_bins`).  ``measure``: an ECE
    or MCE spec (``"ECE:norm=l2"``) whose bins are drawn and whose value is given instead (``bins``,
    ``n_bins`` then its own).  Empty bins are left out.  ``extra["binning"]`` says the bins in words.

    ``y_true`` a :class:`~perfeval.summaries.classes.ClassSummary` (K classes): the top-label
    diagram, each case's confidence (its maximum probability) against whether its argmax is right
    (a tie at the maximum among t classes right for 1/t of the case, as ECE_TOP counts it), by
    ECE_TOP's bins (``bins`` width by default, ``n_bins`` 15, ECE_TOP's default) and value.

    ``extra["band"]``: each bin's consistency band (Broecker & Smith 2007,
    :func:`perfeval.measures.calibration.consistency_band`), the central ``band_level`` of a
    calibrated model's share of positives; ``band="outcomes"`` redraws the outcomes of the cases as
    they are, ``"pairs"`` redraws the forecasts too (Broecker & Smith's published form: wider);
    ``extra["band_level"]``, ``extra["band_method"]`` say which, ``extra["band_why"]`` why there is
    none.
    """
    from perfeval.measures.calibration import BAND_METHODS, bin_of_cells, reliability_bins
    from perfeval.summaries.classes import ClassSummary

    if band not in BAND_METHODS:
        raise InvalidParameterError(f"band must be 'outcomes' or 'pairs', got {band!r}")
    if isinstance(band_level, bool) or not isinstance(band_level, (int, float)) or not 0 < band_level < 1:
        raise InvalidParameterError(f"band_level must lie strictly between 0 and 1, got {band_level!r}")
    top = isinstance(y_true, ClassSummary)
    word = None if bins is None else calibration_bins(bins)
    if top and word == "perf":
        raise InvalidParameterError(
            "the top-label calibration plot draws ECE_TOP's bins (bins width or mass): PERF's bins are "
            "of one score a case"
        )
    if n_bins is not None:
        _ece_param("n_bins").check(n_bins, "the calibration plot")
        n_bins = int(n_bins)
    if measure is None and (word in ("width", "mass") or top):
        word = word or "width"
        n_bins = n_bins if n_bins is not None else int(_ece_param("n_bins").default)  # ECE's, as the command
    spec, word, n_bins = _calibration_measure(measure, word, n_bins, top)
    if top:
        h = y_true.top_label()
        if h is None:
            raise InvalidParameterError(
                "the top-label calibration plot reads the summary's top-label table, which this summary "
                "(saved before it existed) does not have"
            )
        # a case is a row: its weight whole is a count (its share right may be 1/t)
        cell = y_true.top[2]
        whole = bool(np.all(cell == np.round(cell)))
    else:
        h = summary(y_true, y_score, sample_weight)
        whole = h.is_counts()
    s, w = h.scores, h.pos + h.neg
    value = np.nan
    if word == "perf":
        edges = [(i / 20, (i + 2) / 20) for i in range(19)]
        masks = [(s >= lo) & (s <= hi) for lo, hi in edges]
        xs, ys, ns = [], [], []
        for m in masks:
            k = w[m].sum()
            if k > 0:
                xs.append(float((s[m] * w[m]).sum() / k))
                ys.append(float(h.pos[m].sum() / k))
                ns.append(float(k))
        x, y, counts = np.array(xs), np.array(ys), np.array(ns)
    else:
        # ECE's own bins and sums (measures.calibration.bin_sums): the points are the bins it averages
        counts, x, y = reliability_bins(h, bins=word, n_bins=n_bins)
        idx = bin_of_cells(s, w, bins=word, n_bins=n_bins)
        masks = [idx == i for i in range(n_bins)]
        got = spec(y_true if top else h)
        value = float(getattr(got, "value", got))
    # the consistency band (measures.calibration.consistency_band): cases, not weights, are drawn
    bars: tuple[np.ndarray, np.ndarray] | None = None
    if not len(s):
        why = "no case"
    elif s[0] < 0 or s[-1] > 1:
        why = "scores outside [0, 1] are no probabilities"
    elif not whole:
        why = "fractional weights: outcomes are drawn case by case (whole weights are copies)"
    else:
        from perfeval.measures.calibration import consistency_band

        live = [m for m in masks if w[m].sum() > 0]
        bars, why = consistency_band(s, w, live, level=float(band_level), resample=band), ""
    return Curve(
        "calibration",
        np.asarray(x, dtype=np.float64),
        np.asarray(y, dtype=np.float64),
        None,
        f"{'confidence (the maximum probability)' if top else 'mean score'} in the bin "
        f"({binning_text(word, n_bins)})",
        "share of cases whose argmax is right" if top else "observed share of positives",
        extra={
            "counts": np.asarray(counts, dtype=np.float64),
            "bins": word,
            "n_bins": n_bins,
            "binning": binning_text(word, n_bins),
            "measure": None if spec is None else spec.label,
            "value": value,
            "top_label": top,
            "band": bars,
            "band_why": why,
            "band_level": float(band_level),
            "band_method": band,
        },
    )


KINDS = {
    "roc": roc,
    "pr": precision_recall,
    "lift": lift,
    "acc": accuracy,
    "cost": cost,
    "calibration": calibration,
}
