/*
 * calibration.c -- the calibration measures' passes (perfeval.measures.calibration), over the groups'
 * summaries laid end to end (group k's distinct scores ascending at cells bounds[k]:bounds[k + 1]),
 * or over one summary of unit cases still held as its two classes' sorted scores (walked up together,
 * its cells met in order, without the summary's three arrays: 240 MB for 10M distinct scores):
 * ECE's bins (group_bin_sums, bin_sums_split), the Brier score's parts with CORP's isotonic (PAV)
 * recalibration (brier_cells, brier_split), each cell's weight below it (group_below), and the
 * logistic recalibration's Newton fits (fit_cells, class_runs, logit_fit, logit_fit_classes; their
 * pass in calib_pass.h) and why a group's joint fit has no value (fit_why).
 *
 * Why C: each is a sequential walk per group (a stack of pooled blocks; a running sum; Newton's steps
 * over the cells), which numpy has no segmented form of, and a Python loop over 100,000 groups takes
 * seconds.  One group is the same walk as every group at once, so a group's numbers are the bits of
 * that group alone; the walk from the classes' scores meets the same cells in the same order, so a
 * summary's numbers do not depend on whether its arrays were made.
 */
#include "native.h"
#include <unistd.h> /* sysconf */

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

/* The cells of one summary: its arrays (sc, pos, neg at k .. end - 1), or, for a summary of unit
 * cases not yet made into arrays, the positives' and the negatives' scores, each sorted ascending,
 * walked up together (a run of equal scores across both is a cell: csrc/summary.c hist_merge's
 * cells, score + 0.0, its counts).  A cell's weight is pos + neg, as the caller's arrays add it. */
typedef struct {
    const double *sc, *pos, *neg;
    Py_ssize_t k, end;
    const double *ps, *ns; /* split: the positives' and the negatives' scores */
    Py_ssize_t i, j, np_, nn;
    int split;
} cal_src;

static inline int src_next(cal_src *s, double *v, double *p, double *q, double *w)
{
    if (!s->split) {
        if (s->k >= s->end)
            return 0;
        *v = s->sc[s->k], *p = s->pos[s->k], *q = s->neg[s->k], *w = s->pos[s->k] + s->neg[s->k];
        s->k++;
        return 1;
    }
    if (s->i >= s->np_ && s->j >= s->nn)
        return 0;
    double u = s->j >= s->nn || (s->i < s->np_ && s->ps[s->i] <= s->ns[s->j]) ? s->ps[s->i] : s->ns[s->j];
    Py_ssize_t i0 = s->i, j0 = s->j;
    while (s->i < s->np_ && s->ps[s->i] == u)
        s->i++;
    while (s->j < s->nn && s->ns[s->j] == u)
        s->j++;
    double m = (double)(s->i - i0), k = (double)(s->j - j0);
    *v = u + 0.0, *p = m, *q = k, *w = m + k;
    return 1;
}

/* Each cell of s into its bin of B (group_bin_sums says which): its weight, positive weight and
 * weighted score added to w, p and sm, in score order; total the group's weight (equal mass). */
static void bin_cells(cal_src *s, long long B, int mass, const double *edges, double total, double *w, double *p,
                      double *sm)
{
    const double Bd = (double)B;
    double below = 0.0, v, pos, neg, wt;
    while (src_next(s, &v, &pos, &neg, &wt)) {
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
            while (lo < hi) { /* np.searchsorted(edges, v, side="right") */
                long long mid = lo + (hi - lo + 1) / 2;
                if (edges[mid - 1] <= v)
                    lo = mid;
                else
                    hi = mid - 1;
            }
        }
        w[lo] += wt;
        p[lo] += pos;
        sm[lo] += v * wt;
    }
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
    for (Py_ssize_t g = 0; g < G; g++) {
        Py_ssize_t a = bounds[g], b = bounds[g + 1];
        double total = 0.0;
        if (mass)
            for (Py_ssize_t i = a; i < b; i++)
                total += pos[i] + neg[i];
        cal_src s = {.sc = sc, .pos = pos, .neg = neg, .k = a, .end = b};
        bin_cells(&s, B, mass, edges, total, W + g * B, P + g * B, S + g * B);
    }
    NOGIL_END
    free(edges);
    nv_args_release(&in);
    return Py_BuildValue("NNN", out[0], out[1], out[2]);
}

/* one group's calibration error from its bins' sums (w, p, sm: B float64 each): ece_of_bins' row */
static double ece_row(const double *w, const double *p, const double *sm, long long B, int norm, int deb)
{
    double n = 0.0, acc = 0.0, m = -INFINITY;
    for (long long b = 0; b < B; b++)
        n = n + w[b];
    for (long long b = 0; b < B; b++) {
        double d = w[b] > 0 ? w[b] : 1.0, gap = w[b] > 0 ? p[b] / d - sm[b] / d : 0.0;
        if (norm == 2) {
            double x = w[b] > 0 ? fabs(gap) : -INFINITY;
            if (!isnan(m) && (isnan(x) || x > m))
                m = x;
            continue;
        }
        double term;
        if (norm == 0)
            term = w[b] * fabs(gap);
        else {
            term = w[b] * gap * gap;
            if (deb) {
                double ybar = w[b] > 0 ? p[b] / d : 0.0;
                term = term - (w[b] > 1 ? w[b] * ybar * (1.0 - ybar) / (w[b] - 1.0) : 0.0);
            }
        }
        acc = acc + term;
    }
    double v;
    if (norm == 2)
        v = m;
    else {
        v = acc / (n > 0 ? n : 1.0);
        if (norm == 1)
            v = sqrt(v >= 0.0 || isnan(v) ? v : 0.0); /* np.maximum(v, 0.0): v is never -0.0 */
    }
    return n > 0 ? v : NAN;
}

/* ece_of_bins(W, P, S, n_bins, norm, debiased) -> bytearray of G float64: each group's calibration
 * error from its bins' sums (W, P, S: G rows of n_bins float64, group_bin_sums' tables), with the
 * arithmetic of perfeval.measures.calibration._ece_of_bins's numpy expressions element by element
 * and its sums in bin order from 0.0 (n = sum W; a bin's gap P / W - S / W, 0 when W is 0; norm 0
 * (l1): sum W |gap|, 1 (l2): sum W gap gap, less W ybar (1 - ybar) / (W - 1) where W > 1 when
 * debiased, over n, its root (of 0 when below), 2 (max): the largest |gap| of a bin with W > 0, NaN
 * as soon as one is NaN, as np.max; NaN where n is 0): the same bits.  Why C: a dozen numpy passes
 * over the (group, bin) tables were half of ECE's time for 100,000 groups. */
PyObject *nv_ece_of_bins(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *wo, *po, *so;
    long long B;
    int norm, deb;
    if (!PyArg_ParseTuple(args, "OOOLip", &wo, &po, &so, &B, &norm, &deb))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, wo, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, so, NV_F64) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2) || B < 1 || in.n[0] % B || norm < 0 || norm > 2) {
        nv_args_fail(&in, PyExc_ValueError, "ece_of_bins: W, P and S must be G rows of n_bins, norm 0 .. 2");
        return NULL;
    }
    Py_ssize_t G = in.n[0] / B;
    PyObject *res = PyByteArray_FromStringAndSize(NULL, G * 8);
    if (!res) {
        nv_args_release(&in);
        return NULL;
    }
    double *out = (double *)PyByteArray_AS_STRING(res);
    const double *W = in.v[0].buf, *P = in.v[1].buf, *S = in.v[2].buf;
    NOGIL_BEGIN
    for (Py_ssize_t g = 0; g < G; g++)
        out[g] = ece_row(W + g * B, P + g * B, S + g * B, B, norm, deb);
    NOGIL_END
    nv_args_release(&in);
    return res;
}

/* group_ece(sc, pos, neg, bounds, n_bins, mass, norm, debiased) -> bytearray of G float64: each
 * group's calibration error from its summary (cells bounds[g]:bounds[g + 1]), made as group_bin_sums
 * then ece_of_bins make it (the same bin_cells into a group's bins, from 0.0; the same ece_row), so
 * the same bits, without the (group, bin) tables (for 100,000 groups of 15 bins, 36 MB written and
 * read again). */
PyObject *nv_group_ece(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no, *bo;
    long long B;
    int mass, norm, deb;
    if (!PyArg_ParseTuple(args, "OOOOLpip", &so, &po, &no, &bo, &B, &mass, &norm, &deb))
        return NULL;
    if (B < 1 || B > 1000000000LL || norm < 0 || norm > 2)
        return PyErr_Format(PyExc_ValueError, "group_ece: n_bins must be 1 .. 1e9 and norm 0 .. 2");
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 ||
        nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "group_ece: scores, pos and neg differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[3].buf;
    Py_ssize_t n = in.n[0];
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[3], n, "group_ece");
    if (G < 0)
        return NULL;
    double *edges = mass ? NULL : malloc((size_t)(B > 1 ? B - 1 : 1) * sizeof(double));
    double *bins = malloc((size_t)B * 3 * sizeof(double));
    PyObject *res = (mass || edges) && bins ? PyByteArray_FromStringAndSize(NULL, G * 8) : NULL;
    if (!res) {
        free(edges);
        free(bins);
        nv_args_release(&in);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    double *out = (double *)PyByteArray_AS_STRING(res), *W = bins, *P = bins + B, *S = bins + 2 * B;
    const double *sc = in.v[0].buf, *pos = in.v[1].buf, *neg = in.v[2].buf;
    NOGIL_BEGIN
    for (long long k = 1; !mass && k < B; k++)
        edges[k - 1] = (double)k / (double)B;
    for (Py_ssize_t g = 0; g < G; g++) {
        Py_ssize_t a = bounds[g], b = bounds[g + 1];
        double total = 0.0;
        if (mass)
            for (Py_ssize_t i = a; i < b; i++)
                total += pos[i] + neg[i];
        memset(bins, 0, (size_t)B * 3 * sizeof(double));
        cal_src s = {.sc = sc, .pos = pos, .neg = neg, .k = a, .end = b};
        bin_cells(&s, B, mass, edges, total, W, P, S);
        out[g] = ece_row(W, P, S, B, norm, deb);
    }
    NOGIL_END
    free(edges);
    free(bins);
    nv_args_release(&in);
    return res;
}

/* bin_sums_split(pos_scores, neg_scores, n_bins, mass) -> (W, P, S), each a bytearray of n_bins
 * float64: group_bin_sums of the summary of unit cases whose positives' and negatives' scores are
 * given, each sorted ascending, bit for bit, walked from the two arrays without making the summary
 * (its weight, a sum of whole counts, is their number). */
PyObject *nv_bin_sums_split(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ao, *bo;
    long long B;
    int mass;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOLp", &ao, &bo, &B, &mass))
        return NULL;
    if (B < 1 || B > 1000000000LL)
        return PyErr_Format(PyExc_ValueError, "bin_sums_split: n_bins must be 1 .. 1e9, not %lld", B);
    if (nv_arg(&in, ao, NV_F64) < 0 || nv_arg(&in, bo, NV_F64) < 0)
        return NULL;
    PyObject *out[3] = {0};
    double *edges = mass ? NULL : malloc((size_t)(B > 1 ? B - 1 : 1) * sizeof(double));
    int ok = mass || edges;
    for (int k = 0; ok && k < 3; k++)
        ok = (out[k] = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)B * 8)) != NULL;
    if (!ok) {
        for (int k = 0; k < 3; k++)
            Py_XDECREF(out[k]);
        free(edges);
        nv_args_release(&in);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    double *W = (double *)PyByteArray_AS_STRING(out[0]), *P = (double *)PyByteArray_AS_STRING(out[1]),
           *S = (double *)PyByteArray_AS_STRING(out[2]);
    cal_src s = {.split = 1, .ps = in.v[0].buf, .np_ = in.n[0], .ns = in.v[1].buf, .nn = in.n[1]};
    NOGIL_BEGIN
    memset(W, 0, (size_t)B * 8);
    memset(P, 0, (size_t)B * 8);
    memset(S, 0, (size_t)B * 8);
    for (long long k = 1; !mass && k < B; k++)
        edges[k - 1] = (double)k / (double)B;
    bin_cells(&s, B, mass, edges, (double)(s.np_ + s.nn), W, P, S);
    NOGIL_END
    free(edges);
    nv_args_release(&in);
    return Py_BuildValue("NNN", out[0], out[1], out[2]);
}

