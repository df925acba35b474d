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

Ties in scores follow perfeval's rule by default (the expectation over the orders of the tied
documents, AP's one threshold per tie), which equals trec_eval's number on runs without ties;
``ties="trec_eval"`` breaks them as trec_eval does (by document id, descending, as strcmp orders
them) and ``ties="file"`` by the order of the run's lines.

``dialect="trec_eval"``, ``"ranx"`` or ``"ir_measures"`` gives that tool's numbers as its users get them
by default: its order of ties, its definitions and the queries it averages over (trec_eval: the judged
queries the run answers, as without ``-c``; ranx and ir_measures: every judged query).  :func:`explain`
puts them side by side with the rules that make them differ.

The measures are the registry's per-query ones, named as perfeval, trec_eval or ir_measures name
them (``map``, ``ndcg_cut_10``, ``P_5``, ``nDCG@10``, ``recall_100``, ``Rprec``, ``bpref``,
``success_10``, ``Judged@10``, ...); a tool's spelling means that tool's definition, and here
``ndcg`` is trec_eval's (linear gain), see :mod:`perfeval.measures.spellings`.  ``level`` is
trec_eval's ``-l``: the relevance from which a document is relevant to the binary measures (the
graded ones, NDCG, DCG and CG, read the relevance itself; a negative judgment is trec_eval's "in the
pool, not judged": not relevant and not judged).

