"""Which columns of a table are used: one rule for every command and every reader.

A column is named by the user (``--target label``), by position (``--score 4``, 1-based), or, when
omitted, taken by its conventional name where the table has a header (``score``, ``prediction``,
``pred``, ``p``, ``prob`` for the score; ``target``, ``label``, ``y``, ``y_true``, ``click``,
``rel`` for the target).  A headerless table keeps PERF's layout: the target first, the score
second.  A number is a position, except in a table with a header where the same command names
some column by a name that is not a number (``--target label --score 0,1,2``: pandas'
``predict_proba`` columns of integer classes): there an option whose numbers are each exactly one
header column's name names those columns (:func:`names_first`, :func:`all_named`; the command says
so, :meth:`Choice.numbers_as_names`), and an option with a number that is no header name reads all
its numbers as positions, as ever.
Nothing is guessed silently: a name that is missing, misspelt or appears twice, a header
with no conventional name or with two, is an error that lists the columns; what was used is
described by :meth:`Choice.describe` so the command can say it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from perfeval.base.text import place
from perfeval.exceptions import InvalidParameterError

#: conventional names, searched case-insensitively when a table with a header leaves a role unnamed
DEFAULT_NAMES: dict[str, tuple[str, ...]] = {
    "target": ("target", "label", "y", "y_true", "click", "rel"),
    "score": ("score", "prediction", "pred", "p", "prob"),
}
#: the roles' positions in a headerless table (PERF's `target prediction` lines)
DEFAULT_POSITIONS: dict[str, int] = {"target": 1, "score": 2}


@dataclass(frozen=True)
class Column:
    """One chosen column: its role, 0-based index, name, and how it was chosen."""

    role: str
    index: int
    name: str
    how: str  # "name", "position", "default" or "number name" (a number that is a header's name)

    def describe(self) -> str:
        return f"{self.role} {self.name!r} ({self.index + 1})"


@dataclass
class Choice:
    """The columns a command reads: target, one or more scores, optional group and weight."""

    target: Column
    scores: list[Column]
    group: Column | None = None
    weight: Column | None = None
    extra: dict[str, Column] = field(default_factory=dict)
    width: int = 0  # the table's number of columns

    @property
    def score(self) -> Column:
        return self.scores[0]

    def all(self) -> list[Column]:
        out = [self.target, *self.scores]
        out += [c for c in (self.group, self.weight) if c is not None]
        return out + list(self.extra.values())

    @property
    def defaulted(self) -> bool:
        """Whether some column was taken without the user naming it."""
        return any(c.how == "default" for c in self.all())

    @property
    def worth_saying(self) -> bool:
        """Whether a command should say which columns it used: some were taken by default, and the
        table is not the plain headerless two-column ``target score`` layout.
        """
        return self.defaulted and (
            any(c.how == "default" and not c.name.startswith("column") for c in self.all())
            or self.width > len(self.all())
        )

    def numbers_as_names(self) -> str:
        """A note on the numbers read as the header's column names (:func:`names_first`), or ""."""
        cols = [c for c in self.all() if c.how == "number name"]
        if not cols:
            return ""
        roles = list(dict.fromkeys(c.role for c in cols))
        shown = "; ".join(
            f"--{r} {','.join(c.name for c in cols if c.role == r)} (column"
            f"{'s' if sum(c.role == r for c in cols) > 1 else ''} "
            f"{', '.join(str(c.index + 1) for c in cols if c.role == r)})"
            for r in roles
        )
        return (
            f"{shown}: the header's column names, not positions (columns are named by name here, so a "
            "number that is exactly a header name is that column)"
        )

    def describe(self) -> str:
        """``target 'label' (3), score 'score' (4), group 'user' (1)``."""
        return ", ".join(c.describe() for c in self.all())

    def names(self) -> dict[str, object]:
        """Role -> column name (a list for several scores), for JSON output."""
        out: dict[str, object] = {"target": self.target.name}
        out["score"] = self.scores[0].name if len(self.scores) == 1 else [c.name for c in self.scores]
        for c in (self.group, self.weight, *self.extra.values()):
            if c is not None:
                out[c.role] = c.name
        return out


