"""``evaluate``: many measures at once, over the whole data or per group, into a :class:`Report`.

Each kind of summary is built once and shared by every measure that needs it: one
:class:`~perfeval.summaries.ScoreHistogram` for the binary measures (one per group when grouped),
one :class:`~perfeval.summaries.ranking.RankingData` for the per-query measures and the group AUC.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.measures import MeasureSpec, parse_measure
from perfeval.report import MeasureResult, Report
from perfeval.summaries import ScoreHistogram
from perfeval.measures import _grouped
from perfeval.measures._grouped import GroupedData
from perfeval.summaries.ranking import RankingData, _codes as _group_codes

_TIES = ("half credit (ROC, GAUC); expected over random tie orders (APR, NDCG, P@k, MRR); "
         "one threshold per tie (AP, MAP)")

#: what evaluate() computes when no measure is named: PERF's report, in float64
DEFAULT_MEASURES = ("ACC", "PPV", "NPV", "SEN", "SPC", "PRE", "REC", "PRF", "LFT", "SAR", "PRB", "APR", "ROC",
                    "R50", "RKL", "TOP1", "TOP10", "SLQ", "CXE", "RMS", "CA1", "CA2")


def to_numpy(x: Any, name: str) -> np.ndarray:
    """A 1-D numpy array from a list, numpy array, pandas/polars Series or pyarrow array/column."""
    if x is None:
        raise InvalidParameterError(f"`{name}` is required")
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        try:
            x = x.to_numpy()
        except TypeError:  # pyarrow ChunkedArray with nulls etc.
            x = np.asarray(x)
    arr = np.asarray(x)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise InvalidParameterError(f"`{name}` must be one-dimensional, got shape {arr.shape}")
    return arr


def _table_names(table: Any) -> list[str] | None:
    """The column names of a pandas/polars/Dask DataFrame, a pyarrow Table or a mapping."""
    if isinstance(table, Mapping):
        return [str(k) for k in table]
    names = getattr(table, "column_names", None)  # pyarrow
    if names is None:
        names = getattr(table, "columns", None)  # pandas (an Index), polars (a list)
    if names is None:
        return None
    try:
        return [str(c) for c in list(names)]
    except TypeError:
        return None


def _column(table: Any, name: str) -> Any:
    """A column of a table by name, or one line saying which columns there are."""
    import difflib

    names = _table_names(table)
    if names is not None and name not in names:
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise InvalidParameterError(f"column {name!r} is not in the table (columns: {', '.join(names)}{hint})")
    try:
        return table[name]
    except Exception:  # any library's own error, said as ours
        raise InvalidParameterError(f"column {name!r} cannot be read from the table") from None


def _floats(arr: np.ndarray, name: str) -> np.ndarray:
    try:
        out = arr.astype(np.float64, copy=False)
    except (TypeError, ValueError):
        raise InvalidDataError(f"`{name}` must hold numbers, got values of type {arr.dtype}") from None
    return out


def _check_scores(score: np.ndarray) -> None:
    bad = ~np.isfinite(score)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidDataError(
            f"`y_score` must be finite numbers, got {score[i]!r} at index {i} "
            "(NaN cannot be ranked; replace it or drop the row)")


def label_values(y: np.ndarray, most: int = 8) -> str:
    """The distinct values of a target column, for a message: ``'no', 'yes'`` (at most ``most``)."""
    try:
        vals = np.unique(y)
    except TypeError:  # mixed types
        vals = np.array(sorted({str(v) for v in y.tolist()}), dtype=object)
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in vals[:most])
    return shown + ("" if len(vals) <= most else f", ... ({len(vals)} values)")


def binary_coding(y: np.ndarray, pos_label: Any = None) -> np.ndarray | None:
    """0/1 targets: ``pos_label`` is 1 and any other label 0; without it 0/1, -1/+1 (1 positive) and
    booleans are taken as they are.  None when the coding is not one of those (nothing is guessed)."""
    if pos_label is not None:
        hit = y == _as_label(pos_label, y)
        return np.asarray(hit, dtype=np.float64)
    if y.dtype.kind == "b":
        return y.astype(np.float64)
    if y.dtype.kind in "iuf":
        if bool(np.all((y == 0) | (y == 1))):
            return y  # numeric 0/1 as given: no float copy
        if bool(np.all((y == -1) | (y == 1))):
            return (y == 1).astype(np.float64)
    return None


def _as_label(pos_label: Any, y: np.ndarray) -> Any:
    """``pos_label`` in the type of the labels (a number typed on a command line against numbers)."""
    if isinstance(pos_label, str) and y.dtype.kind in "iuf":
        try:
            return float(pos_label)
        except ValueError:
            return pos_label
    if isinstance(pos_label, str) and y.dtype.kind == "b" and pos_label.lower() in ("true", "false"):
        return pos_label.lower() == "true"
    return pos_label


def _binary_targets(y: np.ndarray, needs: str, pos_label: Any = None) -> np.ndarray:
    out = binary_coding(y, pos_label)
    if pos_label is not None:
        if not np.any(out):
            raise InvalidDataError(f"pos_label={pos_label!r} does not occur in `y_true` (labels: {label_values(y)})")
        return out
    if out is None:
        raise InvalidDataError(
            f"{needs} needs binary targets (0/1, -1/1 or booleans), but `y_true` holds {label_values(y)}; name the "
            "positive label with pos_label= (e.g. pos_label='yes'), map several with partitions=, or choose "
            "ranking measures")
    return out


def _identity_groups(g: np.ndarray) -> np.ndarray:
    """Groups as ids: integral floats become int64 (a group prints as 5, not 5.0); fractional floats,
    floats past 2**53 (where distinct ids may already have merged), NaN and None are refused."""
    if g.dtype.kind == "f":
        bad = ~np.isfinite(g)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidDataError(f"`groups` holds {float(g[i])!r} at index {i}; every case needs a group id")
        frac = g != np.floor(g)
        if frac.any():
            i = int(np.argmax(frac))
            raise InvalidDataError(f"`groups` holds the float {float(g[i])!r} at index {i}; group ids are integers or strings")
        big = np.abs(g) >= 2.0 ** 53
        if big.any():
            i = int(np.argmax(big))
            raise InvalidDataError(
                f"`groups` holds the float {float(g[i])!r} at index {i}: past 2**53 distinct integer ids can become the "
                "same float; pass the ids as integers or strings")
        return g.astype(np.int64)
    if g.dtype.kind == "O":
        for i, v in enumerate(g.tolist()):
            if v is None or (isinstance(v, float) and v != v):
                raise InvalidDataError(f"`groups` holds {v!r} at index {i}; every case needs a group id")
    return g


def _resolve(measures: Iterable[str | MeasureSpec] | str, threshold: float) -> list[MeasureSpec]:
    if isinstance(measures, str):
        measures = [m for m in measures.split(",") if m.strip()]
    specs = []
    for m in measures:
        spec = parse_measure(m)
        if "threshold" in spec.kwargs and "threshold" not in spec._set:
            kw = dict(spec.params)
            kw["threshold"] = threshold
            new = MeasureSpec(spec.measure, tuple(kw.items()))
            object.__setattr__(new, "_set", spec._set)
            spec = new
        specs.append(spec)
    labels = [s.label for s in specs]
    dup = {lab for lab in labels if labels.count(lab) > 1}
    if dup:
        raise InvalidParameterError(f"measure named twice: {sorted(dup)[0]}")
    return specs


def evaluate(y_true: Any, y_score: Any = None, *, measures: Iterable[str | MeasureSpec] | str = DEFAULT_MEASURES,
             groups: Any = None, weights: Any = None, threshold: float = 0.5,
             partitions: Mapping[str, Sequence[Any]] | None = None, target: str | None = None,
             score: str | None = None, group: str | None = None, weight: str | None = None,
             pos_label: Any = None) -> Report:
    """Compute measures, over all cases or per group.

    Parameters
    ----------
    y_true : array-like
        Targets: 0/1 for the binary measures; graded relevance (0, 1, 2, ...) for the per-query
        measures (NDCG, DCG, CG; MAP, P, R, MRR count relevance > 0 as relevant); any labels when
        ``partitions`` maps them to binary tasks.
    y_score : array-like of float
        Scores, higher meaning more likely positive / more relevant. Must be finite.
    measures : iterable of str or MeasureSpec, or a comma-separated str
        Names with parameters: ``["roc", "ndcg@10", "slq:bins=100", "-apr"]``. Default: PERF's
        report (``perfeval.evaluation.DEFAULT_MEASURES``).
    groups : array-like, optional
        Group (query, block, user) of each case. Every measure is then computed per group; the
        report gives the mean over groups, the mean weighted by group size, the per-group values
        and the groups where the measure is undefined (left out of the means).
    weights : array-like of float, optional
        Non-negative weight per case, for the binary measures.  A case of weight 0 counts as if it
        were not there, for every measure (grouped, streamed and bootstrapped too).
    threshold : float, default 0.5
        Threshold of the threshold measures (a case with score >= threshold is predicted
        positive), unless a measure spec sets its own (``"acc:threshold=0.3"``).
    partitions : mapping of name -> labels, optional
        Binary tasks made from multi-class labels: for each name, ``y_true`` in the labels is
        positive and any other label negative. Each measure is computed per partition and named
        ``"<measure>[<partition>]"``.
    pos_label : optional
        The positive label of ``y_true`` for the binary measures (``"yes"``, ``True``, ``2``): it
        is 1, every other label 0.  Without it the targets must be 0/1, -1/1 (1 positive) or
        booleans; any other coding is an error that lists the labels found (nothing is guessed).
    target, score, group, weight : str, optional
        Column names, when ``y_true`` is a table (a pandas, polars or Dask DataFrame, a pyarrow
        Table): ``evaluate(df, target="click", score="ctr", group="user")``.  A Dask DataFrame (or
        two Dask arrays) is evaluated on the cluster (:mod:`perfeval.dask`).

    Returns
    -------
    Report

    Raises
    ------
    InvalidParameterError
        Mismatched lengths, NaN or infinite scores, non-binary targets for a binary measure (the
        values found are listed), negative relevance for a ranking measure, a grouped measure
        (GAUC) without groups.
    UnknownMeasureError
        An unknown measure name, with close matches.

    Examples
    --------
    >>> r = evaluate([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1], measures=["roc", "apr", "ap"])
    >>> r["ROC"], round(r["APR"], 4), round(r["AP"], 4)
    (0.875, 0.9167, 0.8333)
    >>> r = evaluate([1, 0, 1, 1, 0, 0], [0.8, 0.3, 0.6, 0.2, 0.4, 0.1], groups=[1, 1, 1, 2, 2, 2],
    ...              measures=["gauc", "ndcg"])
    >>> r["GAUC"], r.results["GAUC"].per_group.tolist()
    (0.75, [1.0, 0.5])
    """
    from perfeval.dask import is_dask

    if is_dask(y_true):
        from perfeval.dask import evaluate_dask

        if partitions or groups is not None or weights is not None:
            raise InvalidParameterError("with a Dask collection, name the columns: group=..., weight=...")
        return evaluate_dask(y_true, y_score, target=target, score=score, group=group, weight=weight,
                             measures=measures, threshold=threshold)
    if target is not None or score is not None:
        if y_score is not None:
            raise InvalidParameterError("pass either a table with `target=`/`score=` names, or two arrays")
        table = y_true
        if target is None or score is None:
            raise InvalidParameterError("a table needs both `target=` and `score=` column names")
        y_true, y_score = _column(table, target), _column(table, score)
        groups = _column(table, group) if group is not None else groups
        weights = _column(table, weight) if weight is not None else weights
    if y_score is None:
        raise InvalidParameterError("`y_score` is required (or a table with `target=` and `score=`)")
    specs = _resolve(measures, threshold)
    yt = to_numpy(y_true, "y_true")
    ys = _floats(to_numpy(y_score, "y_score"), "y_score")
    if len(yt) != len(ys):
        raise InvalidDataError(f"`y_true` and `y_score` must have the same length, got {len(yt)} and {len(ys)}")
    _check_scores(ys)
    g = None if groups is None else _identity_groups(to_numpy(groups, "groups"))
    if g is not None and len(g) != len(ys):
        raise InvalidDataError(f"`groups` must have the length of `y_score` ({len(ys)}), got {len(g)}")
    w = None if weights is None else _floats(to_numpy(weights, "weights"), "weights")
    if w is not None:
        if len(w) != len(ys):
            raise InvalidDataError(f"`weights` must have the length of `y_score` ({len(ys)}), got {len(w)}")
        bad = ~np.isfinite(w) | (w < 0)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidDataError(f"`weights` must be finite non-negative numbers, got {float(w[i])!r} at index {i}")
    rows_in = len(ys)
    if w is not None and not w.all():
        # a case of weight 0 is no case at all, for every measure: drop it here, at the door, so
        # that it adds no distinct score, rank, group or count anywhere below
        keep = w > 0
        yt, ys, w = yt[keep], ys[keep], w[keep]
        g = None if g is None else g[keep]
    tasks: list[tuple[str, np.ndarray]]
    if partitions:
        tasks = []
        known = set(np.unique(yt).tolist())
        for name, labels in partitions.items():
            missing = [lab for lab in labels if lab not in known]
            if missing:
                raise InvalidParameterError(
                    f"partition {name!r}: label {missing[0]!r} does not occur in `y_true` (labels: {sorted(known)[:8]})")
            tasks.append((f"[{name}]", np.isin(yt, list(labels)).astype(np.float64)))
    else:
        tasks = [("", yt)]
    results: dict[str, MeasureResult] = {}
    keys = None
    for suffix, y in tasks:
        ranking_specs = [s for s in specs if s.measure.kind in ("ranking", "grouped")]
        binary_specs = [s for s in specs if s.measure.kind == "binary"]
        if any(s.measure.kind == "grouped" for s in specs) and g is None:
            name = next(s.label for s in specs if s.measure.kind == "grouped")
            raise InvalidParameterError(f"{name} is computed over groups: pass `groups=`")
        if ranking_specs and w is not None:
            raise InvalidParameterError(
                f"`weights` apply to the binary measures only, not to {ranking_specs[0].label} "
                "(a per-query measure); evaluate them without weights")
        if ranking_specs:
            yr = _floats(y, "y_true")
            ties = RankingData(yr, ys, g).ties()
            keys = ties.keys if g is not None else None
            for s in ranking_specs:
                vals = np.asarray(s.measure.function()(ties, **s.kwargs), dtype=np.float64)
                results[s.label + suffix] = MeasureResult.of(s, vals, ties.sizes, keys, g is not None)
        if binary_specs:
            yb = _binary_targets(y, binary_specs[0].label, pos_label if not partitions else None)
            if g is None:
                _binary_values(binary_specs, ScoreHistogram.from_arrays(yb, ys, w), suffix, results)
            else:
                keys, codes = _group_codes(g)
                # a group's size is its cases' total weight (its row count unweighted), so that a
                # case of whole weight k counts as k copies of it in the size-weighted mean too
                sizes = np.bincount(codes, weights=w, minlength=len(keys)).astype(np.float64)
                # the rows in one canonical order (group, score, target, weight): a per-group kernel that
                # sums in row order then gives the same bits whatever the input order
                yf = np.asarray(yb, dtype=np.float64)
                canon = np.lexsort((yf, ys, codes) if w is None else (w, yf, ys, codes))
                gd = GroupedData(codes[canon], yf[canon], ys[canon], None if w is None else w[canon], len(keys))
                hists = None
                for s in binary_specs:
                    fast = getattr(_grouped, s.measure.compute.partition(":")[2], None)
                    vals = fast(gd, **s.kwargs) if fast is not None else None
                    if vals is None:  # group by group, from each group's ScoreHistogram
                        if hists is None:
                            hists = _grouped_histograms(yb, ys, w, codes, len(keys))
                        vals = np.array([_safe(s, h) for h in hists], dtype=np.float64)
                    results[s.label + suffix] = MeasureResult.of(s, np.asarray(vals, dtype=np.float64), sizes,
                                                                 keys, True)
    _warn_undefined(results, specs)
    group_sizes = None
    if g is not None:
        codes_all = _group_codes(g)[1]
        group_sizes = np.bincount(codes_all, weights=w, minlength=len(keys)).astype(np.float64)
    params = {"threshold": threshold, "rows": int(rows_in), "groups": None if g is None else int(len(keys)),
              "weighted": w is not None, "partitions": dict(partitions) if partitions else None,
              "ties": _TIES}
    report = Report(results, keys if g is not None else None, params)
    report.group_sizes = group_sizes  # total weight (rows, unweighted) of each group, in key order
    return report


def _binary_values(specs: list[MeasureSpec], h: ScoreHistogram, suffix: str, results: dict) -> None:
    """Finish every binary measure from one summary (in memory, streamed or distributed alike)."""
    for s in specs:
        results[s.label + suffix] = MeasureResult.single(s, float(s(h)))


def binary_report(specs: list[MeasureSpec], h: ScoreHistogram, *, rows: int, threshold: float,
                  weighted: bool) -> Report:
    """The Report of binary measures finished from a summary built elsewhere (a stream, a cluster)."""
    results: dict[str, MeasureResult] = {}
    _binary_values(specs, h, "", results)
    _warn_undefined(results, specs)
    report = Report(results, None, {"threshold": threshold, "rows": int(rows), "groups": None, "weighted": weighted,
                                    "partitions": None, "ties": _TIES})
    report.summary = h  # the merged summary: intervals can be drawn from it (perfeval.bootstrap.ci_from_summary)
    return report


def _warn_undefined(results: dict[str, MeasureResult], specs: list[MeasureSpec]) -> None:
    """One UndefinedMeasureWarning per measure that is undefined overall or in some groups."""
    import warnings

    from perfeval.exceptions import UndefinedMeasureWarning

    edge = {s.label: s.measure.edge_cases for s in specs}
    for label, r in results.items():
        why = edge.get(label.split("[")[0], "")
        if r.per_group is not None and r.undefined:
            shown = ", ".join(repr(k) for k in r.undefined[:5]) + (", ..." if len(r.undefined) > 5 else "")
            warnings.warn(UndefinedMeasureWarning(
                f"{label} is undefined for {len(r.undefined)} of {len(r.per_group)} groups ({shown}); they are "
                f"left out of its means and listed in the report. Edge cases: {why}"), stacklevel=3)
        elif r.per_group is None and isinstance(r.value, float) and math.isnan(r.value):
            warnings.warn(UndefinedMeasureWarning(f"{label} is undefined for this data. Edge cases: {why}"),
                          stacklevel=3)


def _safe(spec: MeasureSpec, h: ScoreHistogram) -> float:
    v = spec(h)
    return float(v) if v is not None else math.nan


def _grouped_histograms(y: np.ndarray, s: np.ndarray, w: np.ndarray | None, codes: np.ndarray, q: int):
    """One ScoreHistogram per group: views into one array sorted by (group, score)."""
    order = np.lexsort((s, codes))
    c, sc, yy = codes[order], s[order] + 0.0, y[order]
    ww = np.ones(len(s)) if w is None else w[order]
    new = np.ones(len(sc), dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (sc[1:] != sc[:-1])
    starts = np.flatnonzero(new)
    pos = np.add.reduceat(ww * yy, starts) if len(starts) else np.zeros(0)
    neg = np.add.reduceat(ww * (1 - yy), starts) if len(starts) else np.zeros(0)
    scores, gcodes = sc[starts], c[starts]
    bounds = np.searchsorted(gcodes, np.arange(q + 1))
    return [ScoreHistogram(scores[a:b], pos[a:b], neg[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
