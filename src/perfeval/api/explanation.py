"""``perfeval.explain``: one evaluation under every dialect, side by side, and for each value that
differs from perfeval's, the rules of the tool that make the difference and how many cases or
groups each rule touched in this data.

The rules are those of the dialect's policy (:mod:`perfeval.dialects.table`): the order of tied
scores, fixed parameters (linear gain, clipping), what a query without a relevant case counts, the
averaging over groups, the binning of the tools that bin.  A rule is listed under a value when it
touched something here (a query whose tie mixes relevant and non-relevant cases, a grade above 1, a
query without relevance, scores merged into one bin) or when it is a difference of definition.
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfeval.base.checks import Cases, no_table
from perfeval.dialects.apply import (
    ID_DIALECTS,
    evaluate_dialect,
    ids_checked,
    ids_not_read,
    parse_dialect,
    policy_spec,
)
from perfeval.dialects.table import DIALECTS, EMPTY_TEXT, ORDER_TEXT, SCORED_TEXT, Dialect, Policy
from perfeval.engine import finish, resolve
from perfeval.engine.door import check, code, targets_of
from perfeval.engine.report import dumps, why_not_finite, with_reasons
from perfeval.exceptions import InvalidParameterError, PerfError, UndefinedMeasureWarning
from perfeval.measures import MeasureSpec, get_measure, parse_measure
from perfeval.summaries import ScoreHistogram
from perfeval.summaries.ranking import group_codes

# pandas is optional: imported where a frame is made.

#: why the perf dialect's value differs: all of PERF 5.12 at once (its rules are the classic engine)
PERF_RULE = (
    "PERF 5.12's arithmetic: scores and targets read as float32, its quicksort's order inside ties of "
    "1e-15, 80-bit sums (docs/compatibility.md)"
)


@dataclass
class Cell:
    """One dialect's value of one measure: the value (NaN when the tool does not define it or perfeval
    cannot reproduce it: ``note`` says why) and the rules that separate it from perfeval's value.
    """

    value: float
    note: str = ""
    rules: list[str] = field(default_factory=list)
    #: perfeval's own row: why its value is not a number, the measure's reason (as ``evaluate``'s
    #: warning and ``MeasureResult.why`` say it), "" where it gives none (the edge cases are said)
    why: str = ""


def _why_value(v: float, label: str) -> dict[str, str]:
    """The reason of a dialect's value that is not a number (its note, when it has one, else this)."""
    why = why_not_finite(v, label)
    return {"value": why} if why else {}


