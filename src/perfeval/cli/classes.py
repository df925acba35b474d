"""``perfeval eval`` of K classes: one score column a class (wide, as pandas writes ``predict_proba``
with ``columns=model.classes_``) or one row a case and class (``--long``), read with every error
naming the file, the line and the column, then checked and finished by the engine
(:func:`perfeval.engine.door.check_classes`, :func:`perfeval.engine.classes.finish_classes`), or
folded chunk by chunk (``--stream``: :func:`perfeval.backends.stream.evaluate_stream_classes`, the
same bits).

The class columns are named once, and how the classes were found is said in the output
(``params["classes_from"]``): ``--score`` of a column a class with ``--classes`` (a label a column,
in order); ``--score`` alone when the columns' names are the labels (every target names a column);
``--score-prefix p_`` (the columns ``p_<label>``, in the file's order).  Labels are matched as
written: the target ``2`` is the class of a column named ``2`` (as :func:`perfeval.evaluate` reads
a DataFrame's column names against integer targets), ``2.0`` is not.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from perfeval.base.progress import wanted
from perfeval.base.text import place
from perfeval.cli import load
from perfeval.engine.long import SHOWN, key, listing
from perfeval.exceptions import InputFormatError, InvalidParameterError

__all__ = [
    "Classes",
    "choose_wide",
    "label_positions",
    "names_are_classes",
    "read_table",
    "read_wide",
    "requested",
    "run",
    "target_codes",
    "wide_report",
]


def requested(args: Any) -> bool:
    """Whether the command line asks for K classes by one of its own options."""
    return bool(
        getattr(args, "classes", None) or getattr(args, "score_prefix", None) or getattr(args, "long", False)
    )


class Classes:
    """The K classes: their labels (typed as the target column's: ints when it holds integers),
    their keys as written (for matching) and how they were found (the output says it).
    """

    def __init__(self, written: list[str], how: str):
        if len(set(written)) != len(written):
            twice = next(c for c in written if written.count(c) > 1)
            raise InvalidParameterError(f"the classes name {twice!r} twice: one label a score column")
        self.written, self.how = written, how
        self.index = {c: i for i, c in enumerate(written)}
        self.labels: tuple = tuple(written)

    def typed(self, y: Any) -> Classes:
        """The labels as the target column ``y`` holds them (ints against integers, as evaluate())."""
        kind = np.asarray(y).dtype.kind
        if kind in "iu":
            try:
                nums = tuple(int(c) for c in self.written)
            except ValueError:
                return self
            if all(str(n) == c for n, c in zip(nums, self.written, strict=True)):
                self.labels = nums
        elif kind == "b" and all(c in ("True", "False") for c in self.written):
            self.labels = tuple(c == "True" for c in self.written)
        return self

    @property
    def k(self) -> int:
        return len(self.written)

    def codes(self, where: Any, name: str, y: Any, what: str = "target") -> np.ndarray:
        """``y`` as codes 0..K-1, or one line naming the first line whose label is none of the classes."""
        y = np.asarray(y)
        if not len(y):
            return np.zeros(0, dtype=np.intp)
        try:
            uniq, inv = np.unique(y, return_inverse=True)
        except TypeError:  # mixed Python objects (a Parquet column of several types): as text
            uniq, inv = np.unique(np.array([key(v) for v in y.tolist()]), return_inverse=True)
        inv = inv.reshape(-1)
        lookup = np.array([self.index.get(key(u), -1) for u in uniq.tolist()], dtype=np.intp)
        out = lookup[inv]
        bad = out < 0
        if bad.any():
            i = int(np.argmax(bad))
            v = y[i].item() if isinstance(y[i], np.generic) else y[i]
            raise InputFormatError(
                f"the {what} column {name!r} holds {key(v)!r}, which is not one of the {self.k} classes "
                f"({listing(self.written)}; from {self.how}){_hint(v, self.written)}",
                source=where.source,
                **where.at(i),
            )
        return out


def _hint(v: Any, written: list[str]) -> str:
    """A label that matches a class only as a number (``2.0`` against ``2``): said."""
    try:
        x = float(key(v))
    except ValueError:
        return ""
    for c in written:
        try:
            if float(c) == x:
                return f" (labels are matched as written: {key(v)!r} is not {c!r})"
        except ValueError:
            continue
    return ""


# -- the columns --------------------------------------------------------------------------------------------
def _score_spec(args: Any, names: list[str], header: bool, source: str, taken: set[int]) -> tuple[str, Any]:
    """(the --score spec of the class columns as positions, the classes' labels as written and how
    they were found): from --score-prefix, or --score with --classes, or --score's names.
    """
    prefix = getattr(args, "score_prefix", None)
    if prefix is not None:
        if args.score is not None:
            raise InvalidParameterError(
                "--score-prefix names the score columns: give it or --score, not both"
            )
        if not header:
            raise InvalidParameterError(
                f"--score-prefix {prefix}: {place(source)} has no header (no column names to match)"
            )
        found = [
            i for i, n in enumerate(names) if n.startswith(prefix) and len(n) > len(prefix) and i not in taken
        ]
        if len(found) < 2:
            raise InvalidParameterError(
                f"--score-prefix {prefix}: {place(source)} has {len(found)} column(s) named {prefix}<label> "
                f"(columns: {', '.join(names)}); K classes need K >= 2 score columns"
            )
        written = [names[i][len(prefix) :] for i in found]
        if getattr(args, "classes", None):
            given = _split(args.classes, "--classes")
            if given != written:
                raise InvalidParameterError(
                    f"--classes {args.classes} and --score-prefix {prefix} disagree: the columns "
                    f"{', '.join(names[i] for i in found)} give the classes {', '.join(written)}"
                )
        how = f"--score-prefix {prefix!r}: the columns {', '.join(names[i] for i in found)}"
        return ",".join(str(i + 1) for i in found), Classes(written, how)
    if args.score is None or "," not in args.score:
        raise InvalidParameterError(
            "K classes need a score column a class: --score p_cat,p_dog,p_bird --classes cat,dog,bird, "
            "or --score-prefix p_ (or --long with --class)"
        )
    spec = args.score
    cols = [c.strip() for c in spec.split(",")]
    if getattr(args, "classes", None):
        written = _split(args.classes, "--classes")
        if len(written) != len(cols):
            raise InvalidParameterError(
                f"--classes names {len(written)} labels for the {len(cols)} --score columns: one label a "
                "column, in order"
            )
        return spec, Classes(written, "--classes")
    return spec, None  # the columns' names, once they are chosen


def _split(text: str, flag: str) -> list[str]:
    out = [c.strip() for c in text.split(",")]
    if not all(out):
        raise InvalidParameterError(f"{flag} {text!r}: an empty label between commas")
    return out


def by_name(args: Any, header: bool) -> bool:
    """Whether a number the options give is a header's name when one is exactly that
    (:func:`perfeval.io.columns.names_first`, over every column option of the command).
    """
    from perfeval.io.columns import names_first

    return names_first(
        header,
        args.target,
        args.score,
        args.group,
        getattr(args, "weight", None),
        getattr(args, "id", None),
        getattr(args, "class_column", None),
    )


def choose_wide(args: Any, names: list[str], header: bool, source: str) -> tuple[Any, Classes]:
    """The columns of a wide table (target, a score a class, group, weight) and the classes."""
    from perfeval.io.columns import choose, pick

    first = by_name(args, header)
    taken = set()
    for spec, role in (
        (args.target, "target"),
        (args.group, "group"),
        (getattr(args, "weight", None), "weight"),
    ):
        c = pick(names, spec, role, source, header=header, default=role == "target", by_name=first)
        if c is not None:
            taken.add(c.index)
    if getattr(args, "id", None):
        c = pick(names, args.id, "id", source, header=header, default=False, by_name=first)
        if c is not None:
            taken.add(c.index)
    spec, classes = _score_spec(args, names, header, source, taken)
    ch = choose(
        names,
        source,
        header=header,
        target=args.target,
        score=spec,
        group=args.group,
        weight=getattr(args, "weight", None),
        several_scores=True,
        by_name=first,
        score_positions=getattr(args, "score_prefix", None) is not None,
    )
    if classes is None:
        classes = Classes([c.name for c in ch.scores], "the score columns' names (--score)")
    return ch, classes


# -- wide, in memory ----------------------------------------------------------------------------------------
def _wide(args: Any, table: Any, specs: list) -> Any:
    """The report of a wide table read whole: its columns chosen, checked with the file's lines,
    the targets coded, then the engine's door and finish.
    """
    from perfeval.engine.classes import finish_classes
    from perfeval.engine.door import check_classes

    t = table
    ch, classes = choose_wide(args, t.names, t.header, t.source)
    t.no_nulls([ch.target, *ch.scores, *(c for c in (ch.weight, ch.group) if c is not None)])
    load.say_columns(ch)
    raw = t.get(ch.target)
    classes.typed(raw)
    codes, *columns, w = load.earliest(
        lambda: target_codes(t, ch.target.name, raw, classes),
        *(lambda c=c: load.scores(t, c) for c in ch.scores),
        lambda: load.weights(t, ch.weight),
    )
    groups = None if ch.group is None else t.get(ch.group)
    s = np.column_stack(columns) if columns else np.zeros((0, classes.k))
    cases, _found, _how = check_classes(codes, s, groups, w, classes=tuple(range(classes.k)))
    report = finish_classes(cases, specs, classes.labels, threshold=0.5, classes_from=classes.how)
    report.params["source"] = t.source
    report.params["columns"] = ch.names()
    return report, cases


def read_wide(args: Any) -> Any:
    """The wide table read whole, the target column kept as written (``perfeval report`` reads it
    once, standard input too).
    """
    return read_table(args, label_positions(args, False))


def wide_report(args: Any, table: Any, specs: list) -> tuple[Any, Any]:
    """(the report, the checked cases) of a wide table read whole, as ``eval`` makes them."""
    return _wide(args, table, specs)


def target_codes(where: Any, name: str, y: Any, classes: Classes) -> np.ndarray:
    """A chunk's or a table's targets: none missing, each one of the classes; their codes."""
    bad = load.missing_rows(y)
    if len(bad):
        i = int(bad[0])
        raise InputFormatError(load.missing_message(name, y[i], None), source=where.source, **where.at(i))
    return classes.codes(where, name, y)


def read_table(args: Any, columns: Callable[[list[str], bool], list[int]]) -> Any:
    """The whole table, the columns ``columns`` names kept as written (labels: int64 or text)."""
    return load.read(args, args.file, labels=columns)


def label_positions(args: Any, long: bool) -> Callable[[list[str], bool], list[int]]:
    from perfeval.io.columns import pick

    source = "standard input" if args.file == "-" else args.file

    def positions(names: list[str], header: bool) -> list[int]:
        out = []
        for spec, role, default in ((args.target, "target", True), (args.class_column, "class", False)):
            if role == "class" and not long:
                continue
            try:
                c = pick(
                    names, spec, role, source, header=header, default=default, by_name=by_name(args, header)
                )
            except InvalidParameterError:  # said when the columns are chosen
                continue
            if c is not None:
                out.append(c.index)
        return out

    return positions


# -- long: one row a case and class (pivoted and checked by perfeval.engine.long, as evaluate() does) -------
class _FileRows:
    """The rows of a table read from a file, for :func:`perfeval.engine.long.pivot`: a row's line,
    and the file's one-line error.
    """

    def __init__(self, t: Any):
        self.t = t

    def position(self, row: int) -> str:
        return str(self.t.position(row))

    def fail(self, message: str) -> NoReturn:
        raise InputFormatError(message, source=self.t.source)


def _long(args: Any, specs: list) -> Any:
    """The report of a long table: pivoted to a case a row (cases in the order they first appear),
    every case with every class exactly once, the target read as labels or as a 0/1 marker
    (:func:`perfeval.engine.long.pivot`).
    """
    from perfeval.engine.classes import finish_classes
    from perfeval.engine.door import check_classes
    from perfeval.engine.long import pivot
    from perfeval.io.columns import pick

    if not getattr(args, "id", None) or not args.class_column:
        raise InvalidParameterError(
            "--long needs --id CASE (the case column) and --class CLASS (the class column)"
        )
    if args.score is not None and "," in args.score:
        raise InvalidParameterError("--long reads one --score column (a row a case and class)")
    if getattr(args, "score_prefix", None):
        raise InvalidParameterError("--long reads one --score column, not --score-prefix")
    t = read_table(args, label_positions(args, True))
    src = t.source
    ch = load.choose_table(args, t)
    named = by_name(args, t.header)
    idc = pick(t.names, args.id, "id", src, header=t.header, default=False, by_name=named)
    cc = pick(t.names, args.class_column, "class", src, header=t.header, default=False, by_name=named)
    assert idc is not None and cc is not None
    used = {c.index: c for c in ch.all()}
    for extra in (idc, cc):
        if extra.index in used:
            raise InvalidParameterError(
                f"{place(src)}: the {used[extra.index].role} and the {extra.role} would both be column "
                f"{extra.name!r} ({extra.index + 1})"
            )
        used[extra.index] = extra
    t.no_nulls(list(used.values()))
    load.say_columns(ch)
    ids, cls_col, target = t.get(idc), t.get(cc), t.get(ch.target)
    if getattr(args, "classes", None):
        classes = Classes(_split(args.classes, "--classes"), "--classes").typed(cls_col)
    else:
        seen = np.unique(cls_col)
        classes = Classes(
            [key(v) for v in seen.tolist()], f"the distinct values of the class column {cc.name!r}"
        )
        classes.typed(cls_col)
    if classes.k < 2:
        raise InputFormatError(
            f"the class column {cc.name!r} holds {classes.k} class(es) ({listing(classes.written)}); "
            "K classes need K >= 2",
            source=src,
        )
    k = classes.k
    cls, score, w = load.earliest(
        lambda: classes.codes(t, cc.name, cls_col, "class"),
        lambda: load.scores(t, ch.score),
        lambda: load.weights(t, ch.weight),
    )
    bad = load.missing_rows(target)
    if len(bad):
        i = int(bad[0])
        raise InputFormatError(load.missing_message(ch.target.name, target[i], None), source=src, **t.at(i))
    name = ch.target.name

    def coder(values: np.ndarray, strict: bool) -> np.ndarray | None:
        if not strict:
            try:
                keys = [key(v) for v in np.unique(values).tolist()]
            except TypeError:  # mixed Python objects: as text
                keys = sorted({key(v) for v in np.asarray(values).tolist()})
            if not all(c in classes.index for c in keys):
                return None
        return classes.codes(t, name, values)

    long = pivot(
        _FileRows(t),
        ids,
        cls,
        score,
        target,
        classes.labels,
        coder,
        id_name=idc.name,
        target_name=name,
        group=None if ch.group is None else (ch.group.name, t.get(ch.group)),
        weight=None if w is None else (ch.weight.name, w),
    )
    cases, _found, _how = check_classes(long.y, long.s, long.groups, long.weights, classes=tuple(range(k)))
    report = finish_classes(cases, specs, classes.labels, threshold=0.5, classes_from=classes.how)
    report.params["source"] = src
    report.params["columns"] = {**ch.names(), "id": idc.name, "class": cc.name}
    report.params["target_form"] = long.form
    report.params["cases"] = len(long.case_ids)
    return report, cases


# -- streamed ----------------------------------------------------------------------------------------
def _stream(args: Any, path: str | None, specs: list, totals: dict | None = None) -> Any:
    """A wide table read in chunks, each checked as a table read whole is and its rows folded into
    one summary in row order (:func:`perfeval.backends.stream.evaluate_stream_classes`), or with
    --group spilled by group and finished group by group
    (:func:`perfeval.backends.stream.evaluate_stream_grouped_classes`, ``totals`` getting the summary
    of all the rows): the bits of the evaluation in memory.
    """
    from perfeval.backends.stream import evaluate_stream_classes, evaluate_stream_grouped_classes
    from perfeval.io.readers import iter_columns

    source = path or "standard input"
    chosen: list = []

    def chooser(names: list[str], header: bool) -> list[int | None]:
        ch, classes = choose_wide(args, names, header, source)
        chosen.append((ch, classes))
        load.say_columns(ch)
        return [
            ch.target.index,
            None if ch.weight is None else ch.weight.index,
            None if ch.group is None else ch.group.index,
            *(c.index for c in ch.scores),
        ]

    typed: list = []

    def convert(cols: list, where: Any) -> list:
        ch, classes = chosen[0]
        if not typed:  # the labels typed as the first chunk's target column holds them
            typed.append(classes.typed(cols[0]))
        t, w = cols[0], cols[1]
        codes, *scores, weights = load.earliest(
            lambda: target_codes(where, ch.target.name, t, classes),
            *(
                lambda c=c, v=v: load.score_values(where, c.name, v)
                for c, v in zip(ch.scores, cols[3:], strict=True)
            ),
            lambda: None if w is None else load.weight_values(where, ch.weight.name, w),
        )
        return [codes, weights, np.column_stack(scores), cols[2]]

    cols = iter_columns(
        path,
        chooser,
        args.input_format,
        args.header,
        progress=wanted(args),
        ids={2: "--group"},
        labels=(0,),
        delimiter=args.delimiter,
        convert=convert,
    )
    if args.group is None:
        chunks: Any = ((c[0], c[2], c[1]) for c in cols)
    else:  # spilled by group to temporary files (or --clustered), then evaluated group by group
        chunks = ((c[0], c[2], c[3]) if c[1] is None else (c[0], c[2], c[3], c[1]) for c in cols)
    first = next(chunks)  # the header read: the classes known
    ch, classes = chosen[0]
    if args.group is None:
        report = evaluate_stream_classes(
            itertools.chain([first], chunks),
            classes.labels,
            measures=specs,
            classes_from=classes.how,
            coded=True,
        )
    else:
        report = evaluate_stream_grouped_classes(
            itertools.chain([first], chunks),
            classes.labels,
            measures=specs,
            classes_from=classes.how,
            coded=True,
            clustered=getattr(args, "clustered", False),
            size_hint=os.path.getsize(path) if path is not None and os.path.isfile(path) else None,
            progress=wanted(args),
            totals=totals,
        )
    ch, _classes = chosen[0]
    report.params["source"] = source
    report.params["columns"] = ch.names()
    return report


# -- is it K classes? ---------------------------------------------------------------------------------------
def names_are_classes(args: Any, names: list[str], table: Any) -> bool:
    """``--score a,b,c`` without ``--classes``: K classes when every target names one of the score
    columns (their names are the labels, as pandas writes ``predict_proba``); several models (one row
    each) when the targets are a 0/1 coding otherwise.  Targets that are neither (labels that no
    column is named after) are one line saying how to name the classes.  ``table``: the table read
    whole, or None (``--stream``: the first chunk's targets decide).
    """
    if args.pos_label is not None or getattr(args, "partition", None):
        return False
    from perfeval.base.checks import binary_coding
    from perfeval.io.columns import choose
    from perfeval.io.grammar import is_number

    try:  # columns the models' path refuses (one named twice): said there, in its words
        if table is not None:
            ch = choose(
                table.names,
                table.source,
                header=table.header,
                target=args.target,
                score=args.score,
                group=args.group,
                weight=getattr(args, "weight", None),
                several_scores=True,
            )
            y = table.get(ch.target)
            source, where = table.source, table
        else:
            got = _first_targets(args)
            if got is None:
                return False
            ch, y, source, where = got
    except InvalidParameterError:
        return False
    cols = [c.name for c in ch.scores]
    y = np.asarray(y)
    # a table read whole holds numbers as float64: an integral one is the label written (2, not 2.0)
    seen = {_number_key(v) for v in np.unique(y).tolist()} if len(y) else set()
    if seen and seen <= set(cols) and len(cols) >= 3:
        return True
    if len(cols) >= 2 and set(cols) < seen and binary_coding(y) is None:
        _no_column_for(ch.target.name, y, cols, source, where)
    if binary_coding(y) is not None or y.dtype.kind not in "USO" or any(is_number(v) for v in seen):
        return False  # numbers (0/1, grades): several models, a row each, as ever
    if len(seen) > len(cols):  # more labels than columns: no column a class (the binary measures say it)
        return False
    shown = ", ".join(sorted(seen)[:SHOWN]) + (", ..." if len(seen) > SHOWN else "")
    prefix = os.path.commonprefix(cols)
    advice = f" (or --score-prefix {prefix})" if prefix and all(len(c) > len(prefix) for c in cols) else ""
    # the fix is an option (--classes): a usage error (exit 2), said of the file it read
    raise InvalidParameterError(
        f"{source}: the target column {ch.target.name!r} holds {len(seen)} labels ({shown}) and --score "
        f"names {len(cols)} columns ({', '.join(cols)}), not named after them: for a score column a "
        f"class, name the classes in column order with --classes LABEL,...{advice}; several models "
        "(one row each) need 0/1 targets or --pos-label"
    )


def _no_column_for(name: str, y: Any, cols: list[str], source: str, where: Any) -> None:
    """Every --score column is named after a target, but some target has none: one line naming the
    first such target and its line (a class's column left out of --score, or missing from the file).
    """
    keys = [_number_key(v) for v in y.tolist()]
    missing = ~np.isin(np.array(keys), cols)
    i = int(np.argmax(missing))
    others = sorted({k for k, m in zip(keys, missing.tolist(), strict=True) if m} - {keys[i]})
    more = f" (and {len(others)} other label(s): {', '.join(others[:SHOWN])})" if others else ""
    raise InputFormatError(
        f"the target {keys[i]!r} in column {name!r} has no score column among those --score names "
        f"({', '.join(cols)}){more}: the score columns are named after the classes, one a class "
        "(add its column to --score, or name the columns' classes with --classes)",
        source=source,
        **({} if where is None else where.at(i)),
    )


def _number_key(v: Any) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return str(int(v))
    return key(v)


def _first_targets(args: Any) -> tuple[Any, Any, str, Any] | None:
    """The column choice, the first chunk's targets, the file and where the chunk's rows are (their
    lines) of a file read in chunks (None: standard input).
    """
    from perfeval.io.columns import choose
    from perfeval.io.readers import iter_columns

    path = load.path_of(args.file)
    if path is None:
        return None
    chosen: list = []

    def chooser(names: list[str], header: bool) -> list[int | None]:
        ch = choose(
            names,
            path,
            header=header,
            target=args.target,
            score=args.score,
            group=args.group,
            weight=getattr(args, "weight", None),
            several_scores=True,
        )
        chosen.append(ch)
        return [ch.target.index]

    places: list = []

    def convert(cols: list, where: Any) -> list:
        places.append(where)
        return cols

    it: Any = iter_columns(
        path,
        chooser,
        args.input_format,
        args.header,
        labels=(0,),
        delimiter=args.delimiter,
        convert=convert,
    )
    try:
        first = next(it)
    finally:
        it.close()
    return chosen[0], first[0], path, places[0] if places else None


# -- the command ------------------------------------------------------------------------------------------
def _refuse(args: Any) -> None:
    """The options that do not apply to K classes (yet): one line each, before any work."""
    for flag, on in (
        ("--pos-label", args.pos_label is not None),
        ("--partition", bool(args.partition)),
        ("--dialect", (getattr(args, "dialect", "perfeval") or "perfeval") != "perfeval"),
    ):
        if on:
            raise InvalidParameterError(
                f"{flag} does not apply to K classes (a score column a class) yet; "
                "the multiclass measures: `perfeval list-measures`"
            )
    if args.threshold != 0.5:
        raise InvalidParameterError(
            f"-t {args.threshold:g}: a threshold does not apply to K classes (the prediction is the argmax)"
        )
    if getattr(args, "class_column", None) and not getattr(args, "long", False):
        raise InvalidParameterError("--class names the class column of --long (a row a case and class)")
    if args.ci is not None and (args.group is not None or args.stream):
        raise InvalidParameterError(
            "--ci of K classes is over all the cases, in memory: not with "
            f"{'--group' if args.group is not None else '--stream'} yet"
        )


def _statistics(args: Any, report: Any, cases: Any, specs: list) -> None:
    """``--tie-bounds`` (:mod:`perfeval.engine.class_bounds`) and ``--ci`` (the case bootstrap of
    :func:`perfeval.stats.ci` for K classes, the numbers of ``ci(y, S, classes=)``) on the cases read.
    """
    if args.tie_bounds:
        from perfeval.engine.class_bounds import with_tie_bounds

        with_tie_bounds(report, cases, specs)
    if args.ci is not None:
        from perfeval.stats import ci

        report.intervals = ci(
            cases.y,
            cases.s,
            measures=specs,
            method=args.method or "bca",
            level=args.ci,
            n_boot=args.n_boot,
            seed=args.seed,
            sample_weight=cases.w,
            classes=tuple(range(len(report.params["classes"]))),
            progress=wanted(args),
        )


def run(args: Any, table: Any = None, *, stream_bytes: int) -> int:
    """``perfeval eval`` of K classes; ``table``: the table read whole already, when it was; a file
    over ``stream_bytes`` is streamed (without --group), as the binary measures are.
    """
    from perfeval.cli.output import classes_text, group_csv, write
    from perfeval.engine import resolve
    from perfeval.engine.classes import class_specs
    from perfeval.summaries.classes import ClassSummary

    _refuse(args)
    default = not args.measures
    specs = class_specs([] if default else resolve(args.measures, 0.5, pending=True), default=default)
    path = load.path_of(args.file)
    big = path is not None and os.path.isfile(path) and os.path.getsize(path) > stream_bytes
    cases = None
    confusion_summary = None
    if args.dask is not None:  # the files read as Dask partitions, the summaries merged on the cluster
        from perfeval.cli.dask_tables import classes_report

        report = classes_report(args, path, choose_wide)
    elif args.long:
        if args.stream:
            raise InvalidParameterError(
                "--long --stream: a case's rows may lie in different chunks; drop --stream (--long reads the "
                "table whole)"
            )
        report, cases = _long(args, specs)
    elif args.stream or (big and args.group is None and args.ci is None and not args.tie_bounds):
        totals: dict | None = {} if getattr(args, "confusion", False) and args.group is not None else None
        report = _stream(args, path, specs, totals)
        if totals:  # per group: the confusion over all the cases, folded as the rows were read
            confusion_summary = totals["summary"]
    else:
        if table is None:
            table = read_table(args, label_positions(args, False))
        report, cases = _wide(args, table, specs)
    if cases is not None and (args.tie_bounds or args.ci is not None):
        _statistics(args, report, cases, specs)
    confusion = None
    if getattr(args, "confusion", False):
        summary = report.summary if confusion_summary is None else confusion_summary
        if summary is None and cases is not None:  # per group: the confusion over all the cases
            summary = ClassSummary.from_checked(cases.y, cases.s, cases.w, tuple(report.params["classes"]))
        confusion = summary.confusion
    text = classes_text(report, args.format, args.per_group, confusion)
    if args.per_group_output:
        from perfeval.base.console import write_file

        write_file(args.per_group_output, group_csv(report).encode("utf-8"))
        import sys

        sys.stderr.write(f"perfeval: wrote {place(args.per_group_output)}\n")
    write(text)
    return 0
