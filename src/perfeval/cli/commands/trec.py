"""``perfeval trec``: TREC runs against judgments: one table (rows: runs; columns: measures), each
run after the first tested against the baseline; trec_eval's three columns with ``--format trec``; JSON,
CSV, Markdown and LaTeX.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from perfeval import _native, trec
from perfeval.base.text import shown
from perfeval.cli.load import note
from perfeval.cli.output import csv_field, csv_number, number, p_value, signature_line, table, write
from perfeval.engine.report import (
    bounds_map_with_reasons,
    json_number,
    map_with_reasons,
    tie_bounds_with_reasons,
    why_not_finite,
    with_reasons,
)
from perfeval.exceptions import InvalidParameterError
from perfeval.trec import DIALECT_TIES

#: what --format latex / markdown print beside a significant difference
_MARK = {"markdown": {"+": "<sup>+</sup>", "-": "<sup>−</sup>"}, "latex": {"+": "$^{+}$", "-": "$^{-}$"}}


def run(args: Any) -> int:
    _native.keep_heap()  # this process frees and allocates arrays of 10M rows run after run: reuse them

    if args.tie_bounds and args.format == "trec":
        raise InvalidParameterError(
            "--tie-bounds has no place in trec_eval's layout (--format trec): use --format table, json, csv, "
            "markdown or latex"
        )
    if [*args.runs, args.qrels].count("-") > 1:
        raise InvalidParameterError("standard input (-) can be read once: give the other inputs as files")

    dialect = _dialect(args)
    c = trec.compare(
        args.qrels,
        args.runs,
        measures=args.measures,
        qrels_columns=_columns(args.qrels_columns, "--qrels-columns"),
        run_columns=_columns(args.run_columns, "--run-columns"),
        baseline=args.baseline,
        test=args.test if len(args.runs) > 1 else "none",
        correction=args.correction,
        alpha=args.alpha,
        n_resamples=args.n_resamples,
        seed=args.seed,
        dialect=dialect,
        queries=args.queries,
        ties=args.ties,
        level=args.level,
        tie_bounds=args.tie_bounds,
    )
    if args.ties in (None, "perfeval") and dialect is None:  # said, as trec_eval's users expect its order
        mixed = {n: r.params.get("mixed_tie_queries", 0) for n, r in c.reports.items()}
        tied = ", ".join(f"{shown(n)} {k:,}" for n, k in mixed.items() if k)
        if tied:
            note(
                f"perfeval: note: queries with tied scores mixing relevant and non-relevant documents "
                f"({tied}): perfeval averages over the orders of a tie; trec_eval breaks ties by "
                "document id (--dialect trec_eval gives its numbers)\n"
            )
    if args.format == "trec" and args.dialect is None:
        _note_trec_layout(args)
    elif args.queries is None:
        _note_averaging(c, dialect)
    if c.reports[c.baseline].params["queries"] == "run" and _compared(c):
        _note_query_sets(c)
    out = {
        "table": _table,
        "trec": _trec,
        "json": _json,
        "csv": _csv,
        "markdown": _paper,
        "latex": _paper,
    }[args.format](c, args)
    write(out)
    return 0


def _note_query_sets(c: Any) -> None:
    """With --queries run, runs answering other queries are averaged over other sets, and each test
    pairs the queries both runs answer: said when the sets differ (a mean over 56 queries beside one
    over 47, with a p-value of the 47).
    """
    base = np.asarray(c.reports[c.baseline].groups)
    parts = []
    for name, rep in c.reports.items():
        if name == c.baseline:
            continue
        mine = np.asarray(rep.groups)
        both = int(np.isin(mine, base).sum())
        if both != len(mine) or both != len(base):
            parts.append(
                f"{shown(name)} {len(mine):,} and {shown(c.baseline)} {len(base):,}: {both:,} in both"
            )
    if parts:
        note(
            "perfeval: note: --queries run: each run's mean is over the queries it answers, and each test "
            f"pairs the queries both runs answer ({'; '.join(parts)})\n"
        )


def _dialect(args: Any) -> str | None:
    """The dialect asked for; with ``--format trec``, trec_eval's (its layout carries its numbers),
    another tool's refused.
    """
    if args.dialect is not None and args.ties not in (None, DIALECT_TIES[args.dialect]):
        raise InvalidParameterError(
            f"--dialect {args.dialect} orders ties its own way: drop --ties {args.ties}"
        )
    if args.format != "trec":
        return args.dialect
    if args.dialect not in (None, "trec_eval"):
        raise InvalidParameterError(
            f"--format trec is trec_eval's layout, for trec_eval's numbers: --dialect {args.dialect} gives "
            f"{args.dialect}'s; use --format table, json, csv, markdown or latex (or --dialect trec_eval)"
        )
    if args.ties not in (None, "trec_eval"):
        raise InvalidParameterError(
            f"--format trec is trec_eval's layout, for trec_eval's numbers (ties by document id): drop "
            f"--ties {args.ties}, or use --format table, json, csv, markdown or latex"
        )
    return "trec_eval"


def _note_trec_layout(args: Any) -> None:
    """``--format trec`` without a dialect is ``--dialect trec_eval``: said in one note."""
    which = (
        "every judged query, unanswered ones 0 (trec_eval -c)"
        if args.queries == "qrels"
        else "the judged queries each run answers, as trec_eval without -c (--queries qrels: -c)"
    )
    note(
        "perfeval: note: --format trec prints trec_eval's numbers (--dialect trec_eval): ties by "
        f"document id, trec_eval's definitions, the mean over {which}\n"
    )


def _note_averaging(c: Any, dialect: str | None) -> None:
    """Which queries each mean is over, said when a run leaves out judged queries and the choice was
    not the user's (``--queries``): a dialect's default (trec_eval: the answered ones) or perfeval's
    (every judged query, the unanswered ones 0) gives another number than the other choice.
    """
    short = []
    for name, rep in c.reports.items():
        judged, answered = rep.params["judged_queries"], rep.params["answered_queries"]
        if answered < judged:
            short.append(f"{shown(name)} {answered:,} of {judged:,}")
    if not short:
        return
    who = f"--dialect {dialect}" if dialect not in (None, "perfeval") else "perfeval"
    if c.reports[c.baseline].params["queries"] == "run":
        how = (
            "the mean over the judged queries each run answers (as trec_eval without -c; "
            "--queries qrels counts the others 0, as trec_eval -c)"
        )
    else:
        how = (
            "the mean over every judged query, the unanswered ones 0 (as trec_eval -c; --queries run "
            "leaves them out, as trec_eval without -c)"
        )
    note(f"perfeval: note: {who} gives {how}; judged queries answered: {'; '.join(short)}\n")


def _columns(text: str | None, option: str) -> dict[str, str] | None:
    """``--run-columns qid=user,docid=item`` as a dict."""
    if not text:
        return None
    out = {}
    for item in text.split(","):
        role, eq, name = item.partition("=")
        if not eq or not role.strip() or not name.strip():
            raise InvalidParameterError(f"{option}: expected ROLE=NAME, found {item!r}")
        out[role.strip()] = name.strip()
    return out


def _names(c: Any) -> list[str]:
    return [c.name(s) for s in c.specs]


def _legend(c: Any, baseline: str | None = None) -> str:
    how = {
        "t": "paired t-test",
        "randomization": "Fisher's randomization test",
        "bootstrap": "paired bootstrap",
    }
    extra = f", {c.n_resamples} resamples, seed {c.seed}" if c.test in ("randomization", "bootstrap") else ""
    corr = (
        ""
        if c.correction == "none"
        else f", {c.correction}-corrected over {len(c.reports) - 1} run{'s' if len(c.reports) > 2 else ''}"
    )

    name = shown(c.baseline) if baseline is None else baseline
    return f"+/-: better/worse than {name} ({how[c.test]}{extra}{corr}, p < {c.alpha:g})"


def _compared(c: Any) -> bool:
    return len(c.reports) > 1 and c.test != "none"


def _table(c: Any, args: Any) -> str:
    rows = [["run", *_names(c)]]
    for name, rep in c.reports.items():
        rows.append(
            [shown(name)] + [number(rep.results[s.label].value) + c.marker(name, s.label) for s in c.specs]
        )
    lines = table(rows, "lr")
    if _compared(c):
        lines.append(_legend(c))
    if args.tie_bounds:
        lines += ["", "tie bounds (the least..greatest mean over every order of the tied documents):"]
        brow = [["run", *_names(c), "tied pairs"]]
        for name, rep in c.reports.items():
            cells = [_span(rep.results[s.label]) for s in c.specs]
            brow.append([shown(name), *cells, _share(rep)])
        lines += table(brow, "lr")
    signatures = {name: str(rep.signature) for name, rep in c.reports.items()}
    if len(set(signatures.values())) == 1:
        lines.append(signature_line(signatures[c.baseline]))
    else:  # runs evaluated under other rules (ranx sorts again a run that leaves out judged queries)
        lines += [f"signature of {shown(name)}: {sig}" for name, sig in signatures.items()]
    if _compared(c):
        lines += ["", f"p-values against {shown(c.baseline)}:"]
        prow = [["run", *_names(c)]]
        resampled = c.n_resamples if c.test in ("randomization", "bootstrap") else None
        for name in c.pvalues:
            prow.append([shown(name)] + [p_value(c.pvalues[name][s.label], resampled) for s in c.specs])
        lines += table(prow, "lr")
    if args.per_query:
        for name, rep in c.reports.items():
            lines += ["", f"run {shown(name)}, per query:"]
            qrows = [["query", *_names(c)]]
            for i, key in enumerate(rep.groups):
                qrows.append(
                    [shown(str(key))]
                    + [
                        number(float(rep.results[s.label].per_group[i]))
                        + (f" ({_span(rep.results[s.label], i)})" if args.tie_bounds else "")
                        for s in c.specs
                    ]
                )
            lines += table(qrows, "lr")
    return "\n".join(lines) + "\n"


def _span(r: Any, i: int | None = None) -> str:
    """A measure's tie bounds as ``min..max`` (four decimals), of query i when given."""
    lo, hi = (r.tie_min, r.tie_max) if i is None else (r.tie_min_per_group[i], r.tie_max_per_group[i])
    return f"{lo:.4f}..{hi:.4f}"


