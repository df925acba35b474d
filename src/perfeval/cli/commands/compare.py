"""``perfeval compare``: models scored on the same cases, each against a baseline: the difference of
each measure (model - baseline), its interval, a p-value, and the p-value corrected for the number of
models compared.

The models come as one table with several score columns (``--score base,a,b``) or as several tables
of one score column each, row for row in the same order, or joined by an id column (``--id``).
Tables paired row for row are checked to be in the same order: their targets, groups, weights, and
every column they name alike other than those and the scores (an id, a user) agree row by row
(``--by-position`` skips the second check, for a column of each model's own).
"""

from __future__ import annotations

import copy
import math
import os
from typing import Any

import numpy as np

from perfeval.base.progress import wanted
from perfeval.base.text import shown
from perfeval.cli import load
from perfeval.cli.commands.eval import check_ci_options
from perfeval.cli.output import csv_interval_notes, csv_number, number, p_value, signature_line, table, write
from perfeval.engine import resolve
from perfeval.engine.report import dumps, why_not_finite, with_reasons
from perfeval.engine.signature import ci_text_of, of_specs
from perfeval.exceptions import InputFormatError, InvalidParameterError, PerfError
from perfeval.io import grammar
from perfeval.stats import compare_models
from perfeval.stats.fastpaths import fast_paths
from perfeval.stats.intervals import (
    floor_reason,
    groups_compared,
    left_out,
    one_sided,
    reasons,
    undefined_intervals,
    which_tests,
)
from perfeval.stats.paired import correct_bounded

# The evaluation is imported where tie bounds are asked for: a comparison without them doesn't load it.


def _load(args: Any, file: str, several: bool, binary: bool, specs: list, keep: bool = False) -> tuple:
    """(table, columns chosen, targets) of ``file``; ``keep``: the columns of no role kept as written
    (:func:`_other_columns`), to check that several tables hold their rows in the same order.  A
    regression (``args.regression``): the targets finite numbers as read, never coded.
    """
    first = getattr(args, "first_table", None)
    if first is not None and file == args.files[0]:  # read already, to tell the task
        t = first()
    else:
        t = load.read(args, file, _other_columns(args, file) if keep else None)
    ch = load.choose_table(args, t, several=several)
    load.say_columns(ch)
    if getattr(args, "regression", None):
        from perfeval.cli.regression import target_values

        return t, ch, target_values(t, ch.target.name, t.get(ch.target, empties=False))
    if args.pos_label is not None:  # the label as read, for the signature (a number against numbers)
        args.pos_label_read = load.label_as_read(args.pos_label, t.get(ch.target))
    y = load.targets(t, ch.target.name, t.get(ch.target), args.pos_label, binary).astype(np.float64)
    if not binary:
        load.say_grades_as_labels(y, specs, args.pos_label, ch.target.name)
    return t, ch, y


def _other_columns(args: Any, file: str) -> Any:
    """For the reader: the positions of a table's columns that are not its target, score, weight or
    group (ids, users, features): read as written (int64 or text), so that two tables' columns of the
    same name are compared exactly.  Only under a header (a name is then the file's).
    """
    source = "standard input" if file == "-" else file

    def positions(names: list[str], header: bool) -> list[int]:
        if not header:
            return []
        try:
            ch = load.choose_columns(args, names, header, source)
        except PerfError:
            return []  # said when the columns are chosen, after the table is read
        used = {c.index for c in (ch.target, ch.score, ch.group, ch.weight) if c is not None}
        return [i for i in range(len(names)) if i not in used]

    return positions


def _as_compared(x: Any, y: Any) -> tuple:
    """Two columns of the same name as comparable arrays: integers as integers, numbers written
    otherwise (``0.5``, ``1e3``) as numbers, and text as text.
    """
    if x.dtype.kind in "iub" and y.dtype.kind in "iub":
        return x, y
    if x.dtype.kind == "f" and y.dtype.kind == "f":
        return x, y

    def number(a: Any) -> Any:
        if a.dtype.kind in "iubf":
            return a.astype(np.float64)
        return grammar.numbers([str(v) for v in a.tolist()])

    nx, ny = number(x), number(y)
    if nx is not None and ny is not None:
        return nx, ny
    return x.astype(str), y.astype(str)


