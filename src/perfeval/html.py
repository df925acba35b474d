"""A whole evaluation in one self-contained HTML file: metrics, per-group table, every plot
(embedded PNG), the input's summary, and the exact command and version that made it.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
from typing import Any

import numpy as np

from perfeval._version import __version__

PLOTS = ("roc", "pr", "lift", "calibration", "acc", "cost")

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1100px;
     color:#222}
h1{font-size:1.6em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
th,td{padding:.25em .8em;border-bottom:1px solid #eee}
th{text-align:left;background:#f6f6f6} td.num{text-align:right;font-variant-numeric:tabular-nums}
.meta{color:#555;font-size:.9em} code{background:#f3f3f3;padding:.1em .3em;border-radius:3px}
.plots{display:flex;flex-wrap:wrap;gap:12px} .plots figure{margin:0} .plots img{width:520px;max-width:100%}
figcaption{font-size:.85em;color:#555} .scroll{overflow-x:auto;max-width:100%}
"""


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _fmt(v: float) -> str:
    return "undefined" if math.isnan(v) else f"{v:.6f}"


def _cell(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return '<td class="num">' + ("undefined" if math.isnan(v) else f"{v:.6f}") + "</td>"
    if isinstance(v, (int, np.integer)):
        return f'<td class="num">{v:,}</td>'
    return f"<td>{html.escape(str(v))}</td>"


def _table(head: list[str], rows: list[list[Any]], cls: str = "") -> str:
    out = [
        f'<div class="scroll"><table class="{cls}"><tr>'
        + "".join(f"<th>{html.escape(h)}</th>" for h in head)
        + "</tr>"
    ]
    out += ["<tr>" + "".join(_cell(v) for v in r) + "</tr>" for r in rows]
    return "\n".join(out) + "</table></div>"


def _input_table(y: np.ndarray, g: Any, models: dict[str, Any], source: str, threshold: float) -> str:
    from perfeval._validation import to_numpy

    yy = np.asarray(y, dtype=float)
    summary: list[list[Any]] = [
        ["source", source or "(arrays)"],
        ["rows", int(len(yy))],
        ["positives", int((yy > 0).sum())],
        ["negatives", int((yy <= 0).sum())],
    ]
    if g is not None:
        summary.append(["groups", int(len(np.unique(g)))])
    for name, s in models.items():
        ss = np.asarray(to_numpy(s, "y_score"), dtype=float)
        summary.append([f"score range ({name})", f"{ss.min():.6g} .. {ss.max():.6g}" if len(ss) else "empty"])
    summary.append(["threshold", f"{threshold:g}"])
    return _table(["", "value"], summary, "summary")


def _comparisons(
    y: np.ndarray,
    models: dict[str, Any],
    labels: list[str],
    g: Any,
    ci: float,
    method: str,
    n_boot: int,
    seed: int,
    threshold: float,
    progress: bool = False,
) -> list[str]:
    """Each model against the first: a paired bootstrap of every measure."""
    from perfeval.stats import compare as _compare

    names = list(models)
    base = names[0]
    crow = []
    for other in names[1:]:
        res = _compare(
            y,
            models[other],
            models[base],
            labels,
            method="bca" if method == "delong" else method,
            level=ci,
            n_boot=n_boot,
            seed=seed,
            groups=g,
            threshold=threshold,
            progress=progress,
        )
        for lab, c in res.items():
            crow.append(
                [
                    lab,
                    f"{other} - {base}",
                    c.difference,
                    f"[{_fmt(c.low)}, {_fmt(c.high)}]",
                    f"{c.p_value:.4g}",
                ]
            )
    return [
        f"<h2>Comparisons with {html.escape(base)}</h2>",
        "<p class='meta'>Paired bootstrap on the same cases: the difference, its interval, and the "
        "two-sided p-value of no difference.</p>",
        _table(
            ["measure", "models", "difference", f"{ci * 100:g}% interval", "p-value"], crow, "comparisons"
        ),
    ]


def _tie_bounds(reports: dict[str, Any], labels: list[str]) -> list[str]:
    """Each measure's range over the orders of the tied cases, per model, and the tied pairs."""

    def span(r: Any) -> str:
        if r.tie_min is None or np.isnan(r.tie_min):
            return "no exact bound" if r.tie_note else "-"
        return f"{_fmt(r.tie_min)} \u2013 {_fmt(r.tie_max)}"

    rows = [[lab] + [span(rep.results[lab]) for rep in reports.values()] for lab in labels]
    rows.append(["tied pairs"] + [_fmt(rep.tied_pairs) for rep in reports.values()])
    head = ["measure", *reports]
    return [
        "<h2>Tie bounds</h2>",
        "<p class='meta'>The least and the greatest value of each measure over every order of the tied "
        "cases (exact), and the share of the comparable pairs whose scores are tied: whether ties can "
        "move the ranking of the models.</p>",
        _table(head, rows, "tie-bounds"),
    ]


def _per_group(name: str, report: Any, labels: list[str], max_rows: int) -> list[str]:
    """The first model's value of every measure in each group (at most ``max_rows`` groups)."""
    keys = list(report.groups)
    per_group = {lab: np.asarray(report.results[lab].per_group) for lab in labels}
    grows = [[k] + [float(per_group[lab][i]) for lab in labels] for i, k in enumerate(keys[:max_rows])]
    note = f" (first {max_rows} of {len(keys)})" if len(keys) > max_rows else ""
    und = [[lab, len(report.results[lab].undefined)] for lab in labels if report.results[lab].undefined]
    out = [f"<h2>Per group: {html.escape(name)}{note}</h2>", _table(["group"] + labels, grows, "groups")]
    if und:
        out += [
            "<p class='meta'>Groups where a measure is undefined (left out of its mean):</p>",
            _table(["measure", "undefined groups"], und, "undefined"),
        ]
    return out


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
    method: str = "bca",
    tie_bounds: bool = False,
    progress: bool = False,
) -> str:
    """The HTML text of a report on one or more models' scores for the same cases.

    With ``ci`` (a level such as 0.95), every measure gets a confidence interval
    (:func:`perfeval.ci`), and with several models each is compared with the first
    (:func:`perfeval.compare`: difference, interval, p-value).  With ``tie_bounds``, a table of each
    measure's least and greatest value over every order of the tied cases, per model, and the share
    of tied pairs (``evaluate(..., tie_bounds=True)``).  ``progress``: show the bootstrap's
    replicates on standard error.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    from perfeval._validation import to_numpy
    from perfeval.engine import DEFAULT_MEASURES
    from perfeval.evaluation import evaluate
    from perfeval.plot import TITLES, CurveDisplay, plot_by_group

    y = to_numpy(y_true, "y_true")
    g = None if groups is None else to_numpy(groups, "groups")
    measures = measures or DEFAULT_MEASURES
    import warnings

    reports = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, s in models.items():
            reports[name] = evaluate(
                y, s, measures=measures, groups=g, threshold=threshold, tie_bounds=tie_bounds
            )
    first = next(iter(reports.values()))
    labels = list(first.results)
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>perfeval report</title>"
        f"<style>{CSS}</style></head><body>",
        "<h1>Evaluation report</h1>",
        f"<p class='meta'>perfeval {__version__} &middot; "
        f"{html.escape(_dt.datetime.now().isoformat(timespec='seconds'))}"
        f"<br>command: <code>{html.escape(command)}</code></p>",
    ]
    parts += ["<h2>Input</h2>", _input_table(y, g, models, source, threshold)]
    # metrics
    intervals: dict[str, dict] = {}
    if ci is not None:
        from perfeval.stats import ci as _ci

        for name, s in models.items():
            intervals[name] = _ci(
                y,
                s,
                labels,
                method=method,
                level=ci,
                n_boot=n_boot,
                seed=seed,
                groups=g,
                threshold=threshold,
                progress=progress,
            )

    def shown(name: str, lab: str) -> Any:
        v = reports[name].results[lab].value
        iv = intervals.get(name, {}).get(lab)
        if iv is None:
            return v
        return f"{_fmt(v)} [{_fmt(iv.low)}, {_fmt(iv.high)}]"

    head = ["measure", "better"] + list(models)
    rows = [[lab, first.results[lab].direction] + [shown(m, lab) for m in models] for lab in labels]
    parts += [
        "<h2>Measures</h2>",
        "<p class='meta'>"
        + (
            "Over groups: the mean over the groups where a measure is defined (GAUC: weighted by group size)."
            if g is not None
            else "Over all cases."
        )
        + "</p>",
        _table(head, rows, "measures"),
    ]
    sig = first.signature
    if intervals:
        import dataclasses

        one = next(iter(next(iter(intervals.values())).values()))
        how = "delong" if one.method == "delong" else f"{one.method},n={one.n_boot},seed={seed}"
        sig = dataclasses.replace(sig, ci=f"{how},level={ci:g}")
    parts.append(f"<p class='meta signature'>Signature: <code>{html.escape(str(sig))}</code></p>")
    if intervals:
        assert ci is not None  # intervals are drawn only at a level
        one = next(iter(next(iter(intervals.values())).values()))
        how = (
            "DeLong"
            if one.method == "delong"
            else (f"{one.method} bootstrap, {one.n_boot} replicates, seed {seed}, {one.resampled} resampled")
        )
        parts.append(
            f"<p class='meta'>In brackets: {ci * 100:g}% confidence intervals ({html.escape(how)}).</p>"
        )
        if len(models) > 1:
            parts += _comparisons(y, models, labels, g, ci, method, n_boot, seed, threshold, progress)
    if tie_bounds:
        parts += _tie_bounds(reports, labels)
    if g is not None:
        name0 = next(iter(models))
        parts += _per_group(name0, reports[name0], labels, max_group_rows)
    # plots
    parts.append("<h2>Plots</h2><div class='plots'>")
    for kind in PLOTS:
        d = CurveDisplay.from_models(y, models, kind=kind, threshold=threshold).plot()
        parts.append(
            f"<figure><img alt='{kind}' data-kind='{kind}' src='data:image/png;base64,{_png(d.figure_)}'>"
            f"<figcaption>{html.escape(TITLES[kind])}</figcaption></figure>"
        )
    if g is not None:
        name0, s0 = next(iter(models.items()))
        fig = plot_by_group("roc", y, s0, g, threshold=threshold)
        parts.append(
            f"<figure><img alt='roc by group' data-kind='roc-groups' src='data:image/png;base64,{_png(fig)}'>"
            f"<figcaption>ROC curve of the largest groups ({html.escape(name0)})</figcaption></figure>"
        )
    parts.append("</div></body></html>")
    return "\n".join(parts)
