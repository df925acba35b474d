"""``perfeval compare``: two models on the same cases: the difference of each measure, its interval
and a p-value.
"""

from __future__ import annotations

from typing import Any

from perfeval._progress import wanted
from perfeval.cli import load
from perfeval.cli.commands.eval import check_ci_options
from perfeval.cli.output import number, p_value, signature_line, table, write


def _load(args: Any, file: str, several: bool, binary: bool) -> tuple:
    import numpy as np

    t = load.read(args, file)
    ch = t.choose(
        target=args.target, score=args.score, group=args.group, weight=args.weight, several_scores=several
    )
    load.say_columns(ch)
    y = load.targets(t, ch.target.name, t.get(ch.target), args.pos_label, binary).astype(np.float64)
    return t, ch, y


def _extras(t: Any, ch: Any) -> tuple:
    return (None if ch.group is None else t.get(ch.group)), load.weights(t, ch.weight)


def _one_table(args: Any, binary: bool) -> tuple:
    from perfeval.exceptions import InvalidParameterError

    cols = (args.score or "").split(",")
    if len(cols) != 2 or not all(c.strip() for c in cols):
        raise InvalidParameterError("with one table, --score names the two models' columns: --score A,B")
    t, ch, y = _load(args, args.files[0], True, binary)
    a, b = (load.scores(t, c) for c in ch.scores[:2])
    return (y, a, b, *_extras(t, ch), (ch.scores[0].name, ch.scores[1].name))


def _same(what: str, x: Any, y: Any, source: str) -> None:
    import numpy as np

    from perfeval.exceptions import InputFormatError

    if (x is None) != (y is None) or (x is not None and not np.array_equal(x, y)):
        raise InputFormatError(f"the {what} differ from the first table's", source=source)


def _two_tables(args: Any, binary: bool) -> tuple:
    import numpy as np

    from perfeval.exceptions import InputFormatError, InvalidParameterError

    if args.score and "," in args.score:
        raise InvalidParameterError("with two tables, --score names one column, found in both")
    (ta, cha, ya), (tb, chb, yb) = (_load(args, f, False, binary) for f in args.files)
    if len(ya) != len(yb):
        raise InputFormatError(
            f"has {len(yb)} rows, {args.files[0]} has {len(ya)}: the two models must score the same cases in "
            "the same order",
            source=tb.source,
        )
    diff = ya != yb
    if diff.any():
        i = int(np.argmax(diff))
        raise InputFormatError(
            f"the target differs from {args.files[0]} (line {ta.line_of(i)}): the two models must score the "
            "same cases in the same order",
            source=tb.source,
            line=tb.line_of(i),
        )
    a, b = load.scores(ta, cha.score), load.scores(tb, chb.score)
    ga, wa = _extras(ta, cha)
    gb, wb = _extras(tb, chb)
    _same("groups", ga, gb, tb.source)
    _same("weights", wa, wb, tb.source)
    return ya, a, b, ga, wa, (args.files[0], args.files[1])


def inputs(args: Any, specs: list) -> tuple:
    """(target, score_a, score_b, groups, weights, names) from one table with two score columns or
    from two tables with the same targets.
    """
    from perfeval.exceptions import InvalidParameterError

    binary = any(s.measure.kind == "binary" for s in specs) or (
        args.pos_label is not None and any(s.measure.kind == "grouped" for s in specs)
    )  # GAUC reads labels through --pos-label, else grades (> 0: positive)
    if len(args.files) == 1:
        return _one_table(args, binary)
    if len(args.files) != 2:
        raise InvalidParameterError(
            f"compare takes one table (with --score A,B) or two tables, got {len(args.files)}"
        )
    return _two_tables(args, binary)


