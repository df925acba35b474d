"""The modern ``perfeval`` command.

Subcommands: ``eval`` (measures of a table of targets and scores, optionally per group) and
``list-measures`` (generated from the registry).  The classic, byte-compatible command is ``perf``.
Exit codes: 0 ok, 1 bad data, 2 bad usage.  Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from perfeval._version import __version__

EPILOG = """\
The classic command `perf` reproduces PERF 5.12 (KDD Cup 2004) byte for byte: `perf -h`.
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="perfeval",
        description="Exact, fast evaluation of predictions: every PERF measure, and more, from one registry.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"perfeval {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    ev = sub.add_parser(
        "eval", help="compute measures of a table of targets and scores",
        description="Compute measures of a table: whitespace text, CSV, TSV, JSON lines or Parquet, from a "
                    "file or standard input, with or without a header.",
        epilog="examples:\n"
               "  perfeval eval results.txt                         # target score columns, PERF's report\n"
               "  perfeval eval runs.csv --target label --score p -m roc,apr,logloss\n"
               "  perfeval eval clicks.parquet --target click --score ctr --group user -m gauc\n"
               "  perfeval eval qrels.tsv --target rel --score s --group qid -m ndcg@10,map,mrr -o json\n"
               "  perfeval eval kdd2002.csv --target label --score s -m roc "
               "--partition narrow=change --partition broad=change,control",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ev.add_argument("file", nargs="?", default="-", help="the table (default: standard input)")
    _table_options(ev)
    ev.add_argument("--target", help="target / label / relevance column: name or 1-based position (default 1)")
    ev.add_argument("--score", help="score column: name or position (default 2)")
    ev.add_argument("--group", help="group (query, user, block) column: every measure is computed per group")
    ev.add_argument("--weight", help="weight column (binary measures)")
    ev.add_argument("-m", "--measures", default=None,
                    help="comma-separated measures with parameters, e.g. roc,apr,ndcg@10,slq:bins=100 "
                         "(default: PERF's report; `perfeval list-measures` lists them)")
    ev.add_argument("-t", "--threshold", type=float, default=0.5, help="threshold of the threshold measures (0.5)")
    ev.add_argument("--partition", action="append", default=[], metavar="NAME=LABEL[,LABEL...]",
                    help="a binary task from multi-class labels: these labels positive, the rest negative")
    ev.add_argument("-o", "--output", default="table", choices=("table", "json", "csv"), help="output format")
    ev.add_argument("--per-group", action="store_true", help="also print every group's values")
    _ci_options(ev, "--ci", "add a confidence interval of this level to every measure, e.g. --ci 0.95 "
                            "(a bootstrap; groups are resampled whole when measures are per group)")
    ev.add_argument("--clustered", action="store_true",
                    help="with --stream --group: the input is sorted or clustered by group, so groups are "
                         "evaluated as they arrive instead of being spilled to temporary files")
    ev.add_argument("--dask", metavar="ADDRESS",
                    help="run on a Dask cluster: a scheduler address (tcp://host:8786) or local[:N] for N local "
                         "worker processes; FILE may be a glob of CSV/TSV/text/Parquet files")
    ev.add_argument("--stream", action="store_true",
                    help="read in chunks with bounded memory (automatic for files over 256 MB when every measure "
                         "is over all cases); the numbers are the same")
    for name, helptext in (("plot", "draw a curve of one or more models: roc, pr, lift, acc, cost, calibration"),
                           ("report", "write one self-contained HTML report: measures, per-group table, every plot")):
        pp = sub.add_parser(name, help=helptext, description=helptext)
        if name == "plot":
            pp.add_argument("kind", choices=("roc", "pr", "lift", "acc", "cost", "calibration"))
        pp.add_argument("file", nargs="?", default="-", help="the table (default: standard input)")
        _table_options(pp)
        pp.add_argument("--target", help="target column: name or 1-based position (default 1)")
        pp.add_argument("--score", help="score column(s), comma-separated: one model each (default 2)")
        pp.add_argument("--group", help="group column (plot: one panel a group; report: per-group table)")
        pp.add_argument("-t", "--threshold", type=float, default=0.5, help="the operating point marked (0.5)")
        pp.add_argument("-o", "--output", required=True,
                        help="output file: .png or .svg" if name == "plot" else "output .html file")
        if name == "plot":
            pp.add_argument("--bins", default="perf", choices=("perf", "uniform", "quantile"),
                            help="calibration bins: PERF's 19 overlapping bins, or 10 uniform or quantile bins")
        else:
            pp.add_argument("-m", "--measures", default=None, help="measures of the table (default: PERF's report)")
            _ci_options(pp, "--ci", "add confidence intervals of this level (e.g. 0.95) to the measures, and, with "
                                    "several models, compare each with the first (paired bootstrap)")
    sc = sub.add_parser("score", help="score competition submissions against an answer key",
                        description="Join each submission with the answer key by example id, check it, score "
                                    "every criterion of the task, print a table and store it on the leaderboard.")
    sc.add_argument("submissions", nargs="+", metavar="SUBMISSION",
                    help="submission files (ranked-lists tasks: a directory with one <list>.txt each, or the "
                         "list files joined by commas)")
    sc.add_argument("--key", required=True, help="the answer key")
    sc.add_argument("--task", required=True, help="a preset (kddcup2004-physics, kddcup2004-protein, "
                                                  "kddcup2002-task2) or a task TOML file")
    sc.add_argument("--team", help="team name for the leaderboard (default: the submission's file name)")
    sc.add_argument("--db", help="leaderboard database: a SQLite file or a postgresql:// URL "
                                 "(default: <key>.leaderboard.sqlite)")
    sc.add_argument("--no-store", action="store_true", help="do not store the scores on the leaderboard")
    sc.add_argument("--db-wait", type=float, default=60.0, metavar="SECONDS",
                    help="how long to wait for a busy leaderboard database before giving up (default 60); "
                         "scores that cannot be stored are printed and the status is 75")
    sc.add_argument("--follow-links", action="store_true",
                    help="accept submissions that are symbolic links leaving their directory (refused by default)")
    sc.add_argument("-o", "--output", default="table", choices=("table", "json"))
    lb = sub.add_parser("leaderboard", help="print a task's leaderboard: per criterion and overall")
    lb.add_argument("--key", required=True, help="the answer key (its leaderboard lies beside it)")
    lb.add_argument("--task", required=True)
    lb.add_argument("--db", help="the database, when not the default beside the key")
    lb.add_argument("-o", "--output", default="table", choices=("table", "json"))
    cp = sub.add_parser(
        "compare", help="compare two models on the same cases: difference, interval, p-value",
        description="Compare two models scored on the same cases: the difference of each measure, its "
                    "confidence interval and a two-sided p-value (DeLong's test for the ROC area, or a paired "
                    "bootstrap for any measure).  Give two files of `target score` (the same targets, line by "
                    "line), or one table and --score A,B.",
        epilog="examples:\n"
               "  perfeval compare model_a.txt model_b.txt\n"
               "  perfeval compare runs.csv --target y --score old,new -m roc,apr --method bca\n"
               "  perfeval compare clicks.parquet --target click --score a,b --group user -m gauc",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    cp.add_argument("files", nargs="+", metavar="FILE", help="one table with two score columns, or two tables")
    _table_options(cp)
    cp.add_argument("--target", help="target column: name or 1-based position (default 1)")
    cp.add_argument("--score", help="score column(s): A,B for one table; one column for two tables (default 2)")
    cp.add_argument("--group", help="group column: per-group measures, groups resampled whole")
    cp.add_argument("--weight", help="weight column (binary measures)")
    cp.add_argument("-m", "--measures", default="roc", help="comma-separated measures (default: roc)")
    cp.add_argument("-t", "--threshold", type=float, default=0.5)
    _ci_options(cp, "--level", "confidence level of the intervals (default 0.95)", default=0.95)
    cp.add_argument("-o", "--output", default="table", choices=("table", "json"))
    lm = sub.add_parser("list-measures", help="list the measures (name, aliases, PERF options, direction)")
    lm.add_argument("--long", action="store_true", help="print each measure's full definition")
    lm.add_argument("--format", choices=("table", "markdown"), default="table")
    return p


def _table_options(p) -> None:
    """How an input table is read: its format and whether it has a header (every table command)."""
    p.add_argument("--format", default="auto", choices=("auto", "text", "csv", "tsv", "jsonl", "parquet"),
                   help="input format (default: from the file name or content)")
    p.add_argument("--pos-label", default=None, metavar="LABEL",
                   help="the positive label of the target column (e.g. yes, True, 2): the others are negative")
    p.add_argument("--delimiter", default=None, metavar="CHAR",
                   help="CSV field delimiter: , ; or tab (default: sniffed from the first lines)")
    hdr = p.add_mutually_exclusive_group()
    hdr.add_argument("--header", dest="header", action="store_true", default=None, help="the first line is a header")
    hdr.add_argument("--no-header", dest="header", action="store_false", help="the first line is data")


def _ci_options(p, flag: str, helptext: str, default=None) -> None:
    p.add_argument(flag, dest="ci", type=float, default=default, metavar="LEVEL", help=helptext)
    p.add_argument("--method", default=None, choices=("bca", "percentile", "delong"),
                   help="interval method: bca (default), percentile, or delong (ROC area; for compare, the "
                        "default when every measure is the ROC area)")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap replicates (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0): same seed, same interval")


def list_measures_text(long: bool = False, fmt: str = "table") -> str:
    from perfeval.measures import list_measures

    ms = list_measures()
    if fmt == "markdown":
        out = ["# Measures", "", "Generated from the registry (`perfeval list-measures --format markdown`).", ""]
        for m in ms:
            out += [f"## {m.name}: {m.title}", "",
                    f"- aliases: {', '.join(f'`{a}`' for a in m.aliases)}",
                    f"- PERF options: {', '.join(f'`{o}`' for o in m.perf_options)}",
                    f"- better: {m.direction}" + ("; allowed in `-blocks` mode" if m.blocks else ""),
                    *(["- parameters: " + "; ".join(f"`{p.name}` (default {p.default}): {p.doc}"
                                                      for p in m.params)] if m.params else []),
                    "", m.definition, "", f"**Ties.** {m.ties}", "", f"**Edge cases.** {m.edge_cases}", "",
                    f"**perf compatibility.** {m.perf}", ""]
        return "\n".join(out)
    if long:
        return "\n\n".join(m.doc for m in ms) + "\n"
    rows = [("name", "better", "PERF options", "aliases", "title")]
    for m in ms:
        rows.append((m.name, m.direction, " ".join(m.perf_options), " ".join(m.aliases), m.title))
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join(f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]:<{w[3]}}  {r[4]}" for r in rows) + "\n"


def _partitions(items: list[str]) -> dict[str, list] | None:
    from perfeval.exceptions import InvalidParameterError

    out: dict[str, list] = {}
    for item in items:
        name, eq, labels = item.partition("=")
        if not eq or not name.strip() or not labels.strip():
            raise InvalidParameterError(f"--partition {item!r}: expected NAME=LABEL[,LABEL...]")
        out[name.strip()] = [lab.strip() for lab in labels.split(",") if lab.strip()]
    return out or None


def _labels_as(values: list, column) -> list:
    """Partition labels typed on the command line, converted to the label column's type."""

    if column.dtype.kind in "biuf":
        try:
            return [float(v) for v in values] if column.dtype.kind == "f" else [int(v) for v in values]
        except ValueError:
            return values
    return [str(v) for v in values] if column.dtype.kind in "US" else values


STREAM_BYTES = 256 << 20
#: plot and report read files at least this large chunk by chunk (with a progress line on terminals)
LARGE_BYTES = 64 << 20


def _stream_eval(args, path):
    """Chunked evaluation (perfeval.stream); None when the request needs the whole table."""
    import os

    from perfeval.evaluation import DEFAULT_MEASURES, _resolve
    from perfeval.exceptions import InvalidParameterError

    specs = _resolve(args.measures or DEFAULT_MEASURES, args.threshold)
    streamable = (args.group is not None or all(s.measure.kind == "binary" for s in specs)) and not args.partition
    big = path is not None and os.path.isfile(path) and os.path.getsize(path) > STREAM_BYTES
    if not (args.stream or (big and streamable and args.format != "jsonl")):
        return None
    if not streamable:
        raise InvalidParameterError("--stream needs --group for per-group measures, and does not take "
                                    "--partition; drop --stream to evaluate in memory")
    from perfeval.stream import evaluate_stream, evaluate_stream_grouped, iter_columns

    chosen: list = []

    def chooser(names: list[str], header: bool) -> list[int | None]:
        from perfeval.io.columns import choose

        ch = choose(names, path or "standard input", header=header, target=args.target, score=args.score,
                    group=args.group, weight=args.weight)
        chosen.append(ch)
        _say_columns(ch)
        return [ch.target.index, ch.score.index, None if ch.weight is None else ch.weight.index,
                None if ch.group is None else ch.group.index]

    labels = args.pos_label is not None  # the target read as labels, coded chunk by chunk
    cols = iter_columns(path, chooser, args.format, args.header, progress=sys.stderr.isatty(),
                        ids=(0, 3) if labels else (3,), delimiter=args.delimiter)
    if labels:
        cols = _coded(cols, args.pos_label, path or "standard input", chosen)
    if args.group is not None:  # spilled by group to temporary files, then evaluated file by file
        chunks = ((t, sc, g) if w is None else (t, sc, g, w) for t, sc, w, g in cols)
        size = os.path.getsize(path) if path is not None and os.path.isfile(path) else None
        report = evaluate_stream_grouped(chunks, measures=specs, threshold=args.threshold, clustered=args.clustered,
                                         size_hint=size)
    else:
        chunks = ((t, sc) if w is None else (t, sc, w) for t, sc, w, _g in cols)
        report = evaluate_stream(chunks, measures=specs, threshold=args.threshold)
    if chosen:
        report.params["columns"] = chosen[0].names()
    return report


def _dask_eval(args, path):
    """The evaluation on a Dask cluster (perfeval.dask): files read by dask.dataframe."""
    import os

    from perfeval.exceptions import InvalidParameterError, MissingDependencyError

    try:
        import dask.dataframe as dd
        import distributed
    except ImportError:
        raise MissingDependencyError("--dask needs dask: pip install 'perfeval[dask]'") from None
    if path is None:
        raise InvalidParameterError("--dask reads files (a path or a glob), not standard input")
    addr = args.dask
    cluster = None
    if addr == "local" or addr.startswith("local:"):
        n = addr.partition(":")[2]
        if n and not (n.isdigit() and 1 <= int(n) <= 4096):  # local:0 would wait for a worker forever
            raise InvalidParameterError(f"--dask {_one_line(addr)}: expected local or local:N with N workers "
                                        "from 1 to 4096")
        workers = int(n or (os.cpu_count() or 1))
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
        client = distributed.Client(cluster)
    else:
        try:
            client = distributed.Client(addr, timeout=20)
        except (OSError, ValueError, TypeError) as e:
            raise InvalidParameterError(f"--dask {_one_line(addr)}: cannot reach a Dask scheduler there "
                                        f"({_one_line(e)})") from None
    import logging

    logging.getLogger("distributed").setLevel(logging.CRITICAL)  # a failed task is our one line, not a log dump
    try:
        fmt = args.format
        if fmt == "auto":
            low = path.lower()
            fmt = ("parquet" if low.endswith((".parquet", ".pq")) else "tsv" if low.endswith(".tsv")
                   else "csv" if low.endswith(".csv") else "text")
        header = True
        if fmt == "parquet":
            ddf = dd.read_parquet(path)
        elif fmt == "jsonl":
            ddf = dd.read_json(path, lines=True)
        else:
            header = args.header if args.header is not None else fmt != "text"
            kw = {"sep": {"csv": ",", "tsv": "\t"}.get(fmt, r"\s+"), "comment": "#"}
            ddf = dd.read_csv(path, header=0 if header else None, **kw)
        keys = list(ddf.columns)
        names = [str(c) for c in keys] if header else [f"column{i + 1}" for i in range(len(keys))]

        from perfeval.io.columns import choose

        ch = choose(names, path, header=bool(header), target=args.target, score=args.score, group=args.group,
                    weight=args.weight)
        _say_columns(ch)
        if ch.group is not None and fmt not in ("parquet", "jsonl"):  # the group column read as text
            ddf = dd.read_csv(path, header=0 if header else None, dtype={keys[ch.group.index]: str},
                              keep_default_na=False, **kw)
        if not header:
            ddf.columns = names
        if header:  # every file of a glob holds the columns chosen from the first one's
            _dask_files_hold(path, fmt, [names[c.index] for c in (ch.target, ch.score, ch.group, ch.weight)
                                         if c is not None])
        if ch.group is not None:
            ddf = _dask_identity(ddf, names[ch.group.index], path)

        from perfeval.dask import evaluate_dask
        from perfeval.evaluation import DEFAULT_MEASURES

        def name(c):
            return None if c is None else names[c.index]

        report = evaluate_dask(ddf, target=name(ch.target), score=name(ch.score), group=name(ch.group),
                               weight=name(ch.weight), measures=args.measures or DEFAULT_MEASURES,
                               threshold=args.threshold)
        report.params["columns"] = ch.names()
        return report
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _coded(chunks, pos_label, source: str, chosen: list):
    """Chunks whose target labels are coded 0/1 by ``--pos-label``; a label found in no chunk is an
    error at the end, as it is when the table is read whole."""
    import numpy as np

    from perfeval.evaluation import binary_coding
    from perfeval.exceptions import InputFormatError

    seen = False
    labels: set = set()
    for c in chunks:
        y = binary_coding(c[0], pos_label)
        seen = seen or bool(np.any(y))
        if not seen and len(labels) < 8:
            labels.update(str(v) for v in np.unique(c[0])[:8].tolist())
        yield [y, *c[1:]]
    if not seen:
        name = chosen[0].target.name if chosen else "target"
        shown = ", ".join(repr(v) for v in sorted(labels))
        raise InputFormatError(f"--pos-label {pos_label}: the target column {name!r} holds no such label "
                               f"(labels: {shown})", source=source)


def _dask_files_hold(pattern: str, fmt: str, needed: list[str]) -> None:
    """Every file `pattern` names (a path, a glob or a directory) holds the `needed` columns: checked
    from each file's schema or header before any work starts, so a missing column is one line naming
    the file and the column, not a failed task on a worker."""
    import glob
    import os

    from perfeval.exceptions import InputFormatError

    if os.path.isdir(pattern):
        files = sorted(os.path.join(dp, f) for dp, _dirs, fs in os.walk(pattern) for f in fs
                       if not f.startswith((".", "_")))
    else:
        files = sorted(glob.glob(pattern)) or [pattern]
    for f in files:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            try:
                have = pq.read_schema(f).names
            except Exception as e:
                raise InputFormatError(f"is not a Parquet file ({_one_line(e)})", source=f) from None
        elif fmt == "jsonl":
            return  # JSON lines name their fields line by line: nothing to check ahead
        else:
            from perfeval.stream import column_names

            have = column_names(f, fmt, True)
        missing = [c for c in needed if c not in have]
        if missing:
            raise InputFormatError(f"has no column {missing[0]!r} (its columns: {', '.join(map(str, have))})",
                                   source=f)


def _dask_identity(ddf, name: str, path: str):
    """The group column of a Dask frame as an identity: int64 when every value is a plain integer
    that fits, else the text as written; a float column (Parquet, JSON) is refused."""
    from perfeval.exceptions import InputFormatError

    kind = ddf[name].dtype.kind
    if kind in "iu":
        return ddf
    if kind == "f":
        raise InputFormatError(f"the group column {name!r} holds floating-point numbers; group ids must be "
                               "integers or text (cast the column)", source=path)
    col = ddf[name].astype(str)
    plain = col.str.fullmatch(r"-?(?:0|[1-9][0-9]{0,17})").all().compute()
    ddf = ddf.assign(**{name: col.astype("int64") if plain else col})
    return ddf


#: notes for stderr, written when the command succeeds (an error stays the one line on stderr)
_NOTES: list[str] = []


def _targets(table, name: str, col, pos_label, binary: bool):
    """The target column for the measures asked: 0/1 for binary measures (``--pos-label`` names the
    positive label; else 0/1, -1/1 or booleans), numbers for ranking measures; or one line naming
    the file and the column, and how to map the labels."""
    import numpy as np

    from perfeval.evaluation import binary_coding, label_values
    from perfeval.exceptions import InputFormatError
    from perfeval.io.tables import numeric

    if not binary:
        return numeric(table, name, col, "target")
    coded = binary_coding(np.asarray(col), pos_label)
    if pos_label is not None:
        if not np.any(coded):
            raise InputFormatError(f"--pos-label {pos_label}: the target column {name!r} holds no such label "
                                   f"(labels: {label_values(col)})", source=table.source)
        return coded
    if coded is None:
        vals = np.unique(col)
        example = vals[-1].item() if len(vals) and hasattr(vals[-1], "item") else (vals[-1] if len(vals) else "1")
        if isinstance(example, float) and example.is_integer():
            example = int(example)
        raise InputFormatError(f"the target column {name!r} holds {label_values(col)}: binary measures need 0/1 (or "
                               f"-1/1) targets; name the positive label with --pos-label, e.g. --pos-label {example}",
                               source=table.source)
    return coded


def _group_position(args):
    """For the readers: the position of the group column (an identity: int64 or text, never float)."""
    from perfeval.io.columns import pick

    def position(names: list[str], header: bool) -> tuple[int, ...]:
        col = pick(names, args.group, "group", getattr(args, "file", "the table"), header=header, default=False)
        return () if col is None else (col.index,)

    return position


def _csv_field(text: str) -> str:
    """A CSV field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _say_columns(choice) -> None:
    """Say on stderr which columns were used when some were not named on the command line."""
    if choice.worth_saying:
        note = f"perfeval: columns: {_one_line(choice.describe())}\n"
        if note not in _NOTES:
            _NOTES.append(note)


def _large_numeric(args):
    """A large file of numbers read chunk by chunk, with the progress line on a terminal:
    (source, targets, {model name: scores}, groups); None when the file is small, not a file, or
    has a column of strings (then the table reader reads it)."""
    import os

    import numpy as np

    from perfeval.exceptions import InputFormatError

    path = None if args.file == "-" else args.file
    if path is None or not os.path.isfile(path) or os.path.getsize(path) < LARGE_BYTES or args.format == "jsonl":
        return None
    from perfeval.io.columns import choose
    from perfeval.stream import iter_columns

    chosen: list = []

    def chooser(names: list[str], header: bool) -> list[int | None]:
        ch = choose(names, path, header=header, target=args.target, score=args.score, group=args.group,
                    several_scores=True)
        chosen.append(ch)
        return [ch.target.index, *(c.index for c in ch.scores), None if ch.group is None else ch.group.index]

    try:
        nscores = len(args.score.split(",")) if args.score else 1
        parts = list(iter_columns(path, chooser, args.format, args.header, progress=sys.stderr.isatty(),
                                  ids=(1 + nscores,), delimiter=args.delimiter))
    except InputFormatError as e:
        if "not a number" in str(e):
            return None  # a string column: the general reader
        raise
    ch = chosen[0]
    _say_columns(ch)
    n = 1 + len(ch.scores)
    cols = [None if not parts or parts[0][k] is None else np.concatenate([p[k] for p in parts])
            for k in range(n + 1)]
    if cols[0] is None:
        cols = [np.zeros(0) for _ in range(n)] + [None]
    models = {c.name: cols[1 + i] for i, c in enumerate(ch.scores)}
    for name, sc in models.items():
        bad = ~np.isfinite(sc)
        if bad.any():
            raise InputFormatError(f"the score column {name!r} holds {float(sc[int(np.argmax(bad))])!r}; scores "
                                   "must be finite numbers", source=path)
    return path, cols[0], models, cols[n]


def _models(args):
    """(source, targets, {model name: scores}, groups) for plot and report."""
    import numpy as np

    from perfeval.exceptions import InputFormatError
    from perfeval.io.tables import numeric, read_table

    big = _large_numeric(args)
    if big is not None:
        return big
    table = read_table(None if args.file == "-" else args.file, args.format, args.header,
                       delimiter=args.delimiter, identity=_group_position(args))
    ch = table.choose(target=args.target, score=args.score, group=args.group, several_scores=True)
    _say_columns(ch)
    target = _targets(table, ch.target.name, table.get(ch.target), args.pos_label, True)
    models = {}
    for c in ch.scores:
        sc = numeric(table, c.name, table.get(c), "score")
        bad = ~np.isfinite(sc)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputFormatError(f"the score column {c.name!r} holds {float(sc[i])!r}; scores must be finite",
                                   source=table.source, line=table.line_of(i))
        models[c.name] = sc
    return table.source, target, models, None if ch.group is None else table.get(ch.group)


def run_plot(args) -> int:
    _matplotlib()
    from perfeval.plot import CurveDisplay, plot_by_group, save

    _source, y, models, g = _models(args)
    kw = {"bins": args.bins} if args.kind == "calibration" else {}
    if g is not None:
        name, s = next(iter(models.items()))
        fig = plot_by_group(args.kind, y, s, g, threshold=args.threshold)
    else:
        fig = CurveDisplay.from_models(y, models, kind=args.kind, threshold=args.threshold, **kw).plot().figure_
    save(fig, args.output)
    return 0


def _matplotlib() -> None:
    """matplotlib on the Agg backend (files, no window), or the command that installs it."""
    from perfeval.exceptions import MissingDependencyError

    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("plots need matplotlib: pip install 'perfeval[plot]'") from None
    matplotlib.use("Agg")


def run_report(args) -> int:
    import shlex

    _matplotlib()
    from perfeval.html import build

    if not str(args.output).lower().endswith((".html", ".htm")):
        from perfeval.exceptions import InvalidParameterError

        raise InvalidParameterError(f"-o {args.output}: expected an .html file name")
    if args.ci is not None:
        _check_ci_options(args)
    source, y, models, g = _models(args)
    text = build(y, models, measures=args.measures, groups=g, threshold=args.threshold,
                 command="perfeval " + " ".join(shlex.quote(a) for a in args.argv), source=source,
                 ci=args.ci, n_boot=args.n_boot, seed=args.seed, method=args.method or "bca")
    with open(args.output, "w", encoding="utf-8") as fh:
        fh.write(text)
    return 0


def _team_of(sub: str) -> str:
    """A team name from a submission's file name: shown escaped, blanks collapsed (so that a name
    cannot pad itself into the leaderboard's value and time columns), at most 200 characters."""
    import os

    from perfeval._text import shown

    name = os.path.splitext(os.path.basename(sub.rstrip("/")))[0]
    return " ".join(shown(name).split())[:200] or "?"


def run_score(args) -> int:
    """Score submissions; store them; print the table.  Exit status: 0 every submission scored (and
    stored), 1 one rejected, 2 a bad command line, task file or database, 75 scored but not stored
    (the scores are printed; run again, or store them by hand)."""

    from perfeval._text import shown
    from perfeval.contest.board import Board, StoreError, check_team, default_db
    from perfeval.contest.score import read_key, score_submission
    from perfeval.contest.tasks import load_task
    from perfeval.exceptions import InvalidParameterError

    if not args.db_wait >= 0 or args.db_wait == float("inf"):
        raise InvalidParameterError(f"--db-wait {args.db_wait:g}: expected a number of seconds >= 0")
    team = check_team(args.team) if args.team is not None else None
    task = load_task(args.task)
    key = read_key(args.key, task)
    board = None if args.no_store else Board(args.db or default_db(args.key), wait=args.db_wait)
    try:
        results = [score_submission(sub, task, key, args.follow_links) for sub in args.submissions]
        not_stored = None
        if board is not None and any(r.ok for r in results):
            entries = [(task.name, team or _team_of(sub), shown(sub), r.scores)
                       for sub, r in zip(args.submissions, results) if r.ok]
            try:
                board.add_all(entries)
            except StoreError as e:
                not_stored = e
    finally:
        if board is not None:
            board.close()
    names = [c.name for c in task.criteria] + ([task.total["name"]] if task.total else [])
    if args.output == "json":
        from perfeval.report import dumps

        sys.stdout.write(dumps([{"submission": s, "ok": r.ok, "rows": r.rows, "stored": r.ok and board is not None
                                 and not_stored is None,
                                 "scores": {k: (None if v != v else v) for k, v in r.scores.items()},
                                 "errors": r.errors} for s, r in zip(args.submissions, results)], indent=2) + "\n")
    else:
        subs = [shown(s) for s in args.submissions]
        width = max([len(s) for s in subs] + [10])
        lines = [f"{'submission':<{width}}  " + "  ".join(f"{n:>10}" for n in names)]
        for s, r in zip(subs, results):
            if r.ok:
                lines.append(f"{s:<{width}}  " + "  ".join(f"{r.scores[n]:>10.5f}" for n in names))
            else:
                lines.append(f"{s:<{width}}  rejected: {r.n_errors} error(s), listed on stderr")
        sys.stdout.write("\n".join(lines) + "\n")
    for r in results:
        for line in r.errors:
            sys.stderr.write(f"perfeval: error: {line}\n")
    if not_stored is not None:
        sys.stdout.flush()
        sys.stderr.write(f"perfeval: error: the scores above were NOT stored: {_one_line(not_stored)}\n")
        return 75
    return 0 if all(r.ok for r in results) else 1


def run_leaderboard(args) -> int:

    from perfeval.contest.board import Board, default_db, rankings
    from perfeval.contest.tasks import load_task

    import os

    from perfeval.exceptions import InputFormatError

    task = load_task(args.task)
    if not os.path.isfile(args.key):
        raise InputFormatError("cannot be read (no such file); the leaderboard lies beside its answer key",
                               source=args.key)
    board = Board(args.db or default_db(args.key), create=False)
    ranks = rankings(board.entries(task.name), task.directions())
    board.close()
    if args.output == "json":
        from perfeval.report import dumps

        sys.stdout.write(dumps({k: [s.__dict__ for s in v] for k, v in ranks.items()}) + "\n")
        return 0
    if not ranks:
        sys.stdout.write(f"no scored submissions for {task.name} yet\n")
        return 0
    from perfeval._text import shown

    out = [shown(task.title)]
    for crit, standings in ranks.items():
        better = "" if crit == "overall" else f" ({task.directions()[crit]} is better)"
        out.append(f"\n{shown(crit)}{better}" if crit != "overall" else "\noverall (mean rank over the criteria)")
        for s in standings:
            v = "-" if s.value is None else f"{s.value:.5f}"
            out.append(f"  {s.rank:>3}. {shown(s.team):<24} {v:>12}   {shown(s.time)}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def run_eval(args) -> int:
    import numpy as np

    from perfeval.evaluation import DEFAULT_MEASURES, evaluate
    from perfeval.exceptions import InputFormatError, InvalidParameterError
    from perfeval.io.tables import numeric, read_table

    path = None if args.file == "-" else args.file
    import warnings

    if args.ci is not None:
        _check_ci_options(args)
    if args.ci is not None and args.partition:
        raise InvalidParameterError("--ci does not combine with --partition yet")
    if args.ci is not None and (args.dask or args.stream) and (args.group or args.weight):
        raise InvalidParameterError("--ci with --stream or --dask is for measures over all unweighted cases (drawn "
                                    "from the merged summary); drop --group/--weight, or --stream/--dask to "
                                    "evaluate in memory")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        streamed = _dask_eval(args, path) if args.dask else _stream_eval(args, path)
    if streamed is not None:
        for wmsg in caught:
            sys.stderr.write(f"perfeval: warning: {wmsg.message}\n")
        if args.ci is not None:
            from perfeval.bootstrap import ci_from_summary

            if streamed.summary is None:
                raise InvalidParameterError("--ci: this evaluation kept no summary to draw intervals from")
            streamed.intervals = ci_from_summary(streamed.summary, list(streamed.results),
                                                 method=args.method or "percentile", level=args.ci,
                                                 n_boot=args.n_boot, seed=args.seed, threshold=args.threshold)
        streamed.params["source"] = path or "standard input"
        sys.stdout.write(format_report(streamed, args.output, args.per_group))
        return 0
    table = read_table(path, args.format, args.header, delimiter=args.delimiter, identity=_group_position(args))
    ch = table.choose(target=args.target, score=args.score, group=args.group, weight=args.weight)
    _say_columns(ch)
    tname, target = ch.target.name, table.get(ch.target)
    sname = ch.score.name
    score = numeric(table, sname, table.get(ch.score), "score")
    bad = ~np.isfinite(score)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputFormatError(f"the score column {sname!r} holds {float(score[i])!r}; scores must be finite numbers",
                               source=table.source, line=table.line_of(i))
    g = None if ch.group is None else (ch.group.name, table.get(ch.group))
    w = None if ch.weight is None else (ch.weight.name, table.get(ch.weight))
    parts = _partitions(args.partition)
    if parts:
        parts = {k: _labels_as(v, target) for k, v in parts.items()}
    else:
        from perfeval.evaluation import _resolve

        specs = _resolve(args.measures or DEFAULT_MEASURES, args.threshold)
        target = _targets(table, tname, target, args.pos_label, any(s.measure.kind == "binary" for s in specs))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = evaluate(target, score, measures=args.measures or DEFAULT_MEASURES,
                          groups=None if g is None else g[1],
                          weights=None if w is None else numeric(table, w[0], w[1], "weight"),
                          threshold=args.threshold, partitions=parts)
    for wmsg in caught:  # never a silent drop: say what is undefined, on stderr
        sys.stderr.write(f"perfeval: warning: {wmsg.message}\n")
    if args.ci is not None:
        from perfeval.bootstrap import ci

        report.intervals = ci(target, score, args.measures or DEFAULT_MEASURES, method=args.method or "bca",
                              level=args.ci, n_boot=args.n_boot, seed=args.seed,
                              groups=None if g is None else g[1],
                              weights=None if w is None else numeric(table, w[0], w[1], "weight"),
                              threshold=args.threshold)
    report.params["source"] = table.source
    report.params["columns"] = ch.names()
    sys.stdout.write(format_report(report, args.output, args.per_group))
    return 0


def _compare_inputs(args):
    """(target, score_a, score_b, groups, weights, names) from one table with two score columns or
    from two tables with the same targets."""
    import numpy as np

    from perfeval.exceptions import InputFormatError, InvalidParameterError
    from perfeval.io.tables import numeric, read_table

    def load(path, several):
        t = read_table(None if path == "-" else path, args.format, args.header, delimiter=args.delimiter,
                       identity=_group_position(args))
        ch = t.choose(target=args.target, score=args.score, group=args.group, weight=args.weight,
                      several_scores=several)
        _say_columns(ch)
        from perfeval.measures import parse_measure

        binary = any(parse_measure(m).measure.kind == "binary" for m in args.measures.split(",") if m.strip())
        return t, ch, _targets(t, ch.target.name, t.get(ch.target), args.pos_label, binary).astype(np.float64)

    def scores(t, col):
        name = col.name
        v = numeric(t, name, t.get(col), "score")
        bad = ~np.isfinite(v)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputFormatError(f"the score column {name!r} holds {float(v[i])!r}; scores must be finite numbers",
                                   source=t.source, line=t.line_of(i))
        return name, v

    def extras(t, ch):
        g = None if ch.group is None else t.get(ch.group)
        w = None if ch.weight is None else numeric(t, ch.weight.name, t.get(ch.weight), "weight")
        return g, w

    if len(args.files) == 1:
        cols = (args.score or "").split(",")
        if len(cols) != 2 or not all(c.strip() for c in cols):
            raise InvalidParameterError("with one table, --score names the two models' columns: --score A,B")
        t, ch, y = load(args.files[0], True)
        (na, a), (nb, b) = scores(t, ch.scores[0]), scores(t, ch.scores[1])
        g, w = extras(t, ch)
        return y, a, b, g, w, (na, nb)
    if len(args.files) != 2:
        raise InvalidParameterError(f"compare takes one table (with --score A,B) or two tables, got {len(args.files)}")
    if args.score and "," in args.score:
        raise InvalidParameterError("with two tables, --score names one column, found in both")
    (ta, cha, ya), (tb, chb, yb) = load(args.files[0], False), load(args.files[1], False)
    if len(ya) != len(yb):
        raise InputFormatError(f"has {len(yb)} rows, {args.files[0]} has {len(ya)}: the two models must score the "
                               "same cases in the same order", source=tb.source)
    diff = ya != yb
    if diff.any():
        i = int(np.argmax(diff))
        raise InputFormatError(f"the target differs from {args.files[0]} (line {ta.line_of(i)}): the two models must "
                               "score the same cases in the same order", source=tb.source, line=tb.line_of(i))
    (_, a), (_, b) = scores(ta, cha.score), scores(tb, chb.score)
    ga, wa = extras(ta, cha)
    gb, wb = extras(tb, chb)
    if (ga is None) != (gb is None) or (ga is not None and not np.array_equal(ga, gb)):
        raise InputFormatError("the groups differ from the first table's", source=tb.source)
    if (wa is None) != (wb is None) or (wa is not None and not np.array_equal(wa, wb)):
        raise InputFormatError("the weights differ from the first table's", source=tb.source)
    return ya, a, b, ga, wa, (args.files[0], args.files[1])


def _check_ci_options(args) -> None:
    """Refuse a bad level or replicate count before any work is done."""
    from perfeval.exceptions import InvalidParameterError

    if not 0.0 < args.ci < 1.0:
        raise InvalidParameterError(f"the confidence level must lie strictly between 0 and 1, got {args.ci:g}")
    if args.n_boot < 2 and args.method != "delong":
        raise InvalidParameterError(f"the bootstrap needs at least 2 replicates, got --n-boot {args.n_boot}")


def run_compare(args) -> int:
    import math

    _check_ci_options(args)
    from perfeval.bootstrap import compare
    from perfeval.measures import parse_measure

    y, a, b, g, w, (na, nb) = _compare_inputs(args)
    specs = [parse_measure(m) for m in args.measures.split(",") if m.strip()]
    method = args.method or ("delong" if g is None and all(sp.measure.name == "ROC" for sp in specs) else "bca")
    res = compare(y, a, b, [sp.label for sp in specs], method=method, level=args.ci, n_boot=args.n_boot,
                  seed=args.seed, groups=g, weights=w, threshold=args.threshold)
    if args.output == "json":
        from perfeval.report import dumps

        sys.stdout.write(dumps({"a": na, "b": nb, "comparisons": [c.to_dict() for c in res.values()]},
                                    indent=2) + "\n")
        return 0

    def f(v: float) -> str:
        return "nan" if math.isnan(v) else f"{v:.6f}"

    pct = f"{args.ci * 100:g}%"
    head = ["measure", "a", "b", "a - b", f"{pct} low", f"{pct} high", "p-value"]
    rows = [[c.label, f(c.estimate_a), f(c.estimate_b), f(c.difference), f(c.low), f(c.high),
             _p_value(c.p_value)] for c in res.values()]
    table = [head] + rows
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines = [f"a = {na}", f"b = {nb}"]
    lines += ["  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)) for r in table]
    first = next(iter(res.values()))
    how = ("DeLong's test" if first.method == "delong" else
           f"paired {first.method} bootstrap, {first.n_boot} replicates, seed {args.seed}, {first.resampled} resampled")
    lines.append(f"({how})")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _p_value(p: float) -> str:
    """A p-value for a table: below what a double holds (it underflowed to 0) is shown as such."""
    import math

    if math.isnan(p):
        return "nan"
    return "<1e-300" if p < 1e-300 else f"{p:.4g}"


def format_report(report, output: str, per_group: bool) -> str:
    import math

    if output == "json":
        return report.to_json() + "\n"
    grouped = report.groups is not None
    iv = report.intervals
    rows = []
    for label, r in report.results.items():
        row = [label, r.value]
        if iv:
            row += [iv[label].low, iv[label].high] if label in iv else [math.nan, math.nan]
        if grouped:
            row += [r.mean, r.weighted_mean, len(r.per_group) - len(r.undefined), len(r.undefined)]
        rows.append(row)
    head = ["measure", "value"] + (["ci_low", "ci_high"] if iv else []) + (
        ["mean", "weighted_mean", "groups", "undefined"] if grouped else [])

    def cell(v) -> str:
        if isinstance(v, float):
            return "nan" if math.isnan(v) else f"{v:.6f}"
        return str(v)

    from perfeval._text import shown

    lines = []
    if output == "csv":
        lines.append(",".join(head))
        lines += [",".join(cell(v) for v in row) for row in rows]
        if per_group and grouped:
            lines.append("")
            lines.append(",".join(["group"] + list(report.results)))
            for i, key in enumerate(report.groups):
                lines.append(",".join([_csv_field(str(key))] + [cell(float(r.per_group[i]))
                                                                for r in report.results.values()]))
        return "\n".join(lines) + "\n"
    table = [head] + [[cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for r in table:
        lines.append("  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)))
    if iv:
        one = next(iter(iv.values()))
        how = "DeLong" if one.method == "delong" else (f"{one.method} bootstrap, {one.n_boot} replicates, "
                                                       f"{one.resampled} resampled")
        lines.append(f"({one.level * 100:g}% intervals: {how})")
    if per_group and grouped:
        lines.append("")
        names = list(report.results)
        gtab = [["group"] + names] + [[shown(str(k))] + [cell(float(r.per_group[i])) for r in report.results.values()]
                                      for i, k in enumerate(report.groups)]
        gw = [max(len(r[i]) for r in gtab) for i in range(len(gtab[0]))]
        for r in gtab:
            lines.append("  ".join(c.ljust(gw[0]) if i == 0 else c.rjust(gw[i]) for i, c in enumerate(r)))
    return "\n".join(lines) + "\n"


class _OutputError(OSError):
    """Writing the command's output failed (a full disk, a closed standard output)."""


class _WholeWrites:
    """Standard output that writes every byte or raises: a text stream over a pipe drops the rest of a
    large write silently when the reader goes away (``perfeval eval ... | head``), and the command
    would then exit 0 with its output cut."""

    def __init__(self, text):
        self._text = text

    def write(self, s: str) -> int:
        from perfeval.classic.main import write_all

        try:
            self._text.flush()
            write_all(self._text.buffer, s.encode(self._text.encoding or "utf-8"))
        except BrokenPipeError:
            raise
        except OSError as e:
            raise _OutputError(e.errno, e.strerror) from None
        return len(s)

    def flush(self) -> None:
        try:
            self._text.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise _OutputError(e.errno, e.strerror) from None

    def __getattr__(self, name):
        return getattr(self._text, name)


def main(argv: Sequence[str] | None = None) -> int:
    """``perfeval`` console script.  Exit status: 0 done, 1 the data (or the output) failed, 2 the
    command line, 70 an internal error, 75 ``score`` scored but could not store, 130 interrupted,
    141 the reader of the output went away."""
    import signal

    from perfeval.cli._streams import guard, quiet_stdout

    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C from here: cleanup, then 130
        guard()
        if sys.stdout is sys.__stdout__ and hasattr(sys.stdout, "buffer"):
            sys.stdout = _WholeWrites(sys.stdout)
        status = _main(argv)
        sys.stdout.flush()  # here, so that a reader gone before the last block is status 141 too
        return status
    except BrokenPipeError:  # the reader went away: stop as a C program killed by SIGPIPE would
        quiet_stdout()
        return 141
    except KeyboardInterrupt:
        return 130
    except OSError as e:  # the output could not be written: a full disk, a closed standard output
        quiet_stdout()
        sys.stderr.write(f"perfeval: error: cannot write the output ({e.strerror or e})\n")
        return 1
    finally:
        if isinstance(sys.stdout, _WholeWrites):
            sys.stdout = sys.stdout._text


def _main(argv: Sequence[str] | None = None) -> int:
    from perfeval.exceptions import InputFormatError, InvalidDataError, PerfError

    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: 0 for --help/--version, 2 for usage errors
        return int(e.code or 0)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the exact command, for the report
    _NOTES.clear()
    import warnings

    def one_line(message, category, filename, lineno, file=None, line=None) -> None:
        """A warning that reaches the command (a library's too) is one line on stderr."""
        sys.stderr.write(f"perfeval: warning: {_one_line(message)}\n")

    try:
        with warnings.catch_warnings():
            warnings.showwarning = one_line
            status = _dispatch(args)
    except (InputFormatError, InvalidDataError) as e:  # the data: 1
        sys.stderr.write(f"perfeval: error: {_one_line(e)}\n")
        return 1
    except PerfError as e:  # the command line, or a missing optional dependency: 2
        sys.stderr.write(f"perfeval: error: {_one_line(e)}\n")
        return 2
    except (BrokenPipeError, _OutputError):
        raise  # main() answers it
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        sys.stderr.write("perfeval: error: out of memory (--stream evaluates a large file in bounded memory)\n")
        return 1
    except OSError as e:  # the file system: a full disk under the spill, a file that fails to read
        where = f" ({_one_line(e.filename)})" if getattr(e, "filename", None) else ""
        sys.stderr.write(f"perfeval: error: {e.strerror or _one_line(e)}{where}\n")
        return 1
    except Exception as e:  # never a traceback
        sys.stderr.write(f"perfeval: error: internal error ({type(e).__name__}: {_one_line(e)}); please report it\n")
        return 70
    if status is None:
        parser.print_help()
        return 0
    for note in _NOTES:
        sys.stderr.write(note)
    return status


def _one_line(e: object) -> str:
    """An error's message on one line (a message from a library may hold line breaks), with any
    control character left in it escaped."""
    from perfeval._text import shown

    return shown(" ".join(str(e).split("\n")).replace("\r", " "))


def _dispatch(args) -> int | None:
    """Run the command; None when no command was named."""
    if args.command == "list-measures":
        sys.stdout.write(list_measures_text(args.long, args.format))
        return 0
    run = {"eval": run_eval, "plot": run_plot, "score": run_score, "leaderboard": run_leaderboard,
           "report": run_report, "compare": run_compare}.get(args.command)
    return None if run is None else run(args)


if __name__ == "__main__":
    sys.exit(main())
