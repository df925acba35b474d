/*
 * classes.c -- the kernels of the multiclass summary (perfeval.summaries.classes.ClassSummary).
 *
 * Why C: the summary holds, for every score column j and true class c, the distinct scores of column j
 * among the cases of class c, ascending, with their weights (K * K blocks).  numpy builds them with
 * one sort a block (K * K calls after one gather a class) and reads them with a binary search a
 * column and a stable argsort a histogram (one-vs-rest, micro): several times the cost of sorting
 * the K columns once.  Here each column is sorted once (a stable LSD radix sort of the scores' bits,
 * O(n)) and walked with K cursors, one a class, the columns on two threads; the sums are made in
 * the order of the numpy expressions they replace (each function says which), so the numbers are
 * the same bits.
 */
#include "native.h"

#include <string.h>

/* the order-preserving unsigned key of a double (no NaN here); -0.0 and 0.0 one key, as 0.0 */
static inline uint64_t cl_key(double v)
{
    v = v + 0.0;
    uint64_t u;
    memcpy(&u, &v, 8);
    return (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
}

static inline double cl_val(uint64_t k)
{
    uint64_t u = (k >> 63) ? (k & 0x7fffffffffffffffULL) : ~k;
    double v;
    memcpy(&v, &u, 8);
    return v;
}

#define CL_MAXHIST (6 * 2048) /* the counts of every pass: 6 of 11 bits, or 8 of 8 */

/* Stable LSD radix sort of (key, payload) by key: the sorted data end in *k / *p (the buffers are
 * swapped as the passes go).  Passes where every key has the same digit are skipped. */
#define CL_RADIX(NAME, PTYPE, BITS, PASSES)                                                                           \
    static void NAME(uint64_t **k, PTYPE **p, uint64_t **k2, PTYPE **p2, size_t n, size_t *hist)        \
    {                                                                                                   \
        if (n < 2)                                                                                      \
            return;                                                                                     \
        const size_t CL_BUCKETS = (size_t)1 << (BITS);                                                 \
        memset(hist, 0, sizeof(size_t) * CL_MAXHIST);                                       \
        const uint64_t *kk = *k;                                                                        \
        for (size_t i = 0; i < n; i++) {                                                                \
            uint64_t x = kk[i];                                                                         \
            for (int q = 0; q < (PASSES); q++)                                                         \
                hist[q * CL_BUCKETS + ((x >> (q * (BITS))) & (CL_BUCKETS - 1))]++;                     \
        }                                                                                               \
        for (int q = 0; q < (PASSES); q++) {                                                           \
            size_t *h = hist + q * CL_BUCKETS;                                                          \
            int shift = q * (BITS);                                                                    \
            if (h[((*k)[0] >> shift) & (CL_BUCKETS - 1)] == n)                                          \
                continue; /* one digit for all: the pass would move nothing */                          \
            size_t sum = 0;                                                                             \
            for (int b = 0; b < CL_BUCKETS; b++) {                                                      \
                size_t c = h[b];                                                                        \
                h[b] = sum;                                                                             \
                sum += c;                                                                               \
            }                                                                                           \
            const uint64_t *sk = *k;                                                                    \
            uint64_t *dk = *k2;                                                                         \
            if (p) {                                                                                    \
                const PTYPE *sp = *p;                                                                   \
                PTYPE *dp = *p2;                                                                        \
                for (size_t i = 0; i < n; i++) {                                                        \
                    size_t at = h[(sk[i] >> shift) & (CL_BUCKETS - 1)]++;                               \
                    dk[at] = sk[i];                                                                     \
                    dp[at] = sp[i];                                                                     \
                }                                                                                       \
                PTYPE *tp = *p;                                                                         \
                *p = *p2;                                                                               \
                *p2 = tp;                                                                               \
            } else                                                                                      \
                for (size_t i = 0; i < n; i++)                                                          \
                    dk[h[(sk[i] >> shift) & (CL_BUCKETS - 1)]++] = sk[i];                               \
            uint64_t *tk = *k;                                                                          \
            *k = *k2;                                                                                   \
            *k2 = tk;                                                                                   \
        }                                                                                               \
    }
CL_RADIX(cl_radix, uint32_t, 8, 8)
CL_RADIX(cl_radix_w, double, 8, 8)   /* one class's rows: fewer buckets */

/* ---- class_blocks ----------------------------------------------------------------------------- */

typedef struct {
    const uint32_t *perm; /* the rows grouped by class, in row order within a class */
    const double *s, *w;
    Py_ssize_t n, K;
    int aggregate;
    const int64_t *cstart; /* K + 1: where each class's rows start in perm */
    double *out_s, *out_w; /* column j's blocks written from j * n, block c from j * n + cstart[c] */
    int64_t *sizes;        /* K * K: each block's cells */
    Py_ssize_t j0, j1;
    int failed;
} blocks_job;

static void *blocks_run(void *arg)
{
    blocks_job *b = arg;
    Py_ssize_t n = b->n, K = b->K;
    size_t big = 1; /* scratch for one class's rows: the largest class */
    for (Py_ssize_t c = 0; c < K; c++)
        if ((size_t)(b->cstart[c + 1] - b->cstart[c]) > big)
            big = (size_t)(b->cstart[c + 1] - b->cstart[c]);
    uint64_t *k1 = malloc(big * 8), *k2 = malloc(big * 8);
    double *p1 = b->w ? malloc(big * 8) : NULL, *p2 = b->w ? malloc(big * 8) : NULL;
    size_t *hist = malloc(sizeof(size_t) * CL_MAXHIST);
    if (!k1 || !k2 || !hist || (b->w && (!p1 || !p2))) {
        b->failed = 1;
        goto done;
    }
    for (Py_ssize_t j = b->j0; j < b->j1; j++) {
        const double *col = b->s + j;
        for (Py_ssize_t c = 0; c < K; c++) {
            int64_t a = b->cstart[c], m = b->cstart[c + 1] - a;
            /* the class's scores of column j in row order, sorted stably: a tie's rows in row order */
            uint64_t *k = k1, *kb = k2;
            double *p = p1, *pb = p2;
            for (int64_t t = 0; t < m; t++)
                k[t] = cl_key(col[(size_t)b->perm[a + t] * K]);
            if (p)
                for (int64_t t = 0; t < m; t++)
                    p[t] = b->w[b->perm[a + t]];
            cl_radix_w(&k, p ? &p : NULL, &kb, p ? &pb : NULL, (size_t)m, hist);
            /* a cell's weight summed left to right, as np.bincount and the fold add them */
            double *os = b->out_s + j * n + a, *ow = b->out_w + j * n + a;
            int64_t r = -1;
            for (int64_t t = 0; t < m; t++) {
                double wt = p ? p[t] : 1.0;
                if (b->aggregate && r >= 0 && k[t] == k[t - 1]) {
                    ow[r] += wt;
                } else {
                    r++;
                    os[r] = cl_val(k[t]);
                    ow[r] = wt;
                }
            }
            b->sizes[j * K + c] = r + 1;
        }
    }
done:
    free(k1);
    free(k2);
    free(p1);
    free(p2);
    free(hist);
    return NULL;
}

/* class_blocks(y, s, w, K, aggregate) -> (offsets, scores, weights): the K * K blocks of rows with
 * class codes y (int64, 0..K-1), scores s (n * K float64, row-major) and weights w (float64, or None:
 * each row 1).  aggregate: each block's equal scores one cell (their weights added in row order);
 * else a cell a row (a block's ties in row order).  None when n >= 2**32. */
PyObject *nv_class_blocks(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *yo, *so, *wo;
    Py_ssize_t K;
    int aggregate;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOnp", &yo, &so, &wo, &K, &aggregate) || nv_arg(&in, yo, NV_RAW8) < 0 ||
        nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, wo, NV_RAW8 | NV_OPTIONAL) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    if (K < 1 || in.n[1] != n * K || (in.v[2].buf && in.n[2] != n))
        return nv_args_fail(&in, PyExc_ValueError, "class_blocks: y, s (n * K) and w disagree"), NULL;
    if ((uint64_t)n >= ((uint64_t)1 << 32)) {
        nv_args_release(&in);
        Py_RETURN_NONE;
    }
    const int64_t *y = in.v[0].buf;
    for (Py_ssize_t i = 0; i < n; i++)
        if (y[i] < 0 || y[i] >= K)
            return nv_args_fail(&in, PyExc_ValueError, "class_blocks: a class code outside 0..K-1"), NULL;
    PyObject *off = PyByteArray_FromStringAndSize(NULL, (K * K + 1) * 8);
    PyObject *sc = PyByteArray_FromStringAndSize(NULL, n * K * 8);
    PyObject *wt = PyByteArray_FromStringAndSize(NULL, n * K * 8);
    int64_t *cstart = calloc((size_t)K + 1, 8), *sizes = malloc((size_t)K * K * 8), *cur = malloc((size_t)K * 8);
    uint32_t *perm = malloc((size_t)(n ? n : 1) * 4);
    if (!off || !sc || !wt || !cstart || !sizes || !cur || !perm) {
        free(cur);
        free(perm);
        Py_XDECREF(off);
        Py_XDECREF(sc);
        Py_XDECREF(wt);
        free(cstart);
        free(sizes);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    int64_t *offsets = (int64_t *)PyByteArray_AS_STRING(off);
    double *os = (double *)PyByteArray_AS_STRING(sc), *ow = (double *)PyByteArray_AS_STRING(wt);
    int failed = 0;
    NOGIL_BEGIN
    for (Py_ssize_t i = 0; i < n; i++)
        cstart[y[i] + 1]++;
    for (Py_ssize_t c = 0; c < K; c++)
        cstart[c + 1] += cstart[c];
    for (Py_ssize_t c = 0; c < K; c++)
        cur[c] = cstart[c];
    for (Py_ssize_t i = 0; i < n; i++)
        perm[cur[y[i]]++] = (uint32_t)i;
    Py_ssize_t mid = K / 2;
    blocks_job jobs[2] = {
        {perm, in.v[1].buf, in.v[2].buf, n, K, aggregate, cstart, os, ow, sizes, 0, mid, 0},
        {perm, in.v[1].buf, in.v[2].buf, n, K, aggregate, cstart, os, ow, sizes, mid, K, 0},
    };
    pthread_t th;
    int threaded = (double)n * K > 200000 && mid > 0 && pthread_create(&th, NULL, blocks_run, &jobs[1]) == 0;
    blocks_run(&jobs[0]);
    if (threaded)
        pthread_join(th, NULL);
    else
        blocks_run(&jobs[1]);
    failed = jobs[0].failed || jobs[1].failed;
    if (!failed) {
        /* the blocks moved down to their places, in order: a block's place is never after its
         * source, and never reaches the next block's source */
        offsets[0] = 0;
        for (Py_ssize_t j = 0; j < K; j++)
            for (Py_ssize_t c = 0; c < K; c++) {
                Py_ssize_t b = j * K + c, src = j * n + cstart[c], len = sizes[b];
                if (len && offsets[b] != src) {
                    memmove(os + offsets[b], os + src, (size_t)len * 8);
                    memmove(ow + offsets[b], ow + src, (size_t)len * 8);
                }
                offsets[b + 1] = offsets[b] + len;
            }
    }
    NOGIL_END
    free(cstart);
    free(sizes);
    free(cur);
    free(perm);
    nv_args_release(&in);
    if (failed || PyByteArray_Resize(sc, offsets[K * K] * 8) < 0 || PyByteArray_Resize(wt, offsets[K * K] * 8) < 0) {
        Py_DECREF(off);
        Py_DECREF(sc);
        Py_DECREF(wt);
        return failed ? PyErr_NoMemory() : NULL;
    }
    return Py_BuildValue("(NNN)", off, sc, wt);
}

/* ---- class_pairs ------------------------------------------------------------------------------ */

typedef struct {
    const int64_t *off;
    const double *s, *w;
    Py_ssize_t K;
    double *u;
    Py_ssize_t j0, j1;
    int failed;
} pairs_job;

static void *pairs_run(void *arg)
{
    pairs_job *b = arg;
    Py_ssize_t K = b->K;
    for (Py_ssize_t j = b->j0; j < b->j1; j++) {
        double *row = b->u + j * K;
        for (Py_ssize_t c = 0; c < K; c++)
            row[c] = 0.0;
        int64_t pa = b->off[j * K + j], m = b->off[j * K + j + 1] - pa;
        if (!m)
            continue;
        const double *ps = b->s + pa, *pw = b->w + pa;
        double *cum = malloc((size_t)(m + 1) * 8);
        if (!cum) {
            b->failed = 1;
            return NULL;
        }
        cum[0] = 0.0; /* np.concatenate(([0.0], np.cumsum(pw))): sums left to right */
        for (int64_t i = 0; i < m; i++)
            cum[i + 1] = cum[i] + pw[i];
        double total = cum[m];
        for (Py_ssize_t c = 0; c < K; c++) {
            int64_t a = b->off[j * K + c], e = b->off[j * K + c + 1];
            int64_t lo = 0;
            int search = (e - a) * 16 < m; /* a small block: binary search, else one merge walk */
            double acc = 0.0;              /* np.bincount: the cells' terms added in their order */
            for (int64_t i = a; i < e; i++) {
                double x = b->s[i];
                if (search) {
                    int64_t l = lo, r = m;
                    while (l < r) {
                        int64_t h = l + (r - l) / 2;
                        if (ps[h] < x)
                            l = h + 1;
                        else
                            r = h;
                    }
                    lo = l;
                } else
                    while (lo < m && ps[lo] < x)
                        lo++;
                int64_t hi = lo < m && ps[lo] == x ? lo + 1 : lo; /* the block's scores are distinct */
                double above = total - cum[hi], tied = cum[hi] - cum[lo];
                acc += b->w[i] * (above + 0.5 * tied);
            }
            row[c] = c == j ? 0.0 : acc;
        }
        free(cum);
    }
    return NULL;
}

/* class_pairs(offsets, scores, weights, K) -> U (K * K float64): ClassSummary.pairs()'s numbers bit
 * for bit (each column's class block's cumulative weights, every cell of the column located in it). */
PyObject *nv_class_pairs(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *oo, *so, *wo;
    Py_ssize_t K;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOn", &oo, &so, &wo, &K) || nv_arg(&in, oo, NV_RAW8) < 0 ||
        nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, wo, NV_RAW8) < 0)
        return NULL;
    const int64_t *off = in.v[0].buf;
    if (K < 1 || in.n[0] != K * K + 1 || in.n[1] != in.n[2] || off[K * K] != in.n[1])
        return nv_args_fail(&in, PyExc_ValueError, "class_pairs: offsets, scores and weights disagree"), NULL;
    PyObject *uo = PyByteArray_FromStringAndSize(NULL, K * K * 8);
    if (!uo) {
        nv_args_release(&in);
        return NULL;
    }
    double *u = (double *)PyByteArray_AS_STRING(uo);
    NOGIL_BEGIN
    Py_ssize_t mid = 0; /* two threads, the columns split at the middle cell */
    while (mid < K && off[(mid + 1) * K] <= off[K * K] / 2)
        mid++;
    pairs_job jobs[2] = {{off, in.v[1].buf, in.v[2].buf, K, u, 0, mid, 0}, {off, in.v[1].buf, in.v[2].buf, K, u, mid, K, 0}};
    pthread_t th;
    int threaded = off[K * K] > 100000 && mid > 0 && mid < K && pthread_create(&th, NULL, pairs_run, &jobs[1]) == 0;
    pairs_run(&jobs[0]);
    if (threaded)
        pthread_join(th, NULL);
    else
        pairs_run(&jobs[1]);
    NOGIL_END
    nv_args_release(&in);
    if (jobs[0].failed || jobs[1].failed) {
        Py_DECREF(uo);
        return PyErr_NoMemory();
    }
    return uo;
}