Examples
--------
>>> qrels = {"q1": {"d1": 1, "d2": 1, "d9": 1}, "q2": {"d1": 1}}
>>> run = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7}}
>>> r = evaluate(qrels, run, measures="map,p@2,r@10")
>>> round(r["MAP"], 6), r["P@2"], round(r["R@10"], 6)   # q1: AP (1 + 2/3) / 3; q2 unanswered: 0
(0.277778, 0.25, 0.333333)
"""

from __future__ import annotations

import math
import numbers
import os
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base.checks import column, identity_groups, overflows, table_names, to_numpy
from perfeval.base.deprecation import REMOVED_IN, measures_keyword
from perfeval.base.text import place, shown
from perfeval.engine import grouped_report, resolve
from perfeval.engine.report import MeasureResult, Report, why_not_finite, with_reasons
from perfeval.exceptions import InvalidDataError, InvalidParameterError, user_stacklevel
from perfeval.io.columns import Column
from perfeval.io.readers import guess_format, read_table
from perfeval.io.tables import open_bytes
from perfeval.io.trec import Qrels, Run, no_duplicates, read_qrels, read_run
from perfeval.measures import REGISTRY, MeasureSpec
from perfeval.measures.spec import split_measures
from perfeval.measures.tiebounds import tied_pairs
from perfeval.summaries.orders import distinct, order_name, tie_order
from perfeval.summaries.ranking import TieTable, group_codes, query_order

# The dialects, the statistics and the explanation are imported where runs are compared or a
# dialect is applied: `perfeval trec` of one run loads none of them.

__all__ = [
    "RunComparison",
    "as_qrels",
    "as_run",
    "compare",
    "evaluate",
    "per_query",
    "ROLES",
    "CORRECTIONS",
    "QUERIES",
    "TESTS",
    "TIES",
    "DIALECTS",
    "DIALECT_QUERIES",
    "DIALECT_TIES",
    "Rules",
    "rules",
    "explain",
]

QUERIES = ("qrels", "run")
#: the measures of ``evaluate``, ``compare`` and ``perfeval trec`` when none are named (trec_eval's)
DEFAULT = ("map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank")
#: tie rules as ``ties=`` and ``--ties`` name them: perfeval's expectation over tie orders; trec_eval's
#: (score, then docid descending), the run's line order and ranx's: the orders of
#: :mod:`perfeval.summaries.orders` (``id_desc``, ``input``, ``numba``) under these names
TIES = ("perfeval", "trec_eval", "file", "ranx")
#: the dialects: each tool as its users run it by default (its order of ties, its definitions, and
#: the queries it averages over: :data:`DIALECT_QUERIES`)
DIALECTS = ("perfeval", "trec_eval", "ranx", "ir_measures")
#: the queries each dialect's tool averages over by default: trec_eval (and pytrec_eval) the judged
#: queries the run answers (without ``-c``); ranx every judged query (it refuses a run that leaves one
#: out, and with ``make_comparable=True`` scores it 0); ir_measures every judged query (one the run
#: leaves out gets the measure's default, 0); perfeval every judged query (trec_eval's ``-c``)
DIALECT_QUERIES = {"perfeval": "qrels", "trec_eval": "run", "ranx": "qrels", "ir_measures": "qrels"}
#: each dialect's order of tied documents as this module's tie rule (ir_measures': trec_eval's, but
#: for its Judged@k)
DIALECT_TIES = {"perfeval": "perfeval", "trec_eval": "trec_eval", "ranx": "ranx", "ir_measures": "trec_eval"}
#: a dialect policy's order of ties as this module's tie rule: trec_eval's ``id_desc`` of the scores
#: read as float32, as trec_eval 9.0.x and pytrec_eval read them (``ties="trec_eval"`` compares them
#: as written, as 10.0); ``id_asc``: ir_measures' Judged@k
_POLICY_TIES = {"id_desc": "id_desc:float32", "numba": "numba", "id_asc": "id_asc", "perfeval": "perfeval"}
#: measures that read the relevance itself rather than relevant / not relevant
_GRADED = ("NDCG", "DCG", "CG")


def _codes(values: np.ndarray, vocabulary: np.ndarray) -> np.ndarray:
    """The position of each value in the sorted ``vocabulary`` (every value is in it)."""
    return np.searchsorted(vocabulary, values)


def _map(ids: np.ndarray, vocabulary: np.ndarray) -> np.ndarray:
    """The position of each of the sorted distinct ``ids`` in the sorted ``vocabulary``, -1 where it
    is not there: the ids of one input translated into the codes of another, vocabulary against
    vocabulary (never row by row), by one merge walk of the two (compiled ``vocab_map``).
    """
    if not len(vocabulary) or not len(ids):
        return np.full(len(ids), -1, dtype=np.int64)
    if ids.dtype.kind != "U" or vocabulary.dtype.kind != "U":
        pos = np.minimum(np.searchsorted(vocabulary, ids), len(vocabulary) - 1)
        return np.where(vocabulary[pos] == ids, pos, -1).astype(np.int64)

    a, b = np.ascontiguousarray(ids), np.ascontiguousarray(vocabulary)
    out = _native.vocab_map(
        a.view(np.uint32), a.dtype.itemsize // 4, b.view(np.uint32), b.dtype.itemsize // 4
    )
    return np.frombuffer(out, np.int64)


@dataclass(frozen=True)
class _Joined:
    """A run joined with its judgments.  Per run row: its relevance (0 when not judged, or judged
    negative), whether it is judged (a judgment >= 0), whether the judgments hold it at all
    (ir_measures' "judged"), and its query as a code of the judgments' queries (-1 if unjudged).  Per
    judgment, in the judgments sorted by (query, document): its query code, its relevance and whether
    the run retrieved its document.
    """

    rel: np.ndarray
    judged: np.ndarray
    pooled: np.ndarray
    rq: np.ndarray
    jquery: np.ndarray
    jrel: np.ndarray
    retrieved: np.ndarray


def _join(qrels: Qrels, run: Run) -> _Joined:
    jq, jdoc, jrel, jstart = qrels.by_pair
    if not len(qrels):
        none = np.zeros(len(run), dtype=bool)
        rq = _map(run.qvocab, qrels.qvocab)[run.qcode]
        return _Joined(np.zeros(len(run)), none, none, rq, jq, jrel, np.zeros(0, dtype=bool))

    qmap, dmap = _map(run.qvocab, qrels.qvocab), _map(run.dvocab, qrels.dvocab)
    at, rq = (
        np.frombuffer(b, np.int64) for b in _native.trec_join(run.qcode, run.dcode, qmap, dmap, jstart, jdoc)
    )
    found = at >= 0
    rel = np.where(found, jrel[at], 0.0)
    judged = found & (rel >= 0)  # a negative judgment: in the pool, not judged (trec_eval)
    retrieved = np.zeros(len(qrels), dtype=bool)
    retrieved[at[found]] = True
    return _Joined(np.maximum(rel, 0.0), judged, found, rq, jq, jrel, retrieved)


def _queries(qrels: Qrels, run: Run, which: str) -> np.ndarray:
    if which not in QUERIES:
        raise InvalidParameterError(f"queries={which!r}: expected one of {', '.join(QUERIES)}")
    judged, answered = qrels.qvocab, run.qvocab  # the distinct ids, sorted
    unjudged = np.setdiff1d(answered, judged, assume_unique=True)
    if len(unjudged):
        shown = ", ".join(repr(str(q)) for q in unjudged[:5])
        more = ", ..." if len(unjudged) > 5 else ""
        warnings.warn(
            f"queries of run {run.name!r} without judgments are left out: {len(unjudged)} ({shown}{more})",
            stacklevel=user_stacklevel(),
        )
    keys = judged if which == "qrels" else np.intersect1d(answered, judged, assume_unique=True)
    if not len(keys):
        why = (
            "the judgments hold no query" if not len(judged) else f"run {run.name!r} answers no judged query"
        )
        raise InvalidDataError(f"no query to evaluate: {why}")
    return keys


def _key_codes(qrels: Qrels, keys: np.ndarray) -> np.ndarray:
    """For each query code of the judgments, its position in ``keys`` (-1 when not evaluated)."""
    out = np.full(len(qrels.qvocab), -1, dtype=np.int64)
    out[_codes(keys, qrels.qvocab)] = np.arange(len(keys))
    return out


def _tie_break(
    run: Run,
    keep: np.ndarray,
    query: np.ndarray,
    ties: str,
    keys: tuple[np.ndarray, ...] = (),
) -> tuple[np.ndarray, np.ndarray | None]:
    """The scores of the kept rows, made distinct inside each query by the tie rule (a strictly
    decreasing score in the rule's order: :func:`perfeval.summaries.orders.tie_order`), with the rows'
    order by query and that score; or the scores as they are for perfeval's rule (and None).  A rule
    ending in ``:float32`` orders the scores as read into a C float (trec_eval 9.0.x and pytrec_eval
    read a run so).  ``input`` is the order of the run's lines, ``id_desc``/``id_asc`` of the document
    ids; the tie bounds ``best`` and ``worst`` put a tie's rows with higher ``keys`` (per kept row,
    the first deciding first) first, or last.
    """
    everything = bool(keep.all())
    score = run.score if everything else run.score[keep]
    rule, _, reading = order_name(ties).partition(":")
    if rule == "perfeval" or not len(score):
        return score, None
    if reading == "float32":  # trec_eval 9.0.x and pytrec_eval read the scores as float: ties there
        score = score.astype(np.float32).astype(np.float64)

    def kept(a: np.ndarray) -> np.ndarray:
        return a if everything else a[keep]

    if rule in ("input", "reverse"):
        order = tie_order(query, score, rule, rank=kept(run.order))
    elif rule in ("id_desc", "id_asc"):  # codes are positions in the sorted ids: strcmp's order
        order = tie_order(query, score, rule, id_codes=kept(run.dcode))
    else:  # numba's argsort over each query's rows in the run's order (rows are stored so)
        order = tie_order(query, score, rule, y=keys)
    return distinct(order), order


def _row_keys(j: _Joined, qrels: Qrels, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each run row's evaluated query as a position in ``queries`` (-1: not evaluated), and the
    positions of the judgments' queries likewise.
    """
    kmap = _key_codes(qrels, queries)
    return np.where(j.rq >= 0, kmap[np.maximum(j.rq, 0)], -1), kmap


def _tables(
    qrels: Qrels,
    run: Run,
    queries: np.ndarray,
    ties: str,
    level: float | None,
    joined: _Joined | None = None,
) -> tuple[TieTable, TieTable, np.ndarray]:
    """The tie tables of every evaluated query the run answers, with its unretrieved judged
    documents: one for the graded measures (the relevance itself) and one for the binary ones
    (relevance >= ``level`` relevant, or > 0); and the code (in ``queries``) of each answered query.
    ``joined``: the run joined with the judgments already (else joined here).
    """
    j = _join(qrels, run) if joined is None else joined
    row_key, kmap = _row_keys(j, qrels, queries)
    keep = row_key >= 0
    everything = bool(keep.all())

    def kept(a: np.ndarray) -> np.ndarray:
        return a if everything else a[keep]

    qcode = kept(row_key)
    bounds = (kept(j.rel), kept(j.judged), kept(j.pooled)) if ties in ("best", "worst") else ()
    score, order = _tie_break(run, keep, qcode, ties, bounds)
    present, codes = group_codes(qcode)  # the same order as qcode's
    if order is None:
        order = query_order(codes, score, len(present))
    missing = ~j.retrieved & (kmap[j.jquery] >= 0)
    miss_q, miss_g = kmap[j.jquery[missing]], j.jrel[missing]
    local = np.searchsorted(present, miss_q)
    if len(present):
        answered = (local < len(present)) & (present[np.minimum(local, len(present) - 1)] == miss_q)
    else:
        answered = np.zeros(len(miss_q), dtype=bool)  # the run answers no evaluated query
    judged, pooled = kept(j.judged), kept(j.pooled)

    def table(r: np.ndarray, g: np.ndarray) -> TieTable:
        t = TieTable.from_rows(codes, score, r, present, order=order, judged=judged, pooled=pooled)
        return t.with_unretrieved(local[answered], g[answered])

    rel = kept(j.rel)
    graded = table(rel, miss_g)
    if level is None:
        return graded, graded, present
    binary = table(np.where(rel >= level, 1.0, 0.0), np.where(miss_g >= level, 1.0, np.minimum(miss_g, 0.0)))
    return graded, binary, present


def _sizes(qrels: Qrels, run: Run, keys: np.ndarray) -> np.ndarray:
    """The documents the run ranks for each evaluated query."""
    judged = _map(run.qvocab, qrels.qvocab)
    per_run_query = np.where(judged >= 0, _key_codes(qrels, keys)[np.maximum(judged, 0)], -1)
    row = per_run_query[run.qcode]
    return np.bincount(row[row >= 0], minlength=len(keys)).astype(np.float64)


def _check(queries: str, ties: str, level: float | None) -> None:
    if ties not in TIES:
        raise InvalidParameterError(f"ties={ties!r}: expected one of {', '.join(TIES)}")
    if queries not in QUERIES:
        raise InvalidParameterError(f"queries={queries!r}: expected one of {', '.join(QUERIES)}")
    if level is not None and not (
        isinstance(level, numbers.Real) and not isinstance(level, bool) and np.isfinite(level) and level > 0
    ):
        raise InvalidParameterError(f"level={level!r}: expected a finite number > 0 (trec_eval's -l)")


def _cutoffs(text: str) -> list[str]:
    """trec_eval's ``-m P.5,10,20`` form: a bare number after ``name.k`` is another cut-off of it."""
    out: list[str] = []
    family = None

    for token in split_measures(text):
        if token.isdigit() and family is not None:
            out.append(f"{family}.{token}")
            continue
        m = re.fullmatch(r"([A-Za-z_]+)\.\d+", token)
        family = m.group(1) if m else None
        out.append(token)
    return [t for t in out if t]


def measure_specs(measures: Iterable[str | MeasureSpec] | str) -> list[MeasureSpec]:
    """The measures asked of judgments and runs, parsed (trec_eval's `P.5,10` cut-offs, tool spellings):
    per-query ranking measures only, or an error naming the one that is not.
    """
    tokens = _cutoffs(measures) if isinstance(measures, str) else list(measures)
    specs = resolve(tokens, 0.5, trec=True)
    for token, spec in zip(tokens, specs, strict=True):  # each named as asked (``mrr``, not ``MRR``)
        if isinstance(token, str) and not spec.written:
            object.__setattr__(spec, "written", token.strip())
    if not specs:
        raise InvalidParameterError("no measure named (e.g. map,ndcg_cut_10,P_10)")
    wrong = [s.written or s.label for s in specs if s.measure.kind != "ranking"]
    if wrong:
        names = ", ".join(m.name.lower() for m in REGISTRY if m.kind == "ranking")
        raise InvalidParameterError(
            f"{wrong[0]} is not a per-query ranking measure; with judgments and runs use one of {names} "
            "(or trec_eval's and ir_measures' names: ndcg_cut_10, P_5, recall_100, nDCG@10, ...)"
        )
    return specs


@dataclass(frozen=True)
class Rules:
    """What an evaluation of judgments and runs computes, settled from its arguments: the measures
    (with the dialect's definitions), each one's order of ties (by label: ``perfeval`` or a name of
    :data:`perfeval.summaries.orders.ORDERS`, ``:float32`` after it for the scores read as C floats),
    the queries averaged over, the dialect (None: perfeval's rules) and the tie rule as the signature
    says it.
    """

    specs: list[MeasureSpec]
    ties: dict[str, str]
    queries: str
    dialect: str | None
    tie_rule: str


def rules(
    measures: Iterable[str | MeasureSpec] | str,
    *,
    dialect: str | None = None,
    ties: str | None = None,
    queries: str | None = None,
    level: float | None = None,
) -> Rules:
    """The measures, ties and queries of an evaluation: a dialect's own (``trec_eval``: its order of
    ties, its definitions, the judged queries the run answers; ``ranx``, ``ir_measures``: theirs) where
    ``ties`` and ``queries`` are not given; perfeval's (its tie rule, every judged query) without one.
    A tie rule other than the dialect's, or a measure its tool does not define, is an error.
    """
    if dialect is not None and dialect not in DIALECTS:
        raise InvalidParameterError(f"dialect={dialect!r}: expected one of {', '.join(DIALECTS)}")
    tool = None if dialect in (None, "perfeval") else dialect
    own = DIALECT_TIES[tool or "perfeval"]
    if dialect is not None and ties is not None and ties != own:
        raise InvalidParameterError(
            f"dialect={dialect!r} orders tied documents its own way: drop ties={ties!r}"
        )
    ties = own if ties is None else ties
    queries = DIALECT_QUERIES[dialect or "perfeval"] if queries is None else queries
    _check(queries, ties, level)
    specs = measure_specs(measures)
    if tool is None:
        return Rules(specs, {s.label: order_name(ties) for s in specs}, queries, dialect, ties)
    out, rule = [], {}
    for spec in specs:
        new, pol_ties = _dialect_spec(tool, spec)
        out.append(new)
        rule[new.label] = _POLICY_TIES[pol_ties]
    labels = [s.label for s in out]
    dup = next((lab for lab in labels if labels.count(lab) > 1), None)
    if dup is not None:
        raise InvalidParameterError(f"measure named twice: {dup} (under dialect {tool})")
    return Rules(out, rule, queries, tool, f"dialect={tool}")


def _dialect_spec(tool: str, spec: MeasureSpec) -> tuple[MeasureSpec, str]:
    """The measure as the dialect's tool computes it (its fixed parameters: trec_eval's and ranx's
    ndcg@k have linear gain), with the order of ties of its policy; a measure the tool does not
    define is an error naming the dialects that do.
    """
    from perfeval.dialects.apply import policy_spec
    from perfeval.dialects.table import IR_MEASURES, RANX, TREC_EVAL

    table = {"trec_eval": TREC_EVAL, "ranx": RANX, "ir_measures": IR_MEASURES}
    d = table[tool]
    if spec.measure.name not in d.policies:
        others = [n for n, t in table.items() if spec.measure.name in t.policies]
        raise InvalidParameterError(
            f"dialect {tool} does not define {spec.written or spec.label} ({d.tool} has no such measure); "
            f"dialects that do: {', '.join(['perfeval', *others])}"
        )
    pol, engine = policy_spec(d, spec)
    changed = {k for k, v in engine.params if dict(spec.params).get(k) != v}
    if not changed and engine.measure is spec.measure:
        return spec, pol.ties
    new = MeasureSpec(engine.measure, engine.params)
    object.__setattr__(new, "_set", frozenset(spec._set) | changed)  # the label shows what the tool set
    object.__setattr__(new, "written", spec.written)
    object.__setattr__(new, "tool", spec.tool)
    return new, pol.ties


def _values(
    qrels: Qrels,
    run: Run,
    how: Rules,
    keys: np.ndarray,
    *,
    level: float | None,
    facts: dict[str, Any],
) -> dict[str, np.ndarray]:
    """Each measure's per-query values, the measures of each order of ties together (a dialect may
    order them differently for one measure: ir_measures' Judged@k).
    """
    values: dict[str, np.ndarray] = {}
    resorted = _ranx_resorts(how, qrels, run)
    if resorted:
        facts["tie_rule"] = how.tie_rule + ":sorts=2"
    for i, rule in enumerate(dict.fromkeys(how.ties.values())):
        group = [s for s in how.specs if how.ties[s.label] == rule]
        rule = "numba2" if rule == "numba" and resorted else rule
        got = per_query(qrels, run, group, keys, ties=rule, level=level, facts=facts if i == 0 else None)
        values.update(got)
    return values


def _ranx_resorts(how: Rules, qrels: Qrels, run: Run) -> bool:
    """Whether ranx, as its users run it, sorts the run twice: ranx refuses a run whose queries are
    not the judgments' unless ``make_comparable=True``, which sorts the run again (tied documents of a
    query of more than 15 move: numba's quicksort).
    """
    return how.dialect == "ranx" and not np.array_equal(run.qvocab, qrels.qvocab)


def per_query(
    qrels: Qrels,
    run: Run,
    specs: list[MeasureSpec],
    keys: np.ndarray,
    *,
    ties: str = "perfeval",
    level: float | None = None,
    joined: _Joined | None = None,
    facts: dict[str, Any] | None = None,
) -> dict[str, np.ndarray]:
    """Each measure's value for each query of ``keys`` (sorted judged query ids): 0 where the run
    does not answer the query or the query has no relevant document (as trec_eval prints it).
    ``joined``: the run joined with the judgments already (tie bounds evaluate it three times).
    ``facts`` gets ``"mixed_tie_queries"``: the answered queries with a tie of relevant and
    non-relevant documents (where the order of ties can move a measure).
    """
    graded, binary, present = _tables(qrels, run, keys, ties, level, joined)
    if facts is not None:
        mixed = (graded.rel > 0) & (graded.rel < graded.size)
        facts["mixed_tie_queries"] = int(len(np.unique(graded.query[mixed])))
    values = {}
    for s in specs:
        t = graded if s.measure.name in _GRADED else binary
        per = np.zeros(len(keys))  # an unanswered query: 0
        got = np.asarray(s.measure.function()(t, **s.kwargs), dtype=np.float64)
        per[present] = np.nan_to_num(got, nan=0.0)  # no relevant document: 0, as trec_eval
        values[s.label] = per
    return values


def bounds_per_query(
    qrels: Qrels,
    run: Run,
    specs: list[MeasureSpec],
    keys: np.ndarray,
    values: dict[str, np.ndarray],
    *,
    level: float | None = None,
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], float, float]:
    """Tie bounds: each measure's least and greatest value for each query over every order of the
    run's tied documents (see :mod:`perfeval.measures.tiebounds`: the measure of the two extreme
    orders, relevant, then judged, documents first and last; an order-free measure's value), and the
    tied and comparable pairs: the retrieved documents of a query with different relevance, and
    those with equal scores.  Under any tie rule the value lies between the bounds (``ties="trec_eval"``
    and ``"file"`` pick one order); 0 for a query with no relevant document, as its value.
    """
    j = _join(qrels, run)  # once, for both extreme orders and the pairs
    ordered = [s for s in specs if s.measure.tie_bounds == "orders"]
    best = per_query(qrels, run, ordered, keys, ties="best", level=level, joined=j) if ordered else {}
    worst = per_query(qrels, run, ordered, keys, ties="worst", level=level, joined=j) if ordered else {}
    out = {}
    for s in specs:
        if s.label in best:
            a, b = best[s.label], worst[s.label]
            out[s.label] = (np.fmin(a, b), np.fmax(a, b))
        else:
            out[s.label] = (values[s.label], values[s.label])
    row_key, _ = _row_keys(j, qrels, keys)
    keep = row_key >= 0
    tied, pairs = tied_pairs(j.rel[keep], run.score[keep], row_key[keep])
    return out, tied, pairs


