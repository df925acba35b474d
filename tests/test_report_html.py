"""The HTML report over groups: its tables say what each number is, and the numbers are those of
``perfeval eval`` with the same options (over all rows without --group, over groups with it).

The input is what a user has: a CSV written by pandas, three models, a 64-bit integer group column
(ids above 2**53, which a float would merge) with about fifty groups of uneven sizes, some of one
class, and tied scores.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from perfeval.cli.main import main  # noqa: E402

MODELS = ("model_a", "model_b", "model_c")


def clicks_frame(seed: int = 16, n_groups: int = 48):
    """Three models' scores for the same clicks, per user (int64 ids), uneven groups, ties."""
    rng = np.random.default_rng(seed)
    sizes = np.clip(rng.zipf(1.7, n_groups) * 6 + rng.integers(-3, 4, n_groups), 3, 400)
    ids = rng.choice(2**63 - 2**53, n_groups, replace=False).astype(np.int64) + 2**53  # above 2**53
    g = np.repeat(ids, sizes)
    y = (rng.random(len(g)) < np.repeat(rng.uniform(0.1, 0.6, n_groups), sizes)).astype(int)
    for k, cls in ((2, 0), (5, 1), (9, 0)):  # one-class groups (small groups may be too, by chance)
        if k < n_groups:
            y[g == ids[k]] = cls
    lat = rng.normal(size=len(g)) + 1.1 * y
    frame = pd.DataFrame(
        {
            "user_id": g,
            "clicked": y,
            "model_a": np.round(1 / (1 + np.exp(-lat)), 2),  # ties from rounding
            "model_b": np.round(1 / (1 + np.exp(-(0.5 * lat + rng.normal(size=len(g))))), 3),
            "model_c": np.round(rng.random(len(g)) * 0.5 + 0.4 * y, 1),  # many ties
        }
    )
    frame["weight"] = rng.choice([1, 1, 2, 3, 0], len(g))  # whole (APR takes counts); 0: no case
    return frame.sample(frac=1.0, random_state=1).reset_index(drop=True)