def _same_order(args: Any, t0: Any, ch0: Any, t: Any, ch: Any) -> None:
    """Tables paired row by row (no ``--id``) hold their rows in the same order: every column both
    name alike, other than their targets, scores, weights and groups (ids, users, features), holds
    the same value on each row (the groups are checked by :func:`_same`); else one line naming the
    column, the first row that differs in both files and its values, and ``--id``.  The targets
    alone may agree in another order (two files sorted by label), and the models would then be
    compared on different cases.
    """
    if not (t0.header and t.header):
        return
    roles = {c.name for x in (ch0, ch) for c in (x.target, x.score, x.weight, x.group) if c is not None}
    seen: set[str] = set()
    for name in t0.names:
        if name in roles or name in seen or name not in t.columns:
            continue
        seen.add(name)
        x, y = _as_compared(t0.columns[name], t.columns[name])
        if len(x) != len(y):
            return  # said by the caller
        diff = x != y
        if x.dtype.kind == "f":  # NaN (a Parquet float column) is NaN's equal here
            diff &= ~(np.isnan(x) & np.isnan(y))
        if not diff.any():
            continue
        i = int(np.argmax(diff))
        a, b = t0.columns[name][i], t.columns[name][i]
        col = t0.columns[name]
        unique = len(np.unique(col)) == len(col)
        join = f"--id {name}" if unique else "--id COLUMN (a column naming each case once)"
        raise InputFormatError(
            f"column {name!r} holds {_id_text(b)} here and {_id_text(a)} at {t0.position(i)} of "
            f"{args.files[0]}: the rows are paired by position, so the files list the cases in different "
            f"orders (or hold different cases); join them by id: {join} (or, when {name!r} is each model's "
            "own column, pair them as they are: --by-position)",
            source=t.source,
            **t.at(i),
        )


def _extras(t: Any, ch: Any, specs: list) -> tuple:
    """(groups, weights) of a table; a fractional weight where APR or CA2 reads weights as counts is
    one line naming the column, the value and its line, as in ``eval``.
    """
    return (None if ch.group is None else t.get(ch.group)), load.weights(t, ch.weight, specs)


def _one_table(args: Any, binary: bool, specs: list) -> tuple:
    cols = (args.score or "").split(",")
    if len(cols) < 2 or not all(c.strip() for c in cols):
        raise InvalidParameterError(
            "with one table, --score names the models' columns, the baseline first: --score A,B[,C...]"
        )
    t, ch, y = _load(args, args.files[0], True, binary, specs)
    names = [c.name for c in ch.scores]
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"--score {args.score}: a column named twice")
    models = {c.name: load.scores(t, c) for c in ch.scores}
    return (y, models, *_extras(t, ch, specs))


def _same(what: str, x: Any, y: Any, source: str, first: str, t0: Any, at: Any, hint: str = "") -> None:
    """The groups (or weights) of a table equal the first table's, row for row; else one line naming
    the first row that differs, in both files (``at``: where row ``i`` is in this one, as
    :meth:`perfeval.io.tables.Table.at` says it: a line, or a Parquet file's row), and ``hint``.
    """
    if (x is None) != (y is None):
        given = first if x is not None else source
        raise InputFormatError(f"the {what}: only {given} has a column of them", source=source)
    if x is None or np.array_equal(x, y):
        return
    if len(x) == len(y) and x.dtype.kind == y.dtype.kind:
        i = int(np.argmax(x != y))
        raise InputFormatError(
            f"the {what} differ from {first}'s: {_id_text(y[i])} here, {_id_text(x[i])} at "
            f"{t0.position(i)} of {first} (the models must score the same cases{hint})",
            source=source,
            **at(i),
        )
    raise InputFormatError(
        f"the {what} differ from {first}'s (the models must score the same cases{hint})", source=source
    )


def _ids(t: Any, args: Any) -> Any:
    """A table's ``--id`` column (int64 or text, never float), each id once."""
    picked = t.pick(args.id, "id")
    assert picked is not None  # --id is given
    ids = picked[1]
    order = np.argsort(ids, kind="stable")
    s = ids[order]
    dup = np.flatnonzero(s[1:] == s[:-1]) if len(s) > 1 else np.zeros(0, dtype=np.intp)
    if len(dup):
        i = int(order[dup[0] + 1])
        raise InputFormatError(
            f"id {_id_text(s[dup[0]])} of column {picked[0]!r} is on two rows: --id must name each case once",
            source=t.source,
            **t.at(i),
        )
    return ids


def _id_text(v: Any) -> str:
    """An id as the file wrote it: an integer bare, text quoted."""
    v = v.item() if hasattr(v, "item") else v

    return repr(shown(v)) if isinstance(v, str) else str(v)


