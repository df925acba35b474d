"""Registry-wide properties of every measure of kind "multilabel" (the registry is iterated: a new
multilabel measure is covered without a line here), and the doors that take a label matrix besides
evaluate(Y, S): LabelSummary folded batch by batch, Metric(labels=), the stream, Dask, the command
(--labels, --label-prefix, --stream), stats.ci/compare.

What holds to the bit, and what only within 1e-12 (and why):

- a row of weight 0 is a dropped row: bits (both are dropped at the door);
- one group's value is that group alone: bits (the same summary of the same rows);
- a summary folded batch by batch in row order is the summary of all: bits, weights too (each
  label's histogram folds as a binary one does, the row sums are exact whole numbers, each row table
  entry adds its weights in row order); so Metric == stream == evaluate, bits, weights too; Dask too
  (unweighted: partition summaries merged, every sum a whole number; weighted: folded in order);
- row order, unweighted: bits (every sum is a count); weighted: within 1e-12 (a float sum in another
  order).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perfeval
from perfeval.engine.classes import summary_values
from perfeval.engine.labels import empty_summary, label_specs, label_summary
from perfeval.exceptions import InvalidDataError, InvalidParameterError
from perfeval.measures import REGISTRY

MULTILABEL = [m for m in REGISTRY if m.kind == "multilabel"]


def labels_of(m) -> list[str]:
    """Every label of measure ``m`` worth checking: each choice of each parameter with choices, at
    two thresholds for a threshold measure."""
    heads = [f"{m.name}@{t}" for t in (0.3, 0.5)] if m.at_param else [m.name]
    out = [f"{h}:{p.name}={c}" for h in heads for p in m.params if p.choices for c in p.choices]
    return out or heads


LABELS = [lab for m in MULTILABEL for lab in labels_of(m)]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_the_registry_has_multilabel_measures():
    assert len(MULTILABEL) >= 11 and {"ROC_ML", "LRAP", "HAMMING"} <= {m.name for m in MULTILABEL}


@st.composite
def ml_data(draw, weights=None, max_n=30):
    n = draw(st.integers(1, max_n))
    k = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random((n, k)) < draw(st.sampled_from([0.2, 0.5, 0.8]))).astype(int)
    s = np.round(rng.random((n, k)), draw(st.integers(1, 2)))  # ties
    w = None
    if weights if weights is not None else draw(st.booleans()):
        w = rng.random(n) * draw(st.sampled_from([1.0, 3.0]))
        w[rng.random(n) < 0.2] = 0.0
    return {"y": y, "s": s, "w": w, "n": n, "k": k, "labels": [f"l{j}" for j in range(k)]}


def vals(y, s, w=None, groups=None, labels=LABELS, classes=None) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(y, s, sample_weight=w, groups=groups, measures=labels, classes=classes)
    return dict(r.results)


def bits(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def close(a: float, b: float, rel: float = 1e-12) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def assert_same(a: dict, b: dict, what: str, exact: bool = True) -> None:
    assert a.keys() == b.keys()
    same = bits if exact else close
    for lab in a:
        x, y = float(a[lab].value), float(b[lab].value)
        assert same(x, y), f"{what}: {lab} {x!r} != {y!r}"
        if a[lab].per_class is not None:
            pa, pb = a[lab].per_class, b[lab].per_class
            ok = all(same(float(u), float(v)) for u, v in zip(pa, pb, strict=True))
            assert ok, f"{what}: {lab} per label {pa} != {pb}"


# -- registry-wide properties ------------------------------------------------------------------------------
@SETTINGS
@given(ml_data(weights=False), st.data())
def test_zero_weight_is_a_dropped_row(d, data):
    n = d["n"]
    w = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]), min_size=n, max_size=n)))
    keep = w > 0
    assert_same(vals(d["y"], d["s"], w), vals(d["y"][keep], d["s"][keep], w[keep]), "weight 0 vs dropped")


@SETTINGS
@given(ml_data(), st.randoms(use_true_random=False))
def test_row_order(d, rnd):
    order = list(range(d["n"]))
    rnd.shuffle(order)
    w = d["w"]
    a = vals(d["y"], d["s"], w)
    b = vals(d["y"][order], d["s"][order], None if w is None else w[order])
    assert_same(a, b, "row order", exact=w is None)  # weighted: float sums in another order


@SETTINGS
@given(ml_data(max_n=20), st.data())
def test_group_value_is_that_group_alone(d, data):
    n = d["n"]
    g = np.array(data.draw(st.lists(st.sampled_from(["u1", "u2", "u3"]), min_size=n, max_size=n)))
    got = vals(d["y"], d["s"], d["w"], groups=g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(d["y"], d["s"], sample_weight=d["w"], groups=g, measures=LABELS)
    for i, key in enumerate(r.groups):
        rows = g == key
        alone = vals(d["y"][rows], d["s"][rows], None if d["w"] is None else d["w"][rows])
        for lab, res in alone.items():
            v = float(got[lab].per_group[i])
            assert bits(v, res.value), f"group {key}: {lab} {v!r} != {res.value!r}"


def cuts_of(data, n: int) -> list[tuple[int, int]]:
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=4)))
    return list(zip([0, *cuts], [*cuts, n], strict=True))


@SETTINGS
@given(ml_data(), st.data())
def test_folded_in_row_order_is_the_whole(d, data):
    """Any split into batches folded in order gives the bits of one summary of all, weights too."""
    specs = label_specs(LABELS)
    y, s, w = d["y"].astype(bool), d["s"], d["w"]
    labels = tuple(d["labels"])
    whole = label_summary(y, s, w, labels, specs)
    ls = empty_summary(labels, specs)
    for a, b in cuts_of(data, d["n"]):
        ls = ls.folded(y[a:b], s[a:b], None if w is None else w[a:b])
    assert ls == whole
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(summary_values(specs, ls), summary_values(specs, whole), "folded vs whole")


@SETTINGS
@given(ml_data(weights=False), st.data())
def test_merge_of_batches_unweighted_is_the_whole(d, data):
    specs = label_specs(LABELS)
    y, s = d["y"].astype(bool), d["s"]
    labels = tuple(d["labels"])
    parts = [label_summary(y[a:b], s[a:b], None, labels, specs) for a, b in cuts_of(data, d["n"])]
    merged = parts[0]
    for p in parts[1:]:
        merged = merged.merge(p)
    assert merged == label_summary(y, s, None, labels, specs)


@SETTINGS
@given(ml_data(), st.data())
def test_metric_and_stream_equal_evaluate(d, data):
    from perfeval.backends.stream import evaluate_stream_labels

    y, s, w = d["y"], d["s"], d["w"]
    want = vals(y, s, w, classes=d["labels"])
    m = perfeval.Metric(LABELS, labels=d["labels"])
    chunks = []
    for a, b in cuts_of(data, d["n"]):
        wb = None if w is None else w[a:b]
        m.update(y[a:b], s[a:b], sample_weight=wb)
        chunks.append((y[a:b], s[a:b]) if w is None else (y[a:b], s[a:b], wb))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = m.compute()
        streamed = evaluate_stream_labels(chunks, d["labels"], measures=LABELS)
    assert got.params["task"] == "multilabel" and got.params["backend"] == "metric"
    assert_same(want, dict(got.results), "Metric vs evaluate")
    assert_same(want, dict(streamed.results), "stream vs evaluate")
    again = perfeval.Metric(LABELS, labels=d["labels"])
    again.load_state_dict(m.state_dict())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(want, dict(again.compute().results), "Metric state vs evaluate")


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ml_data(max_n=40))
def test_dask_equals_evaluate(d):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    frame = {f"y_{c}": d["y"][:, j] for j, c in enumerate(d["labels"])}
    frame.update({f"p_{c}": d["s"][:, j] for j, c in enumerate(d["labels"])})
    frame["w"] = np.ones(d["n"]) if d["w"] is None else d["w"]
    df = pd.DataFrame(frame)
    target = [f"y_{c}" for c in d["labels"]]
    score = [f"p_{c}" for c in d["labels"]]
    weight = None if d["w"] is None else "w"
    kw = {"target": target, "score": score, "weight": weight, "measures": LABELS}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = perfeval.evaluate(df, **kw)
        got = perfeval.evaluate(dd.from_pandas(df, npartitions=3), **kw)
    assert got.params["backend"] == "dask" and got.params["classes"] == target
    assert_same(dict(want.results), dict(got.results), "Dask vs evaluate")
    assert_same(vals(d["y"], d["s"], d["w"]), dict(want.results), "table vs arrays")


def test_metric_labels_refusals():
    with pytest.raises(InvalidParameterError, match="not both"):
        perfeval.Metric(["roc"], classes=["a", "b"], labels=["a", "b"])
    with pytest.raises(InvalidParameterError, match="K labels need K >= 2"):
        perfeval.Metric(["roc"], labels=["a"])
    m = perfeval.Metric(["roc", "lrap"], labels=["a", "b"])
    assert m.measures == ["ROC_ML:average=macro", "LRAP"]
    m.update([[1, 0]], [[0.9, 0.1]])
    with pytest.raises(InvalidDataError):
        m.update([[1, 2]], [[0.9, 0.1]])  # not 0/1: refused, the state unchanged
    assert m.rows == 1
    with pytest.raises(InvalidParameterError, match="the state is of"):
        perfeval.Metric(["roc"], classes=["a", "b", "c"]).load_state_dict(m.state_dict())


# -- ci and compare ------------------------------------------------------------------------------------------
def test_ci_and_compare_of_a_label_matrix():
    from perfeval.stats import ci, compare
    from perfeval.stats.classes import LabelReplicas

    rng = np.random.default_rng(3)
    n, k = 60, 3
    y = (rng.random((n, k)) < 0.4).astype(int)
    y[0], y[1] = 1, 0
    s = np.round(rng.random((n, k)), 1)
    s2 = np.clip(s + rng.normal(0, 0.3, (n, k)), 0, 1)
    w = rng.random(n)
    ms = ["roc_ml", "lrap", "hamming", "f_ml@0.3:average=samples"]
    want = vals(y, s, w, labels=ms)
    iv = ci(y, s, measures=ms, sample_weight=w, n_boot=100, seed=2)
    assert list(iv) == list(want)
    for lab, r in want.items():
        assert iv[lab].estimate == r.value and iv[lab].low <= r.value <= iv[lab].high
    c = compare(y, s, s2, measures=ms, n_boot=100, seed=2)
    assert c["LRAP"].estimate_a == vals(y, s, labels=["lrap"])["LRAP"].value
    assert c["LRAP"].estimate_b == vals(y, s2, labels=["lrap"])["LRAP"].value
    # a replicate's summary is the summary of the rows with the replicate's weights
    specs = label_specs(ms)
    v = rng.poisson(1.0, n) * w
    rep = LabelReplicas(y.astype(bool), s, (0, 1, 2), specs).summary(v)
    assert rep == label_summary(y.astype(bool), s, v, (0, 1, 2), specs)
    with pytest.raises(InvalidParameterError, match="DeLong"):
        ci(y, s, measures="roc_ml", method="delong")


# -- the command ------------------------------------------------------------------------------------------
def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "perfeval", *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def mail(tmp_path):
    rng = np.random.default_rng(5)
    n = 40
    y = (rng.random((n, 3)) < 0.4).astype(int)
    y[:, 2] = 0  # 'promo' never on: undefined for the ROC, listed with why
    s = np.round(rng.random((n, 3)), 2)
    w = np.round(rng.random(n), 3)
    w[3] = 0.0
    lines = ["id,y_spam,y_urgent,y_promo,p_spam,p_urgent,p_promo,w"]
    lines += [
        ",".join([str(i), *map(str, y[i]), *map(repr, s[i].tolist()), repr(float(w[i]))]) for i in range(n)
    ]
    path = tmp_path / "mail.csv"
    path.write_text("\n".join(lines) + "\n")
    return path, y, s, w


MS = "roc_ml,ap_ml:average=micro,f_ml@0.3:average=samples,hamming,lrap,coverage,ranking_loss,subset_acc"


def test_cli_labels_equal_evaluate_bits(mail):
    path, y, s, w = mail
    labels = ["y_spam", "y_urgent", "y_promo"]
    want = vals(y, s, w, labels=MS.split(","), classes=labels)
    for extra in ([], ["--stream"]):
        out = run_cli(
            "eval", str(path), "--labels", ",".join(labels), "--score", "p_spam,p_urgent,p_promo",
            "--weight", "w", "-m", MS, "--format", "json", *extra,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        got = json.loads(out.stdout)
        assert got["params"]["task"] == "multilabel" and got["params"]["classes"] == labels
        for lab, r in want.items():
            v = got["measures"][lab]["value"]
            assert bits(float("nan") if v is None else float(v), r.value), (extra, lab, v, r.value)
        roc = got["measures"]["ROC_ML:average=macro"]
        assert roc["undefined_classes"] == ["y_promo"]
        assert roc["per_class_why_null"] == {"y_promo": "label 'y_promo' is on in no row"}


def test_cli_label_prefix_text(mail):
    path, y, s, _w = mail
    out = run_cli("eval", str(path), "--label-prefix", "y_", "--score-prefix", "p_", "-m", "roc_ml,lrap")
    assert out.returncode == 0, out.stderr
    want = vals(y, s, labels=["roc_ml", "lrap"], classes=["spam", "urgent", "promo"])
    assert f"{want['LRAP'].value:.6f}" in out.stdout
    assert "labels (3): spam, urgent, promo (from --label-prefix 'y_'" in out.stdout
    assert "per label:" in out.stdout
    assert "promo: label 'promo' is on in no row; in ROC_ML)" in out.stdout


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (
            ["--labels", "y_spam,y_urgent", "--score", "p_spam"],
            2,
            "--score names 1 columns for the 2 label columns",
        ),
        (
            ["--labels", "y_spam,y_urgent", "--score", "p_spam,p_urgent", "--classes", "a,b"],
            2,
            "--classes with",
        ),
        (
            ["--labels", "y_spam,y_urgent", "--score", "p_spam,p_urgent", "--target", "y_spam"],
            2,
            "--target with",
        ),
        (
            ["--labels", "y_spam,p_urgent", "--score", "p_spam,w"],
            1,
            "line 2: the label column 'p_urgent' holds",
        ),
        (["--labels", "y_spam,nope", "--score", "p_spam,p_urgent"], 2, "nope"),
        (["--label-prefix", "q_", "--score-prefix", "p_"], 2, "0 column(s) named q_<label>"),
    ],
)
def test_cli_labels_errors(mail, args, code, said):
    path = mail[0]
    out = run_cli("eval", str(path), *args)
    assert out.returncode == code, out.stderr
    assert said in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_docs_multilabel_command(monkeypatch):
    """docs/input.md's "Multilabel" section: its command, run in docs/examples/multilabel, prints what
    the section shows, and the numbers are evaluate()'s on the same table."""
    import re
    import shlex
    from pathlib import Path

    pd = pytest.importorskip("pandas")
    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "input.md").read_text()
    section = text.split("## Multilabel: a 0/1 target column a label", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\n\$ (perfeval [^\n]*)\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    folder = root / "docs" / "examples" / "multilabel"
    command, shown = blocks[0]
    out = subprocess.run(
        [sys.executable, "-m", "perfeval", *shlex.split(command)[1:]],
        capture_output=True, text=True, timeout=120, check=False, cwd=folder,
    )  # fmt: skip
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout == shown
    df = pd.read_csv(folder / "mail.csv")
    names = ["spam", "urgent", "promo"]
    r = perfeval.evaluate(
        df, target=[f"y_{c}" for c in names], score=[f"p_{c}" for c in names], measures=["roc_ml", "lrap"]
    )
    assert f"ROC_ML:average=macro  {r['ROC_ML:average=macro']:.6f}" in out.stdout
    assert f"LRAP                  {r['LRAP']:.6f}" in out.stdout


def test_docs_metric_multilabel_example():
    """docs/metric.md's "K labels" example prints what its comment says."""
    import contextlib
    import io
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "metric.md").read_text()
    section = text.split("## K labels (multilabel): `labels=`", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    said = re.findall(r"^# (.*)$", code, re.M)[-1]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "metric.md", "exec"), {})
    assert buf.getvalue().strip() == said