@dataclass
class Explanation:
    """The table of :func:`explain`: ``cells[dialect][measure]``, the measures' labels in order, and
    how many rows and groups were evaluated.  ``to_frame()`` gives a pandas DataFrame (rows:
    dialects, columns: measures), ``to_dict()`` everything, ``str()`` the table with the rules under
    it.
    """

    measures: list[str]
    cells: dict[str, dict[str, Cell]]
    rows: int
    groups: int | None
    #: what was evaluated, in words, where "N rows in M groups" does not say it (judgments and a run)
    where: str = ""

    @property
    def dialects(self) -> list[str]:
        return list(self.cells)

    def value(self, dialect: str, measure: str) -> float:
        """The value of ``measure`` (a label or a name: ``"AP"``, ``"ap"``, ``"ndcg@10"``) under
        ``dialect`` (as given, or its name alone when it was given once).
        """
        return self.cells[self._dialect(dialect)][self._measure(measure)].value

    def _dialect(self, dialect: str) -> str:
        if dialect in self.cells:
            return dialect
        hits = [d for d in self.cells if d.split(":")[0] == dialect.split(":")[0].strip().lower()]
        if len(hits) == 1:
            return hits[0]
        raise KeyError(f"dialect {dialect!r} is not in this explanation (dialects: {', '.join(self.cells)})")

    def _measure(self, measure: str) -> str:
        if measure in self.measures:
            return measure
        try:
            label = parse_measure(measure).label
        except PerfError:
            label = ""
        if label in self.measures:
            return label
        raise KeyError(
            f"measure {measure!r} is not in this explanation (measures: {', '.join(self.measures)})"
        )

    def to_frame(self) -> Any:
        import pandas as pd

        return pd.DataFrame(
            [[self.cells[d][m].value for m in self.measures] for d in self.cells],
            index=pd.Index(self.dialects, name="dialect"),
            columns=self.measures,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            **with_reasons(
                {"rows": self.rows, "groups": self.groups},
                {"groups": "no groups: every row in one set (no --group, groups=None)"},
            ),
            "measures": self.measures,
            "dialects": {
                d: {
                    m: with_reasons(
                        {"value": c.value, "note": c.note, "rules": c.rules},
                        {"value": c.note or c.why} if c.note or c.why else _why_value(c.value, m),
                    )
                    for m, c in row.items()
                }
                for d, row in self.cells.items()
            },
        }

    def to_json(self) -> str:
        return dumps(self.to_dict())

    def __str__(self) -> str:
        width = max(len(d) for d in self.cells)
        cols = [max(len(m), 8) for m in self.measures]
        head = " " * width + "  " + "  ".join(m.rjust(w) for m, w in zip(self.measures, cols, strict=True))
        lines = [head]
        for d, row in self.cells.items():
            vals = []
            for m, w in zip(self.measures, cols, strict=True):
                c = row[m]
                vals.append(("-" if c.note else "nan") if math.isnan(c.value) else _shown(c.value))
                vals[-1] = vals[-1].rjust(w)
            lines.append(d.ljust(width) + "  " + "  ".join(vals))
        notes = []
        for d, row in self.cells.items():
            undefined = [m for m in self.measures if row[m].note.startswith("not defined by ")]
            if undefined:
                notes.append(f"{d}: {', '.join(undefined)} {row[undefined[0]].note}")
            for m in self.measures:
                c = row[m]
                said = [c.why] if c.why and c.why not in c.rules and math.isnan(c.value) else []
                for text in ([c.note] if c.note and m not in undefined else []) + said + c.rules:
                    notes.append(f"{d} {m}: {text}")
        if notes:
            lines += ["", *notes]
        where = self.where or f"{self.rows} rows" + (
            f" in {self.groups} group{'s' if self.groups != 1 else ''}" if self.groups is not None else ""
        )
        lines += ["", f"{where}; '-': not defined by that tool or not reproducible (said above)"]
        return "\n".join(lines) + "\n"


def _shown(v: float) -> str:
    """A value in the table: four decimals, or four significant digits with an exponent from 1e6 on
    (a MAPE that divides by eps) so that the columns stay aligned.
    """
    return f"{v:.4f}" if abs(v) < 1e6 else f"{v:.4e}"


