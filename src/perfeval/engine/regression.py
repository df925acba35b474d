"""The engine's regression task: a real target and a prediction a row, finished from one
:class:`~perfeval.summaries.regression.RegressionSummary` (exact sums; per group, every group's sums
at once).

The door (:func:`regression_task`): a target is a regression target when a regression measure is
named, or ``task="regression"``, or, with no measure named (or only ``rmse``/``mse``, which have a
regression form) and no ``pos_label``, when the target holds real values or many whole numbers
(:func:`perfeval.base.checks.read_targets` says "regression"); the report says so
(``params["task"]``, ``params["task_from"]``).  The measures asked are read for the task once
(:func:`regression_specs`): ``rmse`` (PERF's RMS on a 0/1 target) is RMSE_REG, ``mse`` (BRIER) is
MSE_REG; a measure with no regression form is an error naming the regression measures.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from perfeval import _native
from perfeval.base.checks import ArraySpec, Cases, LabelWords, check, read_targets
from perfeval.engine.report import MeasureResult, Report
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.measures import MeasureSpec, parse_measure
from perfeval.measures.spec import refuse_pending
from perfeval.measures.vocabulary import REGRESSION_DEFAULT, REGRESSION_OF
from perfeval.summaries.ranking import group_codes
from perfeval.summaries.regression import (
    ROW_SUMS,
    SKLEARN_EPS,
    LostBits,
    RegressionSummary,
    deviance_rows,
    grouped_quantiles,
    log_rows,
    lost_reason,
    mape_tm_rows,
    no_percentage,
    ratio,
    row_means,
    row_sums,
    scaled_sums,
)

__all__ = [
    "REGRESSION",
    "TIES_REGRESSION",
    "regression_asked",
    "regression_named",
    "regression_specs",
    "regression_task",
    "fold",
    "check_regression",
    "needs",
    "empty_summary",
    "summary_report",
    "finish_regression",
    "grouped_report",
]

TIES_REGRESSION = "none: each row is scored by its own prediction"

#: the arrays of a regression evaluation: targets and predictions float64 and finite, groups ids
#: (never floats), weights >= 0
REGRESSION = (
    ArraySpec("y_true", "floats", finite=True),
    ArraySpec("y_pred", "floats", finite=True),
    ArraySpec("groups", "ids"),
    ArraySpec("sample_weight", "floats", finite=True, nonneg=True),
)

TASKS = (None, "binary", "regression")


def named_specs(specs: Any) -> list[MeasureSpec] | None:
    """The specs named (None: the default)."""
    from perfeval.engine.finish import DEFAULT_MEASURES, resolve

    if specs is None or specs is DEFAULT_MEASURES:
        return None
    return resolve(specs, 0.5, pending=True)


def regression_named(specs: Any) -> str | None:
    """How a run is a regression because a regression measure is named, in one wording everywhere
    (the first such measure: ``"the regression measure MAE named"``), or None when none is.

    Examples
    --------
    >>> from perfeval.measures.spec import parse_measure
    >>> regression_named([parse_measure("roc"), parse_measure("pinball@0.9"), parse_measure("mae")])
    'the regression measure PINBALL@0.9 named'
    >>> regression_named([parse_measure("roc")]) is None
    True
    """
    label = next((s.label for s in specs or () if s.measure.kind == "regression"), None)
    return None if label is None else f"the regression measure {label} named"


def regression_task(
    y_true: Any, measures: Any, *, task: Any = None, pos_label: Any = None, partitions: Any = None
) -> str | None:
    """How the targets were found to be a regression target, or None (not one): ``task='regression'``,
    :func:`regression_named`'s words (a regression measure named) or the targets' own words
    (``"the target holds 1,234 distinct real values"``).
    """
    if task not in TASKS:
        raise InvalidParameterError(f"`task` must be None, 'binary' or 'regression', got {task!r}")
    if task == "binary":
        return None
    specs = named_specs(measures)
    if task == "regression":
        return "task='regression'"
    named = regression_named(specs)
    if named is not None:
        return named
    if pos_label is not None or partitions:
        return None
    if specs is not None and any(s.measure.name not in REGRESSION_OF for s in specs):
        return None
    try:
        y = np.asarray(y_true)
    except Exception:  # the door says what is wrong with them
        return None
    if y.ndim != 1 or y.dtype.kind not in "iuf" or not len(y):
        return None
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        return None  # the door's line about the missing target
    if bool(np.all((y == 0) | (y == 1))) or bool(np.all((y == -1) | (y == 1))):
        return None
    said = read_targets(y, LabelWords())
    if said.kind != "regression":
        return None
    n = len(np.unique(y))
    real = y.dtype.kind == "f" and not bool(np.all(y == np.floor(y)))
    return regression_words(n, real)


def regression_words(n: int, real: bool) -> str:
    """How :func:`regression_task` says a target of ``n`` distinct values (``real``: one is not a
    whole number) reads as a regression target.
    """
    return f"the target holds {n:,} distinct {'real values' if real else 'whole numbers'}"


def regression_asked(measures: Any, task: Any = None) -> str | None:
    """How a backend that cannot look at every target first (a stream, Dask, a Metric) was asked for
    a regression: ``task="regression"``, or a regression measure named; None otherwise (binary or
    per-query measures: such a backend does not guess the task from its first rows).
    """
    if task not in TASKS:
        raise InvalidParameterError(f"`task` must be None, 'binary' or 'regression', got {task!r}")
    if task == "regression":
        return "task='regression'"
    if task is None:
        return regression_named(named_specs(measures))
    return None


def fold(summary: RegressionSummary, cases: Cases) -> RegressionSummary:
    """``summary`` with checked rows added (a chunk, a batch, a partition)."""
    try:
        return summary.folded(np.asarray(cases.y, dtype=np.float64), cases.s, cases.w)
    except OverflowError as e:
        raise InvalidDataError(str(e)) from None


def regression_specs(specs: list[MeasureSpec] | None) -> list[MeasureSpec]:
    """The measures asked (None: the default), read for a regression target: ``rmse`` and ``mse``
    (RMS and BRIER on a 0/1 target) are RMSE_REG and MSE_REG; any other measure that is not a
    regression one is an error naming them.
    """
    if specs is None:
        return [parse_measure(n) for n in REGRESSION_DEFAULT]
    out = []
    # what made the target a regression target, said when a measure of another kind is refused: a
    # regression measure named beside it, else the task asked (real values with no measure named
    # never reach here with a binary one)
    why = regression_named(specs) or "the task is regression"
    for s in specs:
        m = s.measure
        if s.pending:
            refuse_pending([s])
        if m.kind != "regression":
            target = REGRESSION_OF.get(m.name)
            given = {k for k in s._set if k != "threshold"}
            if target is None or given:
                from perfeval.measures.base import REGISTRY

                every = [x.name for x in REGISTRY if x.kind == "regression"]
                raise InvalidParameterError(
                    f"{s.label} is a {m.kind} measure and the target is a regression target ({why}: one "
                    f"run reads its target one way); the regression measures: {', '.join(every)} (rmse and "
                    "mse mean RMSE_REG and MSE_REG here)"
                )
            s = parse_measure(target)
        if s.measure.name in ("TWEEDIE_DEV", "D2_TWEEDIE"):
            from perfeval.measures.regression import tweedie_power_ok

            if not tweedie_power_ok(float(s.kwargs["power"])):
                raise InvalidParameterError(
                    f"{s.label} needs `power` <= 0 or >= 1 (no Tweedie distribution has 0 < power < 1), "
                    f"got {s.kwargs['power']!r}"
                )
        out.append(s)
    labels = [s.label for s in out]
    dup = {lab for lab in labels if labels.count(lab) > 1}
    if dup:
        raise InvalidParameterError(f"measure named twice (as its regression form): {sorted(dup)[0]}")
    return out


def check_regression(
    y_true: Any,
    y_pred: Any,
    groups: Any = None,
    sample_weight: Any = None,
    *,
    names: tuple = (),
    keep_zero: bool = False,
    weight_name: str | None = None,
) -> Cases:
    """The check stage of a regression evaluation (:data:`REGRESSION`): the targets and predictions
    float64 and finite (the first non-finite one named by its index), ids, weights; the rows of
    weight 0 dropped (``keep_zero``: kept, for a tool that counts them).  ``names``: the arrays'
    keywords in the caller's words; ``weight_name``: the weights' keyword as the user typed it.
    """
    from collections.abc import Mapping

    if isinstance(y_pred, Mapping):  # several models: not one array
        raise InvalidParameterError(
            f"`{names[1] if len(names) > 1 else 'y_pred'}` is a mapping of {len(y_pred)} models; evaluate "
            "takes one prediction a row: one call a model ({name: perfeval.evaluate(y, p, ...) for name, "
            "p in models.items()}), or perfeval.stats.compare_models(y, models, baseline) for their "
            "differences"
        )
    specs: tuple[ArraySpec, ...] = REGRESSION
    if names:
        specs = (
            tuple(a._replace(name=n) for a, n in zip(REGRESSION, names, strict=False))
            + REGRESSION[len(names) :]
        )
    try:
        return check(
            y_true, y_pred, groups, sample_weight, specs=specs, keep_zero=keep_zero, weight_name=weight_name
        )
    except InvalidDataError as e:
        if "y_true" in str(e) and ("label" in str(e) or "string" in str(e)):
            raise InvalidDataError(f"a regression target must hold numbers: {e}") from None
        raise


#: the measures that keep the targets' distribution (D2_TWEEDIE of a power other than 0 too)
_YDIST = ("D2_PINBALL", "D2_AE")


def needs(specs: list[MeasureSpec]) -> dict[str, Any]:
    """What a summary for the measures ``specs`` keeps: the Tweedie powers, the residuals, the
    targets (the D^2 scores), torchmetrics' MAPE sum, the squared log errors (MSLE, RMSLE), the
    largest absolute residual (MAXERR).
    """
    powers = set()
    ydist = False
    for s in specs:
        name = s.measure.name
        if name == "POISSON_DEV":
            powers.add(1.0)
        elif name == "GAMMA_DEV":
            powers.add(2.0)
        elif name == "TWEEDIE_DEV":
            powers.add(float(s.kwargs["power"]))
        elif name == "D2_TWEEDIE" and float(s.kwargs["power"]) != 0:
            powers.add(float(s.kwargs["power"]))
            ydist = True
        elif name in _YDIST:
            ydist = True
    return {
        "powers": tuple(sorted(powers)),
        "medae": any(s.measure.name == "MEDAE" for s in specs),
        "ydist": ydist,
        "mape_tm": any(s.measure.name == "MAPE" and s.kwargs.get("eps") == "torchmetrics" for s in specs),
        "msle": any(s.measure.name in ("MSLE", "RMSLE") for s in specs),
        "maxerr": any(s.measure.name == "MAXERR" for s in specs),
    }


def empty_summary(specs: list[MeasureSpec]) -> RegressionSummary:
    """The summary of no rows for the measures ``specs`` (to fold chunks and batches into)."""
    return RegressionSummary.empty(**needs(specs))


def _summary(
    y: np.ndarray, s: np.ndarray, w: np.ndarray | None, specs: list[MeasureSpec]
) -> RegressionSummary:
    try:
        return RegressionSummary.from_checked(y, s, w, **needs(specs))
    except OverflowError as e:
        raise InvalidDataError(str(e)) from None


def summary_values(specs: list[MeasureSpec], summary: RegressionSummary) -> dict[str, MeasureResult]:
    """Every measure of ``specs`` finished from one summary; a measure a sum of which lost bits
    below ``2**-1074`` (:class:`~perfeval.summaries.regression.LostBits`) is NaN with
    :func:`~perfeval.summaries.regression.lost_reason`, as an undefined measure is, the others
    computed.
    """
    out = {}
    for s in specs:
        try:
            f = s.measure.function()(summary, **s.kwargs)
            value, why = float(f.value), f.why
        except LostBits:  # a sum it reads is not exact: no value, and why (an undefined measure's)
            value, why = math.nan, lost_reason(s.measure.name)
        r = MeasureResult.single(s, value)
        if why:
            r.why = why
        out[s.label] = r
    return out


def params_of(rows: int, groups: int | None, weighted: bool, backend: str, task_from: str) -> dict[str, Any]:
    return {
        "threshold": 0.5,
        "rows": int(rows),
        "groups": groups,
        "weighted": weighted,
        "partitions": None,
        "ties": TIES_REGRESSION,
        "pos_label": None,
        "backend": backend,
        "task": "regression",
        "task_from": task_from,
    }


def summary_report(
    summary: RegressionSummary,
    specs: list[MeasureSpec],
    *,
    weighted: bool,
    backend: str,
    task_from: str,
) -> Report:
    """The report of every measure of ``specs`` from one summary (a stream's, a Metric's, Dask's:
    the report finish_regression gives for the same rows in memory, with its ``backend``).
    """
    from perfeval.engine.finish import warn_undefined

    results = summary_values(specs, summary)
    warn_undefined(results, specs)
    report = Report(results, None, params_of(summary.rows, None, weighted, backend, task_from))
    report.summary = summary
    return report


# -- every group at once -----------------------------------------------------------------------------
def _group_products(
    starts: np.ndarray, *factors: np.ndarray | None, lost: list[np.ndarray] | None = None
) -> tuple[np.ndarray, int]:
    """Each group's exact sum of the products of ``factors`` (None left out; rows sorted by group,
    ``starts`` each group's first row) as ``(sums, d)``: an object array of Python integers, each
    group's sum divided by ``2**d`` (one compiled pass:
    :func:`perfeval.summaries.regression.scaled_sums`), integers as small as the data allows.
    ``lost``: appended which groups had a product lose bits below ``2**-1074`` (their sums not exact).
    """
    fs = [f for f in factors if f is not None]
    got = scaled_sums(np.append(starts, len(fs[0])), *fs, lost=lost)
    if got is None:
        raise InvalidDataError(
            "a product of a target, a prediction and a weight is beyond the range of a 64-bit float"
        )
    out = np.empty(len(starts), dtype=object)
    out[:] = got[0]
    return out, got[1]


def _divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` of Python integers a group, each correctly rounded (NaN where ``den`` is 0,
    +-inf beyond float64's range: :func:`perfeval.summaries.regression.ratio`'s numbers).
    """
    out = np.full(len(num), math.nan)
    ok = den != 0
    if ok.any():
        try:
            out[ok] = np.true_divide(num[ok], den[ok]).astype(np.float64)
        except OverflowError:
            out[ok] = [ratio(a, b) for a, b in zip(num[ok].tolist(), den[ok].tolist(), strict=True)]
    return out