def _listing(names: list[str]) -> str:
    return ", ".join(names)


def names_first(header: bool, *specs: str | None) -> bool:
    """Whether numbers that are exactly a header column's name name that column: the table has a
    header and some spec (``--target label``; a list ``a,b`` counts by its parts) names a column by
    a name that is not a number.  Otherwise a number is a 1-based position, as ever.

    Examples
    --------
    >>> names_first(True, "label", "0,1,2"), names_first(True, "1", "0,2"), names_first(False, "label")
    (True, False, False)
    """
    if not header:
        return False
    parts = [p.strip() for spec in specs if spec for p in spec.split(",")]
    return any(p and not p.isdigit() for p in parts)


def all_named(names: list[str], spec: str | None) -> bool:
    """Whether every number of a list (``--score 0,1,2``) is exactly one header column's name: the
    list is then read by name (under :func:`names_first`), else its numbers are all positions.

    Examples
    --------
    >>> all_named(["label", "0", "1", "2"], "0,1,2"), all_named(["label", "0", "1", "2"], "2,3,4")
    (True, False)
    """
    parts = [p.strip() for p in (spec or "").split(",")]
    return all(sum(n == p for n in names) == 1 for p in parts if p.isdigit())


def pick(
    names: list[str],
    spec: str | None,
    role: str,
    source: str,
    *,
    header: bool,
    default: bool = True,
    by_name: bool = False,
) -> Column | None:
    """One column for ``role`` from ``spec`` (a name or a 1-based position), or its default.

    Parameters
    ----------
    names : list of str
        The table's column names in order (``column1, column2, ...`` without a header); a name may
        appear more than once.
    spec : str or None
        What the user gave; ``None``: the role's default (``None`` for roles without one).
    role : str
        ``"target"``, ``"score"``, ``"group"``, ``"weight"``: used in messages and defaults.
    source : str
        The file name, for messages.
    header : bool
        Whether the names come from a header (then omitted target/score are found by name).
    default : bool
        Whether an omitted spec takes the role's default at all.
    by_name : bool
        A number that is exactly one header column's name is that column (:func:`names_first`).

    Raises
    ------
    InvalidParameterError
        A position out of range, a name not in the table (with close matches), a name that appears
        twice, or no conventional name (or two of them) for an omitted role.

    Examples
    --------
    >>> pick(["user", "item", "label", "score"], None, "score", "f.csv", header=True).describe()
    "score 'score' (4)"
    >>> pick(["column1", "column2"], None, "target", "f.txt", header=False).describe()
    "target 'column1' (1)"
    """
    opt = f"--{role}" if role in ("target", "score", "group", "weight", "id") else "column"
    if spec is None:
        if not default:
            return None
        if header and role in DEFAULT_NAMES:
            wanted = DEFAULT_NAMES[role]
            hits = [i for i, n in enumerate(names) if n.strip().lower() in wanted]
            if len(hits) == 1:
                return Column(role, hits[0], names[hits[0]], "default")
            if not hits:
                raise InvalidParameterError(
                    f"{place(source)} has a header but no {role} column by a usual name "
                    f"({', '.join(wanted)}); name it with {opt} NAME or a position (columns: "
                    f"{_listing(names)})"
                )
            shown = ", ".join(f"{names[i]!r} ({i + 1})" for i in hits)
            raise InvalidParameterError(
                f"{place(source)}: more than one column could be the {role} ({shown}); choose one with {opt}"
            )
        if role in DEFAULT_POSITIONS:
            k = DEFAULT_POSITIONS[role]
            if k > len(names):
                raise InvalidParameterError(
                    f"{place(source)} has {len(names)} column{'s' if len(names) != 1 else ''}; the {role} is "
                    f"column {k} by default (name it with {opt})"
                )
            return Column(role, k - 1, names[k - 1], "default")
        return None
    text = spec.strip()
    named = [i for i, n in enumerate(names) if n == text]
    if text.isdigit() and by_name and header and len(named) == 1:  # the header's name (said)
        return Column(role, named[0], text, "number name")
    if text.isdigit():  # otherwise a position, whatever the header says
        k = int(text)
        if not 1 <= k <= len(names):
            named = [i for i, n in enumerate(names) if n.strip() == text]
            hint = (
                f"; a number is a 1-based position: the column named {text!r} is {opt} {named[0] + 1}"
                if named
                else ""
            )
            raise InvalidParameterError(
                f"{opt} {text}: {place(source)} has {len(names)} column{'s' if len(names) != 1 else ''} "
                f"({_listing(names)}){hint}"
            )
        return Column(role, k - 1, names[k - 1], "position")
    hits = [i for i, n in enumerate(names) if n == text]
    if len(hits) == 1:
        return Column(role, hits[0], text, "name")
    if len(hits) > 1:
        where = " and ".join(str(i + 1) for i in hits)
        raise InvalidParameterError(
            f"{opt} {text!r}: {place(source)} has {len(hits)} columns named {text!r} (columns {where}); "
            f"choose one by position, e.g. {opt} {hits[0] + 1}"
        )
    close = difflib.get_close_matches(text, names, n=1, cutoff=0.6)
    if not close:
        low = [n for n in names if n.lower() == text.lower()]
        close = low[:1]
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise InvalidParameterError(
        f"{opt} {text!r}: no such column in {place(source)} (columns: {_listing(names)}){hint}"
    )


