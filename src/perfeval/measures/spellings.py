"""Measure names as other tools write them, each meaning that tool's definition.

trec_eval writes ``ndcg_cut_10``, ``P_5``, ``recall_100``, ``recip_rank``, ``map_cut_10``,
``success_10``; ir_measures writes ``nDCG@10``, ``AP``, ``RR``, ``R@100``, ``Judged@10``; ranx writes
``precision@5``, ``r-precision``, ``ndcg_burges@10``.  Each spelling maps onto a registry measure
with that tool's parameters: trec_eval's and ir_measures' nDCG use the linear gain (the relevance
itself), so ``ndcg_cut_10`` is ``NDCG@10:gain=linear`` while perfeval's own ``ndcg@10`` keeps the
exponential gain.  A spelling is matched exactly (case included): ``nDCG@10`` is ir_measures',
``ndcg@10`` perfeval's.

Three spellings are both a tool's and perfeval's own: ``ndcg`` (trec_eval: linear gain; perfeval:
exponential), ``map`` (the same measure) and ``AP`` (ir_measures: the mean over queries of average
precision; perfeval: the average precision of one binary problem).  They mean perfeval's own,
except where the inputs are a tool's: :mod:`perfeval.trec` and ``perfeval trec`` read names as trec_eval does
(``trec=True``).  The table, with what each name means, is in docs/ranking.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from perfeval.exceptions import InvalidParameterError

#: (tool, spelling pattern, registry measure, parameters fixed by the spelling); ``{k}`` is the cut-off
_TABLE: tuple[tuple[str, str, str, tuple[tuple[str, str], ...]], ...] = (
    # trec_eval (its -m names, with the cut-off after "_" as it prints them, or "." as -m takes it)
    ("trec_eval", r"map", "MAP", ()),
    ("trec_eval", r"map_cut[_.](?P<k>\d+)", "MAP", ()),
    ("trec_eval", r"ndcg", "NDCG", (("gain", "linear"),)),
    ("trec_eval", r"ndcg_cut[_.](?P<k>\d+)", "NDCG", (("gain", "linear"),)),
    ("trec_eval", r"P[_.](?P<k>\d+)", "P", ()),
    ("trec_eval", r"recall[_.](?P<k>\d+)", "R", ()),
    ("trec_eval", r"recip_rank", "MRR", ()),
    ("trec_eval", r"Rprec", "RPREC", ()),
    ("trec_eval", r"bpref", "BPREF", ()),
    ("trec_eval", r"success[_.](?P<k>\d+)", "SUCCESS", ()),
    ("trec_eval", r"set_P", "P", (("k", "0"),)),
    ("trec_eval", r"set_recall", "R", (("k", "0"),)),
    ("trec_eval", r"set_F", "F", ()),
    # ir_measures
    ("ir_measures", r"AP", "MAP", ()),
    ("ir_measures", r"AP@(?P<k>\d+)", "MAP", ()),
    ("ir_measures", r"nDCG", "NDCG", (("gain", "linear"),)),
    ("ir_measures", r"nDCG@(?P<k>\d+)", "NDCG", (("gain", "linear"),)),
    ("ir_measures", r"P@(?P<k>\d+)", "P", ()),
    ("ir_measures", r"R@(?P<k>\d+)", "R", ()),
    ("ir_measures", r"RR", "MRR", ()),
    ("ir_measures", r"Rprec", "RPREC", ()),
    ("ir_measures", r"Bpref", "BPREF", ()),
    ("ir_measures", r"Success@(?P<k>\d+)", "SUCCESS", ()),
    ("ir_measures", r"Judged@(?P<k>\d+)", "JUDGED", ()),
    ("ir_measures", r"SetP", "P", (("k", "0"),)),
    ("ir_measures", r"SetR", "R", (("k", "0"),)),
    ("ir_measures", r"SetF", "F", ()),
    # ranx (its ndcg@k is linear too, but that spelling is perfeval's own: see the module's text)
    ("ranx", r"precision@(?P<k>\d+)", "P", ()),
    ("ranx", r"recall@(?P<k>\d+)", "R", ()),
    ("ranx", r"r-precision", "RPREC", ()),
    ("ranx", r"hit_rate@(?P<k>\d+)", "SUCCESS", ()),
    ("ranx", r"ndcg_burges@(?P<k>\d+)", "NDCG", (("gain", "exp"),)),
    ("ranx", r"ndcg_burges", "NDCG", (("gain", "exp"),)),
)
#: spellings that are also perfeval's own names: perfeval's meaning unless ``trec=True``
_SHARED = frozenset({"ndcg", "map", "AP"})
_COMPILED = tuple((tool, re.compile(pat), name, fixed) for tool, pat, name, fixed in _TABLE)
#: trec_eval's set_F.x and ir_measures' SetF(beta=x) weigh with x = beta^2: refused, the beta named
_WEIGHTED_F = re.compile(r"set_F[_.](?P<te>.+)|SetF\(.*\bbeta=(?P<im>[^,)]+).*\)")


@dataclass(frozen=True)
class Spelling:
    """A tool's spelling of a measure: the tool, the registry measure, and its parameter values."""

    tool: str
    measure: str
    params: tuple[tuple[str, str], ...]

    @property
    def text(self) -> str:
        """The registry spec it means (``ndcg@10:gain=linear``)."""
        kw = dict(self.params)
        k = kw.pop("k", None)
        out = self.measure.lower() + (f"@{k}" if k is not None else "")
        if kw:
            out += ":" + ",".join(f"{a}={b}" for a, b in kw.items())
        return out


