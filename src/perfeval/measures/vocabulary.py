"""The modern vocabulary beyond PERF: rates, F-beta, log loss, Brier, AP, and the per-query measures
(NDCG, DCG, CG, MAP, P@k, R@k, set F, MRR, R-precision, bpref, success@k, judged@k) and group AUC.
Registered after PERF's measures.
"""

from __future__ import annotations

from perfeval.measures.base import REGISTRY, Direction, Measure, Param

_THR = Param("threshold", 0.5, "a case with score >= threshold is predicted positive", infinite=True)
_K = Param("k", 0, "cut-off: the top k cases of each query (0: all of them)", low=0)
_GAIN = Param(
    "gain",
    "exp",
    "the gain of a case of relevance rel: exp = 2^rel - 1 (Burges et al.; perfeval's default), "
    "linear = rel (trec_eval, scikit-learn's ndcg_score, ranx's ndcg)",
    choices=("exp", "linear"),
)
_TIE_THR = "none needed: every case with the same score is on the same side of the threshold."
_TIE_EXP = (
    "the expected value over uniformly random orders of the cases that share a score (tie-averaged, "
    "as scikit-learn's ndcg_score); it does not depend on the input order."
)
_MODERN = "not in PERF; modern only."
_AP_BOUNDS = (
    "exact: the AP of the two extreme orders (every tie's relevant cases first, the heavier first when "
    "weighted (AP), and the exact reverse).  The value "
    "(one threshold per tie) is the AP of no order when a tie holds relevant cases, and can lie above "
    "the maximum (a tie of relevant cases below non-relevant ones: each gets the precision at the "
    "tie's end, higher than the first of them has in any order) though never below the minimum."
)


def _binary(
    name: str,
    title: str,
    aliases: tuple[str, ...],
    definition: str,
    edge: str,
    *,
    params: tuple[Param, ...] = (_THR,),
    direction: Direction = "higher",
    ties: str = _TIE_THR,
    compute: str,
    per_group: str,
    at_param: bool = False,
    tie_bounds: str = "free",
    tie_bounds_doc: str = "",
    check: str = "",
) -> None:
    # compute / per_group: literal "module:function" strings, not the functions, because the registry
    # is read without numpy (measures/base.py says why and by whom)
    REGISTRY.register(
        Measure(
            name=name,
            title=title,
            aliases=aliases,
            perf_options=(),
            params=params,
            direction=direction,
            summary="histogram",
            compute=compute,
            per_group=per_group,
            definition=definition,
            ties=ties,
            edge_cases=edge,
            perf=_MODERN,
            at_param=at_param,
            tie_bounds=tie_bounds,
            tie_bounds_doc=tie_bounds_doc,
            check=check,
        )
    )


_binary(
    "ERR",
    "error rate at a threshold",
    ("error", "error_rate"),
    "(FP + FN) / n = 1 - ACC.",
    "no data: NaN.",
    direction="lower",
    compute="perfeval.measures.threshold:err",
    per_group="perfeval.measures.threshold:err_groups",
)
_binary(
    "FPR",
    "false positive rate",
    ("fall_out",),
    "FP / (FP + TN) = 1 - SPC.",
    "no negatives: NaN.",
    direction="lower",
    compute="perfeval.measures.threshold:fpr",
    per_group="perfeval.measures.threshold:fpr_groups",
)
_binary(
    "FNR",
    "false negative rate",
    ("miss_rate",),
    "FN / (FN + TP) = 1 - SEN.",
    "no positives: NaN.",
    direction="lower",
    compute="perfeval.measures.threshold:fnr",
    per_group="perfeval.measures.threshold:fnr_groups",
)
_binary(
    "FBETA",
    "F-beta score",
    ("f_beta",),
    "(1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP), scikit-learn's "
    "count form; beta = 1 is F1, the same formula as PRF (bit for bit).",
    "TP = 0 with an error (FN + FP > 0): 0; TP = FN = FP = 0 (no positive, none predicted): NaN "
    "with a warning "
    "(scikit-learn's zero_division case).",
    params=(Param("beta", 1.0, "weight of recall relative to precision", low=0), _THR),
    at_param=True,
    compute="perfeval.measures.threshold:fbeta",
    per_group="perfeval.measures.threshold:fbeta_groups",
)
_binary(
    "LOGLOSS",
    "log loss (cross-entropy in nats)",
    ("log_loss", "logloss", "nll"),
    "mean over cases of -ln(p) for positives and -ln(1 - p) for negatives (CXE in nats).",
    "p = 0 for a positive or 1 for a negative: inf (no clipping by default; `logloss:eps=1e-15` clips each p "
    "to [eps, 1 - eps] as scikit-learn's log_loss(eps=) did, to match a training metric); a score outside "
    "[0, 1]: NaN; no data: NaN.",
    params=(
        Param(
            "eps",
            0.0,
            "clip scores to [eps, 1 - eps] first; 0 (default): no clipping",
            low=0,
            high=0.5,
            high_open=True,
        ),
    ),
    direction="lower",
    ties="none needed.",
    compute="perfeval.measures.probability:logloss",
    per_group="perfeval.measures.probability:logloss_groups",
)
_binary(
    "BRIER",
    "Brier score",
    ("brier_score", "mse"),
    "mean over cases of (target - score)^2, the targets 0/1 and the scores probabilities (RMS "
    "squared): scikit-learn's brier_score_loss, and its mean_squared_error on such targets (hence the "
    "alias mse).  Not a regression measure: real-valued targets are refused, with a line that says so.",
    "no data: NaN.",
    params=(),
    direction="lower",
    ties="none needed.",
    compute="perfeval.measures.probability:brier",
    per_group="perfeval.measures.probability:brier_groups",
)
_binary(
    "AP",
    "average precision (information-retrieval form)",
    ("average_precision", "ap_ir"),
    "mean over the positives of the precision at their rank: sum of the precision at each relevant case "
    "divided by the number of relevant cases.",
    "no positives: NaN.",
    params=(),
    ties="a group of equal scores is one threshold: each positive in it gets the precision at the group's "
    "end (scikit-learn's average_precision_score). PERF's APR takes the expectation over orders "
    "instead.",
    compute="perfeval.measures.rank:ap",
    per_group="perfeval.measures.rank:ap_groups",
    tie_bounds="orders",
    tie_bounds_doc=_AP_BOUNDS,
)


def _ranking(
    name: str,
    title: str,
    aliases: tuple[str, ...],
    compute: str,
    definition: str,
    edge: str,
    *,
    params: tuple[Param, ...] = (_K,),
    ties: str = _TIE_EXP,
    aggregate: str = "mean",
    kind: str = "ranking",
    at_param: bool | None = None,
    tie_bounds: str = "orders",
    tie_bounds_doc: str = "",
) -> None:
    REGISTRY.register(
        Measure(
            name=name,
            title=title,
            aliases=aliases,
            perf_options=(),
            params=params,
            direction="higher",
            summary="ranking",
            compute=compute,
            definition=definition,
            ties=ties,
            edge_cases=edge,
            perf=_MODERN,
            kind=kind,
            at_param=bool(params) if at_param is None else at_param,
            aggregate=aggregate,
            tie_bounds=tie_bounds,
            tie_bounds_doc=tie_bounds_doc,
        )
    )