#: column names that say each role in a table (any case), most usual first; ``qrels_columns=`` and
#: ``run_columns=`` name others
ROLES = {
    "qid": (
        "qid",
        "query_id",
        "query-id",
        "q_id",
        "query",
        "topic",
        "topic_id",
        "user_id",
        "user",
        "session_id",
    ),
    "docid": (
        "docid",
        "doc_id",
        "corpus-id",
        "docno",
        "document",
        "document_id",
        "pid",
        "item_id",
        "item",
        "doc",
    ),
    "rel": ("rel", "relevance", "grade", "label", "judgment", "target", "click", "score"),
    "score": ("score", "sim", "similarity", "prediction", "pred", "y_score"),
}


def _is_table_file(path: str) -> bool:
    """A CSV, Parquet or JSON-lines file; a ``.tsv`` when its first line names a known column (else a
    TREC file written with tabs, as MS MARCO's qrels).
    """
    fmt = guess_format(path, b"")  # from the name alone (compressed or not)
    if fmt in ("csv", "parquet", "jsonl"):
        return True
    if fmt != "tsv":
        return False
    fh = open_bytes(path, path)
    try:
        first = fh.read(4096).split(b"\n", 1)[0].decode("utf-8", "replace").lower()
    finally:
        fh.close()
    known = {n for names in ROLES.values() for n in names}
    return any(f.strip().strip('"') in known for f in first.split("\t"))


