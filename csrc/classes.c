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
            for (size_t b = 0; b < CL_BUCKETS; b++) {                                                   \
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

/* the slot of key in the ascending keys[0..m) (present) */
static Py_ssize_t cl_slot(const int64_t *keys, Py_ssize_t m, int64_t key)
{
    Py_ssize_t l = 0, r = m;
    while (l < r) {
        Py_ssize_t h = l + (r - l) / 2;
        if (keys[h] < key)
            l = h + 1;
        else
            r = h;
    }
    return l;
}

/* class_tables(y, s, w, K, sure, topk, keys, rows, tolerance) -> (bad, first_bad, keys', rows'): adds
 * the rows to the argmax tables of a multiclass summary and to its top-k table, row by row in row
 * order (np.bincount's order: the same bits).  A row whose maximum is one class's adds its weight to
 * sure[y * K + argmax]; a row whose maximum ties t >= 2 classes adds its whole weight (not w / t) to
 * each tied class's entry of the row of key t * K + y of the tie table (keys: int64 ascending, one a
 * (t, true class) present; rows: one K-vector a key): unweighted, every entry is a whole number, the
 * same in any order of the rows or of merges, and the expected confusion divides by t when it is read.
 * keys' and rows' are the tie table with this batch's keys added (bytearrays), or None when no row
 * of the batch ties (the table unchanged).  topk[above * K + tied] += w in place.  Counts the rows
 * that are no probability vector (a score outside [0, 1], or numpy's row sum off 1 by more than
 * tolerance) and gives the first one (-1). */
PyObject *nv_class_tables(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *yo, *so, *wo, *co, *to, *ko, *ro;
    Py_ssize_t K;
    double tol;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOnOOOOd", &yo, &so, &wo, &K, &co, &to, &ko, &ro, &tol) ||
        nv_arg(&in, yo, NV_RAW8) < 0 || nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, wo, NV_RAW8 | NV_OPTIONAL) < 0 ||
        nv_arg(&in, co, NV_RAW8 | NV_WRITABLE) < 0 || nv_arg(&in, to, NV_RAW8 | NV_WRITABLE) < 0 ||
        nv_arg(&in, ko, NV_RAW8) < 0 || nv_arg(&in, ro, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t n = in.n[0], m0 = in.n[5];
    if (K < 1 || in.n[1] != n * K || (in.v[2].buf && in.n[2] != n) || in.n[3] != K * K || in.n[4] != K * K ||
        in.n[6] != m0 * K)
        return nv_args_fail(&in, PyExc_ValueError, "class_tables: y, s, w and the tables disagree"), NULL;
    const int64_t *y = in.v[0].buf, *keys0 = in.v[5].buf;
    for (Py_ssize_t i = 0; i < n; i++)
        if (y[i] < 0 || y[i] >= K)
            return nv_args_fail(&in, PyExc_ValueError, "class_tables: a class code outside 0..K-1"), NULL;
    for (Py_ssize_t i = 0; i < m0; i++)
        if (keys0[i] < 2 * K || keys0[i] >= (K + 1) * K || (i && keys0[i] <= keys0[i - 1]))
            return nv_args_fail(&in, PyExc_ValueError, "class_tables: the tie keys are not ascending keys t * K + y"),
                   NULL;
    const double *s = in.v[1].buf, *w = in.v[2].buf, *rows0 = in.v[6].buf;
    double *sure = in.v[3].buf, *topk = in.v[4].buf;
    Py_ssize_t bad = 0, first = -1, ntied = 0, captied = 0;
    size_t nbits = (size_t)(K + 1) * (size_t)K, nwords = (nbits + 63) / 64;
    uint64_t *present = NULL; /* a bit a key t * K + y: the keys of this batch and of the table */
    Py_ssize_t *tied_rows = NULL;
    int nomem = 0;
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
        Py_ssize_t ties = 0, above = 0, tied = -1, arg = 0;
        for (Py_ssize_t c = 0; c < K; c++) {
            if (r[c] == top) {
                ties++;
                arg = c;
            }
            above += r[c] > t;
            tied += r[c] == t;
        }
        double wt = w ? w[i] : 1.0;
        if (ties == 1)
            sure[y[i] * K + arg] += wt;
        else if (!nomem) {
            if (!present && !(present = calloc(nwords, 8)))
                nomem = 1;
            if (ntied == captied) {
                Py_ssize_t cap = captied ? 2 * captied : 1024;
                Py_ssize_t *grown = realloc(tied_rows, (size_t)cap * sizeof(Py_ssize_t));
                if (!grown)
                    nomem = 1;
                else {
                    tied_rows = grown;
                    captied = cap;
                }
            }
            if (!nomem) {
                size_t key = (size_t)ties * K + (size_t)y[i];
                present[key >> 6] |= (uint64_t)1 << (key & 63);
                tied_rows[ntied++] = i;
            }
        }
        topk[above * K + tied] += wt;
        if (lo < 0 || top > 1 || fabs(cl_pairwise(r, K) - 1.0) > tol) {
            if (!bad)
                first = i;
            bad++;
        }
    }
    Py_END_ALLOW_THREADS
    if (nomem) {
        free(present);
        free(tied_rows);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    if (!ntied) {
        nv_args_release(&in);
        return Py_BuildValue("(nnOO)", bad, first, Py_None, Py_None);
    }
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < m0; i++)
        present[(size_t)keys0[i] >> 6] |= (uint64_t)1 << ((size_t)keys0[i] & 63);
    for (size_t q = 0; q < nwords; q++)
        m += __builtin_popcountll(present[q]);
    PyObject *kout = PyByteArray_FromStringAndSize(NULL, m * 8), *rout = PyByteArray_FromStringAndSize(NULL, m * K * 8);
    if (!kout || !rout) {
        Py_XDECREF(kout);
        Py_XDECREF(rout);
        free(present);
        free(tied_rows);
        nv_args_release(&in);
        return NULL;
    }
    int64_t *keys = (int64_t *)PyByteArray_AS_STRING(kout);
    double *rows = (double *)PyByteArray_AS_STRING(rout);
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t at = 0;
    for (size_t q = 0; q < nwords; q++)
        for (uint64_t bits = present[q]; bits; bits &= bits - 1)
            keys[at++] = (int64_t)(q * 64 + (size_t)__builtin_ctzll(bits));
    memset(rows, 0, (size_t)m * K * 8);
    for (Py_ssize_t i = 0; i < m0; i++) /* the table's rows first, then the batch's in row order */
        memcpy(rows + cl_slot(keys, m, keys0[i]) * K, rows0 + i * K, (size_t)K * 8);
    for (Py_ssize_t u = 0; u < ntied; u++) {
        Py_ssize_t i = tied_rows[u];
        const double *r = s + i * K;
        double top = r[0];
        Py_ssize_t ties = 0;
        for (Py_ssize_t c = 1; c < K; c++)
            if (r[c] > top)
                top = r[c];
        for (Py_ssize_t c = 0; c < K; c++)
            ties += r[c] == top;
        double wt = w ? w[i] : 1.0, *row = rows + cl_slot(keys, m, (int64_t)ties * K + y[i]) * K;
        for (Py_ssize_t c = 0; c < K; c++)
            if (r[c] == top)
                row[c] += wt;
    }
    Py_END_ALLOW_THREADS
    free(present);
    free(tied_rows);
    nv_args_release(&in);
    return Py_BuildValue("(nnNN)", bad, first, kout, rout);
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

/* ---- class_walk ------------------------------------------------------------------------------- */

/* numpy's pairwise tree over n terms (np_pairwise, summary.c's pw_terms): its leaves of at most 128
 * terms, left to right; the sum of the leaves' sums combined as the tree combines them */
static Py_ssize_t cw_leaves(Py_ssize_t n, Py_ssize_t *out, Py_ssize_t at)
{
    if (n <= 128) {
        if (out)
            out[at] = n;
        return at + 1;
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    at = cw_leaves(n2, out, at);
    return cw_leaves(n - n2, out, at);
}

static double cw_combine(Py_ssize_t n, const double *leafsum, Py_ssize_t *at)
{
    if (n <= 128)
        return leafsum[(*at)++];
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    double left = cw_combine(n2, leafsum, at);
    return left + cw_combine(n - n2, leafsum, at);
}

/* the heap of the blocks' cursors: the highest score on top, a tie the lowest block first */
typedef struct {
    const double *s;
    const int64_t *end;
    int64_t *cur;
    Py_ssize_t *h, n;
} cw_heap;

static inline int cw_before(const cw_heap *q, Py_ssize_t a, Py_ssize_t b)
{
    double x = q->s[q->cur[a]], y = q->s[q->cur[b]];
    return x > y || (x == y && a < b);
}

static void cw_down(cw_heap *q, Py_ssize_t i)
{
    Py_ssize_t v = q->h[i];
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && cw_before(q, q->h[c + 1], q->h[c]))
            c++;
        if (!cw_before(q, q->h[c], v))
            break;
        q->h[i] = q->h[c];
        i = c;
    }
    q->h[i] = v;
}

