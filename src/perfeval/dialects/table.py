"""The dialects: for each tool, which measures it defines and the rules it computes them by.

A dialect is a policy over perfeval's one engine, never a second implementation of a measure: per
measure, the registry measure that computes it and the rules that turn perfeval's definition into
the tool's: how tied scores are ordered (``ties``), fixed parameter values (``params``: linear gain,
clipping), what a query or group without a relevant case counts (``empty``), how groups are
averaged (``aggregate``), whether the tool refuses small queries (``min_size``), and, for the tools
that bin scores, the finisher that reads the tool's thresholds off the exact summary (``finish``).
Each rule carries the sentence ``perfeval explain`` prints.  Versions are those the rules were read
from and the tests check against (tests/test_dialects*.py, tests/oracles/).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from perfeval.measures import get_measure
from perfeval.measures.base import Param

#: what a tie order is called in a sentence
ORDER_TEXT = {
    "perfeval": "tied scores are averaged over every order (expected value; AP/MAP: one threshold per tie)",
    "input": "tied scores ranked in input order (first row first)",
    "reverse": "tied scores ranked in reverse input order (the last row first)",
    "worst": "a tie of a relevant (positive) and a non-relevant case counts against the model",
    "id_desc": "tied scores ranked by document id, descending (strcmp order), as trec_eval sorts",
    "id_asc": "tied scores ranked by document id, ascending, as ir_measures' Judged@k sorts (-score, docid)",
    "numba": "tied scores ranked as numba's argsort orders them: input order up to 15 rows a query, "
    "above that numba's quicksort order (replayed exactly)",
    "unspecified": "tied scores ranked in torch.topk's order, which is unspecified: not reproducible when "
    "a tie mixes relevant and non-relevant cases (perfeval refuses then; see tie bounds)",
}

EMPTY_TEXT = {
    "skip": "a query/group without a relevant case is undefined and left out of the mean",
    "zero": "a query/group without a relevant case counts 0 in the mean",
    "one": "a query/group without a relevant case counts 1 in the mean",
    "error": "a query/group without a relevant case is an error",
}


@dataclass(frozen=True)
class Policy:
    """How one tool computes one measure, as rules over perfeval's engine.

    Attributes
    ----------
    call : str
        The tool's function, as a user writes it (``sklearn.metrics.ndcg_score``).
    measure : str
        The registry measure that computes it (``NDCG``); its parameters come from the user's spec.
    params : tuple of (name, value)
        Parameter values the tool fixes (``("gain", "linear")``); a different explicit value in the
        user's spec is an error.
    ties : str
        The order of tied scores (:data:`ORDER_TEXT`): ``perfeval`` keeps the engine's tie-aware rule.
    empty : {"skip", "zero", "one", "error"}
        What a query or group with no relevant (positive) case counts.
    aggregate : {"mean", "weighted"}
        Over groups: each counts once, or by its size.
    min_size : int
        Queries with fewer cases are refused, as the tool refuses them.
    finish : str
        ``"module:function"`` finishing the measure from the ScoreHistogram with the dialect's options
        (the binning tools), instead of the registry's compute.
    finish_args : tuple of (name, value)
        Fixed keyword arguments of ``finish`` (``("curve", "PR")``).
    grouped : bool
        Whether the tool computes it per group (query) at all.
    exact : str
        How closely perfeval reproduces the tool, as the tests check it: ``"1e-12"``, ``"float32"``
        (the tool sums in float32: about 1e-6), ``"exact"`` (the tool's own bits, its float32
        rounding reproduced).
    weights : bool
        Whether the tool takes case weights (a weighted evaluation of a measure it computes without is
        an error).
    free : tuple of str
        Of ``params``, those the user may set otherwise, as the tool lets them (ranx's ``ndcg_burges``:
        ``gain=exp``).
    one_class : float or None
        The tool's value where perfeval's is undefined because the data (a group) hold one class only
        (torchmetrics: 0), instead of undefined.
    scored_relevant : bool
        A case counts as relevant only when its score is above 0 (torchmetrics' retrieval metrics
        zero the targets of cases scored 0 or less; recall keeps every relevant case in its
        denominator).
    cut_rows : bool
        The measure's cut-off ``k`` keeps each query's top k cases and the measure is taken over them
        alone (torchmetrics' AP@k: the mean precision over the relevant cases found in the top k).
    notes : tuple of str
        Further rules in words (the definition's own differences), for ``explain``.
    reasons : str
        ``"module:function"`` saying, for ``explain``, which of the tool's rules made its value differ
        on these data, with what each touched: ``function(summary, measure, params, options)`` ->
        lines (the operating points: one class, no point meeting the target, float32 rates).
    """

    call: str
    measure: str
    params: tuple[tuple[str, Any], ...] = ()
    ties: str = "perfeval"
    empty: str = "skip"
    aggregate: str = "mean"
    min_size: int = 0
    finish: str = ""
    finish_args: tuple[tuple[str, Any], ...] = ()
    grouped: bool = True
    exact: str = "1e-12"
    weights: bool = False
    free: tuple[str, ...] = ()
    one_class: float | None = None
    scored_relevant: bool = False
    cut_rows: bool = False
    notes: tuple[str, ...] = ()
    #: ``finish`` takes the measure's parameters too (ECE's n_bins and norm), not only the dialect's
    finish_params: bool = False
    reasons: str = ""


@dataclass(frozen=True)
class Dialect:
    """One tool's conventions: its name, the version the rules were read from, its options (the tool's
    own parameter names: ``numBins``, ``num_thresholds``), and a :class:`Policy` per measure it defines
    (keyed by the registry's canonical name).
    """

    name: str
    tool: str
    version: str
    summary: str
    policies: dict[str, Policy]
    options: tuple[Param, ...] = ()
    needs_ids: bool = False
    _unused: list = field(default_factory=list, repr=False, compare=False)

    def defines(self, measure: str) -> bool:
        if self.name == "perf":  # every measure PERF 5.12 has an option for
            return bool(get_measure(measure).perf_options)
        return self.name == "perfeval" or measure in self.policies


_SK = "scikit-learn"
_MEAN_Q = "the mean over queries"

SKLEARN = Dialect(
    "sklearn",
    _SK,
    "1.9",
    "scikit-learn's metrics: tie-aware (half credit, tie-averaged DCG, one AP threshold per tie), linear "
    "gain, a query without relevance counts 0, one-document queries refused",
    {
        "ROC": Policy("sklearn.metrics.roc_auc_score", "ROC", weights=True),
        "PAUC": Policy(
            "sklearn.metrics.roc_auc_score(max_fpr=hi)",
            "PAUC",
            params=(("lo", 0.0), ("focus", "fpr"), ("correct", "mcclish")),
            weights=True,
            notes=(
                "scikit-learn's max_fpr gives McClish's standardised partial AUC over FPR [0, max_fpr], "
                "not the raw area (perfeval's PAUC unless correct=mcclish)",
            ),
        ),
        "AP": Policy("sklearn.metrics.average_precision_score", "AP", empty="zero", weights=True),
        "NDCG": Policy(
            "sklearn.metrics.ndcg_score",
            "NDCG",
            params=(("gain", "linear"),),
            empty="zero",
            min_size=2,
            notes=("gain is the relevance itself (linear), not 2^rel - 1",),
        ),
        "DCG": Policy(
            "sklearn.metrics.dcg_score",
            "DCG",
            params=(("gain", "linear"),),
            min_size=2,  # one document is a 1-D target to scikit-learn, which dcg_score refuses
            notes=("gain is the relevance itself (linear), not 2^rel - 1",),
        ),
        "LOGLOSS": Policy(
            "sklearn.metrics.log_loss",
            "LOGLOSS",
            params=(("eps", 2.220446049250313e-16),),
            weights=True,
        ),
        "BRIER": Policy("sklearn.metrics.brier_score_loss", "BRIER", weights=True),
    },
)

_TREC_NOTE = "gain is the relevance itself (linear); the ideal ranking from every judged case"
TREC_EVAL = Dialect(
    "trec_eval",
    "trec_eval",
    "9.0.8 / 10.0 (pytrec_eval 0.5)",
    "trec_eval's measures: ties broken by document id descending, linear gain, a judged query without "
    "relevant documents counts 0",
    {
        "MAP": Policy("map / map_cut_k", "MAP", ties="id_desc", empty="zero"),
        "AP": Policy("map (per query)", "MAP", ties="id_desc", empty="zero"),
        "NDCG": Policy(
            "ndcg / ndcg_cut_k",
            "NDCG",
            params=(("gain", "linear"),),
            ties="id_desc",
            empty="zero",
            notes=(_TREC_NOTE,),
        ),
        "P": Policy("P_k", "P", ties="id_desc", empty="zero"),
        "R": Policy("recall_k", "R", ties="id_desc", empty="zero"),
        "MRR": Policy("recip_rank", "MRR", ties="id_desc", empty="zero"),
        "RPREC": Policy("Rprec", "RPREC", ties="id_desc", empty="zero"),
        "BPREF": Policy("bpref", "BPREF", ties="id_desc", empty="zero"),
        "SUCCESS": Policy("success_k", "SUCCESS", ties="id_desc", empty="zero"),
        "F": Policy("set_F", "F", ties="id_desc", empty="zero"),
    },
    options=(
        Param(
            "version",
            "9",
            "trec_eval's version: 9 (its v9.0.8 tag, and pytrec_eval) reads scores as float32, 10 as double",
            choices=("9", "10"),
        ),
    ),
    needs_ids=True,
)

RANX = Dialect(
    "ranx",
    "ranx",
    "0.3.21",
    "ranx's metrics: ties in numba's argsort order (input order up to 15 documents a query), linear "
    "gain for ndcg",
    {
        "MAP": Policy("ranx map / map@k", "MAP", ties="numba", empty="zero"),
        "AP": Policy("ranx map (per query)", "MAP", ties="numba", empty="zero"),
        "NDCG": Policy(
            "ranx ndcg / ndcg@k (ndcg_burges: gain=exp)",
            "NDCG",
            params=(("gain", "linear"),),
            ties="numba",
            empty="zero",
            free=("gain",),
            notes=("ranx's ndcg has linear gain (ndcg_burges: 2^rel - 1)",),
        ),
        "P": Policy("ranx precision@k", "P", ties="numba", empty="zero"),
        "R": Policy("ranx recall@k", "R", ties="numba", empty="zero"),
        "MRR": Policy("ranx mrr", "MRR", ties="numba", empty="zero"),
        "RPREC": Policy("ranx r-precision", "RPREC", ties="numba", empty="zero"),
        "SUCCESS": Policy("ranx hit_rate@k", "SUCCESS", ties="numba", empty="zero"),
    },
    options=(
        Param(
            "sorts",
            1,
            "how many times ranx sorted the run: 2 for a Run read from a file or DataFrame "
            "(sorted as it is read) and evaluated with make_comparable=True (sorted again)",
            low=1,
            high=2,
            integer=True,
        ),
    ),
)

#: ir_measures' names of the measures it computes through pytrec_eval (trec_eval's rules)
_IR_CALLS = {
    "MAP": "AP / AP@k",
    "AP": "AP (per query)",
    "NDCG": "nDCG / nDCG@k",
    "P": "P@k",
    "R": "R@k",
    "MRR": "RR",
    "RPREC": "Rprec",
    "BPREF": "Bpref",
    "SUCCESS": "Success@k",
    "F": "SetF",
}
#: ir_measures 0.4 with pytrec_eval (its default provider of every measure here but Judged@k): for
#: judgments and runs only (``perfeval trec --dialect ir_measures``, :func:`perfeval.trec.evaluate`),
#: not in :data:`DIALECTS` (``perfeval eval`` has no documents to judge)
IR_MEASURES = Dialect(
    "ir_measures",
    "ir_measures",
    "0.4.3 (with pytrec_eval 0.5)",
    "ir_measures' measures: trec_eval's through pytrec_eval (ties by document id descending, linear "
    "gain) and its own Judged@k (ties by document id ascending, a negative judgment judged)",
    {
        **{name: replace(p, call=_IR_CALLS[name]) for name, p in TREC_EVAL.policies.items()},
        "JUDGED": Policy("Judged@k", "JUDGED", ties="id_asc", empty="zero"),
    },
)

_TM_THRESHOLDS = Param(
    "thresholds",
    0,
    "torchmetrics' thresholds=: 0 for None (exact), else that many in linspace(0, 1)",
    low=0,
    integer=True,
)
_TM_EMPTY = Param(
    "empty_target_action",
    "neg",
    "torchmetrics' empty_target_action: a query with no relevant case",
    choices=("neg", "pos", "skip", "error"),
)
#: torchmetrics' retrieval metrics zero the targets of cases scored 0 or less
SCORED_TEXT = "a case scored 0 or less never counts as relevant (torchmetrics zeroes its target)"
TORCHMETRICS = Dialect(
    "torchmetrics",
    "torchmetrics",
    "1.9",
    "torchmetrics: binary AUROC/AP exact or over thresholds=linspace(0, 1, T) (scores read as logits "
    "when outside [0, 1]; a missing class gives 0); binary and top-label calibration error (a "
    "confidence of 1.0 in an extra bin); the operating points (sensitivity at specificity, ...) with "
    "float32 rates, 0 where no point meets the target; retrieval metrics per query (indexes=), a "
    "query without relevant cases scored by empty_target_action (default 0), cases scored 0 or less never "
    "relevant, ties in torch.topk's order",
    {
        "ROC": Policy(
            "torchmetrics.functional.classification.binary_auroc",
            "ROC",
            finish="perfeval.dialects.binned:torchmetrics_binned",
            finish_args=(("curve", "ROC"),),
            exact="float32",
            one_class=0.0,
        ),
        "AP": Policy(
            "torchmetrics.functional.classification.binary_average_precision",
            "AP",
            finish="perfeval.dialects.binned:torchmetrics_binned",
            finish_args=(("curve", "AP"),),
            exact="float32",
            one_class=0.0,
        ),
        "ECE": Policy(
            "torchmetrics.functional.classification.binary_calibration_error",
            "ECE",
            params=(("bins", "width"),),
            finish="perfeval.measures.calibration:torchmetrics_ece",
            finish_params=True,
            reasons="perfeval.measures.calibration:torchmetrics_reasons",
        ),
        "MCE": Policy(
            "torchmetrics.functional.classification.binary_calibration_error(norm='max')",
            "MCE",
            params=(("bins", "width"),),
            finish="perfeval.measures.calibration:torchmetrics_mce",
            finish_params=True,
            reasons="perfeval.measures.calibration:torchmetrics_reasons",
        ),
        "ECE_TOP": Policy(
            "torchmetrics.functional.classification.multiclass_calibration_error",
            "ECE_TOP",
            params=(("bins", "width"), ("debiased", "no")),
            finish="perfeval.measures.calibration:torchmetrics_ece_top",
            finish_params=True,
            exact="float32",
            notes=(
                "a row tied at its maximum is right or wrong whole by the first class at it "
                "(preds.max(dim=1)); perfeval counts it right for 1/t of the row",
                "a confidence of exactly 1.0 falls in an extra bin of its own (torchmetrics#3510); "
                "perfeval's last bin is closed",
                "the confidences rounded to float32 and binned against float32 edges "
                "torch.linspace(0, 1, n_bins + 1), its sums in float32 (about 1e-6)",
                "a softmax of every row when a score lies outside [0, 1] (perfeval: NaN)",
            ),
        ),
        # the operating points (issue 33): torchmetrics' own float32 numbers (perfeval/dialects/operating.py)
        **{
            name: Policy(
                f"torchmetrics.functional.classification.{call}",
                name,
                finish=f"perfeval.dialects.operating:{name.lower()}",
                finish_params=True,
                grouped=False,
                exact="exact",
                reasons="perfeval.dialects.operating:reasons",
                notes=notes,
            )
            for name, call, notes in (
                (
                    "TPR_AT_FPR",
                    "binary_sensitivity_at_specificity(min_specificity=1 - max_fpr)",
                    ("torchmetrics has no TPR at FPR: its sensitivity at specificity >= 1 - max_fpr",),
                ),
                ("SEN_AT_SPC", "binary_sensitivity_at_specificity", ()),
                ("SPC_AT_SEN", "binary_specificity_at_sensitivity", ()),
                ("PRE_AT_REC", "binary_precision_at_fixed_recall", ()),
                ("REC_AT_PRE", "binary_recall_at_fixed_precision", ()),
            )
        },
        "NDCG": Policy(
            "torchmetrics.retrieval.RetrievalNormalizedDCG",
            "NDCG",
            params=(("gain", "linear"),),
            empty="option",
            exact="float32",
            notes=("gain is the relevance itself (linear)",),
        ),
        "MAP": Policy(
            "torchmetrics.retrieval.RetrievalMAP",
            "MAP",
            ties="unspecified",
            empty="option",
            exact="float32",
            scored_relevant=True,
            cut_rows=True,
            notes=(
                "AP@k is the mean precision over the relevant cases found in the top k (not over all "
                "relevant cases)",
            ),
        ),
        "MRR": Policy(
            "torchmetrics.retrieval.RetrievalMRR",
            "MRR",
            ties="unspecified",
            empty="option",
            exact="float32",
            scored_relevant=True,
        ),
        "P": Policy(
            "torchmetrics.retrieval.RetrievalPrecision",
            "P",
            ties="unspecified",
            empty="option",
            exact="float32",
            scored_relevant=True,
        ),
        "R": Policy(
            "torchmetrics.retrieval.RetrievalRecall",
            "R",
            ties="unspecified",
            empty="option",
            exact="float32",
            scored_relevant=True,
        ),
        "GAUC_UNWEIGHTED": Policy(
            "torchmetrics.retrieval.RetrievalAUROC",
            "GAUC_UNWEIGHTED",
            empty="option",
            exact="float32",
            one_class=0.0,
        ),
    },
    options=(_TM_THRESHOLDS, _TM_EMPTY),
)

SPARK = Dialect(
    "spark",
    "Apache Spark",
    "4.3",
    "Spark's BinaryClassificationEvaluator: distinct scores merged into about numBins thresholds "
    "(default 1000), trapezoids under the ROC and PR curves",
    {
        "ROC": Policy(
            "BinaryClassificationEvaluator(metricName='areaUnderROC')",
            "ROC",
            finish="perfeval.dialects.binned:spark_binned",
            finish_args=(("curve", "ROC"),),
            weights=True,
        ),
        "AP": Policy(
            "BinaryClassificationEvaluator(metricName='areaUnderPR')",
            "AP",
            finish="perfeval.dialects.binned:spark_binned",
            finish_args=(("curve", "PR"),),
            weights=True,
            notes=(
                "the area under the PR curve by trapezoids from (0, first precision), not average precision",
            ),
        ),
    },
    options=(Param("numBins", 1000, "Spark's numBins: 0 for no binning", low=0, integer=True),),
)

KERAS = Dialect(
    "keras",
    "Keras",
    "3.15",
    "keras.metrics.AUC: num_thresholds (200) evenly spaced thresholds, a case positive above one, "
    "Riemann sums (interpolation: trapezoids for ROC, Davis-Goadrich for PR), float32",
    {
        "ROC": Policy(
            "keras.metrics.AUC(curve='ROC')",
            "ROC",
            finish="perfeval.dialects.binned:keras_auc",
            finish_args=(("curve", "ROC"),),
            exact="float32",
            weights=True,
        ),
        "AP": Policy(
            "keras.metrics.AUC(curve='PR')",
            "AP",
            finish="perfeval.dialects.binned:keras_auc",
            finish_args=(("curve", "PR"),),
            exact="float32",
            weights=True,
            notes=("the area under the interpolated PR curve, not average precision",),
        ),
    },
    options=(
        Param("num_thresholds", 200, "Keras' num_thresholds", low=2, integer=True),
        Param(
            "summation_method",
            "interpolation",
            "Keras' summation_method",
            choices=("interpolation", "minoring", "majoring"),
        ),
    ),
)

_NETCAL_CLIP = (
    "every score clipped to [eps, 1 - eps] (eps = 2.2e-16) before it is binned: a score of 0 or 1 "
    "moves by eps, and a score outside [0, 1] is read as eps or 1 - eps (perfeval: NaN, and why)"
)
_NETCAL_EDGES = (
    "bin edges np.linspace(0, 1, n_bins + 1), an ulp off i/n_bins at some edges (a score of 0.3 with "
    "10 bins falls in the bin below); perfeval's edges are i/n_bins exactly"
)
NETCAL = Dialect(
    "netcal",
    "netcal",
    "1.4",
    "netcal's ECE and MCE (equal intervals): scores clipped to [eps, 1 - eps], bins on "
    "np.linspace(0, 1, n_bins + 1); for K classes the top label by np.argmax (the first class of a tied "
    "row), two columns read as a binary problem on the second",
    {
        "ECE": Policy(
            "netcal.metrics.ECE(bins=n_bins).measure(s, y)",
            "ECE",
            params=(("bins", "width"), ("norm", "l1"), ("debiased", "no")),
            finish="perfeval.measures.calibration:netcal_ece",
            finish_params=True,
            reasons="perfeval.measures.calibration:netcal_reasons",
        ),
        "MCE": Policy(
            "netcal.metrics.MCE(bins=n_bins).measure(s, y)",
            "MCE",
            params=(("bins", "width"),),
            finish="perfeval.measures.calibration:netcal_mce",
            finish_params=True,
            reasons="perfeval.measures.calibration:netcal_reasons",
        ),
        "ECE_TOP": Policy(
            "netcal.metrics.ECE(bins=n_bins).measure(S, y)",
            "ECE_TOP",
            params=(("bins", "width"), ("norm", "l1"), ("debiased", "no")),
            finish="perfeval.measures.calibration:netcal_ece_top",
            finish_params=True,
            notes=(
                "a row tied at its maximum is right or wrong whole by the first class at it (np.argmax); "
                "perfeval counts it right for 1/t of the row",
                "targets holding two labels or fewer are a binary problem to netcal: two score columns "
                "give the calibration error of the second column's score, not of the top label; more "
                "than two columns raise (RuntimeError; perfeval: NaN, and why)",
                _NETCAL_EDGES,
                _NETCAL_CLIP,
            ),
        ),
    },
)

_DIN_PAIR = (
    "per user, the share of (clicked, not clicked) pairs the model orders right, a tied pair counting 0 "
    "(its graph's mean(x > 0), x = the clicked item's logit minus the other's), every user once"
)
DIN = Dialect(
    "din",
    "Deep Interest Network (its evaluation code)",
    "zhougr1993/DeepInterestNetwork@9765f96",
    "DIN's code: GAUC as the unweighted mean over users of the pairs ordered right, ties counting 0 "
    "(the paper weights users by impressions); AUC by calc_auc, ties in reverse input order",
    {
        "GAUC": Policy(
            "din/train.py _eval (the graph's mf_auc)",
            "GAUC_UNWEIGHTED",
            ties="worst",
            notes=(_DIN_PAIR, "every user counts once (the paper's GAUC weights users by impressions)"),
        ),
        "GAUC_UNWEIGHTED": Policy(
            "din/train.py _eval (the graph's mf_auc)",
            "GAUC_UNWEIGHTED",
            ties="worst",
            notes=(_DIN_PAIR,),
        ),
        "ROC": Policy(
            "din/train.py calc_auc",
            "ROC",
            ties="reverse",
            one_class=-0.5,
            grouped=False,
            notes=(
                "calc_auc sorts the cases ascending, stably, and walks them one by one: a tied pair counts "
                "1 when the positive comes later in the input, else 0; one class gives -0.5",
            ),
        ),
    },
)

PERF = Dialect(
    "perf",
    "PERF 5.12 (the classic perf command)",
    "5.12",
    "PERF 5.12's numbers: float32 scores and targets, its quirks and 80-bit arithmetic, unrounded",
    {},  # every measure with a PERF option: see perfeval.dialects.perf
)

PERFEVAL = Dialect(
    "perfeval",
    "perfeval",
    "this version",
    "perfeval's own rules: tie-aware everywhere, float64, exp gain",
    {},
)

DIALECTS: dict[str, Dialect] = {
    d.name: d for d in (PERFEVAL, PERF, SKLEARN, TREC_EVAL, RANX, TORCHMETRICS, NETCAL, SPARK, KERAS, DIN)
}
