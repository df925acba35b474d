"""A whole evaluation in one self-contained HTML file: metrics, per-group table, every plot
(embedded PNG), the input's summary, and the exact command and version that made it.

The operating points' section (when the measures asked pick one: each point's value, threshold,
intervals and place on its curve, the curves with the points marked) and the page of a regression
target (:func:`build_regression`) are sections of their own at the end of this module.

K classes (a score column a class, :func:`build_classes`, :func:`classes_report`): the measures
(each label with its average), the per-class table (support, each averaged measure's value a class,
the classes where a measure is undefined and why), the one-vs-rest ROC and precision / recall curves
of every class on one chart each (with the micro-averaged curve), and the confusion matrix of the
argmax (counts and row-normalised) as heatmaps.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import functools
import html
import io
import math
import re
import warnings
from typing import Any

import numpy as np

from perfeval._version import __version__
from perfeval.api.evaluation import evaluate
from perfeval.base.checks import to_numpy
from perfeval.base.text import decimals, shown
from perfeval.engine import DEFAULT_MEASURES
from perfeval.exceptions import UndefinedMeasureWarning, user_stacklevel
from perfeval.measures import parse_measure
from perfeval.measures.probability import ZERO_PROBABILITY, zero_probability_cases
from perfeval.plot import TITLES, CurveDisplay, plot_by_group
from perfeval.stats import ci as _ci
from perfeval.stats.api import compare_models
from perfeval.stats.intervals import floor_reason, one_sided, reasons, undefined_intervals, which_tests
from perfeval.stats.paired import correct_bounded
from perfeval.stats.replicates import shared_jackknife

# matplotlib is optional (perfeval[plot]): imported where a figure is drawn.

PLOTS = ("roc", "pr", "lift", "calibration", "acc", "cost")

#: how many CSS pixels an inch of a figure is drawn at (every figure, so their text has one size)
PX_PER_INCH = 104
#: the resolution of the embedded PNGs (about 1.4 image pixels a CSS pixel: sharp on most screens)
DPI = 150

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1200px;
     padding:0 1em;color:#222}
h1{font-size:1.6em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
h3{font-size:1em;margin:1.2em 0 .3em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em} table.grouped{font-size:.85em}
th,td{padding:.25em .6em;border-bottom:1px solid #eee}
th{text-align:left;background:#f6f6f6;vertical-align:bottom} th.sub{font-weight:normal;font-size:.85em}
th.model{text-align:center;border-left:2px solid #fff}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.undef{color:#888} .ci{color:#666;font-size:.85em}
td.key{font-variant-numeric:tabular-nums;white-space:nowrap}
td.first{border-left:2px solid #f0f0f0}
.meta{color:#555;font-size:.9em} code{background:#f3f3f3;padding:.1em .3em;border-radius:3px}
ul.notes{color:#555;font-size:.9em;margin:.3em 0;padding-left:1.2em} ul.notes li{margin:.2em 0}
.scroll{overflow-x:auto;max-width:100%}
.tall{max-height:24em;overflow-y:auto;border:1px solid #eee}
.tall table{margin:0} .tall th{position:sticky;top:0;z-index:1}
.tall td.key{position:sticky;left:0;background:#fff} .tall th:first-child{left:0;z-index:2}
.plots{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:24px 16px;align-items:start}
.plots figure{margin:0;display:flex;flex-direction:column;align-items:center;min-width:0}
.plots figure.wide{grid-column:1/-1} .plots figure.wide img{width:100%}
.plots img{max-width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#555;text-align:center;margin-top:.4em;max-width:100%}
@media (max-width:800px){.plots{grid-template-columns:minmax(0,1fr)}}
"""


def _png(fig: Any) -> tuple[str, int, int]:
    """The figure as base64 PNG, and the CSS size it is shown at (PX_PER_INCH an inch)."""
    import matplotlib.pyplot as plt

    w, h = fig.get_size_inches()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii"), round(w * PX_PER_INCH), round(h * PX_PER_INCH)


def _figure(kind: str, png: tuple[str, int, int], caption: str, *, wide: bool = False) -> str:
    """A plot with its caption; its alternative text says what the plot is (its caption's text)."""
    import re

    data, w, h = png
    alt = html.escape(html.unescape(re.sub(r"<[^>]*>", "", caption)), quote=True)
    return (
        ("<figure class='wide'>" if wide else "<figure>")
        + f"<img alt='{alt or _esc(kind)}' width='{w}' height='{h}' data-dpi='{DPI}' "
        f"data-kind='{_esc(kind)}' src='data:image/png;base64,{data}'>"
        f"<figcaption>{caption}</figcaption></figure>"
    )


def _esc(text: Any) -> str:
    r"""Text of the page from the user (a column, model or group name, a command line): every control
    character shown escaped (``\x1b``, ``\n``: :func:`perfeval.base.text.shown`), never written raw,
    then HTML-escaped.
    """
    return html.escape(shown(str(text)))


def _fmt(v: float) -> str:
    if math.isinf(v):
        return "+infinity" if v > 0 else "-infinity"
    return "undefined" if math.isnan(v) else decimals(v)


def _cell(v: Any, why: str | None = None) -> str:
    """A table cell of ``v``; a value that is not a number says ``why`` (if known) in its title."""
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            title = f' title="{_esc(why)}"' if why else ""
            return f'<td class="num undef"{title}>{_fmt(float(v))}</td>'
        return f'<td class="num">{decimals(float(v))}</td>'
    if isinstance(v, (int, np.integer)):
        return f'<td class="num">{v:,}</td>'
    return f"<td>{_esc(str(v))}</td>"


def _group_whys(r: Any) -> dict[Any, str]:
    """Each undefined group's reason (its key as the report shows it), where the result says it."""
    whys = list(getattr(r, "undefined_groups_why", None) or [])
    if not r.undefined or len(whys) != len(r.undefined):
        return {}
    return {_plain(k): why for k, why in zip(r.undefined, whys, strict=True) if why}


def _why_groups(rep: Any, labels: list[str]) -> str:
    """Under a per-group table: why each measure is undefined in the groups where it is, the groups
    counted by reason (the reason's words before its first colon: its counts differ from group to
    group; each cell's title gives its group's own), as ``perfeval eval --group`` says it.
    """
    items = []
    for lab in labels:
        r = rep.results[lab]
        if r.per_group is None or not r.undefined:
            continue
        whys = _group_whys(r)
        if not whys:
            continue
        heads: dict[str, int] = {}
        for why in whys.values():
            head = why.split(": ")[0]
            heads[head] = heads.get(head, 0) + 1
        n = len(r.undefined)
        said = (
            next(iter(heads))
            if len(heads) == 1
            else "; ".join(f"{c:,} {'group' if c == 1 else 'groups'}: {h}" for h, c in heads.items())
        )
        groups = f"{n:,} {'group' if n == 1 else 'groups'}"
        items.append(f"<li><b>{_esc(lab)}</b> is undefined in {groups} ({_esc(said)})</li>")
    if not items:
        return ""
    return "<ul class='notes group-whys'>" + "".join(items) + "</ul>"


def _table(head: list[str], rows: list[list[Any]], cls: str = "") -> str:
    out = [
        f'<div class="scroll"><table class="{cls}"><tr>'
        + "".join(f"<th>{_esc(h)}</th>" for h in head)
        + "</tr>"
    ]
    out += ["<tr>" + "".join(_cell(v) for v in r) + "</tr>" for r in rows]
    return "\n".join(out) + "</table></div>"


def _plain(key: Any) -> Any:
    """A group key as Python would print it (numpy scalars unwrapped)."""
    return key.item() if isinstance(key, np.generic) else key


class _Groups:
    """The groups of the input: keys (sorted, as in a grouped Report), rows and positives of each."""

    def __init__(self, y: np.ndarray, g: np.ndarray, w: np.ndarray | None = None):
        if w is not None:  # a case of weight 0 is no case
            y, g = y[w != 0], g[w != 0]
        keys, inv = np.unique(g, return_inverse=True)
        self.keys = [_plain(k) for k in keys]
        self.rows = np.bincount(inv, minlength=len(keys))
        self.pos = np.bincount(inv, weights=(np.asarray(y, dtype=float) > 0), minlength=len(keys))
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.no_pos = int(np.sum(self.pos == 0))
        self.no_neg = int(np.sum(self.pos == self.rows))

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def one_class(self) -> int:
        return self.no_pos + self.no_neg

    def one_class_text(self) -> str:
        if not self.one_class:
            return "none"
        return f"{self.one_class:,} ({self.no_pos:,} without a positive, {self.no_neg:,} without a negative)"


def _input_table(
    y: np.ndarray,
    groups: _Groups | None,
    models: dict[str, Any],
    source: str,
    threshold: float,
    w: np.ndarray | None = None,
    slicings: list | None = None,
    pos_label: Any = None,
) -> str:
    yy = np.asarray(y, dtype=float)
    kept = slice(None) if w is None else np.asarray(w) != 0
    summary: list[list[Any]] = [
        ["source", source or "(arrays)"],
        ["rows", int(len(yy[kept]))],
        ["positives", int((yy[kept] > 0).sum())],
        ["negatives", int((yy[kept] <= 0).sum())],
    ]
    if pos_label is not None:  # the labels were coded: which one is positive
        summary.insert(2, ["positive label", f"{pos_label!r} (the other labels negative)"])
    if w is not None:
        ww = np.asarray(w, dtype=float)
        dropped = int(np.sum(ww == 0))
        summary.append(
            [
                "weights",
                f"{ww.sum():.6g} in all: positives {ww[yy > 0].sum():.6g}, negatives {ww[yy <= 0].sum():.6g}"
                + (f" ({dropped:,} rows of weight 0 left out)" if dropped else ""),
            ]
        )
    if groups is not None:
        summary.append(["groups", len(groups)])
        summary.append(["rows per group", f"{int(groups.rows.min()):,} .. {int(groups.rows.max()):,}"])
        summary.append(["one-class groups", groups.one_class_text()])
    for name, s in models.items():
        ss = np.asarray(to_numpy(s, "y_score"), dtype=float)
        summary.append([f"score range ({name})", f"{ss.min():.6g} .. {ss.max():.6g}" if len(ss) else "empty"])
    if slicings:
        summary.append(["slices", "; ".join(f"{s.name}: {len(s):,}" for s in slicings)])
    summary.append(["threshold", f"{threshold:g}"])
    return _table(["", "value"], summary, "summary")


def _positive(pos_label: Any, reports: list) -> None:
    """The label the targets' 1 stands for, when the caller coded labels 0/1, set in each report's
    parameters (``None``: not coded; no report there): its signature says it, as eval's does.
    """
    if pos_label is None:
        return
    for r in reports:
        if r is not None:
            r.params["pos_label"] = pos_label


def _kind(label: str) -> str:
    """The measure's kind: "binary", "ranking" (per query) or "grouped" (over groups only)."""
    return parse_measure(label).measure.kind


def _value_cell(shown: tuple[float, Any], attrs: str) -> str:
    """A headline value, with its confidence interval under it when there is one."""
    v, iv = shown
    cls = "num undef" if not math.isfinite(v) else "num"
    ci = "" if iv is None else f"<br><span class='ci'>[{_fmt(iv.low)}, {_fmt(iv.high)}]</span>"
    return f"<td class='{cls}' {attrs}>{_fmt(v)}{ci}</td>"


def _measures_grouped(
    labels: list[str],
    reports: dict[str, Any],
    overall: dict[str, Any],
    shown: Any,
    n_groups: int,
) -> str:
    """The headline table over groups: per model, the value over all rows pooled, the mean over the
    groups, and how many groups the mean counts.
    """
    first = next(iter(reports.values()))
    esc = _esc
    out = [
        '<div class="scroll"><table class="measures grouped">',
        "<tr><th rowspan='2'>measure</th><th rowspan='2'>better</th>"
        + "".join(f"<th class='model' colspan='3' data-model='{esc(m)}'>{esc(m)}</th>" for m in reports)
        + "</tr>",
        "<tr>" + "<th class='sub' data-col='overall'>overall<br>(all rows pooled)</th>"
        "<th class='sub' data-col='mean'>mean over groups</th>"
        "<th class='sub' data-col='groups'>groups counted</th>" * len(reports) + "</tr>",
    ]
    for lab in labels:
        res = first.results[lab]
        cells = [f"<td>{esc(lab)}</td>", f"<td>{esc(res.direction)}</td>"]
        for m, rep in reports.items():
            attrs = f"data-model='{esc(m)}' data-measure='{esc(lab)}'"
            ov = overall[m].results.get(lab) if overall.get(m) is not None else None
            if ov is None:
                cells.append(
                    f"<td class='num undef first' {attrs} data-col='overall' "
                    "title='defined over groups only'>over groups only</td>"
                )
            else:
                v = ov.value
                cls = "num undef first" if math.isnan(v) else "num first"
                cells.append(f"<td class='{cls}' {attrs} data-col='overall'>{_fmt(v)}</td>")
            r = rep.results[lab]
            cells.append(_value_cell(shown(m, lab), f"{attrs} data-col='mean'"))
            counted = int(np.sum(~np.isnan(np.asarray(r.per_group, dtype=float))))
            cells.append(
                f"<td class='num' {attrs} data-col='groups' data-counted='{counted}'>"
                f"{counted:,} of {n_groups:,}</td>"
            )
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out) + "</table></div>"


def _aggregate(label: str) -> str:
    return parse_measure(label).measure.aggregate


def _measures_plain(labels: list[str], reports: dict[str, Any], shown: Any) -> str:
    """The headline table without groups: each model's value over all rows."""
    first = next(iter(reports.values()))
    esc = _esc
    out = [
        '<div class="scroll"><table class="measures">',
        "<tr><th>measure</th><th>better</th>"
        + "".join(f"<th class='model' data-model='{esc(m)}'>{esc(m)}</th>" for m in reports)
        + "</tr>",
    ]
    for lab in labels:
        cells = [f"<td>{esc(lab)}</td>", f"<td>{esc(first.results[lab].direction)}</td>"]
        for m in reports:
            attrs = f"data-model='{esc(m)}' data-measure='{esc(lab)}' data-col='overall'"
            cells.append(_value_cell(shown(m, lab), attrs))
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out) + "</table></div>"


