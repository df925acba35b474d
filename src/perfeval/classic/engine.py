"""The classic dialect's computation and report: what PERF 5.12 prints, in its order.

The flow follows the original run (SPEC sections 4-8): read-time warnings; per data set (the whole
input, or each block) binarise the targets, sort with the original's quicksort, form the tie
fractions, run the accuracy sweep and the up-front plots; then print the threshold sections and the
measures.  All arithmetic that decides a printed digit runs in the compiled kernels
(:mod:`perfeval._native`) in the original's 80-bit precision; this module orchestrates and formats.
"""

from __future__ import annotations

import math
import os
import threading
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Union

from perfeval import _native as K
from perfeval.base.nicknames import STATS
from perfeval.classic.options import ClassicExit, ClassicRequest, c_int
from perfeval.classic.reader import Cases

# Start-up: `perf` never imports numpy, except to group the blocks of a large -blocks input
# (_blocks, GROUP_WITH_NUMPY).

#: a float32 (or int32) column: a kernel Buf, or a bytearray
Buffer = Union[bytearray, "K.Buf"]

EPS = 1e-10
BLOCK_RESERVED = -999999
#: data sets at least this large compute their measures in two threads (the tests set it to 0 to run
#: every case through the threaded path)
PARALLEL_MIN = int(os.environ.get("PERFEVAL_PARALLEL_MIN", "200000"))
ALL_CLASS_0 = "Warning: Precision and Recall not well defined if all cases are class 0.\n"
BIG_TIES = (
    "Warning: There are more than 50000 ties in your prediction, "
    "using pessimistic ordering in Average Precision.\n"
)


def fmt(spec: str, x: float) -> str:
    """C printf of one double, glibc style.  A NaN prints with its sign: the NaNs PERF's arithmetic
    makes are the x86 default NaN, sign bit set (``-nan``); a NaN typed by the user (``-t nan``) is
    positive (``nan``).
    """
    if x != x:
        text = "-nan" if math.copysign(1.0, x) < 0 else "nan"
        width = spec[1:].split(".")[0].rstrip("l")
        return text.rjust(int(width)) if width.isdigit() else text
    return spec.replace("l", "") % x


def f8(x: float) -> str:
    return fmt("%8.5f", x)


def f9(x: float) -> str:
    return fmt("%9.6f", x)


