"""The measures of PERF 5.12, registered in PERF's print order.

Each entry's text is the reference documentation (``perfeval list-measures --long`` and
docs/measures.md are generated from it).  "Modern" below means the float64 ``compute`` function of
the registry; "classic" means what the ``perf`` command prints (float32 input, x87 arithmetic, the
original's quicksort and quirks, see docs/compatibility.md).
"""

from __future__ import annotations

from perfeval.measures.base import REGISTRY, Direction, Measure, Param

_THR = Param("threshold", 0.5, "a case with score >= threshold is predicted positive", infinite=True)
_TIE_THR = "none needed: every case with the same score is on the same side of the threshold."
_THR_PERF = (
    "classic prints it in three sections: at -t (default 0.5) or -percent, at freq_thresh and "
    "at max_acc_thresh; counts use >= threshold; denominators carry +1e-10."
)


def _threshold(
    name: str,
    title: str,
    opts: tuple[str, ...],
    aliases: tuple[str, ...],
    formula: str,
    edge: str,
    direction: Direction = "higher",
    *,
    compute: str,
    per_group: str,
) -> None:
    # compute / per_group: literal "module:function" strings, not the functions, because perf -h
    # reads this registry without numpy (measures/base.py says why and who else does)
    REGISTRY.register(
        Measure(
            name=name,
            title=title,
            aliases=aliases,
            perf_options=opts,
            params=(_THR,),
            direction=direction,
            summary="histogram",
            compute=compute,
            per_group=per_group,
            definition=formula,
            ties=_TIE_THR,
            edge_cases=edge,
            perf=_THR_PERF,
        )
    )


_threshold(
    "ACC",
    "accuracy at a threshold",
    ("-acc",),
    ("accuracy",),
    "(TP + TN) / n, with TP, FP, TN, FN counted at the threshold.",
    "no data: undefined (NaN); classic prints 0.",
    compute="perfeval.measures.threshold:acc",
    per_group="perfeval.measures.threshold:acc_groups",
)
_threshold(
    "PPV",
    "positive predictive value",
    ("-ppv",),
    ("positive_predictive_value",),
    "TP / (TP + FP).",
    "nothing predicted positive: undefined (NaN); classic prints 0.",
    compute="perfeval.measures.threshold:ppv",
    per_group="perfeval.measures.threshold:ppv_groups",
)
_threshold(
    "NPV",
    "negative predictive value",
    ("-npv",),
    ("negative_predictive_value",),
    "TN / (TN + FN).",
    "nothing predicted negative: undefined (NaN); classic prints 0.",
    compute="perfeval.measures.threshold:npv",
    per_group="perfeval.measures.threshold:npv_groups",
)
_threshold(
    "SEN",
    "sensitivity (true positive rate)",
    ("-sen",),
    ("sensitivity", "tpr"),
    "TP / (TP + FN).",
    "no positives: undefined (NaN); classic prints 0.",
    compute="perfeval.measures.threshold:sen",
    per_group="perfeval.measures.threshold:sen_groups",
)
_threshold(
    "SPC",
    "specificity (true negative rate)",
    ("-spc",),
    ("specificity", "tnr"),
    "TN / (TN + FP).",
    "no negatives: undefined (NaN); classic prints 0.",
    compute="perfeval.measures.threshold:spc",
    per_group="perfeval.measures.threshold:spc_groups",
)
_threshold(
    "PRE",
    "precision",
    ("-pre",),
    ("precision",),
    "TP / (TP + FP) (the same number as PPV).",
    "nothing predicted positive: undefined (NaN).",
    compute="perfeval.measures.threshold:pre",
    per_group="perfeval.measures.threshold:pre_groups",
)
_threshold(
    "REC",
    "recall",
    ("-rec",),
    ("recall",),
    "TP / (TP + FN) (the same number as SEN).",
    "no positives: undefined (NaN).",
    compute="perfeval.measures.threshold:rec",
    per_group="perfeval.measures.threshold:rec_groups",
)
_threshold(
    "PRF",
    "F1 score",
    ("-prf",),
    ("f1", "f_score"),
    "F1 = 2 TP / (2 TP + FN + FP), scikit-learn's count form (equal to 2PR / (P + R) where both are "
    "defined); the same formula as FBETA at beta = 1, bit for bit.",
    "TP = 0 with an error (FN + FP > 0): 0; TP = FN = FP = 0: undefined (NaN); classic prints 0.",
    compute="perfeval.measures.threshold:prf",
    per_group="perfeval.measures.threshold:prf_groups",
)
_threshold(
    "LFT",
    "lift",
    ("-lft",),
    ("lift",),
    "(TP / P) / ((TP + FP) / n): the positive rate among the predicted positives over the base rate.",
    "no positives: undefined (NaN); classic prints -nan too (no 1e-10 in TP / P).",
    compute="perfeval.measures.threshold:lft",
    per_group="perfeval.measures.threshold:lft_groups",
)