def _models_ci(
    y: Any, models: dict[str, Any], labels: list[str], level: float, method: str | None, **options: Any
) -> dict[str, dict]:
    """Each model's :func:`perfeval.ci` of the measures ``labels`` (``options``: its other keywords).
    Of several models, ci's warning of the groups where a measure is undefined (which names no
    model) is not said, as the comparison says each model's, named (``ROC of s is undefined for
    ...``); of one model, said named the same way.
    """
    out: dict[str, dict] = {}
    for name, s in models.items():
        with warnings.catch_warnings(record=len(models) == 1) as seen:
            if len(models) > 1:
                warnings.filterwarnings("ignore", _UNDEFINED_GROUPS.pattern, UndefinedMeasureWarning)
            out[name] = _ci(y, s, measures=labels, method=method or "bca", level=level, **options)
        for w in seen or ():  # one model's: said again, the groups' warning naming the model
            said = w.message
            if isinstance(said, UndefinedMeasureWarning) and (m := _UNDEFINED_GROUPS.match(str(said))):
                said = UndefinedMeasureWarning(f"{m[1]} of {name}{str(said)[m.end(1) :]}")
            warnings.warn(said, stacklevel=user_stacklevel())
    return out


#: ci's warning of the groups where a measure is undefined (its label the first group)
_UNDEFINED_GROUPS = re.compile(r"(\S+) is undefined for \d+ of \d+ groups")


def _comparisons(
    y: np.ndarray,
    models: dict[str, Any],
    labels: list[str],
    g: Any,
    w: Any,
    ci: float,
    method: str | None,
    n_boot: int,
    seed: int,
    threshold: float,
    progress: bool = False,
) -> list[str]:
    """Each model against the first: a paired bootstrap of every measure (every model on one walk,
    :func:`perfeval.stats.compare_models`: the numbers of one compare() per model).
    """
    names = list(models)
    base = names[0]
    # a score threshold (of=threshold) says nothing of which model is better: not compared (as
    # `perfeval compare` refuses it); its interval is in the measures table
    labels = [lab for lab in labels if parse_measure(lab).kwargs.get("of") != "threshold"]
    if not labels:
        return []
    crow = []
    every = compare_models(
        y,
        models,
        base,
        measures=labels,
        method=method,  # None: compare's default, DeLong's test for the ROC area, the bootstrap else
        level=ci,
        n_boot=n_boot,
        seed=seed,
        groups=g,
        threshold=threshold,
        sample_weight=w,
        progress=progress,
    )
    several = len(names) > 2
    holm: dict[tuple[str, str], float] = {}
    bound: dict[tuple[str, str], bool] = {}
    if several:  # each measure's p-values corrected over the models compared, as `perfeval compare`
        for lab in labels:
            ps = [every[o][lab].p_value for o in names[1:]]
            adj, bounds = correct_bounded(ps, [every[o][lab].p_at_floor for o in names[1:]], "holm")
            for o, a, b in zip(names[1:], adj.tolist(), bounds.tolist(), strict=True):
                holm[(o, lab)] = float(a)
                bound[(o, lab)] = bool(b)  # Holm's from a bound is a bound where a floor's term holds it
    floored = []
    floor_methods: set[str] = set()
    for other in names[1:]:
        res = every[other]
        for lab, c in res.items():
            row = [
                lab,
                f"{other} - {base}",
                c.difference,
                f"[{_fmt(c.low)}, {_fmt(c.high)}]",
                _p(c.p_value, c.p_at_floor),
            ]
            if several:
                row.append(_p(holm[(other, lab)], bound[(other, lab)]))
            row.append(c.method)
            if c.p_at_floor:
                floored.append(c.p_value)
                floor_methods.add(c.method)
            crow.append(row)
    what = (
        "the difference of the means over groups (whole groups resampled)"
        if g is not None
        else "the difference over all rows"
    )

    tests = which_tests([c for o in names[1:] for c in every[o].values()], seed)
    head = ["measure", "models", "difference", f"{ci * 100:g}% interval", "p-value"]
    if several:
        head.append("p (holm)")
    head.append("test")
    corrected = (
        "; p (holm): corrected over the models compared with the baseline on that measure" if several else ""
    )
    floor = (
        f" &le;{min(floored):.4g}: the least p-value the bootstrap gives (2 / (replicates + 1)), a bound, "
        f"which more replicates can lower: {html.escape(floor_reason(floor_methods))}."
        if floored
        else ""
    )

    undefined: dict[str, list[str]] = {}  # why a difference, an interval or a p-value is undefined
    for other in names[1:]:
        for lab, c in every[other].items():
            why = reasons(c)
            text = why.get("difference") or why.get("low") or why.get("p_value")
            if text:  # compare(y, model, baseline)'s a and b, by their names
                text = text.replace("model a's", f"{other}'s").replace("model b's", f"{base}'s")
                undefined.setdefault(text, []).append(f"{lab} ({other} - {base})")
    out = [
        f"<h2>Comparisons with {_esc(base)}</h2>",
        f"<p class='meta'>{_esc(tests[:1].upper() + tests[1:])}, on the same cases: {what}, its interval, "
        f"and the two-sided p-value of no difference{corrected}.{floor}</p>",
        _table(head, crow, "comparisons"),
    ]
    if undefined:
        out.append(
            "<p class='meta'><i>undefined</i>: "
            + "; ".join(f"{_esc(', '.join(where))}: {_esc(why)}" for why, where in undefined.items())
            + ".</p>"
        )
    aside = one_sided(
        [(f"{lab} ({other} - {base})", c) for other in names[1:] for lab, c in every[other].items()]
    )
    if aside:
        out.append(f"<p class='meta'><i>Not around the difference</i>: {_esc(aside)}.</p>")
    return out


def _p(p: float, bound: bool) -> str:
    """A p-value cell of the report: a bootstrap's at its floor as a bound (``≤0.001998``)."""
    if math.isnan(p):
        return "undefined"
    if not bound and p < 1e-300:  # underflowed (DeLong's, far in the tail): as the command shows it
        return "<1e-300"
    return f"\u2264{p:.4g}" if bound else f"{p:.4g}"


def _tie_bounds(reports: dict[str, Any], labels: list[str], grouped: bool) -> list[str]:
    """Each measure's range over the orders of the tied cases, per model, and the tied pairs."""

    def span(r: Any) -> str:
        if r.tie_min is None or np.isnan(r.tie_min):
            return "no exact bound" if r.tie_note else "-"
        return f"{_fmt(r.tie_min)} \u2013 {_fmt(r.tie_max)}"

    rows = [[lab] + [span(rep.results[lab]) for rep in reports.values()] for lab in labels]
    rows.append(["tied pairs"] + [_fmt(rep.tied_pairs) for rep in reports.values()])
    head = ["measure", *reports]
    over = (
        " Over groups, the bounds are those of the mean over groups (the mean of the groups' bounds), "
        "and the tied pairs are counted within groups."
        if grouped
        else ""
    )
    return [
        "<h2>Tie bounds</h2>",
        "<p class='meta'>The least and the greatest value of each measure over every order of the tied "
        "cases (exact), and the share of the comparable pairs whose scores are tied: whether ties can "
        f"move the ranking of the models.{over}</p>",
        _table(head, rows, "tie-bounds"),
    ]


def _per_group(
    reports: dict[str, Any], labels: list[str], groups: _Groups, column: str, max_rows: int
) -> list[str]:
    """Every model's value of every measure in each group (at most ``max_rows`` groups a model)."""
    esc = _esc
    n = len(groups)
    note = f" (the first {max_rows:,} of {n:,} groups, by key)" if n > max_rows else ""
    out = [
        "<h2>Per group</h2>",
        f"<p class='meta'>Each group's value of every measure, one table a model{note}, as "
        f"<code>perfeval eval --group {esc(column)} --per-group</code> prints it; "
        "<i>undefined</i>: the measure is not defined in the group (e.g. one class only) and is left "
        "out of the mean over groups; why: under each table, and each such cell's title.</p>",
    ]
    for m, rep in reports.items():
        keys = [_plain(k) for k in rep.groups]
        per_group = {lab: np.asarray(rep.results[lab].per_group, dtype=float) for lab in labels}
        whys = {lab: _group_whys(rep.results[lab]) for lab in labels}
        rows = []
        for i, k in enumerate(keys[:max_rows]):
            j = groups.index[k]
            cells = [
                f"<td class='key'>{esc(str(k))}</td>",
                _cell(int(groups.rows[j])),
                _cell(int(groups.pos[j])),
            ] + [_cell(float(per_group[lab][i]), whys[lab].get(k)) for lab in labels]
            rows.append("<tr>" + "".join(cells) + "</tr>")
        head = "".join(f"<th>{esc(h)}</th>" for h in ["group", "rows", "positives", *labels])
        out += [
            f"<h3>{esc(m)}</h3>",
            f"<div class='scroll tall' data-model='{esc(m)}'><table class=\"groups\"><tr>{head}</tr>\n"
            + "\n".join(rows)
            + "</table></div>",
            _why_groups(rep, labels),
        ]
    return out


CAPTIONS = {
    "roc": "legend: each model's ROC area, the <i>overall</i> ROC of the table",
    "pr": "legend: each model's AP (average precision, the AP measure; PERF's APR differs)",
    "lift": "precision over the base rate against the share predicted positive",
    "acc": "the accuracy at every threshold",
    "cost": "errors (false positives + false negatives) at every threshold",
}


def _calibration_measure(labels: list[str]) -> str | None:
    """The calibration error whose bins the report's reliability diagram draws: the first ECE or MCE
    of the measures table (its label), or None (PERF's 19 bins, CA1's).
    """
    for lab in labels:
        try:
            spec = parse_measure(lab.split("[")[0])
        except Exception:  # a partition's label
            continue
        if spec.measure.name in ("ECE", "MCE"):
            return spec.label
    return None


def _calibration_caption(band: dict[str, Any]) -> str:
    """The calibration plot's caption: its bins (the ECE's of the table, or PERF's) and its band's
    level and draws.
    """
    from perfeval.curves import binning_text

    level = float(band.get("band_level", 0.9))
    if band.get("band", "outcomes") == "pairs":
        how = "the cases' scores drawn with replacement, then each one's outcome from it"
    else:
        how = "each case's outcome redrawn from its score"
    measure = band.get("measure")
    if measure:
        kw = parse_measure(measure).kwargs
        bins = (
            f"{binning_text(kw['bins'], kw['n_bins'])}, the very bins whose gaps to the diagonal "
            f"<code>{_esc(measure)}</code> combines (its value over all rows, as in the table, in the "
            "legend)"
        )
    else:
        bins = "PERF's 19 overlapping CA1 bins (ask for <code>-m ECE</code> to draw ECE's)"
    return (
        f"{bins}; the bars: where a calibrated model's bins would fall "
        f"({level * 100:g}% consistency band, Br&ouml;cker &amp; Smith 2007: {how})"
    )


def _classes(y: np.ndarray, w: Any) -> tuple[float, float]:
    """The positives and negatives of the input (weighted; a case of weight 0 is none)."""
    yy = np.asarray(y, dtype=float) > 0
    ww = np.ones(len(yy)) if w is None else np.asarray(w, dtype=float)
    return float(ww[yy].sum()), float(ww[~yy].sum())


def _value_notes(
    labels: list[str],
    reports: dict[str, Any],
    y: np.ndarray,
    models: dict[str, Any],
    w: Any,
    overall: dict[str, Any] | None = None,
) -> str:
    """Why a value of the measures table is not a number, as ``perfeval eval`` says it: the input of
    one class, an infinite log loss (the cases that give their own class a probability of 0, the
    first named), a measure undefined for the data (its edge cases), a mean over groups infinite in
    a group; with groups, the value over all rows pooled too (``overall``: each model's report
    without groups, as ``perfeval eval`` without ``--group`` says it).  Empty when every value is a
    number.
    """
    esc = _esc
    notes: list[str] = []
    pos, neg = _classes(y, w)
    if len(y) and (pos == 0 or neg == 0):
        which = "no negative" if neg == 0 else "no positive"
        notes.append(
            f"<b>One class only</b>: the input holds {which} ({pos:,.6g} positives, {neg:,.6g} "
            "negatives): every measure that needs both classes is undefined, and so are the curves that "
            "need them (the ROC curve"
            + (", the precision / recall and lift curves" if pos == 0 else "")
            + ")."
        )
    said: dict[tuple[str, str, str], list[str]] = {}
    for name, rep in reports.items():
        pooled = (overall or {}).get(name)
        for lab in labels:
            if pooled is not None and lab in pooled.results:
                why = _why_not_a_number(lab, pooled.results[lab], None, y, models[name], w)
                if why is not None:
                    said.setdefault((lab, " over all rows pooled", why), []).append(name)
            why = _why_not_a_number(lab, rep.results[lab], rep.groups, y, models[name], w)
            if why is not None:
                said.setdefault((lab, "", why), []).append(name)
    for (lab, where, why), names in said.items():
        who = ""
        if len(reports) > 1:
            who = " of every model" if len(names) == len(reports) else " of " + ", ".join(names)
        notes.append(f"<b>{esc(lab)}</b>{esc(who)}{where} {why.rstrip('.')}.")
    if not notes:
        return ""
    return "<ul class='notes value-notes'>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>"


