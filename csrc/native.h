/*
 * perfeval._native -- perfeval's compiled kernels, one extension module for the whole package: the
 * classic `perf` command's (PERF 5.12's x87 80-bit arithmetic, its reader and its quicksort) and the
 * modern engine's (float64 sums over summaries, group and query orders, the bootstrap's walk and
 * DeLong's components, the CSV/TSV, TREC and competition readers).
 *
 * Why C and not numpy, for the classic command: it must print what PERF 5.12 printed, and PERF 5.12
 * computed in x87 80-bit extended precision, rounding to 64-bit doubles only at particular points
 * (see tests/golden/SPEC.md, section 11.2).  Reproducing that needs a running recurrence per
 * case (for example `area = dbl(area + ext_expr)`), which numpy cannot vectorise and a Python loop
 * runs at a few million steps a second.  On x86-64 Linux `long double` *is* the x87 format, so each
 * kernel states its arithmetic with `ext` (long double) where the original kept a value in an
 * 80-bit register and with `double` where it stored it.  The kernels also hold the two hot paths of
 * the command: reading numbers (correctly rounded straight to float32, as C's strtof does) and the
 * original's Hoare quicksort, whose arrangement inside ties decides several printed values.  For
 * the modern kernels: one pass without the n-sized temporaries a numpy expression needs, in an
 * order whose float64 bits match the numpy expression they replace, often on two threads (each
 * file's header says why its kernels are C).
 *
 * Every function works on buffers handed in by the Python layer (bytearray / array / memoryview /
 * numpy arrays); nothing here keeps state between calls except the log-factorial table and the
 * caches named where they are defined.
 *
 * This code is perfeval's own, written from the behaviour spec; it contains no code of PERF.
 *
 * The files of this directory, csrc/ (one extension module, perfeval._native, built by setup.py):
 *   native.h    this header: what crosses files, every such name prefixed nv_
 *   module.c    the method table and the module's init, nothing else
 *   buffers.c   scratch memory (nv_big_alloc), the Buf type, plot-line buffers, argument marshalling
 *   text.c      reading numbers: the tokenizer, float32 reading, parse / parse_fd / parse_table
 *   sort.c      the sorts that replay another program's order: PERF's Hoare quicksort step for
 *               step, numba's argsort (ranx), trec_eval's order of ties by document id
 *   introsort.h the kernels' own sort of exact keys, included by summary.c once per record type
 *   classic.c   the classic measures in x87 80-bit arithmetic (ROC, APR, RMS, CA1, ...)
 *   summary.c   modern float64 kernels over summaries (histograms, runs, tie tables, disc_sums)
 *   classes.c   the multiclass summary's kernels: its blocks, its pairs, its binary histograms
 *   calibration.c  the calibration measures' per-group walks: PAV recalibration, weight below a cell,
 *               the Brier score's parts, the logistic recalibration's Newton fits (its pass: calib_pass.h)
 *   weighted.c  the summary of weighted cases: a stable radix sort of the scores, each score's weights
 *               added in row order
 *   operating.c  the operating points of one summary in one pass: the point a rule picks, partial AUC
 *   exactcmp.h  whether an operating point meets its target exactly (exact sums of float64 weights
 *               against the target's decimal), included by operating.c and resample.c
 *   resample.c  the bootstrap's draws, the fused replicate walk, the jackknife, DeLong's components
 *   contest.c   the competition scorer's id join, token comparison and plain-file reading
 *   trec.c      TREC qrels and runs read in one pass: ids dictionary-encoded, numbers, line errors
 *   exact.c     exact sums of float64 products (the regression summary's), a Python integer a group,
 *               or each group's means, R2 and explained variance rounded once from them; rows
 *               counted into their groups
 * Everything not declared here is static to its file.
 */
#ifndef PERFEVAL_NATIVE_H
#define PERFEVAL_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef long double ext; /* x87 80-bit extended on x86-64 Linux */

#define EPS 1e-10
/* release the GIL around a kernel's loop (no block scope, unlike Py_BEGIN_ALLOW_THREADS) */
#define NOGIL_BEGIN PyThreadState *_nogil_ts = PyEval_SaveThread();
#define NOGIL_END PyEval_RestoreThread(_nogil_ts);

/* ---- buffers.c ------------------------------------------------------------------------------- */

/* a growing byte buffer of plot lines */
typedef struct {
    char *buf;
    size_t len, cap;
} nv_outbuf;

int nv_ob_line2(nv_outbuf *o, const char *fmt, double x, double y);
PyObject *nv_ob_finish(nv_outbuf *o);

