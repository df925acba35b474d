"""The one door: every check of the arrays a user hands to perfeval, said once, in one place.

Public entry points (``evaluate``, ``ScoreHistogram.from_arrays``, ``RankingData``, the streaming and
Dask backends, the statistics, the curves) call these on what they are given and pass the checked
arrays inward; internal code trusts them and checks nothing again.  Each check raises one
:class:`~perfeval.exceptions.PerfevalError` whose message says what was expected, what was found
and where (the argument, the index).

Nothing here imports more than numpy and the exceptions, so every layer may use it.
"""

from __future__ import annotations

import datetime
import difflib
import numbers
import sys
import warnings
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from perfeval.exceptions import InvalidDataError, InvalidParameterError, user_stacklevel

# shlex is imported where a command-line message quotes a value: `evaluate()` doesn't load it.


# -- shape and type ------------------------------------------------------------------------------------
def to_numpy(x: Any, name: str) -> np.ndarray:
    """A 1-D numpy array from a list, numpy array, pandas/polars Series or pyarrow array/column, or
    an array library's array read through its protocol, the library never imported: a torch tensor
    (``detach``, ``cpu``, ``numpy``; bfloat16 through float32, exact), a cupy array
    (``__cuda_array_interface__`` and ``get``), an object with only ``__dlpack__``.
    """
    if x is None:
        raise InvalidParameterError(f"`{name}` is required")
    arr = as_array(x, name)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        if isinstance(x, str):  # a column's name, most likely: no shape talk
            raise InvalidParameterError(_name_hint(name, x))
        hint = _columns_hint(name, arr.shape)
        raise InvalidParameterError(f"`{name}` must be one-dimensional, got shape {arr.shape}{hint}")
    if arr.dtype.name == "bfloat16":  # jax's and ml_dtypes' bfloat16: float32 holds it exactly
        arr = arr.astype(np.float32)
    return arr


def as_array(x: Any, name: str) -> np.ndarray:
    """``x`` as a numpy array of any shape, read through the array libraries' protocols
    (:func:`host_memory`, then ``to_numpy``): a pyarrow array that needs a copy (nulls, a
    dictionary, decimals) is copied, as ``np.asarray`` copies it.  Nested sequences of different
    lengths, or an object numpy cannot read, are an :class:`InvalidDataError` naming the argument.
    """
    if not isinstance(x, np.ndarray):
        x = host_memory(x, name)
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        try:
            x = x.to_numpy()
        except (TypeError, ValueError):  # pyarrow's zero-copy refusal (ArrowInvalid is a ValueError)
            pass
    try:
        return np.asarray(x)
    except (TypeError, ValueError) as e:
        why = (
            "nested sequences of different lengths"
            if "inhomogeneous" in str(e) or "sequence" in str(e)
            else f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        )
        raise InvalidDataError(
            f"`{name}` cannot be read as an array ({why}); pass one value a case"
        ) from None


#: the scikit-learn-style keywords that take arrays, and the keyword that takes a table's column name
COLUMN_KEYWORDS = {
    "y_true": "target",
    "y_score": "score",
    "sample_weight": "weight",
    "weights": "weight",
    "groups": "group",
    "ids": "id",
}


def _name_hint(name: str, x: str) -> str:
    """The one line for a string ``x`` given where the values go (``sample_weight="w"``): the
    keyword that takes a column's name first, when there is one.
    """
    if name not in COLUMN_KEYWORDS:
        return f"`{name}` must be one-dimensional, got the string {x!r}"
    key = COLUMN_KEYWORDS[name]
    return (
        f"`{name}={x!r}`: a column's name? pass it as {key}={x!r} (with the table and target=/score=); "
        f"`{name}` takes the values themselves, one a row"
    )


def no_table(door: str, *, where: str | None = None, **arrays: Any) -> None:
    """For a function that takes no table (``perfeval.ci``, ``compare``, ``explain``,
    ``Metric.update``): a string given where the values go (``groups="qid"``, a column's name) is
    one line saying what the function takes (the values, one a row), not the keyword of
    :func:`perfeval.evaluate` (``group=``) that it has not.

    Parameters
    ----------
    door : str
        The function, as messages name it (``perfeval.ci()``).
    where : str, optional
        The prefix of the caller's other messages (see :func:`said`): the scikit-learn names'
        ``roc_auc_score: ...``.
    **arrays
        Its array arguments by keyword, as the caller spelled them; None: not given.

    Raises
    ------
    InvalidParameterError
        The first of ``arrays`` that is a string.
    """
    for name, x in arrays.items():
        if isinstance(x, str):
            raise InvalidParameterError(said(_no_table_line(door, name, x, f"{name}=table[{x!r}]"), where))


def no_table_chunk(door: str, name: str, x: Any, item: str) -> None:
    """:func:`no_table` for one item of a streamed chunk (``evaluate_stream``'s weights): a string
    there (a column's name) is the same one line, the values shown as the chunk's ``item``.

    Parameters
    ----------
    door : str
        The function, as messages name it (``perfeval.evaluate_stream()``).
    name : str
        The item, as the stream's messages name it (``sample_weight``).
    x : Any
        The chunk's item.
    item : str
        Where the values go in a chunk (``"the chunk's third item"``).

    Raises
    ------
    InvalidParameterError
        ``x`` is a string.
    """
    if isinstance(x, str):
        raise InvalidParameterError(_no_table_line(door, name, x, f"{item}: table[{x!r}]"))


def _no_table_line(door: str, name: str, x: str, shown: str) -> str:
    """The one line of :func:`no_table`: ``shown``, how the column's values are passed."""
    return (
        f"`{name}` must be one-dimensional, got the string {x!r}: a column's name? {door} takes no "
        f"table: pass the column's values themselves, one a row ({shown})"
    )


def _columns_hint(name: str, shape: tuple) -> str:
    """For scores of several columns: what they likely are (predict_proba's, one a class) and
    which one to pass.
    """
    if name != "y_score" or len(shape) != 2 or shape[1] < 2:
        return ""
    if shape[1] == 2:
        return ": the two columns of a binary model's predict_proba? pass the positive class's, y_score[:, 1]"
    return (
        f": one score a class ({shape[1]} classes)? evaluate() reads it with classes=[...] (the "
        "multiclass measures); here pass one class's column, y_score[:, k], with pos_label= that class"
    )


