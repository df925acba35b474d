"""scikit-learn's metric functions under scikit-learn's names, and perfeval's measures that
scikit-learn has no function for: one measure, arrays in, a float out.

Where scikit-learn has the function, this module has it under scikit-learn's name, signature and
conventions (``roc_auc_score``, ``precision_recall_curve``, ``accuracy_score`` on hard labels, ...:
docs/sklearn.md).  The rest are thin wrappers over the registry (the same code as
:func:`perfeval.evaluate`), with scikit-learn's argument names: ``y_true``, ``y_score``,
keyword-only options, ``sample_weight``: the rates at a threshold scikit-learn has no function for
(``fpr``, ``tnr``, ``fnr``, ``lift``, ``error_rate``), PERF's and the ranking measures (``rmse``,
``slq``, ``perf_average_precision``, ``ndcg`` on rows with ``groups=``, ``mean_average_precision``,
``mrr``, ``group_auc``, ...), ``scorer`` and the KDD Cup helpers.  perfeval's earlier one-liners for
what scikit-learn's names now give (``roc_auc``, ``pr_curve``, ``average_precision``,
``brier_score``, and ``accuracy``, ``precision``, ``recall``, ``tpr``, ``f_beta`` on scores and a
threshold) are deprecated: each says what to call instead and is removed in perfeval 0.2.0.

Examples
--------
>>> roc_auc_score([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1])
0.875
>>> ndcg([3, 2, 0, 1], [0.9, 0.8, 0.7, 0.1], k=3) > 0.9
True
>>> confusion_matrix([1, 0, 1, 0], [0.9, 0.6, 0.4, 0.1], threshold=0.5).tolist()
[[1, 1], [1, 1]]

scikit-learn's names take scikit-learn's arguments and return its conventions (the curves in its
point order, ``pos_label``, ``zero_division``, hard labels for the threshold scores), computed by
perfeval's engine; ``roc_curve``, ``confusion_matrix`` and ``log_loss`` are those (docs/sklearn.md):

>>> roc_auc_score(["no", "yes", "yes", "no"], [0.2, 0.9, 0.5, 0.5])
0.875
>>> f1_score(["no", "yes", "yes"], ["yes", "yes", "no"], pos_label="yes")
0.5
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from perfeval.api.evaluation import evaluate
from perfeval.base.checks import to_numpy
from perfeval.base.deprecation import renamed
from perfeval.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    MissingDependencyError,
    UndefinedMeasureWarning,
)
from perfeval.functional.fairlearn_names import (
    demographic_parity_difference,
    demographic_parity_ratio,
    equal_opportunity_difference,
    equal_opportunity_ratio,
    equalized_odds_difference,
    equalized_odds_ratio,
    false_negative_rate,
    false_positive_rate,
    selection_rate,
    true_negative_rate,
    true_positive_rate,
)
from perfeval.functional.sklearn_labels import (
    accuracy_score,
    balanced_accuracy_score,
    classification_report,
    cohen_kappa_score,
    confusion_matrix,
    f1_score,
    fbeta_score,
    hamming_loss,
    jaccard_score,
    matthews_corrcoef,
    multilabel_confusion_matrix,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
)
from perfeval.functional.sklearn_multilabel import (
    coverage_error,
    label_ranking_average_precision_score,
    label_ranking_loss,
)
from perfeval.functional.sklearn_names import (
    average_precision_score,
    brier_score_loss,
    calibration_curve,
    dcg_score,
    det_curve,
    log_loss,
    ndcg_score,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
    top_k_accuracy_score,
)
from perfeval.functional.sklearn_regression import (
    d2_absolute_error_score,
    d2_pinball_score,
    d2_tweedie_score,
    explained_variance_score,
    max_error,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_gamma_deviance,
    mean_pinball_loss,
    mean_poisson_deviance,
    mean_squared_error,
    mean_squared_log_error,
    mean_tweedie_deviance,
    median_absolute_error,
    r2_score,
    root_mean_squared_error,
    root_mean_squared_log_error,
)
from perfeval.measures import parse_measure
from perfeval.summaries import ScoreHistogram

# scikit-learn is optional: imported by make_scorer only.

__all__ = [
    "error_rate",
    "fpr",
    "tnr",
    "fnr",
    "lift",
    "confusion_matrix",
    "roc_curve",
    "perf_average_precision",
    "log_loss",
    "rmse",
    "slq",
    "ndcg",
    "dcg",
    "cg",
    "mean_average_precision",
    "precision_at_k",
    "recall_at_k",
    "mrr",
    "group_auc",
    "scorer",
    "scores_from_ranking",
    "kddcup2002_task2",
    # scikit-learn's names, signatures and conventions (sklearn_names, sklearn_labels; docs/sklearn.md)
    "roc_auc_score",
    "average_precision_score",
    "precision_recall_curve",
    "det_curve",
    "brier_score_loss",
    "ndcg_score",
    "dcg_score",
    "accuracy_score",
    "precision_score",
    "recall_score",
    "f1_score",
    "fbeta_score",
    "matthews_corrcoef",
    "balanced_accuracy_score",
    "top_k_accuracy_score",
    "calibration_curve",
    # scikit-learn's multilabel ranking names (perfeval.functional.sklearn_multilabel)
    "label_ranking_average_precision_score",
    "coverage_error",
    "label_ranking_loss",
    # scikit-learn's names of hard predictions, binary, multiclass, multilabel (functional.sklearn_labels)
    "precision_recall_fscore_support",
    "cohen_kappa_score",
    "multilabel_confusion_matrix",
    "hamming_loss",
    "jaccard_score",
    "classification_report",
    # scikit-learn's regression names (perfeval.functional.sklearn_regression)
    "mean_absolute_error",
    "mean_squared_error",
    "root_mean_squared_error",
    "r2_score",
    "explained_variance_score",
    "mean_absolute_percentage_error",
    "median_absolute_error",
    "mean_pinball_loss",
    "mean_poisson_deviance",
    "mean_gamma_deviance",
    "mean_tweedie_deviance",
    "d2_absolute_error_score",
    "d2_pinball_score",
    "d2_tweedie_score",
    # fairlearn's names of fairness metrics, over slices (perfeval.functional.fairlearn_names; docs/slices.md)
    "selection_rate",
    "true_positive_rate",
    "true_negative_rate",
    "false_positive_rate",
    "false_negative_rate",
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "equal_opportunity_difference",
    "equal_opportunity_ratio",
    "max_error",
    "mean_squared_log_error",
    "root_mean_squared_log_error",
]

#: the deprecated one-liners (still here until perfeval 0.2.0, each warning with what to call instead)
DEPRECATED = (
    "accuracy",
    "precision",
    "recall",
    "tpr",
    "f_beta",
    "roc_auc",
    "pr_curve",
    "average_precision",
    "brier_score",
)


def _binary(name: str, y_true: Any, y_score: Any, sample_weight: Any = None, **params: Any) -> float:
    spec = parse_measure(name)
    h = ScoreHistogram.from_arrays(to_numpy(y_true, "y_true"), to_numpy(y_score, "y_score"), sample_weight)
    return float(spec.measure(h, **{**spec.kwargs, **params}))


@renamed("accuracy_score(y_true, y_score >= threshold)")
def accuracy(y_true, y_score, *, threshold: float = 0.5, sample_weight=None) -> float:
    """Share of cases on the right side of the threshold (score >= threshold predicts 1)."""
    return _binary("acc", y_true, y_score, sample_weight, threshold=threshold)


def error_rate(y_true, y_score, *, threshold: float = 0.5, sample_weight=None) -> float:
    return _binary("err", y_true, y_score, sample_weight, threshold=threshold)


@renamed("precision_score(y_true, y_score >= threshold, zero_division=np.nan)")
def precision(y_true, y_score, *, threshold: float = 0.5, sample_weight=None) -> float:
    """Share of the cases predicted positive (score >= threshold) that are positive."""
    return _binary("pre", y_true, y_score, sample_weight, threshold=threshold)


@renamed("recall_score(y_true, y_score >= threshold, zero_division=np.nan)")
def recall(y_true, y_score, *, threshold: float = 0.5, sample_weight=None) -> float:
    """Share of the positive cases predicted positive (score >= threshold)."""
    return _binary("rec", y_true, y_score, sample_weight, threshold=threshold)


@renamed("recall_score(y_true, y_score >= threshold, zero_division=np.nan)")
def tpr(y_true, y_score, *, threshold: float = 0.5, sample_weight=None) -> float:
    """The true positive rate: recall."""
    return _binary("rec", y_true, y_score, sample_weight, threshold=threshold)


@renamed("fbeta_score(y_true, y_score >= threshold, beta=beta, zero_division=np.nan)")
def f_beta(y_true, y_score, *, beta: float = 1.0, threshold: float = 0.5, sample_weight=None) -> float:
    """The F-measure of precision and recall at the threshold, recall weighted ``beta`` times."""
    return _binary("fbeta", y_true, y_score, sample_weight, beta=beta, threshold=threshold)


def fpr(y_true, y_score, *, threshold: float = 0.5, sample_weight=None) -> float:
    return _binary("fpr", y_true, y_score, sample_weight, threshold=threshold)


def tnr(y_true, y_score, *, threshold: float = 0.5, sample_weight=None) -> float:
    return _binary("spc", y_true, y_score, sample_weight, threshold=threshold)


def fnr(y_true, y_score, *, threshold: float = 0.5, sample_weight=None) -> float:
    return _binary("fnr", y_true, y_score, sample_weight, threshold=threshold)


def lift(y_true, y_score, *, threshold: float = 0.5, sample_weight=None) -> float:
    return _binary("lft", y_true, y_score, sample_weight, threshold=threshold)


@renamed("roc_auc_score(y_true, y_score)")
def roc_auc(y_true, y_score, *, sample_weight=None) -> float:
    """Area under the ROC curve; a tied positive/negative pair counts one half."""
    return _binary("roc", y_true, y_score, sample_weight)


@renamed(
    "precision_recall_curve(y_true, y_score)",
    note="in scikit-learn's order: the thresholds ascending, then the point of recall 0 and precision 1; "
    "without a positive case a recall of 1 with a warning, as scikit-learn, where this gave NaN",
)
def pr_curve(y_true, y_score, *, sample_weight=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(precision, recall, thresholds): one point per distinct score from the top."""
    h = ScoreHistogram.from_arrays(to_numpy(y_true, "y_true"), to_numpy(y_score, "y_score"), sample_weight)
    thr, tp, fp = h.cumulative()
    with np.errstate(invalid="ignore", divide="ignore"):
        return tp / (tp + fp), tp / h.n_pos, thr


