/*
 * perfeval._x87, resample.c: resampling: the bootstrap's random numbers (xoshiro256**, Poisson
 * draws), histogram and case-level Poisson bootstrap walks, DeLong's structural components.
 */
#include "native.h"

/* ------------------------------------------------------------------------------------------------ */
/* The bootstrap's random numbers.  Each replicate r has its own stream, seeded from (seed, r) by
 * splitmix64, so a replicate's draws do not depend on how replicates are split over threads or
 * calls.  Generator: xoshiro256** (Blackman & Vigna).  Poisson: inversion for means under 10,
 * Hoermann's PTRS (transformed rejection with squeeze) above.  Why C: 10^9 Poisson draws (1,000
 * replicates of a million cases) take ~40 s in numpy and a few seconds here, fused with the
 * measure so that no replicate's weights are ever stored. */
typedef struct {
    uint64_t s[4];
} rng_t;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void rng_seed(rng_t *g, uint64_t seed, uint64_t replicate)
{
    uint64_t x = seed ^ (replicate * 0xD1342543DE82EF95ULL + 0x2545F4914F6CDD1DULL);
    for (int i = 0; i < 4; i++)
        g->s[i] = splitmix64(&x);
}

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(rng_t *g)
{
    uint64_t *s = g->s;
    uint64_t r = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return r;
}

static inline double rng_uniform(rng_t *g) { return (double)(rng_next(g) >> 11) * 0x1.0p-53; } /* [0, 1) */

static const double EXP_NEG_INT[10] = {1.0, 0.36787944117144233, 0.1353352832366127, 0.049787068367863944,
                                       0.01831563888873418, 0.006737946999085467, 0.0024787521766663585,
                                       0.0009118819655545162, 0.00033546262790251185, 0.00012340980408667956};

static double poisson_ptrs(rng_t *g, double lam)
{
    double slam = sqrt(lam), loglam = log(lam);
    double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
        double U = rng_uniform(g) - 0.5, V = rng_uniform(g);
        double us = 0.5 - fabs(U);
        double k = floor((2 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr)
            return k;
        if (k < 0 || (us < 0.013 && V > us))
            continue;
        if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1))
            return k;
    }
}

/* CDFs of Poisson(1..9) up to k = 47 (past it the tail is below 2^-53 for these means): the common
 * case of a cell of one or a few cases draws with one uniform and a short scan, no division */
#define CDF_LEN 48
static double POIS_CDF[10][CDF_LEN];
static int pois_cdf_ready = 0;

void nv_pois_cdf_init(void)
{
    for (int lam = 1; lam < 10; lam++) {
        double p = EXP_NEG_INT[lam], F = p;
        POIS_CDF[lam][0] = F;
        for (int k = 1; k < CDF_LEN; k++) {
            p *= (double)lam / k;
            F += p;
            POIS_CDF[lam][k] = k == CDF_LEN - 1 ? 2.0 : F; /* the last entry catches every u */
        }
    }
    pois_cdf_ready = 1;
}

static inline double poisson(rng_t *g, double lam)
{
    if (lam <= 0.0)
        return 0.0;
    if (lam >= 10.0)
        return poisson_ptrs(g, lam);
    if (lam == floor(lam)) {
        /* branch-free for the first 8 values (a scan's mispredicted exits cost more than the draw) */
        const double *F = POIS_CDF[(int)lam];
        double u = rng_uniform(g);
        int k = (u > F[0]) + (u > F[1]) + (u > F[2]) + (u > F[3]) + (u > F[4]) + (u > F[5]) + (u > F[6]) +
                (u > F[7]);
        if (k == 8)
            while (u > F[k])
                k++;
        return (double)k;
    }
    double p = exp(-lam);
    double u = rng_uniform(g), F = p;
    int k = 0;
    while (u > F && k < 200) {
        k++;
        p *= lam / k;
        F += p;
    }
    return (double)k;
}

/* One replicate of a histogram (K cells, ascending scores): pos'[c] ~ Poisson(pos[c]), neg'[c] ~
 * Poisson(neg[c]), drawn cell by cell, positive first.  With out == NULL, returns the ROC area of
 * the replicate (ties half); else stores the counts and returns 0. */
static double boot_hist_one(const double *lp, const double *ln, Py_ssize_t K, uint64_t seed, uint64_t r,
                            double *op, double *on)
{
    rng_t g;
    rng_seed(&g, seed, r);
    double area = 0.0, cneg = 0.0, cpos = 0.0;
    for (Py_ssize_t c = 0; c < K; c++) {
        double p = poisson(&g, lp[c]), q = poisson(&g, ln[c]);
        if (op) {
            op[c] = p;
            on[c] = q;
        } else {
            area += p * (cneg + 0.5 * q);
            cneg += q;
            cpos += p;
        }
    }
    return op ? 0.0 : (cpos > 0 && cneg > 0 ? area / (cpos * cneg) : NAN);
}

typedef struct {
    const double *lp, *ln;
    Py_ssize_t K;
    uint64_t seed;
    int64_t r0, r1, step, first;
    double *out;
} boot_job;

/* Run fn on jobs[0 .. n-1] (each `size` bytes), job t on thread t and job 0 on the caller; a job whose
 * thread cannot be started is run by the caller.  Call without the GIL.  The jobs must not depend on
 * which thread runs them (the bootstrap's replicates are seeded by their number). */
static void run_jobs(void *(*fn)(void *), void *jobs, size_t size, int n)
{
    pthread_t tid[64];
    int started[64] = {0};
    for (int t = 1; t < n && t < 64; t++)
        started[t] = pthread_create(&tid[t], NULL, fn, (char *)jobs + (size_t)t * size) == 0;
    fn(jobs);
    for (int t = 1; t < n && t < 64; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            fn((char *)jobs + (size_t)t * size);
    }
}

#define BOOT_BLOCK 4 /* replicates drawn side by side in one pass over the cells: a quarter of the memory
                        traffic, and four independent chains for the CPU to overlap */

