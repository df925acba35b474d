"""The HTML report of a regression target (a real target and one or more models' predictions): the
input, every model's measures (``perfeval eval``'s regression defaults, or those asked), with
``groups`` the value over all rows pooled, the mean over the groups and the groups counted, and a
table a model of every group's values; with ``ci`` each value's interval and, with several models,
each compared with the first; the figures of :mod:`perfeval.plot._regression` (actual against
predicted with the line y = x, the residuals against the predictions and their histogram, and by
group).  The page's numbers are :func:`perfeval.evaluate`'s, :func:`perfeval.ci`'s and
:func:`perfeval.stats.compare_models`'s for ``task="regression"``.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
import warnings
from typing import Any

import numpy as np

from perfeval._version import __version__
from perfeval.base.checks import to_numpy

__all__ = ["build_regression"]


def _input(
    y: np.ndarray, models: dict[str, np.ndarray], g: Any, w: Any, source: str, how: str
) -> str:
    from perfeval.plot.html import _table

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
            ["weights", f"{ww.sum():.6g} in all" + (f" ({dropped:,} rows of weight 0 left out)" if dropped else "")]
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
        rows.append([f"prediction range ({name})", f"{pp.min():.6g} .. {pp.max():.6g}" if len(pp) else "empty"])
    return _table(["", "value"], rows, "summary")


def _notes(labels: list[str], reports: dict[str, Any]) -> str:
    """Why a value of the measures table is not a number, as ``perfeval eval`` says it."""
    from perfeval.engine.report import why_not_finite
    from perfeval.plot.html import _esc

    said: dict[tuple[str, str], list[str]] = {}
    for name, rep in reports.items():
        for lab in labels:
            r = rep.results[lab]
            v = float(r.value)
            if math.isfinite(v):
                continue
            where = "in every group" if r.per_group is not None else "for this data"
            why = f"undefined: {r.why}" if r.why else why_not_finite(v, lab, where)
            said.setdefault((lab, (why or "undefined").rstrip(".")), []).append(name)
    notes = []
    for (lab, why), names in said.items():
        who = ""
        if len(reports) > 1:
            who = " of every model" if len(names) == len(reports) else " of " + ", ".join(names)
        notes.append(f"<b>{_esc(lab)}</b>{_esc(who)} is {_esc(why)}.")
    if not notes:
        return ""
    return "<ul class='notes value-notes'>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>"


def _per_group(reports: dict[str, Any], labels: list[str], g: np.ndarray, w: Any, column: str, max_rows: int) -> list[str]:
    """Every model's value of every measure in each group (at most ``max_rows`` groups a model)."""
    from perfeval.plot.html import _cell, _esc, _plain

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
        "is left out of the mean over groups.</p>",
    ]
    for m, rep in reports.items():
        per = {lab: np.asarray(rep.results[lab].per_group, dtype=float) for lab in labels}
        body = []
        for i, k in enumerate([_plain(k) for k in rep.groups][:max_rows]):
            cells = [f"<td class='key'>{_esc(str(k))}</td>", _cell(rows_of.get(k, 0))]
            cells += [_cell(float(per[lab][i])) for lab in labels]
            body.append("<tr>" + "".join(cells) + "</tr>")
        head = "".join(f"<th>{_esc(h)}</th>" for h in ["group", "rows", *labels])
        out += [
            f"<h3>{_esc(m)}</h3>",
            f"<div class='scroll tall' data-model='{_esc(m)}'><table class=\"groups\"><tr>{head}</tr>\n"
            + "\n".join(body)
            + "</table></div>",
        ]
    return out


def _plots(y: np.ndarray, models: dict[str, np.ndarray], g: Any, w: Any, max_points: int) -> list[str]:
    """The figures: actual against predicted, the residuals, and by group."""
    from perfeval.plot import MAX_GROUPS
    from perfeval.plot._regression import predicted_figure, regression_by_group, residuals_figure
    from perfeval.plot.html import _esc, _figure, _png

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
            "their histogram" + (" (weighted)" if w is not None else "") + (", a row a model" if several else "")
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

    from perfeval.api.evaluation import evaluate
    from perfeval.plot._regression import MAX_POINTS
    from perfeval.plot.html import CSS, _comparisons, _esc, _measures_grouped, _measures_plain
    from perfeval.stats import ci as _ci

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
        for name, p in preds.items():
            intervals[name] = _ci(
                y,
                p,
                measures=labels,
                method=method or "bca",
                level=ci,
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
        _input(y, preds, g, w, source, how),
        "<h2>Measures</h2>",
    ]
    column = group_column or "GROUP"
    if g is not None:
        n_groups = len(first.groups)
        parts.append(_measures_grouped(labels, reports, overall, shown, n_groups))
        parts.append(_notes(labels, reports))
        parts.append(
            "<p class='meta'><b>overall</b>: every row pooled, as <code>perfeval eval</code> without "
            f"<code>--group</code>; <b>mean over groups</b>: the value column of <code>perfeval eval "
            f"--group {_esc(column)}</code>, each group's value averaged over the groups where it is "
            "defined; <b>groups counted</b>: those groups.</p>"
        )
    else:
        parts.append(_measures_plain(labels, reports, shown))
        parts.append(_notes(labels, reports))
        parts.append("<p class='meta'>Over all rows, as <code>perfeval eval</code> of the same target.</p>")
    sig = first.signature
    if intervals:
        one = next(iter(next(iter(intervals.values())).values()))
        sig = dataclasses.replace(sig, ci=f"{one.method},n={one.n_boot},seed={seed},level={ci:g}")
    parts.append(f"<p class='meta signature'>Signature: <code>{_esc(str(sig))}</code></p>")
    if intervals:
        assert ci is not None
        from perfeval.stats.intervals import one_sided, undefined_intervals

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
        parts += _per_group(reports, labels, np.asarray(g), w, column, max_group_rows)
    parts += _plots(y, preds, g, w, MAX_POINTS if max_points is None else max_points)
    parts.append("</body></html>")
    return "\n".join(parts)