@renamed(
    "average_precision_score(y_true, y_score)",
    note="0.0 with a warning where there is no positive case, as scikit-learn; this gave NaN",
)
def average_precision(y_true, y_score, *, sample_weight=None) -> float:
    """Information-retrieval AP: mean precision at the positives; a tie is one threshold."""
    return _binary("ap", y_true, y_score, sample_weight)


def perf_average_precision(y_true, y_score) -> float:
    """PERF's APR: expected precision at the positives under a random order inside ties."""
    return _binary("apr", y_true, y_score)


@renamed("brier_score_loss(y_true, y_score)")
def brier_score(y_true, y_score, *, sample_weight=None) -> float:
    """Mean squared difference between the target and the probability."""
    return _binary("brier", y_true, y_score, sample_weight)


def rmse(y_true, y_score, *, sample_weight=None) -> float:
    return _binary("rms", y_true, y_score, sample_weight)


def slq(y_true, y_score, *, bins: int = 100) -> float:
    return _binary("slq", y_true, y_score, bins=bins)


def _with_k(name: str, k: int) -> str:
    if isinstance(k, bool) or not isinstance(k, numbers.Real) or not math.isfinite(k) or k < 0 or int(k) != k:
        raise InvalidParameterError(f"k must be a whole number >= 0 (0: no cut-off), got {k!r}")
    return f"{name}@{int(k)}" if k else name


