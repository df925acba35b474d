"""K classes and K labels per group: the classes (labels) each group's value leaves out of its
average are listed (JSON ``per_group_undefined_classes``) and warned of, in memory and from a stream;
the groups whose samples average leaves rows out too."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import perfeval
from perfeval.backends.stream import evaluate_stream_grouped_classes
from perfeval.exceptions import UndefinedMeasureWarning

# group "A" has no bird; group "B" has every class
Y = np.array(["cat", "dog", "cat", "dog", "cat", "dog", "bird", "bird"])
S = np.array(
    [
        [0.6, 0.3, 0.1],
        [0.3, 0.5, 0.2],
        [0.5, 0.1, 0.4],
        [0.6, 0.2, 0.2],
        [0.7, 0.2, 0.1],
        [0.2, 0.6, 0.2],
        [0.1, 0.2, 0.7],
        [0.3, 0.3, 0.4],
    ]
)
G = np.array(["A", "A", "A", "A", "B", "B", "B", "B"])
CLASSES = ["cat", "dog", "bird"]


def _messages(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, UndefinedMeasureWarning)]


@pytest.mark.parametrize(
    "measure", ["ROC_OVR:average=macro", "ROC_OVO:average=macro", "AP_OVR:average=macro"]
)
def test_classes_left_out_per_group_listed_and_warned(measure):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = perfeval.evaluate(Y, S, classes=CLASSES, groups=G, measures=[measure])
    d = r.to_dict()["measures"][measure]
    assert d["per_group_undefined_classes"] == {"A": ["bird"]}
    msgs = _messages(rec)
    assert any("'bird' in 1 of 2 groups" in m and measure in m for m in msgs), msgs


def test_stream_lists_the_same():
    chunks = [(Y[:5], S[:5], G[:5]), (Y[5:], S[5:], G[5:])]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = evaluate_stream_grouped_classes(chunks, CLASSES, measures=["roc_ovr", "roc_ovo"])
    for d in r.to_dict()["measures"].values():
        assert d["per_group_undefined_classes"] == {"A": ["bird"]}
    assert any("'bird' in 1 of 2 groups" in m for m in _messages(rec))


def test_labels_per_group_and_samples_rows():
    y = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 0], [1, 0, 1], [0, 1, 1], [1, 1, 0]])
    s = np.array(
        [[0.9, 0.1, 0.2], [0.2, 0.8, 0.1], [0.1, 0.2, 0.3], [0.7, 0.2, 0.6], [0.3, 0.7, 0.8], [0.6, 0.4, 0.1]]
    )
    g = np.array([1, 1, 1, 2, 2, 2])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = perfeval.evaluate(
            y,
            s,
            classes=["a", "b", "c"],
            groups=g,
            measures=["ROC_ML:average=macro", "JACCARD:average=samples"],
        )
    ms = r.to_dict()["measures"]
    assert ms["ROC_ML:average=macro"]["per_group_undefined_classes"] == {"1": ["c"]}
    assert ms["JACCARD:average=samples"]["per_group_rows_left_out"] == [1]
    msgs = _messages(rec)
    assert any("'c' in 1 of 2 groups" in m for m in msgs), msgs
    assert any("JACCARD:average=samples: in 1 of 2 groups" in m for m in msgs), msgs
    json.dumps(r.to_dict())


def test_cli_warns(tmp_path, capsys):
    from perfeval.cli.main import main

    p = tmp_path / "g.csv"
    p.write_text(
        "g,label,cat,dog,bird\n"
        + "".join(f"{g},{y},{','.join(map(str, s))}\n" for g, y, s in zip(G, Y, S, strict=True))
    )
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        rc = main(
            ["eval", str(p), "--target", "label", "--score", "cat,dog,bird", "--group", "g", "-m", "roc_ovr"]
        )
    assert rc in (0, None)
    err = capsys.readouterr().err
    assert "leaves a class out of a group's average where it is undefined" in err


def test_dask_lists_the_same():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    df = pd.DataFrame({"g": G, "label": Y, "cat": S[:, 0], "dog": S[:, 1], "bird": S[:, 2]})
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = perfeval.evaluate(
            dd.from_pandas(df, npartitions=2), target="label", score=CLASSES, group="g", measures=["roc_ovo"]
        )
    assert r.to_dict()["measures"]["ROC_OVO:average=macro"]["per_group_undefined_classes"] == {"A": ["bird"]}
    assert any("'bird' in 1 of 2 groups" in m for m in _messages(rec))
