"""``perfeval eval --by COL,...``: every measure per slice of the table's columns (docs/slices.md).

The options (``--by``, ``--intersections``, ``--min-size``, ``--missing-slice``), what they do not
combine with (one line each), the slices' columns read from the table (identities: int64 or the text
as written, never floats, as ``--group``; an empty field is a missing value), and the tables printed
under the overall one: per slicing, its slices (rows, cases, positives, negatives, each measure, the
flagged ones marked), why a value is undefined, and the gaps (difference and ratio between slices and
to the overall value, the worst slice).  ``--format json``: the report's JSON, ``slices`` in it;
``--format csv``: the slices, one table pandas reads.
"""

from __future__ import annotations

import math
from typing import Any

from perfeval.base.text import shown
from perfeval.exceptions import InvalidParameterError

# numpy and the slices' door (api/slices.py) are imported where slices are asked: `perfeval --help`
# loads neither.

#: the reasons printed under a slicing's table before "... and N more" (JSON lists them all)
SHOWN_REASONS = 10


def add_options(p: Any) -> None:
    """The slice options of ``perfeval eval``."""
    g = p.add_argument_group(
        "slices (docs/slices.md)",
        "every measure per value of the columns named, and per intersection of them; the gaps between slices",
    )
    g.add_argument(
        "--by",
        action="append",
        metavar="COL,...",
        help="slice columns (names or 1-based positions): every measure per value of each "
        "(repeated, it adds)",
    )
    g.add_argument(
        "--intersections",
        action="store_true",
        help="with --by: also every intersection of two or more of its columns (country x device)",
    )
    g.add_argument(
        "--min-size",
        type=int,
        metavar="N",
        help="with --by: flag (*) the slices with fewer than N cases (rows of weight > 0); with --ci, "
        "they are left out of the gaps' intervals and of the tests",
    )
    g.add_argument(
        "--missing-slice",
        action="store_true",
        help="with --by: rows with an empty slice value make a slice of their own, <missing> "
        "(default: an error)",
    )


def columns(args: Any) -> list[str]:
    """The columns of ``--by`` (its commas split, repeated options added), in order, each once."""
    out: list[str] = []
    for given in getattr(args, "by", None) or []:
        for name in given.split(","):
            name = name.strip()
            if not name:
                raise InvalidParameterError(f"--by {given!r}: an empty column name between commas")
            if name not in out:
                out.append(name)
    return out


def check_options(args: Any) -> None:
    """The slice options alone and with the others: one line for what does not combine (yet)."""
    by = columns(args)
    if not by:
        for flag, on in (
            ("--intersections", getattr(args, "intersections", False)),
            ("--min-size", getattr(args, "min_size", None) is not None),
            ("--missing-slice", getattr(args, "missing_slice", False)),
        ):
            if on:
                raise InvalidParameterError(f"{flag} needs --by COL,... (the slice columns)")
        return
    if args.min_size is not None and args.min_size < 1:
        raise InvalidParameterError(f"--min-size must be a whole number >= 1 (cases), got {args.min_size}")
    for flag, on in (
        ("--stream", args.stream),
        ("--dask", args.dask),
        ("--tie-bounds", getattr(args, "tie_bounds", False)),
        ("--dialect", (getattr(args, "dialect", "perfeval") or "perfeval").split(":")[0] != "perfeval"),
        ("--long", getattr(args, "long", False)),
    ):
        if on:
            raise InvalidParameterError(f"--by: not with {flag} yet (slices are evaluated in memory)")


def refuse_kind(
    args: Any, *, labels: bool = False, classes: bool = False, regression: bool = False, models: bool = False
) -> None:
    """``--by`` with an evaluation the command does not slice yet (K labels, K classes, a regression
    target): one line, and what does slice them.
    """
    if not columns(args):
        return
    if models:
        raise InvalidParameterError(
            "--by: one --score column at a time (one model's slices); several models: one run each"
        )
    for what, asked in (
        ("K labels (a 0/1 target column a label)", labels),
        ("K classes (a score column a class)", classes),
        ("regression targets", regression),
    ):
        if asked:
            raise InvalidParameterError(
                f"--by: {what} are not sliced by the command yet; in Python, "
                "perfeval.evaluate(..., by=[...]) slices them (docs/slices.md)"
            )