REGISTRY.register(
    Measure(
        name="SAR",
        perf_usage="-sar wacc wroc wrms",
        title="mean of accuracy, ROC area and 1 - RMS",
        aliases=("sar",),
        perf_options=("-sar",),
        params=(
            _THR,
            Param("w_acc", 1.0, "weight of ACC"),
            Param("w_roc", 1.0, "weight of ROC"),
            Param("w_rms", 1.0, "weight of 1 - RMS"),
        ),
        direction="higher",
        summary="histogram",
        compute="perfeval.measures.rank:sar",
        per_group="perfeval.measures.rank:sar_groups",
        definition="(w_acc * ACC + w_roc * ROC + w_rms * (1 - RMS)) / (w_acc + w_roc + w_rms).",
        ties="those of ROC (half credit).",
        edge_cases="one class only: undefined (NaN), because ROC is.",
        perf="classic: `-sar wacc wroc wrms`; printed in each threshold section with the weights; its RMS is "
        "taken before any -cxe target rewrite.",
        tie_bounds="linear",
        tie_bounds_doc="exact: ACC and RMS are order-free, so SAR moves with its ROC part: its value plus "
        "w_roc / (w_acc + w_roc + w_rms) times (ROC's bound - ROC's value).",
    )
)

REGISTRY.register(
    Measure(
        name="CST",
        perf_usage="-cost tp fn fp tn",
        title="cost at a threshold",
        aliases=("cost",),
        perf_options=("-cost",),
        params=(
            _THR,
            Param("tp", 0.0, "cost of a true positive"),
            Param("fn", 0.0, "cost of a false negative"),
            Param("fp", 0.0, "cost of a false positive"),
            Param("tn", 0.0, "cost of a true negative"),
        ),
        direction="lower",
        summary="histogram",
        compute="perfeval.measures.threshold:cst",
        per_group="perfeval.measures.threshold:cst_groups",
        definition="tp * TP + fn * FN + fp * FP + tn * TN (a total, not a mean).",
        ties=_TIE_THR,
        edge_cases="no data: 0.",
        perf="classic: `-cost a b c d` (not -cst); printed in each threshold section. PERF computes a "
        "minimum-cost threshold but never prints it; neither does perf.",
    )
)

REGISTRY.register(
    Measure(
        name="PRB",
        perf_usage="-prb, -break*",
        title="precision/recall break-even point",
        aliases=("break_even", "prbep", "r_precision"),
        perf_options=("-prb", "-break*", "-pr_break*", "-prbreak*"),
        params=(),
        direction="higher",
        summary="histogram",
        compute="perfeval.measures.rank:prb",
        per_group="perfeval.measures.rank:prb_groups",
        definition="the share of positives among the P highest-scored cases, P the number of positives "
        "(precision = recall at that cut; R-precision).",
        ties="a tie group straddling the cut counts its share of positives fractionally "
        "(each member is positives/size of a positive).",
        edge_cases="no positives: undefined (NaN); all positive: 1.",
        perf="classic: -prb, or any option starting with -break, -pr_break or -prbreak.",
        tie_bounds="orders",
        tie_bounds_doc=(
            "exact: only the tie straddling the cut at P matters: of its m positives at most min(m, "
            "its places above the cut) are above it (the maximum), at least max(0, those places - its "
            "negatives) (the minimum)."
        ),
    )
)

