"""The ``perfeval`` command line: every subcommand's options, in one parser.

Options shared by the table commands (how a table is read, the interval options) are added by one
function each, so the commands spell them alike.
"""

from __future__ import annotations

import argparse

from perfeval._version import __version__
from perfeval.cli import slices

EPILOG = """\
The classic command `perf` reproduces PERF 5.12 (KDD Cup 2004) byte for byte: `perf -h`.
"""


#: the examples of the subcommands whose help is built in a loop or short
EXAMPLES = {
    "plot": "examples:\n"
    "  perfeval plot roc runs.csv --target label --score model_a,model_b -o roc.png\n"
    "  perfeval plot calibration runs.csv --target label --score p --bins mass --n-bins 10 -o cal.svg\n"
    "  perfeval plot pr runs.csv --target label --score p -o pr.pdf\n"
    "  perfeval plot roc clicks.csv --target click --score ctr --group user -o users.png\n"
    "  perfeval plot predicted houses.csv --target price --score pred -o pred.png     # a regression target",
    "report": "examples:\n"
    "  perfeval report runs.csv --target label --score model_a,model_b -o report.html\n"
    "  perfeval report clicks.csv --target click --score a,b --group user --ci 0.95 --tie-bounds -o r.html\n"
    "  perfeval report proba.csv --target label --score p_cat,p_dog,p_bird --classes cat,dog,bird -o r.html\n"
    "  perfeval report loans.csv --target repaid --score p --by region,age --min-size 50 -o r.html\n"
    "  perfeval report houses.csv --target price --score pred_a,pred_b -o r.html     # a regression target",
    "leaderboard": "examples:\n  perfeval leaderboard --key answers.txt --task kddcup2004-physics",
    "board": "examples:\n"
    "  perfeval board list --key key.csv --task clicks.toml --team red\n"
    "  perfeval board choose 12 17 --key key.csv --task clicks.toml --team red\n"
    "  perfeval board release --key key.csv --task clicks.toml",
    "codabench": "examples:\n"
    "  perfeval codabench bundle clicks.toml --key clicks_key.csv --out scoring_program.zip\n"
    "  perfeval codabench /app/input /app/output --task /app/program/task.toml --key clicks_key.csv",
    "score": "examples:\n"
    "  perfeval score team_a.txt --key answers.txt --task kddcup2004-physics --team a\n"
    "  perfeval score sub.txt --key answers.txt --task kddcup2004-protein --no-store --format json\n"
    "  perfeval score team_red.csv --key clicks_key.csv --task clicks.toml  # a table task: docs/contest.md",
    "list-measures": "examples:\n  perfeval list-measures\n  perfeval list-measures --long\n"
    "  perfeval list-measures ece cal_slope ndcg@10    # those measures' definitions",
    "sample": "examples:\n  perfeval sample\n  perfeval sample clicks.csv > clicks.csv\n"
    "  perf < $(perfeval sample --path testperfdata)",
}

#: a command's measures when -m is not given (the others: PERF's report)
DEFAULT_MEASURES = {"compare": "roc", "trec": "map,ndcg_cut_10,P_10,recall_100,recip_rank"}