def _share(rep: Any) -> str:
    """The share of the comparable pairs that are tied, with their number."""
    if not rep.pairs:
        return "no pair"
    return f"{rep.tied_pairs * 100:.4g}% of {rep.pairs:.15g}"


#: trec_eval's order of the measures it prints (its te_trec_measures table, measures.c, 10.0 and
#: 9.0.8 alike), whatever the order of -m; each family's cut-offs in increasing order
_TREC_EVAL_ORDER = (
    *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref"),
    *("recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult"),
    *("utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut"),
    *("map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F"),
)


def _trec_eval_rank(name: str) -> tuple[int, float] | None:
    """Where trec_eval prints the measure it names ``name`` (``ndcg_cut_10``): its family's place,
    then the cut-off; ``None`` for a name trec_eval does not print.
    """
    if name in _TREC_EVAL_ORDER:
        return _TREC_EVAL_ORDER.index(name), 0.0
    family, _, k = name.rpartition("_")
    if family in _TREC_EVAL_ORDER:
        try:
            return _TREC_EVAL_ORDER.index(family), float(k)
        except ValueError:
            return None
    return None


def _trec(c: Any, args: Any) -> str:
    """trec_eval's layout, as trec_eval 10.0 prints it (``-q``, ``-c``, ``-m`` each measure):
    ``%-22s<TAB>query<TAB>%6.4f`` lines, with ``-q`` each query's (in the order of the query ids'
    bytes, every measure of a query before the next query) and then the means on ``all`` lines.
    trec_eval's names as it prints them (``P.5`` -> ``P_5``) and in its order of measures, not the
    order of ``-m``; measures trec_eval does not name (``nDCG@10``, ``p@5``) come after, as written.
    With several runs, one such block per run, each with trec_eval's ``runid  all  NAME`` line
    (where ``-m runid`` puts it: first of the ``all`` lines).  Query ids and run names with control
    or format characters are escaped (:func:`perfeval.base.text.shown`): one line a value, shown as it is.
    """
    lines = []
    printed = {
        s.label: (c.name(s).replace(".", "_") if s.tool == "trec_eval" else c.name(s)) for s in c.specs
    }
    ranks = {label: _trec_eval_rank(name) for label, name in printed.items()}
    last = (len(_TREC_EVAL_ORDER), 0.0)
    specs = sorted(c.specs, key=lambda s: ranks[s.label] or last)  # stable: the others as written
    for name, rep in c.reports.items():
        if args.per_query:
            for i, key in enumerate(rep.groups):
                for s in specs:
                    value = rep.results[s.label].per_group[i]
                    lines.append(f"{printed[s.label]:<22}\t{shown(str(key))}\t{value:6.4f}")
        if len(c.reports) > 1:
            lines.append(f"{'runid':<22}\tall\t{shown(name)}")
        for s in specs:
            lines.append(f"{printed[s.label]:<22}\tall\t{rep.results[s.label].value:6.4f}")
    return "\n".join(lines) + "\n"