/* ---- the Brier score's decomposition ---------------------------------------------------------- */

/* the pool adjacent violators' blocks of one group (first live cell s), each's share made once a
 * block: the same quotient group_pav compares */
typedef struct {
    double p, w, r; /* positive weight, weight, share p / w */
    Py_ssize_t s;   /* the block's first cell */
} pav_blk;

typedef struct {
    pav_blk *b;
    Py_ssize_t top, cap;
} blk_stack;

static int blk_room(blk_stack *st)
{
    size_t cap = st->cap ? 2 * (size_t)st->cap : 4096;
    pav_blk *b = realloc(st->b, cap * sizeof(pav_blk));
    if (!b)
        return -1;
    st->b = b, st->cap = (Py_ssize_t)cap;
    return 0;
}

/* a block (p, w) whose first cell is c onto st, pooled with the blocks below it while they violate;
 * eager: also while they are of the same share (brier_of_split's whole-number blocks only) */
static inline int blk_push(blk_stack *st, double p, double w, Py_ssize_t c, int eager)
{
    if (st->top == st->cap && blk_room(st) < 0)
        return -1;
    pav_blk *b = st->b;
    Py_ssize_t top = st->top;
    b[top].p = p, b[top].w = w, b[top].r = p / w, b[top].s = c;
    top++;
    while (top > 1 && (b[top - 2].r > b[top - 1].r || (eager && b[top - 2].r == b[top - 1].r))) {
        b[top - 2].p += b[top - 1].p;
        b[top - 2].w += b[top - 1].w;
        b[top - 2].r = b[top - 2].p / b[top - 2].w;
        top--;
    }
    st->top = top;
    return 0;
}

/* a sum of terms added in order with Neumaier's compensation beside it: within a few units in the
 * last place of the terms' exact sum, however many (a plain float64 sum of 1M terms of a Murphy
 * resolution strayed 1.8e-12 from it, past the 1e-12 to which MCB - DSC + UNC is the Brier score);
 * an infinite or NaN sum is the plain one */
typedef struct {
    double s, c;
} csum;

static inline void cs_add(csum *a, double x)
{
    const double t = a->s + x;
    a->c += fabs(a->s) >= fabs(x) ? (a->s - t) + x : (x - t) + a->s;
    a->s = t;
}

static inline double cs_val(const csum *a)
{
    return isfinite(a->s) ? a->s + a->c : a->s;
}

/* the share of the block of live cell c (cells in order from 0): *blk and *next (the first cell of
 * the next block) move on when c reaches it; cv, the share so far */
static inline double blk_share(const blk_stack *st, Py_ssize_t c, Py_ssize_t *blk, Py_ssize_t *next, double cv)
{
    if (c != *next)
        return cv;
    ++*blk;
    *next = *blk + 1 < st->top ? st->b[*blk + 1].s : PY_SSIZE_T_MAX;
    return st->b[*blk].r;
}

/* one live cell (score v, positive weight p, weight w) into MCB's and DSC's sums: Murphy's, or
 * (corp) CORP's with cv its block's share */
static inline void brier_add(csum *mcb, csum *dsc, int corp, double v, double p, double w, double cv, double obar)
{
    double ybar = p / w, d = v - ybar;
    if (corp) {
        double e = cv - ybar, f = cv - obar;
        cs_add(mcb, w * (d * d) - w * (e * e));
        cs_add(dsc, w * (f * f));
    } else {
        double f = ybar - obar;
        cs_add(mcb, w * (d * d));
        cs_add(dsc, w * (f * f));
    }
}

/* (MCB, DSC, UNC) of one group's cells (calibration.brier_groups' arithmetic: n and P over the live
 * cells, weight > 0, in score order from 0.0; MCB's and DSC's sums the same, compensated: csum).
 * A first pass: n = sum wt, the
 * positives' weight P, whether a live score is outside [0, 1], and (corp) the PAV blocks of the
 * shares pos / wt, as group_pav pools them; obar = P / n.  A second: with ybar = pos / wt,
 *   murphy: MCB += wt (s - ybar)^2, DSC += wt (ybar - obar)^2;
 *   corp:   MCB += wt (s - ybar)^2 - wt (c - ybar)^2, DSC += wt (c - obar)^2 (c: the cell's block's
 *           P / W);
 * each over n, UNC = obar (N / n) (N: the negatives' weight, summed as P is: 1 - obar would lose the
 * digits of a rare negative class to cancellation), MCB NaN when a score is outside [0, 1] (brier_of_split below:
 * the same numbers of a summary of unit cases from its classes' scores).  -1: out of memory. */
static int brier_group(const cal_src *s0, int corp, blk_stack *st, double out[3])
{
    cal_src s = *s0;
    double n = 0.0, P = 0.0, N = 0.0, v, p, q, w;
    int outside = 0;
    Py_ssize_t c = 0;
    st->top = 0;
    while (src_next(&s, &v, &p, &q, &w)) {
        if (!(w > 0))
            continue;
        n += w;
        P += p;
        N += q;
        outside |= v < 0.0 || v > 1.0;
        if (corp && blk_push(st, p, w, c, 0) < 0)
            return -1;
        c++;
    }
    double obar = P / n, cv = 0.0;
    csum mcb = {0.0, 0.0}, dsc = {0.0, 0.0};
    Py_ssize_t blk = -1, next = 0; /* the block of the live cell c, and the first cell of the next */
    s = *s0;
    c = 0;
    while (src_next(&s, &v, &p, &q, &w)) {
        if (!(w > 0))
            continue;
        if (corp)
            cv = blk_share(st, c, &blk, &next, cv);
        brier_add(&mcb, &dsc, corp, v, p, w, cv, obar);
        c++;
    }
    out[0] = outside ? NAN : cs_val(&mcb) / n;
    out[1] = cs_val(&dsc) / n;
    out[2] = obar * (N / n);
    return 0;
}

/* brier_cells(sc, pos, neg, bounds, corp) -> bytearray of 3 * G float64, three rows of G: every
 * group's MCB, DSC and UNC (brier_group), its cells at bounds[g]:bounds[g + 1].  A group's numbers
 * are the same alone or among others, and the same as brier_split's from the classes' scores. */
PyObject *nv_brier_cells(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no, *bo;
    int corp;
    if (!PyArg_ParseTuple(args, "OOOOp", &so, &po, &no, &bo, &corp))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 ||
        nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "brier_cells: scores, pos and neg differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[3].buf;
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[3], in.n[0], "brier_cells");
    if (G < 0)
        return NULL;
    PyObject *res = PyByteArray_FromStringAndSize(NULL, 3 * G * 8);
    if (!res) {
        nv_args_release(&in);
        return NULL;
    }
    double *o = (double *)PyByteArray_AS_STRING(res);
    blk_stack st = {0};
    int bad = 0;
    NOGIL_BEGIN
    for (Py_ssize_t g = 0; g < G && !bad; g++) {
        cal_src s = {.sc = in.v[0].buf, .pos = in.v[1].buf, .neg = in.v[2].buf, .k = bounds[g], .end = bounds[g + 1]};
        double r[3] = {0.0, 0.0, 0.0};
        bad = brier_group(&s, corp, &st, r) < 0;
        o[g] = r[0], o[G + g] = r[1], o[2 * G + g] = r[2];
    }
    NOGIL_END
    free(st.b);
    nv_args_release(&in);
    if (bad) {
        Py_DECREF(res);
        return PyErr_NoMemory();
    }
    return res;
}

/* ---- the decomposition of a summary of unit cases, from its classes' sorted scores ---------------
 *
 * brier_group's numbers over the summary's cells, bit for bit, in two passes faster than its walk:
 * the first finds the cells (a merge of the two classes) and, for CORP, pools their shares; the
 * second adds the sums in score order from what the first recorded of each cell (its make: one
 * negative, one positive, or a run of equal scores), without comparing the classes' scores again.
 * The first pass is cut into parts by score (every score of a part below every score of the next,
 * so a run of equal scores is never cut) run on threads, each part's cells pooled alone; the parts'
 * blocks are then pooled in order.  Pooling adjacent violators in any order ends at the one
 * isotonic fit, and here every block's positive weight and weight are whole numbers (counts, exact
 * in any order) whose quotient is correctly rounded, so every cell's recalibrated share c is the
 * same double however the cells were cut, provided two different quotients of counts are never the
 * same double: true below 2**26 cases (two shares p/q != p'/q' differ by at least 1 / (q q') >
 * 2**-52, more than a double's spacing below 1), so a larger summary is one part.  The sums of the
 * second pass are one thread's, in score order (their bits are brier_group's). */

typedef struct {
    const double *ps, *ns;
    Py_ssize_t np_, nn;        /* the whole arrays' lengths */
    Py_ssize_t i0, i1, j0, j1; /* the part: ps[i0:i1] and ns[j0:j1] */
    uint8_t *kind;             /* each cell's make (0: one negative, 1: one positive, 2: a run), from
                                * kind[i0 + j0] */
    Py_ssize_t cells;          /* the part's number of cells */
    int corp, eager, bad;
    blk_stack st; /* corp: the part's blocks, their first cells counted from the part's first */
} split_part;

/* the run of equal scores at ps[*i], ns[*j] (the smaller head; bounds i1, j1): its positives and
 * negatives, the indexes moved past it */
static inline void split_run(const double *ps, const double *ns, Py_ssize_t *i, Py_ssize_t *j, Py_ssize_t i1,
                             Py_ssize_t j1, double *v, double *m, double *q)
{
    Py_ssize_t a = *i, b = *j;
    double u = b >= j1 || (a < i1 && ps[a] <= ns[b]) ? ps[a] : ns[b];
    while (a < i1 && ps[a] == u)
        a++;
    while (b < j1 && ns[b] == u)
        b++;
    *v = u + 0.0, *m = (double)(a - *i), *q = (double)(b - *j);
    *i = a, *j = b;
}

/* a if t (1), else b (t 0), chosen without a branch: the compilers make `t ? a : b` a branch, and
 * t is the class of the next score, at random (a branch on it is mispredicted half the time) */
static inline const double *pick(Py_ssize_t t, const double *a, const double *b)
{
    const uintptr_t m = (uintptr_t)0 - (uintptr_t)t;
    return (const double *)(((uintptr_t)a & m) | ((uintptr_t)b & ~m));
}

/* x if t (1), else y (t 0), chosen without a branch (as pick) */
static inline double dsel(Py_ssize_t t, double x, double y)
{
    uint64_t ux, uy, m = (uint64_t)0 - (uint64_t)t;
    memcpy(&ux, &x, 8), memcpy(&uy, &y, 8);
    ux = (ux & m) | (uy & ~m);
    memcpy(&x, &ux, 8);
    return x;
}

/* the 64 bits of a double: in the order of the doubles above 0 (+inf too) */
static inline uint64_t dbits(const double *x)
{
    uint64_t u;
    memcpy(&u, x, 8);
    return u;
}

