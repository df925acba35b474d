"""Small fixes of the K-class CLI and Metric: the report's refusals hint at what applies; Metric(labels=)
says labels; the report's plots have alternative text; labels with no --classes are a usage error."""

from __future__ import annotations

import re

import numpy as np
import pytest

from perfeval.cli.main import main

ROWS = "label,p_cat,p_dog,p_bird\ncat,0.6,0.3,0.1\ndog,0.2,0.7,0.1\nbird,0.1,0.2,0.7\ncat,0.5,0.4,0.1\n"
NAMED = "label,cat,dog,bird\ncat,0.6,0.3,0.1\ndog,0.2,0.7,0.1\nbird,0.1,0.2,0.7\ncat,0.5,0.4,0.1\n"


@pytest.mark.parametrize(
    ("flag", "hint"),
    [
        (["--ci", "0.95"], "`perfeval eval --ci` gives the intervals of K classes"),
        (["--tie-bounds"], "`perfeval eval --tie-bounds` gives the bounds of K classes"),
        (["--pos-label", "cat"], "no class is the positive one"),
        (["--group", "label"], "`perfeval eval` takes K classes per --group"),
    ],
)
def test_report_refusals_hint_at_what_applies(tmp_path, capsys, flag, hint):
    p = tmp_path / "a.csv"
    p.write_text(NAMED)
    args = ["report", str(p), "--target", "label", "--score", "cat,dog,bird", "--classes", "cat,dog,bird"]
    assert main([*args, *flag, "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert hint in err and err.count("\n") == 1
    if flag[0] != "--group":
        assert "per --group" not in err


def test_metric_labels_says_labels():
    from perfeval import Metric
    from perfeval.exceptions import InvalidParameterError

    m = Metric(labels=["a", "b", "c"], measures=["roc_ml"])
    with pytest.raises(InvalidParameterError, match=r"^`labels` names 3 labels for the 4 columns"):
        m.update(np.zeros((2, 4), dtype=int), np.zeros((2, 4)))


def test_report_plots_have_alternative_text(tmp_path, capsys):
    p = tmp_path / "a.csv"
    p.write_text(NAMED)
    out = tmp_path / "r.html"
    assert main(["report", str(p), "--target", "label", "--score", "cat,dog,bird", "-o", str(out)]) == 0
    alts = re.findall(r"<img alt='([^']*)'[^>]*data-kind='([^']*)'", out.read_text())
    assert alts
    for alt, kind in alts:
        assert alt != kind and len(alt) > 20, (alt, kind)


def test_labels_without_classes_is_a_usage_error(tmp_path, capsys):
    p = tmp_path / "a.csv"
    p.write_text(ROWS)
    assert main(["eval", str(p), "--target", "label", "--score", "p_cat,p_dog,p_bird"]) == 2
    err = capsys.readouterr().err
    assert "--classes LABEL" in err and str(p) in err and err.count("\n") == 1