def with_slices(report: Any, output: str, text_: str) -> str:
    """The command's output of ``report`` (``text_``: the overall one) with its slices: ``table``, the
    slicings' tables under the overall one; ``csv``, the slices alone (one table); ``json`` as it is
    (the report's JSON holds them).
    """
    if report.slices is None or output == "json":
        return text_
    if output == "csv":
        return csv(report)
    return text_.rstrip("\n") + "\n" + "\n".join(text(report)) + "\n"


def request_of(args: Any, table: Any, chosen: Any, weights: Any) -> Any:
    """The slice request of ``--by`` over a table read whole: each column picked by name or position
    (the target, score and weight columns refused), an empty field a missing value.
    """
    import numpy as np

    from perfeval.api.slices import request
    from perfeval.io.columns import pick

    by: dict[str, Any] = {}
    for spec in columns(args):
        col = pick(table.names, spec, "by", table.source, header=table.header, default=False)
        assert col is not None  # a spec given: a column, or pick's one line
        values = table.data[col.index]
        if col.index in table.empties:  # an empty field is a missing value (text columns)
            values = np.where(values == "", None, values.astype(object))
        by[col.name] = values
    taken = {"target": chosen.target, "score": chosen.score, "weight": chosen.weight}
    for role, col in taken.items():
        if col is not None and col.name in by:
            raise InvalidParameterError(
                f"--by {col.name!r} is the {role} column: a slice column is another column"
            )
    out = request(
        by,
        None,
        intersections=bool(args.intersections),
        min_size=args.min_size,
        missing="slice" if args.missing_slice else "error",
        weights=weights,
        position=table.position,
    )
    out.words = ("a missing value (an empty field, or a null)", "--missing-slice")
    return out


def _key(key: Any) -> str:
    return " x ".join(map(str, key)) if isinstance(key, tuple) else str(key)


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        return f"{v:.6f}"
    return str(v)


def _count(v: float) -> str:
    return f"{v:.15g}"


def text(report: Any) -> list[str]:
    """The lines of every slicing under the overall table: its slices, why a value is undefined, the gaps."""
    from perfeval.cli import slices_ci
    from perfeval.cli.output import table

    sl = report.slices
    lines: list[str] = []
    weighted = bool(report.params.get("weighted"))
    for s in sl.slicings:
        v = s.values
        flagged = int(s.flagged.sum())
        head = f"slices by {shown(s.name)} ({len(s)}"
        if sl.min_size is not None:
            head += (
                f"; {flagged} below --min-size {sl.min_size}, marked *"
                if flagged
                else f"; none below --min-size {sl.min_size}"
            )
        lines += ["", head + "):"]
        cols = ["slice", "rows", "cases"] + (["weight"] if weighted else [])
        if v.positives is not None:
            cols += ["positives", "negatives"]
        if v.groups is not None:
            cols += ["groups"]
        cols += sl.measures
        rows = [cols]
        for i, key in enumerate(s.keys):
            row = [
                shown(_key(key)) + ("*" if s.flagged[i] else ""),
                str(int(v.rows[i])),
                str(int(v.cases[i])),
            ]
            if weighted:
                row.append(_count(float(v.weight[i])))
            if v.positives is not None and v.negatives is not None:
                row += [_count(float(v.positives[i])), _count(float(v.negatives[i]))]
            if v.groups is not None:
                row.append(str(int(v.groups[i])))
            row += [_cell(float(v.values[m][i])) for m in sl.measures]
            rows.append(row)
        lines += table(slices_ci.widen(rows, report, s), "lr")  # each measure's interval beside it
        lines += _reasons(s, sl.measures)
        lines += _gaps(sl, s)
        lines += slices_ci.lines(report, s)  # with --ci: the gaps' intervals and tests
    return lines