def _option(roles: tuple[str, ...]) -> str:
    return "run_columns= (--run-columns" if "score" in roles else "qrels_columns= (--qrels-columns"


def _role_columns(
    names: list[str], roles: tuple[str, ...], columns: Mapping[str, str] | None, source: str
) -> dict[str, str]:
    """The column of each role: given in ``columns``, or the first usual name present (any case)."""
    given = dict(columns or {})
    unknown = set(given) - set(ROLES)
    if unknown:
        raise InvalidParameterError(
            f"columns: unknown role {sorted(unknown)[0]!r}; the roles are {', '.join(ROLES)}"
        )
    lower = {n.lower(): n for n in reversed(names)}
    out = {}
    for role in roles:
        if role in given:
            if given[role] not in names:
                raise InvalidParameterError(
                    f"{place(source)}: no column {given[role]!r} for {role} (columns: {', '.join(names)})"
                )
            out[role] = given[role]
            continue
        hits = [lower[c] for c in ROLES[role] if c in lower and lower[c] not in out.values()]
        if not hits:
            raise InvalidParameterError(
                f"{place(source)}: no {role} column (columns: {', '.join(names)}; looked for "
                f"{', '.join(ROLES[role])}; name it with {_option(roles)} {role}=NAME))"
            )
        # the role's own name decides; else one usual name only: a log's click and its model's score
        # are both usual names of the relevance, and taking the first would be a guess
        if len(hits) > 1 and hits[0].lower() != role:
            raise InvalidParameterError(
                f"{place(source)}: {len(hits)} columns could be the {role} column: {', '.join(hits)}; name "
                f"the one with {_option(roles)} {role}=NAME)"
            )
        out[role] = hits[0]
    return out


def _ids(values: Any, name: str, source: str) -> np.ndarray:
    """An id column as text: whole numbers as written without a fraction (7, not 7.0); fractional or
    missing ids are refused (an id is never a float).
    """
    arr = to_numpy(values, name)
    if arr.dtype.kind in "iub":
        return arr.astype(np.int64).astype(str)
    try:
        arr = identity_groups(arr)
    except InvalidDataError as e:
        raise InvalidDataError(f"{place(source)}: {str(e).replace('`groups`', f'column {name!r}')}") from None
    if arr.dtype.kind == "i":
        return arr.astype(str)
    return np.array([str(v) for v in arr.tolist()], dtype=str)


def _numbers_of(values: Any, name: str, source: str) -> np.ndarray:
    arr = to_numpy(values, name)
    try:
        out = arr.astype(np.float64)
    except OverflowError:  # a Python integer beyond float64's range
        i, v = next((i, v) for i, v in enumerate(arr.tolist()) if overflows(v))
        raise InvalidDataError(
            f"{place(source)}: column {name!r} holds an integer of {len(str(abs(v)))} digits at row "
            f"{i + 1}, beyond the range of a 64-bit float; expected a finite number"
        ) from None
    except (TypeError, ValueError):
        raise InvalidDataError(
            f"{place(source)}: column {name!r} holds values that are not numbers"
        ) from None
    bad = ~np.isfinite(out)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidDataError(
            f"{place(source)}: column {name!r} holds {float(out[i])!r} at row {i + 1}; "
            "expected a finite number"
        )
    return out


def _table_columns(obj: Any, roles: tuple[str, ...], columns: Mapping[str, str] | None) -> tuple[dict, str]:
    """The role columns of a DataFrame (pandas, polars), a pyarrow Table, a dict of columns, or a
    table file: ids as text, numbers as float64.
    """
    if isinstance(obj, str):
        source = obj
        found: dict = {}

        def identity(names: list, header: bool) -> dict[int, str]:
            found.update(_role_columns([str(n) for n in names], roles, columns, source))
            return {names.index(found[r]): r for r in ("qid", "docid")}

        t = read_table(obj, "auto", True, identity=identity)
        # a null (Parquet) or an empty field (CSV) in a column used: one line naming it and its line
        t.no_nulls([Column(role, t.names.index(name), name, "name") for role, name in found.items()])
        picked = {role: t.columns[name] for role, name in found.items()}
    else:
        source = type(obj).__name__
        names = table_names(obj) or []
        found = _role_columns(names, roles, columns, source)
        picked = {role: column(obj, name) for role, name in found.items()}
    out = {}
    for role, values in picked.items():
        if role in ("qid", "docid"):
            out[role] = _ids(values, found[role], source)
        else:
            out[role] = _numbers_of(values, found[role], source)
    return out, source


