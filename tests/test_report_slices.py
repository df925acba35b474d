"""The HTML report's slices section (``perfeval report --by``, ``build(by=...)``): for each model and
slicing, a table of every slice sorted by its gap to the overall value (worst first by the first
measure's direction; the undefined slices last, with their reasons; the flagged ones marked), the
gaps (fairlearn's difference and ratio, the worst slice), fairlearn's demographic parity and
equalized odds at the report's threshold (checked against fairlearn itself), a forest plot and the
worst slices' ROC curves.  Every number is read back from the page and compared with the library's.
"""

from __future__ import annotations

import base64
import math
import re
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import perfeval  # noqa: E402
from conftest import run_cli  # noqa: E402
from perfeval.plot.html import build  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "docs" / "examples" / "slices" / "applicants.csv"
MEASURES = ["roc", "ap", "acc", "selrate"]


class Page(HTMLParser):
    """The slices section as data: each table of class slices / slice-gaps / fairness by (model,
    slicing), its rows (the row's attributes and its cells' attributes and text), and every image.
    """

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[tuple[str, str, str], list[tuple[dict, list[tuple[dict, str]]]]] = {}
        self.images: list[dict] = []
        self.headings: list[str] = []
        self.text: list[str] = []
        self._table: list | None = None
        self._row: list | None = None
        self._cell: tuple[dict, list[str]] | None = None
        self._h3: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "table" and a.get("class") in ("slices", "slice-gaps", "fairness"):
            self._table = self.tables.setdefault((a["class"], a["data-model"], a["data-slicing"]), [])
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table.append((a, self._row))
        elif tag in ("td", "th") and self._row is not None:
            self._cell = (a, [])
        elif tag == "img":
            self.images.append(a)
        elif tag == "h3":
            self._h3 = []

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell[1].append(data)
        if self._h3 is not None:
            self._h3.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append((self._cell[0], "".join(self._cell[1]).strip()))
            self._cell = None
        elif tag == "table":
            self._table = self._row = None
        elif tag == "h3" and self._h3 is not None:
            self.headings.append("".join(self._h3))
            self._h3 = None

    def slices(self, model: str, slicing: str) -> list[dict]:
        """The slice table's rows: each a dict of its cells by data-col or data-measure, and the
        row's attributes (``_attrs``).
        """
        out = []
        for attrs, cells in self.tables[("slices", model, slicing)]:
            if not attrs.get("data-slice") and attrs.get("class") != "flagged":
                continue  # the header
            row = {"_attrs": attrs}
            for a, text in cells:
                row[a.get("data-col") or a.get("data-measure")] = text
                if a.get("data-measure"):
                    row[a["data-measure"]] = text
            out.append(row)
        return out

    def cells(self, kind: str, model: str, slicing: str) -> dict[tuple[str, str], str]:
        """A table's cells by (data-measure, data-col)."""
        return {
            (a.get("data-measure", ""), a.get("data-col", "")): text
            for _, row in self.tables[(kind, model, slicing)]
            for a, text in row
            if a.get("data-col")
        }


def parse(text: str) -> Page:
    p = Page()
    p.feed(text)
    return p


def six(v: float) -> str:
    return "undefined" if math.isnan(v) else f"{v:.6f}"


def key_text(key) -> str:
    return " x ".join(map(str, key)) if isinstance(key, tuple) else str(key)


