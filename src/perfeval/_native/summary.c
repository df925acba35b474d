/*
 * perfeval._x87, summary.c: modern float64 kernels over summaries (score histograms, runs of a
 * sorted array): sequential sums that numpy would need several n-sized temporaries for.
 */
#include "native.h"

/* ------------------------------------------------------------------------------------------------ */
/* modern (float64) kernels over a ScoreHistogram: sequential sums that numpy would need several     */
/* n-sized temporaries for                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/* The columns of these kernels are typed float64 arrays (NV_F64); where they differ in length the
 * shortest decides (no error). */
static inline Py_ssize_t shortest(const nv_args *in, int count)
{
    Py_ssize_t n = in->n[0];
    for (int k = 1; k < count; k++)
        if (in->n[k] < n)
            n = in->n[k];
    return n;
}

/* hist_apr(pos, neg) -> sum over tie groups of the expected precision at their positives, walking
 * from the highest score (the arrays are ascending).  Per group of g cases with m positives below a
 * cases of which b are positive: (m/g) ((b + 1) S1 + (m - 1)/(g - 1) S2), S1 = sum_j 1/(a + j),
 * S2 = sum_j (j - 1)/(a + j), j = 1..g. */
/* The APR numerator of the cells [lo, hi) (one group's histogram, ascending scores). */
static double apr_total(const double *pos, const double *neg, Py_ssize_t lo, Py_ssize_t hi)
{
    double total = 0, a = 0, b = 0;
    for (Py_ssize_t i = hi - 1; i >= lo; i--) {
        double m = pos[i], g = m + neg[i];
        if (m > 0) {
            if (g == 1)
                total += (b + 1.0) / (a + 1.0);
            else {
                double s1 = 0, s2 = 0;
                long long gi = (long long)g;
                for (long long j = 1; j <= gi; j++) {
                    double inv = 1.0 / (a + (double)j);
                    s1 += inv;
                    s2 += (double)(j - 1) * inv;
                }
                total += m / g * ((b + 1.0) * s1 + (m - 1.0) / (g - 1.0) * s2);
            }
        }
        a += g;
        b += m;
    }
    return total;
}

PyObject *nv_hist_apr(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no;
    if (!PyArg_ParseTuple(args, "OO", &po, &no))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0)
        return NULL;
    double total;
    NOGIL_BEGIN
    total = apr_total(in.v[0].buf, in.v[1].buf, 0, shortest(&in, 2));
    NOGIL_END
    nv_args_release(&in);
    return PyFloat_FromDouble(total);
}

/* hist_apr_groups(pos, neg, bounds) -> bytes of float64: the APR numerator of every group, group k
   being the cells bounds[k]..bounds[k+1] (one call, instead of one call a group from Python). */