/* the merge of one part: each cell's make into kind, from kind[i0 + j0]; its number of cells */
static Py_ssize_t split_merge(const split_part *z)
{
    const double *ps = z->ps, *ns = z->ns;
    const Py_ssize_t i1 = z->i1, j1 = z->j1;
    /* while both classes have a score here and a next one to look at (a next one past the part is
     * above every score of it) */
    const Py_ssize_t ie = i1 < z->np_ ? i1 : z->np_ - 1, je = j1 < z->nn ? j1 : z->nn - 1;
    uint8_t *kind = z->kind + z->i0 + z->j0;
    Py_ssize_t i = z->i0, j = z->j0, c = 0;
    double v, m, q;
    for (;;) {
        /* the common cell: one score above 0 (no other of its class or the other class equal to
         * it), its class chosen without a branch (the classes interleave at random: a branch on it
         * is mispredicted half the time).  Above 0 the doubles are in the order of their bits, so
         * the scores are compared as integers and the heads moved on by integer selects, their
         * next scores loaded before the comparison that says which moves on. */
        if (i < ie && j < je && ps[i] > 0.0 && ns[j] > 0.0) {
            uint64_t a = dbits(ps + i), b = dbits(ns + j);
            for (;;) {
                const uint64_t a1 = dbits(ps + i + 1), b1 = dbits(ns + j + 1);
                if (a == b || a == a1 || b == b1)
                    break; /* a run of equal scores (or one beside the other head) */
                const uint64_t t = a < b, mt = (uint64_t)0 - t;
                kind[c] = (uint8_t)t;
                i += (Py_ssize_t)t, j += 1 - (Py_ssize_t)t, c++;
                a = (a1 & mt) | (a & ~mt), b = (b & mt) | (b1 & ~mt);
                if (i >= ie || j >= je)
                    break;
            }
        }
        if (i >= i1 && j >= j1)
            break;
        split_run(ps, ns, &i, &j, i1, j1, &v, &m, &q);
        kind[c] = m + q == 1.0 ? (uint8_t)m : 2;
        c++;
    }
    return c;
}

/* the length of the run of cells of make e (0 or 1) at kind[c] (< end): 8 makes compared at once */
static inline Py_ssize_t make_run(const uint8_t *kind, Py_ssize_t c, Py_ssize_t end, uint64_t e)
{
    const uint64_t pat = e * 0x0101010101010101ULL;
    Py_ssize_t k = c + 1;
    for (; k + 8 <= end; k += 8) {
        uint64_t x;
        memcpy(&x, kind + k, 8);
        x ^= pat;
        if (x) /* little-endian: the first byte that differs is the lowest set bit's */
            return k + (__builtin_ctzll(x) >> 3) - c;
    }
    while (k < end && kind[k] == e)
        k++;
    return k - c;
}

/* the part's cells pooled (kind: their makes), their first cells counted from the part's first.
 * eager: a block of the same share as the one below it joins it (the same fitted shares: see
 * above), so a run of cells of one class is one block, pushed at once */
static int split_pool(split_part *z, int eager)
{
    const double *ps = z->ps, *ns = z->ns;
    const uint8_t *kind = z->kind + z->i0 + z->j0;
    const Py_ssize_t cells = z->cells;
    Py_ssize_t i = z->i0, j = z->j0;
    blk_stack *st = &z->st;
    for (Py_ssize_t c = 0; c < cells;) {
        const Py_ssize_t e = kind[c];
        if (e < 2 && eager) {
            const Py_ssize_t L = make_run(kind, c, cells, (uint64_t)e);
            const double t = (double)e, w = (double)L;
            i += e * L, j += (1 - e) * L;
            if (st->top && st->b[st->top - 1].r == t) { /* P / W == t: (P + t L) / (W + L) too */
                st->b[st->top - 1].p += t * w;
                st->b[st->top - 1].w += w;
            } else if (blk_push(st, t * w, w, c, 1) < 0)
                return -1;
            c += L;
        } else if (e < 2) {
            i += e, j += 1 - e;
            if (blk_push(st, (double)e, 1.0, c, 0) < 0)
                return -1;
            c++;
        } else {
            double v, m, q;
            split_run(ps, ns, &i, &j, z->i1, z->j1, &v, &m, &q);
            if (blk_push(st, m, m + q, c, eager) < 0)
                return -1;
            c++;
        }
    }
    return 0;
}

static void *split_first(void *arg)
{
    split_part *z = arg;
    z->cells = split_merge(z);
    if (z->corp && split_pool(z, z->eager) < 0)
        z->bad = 1;
    return NULL;
}

