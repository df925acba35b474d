"""Every measure parameter has a domain, checked once where a value comes in (a spec, a call, the
threshold of evaluate), with one line naming the measure, the parameter and the valid values."""

from __future__ import annotations

import math

import pytest

import perfeval
from perfeval.exceptions import InvalidParameterError
from perfeval.measures import list_measures, parse_measure
from perfeval.summaries import ScoreHistogram

H = ScoreHistogram.from_arrays([1, 0, 1, 0], [0.9, 0.4, 0.6, 0.1])


@pytest.mark.parametrize("m", list_measures(), ids=lambda m: m.name)
def test_defaults_are_in_their_domains(m):
    m.check_params(m.defaults())
    for p in m.params:
        assert p.domain in m.doc


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("fbeta:beta=-1", "FBETA needs `beta` a finite number >= 0, got -1"),
        ("ntop:n=0", "NTOP needs `n` a finite number > 0, got 0"),
        ("r50:negatives=-5", "R50 needs `negatives` a finite number > 0"),
        ("slq:bins=0", "SLQ needs `bins` a whole number >= 1"),
        ("slq:bins=2.5", "SLQ needs `bins` a whole number >= 1, got 2.5"),
        ("ca2:window=0.5", "CA2 needs `window` a whole number >= 1"),
        ("logloss:eps=0.5", "LOGLOSS needs `eps` a finite number with 0 <= eps < 0.5, got 0.5"),
        ("logloss:eps=-1e-3", "LOGLOSS needs `eps`"),
        ("ndcg@-1", "NDCG needs `k` a finite number >= 0, got -1"),
        ("sar:w_acc=inf", "SAR needs `w_acc` a finite number, got inf"),
        ("cst:fp=inf", "CST needs `fp` a finite number"),
    ],
)
def test_a_value_outside_its_domain_is_refused_at_parse(spec, fragment):
    with pytest.raises(InvalidParameterError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        parse_measure(spec)


def test_the_call_and_the_threshold_are_checked_too():
    roc_like = parse_measure("ntop").measure
    with pytest.raises(InvalidParameterError, match="NTOP needs `n`"):
        roc_like(H, n=-3)
    with pytest.raises(
        InvalidParameterError, match=r"`threshold` must be a number \(\+-inf allowed\), got nan"
    ):
        perfeval.evaluate([1, 0], [0.9, 0.1], measures=["acc"], threshold=math.nan)


def test_infinite_threshold_is_a_threshold():
    r = perfeval.evaluate([1, 0], [0.9, 0.1], measures=["acc"], threshold=math.inf)
    assert r["ACC"] == 0.5  # nothing predicted positive
    r = perfeval.evaluate([1, 0], [0.9, 0.1], measures=["sen:threshold=-inf", "spc:threshold=-inf"])
    assert (r["SEN:threshold=-inf"], r["SPC:threshold=-inf"]) == (1.0, 0.0)  # everything predicted positive


def test_a_measure_lives_in_one_place():
    """Each binary measure's per-group form sits beside its scalar form (name_groups in the same
    module), and every per-group form of a family module is some measure's declared one."""
    import importlib
    import inspect

    declared = set()
    for m in list_measures():
        if m.per_group:
            mod, _, fn = m.compute.partition(":")
            assert m.per_group == f"{mod}:{fn}_groups", m.name
            declared.add(m.per_group)
    for fam in ("threshold", "rank", "probability"):
        mod = importlib.import_module(f"perfeval.measures.{fam}")
        forms = {
            f"perfeval.measures.{fam}:{n}"
            for n, f in vars(mod).items()
            if n.endswith("_groups")
            and not n.startswith("_")
            and inspect.isfunction(f)
            and f.__module__ == mod.__name__
        }
        assert forms, fam
        assert forms <= declared, sorted(forms - declared)