def explain(
    y_true: Any,
    y_score: Any,
    *,
    measures: Iterable[str | MeasureSpec] | str,
    groups: Any = None,
    ids: Any = None,
    sample_weight: Any = None,
    dialects: Sequence[str] | str | None = None,
    threshold: float = 0.5,
    pos_label: Any = None,
    classes: Any = None,
    task: Any = None,
) -> Explanation:
    """Every measure under every dialect, and the rules that make each tool's value differ.

    Parameters
    ----------
    y_true, y_score, groups, sample_weight, threshold, pos_label
        As :func:`perfeval.evaluate`.
    measures : iterable of str, or a comma-separated str
        The measures (perfeval's names: ``["ap", "ndcg@10"]``).
    ids : array-like, optional
        Document ids (one per row): the trec_eval dialect orders ties by them; without them its
        column says why it has no value where ties matter.  Checked once (one a row, none missing,
        not floats: an error, not a cell's text); where no dialect explained reads them (trec_eval
        not among them, K classes, a regression target) an error, as :func:`perfeval.evaluate`.
    dialects : sequence of str, optional
        Which dialects (with options: ``"keras:num_thresholds=1000"``); default every dialect that
        defines at least one of the measures, perfeval's first.  K classes: ``sklearn`` and
        ``torchmetrics``.
    classes : sequence, optional
        K classes (``y_score`` an (n, K) matrix, one column a class, as :func:`perfeval.evaluate`):
        each tool's value is computed by perfeval's per-class numbers with the tool's rules (its
        prediction of a tied row, what it does with an absent or one-sided class, its softmax of
        raw scores), never by calling it, and each rule is listed where it touched the data
        (:mod:`perfeval.api.class_explanation`).
    task : {None, "binary", "regression"}, optional
        As :func:`perfeval.evaluate`: a regression target (``task="regression"``, a regression
        measure named, or real targets with only ``rmse``/``mse``) is explained against
        scikit-learn's and torchmetrics' numbers, each computed by perfeval with the tool's rules
        (:mod:`perfeval.api.regression_explanation`); not per group yet.

    Returns
    -------
    Explanation
        ``cells[dialect][measure]``: value, why there is none, and the rules that separate it from
        perfeval's value with what each touched here.

    Examples
    --------
    >>> e = explain([1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5], groups=[0] * 4, ids=["d0", "d1", "d2", "d3"],
    ...             measures="ap,ndcg", dialects=["perfeval", "sklearn", "trec_eval", "ranx"])
    >>> [round(e.value(d, "NDCG"), 4) for d in e.dialects]
    [0.6404, 0.6404, 0.4307, 1.0]
    """
    if type(y_true).__module__.startswith("pyspark.sql"):
        raise InvalidParameterError(
            "explain of a Spark DataFrame: perfeval.spark.explain(df, target=..., score=...) (Spark's own "
            "evaluator beside the exact values)"
        )
    arrays = {"y_true": y_true, "y_score": y_score, "groups": groups, "ids": ids}
    no_table("perfeval.explain()", **arrays, sample_weight=sample_weight)
    if task == "regression" or _names_regression(measures):
        _ids_of_no_ranking(ids, "regression target")
    if classes is not None or _one_column_a_class(y_score):
        _ids_of_no_ranking(ids, "K classes")
    if classes is not None or _one_column_a_class(y_score):
        return _explain_classes(
            y_true, y_score, measures, groups, sample_weight, dialects, classes, pos_label
        )
    if task == "regression" or _names_regression(measures):
        return _explain_regression(
            y_true, y_score, measures, groups, sample_weight, dialects, pos_label, task
        )
    if task is None or task == "binary":
        from perfeval.engine.regression import regression_task

        if task is None and regression_task(y_true, measures, pos_label=pos_label) is not None:
            _ids_of_no_ranking(ids, "regression target")
            return _explain_regression(
                y_true, y_score, measures, groups, sample_weight, dialects, pos_label, task
            )
    else:
        raise InvalidParameterError(f"`task` must be None, 'binary' or 'regression', got {task!r}")
    # check -> code (perfeval.engine.door): the targets coded once, for perfeval's row, every dialect's
    # and the facts the rules are said with
    checked = code(check(y_true, y_score, groups, sample_weight), pos_label)
    raw = None  # the cases of weight 0 too, for the tools that count their scores (Spark's bins)
    if sample_weight is not None and len(checked.s) < checked.rows_in:
        raw = check(y_true, y_score, groups, sample_weight, keep_zero=True)
    specs = resolve(measures, threshold)
    names = dialects_shown(dialects, specs)
    ids = _ids_read_by(ids, names, checked.rows_in)
    base = finish(checked, specs, threshold=threshold, pos_label=pos_label)
    cells: dict[str, dict[str, Cell]] = {"perfeval": {s.label: _ours(base.results[s.label]) for s in specs}}
    facts = _Facts(checked, pos_label)
    for text in names:
        d, opts = parse_dialect(text)
        if d.name == "perfeval":
            continue
        row: dict[str, Cell] = {}
        for spec in specs:
            if not d.defines(spec.measure.name):
                row[spec.label] = Cell(math.nan, "not defined by " + d.tool)
                continue
            try:
                pol = None if d.name == "perf" else policy_spec(d, spec)[0]
                with warnings.catch_warnings():  # perfeval's own row already says what is undefined
                    warnings.simplefilter("ignore", UndefinedMeasureWarning)
                    r = evaluate_dialect(
                        checked,
                        [spec],
                        text,
                        threshold=threshold,
                        pos_label=pos_label,
                        ids=ids if d.needs_ids else None,  # the others' orders read none
                        raw=raw,
                    )
            except PerfError as e:
                row[spec.label] = Cell(math.nan, str(e))
                continue
            value = r.results[spec.label].value
            cell = Cell(value)
            if not _same(value, cells["perfeval"][spec.label].value):
                ours = base.results[spec.label]
                cell.rules = (
                    [PERF_RULE] if pol is None else _rules(d, pol, spec, opts, facts, raw, _per_group(ours))
                )
            row[spec.label] = cell
        cells[text] = row
    keys = base.groups
    return Explanation(
        [s.label for s in specs], cells, int(checked.rows_in), None if keys is None else len(keys)
    )


