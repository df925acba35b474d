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

/* ---- the rows in ascending score order ------------------------------------------------------- */

/* a score as a key whose unsigned order is its ascending order, every bit kept (-0.0 just below 0.0,
 * which is equal: any order of equal scores is an ascending order), and back */
static inline uint64_t o_key(double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ULL);
}

static inline double o_score(uint64_t k)
{
    uint64_t b = (k >> 63) ? (k & 0x7FFFFFFFFFFFFFFFULL) : ~k;
    double x;
    memcpy(&x, &b, 8);
    return x;
}

/* the keys of the scores s sorted stably with their rows (LSD radix, w_radix's passes; a pass whose
 * digit is the same in every key skipped), the first pass read from s: the keys and rows end in
 * (ka, ra) or in (kb, rb): returned 0 or 1 */
static int o_radix(const double *s, uint64_t *ka, uint32_t *ra, uint64_t *kb, uint32_t *rb, Py_ssize_t n,
                   int64_t (*cnt)[W_DIG])
{
    memset(cnt, 0, sizeof(int64_t) * W_PASSES * W_DIG);
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t k = o_key(s[i]);
        for (int p = 0; p < W_PASSES; p++)
            cnt[p][(k >> (p * W_BITS)) & (W_DIG - 1)]++;
    }
    uint64_t *kf = ka, *kt = kb;
    uint32_t *rf = ra, *rt = rb;
    int from_s = 1, in_b = 0;
    for (int p = 0; p < W_PASSES; p++) {
        int64_t *c = cnt[p];
        if (n == 0 || c[(o_key(s[0]) >> (p * W_BITS)) & (W_DIG - 1)] == n)
            continue; /* one digit: the order stays */
        int64_t at = 0;
        for (int d = 0; d < W_DIG; d++) {
            int64_t m = c[d];
            c[d] = at;
            at += m;
        }
        int sh = p * W_BITS;
        if (from_s) {
            for (Py_ssize_t i = 0; i < n; i++) {
                uint64_t k = o_key(s[i]);
                int64_t e = c[(k >> sh) & (W_DIG - 1)]++;
                kt[e] = k;
                rt[e] = (uint32_t)i;
            }
            from_s = 0;
        } else {
            for (Py_ssize_t i = 0; i < n; i++) {
                uint64_t k = kf[i];
                int64_t e = c[(k >> sh) & (W_DIG - 1)]++;
                kt[e] = k;
                rt[e] = rf[i];
            }
        }
        uint64_t *tk = kf;
        uint32_t *tr = rf;
        kf = kt, rf = rt, kt = tk, rt = tr;
        in_b = !in_b;
    }
    if (from_s) /* every key alike (one score): the rows as they are */
        for (Py_ssize_t i = 0; i < n; i++)
            ka[i] = o_key(s[i]), ra[i] = (uint32_t)i;
    return in_b;
}

/* score_order(scores) -> (order uint32, sorted float64): the rows in ascending score order (scores
 * float64 without NaN, fewer than 2**32 rows; equal scores in row order: a stable LSD radix sort of
 * the scores' bits) and the scores in that order, each with its bits (-0.0 stays -0.0, just before
 * the 0.0s).  Why C: the slices' one sort of 10M rows (perfeval/api/slices.py in_score_order) was
 * query_order's sort of one query, about a second of CPU, and then the scores taken in its order (a
 * gather of random reads); here 4-byte rows travel with the keys, and the sorted keys are made the
 * scores where they lie. */
PyObject *nv_score_order(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so;
    if (!PyArg_ParseTuple(args, "O", &so))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0)
        return NULL;
    const double *s = in.v[0].buf;
    Py_ssize_t n = in.n[0];
    if ((uint64_t)n >= ((uint64_t)1 << 32)) {
        nv_args_fail(&in, PyExc_ValueError, "score_order: 2**32 rows or more");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (isnan(s[i])) {
            nv_args_fail(&in, PyExc_ValueError, "score_order: a NaN score");
            return NULL;
        }
    PyObject *keys[2] = {nv_buf_result(n * 8), nv_buf_result(n * 8)}, *rows[2] = {nv_buf_result(n * 4), nv_buf_result(n * 4)};
    int64_t(*cnt)[W_DIG] = malloc(sizeof(int64_t) * W_PASSES * W_DIG);
    int ok = keys[0] && keys[1] && rows[0] && rows[1] && cnt, in_b = 0;
    if (ok) {
        uint64_t *k[2];
        uint32_t *r[2];
        for (int h = 0; h < 2; h++) {
            k[h] = (uint64_t *)((nv_BufObject *)keys[h])->data;
            r[h] = (uint32_t *)((nv_BufObject *)rows[h])->data;
        }
        NOGIL_BEGIN
        in_b = o_radix(s, k[0], r[0], k[1], r[1], n, cnt);
        double *sorted = (double *)k[in_b];
        for (Py_ssize_t i = 0; i < n; i++)
            sorted[i] = o_score(k[in_b][i]);
        NOGIL_END
    }
    free(cnt);
    nv_args_release(&in);
    if (!ok) {
        for (int h = 0; h < 2; h++)
            Py_XDECREF(keys[h]), Py_XDECREF(rows[h]);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    Py_DECREF(keys[!in_b]);
    Py_DECREF(rows[!in_b]);
    return Py_BuildValue("(NN)", rows[in_b], keys[in_b]);
}
