"""TREC judgments (qrels) and runs: files, and the dict shape of pytrec_eval and ranx.

A qrels line is ``qid iter docid rel`` and a run line ``qid Q0 docid rank score tag``, fields
separated by blanks (trec_eval's formats; the ``iter`` and ``Q0`` fields are read and ignored).
Files may be gzip, bzip2 or xz compressed.  A dict maps each query id to ``{docid: value}``
(relevance for qrels, score for a run), as ``pytrec_eval`` and ``ranx`` take them.

Query and document ids are identities and are kept as the text written (trec_eval compares them as
strings: ``"007"`` and ``"7"`` are two queries).  Nothing is dropped or guessed: a line with the
wrong number of fields, a relevance or score that is not a number, a non-finite score and a
(qid, docid) pair given twice are each an error naming the file and the line.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfeval.exceptions import InputFormatError, InvalidDataError

#: fields of a qrels line and of a run line
QRELS_FIELDS = 4
RUN_FIELDS = 6
#: blank characters between fields (trec_eval splits at spaces and tabs)
_BLANKS = b" \t\r\v\f"


@dataclass(frozen=True)
class Qrels:
    """Relevance judgments: one row per judged (query, document).

    Attributes
    ----------
    qid, docid : ndarray of str
        Query and document ids as written.
    rel : ndarray of float64
        The judged relevance (0 = judged not relevant; trec_eval counts rel >= 1 as relevant).
    source : str
        Where the judgments came from (a file name, or ``"dict"``).
    """

    qid: np.ndarray
    docid: np.ndarray
    rel: np.ndarray
    source: str = ""

    def __len__(self) -> int:
        return len(self.qid)


@dataclass(frozen=True)
class Run:
    """A ranking of documents per query: one row per retrieved (query, document).

    Attributes
    ----------
    qid, docid : ndarray of str
        Query and document ids as written.
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
    """

    qid: np.ndarray
    docid: np.ndarray
    score: np.ndarray
    rank: np.ndarray | None
    order: np.ndarray
    name: str = ""
    source: str = ""

    def __len__(self) -> int:
        return len(self.qid)


def _body(path: str) -> bytes:
    from perfeval.io.tables import open_bytes

    fh = open_bytes(path, path)
    try:
        return fh.read()
    finally:
        if fh is not getattr(sys.stdin, "buffer", None):  # standard input stays open
            fh.close()


def _fields(body: bytes, n: int, source: str, what: str) -> tuple[list[bytes], np.ndarray]:
    """The blank-separated tokens of ``body`` (``n`` per non-blank line, checked line by line) and the
    1-based line number of each record.
    """
    lines = body.split(b"\n")
    records: list[bytes] = []
    numbers = []
    for i, line in enumerate(lines, 1):
        tokens = line.split()
        if not tokens:
            continue  # a blank line (or the end of the file)
        if len(tokens) != n:
            raise InputFormatError(
                f"expected {n} fields ({what}), found {len(tokens)}", source=source, line=i
            )
        records.extend(tokens)
        numbers.append(i)
    return records, np.array(numbers, dtype=np.int64)


def _text(tokens: list[bytes], source: str) -> np.ndarray:
    try:
        return np.array([t.decode("utf-8") for t in tokens], dtype=str)
    except UnicodeDecodeError:
        raise InputFormatError("holds text that is not UTF-8 in an id field", source=source) from None


def _numbers(tokens: list[bytes], source: str, lines: np.ndarray, field: int, what: str) -> np.ndarray:
    from perfeval.io.grammar import first_bad_number, numbers

    text = [t.decode("utf-8", "replace") for t in tokens]
    out = numbers(text)
    if out is None:
        i = first_bad_number(text)
        raise InputFormatError(
            f"expected a number ({what}), found {text[i][:40]!r}",
            source=source,
            line=int(lines[i]),
            field=field,
        )
    return out


def _no_duplicates(qid: np.ndarray, docid: np.ndarray, source: str, lines: np.ndarray | None) -> None:
    """Each (query, document) pair once: a judgment or a retrieval given twice is an error, never a
    silent choice of one of them.
    """
    if len(qid) < 2:
        return
    order = np.lexsort((docid, qid))
    q, d = qid[order], docid[order]
    same = (q[1:] == q[:-1]) & (d[1:] == d[:-1])
    if same.any():
        k = int(np.argmax(same))
        a, b = sorted((int(order[k]), int(order[k + 1])))
        where = f"lines {lines[a]} and {lines[b]}" if lines is not None else "twice"
        from perfeval._text import shown

        message = f"query {shown(str(q[k]))!r}, document {shown(str(d[k]))!r} is given twice ({where})"
        if lines is not None:
            raise InputFormatError(message, source=source, line=int(lines[b]))
        raise InvalidDataError(f"{source}: {message}")


def read_qrels(data: str | Mapping[Any, Mapping[Any, Any]]) -> Qrels:
    """Judgments from a TREC qrels file (``qid iter docid rel``) or a dict ``{qid: {docid: rel}}``.

    Examples
    --------
    >>> q = read_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d9": 1}})
    >>> q.qid.tolist(), q.docid.tolist(), q.rel.tolist()
    (['q1', 'q1', 'q2'], ['d1', 'd2', 'd9'], [2.0, 0.0, 1.0])
    """
    if isinstance(data, Mapping):
        qid, docid, rel = _from_dict(data, "qrels")
        _finite(rel, "qrels", "relevance")
        return Qrels(qid, docid, rel, "dict")
    tokens, lines = _fields(_body(data), QRELS_FIELDS, data, "qid iter docid rel")
    qid, docid = _text(tokens[0::4], data), _text(tokens[2::4], data)
    rel = _numbers(tokens[3::4], data, lines, 4, "the relevance")
    bad = ~np.isfinite(rel)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputFormatError(
            f"the relevance must be finite, found {rel[i]!r}", source=data, line=int(lines[i])
        )
    _no_duplicates(qid, docid, data, lines)
    return Qrels(qid, docid, rel, data)


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
        qid, docid, score = _from_dict(data, "run")
        _finite(score, "run", "score")
        return Run(qid, docid, score, None, np.arange(len(qid), dtype=np.int64), name or "run", "dict")
    tokens, lines = _fields(_body(data), RUN_FIELDS, data, "qid Q0 docid rank score tag")
    qid, docid = _text(tokens[0::6], data), _text(tokens[2::6], data)
    rank = _numbers(tokens[3::6], data, lines, 4, "the rank")
    score = _numbers(tokens[4::6], data, lines, 5, "the score")
    bad = ~np.isfinite(score)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputFormatError(
            f"the score must be a finite number, found {score[i]!r}", source=data, line=int(lines[i]), field=5
        )
    _no_duplicates(qid, docid, data, lines)
    tags = set(tokens[5::6])
    if name is None:
        name = tags.pop().decode("utf-8", "replace") if len(tags) == 1 else data
    order = np.arange(len(qid), dtype=np.int64)
    return Run(qid, docid, score, rank.astype(np.int64), order, name, data)


def _from_dict(data: Mapping[Any, Mapping[Any, Any]], what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    qid, docid = np.array(qids, dtype=str), np.array(docids, dtype=str)
    _no_duplicates(qid, docid, what, None)  # two keys that are equal as text: 7 and "7"
    return qid, docid, np.array(values, dtype=np.float64)


def _finite(values: np.ndarray, what: str, field: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        raise InvalidDataError(
            f"{what}: a {field} must be a finite number, found {values[int(np.argmax(bad))]!r}"
        )