static void *boot_hist_worker(void *arg)
{
    boot_job *j = arg;
    for (int64_t r = j->r0 + j->first * BOOT_BLOCK; r < j->r1; r += j->step * BOOT_BLOCK) {
        int m = j->r1 - r < BOOT_BLOCK ? (int)(j->r1 - r) : BOOT_BLOCK;
        rng_t g[BOOT_BLOCK];
        double area[BOOT_BLOCK] = {0}, cneg[BOOT_BLOCK] = {0}, cpos[BOOT_BLOCK] = {0};
        for (int b = 0; b < m; b++)
            rng_seed(&g[b], j->seed, (uint64_t)(r + b));
        for (Py_ssize_t c = 0; c < j->K; c++) {
            double lp = j->lp[c], ln = j->ln[c];
            for (int b = 0; b < m; b++) { /* each replicate's own stream, in boot_hist_one's order */
                double p = poisson(&g[b], lp), q = poisson(&g[b], ln);
                area[b] += p * (cneg[b] + 0.5 * q);
                cneg[b] += q;
                cpos[b] += p;
            }
        }
        for (int b = 0; b < m; b++)
            j->out[r + b - j->r0] = cpos[b] > 0 && cneg[b] > 0 ? area[b] / (cpos[b] * cneg[b]) : NAN;
    }
    return NULL;
}

/* boot_hist_auc(pos, neg, seed, r0, r1, threads) -> float64 bytearray of the ROC areas of
 * replicates r0..r1-1 */
PyObject *nv_boot_hist_auc(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no;
    unsigned long long seed;
    long long r0, r1;
    int threads;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOKLLi", &po, &no, &seed, &r0, &r1, &threads) || nv_arg(&in, po, NV_RAW8) < 0 ||
        nv_arg(&in, no, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t K = in.n[0];
    if (!nv_len_eq(&in, 0, 1) || r1 < r0) {
        nv_args_fail(&in, PyExc_ValueError, "pos and neg differ in length, or r1 < r0");
        return NULL;
    }
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * 8));
    if (!out) {
        nv_args_release(&in);
        return NULL;
    }
    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    boot_job jobs[64];
    Py_BEGIN_ALLOW_THREADS
    for (int t = 0; t < threads; t++)
        jobs[t] = (boot_job){in.v[0].buf, in.v[1].buf, K, (uint64_t)seed, r0, r1, threads, t,
                             (double *)PyByteArray_AS_STRING(out)};
    run_jobs(boot_hist_worker, jobs, sizeof(boot_job), threads);
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    return out;
}

/* boot_hist_counts(pos, neg, seed, r0, r1) -> (pos', neg') float64 bytearrays, (r1 - r0) x K, the
 * same draws as boot_hist_auc: for measures other than the ROC area.  test-only: tests/test_bootstrap.py
 * checks the Poisson draws and boot_hist_auc with it; src/ draws through boot_hist_compact. */
PyObject *nv_boot_hist_counts(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no;
    unsigned long long seed;
    long long r0, r1;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOKLL", &po, &no, &seed, &r0, &r1) || nv_arg(&in, po, NV_RAW8) < 0 ||
        nv_arg(&in, no, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t K = in.n[0];
    if (!nv_len_eq(&in, 0, 1) || r1 < r0) {
        nv_args_fail(&in, PyExc_ValueError, "pos and neg differ in length, or r1 < r0");
        return NULL;
    }
    PyObject *op = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * K * 8));
    PyObject *on = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * K * 8));
    if (!op || !on) {
        Py_XDECREF(op);
        Py_XDECREF(on);
        nv_args_release(&in);
        return NULL;
    }
    double *pp = (double *)PyByteArray_AS_STRING(op), *pn = (double *)PyByteArray_AS_STRING(on);
    Py_BEGIN_ALLOW_THREADS
    for (long long r = r0; r < r1; r++)
        boot_hist_one(in.v[0].buf, in.v[1].buf, K, (uint64_t)seed, (uint64_t)r, pp + (r - r0) * K, pn + (r - r0) * K);
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    return Py_BuildValue("(NN)", op, on);
}

/* Row-level replicates (weighted data, paired comparisons): replicate r gives case i the weight
 * w[i] * Poisson(1), drawn in case order, so two scores of the same cases get the same weights. */
static void poisson_rows_one(rng_t *g, double *P, Py_ssize_t n)
{
    const double *F = POIS_CDF[1];
    for (Py_ssize_t i = 0; i < n; i++) {
        double u = rng_uniform(g);
        int k = (u > F[0]) + (u > F[1]) + (u > F[2]) + (u > F[3]) + (u > F[4]) + (u > F[5]) + (u > F[6]) +
                (u > F[7]);
        if (k == 8)
            while (u > F[k])
                k++;
        P[i] = (double)k;
    }
}

static void poisson_rows_u8(rng_t *g, uint8_t *P, Py_ssize_t n)
{
    const double *F = POIS_CDF[1]; /* the same draws as poisson_rows_one */
    for (Py_ssize_t i = 0; i < n; i++) {
        double u = rng_uniform(g);
        int k = (u > F[0]) + (u > F[1]) + (u > F[2]) + (u > F[3]) + (u > F[4]) + (u > F[5]) + (u > F[6]) +
                (u > F[7]);
        if (k == 8)
            while (u > F[k])
                k++;
        P[i] = (uint8_t)k;
    }
}

/* poisson_rows(n, seed, r0, r1) -> float64 bytearray (r1 - r0) x n of Poisson(1) case weights */
PyObject *nv_poisson_rows(PyObject *Py_UNUSED(self), PyObject *args)
{
    long long n, r0, r1;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "LKLL", &n, &seed, &r0, &r1))
        return NULL;
    if (n < 0 || r1 < r0) {
        PyErr_SetString(PyExc_ValueError, "n < 0 or r1 < r0");
        return NULL;
    }
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * n * 8));
    if (!out)
        return NULL;
    double *P = (double *)PyByteArray_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    for (long long r = r0; r < r1; r++) {
        rng_t g;
        rng_seed(&g, (uint64_t)seed, (uint64_t)r);
        poisson_rows_one(&g, P + (r - r0) * n, (Py_ssize_t)n);
    }
    Py_END_ALLOW_THREADS
    return out;
}

typedef struct {
    const int64_t *order;   /* cases in ascending score order */
    const int64_t *gend;    /* end (exclusive) of each tie group in that order */
    const uint8_t *cls;     /* class of each case, in case order */
    const double *w;        /* weight of each case, in case order, or NULL */
    Py_ssize_t n, G;
    uint64_t seed;
    int64_t r0, r1, step, first;
    double *out;
    int nmodels;            /* 1 or 2: a second (order, gend) pair follows for paired replicates */
    const int64_t *order2, *gend2;
    Py_ssize_t G2;
    double *out2;
    uint8_t *scratch;       /* n case weights for this thread: Poisson(1) draws fit a byte (the table
                               stops at 47), and a byte per case keeps a million cases in cache */
} rows_job;