def _join(args: Any, first: Any, first_ids: Any, t: Any) -> Any:
    """The row order that lines table ``t`` up with the first table by id; an id in one table and not
    in the other is an error naming it.
    """
    ids = _ids(t, args)
    a, b = first_ids, ids
    if a.dtype.kind != b.dtype.kind:  # one file's ids read as numbers, the other's as text
        a, b = a.astype(str), b.astype(str)
    order = np.argsort(b, kind="stable")
    pos = np.searchsorted(b[order], a)
    pos = np.minimum(pos, len(b) - 1) if len(b) else pos
    found = (b[order][pos] == a) if len(b) else np.zeros(len(a), dtype=bool)
    if not found.all():
        i = int(np.argmin(found))
        raise InputFormatError(
            f"has no row of id {_id_text(a[i])} ({first.position(i)} of {args.files[0]}; "
            f"{int((~found).sum())} such ids): the models must score the same cases",
            source=t.source,
        )
    if len(b) != len(a):
        extra = np.setdiff1d(b, a)
        raise InputFormatError(
            f"has {len(b) - len(a)} row(s) whose id is not in {args.files[0]}, e.g. {_id_text(extra[0])}: "
            "the models must score the same cases",
            source=t.source,
        )
    return order[pos]


def _tables(args: Any, binary: bool, specs: list) -> tuple:
    if args.score and "," in args.score:
        raise InvalidParameterError("with several tables, --score names one column, found in each")
    if len(set(args.files)) != len(args.files):
        raise InvalidParameterError("a table is named twice")
    if args.by_position and args.id:
        raise InvalidParameterError("--by-position and --id: the rows are paired by position or joined by id")
    check = not (args.id or args.by_position)
    loaded = [_load(args, f, False, binary, specs, keep=check) for f in args.files]
    t0, ch0, y0 = loaded[0]
    ids0 = _ids(t0, args) if args.id else None
    g0, w0 = _extras(t0, ch0, specs)
    models = {args.files[0]: load.scores(t0, ch0.score)}
    for f, (t, ch, y) in zip(args.files[1:], loaded[1:], strict=True):
        s = load.scores(t, ch.score)
        g, w = _extras(t, ch, specs)
        if ids0 is not None:
            order = _join(args, t0, ids0, t)
            y, s = y[order], s[order]
            g = None if g is None else g[order]
            w = None if w is None else w[order]
            at = lambda i, order=order, t=t: t.at(int(order[i]))  # noqa: E731
        else:
            at = t.at
            assert y0 is not None
            if len(y) != len(y0):
                raise InputFormatError(
                    f"has {len(y)} rows, {args.files[0]} has {len(y0)}: the models must score the same cases "
                    "in the same order (or name an id column to join them by: --id COLUMN)",
                    source=t.source,
                )
        diff = y != y0
        if diff.any():
            i = int(np.argmax(diff))
            raise InputFormatError(
                f"the target differs from {args.files[0]} ({t0.position(i)}): the models must score the "
                "same cases" + ("" if ids0 is not None else " in the same order (or --id COLUMN joins them)"),
                source=t.source,
                **at(i),
            )
        if check:
            _same_order(args, t0, ch0, t, ch)
        hint = "" if ids0 is not None else " in the same order, or --id COLUMN joins them"
        _same("groups", g0, g, t.source, args.files[0], t0, at, hint)
        _same("weights", w0, w, t.source, args.files[0], t0, at, hint)
        models[f] = s
    return y0, models, g0, w0


def inputs(args: Any, specs: list) -> tuple:
    """(target, {model name: scores}, groups, weights): from one table with several score columns or
    from several tables with the same targets (row for row, or joined by ``--id``).
    """
    # --pos-label codes the column for every measure asked, as perfeval eval does; without it,
    # GAUC reads grades (> 0: positive)
    binary = any(s.measure.kind == "binary" for s in specs) or args.pos_label is not None
    if len(args.files) == 1:
        if args.id or args.by_position:
            what = "--id joins" if args.id else "--by-position pairs"
            raise InvalidParameterError(f"{what} several tables; one table's rows are already together")
        return _one_table(args, binary, specs)
    return _tables(args, binary, specs)


def _regression(args: Any, specs: list) -> str | None:
    """Why the comparison is of a regression target, or None: as ``eval`` tells it
    (:func:`perfeval.cli.regression.requested`: ``--task regression``, a regression measure named, or,
    with no measure named (or only ``rmse``/``mse``) and no ``--pos-label``, a first table whose
    target holds real values or many whole numbers); what does not apply to one refused in one line.
    """
    from perfeval.cli import regression

    given = getattr(args, "measures_given", True)
    asked = copy.copy(args)
    if not given:
        asked.measures = None  # compare's default (roc) is not a measure named
    args.first_table = _First(args)
    try:
        how = regression.requested(
            asked, specs if given else [], load.path_of(args.files[0]), args.first_table
        )
    except (
        PerfError
    ):  # a table or its columns not as asked: said where the models are read, in compare's words
        how = None
    if how is None:
        return None
    for flag, on in (("--pos-label", args.pos_label is not None), ("--tie-bounds", args.tie_bounds)):
        if on:
            raise InvalidParameterError(f"{flag} does not apply to a regression target ({how})")
    return how