REGISTRY.register(
    Measure(
        name="APR",
        title="average precision (PERF's definition)",
        aliases=("average_precision_perf", "ap_perf"),
        perf_options=("-apr",),
        params=(),
        direction="higher",
        summary="histogram",
        compute="perfeval.measures.rank:apr",
        per_group="perfeval.measures.rank:apr_groups",
        definition="the mean, over the positives, of the precision at the rank of each positive; for a tie "
        "group, the expected value of that sum when the group's internal order is uniformly "
        "random (PERF 5.10+).",
        ties="expected precision under a random order inside each group of equal scores (exact, by the "
        "hypergeometric law of the positions of the group's positives).",
        edge_cases="no positives: undefined (NaN, with a warning; classic perf prints 0 as PERF "
        "did); no data: NaN.",
        perf="classic: groups of 50,000 or more tied cases switch to PERF's pessimistic order with its "
        "warning; classic groups ties by exact float32 equality (PERF quirk Q10 included).",
        blocks=True,
        tie_bounds="orders",
        tie_bounds_doc=(
            "exact: the APR of every tie's positives first (the maximum) and last (the minimum); the "
            "value, their expectation over the orders, lies between."
        ),
    )
)

REGISTRY.register(
    Measure(
        name="ROC",
        perf_usage="-roc, -auc",
        title="area under the ROC curve",
        aliases=("auc", "roc_auc", "auroc"),
        perf_options=("-roc", "-auc"),
        params=(),
        direction="higher",
        summary="histogram",
        compute="perfeval.measures.rank:roc",
        per_group="perfeval.measures.rank:roc_groups",
        definition="the trapezoidal area under (false positive rate, true positive rate), sweeping the "
        "threshold from the top; equal to the Mann-Whitney probability that a random positive "
        "scores above a random negative.",
        ties="each group of equal scores is one diagonal segment: a positive/negative pair with equal scores "
        "counts one half.",
        edge_cases="one class only: undefined (NaN); no data: NaN (classic prints 0).",
        perf="classic: the 80-bit sweep of PERF decides the last printed digit on rounding boundaries.",
        tie_bounds="orders",
        tie_bounds_doc=(
            "exact: every tied positive/negative pair won (the maximum) or lost (the minimum): the "
            "value plus or minus half the share of the positive/negative pairs that are tied."
        ),
    )
)

REGISTRY.register(
    Measure(
        name="R50",
        at_param=True,
        title="ROC area up to the 50th negative",
        aliases=("roc50", "roc_n"),
        perf_options=("-r50",),
        params=(Param("negatives", 50, "how many top-ranked negatives count", low=0, low_open=True),),
        direction="higher",
        summary="histogram",
        compute="perfeval.measures.rank:r50",
        per_group="perfeval.measures.rank:r50_groups",
        definition="the ROC area over the top-ranked cases until `negatives` negatives have been passed, "
        "scaled to [0, 1] by negatives / n_negatives (ROC_n of Gribskov and Robinson).",
        ties="half credit, as ROC; the tie group that crosses the limit is cut proportionally.",
        edge_cases="fewer negatives than `negatives`: the whole area, scaled by n_negatives; one class: NaN.",
        perf="classic reproduces PERF: the segment that crosses 50 negatives is dropped and the area is "
        "multiplied by floor(n_negatives / 50), so it is 0 below 50 negatives (quirk Q7).",
        tie_bounds="orders",
        tie_bounds_doc=(
            "exact: every tie's positives first (the maximum) or last (the minimum); the limit of "
            "negatives then cuts an order without ties."
        ),
    )
)

REGISTRY.register(
    Measure(
        name="RKL",
        title="rank of the last positive",
        aliases=("rank_last",),
        perf_options=("-rkl",),
        params=(),
        direction="lower",
        summary="histogram",
        compute="perfeval.measures.rank:rkl",
        per_group="perfeval.measures.rank:rkl_groups",
        definition="the 1-based rank, from the top, of the lowest-scored positive.",
        ties="pessimistic: the rank of the bottom of the tie group holding the lowest positive.",
        edge_cases="one class only: n (as PERF); no data: NaN (classic prints -1).",
        perf="classic prints an integer (`RKL    273`); with -loss (RKL - 1) / (n - 1).",
        blocks=True,
        tie_bounds="orders",
        tie_bounds_doc=(
            "exact: every tie's positives first (the minimum: the rank of the last positive in that "
            "order) or last (the maximum: the bottom of the tie holding the lowest positive, the "
            "value itself, pessimistic)."
        ),
    )
)