static double rows_auc(const int64_t *order, const int64_t *gend, Py_ssize_t G, const uint8_t *cls,
                       const double *w, const uint8_t *P)
{
    double area = 0.0, cneg = 0.0, cpos = 0.0;
    Py_ssize_t j = 0;
    for (Py_ssize_t k = 0; k < G; k++) {
        double p = 0.0, q = 0.0;
        for (; j < gend[k]; j++) {
            int64_t i = order[j];
            double x = w ? w[i] * P[i] : P[i];
            if (cls[i])
                p += x;
            else
                q += x;
        }
        area += p * (cneg + 0.5 * q);
        cneg += q;
        cpos += p;
    }
    return cpos > 0 && cneg > 0 ? area / (cpos * cneg) : NAN;
}

static void *rows_worker(void *arg)
{
    rows_job *j = arg;
    for (int64_t r = j->r0 + j->first; r < j->r1; r += j->step) {
        rng_t g;
        rng_seed(&g, j->seed, (uint64_t)r);
        poisson_rows_u8(&g, j->scratch, j->n);
        j->out[r - j->r0] = rows_auc(j->order, j->gend, j->G, j->cls, j->w, j->scratch);
        if (j->nmodels == 2)
            j->out2[r - j->r0] = rows_auc(j->order2, j->gend2, j->G2, j->cls, j->w, j->scratch);
    }
    return NULL;
}

/* boot_rows_auc(order, gend, cls, w_or_None, seed, r0, r1, threads[, order2, gend2])
 *   -> float64 bytearray of ROC areas (and a second one for the second score when given) */
PyObject *nv_boot_rows_auc(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *oo, *go, *co, *wobj, *o2 = NULL, *g2 = NULL;
    unsigned long long seed;
    long long r0, r1;
    int threads;
    if (!PyArg_ParseTuple(args, "OOOOKLLi|OO", &oo, &go, &co, &wobj, &seed, &r0, &r1, &threads, &o2, &g2))
        return NULL;
    int have_w = wobj != Py_None, two = o2 != NULL && g2 != NULL;
    int second = two ? NV_RAW8 : NV_RAW8 | NV_OPTIONAL; /* the second score's pair: absent unless both given */
    nv_args in = {0}; /* 0 order, 1 gend, 2 cls, 3 w, 4 order2, 5 gend2 */
    if (nv_arg(&in, oo, NV_RAW8) < 0 || nv_arg(&in, go, NV_RAW8) < 0 || nv_arg(&in, co, NV_RAW1) < 0 ||
        nv_arg(&in, have_w ? wobj : NULL, NV_RAW8 | NV_OPTIONAL) < 0 || nv_arg(&in, two ? o2 : NULL, second) < 0 ||
        nv_arg(&in, two ? g2 : NULL, second) < 0)
        return NULL;
    Py_ssize_t n = in.n[2];
    if (!nv_len_eq(&in, 0, 2) || !nv_len_eq(&in, 3, 2) || !nv_len_eq(&in, 4, 2) || r1 < r0) {
        nv_args_fail(&in, PyExc_ValueError, "order, classes and weights must describe the same cases");
        return NULL;
    }
    PyObject *out = NULL, *out2 = NULL, *result = NULL;
    uint8_t *scratch = NULL;
    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * 8));
    out2 = PyByteArray_FromStringAndSize(NULL, two ? (Py_ssize_t)((r1 - r0) * 8) : 0);
    scratch = malloc((size_t)threads * (size_t)(n > 0 ? n : 1));
    if (!out || !out2 || !scratch) {
        PyErr_NoMemory();
        goto done;
    }
    rows_job jobs[64];
    Py_BEGIN_ALLOW_THREADS
    for (int t = 0; t < threads; t++)
        jobs[t] = (rows_job){in.v[0].buf, in.v[1].buf, in.v[2].buf, have_w ? in.v[3].buf : NULL, n, in.n[1],
                             (uint64_t)seed, r0, r1, threads, t, (double *)PyByteArray_AS_STRING(out), two ? 2 : 1,
                             two ? in.v[4].buf : NULL, two ? in.v[5].buf : NULL, two ? in.n[5] : 0,
                             two ? (double *)PyByteArray_AS_STRING(out2) : NULL,
                             scratch + (size_t)t * (size_t)(n > 0 ? n : 1)};
    run_jobs(rows_worker, jobs, sizeof(rows_job), threads);
    Py_END_ALLOW_THREADS
    result = two ? Py_BuildValue("(OO)", out, out2) : (Py_INCREF(out), out);
done:
    free(scratch);
    Py_XDECREF(out);
    Py_XDECREF(out2);
    nv_args_release(&in);
    return result;
}


/* delong_hist(pos, neg) -> (auc, s10, s01, m, n): DeLong's structural-component variances from a
 * histogram (ascending scores; positive and negative weight per distinct score).  Why C: the numpy
 * form makes eight temporaries the size of the histogram, ~1 s of page faults on 10M distinct scores
 * in a fresh process; this is three passes and no allocation. */
PyObject *nv_delong_hist(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OO", &po, &no) || nv_arg(&in, po, NV_RAW8) < 0 || nv_arg(&in, no, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1)) {
        nv_args_fail(&in, PyExc_ValueError, "pos and neg differ in length");
        return NULL;
    }
    const double *p = in.v[0].buf, *q = in.v[1].buf;
    Py_ssize_t K = in.n[0];
    double m = 0, n = 0, area = 0, s10 = 0, s01 = 0, auc;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t c = 0; c < K; c++) {
        m += p[c];
        n += q[c];
    }
    double below = 0;
    for (Py_ssize_t c = 0; c < K; c++) {
        area += p[c] * (below + 0.5 * q[c]);
        below += q[c];
    }
    auc = area / (m * n);
    double negb = 0, posthru = 0;
    for (Py_ssize_t c = 0; c < K; c++) {
        double v10 = (negb + 0.5 * q[c]) / n;
        posthru += p[c];
        double v01 = (m - posthru + 0.5 * p[c]) / m;
        s10 += p[c] * (v10 - auc) * (v10 - auc);
        s01 += q[c] * (v01 - auc) * (v01 - auc);
        negb += q[c];
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    return Py_BuildValue("(ddddd)", auc, s10, s01, m, n);
}


