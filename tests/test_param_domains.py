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
        ("least_cost:fn=-1", "LEAST_COST needs `fn` a finite number >= 0, got -1"),
        ("least_cost:fp=-0.5", "LEAST_COST needs `fp` a finite number >= 0, got -0.5"),
        ("least_cost:tp=-1", "LEAST_COST needs `tp` a finite number >= 0, got -1"),
        ("least_cost:tn=-2,of=threshold", "LEAST_COST needs `tn` a finite number >= 0, got -2"),
        ("least_cost:fn=0,fp=0", "LEAST_COST:fn=0,fp=0: every cost is 0"),
    ],
)
def test_a_value_outside_its_domain_is_refused_at_parse(spec, fragment):
    with pytest.raises(InvalidParameterError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        parse_measure(spec)


def test_least_costs_refusal_is_one_line_on_the_command_line(capsys):
    """A negative cost (a benefit) or no cost at all: one line, exit 2, before any data is read."""
    from perfeval.cli.main import main

    for spec, said in (
        ("least_cost:fn=-1", "LEAST_COST needs `fn` a finite number >= 0, got -1"),
        ("least_cost:fn=0,fp=0", "every cost is 0"),
    ):
        code = main(["eval", "/nonexistent.csv", "--target", "y", "--score", "s", "-m", spec])
        err = capsys.readouterr().err
        assert code == 2 and said in err and len(err.strip().splitlines()) == 1, err


def test_a_benefit_is_the_cost_of_the_other_outcome():
    """What the refusal of a negative cost suggests: a benefit b of a true positive (tp=-b, which the
    kernel would take) is the cost fn+b: the same threshold (TP + FN = P), the cost shifted by b P."""
    from perfeval.measures.operating import least_cost

    y = [1, 0, 1, 1, 0, 0, 1, 0, 1]
    s = [0.9, 0.8, 0.7, 0.55, 0.5, 0.3, 0.2, 0.1, 0.05]
    h = ScoreHistogram.from_arrays(y, s)
    costs = {"fp": 1.0, "tn": 0.0}
    benefit = least_cost(h, fn=1.0, tp=-1.5, of="threshold", **costs)
    r = perfeval.evaluate(y, s, measures=["least_cost:fn=2.5,fp=1,of=threshold", "least_cost:fn=2.5,fp=1"])
    assert r["LEAST_COST:fn=2.5,fp=1,of=threshold"] == benefit
    assert r["LEAST_COST:fn=2.5,fp=1"] == least_cost(h, fn=1.0, tp=-1.5, of="value", **costs) + 1.5 * 5


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