REGISTRY.register(
    Measure(
        name="TOP1",
        title="is the top case positive",
        aliases=("top_1",),
        perf_options=("-top1",),
        params=(),
        direction="higher",
        summary="histogram",
        compute="perfeval.measures.rank:top1",
        per_group="perfeval.measures.rank:top1_groups",
        definition="1 if the highest-scored case is positive, else 0.",
        ties="pessimistic: the whole top tie group must be positive.",
        edge_cases="no data: 0.",
        perf="classic: identical.",
        blocks=True,
        tie_bounds="orders",
        tie_bounds_doc=(
            "exact: 1 when the top tie holds a positive (the maximum: positives first), 1 only when "
            "it holds no negative (the minimum: the value itself, pessimistic)."
        ),
    )
)

REGISTRY.register(
    Measure(
        name="TOP10",
        title="is a positive in the top 10",
        aliases=("top_10",),
        perf_options=("-top10",),
        params=(),
        direction="higher",
        summary="histogram",
        compute="perfeval.measures.rank:top10",
        per_group="perfeval.measures.rank:top10_groups",
        definition="1 if one of the 10 highest-scored cases is positive, else 0.",
        ties="pessimistic: 1 only if a positive is in the top 10 in every order of the tied cases "
        "(a tie group's "
        "negatives taken first), as TOP1 needs the whole top tie group positive.",
        edge_cases="no data: 0.",
        perf="classic: PERF's rule, an all-positive tie group reaching into the top 10 (0 for "
        "targets 1, 0 tied "
        "at one score, where the modern value is 1: the positive is in the top 10 in every order).",
        tie_bounds="orders",
        tie_bounds_doc=(
            "exact: 1 when a positive can be among the top 10 (the maximum: every tie's positives "
            "first); the minimum is the value itself (pessimistic: in every order)."
        ),
    )
)

REGISTRY.register(
    Measure(
        name="NTOP",
        perf_usage="-ntop N",
        at_param=True,
        title="positives among the top N",
        aliases=("ntop", "precision_at_n"),
        perf_options=("-ntop",),
        params=(Param("n", 10, "how many top cases", low=0, low_open=True),),
        direction="higher",
        summary="histogram",
        compute="perfeval.measures.rank:ntop",
        per_group="perfeval.measures.rank:ntop_groups",
        definition="(positives among the N highest-scored cases) / N.",
        ties="a tie group straddling the cut counts fractionally.",
        edge_cases="N > n: all cases, still divided by N.",
        perf="classic: label NTOP<floor(N+0.01)>, sums the top trunc(N) positions and divides by the raw N "
        "(PERF's int conversion).",
        tie_bounds="orders",
        tie_bounds_doc=(
            "exact: only the tie straddling the cut at N matters: of its m positives at most min(m, "
            "its places above the cut) are above it (the maximum), at least max(0, those places - its "
            "negatives) (the minimum)."
        ),
    )
)

REGISTRY.register(
    Measure(
        name="SLQ",
        perf_usage="-slq W (or -slacq W)",
        title="SLAC Q-score",
        aliases=("slacq", "slac_q"),
        perf_options=("-slq", "-slacq"),
        params=(Param("bins", 100, "number of equal-width bins over [0, 1]", low=1, integer=True),),
        direction="higher",
        summary="histogram",
        compute="perfeval.measures.probability:slq",
        per_group="perfeval.measures.probability:slq_groups",
        definition="scores are put in equal-width bins over [0, 1]; each bin with x positives and y "
        "negatives "
        "adds (x + y) * (1 - 2w)^2 with w = min(x, y) / (x + y); the total is divided by the "
        "number of cases.",
        ties="none needed (bins).",
        edge_cases="a score outside [0, 1]: undefined (classic drops SLQ with a warning); no data: NaN.",
        perf="classic: `-slq W` with W < 1 is PERF's bin width; W >= 1 is a number of bins (the KDD "
        "Cup FAQ's "
        "`-slq 100`), a documented deviation; scores in bins past the last are ignored, as PERF.",
    )
)