/* ---- class_hist ------------------------------------------------------------------------------- */

/* class_hist(offsets, scores, weights, K, j) -> (scores, pos, neg): the binary histogram of column j's
 * cells, the positives class j's block (j >= 0), or of every cell, the positives the blocks of each
 * class in its own column (j < 0: micro).  The cells sorted stably by score (ties in the order of the
 * blocks), each distinct score's positive and negative weights added in that order: the numbers of
 * np.bincount over numpy's stable argsort, bit for bit.  None past 2**31 cells. */
PyObject *nv_class_hist(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *oo, *so, *wo;
    Py_ssize_t K, j;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOnn", &oo, &so, &wo, &K, &j) || nv_arg(&in, oo, NV_RAW8) < 0 ||
        nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, wo, NV_RAW8) < 0)
        return NULL;
    const int64_t *off = in.v[0].buf;
    if (K < 1 || j >= K || in.n[0] != K * K + 1 || in.n[1] != in.n[2] || off[K * K] != in.n[1])
        return nv_args_fail(&in, PyExc_ValueError, "class_hist: offsets, scores and weights disagree"), NULL;
    int64_t a = j >= 0 ? off[j * K] : 0, e = j >= 0 ? off[(j + 1) * K] : off[K * K];
    size_t n = (size_t)(e - a);
    if (n >= ((size_t)1 << 31)) {
        nv_args_release(&in);
        Py_RETURN_NONE;
    }
    const double *s = in.v[1].buf, *w = in.v[2].buf;
    uint64_t *k1 = malloc((n ? n : 1) * 8), *k2 = malloc((n ? n : 1) * 8);
    uint32_t *p1 = malloc((n ? n : 1) * 4), *p2 = malloc((n ? n : 1) * 4);
    size_t *hist = malloc(sizeof(size_t) * CL_MAXHIST);
    PyObject *vo = NULL, *po = NULL, *no = NULL;
    if (!k1 || !k2 || !p1 || !p2 || !hist)
        goto nomem;
    const uint32_t POS = (uint32_t)1 << 31;
    NOGIL_BEGIN
    /* the payload: the cell (from a), its top bit set for a positive */
    for (Py_ssize_t b = j >= 0 ? j * K : 0; b < (j >= 0 ? (j + 1) * K : K * K); b++) {
        int positive = j >= 0 ? b == j * K + j : b / K == b % K;
        for (int64_t i = off[b]; i < off[b + 1]; i++) {
            k1[i - a] = cl_key(s[i]);
            p1[i - a] = (uint32_t)(i - a) | (positive ? POS : 0);
        }
    }
    uint64_t *k = k1, *kb = k2;
    uint32_t *p = p1, *pb = p2;
    cl_radix(&k, &p, &kb, &pb, n, hist);
    NOGIL_END
    {
        size_t m = 0;
        for (size_t t = 0; t < n; t++)
            m += t == 0 || k[t] != k[t - 1];
        vo = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)m * 8);
        po = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)m * 8);
        no = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)m * 8);
        if (!vo || !po || !no)
            goto nomem;
        double *ov = (double *)PyByteArray_AS_STRING(vo), *op = (double *)PyByteArray_AS_STRING(po),
               *on = (double *)PyByteArray_AS_STRING(no);
        Py_BEGIN_ALLOW_THREADS
        int64_t r = -1;
        for (size_t t = 0; t < n; t++) {
            if (t == 0 || k[t] != k[t - 1]) {
                r++;
                ov[r] = cl_val(k[t]);
                op[r] = 0.0;
                on[r] = 0.0;
            }
            double x = w[a + (p[t] & (POS - 1))];
            if (p[t] & POS) { /* np.where(pp, ww, 0.0) and its mirror, added in order */
                op[r] += x;
                on[r] += 0.0;
            } else {
                op[r] += 0.0;
                on[r] += x;
            }
        }
        Py_END_ALLOW_THREADS
    }
    free(k1);
    free(k2);
    free(p1);
    free(p2);
    free(hist);
    nv_args_release(&in);
    return Py_BuildValue("(NNN)", vo, po, no);