def _is_table(obj: Any) -> bool:
    if isinstance(obj, str):
        return _is_table_file(obj)
    if isinstance(obj, Mapping):  # {qid: {docid: value}} is the dict form; {column: values} a table
        return bool(obj) and not any(isinstance(v, Mapping) for v in obj.values())
    return table_names(obj) is not None


def _from_ranx(obj: Any) -> Any:
    """The dicts that ranx's Qrels and Run objects hold."""
    if type(obj).__module__.startswith("ranx") and hasattr(obj, "to_dict"):
        return obj.to_dict()
    return obj


def as_qrels(obj: Any, columns: Mapping[str, str] | None = None) -> Qrels:
    """Judgments from a TREC qrels file, a ``{qid: {docid: rel}}`` dict, or a table (a CSV, TSV with a
    header, Parquet or JSON-lines file, a pandas or polars DataFrame, a pyarrow Table, a dict of
    columns) with a query, a document and a relevance column (found by their usual names, or named in
    ``columns={"qid": ..., "docid": ..., "rel": ...}``).  A whole-number id reads as written (7,
    not 7.0); a fractional or missing id is an error.
    """
    if isinstance(obj, Qrels):
        return obj
    obj = _from_ranx(obj)
    if not _is_table(obj):
        return read_qrels(obj)
    cols, source = _table_columns(obj, ("qid", "docid", "rel"), columns)
    qrels = Qrels(cols["qid"], cols["docid"], cols["rel"], source)
    no_duplicates(qrels, source)
    return qrels


def as_run(obj: Any, columns: Mapping[str, str] | None = None, name: str | None = None) -> Run:
    """A run from a TREC run file, a ``{qid: {docid: score}}`` dict, or a table with a query, a
    document and a score column (as :func:`as_qrels` finds them); a table's run is named ``name``, else
    after its file.
    """
    if isinstance(obj, Run):
        return obj
    if type(obj).__module__.startswith("ranx") and name is None:
        name = getattr(obj, "name", None) or None
    obj = _from_ranx(obj)
    if not _is_table(obj):
        return read_run(obj, name=name)
    cols, source = _table_columns(obj, ("qid", "docid", "score"), columns)
    order = np.arange(len(cols["qid"]), dtype=np.int64)
    run = Run(cols["qid"], cols["docid"], cols["score"], None, order, name or source, source)
    no_duplicates(run, source)
    return run


def _load(
    qrels: Any, run: Any, qrels_columns: Mapping[str, str] | None, run_columns: Mapping[str, str] | None
) -> tuple[Qrels, Run]:
    return as_qrels(qrels, qrels_columns), as_run(run, run_columns)


@measures_keyword("perfeval.trec.evaluate")
def evaluate(
    qrels: str | Mapping[Any, Mapping[Any, Any]] | Qrels,
    run: str | Mapping[Any, Mapping[Any, Any]] | Run,
    *,
    measures: Iterable[str | MeasureSpec] | str = DEFAULT,
    dialect: str | None = None,
    queries: str | None = None,
    ties: str | None = None,
    level: float | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    tie_bounds: bool = False,
) -> Report:
    """Evaluate a run against judgments: every judged relevant document counts.

    Parameters
    ----------
    qrels : path, dict, table or Qrels
        A TREC qrels file (``qid iter docid rel``, possibly compressed), ``{qid: {docid: rel}}``, or a
        table with query, document and relevance columns (see :func:`as_qrels`).
    run : path, dict, table or Run
        A TREC run file (``qid Q0 docid rank score tag``), ``{qid: {docid: score}}``, or a table with
        query, document and score columns.
    measures : str or list
        Per-query measures: perfeval's names (``map``, ``ndcg@10``, ``p@5``, ``r@100``, ``mrr``,
        ``rprec``, ``bpref``, ``success@10``, ``judged@10``, ``map@100``), trec_eval's (``ndcg_cut_10``,
        ``P_5``, ``recall_100``, ``recip_rank``, ``Rprec``, ``success_10``, ``ndcg``) or ir_measures'
        (``nDCG@10``, ``AP``, ``RR``, ``R@100``, ``Judged@10``), each meaning its tool's definition.
    dialect : {"perfeval", "trec_eval", "ranx", "ir_measures"}, optional
        Another tool's numbers, as its users get them by default: its order of tied documents, its
        definitions (trec_eval's, ranx's and ir_measures' ndcg@k have linear gain: the label says
        ``gain=linear``) and the queries it averages over (trec_eval: the judged queries the run
        answers, as without ``-c``; ranx and ir_measures: every judged query, an unanswered one 0).
        ir_measures is trec_eval's rules but for its Judged@k, whose ties go by document id ascending.
        A measure the tool does not define is an error.  The report's signature says
        ``ties:dialect=NAME`` and the queries averaged over.
    queries : {"qrels", "run"}, optional
        Evaluate every judged query (unanswered ones score 0; trec_eval ``-c``), or only the judged
        queries the run answers (trec_eval's default).  Default: the dialect's (see
        :data:`DIALECT_QUERIES`); without one, ``"qrels"``.
    ties : {"perfeval", "trec_eval", "file", "ranx"}, optional
        The tie rule: the expectation over the orders of tied documents (the default without a
        dialect); trec_eval's (document id descending); the run's line order; ranx's (numba's
        argsort of the query's documents in the run's order: the line order up to 15 documents,
        numba's quicksort order above, replayed).  With a dialect: its own (another is an error).
    level : float, optional
        trec_eval's ``-l``: relevance >= level is relevant to the binary measures (default: > 0).
    qrels_columns, run_columns : dict, optional
        With tables (CSV, Parquet, JSON lines, DataFrames, pyarrow Tables): the column of each role
        (``qid``, ``docid`` and ``rel`` of the judgments, ``qid``, ``docid`` and ``score`` of a run)
        where it does not have one of its usual names (see :data:`ROLES`).
    tie_bounds : bool, default False
        Also each measure's least and greatest mean over every order of the run's tied documents
        (``result.tie_min``, ``result.tie_max``; each query's in ``tie_min_per_group`` and
        ``tie_max_per_group``), exact, and the share of the pairs of retrieved documents of different
        relevance in a query that are tied (``report.tied_pairs``).  The bounds are those of the
        order-independent rule whatever ``ties`` says: under ``trec_eval`` or ``file`` the value is
        one of the orders, so it lies between them.

    Returns
    -------
    Report
        One result per measure: the mean over the evaluated queries, and each query's value
        (``Report.groups`` are the query ids).
    """
    how = rules(measures, dialect=dialect, ties=ties, queries=queries, level=level)
    specs = how.specs
    with _scratch():
        q, r = _load(qrels, run, qrels_columns, run_columns)
        _not_empty(r)
        keys = _queries(q, r, how.queries)
        facts: dict[str, Any] = {}
        values = _values(q, r, how, keys, level=level, facts=facts)
        report = _report(specs, keys, values, q, r, how, level=level, **facts)
        if tie_bounds:
            _set_bounds(report, specs, bounds_per_query(q, r, specs, keys, values, level=level))
        return report