_ranking(
    "NDCG",
    "normalised discounted cumulative gain",
    ("ndcg",),
    "perfeval.measures.query:ndcg",
    "per query, DCG@k / the DCG@k of the ideal order; DCG@k = sum over the top k of gain(rel) / "
    "log2(i + 1), i the 1-based rank, gain(rel) = 2^rel - 1 (gain=exp) or rel (gain=linear); "
    "relevance graded (0, 1, 2, ...).  With judgments (perfeval.trec) the ideal order holds every "
    "judged relevant document, retrieved or not.",
    "a query with no relevant case: undefined, left out of the mean and listed (0 with judgments, "
    "as trec_eval).",
    params=(_K, _GAIN),
    tie_bounds_doc=(
        "exact: every tie's gains in decreasing order at its positions (the maximum) and in "
        "increasing order (the minimum); the ideal DCG does not depend on the order."
    ),
)
_ranking(
    "DCG",
    "discounted cumulative gain",
    ("dcg",),
    "perfeval.measures.query:dcg",
    "per query, sum over the top k of gain(rel) / log2(i + 1).",
    "empty query: 0.",
    params=(_K, _GAIN),
    tie_bounds_doc=(
        "exact: every tie's gains in decreasing order at its positions (the maximum) and in "
        "increasing order (the minimum)."
    ),
)
_ranking(
    "CG",
    "cumulative gain",
    ("cg",),
    "perfeval.measures.query:cg",
    "per query, sum over the top k of gain(rel).",
    "empty query: 0.",
    params=(_K, _GAIN),
    tie_bounds_doc=(
        "exact: only the tie straddling the cut-off matters: its highest gains above the cut (the "
        "maximum), its lowest (the minimum)."
    ),
)
_ranking(
    "MAP",
    "mean average precision",
    ("map", "mean_average_precision"),
    "perfeval.measures.query:ap",
    "the mean over queries of AP (information-retrieval form; relevance > 0 counts as relevant): "
    "the sum over the relevant cases in the top k (k = 0: all) of the precision at their rank, over "
    "the query's relevant cases R (trec_eval's map and map_cut_k, ranx's map@k; with judgments R "
    "counts the relevant documents the run missed).",
    "a query with no relevant case: undefined, left out of the mean and listed.",
    ties="a group of equal scores is one threshold (scikit-learn's average_precision_score); a group "
    "straddling the cut-off counts the fraction of it above the cut.",
    tie_bounds_doc=_AP_BOUNDS,
)
_ranking(
    "P",
    "precision at k",
    ("precision_at_k", "prec"),
    "perfeval.measures.query:precision_at",
    "per query, the relevant cases among the top k, over k (k = 0: over the query's size).",
    "a query shorter than k still divides by k (trec_eval's P_k).",
    tie_bounds_doc=(
        "exact: only the tie straddling the cut-off matters: of its g cases holding m relevant "
        "ones, min(m, its places s above the cut) above it at most (the maximum), max(0, s - (g - "
        "m)) at least (the minimum)."
    ),
)
_ranking(
    "R",
    "recall at k",
    ("recall_at_k",),
    "perfeval.measures.query:recall_at",
    "per query, the relevant cases among the top k over the query's relevant cases.",
    "a query with no relevant case: undefined, left out of the mean and listed.",
    tie_bounds_doc=(
        "exact: only the tie straddling the cut-off matters: of its g cases holding m relevant "
        "ones, min(m, its places s above the cut) above it at most (the maximum), max(0, s - (g - "
        "m)) at least (the minimum)."
    ),
)
_ranking(
    "F",
    "F-measure of the whole ranked set",
    ("set_f",),
    "perfeval.measures.query:set_f",
    "per query, (1 + beta^2) P R / (beta^2 P + R) over all its cases, P = p@0 (relevant cases over "
    "the query's size) and R = r@0 (relevant cases over the query's relevant cases, with judgments "
    "those the run missed included): trec_eval's set_F (beta = 1; trec_eval's set_F.x weighs with "
    "x = beta^2), ir_measures' SetF (its beta is trec_eval's x).",
    "relevant cases, none of them retrieved (P = R = 0): 0; beta = 0: P; a query with no relevant case: "
    "undefined (its recall is), left out of the mean and listed (0 with judgments, as trec_eval).",
    params=(Param("beta", 1.0, "weight of recall relative to precision (trec_eval's x = beta^2)", low=0),),
    ties="none needed: a set measure reads every case of the query whatever their order, so ties do "
    "not matter (and it has no cut-off: f@k is refused, beta is written f:beta=2).",
    at_param=False,
    tie_bounds="free",
)
_ranking(
    "MRR",
    "mean reciprocal rank",
    ("mrr", "recip_rank"),
    "perfeval.measures.query:mrr",
    "per query, 1 / the rank of the first relevant case; the mean over queries.",
    "a query with no relevant case: undefined, left out of the mean and listed.",
    params=(),
    tie_bounds_doc=(
        "exact: the first tie holding a relevant case, a cases below the top, g cases, m "
        "relevant: 1 / (a + 1) (the maximum) and 1 / (a + g - m + 1) (the minimum)."
    ),
)
_ranking(
    "RPREC",
    "R-precision",
    ("rprec",),
    "perfeval.measures.query:rprec",
    "per query, the relevant cases among the top R over R, R the query's relevant cases (with "
    "judgments, those the run missed included): trec_eval's Rprec.",
    "a query with no relevant case: undefined, left out of the mean and listed.",
    params=(),
    tie_bounds_doc=(
        "exact: as P at k = R: the tie straddling rank R puts its relevant cases above it first "
        "(the maximum) or last (the minimum)."
    ),
)
_ranking(
    "BPREF",
    "binary preference",
    ("bpref",),
    "perfeval.measures.query:bpref",
    "per query, the mean over its R relevant cases of 1 - min(n, R) / min(N, R), n the judged "
    "non-relevant cases ranked above the relevant one, N the query's judged non-relevant cases "
    "(Buckley and Voorhees 2004; trec_eval's bpref).  A relevant case not retrieved adds 0; "
    "unjudged cases are skipped (without judgments every case is judged).",
    "a query with no relevant case: undefined, left out of the mean and listed.",
    params=(),
    ties="the expected value over uniformly random orders of a tie (exact: the judged non-relevant "
    "cases of its tie above a relevant case are uniform on 0..J).",
    tie_bounds_doc=(
        "exact: every tie's relevant cases before its judged non-relevant ones (the maximum) or "
        "after them (the minimum); unjudged cases never count."
    ),
)
_ranking(
    "SUCCESS",
    "success at k (hit rate)",
    ("success", "hit_rate", "hitrate"),
    "perfeval.measures.query:success_at",
    "per query, 1 when a relevant case is among the top k, else 0 (trec_eval's success_k, ranx's "
    "hit_rate@k).",
    "a query with no relevant case: undefined, left out of the mean and listed.",
    ties="the probability, over uniformly random orders of a tie straddling the cut-off, that one of "
    "its relevant cases is above the cut.",
    tie_bounds_doc=(
        "exact: only the tie straddling the cut-off matters: 1 at most when one of its relevant "
        "cases can be above the cut (the maximum), 0 at least when its non-relevant ones can fill "
        "its places above it (the minimum)."
    ),
)
_ranking(
    "JUDGED",
    "judged at k",
    ("judged",),
    "perfeval.measures.query:judged_at",
    "per query, the judged cases among the top k over min(k, the cases ranked) (ir_measures' "
    "Judged@k); without judgments every case is judged (1).",
    "a query with nothing ranked: undefined.",
    tie_bounds_doc=(
        "exact: only the tie straddling the cut-off matters: its judged cases above the cut first "
        "(the maximum) or last (the minimum)."
    ),
)
_ranking(
    "GAUC",
    "group AUC (weighted by group size)",
    ("gauc", "group_auc"),
    "perfeval.measures.query:gauc",
    "the ROC area of each group, averaged with each group weighted by its number of cases.",
    "a group with one class only: skipped (its AUC is undefined) and counted in the report. Graded "
    "targets (0, 1, 2, ...) without a positive label: a grade above 0 is positive (said in a warning; "
    "pos_label= / --pos-label names one label positive instead).",
    params=(),
    ties="half credit for a tied positive/negative pair (Mann-Whitney), as ROC.",
    aggregate="weighted",
    kind="grouped",
    tie_bounds_doc=(
        "exact, per group: every tied positive/negative pair won (the maximum) or lost (the "
        "minimum): the group's area plus or minus half its share of tied pairs; the bounds of the "
        "weighted mean are the weighted means of the groups' bounds."
    ),
)
_ranking(
    "GAUC_UNWEIGHTED",
    "group AUC (each group counts once)",
    ("gauc_unweighted", "mean_auc"),
    "perfeval.measures.query:gauc_unweighted",
    "the plain mean of the groups' ROC areas (torchmetrics' RetrievalAUROC).",
    "a group with one class only: skipped and counted in the report. Graded targets without a "
    "positive label: a grade above 0 is positive (said in a warning), as GAUC.",
    params=(),
    ties="half credit for a tied positive/negative pair, as ROC.",
    kind="grouped",
    tie_bounds_doc=(
        "exact, per group: every tied positive/negative pair won (the maximum) or lost (the "
        "minimum); the bounds of the mean are the means of the groups' bounds."
    ),
)


# -- multiclass: one score column a class, finished from a ClassSummary (summaries/classes.py) ----------
_AVERAGE = Param(
    "average",
    "macro",
    "over the classes: macro (plain mean over the classes where the measure is defined), weighted "
    "(by each class's support), micro (every (case, class) pair pooled into one problem)",
    choices=("macro", "weighted", "micro"),
)
_AVERAGE_OVO = Param(
    "average",
    "macro",
    "over the pairs of classes: macro (plain mean over the pairs of classes both present), weighted "
    "(each pair by its share of the cases, n_j + n_k, as scikit-learn)",
    choices=("macro", "weighted"),
)
_CLASS_EDGE = (
    "a class absent from the targets (for precision: a class never predicted) has no value: NaN in the "
    "per-class values, left out of the macro and weighted means and listed in the report; micro "
    "pools every class.  No case: NaN."
)
_ARGMAX = (
    "the prediction is the argmax of each row; a tie at the maximum shares the case's weight "
    "equally among the tied classes: the confusion is the expected confusion over the orders of the "
    "tie.  Accuracy, recall and balanced accuracy are then their expected value over those orders; "
    "precision, F, MCC and kappa are the value of the expected confusion, not the expected value."
)


# the tie bounds of the multiclass measures (engine/class_bounds.py; tests/test_class_tie_bounds.py
# checks each one said exact against every order of the ties of small data)
_NO_CLASS_BOUND = (
    "none: a tie at the argmax moves the counts of two classes at once (a ratio of them, or the "
    "products of the margins), so the rows' best and worst orders are not the measure's extremes; no "
    "exact bound is computed (NaN)."
)
_OVR_BOUNDS = (
    "exact, per class and averaged: each class's bounds are the binary ROC's in its own column (every "
    "tied pair of the class and the rest won, or every one lost); the columns are ordered "
    "independently, so the macro and weighted bounds are the same means of the classes' bounds; "
    "micro: the binary ROC's bounds over the orders of the pooled (case, class) ranking."
)
_OVO_BOUNDS = (
    "exact: A(j|k) reads column j alone, and the class-j cases first (last) in every tie of column j "
    "win (lose) every tied pair of A(j|k) for every k at once; the bounds are the pairs' means of "
    "A(j|k) with every tied pair won, and lost."
)
_AP_OVR_BOUNDS = (
    "per class the binary AP's bounds in its own column (the AP of the two extreme orders; the value, "
    "one threshold a tie, can lie above the maximum, as AP's), averaged as the values (the columns "
    "independent); micro: the binary AP's bounds of the pooled (case, class) ranking."
)
_ROW_BOUNDS = (
    "exact, per class and averaged: a tie is broken in each row on its own, the row counting fully "
    "when its true class comes first in its tie and not at all when it comes last; the maximum "
    "(minimum) has every tied row at its best (worst)."
)
_FREE_CLASS = "order-free: each row is scored by its own probabilities (min = max = value)."


def _multiclass(
    name: str,
    title: str,
    aliases: tuple[str, ...],
    definition: str,
    *,
    compute: str,
    params: tuple[Param, ...] = (),
    direction: Direction = "higher",
    ties: str = _ARGMAX,
    edge: str = _CLASS_EDGE,
    at_param: bool = False,
    tie_bounds: str = "none",
    tie_bounds_doc: str = _NO_CLASS_BOUND,
    kind: str = "multiclass",
    check: str = "",
) -> None:
    # compute: a literal "module:function" string (measures/base.py says why it is not the function);
    # kind "multiclass" reads a ClassSummary, "multilabel" a LabelSummary
    REGISTRY.register(
        Measure(
            name=name,
            title=title,
            aliases=aliases,
            perf_options=(),
            params=params,
            direction=direction,
            summary="classes" if kind == "multiclass" else "labels",
            compute=compute,
            definition=definition,
            ties=ties,
            edge_cases=edge,
            perf=_MODERN,
            kind=kind,
            at_param=at_param,
            tie_bounds=tie_bounds,
            tie_bounds_doc=tie_bounds_doc,
            check=check,
        )
    )