def _ids_of_no_ranking(ids: Any, what: str) -> None:
    """``ids=`` given to an explanation of ``what`` (K classes, a regression target): refused in one
    line, as :func:`perfeval.evaluate` refuses ids no dialect reads.
    """
    if ids is not None:
        raise InvalidParameterError(
            f"ids= is read only by the dialects that break ties by document id ({', '.join(ID_DIALECTS)}), "
            f"which explain no {what}: drop it"
        )


def _ids_read_by(ids: Any, names: list[str], rows: int) -> Any:
    """``ids=`` where one of the dialects ``names`` reads them: checked once for ``rows`` rows (an
    error, not each id-reading cell's text); where none does, refused as :func:`perfeval.evaluate`
    refuses them.
    """
    if ids is None:
        return None
    unread = ids_not_read(
        names, "ids=", f"explain a measure {' or '.join(ID_DIALECTS)} defines, with it among dialects="
    )
    if unread is not None:
        raise unread
    return ids_checked(ids, rows)


def _nan_why(r: Any) -> str:
    """Why perfeval's value ``r`` (a MeasureResult) is not a number, as its warning says it ("" when it
    is a number, or the measure gives no reason of its own: the edge cases are then said).
    """
    return (r.why or "") if math.isnan(r.value) else ""


def _ours(r: Any) -> Cell:
    """The perfeval row's cell of the result ``r`` (a MeasureResult), with its reason where it is NaN."""
    return Cell(r.value, why=_nan_why(r))


def _one_column_a_class(y_score: Any) -> bool:
    """Scores of K classes without ``classes=``: 2-D with three columns or more (as evaluate() reads them)."""
    shape = getattr(y_score, "shape", None)
    if (
        shape is None
        and isinstance(y_score, (list, tuple))
        and y_score
        and isinstance(y_score[0], (list, tuple))
    ):
        shape = (len(y_score), len(y_score[0]))
    return shape is not None and len(shape) == 2 and shape[1] >= 3


#: the tools whose averages of K classes explain() shows
CLASS_DIALECTS = ("sklearn", "torchmetrics")
#: and those it shows when asked (``dialects=["netcal"]``: its top-label calibration error only)
CLASS_DIALECTS_ASKED = ("netcal",)


