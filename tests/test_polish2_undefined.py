"""The classes ROC_OVO leaves out are said in eval's text and in the HTML report, as the per-class
measures' are; the warning says why each class is undefined (read from the summary)."""

from __future__ import annotations

import warnings

import numpy as np

import perfeval
from perfeval.cli.main import main
from perfeval.exceptions import UndefinedMeasureWarning

ROWS = "label,cat,dog,bird\ncat,0.6,0.3,0.1\ndog,0.3,0.5,0.2\ncat,0.5,0.1,0.4\ndog,0.6,0.2,0.2\n"


def test_eval_text_lists_roc_ovo_left_out_classes(tmp_path, capsys):
    p = tmp_path / "a.csv"
    p.write_text(ROWS)
    capsys.readouterr()
    assert (
        main(["eval", str(p), "--target", "label", "--score", "cat,dog,bird", "-m", "roc_ovo,roc_ovr"]) == 0
    )
    out = capsys.readouterr().out
    assert (
        "(undefined, left out of the averages: bird: no case of class 'bird' among the targets; "
        "in ROC_OVR, ROC_OVO)" in out
    )


def test_eval_text_lists_them_with_roc_ovo_alone(tmp_path, capsys):
    p = tmp_path / "a.csv"
    p.write_text(ROWS)
    capsys.readouterr()
    assert main(["eval", str(p), "--target", "label", "--score", "cat,dog,bird", "-m", "roc_ovo"]) == 0
    assert "left out of the averages: bird: no case of class 'bird' among the targets; in ROC_OVO)" in (
        capsys.readouterr().out
    )


def test_html_report_lists_roc_ovo_left_out_classes(tmp_path, capsys):
    p = tmp_path / "a.csv"
    p.write_text(ROWS)
    out = tmp_path / "r.html"
    assert (
        main(
            [
                "report",
                str(p),
                "--target",
                "label",
                "--score",
                "cat,dog,bird",
                "-m",
                "roc_ovo",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    html = out.read_text()
    assert (
        "undefined, left out of the averages: <b>bird: no case of class &#x27;bird&#x27; among the "
        "targets</b>; in ROC_OVO:average=macro" in html
    )


def test_warning_says_why_each_class_is_undefined():
    y = np.array(["cat", "dog", "cat", "dog"])
    s = np.array([[0.6, 0.3, 0.1], [0.3, 0.5, 0.2], [0.5, 0.1, 0.4], [0.6, 0.2, 0.2]])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        perfeval.evaluate(y, s, classes=["cat", "dog", "bird"], measures=["roc_ovo", "roc_ovr"])
    msgs = [str(w.message) for w in rec if issubclass(w.category, UndefinedMeasureWarning)]
    assert any("'bird': no case of class 'bird' among the targets" in m for m in msgs), msgs
    assert not any("or never predicted" in m for m in msgs), msgs