_multiclass(
    "ROC_OVR",
    "one-vs-rest ROC area",
    ("roc_ovr", "roc_auc_ovr", "auroc_ovr", "auc_ovr"),
    "each class against all the others, ranked by its own score column: the binary ROC area; then "
    "averaged over the classes (micro: the ROC area of every (case, class) pair pooled).",
    compute="perfeval.measures.multiclass:roc_ovr",
    params=(_AVERAGE,),
    ties="half credit for a tied pair, as ROC.",
    tie_bounds="orders",
    tie_bounds_doc=_OVR_BOUNDS,
)
_multiclass(
    "ROC_OVO",
    "one-vs-one ROC area (Hand and Till)",
    ("roc_ovo", "roc_auc_ovo", "auroc_ovo", "hand_till", "auc_ovo"),
    "Hand and Till (2001): for each pair of classes j, k, A(j|k) is the probability that column j "
    "scores a case of class j above one of class k (ties half); the pair's value is (A(j|k) + "
    "A(k|j)) / 2; averaged over the pairs.  O(n K log n): each column sorted once, every other class "
    "located in it (no K^2 passes).",
    compute="perfeval.measures.multiclass:roc_ovo",
    params=(_AVERAGE_OVO,),
    ties="half credit for a tied pair, as ROC.",
    edge="a pair with a class absent from the targets has no value: left out of the mean.  No pair "
    "of present classes: NaN.",
    tie_bounds="orders",
    tie_bounds_doc=_OVO_BOUNDS,
)
_multiclass(
    "AP_OVR",
    "one-vs-rest average precision",
    ("ap_ovr", "average_precision_ovr", "map_ovr"),
    "each class against all the others, ranked by its own score column: AP (one threshold a tie, "
    "as AP and scikit-learn); averaged over the classes (micro: every (case, class) pair pooled).",
    compute="perfeval.measures.multiclass:ap_ovr",
    params=(_AVERAGE,),
    ties="one threshold per tie, as AP.",
    tie_bounds="orders",
    tie_bounds_doc=_AP_OVR_BOUNDS,
)
_multiclass(
    "LOGLOSS_MC",
    "multiclass log loss (cross-entropy)",
    ("log_loss_mc", "mlogloss", "multiclass_log_loss", "cross_entropy_mc"),
    "mean over the cases of -ln p(true class), each probability clipped to [eps, 1 - eps] (eps of "
    "float64), as scikit-learn's log_loss; natural log.",
    compute="perfeval.measures.multiclass:log_loss",
    direction="lower",
    ties="none needed: each case is scored by its own probability.",
    edge="a score outside [0, 1]: NaN, and the report says which.  Rows that do not sum to 1 "
    "(within 1e-4; rounded probabilities): scored as given, as scikit-learn does, with a note.  No "
    "case: NaN.",
    tie_bounds="free",
    tie_bounds_doc=_FREE_CLASS,
)
_multiclass(
    "BRIER_MC",
    "multiclass Brier score",
    ("brier_mc", "multiclass_brier", "mbrier"),
    "mean over the cases of sum_k (p_k - [k is the true class])^2; range [0, 2] (scikit-learn's "
    "brier_score_loss for K >= 3 classes; twice the binary Brier score when K = 2).",
    compute="perfeval.measures.multiclass:brier",
    direction="lower",
    ties="none needed: each case is scored by its own probabilities.",
    edge="a score outside [0, 1]: NaN, and the report says which.  Rows that do not sum to 1: scored "
    "as given, with a note.  No case: NaN.",
    tie_bounds="free",
    tie_bounds_doc=_FREE_CLASS,
)
_multiclass(
    "ACC_MC",
    "multiclass accuracy (argmax)",
    ("acc_mc", "accuracy_mc", "multiclass_accuracy"),
    "the share of the weight whose argmax is the true class.",
    compute="perfeval.measures.multiclass:accuracy",
    edge="no case: NaN.",
    tie_bounds="orders",
    tie_bounds_doc=_ROW_BOUNDS,
)
_multiclass(
    "BACC",
    "balanced accuracy",
    ("bacc", "balanced_accuracy"),
    "the mean over the classes present in the targets of each one's recall (of the argmax).",
    compute="perfeval.measures.multiclass:balanced_accuracy",
    edge="a class absent from the targets has no recall: left out of the mean and listed.  No case: NaN.",
    tie_bounds="orders",
    tie_bounds_doc=_ROW_BOUNDS,
)
_multiclass(
    "TOPK_ACC",
    "top-k accuracy",
    ("topk_acc", "top_k_accuracy", "top_k"),
    "the share of the weight whose true class is among the k classes scored highest.",
    compute="perfeval.measures.multiclass:top_k_accuracy",
    params=(Param("k", 2, "how many of the best scored classes count (1: accuracy)", low=1, integer=True),),
    at_param=True,
    ties="a tie across the k-th place counts its expected share over the orders of the tie: with g "
    "classes above the true one and t tied with it, min(1, max(0, k - g) / (t + 1)) (scikit-learn's "
    "top_k_accuracy_score breaks ties by column order instead).",
    edge="no case: NaN; k >= K: 1.",
    tie_bounds="orders",
    tie_bounds_doc=_ROW_BOUNDS,
)
_multiclass(
    "PRE_MC",
    "multiclass precision (argmax)",
    ("pre_mc", "precision_mc", "multiclass_precision"),
    "each class's precision tp / (tp + fp) of the argmax prediction, averaged over the classes "
    "(micro: of the summed counts, which is the accuracy).",
    compute="perfeval.measures.multiclass:precision",
    params=(_AVERAGE,),
)
_multiclass(
    "REC_MC",
    "multiclass recall (argmax)",
    ("rec_mc", "recall_mc", "multiclass_recall"),
    "each class's recall tp / (tp + fn) of the argmax prediction, averaged over the classes (macro: "
    "the balanced accuracy).",
    compute="perfeval.measures.multiclass:recall",
    params=(_AVERAGE,),
    tie_bounds="orders",
    tie_bounds_doc=_ROW_BOUNDS,
)
_multiclass(
    "F_MC",
    "multiclass F-beta (argmax)",
    ("f_mc", "f1_mc", "fbeta_mc", "multiclass_f1"),
    "each class's F-beta (1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp) of the argmax prediction, "
    "averaged over the classes (micro: of the summed counts).",
    compute="perfeval.measures.multiclass:f_beta",
    params=(Param("beta", 1.0, "weight of recall against precision (1: F1)", low=0, low_open=True), _AVERAGE),
    edge="a class with tp + fp + fn = 0 (absent and never predicted) has no value: left out of the "
    "means and listed.  No case: NaN.",
)
_multiclass(
    "MCC",
    "Matthews correlation (K classes)",
    ("mcc", "matthews", "matthews_corrcoef"),
    "Gorodkin's K-class correlation of the argmax prediction with the targets, (c s - sum_k t_k "
    "p_k) / sqrt((s^2 - sum p_k^2)(s^2 - sum t_k^2)); the binary MCC when K = 2.",
    compute="perfeval.measures.multiclass:mcc",
    edge="every case of one class, or every case predicted as one: 0/0, NaN (scikit-learn gives 0).",
)
_multiclass(
    "KAPPA",
    "Cohen's kappa",
    ("kappa", "cohen_kappa"),
    "1 - sum(W * O) / sum(W * E): O the confusion of the argmax, E the product of its margins, W "
    "0 on the diagonal and 1 off it (none), |i - j| (linear) or (i - j)^2 (quadratic), i and j the "
    "classes' positions in the given order.",
    compute="perfeval.measures.multiclass:kappa",
    params=(
        Param(
            "weights",
            "none",
            "disagreement weights: none, linear or quadratic",
            choices=("none", "linear", "quadratic"),
        ),
    ),
    edge="sum(W * E) = 0 (one class only): NaN.",
)
_multiclass(
    "QWK",
    "quadratic weighted kappa",
    ("qwk", "quadratic_weighted_kappa"),
    "Cohen's kappa with quadratic weights (i - j)^2 over the classes in their given order (the "
    "ordered classes of a grading task; a common competition metric).",
    compute="perfeval.measures.multiclass:qwk",
    edge="one class only: NaN.",
)

#: a binary measure's form for K classes: ``roc`` on a score column a class is ``ROC_OVR``
MULTICLASS_OF = {
    "ROC": "ROC_OVR",
    "AP": "AP_OVR",
    "LOGLOSS": "LOGLOSS_MC",
    "BRIER": "BRIER_MC",
    "ACC": "ACC_MC",
    "PRE": "PRE_MC",
    "REC": "REC_MC",
    "PRF": "F_MC",
    "FBETA": "F_MC",
}

#: what evaluate() computes for K classes when no measure is named
MULTICLASS_DEFAULT = [
    "ROC_OVR",
    "ROC_OVO",
    "AP_OVR",
    "LOGLOSS_MC",
    "BRIER_MC",
    "ACC_MC",
    "BACC",
    "F_MC",
    "MCC",
    "KAPPA",
]


