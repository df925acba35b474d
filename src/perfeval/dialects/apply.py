"""Evaluate under a dialect: the user's measures mapped to the tool's policies, the scores made to
order ties as the tool does (or read off at the tool's thresholds), one pass of the engine per kind
of transform, then the tool's rules for empty queries, small queries and averaging.
"""

from __future__ import annotations

import importlib
import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base.checks import Cases
from perfeval.dialects.table import DIALECTS, Dialect, Policy
from perfeval.engine import finish, warn_undefined
from perfeval.engine.door import targets_of
from perfeval.engine.report import MeasureResult, Report
from perfeval.engine.signature import gains
from perfeval.exceptions import InvalidDataError, InvalidParameterError, UndefinedMeasureWarning
from perfeval.measures import MeasureSpec, get_measure
from perfeval.summaries import ScoreHistogram
from perfeval.summaries.orders import broken
from perfeval.summaries.ranking import group_codes

# The classic engine (dialects/perf.py, classic/) is imported where the perf dialect is asked for.


def parse_dialect(text: str) -> tuple[Dialect, dict[str, Any]]:
    """``"keras"`` or ``"keras:num_thresholds=1000:summation_method=majoring"``: the dialect and its
    options (the tool's own names, each checked against its domain; defaults filled in).
    """
    name, *rest = [p.strip() for p in str(text).split(":")]
    d = DIALECTS.get(name.lower())
    if d is None:
        raise InvalidParameterError(f"unknown dialect {name!r}; expected one of {', '.join(DIALECTS)}")
    known = {p.name.lower(): p for p in d.options}
    opts: dict[str, Any] = {p.name: p.default for p in d.options}
    names = ", ".join(p.name for p in d.options) or "none"
    for item in rest:
        key, eq, value = item.partition("=")
        p = known.get(key.strip().lower())
        if not item:
            raise InvalidParameterError(
                f"dialect {d.name}: nothing after ':' (options: {names}; written name=value)"
            )
        if p is None:
            raise InvalidParameterError(
                f"dialect {d.name}: {key.strip()!r} is not an option (options: {names})"
            )
        if not eq or not value.strip():
            raise InvalidParameterError(
                f"dialect {d.name}: option {p.name} needs a value ({p.name}=...; {p.domain})"
            )
        v: Any = value.strip()
        if not p.choices:
            try:
                v = float(v)
            except ValueError:
                raise InvalidParameterError(
                    f"dialect {d.name} needs `{p.name}` {p.domain}, got {v!r}"
                ) from None
            v = int(v) if p.integer and v.is_integer() else v
        p.check(v, f"dialect {d.name}")
        if d.name == "torchmetrics" and p.name == "thresholds" and v == 1:  # torchmetrics needs 2 or more
            raise InvalidParameterError(
                "dialect torchmetrics needs `thresholds` 0 (exact) or at least 2, got 1"
            )
        opts[p.name] = v
    return d, opts


#: the dialects that break ties by document id, the only ones that read ``ids=`` (``--id``)
ID_DIALECTS = tuple(d.name for d in DIALECTS.values() if d.needs_ids)


def reads_ids(dialect: str) -> bool:
    """Whether the dialect ``dialect`` (a name, options after colons) reads document ids."""
    return parse_dialect(dialect)[0].needs_ids