class Cells(HTMLParser):
    """Every table cell with its attributes and text, every table with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, dict, str]] = []
        self.tables: list[tuple[dict, list[list[str]]]] = []
        self.divs: list[dict] = []
        self._cell: tuple[str, dict, list[str]] | None = None
        self._row: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "table":
            self.tables.append((a, []))
        elif tag == "div":
            self.divs.append(a)
        elif tag == "tr":
            self._row = []
            self.tables[-1][1].append(self._row)
        elif tag in ("td", "th"):
            self._cell = (tag, a, [])
        elif tag == "br" and self._cell is not None:
            self._cell[2].append(" ")

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[2].append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell[2]).strip()
            self.cells.append((self._cell[0], self._cell[1], text))
            if self._row is not None:
                self._row.append(text)
            self._cell = None

    def value(self, model: str, measure: str, col: str) -> str:
        found = [
            t
            for tag, a, t in self.cells
            if tag == "td"
            and a.get("data-model") == model
            and a.get("data-measure") == measure
            and a.get("data-col") == col
        ]
        assert len(found) == 1, (model, measure, col, found)
        return found[0]


def parse(text: str) -> Cells:
    p = Cells()
    p.feed(text)
    return p


@pytest.fixture(scope="module")
def clicks(tmp_path_factory):
    d = tmp_path_factory.mktemp("clicks")
    frame = clicks_frame()
    path = d / "clicks.csv"
    frame.to_csv(path, index=False)
    out = d / "report.html"
    args = ["report", str(path), "--target", "clicked", "--score", ",".join(MODELS), "--group", "user_id"]
    assert main([*args, "-m", "roc,apr,ap,acc,rms,ca2", "-o", str(out)]) == 0
    return frame, path, out.read_text(encoding="utf-8")


def eval_json(
    capsys, path, model: str, grouped: bool, measures: str = "roc,apr,ap,acc,rms,ca2", extra=()
) -> dict:
    capsys.readouterr()
    args = ["eval", str(path), "--target", "clicked", "--score", model, "-m", measures, "--format", "json"]
    assert main(args + (["--group", "user_id"] if grouped else []) + list(extra)) == 0
    return json.loads(capsys.readouterr().out)["measures"]


def test_headline_labels_overall_and_mean_over_groups(clicks):
    _frame, _path, text = clicks
    p = parse(text)
    head = [(a.get("data-col"), t) for tag, a, t in p.cells if tag == "th" and a.get("data-col")]
    assert head == [
        ("overall", "overall (all rows pooled)"),
        ("mean", "mean over groups"),
        ("groups", "groups counted"),
    ] * len(MODELS)
    models = [t for tag, a, t in p.cells if tag == "th" and "model" in a.get("class", "").split()]
    assert models == list(MODELS)
    assert "<b>overall</b>: every row pooled" in text and "the legends of the plots below" in text
    assert "<b>mean over groups</b>" in text and "<code>perfeval eval --group user_id</code>" in text


def test_headline_numbers_are_perfeval_evals(clicks, capsys):
    """overall = eval without --group; mean over groups and groups counted = eval --group."""
    frame, path, text = clicks
    p = parse(text)
    for model in MODELS:
        pooled = eval_json(capsys, path, model, grouped=False)
        grouped = eval_json(capsys, path, model, grouped=True)
        for lab in ("ROC", "APR", "AP", "ACC", "RMS", "CA2"):
            assert p.value(model, lab, "overall") == f"{pooled[lab]['value']:.6f}", (model, lab)
            mean = grouped[lab]["value"]
            assert p.value(model, lab, "mean") == ("undefined" if mean is None else f"{mean:.6f}")
            assert p.value(model, lab, "groups") == f"{grouped[lab]['defined_groups']} of 48"
    # the data make the two columns differ, and some groups drop out: the labels matter
    assert p.value("model_a", "ROC", "overall") != p.value("model_a", "ROC", "mean")
    both = frame.groupby("user_id")["clicked"].nunique().eq(2).sum()
    assert p.value("model_a", "ROC", "groups") == f"{both} of 48" and both < 48  # one-class groups out


def test_legends_show_the_overall_value(clicks):
    """The ROC plot's legend gives each model's AUC over all rows: the overall column."""
    from perfeval import curves

    frame, _path, text = clicks
    p = parse(text)
    for model in MODELS:
        area = curves.roc(frame["clicked"], frame[model]).area
        assert abs(float(p.value(model, "ROC", "overall")) - area) < 5e-7


def test_a_per_group_table_for_every_model(clicks, capsys):
    frame, path, text = clicks
    p = parse(text)
    tables = [rows for a, rows in p.tables if a.get("class") == "groups"]
    assert len(tables) == len(MODELS)
    wrappers = [a["data-model"] for a in p.divs if "tall" in a.get("class", "").split()]
    assert wrappers == list(MODELS)
    sizes = frame.groupby("user_id").size()
    positives = frame.groupby("user_id")["clicked"].sum()
    for model, rows in zip(MODELS, tables, strict=True):
        head, body = rows[0], rows[1:]
        assert head == ["group", "rows", "positives", "ROC", "APR", "AP", "ACC", "RMS", "CA2"]
        assert len(body) == frame["user_id"].nunique() == 48
        # 64-bit ids as written, not rounded through a float nor printed with separators
        assert [r[0] for r in body] == [str(k) for k in sorted(frame["user_id"].unique())]
        per_group = eval_json(capsys, path, model, grouped=True)
        for r in body:
            key = int(r[0])
            assert r[1] == f"{sizes[key]:,}" and r[2] == f"{positives[key]:,}"
            for lab, cell in zip(head[3:], r[3:], strict=True):
                v = per_group[lab]["per_group"][r[0]]
                assert cell == ("undefined" if v is None else f"{v:.6f}"), (model, key, lab)


def test_input_summary_counts_the_one_class_groups(clicks):
    frame, _path, text = clicks
    pos = frame.groupby("user_id")["clicked"].agg(["sum", "size"])
    none, every = int((pos["sum"] == 0).sum()), int((pos["sum"] == pos["size"]).sum())
    assert none >= 2 and every >= 1
    want = f"{none + every} ({none} without a positive, {every} without a negative)"
    assert f"<td>one-class groups</td><td>{want}</td>" in text
    assert '<td>groups</td><td class="num">48</td>' in text


def test_small_multiples_are_full_width_with_every_model(clicks):
    _frame, _path, text = clicks
    import re

    assert re.search(r"<figure class='wide'><img alt='[^']+' [^>]*data-kind='roc-groups'", text)
    assert "the 12 largest of 48 groups" in text


def test_group_only_and_per_query_measures_say_so(tmp_path):
    """GAUC has no value over all rows (the cell says so); NDCG@10's overall is one query."""
    from perfeval import evaluate
    from perfeval.plot.html import build

    frame = clicks_frame(n_groups=12)
    y, g = frame["clicked"].to_numpy(), frame["user_id"].to_numpy()
    models = {m: frame[m].to_numpy() for m in MODELS[:2]}
    text = build(y, models, measures=["gauc", "ndcg@10", "roc"], groups=g, group_column="user_id")
    p = parse(text)
    assert p.value("model_a", "GAUC", "overall") == "over groups only"
    want = evaluate(y, models["model_b"], measures=["gauc"], groups=g)["GAUC"]
    assert p.value("model_b", "GAUC", "mean") == f"{want:.6f}"
    pooled = evaluate(y, models["model_a"], measures=["ndcg@10"])["NDCG@10"]
    assert p.value("model_a", "NDCG@10", "overall") == f"{pooled:.6f}"
    assert "NDCG@10: per query; its <i>overall</i> value ranks all rows as one query." in text
    assert "GAUC: the mean over groups is weighted by each group's rows." in text
    assert "GAUC: defined over groups only (no overall value)." in text