def ndcg(relevance, y_score, *, k: int = 0, groups=None) -> float:
    """Mean over queries of NDCG@k (gain 2^rel - 1, discount log2(rank + 1), ties averaged)."""
    r = evaluate(relevance, y_score, groups=groups, measures=[_with_k("ndcg", k)])
    return r[next(iter(r.results))]


def dcg(relevance, y_score, *, k: int = 0, groups=None) -> float:
    r = evaluate(relevance, y_score, groups=groups, measures=[_with_k("dcg", k)])
    return r[next(iter(r.results))]


def cg(relevance, y_score, *, k: int = 0, groups=None) -> float:
    r = evaluate(relevance, y_score, groups=groups, measures=[_with_k("cg", k)])
    return r[next(iter(r.results))]


def mean_average_precision(relevance, y_score, *, groups=None) -> float:
    return evaluate(relevance, y_score, groups=groups, measures=["map"])["MAP"]


def precision_at_k(relevance, y_score, *, k: int, groups=None) -> float:
    r = evaluate(relevance, y_score, groups=groups, measures=[_with_k("p", k)])
    return r[next(iter(r.results))]


def recall_at_k(relevance, y_score, *, k: int, groups=None) -> float:
    r = evaluate(relevance, y_score, groups=groups, measures=[_with_k("r", k)])
    return r[next(iter(r.results))]