/* the first index of x[0:n] (ascending) at or above u */
static Py_ssize_t lower_bound(const double *x, Py_ssize_t n, double u)
{
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (x[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* the r-th smallest score of both classes (0 <= r < np + nn), by the co-rank of the merge */
static double split_rank(const double *ps, Py_ssize_t np_, const double *ns, Py_ssize_t nn, Py_ssize_t r)
{
    Py_ssize_t lo = r > nn ? r - nn : 0, hi = r < np_ ? r : np_; /* how many positives below rank r */
    while (lo < hi) {
        Py_ssize_t i = lo + (hi - lo) / 2, j = r - i; /* i positives and j negatives below: too few positives? */
        if (ps[i] < ns[j - 1])
            lo = i + 1;
        else
            hi = i;
    }
    Py_ssize_t i = lo, j = r - lo;
    return j >= nn || (i < np_ && ps[i] <= ns[j]) ? ps[i] : ns[j];
}

#define SPLIT_PARTS 8
#define SPLIT_THREADED (1 << 17) /* cases below which the first pass is one part */
#define SPLIT_EXACT (1 << 26)    /* cases from which it is one part (see above) */

static int fit_threads(void);

/* (MCB, DSC, UNC) of the summary of unit cases whose classes' sorted scores are ps and ns:
 * brier_group's of its cells.  parts: the first pass's parts (0: by the size and the processors);
 * exact: the number of cases from which CORP's first pass is one part pooling only violators, as
 * brier_group does (SPLIT_EXACT; the tests set it lower).  -1: out of memory. */
static int brier_of_split(const double *ps, Py_ssize_t np_, const double *ns, Py_ssize_t nn, int corp, int parts,
                          long long exact, double out[3])
{
    const Py_ssize_t N = np_ + nn;
    const double n = (double)N, P = (double)np_, obar = P / n;
    double lo = fmin(np_ ? ps[0] : INFINITY, nn ? ns[0] : INFINITY);
    double hi = fmax(np_ ? ps[np_ - 1] : -INFINITY, nn ? ns[nn - 1] : -INFINITY);
    const int outside = N > 0 && (lo < 0.0 || hi > 1.0);
    int T = parts > 0 ? parts : N < SPLIT_THREADED ? 1 : fit_threads();
    T = N >= exact && corp ? 1 : T < 1 ? 1 : T > SPLIT_PARTS ? SPLIT_PARTS : T;
    if (N < T)
        T = N > 0 ? (int)N : 1;
    split_part z[SPLIT_PARTS];
    pthread_t tid[SPLIT_PARTS];
    int started[SPLIT_PARTS] = {0};
    uint8_t *kind = nv_big_alloc((size_t)N + 1); /* kept between evaluations (its pages made once) */
    if (!kind)
        return -1;
    Py_ssize_t ib = 0, jb = 0;
    for (int t = 0; t < T; t++) {
        Py_ssize_t ie = np_, je = nn;
        if (t + 1 < T) { /* this part: the scores below the (t + 1) N / T-th smallest */
            double x = split_rank(ps, np_, ns, nn, (Py_ssize_t)((double)N * (t + 1) / T));
            ie = lower_bound(ps, np_, x), je = lower_bound(ns, nn, x);
            ie = ie < ib ? ib : ie, je = je < jb ? jb : je;
        }
        z[t] = (split_part){.ps = ps, .ns = ns, .np_ = np_, .nn = nn, .i0 = ib, .i1 = ie, .j0 = jb, .j1 = je,
                            .kind = kind, .corp = corp, .eager = N < exact};
        ib = ie, jb = je;
    }
    for (int t = 1; t < T; t++)
        started[t] = pthread_create(&tid[t], NULL, split_first, &z[t]) == 0;
    split_first(&z[0]);
    int bad = z[0].bad;
    for (int t = 1; t < T; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            split_first(&z[t]);
        bad |= z[t].bad;
    }
    /* the parts' blocks pooled in order onto the first part's, their first cells counted from the
     * summary's first */
    Py_ssize_t before = z[0].cells;
    for (int t = 1; t < T && corp && !bad; t++) {
        for (Py_ssize_t k = 0; k < z[t].st.top && !bad; k++)
            bad = blk_push(&z[0].st, z[t].st.b[k].p, z[t].st.b[k].w, z[t].st.b[k].s + before, z[0].eager) < 0;
        before += z[t].cells;
    }
    double cv = 0.0;
    csum mcb = {0.0, 0.0}, dsc = {0.0, 0.0};
    Py_ssize_t blk = -1, next = 0, c = 0; /* the block of the cell c, and the first cell of the next */
    for (int t = 0; t < T && !bad; t++) {
        const uint8_t *kd = kind + z[t].i0 + z[t].j0;
        Py_ssize_t i = z[t].i0, j = z[t].j0;
        for (Py_ssize_t k = 0; k < z[t].cells; k++, c++) {
            double v, p, w;
            const Py_ssize_t e1 = kd[k];
            if (e1 < 2) { /* one case: its class's next score, chosen without a branch */
                v = *pick(e1, ps + i, ns + j) + 0.0;
                p = (double)e1, w = 1.0;
                i += e1, j += 1 - e1;
            } else {
                double m, q;
                split_run(ps, ns, &i, &j, np_, nn, &v, &m, &q);
                p = m, w = m + q;
            }
            if (corp)
                cv = blk_share(&z[0].st, c, &blk, &next, cv);
            brier_add(&mcb, &dsc, corp, v, p, w, cv, obar);
        }
    }
    for (int t = 0; t < T; t++)
        free(z[t].st.b);
    nv_big_free(kind, (size_t)N + 1);
    if (bad)
        return -1;
    out[0] = outside ? NAN : cs_val(&mcb) / n;
    out[1] = cs_val(&dsc) / n;
    out[2] = obar * ((double)nn / n);
    return 0;
}

/* brier_split(pos_scores, neg_scores, corp, parts=0, exact=2**26) -> (MCB, DSC, UNC) of the summary
 * of unit cases whose positives' and negatives' scores are given, each sorted ascending (no NaN):
 * brier_cells's numbers over that summary's cells, bit for bit, without making the summary (three
 * arrays of 80 MB for 10M distinct scores).  parts (1 .. 8) and exact (brier_of_split) are for the
 * tests (parts 0: chosen by the size and the processors). */
PyObject *nv_brier_split(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ao, *bo;
    int corp, parts = 0;
    long long exact = SPLIT_EXACT;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOp|iL", &ao, &bo, &corp, &parts, &exact))
        return NULL;
    if (parts < 0 || parts > SPLIT_PARTS)
        return PyErr_Format(PyExc_ValueError, "brier_split: parts must be 0 .. %d, not %d", SPLIT_PARTS, parts);
    if (nv_arg(&in, ao, NV_F64) < 0 || nv_arg(&in, bo, NV_F64) < 0)
        return NULL;
    const double *ps = in.v[0].buf, *ns = in.v[1].buf;
    Py_ssize_t np_ = in.n[0], nn = in.n[1];
    if ((np_ && isnan(ps[np_ - 1])) || (nn && isnan(ns[nn - 1]))) {
        nv_args_fail(&in, PyExc_ValueError, "brier_split: a NaN score");
        return NULL;
    }
    double r[3];
    int bad;
    NOGIL_BEGIN
    bad = brier_of_split(ps, np_, ns, nn, corp, parts, exact, r) < 0;
    NOGIL_END
    nv_args_release(&in);
    if (bad)
        return PyErr_NoMemory();
    return Py_BuildValue("ddd", r[0], r[1], r[2]);
}

/* ---- the logistic recalibration ---------------------------------------------------------------- */

/* One class's cells of a fit (calib_pass.h): x, the logit of each cell's score, ascending, and the
 * weight of that class at the cell (w, or 1 at every cell when w is NULL); neg: the negatives' cells
 * (else the positives').  A fit sums over its positives' cells, then its negatives' (a cell holding
 * both is in each with its weight of that class). */
enum { PASS_LL = 1, PASS_JOINT = 2 }; /* what a pass sums (calib_pass.h) */
typedef struct {
    const double *x, *w;
    int neg;
} cal_seq;

/* Newton's iterations before a fit is called unconverged (NaN); a relative step this small is inside
 * Newton's quadratic convergence; a step that moves no cell's linear predictor by more than FIT_SAFE
 * raises the likelihood for sure; one that moves none by more than FIT_CHEB is near enough the
 * maximum for Chebyshev's step (fit_group) */
#define FIT_MAX_ITER 100
#define FIT_NEAR 1e-8
#define FIT_SAFE 1.0
#define FIT_CHEB 0.1

/* Small groups fitted together (slots_run): up to SLOTS groups whose classes have at most SLOT_CELLS
 * cells each, slot k's group kept in place k from its first pass to its last (no layout a pass): cell
 * j of class c at x[c][j][k], w[c][j][k] (m[c][k] of them, then weight 0 and x 0), the (a, b) of the
 * pass it asks for (0, 0 for a slot with no pass in the vectors: none, or one made alone), and each
 * class's numbers of the pass there (out[c][0 .. 11][k], calib_pass.h). */
#define SLOT_CELLS 16
#define SLOTS 32
typedef struct {
    double x[2][SLOT_CELLS + 1][SLOTS], w[2][SLOT_CELLS + 1][SLOTS]; /* (and a spare place: slot_take) */
    double a[SLOTS], b[SLOTS];
    int m[2][SLOTS];
    double out[2][12][SLOTS];
    double S[10][SLOTS]; /* the sums of each slot's pass (fit_sums' out, calib_pass.h) */
    /* the slots' step (calib_pass.h): each slot's least and largest x and its fit's near, and what the
     * step makes: the new (a, b), near, and what the slot is to do (STEP_*) */
    double xmin[SLOTS], xmax[SLOTS], na[SLOTS], nb[SLOTS];
    long long near[SLOTS], nnear[SLOTS], todo[SLOTS];
} cal_slots;
enum { STEP_ALONE = 0, STEP_PASS = -1, STEP_DONE = -2 }; /* fsm_step goes on / the next pass / the fit */

/* The fit's pass (calib_pass.h), compiled for the baseline and, on x86-64 with GCC, for AVX2 and
 * AVX-512 too: the same bits from each (the tests compare them: cal_target). */
#define CAL(name) name##_base
#define CAL_LANES 2
#include "calib_pass.h"
#undef CAL
#undef CAL_LANES

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && defined(__x86_64__)
#define CAL_TARGETS 1
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define CAL(name) name##_v3
#define CAL_LANES 4
#include "calib_pass.h"
#undef CAL
#undef CAL_LANES
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define CAL(name) name##_v4
#define CAL_LANES 8
#include "calib_pass.h"
#undef CAL
#undef CAL_LANES
#pragma GCC pop_options
#endif

typedef void (*pass_fn)(const cal_seq *, Py_ssize_t, Py_ssize_t, double, double, int, double[12]);
typedef void (*prep_fn)(const cal_seq *, Py_ssize_t, Py_ssize_t, double[4]);
typedef void (*slots_fn)(cal_slots *, uint32_t, uint32_t, int);
typedef void (*step_fn)(cal_slots *, uint32_t, uint32_t, int);
typedef struct {
    const char *name;
    pass_fn pass;
    prep_fn prep;
    slots_fn slots;
    step_fn step;
} cal_ops;

static const cal_ops ops_base = {"base", pass_base, prep_base, slots_base, step_base};
#ifdef CAL_TARGETS
static const cal_ops ops_v3 = {"v3", pass_v3, prep_v3, slots_v3, step_v3},
                     ops_v4 = {"v4", pass_v4, prep_v4, slots_v4, step_v4};
#endif
static const char *cal_forced = NULL; /* test-only: cal_target's choice */

static const cal_ops *cal_pick(void)
{
    const char *want = cal_forced;
#ifdef CAL_TARGETS
    __builtin_cpu_init();
    if ((!want || !strcmp(want, "v4")) && __builtin_cpu_supports("x86-64-v4"))
        return &ops_v4;
    if ((!want || !strcmp(want, "v3")) && __builtin_cpu_supports("x86-64-v3"))
        return &ops_v3;
#endif
    return &ops_base;
}

/* cal_target([name]) -> the name of the fit's pass in use; with a name ("base", "v3", "v4"), use that
 * one if this machine runs it ("" for the best again).  Test-only. */
PyObject *nv_cal_target(PyObject *Py_UNUSED(self), PyObject *args)
{
    const char *want = NULL;
    if (!PyArg_ParseTuple(args, "|s", &want))
        return NULL;
    if (want) {
        const char *prev = cal_forced;
        cal_forced = !*want ? NULL : !strcmp(want, "base") ? "base" : !strcmp(want, "v3") ? "v3" : !strcmp(want, "v4") ? "v4" : "?";
        if (cal_forced && strcmp(cal_pick()->name, cal_forced)) {
            cal_forced = prev;
            return PyErr_Format(PyExc_ValueError, "no pass %s on this machine", want);
        }
    }
    return PyUnicode_FromString(cal_pick()->name);
}

/* A class's cells are taken in chunks of FIT_CHUNK from its first (each chunk's sums made alone, in
 * its eight lanes, then the chunks' added in their order: the positives' chunks, then the
 * negatives'), so that chunks can go to threads without changing a bit: a class of at most FIT_CHUNK
 * cells is one chunk.  A group of FIT_THREADED chunks or more has them shared by up to FIT_THREADS
 * threads. */
#define FIT_CHUNK (1 << 16)
#define FIT_THREADED 8
#define FIT_THREADS 4
#define CHUNK_OUT 12 /* numbers a chunk: the pass's 12, the prep's 4 */

typedef struct {
    const cal_ops *ops;
    cal_seq seq[2]; /* the positives' cells, the negatives' */
    int threads;    /* for one group's chunks (1: none) */
} fit_src;

/* one group's cells: of the positives at lo[0] .. hi[0] - 1 of seq[0], of the negatives at lo[1] ..
 * hi[1] - 1 of seq[1]; n[c] chunks of each */
typedef struct {
    Py_ssize_t lo[2], hi[2], n[2];
} fit_span;

static fit_span span_of(Py_ssize_t lo0, Py_ssize_t hi0, Py_ssize_t lo1, Py_ssize_t hi1)
{
    fit_span g = {{lo0, lo1}, {hi0, hi1}, {0, 0}};
    for (int c = 0; c < 2; c++)
        g.n[c] = g.hi[c] > g.lo[c] ? (g.hi[c] - g.lo[c] + FIT_CHUNK - 1) / FIT_CHUNK : 0;
    return g;
}

typedef struct {
    const fit_src *s;
    const fit_span *g;
    Py_ssize_t c0, c1; /* the chunks c0 .. c1 - 1 of the group (the positives' first) */
    double a, b;
    int flags, prep; /* the pass's flags, or the prep */
    double *out;     /* CHUNK_OUT a chunk */
} chunk_job;

static void *chunk_worker(void *arg)
{
    chunk_job *j = arg;
    for (Py_ssize_t k = j->c0; k < j->c1; k++) {
        int c = k >= j->g->n[0];
        Py_ssize_t lo = j->g->lo[c] + (k - (c ? j->g->n[0] : 0)) * FIT_CHUNK;
        Py_ssize_t hi = lo + FIT_CHUNK < j->g->hi[c] ? lo + FIT_CHUNK : j->g->hi[c];
        if (j->prep)
            j->s->ops->prep(&j->s->seq[c], lo, hi, j->out + CHUNK_OUT * k);
        else
            j->s->ops->pass(&j->s->seq[c], lo, hi, j->a, j->b, j->flags, j->out + CHUNK_OUT * k);
    }
    return NULL;
}

/* Each chunk of the group's cells (prep, or the pass at (a, b)) into out, CHUNK_OUT numbers a chunk:
 * on the caller and up to s->threads - 1 more threads, each a run of chunks (a chunk's numbers do
 * not depend on which thread makes them). */
static void fit_chunks(const fit_src *s, const fit_span *g, double a, double b, int flags, int prep, double *out)
{
    Py_ssize_t nc = g->n[0] + g->n[1];
    int T = nc >= FIT_THREADED ? s->threads : 1;
    chunk_job jobs[FIT_THREADS];
    pthread_t tid[FIT_THREADS];
    int started[FIT_THREADS] = {0};
    T = T < 1 ? 1 : T > FIT_THREADS ? FIT_THREADS : T;
    for (int t = 0; t < T; t++)
        jobs[t] = (chunk_job){s, g, nc * t / T, nc * (t + 1) / T, a, b, flags, prep, out};
    for (int t = 1; t < T; t++)
        started[t] = pthread_create(&tid[t], NULL, chunk_worker, &jobs[t]) == 0;
    chunk_worker(&jobs[0]);
    for (int t = 1; t < T; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            chunk_worker(&jobs[t]);
    }
}

/* the chunks' numbers of a group: on the stack for a group of one chunk of each class */
typedef struct {
    double few[2 * CHUNK_OUT], *many;
} chunk_buf;

static double *chunk_slots(chunk_buf *cb, const fit_span *g)
{
    Py_ssize_t nc = g->n[0] + g->n[1];
    if (nc <= 2)
        return cb->few;
    if (!cb->many)
        cb->many = malloc((size_t)nc * CHUNK_OUT * sizeof(double));
    return cb->many;
}

/* The sums of the pass at (a, b) over the group's cells (calib_pass.h's pass, chunk by chunk, the
 * chunks added in their order: g0 and g1 with their rounding errors gathered apart and added back at
 * the end): out[0 .. 5] g0, g1, h00, h01, h11, the log-likelihood, out[6 .. 9] t0 .. t3.  -1: out of
 * memory. */
static int fit_sums(const fit_src *s, chunk_buf *cb, const fit_span *g, double a, double b, int flags, double out[10])
{
    double *o = chunk_slots(cb, g);
    if (!o)
        return -1;
    fit_chunks(s, g, a, b, flags, 0, o);
    double t[12] = {0}, c[2] = {0};
    for (Py_ssize_t k = 0; k < g->n[0] + g->n[1]; k++) {
        const double *q = o + CHUNK_OUT * k;
        for (int m = 0; m < 2; m++) {
            double s2 = t[m] + q[m], b2 = s2 - t[m];
            c[m] += ((t[m] - (s2 - b2)) + (q[m] - b2)) + q[6 + m];
            t[m] = s2;
        }
        for (int m = 2; m < 12; m++)
            if (m < 6 || m >= 8)
                t[m] += q[m];
    }
    out[0] = t[0] + c[0], out[1] = t[1] + c[1];
    for (int m = 2; m < 6; m++)
        out[m] = t[m];
    for (int m = 6; m < 10; m++)
        out[m] = t[m + 2];
    return 0;
}

static int newton2(const fit_src *s, chunk_buf *cb, const fit_span *g, double xmin, double xmax, double a, double b,
                   double S[10], int have_ll, double *ra, double *rb);

/* fmax(x, y) inline (libm's is a call): x when y is NaN or x >= y, else y (both NaN: y) */
static inline double fmax_(double x, double y)
{
    return x >= y || y != y ? x : y;
}

/* the largest change of a cell's z = a + b x in the Newton step of the joint fit's sums S (NaN when
 * there is none: the curvature not positive) */
static double newton_reach(const double S[10], double xmin, double xmax)
{
    double det = S[2] * S[4] - S[3] * S[3];
    if (!(det > 0))
        return NAN;
    double da = (S[4] * S[0] - S[3] * S[1]) / det, db = (S[2] * S[1] - S[3] * S[0]) / det;
    return fmax_(fabs(da + db * xmin), fabs(da + db * xmax));
}

/* The logistic recalibration of one group (its cells of each class, x the logit of each cell's
 * score), by Newton's method:
 *   offset (joint 0): logit P(y = 1) = a + x, from a = logit(P / W) - sum wt x / W (near the root:
 *   P the positives' weight, W the weight), every step whole (as the numpy iteration before it);
 *   joint: logit P(y = 1) = a + b x, from (that a, 1), the calibrated recalibration, when its
 *   Newton step is whole (below) or its likelihood at least the constant's (a = logit(P / W), b = 0),
 *   else from the constant, and again from the constant when the iterations from (a, 1) fail; NaN
 *   when the scores separate the classes (no maximum).
 * A step of the joint fit that moves no cell's z = a + b x by more than FIT_SAFE (1) is taken whole:
 * along it the second derivative of the log-likelihood stays within e^{+-1} of its value at the start
 * (the logistic's variance changes by at most e^|dz|), so the likelihood rises by at least 0.28 of
 * the step's first-order gain and no likelihood is needed; a larger one is checked against the
 * likelihood and halved while it lowers it (up to 60 times).  Near the maximum (no z moved by more
 * than FIT_CHEB, 0.1) the step is Chebyshev's: Newton's less half its second-order term, from the
 * third derivatives summed in the same pass (t0 .. t3), whose error is about the cube of the step's.
 * A fit stops after a step of less than 1e-15 relative (each coefficient's step over 1 + its size),
 * after a Chebyshev step below FIT_NEAR (1e-8; its error about the cube of that), or one step after
 * a Newton step below FIT_NEAR (its error about the square).  NaN (a and b) after FIT_MAX_ITER steps,
 * where the curvature is not positive or a class has no cell.  -1: out of memory. */
static int fit_group(const fit_src *s, const fit_span *g, int joint, double *ra, double *rb)
{
    *ra = *rb = NAN;
    if (!g->n[0] || !g->n[1])
        return 0;
    chunk_buf cb = {.many = NULL};
    double *o = chunk_slots(&cb, g);
    if (!o)
        return -1;
    fit_chunks(s, g, 0.0, 0.0, 0, 1, o);
    double W = 0.0, P = 0.0, SX = 0.0, mn[2] = {INFINITY, INFINITY}, mx[2] = {-INFINITY, -INFINITY};
    for (Py_ssize_t k = 0; k < g->n[0] + g->n[1]; k++) {
        const double *q = o + CHUNK_OUT * k;
        int c = k >= g->n[0];
        W += q[0], SX += q[1];
        if (!c)
            P += q[0];
        mn[c] = q[2] < mn[c] ? q[2] : mn[c], mx[c] = q[3] > mx[c] ? q[3] : mx[c];
    }
    double xmin = mn[0] < mn[1] ? mn[0] : mn[1], xmax = mx[0] > mx[1] ? mx[0] : mx[1];
    double ob = P / W, a = log(ob) - log1p(-ob) - SX / W, b = 1.0, S[10];
    int near = 0, bad = 0;
    if (!joint) {
        for (int it = 0; it < FIT_MAX_ITER && !bad; it++) {
            bad = fit_sums(s, &cb, g, a, 1.0, 0, S) < 0; /* the offset fit's sums */
            if (bad || !(S[2] > 0))
                break;
            double step = S[0] / S[2];
            int cheb = fabs(step) <= FIT_CHEB;
            if (cheb) /* Chebyshev's step: Newton's less half its second-order term */
                step = step - S[6] * (step * step) / (2.0 * S[2]);
            a = a + step;
            double small = fabs(step) / (1.0 + fabs(a));
            if (small <= 1e-15 || near || (cheb && small <= FIT_NEAR)) {
                *ra = a, *rb = 1.0;
                break;
            }
            near = small <= FIT_NEAR;
        }
        free(cb.many);
        return bad ? -1 : 0;
    }
    if (mx[1] <= mn[0] || mx[0] <= mn[1]) { /* the scores separate the classes */
        free(cb.many);
        return 0;
    }
    /* from the calibrated recalibration when its Newton step is whole (near the maximum) or it is at
     * least as likely as the constant P / W, else from that */
    double a_null = log(ob) - log1p(-ob), ll_null = P * log(ob) + (W - P) * log1p(-ob);
    bad = fit_sums(s, &cb, g, a, b, PASS_JOINT, S) < 0;
    int from_null = 0, have_ll = 0;
    if (!bad && !(newton_reach(S, xmin, xmax) <= FIT_SAFE)) {
        bad = fit_sums(s, &cb, g, a, b, PASS_JOINT | PASS_LL, S) < 0, have_ll = 1;
        from_null = !bad && !(S[5] >= ll_null);
    }
    if (from_null)
        a = a_null, b = 0.0, bad = fit_sums(s, &cb, g, a, b, PASS_JOINT | PASS_LL, S) < 0;
    bad = bad || newton2(s, &cb, g, xmin, xmax, a, b, S, have_ll || from_null, ra, rb) < 0;
    if (!bad && isnan(*ra) && !from_null) { /* Newton lost from the calibrated start: again from the constant */
        bad = fit_sums(s, &cb, g, a_null, 0.0, PASS_JOINT | PASS_LL, S) < 0;
        bad = bad || newton2(s, &cb, g, xmin, xmax, a_null, 0.0, S, 1, ra, rb) < 0;
    }
    free(cb.many);
    if (bad)
        *ra = *rb = NAN;
    return bad ? -1 : 0;
}

/* The joint fit's Newton iterations from (a, b), S its sums there (with the likelihood when have_ll):
 * (a, b) into ra, rb, NaN when they fail (fit_group says how they go).  -1: out of memory. */
static int newton2(const fit_src *s, chunk_buf *cb, const fit_span *g, double xmin, double xmax, double a, double b,
                   double S[10], int have_ll, double *ra, double *rb)
{
    double T[10];
    int near = 0, bad = 0;
    *ra = *rb = NAN;
    for (int it = 0; it < FIT_MAX_ITER && !bad; it++) {
        double det = S[2] * S[4] - S[3] * S[3];
        if (!(det > 0))
            break;
        double da = (S[4] * S[0] - S[3] * S[1]) / det, db = (S[2] * S[1] - S[3] * S[0]) / det;
        if (!isfinite(da) || !isfinite(db))
            break;
        double reach = fmax(fabs(da + db * xmin), fabs(da + db * xmax));
        int cheb = reach <= FIT_CHEB, taken = 0;
        if (cheb) { /* Chebyshev's step: Newton's less half H^-1 q, q = sum t (da + db x)^2 (1, x) */
            double q0 = (da * da) * S[6] + (2.0 * da * db) * S[7] + (db * db) * S[8];
            double q1 = (da * da) * S[7] + (2.0 * da * db) * S[8] + (db * db) * S[9];
            da = da - 0.5 * ((S[4] * q0 - S[3] * q1) / det);
            db = db - 0.5 * ((S[2] * q1 - S[3] * q0) / det);
        }
        double full = fmax(fabs(da) / (1.0 + fabs(a)), fabs(db) / (1.0 + fabs(b)));
        if (!(cheb || full <= FIT_NEAR || reach <= FIT_SAFE)) {
            if (!have_ll) /* the same sums again, with the likelihood */
                bad = fit_sums(s, cb, g, a, b, PASS_JOINT | PASS_LL, S) < 0;
            for (int half = 0; half < 60 && !bad; half++) {
                bad = fit_sums(s, cb, g, a + da, b + db, PASS_JOINT | PASS_LL, T) < 0;
                if (T[5] >= S[5] || fabs(da) + fabs(db) <= 1e-15 * (1.0 + fabs(a) + fabs(b))) {
                    taken = 1;
                    break;
                }
                da = da / 2, db = db / 2;
            }
        }
        a = a + da, b = b + db;
        if (full <= 1e-15 || near || (cheb && full <= FIT_NEAR)) {
            *ra = a, *rb = b;
            break;
        }
        near = full <= FIT_NEAR;
        if (taken) /* the sums at the point the step reaches */
            memcpy(S, T, sizeof T), have_ll = 1;
        else if (!bad)
            bad = fit_sums(s, cb, g, a, b, PASS_JOINT, S) < 0, have_ll = 0;
    }
    return bad ? -1 : 0;
}

static int fit_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > FIT_THREADS ? FIT_THREADS : (int)n;
}

/* ---- small groups, fitted together --------------------------------------------------------------
 * A group of a few cells costs fit_group about a microsecond, most of it waiting: each of its three to
 * six passes is one vector of eight lanes a class, a chain of dependent operations (exp's polynomial,
 * two divisions, the lanes added in order) that leaves the core idle, and 100,000 such groups took
 * 3 to 4 times their ROC area.  So the groups whose classes have at most SLOT_CELLS (16) cells each are
 * fitted SLOTS at a time: each group's fit_group / newton2, step for step, as a machine that stops
 * where fit_group makes a pass (fsm_step), and every waiting group's pass made at once (the slots
 * pass, calib_pass.h), across the groups, so that one group's chain runs beside the others'; the
 * Newton steps that need no likelihood are then made across the slots too (the slots' step,
 * calib_pass.h), fsm_step only where a fit takes another way.  Every number is made by the same
 * operations in the same order as fit_group's for that group alone: the same bits
 * (tests/test_calibration_groups.py, tests/test_calibration_slots.py). */
/* the states where fsm_step waits for a pass that the slots' step (calib_pass.h) can go on from: the
 * offset fit's pass, the joint fit's pass at the end of a Newton step, and its first pass, at the
 * calibrated start (no line of this file's number: those are FSM_PASS's states) */
enum { FSM_OFFSET = 1, FSM_JOINT = 2, FSM_FIRST = 3 };
typedef struct {
    int state, joint, near, it, have_ll, from_null, second, cheb, taken, half, flags;
    double W, P, ob, lob, l1ob, a, b, xmin, xmax, a_null, ll_null, da, db, full, ra, rb; /* lob, l1ob: log(ob), log1p(-ob) */
    double mn[2], mx[2];
    double S[10], T[10], *dst; /* the pass's sums go to dst (S or T) */
    double qa, qb;             /* where the pass is asked for, with flags */
} fit_fsm;

/* ask for the pass at (A, B) with flags FL into DST, and come back here with it (state ID: FSM_PASS's
 * the line's number, FSM_PASS_AT's a name) */
#define FSM_PASS_AT(ID, A, B, FL, DST)                                                                             \
    do {                                                                                                           \
        f->qa = (A), f->qb = (B), f->flags = (FL), f->dst = (DST), f->state = (ID);                                \
        return 1;                                                                                                  \
    case ID:;                                                                                                      \
    } while (0)
#define FSM_PASS(A, B, FL, DST) FSM_PASS_AT(__LINE__, A, B, FL, DST)

/* fit_group (from its prep's numbers on) and newton2, one group: 1 with a pass asked for (f->qa, f->qb,
 * f->flags into f->dst), 0 when done (f->ra, f->rb; NaN when the fit fails).  The arithmetic and the
 * order of fit_group's and newton2's, line for line (without their out-of-memory paths: a small
 * group's sums need no memory), but for the joint fit's first pass, made with the likelihood at once
 * (fit_group makes it again at the same point for the likelihood alone: the same numbers, below). */
static int fsm_step(fit_fsm *f)
{
    double *S = f->S, *T = f->T;
    switch (f->state) {
    case 0:
        f->ra = f->rb = NAN;
        f->near = 0;
        if (!f->joint) {
            for (f->it = 0; f->it < FIT_MAX_ITER; f->it++) {
                FSM_PASS_AT(FSM_OFFSET, f->a, 1.0, 0, S); /* the offset fit's sums */
                if (!(S[2] > 0))
                    break;
                double step = S[0] / S[2];
                int cheb = fabs(step) <= FIT_CHEB;
                if (cheb) /* Chebyshev's step: Newton's less half its second-order term */
                    step = step - S[6] * (step * step) / (2.0 * S[2]);
                f->a = f->a + step;
                double small = fabs(step) / (1.0 + fabs(f->a));
                if (small <= 1e-15 || f->near || (cheb && small <= FIT_NEAR)) {
                    f->ra = f->a, f->rb = 1.0;
                    break;
                }
                f->near = small <= FIT_NEAR;
            }
            return 0;
        }
        if (f->mx[1] <= f->mn[0] || f->mx[0] <= f->mn[1]) /* the scores separate the classes */
            return 0;
        f->a_null = f->lob - f->l1ob, f->ll_null = f->P * f->lob + (f->W - f->P) * f->l1ob;
        /* fit_group's first pass, with the likelihood it makes in a second pass at the same (a, b) when
         * newton_reach is above FIT_SAFE (two thirds of the groups of 10 rows): one pass with both.  A
         * pass's other sums are the same bits with PASS_LL or without (its likelihood is summed apart),
         * so the reach, the start and every step after are fit_group's; the likelihood costs a log1p a
         * cell, the pass it saves an exp, two divisions and every sum (and most of the slots' vectors
         * make the likelihood anyway, for another slot). */
        FSM_PASS_AT(FSM_FIRST, f->a, f->b, PASS_JOINT | PASS_LL, S);
        f->from_null = 0, f->have_ll = 0;
        if (!(newton_reach(S, f->xmin, f->xmax) <= FIT_SAFE)) {
            f->have_ll = 1;
            f->from_null = !(S[5] >= f->ll_null);
        }
        if (f->from_null) {
            f->a = f->a_null, f->b = 0.0;
            FSM_PASS(f->a, f->b, PASS_JOINT | PASS_LL, S);
        }
        f->have_ll = f->have_ll || f->from_null;
        f->second = 0;
    newton: /* newton2 from (f->a, f->b), S its sums there */
        f->near = 0;
        f->ra = f->rb = NAN;
        for (f->it = 0; f->it < FIT_MAX_ITER; f->it++) {
            double det = S[2] * S[4] - S[3] * S[3];
            if (!(det > 0))
                break;
            double da = (S[4] * S[0] - S[3] * S[1]) / det, db = (S[2] * S[1] - S[3] * S[0]) / det;
            if (!isfinite(da) || !isfinite(db))
                break;
            double reach = fmax_(fabs(da + db * f->xmin), fabs(da + db * f->xmax));
            f->cheb = reach <= FIT_CHEB, f->taken = 0;
            if (f->cheb) { /* Chebyshev's step: Newton's less half H^-1 q, q = sum t (da + db x)^2 (1, x) */
                double q0 = (da * da) * S[6] + (2.0 * da * db) * S[7] + (db * db) * S[8];
                double q1 = (da * da) * S[7] + (2.0 * da * db) * S[8] + (db * db) * S[9];
                da = da - 0.5 * ((S[4] * q0 - S[3] * q1) / det);
                db = db - 0.5 * ((S[2] * q1 - S[3] * q0) / det);
            }
            f->da = da, f->db = db;
            f->full = fmax_(fabs(da) / (1.0 + fabs(f->a)), fabs(db) / (1.0 + fabs(f->b)));
            if (!(f->cheb || f->full <= FIT_NEAR || reach <= FIT_SAFE)) {
                if (!f->have_ll) /* the same sums again, with the likelihood */
                    FSM_PASS(f->a, f->b, PASS_JOINT | PASS_LL, S);
                for (f->half = 0; f->half < 60; f->half++) {
                    FSM_PASS(f->a + f->da, f->b + f->db, PASS_JOINT | PASS_LL, T);
                    if (T[5] >= S[5] || fabs(f->da) + fabs(f->db) <= 1e-15 * (1.0 + fabs(f->a) + fabs(f->b))) {
                        f->taken = 1;
                        break;
                    }
                    f->da = f->da / 2, f->db = f->db / 2;
                }
            }
            f->a = f->a + f->da, f->b = f->b + f->db;
            if (f->full <= 1e-15 || f->near || (f->cheb && f->full <= FIT_NEAR)) {
                f->ra = f->a, f->rb = f->b;
                break;
            }
            f->near = f->full <= FIT_NEAR;
            if (f->taken) { /* the sums at the point the step reaches */
                memcpy(S, T, sizeof f->T), f->have_ll = 1;
            } else {
                FSM_PASS_AT(FSM_JOINT, f->a, f->b, PASS_JOINT, S);
                f->have_ll = 0;
            }
        }
        if (isnan(f->ra) && !f->from_null && !f->second) { /* lost from the calibrated start: from the constant */
            f->second = 1;
            FSM_PASS(f->a_null, 0.0, PASS_JOINT | PASS_LL, S);
            f->a = f->a_null, f->b = 0.0, f->have_ll = 1;
            goto newton;
        }
        return 0;
    }
    return 0;
}
#undef FSM_PASS
#undef FSM_PASS_AT

/* The groups' cells as logit_fit is given them: cell i of group g at bounds[g] .. bounds[g + 1] - 1,
 * x its logit, pos its positives' weight, w2 its weight (or, w2neg, its negatives': the weight pos +
 * w2); sc its score when the groups are checked (fit_cells' rule, below), else NULL. */
typedef struct {
    const double *x, *pos, *w2, *sc;
    const int64_t *bounds;
    int w2neg;
} fit_in;

/* The power of two group g's weights are multiplied by before its fit (perfeval.measures.calibration
 * fit_scales, the reference): 1 when the largest of its cells' pos and w2 (numpy's maximum: a NaN
 * stays) is in [FIT_TINY, FIT_HUGE] = [2**-200, 2**200], is 0 or NaN; else the power that brings it to
 * [1, 2).  A fit's value does not change when all its weights are scaled, but its sums do (weights of
 * 1e-154 make the Hessian's determinant subnormal, of 1e154 overflow it); the scale is exact, chosen
 * from the group's own weights (the same bits alone or among others).  Why here: the reference's
 * two reduceat over every cell cost a tenth of the fits of 100,000 small groups. */
#define FIT_TINY 0x1p-200
#define FIT_HUGE 0x1p200
static double group_scale(const fit_in *in, Py_ssize_t g)
{
    const Py_ssize_t lo = in->bounds[g], hi = in->bounds[g + 1];
    double big = -INFINITY;
    for (Py_ssize_t i = lo; i < hi; i++) {
        const double p = in->pos[i], v = in->w2[i];
        big = p > big || p != p ? p : big;
        big = v > big || v != v ? v : big;
        if (big != big)
            return 1.0;
    }
    if (!(big > 0) || (big >= FIT_TINY && big <= FIT_HUGE))
        return 1.0;
    int e;
    frexp(big, &e);
    return ldexp(1.0, 1 - e);
}

/* group g's cells of each class (a positive cell: pos > 0, that weight; a negative cell: w - pos > 0,
 * that weight; w the cell's weight) into xp, wp and xn, wn when given (cap + 1 places each: every cell
 * is written, then kept or not; the cells past cap in the last place), their numbers into np_, nn; checked (in->sc): the cells of weight w > 0 only, and 0 when one of
 * their scores is not in (0, 1) (fit_cells' rule: no fit), else 1 */
static int group_cells(const fit_in *in, Py_ssize_t g, double sf, double *xp, double *wp, double *xn, double *wn,
                       Py_ssize_t cap, Py_ssize_t *np_, Py_ssize_t *nn)
{
    Py_ssize_t a = 0, b = 0;
    int inside = 1;
    const Py_ssize_t lo = in->bounds[g], hi = in->bounds[g + 1];
    const double *x = in->x, *pos = in->pos, *w2 = in->w2, *sc = in->sc;
    if (!xp) { /* count only (without branches on the data: the classes come mixed), x brought in */
        for (Py_ssize_t i = lo; i < hi; i++) {
            double p = pos[i] * sf, v = w2[i] * sf, w = in->w2neg ? p + v : v, q = w - p;
            __builtin_prefetch(x + i);
            if (sc) {
                if (!(w > 0))
                    continue;
                inside &= sc[i] > 0.0 && sc[i] < 1.0;
            }
            a += p > 0, b += q > 0;
        }
    } else
        for (Py_ssize_t i = lo; i < hi; i++) {
            double p = pos[i] * sf, v = w2[i] * sf, w = in->w2neg ? p + v : v, q = w - p;
            if (sc) {
                if (!(w > 0))
                    continue;
                inside &= sc[i] > 0.0 && sc[i] < 1.0;
            }
            Py_ssize_t ka = a < cap ? a : cap, kb = b < cap ? b : cap; /* written, then kept or not */
            xp[ka] = x[i], wp[ka] = p, xn[kb] = x[i], wn[kb] = q;
            a += p > 0, b += q > 0;
        }
    *np_ = a, *nn = b;
    return inside;
}

/* the group now in slot k (its cells in place k): its machine started from the prep's
 * numbers (calib_pass.h's prep and fit_group's sums of them: lane j of a class adds its cells j and
 * j + 8, the lanes pairwise; its padding's zeros, which change no sum, left out) */
static void slot_start(cal_slots *sl, int k, fit_fsm *f, int joint)
{
    double W = 0.0, P = 0.0, SX = 0.0;
    f->state = 0, f->joint = joint; /* fsm_step writes every other number before it reads it */
    for (int c = 0; c < 2; c++) {
        const int m = sl->m[c][k];
        double l0[8], l1[8], lmn = INFINITY, lmx = -INFINITY;
        for (int j = 0; j < 8; j++) {
            double s0 = 0.0, s1 = 0.0, mn = INFINITY, mx = -INFINITY;
            for (int h = j; h < m; h += 8) {
                const double X = sl->x[c][h][k], Wt = sl->w[c][h][k];
                s0 += Wt, s1 += Wt * X;
                mn = X < mn ? X : mn;
                mx = X > mx ? X : mx;
            }
            l0[j] = s0, l1[j] = s1;
            lmn = mn < lmn ? mn : lmn, lmx = mx > lmx ? mx : lmx;
        }
        double w0 = ((l0[0] + l0[1]) + (l0[2] + l0[3])) + ((l0[4] + l0[5]) + (l0[6] + l0[7]));
        double s0 = ((l1[0] + l1[1]) + (l1[2] + l1[3])) + ((l1[4] + l1[5]) + (l1[6] + l1[7]));
        W += w0, SX += s0;
        if (!c)
            P += w0;
        f->mn[c] = lmn, f->mx[c] = lmx;
    }
    f->W = W, f->P = P;
    f->xmin = f->mn[0] < f->mn[1] ? f->mn[0] : f->mn[1], f->xmax = f->mx[0] > f->mx[1] ? f->mx[0] : f->mx[1];
    sl->xmin[k] = f->xmin, sl->xmax[k] = f->xmax;
    f->ob = P / W, f->lob = log(f->ob), f->l1ob = log1p(-f->ob), f->a = f->lob - f->l1ob - SX / W, f->b = 1.0;
}

/* The groups a run takes (slots_run): a window of FIT_WINDOW groups at a time, each group's cells of
 * each class counted (which brings its cells into the cache, in order); a group without a fit
 * written NaN, a large one fitted at once by fit_group (its cells copied out of the window's), and
 * the small ones ordered by their numbers of cells (a counting sort), so that the slots' groups at
 * any time have about as many cells as each other (the vectors' positions past the most cells are
 * not made).  The order in which the groups are fitted changes none of their numbers. */
#define FIT_WINDOW 2048
typedef struct {
    const fit_in *in;
    const cal_ops *ops;
    int threads, joint;
    Py_ssize_t next, end, G; /* the groups next .. end - 1 not yet in a window */
    Py_ssize_t window; /* the first group of the window */
    int32_t order[FIT_WINDOW];
    double scale[FIT_WINDOW]; /* group_scale of each group of the window */
    int n_order, at;
    double *big; /* a large group's cells: xp, wp, xn, wn */
    Py_ssize_t big_cap;
    double *o;
} fit_queue;

static int big_fit(fit_queue *q, Py_ssize_t g, double sf, Py_ssize_t mp, Py_ssize_t mn)
{
    if (mp + mn + 2 > q->big_cap) {
        Py_ssize_t cap = mp + mn + 2 > 2 * q->big_cap ? mp + mn + 2 : 2 * q->big_cap;
        double *nb = realloc(q->big, (size_t)cap * 2 * sizeof(double));
        if (!nb)
            return -1;
        q->big = nb, q->big_cap = cap;
    }
    double *xp = q->big, *wp = xp + mp + 1, *xn = wp + mp + 1, *wn = xn + mn + 1;
    Py_ssize_t a, b;
    group_cells(q->in, g, sf, xp, wp, xn, wn, mp > mn ? mp : mn, &a, &b);
    fit_src s = {q->ops, {{xp, wp, 0}, {xn, wn, 1}}, q->threads};
    fit_span sp = span_of(0, mp, 0, mn);
    return fit_group(&s, &sp, q->joint, q->o + g, q->o + q->G + g);
}

/* the next small group (-1: none left; -2: out of memory) */
static Py_ssize_t queue_next(fit_queue *q)
{
    while (q->at == q->n_order) {
        if (q->next >= q->end)
            return -1;
        Py_ssize_t g0 = q->next, g1 = g0 + FIT_WINDOW < q->end ? g0 + FIT_WINDOW : q->end;
        enum { KEYS = SLOT_CELLS * SLOT_CELLS };
        int count[KEYS + 1] = {0}, start[KEYS];
        uint16_t key[FIT_WINDOW];
        for (Py_ssize_t g = g0; g < g1; g++) {
            Py_ssize_t mp, mn;
            const double sf = q->scale[g - g0] = group_scale(q->in, g);
            int ok = group_cells(q->in, g, sf, NULL, NULL, NULL, NULL, 0, &mp, &mn), kk = KEYS;
            if (!ok || !mp || !mn) /* no fit (fit_cells' rule; fit_group's NaN for a class without a cell) */
                q->o[g] = q->o[q->G + g] = NAN;
            else if (mp > SLOT_CELLS || mn > SLOT_CELLS) {
                if (big_fit(q, g, sf, mp, mn) < 0)
                    return -2;
            } else
                kk = (int)((mp - 1) * SLOT_CELLS + (mn - 1));
            key[g - g0] = (uint16_t)kk;
            count[kk]++;
        }
        int t = 0;
        for (int kk = 0; kk < KEYS; kk++)
            start[kk] = t, t += count[kk];
        for (Py_ssize_t g = g0; g < g1; g++)
            if (key[g - g0] < KEYS)
                q->order[start[key[g - g0]]++] = (int32_t)(g - g0);
        q->window = g0, q->n_order = t, q->at = 0, q->next = g1;
    }
    return q->window + q->order[q->at++];
}

/* slot k takes group g: its cells of each class (at most SLOT_CELLS each: queue_next counted them) in
 * place k, written there as group_cells writes them (every cell written, then kept or not: the place
 * past a class's cells may hold a cell not kept, the spare place SLOT_CELLS one past the last), then
 * zeros from the place past its cells (over the cells of the group before it and that place: the
 * places past those hold zeros already, from calloc) */
static void slot_take(cal_slots *sl, int k, const fit_in *in, Py_ssize_t g, double sf)
{
    Py_ssize_t a = 0, b = 0;
    const Py_ssize_t lo = in->bounds[g], hi = in->bounds[g + 1];
    const double *x = in->x, *pos = in->pos, *w2 = in->w2, *sc = in->sc;
    for (Py_ssize_t i = lo; i < hi; i++) {
        double p = pos[i] * sf, v = w2[i] * sf, w = in->w2neg ? p + v : v, q = w - p;
        if (sc && !(w > 0))
            continue;
        sl->x[0][a][k] = x[i], sl->w[0][a][k] = p, sl->x[1][b][k] = x[i], sl->w[1][b][k] = q;
        a += p > 0, b += q > 0;
    }
    const int m[2] = {(int)a, (int)b};
    for (int c = 0; c < 2; c++) {
        const int was = sl->m[c][k], end = was > m[c] + 1 ? was : m[c] + 1;
        for (int j = m[c]; j < end && j < SLOT_CELLS; j++)
            sl->x[c][j][k] = sl->w[c][j][k] = 0.0;
        sl->m[c][k] = m[c];
    }
}

/* slot k's cells of each class, out of place k (for fit_sums) */
static void slot_cells(const cal_slots *sl, int k, double xs[2][SLOT_CELLS], double ws[2][SLOT_CELLS])
{
    for (int c = 0; c < 2; c++)
        for (int j = 0; j < sl->m[c][k]; j++)
            xs[c][j] = sl->x[c][j][k], ws[c][j] = sl->w[c][j][k];
}

/* The fits of the groups q->next .. q->end - 1: the small ones SLOTS at a time, each slot taking the
 * next small group when its group is done (in its place, where it stays); the others by fit_group.
 * Each pass the vectors holding a slot that waits for one are made, the likelihood in those holding a
 * slot that asks for it; a group whose pass is asked at an (a, b) not finite has it made alone
 * (fit_sums over its cells: the reference, whose padding's terms are then not zeros), its place at
 * (0, 0) in the vectors, as a slot without a group (of no cells), whose numbers are not read.  -1: out
 * of memory (fit_group's). */
static int slots_run(fit_queue *q)
{
    cal_slots *sl = calloc(1, sizeof *sl);
    fit_fsm *f = malloc(SLOTS * sizeof *f);
    Py_ssize_t who[SLOTS];
    int live[SLOTS] = {0}, bad = 0, more = 1;
    double *o = q->o;
    const Py_ssize_t G = q->G;
    if (!sl || !f) {
        free(sl), free(f);
        return -1;
    }
    for (;;) {
        uint32_t act = 0, ll = 0, alone = 0, cand = 0, first = 0;
        for (int k = 0; k < SLOTS; k++) {
            while (!live[k] && more && !bad) {
                Py_ssize_t g = queue_next(q);
                if (g < 0) {
                    more = 0, bad = g == -2;
                    break;
                }
                slot_take(sl, k, q->in, g, q->scale[g - q->window]);
                slot_start(sl, k, &f[k], q->joint);
                if (fsm_step(&f[k]))
                    live[k] = 1, who[k] = g;
                else
                    o[g] = f[k].ra, o[G + g] = f[k].rb;
            }
            if (!live[k]) { /* no group left to take: no cells */
                for (int c = 0; c < 2; c++)
                    for (int j = 0; j < sl->m[c][k]; j++)
                        sl->x[c][j][k] = sl->w[c][j][k] = 0.0;
                sl->m[0][k] = sl->m[1][k] = 0;
                sl->a[k] = sl->b[k] = 0.0;
            } else if (!(isfinite(f[k].qa) && isfinite(f[k].qb))) {
                alone |= 1u << k;
                sl->a[k] = sl->b[k] = 0.0;
            } else {
                act |= 1u << k;
                ll |= (f[k].flags & PASS_LL) ? 1u << k : 0;
                sl->a[k] = f[k].qa, sl->b[k] = f[k].qb;
                if ((f[k].state == FSM_OFFSET || f[k].state == FSM_JOINT) && f[k].it + 1 < FIT_MAX_ITER)
                    cand |= 1u << k, sl->near[k] = f[k].near ? -1 : 0;
                else if (f[k].state == FSM_FIRST) /* its Newton iterations from the first */
                    cand |= 1u << k, first |= 1u << k, sl->near[k] = 0;
            }
        }
        if (bad || !(act | alone)) /* a slot not live has no group left to take */
            break;
        if (act)
            q->ops->slots(sl, act, ll, q->joint);
        if (cand)
            q->ops->step(sl, cand, first, q->joint);
        for (int k = 0; k < SLOTS; k++) {
            if (!live[k])
                continue;
            if (alone >> k & 1) {
                double xs[2][SLOT_CELLS], ws[2][SLOT_CELLS];
                slot_cells(sl, k, xs, ws);
                fit_src s1 = {q->ops, {{xs[0], ws[0], 0}, {xs[1], ws[1], 1}}, 1};
                fit_span sp = span_of(0, sl->m[0][k], 0, sl->m[1][k]);
                chunk_buf cb = {.many = NULL};
                fit_sums(&s1, &cb, &sp, f[k].qa, f[k].qb, f[k].flags, f[k].dst); /* two chunks: no memory */
            } else if (cand >> k & 1 && sl->todo[k] != STEP_ALONE) { /* the slots' step went on */
                fit_fsm *fk = &f[k];
                if (sl->todo[k] == STEP_DONE) {
                    o[who[k]] = sl->na[k], o[G + who[k]] = sl->nb[k];
                    live[k] = 0;
                } else { /* fsm_step's next pass: in FSM_JOINT after a joint step */
                    fk->a = fk->qa = sl->na[k];
                    if (q->joint)
                        fk->b = fk->qb = sl->nb[k], fk->have_ll = 0;
                    fk->near = sl->nnear[k] != 0;
                    if (first >> k & 1) /* fit_group's start from (a, 1) and newton2's first step; FSM_JOINT's
                                           * pass without the likelihood (the first's is with it) */
                        fk->from_null = fk->second = 0, fk->ra = fk->rb = NAN, fk->it = 0, fk->state = FSM_JOINT,
                        fk->flags = PASS_JOINT;
                    else
                        fk->it++;
                }
                continue;
            } else
                for (int m = 0; m < 10; m++)
                    f[k].dst[m] = sl->S[m][k];
            if (!fsm_step(&f[k])) {
                o[who[k]] = f[k].ra, o[G + who[k]] = f[k].rb;
                live[k] = 0;
            }
        }
    }
    free(sl), free(f);
    return bad ? -1 : 0;
}

typedef struct {
    fit_queue q;
    int bad;
} groups_job;

static void *groups_worker(void *arg)
{
    groups_job *j = arg;
    j->bad = slots_run(&j->q) < 0;
    free(j->q.big);
    j->q.big = NULL;
    return NULL;
}

/* logit_fit(x, pos, w2, bounds, joint, w2neg[, sc]) -> bytearray of 2 * G float64, two rows of G:
 * each group's a and b (fit_group; b = 1 for the offset fit), its cells at bounds[g]:bounds[g + 1]
 * (x the logit of their scores, ascending; pos the positives' weight; w2 the weight wt, or when w2neg
 * the negatives' weight, wt = pos + w2): the positives' cells those with pos > 0 (their weight pos),
 * the negatives' those with wt - pos > 0 (that weight).  With sc (the cells' scores), fit_cells' rule
 * first: the cells of weight wt > 0 only, and NaN for a group without such a cell of each class or
 * with a score not in (0, 1) among them, so that the caller need not copy the cells out.  Many
 * groups: the groups shared by threads (runs of groups of about equal cells); one group: its chunks.
 * A group's numbers are the same alone or among others, on any number of threads, in any order. */
PyObject *nv_logit_fit(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *xo, *po, *wo, *bo, *so = Py_None;
    int joint, w2neg;
    if (!PyArg_ParseTuple(args, "OOOOpp|O", &xo, &po, &wo, &bo, &joint, &w2neg, &so))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, xo, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, wo, NV_F64) < 0 ||
        nv_arg(&in, bo, NV_RAW8) < 0 || nv_arg(&in, so, NV_F64 | NV_OPTIONAL) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2) || (in.v[4].buf && in.n[4] != in.n[0])) {
        nv_args_fail(&in, PyExc_ValueError, "logit_fit: x, pos and weights differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[3].buf;
    Py_ssize_t n = in.n[0], G = nv_group_bounds(&in, bounds, in.n[3], n, "logit_fit");
    if (G < 0)
        return NULL;
    PyObject *res = PyByteArray_FromStringAndSize(NULL, 2 * G * 8);
    if (!res) {
        nv_args_release(&in);
        return NULL;
    }
    double *o = (double *)PyByteArray_AS_STRING(res);
    fit_in fi = {in.v[0].buf, in.v[1].buf, in.v[2].buf, in.v[4].buf, bounds, w2neg};
    int T = fit_threads();
    const cal_ops *ops = cal_pick();
    int chunk_threads = G == 1 ? T : 1;
    if (G < 64 || n < FIT_CHUNK)
        T = 1;
    groups_job jobs[FIT_THREADS];
    pthread_t tid[FIT_THREADS];
    int started[FIT_THREADS] = {0}, bad = 0;
    NOGIL_BEGIN
    Py_ssize_t g = 0;
    for (int t = 0; t < T; t++) { /* runs of groups, each about n / T cells */
        Py_ssize_t g1 = g;
        while (g1 < G && (t == T - 1 || bounds[g1] < n * (t + 1) / T))
            g1++;
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].q = (fit_queue){.in = &fi, .ops = ops, .threads = chunk_threads, .joint = joint, .next = g, .end = g1,
                                .G = G, .o = o};
        g = g1;
    }
    for (int t = 1; t < T; t++)
        started[t] = pthread_create(&tid[t], NULL, groups_worker, &jobs[t]) == 0;
    groups_worker(&jobs[0]);
    for (int t = 1; t < T; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            groups_worker(&jobs[t]);
        bad |= jobs[t].bad;
    }
    bad |= jobs[0].bad;
    NOGIL_END
    nv_args_release(&in);
    if (bad) {
        Py_DECREF(res);
        return PyErr_NoMemory();
    }
    return res;
}

