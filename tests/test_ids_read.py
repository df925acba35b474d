"""Issue 33 (user pass): document ids (``ids=``, ``id=``, ``--id``) are read only by the dialects
that break ties by document id (trec_eval).  Given anywhere else they are one line that says so, the
same at every door (evaluate of arrays, of a table, of the long form, of a Dask collection; Metric;
explain; the command in memory, streamed, on Dask, of K labels), never dropped without a word; and
explain checks them once, not in a table cell per dialect and measure.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import perfeval
from perfeval.cli.main import main
from perfeval.exceptions import InvalidDataError, InvalidParameterError

pd = pytest.importorskip("pandas")

RULE = "is read only by the dialects that break ties by document id (trec_eval)"
RX = re.escape(RULE)
OWN = "perfeval's own rules take every order of a tie (the expected value), whatever the ids"

Y = np.array([1, 0, 1, 0, 1, 0])
S = np.array([0.5, 0.5, 0.2, 0.9, 0.9, 0.1])
G = np.array([1, 1, 1, 2, 2, 2])
IDS = np.array(list("abcdef"))


def _table():
    return pd.DataFrame({"q": G, "doc": IDS, "rel": Y, "s": S})


@pytest.mark.parametrize("dialect", ["perfeval", "sklearn", "ranx", "torchmetrics"])
def test_evaluate_refuses_ids_a_dialect_does_not_read(dialect):
    """They were dropped without a word: the numbers of no ids, while Metric.update refused them."""
    measure = "roc" if dialect == "sklearn" else "map"
    with pytest.raises(InvalidParameterError) as e:
        perfeval.evaluate(Y, S, groups=G, ids=IDS, measures=[measure], dialect=dialect)
    said = str(e.value)
    assert said.startswith(f"ids= {RULE}; ") and said.endswith(": drop it, or pass dialect='trec_eval'")
    assert (OWN in said) == (dialect == "perfeval") and "\n" not in said
    if dialect != "perfeval":
        assert f"dialect {dialect} breaks ties by its tool's own rule, not by id" in said
    with pytest.raises(InvalidParameterError, match=rf"^id='doc' {RX}"):
        perfeval.evaluate(
            _table(), target="rel", score="s", group="q", id="doc", measures=[measure], dialect=dialect
        )


def test_evaluate_reads_ids_under_trec_eval_as_before():
    by_values = perfeval.evaluate(Y, S, groups=G, ids=IDS, measures=["map"], dialect="trec_eval")
    by_name = perfeval.evaluate(
        _table(), target="rel", score="s", group="q", id="doc", measures=["map"], dialect="trec_eval"
    )
    assert by_values["MAP"] == by_name["MAP"] == pytest.approx(0.7916666666666666, abs=1e-15)


def test_the_long_form_and_k_classes_refuse_ids():
    long = pd.DataFrame(
        {"case": [1, 1, 2, 2], "cls": ["a", "b"] * 2, "y": [1, 0, 0, 1], "p": [0.7, 0.3, 0.4, 0.6]}
    )
    with pytest.raises(InvalidParameterError, match=rf"^ids= {RX}"):
        perfeval.evaluate(long, target="y", score="p", case="case", class_column="cls", ids=np.arange(4))
    scores = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])
    with pytest.raises(InvalidParameterError, match=rf"^ids= {RX}"):
        perfeval.evaluate([0, 1, 2], scores, ids=["a", "b", "c"])


def test_a_dask_collection_refuses_ids_as_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(_table(), npartitions=2)
    with pytest.raises(InvalidParameterError) as on_cluster:
        perfeval.evaluate(ddf, target="rel", score="s", group="q", id="doc", measures=["map"])
    with pytest.raises(InvalidParameterError) as in_memory:
        perfeval.evaluate(_table(), target="rel", score="s", group="q", id="doc", measures=["map"])
    assert str(on_cluster.value) == str(in_memory.value)
    with pytest.raises(InvalidParameterError, match=rf"^ids= {RX}"):
        perfeval.evaluate(ddf, target="rel", score="s", group="q", ids=ddf["doc"], measures=["map"])


def test_metric_refuses_ids_under_every_dialect_that_does_not_read_them():
    """A Metric under sklearn kept them, 4 bytes a row, and handed them to no rule."""
    m = perfeval.Metric(["roc"], dialect="sklearn")
    with pytest.raises(InvalidParameterError, match=rf"^ids= {RX}; dialect sklearn"):
        m.update(Y, S, ids=IDS)
    m.update(Y, S)  # the failed update changed nothing
    assert m.compute()["ROC"] == perfeval.evaluate(Y, S, measures=["roc"], dialect="sklearn")["ROC"]


def test_explain_checks_ids_once_not_in_a_cell():
    """A bad ids value was each id-reading cell's text ("trec_eval AP: `ids` needs one id per row"),
    ranx's too (which reads none), the table printed and the call returning."""
    with pytest.raises(InvalidParameterError, match=r"^`ids` needs one id per row \(6\), got \(3,\)$"):
        perfeval.explain(Y, S, groups=G, ids=IDS[:3], measures="ap")
    with pytest.raises(InvalidDataError, match="`ids` holds None at index 1"):
        perfeval.explain(
            Y, S, groups=G, ids=np.array(["a", None, "c", "d", "e", "f"], dtype=object), measures="ap"
        )
    with pytest.raises(InvalidParameterError, match="`ids` are floats"):
        perfeval.explain(Y, S, groups=G, ids=np.arange(6.0), measures="ap")
    e = perfeval.explain(Y, S, groups=G, ids=IDS, measures="ap")
    te = perfeval.evaluate(Y, S, groups=G, ids=IDS, measures=["ap"], dialect="trec_eval")["AP"]
    assert e.value("trec_eval", "AP") == te
    assert e.value("ranx", "AP") == perfeval.evaluate(Y, S, groups=G, measures=["ap"], dialect="ranx")["AP"]