nomem:
    free(k1);
    free(k2);
    free(p1);
    free(p2);
    free(hist);
    Py_XDECREF(vo);
    Py_XDECREF(po);
    Py_XDECREF(no);
    nv_args_release(&in);
    return PyErr_NoMemory();
}

/* ---- class_tables ----------------------------------------------------------------------------- */

/* numpy's pairwise sum (summary.c's np_pairwise): s.sum(axis=1) of a C-contiguous matrix sums each
 * row so, and a row's sum decides whether it is a probability vector */
static double cl_pairwise(const double *a, Py_ssize_t n)
{
    if (n < 8) {
        double res = 0.;
        for (Py_ssize_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8], res;
        Py_ssize_t i;
        for (int j = 0; j < 8; j++)
            r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += a[i + j];
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    return cl_pairwise(a, n2) + cl_pairwise(a + n2, n - n2);
}

/* class_tables(y, s, w, K, confusion, topk, tolerance) -> (bad, first_bad): adds the rows to the
 * confusion of the argmax (a tie at the maximum shares the row's weight, w / ties, among the tied
 * classes) and to the top-k table (topk[above * K + tied] += w), in place, row by row in row order
 * (np.bincount's order: the same bits); counts the rows that are no probability vector (a score
 * outside [0, 1], or numpy's row sum off 1 by more than tolerance) and gives the first one (-1). */
PyObject *nv_class_tables(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *yo, *so, *wo, *co, *to;
    Py_ssize_t K;
    double tol;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOnOOd", &yo, &so, &wo, &K, &co, &to, &tol) || nv_arg(&in, yo, NV_RAW8) < 0 ||
        nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, wo, NV_RAW8 | NV_OPTIONAL) < 0 ||
        nv_arg(&in, co, NV_RAW8 | NV_WRITABLE) < 0 || nv_arg(&in, to, NV_RAW8 | NV_WRITABLE) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    if (K < 1 || in.n[1] != n * K || (in.v[2].buf && in.n[2] != n) || in.n[3] != K * K || in.n[4] != K * K)
        return nv_args_fail(&in, PyExc_ValueError, "class_tables: y, s, w and the tables disagree"), NULL;
    const int64_t *y = in.v[0].buf;
    for (Py_ssize_t i = 0; i < n; i++)
        if (y[i] < 0 || y[i] >= K)
            return nv_args_fail(&in, PyExc_ValueError, "class_tables: a class code outside 0..K-1"), NULL;
    const double *s = in.v[1].buf, *w = in.v[2].buf;
    double *conf = in.v[3].buf, *topk = in.v[4].buf;
    Py_ssize_t bad = 0, first = -1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *r = s + i * K;
        double top = r[0], lo = r[0], t = r[y[i]];
        for (Py_ssize_t c = 1; c < K; c++) {
            if (r[c] > top)
                top = r[c];
            if (r[c] < lo)
                lo = r[c];
        }
        Py_ssize_t ties = 0, above = 0, tied = -1;
        for (Py_ssize_t c = 0; c < K; c++) {
            ties += r[c] == top;
            above += r[c] > t;
            tied += r[c] == t;
        }
        double wt = w ? w[i] : 1.0, share = wt / (double)ties;
        for (Py_ssize_t c = 0; c < K; c++)
            if (r[c] == top)
                conf[y[i] * K + c] += share;
        topk[above * K + tied] += wt;
        if (lo < 0 || top > 1 || fabs(cl_pairwise(r, K) - 1.0) > tol) {
            if (!bad)
                first = i;
            bad++;
        }
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    return Py_BuildValue("(nn)", bad, first);
}