def _explain_classes(
    y_true: Any,
    y_score: Any,
    measures: Any,
    groups: Any,
    sample_weight: Any,
    dialects: Sequence[str] | str | None,
    classes: Any,
    pos_label: Any,
) -> Explanation:
    """explain() of K classes: perfeval's row, and scikit-learn's and torchmetrics' values computed
    with their rules (:func:`perfeval.api.class_explanation.class_cells`).
    """
    from perfeval.api.class_explanation import Facts, class_cells
    from perfeval.engine.classes import class_specs, summary_values
    from perfeval.engine.door import check_classes

    if groups is not None:
        raise InvalidParameterError(
            "explain of K classes per group: not yet; evaluate(..., groups=) gives them"
        )
    if pos_label is not None:
        raise InvalidParameterError(
            "pos_label= does not apply to K classes (one score column a class): each class is already "
            "one against the rest"
        )
    names = [p.strip() for p in dialects.split(",") if p.strip()] if isinstance(dialects, str) else dialects
    wanted = list(CLASS_DIALECTS) if names is None else [str(d).strip().lower() for d in names]
    for d in wanted:
        if d not in ("perfeval", *CLASS_DIALECTS, *CLASS_DIALECTS_ASKED):
            raise InvalidParameterError(
                f"dialect {d!r}: the dialects of K classes are "
                f"{', '.join((*CLASS_DIALECTS, *CLASS_DIALECTS_ASKED))}"
            )
    specs = class_specs(resolve(measures, 0.5, pending=True))
    cases, found, _how = check_classes(y_true, y_score, None, sample_weight, classes=classes)
    facts = Facts(cases.y, cases.s, cases.w, tuple(found))
    ours = summary_values(specs, facts.cs)
    cells: dict[str, dict[str, Cell]] = {"perfeval": {}}
    for s in specs:
        r = ours[s.label]
        note = f"left out: {', '.join(str(c) for c in r.undefined_classes)}" if r.undefined_classes else ""
        cells["perfeval"][s.label] = Cell(r.value, "", [note] if note else [], why=_nan_why(r))
    for tool in (d for d in (*CLASS_DIALECTS, *CLASS_DIALECTS_ASKED) if d in wanted):
        row = {}
        for s in specs:
            got = class_cells(facts, s, ours[s.label].value).get(tool)
            if got is None and tool in CLASS_DIALECTS_ASKED and not DIALECTS[tool].defines(s.measure.name):
                row[s.label] = Cell(math.nan, f"{DIALECTS[tool].tool} defines no {s.label}")
            elif got is None:
                row[s.label] = Cell(math.nan, "not computed by explain for " + tool)
            else:
                value, why, rules = got
                row[s.label] = Cell(value, why, rules)
        cells[tool] = row
    k = len(found)
    return Explanation(
        [s.label for s in specs],
        cells,
        int(cases.rows_in),
        None,
        where=f"{int(cases.rows_in)} rows, {k} classes ({', '.join(str(c) for c in found)})",
    )


def _names_regression(measures: Any) -> bool:
    """Whether a regression measure is named (a name that does not parse is said by the door)."""
    try:
        specs = resolve(measures, 0.5, pending=True)
    except PerfError:
        return False
    return any(s.measure.kind == "regression" for s in specs)