/* delong_rows(order, scores, cls, weights_or_None) -> (auc, m, n, comp)
 * Per case, in case order, its DeLong structural component: V10 for a positive, V01 for a negative;
 * order sorts the scores ascending.  Used by the paired test, which needs both models' components of
 * the same case.  Why C: two walks of each tie group write the components straight to their cases,
 * where the numpy form needs six arrays the size of the data (1.9 GB peak on 10M rows, two models). */
PyObject *nv_delong_rows(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *oo, *so, *co, *wobj;
    if (!PyArg_ParseTuple(args, "OOOO", &oo, &so, &co, &wobj))
        return NULL;
    int have_w = wobj != Py_None;
    nv_args in = {0}; /* 0 order, 1 scores, 2 cls, 3 w */
    if (nv_arg(&in, oo, NV_RAW8) < 0 || nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, co, NV_RAW1) < 0 ||
        nv_arg(&in, have_w ? wobj : NULL, NV_RAW8 | NV_OPTIONAL) < 0)
        return NULL;
    Py_ssize_t n = in.n[2];
    if (!nv_len_eq(&in, 0, 2) || !nv_len_eq(&in, 1, 2) || !nv_len_eq(&in, 3, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "order, scores, classes and weights must describe the same cases");
        return NULL;
    }
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * 8), *result = NULL;
    if (!out) {
        nv_args_release(&in);
        return NULL;
    }
    const int64_t *o = in.v[0].buf;
    const double *sc = in.v[1].buf, *w = have_w ? in.v[3].buf : NULL;
    const uint8_t *c = in.v[2].buf;
    double *comp = (double *)PyByteArray_AS_STRING(out);
    double m = 0, nn = 0, area = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        if (c[i])
            m += wi;
        else
            nn += wi;
    }
    double negb = 0, posb = 0; /* negative and positive weight below the current tie group */
    for (Py_ssize_t j = 0; j < n;) {
        Py_ssize_t e = j;
        double p = 0, q = 0;
        while (e < n && sc[o[e]] == sc[o[j]]) {
            double wi = w ? w[o[e]] : 1.0;
            if (c[o[e]])
                p += wi;
            else
                q += wi;
            e++;
        }
        double v10 = (negb + 0.5 * q) / nn, v01 = (m - posb - p + 0.5 * p) / m;
        for (Py_ssize_t k = j; k < e; k++)
            comp[o[k]] = c[o[k]] ? v10 : v01;
        area += p * (negb + 0.5 * q);
        negb += q;
        posb += p;
        j = e;
    }
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("(dddO)", area / (m * nn), m, nn, out);
    Py_DECREF(out);
    nv_args_release(&in);
    return result;
}


/* boot_hist_compact(pos, neg, seed, r) -> (cells int64, pos', neg') of replicate r, only the cells the
 * replicate drew any case in (the same draws as boot_hist_counts): a replicate summary ready for any
 * measure, without a mask-and-gather pass in numpy. */
