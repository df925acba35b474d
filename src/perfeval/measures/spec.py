"""Measure specifications: a measure with its parameters, parsed from text and printed back.

Grammar (case-insensitive names)::

    spec   := name [ "@" value ] [ ":" param "=" value { "," param "=" value } ]
    e.g.      roc   ndcg@10   slq:bins=100   fbeta:beta=2   p@5   cost:fp=5,fn=1
              ndcg@10:gain=linear

``@value`` sets the measure's first parameter (its cut-off ``k`` for the ranking measures).
Values are numbers, or a word for a parameter with choices (``gain``); nothing is evaluated.
A spec prints back in canonical form (``NDCG@10``, ``SLQ:bins=100``) and is hashable, so it can
key a report.  Another tool's spelling (``ndcg_cut_10``) means that tool's definition: see
:mod:`perfeval.measures.spellings`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from perfeval.exceptions import InvalidParameterError, UnknownMeasureError
from perfeval.measures.base import REGISTRY, Measure, Param

# Start-up: `perf -h` and `list-measures` read the registry through this module; difflib and
# the other tools' spellings are imported where a name is not found or is another tool's.

_NUM = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?inf$", re.IGNORECASE)


def _number(text: str, where: str) -> float | int:
    t = text.strip()
    if not _NUM.match(t):
        raise InvalidParameterError(f"{where}: expected a number, found {t!r}")
    v = float(t)
    return int(v) if v.is_integer() and "." not in t and "e" not in t.lower() else v


def _value(param: Param, text: str, where: str) -> float | int | str:
    """A parameter's value from text: a word of its choices (any case), else a number."""
    if param.choices:
        word = text.strip().lower()
        if word not in param.choices:
            raise InvalidParameterError(f"{where}: expected {param.domain}, found {text.strip()!r}")
        return word
    return _number(text, where)


@dataclass(frozen=True)
class MeasureSpec:
    """A measure and the parameter values to use (defaults filled in)."""

    measure: Measure
    params: tuple[tuple[str, Any], ...] = field(default_factory=tuple)

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def direction(self) -> str:
        """Which way is better for this spec's value: the measure's direction, but ``"none"`` for an
        operating point's score threshold (``of=threshold``: a higher or lower threshold is no better
        model).
        """
        return "none" if self.kwargs.get("of") == "threshold" else self.measure.direction

    @property
    def label(self) -> str:
        """Canonical text: the name, ``@k`` for a set first parameter, ``:p=v`` for the others; a
        threshold other than the default 0.5 is always shown (``ACC@0.7``), set here or by ``-t``.
        """
        m = self.measure
        given = {
            k: v for k, v in self.params if k in self._set or (k == "threshold" and v != _DEFAULT_THRESHOLD)
        }
        later = [f"{k}={v}" for k, v in self.pending]
        if not given and not later:
            return m.name
        first = m.params[0].name if m.params else None
        text = m.name
        if first in given and _at(m):
            text += f"@{_fmt(given.pop(first))}"
        items = [f"{k}={_fmt(v)}" for k, v in given.items()] + later
        if items:
            text += ":" + ",".join(items)
        return text

    # names of parameters that were given explicitly (kept out of eq/hash via object.__setattr__)
    _set: frozenset = field(default=frozenset(), compare=False, repr=False)
    #: the name as the user wrote it when it is another tool's spelling (``ndcg_cut_10``), else ""
    #: (:mod:`perfeval.trec` keeps every name asked here: its outputs name the measures so)
    written: str = field(default="", compare=False, repr=False)
    #: that tool (``trec_eval``, ``ir_measures``, ``ranx``), else ""
    tool: str = field(default="", compare=False, repr=False)
    #: parameters (name, value as written) the measure does not have but its form for K classes or
    #: K labels does (``roc:average=weighted``), kept by ``parse_measure(..., pending=True)`` until
    #: the task is known: :func:`perfeval.engine.classes.class_specs` gives them to that form, and
    #: :func:`refuse_pending` refuses them for one score a case
    pending: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    #: computed beside another spec, not asked (the command's ``of=threshold`` of an operating point,
    #: shown as that measure's threshold): no warning of its own (the value's says it)
    companion: bool = field(default=False, compare=False, repr=False)

    def __str__(self) -> str:
        return self.label

    def __call__(self, summary: Any) -> float:
        return self.measure(summary, **self.kwargs)