class _First:
    """The first table, read once, on first use: to tell whether its target is a regression target
    (:func:`_regression`), then compared (:func:`_load`).
    """

    def __init__(self, args: Any) -> None:
        self.args, self.table = args, None

    def __call__(self) -> Any:
        if self.table is None:
            args, file = self.args, self.args.files[0]
            keep = len(args.files) > 1 and not (args.id or args.by_position)
            self.table = load.read(args, file, _other_columns(args, file) if keep else None)
        return self.table


def _baseline(args: Any, names: list[str]) -> str:
    if args.baseline is None:
        return names[0]
    if args.baseline not in names:
        same = [n for n in names if os.path.basename(n) == args.baseline]  # a file by its name alone
        if len(same) == 1:
            return same[0]
        raise InvalidParameterError(f"--baseline {args.baseline}: not one of the models ({', '.join(names)})")
    return args.baseline


def _corrected(rows: list[dict], correction: str) -> None:
    """Each row's ``p_adjusted``: its p-value corrected over the models compared on that measure; and
    ``p_adjusted_bound``: whether it is an upper bound, computed from a bootstrap p-value at its floor
    (:func:`perfeval.stats.paired.correct_bounded`).
    """
    for label in dict.fromkeys(r["measure"] for r in rows):
        same = [r for r in rows if r["measure"] == label]
        adj, bound = correct_bounded(
            [r["p_value"] for r in same], [r["p_at_floor"] for r in same], correction
        )
        for r, p, b in zip(same, adj.tolist(), bound.tolist(), strict=True):
            r["p_adjusted"] = float(p)
            r["p_adjusted_bound"] = bool(b)


def run(args: Any) -> int:
    check_ci_options(args)
    classes = None
    if classes_requested(args):  # K classes: a score column a class, a model a table or a prefix
        from perfeval.engine.classes import class_specs

        if args.tie_bounds:
            raise InvalidParameterError(
                "--tie-bounds with K classes: not in compare yet (perfeval eval --tie-bounds gives each "
                "model's ranges)"
            )
        if args.threshold != 0.5:
            raise InvalidParameterError(
                f"-t {args.threshold:g}: a threshold does not apply to K classes (the prediction is the "
                "argmax)"
            )
        default = not args.measures
        specs = class_specs([] if default else resolve(args.measures, 0.5, pending=True), default=default)
        y, models, w, classes = class_inputs(args, specs)
        g = None
    else:
        specs = resolve(args.measures, args.threshold)
        args.regression = _regression(args, specs)
        if args.regression:
            from perfeval.engine.regression import regression_specs

            specs = regression_specs(specs if getattr(args, "measures_given", True) else None)
            load.note(
                f"perfeval: note: regression ({args.regression}): {', '.join(s.label for s in specs)}\n"
            )
        y, models, g, w = inputs(args, specs)
    names = list(models)
    base = _baseline(args, names)
    others = [n for n in names if n != base]
    rows: list[dict] = []
    noted: dict[tuple[str, bool], list[str]] = {}  # (label, infinite): the models it is about
    # every model with the baseline as perfeval.compare(y, model, baseline) gives it, all on one walk;
    # the test of each measure compare's default (DeLong's for the ROC area over all unweighted
    # cases, the bca bootstrap for the others) unless --method forces one
    every = compare_models(
        y,
        {name: models[name] for name in [*others, base]},
        base,
        measures=[sp.label for sp in specs],
        method=args.method,
        level=args.ci,
        n_boot=args.n_boot,
        seed=args.seed,
        groups=g,
        sample_weight=w,
        threshold=args.threshold,
        progress=wanted(args),
        classes=None if classes is None else tuple(range(classes.k)),
        task="regression" if getattr(args, "regression", None) else None,
    )
    comparisons = [c for name in others for c in every[name].values()]
    for name in others:
        for c in every[name].values():
            undefined = not math.isfinite(c.difference)  # an infinite log loss: no test of it
            if undefined:
                values = (c.estimate_a, c.estimate_b)
                which = noted.setdefault((c.label, any(math.isinf(v) for v in values)), [])
                for who, v in ((name, c.estimate_a), (base, c.estimate_b)):
                    if not math.isfinite(v) and who not in which:
                        which.append(who)
            rows.append(
                {
                    "model": name,
                    "baseline": base,
                    "measure": c.label,
                    "baseline_value": c.estimate_b,
                    "model_value": c.estimate_a,
                    "difference": c.difference,
                    "low": c.low,
                    "high": c.high,
                    "level": c.level,
                    "p_value": math.nan if undefined else c.p_value,
                    "p_at_floor": c.p_at_floor and not undefined,
                    "method": c.method,
                    "n_boot": c.n_boot,
                    "se": c.se,
                    "resampled": c.resampled,
                    "seed": c.seed,
                }
            )
    _corrected(rows, args.correction)
    whys = _whys(every, base)
    _say_undefined(noted, whys)
    bounds = _tie_bounds(y, models, base, g, w, specs, args.threshold) if args.tie_bounds else None
    if args.format == "json":
        out: dict = {
            "baseline": base,
            "models": others,
            "correction": args.correction,
            "tests": which_tests(comparisons, args.seed),
            "signature": str(_signature(args, specs, comparisons, w is not None)),
            "comparisons": [_json_row(r, c, whys) for r, c in zip(rows, comparisons, strict=True)],
        }
        if classes is not None:
            out["classes"] = [c.item() if isinstance(c, np.generic) else c for c in classes.labels]
            out["classes_from"] = classes.how
        if bounds is not None:
            out["tie_bounds"] = bounds
        write(dumps(out, indent=2) + "\n")
        return 0
    if args.format == "csv":
        csv_interval_notes(
            [(f"{shown(r['model'])} {c.label}", c) for r, c in zip(rows, comparisons, strict=True)]
        )
        head = list(rows[0]) if rows else []
        lines = [",".join(head)] + [",".join(csv_number(v) for v in r.values()) for r in rows]
        write("\n".join(lines) + "\n")
        return 0
    text = _text(args, specs, rows, base, others, comparisons, bounds, w is not None)
    if classes is not None:  # the classes, and how they were found, above the signature
        lines = text.rstrip("\n").split("\n")
        said = (
            f"classes ({classes.k}): {', '.join(shown(str(c)) for c in classes.labels)} (from {classes.how})"
        )
        text = "\n".join([*lines[:-1], said, lines[-1]]) + "\n"
    write(text)
    return 0


