"""The classic dialect's documented behaviours (SPEC section 12), one small input each.

Expected values are worked out by hand from PERF 5.12's definitions; the golden suite and the
differential fuzzer cover the same ground against the original itself.
"""

from __future__ import annotations

import pytest

from conftest import run_perf


def value(out: str, label: str) -> str:
    for ln in out.splitlines():
        if ln.split()[:1] == [label]:
            return ln.split()[1]
    raise AssertionError(f"{label} not printed:\n{out}")


def test_q2_value_option_swallows_the_next_option():
    out, _, _ = run_perf(["-plot", "-acc"], b"1 0.9\n0 0.1\n")
    assert "pred_thresh" in out and "ROC" in out  # -acc was the plot type: full default report
    out, _, status = run_perf(["-t", "-blocks", "-apr"], b"1 1 0.9\n1 0 0.1\n")
    assert status == 0 and out == "MEAN_BLOCK_APR     1.00000\n"  # threshold 0 *and* block mode


def test_q3_cost_is_an_option_and_cst_is_not():
    out, _, status = run_perf(["-cost", "1", "2", "3", "4", "-acc"], b"1 0.9\n0 0.6\n1 0.3\n0 0.1\n")
    assert status == 0
    # at 0.5: TP=1 FN=1 FP=1 TN=1 -> 1 + 2 + 3 + 4
    assert "CST   10.00000   pred_thresh  0.500000" in out
    out, _, status = run_perf(["-cst", "1", "2", "3", "4"], b"1 0.9\n")
    assert status == 1 and "Unrecognized program option -cst" in out


def test_q4_min_cost_is_never_printed():
    out, _, _ = run_perf(["-cost", "1", "2", "3", "4", "-stats"], b"1 0.9\n0 0.6\n1 0.3\n0 0.1\n")
    assert "MIN_COST" not in out


def test_q6_cxe_rewrites_targets_for_later_measures():
    data = b"-1 0.9\n1 0.8\n-1 0.7\n-1 0.6\n1 0.5\n"
    alone, _, _ = run_perf(["-rms"], data)
    after, _, _ = run_perf(["-rms", "-cxe"], data)
    assert value(alone, "RMS") != value(after, "RMS")  # mean target < 0: every case became class 1


def test_q7_r50_is_zero_below_fifty_negatives():
    rows = b"".join(b"%d 0.%02d\n" % (i % 2, i) for i in range(1, 99))  # 49 negatives
    out, _, _ = run_perf(["-r50"], rows)
    assert value(out, "R50") == "0.00000"


def test_q8_max_acc_threshold_stays_zero_when_nothing_beats_all_negative():
    out, _, _ = run_perf(["-stats"], b"0 0.9\n1 0.8\n0 0.7\n0 0.6\n")
    assert "max_acc_thresh  0.000000" in out


def test_q10_apr_above_one_for_tiny_tied_predictions():
    out, _, _ = run_perf(["-apr"], b"1 0.9\n0 0.3\n1 1e-20\n0 2e-20\n1 0.5\n")
    assert value(out, "APR") == "1.18333"


def test_q11_files_mode_warns_about_the_right_file(tmp_path):
    (tmp_path / "t").write_text("1\n0\n1\n0\n1\n")
    (tmp_path / "p").write_text("0.9\n0.2\n0.7\n0.4\n")
    out, err, status = run_perf(["-roc", "-files", "t", "p"], cwd=tmp_path)
    assert status == 0 and err == "Warning: True values file is longer.\n"
    (tmp_path / "t").write_text("1\n0\n1\n0")  # no newline after the last number: kept
    out, err, _ = run_perf(["-roc", "-files", "t", "p"], cwd=tmp_path)
    assert err == "" and value(out, "ROC") == "1.00000"


def test_q12_comments_and_commas():
    out, _, status = run_perf(["-roc"], b"# target,prediction\n1,0.9\n  # indented comment\n0,0.1\n")
    assert status == 0 and out == "ROC    1.00000\n"


def test_q14_slq_ignores_bins_past_the_last():
    # width 0.3: three bins [0, .3), [.3, .6), [.6, .9); 0.95 is dropped entirely
    out, _, _ = run_perf(["-slq", "0.3"], b"1 0.95\n0 0.1\n1 0.4\n")
    assert value(out, "SLQ") == "1.00000"


def test_q15_slq_as_a_number_of_bins():
    a, _, _ = run_perf(["-slq", "100"], b"1 0.9\n0 0.1\n1 0.45\n0 0.42\n")
    b, _, _ = run_perf(["-slq", "0.01"], b"1 0.9\n0 0.1\n1 0.45\n0 0.42\n")
    assert a == b and "Bin_Width  0.010000" in a


