"""With several models (``--score a,b,c``), every warning and note about a model's values names the
model it is about (an undefined measure, the reason of a NaN, an undefined group, scores read as
probabilities outside [0, 1]); one shared by several models is said once, naming them all.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfeval.cli.main import main


@pytest.fixture
def models_csv(tmp_path):
    """a: a score a case; b: 0.5 everywhere (no calibration slope); c: 0/1 scores (no logit); the
    group g1 holds positives only (no ROC area there).
    """
    rng = np.random.default_rng(1)
    n = 40
    y = (rng.random(n) < 0.5).astype(int)
    y[:10] = 1
    a, c = rng.random(n), (rng.random(n) < 0.5).astype(float)
    g = np.repeat(["g1", "g2", "g3", "g4"], 10)
    f = tmp_path / "m.csv"
    f.write_text(
        "y,a,b,c,g\n" + "".join(f"{t},{s},0.5,{u},{h}\n" for t, s, u, h in zip(y, a, c, g, strict=True))
    )
    return str(f)


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("perfeval: warning:")]


@pytest.mark.parametrize("backend", [[], ["--stream"]])
def test_eval_names_the_model_of_each_undefined_measure(models_csv, capsys, backend):
    assert (
        main(["eval", models_csv, "--target", "y", "--score", "a,b,c", "-m", "roc,cal_slope", *backend]) == 0
    )
    said = _warnings(capsys.readouterr().err)
    assert said, "no warning"
    assert all(
        line.startswith(("perfeval: warning: model ", "perfeval: warning: models ")) for line in said
    ), said
    assert any(
        line.startswith("perfeval: warning: model b: CAL_SLOPE is undefined") and "0.5" in line
        for line in said
    )
    assert any(
        line.startswith("perfeval: warning: model c: CAL_SLOPE is undefined") and "0 or 1" in line
        for line in said
    )


def test_eval_per_group_warnings_name_their_models_once(models_csv, capsys):
    argv = ["eval", models_csv, "--target", "y", "--score", "a,b,c", "--group", "g", "-m", "roc,cal_slope"]
    assert main(argv) == 0
    said = _warnings(capsys.readouterr().err)
    assert all(
        line.startswith(("perfeval: warning: model ", "perfeval: warning: models ")) for line in said
    ), said
    # g1 holds positives only: the same warning for every model's ROC, said once naming b and c
    # (a's names its CAL_SLOPE too); each model's own reasons for CAL_SLOPE in the other groups
    w = "perfeval: warning: "
    assert sum(line.startswith(w + "models b, c: ROC is undefined for 1 of 4 groups") for line in said) == 1
    assert sum(line.startswith(w + "model a: ROC and CAL_SLOPE are undefined") for line in said) == 1
    assert sum(line.startswith(w + "model b: CAL_SLOPE is undefined for 4 of 4") for line in said) == 1
    assert sum(line.startswith(w + "model c: CAL_SLOPE is undefined for 4 of 4") for line in said) == 1
    assert len(said) == len(set(said))


def test_one_model_is_said_as_before(models_csv, capsys):
    assert main(["eval", models_csv, "--target", "y", "--score", "b", "-m", "cal_slope"]) == 0
    said = _warnings(capsys.readouterr().err)
    assert said == [
        "perfeval: warning: CAL_SLOPE is undefined for this data: every score is 0.5: a slope has no finite "
        "maximum likelihood"
    ]


def test_probability_notes_name_the_model(tmp_path, capsys):
    f = tmp_path / "p.csv"
    f.write_text("y,a,b\n1,0.9,1.7\n0,0.2,0.1\n1,0.6,0.8\n0,0.4,-0.2\n")
    assert main(["eval", str(f), "--target", "y", "--score", "a,b", "-m", "brier"]) == 0
    err = capsys.readouterr().err
    assert "perfeval: note: model b: BRIER read the scores as probabilities, but 2 are outside [0, 1]" in err
    assert "model a: BRIER" not in err


def test_regression_models_are_named(tmp_path, capsys):
    rng = np.random.default_rng(0)
    y = rng.normal(5, 2, 50)
    p, q = y + rng.normal(0, 1, 50), -np.abs(y)
    f = tmp_path / "r.csv"
    f.write_text("y,p,q\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(y, p, q, strict=True)))
    for backend in ([], ["--stream"]):
        assert (
            main(["eval", str(f), "--target", "y", "--score", "p,q", "-m", "mae,gamma_deviance", *backend])
            == 0
        )
        said = _warnings(capsys.readouterr().err)
        assert len(said) == 1 and said[0].startswith("perfeval: warning: model q: GAMMA_DEV is undefined"), (
            said
        )


def test_compare_names_the_models_whose_value_is_undefined(models_csv, capsys):
    assert (
        main(
            ["compare", models_csv, "--target", "y", "--score", "a,b,c", "-m", "cal_slope", "--n-boot", "20"]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "CAL_SLOPE: the values of models b, c are undefined for this data" in err
    assert "a model's value" not in err


@pytest.mark.filterwarnings("always::perfeval.exceptions.UndefinedMeasureWarning")  # as a shell's
@pytest.mark.parametrize("scores", ["a", "a,c"])
def test_report_ci_names_the_model_of_an_undefined_group_with_one_model_too(
    models_csv, tmp_path, capsys, scores
):
    """`perfeval report --ci`: the groups where a model's ROC is undefined are said naming the model
    (``ROC of a is undefined for 1 of 4 groups``), of one model as of several."""
    out = str(tmp_path / "r.html")
    argv = ["report", models_csv, "--target", "y", "--score", scores, "--group", "g", "-m", "roc"]
    assert main([*argv, "--ci", "0.9", "--n-boot", "30", "-o", out]) == 0
    said = [line for line in _warnings(capsys.readouterr().err) if "is undefined for" in line]
    for model in scores.split(","):
        assert (
            sum(
                line.startswith(f"perfeval: warning: ROC of {model} is undefined for 1 of 4 groups")
                for line in said
            )
            == 1
        ), said
    assert all(" of a " in line or " of c " in line for line in said), said
