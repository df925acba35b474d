"""Plots of K classes: the displays of scikit-learn's names for several classes (the confusion matrix
of K labels, the ROC curves one class against the rest) hold scikit-learn's numbers, and the HTML
report of K classes (``perfeval report --classes`` / ``--score-prefix`` / the columns named after the
labels) shows the numbers of ``perfeval eval`` with the same classes: the measures, the per-class
table with the undefined classes and why, the curves of each class with their areas, the confusion
matrix of the argmax; every name from the user escaped.
"""

from __future__ import annotations

import json
import warnings
from html.parser import HTMLParser

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

pd = pytest.importorskip("pandas")
skm = pytest.importorskip("sklearn.metrics")

from perfeval import plot as P  # noqa: E402
from perfeval.cli.main import main  # noqa: E402
from perfeval.exceptions import InvalidParameterError, PerfError  # noqa: E402

LABELS = ("cat", "dog", "bird")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def scores(seed: int, n: int, k: int = 3, ties: bool = True):
    """Targets (codes 0..k-1) and a row-stochastic score matrix that favours the true class, rounded
    (ties within and across rows).
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    s = rng.dirichlet(np.ones(k), n)
    s[np.arange(n), y] += 0.4
    s /= s.sum(axis=1, keepdims=True)
    return y, (np.round(s, 1) if ties else s)


# -- ConfusionMatrixDisplay of K labels ---------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("normalize", [None, "true", "pred", "all"])
def test_confusion_matrix_display_of_k_labels_holds_scikit_learns_matrix(seed, normalize):
    rng = np.random.default_rng(seed)
    labels = np.array(["cat", "dog", "bird", "fish", "eel"])
    y, p = labels[rng.integers(0, 4, 80)], labels[rng.integers(1, 5, 80)]  # 'cat' never predicted, ...
    w = rng.random(80) * 3 if seed % 2 else None
    order = ["eel", "dog", "cat", "bird", "fish", "owl"] if seed >= 2 else None  # 'owl' in neither
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = P.ConfusionMatrixDisplay.from_predictions(
            y, p, labels=order, sample_weight=w, normalize=normalize
        )
        want = skm.confusion_matrix(y, p, labels=order, sample_weight=w, normalize=normalize)
    np.testing.assert_allclose(d.confusion_matrix, want, rtol=1e-12, atol=0)
    assert [t.get_text() for t in d.ax_.get_xticklabels()] == (
        order if order is not None else sorted(set(y) | set(p))
    )
    assert d.text_.shape == (len(want), len(want))


# -- RocCurveDisplay of K classes ----------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_roc_curve_display_of_k_classes_is_each_class_against_the_rest(seed):
    y, s = scores(seed, 120, k=4)
    labels = np.array(["b", "a", "d", "c"])  # the columns' classes, not sorted
    yl = labels[y]
    rng = np.random.default_rng(seed + 100)
    w = None if seed % 3 == 0 else rng.choice([0.0, 0.5, 1.0, 2.5], len(y))  # weight 0: no case
    drop = seed % 2 == 0
    d = P.RocCurveDisplay.from_predictions(yl, s, classes=labels, sample_weight=w, drop_intermediate=drop)
    assert d.classes == list(labels) and d.name == list(labels)
    assert len(d.fpr) == len(d.tpr) == len(d.roc_auc) == len(d.line_) == 4
    for j, c in enumerate(labels):
        fpr, tpr, _ = skm.roc_curve(yl == c, s[:, j], sample_weight=w, drop_intermediate=drop)
        np.testing.assert_array_equal(d.fpr[j], fpr)
        np.testing.assert_array_equal(d.tpr[j], tpr)
        want = skm.roc_auc_score(yl == c, s[:, j], sample_weight=w)
        assert d.roc_auc[j] == pytest.approx(want, rel=1e-12, abs=0, nan_ok=True)
        assert d.line_[j].get_label() == f"{c} (AUC = {want:0.2f})"
        np.testing.assert_array_equal(d.line_[j].get_xdata(), fpr)
    assert len({line.get_color() for line in d.line_}) == 4  # a colour a class, each in the legend
    assert [t.get_text() for t in d.ax_.get_legend().get_texts()] == [f.get_label() for f in d.line_]


def test_roc_curve_display_finds_the_classes_as_evaluate_does():
    y, s = scores(7, 60)
    yl = np.array(LABELS)[y]
    frame = pd.DataFrame(s, columns=list(LABELS))  # predict_proba with the class names
    by_frame = P.RocCurveDisplay.from_predictions(yl, frame)
    assert by_frame.classes == list(LABELS)
    for j, c in enumerate(LABELS):
        assert by_frame.roc_auc[j] == pytest.approx(skm.roc_auc_score(yl == c, s[:, j]), rel=1e-12)
    # a plain array: the sorted labels (scikit-learn's classes_), as evaluate() finds them
    plain = P.RocCurveDisplay.from_predictions(yl, s[:, [2, 0, 1]])
    assert plain.classes == ["bird", "cat", "dog"]
    np.testing.assert_array_equal(plain.roc_auc, by_frame.roc_auc[2:] + by_frame.roc_auc[:2])
    # the display redrawn (plot again) keeps a legend entry a class
    again = plain.plot()
    assert [line.get_label() for line in again.line_] == [line.get_label() for line in plain.line_]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda y, s: P.RocCurveDisplay.from_predictions(y, s, classes=["cat", "dog"]), "names 2 labels"),
        (lambda y, s: P.RocCurveDisplay.from_predictions(y, s, classes=["cat", "dog", "owl"]), "bird"),
        (lambda y, s: P.RocCurveDisplay.from_predictions(y, s, pos_label="cat"), "drop pos_label"),
        (lambda y, s: P.RocCurveDisplay.from_predictions(y, s, threshold=0.5), "drop threshold"),
        (lambda y, s: P.RocCurveDisplay.from_predictions(y, s[:, 0], classes=LABELS), "1 dimension"),
        (lambda y, s: P.RocCurveDisplay.from_predictions(y[:5], s), "5"),
    ],
)
def test_roc_curve_display_of_k_classes_refuses_in_one_line(call, message):
    y, s = scores(3, 30)
    with pytest.raises(PerfError) as e:
        call(np.array(LABELS)[y], s)
    assert isinstance(e.value, ValueError) and message in str(e.value) and "\n" not in str(e.value)


def test_roc_curve_display_of_two_classes_is_unchanged():
    y = np.array([0, 0, 1, 1])
    d = P.RocCurveDisplay.from_predictions(y, [0.1, 0.4, 0.35, 0.8], name="m")
    assert d.line_.get_label() == "m (AUC = 0.75)" and d.classes is None


# -- the HTML report of K classes ----------------------------------------------------------------------
class Page(HTMLParser):
    """The tables (by class attribute: rows of cell texts), the images' kinds, the notes' text."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.kinds: list[str] = []
        self.notes: list[str] = []
        self._table: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self._note: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = self.tables.setdefault(a.get("class") or "", [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        elif tag == "img":
            self.kinds.append(a.get("data-kind") or "")
        elif tag == "li":
            self._note = []

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._note is not None:
            self._note.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            self._table[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "li" and self._note is not None:
            self.notes.append("".join(self._note))
            self._note = None


def page(path) -> Page:
    p = Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def animals(tmp_path, seed: int = 11, n: int = 240, weights: bool = False):
    """A CSV as pandas writes predict_proba beside the labels: p_cat, p_dog, p_bird, p_fish (no fish
    among the targets), ties from rounding.
    """
    y, s = scores(seed, n, k=3)
    s = np.column_stack([s * 0.9, np.full(n, 0.1)])  # rows still sum to 1
    frame = pd.DataFrame({"y": np.array(LABELS)[y]})
    for j, c in enumerate((*LABELS, "fish")):
        frame[f"p_{c}"] = s[:, j]
    if weights:
        frame["w"] = np.random.default_rng(seed).choice([0, 1, 2, 3], n)
    path = tmp_path / "animals.csv"
    frame.to_csv(path, index=False)
    return path, frame


def eval_json(capsys, argv) -> dict:
    capsys.readouterr()
    assert main(["eval", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def number(text: str) -> float:
    return float("nan") if text == "undefined" else float(text)


@pytest.mark.parametrize("weights", [False, True])
def test_the_report_of_k_classes_shows_evals_numbers(tmp_path, capsys, weights):
    path, frame = animals(tmp_path, weights=weights)
    cols = ["--target", "y", "--score", "p_cat,p_dog,p_bird,p_fish", "--classes", "cat,dog,bird,fish"]
    cols += ["--weight", "w"] if weights else []
    out = tmp_path / "r.html"
    assert main(["report", str(path), *cols, "-o", str(out)]) == 0
    want = eval_json(capsys, [str(path), *cols, "--confusion"])
    got = page(out)
    # the measures: each label with its average, eval's value to the 6 digits shown
    rows = got.tables["measures"][1:]
    assert [r[0] for r in rows] == list(want["measures"])
    for label, _better, value in rows:
        v = want["measures"][label]["value"]
        if v is None:
            assert value == "undefined"
        else:
            assert number(value) == pytest.approx(v, abs=5e-7)
    # the per-class table: support and each averaged measure's value a class; fish undefined
    head, *body = got.tables["classes"]
    per = [k for k, m in want["measures"].items() if "per_class" in m]
    assert head == ["class", "support", *per]
    assert [r[0] for r in body] == ["cat", "dog", "bird", "fish"]
    w = frame["w"].to_numpy() if weights else np.ones(len(frame))
    for r in body:
        assert float(r[1]) == pytest.approx(w[frame["y"] == r[0]].sum(), rel=1e-15)
        for label, cell in zip(per, r[2:], strict=True):
            v = want["measures"][label]["per_class"][r[0]]
            assert (cell == "undefined") if v is None else number(cell) == pytest.approx(v, abs=5e-7)
    assert body[3][0] == "fish" and all(c == "undefined" for c in body[3][2:])
    said = [n for n in got.notes if n.startswith("undefined, left out of the averages")]
    assert said and "no case of class 'fish' among the targets" in said[0]
    assert all(label in said[0] for label in per)
    # the confusion matrix of the argmax, every digit, as eval --confusion
    conf = got.tables["confusion"]
    assert conf[0][1:] == ["cat", "dog", "bird", "fish"]
    assert [[float(v) for v in r[1:]] for r in conf[1:]] == want["confusion"]["matrix"]
    # the plots: the curves of the classes, the top-label reliability diagram and the two heatmaps
    assert got.kinds == ["roc-classes", "pr-classes", "calibration-top", "confusion", "confusion-normalised"]
    assert capsys.readouterr().err.count("wrote") == 0  # eval's run said nothing of the report's file


def test_the_classes_are_named_as_eval_names_them(tmp_path, capsys):
    path, frame = animals(tmp_path)
    by_classes = tmp_path / "a.html"
    by_prefix = tmp_path / "b.html"
    by_names = tmp_path / "c.html"
    common = ["--target", "y", "-m", "roc,acc"]
    assert (
        main(["report", str(path), *common, "--score", "p_cat,p_dog,p_bird,p_fish", "--classes",
              "cat,dog,bird,fish", "-o", str(by_classes)])
        == 0
    )  # fmt: skip
    assert main(["report", str(path), *common, "--score-prefix", "p_", "-o", str(by_prefix)]) == 0
    named = frame.rename(columns=lambda c: c.removeprefix("p_"))
    named.to_csv(tmp_path / "named.csv", index=False)
    argv = [
        "report",
        str(tmp_path / "named.csv"),
        *common,
        "--score",
        "cat,dog,bird,fish",
        "-o",
        str(by_names),
    ]
    assert main(argv) == 0
    tables = [page(p).tables["measures"] for p in (by_classes, by_prefix, by_names)]
    assert tables[0] == tables[1] == tables[2]
    assert [r[0] for r in tables[0][1:]] == ["ROC_OVR:average=macro", "ACC_MC"]
    inputs = [dict((r[0], r[1]) for r in page(p).tables["summary"][1:]) for p in (by_prefix, by_names)]
    assert "--score-prefix 'p_'" in inputs[0]["classes"]
    assert "the score columns' names" in inputs[1]["classes"]


def test_the_report_of_k_classes_reads_standard_input_once(tmp_path, capsys, monkeypatch):
    import io
    import sys

    path, frame = animals(tmp_path)
    named = frame.rename(columns=lambda c: c.removeprefix("p_")).drop(columns=["fish"])
    named = named[named["y"] != "fish"]
    text = named.to_csv(index=False)
    out, ref = tmp_path / "stdin.html", tmp_path / "file.html"
    (tmp_path / "n.csv").write_text(text)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["report", "-", "--target", "y", "--score", "cat,dog,bird", "-o", str(out)]) == 0
    assert (
        main(["report", str(tmp_path / "n.csv"), "--target", "y", "--score", "cat,dog,bird", "-o", str(ref)])
        == 0
    )
    assert page(out).tables["measures"] == page(ref).tables["measures"]
    assert page(out).tables["classes"] == page(ref).tables["classes"]
    # several binary models on standard input: still one model a column
    binary = "y,a,b\n1,0.9,0.8\n0,0.2,0.3\n1,0.6,0.4\n0,0.5,0.1\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(binary.encode())))
    two = tmp_path / "two.html"
    assert main(["report", "-", "--target", "y", "--score", "a,b", "-o", str(two)]) == 0
    html = two.read_text(encoding="utf-8")
    assert "data-model='a'" in html and "data-model='b'" in html


@pytest.mark.parametrize(
    ("more", "message"),
    [
        (["--ci", "0.9"], "--ci does not apply to the report of K classes"),
        (["--tie-bounds"], "--tie-bounds does not apply"),
        (["-t", "0.3"], "a threshold does not apply to K classes"),
        (["--classes", "cat,dog"], "--classes names 2 labels for the 4 --score columns"),
    ],
)
def test_the_report_of_k_classes_refuses_in_one_line(tmp_path, capsys, more, message):
    path, _frame = animals(tmp_path, n=30)
    out = tmp_path / "r.html"
    argv = ["report", str(path), "--target", "y", "--score", "p_cat,p_dog,p_bird,p_fish"]
    argv += more if "--classes" in more else [*more, "--classes", "cat,dog,bird,fish"]
    assert main([*argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_a_target_that_is_no_class_is_named_by_its_line(tmp_path, capsys):
    path, frame = animals(tmp_path, n=30)
    frame.loc[7, "y"] = "owl"
    frame.to_csv(path, index=False)
    assert (
        main(["report", str(path), "--target", "y", "--score-prefix", "p_", "-o", str(tmp_path / "r.html")])
        == 1
    )
    err = capsys.readouterr().err
    assert "'owl'" in err and "line 9" in err and len(err.strip().splitlines()) == 1


def test_names_of_the_classes_are_shown_escaped(tmp_path, capsys):
    y, s = scores(5, 60)
    names = ["c\x1b[31mat", "<b>dog</b>", "bi\u202erd"]
    frame = pd.DataFrame({"y": np.array(names)[y]})
    for j, c in enumerate(names):
        frame[c] = s[:, j]
    path = tmp_path / "esc.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "esc.html"
    assert main(["report", str(path), "--target", "y", "--score", ",".join(["2", "3", "4"]),
                 "--classes", ",".join(names), "-o", str(out)]) == 0  # fmt: skip
    text = out.read_text(encoding="utf-8")
    raw = [c for c in set(text) if (ord(c) < 32 and c not in "\n") or 0x7F <= ord(c) < 0xA0 or c == "\u202e"]
    assert raw == []
    assert "<b>dog</b>" not in text and "&lt;b&gt;dog&lt;/b&gt;" in text
    assert "c\\x1b[31mat" in text and "bi\\u202erd" in text


def test_the_curves_legends_give_each_classs_area_of_the_per_class_table():
    from perfeval import evaluate
    from perfeval.plot.html import _curves_figure, row_normalised

    y, s = scores(9, 200, k=4)
    y[y == 3] = 0  # class 3 absent from the targets
    r = evaluate(y, s, classes=[0, 1, 2, 3], measures=["roc", "ap"])
    for kind, label in (("roc", "ROC_OVR:average=macro"), ("pr", "AP_OVR:average=macro")):
        fig = _curves_figure(kind, r.summary, [0, 1, 2, 3])
        texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        area = "AUC" if kind == "roc" else "AP"
        per = r.results[label].per_class
        assert texts[:3] == [f"{c} ({area} {per[c]:.4f})" for c in range(3)]
        assert texts[3] == f"3 ({area} undefined)"
        micro = r.summary.micro()
        from perfeval import curves

        want = (curves.roc if kind == "roc" else curves.precision_recall)(micro).area
        assert texts[4] == f"micro-average ({area} {want:.4f})"
    rn = row_normalised(r.summary.confusion)
    np.testing.assert_allclose(rn[:3].sum(axis=1), 1.0, rtol=1e-15)
    assert np.isnan(rn[3]).all()  # no case of class 3: no row to normalise


def test_the_report_of_arrays_takes_classes_as_evaluate():
    from perfeval.plot.html import build_classes, classes_report

    y, s = scores(4, 50)
    text = classes_report(np.array(LABELS)[y], s, classes=list(LABELS), measures=["roc"])
    p = Page()
    p.feed(text)
    assert [r[0] for r in p.tables["measures"][1:]] == ["ROC_OVR:average=macro"]
    from perfeval import evaluate

    with pytest.raises(InvalidParameterError, match="report of K classes"):
        build_classes(evaluate([0, 1, 1], [0.2, 0.7, 0.6]))


def test_a_class_without_a_case_leaves_the_other_cells_text_readable():
    from perfeval.plot.html import _heatmap

    confusion = np.array([[8.0, 1.0, 1.0], [2.0, 6.0, 2.0], [0.0, 0.0, 0.0]])  # class 2: no case
    fig = _heatmap(confusion, ["a", "b", "c"], normalised=True)
    texts = {(round(t.get_position()[1]), round(t.get_position()[0])): t for t in fig.axes[0].texts}
    assert texts[(2, 0)].get_text() == "n/a"
    # the high cell (0.80) and a low one (0.10) write in different colours (NaN made them one)
    assert texts[(0, 0)].get_color() != texts[(0, 1)].get_color()