# -- multilabel: a 0/1 target and a score a label, finished from a LabelSummary (summaries/labels.py) ----
_AVERAGE_LABELS = Param(
    "average",
    "macro",
    "over the labels: macro (plain mean over the labels where the measure is defined), weighted (by "
    "each label's support), micro (every (row, label) cell pooled into one problem)",
    choices=("macro", "weighted", "micro"),
)
_AVERAGE_SAMPLES = Param(
    "average",
    "macro",
    "macro, weighted or micro over the labels (as for ROC_ML), or samples (the mean over the rows of "
    "each row's value, rows where it is 0/0 left out)",
    choices=("macro", "weighted", "micro", "samples"),
)
_AVERAGE_RANKED = Param(
    "average",
    "macro",
    "over the labels: macro (plain mean over the labels where the measure is defined), weighted (by "
    "each label's support), micro (every (row, label) cell pooled into one problem); or samples (each "
    "row's value over its labels, then the mean over the rows, rows with one class only left out)",
    choices=("macro", "weighted", "micro", "samples"),
)
_LABEL_EDGE = (
    "a label never on (or, for precision, never predicted) has no value: NaN in the per-label values, "
    "left out of the macro and weighted means and listed; micro pools every label.  No row: NaN."
)
_LABEL_THR = "a (row, label) cell with score >= threshold is predicted on; no ties to break."
_LABEL_BOUNDS = (
    "exact, per label and averaged: each label's column is ordered on its own, with the binary "
    "measure's bounds (every tie's rows with the label on first, or last); macro and weighted are the "
    "same means of the labels' bounds, reached by one order of every column at once; micro: the "
    "binary bounds of the pooled (row, label) cells as one ranking.  average=samples: as the row "
    "measures (each row's labels in their tie orders)."
)
_ROW_LABEL_BOUNDS = (
    "exact: each row's labels are ordered on their own, the row at its best when every tie puts its "
    "relevant labels first and at its worst with them last; the weighted mean over the rows of the "
    "rows' extremes."
)
_FREE_LABEL = "order-free: a score >= threshold is on whatever the order of ties (min = max = value)."


def _multilabel(
    name: str,
    title: str,
    aliases: tuple[str, ...],
    definition: str,
    *,
    compute: str,
    params: tuple[Param, ...] = (),
    direction: Direction = "higher",
    ties: str = _LABEL_THR,
    edge: str = _LABEL_EDGE,
    tie_bounds: str = "free",
    tie_bounds_doc: str = _FREE_LABEL,
) -> None:
    # one registration of a task's measure (_multiclass), for K labels: a LabelSummary, and a
    # threshold measure's threshold written name@value
    _multiclass(
        name,
        title,
        aliases,
        definition,
        compute=compute,
        params=params,
        direction=direction,
        ties=ties,
        edge=edge,
        at_param=bool(params) and params[0].name == "threshold",
        tie_bounds=tie_bounds,
        tie_bounds_doc=tie_bounds_doc,
        kind="multilabel",
    )


_multilabel(
    "ROC_ML",
    "multilabel ROC area (per label)",
    ("roc_ml", "roc_auc_multilabel", "roc_labels"),
    "each label's ROC area over the rows (its column's scores; on or off), averaged over the labels.",
    compute="perfeval.measures.multilabel:roc_labels",
    params=(_AVERAGE_RANKED,),
    ties="half credit for a tied pair, as ROC.",
    tie_bounds="orders",
    tie_bounds_doc=_LABEL_BOUNDS,
)
_multilabel(
    "AP_ML",
    "multilabel average precision (per label)",
    ("ap_ml", "average_precision_multilabel", "ap_labels"),
    "each label's AP over the rows (one threshold a tie), averaged over the labels.",
    compute="perfeval.measures.multilabel:ap_labels",
    params=(_AVERAGE_RANKED,),
    ties="one threshold per tie, as AP.",
    tie_bounds="orders",
    tie_bounds_doc=_LABEL_BOUNDS,
)
_multilabel(
    "PRE_ML",
    "multilabel precision at a threshold",
    ("pre_ml", "precision_multilabel"),
    "tp / (tp + fp) of each label (or row, samples) with score >= threshold predicted on, averaged.",
    compute="perfeval.measures.multilabel:precision_labels",
    params=(_THR, _AVERAGE_SAMPLES),
)
_multilabel(
    "REC_ML",
    "multilabel recall at a threshold",
    ("rec_ml", "recall_multilabel"),
    "tp / (tp + fn) of each label (or row, samples) with score >= threshold predicted on, averaged.",
    compute="perfeval.measures.multilabel:recall_labels",
    params=(_THR, _AVERAGE_SAMPLES),
)
_multilabel(
    "F_ML",
    "multilabel F-beta at a threshold",
    ("f_ml", "f1_ml", "f1_multilabel"),
    "(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp) of each label (or row, samples), averaged.",
    compute="perfeval.measures.multilabel:f_labels",
    params=(
        _THR,
        Param("beta", 1.0, "weight of recall against precision (1: F1)", low=0, low_open=True),
        _AVERAGE_SAMPLES,
    ),
)
_multilabel(
    "JACCARD",
    "Jaccard index at a threshold",
    ("jaccard", "jaccard_ml", "iou"),
    "tp / (tp + fp + fn) of the predicted and the true labels of each row (samples) or label, averaged.",
    compute="perfeval.measures.multilabel:jaccard_labels",
    edge="a row (samples) or label with no label on and none predicted (0/0) has no value: left out of "
    "the mean (scikit-learn's jaccard_score counts it as zero_division, 0 by default).  No row: NaN.",
    params=(_THR, Param("average", "samples", _AVERAGE_SAMPLES.doc, choices=_AVERAGE_SAMPLES.choices)),
)
_multilabel(
    "HAMMING",
    "Hamming loss at a threshold",
    ("hamming", "hamming_loss"),
    "the share of the (row, label) cells predicted wrong, each row's cells weighted by its weight.",
    compute="perfeval.measures.multilabel:hamming",
    params=(_THR,),
    direction="lower",
    edge="no row: NaN.",
)
_multilabel(
    "SUBSET_ACC",
    "subset accuracy (exact match) at a threshold",
    ("subset_acc", "exact_match", "subset_accuracy"),
    "the share of the rows whose every label is predicted right (scikit-learn's accuracy_score of "
    "a label matrix).",
    compute="perfeval.measures.multilabel:subset_accuracy",
    params=(_THR,),
    edge="no row: NaN.",
)
_multilabel(
    "LRAP",
    "label ranking average precision",
    ("lrap", "label_ranking_average_precision"),
    "per row: the mean over its relevant labels of (relevant labels ranked at or above it) / (labels "
    "ranked at or above it); the weighted mean over the rows (scikit-learn's definition).",
    compute="perfeval.measures.multilabel:lrap",
    ties="a label tied with another counts as ranked above it (scikit-learn's rule).",
    edge="a row with no relevant label, or every label relevant: 1.  No row: NaN.",
    tie_bounds="orders",
    tie_bounds_doc=_ROW_LABEL_BOUNDS,
)
_multilabel(
    "COVERAGE",
    "coverage error",
    ("coverage", "coverage_error"),
    "per row: how far down the ranking one must go to cover every relevant label (the rank of the "
    "lowest-scored relevant label, ties counting as above); the weighted mean over the rows.",
    compute="perfeval.measures.multilabel:coverage",
    direction="lower",
    ties="every label tied with the lowest relevant one counts (scikit-learn's rule).",
    edge="a row with no relevant label: 0.  No row: NaN.",
    tie_bounds="orders",
    tie_bounds_doc=_ROW_LABEL_BOUNDS,
)
_multilabel(
    "RANKING_LOSS",
    "label ranking loss",
    ("ranking_loss", "label_ranking_loss"),
    "per row: the share of the (relevant, irrelevant) label pairs ordered wrong; the weighted mean "
    "over the rows.",
    compute="perfeval.measures.multilabel:ranking_loss",
    direction="lower",
    ties="a tied (relevant, irrelevant) pair counts as wrong (scikit-learn's rule).",
    edge="a row with no relevant or no irrelevant label: 0.  No row: NaN.",
    tie_bounds="orders",
    tie_bounds_doc=_ROW_LABEL_BOUNDS,
)

#: a binary measure's form for K labels: ``roc`` on a label matrix is ``ROC_ML``
MULTILABEL_OF = {
    "ROC": "ROC_ML",
    "AP": "AP_ML",
    "PRE": "PRE_ML",
    "REC": "REC_ML",
    "PRF": "F_ML",
    "FBETA": "F_ML",
    "ACC": "SUBSET_ACC",
}

#: what evaluate() computes for K labels when no measure is named
MULTILABEL_DEFAULT = [
    "ROC_ML",
    "AP_ML",
    "F_ML",
    "JACCARD",
    "HAMMING",
    "SUBSET_ACC",
    "LRAP",
    "COVERAGE",
    "RANKING_LOSS",
]


# -- part "regress" (issue 33): regression, a real target and a prediction, finished from a
# RegressionSummary (summaries/regression.py: exact sums, merged in any order with the same bits) ------
_REG_TIES = "none needed: each row is scored by its own prediction."
_REG_EDGE = "no case (no row, or every weight 0): NaN."
_FREE_REG = "order-free: each row is scored by its own prediction (min = max = value)."
#: the sentence of the measures whose exact sums need a product that tiny data makes inexact
#: (csrc/exact.c, tp_lost): "always" (a square of a target, a residual or a log error), "weighted"
#: (a row's term times its weight only), "none"
_TINY = (
    "a product its exact sums need ({what}) with bits below 2**-1074, float64's last (data about 1e-150 "
    "or smaller, a subnormal), cannot be made exact: NaN with that reason (per group: in the groups where "
    "it is so), never an inexact number, the other measures computed{then}."
)
_TINY_SCALE_FREE = (
    ": scale the targets and the predictions (R2, the explained variance and the D^2 scores do not "
    "change with the scale, nor with the weights')"
)
_TINY_SCALE = (
    ": scale the targets and the predictions (and the value back), or the weights (a weighted mean does "
    "not change with their scale)"
)


def _tiny_edge(products: str, scale_free: bool) -> str:
    then = _TINY_SCALE_FREE if scale_free else _TINY_SCALE
    if products == "always":
        return "A" + _TINY.format(what="a square, times the weight", then=then)[1:]
    return (
        "Weighted, "
        + _TINY.format(what="a row's term times its weight", then=then)
        + "  Unweighted it reads no product."
    )


