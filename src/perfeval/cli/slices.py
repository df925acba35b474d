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
from collections.abc import Callable, Mapping
from typing import Any

from perfeval.base.text import decimals, shown
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
    if getattr(args, "intersections", False) and len(by) > 10:
        from perfeval.engine.slice_report import MAX_SLICINGS

        raise InvalidParameterError(
            f"--intersections of {len(by)} --by columns would make {2 ** len(by) - 1:,} slicings (each "
            f"column and every intersection of 2 to {len(by)} of them), more than {MAX_SLICINGS:,} (2^10): "
            "name at most 10 columns (in Python, name the intersections wanted: by=['a', ('a', 'b')])"
        )
    if args.min_size is not None and args.min_size < 1:
        raise InvalidParameterError(f"--min-size must be a whole number >= 1 (cases), got {args.min_size}")
    for flag, on in (
        ("--tie-bounds", getattr(args, "tie_bounds", False)),
        ("--dialect", (getattr(args, "dialect", "perfeval") or "perfeval").split(":")[0] != "perfeval"),
        ("--long", getattr(args, "long", False)),
    ):
        if on:
            raise InvalidParameterError(f"--by: not with {flag} yet")


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


def models_with_slices(reports: dict[str, Any], output: str, text_: str) -> str:
    """Several models' output (``eval --score a,b``; ``text_``: the table of the models) with each
    model's slices: ``table``, the slicings' tables of each model in turn, named; ``csv``, the slices
    of every model as one table (``model`` its first column); ``json`` as it is (each model's report
    holds its slices).
    """
    if output == "json" or any(r.slices is None for r in reports.values()):
        return text_
    if output == "csv":
        from perfeval.cli.output import csv_field

        body = [csv(r).splitlines() for r in reports.values()]
        lines = ["model," + body[0][0]]
        for name, b in zip(reports, body, strict=True):
            lines += [f"{csv_field(name)},{line}" for line in b[1:]]
        return "\n".join(lines) + "\n"
    lines = [text_.rstrip("\n")]
    for name, r in reports.items():
        lines += text(r, model=name)
    return "\n".join(lines) + "\n"


def by_columns(args: Any, table: Any, taken: Mapping[str, Any]) -> dict[str, Any]:
    """The slice columns of ``--by`` in a table read whole, by name: each picked by name or position
    (none of them a column the evaluation reads: ``taken``, a role's column or columns), an empty
    field a missing value.
    """
    from perfeval.io.columns import pick

    by: dict[str, Any] = {}
    for spec in columns(args):
        col = pick(table.names, spec, "by", table.source, header=table.header, default=False)
        assert col is not None  # a spec given: a column, or pick's one line
        values = table.data[col.index]
        if col.index in table.empties:  # an empty field is a missing value (text columns)
            values = with_empties(values)
        by[col.name] = values
    for role, given in taken.items():
        for col in given if isinstance(given, (list, tuple)) else [given]:
            if col is not None and col.name in by:
                raise InvalidParameterError(
                    f"--by {col.name!r} is the {role} column: a slice column is another column"
                )
    return by


def request_of(args: Any, table: Any, chosen: Any, weights: Any) -> Any:
    """The slice request of ``--by`` over a table read whole (:func:`by_columns`), its messages
    naming the file's lines.  ``chosen``: the columns the evaluation reads, by role (a mapping), or
    the chosen columns of one score a case (their ``target``, ``score`` and ``weight``).
    """
    from perfeval.api.slices import request

    taken = (
        chosen
        if isinstance(chosen, Mapping)
        else {"target": chosen.target, "score": chosen.score, "weight": chosen.weight}
    )
    out = request(
        by_columns(args, table, taken),
        None,
        intersections=bool(args.intersections),
        min_size=args.min_size,
        missing="slice" if args.missing_slice else "error",
        weights=weights,
        position=table.position,
    )
    out.words = ("a missing value (an empty field, or a null)", "--missing-slice")
    out.listed = listed(args)
    return out