class _GroupSums:
    """Every group's exact sums (rows sorted by group, ``starts`` each group's first row), each made
    on first need, as :class:`RegressionSummary` holds them for each group alone but each scaled by
    its own power of two (read them together with :meth:`get`, brought to one scale: every measure is
    a ratio of sums of one degree, so the scale cancels).  The sums ``means`` are made only as each
    group's quotient by its weights' sum, correctly rounded in the compiled pass (:meth:`mean`: the
    bits :func:`_divide` gives of the integers, without them); ``fractions`` (R2, EXPVAR) the same
    way (:meth:`compiled`).

    ``order`` (None: the rows are sorted by group already): the rows' order by group, ``y``, ``s``
    and ``w`` in the caller's order; the compiled pass reads them through it, and the sorted columns
    (:attr:`y`, :attr:`s`, :attr:`w`) are gathered only when a measure reads them.

    A sum a product of which lost bits below ``2**-1074`` is not exact in the groups of that product
    (:meth:`lost_in`: which); the sums a measure reads (:meth:`get`, :meth:`mean`, :meth:`compiled`)
    are noted in :attr:`reading` when it is a set, so that :func:`_checked_value` makes the measure
    NaN in those groups only, with why (a sum no measure reads makes nothing NaN).
    """

    def __init__(
        self,
        y: np.ndarray,
        s: np.ndarray,
        w: np.ndarray | None,
        starts: np.ndarray,
        keys: tuple[str, ...],
        means: tuple[str, ...] = (),
        order: np.ndarray | None = None,
        fractions: tuple[str, ...] = (),
    ):
        self._cols = (y, s, w)
        self._order = order
        self.starts = starts
        self.ends = np.append(starts[1:], len(y)) if len(starts) else starts  # no group: no end
        self._made: dict[str, tuple[np.ndarray, int]] = {}
        self._means: dict[str, np.ndarray] = {}
        #: each sum a product of which lost bits: the groups where it did (a boolean a group)
        self._lost: dict[str, np.ndarray] = {}
        #: each sum a row's term of which is beyond float64's range ("sape": MAPE's ratio), left out:
        #: the groups where it is (a boolean a group)
        self._over: dict[str, np.ndarray] = {}
        #: the sums read since it was set to a set (:func:`_checked_value`), None: not noted
        self.reading: set[str] | None = None
        bounds = np.append(starts, len(y))
        try:  # every sum ``keys`` in one compiled pass, at one scale; the differences checked always
            if (means or fractions) and not keys:  # the rows read through the order, on two threads
                self._means, made = row_means(
                    bounds,
                    y,
                    s,
                    w,
                    means,
                    order=order,
                    fractions=fractions,
                    lost_groups=self._lost,
                    over_groups=self._over,
                )
            else:  # integers (a pass to find their scale first): the columns gathered, read twice
                y, s, w = self.y, self.s, self.w
                self._means, made = row_means(
                    bounds,
                    y,
                    s,
                    w,
                    means,
                    (*keys, "weight"),
                    fractions=fractions,
                    lost_groups=self._lost,
                    over_groups=self._over,
                )
        except OverflowError as e:
            raise InvalidDataError(str(e)) from None
        for k, (v, d) in made.items():
            arr = np.empty(len(starts), dtype=object)
            arr[:] = v
            self._made[k] = (arr, d)

    def _sorted(self, k: int) -> np.ndarray | None:
        """Column ``k`` of (y, s, w) in the groups' order (gathered once)."""
        key = ("y", "s", "w")[k]
        if key not in self.__dict__:
            c = self._cols[k]
            self.__dict__[key] = c if c is None or self._order is None else c[self._order]
        return self.__dict__[key]

    @property
    def y(self) -> np.ndarray:
        """Each row's target, the rows sorted by group."""
        y = self._sorted(0)
        assert y is not None
        return y

    @property
    def s(self) -> np.ndarray:
        """Each row's prediction, the rows sorted by group."""
        s = self._sorted(1)
        assert s is not None
        return s

    @property
    def w(self) -> np.ndarray | None:
        """Each row's weight (None: no weights), the rows sorted by group."""
        return self._sorted(2)

    @property
    def a(self) -> np.ndarray:
        """Each row's ``|r|`` (made on first need: the medians)."""
        if "a" not in self.__dict__:
            self.__dict__["a"] = np.abs(self.y - self.s)
        return self.__dict__["a"]

    def made(self, key: str, *factors: np.ndarray | None) -> tuple[np.ndarray, int]:
        """The sums ``key`` (made from ``factors`` times the weights on first need) and their scale."""
        if key not in self._made:
            lost: list[np.ndarray] = []
            if key == "weight" and self.w is None:
                self._made[key] = ((self.ends - self.starts).astype(object), 0)
            elif key == "weight":
                self._made[key] = _group_products(self.starts, self.w)
            elif key in ROW_SUMS and not factors:  # a row sum made only as a mean: its integers now
                bounds = np.append(self.starts, len(self.y))
                got = row_sums(
                    bounds,
                    self.y,
                    self.s,
                    self.w,
                    (key,),
                    scaled=True,
                    lost_groups=self._lost,
                    over_groups=self._over,
                )
                ((v, d),) = got.values()
                arr = np.empty(len(self.starts), dtype=object)
                arr[:] = v
                self._made[key] = (arr, d)
            else:
                self._made[key] = _group_products(self.starts, *factors, self.w, lost=lost)
            if lost and lost[0].any():
                self._lost[key] = lost[0]
        return self._made[key]

    def over_in(self, key: str, groups: np.ndarray | None = None) -> None:
        """The groups where a row's term of the sum ``key`` is beyond float64's range (``groups``: a
        boolean a group, or :attr:`_over`'s), noted to be finished alone (:func:`_beyond_alone`: the
        measure's own function says NaN and why).
        """
        over = self._over.get(key) if groups is None else groups
        if over is None or not over.any():
            return
        had = self.__dict__.get("alone")
        self.__dict__["alone"] = over if had is None else had | over

    def _read(self, *keys: str) -> None:
        if self.reading is not None:
            self.reading.update(keys)

    def lost_in(self, *keys: str) -> np.ndarray | None:
        """The groups where a product of one of the sums ``keys`` lost bits below ``2**-1074`` (a
        boolean a group), or None: in none.
        """
        got = [self._lost[k] for k in keys if k in self._lost]
        return np.logical_or.reduce(got) if got else None

    def compiled(self, name: str) -> np.ndarray | None:
        """Each group's ``name`` (R2, EXPVAR) finished in the compiled pass, or None (not asked)."""
        if name in self._means:
            self._read(*_SUMS[name])
        return self._means.get(name)

    def mean(self, key: str) -> np.ndarray:
        """Each group's sum ``key`` over its weights' sum, correctly rounded (NaN where that is 0)."""
        self._read(key)
        if key in self._means:
            return self._means[key]
        return _divide(*self.get(key, "weight"))

    def get(self, *keys: str) -> list[np.ndarray]:
        """The sums ``keys`` at one scale (each group's exact sums divided by one power of two)."""
        got = [self.made(k) for k in keys]
        self._read(*keys)
        d = min(e for _, e in got)
        return [v if e == d else np.left_shift(v, e - d) for v, e in got]

    def rows_where(self, mask: np.ndarray) -> np.ndarray:
        """Each group's number of rows where ``mask``."""
        c = np.concatenate(([0], np.cumsum(mask)))
        return c[self.ends] - c[self.starts]

    @property
    def gid(self) -> np.ndarray:
        """Each row's group (0, 1, ...: the rows are sorted by group)."""
        if "gid" not in self.__dict__:
            self.__dict__["gid"] = np.repeat(np.arange(len(self.starts)), self.ends - self.starts)
        return self.__dict__["gid"]

    def quantiles(self, v: np.ndarray, alpha: float, eps: float) -> np.ndarray:
        """Each group's weighted alpha-quantile of ``v`` (a value a row), every group at once
        (:func:`~perfeval.summaries.regression.grouped_quantiles`: each group sorted by value, then
        weight, its cumulative weights summed in that order): the bits of each group alone.
        """
        return grouped_quantiles(v, self.w, self.starts, alpha, eps=eps)

    def medians(self) -> np.ndarray:
        """Each group's weighted median of ``|r|`` (MEDAE's rule: a cumulative weight reaching half the
        total exactly averages two values), every group at once.
        """
        return self.quantiles(self.a, 0.5, 0.0)


