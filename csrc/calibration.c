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
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[2], n, "group_pav");
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
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[1], n, "group_below");
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

/* group_bin_sums(sc, pos, neg, bounds, n_bins, mass) -> (W, P, S), each a bytearray of G * n_bins
 * float64: every group's weight, positive weight and weighted score sum (sc * (pos + neg)) in each
 * of its bins, each cell added in score order from 0.0 (np.bincount's bits).  A cell's bin: equal
 * width (mass 0), the number of edges k / n_bins (k = 1 .. n_bins - 1, each (double)k / n_bins as
 * np.arange(1, n_bins) / n_bins makes it) at or below its score; equal mass (mass 1), the number of
 * k with k * total <= below * n_bins (below: the group's weight before the cell, total: the
 * group's weight, both added cell by cell from 0.0), compared exactly as the products are. */
PyObject *nv_group_bin_sums(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no, *bo;
    long long B;
    int mass;
    if (!PyArg_ParseTuple(args, "OOOOLp", &so, &po, &no, &bo, &B, &mass))
        return NULL;
    if (B < 1 || B > 1000000000LL)
        return PyErr_Format(PyExc_ValueError, "group_bin_sums: n_bins must be 1 .. 1e9, not %lld", B);
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 ||
        nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "group_bin_sums: scores, pos and neg differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[3].buf;
    Py_ssize_t n = in.n[0];
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[3], n, "group_bin_sums");
    if (G < 0)
        return NULL;
    if (G > 0 && (size_t)G > (size_t)PY_SSIZE_T_MAX / 8 / (size_t)B) {
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    Py_ssize_t cells = G * (Py_ssize_t)B;
    PyObject *out[3] = {0};
    double *edges = mass ? NULL : malloc((size_t)(B > 1 ? B - 1 : 1) * sizeof(double));
    int ok = mass || edges;
    for (int k = 0; ok && k < 3; k++)
        ok = (out[k] = PyByteArray_FromStringAndSize(NULL, cells * 8)) != NULL;
    if (!ok) {
        for (int k = 0; k < 3; k++)
            Py_XDECREF(out[k]);
        free(edges);
        nv_args_release(&in);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    double *W = (double *)PyByteArray_AS_STRING(out[0]), *P = (double *)PyByteArray_AS_STRING(out[1]),
           *S = (double *)PyByteArray_AS_STRING(out[2]);
    const double *sc = in.v[0].buf, *pos = in.v[1].buf, *neg = in.v[2].buf;
    NOGIL_BEGIN
    memset(W, 0, (size_t)cells * 8);
    memset(P, 0, (size_t)cells * 8);
    memset(S, 0, (size_t)cells * 8);
    for (long long k = 1; !mass && k < B; k++)
        edges[k - 1] = (double)k / (double)B;
    const double Bd = (double)B;
    for (Py_ssize_t g = 0; g < G; g++) {
        Py_ssize_t a = bounds[g], b = bounds[g + 1];
        double total = 0.0, below = 0.0;
        if (mass)
            for (Py_ssize_t i = a; i < b; i++)
                total += pos[i] + neg[i];
        double *w = W + g * B, *p = P + g * B, *s = S + g * B;
        for (Py_ssize_t i = a; i < b; i++) {
            double wt = pos[i] + neg[i];
            long long lo = 0, hi = B - 1; /* the answer: how many of the B - 1 edges pass */
            if (mass) {
                double lhs = below * Bd;
                while (lo < hi) { /* the largest j in 0 .. B - 1 with j == 0 or j * total <= lhs */
                    long long mid = lo + (hi - lo + 1) / 2;
                    if ((double)mid * total <= lhs)
                        lo = mid;
                    else
                        hi = mid - 1;
                }
                below += wt;
            } else {
                double v = sc[i];
                while (lo < hi) { /* np.searchsorted(edges, v, side="right") */
                    long long mid = lo + (hi - lo + 1) / 2;
                    if (edges[mid - 1] <= v)
                        lo = mid;
                    else
                        hi = mid - 1;
                }
            }
            w[lo] += wt;
            p[lo] += pos[i];
            s[lo] += sc[i] * wt;
        }
    }
    NOGIL_END
    free(edges);
    nv_args_release(&in);
    return Py_BuildValue("NNN", out[0], out[1], out[2]);
}

/* logit_pass(x, pos, wt, bounds, a, b, active) -> bytearray of 6 * G float64, six rows of G: each
 * active group's (active[g] != 0, uint8) sums at the linear predictor z = a[g] + b[g] * x over its
 * cells in order, from 0.0: g0 = sum r, g1 = sum r x, h00 = sum v, h01 = sum v x, h11 = sum v x x
 * (r = pos - wt mu, v = wt mu (1 - mu), mu the logistic of z), and the binomial log-likelihood
 * -sum (pos log(1 + e^-z) + (wt - pos) log(1 + e^z)); zeros for the other groups.  One exp and one
 * log1p a cell (e = exp(-|z|)): a Newton step of the logistic recalibration of every group at once,
 * a group's numbers the same alone or among others. */
PyObject *nv_logit_pass(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *xo, *po, *wo, *bo, *ao, *bbo, *acto;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &xo, &po, &wo, &bo, &ao, &bbo, &acto))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, xo, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, wo, NV_F64) < 0 ||
        nv_arg(&in, bo, NV_RAW8) < 0 || nv_arg(&in, ao, NV_F64) < 0 || nv_arg(&in, bbo, NV_F64) < 0 ||
        nv_arg(&in, acto, NV_RAW1) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "logit_pass: x, pos and wt differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[3].buf;
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[3], in.n[0], "logit_pass");
    if (G < 0)
        return NULL;
    if (in.n[4] != G || in.n[5] != G || in.n[6] != G) {
        nv_args_fail(&in, PyExc_ValueError, "logit_pass: a, b and active need one value a group");
        return NULL;
    }
    PyObject *res = PyByteArray_FromStringAndSize(NULL, 6 * G * 8);
    if (!res) {
        nv_args_release(&in);
        return NULL;
    }
    double *o = (double *)PyByteArray_AS_STRING(res);
    const double *x = in.v[0].buf, *pos = in.v[1].buf, *wt = in.v[2].buf, *A = in.v[4].buf, *Bc = in.v[5].buf;
    const unsigned char *act = in.v[6].buf;
    NOGIL_BEGIN
    memset(o, 0, (size_t)(6 * G) * 8);
    for (Py_ssize_t g = 0; g < G; g++) {
        if (!act[g])
            continue;
        double g0 = 0.0, g1 = 0.0, h00 = 0.0, h01 = 0.0, h11 = 0.0, ll = 0.0;
        const double a = A[g], b = Bc[g];
        for (Py_ssize_t i = bounds[g]; i < bounds[g + 1]; i++) {
            double z = a + b * x[i];
            double e = exp(-fabs(z));
            double mu = z >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
            double r = pos[i] - wt[i] * mu, v = wt[i] * mu * (1.0 - mu);
            double sp = log1p(e);
            double lneg = sp + (z < 0 ? -z : 0.0), lpos = sp + (z > 0 ? z : 0.0);
            g0 += r;
            g1 += r * x[i];
            h00 += v;
            h01 += v * x[i];
            h11 += v * x[i] * x[i];
            ll += pos[i] * lneg + (wt[i] - pos[i]) * lpos;
        }
        o[g] = g0, o[G + g] = g1, o[2 * G + g] = h00, o[3 * G + g] = h01, o[4 * G + g] = h11, o[5 * G + g] = -ll;
    }
    NOGIL_END
    nv_args_release(&in);
    return res;
}