def host_memory(x: Any, name: str) -> Any:
    """An array library's array in host memory, through its protocol (see :func:`to_numpy`)."""
    if all(callable(getattr(x, a, None)) for a in ("detach", "cpu", "numpy")):  # torch
        return _torch_host(x, name)
    if hasattr(x, "__cuda_array_interface__") and callable(getattr(x, "get", None)):  # cupy
        return x.get()
    if not hasattr(x, "__array__") and not hasattr(x, "to_numpy") and hasattr(x, "__dlpack__"):
        try:
            return np.from_dlpack(x)
        except (TypeError, ValueError, RuntimeError, BufferError) as e:
            raise InvalidDataError(
                f"`{name}` cannot be read through DLPack ({type(e).__name__}: {e}); copy it to the CPU first"
            ) from None
    return x


def _torch_host(x: Any, name: str) -> np.ndarray:
    """A torch tensor (duck-typed: torch is not imported) as a numpy array in host memory.

    Detached from its graph, copied to the CPU, its lazy negation/conjugation resolved; a floating
    dtype numpy has no type for (bfloat16, the float8 kinds) read through float32, which holds each
    of its values exactly.  A tensor that holds no data (the ``meta`` device), a sparse or nested
    tensor, or one whose copy fails is an :class:`InvalidDataError` naming the argument.
    """
    t = x.detach()
    device = str(getattr(getattr(t, "device", None), "type", "cpu"))
    what = (
        f"a torch tensor ({getattr(t, 'dtype', getattr(x, 'dtype', 'of unknown dtype'))}, device {device!r}"
    )
    if device == "meta":
        raise InvalidDataError(
            f"`{name}` is {what}), which holds no values (only a shape); give the tensor its data first"
        )
    layout = str(getattr(t, "layout", "torch.strided"))
    if layout != "torch.strided" or getattr(t, "is_nested", False):
        kind = "nested" if getattr(t, "is_nested", False) else layout.replace("torch.", "")
        raise InvalidDataError(
            f"`{name}` is {what}, layout {kind}); perfeval reads dense tensors "
            "(.to_dense() makes one of a sparse tensor)"
        )
    if callable(getattr(t, "is_complex", None)) and t.is_complex():
        raise InvalidDataError(f"`{name}` is {what}); complex numbers are not scores or labels")
    try:
        if callable(getattr(t, "is_floating_point", None)) and t.is_floating_point():
            if t.element_size() < 2 or str(getattr(t, "dtype", "")).endswith(
                "bfloat16"
            ):  # numpy has no such type
                t = t.float()  # exact: float32 holds every bfloat16 and float8 value
        t = t.cpu()
        for lazy in ("resolve_conj", "resolve_neg"):  # a view with a pending negation
            if callable(getattr(t, lazy, None)):
                t = getattr(t, lazy)()
        return np.asarray(t.numpy())
    except (TypeError, ValueError, RuntimeError, NotImplementedError) as e:
        raise InvalidDataError(
            f"`{name}` is {what}) that cannot be read as a numpy array "
            f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
            "copy it to the CPU as a dense float or integer tensor first"
        ) from None


def said(message: str, where: str | None = None) -> str:
    """``message`` as the function ``where`` says it (``roc_curve: ...``); as it is without one.

    Every check below takes ``where``: an entry point that names itself in its messages (the
    scikit-learn names do, as scikit-learn does) passes its name, rather than catching the error
    and raising it again.
    """
    return message if where is None else f"{where}: {message}"


def one_d(name: str, a: Any, dtype: Any = np.float64, *, where: str | None = None) -> np.ndarray:
    """``a`` as a 1-D array of ``dtype`` (a column vector is flattened); a data error otherwise
    (for floats, as :func:`floats` says it: complex numbers, dates and durations are refused).
    """
    arr = np.asarray(a)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise InvalidDataError(said(f"`{name}` must be one-dimensional, got shape {arr.shape}", where))
    if np.dtype(dtype) == np.float64:
        return floats(arr, name, where=where)
    try:
        return arr.astype(dtype, copy=False)
    except (TypeError, ValueError):
        raise InvalidDataError(
            said(f"`{name}` must be numeric, got values of type {arr.dtype}", where)
        ) from None


#: Python types of dates, times and durations (pandas' Timestamp and Timedelta are subclasses)
_TIME_TYPES = (np.datetime64, np.timedelta64, datetime.date, datetime.time, datetime.timedelta)


def _time_text(v: Any) -> str:
    """A datetime64 or timedelta64 value as a person writes it (``2020-01-01``, ``0:00:01``)."""
    if isinstance(v, np.datetime64):
        return str(np.datetime_as_string(v, unit="auto"))
    us = v.astype("timedelta64[us]")
    return str(us.astype(object)) if us == v else str(v)  # exact in microseconds: Python's text