/* large scratch buffers (anonymous mappings, the last two freed ones kept); free with the same size */
void *nv_big_alloc(size_t bytes);
void nv_big_free(void *q, size_t bytes);

/* Buf: a writable byte buffer in nv_big_alloc memory, exported with the buffer protocol (the kernels
 * and memoryview(...).cast("f") read it like a bytearray). */
typedef struct {
    PyObject_HEAD char *data;
    Py_ssize_t len;
    Py_ssize_t cap; /* bytes allocated (len may be less) */
    Py_ssize_t exports;
    int keep; /* freed into the kept mappings (scratch read again soon), else unmapped */
} nv_BufObject;

extern PyTypeObject nv_BufType;
PyObject *nv_buf_new_cap(Py_ssize_t len, Py_ssize_t cap);
/* The bytes of freed mappings kept for the next call beyond a call's end: a result's mapping when
 * it dies is kept only within them, and evaluate() trims the kept ones to them when it returns
 * (release_cache(NV_RETAIN)), so that the next evaluation of about the same size finds its pages
 * mapped (a fresh page costs a fault and the kernel's zeroing: a third of group_hist_rows' time
 * over 1M rows), while a process that is done keeps no more than this. */
#define NV_RETAIN ((size_t)64 << 20)
/* a Buf for a kernel's result, which lives as long as the caller's arrays: when freed, kept only
 * within NV_RETAIN (see above), else unmapped */
PyObject *nv_buf_result(Py_ssize_t len);

/* Argument marshalling: the buffers of one kernel call, taken one by one with nv_arg (which releases
 * them all on an error) and released together with nv_args_release.  Start from `nv_args in = {0};`. */
enum {
    NV_F32 = 1, /* float32 column, raw bytes (PyBUF_SIMPLE): a whole number of 4-byte values, else ValueError */
    NV_F64 = 2, /* typed float64 array (C-contiguous, format "d"), else TypeError */
    NV_RAW8 = 3, /* raw bytes read as 8-byte items (int64 or float64), as the "y*" format reads them */
    NV_RAW1 = 4, /* raw bytes, 1-byte items (text, uint8 classes) */
    NV_KIND_MASK = 0xff,
    NV_WRITABLE = 0x100,
    NV_OPTIONAL = 0x200, /* NULL or None gives an absent buffer: buf NULL, length 0, matches any length */
};
#define NV_MAXARGS 8
typedef struct {
    Py_buffer v[NV_MAXARGS];
    Py_ssize_t n[NV_MAXARGS]; /* whole items */
    Py_ssize_t isz[NV_MAXARGS];
    char held[NV_MAXARGS];
    int count;
} nv_args;

int nv_arg(nv_args *in, PyObject *obj, int kind);
int nv_len_eq(const nv_args *in, int i, int j);
/* per-group bounds: ascending offsets into `cells` entries ending at them; G groups or -1 (summary.c) */
Py_ssize_t nv_group_bounds(nv_args *in, const int64_t *bounds, Py_ssize_t nb, Py_ssize_t cells, const char *who);
/* (sc, pos, neg, bounds, groups) of group_totals and fit_why taken into `in` and checked; len(groups)
 * or -1 with the error set (the message starting with `who`) and `in` released (summary.c) */
Py_ssize_t nv_chosen_groups(nv_args *in, PyObject *args, const char *who);
/* the joint fit's reason of one group from its cells lo .. hi - 1 (fit_why, calibration.c, says the
 * codes): shared by fit_why and group_totals(..., True), which read the same cells */
static inline int64_t nv_fit_why_code(const double *sc, const double *pos, const double *neg, int64_t lo, int64_t hi)
{
    Py_ssize_t live = 0, first = -1;
    double hi_neg = -INFINITY, lo_neg = INFINITY, hi_pos = -INFINITY, lo_pos = INFINITY;
    for (int64_t i = lo; i < hi; i++) {
        const double p = pos[i], n = neg[i], s = sc[i];
        if (p + n > 0)
            first = live++ ? first : (Py_ssize_t)i;
        if (n > 0) /* numpy's maximum and minimum: a NaN stays */
            hi_neg = s > hi_neg || s != s ? s : hi_neg, lo_neg = s < lo_neg || s != s ? s : lo_neg;
        if (p > 0)
            hi_pos = s > hi_pos || s != s ? s : hi_pos, lo_pos = s < lo_pos || s != s ? s : lo_pos;
    }
    return live == 1 ? (int64_t)first : (lo_pos >= hi_neg || hi_pos <= lo_neg) ? -2 : -1;
}
int nv_args_same_len(nv_args *in, int from, int to);
int nv_args_fail(nv_args *in, PyObject *exc, const char *msg);
void nv_args_release(nv_args *in);