def listed(args: Any) -> str:
    """Where the command lists every undefined slice with its reason, in its user's words (the
    library says ``report.slices``): the slices tables, or the output's ``slices``.
    """
    fmt = getattr(args, "format", "text")
    if fmt == "json":
        return 'the JSON\'s "slices"'
    if fmt in ("csv", "tsv"):
        return "the slices' rows (their why_ columns)"
    return "the slices tables"


def picked(args: Any, names: list[str], header: bool, source: str, chosen: Any) -> list[Any]:
    """The ``--by`` columns of a table read in chunks, on Dask or on Spark (its ``names``): each picked
    by name or position, none of them a column the evaluation reads (``chosen``: the chosen columns
    of one score a case, or a mapping of a role to its column or columns; one line, as read whole).
    """
    from perfeval.io.columns import pick

    out = []
    for spec in columns(args):
        col = pick(names, spec, "by", source, header=header, default=False)
        assert col is not None  # a spec given: a column, or pick's one line
        out.append(col)
    taken = (
        chosen
        if isinstance(chosen, Mapping)
        else {"target": chosen.target, "score": chosen.score, "weight": chosen.weight}
    )
    for col in out:
        for role, given in taken.items():
            for other in given if isinstance(given, (list, tuple)) else [given]:
                if other is not None and other.name == col.name:
                    raise InvalidParameterError(
                        f"--by {col.name!r} is the {role} column: a slice column is another column"
                    )
    return out


class Placed:
    """The checks of each chunk read (``inner``: :class:`perfeval.cli.load.ChunkChecks`), the chunk's
    table (where its rows are: their file lines, and its empty fields) kept after its columns, for
    the slices (:func:`chunk_slices`).
    """

    def __init__(self, inner: Any, keep: bool = True):
        self.inner, self.keep = inner, keep

    def __call__(self, cols: list, where: Any) -> list:
        out = self.inner(cols, where)
        return [*out, where] if self.keep else out


def chunk_slices(args: Any, cols: Any, by_columns: list, checks: Placed) -> tuple[Any, dict]:
    """The chunks of a table read in chunks with their slice columns as their last item (read as in
    memory: identities, an empty field a missing value, messages at the file's lines), and the
    stream's ``by=`` (the first chunk is read here: the columns' names come with it).
    """
    import itertools

    from perfeval.backends.slices import ChunkSlices

    checks.keep = True
    it = iter(cols)
    first = next(it)  # the header read, the columns picked (no data: the reader's error)
    ask = ask_of(args, list(dict.fromkeys(c.name for c in by_columns)))

    def chunks() -> Any:
        for c in itertools.chain([first], it):
            *head, where = c
            by: dict[str, Any] = {}
            for col, values in zip(by_columns, head[5:], strict=True):
                if col.index in getattr(where, "empties", {}):  # an empty field is a missing value
                    values = with_empties(values)
                by[col.name] = values
            yield [*head[:5], ChunkSlices(by, where.position)]

    return chunks(), {"by": ask}


class DaskColumns:
    """The ``--by`` columns of ``perfeval eval --dask``: picked when the files' columns are known
    (:func:`perfeval.backends.dask.read_files`' ``by``), then read as in memory (:meth:`sliced`).
    """

    def __init__(self, args: Any, path: str, taken: Callable[[], Mapping[str, Any]] | None = None):
        self.args, self.path, self.taken = args, path, taken
        self.columns: list = []

    def __call__(self, names: list[str], header: bool, chosen: Any) -> list:
        """The ``--by`` columns among the files' ``names``: none of them a column the evaluation reads
        (``chosen``, the choice of one score a case; or, for K classes and K labels, whose columns
        are chosen by the caller, what ``taken`` gives when called: a role's column or columns).
        """
        if not columns(self.args):
            self.columns = []
            return self.columns
        roles = chosen if self.taken is None else self.taken()
        self.columns = picked(self.args, names, header, self.path, roles)
        return self.columns

    def sliced(self, ddf: Any, names: list[str], read: dict) -> tuple[Any, dict]:
        """The frame, and evaluate_dask's ``by=`` (none without ``--by``)."""
        if not self.columns:
            return ddf, {}
        return dask_slices(self.args, ddf, [names[c.index] for c in self.columns], read)