def build() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="perfeval",
        description="Exact, fast evaluation of predictions: every PERF measure, and more, from one registry.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"perfeval {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    ev = sub.add_parser(
        "eval",
        help="compute measures of a table of targets and scores",
        description="Compute measures of a table: whitespace text, CSV, TSV, JSON lines or Parquet, from a "
        "file or standard input, with or without a header.",
        epilog="examples:\n"
        "  perfeval eval results.txt                         # target score columns, PERF's report\n"
        "  perfeval eval runs.csv --target label --score p -m roc,apr,logloss\n"
        "  perfeval eval clicks.parquet --target click --score ctr --group user -m gauc\n"
        "  perfeval eval qrels.tsv --target rel --score s --group qid -m ndcg@10,map,mrr -o scores.json\n"
        "  perfeval eval kdd2002.csv --target label --score s -m roc "
        "--partition narrow=change --partition broad=change,control\n"
        "  perfeval eval proba.csv --target label --score p_cat,p_dog,p_bird --classes cat,dog,bird\n"
        "  perfeval eval mail.csv --labels spam,urgent --score p_spam,p_urgent\n"
        "  perfeval eval long.csv --long --id case --class cls --score p --target y\n"
        "  perfeval eval houses.csv --target price --score predicted -m mae,rmse,r2",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("file", nargs="?", default="-", help="the table (default: standard input)")
    _table_options(ev)
    ev.add_argument(
        "--target", help="target / label / relevance column: name or 1-based position (default 1)"
    )
    ev.add_argument(
        "--score",
        action="append",
        help="score column(s): name or position; several (a,b,c or the option repeated): one row a model "
        "(default 2)",
    )
    ev.add_argument("--group", help="group (query, user, block) column: every measure is computed per group")
    ev.add_argument("--weight", help="weight column (binary measures)")
    _dialect_options(ev)
    mc = ev.add_argument_group(
        'K classes (one score column a class; docs/input.md, "Multiclass")',
        "name the class columns once: --score with a column a class and --classes (their labels, in order), "
        "--score alone when the columns' names are the labels, or --score-prefix",
    )
    mc.add_argument(
        "--classes",
        metavar="LABEL,...",
        help="the class of each --score column, in order: --score p_cat,p_dog --classes cat,dog",
    )
    mc.add_argument(
        "--score-prefix",
        metavar="PREFIX",
        help="the score columns are every column named PREFIX<label> (p_cat, p_dog: --score-prefix p_)",
    )
    mc.add_argument(
        "--long",
        action="store_true",
        help="one row a case and class: --id CASE --class CLASS --score P --target Y (Y: the true "
        "class on every row of a case, or a 0/1 marker of the true class's row); streamed (--stream, "
        "a file over 256 MB) when each case's rows lie together, the file sorted by case",
    )
    mc.add_argument("--class", dest="class_column", metavar="COLUMN", help="with --long: the class column")
    mc.add_argument(
        "--confusion",
        action="store_true",
        help="also print the confusion matrix of the argmax (a tie at the max shares the case)",
    )
    ml = ev.add_argument_group(
        'K labels (multilabel: a 0/1 target column a label; docs/input.md, "Multilabel")',
        "name the label columns once: --labels (the 0/1 columns, their names the labels) or "
        "--label-prefix; the score columns in the same order with --score, or --score-prefix",
    )
    ml.add_argument(
        "--labels",
        metavar="COLUMN,...",
        help="the 0/1 target columns, one a label: --labels spam,urgent --score p_spam,p_urgent",
    )
    ml.add_argument(
        "--label-prefix",
        metavar="PREFIX",
        help="the target columns are every column named PREFIX<label> (y_spam, y_urgent: --label-prefix y_)",
    )
    ev.add_argument(
        "-m",
        "--measures",
        action="append",
        default=None,
        help="comma-separated measures with parameters, e.g. roc,apr,ndcg@10,slq:bins=100; repeated, it "
        "adds (default: PERF's report; `perfeval list-measures` lists them)",
    )
    ev.add_argument(
        "-t", "--threshold", type=float, default=0.5, help="threshold of the threshold measures (0.5)"
    )
    ev.add_argument(
        "--partition",
        action="append",
        default=[],
        metavar="NAME=LABEL[,LABEL...]",
        help="a binary task from multi-class labels: these labels positive, the rest negative",
    )
    ev.add_argument(
        "--task",
        choices=("binary", "regression"),
        help="regression: the target is a real value and --score its prediction (docs/input.md, "
        '"Regression"; default measures mae,mse,rmse,r2,expvar); without it a target of real values or '
        "many whole numbers is read so, and said",
    )
    output_options(ev, ("table", "json", "csv"))
    ev.add_argument(
        "--per-group",
        action="store_true",
        help="also print every group's values (with --format csv: only them, one table pandas reads)",
    )
    ev.add_argument(
        "--per-group-output",
        metavar="FILE",
        help="write every group's values to FILE as CSV (one table), the summary staying on standard output",
    )
    ev.add_argument(
        "--tie-bounds",
        action="store_true",
        help="also each measure's least and greatest value over every order of the tied cases (exact), "
        "and the share of the comparable pairs whose scores are tied: can ties move the ranking?",
    )
    _ci_options(
        ev,
        "--ci",
        "add a confidence interval of this level to every measure, e.g. --ci 0.95 "
        "(a bootstrap; groups are resampled whole when measures are per group)",
    )
    ev.add_argument(
        "--clustered",
        action="store_true",
        help="with --stream --group: the input is sorted or clustered by group, so groups are "
        "evaluated as they arrive instead of being spilled to temporary files",
    )
    ev.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on a Dask cluster: a scheduler address (tcp://host:8786) or local[:N] for N local "
        "worker processes; FILE may be a glob of CSV/TSV/text/Parquet files",
    )
    ev.add_argument(
        "--spark",
        metavar="MASTER",
        help="run on Spark: a master URL (local[2], spark://host:7077, yarn); FILE may be a glob or a "
        "directory of Parquet or CSV/TSV files (docs/spark.md)",
    )
    ev.add_argument(
        "--stream",
        action="store_true",
        help="read in chunks with bounded memory (automatic for files over 256 MB when every measure "
        "is over all cases); the numbers are the same",
    )
    slices.add_options(ev)
    for name, helptext in (
        (
            "plot",
            "draw a curve of one or more models: roc, pr, lift, acc, cost, calibration; of a regression "
            "target: predicted (actual against predicted), residuals",
        ),
        ("report", "write one self-contained HTML report: measures, per-group table, every plot"),
    ):
        pp = sub.add_parser(
            name,
            help=helptext,
            description=helptext,
            epilog=EXAMPLES[name],
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if name == "plot":
            pp.add_argument(
                "kind", choices=("roc", "pr", "lift", "acc", "cost", "calibration", "predicted", "residuals")
            )
        pp.add_argument("file", nargs="?", default="-", help="the table (default: standard input)")
        _table_options(pp)
        pp.add_argument("--target", help="target column: name or 1-based position (default 1)")
        pp.add_argument(
            "--score",
            action="append",
            help="score column(s), comma-separated or the option repeated: one model each (default 2)",
        )
        pp.add_argument("--group", help="group column (plot: one panel a group; report: per-group table)")
        pp.add_argument("--weight", help="weight column (binary and regression measures)")
        pp.add_argument("-t", "--threshold", type=float, default=0.5, help="the operating point marked (0.5)")
        pp.add_argument(
            "--task",
            choices=("binary", "regression"),
            help="regression: the target is a real value and --score its prediction ("
            + ("the plots predicted and residuals" if name == "plot" else "the regression report")
            + "); without it a target of real values or many whole numbers is read so, and said",
        )
        output_options(pp, ("png", "svg", "pdf") if name == "plot" else ("html",), required=True)
        pp.add_argument(
            "--band-level",
            type=float,
            default=0.9,
            metavar="LEVEL",
            help="calibration plot: the level of the consistency band at each bin (default 0.9)",
        )
        pp.add_argument(
            "--band",
            default="outcomes",
            choices=("outcomes", "pairs"),
            help="calibration plot: the band redraws each case's outcome from its score (outcomes, the "
            "default), or the forecasts with replacement and then their outcomes (pairs: Broecker & "
            "Smith's published form, wider)",
        )
        if name == "plot":
            pp.add_argument(
                "--bins",
                default=None,
                type=_calibration_bins,
                metavar="{perf,width,mass}",
                help="calibration bins: PERF's 19 overlapping bins (CA1's, the default), or ECE's "
                "equal-width or equal-mass bins, the very bins whose gaps ECE:bins=width|mass "
                "averages, its value in the legend (uniform and quantile: old names of width and mass; "
                "K classes: ECE_TOP's bins, width by default)",
            )
            pp.add_argument(
                "--n-bins",
                type=int,
                default=None,
                metavar="N",
                help="calibration plot with --bins width or mass: the number of bins (default ECE's, 15)",
            )
            mc = pp.add_argument_group(
                'K classes (one score column a class; docs/input.md, "Multiclass")',
                "plot calibration of one model of K classes: the top-label reliability diagram (each "
                "case's maximum probability against whether its argmax is its class, ECE_TOP's bins and "
                "value); its class columns named by --score with --classes, or --score-prefix",
            )
            mc.add_argument(
                "--classes",
                metavar="LABEL,...",
                help="the class of each --score column, in order: --score p_cat,p_dog --classes cat,dog",
            )
            mc.add_argument(
                "--score-prefix",
                metavar="PREFIX",
                help="the score columns are every column named PREFIX<label> "
                "(p_cat, p_dog: --score-prefix p_)",
            )
            pp.set_defaults(long=False, class_column=None)
        else:
            pp.add_argument(
                "-m",
                "--measures",
                action="append",
                default=None,
                help="measures of the table; repeated, it adds (default: PERF's report)",
            )
            mc = pp.add_argument_group(
                'K classes (one score column a class; docs/input.md, "Multiclass")',
                "one model of K classes, its class columns named once as eval names them: --score with "
                "--classes, --score alone when the columns' names are the labels, or --score-prefix",
            )
            mc.add_argument(
                "--classes",
                metavar="LABEL,...",
                help="the class of each --score column, in order: --score p_cat,p_dog --classes cat,dog",
            )
            mc.add_argument(
                "--score-prefix",
                metavar="PREFIX",
                help="the score columns are every column named PREFIX<label> "
                "(p_cat, p_dog: --score-prefix p_)",
            )
            pp.set_defaults(long=False, class_column=None)  # eval's --long is not the report's (yet)
            _ci_options(
                pp,
                "--ci",
                "add confidence intervals of this level (e.g. 0.95) to the measures, and, with "
                "several models, compare each with the first (paired bootstrap)",
            )
            pp.add_argument(
                "--tie-bounds",
                action="store_true",
                help="add each measure's least and greatest value over every order of the tied cases, "
                "per model, and the share of tied pairs",
            )
            slices.add_options(pp)  # the report's slices section (docs/slices.md)
            pp.set_defaults(stream=False, dask=None)  # the report reads in memory (--by's checks ask)
    sc = sub.add_parser(
        "score",
        help="score competition submissions against an answer key",
        description="Join each submission with the answer key by example id, check it, score "
        "every criterion of the task, print a table and store it on the leaderboard.",
        epilog=EXAMPLES["score"],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sc.add_argument(
        "submissions",
        nargs="+",
        metavar="SUBMISSION",
        help="submission files (ranked-lists tasks: a directory with one <list>.txt each, or the "
        "list files joined by commas)",
    )
    sc.add_argument("--key", required=True, help="the answer key")
    sc.add_argument(
        "--task",
        required=True,
        help="a preset (kddcup2004-physics, kddcup2004-protein, kddcup2002-task2) or a task TOML file",
    )
    sc.add_argument("--team", help="team name for the leaderboard (default: the submission's file name)")
    sc.add_argument(
        "--db",
        help="leaderboard database: a SQLite file or a postgresql:// URL (default: <key>.leaderboard.sqlite)",
    )
    sc.add_argument("--no-store", action="store_true", help="do not store the scores on the leaderboard")
    sc.add_argument(
        "--db-wait",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long to wait for a busy leaderboard database before giving up (default 60); "
        "scores that cannot be stored are printed and the status is 75",
    )
    sc.add_argument(
        "--follow-links",
        action="store_true",
        help="accept submissions that are symbolic links leaving their directory (refused by default)",
    )
    output_options(sc, ("table", "json"))
    lb = sub.add_parser(
        "leaderboard",
        help="print a task's leaderboard: per criterion and overall",
        description="Print a task's leaderboard: each team's best score per criterion, and the overall "
        "ranking.",
        epilog=EXAMPLES["leaderboard"],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lb.add_argument("--key", required=True, help="the answer key (its leaderboard lies beside it)")
    lb.add_argument("--task", required=True)
    lb.add_argument("--db", help="the database, when not the default beside the key")
    output_options(lb, ("table", "json"))
    bd = sub.add_parser(
        "board",
        help="the organizer's leaderboard: release the private board, choose a team's final submissions",
        description="A task whose key splits its rows into public and private boards: `release` shows "
        "the private board (the final ranking) on the leaderboard from now on; `choose ID...` makes "
        "those submissions the team's final ones (at most the task's final_submissions; none: its best "
        "public ones count); `list` lists the submissions (a team's, with --team), their ids and public "
        'scores (docs/contest.md, "Public and private boards").',
        epilog=EXAMPLES["board"],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bd.add_argument("action", choices=("list", "choose", "release"))
    bd.add_argument(
        "ids", nargs="*", type=int, metavar="ID", help="choose: the submissions' ids (board list shows them)"
    )
    bd.add_argument("--key", required=True, help="the answer key (its leaderboard lies beside it)")
    bd.add_argument("--task", required=True)
    bd.add_argument("--db", help="the database, when not the default beside the key")
    bd.add_argument("--team", help="choose: the team; list: only this team's submissions")
    output_options(bd, ("table", "json"))
    cb = sub.add_parser(
        "codabench",
        help="the scoring program of a Codabench or CodaLab competition, and its bundle",
        description="Score the submission in INPUT/res against the key in INPUT/ref, as a Codabench or "
        "CodaLab compute worker calls a scoring program; write OUTPUT/scores.json and OUTPUT/scores.txt. "
        "A rejected submission: one line a problem on stderr (participants read it), nothing of the key. "
        "`codabench bundle TASK --key KEY --out scoring_program.zip` writes the scoring program and the "
        'reference data to upload (docs/contest.md, "Codabench and CodaLab").',
        epilog=EXAMPLES["codabench"],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cb.add_argument("first", metavar="INPUT", help="the worker's input folder (ref/ and res/), or `bundle`")
    cb.add_argument("second", metavar="OUTPUT", help="the worker's output folder (bundle: the TASK)")
    cb.add_argument("--task", help="a preset or a task TOML file (default: INPUT/ref/task.toml)")
    cb.add_argument(
        "--key",
        help="the key's file name in INPUT/ref (default: its one file besides task.toml); bundle: the key",
    )
    cb.add_argument("--out", help="bundle: the scoring program's zip to write")
    cb.add_argument(
        "--reference-out",
        help="bundle: the reference data's zip to write (default: reference_data.zip beside --out)",
    )
    cb.add_argument(
        "--organizer-log",
        action="store_true",
        help="write a misconfiguration's detail to OUTPUT/private/organizer_log.txt (CodaLab keeps "
        "private/ for the organizer; Codabench shows it with the scoring output unless the phase sets "
        "hide_score_output)",
    )
    cp = sub.add_parser(
        "compare",
        help="compare models on the same cases, each against a baseline: difference, interval, p-value",
        description="Compare models scored on the same cases, each against the baseline (the first, or "
        "--baseline): the difference of each measure (model - baseline), its confidence interval and a "
        "two-sided p-value (DeLong's test for the ROC area, the paired t-test for a regression's mean loss "
        "(mae, mse, ...), a paired bootstrap for the other measures; "
        "each row names its test, and --method forces one), with "
        "the p-values corrected for the number of models compared (Holm by default).  Give one table and "
        "--score BASE,A,B..., or several tables of `target score` with the same cases: row for row, or "
        "joined by an id column (--id).",
        epilog="examples:\n"
        "  perfeval compare model_a.txt model_b.txt\n"
        "  perfeval compare runs.csv --target y --score old,new,newer -m roc,apr --method bca\n"
        "  perfeval compare old.csv new.csv dense.csv --id doc --target label --score p -m roc,logloss\n"
        "  perfeval compare clicks.parquet --target click --score a,b --group user -m gauc\n"
        "  perfeval compare old.csv new.csv --target y --score p_a,p_b,p_c --classes a,b,c -m roc_ovr,f1\n"
        "  perfeval compare proba.csv --target y --score-prefix old_,new_ -m roc_ovr,acc\n"
        "  perfeval compare houses.csv --target price --score old,new -m mae,rmse,r2",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cp.add_argument(
        "files", nargs="+", metavar="FILE", help="one table with several score columns, or several tables"
    )
    _table_options(cp)
    cp.add_argument("--target", help="target column: name or 1-based position (default 1)")
    cp.add_argument(
        "--score",
        action="append",
        help="score columns: BASE,A,B... for one table; one column, found in each, for several tables "
        "(default 2)",
    )
    cp.add_argument(
        "--classes",
        metavar="LABEL,...",
        help="K classes: the class of each --score column, in order (each table a model): --score "
        "p_cat,p_dog,p_bird --classes cat,dog,bird",
    )
    cp.add_argument(
        "--score-prefix",
        metavar="PREFIX[,PREFIX...]",
        help="K classes: the score columns are every column named PREFIX<label>; one table: a prefix a "
        "model, the baseline first (--score-prefix old_,new_); several tables: one prefix, found in each",
    )
    cp.add_argument(
        "--id",
        help="case id column of several tables: their rows are joined by it (each id once in each table; "
        "read as an integer or text, never a float)",
    )
    cp.add_argument(
        "--by-position",
        action="store_true",
        help="several tables without --id: pair their rows by position even when a column both tables "
        "name alike (other than the target, score and weight) differs (a column of each model's own); "
        "without it, that is an error",
    )
    cp.add_argument(
        "--baseline", help="the model the others are compared with (its column or file; default the first)"
    )
    cp.add_argument(
        "--correction",
        default="holm",
        choices=("holm", "bh", "bonferroni", "none"),
        help="multiple-testing correction of the p-values over the models compared, per measure: holm "
        "(Holm's step-down, the family-wise error; the default), bh (Benjamini-Hochberg, the false "
        "discovery rate), bonferroni, none",
    )
    cp.add_argument("--group", help="group column: per-group measures, groups resampled whole")
    cp.add_argument("--weight", help="weight column (binary and regression measures)")
    cp.add_argument(
        "--task",
        choices=("binary", "regression"),
        help="regression: the target is a real value and each model's score column its prediction "
        "(default measures mae,mse,rmse,r2,expvar); a regression measure named (-m mae,r2) says so too",
    )
    cp.add_argument(
        "-m",
        "--measures",
        action="append",
        default=None,
        help="comma-separated measures; repeated, it adds (default: roc)",
    )
    cp.add_argument(
        "-t", "--threshold", type=float, default=0.5, help="threshold of the threshold measures (0.5)"
    )
    cp.add_argument(
        "--tie-bounds",
        action="store_true",
        help="also each model's least and greatest value over every order of its tied cases, and whether "
        "the two ranges overlap (ties alone could reverse the comparison)",
    )
    _ci_options(
        cp,
        ("--ci", "--level"),
        "confidence level of the intervals (default 0.95; --ci as in eval)",
        default=0.95,
    )
    output_options(cp, ("table", "json", "csv"))
    tr = sub.add_parser(
        "trec",
        help="evaluate TREC runs against judgments (qrels): one run, or several compared",
        description="Evaluate runs against relevance judgments, as trec_eval counts: a relevant document a "
        "run never retrieved still counts (MAP, recall, the ideal DCG), a judged query a run does not "
        "answer scores 0 (--queries run, and --dialect trec_eval as trec_eval does: only the answered "
        "ones).  Measures are named as perfeval, trec_eval or ir_measures name them, each meaning its "
        "tool's definition (here `ndcg` is "
        "trec_eval's: linear gain).  With several runs, each is tested against the first (or "
        "--baseline) query by query, with a multiple-testing correction over the runs.",
        epilog="examples:\n"
        "  perfeval trec qrels.txt bm25.run -m map,ndcg_cut_10,P_5,recall_100\n"
        "  perfeval trec qrels.txt bm25.run -m map,P_10 -q --format trec  # trec_eval's -q layout\n"
        "  perfeval trec qrels.txt bm25.run rm3.run dense.run -m map,nDCG@10 --test randomization\n"
        "  perfeval trec qrels.txt a.run b.run -m map,ndcg_cut_10 -o table.tex",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    tr.add_argument(
        "qrels",
        help="the judgments: a TREC qrels file (qid iter docid rel; plain, .gz, .bz2 or .xz), or a "
        "table (.csv, .parquet, .jsonl, .tsv with a header) with qid, docid and rel columns",
    )
    tr.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="runs: TREC run files (qid Q0 docid rank score tag), or tables with qid, docid, score",
    )
    tr.add_argument(
        "-m",
        "--measures",
        action="append",
        default=None,
        help="comma-separated measures; repeated, it adds "
        "(default: map,ndcg_cut_10,P_10,recall_100,recip_rank)",
    )
    tr.add_argument("-q", "--per-query", action="store_true", help="also each query's value")
    tr.add_argument(
        "--tie-bounds",
        action="store_true",
        help="also each measure's least and greatest mean over every order of the tied documents "
        "(exact; whatever --ties says) and the share of the pairs of documents of different relevance "
        "whose scores are tied",
    )
    output_options(
        tr,
        ("table", "trec", "json", "csv", "markdown", "latex"),
        "trec: trec_eval's three columns, with trec_eval's numbers (--dialect trec_eval)",
    )
    tr.add_argument(
        "--queries",
        default=None,
        choices=("qrels", "run"),
        help="qrels: every judged query, unanswered ones 0 (trec_eval -c); run: the judged queries each "
        "run answers (trec_eval's default).  Default: the dialect's (trec_eval: run; ranx, ir_measures: "
        "qrels), else qrels",
    )
    tr.add_argument(
        "--ties",
        default=None,
        choices=("perfeval", "trec_eval", "file", "ranx"),
        help="tied scores: perfeval (expected over the orders of the tie; default), trec_eval (by "
        "document id, descending), file (the run's line order), ranx (numba's argsort order: the "
        "line order up to 15 documents a query)",
    )
    tr.add_argument(
        "--dialect",
        default=None,
        choices=("perfeval", "trec_eval", "ranx", "ir_measures"),
        help="a tool's numbers as its users get them by default: its ties (trec_eval, ir_measures: by "
        "document id; ranx: numba's order), its definitions (their ndcg@k has linear gain) and the "
        "queries it averages over (trec_eval: those the run answers, as without -c; ranx, "
        "ir_measures: every judged query).  --format trec is --dialect trec_eval (docs/dialects.md)",
    )
    tr.add_argument(
        "-l",
        "--level",
        type=float,
        default=None,
        help="relevance from which a document is relevant to the binary measures (trec_eval -l; "
        "default: relevance > 0)",
    )
    tr.add_argument(
        "--qrels-columns",
        metavar="ROLE=NAME,...",
        help="judgments in a table (CSV, TSV with a header, Parquet, JSON lines): the columns of qid, "
        "docid and rel where they lack their usual names, e.g. qid=user,docid=item,rel=click",
    )
    tr.add_argument(
        "--run-columns",
        metavar="ROLE=NAME,...",
        help="runs in tables: the columns of qid, docid and score, e.g. qid=user,docid=item,score=pred",
    )
    tr.add_argument("--baseline", help="the run the others are compared with (its name; default the first)")
    tr.add_argument(
        "--test",
        default="t",
        choices=("t", "randomization", "bootstrap", "none"),
        help="paired test per measure against the baseline (default t: Student's paired t-test)",
    )
    tr.add_argument(
        "--correction",
        default="holm",
        choices=("holm", "bh", "bonferroni", "none"),
        help="multiple-testing correction over the runs compared with the baseline, per measure: holm "
        "(Holm's step-down, the family-wise error; the default), bh (Benjamini-Hochberg, the false "
        "discovery rate), bonferroni, none",
    )
    tr.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    tr.add_argument(
        "--n-resamples", type=int, default=10_000, help="randomization/bootstrap resamples (default 10000)"
    )
    tr.add_argument("--seed", type=int, default=0, help="seed of the randomization/bootstrap (default 0)")
    ex = sub.add_parser(
        "explain",
        help="the same measures as other tools compute them, and the rules behind each difference",
        description="Compute the measures under every dialect (sklearn, trec_eval, ranx, torchmetrics, "
        "spark, keras, din: each tool's rules over perfeval's engine) and print one table, a row a tool, "
        "with, under it, the rules that make each tool's value differ from perfeval's and how many "
        "cases or queries each rule touched.  With judgments and a run (QRELS RUN, as perfeval trec "
        "reads them): the dialects of perfeval trec (trec_eval, ranx, ir_measures), each as its tool "
        "averages.  docs/dialects.md lists every rule.",
        epilog="examples:\n"
        "  perfeval explain run.csv --target rel --score s --group qid --id doc -m ap,ndcg@10\n"
        "  perfeval explain qrels.txt bm25.run -m map,ndcg_cut_10,P_10\n"
        "  perfeval explain preds.csv --target y --score p -m roc,ap --dialects sklearn,spark,keras\n"
        "  perfeval explain preds.csv -m roc --dialects keras:num_thresholds=1000,spark:numBins=100 "
        "--format json\n"
        "  perfeval explain proba.csv --target y --score p_a,p_b,p_c --classes a,b,c -m roc_ovr,roc_ovo\n"
        "  perfeval explain prices.csv --target price --score pred -m mae,r2,mape:eps=sklearn,medae\n"
        "  perfeval explain 'clicks/*.parquet' --target click --score ctr -m roc,ap --spark 'local[2]'",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ex.add_argument("file", nargs="?", default="-", help="the table (default: standard input)")
    ex.add_argument(
        "run",
        nargs="?",
        default=None,
        help="a TREC run (or a table of qid, docid, score): FILE is then the judgments (qrels)",
    )
    _table_options(ex)
    ex.add_argument("--target", help="target / relevance column: name or 1-based position (default 1)")
    ex.add_argument("--score", help="score column: name or position (default 2)")
    ex.add_argument("--group", help="group (query, user) column")
    ex.add_argument("--weight", help="weight column (binary measures)")
    ex.add_argument(
        "--id",
        help="document id column (trec_eval orders tied documents by id; an error when no dialect "
        "shown reads it)",
    )
    ex.add_argument(
        "--classes",
        metavar="LABEL,...",
        help="K classes: the class of each --score column, in order (--score p_a,p_b,p_c --classes a,b,c); "
        "scikit-learn's and torchmetrics' averages beside perfeval's",
    )
    ex.add_argument(
        "--score-prefix",
        metavar="PREFIX",
        help="K classes: the score columns are every column named PREFIX<label> (p_a, p_b: "
        "--score-prefix p_)",
    )
    ex.add_argument(
        "-m",
        "--measures",
        action="append",
        required=True,
        help="comma-separated measures, e.g. ap,ndcg@10; repeated, it adds",
    )
    ex.add_argument(
        "--dialects",
        default=None,
        help="comma-separated dialects, with options after colons (default: every dialect that defines "
        "one of the measures)",
    )
    ex.add_argument("-t", "--threshold", type=float, default=0.5)
    ex.add_argument(
        "--spark",
        metavar="MASTER",
        help="run on Spark: a master URL (local[2], spark://host:7077); FILE may be a glob or a directory "
        "of Parquet or CSV/TSV files; ROC and AP exact, the spark dialect's, and Spark's own "
        "BinaryClassificationEvaluator run there (numBins from --dialects spark:numBins=N; docs/spark.md)",
    )
    ex.add_argument(
        "--task",
        choices=("binary", "regression"),
        help="regression: the target is a real value and --score its prediction; scikit-learn's and "
        "torchmetrics' numbers beside perfeval's (without it, a regression measure named, or a target of "
        "real values with only rmse/mse, is read so)",
    )
    output_options(ex, ("table", "json", "csv"))
    sa = sub.add_parser(
        "sample",
        help="the sample files shipped with perfeval: list them, or write one out to try the commands",
        description="The sample files shipped in the package: without NAME, the list; with it, the "
        "file's content on standard output (or -o FILE), or its path (--path).",
        epilog=EXAMPLES["sample"],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sa.add_argument("name", nargs="?", metavar="NAME", help="a sample's name (see the list)")
    sa.add_argument("--path", action="store_true", help="print where the file is instead of its content")
    sa.add_argument(
        "-o", "--output", metavar="FILE", default=None, help="the file to write (default: standard output)"
    )
    sa.set_defaults(output_formats=("raw",), format=None)
    lm = sub.add_parser(
        "list-measures",
        help="list the measures (name, aliases, PERF options, direction)",
        description="List the measures of the registry: name, direction, PERF options, aliases; --long "
        "gives each definition, tie rule, edge cases and dialects.",
        epilog=EXAMPLES["list-measures"],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lm.add_argument(
        "names",
        nargs="*",
        metavar="MEASURE",
        help="only these measures, each with its full definition: a name, alias, PERF option or another "
        "tool's spelling, with parameters (ece:bins=mass, ndcg@10, -roc)",
    )
    lm.add_argument("--long", action="store_true", help="print each measure's full definition")
    output_options(lm, ("table", "markdown"))
    for cmd in sub.choices.values():  # every command: progress on a terminal unless --quiet
        cmd.add_argument(
            "--quiet",
            action="store_true",
            help="no progress bar (shown on a terminal for rows read, replicates and groups)",
        )
    return p


#: the formats a table is read in (``--input-format``)
INPUT_FORMATS = ("auto", "text", "csv", "tsv", "jsonl", "parquet")

#: a file name's extension -> the output format it means
EXTENSIONS = {
    "json": "json",
    "csv": "csv",
    "md": "markdown",
    "markdown": "markdown",
    "tex": "latex",
    "txt": "table",
    "text": "table",
    "trec": "trec",
    "html": "html",
    "htm": "html",
    "png": "png",
    "svg": "svg",
    "pdf": "pdf",
}


def _calibration_bins(text: str) -> str:
    """``--bins``: the measures' word (perf, width, mass; uniform and quantile as old names), or a
    usage error listing them (:func:`perfeval.curves.calibration_bins`).
    """
    from perfeval.curves import calibration_bins
    from perfeval.exceptions import InvalidParameterError

    try:
        return calibration_bins(text)
    except InvalidParameterError as e:
        said = str(e).replace("the calibration plot's bins must be", "expected")
        raise argparse.ArgumentTypeError(said) from None


def output_options(p, formats: tuple[str, ...], note: str = "", required: bool = False) -> None:
    """``-o/--output FILE`` and ``--format NAME``, alike in every command: the file written (default
    standard output) and its format (default: from the file's extension, else the first of
    ``formats``).  :func:`perfeval.cli.main.resolve_output` checks and settles them.
    """
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        required=required,
        default=None,
        help="the file to write" + ("" if required else " (default: standard output)"),
    )
    p.add_argument(
        "--format",
        metavar="NAME",
        default=None,
        help=f"output format: {', '.join(formats)} (default: from the file name's extension"
        + ("" if required else f", else {formats[0]}")
        + (f"; {note}" if note else "")
        + ")",
    )
    p.set_defaults(output_formats=formats)


def _table_options(p) -> None:
    """How an input table is read: its format and whether it has a header (every table command)."""
    p.add_argument(
        "--input-format",
        default="auto",
        choices=INPUT_FORMATS,
        help="the table's format (default: from the file name or content)",
    )
    p.add_argument(
        "--pos-label",
        default=None,
        metavar="LABEL",
        help="the positive label of the target column (e.g. yes, True, 2): the others are negative",
    )
    p.add_argument(
        "--delimiter",
        default=None,
        metavar="CHAR",
        help="CSV field delimiter: , ; or tab (default: sniffed from the first lines)",
    )
    hdr = p.add_mutually_exclusive_group()
    hdr.add_argument(
        "--header", dest="header", action="store_true", default=None, help="the first line is a header"
    )
    hdr.add_argument("--no-header", dest="header", action="store_false", help="the first line is data")


def _dialect_options(p) -> None:
    """Another tool's rules (``--dialect``) and the document ids some of them order ties by."""
    p.add_argument(
        "--dialect",
        default="perfeval",
        metavar="NAME[:OPTION=VALUE...]",
        help="compute each measure as another tool does: perfeval (default), sklearn, trec_eval, ranx, "
        "torchmetrics, spark, keras, din; options after colons, e.g. keras:num_thresholds=1000 "
        "(docs/dialects.md)",
    )
    p.add_argument(
        "--id",
        help="document id column (the trec_eval dialect orders tied documents by id; read by no other "
        "dialect: an error with them)",
    )


def _ci_options(p, flag: str | tuple[str, ...], helptext: str, default=None) -> None:
    flags = (flag,) if isinstance(flag, str) else flag
    p.add_argument(*flags, dest="ci", type=float, default=default, metavar="LEVEL", help=helptext)
    p.add_argument(
        "--method",
        default=None,
        choices=("bca", "percentile", "delong", "t", "wald"),
        help="interval method: bca (default), percentile, delong (ROC area), t (Student's t of a "
        "regression's mean loss: mae, mse, mape, pinball, the deviances) or wald (CAL_SLOPE, "
        "CAL_INTERCEPT: the logistic fit's standard errors); compare's and the report's "
        "comparisons take DeLong's test for the ROC area and the paired t-test for a regression's mean "
        "loss over all unweighted cases, and the bca bootstrap for the rest, unless --method forces one",
    )
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap replicates (default 1000)")
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the bootstrap (default 0): same seed, same interval"
    )
