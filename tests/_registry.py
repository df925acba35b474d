"""The registry's measures as the registry-wide tests name them: every measure by its name, and
every parameter with choices at each of its other choices (``TPR_AT_FPR:of=threshold``,
``PAUC:focus=tpr``, ``NDCG:gain=linear``), so that a new measure, and a new choice of one, is in
every property the day it is registered.
"""

from __future__ import annotations

from perfeval.measures import list_measures


def names(*kinds: str) -> list[str]:
    """The measures of these kinds, by name (their parameters at their defaults)."""
    return [m.name for m in list_measures() if m.kind in kinds]


def _valid(spec: str) -> bool:
    from perfeval.exceptions import InvalidParameterError
    from perfeval.measures import parse_measure

    try:
        parse_measure(spec)
    except InvalidParameterError:
        return False
    return True


def completed(m, p, spec: str) -> str:
    """``spec`` (measure ``m`` with parameter ``p`` set), or, when its measure refuses it alone (a check
    across parameters: ``ECE:debiased=yes`` needs ``norm=l2``), with the first choice of another
    parameter that makes it valid; an error when none does, so that it cannot drop out unseen.
    """
    if _valid(spec):
        return spec
    for q in m.params:
        for d in q.choices if q is not p else ():
            if d != q.default and _valid(f"{spec},{q.name}={d}"):
                return f"{spec},{q.name}={d}"
    raise AssertionError(f"{spec}: refused alone and with every other choice")


def choices(*kinds: str) -> list[str]:
    """One spec for each other choice of each parameter with choices, of the measures of these kinds
    (:func:`completed`: with another choice where the measure needs it).
    """
    return [
        completed(m, p, f"{m.name}:{p.name}={c}")
        for m in list_measures()
        if m.kind in kinds
        for p in m.params
        for c in p.choices
        if c != p.default
    ]


def every(*kinds: str) -> list[str]:
    """:func:`names` and :func:`choices`."""
    return names(*kinds) + choices(*kinds)


def fractional_ok_classes(labels: list[str]) -> list[str]:
    """Of ``labels`` (measures of K classes), those that take fractional weights; each other one must
    refuse them in one line saying it needs whole-number weights (``ECE_TOP:debiased=yes,norm=l2``:
    a bin's n - 1 counts cases), as the binary properties' ``fractional_ok`` keeps APR and CA2 to
    whole weights: the properties then run every measure on the weights it takes, never a NaN.
    """
    import numpy as np

    import perfeval

    y, s = [0, 1, 2], np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])
    out = []
    for lab in labels:
        try:
            perfeval.evaluate(y, s, classes=[0, 1, 2], sample_weight=[0.5, 1.5, 1.0], measures=[lab])
            out.append(lab)
        except perfeval.InvalidParameterError as e:
            assert "whole-number weights" in str(e), (lab, e)
    return out