PyObject *nv_boot_hist_compact(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no;
    unsigned long long seed, r;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOKK", &po, &no, &seed, &r) || nv_arg(&in, po, NV_RAW8) < 0 ||
        nv_arg(&in, no, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t K = in.n[0];
    if (!nv_len_eq(&in, 0, 1)) {
        nv_args_fail(&in, PyExc_ValueError, "pos and neg differ in length");
        return NULL;
    }
    int64_t *ci = malloc((size_t)(K > 0 ? K : 1) * 8);
    double *cp = malloc((size_t)(K > 0 ? K : 1) * 8), *cn = malloc((size_t)(K > 0 ? K : 1) * 8);
    if (!ci || !cp || !cn) {
        free(ci);
        free(cp);
        free(cn);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    const double *lp = in.v[0].buf, *ln = in.v[1].buf;
    Py_ssize_t k = 0;
    Py_BEGIN_ALLOW_THREADS
    rng_t g;
    rng_seed(&g, (uint64_t)seed, (uint64_t)r);
    for (Py_ssize_t c = 0; c < K; c++) {
        double p = poisson(&g, lp[c]), q = poisson(&g, ln[c]);
        if (p > 0 || q > 0) {
            ci[k] = c;
            cp[k] = p;
            cn[k] = q;
            k++;
        }
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    PyObject *res = Py_BuildValue("(y#y#y#)", (const char *)ci, (Py_ssize_t)(k * 8), (const char *)cp,
                                  (Py_ssize_t)(k * 8), (const char *)cn, (Py_ssize_t)(k * 8));
    free(ci);
    free(cp);
    free(cn);
    return res;
}


/* ------------------------------------------------------------------------------------------------ */
/* Replicates of many measures at once.  A replicate's summary (its drawn cells: score, positive and
 * negative weight, ascending) is finished by every measure of a plan in one go: the draws are paid
 * once for all the measures, and no replicate summary ever goes back to Python.  A plan is a float64
 * array of (kind, parameter) pairs; each kind writes REP_WIDTH statistics per replicate, from which
 * perfeval.stats.fastpaths finishes the measure's value (the formulas stay in Python, vectorised
 * over the replicates).  The same finishers give the jackknife's values (rep_finish). */
#define REP_WIDTH 4
enum {
    REP_ROC = 0,  /* area (ties half), P, N: boot_hist_auc's arithmetic, cell for cell */
    REP_APR = 1,  /* APR numerator (summary.c's apr_total), P, n */
    REP_SQ = 2,   /* sum of squared errors, n */
    REP_CXE = 3,  /* sum -log2(s) over positives, sum -log2(1 - s) over negatives, n, scores in [0, 1] */
    REP_THR = 4,  /* TP, FN, FP, TN with score >= parameter predicted positive */
    REP_R50 = 5,  /* ROC area up to the parameter's negatives */
    REP_RKL = 6,  /* rank of the last positive */
    REP_TOP1 = 7,
    REP_TOP10 = 8,
    REP_NTOP = 9, /* positives among the top parameter cases / parameter (parameter < 0: the top P, PRB) */
    REP_SLQ = 10, /* SLAC Q over parameter bins */
    REP_CA1 = 11,
    REP_CA2 = 12, /* window of parameter cases */
    REP_KINDS = 13
};

/* Per-cell tables of a call, made once for all its replicates (NULL when the plan does not need
 * them): -log2(s) and -log2(1 - s) for CXE, and for CA1 the code first * 19 + last of the run of
 * bins holding the score (-1: none). */
typedef struct {
    double *nl2s, *nl2c;
    int16_t *ca1;
} rep_tables;

/* A replicate summary: its drawn cells (ascending), their index among the call's cells, and the
 * positive and negative weight in all. */
typedef struct {
    const double *sc, *p, *q;
    const int64_t *ci;
    Py_ssize_t k;
    double P, N;
    const rep_tables *t;
} rep_cells;

static int plan_has(const double *plan, int nk, int kind)
{
    for (int m = 0; m < nk; m++)
        if ((int)plan[2 * m] == kind)
            return 1;
    return 0;
}

/* The tables of cells with scores sc[0..K-1]: 0, or -1 when out of memory. */
static int rep_tables_make(rep_tables *t, const double *plan, int nk, const double *sc, Py_ssize_t K, int logs)
{
    memset(t, 0, sizeof *t);
    size_t n = (size_t)(K > 0 ? K : 1);
    if (logs && plan_has(plan, nk, REP_CXE)) { /* worth it for many replicates, not for one summary */
        t->nl2s = malloc(n * sizeof(double));
        t->nl2c = malloc(n * sizeof(double));
        if (!t->nl2s || !t->nl2c)
            return -1;
        for (Py_ssize_t c = 0; c < K; c++) {
            t->nl2s[c] = -log2(sc[c]);
            t->nl2c[c] = -log2(1.0 - sc[c]);
        }
    }
    if (plan_has(plan, nk, REP_CA1)) {
        t->ca1 = malloc(n * sizeof(int16_t));
        if (!t->ca1)
            return -1;
        for (Py_ssize_t c = 0; c < K; c++) { /* bin i holds i/20 <= s <= (i + 2)/20: a run of bins */
            int first = -1, last = -1;
            double f = floor(sc[c] * 20.0);
            if (f >= -3.0 && f <= 22.0)
                for (int i = (int)f - 2; i <= (int)f + 1; i++)
                    if (i >= 0 && i <= 18 && sc[c] >= (double)i / 20 && sc[c] <= (double)(i + 2) / 20) {
                        first = first < 0 ? i : first;
                        last = i;
                    }
            t->ca1[c] = (int16_t)(first < 0 ? -1 : first * 19 + last);
        }
    }
    return 0;
}

static void rep_tables_free(rep_tables *t)
{
    free(t->nl2s);
    free(t->nl2c);
    free(t->ca1);
    memset(t, 0, sizeof *t);
}

static void rep_finish_one(int kind, double par, const rep_cells *rc, double *o)
{
    const double *sc = rc->sc, *p = rc->p, *q = rc->q;
    Py_ssize_t k = rc->k;
    double P = rc->P, N = rc->N;
    o[0] = o[1] = o[2] = o[3] = 0.0;
    switch (kind) {
    case REP_ROC: {
        double area = 0, cneg = 0, cpos = 0;
        for (Py_ssize_t c = 0; c < k; c++) {
            area += p[c] * (cneg + 0.5 * q[c]);
            cneg += q[c];
            cpos += p[c];
        }
        o[0] = area;
        o[1] = cpos;
        o[2] = cneg;
        break;
    }
    case REP_APR:
        o[0] = nv_apr_total(p, q, 0, k);
        o[1] = P;
        o[2] = P + N;
        break;
    case REP_SQ: {
        double s = 0;
        for (Py_ssize_t c = 0; c < k; c++)
            s += p[c] * (1 - sc[c]) * (1 - sc[c]) + q[c] * sc[c] * sc[c];
        o[0] = s;
        o[1] = P + N;
        break;
    }
    case REP_CXE: {
        double sp = 0, sq = 0;
        const double *ls = rc->t->nl2s, *lc = rc->t->nl2c;
        for (Py_ssize_t c = 0; c < k; c++) { /* the same logarithms, from the table when there is one */
            if (p[c] > 0)
                sp += (ls ? ls[rc->ci[c]] : -log2(sc[c])) * p[c];
            if (q[c] > 0)
                sq += (lc ? lc[rc->ci[c]] : -log2(1.0 - sc[c])) * q[c];
        }
        o[0] = sp;
        o[1] = sq;
        o[2] = P + N;
        o[3] = k == 0 || (sc[0] >= 0.0 && sc[k - 1] <= 1.0);
        break;
    }
    case REP_THR: {
        double tp = 0, fp = 0, tot_p = 0, tot_n = 0;
        for (Py_ssize_t c = 0; c < k; c++) {
            tot_p += p[c];
            tot_n += q[c];
            if (sc[c] >= par) {
                tp += p[c];
                fp += q[c];
            }
        }
        o[0] = tp;
        o[1] = tot_p - tp;
        o[2] = fp;
        o[3] = tot_n - fp;
        break;
    }
    case REP_R50: {
        if (P == 0 || N == 0) {
            o[0] = NAN;
            break;
        }
        double limit = par < N ? par : N, tp_above = 0, fp_above = 0, area = 0;
        for (Py_ssize_t c = k - 1; c >= 0; c--) {
            double take = limit - fp_above;
            take = take < 0 ? 0 : (take > q[c] ? q[c] : take);
            double slope = q[c] > 0 ? p[c] / q[c] : 0.0;
            area += take * tp_above + 0.5 * slope * take * take;
            tp_above += p[c];
            fp_above += q[c];
        }
        o[0] = area / (limit * P);
        break;
    }
    case REP_RKL: {
        if (P + N == 0) {
            o[0] = NAN;
            break;
        }
        if (P == 0 || N == 0) {
            o[0] = P + N;
            break;
        }
        Py_ssize_t low = 0;
        while (low < k && !(p[low] > 0))
            low++;
        double s = 0;
        for (Py_ssize_t c = low; c < k; c++)
            s += p[c] + q[c];
        o[0] = s;
        break;
    }
    case REP_TOP1:
        o[0] = k > 0 && q[k - 1] == 0 && p[k - 1] > 0 ? 1.0 : 0.0;
        break;
    case REP_TOP10: {
        double above = 0;
        for (Py_ssize_t c = k - 1; c >= 0; c--) {
            if (p[c] > 0 && above + q[c] < 10) {
                o[0] = 1.0;
                break;
            }
            above += p[c] + q[c];
        }
        break;
    }
    case REP_NTOP: {
        double top = par < 0 ? P : par, got = 0, above = 0;
        if (par < 0 && P == 0) {
            o[0] = NAN;
            break;
        }
        for (Py_ssize_t c = k - 1; c >= 0 && above < top; c--) {
            double size = p[c] + q[c], take = top - above;
            take = take > size ? size : take;
            got += take * (size > 0 ? p[c] / size : 0.0);
            above += size;
        }
        o[0] = got / top;
        break;
    }
    case REP_SLQ: {
        int bins = (int)par;
        if (P + N == 0 || !(k == 0 || (sc[0] >= 0.0 && sc[k - 1] <= 1.0)) || bins < 1) {
            o[0] = NAN;
            break;
        }
        double *x = calloc((size_t)bins * 2, sizeof(double));
        if (!x) {
            o[0] = NAN;
            break;
        }
        double *y = x + bins;
        for (Py_ssize_t c = 0; c < k; c++) {
            /* slq_bins: the number of edges i/bins (i = 1..bins-1) at or below the score */
            int b = (int)(sc[c] * bins);
            b = b < 0 ? 0 : (b > bins - 1 ? bins - 1 : b);
            while (b > 0 && !((double)b / bins <= sc[c]))
                b--;
            while (b < bins - 1 && (double)(b + 1) / bins <= sc[c])
                b++;
            x[b] += p[c];
            y[b] += q[c];
        }
        double num = 0, tot_all = 0;
        for (int b = 0; b < bins; b++) {
            double tot = x[b] + y[b];
            double w = tot > 0 ? (x[b] < y[b] ? x[b] : y[b]) / tot : 0.0;
            num += tot * (1 - 2 * w) * (1 - 2 * w);
            tot_all += tot;
        }
        free(x);
        o[0] = num / tot_all;
        break;
    }
    case REP_CA1: {
        double cp_[19 * 19] = {0}, ck[19 * 19] = {0}, cs_[19 * 19] = {0}, sp[19] = {0}, sk[19] = {0}, ss[19] = {0};
        const int16_t *code = rc->t->ca1;
        for (Py_ssize_t c = 0; c < k; c++) { /* sums per run of bins, then per bin */
            int x = code[rc->ci[c]];
            if (x < 0)
                continue;
            cp_[x] += p[c];
            ck[x] += p[c] + q[c];
            cs_[x] += sc[c] * (p[c] + q[c]);
        }
        for (int x = 0; x < 19 * 19; x++)
            if (ck[x] != 0)
                for (int i = x / 19; i <= x % 19; i++) {
                    sp[i] += cp_[x];
                    sk[i] += ck[x];
                    ss[i] += cs_[x];
                }
        double errs = 0;
        for (int i = 0; i < 19; i++)
            if (sk[i] != 0)
                errs += fabs(sp[i] / sk[i] - ss[i] / sk[i]);
        o[0] = errs / 19;
        break;
    }
    case REP_CA2:
        o[0] = P + N < par ? NAN : nv_ca2_total(sc, p, q, k, (long long)par);
        break;
    default:
        o[0] = NAN;
    }
}

/* The plan's kinds and parameters, checked: 0 on success, -1 with an exception set. */
static int rep_plan(const double *plan, Py_ssize_t len, int *nk)
{
    if (len % 2) {
        PyErr_SetString(PyExc_ValueError, "a replicate plan is (kind, parameter) pairs");
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i += 2)
        if (!(plan[i] >= 0 && plan[i] < REP_KINDS) || plan[i] != floor(plan[i])) {
            PyErr_SetString(PyExc_ValueError, "a replicate plan names an unknown kind");
            return -1;
        }
    *nk = (int)(len / 2);
    return 0;
}

static void rep_finish_plan(const double *plan, int nk, const rep_tables *t, const double *sc, const double *p,
                            const double *q, const int64_t *ci, Py_ssize_t k, double *out)
{
    rep_cells rc = {sc, p, q, ci, k, 0.0, 0.0, t};
    for (Py_ssize_t c = 0; c < k; c++) { /* the totals, once for every measure */
        rc.P += p[c];
        rc.N += q[c];
    }
    for (int m = 0; m < nk; m++)
        rep_finish_one((int)plan[2 * m], plan[2 * m + 1], &rc, out + (size_t)m * REP_WIDTH);
}

/* rep_finish(scores, pos, neg, plan) -> float64 bytes, REP_WIDTH statistics per (kind, parameter): one
 * summary finished as a replicate is (cells of no weight are skipped): the jackknife's values. */
PyObject *nv_rep_finish(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no, *plo;
    if (!PyArg_ParseTuple(args, "OOOO", &so, &po, &no, &plo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, po, NV_RAW8) < 0 || nv_arg(&in, no, NV_RAW8) < 0 ||
        nv_arg(&in, plo, NV_RAW8) < 0)
        return NULL;
    int nk = 0;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "scores, pos and neg differ in length");
        return NULL;
    }
    if (rep_plan(in.v[3].buf, in.n[3], &nk) < 0) {
        nv_args_release(&in);
        return NULL;
    }
    Py_ssize_t K = in.n[0], k = 0;
    size_t n = (size_t)(K > 0 ? K : 1);
    double *buf = malloc(n * 3 * sizeof(double));
    int64_t *ci = malloc(n * sizeof(int64_t));
    PyObject *res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)nk * REP_WIDTH * 8);
    rep_tables t;
    memset(&t, 0, sizeof t);
    if (!buf || !ci || !res) {
        free(buf);
        free(ci);
        Py_XDECREF(res);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    const double *sc = in.v[0].buf, *p = in.v[1].buf, *q = in.v[2].buf;
    double *cs = buf, *cp = buf + K, *cq = buf + 2 * K;
    int ok;
    NOGIL_BEGIN
    for (Py_ssize_t c = 0; c < K; c++)
        if (p[c] > 0 || q[c] > 0) {
            cs[k] = sc[c];
            cp[k] = p[c];
            cq[k] = q[c];
            ci[k] = k; /* the tables are made of the kept cells */
            k++;
        }
    ok = rep_tables_make(&t, in.v[3].buf, nk, cs, k, 0) == 0;
    if (ok)
        rep_finish_plan(in.v[3].buf, nk, &t, cs, cp, cq, ci, k, (double *)PyBytes_AS_STRING(res));
    NOGIL_END
    rep_tables_free(&t);
    free(buf);
    free(ci);
    nv_args_release(&in);
    if (!ok) {
        Py_DECREF(res);
        return PyErr_NoMemory();
    }
    return res;
}