#: the threshold of the threshold measures when none is given
_DEFAULT_THRESHOLD = 0.5


def _at(m: Measure) -> bool:
    """Whether ``name@value`` sets the measure's first parameter: its ``at_param``, or a threshold
    measure's threshold (``acc@0.7``).
    """
    return m.at_param or bool(m.params and m.params[0].name == "threshold")


def _fmt(v: Any) -> str:
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


_PARAM_ITEM = re.compile(r"^\s*[A-Za-z_]\w*\s*=")


def split_measures(text: str) -> list[str]:
    """A comma-separated list of measures as its specs: commas inside parentheses (ir_measures'
    ``SetF(rel=2,beta=4)``) do not split, and a ``param=value`` item continues the spec before it
    when that spec has parameters (``ndcg:gain=linear,k=10,map`` is two measures).

    Raises
    ------
    InvalidParameterError
        A ``param=value`` item with no spec before it to belong to, or unbalanced parentheses.

    Examples
    --------
    >>> split_measures("roc, ndcg:gain=linear,k=10,map")
    ['roc', 'ndcg:gain=linear,k=10', 'map']
    >>> split_measures("SetF(rel=2,beta=4),P@5")
    ['SetF(rel=2,beta=4)', 'P@5']
    """
    items: list[str] = []
    depth, start = 0, 0
    for i, c in enumerate(text + ","):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                raise InvalidParameterError(f"measures {text!r}: a ')' without its '('")
        elif c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if depth:
        raise InvalidParameterError(f"measures {text!r}: a '(' without its ')'")
    out: list[str] = []
    for item in items:
        if not item.strip():
            continue
        if _PARAM_ITEM.match(item) and "(" not in item:
            if not out or ":" not in out[-1]:
                raise InvalidParameterError(
                    f"measures {text!r}: {item.strip()!r} is a parameter with no measure before it "
                    "(parameters follow a measure and a ':', e.g. ndcg:gain=linear,k=10)"
                )
            out[-1] += "," + item.strip()
        else:
            out.append(item.strip())
    return out


def _lookup(name: str, raw: str) -> Measure:
    """The registry measure ``name``; unknown: the error suggests close registry names and close
    spellings of other tools (``ndcg_cut10`` -> ``ndcg_cut_10``).
    """
    try:
        return REGISTRY.get(name)
    except UnknownMeasureError:
        import difflib

        if re.fullmatch(r"\w+\(.*\)(@\d+)?", raw.strip()):
            raise UnknownMeasureError(
                f"{raw!r}: ir_measures' parameters in parentheses are not read here; write the measure "
                "with perfeval's parameters (name@k:param=value, `perfeval list-measures --long`), and for "
                "rel=N (relevant from grade N) `perfeval trec --level N` (docs/ranking.md)"
            ) from None

        from perfeval.measures.spellings import table

        k = (re.findall(r"\d+", raw) or ["10"])[-1]
        spelled = [sp.replace("{k}", k) for _tool, sp, _m in table()]
        close = difflib.get_close_matches(raw, spelled, n=3, cutoff=0.75)
        if not close:
            raise
        raise UnknownMeasureError(
            f"unknown measure {raw!r}; did you mean {', '.join(repr(c) for c in close)}? "
            "(`perfeval list-measures` lists perfeval's names; docs/ranking.md other tools' spellings)"
        ) from None


def _forms_with(m: Measure, key: str) -> list[str]:
    """The forms of ``m`` for K classes and K labels (their names) that have the parameter ``key``."""
    from perfeval.measures.vocabulary import MULTICLASS_OF, MULTILABEL_OF

    out = []
    for of in (MULTICLASS_OF, MULTILABEL_OF):
        form = of.get(m.name)
        if form is not None and any(p.name == key for p in REGISTRY.get(form).params) and form not in out:
            out.append(form)
    return out


