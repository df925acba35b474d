"""``evaluate``: the in-memory front door.  Many measures at once, over the whole data or per group,
into a :class:`Report`.

It takes arrays or a table's columns, sends a Dask collection to the Dask backend, checks the
input and codes its targets once (:mod:`perfeval.engine.door`: check -> code) and finishes every measure
in the engine (:mod:`perfeval.engine`), which the streaming and Dask backends share.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from perfeval import _native
from perfeval.base.checks import (
    Cases,
    check_options,
    column,
    deprecated_weights,
    grades_as_labels,
    is_dask,
    say_zero_weight_groups,
    table_names,
    to_numpy,
)
from perfeval.engine import DEFAULT_MEASURES, finish, resolve
from perfeval.engine.door import check, code
from perfeval.engine.report import Report
from perfeval.exceptions import GradesAsLabelsWarning, InvalidParameterError, user_stacklevel
from perfeval.measures import MeasureSpec

# The Dask backend, the dialects and the slices' door (api/slices.py) are imported where they are
# asked for: evaluate() of a measure loads none of them (tests/test_registry_cli.py counts the modules
# it loads).

if TYPE_CHECKING:
    from perfeval.api.slices import SliceRequest

__all__ = ["evaluate", "DEFAULT_MEASURES"]


def evaluate(
    y_true: Any,
    y_score: Any = None,
    *,
    measures: Iterable[str | MeasureSpec] | str = DEFAULT_MEASURES,
    groups: Any = None,
    sample_weight: Any = None,
    threshold: float = 0.5,
    partitions: Mapping[str, Sequence[Any]] | None = None,
    target: str | None = None,
    score: str | None = None,
    group: str | None = None,
    weight: str | None = None,
    pos_label: Any = None,
    weights: Any = None,
    tie_bounds: bool = False,
    dialect: str = "perfeval",
    ids: Any = None,
    id: str | None = None,
    classes: Sequence[Any] | None = None,
    case: str | None = None,
    class_column: str | None = None,
    task: str | None = None,
    by: Any = None,
    intersections: bool = False,
    min_size: int | None = None,
    missing: str = "error",
) -> Report:
    """Compute measures, over all cases or per group, and per slice.

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
        report (``perfeval.api.evaluation.DEFAULT_MEASURES``).
    groups : array-like, optional
        Group (query, block, user) of each case. Every measure is then computed per group; the
        report gives the mean over groups, the mean weighted by group size, the per-group values
        and the groups where the measure is undefined (left out of the means).
    sample_weight : array-like of float, optional
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
        The positive label of ``y_true`` for the binary measures and GAUC (``"yes"``, ``True``,
        ``2``): it is 1, every other label 0 (the per-query measures, NDCG, MAP, ..., read the
        targets as graded relevance: pass ``np.asarray(y_true) == label`` for them).  Without it
        the targets must be 0/1, -1/1 (1 positive) or booleans; any other coding is an error that
        lists the labels found (nothing is guessed).  A Dask collection takes it too.
    target, score, group, weight : str, optional
        Column names, when ``y_true`` is a table (a pandas, polars or Dask DataFrame, a pyarrow
        Table): ``evaluate(df, target="click", score="ctr", group="user")``.  A Dask DataFrame (or
        two Dask arrays) is evaluated on the cluster (:mod:`perfeval.backends.dask`).

    tie_bounds : bool, default False
        Also give each measure's least and greatest value over every order of the tied cases
        (``result.tie_min``, ``result.tie_max``, per group too; exact, not sampled) and the share of
        the comparable pairs whose scores are tied (``report.tied_pairs``, ``result.tied_pairs``):
        whether ties can move a ranking.  Each measure's registry entry says how its bound is
        found (``Measure.tie_bounds``); CA2 has none (NaN, ``result.tie_note`` says why).  In memory
        only (not with a Dask collection).  K classes or K labels: per class or label too
        (``result.tie_min_per_class``); with ``groups``, each group's own bounds and, as the
        headline, their mean as the value's (``result.tie_min_per_group``).
    dialect : str, default "perfeval"
        Compute each measure as another tool does (:mod:`perfeval.dialects`; docs/dialects.md):
        ``"sklearn"``, ``"trec_eval"``, ``"ranx"``, ``"torchmetrics"``, ``"spark"``, ``"keras"``,
        ``"din"``, with the tool's options after colons (``"keras:num_thresholds=1000"``,
        ``"spark:numBins=100"``, ``"torchmetrics:thresholds=200"``).  A measure the tool does not
        define is an error that names the dialects that do.  Not with ``tie_bounds``, ``partitions``
        or a Dask collection.
    ids, id : array-like or str, optional
        Document ids for the dialects that break ties by them (``trec_eval``: by id, descending):
        ``ids`` the ids themselves, one per row; ``id`` the name of a table's column of them (with
        ``target=``/``score=``).  A name given to ``ids`` is an error naming ``id=``, as
        ``sample_weight=`` and ``groups=`` name ``weight=`` and ``group=``.  Under a dialect that
        reads no ids (perfeval's own, whose measures take every order of a tie, or another tool's
        order) either is an error that says so, never dropped: as :meth:`perfeval.Metric.update`.
    classes : sequence of labels, optional
        Multiclass: the labels of ``y_score``'s columns, in order, when ``y_score`` is an (n, K)
        matrix (one score column a class, as ``predict_proba`` gives).  Without it: the column names
        of a score table (``score=["cat", "dog", "bird"]``, or a DataFrame of ``predict_proba``
        with ``columns=model.classes_``), else the sorted distinct labels of ``y_true`` when there
        are exactly K of them (scikit-learn's ``classes_``); anything else is an error (a class absent
        from the targets cannot be guessed).  The measures are then the multiclass ones
        (docs/measures.md, "Multiclass"): a binary name with a multiclass form means it, its average
        in its label (``roc`` is ``ROC_OVR:average=macro``); by default ROC_OVR, ROC_OVO, AP_OVR,
        LOGLOSS_MC, BRIER_MC, ACC_MC, BACC, F_MC, MCC and KAPPA.  Each averaged measure's result holds
        the value of each class (``result.per_class``) and the classes where it is undefined
        (``result.undefined_classes``, left out of the means).  A two-column score matrix is read as
        two classes only with ``classes=`` (else it is taken for a binary model's predict_proba).
    case, class_column : str, optional
        Multiclass in long form, a row a case and class (as ``perfeval eval --long --id CASE --class
        CLASS``): the table's case id column and class column, with ``score=`` the one score column
        (the row's class's score) and ``target=`` either the case's true class on each of its rows or
        a 0/1 (or true/false) marker, 1 on the row of the true class (exactly one a case); which one
        was read is ``report.params["target_form"]``.  The classes are ``classes=``, else the class
        column's distinct values, sorted.  The table is pivoted to a row a case (in the order the
        cases first appear) and evaluated as the wide form is: the same numbers, bit for bit.
        Every case must hold every class exactly once, and its ``group=`` and ``weight=`` must be the
        same on each of its rows; anything else is one line naming the case and the rows.
    task : {None, "binary", "regression"}, optional
        ``"regression"``: ``y_true`` is a real target and ``y_score`` a prediction (docs/input.md,
        "Regression"); by default ``mae``, ``mse``, ``rmse``, ``r2`` and ``explained_variance``
        (MAE, MSE_REG, RMSE_REG, R2, EXPVAR).  Without it (None) a target is a regression target
        when a regression measure is named, or when no measure is named (or only ``rmse``/``mse``),
        no ``pos_label``, and the target holds real values or many whole numbers; the report says
        so (``report.params["task"] == "regression"``, ``report.params["task_from"]``).
        ``"binary"``: never regression.
    by : str, list, dict or DataFrame, optional
        Slices (docs/slices.md): every measure per value of each column named (a table's column
        names: ``by=["country", "device"]``; arrays: ``by={"country": values, ...}``, or a DataFrame of
        the columns), a tuple in the list naming an intersection (``("country", "device")``): the
        report's values stay the overall ones, and ``report.slices``
        (:class:`~perfeval.api.slices.Slices`) holds each slice's rows, positives, negatives, values and
        why a value is undefined, with fairlearn's ``by_group``, ``difference``, ``ratio``,
        ``group_min``, ``group_max`` and the worst slice.  A slice is a value (strings, integers,
        booleans, a categorical's categories; a float column of whole numbers is read as integers, a
        fractional one refused).  Every kind of target the grouped engine takes (binary, per query with
        ``groups=``, K classes, K labels, regression).  In memory, or on a Dask DataFrame (``by`` its
        columns' names: the same slices, bit for bit); not with a dialect, ``tie_bounds`` or the long
        form.
    intersections : bool, default False
        With ``by``: also every intersection of 2 to all of its single columns.
    min_size : int, optional
        With ``by``: flag the slices with fewer cases (rows of weight > 0) than this
        (``flagged`` in ``report.slices.frame()``).
    missing : {"error", "slice"}, default "error"
        With ``by``: a missing value (None, NaN, NA) in a slice column is an error naming the column and
        the row; ``"slice"`` makes those rows a slice of their own, ``"<missing>"``.
    weights : array-like of float, optional
        Deprecated spelling of ``sample_weight`` (scikit-learn's name, used everywhere in
        perfeval); accepted with a DeprecationWarning for one release.

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
    >>> r = evaluate([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1], measures=["roc"], tie_bounds=True)
    >>> r.results["ROC"].tie_min, r.results["ROC"].tie_max, r.tied_pairs   # 1 of 4 pairs tied
    (0.75, 1.0, 0.25)

    Three classes in long form, a row a case and class (``is_true`` marks the true class's row):

    >>> import pandas as pd
    >>> long = pd.DataFrame({"case": [7, 7, 7, 8, 8, 8], "cls": ["cat", "dog", "bird"] * 2,
    ...                      "p": [0.7, 0.2, 0.1, 0.3, 0.3, 0.4], "is_true": [1, 0, 0, 0, 1, 0]})
    >>> r = evaluate(long, target="is_true", score="p", case="case", class_column="cls",
    ...              classes=["cat", "dog", "bird"], measures=["acc_mc", "roc_ovr"])
    >>> r["ACC_MC"], r["ROC_OVR:average=macro"], r.params["target_form"]
    (0.5, 1.0, '0/1 marker: 1 on the row of the true class')
    """
    wname = "sample_weight" if weights is None else "weights"  # as typed, for the messages
    sample_weight = deprecated_weights(sample_weight, weights, "evaluate")
    check_options(threshold=threshold, tie_bounds=tie_bounds, partitions=partitions)
    modern = str(dialect).split(":")[0].strip().lower() in ("perfeval", "")
    _not_by(by, tie_bounds, modern, (case, class_column) != (None, None))
    if by is None and (intersections is not False or min_size is not None or missing != "error"):
        from perfeval.engine.slice_report import needs_by

        needs_by(intersections, min_size, missing)  # said, not dropped (as the backends say them)
    cluster = is_dask(y_true) or type(y_true).__module__.startswith("pyspark.sql")
    ids = _ids_read(ids, cluster)
    _ids_unread(dialect, ids, id)
    if not modern and (tie_bounds or partitions or cluster):
        frame = "a Dask collection" if is_dask(y_true) else "a Spark DataFrame"
        what = "tie_bounds" if tie_bounds else ("partitions" if partitions else frame)
        raise InvalidParameterError(
            f"dialect={dialect!r}: not with {what} (tie bounds are over every order, whatever the tool)"
        )
    if cluster:  # a Dask collection or a Spark DataFrame: evaluated where its partitions lie
        named: dict[str, Any] = {"target": target, "score": score, "group": group, "weight": weight}
        named.update(measures=measures, threshold=threshold, pos_label=pos_label, classes=classes)
        sliced = {"by": by, "intersections": intersections, "min_size": min_size, "missing": missing}
        rest = (tie_bounds, partitions, groups, sample_weight, case, class_column, task)
        return _on_cluster(y_true, y_score, named, sliced, rest)
    if (case, class_column) != (None, None):  # the long form: a row a case and class
        return _evaluate_long(
            y_true,
            y_score,
            measures,
            target=target,
            score=score,
            group=group,
            weight=weight,
            case=case,
            class_column=class_column,
            classes=classes,
            threshold=threshold,
            partitions=partitions,
            pos_label=pos_label,
            tie_bounds=tie_bounds,
            dialect=dialect,
            arrays=groups is not None or sample_weight is not None,
        )
    names = None  # the score columns' names, when they name the classes
    table = None
    _no_columns_without_table(target is not None or score is not None, group=group, weight=weight, id=id)
    if target is not None or score is not None:
        if y_score is not None:
            raise InvalidParameterError("pass either a table with `target=`/`score=` names, or two arrays")
        table = y_true
        y_true, y_score, names = _table_columns(table, target, score)
        groups = column(table, group) if group is not None else groups
        sample_weight = column(table, weight) if weight is not None else sample_weight
        ids = column(table, id) if id is not None else ids
    slices = _slice_request(
        by,
        table,
        {"target": target, "score": score, "weight": weight}
        if table is not None
        else {"target": y_true, "score": y_score, "weight": sample_weight},
        sample_weight,
        intersections=intersections,
        min_size=min_size,
        missing=missing,
    )
    if y_score is None:
        raise InvalidParameterError("`y_score` is required (or a table with `target=` and `score=`)")
    if names is None and classes is None and hasattr(y_score, "columns") and hasattr(y_score, "shape"):
        if len(getattr(y_score, "shape", ())) == 2 and y_score.shape[1] >= 3:
            names = [str(c) for c in y_score.columns]  # predict_proba's DataFrame, columns=classes_
    regression = _regression_door(
        y_true,
        y_score,
        groups,
        sample_weight,
        measures,
        classes,
        names,
        task,
        pos_label,
        partitions,
        dialect,
        tie_bounds,
        slices,
        wname,
    )
    if regression is not None:
        return regression
    if classes is not None and not _is_label_matrix(y_true):
        y_score = _by_class(y_score, classes)
    if _is_label_matrix(y_true):
        return _evaluate_labels(
            y_true,
            y_score,
            groups,
            sample_weight,
            measures,
            classes,
            names,
            threshold=threshold,
            partitions=partitions,
            pos_label=pos_label,
            tie_bounds=tie_bounds,
            dialect=dialect,
            slices=slices,
            weight_name=wname,
        )
    if _is_matrix(y_score, classes is not None or names is not None):
        return _evaluate_classes(
            y_true,
            y_score,
            groups,
            sample_weight,
            measures,
            classes,
            names,
            threshold=threshold,
            partitions=partitions,
            pos_label=pos_label,
            tie_bounds=tie_bounds,
            dialect=dialect,
            slices=slices,
            weight_name=wname,
        )

    def checked(keep_zero: bool) -> Cases:  # the check stage
        return check(y_true, y_score, groups, sample_weight, keep_zero=keep_zero, weight_name=wname)

    return evaluate_cases(
        checked,
        measures,
        threshold=threshold,
        partitions=partitions,
        pos_label=pos_label,
        tie_bounds=tie_bounds,
        dialect=dialect,
        ids=ids,
        slices=slices,
    )


def _ids_read(ids: Any, cluster: bool) -> Any:
    """``ids=``, the document ids themselves, read as ``groups=`` and ``sample_weight=`` are
    (:func:`~perfeval.base.checks.to_numpy`): a column's name (``ids="doc"``) is refused in one line
    naming ``id=``, the keyword that takes it, whether or not the dialect reads ids (else dropped
    without a word).  A cluster's collection is left as it is (only a dialect reads ids, and none
    runs there).
    """
    if ids is None or (cluster and not isinstance(ids, str)):
        return ids
    return to_numpy(ids, "ids")


def _ids_unread(dialect: str, ids: Any, id: str | None) -> None:
    """Document ids (``ids=`` or ``id=``) given to a dialect that does not read them (perfeval's own,
    whose measures take every order of a tie, or a tool that orders ties otherwise): refused in one
    line, on every path (arrays, a table, K classes, the long form, a Dask collection, a Spark
    DataFrame), as :meth:`perfeval.Metric.update` refuses them; never dropped without a word.
    """
    if ids is None and not isinstance(id, str):  # id= not a name: _no_columns_without_table says it
        return
    from perfeval.dialects.apply import ids_not_read

    given = "ids=" if ids is not None else f"id={id!r}"
    e = ids_not_read(str(dialect), given, "pass dialect='trec_eval'")
    if e is not None:
        raise e


def _no_columns_without_table(table: bool, **named: Any) -> None:
    """A column keyword (``group=``, ``weight=``, ``id=``) given without a table's target=/score=
    (``table`` False): refused, naming the keyword that takes the values (else dropped without a
    word: the numbers of unweighted, ungrouped cases).
    """
    for k, v in named.items():
        if v is not None and not table:
            arrays = {"group": "groups", "weight": "sample_weight", "id": "ids"}[k]
            given = repr(v) if isinstance(v, str) else f"a {type(v).__name__}"
            raise InvalidParameterError(
                f"`{k}=` names a column of a table given with target=/score= (here {given}, without "
                f"them); with arrays, pass the values as {arrays}="
            )


_F = TypeVar("_F", bound=Callable[..., Any])


def _hands_back_scratch(fn: _F) -> _F:
    """``fn`` that hands back, whatever way it returns, the kernels' scratch kept between their
    calls (the group kernels' sort records: huge pages, see csrc/buffers.c), but for RETAIN bytes
    (64 MiB) kept for the next evaluation: its pages mapped already (a fresh page costs a fault and
    its zeroing: a third of the per-group histograms' time over 1M rows), and no more than that left
    behind (a dialect's evaluation too: its tool's kernels keep their scratch as ours do).
    """

    @functools.wraps(fn)
    def handing_back(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        finally:
            _native.release_cache(_native.RETAIN)

    return cast(_F, handing_back)


@_hands_back_scratch
def evaluate_cases(
    cases_of: Callable[[bool], Cases],
    measures: Iterable[str | MeasureSpec] | str = DEFAULT_MEASURES,
    *,
    threshold: float = 0.5,
    partitions: Mapping[str, Sequence[Any]] | None = None,
    pos_label: Any = None,
    tie_bounds: bool = False,
    dialect: str = "perfeval",
    ids: Any = None,
    slices: SliceRequest | None = None,
) -> Report:
    """:func:`evaluate` once its arrays are found (options checked by :func:`check_options`): the
    measures resolved, then the stages, check (``cases_of(keep_zero)``: the cases checked; the
    cases of weight 0 kept when ``keep_zero``, for a dialect's tool that counts their scores), code
    (:func:`perfeval.engine.door.code`, unless ``cases_of`` attached a coding of its own, as the command's
    loader does, its messages naming the file's lines) and summarize (:func:`perfeval.engine.finish`,
    or the dialect's tool's rules).  ``slices``: every slicing of ``by=`` finished from the same cases
    (:mod:`perfeval.api.slices`).  Arguments as for :func:`evaluate`.
    """
    if str(dialect).split(":")[0].strip().lower() not in ("perfeval", ""):
        from perfeval.dialects.apply import evaluate_dialect, parse_dialect

        _not_by(slices, False, False, False)

        d, _opts = parse_dialect(dialect)
        if measures is DEFAULT_MEASURES:  # every measure the tool defines
            measures = list(d.policies)
        specs = resolve(measures, threshold, trec=d.name == "trec_eval")
        checked = cases_of(False)
        say_zero_weight_groups(checked.zero_groups)
        raw = None
        if checked.w is not None and len(checked.s) < checked.rows_in:  # cases of weight 0
            raw = cases_of(True)
        return evaluate_dialect(
            checked, specs, dialect, threshold=threshold, pos_label=pos_label, ids=ids, raw=raw
        )
    specs = resolve(measures, threshold)
    checked = cases_of(False)
    say_zero_weight_groups(checked.zero_groups)
    if checked.targets is None:  # the code stage, unless the caller coded them
        code(checked, pos_label, keep=tie_bounds)
    if pos_label is None and not partitions:
        _say_grades_as_labels(checked.y, specs)
    ordered = None
    if slices is not None and not tie_bounds:
        from perfeval.engine.slices import Task

        task = Task("binary", tuple(specs), threshold, pos_label, partitions)
        # the rows in score order once, for the overall summary and every slicing (unweighted,
        # without queries: the same bits as in the order given)
        ordered = slices.in_score_order(checked, task)
    report = finish(
        checked if ordered is None else ordered[0],
        specs,
        threshold=threshold,
        partitions=partitions,
        pos_label=pos_label,
        tie_bounds=tie_bounds,
    )
    if slices is not None:
        from perfeval.engine.slices import Task

        task = Task("binary", tuple(specs), threshold, pos_label, partitions)
        slices.attach(report, checked, task, ordered)
    return report


def _table_columns(table: Any, target: Any, score: Any) -> tuple[Any, Any, list[str] | None]:
    """The targets, the scores and the names of the score columns (when they name the classes or
    labels) of a table's ``target=`` and ``score=`` columns.
    """
    if target is None or score is None:
        raise InvalidParameterError("a table needs both `target=` and `score=` column names")
    if isinstance(target, (list, tuple)):  # K labels: a 0/1 target column and a score column a label
        return _label_columns(table, list(target), score)
    if isinstance(score, (list, tuple)):  # one score column a class
        return column(table, target), _score_columns(table, list(score)), [str(c) for c in score]
    return column(table, target), column(table, score), None


def _score_columns(table: Any, names: list[str]) -> Any:
    """The (n, K) matrix of a table's score columns ``names`` (one a class), in that order."""
    import numpy as np

    if len(names) < 2:
        raise InvalidParameterError("`score=` of K classes names K >= 2 columns, one a class")
    _named_once(names, "score")
    cols = [np.asarray(column(table, n)) for n in names]
    return np.column_stack(cols)


def _named_once(names: Any, option: str) -> None:
    """Each column named once by ``option=`` (a column named twice would be scored twice, or
    against two columns).
    """
    seen: set = set()
    for n in names:
        if n in seen:
            raise InvalidParameterError(
                f"`{option}=` names the column {n!r} twice: one column a label or class"
            )
        seen.add(n)


def _label_columns(table: Any, target: list, score: Any) -> tuple[Any, Any, list[str]]:
    """K labels in a table (``target=`` a list: one 0/1 column a label, ``score=`` a list of as many
    score columns, in the same order): the (n, K) target and score matrices, and the labels (the
    target columns' names).
    """
    import numpy as np

    if not isinstance(score, (list, tuple)) or len(score) != len(target):
        raise InvalidParameterError(
            f"`target=` names {len(target)} label columns: `score=` names as many score columns, one a "
            "label in the same order"
        )
    if len(target) < 2:
        raise InvalidParameterError("`target=` of K labels names K >= 2 columns, one a label")
    y = np.column_stack([np.asarray(column(table, n)) for n in target])
    _named_once(target, "target")
    return y, _score_columns(table, list(score)), [str(c) for c in target]


def _is_matrix(y_score: Any, named: bool) -> bool:
    """Whether the scores are one column a class: 2-D with three or more columns, or two when the
    classes are named (two columns alone are a binary model's predict_proba: the door says which
    one to pass).
    """
    shape = getattr(y_score, "shape", None)
    if shape is None:
        if not isinstance(y_score, (list, tuple)) or not y_score or not isinstance(y_score[0], (list, tuple)):
            return False
        shape = (len(y_score), len(y_score[0]))
    if len(shape) != 2 or shape[1] < 2 or (shape[1] == 1):
        return False
    return shape[1] >= 3 or named


def _evaluate_classes(
    y_true: Any,
    y_score: Any,
    groups: Any,
    sample_weight: Any,
    measures: Any,
    classes: Any,
    names: Any,
    *,
    threshold: float,
    partitions: Any,
    pos_label: Any,
    tie_bounds: bool,
    dialect: str,
    labels: tuple | None = None,
    how: str | None = None,
    slices: SliceRequest | None = None,
    weight_name: str = "sample_weight",
) -> Report:
    """evaluate() of K classes: checked and coded at the door (:func:`perfeval.engine.door.check_classes`),
    finished from a ClassSummary (:mod:`perfeval.engine.classes`).  ``weight_name``: the weights'
    keyword as the user typed it.
    """
    from perfeval.engine.classes import class_specs, finish_classes
    from perfeval.engine.door import check_classes

    for what, given in (("partitions", partitions), ("pos_label", pos_label)):
        if given:
            raise InvalidParameterError(
                f"{what}= does not apply to K classes (one score column a class): each class is already "
                "one against the rest"
            )
    modern = str(dialect).split(":")[0].strip().lower() in ("perfeval", "")
    if not modern and tie_bounds:
        raise InvalidParameterError(f"dialect={dialect!r}: not with tie_bounds (they are over every order)")
    default = measures is DEFAULT_MEASURES
    specs = class_specs([] if default else resolve(measures, threshold, pending=True), default=default)
    if not modern:  # each measure's policy checked before the rows are read
        from perfeval.dialects.apply import check_classes_dialect

        check_classes_dialect(specs, dialect, sample_weight is not None)
    cases, found, found_how = check_classes(
        y_true, y_score, groups, sample_weight, classes=classes, names=names, weight_name=weight_name
    )
    if labels is not None:  # the targets are codes already (the long form): the classes are these
        found, found_how = labels, how or found_how
    if not modern:  # another tool's rules (torchmetrics' ECE_TOP: dialects/table.py)
        from perfeval.dialects.apply import evaluate_dialect_classes

        return evaluate_dialect_classes(cases, specs, found, dialect, classes_from=found_how)
    report = finish_classes(cases, specs, found, threshold=threshold, classes_from=found_how)
    if slices is not None:
        from perfeval.engine.slices import Task

        slices.attach(
            report,
            cases,
            Task("classes", tuple(specs), threshold, classes=tuple(found), classes_from=found_how),
        )
    if tie_bounds:  # each measure's range over the orders of the tied scores (engine/class_bounds.py)
        from perfeval.engine.class_bounds import with_tie_bounds

        with_tie_bounds(report, cases, specs)
    return report


def _regression_door(
    y_true: Any,
    y_score: Any,
    groups: Any,
    sample_weight: Any,
    measures: Any,
    classes: Any,
    names: Any,
    task: Any,
    pos_label: Any,
    partitions: Any,
    dialect: str,
    tie_bounds: bool,
    slices: SliceRequest | None = None,
    weight_name: str = "sample_weight",
) -> Report | None:
    """evaluate()'s report of a regression target, or None (whether the targets are one:
    :func:`perfeval.engine.regression.regression_task`).  ``weight_name``: the weights' keyword as
    the user typed it.
    """
    if task is None and pos_label is None and not partitions and _zero_one(y_true):
        named = None if measures is DEFAULT_MEASURES else resolve(measures, 0.5, pending=True)
        if named is None or not any(s.measure.kind == "regression" for s in named):
            return None  # 0/1 targets and no regression measure: binary (engine/regression.py unloaded)
    if classes is None and not _is_label_matrix(y_true) and not _is_matrix(y_score, names is not None):
        from perfeval.engine.regression import regression_task

        how = regression_task(y_true, measures, task=task, pos_label=pos_label, partitions=partitions)
        if how is not None:
            return _evaluate_regression(
                y_true,
                y_score,
                groups,
                sample_weight,
                measures,
                how,
                pos_label,
                partitions,
                dialect,
                tie_bounds,
                slices,
                weight_name,
            )
    elif task == "regression":
        raise InvalidParameterError(
            "task='regression' reads one target and one prediction a row, not a matrix of classes or labels"
        )
    return None


def _zero_one(y_true: Any) -> bool:
    """Whether the targets are numbers 0/1 or booleans (never a regression target unless asked)."""
    import numpy as np

    try:
        y = np.asarray(y_true)
    except Exception:  # the door says what is wrong with them
        return False
    if y.dtype.kind == "b":
        return True
    return y.dtype.kind in "iuf" and bool(np.all((y == 0) | (y == 1)))


def _evaluate_regression(
    y_true: Any,
    y_pred: Any,
    groups: Any,
    sample_weight: Any,
    measures: Any,
    how: str,
    pos_label: Any,
    partitions: Any,
    dialect: str,
    tie_bounds: bool = False,
    slices: SliceRequest | None = None,
    weight_name: str = "sample_weight",
) -> Report:
    """evaluate() of a regression target: checked at the door
    (:func:`perfeval.engine.regression.check_regression`), finished from exact sums
    (:mod:`perfeval.engine.regression`).  ``weight_name``: the weights' keyword as the user typed it.
    """
    from perfeval.engine.regression import check_regression, finish_regression, named_specs, regression_specs

    for what, given in (("partitions", partitions), ("pos_label", pos_label)):
        if given:
            raise InvalidParameterError(f"{what}= does not apply to a regression target ({how})")
    if str(dialect).split(":")[0].strip().lower() not in ("perfeval", ""):
        raise InvalidParameterError(
            f"dialect={dialect!r}: the regression measures have perfeval's rules only"
        )
    specs = regression_specs(named_specs(measures))
    cases = check_regression(y_true, y_pred, groups, sample_weight, weight_name=weight_name)
    say_zero_weight_groups(cases.zero_groups)
    report = finish_regression(cases, specs, task_from=how)
    if slices is not None:
        from perfeval.engine.slices import Task

        slices.attach(report, cases, Task("regression", tuple(specs), task_from=how))
    if tie_bounds:  # order-free: each row is scored by its own prediction
        for r in report.results.values():
            r.tie_min = r.tie_max = r.value
            if r.per_group is not None:
                r.tie_min_per_group = r.tie_max_per_group = r.per_group
    return report


def _evaluate_long(
    table: Any,
    y_score: Any,
    measures: Any,
    *,
    target: Any,
    score: Any,
    group: Any,
    weight: Any,
    case: Any,
    class_column: Any,
    classes: Any,
    threshold: float,
    partitions: Any,
    pos_label: Any,
    tie_bounds: bool,
    dialect: str,
    arrays: bool,
) -> Report:
    """evaluate() of K classes in long form: the table pivoted to a row a case and checked by the
    rules the command's ``--long`` follows (:func:`perfeval.engine.long.from_columns`), then
    evaluated as the wide form (:func:`_evaluate_classes`).
    """
    from perfeval.engine.long import from_columns

    if case is None or class_column is None:
        raise InvalidParameterError(
            "the long form (a row a case and class) needs both case= and class_column= (the case id "
            "and class columns)"
        )
    if y_score is not None or not hasattr(table, "columns") and table_names(table) is None:
        raise InvalidParameterError(
            "case= and class_column= name columns of a table (a pandas or polars DataFrame): pass it "
            "as the first argument, with target= and score= column names"
        )
    if target is None or score is None:
        raise InvalidParameterError("the long form needs `target=` and `score=` column names too")
    if isinstance(score, (list, tuple)) or isinstance(target, (list, tuple)):
        raise InvalidParameterError(
            "the long form (a row a case and class) reads one score column and one target column"
        )
    if arrays:
        raise InvalidParameterError(
            "the long form takes its groups and weights as columns: group=..., weight=... (the case's, "
            "the same on each of its rows)"
        )
    names = {"case": case, "class": class_column, "target": target, "score": score}
    extra = {}
    for key, name in (("group", group), ("weight", weight)):
        if name is not None:
            names[key] = name
            extra[key] = column(table, name)
    long, labels, how = from_columns(
        column(table, case),
        column(table, class_column),
        column(table, score),
        column(table, target),
        names=names,
        classes=classes,
        **extra,
    )
    report = _evaluate_classes(
        long.y,
        long.s,
        long.groups,
        long.weights,
        measures,
        tuple(range(len(labels))),
        None,
        threshold=threshold,
        partitions=partitions,
        pos_label=pos_label,
        tie_bounds=tie_bounds,
        dialect=dialect,
        labels=labels,
        how=how,
    )
    report.params["columns"] = dict(names)
    report.params["target_form"] = long.form
    report.params["cases"] = len(long.case_ids)
    return report


def _by_class(y_score: Any, classes: Any) -> Any:
    """A score table whose columns ARE the classes, in another order than ``classes=``: its columns
    taken in that order (paired by name, not position); anything else as it is.
    """
    if not hasattr(y_score, "columns"):
        return y_score
    cols = [str(c) for c in y_score.columns]
    wanted = [str(c) for c in classes]
    if sorted(cols) == sorted(wanted) and cols != wanted and len(set(cols)) == len(cols):
        return y_score[list(y_score.columns[[cols.index(c) for c in wanted]])]
    return y_score


def _is_label_matrix(y_true: Any) -> bool:
    """Whether the targets are a label matrix (multilabel): 2-D with two or more columns."""
    shape = getattr(y_true, "shape", None)
    if shape is None:
        return (
            isinstance(y_true, (list, tuple))
            and bool(y_true)
            and isinstance(y_true[0], (list, tuple))
            and len(y_true[0]) >= 2
        )
    return len(shape) == 2 and shape[1] >= 2


def _evaluate_labels(
    y_true: Any,
    y_score: Any,
    groups: Any,
    sample_weight: Any,
    measures: Any,
    classes: Any,
    names: Any,
    *,
    threshold: float,
    partitions: Any,
    pos_label: Any,
    tie_bounds: bool,
    dialect: str,
    slices: SliceRequest | None = None,
    weight_name: str = "sample_weight",
) -> Report:
    """evaluate() of K labels (a 0/1 target matrix): checked at the door
    (:func:`perfeval.engine.door.check_labels`), finished from a LabelSummary (:mod:`perfeval.engine.labels`).
    ``weight_name``: the weights' keyword as the user typed it.
    """
    from perfeval.engine.classes import class_specs
    from perfeval.engine.door import check_labels
    from perfeval.engine.labels import finish_labels

    for what, given in (("partitions", partitions), ("pos_label", pos_label)):
        if given:
            raise InvalidParameterError(
                f"{what}= does not apply to a label matrix (K labels, each on or off)"
            )
    if str(dialect).split(":")[0].strip().lower() not in ("perfeval", ""):
        raise InvalidParameterError(
            f"dialect={dialect!r}: the multilabel measures have perfeval's rules only"
        )
    y_true, y_score, names = _aligned_labels(y_true, y_score, classes, names)
    default = measures is DEFAULT_MEASURES
    specs = class_specs(
        [] if default else resolve(measures, threshold, pending=True),
        default=default,
        task="multilabel",
        threshold=threshold,
    )
    cases, found, how = check_labels(
        y_true, y_score, groups, sample_weight, labels=classes, names=names, weight_name=weight_name
    )
    report = finish_labels(cases, specs, found, threshold=threshold, labels_from=how)
    if slices is not None:
        from perfeval.engine.slices import Task

        slices.attach(
            report, cases, Task("labels", tuple(specs), threshold, classes=tuple(found), classes_from=how)
        )
    if tie_bounds:  # each measure's range over the orders of the tied scores (engine/label_bounds.py)
        from perfeval.engine.label_bounds import with_tie_bounds

        with_tie_bounds(report, cases, specs)
    return report


def _aligned_labels(y_true: Any, y_score: Any, classes: Any, names: Any) -> tuple[Any, Any, Any]:
    """A label matrix and its scores paired by label, never by position alone: when both are tables
    with column names, the scores' columns are taken in the targets' order (the same names, in any
    order; different names are one line saying which); ``classes=`` with a named table must name its
    columns.  Returns the two matrices and the labels' names (None when neither has names).
    """
    tnames = [str(c) for c in y_true.columns] if hasattr(y_true, "columns") else None
    snames = [str(c) for c in y_score.columns] if hasattr(y_score, "columns") else None
    if tnames is not None and snames is not None:
        if sorted(tnames) != sorted(snames) or len(set(tnames)) != len(tnames):
            only_t = [n for n in tnames if n not in snames][:3]
            only_s = [n for n in snames if n not in tnames][:3]
            raise InvalidParameterError(
                f"the label matrix's columns and the scores' name different labels (targets only: "
                f"{only_t}, scores only: {only_s}): name them alike, so that each label is paired with "
                "its own score column, or pass arrays in one order with classes=[...]"
            )
        if snames != tnames:
            y_score = y_score[list(y_score.columns[[snames.index(n) for n in tnames]])]
    given = tnames if tnames is not None else snames
    if classes is not None and given is not None:
        wanted = [str(c) for c in classes]
        if wanted != given:
            raise InvalidParameterError(
                f"classes={list(classes)!r} does not name the table's label columns {given} in their "
                "order: leave classes= out (the columns' names are the labels) or pass arrays"
            )
    return y_true, y_score, (names if names is not None else given)


def _slice_request(by: Any, table: Any, taken: dict, weights: Any, **options: Any) -> SliceRequest | None:
    """The slices of ``by=`` (:func:`perfeval.api.slices.request`: the columns found, not yet coded),
    or None without ``by``.
    """
    if by is None:
        return None
    from perfeval.api.slices import request

    return request(by, table, weights=weights, taken=taken, **options)


def _not_by(by: Any, tie_bounds: bool, modern: bool, long: bool) -> None:
    """What ``by=`` does not take yet: one line each (slices are finished by perfeval's grouped
    engine, in memory or from a backend's summaries).
    """
    if by is None:
        return
    for what, given in (
        ("a dialect", not modern),
        ("tie_bounds", tie_bounds),
        ("the long form (case=, class_column=)", long),
    ):
        if given:
            raise InvalidParameterError(f"by= (slices): not with {what} yet")


def _on_cluster(data: Any, y_score: Any, named: dict, sliced: dict, rest: tuple) -> Report:
    """evaluate() of a Dask collection (:mod:`perfeval.backends.dask`) or a Spark DataFrame
    (:func:`perfeval.backends.spark.evaluate_spark`), the columns named; ``rest``: tie_bounds,
    partitions, groups, sample_weight, case, class_column and task as evaluate() was given them.
    """
    tie_bounds, partitions, groups, sample_weight, case, class_column, task = rest
    arrays = bool(partitions) or groups is not None or sample_weight is not None
    if not is_dask(data):  # a Spark DataFrame
        from perfeval.backends.spark import evaluate_spark

        if tie_bounds or arrays or y_score is not None or (case, class_column) != (None, None):
            raise InvalidParameterError(
                "a Spark DataFrame: name its columns (target=, score=, group=, weight=); tie_bounds, "
                "partitions, arrays and the long form evaluate in memory"
            )
        return evaluate_spark(data, **named, task=task, **sliced)
    from perfeval.backends.dask import evaluate_dask, evaluate_dask_long

    _not_on_dask(tie_bounds, arrays)
    if (case, class_column) != (None, None):  # the long form: a row a case and class
        return evaluate_dask_long(data, y_score, **named, case=case, class_column=class_column)
    return evaluate_dask(data, y_score, **named, task=task, **sliced)


def _not_on_dask(tie_bounds: bool, arrays: bool) -> None:
    """What evaluate() does not take with a Dask collection (``arrays``: partitions, groups or
    weights given as arrays rather than named columns).
    """
    if tie_bounds:
        raise InvalidParameterError("tie_bounds: in memory only, not with a Dask collection")
    if arrays:
        raise InvalidParameterError("with a Dask collection, name the columns: group=..., weight=...")


def _say_grades_as_labels(y: Any, specs: list) -> None:
    """GAUC given graded targets without ``pos_label``: a grade above 0 is positive, said in a
    :class:`~perfeval.exceptions.GradesAsLabelsWarning` (the command line says it as a note).
    """
    said = grades_as_labels(y, specs)
    if said is not None:
        grouped, shown = said
        warnings.warn(
            f"{', '.join(grouped)} read y_true's grades ({shown}) as positive where above 0; "
            "pos_label= names one label positive instead",
            GradesAsLabelsWarning,
            stacklevel=user_stacklevel(),
        )