def ids_not_read(dialects: str | list[str], given: str, fix: str) -> InvalidParameterError | None:
    """The one refusal of document ids given (``given``: ``ids=``, ``id='doc'``, ``--id doc``) where no
    dialect of ``dialects`` reads them (None where one does), the same at every door: what reads ids,
    what breaks the ties instead, and ``fix`` (``dialect='trec_eval'``).  Ids are never dropped
    without a word: a tie-aware rule or another tool's order gives the same numbers whatever they are.
    """
    names = [dialects] if isinstance(dialects, str) else list(dialects)
    read = [parse_dialect(t)[0] for t in names]
    if any(d.needs_ids for d in read):
        return None
    own = [d.name for d in read if d.name != "perfeval"]
    if not own:
        instead = "perfeval's own rules take every order of a tie (the expected value), whatever the ids"
    elif len(own) == 1:
        instead = f"dialect {own[0]} breaks ties by its tool's own rule, not by id"
    else:
        instead = f"dialects {', '.join(own)} break ties by their tools' own rules, not by id"
    return InvalidParameterError(
        f"{given} is read only by the dialects that break ties by document id ({', '.join(ID_DIALECTS)}); "
        f"{instead}: drop it, or {fix}"
    )


def dialect_text(d: Dialect, opts: dict[str, Any]) -> str:
    """The dialect with its options, as written: ``keras:num_thresholds=200:summation_method=...``."""
    return ":".join([d.name, *[f"{k}={v}" for k, v in opts.items()]])


def spec_label(todo: list) -> str:
    return str(todo[0][0].label)


def _has_ties(codes: np.ndarray, s: np.ndarray) -> bool:
    order = np.lexsort((s, codes))
    sc, ss = codes[order], s[order]
    return bool(((sc[1:] == sc[:-1]) & (ss[1:] == ss[:-1])).any())


def defining(measure: str) -> list[str]:
    """The dialects that define a measure (perfeval's first)."""
    return [d.name for d in DIALECTS.values() if d.defines(measure)]


def policy_spec(d: Dialect, spec: MeasureSpec) -> tuple[Policy, MeasureSpec]:
    """The tool's policy for the user's spec, and the spec the engine computes (the tool's fixed
    parameters set); a measure the dialect does not define, or a fixed parameter given otherwise, is
    an error that says which dialects define it.
    """
    name = spec.measure.name
    pol = d.policies.get(name)
    if pol is None:
        raise InvalidParameterError(
            f"dialect {d.name} does not define {spec.label}; dialects that do: {', '.join(defining(name))}"
        )
    measure = get_measure(pol.measure)
    kw = {**measure.defaults(), **{k: v for k, v in spec.params if k in measure.defaults()}}
    for key, value in pol.params:
        if key in pol.free and key in spec._set:  # the tool has this choice too (ranx's ndcg_burges)
            continue
        if key in spec._set and kw.get(key) != value:
            raise InvalidParameterError(
                f"dialect {d.name} computes {spec.label} with {key}={value} ({pol.call}); "
                f"{key}={kw.get(key)} is not that tool's"
            )
        kw[key] = value
    engine = MeasureSpec(measure, tuple(kw.items()))
    object.__setattr__(engine, "_set", frozenset(kw))  # every parameter in its label: labels stay distinct
    return pol, engine


def refuse_weights(d: Dialect, plan: list) -> None:
    """A measure of ``plan`` (spec, policy, engine spec) whose tool takes no case weights: refused."""
    unweighted = [s.label for s, pol, _e in plan if not pol.weights]
    if unweighted:
        raise InvalidParameterError(
            f"dialect {d.name}: {unweighted[0]} takes no weights in {d.tool} "
            f"({dict((s.label, p.call) for s, p, _e in plan)[unweighted[0]]}); evaluate it without"
        )


def check_batches(d: Dialect, specs: list[MeasureSpec], grouped: bool, weighted: bool) -> None:
    """What :func:`evaluate_dialect` refuses whatever the rows are, said before any is read (by
    :class:`perfeval.Metric` at its updates): weights a tool does not take, groups for a measure
    the tool computes without (or none for a measure over groups).
    """
    if d.name == "perf":
        from perfeval.dialects.perf import refuse_groups_and_weights

        refuse_groups_and_weights(grouped, weighted)
        return
    plan = [(spec, *policy_spec(d, spec)) for spec in specs]
    if weighted:
        refuse_weights(d, plan)
    for spec, pol, engine in plan:
        if grouped and not pol.grouped:
            raise InvalidParameterError(
                f"dialect {d.name}: {pol.call} has no groups; evaluate {spec.label} without"
            )
        if not grouped and engine.measure.kind == "grouped":
            raise InvalidParameterError(f"{engine.label} is computed over groups: pass `groups=`")


