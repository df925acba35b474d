"""The engine: measure specs and checked arrays in, a :class:`~perfeval.engine.report.Report` out.

check -> code -> summarize (:mod:`perfeval.engine.door`).  The arrays reaching :func:`finish` were checked
once at the door and their targets are coded once (:class:`perfeval.engine.door.Targets`); here each kind
of summary is built once and shared by every measure that needs it (one
:class:`~perfeval.summaries.ScoreHistogram` for the binary measures, one per group when grouped; one
:class:`~perfeval.summaries.ranking.TieTable` for the per-query measures and the group AUC), and
every measure is finished from it.  No I/O and no backend here: the in-memory front door
(:func:`perfeval.evaluate`), the streaming and the Dask backends all finish through this module, so
they give the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from perfeval.base.checks import Cases
from perfeval.base.nicknames import ALL
from perfeval.engine.door import Targets
from perfeval.engine.report import MeasureResult, Report, groups_said, undefined_groups
from perfeval.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    UndefinedMeasureWarning,
    warn,
)
from perfeval.measures import Measure, MeasureSpec, parse_measure
from perfeval.measures._data import GroupedData
from perfeval.measures.spec import refuse_pending, split_measures, with_threshold
from perfeval.summaries import ScoreHistogram
from perfeval.summaries.ranking import RankingData, group_codes, lexsorted

# The tie bounds and the thread pool are imported where they are used: `evaluate()` of one
# measure without tie bounds loads neither.

#: the tie rules, as reports state them
TIES = (
    "half credit (ROC, GAUC); expected over random tie orders (APR, NDCG, P@k, MRR); "
    "one threshold per tie (AP, MAP)"
)

#: what evaluate() computes when no measure is named: PERF's report, in float64
DEFAULT_MEASURES = ALL


def resolve(
    measures: Iterable[str | MeasureSpec] | str,
    threshold: float,
    *,
    trec: bool = False,
    pending: bool = False,
) -> list[MeasureSpec]:
    """Measure names (or specs) as specs, with ``threshold`` where a spec does not set its own; a
    measure named twice is an error.  ``trec``: names shared by trec_eval and perfeval mean
    trec_eval's (see :mod:`perfeval.measures.spellings`).  ``pending``: a binary name may keep a
    parameter only its form for K classes or K labels has (``roc:average=weighted``), for
    :func:`perfeval.engine.classes.class_specs` (:func:`perfeval.measures.spec.parse_measure`).
    """
    if isinstance(measures, str):
        measures = split_measures(measures)
    elif not isinstance(measures, Iterable) or isinstance(measures, (bytes, Mapping)):
        raise InvalidParameterError(
            f"`measures` must be names (a list such as ['roc', 'ndcg@10'], or 'roc,ndcg@10'), "
            f"got {type(measures).__name__}"
        )
    measures = list(measures)  # read twice: the specs, then the names of a measure named twice
    specs = []
    for m in measures:
        if not isinstance(m, (str, MeasureSpec, Measure)):
            raise InvalidParameterError(f"a measure is a name such as 'roc' or 'ndcg@10', got {m!r}")
        specs.append(with_threshold(parse_measure(m, trec=trec, pending=pending), threshold))
    labels = [s.label for s in specs]
    dup = {lab for lab in labels if labels.count(lab) > 1}
    if dup:
        first = sorted(dup)[0]
        given = [
            str(m) for m, lab in zip(measures, labels, strict=True) if lab == first and isinstance(m, str)
        ]
        names = sorted({g.strip() for g in given}, key=given.index)
        said = ""
        if len(names) > 1:  # two spellings of one measure (mse and brier): say that one is the other's
            shown = [repr(n) for n in names]
            said = (
                f" ({', '.join(shown[:-1])} and {shown[-1]} are {'both' if len(names) == 2 else 'all'} "
                f"{first.split('@')[0].split(':')[0]})"
            )
        raise InvalidParameterError(f"measure named twice: {first}{said}")
    return specs


def regression_refused(spec: MeasureSpec) -> InvalidParameterError:
    """A regression measure asked of 0/1 targets read as labels (``task="binary"``, ``--task
    binary``, or a summary of them): the one line that says so.
    """
    return InvalidParameterError(
        f"{spec.label} is a regression measure, but the target is read as 0/1 labels here (task="
        "'binary', or a summary of them); give the real targets and predictions (task='regression')"
    )


def one_score_a_case(specs: list[MeasureSpec]) -> None:
    """Measures of K classes or K labels asked of one score a case, or a regression measure asked of
    binary targets (``task="binary"``): one line saying what they read (never an empty report: they
    would otherwise be left out without a word).
    """
    refuse_pending(specs)
    for s in specs:
        if s.measure.kind == "regression":
            raise regression_refused(s)
        if s.measure.kind == "multiclass":
            raise InvalidParameterError(
                f"{s.label} is a measure of K classes: it reads one score column per class (two classes: "
                "both columns; in Python an (n, K) score matrix with classes=[...], on the command line "
                "--score COL_A,COL_B,... --classes A,B,...); here the scores are one column"
            )
        if s.measure.kind == "multilabel":
            raise InvalidParameterError(
                f"{s.label} is a measure of K labels: it reads a 0/1 target matrix (one column a label) "
                "and a score matrix of the same shape; here the targets and the scores are one column each"
            )


def finish(
    cases: Cases,
    specs: list[MeasureSpec],
    *,
    threshold: float,
    partitions: Mapping[str, Sequence[Any]] | None = None,
    pos_label: Any = None,
    tie_bounds: bool = False,
) -> Report:
    """Every measure of ``specs`` over checked cases (see :func:`perfeval.base.checks.check`);
    ``tie_bounds``: with each measure's minimum and maximum over the orders of the tied cases (see
    :mod:`perfeval.measures.tiebounds`).
    """
    one_score_a_case(specs)
    # each operating point's threshold beside its value (with_thresholds, below): its twin finished too
    pairs, twins = threshold_companions(specs)
    specs = specs + twins
    yt, ys, g, w, rows_in = cases.y, cases.s, cases.g, cases.w, cases.rows_in
    tasks: list[tuple[str, Targets]]  # each task's targets, coded once (the code stage)
    if partitions:
        tasks = []
        known = set(np.unique(yt).tolist())
        for name, labels in partitions.items():
            missing = [lab for lab in labels if lab not in known]
            if missing:
                raise InvalidParameterError(
                    f"partition {name!r}: label {missing[0]!r} does not occur in `y_true` (labels: "
                    f"{sorted(known)[:8]})"
                )
            tasks.append((f"[{name}]", Targets(np.isin(yt, list(labels)).astype(np.float64))))
    else:
        coded = cases.targets
        if coded is None or coded.pos_label is not pos_label:  # not through the code stage
            coded = Targets(yt, pos_label, keep=tie_bounds)
        tasks = [("", coded)]
    results: dict[str, MeasureResult] = {}
    keys: Any = None
    counted: dict[str, tuple[float, float]] = {}  # tied and comparable pairs, of each kind of measure
    grouping = None if g is None else group_codes(g)  # once: every task and the sizes read it
    # a group's size is its cases' total weight (its row count unweighted): once, for every task's
    # per-group results and the report (a bincount of the rows each: 2 ms a million)
    group_sizes = (
        None
        if grouping is None
        else np.bincount(grouping[1], weights=w, minlength=len(grouping[0])).astype(np.float64)
    )
    for suffix, y in tasks:
        if any(s.measure.kind == "grouped" for s in specs) and g is None:
            name = next(s.label for s in specs if s.measure.kind == "grouped")
            raise InvalidParameterError(f"{name} is computed over groups: pass `groups=`")
        ranking_specs = [s for s in specs if s.measure.kind in ("ranking", "grouped")]
        if ranking_specs and w is not None:
            raise InvalidParameterError(
                f"`weights` apply to the binary measures only, not to {ranking_specs[0].label} "
                "(a per-query measure); evaluate them without weights"
            )
        keys = _task(y, ys, g, w, specs, suffix, results, grouping, group_sizes)
        if tie_bounds:
            for kind, (tied, n_kind) in _tie_bounds(y, ys, g, w, specs, suffix, results, grouping).items():
                t0, p0 = counted.get(kind, (0.0, 0.0))
                counted[kind] = (t0 + tied, p0 + n_kind)
    # in the order asked (each kind of measure is computed in its own pass), partition by partition
    asked = [s.label + suffix for suffix, _ in tasks for s in specs]
    results = {**{k: results[k] for k in asked if k in results}, **results}
    warn_undefined(results, specs)
    params = {
        "threshold": threshold,
        "rows": int(rows_in),
        "groups": None if g is None else int(len(keys)),
        "weighted": w is not None,
        "partitions": dict(partitions) if partitions else None,
        "ties": TIES,
        "pos_label": None if partitions else pos_label,
        "backend": "memory",
    }
    report = Report(results, keys if g is not None else None, params)
    report.group_sizes = group_sizes  # total weight (rows, unweighted) of each group, in key order
    if tie_bounds:  # the pairs of the per-query measures when there are any, else the binary ones'
        tied, n_pairs = counted.get("ranking", counted.get("grouped", counted.get("binary", (math.nan, 0.0))))
        report.tied_pairs, report.pairs = (tied / n_pairs if n_pairs > 0 else math.nan), n_pairs
    return with_thresholds(report, pairs)


def _task(
    y: Targets,
    ys: np.ndarray,
    g: np.ndarray | None,
    w: np.ndarray | None,
    specs: list[MeasureSpec],
    suffix: str,
    results: dict[str, MeasureResult],
    grouping: tuple[np.ndarray, np.ndarray] | None = None,
    group_sizes: np.ndarray | None = None,
) -> Any:
    """Every measure of ``specs`` for the targets ``y`` (one task, coded once: each kind of measure
    asks its coding) into ``results``; the group keys (``grouping``: group_codes(g), when made already;
    ``group_sizes``: each group's total weight, when made already).
    """
    if g is not None and grouping is None:
        grouping = group_codes(g)
    keys: Any = None
    ranking_specs = [s for s in specs if s.measure.kind in ("ranking", "grouped")]
    binary_specs = [s for s in specs if s.measure.kind == "binary"]
    # the group AUCs read 0/1 targets: coded by pos_label when one is named (labels, not grades)
    coded = y.pos_label is not None and any(s.measure.kind == "grouped" for s in ranking_specs)
    for part in (
        (
            [s for s in ranking_specs if s.measure.kind == "ranking"],
            [s for s in ranking_specs if s.measure.kind == "grouped"],
        )
        if coded
        else (ranking_specs,)
    ):
        if not part:
            continue
        if coded and part[0].measure.kind == "grouped":
            yr = np.asarray(y.binary(part[0].label), dtype=np.float64)
        else:  # the targets read as graded relevance: checked >= 0 where that is known
            yr = y.relevance(part)
        # the measures take the rows and make the tie table on first need (the group AUC needs none)
        rd = RankingData.from_checked(yr, ys, g, grouping)
        keys = rd.keys if g is not None else None
        for s in part:
            per_query = np.asarray(s.measure.function()(rd, **s.kwargs), dtype=np.float64)
            results[s.label + suffix] = r = MeasureResult.of(
                s, per_query, rd.query_sizes, keys, g is not None
            )
            if r.undefined and s.measure.kind == "grouped" and grouping is not None:
                # the group AUCs: a group of one class says so, as the binary measures' groups do
                _one_class_groups(r, s, yr, grouping[1], np.flatnonzero(np.isnan(per_query)))
    if binary_specs:
        yb = y.binary(binary_specs[0].label)
        if g is None:
            h = ScoreHistogram.from_checked(yb == 1, ys, w)
            del yb  # a coding's copy (booleans, a pos_label) is not kept while the measures run
            y.release()  # (unless the tie bounds ask for it again)
            binary_values(binary_specs, h, suffix, results)
        else:
            assert grouping is not None
            keys, codes = grouping
            # a group's size is its cases' total weight (its row count unweighted), so that a
            # case of whole weight k counts as k copies of it in the size-weighted mean too
            sizes = (
                group_sizes
                if group_sizes is not None
                else np.bincount(codes, weights=w, minlength=len(keys)).astype(np.float64)
            )
            # weighted, the rows in one canonical order (group, score, target, weight): a per-group
            # kernel that sums in row order then gives the same bits whatever the input order
            gd = GroupedData.from_rows(codes, np.asarray(yb), ys, w, len(keys))
            hists = None
            undefined = []  # the results with a NaN group: its own reason, read below
            for s in binary_specs:
                fast = s.measure.per_group_function()
                vals: Any = fast(gd, **s.kwargs) if fast is not None else None
                if vals is None:  # group by group, from each group's ScoreHistogram
                    if hists is None:
                        hists = grouped_histograms(yb, ys, w, codes, len(keys))
                    vals = each_summary(s, hists)
                vals = np.asarray(vals, dtype=np.float64)
                results[s.label + suffix] = r = MeasureResult.of(s, vals, sizes, keys, True)
                if r.undefined:
                    undefined.append((s, r, np.flatnonzero(np.isnan(vals))))
            if undefined:  # only when a group is NaN: a defined value costs nothing more
                group_reasons(undefined, yb, ys, w, codes, hists, gd)
    return keys


def _one_class_groups(
    r: MeasureResult, s: MeasureSpec, y: np.ndarray, codes: np.ndarray, nan: np.ndarray
) -> None:
    """A group AUC's NaN groups of one class (grades > 0 positive), said as
    :func:`perfeval.measures.reasons.class_text` says it (no weights: the group AUCs take none).
    """
    from perfeval.measures.reasons import class_text, from_totals

    k = int(codes.max()) + 1 if len(codes) else 0
    pos = np.bincount(codes, weights=(np.asarray(y) > 0).astype(np.float64), minlength=k)
    n = np.bincount(codes, minlength=k).astype(np.float64)
    m = s.measure
    r.undefined_groups_why = [
        from_totals(m.name, m.edge_cases, class_text(float(pos[c]), float(n[c] - pos[c]), True), False)[1]
        for c in nan.tolist()
    ]


def group_reasons(
    undefined: list[tuple[MeasureSpec, MeasureResult, np.ndarray]],
    y: Any,
    s: np.ndarray,
    w: np.ndarray | None,
    codes: np.ndarray,
    hists: Sequence[ScoreHistogram] | None = None,
    grouped: GroupedData | None = None,
) -> None:
    """Why each NaN group of each result is (``undefined``: (spec, result, the NaN groups' codes)), as
    the ungrouped path says it (:func:`perfeval.measures.reasons.why_nan`), each from its group's own
    rows: set on ``result.undefined_groups_why``.  The NaN groups' totals are read at once (the class
    reason, the scores outside [0, 1] or at 0 or 1: :func:`~perfeval.measures.reasons.from_totals`);
    the fits' groups of both classes with every score in (0, 1) from the groups' histograms the
    measures read (``grouped``, when made: :func:`~perfeval.measures.reasons.fit_groups_why`, every
    such group at once); the summaries of the groups whose reason needs more are made (``hists``:
    every group's, when made already), once for every measure.
    """
    from perfeval import _native
    from perfeval.measures.reasons import class_text, fit_groups_why_array, fit_why_said, from_totals

    # each result's NaN groups come ascending and distinct (np.flatnonzero): one result's are `wanted`
    wanted = (
        undefined[0][2] if len(undefined) == 1 else np.unique(np.concatenate([nan for *_, nan in undefined]))
    )
    k = len(wanted)
    ghist = None if grouped is None else getattr(grouped, "_hist", None)  # the measures' histograms
    fcode = None  # the joint fits' reason codes of the wanted groups (fit_why's), when read with the totals
    if ghist is not None and w is None and bool((ghist[3][wanted + 1] > ghist[3][wanted]).all()):
        # unweighted, the totals from the groups' histograms (whole counts: exact in any order), not
        # from the rows again: every cell is a case or more, its score one of the group's; with the
        # joint fits' reasons when one is asked (the same cells, read once)
        joint = any(
            sp.measure.name in ("CAL_SLOPE", "CAL_INTERCEPT")
            and {**sp.measure.defaults(), **sp.kwargs}.get("fit") != "offset"
            for sp, *_ in undefined
        )
        tp, tn, to, *codes_ = _native.group_totals(*ghist, np.ascontiguousarray(wanted, np.int64), joint)
        fcode = np.frombuffer(codes_[0], np.int64) if codes_ else None
        pos: np.ndarray = np.frombuffer(tp, np.float64)
        neg: np.ndarray = np.frombuffer(tn, np.float64)
        counts = np.ones(k, dtype=bool)
        odd = np.frombuffer(to, np.uint8).astype(bool)
    else:
        rows = np.isin(codes, wanted)
        sub = np.searchsorted(wanted, codes[rows])  # each row's place among the NaN groups
        yy, ss = np.asarray(y)[rows].astype(np.float64), s[rows]
        ww = np.ones(len(ss)) if w is None else w[rows]
        pos = np.bincount(sub, weights=ww * yy, minlength=k)
        neg = np.bincount(sub, weights=ww * (1.0 - yy), minlength=k)
        # whole weights as the group's own summary sees them (ScoreHistogram.is_counts): each cell's
        # (each distinct score's) positive and negative weight, summed in row order, not each row's
        # (two cases of weight 0.5 at one score are one case of weight 1 to the summary)
        order = np.lexsort((ss, sub))
        cs, cg = ss[order], sub[order]
        new = np.ones(len(cs), dtype=bool)
        new[1:] = (cg[1:] != cg[:-1]) | (cs[1:] != cs[:-1])
        starts = np.flatnonzero(new)
        whole = np.ones(len(starts), dtype=bool)
        for v in (ww * yy, ww * (1.0 - yy)):
            cell = np.add.reduceat(v[order], starts) if len(starts) else np.zeros(0)
            whole &= cell == np.round(cell)
        counts = np.bincount(cg[starts], weights=(~whole).astype(np.float64), minlength=k) == 0
        live = ww > 0
        odd = np.bincount(sub[live & ((ss <= 0.0) | (ss >= 1.0))], minlength=k) > 0
    # class_text is None where both classes weigh: said only of the others
    both = (pos > 0) & (neg > 0)
    said: list[str | None] = [None] * k
    texts: dict[tuple[float, float, bool], str | None] = {}  # groups of one class share a few texts
    for i, p_, n_, c_ in zip(
        (nb := np.flatnonzero(~both)).tolist(),
        pos[nb].tolist(),
        neg[nb].tolist(),
        counts[nb].tolist(),
        strict=True,
    ):
        key = (p_, n_, c_)
        said[i] = texts[key] if key in texts else texts.setdefault(key, class_text(p_, n_, c_))
    todo: list[tuple[MeasureResult, np.ndarray, int, str, str, dict]] = []
    need: set[int] = set()
    made: list[tuple[MeasureResult, np.ndarray]] = []  # each result's reasons, in its NaN groups' order
    for spec, r, nan in undefined:
        m = spec.measure
        params = {**m.defaults(), **spec.kwargs}
        places = np.searchsorted(wanted, nan)
        whys = np.full(len(nan), None, dtype=object)
        # the fits' groups of both classes, every score in (0, 1): fit_groups_why, all at once (the
        # offset fit has no reason of its own there: None); the others one by one, from their totals
        told = np.zeros(len(nan), dtype=bool)
        if ghist is not None and m.name in ("CAL_SLOPE", "CAL_INTERCEPT"):
            told = both[places] & ~odd[places]
            if params.get("fit") != "offset" and told.any():
                hs, hp, hn, hb = ghist
                whys[told] = (
                    fit_why_said(hs, fcode[places[told]])
                    if fcode is not None
                    else fit_groups_why_array(hs, hp, hn, hb, nan[told].astype(np.int64))
                )
        # from_totals reads (the measure, a class text, odd): a few distinct questions over many groups
        asked: dict[tuple[str | None, bool], tuple[bool, str | None]] = {}
        rest = np.flatnonzero(~told)
        for j, i, o in zip(rest.tolist(), places[rest].tolist(), odd[places[rest]].tolist(), strict=True):
            q = (said[i], o)
            known, whys[j] = (
                asked[q] if q in asked else asked.setdefault(q, from_totals(m.name, m.edge_cases, *q))
            )
            if not known:
                todo.append((r, whys, j, m.name, m.edge_cases, params))
                need.add(int(nan[j]))
        made.append((r, whys))
    if todo:
        _reasons_read(todo, need, undefined, y, s, w, codes, hists)
    for r, whys in made:
        r.undefined_groups_why = whys.tolist()


def _reasons_read(
    todo: list[tuple[MeasureResult, np.ndarray, int, str, str, dict]],
    need: set[int],
    undefined: list[tuple[MeasureSpec, MeasureResult, np.ndarray]],
    y: Any,
    s: np.ndarray,
    w: np.ndarray | None,
    codes: np.ndarray,
    hists: Sequence[ScoreHistogram] | None,
) -> None:
    """group_reasons' reasons that need the summary (``todo``: each (result, its reasons, the place,
    the measure's name, edge cases, parameters); ``need``: those groups' codes), each from its group's
    summary (``hists``: every group's, when made already; else made of those groups' rows).
    """
    from perfeval.measures.reasons import why_nan

    if hists is not None:
        of = {c: hists[c] for c in need}
    else:  # the summaries of those groups alone
        chosen = np.asarray(sorted(need))
        keep = np.isin(codes, chosen)
        made = grouped_histograms(
            np.asarray(y)[keep],
            s[keep],
            None if w is None else w[keep],
            np.searchsorted(chosen, codes[keep]),
            len(chosen),
        )
        of = dict(zip(chosen.tolist(), made, strict=True))
    by_place = {id(r): nan for _s, r, nan in undefined}
    for r, whys, j, name, edge, params in todo:
        c = int(by_place[id(r)][j])
        whys[j] = why_nan(name, edge, of[c], params)


def _tie_bounds(
    y: Targets,
    ys: np.ndarray,
    g: np.ndarray | None,
    w: np.ndarray | None,
    specs: list[MeasureSpec],
    suffix: str,
    results: dict[str, MeasureResult],
    grouping: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict[str, tuple[float, float]]:
    """Each measure's minimum and maximum over every order of the tied cases, and the share of its
    comparable pairs that are tied, set on its result (see :mod:`perfeval.measures.tiebounds`): the
    ``orders`` measures finished again on the scores made distinct with every tie's best cases
    first, and with its worst first.  Returns (tied, pairs) of the ranking and the binary measures.
    """
    from perfeval.measures.tiebounds import TieOrders

    codes = None if g is None else (grouping if grouping is not None else group_codes(g))[1]
    sizes = None if codes is None else np.bincount(codes, weights=w).astype(np.float64)
    counted: dict[str, tuple[float, float]] = {}
    # the group AUCs read the targets coded by pos_label when one is named, as their values do
    # (:func:`_task`): their bounds are over the same targets
    coded = y.pos_label is not None
    ranking = [s for s in specs if s.measure.kind == "ranking" or (s.measure.kind == "grouped" and not coded)]
    grouped = [s for s in specs if s.measure.kind == "grouped" and coded]
    binary = [s for s in specs if s.measure.kind == "binary"]
    for kind, kind_specs in (("ranking", ranking), ("grouped", grouped), ("binary", binary)):
        if not kind_specs:
            continue
        if kind == "ranking":
            t = y.relevance(kind_specs)
        else:
            t = np.asarray(y.binary(kind_specs[0].label), dtype=np.float64)
        tie_orders = TieOrders(ys, t, codes, w)  # one sort: both extreme orders and the tied pairs
        tied, pairs = tie_orders.pairs()
        counted[kind] = (tied, pairs)
        ordered = [s for s in kind_specs if s.measure.tie_bounds == "orders"]
        roc = parse_measure("roc")
        linear = any(s.measure.tie_bounds == "linear" for s in kind_specs)
        if linear:  # SAR moves with its ROC part
            ordered.append(roc)
        best: dict[str, MeasureResult] = {}
        worst: dict[str, MeasureResult] = {}
        coded_t = Targets.coded(t)  # coded and checked above: read as it is
        refused = _order_values(coded_t, tie_orders, g, w, ordered, best, worst, grouping) if ordered else {}
        if linear:
            plain: dict[str, MeasureResult] = {}
            _task(coded_t, ys, g, w, [roc], "", plain, grouping)
            roc_value = _values(plain[roc.label])
        for s in kind_specs:
            r = results[s.label + suffix]
            r.tied_pairs, r.pairs = (tied / pairs if pairs > 0 else math.nan), pairs
            how = s.measure.tie_bounds
            if how == "free":
                lo = hi = _values(r)
            elif (s.label if how == "orders" else roc.label) in refused:  # no order can be scored
                lo = hi = np.full(len(_values(r)), math.nan)
                r.tie_note = refused[s.label if how == "orders" else roc.label]
            elif how == "orders" or how == "linear":
                label = s.label if how == "orders" else roc.label
                va, vb = _values(best[label]), _values(worst[label])
                if how == "linear":
                    kw = s.kwargs
                    wsum = kw["w_acc"] + kw["w_roc"] + kw["w_rms"]
                    c = kw["w_roc"] / wsum if wsum != 0 else math.nan
                    va, vb = _values(r) + c * (va - roc_value), _values(r) + c * (vb - roc_value)
                undefined = np.isnan(va) | np.isnan(vb)
                lo = np.where(undefined, np.nan, np.fmin(va, vb))
                hi = np.where(undefined, np.nan, np.fmax(va, vb))
            else:  # no exact bound: NaN, and why
                lo = hi = np.full(len(_values(r)), math.nan)
                r.tie_note = s.measure.tie_bounds_text
            if r.per_group is None:
                r.tie_min, r.tie_max = float(lo[0]), float(hi[0])
            else:  # the headline's own mean (plain or by size) of the groups' bounds
                assert sizes is not None
                r.tie_min_per_group, r.tie_max_per_group = lo, hi
                r.tie_min = MeasureResult.of(s, lo, sizes, np.arange(len(lo)), True).value
                r.tie_max = MeasureResult.of(s, hi, sizes, np.arange(len(hi)), True).value
    return counted


def _order_values(
    y: Targets,
    tie_orders: Any,
    g: np.ndarray | None,
    w: np.ndarray | None,
    ordered: list[MeasureSpec],
    best: dict[str, MeasureResult],
    worst: dict[str, MeasureResult],
    grouping: tuple[np.ndarray, np.ndarray] | None,
) -> dict[str, str]:
    """The ``ordered`` measures over the best and the worst order of the ties, into ``best`` and
    ``worst``.  A measure that refuses the cases once their ties are ordered has no bound: the reason,
    by label.  (APR takes whole weights, checked on the summary's cells: fractional weights whose tie
    sums to a whole number give it a value, but every order of that tie scores each case on its own.)
    """
    high, low = tie_orders.scores(best=True), tie_orders.scores(best=False)
    try:
        _task(y, high, g, w, ordered, "", best, grouping)
        _task(y, low, g, w, ordered, "", worst, grouping)
        return {}
    except InvalidParameterError:
        pass  # one measure at a time: the others keep their bounds
    refused: dict[str, str] = {}
    for s in ordered:
        try:
            _task(y, high, g, w, [s], "", best, grouping)
            _task(y, low, g, w, [s], "", worst, grouping)
        except InvalidParameterError as e:
            refused[s.label] = f"no tie bound: in every order of the tied cases, {e}"
    return refused


def _values(r: MeasureResult) -> np.ndarray:
    """A result's per-group values, or its one value as an array of one."""
    return np.asarray(r.per_group if r.per_group is not None else [r.value], dtype=np.float64)


def group_whys(report: Report) -> dict[str, dict]:
    """``{label: {group key: reason}}`` of a grouped report's NaN groups that have a reason of their own
    (:func:`group_reasons`): what a backend that finishes groups part by part keeps beside their
    values, for :func:`attach_whys`.
    """
    out: dict[str, dict] = {}
    for label, r in report.results.items():
        if r.undefined_groups_why and len(r.undefined_groups_why) == len(r.undefined):
            said = {k: why for k, why in zip(r.undefined, r.undefined_groups_why, strict=True) if why}
            if said:
                out[label] = said
    return out


def attach_whys(
    results: dict[str, MeasureResult], specs: list[MeasureSpec], whys: Mapping[str, dict]
) -> None:
    """The reasons of NaN groups kept part by part (:func:`group_whys`, merged) set on the joined
    results, as :func:`finish` sets them in memory (the binary measures, the group AUCs and the
    regression measures: :func:`perfeval.engine.regression.finish_regression`).
    """
    for s in specs:
        r = results.get(s.label)
        if r is not None and r.undefined and s.measure.kind in ("binary", "grouped", "regression"):
            said = whys.get(s.label, {})
            r.undefined_groups_why = [said.get(k) for k in r.undefined]


def grouped_report(
    specs: list[MeasureSpec],
    keys: np.ndarray,
    sizes: np.ndarray,
    values: dict[str, np.ndarray],
    *,
    threshold: float,
    rows: int,
    weighted: bool,
    backend: str,
    whys: Mapping[str, dict] | None = None,
    **params: Any,
) -> Report:
    """The Report of per-group values computed elsewhere (spilled parts, Dask partitions), keys sorted:
    the same results, warnings and parameters as :func:`finish` gives in memory (``whys``: the
    reasons of the NaN groups, :func:`group_whys` of each part merged).
    """
    one_score_a_case(specs)
    results = {
        s.label: MeasureResult.of(s, np.asarray(values[s.label], dtype=np.float64), sizes, keys, True)
        for s in specs
    }
    if whys is not None:
        attach_whys(results, specs, whys)
    warn_undefined(results, specs)
    report = Report(
        results,
        keys,
        {
            "threshold": threshold,
            "rows": int(rows),
            "groups": int(len(keys)),
            "weighted": weighted,
            "partitions": None,
            "ties": TIES,
            "pos_label": None,  # the backends that build summaries elsewhere take 0/1 targets
            "backend": backend,
            **params,
        },
    )
    report.group_sizes = sizes
    return report


#: a summary of this many cells or more has its measures finished on two threads (binary_values)
PARALLEL_CELLS = 1 << 20


def binary_values(specs: list[MeasureSpec], h: ScoreHistogram, suffix: str, results: dict) -> None:
    """Finish every binary measure from one summary (in memory, streamed or distributed alike).

    Several measures over a large summary run on two threads: each is a compiled pass or numpy over
    the summary's arrays, which release the GIL, and none writes what another reads (the summary's
    arrays are made first; its memo of shared sums is a dict, whose item assignment is atomic).
    Each measure is computed as alone, so the numbers do not depend on the threads.
    """
    overflow = _weights_overflow(h)
    split = h.split()
    cells = len(h.scores) if split is None else len(split[0]) + len(split[1])  # at most, when split
    if len(specs) >= 4 and cells >= PARALLEL_CELLS:
        from concurrent.futures import ThreadPoolExecutor

        h.scores  # noqa: B018  (made once, before the threads read it)
        # the thresholds the command or the engine added (companions) after the values they go with:
        # each reads its value's choice of point, kept with the summary, instead of making it again
        main = [s for s in specs if not s.companion]
        with ThreadPoolExecutor(2, thread_name_prefix="perfeval-measure") as pool:
            found = dict(zip(main, pool.map(lambda s: s(h), main), strict=True))
        values = [found[s] if s in found else s(h) for s in specs]
    elif overflow is not None:  # inf / inf: said below, as the reason of each NaN, not as numpy's warning
        with np.errstate(over="ignore", invalid="ignore"):
            values = [s(h) for s in specs]
    else:
        values = [s(h) for s in specs]
    for s, v in zip(specs, values, strict=True):
        results[s.label + suffix] = MeasureResult.single(s, float(v))
        if math.isnan(float(v)):  # why, from the summary: only for a NaN, so a value costs nothing more
            from perfeval.measures.reasons import why_nan  # here: a value loads nothing more

            results[s.label + suffix].why = overflow or why_nan(
                s.measure.name, s.measure.edge_cases, h, {**s.measure.defaults(), **s.kwargs}
            )


def _weights_overflow(h: ScoreHistogram) -> str | None:
    """Weights too large for double precision: an error when the classes' totals overflow (every
    measure reads them); when only their product does (the measures that count pairs of a positive
    and a negative), why those measures are NaN; else None.  A check of two totals, not of the rows.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        pos, neg = h.n_pos, h.n_neg
        total = pos + neg
    if not (math.isfinite(pos) and math.isfinite(neg) and math.isfinite(total)):
        raise InvalidDataError(
            "the weights overflow double precision: their sum is inf (the positives' total "
            f"{pos:g}, the negatives' {neg:g}); scale them down"
        )
    if pos > 0 and neg > 0 and math.isinf(pos * neg):
        return (
            "the weights overflow double precision: the product of the positives' and the negatives' "
            f"total weights ({pos:g} x {neg:g}) is inf; scale them down"
        )
    return None


def binary_report(
    specs: list[MeasureSpec],
    h: ScoreHistogram,
    *,
    rows: int,
    threshold: float,
    weighted: bool,
    backend: str = "stream",
) -> Report:
    """The Report of binary measures finished from a summary built elsewhere (a stream, a cluster)."""
    one_score_a_case(specs)
    pairs, twins = threshold_companions(specs)  # each operating point's threshold beside its value
    specs = specs + twins
    results: dict[str, MeasureResult] = {}
    binary_values(specs, h, "", results)
    warn_undefined(results, specs)
    report = Report(
        results,
        None,
        {
            "threshold": threshold,
            "rows": int(rows),
            "groups": None,
            "weighted": weighted,
            "partitions": None,
            "ties": TIES,
            "pos_label": None,  # the label coded positive (None: not named), as evaluate() says it
            "backend": backend,
        },
    )
    report.summary = h  # the merged summary: intervals can be drawn from it (perfeval.stats.ci_from_summary)
    return with_thresholds(report, pairs)


def warn_undefined(
    results: dict[str, MeasureResult], specs: list[MeasureSpec], classes: Sequence[Any] | None = None
) -> None:
    """An UndefinedMeasureWarning for the measures undefined overall (one each, with their edge
    cases), and one for each set of groups where some measures are undefined (the measures named
    together: a one-class group leaves GAUC, ROC, APR, ... undefined at once).  K classes (labels)
    per group (``classes`` named): one for the classes some groups' values leave out of their
    averages, and one for the groups whose samples averages leave rows out.
    """
    companions = {s.label for s in specs if s.companion}  # said by the value they go with
    if companions:
        results = {k: r for k, r in results.items() if k.split("[")[0] not in companions}
    edge = {s.label: s.measure.edge_cases for s in specs}
    by_groups: dict[tuple, list[str]] = {}
    by_why: dict[str, list[str]] = {}  # the measures undefined for one reason: named together, once
    for label, r in results.items():
        if r.per_group is not None and r.undefined:
            keys, whys = undefined_groups(r)  # the measures undefined in the same groups, said together
            by_groups.setdefault((tuple(keys), whys, len(r.per_group)), []).append(label)
        elif r.per_group is None and isinstance(r.value, float) and math.isnan(r.value):
            if r.why:
                by_why.setdefault(r.why, []).append(label)
            else:
                why = edge.get(label.split("[")[0], "")
                warn(UndefinedMeasureWarning(f"{label} is undefined for this data. Edge cases: {why}"))
    for why, labels in by_why.items():
        named = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
        verb = "is" if len(labels) == 1 else "are"
        warn(UndefinedMeasureWarning(f"{named} {verb} undefined for this data: {why}"))
    by_classes: dict[tuple, list[str]] = {}
    for label, r in results.items():
        if r.classes and r.undefined_classes and not math.isnan(r.value):
            said = tuple(map(repr, r.undefined_classes))
            if len(r.undefined_why) == len(said) and all(r.undefined_why):  # why each, from the summary
                said = tuple(f"{c}: {why}" for c, why in zip(said, r.undefined_why, strict=True))
            by_classes.setdefault((said, len(r.classes)), []).append(label)
        if r.note:
            warn(UndefinedMeasureWarning(f"{label}: {r.note}"))
    kinds = {s.label: s.measure.kind for s in specs}
    for (keys, total), labels in by_classes.items():
        explained = all(": " in k for k in keys)
        shown = ("; " if explained else ", ").join(keys[:5]) + (", ..." if len(keys) > 5 else "")
        named = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
        verb, its = ("is", "its") if len(labels) == 1 else ("are", "their")
        what, why = (
            ("labels", "on in no row, or never predicted on")
            if kinds.get(labels[0]) == "multilabel"
            else ("classes", "absent from the targets, or never predicted")
        )
        if not explained:
            shown = f"{shown}: {why}"
        warn(
            UndefinedMeasureWarning(
                f"{named} {verb} undefined for {len(keys)} of {total} {what} ({shown}); they are "
                f"left out of {its} means and listed in the report"
            )
        )
    _warn_left_per_group(results, kinds, classes)
    _warn_groups(by_groups)


def _warn_groups(by_groups: dict[tuple, list[str]]) -> None:
    """One UndefinedMeasureWarning for each set of groups where some measures are undefined, with
    each group's own reason where every group has one (:func:`group_reasons`).
    """
    for (keys, whys, total), labels in by_groups.items():
        named = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
        verb, its = ("is", "its") if len(labels) == 1 else ("are", "their")
        warn(
            UndefinedMeasureWarning(
                f"{named} {verb} undefined for {len(keys)} of {total} groups ({groups_said(keys, whys)}); "
                f"they are left out of {its} means and listed in the report"
                + ("" if whys else " (`perfeval list-measures --long` says when a measure is undefined)")
            )
        )


def _warn_left_per_group(
    results: dict[str, MeasureResult], kinds: dict, classes: Sequence[Any] | None
) -> None:
    """K classes (labels) per group: an UndefinedMeasureWarning for the classes some groups' values
    leave out of their averages, and one for the groups whose samples averages leave rows out (the
    measures that leave out the same named together).
    """
    by_left: dict[tuple[tuple[tuple[str, int], ...], int], list[str]] = {}
    noted: dict[tuple, list[str]] = {}
    for label, r in results.items():
        left = r.left_out_per_group
        if left is not None and left.any() and classes is not None:
            names = [repr(c.item() if isinstance(c, np.generic) else c) for c in classes]
            counts = left.sum(axis=0).tolist()
            which = tuple((names[j], int(n)) for j, n in enumerate(counts) if n)
            by_left.setdefault((which, len(left)), []).append(label)
        if r.noted_per_group is not None and r.noted_per_group.any():
            noted.setdefault((int(r.noted_per_group.sum()), len(r.noted_per_group)), []).append(label)
    for (counts, total), labels in by_left.items():
        named = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
        what, why = (
            ("label", "on in no row of the group, or in every row")
            if kinds.get(labels[0]) == "multilabel"
            else ("class", "absent from the group's targets, or every case of the group of that class")
        )
        shown = ", ".join(f"{c} in {n}" for c, n in counts[:5])
        more = ", ..." if len(counts) > 5 else ""
        warn(
            UndefinedMeasureWarning(
                f"{named} {'leaves' if len(labels) == 1 else 'leave'} a {what} out of a group's average "
                f"where it is undefined ({why}): {shown}{more} of {total} groups; each group's are "
                "listed in the report (per_group_undefined_classes)"
            )
        )
    for (n, total), labels in noted.items():
        named = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
        warn(
            UndefinedMeasureWarning(
                f"{named}: in {n} of {total} groups, rows that are 0/0 are left out of the group's samples "
                "average (scikit-learn counts them as zero_division); those groups are listed in the report "
                "(per_group_rows_left_out)"
            )
        )


def safe(spec: MeasureSpec, h: ScoreHistogram) -> float:
    v = spec(h)
    return float(v) if v is not None else math.nan


def each_summary(spec: MeasureSpec, hists: Sequence[ScoreHistogram]) -> np.ndarray:
    """``safe(spec, h)`` for every summary of ``hists`` (canonical, as :func:`grouped_histograms`
    makes them): the measure's function called on each, its parameters checked once.
    """
    if not hists:
        return np.zeros(0)
    safe(spec, hists[0])  # the parameters checked as spec(h) checks them (one line if wrong)
    fn, kw = spec.measure.function(), {**spec.measure.defaults(), **spec.kwargs}
    out = np.empty(len(hists))
    for i, h in enumerate(hists):
        v = fn(h, **kw)
        out[i] = math.nan if v is None else float(v)
    return out


def grouped_histograms(
    y: np.ndarray, s: np.ndarray, w: np.ndarray | None, codes: np.ndarray, q: int
) -> list[ScoreHistogram]:
    """One ScoreHistogram per group: views into one array sorted by (group, score), without empty
    cells (weight 0) and knowing whether its weights are whole (both found for every group at
    once: each group's summary is then what :meth:`ScoreHistogram.canonical` would make of it).
    """
    order = lexsorted((s, codes))  # np.lexsort's permutation, sooner
    c, sc, yy = codes[order], s[order] + 0.0, y[order]
    ww = np.ones(len(s)) if w is None else w[order]
    new = np.ones(len(sc), dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (sc[1:] != sc[:-1])
    starts = np.flatnonzero(new)
    pos = np.add.reduceat(ww * yy, starts) if len(starts) else np.zeros(0)
    neg = np.add.reduceat(ww * (1 - yy), starts) if len(starts) else np.zeros(0)
    scores, gcodes = sc[starts], c[starts]
    keep = (pos != 0) | (neg != 0)
    if not keep.all():
        scores, gcodes, pos, neg = scores[keep], gcodes[keep], pos[keep], neg[keep]
    bounds = np.searchsorted(gcodes, np.arange(q + 1))
    whole = (pos == np.round(pos)) & (neg == np.round(neg))
    counts = np.bincount(gcodes[~whole], minlength=q) == 0
    return [
        ScoreHistogram.of_cells(scores[a:b], pos[a:b], neg[a:b], is_counts=bool(k))
        for a, b, k in zip(bounds[:-1], bounds[1:], counts, strict=True)
    ]


# -- an operating point's threshold beside its value ---------------------------------------------------
# Each measure that picks an operating point (its ``of`` parameter at ``value``: TPR_AT_FPR, YOUDEN,
# ...) is finished with its ``of=threshold`` twin, and the twin's result is set on the value's
# (``MeasureResult.threshold``, per group ``threshold_per_group``), then taken out of the report unless
# it was asked.  The value and its twin read one choice of point (perfeval.measures.operating keeps the
# choice with the summary, or with the groups), so the threshold costs a lookup, not a second choice.
# Every front door that finishes from the engine does this: evaluate() in memory (finish), the streamed
# and Dask summaries (binary_report), Metric, the grouped streams and Dask's groups (at their doors),
# and the eval command.  (Here, not in a module of its own: evaluate() of one measure loads few modules,
# tests/test_registry_cli.py.)

#: (the value's label, its twin's label, whether the twin was added: not asked)
Pair = tuple[str, str, bool]


def threshold_companions(specs: list[MeasureSpec]) -> tuple[list[Pair], list[MeasureSpec]]:
    """For each binary measure of ``specs`` that picks an operating point (its ``of`` parameter at
    ``value``), the same measure with ``of=threshold``: (the pairs (value label, threshold label,
    added), the specs added: those not asked already, marked ``companion``).
    """
    asked = {s.label for s in specs}
    pairs, added = [], []
    for s in specs:
        if s.measure.kind != "binary" or s.kwargs.get("of") != "value":
            continue
        twin = MeasureSpec(s.measure, tuple({**s.kwargs, "of": "threshold"}.items()))
        object.__setattr__(twin, "_set", s._set | {"of"})
        object.__setattr__(twin, "companion", True)
        pairs.append((s.label, twin.label, twin.label not in asked))
        if twin.label not in asked:
            added.append(twin)
            asked.add(twin.label)
    return pairs, added


def with_thresholds(report: Any, pairs: list[Pair]) -> Any:
    """Each operating point's threshold set on its value's result (``threshold``; per group
    ``threshold_per_group``, the headline's ``threshold`` left None: the groups' points differ), the
    twins added by :func:`threshold_companions` taken out of the report (partitions too:
    ``LABEL[name]``).  Returns the report.
    """
    for value, twin, added in pairs:
        for key in [k for k in report.results if k == twin or k.startswith(twin + "[")]:
            r = report.results.pop(key) if added else report.results[key]
            v = report.results.get(value + key[len(twin) :])
            if v is None:
                continue
            if r.per_group is not None:
                v.threshold_per_group = r.per_group
            else:
                v.threshold = r.value
        if added and report.intervals:  # drawn for the twin too: not asked, not shown
            for key in [k for k in report.intervals if k == twin or k.startswith(twin + "[")]:
                del report.intervals[key]
    return report
