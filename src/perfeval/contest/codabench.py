"""The scoring program of a Codabench or CodaLab competition (``perfeval codabench INPUT OUTPUT``) and
the bundle an organizer uploads (``perfeval codabench bundle``).

The platforms' compute worker unpacks the reference data into ``INPUT/ref``, the participant's
submission into ``INPUT/res``, runs the scoring program's ``command`` (``metadata.yaml``, with
``$input``, ``$output`` and ``$program`` replaced by the directories) and reads ``OUTPUT/scores.json``
(Codabench) or ``OUTPUT/scores.txt`` (CodaLab: ``name: value`` lines).  Participants see the
program's stdout and stderr, and may download ``OUTPUT`` (docs/contest.md, "Codabench and CodaLab"):
what is written there says nothing of the key.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import stat
import zipfile
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from perfeval.base.console import write_file
from perfeval.base.text import shown
from perfeval.contest.entry import read_key, score_submission, task_of
from perfeval.contest.tasks import Task
from perfeval.exceptions import InputFormatError, InvalidParameterError, PerfError

#: what participants read when the organizer's side (the task, the key, the bundle) is wrong
MISCONFIGURED = "the scoring program is misconfigured: tell the organizers"
#: what participants read when the scorer fails on their submission for no fault of theirs
FAILED = "the scoring program failed on this submission: tell the organizers"
#: the task file's name in the scoring program's directory (and, without --task, in INPUT/ref)
TASK_FILE = "task.toml"
#: the organizer's detail, with --organizer-log: CodaLab keeps OUTPUT/private for the competition's
#: creator (its compute worker zips it apart); Codabench shows it with the scoring output unless the
#: phase hides that output (hide_score_output)
ORGANIZER_LOG = os.path.join("private", "organizer_log.txt")
#: the platforms store a score as a decimal of 20 digits, 10 after the point: at most this in magnitude
MAX_SCORE = 1e10
#: a criterion's name as a key of scores.txt: a YAML plain key (Codabench) and one ':' a line (CodaLab)
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_@.+\-()/]*( [A-Za-z0-9_@.+\-()/]+)*\Z")
#: a file name that passes through the command line of either platform (CodaLab splits it at blanks)
_FILE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\Z")


@dataclass
class Run:
    """What one run of the scoring program came to: its exit status, the lines participants may read
    (stderr), the organizer's detail (never shown to participants), and the scores written.
    """

    status: int
    participant: list[str] = field(default_factory=list)
    organizer: list[str] = field(default_factory=list)
    scores: dict[str, float] | None = None
    rows: int = 0
    name: str = ""


def check_names(task: Task) -> None:
    """Refuse a criterion whose name cannot be a key of both score files (a leaderboard column's key),
    and a key split into public and private boards (``usage``): the scoring program writes one set of
    scores, so it would show the public board only, silently; Codabench and CodaLab split the boards
    by phases (each phase its own reference data).
    """
    if task.columns is not None and task.columns.usage is not None:
        raise InvalidParameterError(
            f"task {shown(task.name)}: its key splits the rows into public and private boards (usage = "
            f"{task.columns.usage!r}); a Codabench or CodaLab scoring program writes one board's scores: "
            "give each phase its own reference data (the public rows, then all rows) and drop usage"
        )
    for name in task.directions():
        if not _KEY.match(name):
            raise InvalidParameterError(
                f"task {shown(task.name)}: criterion {shown(name)!r} cannot be a key of scores.txt "
                "(CodaLab reads 'name: value' lines, Codabench reads them as YAML): a letter or _ "
                "first, then letters, digits, single blanks and _@.+-()/"
            )


def yaml_float(v: float) -> str:
    """``repr(v)`` (the double, read back to the same bits) in a form YAML 1.1 reads as a float too:
    PyYAML reads ``1e-05`` as a string, ``1.0e-05`` as the number.
    """
    r = repr(v)
    mantissa, e, exponent = r.partition("e")
    return f"{mantissa}.0e{exponent}" if e and "." not in mantissa else r


def score_files(scores: dict[str, float]) -> tuple[bytes, bytes]:
    """scores.json (Codabench) and scores.txt (CodaLab), every value as its ``repr``."""
    as_json = json.dumps(scores, allow_nan=False) + "\n"
    as_txt = "".join(f"{k}: {yaml_float(v)}\n" for k, v in scores.items())
    return as_json.encode(), as_txt.encode()


def _key_path(ref: str, key: str | None) -> str:
    """The key in INPUT/ref: ``key`` (a name there), else its one file besides the task file and a
    CodaLab ``metadata`` file.
    """
    if key is not None:
        return os.path.join(ref, key)
    try:
        names = sorted(e.name for e in os.scandir(ref) if e.name not in (TASK_FILE, "metadata"))
    except OSError as e:
        raise InputFormatError(
            f"the reference data cannot be listed ({e.strerror or e})", source=ref
        ) from None
    if len(names) != 1:
        raise InvalidParameterError(
            f"{ref}: the reference data holds {len(names)} files besides {TASK_FILE} "
            f"({', '.join(shown(n) for n in names[:5])}): name the key with --key"
        )
    return os.path.join(ref, names[0])


def _ignored(entry: os.DirEntry) -> bool:
    """What the platforms and zip tools put beside a submission's files: the worker's ``metadata``
    (a result submission's prediction step writes it), macOS's ``__MACOSX`` folder and hidden files.
    """
    return entry.name == "metadata" or entry.name == "__MACOSX" or entry.name.startswith(".")


def _listing(names: list[str]) -> str:
    shownames = [repr(shown(n)[:40]) for n in names[:5]]
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    return ", ".join(shownames) + more


def _submission(res: str, task: Task) -> tuple[list[str] | None, str | None]:
    """The submission's files in INPUT/res (names relative to it), or the participant's error."""
    try:
        st = os.lstat(res)
    except OSError:
        return None, "the submission holds no file (the platform gave no submission)"
    if not stat.S_ISDIR(st.st_mode):
        return None, "the submission is not a folder of files (the platform gave something else)"
    entries = sorted((e for e in os.scandir(res) if not _ignored(e)), key=lambda e: e.name)
    folders = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
    files = [e.name for e in entries if not e.is_dir(follow_symlinks=False)]
    if task.lists:
        wanted = [f"{x}.txt" for x in task.lists]
        extra = [n for n in folders + files if n not in wanted]
        missing = [n for n in wanted if n not in files]
        if extra or missing:
            said = [f"it lacks {_listing(missing)}"] if missing else []
            said += [f"it holds {_listing(extra)}, not a list of the task"] if extra else []
            return None, (
                f"the submission holds the ranked lists {', '.join(wanted)} (zip these files themselves, "
                f"not a folder): {'; '.join(said)}"
            )
        return wanted, None
    if not entries:
        return None, "the submission holds no file: submit a zip holding your predictions file"
    if folders and not files and len(folders) == 1:
        return None, (
            f"the submission holds a folder ({_listing(folders)}), not a file: zip the predictions "
            "file itself, not the folder that holds it"
        )
    if len(entries) > 1:
        return None, (
            f"the submission holds {len(entries)} files and folders ({_listing(folders + files)}); "
            "it is one predictions file"
        )
    return files, None


def run(
    input_dir: str,
    output_dir: str,
    task: Task | str | None = None,
    key: str | None = None,
    organizer_log: bool = False,
) -> Run:
    """Score the submission in ``INPUT/res`` against the key in ``INPUT/ref``; write
    ``OUTPUT/scores.json`` and ``OUTPUT/scores.txt`` when it is accepted (and remove old ones first,
    so a rejected submission never leaves scores behind).

    Parameters
    ----------
    input_dir, output_dir : str
        The worker's ``$input`` (holding ``ref`` and ``res``) and ``$output``.
    task : Task, or str, optional
        The task (a preset's name or a task file); default ``INPUT/ref/task.toml``.
    key : str, optional
        The key's file name in ``INPUT/ref``; default the one file there besides the task file.
    organizer_log : bool
        Write the organizer's detail of a misconfiguration to ``OUTPUT/private/organizer_log.txt``.

    Returns
    -------
    Run
        Never raises: a problem of the task or key is :data:`MISCONFIGURED` for participants (status
        2, or 1 for a key that cannot be read), its detail in ``organizer``; a rejected submission is
        status 1 with one line a problem (no value of the key); a failure of the scorer is status 70.
    """
    input_dir, output_dir = os.path.abspath(input_dir), os.path.abspath(output_dir)
    out = _run(input_dir, output_dir, task, key)
    if organizer_log and out.organizer:
        try:
            os.makedirs(os.path.join(output_dir, "private"), exist_ok=True)
            write_file(
                os.path.join(output_dir, ORGANIZER_LOG), "".join(f"{x}\n" for x in out.organizer).encode()
            )
        except OSError:
            pass  # the detail cannot be kept; participants' message stands
    return out


def _run(input_dir: str, output_dir: str, task: Any, key: str | None) -> Run:
    try:
        os.makedirs(output_dir, exist_ok=True)
        for name in ("scores.json", "scores.txt"):
            if os.path.lexists(os.path.join(output_dir, name)):
                os.unlink(os.path.join(output_dir, name))
        ref = os.path.join(input_dir, "ref")
        the_task = task_of(task if task is not None else os.path.join(ref, TASK_FILE))
        check_names(the_task)
        the_key = read_key(_key_path(ref, key), the_task)
    except Exception as e:  # the organizer's side: the task, the key, the output folder
        status = 1 if isinstance(e, (InputFormatError, OSError)) else 2 if isinstance(e, PerfError) else 70
        return Run(status, [MISCONFIGURED], [f"{type(e).__name__}: {e}"])
    files, problem = _submission(os.path.join(input_dir, "res"), the_task)
    if problem is not None:
        return Run(1, [problem])
    assert files is not None
    here = os.getcwd()
    try:  # the messages name the submission's files as the participant named them
        os.chdir(os.path.join(input_dir, "res"))
        sub: Any = files if the_task.lists else files[0]
        result = score_submission(the_task, the_key, sub, follow_links=False)
    except Exception as e:
        return Run(70, [FAILED], [f"{type(e).__name__}: {e}"])
    finally:
        os.chdir(here)
    name = ", ".join(files)
    if not result.ok:
        return Run(1, list(result.errors), rows=result.rows, name=name)
    bad = []
    for k, v in result.scores.items():
        if not math.isfinite(v):
            bad.append(
                f"{k}: the score is not a number ({result.why.get(k, 'undefined')}); nothing is stored"
            )
        elif abs(v) >= MAX_SCORE:
            bad.append(f"{k}: the score {v!r} is too large for the leaderboard (at most 1e10 in magnitude)")
    if bad:
        return Run(1, bad, rows=result.rows, name=name)
    as_json, as_txt = score_files(dict(result.scores))
    try:
        write_file(os.path.join(output_dir, "scores.json"), as_json)
        write_file(os.path.join(output_dir, "scores.txt"), as_txt)
    except OSError as e:
        return Run(70, [FAILED], [f"cannot write the scores: {e}"])
    return Run(0, scores=dict(result.scores), rows=result.rows, name=name)


def command_line(key_name: str, organizer_log: bool = False) -> str:
    """The scoring program's ``command`` in metadata.yaml: the platforms replace ``$input``,
    ``$output`` and ``$program`` by the directories; Codabench's worker runs it in ``/app/program``.
    """
    extra = " --organizer-log" if organizer_log else ""
    return f"perfeval codabench $input $output --task $program/{TASK_FILE} --key {key_name}{extra}"


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return buf.getvalue()


def _task_text(task: str) -> bytes:
    if os.path.isfile(task):
        with open(task, "rb") as f:
            return f.read()
    return resources.files("perfeval.contest.presets").joinpath(f"{task}.toml").read_bytes()


def bundle(
    task: str, key: str, out: str, reference_out: str | None = None, organizer_log: bool = False
) -> dict:
    """Write the scoring program (``out``: metadata.yaml, metadata and the task file) and the
    reference data (``reference_out``, default ``reference_data.zip`` beside ``out``: the key) that an
    organizer uploads as they are.  The task and the key are checked first, with their full detail
    (the organizer's terminal), so a bundle that is written scores.

    Returns
    -------
    dict
        ``program``, ``reference``, ``key`` (the key's name in the reference data), ``columns``
        (the leaderboard's columns: name and sorting, ``asc``/``desc``; ``None`` for a criterion
        ranked by its distance to an ideal value, which the platforms' sorting cannot say).
    """
    the_task = task_of(task)
    check_names(the_task)
    read_key(key, the_task)  # its problems are raised here, in full, before anything is written
    base = os.path.basename(key)
    ext = os.path.splitext(base)[1]
    key_name = base if _FILE.match(base) else "key" + (ext if re.fullmatch(r"\.[A-Za-z0-9]+", ext) else "")
    meta = (
        f"command: {command_line(key_name, organizer_log)}\n"
        f"description: perfeval scoring program for task {json.dumps(shown(the_task.name))}\n"
    ).encode()
    program = _zip({"metadata.yaml": meta, "metadata": meta, TASK_FILE: _task_text(task)})
    with open(key, "rb") as f:
        reference = _zip({key_name: f.read()})
    reference_out = reference_out or os.path.join(os.path.dirname(out), "reference_data.zip")
    if os.path.abspath(reference_out) == os.path.abspath(out):
        raise InvalidParameterError(f"--reference-out {reference_out}: that is --out: give two files")
    write_file(out, program)
    write_file(reference_out, reference)
    sorting = {"higher": "desc", "lower": "asc"}
    columns = [(n, sorting.get(d)) for n, d in the_task.directions().items()]
    return {"program": out, "reference": reference_out, "key": key_name, "columns": columns}