def evaluate_dialect(
    cases: Cases,
    specs: list[MeasureSpec],
    dialect: str,
    *,
    threshold: float,
    pos_label: Any = None,
    ids: Any = None,
    raw: Cases | None = None,
) -> Report:
    """Every measure of ``specs`` as the dialect's tool computes it, over checked ``cases``; ``raw``:
    the same with the cases of weight 0 kept, for the tools that count their scores (Spark).
    """
    d, opts = parse_dialect(dialect)
    if d.name == "perf":
        from perfeval.dialects.perf import evaluate_perf

        return evaluate_perf(cases, specs, threshold=threshold, pos_label=pos_label)
    g = cases.g
    if g is not None:
        keys, codes = group_codes(g)
    else:
        keys, codes = None, np.zeros(len(cases.s), dtype=np.int64)
    plan = [(spec, *policy_spec(d, spec)) for spec in specs]
    if cases.w is not None:  # a tool without weights has no number for weighted cases
        refuse_weights(d, plan)
    results: dict[str, MeasureResult] = {}
    sizes = np.bincount(codes, minlength=1 if keys is None else len(keys)).astype(np.float64)
    # torchmetrics without thresholds computes the exact areas: the engine's, in its one pass, unless
    # a score lies outside [0, 1]: torchmetrics then reads the sigmoid of the scores, which ties the
    # logits it saturates (the finisher reads them so, each group alone)
    exact = (
        d.name == "torchmetrics"
        and not opts.get("thresholds")
        and not (len(cases.s) and (float(cases.s.min()) < 0.0 or float(cases.s.max()) > 1.0))
    )
    # (the exact areas only: a finisher of the measure's own, as ECE's bins, stays)
    plan = [(s, replace(pol, finish="") if exact and not pol.finish_params else pol, e) for s, pol, e in plan]
    for kind in dict.fromkeys(_kind(pol, e) for _s, pol, e in plan):
        todo = [(s, pol, e) for s, pol, e in plan if _kind(pol, e) == kind]
        pol0, engine0 = todo[0][1], todo[0][2]
        if pol0.finish:
            results.update(_finished(d, todo, cases, opts, pos_label, raw))
            continue
        if _roc_by_rows(pol0, todo, cases):  # ROC with ties in input order: one walk, no distinct scores
            for spec, pol, _engine in todo:
                value = _roc_input_order(cases, pol.ties, pos_label, spec.label)
                if math.isnan(value) and pol.one_class is not None:  # one class (the only NaN here)
                    value = pol.one_class
                results[spec.label] = MeasureResult(spec.label, value, spec.direction)
            continue
        y = cases.y
        s = _ordered(d, opts, todo, cases, codes, keys, ids, pos_label)
        if pol0.scored_relevant:  # torchmetrics: a case scored 0 or less is never relevant
            y = np.where(cases.s > 0, np.asarray(y, dtype=np.float64), 0.0)
        part_cases = Cases(y, s, g, cases.w, cases.rows_in)
        if y is cases.y:  # the targets as given: their coding is the one every kind reads (coded once)
            part_cases.targets = targets_of(cases, pos_label)
        engines = [e for _s, _p, e in todo]
        if pol0.cut_rows and engine0.kwargs.get("k", 0) > 0:  # the top k of each query, then over them alone
            part_cases = _top_rows(part_cases, codes, int(engine0.kwargs["k"]))
            engines = [MeasureSpec(engine0.measure, tuple({**engine0.kwargs, "k": 0}.items()))]
        with warnings.catch_warnings():  # said below, after the tool's rules, with the user's labels
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            part = finish(part_cases, engines, threshold=threshold, pos_label=pos_label)
        for (spec, pol, _engine), e in zip(
            todo, engines * len(todo) if len(engines) == 1 else engines, strict=True
        ):
            r = part.results[e.label]
            if pol.scored_relevant and pol.measure == "R":  # recall: over every relevant case
                r = _rescaled_recall(r, y, cases.y, codes, keys)
            results[spec.label] = _rules(d, spec, pol, r, cases, codes, keys, sizes, opts, pos_label)
    warn_undefined(results, specs)
    params = {
        "threshold": threshold,
        "rows": int(cases.rows_in),
        "groups": None if keys is None else int(len(keys)),
        "weighted": cases.w is not None,
        "partitions": None,
        "ties": d.summary,
        "tie_rule": "dialect=" + dialect_text(d, opts),
        "dialect": dialect_text(d, opts),
        "pos_label": pos_label,
        "backend": "memory",
    }
    params["gain"] = gains([e.label for _s, _p, e in plan])  # the engine's gains, not the user's labels
    report = Report({s.label: results[s.label] for s in specs}, keys, params)
    report.group_sizes = None if keys is None else sizes
    return report


