/*
 * calibration.c -- the calibration measures' per-group passes (perfeval.measures.calibration):
 * the isotonic (PAV) recalibration of every group's cells and every group's weight below each cell,
 * over the groups' summaries laid end to end (group k's distinct scores ascending at cells
 * bounds[k]:bounds[k + 1]).
 *
 * Why C: both are a sequential walk per group (a stack of pooled blocks; a running sum), which numpy
 * has no segmented form of, and a Python loop over 100,000 groups takes seconds.  One group is the
 * same walk as every group at once, so a group's numbers are the bits of that group alone.
 */
#include "native.h"

static Py_ssize_t cal_bounds(nv_args *in, const int64_t *bounds, Py_ssize_t nb, Py_ssize_t cells, const char *who)
{
    Py_ssize_t G = nb > 0 ? nb - 1 : 0;
    for (Py_ssize_t k = 0; k < nb; k++)
        if (bounds[k] < 0 || bounds[k] > cells || (k > 0 && bounds[k] < bounds[k - 1]) ||
            (k == G && bounds[k] != cells)) {
            PyErr_Format(PyExc_ValueError, "%s: bounds must be ascending cell offsets ending at the cells", who);
            nv_args_release(in);
            return -1;
        }
    return G;
}

/* group_pav(pos, wt, bounds) -> bytearray of float64, one per cell: each group's weighted isotonic
 * (non-decreasing) regression of its cells' shares of positives pos / wt, by pool adjacent violators:
 * the cells in order, each a block (its positive weight P and weight W); while the block before
 * has a larger share P / W than the last, the two are pooled (their P and W added).  A cell's value is
 * its block's P / W.  Every cell must have weight > 0. */
PyObject *nv_group_pav(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *wo, *bo;
    if (!PyArg_ParseTuple(args, "OOO", &po, &wo, &bo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, wo, NV_F64) < 0 || nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1)) {
        nv_args_fail(&in, PyExc_ValueError, "group_pav: pos and wt differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[2].buf;
    Py_ssize_t n = in.n[0];
    Py_ssize_t G = cal_bounds(&in, bounds, in.n[2], n, "group_pav");
    if (G < 0)
        return NULL;
    PyObject *res = PyByteArray_FromStringAndSize(NULL, n * 8);
    /* the blocks of one group: P, W and the first cell of each (at most the group's cells) */
    Py_ssize_t most = 0;
    for (Py_ssize_t k = 0; k < G; k++)
        if (bounds[k + 1] - bounds[k] > most)
            most = bounds[k + 1] - bounds[k];
    double *bp = malloc((size_t)(most > 0 ? most : 1) * 2 * sizeof(double));
    Py_ssize_t *bs = malloc((size_t)(most > 0 ? most : 1) * sizeof(Py_ssize_t));
    if (!res || !bp || !bs) {
        Py_XDECREF(res);
        free(bp);
        free(bs);
        nv_args_release(&in);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    double *out = (double *)PyByteArray_AS_STRING(res);
    const double *pos = in.v[0].buf, *wt = in.v[1].buf;
    double *bw = bp + (most > 0 ? most : 1);
    NOGIL_BEGIN
    for (Py_ssize_t k = 0; k < G; k++) {
        Py_ssize_t a = bounds[k], b = bounds[k + 1], top = 0;
        for (Py_ssize_t i = a; i < b; i++) {
            bp[top] = pos[i], bw[top] = wt[i], bs[top] = i;
            top++;
            while (top > 1 && bp[top - 2] / bw[top - 2] > bp[top - 1] / bw[top - 1]) {
                bp[top - 2] += bp[top - 1];
                bw[top - 2] += bw[top - 1];
                top--;
            }
        }
        for (Py_ssize_t j = 0; j < top; j++) {
            double v = bp[j] / bw[j];
            Py_ssize_t end = j + 1 < top ? bs[j + 1] : b;
            for (Py_ssize_t i = bs[j]; i < end; i++)
                out[i] = v;
        }
    }
    NOGIL_END
    free(bp);
    free(bs);
    nv_args_release(&in);
    return res;
}

/* group_below(wt, bounds) -> bytearray of float64, one per cell: the weight of the group's cells
 * before it, added one by one from 0.0 (numpy's cumsum of the group's weights shifted by one). */
PyObject *nv_group_below(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *wo, *bo;
    if (!PyArg_ParseTuple(args, "OO", &wo, &bo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, wo, NV_F64) < 0 || nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    const int64_t *bounds = in.v[1].buf;
    Py_ssize_t n = in.n[0];
    Py_ssize_t G = cal_bounds(&in, bounds, in.n[1], n, "group_below");
    if (G < 0)
        return NULL;
    PyObject *res = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (!res) {
        nv_args_release(&in);
        return NULL;
    }
    double *out = (double *)PyByteArray_AS_STRING(res);
    const double *wt = in.v[0].buf;
    NOGIL_BEGIN
    for (Py_ssize_t k = 0; k < G; k++) {
        double acc = 0.0;
        for (Py_ssize_t i = bounds[k]; i < bounds[k + 1]; i++) {
            out[i] = acc;
            acc += wt[i];
        }
    }
    NOGIL_END
    nv_args_release(&in);
    return res;
}