#: a comparison row's fields (compare's JSON and CSV) by the Comparison field they come from
_FIELDS = {
    "baseline_value": "estimate_b",
    "model_value": "estimate_a",
    "difference": "difference",
    "low": "low",
    "high": "high",
    "p_value": "p_value",
    "p_adjusted": "p_value",
    "se": "se",
    "seed": "seed",
}


def _whys(every: dict, base: str) -> dict[tuple[str, str], str]:
    """Why each model's value that is undefined (NaN) is so, by (measure label, model): the reason
    ``perfeval eval`` gives of the same model, as the comparisons carry it (``Comparison.why_a``,
    ``why_b``: :func:`perfeval.compare_models` reads each such model with :func:`perfeval.evaluate`);
    nothing when it gives none.
    """
    out: dict[tuple[str, str], str] = {}
    for name, by in every.items():
        for c in by.values():
            for who, said in ((name, c.why_a), (base, c.why_b)):
                if said:
                    out[(c.label, who)] = said
    return out


def _say_undefined(noted: dict[tuple[str, bool], list[str]], whys: dict[tuple[str, str], str]) -> None:
    """A note for each measure whose value is infinite or undefined for some models (named), so that
    a difference with them has no interval or p-value; why it is undefined as ``eval`` says it
    (``whys``, by measure and model).
    """
    for (label, infinite), which in noted.items():
        one = len(which) == 1
        who = f"the value of model {which[0]} is" if one else f"the values of models {', '.join(which)} are"
        said = [whys.get((label, m)) for m in which]
        if infinite:
            why = (
                f"{who} infinite (log loss: a score of exactly 0 or 1 on the wrong side; "
                "logloss:eps=1e-15 clips)"
            )
        elif all(said) and len(set(said)) == 1:
            why = f"{who} undefined for this data: {said[0]}"
        elif all(said):
            each = "; ".join(f"{m}: {x}" for m, x in zip(which, said, strict=True))
            why = f"{who} undefined for this data ({each})"
        else:
            why = f"{who} undefined for this data (`perfeval list-measures --long` says when)"
        load.note(
            f"perfeval: note: {label}: {why}, so a difference with {'it' if one else 'them'} has no interval "
            "or p-value\n"
        )