PyObject *nv_release_cache(PyObject *self, PyObject *args);
PyObject *nv_cache_bytes(PyObject *self, PyObject *noargs);
PyObject *nv_keep_heap(PyObject *self, PyObject *noargs);
PyObject *nv_cache_limit(PyObject *self, PyObject *args);
PyObject *nv_zeros(PyObject *self, PyObject *args);
PyObject *nv_empty(PyObject *self, PyObject *args);
PyObject *nv_copy(PyObject *self, PyObject *args);

/* ---- text.c ---------------------------------------------------------------------------------- */
PyObject *nv_parse(PyObject *self, PyObject *args);
PyObject *nv_parse_fd(PyObject *self, PyObject *args);
PyObject *nv_parse_table(PyObject *self, PyObject *args);
PyObject *nv_fast_csv_ok(PyObject *self, PyObject *args);
PyObject *nv_parse_delimited(PyObject *self, PyObject *args);

/* ---- sort.c ---------------------------------------------------------------------------------- */
PyObject *nv_sort(PyObject *self, PyObject *args);
PyObject *nv_sort_by_pred(PyObject *self, PyObject *args);
PyObject *nv_numba_argsort(PyObject *self, PyObject *args);
PyObject *nv_ties_by_id(PyObject *self, PyObject *args);
PyObject *nv_roc_input_ties(PyObject *self, PyObject *args);
PyObject *nv_roc_input_hash(PyObject *self, PyObject *args);

/* ---- classic.c ------------------------------------------------------------------------------- */
PyObject *nv_binarise(PyObject *self, PyObject *args);
PyObject *nv_fractions(PyObject *self, PyObject *args);
PyObject *nv_acc_sweep(PyObject *self, PyObject *args);
PyObject *nv_confusion(PyObject *self, PyObject *args);
PyObject *nv_percent_counts(PyObject *self, PyObject *args);
PyObject *nv_roc(PyObject *self, PyObject *args);
PyObject *nv_r50(PyObject *self, PyObject *args);
PyObject *nv_lift_plot(PyObject *self, PyObject *args);
PyObject *nv_apr(PyObject *self, PyObject *args);
PyObject *nv_ranks(PyObject *self, PyObject *args);
PyObject *nv_slq(PyObject *self, PyObject *args);
PyObject *nv_rms(PyObject *self, PyObject *args);
PyObject *nv_cxe(PyObject *self, PyObject *args);
PyObject *nv_nrm(PyObject *self, PyObject *args);
PyObject *nv_ca1(PyObject *self, PyObject *args);
PyObject *nv_ca2(PyObject *self, PyObject *args);
PyObject *nv_stats(PyObject *self, PyObject *args);
PyObject *nv_div_ext(PyObject *self, PyObject *args);
PyObject *nv_add_ext(PyObject *self, PyObject *args);
PyObject *nv_midpoint(PyObject *self, PyObject *args);
PyObject *nv_c_int_sum(PyObject *self, PyObject *args);
PyObject *nv_range_scan(PyObject *self, PyObject *args);
PyObject *nv_max_lift(PyObject *self, PyObject *args);
PyObject *nv_mantissa_bits(PyObject *self, PyObject *noargs); /* test-only */

/* ---- classes.c ------------------------------------------------------------------------------- */
PyObject *nv_class_blocks(PyObject *self, PyObject *args);
PyObject *nv_class_pairs(PyObject *self, PyObject *args);
PyObject *nv_class_hist(PyObject *self, PyObject *args);
PyObject *nv_class_tables(PyObject *self, PyObject *args);
PyObject *nv_class_walk(PyObject *self, PyObject *args);
PyObject *nv_class_group_auc(PyObject *self, PyObject *args);

/* ---- weighted.c ------------------------------------------------------------------------------ */
PyObject *nv_hist_weighted(PyObject *self, PyObject *args);