def test_explain_refuses_ids_no_dialect_it_shows_reads():
    with pytest.raises(InvalidParameterError) as e:
        perfeval.explain(Y, S, ids=IDS, measures="roc", dialects="sklearn")
    assert str(e.value).startswith(f"ids= {RULE}; dialect sklearn breaks ties by its tool's own rule")
    with pytest.raises(InvalidParameterError, match=rf"^ids= {RX}; dialects "):
        perfeval.explain(Y, S, ids=IDS, measures="roc")  # trec_eval defines no ROC: not among them
    with pytest.raises(InvalidParameterError, match=rf"^ids= {RX}, which explain no regression target"):
        perfeval.explain([1.5, 2.0, 3.5], [1.0, 2.5, 3.0], ids=["a", "b", "c"], measures="mae")
    scores = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])
    with pytest.raises(InvalidParameterError, match=rf"^ids= {RX}, which explain no K classes"):
        perfeval.explain([0, 1, 2], scores, ids=["a", "b", "c"], measures="roc")
    with pytest.raises(InvalidParameterError, match="perfeval.explain\\(\\) takes no table"):
        perfeval.explain(Y, S, ids="doc", measures="roc", dialects="sklearn")  # a name: the values


@pytest.fixture
def table_file(tmp_path):
    f = tmp_path / "r.csv"
    _table().to_csv(f, index=False)
    return str(f)


@pytest.mark.parametrize("extra", [[], ["--stream"], ["--dialect", "ranx"]])
def test_the_command_refuses_id_no_dialect_reads(table_file, capsys, extra):
    argv = ["eval", table_file, "--target", "rel", "--score", "s", "--group", "q", "--id", "doc", "-m", "map"]
    assert main([*argv, *extra]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"perfeval: error: --id doc {RULE}; ")
    assert err.rstrip().endswith("drop it, or pass --dialect trec_eval")
    assert main([*argv, "--dialect", "trec_eval", "--format", "json"]) == 0
    assert '"MAP"' in capsys.readouterr().out


def test_the_command_of_k_labels_refuses_id(tmp_path, capsys):
    f = tmp_path / "l.csv"
    f.write_text("a,b,pa,pb,doc\n1,0,0.9,0.1,x\n0,1,0.2,0.3,y\n1,1,0.7,0.6,z\n0,0,0.1,0.2,w\n")
    assert main(["eval", str(f), "--labels", "a,b", "--score", "pa,pb", "--id", "doc", "-m", "roc"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("perfeval: error: --id with --labels/--label-prefix: document ids are read only")
    assert err.count("\n") == 1


def test_the_command_explain_refuses_id_no_dialect_shown_reads(table_file, capsys):
    argv = [
        "explain",
        table_file,
        "--target",
        "rel",
        "--score",
        "s",
        "--group",
        "q",
        "--id",
        "doc",
        "-m",
        "map",
    ]
    assert main([*argv, "--dialects", "ranx"]) == 2
    out, err = capsys.readouterr()
    assert (
        out == ""
        and err.startswith(f"perfeval: error: --id doc {RULE}; dialect ranx")
        and err.count("\n") == 1
    )
    assert main([*argv, "--dialects", "trec_eval"]) == 0
    assert "trec_eval" in capsys.readouterr().out
