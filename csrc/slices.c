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
    const long long *bounds = in.v[2].buf;
    Py_ssize_t cells = in.n[0] < in.n[1] ? in.n[0] : in.n[1], widest = 0;
    Py_ssize_t G = nv_group_bounds(&in, (const int64_t *)bounds, in.n[2], cells, "hist_ap_groups");
    if (G < 0)
        return NULL;
    for (Py_ssize_t k = 1; k <= G; k++) {
        if (bounds[k] - bounds[k - 1] > widest)
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

/* ------------------------------------------------------------------------------------------------ */
/* cells_hist: summaries of groups from cells that already summarise rows                           */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    double s, p, q; /* a distinct score, its positives and negatives (whole counts) */
} cell;

/* the cells a[0..n) sorted by score, merging the sorted runs they come in (a natural merge sort:
 * n log(runs)); tmp holds n cells */
static void merge_runs(cell *a, cell *tmp, Py_ssize_t n, Py_ssize_t *runs)
{
    Py_ssize_t r = 0;
    runs[r++] = 0;
    for (Py_ssize_t i = 1; i < n; i++)
        if (a[i].s < a[i - 1].s)
            runs[r++] = i;
    runs[r] = n;
    cell *src = a, *dst = tmp;
    while (r > 1) {
        Py_ssize_t w = 0;
        for (Py_ssize_t k = 0; k < r; k += 2) {
            Py_ssize_t lo = runs[k];
            if (k + 1 >= r) { /* an odd run out: copied over */
                memcpy(dst + lo, src + lo, (size_t)(n - lo) * sizeof(cell));
                runs[w++] = lo;
                break;
            }
            Py_ssize_t mid = runs[k + 1], hi = runs[k + 2]; /* runs[r] is n: k + 2 <= r */
            Py_ssize_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = src[j].s < src[i].s ? src[j++] : src[i++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
            runs[w++] = lo;
        }
        runs[w] = n;
        r = w;
        cell *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof(cell));
}

typedef struct {
    cell *rec;
    const int64_t *starts;
    int64_t g0, g1, widest;
    int64_t *cells;
    double *sc, *pos, *neg;
    int ok;
} cells_job;

static void *cells_groups(void *arg)
{
    cells_job *j = arg;
    cell *tmp = malloc((size_t)(j->widest > 0 ? j->widest : 1) * sizeof(cell));
    Py_ssize_t *runs = malloc((size_t)(j->widest + 2) * sizeof(Py_ssize_t));
    if (!tmp || !runs) {
        free(tmp);
        free(runs);
        j->ok = 0;
        return NULL;
    }
    for (int64_t g = j->g0; g < j->g1; g++) {
        Py_ssize_t a = j->starts[g], n = j->starts[g + 1] - a, e = a;
        cell *c = j->rec + a;
        if (n > 1)
            merge_runs(c, tmp, n, runs);
        for (Py_ssize_t i = 0; i < n;) { /* equal scores one cell, their counts added (exact) */
            double s = c[i].s, p = 0., q = 0.;
            for (; i < n && c[i].s == s; i++) {
                p += c[i].p;
                q += c[i].q;
            }
            j->sc[e] = s + 0.0; /* -0.0 as 0.0 */
            j->pos[e] = p;
            j->neg[e] = q;
            e++;
        }
        j->cells[g] = e - a;
    }
    free(tmp);
    free(runs);
    return NULL;
}

/* cells_hist(keys, scores, pos, neg, G) -> (scores, pos, neg, bounds): every group's summary (its
 * distinct scores ascending with their positive and negative counts; group g's at
 * bounds[g]:bounds[g + 1]) from cells that summarise rows (keys int64 0..G-1, whole counts): the
 * cells of each group gathered in their order and merged as the sorted runs they come in (a group's
 * cells from summaries sorted by score: a few runs), equal scores one cell.  The same summaries as
 * group_hist_rows makes of the rows the cells count (whole counts: exact in any order). */
PyObject *nv_cells_hist(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ko, *so, *po, *no;
    long long G;
    if (!PyArg_ParseTuple(args, "OOOOL", &ko, &so, &po, &no, &G))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, ko, NV_RAW8) < 0 || nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 ||
        nv_arg(&in, no, NV_F64) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    if (in.n[1] != n || in.n[2] != n || in.n[3] != n || G < 0) {
        nv_args_fail(&in, PyExc_ValueError, "cells_hist: keys, scores, pos and neg differ in length, or G < 0");
        return NULL;
    }
    const int64_t *key = in.v[0].buf;
    for (Py_ssize_t i = 0; i < n; i++)
        if (key[i] < 0 || key[i] >= G) {
            nv_args_fail(&in, PyExc_ValueError, "cells_hist: a key outside [0, G)");
            return NULL;
        }
    const double *sc0 = in.v[1].buf, *p0 = in.v[2].buf, *q0 = in.v[3].buf;
    PyObject *out[4] = {0};
    int ok = 1;
    for (int k = 0; ok && k < 3; k++)
        ok = (out[k] = nv_buf_result(n * 8)) != NULL;
    ok = ok && (out[3] = PyByteArray_FromStringAndSize(NULL, (G + 1) * 8)) != NULL;
    int64_t *starts = calloc((size_t)G + 2, sizeof(int64_t)), *cells = calloc((size_t)G + 1, sizeof(int64_t)),
            *fill = calloc((size_t)G + 1, sizeof(int64_t));
    cell *rec = malloc((size_t)(n > 0 ? n : 1) * sizeof(cell));
    ok = ok && starts && cells && fill && rec;
    int64_t T = 0;
    if (ok) {
        double *sc = (double *)((nv_BufObject *)out[0])->data, *pos = (double *)((nv_BufObject *)out[1])->data,
               *neg = (double *)((nv_BufObject *)out[2])->data;
        int64_t *bounds = (int64_t *)PyByteArray_AS_STRING(out[3]);
        NOGIL_BEGIN
        for (Py_ssize_t i = 0; i < n; i++)
            starts[key[i] + 1]++;
        int64_t widest = 0;
        for (int64_t g = 0; g < G; g++) {
            if (starts[g + 1] > widest)
                widest = starts[g + 1];
            starts[g + 1] += starts[g];
            fill[g] = starts[g];
        }
        for (Py_ssize_t i = 0; i < n; i++) { /* each group's cells, in their order */
            cell c = {sc0[i], p0[i], q0[i]};
            rec[fill[key[i]]++] = c;
        }
        int64_t mid = 0;
        while (mid < G && starts[mid] < n / 2)
            mid++;
        cells_job jobs[2] = {{rec, starts, 0, mid, widest, cells, sc, pos, neg, 1},
                             {rec, starts, mid, G, widest, cells, sc, pos, neg, 1}};
        pthread_t th;
        int threaded = n > 100000 && G > 1 && pthread_create(&th, NULL, cells_groups, &jobs[1]) == 0;
        cells_groups(&jobs[0]);
        if (threaded)
            pthread_join(th, NULL);
        else
            cells_groups(&jobs[1]);
        ok = jobs[0].ok && jobs[1].ok;
        for (int64_t g = 0; ok && g < G; g++) { /* the entries moved up to their place */
            bounds[g] = T;
            if (T != starts[g] && cells[g] > 0) {
                memmove(sc + T, sc + starts[g], (size_t)cells[g] * 8);
                memmove(pos + T, pos + starts[g], (size_t)cells[g] * 8);
                memmove(neg + T, neg + starts[g], (size_t)cells[g] * 8);
            }
            T += cells[g];
        }
        bounds[G] = T;
        NOGIL_END
    }
    free(starts);
    free(cells);
    free(fill);
    free(rec);
    nv_args_release(&in);
    for (int k = 0; ok && k < 3; k++)
        ((nv_BufObject *)out[k])->len = T * 8;
    if (!ok) {
        for (int k = 0; k < 4; k++)
            Py_XDECREF(out[k]);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    return Py_BuildValue("(NNNN)", out[0], out[1], out[2], out[3]);
}