def with_empties(values: Any, exact: bool = False) -> Any:
    """A slice column read as text because some fields are empty (missing values), read as an
    identity column is: integers when every other value is a plain integer (as Parquet's integers
    with nulls), else the text; an empty field None or NaN, a missing value.  The integers as float64
    with NaN where empty when each is below 2**53 (coded as integers, quickly), else (``exact``: the
    frame of a Dask partition, whose column stays objects) as Python integers and None.
    """
    import numpy as np

    from perfeval.io.grammar import identity

    held = np.asarray(values)
    empty = held == ""
    ids = identity(held[~empty].tolist())
    if ids.dtype.kind != "i":
        return np.where(empty, np.array(None), held.astype(object))
    if not exact and (not len(ids) or bool(((ids > -(2**53)) & (ids < 2**53)).all())):
        out = np.full(len(held), np.nan)
        out[~empty] = ids
        return out
    objects = np.full(len(held), None, dtype=object)
    objects[~empty] = ids.tolist()
    return objects


def dask_slices(args: Any, ddf: Any, names: list[str], read: dict) -> tuple[Any, dict]:
    """The frame of ``perfeval eval --dask --by`` with its slice columns read as in memory (an empty
    field of a text file a missing value), and evaluate_dask's ``by=``.
    """
    names = list(dict.fromkeys(names))
    if read.get("format") in ("text", "csv", "tsv"):

        def blank_missing(part: Any) -> Any:
            part = part.copy()
            for n in names:
                col = part[n]
                if col.dtype.kind in "OU":
                    held = col.astype(object).where(col.notna(), "").astype(str).to_numpy()
                    part[n] = with_empties(held, exact=True)
            return part

        meta = ddf._meta.copy()
        for n in names:
            if meta[n].dtype.kind in "OU":
                meta[n] = meta[n].astype(object)
        ddf = ddf.map_partitions(blank_missing, meta=meta)
    return ddf, {"by": ask_of(args, names)}


def ask_of(args: Any, names: list[str]) -> Any:
    """The slicings of ``--by`` over the columns ``names`` (a backend's, with the command's words
    for a missing value).
    """
    from dataclasses import replace

    from perfeval.backends.slices import ask_of as backend_ask

    ask = backend_ask(
        names,
        intersections=bool(args.intersections),
        min_size=args.min_size,
        missing="slice" if args.missing_slice else "error",
    )
    assert ask is not None
    words = ("a missing value (an empty field, or a null)", "--missing-slice")
    return replace(ask, words=words, text_ids=True, listed=listed(args))


def _key(key: Any) -> str:
    return " x ".join(map(str, key)) if isinstance(key, tuple) else str(key)


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        return decimals(v)
    return str(v)


def _count(v: float) -> str:
    return f"{v:.15g}"


def text(report: Any, model: str | None = None) -> list[str]:
    """The lines of every slicing under the overall table: its slices, why a value is undefined, the
    gaps (``model``: whose, named in each heading, of several).
    """
    from perfeval.cli import slices_ci
    from perfeval.cli.output import table

    sl = report.slices
    lines: list[str] = []
    weighted = bool(report.params.get("weighted"))
    for s in sl.slicings:
        v = s.values
        flagged = int(s.flagged.sum())
        whose = "" if model is None else f"{shown(model)}: "
        head = f"{whose}slices by {shown(s.name)} ({len(s)}"
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
        lines += _gaps(sl, s, whose)
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


def _gaps(sl: Any, s: Any, whose: str = "") -> list[str]:
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
        f"{whose}gaps by {shown(s.name)} (difference: max - min; ratio: min / max; worst: by the measure's "
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