def _json_row(r: dict, c: Any, whys: dict[tuple[str, str], str] | None = None) -> dict:
    """A row of the JSON output: every null with its reason beside it (``KEY_why_null``), the
    reasons of :func:`perfeval.stats.intervals.reasons` (model a: the model, b: the baseline); an
    undefined value's reason as ``eval`` gives it (``whys``, by measure and model) where known.
    """
    why = reasons(c)
    said = {
        k: why[f].replace("model a's", "the model's").replace("model b's", "the baseline's")
        for k, f in _FIELDS.items()
        if f in why
    }
    for k, who in (("model_value", r["model"]), ("baseline_value", r["baseline"])):
        if k in said and (whys or {}).get((c.label, who)):
            said[k] = f"{c.label} is undefined for this data: {(whys or {})[(c.label, who)]}"
    if "difference" in said:  # compare gives no p-value of a difference that is not finite
        for k in ("p_value", "p_adjusted"):
            said.setdefault(k, "no test of a difference that is not a finite number: " + said["difference"])
    if c.note:  # the replicates on one side of the difference: not a range around it
        r = {**r, "note": c.note}
    if getattr(c, "left_out", ""):  # the replicates that drew no group with a value
        r = {**r, "left_out": c.left_out}
    if getattr(c, "groups_compared", ""):  # the models defined in different groups: over those of both
        r = {**r, "groups_compared": c.groups_compared}
    return with_reasons(r, said)


def _p_cell(p: float, bound: bool) -> str:
    """A p-value cell: a bound (a bootstrap at its floor) as ``<=0.001998``."""
    return f"<={p_value(p)}" if bound and math.isfinite(p) else p_value(p)


def _notes(rows: list[dict], comparisons: list) -> list[str]:
    """The lines under compare's table about its intervals and tests: those that are NaN and why, not
    around the difference, leaving replicates out, over the groups defined for both models, and a
    p-value at the bootstrap's floor.
    """
    notes: list[str] = []
    named = [(f"{shown(c_row['model'])} {c.label}", c) for c_row, c in zip(rows, comparisons, strict=True)]
    # an infinite difference is said on stderr already
    undefined = undefined_intervals([(k, c) for k, c in named if math.isfinite(c.difference)])
    for what, said in (
        ("nan", undefined),
        ("not around the difference", one_sided(named)),
        ("replicates left out", left_out(named)),
        ("over groups", groups_compared(named)),
    ):
        if said:
            notes.append(f"({what}: {said})")
    if any(r["p_at_floor"] for r in rows):
        floor = min(r["p_value"] for r in rows if r["p_at_floor"])
        why = floor_reason({r["method"] for r in rows if r["p_at_floor"]})
        notes.append(
            f"(<={p_value(floor)}: the bootstrap's least p-value, 2 / (replicates + 1), so a bound, which "
            f"more replicates (--n-boot) can lower: {why})"
        )
    return notes


def _text(
    args: Any,
    specs: list,
    rows: list[dict],
    base: str,
    others: list[str],
    comparisons: list,
    bounds: Any,
    weighted: bool,
) -> str:
    pct = f"{args.ci * 100:g}%"
    several = len(others) > 1
    head = [
        "model",
        "measure",
        "baseline value",
        "model value",
        "model - baseline",
        f"{pct} low",
        f"{pct} high",
    ]
    head.append("p-value")
    if several and args.correction != "none":
        head.append(f"p ({args.correction})")
    head.append("test")
    cells = []
    for r in rows:
        row = [
            shown(r["model"]),
            r["measure"],
            number(r["baseline_value"]),
            number(r["model_value"]),
            number(r["difference"]),
            number(r["low"]),
            number(r["high"]),
            _p_cell(r["p_value"], r["p_at_floor"]),
        ]
        if several and args.correction != "none":
            row.append(_p_cell(r["p_adjusted"], r["p_adjusted_bound"]))
        row.append(r["method"])
        if bounds is not None:
            tb = bounds["measures"][r["measure"]]
            mb, bb = tb["models"][r["model"]], tb["models"][base]
            row += [
                f"{number(mb[0])} .. {number(mb[1])}",
                f"{number(bb[0])} .. {number(bb[1])}",
                {True: "yes", False: "no", None: "-"}[tb["overlap"][r["model"]]],
            ]
        cells.append(row)
    if bounds is not None:
        head += ["model over tie orders", "baseline over tie orders", "ties can reverse"]
    note = which_tests(comparisons, args.seed)
    if several:
        note += (
            "; p-values not corrected for the number of models"
            if args.correction == "none"
            else f"; p ({args.correction}): corrected over the {len(others)} models compared, per measure"
        )
    lines = [f"baseline = {shown(base)} (each model is compared with it: model - baseline)"]
    at = head.index("test")
    lines += table([head, *cells], "ll" + "r" * (at - 2) + "lr")
    lines.append(f"({note})")
    if args.method is None:
        boot = [sp.label for sp in specs if fast_paths(sp).delong_test is not None]
        boot = [lab for lab in boot if any(r["measure"] == lab and r["method"] != "delong" for r in rows)]
        if boot:
            why = (
                "the cases are weighted, and DeLong's variance would read the weights as frequencies"
                if weighted
                else (
                    "the comparison is over groups"
                    if args.group is not None
                    else "DeLong's variance needs two cases of each class"
                )
            )
            lines.append(f"({', '.join(boot)} by the bootstrap, not DeLong's test: {why})")
        from perfeval.stats.regression import MEAN_LOSSES

        means = [sp.label for sp in specs if sp.measure.name in MEAN_LOSSES]
        means = [lab for lab in means if any(r["measure"] == lab and r["method"] != "t" for r in rows)]
        if means:
            why = (
                "the cases are weighted (the t-test reads each case once)"
                if weighted
                else "the comparison is over groups"
                if args.group is not None
                else "it needs two cases"
            )
            lines.append(f"({', '.join(means)} by the bootstrap, not the paired t-test: {why})")

    lines += _notes(rows, comparisons)
    if bounds is not None:
        shares = ", ".join(f"{shown(n)} {number(v)}" for n, v in bounds["tied_pairs"].items())
        lines.append(
            f"tied pairs: {shares} (ties can reverse: the two ranges over every order of the tied cases "
            "overlap)"
        )
    lines.append(signature_line(_signature(args, specs, comparisons, weighted)))
    return "\n".join(lines) + "\n"