def _why_not_a_number(lab: str, r: Any, groups: Any, y: np.ndarray, s: Any, w: Any) -> str | None:
    """Why a measure's value is not a finite number (HTML, after its label), or None when it is."""
    esc = _esc
    v = r.value
    if math.isfinite(v):
        return None
    base = lab.split("[")[0]
    try:
        edge = parse_measure(base).measure.edge_cases
    except Exception:  # a partition's label
        edge = ""
    if math.isinf(v) and base.split(":")[0] in ("LOGLOSS", "CXE") and "eps=" not in base:
        bad = zero_probability_cases(y, to_numpy(s, "y_score"), w)
        n = int(np.count_nonzero(bad))
        cases = f"{n:,} cases give their" if n > 1 else "1 case gives its"
        why = (
            f"is infinite: {cases} {ZERO_PROBABILITY}, the first is case {int(np.argmax(bad)) + 1:,} of "
            f"the input; <code>{esc(base.lower())}:eps=1e-15</code> clips the probabilities as "
            "scikit-learn's log_loss(eps=) did"
            if n
            else "is infinite"
        )
    elif math.isinf(v):
        why = "is " + _fmt(v)
    elif r.why:
        why = "is undefined: " + esc(r.why)
    else:
        where = "in every group" if r.per_group is not None else "for this data"
        why = f"is undefined {where}" + (f": {esc(edge)}" if edge else "")
    if r.per_group is not None and math.isinf(v):
        inf = np.flatnonzero(np.isinf(np.asarray(r.per_group, dtype=float)))
        if len(inf):
            first = _plain(groups[int(inf[0])])
            where = f"group {first!r}" if len(inf) == 1 else f"{len(inf):,} groups (the first: {first!r})"
            why += f"; the mean over groups is infinite because the value is in {esc(where)}"
    return why


def _grouped_notes(labels: list[str], pooled: list[str], info: _Groups, column: str) -> str:
    """What the three columns of the grouped measures table are, and the measures' exceptions."""
    esc = _esc
    notes = [
        "<b>overall</b>: every row pooled, as <code>perfeval eval</code> without <code>--group</code> "
        "(the other options the same); "
        "the legends of the plots below give these values.",
        "<b>mean over groups</b>: each group's value (the per-group tables below), averaged over "
        f"the groups where it is defined, as the value column of <code>perfeval eval --group "
        f"{esc(column)}</code> with the other options the same.",
        "<b>groups counted</b>: the groups where the measure is defined; the others are left out "
        f"of the mean. One-class groups: {esc(info.one_class_text())}; a measure of both classes "
        "(ROC, APR, ...) is undefined there. Other measures have edge cases of their own (CA2: a group "
        "of fewer cases than its window; <code>perfeval list-measures --long</code> lists each "
        "measure's).",
    ]
    per_query = [lab for lab in pooled if _kind(lab) == "ranking"]
    if per_query:
        notes.append(
            f"{esc(', '.join(per_query))}: per query; its <i>overall</i> value ranks all rows as one query."
        )
    weighted = [lab for lab in labels if _aggregate(lab) == "weighted"]
    if weighted:
        notes.append(f"{esc(', '.join(weighted))}: the mean over groups is weighted by each group's rows.")
    only = [lab for lab in labels if lab not in pooled]
    if only:
        notes.append(f"{esc(', '.join(only))}: defined over groups only (no overall value).")
    return "<ul class='notes'>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>"


def _rows(y: np.ndarray, w: Any) -> int:
    """The rows that are cases: those of weight 0 are none (as the input table counts them)."""
    return len(y) if w is None else int(np.count_nonzero(np.asarray(w) != 0))


def _plots(
    y: np.ndarray,
    models: dict[str, Any],
    g: Any,
    w: Any,
    info: _Groups | None,
    threshold: float,
    band: dict[str, Any] | None = None,
) -> list[str]:
    """Every curve of every model over all rows, and the small multiples of the largest groups."""
    import matplotlib.pyplot as plt

    esc = _esc
    parts = [
        "<h2>Plots</h2>",
        f"<p class='meta'>Every curve is drawn over all {_rows(y, w):,} rows pooled"
        + (" (the <i>overall</i> column)" if info is not None else "")
        + f"; a circle marks each model's operating point, score &ge; {threshold:g}.</p>",
        "<div class='plots'>",
    ]
    band = band or {}
    for kind in PLOTS:
        fig, ax = plt.subplots(figsize=(5.2, 4.6), layout="constrained")
        kw = {k: v for k, v in band.items() if v is not None} if kind == "calibration" else {}
        CurveDisplay.from_models(y, models, kind=kind, threshold=threshold, sample_weight=w, **kw).plot(ax=ax)
        caption = _calibration_caption(band) if kind == "calibration" else CAPTIONS[kind]
        parts.append(_figure(kind, _png(fig), f"<b>{esc(TITLES[kind])}</b>: {caption}"))
    if info is not None:
        fig = plot_by_group("roc", y, models, g, threshold=threshold, sample_weight=w)
        drawn = min(12, len(info))
        parts.append(
            _figure(
                "roc-groups",
                _png(fig),
                f"<b>ROC curve by group</b>: the {drawn:,} largest of {len(info):,} groups (most rows), "
                "one panel a group; legend: each model's ROC area in that group, as in the per-group "
                "tables.",
                wide=True,
            )
        )
    parts.append("</div>")
    return parts


def _one_jackknife(fn):
    """Run the report with each model's jackknife computed once: its interval and its comparisons
    ask for the same one (:func:`perfeval.stats.replicates.shared_jackknife`).
    """

    @functools.wraps(fn)
    def run(*args, **kwargs):
        with shared_jackknife():
            return fn(*args, **kwargs)

    return run


@_one_jackknife
def build(
    y_true: Any,
    models: dict[str, Any],
    *,
    measures: Any = None,
    groups: Any = None,
    threshold: float = 0.5,
    command: str = "",
    source: str = "",
    max_group_rows: int = 500,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    method: str | None = None,
    tie_bounds: bool = False,
    group_column: str = "",
    sample_weight: Any = None,
    progress: bool = False,
    band_level: float = 0.9,
    band: str = "outcomes",
    by: Any = None,
    intersections: bool = False,
    min_size: int | None = None,
    missing: str = "error",
    pos_label: Any = None,
) -> str:
    """The HTML text of a report on one or more models' scores for the same cases.

    Parameters
    ----------
    y_true : array-like
        The targets.
    models : dict of str to array-like
        Each model's scores, by name.
    measures : str or list of str, optional
        The measures of the table (default: PERF's report).
    groups : array-like, optional
        The group of each case.  The measures table then shows, per model, the value over all rows
        pooled (``evaluate`` without groups, what the plots' legends show), the mean over the groups
        (``evaluate(..., groups=...)``'s value) and how many groups that mean counts; every model
        gets a per-group table, and the largest groups are drawn as small multiples.
    threshold : float
        The threshold of the threshold measures and of the operating points drawn.
    command, source : str
        The command line and the input's name, shown at the top.
    max_group_rows : int
        At most this many groups a per-group table.
    ci : float, optional
        A level such as 0.95: every measure gets a confidence interval (:func:`perfeval.ci`; of the
        mean over groups when grouped), and with several models each is compared with the first
        (:func:`perfeval.compare`: difference, interval, p-value).
    n_boot, seed, method
        The bootstrap's replicates, seed and method: the intervals' (None: ``"bca"``) and the
        comparisons' (None: :func:`perfeval.compare`'s default, DeLong's test for the ROC area over
        all unweighted cases and the BCa bootstrap for the rest; each row says which).  ``"wald"``
        (CAL_SLOPE, CAL_INTERCEPT) is the intervals' only: the comparisons take their default.
    tie_bounds : bool
        Add a table of each measure's least and greatest value over every order of the tied cases,
        per model, and the share of tied pairs (``evaluate(..., tie_bounds=True)``).
    group_column : str
        The group column's name, for the notes (``--group NAME``).
    sample_weight : array-like, optional
        The weight of each case, for every measure, interval and curve (a case of weight 0 is no
        case: it is not counted in the rows of the input and of the groups either).
    progress : bool
        Show the bootstrap's replicates on standard error (a terminal's progress bar).
    band_level, band : float, {"outcomes", "pairs"}
        The calibration plot's consistency band: its level, and whether it redraws the outcomes of
        the cases as they are or the forecasts too (:func:`perfeval.curves.calibration`).
    by : dict of str to array-like, or DataFrame, optional
        Slice columns (docs/slices.md): a section of every model's measures in each slice of each
        column (and intersection, with ``intersections``), sorted by the first measure's gap to the
        overall value (worst first), with the gaps, fairlearn's demographic parity and equalized
        odds at ``threshold``, a forest plot of the first measure and the worst slices' ROC curves
        (``evaluate(..., by=...)``'s numbers).  With ``ci``, the slices' intervals and tests of
        :func:`perfeval.stats.slice_ci` (the percentile bootstrap's, or DeLong's with
        ``method="delong"``; the slices below ``min_size`` left out of the gaps and the tests): each
        slice's interval of every measure, its gap to the overall value's with a p-value and Holm's
        and Benjamini-Hochberg's corrections, the gaps' intervals, and the forest plot's lines.
    intersections, min_size, missing
        As for :func:`perfeval.evaluate` with ``by``: every intersection of the columns too; the
        slices with fewer cases flagged (*); a missing slice value an error or a slice of its own.
    pos_label : optional
        The label the targets' 1 stands for, when the caller coded labels 0/1 (``perfeval report
        --pos-label yes``): the input table and the signature say it, as ``perfeval eval`` does.

    Returns
    -------
    str
        One self-contained HTML page (images embedded, no script, no network).
    """
    import matplotlib

    matplotlib.use("Agg", force=False)

    y = to_numpy(y_true, "y_true")
    g = None if groups is None else to_numpy(groups, "groups")
    w = None if sample_weight is None else to_numpy(sample_weight, "sample_weight")
    measures = measures or DEFAULT_MEASURES

    reports = {}
    overall: dict[str, Any] = {}
    sliced: dict[str, Any] = {}  # the slices' options of evaluate (by=)
    if by is not None:
        sliced = {"by": by, "intersections": intersections, "min_size": min_size, "missing": missing}
    slicings = _slicings(len(y), **sliced) if by is not None else []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, s in models.items():
            reports[name] = evaluate(
                y,
                s,
                measures=measures,
                groups=g,
                threshold=threshold,
                tie_bounds=tie_bounds,
                sample_weight=w,
                **sliced,
            )
        first = next(iter(reports.values()))
        labels = list(first.results)
        pooled = [lab for lab in labels if _kind(lab) != "grouped"]
        if g is not None:
            for name, s in models.items():
                overall[name] = (
                    evaluate(y, s, measures=pooled, threshold=threshold, sample_weight=w) if pooled else None
                )
    _positive(pos_label, [*reports.values(), *overall.values()])
    info = _Groups(y, g, w) if g is not None else None
    column = group_column or "GROUP"
    esc = _esc
    parts = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>perfeval report</title><style>{CSS}{SLICE_CSS if slicings else ''}</style></head><body>",
        "<h1>Evaluation report</h1>",
        f"<p class='meta'>perfeval {__version__} &middot; "
        f"{esc(_dt.datetime.now().isoformat(timespec='seconds'))}"
        f"<br>command: <code>{esc(command)}</code></p>",
    ]
    parts += ["<h2>Input</h2>", _input_table(y, info, models, source, threshold, w, slicings, pos_label)]
    # metrics
    intervals: dict[str, dict] = {}
    if ci is not None:
        intervals = _models_ci(
            y,
            models,
            labels,
            ci,
            method,
            n_boot=n_boot,
            seed=seed,
            groups=g,
            threshold=threshold,
            sample_weight=w,
            progress=progress,
        )

    def shown(name: str, lab: str) -> tuple[float, Any]:
        return reports[name].results[lab].value, intervals.get(name, {}).get(lab)

    parts.append("<h2>Measures</h2>")
    if info is not None:
        parts.append(_measures_grouped(labels, reports, overall, shown, len(info)))
        parts.append(_value_notes(labels, reports, y, models, w, overall))
        parts.append(_grouped_notes(labels, pooled, info, column))
    else:
        parts.append(_measures_plain(labels, reports, shown))
        parts.append(_value_notes(labels, reports, y, models, w))
        parts.append(
            "<p class='meta'>Over all rows, as <code>perfeval eval</code>; the legends of the plots "
            "below give these values.</p>"
        )
    sig = first.signature
    if intervals:
        one = next(iter(next(iter(intervals.values())).values()))
        how = one.method if one.method in ("delong", "wald") else f"{one.method},n={one.n_boot},seed={seed}"
        sig = dataclasses.replace(sig, ci=f"{how},level={ci:g}")
    parts.append(f"<p class='meta signature'>Signature: <code>{esc(str(sig))}</code></p>")
    if intervals:
        assert ci is not None  # intervals are drawn only at a level
        one = next(iter(next(iter(intervals.values())).values()))
        how = (
            "DeLong"
            if one.method == "delong"
            else "Wald, the logistic fit's standard errors"
            if one.method == "wald"
            else (f"{one.method} bootstrap, {one.n_boot} replicates, seed {seed}, {one.resampled} resampled")
        )
        where = " of the mean over groups" if info is not None else ""

        named = [(f"{lab} of {name}", iv) for name, ivs in intervals.items() for lab, iv in ivs.items()]
        undefined = undefined_intervals(named)
        aside = one_sided(named)
        parts.append(
            f"<p class='meta'>In brackets: {ci * 100:g}% confidence intervals{where} ({esc(how)})."
            + (f" <i>[undefined, undefined]</i>: {esc(undefined)}." if undefined else "")
            + (f" <i>Not around the estimate</i>: {esc(aside)}." if aside else "")
            + "</p>"
        )
        if len(models) > 1:  # Wald's is an interval of one fit: the comparisons take their default tests
            how_compared = None if method == "wald" else method
            parts += _comparisons(
                y, models, labels, g, w, ci, how_compared, n_boot, seed, threshold, progress
            )
    parts += _operating(y, models, labels, reports if g is None else overall, w, threshold, ci, method,
                        n_boot, seed, progress, g is not None)  # fmt: skip
    if tie_bounds:
        parts += _tie_bounds(reports, labels, info is not None)
    if slicings:
        cis = _slice_intervals(reports, ci, method, n_boot, seed, min_size is not None, progress)
        parts += _slices_section(
            y, models, w, threshold, reports, slicings, max_group_rows, g is not None, cis
        )
    if info is not None:
        parts += _per_group(reports, labels, info, column, max_group_rows)
    cal = {"band_level": band_level, "band": band, "measure": _calibration_measure(pooled)}
    parts += _plots(y, models, g, w, info, threshold, cal)
    parts.append("</body></html>")
    return "\n".join(parts)


