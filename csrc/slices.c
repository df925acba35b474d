/*
 * perfeval._native, slices.c: the average precision of every group of a grouped summary in one pass
 * (issue 34's slices: AP per slice of 10M rows was eight numpy passes over the cells a slicing).
 */
#include "native.h"

/* numpy's pairwise summation of n doubles (numpy/_core/src/umath/loops_utils.h.src, DOUBLE_pairwise_sum:
 * below 8 terms in order from 0.0; up to 128, eight running sums then the rest in order; above, the two
 * halves cut at a multiple of 8), so that a group's sum has the bits of np.sum of its terms. */
static double pairwise_sum(const double *a, Py_ssize_t n)
{
    if (n < 8) {
        double res = 0.;
        for (Py_ssize_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        Py_ssize_t i;
        for (int j = 0; j < 8; j++)
            r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

/* hist_ap_groups(pos, neg, bounds) -> bytes of float64: every group's AP (group k the cells
 * bounds[k]..bounds[k+1] of ascending scores with whole-number counts), NaN for a group without a
 * positive: the bits of the scalar form (measures/rank.py ap) on each group alone.  From the
 * highest cell down: the positives and negatives at or above it (whole numbers: exact), its term
 * pos * (tp / (tp + fp)) (0 where no case is at or above it), the terms summed as np.sum sums them
 * (pairwise_sum), divided by the group's positives. */
PyObject *nv_hist_ap_groups(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no, *bo;
    if (!PyArg_ParseTuple(args, "OOO", &po, &no, &bo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 || nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t nb = in.n[2], G = nb > 0 ? nb - 1 : 0;
    const long long *bounds = in.v[2].buf;
    Py_ssize_t cells = in.n[0] < in.n[1] ? in.n[0] : in.n[1], widest = 0;
    for (Py_ssize_t k = 0; k <= G && nb > 0; k++) {
        if (bounds[k] < 0 || bounds[k] > cells || (k > 0 && bounds[k] < bounds[k - 1])) {
            nv_args_fail(&in, PyExc_ValueError, "hist_ap_groups: bounds must be ascending cell offsets");
            return NULL;
        }
        if (k > 0 && bounds[k] - bounds[k - 1] > widest)
            widest = (Py_ssize_t)(bounds[k] - bounds[k - 1]);
    }
    double *terms = malloc((size_t)(widest > 0 ? widest : 1) * sizeof(double));
    PyObject *res = terms ? PyBytes_FromStringAndSize(NULL, G * (Py_ssize_t)sizeof(double)) : NULL;
    if (res) {
        double *out = (double *)PyBytes_AS_STRING(res);
        const double *pos = in.v[0].buf, *neg = in.v[1].buf;
        NOGIL_BEGIN
        for (Py_ssize_t k = 0; k < G; k++) {
            Py_ssize_t lo = (Py_ssize_t)bounds[k], n = (Py_ssize_t)(bounds[k + 1] - bounds[k]);
            double tp = 0., fp = 0.;
            for (Py_ssize_t j = 0; j < n; j++) {
                Py_ssize_t c = lo + n - 1 - j;
                tp += pos[c];
                fp += neg[c];
                double cases = fp + tp;
                double t = tp / (cases > 0 ? cases : INFINITY);
                terms[j] = t * pos[c];
            }
            out[k] = tp > 0 ? pairwise_sum(terms, n) / tp : NAN; /* tp: the group's positives */
        }
        NOGIL_END
    }
    free(terms);
    nv_args_release(&in);
    if (!terms)
        return PyErr_NoMemory();
    return res;
}