def _json(c: Any, args: Any) -> str:
    """One run: ``{measure: mean}``; several: ``{run: {measure: mean}}``, each run compared with the
    baseline holding ``"p_values": {measure: corrected p}`` too.  With ``-q`` a measure maps to
    ``{"mean": m, "per_query": {query: value}}``.  Measures are named as written.  A null has its
    reason beside it: ``KEY_why_null`` (in a map, ``p_values_why_null``, ``per_query_why_null``, ...,
    under the same keys), as every JSON perfeval writes.
    """
    no_pairs = "no comparable pair (two retrieved documents of different relevance in one query)"

    def means(name: str, rep: Any) -> dict:
        out: dict[str, Any] = {}
        for s in c.specs:
            r = rep.results[s.label]
            why_mean = r.why or why_not_finite(r.value, s.label) or ""
            if args.per_query or args.tie_bounds:
                entry: dict[str, Any] = with_reasons({"mean": r.value}, {"mean": why_mean})
                if args.tie_bounds:
                    entry.update(tie_bounds_with_reasons(r))
                if args.per_query:
                    entry["per_query"], why = map_with_reasons(
                        rep.groups,
                        r.per_group.tolist(),
                        lambda v, label=s.label: why_not_finite(v, label, "for this query") or "",
                    )
                    if why:
                        entry["per_query_why_null"] = why
                if args.per_query and args.tie_bounds:
                    bounds, bounds_why = bounds_map_with_reasons(r, rep.groups, s.label, "for this query")
                    entry["tie_bounds_per_query"] = bounds
                    if bounds_why:
                        entry["tie_bounds_per_query_why_null"] = bounds_why
                out[c.name(s)] = entry
            else:
                out.update(with_reasons({c.name(s): r.value}, {c.name(s): why_mean}))
        if args.tie_bounds:
            out.update(
                with_reasons(
                    {"tied_pairs": rep.tied_pairs, "pairs": rep.pairs},
                    {"tied_pairs": no_pairs, "pairs": no_pairs},
                )
            )
        if name in c.pvalues and c.test != "none":
            p_values = {c.name(s): json_number(c.pvalues[name][s.label]) for s in c.specs}
            out["p_values"] = p_values
            why = {
                c.name(s): c.why_no_p_value(name, s.label) or "no test"
                for s in c.specs
                if p_values[c.name(s)] is None
            }
            if why:
                out["p_values_why_null"] = why
        return out

    if len(c.reports) == 1:
        body: dict[str, Any] = means(c.baseline, c.reports[c.baseline])
    else:
        body = {name: means(name, rep) for name, rep in c.reports.items()}
    return json.dumps(body, indent=2, allow_nan=False) + "\n"


