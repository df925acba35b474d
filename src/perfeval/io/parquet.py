"""The reader of Parquet (:mod:`perfeval.io.readers`; pyarrow, imported when a file is read): a
whole file, its row groups as chunks, and files as Dask partitions (Dask's reader: remote storage,
datasets of many files).  Columns are taken by position (two may share a name; Dask, which takes
them by name, refuses such a file), a null in a used column is an error naming its row, an
identity column is int64 or text (a float one is refused), a file of no rows is an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from perfeval.base.console import one_line as console_line
from perfeval.exceptions import InputFormatError, MissingDependencyError
from perfeval.io.base import Options, Partitions, Reader, Request, files
from perfeval.io.tables import Identity, Table, float_ids, id_roles, null_message, one_line

# pyarrow and Dask are optional: imported where a Parquet file is read.


class ParquetReader(Reader):
    """Parquet files (``.parquet``, ``.pq``, or ``PAR1`` first)."""

    formats = ("parquet",)
    extensions = {".parquet": "parquet", ".pq": "parquet"}

    def sniff(self, sample: bytes, first: bytes) -> str | None:
        return "parquet" if sample[:4] == b"PAR1" else None

    def table(self, raw: bytes, source: str, how: Options) -> Table:
        return _table(raw, source, how.identity, how.labels)

    def chunks(self, fh: Any, source: str, fmt: str, request: Request) -> Iterator[list]:
        return _chunks(fh, source, request)

    def partitions(self, pattern: str, fmt: str, header: bool | None, delimiter: str | None) -> Partitions:
        """Dask's reader (row groups up to 256 MiB a partition), the columns named once (Dask takes
        them by name), every file's checked to hold those used.
        """
        import dask.dataframe as dd

        _unique_names(pattern)
        ddf = dd.read_parquet(pattern)
        names = list(map(str, ddf.columns))

        def frame(
            group: int | dict[int, str] | None,
            used: list[int] | None = None,
            numbers: list[int] | None = None,
        ) -> Any:
            return ddf  # pyarrow reads the identity columns as written, each column typed by its schema

        return Partitions("parquet", True, names, None, frame, columns_of=_schema)


READER = ParquetReader()


def _table(raw: bytes, source: str, identity: Identity | None, labels: Identity | None = None) -> Table:
    """The whole table of a Parquet file's bytes, its columns by position (nulls noted, an error
    where a column holding one is used: :meth:`perfeval.io.tables.Table.no_nulls`).
    """
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingDependencyError(
            "reading Parquet needs pyarrow: pip install 'perfeval[parquet]'"
        ) from None
    try:
        # the file's own reader: pq.read_table refuses two columns of one name (positions tell them apart)
        t = pq.ParquetFile(pa.BufferReader(raw)).read()
    except Exception as e:  # pyarrow raises several types for a bad file
        raise InputFormatError(f"is not a readable Parquet file ({one_line(e)})", source=source) from None
    names = list(t.column_names)
    if t.num_rows == 0:  # as a text table of a header and no row: no number to give
        raise InputFormatError(empty_parquet(names), source=source)
    roles = id_roles(identity(names, True)) if identity is not None else {}
    ids = set(roles)
    kept = set(labels(names, True)) - ids if labels is not None else set()
    data = []
    nulls: dict[int, int] = {}
    for c, name in enumerate(names):
        col = t.column(c)
        arr = parquet_numpy(col)
        if roles.get(c) == "--by":  # a null: a missing value, the slices' to judge (as streamed)
            arr = slice_identity(col, name, source, roles[c])
        elif col.null_count:  # an error where the column is used (the chunked reader reads no other)
            nulls[c] = first_null(col)
            if c in kept:
                raise InputFormatError(null_message(name), source=source, row=nulls[c] + 1)
        elif c in ids or (c in kept and arr.dtype.kind != "f"):
            arr = parquet_identity(arr, name, source, roles.get(c))
        data.append(arr)
    columns: dict[str, np.ndarray] = {}
    for name, col in zip(names, data, strict=False):
        columns.setdefault(name, col)
    return Table(names, columns, source, True, data=data, rows_only=True, nulls=nulls)


def empty_parquet(names: Sequence[str]) -> str:
    """The message of a Parquet file of no rows (a text table's is 'holds a header and no data')."""
    return f"holds no rows (columns: {', '.join(map(str, names))}): no measure to give"


def first_null(col) -> int:
    """The first row (0-based) of a pyarrow column that holds a null."""
    import pyarrow.compute as pc

    return int(pc.index(col.is_null(), True).as_py())


def parquet_numpy(col) -> np.ndarray:
    """A pyarrow column as numpy (a type numpy does not hold, such as a dictionary: its values)."""
    try:
        return col.to_numpy()
    except Exception:  # pyarrow raises several types
        return np.array(col.to_pylist(), dtype=object)


def parquet_identity(arr: np.ndarray, name: str, source: str, role: str | None = None) -> np.ndarray:
    """An identity column from Parquet: integers as int64, text as text, booleans as the text
    ``False`` and ``True`` (a CSV's, and Dask's), floats refused (the column named by its ``role``
    or option: :func:`perfeval.io.tables.id_column`).
    """
    if arr.dtype.kind in "iu":
        if arr.dtype.kind == "u" and len(arr) and int(arr.max()) > (1 << 63) - 1:
            return arr.astype(str)
        return arr.astype(np.int64, copy=False)
    if arr.dtype.kind == "f":
        raise InputFormatError(
            float_ids(name, role),
            source=source,
        )
    if arr.dtype.kind == "b":  # as pandas writes it in a CSV, and as Dask reads it: False, True
        return np.where(arr, "True", "False")
    return np.asarray([str(v) for v in arr.tolist()], dtype=str)


def slice_identity(col, name: str, source: str, role: str | None) -> np.ndarray:
    """A slice column (``--by``) of Parquet: an identity (:func:`parquet_identity`) whose nulls are
    None, a missing value, the slices' rule (an error naming ``--missing-slice``, or the slice
    ``<missing>``), whatever rows of the column the table or the chunk holds.
    """
    if not col.null_count:
        return parquet_identity(parquet_numpy(col), name, source, role)
    import pyarrow as pa

    valid = col.is_valid()
    kept = parquet_identity(parquet_numpy(col.filter(valid)), name, source, role)
    out = np.full(len(col), None, dtype=object)
    mask = (valid.combine_chunks() if isinstance(valid, pa.ChunkedArray) else valid).to_numpy(
        zero_copy_only=False
    )
    out[mask] = kept.tolist()
    return out


def _chunks(fh: Any, source: str, request: Request) -> Iterator[list]:
    """The chunks of a Parquet file, a row group each, as :func:`perfeval.io.readers.read_table` reads
    it: the columns by position (two may share a name), a null in a used column an error naming its
    row, the first among the columns (the whole-file reader's order); ``convert`` as for text, with
    a ``where`` whose rows are counted across row groups; a file of no rows an error.  The identity
    columns (``request.ids``, ``{index: role}``) are read first, in the file's order, as read whole.
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingDependencyError("reading Parquet needs pyarrow: pip install pyarrow") from None

    def unreadable(e: Exception) -> InputFormatError:
        return InputFormatError(f"is not a readable Parquet file ({one_line(e)})", source=source)

    try:
        pf = pq.ParquetFile(fh)
        names = pf.schema_arrow.names
    except Exception as e:
        raise unreadable(e) from None
    picks = request.picks(names, True, source)
    meter, ids, labels, convert = request.meter, request.ids, request.labels, request.convert
    used = sorted({k for k in picks if k is not None})
    by_name = len(set(names)) == len(names)  # else the whole row group, its columns by position
    row0 = 0
    for rg in range(pf.num_row_groups):
        try:
            t = pf.read_row_group(rg, columns=[names[k] for k in used] if by_name else None)
        except Exception as e:  # a damaged page, a bad encoding: pyarrow raises several types
            raise unreadable(e) from None
        if meter:
            meter.advance(t.nbytes, t.num_rows)
        cols = {k: t.column(names[k]) if by_name else t.column(k) for k in used}
        bad = [  # a slice column's null is a missing value, the slices' to judge
            (first_null(cols[k]), i, k)
            for i, k in enumerate(picks)
            if k is not None and cols[k].null_count and ids.get(i) != "--by"
        ]
        if bad:
            row, _, k = min(bad)
            raise InputFormatError(null_message(names[k]), source=source, row=row0 + row + 1)
        # the identity columns first, in the file's order, as read whole (a float id is refused as
        # the table is read, before any value is checked)
        order = sorted(
            ((i, k) for i, k in enumerate(picks) if k is not None),
            key=lambda ik: (ik[0] not in ids, ik[1] if ik[0] in ids else 0),
        )
        built = {
            i: slice_identity(cols[k], names[k], source, ids[i])
            if ids.get(i) == "--by"
            else _parquet_column(
                parquet_numpy(cols[k]), names[k], source, i in ids, i in labels, convert, ids.get(i)
            )
            for i, k in order
        }
        out = [built.get(i) for i in range(len(picks))]
        if convert is not None and t.num_rows:
            where = Table([], {}, source, True, line0=row0, data=[], rows_only=True)
            out = convert(out, where)
        row0 += t.num_rows
        if t.num_rows:
            yield out
    if row0 == 0:  # as read whole: no number to give
        raise InputFormatError(empty_parquet(names), source=source)


def _parquet_column(
    arr: np.ndarray, name: str, source: str, ident: bool, label: bool, convert, role: str | None = None
) -> np.ndarray:
    """A picked column of a row group: an identity (``ident``, named in an error by its ``role``), a
    label as it is (--pos-label codes it), else numbers (``convert``, when given, checks them).
    """
    if ident:
        return parquet_identity(arr, name, source, role)
    if not label and convert is None and arr.dtype.kind not in "biuf":
        raise InputFormatError(f"the column {name!r} holds {arr.dtype} values, not numbers", source=source)
    return arr


def _unique_names(pattern: str) -> None:
    """Two columns of one name in a Parquet file: Dask takes columns by name only, so it is refused
    (the other readers tell them apart by position).
    """
    import pyarrow.parquet as pq

    first = files(pattern)[0]
    try:
        names = pq.read_schema(first).names
    except Exception as e:
        raise InputFormatError(f"is not a Parquet file ({console_line(e)})", source=first) from None
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputFormatError(
            f"has two columns named {twice[0]!r}: Dask reads columns by name only; rename one, or drop "
            "--dask (the other readers take a column by its position)",
            source=first,
        )


def _schema(path: str) -> list[str]:
    """The column names of a Parquet file, from its schema (an error naming the file when it has none)."""
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path).names
    except Exception as e:
        raise InputFormatError(f"is not a Parquet file ({console_line(e)})", source=path) from None