@dataclass
class Out:
    """stdout is collected and written at the end (PERF's stdout is block-buffered); stderr is
    written as it comes (unbuffered).
    """

    err: Callable[[str], object]
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
        #: each printed measure's value, unrounded, by PERF's label (the first threshold section's):
        #: what the ``perf`` dialect of the modern API returns (perfeval.classic.values)
        self.values: dict[str, float] = {}
        #: the order inside ties does not matter to the measures asked (perfeval.classic.values, for
        #: the perf dialect's ORDER_FREE measures): a radix sort instead of PERF's quicksort
        self.any_tie_order = False
        #: only ``values`` is kept (perfeval.classic.values): the work for what is only printed (the
        #: accuracy sweep, the sections at other thresholds, rank measures not asked for) is skipped
        self.values_only = False
        #: each value printed, before rounding, by the label it is printed under (the first time): a
        #: contest's criteria in full precision (perfeval.contest.engine); -loss gives the loss here
        self.printed: dict[str, float] = {}

    def _f8(self, label: str, x: float) -> str:
        """`x` printed by f8 under `label`, and kept unrounded in `printed`."""
        self.printed.setdefault(label, float(x))
        return f8(x)

    # -- reading ------------------------------------------------------------------------------------
    def read_warnings(self, p: Buffer, limit: int) -> None:
        """The once-per-run warnings PERF prints while it reads (SPEC 4.5)."""
        f = self.flags
        a_on = bool(f & {"RMS", "CXE", "CAL", "NRM", "SLQ"})
        b_on = (
            not self.r.threshold_set
            and self.r.percent is None
            and bool(f & {"ACC", "SEN", "SPC", "NPV", "PPV", "PRE", "REC", "PRF"})
        )
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
            self.io.err(
                "Warning: Negative prediction but threshold is at default of %f.\n" % self.r.threshold
            )

    # -- preprocessing ------------------------------------------------------------------------------
    def prepare(self, t: Buffer, p: Buffer) -> DataSet:
        """Binarise the targets, sort with the original's quicksort, form the tie fractions (SPEC 5.1-5.3)."""
        n = len(p) // 4
        status, mean, mn, _mx, T0, T1, all_same, assumed = K.binarise(t)
        if status:
            raise ClassicExit("Error: More than 2 unique target values detected.  Exiting.\n", "stderr", 255)
        if all_same:
            self.io.err(
                "Warning: All targets in block have same value %8.4f. Assuming targets are class %d\n"
                % (mn, assumed)
            )
        self.st.warn_min = self.st.warn_max = 1
        if self.any_tie_order:
            K.sort_by_pred(t, p)
        else:
            K.sort(t, p)
        fr = K.zeros(4 * n)
        K.fractions(t, p, fr)
        return DataSet(t, p, fr, n, T0, T1, bool(all_same), assumed, mean)

    def _pn(self, n: int) -> float:
        """What PERF finds at pred[n]: 0, or in block mode what an earlier, longer block left there."""
        return memoryview(self.st.slots).cast("f")[n] if len(self.st.slots) > 4 * n else 0.0

    def _remember_slots(self, ds: DataSet) -> None:
        if len(self.st.slots) < 4 * ds.n:
            self.st.slots += bytes(4 * ds.n - len(self.st.slots))
        self.st.slots[: 4 * ds.n] = ds.p

    def sweep(self, ds: DataSet) -> bytes:
        """The accuracy/cost sweep (SPEC 5.4); returns the acc or cost plot lines."""
        st, r = self.st, self.r
        plot = {"acc": 1, "cost": 2}.get(r.plot or "", 0)
        st.max_acc_thresh, st.last_acc_thresh, st.max_acc_count, pb = K.acc_sweep(
            ds.t,
            ds.p,
            self._pn(ds.n),
            ds.T0,
            ds.T1,
            *r.cost,
            plot,
            st.max_acc_thresh,
            st.last_acc_thresh,
            st.max_acc_count,
        )
        return pb

    def freq_thresh(self, ds: DataSet) -> float:
        pv = memoryview(ds.p).cast("f")
        pn = self._pn(ds.n)
        at = lambda i: 0.0 if i < 0 else (pv[i] if i < ds.n else pn)  # noqa: E731
        return K.midpoint(at(ds.T0), at(ds.T0 - 1))

    # -- measures that print warnings ---------------------------------------------------------------
    def _range_warnings(self, warns: list) -> None:
        for kind, val in warns:
            side = "larger than 1.0" if kind == 1 else "less than 0.0"
            self.io.err("Warning: Prediction (%10.6f) %s when calculating RMS or CXE\n" % (val, side))

    def rms(self, ds: DataSet, acc: float = 0.0) -> tuple[float, float, list]:
        """(RMS, acc + RMS, range warnings); the once-per-data-set warning flags are updated."""
        st = self.st
        v, acc_out, st.warn_min, st.warn_max, warns = K.rms(ds.t, ds.p, st.warn_min, st.warn_max, acc)
        return v, acc_out, warns

    def apr(
        self, ds: DataSet, plot: bool = False, acc: float = 0.0
    ) -> tuple[float, float, float, list, bytes]:
        """(APR, 1 - APR, acc + APR, warnings, PR plot); APR is 0 with a warning when all are class 0."""
        if ds.all_same and ds.assumed == 0:
            return 0.0, 1.0, K.add_ext(acc, 0.0), [ALL_CLASS_0], b""
        v, loss, acc_out, big, pb = K.apr(ds.p, ds.fr, ds.T1, 1 if plot else 0, acc)
        return v, loss, acc_out, [BIG_TIES] * big, pb

    # -- normal mode --------------------------------------------------------------------------------
    def run_normal(self, cases: Cases) -> None:
        io = self.io
        self.read_warnings(cases.preds, cases.n)
        if cases.longer:
            io.err(
                "Warning: %s values file is longer.\n" % ("True" if cases.longer == "true" else "Predicted")
            )
        ds = self.prepare(cases.targets, cases.preds)
        res: dict = {}
        # Two independent lines of work once the data are sorted: measures of the tie fractions, and
        # measures of targets and predictions in sorted order (CXE rewrites the targets, so SLQ, NRM,
        # RMS, CA1, CA2 keep their order after it).  Results are printed below in PERF's order.
        if ds.n >= PARALLEL_MIN:
            worker = threading.Thread(target=self._fraction_measures, args=(ds, res))
            worker.start()
            try:
                self._target_measures(ds, res)
            finally:
                worker.join()
            if "error" in res:
                raise res["error"]
        else:
            self._fraction_measures(ds, res)
            self._target_measures(ds, res)
        self.report(ds, res)

    def _fraction_measures(self, ds: DataSet, res: dict) -> None:
        try:
            r, f = self.r, self.flags
            if r.plot == "roc" or "SAR" in f or "ROC" in f:
                res["roc"] = K.roc(ds.fr, ds.T0, ds.T1, 1 if r.plot == "roc" else 0)
            if r.plot == "pr" or "APR" in f:
                res["apr"] = self.apr(ds, plot=r.plot == "pr")
            if "R50" in f:
                res["r50"] = K.r50(ds.fr, ds.T0, ds.T1, 50)
            if self.values_only and not f & {"PRB", "TOP1", "TOP10", "RKL", "NTOP"}:
                res["ranks"] = (math.nan,) * 8  # not asked for, and nothing printed is kept
            else:
                res["ranks"] = K.ranks(ds.fr, ds.T0, ds.T1, 1 if ds.all_same else 0, c_int(r.ntop), r.ntop)
            if r.plot == "lift":
                res["lift"] = K.lift_plot(ds.fr, ds.T1)
            if r.percent is not None:
                res["percent"] = K.percent_counts(ds.fr, r.percent, ds.T0, ds.T1)
            if self._cxe_keeps_targets(ds):  # then these do not have to wait for CXE
                self._late_target_measures(ds, res)
        except BaseException as e:  # re-raised by the main thread
            res["error"] = e

    def _cxe_keeps_targets(self, ds: DataSet) -> bool:
        """True when -cxe would rewrite no target (0/1 targets with the raw mean in (0, 1], or no CXE):
        a 0 stays 0 when 0 < mean, a 1 stays 1 when not 1 < mean (SPEC 6.15).
        """
        if "CXE" not in self.flags:
            return True
        return (ds.T0 == 0 or 0.0 < ds.mean_true) and (ds.T1 == 0 or not 1.0 < ds.mean_true)

    def _late_target_measures(self, ds: DataSet, res: dict) -> None:
        """Measures PERF prints after CXE that read no warning state: NRM, CA1, CA2."""
        r, f = self.r, self.flags
        if "NRM" in f:
            res["nrm"] = K.nrm(ds.t, ds.p, r.nrm)
        if "CAL" in f:
            res["ca1"] = K.ca1(ds.t, ds.p)
            res["ca2"] = K.ca2(ds.t, ds.p, r.cal_window)

    def _target_measures(self, ds: DataSet, res: dict) -> None:
        r, f, st = self.r, self.flags, self.st
        if self.values_only:  # only the first section's counts are kept: no sweep, no other threshold
            res["sweep_plot"], res["freq_thresh"] = b"", r.threshold
            res["counts"] = K.confusion(ds.t, ds.p, (r.threshold, r.threshold, r.threshold))
        else:
            res["sweep_plot"] = self.sweep(ds)
            res["freq_thresh"] = ft = self.freq_thresh(ds)
            res["counts"] = K.confusion(ds.t, ds.p, (r.threshold, ft, st.max_acc_thresh))
        if "SAR" in f:
            res["sar_rms"] = self.rms(ds)
        if "SLQ" in f:
            res["slq"] = K.slq(ds.t, ds.p, r.slq_width, r.slq_bins)
        if "CXE" in f:
            v, st.warn_min, st.warn_max, warns = K.cxe(ds.t, ds.p, ds.mean_true, st.warn_min, st.warn_max)
            res["cxe"] = (v, warns)
        if not self._cxe_keeps_targets(ds):
            self._late_target_measures(ds, res)
        if "RMS" in f:
            res["rms"] = self.rms(ds)

    def report(self, ds: DataSet, res: dict) -> None:
        """Print in PERF's order (SPEC 5.7 and 7)."""
        self._start(ds, res)
        self._sections(res)
        self.io.out("".join(self._rank_lines(res) + self._probability_lines(res)))

    def _start(self, ds: DataSet, res: dict) -> None:
        """start_computations: the plots and the warnings of what it computes up front."""
        r, io, st = self.r, self.io, self.st
        io.out(res["sweep_plot"])
        if "roc" in res:
            st.roc_area = res["roc"][0]
            if r.plot == "roc":
                io.out(res["roc"][2])
        if "sar_rms" in res:
            st.rmse = res["sar_rms"][0]
            self._range_warnings(res["sar_rms"][2])
        if r.plot == "pr":
            for w in res["apr"][3]:
                io.err(w)
            io.out(res["apr"][4])
        if r.plot == "lift":
            io.out(res["lift"])
        self.max_lift = K.max_lift(ds.n, ds.T1)
        self._ds = ds

    def _sections(self, res: dict) -> None:
        """The threshold sections: at the threshold (or -percent), at freq_thresh, at max_acc_thresh."""
        r, io, f, st = self.r, self.io, self.flags, self.st
        counts, freq_counts, max_counts = res["counts"]
        if r.percent is not None:
            counts = res["percent"]
        if (r.stats_mode or "ROC" in f) and r.plot in ("roc", "acc"):
            io.out("\n")
        if r.percent is not None:
            self.section(counts, "prc of data", r.percent, "Percent of data")
        else:
            self.section(counts, "pred_thresh", r.threshold, "Threshold")
        if r.stats_mode or r.confusion:
            io.out("\n")
            self.section(freq_counts, "freq_thresh", res["freq_thresh"], "Threshold")
            io.out("\n")
            if st.max_acc_count > 1:
                io.out(
                    "Caution: %d Different Thresholds Achieved Max Accuracy.\n"
                    "Run with -accplot option to see accuracy vs. threshold.\n\n" % st.max_acc_count
                )
            self.section(max_counts, "max_acc_thresh", st.max_acc_thresh, "threshold")
            io.out("\n")

    def _rank_lines(self, res: dict) -> list[str]:
        """PRB, APR, ROC, R50, RKL, TOP1, TOP10, NTOP, in PERF's order (-loss: of the losses)."""
        r, io, f, loss = self.r, self.io, self.flags, self.r.loss
        prb, prb_l, top1, top10, rkl, rkl_l, ntop, ntop_l = res["ranks"]
        self.values.update(PRB=prb, TOP1=top1, TOP10=top10, RKL=float(c_int(rkl)), NTOP=ntop)
        for key, name in (("roc", "ROC"), ("r50", "R50")):
            if key in res:
                self.values[name] = res[key][0]
        if "apr" in res:
            self.values["APR"] = res["apr"][0]
        out = []
        if "PRB" in f:
            out.append("PRB   %s\n" % self._f8("PRB", prb_l if loss else prb))
        if "APR" in f:
            v, v_l, _, warns, _ = res["apr"]
            for w in warns:
                io.err(w)
            out.append("APR   %s\n" % self._f8("APR", v_l if loss else v))
        if "ROC" in f:
            out.append("ROC   %s\n" % self._f8("ROC", res["roc"][1] if loss else res["roc"][0]))
        if "R50" in f:
            out.append("R50   %s\n" % self._f8("R50", res["r50"][1] if loss else res["r50"][0]))
        if "RKL" in f:
            if loss:
                out.append("RKL    %s\n" % self._f8("RKL", rkl_l))
            else:
                self.printed.setdefault("RKL", float(c_int(rkl)))
                out.append("RKL    %d\n" % c_int(rkl))
        if "TOP1" in f:
            out.append("TOP1  %s\n" % self._f8("TOP1", 1.0 - top1 if loss else top1))
        if "TOP10" in f:
            out.append("TOP10 %s\n" % self._f8("TOP10", 1.0 - top10 if loss else top10))
        if "NTOP" in f:
            n = K.c_int_sum(r.ntop, 0.01)
            out.append("NTOP%d  %s\n" % (n, self._f8(f"NTOP{n}", ntop_l if loss else ntop)))
        return out

    def _probability_lines(self, res: dict) -> list[str]:
        """SLQ, CXE, NRM, RMS, CA1 and CA2, in PERF's order (their warnings as they come)."""
        r, f, loss = self.r, self.flags, self.r.loss
        out = []
        for key, name in (("slq", "SLQ"), ("cxe", "CXE"), ("rms", "RMS")):
            if key in res:
                self.values[name] = res[key][0]
        for key, name in (("nrm", "NRM"), ("ca1", "CA1"), ("ca2", "CA2")):
            if key in res:
                self.values[name] = res[key]
        if "SLQ" in f:
            v, v_l = res["slq"]
            out.append("SLQ   %s Bin_Width %s\n" % (self._f8("SLQ", v_l if loss else v), f9(r.slq_width)))
        if "CXE" in f:
            v, warns = res["cxe"]
            self._range_warnings(warns)
            out.append("CXE   %s\n" % self._f8("CXE", v))
        if "NRM" in f:
            out.append("NRM   %s\n" % self._f8("NRM", res["nrm"]))
        if "RMS" in f:
            v, _, warns = res["rms"]
            self._range_warnings(warns)
            out.append("RMS   %s\n" % self._f8("RMS", v))
        if "CAL" in f:
            out.append("CA1   %s 19_0.05_bins\n" % self._f8("CA1", res["ca1"]))
            out.append("CA2   %s Bin_Size %d\n" % (self._f8("CA2", res["ca2"]), r.cal_window))
        return out

    def section(self, counts: tuple, tname: str, tval: float, table_label: str) -> None:
        """One threshold section (SPEC 6.1-6.4)."""
        r, f, st = self.r, self.flags, self.st
        A, B, C, D = counts
        vals = K.stats(
            A,
            B,
            C,
            D,
            self._ds.T0,
            self._ds.T1,
            1 if r.loss else 0,
            self.max_lift,
            *r.sar,
            st.roc_area,
            st.rmse,
            *r.cost,
        )
        lines = []
        first = tname in ("pred_thresh", "prc of data")
        for label, v in zip(STATS, vals, strict=False):  # K.stats returns them in -stats order
            if label in f:
                if first:
                    self.values.setdefault(label, float(v))
                lines.append("%3s   %s   %s %s\n" % (label, self._f8(label, v), tname, f9(tval)))
        if first:
            self.values.setdefault("SAR", float(vals[9]))
            self.values.setdefault("CST", float(vals[10]))
        if "SAR" in f:
            lines.append(
                "SAR   %s   %s %s wacc %s wroc %s wrms %s \n"
                % (self._f8("SAR", vals[9]), tname, f9(tval), f9(r.sar[0]), f9(r.sar[1]), f9(r.sar[2]))
            )
        if "CST" in f:
            lines.append("CST   %s   %s %s\n" % (self._f8("CST", vals[10]), tname, f9(tval)))
        if r.confusion:
            lines.append("\n       Predicted_1  Predicted_0   %s %s\n" % (table_label, f9(tval)))
            lines.append("True_1  %s       %s\n" % (fmt("%6.4f", A), fmt("%6.4f", B)))
            lines.append("True_0  %s       %s\n" % (fmt("%6.4f", C), fmt("%6.4f", D)))
        self.io.out("".join(lines))

    def start_block(self, ds: DataSet) -> None:
        """What start_computations prints for one block: its plot and the plot's warnings."""
        r, io = self.r, self.io
        io.out(self.sweep(ds))
        if r.plot == "roc":
            io.out(K.roc(ds.fr, ds.T0, ds.T1, 1)[2])
        if r.plot == "pr":
            _, _, _, warns, pb = self.apr(ds, plot=True)
            for w in warns:
                io.err(w)
            io.out(pb)
        if r.plot == "lift":
            io.out(K.lift_plot(ds.fr, ds.T1))
        self._remember_slots(ds)

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
            io.err(
                "Warning: %s values file is longer.\n" % ("True" if cases.longer == "true" else "Predicted")
            )
        m_apr = m_rkl = m_rms = m_top1 = 0.0
        blocks = _blocks(cases, ids)
        for t, p in blocks:
            ds = self.prepare(t, p)
            self.start_block(ds)
            _, _, top1, _, rkl, _, _, _ = K.ranks(ds.fr, ds.T0, ds.T1, 1 if ds.all_same else 0, 0, 0.0)
            if "TOP1" in f:
                m_top1 = K.add_ext(m_top1, top1)
            if "APR" in f:
                _, _, m_apr, warns, _ = self.apr(ds, acc=m_apr)
                for w in warns:
                    io.err(w)
            if "RKL" in f:
                m_rkl = K.add_ext(m_rkl, rkl)
            if "RMS" in f:
                _, m_rms, warns = self.rms(ds, acc=m_rms)
                self._range_warnings(warns)
        nb = float(len(blocks))
        for name, flag, total in (
            ("APR", "APR", m_apr),
            ("RKL", "RKL", m_rkl),
            ("RMS", "RMS", m_rms),
            ("TOP1", "TOP1", m_top1),
        ):
            if flag in f:
                io.out(
                    "MEAN_BLOCK_%-4s   %s\n" % (name, self._f8(f"MEAN_BLOCK_{name}", K.div_ext(total, nb)))
                )


