"""TREC judgments (qrels) and runs: files, and the dict shape of pytrec_eval and ranx.

A qrels line is ``qid iter docid rel`` and a run line ``qid Q0 docid rank score tag``, fields
separated by blanks (trec_eval's formats; the ``iter`` and ``Q0`` fields are read and ignored).
Files may be gzip, bzip2 or xz compressed.  A dict maps each query id to ``{docid: value}``
(relevance for qrels, score for a run), as ``pytrec_eval`` and ``ranx`` take them.

Query and document ids are identities and are kept as the text written (trec_eval compares them as
strings: ``"007"`` and ``"7"`` are two queries).  Nothing is dropped or guessed: a line with the
wrong number of fields, a relevance or score that is not a number, a non-finite score and a
(qid, docid) pair given twice are each an error naming the file and the line.

Ids are held dictionary-encoded: ``qcode``/``dcode`` give each row's position in ``qvocab``/``dvocab``,
the distinct ids sorted (so code order is string order); ``qid``/``docid``, each row's id as text,
are built from them on first use.  Files are read by the compiled ``_native.trec_read`` in one pass
(numbers by the grammar of :mod:`perfeval.io.grammar`): a run of 10 million lines in one to two
seconds on two cores (``benchmarks/bench_trec_read.py``).
"""

from __future__ import annotations

import io
import mmap
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base.text import shown
from perfeval.exceptions import InputFormatError, InvalidDataError
from perfeval.io.tables import open_bytes

#: fields of a qrels line and of a run line
QRELS_FIELDS = 4
RUN_FIELDS = 6
#: blank characters between fields (trec_eval splits at spaces and tabs)
_BLANKS = b" \t\r\v\f"
#: the fields of a line for ``_native.trec_read``: q query id, d document id, f a finite number, i a
#: number kept as int64 (the rank), t the run's tag, x ignored
_QRELS_PATTERN = "qxdf"
_RUN_PATTERN = "qxdift"