def _ordered(
    d: Dialect,
    opts: dict[str, Any],
    todo: list,
    cases: Cases,
    codes: np.ndarray,
    keys: Any,
    ids: Any,
    pos_label: Any,
) -> np.ndarray:
    """The scores as the tool ranks them: its order of tied scores made distinct scores (or the
    scores as they are, for the tie-aware rules).
    """
    s = cases.s
    pol0 = todo[0][1]
    if pol0.ties == "unspecified":
        # the tool's order is unknown: refused where it matters; elsewhere (ties of cases equally
        # relevant) any order gives its number, and the tool does rank them one by one (AP does
        # not make such a tie one threshold)
        _refuse_mixed_ties(d, todo, cases, codes, keys)
        s = broken(codes, s, "input")
    elif pol0.ties != "perfeval":
        if d.name == "trec_eval" and opts.get("version") == "9":  # trec_eval 9 reads scores as float
            s = s.astype(np.float32).astype(np.float64)
        if pol0.ties == "id_desc" and ids is None:
            if _has_ties(codes, s):
                raise InvalidParameterError(
                    f"dialect {d.name} breaks ties by document id: pass `ids=` (one per row; "
                    "--id COLUMN on the command line)"
                )
            s = broken(codes, s, "input")  # no tie: any rule gives this order
        else:
            order_y = _relevant(
                cases, pos_label, spec_label(todo), get_measure(pol0.measure).kind != "ranking"
            )
            rule = "numba2" if pol0.ties == "numba" and opts.get("sorts") == 2 else pol0.ties
            s = broken(codes, s, rule, None if ids is None else _kept(ids, cases), y=order_y)
    return s


def _roc_by_rows(pol: Policy, todo: list, cases: Cases) -> bool:
    return (
        pol.ties in ("input", "reverse")
        and cases.g is None
        and cases.w is None
        and all(e.measure.name == "ROC" for _s, _p, e in todo)
    )


def _roc_input_order(cases: Cases, rule: str, pos_label: Any, label: str) -> float:
    """The ROC area with tied scores ordered by input position (``input``: the earlier row ranks higher;
    ``reverse``: the later, as DIN's stable ascending sort leaves them): the pairs ordered by score,
    plus the tied pairs the input order puts right, counted in one pass (``_native.roc_input_hash``, or
    ``roc_input_ties`` over the rows sorted; making 10M scores distinct and summarising them costs
    five times more).
    """
    is_pos = (np.asarray(targets_of(cases, pos_label).binary(label)) == 1).astype(np.uint8)
    s = np.ascontiguousarray(cases.s)
    # a hash of the distinct scores, counted in input order (no sort of the rows); past 4M distinct
    # scores (a table of 200 MB) the rows are sorted instead and each tie put back in input order
    got = _native.roc_input_hash(s, is_pos, 4_000_000)
    if got is None:
        got = _native.roc_input_ties(np.argsort(s).astype(np.int64), s, is_pos)
    strict, tied, pos_first, P, N = got
    if P == 0 or N == 0:
        return math.nan
    right = pos_first if rule == "input" else tied - pos_first
    return float((strict + right) / (P * N))


