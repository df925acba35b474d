"""The organiser's files as pandas and Excel write them: an answer key's first line is its header or
an example, never silently the one for the other; a task's labels; submissions written with another
separator or a decimal comma."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli

GENES = [f"Y{i:03d}C" for i in range(60)]
LABELS = [["change", "nc", "control", "nc"][i % 4] for i in range(60)]

RANKED = """name = "mine"
submission = "ranked"
lists = ["narrow", "broad"]
key = "id-label"
{labels}
[[criteria]]
name = "N"
list = "narrow"
positives = ["change"]
perf = ["-roc"]
[[criteria]]
name = "B"
list = "broad"
positives = ["change", "control"]
perf = ["-roc"]
"""


def _lists(tmp_path) -> str:
    team = tmp_path / "team"
    team.mkdir(exist_ok=True)
    rng = np.random.default_rng(4)
    for lst in ("narrow", "broad"):
        (team / f"{lst}.txt").write_text("\n".join(rng.permutation(GENES)) + "\n")
    return str(team)


def _scores(capsys, key, task, sub) -> tuple[int, dict, str]:
    code, out, err = run_cli(
        ["score", "--key", key, "--task", task, sub, "--no-store", "--format", "json"], capsys
    )
    return code, json.loads(out)[0] if out else {}, err


def _key(tmp_path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text)
    return str(tmp_path / name)


@pytest.mark.parametrize(
    "header", ["gene,label", "example,label", '"gene","label"', "\ufeffgene,label", "Gène,label"]
)
def test_a_pandas_key_of_labels_with_any_column_names_is_read_with_its_header(tmp_path, capsys, header):
    """A key of labels written by pandas (`gene,label`: the id's name is no id column's) had its first
    line read as an example 'gene', labelled 'label': a row invented.  The preset declares its labels
    (change, nc, control): a first line with another label, every other line's one of them, is the
    header, and the command says so."""
    sub = _lists(tmp_path)
    rows = "".join(f"{g},{lab}\n" for g, lab in zip(GENES, LABELS, strict=True))
    plain = _key(tmp_path, "plain.csv", rows)
    code, want, _ = _scores(capsys, plain, "kddcup2002-task2", sub)
    assert code == 0 and want["ok"]
    for end in ("\n", "\r\n"):
        key = _key(tmp_path, "key.csv", (header + "\n" + rows).replace("\n", end))
        code, got, err = _scores(capsys, key, "kddcup2002-task2", sub)
        assert code == 0 and got["scores"] == want["scores"] and got["rows"] == 120, (got, err)
        assert f"perfeval: note: {key}, line 1 is the answer key's header" in err


def test_a_key_of_labels_without_declared_labels_refuses_a_first_line_it_cannot_tell(tmp_path, capsys):
    """A task of its own that declares no labels cannot tell `gene,label` from an example: the line is
    refused, saying what to do (remove it, or declare the labels), never read as an example."""
    sub = _lists(tmp_path)
    rows = "".join(f"{g},{lab}\n" for g, lab in zip(GENES, LABELS, strict=True))
    key = _key(tmp_path, "key.csv", "gene,label\n" + rows)
    task = tmp_path / "t.toml"
    task.write_text(RANKED.format(labels=""))
    code, got, err = _scores(capsys, key, str(task), sub)
    assert code == 1 and got == {}
    assert err == (
        f"perfeval: error: {key}, line 1: ('gene', 'label') may be a header or an example: its label "
        "is on no other line of the key; remove the line if it is a header, or declare the task's labels "
        'in its file (labels = ["change", "control", "nc"]), so that a first line with another is its '
        "header\n"
    )
    task.write_text(RANKED.format(labels='labels = ["change", "nc", "control"]'))
    code, got, err = _scores(capsys, key, str(task), sub)
    assert code == 0 and got["rows"] == 120 and "line 1 is the answer key's header (gene, label)" in err
    # a first line whose label is on other lines is an example; one named as an id column a header
    task.write_text(RANKED.format(labels=""))
    key = _key(tmp_path, "key.csv", "Y999C,nc\n" + rows)
    code, got, err = _scores(capsys, key, str(task), sub)
    assert code == 1 and "have no prediction: 'Y999C'" in got["errors"][0]
    key = _key(tmp_path, "key.csv", "gene_id,label\n" + rows)
    code, got, err = _scores(capsys, key, str(task), sub)
    assert code == 0 and got["rows"] == 120


def test_a_label_the_task_does_not_declare_is_an_error_of_the_key(tmp_path, capsys):
    """With declared labels a typo is an error (it was silently a negative of every criterion)."""
    sub = _lists(tmp_path)
    labels = list(LABELS)
    labels[6] = "chnage"
    rows = "".join(f"{g},{lab}\n" for g, lab in zip(GENES, labels, strict=True))
    key = _key(tmp_path, "key.csv", rows)
    code, _, err = _scores(capsys, key, "kddcup2002-task2", sub)
    assert code == 1 and err == (
        f"perfeval: error: {key}, line 7: the label 'chnage' is not one of the task's labels "
        "(change, nc, control)\n"
    )
    # with a header line too: the typo is said, and that the first line is a header only without it
    key = _key(tmp_path, "key.csv", "gene,label\n" + rows)
    code, _, err = _scores(capsys, key, "kddcup2002-task2", sub)
    assert code == 1 and err == (
        f"perfeval: error: {key}, line 8: the label 'chnage' is not one of the task's labels (change, nc, "
        "control); line 1 ('gene', 'label') is the key's header only if every other line's is\n"
    )


@pytest.mark.parametrize(
    "task, header, rows",
    [
        ("kddcup2004-physics", "example,target", [f"ev{i},{i % 2}" for i in range(40)]),
        (
            "kddcup2004-protein",
            "block,example,target",
            [f"{i // 10},ev{i},{int(i % 10 < 3)}" for i in range(40)],
        ),
        ("kddcup2004-protein", "qid,doc,rel", [f"{i // 10},ev{i},{int(i % 10 < 3)}" for i in range(40)]),
    ],
    ids=["physics", "protein", "protein-other-names"],
)
def test_a_numeric_key_with_a_header_of_any_names_is_read_with_it(tmp_path, capsys, task, header, rows):
    """A key of numbers whose first line is names, while every other line's target is a number, is read
    with that line as its header (it was an error: "the answer key's target: expected a number")."""
    blocks = task.endswith("protein")
    sub = "".join(
        (
            f"{r.split(',')[0]},{r.split(',')[1]},{0.1 + (k % 7) / 10}\n"
            if blocks
            else f"{r.split(',')[0]},{(k % 7) / 10}\n"
        )
        for k, r in enumerate(rows)
    )
    (tmp_path / "sub.csv").write_text(sub)
    plain = _key(tmp_path, "plain.csv", "\n".join(rows) + "\n")
    code, want, _ = _scores(capsys, plain, task, str(tmp_path / "sub.csv"))
    assert code == 0
    key = _key(tmp_path, "key.csv", header + "\n" + "\n".join(rows) + "\n")
    code, got, err = _scores(capsys, key, task, str(tmp_path / "sub.csv"))
    assert code == 0 and got["scores"] == want["scores"] and got["rows"] == 40, err
    assert "line 1 is the answer key's header" in err
    # a target that is not a number on another line: said there, with why line 1 is not a header
    bad = list(rows)
    bad[4] = bad[4].rsplit(",", 1)[0] + ",l"
    key = _key(tmp_path, "key.csv", header + "\n" + "\n".join(bad) + "\n")
    code, _, err = _scores(capsys, key, task, str(tmp_path / "sub.csv"))
    assert code == 1 and err.startswith(
        f"perfeval: error: {key}, line 6: the target 'l' is not a number; line 1 ("
    )
    assert err.endswith("is the key's header only if every other line's is\n") and err.count("\n") == 1


@pytest.mark.parametrize(
    "labels, message",
    [
        (
            'labels = ["change", "nc"]',
            "criterion 'B'.positives: 'control' is not one of the task's labels (change, nc)",
        ),
        (
            'labels = ["change", "no change", "control"]',
            "labels: 'no change' is not a label a key line can hold",
        ),
        ('labels = ["change", "nc", "change"]', "labels: 'change' is listed twice"),
        ("labels = []", "labels: expected a non-empty list of strings"),
    ],
)
def test_a_tasks_labels_are_checked_when_it_is_loaded(tmp_path, capsys, labels, message):
    task = tmp_path / "t.toml"
    task.write_text(RANKED.format(labels=labels))
    key = _key(tmp_path, "key.csv", "".join(f"{g},{lab}\n" for g, lab in zip(GENES, LABELS, strict=True)))
    code, _, err = run_cli(
        ["score", "--key", key, "--task", str(task), _lists(tmp_path), "--no-store"], capsys
    )
    assert code == 2 and err.startswith(f"perfeval: error: {task}: {message}") and err.count("\n") == 1
    other = tmp_path / "o.toml"
    other.write_text(
        'name = "o"\nsubmission = "id-score"\nkey = "id-target"\nlabels = ["a"]\n'
        '[[criteria]]\nname = "R"\nperf = ["-roc"]\n'
    )
    code, _, err = run_cli(["score", "--key", key, "--task", str(other), key, "--no-store"], capsys)
    assert (
        code == 2 and "labels: only a key of labels (id-label) takes labels; this key is 'id-target'" in err
    )


def test_a_first_line_of_names_that_is_no_header_by_the_rule_gets_the_hint(tmp_path, capsys):
    """`symbol,prob` (names, not data) is not a header by the rule (its id is no id column's name): it
    is an error, never an example, and says what a header is (it said only 'not in the answer key')."""
    key = _key(tmp_path, "key.txt", "ev0 1\nev1 0\nev2 1\n")
    (tmp_path / "sub.csv").write_text("symbol,prob\nev0,0.5\nev1,0.2\nev2,0.9\n")
    code, got, err = _scores(capsys, key, "kddcup2004-physics", str(tmp_path / "sub.csv"))
    assert code == 1 and got["errors"] == [
        f"{tmp_path}/sub.csv, line 1: example 'symbol' is not in the answer key; a header line? a header "
        "is the first line, naming the columns, e.g. id,prediction (the id column: id, or a name ending "
        "in _id or Id)"
    ]


SEMI = "fields separated by ';' ({found}): fields are separated by blanks, tabs or commas"
PANDAS = " (pandas: to_csv(sep=','))"
DECIMAL = ", and a decimal point is '.' (pandas: to_csv(sep=',', decimal='.'))"
COMMA = "the prediction {found} has a decimal comma: a decimal point is '.' (pandas: to_csv(decimal='.'))"


def _european(ids, preds, sep: str, comma: bool, header: bool, quote: bool = False) -> str:
    def q(x: str) -> str:
        return f'"{x}"' if quote else x

    text = [sep.join(map(q, ["id", "prediction"]))] if header else []
    for i, p in zip(ids, preds, strict=True):
        v = str(p).replace(".", ",") if comma else str(p)
        text.append(sep.join([q(i), q(v)]))
    return "\n".join(text) + "\n"


@pytest.mark.parametrize(
    "sep, comma, header, quote, line, message",
    [
        (";", False, True, False, 2, SEMI.format(found="'ev0;0.5'") + PANDAS),
        (";", True, True, False, 2, SEMI.format(found="'ev0;0,5'") + DECIMAL),
        (";", True, False, False, 1, SEMI.format(found="'ev0;0,5'") + DECIMAL),
        (";", True, True, True, 2, SEMI.format(found='\'"ev0";"0,5"\'') + DECIMAL),
        ("\t", True, True, False, 2, COMMA.format(found="'0,5'")),
        (" ", True, False, False, 1, COMMA.format(found="'0,5'")),
        (",", True, True, True, 2, COMMA.format(found="'0,5'")),
    ],
    ids=[
        "semicolons",
        "semicolons-commas",
        "no-header",
        "quoted",
        "tabs-commas",
        "blanks-commas",
        "csv-quoted",
    ],
)
def test_another_separator_or_a_decimal_comma_is_one_error_saying_so(
    tmp_path, capsys, sep, comma, header, quote, line, message
):
    """A file written with sep=";" or decimal="," gave one "expected 2 fields" (or unknown id) error a
    line, up to the cap, with no hint: it is one line saying what was found and what is expected, and
    reading stops there."""
    key = _key(tmp_path, "key.txt", "".join(f"ev{i} {i % 2}\n" for i in range(500)))
    ids, preds = (
        [f"ev{i}" for i in range(500)],
        [0.5 if i == 0 else round(0.1 + (i % 8) / 10, 1) for i in range(500)],
    )
    sub = tmp_path / "sub.csv"
    sub.write_text(_european(ids, preds, sep, comma, header, quote))
    code, got, err = _scores(capsys, key, "kddcup2004-physics", str(sub))
    assert code == 1 and got["errors"] == [f"{sub}, line {line}: {message}; reading stopped"], got["errors"]
    # the lines read as data: a header of commas, tabs or blanks is no such line, one of semicolons is
    assert got["stopped"] is True and got["rows"] == line - (header and sep != ";") and err.count("\n") == 1
    # written as perf reads it, the same predictions score
    sub.write_text(_european(ids, preds, ",", False, header, quote))
    assert _scores(capsys, key, "kddcup2004-physics", str(sub))[0] == 0


def test_a_key_or_a_block_submission_of_semicolons_says_so(tmp_path, capsys):
    key = _key(tmp_path, "key.txt", "".join(f"7;ev{i};{i % 2}\n" for i in range(10)))
    (tmp_path / "sub.csv").write_text("".join(f"7;ev{i};0,{i}\n" for i in range(10)))
    code, _, err = _scores(capsys, key, "kddcup2004-protein", str(tmp_path / "sub.csv"))
    assert code == 1 and err == (
        f"perfeval: error: {key}, line 1: the answer key needs 3 fields a line (block-id-target), found 1: "
        + SEMI.format(found="'7;ev0;0'")
        + PANDAS
        + "\n"
    )
    key = _key(tmp_path, "key.txt", "".join(f"7 ev{i} {i % 2}\n" for i in range(10)))
    code, got, err = _scores(capsys, key, "kddcup2004-protein", str(tmp_path / "sub.csv"))
    assert code == 1 and got["errors"] == [
        f"{tmp_path}/sub.csv, line 1: " + SEMI.format(found="'7;ev0;0,0'") + DECIMAL + "; reading stopped"
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "example_id,target\nev0,1\nev1,\nev2,0\n",
            "line 3: missing target for example 'ev1' (an empty field)",
        ),
        (
            ",example_id,target\n0,ev0,1\n1,ev1,0\n2,ev2,1\n",
            "line 2: the answer key needs 2 fields a line (id-target), found 3; the first looks like a "
            "column of row numbers (pandas: to_csv(index=False), R: write.csv(row.names=FALSE) write none)",
        ),
    ],
    ids=["empty target", "index column"],
)
def test_a_pandas_key_line_of_the_wrong_width_says_why(tmp_path, capsys, text, message):
    key = _key(tmp_path, "key.csv", text)
    (tmp_path / "sub.txt").write_text("ev0 0.5\nev1 0.2\nev2 0.9\n")
    code, _, err = _scores(capsys, key, "kddcup2004-physics", str(tmp_path / "sub.txt"))
    assert code == 1 and err == f"perfeval: error: {key}, {message}\n"


def test_row_numbers_of_r_or_pandas_are_one_error(tmp_path, capsys):
    """R's write.csv quotes an empty name over its row numbers ("","id","prediction"): that line is the
    header, and the row numbers one error for the file (it was one a line, then every id as missing)."""
    key = _key(tmp_path, "key.txt", "".join(f"ev{i} {i % 2}\n" for i in range(50)))
    for head, row in (('"","id","prediction"', '"{k}","ev{i}",0.5'), (",id,prediction", "{k},ev{i},0.5")):
        (tmp_path / "sub.csv").write_text(
            head + "\n" + "".join(row.format(k=i + 1, i=i) + "\n" for i in range(50))
        )
        code, got, _ = _scores(capsys, key, "kddcup2004-physics", str(tmp_path / "sub.csv"))
        assert code == 1 and got["errors"] == [
            f"{tmp_path}/sub.csv, line 2: expected 2 fields (example_id prediction), found 3; the first "
            "looks like a column of row numbers (pandas: to_csv(index=False), R: write.csv(row.names=FALSE) "
            "write none); reading stopped"
        ]


def test_row_numbers_before_a_ranked_list_are_named(tmp_path, capsys):
    key = _key(tmp_path, "key.csv", "".join(f"{g},{lab}\n" for g, lab in zip(GENES, LABELS, strict=True)))
    team = tmp_path / "team"
    team.mkdir()
    for lst in ("narrow", "broad"):
        (team / f"{lst}.txt").write_text(",gene_id\n" + "".join(f"{k},{g}\n" for k, g in enumerate(GENES)))
    code, got, _ = _scores(capsys, key, "kddcup2002-task2", str(team))
    assert code == 1 and got["errors"] == [
        f"{team}/narrow.txt, line 2: expected 1 field (one example id), found 2; the first looks like a "
        "column of row numbers (pandas: to_csv(index=False), R: write.csv(row.names=FALSE) write none); "
        "reading stopped"
    ]


@pytest.mark.parametrize(
    "char,name",
    [
        ("\f", "a form feed (\\f)"),
        ("\v", "a vertical tab (\\v)"),
        ("\x1e", "a record separator (\\x1e)"),
        ("\x85", "a next-line character (U+0085)"),
        ("\u2028", "a line separator (U+2028)"),
    ],
)
def test_a_line_end_of_some_readers_only_is_an_error_at_an_editors_line(tmp_path, capsys, char, name):
    """A form feed, a vertical tab or U+2028 between two rows was a line end (``str.splitlines``):
    the rows were read, but every line number after it was one more than an editor's, so an error
    further down named the wrong line ("line 4" for the third line).  The line ends are LF, CR LF
    and CR, as documented: such a character is an error at its line and column, in a submission as
    in the key, and the rows after it keep their editor's numbers."""
    key = _key(tmp_path, "key.txt", "".join(f"ev{i} {i % 2}\n" for i in range(4)))
    sub = tmp_path / "sub.txt"
    sub.write_text(f"ev0 0.9\nev1 0.2{char}ev2 0.7\nev3 oops\n", encoding="utf-8")
    code, got, err = _scores(capsys, key, "kddcup2004-physics", str(sub))
    assert code == 1 and got["errors"] == [
        f"{sub}, line 2: holds {name} at column 8, a line end to some readers and a blank to others "
        "(rows would merge or split): end each line with a newline only",
        f"{sub}, line 3: the prediction 'oops' is not a number",
    ], got["errors"]
    bad_key = _key(tmp_path, "bad_key.txt", f"ev0 1\nev1 0{char}ev2 1\nev3 0\n")
    sub.write_text("ev0 0.9\nev1 0.2\nev2 0.7\nev3 0.1\n")
    code, _, err = _scores(capsys, bad_key, "kddcup2004-physics", str(sub))
    assert code == 1 and err == (
        f"perfeval: error: {bad_key}, line 2: holds {name} at column 6, a line end to some readers and "
        "a blank to others (rows would merge or split): end each line with a newline only\n"
    )
    assert _scores(capsys, key, "kddcup2004-physics", str(sub))[0] == 0
