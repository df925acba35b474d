"""``perfeval list-measures``: the registry as a table, every definition, or Markdown (docs/measures.md)."""

from __future__ import annotations

from typing import Any

from perfeval.cli.output import table, write
from perfeval.dialects import DIALECTS
from perfeval.measures import list_measures


def _dialects(name: str) -> str:
    """The dialects that define a measure, each with the tool's call (docs/dialects.md)."""
    out = []
    for d in DIALECTS.values():
        if d.name == "perfeval" or not d.defines(name):
            continue
        pol = d.policies.get(name)
        out.append(f"`{d.name}`" + (f" ({pol.call})" if pol is not None else ""))
    return ", ".join(out) or "none"


#: the "Multiclass" section of docs/measures.md: an example that tests/test_doctests.py runs (``__test__``)
MULTICLASS_EXAMPLE = """\
>>> import numpy as np, perfeval
>>> proba = np.array([[.7, .2, .1], [.2, .5, .3], [.1, .3, .6], [.3, .4, .3], [.5, .3, .2]])
>>> y = np.array(["cat", "dog", "bird", "cat", "dog"])
>>> r = perfeval.evaluate(y, proba, classes=["cat", "dog", "bird"], measures=["roc", "ROC_OVO", "BACC"])
>>> r["ROC_OVR:average=macro"], r["ROC_OVO:average=macro"], r["BACC"]
(0.8611111111111112, 0.875, 0.6666666666666666)
>>> with_fish = np.c_[proba, np.zeros(5)]  # a fourth class no case is of
>>> r = perfeval.evaluate(y, with_fish, classes=["cat", "dog", "bird", "fish"], measures=["roc"])
>>> r.results["ROC_OVR:average=macro"].undefined_classes
['fish']
"""

#: the "Multilabel" section of docs/measures.md, run the same way
MULTILABEL_EXAMPLE = """\
>>> import pandas as pd, perfeval
>>> Y = pd.DataFrame({"spam": [1, 0, 1, 0, 1], "promo": [0, 1, 1, 0, 0], "urgent": [0, 0, 0, 0, 0]})
>>> S = pd.DataFrame(
...     {"spam": [.9, .2, .6, .4, .7], "promo": [.3, .8, .4, .5, .1], "urgent": [.2, .1, .5, .1, .2]}
... )
>>> r = perfeval.evaluate(Y, S, measures=["roc", "f1", "lrap"])
>>> r["ROC_ML:average=macro"], r["F_ML:average=macro"], r["LRAP"]
(0.9166666666666667, 0.5, 0.9666666666666667)
>>> r.results["ROC_ML:average=macro"].undefined_classes  # on in no row: no ROC area
['urgent']
>>> r.results["F_ML:average=macro"].undefined_classes  # predicted on once: an F1 of 0
[]
"""

#: the "Regression" section of docs/measures.md, run the same way
REGRESSION_EXAMPLE = """\
>>> import perfeval
>>> y, pred = [3.0, -0.5, 2.0, 7.0, 4.2], [2.5, 0.0, 2.0, 8.0, 4.0]
>>> r = perfeval.evaluate(y, pred, measures=["mae", "rmse", "r2"])
>>> r["MAE"], r["RMSE_REG"], round(r["R2"], 6), r.params["task_from"]
(0.44000000000000006, 0.5549774770204643, 0.94966, 'the regression measure MAE named')
"""

__test__ = {
    "multiclass_example": MULTICLASS_EXAMPLE,
    "multilabel_example": MULTILABEL_EXAMPLE,
    "regression_example": REGRESSION_EXAMPLE,
}

_MULTICLASS_INTRO = [
    "## Multiclass",
    "",
    "With one score column a class (an (n, K) matrix, as `predict_proba` gives it), `evaluate` takes "
    "`classes=` naming the columns in order (without it: a DataFrame's column names, else the sorted "
    "distinct targets when there are exactly K of them) and computes the measures of kind "
    "multiclass below (`ROC_OVR` to `QWK`); a binary name with a multiclass form means it (`roc` is "
    "`ROC_OVR`), its average written in the label. A class absent from the targets is listed as "
    "undefined and left out of the macro and weighted means:",
    "",
    "```python",
    *MULTICLASS_EXAMPLE.rstrip("\n").splitlines(),
    "```",
    "",
]


_MULTILABEL_INTRO = [
    "## Multilabel",
    "",
    "With a 0/1 label matrix as the targets (n rows, K label columns; a DataFrame's column names are "
    "the labels) and one score column a label, `evaluate` computes the measures of kind multilabel "
    "below (`ROC_ML` to `RANKING_LOSS`); a binary name with a multilabel form means it (`roc` is "
    "`ROC_ML`, `f1` is `F_ML`, a score >= threshold on). The score columns are paired with the labels "
    "by name. A label without a value (`ROC_ML`: on in no row, or in every row) is listed as undefined "
    "and left out of the macro and weighted means:",
    "",
    "```python",
    *MULTILABEL_EXAMPLE.rstrip("\n").splitlines(),
    "```",
    "",
]