def _explain_regression(
    y_true: Any,
    y_score: Any,
    measures: Any,
    groups: Any,
    sample_weight: Any,
    dialects: Sequence[str] | str | None,
    pos_label: Any,
    task: Any,
) -> Explanation:
    """explain() of a regression target: perfeval's row, and scikit-learn's and torchmetrics'
    numbers computed with their rules (:func:`perfeval.api.regression_explanation.regression_cells`).
    """
    from perfeval.api.regression_explanation import TOOLS, Facts, regression_cells
    from perfeval.engine.regression import (
        check_regression,
        finish_regression,
        named_specs,
        regression_specs,
        regression_task,
    )
    from perfeval.summaries.regression import lost_reason, no_float

    if task == "binary":
        raise InvalidParameterError("task='binary' names regression measures: drop one or the other")
    if groups is not None:
        raise InvalidParameterError(
            "explain of a regression target per group: not yet; evaluate(..., groups=) gives each "
            "group's values"
        )
    # why the target is read as a regression target, in evaluate()'s words (task='regression', a
    # regression measure named, the target's distinct values): said under the table
    how = regression_task(y_true, measures, task=task) or "task='regression'"
    if pos_label is not None:
        raise InvalidParameterError(f"pos_label= does not apply to a regression target ({how})")
    names = [p.strip() for p in dialects.split(",") if p.strip()] if isinstance(dialects, str) else dialects
    wanted = list(TOOLS) if names is None else [str(d).strip().lower() for d in names]
    for d in wanted:
        if d not in ("perfeval", *TOOLS):
            raise InvalidParameterError(
                f"dialect {d!r}: the dialects of a regression target are {', '.join(TOOLS)}"
            )
    specs = regression_specs(named_specs(measures))
    cases = check_regression(y_true, y_score, None, sample_weight)
    y = np.asarray(cases.y, dtype=np.float64)
    with warnings.catch_warnings():  # perfeval's row says what is undefined, by its NaN and note
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        base = finish_regression(cases, specs, task_from="explain")
    raw = cases
    if sample_weight is not None and len(cases.s) < cases.rows_in:  # scikit-learn counts those rows
        raw = check_regression(y_true, y_score, None, sample_weight, keep_zero=True)
    facts = Facts(y, cases.s, cases.w, (np.asarray(raw.y, dtype=np.float64), raw.s, raw.w))
    cells: dict[str, dict[str, Cell]] = {"perfeval": {}}
    for s in specs:
        r = base.results[s.label]
        cells["perfeval"][s.label] = Cell(r.value, "", [r.why] if r.why else [], why=_nan_why(r))
    rows = {tool: {} for tool in TOOLS if tool in wanted}  # type: dict[str, dict[str, Cell]]
    for s in specs:
        r = base.results[s.label]
        beyond = r.why if math.isnan(r.value) and no_float(r.why) else None
        got = regression_cells(facts, s, r.value, lost=r.why == lost_reason(s.measure.name), beyond=beyond)
        for tool, row in rows.items():
            value, why, rules = got[tool]
            row[s.label] = Cell(value, why, rules)
    cells.update(rows)
    n = int(cases.rows_in)
    return Explanation(
        [s.label for s in specs], cells, n, None, where=f"{n} rows, a regression target ({how})"
    )


def _per_group(r: Any) -> list[float]:
    """The value of each group of one of perfeval's results (its one value without groups)."""
    return list(r.per_group) if r.per_group is not None else [r.value]


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def dialects_shown(dialects: Sequence[str] | str | None, specs: list[MeasureSpec]) -> list[str]:
    if dialects is None:
        return [
            "perfeval",
            *[d.name for d in DIALECTS.values() if any(d.defines(s.measure.name) for s in specs)],
        ]
    if isinstance(dialects, str):
        dialects = [p for p in dialects.split(",") if p.strip()]
    out = [str(t).strip() for t in dialects]
    for t in out:
        parse_dialect(t)  # an unknown name or option: the error before any work
    return out if "perfeval" in out else ["perfeval", *out]


class _Facts:
    """What the rules could touch in this data, counted once: per group, the relevant cases, the
    size, the grades above 1, and whether a tie mixes relevant and non-relevant cases.
    """

    def __init__(self, c: Cases, pos_label: Any):
        self.c, self.pos_label = c, pos_label
        g = c.g
        self.keys: np.ndarray | None = None
        self.codes: np.ndarray = np.zeros(len(c.s), dtype=np.int64)
        if g is not None:
            self.keys, self.codes = group_codes(g)
        self.n_groups = 1 if self.keys is None else len(self.keys)

    def y(self, binary: bool, label: str) -> np.ndarray:
        if binary:
            return (np.asarray(targets_of(self.c, self.pos_label).binary(label)) == 1).astype(np.float64)
        return np.asarray(self.c.y, dtype=np.float64)

    def per_group(self, flags: np.ndarray) -> int:
        return int(
            np.count_nonzero(
                np.bincount(self.codes, weights=flags.astype(np.float64), minlength=self.n_groups)
            )
        )

    def mixed_ties(self, y: np.ndarray, k: int = 0, first_relevant: bool = False) -> tuple[int, int]:
        """Groups with a tie of relevant and non-relevant cases (starting in the top ``k`` when k > 0:
        below it the order moves no measure at k; with ``first_relevant``, only the tie that holds a group's
        first relevant case: the only one whose order moves MRR), and the cases in such ties.
        """
        order = np.lexsort((y, -self.c.s, self.codes))
        sc, ss, sy = self.codes[order], self.c.s[order], y[order] > 0
        same = (sc[1:] == sc[:-1]) & (ss[1:] == ss[:-1])
        start = np.concatenate(([True], ~same))
        tie = np.cumsum(start) - 1
        n_tie = tie[-1] + 1 if len(tie) else 0
        rel = np.bincount(tie, weights=sy.astype(np.float64), minlength=n_tie)
        size = np.bincount(tie, minlength=n_tie)
        mixed = (rel > 0) & (rel < size)
        if k > 0 and len(sc):  # the tie's first position in its group
            head = np.concatenate(([True], sc[1:] != sc[:-1]))
            first = np.maximum.accumulate(np.where(head, np.arange(len(sc)), 0))
            mixed &= (np.arange(len(sc)) - first)[start] < k
        if first_relevant and n_tie:  # no relevant case in an earlier tie of the same group
            tie_group = sc[start]
            before = np.cumsum(rel) - rel  # relevant cases in the earlier ties (of every group)
            head_tie = np.concatenate(([True], tie_group[1:] != tie_group[:-1]))
            group_base = np.maximum.accumulate(np.where(head_tie, before, 0))
            mixed &= (before - group_base) == 0
        groups = len(np.unique(sc[start][mixed])) if len(sc) else 0
        return groups, int(size[mixed].sum())