typedef struct {
    const double *sc, *lp, *ln, *plan;
    int nk;
    Py_ssize_t K;
    uint64_t seed;
    int64_t r0, r1, step, first;
    double *out, *scratch; /* 4 K doubles for this thread: scores, pos, neg, cell indices */
    const rep_tables *t;
} multi_hist_job;

static void *multi_hist_worker(void *arg)
{
    multi_hist_job *j = arg;
    double *cs = j->scratch, *cp = cs + j->K, *cq = cp + j->K;
    int64_t *ci = (int64_t *)(cq + j->K);
    for (int64_t r = j->r0 + j->first; r < j->r1; r += j->step) {
        rng_t g;
        rng_seed(&g, j->seed, (uint64_t)r);
        Py_ssize_t k = 0;
        for (Py_ssize_t c = 0; c < j->K; c++) { /* boot_hist_compact's draws */
            double p = poisson(&g, j->lp[c]), q = poisson(&g, j->ln[c]);
            cs[k] = j->sc[c]; /* written always, kept when drawn: no branch to mispredict */
            cp[k] = p;
            cq[k] = q;
            ci[k] = c;
            k += (p > 0) | (q > 0);
        }
        rep_finish_plan(j->plan, j->nk, j->t, cs, cp, cq, ci, k,
                        j->out + (size_t)(r - j->r0) * j->nk * REP_WIDTH);
    }
    return NULL;
}