PyObject *nv_hist_apr_groups(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no, *bo;
    if (!PyArg_ParseTuple(args, "OOO", &po, &no, &bo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 || nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t nb_ = in.n[2], G = nb_ > 0 ? nb_ - 1 : 0;
    const long long *bounds = in.v[2].buf;
    Py_ssize_t cells = shortest(&in, 2);
    for (Py_ssize_t k = 0; k <= G && nb_ > 0; k++) {
        if (bounds[k] < 0 || bounds[k] > cells || (k > 0 && bounds[k] < bounds[k - 1])) {
            nv_args_fail(&in, PyExc_ValueError, "hist_apr_groups: bounds must be ascending cell offsets");
            return NULL;
        }
    }
    PyObject *res = PyBytes_FromStringAndSize(NULL, G * (Py_ssize_t)sizeof(double));
    if (res) {
        double *out = (double *)PyBytes_AS_STRING(res);
        const double *pos = in.v[0].buf, *neg = in.v[1].buf;
        NOGIL_BEGIN
        for (Py_ssize_t k = 0; k < G; k++)
            out[k] = apr_total(pos, neg, bounds[k], bounds[k + 1]);
        NOGIL_END
    }
    nv_args_release(&in);
    return res;
}

/* hist_ca2(scores, pos, neg, S) -> mean over the windows of S consecutive cases (ascending scores) of
 * |positive share - mean score|, each case of a group counting pos/size of a positive.  The running
 * window sums are kept in 80-bit so ten million additions and removals do not drift. */
PyObject *nv_hist_ca2(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no;
    long long S;
    if (!PyArg_ParseTuple(args, "OOOL", &so, &po, &no, &S))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0)
        return NULL;
    const double *sc = in.v[0].buf, *pos = in.v[1].buf, *neg = in.v[2].buf;
    Py_ssize_t groups = shortest(&in, 3);
    double result = NAN;
    NOGIL_BEGIN
    /* the window is [head case, tail case]; cases are walked group by group */
    ext wf = 0, ws = 0, err = 0;
    long long count = 0, windows = 0;
    Py_ssize_t tg = 0;      /* group of the case leaving the window */
    long long tleft = 0;    /* cases of that group still inside */
    if (groups > 0)
        tleft = (long long)(pos[0] + neg[0]);
    for (Py_ssize_t hg = 0; hg < groups; hg++) {
        long long size = (long long)(pos[hg] + neg[hg]);
        double frac = size > 0 ? pos[hg] / (double)size : 0.0;
        for (long long c = 0; c < size; c++) {
            wf += frac;
            ws += sc[hg];
            count++;
            if (count >= S) {
                err += fabsl((wf - ws) / (ext)S);
                windows++;
                while (tleft == 0) { /* skip empty groups */
                    tg++;
                    tleft = (long long)(pos[tg] + neg[tg]);
                }
                double tsize = pos[tg] + neg[tg];
                wf -= tsize > 0 ? pos[tg] / tsize : 0.0;
                ws -= sc[tg];
                tleft--;
            }
        }
    }
    if (windows > 0)
        result = (double)(err / (ext)windows);
    NOGIL_END
    nv_args_release(&in);
    return PyFloat_FromDouble(result);
}

/* expected_rr(a, g, m) -> for each tie group (a cases above it, g cases, m >= 1 relevant), the
 * expected reciprocal rank of its first relevant case under a random order: sum over j of
 * P(J = j) / (a + j), P(J = 1) = m/g, P(J = j+1) = P(J = j) (g - j - m + 1)/(g - j).  Each group
 * on its own, so the value does not depend on the other groups evaluated with it. */
PyObject *nv_expected_rr(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ao, *go, *mo;
    if (!PyArg_ParseTuple(args, "OOO", &ao, &go, &mo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, ao, NV_F64) < 0 || nv_arg(&in, go, NV_F64) < 0 || nv_arg(&in, mo, NV_F64) < 0)
        return NULL;
    Py_ssize_t n = shortest(&in, 3);
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (out) {
        double *o = (double *)PyByteArray_AS_STRING(out);
        const double *a = in.v[0].buf, *g = in.v[1].buf, *m = in.v[2].buf;
        NOGIL_BEGIN
        for (Py_ssize_t i = 0; i < n; i++) {
            double pj = m[i] / g[i], sum = 0;
            long long span = (long long)(g[i] - m[i] + 1);
            for (long long j = 1; j <= span; j++) {
                sum += pj / (a[i] + (double)j);
                pj *= (g[i] - (double)j - m[i] + 1) / (g[i] - (double)j);
            }
            o[i] = sum;
        }
        NOGIL_END
    }
    nv_args_release(&in);
    return out;
}

/* disc_sums(first, stop) -> for each i, the sum over the 0-based positions p in [first[i], stop[i])
 * of 1 / log2(p + 2): the rank discount of DCG summed over a run of positions (a tie, or a run of
 * equal grades in the ideal order).  A function of the two ends only, so a query's DCG is the same
 * whether its rows were in memory or only its summary (counts per score and grade) was: a huge tie
 * costs one pass over its positions, not an array of them.  Summed in 80-bit. */
PyObject *nv_disc_sums(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *fo, *so;
    if (!PyArg_ParseTuple(args, "OO", &fo, &so))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, fo, NV_F64) < 0 || nv_arg(&in, so, NV_F64) < 0)
        return NULL;
    Py_ssize_t n = shortest(&in, 2);
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (out) {
        double *o = (double *)PyByteArray_AS_STRING(out);
        const double *f = in.v[0].buf, *st = in.v[1].buf;
        NOGIL_BEGIN
        for (Py_ssize_t i = 0; i < n; i++) {
            ext sum = 0;
            long long a = (long long)f[i], b = (long long)st[i];
            for (long long p = a; p < b; p++)
                sum += 1.0 / log2((double)p + 2.0);
            o[i] = (double)sum;
        }
        NOGIL_END
    }
    nv_args_release(&in);
    return out;
}

/* runs(sorted float64 buffer) -> (distinct values bytearray, counts float64 bytearray)
 * The distinct values of a sorted array and how often each occurs.  Why C: the numpy version
 * (not_equal, flatnonzero, gather, diff) makes five passes and five fresh 80 MB arrays on 10M rows,
 * ~0.45 s of mostly page faults; this is one pass, ~0.03 s. */
PyObject *nv_runs(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *xo;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "O", &xo) || nv_arg(&in, xo, NV_RAW8) < 0)
        return NULL;
    const double *x = in.v[0].buf;
    Py_ssize_t n = in.n[0], k = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (i == 0 || x[i] != x[i - 1])
            k++;
    PyObject *vals = PyByteArray_FromStringAndSize(NULL, k * 8);
    PyObject *cnts = PyByteArray_FromStringAndSize(NULL, k * 8);
    if (!vals || !cnts) {
        Py_XDECREF(vals);
        Py_XDECREF(cnts);
        nv_args_release(&in);
        return NULL;
    }
    double *pv = (double *)PyByteArray_AS_STRING(vals), *pc = (double *)PyByteArray_AS_STRING(cnts);
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t j = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i == 0 || x[i] != x[i - 1]) {
            j++;
            pv[j] = x[i] + 0.0; /* -0.0 and 0.0 are one run, kept as +0.0 */
            pc[j] = 0.0;
        }
        pc[j] += 1.0;
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    return Py_BuildValue("(NN)", vals, cnts);
}