def _csv(c: Any, args: Any) -> str:
    """One row per run, the means at full precision (and, with several runs compared, each
    measure's corrected p-value as ``name p``); ``-q``: one row per run and query, each value at full
    precision too.
    """
    names = _names(c)
    bounds = (
        [csv_field(f"{n} {end}") for n in names for end in ("tie_min", "tie_max")] if args.tie_bounds else []
    )
    if args.per_query:
        lines = [",".join(["run", "query", *map(csv_field, names), *bounds])]
        for name, rep in c.reports.items():
            for i, key in enumerate(rep.groups):
                cells = [csv_number(float(rep.results[s.label].per_group[i])) for s in c.specs]
                if args.tie_bounds:
                    cells += [
                        csv_number(float(getattr(rep.results[s.label], end)[i]))
                        for s in c.specs
                        for end in ("tie_min_per_group", "tie_max_per_group")
                    ]
                lines.append(",".join([csv_field(name), csv_field(str(key)), *cells]))
        return "\n".join(lines) + "\n"
    compared = _compared(c)
    head = ["run", *map(csv_field, names)]
    if compared:  # each measure's corrected p-value against the baseline (empty for the baseline)
        head += [csv_field(f"{n} p") for n in names]
    if args.tie_bounds:
        head += [*bounds, "tied_pairs"]
    lines = [",".join(head)]
    for name, rep in c.reports.items():
        row = [csv_field(name)] + [repr(rep.results[s.label].value) for s in c.specs]
        if compared:
            row += [repr(c.pvalues[name][s.label]) if name in c.pvalues else "" for s in c.specs]
        if args.tie_bounds:
            row += [
                repr(getattr(rep.results[s.label], end)) for s in c.specs for end in ("tie_min", "tie_max")
            ]
            row.append(repr(rep.tied_pairs))
        lines.append(",".join(row))
    return "\n".join(lines) + "\n"