def choose(
    names: list[str],
    source: str,
    *,
    header: bool,
    target: str | None = None,
    score: str | None = None,
    group: str | None = None,
    weight: str | None = None,
    several_scores: bool = False,
    by_name: bool | None = None,
    score_positions: bool = False,
) -> Choice:
    """Every column a command reads, chosen by one rule (see the module's description).

    ``score`` may name several columns separated by commas when ``several_scores`` (plot, report,
    compare).  The target, the scores, the group and the weight must be different columns.
    ``by_name``: whether numbers that are a header's names are those columns (None:
    :func:`names_first` of these specs); ``score_positions``: ``score``'s numbers are positions
    (the columns a command found itself, ``--score-prefix``'s).

    Examples
    --------
    >>> c = choose(["user", "item", "label", "score"], "f.csv", header=True, group="user")
    >>> c.describe()
    "target 'label' (3), score 'score' (4), group 'user' (1)"
    """
    first = names_first(header, target, score, group, weight) if by_name is None else by_name
    as_score = first and not score_positions and all_named(names, score)
    t = pick(names, target, "target", source, header=header, by_name=first)
    assert t is not None
    if score is not None and several_scores:
        parts = [s for s in score.split(",")]
        if any(not s.strip() for s in parts):
            raise InvalidParameterError(f"--score {score!r}: an empty column name between commas")
        scores = [pick(names, s, "score", source, header=header, by_name=as_score) for s in parts]
    else:
        scores = [pick(names, score, "score", source, header=header, by_name=as_score)]
    g = pick(names, group, "group", source, header=header, default=False, by_name=first)
    w = pick(names, weight, "weight", source, header=header, default=False, by_name=first)
    out = Choice(t, [s for s in scores if s is not None], g, w, width=len(names))
    seen: dict[int, Column] = {}
    for c in out.all():
        other = seen.get(c.index)
        if other is not None:
            if other.role == c.role == "score":
                raise InvalidParameterError(f"--score names column {c.name!r} ({c.index + 1}) twice")
            raise InvalidParameterError(
                f"{place(source)}: the {other.role} and the {c.role} would both be column {c.name!r} "
                f"({c.index + 1}); "
                f"name them apart with --{other.role} and --{c.role}"
            )
        seen[c.index] = c
    return out