/* logit_fit_classes(xp, wp, xn, wn, joint) -> (a, b): the fit (fit_group) of one group given as its
 * cells of each class: the positives' logits xp with their weights wp (None: 1 each), the
 * negatives' xn with wn; logit_fit's numbers for the cells these are made of. */
PyObject *nv_logit_fit_classes(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *xpo, *wpo, *xno, *wno;
    int joint;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOOp", &xpo, &wpo, &xno, &wno, &joint) || nv_arg(&in, xpo, NV_F64) < 0 ||
        nv_arg(&in, wpo, NV_F64 | NV_OPTIONAL) < 0 || nv_arg(&in, xno, NV_F64) < 0 ||
        nv_arg(&in, wno, NV_F64 | NV_OPTIONAL) < 0)
        return NULL;
    if ((in.v[1].buf && in.n[1] != in.n[0]) || (in.v[3].buf && in.n[3] != in.n[2])) {
        nv_args_fail(&in, PyExc_ValueError, "logit_fit_classes: logits and weights differ in length");
        return NULL;
    }
    fit_src s = {cal_pick(), {{in.v[0].buf, in.v[1].buf, 0}, {in.v[2].buf, in.v[3].buf, 1}}, fit_threads()};
    fit_span g = span_of(0, in.n[0], 0, in.n[2]);
    double a, b;
    int bad;
    NOGIL_BEGIN
    bad = fit_group(&s, &g, joint, &a, &b) < 0;
    NOGIL_END
    nv_args_release(&in);
    if (bad)
        return PyErr_NoMemory();
    return Py_BuildValue("dd", a, b);
}