def run(args: Any) -> int:
    from perfeval.engine import resolve
    from perfeval.stats import compare

    check_ci_options(args)
    specs = resolve(args.measures, args.threshold)
    y, a, b, g, w, (na, nb) = inputs(args, specs)
    from perfeval.stats.fastpaths import fast_paths

    # DeLong's test by default when every measure has one (the ROC area) and cases are not grouped
    analytic = g is None and all(fast_paths(sp).delong_test is not None for sp in specs)
    method = args.method or ("delong" if analytic else "bca")
    res = compare(
        y,
        a,
        b,
        [sp.label for sp in specs],
        method=method,
        level=args.ci,
        n_boot=args.n_boot,
        seed=args.seed,
        groups=g,
        sample_weight=w,
        threshold=args.threshold,
        progress=wanted(args),
    )
    bounds = _tie_bounds(y, a, b, g, w, specs, args.threshold) if args.tie_bounds else None
    if args.output == "json":
        from perfeval.report import dumps

        out: dict = {"a": na, "b": nb, "comparisons": [c.to_dict() for c in res.values()]}
        if bounds is not None:
            out["tie_bounds"] = bounds
        write(dumps(out, indent=2) + "\n")
        return 0
    pct = f"{args.ci * 100:g}%"
    head = ["measure", "a", "b", "a - b", f"{pct} low", f"{pct} high", "p-value"]
    rows = [
        [
            c.label,
            number(c.estimate_a),
            number(c.estimate_b),
            number(c.difference),
            number(c.low),
            number(c.high),
            p_value(c.p_value),
        ]
        for c in res.values()
    ]
    first = next(iter(res.values()))
    how = (
        "DeLong's test"
        if first.method == "delong"
        else f"paired {first.method} bootstrap, {first.n_boot} replicates, seed {args.seed}, "
        f"{first.resampled} resampled"
    )
    if bounds is not None:
        head += ["a over tie orders", "b over tie orders", "ties can reverse"]
        for row, c in zip(rows, res.values(), strict=True):
            tb = bounds["measures"][c.label]
            row += [
                f"{number(tb['a'][0])} .. {number(tb['a'][1])}",
                f"{number(tb['b'][0])} .. {number(tb['b'][1])}",
                {True: "yes", False: "no", None: "-"}[tb["overlap"]],
            ]
    lines = [f"a = {na}", f"b = {nb}", *table([head, *rows], "lr"), f"({how})"]
    if bounds is not None:
        lines.append(
            f"tied pairs: a {number(bounds['tied_pairs']['a'])}, b {number(bounds['tied_pairs']['b'])} "
            "(ties can reverse: the two ranges over every order of the tied cases overlap)"
        )
    lines.append(signature_line(_signature(args, specs, first, w is not None)))
    write("\n".join(lines) + "\n")
    return 0


def _tie_bounds(y: Any, a: Any, b: Any, g: Any, w: Any, specs: list, threshold: float) -> dict:
    """Each model's range of every measure over the orders of its tied cases (perfeval.evaluate with
    tie_bounds=True), whether the ranges overlap, and each model's share of tied pairs.
    """
    import math

    from perfeval.evaluation import evaluate

    ra, rb = (
        evaluate(y, s, measures=specs, groups=g, sample_weight=w, threshold=threshold, tie_bounds=True)
        for s in (a, b)
    )
    measures = {}
    for sp in specs:
        x, z = ra.results[sp.label], rb.results[sp.label]
        lo_a, hi_a, lo_b, hi_b = (
            float("nan") if v is None else float(v) for v in (x.tie_min, x.tie_max, z.tie_min, z.tie_max)
        )
        known = not any(math.isnan(v) for v in (lo_a, hi_a, lo_b, hi_b))
        measures[sp.label] = {
            "a": [lo_a, hi_a],
            "b": [lo_b, hi_b],
            "overlap": (lo_a <= hi_b and lo_b <= hi_a) if known else None,
        }
    return {"measures": measures, "tied_pairs": {"a": ra.tied_pairs, "b": rb.tied_pairs}}


def _signature(args: Any, specs: list, first: Any, weighted: bool) -> Any:
    from perfeval.signature import ci_text, of_specs

    return of_specs(
        specs,
        args.threshold,
        weights=weighted,
        positive=None if args.pos_label is None else repr(args.pos_label),
        ci=ci_text(first.method, first.n_boot, args.seed, args.ci),
    )