/* ---- calibration.c --------------------------------------------------------------------------- */
PyObject *nv_group_pav(PyObject *self, PyObject *args);
PyObject *nv_group_below(PyObject *self, PyObject *args);
PyObject *nv_group_bin_sums(PyObject *self, PyObject *args);
PyObject *nv_bin_sums_split(PyObject *self, PyObject *args);
PyObject *nv_ece_of_bins(PyObject *self, PyObject *args);
PyObject *nv_group_ece(PyObject *self, PyObject *args);
PyObject *nv_brier_cells(PyObject *self, PyObject *args);
PyObject *nv_brier_split(PyObject *self, PyObject *args);
PyObject *nv_fit_cells(PyObject *self, PyObject *args);
PyObject *nv_logit_fit(PyObject *self, PyObject *args);
PyObject *nv_logit_fit_classes(PyObject *self, PyObject *args);
PyObject *nv_fit_why(PyObject *self, PyObject *args);
PyObject *nv_class_runs(PyObject *self, PyObject *args);
PyObject *nv_cal_target(PyObject *self, PyObject *args); /* test-only */

/* ---- operating.c --------------------------------------------------------------------------- */
PyObject *nv_op_pick(PyObject *self, PyObject *args);
PyObject *nv_op_pauc(PyObject *self, PyObject *args);
PyObject *nv_op_pick_groups(PyObject *self, PyObject *args);
PyObject *nv_op_pauc_groups(PyObject *self, PyObject *args);

/* ---- summary.c ------------------------------------------------------------------------------- */
PyObject *nv_hist_apr(PyObject *self, PyObject *args);
PyObject *nv_hist_apr_groups(PyObject *self, PyObject *args);
PyObject *nv_hist_ap_groups(PyObject *self, PyObject *args);
PyObject *nv_cells_hist(PyObject *self, PyObject *args);
PyObject *nv_hist_ca2(PyObject *self, PyObject *args);
double nv_apr_total(const double *pos, const double *neg, Py_ssize_t lo, Py_ssize_t hi); /* resample.c too */
double nv_ca2_total(const double *sc, const double *pos, const double *neg, Py_ssize_t groups, long long S);
PyObject *nv_expected_rr(PyObject *self, PyObject *args);
PyObject *nv_disc_sums(PyObject *self, PyObject *args);
PyObject *nv_runs(PyObject *self, PyObject *args);
PyObject *nv_tie_table(PyObject *self, PyObject *args);
PyObject *nv_query_order(PyObject *self, PyObject *args);
PyObject *nv_hist_sum(PyObject *self, PyObject *args);
PyObject *nv_hist_merge(PyObject *self, PyObject *args);
PyObject *nv_split_sum(PyObject *self, PyObject *args);
PyObject *nv_group_codes_int64(PyObject *self, PyObject *args);
PyObject *nv_group_auc_rows(PyObject *self, PyObject *args);
PyObject *nv_tie_table_rows(PyObject *self, PyObject *args);
PyObject *nv_group_hist_rows(PyObject *self, PyObject *args);
PyObject *nv_group_totals(PyObject *self, PyObject *args);
PyObject *nv_score_order(PyObject *self, PyObject *args);
PyObject *nv_hist_tie_groups(PyObject *self, PyObject *args);
PyObject *nv_hist_auc_groups(PyObject *self, PyObject *args);
PyObject *nv_hist_groups(PyObject *self, PyObject *args);
PyObject *nv_split_classes(PyObject *self, PyObject *args);
PyObject *nv_hist_merge_inplace(PyObject *self, PyObject *args);

/* ---- resample.c ------------------------------------------------------------------------------ */
void nv_walk_init(void); /* once, from the module's init */
PyObject *nv_walk_target(PyObject *self, PyObject *args); /* test-only */
PyObject *nv_boot_hist_multi(PyObject *self, PyObject *args);
PyObject *nv_boot_rows_multi(PyObject *self, PyObject *args);
PyObject *nv_boot_hist_draws(PyObject *self, PyObject *args);
PyObject *nv_poisson_rows(PyObject *self, PyObject *args);
PyObject *nv_jack_multi(PyObject *self, PyObject *args);
PyObject *nv_rep_finish(PyObject *self, PyObject *args);
PyObject *nv_delong_hist(PyObject *self, PyObject *args);
PyObject *nv_delong_rows(PyObject *self, PyObject *args);

/* ---- exact.c --------------------------------------------------------------------------------- */
PyObject *nv_exact_sums(PyObject *self, PyObject *args);
PyObject *nv_group_order(PyObject *self, PyObject *args);
PyObject *nv_regression_sums(PyObject *self, PyObject *args);
PyObject *nv_divide_ints(PyObject *self, PyObject *args);