/* fit_why(sc, pos, neg, bounds, groups) -> bytearray of len(groups) int64: the joint fit's reason
 * (perfeval.measures.reasons.fit_groups_why) for each group g of groups, from its cells bounds[g] ..
 * bounds[g + 1] - 1 (sc their scores, pos and neg their weights of each class; at least one): i >= 0
 * when exactly one cell is live (pos + neg > 0), i that cell; else -2 when the scores separate the
 * classes (the least score of the cells with pos > 0 at or above the largest of those with neg > 0, or
 * the largest at or below the least), else -1.  The tests and their NaN rules of numpy's reduceat
 * there (a NaN score makes its class's least and largest NaN, which separate nothing). */
PyObject *nv_fit_why(PyObject *Py_UNUSED(self), PyObject *args)
{
    nv_args in = {0};
    Py_ssize_t K = nv_chosen_groups(&in, args, "fit_why");
    if (K < 0)
        return NULL;
    const int64_t *bounds = in.v[3].buf, *groups = in.v[4].buf;
    PyObject *res = PyByteArray_FromStringAndSize(NULL, K * 8);
    if (!res) {
        nv_args_release(&in);
        return NULL;
    }
    int64_t *code = (int64_t *)PyByteArray_AS_STRING(res);
    const double *sc = in.v[0].buf, *pos = in.v[1].buf, *neg = in.v[2].buf;
    NOGIL_BEGIN
    for (Py_ssize_t j = 0; j < K; j++)
        code[j] = nv_fit_why_code(sc, pos, neg, bounds[groups[j]], bounds[groups[j] + 1]);
    NOGIL_END
    nv_args_release(&in);
    return res;
}