def _rules(
    d: Dialect,
    pol: Policy,
    spec: MeasureSpec,
    opts: dict[str, Any],
    f: _Facts,
    raw: Cases | None = None,
    ours: Any = None,
) -> list[str]:
    """The rules of ``pol`` that can make its value differ from perfeval's, each with what it touched
    in this data (only those that touched something, and the differences of definition).  ``ours``:
    perfeval's value of each group (or the one value), so that a rule giving a group the value
    perfeval gives it too (P@k's 0 without a relevant case) is not named.
    """
    engine = get_measure(pol.measure)
    binary = engine.kind == "binary"
    y = f.y(binary, spec.label)
    unit = "groups" if binary else "queries"
    k = int(spec.kwargs.get("k", 0) or 0)
    out = _case_rules(pol, spec, y, f, unit, k) + _param_rules(pol, spec, y, f, unit)
    empty = pol.empty
    if empty == "option":
        empty = {"neg": "zero", "pos": "one", "skip": "skip", "error": "error"}[opts["empty_target_action"]]
    total = f.n_groups
    if empty != "skip":
        empty_groups = np.bincount(f.codes, weights=(y > 0).astype(np.float64), minlength=total) == 0
        mine = np.asarray(ours, dtype=np.float64) if ours is not None else None
        if mine is not None and len(mine) == total and empty in ("zero", "one"):
            empty_groups &= mine != (0.0 if empty == "zero" else 1.0)  # perfeval's value already: no rule
        none = int(np.count_nonzero(empty_groups))
        if none:
            out.append(f"{EMPTY_TEXT[empty]} [{none} of {total} {unit} have none]")
    if pol.measure != spec.measure.name:
        out.append(f"{pol.call} is {engine.title} [{total} {unit}]")
    if pol.finish:
        # a finisher of the measure's own (ECE's bins) says its rules in its notes, not the areas' thresholds
        out.append("" if pol.finish_params else _binning(d, opts, f, raw))
        if d.name == "torchmetrics":
            out.append(_sigmoid_rule(f))
        if d.name in ("spark", "keras") and float((y > 0).sum()) in (0.0, float(len(y))):
            out.append(f"{d.tool} gives one class its own value, not undefined [the data hold one class]")
    if pol.reasons:  # the tool's rules that touched these data, said by the policy's module
        mod, _, attr = pol.reasons.partition(":")
        h = ScoreHistogram.from_checked(y > 0, f.c.s, f.c.w)
        out += getattr(importlib.import_module(mod), attr)(h, pol.measure, spec.kwargs, opts)
    # the gain's rule is said where it touched; AP@k's only with a cut-off
    out += [n for n in pol.notes if "gain" not in n and (k > 0 or not n.startswith("AP@k"))]
    return [r for r in out if r]