/* boot_hist_multi(scores, pos, neg, plan, seed, r0, r1, threads) -> float64 bytearray, (r1 - r0) x
 * (kinds x REP_WIDTH): the plan's statistics of replicates r0..r1-1, the draws of boot_hist_auc. */
PyObject *nv_boot_hist_multi(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no, *plo;
    unsigned long long seed;
    long long r0, r1;
    int threads, nk = 0;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOOKLLi", &so, &po, &no, &plo, &seed, &r0, &r1, &threads) ||
        nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, po, NV_RAW8) < 0 || nv_arg(&in, no, NV_RAW8) < 0 ||
        nv_arg(&in, plo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2) || r1 < r0) {
        nv_args_fail(&in, PyExc_ValueError, "scores, pos and neg differ in length, or r1 < r0");
        return NULL;
    }
    if (rep_plan(in.v[3].buf, in.n[3], &nk) < 0) {
        nv_args_release(&in);
        return NULL;
    }
    threads = threads < 1 ? 1 : (threads > 64 ? 64 : threads);
    Py_ssize_t K = in.n[0];
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * nk * REP_WIDTH * 8));
    double *scratch = malloc((size_t)threads * 4 * (size_t)(K > 0 ? K : 1) * sizeof(double));
    rep_tables tab;
    int ok = out && scratch && rep_tables_make(&tab, in.v[3].buf, nk, in.v[0].buf, K, 1) == 0;
    if (!ok) {
        Py_XDECREF(out);
        free(scratch);
        rep_tables_free(&tab);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    multi_hist_job jobs[64];
    Py_BEGIN_ALLOW_THREADS
    for (int t = 0; t < threads; t++)
        jobs[t] = (multi_hist_job){in.v[0].buf, in.v[1].buf, in.v[2].buf, in.v[3].buf, nk, K, (uint64_t)seed,
                                   r0, r1, threads, t, (double *)PyByteArray_AS_STRING(out),
                                   scratch + (size_t)t * 4 * (size_t)(K > 0 ? K : 1), &tab};
    run_jobs(multi_hist_worker, jobs, sizeof(multi_hist_job), threads);
    Py_END_ALLOW_THREADS
    rep_tables_free(&tab);
    free(scratch);
    nv_args_release(&in);
    return out;
}

typedef struct {
    const int64_t *order, *gend; /* a score column sorted (ascending) and its tie groups */
    const double *gsc;           /* the score of each tie group */
    Py_ssize_t G;
    double *out;
    uint8_t *ocls; /* the classes in this order (read in sequence: only the weights are gathered) */
    double *ow;    /* the case weights in this order, or NULL */
} rows_model;

typedef struct {
    const uint8_t *cls;
    const double *w, *plan;
    int nk, nmodels;
    Py_ssize_t n;
    uint64_t seed;
    int64_t r0, r1, step, first;
    rows_model m[2];
    uint8_t *P;     /* n case weights */
    double *cells;  /* 4 x max G doubles: scores, pos, neg, tie group indices */
    Py_ssize_t Gmax;
    const rep_tables *t[2];
} multi_rows_job;

static void *multi_rows_worker(void *arg)
{
    multi_rows_job *j = arg;
    double *cs = j->cells, *cp = cs + j->Gmax, *cq = cp + j->Gmax;
    int64_t *ci = (int64_t *)(cq + j->Gmax);
    for (int64_t r = j->r0 + j->first; r < j->r1; r += j->step) {
        rng_t g;
        rng_seed(&g, j->seed, (uint64_t)r);
        poisson_rows_u8(&g, j->P, j->n); /* boot_rows_auc's draws */
        for (int mi = 0; mi < j->nmodels; mi++) {
            const rows_model *m = &j->m[mi];
            Py_ssize_t k = 0, i0 = 0;
            for (Py_ssize_t t = 0; t < m->G; t++) { /* rows_auc's sums, tie group by tie group */
                double p = 0.0, q = 0.0;
                for (; i0 < m->gend[t]; i0++) {
                    double x = m->ow ? m->ow[i0] * j->P[m->order[i0]] : j->P[m->order[i0]];
                    if (m->ocls[i0])
                        p += x;
                    else
                        q += x;
                }
                cs[k] = m->gsc[t];
                cp[k] = p;
                cq[k] = q;
                ci[k] = t;
                k += (p > 0) | (q > 0);
            }
            rep_finish_plan(j->plan, j->nk, j->t[mi], cs, cp, cq, ci, k,
                            m->out + (size_t)(r - j->r0) * j->nk * REP_WIDTH);
        }
    }
    return NULL;
}