/* class_runs(scores) -> None, or (values, counts) float64 bytearrays: one class's sorted scores as
 * its cells when two are equal (the runs of equal scores, each with its count), None when they are
 * distinct (each its own cell, of weight 1). */
PyObject *nv_class_runs(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ao;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "O", &ao) || nv_arg(&in, ao, NV_F64) < 0)
        return NULL;
    const double *a = in.v[0].buf;
    Py_ssize_t n = in.n[0], first = -1;
    NOGIL_BEGIN
    for (Py_ssize_t i = 1; i < n && first < 0; i++)
        if (a[i] == a[i - 1])
            first = i;
    NOGIL_END
    if (first < 0) {
        nv_args_release(&in);
        Py_RETURN_NONE;
    }
    PyObject *vo = PyByteArray_FromStringAndSize(NULL, n * 8), *co = vo ? PyByteArray_FromStringAndSize(NULL, n * 8) : NULL;
    if (!co) {
        Py_XDECREF(vo);
        nv_args_release(&in);
        return NULL;
    }
    double *v = (double *)PyByteArray_AS_STRING(vo), *c = (double *)PyByteArray_AS_STRING(co);
    Py_ssize_t m = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n;) {
        Py_ssize_t j = i + 1;
        while (j < n && a[j] == a[i])
            j++;
        v[m] = a[i] + 0.0, c[m] = (double)(j - i), m++;
        i = j;
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    if (PyByteArray_Resize(vo, m * 8) < 0 || PyByteArray_Resize(co, m * 8) < 0) {
        Py_DECREF(vo);
        Py_DECREF(co);
        return NULL;
    }
    return Py_BuildValue("(NN)", vo, co);
}

