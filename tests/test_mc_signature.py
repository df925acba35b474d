"""The signature of a report of K classes or labels names the task and the classes (issue 32): a
3-class report and a binary one of the same scores never share a signature, nor two class orders."""

from __future__ import annotations

import numpy as np

import perfeval
from perfeval.engine.signature import Signature, classes_text


def _data(n=60, seed=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    s = rng.dirichlet(np.ones(3), n)
    return y, s


def test_a_three_class_report_and_a_binary_one_differ():
    y, s = _data()
    multi = perfeval.evaluate(np.array(["cat", "dog", "bird"])[y], s, classes=["cat", "dog", "bird"])
    binary = perfeval.evaluate((y == 0).astype(int), s[:, 0], measures=["roc"])
    assert (
        str(multi.signature)
        == "perfeval:0.1.0|ties:perfeval|multiclass:cat,dog,bird|weights:no|backend:memory"
    )
    assert str(binary.signature) == "perfeval:0.1.0|ties:perfeval|weights:no|backend:memory"
    assert multi.signature.to_dict()["classes"] == "multiclass:cat,dog,bird"
    # the same classes in another order are other columns: another signature
    other = perfeval.evaluate(
        np.array(["cat", "dog", "bird"])[y], s[:, [1, 0, 2]], classes=["dog", "cat", "bird"]
    )
    assert str(other.signature) != str(multi.signature)


def test_multilabel_names_its_labels():
    rng = np.random.default_rng(0)
    Y = rng.integers(0, 2, (40, 3))
    S = rng.random((40, 3))
    r = perfeval.evaluate(Y, S, classes=["a", "b", "c"])
    assert "|multilabel:a,b,c|" in str(r.signature)
    assert str(r.signature) != str(
        perfeval.evaluate(np.argmax(S, axis=1), S / S.sum(1, keepdims=True)).signature
    )


def test_stream_and_memory_sign_alike(tmp_path, capsys):
    y, s = _data()
    names = np.array(["cat", "dog", "bird"])
    path = tmp_path / "p.csv"
    path.write_text(
        "y,cat,dog,bird\n"
        + "".join(
            f"{names[t]},{float(a)!r},{float(b)!r},{float(c)!r}\n" for t, (a, b, c) in zip(y, s, strict=True)
        )  # noqa: E501
    )
    from perfeval.cli.main import main

    lines = []
    for extra in ([], ["--stream"]):
        argv = ["eval", str(path), "--target", "y", "--score", "cat,dog,bird", "--classes", "cat,dog,bird"]
        assert main([*argv, *extra]) == 0
        out = capsys.readouterr().out
        lines.append(next(line for line in out.splitlines() if line.startswith("signature: ")))
    assert "|multiclass:cat,dog,bird|" in lines[0]
    assert lines[1] == lines[0].replace("backend:memory", "backend:stream")


def test_a_long_list_is_its_count_and_a_digest():
    many = [f"class_{i}" for i in range(100)]
    text = classes_text("multiclass", many)
    assert text is not None and text.startswith("multiclass:100 classes,sha1=") and len(text) < 60
    assert classes_text("multiclass", many[::-1]) != text
    # a name with the signature's separators is not written out
    assert classes_text("multiclass", ["a,b", "c"]).startswith("multiclass:2 classes,sha1=")  # type: ignore[union-attr]
    assert classes_text(None, ["a", "b"]) is None and classes_text("multiclass", None) is None
    assert "multiclass:a,b" in str(Signature(classes=classes_text("multiclass", ["a", "b"])))
