"""PERF 5.12's numbers for arrays, unrounded: the ``perf`` dialect of the modern API
(``perfeval.evaluate(..., dialect="perf")``).

The arrays are handed to the classic engine exactly as ``perf`` would have read them (float32
targets and predictions, in input order) with the command line the measures stand for; the engine
runs as it does for the command and each measure's value is taken where it would be printed, before
rounding.  So the values are the classic command's, digit for digit once printed.
"""

from __future__ import annotations

from perfeval.classic.engine import Classic, Out
from perfeval.classic.options import ClassicExit, parse_options
from perfeval.classic.reader import Cases
from perfeval.exceptions import InvalidDataError, InvalidParameterError


def values(
    targets: bytes, preds: bytes, argv: list[str], any_tie_order: bool = False
) -> tuple[dict[str, float], list[str]]:
    """Each measure PERF prints for ``argv`` (its options, without input files) on float32 columns
    ``targets`` and ``preds`` (native byte order), by PERF's label; and what it wrote on stderr.
    ``any_tie_order``: sort by a radix sort, not PERF's quicksort: right only for the measures that do
    not read the order it leaves inside ties (see perfeval.dialects.perf).
    """
    if len(targets) != len(preds) or not len(preds):
        raise InvalidParameterError("the perf dialect needs equally long, non-empty targets and scores")
    warnings: list[str] = []
    io = Out(err=warnings.append)
    try:
        req = parse_options(argv)
        job = Classic(req, io)
        job.any_tie_order = any_tie_order
        job.values_only = True
        job.run_normal(Cases(bytearray(targets), bytearray(preds), None))
    except ClassicExit as e:
        raise InvalidDataError("perf dialect: " + e.text.strip()) from None
    return job.values, warnings