/* fit_cells(sc, pos, neg, bounds) -> (ok, kept): which groups have a fit (uint8 a group: a live cell,
 * weight pos + neg > 0, every live score in (0, 1), a live cell with pos > 0 and one with
 * wt - pos > 0), and None when every cell is live and every group has a fit, else (sc, pos, neg,
 * bounds) of the live cells of those groups (float64 bytearrays, int64 bounds). */
PyObject *nv_fit_cells(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no, *bo;
    if (!PyArg_ParseTuple(args, "OOOO", &so, &po, &no, &bo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 ||
        nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "fit_cells: scores, pos and neg differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[3].buf;
    Py_ssize_t n = in.n[0], G = nv_group_bounds(&in, bounds, in.n[3], n, "fit_cells");
    if (G < 0)
        return NULL;
    const double *sc = in.v[0].buf, *pos = in.v[1].buf, *neg = in.v[2].buf;
    PyObject *oko = PyByteArray_FromStringAndSize(NULL, G);
    if (!oko) {
        nv_args_release(&in);
        return NULL;
    }
    unsigned char *ok = (unsigned char *)PyByteArray_AS_STRING(oko);
    Py_ssize_t kept = 0;
    NOGIL_BEGIN
    for (Py_ssize_t g = 0; g < G; g++) {
        int live = 0, inside = 1, hp = 0, hn = 0;
        Py_ssize_t m = 0;
        for (Py_ssize_t i = bounds[g]; i < bounds[g + 1]; i++) {
            double w = pos[i] + neg[i];
            if (!(w > 0))
                continue;
            m++;
            live = 1;
            inside &= sc[i] > 0.0 && sc[i] < 1.0;
            hp |= pos[i] > 0;
            hn |= w - pos[i] > 0;
        }
        ok[g] = live && inside && hp && hn;
        kept += ok[g] ? m : 0;
    }
    NOGIL_END
    if (kept == n) {
        nv_args_release(&in);
        return Py_BuildValue("NO", oko, Py_None);
    }
    Py_ssize_t kg = 0;
    for (Py_ssize_t g = 0; g < G; g++)
        kg += ok[g];
    PyObject *out[4] = {0};
    int good = 1;
    for (int k = 0; good && k < 4; k++)
        good = (out[k] = PyByteArray_FromStringAndSize(NULL, (k < 3 ? kept : kg + 1) * 8)) != NULL;
    if (!good) {
        for (int k = 0; k < 4; k++)
            Py_XDECREF(out[k]);
        Py_DECREF(oko);
        nv_args_release(&in);
        return NULL;
    }
    double *s2 = (double *)PyByteArray_AS_STRING(out[0]), *p2 = (double *)PyByteArray_AS_STRING(out[1]),
           *n2 = (double *)PyByteArray_AS_STRING(out[2]);
    int64_t *b2 = (int64_t *)PyByteArray_AS_STRING(out[3]);
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t c = 0, h = 0;
    b2[0] = 0;
    for (Py_ssize_t g = 0; g < G; g++) {
        if (!ok[g])
            continue;
        for (Py_ssize_t i = bounds[g]; i < bounds[g + 1]; i++)
            if (pos[i] + neg[i] > 0)
                s2[c] = sc[i], p2[c] = pos[i], n2[c] = neg[i], c++;
        b2[++h] = c;
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    return Py_BuildValue("N(NNNN)", oko, out[0], out[1], out[2], out[3]);
}

