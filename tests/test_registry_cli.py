"""The registry is complete and consistent, and the commands' help/lists are generated from it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from perfeval import UnknownMeasureError, get_measure, list_measures
from perfeval.classic.help import help_text
from perfeval.classic.options import ALL_FLAGS, FLAG_OPTIONS, MEASURE_FLAGS
from perfeval.cli.commands.measures import list_measures_text
from perfeval.cli.main import main
from perfeval.measures import NICKNAMES, REGISTRY

PERF_24 = {
    "ACC",
    "RMS",
    "CXE",
    "ROC",
    "R50",
    "SEN",
    "SPC",
    "NPV",
    "PPV",
    "PRE",
    "REC",
    "PRF",
    "PRB",
    "APR",
    "LFT",
    "TOP1",
    "TOP10",
    "NTOP",
    "RKL",
    "NRM",
    "CST",
    "SAR",
    "CA1",
    "CA2",
    "SLQ",
}


def test_every_perf_measure_is_registered_once():
    perf = [m for m in list_measures() if m.perf_options]
    assert {m.name for m in perf} == PERF_24
    assert len(perf) == len(PERF_24)
    assert len({m.name for m in list_measures()}) == len(REGISTRY)


@pytest.mark.parametrize("m", list_measures(), ids=lambda m: m.name)
def test_every_measure_is_documented(m):
    for text in (m.title, m.definition, m.ties, m.edge_cases, m.perf):
        assert len(text) >= 4
    assert m.direction in ("higher", "lower", "none")  # none: the ideal is a value (CAL_SLOPE: 1)
    assert m.kind in (
        "binary",
        "ranking",
        "grouped",
        "multiclass",
        "multilabel",
        "regression",
    ) and m.aggregate in (
        "mean",
        "weighted",
    )
    assert all(o.startswith("-") for o in m.perf_options)
    assert m.perf_options or m.perf.startswith("not in PERF")
    assert callable(m.function())


def test_classic_flags_are_the_registry_options():
    by_option = REGISTRY.by_perf_option()
    for opt, flag in FLAG_OPTIONS:
        names = {m.name for m in by_option[opt]}
        assert names == {flag}, opt
    for flag in MEASURE_FLAGS:
        if flag == "CAL":
            assert {m.name for m in REGISTRY.perf_option_measures("-cal")} == {"CA1", "CA2"}
        else:
            assert flag in REGISTRY
    assert set(NICKNAMES["all"]) - {"CA1", "CA2"} == set(ALL_FLAGS) - {"CAL"}


def test_lookup_is_case_insensitive_and_suggests():
    assert get_measure("AUC") is get_measure("-roc") is get_measure("roc_auc")
    assert get_measure("-break_even").name == "PRB"
    with pytest.raises(UnknownMeasureError, match="did you mean 'roc'"):
        get_measure("rco")
    with pytest.raises(UnknownMeasureError, match="CA1, CA2"):
        get_measure("-cal")


def test_help_texts_list_every_measure():
    """perf -h lists what perf computes (every measure with a PERF option) and nothing else;
    perfeval list-measures lists all."""
    text = help_text()
    listing = list_measures_text()
    rows = text.split("measures:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    shown = {w for line in rows if line.startswith("  -") and len(line) > 27 for w in line[27:35].split()}
    for m in list_measures():
        assert m.name in listing
        if m.perf_options:
            assert m.name in shown, m.name
            for opt in m.perf_options:
                assert opt in text
        else:
            assert m.name not in shown, m.name


def test_perfeval_command(capsys):
    assert main(["--version"]) == 0
    assert "perfeval 0.1.0" in capsys.readouterr().out
    assert main(["list-measures", "--long"]) == 0
    out = capsys.readouterr().out
    assert "Ties:" in out and "APR: average precision" in out
    assert main(["no-such-command"]) == 2
    capsys.readouterr()
    assert main([]) == 2  # no command: the help on stderr, a usage error's status
    out, err = capsys.readouterr()
    assert out == "" and "usage: perfeval" in err and "explain" in err


def test_measure_parameters_are_checked():
    from perfeval import InvalidParameterError, ScoreHistogram

    h = ScoreHistogram.from_arrays([1, 0], [0.6, 0.2])
    with pytest.raises(InvalidParameterError, match="no parameter 'bins'"):
        get_measure("roc")(h, bins=3)
    assert get_measure("ntop")(h, n=1) == 1.0


def test_import_perfeval_stays_light():
    code = "import sys, perfeval, perfeval.classic.main; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_the_registry_lists_without_numpy():
    """Why the measures name their functions by strings (measures/base.py): perf -h and perfeval
    list-measures read every entry of the registry, and neither loads numpy."""
    code = (
        "import sys; from perfeval.classic.main import main as perf; from perfeval.cli.main import main\n"
        "assert perf(['-h']) == 0 and main(['list-measures', '--long']) == 0\n"
        "sys.stderr.write(f'numpy loaded: {\"numpy\" in sys.modules}')"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "ROC" in run.stdout and "NDCG" in run.stdout and run.stderr == "numpy loaded: False"


def test_measure_functions_are_named_in_full_where_registered():
    """Each measure's compute and per-group functions are literal "module:function" strings in the
    module that registers it (never composed: a search for a function's name finds its measure), and
    each names a function defined in that module."""
    import importlib
    from pathlib import Path

    measures = Path(__file__).resolve().parents[1] / "src" / "perfeval" / "measures"
    source = (measures / "perf.py").read_text() + (measures / "vocabulary.py").read_text()
    for m in list_measures():
        for ref in filter(None, (m.compute, m.per_group)):
            assert f'"{ref}"' in source, f"{m.name}: {ref} is not written out where it is registered"
            module, _, name = ref.partition(":")
            assert module.startswith("perfeval.measures.") and name.isidentifier(), ref
            fn = getattr(importlib.import_module(module), name)
            assert callable(fn) and fn.__module__ == module, ref


def test_docs_measures_is_generated_from_the_registry():
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / "measures.md"
    assert doc.read_text() == list_measures_text(fmt="markdown"), (
        "run `make docs` to regenerate docs/measures.md"
    )


def test_docs_measures_has_a_multilabel_example_that_runs():
    import doctest

    from perfeval.cli.commands import measures

    text = list_measures_text(fmt="markdown")
    assert "## Multilabel" in text and measures.MULTILABEL_EXAMPLE in text
    # a label never on is listed; the example is the one tests/test_doctests.py runs (__test__)
    assert "['urgent']" in measures.MULTILABEL_EXAMPLE
    assert measures.__test__["multilabel_example"] is measures.MULTILABEL_EXAMPLE
    parser = doctest.DocTestParser()
    test = parser.get_doctest(measures.MULTILABEL_EXAMPLE, {}, "multilabel_example", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False) == (0, len(test.examples)) and len(test.examples) >= 5


def test_one_roc_loads_no_backend_no_classic():
    """evaluate() of one measure loads the door, the engine, the summaries and the measures: not the
    Dask backend, the classic command, the CLI, plotting or the statistics."""
    code = (
        "import sys, perfeval; perfeval.evaluate([1, 0], [0.5, 0.4], measures=['roc']); "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('perfeval'))));"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('perfeval') and "
        "not hasattr(sys.modules[m], '__path__'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    loaded, of_code = out[0].split(), out[1].split()
    for heavy in (
        "perfeval.backends.dask",
        "perfeval.classic",
        "perfeval.cli",
        "perfeval.plot",
        "perfeval.bootstrap",
        "perfeval.stats",
        "perfeval.backends.stream",
        "perfeval.contest",
    ):
        assert not any(m == heavy or m.startswith(heavy + ".") for m in loaded), heavy
    # 25 before the folders of issue 31, which added three packages on this path (perfeval.base,
    # perfeval.engine's package over engine.finish, perfeval.api) and no module of code: 22 of those
    assert len(of_code) <= 22, of_code
    assert len(loaded) <= 28, loaded
    assert "perfeval.base.moved" not in loaded  # the old paths' table is read for an old path only
