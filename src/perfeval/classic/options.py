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

from perfeval.base.nicknames import ALL, EASY, STATS, classic_flags
from perfeval.exceptions import InvalidParameterError

EPS = 1e-10
MAX_BINS = 1000
INT_MIN = -2147483648

# The simple measure flags, in the original's recogniser order, with the internal flag they set.
# (The option names themselves are also the `perf_options` of the registry entries; a test checks
# that the two agree.)
FLAG_OPTIONS: tuple[tuple[str, str], ...] = (
    ("-acc", "ACC"),
    ("-rms", "RMS"),
    ("-sen", "SEN"),
    ("-spc", "SPC"),
    ("-npv", "NPV"),
    ("-ppv", "PPV"),
    ("-roc", "ROC"),
    ("-auc", "ROC"),
    ("-r50", "R50"),
    ("-pre", "PRE"),
    ("-rec", "REC"),
    ("-prf", "PRF"),
    ("-prb", "PRB"),
    ("-apr", "APR"),
    ("-cxe", "CXE"),
    ("-rkl", "RKL"),
    ("-lft", "LFT"),
    ("-top1", "TOP1"),
    ("-top10", "TOP10"),
)
BREAK_PREFIXES = ("-break", "-pr_break", "-prbreak")

#: every internal flag that counts as "a measure was selected" (SPEC 3.3)
MEASURE_FLAGS = (
    "ACC",
    "APR",
    "CAL",
    "CST",
    "CXE",
    "TOP1",
    "TOP10",
    "SAR",
    "LFT",
    "NPV",
    "NRM",
    "PPV",
    "PRB",
    "PRF",
    "PRE",
    "NTOP",
    "RKL",
    "REC",
    "RMS",
    "ROC",
    "R50",
    "SEN",
    "SLQ",
    "SPC",
)
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

    Each argument is offered to every option handler in PERF's order (:data:`_HANDLERS`); a handler
    that takes a value moves the scan on, and the handlers after it then see the value, as in the
    original.

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
    sc = _Scan(argv)
    while sc.i < sc.n:
        taken = sum(handler(sc) for handler in _HANDLERS)
        if not taken:
            arg = argv[sc.i]
            if arg in ("-h", "--help", "-help"):
                raise HelpRequested("help")
            if arg == "--version":
                raise HelpRequested("version")
            raise ClassicExit(f"\nError: Unrecognized program option {arg}\n", "stdout", 1, usage=True)
        sc.i += 1
    r = sc.r
    if not r.flags & set(MEASURE_FLAGS):
        r.stats_mode = True
        r.flags.update(ALL_FLAGS)
    if r.blocks and (not r.flags & set(BLOCK_FLAGS) or r.flags - set(BLOCK_FLAGS)):
        raise ClassicExit(
            "\nError: -blocks only works with -APR, -RMS, -RKL, -TOP1 options.\n", "stderr", 255
        )
    return r


class _Scan:
    """The scan's state: the arguments, the position ``i`` (PERF's ``arg``) and the request."""

    def __init__(self, argv: list[str]):
        self.argv, self.n, self.i, self.r = argv, len(argv), 0, ClassicRequest()

    @property
    def arg(self) -> str:
        return self.argv[self.i]

    def is_(self, option: str) -> bool:
        return _eq(self.argv[self.i], option)

    def value(self, opt: str, what: str, k: int = 1) -> str:
        if self.i + k >= self.n:
            raise InvalidParameterError(f"option {opt} needs {what}, but the command line ends after it")
        return self.argv[self.i + k]

    def take(self, opt: str, what: str) -> str:
        """Move to the next argument and return it (PERF's `arg++; atof(argv[arg])`)."""
        if self.i + 1 >= self.n:
            raise InvalidParameterError(f"option {opt} needs {what}, but the command line ends before")
        self.i += 1
        return self.argv[self.i]

    def param(self, wanted: str, what: str) -> float | None:
        """PERF's accept_parameter: on a match, consume and return the next argument's value."""
        if not self.is_(wanted):
            return None
        v = atof(self.value(self.arg, what))
        self.i += 1
        return v


# -- the option handlers, in PERF's order; each returns how many options it took at this argument ----
def _flags(sc: _Scan) -> int:
    taken = 0
    for opt, flag in FLAG_OPTIONS:
        if sc.is_(opt):
            sc.r.flags.add(flag)
            taken += 1
    return taken


def _ntop(sc: _Scan) -> int:
    v = sc.param("-ntop", "a value (how many top cases)")
    if v is None:
        return 0
    sc.r.flags.add("NTOP")
    sc.r.ntop = v
    return 1


def _nrm(sc: _Scan) -> int:
    taken = 0
    for name in ("-nrm", "-norm"):
        v = sc.param(name, "a value (the exponent P)")
        if v is not None:
            sc.r.flags.add("NRM")
            sc.r.nrm = v
            taken += 1
    return taken


def _percent(sc: _Scan) -> int:
    v = sc.param("-percent", "a value (percent of the data to call positive)")
    if v is None:
        return 0
    sc.r.percent = v
    sc.r.threshold_set = False
    if v != v:
        raise InvalidParameterError("option -percent needs a number between 0 and 100, got NaN")
    if v < 0 or v > 100:
        raise ClassicExit("Error: The argument for -percent must be between 0 and 100.\n", "stderr", 1)
    return 1


def _break(sc: _Scan) -> int:
    taken = 0
    for prefix in BREAK_PREFIXES:
        if os.fsencode(sc.arg).lower().startswith(prefix.encode()):
            sc.r.flags.add("PRB")
            taken += 1
    return taken


