"""A step of a row's Tweedie deviance below float64's normal range (issue 33): power 3 of data about
1e200 (``mu^-2`` about 1e-400 rounds to 0) gave a NEGATIVE deviance, power -1 of data about 1e-200
(every cube rounds to 0) exactly 0, as scikit-learn's ``mean_tweedie_deviance`` does.  Now such a row
is flagged as a row beyond the range is (``RegressionSummary.over``, ``"devlow" + repr(power)``): the
measure NaN with why (a step below the normal range, and what to do: scale the data), per group only
the groups concerned (each group's value and reason those of its rows alone), on every door: memory,
the stream, Dask, ``Metric`` (its state and merge), ci, compare, explain, the scikit-learn forms, the
command line.  Ordinary data keep the formula's bits (scikit-learn's, row by row)."""

from __future__ import annotations

import json
import math
import pickle
import warnings
from fractions import Fraction

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main
from perfeval.summaries.regression import BELOW, deviance_rows
from test_regression_group_whys import (
    assert_same_whys,
    assert_streams_say_memorys,
    each_group_alone,
    quiet_evaluate,
    rows_of,
)

sk_metrics = pytest.importorskip("sklearn.metrics")

Y = np.array([1.0, 2.5, 4.0, 3.0, 2.0, 5.5])
P = np.array([1.2, 2.0, 3.5, 3.3, 2.4, 5.0])

MEASURES = ["MAE", "TWEEDIE_DEV:power=3", "TWEEDIE_DEV:power=-1", "TWEEDIE_DEV", "POISSON_DEV", "GAMMA_DEV",
            "D2_TWEEDIE:power=3", "D2_TWEEDIE:power=-1", "TWEEDIE_DEV:power=1.5"]  # fmt: skip

GROUPS = {
    "ok": (Y[:4], P[:4]),
    "big": (Y * 1e200, P * 1e200),  # power 3: mu^-2 about 1e-400
    "tiny": (Y * 1e-200, P * 1e-200),  # power -1: every cube; power 0: every square
    "ok2": (np.array([10.0, 20.0, 30.0]), np.array([11.0, 19.0, 33.0])),
    "bigsolo": (np.array([3e200]), np.array([2e200])),
}


def rows(weighted: bool):
    return rows_of(GROUPS, weighted, seed=7)


def exact_mean(dev, w=None):
    w = np.ones(len(dev)) if w is None else w
    num = sum(Fraction(float(d)) * Fraction(float(v)) for d, v in zip(dev, w, strict=True))
    return float(num / sum(Fraction(float(v)) for v in w))


@pytest.mark.parametrize("power", [-2.0, -1.0, -0.5, 0.0, 1.0, 1.5, 2.0, 3.0, 4.5])
def test_ordinary_data_keep_scikit_learns_rows_and_their_exact_mean(power):
    rng = np.random.default_rng(int(power * 10) + 50)
    y = rng.uniform(0.1, 50, 300)
    p = y * rng.uniform(0.5, 1.5, 300)
    w = rng.integers(1, 5, 300) * 0.25
    dev, ok, low = deviance_rows(y, p, power)
    assert ok.all() and not low.any()
    one = [sk_metrics.mean_tweedie_deviance([a], [b], power=power) for a, b in zip(y, p, strict=True)]
    assert np.array_equal(dev, np.array(one))  # each row's bits: scikit-learn's formula
    got = quiet_evaluate(y, p, sample_weight=w, measures=[f"TWEEDIE_DEV:power={power!r}"])
    (r,) = got.results.values()
    assert r.value == exact_mean(dev, w) and not r.why
    sk = sk_metrics.mean_tweedie_deviance(y, p, sample_weight=w, power=power)
    assert r.value == pytest.approx(sk, rel=1e-12)