def _tie_bounds(y: Any, models: dict, base: str, g: Any, w: Any, specs: list, threshold: float) -> dict:
    """Each model's range of every measure over the orders of its tied cases (perfeval.evaluate with
    tie_bounds=True), whether each model's range overlaps the baseline's, and each model's share of
    tied pairs.
    """
    from perfeval.api.evaluation import evaluate

    reports = {
        n: evaluate(y, s, measures=specs, groups=g, sample_weight=w, threshold=threshold, tie_bounds=True)
        for n, s in models.items()
    }
    measures = {}
    for sp in specs:
        ranges = {}
        for n, r in reports.items():
            x = r.results[sp.label]
            ranges[n] = [float("nan") if v is None else float(v) for v in (x.tie_min, x.tie_max)]
        lo_b, hi_b = ranges[base]
        overlap = {}
        for n, (lo, hi) in ranges.items():
            if n == base:
                continue
            known = not any(math.isnan(v) for v in (lo, hi, lo_b, hi_b))
            overlap[n] = (lo <= hi_b and lo_b <= hi) if known else None
        entry: dict[str, Any] = {"models": ranges, "overlap": overlap}
        # the JSON's reasons of its nulls: a range not a number (or infinite), an overlap not known
        why = {
            n: r.results[sp.label].tie_note
            or why_not_finite(next(v for v in ranges[n] if not math.isfinite(v)), sp.label)
            or "no bound"
            for n, r in reports.items()
            if not all(math.isfinite(v) for v in ranges[n])
        }
        if why:
            entry["models_why_null"] = why
        unknown = {
            n: f"no range to compare: {why.get(n) or why.get(base)}" for n, v in overlap.items() if v is None
        }
        if unknown:
            entry["overlap_why_null"] = unknown
        measures[sp.label] = entry
    pairs = {n: r.tied_pairs for n, r in reports.items()}
    out: dict[str, Any] = {"measures": measures, "tied_pairs": pairs}
    none = {n: "no comparable pair (a positive and a negative)" for n, v in pairs.items() if v is None}
    if none:
        out["tied_pairs_why_null"] = none
    return out


def _signature(args: Any, specs: list, comparisons: list, weighted: bool) -> Any:
    return of_specs(
        specs,
        args.threshold,
        weights=weighted,
        positive=None if args.pos_label is None else repr(getattr(args, "pos_label_read", args.pos_label)),
        ci=ci_text_of(comparisons, args.seed, args.ci),
        classes="regression" if getattr(args, "regression", None) else None,
    )


# -- K classes: a score column a class, a model a table (or a prefix of one table) ------------------------
def classes_requested(args: Any) -> bool:
    """Whether ``compare``'s command line asks for K classes (``--classes`` or ``--score-prefix``)."""
    return bool(getattr(args, "classes", None) or getattr(args, "score_prefix", None))