def _kind(pol: Policy, engine: MeasureSpec) -> tuple:
    """Specs computed in one engine pass share the transform of their cases."""
    cut = engine.label if pol.cut_rows and engine.kwargs.get("k", 0) > 0 else ""
    return (pol.ties, pol.finish, pol.scored_relevant, cut)


def _top_rows(c: Cases, codes: np.ndarray, k: int) -> Cases:
    """Each group's top ``k`` rows by score (which of tied rows does not matter: the policies that cut
    refuse ties of relevant and non-relevant cases).
    """
    order = np.lexsort((-c.s, codes))
    sc = codes[order]
    start = np.concatenate(([0], np.flatnonzero(sc[1:] != sc[:-1]) + 1))
    rank = np.arange(len(order)) - np.repeat(start, np.diff(np.concatenate((start, [len(order)]))))
    keep = np.sort(order[rank < k])
    return Cases(
        np.asarray(c.y)[keep],
        c.s[keep],
        None if c.g is None else c.g[keep],
        None if c.w is None else c.w[keep],
        c.rows_in,
    )


def _rescaled_recall(
    r: MeasureResult, y: np.ndarray, y_orig: Any, codes: np.ndarray, keys: Any
) -> MeasureResult:
    """Recall over the query's relevant cases as given, its numerator counting only the cases the
    tool lets be relevant (torchmetrics): the engine's recall times kept / given relevant cases.
    """
    n = 1 if keys is None else len(keys)
    kept = np.bincount(codes, weights=(np.asarray(y, dtype=np.float64) > 0).astype(np.float64), minlength=n)
    given = np.bincount(
        codes, weights=(np.asarray(y_orig, dtype=np.float64) > 0).astype(np.float64), minlength=n
    )
    vals = np.array(r.per_group if keys is not None else [r.value], dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = np.where(
            kept > 0, vals * kept / np.where(given > 0, given, 1.0), np.where(given > 0, 0.0, vals)
        )
    out = replace(r)
    if keys is None:
        out.value = float(vals[0])
    else:
        out.per_group = vals
    return out


def _key(keys: Any, i: Any) -> Any:
    """A group key as Python has it (5, not np.int64(5)), for messages."""
    k = keys[int(i)]
    return k.item() if hasattr(k, "item") else k


def ids_checked(ids: Any, rows: int) -> np.ndarray:
    """The document ids of ``rows`` rows, checked once where a dialect reads them: one a row, none
    missing, never floats (compared as text, as trec_eval's ``strcmp`` compares them).
    """
    a = np.asarray(ids)
    if a.ndim != 1 or len(a) != rows:
        raise InvalidParameterError(f"`ids` needs one id per row ({rows}), got {a.shape}")
    if a.dtype.kind == "O":
        for i, v in enumerate(a.tolist()):
            if v is None or (isinstance(v, float) and v != v):
                raise InvalidDataError(f"`ids` holds {v!r} at index {i}; every row needs a document id")
    if a.dtype.kind == "f":
        raise InvalidParameterError(
            "`ids` are floats; document ids are compared as text: pass them as integers or strings"
        )
    return a


def _kept(ids: Any, cases: Cases) -> np.ndarray:
    a = ids_checked(ids, cases.rows_in)
    if len(a) != len(cases.s):
        raise InvalidParameterError("`ids` with rows of weight 0: drop those rows first")
    return a


def _relevant(cases: Cases, pos_label: Any, label: str, binary: bool) -> np.ndarray:
    """Whether each row is relevant (graded > 0) or positive (binary measures: the cases' coding,
    made once for every rule that reads it, :func:`perfeval.engine.door.targets_of`).
    """
    if binary:
        return np.asarray(targets_of(cases, pos_label).binary(label)) == 1
    return np.asarray(cases.y, dtype=np.float64) > 0


def _rules(
    d: Dialect,
    spec: MeasureSpec,
    pol: Policy,
    r: MeasureResult,
    cases: Cases,
    codes: np.ndarray,
    keys: Any,
    sizes: np.ndarray,
    opts: dict[str, Any],
    pos_label: Any,
) -> MeasureResult:
    """The tool's rules after the engine: refused small queries, empty queries, the mean."""
    grouped = keys is not None
    if grouped and not pol.grouped:
        raise InvalidParameterError(
            f"dialect {d.name}: {pol.call} has no groups; evaluate {spec.label} without"
        )
    if pol.min_size:
        small = np.flatnonzero(sizes < pol.min_size)
        if len(small):
            where = f"query {_key(keys, small[0])!r}" if grouped else "the data"
            raise InvalidDataError(
                f"dialect {d.name}: {pol.call} refuses queries of fewer than {pol.min_size} cases "
                f"({len(small)} such, first: {where})"
            )
    empty = pol.empty
    if empty == "option":
        empty = {"neg": "zero", "pos": "one", "skip": "skip", "error": "error"}[opts["empty_target_action"]]
    vals = np.array(r.per_group if grouped else [r.value], dtype=np.float64)
    binary = get_measure(pol.measure).kind != "ranking"
    relevant = _relevant(cases, pos_label, spec.label, binary).astype(np.float64)
    n_rel = np.bincount(codes, weights=relevant, minlength=len(vals))
    none = n_rel == 0
    if pol.scored_relevant:  # relevant cases, none of them counted (scored 0 or less, or below k): 0
        vals[np.isnan(vals) & (n_rel > 0)] = 0.0
    if pol.one_class is not None:  # one class only: the tool's value instead of undefined
        one = np.isnan(vals) & ((n_rel == 0) | (n_rel == np.bincount(codes, minlength=len(vals))))
        vals[one] = pol.one_class
    # "skip" of the registry's rule keeps the engine's value (undefined where the measure is); the tool's
    # own "skip" (torchmetrics) leaves such queries out whatever the measure gives them
    if none.any() and not (empty == "skip" and pol.empty != "option"):
        if empty == "error":
            where = f"query {_key(keys, np.argmax(none))!r}" if grouped else "the data"
            raise InvalidDataError(
                f"dialect {d.name}: {spec.label}: {where} has no relevant case (empty_target_action='error')"
            )
        vals[none] = {"zero": 0.0, "one": 1.0, "skip": math.nan}[empty]
    if pol.empty == "option" and opts["empty_target_action"] == "skip" and np.isnan(vals).all():
        vals[:] = 0.0  # torchmetrics: every query skipped gives 0
    if not grouped:
        return MeasureResult(spec.label, float(vals[0]), spec.direction)
    # the engine measure's averaging (DIN's GAUC is GAUC_UNWEIGHTED's mean), the user's label
    res = MeasureResult.of(MeasureSpec(get_measure(pol.measure)), vals, sizes, keys, True)
    res.label = spec.label
    if pol.aggregate == "weighted":
        res.value = res.weighted_mean if res.weighted_mean is not None else math.nan
    return res


def _finished(
    d: Dialect,
    todo: list,
    cases: Cases,
    opts: dict[str, Any],
    pos_label: Any,
    raw: Cases | None = None,
) -> dict[str, MeasureResult]:
    """A binning tool's areas, from the exact histogram of the cases, built once for every measure
    of ``todo`` (Spark: with the scores of the cases of weight 0 among the distinct scores it bins,
    as it counts them); with groups, the tool's area of each group, averaged over the groups.
    """
    spec0, pol0 = todo[0][0], todo[0][1]
    if cases.g is not None and not pol0.grouped:
        raise InvalidParameterError(
            f"dialect {d.name}: {pol0.call} has no groups; evaluate {spec0.label} without"
        )
    is_pos = np.asarray(targets_of(cases, pos_label).binary(spec0.label)) == 1
    # Spark counts the scores of the cases of weight 0 among those it bins: their scores join the
    # histogram as empty cells
    zero = raw.s[raw.w == 0] if raw is not None and raw.w is not None and d.name == "spark" else None
    zero_g = raw.g[raw.w == 0] if zero is not None and raw is not None and raw.g is not None else None

    def histogram(rows: np.ndarray | slice, zero_scores: np.ndarray | None) -> ScoreHistogram:
        h = ScoreHistogram.from_checked(
            is_pos[rows], cases.s[rows], None if cases.w is None else cases.w[rows]
        )
        h = h.canonical()
        if zero_scores is not None and len(zero_scores):
            scores = np.union1d(h.scores, zero_scores)
            at = np.searchsorted(scores, h.scores)
            pos, neg = np.zeros(len(scores)), np.zeros(len(scores))
            pos[at], neg[at] = h.pos, h.neg
            h = ScoreHistogram(scores, pos, neg)
        return h

    keys: Any = None
    if cases.g is None:
        hists = [histogram(slice(None), zero)]
    else:
        keys, codes = group_codes(cases.g)
        order = np.argsort(codes, kind="stable")
        cut = np.searchsorted(codes[order], np.arange(len(keys) + 1))
        zero_codes = None
        if zero_g is not None:  # a group of weight-0 cases only is no group: its scores go nowhere
            zero_codes = np.minimum(np.searchsorted(keys, zero_g), len(keys) - 1)
            zero_codes[keys[zero_codes] != zero_g] = -1
        hists = [
            histogram(
                order[cut[i] : cut[i + 1]],
                None if zero_codes is None or zero is None else zero[zero_codes == i],
            )
            for i in range(len(keys))
        ]
        sizes = np.bincount(codes, weights=cases.w, minlength=len(keys)).astype(np.float64)
    out = {}
    for spec, pol, _engine in todo:
        mod, _, attr = pol.finish.partition(":")
        fn = getattr(importlib.import_module(mod), attr)
        kwargs = {**dict(pol.finish_args), **opts, **(_engine.kwargs if pol.finish_params else {})}
        kwargs.pop("empty_target_action", None)
        vals = np.array([float(fn(h, **kwargs)) for h in hists])
        if keys is None:
            out[spec.label] = MeasureResult(spec.label, float(vals[0]), spec.direction)
        else:
            res = MeasureResult.of(MeasureSpec(spec.measure), vals, sizes, keys, True)
            res.label = spec.label
            out[spec.label] = res
    return out


def _refuse_mixed_ties(d: Dialect, todo: list, cases: Cases, codes: np.ndarray, keys: Any) -> None:
    """A tool whose order of tied scores is unspecified gives a number perfeval can reproduce only
    when no tie holds cases of different relevance: refuse otherwise, saying where.
    """
    y = np.asarray(cases.y, dtype=np.float64)
    order = np.lexsort((y, cases.s, codes))
    sc, ss, sy = codes[order], cases.s[order], y[order]
    same = (sc[1:] == sc[:-1]) & (ss[1:] == ss[:-1])
    mixed = same & ((sy[1:] > 0) != (sy[:-1] > 0))
    if mixed.any():
        groups = np.unique(sc[1:][mixed])
        where = f"first: query {_key(keys, groups[0])!r}" if keys is not None else "in the data"
        names = ", ".join(s.label for s, _p, _e in todo)
        raise InvalidDataError(
            f"dialect {d.name}: {names} rank tied scores in torch.topk's order, which is unspecified; "
            f"{len(groups)} quer{'y has' if len(groups) == 1 else 'ies have'} a tie of relevant and "
            f"non-relevant cases ({where}): perfeval cannot reproduce that number (tie_bounds=True gives "
            "its range)"
        )


# -- K classes ----------------------------------------------------------------------------------------
def check_classes_dialect(specs: list[MeasureSpec], dialect: str, weighted: bool) -> list:
    """The plan (spec, policy, engine spec) of measures of K classes under a dialect, or one line
    saying what the dialect does not do: a measure it does not define (every one but torchmetrics'
    ECE_TOP today), a fixed parameter given otherwise, weights its tool does not take.
    """
    d, _opts = parse_dialect(dialect)
    plan = [] if d.name == "perf" else [(spec, *policy_spec(d, spec)) for spec in specs]
    if d.name == "perf" or not all(pol.finish for _s, pol, _e in plan):
        spec = specs[0] if d.name == "perf" else next(s for s, pol, _e in plan if not pol.finish)
        raise InvalidParameterError(
            f"dialect {d.name} does not define {spec.label}; dialects that do: "
            f"{', '.join(defining(spec.measure.name))}"
        )
    if weighted:
        refuse_weights(d, plan)
    return plan


def evaluate_dialect_classes(
    cases: Cases, specs: list[MeasureSpec], classes: Any, dialect: str, *, classes_from: str
) -> Report:
    """Every measure of K classes in ``specs`` as the dialect's tool computes it, over checked cases
    (class codes ``cases.y``, an (n, K) score matrix ``cases.s``): each measure's policy must define
    it (today: torchmetrics' ECE_TOP, ``multiclass_calibration_error``), its finisher reading the
    rows (class codes, scores, the measure's parameters), each group alone with ``cases.g``.  A
    measure the dialect does not define, weights the tool does not take, a fixed parameter given
    otherwise: one line each, before any value is computed.
    """
    d, opts = parse_dialect(dialect)
    plan = check_classes_dialect(specs, dialect, cases.w is not None)
    y, s, g = cases.y, cases.s, cases.g
    keys = None
    if g is not None:
        keys, codes = group_codes(g)
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(keys) + 1))
        parts = [order[bounds[i] : bounds[i + 1]] for i in range(len(keys))]
        sizes = np.diff(bounds).astype(np.float64)
    else:
        parts = [np.arange(len(y))]
        sizes = np.array([float(len(y))])
    results: dict[str, MeasureResult] = {}
    for spec, pol, engine in plan:
        mod, _, attr = pol.finish.partition(":")
        fn = getattr(importlib.import_module(mod), attr)
        kwargs = {
            **dict(pol.finish_args),
            **{k: v for k, v in engine.kwargs.items() if k not in dict(pol.params)},
        }
        got = [fn(y[rows], s[rows], **kwargs) for rows in parts]
        vals = np.array([v for v, _why in got], dtype=np.float64)
        r = MeasureResult.of(spec, vals, sizes, keys, g is not None)
        why = next((w for _v, w in got if w), "")
        if g is None and why:
            r.why = f"{d.tool}: {why}"
        results[spec.label] = r
    warn_undefined(results, specs, tuple(classes))
    params = {
        "threshold": 0.5,
        "rows": int(cases.rows_in),
        "groups": None if keys is None else int(len(keys)),
        "weighted": False,
        "partitions": None,
        "ties": d.summary,
        "tie_rule": "dialect=" + dialect_text(d, opts),
        "dialect": dialect_text(d, opts),
        "pos_label": None,
        "backend": "memory",
        "task": "multiclass",
        "classes": [c.item() if isinstance(c, np.generic) else c for c in classes],
        "classes_from": classes_from,
    }
    report = Report(results, keys, params)
    report.group_sizes = None if keys is None else sizes
    return report
