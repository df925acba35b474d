/*
 * perfeval._native, weighted.c: the summary of weighted cases (ScoreHistogram.from_checked with
 * weights): every distinct score with the weight of its positives and of its negatives, each added
 * in row order from 0.0, the order numpy's np.bincount adds them in and the one the fold of a
 * stream, a Metric and Dask keep (perfeval/summaries/histogram.py, folded).
 *
 * Why C: numpy found each row's distinct score by np.searchsorted into the sorted distinct scores,
 * a binary search of random reads a row (16 s of CPU for 10M distinct scores, where the summary of
 * unit cases takes under a second).  Here the rows are put in score order by a stable LSD radix sort
 * of their scores' keys carrying each row's weight (its sign the class), so that a score's rows stay
 * in row order, and each run of equal keys is summed in that order: np.bincount's sums, bit for bit.
 */
#include "native.h"

/* a score as a key whose unsigned order is its ascending order; -0.0 is made 0.0 first */
static inline uint64_t w_key(double x)
{
    uint64_t b;
    x += 0.0;
    memcpy(&b, &x, 8);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ULL);
}

static inline double w_score(uint64_t k)
{
    uint64_t b = (k >> 63) ? (k & 0x7FFFFFFFFFFFFFFFULL) : ~k;
    double x;
    memcpy(&x, &b, 8);
    return x;
}

typedef struct {
    uint64_t key;
    double w; /* the row's weight, negated for a negative (every weight is > 0) */
} wrec;

#define W_BITS 11
#define W_DIG (1 << W_BITS)
#define W_PASSES 6 /* 6 * 11 >= 64 */

/* the records sorted by key, stably (LSD radix, W_BITS a pass; a pass whose digit is the same in
 * every key is skipped); the result in a or in b: returned */
static wrec *w_radix(wrec *a, wrec *b, Py_ssize_t n, int64_t (*cnt)[W_DIG])
{
    memset(cnt, 0, sizeof(int64_t) * W_PASSES * W_DIG);
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t k = a[i].key;
        for (int p = 0; p < W_PASSES; p++)
            cnt[p][(k >> (p * W_BITS)) & (W_DIG - 1)]++;
    }
    for (int p = 0; p < W_PASSES; p++) {
        int64_t *c = cnt[p];
        if (n == 0 || c[(a[0].key >> (p * W_BITS)) & (W_DIG - 1)] == n)
            continue; /* one digit: the order stays */
        int64_t at = 0;
        for (int d = 0; d < W_DIG; d++) {
            int64_t m = c[d];
            c[d] = at;
            at += m;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            b[c[(a[i].key >> (p * W_BITS)) & (W_DIG - 1)]++] = a[i];
        wrec *t = a;
        a = b, b = t;
    }
    return a;
}

/* hist_weighted(scores, positive, weights) -> (scores, pos, neg) float64 bytearrays: the summary of
 * the cases (scores float64 without NaN, positive uint8, weights float64 all > 0): its distinct
 * scores ascending (-0.0 as 0.0) and at each the positives' weight and the negatives' weight, each
 * added in row order from 0.0 (np.bincount over each row's distinct score of w * positive and of
 * w - w * positive: the same bits). */
PyObject *nv_hist_weighted(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *wo;
    if (!PyArg_ParseTuple(args, "OOO", &so, &po, &wo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_RAW1) < 0 || nv_arg(&in, wo, NV_F64) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "hist_weighted: scores, classes and weights differ in length");
        return NULL;
    }
    const double *s = in.v[0].buf, *w = in.v[2].buf;
    const uint8_t *pos = in.v[1].buf;
    Py_ssize_t n = in.n[0];
    for (Py_ssize_t i = 0; i < n; i++)
        if (!(w[i] > 0) || isnan(s[i])) {
            nv_args_fail(&in, PyExc_ValueError, "hist_weighted: a weight not > 0 or a NaN score");
            return NULL;
        }
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(wrec);
    wrec *a = nv_big_alloc(bytes), *b = nv_big_alloc(bytes);
    int64_t(*cnt)[W_DIG] = malloc(sizeof(int64_t) * W_PASSES * W_DIG);
    PyObject *out[3] = {0};
    int ok = a && b && cnt;
    for (int k = 0; ok && k < 3; k++)
        ok = (out[k] = nv_buf_result(n * 8)) != NULL;
    Py_ssize_t m = 0;
    if (ok) {
        double *sc = (double *)((nv_BufObject *)out[0])->data, *ps = (double *)((nv_BufObject *)out[1])->data,
               *ns = (double *)((nv_BufObject *)out[2])->data;
        NOGIL_BEGIN
        for (Py_ssize_t i = 0; i < n; i++)
            a[i] = (wrec){w_key(s[i]), pos[i] ? w[i] : -w[i]};
        wrec *r = w_radix(a, b, n, cnt);
        for (Py_ssize_t i = 0; i < n;) {
            uint64_t k = r[i].key;
            double p = 0.0, q = 0.0;
            for (; i < n && r[i].key == k; i++) {
                double v = r[i].w;
                if (v > 0)
                    p += v;
                else
                    q += -v;
            }
            sc[m] = w_score(k), ps[m] = p, ns[m] = q, m++;
        }
        NOGIL_END
    }
    nv_big_free(a, bytes);
    nv_big_free(b, bytes);
    free(cnt);
    nv_args_release(&in);
    if (!ok) {
        for (int k = 0; k < 3; k++)
            Py_XDECREF(out[k]);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    for (int k = 0; k < 3; k++)
        ((nv_BufObject *)out[k])->len = m * 8;
    return Py_BuildValue("(NNN)", out[0], out[1], out[2]);
}
