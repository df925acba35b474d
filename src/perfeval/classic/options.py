"""The classic command line: PERF 5.12's option scanner, reproduced.

PERF scans argv left to right.  At each position it tries a fixed sequence of recognisers; one that
takes values moves the position over them at once, and the recognisers after it in the same pass
then look at the consumed value (so ``-plot -acc`` swallows ``-acc`` as the plot type, and
``-t -blocks`` sets the threshold to 0 *and* block mode).  Names match case-insensitively and
exactly, except the ``-break...`` family, which matches by prefix.  Values are read with C's
``atof``: the longest numeric prefix, else 0.  This module does the same, in the same order
(SPEC section 3.1), and returns a :class:`ClassicRequest`.

Where PERF crashes (a value-taking option at the end of the line) or reads garbage (``-slq 0``,
``-cal 0``, a NaN bin width), this module raises :class:`~perfeval.exceptions.InvalidParameterError`
with a one-line message naming the option.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

from perfeval._nicknames import ALL, EASY, STATS, classic_flags
from perfeval.exceptions import InvalidParameterError

EPS = 1e-10
MAX_BINS = 1000
INT_MIN = -2147483648

# The simple measure flags, in the original's recogniser order, with the internal flag they set.
# (The option names themselves are also the `perf_options` of the registry entries; a test checks
# that the two agree.)
FLAG_OPTIONS: tuple[tuple[str, str], ...] = (
    ("-acc", "ACC"), ("-rms", "RMS"), ("-sen", "SEN"), ("-spc", "SPC"), ("-npv", "NPV"), ("-ppv", "PPV"),
    ("-roc", "ROC"), ("-auc", "ROC"), ("-r50", "R50"), ("-pre", "PRE"), ("-rec", "REC"), ("-prf", "PRF"),
    ("-prb", "PRB"), ("-apr", "APR"), ("-cxe", "CXE"), ("-rkl", "RKL"), ("-lft", "LFT"),
    ("-top1", "TOP1"), ("-top10", "TOP10"),
)
BREAK_PREFIXES = ("-break", "-pr_break", "-prbreak")

#: every internal flag that counts as "a measure was selected" (SPEC 3.3)
MEASURE_FLAGS = ("ACC", "APR", "CAL", "CST", "CXE", "TOP1", "TOP10", "SAR", "LFT", "NPV", "NRM", "PPV",
                 "PRB", "PRF", "PRE", "NTOP", "RKL", "REC", "RMS", "ROC", "R50", "SEN", "SLQ", "SPC")
#: what -all and the default report select
ALL_FLAGS = classic_flags(ALL)
STATS_FLAGS = classic_flags(STATS)
EASY_FLAGS = classic_flags(EASY)
BLOCK_FLAGS = ("APR", "RMS", "TOP1", "RKL")

_ATOF = re.compile(
    rb"[ \t\n\v\f\r]*[+-]?(?:"
    rb"(?P<inf>inf(?:inity)?)|(?P<nan>nan(?:\([0-9a-z_]*\))?)|"
    rb"(?P<hex>0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?)|"
    rb"(?P<dec>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?))",
    re.IGNORECASE,
)


def atof(text: str) -> float:
    """C's ``atof``: the value of the longest prefix that is a number, else 0.0.

    Examples
    --------
    >>> atof("0.25abc"), atof("abc"), atof(" -1e-2"), atof("0x1p-2"), atof("1e")
    (0.25, 0.0, -0.01, 0.25, 1.0)
    """
    raw = os.fsencode(text)
    m = _ATOF.match(raw)
    if not m:
        return 0.0
    tok = m.group(0).strip().decode("ascii")
    neg = tok.startswith("-")
    body = tok.lstrip("+-")
    if m.group("hex"):
        v = float.fromhex(body)
    elif m.group("nan"):
        v = math.nan
    else:
        v = float(body)
    return -v if neg else v


def c_int(x: float) -> int:
    """C's conversion of a double to int on x86: truncation; NaN and out-of-range give INT_MIN."""
    if x != x or x >= 2147483648.0 or x <= -2147483649.0:
        return INT_MIN
    return int(x)


def _eq(arg: str, wanted: str) -> bool:
    # strncasecmp(arg, wanted, 20) == 0 with every wanted name shorter than 20: an exact, ASCII
    # case-insensitive match
    return os.fsencode(arg).lower() == wanted.encode()