/* cur[b] from the block's end (its highest score) down; the blocks with cells on the heap */
static void cw_start(cw_heap *q, const int64_t *off, Py_ssize_t b0, Py_ssize_t b1)
{
    q->n = 0;
    for (Py_ssize_t b = b0; b < b1; b++)
        if (off[b + 1] > off[b]) {
            q->cur[b] = off[b + 1] - 1;
            q->h[q->n++] = b;
        }
    for (Py_ssize_t i = q->n / 2; i-- > 0;)
        cw_down(q, i);
}

/* the next distinct score down: its positive and negative weights, each added in the order of the
 * blocks from 0.0 (class_hist's order); 0 when none is left */
static inline int cw_next(cw_heap *q, const int64_t *off, const double *w, Py_ssize_t K, Py_ssize_t b0, int micro,
                          double *pos, double *neg)
{
    if (!q->n)
        return 0;
    double x = q->s[q->cur[q->h[0]]], p = 0.0, m = 0.0;
    while (q->n && q->s[q->cur[q->h[0]]] == x) {
        Py_ssize_t b = q->h[0];
        int positive = micro ? b / K == b % K : b == b0 + b0 / K;
        if (positive)
            p += w[q->cur[b]];
        else
            m += w[q->cur[b]];
        if (q->cur[b] > off[b])
            q->cur[b]--;
        else
            q->h[0] = q->h[--q->n];
        if (q->n)
            cw_down(q, 0);
    }
    *pos = p;
    *neg = m;
    return 1;
}