def _paper(c: Any, args: Any) -> str:
    """A table for a paper: four decimals, the best value of each measure in bold, significance
    markers against the baseline, the test named under it.
    """
    fmt = args.format
    names = _names(c)
    best = {}
    for s in c.specs:
        vals = [rep.results[s.label].value for rep in c.reports.values()]
        ok = [v for v in vals if not math.isnan(v)]
        better = max if s.measure.higher_is_better else min
        best[s.label] = better(ok) if ok else math.nan

    def cell(name: str, s: Any) -> str:
        v = c.reports[name].results[s.label].value
        text = "nan" if math.isnan(v) else f"{v:.4f}"
        if v == best[s.label] and len(c.reports) > 1:
            text = f"**{text}**" if fmt == "markdown" else f"\\textbf{{{text}}}"
        mark = c.marker(name, s.label)
        text += _MARK[fmt][mark] if mark else ""
        if args.tie_bounds:  # the least and greatest over the orders of the tied documents
            span = _span(c.reports[name].results[s.label])
            text += f" ({span})" if fmt == "markdown" else f" {{\\scriptsize({span.replace('..', '--')})}}"
        return text

    if fmt == "markdown":
        md = _markdown
        lines = ["| run | " + " | ".join(md(n) for n in names) + " |"]
        lines.append("|---|" + "---:|" * len(names))
        for name in c.reports:
            cells = " | ".join(cell(name, s) for s in c.specs)
            lines.append("| " + md(name) + " | " + cells + " |")
        if _compared(c):
            legend = _legend(c, md(c.baseline))
            lines += ["", legend.replace("+/-", "<sup>+</sup>/<sup>−</sup>", 1)]
        if args.tie_bounds:
            lines += ["", "(min..max): the least and greatest mean over every order of the tied documents"]
        return "\n".join(lines) + "\n"
    esc = _latex
    lines = [
        "% needs \\usepackage{booktabs}",
        "\\begin{tabular}{l" + "r" * len(names) + "}",
        "\\toprule",
        "Run & " + " & ".join(esc(n) for n in names) + " \\\\",
        "\\midrule",
    ]
    for name in c.reports:
        lines.append(esc(name) + " & " + " & ".join(cell(name, s) for s in c.specs) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    if _compared(c):
        lines.append("% " + _legend(c))
    if args.tie_bounds:
        lines.append("% (min--max): the least and greatest mean over every order of the tied documents")
    return "\n".join(lines) + "\n"


#: what Markdown (CommonMark, GitHub's tables) would read as markup in a cell: each is escaped with
#: a backslash, which CommonMark allows before any ASCII punctuation
_MARKDOWN_SPECIAL = frozenset("\\`*_|<>[]~&#")


def _markdown(text: str) -> str:
    """Text as Markdown prints it literally in a table cell (run and measure names hold _, *, |), its
    control and format characters escaped first (a bidirectional override would reverse the name).
    """
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in shown(text))


def _latex(text: str) -> str:
    """Text as LaTeX prints it literally (run and measure names hold _ and @)."""
    special = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_"}
    special.update({"|": "\\textbar{}", "<": "\\textless{}", ">": "\\textgreater{}"})
    special.update({"{": "\\{", "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}"})

    return "".join(special.get(ch, ch) for ch in shown(text))