def _operating(
    y: Any,
    models: dict[str, Any],
    labels: list[str],
    pooled: dict[str, Any],
    w: Any,
    threshold: float,
    ci: float | None,
    method: str | None,
    n_boot: int,
    seed: int,
    progress: bool,
    grouped: bool,
) -> list[str]:
    """The operating points' section (:func:`operating_section`, below); empty when no measure
    asked picks one.
    """
    if not operating_labels(labels):
        return []
    return operating_section(
        y, models, labels, pooled, sample_weight=w, threshold=threshold, ci=ci, grouped=grouped,
        method=method or "bca", n_boot=n_boot, seed=seed, progress=progress,
    )  # fmt: skip


# -- slices (by=: docs/slices.md, "In the report") -----------------------------------------------------
#: at most this many slices a forest plot draws (the worst first; the table lists more)
FOREST_SLICES = 30
#: the worst slices whose ROC curves are drawn beside the curve over every case
CURVE_SLICES = 3
#: a slicing of more slices has its table in a box that scrolls (its header kept in view)
TALL_SLICES = 15

SLICE_CSS = """
td.why{color:#666;font-size:.85em;min-width:16em;max-width:36em} tr.flagged td.key{font-style:italic}
td.worse{color:#a40000} td.better{color:#1d6b1d}
"""

#: fairlearn's fairness metrics the report gives for each slicing, at the report's threshold
FAIRNESS = (
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equalized_odds_difference",
    "equalized_odds_ratio",
)


def _slice_intervals(
    reports: dict[str, Any],
    level: float | None,
    method: str | None,
    n_boot: int,
    seed: int,
    skip_flagged: bool,
    progress: bool,
) -> dict[str, Any]:
    """Each model's :func:`perfeval.stats.slice_ci` of its slices: DeLong's with ``method="delong"``,
    else the percentile bootstrap (BCa's acceleration would need a jackknife a slice); the slices
    below the minimum size left out of the gaps and the tests (``skip_flagged``), as ``eval --by
    --ci`` does.  None without a ``level``.
    """
    if level is None:
        return {}
    from perfeval.stats import slice_ci

    how = "delong" if method == "delong" else "percentile"
    return {
        name: slice_ci(
            rep,
            method=how,
            level=level,
            n_boot=n_boot,
            seed=seed,
            skip_flagged=skip_flagged,
            progress=progress,
        )  # fmt: skip
        for name, rep in reports.items()
    }


def _bracket(low: float, high: float, why: str | None = None) -> str:
    """An interval under its value: ``[low, high]``, or that there is none (``why``: its reason, shown
    where the pointer rests).
    """
    if math.isnan(low) or math.isnan(high):
        title = f" title='{_esc(why)}'" if why else ""
        return f"<br><span class='ci undef'{title}>[no interval]</span>"
    return f"<br><span class='ci'>[{_fmt(low)}, {_fmt(high)}]</span>"


def _slicings(n: int, by: Any, intersections: bool, min_size: int | None, missing: str) -> list:
    """Each slicing's keys and rows' codes (:meth:`perfeval.api.slices.SliceRequest.slicings`), which
    the curves and fairlearn's metrics read; ``by``: the slice columns, a dict or a DataFrame.
    """
    from perfeval.api.slices import request
    from perfeval.exceptions import InvalidParameterError

    if isinstance(by, (str, list, tuple)):
        raise InvalidParameterError(
            "build(by=...) takes the slice columns themselves: a dict of names to arrays, or a DataFrame"
        )
    return request(by, None, intersections=intersections, min_size=min_size, missing=missing).slicings(n)


def _slice_text(key: Any) -> str:
    """A slice's key as the tables write it: a value, or an intersection's values joined by `` x ``."""
    return " x ".join(str(_plain(k)) for k in key) if isinstance(key, tuple) else str(_plain(key))


def _num(v: float, attrs: str, text: str | None = None) -> str:
    """A number's cell (``undefined``, an infinity, or six decimals), greyed where it is no number."""
    cls = "num" if math.isfinite(v) else "num undef"
    return f"<td class='{cls}' {attrs}>{_fmt(v) if text is None else text}</td>"


