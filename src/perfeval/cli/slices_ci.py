"""``perfeval eval --by COL --ci L``: the slices' intervals and the tests of their gaps (docs/slices.md,
"How sure").

With ``--by``, ``--ci`` draws one set of replicates for everything the command prints
(:func:`perfeval.stats.slice_ci`): the overall value's interval (the table's ``ci_low``/``ci_high``),
each slice's (two columns beside each measure in the slices' table), each slice's gap to the overall
value with its interval and p-value, Holm's and Benjamini-Hochberg's over the slicing's slices, and
the intervals of the slicing's gaps (difference, ratio, to the overall value, the worst slice's
value).  The intervals are the percentile bootstrap's (the default here: BCa's acceleration would
need a jackknife a slice) or DeLong's (``--method delong``, the ROC area).  ``--format json``: the
report's JSON, ``slices.intervals`` in it; ``--format csv``: the slices' table gains each measure's
interval and its gap to the overall value.
"""

from __future__ import annotations

import math
from typing import Any

from perfeval.base.text import decimals, shown
from perfeval.exceptions import InvalidParameterError

# the statistics are imported where intervals are asked (`perfeval eval --by` alone loads none).

#: why the overall value's interval is a percentile one when --by and --ci are given without --method
WHY_PERCENTILE = (
    "percentile: with --by, one set of replicates gives the overall value's and every slice's interval "
    "(BCa's acceleration would need a jackknife a slice)"
)

#: the gaps of the slicing printed with their intervals, and the names they are printed under
GAP_ROWS = (
    ("difference", "difference"),
    ("ratio", "ratio"),
    ("difference_to_overall", "diff_to_overall"),
    ("ratio_to_overall", "ratio_to_overall"),
    ("worst", "worst_value"),
)


def check_options(args: Any, by: list[str]) -> None:
    """``--by`` with ``--ci``: the percentile bootstrap or DeLong's (one line for another method), in
    memory (the slices' intervals resample the cases).
    """
    if not by or getattr(args, "ci", None) is None:
        return
    if args.method not in (None, "percentile", "delong"):
        raise InvalidParameterError(
            f"--by with --ci: the slices' intervals are the percentile bootstrap's or DeLong's, not "
            f"{args.method}'s (BCa's acceleration would need a jackknife a slice); --method percentile "
            "or delong"
        )
    for flag, on in (("--stream", args.stream), ("--dask", args.dask)):
        if on:
            raise InvalidParameterError(
                f"--by with --ci evaluates in memory (the slices' intervals resample the cases): drop {flag}"
            )


def attach(args: Any, report: Any, measures: list, progress: bool) -> None:
    """The slices' intervals of ``report`` (kept as ``report.slices.intervals``), and the overall
    value's from the same replicates as ``report.intervals``.
    """
    from perfeval.stats import slice_ci

    labels = [m for m in report.slices.measures if m in {s.label for s in measures}]
    c = slice_ci(
        report,
        measures=labels,
        method=args.method or "percentile",
        level=args.ci,
        n_boot=args.n_boot,
        seed=args.seed,
        skip_flagged=report.slices.min_size is not None,  # --min-size: the small slices left out
        progress=progress,
    )
    report.intervals = dict(c.overall)
    if args.method is None:
        report.interval_why = WHY_PERCENTILE


def _said(why: str) -> str:
    """A reason in the command's words (its options, not Python's arguments)."""
    from perfeval.stats.slices import NOT_TESTED, REMEDY

    return why.replace(REMEDY, "--min-size N: with --ci the slices below it are left out").replace(
        NOT_TESTED, "below --min-size: not tested"
    )


def _flagged_out(report: Any, si: Any) -> str:
    """The slices below --min-size left out of the gaps' intervals and the tests, in words ('' if none)."""
    n = int(si.flagged.sum())
    if not n or not getattr(report.slices.intervals, "skip_flagged", False):
        return ""
    names = ", ".join(shown(_key(k)) for k, f in zip(si.keys, si.flagged, strict=True) if f)
    return f"the {n} slice{'' if n == 1 else 's'} below --min-size {report.slices.min_size} left out: {names}"


def _names(names: list[str]) -> str:
    """Up to five names, then how many in all (the JSON lists every reason)."""
    return ", ".join(names[:5]) + (f", ... ({len(names)} in all)" if len(names) > 5 else "")


def _cell(v: float) -> str:
    return "n/a" if math.isnan(v) else decimals(v)


def widen(rows: list[list[str]], report: Any, s: Any) -> list[list[str]]:
    """The slices' table of slicing ``s`` (header first, each measure's column last) with each
    measure's interval beside it, ``<measure>_low`` and ``<measure>_high``.
    """
    c = getattr(report.slices, "intervals", None)
    if c is None:
        return rows
    ms = c.slicing(s.name).measures
    k = len(report.slices.measures)
    out = []
    for j, row in enumerate(rows):
        head, cells = row[: len(row) - k], row[len(row) - k :]
        new = list(head)
        for m, cell in zip(report.slices.measures, cells, strict=True):
            new.append(cell)
            if m in ms:
                new += (
                    [f"{m}_low", f"{m}_high"]
                    if j == 0
                    else [_cell(float(ms[m].low[j - 1])), _cell(float(ms[m].high[j - 1]))]
                )
        out.append(new)
    return out


def _key(key: Any) -> str:
    return " x ".join(map(str, key)) if isinstance(key, tuple) else str(key)


def _p(p: float, bound: bool) -> str:
    from perfeval.cli.output import p_value

    return f"<={p_value(p)}" if bound and math.isfinite(p) else p_value(p)