def library(frame, by, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return perfeval.evaluate(frame, **kw, by=by)


@pytest.fixture(scope="module")
def sample_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("slices") / "r.html"
    from perfeval.cli.main import main

    args = ["report", str(SAMPLE), "--target", "repaid", "--score", "score", "--by", "region,age"]
    assert main([*args, "--intersections", "--min-size", "50", "-m", ",".join(MEASURES), "-o", str(out)]) == 0
    frame = pd.read_csv(SAMPLE)
    r = library(
        frame,
        ["region", "age"],
        target="repaid",
        score="score",
        measures=MEASURES,
        intersections=True,
        min_size=50,
    )
    return out.read_text(encoding="utf-8"), frame, r


def test_each_slicing_is_a_table_of_the_librarys_numbers_sorted_by_the_gap(sample_page):
    text, _frame, r = sample_page
    page = parse(text)
    sl = r.slices
    assert sl.names == ["region", "age", "region x age"]
    overall = r["ROC"]
    for s in sl.slicings:
        rows = page.slices("score", s.name)
        assert len(rows) == len(s)  # every slice listed, the undefined ones too
        roc = np.asarray(s.values.values["ROC"])
        defined = [i for i in range(len(s)) if not math.isnan(roc[i])]
        # sorted by the gap to the overall ROC, the lowest first (higher is better); undefined last
        expected = sorted(defined, key=lambda i: (roc[i] - overall, i)) + [
            i for i in range(len(s)) if math.isnan(roc[i])
        ]
        assert [row["_attrs"]["data-slice"] for row in rows] == [key_text(s.keys[i]) for i in expected]
        for row, i in zip(rows, expected, strict=True):
            v = s.values
            assert row["rows"] == f"{int(v.rows[i]):,}" and row["cases"] == f"{int(v.cases[i]):,}"
            assert (
                row["positives"] == f"{v.positives[i]:.15g}" and row["negatives"] == f"{v.negatives[i]:.15g}"
            )
            for m in sl.measures:
                assert row[m] == six(float(v.values[m][i])), (s.name, i, m)
            gap = float(roc[i]) - overall
            assert row["gap"] == ("undefined" if math.isnan(gap) else f"{gap:+.6f}")
            flagged = bool(v.cases[i] < 50)
            assert (row["_attrs"].get("class") == "flagged") == flagged == row["slice"].endswith("*")
            for m in sl.measures:  # an undefined value's reason is in its row, as the library gives it
                why = v.reasons.get(m, {}).get(i)
                if why:
                    assert why.rstrip(".") in row["why"], (s.name, i, m)
            if flagged:
                assert f"{int(v.cases[i])} case" in row["why"] and "below the minimum size (50)" in row["why"]
            elif not any(i in v.reasons.get(m, {}) for m in sl.measures):
                assert row["why"] == ""
    # the one-class islands: listed last in the region table, ROC undefined with why
    last = page.slices("score", "region")[-1]
    assert last["slice"] == "islands*" and last["ROC"] == "undefined" and last["gap"] == "undefined"
    assert "ROC: undefined in this slice (6 positives, no negative)" in last["why"]


def test_the_gaps_are_the_librarys(sample_page):
    text, _frame, r = sample_page
    page = parse(text)
    sl = r.slices
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in sl.slicings:
            cells = page.cells("slice-gaps", "score", s.name)
            for m in sl.measures:
                for method in ("between_groups", "to_overall"):
                    assert cells[(m, f"difference-{method}")] == six(sl.difference(m, s.name, method=method))
                    assert cells[(m, f"ratio-{method}")] == six(sl.ratio(m, s.name, method=method))
                undefined = int(np.isnan(np.asarray(s.values.values[m])).sum())
                assert cells[(m, "undefined")] == str(undefined)
                if m == "SELRATE":
                    assert cells[(m, "worst")] == "no better direction"
                else:
                    (w,) = sl.worst(m, s.name)
                    assert cells[(m, "worst")] == key_text(w.key) and cells[(m, "worst-value")] == six(
                        w.value
                    )


def test_fairlearns_metrics_at_the_threshold_are_fairlearns(sample_page):
    fairlearn = pytest.importorskip("fairlearn.metrics")
    text, frame, r = sample_page
    page = parse(text)
    y, pred = frame["repaid"].to_numpy(), (frame["score"].to_numpy() >= 0.5).astype(int)
    for s in r.slices.slicings:
        cells = page.cells("fairness", "score", s.name)
        features = frame[list(s.columns)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name in ("demographic_parity_difference", "demographic_parity_ratio",
                         "equalized_odds_difference", "equalized_odds_ratio"):  # fmt: skip
                want = getattr(fairlearn, name)(y, pred, sensitive_features=features)
                assert cells[("", name)] == six(want), (s.name, name)
    # the islands hold no negative: fairlearn's FPR of 0/0 is 0 there, said under the table
    assert (
        "1 slice holds no negative case: its false positive rate is 0/0, which fairlearn counts as 0" in text
    )


def test_each_slicing_has_its_forest_plot_and_its_worst_slices_curves(sample_page):
    text, _frame, r = sample_page
    page = parse(text)
    kinds = [img["data-kind"] for img in page.images]
    assert kinds.count("slices-forest") == kinds.count("slices-roc") == 3
    for img in page.images:
        data = base64.b64decode(img["src"].split(",", 1)[1])
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    forests = [img["alt"] for img in page.images if img["data-kind"] == "slices-forest"]
    assert forests[0].startswith("ROC by region: every slice, in the table's order")
    rocs = [img["alt"] for img in page.images if img["data-kind"] == "slices-roc"]
    assert rocs[2].startswith("ROC curves of the 3 worst slices by ROC")
    assert rocs[1].startswith("ROC curves of every slice (the worst by ROC first)")  # age: 3 slices
    assert "by region x age (15 slices; 5 below 50 cases, marked *)" in page.headings
    assert "slices" in text and "region: 5; age: 3; region x age: 15" in text  # the input table


def test_several_models_weights_and_the_python_builder(tmp_path):
    frame = pd.read_csv(SAMPLE)
    rng = np.random.default_rng(3)
    frame["other"] = np.round(np.clip(frame["score"] + rng.normal(0, 0.2, len(frame)), 0, 1), 2)
    w = rng.choice([0.0, 1.0, 2.0, 3.0], len(frame))
    models = {"score": frame["score"].to_numpy(), "other": frame["other"].to_numpy()}
    text = build(frame["repaid"].to_numpy(), models, measures=["roc", "acc"], by=frame[["region"]],
                 sample_weight=w, min_size=40)  # fmt: skip
    page = parse(text)
    for name, s in models.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = perfeval.evaluate(frame["repaid"], s, measures=["roc", "acc"], sample_weight=w,
                                  by={"region": frame["region"]}, min_size=40)  # fmt: skip
        (sl,) = r.slices.slicings
        rows = {row["_attrs"]["data-slice"]: row for row in page.slices(name, "region")}
        assert set(rows) == set(sl.keys)
        for i, key in enumerate(sl.keys):
            row = rows[key]
            v = sl.values
            assert row["weight"] == f"{v.weight[i]:.15g}" and row["cases"] == f"{int(v.cases[i]):,}"
            assert row["rows"] == f"{int(v.rows[i]):,}"  # rows of weight 0 counted, not as cases
            assert row["ROC"] == six(v.values["ROC"][i]) and row["ACC"] == six(v.values["ACC"][i])
        assert f"{name}: by region (5 slices;" in " ".join(page.headings)
    assert page.slices("score", "region")[0]["ROC"] != page.slices("other", "region")[0]["ROC"]


@pytest.mark.parametrize(
    ("measures", "key"),
    [
        (["rms", "roc"], lambda gap: -gap),  # lower is better: the highest gap first
        (["selrate", "roc"], lambda gap: -abs(gap)),  # no better direction: the farthest first
    ],
)
def test_the_order_follows_the_first_measures_direction(measures, key):
    frame = pd.read_csv(SAMPLE)
    page = parse(
        build(frame["repaid"], {"m": frame["score"]}, measures=measures, by=frame[["age", "region"]])
    )
    r = library(frame, ["age", "region"], target="repaid", score="score", measures=measures)
    first = next(iter(r.results))
    for s in r.slices.slicings:
        vals = np.asarray(s.values.values[first])
        order = sorted(range(len(s)), key=lambda i: (key(vals[i] - r[first]), i))
        rows = page.slices("m", s.name)
        assert [row["_attrs"]["data-slice"] for row in rows] == [key_text(s.keys[i]) for i in order]
        assert [row["gap"] for row in rows] == [f"{vals[i] - r[first]:+.6f}" for i in order]


def test_many_slices_the_table_cut_where_asked_and_the_forest_of_the_worst():
    rng = np.random.default_rng(9)
    n = 6000
    shop = rng.integers(0, 300, n)
    y = rng.integers(0, 2, n)
    s = rng.random(n) + 0.3 * y
    page = parse(build(y, {"m": s}, measures=["roc"], by={"shop": shop}, max_group_rows=25))
    rows = page.slices("m", "shop")
    assert len(rows) == 25
    gaps = [float(row["gap"]) for row in rows]
    assert gaps == sorted(gaps)  # the 25 worst, the worst first
    r = perfeval.evaluate(y, s, measures=["roc"], by={"shop": shop})
    worst = r.slices.worst("roc", k=25)
    assert [row["_attrs"]["data-slice"] for row in rows] == [str(w.key) for w in worst]
    text = " ".join(page.text)
    assert "The table lists the 25 worst of 300 slices." in text
    forest = next(img["alt"] for img in page.images if img["data-kind"] == "slices-forest")
    assert "the 30 worst of 300 slices" in forest


def test_per_query_measures_by_slice_against_the_mean_over_groups(tmp_path, capsys):
    from test_report_html import clicks_frame

    frame = clicks_frame()
    frame["device"] = np.random.default_rng(2).choice(["m", "t", "d"], len(frame))
    path = tmp_path / "clicks.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "r.html"
    code, _, err = run_cli(
        ["report", str(path), "--target", "clicked", "--score", "model_a", "--group", "user_id",
         "--by", "device", "-m", "gauc,ndcg@10,roc", "-o", str(out)],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    page = parse(out.read_text(encoding="utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(frame, target="clicked", score="model_a", group="user_id",
                              measures=["gauc", "ndcg@10", "roc"], by=["device"])  # fmt: skip
    (s,) = r.slices.slicings
    rows = {row["_attrs"]["data-slice"]: row for row in page.slices("model_a", "device")}
    for i, key in enumerate(s.keys):
        for m in r.slices.measures:
            assert rows[key][m] == six(float(s.values.values[m][i]))
        assert rows[key]["queries"] == str(int(s.values.groups[i]))
        assert rows[key]["gap"] == f"{s.values.values['GAUC'][i] - r['GAUC']:+.6f}"
    assert "(the mean over groups of the measures table)" in " ".join(page.text)


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--by", "region", "--tie-bounds"], "--by: not with --tie-bounds yet"),
        (["--min-size", "5"], "--min-size needs --by COL,..."),
        (["--intersections"], "--intersections needs --by COL,..."),
        (["--by", "repaid"], "--by 'repaid' is the target column: a slice column is another column"),
        (["--by", "nope"], "nope"),
        (["--by", "region", "--min-size", "0"], "--min-size must be a whole number >= 1"),
    ],
)
def test_what_report_by_refuses_is_one_line(tmp_path, capsys, extra, said):
    out = tmp_path / "r.html"
    code, stdout, err = run_cli(
        ["report", str(SAMPLE), "--target", "repaid", "--score", "score", *extra, "-o", str(out)], capsys
    )
    assert code in (1, 2) and stdout == "" and not out.exists()
    assert said in err and len(err.strip().splitlines()) == 1


def test_a_missing_slice_value_is_named_by_its_line_or_made_a_slice(tmp_path, capsys):
    p = tmp_path / "t.csv"
    p.write_text("y,p,site\n1,0.9,a\n0,0.2,\n1,0.4,b\n0,0.6,a\n1,0.7,b\n")
    out = tmp_path / "r.html"
    base = ["report", str(p), "--target", "y", "--score", "p", "--by", "site", "-m", "roc", "-o", str(out)]
    code, _, err = run_cli(base, capsys)
    assert code == 1 and "by column 'site' holds a missing value (an empty field, or a null) at line 3" in err
    assert not out.exists()
    code, _, err = run_cli([*base, "--missing-slice"], capsys)
    assert code == 0, err
    rows = parse(out.read_text(encoding="utf-8")).slices("p", "site")
    assert sorted(row["_attrs"]["data-slice"] for row in rows) == ["<missing>", "a", "b"]


def test_the_report_of_k_classes_by_slice_is_evals(tmp_path, capsys):
    """`perfeval report --by` of K classes: each slicing's table, gaps and forest plot, the numbers of
    evaluate(y, S, classes=, by=) (eval --by's), sorted by the first measure's gap; no ROC curve by
    slice (a score column a class) nor fairlearn's binary metrics; --ci still eval's."""
    rng = np.random.default_rng(11)
    n = 240
    y = rng.choice(["cat", "dog", "bird"], n)
    s = rng.dirichlet([1.0, 1.0, 1.0], n).round(3)
    s[:, 2] = (1 - s[:, 0] - s[:, 1]).round(3)
    region = rng.choice(["n", "s", "e", "w"], n, p=[0.4, 0.3, 0.28, 0.02])
    w = rng.integers(0, 3, n)
    frame = pd.DataFrame({"y": y, "cat": s[:, 0], "dog": s[:, 1], "bird": s[:, 2], "region": region, "w": w})
    p = tmp_path / "k.csv"
    frame.to_csv(p, index=False)
    out = tmp_path / "r.html"
    argv = ["report", str(p), "--target", "y", "--score", "cat,dog,bird", "--weight", "w", "--by", "region",
            "--min-size", "20", "-m", "roc_ovr,acc_mc,logloss_mc", "-o", str(out)]  # fmt: skip
    code, _, err = run_cli(argv, capsys)
    assert code == 0, err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = perfeval.evaluate(frame["y"], s, classes=["cat", "dog", "bird"], sample_weight=w,
                              measures=["roc_ovr", "acc_mc", "logloss_mc"], by={"region": region},
                              min_size=20)  # fmt: skip
    page = parse(out.read_text(encoding="utf-8"))
    (sl,) = r.slices.slicings
    first = r.slices.measures[0]
    assert first == "ROC_OVR:average=macro"
    rows = page.slices("model", "region")
    vals = np.asarray(sl.values.values[first])
    defined = [i for i in range(len(sl)) if not math.isnan(vals[i])]
    want = sorted(defined, key=lambda i: (vals[i] - r[first], i)) + [
        i for i in range(len(sl)) if i not in defined
    ]
    assert len(defined) < len(sl)  # the small slice lacks a class: its one-vs-rest area is undefined
    assert [row["_attrs"]["data-slice"] for row in rows] == [sl.keys[i] for i in want]
    for row, i in zip(rows, want, strict=True):
        assert row["cases"] == f"{int(sl.values.cases[i]):,}" and "positives" not in row
        for m in r.slices.measures:
            assert row[m] == six(float(sl.values.values[m][i])), (i, m)
        assert row["gap"] == ("undefined" if math.isnan(vals[i]) else f"{vals[i] - r[first]:+.6f}")
        why = sl.values.reasons.get(first, {}).get(i)
        assert (why is None) == math.isfinite(vals[i]) and (why is None or why.rstrip(".") in row["why"])
        assert row["slice"].endswith("*") == bool(sl.values.cases[i] < 20)
    cells = page.cells("slice-gaps", "model", "region")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in r.slices.measures:
            for method in ("between_groups", "to_overall"):
                assert cells[(m, f"difference-{method}")] == six(
                    r.slices.difference(m, "region", method=method)
                )
                assert cells[(m, f"ratio-{method}")] == six(r.slices.ratio(m, "region", method=method))
    kinds = [img["data-kind"] for img in page.images]
    assert kinds.count("slices-forest") == 1 and "slices-roc" not in kinds
    assert ("fairness", "model", "region") not in page.tables
    code, _, err = run_cli([*argv, "--ci", "0.95"], capsys)
    assert code == 2 and "--ci does not apply to the report of K classes" in err


def test_the_builder_takes_the_columns_not_their_names():
    from perfeval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="a dict of names to arrays, or a DataFrame"):
        build([0, 1], {"m": [0.2, 0.8]}, by=["region"])


def test_slice_names_are_escaped_in_the_page():
    y = np.array([1, 0, 1, 0, 1, 0])
    s = np.array([0.9, 0.1, 0.8, 0.3, 0.4, 0.6])
    site = np.array(["<b>x</b>", "<b>x</b>", "a&b", "a&b", "q'z", "q'z"], dtype=object)
    text = build(y, {"m": s}, measures=["roc"], by={"site": site})
    assert "<b>x</b>" not in text and "&lt;b&gt;x&lt;/b&gt;" in text
    assert re.search(r"data-slice='q&#x27;z'", text)


# -- with --ci: the slices' intervals and tests (perfeval.stats.slice_ci) ------------------------------
def bracket(low: float, high: float) -> str:
    return "[no interval]" if math.isnan(low) or math.isnan(high) else f"[{six(low)}, {six(high)}]"


def p_text(p: float, bound: bool) -> str:
    return "undefined" if math.isnan(p) else ("\u2264" if bound else "") + f"{p:.4g}"


@pytest.fixture(scope="module")
def ci_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("slices-ci") / "r.html"
    from perfeval.cli.main import main
    from perfeval.stats import slice_ci

    args = ["report", str(SAMPLE), "--target", "repaid", "--score", "score", "--by", "region,age"]
    args += ["--min-size", "50", "-m", "roc,ap,acc", "--ci", "0.95", "--n-boot", "200", "-o", str(out)]
    assert main(args) == 0
    r = library(pd.read_csv(SAMPLE), ["region", "age"], target="repaid", score="score",
                measures=["roc", "ap", "acc"], min_size=50)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = slice_ci(r, n_boot=200, seed=0, level=0.95, skip_flagged=True)
    return out.read_text(encoding="utf-8"), r, c


def test_with_ci_each_slice_has_slice_cis_interval_and_test(ci_page):
    from perfeval.stats.paired import correct_bounded

    text, r, c = ci_page
    page = parse(text)
    f = c.frame()
    for s in r.slices.slicings:
        rows = {row["_attrs"]["data-slice"]: row for row in page.slices("score", s.name)}
        assert len(rows) == len(s)
        iv = c.slicing(s.name).measures["ROC"].to_overall
        holm_bound = correct_bounded(iv.p, iv.at_floor, "holm")[1]
        bh_bound = correct_bounded(iv.p, iv.at_floor, "bh")[1]
        for i, key in enumerate(s.keys):
            row = rows[key_text(key)]
            for m in ("ROC", "AP", "ACC"):
                x = f.loc[(s.name, key, m)]
                value = float(s.values.values[m][i])
                want = "undefined" if math.isnan(value) else six(value) + bracket(x["low"], x["high"])
                assert row[m] == want, (s.name, key, m)
            x = f.loc[(s.name, key, "ROC")]
            gap = float(s.values.values["ROC"][i]) - r["ROC"]
            want = (
                "undefined"
                if math.isnan(gap)
                else f"{gap:+.6f}" + bracket(x["to_overall_low"], x["to_overall_high"])
            )
            assert row["gap"] == want
            assert row["p"] == p_text(x["p"], bool(iv.at_floor[i]))
            assert row["p-holm"] == p_text(x["p_holm"], bool(holm_bound[i]))
            assert row["p-bh"] == p_text(x["p_bh"], bool(bh_bound[i]))
    # the docs' numbers: the west's ROC gap, its p-value and its two corrections
    west = {row["_attrs"]["data-slice"]: row for row in page.slices("score", "region")}["west"]
    assert west["ROC"].startswith("0.600382[") and west["gap"].startswith("-0.101116[")
    assert "interval: every replicate gives this value" in page.slices("score", "region")[-1]["why"]


def test_with_ci_the_gaps_have_slice_cis_intervals_and_the_corrected_tests(ci_page):
    text, r, c = ci_page
    page = parse(text)
    g = c.gaps()
    names = {
        "between_groups": ("difference", "ratio"),
        "to_overall": ("difference_to_overall", "ratio_to_overall"),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in r.slices.slicings:
            cells = page.cells("slice-gaps", "score", s.name)
            flagged = bool(s.flagged.any())
            for m in ("ROC", "AP", "ACC"):
                for method, (diff, ratio) in names.items():
                    for what, fn, gap in (
                        ("difference", r.slices.difference, diff),
                        ("ratio", r.slices.ratio, ratio),
                    ):
                        value = fn(m, s.name, method=method)
                        d = g.loc[(s.name, m, gap)]
                        same = value == d["estimate"] or (math.isnan(value) and math.isnan(d["estimate"]))
                        said = "" if same or not flagged else f"without the flagged: {six(d['estimate'])}"
                        assert cells[(m, f"{what}-{method}")] == six(value) + said + bracket(
                            d["low"], d["high"]
                        )
                d = g.loc[(s.name, m, "worst")]
                (w,) = r.slices.worst(m, s.name)
                if w.value == d["estimate"]:
                    assert cells[(m, "worst-value")] == six(w.value) + bracket(d["low"], d["high"])
                to = c.frame().xs((s.name, m), level=("slicing", "measure"))
                for col, name in (("p", "p"), ("p_holm", "holm"), ("p_bh", "bh")):
                    assert cells[(m, f"apart-{name}")] == str(int((to[col] < 0.05).sum()))
    # the islands' AP of 1 left out of the region's gaps with --min-size: said, with the estimate
    assert (
        parse(text)
        .cells("slice-gaps", "score", "region")[("AP", "difference-between_groups")]
        .startswith("0.316565without the flagged: ")
    )


def test_with_ci_the_forest_plot_draws_slice_cis_intervals(monkeypatch):
    import perfeval.plot
    from perfeval.stats import slice_ci

    drawn = []
    inner = perfeval.plot.forest

    def recording(values, lows=None, highs=None, **kw):
        drawn.append((kw["title"], np.asarray(values), lows, highs, kw["labels"]))
        return inner(values, lows, highs, **kw)

    monkeypatch.setattr(perfeval.plot, "forest", recording)
    frame = pd.read_csv(SAMPLE)
    text = build(frame["repaid"].to_numpy(), {"score": frame["score"].to_numpy()}, measures=["roc"],
                 by=frame[["region"]], min_size=50, ci=0.9, n_boot=150, seed=4)  # fmt: skip
    r = library(frame, ["region"], target="repaid", score="score", measures=["roc"], min_size=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = slice_ci(r, n_boot=150, seed=4, level=0.9, skip_flagged=True)
    ((title, values, lows, highs, labels),) = drawn
    assert title == "ROC by region" and lows is not None and highs is not None
    mi = c.slicing("region").measures["ROC"]
    keys = list(r.slices.slicings[0].keys)
    order = [keys.index(lab) for lab in labels]
    np.testing.assert_array_equal(lows, mi.low[order])
    np.testing.assert_array_equal(highs, mi.high[order])
    assert labels[0] == "west" and math.isnan(values[-1])  # the worst first, the undefined islands last
    page = parse(text)
    (alt,) = [img["alt"] for img in page.images if img["data-kind"] == "slices-forest"]
    assert "Lines: each slice's 90% interval" in alt
