/*
 * perfeval._x87 -- the compiled kernels of the classic dialect.
 *
 * Why C and not numpy: the classic `perf` command must print what PERF 5.12 printed, and PERF 5.12
 * computed in x87 80-bit extended precision, rounding to 64-bit doubles only at particular points
 * (see tests/golden/SPEC.md, section 11.2).  Reproducing that needs a running recurrence per
 * case (for example `area = dbl(area + ext_expr)`), which numpy cannot vectorise and a Python loop
 * runs at a few million steps a second.  On x86-64 Linux `long double` *is* the x87 format, so each
 * kernel states its arithmetic with `ext` (long double) where the original kept a value in an
 * 80-bit register and with `double` where it stored it.  The kernels also hold the two hot paths of
 * the command: reading numbers (correctly rounded straight to float32, as C's strtof does) and the
 * original's Hoare quicksort, whose arrangement inside ties decides several printed values.
 *
 * Every function works on buffers handed in by the Python layer (bytearray / array / memoryview of
 * float32 or int32); nothing here keeps state between calls except the log-factorial table and the
 * caches named where they are defined.
 *
 * This code is perfeval's own, written from the behaviour spec; it contains no code of PERF.
 *
 * The files of this directory (one extension module, perfeval._x87):
 *   native.h    this header: what crosses files, every such name prefixed nv_
 *   module.c    the method table and the module's init, nothing else
 *   buffers.c   scratch memory (nv_big_alloc), the Buf type, plot-line buffers, argument marshalling
 *   text.c      reading numbers: the tokenizer, float32 reading, parse / parse_fd / parse_table
 *   sort.c      the original's Hoare quicksort, step for step
 *   classic.c   the classic measures in x87 80-bit arithmetic (ROC, APR, RMS, CA1, ...)
 *   summary.c   modern float64 kernels over summaries (histograms, runs, tie tables, disc_sums)
 *   resample.c  the bootstrap's draws, the fused replicate walk, the jackknife, DeLong's components
 *   contest.c   the competition scorer's id join, token comparison and plain-file reading
 *   trec.c      TREC qrels and runs read in one pass: ids dictionary-encoded, numbers, line errors
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
/* a Buf for a kernel's result, which lives as long as the caller's arrays: unmapped when freed,
 * never kept (a dropped report leaves no memory behind) */
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
int nv_args_same_len(nv_args *in, int from, int to);
int nv_args_fail(nv_args *in, PyObject *exc, const char *msg);
void nv_args_release(nv_args *in);

PyObject *nv_release_cache(PyObject *self, PyObject *noargs);
PyObject *nv_keep_heap(PyObject *self, PyObject *noargs);
PyObject *nv_cache_limit(PyObject *self, PyObject *args);
PyObject *nv_zeros(PyObject *self, PyObject *args);
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

/* ---- summary.c ------------------------------------------------------------------------------- */
PyObject *nv_hist_apr(PyObject *self, PyObject *args);
PyObject *nv_hist_apr_groups(PyObject *self, PyObject *args);
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

/* ---- contest.c ------------------------------------------------------------------------------- */
PyObject *nv_join_ids(PyObject *self, PyObject *args);
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