def _plot(sc: _Scan) -> int:
    if not sc.is_("-plot"):
        return 0
    kind = sc.value(sc.arg, "a plot type (roc, pr, lift, cost or acc)")
    sc.i += 1
    chosen = _PLOT_LETTERS.get(kind[:1].lower()) if kind else None
    if chosen:
        sc.r.plot = chosen
    return 1


def _easy(sc: _Scan) -> int:
    if not sc.is_("-easy"):
        return 0
    sc.r.flags.update(EASY_FLAGS)
    return 1


def _confusion(sc: _Scan) -> int:
    taken = 0
    for name in ("-conf", "-confusion", "-table"):
        if sc.is_(name):
            sc.r.confusion = True
            taken += 1
    return taken


def _sar(sc: _Scan) -> int:
    if not sc.is_("-sar"):
        return 0
    sc.r.flags.add("SAR")
    w = [atof(sc.take("-sar", "three weights (wacc wroc wrms)")) for _ in range(3)]
    sc.r.sar = (w[0], w[1], w[2])
    return 1


def _stats(sc: _Scan) -> int:
    if not sc.is_("-stats"):
        return 0
    sc.r.stats_mode = True
    sc.r.flags.update(STATS_FLAGS)
    return 1


def _all(sc: _Scan) -> int:
    if not sc.is_("-all"):
        return 0
    sc.r.stats_mode = True
    sc.r.flags.update(ALL_FLAGS)
    return 1


def _threshold(sc: _Scan) -> int:
    for name in ("-t", "-thresh", "-threshold"):
        v = sc.param(name, "a value (the threshold)")
        if v is not None:
            sc.r.threshold = v
            sc.r.threshold_set = True
            sc.r.percent = None
            return 1
    return 0


def _cost(sc: _Scan) -> int:
    if not sc.is_("-cost"):
        return 0
    sc.r.flags.add("CST")
    c = [atof(sc.take("-cost", "four costs (TP FN FP TN)")) for _ in range(4)]
    sc.r.cost = (c[0], c[1], c[2], c[3])
    return 1


def _slq(sc: _Scan) -> int:
    for name in ("-slacq", "-slq"):
        v = sc.param(name, "a value (bin width below 1, or a number of bins)")
        if v is not None:
            sc.r.flags.add("SLQ")
            _set_slq(sc.r, name, v)
            return 1
    return 0


def _cal(sc: _Scan) -> int:
    v = sc.param("-cal", "a value (the CA2 window size)")
    if v is None:
        return 0
    sc.r.flags.add("CAL")
    size = c_int(math.floor(v)) if v == v else INT_MIN
    if size < 1:
        raise InvalidParameterError(
            f"option -cal needs a window of at least 1 case, got {sc.arg!r} (PERF reads outside its "
            "data there)"
        )
    sc.r.cal_window = size
    return 1


def _blocks(sc: _Scan) -> int:
    if not sc.is_("-blocks"):
        return 0
    sc.r.blocks = True
    return 1


def _file(sc: _Scan) -> int:
    if not sc.is_("-file"):
        return 0
    if sc.i + 1 >= sc.n:
        raise ClassicExit("Error: Must specify file name after -file\n", "stderr", 1)
    path = sc.argv[sc.i + 1]
    if not _readable(path):
        raise ClassicExit(f"Error: Can't open input file {path}\n", "stderr", 1)
    sc.r.infile, sc.r.predfile = path, None
    sc.i += 1
    return 1


def _files(sc: _Scan) -> int:
    if not sc.is_("-files"):
        return 0
    if sc.i + 2 >= sc.n:
        raise ClassicExit("Error: Must specify two file names after -files\n", "stderr", 1)
    tpath, ppath = sc.argv[sc.i + 1], sc.argv[sc.i + 2]
    if not _readable(tpath):
        raise ClassicExit(f"Error: Can't open true values file {tpath}\n", "stderr", 1)
    if not _readable(ppath):
        raise ClassicExit(f"Error: Can't open predicted values file {ppath}\n", "stderr", 1)
    sc.r.infile, sc.r.predfile = tpath, ppath
    sc.i += 2
    return 1


def _loss(sc: _Scan) -> int:
    if not sc.is_("-loss"):
        return 0
    sc.r.loss = True
    return 1


#: PERF 5.12's order of the option checks at one argument (SPEC 3)
_HANDLERS = (
    _flags,
    _ntop,
    _nrm,
    _percent,
    _break,
    _plot,
    _easy,
    _confusion,
    _sar,
    _stats,
    _all,
    _threshold,
    _cost,
    _slq,
    _cal,
    _blocks,
    _file,
    _files,
    _loss,
)


def _set_slq(r: ClassicRequest, name: str, v: float) -> None:
    if v != v:
        raise InvalidParameterError(f"option {name} needs a bin width or a number of bins, got NaN")
    if v < 0:
        raise ClassicExit("Error: Slacq bin width must be positive\n", "stderr", 1)
    if v == 0:
        raise InvalidParameterError(
            f"option {name} needs a bin width above 0 (or a whole number of bins), got 0"
        )
    if v >= 1:
        # deviation: the KDD Cup FAQ's `perf -slq 100` means 100 equal bins
        if v != math.floor(v) or math.isinf(v):
            raise InvalidParameterError(
                f"option {name} {v:g}: a value of 1 or more is a number of bins and must be a whole number"
            )
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