def _slice_order(values: Any, overall: float, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """The order of the slices by their gap to the overall value, the worst first, and the gaps.

    The gap is each slice's value minus the overall one; worst first is the most negative gap of a
    measure where higher is better, the most positive where lower is, the greatest in size where the
    measure has no better direction.  Equal gaps keep the slices' key order; the undefined slices come
    last, in key order (their gap is NaN).  With no overall value the values themselves order.
    """
    v = np.asarray(values, dtype=np.float64)
    gaps = v - overall if math.isfinite(overall) else np.full(len(v), np.nan)
    base = gaps if math.isfinite(overall) else v
    key = {"higher": base, "lower": -base}.get(direction, -np.abs(gaps))
    defined = np.flatnonzero(~np.isnan(v))
    order = defined[np.argsort(key[defined], kind="stable")]
    return np.concatenate([order, np.flatnonzero(np.isnan(v))]).astype(np.int64), gaps


def _slice_whys(sl: Any, s: Any, i: int, iv: Any = None) -> str:
    """Why a slice's values are undefined (the measures that share a reason together), why an
    interval or the first measure's test is missing (``iv``: the slicing's intervals), and its flag.
    """
    said: dict[str, list[str]] = {}
    for m in sl.measures:
        why = s.values.reasons.get(m, {}).get(i)
        if why:
            said.setdefault(why, []).append(m)
    for m in sl.measures if iv is not None else []:
        mi = iv.measures[m]
        if s.values.reasons.get(m, {}).get(i):
            continue  # no value: no interval either, said above
        whys = [("interval", mi.why.get(i))]
        if m == sl.measures[0]:
            whys.append(("gap's test", mi.to_overall.why.get(i)))
        for what, why in whys:
            if why:
                said.setdefault(f"{what}: {why}", []).append(m)
    parts = [
        f"{', '.join(ms)} {'is' if len(ms) == 1 else 'are'} {why}"
        if why.endswith("infinity")
        else f"{', '.join(ms)}: {why.rstrip('.')}"
        for why, ms in said.items()
    ]
    if s.flagged[i]:
        n = int(s.values.cases[i])
        parts.append(f"{n:,} case{'' if n == 1 else 's'}, below the minimum size ({sl.min_size:,})")
    return "; ".join(parts) + ("." if parts else "")


def _gap_cell(gap: float, direction: str) -> str:
    """A slice's gap to the overall value, signed, coloured by whether it is worse or better."""
    if not math.isfinite(gap):
        return _num(gap, "data-col='gap'")
    worse = gap < 0 if direction == "higher" else gap > 0 if direction == "lower" else None
    cls = "num" if worse is None or gap == 0 else ("num worse" if worse else "num better")
    return f"<td class='{cls}' data-col='gap'>{gap:+.6f}</td>"


def _p_cells(g: Any, i: int) -> list[str]:
    """A slice's test of its gap to the overall value: the p-value, Holm's and Benjamini-Hochberg's
    over the slicing's slices tested (a bound, ``≤``, where read from a bootstrap p-value at its floor).
    """
    from perfeval.stats.paired import correct_bounded

    cells = [f"<td class='num' data-col='p'>{_p(float(g.p[i]), bool(g.at_floor[i]))}</td>"]
    for name, adjusted in (("holm", g.p_holm), ("bh", g.p_bh)):
        bound = correct_bounded(g.p, g.at_floor, name)[1]
        cells.append(f"<td class='num' data-col='p-{name}'>{_p(float(adjusted[i]), bool(bound[i]))}</td>")
    return cells


def _slice_row(sl: Any, s: Any, i: int, gap: float, weighted: bool, iv: Any = None) -> str:
    """One slice's row of its slicing's table (``iv``: the slicing's intervals, or None)."""
    esc = _esc
    v = s.values
    key = _slice_text(s.keys[i])
    flagged = bool(s.flagged[i])
    first = sl.measures[0]
    cells = [
        f"<td class='key' data-col='slice'>{esc(key)}{'*' if flagged else ''}</td>",
        f"<td class='num' data-col='rows'>{int(v.rows[i]):,}</td>",
        f"<td class='num' data-col='cases'>{int(v.cases[i]):,}</td>",
    ]
    if weighted:
        cells.append(f"<td class='num' data-col='weight'>{_number(v.weight[i])}</td>")
    if v.positives is not None and v.negatives is not None:
        cells.append(f"<td class='num' data-col='positives'>{_number(v.positives[i])}</td>")
        cells.append(f"<td class='num' data-col='negatives'>{_number(v.negatives[i])}</td>")
    if v.groups is not None:
        cells.append(f"<td class='num' data-col='queries'>{int(v.groups[i]):,}</td>")
    for m in sl.measures:
        value = float(v.values[m][i])
        if iv is None or math.isnan(value):
            cells.append(_num(value, f"data-measure='{esc(m)}'"))
        else:
            mi = iv.measures[m]
            text = _fmt(value) + _bracket(float(mi.low[i]), float(mi.high[i]))
            cells.append(_num(value, f"data-measure='{esc(m)}'", text))
        if m == first:
            cell = _gap_cell(gap, sl.directions.get(first, "none"))
            if iv is not None:
                g = iv.measures[m].to_overall
                if not math.isnan(gap):
                    cell = cell.replace("</td>", _bracket(float(g.low[i]), float(g.high[i])) + "</td>")
                cells.append(cell)
                cells += _p_cells(g, i)
            else:
                cells.append(cell)
    cells.append(f"<td class='why' data-col='why'>{esc(_slice_whys(sl, s, i, iv))}</td>")
    attrs = f"class='flagged' data-slice='{esc(key)}'" if flagged else f"data-slice='{esc(key)}'"
    return f"<tr {attrs}>" + "".join(cells) + "</tr>"


def _slices_table(
    sl: Any, s: Any, order: np.ndarray, gaps: np.ndarray, model: str, max_rows: int, iv: Any = None
) -> str:
    """A slicing's table, a row a slice in ``order`` (at most ``max_rows``): its rows, cases, weight,
    positives and negatives, every measure's value, the first measure's gap to the overall value
    after it, why a value is undefined (and the flag).  With ``iv`` (the slicing's intervals): each
    value's interval under it, the gap's too, and the gap's test (p, Holm's, Benjamini-Hochberg's).
    """
    esc = _esc
    v = s.values
    weighted = bool(np.any(v.weight != v.cases))
    head = ["slice", "rows", "cases"] + (["weight"] if weighted else [])
    head += ["positives", "negatives"] if v.positives is not None else []
    head += ["queries"] if v.groups is not None else []
    cols = "".join(f"<th>{esc(h)}</th>" for h in head)
    for m in sl.measures:
        cols += f"<th data-measure='{esc(m)}'>{esc(m)}</th>"
        if m == sl.measures[0]:
            cols += f"<th data-col='gap'>gap ({esc(m)} &minus; overall)</th>"
            if iv is not None:
                cols += (
                    "<th data-col='p'>p (no gap)</th><th data-col='p-holm'>p (Holm)</th>"
                    "<th data-col='p-bh'>p (BH)</th>"
                )
    where = f"data-model='{esc(model)}' data-slicing='{esc(s.name)}'"
    box = "scroll tall" if min(len(order), max_rows) > TALL_SLICES else "scroll"
    out = [f"<div class='{box}' {where}><table class='slices' {where}><tr>{cols}<th>why undefined</th></tr>"]
    out += [_slice_row(sl, s, i, float(gaps[i]), weighted, iv) for i in order[:max_rows].tolist()]
    return "\n".join(out) + "</table></div>"


#: the gaps of :meth:`perfeval.stats.slices.SliceIntervals.gaps` under each cell of the gaps table
GAP_INTERVALS = {
    ("difference", "between_groups"): "difference",
    ("ratio", "between_groups"): "ratio",
    ("difference", "to_overall"): "difference_to_overall",
    ("ratio", "to_overall"): "ratio_to_overall",
}


def _gap_interval(value: float, d: dict[str, Any], left_out: bool, worst: bool = False) -> str:
    """A gap's interval under its value; when the slices below the minimum size were left out of
    the intervals (``left_out``) and that changed the gap, the estimate they are of (and for the
    worst slice's value, the slice) is written too.
    """
    est = float(d["estimate"])
    same = (math.isnan(value) and math.isnan(est)) or value == est
    if same or not left_out:
        return _bracket(float(d["low"]), float(d["high"]), d.get("why"))
    of = f"{_esc(_slice_text(d['slice']))} " if worst and d.get("slice") is not None else ""
    return f"<br><span class='ci'>without the flagged: {of}{_fmt(est)}</span>" + _bracket(
        float(d["low"]), float(d["high"])
    )


def _slice_gaps(
    sl: Any, s: Any, model: str, iv: Any = None, level: float = 0.95, left_out: bool = False
) -> str:
    """A slicing's gaps, a row a measure: fairlearn's difference and ratio between slices and to the
    overall value, the worst slice by the measure's direction, the undefined slices left out.  With
    ``iv`` (the slicing's intervals at ``level``; ``left_out``: the slices below the minimum size
    left out of them): each gap's interval under it, and how many slices' gaps to the overall value
    are apart from 0 by their tests (p below 1 - level), uncorrected, after Holm's correction and
    after Benjamini-Hochberg's.
    """
    from perfeval.exceptions import UndefinedMeasureWarning

    esc = _esc
    rows = []
    with warnings.catch_warnings():  # the undefined slices are counted in the table, their reasons above
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        for m in sl.measures:
            at = f"data-measure='{esc(m)}'"
            direction = sl.directions.get(m, "none")
            gi = iv.measures[m].gaps if iv is not None else None
            cells = [f"<td>{esc(m)}</td>", f"<td>{esc(direction)}</td>"]
            for method in ("between_groups", "to_overall"):
                for what, fn in (("difference", sl.difference), ("ratio", sl.ratio)):
                    value = float(fn(m, s.name, method=method))
                    text = None
                    if gi is not None:
                        text = _fmt(value) + _gap_interval(value, gi[GAP_INTERVALS[what, method]], left_out)
                    cells.append(_num(value, f"{at} data-col='{what}-{method}'", text))
            worst = sl.worst(m, s.name) if direction != "none" else []
            if worst:
                cells.append(f"<td class='key' {at} data-col='worst'>{esc(_slice_text(worst[0].key))}</td>")
                text = None
                if gi is not None and "worst" in gi:
                    text = _fmt(worst[0].value) + _gap_interval(worst[0].value, gi["worst"], left_out, True)
                cells.append(_num(worst[0].value, f"{at} data-col='worst-value'", text))
            else:
                why = "no better direction" if direction == "none" else "undefined everywhere"
                cells.append(f"<td class='undef' {at} data-col='worst'>{why}</td><td></td>")
            undefined = int(np.sum(np.isnan(np.asarray(s.values.values[m], dtype=np.float64))))
            cells.append(f"<td class='num' {at} data-col='undefined'>{undefined:,}</td>")
            if iv is not None:
                g = iv.measures[m].to_overall
                alpha = 1 - level
                for name, p in (("p", g.p), ("holm", g.p_holm), ("bh", g.p_bh)):
                    n = int(np.sum(np.asarray(p, dtype=np.float64) < alpha))
                    cells.append(f"<td class='num' {at} data-col='apart-{name}'>{n:,}</td>")
            rows.append("<tr>" + "".join(cells) + "</tr>")
    tests = f"<th colspan='3'>slices apart from it (p &lt; {1 - level:g})</th>" if iv is not None else ""
    head = (
        "<tr><th rowspan='2'>measure</th><th rowspan='2'>better</th>"
        "<th colspan='2'>between slices</th><th colspan='2'>to the overall value</th>"
        f"<th colspan='2'>worst slice</th><th rowspan='2'>undefined slices</th>{tests}</tr>"
        "<tr><th class='sub'>difference<br>(max &minus; min)</th><th class='sub'>ratio<br>(min / max)</th>"
        "<th class='sub'>difference<br>(max |v &minus; overall|)</th><th class='sub'>ratio<br>(least)</th>"
        "<th class='sub'>slice</th><th class='sub'>value</th>"
        + (
            "<th class='sub'>by p</th><th class='sub'>Holm</th><th class='sub'>BH</th>"
            if iv is not None
            else ""
        )
        + "</tr>"
    )
    where = f"data-model='{esc(model)}' data-slicing='{esc(s.name)}'"
    return (
        f"<div class='scroll'><table class='slice-gaps' {where}>" + head + "\n".join(rows) + "</table></div>"
    )


def _fairness(y: np.ndarray, s: Any, w: Any, threshold: float, coded: Any, sv: Any, where: str) -> str:
    """The table of fairlearn's demographic parity and equalized odds of the predictions ``score >=
    threshold`` between the slices (``between_groups``; equalized odds ``agg="worst_case"``), by
    :mod:`perfeval.functional`'s functions of fairlearn's names (fairlearn 0.15's numbers); a value
    that cannot be given says why, and a note says where fairlearn counts a 0/0 rate as 0.
    """
    from perfeval import functional
    from perfeval.exceptions import PerfError

    pred = (np.asarray(to_numpy(s, "y_score"), dtype=np.float64) >= threshold).astype(np.int64)
    # the sensitive feature: each row's slice, by its name (by its code where two names read alike)
    names = [_slice_text(k) for k in coded.keys]
    feature = np.asarray(names, dtype=object)[coded.codes] if len(set(names)) == len(names) else coded.codes
    rows = [
        f"<table class='fairness' {where}><tr><th>fairlearn's metric of score &ge; {threshold:g} "
        "(between slices; equalized odds: the worse of TPR's and FPR's)</th><th>value</th></tr>"
    ]
    for name in FAIRNESS:
        try:
            with warnings.catch_warnings():  # the slices counted as fairlearn counts them: said below
                warnings.simplefilter("ignore")
                x = float(getattr(functional, name)(y, pred, sensitive_features=feature, sample_weight=w))
            cell = _num(x, f"data-col='{name}'")
        except PerfError as e:
            cell = f"<td class='undef' data-col='{name}'>not computed: {_esc(str(e))}</td>"
        rows.append(f"<tr><td><code>{name}</code></td>{cell}</tr>")
    notes = []
    for cls, none, rate, ours in (
        ("positive", sv.positives, "true", "SEN"),
        ("negative", sv.negatives, "false", "FPR"),
    ):
        n = int(np.sum((sv.cases > 0) & (none == 0)))
        if n:
            holds = "slices hold" if n > 1 else "slice holds"
            notes.append(
                f"{n:,} {holds} no {cls} case: its {rate} positive rate is 0/0, which fairlearn counts as "
                f"0 (so do these numbers; perfeval's {ours} is undefined there)"
            )
    if notes:
        rows.append(f"<tr><td colspan='2' class='why'>{_esc('; '.join(notes))}.</td></tr>")
    return "\n".join(rows) + "</table>"


def _slice_figures(
    y: np.ndarray | None,
    score: Any,
    w: Any,
    threshold: float,
    sl: Any,
    s: Any,
    coded: Any,
    order: np.ndarray,
    grouped: bool,
    iv: Any = None,
    how: str = "",
) -> list[str]:
    """A slicing's plots: the forest plot of the first measure (the worst first; with ``iv``, the
    slicing's intervals, each slice's interval a line, ``how`` saying whose) and the ROC curves of
    the worst slices beside the curve over every case.
    """
    from perfeval.plot import forest, slice_curves

    esc = _esc
    first = sl.measures[0]
    every = np.asarray(s.values.values[first], dtype=np.float64)
    shown = order[:FOREST_SLICES]
    lows = highs = None
    if iv is not None:
        lows = np.asarray(iv.measures[first].low, dtype=np.float64)[shown]
        highs = np.asarray(iv.measures[first].high, dtype=np.float64)[shown]
    fig = forest(
        every[shown],
        lows,
        highs,
        labels=[_slice_text(s.keys[i]) for i in shown.tolist()],
        overall=float(sl.overall[first]),
        flagged=s.flagged[shown],
        measure=first,
        title=f"{first} by {s.name}",
        width=5.2,
    )
    cut = f"the {len(shown):,} worst of {len(s):,} slices" if len(s) > len(shown) else "every slice"
    hollow = "; hollow: below the minimum size" if sl.min_size is not None else ""
    out = [
        _figure(
            "slices-forest",
            _png(fig),
            f"<b>{esc(first)} by {esc(s.name)}</b>: {cut}, in the table's order; dashed: the overall "
            f"value{hollow}. "
            + (
                f"Lines: each slice's {esc(how)} (the table's brackets)."
                if iv is not None
                else "Points alone: with --ci (build(ci=...)) each slice's interval is drawn."
            ),
        )
    ]
    worst = [i for i in order.tolist() if not math.isnan(every[i])][:CURVE_SLICES]
    if worst and coded is not None:  # binary scores: the worst slices' ROC curves (K classes: none)
        members = {_slice_text(s.keys[i]) + ("*" if s.flagged[i] else ""): coded.codes == i for i in worst}
        fig = slice_curves(
            y, score, members, sample_weight=w, threshold=threshold, overall="every case",
            title=f"ROC curve: the worst slices by {s.name}",
        )  # fmt: skip
        which = (
            f"of the {len(worst)} worst slices</b> by {esc(first)}"
            if len(worst) < len(s)
            else f"of every slice</b> (the worst by {esc(first)} first)"
        )
        pooled = " (each slice's rows pooled, its queries ignored)" if grouped else ""
        out.append(
            _figure(
                "slices-roc",
                _png(fig),
                f"<b>ROC curves {which}{pooled}, beside the curve over every case (black); legend: each "
                f"curve's ROC area; a circle marks score &ge; {threshold:g}.",
            )
        )
    return ["<div class='plots'>", *out, "</div>"]


def _slices_intro(sl: Any, grouped: bool) -> str:
    """What the slices section shows, and how its tables are sorted."""
    esc = _esc
    first = sl.measures[0]
    worst_first = {
        "higher": "the lowest first (higher is better)",
        "lower": "the highest first (lower is better)",
    }.get(
        sl.directions.get(first, "none"), f"the farthest from it first ({esc(first)} has no better direction)"
    )
    queries = ", its queries each counted as the measure counts them" if grouped else ""
    overall = " (the mean over groups of the measures table)" if grouped else ""
    flag = (
        f"; a slice marked <b>*</b> has fewer than {sl.min_size:,} cases (rows of weight &gt; 0): its values "
        "are kept, and read with care"
        if sl.min_size is not None
        else ""
    )
    return (
        f"<p class='meta'>Every measure in each slice, as <code>perfeval eval --by</code> gives it (the "
        f"slice's cases evaluated alone{queries}). Each table is sorted by the slice's gap to the overall "
        f"value of {esc(first)}{overall}, the first measure, {worst_first}; the slices where it is "
        "undefined come last, with the reason. The gaps are fairlearn's <code>difference()</code> and "
        "<code>ratio()</code> (between slices: max &minus; min, min / max; to the overall value: the "
        f"greatest difference, the least ratio), the undefined slices left out{flag}.</p>"
    )


def _slices_section(
    y: np.ndarray | None,
    models: dict[str, Any],
    w: Any,
    threshold: float,
    reports: dict[str, Any],
    slicings: list[Any],
    max_rows: int,
    grouped: bool,
    cis: dict[str, Any] | None = None,
) -> list[str]:
    """The report's slices: for each model and slicing, the table sorted by the first measure's gap
    to the overall value (worst first), the gaps, fairlearn's fairness metrics at the threshold, a
    forest plot of the first measure's values and the ROC curves of the worst slices beside the
    curve over every case.  ``slicings``: each slicing's keys and rows' codes, in the order of the
    reports' slicings (empty for K classes: the tables, the gaps and the forest plot alone).
    ``cis``: each model's :func:`perfeval.stats.slice_ci` (the intervals and tests in the tables, the
    lines of the forest plot), or none.
    """
    esc = _esc
    cis = cis or {}
    parts = ["<h2>Slices</h2>", _slices_intro(next(iter(reports.values())).slices, grouped)]
    if cis:
        parts.append(_slices_ci_intro(next(iter(cis.values()))))
    for name, rep in reports.items():
        sl = rep.slices
        first = sl.measures[0]
        c = cis.get(name)
        for k, s in enumerate(sl.slicings):
            iv = None if c is None else c.slicings[k]
            assert iv is None or iv.name == s.name
            coded = slicings[k] if slicings else None  # K classes: no curve nor fairness, no coding
            assert coded is None or (coded.name == s.name and coded.keys == s.keys)  # one coding
            order, gaps = _slice_order(s.values.values[first], float(sl.overall[first]), sl.directions[first])
            said = f"{len(s):,} slice{'s' if len(s) != 1 else ''}"
            if sl.min_size is not None:
                flagged = int(s.flagged.sum())
                said += f"; {flagged:,} below {sl.min_size:,} cases, marked *" if flagged else ""
                said += "" if flagged else f"; none below {sl.min_size:,} cases"
            where = f"data-model='{esc(name)}' data-slicing='{esc(s.name)}'"
            whose = f"{esc(name)}: " if len(reports) > 1 else ""
            parts += [
                f"<h3 {where}>{whose}by {esc(s.name)} ({said})</h3>",
                _slices_table(sl, s, order, gaps, name, max_rows, iv),
            ]
            if len(s) > max_rows:
                parts.append(
                    f"<p class='meta'>The table lists the {max_rows:,} worst of {len(s):,} slices.</p>"
                )
            left_out = c is not None and c.skip_flagged and bool(np.any(s.flagged))
            level = 0.95 if c is None else c.level
            parts.append(_slice_gaps(sl, s, name, iv, level, left_out))
            if s.values.positives is not None and coded is not None and y is not None:
                parts.append(_fairness(y, models[name], w, threshold, coded, s.values, where))
            how = "" if c is None else f"{c.level * 100:g}% interval"
            parts += _slice_figures(y, models[name], w, threshold, sl, s, coded, order, grouped, iv, how)
    return parts


def _slices_ci_intro(c: Any) -> str:
    """What the slices' brackets and tests are (:func:`perfeval.stats.slice_ci`)."""
    how = (
        "DeLong's (each slice's ROC area; a gap to the overall area with their covariance)"
        if c.method == "delong"
        else f"the percentile bootstrap's, {c.n_boot:,} replicates, seed {c.seed}, {c.resampled} "
        "resampled (a Poisson(1) weight each; one set of replicates for every slice, the overall value "
        "and every gap)"
    )
    skip = (
        "; the slices below the minimum size are left out of the gaps' intervals and of the tests "
        "(their own intervals are given)"
        if c.skip_flagged
        else ""
    )
    return (
        f"<p class='meta'>In brackets: {c.level * 100:g}% intervals of each slice's value and of each "
        f"gap, {_esc(how)}{skip}. Each slice's gap to the overall value of the first measure is tested "
        "(p: two-sided, for no gap; a bound, &le;, where no replicate crossed 0), and the p-values are "
        "corrected over the slicing's slices tested: Holm's step-down (the family-wise error) and "
        "Benjamini-Hochberg's (the false discovery rate); the gaps table counts the slices of each "
        f"measure apart from the overall value at p &lt; {1 - c.level:g} by each "
        '(<code>perfeval.stats.slice_ci</code>; docs/slices.md, "How sure").</p>'
    )


# -- K classes (a score column a class) ---------------------------------------------------------------
#: above this many classes the curves' legends name only the micro-averaged curve (the per-class
#: table gives every class's area) and the heatmaps' cells hold no text
LEGEND_CLASSES = 10
VALUES_CLASSES = 20

CLASS_CSS = """
table.confusion td.num{min-width:3.5em} table.confusion th.true{text-align:left}
"""


def _number(v: float) -> str:
    """A count or weight as eval prints it (every digit that matters)."""
    return f"{float(v):.15g}"


def _label(c: Any) -> str:
    return str(c.item() if isinstance(c, np.generic) else c)


def _class_measures(report: Any) -> str:
    """The headline table: each measure's label (its average in it), whether higher is better, its
    value over all cases.
    """
    rows = []
    for lab, r in report.results.items():
        v = float(r.value)
        cls = "num undef" if not math.isfinite(v) else "num"
        rows.append(
            f"<tr><td>{_esc(lab)}</td><td>{_esc(r.direction)}</td>"
            f"<td class='{cls}' data-measure='{_esc(lab)}'>{_fmt(v)}</td></tr>"
        )
    return (
        '<div class="scroll"><table class="measures"><tr><th>measure</th><th>better</th><th>value</th></tr>'
        + "\n".join(rows)
        + "</table></div>"
    )


def _class_value_notes(report: Any) -> str:
    """Why a headline value is not a number, as ``perfeval eval`` says it (the measure's reason)."""
    from perfeval.engine.report import why_not_finite

    notes = []
    for lab, r in report.results.items():
        v = float(r.value)
        if math.isfinite(v):
            continue
        why = f"undefined: {r.why}" if r.why else why_not_finite(v, lab, "for this data")
        notes.append(f"<b>{_esc(lab)}</b> is {_esc((why or 'undefined').rstrip('.'))}.")
    if not notes:
        return ""
    return "<ul class='notes value-notes'>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>"


def _class_table(report: Any, summary: Any, classes: list) -> list[str]:
    """The per-class table: each class's support and the value a class of every averaged measure;
    under it the classes where a measure is undefined, and why (left out of its macro and weighted
    averages).
    """
    from perfeval.engine.report import class_reasons

    per = [(lab, r) for lab, r in report.results.items() if r.per_class is not None]
    support = np.asarray(summary.n_class, dtype=np.float64)
    head = "<tr><th>class</th><th>support</th>" + "".join(f"<th>{_esc(lab)}</th>" for lab, _ in per) + "</tr>"
    rows = []
    for i, c in enumerate(classes):
        cells = [
            f"<td class='key' data-class='{_esc(_label(c))}'>{_esc(_label(c))}</td>",
            f"<td class='num' data-col='support'>{_number(support[i])}</td>",
        ]
        for lab, r in per:
            v = float(np.asarray(r.per_class, dtype=np.float64)[i])
            cls = "num undef" if not math.isfinite(v) else "num"
            cells.append(f"<td class='{cls}' data-measure='{_esc(lab)}'>{_fmt(v)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    parts = [
        "<h2>Per class</h2>",
        "<p class='meta'>Each class against the rest: its support (the weight of its cases among the "
        "targets) and its value of every measure averaged over the classes; the averages of the table "
        "above are of these values (macro: their mean; weighted: by support).</p>",
        '<div class="scroll"><table class="classes">' + head + "\n".join(rows) + "</table></div>",
    ]
    undefined: dict[str, list[str]] = {}  # the class and its reason -> the measures
    for lab, r in per:
        reasons = class_reasons(summary, lab, r.per_class, r.classes or classes)
        for c in r.undefined_classes:
            why = reasons.get(str(c), "undefined")
            undefined.setdefault(f"{_label(c)}: {why}", []).append(lab)
    for lab, r in report.results.items():  # no value a class (ROC_OVO): the classes its mean leaves out
        if r.per_class is None and r.undefined_classes and r.per_group is None:
            whys = r.undefined_why if len(r.undefined_why) == len(r.undefined_classes) else []
            for i, c in enumerate(r.undefined_classes):
                why = (whys[i] if whys else "") or "undefined"
                undefined.setdefault(f"{_label(c)}: {why}", []).append(lab)
    if undefined:
        parts.append(
            "<ul class='notes undefined-classes'>"
            + "".join(
                f"<li>undefined, left out of the averages: <b>{_esc(what)}</b>; "
                f"in {_esc(', '.join(labs))}</li>"
                for what, labs in undefined.items()
            )
            + "</ul>"
        )
    return parts


def _confusion_table(confusion: np.ndarray, classes: list) -> str:
    """The confusion matrix of the argmax, every digit (the heatmaps round)."""
    head = (
        "<tr><th>true \\ predicted</th>" + "".join(f"<th>{_esc(_label(c))}</th>" for c in classes) + "</tr>"
    )
    rows = [
        f"<tr><th class='true'>{_esc(_label(c))}</th>"
        + "".join(f"<td class='num'>{_number(v)}</td>" for v in row)
        + "</tr>"
        for c, row in zip(classes, confusion.tolist(), strict=True)
    ]
    return '<div class="scroll"><table class="confusion">' + head + "\n".join(rows) + "</table></div>"


def row_normalised(confusion: np.ndarray) -> np.ndarray:
    """Each row divided by its sum (the share of a true class's cases predicted as each class); a
    class with no case among the targets has no row to divide: NaN.
    """
    cm = np.asarray(confusion, dtype=np.float64)
    total = cm.sum(axis=1, keepdims=True)
    out = np.full(cm.shape, np.nan)
    np.divide(cm, total, out=out, where=total > 0)
    return out


def _curves_figure(kind: str, summary: Any, classes: list) -> Any:
    """One chart: every class's one-vs-rest curve of ``kind`` (roc or pr), and the micro-averaged
    curve (every (case, class) pair as one binary problem), dashed.
    """
    import matplotlib.pyplot as plt

    from perfeval import curves
    from perfeval.plot import CurveDisplay

    make = curves.roc if kind == "roc" else curves.precision_recall
    k = len(classes)
    drawn = [make(summary.one_vs_rest(j)) for j in range(k)] + [make(summary.micro())]
    names = [_label(c) for c in classes] + ["micro-average"]
    fig, ax = plt.subplots(figsize=(5.2, 4.6), layout="constrained")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a class without a case draws nothing: said in the legend
        d = CurveDisplay(drawn, names, kind=kind).plot(ax=ax, mark_threshold=False, chance=kind == "roc")
    micro = d.lines_[-1]
    micro.set(color="k", linestyle="--", linewidth=1.4)
    if k > LEGEND_CLASSES:
        for line in d.lines_[:-1]:
            line.set(label=f"_{line.get_label()}", linewidth=0.8, alpha=0.6)
    ax.legend(loc="lower right" if kind == "roc" else "lower left", fontsize=8)
    ax.set_title("ROC curves, one vs rest" if kind == "roc" else "Precision / recall, one vs rest")
    return fig


def _measure_name(label: str) -> str | None:
    """The registry name of a measures table's label, or None (a label of no measure)."""
    try:
        return parse_measure(label.split("[")[0]).measure.name
    except Exception:
        return None


def _top_label_figure(report: Any, summary: Any, band: dict[str, Any]) -> str:
    """The top-label reliability diagram of K classes (confidence: each case's maximum probability;
    right: its argmax is its class), by the bins of the table's first ECE_TOP (else ECE_TOP's own
    defaults), that measure's value in the legend, the consistency band of a calibrated model.
    """
    import matplotlib.pyplot as plt

    from perfeval.curves import binning_text
    from perfeval.curves import calibration as calibration_curve
    from perfeval.plot import CurveDisplay

    if summary.top_label() is None:  # a summary saved before the top-label table: said, not drawn
        return (
            "<p class='meta'>No top-label calibration diagram: this summary was saved before it kept "
            "the top-label table (each case's maximum score and whether its argmax is right).</p>"
        )
    asked = [lab for lab in report.results if _measure_name(lab) == "ECE_TOP"]
    measure = parse_measure(asked[0] if asked else "ECE_TOP")
    level, method = float(band.get("band_level", 0.9)), str(band.get("band", "outcomes"))
    curve = calibration_curve(summary, measure=measure, band_level=level, band=method)
    fig, ax = plt.subplots(figsize=(5.2, 4.6), layout="constrained")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an undefined value is said in the legend and below
        CurveDisplay([curve], ["model"], kind="calibration").plot(ax=ax, mark_threshold=False)
    kw = measure.kwargs
    extra = curve.extra
    caption = (
        "<b>Top-label calibration</b>: each case's confidence (its maximum probability) against the "
        "share of cases whose argmax is their class (a tie at the maximum among t classes right for 1/t "
        f"of a case), in {binning_text(kw['bins'], kw['n_bins'])}, the very bins whose gaps "
        f"<code>{_esc(measure.label)}</code> combines (its value in the legend"
        + (", as in the table" if asked else "")
        + "); the bars: where a calibrated model's bins would fall "
        f"({level * 100:g}% consistency band, Br&ouml;cker &amp; Smith 2007: "
        + (
            "the cases' confidences drawn with replacement, then each one's outcome from it)"
            if method == "pairs"
            else "each case's outcome redrawn from its confidence)"
        )
    )
    if extra.get("band") is None and extra.get("band_why"):
        caption += f"; no band: {_esc(extra['band_why'])}"
    return _figure("calibration-top", _png(fig), caption + ".")


def _heatmap(confusion: np.ndarray, classes: list, normalised: bool, weighted: bool = False) -> Any:
    """The confusion matrix as a heatmap (scikit-learn's ConfusionMatrixDisplay): counts, or each
    row's shares; a row with no case says so in its cells.
    """
    import matplotlib.pyplot as plt

    from perfeval.plot import ConfusionMatrixDisplay, literal

    k = len(classes)
    size = min(9.0, max(4.4, 2.4 + 0.45 * k))
    fig, ax = plt.subplots(figsize=(size, size * 0.9), layout="constrained")
    values = row_normalised(confusion) if normalised else np.asarray(confusion, dtype=np.float64)
    whole = not normalised and bool(np.all(values == np.round(values)))
    shown = values.astype(np.int64) if whole else values
    d = ConfusionMatrixDisplay(shown, display_labels=[literal(_label(c)) for c in classes])
    d.plot(
        ax=ax,
        include_values=k <= VALUES_CLASSES,
        values_format=None if whole else (".2f" if normalised else ".6g"),
        cmap="Blues",
        xticks_rotation="vertical" if k > 6 else "horizontal",
        colorbar=True,
    )
    if d.text_ is not None:
        # the text's colour against its cell, the threshold over the cells that hold a number (a row
        # of NaN would make scikit-learn's threshold NaN: every text in one colour)
        finite = values[np.isfinite(values)]
        thresh = (finite.max() + finite.min()) / 2.0 if finite.size else 0.0
        dark, light = d.im_.cmap(1.0), d.im_.cmap(0.0)
        for (i, j), v in np.ndenumerate(values):
            if np.isnan(v):
                d.text_[i, j].set(text="n/a", color="0.4")
            else:
                d.text_[i, j].set(color=dark if v < thresh else light)
    ax.set_title("Row-normalised" if normalised else ("Weights" if weighted else "Counts"))
    return fig


def build_classes(
    report: Any,
    *,
    scores: Any = None,
    sample_weight: Any = None,
    command: str = "",
    source: str = "",
    band_level: float = 0.9,
    band: str = "outcomes",
) -> str:
    """The HTML text of the report of K classes.

    Parameters
    ----------
    report : Report
        A report of K classes over all cases (``report.params["task"] == "multiclass"``, its
        ``summary`` the :class:`~perfeval.summaries.classes.ClassSummary`), as
        :func:`perfeval.evaluate` with ``classes=`` or ``perfeval eval --classes`` make it.
    scores : array-like of shape (n_samples, n_classes), optional
        The scores, for the range the input table shows.
    sample_weight : array-like of shape (n_samples,), optional
        The weights, for the input table (the report's numbers already hold them).
    command, source : str
        The command line and the input's name, shown at the top.
    band_level, band : float, {"outcomes", "pairs"}
        The top-label reliability diagram's consistency band: its level, and what it redraws
        (:func:`perfeval.curves.calibration`).

    Returns
    -------
    str
        One self-contained HTML page (images embedded, no script, no network).  A report made with
        ``by=`` (``perfeval report --by``) gets a slices section: each slicing's table of every
        measure by slice sorted by the first measure's gap to the overall value, the gaps and the
        forest plot of the first measure (docs/slices.md, "In the report").
    """
    import matplotlib

    from perfeval.exceptions import InvalidParameterError

    matplotlib.use("Agg", force=False)
    summary = report.summary
    if report.params.get("task") != "multiclass" or summary is None:
        raise InvalidParameterError(
            "build_classes takes a report of K classes over all cases (evaluate(y, S, classes=...), "
            "without groups)"
        )
    classes = list(report.params["classes"])
    confusion = np.asarray(summary.confusion, dtype=np.float64)
    sliced = getattr(report, "slices", None) is not None
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>perfeval report</title><style>{CSS}{CLASS_CSS}{SLICE_CSS if sliced else ''}</style>"
        "</head><body>",
        "<h1>Evaluation report</h1>",
        f"<p class='meta'>perfeval {__version__} &middot; "
        f"{_esc(_dt.datetime.now().isoformat(timespec='seconds'))}"
        f"<br>command: <code>{_esc(command)}</code></p>",
        "<h2>Input</h2>",
        _class_input(report, summary, classes, scores, sample_weight, source),
        "<h2>Measures</h2>",
        _class_measures(report),
        _class_value_notes(report),
        "<p class='meta'>Over all cases, as <code>perfeval eval</code> with the same classes; each "
        "label says how the classes are averaged. The predicted class of a case is the argmax of its "
        "row; a tie at the max shares the case among the tied classes.</p>",
        f"<p class='meta signature'>Signature: <code>{_esc(str(report.signature))}</code></p>",
    ]
    parts += _class_table(report, summary, classes)
    if sliced:  # the slices' tables, gaps and forest plots (no score curve of K classes by slice)
        parts += _slices_section(None, {"model": None}, None, 0.5, {"model": report}, [], 500, False)
    parts += [
        "<h2>Plots</h2>",
        "<div class='plots'>",
        _figure(
            "roc-classes",
            _png(_curves_figure("roc", summary, classes)),
            "<b>ROC curves, one vs rest</b>: each class's cases against the rest, scored by the class's "
            "column (legend: its ROC area, the per-class value of ROC_OVR); dashed: the micro-average, "
            "every (case, class) pair as one binary problem.",
        ),
        _figure(
            "pr-classes",
            _png(_curves_figure("pr", summary, classes)),
            "<b>Precision / recall, one vs rest</b>: each class against the rest (legend: its average "
            "precision, the per-class value of AP_OVR); dashed: the micro-average.",
        ),
        _top_label_figure(report, summary, {"band_level": band_level, "band": band}),
        _figure(
            "confusion",
            _png(
                _heatmap(confusion, classes, normalised=False, weighted=bool(report.params.get("weighted")))
            ),
            "<b>Confusion matrix of the argmax</b>: rows the true class, columns the predicted one; a "
            "tie at the max shares the case among the tied classes (the table below gives every digit).",
        ),
        _figure(
            "confusion-normalised",
            _png(_heatmap(confusion, classes, normalised=True)),
            "<b>Row-normalised</b>: the share of each true class's cases predicted as each class (the "
            "diagonal: each class's recall); n/a: a class with no case among the targets.",
        ),
        "</div>",
        "<h3>Confusion matrix of the argmax</h3>",
        _confusion_table(confusion, classes),
        "</body></html>",
    ]
    return "\n".join(parts)