def _regression(
    name: str,
    title: str,
    aliases: tuple[str, ...],
    definition: str,
    *,
    compute: str,
    params: tuple[Param, ...] = (),
    direction: Direction = "lower",
    edge: str = _REG_EDGE,
    ties: str = _REG_TIES,
    at_param: bool | None = None,
    products: str = "weighted",
) -> None:
    # compute: a literal "module:function" string (measures/base.py says why it is not the function)
    # products: which of its sums' products tiny data makes inexact (_tiny_edge; "none": no sentence)
    if products != "none":
        edge = edge + "  " + _tiny_edge(products, direction == "higher")
    REGISTRY.register(
        Measure(
            name=name,
            title=title,
            aliases=aliases,
            perf_options=(),
            params=params,
            direction=direction,
            summary="regression",
            compute=compute,
            definition=definition,
            ties=ties,
            edge_cases=edge,
            perf=_MODERN,
            kind="regression",
            at_param=bool(params) if at_param is None else at_param,
            tie_bounds="free",
            tie_bounds_doc=_FREE_REG,
        )
    )


_regression(
    "MAE",
    "mean absolute error",
    ("mean_absolute_error", "l1_error", "meanabsoluteerror"),
    "sum_i w_i |y_i - yhat_i| / sum_i w_i, from exact sums (rounded once).",
    compute="perfeval.measures.regression:mae",
)
_regression(
    "MSE_REG",
    "mean squared error",
    ("mse_reg", "mean_squared_error", "meansquarederror"),
    "sum_i w_i (y_i - yhat_i)^2 / sum_i w_i, from exact sums (each product made exact by two-product "
    "splitting; rounded once).  On a 0/1 target `mse` is BRIER; on a regression target it is this.",
    compute="perfeval.measures.regression:mse",
    products="always",
)
_regression(
    "RMSE_REG",
    "root mean squared error",
    ("rmse_reg", "root_mean_squared_error"),
    "the square root of MSE_REG (scikit-learn's root_mean_squared_error).  On a 0/1 target `rmse` is "
    "PERF's RMS (unchanged, in the classic command too); on a regression target it is this.",
    compute="perfeval.measures.regression:rmse",
    products="always",
)
_regression(
    "R2",
    "coefficient of determination",
    ("r2_score", "r_squared", "rsquared", "r2score"),
    "1 - sum_i w_i r_i^2 / sum_i w_i (y_i - ybar)^2, ybar the weighted mean of the targets; the total "
    "sum of squares formed from exact sums of w, w y and w y^2 (a large mean and a small spread lose "
    "no digit), the ratio rounded once.",
    compute="perfeval.measures.regression:r2",
    direction="higher",
    edge="every target equal (no variance): NaN, 0/0 or -inf (scikit-learn's r2_score gives 1 or 0 with "
    "force_finite=True, its default).  No case: NaN.",
    products="always",
)
_regression(
    "EXPVAR",
    "explained variance",
    ("explained_variance", "explained_variance_score", "evs"),
    "1 - Var_w(y - yhat) / Var_w(y): R2 with the residuals' weighted mean (a constant bias) forgiven; "
    "from exact sums, rounded once.",
    compute="perfeval.measures.regression:explained_variance",
    direction="higher",
    edge="every target equal: NaN (scikit-learn gives 1 or 0 with force_finite=True).  No case: NaN.",
    products="always",
)
_regression(
    "MAPE",
    "mean absolute percentage error",
    ("mean_absolute_percentage_error", "mape_score"),
    "sum_i w_i |y_i - yhat_i| / |y_i| / sum_i w_i, a fraction (not times 100), as scikit-learn's.  "
    "eps=sklearn floors each |y_i| at float64's eps (2.2e-16) as scikit-learn's "
    "mean_absolute_percentage_error does, eps=torchmetrics at 1.17e-06 as torchmetrics' does (which "
    "also changes targets nonzero but below 1.17e-06 in size).",
    compute="perfeval.measures.regression:mape",
    params=(
        Param(
            "eps",
            "none",
            "the floor of |y|: none (a target of 0 or below 2.2e-16 in size is NaN), sklearn (float64's eps) "
            "or torchmetrics (1.17e-06)",
            choices=("none", "sklearn", "torchmetrics"),
        ),
    ),
    at_param=False,
    edge="a target of 0 (weight > 0) with eps=none: NaN, and the reason (scikit-learn's "
    "mean_absolute_percentage_error divides by float64's eps instead: eps=sklearn).  No case: NaN.",
)
_regression(
    "MEDAE",
    "median absolute error",
    ("median_absolute_error", "medae_score", "mdae"),
    "the weighted median of |y_i - yhat_i|: the first value whose cumulative weight reaches half the "
    "total, or, when it reaches it exactly, the mean of it and the next (numpy's median for equal "
    "weights; scikit-learn's averaged inverted CDF).  Keeps every residual (sorted, with its weight).",
    compute="perfeval.measures.regression:median_absolute_error",
    products="none",
)
_regression(
    "PINBALL",
    "mean pinball (quantile) loss",
    ("pinball_loss", "mean_pinball_loss", "quantile_loss"),
    "sum_i w_i (alpha max(r_i, 0) + (1 - alpha) max(-r_i, 0)) / sum_i w_i, r = y - yhat; alpha 0.5 is "
    "half the MAE.",
    compute="perfeval.measures.regression:pinball",
    params=(Param("alpha", 0.5, "the quantile the prediction aims at", low=0, high=1),),
)
#: a row's deviance whose formula's steps fall below float64's normal range
#: (:func:`perfeval.summaries.regression.deviance_rows`' ``low``), or past its range
_DEV_BELOW = (
    "A row whose deviance by scikit-learn's formula has a step (a power, product or quotient of its "
    "target and prediction; power 0: the square of its residual) below float64's normal range "
    "(2.2e-308) that lost bits the row needs (power 3 of data about 1e200, power -1 or 0 of data about "
    "1e-200: scikit-learn gives a deviance below 0, or 0 for a target off its prediction): NaN, and why "
    "(scale the targets and the predictions by c, the value back by c**(2 - power)); per group only its "
    "group.  The rule: a step rounds below 2**-1022 while its exact value is not 0, and what it can lose "
    "(at most 2**-1074, and at most its own size, times what the formula multiplies it by after) is "
    "more than 2**-53 of the row's largest term (a cube of 1e-200 beside a term about 1 loses nothing "
    "the row needs: the row is kept); ordinary data have no such step, their bits are the formula's.  "
    "A row whose formula is beyond float64's range (power 3 of data about 1e-200, -1 of about 1e200): "
    "NaN, and why."
)
_regression(
    "POISSON_DEV",
    "mean Poisson deviance",
    ("poisson_deviance", "mean_poisson_deviance"),
    "sum_i w_i 2 (y_i ln(y_i / yhat_i) - y_i + yhat_i) / sum_i w_i (0 ln 0 = 0).",
    compute="perfeval.measures.regression:poisson_deviance",
    edge="a target < 0 or a prediction <= 0 (weight > 0): NaN, and how many rows (scikit-learn raises).  "
    "No case: NaN.  A target over its prediction that rounds to 0 (its log is -inf "
    "where the row's deviance is about 2 yhat), or a step of the formula below float64's normal range "
    "that lost bits the row needs (as TWEEDIE_DEV): NaN, and why.",
)
_regression(
    "GAMMA_DEV",
    "mean Gamma deviance",
    ("gamma_deviance", "mean_gamma_deviance"),
    "sum_i w_i 2 (ln(yhat_i / y_i) + y_i / yhat_i - 1) / sum_i w_i.",
    compute="perfeval.measures.regression:gamma_deviance",
    edge="a target or a prediction <= 0 (weight > 0): NaN, and how many rows (scikit-learn raises).  "
    "No case: NaN.",
)
_regression(
    "TWEEDIE_DEV",
    "mean Tweedie deviance",
    ("tweedie_deviance", "mean_tweedie_deviance"),
    "the mean unit deviance of the Tweedie distribution of the given power (scikit-learn's formula): "
    "0 squared error, 1 Poisson, 2 Gamma, 3 inverse Gaussian; 0 < power < 1 has none (NaN).",
    compute="perfeval.measures.regression:tweedie_deviance",
    params=(Param("power", 0.0, "the Tweedie power (<= 0 or >= 1)"),),
    edge="a row outside the power's domain (power < 0: prediction > 0; 1 <= power < 2: target >= 0 and "
    "prediction > 0; power >= 2: both > 0): NaN, and how many rows (scikit-learn raises).  "
    "0 < power < 1: NaN.  No case: NaN.  " + _DEV_BELOW,
)

#: a binary measure's form for a regression target: ``rmse`` (PERF's RMS on 0/1) is RMSE_REG
REGRESSION_OF = {"RMS": "RMSE_REG", "BRIER": "MSE_REG"}

#: what evaluate() computes for a regression target when no measure is named
REGRESSION_DEFAULT = ["MAE", "MSE_REG", "RMSE_REG", "R2", "EXPVAR"]

# -- part "oppoints" (issue 33): operating points, threshold choice, partial AUC --------------------
# (measures/operating.py; tests/test_operating_*.py)
_OF = Param(
    "of",
    "value",
    "what the measure returns: value (its value at the operating point it picks) or threshold (the "
    "score threshold of that point: a case is predicted positive when its score >= it; +inf: predict "
    "nothing)",
    choices=("value", "threshold"),
)
_TIE_POINT = (
    "only thresholds at distinct scores are achievable (a tie is never split): the best value over the "
    "thresholds that meet the target; among thresholds of equal value, the one whose other rate is best "
    "(the point that dominates the others: it is unique).  A threshold meets the target when its rate "
    "computed exactly from the summary's weights (the exact sums of each score's float64 weights, the "
    "exact ratio) meets the target read as the decimal it is written as (0.1 is 1/10): a rate of "
    "exactly 0.1 meets 0.1 whatever the rounding of its float (the value reported is the float rate)."
)


def _rate(name: str, doc: str, default: float) -> Param:
    return Param(name, default, doc, low=0, high=1)