def _class_model(
    args: Any, table: Any, first: Any, specs: list | None = None
) -> tuple[Any, Any, np.ndarray, np.ndarray, Any]:
    """(columns, classes, target codes, (n, K) scores in ``first``'s class order, weights) of one
    model's columns in ``table``; ``first``: the first model's classes (None for the first); a
    fractional weight where a measure of ``specs`` reads weights as counts (the debiased ECE_TOP):
    one line naming its line, as in ``eval``.
    """
    from perfeval.cli.classes import choose_wide, target_codes

    ch, classes = choose_wide(args, table.names, table.header, table.source)
    used = [ch.target, *ch.scores, *(c for c in (ch.weight,) if c is not None)]
    table.no_nulls(used, empties=False)  # a null first (Parquet); an empty field among the values
    load.say_columns(ch)
    raw = table.get(ch.target, empties=False)
    classes.typed(raw)
    if first is None:
        first = classes
    if sorted(classes.written) != sorted(first.written):
        raise InputFormatError(
            f"the score columns {', '.join(c.name for c in ch.scores)} name the classes "
            f"{', '.join(classes.written)}, the baseline's {', '.join(first.written)}: each model needs a "
            "score column for every class",
            source=table.source,
        )
    codes, *columns, w, _ = load.earliest(
        lambda: target_codes(table, ch.target.name, raw, first),
        *(lambda c=c: load.scores(table, c) for c in ch.scores),
        lambda: load.weights(table, ch.weight, specs),
        lambda: table.no_empties(used),
    )
    s = np.column_stack(columns) if columns else np.zeros((0, first.k))
    s = s[:, [classes.index[c] for c in first.written]]
    return ch, first, codes, s, w


def class_inputs(args: Any, specs: list | None = None) -> tuple[np.ndarray, dict[str, np.ndarray], Any, Any]:
    """(target codes, {model: (n, K) scores}, weights, classes) of ``compare``'s K classes."""
    from perfeval.cli.classes import label_positions, read_table

    if args.group is not None:
        raise InvalidParameterError(
            "--group with K classes: the comparison resamples the cases (per-group measures of K classes "
            "are not compared yet); drop --group"
        )
    args.long, args.class_column, args.pos_label = False, None, None
    prefixes = [p.strip() for p in (args.score_prefix or "").split(",")] if args.score_prefix else []
    if len(args.files) == 1:
        if len(prefixes) < 2:
            raise InvalidParameterError(
                "one table of K classes: --score-prefix BASE_,A_[,B_...] names each model's columns "
                "(BASE_<label>, A_<label>), the baseline first; or give a table a model"
            )
        if args.id or args.by_position:
            raise InvalidParameterError(
                "--id and --by-position pair several tables; one table's rows are together"
            )
        args.file = args.files[0]
        t = read_table(args, label_positions(args, False))
        models: dict[str, np.ndarray] = {}
        first = y = w = None
        for p in prefixes:
            one = copy.copy(args)
            one.score_prefix = p
            _ch, first, codes, s, wp = _class_model(one, t, first, specs)
            if p in models:
                raise InvalidParameterError(f"--score-prefix {args.score_prefix}: {p!r} named twice")
            models[p] = s
            y, w = codes, wp
        assert y is not None and first is not None
        return y, models, w, first
    if len(prefixes) > 1:
        raise InvalidParameterError(
            "with several tables, --score-prefix names one prefix, found in each (a table a model)"
        )
    if len(set(args.files)) != len(args.files):
        raise InvalidParameterError("a table is named twice")
    if args.by_position and args.id:
        raise InvalidParameterError("--by-position and --id: the rows are paired by position or joined by id")
    models = {}
    t0 = ids0 = y0 = w0 = first = None
    for f in args.files:
        one = copy.copy(args)
        one.file = f
        t = read_table(one, label_positions(one, False))
        _ch, first, y, s, w = _class_model(one, t, first, specs)
        if t0 is None:
            t0, y0, w0 = t, y, w
            ids0 = _ids(t, args) if args.id else None
            models[f] = s
            continue
        if ids0 is not None:
            order = _join(args, t0, ids0, t)
            y, s = y[order], s[order]
            w = None if w is None else w[order]
            at = lambda i, order=order, t=t: t.at(int(order[i]))  # noqa: E731
        else:
            at = t.at
            assert y0 is not None
            if len(y) != len(y0):
                raise InputFormatError(
                    f"has {len(y)} rows, {args.files[0]} has {len(y0)}: the models must score the same cases "
                    "in the same order (or name an id column to join them by: --id COLUMN)",
                    source=t.source,
                )
        diff = y != y0
        if diff.any():
            i = int(np.argmax(diff))
            raise InputFormatError(
                f"the target differs from {args.files[0]} ({t0.position(i)}): the models must score the "
                "same cases" + ("" if ids0 is not None else " in the same order (or --id COLUMN joins them)"),
                source=t.source,
                **at(i),
            )
        hint = "" if ids0 is not None else " in the same order, or --id COLUMN joins them"
        _same("weights", w0, w, t.source, args.files[0], t0, at, hint)
        models[f] = s
    assert y0 is not None and first is not None
    return y0, models, w0, first
