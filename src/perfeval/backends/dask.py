"""Exact evaluation on a Dask cluster: per-partition summaries, a tree reduction, one finish.

Every partition is summarised where it lives (a :class:`~perfeval.summaries.ScoreHistogram`: the
distinct scores with their positive and negative weight); summaries are merged eight at a time up a
tree; the client finishes the measures from the one merged summary with the same code as the
in-memory path, so the numbers are the same.  What travels over the wire is summaries: 24 bytes per
distinct score in a partition, never the rows.

Per-group measures (GAUC, NDCG, MAP, ...) shuffle the rows by group so that each partition holds
whole groups, compute the per-group values there, and bring back one row per group.

:func:`evaluate_dask` uses the caller's ``distributed.Client`` when there is one, else Dask's default
scheduler; it never starts a cluster itself.  For the command line, :func:`connect` starts or reaches
one and :func:`read_files` reads files into a frame with checked columns.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from perfeval.base.checks import is_dask as _is_dask
from perfeval.exceptions import InvalidParameterError, MissingDependencyError
from perfeval.summaries import ScoreHistogram


def _require():
    try:
        import dask  # noqa: F401
        import dask.dataframe  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            "evaluating a Dask collection needs dask: pip install 'perfeval[dask]'"
        ) from None


is_dask = _is_dask  # the test lives at the door, so that evaluate() need not import this module


#: the end of the message for targets that are not 0/1 (the command line says it in its words)
CODE_TARGETS = "name the positive label with `pos_label=` (the others are negative), or code the column so"
#: the same for graded targets: several grades positive
CODE_GRADES = "code the column so (grades above 0: 1), or evaluate in memory with `partitions=`"


def _summarize(y, s, w=None) -> ScoreHistogram:
    from perfeval.base.checks import LabelWords, binary_targets, check_scores, floats, to_numpy

    y = to_numpy(y, "y_true")
    s = floats(to_numpy(s, "y_score"), "y_score")
    check_scores(s)
    words = LabelWords(pos_label=False, whole=False)  # a chunk's targets; no pos_label on Dask
    return ScoreHistogram.from_arrays(
        binary_targets(y, "dask evaluation", words=words), s, None if w is None else to_numpy(w, "w")
    )


def _column_values(pdf, name: str, role: str) -> np.ndarray:
    """A score or weight column of a partition as float64, or an error naming the column (a row's
    index within a partition would mislead, and the partition's place in the file is not known).
    """
    from perfeval.exceptions import InvalidDataError
    from perfeval.io import grammar

    arr = pdf[name].to_numpy()
    kind = arr.dtype.kind
    if kind in "mM":  # dates and durations: numpy would count their nanoseconds
        first = arr[:1].astype("M8[us]" if kind == "M" else "m8[us]").astype(object)[0]
        raise InvalidDataError(f"the {role} column {name!r} holds {str(first)!r}, not a number")
    try:
        if kind in "biuf":
            v = arr.astype(np.float64)
        else:  # text (pandas could not read the column as numbers): the readers' one grammar, not
            # Python's float(), which takes 1_000, full-width and Arabic-Indic digits
            text = [x.strip() if isinstance(x, str) else str(x) for x in arr.tolist()]
            if grammar.first_bad_number(text) >= 0:
                raise ValueError
            v = np.array(text, dtype=np.float64)
    except (TypeError, ValueError):
        text = [str(x) for x in arr.tolist()]
        bad = text[max(grammar.first_bad_number([t.strip() for t in text]), 0)]
        raise InvalidDataError(
            f"the {role} column {name!r} holds {bad!r}, not a number"
            + (" (an empty cell: every row needs one)" if not bad.strip() else "")
        ) from None
    bad = ~np.isfinite(v) if role == "score" else ~(np.isfinite(v) & (v >= 0))
    if bad.any():
        x = float(v[bad][0])
        what = "scores must be finite numbers" if role == "score" else "weights must be finite numbers >= 0"
        missing = " (an empty cell, or NaN)" if np.isnan(x) else ""
        raise InvalidDataError(f"the {role} column {name!r} holds {x!r}{missing}; {what}")
    return v


def _no_missing_target(pdf, target: str) -> np.ndarray:
    """The target column of a partition, or an error when a row has none (NaN)."""
    from perfeval.exceptions import InvalidDataError

    y = pdf[target].to_numpy()
    if (y.dtype.kind == "f" and bool(np.isnan(y).any())) or (
        y.dtype.kind == "O" and bool(pdf[target].isna().any())
    ):
        raise InvalidDataError(
            f"the target column {target!r} holds a missing value (NaN): every row needs a target"
        )
    return y


def _summarize_frame(
    pdf, target: str, score: str, weight: str | None, pos_label: Any = None
) -> tuple[ScoreHistogram, int, frozenset, tuple[bool, frozenset]]:
    """A partition's summary, its rows, which of the labels -1 and 0 it holds (a partition of -1/1
    and another of 0/1 are not one coding: checked when the summaries merge), and with
    ``pos_label`` whether it holds that label and the others it holds (:func:`coded_labels`).
    """
    from perfeval.base.checks import binary_coding
    from perfeval.exceptions import InvalidDataError

    if len(pdf) == 0:  # an empty partition (a file of a header only): nothing to add
        return ScoreHistogram.empty(), 0, frozenset(), (False, frozenset())
    y = _no_missing_target(pdf, target)
    coded: np.ndarray | None
    if pos_label is not None:
        coded, labels = coded_labels(y, pos_label)
        found: frozenset = frozenset()
    else:
        coded, labels, found = binary_coding(y), (False, frozenset()), _labels_found(y)
    if coded is None:
        raise InvalidDataError(_labels_message(target, y))
    s = _column_values(pdf, score, "score")
    w = None if weight is None else _column_values(pdf, weight, "weight")
    return ScoreHistogram.from_arrays(coded, s, w), len(pdf), found, labels


def coded_labels(y: np.ndarray, pos_label: Any) -> tuple[np.ndarray, tuple[bool, frozenset]]:
    """A partition's targets coded 1 where the label is ``pos_label`` and 0 elsewhere, by the rule of
    every reader (:func:`perfeval.io.grammar.label_hits`: ``1``, ``1.0`` and 1 are one label), with
    whether the label occurs and the other labels (:func:`perfeval.io.grammar.other_labels`).
    """
    from perfeval.io.grammar import label_hits, other_labels

    y = np.asarray(y)
    coded = label_hits(y, pos_label)
    return coded, (bool(coded.any()), frozenset(other_labels(y, coded)))


def _labels_message(target: str, y: np.ndarray, numbers: bool = False) -> str:
    """Targets of a partition that are not 0/1: what they look like (two labels, classes, grades, a
    regression target: :func:`perfeval._validation.read_targets`) and what to do on Dask (two
    labels: the one that looks positive offered, ```pos_label='click'```).  ``numbers``: the
    measures read numbers (GAUC, NDCG, ...), not 0/1 alone.
    """
    from perfeval.base.checks import LabelWords, positive_choice, read_targets, shown_label

    said = read_targets(y, LabelWords(pos_label=False, whole=False))
    if said.kind == "regression":
        return f"the target column {target!r} {said.what}; {said.advice}"
    tail = CODE_GRADES if said.kind == "grades" else CODE_TARGETS
    if said.kind == "labels":
        choice = positive_choice(np.unique(y))
        if choice is not None:
            tail = tail.replace(", or ", f", e.g. `pos_label={shown_label(choice)!r}`, or ", 1)
    need = (
        "the measures asked read numbers (0/1, or graded relevance: above 0 relevant)"
        if numbers
        else "binary measures need 0/1 (or -1/1, booleans) targets"
    )
    return f"the target column {target!r} {said.what}{':' if said.kind == 'labels' else ';'} {need}; {tail}"


def _no_text_labels(y: np.ndarray, target: str) -> None:
    """A partition's targets of labels (no value a number: click/no) where the measures read numbers
    (GAUC, NDCG, MAP): an error offering ``pos_label=``, as the binary measures' does.
    """
    from perfeval.exceptions import InvalidDataError
    from perfeval.io import grammar

    if y.dtype.kind not in "OUS":
        return
    values = [str(v) for v in y.tolist()]
    if values and not any(grammar.is_number(v) for v in values):
        raise InvalidDataError(_labels_message(target, np.asarray(values), numbers=True))


def _labels_found(y: np.ndarray) -> frozenset:
    """Which of the labels -1 and 0 the (0/1 or -1/1) targets ``y`` hold."""
    y = np.asarray(y)
    return frozenset(v for v in (-1, 0) if y.dtype.kind in "iuf" and bool(np.any(y == v)))


def _merge(parts: list) -> tuple[ScoreHistogram, int, frozenset, tuple[bool, frozenset]]:
    found = frozenset().union(*(p[2] for p in parts))
    if len(found) > 1:
        from perfeval.exceptions import InvalidDataError

        raise InvalidDataError(
            f"the target column holds -1, 0 and 1 between its partitions: binary measures need 0/1 "
            f"(or -1/1, booleans) targets; {CODE_TARGETS}"
        )
    labels = (any(p[3][0] for p in parts), frozenset().union(*(p[3][1] for p in parts)))
    return ScoreHistogram.merge_all([p[0] for p in parts]), sum(p[1] for p in parts), found, labels


def _pos_label_found(
    pos_label: Any, target: str | None, labels: tuple[bool, frozenset], read: dict | None
) -> None:
    """The labels read with ``pos_label`` put in ``read`` (``"others"``: the labels read as negative);
    a label found in no partition is an error naming the labels there are.
    """
    from perfeval.exceptions import InvalidDataError
    from perfeval.io.grammar import labels_text

    if read is not None:
        read["others"] = set(labels[1])
    if not labels[0]:
        where = "the targets" if target is None else f"the target column {target!r}"
        raise InvalidDataError(
            f"pos_label={pos_label!r} does not occur in {where} (labels: {labels_text(set(labels[1]), 8)})"
        )


def tree_summary(pieces: list, split_every: int = 8):
    """A delayed summary: merge the delayed pieces ``split_every`` at a time, level by level."""
    import dask

    level = pieces
    while len(level) > 1:
        level = [dask.delayed(_merge)(level[i : i + split_every]) for i in range(0, len(level), split_every)]
    return level[0]


def evaluate_dask(
    data: Any,
    y_score: Any = None,
    *,
    target: str | None = None,
    score: str | None = None,
    group: str | None = None,
    weight: str | None = None,
    measures: Any = None,
    threshold: float = 0.5,
    split_every: int = 8,
    pos_label: Any = None,
    labels_read: dict | None = None,
):
    """Evaluate a Dask DataFrame (columns by name) or a pair of Dask arrays (targets, scores).

    Returns the :class:`~perfeval.report.Report` of :func:`perfeval.evaluate`, computed on the
    cluster.  Binary measures: exact, from per-partition summaries.  Per-group measures (with
    ``group``): the rows are shuffled by group first.

    ``pos_label`` (a DataFrame's target): the positive label, every other label negative; a label
    is compared by its value when it is a number (``1``, ``1.0`` and ``"1"`` are one label, however
    a partition's column was typed), else by its text (:func:`perfeval.io.grammar.label_key`).
    ``labels_read``, a dict, gets ``"others"``: the labels read as negative.
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
            raise InvalidParameterError(
                f"column {missing[0]!r} is not in the Dask DataFrame "
                f"(columns: {', '.join(map(str, data.columns))})"
            )
        if group is not None:
            return _grouped(data, target, score, group, weight, specs, threshold, pos_label, labels_read)
        if any(s.measure.kind != "binary" for s in specs):
            name = next(s.label for s in specs if s.measure.kind != "binary")
            raise InvalidParameterError(f"{name} is computed per group: pass `group=`")
        cols = [c for c in (target, score, weight) if c is not None]
        parts = [
            dask.delayed(_summarize_frame)(p, target, score, weight, pos_label)
            for p in data[cols].to_delayed()
        ]
    elif isinstance(data, da.Array):
        if y_score is None or not isinstance(y_score, da.Array):
            raise InvalidParameterError("Dask arrays: pass the targets and the scores as two Dask arrays")
        if data.shape != y_score.shape:
            raise InvalidParameterError(
                f"targets and scores differ in shape: {data.shape} and {y_score.shape}"
            )
        y_score = y_score.rechunk(data.chunks)
        if any(s.measure.kind != "binary" for s in specs):
            raise InvalidParameterError("per-group measures need a Dask DataFrame with a group column")
        parts = [
            dask.delayed(_summarize_arrays)(a, b, pos_label)
            for a, b in zip(data.to_delayed().ravel(), y_score.to_delayed().ravel(), strict=False)
        ]
    else:
        raise InvalidParameterError(f"expected a Dask DataFrame or Dask arrays, got {type(data).__name__}")
    labels: tuple[bool, frozenset]
    if not parts:
        summary, rows, labels = ScoreHistogram.empty(), 0, (False, frozenset())
    else:
        summary, rows, _found, labels = dask.compute(tree_summary(parts, split_every))[0]
    if pos_label is not None:
        _pos_label_found(pos_label, None if target is None else str(target), labels, labels_read)
    report = binary_report(
        specs, summary, rows=rows, threshold=threshold, weighted=weight is not None, backend="dask"
    )
    if pos_label is not None:
        report.params["pos_label"] = pos_label
    return report


def _summarize_arrays(
    y: np.ndarray, s: np.ndarray, pos_label: Any = None
) -> tuple[ScoreHistogram, int, frozenset, tuple[bool, frozenset]]:
    """A chunk of Dask arrays summarised as :func:`_summarize_frame` summarises a partition (with
    ``pos_label``: the targets coded by :func:`coded_labels`).
    """
    if pos_label is None:
        return _summarize(y, s), len(y), _labels_found(y), (False, frozenset())
    coded, labels = coded_labels(y, pos_label)
    return _summarize(coded, s), len(y), frozenset(), labels


def _group_values(pdf, target, score, group, weight, specs, pos_label=None):
    """Per-group values of every measure for the whole groups of one partition (a small frame), and
    with ``pos_label`` whether the partition holds it and its other labels (:func:`coded_labels`).
    """
    import pandas as pd

    from perfeval.base.checks import cases
    from perfeval.engine import finish

    labels: tuple[bool, frozenset] = (False, frozenset())
    if len(pdf) == 0:  # the group column keeps its type: an empty float column would make every
        # partition's int64 ids floats when they are put together (ids past 2^53 merged)
        ids = pd.Series([], dtype=pdf[group].dtype)
        empty = pd.DataFrame({"group": ids, "size": [], "rows": [], **{s.label: [] for s in specs}})
        return empty, labels
    _no_missing_target(pdf, target)
    if pos_label is not None:
        coded, labels = coded_labels(pdf[target].to_numpy(), pos_label)
        pdf = pdf.assign(**{target: coded})
    else:
        _no_text_labels(pdf[target].to_numpy(), target)
    _column_values(pdf, score, "score")  # errors naming the column, not a row of the partition
    if weight is not None:
        _column_values(pdf, weight, "weight")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = finish(
            cases(
                pdf[target].to_numpy(),
                pdf[score].to_numpy(),
                pdf[group].to_numpy(),
                None if weight is None else pdf[weight].to_numpy(),
            ),
            specs,
            threshold=0.5,
        )
    out = {
        "group": list(r.groups),
        "size": r.group_sizes,
        "rows": pdf.groupby(group, sort=True).size().reindex(r.groups).to_numpy(),
    }
    for s in specs:
        out[s.label] = r.results[s.label].per_group
    return pd.DataFrame(out), labels


def _grouped(ddf, target, score, group, weight, specs, threshold, pos_label=None, labels_read=None):
    import dask
    import pandas as pd

    from perfeval.engine import grouped_report

    cols = [c for c in (target, score, group, weight) if c is not None]
    shuffled = ddf[cols].shuffle(on=group)
    got = dask.compute(
        *[
            dask.delayed(_group_values)(p, target, score, group, weight, specs, pos_label)
            for p in shuffled.to_delayed()
        ]
    )
    if pos_label is not None:
        labels = (any(g[1][0] for g in got), frozenset().union(*(g[1][1] for g in got)))
        _pos_label_found(pos_label, None if target is None else str(target), labels, labels_read)
    table = pd.concat([g[0] for g in got], ignore_index=True).sort_values("group", kind="stable")
    keys = table["group"].to_numpy()
    sizes = table["size"].to_numpy(dtype=np.float64)
    return grouped_report(
        specs,
        keys,
        sizes,
        {s.label: table[s.label].to_numpy(dtype=np.float64) for s in specs},
        threshold=threshold,
        rows=int(table["rows"].sum()),
        weighted=weight is not None,
        backend="dask",
        pos_label=pos_label,
    )


# --- files and clusters: what the command line's --dask needs -------------------------------------


@contextlib.contextmanager
def connect(address: str) -> Iterator[Any]:
    """A ``distributed.Client`` for ``address`` (``tcp://host:8786``; ``local`` or ``local:N`` starts
    N local worker processes, one thread each), closed with its cluster on exit.

    Raises
    ------
    InvalidParameterError
        ``local:N`` with N outside 1..4096 (``local:0`` would wait for a worker forever), or no
        scheduler reachable at the address.
    MissingDependencyError
        dask or distributed is not installed.
    """
    import logging
    import os
    import warnings

    from perfeval.base.console import one_line

    # Dask's log lines stay off our stderr (a failed task is our one line): in this process, and in the
    # worker processes a local cluster starts, which read this from their environment (a user's own
    # DASK_LOGGING__DISTRIBUTED wins)
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
    try:
        import distributed
    except ImportError:
        raise MissingDependencyError("--dask needs dask: pip install 'perfeval[dask]'") from None
    for name in ("distributed", "tornado", "bokeh"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    with warnings.catch_warnings():
        # nor its warnings ("Port 8787 is already in use", sockets a closing cluster leaves): the
        # cluster's chatter, not the data's
        warnings.filterwarnings("ignore", module=r"(distributed|tornado|bokeh)(\.|$)")
        warnings.filterwarnings("ignore", category=ResourceWarning)
        cluster = None
        if address == "local" or address.startswith("local:"):
            n = address.partition(":")[2]
            if n and not (n.isdigit() and 1 <= int(n) <= 4096):
                raise InvalidParameterError(
                    f"--dask {one_line(address)}: expected local or local:N with N workers from 1 to 4096"
                )
            workers = int(n or (os.cpu_count() or 1))
            cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, dashboard_address=None
            )
            client = distributed.Client(cluster)
        else:
            try:
                client = distributed.Client(address, timeout=20)
            except (OSError, ValueError, TypeError) as e:
                raise InvalidParameterError(
                    f"--dask {one_line(address)}: cannot reach a Dask scheduler there ({one_line(e)})"
                ) from None
        try:
            yield client
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _file_format(path: str, fmt: str) -> str:
    """The format of the files ``path`` names: as given, else that of the first, by its name (under
    ``.gz``/``.bz2``/``.xz`` too) or its first bytes, as the table readers tell it.
    """
    if fmt != "auto":
        return fmt
    from perfeval.io.tables import BOM, clean, guess_format, open_bytes

    first = _files(path)[0]
    try:
        fh = open_bytes(first, first)
    except Exception:  # not a local file (s3://...): by its name
        return guess_format(first, b"")
    try:
        head = fh.read(1 << 16)
    finally:
        fh.close()
    return guess_format(first, clean(head, True).lstrip(BOM))


def read_files(
    path: str,
    *,
    fmt: str = "auto",
    header: bool | None = None,
    target: str | None = None,
    score: str | None = None,
    group: str | None = None,
    weight: str | None = None,
    delimiter: str | None = None,
    read: dict | None = None,
) -> tuple[Any, Any]:
    """Files (a path, a glob or a directory of CSV/TSV/text/JSON lines/Parquet) as a Dask DataFrame
    with the columns chosen as the table reader chooses them.

    Returns ``(frame, choice)``: the frame's columns are named (``column1``... without a header), the
    group column is an identity (int64 or text, never float), and every file of a glob was checked to
    hold the chosen columns before any work starts; the bytes of text files are checked on the
    workers as the table readers check them (:func:`check_text_files`).  The header and the CSV
    delimiter are told from the first file by the table readers' rule (``delimiter``: as given).
    ``choice`` is the :class:`~perfeval.io.columns.Choice` made.  ``read``, a dict, gets the format
    (``"format"``), whether there is a header (``"header"``), the CSV delimiter (``"delimiter"``)
    and, for text files without one, the lines skipped as comments (``"skipped"``: ``{file:
    Skipped}``, to be said as the other readers say them).  A text file pandas' parser refuses (a
    quote never closed, a row of another width) is the table readers' error (:func:`said_as_read`).
    """
    _require()
    import dask.dataframe as dd

    from perfeval.exceptions import InputFormatError
    from perfeval.io.columns import choose

    fmt = _file_format(path, fmt)
    if fmt in ("parquet", "jsonl"):
        if read is not None:
            read.update(format=fmt, header=True, delimiter=None)
        if fmt == "parquet":
            _unique_names(path)
            return _columns(dd.read_parquet(path), path, fmt, True, {}, target, score, group, weight)
        # JSON lines: read by the table reader, file by file, once the group is known
        names = _jsonl_names(path)
        ch = choose(names, path, header=True, target=target, score=score, group=group, weight=weight)
        return _jsonl_frame(path, names, ch.group.index if ch.group is not None else None), ch
    # told from the first file as the other readers tell it (never assumed): the header, and the
    # delimiter (an Excel CSV's ';')
    lay = _first_layout(path, fmt, header, delimiter)
    if lay is None:
        raise InputFormatError("holds no data", source=_files(path)[0])
    fmt = lay.fmt
    skipped = check_text_files(path, fmt != "text", comments=not lay.header)
    if read is not None:
        read.update(format=fmt, header=lay.header, delimiter=lay.delim, skipped=skipped)
    # without a header (PERF's files) a line starting with '#' is a comment; after a header it is a
    # row (#N/A: a missing value), as the table readers have it (pandas' comment= would cut a line at
    # a '#' anywhere: check_text_files refuses one inside a line of such a file)
    kw = {
        "sep": lay.delim or r"\s+",
        "comment": None if lay.header else "#",
        "skiprows": max(lay.skip_lines - 1, 0),
    }
    try:
        return _columns(
            dd.read_csv(path, header=0 if lay.header else None, **kw),
            path,
            fmt,
            lay.header,
            kw,
            target,
            score,
            group,
            weight,
        )
    except Exception as e:  # pandas' parser refused a file: the table readers say where and why
        if unparsed(e):
            raise said_as_read(path, fmt, lay.header, lay.delim, e) from None
        raise


def _columns(
    ddf: Any,
    path: str,
    fmt: str,
    header: bool,
    kw: dict,
    target: str | None,
    score: str | None,
    group: str | None,
    weight: str | None,
) -> tuple[Any, Any]:
    """The frame's columns named and chosen, the group column an identity (:func:`read_files`)."""
    import dask.dataframe as dd

    from perfeval.io.columns import choose

    keys = list(ddf.columns)
    names = [str(c) for c in keys] if header else [f"column{i + 1}" for i in range(len(keys))]
    ch = choose(names, path, header=bool(header), target=target, score=score, group=group, weight=weight)
    if ch.group is not None and fmt not in ("parquet", "jsonl"):  # the group column read as text
        ddf = dd.read_csv(
            path, header=0 if header else None, dtype={keys[ch.group.index]: str}, keep_default_na=False, **kw
        )
    if not header:
        ddf.columns = names
    if header:  # every file of a glob holds the columns chosen from the first one's
        used = [names[c.index] for c in (ch.target, ch.score, ch.group, ch.weight) if c is not None]
        _files_hold(path, fmt, used)
    if ch.group is not None:
        ddf = _identity(ddf, names[ch.group.index], path, "--group")
    return ddf, ch


def unparsed(e: BaseException) -> bool:
    """Whether ``e`` is pandas' CSV parser refusing a file's text (raised on a worker, or wrapped by
    Dask's reading of the first file's head): a quote never closed, a row of another width.
    """
    import pandas as pd

    seen: set[int] = set()
    at: BaseException | None = e
    while at is not None and id(at) not in seen:
        if isinstance(at, pd.errors.ParserError):
            return True
        seen.add(id(at))
        at = at.__cause__ or at.__context__
    return False


def said_as_read(pattern: str, fmt: str, header: bool, delimiter: str | None, e: BaseException) -> Exception:
    """The error of a text file that pandas' parser refused (:func:`unparsed`), as the table readers
    say it: each file ``pattern`` names read by the chunked reader (:func:`perfeval.stream.iter_columns`,
    with the header and delimiter told from the first file) up to the first problem, its file and
    line named (a quote never closed: the line where it opens).  When they read every file, pandas'
    own words, the file named.
    """
    import warnings

    from perfeval.backends.stream import iter_columns
    from perfeval.base.console import one_line
    from perfeval.exceptions import InputFormatError, PerfError

    files = _files(pattern)
    for f in files:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # comment lines: said when the files are read
                for _ in iter_columns(f, [], fmt, header, delimiter=delimiter):
                    pass
        except PerfError as found:
            return found
    return InputFormatError(
        f"cannot be read by Dask's CSV reader ({one_line(e)})",
        source=files[0] if len(files) == 1 else pattern,
    )


def _jsonl_names(pattern: str) -> list[str]:
    """The field names of the first record of the first JSON lines file, as the table reader takes
    them; that file's first problem, as the table reader says it, when there is no such record.
    """
    from perfeval.io.tables import clean, load_record, open_bytes, read_table

    first = _files(pattern)[0]
    fh = open_bytes(first, first)
    head = b""
    try:
        while True:  # up to the first line that is not blank (not the whole file)
            block = fh.read(1 << 16)
            head += block
            lines = clean(head, True).split(b"\n")
            text = next((ln.strip() for ln in lines[:-1] if ln.strip()), None)
            if text is None and not block:
                text = lines[-1].strip() or None
            if text is not None or not block:
                break
    finally:
        fh.close()
    try:
        rec = load_record(text) if text is not None else None
    except (ValueError, RecursionError):  # a key named twice too: said as read whole
        rec = None
    if isinstance(rec, dict):
        return list(rec)
    read_table(first, "jsonl")  # the file's error, said as read whole
    raise AssertionError("unreachable: a JSON lines file without a first record")  # pragma: no cover


def _jsonl_part(path: str, names: list[str], group: int | None) -> Any:
    """A JSON lines file read by the table reader (:func:`perfeval.io.tables.read_table`: the
    same values, types and errors, with the file's line, as read whole; an integer past float64
    is +-inf, a boolean is no number), as a pandas frame of the columns ``names``.
    """
    import pandas as pd

    from perfeval.exceptions import InputFormatError
    from perfeval.io.tables import read_table

    gname = None if group is None else names[group]
    t = read_table(
        path, "jsonl", identity=lambda found, _h: {found.index(gname): "--group"} if gname in found else {}
    )
    missing = [n for n in names if n not in t.columns]
    if missing:
        raise InputFormatError(
            f"has no field {missing[0]!r} (its fields: {', '.join(map(str, t.names))})", source=path
        )
    return pd.DataFrame({n: t.columns[n] for n in names})


def _jsonl_frame(pattern: str, names: list[str], group: int | None) -> Any:
    """JSON lines files as a Dask frame, a partition a file, each read on a worker by the table
    reader (:func:`_jsonl_part`); pandas' JSON reader took ``"1_000"`` and ``true`` for numbers and
    failed on an integer past 64 bits or a line that is not an object (an internal error).
    """
    import dask
    import dask.dataframe as dd

    parts = [dask.delayed(_jsonl_part)(f, names, group) for f in _files(pattern)]
    return dd.from_delayed(parts, verify_meta=False)


def _files(pattern: str) -> list[str]:
    """The files a path, a glob or a directory names, in order."""
    import glob
    import os

    if os.path.isdir(pattern):
        return sorted(
            os.path.join(dp, f)
            for dp, _dirs, fs in os.walk(pattern)
            for f in fs
            if not f.startswith((".", "_"))
        )
    return sorted(glob.glob(pattern)) or [pattern]


def _first_layout(pattern: str, fmt: str, header: bool | None, delimiter: str | None) -> Any:
    """The :class:`~perfeval.io.tables.Layout` of the first text file ``pattern`` names, by the rule
    of the table readers (:func:`perfeval.io.tables.layout`: a header is a first-row field that is
    not a number over a number, refused when the line may as well be a row; pandas' default names
    ``0,1`` over floats are an error asking for --header or --no-header); None when its first 64 KiB
    hold no data line.
    """
    from perfeval.backends.stream import text_layout

    return text_layout(_files(pattern)[0], fmt, header, delimiter)


#: bytes of a text file a worker checks at a time (:func:`check_text_files`)
CHECK_BYTES = 64 << 20


def check_text_files(pattern: str, quoted: bool, comments: bool = False) -> dict[str, Any]:
    """The bytes of every text file ``pattern`` names checked on the workers as the table readers
    check a file (:func:`perfeval.io.tables.check_bytes`: a NUL byte, or a character that is a line
    end to some readers and not to others, such as a form feed, outside quotes when ``quoted``):
    one line naming the file, the line and the column, before any work starts.  Each file is read
    in blocks of whole lines (one block for a compressed file), its lines counted block by block.

    ``comments`` (a file without a header): the lines starting with '#' are comments, returned as
    ``{file: Skipped}`` to be said; a '#' inside a line is refused (pandas would cut the line there,
    where the table readers read a field).
    """
    import dask
    from dask.bytes import read_bytes

    from perfeval.exceptions import InputFormatError
    from perfeval.io.tables import COMPRESSED_EXT, Skipped

    tasks = []
    for f in _files(pattern):
        compressed = f.lower().endswith(COMPRESSED_EXT)
        if compressed:  # one block, read on a worker by the table readers' own opening, whose
            # errors name the file (a corrupt or cut gzip: CRC check failed, EOFError)
            tasks.append((f, [dask.delayed(_check_compressed)(f, quoted, comments)]))
            continue
        _, blocks, paths = read_bytes(
            f,
            delimiter=b"\n",
            blocksize=None if compressed else CHECK_BYTES,
            sample=False,
            compression="infer" if compressed else None,
            include_path=True,
        )
        for name, file_blocks in zip(paths, blocks, strict=True):
            shown = f if len(paths) == 1 else name
            tasks.append(
                (
                    shown,
                    [
                        dask.delayed(_check_block)(b, k == 0, quoted, comments)
                        for k, b in enumerate(file_blocks)
                    ],
                )
            )
    results = dask.compute([t for _, t in tasks])[0]
    out: dict[str, Any] = {}
    for (name, _), found in zip(tasks, results, strict=True):
        line0 = 0
        skipped = out.setdefault(name, Skipped())
        for lines, bad, (count, first) in found:
            if bad is not None:
                raise InputFormatError(bad[1], source=name, line=line0 + bad[0])
            skipped.merge(Skipped(count, [line0 + k for k in first]))
            line0 += lines
    return out


def _check_compressed(path: str, quoted: bool, comments: bool) -> tuple[int, Any, tuple]:
    """:func:`_check_block` of a compressed file, read whole by :func:`perfeval.io.tables.open_bytes`
    (a file that cannot be decompressed is an error naming it, as read whole).
    """
    from perfeval.io.tables import open_bytes

    fh = open_bytes(path, path)
    try:
        data = fh.read()
    finally:
        fh.close()
    return _check_block(data, True, quoted, comments)


def _check_block(data: bytes, first: bool, quoted: bool, comments: bool) -> tuple[int, Any, tuple]:
    """A block of a text file: its lines, the first bad byte's line (in the block) and message, and
    (``comments``) how many of its lines are comments and the first few (lines of the block).
    """
    from perfeval.exceptions import InputFormatError
    from perfeval.io.tables import Skipped, check_bytes, clean

    body = clean(data, first)
    lines = body.count(b"\n")
    try:
        check_bytes(body, "", 0, quoted)
    except InputFormatError as e:
        return lines, (int(e.line or 1), e.message), (0, [])
    hashes = Skipped()
    if comments and b"#" in body:
        for k, line in enumerate(body.split(b"\n"), 1):
            if b"#" not in line:
                continue
            if not line.lstrip().startswith(b"#"):
                return lines, (k, _HASH_INSIDE), (0, [])
            hashes.add(k)
    return lines, None, (hashes.count, hashes.first)


_HASH_INSIDE = (
    "holds '#' inside a line of a table without a header: --dask reads it as the start of a comment "
    "there (pandas) and the other readers as data; give the table a header, or drop --dask"
)


def _unique_names(pattern: str) -> None:
    """Two columns of one name in a Parquet file: Dask takes columns by name only, so it is refused
    (the other readers tell them apart by position).
    """
    import pyarrow.parquet as pq

    from perfeval.base.console import one_line
    from perfeval.exceptions import InputFormatError

    first = _files(pattern)[0]
    try:
        names = pq.read_schema(first).names
    except Exception as e:
        raise InputFormatError(f"is not a Parquet file ({one_line(e)})", source=first) from None
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputFormatError(
            f"has two columns named {twice[0]!r}: Dask reads columns by name only; rename one, or drop "
            "--dask (the other readers take a column by its position)",
            source=first,
        )


def _files_hold(pattern: str, fmt: str, needed: list[str]) -> None:
    """Every file `pattern` names (a path, a glob or a directory) holds the `needed` columns: checked
    from each file's schema or header before any work starts, so a missing column is one line naming
    the file and the column, not a failed task on a worker.
    """
    from perfeval.base.console import one_line
    from perfeval.exceptions import InputFormatError

    if fmt == "jsonl":
        return  # JSON lines name their fields line by line: nothing to check ahead
    for f in _files(pattern):
        if fmt == "parquet":
            import pyarrow.parquet as pq

            try:
                have = pq.read_schema(f).names
            except Exception as e:
                raise InputFormatError(f"is not a Parquet file ({one_line(e)})", source=f) from None
        else:
            from perfeval.backends.stream import column_names

            have = column_names(f, fmt, True)
        missing = [c for c in needed if c not in have]
        if missing:
            raise InputFormatError(
                f"has no column {missing[0]!r} (its columns: {', '.join(map(str, have))})", source=f
            )


def _identity(ddf: Any, name: str, path: str, role: str | None) -> Any:
    """An identity column of a Dask frame (the group's, its ``role`` or option naming it in an error):
    int64 when every value is a plain integer that fits, else the text as written; a float column
    (Parquet, JSON) is refused.
    """
    from perfeval.exceptions import InputFormatError
    from perfeval.io.tables import id_column

    kind = ddf[name].dtype.kind
    if kind in "iu":
        return ddf
    if kind == "f":
        raise InputFormatError(
            f"{id_column(name, role)} holds floating-point numbers; ids must be integers or text (cast the "
            "column)",
            source=path,
        )
    import dask

    col = ddf[name].astype(str)
    plain, floats = dask.compute(
        col.map_partitions(_plain_int_ids, meta=(name, bool)).all(),
        col.map_partitions(_first_float_id, meta=(name, object)),
    )
    bad = [v for v in floats.tolist() if v]
    if bad:  # as the in-memory reader (io.tables.check_text_ids): a float id has lost its identity
        raise InputFormatError(
            f"{id_column(name, role)} holds {bad[0]!r}, a float: ids must be integers or text (past 2^53 "
            "a float has merged ids); write them as integers (pandas: .astype('int64')) or as text",
            source=path,
        )
    return ddf.assign(**{name: col.astype("int64") if plain else col})


def _plain_int_ids(part: Any) -> Any:
    """Whether every id of a partition (read as text) is a plain integer within int64, by the
    readers' rule (:func:`perfeval.io.grammar.is_plain_int`: no sign on 0, no leading zero, 19
    digits up to 2^63 - 1), as one boolean; vectorised (the 19-digit ids compared as text).
    """
    import pandas as pd

    text = part.astype(str)
    ok = bool(text.str.fullmatch(r"0|-?[1-9][0-9]{0,18}").all())
    if ok:
        digits = text.str.lstrip("-")
        long = digits.str.len() == 19
        if bool(long.any()):
            neg = text.str.startswith("-")
            ok = bool((digits[long & ~neg] <= str((1 << 63) - 1)).all()) and bool(
                (digits[long & neg] <= str(1 << 63)).all()
            )
    return pd.Series([ok])


def _first_float_id(part: Any) -> Any:
    """A partition's first group id written as a float (``980.0``, ``1e+17``), or '' (one row)."""
    import pandas as pd

    from perfeval.io.grammar import first_float_id

    values = part.to_numpy().astype(str)
    i = first_float_id(values)
    return pd.Series([str(values[i]) if i >= 0 else ""], dtype=object)