def _class_input(
    report: Any, summary: Any, classes: list, scores: Any, sample_weight: Any, source: str
) -> str:
    how = report.params.get("classes_from") or "given"
    shown = ", ".join(_label(c) for c in classes[:12]) + (", ..." if len(classes) > 12 else "")
    rows: list[list[Any]] = [
        ["source", source or "(arrays)"],
        ["rows", int(report.params.get("rows") or 0)],
        ["classes", f"{len(classes)}: {shown} (from {how})"],
    ]
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=np.float64)
        dropped = int(np.sum(w == 0))
        rows.append(
            [
                "weights",
                f"{_number(summary.total)} in all"
                + (f" ({dropped:,} rows of weight 0 left out)" if dropped else ""),
            ]
        )
    if scores is not None:
        s = np.asarray(scores, dtype=np.float64)
        rows.append(["score range", f"{s.min():.6g} .. {s.max():.6g}" if s.size else "empty"])
    rows.append(["prediction", "the argmax of each row (a tie at the max shares the case)"])
    return _table(["", "value"], rows, "summary")


def classes_report(
    y_true: Any,
    y_score: Any,
    *,
    classes: Any = None,
    measures: Any = None,
    sample_weight: Any = None,
    command: str = "",
    source: str = "",
    band_level: float = 0.9,
    band: str = "outcomes",
) -> str:
    """The HTML report of K classes of arrays: :func:`perfeval.evaluate` (``classes=``: the labels of
    the score columns, in order; by default as ``evaluate`` finds them), then :func:`build_classes`.

    Examples
    --------
    >>> page = classes_report(["a", "b", "c"], [[.7, .2, .1], [.2, .5, .3], [.1, .3, .6]],
    ...                       classes=["a", "b", "c"])   # doctest: +SKIP
    """
    from perfeval.api.evaluation import evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what is undefined is said in the page
        more = {} if measures is None else {"measures": measures}
        report = evaluate(y_true, y_score, classes=classes, sample_weight=sample_weight, **more)
    return build_classes(
        report,
        scores=y_score,
        sample_weight=sample_weight,
        command=command,
        source=source,
        band_level=band_level,
        band=band,
    )