def _no_parameter(m: Measure, key: str, value: str = "") -> str:
    """The message of a parameter ``m`` does not have; one its forms for K classes or K labels have
    is named with them (``roc_ovr:average=weighted``).
    """
    from perfeval.measures.vocabulary import REGRESSION_OF

    names = ", ".join(p.name for p in m.params) or "none"
    reg = REGRESSION_OF.get(m.name) or (m.name if m.name in REGRESSION_OF.values() else None)
    if key == "squared" and reg is not None:  # scikit-learn's mean_squared_error(squared=False), gone
        return (
            f"'squared' was scikit-learn's mean_squared_error parameter (removed in scikit-learn 1.6; "
            f"{m.name} has none): write rmse for the root of the mean squared error, mse for the mean "
            "squared error (on a regression target RMSE_REG and MSE_REG, scikit-learn's "
            "root_mean_squared_error and mean_squared_error; on a 0/1 target PERF's RMS and BRIER)"
        )
    text = f"measure {m.name} has no parameter {key!r} (parameters: {names})"
    if reg is not None and reg != m.name:  # `rmse` on a regression target is RMSE_REG: named too
        own = ", ".join(p.name for p in REGISTRY.get(reg).params) or "none"
        text += f"; on a regression target it is {reg} (parameters: {own})"
    forms = _forms_with(m, key)
    if forms:
        kinds = {"multiclass": "K classes", "multilabel": "K labels"}
        shown = ", ".join(
            f"{f.lower()}:{key}={value.strip() or '...'} (of {kinds.get(REGISTRY.get(f).kind, 'K classes')})"
            for f in forms
        )
        text += f"; its form{'s' if len(forms) > 1 else ''} with it: {shown}"
    return text


def refuse_pending(specs: Any) -> None:
    """One line for the first spec that keeps a parameter only its form for K classes or K labels
    has (``roc:average=weighted``), asked of one score a case.
    """
    for s in specs:
        if s.pending:
            key, value = s.pending[0]
            raise InvalidParameterError(_no_parameter(s.measure, key, value))


def parse_measure(
    text: str | MeasureSpec | Measure, *, trec: bool = False, _tools: bool = True, pending: bool = False
) -> MeasureSpec:
    """Parse ``"ndcg@10"``, ``"slq:bins=100"``, a registry name or alias, a PERF option, or another
    tool's spelling (``ndcg_cut_10``, ``nDCG@10``, ``P_5``: that tool's definition, see
    :mod:`perfeval.measures.spellings`; ``trec=True`` reads ``ndcg`` as trec_eval does).
    ``pending``: a parameter the measure does not have but its form for K classes or K labels does
    (``roc:average=weighted``, ``f1:beta=2``) is kept in :attr:`MeasureSpec.pending`, for the caller
    that knows the task (:func:`perfeval.engine.classes.class_specs`), instead of refused.

    Raises
    ------
    UnknownMeasureError
        An unknown name (with close matches).
    InvalidParameterError
        A parameter the measure does not have, or a value that is not a number.

    Examples
    --------
    >>> parse_measure("ndcg@10").label
    'NDCG@10'
    >>> parse_measure("slq:bins=100").kwargs
    {'bins': 100}
    >>> parse_measure("-roc").label
    'ROC'
    >>> s = parse_measure("ndcg_cut_10")
    >>> s.label, s.written, s.tool
    ('NDCG@10:gain=linear', 'ndcg_cut_10', 'trec_eval')
    """
    if isinstance(text, MeasureSpec):
        return text
    if isinstance(text, Measure):
        return MeasureSpec(text, tuple(text.defaults().items()))
    raw = text.strip()
    name, colon, rest = raw.partition(":")
    _no_empty_parameters(raw, name, colon, rest)
    from perfeval.measures.spellings import tool_spelling

    spelling = tool_spelling(name, trec=trec) if _tools else None
    if spelling is not None:
        meant = spelling.text
        rest = _beside_spelling(raw, name.strip(), spelling, rest) if rest else ""
        if rest:
            meant += ("," if ":" in meant else ":") + rest
        spec = parse_measure(meant, _tools=False, pending=pending)
        object.__setattr__(spec, "written", raw)
        object.__setattr__(spec, "tool", spelling.tool)
        return spec
    at = None
    if "@" in name:
        name, _, at = name.partition("@")
    m = _lookup(name.strip(), raw)
    params = m.defaults()
    given: set[str] = set()
    later: list[tuple[str, str]] = []
    if at is not None:
        if not m.params or not _at(m):
            raise InvalidParameterError(f"measure {m.name} takes no @ parameter (in {raw!r})")
        first = m.params[0].name
        params[first] = _value(m.params[0], at, f"{raw!r}, @{first}")
        given.add(first)
    if rest:
        for item in rest.split(","):
            key, eq, val = item.partition("=")
            key = key.strip().lower()
            if not eq:
                raise InvalidParameterError(f"{raw!r}: expected param=value after ':', found {item!r}")
            if key in given or any(k == key for k, _v in later):  # never the last one silently
                _given_twice(raw, m, key, val, at)
            if key not in params:
                if pending and _forms_with(m, key) and ":" not in val:
                    later.append((key, val.strip()))
                    continue
                raise InvalidParameterError(_no_parameter(m, key, val))
            if ":" in val:
                raise InvalidParameterError(
                    f"{raw!r}: parameters are separated by commas, e.g. "
                    f"{m.name.lower()}:{key}={val.split(':', 1)[0]},{val.split(':', 1)[1]}"
                )
            params[key] = _value(next(p for p in m.params if p.name == key), val, f"{raw!r}, {key}")
            given.add(key)
    m.check_params({k: params[k] for k in given})  # defaults are in their domains (tested)
    spec = MeasureSpec(m, tuple(params.items()))
    object.__setattr__(spec, "_set", frozenset(given))
    object.__setattr__(spec, "pending", tuple(later))
    m.check_together(params, spec.label)  # here, before any data is read
    return spec