def test_the_two_cases_scikit_learn_gets_wrong_are_nan_with_why():
    big_y, big_p = Y * 1e200, P * 1e200
    tiny_y, tiny_p = Y * 1e-200, P * 1e-200
    assert sk_metrics.mean_tweedie_deviance(big_y, big_p, power=3) < 0  # what the row formula gives
    assert sk_metrics.mean_tweedie_deviance(tiny_y, tiny_p, power=-1) == 0.0
    for y, p, measure, label, scale in (
        (big_y, big_p, "TWEEDIE_DEV:power=3", "TWEEDIE_DEV@3", "c**-1"),
        (tiny_y, tiny_p, "TWEEDIE_DEV:power=-1", "TWEEDIE_DEV@-1", "c**3"),
        (tiny_y, tiny_p, "TWEEDIE_DEV", "TWEEDIE_DEV", "c**2"),  # (y - mu)^2 of about 1e-400
    ):
        for w in (None, np.array([1.0, 0.5, 2.0, 1.5, 1.0, 3.0])):
            got = quiet_evaluate(y, p, sample_weight=w, measures=["MAE", measure])
            r = got.results[label]
            assert math.isnan(r.value) and BELOW in r.why and "scale the targets" in r.why and scale in r.why
            assert "\n" not in r.why
            assert got["MAE"] == quiet_evaluate(y, p, sample_weight=w, measures=["MAE"])["MAE"]
    d2 = quiet_evaluate(big_y, big_p, measures=["D2_TWEEDIE:power=3"]).results["D2_TWEEDIE@3"]
    assert math.isnan(d2.value) and BELOW in d2.why and "D^2 does not change" in d2.why
    # a row of weight 0 is no row: the others' deviance given
    w = np.array([0.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    y, p = np.r_[1e200, Y[1:]], np.r_[2e200, P[1:]]
    got = quiet_evaluate(y, p, sample_weight=w, measures=["TWEEDIE_DEV:power=3"])
    assert got["TWEEDIE_DEV@3"] == exact_mean(deviance_rows(Y[1:], P[1:], 3.0)[0])


def test_the_rule_flags_only_a_loss_that_reaches_the_row():
    """A step below the normal range that the row's largest term hides (a cube of 1e-200 beside a
    prediction of 1) keeps the row; the rows flagged are those whose formula lost bits it needs
    (held against the formula in 200 bits)."""
    mpmath = pytest.importorskip("mpmath")
    _, _, low = deviance_rows(np.array([1e-200, 1e200]), np.array([1.0, 1e100]), -1.0)
    assert not low.any()  # y^3 rounds to 0 beside mu^3 / 3 about 1; the 1e200 row's terms are huge
    rng = np.random.default_rng(11)
    flagged = 0
    with mpmath.workprec(200):
        for _ in range(1500):
            p = float(rng.choice([-3.0, -1.0, -0.5, 0.0, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0]))
            e = int(rng.integers(-300, 300))
            y = np.array([rng.uniform(1, 10) * 10.0**e])
            mu = np.array([rng.uniform(1, 10) * 10.0 ** min(307, e + int(rng.integers(-30, 30)))])
            with np.errstate(all="ignore"):
                d, _, lo = deviance_rows(y, mu, p)
            if not np.isfinite(d[0]):
                continue
            a, m, q = mpmath.mpf(y[0]), mpmath.mpf(mu[0]), mpmath.mpf(p)
            if p == 0:
                terms = [(a - m) ** 2]
            elif p == 1:
                terms = [2 * a * mpmath.log(a / m), -2 * a, 2 * m]
            elif p == 2:
                terms = [2 * mpmath.log(m / a), 2 * a / m, mpmath.mpf(-2)]
            else:
                terms = [2 * a ** (2 - q) / ((1 - q) * (2 - q)), -2 * a * m ** (1 - q) / (1 - q), 2 * m ** (2 - q) / (2 - q)]  # noqa: E501  # fmt: skip
            err = abs(mpmath.mpf(d[0]) - sum(terms))
            scale = max(abs(t) for t in terms)
            if lo[0]:
                flagged += 1  # its number is off by more than the formula's rounding, or is no float64
                assert err > 2**-53 * scale or abs(sum(terms)) < 2.0**-1022, (p, y, mu)
            else:
                assert err <= 8 * 2**-53 * scale or err <= 2.0**-1070, (p, y, mu)
    assert flagged > 100


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_each_group_is_its_rows_alone(weighted, compiled, monkeypatch):
    from perfeval.engine import regression as engine

    monkeypatch.setattr(engine, "COMPILED_MEANS", compiled)
    y, p, g, w = rows(weighted)
    grouped, low = each_group_alone(y, p, g, w, GROUPS, MEASURES, BELOW)
    assert {("big", "TWEEDIE_DEV@3"), ("tiny", "TWEEDIE_DEV@-1"), ("tiny", "TWEEDIE_DEV"),
            ("big", "D2_TWEEDIE@3"), ("bigsolo", "TWEEDIE_DEV@3")} <= low  # fmt: skip
    assert {k for k, _ in low} == {"big", "tiny", "bigsolo"}
    keys = [str(k) for k in grouped.groups]
    for label in ("TWEEDIE_DEV@3", "TWEEDIE_DEV@-1", "TWEEDIE_DEV"):  # the ordinary groups: a number
        per = grouped.results[label].per_group
        assert all(math.isfinite(per[keys.index(k)]) for k in ("ok", "ok2")), label


@pytest.mark.parametrize("weighted", [False, True])
def test_every_backend_says_memorys(weighted):
    from perfeval.backends.stream import evaluate_stream

    y, p, g, w = rows(weighted)
    memory = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=MEASURES)
    big = g == "big"
    whole = quiet_evaluate(y[big], p[big], sample_weight=None if w is None else w[big], measures=MEASURES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_streams_say_memorys(y, p, g, w, memory, MEASURES)
        yb, pb, wb = y[big], p[big], None if w is None else w[big]
        chunks = (
            (yb[i : i + 2], pb[i : i + 2]) + (() if wb is None else (wb[i : i + 2],)) for i in range(0, 6, 2)
        )
        stream = evaluate_stream(chunks, measures=MEASURES)
        m, mg = perfeval.Metric(MEASURES), perfeval.Metric(MEASURES)
        for i in range(0, len(y), 7):
            ww = None if w is None else w[i : i + 7]
            mg.update(y[i : i + 7], p[i : i + 7], groups=g[i : i + 7], sample_weight=ww)
        for i in range(0, 6, 4):
            m.update(yb[i : i + 4], pb[i : i + 4], sample_weight=None if wb is None else wb[i : i + 4])
        assert_same_whys(mg.compute(), memory)
        metric = m.compute()
    for label, r in whole.results.items():
        for other in (stream, metric):
            o = other.results[label]
            assert o.why == r.why, label
            assert o.value == r.value or (math.isnan(o.value) and math.isnan(r.value)), label
    assert BELOW in whole.results["TWEEDIE_DEV@3"].why


def test_dask_says_memorys():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    y, p, g, w = rows(True)
    frame = pd.DataFrame({"y": y, "p": p, "g": g, "w": w})
    memory = quiet_evaluate(y, p, groups=g, sample_weight=w, measures=MEASURES)
    tiny = g == "tiny"
    alone = quiet_evaluate(y[tiny], p[tiny], sample_weight=w[tiny], measures=MEASURES)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = perfeval.evaluate(dd.from_pandas(frame, npartitions=3), target="y", score="p", group="g",
                                weight="w", measures=MEASURES)  # fmt: skip
        one = perfeval.evaluate(dd.from_pandas(frame[frame.g == "tiny"], npartitions=2), target="y",
                                score="p", weight="w", measures=MEASURES)  # fmt: skip
    assert got.params["backend"] == "dask"
    assert_same_whys(got, memory)
    for label, r in memory.results.items():
        assert np.array_equal(got.results[label].per_group, r.per_group, equal_nan=True), label
    for label, r in alone.results.items():
        assert one.results[label].why == r.why, label
        assert one[label] == r.value or (math.isnan(r.value) and math.isnan(one[label])), label
    assert BELOW in alone.results["TWEEDIE_DEV@-1"].why


def test_a_metric_state_and_a_merge_keep_it():
    measures = ["mae", "tweedie_dev:power=3"]
    m = perfeval.Metric(measures, task="regression")
    m.update(Y[:2] * 1e200, P[:2] * 1e200)
    back = perfeval.Metric(measures, task="regression")
    back.load_state_dict(m.state_dict())
    back.update(Y, P)  # ordinary rows: the state's rows below are still said
    other = perfeval.Metric(measures, task="regression")
    other.update(Y, P)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isfinite(other.compute()["TWEEDIE_DEV@3"])
        for r in (back.compute(), pickle.loads(pickle.dumps(m)).compute(), other.merge(m).compute()):
            assert math.isnan(r["TWEEDIE_DEV@3"]) and BELOW in r.results["TWEEDIE_DEV@3"].why
            assert math.isfinite(r["MAE"])


def test_ci_and_compare_give_the_other_measures():
    from perfeval.stats.regression import Replicas, regression_measures

    rng = np.random.default_rng(3)
    y = np.r_[1e200, rng.random(40) + 1]
    a, b = np.r_[2e200, y[1:] * 1.1], np.r_[3e200, y[1:] * 1.2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = perfeval.compare(y, a, b, measures=["mae", "tweedie_dev:power=3"], task="regression", n_boot=200)
        i = perfeval.ci(y, a, measures=["mae", "tweedie_dev:power=3"], task="regression", n_boot=200)
        t = perfeval.ci(y, a, measures=["tweedie_dev:power=3"], task="regression", method="t")
    assert math.isfinite(c["MAE"].difference) and math.isfinite(c["MAE"].low)
    assert math.isnan(c["TWEEDIE_DEV@3"].difference) and math.isnan(t["TWEEDIE_DEV@3"].estimate)
    assert math.isfinite(i["MAE"].low) and math.isnan(i["TWEEDIE_DEV@3"].estimate)
    reps = Replicas(y, a, regression_measures(["mae", "tweedie_dev:power=3"], 0.5))
    v = np.ones(len(y))
    assert np.isnan(reps.values(v)[1])  # a replicate that draws the row: undefined
    v[0] = 0.0
    want = quiet_evaluate(y[1:], a[1:], measures=["tweedie_dev:power=3"])["TWEEDIE_DEV@3"]
    assert reps.values(v)[1] == want  # one that does not: the others' deviance


def test_explain_and_the_scikit_learn_forms_say_it(tmp_path, capsys):
    from perfeval.functional import sklearn_regression as f

    y, p = Y * 1e200, P * 1e200
    e = perfeval.explain(y, p, measures=["mae", "tweedie_dev:power=3"])
    assert math.isnan(e.cells["perfeval"]["TWEEDIE_DEV@3"].value)
    for tool in ("sklearn", "torchmetrics"):
        cell = e.cells[tool]["TWEEDIE_DEV@3"]
        assert math.isnan(cell.value) and BELOW in cell.note, tool
        assert e.cells[tool]["MAE"] == perfeval.explain(y, p, measures=["mae"]).cells[tool]["MAE"]
    for fn in (lambda: f.mean_tweedie_deviance(y, p, power=3), lambda: f.d2_tweedie_score(y, p, power=3),
               lambda: f.mean_tweedie_deviance(Y * 1e-200, P * 1e-200, power=-1)):  # fmt: skip
        with pytest.raises(perfeval.InvalidDataError, match="below the normal range"):
            fn()
    want = quiet_evaluate(Y, P, measures=["tweedie_dev:power=3"])["TWEEDIE_DEV@3"]
    assert f.mean_tweedie_deviance(Y, P, power=3) == want
    # a row beyond the range was left out of d2_tweedie_score's sum silently (1.0 here): refused too
    with pytest.raises(perfeval.InvalidDataError, match="beyond the range"):
        f.d2_tweedie_score(Y * 1e-200, P * 1e-200, power=3)


def test_a_poisson_ratio_that_rounds_to_0_is_said_so():
    """y / mu of 1e-320 / 1e10 rounds to 0: its log is -inf where the row's deviance is about 2e10
    (it was said to be beyond the range)."""
    got = quiet_evaluate(np.r_[1e-320, Y], np.r_[1e10, P], measures=["poisson_dev", "mae"])
    r = got.results["POISSON_DEV"]
    assert math.isnan(r.value) and BELOW in r.why and "beyond" not in r.why
    assert math.isfinite(got["MAE"])
    assert deviance_rows(np.empty(0), np.empty(0), 1.0)[2].shape == (0,)


def test_the_cli_says_it_in_one_line_streamed_or_not(tmp_path, capsys):
    path = tmp_path / "big.csv"
    y, p = Y * 1e200, P * 1e200
    path.write_text("y,p\n" + "".join(f"{a!r},{b!r}\n" for a, b in zip(y.tolist(), p.tolist(), strict=True)))
    said = []
    for extra in ([], ["--stream"]):
        argv = ["eval", str(path), "--target", "y", "--score", "p", "-m", "mae,tweedie_dev:power=3", *extra]
        code = main([*argv, "--format", "json"])
        out, err = capsys.readouterr()
        assert code == 0, err
        got = json.loads(out)["measures"]
        assert got["TWEEDIE_DEV@3"]["value"] is None and BELOW in got["TWEEDIE_DEV@3"]["why_null"]
        assert got["MAE"]["value"] is not None
        (line,) = [ln for ln in err.splitlines() if "TWEEDIE_DEV@3 is undefined" in ln]
        said.append((got, line))
    assert said[0] == said[1]


@pytest.mark.parametrize(
    ("power", "scale", "step"),
    [
        (3.0, 1e-200, "mu^-2"),  # mu^-2 about 1e400; the deviance, about 1e200, is a float64
        (1.0, None, "y / mu"),  # y / mu = 1e200 / 1e-200; the deviance about 2e203
        (2.0, None, "mu / y"),  # mu / y = 1e300 / 1e-100; the deviance about 1.8e3
    ],
)
def test_a_step_beyond_the_range_is_named_not_the_deviance(power, scale, step):
    """Power 3 of data about 1e-200: ``mu^-2`` (about 1e400) is beyond the range, the row's deviance
    (about 1e200) is not; the reason said the deviance was.  It names the step now."""
    if scale is None:
        y, p = (np.r_[Y, 1e200], np.r_[P, 1e-200]) if power == 1.0 else (np.r_[Y, 1e-100], np.r_[P, 1e300])
    else:
        y, p = Y * scale, P * scale
    asked = [(f"TWEEDIE_DEV:power={power!r}", f"TWEEDIE_DEV@{power:g}")]
    if scale is None:  # (data about 1e-200: D^2's sums of y^2 lose their bits first, said so)
        asked.append((f"D2_TWEEDIE:power={power!r}", f"D2_TWEEDIE@{power:g}"))
    for measure, label in asked:
        r = quiet_evaluate(y, p, measures=[measure]).results[label]
        assert math.isnan(r.value) and "\n" not in r.why
        assert f"a step of a row's Tweedie deviance (power {power:g}: {step}," in r.why, r.why
        assert "beyond the range of a 64-bit float" in r.why and "though the row's deviance is not" in r.why
    # per group: the group of that row says it, the others keep their number
    groups = {"ok": (Y, P), "step": (y, p)}
    g = np.array(["ok"] * len(Y) + ["step"] * len(y))
    yy, pp = np.r_[Y, y], np.r_[P, p]
    _, said = each_group_alone(yy, pp, g, None, groups, [f"TWEEDIE_DEV:power={power!r}"], f": {step},")
    assert {k for k, _ in said} == {"step"}


@pytest.mark.parametrize("power", [0.0, -1.0])
def test_a_deviance_beyond_the_range_is_still_said_so(power):
    """Power 0 and -1 of data about 1e200: the deviance itself (about 1e400, 1e600) is beyond."""
    r = quiet_evaluate(Y * 1e200, P * 1e200, measures=[f"TWEEDIE_DEV:power={power!r}"]).results
    (r,) = r.values()
    assert math.isnan(r.value) and r.why.startswith(
        f"the Tweedie deviance (power {power:g}) of a row is beyond"
    )


def test_power_0_and_1_name_their_own_steps_below_the_range():
    """Power 0's one step is the square, power 1's the ratio and ``y log(y / mu)``: not 'a power'."""
    r = quiet_evaluate(Y * 1e-200, P * 1e-200, measures=["TWEEDIE_DEV"]).results["TWEEDIE_DEV"]
    assert BELOW in r.why and "(power 0: the square (y - mu)^2)" in r.why
    r = quiet_evaluate(np.r_[1e-320, Y], np.r_[1e10, P], measures=["poisson_dev"]).results["POISSON_DEV"]
    assert BELOW in r.why and "(power 1: the ratio y / mu or y log(y / mu))" in r.why


def by_slices_csv(path):
    """A CSV of the groups ``big`` (power 3: a step below the range), ``tiny`` (power -1: below the
    range; power 3: ``mu^-2`` beyond it) and ``ok``, the slice column ``g``."""
    rows = [(float(a), float(b), k) for k in ("big", "ok", "tiny") for a, b in zip(*GROUPS[k], strict=True)]
    path.write_text("y,p,g\n" + "".join(f"{a!r},{b!r},{k}\n" for a, b, k in rows))
    return rows


def assert_slices_say_memorys(out, rows, measures):
    """Each slice's value and reason are its rows' alone, in memory (``undefined in this slice (n
    cases): `` and evaluate()'s reason)."""
    (slicing,) = json.loads(out)["slices"]["slicings"]
    said = {s["slice"]: s for s in slicing["slices"]}
    assert set(said) == {"big", "ok", "tiny"}
    for key, s in said.items():
        y = np.array([a for a, _, k in rows if k == key])
        p = np.array([b for _, b, k in rows if k == key])
        alone = quiet_evaluate(y, p, measures=measures)
        for label, r in alone.results.items():
            if math.isnan(r.value):
                assert s["values"][label] is None, (key, label)
                assert s["why_null"][label] == f"undefined in this slice ({len(y)} cases): {r.why}", (
                    key,
                    label,
                )
            else:
                assert s["values"][label] == r.value and label not in s.get("why_null", {}), (key, label)
    return said


def test_the_cli_by_slices_say_each_slices_own_reason(tmp_path, capsys):
    rows = by_slices_csv(tmp_path / "sliced.csv")
    measures = ["mae", "tweedie_dev:power=3", "tweedie_dev:power=-1"]
    argv = ["eval", str(tmp_path / "sliced.csv"), "--header", "--target", "y", "--score", "p"]
    argv += ["-m", ",".join(measures)]
    code = main([*argv, "--by", "g", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    said = assert_slices_say_memorys(out, rows, measures)
    assert BELOW in said["big"]["why_null"]["TWEEDIE_DEV@3"]
    assert BELOW in said["tiny"]["why_null"]["TWEEDIE_DEV@-1"]
    assert ": mu^-2," in said["tiny"]["why_null"]["TWEEDIE_DEV@3"]
    assert "why_null" not in said["ok"]