# -- operating points (docs/operating.md, "In the report") --------------------------------------------
# When the measures asked pick an operating point (TPR_AT_FPR, SEN_AT_SPC, SPC_AT_SEN, PRE_AT_REC,
# REC_AT_PRE, and the threshold choices YOUDEN, TOPLEFT, BEST_FBETA, BEST_MCC, LEAST_COST): a table of
# each one's value, its score threshold (a case is predicted positive when its score >= it), with a
# level the bootstrap interval of both (the value's spec and its of=threshold twin, perfeval.ci), and
# where the point lies on its curve; and the ROC curve (precision / recall for PRE_AT_REC and
# REC_AT_PRE) with each point marked.  Every number is over all rows pooled (evaluate without groups):
# an operating point is one threshold, and the curves are drawn over all rows.

#: the measures whose point lies on the precision / recall curve (the others: on the ROC curve)
ON_PR = ("PRE_AT_REC", "REC_AT_PRE")

#: the markers of the measures, in the order asked (a colour a model)
OP_MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*", "<", ">")


def operating_labels(labels: list[str]) -> list[str]:
    """The labels among ``labels`` of measures that pick an operating point (their value asked:
    ``of`` at ``value``), in order.
    """
    from perfeval.measures import parse_measure

    out = []
    for lab in labels:
        try:
            spec = parse_measure(lab)
        except Exception:  # a partition's label, not a spec
            continue
        if spec.measure.kind == "binary" and spec.kwargs.get("of") == "value":
            out.append(lab)
    return out


def _op_twin(label: str) -> str:
    """The label of the measure's ``of=threshold`` spec (its threshold as a value)."""
    from perfeval.engine.finish import threshold_companions
    from perfeval.measures import parse_measure

    _pairs, twins = threshold_companions([parse_measure(label)])
    return twins[0].label


class OperatingPoint:
    """One model's operating point of one measure: its value and threshold (``evaluate``'s, over
    all rows), the curve it lies on (``"roc"`` or ``"pr"``) and its (x, y) there (None: no point,
    the threshold NaN), and the intervals of the value and of the threshold (None without ``ci``).
    """

    def __init__(self, model: str, label: str, result: Any, curve: str, xy: tuple | None) -> None:
        self.model, self.label, self.curve, self.xy = model, label, curve, xy
        self.value = float(result.value)
        self.threshold = None if result.threshold is None else float(result.threshold)
        self.why = result.why
        self.value_interval: Any = None
        self.threshold_interval: Any = None
        self.interval_why = ""


def operating_points(
    y: Any, models: dict[str, Any], labels: list[str], pooled: dict[str, Any], w: Any = None
) -> list[OperatingPoint]:
    """Every model's point of every operating measure of ``labels`` (``pooled``: each model's report
    over all rows), with its place on its curve: the curve's vertex at the threshold, as
    :func:`perfeval.plot.operating_point` (the point each curve marks) computes it.
    """
    from perfeval import curves
    from perfeval.curves import summary as curve_summary
    from perfeval.plot import operating_point

    points = []
    ops = operating_labels(labels)
    for name, s in models.items():
        h = curve_summary(y, s, w) if ops else None
        for lab in ops:
            r = pooled[name].results[lab]
            curve = "pr" if parse_measure(lab).measure.name in ON_PR else "roc"
            t = r.threshold
            xy = None
            if t is not None and not math.isnan(t):
                with np.errstate(invalid="ignore", divide="ignore"):
                    drawn = curves.roc(h) if curve == "roc" else curves.precision_recall(h)
                    got = operating_point(curve, drawn, h, float(t))
                if got is not None:
                    xy = (float(got[0]), float(got[1]))
            points.append(OperatingPoint(name, lab, r, curve, xy))
    return points


def _op_intervals(
    points: list[OperatingPoint], y: Any, models: dict[str, Any], w: Any, threshold: float, **ci_kw: Any
) -> None:
    """Each point's bootstrap intervals of its value and of its threshold (one :func:`perfeval.ci`
    a model, the value and the threshold specs together: one set of replicates), or why not.
    """
    from perfeval.exceptions import PerfError

    by_model: dict[str, list[OperatingPoint]] = {}
    for p in points:
        by_model.setdefault(p.model, []).append(p)
    for name, pts in by_model.items():
        asked = []
        for p in pts:
            asked += [p.label, _op_twin(p.label)]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # an undefined interval says why in its cell
                got = _ci(y, models[name], measures=asked, threshold=threshold, sample_weight=w, **ci_kw)
        except PerfError as e:
            for p in pts:
                p.interval_why = str(e)
            continue
        for p in pts:
            p.value_interval, p.threshold_interval = got[p.label], got[_op_twin(p.label)]


def _op_threshold_text(t: float | None) -> str:
    """A threshold as ``perfeval eval`` prints it: in full (the shortest text that reads back to the
    same double), +inf as no case predicted positive.
    """
    if t is None or math.isnan(t):
        return "undefined"
    if math.isinf(t):
        return "+inf (no case predicted positive)" if t > 0 else "-inf"
    return repr(float(t))


def _op_point_text(p: OperatingPoint) -> str:
    if p.xy is None:
        return "no point"
    x, y = p.xy
    names = ("FPR", "TPR") if p.curve == "roc" else ("recall", "precision")
    ys = "undefined" if math.isnan(y) else f"{y:.6f}"
    return f"{names[0]} {x:.6f}, {names[1]} {ys}"