def lines(report: Any, s: Any) -> list[str]:
    """Under slicing ``s``'s gaps: each slice's gap to the overall value with its interval and its
    tests, then the intervals of the slicing's gaps; why an interval or a test is missing.
    """
    from perfeval.cli.output import table

    c = getattr(report.slices, "intervals", None)
    if c is None:
        return []
    from perfeval.stats.slices import SAME_IN_EVERY

    si = c.slicing(s.name)
    out: list[str] = []
    same = [
        f"{shown(_key(si.keys[i]))} {m}"
        for m, mi in si.measures.items()
        for i, w in mi.why.items()
        if w == SAME_IN_EVERY
    ]
    if same:
        out.append(f"({_names(same)}: {SAME_IN_EVERY})")
    rows = [["slice", "measure", "difference", "ci_low", "ci_high", "p", "p_holm", "p_bh"]]
    why: dict[str, list[str]] = {}
    floors: list[float] = []
    for m, mi in si.measures.items():
        g = mi.to_overall
        fam = [float(p) for p, f in zip(g.p, g.at_floor, strict=True) if f]
        floors += fam
        for i, key in enumerate(si.keys):
            p = float(g.p[i])
            # Holm's adjusted value reads the p-values at or below its own: a bound if one is
            holm_bound = math.isfinite(p) and any(f <= p for f in fam)
            rows.append(
                [
                    shown(_key(key)) + ("*" if si.flagged[i] else ""),
                    m,
                    _cell(float(g.estimate[i])),
                    _cell(float(g.low[i])),
                    _cell(float(g.high[i])),
                    _p(p, bool(g.at_floor[i])),
                    _p(float(g.p_holm[i]), holm_bound),
                    _p(float(g.p_bh[i]), bool(g.at_floor[i])),
                ]
            )
            reason = g.why.get(i)
            if reason and not reason.startswith("no value"):
                why.setdefault(_said(reason), []).append(f"{shown(_key(key))} {m}")
    n_tested = {m: sum(math.isfinite(float(p)) for p in mi.to_overall.p) for m, mi in si.measures.items()}
    counts = set(n_tested.values())
    left = _flagged_out(report, si)
    family = (
        f"the {counts.pop()} slices tested"
        if len(counts) == 1
        else "the slices tested (" + ", ".join(f"{m}: {n}" for m, n in n_tested.items()) + ")"
    )
    out += [
        "",
        f"gaps to the overall value by {shown(s.name)} (p: two-sided, for no gap; p_holm, p_bh: Holm's "
        f"and Benjamini-Hochberg's over {family}" + (f"; {left}" if left else "") + "):",
    ]
    out += table(rows, "ll")
    out += [f"({_names(names)}: {reason})" for reason, names in why.items()]
    if floors:
        out.append(
            f"(<={_p(min(floors), False)}: no replicate on the far side of zero, so the bootstrap's least "
            "p-value, 2 / (replicates + 1): a bound, which more replicates (--n-boot) can lower)"
        )
    if c.method == "delong":  # no interval of a maximum over slices: one line, not a table of n/a
        out += [
            "",
            f"gap intervals by {shown(s.name)}: none with DeLong's method, which gives intervals of each "
            "slice and of a gap between two; the difference, ratio and worst slice's value are a maximum "
            "or minimum over slices: --method percentile gives their intervals",
        ]
        return out
    grows = [["measure", "gap", "value", "ci_low", "ci_high", "slice"]]
    gwhy: dict[str, list[str]] = {}
    for m, mi in si.measures.items():
        for gap, name in GAP_ROWS:
            d = mi.gaps[gap]
            key = d.get("slice")
            if gap == "worst" and c.directions.get(m, "none") == "none":  # no worst slice: said above
                grows.append([m, name, "-", "-", "-", "-"])
                continue
            grows.append(
                [
                    m,
                    name,
                    _cell(float(d["estimate"])),
                    _cell(float(d["low"])),
                    _cell(float(d["high"])),
                    "-" if key is None else shown(_key(key)),
                ]
            )
            if d.get("why"):
                gwhy.setdefault(_said(d["why"]), []).append(f"{m} {name}")
    left = _flagged_out(report, si)
    out += ["", f"gap intervals by {shown(s.name)}" + (f" ({left})" if left else "") + ":"]
    out += table(grows, "ll")
    out += [f"({_names(names)}: {reason})" for reason, names in gwhy.items()]
    return out


def csv_head(report: Any) -> list[str]:
    """The slices' CSV columns of the intervals (none without them): each measure's ``_low``,
    ``_high``, its gap to the overall value (``_to_overall``, ``_low``, ``_high``) and tests (``_p``,
    ``_p_holm``, ``_p_bh``).
    """
    c = getattr(report.slices, "intervals", None)
    if c is None:
        return []
    out = []
    for m in c.measures:
        out += [f"{m}_low", f"{m}_high", f"{m}_to_overall", f"{m}_to_overall_low", f"{m}_to_overall_high"]
        out += [f"{m}_p", f"{m}_p_holm", f"{m}_p_bh"]
    return out


def csv_cells(report: Any, s: Any, i: int) -> list[str]:
    """Slice ``i`` of slicing ``s``'s cells of :func:`csv_head`'s columns."""
    from perfeval.cli.output import csv_number

    c = getattr(report.slices, "intervals", None)
    if c is None:
        return []
    si = c.slicing(s.name)
    out = []
    for m in c.measures:
        mi = si.measures[m]
        g = mi.to_overall
        vals = [mi.low[i], mi.high[i], g.estimate[i], g.low[i], g.high[i], g.p[i], g.p_holm[i], g.p_bh[i]]
        out += [csv_number(float(v)) for v in vals]
    return out
