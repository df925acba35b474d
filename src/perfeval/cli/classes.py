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
from perfeval.cli import load, slices
from perfeval.engine.long import SHOWN, key, listing
from perfeval.exceptions import InputFormatError, InvalidParameterError

__all__ = [
    "Classes",
    "choose_long",
    "choose_wide",
    "label_positions",
    "long_classes",
    "names_are_classes",
    "number_key",
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
            if isinstance(v, str) and v == "":  # an empty field of a CSV/TSV
                from perfeval.io.tables import empty_message

                raise InputFormatError(empty_message(name, what), source=where.source, **where.at(i))
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
    from perfeval.engine.door import check_classes

    t = table
    ch, classes = choose_wide(args, t.names, t.header, t.source)
    # a null first (Parquet); an empty field (CSV) among the values: the file's first bad line
    t.no_nulls(ch.all(), empties=False)
    load.say_columns(ch)
    raw = t.get(ch.target, empties=False)
    classes.typed(raw)
    codes, *columns, w, _ = load.earliest(
        lambda: target_codes(t, ch.target.name, raw, classes),
        *(lambda c=c: load.scores(t, c) for c in ch.scores),
        lambda: load.weights(t, ch.weight, specs),
        lambda: t.no_empties(ch.all()),
    )
    groups = None if ch.group is None else t.get(ch.group)
    s = np.column_stack(columns) if columns else np.zeros((0, classes.k))
    cases, _found, _how = check_classes(codes, s, groups, w, classes=tuple(range(classes.k)))
    report = _finish(args, cases, specs, classes.labels, classes.how)
    if slices.columns(args):  # --by: every slice finished as the whole was (docs/slices.md)
        from perfeval.engine.slices import Task

        taken = {"target": ch.target, "score": list(ch.scores), "weight": ch.weight}
        by = slices.request_of(args, t, taken, w)
        task = Task("classes", tuple(specs), classes=tuple(classes.labels), classes_from=classes.how)
        by.attach(report, cases, task)
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

    def written(self, row: int, name: str, value: Any) -> str:
        return str(self.t.written(row, name, float(value)))  # the file's text, read again


def _long_options(args: Any) -> None:
    """The options --long needs and refuses: one line each, before any work."""
    if not getattr(args, "id", None) or not args.class_column:
        raise InvalidParameterError(
            "--long needs --id CASE (the case column) and --class CLASS (the class column)"
        )
    if args.score is not None and "," in args.score:
        raise InvalidParameterError("--long reads one --score column (a row a case and class)")
    if getattr(args, "score_prefix", None):
        raise InvalidParameterError("--long reads one --score column, not --score-prefix")


def _long_columns(args: Any, ch: Any, names: list[str], header: bool, src: str) -> tuple[Any, Any]:
    """The case and class columns of a long table (``ch``: its target, score, group and weight),
    none of them one of the others.
    """
    from perfeval.io.columns import pick

    named = by_name(args, header)
    idc = pick(names, args.id, "id", src, header=header, default=False, by_name=named)
    cc = pick(names, args.class_column, "class", src, header=header, default=False, by_name=named)
    assert idc is not None and cc is not None
    used = {c.index: c for c in ch.all()}
    for extra in (idc, cc):
        if extra.index in used:
            raise InvalidParameterError(
                f"{place(src)}: the {used[extra.index].role} and the {extra.role} would both be column "
                f"{extra.name!r} ({extra.index + 1})"
            )
        used[extra.index] = extra
    return idc, cc


def choose_long(args: Any, names: list[str], header: bool, src: str) -> tuple[Any, Any, Any]:
    """The columns of a long table: (its target, score, group and weight, its case column, its
    class column), by the options of --long.
    """
    _long_options(args)
    ch = load.choose_columns(args, names, header, src)
    idc, cc = _long_columns(args, ch, names, header, src)
    return ch, idc, cc


def long_classes(args: Any, kind: Any, name: str) -> tuple[list | None, str]:
    """The classes of a long table read on Dask, as said in the output: ``--classes`` typed as the
    class column ``name`` holds them (``kind``: an empty array of its type), else None (the class
    column's distinct values, found on the cluster).
    """
    if getattr(args, "classes", None):
        return list(Classes(_split(args.classes, "--classes"), "--classes").typed(kind).labels), "--classes"
    return None, f"the distinct values of the class column {name!r}"


def _long_classes(args: Any, cls_col: Any, name: str, src: str) -> Classes:
    """The classes of a long table: ``--classes``, else the class column's distinct values, sorted;
    typed as the class column holds them.
    """
    if getattr(args, "classes", None):
        classes = Classes(_split(args.classes, "--classes"), "--classes").typed(cls_col)
    else:
        seen = np.unique(
            cls_col[cls_col != ""] if cls_col.dtype.kind == "U" else cls_col
        )  # empty: said below
        classes = Classes(
            [key(v) for v in seen.tolist()], f"the distinct values of the class column {name!r}"
        )
        classes.typed(cls_col)
    if classes.k < 2:
        raise InputFormatError(
            f"the class column {name!r} holds {classes.k} class(es) ({listing(classes.written)}); "
            "K classes need K >= 2",
            source=src,
        )
    return classes


def _long_coder(classes: Classes, where: Any, name: str) -> Callable[[np.ndarray, bool], np.ndarray | None]:
    """The ``coder`` of :func:`perfeval.engine.long.pivot`: the targets as codes when every one is a
    class, else None (``strict``: the line of the first that is none).
    """

    def coder(values: np.ndarray, strict: bool) -> np.ndarray | None:
        if not strict:
            try:
                keys = [key(v) for v in np.unique(values).tolist()]
            except TypeError:  # mixed Python objects: as text
                keys = sorted({key(v) for v in np.asarray(values).tolist()})
            if not all(c in classes.index for c in keys):
                return None
        return classes.codes(where, name, values)

    return coder


def _missing_target(where: Any, name: str, target: Any) -> None:
    """A target that is missing (``NA``, empty): one line naming its line."""
    bad = load.missing_rows(target)
    if len(bad):
        i = int(bad[0])
        raise InputFormatError(
            load.missing_message(name, target[i], None), source=where.source, **where.at(i)
        )


def _long(args: Any, specs: list) -> Any:
    """The report of a long table: pivoted to a case a row (cases in the order they first appear),
    every case with every class exactly once, the target read as labels or as a 0/1 marker
    (:func:`perfeval.engine.long.pivot`).
    """
    from perfeval.engine.door import check_classes
    from perfeval.engine.long import pivot

    _long_options(args)
    t = read_table(args, label_positions(args, True))
    src = t.source
    ch = load.choose_table(args, t, empties=False)
    idc, cc = _long_columns(args, ch, t.names, t.header, src)
    used = [*ch.all(), idc, cc]
    t.no_nulls(used, empties=False)  # a null first (Parquet); an empty field among the values
    load.say_columns(ch)
    ids, cls_col, target = (t.get(c, empties=False) for c in (idc, cc, ch.target))
    classes = _long_classes(args, cls_col, cc.name, src)
    k = classes.k
    cls, score, w, _ = load.earliest(
        lambda: classes.codes(t, cc.name, cls_col, "class"),
        lambda: load.scores(t, ch.score),
        lambda: load.weights(t, ch.weight, specs),
        lambda: t.no_empties(used),
    )
    _missing_target(t, ch.target.name, target)
    long = pivot(
        _FileRows(t),
        ids,
        cls,
        score,
        target,
        classes.labels,
        _long_coder(classes, t, ch.target.name),
        id_name=idc.name,
        target_name=ch.target.name,
        group=None if ch.group is None else (ch.group.name, t.get(ch.group, empties=False)),
        weight=None if w is None else (ch.weight.name, w),
    )
    cases, _found, _how = check_classes(long.y, long.s, long.groups, long.weights, classes=tuple(range(k)))
    report = _finish(args, cases, specs, classes.labels, classes.how)
    report.params["source"] = src
    report.params["columns"] = {**ch.names(), "id": idc.name, "class": cc.name}
    report.params["target_form"] = long.form
    report.params["cases"] = len(long.case_ids)
    return report, cases


# -- long, streamed: a chunk's whole cases pivoted, a case whose rows run past its end carried on --------
class _NotTogether(InputFormatError):
    """A long table read in chunks whose case (``case``: as messages say it) appears again after
    other cases' rows (``at``: where): it cannot be streamed (a file over the stream's size without
    --stream is read whole instead).
    """

    def __init__(self, case: str, id_name: str, source: str, at: dict[str, int]):
        self.case = case
        super().__init__(
            f"case {case} (column {id_name!r}) appears again, after other cases' rows: --stream pivots a "
            "case's rows together; sort the file by case (its rows next to each other) or drop --stream",
            source=source,
            **at,
        )


class _Pieces:
    """The rows of a long table's pieces joined (a chunk, with the rows of a case carried on from
    the chunks before it): where each row is (its chunk's line), and the file's one-line error, for
    :func:`perfeval.engine.long.pivot` and the checks of the command (``source``, ``at``).
    """

    def __init__(self, source: str, parts: list[tuple[int, Any, int]], n: int):
        self.source = source
        self.parts = parts  # (first row here, the chunk's table, that row's row in the chunk)
        self.n = n

    def _find(self, row: int) -> tuple[Any, int]:
        starts = [p[0] for p in self.parts]
        j = int(np.searchsorted(starts, row, side="right")) - 1
        start, where, offset = self.parts[j]
        return where, row - start + offset

    def at(self, row: int) -> dict[str, int]:
        where, r = self._find(row)
        return where.at(r)

    def position(self, row: int) -> str:
        where, r = self._find(row)
        return str(where.position(r))

    def written(self, row: int, name: str, value: Any) -> str:
        where, r = self._find(row)
        return str(where.written(r, name, float(value)))  # the chunk's text, read again

    def fail(self, message: str) -> NoReturn:
        raise InputFormatError(message, source=self.source)

    def after(self, cut: int) -> list[tuple[int, Any, int]]:
        """The parts of the rows from ``cut`` on, counted from there."""
        out = []
        for j, (start, where, offset) in enumerate(self.parts):
            end = self.parts[j + 1][0] if j + 1 < len(self.parts) else self.n
            if end > cut:
                first = max(start, cut)
                out.append((first - cut, where, offset + first - start))
        return out


def _joined(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """A column carried on and a chunk's: one array; a column read as int64 in one chunk and as text
    in another (``7`` and ``x``) as text, as a table read whole holds it.
    """
    if a is None or b is None:
        return b if a is None else a
    if not len(a):
        return b
    kinds = {a.dtype.kind, b.dtype.kind}
    if len(kinds) > 1 and not kinds <= set("iu") and not kinds <= set("f"):
        a, b = (
            x.astype(str) if x.dtype.kind in "iuU" else np.array([key(v) for v in x.tolist()]) for x in (a, b)
        )
    return np.concatenate([a, b])


def _long_stream(args: Any, path: str | None, specs: list, totals: dict | None = None) -> Any:
    """A long table read in chunks: each chunk's whole cases (with the rows of a case that ran past
    the chunk before) pivoted by :func:`perfeval.engine.long.pivot` as the table read whole is, the
    cases folded into one summary in order (:func:`perfeval.backends.stream.evaluate_stream_classes`),
    or with --group spilled by group (:func:`perfeval.backends.stream.evaluate_stream_grouped_classes`):
    the bits of ``--long`` in memory.  A case's rows must lie together (the file sorted by case, or
    its rows next to each other): one that appears again after other cases' rows is
    :class:`_NotTogether`.  The classes: ``--classes``, else the first chunk's whole cases' (every
    case holds every class; a later case holding another is one line naming it).  The target is read
    as the first chunk's whole cases tell (labels or a 0/1 marker), the later chunks the same way.
    """
    from perfeval.backends.stream import evaluate_stream_classes, evaluate_stream_grouped_classes
    from perfeval.engine.long import Together, pivot, runs, said
    from perfeval.io.readers import iter_columns

    _long_options(args)
    source = path or "standard input"
    chosen: list = []

    def chooser(names: list[str], header: bool) -> list[int | None]:
        ch, idc, cc = choose_long(args, names, header, source)
        chosen.append((ch, idc, cc))
        load.say_columns(ch)
        return [
            ch.target.index,
            ch.score.index,
            None if ch.weight is None else ch.weight.index,
            None if ch.group is None else ch.group.index,
            idc.index,
            cc.index,
        ]

    def convert(cols: list, where: Any) -> list:
        ch, idc, cc = chosen[0]
        target, score, w, g, ids, cls_col = cols
        # an empty field of a column used (the case's and the class's too) among the values: the
        # chunk's first bad line; one of a column not used is no error
        s, weights, _ = load.earliest(
            lambda: load.score_values(where, ch.score.name, score),
            lambda: None if w is None else load.weight_values(where, ch.weight.name, w, specs),
            lambda: where.no_empties([*ch.all(), idc, cc]),
        )
        _missing_target(where, ch.target.name, target)
        return [ids, cls_col, s, target, weights, g, where]

    chunks: Any = iter_columns(
        path,
        chooser,
        args.input_format,
        args.header,
        progress=wanted(args),
        ids={3: "--group", 4: "--id"},
        labels=(0, 5),
        delimiter=args.delimiter,
        convert=convert,
    )
    state: dict[str, Any] = {"classes": None, "form": None, "cases": 0}
    together = Together()

    def pieces() -> Any:
        carry: list | None = None
        parts: list = []
        for chunk in chunks:
            *read, where = chunk
            n0 = 0 if carry is None else len(carry[0])
            cols: list = read if carry is None else [_joined(a, b) for a, b in zip(carry, read, strict=True)]
            rows = _Pieces(source, [*parts, (n0, where, 0)], len(cols[0]))
            cut = _whole_cases(rows, cols[0], together, last=False)
            if cut:
                yield _pivoted(rows, [c if c is None else c[:cut] for c in cols])
            carry = [c if c is None else c[cut:] for c in cols]
            parts = rows.after(cut)
        if carry is not None and len(carry[0]):
            rows = _Pieces(source, parts, len(carry[0]))
            _whole_cases(rows, carry[0], together, last=True)
            yield _pivoted(rows, carry)

    def _whole_cases(rows: _Pieces, ids: np.ndarray, together: Any, last: bool) -> int:
        """How many first rows hold whole cases (all but the last case's, unless ``last``)."""
        starts = runs(ids)
        r = together.again(ids, starts)
        if r is not None:
            raise _NotTogether(said(ids[r]), chosen[0][1].name, source, rows.at(r))
        cut = len(ids) if last else int(starts[-1])
        together.take(ids[:cut])
        return cut

    def _pivoted(rows: _Pieces, cols: list) -> tuple:
        ch, idc, cc = chosen[0]
        ids, cls_col, s, target, w, g = cols
        classes = state["classes"]
        if classes is None:  # the first whole cases': every case holds every class
            classes = state["classes"] = _long_classes(args, cls_col, cc.name, source)
        elif not getattr(args, "classes", None):
            _no_new_class(rows, classes, ids, cls_col, idc.name, cc.name)
        cls = classes.codes(rows, cc.name, cls_col, "class")
        long = pivot(
            rows,
            ids,
            cls,
            s,
            target,
            classes.labels,
            _long_coder(classes, rows, ch.target.name),
            id_name=idc.name,
            target_name=ch.target.name,
            group=None if g is None else (ch.group.name, g),
            weight=None if w is None else (ch.weight.name, w),
            form=state["form"],
        )
        state["form"] = long.form
        state["cases"] += len(long.case_ids)
        if args.group is None:
            return long.y, long.s, long.weights
        return (long.y, long.s, long.groups) if w is None else (long.y, long.s, long.groups, long.weights)

    feed = pieces()
    try:
        first = next(feed)  # the first whole cases read: the classes known
        classes = state["classes"]
        if args.group is None:
            report = evaluate_stream_classes(
                itertools.chain([first], feed),
                classes.labels,
                measures=specs,
                classes_from=classes.how,
                coded=True,
            )
        else:
            report = evaluate_stream_grouped_classes(
                itertools.chain([first], feed),
                classes.labels,
                measures=specs,
                classes_from=classes.how,
                coded=True,
                clustered=getattr(args, "clustered", False),
                size_hint=os.path.getsize(path) if path is not None and os.path.isfile(path) else None,
                progress=wanted(args),
                totals=totals,
            )
    finally:  # the file closed (and the progress line cleared) when a chunk is refused, too
        feed.close()
        chunks.close()
    ch, idc, cc = chosen[0]
    report.params["source"] = source
    report.params["columns"] = {**ch.names(), "id": idc.name, "class": cc.name}
    report.params["target_form"] = state["form"]
    report.params["cases"] = state["cases"]
    return report


def _no_new_class(
    rows: Any, classes: Classes, ids: np.ndarray, cls_col: np.ndarray, id_name: str, name: str
) -> None:
    """A class the first whole cases of a stream have no row of (the classes found there): one line
    naming the case and its line, as every case needs every class.
    """
    from perfeval.engine.long import said

    try:
        uniq, inv = np.unique(cls_col, return_inverse=True)
    except TypeError:  # mixed Python objects: as text
        uniq, inv = np.unique(np.array([key(v) for v in cls_col.tolist()]), return_inverse=True)
    new = np.array([key(u) not in classes.index for u in uniq.tolist()], dtype=bool)[inv.reshape(-1)]
    if new.any():
        r = int(np.argmax(new))
        rows.fail(
            f"case {said(ids[r])} (column {id_name!r}, {rows.position(r)}) has class {key(cls_col[r])!r}, "
            f"which the cases before it have no row of (their classes: {listing(classes.written)}): every "
            "case needs every class exactly once"
        )


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
        codes, *scores, weights, _ = load.earliest(
            lambda: target_codes(where, ch.target.name, t, classes),
            *(
                lambda c=c, v=v: load.score_values(where, c.name, v)
                for c, v in zip(ch.scores, cols[3:], strict=True)
            ),
            lambda: None if w is None else load.weight_values(where, ch.weight.name, w, specs),
            lambda: where.no_empties(ch.all()),
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
def names_are_classes(
    args: Any, names: list[str], table: Any, targets: Callable[[Any], tuple | None] | None = None
) -> bool:
    """``--score a,b,c`` without ``--classes``: K classes when every target names one of the score
    columns (their names are the labels, as pandas writes ``predict_proba``); several models (one row
    each) when the targets are a 0/1 coding otherwise.  Targets that are neither (labels that no
    column is named after) are one line saying how to name the classes.  ``table``: the table read
    whole, or None: then ``targets(args)`` gives (the columns chosen, the targets, the file, where
    their rows are or None), or None when it cannot tell (several models); without ``targets``, the
    first chunk's targets decide (``--stream``).  ``--dask``:
    :func:`perfeval.cli.dask_tables.score_columns_targets`, every distinct target of the files.
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
            y = table.get(ch.target, empties=False)  # an empty target is said among the values
            source, where = table.source, table
        else:
            got = (targets or _first_targets)(args)
            if got is None:
                return False
            ch, y, source, where = got
    except InvalidParameterError:
        return False
    cols = [c.name for c in ch.scores]
    y = np.asarray(y)
    # an empty field (CSV) is no label: said where the values are checked, at its line
    filled = y[y != ""] if y.dtype.kind == "U" else y
    # a table read whole holds numbers as float64: an integral one is the label written (2, not 2.0)
    seen = {number_key(v) for v in np.unique(filled).tolist()} if len(filled) else set()
    if seen and seen <= set(cols) and len(cols) >= 3:
        return True
    if len(cols) >= 2 and set(cols) < seen and binary_coding(filled) is None:
        _no_column_for(ch.target.name, y, cols, source, where)
    if binary_coding(filled) is not None or y.dtype.kind not in "USO" or any(is_number(v) for v in seen):
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
    keys = [number_key(v) for v in y.tolist()]
    missing = ~np.isin(np.array(keys), [*cols, ""])  # an empty field: said among the values
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


def number_key(v: Any) -> str:
    """A target as a score column would be named after it: an integral float as the integer
    (``2.0``: ``"2"``, a table read whole holds numbers as float64), anything else as written.
    """
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return str(int(v))
    return key(v)


def first_targets(args: Any) -> tuple[Any, Any, str, Any] | None:
    """The column choice, the first chunk's targets, the file and where the chunk's rows are, of a
    file read in chunks (None: standard input): what decides a large file's task before it is read.
    """
    return _first_targets(args)


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
def _dialect_of(args: Any) -> str | None:
    """``--dialect`` when it names another tool than perfeval, else None."""
    d = getattr(args, "dialect", "perfeval") or "perfeval"
    return None if d.split(":")[0].strip().lower() in ("perfeval", "") else d


def _finish(args: Any, cases: Any, specs: list, labels: Any, how: str) -> Any:
    """The report of checked cases of K classes: perfeval's engine, or the dialect's tool's rules
    (``--dialect``: :func:`perfeval.dialects.apply.evaluate_dialect_classes`).
    """
    dialect = _dialect_of(args)
    if dialect is not None:
        from perfeval.dialects.apply import evaluate_dialect_classes

        return evaluate_dialect_classes(cases, specs, labels, dialect, classes_from=how)
    from perfeval.engine.classes import finish_classes

    return finish_classes(cases, specs, labels, threshold=0.5, classes_from=how)


def _refuse(args: Any) -> None:
    """The options that do not apply to K classes (yet): one line each, before any work."""
    for flag, on in (
        ("--pos-label", args.pos_label is not None),
        ("--partition", bool(args.partition)),
    ):
        if on:
            raise InvalidParameterError(
                f"{flag} does not apply to K classes (a score column a class) yet; "
                "the multiclass measures: `perfeval list-measures`"
            )
    dialect = _dialect_of(args)
    if dialect is not None:  # another tool's rules: in memory, its values alone
        for flag, on in (
            ("--stream", args.stream),
            ("--dask", args.dask is not None),
            ("--ci", args.ci is not None),
            ("--tie-bounds", args.tie_bounds),
        ):
            if on:
                raise InvalidParameterError(
                    f"--dialect {dialect}: not with {flag} (dialects evaluate in memory)"
                )
    if args.threshold != 0.5:
        raise InvalidParameterError(
            f"-t {args.threshold:g}: a threshold does not apply to K classes (the prediction is the argmax)"
        )
    if getattr(args, "class_column", None) and not getattr(args, "long", False):
        raise InvalidParameterError("--class names the class column of --long (a row a case and class)")
    if args.stream and slices.columns(args):  # the chunks carry no slice columns: never dropped silently
        raise InvalidParameterError(
            "--by of K classes: not with --stream yet (the slices read the table whole); drop --stream to "
            "evaluate in memory, or use --dask"
        )
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


def _on_cluster(args: Any, path: str | None, specs: list) -> Any:
    """The report of the files read by Spark (``--spark``: each partition summarised where it lies)
    or as Dask partitions (``--dask``: the summaries merged on the cluster; a value a partition
    refused named with its line, each file streamed again: :func:`_restream`).
    """
    if getattr(args, "spark", None):
        from perfeval.cli.spark_tables import classes_report, long_report

        if args.long:
            _long_options(args)
            return long_report(args, path, choose_long, long_classes)
        return classes_report(args, path, choose_wide)
    from perfeval.cli.dask_tables import classes_report as on_dask
    from perfeval.cli.dask_tables import long_report as on_dask_long

    if args.long:
        _long_options(args)
        return on_dask_long(args, path, choose_long, long_classes, _restream(args, specs))
    return on_dask(args, path, choose_wide, _restream(args, specs))


def _restream(args: Any, specs: list) -> Callable[[str], Any]:
    """File ``f`` evaluated streamed (:func:`_stream`, :func:`_long_stream`), for the line of a value
    a Dask partition refused, as the table read whole says it; a long file whose case's rows are not
    together cannot be streamed: nothing found (the partition's words stay).
    """
    import copy

    one = copy.copy(args)
    one.stream, one.dask, one.spark = True, None, None

    def run(f: str) -> None:
        try:
            (_long_stream if args.long else _stream)(one, f, specs)
        except _NotTogether:
            return

    return run


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
    dialect = _dialect_of(args)
    if dialect is not None:  # each measure's policy, before any row is read
        from perfeval.dialects.apply import check_classes_dialect

        check_classes_dialect(specs, dialect, getattr(args, "weight", None) is not None)
    path = load.path_of(args.file)
    big = path is not None and os.path.isfile(path) and os.path.getsize(path) > stream_bytes
    cases = None
    confusion_summary = None
    if getattr(args, "spark", None) or args.dask is not None:
        report = _on_cluster(args, path, specs)
    elif args.stream or (
        big
        and args.group is None
        and args.ci is None
        and not args.tie_bounds
        and dialect is None
        and not slices.columns(args)  # --by: the slices of the table read whole
    ):
        totals: dict | None = {} if getattr(args, "confusion", False) and args.group is not None else None
        if not args.long:
            report = _stream(args, path, specs, totals)
        else:
            try:
                report = _long_stream(args, path, specs, totals)
            except _NotTogether as e:
                if args.stream:
                    raise
                # a large file not sorted by case, streamed unasked: read whole (said), as it must be
                where = f"line {e.line}" if e.line is not None else f"row {e.row}"
                load.note(
                    f"perfeval: note: {place(e.source)}: case {e.case} appears again on {where}, after other "
                    "cases' rows: read whole, not streamed (sort the file by case to stream it)\n"
                )
                totals = None
                report, cases = _long(args, specs)
        if totals:  # per group: the confusion over all the cases, folded as the rows were read
            confusion_summary = totals["summary"]
    elif args.long:
        report, cases = _long(args, specs)
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
    text = slices.with_slices(
        report, args.format, classes_text(report, args.format, args.per_group, confusion)
    )
    if args.per_group_output:
        from perfeval.base.console import write_file

        write_file(args.per_group_output, group_csv(report).encode("utf-8"))
        import sys

        sys.stderr.write(f"perfeval: wrote {place(args.per_group_output)}\n")
    write(text)
    return 0
