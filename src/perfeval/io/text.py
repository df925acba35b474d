"""The reader of whitespace text, CSV and TSV (:mod:`perfeval.io.readers`): a whole file by
:func:`perfeval.io.tables.text_table`, chunks of whole records cut at a record's end (the same
grammar, the same compiled fast path, the lines counted across chunks), and Dask partitions read by
pandas under the layout the other readers tell (header, delimiter, comments), their bytes checked
on the workers as the other readers check them; a file pandas' parser refuses (a quote never
closed, a row of another width) is this reader's error (:func:`said_as_read`).
"""

from __future__ import annotations

import warnings
from collections.abc import Generator, Iterator
from typing import Any

import numpy as np

from perfeval.base.console import one_line as console_line
from perfeval.exceptions import InputFormatError, PerfError
from perfeval.io.base import Options, Partitions, Reader, RecordReader, Request, ahead, files
from perfeval.io.columns import Column
from perfeval.io.tables import (
    COMPRESSED_EXT,
    Layout,
    Skipped,
    Table,
    check_bytes,
    check_text_ids,
    clean,
    first_empties,
    first_lines,
    hash_lines,
    header_pending,
    layout,
    numeric,
    open_bytes,
    parse_body,
    text_table,
)

# Dask and pandas are optional: imported where a Dask run reads text files.


class TextReader(Reader):
    """Whitespace text (PERF's files), CSV and TSV."""

    formats = ("text", "csv", "tsv")
    extensions = {".tsv": "tsv", ".csv": "csv"}

    def sniff(self, sample: bytes, first: bytes) -> str | None:
        if b"\t" in first and b"," not in first:
            # PERF's own files (the KDD Cup samples) end their lines with a tab: white space text, not a
            # TSV with an empty last column (its field count is still checked line by line)
            return "text" if first.rstrip(b"\r").endswith(b"\t") else "tsv"
        if b"," in first or b";" in first:
            return "csv"
        return "text"

    def table(self, raw: bytes, source: str, how: Options) -> Table:
        return text_table(raw, source, how.fmt, how.header, how.delimiter, how.identity, how.labels)

    def chunks(self, fh: Any, source: str, fmt: str, request: Request) -> Iterator[list]:
        skipped = Skipped()
        chunks = _text_chunks(fh, source, fmt, request, skipped)
        # a regular file is read one block ahead on another thread; standard input and pipes are
        # read here (a read of a pipe can wait for ever, and Ctrl-C must not wait for it)
        yield from ahead(chunks) if request.regular else chunks
        skipped.warn(source)  # in the caller's thread, once every chunk is read

    def partitions(self, pattern: str, fmt: str, header: bool | None, delimiter: str | None) -> Partitions:
        """Pandas' reader (through Dask) under the layout of the first file, as the other readers
        tell it (never assumed): the header, the delimiter (an Excel CSV's ';'), the comments.  A
        file pandas' parser refuses as it reads a file's head is said as this reader says it
        (:func:`said_as_read`); on the workers, the caller says it so (:func:`unparsed`).
        """
        import dask.dataframe as dd

        first = files(pattern)[0]
        lay = text_layout(first, fmt, header, delimiter)
        if lay is None:
            raise InputFormatError("holds no data", source=first)
        header, fmt = lay.header, lay.fmt
        skipped = check_text_files(pattern, fmt != "text", comments=not header)
        # without a header (PERF's files) a line starting with '#' is a comment; after a header it
        # is a row (#N/A: a missing value), as the table readers have it (pandas' comment= would cut
        # a line at a '#' anywhere: check_text_files refuses one inside a line of such a file)
        kw = {
            "sep": lay.delim or r"\s+",
            "comment": None if header else "#",
            "skiprows": max(lay.skip_lines - 1, 0),
        }

        def read_csv(**more: Any) -> Any:
            try:
                return dd.read_csv(pattern, header=0 if header else None, **kw, **more)
            except Exception as e:  # pandas' parser refused a file: this reader says where and why
                if unparsed(e):
                    raise said_as_read(pattern, fmt, bool(header), lay.delim, e) from None
                raise

        first_frame = read_csv()
        keys = list(first_frame.columns)
        names = [str(c) for c in keys] if header else [f"column{i + 1}" for i in range(len(keys))]

        def frame(
            group: int | dict[int, str] | None,
            used: list[int] | None = None,
            numbers: list[int] | None = None,
        ) -> Any:
            texts = [] if group is None else [group] if isinstance(group, int) else list(group)
            # the columns not used read as text: pandas types a column by the first file's first rows,
            # and an integer column not used holding an empty field, a fraction or text further on
            # would fail the partition that holds it (no error: a column not used is not read)
            idle = [] if used is None else [i for i in range(len(keys)) if i not in used and i not in texts]
            # the identity columns (the group's, the case's) read as text too, an empty field kept
            dtype = {keys[g]: str for g in texts} | {keys[i]: object for i in idle}
            na = {"keep_default_na": False} if texts else {}
            ddf = read_csv(dtype=dtype, **na) if dtype else first_frame
            # the columns of numbers the first rows typed as numbers (as read here: an empty field
            # kept as text after an identity's) read as float64 in every partition, by pandas'
            # parser: whole numbers there (int64) and a fraction further on are numbers, as read
            # whole; a value further on that is no number by pandas' parser (abc; 1_000, which
            # Python's float() would take after a float64 column's first rows) is pandas' error
            # (:func:`unconverted`), said where the file is read again.  Those the first rows typed
            # as text stay text, checked by the readers' grammar where they are read
            kinds = ddf.dtypes
            floats = [i for i in numbers or () if i not in texts and kinds.iloc[i].kind in "iuf"]
            # True/False, which pandas reads as booleans, are no numbers as read whole: read as text,
            # the readers' grammar refuses them with their line, as memory does
            words = [i for i in numbers or () if i not in texts and kinds.iloc[i].kind == "b"]
            if floats or words:
                typed = {keys[i]: "float64" for i in floats} | {keys[i]: object for i in words}
                ddf = read_csv(dtype=dtype | typed, **na)
            if not header:
                ddf.columns = names
            return ddf

        return Partitions(
            fmt,
            bool(header),
            names,
            lay.delim,
            frame,
            columns_of=(lambda f: column_names(f, fmt, True)) if header else None,
            skipped=skipped,
        )