def _set_bounds(
    report: Report,
    specs: list[MeasureSpec],
    got: tuple[dict[str, tuple[np.ndarray, np.ndarray]], float, float],
) -> None:
    """Each result's bounds (per query, and the mean of them), the share of tied pairs."""
    bounds, tied, pairs = got
    share = tied / pairs if pairs > 0 else math.nan
    report.tied_pairs, report.pairs = share, pairs
    sizes = report.group_sizes
    index = np.arange(len(sizes))
    for s in specs:
        res = report.results[s.label]
        lo, hi = bounds[s.label]
        res.tie_min_per_group, res.tie_max_per_group = lo, hi
        res.tie_min = MeasureResult.of(s, lo, sizes, index, True).value
        res.tie_max = MeasureResult.of(s, hi, sizes, index, True).value
        res.tied_pairs, res.pairs = share, pairs


#: the freed scratch blocks kept for the next run while runs are read one after another
_KEPT = 3 << 30


@contextmanager
def _scratch() -> Iterator[None]:
    """The compiled kernels' scratch buffers kept between runs (a run's reading frees its hash tables
    and the next one's takes them again) and handed back to the system at the end.
    """
    try:  # a run of 10M lines frees about 1.5 GB of scratch blocks (hash tables, columns, vocabulary)
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = 16 << 30
    before = _native.cache_limit(int(min(_KEPT, ram // 8)))
    try:
        yield
    finally:
        _native.cache_limit(before)
        _native.release_cache()


def _report(
    specs: list[MeasureSpec],
    keys: np.ndarray,
    values: dict[str, np.ndarray],
    q: Qrels,
    r: Run,
    how: Rules,
    **params: Any,
) -> Report:
    """The report of one run: its parameters say the tie rule, the dialect, the queries averaged over
    (``queries``), how many queries are judged (``judged_queries``) and how many of them the run
    answers (``answered_queries``).
    """
    sizes = _sizes(q, r, keys)
    answered = np.intersect1d(r.qvocab, q.qvocab, assume_unique=True)
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
        judgments="qrels",
        tie_rule=params.pop("tie_rule", how.tie_rule),
        dialect=how.dialect,
        queries=how.queries,
        judged_queries=int(len(q.qvocab)),
        answered_queries=int(len(answered)),
        names={s.label: s.written for s in specs if s.written},
        **params,
    )
    report.params.pop("threshold", None)
    return report


#: paired tests of ``compare`` and the multiple-testing corrections
TESTS = ("t", "randomization", "bootstrap", "none")
CORRECTIONS = ("holm", "bh", "bonferroni", "none")


@dataclass
class RunComparison:
    """Several runs evaluated on the same judgments, each compared with a baseline: what
    :func:`compare` returns (one table of runs by measures, tested query by query).  Not
    :class:`perfeval.stats.Comparison`, the difference of one measure between two models scored on
    the same cases, which :func:`perfeval.compare` returns per measure.  ``Comparison`` is this
    class's deprecated name (removed in perfeval 0.2.0).

    Attributes
    ----------
    reports : dict of str to Report
        Each run's :class:`~perfeval.engine.report.Report`, by run name, the baseline first.
    baseline : str
        The run the others are compared with.
    specs : list of MeasureSpec
        The measures, in the order asked (``spec.written`` holds the name asked: every output names a
        measure so).
    pvalues, raw_pvalues : dict of str to dict of str to float
        For each run but the baseline, for each measure label, the p-value of the paired test of the
        per-query values against the baseline's, corrected across the runs (``pvalues``) and not
        (``raw_pvalues``).
    test, correction : str
        The paired test (``t``, ``randomization``, ``bootstrap``, ``none``) and the correction
        (``holm``, ``bonferroni``, ``none``) over the runs compared with the baseline, per measure.
    alpha : float
        The level at which a difference is marked significant.
    n_resamples, seed : int
        Of the randomization and bootstrap tests.
    paired : dict of str to int
        For each run but the baseline, the number of queries it is tested on: those both it and the
        baseline have (a paired test needs two).
    """

    reports: dict[str, Report]
    baseline: str
    specs: list[MeasureSpec]
    pvalues: dict[str, dict[str, float]]
    raw_pvalues: dict[str, dict[str, float]]
    test: str
    correction: str
    alpha: float
    n_resamples: int
    seed: int
    paired: dict[str, int] = field(default_factory=dict)

    def name(self, spec: MeasureSpec) -> str:
        """The measure as the user asked for it (``mrr``, ``ndcg_cut_10``), else its canonical label."""
        return spec.written or spec.label

    def marker(self, run: str, label: str) -> str:
        """``+`` (better than the baseline), ``-`` (worse) when significant at ``alpha``, else ``""``."""
        p = self.pvalues.get(run, {}).get(label, math.nan)
        if not p < self.alpha:
            return ""
        diff = self.reports[run].results[label].value - self.reports[self.baseline].results[label].value
        return "+" if diff > 0 else ("-" if diff < 0 else "")

    def why_no_p_value(self, run: str, label: str) -> str | None:
        """Why the p-value of ``run`` against the baseline on measure ``label`` is not a number (the
        reason beside its null in JSON); None when it is one.
        """
        p = self.pvalues.get(run, {}).get(label, math.nan)
        if not math.isnan(p):
            return None
        n = self.paired.get(run)
        if n is not None and n < 2:
            return (
                f"no test: {n} quer{'y' if n == 1 else 'ies'} in common with the baseline "
                f"{self.baseline!r}; a paired test needs 2 or more"
            )
        return "no test: the p-value is not a number"

    def to_dict(self) -> dict[str, Any]:
        """Means per run and measure (names as written), with the p-values of the comparisons; a null
        with its reason beside it (``KEY_why_null``).
        """
        out: dict[str, Any] = {
            "baseline": self.baseline,
            "test": self.test,
            "correction": self.correction,
            "alpha": self.alpha,
            "runs": {},
        }
        if self.test in ("randomization", "bootstrap"):
            out["n_resamples"], out["seed"] = self.n_resamples, self.seed
        for run, rep in self.reports.items():
            row: dict[str, Any] = {}
            for s in self.specs:
                r = rep.results[s.label]
                entry: dict[str, Any] = with_reasons(
                    {"mean": r.value}, {"mean": r.why or why_not_finite(r.value, s.label) or ""}
                )
                if run != self.baseline and self.test != "none":
                    no_test = self.why_no_p_value(run, s.label) or ""
                    entry.update(
                        with_reasons(
                            {
                                "p_value": self.pvalues[run][s.label],
                                "p_value_uncorrected": self.raw_pvalues[run][s.label],
                            },
                            {"p_value": no_test, "p_value_uncorrected": no_test},
                        )
                    )
                    entry["significant"] = bool(self.pvalues[run][s.label] < self.alpha)
                row[self.name(s)] = entry
            out["runs"][run] = row
        out["signature"] = str(self.reports[self.baseline].signature)
        return out


def _test(name: str, a: np.ndarray, b: np.ndarray, n_resamples: int, seed: int) -> float:
    from perfeval.stats import paired

    if len(a) < 2:
        return math.nan  # one query: no test
    if name == "t":
        return paired.paired_t_test(a, b)
    if name == "randomization":
        return paired.randomization_test(a, b, n_resamples=n_resamples, seed=seed)
    return paired.paired_bootstrap_test(a, b, n_resamples=n_resamples, seed=seed)


def _names(runs: list[tuple[str, str]]) -> list[str]:
    """A distinct name for each run given as (name, source): its name, else its source, else an error
    naming both.
    """
    names = [name for name, _ in runs]
    if len(set(names)) < len(names):
        names = [source if names.count(name) > 1 and source else name for name, source in runs]
    if len(set(names)) < len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InvalidParameterError(f"two runs are both named {dup!r}; give them distinct names")
    return names


def _not_empty(run: Run) -> Run:
    if not len(run):
        warnings.warn(
            f"run {run.name!r} ranks no document: it scores 0 on every query", stacklevel=user_stacklevel()
        )
    return run


def _runs(runs: Any, columns: Mapping[str, str] | None) -> Iterator[Run]:
    """The runs of a list (named by tag or file) or a dict (named by its keys), loaded one after the
    other: while the caller evaluates one, the next is read in a background thread (the compiled
    reader runs without the GIL), so reading and evaluating overlap on two cores and at most two runs
    are in memory.
    """
    items: list[tuple[Any, str | None]]
    if isinstance(runs, Mapping):
        items = [(v, str(k)) for k, v in runs.items()]
    elif isinstance(runs, (str, bytes, Run)):  # one run
        items = [(runs, None)]
    else:
        items = [(r, None) for r in runs]
    if not items:
        raise InvalidParameterError("no run to evaluate")
    if len(items) == 1:
        yield _not_empty(as_run(items[0][0], columns, name=items[0][1]))
        return
    with ThreadPoolExecutor(1, thread_name_prefix="perfeval-read") as pool:
        pending = pool.submit(as_run, items[0][0], columns, name=items[0][1])
        for i in range(len(items)):
            run = pending.result()
            if i + 1 < len(items):
                pending = pool.submit(as_run, items[i + 1][0], columns, name=items[i + 1][1])
            yield _not_empty(run)


def _raw_pvalues(
    values: dict[str, tuple[np.ndarray, dict[str, np.ndarray]]],
    baseline: str,
    specs: list[MeasureSpec],
    test: str,
    n_resamples: int,
    seed: int,
) -> dict[str, dict[str, float]]:
    """The paired test of each run against the baseline, per measure, on the queries both have."""
    raw: dict[str, dict[str, float]] = {n: {} for n in values if n != baseline}
    if test == "none":
        return raw
    bkeys, bvals = values[baseline]
    for n in raw:
        keys, vals = values[n]
        _, ib, io = np.intersect1d(bkeys, keys, return_indices=True)
        for s in specs:
            raw[n][s.label] = _test(test, vals[s.label][io], bvals[s.label][ib], n_resamples, seed)
    return raw


def _corrected(
    raw: dict[str, dict[str, float]], specs: list[MeasureSpec], correction: str
) -> dict[str, dict[str, float]]:
    """The p-values corrected over the runs compared with the baseline, one measure at a time."""
    out = {n: dict(v) for n, v in raw.items()}
    if correction == "none" or not raw or not all(raw.values()):
        return out
    from perfeval.stats import paired

    for s in specs:
        adj = paired.correct_tested([raw[n][s.label] for n in raw], correction)
        for n, p in zip(raw, adj, strict=True):
            out[n][s.label] = float(p)
    return out


@measures_keyword("perfeval.trec.compare")
def compare(
    qrels: str | Mapping[Any, Mapping[Any, Any]] | Qrels,
    runs: Sequence[str | Mapping[Any, Mapping[Any, Any]] | Run] | Mapping[str, Any],
    *,
    measures: Iterable[str | MeasureSpec] | str = DEFAULT,
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int = 0,
    dialect: str | None = None,
    queries: str | None = None,
    ties: str | None = None,
    level: float | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    tie_bounds: bool = False,
) -> RunComparison:
    """Evaluate several runs on the same judgments and test each against a baseline, query by query.

    Parameters
    ----------
    qrels : path, dict or Qrels
        The judgments.
    runs : list of (path, dict or Run), or dict of name to run
        The runs; a list's runs are named by their tag (or file), a dict's by its keys.
    measures : str or list
        As :func:`evaluate` takes them.
    baseline : str, optional
        The name of the run the others are compared with (default: the first).
    test : {"t", "randomization", "bootstrap", "none"}
        The paired test of the per-query values: Student's paired t-test (ranx's default), Fisher's
        randomization test, or the paired bootstrap test (both seeded; see
        :mod:`perfeval.stats.paired`).
    correction : {"holm", "bh", "bonferroni", "none"}
        The multiple-testing correction over the runs compared with the baseline, for each measure:
        Holm's step-down (the family-wise error), Benjamini-Hochberg's step-up (the false discovery
        rate), Bonferroni's, or none (:func:`perfeval.stats.paired.correct`, as ``perfeval compare``).
    alpha : float
        The level at which a difference is significant.
    n_resamples, seed : int
        Of the randomization and bootstrap tests.
    dialect, queries, ties, level, qrels_columns, run_columns, tie_bounds
        As :func:`evaluate` (``run_columns`` holds for every run).  With ``queries="run"`` each run
        is averaged over the queries it answers, and a test pairs the queries both runs answer.

    Returns
    -------
    RunComparison

    See Also
    --------
    perfeval.compare : two models' scores of the same cases (one row a case): the difference of each
        measure, its interval and a p-value (``perfeval compare`` on the command line).
    """
    how = rules(measures, dialect=dialect, ties=ties, queries=queries, level=level)
    specs = how.specs
    if test not in TESTS:
        raise InvalidParameterError(f"test={test!r}: expected one of {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise InvalidParameterError(f"correction={correction!r}: expected one of {', '.join(CORRECTIONS)}")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InvalidParameterError(f"alpha={alpha!r}: expected a number between 0 and 1")
    done: list[tuple[tuple[str, str], Report, tuple[np.ndarray, dict[str, np.ndarray]]]] = []
    with _scratch():
        q = as_qrels(qrels, qrels_columns)
        for r in _runs(runs, run_columns):  # one run in memory at a time (and the next one being read)
            keys = _queries(q, r, how.queries)
            facts: dict[str, Any] = {}
            per = _values(q, r, how, keys, level=level, facts=facts)
            report = _report(specs, keys, per, q, r, how, level=level, **facts)
            if tie_bounds:
                _set_bounds(report, specs, bounds_per_query(q, r, specs, keys, per, level=level))
            done.append(((r.name, r.source), report, (keys, per)))
    names = _names([named for named, _, _ in done])
    if baseline is None:
        baseline = names[0]
    if baseline not in names:
        raise InvalidParameterError(f"baseline {baseline!r} is not a run; the runs: {', '.join(names)}")
    ranked = sorted(zip(names, done, strict=True), key=lambda nd: nd[0] != baseline)
    reports = {name: report for name, (_, report, _) in ranked}
    values = {name: v for name, (_, _, v) in ranked}
    raw = _raw_pvalues(values, baseline, specs, test, n_resamples, seed)
    corrected = _corrected(raw, specs, correction)
    paired = {n: len(np.intersect1d(values[baseline][0], v[0])) for n, v in values.items() if n != baseline}
    return RunComparison(
        reports, baseline, specs, corrected, raw, test, correction, alpha, n_resamples, seed, paired
    )


@measures_keyword("perfeval.trec.explain")
def explain(
    qrels: str | Mapping[Any, Mapping[Any, Any]] | Qrels,
    run: str | Mapping[Any, Mapping[Any, Any]] | Run,
    *,
    measures: Iterable[str | MeasureSpec] | str = DEFAULT,
    dialects: Sequence[str] | str | None = None,
    level: float | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> Any:
    """A run's measures under every dialect of judgments and runs, side by side, and for each value
    that differs from perfeval's the rules that make the difference, with what each touched here:
    :func:`perfeval.explain` for judgments and runs (``perfeval explain QRELS RUN``).

    Parameters
    ----------
    qrels, run, measures, level, qrels_columns, run_columns
        As :func:`evaluate`.
    dialects : sequence of str, or a comma-separated str, optional
        Of :data:`DIALECTS` (default: every one; perfeval's first whatever is given).  A dialect whose
        tool does not define a measure has no value for it (its note says so).

    Returns
    -------
    perfeval.api.explanation.Explanation
        ``cells[dialect][measure]`` (the measures named as asked): each dialect's mean as
        ``evaluate(..., dialect=)`` gives it, and the rules that separate it from perfeval's: the
        order of tied documents (with the queries whose ties mix relevant and non-relevant
        documents), the queries averaged over (with how many judged queries the run leaves out),
        the tool's definition (linear gain, with the queries holding a grade above 1).

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2}}
    >>> run = {"q1": {"d1": 0.5, "d2": 0.5}}
    >>> e = explain(qrels, run, measures="map", dialects="trec_eval")
    >>> e.value("perfeval", "map"), e.value("trec_eval", "map")   # q2 unanswered: 0, or left out
    (0.25, 0.5)
    >>> for rule in e.cells["trec_eval"]["map"].rules:  # each with what it touched here
    ...     print(rule.split(",")[0], "[" + rule.split(" [")[1].split(" have")[0].rstrip("]") + "]")
    tied scores ranked by document id [1 of 1 answered queries]
    the mean over the judged queries the run answers [1 of 2 judged queries unanswered]
    """
    from perfeval.api.explanation import Cell, Explanation

    names = _explain_dialects(dialects)
    base = rules(measures, level=level)
    asked = [s.written or s.label for s in base.specs]
    with _scratch():
        q, r = _load(qrels, run, qrels_columns, run_columns)
        _not_empty(r)
        j = _join(q, r)
        cells: dict[str, dict[str, Cell]] = {}
        ours: dict[str, float] = {}
        judged = int(len(q.qvocab))
        for n, d in enumerate(names):
            defined = [s for s in base.specs if d == "perfeval" or _defines(d, s)]
            row: dict[str, Cell] = {}
            report = None
            how = None
            if defined:
                how = rules(defined, dialect=None if d == "perfeval" else d, level=level)
                with warnings.catch_warnings():
                    if n:  # the run's queries without judgments are said once
                        warnings.simplefilter("ignore")
                    keys = _queries(q, r, how.queries)
                    facts: dict[str, Any] = {}
                    values = _values(q, r, how, keys, level=level, facts=facts)
                    report = _report(how.specs, keys, values, q, r, how, level=level, **facts)
            for asked_name, spec in zip(asked, base.specs, strict=True):
                if report is None or how is None or spec not in defined:
                    row[asked_name] = Cell(math.nan, f"not defined by {d}")
                    continue
                mine = how.specs[defined.index(spec)]
                value = report.results[mine.label].value
                cell = Cell(value)
                if d == "perfeval":
                    ours[asked_name] = value
                    got = report.results[mine.label]
                    cell.why = (got.why or "") if math.isnan(value) else ""
                elif not _same(value, ours[asked_name]):
                    cell.rules = _trec_rules(q, r, j, spec, mine, how, report, judged, level)
                row[asked_name] = cell
            cells[d] = row
    answered = int(len(np.intersect1d(r.qvocab, q.qvocab, assume_unique=True)))
    where = (
        f"run {shown(r.name)}: {len(r):,} documents ranked; {judged:,} judged queries, {answered:,} of them "
        "answered"
    )
    return Explanation(asked, cells, int(len(r)), judged, where)


def _explain_dialects(dialects: Sequence[str] | str | None) -> list[str]:
    if dialects is None:
        return list(DIALECTS)
    if isinstance(dialects, str):
        dialects = [p for p in dialects.split(",") if p.strip()]
    out = [str(t).strip() for t in dialects]
    for t in out:
        if t not in DIALECTS:
            raise InvalidParameterError(f"dialect {t!r}: expected one of {', '.join(DIALECTS)}")
    return list(dict.fromkeys(["perfeval", *out]))  # perfeval's first (the others differ from it), each once


def _defines(dialect: str, spec: MeasureSpec) -> bool:
    try:
        _dialect_spec(dialect, spec)
    except InvalidParameterError:
        return False
    return True


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def _mixed_tie_queries(
    r: Run, j: _Joined, keys: np.ndarray, q: Qrels, flag: np.ndarray, *, float32: bool = False
) -> int:
    """The evaluated queries the run answers with a tie (equal scores; ``float32``: equal as float32)
    holding rows of both values of ``flag`` (relevant or not; judged or not).
    """
    row_key, _ = _row_keys(j, q, keys)
    keep = row_key >= 0
    qk, sk, fk = row_key[keep], r.score[keep], flag[keep]
    if float32:
        sk = sk.astype(np.float32)
    order = np.lexsort((fk, sk, qk))
    qs, ss, fs = qk[order], sk[order], fk[order]
    same = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1]) & (fs[1:] != fs[:-1])
    return int(len(np.unique(qs[1:][same])))


def _trec_rules(
    q: Qrels,
    r: Run,
    j: _Joined,
    spec: MeasureSpec,
    mine: MeasureSpec,
    how: Rules,
    report: Report,
    judged: int,
    level: float | None,
) -> list[str]:
    """The rules of a dialect that separate its value of ``spec`` from perfeval's, each with what it
    touched in these judgments and this run.
    """
    from perfeval.dialects.table import ORDER_TEXT

    out = []
    keys = np.asarray(report.groups)
    answered = int(report.params["answered_queries"])
    text, _, reading = how.ties[mine.label].partition(":")
    if text != "perfeval":
        if spec.measure.name == "JUDGED":
            flag, what = j.pooled, "judged and unjudged"
        else:
            flag, what = (j.rel > 0 if level is None else j.rel >= level), "relevant and non-relevant"
        n = _mixed_tie_queries(r, j, keys, q, flag, float32=reading == "float32")
        if n:
            sentence = ORDER_TEXT[text]
            if report.params.get("tie_rule", "").endswith("sorts=2"):
                sentence += (
                    ", sorted twice (ranx refuses this run unless make_comparable=True, which sorts "
                    "the run again)"
                )
            out.append(f"{sentence} [{n} of {answered} answered queries have a tie of {what} documents]")
    if how.queries != "qrels" and answered < judged:
        out.append(
            "the mean over the judged queries the run answers, as trec_eval without -c (perfeval: every "
            f"judged query, the unanswered ones 0) [{judged - answered} of {judged} judged queries "
            "unanswered]"
        )
    if mine.label != spec.label:
        if dict(mine.params).get("gain") == "linear" and dict(spec.params).get("gain") != "linear":
            graded = int(len(np.unique(j.jquery[j.jrel > 1]))) if len(j.jrel) else 0
            if graded:
                out.append(
                    "linear gain (the grade itself, not 2^grade - 1) "
                    f"[{graded} of {judged} judged queries have a grade above 1]"
                )
        else:
            out.append(f"computed as {mine.label} [every query]")
    return out


def __getattr__(name: str) -> Any:  # PEP 562: the deprecated name of RunComparison
    if name == "Comparison":
        warnings.warn(
            "perfeval.trec.Comparison is deprecated and is removed in perfeval "
            f"{REMOVED_IN}: use perfeval.trec.RunComparison (the same class)",
            DeprecationWarning,
            stacklevel=2,
        )
        return RunComparison
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
