"""What the ``perfeval`` command prints: one table renderer for every command (eval, compare, score,
list-measures), the CSV and JSON forms, and the signature line under a table of measures.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Sequence
from typing import Any

from perfeval.base.text import decimals, shown

# The statistics (perfeval.stats) are imported where intervals are printed: `list-measures` and
# `sample` print through this module too.


def table(rows: Sequence[Sequence[str]], align: str = "l") -> list[str]:
    """Rows of cells as aligned lines, two blanks between columns.

    ``align`` gives each column's alignment (``l`` or ``r``); its last letter holds for the columns
    after it.  A left-aligned last column is not padded (no trailing blanks).  A row shorter than the
    widest (a note such as "rejected: ...") is printed as it comes, its cells aligned as far as they go.
    """
    n = max((len(r) for r in rows), default=0)
    full = [r for r in rows if len(r) == n] or list(rows)
    widths = [max((len(r[i]) for r in full if i < len(r)), default=0) for i in range(n)]
    for r in rows:  # a short row's first cells count too
        if len(r) < n:
            for i in range(len(r) - 1):
                widths[i] = max(widths[i], len(r[i]))
    lines = []
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            a = align[i] if i < len(align) else align[-1]
            if i == len(r) - 1 and (a == "l" or len(r) < n):
                cells.append(c)  # the last cell: no trailing blanks
            else:
                cells.append(c.rjust(widths[i]) if a == "r" else c.ljust(widths[i]))
        lines.append("  ".join(cells))
    return lines


def write(text: str) -> None:
    sys.stdout.write(text)


def number(v: Any) -> str:
    """A cell: floats with six decimals (nan as ``nan``; a value that six decimals would show as 0,
    4.06e-10, or in some 200 digits, 8.40272e+198, with six significant digits instead:
    :func:`perfeval.base.text.decimals`), anything else as text.
    """
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return decimals(v)
    return str(v)


def threshold_cell(v: Any) -> str:
    """A score threshold's cell (an ``of=threshold`` row): in full (repr), so that the number shown is
    the threshold itself (``score >= 0.44535873``), not a rounding that excludes the boundary case.
    """
    if isinstance(v, float) and math.isfinite(v):
        return repr(v)
    return number(v)


def csv_number(v: Any) -> str:
    """A CSV cell: a float in full (repr: it reads back to the same double), None empty, anything else
    as text (quoted where RFC 4180 wants it).
    """
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    return "" if v is None else csv_field(str(v))


def p_value(p: float, resamples: int | None = None) -> str:
    """A p-value for a table: below what a double holds (it underflowed to 0) is shown as such; a
    resampling test's 0 (no resample as extreme as the data, of ``resamples``) as below 1 / resamples.
    """
    if math.isnan(p):
        return "nan"
    if resamples and p == 0:
        return f"<{1 / resamples:.4g}"
    return "<1e-300" if p < 1e-300 else f"{p:.4g}"


#: a number as a spreadsheet reads one (a text cell that starts with + or - and is one stays as written)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")

#: what a spreadsheet reads as the start of a formula (OWASP's CSV injection list)
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def csv_field(text: str) -> str:
    """A text CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180); a text
    that a spreadsheet would run as a formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a
    carriage return, and is not a number such as ``-0.5``) gets a ``'`` in front, as OWASP
    recommends against CSV injection, and is quoted: ``'=HYPERLINK(...)`` is shown, never run.

    Examples
    --------
    >>> print(csv_field("=1+2"), csv_field("-0.5"), csv_field("@SUM(A1)"), csv_field("a,b"))
    "'=1+2" -0.5 "'@SUM(A1)" "a,b"
    """
    if text.startswith(_FORMULA) and not _NUMBER.fullmatch(text):
        return "\"'" + text.replace('"', '""') + '"'
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def signature_line(signature: Any) -> str:
    return f"signature: {signature}"


#: why a streamed or Dask evaluation's intervals are percentile ones (the default there)
FROM_SUMMARY = (
    "percentile: from the merged summary, without the cases BCa's jackknife needs (--method bca: ROC only)"
)


def _interval_note(iv: dict, why: str | None = None, models: dict | None = None) -> str:
    """The note under a table of intervals: how they were drawn, why any of them is nan, and which
    are not a range around their estimate (the replicates on one side of it) (``models``: each
    model's intervals, for a table of several).
    """
    from perfeval.stats.intervals import left_out, one_sided, undefined_intervals

    one = next(iter(iv.values()))
    how = (
        "DeLong"
        if one.method == "delong"
        else "Student's t of the mean per-case loss"
        if one.method == "t"
        else "Wald, the logistic fit's standard errors"
        if one.method == "wald"
        else f"{one.method} bootstrap, {one.n_boot} replicates, {one.resampled} resampled"
    )
    shown = (
        [(lab, r) for lab, r in iv.items()]
        if models is None
        else [(f"{name} {lab}", r) for name, ivs in models.items() for lab, r in ivs.items()]
    )
    undefined = undefined_intervals(shown)
    aside = one_sided(shown)
    dropped = left_out(shown)
    return (
        f"({one.level * 100:g}% intervals: {how}"
        + (f"; {why})" if why else ")")
        + (f"\n(nan intervals: {undefined})" if undefined else "")
        + (f"\n(not around the estimate: {aside})" if aside else "")
        + (f"\n(replicates left out: {dropped})" if dropped else "")
    )


def csv_interval_notes(results: list[tuple[str, Any]]) -> None:
    """A CSV table has no line under it: each interval that is not a range around its estimate, or
    that leaves replicates out (``results``: each with the name it is shown under), is said on
    stderr, a note a line, when the command succeeds.
    """
    from perfeval.cli.notes import note

    for name, r in results:
        if r.note:
            note(f"perfeval: note: {name}: {r.note}\n")
        if getattr(r, "left_out", ""):  # the replicates that drew no group with a value
            note(f"perfeval: note: {name}: {r.left_out}\n")
        if getattr(r, "groups_compared", ""):  # two models defined in different groups
            note(f"perfeval: note: {name}: {r.groups_compared}\n")


def _bounded(report: Any) -> bool:
    """Whether the report holds tie bounds (``--tie-bounds``)."""
    return getattr(report, "tied_pairs", None) is not None


def _tie_note(report: Any) -> list[str]:
    """The lines under a table with tie bounds: what they are, the share of tied pairs, the measures
    without an exact bound.
    """
    share = report.tied_pairs
    pairs = report.pairs or 0.0
    said = "no comparable pair" if not pairs else f"{share * 100:.4g}% of {pairs:.15g} comparable pairs tied"
    lines = [f"(tie_min, tie_max: the least and greatest value over every order of the tied cases; {said})"]
    refused = [k for k, r in report.results.items() if r.tie_note]
    if refused:
        lines.append(f"(no exact tie bound: {', '.join(refused)}; `perfeval list-measures --long` says why)")
    return lines


def _report_rows(report: Any) -> tuple[list[str], list[list[Any]]]:
    grouped = report.groups is not None
    iv = report.intervals
    bounded = _bounded(report)
    head = (
        ["measure", "value"]
        + (["tie_min", "tie_max"] if bounded else [])
        + (["ci_low", "ci_high"] if iv else [])
        + (["mean", "weighted_mean", "groups", "undefined"] if grouped else [])
    )
    rows = []
    for label, r in report.results.items():
        row = [label, r.value]
        if bounded:
            row += [_f(r.tie_min), _f(r.tie_max)]
        if iv:
            row += [iv[label].low, iv[label].high] if label in iv else [math.nan, math.nan]
        if grouped:
            row += [r.mean, r.weighted_mean, len(r.per_group) - len(r.undefined), len(r.undefined)]
        rows.append(row)
    return head, rows


def _f(v: Any) -> float:
    return math.nan if v is None else float(v)


def _of_threshold(label: Any) -> bool:
    """Whether a table row is a score threshold (a spec with ``of=threshold``)."""
    return isinstance(label, str) and "of=threshold" in label


def _cells(columns: list[str], values: list[Any]) -> list[str]:
    """A printed table's cells under these column names: a score threshold's column (an
    ``of=threshold`` spec's value, its interval's bounds, a group's threshold) in full, as
    :func:`threshold_cell` prints it, every other as :func:`number` does.
    """
    return [(threshold_cell if _of_threshold(c) else number)(v) for c, v in zip(columns, values, strict=True)]


def _asked(report: Any, label: str) -> bool:
    """Whether the table has the measure's ``of=threshold`` row (its threshold said already)."""
    return f"{label}{',' if ':' in label else ':'}of=threshold" in report.results


def threshold_lines(report: Any, model: str = "") -> list[str]:
    """The lines under a table that give each operating point's score threshold (a measure that picks
    one, its value asked): ``TPR_AT_FPR@0.1: at score >= 0.79 (of=threshold gives it as a value)``;
    per group, where the thresholds are (one line).  ``model``: the model's name, before each line.
    """
    lines = []
    grouped = []
    for label, r in report.results.items():
        who = f"{model}: {label}" if model else label
        if r.threshold_per_group is not None:
            grouped.append(label)
        elif r.threshold is not None and not math.isnan(r.threshold) and not _asked(report, label):
            at = (
                "no threshold: no case predicted positive (+inf)"
                if math.isinf(r.threshold) and r.threshold > 0
                else f"at score >= {float(r.threshold)!r}"
            )
            lines.append(f"{who}: {at} (of=threshold gives it as a value)")
    if grouped:
        named = ", ".join(grouped)
        lines.append(
            f"({model + ': ' if model else ''}each group's threshold of {named}: --format json "
            "(threshold_per_group), or of=threshold as a measure)"
        )
    lines += _infinite_threshold_means(report, model)
    return lines


def _infinite_threshold_means(report: Any, model: str = "") -> list[str]:
    """Over groups, a line for each ``of=threshold`` value that is +inf: the mean of the groups'
    thresholds, +inf when a group's best point predicts no case positive (its threshold +inf).
    """
    import numpy as np

    lines = []
    for label, r in report.results.items():
        if not (_of_threshold(label) and r.per_group is not None and r.value == math.inf):
            continue
        vals = np.asarray(r.per_group, dtype=np.float64)
        inf = np.flatnonzero(vals == math.inf)
        if not len(inf):
            continue
        first = report.groups[int(inf[0])]
        first = first.item() if hasattr(first, "item") else first
        defined = int(np.count_nonzero(~np.isnan(vals)))
        lines.append(
            f"({model + ': ' if model else ''}{label}: the mean over groups is +inf: in {len(inf):,} of "
            f"{defined:,} groups (the first: {shown(str(first))}) the threshold is +inf (the point "
            "picked predicts no case positive))"
        )
    return lines


def report_text(report: Any, output: str, per_group: bool) -> str:
    """A :class:`~perfeval.engine.report.Report` as the ``eval`` command prints it: ``table`` (with the
    signature under it), ``csv`` or ``json``.
    """
    if output == "json":
        return report.to_json() + "\n"
    head, rows = _report_rows(report)
    per = per_group and report.groups is not None
    bounded = _bounded(report)
    if output == "csv":
        if per:  # one table, as pandas reads it: a row per group (the summary: without --per-group)
            csv_interval_notes(list(report.intervals.items()))  # the intervals' notes: on stderr
            return group_csv(report)
        if bounded:  # the share of tied pairs of each measure's comparable pairs, a column
            head = [*head, "tied_pairs"]
            rows = [[*row, _f(r.tied_pairs)] for row, r in zip(rows, report.results.values(), strict=True)]
        if _thresholds(report):  # each operating point's score threshold, the last column (empty: none)
            head = [*head, "threshold"]
            rows = [[*row, r.threshold] for row, r in zip(rows, report.results.values(), strict=True)]
        lines = [",".join(head)] + [",".join(csv_number(v) for v in row) for row in rows]
        csv_interval_notes(list(report.intervals.items()))
        return "\n".join(lines) + "\n"

    cells = [
        [number(row[0])] + [(threshold_cell if _of_threshold(row[0]) else number)(v) for v in row[1:]]
        for row in rows
    ]
    lines = table([head, *cells], "lr")
    lines += threshold_lines(report)
    if bounded:
        lines += _tie_note(report)
    if report.intervals:
        lines.append(_interval_note(report.intervals, getattr(report, "interval_why", None)))
    lines.append(signature_line(report.signature))
    if per:
        lines.append("")
        names = list(report.results)
        if bounded:
            names = [f"{n}{suffix}" for n in names for suffix in ("", " tie_min", " tie_max")]
        gtab = [["group", *names]] + [
            [shown(str(k))] + _cells(names, _group_cells(report, i, bounded))
            for i, k in enumerate(report.groups)
        ]
        lines += table(gtab, "lr")
    return "\n".join(lines) + "\n"


def group_csv(report: Any) -> str:
    """Each group's value of every measure (with tie bounds: its least and greatest beside it; an
    operating point's measure: the group's score threshold after them, ``LABEL threshold``), one CSV
    table with a header: ``group,ROC,APR``.
    """
    bounded = _bounded(report)
    names = []
    for k, r in report.results.items():
        names += [
            f"{csv_field(k)}{suffix}" for suffix in (("", " tie_min", " tie_max") if bounded else ("",))
        ]
        if r.threshold_per_group is not None:
            names.append(csv_field(f"{k} threshold"))
    lines = [",".join(["group", *names])]
    lines += [
        ",".join(
            [csv_field(str(key))] + [csv_number(v) for v in _group_cells(report, i, bounded, thresholds=True)]
        )
        for i, key in enumerate(report.groups)
    ]
    return "\n".join(lines) + "\n"


def _group_cells(report: Any, i: int, bounded: bool, thresholds: bool = False) -> list[float]:
    """Group i's value of each measure (and, with tie bounds, its least and greatest after it; with
    ``thresholds``, an operating point's threshold in the group after them).
    """
    out = []
    for r in report.results.values():
        out.append(float(r.per_group[i]))
        if bounded:
            lo, hi = r.tie_min_per_group, r.tie_max_per_group
            out += [math.nan if lo is None else float(lo[i]), math.nan if hi is None else float(hi[i])]
        if thresholds and r.threshold_per_group is not None:
            out.append(float(r.threshold_per_group[i]))
    return out


def _thresholds(report: Any) -> bool:
    """Whether a measure of the report has an operating point's threshold (one, not per group)."""
    return any(r.threshold is not None for r in report.results.values())


#: the columns of a model's row kept in the printed table (the CSV and the JSON keep every column)
_TABLE_COLUMNS = ("value", "tie_min", "tie_max", "ci_low", "ci_high")


def _model_cells(report: Any, keep: tuple[str, ...] | None) -> tuple[list[str], list[Any]]:
    """A model's report as one row: each measure's value, then its other columns named after it
    (every column: ``keep`` None, the CSV; with an operating point's threshold, ``LABEL threshold``
    last).
    """
    head, rows = _report_rows(report)
    names: list[str] = []
    cells: list[Any] = []
    for row in rows:
        label = row[0]
        for col, v in zip(head[1:], row[1:], strict=True):
            if keep is None or col in keep:
                names.append(label if col == "value" else f"{label} {col}")
                cells.append(v)
        r = report.results[label]
        if keep is None and r.threshold is not None:
            names.append(f"{label} threshold")
            cells.append(r.threshold)
    return names, cells


def models_text(reports: dict[str, Any], output: str, per_group: bool) -> str:
    """Several models' reports (``eval --score a,b,c``) as one table, a row a model: ``table`` (with
    the signature under it), ``csv`` (every column) or ``json`` (``{"models": {name: report}}``).
    """
    if output == "json":
        body = {"models": {name: json.loads(r.to_json()) for name, r in reports.items()}}
        return json.dumps(body, indent=2) + "\n"
    first = next(iter(reports.values()))
    per = per_group and first.groups is not None
    if output == "csv":
        csv_interval_notes(  # the intervals' notes: on stderr, per group too
            [
                (f"{shown(name)} {lab}", iv)
                for name, r in reports.items()
                for lab, iv in (r.intervals or {}).items()
            ]
        )
        if per:
            return models_group_csv(reports)
        head = ["model", *_model_cells(first, None)[0]]
        lines = [",".join(csv_field(h) for h in head)]
        lines += [
            ",".join([csv_field(name)] + [csv_number(v) for v in _model_cells(r, None)[1]])
            for name, r in reports.items()
        ]
        return "\n".join(lines) + "\n"
    head = ["model", *_model_cells(first, _TABLE_COLUMNS)[0]]
    rows = [
        [shown(name)] + _cells(head[1:], _model_cells(r, _TABLE_COLUMNS)[1]) for name, r in reports.items()
    ]
    lines = table([head, *rows], "lr")
    for name, r in reports.items():
        lines += threshold_lines(r, shown(name))
    if _bounded(first):
        shares = ", ".join(
            f"{shown(name)} {r.tied_pairs * 100:.4g}%" if r.pairs else f"{shown(name)} -"
            for name, r in reports.items()
        )
        lines.append(
            "(tie_min, tie_max: the least and greatest value over every order of the tied cases; comparable "
            f"pairs tied: {shares})"
        )
        lines += _tie_note(first)[1:]  # the measures without an exact bound
    if first.intervals:
        lines.append(
            _interval_note(
                first.intervals,
                getattr(first, "interval_why", None),
                {name: r.intervals or {} for name, r in reports.items()},
            )
        )
    lines.append(signature_line(first.signature))
    if per:
        for name, r in reports.items():
            lines += ["", f"{shown(name)}, per group:"]
            labels = list(r.results)
            lines += table(
                [["group", *labels]]
                + [
                    [shown(str(k))] + _cells(labels, _group_cells(r, i, False))
                    for i, k in enumerate(r.groups)
                ],
                "lr",
            )
    return "\n".join(lines) + "\n"


def models_group_csv(reports: dict[str, Any]) -> str:
    """Every model's value of each measure in each group, one CSV table pandas reads:
    ``model,group,ROC,APR`` (with tie bounds, each measure's least and greatest beside it).
    """
    out: list[str] = []
    for name, r in reports.items():
        body = group_csv(r).splitlines()
        if not out:
            out.append("model," + body[0])
        out += [f"{csv_field(name)},{line}" for line in body[1:]]
    return "\n".join(out) + "\n"


def _confusion_numbers(confusion: Any, weighted: bool) -> list[list[float | int]]:
    """The confusion matrix for JSON: integers when unweighted and every entry is whole (a tie at
    the max shares a case, so entries may be fractions), else floats.
    """
    rows = [[float(v) for v in row] for row in confusion.tolist()]
    if not weighted and all(v.is_integer() for row in rows for v in row):
        return [[int(v) for v in row] for row in rows]
    return rows


def _per_class_columns(report: Any) -> list[tuple[str, Any]]:
    """The per-class columns: each averaged measure under its name without the average (a class's
    value is the same whatever the average: ``ROC_OVR:average=macro`` and ``:average=weighted`` are
    one column, ``ROC_OVR``).
    """
    out: dict[str, Any] = {}
    for k, r in report.results.items():
        if r.per_class is None:
            continue
        name, _, params = k.partition(":")
        kept = [p for p in params.split(",") if p and not p.startswith("average=")]
        out.setdefault(name + (":" + ",".join(kept) if kept else ""), r)
    return list(out.items())


def _without_average(label: str) -> str:
    """A measure's label without its average (as the per-class columns name it)."""
    name, _, params = label.partition(":")
    kept = [p for p in params.split(",") if p and not p.startswith("average=")]
    return name + (":" + ",".join(kept) if kept else "")


def _nan_at(undefined: list, classes: list) -> Any:
    """A value a class: NaN at the classes ``undefined``, 0 elsewhere (for their reasons)."""
    import numpy as np

    out = np.zeros(len(classes))
    out[[i for i, c in enumerate(classes) if c in undefined]] = np.nan
    return out


def classes_text(report: Any, output: str, per_group: bool, confusion: Any = None) -> str:
    """A report of K classes as ``eval`` prints it: the table of the measures (each label with its
    average), the classes and how they were found, the per-class table of the averaged measures
    with the classes where each is undefined and why, and (``confusion``: the summary's K x K
    table) the confusion matrix of the argmax.  ``json``: the report's dict, with ``confusion``;
    ``csv``: as :func:`report_text`.
    """
    from perfeval.engine.report import class_reasons, dumps

    classes = list(report.params.get("classes") or [])
    if output == "json":
        d = report.to_dict()
        if confusion is not None:
            d["confusion"] = {
                "classes": classes,
                "rows": "true class",
                "columns": "predicted class (the argmax; a tie at the max shares the case)",
                "matrix": _confusion_numbers(confusion, bool(report.params.get("weighted"))),
            }
        return dumps(d) + "\n"
    if output == "csv":
        return report_text(report, output, per_group)
    text = report_text(report, output, per_group).rstrip("\n").split("\n")
    at = next(i for i, line in enumerate(text) if line.startswith("signature: "))
    how = report.params.get("classes_from")
    word, one = ("labels", "label") if report.params.get("task") == "multilabel" else ("classes", "class")
    said = [f"{word} ({len(classes)}): {', '.join(shown(str(c)) for c in classes)} (from {how})"]
    form = report.params.get("target_form")
    if form:
        said.append(f"target: {form} ({report.params.get('cases')} cases)")
    lines = text[:at] + said + text[at:]
    per = _per_class_columns(report)
    if per:
        support = getattr(report.summary, "n_class", None)
        head = [one, *[k for k, _ in per]] + (["support"] if support is not None else [])
        rows = []
        for i, c in enumerate(classes):
            row = [shown(str(c))] + [number(float(r.per_class[i])) for _, r in per]
            if support is not None:
                row.append(f"{float(support[i]):.15g}")
            rows.append(row)
        lines += ["", f"per {one}:"] + table([head, *rows], "lr")
    undefined: dict[str, list[str]] = {}  # reason -> the measures, class by class
    # the measures with no value a class (ROC_OVO) say the classes their means leave out too
    bare = [
        (_without_average(k), r, _nan_at(r.undefined_classes, classes))
        for k, r in report.results.items()
        if r.per_class is None and r.undefined_classes and r.per_group is None
    ]
    for k, r, per_class in [(k, r, r.per_class) for k, r in per] + bare:
        reasons = class_reasons(report.summary, k, per_class, r.classes or classes)
        for c in r.undefined_classes:
            why = reasons.get(str(c), "undefined")
            undefined.setdefault(f"{shown(str(c))}: {why}", []).append(k)
    for what, labels in undefined.items():
        lines.append(f"(undefined, left out of the averages: {what}; in {', '.join(labels)})")
    if confusion is not None:
        lines += [
            "",
            "confusion of the argmax (rows: true class; columns: predicted; a tie at the max shares "
            "the case among the tied classes):",
        ]
        cells = [["true \\ predicted", *[shown(str(c)) for c in classes]]]
        cells += [
            [shown(str(c)), *[f"{float(v):.15g}" for v in row]]
            for c, row in zip(classes, confusion.tolist(), strict=True)
        ]
        lines += table(cells, "lr")
    return "\n".join(lines) + "\n"
