"""``perfeval list-measures NAME ...``: the definitions of the measures named, as ``-m`` reads the
names (aliases, PERF options, other tools' spellings, parameters), each once; an unknown name is the
``-m`` error with its close matches; Markdown gives only their sections of docs/measures.md.
"""

from __future__ import annotations

from perfeval.cli.main import main
from perfeval.measures import REGISTRY


def _run(capsys, *args: str) -> tuple[int, str, str]:
    rc = main(["list-measures", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_one_measure_in_full(capsys):
    rc, out, _ = _run(capsys, "cal_slope")
    m = REGISTRY.get("CAL_SLOPE")
    assert rc == 0 and out.startswith(m.doc.splitlines()[0]) and m.definition[:60] in out
    assert "Dialects:" in out and "ECE" not in out.split("\n")[0]


def test_names_as_minus_m_reads_them_each_once(capsys):
    rc, out, _ = _run(capsys, "ece:bins=mass,ndcg_cut_10", "expected_calibration_error", "--", "-roc")
    assert rc == 0
    heads = [line for line in out.splitlines() if line.startswith(("ECE:", "NDCG:", "ROC:"))]
    assert [h.split(":")[0] for h in heads] == ["ECE", "NDCG", "ROC"]  # ECE once, in the order given
    assert "(as given: ECE:bins=mass)" in out and "(as given: NDCG@10:gain=linear)" in out


def test_a_name_with_other_forms_says_them(capsys):
    _, out, _ = _run(capsys, "rmse")
    assert out.startswith("RMS:") and "a regression target: RMSE_REG" in out
    _, out, _ = _run(capsys, "roc")
    assert "K classes: ROC_OVR; K labels: ROC_ML" in out


def test_an_unknown_name_is_one_line(capsys):
    rc, out, err = _run(capsys, "ecee")
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "unknown measure 'ecee'" in err and "ECE" in err.upper()


def test_markdown_of_names_is_their_sections(capsys):
    rc, out, _ = _run(capsys, "ece", "mae", "--format", "markdown")
    assert rc == 0 and out.startswith("## ECE: ") and "## MAE: " in out
    assert "# Measures" not in out and "## Multiclass" not in out
    _, whole, _ = _run(capsys, "--format", "markdown")
    assert out.split("## MAE: ")[0] in whole


def test_help_shows_the_example(capsys):
    try:
        main(["list-measures", "--help"])
    except SystemExit as e:
        assert e.code == 0
    assert "perfeval list-measures ece cal_slope ndcg@10" in capsys.readouterr().out


def test_a_parameter_not_had_lists_the_measures_parameters_as_words(capsys):
    rc = main(["eval", "-", "-m", "pinball:beta=2"])
    err = capsys.readouterr().err
    assert rc == 2 and "measure PINBALL has no parameter 'beta' (parameters: alpha)" in err
    main(["eval", "-", "-m", "ece:foo=1"])
    assert "(parameters: bins, n_bins, norm, debiased)" in capsys.readouterr().err