def pauc_range(params: dict) -> str | None:
    """PAUC's range: ``lo`` < ``hi`` (Measure.check)."""
    lo, hi = params["lo"], params["hi"]
    if lo < hi:
        return None
    return f"`lo` must be < `hi` (a range), got lo={lo:g}, hi={hi:g}"


_binary(
    "TPR_AT_FPR",
    "true positive rate at a false positive rate",
    ("tpr_at_fpr", "recall_at_fpr"),
    "the highest TPR = TP / P over the thresholds whose FPR = FP / N <= max_fpr (nothing predicted "
    "positive, threshold +inf, always meets it: TPR 0).  of=threshold: that threshold.  The same "
    "point as SEN_AT_SPC at min_specificity = 1 - max_fpr in decimals (0.1 and 0.9: FP <= 0.1 N "
    "exactly is N - FP >= 0.9 N exactly); 1 - max_fpr in float64 can be another decimal "
    "(1 - 0.9 is 0.09999999999999998).",
    "no positives or no negatives: NaN.",
    params=(_rate("max_fpr", "the largest false positive rate allowed", 0.1), _OF),
    ties=_TIE_POINT,
    compute="perfeval.measures.operating:tpr_at_fpr",
    per_group="perfeval.measures.operating:tpr_at_fpr_groups",
    at_param=True,
)
_binary(
    "SEN_AT_SPC",
    "sensitivity at a specificity",
    ("sensitivity_at_specificity", "binary_sensitivity_at_specificity"),
    "the highest sensitivity TP / P over the thresholds whose specificity TN / N >= min_specificity "
    "(torchmetrics' binary_sensitivity_at_specificity, thresholds=None; nothing predicted positive, "
    "threshold +inf, always meets it).  of=threshold: that threshold.",
    "no positives or no negatives: NaN (torchmetrics: 0, or its specificity 1 when there are no negatives).",
    params=(_rate("min_specificity", "the smallest specificity allowed", 0.9), _OF),
    ties=_TIE_POINT,
    compute="perfeval.measures.operating:sen_at_spc",
    per_group="perfeval.measures.operating:sen_at_spc_groups",
    at_param=True,
)
_binary(
    "SPC_AT_SEN",
    "specificity at a sensitivity",
    ("specificity_at_sensitivity", "binary_specificity_at_sensitivity"),
    "the highest specificity TN / N over the thresholds whose sensitivity TP / P >= min_sensitivity "
    "(torchmetrics' binary_specificity_at_sensitivity, thresholds=None; every case predicted positive "
    "always meets it).  of=threshold: that threshold (among thresholds of equal specificity the one of "
    "highest sensitivity, the lowest: torchmetrics takes the highest).",
    "no positives or no negatives: NaN (torchmetrics: 0).",
    params=(_rate("min_sensitivity", "the smallest sensitivity allowed", 0.9), _OF),
    ties=_TIE_POINT,
    compute="perfeval.measures.operating:spc_at_sen",
    per_group="perfeval.measures.operating:spc_at_sen_groups",
    at_param=True,
)
_binary(
    "PRE_AT_REC",
    "precision at a recall",
    ("precision_at_recall", "binary_precision_at_fixed_recall", "precision_at_fixed_recall"),
    "the highest precision TP / (TP + FP) over the thresholds whose recall TP / P >= min_recall "
    "(torchmetrics' binary_precision_at_fixed_recall, thresholds=None; every case predicted positive "
    "always meets it).  of=threshold: that threshold.",
    "no positives: NaN (torchmetrics: 0).",
    params=(_rate("min_recall", "the smallest recall allowed", 0.9), _OF),
    ties=_TIE_POINT,
    compute="perfeval.measures.operating:pre_at_rec",
    per_group="perfeval.measures.operating:pre_at_rec_groups",
    at_param=True,
)
_binary(
    "REC_AT_PRE",
    "recall at a precision",
    ("recall_at_precision", "binary_recall_at_fixed_precision", "recall_at_fixed_precision"),
    "the highest recall TP / P over the thresholds whose precision TP / (TP + FP) >= min_precision "
    "(torchmetrics' binary_recall_at_fixed_precision, thresholds=None; nothing predicted positive has no "
    "precision and is no candidate).  of=threshold: that threshold.",
    "no positives: NaN; no threshold reaches precision >= min_precision: NaN (torchmetrics: recall 0, "
    "threshold NaN; and recall 0 with threshold NaN also where the best recall is 0).",
    params=(_rate("min_precision", "the smallest precision allowed", 0.9), _OF),
    ties=_TIE_POINT,
    compute="perfeval.measures.operating:rec_at_pre",
    per_group="perfeval.measures.operating:rec_at_pre_groups",
    at_param=True,
)
_binary(
    "PAUC",
    "partial area under the ROC curve",
    ("partial_auc", "partial_roc_auc"),
    "the area under the ROC curve over FPR in [lo, hi] (focus=fpr; pROC's partial.auc with "
    "partial.auc.focus='specificity' over specificity [1 - hi, 1 - lo]), or, focus=tpr, the area between "
    "the curve and the line FPR = 1 over TPR in [lo, hi] (pROC's partial.auc.focus='sensitivity'); the "
    "curve's ends at lo and hi interpolated on it.  correct=mcclish: McClish's standardised form "
    "(1 + (area - min) / (max - min)) / 2, min the chance line's area over the range, max the range's "
    "width (pROC's partial.auc.correct=TRUE; on FPR [0, hi] scikit-learn's roc_auc_score(max_fpr=hi)).",
    "no positives or no negatives: NaN; lo >= hi: refused.  Below the chance line over the range, "
    "correct=mcclish is below 0.5 (scikit-learn's number; pROC gives NA with a warning there unless "
    "allow.invalid.partial.auc.correct=TRUE): 0.5 is chance, not the least value.",
    params=(
        Param(
            "hi",
            0.1,
            "the upper end of the range (an FPR, or a TPR with focus=tpr)",
            low=0,
            high=1,
            low_open=True,
        ),
        Param("lo", 0.0, "the lower end of the range, < hi", low=0, high=1, high_open=True),
        Param(
            "focus",
            "fpr",
            "the axis of the range: fpr (specificity, in pROC) or tpr (sensitivity)",
            choices=("fpr", "tpr"),
        ),
        Param(
            "correct",
            "raw",
            "raw (the area) or mcclish (McClish's standardised form)",
            choices=("raw", "mcclish"),
        ),
    ),
    ties="a tie of positives and negatives is a straight segment of the curve (the chord: the expected "
    "curve over random orders of its cases), as in scikit-learn's max_fpr and pROC's partial.auc.",
    compute="perfeval.measures.operating:pauc",
    per_group="perfeval.measures.operating:pauc_groups",
    at_param=True,
    tie_bounds="orders",
    check="perfeval.measures.vocabulary:pauc_range",
)
_TIE_CHOICE = (
    "only thresholds at distinct scores are achievable (a tie is never split), and +inf (nothing "
    "predicted positive); among thresholds of equal best value (equal in float64), the highest (the "
    "fewest cases predicted positive).  pROC's coords(x='best') returns every tied threshold, each the "
    "midpoint between two distinct scores: the same operating points, other numbers."
)
_binary(
    "YOUDEN",
    "Youden's J at its best threshold",
    ("youden_index", "youden_j"),
    "the highest J = TPR - FPR (sensitivity + specificity - 1) over the thresholds (the point of pROC's "
    "coords(x='best', best.method='youden'), whose 'youden' value is J + 1, sensitivity + specificity).  "
    "of=threshold: that threshold.",
    "no positives or no negatives: NaN.",
    params=(_OF,),
    ties=_TIE_CHOICE,
    compute="perfeval.measures.operating:youden",
    per_group="perfeval.measures.operating:youden_groups",
)
_binary(
    "TOPLEFT",
    "distance of the ROC point closest to (0, 1)",
    ("closest_topleft", "closest_to_top_left"),
    "the least distance sqrt(FPR^2 + (1 - TPR)^2) of an operating point to the corner (0, 1) "
    "(the point of pROC's coords(x='best', best.method='closest.topleft'), whose 'closest.topleft' "
    "value is the squared distance FPR^2 + (1 - TPR)^2).  of=threshold: that point's threshold.",
    "no positives or no negatives: NaN.",
    params=(_OF,),
    direction="lower",
    ties=_TIE_CHOICE,
    compute="perfeval.measures.operating:topleft",
    per_group="perfeval.measures.operating:topleft_groups",
)
_binary(
    "BEST_FBETA",
    "F-beta at its best threshold",
    ("max_fbeta", "best_f_beta"),
    "the highest F-beta = (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP) over the thresholds "
    "(FBETA at each; nothing predicted positive: 0).  of=threshold: that threshold.",
    "no positives: NaN.",
    params=(Param("beta", 1.0, "weight of recall relative to precision", low=0), _OF),
    ties=_TIE_CHOICE,
    compute="perfeval.measures.operating:best_fbeta",
    per_group="perfeval.measures.operating:best_fbeta_groups",
    at_param=True,
)
_binary(
    "BEST_MCC",
    "Matthews correlation at its best threshold",
    ("max_mcc",),
    "the highest MCC = (TP TN - FP FN) / sqrt((TP + FP) (TP + FN) (TN + FP) (TN + FN)) over the "
    "thresholds where it is defined (something and not everything predicted positive; scikit-learn's "
    "matthews_corrcoef gives 0 at the others).  of=threshold: that threshold.",
    "no positives or no negatives, or every case at one score (no threshold predicts some cases "
    "positive and not all): NaN.",
    params=(_OF,),
    ties=_TIE_CHOICE,
    compute="perfeval.measures.operating:best_mcc",
    per_group="perfeval.measures.operating:best_mcc_groups",
)


def least_cost_costs(params: dict) -> str | None:
    """LEAST_COST's costs: not every one 0 (Measure.check; each is >= 0 by its domain)."""
    if any(float(params[k]) != 0 for k in ("fn", "fp", "tp", "tn")):
        return None
    return "every cost is 0 (fn, fp, tp, tn): every threshold costs 0, so none is the cheapest"


