"""Ranking evaluation from judgments (qrels) and runs, as trec_eval counts.

A joined table of retrieved documents cannot say how many relevant documents a query has: the
relevant documents a run never retrieved are missing from it, so MAP and recall divide by too
little and the ideal DCG is too small.  :func:`evaluate` reads the judgments and the run apart and
counts every judged relevant document of a query (retrieved or not), as trec_eval does:

- a document of the run that is not judged is not relevant;
- a query of the judgments that the run does not answer scores 0 for every measure (trec_eval's
  ``-c``); ``queries="run"`` evaluates only the queries the run answers;
- a query of the run without judgments is left out, with a warning;
- a query's value that needs a relevant document it does not have (AP, NDCG, recall, RR of a query
  judged all non-relevant) is 0, as trec_eval prints it.

Ties in scores follow perfeval's rule (the expectation over the orders of the tied documents, AP's
one threshold per tie), which equals trec_eval's number on runs without ties.  The measures are the
registry's per-query ones: ``map``, ``ndcg`` / ``ndcg@k``, ``p@k``, ``r@k``, ``mrr``, ``dcg@k``.

Examples
--------
>>> qrels = {"q1": {"d1": 1, "d2": 1, "d9": 1}, "q2": {"d1": 1}}
>>> run = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7}}
>>> r = evaluate(qrels, run, "map,p@2,r@10")
>>> round(r["MAP"], 6), r["P@2"], round(r["R@10"], 6)   # q1: AP (1 + 2/3) / 3; q2 unanswered: 0
(0.277778, 0.25, 0.333333)
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from perfeval.engine import grouped_report, resolve
from perfeval.exceptions import InvalidParameterError
from perfeval.io.trec import Qrels, Run, read_qrels, read_run
from perfeval.measures import MeasureSpec
from perfeval.report import Report
from perfeval.summaries.ranking import RankingData, TieTable

__all__ = ["evaluate"]

QUERIES = ("qrels", "run")


def _codes(values: np.ndarray, vocabulary: np.ndarray) -> np.ndarray:
    """The position of each value in the sorted ``vocabulary`` (every value is in it)."""
    return np.searchsorted(vocabulary, values)


def _judged(qrels: Qrels, run: Run, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(relevance of each run row, query code and grade of each judged document the run missed);
    ``queries``: the sorted evaluated queries.
    """
    docs = np.unique(np.concatenate([qrels.docid, run.docid]))
    nd = np.int64(len(docs))
    qkeys = np.unique(np.concatenate([qrels.qid, run.qid]))
    judged = _codes(qrels.qid, qkeys).astype(np.int64) * nd + _codes(qrels.docid, docs)
    retrieved = _codes(run.qid, qkeys).astype(np.int64) * nd + _codes(run.docid, docs)
    order = np.argsort(judged)
    sorted_judged = judged[order]
    at = np.minimum(np.searchsorted(sorted_judged, retrieved), max(len(judged) - 1, 0))
    found = sorted_judged[at] == retrieved if len(judged) else np.zeros(len(retrieved), dtype=bool)
    rel = np.where(found, qrels.rel[order][at] if len(judged) else 0.0, 0.0)
    missed = ~np.isin(judged, retrieved)
    in_scope = np.isin(qrels.qid, queries) & missed
    return rel, _codes(qrels.qid[in_scope], queries), qrels.rel[in_scope]


def _queries(qrels: Qrels, run: Run, which: str) -> np.ndarray:
    if which not in QUERIES:
        raise InvalidParameterError(f"queries={which!r}: expected one of {', '.join(QUERIES)}")
    judged, answered = np.unique(qrels.qid), np.unique(run.qid)
    unjudged = np.setdiff1d(answered, judged)
    if len(unjudged):
        shown = ", ".join(repr(str(q)) for q in unjudged[:5])
        more = ", ..." if len(unjudged) > 5 else ""
        warnings.warn(
            f"queries of run {run.name!r} without judgments are left out: {len(unjudged)} ({shown}{more})",
            stacklevel=3,
        )
    return judged if which == "qrels" else np.intersect1d(answered, judged)


def _table(qrels: Qrels, run: Run, queries: np.ndarray) -> tuple[TieTable, np.ndarray]:
    """The tie table of every evaluated query the run answers, with its unretrieved judged documents;
    and the code (in ``queries``) of each of its queries.
    """
    rel, miss_q, miss_g = _judged(qrels, run, queries)
    keep = np.isin(run.qid, queries)
    qcode = _codes(run.qid[keep], queries)
    rd = RankingData(rel[keep], run.score[keep], qcode)
    table = TieTable.from_ranking(rd)
    present = np.asarray(table.keys, dtype=np.int64)  # codes in `queries` of the answered queries
    local = np.searchsorted(present, miss_q)
    if len(present):
        answered = (local < len(present)) & (present[np.minimum(local, len(present) - 1)] == miss_q)
    else:
        answered = np.zeros(len(miss_q), dtype=bool)  # the run answers no evaluated query
    return table.with_unretrieved(local[answered], miss_g[answered]), present


def evaluate(
    qrels: str | Mapping[Any, Mapping[Any, Any]] | Qrels,
    run: str | Mapping[Any, Mapping[Any, Any]] | Run,
    measures: Iterable[str | MeasureSpec] | str = ("map", "ndcg@10", "p@10", "r@100", "mrr"),
    *,
    queries: str = "qrels",
) -> Report:
    """Evaluate a run against judgments: every judged relevant document counts.

    Parameters
    ----------
    qrels : path, dict or Qrels
        A TREC qrels file (``qid iter docid rel``, possibly compressed) or ``{qid: {docid: rel}}``.
    run : path, dict or Run
        A TREC run file (``qid Q0 docid rank score tag``) or ``{qid: {docid: score}}``.
    measures : str or list
        Per-query measures of the registry (``map``, ``ndcg@10``, ``p@5``, ``r@100``, ``mrr``, ...).
    queries : {"qrels", "run"}
        Evaluate every judged query (unanswered ones score 0; trec_eval ``-c``), or only the judged
        queries the run answers (trec_eval's default).

    Returns
    -------
    Report
        One result per measure: the mean over the evaluated queries, and each query's value
        (``Report.groups`` are the query ids).
    """
    q = qrels if isinstance(qrels, Qrels) else read_qrels(qrels)
    r = run if isinstance(run, Run) else read_run(run)
    specs = resolve(measures, 0.5)
    wrong = [s.label for s in specs if s.measure.kind != "ranking"]
    if wrong:
        raise InvalidParameterError(
            f"{wrong[0]} is not a per-query ranking measure; with judgments and runs use map, ndcg@k, "
            "p@k, r@k, mrr, dcg@k"
        )
    keys = _queries(q, r, queries)
    table, present = _table(q, r, keys)
    values = {}
    for s in specs:
        per = np.zeros(len(keys))  # an unanswered query: 0
        got = np.asarray(s.measure.function()(table, **s.kwargs), dtype=np.float64)
        per[present] = np.nan_to_num(got, nan=0.0)  # no relevant document: 0, as trec_eval
        values[s.label] = per
    sizes = np.bincount(_codes(r.qid[np.isin(r.qid, keys)], keys), minlength=len(keys)).astype(np.float64)
    report = grouped_report(
        specs,
        keys,
        sizes,
        values,
        threshold=0.5,
        rows=len(r),
        weighted=False,
        backend="memory",
        run=r.name,
        qrels=q.source,
        queries=queries,
        judgments="qrels",
    )
    report.params.pop("threshold", None)
    return report
