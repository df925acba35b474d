"""Progress on long work: shown on a terminal (a pseudo-terminal here), never when standard error is
a pipe or a file, never with --quiet, off by default in the library, and tqdm imported only when a
bar is drawn."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest

from perfeval.base import progress as _progress

pytest.importorskip("tqdm")

PERFEVAL = [sys.executable, "-m", "perfeval.cli.main"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 20_000
    y = (rng.random(n) < 0.3).astype(int)
    a = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + y - 1))), 4)
    b = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 0.5 * y - 1))), 4)
    path = tmp_path_factory.mktemp("progress") / "t.csv"
    with open(path, "w") as fh:
        fh.write("y,a,b\n")
        fh.writelines(f"{t},{p},{q}\n" for t, p, q in zip(y, a, b, strict=True))
    return str(path)


def _on_pty(args: list[str]) -> tuple[str, str, int]:
    """Run perfeval with standard error on a new pseudo-terminal: (stdout, what the terminal got, status)."""
    master, slave = os.openpty()
    try:
        p = subprocess.Popen(
            PERFEVAL + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=_env()
        )
    finally:
        os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer of the terminal has closed it
            break
        if not chunk:
            break
        seen += chunk
    out = p.stdout.read() if p.stdout else b""
    status = p.wait()
    os.close(master)
    return out.decode(), seen.decode(errors="replace"), status


def _piped(args: list[str]) -> tuple[str, str, int]:
    p = subprocess.run(PERFEVAL + args, capture_output=True, text=True, env=_env())
    return p.stdout, p.stderr, p.returncode


def _env() -> dict:
    env = dict(os.environ)
    env.pop("TQDM_DISABLE", None)
    return env


CI = ["eval", "--score", "a", "-m", "roc,apr,rms", "--ci", "0.9", "--n-boot", "300"]


def test_progress_on_a_terminal_and_none_when_piped(table):
    out_t, term, st_t = _on_pty([*CI[:1], table, *CI[1:]])
    out_p, err_p, st_p = _piped([*CI[:1], table, *CI[1:]])
    assert st_t == st_p == 0
    assert "bootstrap ROC, APR, RMS" in term and "/300 [" in term and "replicates/s" in term
    assert "jackknife APR, RMS" in term and "groups" in term  # the BCa acceleration's jackknife
    assert "replicates" not in err_p and "\r" not in err_p  # no bar, no carriage return in a log
    assert out_t == out_p  # the same numbers either way


def test_quiet_silences_progress_on_a_terminal(table):
    out, term, status = _on_pty(["eval", table, "--quiet", *CI[1:]])
    assert status == 0 and "ROC" in out
    assert "replicates" not in term and "\r" not in term.replace("\r\n", "")


def test_compare_and_streaming_show_progress_on_a_terminal(table):
    _, term, status = _on_pty(["compare", table, "--score", "a,b", "-m", "roc,apr", "--n-boot", "200"])
    assert status == 0 and "bootstrap APR" in term and "/200 [" in term  # ROC: DeLong's test, no draws
    assert "bootstrap ROC" not in term
    out, term, status = _on_pty(["eval", table, "--stream", "--score", "a", "-m", "roc"])
    assert status == 0 and "reading t.csv" in term and "20,000 rows" in term
    _, err, _ = _piped(["eval", table, "--stream", "--score", "a", "-m", "roc"])
    assert "reading" not in err


def test_grouped_streaming_shows_the_groups_done(tmp_path):
    rng = np.random.default_rng(2)
    path = tmp_path / "g.txt"
    with open(path, "w") as fh:
        fh.writelines(
            f"{int(rng.random() < 0.4)} {rng.random():.3f} {g}\n" for g in rng.integers(0, 50, 3000)
        )
    out, term, status = _on_pty(["eval", str(path), "--stream", "--group", "3", "-m", "gauc"])
    assert status == 0 and "GAUC" in out
    assert "groups:" in term and "groups done" in term
    _, err, _ = _piped(["eval", str(path), "--stream", "--group", "3", "-m", "gauc"])
    assert "groups done" not in err


def test_quiet_is_an_option_of_every_command():
    from perfeval.cli.parser import build

    sub = next(a for a in build()._actions if a.dest == "command")
    for name, parser in sub.choices.items():
        assert "--quiet" in parser._option_string_actions, name


def test_the_library_is_silent_by_default_and_shows_progress_when_asked(capsys):
    from perfeval.stats import ci, compare

    rng = np.random.default_rng(1)
    y = (rng.random(2000) < 0.4).astype(int)
    s = np.round(rng.random(2000) + 0.3 * y, 3)
    quiet = ci(y, s, measures=["apr", "rms"], n_boot=100)
    assert capsys.readouterr().err == ""
    loud = ci(y, s, measures=["apr", "rms"], n_boot=100, progress=True)
    err = capsys.readouterr().err
    assert "bootstrap APR, RMS" in err and "/100 [" in err
    assert quiet == loud
    compare(y, s, s**2, measures="apr", n_boot=50, progress=True)
    assert "/50 [" in capsys.readouterr().err


def test_without_tqdm_a_plain_line_on_a_terminal_and_nothing_elsewhere(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm fails

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setattr(_progress, "INTERVAL", 0.0)
    with _progress.bar(True, 10, "bootstrap X", "replicates") as b:
        b.update(4)
    assert "bootstrap X: 4/10 replicates" in term.getvalue() and "s left" in term.getvalue()
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    with _progress.bar(True, 10, "bootstrap X", "replicates") as b:
        b.update(4)
    assert pipe.getvalue() == ""


def test_tqdm_is_not_imported_unless_a_bar_is_drawn():
    code = (
        "import sys, perfeval, perfeval.cli.main, perfeval.stats, perfeval.backends.stream\n"
        "from perfeval.cli.main import main\n"
        "main(['list-measures'])\n"
        "assert 'tqdm' not in sys.modules, 'tqdm imported'\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


class _Counting:
    """A measure spec computed the generic way (no plan: a measure of the user's own), counting the
    replicate summaries it has been computed on."""

    def __init__(self, name: str):
        from types import SimpleNamespace

        from perfeval.measures import parse_measure

        self.spec = parse_measure(name)
        self.label = "MINE"
        self.measure = SimpleNamespace(name="MINE", kind="binary")  # not in FAST_PATHS
        self.calls = 0

    def __call__(self, h):
        self.calls += 1
        return self.spec(h)


@pytest.mark.parametrize("walk", ["summary", "cases"])
def test_the_generic_path_moves_the_bar_as_its_replicates_finish(monkeypatch, walk):
    """A measure without a plan is computed on each replicate's summary: the bar moves as chunks of
    replicates finish (it stood at 0 until the end before), after the planned measures' walk."""
    from perfeval.measures import parse_measure
    from perfeval.stats import replicates as R
    from perfeval.summaries import ScoreHistogram

    rng = np.random.default_rng(3)
    y = (rng.random(500) < 0.3).astype(int)
    s = np.round(rng.random(500), 2)
    mine, roc = _Counting("logloss"), parse_measure("roc")
    seen: list[tuple[float, int, int]] = []

    class Meter(_progress.Off):
        def __init__(self, total):
            self.total = total

        def update(self, n: int = 1) -> None:
            seen.append((self.total, n, mine.calls))

    monkeypatch.setattr(_progress, "bar", lambda on, total, desc, *a, **k: Meter(total))
    monkeypatch.setattr(R, "REPLICATE_CHUNK", 16)
    if walk == "summary":
        out = R.hist_replicates([roc, mine], ScoreHistogram.from_arrays(y, s), 1, 100, 2, progress=True)
    else:
        pairs = [(roc, R.Sorted(s)), (mine, R.Sorted(s))]
        out = R.row_replicates(pairs, y == 1, None, 1, 100, 2, progress=True)
    assert not np.isnan(out[1]).any() and mine.calls == 100
    assert {t for t, _, _ in seen} == {200}  # the walk's 100 replicates, then the generic path's
    assert sum(n for _, n, _ in seen) == 200
    done = np.cumsum([n for _, n, _ in seen])
    generic = [(d - 100, calls) for d, (_, _, calls) in zip(done, seen, strict=True) if d > 100]
    # each step of the bar is the replicates finished by then, the first long before the last
    assert all(d == calls for d, calls in generic) and len(generic) >= 7 and generic[0][1] <= 16