def mrr(relevance, y_score, *, groups=None) -> float:
    return evaluate(relevance, y_score, groups=groups, measures=["mrr"])["MRR"]


def group_auc(y_true, y_score, *, groups, weighted: bool = True) -> float:
    """ROC area per group, averaged weighting each group by its size (or not); one-class groups skipped."""
    name = "gauc" if weighted else "gauc_unweighted"
    r = evaluate(y_true, y_score, groups=groups, measures=[name])
    return r[next(iter(r.results))]


#: the binary measures that depend only on the order of the scores (invariant under any strictly
#: increasing transform, checked for the whole registry in tests/test_scorer.py): they may score a
#: ``decision_function``; every other binary measure reads its scores as probabilities (BRIER_DSC
#: reads their order only: the PAV fit or the distinct scores; BRIER_UNC no score at all)
RANK_MEASURES = frozenset(
    {"ROC", "APR", "AP", "PRB", "R50", "RKL", "TOP1", "TOP10", "NTOP", "BRIER_DSC", "BRIER_UNC"}
    # the operating points and the threshold choices: their values read the order only (their
    # of=threshold forms are thresholds, not scores: scorer() refuses them)
    | {"TPR_AT_FPR", "SEN_AT_SPC", "SPC_AT_SEN", "PRE_AT_REC", "REC_AT_PRE", "PAUC"}
    | {"YOUDEN", "TOPLEFT", "BEST_FBETA", "BEST_MCC", "LEAST_COST"}
)