_binary(
    "LEAST_COST",
    "total cost at the cheapest threshold",
    ("min_cost", "least_cost_threshold"),
    "the least total cost tp TP + fn FN + fp FP + tn TN (CST at each threshold, the costs a case) over "
    "the thresholds, nothing predicted positive among them.  of=threshold: that threshold.",
    "no data: NaN.",
    params=(
        Param("fn", 1.0, "cost of a false negative", low=0),
        Param("fp", 1.0, "cost of a false positive", low=0),
        Param(
            "tp",
            0.0,
            "cost of a true positive (a benefit b of one is a cost b of a false negative: fn+b, the "
            "same threshold)",
            low=0,
        ),
        Param("tn", 0.0, "cost of a true negative (a benefit b of one: fp+b)", low=0),
        _OF,
    ),
    direction="lower",
    ties=_TIE_CHOICE,
    compute="perfeval.measures.operating:least_cost",
    per_group="perfeval.measures.operating:least_cost_groups",
    check="perfeval.measures.vocabulary:least_cost_costs",
)

# -- part "calib" (issue 33): calibration ------------------------------------------------------------
_CAL_BINS = Param(
    "bins",
    "width",
    "width: n_bins equal bins of [0, 1] (the last closed: a score of 1 is in it); mass: edges at the "
    "weighted quantiles k/n_bins over the distinct scores (a tie never split between bins)",
    choices=("width", "mass"),
)
_CAL_N_BINS = Param(
    "n_bins", 15, "the number of bins (torchmetrics' default, 15)", low=1, high=1e6, integer=True
)
_CAL_NORM = Param(
    "norm",
    "l1",
    "l1: sum over the bins of weight share x |positives' share - mean score|; l2: the root of the sum of "
    "weight share x squared gap; max: the largest gap over the non-empty bins (MCE)",
    choices=("l1", "l2", "max"),
)
_CAL_DEBIASED = Param(
    "debiased",
    "no",
    "yes: Kumar, Liang & Ma's (2019) debiased L2 estimator (norm=l2 only; whole-number weights)",
    choices=("no", "yes"),
)
_CAL_FORM = Param(
    "form",
    "corp",
    "corp: the CORP decomposition (Dimitriadis, Gneiting & Jordan 2021: the PAV recalibration); "
    "murphy: Murphy's (1973) over the distinct scores",
    choices=("corp", "murphy"),
)
_CAL_TIES = "none needed: a tie (one distinct score) is in one bin, whole."
_CAL_EDGE = "no case: NaN; a score outside [0, 1]: NaN (the scores must be probabilities)."
_BRIER_IDENTITY = (
    "BS = MCB - DSC + UNC (BRIER; in both forms, checked to 1e-12 in the tests).  murphy: REL = sum over "
    "the distinct scores s of n_s (s - o_s)^2 / n, RES = sum of n_s (o_s - o)^2 / n, o_s the share of "
    "positives at s, o overall; corp: c the weighted isotonic (PAV) regression of o_s on s (the ties "
    "pooled first), MCB = BS(s) - BS(c), DSC = BS(o) - BS(c).  Murphy's names brier_reliability, "
    "brier_rel, brier_resolution, brier_res are no aliases (an alias means the default form, CORP's: "
    "another number): they are refused, naming brier_mcb:form=murphy or brier_dsc:form=murphy."
)


def ece_debiased(params: dict) -> str | None:
    """ECE's debiased form is of the L2 norm (Measure.check: refused when the spec is read)."""
    if params["debiased"] == "yes" and params["norm"] != "l2":
        return (
            "the debiased form is of the L2 norm (Kumar, Liang & Ma 2019): give norm=l2 with debiased=yes, "
            f"got norm={params['norm']}"
        )
    return None


_binary(
    "ECE",
    "expected calibration error (binned)",
    ("expected_calibration_error", "binary_calibration_error", "calibration_error"),
    "the binned calibration error of the positive class's probability: over bins of the scores (bins, "
    "n_bins), each bin's gap |share of positives - mean score|, combined by norm (l1: weighted by the "
    "bin's share of the weight; l2: the root of the weighted mean square; max: the largest).  "
    "torchmetrics' binary_calibration_error(n_bins, norm) with bins=width, except that torchmetrics "
    "puts a score of exactly 1.0 into an extra bin of its own (torchmetrics#3510; here in the last bin) "
    "and applies a sigmoid to scores outside [0, 1] (here: NaN); debiased=yes: minus each bin's "
    "w_b o_b (1 - o_b) / (n_b - 1) before the root, clipped at 0 (torchmetrics' debias=True, Kumar et "
    "al.'s estimator; a bin of one case gets no correction).",
    _CAL_EDGE + "  debiased=yes with another norm than l2: refused when the spec is read (the debiased form "
    "is of the L2 norm only: give norm=l2); debiased=yes with fractional weights: an error.",
    params=(_CAL_BINS, _CAL_N_BINS, _CAL_NORM, _CAL_DEBIASED),
    direction="lower",
    ties=_CAL_TIES,
    check="perfeval.measures.vocabulary:ece_debiased",
    compute="perfeval.measures.calibration:ece",
    per_group="perfeval.measures.calibration:ece_groups",
)
_binary(
    "MCE",
    "maximum calibration error (binned)",
    ("max_calibration_error",),
    "ECE with norm=max: the largest gap |share of positives - mean score| over the non-empty bins "
    "(torchmetrics' norm='max', netcal's MCE), the same bins as ECE.",
    _CAL_EDGE,
    params=(_CAL_BINS, _CAL_N_BINS),
    direction="lower",
    ties=_CAL_TIES,
    compute="perfeval.measures.calibration:mce",
    per_group="perfeval.measures.calibration:mce_groups",
)
_binary(
    "BRIER_MCB",
    "Brier score's miscalibration (form=murphy: Murphy's reliability)",
    ("mcb", "miscalibration"),
    "the miscalibration part of the Brier score: " + _BRIER_IDENTITY,
    _CAL_EDGE,
    params=(_CAL_FORM,),
    direction="lower",
    ties="none needed: the cases of one distinct score are one forecast.",
    compute="perfeval.measures.calibration:brier_mcb",
    per_group="perfeval.measures.calibration:brier_mcb_groups",
)
_binary(
    "BRIER_DSC",
    "Brier score's discrimination (form=murphy: Murphy's resolution)",
    ("dsc", "discrimination"),
    "the discrimination part of the Brier score: " + _BRIER_IDENTITY + "  It reads only the order of "
    "the scores (the PAV fit; murphy: the distinct scores), so any scores have it (a decision function's "
    "too).",
    "no case: NaN.",
    params=(_CAL_FORM,),
    direction="higher",
    ties="none needed: the cases of one distinct score are one forecast.",
    compute="perfeval.measures.calibration:brier_dsc",
    per_group="perfeval.measures.calibration:brier_dsc_groups",
)
_binary(
    "BRIER_UNC",
    "Brier score's uncertainty",
    ("brier_uncertainty", "brier_unc"),
    "o (1 - o), o the share of positives: the Brier score of always forecasting o (the same in both "
    "forms of the decomposition; a property of the targets, whatever the scores).",
    "no case: NaN.",
    params=(),
    direction="none",
    ties="none needed.",
    compute="perfeval.measures.calibration:brier_unc",
    per_group="perfeval.measures.calibration:brier_unc_groups",
)
_CAL_FIT_EDGE = (
    "no case, one class only, or a score of 0, 1 or outside (0, 1) (no logit): NaN; the slope and the "
    "joint intercept also when the scores separate the classes or are all equal (no finite maximum "
    "likelihood)."
)
_binary(
    "CAL_SLOPE",
    "calibration slope (logistic recalibration)",
    ("calibration_slope",),
    "b of the logistic regression logit P(y = 1) = a + b logit(score), by maximum likelihood (Newton "
    "over the distinct scores, to full precision): 1 when calibrated, below 1 when the scores are too "
    "extreme (rms::val.prob's Slope; statsmodels' GLM Binomial of y on logit(score)).",
    _CAL_FIT_EDGE,
    params=(),
    direction="none",
    ties="none needed: the cases of one distinct score share one logit.",
    compute="perfeval.measures.calibration:cal_slope",
    per_group="perfeval.measures.calibration:cal_slope_groups",
)
_binary(
    "CAL_INTERCEPT",
    "calibration intercept (logistic recalibration)",
    ("calibration_intercept", "citl", "calibration_in_the_large"),
    "fit=offset: a of logit P(y = 1) = a + logit(score), the slope fixed at 1 (calibration-in-the-large; "
    "CalibrationCurves' val.prob.ci.2 'Calibration intercept', glm(y ~ offset(logit(p)))); fit=joint: "
    "a of the fit with the slope, logit P(y = 1) = a + b logit(score) (rms::val.prob's 'Intercept').  0 "
    "when calibrated in the large; the two differ unless the slope is 1.",
    _CAL_FIT_EDGE,
    params=(
        Param(
            "fit",
            "offset",
            "offset: the slope fixed at 1 (calibration-in-the-large); joint: fitted with the slope",
            choices=("offset", "joint"),
        ),
    ),
    direction="none",
    ties="none needed: the cases of one distinct score share one logit.",
    compute="perfeval.measures.calibration:cal_intercept",
    per_group="perfeval.measures.calibration:cal_intercept_groups",
)
_multiclass(
    "ECE_TOP",
    "top-label expected calibration error",
    ("ece_top", "top_label_ece", "multiclass_calibration_error", "confidence_ece"),
    "Guo et al. (2017): each row's confidence (its maximum probability) against whether its argmax is "
    "the true class, binned and combined as the binary ECE (bins, n_bins, norm, debiased: the same "
    "estimators).  torchmetrics' multiclass_calibration_error(num_classes, n_bins, norm) with "
    "bins=width, except that torchmetrics rounds the confidences to float32 (and bins them against "
    "float32 edges: its values agree to about 1e-6 at best), puts a confidence of exactly 1.0 into an "
    "extra bin of its own (torchmetrics#3510; here in the last bin), scores a row tied at its maximum "
    "by the class torch.max picks (right or wrong whole; here 1/t, below) and applies a softmax to "
    "rows outside [0, 1] (here: NaN).",
    compute="perfeval.measures.calibration:ece_toplabel",
    check="perfeval.measures.vocabulary:ece_debiased",
    params=(_CAL_BINS, _CAL_N_BINS, _CAL_NORM, _CAL_DEBIASED),
    direction="lower",
    ties="a row tied at its maximum among t classes: its confidence is the maximum, and it is right for "
    "1/t of its weight when its true class is one of the t (the expected value over the orders of the "
    "tie, as the argmax measures share it); equal confidences are in one bin, whole.",
    edge="a score outside [0, 1]: NaN, and the report says which; no case: NaN; debiased=yes with another "
    "norm than l2: refused when the spec is read (the debiased form is of the L2 norm only: give norm=l2); "
    "debiased=yes with fractional weights: an error.",
)
_multiclass(
    "ECE_CW",
    "class-wise expected calibration error",
    ("ece_cw", "classwise_ece", "ece_classwise"),
    "Kull et al. (2019): each class's probability column against the rest (every case; positive when "
    "of that class) scored by the binary ECE with the same bins and norm (no debiased form here); the "
    "mean over the K classes (each class's value in the report).",
    compute="perfeval.measures.calibration:ece_classwise",
    params=(_CAL_BINS, _CAL_N_BINS, _CAL_NORM),
    direction="lower",
    ties="none needed: a tie (one distinct score of a column) is in one bin, whole.",
    edge="a score outside [0, 1]: NaN, and the report says which; no case: NaN.",
    tie_bounds="free",
    tie_bounds_doc=_FREE_CLASS,
)