def _reasons(s: Any, measures: list[str]) -> list[str]:
    """Why the values shown n/a (or infinite) are so, the measures that share a reason in a slice named
    together; at most :data:`SHOWN_REASONS` lines.
    """
    said: dict[tuple[int, str], list[str]] = {}
    for m in measures:
        for i, why in sorted(s.values.reasons.get(m, {}).items()):
            said.setdefault((i, why), []).append(m)
    lines = [
        f"({shown(_key(s.keys[i]))}: {', '.join(ms)} {'is' if len(ms) == 1 else 'are'} {why})"
        if why.endswith("infinity")
        else f"({shown(_key(s.keys[i]))}: {', '.join(ms)} n/a: {why})"
        for (i, why), ms in sorted(said.items())
    ]
    if len(lines) > SHOWN_REASONS:
        lines = lines[:SHOWN_REASONS] + [
            f"(... and {len(lines) - SHOWN_REASONS} more: --format json gives every reason)"
        ]
    return lines


def _gaps(sl: Any, s: Any) -> list[str]:
    """A slicing's gaps, a row a measure: difference and ratio between slices and to the overall
    value (fairlearn's between_groups and to_overall), the worst slice (by the measure's direction).
    """
    import warnings

    from perfeval.cli.output import table
    from perfeval.exceptions import UndefinedMeasureWarning

    rows = [
        [
            "measure",
            "difference",
            "ratio",
            "diff_to_overall",
            "ratio_to_overall",
            "worst",
            "worst_value",
            "undefined",
        ]
    ]
    with warnings.catch_warnings():  # the undefined slices are counted in the table, their reasons above
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        for m in sl.measures:
            row = [m]
            for method in ("between_groups", "to_overall"):
                row += [
                    _cell(sl.difference(m, s.name, method=method)),
                    _cell(sl.ratio(m, s.name, method=method)),
                ]
            row = [row[0], row[1], row[2], row[3], row[4]]
            if sl.directions.get(m, "none") == "none":
                row += ["-", "-"]
            else:
                worst = sl.worst(m, s.name)
                row += [shown(_key(worst[0].key)), _cell(worst[0].value)] if worst else ["-", "-"]
            row.append(str(int(sum(1 for x in s.values.values[m] if math.isnan(x)))))
            rows.append(row)
    return [
        "",
        f"gaps by {shown(s.name)} (difference: max - min; ratio: min / max; worst: by the measure's "
        "direction):",
    ] + table(rows, "lr")


def csv(report: Any) -> str:
    """The slices as one CSV table (pandas reads it): slicing, slice, rows, cases, weight, positives,
    negatives, flagged, each measure, then why each value is no finite number.
    """
    from perfeval.cli import slices_ci
    from perfeval.cli.output import csv_field, csv_number

    sl = report.slices
    head = ["slicing", "slice", "rows", "cases", "weight", "positives", "negatives", "flagged"]
    head += sl.measures + [f"why_{m}" for m in sl.measures]
    head += slices_ci.csv_head(report)  # with --ci: the intervals and the tests
    lines = [",".join(csv_field(h) for h in head)]
    for s in sl.slicings:
        v = s.values
        for i, key in enumerate(s.keys):
            cells = [csv_field(s.name), csv_field(_key(key)), str(int(v.rows[i])), str(int(v.cases[i]))]
            cells.append(csv_number(float(v.weight[i])))
            for arr in (v.positives, v.negatives):
                cells.append("" if arr is None else csv_number(float(arr[i])))
            cells.append("true" if s.flagged[i] else "false")
            cells += [csv_number(float(v.values[m][i])) for m in sl.measures]
            cells += [csv_number(v.reasons.get(m, {}).get(i)) for m in sl.measures]
            cells += slices_ci.csv_cells(report, s, i)
            lines.append(",".join(cells))
    return "\n".join(lines) + "\n"