def scorer(
    measure: str,
    *,
    response_method: str | tuple[str, ...] | None = None,
    pos_label: Any = None,
    **params: Any,
):
    """A scikit-learn scorer for a binary measure: ``cross_val_score(clf, X, y, scoring=scorer("roc"))``.

    Scores are taken as scikit-learn's own scorers take them: a measure that reads the scores as
    probabilities (every threshold measure, log loss, CXE, Brier, RMS, calibration, SLQ, ...) uses
    ``predict_proba`` (the positive class's column); a measure of the ranking only (ROC, APR, AP,
    PRB, R50, RKL, TOP1, TOP10, NTOP, BRIER_DSC, the operating points: :data:`RANK_MEASURES`) uses
    ``decision_function`` where the estimator has one, else ``predict_proba``.  The measure's
    direction sets ``greater_is_better``.

    Parameters
    ----------
    measure : str
        A binary measure with parameters (``"acc:threshold=0.3"``, ``"apr"``).
    response_method : str or tuple of str, optional
        Overrides the rule above, as in :func:`sklearn.metrics.make_scorer`.  A probability
        measure asked to score ``decision_function`` is refused (its values would mean nothing).
    pos_label : optional
        The positive class (default: ``classes_[1]``, the greater label, as scikit-learn).
    **params
        The measure's parameters (``threshold=0.3``).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> X = [[0.0], [0.2], [0.4], [0.6], [0.8], [1.0]] * 5
    >>> y = [0, 0, 1, 0, 1, 1] * 5
    >>> s = cross_val_score(LogisticRegression(), X, y, scoring=scorer("brier"), cv=3)
    >>> bool(((s < 0) & (s > -1)).all())        # a loss, negated as scikit-learn does, from probabilities
    True
    """
    try:
        from sklearn.metrics import make_scorer
    except ImportError:
        raise MissingDependencyError("scorer() needs scikit-learn: pip install scikit-learn") from None
    spec = parse_measure(measure)
    if spec.measure.kind != "binary":
        raise InvalidParameterError(
            f"{spec.label} is a per-query measure; a scikit-learn scorer needs a binary one"
        )
    if spec.kwargs.get("of") == "threshold":
        raise InvalidParameterError(
            f"{spec.label} is a score threshold, not a measure of the model: a scikit-learn scorer needs a "
            "value (drop of=threshold)"
        )
    rank = spec.measure.name in RANK_MEASURES
    if response_method is None:
        response_method = ("decision_function", "predict_proba") if rank else "predict_proba"
    methods = (response_method,) if isinstance(response_method, str) else tuple(response_method)
    allowed = {"predict_proba", "decision_function", "predict"}
    if not methods or any(m not in allowed for m in methods):
        raise InvalidParameterError(
            f"response_method={response_method!r}: expected predict_proba, "
            "decision_function or predict (or a tuple of them)"
        )
    if not rank and "decision_function" in methods:
        raise InvalidParameterError(
            f"{spec.label} reads scores as probabilities; a decision_function is not one (use "
            "response_method='predict_proba', or a ranking measure such as roc or apr)"
        )
    unknown = sorted(set(params) - set(spec.kwargs))
    if unknown:  # said now: inside cross_val_score an error would only be a warning and a NaN score
        raise InvalidParameterError(
            f"measure {spec.measure.name} has no parameter {unknown[0]!r}; "
            f"expected one of {list(spec.kwargs) or 'none'}"
        )
    spec.measure.check_params(params)
    if spec.measure.direction == "none":
        raise InvalidParameterError(
            f"{spec.label} is no score to maximise or minimise (its ideal is a value, neither higher nor "
            "lower is better): a scorer needs a measure with a direction"
        )
    kwargs = {**spec.kwargs, **params}
    spec.measure.check_together(kwargs, spec.label)
    label = pos_label

    def score(y_true, y_score, sample_weight=None, **_kw):
        y = _positive(to_numpy(y_true, "y_true"), label)
        h = ScoreHistogram.from_arrays(y, to_numpy(y_score, "y_score"), sample_weight)
        return float(spec.measure(h, **kwargs))

    extra = {} if pos_label is None else {"pos_label": pos_label}
    return make_scorer(
        score,
        greater_is_better=spec.measure.higher_is_better,
        response_method=methods[0] if len(methods) == 1 else methods,
        **extra,
    )


def _positive(y: np.ndarray, pos_label: Any) -> np.ndarray:
    """0/1 targets from class labels: ``pos_label`` is 1; without it, {0, 1}, {-1, 1} and booleans
    as they are, and any other two labels with the greater positive (scikit-learn's ``classes_[1]``,
    whose column the scorer's response is).
    """
    if pos_label is not None:
        return (y == pos_label).astype(np.float64)
    if y.dtype.kind == "b":
        return y.astype(np.float64)
    labels = np.unique(y)
    if y.dtype.kind in "iuf" and set(labels.tolist()) <= {0, 1, -1}:
        return (y == 1).astype(np.float64)
    if len(labels) > 2:
        raise InvalidDataError(
            f"a binary measure needs two classes, the targets hold {len(labels)}: "
            f"{', '.join(map(repr, labels[:5].tolist()))}"
        )
    return (y == labels[-1]).astype(np.float64)