/* ---- class_group_auc -------------------------------------------------------------------------- */

typedef struct {
    uint64_t key;
    uint32_t pos;
} cgrec;

#define SORT(name) cgrec_##name
#define SORT_T cgrec
#define SORT_KEY(x) ((x).key)
#include "introsort.h"

typedef struct {
    const int64_t *y, *starts;
    const uint32_t *perm;
    const double *s;
    Py_ssize_t K;
    int64_t g0, g1;
    double *wins, *P; /* G * K, a row a group */
    int failed;
} cgauc_job;

static void *cgauc_run(void *arg)
{
    cgauc_job *b = arg;
    Py_ssize_t K = b->K, big = 1;
    for (int64_t g = b->g0; g < b->g1; g++)
        if (b->starts[g + 1] - b->starts[g] > big)
            big = b->starts[g + 1] - b->starts[g];
    cgrec *r = malloc((size_t)big * sizeof(cgrec));
    double *loc = malloc((size_t)big * K * 8); /* the group's rows, gathered once for every column */
    int64_t *ly = malloc((size_t)big * 8);
    if (!r || !loc || !ly) {
        free(r);
        free(loc);
        free(ly);
        b->failed = 1;
        return NULL;
    }
    for (int64_t g = b->g0; g < b->g1; g++) {
        Py_ssize_t a = b->starts[g], n = b->starts[g + 1] - a;
        for (Py_ssize_t t = 0; t < n; t++) {
            uint32_t row = b->perm[a + t];
            memcpy(loc + t * K, b->s + (size_t)row * K, (size_t)K * 8);
            ly[t] = b->y[row];
        }
        for (Py_ssize_t j = 0; j < K; j++) {
            double P = 0;
            for (Py_ssize_t t = 0; t < n; t++) {
                r[t].key = cl_key(loc[t * K + j]);
                r[t].pos = ly[t] == j;
                P += (double)r[t].pos;
            }
            if (n > 1)
                cgrec_sort(r, n, 2 * (64 - __builtin_clzll((unsigned long long)n)));
            /* ascending: each tie's positives over the negatives below it, and half the tied ones;
             * every term a whole or half number, exact in any order */
            double wins = 0, neg_below = 0;
            for (Py_ssize_t t = 0; t < n;) {
                Py_ssize_t e = t;
                double m = 0, q = 0;
                while (e < n && r[e].key == r[t].key) {
                    m += (double)r[e].pos;
                    q += (double)(1 - r[e].pos);
                    e++;
                }
                wins += m * (neg_below + 0.5 * q);
                neg_below += q;
                t = e;
            }
            b->wins[g * K + j] = wins;
            b->P[g * K + j] = P;
        }
    }
    free(r);
    free(loc);
    free(ly);
    return NULL;
}