#: the row sums each measure is finished from (the weights' besides)
_SUMS = {
    "MAE": ("sabs",),
    "MSE_REG": ("srr",),
    "RMSE_REG": ("srr",),
    "R2": ("syy", "sy", "srr"),
    "EXPVAR": ("syy", "sy", "srr", "sr"),
    "MAPE": ("sape",),
    "PINBALL": ("spos", "sr"),
    "D2_PINBALL": ("spos", "sr"),
    "D2_AE": ("spos", "sr"),
    "D2_TWEEDIE": ("sy", "syy", "srr"),
}


#: the measures finished from one sum's mean (each group's sum over its weights' sum, rounded once)
_MEANS = {"MAE": "sabs", "MSE_REG": "srr", "RMSE_REG": "srr"}
#: the measures finished in the compiled pass from the exact sums (:func:`row_means`' fractions)
_FRACTIONS = ("R2", "EXPVAR")

#: whether those means are made in the compiled pass (False: from the groups' integers, by
#: :func:`_divide`, the reference the tests hold the compiled quotients to)
COMPILED_MEANS = True


def _sums_of(specs: list[MeasureSpec]) -> tuple[str, ...]:
    """The row sums the measures ``specs`` read, once each."""
    return tuple(dict.fromkeys(k for sp in specs for k in _SUMS.get(sp.measure.name, ())))