def _encode(ids: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's id as text, its code, and the sorted distinct ids (``vocab[code] == text``)."""
    text = np.asarray(ids, dtype=str)
    vocab, code = np.unique(text, return_inverse=True)
    return text, code.astype(np.int64).reshape(-1), vocab


class _Encoded:
    """Rows whose query and document ids are codes into sorted vocabularies (Qrels and Run)."""

    qcode: np.ndarray
    dcode: np.ndarray
    qvocab: np.ndarray
    dvocab: np.ndarray

    @cached_property
    def qid(self) -> np.ndarray:
        return self.qvocab[self.qcode]

    @cached_property
    def docid(self) -> np.ndarray:
        return self.dvocab[self.dcode]

    def __len__(self) -> int:
        return len(self.qcode)


@dataclass(frozen=True, init=False)
class Qrels(_Encoded):
    """Relevance judgments: one row per judged (query, document).

    ``Qrels(qid, docid, rel, source)`` builds them from each row's ids (encoding them);
    :meth:`from_codes` from codes and vocabularies, as the readers do.

    Attributes
    ----------
    qcode, dcode : ndarray of int64
        Each row's query and document as positions in ``qvocab`` and ``dvocab``.
    qvocab, dvocab : ndarray of str
        The distinct query and document ids as written, sorted: code order is string order.
    rel : ndarray of float64
        The judged relevance (0 = judged not relevant; trec_eval counts rel >= 1 as relevant).
    source : str
        Where the judgments came from (a file name, or ``"dict"``).
    qid, docid : ndarray of str
        Each row's query and document id (``qvocab[qcode]``, built on first use).
    """

    qcode: np.ndarray
    dcode: np.ndarray
    qvocab: np.ndarray
    dvocab: np.ndarray
    rel: np.ndarray
    source: str = ""

    def __init__(self, qid: Any, docid: Any, rel: np.ndarray, source: str = "") -> None:
        qtext, qcode, qvocab = _encode(qid)
        dtext, dcode, dvocab = _encode(docid)
        _assign(self, qcode=qcode, dcode=dcode, qvocab=qvocab, dvocab=dvocab, rel=rel, source=source)
        self.__dict__.update(qid=qtext, docid=dtext)

    @cached_property
    def by_pair(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The judgments sorted by (query, document): each one's query code, document code and
        relevance, and the offsets of each query's judgments (``len(qvocab) + 1``; query q's are
        ``start[q]:start[q + 1]``).  Views of the columns when they are already in that order (a
        qrels file usually is); made once and kept.
        """
        q, d, r = self.qcode, self.dcode, self.rel
        nd = np.int64(max(len(self.dvocab), 1))
        key = q * nd + d
        if len(key) > 1 and not bool((key[1:] > key[:-1]).all()):
            order = np.argsort(key, kind="stable")
            q, d, r = q[order], d[order], r[order]
        start = np.searchsorted(q, np.arange(len(self.qvocab) + 1), side="left").astype(np.int64)
        return q, d, r, start

    @classmethod
    def from_codes(
        cls,
        qcode: np.ndarray,
        dcode: np.ndarray,
        qvocab: np.ndarray,
        dvocab: np.ndarray,
        rel: np.ndarray,
        source: str = "",
    ) -> Qrels:
        """Judgments from codes into sorted vocabularies of distinct ids (not checked)."""
        self = object.__new__(cls)
        _assign(self, qcode=qcode, dcode=dcode, qvocab=qvocab, dvocab=dvocab, rel=rel, source=source)
        return self


@dataclass(frozen=True, init=False)
class Run(_Encoded):
    """A ranking of documents per query: one row per retrieved (query, document).

    ``Run(qid, docid, score, rank, order, name, source)`` builds it from each row's ids (encoding
    them); :meth:`from_codes` from codes and vocabularies, as the readers do.

    Attributes
    ----------
    qcode, dcode : ndarray of int64
        Each row's query and document as positions in ``qvocab`` and ``dvocab``.
    qvocab, dvocab : ndarray of str
        The distinct query and document ids as written, sorted: code order is string order.
    score : ndarray of float64
        The run's score of each document (higher ranks first).
    rank : ndarray of int64 or None
        The rank column of a TREC run file (None for a dict); kept for the "as ranked in the file"
        tie rule.
    order : ndarray of int64
        The row's position in the input (0-based), for the "file order" tie rule.
    name : str
        The run's name: its tag (the sixth field) when the file has one tag, else the file name.
    source : str
        Where the run came from.
    qid, docid : ndarray of str
        Each row's query and document id (``qvocab[qcode]``, built on first use).
    """

    qcode: np.ndarray
    dcode: np.ndarray
    qvocab: np.ndarray
    dvocab: np.ndarray
    score: np.ndarray
    rank: np.ndarray | None
    order: np.ndarray
    name: str = ""
    source: str = ""

    def __init__(
        self,
        qid: Any,
        docid: Any,
        score: np.ndarray,
        rank: np.ndarray | None,
        order: np.ndarray,
        name: str = "",
        source: str = "",
    ) -> None:
        qtext, qcode, qvocab = _encode(qid)
        dtext, dcode, dvocab = _encode(docid)
        _assign(
            self,
            qcode=qcode,
            dcode=dcode,
            qvocab=qvocab,
            dvocab=dvocab,
            score=score,
            rank=rank,
            order=order,
            name=name,
            source=source,
        )
        self.__dict__.update(qid=qtext, docid=dtext)

    @classmethod
    def from_codes(
        cls,
        qcode: np.ndarray,
        dcode: np.ndarray,
        qvocab: np.ndarray,
        dvocab: np.ndarray,
        score: np.ndarray,
        rank: np.ndarray | None,
        order: np.ndarray,
        name: str = "",
        source: str = "",
    ) -> Run:
        """A run from codes into sorted vocabularies of distinct ids (not checked)."""
        self = object.__new__(cls)
        _assign(
            self,
            qcode=qcode,
            dcode=dcode,
            qvocab=qvocab,
            dvocab=dvocab,
            score=score,
            rank=rank,
            order=order,
            name=name,
            source=source,
        )
        return self


def _assign(obj: object, **fields: Any) -> None:
    for key, value in fields.items():
        object.__setattr__(obj, key, value)  # the dataclasses are frozen


@contextmanager
def _data(path: str) -> Iterator[Any]:
    """The bytes of the file, decompressed: a plain file mapped into memory (no copy), else read."""
    fh = open_bytes(path, path)
    try:
        mapped = None
        if isinstance(fh, io.BufferedReader) and fh is not getattr(sys.stdin, "buffer", None):
            try:
                flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
                mapped = mmap.mmap(fh.fileno(), 0, flags=flags, prot=mmap.PROT_READ)
            except (OSError, ValueError):  # an empty file, or one that cannot be mapped
                mapped = None
        if mapped is None:
            yield fh.read()
        else:
            try:
                yield mapped
            finally:
                mapped.close()
    finally:
        if fh is not getattr(sys.stdin, "buffer", None):  # standard input stays open
            fh.close()


_LABELS = {_QRELS_PATTERN: {4: "the relevance"}, _RUN_PATTERN: {4: "the rank", 5: "the score"}}


def _read(path: str, pattern: str, what: str) -> tuple[Any, ...]:
    """``_native.trec_read`` of the file: (qcode, dcode, qvocab, dvocab, numbers, tag), or the error of
    the line, worded as the pure-Python reader worded it.
    """
    with _data(path) as data:
        view = memoryview(data)
        try:  # a UTF-8 byte-order mark (Notepad, PowerShell) is not part of the first query id
            out = _native.trec_read(view[3:] if view[:3] == b"\xef\xbb\xbf" else view, pattern)
        finally:
            view.release()
    if out[0] == "ok":
        qcode, dcode = np.frombuffer(out[1], np.int64), np.frombuffer(out[2], np.int64)
        qvocab, dvocab = (np.frombuffer(buf, f"<U{width}") for buf, width in (out[3], out[4]))
        kinds = [np.int64 if letter == "i" else np.float64 for letter in pattern if letter in "nfi"]
        numbers = [np.frombuffer(b, kind) for b, kind in zip(out[5], kinds, strict=True)]
        return qcode, dcode, qvocab, dvocab, numbers, out[6]
    kind, line, field, detail = out
    if kind == "fields":
        raise InputFormatError(
            f"expected {len(pattern)} fields ({what}), found {detail}", source=path, line=line
        )
    if kind == "utf8":
        raise InputFormatError("holds text that is not UTF-8 in an id field", source=path)
    if kind == "number":
        text = detail.decode("utf-8", "replace")
        raise InputFormatError(
            f"expected a number ({_LABELS[pattern][field]}), found {text[:40]!r}",
            source=path,
            line=line,
            field=field,
        )
    if kind == "finite":
        value = float(detail)  # nan, inf: said as Python says them, not np.float64(nan)
        if pattern == _QRELS_PATTERN:
            raise InputFormatError(f"the relevance must be finite, found {value!r}", source=path, line=line)
        raise InputFormatError(
            f"the score must be a finite number, found {value!r}", source=path, line=line, field=5
        )
    first, q, d = detail
    raise InputFormatError(_twice(q, d, f"lines {first} and {line}"), source=path, line=line)


def _twice(qid: str, docid: str, where: str) -> str:
    return f"query {shown(qid)!r}, document {shown(docid)!r} is given twice ({where})"


def read_qrels(data: str | Mapping[Any, Mapping[Any, Any]]) -> Qrels:
    """Judgments from a TREC qrels file (``qid iter docid rel``) or a dict ``{qid: {docid: rel}}``.

    Examples
    --------
    >>> q = read_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d9": 1}})
    >>> q.qid.tolist(), q.docid.tolist(), q.rel.tolist()
    (['q1', 'q1', 'q2'], ['d1', 'd2', 'd9'], [2.0, 0.0, 1.0])
    >>> q.qcode.tolist(), q.dvocab.tolist()
    ([0, 0, 1], ['d1', 'd2', 'd9'])
    """
    if isinstance(data, Mapping):
        qcode, dcode, qvocab, dvocab, rel = _from_dict(data, "qrels")
        _finite(rel, "qrels", "relevance")
        return Qrels.from_codes(qcode, dcode, qvocab, dvocab, rel, "dict")
    qcode, dcode, qvocab, dvocab, (rel,), _ = _read(data, _QRELS_PATTERN, "qid iter docid rel")
    return Qrels.from_codes(qcode, dcode, qvocab, dvocab, rel, data)


def read_run(data: str | Mapping[Any, Mapping[Any, Any]], name: str | None = None) -> Run:
    """A run from a TREC run file (``qid Q0 docid rank score tag``) or a dict ``{qid: {docid: score}}``.

    ``name`` names the run; by default the file's tag when it has one tag, else the file name (a
    dict: ``"run"``).

    Examples
    --------
    >>> r = read_run({"q1": {"d1": 0.9, "d2": 0.1}}, name="bm25")
    >>> r.name, r.docid.tolist(), r.score.tolist()
    ('bm25', ['d1', 'd2'], [0.9, 0.1])
    """
    if isinstance(data, Mapping):
        qcode, dcode, qvocab, dvocab, score = _from_dict(data, "run")
        _finite(score, "run", "score")
        order = np.arange(len(qcode), dtype=np.int64)
        return Run.from_codes(qcode, dcode, qvocab, dvocab, score, None, order, name or "run", "dict")
    qcode, dcode, qvocab, dvocab, (rank, score), tag = _read(
        data, _RUN_PATTERN, "qid Q0 docid rank score tag"
    )
    if name is None:
        name = tag.decode("utf-8", "replace") if tag is not None else data
    order = np.arange(len(qcode), dtype=np.int64)
    return Run.from_codes(qcode, dcode, qvocab, dvocab, score, rank, order, name, data)


def _from_dict(
    data: Mapping[Any, Mapping[Any, Any]], what: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    qids: list[str] = []
    docids: list[str] = []
    values: list[float] = []
    for q, docs in data.items():
        if not isinstance(docs, Mapping):
            raise InvalidDataError(
                f"{what}: query {q!r} maps to {type(docs).__name__}; expected {{docid: value}} for each query"
            )
        for d, v in docs.items():
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise InvalidDataError(f"{what}: query {q!r}, document {d!r} has {v!r}; expected a number")
            qids.append(str(q))
            docids.append(str(d))
            values.append(float(v))
    _, qcode, qvocab = _encode(qids)
    _, dcode, dvocab = _encode(docids)
    _no_duplicates(qcode, dcode, qvocab, dvocab, what)  # two keys that are equal as text: 7 and "7"
    return qcode, dcode, qvocab, dvocab, np.array(values, dtype=np.float64)


def _no_duplicates(
    qcode: np.ndarray,
    dcode: np.ndarray,
    qvocab: np.ndarray,
    dvocab: np.ndarray,
    what: str,
    rows: bool = False,
) -> None:
    """Each (query, document) pair once: a judgment or a retrieval given twice is an error, never a
    silent choice of one of them (``rows``: the message names the two rows, 1-based).
    """
    pair = _native.trec_duplicate(qcode, dcode, len(qvocab), len(dvocab))
    if pair is not None:
        a, b = sorted(int(i) for i in pair)
        where = f"rows {a + 1} and {b + 1}" if rows else "twice"
        raise InvalidDataError(f"{what}: {_twice(str(qvocab[qcode[b]]), str(dvocab[dcode[b]]), where)}")


def no_duplicates(data: Qrels | Run, what: str) -> None:
    """Each (query, document) pair of judgments or a run built from a table once: an error naming the
    two rows of the first pair given twice.
    """
    _no_duplicates(data.qcode, data.dcode, data.qvocab, data.dvocab, what, rows=True)


def _finite(values: np.ndarray, what: str, field: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        raise InvalidDataError(
            f"{what}: a {field} must be a finite number, found {float(values[int(np.argmax(bad))])!r}"
        )