/* class_walk(offsets, scores, weights, K, j) -> (P, N, roc, ap, cells): the sums rank.roc and
 * rank.ap make over the binary histogram class_hist(offsets, scores, weights, K, j) would give (j < 0:
 * micro), bit for bit, without making it: P and N its positive and negative weights (pos.sum(),
 * neg.sum(): numpy's pairwise sums in ascending order), roc sum(neg * (tp_above + 0.5 * pos)) and ap
 * sum(pos * precision) from the highest score down (hist_sum's and rank.ap's sums), cells its
 * distinct scores.  The blocks' cells merged from the highest score down by a heap of cursors, twice
 * (the number of cells first: numpy's pairwise tree depends on it); memory: the cursors and a sum a
 * leaf of 128 terms.  Why: the micro histogram of every (case, class) cell is three arrays of up to
 * n * K and its sort's scratch: several times the score matrix. */
PyObject *nv_class_walk(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *oo, *so, *wo;
    Py_ssize_t K, j;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOnn", &oo, &so, &wo, &K, &j) || nv_arg(&in, oo, NV_RAW8) < 0 ||
        nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, wo, NV_RAW8) < 0)
        return NULL;
    const int64_t *off = in.v[0].buf;
    if (K < 1 || j >= K || in.n[0] != K * K + 1 || in.n[1] != in.n[2] || off[K * K] != in.n[1])
        return nv_args_fail(&in, PyExc_ValueError, "class_walk: offsets, scores and weights disagree"), NULL;
    const double *s = in.v[1].buf, *w = in.v[2].buf;
    int micro = j < 0;
    Py_ssize_t b0 = micro ? 0 : j * K, b1 = micro ? K * K : (j + 1) * K;
    int64_t *cur = malloc((size_t)K * K * 8);
    Py_ssize_t *heap = malloc((size_t)K * K * sizeof(Py_ssize_t));
    Py_ssize_t *leaf = NULL;
    double *sums = NULL;
    double P = 0, N = 0, roc = 0, ap = 0;
    Py_ssize_t m = 0;
    int nomem = !cur || !heap;
    if (!nomem) {
        NOGIL_BEGIN
        cw_heap q = {s, off, cur, heap, 0};
        double p, g;
        cw_start(&q, off, b0, b1);
        while (cw_next(&q, off, w, K, b0, micro, &p, &g))
            m++;
        Py_ssize_t L = m ? cw_leaves(m, NULL, 0) : 0;
        leaf = malloc((size_t)(L ? L : 1) * sizeof(Py_ssize_t));
        sums = malloc((size_t)(L ? L : 1) * 4 * 8); /* a leaf's sum of each of the four sequences */
        if (!leaf || !sums)
            nomem = 1;
        else if (m) {
            cw_leaves(m, leaf, 0);
            double *sp = sums, *sn = sums + L, *sr = sums + 2 * L, *sa = sums + 3 * L;
            double bp[128], bn[128], br[128], ba[128];
            /* descending position i (roc, ap: their leaves left to right); ascending index m - 1 - i
             * (pos, neg: their leaves right to left, each filled from its end) */
            Py_ssize_t dl = 0, dk = 0, al = L - 1, ak = leaf[L - 1];
            double cum = 0, tp = 0, fp = 0;
            cw_start(&q, off, b0, b1);
            for (Py_ssize_t i = 0; cw_next(&q, off, w, K, b0, micro, &p, &g); i++) {
                cum = i == 0 ? p : cum + p; /* np.cumsum: left to right */
                tp = i == 0 ? p : tp + p;
                fp = i == 0 ? g : fp + g;
                double cnt = tp + fp;
                br[dk] = g * ((cum - p) + 0.5 * p);
                ba[dk] = p * (cnt > 0 ? tp / cnt : 0.0);
                if (++dk == leaf[dl]) {
                    sr[dl] = cl_pairwise(br, dk);
                    sa[dl] = cl_pairwise(ba, dk);
                    dl++;
                    dk = 0;
                }
                ak--;
                bp[ak] = p;
                bn[ak] = g;
                if (ak == 0) {
                    sp[al] = cl_pairwise(bp, leaf[al]);
                    sn[al] = cl_pairwise(bn, leaf[al]);
                    if (al > 0) {
                        al--;
                        ak = leaf[al];
                    }
                }
            }
            Py_ssize_t at;
            at = 0, P = cw_combine(m, sp, &at);
            at = 0, N = cw_combine(m, sn, &at);
            at = 0, roc = cw_combine(m, sr, &at);
            at = 0, ap = cw_combine(m, sa, &at);
        }
        NOGIL_END
    }
    free(cur);
    free(heap);
    free(leaf);
    free(sums);
    nv_args_release(&in);
    if (nomem)
        return PyErr_NoMemory();
    return Py_BuildValue("(ddddn)", P, N, roc, ap, m);
}