def floats(arr: np.ndarray, name: str, *, where: str | None = None) -> np.ndarray:
    """``arr`` as float64 (no copy when it already is); a data error naming the type otherwise.

    Complex numbers are refused (numpy would drop the imaginary parts with only a warning), and so
    are dates, times and durations (datetime64, timedelta64, Python's or pandas' objects), which
    numpy would turn into counts of days or nanoseconds: the command refuses them as it reads them
    (``holds '2020-01-01', not a number``), and so does the library.  ``where``: see :func:`said`.
    """
    kind = arr.dtype.kind
    if kind == "c":
        raise InvalidDataError(
            said(f"`{name}` must hold real numbers, got complex values ({arr.dtype})", where)
        )
    if kind in "mM":
        what = "dates" if kind == "M" else "durations"
        if not len(arr):
            raise InvalidDataError(said(f"`{name}` holds {what} ({arr.dtype}), not numbers", where))
        i = int(np.argmax(~np.isnat(arr))) if bool((~np.isnat(arr)).any()) else 0
        raise InvalidDataError(
            said(
                f"`{name}` holds {_time_text(arr[i])!r} at index {i}, not a number ({what}, {arr.dtype})",
                where,
            )
        )
    if kind == "O":
        values = arr.tolist()
        for i, v in enumerate(values):
            if isinstance(v, _TIME_TYPES):
                text = _time_text(v) if isinstance(v, (np.datetime64, np.timedelta64)) else str(v)
                raise InvalidDataError(
                    said(f"`{name}` holds {text!r} at index {i}, not a number ({type(v).__name__})", where)
                )
    try:
        out = arr.astype(np.float64, copy=False)
    except OverflowError:  # a Python integer beyond float64's range
        i, v = next((i, v) for i, v in enumerate(arr.tolist()) if overflows(v))
        raise InvalidDataError(
            said(
                f"`{name}` holds an integer of {len(str(abs(v)))} digits at index {i}, beyond the range "
                "of a 64-bit float (about 1.8e308)",
                where,
            )
        ) from None
    except (TypeError, ValueError):
        if kind == "O":
            for i, v in enumerate(arr.tolist()):
                try:
                    float(v)
                except (TypeError, ValueError):
                    raise InvalidDataError(
                        said(f"`{name}` holds {v!r} at index {i}, not a number ({type(v).__name__})", where)
                    ) from None
        raise InvalidDataError(
            said(f"`{name}` must hold numbers, got values of type {arr.dtype}", where)
        ) from None
    return out


def overflows(v: Any) -> bool:
    """Whether ``float(v)`` overflows: a Python integer beyond float64's range (``10**400``)."""
    try:
        float(v)
    except OverflowError:
        return True
    except (TypeError, ValueError):
        return False
    return False


def check_pair(yt: Any, ys: np.ndarray, names: tuple[str, str] = ("y_true", "y_score")) -> None:
    """Two arrays of one length (``yt``: the first, or its length)."""
    n = yt if isinstance(yt, int) else len(yt)
    if n != len(ys):
        raise InvalidDataError(
            f"`{names[0]}` and `{names[1]}` must have the same length, got {n} and {len(ys)}"
        )


def same_length(name: str, a: np.ndarray, n: int, other: str = "y_score") -> None:
    if len(a) != n:
        raise InvalidDataError(f"`{name}` must have the length of `{other}` ({n}), got {len(a)}")


# -- values ----------------------------------------------------------------------------------------------
def check_scores(score: np.ndarray, name: str = "y_score") -> None:
    """Scores are finite: NaN cannot be ranked, and an infinite score is a model's bug."""
    bad = ~np.isfinite(score)
    if bad.any():
        i = int(np.argmax(bad))
        v = float(score[i])
        why = "NaN cannot be ranked" if v != v else "an infinite value is no number to score"
        raise InvalidDataError(
            f"`{name}` must be finite numbers, got {v!r} at index {i} ({why}; replace it or drop the row)"
        )


def check_no_nan(score: np.ndarray, name: str = "y_score") -> None:
    """Scores may be +-inf (they still rank) but not NaN."""
    nan = np.isnan(score)
    if nan.any():
        i = int(np.argmax(nan))
        raise InvalidDataError(f"`{name}` holds NaN at index {i}; scores must be numbers")


def check_weights(w: np.ndarray, name: str = "weights", *, where: str | None = None) -> None:
    """Weights are finite and non-negative (0: the case is dropped)."""
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidDataError(
            said(f"`{name}` must be finite non-negative numbers, got {float(w[i])!r} at index {i}", where)
        )


