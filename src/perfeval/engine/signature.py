"""The Signature of a result: everything that changes a number, in one line (as sacrebleu's).

Two numbers are comparable when their signatures are equal.  A signature names the version, the tie
policy, the threshold of the threshold measures, the gain of the DCG family, whether cases were
weighted, which labels were positive, the backend that summarised the data, and for intervals the
method, replicates, seed and level; of K classes (or labels) the task and the classes, in order::

    perfeval:0.1.0|ties:perfeval|thr:0.5|gain:exp|weights:no|backend:memory|ci:bca,n=1000,seed=0,level=0.95
    perfeval:0.1.0|ties:perfeval|multiclass:cat,dog,bird|weights:no|backend:memory

It is printed under every table of the ``perfeval`` command and stored in the JSON output
(``"signature"``) and the HTML report.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any

from perfeval._version import __version__
from perfeval.measures import get_measure

#: measures whose value depends on the threshold / on the gain
_THRESHOLD_PARAM = "threshold"
_GAIN_FAMILY = ("NDCG", "DCG", "CG")
#: the longest list of classes a signature writes out; a longer one is its count and a digest
_CLASSES_SHOWN = 60


@dataclass(frozen=True)
class Signature:
    """What a result's numbers depend on, beyond the data.

    Attributes
    ----------
    version : str
        perfeval's version.
    ties : str
        The tie policy (``"perfeval"``: half credit for ROC and GAUC, the expectation over tie orders
        for APR, NDCG, P@k and MRR, one threshold per tie for AP and MAP).
    threshold : float or None
        The threshold of the threshold measures (None: no such measure).
    gain : str or None
        The gain of NDCG/DCG/CG (``"exp"``: 2^rel - 1; None: no such measure).
    weights : bool
        Whether cases carried weights.
    positive : str or None
        The positive label (``pos_label``) or the partitions, when the targets were recoded.
    backend : str
        ``"memory"``, ``"stream"``, ``"dask"`` or ``"metric"`` (:class:`perfeval.Metric`).
    ci : str or None
        ``method,n=replicates,seed=S,level=L`` of the intervals (None: none).
    task : str or None
        The competition task whose criteria were scored (``perfeval score``; None otherwise).
    level : float or None
        With judgments and runs (:mod:`perfeval.trec`), the relevance from which a document is
        relevant to the binary measures (None: relevance > 0).
    queries : str or None
        With judgments and runs, which queries were evaluated (``qrels``: every judged query, the
        unanswered ones 0; ``run``: the judged queries the run answers).
    classes : str or None
        Of K classes or labels, the task and the classes in their order (``multiclass:cat,dog,bird``,
        ``multilabel:a,b,c``; a long list: ``multiclass:100 classes,sha1=...``; :func:`classes_text`);
        None for binary cases (and ranking).
    """

    version: str = __version__
    ties: str = "perfeval"
    threshold: float | None = None
    gain: str | None = None
    weights: bool = False
    positive: str | None = None
    backend: str = "memory"
    ci: str | None = None
    task: str | None = None
    level: float | None = None
    queries: str | None = None
    classes: str | None = None

    def __str__(self) -> str:
        parts = [f"perfeval:{self.version}", f"ties:{self.ties}"]
        if self.threshold is not None:
            parts.append(f"thr:{self.threshold:g}")
        if self.gain is not None:
            parts.append(f"gain:{self.gain}")
        if self.level is not None:
            parts.append(f"rel:>={self.level:g}")
        if self.queries is not None:
            parts.append(f"queries:{self.queries}")
        if self.classes is not None:
            parts.append(self.classes)
        parts.append(f"weights:{'yes' if self.weights else 'no'}")
        if self.positive is not None:
            parts.append(f"pos:{self.positive}")
        parts.append(f"backend:{self.backend}")
        if self.ci is not None:
            parts.append(f"ci:{self.ci}")
        if self.task is not None:
            parts.append(f"task:{self.task}")
        return "|".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"text": str(self), **asdict(self)}


def of_report(report: Any) -> Signature:
    """The signature of a :class:`~perfeval.engine.report.Report` (from its parameters, measures and
    intervals).
    """
    params = report.params
    labels = list(report.results)
    base = [lab.split("[")[0].split("@")[0].split(":")[0] for lab in labels]
    # a measure with its own threshold says it in its label (ACC:threshold=0.3); this is the default's
    threshold = params.get("threshold") if _uses_threshold(base) else None
    positive = None
    if params.get("pos_label") is not None:
        positive = repr(params["pos_label"])
    elif params.get("partitions"):
        positive = "partitions"
    ci = None
    if report.intervals:
        iv = next(iter(report.intervals.values()))
        ci = ci_text(iv.method, iv.n_boot, getattr(iv, "seed", None), iv.level)
    return Signature(
        ties=str(params.get("tie_rule", "perfeval")),
        threshold=threshold,
        gain=params.get("gain") or _gains(labels, base),  # a dialect's engine labels say its gain
        weights=bool(params.get("weighted")),
        positive=positive,
        backend=str(params.get("backend", "memory")),
        ci=ci,
        level=params.get("level"),
        queries=params.get("queries"),
        classes=classes_text(params.get("task"), params.get("classes")),
    )


def classes_text(task: str | None, classes: Any) -> str | None:
    """The task and the classes of a report of K classes (or labels), as its signature writes them:
    ``multiclass:cat,dog,bird`` (the classes in their order: the columns of the scores); more than
    :data:`_CLASSES_SHOWN` characters of them, or a name holding ``,`` or ``|``, is their count and the
    first 12 hex digits of the SHA-1 of their ``repr`` (``multiclass:100 classes,sha1=...``).  None
    for binary cases; ``regression`` for a regression target.
    """
    if task == "regression":  # a real target and a prediction a row
        return "regression"
    if task not in ("multiclass", "multilabel") or classes is None:
        return None
    names = [str(c) for c in classes]
    text = ",".join(names)
    if len(text) > _CLASSES_SHOWN or any("," in n or "|" in n for n in names):
        digest = hashlib.sha1(repr([c for c in classes]).encode()).hexdigest()[:12]
        word = "classes" if task == "multiclass" else "labels"
        text = f"{len(names)} {word},sha1={digest}"
    return f"{task}:{text}"


def gains(labels: list[str]) -> str | None:
    """``exp``, ``linear`` or ``exp,linear``: the gains of the DCG family among measure labels."""
    return _gains(labels, [lab.split("[")[0].split("@")[0].split(":")[0] for lab in labels])


def _gains(labels: list[str], base: list[str]) -> str | None:
    """``exp``, ``linear`` or ``exp,linear``: the gains of the DCG family among the labels."""
    used = {
        "linear" if "gain=linear" in lab else "exp"
        for lab, b in zip(labels, base, strict=True)
        if b in _GAIN_FAMILY
    }
    return ",".join(sorted(used)) or None


def ci_text(method: str, n_boot: int, seed: int | None, level: float) -> str:
    """The ``ci`` part of a signature: ``bca,n=1000,seed=0,level=0.95``; DeLong's, Student's t and
    Wald's intervals are analytic, so ``delong,level=0.95``, ``t,level=0.95``, ``wald,level=0.95``.
    """
    if method in ("delong", "t", "wald"):
        return f"{method},level={level:g}"
    return f"{method},n={n_boot}" + (f",seed={seed}" if seed is not None else "") + f",level={level:g}"


def ci_text_of(results: list[Any], seed: int | None, level: float) -> str:
    """The ``ci`` part of a signature for comparisons (or intervals) that may come from several
    methods: :func:`ci_text` when one method gave them all, else each method's measures named
    before it, ``delong(ROC)+bca(LOGLOSS),n=1000,seed=0,level=0.95``.
    """
    by: dict[str, list[str]] = {}
    n_boot = 0
    for r in results:
        by.setdefault(r.method, [])
        if r.label not in by[r.method]:
            by[r.method].append(r.label)
        if r.method not in ("delong", "t", "wald"):
            n_boot = r.n_boot
    if len(by) <= 1:
        method = next(iter(by), "bca")
        return ci_text(method, n_boot, None if method in ("delong", "t", "wald") else seed, level)
    named = "+".join(f"{m}({'/'.join(labels)})" for m, labels in by.items())
    return f"{named},n={n_boot}" + (f",seed={seed}" if seed is not None else "") + f",level={level:g}"


def of_specs(specs: list[Any], threshold: float, **fields: Any) -> Signature:
    """The signature of measure specs evaluated at ``threshold``; ``fields`` sets the others
    (``weights``, ``positive``, ``backend``, ``ci``).
    """
    base = [s.measure.name for s in specs]
    return Signature(
        threshold=threshold if _uses_threshold(base) else None,
        gain=_gains([s.label for s in specs], base),
        **fields,
    )


def _uses_threshold(names: list[str]) -> bool:
    for n in names:
        try:
            m = get_measure(n)
        except Exception:  # a label that is not a measure name: no claim about it
            continue
        if any(p.name == _THRESHOLD_PARAM for p in m.params):
            return True
    return False