def test_intervals_go_with_the_mean_over_groups(tmp_path):
    from perfeval import ci
    from perfeval.plot.html import build

    frame = clicks_frame(n_groups=10)
    y, g = frame["clicked"].to_numpy(), frame["user_id"].to_numpy()
    models = {m: frame[m].to_numpy() for m in MODELS[:2]}
    text = build(y, models, measures=["roc"], groups=g, ci=0.9, n_boot=60, seed=3)
    p = parse(text)
    iv = ci(y, models["model_b"], measures=["roc"], level=0.9, n_boot=60, seed=3, groups=g)["ROC"]
    assert p.value("model_b", "ROC", "mean").endswith(f"[{iv.low:.6f}, {iv.high:.6f}]")
    assert "[" not in p.value("model_b", "ROC", "overall")
    assert "95% confidence" not in text and "90% confidence intervals of the mean over groups" in text
    assert "the difference of the means over groups (whole groups resampled)" in text


def test_without_groups_one_column_a_model(tmp_path):
    from perfeval import evaluate
    from perfeval.plot.html import build

    frame = clicks_frame(n_groups=6)
    y = frame["clicked"].to_numpy()
    models = {m: frame[m].to_numpy() for m in MODELS}
    text = build(y, models, measures=["roc", "rms"])
    p = parse(text)
    assert {a.get("data-col") for tag, a, _t in p.cells if tag == "td" and a.get("data-col")} == {"overall"}
    assert "mean over groups" not in text and "Per group" not in text and "roc-groups" not in text
    for m, s in models.items():
        assert p.value(m, "RMS", "overall") == f"{evaluate(y, s, measures=['rms'])['RMS']:.6f}"