def test_q16_lift_is_nan_without_positives():
    out, _, _ = run_perf(["-lft"], b"0 0.9\n0 0.1\n")
    assert value(out, "LFT") == "-nan"


def test_q17_block_mode_all_negative_block():
    out, err, _ = run_perf(["-blocks", "-apr", "-rkl", "-top1"], b"1 0 0.9\n1 0 0.1\n2 1 0.8\n2 0 0.2\n")
    assert "Precision and Recall not well defined" in err
    assert out == "MEAN_BLOCK_APR     0.50000\nMEAN_BLOCK_RKL     1.50000\nMEAN_BLOCK_TOP1    0.50000\n"


def test_q19_no_item_limit():
    rows = b"".join(b"%d 0.%06d\n" % (i % 3 == 0, (i * 7919) % 1_000_000) for i in range(510_000))
    out, err, status = run_perf(["-roc"], rows)
    assert status == 0 and err == "" and out.startswith("ROC ")


def test_q21_reads_beyond_the_data_are_zero():
    out, _, _ = run_perf(["-stats"], b"1 0.7\n")  # G07
    assert "max_acc_thresh  1.050000" in out and "freq_thresh  0.350000" in out


def test_ntop_sums_trunc_n_and_divides_by_raw_n():
    out, _, _ = run_perf(["-ntop", "2.999"], b"1 0.9\n0 0.8\n1 0.7\n")
    assert "NTOP3   0.33344" in out  # label floor(N + 0.01) = 3; sum of the top 2 = 1; 1 / 2.999


def test_rkl_and_top1_are_pessimistic_about_ties():
    out, _, _ = run_perf(["-rkl", "-top1"], b"1 0.9\n0 0.9\n0 0.5\n1 0.1\n0 0.1\n")
    assert "RKL    5" in out and value(out, "TOP1") == "0.00000"


def test_ca1_edges_in_extended_precision():
    out, _, _ = run_perf(["-cal", "100"], b"1 0.5\n0 0.5\n1 0.5\n0 0.5\n0 0.5\n")
    assert value(out, "CA1") == "0.01053"  # G04: 0.5 falls only in the bins ending at 0.5


@pytest.mark.parametrize(
    "args, label, want",
    [
        (["-loss"], "ROC", "0.29167"),
        (["-loss"], "TOP1", "0.00000"),
        (["-loss", "-ntop", "3", "-nrm", "2"], "NTOP3", "0.33333"),
        (["-loss", "-ntop", "3", "-nrm", "2"], "NRM", "0.46957"),  # NRM stays a loss as it is
    ],
)
def test_loss_mode_prints_one_minus_the_score(args, label, want):
    data = b"1 0.9\n0 0.8\n1 0.7\n0 0.6\n1 0.55\n0 0.4\n0 0.3\n1 0.2\n0 0.1\n0 0.05\n"
    out, _, _ = run_perf(args, data)
    assert value(out, label) == want


def test_percent_mode_splits_ties_fractionally():
    out, _, _ = run_perf(
        ["-percent", "25", "-acc", "-confusion"],
        b"1 0.8\n0 0.8\n1 0.8\n0 0.5\n1 0.5\n0 0.5\n0 0.5\n1 0.3\n0 0.3\n0 0.1\n",
    )
    # the top 25% (2 cases) cut the 0.8 group of 3 (2 positives): 2 x 2/3 positives
    assert "True_1  1.3333       2.6667" in out


@pytest.mark.parametrize("seed, runs", [(0, False), (1, False), (2, True)])
def test_block_grouping_numpy_path_equals_the_plain_one(monkeypatch, seed, runs):
    """Large -blocks inputs are grouped with numpy; the printed report must not change by a byte."""
    import numpy as np

    from perfeval.classic import engine

    rng = np.random.default_rng(seed)
    n = 3000
    ids = rng.choice([7, -3, 12, 500, 2**31 - 1, 0], size=n)  # interleaved, unsorted block ids
    if runs:  # each block one run of rows (the usual layout), in no sorted order
        ids = np.repeat([500, -3, 12, 7, 0], n // 5)
    t = (rng.random(n) < 0.1).astype(int)
    p = np.round(rng.random(n), 2)  # many ties: the order inside a block matters
    data = "".join(f"{b} {y} {s}\n" for b, y, s in zip(ids, t, p, strict=False)).encode()
    args = ["-blocks", "-apr", "-rkl", "-rms", "-top1"]
    monkeypatch.setattr(engine, "GROUP_WITH_NUMPY", 10**9)
    plain = run_perf(args, data)
    monkeypatch.setattr(engine, "GROUP_WITH_NUMPY", 1)
    fast = run_perf(args, data)
    assert plain == fast and plain[2] == 0 and "MEAN_BLOCK_APR" in plain[0]