static int rows_model_args(nv_args *in, PyObject *oo, PyObject *go, PyObject *so)
{
    if (nv_arg(in, oo, NV_RAW8) < 0 || nv_arg(in, go, NV_RAW8) < 0 || nv_arg(in, so, NV_RAW8) < 0)
        return -1;
    if (!nv_len_eq(in, 1, 2)) {
        nv_args_fail(in, PyExc_ValueError, "a tie group's end and score differ in length");
        return -1;
    }
    return 0;
}

/* boot_rows_multi(cls, w_or_None, plan, seed, r0, r1, threads, (order, gend, gscores)[, (order2, gend2,
 * gscores2)]) -> float64 bytearray (r1 - r0) x (kinds x REP_WIDTH) per score column: the plan's
 * statistics of case-level Poisson(1) replicates (boot_rows_auc's draws), every column on the same. */
PyObject *nv_boot_rows_multi(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *co, *wobj, *plo, *m1, *m2 = NULL;
    unsigned long long seed;
    long long r0, r1;
    int threads, nk = 0;
    if (!PyArg_ParseTuple(args, "OOOKLLiO|O", &co, &wobj, &plo, &seed, &r0, &r1, &threads, &m1, &m2))
        return NULL;
    PyObject *mods[2] = {m1, m2};
    int nmodels = m2 ? 2 : 1;
    nv_args in = {0}, ma[2];
    memset(ma, 0, sizeof ma);
    PyObject *outs[2] = {NULL, NULL}, *result = NULL;
    uint8_t *P = NULL, *ocls[2] = {NULL, NULL};
    double *cells = NULL, *ow[2] = {NULL, NULL};
    rep_tables tab[2];
    memset(tab, 0, sizeof tab);
    if (nv_arg(&in, co, NV_RAW1) < 0)
        return NULL;
    if (nv_arg(&in, wobj == Py_None ? NULL : wobj, NV_RAW8 | NV_OPTIONAL) < 0 || nv_arg(&in, plo, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t n = in.n[0], Gmax = 1;
    if (!nv_len_eq(&in, 1, 0) || r1 < r0) {
        nv_args_fail(&in, PyExc_ValueError, "classes and weights differ in length, or r1 < r0");
        return NULL;
    }
    if (rep_plan(in.v[2].buf, in.n[2], &nk) < 0)
        goto done;
    for (int mi = 0; mi < nmodels; mi++) {
        PyObject *oo, *go, *so;
        if (!PyArg_ParseTuple(mods[mi], "OOO", &oo, &go, &so) || rows_model_args(&ma[mi], oo, go, so) < 0)
            goto done;
        if (ma[mi].n[0] != n) {
            PyErr_SetString(PyExc_ValueError, "a score column's order must hold every case");
            goto done;
        }
        const int64_t *gend = ma[mi].v[1].buf, *order = ma[mi].v[0].buf;
        Py_ssize_t G = ma[mi].n[1];
        for (Py_ssize_t t = 0; t < G; t++)
            if (gend[t] < (t ? gend[t - 1] : 0) || gend[t] > n) {
                PyErr_SetString(PyExc_ValueError, "tie group ends must ascend within the cases");
                goto done;
            }
        if (G > 0 && gend[G - 1] != n) {
            PyErr_SetString(PyExc_ValueError, "the tie groups must cover every case");
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            if (order[i] < 0 || order[i] >= n) {
                PyErr_SetString(PyExc_ValueError, "an order names a case out of range");
                goto done;
            }
        Gmax = G > Gmax ? G : Gmax;
        outs[mi] = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * nk * REP_WIDTH * 8));
        ocls[mi] = malloc((size_t)(n > 0 ? n : 1));
        ow[mi] = in.v[1].buf ? malloc((size_t)(n > 0 ? n : 1) * sizeof(double)) : NULL;
        if (!outs[mi] || !ocls[mi] || (in.v[1].buf && !ow[mi])) {
            PyErr_NoMemory();
            goto done;
        }
        if (rep_tables_make(&tab[mi], in.v[2].buf, nk, ma[mi].v[2].buf, G, 1) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        const uint8_t *cls = in.v[0].buf;
        const double *w = in.v[1].buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            ocls[mi][i] = cls[order[i]];
            if (w)
                ow[mi][i] = w[order[i]];
        }
    }
    threads = threads < 1 ? 1 : (threads > 64 ? 64 : threads);
    P = malloc((size_t)threads * (size_t)(n > 0 ? n : 1));
    cells = malloc((size_t)threads * 4 * (size_t)Gmax * sizeof(double));
    if (!P || !cells) {
        PyErr_NoMemory();
        goto done;
    }
    multi_rows_job jobs[64];
    Py_BEGIN_ALLOW_THREADS
    for (int t = 0; t < threads; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].cls = in.v[0].buf;
        jobs[t].w = in.v[1].buf;
        jobs[t].plan = in.v[2].buf;
        jobs[t].nk = nk;
        jobs[t].nmodels = nmodels;
        jobs[t].n = n;
        jobs[t].seed = (uint64_t)seed;
        jobs[t].r0 = r0;
        jobs[t].r1 = r1;
        jobs[t].step = threads;
        jobs[t].first = t;
        jobs[t].P = P + (size_t)t * (size_t)(n > 0 ? n : 1);
        jobs[t].cells = cells + (size_t)t * 4 * (size_t)Gmax;
        jobs[t].Gmax = Gmax;
        jobs[t].t[0] = &tab[0];
        jobs[t].t[1] = &tab[1];
        for (int mi = 0; mi < nmodels; mi++)
            jobs[t].m[mi] = (rows_model){ma[mi].v[0].buf, ma[mi].v[1].buf, ma[mi].v[2].buf, ma[mi].n[1],
                                         (double *)PyByteArray_AS_STRING(outs[mi]), ocls[mi], ow[mi]};
    }
    run_jobs(multi_rows_worker, jobs, sizeof(multi_rows_job), threads);
    Py_END_ALLOW_THREADS
    result = nmodels == 2 ? Py_BuildValue("(OO)", outs[0], outs[1]) : (Py_INCREF(outs[0]), outs[0]);
done:
    free(P);
    free(cells);
    for (int mi = 0; mi < 2; mi++) {
        free(ocls[mi]);
        free(ow[mi]);
        rep_tables_free(&tab[mi]);
    }
    Py_XDECREF(outs[0]);
    Py_XDECREF(outs[1]);
    nv_args_release(&ma[0]);
    nv_args_release(&ma[1]);
    nv_args_release(&in);
    return result;
}