def _op_table(points: list[OperatingPoint], level: float | None) -> str:
    head = ["model", "measure", "value", "threshold (score &ge;)"]
    if level is not None:
        head += [f"value: {level * 100:g}% interval", f"threshold: {level * 100:g}% interval"]
    head += ["the point on its curve"]
    out = [
        "<div class='scroll'><table class='operating'><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"
    ]
    for p in points:
        at = f"data-model='{_esc(p.model)}' data-measure='{_esc(p.label)}'"
        vcls = "num" if math.isfinite(p.value) else "num undef"
        cells = [
            f"<td>{_esc(p.model)}</td>",
            f"<td>{_esc(p.label)}</td>",
            f"<td class='{vcls}' {at} data-col='value' data-exact='{p.value!r}'>{_fmt(p.value)}</td>",
            f"<td class='num' {at} data-col='threshold'>{_esc(_op_threshold_text(p.threshold))}</td>",
        ]
        if level is not None:
            for what, iv in (("value", p.value_interval), ("threshold", p.threshold_interval)):
                if iv is None:
                    why = p.interval_why or "not computed"
                    cells.append(f"<td class='undef' {at} data-col='{what}-interval'>{_esc(why)}</td>")
                    continue
                text = (
                    f"[{_fmt(iv.low)}, {_fmt(iv.high)}]"
                    if what == "value"
                    else f"[{_op_threshold_text(iv.low)}, {_op_threshold_text(iv.high)}]"
                )
                cells.append(
                    f"<td class='num' {at} data-col='{what}-interval' data-low='{iv.low!r}' "
                    f"data-high='{iv.high!r}'>{_esc(text)}</td>"
                )
        cells.append(f"<td {at} data-col='point' data-curve='{p.curve}'>{_esc(_op_point_text(p))}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out) + "</table></div>"


def _marked_figure(kind: str, y: Any, models: dict[str, Any], w: Any, points: list[OperatingPoint]) -> Any:
    """The curves of ``kind`` of every model (over all rows), each operating point on it marked:
    a colour a model (its curve's), a marker a measure, named in the legend.
    """
    import matplotlib.pyplot as plt

    from perfeval.plot import CurveDisplay, literal

    fig, ax = plt.subplots(figsize=(5.2, 4.6), layout="constrained")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a curve that cannot be drawn says so in its legend
        d = CurveDisplay.from_models(y, models, kind=kind, sample_weight=w).plot(ax=ax, mark_threshold=False)
    colour = {name: line.get_color() for name, line in zip(models, d.lines_, strict=True)}
    labels = list(dict.fromkeys(p.label for p in points))
    marker = {lab: OP_MARKERS[i % len(OP_MARKERS)] for i, lab in enumerate(labels)}
    for p in points:
        if p.xy is None or not all(math.isfinite(v) for v in p.xy):
            continue
        who = f"{literal(p.model)}: " if len(models) > 1 else ""
        ax.plot(
            [p.xy[0]],
            [p.xy[1]],
            linestyle="None",
            marker=marker[p.label],
            markersize=8,
            markerfacecolor="none",
            markeredgewidth=1.8,
            color=colour[p.model],
            label=f"{who}{literal(p.label)} at {_op_threshold_text(p.threshold)}",
        )
    ax.legend(loc="lower right" if kind == "roc" else "upper right", fontsize=7.5)  # PR: its empty corner
    ax.set_title(
        "ROC curve: the operating points" if kind == "roc" else "Precision / recall: the operating points"
    )
    return fig


def operating_section(
    y_true: Any,
    models: dict[str, Any],
    labels: list[str],
    pooled: dict[str, Any],
    *,
    sample_weight: Any = None,
    threshold: float = 0.5,
    ci: float | None = None,
    grouped: bool = False,
    **ci_kw: Any,
) -> list[str]:
    """The report's section of operating points (empty when no measure asked picks one): the table
    and the curves with the points marked.  ``pooled``: each model's report over all rows;
    ``ci_kw``: :func:`perfeval.ci`'s method, n_boot, seed, progress.
    """
    y = to_numpy(y_true, "y_true")
    w = None if sample_weight is None else to_numpy(sample_weight, "sample_weight")
    points = operating_points(y, models, labels, pooled, w)
    if not points:
        return []
    if ci is not None:
        _op_intervals(points, y, models, w, threshold, level=ci, **ci_kw)
    pooled_words = " (every row pooled, groups ignored: one threshold for all)" if grouped else ""
    how = ""
    if ci is not None:
        first = next((p.value_interval for p in points if p.value_interval is not None), None)
        if first is not None:
            how = (
                f" In brackets: {ci * 100:g}% intervals of the value and of the threshold "
                f"({_esc(first.method)} bootstrap, {first.n_boot} replicates, seed {first.seed}, the same "
                "replicates for both; "
                f"<code>perfeval.ci</code> of the measure and of its <code>of=threshold</code> spec"
                + (", rows resampled: not the intervals of the mean over groups above" if grouped else "")
                + ")."
            )
    notes = []
    if ci is not None:  # why an interval is [undefined, undefined], as the measures table says it
        named = [
            (f"{what} of {p.label} of {p.model}", iv)
            for p in points
            for what, iv in (("the value", p.value_interval), ("the threshold", p.threshold_interval))
            if iv is not None
        ]
        undefined = undefined_intervals(named)
        if undefined:
            notes.append(f"<i>[undefined, undefined]</i>: {_esc(undefined)}.")
    for p in points:
        if not math.isfinite(p.value) and p.why:
            notes.append(
                f"<b>{_esc(p.label)}</b> of {_esc(p.model)} is undefined: {_esc(p.why.rstrip('.'))}."
            )
    parts = [
        "<h2>Operating points</h2>",
        "<p class='meta'>Each measure that picks an operating point, with the score threshold of that "
        f"point (a case is predicted positive when its score &ge; the threshold){pooled_words}, as "
        "<code>perfeval eval</code> prints it under its table, and where the point lies on its curve "
        f"(marked below: TPR at FPR on the ROC curve, precision and recall targets on the precision / "
        f"recall curve, the threshold choices on the ROC curve).{how}</p>",
        _op_table(points, ci),
    ]
    if notes:
        parts.append("<ul class='notes'>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>")
    parts.append("<div class='plots'>")
    for kind in ("roc", "pr"):
        mine = [p for p in points if p.curve == kind]
        if not mine:
            continue
        names = ", ".join(dict.fromkeys(p.label for p in mine))
        parts.append(
            _figure(
                f"operating-{kind}",
                _png(_marked_figure(kind, y, models, w, mine)),
                f"<b>{'ROC curve' if kind == 'roc' else 'Precision / recall'}, the operating points</b>: "
                f"{_esc(names)}; a marker a measure, in its model's colour; the legend gives each "
                "point's threshold.",
            )
        )
    parts.append("</div>")
    return parts


# -- a regression target (docs/plots.md, "A regression target") ---------------------------------------
# The page of one or more models' predictions of a real target: the input, every model's measures
# (perfeval eval's regression defaults, or those asked), with groups the value over all rows pooled,
# the mean over the groups and the groups counted, and a table a model of every group's values; with a
# level each value's interval and, with several models, each compared with the first; the figures of
# perfeval.plot._regression (actual against predicted with y = x, the residuals against the predictions
# and their histogram, by group).  Its numbers are evaluate's, ci's and compare_models' for
# task="regression".


def _reg_input(y: np.ndarray, models: dict[str, np.ndarray], g: Any, w: Any, source: str, how: str) -> str:
    kept = slice(None) if w is None else np.asarray(w) != 0
    rows: list[list[Any]] = [
        ["source", source or "(arrays)"],
        ["task", f"regression ({how})" if how else "regression"],
        ["rows", int(len(y[kept]))],
    ]
    if w is not None:
        ww = np.asarray(w, dtype=np.float64)
        dropped = int(np.sum(ww == 0))
        rows.append(
            [
                "weights",
                f"{ww.sum():.6g} in all" + (f" ({dropped:,} rows of weight 0 left out)" if dropped else ""),
            ]
        )
    if g is not None:
        _, counts = np.unique(np.asarray(g)[kept], return_counts=True)
        rows.append(["groups", len(counts)])
        if len(counts):
            rows.append(["rows per group", f"{int(counts.min()):,} .. {int(counts.max()):,}"])
    yy = y[kept]
    rows.append(["target range", f"{yy.min():.6g} .. {yy.max():.6g}" if len(yy) else "empty"])
    for name, p in models.items():
        pp = p[kept]
        rows.append(
            [f"prediction range ({name})", f"{pp.min():.6g} .. {pp.max():.6g}" if len(pp) else "empty"]
        )
    return _table(["", "value"], rows, "summary")


def _reg_notes(labels: list[str], reports: dict[str, Any], overall: dict[str, Any] | None = None) -> str:
    """Why a value of the measures table is not a number, as ``perfeval eval`` says it; with groups,
    the value over all rows pooled too (``overall``: each model's report without groups).
    """
    from perfeval.engine.report import why_not_finite

    said: dict[tuple[str, str, str], list[str]] = {}
    for name, rep in reports.items():
        pooled = (overall or {}).get(name)
        for lab in labels:
            for where_said, r in (
                (" over all rows pooled", None if pooled is None else pooled.results.get(lab)),
                ("", rep.results[lab]),
            ):
                if r is None or math.isfinite(float(r.value)):
                    continue
                v = float(r.value)
                where = "in every group" if r.per_group is not None else "for this data"
                why = f"undefined: {r.why}" if r.why else why_not_finite(v, lab, where)
                said.setdefault((lab, where_said, (why or "undefined").rstrip(".")), []).append(name)
    notes = []
    for (lab, where_said, why), names in said.items():
        who = ""
        if len(reports) > 1:
            who = " of every model" if len(names) == len(reports) else " of " + ", ".join(names)
        notes.append(f"<b>{_esc(lab)}</b>{_esc(who)}{where_said} is {_esc(why)}.")
    if not notes:
        return ""
    return "<ul class='notes value-notes'>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>"


def _reg_per_group(
    reports: dict[str, Any], labels: list[str], g: np.ndarray, w: Any, column: str, max_rows: int
) -> list[str]:
    """Every model's value of every measure in each group (at most ``max_rows`` groups a model)."""
    gg = g if w is None else g[np.asarray(w) != 0]  # a row of weight 0 is no case
    keys, counts = np.unique(gg, return_counts=True)
    rows_of = {_plain(k): int(c) for k, c in zip(keys, counts, strict=True)}
    n = len(keys)
    note = f" (the first {max_rows:,} of {n:,} groups, by key)" if n > max_rows else ""
    out = [
        "<h2>Per group</h2>",
        f"<p class='meta'>Each group's value of every measure, one table a model{note}, as "
        f"<code>perfeval eval --group {_esc(column)} --per-group</code> prints it; <i>undefined</i>: "
        "the measure is not defined in the group (e.g. R2 of a group whose targets are all equal) and "
        "is left out of the mean over groups; why: under each table, and each such cell's title.</p>",
    ]
    for m, rep in reports.items():
        per = {lab: np.asarray(rep.results[lab].per_group, dtype=float) for lab in labels}
        whys = {lab: _group_whys(rep.results[lab]) for lab in labels}
        body = []
        for i, k in enumerate([_plain(k) for k in rep.groups][:max_rows]):
            cells = [f"<td class='key'>{_esc(str(k))}</td>", _cell(rows_of.get(k, 0))]
            cells += [_cell(float(per[lab][i]), whys[lab].get(k)) for lab in labels]
            body.append("<tr>" + "".join(cells) + "</tr>")
        head = "".join(f"<th>{_esc(h)}</th>" for h in ["group", "rows", *labels])
        out += [
            f"<h3>{_esc(m)}</h3>",
            f"<div class='scroll tall' data-model='{_esc(m)}'><table class=\"groups\"><tr>{head}</tr>\n"
            + "\n".join(body)
            + "</table></div>",
            _why_groups(rep, labels),
        ]
    return out


def _reg_plots(y: np.ndarray, models: dict[str, np.ndarray], g: Any, w: Any, max_points: int) -> list[str]:
    """The figures: actual against predicted, the residuals, and by group."""
    from perfeval.plot import MAX_GROUPS
    from perfeval.plot._regression import predicted_figure, regression_by_group, residuals_figure

    several = len(models) > 1
    fig = predicted_figure(y, models, sample_weight=w, max_points=max_points)
    said = "; ".join(f"{_esc(n)}: {_esc(s)}" if several else _esc(s) for n, s in fig.perfeval_said.items())
    parts = [
        "<h2>Plots</h2>",
        "<div class='plots'>",
        _figure(
            "predicted",
            _png(fig),
            "<b>Actual against predicted</b>"
            + (", a panel a model" if several else "")
            + f": the predictions on x, the targets on y; dashed: y = x, a perfect prediction ({said}).",
            wide=several,
        ),
    ]
    fig = residuals_figure(y, models, sample_weight=w, max_points=max_points)
    parts.append(
        _figure(
            "residuals",
            _png(fig),
            "<b>Residuals</b> (actual &minus; predicted) against the predictions, the line 0 dashed, and "
            "their histogram"
            + (" (weighted)" if w is not None else "")
            + (", a row a model" if several else "")
            + ": a pattern, a funnel or a skew is what the measures average away.",
            wide=True,
        )
    )
    if g is not None:
        fig = regression_by_group("predicted", y, models, g, sample_weight=w, max_points=max_points)
        n_groups = len(np.unique(g if w is None else np.asarray(g)[np.asarray(w) != 0]))
        drawn = min(MAX_GROUPS, n_groups)
        parts.append(
            _figure(
                "predicted-groups",
                _png(fig),
                f"<b>Actual against predicted by group</b>: the {drawn:,} largest of {n_groups:,} groups "
                "(most rows), one panel a group" + (" and model" if several else "") + "; dashed: y = x.",
                wide=True,
            )
        )
    parts.append("</div>")
    return parts


def build_regression(
    y_true: Any,
    models: dict[str, Any],
    *,
    measures: Any = None,
    groups: Any = None,
    command: str = "",
    source: str = "",
    how: str = "",
    max_group_rows: int = 500,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    method: str | None = None,
    group_column: str = "",
    sample_weight: Any = None,
    progress: bool = False,
    max_points: int | None = None,
) -> str:
    """The HTML text of a report on one or more models' predictions of a regression target.

    Parameters
    ----------
    y_true : array-like
        The targets (real values).
    models : dict of str to array-like
        Each model's predictions, by name.
    measures : str or list of str, optional
        The measures of the table (default: ``perfeval eval``'s for a regression target, MAE,
        MSE_REG, RMSE_REG, R2, EXPVAR).
    groups : array-like, optional
        The group of each case: the measures table then shows, per model, the value over all rows
        pooled, the mean over the groups (``evaluate(..., groups=...)``'s value) and the groups it
        counts; a table a model of every group's values, and the largest groups drawn.
    command, source, how : str
        The command line, the input's name, and why the target was read as a regression target.
    max_group_rows : int
        At most this many groups a per-group table.
    ci, n_boot, seed, method
        A level such as 0.95: every measure's bootstrap interval (:func:`perfeval.ci`, of the mean
        over groups when grouped, whole groups resampled), and with several models each compared
        with the first (:func:`perfeval.stats.compare_models`); the replicates, seed and method.
    group_column : str
        The group column's name, for the notes.
    sample_weight : array-like, optional
        The weight of each case (a row of weight 0 is no case).
    progress : bool
        Show the bootstrap's replicates on standard error.
    max_points : int, optional
        Beyond this many cases a panel bins every case into hexagons rather than drawing points
        (default :data:`perfeval.plot._regression.MAX_POINTS`).

    Returns
    -------
    str
        One self-contained HTML page (images embedded, no script, no network).
    """
    import matplotlib

    from perfeval.plot._regression import MAX_POINTS

    matplotlib.use("Agg", force=False)
    y = np.asarray(to_numpy(y_true, "y_true"), dtype=np.float64)
    preds = {name: np.asarray(to_numpy(s, "y_pred"), dtype=np.float64) for name, s in models.items()}
    g = None if groups is None else to_numpy(groups, "groups")
    w = None if sample_weight is None else to_numpy(sample_weight, "sample_weight")
    asked = {} if measures is None else {"measures": measures}
    reports: dict[str, Any] = {}
    overall: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what is undefined is said in the page
        for name, p in preds.items():
            reports[name] = evaluate(y, p, groups=g, sample_weight=w, task="regression", **asked)
            if g is not None:
                overall[name] = evaluate(y, p, sample_weight=w, task="regression", **asked)
    first = next(iter(reports.values()))
    labels = list(first.results)
    intervals: dict[str, dict] = {}
    if ci is not None:
        intervals = _models_ci(
            y,
            preds,
            labels,
            ci,
            method,
            n_boot=n_boot,
            seed=seed,
            groups=g,
            sample_weight=w,
            task="regression",
            progress=progress,
        )

    def shown(name: str, lab: str) -> tuple[float, Any]:
        return reports[name].results[lab].value, intervals.get(name, {}).get(lab)

    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>perfeval report</title><style>{CSS}</style></head><body>",
        "<h1>Evaluation report: regression</h1>",
        f"<p class='meta'>perfeval {__version__} &middot; "
        f"{_esc(_dt.datetime.now().isoformat(timespec='seconds'))}"
        f"<br>command: <code>{_esc(command)}</code></p>",
        "<h2>Input</h2>",
        _reg_input(y, preds, g, w, source, how),
        "<h2>Measures</h2>",
    ]
    column = group_column or "GROUP"
    if g is not None:
        n_groups = len(first.groups)
        parts.append(_measures_grouped(labels, reports, overall, shown, n_groups))
        parts.append(_reg_notes(labels, reports, overall))
        parts.append(
            "<p class='meta'><b>overall</b>: every row pooled, as <code>perfeval eval</code> without "
            f"<code>--group</code>; <b>mean over groups</b>: the value column of <code>perfeval eval "
            f"--group {_esc(column)}</code>, each group's value averaged over the groups where it is "
            "defined; <b>groups counted</b>: those groups.</p>"
        )
    else:
        parts.append(_measures_plain(labels, reports, shown))
        parts.append(_reg_notes(labels, reports))
        parts.append("<p class='meta'>Over all rows, as <code>perfeval eval</code> of the same target.</p>")
    sig = first.signature
    if intervals:
        one = next(iter(next(iter(intervals.values())).values()))
        sig = dataclasses.replace(sig, ci=f"{one.method},n={one.n_boot},seed={seed},level={ci:g}")
    parts.append(f"<p class='meta signature'>Signature: <code>{_esc(str(sig))}</code></p>")
    if intervals:
        assert ci is not None
        one = next(iter(next(iter(intervals.values())).values()))
        where = " of the mean over groups" if g is not None else ""
        named = [(f"{lab} of {name}", iv) for name, ivs in intervals.items() for lab, iv in ivs.items()]
        undefined = undefined_intervals(named)
        aside = one_sided(named)
        parts.append(
            f"<p class='meta'>In brackets: {ci * 100:g}% confidence intervals{where} ({_esc(one.method)} "
            f"bootstrap, {one.n_boot} replicates, seed {seed}, {_esc(one.resampled)} resampled)."
            + (f" <i>[undefined, undefined]</i>: {_esc(undefined)}." if undefined else "")
            + (f" <i>Not around the estimate</i>: {_esc(aside)}." if aside else "")
            + "</p>"
        )
        if len(preds) > 1:
            parts += _comparisons(y, preds, labels, g, w, ci, method, n_boot, seed, 0.5, progress)
    if g is not None:
        parts += _reg_per_group(reports, labels, np.asarray(g), w, column, max_group_rows)
    parts += _reg_plots(y, preds, g, w, MAX_POINTS if max_points is None else max_points)
    parts.append("</body></html>")
    return "\n".join(parts)