/* class_group_auc(codes, y, s, K, G) -> (wins, P): for every group (codes int64 0..G-1) and class j
 * (y int64 0..K-1), the Mann-Whitney sum of class j against the rest of the group in column j of s
 * (n * K float64; ties half), and the group's cases of class j: G * K float64 each, a row a group.
 * The rows counted into their groups once for every column (group_auc_rows' numbers, one column at
 * a time, without K passes over the rows); the groups on two threads. */
PyObject *nv_class_group_auc(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *co, *yo, *so;
    Py_ssize_t K, G;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOnn", &co, &yo, &so, &K, &G) || nv_arg(&in, co, NV_RAW8) < 0 ||
        nv_arg(&in, yo, NV_RAW8) < 0 || nv_arg(&in, so, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const int64_t *codes = in.v[0].buf, *y = in.v[1].buf;
    if (K < 1 || G < 0 || in.n[1] != n || in.n[2] != n * K)
        return nv_args_fail(&in, PyExc_ValueError, "class_group_auc: codes, y and s (n * K) disagree"), NULL;
    if ((uint64_t)n >= ((uint64_t)1 << 32)) {
        nv_args_release(&in);
        Py_RETURN_NONE;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (codes[i] < 0 || codes[i] >= G || y[i] < 0 || y[i] >= K)
            return nv_args_fail(&in, PyExc_ValueError, "class_group_auc: a group or class code out of range"), NULL;
    PyObject *wo = PyByteArray_FromStringAndSize(NULL, G * K * 8), *po = PyByteArray_FromStringAndSize(NULL, G * K * 8);
    int64_t *starts = calloc((size_t)G + 2, 8), *cur = malloc((size_t)(G > 0 ? G : 1) * 8);
    uint32_t *perm = malloc((size_t)(n > 0 ? n : 1) * 4);
    if (!wo || !po || !starts || !cur || !perm) {
        Py_XDECREF(wo);
        Py_XDECREF(po);
        free(starts);
        free(cur);
        free(perm);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    double *wins = (double *)PyByteArray_AS_STRING(wo), *P = (double *)PyByteArray_AS_STRING(po);
    int failed = 0;
    NOGIL_BEGIN
    for (Py_ssize_t i = 0; i < n; i++)
        starts[codes[i] + 1]++;
    for (Py_ssize_t g = 0; g < G; g++) {
        starts[g + 1] += starts[g];
        cur[g] = starts[g];
    }
    for (Py_ssize_t i = 0; i < n; i++)
        perm[cur[codes[i]]++] = (uint32_t)i;
    int64_t mid = 0; /* the groups split over two threads at the middle row */
    while (mid < G && starts[mid] < n / 2)
        mid++;
    cgauc_job jobs[2] = {{y, starts, perm, in.v[2].buf, K, 0, mid, wins, P, 0},
                         {y, starts, perm, in.v[2].buf, K, mid, G, wins, P, 0}};
    pthread_t th;
    int threaded = n > 100000 && G > 1 && pthread_create(&th, NULL, cgauc_run, &jobs[1]) == 0;
    cgauc_run(&jobs[0]);
    if (threaded)
        pthread_join(th, NULL);
    else
        cgauc_run(&jobs[1]);
    failed = jobs[0].failed || jobs[1].failed;
    NOGIL_END
    free(starts);
    free(cur);
    free(perm);
    nv_args_release(&in);
    if (failed) {
        Py_DECREF(wo);
        Py_DECREF(po);
        return PyErr_NoMemory();
    }
    return Py_BuildValue("(NN)", wo, po);
}
