"""The result of :func:`perfeval.evaluate`: values, per-group tables, and the parameters used."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfeval.exceptions import MissingDependencyError
from perfeval.measures import MeasureSpec, parse_measure
from perfeval.measures.spec import with_threshold

# pandas is optional (to_frame); perfeval.engine.signature is imported where a report is signed:
# evaluate() of one measure does not load it (tests/test_registry_cli.py counts the modules).


def json_number(v: float | None) -> float | None:
    """A float for JSON: None for NaN and infinities (strict JSON has neither).  The one NaN-to-null
    rule of every JSON perfeval writes; :func:`with_reasons` puts the reason beside each null.
    """
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def why_key(key: str) -> str:
    """Where the reason of a null at ``key`` is: ``why_null`` beside a ``value``, else
    ``KEY_why_null`` (``mean_why_null``, ``per_group_why_null``, ``low_why_null``, ...).
    """
    return "why_null" if key == "value" else f"{key}_why_null"


def plain_why(v: float) -> str:
    """The reason of a non-finite number when nothing more is known: which infinity, or NaN."""
    if math.isinf(v):
        return f"{'+' if v > 0 else '-'}infinity"
    return "undefined (not a number)"


def why_not_finite(v: float | None, label: str, where: str = "for this data") -> str | None:
    """Why a value is null in JSON: infinite, or undefined (with the measure's edge cases)."""
    if v is None:
        return None
    v = float(v)
    if math.isfinite(v):
        return None
    if math.isinf(v):
        return plain_why(v)
    try:
        edge = parse_measure(label.split("[")[0]).measure.edge_cases
    except Exception:  # a label that is not a measure spec
        edge = ""
    return f"undefined {where}" + (f": {edge}" if edge else "")


def with_reasons(d: dict[str, Any], why: dict[str, str] | None = None) -> dict[str, Any]:
    """``d`` for JSON: every NaN or infinite float None, and beside every None its reason at
    :func:`why_key` (``why[key]``, else which infinity or NaN).  A None with no reason known is an
    error of the caller's: every null perfeval writes says why.
    """
    why = why or {}
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, (float, np.floating)):
            out[k] = json_number(float(v))
            if out[k] is None:
                out[why_key(k)] = why.get(k) or plain_why(float(v))
        else:
            out[k] = v
            if v is None:
                assert k in why, f"a null {k!r} without its reason"
                out[why_key(k)] = why[k]
    return out