READER = TextReader()


def text_layout(
    path: str, fmt: str, header: bool | None = None, delimiter: str | None = None
) -> Layout | None:
    """The :class:`~perfeval.io.tables.Layout` of a text table (``fmt``: text, csv or tsv), from its
    first 64 KiB: whether it has a header (detected by the readers' rule when ``header`` is None),
    its delimiter and its column names; None when those bytes hold no data line.  Their bytes are
    checked first, as the readers check them (:func:`perfeval.io.tables.check_bytes`).
    """
    fh = open_bytes(path, path)
    try:
        head = clean(fh.read(1 << 16), True)
    finally:
        fh.close()
    cut = head.rfind(b"\n") + 1 or len(head)
    check_bytes(head[:cut], path, 0, fmt != "text" or delimiter is not None)
    return layout(head[:cut], fmt, header, delimiter, path)


def column_names(path: str, fmt: str, header: bool | None = None) -> list[str]:
    """The columns of a text table: its header's names, or column1, column2, ... without one."""
    lay = text_layout(path, fmt, header)
    return [] if lay is None else list(lay.names)


def _text_chunks(
    fh: Any, source: str, fmt: str, request: Request, skipped: Skipped
) -> Generator[list, None, None]:
    """The chunks of a text table; the lines skipped as comments are counted in ``skipped``.  The
    columns are chosen at the first data line, as the whole-file reader chooses them once it has
    read its table: a table of a header only is said as such, and a wrong line of the first block
    before a column that is not there.
    """
    header, delimiter, meter = request.header, request.delimiter, request.meter
    ids, labels, convert = request.ids, request.labels, request.convert
    quoted = fmt != "text" or delimiter is not None
    rd = RecordReader(fh, request.chunk_bytes, quoted, source)
    lay = None
    picks: list[int | None] | None = None
    want_ids: set[int] = set()
    checked: dict[int, str | None] = {}  # the identity columns that are ids (not labels), their roles
    rows = 0
    for body, last in rd.blocks():
        check_bytes(body, source, rd.line0, quoted)  # before the header is told, as read_table does
        if lay is None:
            if not last and len(first_lines(body, 2)) < 2:
                rd.unread(body)  # the header is told from two data lines, as the whole-file reader does
                continue
            if not last and header_pending(body, fmt, header, delimiter):
                # pandas' default names: read on to the look-ahead of the whole-file reader
                rd.unread(body, bounded=False)
                continue
            lay = layout(body, fmt, header, delimiter, source)
            if lay is None:  # nothing but blank or comment lines so far
                hash_lines(body, rd.line0, skipped)
                rd.line0 += body.count(b"\n")
                continue
            hash_lines(body[: lay.skip], rd.line0, skipped)  # comments before the header
            rd.line0 += lay.skip_lines
            body = body[lay.skip :]
        if picks is None and first_lines(body, 1, lay.comments):
            try:
                picks = request.picks(list(lay.names), lay.header, source)
            except PerfError:  # the whole-file reader reads its table first: a wrong line is said first
                parse_body(body, lay, len(lay.names), set(), source, rd.line0, skipped=Skipped())
                raise
            want_ids = {k for i in set(ids) | labels if i < len(picks) and (k := picks[i]) is not None}
            checked = {k: role for i, role in ids.items() if i < len(picks) and (k := picks[i]) is not None}
        if picks is not None and first_lines(body, 1, lay.comments):
            out, n = _picked(
                body, lay, picks, set(ids) | labels, want_ids, checked, rd.line0, source, skipped, convert
            )
            if meter:
                meter.advance(len(body), n)
            rows += n
            if n:
                yield out
        else:
            hash_lines(body, rd.line0, skipped)  # blank or comment lines only
        rd.line0 += body.count(b"\n")
    if lay is None:
        raise InputFormatError("holds no data", source=source)
    if rows == 0:
        raise InputFormatError("holds a header and no data", source=source)