GROUP_WITH_NUMPY = 50_000  # rows from which grouping by block id uses numpy (its import costs ~0.05 s)


def _blocks(cases: Cases, ids: memoryview) -> list[tuple[bytearray, bytearray]]:
    """(targets, predictions) of each block, blocks in order of first appearance, rows in input order."""
    n = cases.n
    if n < GROUP_WITH_NUMPY:
        order: dict[int, list[int]] = {}
        for i, b in enumerate(ids.tolist()):
            order.setdefault(b, []).append(i)
        tv = memoryview(cases.targets).cast("f")
        pv = memoryview(cases.preds).cast("f")
        return [
            (
                bytearray(array("f", [tv[i] for i in idx]).tobytes()),
                bytearray(array("f", [pv[i] for i in idx]).tobytes()),
            )
            for idx in order.values()
        ]
    import numpy as np

    assert cases.blocks is not None  # block mode reads a block id per case
    a = np.frombuffer(cases.blocks, np.int32, n)
    cuts = np.flatnonzero(a[1:] != a[:-1]) + 1
    if np.unique(a[np.r_[0, cuts]]).size == cuts.size + 1:  # each block one run of rows: no regrouping
        t = np.frombuffer(cases.targets, np.float32, n)
        p = np.frombuffer(cases.preds, np.float32, n)
        bounds = [0, *cuts.tolist(), n]
        return [
            (bytearray(t[s:e].tobytes()), bytearray(p[s:e].tobytes()))
            for s, e in zip(bounds, bounds[1:], strict=False)
        ]
    _, first, inv = np.unique(a, return_index=True, return_inverse=True)
    place = np.empty_like(first)
    place[np.argsort(first)] = np.arange(first.size)  # each block's place by first appearance
    key = place[inv.reshape(-1)]
    rows = np.argsort(key, kind="stable")  # stable: rows keep their input order inside a block
    t = np.frombuffer(cases.targets, np.float32, n)[rows]
    p = np.frombuffer(cases.preds, np.float32, n)[rows]
    ends = np.cumsum(np.bincount(key, minlength=first.size)).tolist()
    starts = [0, *ends[:-1]]
    return [
        (bytearray(t[s:e].tobytes()), bytearray(p[s:e].tobytes())) for s, e in zip(starts, ends, strict=False)
    ]
