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


def choices(*kinds: str) -> list[str]:
    """One spec for each other choice of each parameter with choices, of the measures of these kinds.

    A choice that its measure refuses alone (``ECE:debiased=yes`` needs ``norm=l2``: a check across
    parameters) is given with the first choice of another parameter that makes it valid; a choice
    valid with none of them is an error here, so that it cannot drop out of the properties unseen.
    """
    from perfeval.exceptions import InvalidParameterError
    from perfeval.measures import parse_measure

    def valid(spec: str) -> bool:
        try:
            parse_measure(spec)
        except InvalidParameterError:
            return False
        return True

    out = []
    for m in list_measures():
        if m.kind not in kinds:
            continue
        for p in m.params:
            for c in p.choices:
                if c == p.default:
                    continue
                spec = f"{m.name}:{p.name}={c}"
                if not valid(spec):
                    other = [
                        f"{spec},{q.name}={d}"
                        for q in m.params
                        if q is not p
                        for d in q.choices
                        if d != q.default
                    ]
                    found = [o for o in other if valid(o)]
                    if not found:
                        raise AssertionError(f"{spec}: refused alone and with every other choice")
                    spec = found[0]
                out.append(spec)
    return out


def every(*kinds: str) -> list[str]:
    """:func:`names` and :func:`choices`."""
    return names(*kinds) + choices(*kinds)