_REGRESSION_INTRO = [
    "## Regression",
    "",
    "With a real target and one prediction a row, `evaluate` computes the measures of kind regression "
    'below (`MAE` to `TWEEDIE_DEV`), each from exact sums (docs/input.md, "Regression"); `rmse` and '
    "`mse` mean `RMSE_REG` and `MSE_REG` there (on a 0/1 target they are PERF's `RMS` and `BRIER`). A "
    "target is read as a regression target when a regression measure is named, with "
    '`task="regression"` (`--task regression`), or when it holds real values or many whole numbers '
    "and no positive label is named; the report says which:",
    "",
    "```python",
    *REGRESSION_EXAMPLE.rstrip("\n").splitlines(),
    "```",
    "",
]


def _markdown(ms: list, whole: bool = True) -> str:
    """docs/measures.md (``whole``), or only the sections of the measures ``ms``."""
    out = []
    if whole:
        out = [
            "# Measures",
            "",
            "Generated from the registry (`perfeval list-measures --format markdown`).",
            "",
        ]
        out += _MULTICLASS_INTRO + _MULTILABEL_INTRO + _REGRESSION_INTRO
    for m in ms:
        params = (
            [
                "- parameters: "
                + "; ".join(f"`{p.name}` (default {p.default}; {p.domain}): {p.doc}" for p in m.params)
            ]
            if m.params
            else []
        )
        out += [
            f"## {m.name}: {m.title}",
            "",
            f"- aliases: {', '.join(f'`{a}`' for a in m.aliases)}",
            f"- PERF options: {', '.join(f'`{o}`' for o in m.perf_options)}",
            f"- better: {m.direction}" + ("; allowed in `-blocks` mode" if m.blocks else ""),
            *params,
            "",
            m.definition,
            "",
            f"**Ties.** {m.ties}",
            "",
            f"**Edge cases.** {m.edge_cases}",
            "",
            f"**Tie bounds.** {m.tie_bounds_text}",
            "",
            *([f"**Intervals.** {m.intervals_doc}", ""] if m.intervals_doc else []),
            f"**perf compatibility.** {m.perf}",
            "",
            f"**Dialects** (other tools' rules, docs/dialects.md): {_dialects(m.name)}.",
            "",
        ]
    return "\n".join(out)


def _forms(name: str) -> str:
    """The measures ``name`` means on other targets (K classes, K labels, a regression target)."""
    from perfeval.measures.vocabulary import MULTICLASS_OF, MULTILABEL_OF, REGRESSION_OF

    kinds = (
        ("K classes", MULTICLASS_OF),
        ("K labels", MULTILABEL_OF),
        ("a regression target", REGRESSION_OF),
    )
    said = [(what, of[name]) for what, of in kinds if name in of]
    if not said:
        return ""
    means = "; ".join(f"{what}: {form}" for what, form in said)
    return f"\nOn other targets: {means} (`perfeval list-measures {' '.join(f for _, f in said)}`)"


def _named(names: list[str]) -> list:
    """The registry measures of the names given (each once, in their order), and each spelling's
    parameters as given: (measure, label or None).
    """
    from perfeval.measures.spec import parse_measure, split_measures

    out: list = []
    for raw in [n for text in names for n in split_measures(text)]:
        sp = parse_measure(raw)
        label = sp.label if sp.label != sp.measure.name else None
        if all(m is not sp.measure for m, _ in out):
            out.append((sp.measure, label))
    return out


def list_measures_text(long: bool = False, fmt: str = "table", names: list[str] | None = None) -> str:
    """The measures as ``list-measures`` prints them; ``names``: only those, each in full (an unknown
    name: the error of ``-m``, with close matches).
    """
    if names:
        got = _named(names)
        if fmt == "markdown":
            return _markdown([m for m, _ in got], whole=False)
        return (
            "\n\n".join(
                (f"(as given: {label})\n" if label else "")
                + f"{m.doc}\nDialects: {_dialects(m.name)}{_forms(m.name)}"
                for m, label in got
            )
            + "\n"
        )
    ms = list_measures()
    if fmt == "markdown":
        return _markdown(ms)
    if long:
        return "\n\n".join(f"{m.doc}\nDialects: {_dialects(m.name)}" for m in ms) + "\n"
    rows = [["name", "better", "PERF options", "aliases", "title"]]
    rows += [[m.name, m.direction, " ".join(m.perf_options), " ".join(m.aliases), m.title] for m in ms]
    return "\n".join(table(rows, "l")) + "\n"


def run(args: Any) -> int:
    write(list_measures_text(args.long, args.format, args.names))
    return 0