def _picked(
    body: bytes,
    lay,
    picks: list[int | None],
    ids,
    want_ids: set[int],
    checked: dict[int, str | None],
    line0: int,
    source: str,
    skipped=None,
    convert=None,
) -> tuple[list, int]:
    """The picked columns of a block (identity columns as read, the others as numbers, or as
    ``convert`` makes them) and its rows (the lines skipped as comments added to ``skipped``).
    The picked columns' empty fields are noted in ``where.empties`` (by position in the file), for
    ``convert`` to say among the values (:meth:`perfeval.io.tables.Table.no_empties`); without it,
    the block's first bad line is said (an empty field, or a value that is not a number).
    """
    cols, lines = parse_body(body, lay, len(lay.names), want_ids, source, line0, skipped=skipped)
    out: list = []
    where = Table(list(lay.names), {}, source, lay.header, lines, body, line0, [], lay.comments)
    where.fmt, where.delim = lay.fmt, lay.delim  # a field as written, for a message
    where.empties = first_empties(cols, sorted({k for k in picks if k is not None}))
    check_text_ids(where, lay.names, cols, checked)
    if convert is not None:
        return convert([None if k is None else cols[k] for k in picks], where), (len(cols[0]) if cols else 0)
    errors: list = []
    for i, k in enumerate(picks):
        out.append(None)
        if k is None:
            continue
        try:
            if i not in ids:  # an empty field among the values, in their order
                out[i] = _numbers(cols[k], lay.names[k], where)
                continue
            where.no_empties([Column("", k, lay.names[k], "position")])
            out[i] = cols[k]
        except InputFormatError as e:  # the block's first bad line, whichever column it is in
            errors.append((e.line or 0, i, e))
    if errors:
        raise min(errors, key=lambda t: t[:2])[2]
    return out, (len(cols[0]) if cols else 0)


def _numbers(col: np.ndarray, name: str, where) -> np.ndarray:
    """A picked column that must be numbers: float64, or an error naming the line of the first that is
    not (``where``: a :class:`perfeval.io.tables.Table` of the block, for its lines).
    """
    return numeric(where, name, col, "")


#: bytes of a text file a worker checks at a time (:func:`check_text_files`)
CHECK_BYTES = 64 << 20