def test_small_multiples_grid_and_panel_values():
    """At most 6 panels a row; each panel's legend gives that group's ROC area of each model, the
    value of the per-group table; a one-class group's panel says so."""
    from perfeval import evaluate
    from perfeval.exceptions import InvalidParameterError
    from perfeval.plot import plot_by_group

    frame = clicks_frame()
    y, g = frame["clicked"].to_numpy(), frame["user_id"].to_numpy()
    models = {m: frame[m].to_numpy() for m in MODELS}
    fig = plot_by_group("roc", y, models, g, max_groups=14)
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    geometry = {ax.get_subplotspec().get_geometry()[:2] for ax in panels}
    assert geometry == {(3, 6)}  # 14 groups: 3 rows of at most 6
    per_group = {m: evaluate(y, s, measures=["roc"], groups=g) for m, s in models.items()}
    drawn = one_class = 0
    for ax in panels[:14]:
        key = int(ax.get_title().split("\n")[0])
        if not ax.axison:
            assert ax.get_title().endswith(": one class")
            one_class += 1
            continue
        drawn += 1
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        want = []
        for m in MODELS:
            rep = per_group[m]
            i = [int(k) for k in rep.groups].index(key)
            want.append(f"AUC {rep.results['ROC'].per_group[i]:.4f}")
        assert legend == want, key
    assert drawn + one_class == 14 and drawn >= 11
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == list(MODELS)  # the models named once, above the panels
    # weighted: each panel's areas are the weighted per-group values
    w = frame["weight"].to_numpy()
    fig = plot_by_group("roc", y, models, g, max_groups=6, sample_weight=w)
    weighted = evaluate(y, models["model_b"], measures=["roc"], groups=g, sample_weight=w)
    for ax in fig.axes[:6]:
        if ax.axison:
            i = [int(k) for k in weighted.groups].index(int(ax.get_title().split("\n")[0]))
            text = ax.get_legend().get_texts()[1].get_text()
            assert text == f"AUC {weighted.results['ROC'].per_group[i]:.4f}"
    with pytest.raises(InvalidParameterError, match="ncols=0"):
        plot_by_group("roc", y, models, g, ncols=0)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_plot_command_by_group_draws_every_model(tmp_path, monkeypatch):
    """`perfeval plot roc --group` draws each --score column in every panel (it drew the first only)."""
    import perfeval.plot as P

    frame = clicks_frame(n_groups=8)
    path = tmp_path / "c.csv"
    frame.to_csv(path, index=False)
    drawn = []
    real_save = P.save
    monkeypatch.setattr(P, "save", lambda fig, out, fmt=None: (drawn.append(fig), real_save(fig, out, fmt)))
    out = tmp_path / "g.png"
    args = [
        "plot",
        "roc",
        str(path),
        "--target",
        "clicked",
        "--score",
        "model_a,model_c",
        "--group",
        "user_id",
    ]
    assert main([*args, "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (fig,) = drawn
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["model_a", "model_c"]
    panels = [ax for ax in fig.axes if ax.axison and ax.get_legend() is not None]
    assert panels and all(len(ax.get_legend().get_texts()) == 2 for ax in panels)


def test_weighted_report_is_perfeval_eval_weighted(clicks, tmp_path, capsys):
    """--weight: every number is eval's with the same --weight (rows of weight 0 are no cases)."""
    frame, path, _text = clicks
    out = tmp_path / "w.html"
    args = ["report", str(path), "--target", "clicked", "--score", ",".join(MODELS), "--group", "user_id"]
    assert main([*args, "--weight", "weight", "-m", "roc,apr,acc,rms", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    p = parse(text)
    extra = ("--weight", "weight")
    for model in MODELS:
        pooled = eval_json(capsys, path, model, False, "roc,apr,acc,rms", extra)
        grouped = eval_json(capsys, path, model, True, "roc,apr,acc,rms", extra)
        for lab in ("ROC", "APR", "ACC", "RMS"):
            assert p.value(model, lab, "overall") == f"{pooled[lab]['value']:.6f}", (model, lab)
            mean = grouped[lab]["value"]
            assert p.value(model, lab, "mean") == ("undefined" if mean is None else f"{mean:.6f}")
            n = len(grouped[lab]["per_group"])
            assert p.value(model, lab, "groups") == f"{grouped[lab]['defined_groups']} of {n}"
    unweighted = eval_json(capsys, path, "model_a", False, "roc")
    assert p.value("model_a", "ROC", "overall") != f"{unweighted['ROC']['value']:.6f}"  # weights matter
    kept = frame[frame["weight"] != 0]
    assert f'<td>rows</td><td class="num">{len(kept):,}</td>' in text
    assert f"({int((frame['weight'] == 0).sum()):,} rows of weight 0 left out)" in text
    assert (frame["weight"] == 0).any()  # the plots' note counts the same rows as the input table
    assert f"Every curve is drawn over all {len(kept):,} rows pooled" in text
    assert "weights:yes" in text  # the signature says so


def _notes(text: str) -> str:
    """The notes under the measures table, as text."""
    import re

    i = text.index("value-notes")
    return re.sub(r"<[^>]+>", "", text[i : text.index("</ul>", i)])


def test_one_class_input_gives_a_report_that_says_why(tmp_path, capsys):
    """Positives only: the report is written (it was exit 70, a ZeroDivisionError drawing the ROC
    curve's operating point), says the input holds one class and why each undefined measure is."""
    frame = pd.DataFrame({"y": [1, 1, 1, 1], "a": [0.2, 0.7, 0.4, 0.9], "b": [0.3, 0.6, 0.1, 0.8]})
    path = tmp_path / "one.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "one.html"
    for extra in ([], ["--ci", "0.9", "--n-boot", "50"]):
        assert main(["report", str(path), "--score", "a,b", *extra, "-o", str(out)]) == 0
        notes = _notes(out.read_text(encoding="utf-8"))
        assert "One class only: the input holds no negative (4 positives, 0 negatives)" in notes
        assert "ROC of every model is undefined: one class only: all 4 cases are positive" in notes
        assert "SPC of every model is undefined: one class only: all 4 cases are positive" in notes
    cells = parse(out.read_text(encoding="utf-8"))
    assert cells.value("a", "ROC", "overall").startswith("undefined")
    assert cells.value("a", "PPV", "overall").startswith("1.000000")
    assert "internal error" not in capsys.readouterr().err


def test_an_infinite_log_loss_says_why_as_eval_does(tmp_path, capsys):
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "p": [0.0, 0.5, 0.7, 0.2], "g": [1, 1, 2, 2]})
    path = tmp_path / "a.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "a.html"
    assert main(["report", str(path), "-m", "logloss,roc", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert parse(text).value("p", "LOGLOSS", "overall") == "+infinity"
    notes = _notes(text)
    assert "LOGLOSS is infinite: 1 case gives its own class a probability of 0 (a positive scored 0" in notes
    assert "the first is case 1 of the input; logloss:eps=1e-15 clips" in notes
    assert main(["report", str(path), "-m", "logloss", "--group", "g", "-o", str(out)]) == 0
    notes = _notes(out.read_text(encoding="utf-8"))
    assert "the mean over groups is infinite because the value is in group 1" in notes
    # a finite report has no such notes
    assert main(["report", str(path), "-m", "roc", "-o", str(out)]) == 0
    assert "value-notes" not in out.read_text(encoding="utf-8")


def test_undefined_intervals_and_comparisons_say_why(tmp_path, capsys):
    """With --ci, an interval or a comparison that is not a number showed "[undefined, undefined]"
    with no reason (the JSON of eval and compare gives one: more than 5% of the replicates undefined,
    or an infinite estimate); eval's table printed nan likewise.  The report and the table say why,
    naming the model and the measure."""
    import re

    path = tmp_path / "inf.csv"
    path.write_text("y,a,b\n1,0.0,0.8\n0,0.1,0.3\n1,0.7,0.6\n0,0.4,0.5\n0,0.3,0.2\n1,0.9,0.9\n")
    out = tmp_path / "inf.html"
    argv = ["--score", "a,b", "-m", "roc,logloss", "--ci", "0.95", "--n-boot", "50"]
    assert main(["report", str(path), *argv, "-o", str(out)]) == 0
    text = re.sub(r"<[^>]+>", "", out.read_text(encoding="utf-8")).replace("&#x27;", "'")
    assert (
        "[undefined, undefined]: ROC of a, ROC of b: more than 5% of the replicates leave the value" in text
    )
    assert "LOGLOSS of a: no interval: the estimate is not a finite number" in text
    assert "undefined: LOGLOSS (b - a): -infinity: a's LOGLOSS is not a finite number" in text
    capsys.readouterr()
    assert main(["eval", str(path), *argv]) == 0
    err_out = capsys.readouterr().out
    assert "(nan intervals: a ROC, b ROC: more than 5% of the replicates leave the value undefined" in err_out
    assert "a LOGLOSS: no interval: the estimate is not a finite number)" in err_out
    assert main(["eval", str(path), *argv[:1], "a", *argv[2:]]) == 0
    assert "(nan intervals: ROC: more than 5%" in capsys.readouterr().out


def test_a_curve_of_one_class_is_drawn_without_error_and_says_undefined():
    from perfeval.plot import CurveDisplay

    d = CurveDisplay.from_predictions([1, 1, 1], [0.2, 0.7, 0.4], kind="roc").plot()
    assert d.lines_[0].get_label() == "model (AUC undefined)"


def test_weights_all_0_give_a_report_and_plots_not_an_internal_error(tmp_path, capsys):
    """Every weight 0 (no case): the lift curve divided by a base rate of 0 cases (a
    ZeroDivisionError: exit 70 for `report` and `plot lift`), and with --ci the jackknife of
    TOP1/CA1 had no group to leave out (a ValueError from the compiled walk, exit 70; so did
    `perfeval.ci` on no case).  The report and the plots are written; the measures are those of
    `eval`: undefined, or PERF's 0 of no data."""
    frame = pd.DataFrame({"y": [1, 0, 1], "p": [0.5, 0.3, 0.7], "w": [0, 0, 0]})
    path = tmp_path / "w0.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "w0.html"
    for extra in ([], ["--ci", "0.9", "--n-boot", "20"]):
        assert main(["report", str(path), "--weight", "w", *extra, "-o", str(out)]) == 0
        cells = parse(out.read_text(encoding="utf-8"))
        assert cells.value("p", "ROC", "overall").startswith("undefined")
        assert cells.value("p", "TOP1", "overall").startswith("0.000000")
    for kind in ("lift", "roc", "pr"):
        assert main(["plot", kind, str(path), "--weight", "w", "-o", str(tmp_path / f"{kind}.png")]) == 0
    assert "internal error" not in capsys.readouterr().err
    import math

    from perfeval.curves import lift
    from perfeval.stats import ci

    assert all(math.isnan(v) for v in lift([1, 0], [0.5, 0.2], sample_weight=[0, 0]).y)
    for y, s, w in (([], [], None), ([1, 0, 1], [0.5, 0.3, 0.7], [0, 0, 0])):
        got = ci(y, s, sample_weight=w, measures=["top1", "ca1", "roc"], n_boot=20)
        assert got["TOP1"].estimate == 0.0 and math.isnan(got["ROC"].estimate)


def test_grouped_report_says_why_the_pooled_value_and_each_group_are_undefined(tmp_path):
    """With --group, an undefined value over all rows pooled says why (it said nothing: only the
    mean over groups was looked at), and so does each undefined group: the cell's title and the
    list under the table, in the words of `perfeval eval --group`."""
    frame = pd.DataFrame(
        {
            "y": [1, 0, 1, 0, 0, 0, 1, 0, 1, 0],
            "p": [1.0, 0.2, 0.7, 0.4, 0.3, 0.5, 0.6, 0.1, 0.8, 0.9],
            "g": ["a", "a", "a", "a", "b", "b", "c", "c", "c", "c"],
        }
    )
    path = tmp_path / "g.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "g.html"
    assert main(["report", str(path), "-m", "roc,cal_slope", "--group", "g", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert parse(text).value("p", "CAL_SLOPE", "overall").startswith("undefined")
    notes = _notes(text)
    said = "CAL_SLOPE over all rows pooled is undefined: 1 score is exactly 0 or 1: the logit is infinite"
    assert said in notes
    import re

    i = text.index("group-whys")
    whys = re.sub(r"<[^>]+>", "", text[i : text.index("</ul>", i)])
    assert "ROC is undefined in 1 group (one class only)" in whys
    # a: a score of 1 (no logit); b: one class only; c: a slope
    said = "CAL_SLOPE is undefined in 2 groups (1 group: 1 score is exactly 0 or 1; 1 group: one class only)"
    assert said in whys
    assert text.count('title="one class only: all 2 cases are negative"') == 2  # ROC and CAL_SLOPE of b
    assert text.count('title="1 score is exactly 0 or 1: the logit is infinite"') == 1


@pytest.mark.parametrize("large", [False, True], ids=["whole", "chunked"])
@pytest.mark.parametrize(("labels", "pos", "shown"), [(("no", "yes"), "yes", "'yes'"), ((1, 2), "2", "2")])
def test_a_report_of_labels_says_the_positive_one_as_eval_does(
    tmp_path, capsys, monkeypatch, large, labels, pos, shown
):
    """--pos-label: the page says which label is positive (its input table) and its signature is
    perfeval eval's (pos:... in it), read whole or in chunks; without it, no such row."""
    import html as html_lib
    import re

    from perfeval.cli import load

    if large:
        monkeypatch.setattr(load, "LARGE_BYTES", 1)
    f = tmp_path / "labels.csv"
    rows = [(labels[i % 3 == 0], (i * 7 % 10) / 10) for i in range(30)]
    f.write_text("y,s\n" + "".join(f"{a},{b}\n" for a, b in rows))
    out = tmp_path / "r.html"
    argv = ["--target", "y", "--score", "s", "--pos-label", pos, "-m", "roc,ece"]
    assert main(["report", str(f), *argv, "-o", str(out)]) == 0
    page = html_lib.unescape(out.read_text())
    capsys.readouterr()
    assert main(["eval", str(f), *argv]) == 0
    said = capsys.readouterr().out.strip().splitlines()[-1]
    assert said.startswith("signature: ") and f"|pos:{shown}|" in said
    assert re.search(r"Signature: <code>([^<]*)</code>", page).group(1) == said[len("signature: ") :]
    assert f"positive label</td><td>{shown} (the other labels negative)" in page
    coded = tmp_path / "coded.csv"
    coded.write_text("y,s\n" + "".join(f"{int(a == labels[1])},{b}\n" for a, b in rows))
    assert main(["report", str(coded), "--target", "y", "--score", "s", "-m", "roc", "-o", str(out)]) == 0
    assert "positive label" not in out.read_text()