REGISTRY.register(
    Measure(
        name="CXE",
        title="mean cross-entropy in bits",
        aliases=("log_loss_bits", "cross_entropy"),
        perf_options=("-cxe",),
        params=(),
        direction="lower",
        summary="histogram",
        compute="perfeval.measures.probability:cxe",
        per_group="perfeval.measures.probability:cxe_groups",
        definition="mean over cases of -log2(p) for positives and -log2(1 - p) for negatives.",
        ties="none needed.",
        edge_cases="p = 0 for a positive or 1 for a negative: infinite (classic adds 9e99); score outside "
        "[0, 1]: undefined (classic drops it with a warning).",
        perf="classic reproduces PERF's target rewrite (quirk Q6): after CXE, NRM, RMS, CA1 and CA2 see "
        "targets re-labelled against the raw target mean.",
    )
)

REGISTRY.register(
    Measure(
        name="NRM",
        perf_usage="-nrm P (or -norm P)",
        title="L_P norm error",
        aliases=("norm",),
        perf_options=("-nrm", "-norm"),
        params=(Param("p", 2.0, "the exponent P"),),
        direction="lower",
        summary="histogram",
        compute="perfeval.measures.probability:nrm",
        per_group="perfeval.measures.probability:nrm_groups",
        definition="(mean over cases of |target - score|^P)^(1/P); P = 2 is RMS.",
        ties="none needed.",
        edge_cases="P = 0: 1 (as PERF); no data: NaN.",
        perf="classic: uses targets after any -cxe rewrite.",
    )
)

REGISTRY.register(
    Measure(
        name="RMS",
        title="root mean squared error",
        aliases=("rmse", "brier_root"),
        perf_options=("-rms",),
        params=(),
        direction="lower",
        summary="histogram",
        compute="perfeval.measures.probability:rms",
        per_group="perfeval.measures.probability:rms_groups",
        definition="sqrt(mean over cases of (target - score)^2), targets 0/1.",
        ties="none needed.",
        edge_cases="no data: NaN.",
        perf="classic: warns once per data set about scores outside [0, 1]; uses targets after any -cxe "
        "rewrite.",
        blocks=True,
    )
)

REGISTRY.register(
    Measure(
        name="CA1",
        perf_usage="-cal S",
        title="calibration error over 19 overlapping bins",
        aliases=("cal1",),
        perf_options=("-cal",),
        params=(),
        direction="lower",
        summary="histogram",
        compute="perfeval.measures.probability:ca1",
        per_group="perfeval.measures.probability:ca1_groups",
        definition="mean over the 19 bins [0.05 i, 0.05 i + 0.1], i = 0..18, of |positive rate - mean score| "
        "of the cases in the bin (both ends inclusive); an empty bin adds 0.",
        ties="none needed (bins).",
        edge_cases="no data: 0.",
        perf="classic: bin edges in 80-bit arithmetic, so a score exactly on an edge such as 0.25 or 0.5 "
        "falls in the bin that ends there, not the one that starts there.",
    )
)

REGISTRY.register(
    Measure(
        name="CA2",
        perf_usage="-cal S",
        title="calibration error over sliding windows",
        aliases=("cal2",),
        perf_options=("-cal",),
        params=(Param("window", 100, "cases per window (PERF's -cal S)", low=1, integer=True),),
        direction="lower",
        summary="histogram",
        compute="perfeval.measures.probability:ca2",
        per_group="perfeval.measures.probability:ca2_groups",
        definition="mean, over the n - S + 1 windows of S consecutive cases in score order, of "
        "|positive rate - mean score| in the window.",
        ties="modern: a case of a tie group counts positives/size of a positive, so the order inside ties "
        "does not matter; classic: the original's quicksort order inside ties.",
        edge_cases="fewer cases than S: undefined (NaN; classic prints -nan).",
        perf="classic: `-cal S` prints CA1 and CA2; S below 1 is rejected (PERF reads outside its data).",
        tie_bounds="none",
        tie_bounds_doc="not bounded (NaN): a window of S cases can cut several ties and a tie several "
        "windows, so the extremes need not be at the ties' extreme orders (targets 1 0 1 0 scored 0.9 0.9 "
        "0.1 0.1, S = 2: positives first and last both give 0.267, the greatest over the orders is 0.433); "
        "no exact rule per tie is known, and none is sampled.",
    )
)
