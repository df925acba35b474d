"""Exact evaluation on a Dask cluster: per-partition summaries, a tree reduction, one finish.

Every partition is summarised where it lives (a :class:`~perfeval.summaries.ScoreHistogram`: the
distinct scores with their positive and negative weight); summaries are merged eight at a time up a
tree; the client finishes the measures from the one merged summary with the same code as the
in-memory path, so the numbers are the same.  What travels over the wire is summaries: 24 bytes per
distinct score in a partition, never the rows.

Per-group measures (GAUC, NDCG, MAP, ...) shuffle the rows by group so that each partition holds
whole groups, compute the per-group values there, and bring back one row per group.

Uses the caller's ``distributed.Client`` when there is one, else Dask's default scheduler; it never
starts a cluster itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeval._validation import is_dask as _is_dask
from perfeval.exceptions import InvalidParameterError, MissingDependencyError
from perfeval.summaries import ScoreHistogram


def _require():
    try:
        import dask  # noqa: F401
        import dask.dataframe  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            "evaluating a Dask collection needs dask: pip install 'perfeval[dask]'") from None


is_dask = _is_dask  # the test lives at the door, so that evaluate() need not import this module


def _summarize(y, s, w=None) -> ScoreHistogram:
    from perfeval._validation import binary_targets, check_scores, floats, to_numpy

    y = to_numpy(y, "y_true")
    s = floats(to_numpy(s, "y_score"), "y_score")
    check_scores(s)
    return ScoreHistogram.from_arrays(binary_targets(y, "dask evaluation"), s, None if w is None else to_numpy(w, "w"))


def _summarize_frame(pdf, target: str, score: str, weight: str | None) -> tuple[ScoreHistogram, int]:
    return _summarize(pdf[target], pdf[score], None if weight is None else pdf[weight]), len(pdf)


def _merge(parts: list) -> tuple[ScoreHistogram, int]:
    return ScoreHistogram.merge_all([p[0] for p in parts]), sum(p[1] for p in parts)


def tree_summary(pieces: list, split_every: int = 8):
    """A delayed summary: merge the delayed pieces ``split_every`` at a time, level by level."""
    import dask

    level = pieces
    while len(level) > 1:
        level = [dask.delayed(_merge)(level[i:i + split_every]) for i in range(0, len(level), split_every)]
    return level[0]


def evaluate_dask(data: Any, y_score: Any = None, *, target: str | None = None, score: str | None = None,
                  group: str | None = None, weight: str | None = None, measures: Any = None,
                  threshold: float = 0.5, split_every: int = 8):
    """Evaluate a Dask DataFrame (columns by name) or a pair of Dask arrays (targets, scores).

    Returns the :class:`~perfeval.report.Report` of :func:`perfeval.evaluate`, computed on the
    cluster.  Binary measures: exact, from per-partition summaries.  Per-group measures (with
    ``group``): the rows are shuffled by group first.
    """
    _require()
    import dask

    from perfeval.engine import DEFAULT_MEASURES, binary_report, resolve

    specs = resolve(measures or DEFAULT_MEASURES, threshold)
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(data, dd.DataFrame):
        if target is None or score is None:
            raise InvalidParameterError("a Dask DataFrame needs `target=` and `score=` column names")
        missing = [c for c in (target, score, group, weight) if c is not None and c not in data.columns]
        if missing:
            raise InvalidParameterError(f"column {missing[0]!r} is not in the Dask DataFrame "
                                        f"(columns: {', '.join(map(str, data.columns))})")
        if group is not None:
            return _grouped(data, target, score, group, weight, specs, threshold)
        if any(s.measure.kind != "binary" for s in specs):
            name = next(s.label for s in specs if s.measure.kind != "binary")
            raise InvalidParameterError(f"{name} is computed per group: pass `group=`")
        cols = [c for c in (target, score, weight) if c is not None]
        parts = [dask.delayed(_summarize_frame)(p, target, score, weight) for p in data[cols].to_delayed()]
    elif isinstance(data, da.Array):
        if y_score is None or not isinstance(y_score, da.Array):
            raise InvalidParameterError("Dask arrays: pass the targets and the scores as two Dask arrays")
        if data.shape != y_score.shape:
            raise InvalidParameterError(f"targets and scores differ in shape: {data.shape} and {y_score.shape}")
        y_score = y_score.rechunk(data.chunks)
        if any(s.measure.kind != "binary" for s in specs):
            raise InvalidParameterError("per-group measures need a Dask DataFrame with a group column")
        parts = [dask.delayed(lambda a, b: (_summarize(a, b), len(a)))(a, b)
                 for a, b in zip(data.to_delayed().ravel(), y_score.to_delayed().ravel(), strict=False)]
    else:
        raise InvalidParameterError(f"expected a Dask DataFrame or Dask arrays, got {type(data).__name__}")
    if not parts:
        summary, rows = ScoreHistogram.empty(), 0
    else:
        summary, rows = dask.compute(tree_summary(parts, split_every))[0]
    return binary_report(specs, summary, rows=rows, threshold=threshold, weighted=weight is not None,
                         backend="dask")


def _group_values(pdf, target, score, group, weight, specs):
    """Per-group values of every measure for the whole groups of one partition (a small frame)."""
    import pandas as pd

    from perfeval._validation import cases
    from perfeval.engine import finish

    if len(pdf) == 0:
        return pd.DataFrame({"group": [], "size": [], "rows": [], **{s.label: [] for s in specs}})
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = finish(cases(pdf[target].to_numpy(), pdf[score].to_numpy(), pdf[group].to_numpy(),
                         None if weight is None else pdf[weight].to_numpy()), specs, threshold=0.5)
    out = {"group": list(r.groups), "size": r.group_sizes, "rows": pdf.groupby(group, sort=True).size().reindex(
        r.groups).to_numpy()}
    for s in specs:
        out[s.label] = r.results[s.label].per_group
    return pd.DataFrame(out)


def _grouped(ddf, target, score, group, weight, specs, threshold):
    import dask
    import pandas as pd

    from perfeval.engine import grouped_report

    cols = [c for c in (target, score, group, weight) if c is not None]
    shuffled = ddf[cols].shuffle(on=group)
    frames = dask.compute(*[dask.delayed(_group_values)(p, target, score, group, weight, specs)
                            for p in shuffled.to_delayed()])
    table = pd.concat(frames, ignore_index=True).sort_values("group", kind="stable")
    keys = table["group"].to_numpy()
    sizes = table["size"].to_numpy(dtype=np.float64)
    return grouped_report(specs, keys, sizes, {s.label: table[s.label].to_numpy(dtype=np.float64) for s in specs},
                          threshold=threshold, rows=int(table["rows"].sum()), weighted=weight is not None,
                          backend="dask")