def check_relevance(rel: np.ndarray) -> None:
    """Graded relevance is a number >= 0 (0: not relevant)."""
    bad = np.isnan(rel) | (rel < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidDataError(
            f"relevance must be a number >= 0 for ranking measures, got {rel[i].item()!r} at index {i}"
        )


def zero_one(t: Any) -> np.ndarray:
    """Targets that must be exactly 0/1 (or booleans), as a boolean array of the positives; else one
    line saying what they look like (:func:`read_targets`) and how to code them.
    """
    t = np.asarray(t)
    t = t.reshape(-1) if t.ndim == 2 and 1 in t.shape else t
    if t.dtype.kind not in "biuf":
        try:
            t = one_d("y_true", t)
        except InvalidDataError:
            if t.ndim != 1 or t.dtype.kind not in "USO":
                raise
            _not_zero_one(t)
    elif t.ndim != 1:
        raise InvalidDataError(f"`y_true` must be one-dimensional, got shape {t.shape}")
    is_pos = t == 1
    bad = ~(is_pos | (t == 0))
    if bad.any():
        i = int(np.argmax(bad))
        if t.dtype.kind == "f" and np.isnan(t[i]):
            raise InvalidDataError(
                f"`y_true` holds NaN at index {i}, a missing target: drop or fill those cases"
            )
        _not_zero_one(t)
    return is_pos


def _not_zero_one(t: np.ndarray) -> None:
    said = read_targets(t, LabelWords(pos_label=False))
    raise InvalidDataError(
        f"`y_true` must hold only 0 and 1 (or booleans), but it {said.what}; {said.advice}"
    )


# -- labels ------------------------------------------------------------------------------------------------
def _distinct(y: np.ndarray) -> np.ndarray:
    """The distinct values of a target column, sorted (as text when the types are mixed)."""
    try:
        return np.unique(y)
    except TypeError:  # mixed types
        return np.array(sorted({str(v) for v in y.tolist()}), dtype=object)


def shown_label(v: Any) -> Any:
    """A label as a message shows it: a whole number as one (``3``, not ``3.0``), else as it is."""
    v = v.item() if hasattr(v, "item") else v
    if isinstance(v, float) and v.is_integer() and abs(v) < 2.0**53:
        return int(v)
    return v


def label_values(y: np.ndarray, most: int = 8) -> str:
    """The distinct values of a target column, for a message: ``'no', 'yes'`` or ``0, 1, 2`` (whole
    numbers as such, at most ``most``).
    """
    if not len(y):
        return "no label (no rows)"
    vals = _distinct(y)
    shown = ", ".join(repr(shown_label(v)) for v in vals[:most])
    return shown + ("" if len(vals) <= most else f", ... ({len(vals)} values)")


def as_label(pos_label: Any, y: np.ndarray) -> Any:
    """``pos_label`` in the type of the labels (a number typed on a command line against numbers)."""
    if isinstance(pos_label, str) and y.dtype.kind in "iuf":
        try:
            return float(pos_label)
        except ValueError:
            return pos_label
    if isinstance(pos_label, str) and y.dtype.kind == "b" and pos_label.lower() in ("true", "false"):
        return pos_label.lower() == "true"
    return pos_label


def binary_coding(y: np.ndarray, pos_label: Any = None) -> np.ndarray | None:
    """0/1 targets: ``pos_label`` is 1 and any other label 0; without it 0/1, -1/+1 (1 positive) and
    booleans are taken as they are.  None when the coding is not one of those (nothing is guessed).
    """
    if pos_label is not None:
        _no_missing_label(y, pos_label)
        hit = y == as_label(pos_label, y)
        return np.asarray(hit, dtype=np.float64)
    if not len(y):  # no rows: no label to read, whatever the column's type (an empty text column)
        return np.zeros(0)
    if y.dtype.kind == "b":
        return y.astype(np.float64)
    if y.dtype.kind in "iuf":
        if bool(np.all((y == 0) | (y == 1))):
            return y  # numeric 0/1 as given: no float copy
        if bool(np.all((y == -1) | (y == 1))):
            return (y == 1).astype(np.float64)
    return None


def _no_missing_label(y: np.ndarray, pos_label: Any) -> None:
    """One line when ``y`` holds a missing target (NaN; None, NaN, pandas' NA or NaT among Python
    objects): with ``pos_label`` every other label is negative, and a missing one is neither class.
    """
    at: list[int] = []
    if y.dtype.kind == "f":
        miss = np.isnan(y)
        if miss.any():
            at, shown = np.flatnonzero(miss).tolist(), "NaN"
    elif y.dtype.kind == "O":
        at = np.flatnonzero(missing_mask(y)).tolist()
        shown = repr(str(y[at[0]])) if at else ""
    if at:
        raise InvalidDataError(
            f"`y_true` holds {shown}, a missing target (first at index {at[0]}, {len(at):,} in all): "
            f"neither pos_label={pos_label!r} nor another label; drop or fill those cases"
        )


def missing_mask(y: np.ndarray) -> np.ndarray:
    """Where an object column holds a missing value (:func:`_missing`), in compiled loops: pandas'
    ``isna`` when pandas is loaded (its NA and NaT exist only then), else None or NaN (``v != v``);
    a Python loop over the values when a value's comparison is not one bool.
    """
    pd = sys.modules.get("pandas")
    try:
        if pd is not None:
            return np.asarray(pd.isna(y), dtype=bool)
        return np.asarray((y == None) | (y != y), dtype=bool)  # noqa: E711  (elementwise)
    except (TypeError, ValueError):
        return np.fromiter((_missing(v) for v in y.tolist()), dtype=bool, count=len(y))


def binary_targets(
    y: np.ndarray,
    needs: str,
    pos_label: Any = None,
    *,
    words: LabelWords | None = None,
    rows: Any = None,
    coding: Any = False,
) -> np.ndarray:
    """The 0/1 coding of ``y`` for the measure ``needs``, or one line saying what the targets look
    like and what to do (:func:`read_targets`; ``words``: what the caller takes, by default
    ``pos_label=``); ``rows``: the rows a missing target (NaN) is counted and found in, when ``y``
    holds only the distinct labels (:class:`perfeval.Metric`: every label seen, and this batch's rows).
    ``coding``: :func:`binary_coding` of ``y`` and ``pos_label`` when made already.
    """
    out = binary_coding(y, pos_label) if coding is False else coding
    if pos_label is not None:
        assert out is not None  # with pos_label every label has a coding
        if not np.any(out):
            raise InvalidDataError(
                f"pos_label={pos_label!r} does not occur in `y_true` (labels: {label_values(y)})"
            )
        return out
    if out is None:
        hint = _missing_hint(y, y if rows is None else np.asarray(rows))
        if hint is not None:
            raise InvalidDataError(
                f"{needs} needs binary targets (0/1, -1/1 or booleans), but `y_true` holds "
                f"{label_values(y)}; {hint}"
            )
        said = read_targets(y, words or LabelWords())
        raise InvalidDataError(
            f"{needs} needs binary targets (0/1, -1/1 or booleans), but `y_true` {said.what}; {said.advice}"
        )
    return out


#: labels that usually name the positive class, and the negative one (compared in lower case)
POSITIVE_WORDS = frozenset(
    "1 +1 true t yes y pos positive click clicked clicks spam fraud fraudulent churn churned relevant "
    "hit success converted conversion purchase purchased malignant abnormal anomaly outlier attack".split()
)
NEGATIVE_WORDS = frozenset(
    "0 -1 false f no n neg negative none null nil noclick no_click no-click nonclick non-click not_clicked "
    "unclicked ham legit legitimate normal benign healthy control irrelevant nonrelevant non-relevant "
    "not_relevant miss other rest".split()
)


def _looks(v: Any, words: frozenset) -> bool:
    return str(shown_label(v)).strip().lower() in words


def positive_choice(vals: Any) -> Any:
    """Of the distinct labels ``vals``, the one that looks like the positive class (``'click'`` of
    click/no, ``2`` of 0/2), or None when none does: a label that looks negative (no, false, 0,
    ...) is never the one, and between numbers (1/2, 2/4) nothing is guessed.
    """
    text = [v for v in vals if not isinstance(shown_label(v), (int, float))]
    pos = [v for v in text if _looks(v, POSITIVE_WORDS)]
    if len(pos) == 1:
        return pos[0]
    others = [v for v in vals if not _looks(v, NEGATIVE_WORDS)]
    if len(others) == 1 and len(others) < len(vals):
        return others[0]
    return None


def class_choice(vals: Any) -> Any:
    """Of three or more distinct labels ``vals`` (sorted), the class a positive label is offered
    for, one against the rest: the one that looks positive (:func:`positive_choice`), else the
    first that does not look negative (``1`` of 0, 1, 2, ...), else the first; the same whoever asks
    (the door in memory, a Dask partition).
    """
    choice = positive_choice(vals)
    if choice is None:
        choice = next((v for v in vals if not _looks(v, NEGATIVE_WORDS)), vals[0])
    return choice


class LabelWords:
    """How a door names what the user can do about targets that are not 0/1: the library's
    argument (``pos_label=``) and Python (``np.asarray(y_true) > 0``), or the command's options
    (``--pos-label``, ``--partition``); and which of them the caller takes.

    Parameters
    ----------
    cli : bool
        The command line's words.
    pos_label : bool
        The caller takes a positive label (``pos_label=``, ``--pos-label``).
    partition : bool
        The command takes ``--partition`` (``perfeval eval``).
    whole : bool
        The targets are all of them (their distinct values counted), not a chunk or a partition.
    regression : bool
        The caller reads regression targets (``perfeval eval``, ``perfeval report``,
        :func:`perfeval.evaluate`); not the binary curves of ``perfeval plot``: those name the plots
        of a regression target instead.
    """

    def __init__(
        self,
        cli: bool = False,
        pos_label: bool = True,
        partition: bool = False,
        whole: bool = True,
        regression: bool = True,
    ):
        self.cli, self.pos_label, self.partition, self.whole = cli, pos_label, partition, whole
        self.regression = regression

    def as_regression(self, count: bool = False) -> str:
        """How to read the targets as a regression target (``count``: whole numbers, one reading
        among others), or, where the caller has none, that it has none.
        """
        if not self.regression:  # perfeval plot's binary curves
            return (
                "a binary curve needs 0/1 targets; `perfeval plot predicted` or `residuals` draws it as a "
                + ("regression target (a count)" if count else "regression target")
            )
        if count:
            return (
                "--task regression (or -m mae,rmse) to read it as a regression target (a count)"
                if self.cli
                else "task='regression' (or measures=['mae', 'rmse']) to read it as a regression target "
                "(a count)"
            )
        return SQUARED_ERRORS_CLI if self.cli else SQUARED_ERRORS

    def pos(self, v: Any) -> str:
        """The option that names ``v`` the positive label."""
        v = shown_label(v)
        if self.cli:
            import shlex

            return f"--pos-label {shlex.quote(str(v))}"
        return f"pos_label={v!r}"

    def code(self, test: str) -> str:
        """What to do without a positive label to name: code the targets 0/1 (``test``: ``== 'yes'``)."""
        return "code the column 0/1 first" if self.cli else f"code them 0/1 first: np.asarray(y_true) {test}"


class TargetsRead:
    """What targets that are not a binary coding look like (:func:`read_targets`).

    Attributes
    ----------
    kind : str
        ``"labels"`` (one or two labels), ``"classes"`` (three or more), ``"grades"`` (small whole
        numbers >= 0: graded relevance, or classes), ``"regression"`` (real values, or many whole
        numbers).
    what : str
        ``holds ...`` and what that looks like, for after the column's name.
    advice : str
        What to do, in the door's words.
    """

    __slots__ = ("kind", "what", "advice")

    def __init__(self, kind: str, what: str, advice: str):
        self.kind, self.what, self.advice = kind, what, advice


#: what to do with a regression target, said to whoever brings one to a binary measure
SQUARED_ERRORS = (
    "the regression measures read it (mae, rmse, r2, ...: `perfeval list-measures`), with "
    "task='regression' in Python"
)
SQUARED_ERRORS_CLI = "the regression measures read it (-m mae,rmse,r2 or --task regression)"


def read_targets(y: Any, words: LabelWords, scores: tuple[str, ...] = ()) -> TargetsRead:
    """What the targets ``y`` (not 0/1, -1/1 or booleans, no NaN) look like to a binary measure, and
    what to do: two labels, one to name positive (one that looks positive suggested, never one
    that looks negative); three or more classes (perfeval has no multiclass measures); small
    whole numbers >= 0 (graded relevance, or classes: a positive label would count one grade
    alone); real values or many whole numbers (a regression target: the regression measures read
    it; no positive label is suggested).  ``scores``: the score columns of several models, said to
    be one a class when there are as many as classes.
    """
    vals = _distinct(np.asarray(y))
    n = len(vals)
    count = f"{n:,} distinct " if words.whole else ""
    if vals.dtype.kind in "iuf" and n > 2:
        f = vals.astype(np.float64)
        shown = ", ".join(f"{shown_label(v)!r}" if float(v).is_integer() else f"{v:.6g}" for v in f[:3]) + (
            ", ..." if n > 3 else ""
        )
        if not bool(np.all(f == np.floor(f))):
            if f[0] >= 0 and f[-1] <= 1:
                swapped = (
                    "scores or probabilities rather than targets (is --target the score column?)"
                    if words.cli
                    else "scores or probabilities rather than targets (the targets come first, as in "
                    "scikit-learn: y_true, y_score; torchmetrics takes the predictions first)"
                )
                what = f"holds {count}real values in [0, 1] ({shown}): {swapped}, or a regression target"
            else:
                what = f"holds {count}real values ({shown}): this looks like a regression target"
            advice = words.as_regression()
            return TargetsRead("regression", what, advice)
        if f[0] >= 0 and f[-1] <= 10:
            return _grades(vals, words)
        if n > 20:
            what = (
                f"holds {count}whole numbers ({shown}): a regression target or class ids (the multiclass "
                "measures read one score column per class)"
            )
            advice = words.as_regression()
            return TargetsRead("regression", what, advice)
    if n > 2:
        return _classes(vals, words, scores)
    return _labels(vals, words)


def _labels(vals: np.ndarray, words: LabelWords) -> TargetsRead:
    """One or two labels: name the positive one (never one that looks negative); one or two real
    values (not whole numbers) are not labels to name: their regression reading is said.
    """
    what = f"holds {label_values(vals)}"
    if vals.dtype.kind == "f" and not bool(np.all(vals == np.floor(vals))):
        test = f"== {shown_label(vals[-1])!r}"
        real = "a real value, not a whole number" if len(vals) == 1 else "real values, not whole numbers"
        return TargetsRead(
            "labels",
            f"{what} ({real})",
            f"{words.as_regression()}; if they are labels, {words.code(test)}",
        )
    choice = positive_choice(vals)
    candidates = [v for v in vals if not _looks(v, NEGATIVE_WORDS)]
    if not words.pos_label:
        if choice is not None:
            return TargetsRead("labels", what, words.code(f"== {shown_label(choice)!r}"))
        return TargetsRead("labels", what, words.code("== LABEL") + " (LABEL: the positive one)")
    name = "--pos-label" if words.cli else "pos_label="
    if choice is not None:
        example = f", e.g. {words.pos(choice)}" if words.cli else f" (e.g. {words.pos(choice)})"
        return TargetsRead("labels", what, f"name the positive label with {name}{example}")
    if not candidates:  # only labels that look negative: no example to give
        none = "it looks negative" if len(vals) == 1 else "none of these looks like one"
        return TargetsRead("labels", what, f"name the positive label with {name} ({none}: no positive case?)")
    return TargetsRead(
        "labels", what, "name the positive label: " + " or ".join(words.pos(v) for v in candidates)
    )


def _classes(vals: np.ndarray, words: LabelWords, scores: tuple[str, ...]) -> TargetsRead:
    """Three or more labels: a multiclass problem, evaluated one class against the rest."""
    n = len(vals)
    # whole numbers (the only numbers read as classes): a count, or another whole-number regression
    # target, is as likely as class ids; its regression reading is offered beside the positive label
    numbers = vals.dtype.kind in "iuf" and len(scores) != n  # not a score column a class
    count = numbers and float(vals[0]) >= 0
    what = f"holds {label_values(vals)}: {n:,} classes{'' if words.whole else ' or more'}"
    if numbers:
        what += ", or a count" if count else ", or whole-number values of a regression target"
    regression = f"; {'or ' if words.regression else ''}{words.as_regression(count=count)}" if numbers else ""
    multi = (
        "the multiclass measures read one score column per class (--score COL_A,COL_B,... --classes A,B,...)"
        if words.cli
        else "the multiclass measures read one score column per class (y_score (n, K), classes=[...])"
    )
    choice = class_choice(vals)
    label = shown_label(choice)
    if not words.pos_label:
        return TargetsRead(
            "classes",
            what,
            f"{multi}; " + words.code(f"== {label!r}") + " is one class against the rest" + regression,
        )
    advice = (
        f"{multi}; the binary measures: {words.pos(choice)} evaluates {label!r} against the other classes"
    )
    if words.partition:
        advice += ", --partition NAME=LABEL,... several labels against the rest"
    if words.cli and len(scores) == n:  # a score column a class: each with its own
        advice += (
            f"; a score column a class ({', '.join(scores)}): one command a class, "
            f"--score {scores[0]} --pos-label ITS_CLASS"
        )
    return TargetsRead("classes", what, advice + regression)


def _grades(vals: np.ndarray, words: LabelWords) -> TargetsRead:
    """Small whole numbers >= 0: graded relevance (or classes); a positive label counts one grade alone."""
    lowest, top = shown_label(vals[0]), shown_label(vals[-1])
    what = (
        f"holds {label_values(vals)}: graded relevance, {len(vals)} classes or a count, not a binary target"
    )
    above = f"every grade above {lowest}" + (" (as MAP reads them)" if lowest == 0 else "")
    if not words.pos_label:
        advice = words.code(f"> {lowest}") + f" counts {above}"
    else:
        advice = f"{words.pos(top)} would count grade {top} alone as positive; "
        if words.partition:
            import shlex

            grades = ",".join(str(shown_label(v)) for v in vals[1:])
            advice += f"--partition {shlex.quote('relevant=' + grades)} counts {above}"
        elif words.cli:
            advice += f"code the column 1 for {above}, 0 for the rest"
        else:
            advice += f"passing np.asarray(y_true) > {lowest} counts {above}"
    advice += (
        "; the ranking measures (ndcg, map, ...) read the grades themselves, and the multiclass "
        "measures one score column per class"
    )
    advice += f"; {'or ' if words.regression else ''}{words.as_regression(count=True)}"

    return TargetsRead("grades", what, advice)


def _missing_hint(y: np.ndarray, rows: np.ndarray) -> str | None:
    """A missing target among the targets ``y`` (NaN, or None, pandas' NA or NaT among Python
    objects), found and counted in ``rows``: what to do; else None.
    """
    vals = _distinct(np.asarray(y))
    if vals.dtype.kind == "f" and bool(np.isnan(vals).any()):
        missing = np.isnan(np.asarray(rows, dtype=np.float64))
        return (
            f"the NaN (first at index {int(np.argmax(missing))}, {int(missing.sum()):,} in all) is a missing "
            "target: drop or fill those cases"
        )
    if np.asarray(rows).dtype.kind == "O":  # None, NaN, pandas' NA or NaT among Python objects
        at = [i for i, v in enumerate(np.asarray(rows).tolist()) if _missing(v)]
        if at:
            return (
                f"{str(rows[at[0]])!r} is a missing target (first at index {at[0]}, {len(at):,} in all): "
                "drop or fill those cases"
            )
    return None


def _missing(v: Any) -> bool:
    """Whether a Python value in an object column is a missing value: None, NaN, pandas' NA or NaT."""
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ in ("NAType", "NaTType")


# -- identities --------------------------------------------------------------------------------------------
def identity_groups(g: np.ndarray) -> np.ndarray:
    """Groups as ids: integral floats become int64 (a group prints as 5, not 5.0); fractional floats,
    floats past 2**53 (where distinct ids may already have merged), NaN and None are refused.
    """
    if g.dtype.kind == "f":
        bad = ~np.isfinite(g)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidDataError(
                f"`groups` holds {float(g[i])!r} at index {i}; every case needs a group id"
            )
        frac = g != np.floor(g)
        if frac.any():
            i = int(np.argmax(frac))
            raise InvalidDataError(
                f"`groups` holds the float {float(g[i])!r} at index {i}; group ids are integers or strings"
            )
        big = np.abs(g) >= 2.0**53
        if big.any():
            i = int(np.argmax(big))
            raise InvalidDataError(
                f"`groups` holds the float {float(g[i])!r} at index {i}: past 2**53 distinct "
                "integer ids can become "
                "the same float; pass the ids as integers or strings"
            )
        return g.astype(np.int64)
    if g.dtype.kind == "O":
        values = g.tolist()
        for i, v in enumerate(values):
            if v is None or (isinstance(v, float) and v != v):
                raise InvalidDataError(f"`groups` holds {v!r} at index {i}; every case needs a group id")
        kinds = {type(v) for v in values}
        if len(kinds) > 1 and len({id_kind(k) for k in kinds}) > 1:  # 1 and "a": not one kind of id
            first: dict[str, int] = {}
            for i, v in enumerate(values):
                first.setdefault(id_kind(type(v)), i)
                if len(first) == 2:
                    break
            (ka, ia), (kb, ib) = first.items()
            raise InvalidDataError(
                f"`groups` mixes {ka} ({values[ia]!r} at index {ia}) and {kb} ({values[ib]!r} at index "
                f"{ib}); group ids are all integers or all strings"
            )
    return g


def id_kind(t: type) -> str:
    """What kind of id a Python value of type ``t`` is, for :func:`identity_groups`."""
    if issubclass(t, (str, np.str_)):
        return "strings"
    if issubclass(t, (bool, np.bool_)):
        return "booleans"
    if issubclass(t, (int, np.integer)):
        return "integers"
    if issubclass(t, (float, np.floating)):
        return "floats"
    return t.__name__


def deprecated_weights(sample_weight: Any, weights: Any, func: str) -> Any:
    """``sample_weight``, or its deprecated spelling ``weights`` with a DeprecationWarning naming
    ``func`` (said at the line that called it); both at once is an error.  Written once, for every
    entry point that still takes ``weights=`` (:func:`perfeval.evaluate`, :func:`perfeval.ci`, ...).
    """
    if weights is None:
        return sample_weight

    if sample_weight is not None:
        raise InvalidParameterError("pass `sample_weight=` only (`weights=` is its deprecated spelling)")

    warnings.warn(  # at the caller's line, through any wrapper (measures_keyword's) too
        f"{func}(weights=...) is deprecated; use sample_weight=...",
        DeprecationWarning,
        stacklevel=user_stacklevel(),
    )
    return weights


def is_dask(obj: Any) -> bool:
    """Whether ``obj`` is a Dask collection (by its type's module: Dask itself is not imported)."""
    mod = type(obj).__module__
    return mod.startswith("dask.") or mod.startswith("dask_expr")


# -- tables ------------------------------------------------------------------------------------------------
def table_names(table: Any) -> list[str] | None:
    """The column names of a pandas/polars/Dask DataFrame, a pyarrow Table or a mapping."""
    if isinstance(table, Mapping):
        return [str(k) for k in table]
    names = getattr(table, "column_names", None)  # pyarrow
    if names is None:
        names = getattr(table, "columns", None)  # pandas (an Index), polars (a list)
    if names is None:
        return None
    try:
        return [str(c) for c in list(names)]
    except TypeError:
        return None


def column(table: Any, name: str) -> Any:
    """A column of a table by name, or one line saying which columns there are."""
    names = table_names(table)
    if names is not None and name not in names:
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise InvalidParameterError(
            f"column {name!r} is not in the table (columns: {', '.join(names)}{hint})"
        )
    try:
        return table[name]
    except Exception:  # any library's own error, said as ours
        raise InvalidParameterError(f"column {name!r} cannot be read from the table") from None


# -- the check stage: an entry point's arrays, by its table of ArraySpec -----------------------------------
class ArraySpec(NamedTuple):
    """What one array argument of an entry point must be, said once (as
    :class:`~perfeval.measures.Param` says it of a measure's parameter); :func:`check_array` checks
    it and a table of them (:data:`EVALUATION`) is an entry point's door.

    Attributes
    ----------
    name : str
        The argument, as messages name it (``"y_score"``, ``"sample_weight"``).
    kind : str
        ``"labels"``: as given (labels or numbers; complex numbers refused); ``"floats"``: float64
        (:func:`floats`); ``"ids"``: identities, never floats (:func:`identity_groups`).
    finite : bool
        No NaN and no +-inf (scores: NaN cannot be ranked).
    nonneg : bool
        No value below 0 (weights; with ``finite``).
    """

    name: str
    kind: str = "floats"
    finite: bool = False
    nonneg: bool = False


#: the arrays of an evaluation (evaluate, Metric.update, the streaming and Dask backends), in the
#: order they are read and checked; the second is the one the others' lengths are said against
EVALUATION = (
    ArraySpec("y_true", "labels"),
    ArraySpec("y_score", "floats", finite=True),
    ArraySpec("groups", "ids"),
    ArraySpec("sample_weight", "floats", finite=True, nonneg=True),
)


def check_array(spec: ArraySpec, x: Any, length: tuple[str, int, bool] | None = None) -> np.ndarray:
    """``x`` read and checked as ``spec`` says, in this order: its kind, its length (``length``: the
    argument it is measured against, that one's length, and whether the two are said as a pair,
    ``y_true`` and ``y_score``), its values.
    """
    a = to_numpy(x, spec.name)
    if spec.kind == "labels":
        if a.dtype.kind == "c":  # not labels, and not relevance grades either
            raise InvalidDataError(
                f"`{spec.name}` must hold labels or real numbers, got complex values ({a.dtype})"
            )
    elif spec.kind == "ids":
        a = identity_groups(a)
    else:
        a = floats(a, spec.name)
    if length is not None:
        other, n, pair = length
        if pair:
            check_pair(n, a, (other, spec.name))
        else:
            same_length(spec.name, a, n, other)
    if spec.finite and spec.nonneg:
        check_weights(a, spec.name)
    elif spec.finite:
        check_scores(a, spec.name)
    return a


class Cases:
    """Checked arrays of one evaluation: targets as given, float64 scores (finite), group ids (never
    floats) or None, float64 weights or None; cases of weight 0 already dropped (``rows_in`` counts
    them).  ``targets``: the targets coded (the code stage, :func:`perfeval.engine.door.code`), or None.
    """

    __slots__ = ("y", "s", "g", "w", "rows_in", "targets", "zero_groups")

    def __init__(
        self, y: np.ndarray, s: np.ndarray, g: np.ndarray | None, w: np.ndarray | None, rows_in: int
    ):
        self.y, self.s, self.g, self.w, self.rows_in = y, s, g, w, rows_in
        self.targets: Any = None
        #: the groups whose rows all had weight 0, gone with them (sorted; None: none), to be said
        #: (:func:`say_zero_weight_groups`)
        self.zero_groups: np.ndarray | None = None


def check(
    y_true: Any,
    y_score: Any,
    groups: Any = None,
    weights: Any = None,
    *,
    keep_zero: bool = False,
    specs: tuple[ArraySpec, ...] = EVALUATION,
    weight_name: str | None = None,
) -> Cases:
    """The check stage: the arrays of an evaluation checked once, each as its :class:`ArraySpec`
    in ``specs`` says (lengths, finite scores, ids, weights), and the cases of weight 0 dropped: a
    case of weight 0 is no case at all, for every measure, so it must add no distinct score, rank,
    group or count anywhere below.  ``keep_zero``: keep them (for a dialect whose tool counts their
    scores, as Spark's binning does).  ``weight_name``: the weights' keyword as the user typed it
    (``"weights"``, the deprecated spelling), for the messages; None: the spec's name.
    """
    yt = check_array(specs[0], y_true)
    ys = check_array(specs[1], y_score, (specs[0].name, len(yt), True))
    against = (specs[1].name, len(ys), False)
    g = None if groups is None else check_array(specs[2], groups, against)
    wspec = specs[3] if weight_name is None else specs[3]._replace(name=weight_name)
    w = None if weights is None else check_array(wspec, weights, against)
    rows_in = len(ys)
    zero = None
    if w is not None and not w.all() and not keep_zero:
        keep = w > 0
        if g is not None:
            zero = zero_weight_groups(g, keep)
        yt, ys, w = yt[keep], ys[keep], w[keep]
        g = None if g is None else g[keep]
    cases = Cases(yt, ys, g, w, rows_in)
    cases.zero_groups = zero
    return cases


def zero_weight_groups(g: np.ndarray, keep: np.ndarray) -> np.ndarray | None:
    """The groups of ``g`` without a row of ``keep`` (weight > 0), sorted; None when there are none.
    Costs a sort of the groups, only when some weight is 0.
    """
    dropped = np.unique(g[~keep])
    gone = dropped[~np.isin(dropped, g[keep])]
    return gone if len(gone) else None


def zero_weight_groups_text(ids: Any, most: int = 5) -> str:
    """What :func:`say_zero_weight_groups` says of the groups ``ids``: their count, the first
    ``most`` of them.

    >>> zero_weight_groups_text(np.array(["a", "b"]))
    '2 groups (a, b) have only rows of weight 0: left out, as rows of weight 0 are'
    >>> zero_weight_groups_text(np.arange(7))
    '7 groups (0, 1, 2, 3, 4, ...) have only rows of weight 0: left out, as rows of weight 0 are'
    """
    ids = list(np.asarray(ids).tolist())
    shown = ", ".join(str(v) for v in ids[:most]) + (", ..." if len(ids) > most else "")
    what = f"1 group ({shown}) has" if len(ids) == 1 else f"{len(ids)} groups ({shown}) have"
    return f"{what} only rows of weight 0: left out, as rows of weight 0 are"


def say_zero_weight_groups(ids: Any) -> None:
    """The groups ``ids`` (None: none) whose rows all have weight 0, said in a
    :class:`~perfeval.exceptions.ZeroWeightGroupsWarning` (the command line: a note).
    """
    if ids is not None and len(ids):
        from perfeval.exceptions import ZeroWeightGroupsWarning, warn

        warn(zero_weight_groups_text(ids), ZeroWeightGroupsWarning)


def grades_as_labels(y: Any, specs: list) -> tuple[list[str], str] | None:
    """The group AUCs among ``specs`` that would read graded targets ``y`` as labels (a grade above 0
    positive), with the grades shown (``"0, 1, 2, 3"``); None when there is nothing to say (no group
    AUC, or targets 0/1).  Said by evaluate() in a warning and by the command line in a note.
    """
    grouped = [s.label for s in specs if s.measure.kind == "grouped"]
    if not grouped:
        return None
    t = np.asarray(y)
    if t.dtype.kind not in "biuf" or not bool(np.any((t != 0) & (t != 1))):  # O(n); the sort to say which
        return None
    values = np.unique(t)
    return grouped, ", ".join(f"{v:g}" for v in values[:6].tolist()) + (", ..." if len(values) > 6 else "")


def check_options(*, threshold: Any, tie_bounds: Any = False, partitions: Any = None) -> None:
    """The options of evaluate() and Metric in their domains, before any row is read: a threshold
    is a number (+-inf too, never NaN: every case would fall on one side), ``tie_bounds`` True or
    False, ``partitions`` a mapping of names to labels.
    """
    if (
        isinstance(threshold, (bool, np.bool_))
        or not isinstance(threshold, numbers.Real)
        or threshold != threshold
    ):
        raise InvalidParameterError(f"`threshold` must be a number (+-inf allowed), got {threshold!r}")
    if not isinstance(tie_bounds, (bool, np.bool_)):
        raise InvalidParameterError(f"`tie_bounds` must be True or False, got {tie_bounds!r}")
    if partitions is not None and not isinstance(partitions, Mapping):
        raise InvalidParameterError(
            "`partitions` maps a name to the labels that are positive in it (e.g. {'narrow': ['change']}), "
            f"got {type(partitions).__name__}"
        )