def tool_spelling(text: str, *, trec: bool = False) -> Spelling | None:
    """The tool spelling ``text`` is, or None.

    Examples
    --------
    >>> tool_spelling("ndcg_cut_10").text
    'ndcg@10:gain=linear'
    >>> tool_spelling("nDCG@10").tool, tool_spelling("P_5").text
    ('ir_measures', 'p@5')
    >>> tool_spelling("ndcg") is None, tool_spelling("ndcg", trec=True).text
    (True, 'ndcg:gain=linear')
    """
    t = text.strip()
    if t in _SHARED and not trec:
        return None
    # NDCG would be perfeval's, ndcg trec_eval's; nDCG is ir_measures' (linear, as trec_eval's)
    if trec and t.lower() == "ndcg" and t not in ("ndcg", "nDCG"):
        raise InvalidParameterError(
            f"{t!r} is ambiguous here: write ndcg for trec_eval's (linear gain) or ndcg:gain=exp for "
            "perfeval's (2^rel - 1)"
        )
    weighted = _WEIGHTED_F.fullmatch(t)
    if weighted:
        _refuse_weighted_f(t, weighted.group("te") or weighted.group("im"))
    for tool, pat, name, fixed in _COMPILED:
        m = pat.fullmatch(t)
        if m:
            params = (("k", m.group("k")),) if "k" in pat.groupindex else ()
            if params and int(params[0][1]) == 0:
                raise InvalidParameterError(f"{t!r}: {tool}'s cut-offs are positive (no cut-off: drop it)")
            return Spelling(tool, name, params + fixed)
    return None


def _refuse_weighted_f(text: str, x: str | None) -> None:
    """trec_eval's ``set_F.x`` (and ir_measures' ``SetF(beta=x)``, which passes x to it) computes
    (x + 1) P R / (x P + R): its x is beta^2, so it is not perfeval's ``f:beta=x``.
    """
    try:
        beta = f"f:beta={math.sqrt(float(x))!r}" if x is not None and float(x) >= 0 else "f:beta=..."
    except ValueError:
        beta = "f:beta=..."
    raise InvalidParameterError(
        f"{text!r}: trec_eval's set_F.x (and ir_measures' SetF(beta=x)) weighs with x = beta^2, "
        f"(x + 1) P R / (x P + R); write {beta} (or set_F, SetF for beta = 1)"
    )


def table() -> list[tuple[str, str, str]]:
    """(tool, spelling, meaning) of every tool spelling, for the docs: ``{k}`` stands for a cut-off."""
    out = []
    for tool, pat, name, fixed in _TABLE:
        spelled = re.sub(r"\(\?P<k>\\d\+\)", "{k}", pat).replace("[_.]", "_").replace("\\", "")
        meaning = Spelling(tool, name, ((("k", "{k}"),) if "{k}" in spelled else ()) + fixed).text
        out.append((tool, spelled, meaning))
    return out