def map_with_reasons(keys: Any, values: Any, why: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """A map ``{str(key): value}`` for JSON and the reasons of its nulls ``{str(key): reason}``
    (``why(value)`` for each NaN or infinite value): the ``per_group`` and ``per_group_why_null`` of a
    measure.
    """
    out: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    for k, v in zip(keys, values, strict=False):
        key = str(k)
        out[key] = json_number(v)
        if out[key] is None:
            reasons[key] = why(float(v))
    return out, reasons


def tie_bounds_with_reasons(r: MeasureResult) -> dict[str, Any]:
    """A result's ``tie_min`` and ``tie_max`` for JSON, each null with its reason (the measure's
    ``tie_note``, else that the value itself is no finite number).
    """
    no_bound = r.tie_note or "no bound: the value itself is not a finite number"
    return with_reasons(
        {"tie_min": r.tie_min, "tie_max": r.tie_max}, {"tie_min": no_bound, "tie_max": no_bound}
    )


def bounds_map_with_reasons(
    r: MeasureResult, keys: Any, label: str, where: str
) -> tuple[dict[str, list], dict[str, str]]:
    """A result's tie bounds per group (or query) for JSON: ``{str(key): [low, high]}`` and the
    reasons of the pairs holding a null (the measure's ``tie_note``, else why the group's value is no
    number ``where`` (``"in this group"``), else no bound ``where``).
    """
    bounds: dict[str, list] = {}
    why: dict[str, str] = {}
    lows, highs = np.asarray(r.tie_min_per_group).tolist(), np.asarray(r.tie_max_per_group).tolist()
    values = r.per_group.tolist() if r.per_group is not None else []
    for k, lo, hi, v in zip(keys, lows, highs, values, strict=False):
        bounds[str(k)] = [json_number(lo), json_number(hi)]
        if bounds[str(k)][0] is None or bounds[str(k)][1] is None:
            why[str(k)] = r.tie_note or why_not_finite(v, label, where) or f"no bound {where}"
    return bounds, why


def strict(obj: Any) -> Any:
    """``obj`` with every NaN or infinite float replaced by None, so that ``json.dumps(...,
    allow_nan=False)`` holds (numpy scalars become Python numbers).  A non-finite number in a dict
    without its reason beside it gets the plain one (:func:`plain_why`) at :func:`why_key`.
    """
    if isinstance(obj, dict):
        out = {
            str(k) if not isinstance(k, (str, int, float, bool)) and k is not None else k: strict(v)
            for k, v in obj.items()
        }
        for k, v in obj.items():
            if isinstance(v, (float, np.floating)) and not math.isfinite(v) and isinstance(k, str):
                out.setdefault(why_key(k), plain_why(float(v)))
        return out
    if isinstance(obj, (list, tuple)):
        return [strict(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [strict(v) for v in obj.tolist()]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def dumps(obj: Any, indent: int | None = 2) -> str:
    """Strict JSON: no NaN, no Infinity (they are null, with the reason beside them where known)."""
    return json.dumps(strict(obj), indent=indent, default=str, allow_nan=False)


@dataclass
class MeasureResult:
    """One measure's result.

    Attributes
    ----------
    label : str
        Canonical spec (``"NDCG@10"``), with ``[partition]`` when partitions are used.
    value : float
        The headline number: the value over all cases; over groups the mean over the groups where
        it is defined (GAUC: the mean weighted by group size).
    mean, weighted_mean : float or None
        Over groups: the plain mean, and the mean weighted by each group's number of cases.
    per_group : ndarray or None
        The value in each group (NaN where undefined), in the order of ``Report.groups``.
    undefined : list
        The groups where the measure is undefined (e.g. one class only), left out of the means.
    direction : {"higher", "lower", "none"}
        Which way is better ("none": neither; the ideal is a value, as a calibration slope's 1).
    tie_min, tie_max : float or None
        With ``tie_bounds=True``: the least and the greatest value over every order of the tied cases
        (exact; over groups the same mean of the groups' bounds as ``value``); None otherwise.  NaN
        where the measure has no exact bound (``tie_note`` says why).
    tie_min_per_group, tie_max_per_group : ndarray or None
        Each group's bounds.
    tied_pairs : float or None
        The share of the pairs the measure compares (cases of one group or query with different
        targets or grades) whose scores are equal; ``pairs`` their number (weights multiplied).
    why : str or None
        Why ``value`` is NaN when the reason is not one of the measure's edge cases (weights whose
        products overflow double precision); None otherwise.
    undefined_groups_why : list
        Why each group of ``undefined`` is, in that order (read from the group's own summary: one
        class only, no point meeting the target, scores of exactly 0 or 1 for a fit), None where no
        reason of its own is known (the measure's edge cases hold); empty when not found (streamed
        and Dask groups).
    """

    label: str
    value: float
    direction: str
    mean: float | None = None
    weighted_mean: float | None = None
    per_group: np.ndarray | None = None
    undefined: list = field(default_factory=list)
    undefined_groups_why: list = field(default_factory=list)
    tie_min: float | None = None
    tie_max: float | None = None
    tie_min_per_group: np.ndarray | None = None
    tie_max_per_group: np.ndarray | None = None
    tied_pairs: float | None = None
    pairs: float | None = None
    why: str | None = None
    tie_note: str = ""
    #: multiclass: each class's value (NaN where undefined), the classes in that order, and the
    #: classes where the measure is undefined (left out of macro and weighted means)
    per_class: np.ndarray | None = None
    classes: list | None = None
    undefined_classes: list = field(default_factory=list)
    #: why each of ``undefined_classes`` is undefined, in that order (read from the summary: absent
    #: from the targets, never predicted, ...), or empty when not known
    undefined_why: list = field(default_factory=list)
    #: what the value leaves out, said beside it (the rows of a samples average that are 0/0), or ""
    note: str = ""
    #: a measure that picks an operating point (an ``of`` parameter), its value asked: the score
    #: threshold of that point (+inf: nothing predicted positive; NaN: no point), as ``of=threshold``
    #: gives it; per group each group's (``threshold_per_group``).  Set by the engine beside the value
    #: (perfeval.engine.finish.with_thresholds: evaluate, streamed, Dask, Metric, the command), else
    #: None; None under a dialect (the tool's threshold: ``of=threshold`` under that dialect)
    threshold: float | None = None
    threshold_per_group: np.ndarray | None = None
    #: multiclass with tie_bounds=True: each class's bounds (NaN where the class has no value)
    tie_min_per_class: np.ndarray | None = None
    tie_max_per_class: np.ndarray | None = None
    #: K classes (labels) per group: each group's classes left out of its average, a (groups, K)
    #: bool matrix in the order of ``classes`` (False in the groups whose value is undefined); and
    #: the groups whose samples average leaves rows out (0/0), a bool a group; None when not grouped
    left_out_per_group: np.ndarray | None = None
    noted_per_group: np.ndarray | None = None

    @classmethod
    def single(cls, spec: MeasureSpec, value: float) -> MeasureResult:
        return cls(spec.label, value, spec.direction)

    @classmethod
    def of(
        cls, spec: MeasureSpec, vals: np.ndarray, sizes: np.ndarray, keys: Any, grouped: bool
    ) -> MeasureResult:
        ok = ~np.isnan(vals)
        some = bool(ok.any())
        defined, dsizes = vals[ok], sizes[ok]  # (each taken once: 100,000 groups' masks cost)
        mean = float(defined.mean()) if some else math.nan
        wsum = dsizes.sum()
        # each group's share of the cases, then the sum: one group alone gives its own value exactly
        wmean = float((defined * (dsizes / wsum)).sum()) if some and wsum > 0 else math.nan
        head = wmean if spec.measure.aggregate == "weighted" else mean
        if not grouped:
            return cls(spec.label, float(vals[0]) if len(vals) else math.nan, spec.direction)
        undefined = np.asarray(keys)[~ok].tolist()  # plain Python keys, converted in one C loop
        return cls(spec.label, head, spec.direction, mean, wmean, vals, undefined)


class Report:
    """Measures of one evaluation.

    ``report["ROC"]`` is a headline value; ``report.results`` holds every :class:`MeasureResult`;
    ``report.groups`` the group keys (None when not grouped); ``report.params`` the threshold, the
    number of rows and groups, and the tie policy.  Converts to a dict, JSON, and pandas DataFrames
    (``to_frame()``: one row a measure; ``groups_frame()``: one row a group).
    """

    def __init__(self, results: dict[str, MeasureResult], groups: Any, params: dict[str, Any]):
        self.results = results
        self.groups = groups
        self.params = params
        #: confidence intervals by label (:class:`perfeval.stats.Interval`), when asked for
        self.intervals: dict[str, Any] = {}
        #: the exact summary the values were finished from, for reports built from one (streams, Dask)
        self.summary: Any = None
        #: the size of each group (its cases' total weight; its row count unweighted), in key order
        self.group_sizes: Any = None
        #: with tie bounds: the share of the comparable pairs (of different relevance in a query for
        #: the per-query measures, else positive/negative pairs, in a group when grouped) that are
        #: tied, and their number; None without
        self.tied_pairs: float | None = None
        self.pairs: float | None = None
        #: with ``by=``: every measure per slice (:class:`perfeval.api.slices.Slices`); None without
        self.slices: Any = None

    def __getitem__(self, label: str) -> float:
        """A measure's value by its label, by the name it was asked by (``perfeval.trec``: ``r["ndcg@10"]``
        under a dialect whose ndcg@10 is ``NDCG@10:gain=linear``), or by any spelling of it (``r["acc"]``
        is ``ACC@0.7`` in a report at threshold 0.7).
        """
        if label in self.results:
            return self.results[label].value
        asked = self.params.get("names") if isinstance(self.params, dict) else None
        for key, name in (asked or {}).items():  # the name a measure was asked by (perfeval.trec)
            if name == label and key in self.results:
                return self.results[key].value

        threshold = self.params.get("threshold") if isinstance(self.params, dict) else None
        spec = with_threshold(parse_measure(label), 0.5 if threshold is None else threshold)
        if spec.label in self.results:
            return self.results[spec.label].value
        # the same measure with the same parameters under another label (ACC@0.5 is ACC)
        for k in self.results:
            try:
                other = parse_measure(k)
            except Exception:  # a partition's label (ROC[narrow]) is not a spec
                continue
            if other.measure is spec.measure and other.kwargs == spec.kwargs:
                return self.results[k].value
        raise KeyError(f"{label!r}: the report holds {', '.join(self.results)}")

    def __contains__(self, label: str) -> bool:
        return label in self.results

    def __iter__(self):
        return iter(self.results)

    @property
    def values(self) -> dict[str, float]:
        return {k: r.value for k, r in self.results.items()}

    @property
    def signature(self):
        """The :class:`~perfeval.engine.signature.Signature`: everything that changes these numbers."""
        from perfeval.engine.signature import of_report

        return of_report(self)

    def _class_fields(self, k: str, r: MeasureResult) -> dict[str, Any]:
        """A result's per-class (per-label) values for JSON, each null with its reason; the classes
        its mean leaves out; what it leaves out of its rows (``note``); its per-class tie bounds.
        """
        d: dict[str, Any] = {}
        if r.per_class is not None and r.classes is not None:
            per_class, class_why = map_with_reasons(r.classes, r.per_class.tolist(), lambda v: plain_why(v))
            reasons = class_reasons(self.summary, k, r.per_class, r.classes)
            class_why = {c: reasons.get(c, why) for c, why in class_why.items()}
            d.update(per_class=per_class, undefined_classes=[_key(c) for c in r.undefined_classes])
            if class_why:
                d["per_class_why_null"] = class_why
        elif r.undefined_classes:  # no value a class (ROC_OVO): the classes its mean leaves out
            d["undefined_classes"] = [_key(c) for c in r.undefined_classes]
        if r.note:
            d["note"] = r.note
        if r.tie_min_per_class is not None and r.tie_max_per_class is not None and r.classes:
            bounds: dict[str, list] = {}
            why: dict[str, str] = {}
            lows, highs = r.tie_min_per_class.tolist(), r.tie_max_per_class.tolist()
            for c, lo, hi in zip(r.classes, lows, highs, strict=True):
                bounds[str(c)] = [json_number(lo), json_number(hi)]
                if None in bounds[str(c)]:
                    why[str(c)] = (
                        r.tie_note or "no bound: the class's value is undefined (absent from the targets)"
                    )
            d["tie_bounds_per_class"] = bounds
            if why:
                d["tie_bounds_per_class_why_null"] = why
        return d

    def _group_class_fields(self, r: MeasureResult) -> dict[str, Any]:
        """K classes (labels) per group, for JSON: each group's classes its value leaves out of
        its average (``per_group_undefined_classes``, the groups that leave none out not listed),
        and the groups whose samples average leaves rows out (``per_group_rows_left_out``).
        """
        d: dict[str, Any] = {}
        keys = _keys(self.groups)
        classes = (self.params or {}).get("classes") or []
        left = r.left_out_per_group
        if left is not None and left.any():
            d["per_group_undefined_classes"] = {
                str(keys[i]): [_key(classes[j]) for j in np.flatnonzero(left[i]).tolist()]
                for i in np.flatnonzero(left.any(axis=1)).tolist()
            }
        noted = r.noted_per_group
        if noted is not None and noted.any():
            d["per_group_rows_left_out"] = [keys[i] for i in np.flatnonzero(noted).tolist()]
        return d

    def _threshold_fields(self, r: MeasureResult) -> dict[str, Any]:
        """An operating point's score threshold (``threshold``; per group ``threshold_per_group``),
        each null with its reason: +inf is no case predicted positive, NaN no point (the value's).
        """

        def why(v: float, said: str | None = None) -> str:
            if math.isinf(v) and v > 0:
                return "+infinity: no case predicted positive (the point of no threshold)"
            return f"no operating point: {said}" if said else "no operating point: the value is undefined"

        d: dict[str, Any] = {}
        if r.threshold is not None:
            d.update(with_reasons({"threshold": r.threshold}, {"threshold": why(float(r.threshold), r.why)}))
        if r.threshold_per_group is not None:
            per, per_why = map_with_reasons(_keys(self.groups), r.threshold_per_group.tolist(), why)
            d["threshold_per_group"] = per
            if per_why:
                d["threshold_per_group_why_null"] = per_why
        return d

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"params": self.params, "signature": str(self.signature), "measures": {}}
        for k, r in self.results.items():
            d: dict[str, Any] = {"value": json_number(r.value), "direction": r.direction}
            if why_not_finite(r.value, k):
                d["why_null"] = r.why or why_not_finite(r.value, k)
            if r.per_group is not None:
                per_group, per_why = map_with_reasons(
                    _keys(self.groups),
                    r.per_group.tolist(),
                    lambda v, k=k: why_not_finite(v, k, "in this group"),
                )
                d.update(
                    with_reasons(
                        {"mean": r.mean, "weighted_mean": r.weighted_mean},
                        {
                            key: _over_groups(getattr(r, key), r, k, self.groups)
                            for key in ("mean", "weighted_mean")
                        },
                    )
                )
                d.update(
                    defined_groups=int(np.sum(~np.isnan(r.per_group))),
                    undefined_groups=r.undefined,
                    per_group=per_group,
                )
                if len(r.undefined_groups_why) == len(r.undefined):  # each group's own reason
                    for key, said in zip(r.undefined, r.undefined_groups_why, strict=True):
                        if said and str(key) in per_why:
                            per_why[str(key)] = f"undefined in this group: {said}"
                if per_why:
                    d["per_group_why_null"] = per_why
                d.update(self._group_class_fields(r))
            d.update(self._class_fields(k, r))
            d.update(self._threshold_fields(r))
            if r.tie_min is not None:
                d.update(tie_bounds_with_reasons(r))
                if r.tie_note:
                    d["tie_bounds_why_null"] = r.tie_note
                no_pairs = "no comparable pair (a case of each class, or of two grades, in one group)"
                d.update(
                    with_reasons(
                        {"tied_pairs": r.tied_pairs, "pairs": r.pairs},
                        {"tied_pairs": no_pairs, "pairs": no_pairs},
                    )
                )
                if r.tie_min_per_group is not None and r.tie_max_per_group is not None:
                    bounds, bounds_why = bounds_map_with_reasons(r, _keys(self.groups), k, "in this group")
                    d["tie_bounds_per_group"] = bounds
                    if bounds_why:
                        d["tie_bounds_per_group_why_null"] = bounds_why
            if k in self.intervals:
                iv = self.intervals[k].to_dict()
                keys: tuple[str, ...] = ("low", "high", "level", "method", "n_boot", "seed", "se")
                keys += ("resampled", "note", "left_out")
                d["ci"] = {key: iv[key] for key in iv if key in keys or key.removesuffix("_why_null") in keys}
            out["measures"][k] = d
        if self.tied_pairs is not None:
            no_pairs = "no comparable pair (a case of each class, or of two grades, in one group)"
            out.update(
                with_reasons(
                    {"tied_pairs": self.tied_pairs, "pairs": self.pairs},
                    {"tied_pairs": no_pairs, "pairs": no_pairs},
                )
            )
        if self.slices is not None:
            out["slices"] = self.slices.to_dict()
        return out

    def to_json(self, indent: int | None = 2) -> str:
        return dumps(self.to_dict(), indent=indent)

    def to_frame(self):
        """One row a measure: value, mean, weighted_mean, undefined (pandas, imported here); with an
        operating point's measure, a ``threshold`` column (its point's score threshold, NaN for the
        other measures and per group: ``groups_frame`` does not hold them, the result's
        ``threshold_per_group`` does).
        """
        pd = _pandas()
        rows = [
            {
                "measure": k,
                "value": r.value,
                "mean": r.mean,
                "weighted_mean": r.weighted_mean,
                "undefined_groups": len(r.undefined),
                "direction": r.direction,
            }
            for k, r in self.results.items()
        ]
        for row, r in zip(rows, self.results.values(), strict=True):
            if r.tie_min is not None:
                row.update(tie_min=r.tie_min, tie_max=r.tie_max, tied_pairs=r.tied_pairs)
        for row, r in zip(rows, self.results.values(), strict=True):
            if r.threshold is not None:  # an operating point's score threshold
                row.update(threshold=r.threshold)
        for row, r in zip(rows, self.results.values(), strict=True):
            if r.per_class is not None:  # multiclass: how many classes the averages leave out
                row.update(undefined_classes=len(r.undefined_classes))
        for row in rows:
            iv = self.intervals.get(row["measure"])
            if iv is not None:
                row.update(ci_low=iv.low, ci_high=iv.high, ci_level=iv.level)
        return pd.DataFrame(rows).set_index("measure")

    def classes_frame(self):
        """One row a class, one column a measure with per-class values (pandas; multiclass reports)."""
        pd = _pandas()
        cols = {k: r.per_class for k, r in self.results.items() if r.per_class is not None}
        classes = next((r.classes for r in self.results.values() if r.classes is not None), None)
        if classes is None:
            raise ValueError("this report holds no per-class values (not multiclass, or grouped)")
        return pd.DataFrame(cols, index=pd.Index(_keys(classes), name="class"))

    def groups_frame(self):
        """One row a group, one column a measure (pandas)."""
        pd = _pandas()
        if self.groups is None:
            raise ValueError("this report is not grouped")
        return pd.DataFrame(
            {k: r.per_group for k, r in self.results.items() if r.per_group is not None},
            index=pd.Index(self.groups, name="group"),
        )

    def __repr__(self) -> str:
        from perfeval.base.text import decimals  # here: evaluate() of one measure loads no more modules

        width = max([len(k) for k in self.results] + [7])
        lines = [f"{'measure':<{width}}  {'value':>10}"]
        for k, r in self.results.items():
            extra = f"  ({len(r.undefined)} undefined groups)" if r.undefined else ""
            lines.append(f"{k:<{width}}  {decimals(r.value):>10}{extra}")
        task = self.params.get("task")
        if task == "regression":  # what was computed, and why the target was read so
            how = self.params.get("task_from")
            lines.append("task: regression" + (f" ({how})" if how else ""))
        if task in ("multiclass", "multilabel"):  # which classes (labels), and how they were found
            classes = [str(c) for c in self.params.get("classes") or []]
            word = "labels" if task == "multilabel" else "classes"
            shown = ", ".join(classes[:20]) + (", ..." if len(classes) > 20 else "")
            how = self.params.get("classes_from")
            how = "classes=" if how == "given" else how
            lines.append(f"{word} ({len(classes)}): {shown}" + (f" (from {how})" if how else ""))
            undefined = {str(c) for r in self.results.values() for c in (r.undefined_classes or [])}
            if undefined:
                lines.append(
                    f"undefined for some measure, left out of its averages: {', '.join(sorted(undefined))}"
                )
        if self.slices is not None:  # per slice: report.slices
            lines.append(f"slices: {'; '.join(f'{s.name} ({len(s)})' for s in self.slices.slicings)}")
        return "\n".join(lines)


def undefined_groups(r: MeasureResult) -> tuple[Sequence[Any], tuple[str, ...]]:
    """The groups where a result (over groups) is undefined (their keys, as ``r.undefined`` holds
    them) and their reasons (:func:`group_reasons`) in the same order: ``()`` unless every group has
    its own.
    """
    whys = tuple(r.undefined_groups_why)
    if len(whys) != len(r.undefined) or not all(whys):  # known for every group, or not said
        whys = ()
    return r.undefined, whys


def groups_said(keys: Sequence[Any], whys: Sequence[str]) -> str:
    """The groups ``keys`` where a measure is undefined, the first five as their ``repr``, with their
    reasons ``whys`` (:func:`undefined_groups`: each group's, or none): the groups of one reason
    named together and the reason said once, as every warning of undefined groups says them
    (``evaluate``'s, ``compare``'s).  Only the five shown are made into text (100,000 groups, most of
    them undefined, are said in the time of five).

    >>> groups_said(["a", "b", "c"], ["one class", "one class", "no case"])
    "'a', 'b': one class; 'c': no case"
    >>> groups_said(["a", "b"], [])
    "'a', 'b'"
    """
    shown = [repr(k) for k in keys[:5]]
    more = len(keys) > 5
    if not whys:
        return ", ".join(shown) + (", ..." if more else "")
    if len(set(whys)) == 1:  # one reason, said once
        return ", ".join(shown) + (", ..." if more else "") + f": {whys[0]}"
    by_why: dict[str, list[str]] = {}
    for k, why in zip(shown, whys[:5], strict=True):
        by_why.setdefault(why, []).append(k)
    said = "; ".join(f"{', '.join(ks)}: {why}" for why, ks in by_why.items())
    return said + ("; ..." if more else "")


def _over_groups(v: float | None, r: MeasureResult, label: str, groups: Any) -> str:
    """Why a mean over groups is not a finite number: a group's value is infinite, or the measure is
    defined in no group.
    """
    if v is not None and math.isinf(v):
        vals = np.asarray(r.per_group, dtype=float)
        inf = np.flatnonzero(np.isinf(vals))
        if not len(inf):
            return plain_why(v) + ": the groups' values overflow double precision in their sum"
        first = _keys(groups)[int(inf[0])]
        where = f"group {first!r}" if len(inf) == 1 else f"{len(inf)} groups (the first: {first!r})"
        return f"{plain_why(v)}: the value is infinite in {where}"
    if r.per_group is not None and not np.any(~np.isnan(np.asarray(r.per_group, dtype=float))):
        keys, whys = undefined_groups(r)
        if whys:  # each group's own reason (group_reasons), said as the warning says them
            return f"undefined in every group ({groups_said(keys, whys)})"
        return why_not_finite(math.nan, label, "in every group") or "undefined in every group"
    return plain_why(math.nan if v is None else v)


def class_reasons(summary: Any, label: str, per_class: Any, classes: Any) -> dict[str, str]:
    """Why each class's value of the measure ``label`` is NaN, ``{str(class): reason}``: read from the
    multiclass summary (``summary``: a :class:`~perfeval.summaries.classes.ClassSummary`, or None
    when grouped) where it tells (the class is absent from the targets, every case is of it, it is
    never predicted), else the measure's edge cases.
    """
    out: dict[str, str] = {}
    support = getattr(summary, "n_class", None)
    confusion = getattr(summary, "confusion", None)
    name = label.split(":")[0].split("@")[0]
    if hasattr(summary, "hists"):  # K labels (a LabelSummary): a label on or off in each row
        return _label_reasons(summary, label, per_class, classes)
    for i, (c, v) in enumerate(zip(classes, np.asarray(per_class, dtype=float).tolist(), strict=False)):
        if not math.isnan(v):
            if math.isinf(v):
                out[str(_key(c))] = plain_why(v)
            continue
        why = None
        if support is not None and len(support) > i:
            total = float(np.sum(support))
            if support[i] <= 0:
                why = f"no case of class {_key(c)!r} among the targets"
            elif name == "PRE_MC" and confusion is not None and float(confusion[:, i].sum()) <= 0:
                why = f"class {_key(c)!r} is never predicted (never the argmax of a row)"
            elif support[i] >= total:
                why = f"every case is of class {_key(c)!r}: no case of the rest to compare with"
        out[str(_key(c))] = why or why_not_finite(v, label, "for this class") or "undefined for this class"
    return out


def _label_reasons(summary: Any, label: str, per_class: Any, labels: Any) -> dict[str, str]:
    """:func:`class_reasons` of K labels (a :class:`~perfeval.summaries.labels.LabelSummary`)."""
    out: dict[str, str] = {}
    support = summary.n_class
    total = float(summary.total)
    for i, (c, v) in enumerate(zip(labels, np.asarray(per_class, dtype=float).tolist(), strict=False)):
        if math.isfinite(v):
            continue
        why = None
        if math.isnan(v) and i < len(support):
            if support[i] <= 0:
                why = f"label {_key(c)!r} is on in no row"
            elif support[i] >= total:
                why = f"label {_key(c)!r} is on in every row: no row without it to compare with"
        out[str(_key(c))] = why or why_not_finite(v, label, "for this label") or "undefined for this label"
    return out


def _key(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _keys(groups: Any) -> list:
    return [g.item() if hasattr(g, "item") else g for g in np.asarray(groups)] if groups is not None else []


def _pandas():
    try:
        import pandas as pd
    except ImportError:
        raise MissingDependencyError(
            "this needs pandas: pip install pandas (or pip install 'perfeval[all]')"
        ) from None
    return pd