class ClassicExit(Exception):
    """An exit the original takes while scanning options, with its exact text, stream and status."""

    def __init__(self, text: str, stream: str, status: int, usage: bool = False):
        super().__init__(text)
        self.text = text
        self.stream = stream
        self.status = status
        self.usage = usage


class HelpRequested(Exception):
    """``-h``/``--help`` (exit 0) or ``--version``."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


@dataclass
class ClassicRequest:
    """Everything the classic command line selects."""

    flags: set[str] = field(default_factory=set)
    stats_mode: bool = False
    confusion: bool = False
    loss: bool = False
    blocks: bool = False
    plot: str | None = None  # "roc", "pr", "lift", "cost", "acc"
    threshold: float = 0.5
    threshold_set: bool = False
    percent: float | None = None  # percent mode
    ntop: float = 0.0
    nrm: float = 0.0
    sar: tuple[float, float, float] = (1.0, 1.0, 1.0)
    cost: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    slq_width: float = 0.01
    slq_bins: int = 100
    cal_window: int = 100
    infile: str | None = None
    predfile: str | None = None  # set with -files (infile holds the targets)


_PLOT_LETTERS = {"r": "roc", "p": "pr", "l": "lift", "c": "cost", "a": "acc"}


def parse_options(argv: list[str]) -> ClassicRequest:
    """Scan ``argv`` (without the program name) exactly as PERF 5.12 does.

    Raises
    ------
    ClassicExit
        For the original's own option errors (unrecognised option, -percent out of range, bad
        -slq width, -file/-files problems, -blocks with other measures), with its exact text.
    InvalidParameterError
        Where the original would crash or read garbage: a missing value, ``-slq 0``, ``-cal 0``...
    HelpRequested
        ``-h``, ``--help`` or ``--version`` where the original would call them unrecognised.
    """
    r = ClassicRequest()
    n = len(argv)
    i = 0

    def value(opt: str, what: str, k: int = 1) -> str:
        nonlocal i
        if i + k >= n:
            raise InvalidParameterError(f"option {opt} needs {what}, but the command line ends after it")
        return argv[i + k]

    def take(opt: str, what: str) -> str:
        """Move to the next argument and return it (PERF's `arg++; atof(argv[arg])`)."""
        nonlocal i
        if i + 1 >= n:
            raise InvalidParameterError(f"option {opt} needs {what}, but the command line ends before")
        i += 1
        return argv[i]

    def param(wanted: str, what: str) -> float | None:
        """PERF's accept_parameter: on a match, consume and return the next argument's value."""
        nonlocal i
        if not _eq(argv[i], wanted):
            return None
        v = atof(value(argv[i], what))
        i += 1
        return v

    while i < n:
        taken = 0
        for opt, flag in FLAG_OPTIONS:
            if _eq(argv[i], opt):
                r.flags.add(flag)
                taken += 1
        v = param("-ntop", "a value (how many top cases)")
        if v is not None:
            r.flags.add("NTOP")
            r.ntop = v
            taken += 1
        for name in ("-nrm", "-norm"):
            v = param(name, "a value (the exponent P)")
            if v is not None:
                r.flags.add("NRM")
                r.nrm = v
                taken += 1
        v = param("-percent", "a value (percent of the data to call positive)")
        if v is not None:
            taken += 1
            r.percent = v
            r.threshold_set = False
            if v != v:
                raise InvalidParameterError("option -percent needs a number between 0 and 100, got NaN")
            if v < 0 or v > 100:
                raise ClassicExit("Error: The argument for -percent must be between 0 and 100.\n", "stderr", 1)
        for prefix in BREAK_PREFIXES:
            if os.fsencode(argv[i]).lower().startswith(prefix.encode()):
                r.flags.add("PRB")
                taken += 1
        if _eq(argv[i], "-plot"):
            taken += 1
            kind = value(argv[i], "a plot type (roc, pr, lift, cost or acc)")
            i += 1
            chosen = _PLOT_LETTERS.get(kind[:1].lower()) if kind else None
            if chosen:
                r.plot = chosen
        if _eq(argv[i], "-easy"):
            taken += 1
            r.flags.update(EASY_FLAGS)
        for name in ("-conf", "-confusion", "-table"):
            if _eq(argv[i], name):
                r.confusion = True
                taken += 1
        if _eq(argv[i], "-sar"):
            taken += 1
            r.flags.add("SAR")
            r.sar = tuple(atof(take("-sar", "three weights (wacc wroc wrms)")) for _ in range(3))  # type: ignore[assignment]
        if _eq(argv[i], "-stats"):
            taken += 1
            r.stats_mode = True
            r.flags.update(STATS_FLAGS)
        if _eq(argv[i], "-all"):
            taken += 1
            r.stats_mode = True
            r.flags.update(ALL_FLAGS)
        for name in ("-t", "-thresh", "-threshold"):
            v = param(name, "a value (the threshold)")
            if v is not None:
                r.threshold = v
                r.threshold_set = True
                r.percent = None
                taken += 1
                break
        if _eq(argv[i], "-cost"):
            taken += 1
            r.flags.add("CST")
            r.cost = tuple(atof(take("-cost", "four costs (TP FN FP TN)")) for _ in range(4))  # type: ignore[assignment]
        for name in ("-slacq", "-slq"):
            v = param(name, "a value (bin width below 1, or a number of bins)")
            if v is not None:
                taken += 1
                r.flags.add("SLQ")
                _set_slq(r, name, v)
                break
        v = param("-cal", "a value (the CA2 window size)")
        if v is not None:
            taken += 1
            r.flags.add("CAL")
            size = c_int(math.floor(v)) if v == v else INT_MIN
            if size < 1:
                raise InvalidParameterError(
                    f"option -cal needs a window of at least 1 case, got {argv[i]!r}"
                    " (PERF reads outside its data there)")
            r.cal_window = size
        if _eq(argv[i], "-blocks"):
            taken += 1
            r.blocks = True
        if _eq(argv[i], "-file"):
            taken += 1
            if i + 1 >= n:
                raise ClassicExit("Error: Must specify file name after -file\n", "stderr", 1)
            path = argv[i + 1]
            if not _readable(path):
                raise ClassicExit(f"Error: Can't open input file {path}\n", "stderr", 1)
            r.infile, r.predfile = path, None
            i += 1
        if _eq(argv[i], "-files"):
            taken += 1
            if i + 2 >= n:
                raise ClassicExit("Error: Must specify two file names after -files\n", "stderr", 1)
            tpath, ppath = argv[i + 1], argv[i + 2]
            if not _readable(tpath):
                raise ClassicExit(f"Error: Can't open true values file {tpath}\n", "stderr", 1)
            if not _readable(ppath):
                raise ClassicExit(f"Error: Can't open predicted values file {ppath}\n", "stderr", 1)
            r.infile, r.predfile = tpath, ppath
            i += 2
        if _eq(argv[i], "-loss"):
            taken += 1
            r.loss = True
        if not taken:
            if argv[i] in ("-h", "--help", "-help"):
                raise HelpRequested("help")
            if argv[i] == "--version":
                raise HelpRequested("version")
            raise ClassicExit(f"\nError: Unrecognized program option {argv[i]}\n", "stdout", 1, usage=True)
        i += 1

    if not r.flags & set(MEASURE_FLAGS):
        r.stats_mode = True
        r.flags.update(ALL_FLAGS)
    if r.blocks and (not r.flags & set(BLOCK_FLAGS) or r.flags - set(BLOCK_FLAGS)):
        raise ClassicExit("\nError: -blocks only works with -APR, -RMS, -RKL, -TOP1 options.\n", "stderr", 255)
    return r


def _set_slq(r: ClassicRequest, name: str, v: float) -> None:
    if v != v:
        raise InvalidParameterError(f"option {name} needs a bin width or a number of bins, got NaN")
    if v < 0:
        raise ClassicExit("Error: Slacq bin width must be positive\n", "stderr", 1)
    if v == 0:
        raise InvalidParameterError(
            f"option {name} needs a bin width above 0 (or a whole number of bins), got 0")
    if v >= 1:
        # deviation: the KDD Cup FAQ's `perf -slq 100` means 100 equal bins
        if v != math.floor(v) or math.isinf(v):
            raise InvalidParameterError(
                f"option {name} {v:g}: a value of 1 or more is a number of bins and must be a whole number")
        if v > MAX_BINS:
            raise InvalidParameterError(f"option {name} {v:g}: at most {MAX_BINS} bins")
        r.slq_bins = int(v)
        r.slq_width = 1.0 / v
        return
    bins = math.floor(EPS + 1.0 / v)
    if bins > MAX_BINS:
        raise ClassicExit("Error: SLAC_Q bin width too small: %8.4f\n" % v, "stdout", 1)
    r.slq_width = v
    r.slq_bins = bins


def _readable(path: str) -> bool:
    try:
        with open(path, "rb"):
            return True
    except OSError:
        return False
