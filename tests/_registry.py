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
    """One spec for each other choice of each parameter with choices, of the measures of these kinds."""
    return [
        f"{m.name}:{p.name}={c}"
        for m in list_measures()
        if m.kind in kinds
        for p in m.params
        if p.choices
        for c in p.choices
        if c != p.default
    ]


def every(*kinds: str) -> list[str]:
    """:func:`names` and :func:`choices`."""
    return names(*kinds) + choices(*kinds)