def check_text_files(pattern: str, quoted: bool, comments: bool = False) -> dict[str, Any]:
    """The bytes of every text file ``pattern`` names checked on the workers as the table readers
    check a file (:func:`perfeval.io.tables.check_bytes`: a NUL byte, or a character that is a line
    end to some readers and not to others, such as a form feed, outside quotes when ``quoted``):
    one line naming the file, the line and the column, before any work starts.  Each file is read
    in blocks of whole lines (one block for a compressed file), its lines counted block by block.

    ``comments`` (a file without a header): the lines starting with '#' are comments, returned as
    ``{file: Skipped}`` to be said; a '#' inside a line is refused (pandas would cut the line there,
    where the table readers read a field).
    """
    import dask
    from dask.bytes import read_bytes

    tasks = []
    for f in files(pattern):
        compressed = f.lower().endswith(COMPRESSED_EXT)
        if compressed:  # one block, read on a worker by the table readers' own opening, whose
            # errors name the file (a corrupt or cut gzip: CRC check failed, EOFError)
            tasks.append((f, [dask.delayed(_check_compressed)(f, quoted, comments)]))
            continue
        _, blocks, paths = read_bytes(
            f,
            delimiter=b"\n",
            blocksize=None if compressed else CHECK_BYTES,
            sample=False,
            compression="infer" if compressed else None,
            include_path=True,
        )
        for name, file_blocks in zip(paths, blocks, strict=True):
            shown = f if len(paths) == 1 else name
            tasks.append(
                (
                    shown,
                    [
                        dask.delayed(_check_block)(b, k == 0, quoted, comments)
                        for k, b in enumerate(file_blocks)
                    ],
                )
            )
    results = dask.compute([t for _, t in tasks])[0]
    out: dict[str, Any] = {}
    for (name, _), found in zip(tasks, results, strict=True):
        line0 = 0
        skipped = out.setdefault(name, Skipped())
        for lines, bad, (count, first) in found:
            if bad is not None:
                raise InputFormatError(bad[1], source=name, line=line0 + bad[0])
            skipped.merge(Skipped(count, [line0 + k for k in first]))
            line0 += lines
    return out


def _check_compressed(path: str, quoted: bool, comments: bool) -> tuple[int, Any, tuple]:
    """:func:`_check_block` of a compressed file, read whole by :func:`perfeval.io.tables.open_bytes`
    (a file that cannot be decompressed is an error naming it, as read whole).
    """
    fh = open_bytes(path, path)
    try:
        data = fh.read()
    finally:
        fh.close()
    return _check_block(data, True, quoted, comments)


def _check_block(data: bytes, first: bool, quoted: bool, comments: bool) -> tuple[int, Any, tuple]:
    """A block of a text file: its lines, the first bad byte's line (in the block) and message, and
    (``comments``) how many of its lines are comments and the first few (lines of the block).
    """
    body = clean(data, first)
    lines = body.count(b"\n")
    try:
        check_bytes(body, "", 0, quoted)
    except InputFormatError as e:
        return lines, (int(e.line or 1), e.message), (0, [])
    hashes = Skipped()
    if comments and b"#" in body:
        for k, line in enumerate(body.split(b"\n"), 1):
            if b"#" not in line:
                continue
            if not line.lstrip().startswith(b"#"):
                return lines, (k, _HASH_INSIDE), (0, [])
            hashes.add(k)
    return lines, None, (hashes.count, hashes.first)


_HASH_INSIDE = (
    "holds '#' inside a line of a table without a header: --dask reads it as the start of a comment "
    "there (pandas) and the other readers as data; give the table a header, or drop --dask"
)


def unparsed(e: BaseException) -> bool:
    """Whether ``e`` is pandas' CSV parser refusing a file's text (raised on a worker, or wrapped by
    Dask's reading of the first file's head): a quote never closed, a row of another width.
    """
    import pandas as pd  # heavy: only once something failed

    seen: set[int] = set()
    at: BaseException | None = e
    while at is not None and id(at) not in seen:
        if isinstance(at, pd.errors.ParserError):
            return True
        seen.add(id(at))
        at = at.__cause__ or at.__context__
    return False


#: the words of :func:`unconverted` and :func:`mistyped`: a column's value past the rows Dask typed it by
PAST_TYPED = "past the rows Dask typed it by"

#: pandas' errors when a value of a column read as float64 (:attr:`Partitions.frame`'s numbers) is no number
_UNCONVERTED = ("could not convert string to float: ", "cannot safely convert passed user dtype of float64")