#define APR_M2 (1.0 / 12)
#define APR_M4 (1.0 / 240)
#define APR_M6 (1.0 / 1344)
#define APR_M8 (1.0 / 11520)
#define APR_M10 (1.0 / 33792)
/* M2 + M4 y2 + M6 y2^2 + ... with M2k the 2k-th moments of the offsets -h..h of a group of g (gg = g^2) */
#define APR_ODD(g, gg, y2)                                                                                        \
    ((g) * ((g)-1) * ((g) + 1) *                                                                                  \
     (APR_M2 + (y2) * ((3 * (gg)-7) * APR_M4 +                                                                    \
                       (y2) * (((3 * (gg)-18) * (gg) + 31) * APR_M6 +                                             \
                               (y2) * ((((5 * (gg)-55) * (gg) + 239) * (gg)-381) * APR_M8 +                        \
                                       (y2) * ((gg)-5) * ((((3 * (gg)-37) * (gg) + 225) * (gg)-511) * APR_M10))))))


/* APR's sums over one tie group of g cases, m of them positive, under a cases of which b are positive
 * (s1 = sum_j 1/(a + j), s2 = sum_j (j - 1)/(a + j), j = 1..g): summed case by case up to
 * APR_LOOP_MAX cases (summary.c, resample.c); a larger group (a weight of millions of cases, up to
 * 1e308) from closed forms, apr_big: the same numbers to about 1e-15, in constant time (the sum of
 * 1e16 terms ran for hours, and one of more than 2^63 cases cast to a negative count and gave 0). */
#define APR_LOOP_MAX 67108864.0 /* 2^26 */

/* t(z) = ln z - psi(z), for z >= 32: 1/(2z) + 1/(12 z^2) - 1/(120 z^4) + 1/(252 z^6) - 1/(240 z^8)
 * + 1/(132 z^10) (the next term, 691/(32760 z^12), is below 2e-20) */
static inline double apr_psi_tail(double z)
{
    double r = 1.0 / z, r2 = r * r;
    return r * 0.5 + r2 * (1.0 / 12 - r2 * (1.0 / 120 - r2 * (1.0 / 252 - r2 * (1.0 / 240 - r2 / 132))));
}

static inline double apr_big(double m, double g, double a, double b)
{
    double s1, s2;
    if (a >= 16 * g) { /* resample.c's expansion about the group's middle, in u = g/x, v = 1/x (no g^3) */
        double x = a + (g + 1) / 2, h = (g - 1) / 2, u = g / x, v = 1.0 / x, u2 = u * u, v2 = v * v;
        double odd =
            (u2 - v2) *
            (APR_M2 + (3 * u2 - 7 * v2) * APR_M4 + ((3 * u2 - 18 * v2) * u2 + 31 * v2 * v2) * APR_M6 +
             (((5 * u2 - 55 * v2) * u2 + 239 * v2 * v2) * u2 - 381 * v2 * v2 * v2) * APR_M8 +
             (u2 - 5 * v2) * (((3 * u2 - 37 * v2) * u2 + 225 * v2 * v2) * u2 - 511 * v2 * v2 * v2) * APR_M10);
        s1 = u * (1 + odd); /* = y (g + y^2 APR_ODD) */
        s2 = h * s1 - g * odd;
    } else { /* s1 = psi(a + g + 1) - psi(a + 1), its first terms summed up to 32; s2 = g - (a + 1) s1 */
        double x = a + 1.0, k = 0.0;
        s1 = 0.0;
        for (; x < 32.0; x += 1.0, k += 1.0)
            s1 += 1.0 / x;
        double rest = g - k;
        s1 += log1p(rest / x) + apr_psi_tail(x) - apr_psi_tail(x + rest);
        s2 = g - (a + 1.0) * s1;
    }
    return m / g * ((b + 1.0) * s1 + (m - 1.0) / (g - 1.0) * s2);
}

/* ---- contest.c ------------------------------------------------------------------------------- */
PyObject *nv_join_ids(PyObject *self, PyObject *args);
PyObject *nv_lookup_ids(PyObject *self, PyObject *args);
PyObject *nv_same_tokens(PyObject *self, PyObject *args);
PyObject *nv_plain_tokens(PyObject *self, PyObject *args);

/* ---- text.c: perfeval's number grammar, shared with trec.c ------------------------------------- */
int nv_number(const char *s, Py_ssize_t len, double *out);

/* ---- trec.c ---------------------------------------------------------------------------------- */
PyObject *nv_trec_read(PyObject *self, PyObject *args);
PyObject *nv_trec_duplicate(PyObject *self, PyObject *args);
PyObject *nv_vocab_map(PyObject *self, PyObject *args);
PyObject *nv_trec_join(PyObject *self, PyObject *args);

#endif
