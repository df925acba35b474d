"""The classic dialect's computation and report: what PERF 5.12 prints, in its order.

The flow follows the original run (SPEC sections 4-8): read-time warnings; per data set (the whole
input, or each block) binarise the targets, sort with the original's quicksort, form the tie
fractions, run the accuracy sweep and the up-front plots; then print the threshold sections and the
measures.  All arithmetic that decides a printed digit runs in the compiled kernels
(:mod:`perfeval._x87`) in the original's 80-bit precision; this module orchestrates and formats.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Callable, Union

Buffer = Union[bytearray, "K.Buf"]

from perfeval import _x87 as K
from perfeval.classic.options import ClassicExit, ClassicRequest, c_int
from perfeval.classic.reader import Cases

EPS = 1e-10
BLOCK_RESERVED = -999999


def fmt(spec: str, x: float) -> str:
    """C printf of one double: NaN prints as ``-nan`` (the x86 default NaN has its sign bit set)."""
    if x != x:
        width = spec[1:].split(".")[0].rstrip("l")
        return "-nan".rjust(int(width)) if width.isdigit() else "-nan"
    return spec.replace("l", "") % x


def f8(x: float) -> str:
    return fmt("%8.5f", x)


def f9(x: float) -> str:
    return fmt("%9.6f", x)


@dataclass
class Out:
    """stdout is collected and written at the end (PERF's stdout is block-buffered); stderr is
    written as it comes (unbuffered)."""

    err: Callable[[str], None]
    chunks: list = field(default_factory=list)

    def out(self, s: str | bytes) -> None:
        if s:
            self.chunks.append(s.encode() if isinstance(s, str) else s)


@dataclass
class DataSet:
    """One data set after preprocessing (SPEC section 5)."""

    t: Buffer  # 0/1 targets as float32, sorted with the predictions
    p: Buffer  # float32 predictions, ascending, in the original's tie order
    fr: Buffer  # float32 tie fractions
    n: int
    T0: int
    T1: int
    all_same: bool
    assumed: int
    mean_true: float


@dataclass
class State:
    """The original's globals that outlive one data set."""

    max_acc_thresh: float = 0.0
    last_acc_thresh: float = 0.0
    max_acc_count: int = 0
    roc_area: float = 0.0
    rmse: float = 0.0
    warn_min: int = 1
    warn_max: int = 1
    slots: bytearray = field(default_factory=bytearray)  # PERF's pred[] array across blocks


class Classic:
    """One run of the classic command over already-read cases."""

    def __init__(self, req: ClassicRequest, io: Out):
        self.r = req
        self.io = io
        self.st = State()
        self.flags = set(req.flags)

    # -- reading ------------------------------------------------------------------------------------
    def read_warnings(self, p: Buffer, limit: int) -> None:
        """The once-per-run warnings PERF prints while it reads (SPEC 4.5)."""
        f = self.flags
        a_on = bool(f & {"RMS", "CXE", "CAL", "NRM", "SLQ"})
        b_on = (not self.r.threshold_set and self.r.percent is None
                and bool(f & {"ACC", "SEN", "SPC", "NPV", "PPV", "PRE", "REC", "PRF"}))
        if not (a_on or b_on):
            return
        first_out, first_neg = K.range_scan(p, limit)
        ia = first_out if a_on else -1
        ib = first_neg if b_on else -1
        if ia >= 0 and (ib < 0 or ia <= ib):
            self.io.err("Warning: Prediction out of range [0-1] for RMS, CXE, NRM, SLQ, or CAL metrics.\n")
            if "SLQ" in f:
                self.io.err("Can't calculate SLQ with predictions out of range [0-1].\n")
                f.discard("SLQ")
            if "CXE" in f:
                self.io.err("Cross-entropy doesn't make sense with predictions out of range [0-1].\n")
                f.discard("CXE")
        elif ib >= 0:
            self.io.err("Warning: Negative prediction but threshold is at default of %f.\n" % self.r.threshold)

    # -- preprocessing ------------------------------------------------------------------------------
    def start(self, t: Buffer, p: Buffer) -> DataSet:
        """PERF's start_computations for one data set; prints plots and their warnings."""
        r, st, io = self.r, self.st, self.io
        n = len(p) // 4
        status, mean, mn, _mx, T0, T1, all_same, assumed = K.binarise(t)
        if status:
            raise ClassicExit("Error: More than 2 unique target values detected.  Exiting.\n", "stderr", 255)
        if all_same:
            io.err("Warning: All targets in block have same value %8.4f. Assuming targets are class %d\n"
                   % (mn, assumed))
        st.warn_min = st.warn_max = 1
        K.sort(t, p)
        fr = K.zeros(4 * n)
        K.fractions(t, p, fr)
        ds = DataSet(t, p, fr, n, T0, T1, bool(all_same), assumed, mean)
        # PERF reads pred[n] at the edges of the sweep; in block mode that slot holds what an earlier,
        # longer block left there (SPEC 5.4, 5.5)
        pv = memoryview(p).cast("f")
        pn = memoryview(st.slots).cast("f")[n] if len(st.slots) > 4 * n else 0.0
        plot = {"acc": 1, "cost": 2}.get(r.plot or "", 0)
        st.max_acc_thresh, st.last_acc_thresh, st.max_acc_count, pb = K.acc_sweep(
            t, p, pn, T0, T1, *r.cost, plot, st.max_acc_thresh, st.last_acc_thresh, st.max_acc_count)
        io.out(pb)
        at = lambda i: 0.0 if i < 0 else (pv[i] if i < n else pn)  # noqa: E731
        self.freq_thresh = K.midpoint(at(T0), at(T0 - 1))
        self.counts, self.freq_counts, self.max_counts = K.confusion(
            t, p, (r.threshold, self.freq_thresh, st.max_acc_thresh))
        if r.percent is not None:
            self.counts = K.percent_counts(fr, r.percent, T0, T1)
        self.roc = None  # (area, 1 - area): PERF computes it again for the ROC line; same numbers
        if r.plot == "roc":
            *self.roc, pb = K.roc(fr, T0, T1, 1)
            io.out(pb)
        elif "SAR" in self.flags:
            *self.roc, _ = K.roc(fr, T0, T1, 0)
        if self.roc is not None:
            st.roc_area = self.roc[0]
        if "SAR" in self.flags:
            st.rmse = self.rms(ds)[0]
        if r.plot == "pr":
            self.apr(ds, plot=True)
        if r.plot == "lift":
            io.out(K.lift_plot(fr, T1))
        self.max_lift = K.max_lift(n, T1)
        if self.r.blocks:  # remember what the sorted block left in the pred[] array
            if len(st.slots) < 4 * n:
                st.slots += bytes(4 * n - len(st.slots))
            st.slots[: 4 * n] = p
        self._ds = ds
        return ds

    # -- measures that print warnings ---------------------------------------------------------------
    def rms(self, ds: DataSet, acc: float = 0.0) -> tuple[float, float]:
        st = self.st
        v, acc_out, st.warn_min, st.warn_max, warns = K.rms(ds.t, ds.p, st.warn_min, st.warn_max, acc)
        self._range_warnings(warns)
        return v, acc_out

    def _range_warnings(self, warns: list) -> None:
        for kind, val in warns:
            side = "larger than 1.0" if kind == 1 else "less than 0.0"
            self.io.err("Warning: Prediction (%10.6f) %s when calculating RMS or CXE\n" % (val, side))

    def apr(self, ds: DataSet, plot: bool = False, acc: float = 0.0) -> tuple[float, float, float]:
        """(APR, 1 - APR, acc + APR); APR is 0 with a warning when every case is class 0."""
        if ds.all_same and ds.assumed == 0:
            self.io.err("Warning: Precision and Recall not well defined if all cases are class 0.\n")
            return 0.0, 1.0, K.add_ext(acc, 0.0)
        v, loss, acc_out, big, pb = K.apr(ds.p, ds.fr, ds.T1, 1 if plot else 0, acc)
        for _ in range(big):
            self.io.err("Warning: There are more than 50000 ties in your prediction, "
                        "using pessimistic ordering in Average Precision.\n")
        if plot:
            self.io.out(pb)
        return v, loss, acc_out

    # -- normal mode --------------------------------------------------------------------------------
    def run_normal(self, cases: Cases) -> None:
        r, io, f = self.r, self.io, self.flags
        self.read_warnings(cases.preds, cases.n)
        if cases.longer:
            io.err("Warning: %s values file is longer.\n" % ("True" if cases.longer == "true" else "Predicted"))
        ds = self.start(cases.targets, cases.preds)
        if (r.stats_mode or "ROC" in f) and r.plot in ("roc", "acc"):
            io.out("\n")
        if r.percent is not None:
            self.section(self.counts, "prc of data", r.percent, "Percent of data")
        else:
            self.section(self.counts, "pred_thresh", r.threshold, "Threshold")
        if r.stats_mode or r.confusion:
            io.out("\n")
            self.section(self.freq_counts, "freq_thresh", self.freq_thresh, "Threshold")
            io.out("\n")
            if self.st.max_acc_count > 1:
                io.out("Caution: %d Different Thresholds Achieved Max Accuracy.\n"
                       "Run with -accplot option to see accuracy vs. threshold.\n\n" % self.st.max_acc_count)
            self.section(self.max_counts, "max_acc_thresh", self.st.max_acc_thresh, "threshold")
            io.out("\n")
        self.rank_measures(ds)
        self.probability_measures(ds)

    def section(self, counts: tuple, tname: str, tval: float, table_label: str) -> None:
        """One threshold section (SPEC 6.1-6.4)."""
        r, f, st = self.r, self.flags, self.st
        A, B, C, D = counts
        vals = K.stats(A, B, C, D, self._ds.T0, self._ds.T1, 1 if r.loss else 0, self.max_lift, *r.sar,
                       st.roc_area, st.rmse, *r.cost)
        lines = []
        for label, v in zip(("ACC", "PPV", "NPV", "SEN", "SPC", "PRE", "REC", "PRF", "LFT"), vals):
            if label in f:
                lines.append("%3s   %s   %s %s\n" % (label, f8(v), tname, f9(tval)))
        if "SAR" in f:
            lines.append("SAR   %s   %s %s wacc %s wroc %s wrms %s \n"
                         % (f8(vals[9]), tname, f9(tval), f9(r.sar[0]), f9(r.sar[1]), f9(r.sar[2])))
        if "CST" in f:
            lines.append("CST   %s   %s %s\n" % (f8(vals[10]), tname, f9(tval)))
        if r.confusion:
            lines.append("\n       Predicted_1  Predicted_0   %s %s\n" % (table_label, f9(tval)))
            lines.append("True_1  %s       %s\n" % (fmt("%6.4f", A), fmt("%6.4f", B)))
            lines.append("True_0  %s       %s\n" % (fmt("%6.4f", C), fmt("%6.4f", D)))
        self.io.out("".join(lines))

    def rank_measures(self, ds: DataSet) -> None:
        r, f, loss = self.r, self.flags, self.r.loss
        out = []
        k_sum = c_int(r.ntop)
        prb, prb_l, top1, top10, rkl, rkl_l, ntop, ntop_l = K.ranks(
            ds.fr, ds.T0, ds.T1, 1 if ds.all_same else 0, k_sum, r.ntop)
        if "PRB" in f:
            out.append("PRB   %s\n" % f8(prb_l if loss else prb))
        if "APR" in f:
            v, v_l, _ = self.apr(ds)
            out.append("APR   %s\n" % f8(v_l if loss else v))
        if "ROC" in f:
            v, v_l = self.roc if self.roc is not None else K.roc(ds.fr, ds.T0, ds.T1, 0)[:2]
            out.append("ROC   %s\n" % f8(v_l if loss else v))
        if "R50" in f:
            v, v_l = K.r50(ds.fr, ds.T0, ds.T1, 50)
            out.append("R50   %s\n" % f8(v_l if loss else v))
        if "RKL" in f:
            out.append("RKL    %s\n" % f8(rkl_l) if loss else "RKL    %d\n" % c_int(rkl))
        if "TOP1" in f:
            out.append("TOP1  %s\n" % f8(1.0 - top1 if loss else top1))
        if "TOP10" in f:
            out.append("TOP10 %s\n" % f8(1.0 - top10 if loss else top10))
        if "NTOP" in f:
            out.append("NTOP%d  %s\n" % (K.c_int_sum(r.ntop, 0.01), f8(ntop_l if loss else ntop)))
        if "SLQ" in f:
            v, v_l = K.slq(ds.t, ds.p, r.slq_width, r.slq_bins)
            out.append("SLQ   %s Bin_Width %s\n" % (f8(v_l if loss else v), f9(r.slq_width)))
        self.io.out("".join(out))

    def probability_measures(self, ds: DataSet) -> None:
        f, st = self.flags, self.st
        if "CXE" in f:
            v, st.warn_min, st.warn_max, warns = K.cxe(ds.t, ds.p, ds.mean_true, st.warn_min, st.warn_max)
            self._range_warnings(warns)
            self.io.out("CXE   %s\n" % f8(v))
        if "NRM" in f:
            self.io.out("NRM   %s\n" % f8(K.nrm(ds.t, ds.p, self.r.nrm)))
        if "RMS" in f:
            self.io.out("RMS   %s\n" % f8(self.rms(ds)[0]))
        if "CAL" in f:
            self.io.out("CA1   %s 19_0.05_bins\n" % f8(K.ca1(ds.t, ds.p)))
            self.io.out("CA2   %s Bin_Size %d\n" % (f8(K.ca2(ds.t, ds.p, self.r.cal_window)), self.r.cal_window))

    # -- block mode ---------------------------------------------------------------------------------
    def run_blocks(self, cases: Cases) -> None:
        io, f = self.io, self.flags
        assert cases.blocks is not None
        ids = memoryview(cases.blocks).cast("i")
        n = cases.n
        try:
            stop = ids.tolist().index(BLOCK_RESERVED)
        except ValueError:
            stop = -1
        self.read_warnings(cases.preds, stop if stop >= 0 else n)
        if stop >= 0:
            raise ClassicExit("Error: Can't use -999999 as a BLOCK ID.  Exiting.\n", "stderr", 255)
        if cases.longer:
            io.err("Warning: %s values file is longer.\n" % ("True" if cases.longer == "true" else "Predicted"))
        order: dict[int, list[int]] = {}
        for i, b in enumerate(ids.tolist()):
            order.setdefault(b, []).append(i)
        tv = memoryview(cases.targets).cast("f")
        pv = memoryview(cases.preds).cast("f")
        m_apr = m_rkl = m_rms = m_top1 = 0.0
        for idx in order.values():
            t = bytearray(array("f", [tv[i] for i in idx]).tobytes())
            p = bytearray(array("f", [pv[i] for i in idx]).tobytes())
            ds = self.start(t, p)
            prb, _, top1, _, rkl, _, _, _ = K.ranks(ds.fr, ds.T0, ds.T1, 1 if ds.all_same else 0, 0, 0.0)
            if "TOP1" in f:
                m_top1 = K.add_ext(m_top1, top1)
            if "APR" in f:
                m_apr = self.apr(ds, acc=m_apr)[2]
            if "RKL" in f:
                m_rkl = K.add_ext(m_rkl, rkl)
            if "RMS" in f:
                m_rms = self.rms(ds, acc=m_rms)[1]
        nb = float(len(order))
        for name, flag, total in (("APR", "APR", m_apr), ("RKL", "RKL", m_rkl), ("RMS", "RMS", m_rms),
                                  ("TOP1", "TOP1", m_top1)):
            if flag in f:
                io.out("MEAN_BLOCK_%-4s   %s\n" % (name, f8(K.div_ext(total, nb))))