def scores_from_ranking(ranking: Any, ids: Any) -> np.ndarray:
    """Scores for cases given only a ranked list of their ids (most confident first).

    The case ranked first gets the highest score (n), the last ranked 1.  Every id of ``ids`` must
    be ranked exactly once: an id missing from the ranking, ranked twice, or unknown is an error,
    so no case is silently dropped or invented.

    Examples
    --------
    >>> scores_from_ranking(["c", "a", "b"], ids=["a", "b", "c"]).tolist()
    [2.0, 1.0, 3.0]
    """
    rk = [r.item() if hasattr(r, "item") else r for r in to_numpy(ranking, "ranking")]
    ids_l = [i.item() if hasattr(i, "item") else i for i in to_numpy(ids, "ids")]
    position: dict = {}
    for r, key in enumerate(rk):
        if key in position:
            raise InvalidDataError(
                f"the ranking lists id {key!r} twice (ranks {position[key] + 1} and {r + 1})"
            )
        position[key] = r
    known = set(ids_l)
    unknown = [k for k in rk if k not in known]
    if unknown:
        raise InvalidDataError(f"the ranking holds {len(unknown)} unknown id(s), e.g. {unknown[0]!r}")
    missing = [k for k in ids_l if k not in position]
    if missing:
        raise InvalidDataError(f"{len(missing)} id(s) are not ranked, e.g. {missing[0]!r}")
    n = len(rk)
    return np.array([float(n - position[k]) for k in ids_l])


def kddcup2002_task2(labels: Any, score_narrow: Any, score_broad: Any | None = None) -> dict[str, float]:
    """The KDD Cup 2002 task 2 score: AUC(narrow) + AUC(broad) over labels change / nc / control.

    "narrow" is {change} against {nc, control}; "broad" is {change, control} against {nc}.  Each
    task has its own scores (``score_broad`` defaults to ``score_narrow``); use
    :func:`scores_from_ranking` for submissions that are ranked lists of ids.  A label may be
    absent from the data (no ``control``): each area is computed where its two sides are present,
    and is NaN with an :class:`~perfeval.exceptions.UndefinedMeasureWarning` where one is empty
    (e.g. no ``nc`` at all); the sum is then NaN too.

    Returns
    -------
    dict with "narrow", "broad" and "score" (their sum).

    Examples
    --------
    >>> kddcup2002_task2(["change", "nc", "nc", "change"], [0.9, 0.1, 0.4, 0.3])
    {'narrow': 0.75, 'broad': 0.75, 'score': 1.5}
    """
    y = to_numpy(labels, "labels")
    texts = np.array([str(v) for v in y.tolist()])
    unknown = sorted(set(texts.tolist()) - {"change", "nc", "control"})
    if unknown:
        raise InvalidDataError(f"kddcup2002_task2: labels are change, nc and control; found {unknown[0]!r}")
    out = {}
    for name, positive, sc in (
        ("narrow", ("change",), score_narrow),
        ("broad", ("change", "control"), score_narrow if score_broad is None else score_broad),
    ):
        yb = np.isin(texts, positive).astype(np.float64)
        if yb.all() or not yb.any():
            side = "positive" if not yb.any() else "negative"
            warnings.warn(
                UndefinedMeasureWarning(
                    f"kddcup2002_task2: the {name} task ({'/'.join(positive)} against the rest) has "
                    f"no {side} case, so "
                    "its ROC area is undefined (NaN)"
                ),
                stacklevel=2,
            )
            out[name] = float("nan")
        else:
            out[name] = _binary("roc", yb, sc)
    out["score"] = out["narrow"] + out["broad"]
    return out