def unconverted(e: BaseException) -> str | None:
    """The one line (the file named beside it) of pandas' error on a worker when a column of numbers,
    read as float64 (:meth:`TextReader.partitions`), holds a value that is no number (``abc``,
    ``1_000``; an empty field where a missing value is no NaN) past the rows Dask typed it by; None
    when ``e`` is not that.  Pandas names the value, not the column: where the file can be read
    again, its line and column are said as read whole.

    Examples
    --------
    >>> e = ValueError("could not convert string to float: 'abc'")
    >>> print(unconverted(e))  # doctest: +NORMALIZE_WHITESPACE
    a column of numbers (the target, a score, the weight) holds 'abc', not a number, past the rows Dask typed
    it by (the first file's first rows); drop --dask for its line and column
    >>> unconverted(ValueError("another")) is None
    True
    """
    seen: set[int] = set()
    at: BaseException | None = e
    while at is not None and id(at) not in seen:
        text = str(at)  # pandas' words, or Dask's around them ("... Original Message: could not ...")
        if isinstance(at, ValueError) and any(words in text for words in _UNCONVERTED):
            value = text.partition(_UNCONVERTED[0])[2].strip() or "a value"
            return (
                f"a column of numbers (the target, a score, the weight) holds {value}, not a number, "
                f"{PAST_TYPED} (the first file's first rows); drop --dask for its line and column"
            )
        seen.add(id(at))
        at = at.__cause__ or at.__context__
    return None


#: Dask's error when a partition's column is not of the type Dask gave it from the first rows
_MISTYPED = "Mismatched dtypes found in `pd.read_csv`"


def mistyped(e: BaseException, header: bool) -> str | None:
    r"""The one line (the file named beside it) of Dask's error when a used column of a partition
    holds a value of another type than the first file's first rows, by which Dask typed the column
    (an integer column's empty field, fraction or text further on); None when ``e`` is not that.

    Examples
    --------
    >>> table = "| Column | Found | Expected |\n| y | float64 | int64 |\n"
    >>> print(mistyped(ValueError(_MISTYPED + "`:\n" + table), True))  # doctest: +NORMALIZE_WHITESPACE
    the column 'y' holds a value that is not an integer (an empty field, a missing value, a fraction or
    text) past the rows Dask typed it by (the first file's first rows); drop --dask for its line
    """
    text = str(e)
    if not isinstance(e, ValueError) or not text.startswith(_MISTYPED):
        return None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) != 3 or cells == ["Column", "Found", "Expected"]:
            continue
        key, _found, expected = cells
        # pandas' key of a column without a header: its position
        name = f"column{int(key) + 1}" if not header and key.isdigit() else key
        where = f"{PAST_TYPED} (the first file's first rows)"
        if f"- {key}\n  ValueError(\"invalid literal for int() with base 10: ''\")" in text:
            return (
                f"the column {name!r} holds an empty field, a missing value, {where}: drop the rows "
                "without one or fill them"
            )
        whole = expected.startswith(("int", "uint"))
        what = "an integer" if whole else "a number" if expected.startswith("float") else f"a {expected}"
        why = "an empty field, a missing value, a fraction or text" if whole else "an empty field or text"
        return (
            f"the column {name!r} holds a value that is not {what} ({why}) {where}; drop --dask for its line"
        )
    return None


def said_as_read(pattern: str, fmt: str, header: bool, delimiter: str | None, e: BaseException) -> Exception:
    """The error of a text file that pandas' parser refused (:func:`unparsed`), as this reader says it:
    each file ``pattern`` names read in chunks (:meth:`TextReader.chunks`, with the header and
    delimiter told from the first file) up to the first problem, its file and line named (a quote
    never closed: the line where it opens).  When they read every file, pandas' own words, the file
    named.
    """
    found = files(pattern)
    for f in found:
        try:
            fh = open_bytes(f, f)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # comment lines: said when the files are read
                    for _ in READER.chunks(fh, f, fmt, Request([], header, delimiter)):
                        pass
            finally:
                fh.close()
        except PerfError as problem:
            return problem
    return InputFormatError(
        f"cannot be read by Dask's CSV reader ({console_line(e)})",
        source=found[0] if len(found) == 1 else pattern,
    )