def _case_rules(pol: Policy, spec: MeasureSpec, y: np.ndarray, f: _Facts, unit: str, k: int) -> list[str]:
    """The rules about cases: the order of ties, cases that cannot be relevant, one class only."""
    out = []
    total = f.n_groups
    if pol.ties != "perfeval" and not pol.finish:
        groups, rows = f.mixed_ties(y, k, first_relevant=pol.measure == "MRR")
        if groups:
            where = f" in the top {k}" if k > 0 else ""
            if pol.measure == "MRR":
                where += " at the first relevant case"
            out.append(
                f"{ORDER_TEXT[pol.ties]} [{groups} of {total} {unit} have a tie of relevant and "
                f"non-relevant cases{where}; {rows} cases in such ties]"
            )
    if pol.scored_relevant:
        n = int(np.count_nonzero((y > 0) & (f.c.s <= 0)))
        if n:
            out.append(f"{SCORED_TEXT} [{n} relevant cases scored 0 or less]")
    if pol.one_class is not None:
        size = np.bincount(f.codes, minlength=total)
        n_rel = np.bincount(f.codes, weights=(y > 0).astype(np.float64), minlength=total)
        n = int(np.count_nonzero((n_rel == 0) | (n_rel == size)))
        if n:
            out.append(f"one class only gives {pol.one_class:g}, not undefined [{n} of {total} {unit}]")
    return out


def _param_rules(pol: Policy, spec: MeasureSpec, y: np.ndarray, f: _Facts, unit: str) -> list[str]:
    """The tool's fixed parameters, where they touched the data: linear gain, clipping."""
    out = []
    for key, value in pol.params:
        if key == "gain" and value == "linear" and spec.kwargs.get("gain", "exp") != "linear":
            n = f.per_group(y > 1)
            if n:
                out.append(
                    "linear gain (the grade itself, not 2^grade - 1) "
                    f"[{n} of {f.n_groups} {unit} have a grade above 1]"
                )
        elif key == "eps":
            s = f.c.s
            n = int(np.count_nonzero((s < value) | (s > 1 - value)))
            if n:
                out.append(f"scores clipped to [{value:.3g}, 1 - {value:.3g}] [{n} cases clipped]")
    return out


def _sigmoid_rule(f: _Facts) -> str:
    """The rule of torchmetrics' binary metrics for scores outside [0, 1]: read as logits, their sigmoid,
    which keeps their order but ties those it rounds to one value.
    """
    s = f.c.s
    outside = int(np.count_nonzero((s < 0) | (s > 1)))
    if not outside:
        return ""
    distinct = np.unique(s)
    tied = len(distinct) - len(np.unique(1.0 / (1.0 + np.exp(-distinct))))
    return (
        f"scores outside [0, 1] read as logits: their sigmoid, which ties those it rounds to one value "
        f"[{outside} scores outside [0, 1]; {tied} distinct scores tied by the sigmoid]"
    )


def _binning(d: Dialect, opts: dict[str, Any], f: _Facts, raw: Cases | None = None) -> str:
    # Spark counts the scores of the cases of weight 0 among those it bins
    distinct = len(np.unique((raw if raw is not None and d.name == "spark" else f.c).s))
    if d.name == "spark":
        bins = int(opts["numBins"])
        grouping = distinct // bins if bins else 0
        if grouping < 2:
            return ""
        return (
            f"distinct scores merged in runs of {grouping} into {math.ceil(distinct / grouping)} thresholds "
            f"(numBins={bins}) [{distinct} distinct scores]"
        )
    if d.name == "keras":
        t = int(opts["num_thresholds"])
        return (
            f"scores read at {t} thresholds, a case positive above one (float32) [{distinct} distinct scores]"
        )
    if d.name == "torchmetrics" and opts.get("thresholds"):
        t = int(opts["thresholds"])
        return (
            f"scores read at {t} thresholds linspace(0, 1), a case positive from one "
            f"[{distinct} distinct scores]"
        )
    return ""