# -- part "reg-more" (issue 33): the D^2 scores of scikit-learn, the fraction of a loss explained
# against the best constant prediction (finished from a RegressionSummary that keeps the targets) ----
_D2_TIES = (
    "none needed: each row is scored by its own prediction; the constant prediction (the targets' "
    "quantile) is scikit-learn's averaged inverted CDF, its cumulative weights summed in the order of "
    "the targets (then of the weights), so it does not depend on the rows' order."
)
_regression(
    "D2_PINBALL",
    "D^2 pinball score (fraction of pinball loss explained)",
    ("d2_pinball_score", "d2_pinball"),
    "1 - L_alpha(y, yhat) / L_alpha(y, q): L_alpha the weighted mean pinball loss (PINBALL) and q the "
    "targets' weighted alpha-quantile, scikit-learn's rule (_weighted_percentile(average=True): the first "
    "target whose cumulative weight reaches alpha times the total, or the mean of it and the next when "
    "it reaches it within float64's eps).  Both losses exact sums (each row's residual rounded once), "
    "the ratio rounded once: scikit-learn's d2_pinball_score.  Keeps every target (sorted, with its "
    "weight).",
    compute="perfeval.measures.regression:d2_pinball",
    ties=_D2_TIES,
    params=(Param("alpha", 0.5, "the quantile the prediction aims at", low=0, high=1),),
    direction="higher",
    edge="the quantile's own loss is 0 (every target equal, or alpha 0 or 1, where the quantile is the "
    "least or the greatest target): NaN, 0/0 or -inf (scikit-learn's d2_pinball_score gives 1 for a "
    "perfect prediction, else 0).  No case: NaN.",
)
_regression(
    "D2_AE",
    "D^2 absolute error score (fraction of absolute error explained)",
    ("d2_absolute_error_score", "d2_absolute_error", "d2_ae_score"),
    "1 - sum_i w_i |y_i - yhat_i| / sum_i w_i |y_i - m|, m the targets' weighted median "
    "(scikit-learn's rule, as D2_PINBALL's quantile at alpha 0.5): D2_PINBALL:alpha=0.5, scikit-learn's "
    "d2_absolute_error_score.  Keeps every target (sorted, with its weight).",
    compute="perfeval.measures.regression:d2_absolute_error",
    ties=_D2_TIES,
    direction="higher",
    edge="every target equal: NaN, 0/0 or -inf (scikit-learn's d2_absolute_error_score gives 1 for a "
    "perfect prediction, else 0).  No case: NaN.",
)
_regression(
    "D2_TWEEDIE",
    "D^2 Tweedie score (fraction of Tweedie deviance explained)",
    ("d2_tweedie_score", "d2_tweedie"),
    "1 - D_p(y, yhat) / D_p(y, ybar): D_p the mean Tweedie deviance of power p (TWEEDIE_DEV) and ybar "
    "the targets' weighted mean (correctly rounded); power 0 is R2 (the sums around the mean exact), "
    "another power sums each row's deviance exactly (keeping every target, sorted, with its weight), "
    "the ratio rounded once: scikit-learn's d2_tweedie_score.  Each row's deviance is scikit-learn's "
    "formula in float64: for targets close to their mean and far from 0 its terms nearly cancel, and "
    "the value keeps fewer digits (as scikit-learn's, whose mean may differ from this one in its last "
    "bit).",
    compute="perfeval.measures.regression:d2_tweedie",
    ties=_D2_TIES,
    params=(Param("power", 0.0, "the Tweedie power (<= 0 or >= 1)"),),
    direction="higher",
    edge="every target equal: NaN, 0/0 or -inf (scikit-learn's d2_tweedie_score raises "
    "ZeroDivisionError).  A row outside the power's domain (as TWEEDIE_DEV), or a power < 0 and a "
    "mean of the targets <= 0 (which has no deviance): NaN, and why.  A row's deviance (of its "
    "prediction, or of the targets' mean) with a step below float64's normal range that lost bits the "
    "row needs, or beyond its range (as TWEEDIE_DEV): NaN, and why (D^2 does not change with the "
    "data's scale).  0 < power < 1: refused.  No case: NaN.",
    products="always",
)
# -- issue 34: slices (docs/slices.md) -------------------------------------------------------------------
_binary(
    "SELRATE",
    "selection rate at a threshold",
    ("selection_rate", "sel_rate", "predicted_positive_rate"),
    "(TP + FP) / n: the share of the cases (their weight) predicted positive, score >= threshold; "
    "fairlearn's selection_rate (of hard predictions: score the 0/1 predictions with the default "
    "threshold 0.5).  Compared between slices it is demographic parity (Slices.difference).",
    "no data: NaN.",
    direction="none",
    compute="perfeval.measures.threshold:selrate",
    per_group="perfeval.measures.threshold:selrate_groups",
)

# -- part "ci-bias" (issue 33): the intervals of measures biased under resampling say so in their
# entries (docs/statistics.md "Replicates on one side of the estimate"); scikit-learn's max_error,
# mean_squared_log_error and root_mean_squared_log_error as regression measures ---------------------
_BIASED_INTERVALS = (
    "biased under resampling: a bootstrap replicate repeats some cases and leaves others out, so the "
    "rates of positives it compares the scores with (per bin, per score, or recalibrated) are noisier "
    "than the data's, and the calibration error they add to is larger: most replicates, often all, lie "
    "above the value.  perfeval.ci's interval then does not contain the value, or, every replicate "
    "above it, BCa's has none (NaN: its bias correction is infinite); either way the interval says so "
    "(Interval.note, a BootstrapBiasWarning, a line under the table): it is the replicates' spread, not "
    "a range around the value."
)
for _name in ("ECE", "MCE", "BRIER_MCB", "CA1", "CA2", "ECE_TOP", "ECE_CW"):
    REGISTRY.amend(_name, intervals_doc=_BIASED_INTERVALS)
# Murphy's (1973) names of his terms: as aliases they would mean the default form, CORP's, another number
for _name, _term, _spec, _corp in (
    ("brier_reliability", "reliability", "brier_mcb", "miscalibration"),
    ("brier_rel", "reliability", "brier_mcb", "miscalibration"),
    ("brier_resolution", "resolution", "brier_dsc", "discrimination"),
    ("brier_res", "resolution", "brier_dsc", "discrimination"),
):
    REGISTRY.refuse(
        _name,
        f"Murphy's (1973) {_term} is {_spec}:form=murphy ({_spec} alone is CORP's {_corp}, the PAV "
        "recalibration's: another number)",
    )
_regression(
    "MAXERR",
    "max error (largest absolute residual)",
    ("max_error",),
    "max_i |y_i - yhat_i| over the rows of weight > 0: a weight does not scale it (any positive weight "
    "counts the row once; scikit-learn's max_error takes no weights, and one output only).  A maximum: "
    "kept as it is, merged in any order with the same bits.",
    compute="perfeval.measures.regression:max_error",
    products="none",
)
REGISTRY.amend(
    "MAXERR",
    intervals_doc="a replicate's maximum is never above the data's: it is the data's when the row that "
    "holds it is drawn (in about 63% of the replicates: its Poisson(1) draw above 0) and smaller "
    "otherwise, so its interval over all cases ends at the value (its high bound): it says how much the "
    "value rests on a few rows, not where a larger sample's maximum would lie.",
)
_MSLE_EDGE = (
    "a target or a prediction <= -1 (weight > 0): NaN, and how many rows (log1p is no number there; "
    "scikit-learn's mean_squared_log_error raises ValueError).  No case: NaN."
)
_regression(
    "MSLE",
    "mean squared logarithmic error",
    ("mean_squared_log_error", "meansquaredlogerror"),
    "sum_i w_i (log1p(y_i) - log1p(yhat_i))^2 / sum_i w_i: MSE_REG of log(1 + y), scikit-learn's "
    "mean_squared_log_error.  Each row's log1p is numpy's (scikit-learn's: the same bits on one "
    "machine), their difference rounded once, its square times the weight summed exactly (two-product "
    "splitting), the mean rounded once.",
    compute="perfeval.measures.regression:msle",
    edge=_MSLE_EDGE,
    products="always",
)
_regression(
    "RMSLE",
    "root mean squared logarithmic error",
    ("root_mean_squared_log_error",),
    "the square root of MSLE (scikit-learn's root_mean_squared_log_error).",
    compute="perfeval.measures.regression:rmsle",
    edge=_MSLE_EDGE,
    products="always",
)