def _means_of(specs: list[MeasureSpec]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The row sums the measures ``specs`` read as integers, those read only as means, and the
    measures finished whole in the compiled pass (the compiled quotients: :data:`COMPILED_MEANS`),
    once each.
    """
    if not COMPILED_MEANS:
        return _sums_of(specs), (), ()
    names = [sp.measure.name for sp in specs]
    means = tuple(dict.fromkeys(_MEANS[n] for n in names if n in _MEANS))
    fractions = tuple(dict.fromkeys(n for n in names if n in _FRACTIONS))
    rest = [sp for sp in specs if sp.measure.name not in _MEANS and sp.measure.name not in _FRACTIONS]
    return _sums_of(rest), means, fractions


def _checked_value(sp: MeasureSpec, gs: _GroupSums) -> np.ndarray:
    """:func:`_group_value`, NaN in the groups where a sum it reads lost bits below ``2**-1074``
    (:meth:`_GroupSums.lost_in`; their reason: :func:`_group_whys`), as :func:`summary_values`
    makes the measure of one group NaN: the other groups' values as they are.
    """
    gs.reading = set()
    try:
        with np.errstate(all="ignore"):  # the lost groups' numbers, of inexact sums, may be anything
            v = _group_value(sp, gs)
    finally:
        read, gs.reading = gs.reading, None
    lost = gs.lost_in(*read)
    if lost is not None:
        gs.__dict__["lost:" + sp.label] = lost  # for the groups' reasons
        v = np.where(lost, math.nan, np.asarray(v, dtype=np.float64))
    return _beyond_alone(sp, gs, v)


def _beyond_alone(sp: MeasureSpec, gs: _GroupSums, v: np.ndarray) -> np.ndarray:
    """``v`` with the groups whose value is past float64's range (+-inf: the exact sums are kept
    whatever their size, their quotient is not a float64), or that have a row whose own term is
    (a deviance: ``gs.alone``), finished as that group alone is (:func:`summary_values` of its own
    rows: the measure's function says NaN and why, or gives the root of RMSE that is in the range),
    their reasons kept for :func:`_group_whys`.  Such groups are few: each is summed again alone.
    """
    flagged = gs.__dict__.pop("alone", None)
    v = np.asarray(v, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        mask = np.isinf(v)
    if flagged is not None:
        mask = mask | flagged
    if not mask.any():
        return v
    v = v.copy()
    said: dict[int, str | None] = {}
    for k in np.flatnonzero(mask).tolist():
        lo, hi = int(gs.starts[k]), int(gs.ends[k])
        w = None if gs.w is None else gs.w[lo:hi]
        r = summary_values([sp], _summary(gs.y[lo:hi], gs.s[lo:hi], w, [sp]))[sp.label]
        v[k] = r.value
        said[k] = r.why
    gs.__dict__["alone:" + sp.label] = said
    return v


def _group_value(sp: MeasureSpec, gs: _GroupSums) -> np.ndarray:
    """One measure's value in each group, from the groups' sums, as its scalar form finishes one."""
    name = sp.measure.name
    if name == "MAE":
        return gs.mean("sabs")
    if name in ("MSE_REG", "RMSE_REG"):
        v = gs.mean("srr")
        return np.sqrt(v) if name == "RMSE_REG" else v
    if name in ("R2", "EXPVAR"):
        c = gs.compiled(name)
        if c is not None and not np.isinf(c).any():  # past the range: the integer path says what it says
            gs.__dict__[f"compiled{name}"] = True  # for the reasons (:func:`_group_whys`)
            return c
        extra = ("sr",) if name == "EXPVAR" else ()
        W, syy, sy, srr, *rest = gs.get("weight", "syy", "sy", "srr", *extra)
        den = W * syy - sy * sy
        num = srr * W if name == "R2" else W * srr - rest[0] * rest[0]
        return _divide(den - num, den)
    if name == "MAPE":
        eps = sp.kwargs.get("eps", "none")
        if eps == "torchmetrics":
            term, big = mape_tm_rows(gs.y, gs.s, gs.w)
            if big is not None:  # a row's ratio beyond float64's range (left out): its group alone
                gs.over_in("sape_tm", gs.rows_where(big) > 0)
            gs.made("sape_tm", term)
            return _divide(*gs.get("sape_tm", "weight"))
        v = _divide(*gs.get("sape", "weight"))
        gs.over_in("sape")  # a row's ratio beyond float64's range (left out): its group finished alone
        if eps == "none":
            v[gs.rows_where(no_percentage(gs.y)) > 0] = math.nan
        return v
    if name == "PINBALL":
        from fractions import Fraction

        fa = Fraction(float(sp.kwargs["alpha"]))
        m, d = fa.numerator, fa.denominator
        spos, sr, W = gs.get("spos", "sr", "weight")
        return _divide(m * spos + (d - m) * (spos - sr), W * d)
    if name == "MEDAE":
        return gs.medians()
    if name == "MAXERR":  # the rows of weight 0 are dropped at the door: every row counts
        return np.maximum.reduceat(gs.a, gs.starts) if len(gs.starts) else np.empty(0)
    if name in ("MSLE", "RMSLE"):
        return _group_msle(gs, name == "RMSLE")
    if name in ("D2_PINBALL", "D2_AE"):
        return _group_d2_pinball(gs, float(sp.kwargs.get("alpha", 0.5)))
    if name == "D2_TWEEDIE":
        return _group_d2_tweedie(gs, float(sp.kwargs["power"]))
    p = {"POISSON_DEV": 1.0, "GAMMA_DEV": 2.0}.get(name, float(sp.kwargs.get("power", 0.0)))
    total, W, bad = _group_deviance(gs, p)
    v = _divide(total, W)
    v[bad] = math.nan
    return v


def _group_deviance(gs: _GroupSums, p: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each group's exact sum of the rows' Tweedie deviance of power ``p`` and of the weights (one
    scale), and whether the group has a row outside the deviance's domain.
    """
    dev, ok, low = deviance_rows(gs.y, gs.s, p)
    big = ~np.isfinite(dev) | low
    if big.any():  # a row's deviance past float64's range, or whose steps lost their bits below its
        # normal range: its group finished alone (NaN, and why)
        dev = np.where(big, 0.0, dev)
        over = gs.rows_where(big if gs.w is None else big & (gs.w > 0)) > 0
        had = gs.__dict__.get("alone")
        gs.__dict__["alone"] = over if had is None else had | over
    gs.made(f"dev{p!r}", dev)
    total, W = gs.get(f"dev{p!r}", "weight")
    if f"bad{p!r}" not in gs.__dict__:  # each group's rows outside the domain, for its reason
        gs.__dict__[f"bad{p!r}"] = gs.rows_where(~ok)
    return total, W, gs.__dict__[f"bad{p!r}"] > 0


def _group_msle(gs: _GroupSums, root: bool) -> np.ndarray:
    """Each group's MSLE (or RMSLE): the exact sum of ``w (log1p(y) - log1p(yhat))^2`` over the
    weights', rounded once; NaN in a group with a target or a prediction <= -1.
    """
    if "sle" not in gs._made:
        d, ok = log_rows(gs.y, gs.s)
        try:
            gs.made("sle", d, d)
        except InvalidDataError:
            raise InvalidDataError(
                "a squared log error times a weight is beyond the range of a 64-bit float"
            ) from None
        gs.__dict__["sle_bad"] = gs.rows_where(~ok)  # each group's rows <= -1, for its reason
    v = _divide(*gs.get("sle", "weight"))
    v[gs.__dict__["sle_bad"] > 0] = math.nan
    return np.sqrt(v) if root else v


def _fraction(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Each group's ``1 - num / den`` rounded once (NaN where ``den <= 0``: a constant's loss of 0)."""
    ok = den > 0
    out = np.full(len(num), math.nan)
    if ok.any():
        out[ok] = _divide(den[ok] - num[ok], den[ok])
    return out


def _group_d2_pinball(gs: _GroupSums, alpha: float) -> np.ndarray:
    """Each group's D2_PINBALL (:func:`perfeval.measures.regression.d2_pinball`): the group's
    alpha-quantile of the targets, each row's residual from it, exact sums per group.
    """
    from fractions import Fraction

    q = gs.quantiles(gs.y, alpha, SKLEARN_EPS)
    with np.errstate(over="ignore", invalid="ignore"):
        r = gs.y - q[gs.gid]
    big = ~np.isfinite(r)
    r[big] = 0.0
    key = f"d2q{alpha!r}"
    try:
        gs.made(key + "+", np.maximum(r, 0.0))
        gs.made(key, r)
    except InvalidDataError:  # a product with a weight beyond the range: those groups NaN
        return _group_d2_pinball_alone(gs, alpha)
    fa = Fraction(alpha)
    m, d = fa.numerator, fa.denominator
    spos, sr, qpos, qr = gs.get("spos", "sr", key + "+", key)
    out = _fraction(m * spos + (d - m) * (spos - sr), m * qpos + (d - m) * (qpos - qr))
    gs.__dict__[key + "big"] = big = gs.rows_where(big) > 0  # for the groups' reasons
    out[big] = math.nan
    return out


def _group_d2_pinball_alone(gs: _GroupSums, alpha: float) -> np.ndarray:
    """D2_PINBALL group by group (when a product overflows: each group's own reason, kept for
    :func:`_group_whys`).
    """
    from perfeval.measures.regression import d2_pinball

    out = np.empty(len(gs.starts))
    whys: list[str | None] = []
    for k, (lo, hi) in enumerate(zip(gs.starts.tolist(), gs.ends.tolist(), strict=True)):
        w = None if gs.w is None else gs.w[lo:hi]
        summary = RegressionSummary.from_checked(gs.y[lo:hi], gs.s[lo:hi], w, ydist=True)
        try:
            f = d2_pinball(summary, alpha)
        except LostBits:
            out[k] = math.nan
            whys.append(lost_reason("D2_PINBALL"))
            continue
        out[k] = f.value
        whys.append(f.why)
    gs.__dict__[f"d2q{alpha!r}alone"] = np.array(whys, dtype=object)
    return out


def _group_d2_tweedie(gs: _GroupSums, p: float) -> np.ndarray:
    """Each group's D2_TWEEDIE (:func:`perfeval.measures.regression.d2_tweedie`): power 0 is R2;
    else the deviance of each row from its group's weighted mean (correctly rounded), exact sums.
    """
    from perfeval.measures.regression import tweedie_power_ok

    if not tweedie_power_ok(p):
        return np.full(len(gs.starts), math.nan)
    if p == 0:
        W, syy, sy, srr = gs.get("weight", "syy", "sy", "srr")
        return _fraction(srr * W, W * syy - sy * sy)
    total, _, bad = _group_deviance(gs, p)
    mean = _divide(*gs.get("sy", "weight"))
    good = mean > 0 if (p < 0 or p >= 1) else np.ones(len(mean), dtype=bool)
    mu = np.where(good, mean, 1.0)[gs.gid]
    dev, _, low = deviance_rows(gs.y, mu, p)
    over = ~np.isfinite(dev) & ~low
    dev[over | low] = 0.0
    gs.made(f"d2dev{p!r}", dev)
    num, den, W, syy, sy = gs.get(f"dev{p!r}", f"d2dev{p!r}", "weight", "syy", "sy")
    out = _fraction(num, den)
    over, low = gs.rows_where(over) > 0, gs.rows_where(low) > 0
    gs.__dict__[f"d2mean{p!r}"] = (mean, good, over, low)  # for the groups' reasons
    out[W * syy - sy * sy == 0] = math.nan  # every target equal: no loss, whatever the rounding
    out[bad | ~good | over | low] = math.nan
    return out


class _Reasons:
    """The reasons of some groups (``n`` of them), each said once: a rule said of the groups ``mask``
    that no earlier rule told (the rules in the order the scalar measure tries them), its words
    made once per distinct count (or mean) the groups have, not once a group.
    """

    def __init__(self, n: int):
        self.out = np.full(n, None, dtype=object)
        self.told = np.zeros(n, dtype=bool)

    def say(self, mask: np.ndarray, text: str) -> None:
        m = np.asarray(mask, dtype=bool) & ~self.told
        if m.any():
            self.out[m] = text
            self.told |= m

    def count(self, mask: np.ndarray, of: np.ndarray, words: Any) -> None:
        """``words(c)`` of each group of ``mask``, ``c`` its entry of ``of`` (a count, a mean)."""
        m = np.asarray(mask, dtype=bool) & ~self.told
        if m.any():
            said, where = np.unique(of[m], return_inverse=True)
            self.out[m] = np.array([words(c) for c in said.tolist()], dtype=object)[where]
            self.told |= m

    def rest(self, text: str) -> None:
        """``text`` of every group not told yet (the one cause of NaN left)."""
        self.say(np.ones(len(self.told), dtype=bool), text)


def _say_alone(said: _Reasons, nan: np.ndarray, alone: dict[int, str | None] | None) -> None:
    """The reasons of the groups finished alone (:func:`_beyond_alone`), said first: their own."""
    for i, k in enumerate(nan.tolist()):
        if alone and k in alone and alone[k]:
            said.say(np.arange(len(nan)) == i, str(alone[k]))


def _group_whys(sp: MeasureSpec, gs: _GroupSums, v: np.ndarray) -> list[str | None]:
    """Why each NaN group of one measure's values ``v`` is NaN (in the order of the NaN groups), in
    the words of the measure over that group's rows alone (:mod:`perfeval.measures.regression`), read
    from the same per-group sums and counts the values came from: every group at once.
    """
    from perfeval.measures import regression as rm

    nan = np.flatnonzero(np.isnan(v))
    if not len(nan):
        return []
    name = sp.measure.name
    said = _Reasons(len(nan))
    _say_alone(said, nan, gs.__dict__.get("alone:" + sp.label))
    if name in ("D2_PINBALL", "D2_AE"):
        alpha = float(sp.kwargs.get("alpha", 0.5))
        alone = gs.__dict__.get(f"d2q{alpha!r}alone")
        if alone is not None:  # finished group by group: each its own reason already
            return alone[nan].tolist()
    lost = gs.__dict__.get("lost:" + sp.label)  # the groups a sum it read lost bits in

    def say_lost(*keys: str) -> None:
        """The groups that lost bits in the sums ``keys`` (none named: any it read), said where the
        measure of one group checks them (:meth:`RegressionSummary.exact`).
        """
        if lost is not None:
            m = gs.lost_in(*keys) if keys else lost
            if m is not None:
                said.say(m[nan], lost_reason(name))

    (W,) = gs.get("weight")
    said.say(W[nan] == 0, rm.NO_CASE)
    mape_zeros = name == "MAPE" and sp.kwargs.get("eps", "none") == "none"
    if name not in _LOST_LATE and not mape_zeros:  # the sums checked before any other reason
        say_lost(*_LOST_FIRST.get(name, ()))
    if name in ("R2", "EXPVAR") and gs.__dict__.get(f"compiled{name}"):
        said.rest(rm.CONSTANT_TARGETS)  # compiled: NaN only where W syy - sy^2 is 0
    elif name in ("R2", "EXPVAR"):
        Wn, syy, sy = (a[nan] for a in gs.get("weight", "syy", "sy"))
        said.say(Wn * syy - sy * sy == 0, rm.CONSTANT_TARGETS)
    elif mape_zeros:
        zeros = gs.rows_where(no_percentage(gs.y))[nan]
        said.count(zeros > 0, zeros, rm.zero_targets_why)
    elif name in ("POISSON_DEV", "GAMMA_DEV", "TWEEDIE_DEV"):
        p = {"POISSON_DEV": 1.0, "GAMMA_DEV": 2.0}.get(name, float(sp.kwargs.get("power", 0.0)))
        bad = gs.__dict__[f"bad{p!r}"][nan]
        said.count(bad > 0, bad, lambda c: rm.domain_why(c, p))
    elif name in ("MSLE", "RMSLE"):
        bad = gs.__dict__["sle_bad"][nan]
        said.count(bad > 0, bad, rm.log_why)
    elif name in ("D2_PINBALL", "D2_AE"):
        said.say(gs.__dict__[f"d2q{alpha!r}big"][nan], rm.D2_QUANTILE_RANGE)
        say_lost()  # the quantile's residuals' sums: checked after their range
        said.rest(rm.D2_QUANTILE_CONSTANT)  # else NaN only where the quantile's loss is 0
    elif name == "D2_TWEEDIE":
        _d2_tweedie_whys(float(sp.kwargs["power"]), gs, nan, said, say_lost)
    say_lost()  # checked after the measure's own reasons (MAPE's zero targets, a deviance's domain)
    return said.out.tolist()


def _d2_tweedie_whys(p: float, gs: _GroupSums, nan: np.ndarray, said: _Reasons, say_lost: Any) -> None:
    """D2_TWEEDIE's reasons of the NaN groups ``nan`` (:func:`_group_whys`), in the order
    :func:`perfeval.measures.regression.d2_tweedie` checks them; ``say_lost(*keys)`` says the groups
    that lost bits in the sums ``keys`` (none: any the value read).
    """
    from perfeval.measures import regression as rm

    Wn, syy, sy = (a[nan] for a in gs.get("weight", "syy", "sy"))
    flat = Wn * syy - sy * sy == 0  # every target equal: said first (after srr's lost bits, read then)
    if p != 0 and flat.any():  # such a group alone reads srr (not every group's): made now
        gs.made("srr")
        srr = gs.lost_in("srr")
        if srr is not None:
            said.say(flat & srr[nan], lost_reason("D2_TWEEDIE"))
    elif p == 0:
        say_lost()
    said.say(flat, rm.D2_MEAN_CONSTANT)
    if p != 0:
        bad = gs.__dict__[f"bad{p!r}"][nan]
        said.count(bad > 0, bad, lambda c: rm.domain_why(c, p))
        say_lost("sy", f"dev{p!r}")
        mean, good, over, low = (a[nan] for a in gs.__dict__[f"d2mean{p!r}"])
        said.count(~good, mean, lambda m: rm.mean_domain_why(p, m))
        said.say(over, rm.mean_range_why(p))
        said.say(low, rm.mean_low_why(p))
        say_lost()  # the mean's deviances' sum
    said.rest(rm.D2_MEAN_CONSTANT)  # else NaN only where the mean's deviance is 0


#: the measures that check their sums after a reason of their own (:func:`_group_whys`), as their
#: scalar forms do (:mod:`perfeval.measures.regression`); the D^2 scores check theirs in steps
_LOST_LATE = ("POISSON_DEV", "GAMMA_DEV", "TWEEDIE_DEV", "MSLE", "RMSLE")
#: the sums the D^2 scores check first (the others: every sum they read is checked first)
_LOST_FIRST = {"D2_PINBALL": ("spos", "sr"), "D2_AE": ("spos", "sr"), "D2_TWEEDIE": ("sy", "syy")}


def finish_regression(cases: Cases, specs: list[MeasureSpec], *, task_from: str) -> Report:
    """Every measure of ``specs`` (read by :func:`regression_specs`) over checked cases (float64
    targets ``cases.y`` and predictions ``cases.s``); per group, every group at once.
    """
    from perfeval.engine.finish import warn_undefined

    y = np.asarray(cases.y, dtype=np.float64)
    s, g, w = cases.s, cases.g, cases.w
    keys = None
    sizes = None
    summary: Any = None
    if g is None:
        summary = _summary(y, s, w, specs)
        results = summary_values(specs, summary)
    else:
        keys, codes = group_codes(g)
        q = len(keys)
        sizes = np.bincount(codes, weights=w, minlength=q).astype(np.float64)
        order, bounds = (
            np.frombuffer(b, np.int64) for b in _native.group_order(np.ascontiguousarray(codes, np.int64), q)
        )
        starts = bounds[:-1]
        keys_, means, fractions = _means_of(specs)
        gs = _GroupSums(y, s, w, starts, keys_, means, order=order, fractions=fractions)
        values = {sp.label: _checked_value(sp, gs) for sp in specs}
        return grouped_report(
            specs,
            keys,
            sizes,
            values,
            rows=cases.rows_in,
            weighted=w is not None,
            backend="memory",
            task_from=task_from,
            whys={sp.label: _group_whys(sp, gs, values[sp.label]) for sp in specs},
        )
    warn_undefined(results, specs)
    report = Report(results, None, params_of(cases.rows_in, None, w is not None, "memory", task_from))
    report.summary = summary
    return report


def grouped_report(
    specs: list[MeasureSpec],
    keys: np.ndarray,
    sizes: np.ndarray,
    values: dict[str, np.ndarray],
    *,
    rows: int,
    weighted: bool,
    backend: str,
    task_from: str,
    whys: Mapping[str, Any] | None = None,
) -> Report:
    """The report of every group's values (keys sorted; from memory, a stream's parts, Dask's
    partitions): the report :func:`finish_regression` gives for the same rows, with its ``backend``.
    ``whys``: the reasons of the NaN groups, by label: a list in the order of the NaN groups (memory:
    :func:`_group_whys`), or ``{group key: why}`` (each part's :func:`perfeval.engine.finish.group_whys`,
    merged).
    """
    from perfeval.engine.finish import attach_whys, warn_undefined

    results = {sp.label: MeasureResult.of(sp, values[sp.label], sizes, keys, True) for sp in specs}
    keyed: dict[str, dict] = {}
    for label, said in (whys or {}).items():
        r = results.get(label)
        if r is None or not r.undefined:
            continue
        if isinstance(said, Mapping):
            keyed[label] = dict(said)
        elif len(said) == len(r.undefined):
            r.undefined_groups_why = list(said)
    if keyed:
        attach_whys(results, [sp for sp in specs if sp.label in keyed], keyed)
    warn_undefined(results, specs)
    report = Report(results, keys, params_of(rows, int(len(keys)), weighted, backend, task_from))
    report.group_sizes = sizes
    return report