def _no_empty_parameters(raw: str, name: str, colon: str, rest: str) -> None:
    """A ':' with nothing after it (``cal_slope:``), or an empty parameter between commas: refused,
    every measure alike (one parser).
    """
    if colon and not rest.strip():
        raise InvalidParameterError(
            f"{raw!r}: a ':' with no parameter after it (write {name.strip()}, or "
            f"{name.strip()}:param=value; `perfeval list-measures --long` gives each measure's)"
        )
    if colon and any(not item.strip() for item in rest.split(",")):
        raise InvalidParameterError(f"{raw!r}: an empty parameter between commas (or after the last)")


def _given_twice(raw: str, m: Measure, key: str, val: str, at: str | None) -> None:
    """A parameter given twice (``ece:n_bins=10,n_bins=20``, ``ndcg@10:k=5``): one line naming it."""
    first = f"@{at.strip()} and {key}=" if at is not None and m.params and key == m.params[0].name else ""
    raise InvalidParameterError(
        f"{raw!r}: parameter {key!r} given twice"
        + (f" ({first}{val.strip()}): give it once" if first else ": give it once")
    )


def _beside_spelling(raw: str, name: str, spelling: Any, rest: str) -> str:
    """The parameters ``rest`` written after another tool's spelling (``ndcg_cut_10:...``), less those
    the spelling sets itself to the same value; one it sets to another value is refused (it would be
    another measure than the tool's, not silently the last one written).
    """
    fixed = {k: str(v).lower() for k, v in spelling.params}
    kept = []
    for item in rest.split(","):
        key, eq, val = item.partition("=")
        key = key.strip().lower()
        if eq and key in fixed:
            if val.strip().lower() != fixed[key] and key == "k":
                raise InvalidParameterError(
                    f"{raw!r}: {spelling.tool}'s {name} sets its cut-off k={fixed[key]} in its name; "
                    "another cut-off is another name"
                )
            if val.strip().lower() != fixed[key]:
                raise InvalidParameterError(
                    f"{raw!r}: {spelling.tool}'s {name} sets {key}={fixed[key]} itself; another {key} is "
                    f"another measure: write perfeval's ({spelling.measure.lower()}:{key}={val.strip()})"
                )
            continue
        kept.append(item)
    return ",".join(kept)


def with_threshold(spec: MeasureSpec, threshold: float) -> MeasureSpec:
    """``spec`` with ``threshold`` where it has a threshold it does not set itself."""
    if "threshold" not in spec.kwargs or "threshold" in spec._set:
        return spec
    spec.measure.check_params({"threshold": threshold})
    kw = dict(spec.params)
    kw["threshold"] = threshold
    new = MeasureSpec(spec.measure, tuple(kw.items()))
    for attr in ("_set", "written", "tool", "pending", "companion"):
        object.__setattr__(new, attr, getattr(spec, attr))
    return new
