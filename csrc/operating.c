/*
 * operating.c -- the operating-point measures of one summary in one pass (issue 33): the point each
 * rule picks (TPR at FPR, sensitivity at specificity, ..., Youden's J, least cost) and the partial
 * AUC, walking the summary's cells from the highest score down and adding its cumulative counts as
 * it goes.  numpy needs some ten passes and as many n-sized temporaries for one of them (the
 * cumulative counts, each rate, the masks); this is one pass and none, which keeps a measure of 10
 * million distinct scores within the ROC area's time.
 *
 * The walk reads a summary's cells (its distinct scores with their weights), or, for unit cases whose
 * summary has not been made into cells, the two classes' sorted scores as the summary keeps them
 * (ScoreHistogram.split: the ROC area reads them so), counting each distinct score's positives and
 * negatives as it meets them: the same points and, the counts being whole, the same bits, without
 * the merge that would make the cells.
 *
 * Every group of a grouped evaluation is walked the same way, in one call over all the groups' cells
 * (op_pick_groups, op_pauc_groups): a group has the bits of its summary alone.
 *
 * The bits are those of the numpy expressions of perfeval/measures/operating.py (its form over every
 * group's points at once, kept as the tests' reference): the
 * cumulative counts added one cell after another from 0.0 (np.cumsum), every rate and objective the
 * same IEEE operations in the same order (no contraction: setup.py builds with -ffp-contract=off),
 * the same choice among equal values (the best other rate, NaN the worst, then the first point),
 * and the partial AUC's terms added in point order from 0.0 (np.bincount).
 *
 * A point at a target meets it when its rate computed exactly meets the target's decimal
 * (exactcmp.h): the float rate decides where it is farther from the target than its rounding can
 * reach, the exact sums (the cells added again, exactly, as far down as the point) where it is not.
 */
#include "native.h"
#include "exactcmp.h"

/* the rules of op_pick, in perfeval/measures/operating.py's order (RULES there) */
enum { TPR_AT_FPR, SEN_AT_SPC, SPC_AT_SEN, PRE_AT_REC, REC_AT_PRE, YOUDEN, TOPLEFT, FBETA, MCC, COST };

/* a / b as operating.py's _ratio: NaN where b is 0 */
static inline double ratio(double a, double b) { return b != 0 ? a / b : NAN; }

/* The points of one summary from the highest score down: its cells (scores, pos, neg ascending), or
 * the sorted scores of its positives (ps, np_) and of its negatives (ns, nn). */
typedef struct {
    const double *scores, *pos, *neg, *ps, *ns;
    Py_ssize_t k, ip, in; /* the next cell, positive, negative from the top (-1: none left) */
} walker;

/* the totals P and N: the last point's counts, added from the highest score (np.cumsum's last) */
static void totals(const walker *w, double *P, double *N)
{
    if (w->ps) {
        *P = (double)(w->ip + 1);
        *N = (double)(w->in + 1);
        return;
    }
    double p = 0.0, q = 0.0;
    for (Py_ssize_t k = w->k; k >= 0; k--) {
        p += w->pos[k];
        q += w->neg[k];
    }
    *P = p, *N = q;
}

/* the next point's weights of positives and negatives and its score; 0 when none is left */
static inline int next_point(walker *w, double *dp, double *dn, double *score)
{
    if (!w->ps) {
        if (w->k < 0)
            return 0;
        *dp = w->pos[w->k], *dn = w->neg[w->k], *score = w->scores[w->k];
        w->k--;
        return 1;
    }
    if (w->ip < 0 && w->in < 0)
        return 0;
    double t;
    if (w->ip < 0)
        t = w->ns[w->in];
    else if (w->in < 0)
        t = w->ps[w->ip];
    else
        t = w->ps[w->ip] > w->ns[w->in] ? w->ps[w->ip] : w->ns[w->in];
    Py_ssize_t a = w->ip, b = w->in;
    while (w->ip >= 0 && w->ps[w->ip] == t)
        w->ip--;
    while (w->in >= 0 && w->ns[w->in] == t)
        w->in--;
    *dp = (double)(a - w->ip), *dn = (double)(b - w->in);
    *score = t + 0.0; /* -0.0 and 0.0 are one score, kept as 0.0 (as the summary's cells) */
    return 1;
}

/* Whether the point of the walk (TP, FP: the cells above w->k, added in float) meets target rule
 * `rule` (TPR_AT_FPR .. REC_AT_PRE: exactcmp.h's XC_* in that order) exactly: 1, 0, or -1 (a weight
 * that is not finite: the float decision stands).  The float sums are exact when the walk reads
 * unit cases, or cells of whole numbers whose total is below 2**53 (every partial sum is then a
 * whole number below it): they are compared as they are.  Otherwise the cells are added again
 * exactly: the totals once, the cells above the point from where the last point left off (x). */
typedef struct {
    int mode; /* -1 not known yet; 0 the float sums are exact; 1 the cells added exactly */
    Py_ssize_t next; /* the next cell to add to the prefix (cells above it added) */
    xc_acc tp, fp, P, N;
} exact_walk;

static int exact_point(exact_walk *x, const walker *w, int rule, double tp, double fp, double P, double N,
                       uint64_t M, int D, Py_ssize_t ncells)
{
    if (x->mode < 0) {
        x->mode = 0;
        if (!w->ps) {
            for (Py_ssize_t k = 0; k < ncells && !x->mode; k++)
                x->mode = w->pos[k] != floor(w->pos[k]) || w->neg[k] != floor(w->neg[k]);
            if (!(P + N < 0x1p53))
                x->mode = 1;
        }
        if (x->mode) {
            xc_clear(&x->tp), xc_clear(&x->fp), xc_clear(&x->P), xc_clear(&x->N);
            for (Py_ssize_t k = 0; k < ncells; k++)
                if (xc_add(&x->P, w->pos[k]) < 0 || xc_add(&x->N, w->neg[k]) < 0)
                    x->mode = 2; /* not finite: the float decisions stand */
            x->next = ncells - 1;
        }
    }
    if (x->mode == 0)
        return xc_meets_d(rule, tp, fp, P, N, M, D);
    if (x->mode == 2)
        return -1;
    for (; x->next > w->k; x->next--) {
        xc_add(&x->tp, w->pos[x->next]);
        xc_add(&x->fp, w->neg[x->next]);
    }
    return xc_meets(rule, &x->tp, &x->fp, &x->P, &x->N, M, D);
}

/* the walker of op_*'s first arguments: (scores, pos, neg) cells, or (ps, ns, None) split; NULL
 * with an exception set on an error (the buffers released). */
static int walker_of(nv_args *in, PyObject *a, PyObject *b, PyObject *c, walker *w, const char *who)
{
    memset(w, 0, sizeof(*w));
    if (c == Py_None) {
        if (nv_arg(in, a, NV_F64) < 0 || nv_arg(in, b, NV_F64) < 0)
            return -1;
        w->ps = in->v[0].buf, w->ns = in->v[1].buf;
        w->ip = in->n[0] - 1, w->in = in->n[1] - 1, w->k = -1;
        return 0;
    }
    if (nv_arg(in, a, NV_F64) < 0 || nv_arg(in, b, NV_F64) < 0 || nv_arg(in, c, NV_F64) < 0)
        return -1;
    if (!nv_len_eq(in, 0, 1) || !nv_len_eq(in, 0, 2)) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s: scores, pos and neg differ in length", who);
        nv_args_fail(in, PyExc_ValueError, msg);
        return -1;
    }
    w->scores = in->v[0].buf, w->pos = in->v[1].buf, w->neg = in->v[2].buf;
    w->k = in->n[0] - 1, w->ip = w->in = -1;
    return 0;
}

/* 2^(1022 - E) for x's biased exponent E in 1..2044 (the power of two that brings x into [0.5, 1),
 * frexp's), else 1: made from x's bits, as walk.h's REP_MCC makes it in every lane and
 * perfeval.measures.operating._mcc_unit in numpy */
static double mcc_unit(double x)
{
    uint64_t b, u;
    double r;
    memcpy(&b, &x, sizeof b);
    b &= 0x7FF0000000000000ULL;
    if (b < (1ULL << 52) || b > (2044ULL << 52))
        return 1.0;
    u = 0x7FD0000000000000ULL - b;
    memcpy(&r, &u, sizeof r);
    return r;
}

/* the chosen point of one walk: its index from the top (-1: none), value and threshold */
typedef struct {
    Py_ssize_t i;
    double v, t;
} picked;

/* The point rule `rule` picks over walk w (op_pick's, below): the best finite value among the points
 * that meet the rule's target (TPR_AT_FPR .. REC_AT_PRE, decided exactly near it) or among every
 * point; among equal values the best other rate (NaN the worst), then the first point.  a..d, M, D:
 * op_pick's.  Reads no Python object: called without the GIL. */
static picked pick_walk(walker *w, int rule, double a, double b, double c, double d, uint64_t M, int D)
{
    picked out = {-1, NAN, NAN};
    double best_key = -INFINITY, best_other = -INFINITY;
    Py_ssize_t ncells = w->ps ? 0 : w->k + 1;
    double P, N;
    totals(w, &P, &N);
    /* the float decision stands where the rate is outside this band about the target (exactcmp.h) */
    double near_lo = 0, near_hi = 0;
    if (rule <= REC_AT_PRE)
        xc_band(a, w->ps ? (double)(w->ip + w->in + 2) : (double)ncells, rule == SEN_AT_SPC, &near_lo, &near_hi);
    exact_walk ex;
    ex.mode = -1;
    int defined;
    if (rule == PRE_AT_REC || rule == REC_AT_PRE || rule == FBETA)
        defined = P > 0;
    else if (rule == COST)
        defined = P + N > 0;
    else
        defined = P > 0 && N > 0;
    double b2 = a * a, f1 = 1 + b2;
    /* MCC's products of four weights: every weight scaled by the power of two that brings P + N into
     * [0.5, 1) (exact, so the same bits wherever the unscaled products are finite), so that they
     * neither overflow (weights of 1e75: +inf, a value of 0 at every point) nor underflow (1e-80: 0/0) */
    double unit = rule == MCC ? mcc_unit(P + N) : 1.0;
    double tp = 0.0, fp = 0.0, score = INFINITY, dp, dn;
    for (Py_ssize_t i = 0; defined; i++) {
        if (i > 0) {
            if (!next_point(w, &dp, &dn, &score))
                break;
            tp += dp;
            fp += dn;
        }
        double v, other = -INFINITY, key, rate = NAN;
        int ok = 1;
        switch (rule) {
        case TPR_AT_FPR: {
            double fpr = ratio(fp, N);
            v = ratio(tp, P);
            ok = fpr <= a;
            other = -fpr;
            rate = fpr;
            break;
        }
        case SEN_AT_SPC: {
            double spc = ratio(N - fp, N);
            v = ratio(tp, P);
            ok = spc >= a;
            other = spc;
            rate = spc;
            break;
        }
        case SPC_AT_SEN: {
            double sen = ratio(tp, P);
            v = ratio(N - fp, N);
            ok = sen >= a;
            other = sen;
            rate = sen;
            break;
        }
        case PRE_AT_REC: {
            double rec = ratio(tp, P);
            v = ratio(tp, tp + fp);
            ok = rec >= a;
            other = rec;
            rate = rec;
            break;
        }
        case REC_AT_PRE: {
            double pre = ratio(tp, tp + fp);
            v = ratio(tp, P);
            ok = (isnan(pre) ? -1.0 : pre) >= a;
            other = pre;
            rate = pre; /* NaN (nothing predicted positive): no precision, no candidate */
            break;
        }
        case YOUDEN:
            v = ratio(tp, P) - ratio(fp, N);
            break;
        case TOPLEFT: {
            double fpr = ratio(fp, N), fnr = ratio(P - tp, P);
            v = sqrt(fpr * fpr + fnr * fnr);
            break;
        }
        case FBETA:
            v = ratio(f1 * tp, f1 * tp + b2 * (P - tp) + fp);
            break;
        case MCC: {
            double tq = tp * unit, fq = fp * unit, pq = P * unit, nq = N * unit;
            double fn = pq - tq, tn = nq - fq;
            v = ratio(tq * tn - fq * fn, sqrt((tq + fq) * pq * nq * (tn + fn)));
            break;
        }
        default: /* COST: a, b, c, d are the costs of a false negative, false positive, TP, TN */
            v = c * tp + a * (P - tp) + b * fp + d * (N - fp);
            break;
        }
        if (rule <= REC_AT_PRE && rate >= near_lo && rate <= near_hi && isfinite(v)) { /* decided exactly */
            int exact = exact_point(&ex, w, rule, tp, fp, P, N, M, D, ncells);
            if (exact >= 0)
                ok = exact;
        }
        if (!ok || !isfinite(v))
            continue;
        key = (rule == TOPLEFT || rule == COST) ? -v : v;
        if (isnan(other))
            other = -INFINITY;
        if (out.i < 0 || key > best_key || (key == best_key && other > best_other)) {
            out.i = i;
            best_key = key;
            best_other = other;
            out.v = v;
            out.t = score;
        }
    }
    return out;
}

/* the arguments a rule needs checked: 0, or -1 with an exception set */
static int rule_ok(int rule, int D, const char *who)
{
    char msg[112];
    if (rule < TPR_AT_FPR || rule > COST) {
        snprintf(msg, sizeof msg, "%s: unknown rule", who);
        PyErr_SetString(PyExc_ValueError, msg);
        return -1;
    }
    if (rule <= REC_AT_PRE && (D < 0 || D > 400)) {
        snprintf(msg, sizeof msg, "%s: a target needs its decimal M 10**-D, 0 <= D <= 400", who);
        PyErr_SetString(PyExc_ValueError, msg);
        return -1;
    }
    return 0;
}

/* op_pick(scores, pos, neg, rule, a, b, c, d, M, D) -> (point, value, threshold): the point (0:
 * nothing predicted positive, threshold +inf; i > 0: the i-th highest distinct score) of the best
 * finite value among the points that meet the rule's target, its value and threshold; (-1, nan, nan)
 * when none.  (scores, pos, neg): the summary's cells, ascending; or (positives' scores, negatives'
 * scores, None), each sorted ascending.  a..d: the rule's parameters (the target; beta; the costs of
 * a false negative, a false positive, a true positive, a true negative).  M, D: a target's decimal
 * M 10**-D (the target rules need it: whether a point meets the target is decided exactly). */
PyObject *nv_op_pick(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ao, *bo, *co;
    int rule, D = -1;
    double a = 0, b = 0, c = 0, d = 0;
    unsigned long long M = 0;
    if (!PyArg_ParseTuple(args, "OOOi|ddddKi", &ao, &bo, &co, &rule, &a, &b, &c, &d, &M, &D))
        return NULL;
    if (rule_ok(rule, D, "op_pick") < 0)
        return NULL;
    nv_args in = {0};
    walker w;
    if (walker_of(&in, ao, bo, co, &w, "op_pick") < 0)
        return NULL;
    picked got;
    NOGIL_BEGIN
    got = pick_walk(&w, rule, a, b, c, d, M, D);
    NOGIL_END
    nv_args_release(&in);
    return Py_BuildValue("(ndd)", got.i, got.v, got.t);
}

/* op_pick_groups(scores, pos, neg, bounds, rule, a, b, c, d, M, D) -> (values, thresholds): op_pick
 * over each group's cells, group k's at bounds[k]:bounds[k + 1] (its distinct scores ascending, as
 * measures/_data.py's histograms lays them out), as two float64 bytearrays of one number a group (NaN
 * where no point qualifies).  Each group is walked as its own summary is (op_pick over its cells): the
 * same bits.  A cell of no weight (a weighted group's row of weight 0) makes a point equal to the one
 * before it, which is never picked over it (ties go to the first point): it changes nothing. */
PyObject *nv_op_pick_groups(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no, *bo;
    int rule, D = -1;
    double a = 0, b = 0, c = 0, d = 0;
    unsigned long long M = 0;
    if (!PyArg_ParseTuple(args, "OOOOi|ddddKi", &so, &po, &no, &bo, &rule, &a, &b, &c, &d, &M, &D))
        return NULL;
    if (rule_ok(rule, D, "op_pick_groups") < 0)
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 ||
        nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "op_pick_groups: scores, pos and neg differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[3].buf;
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[3], in.n[0], "op_pick_groups");
    if (G < 0)
        return NULL;
    PyObject *vo = PyByteArray_FromStringAndSize(NULL, G * 8), *to = NULL;
    if (vo)
        to = PyByteArray_FromStringAndSize(NULL, G * 8);
    if (!to) {
        Py_XDECREF(vo);
        nv_args_release(&in);
        return NULL;
    }
    const double *sc = in.v[0].buf, *pos = in.v[1].buf, *neg = in.v[2].buf;
    double *vals = (double *)PyByteArray_AS_STRING(vo), *thr = (double *)PyByteArray_AS_STRING(to);
    NOGIL_BEGIN
    for (Py_ssize_t g = 0; g < G; g++) {
        walker w;
        memset(&w, 0, sizeof w);
        w.scores = sc + bounds[g], w.pos = pos + bounds[g], w.neg = neg + bounds[g];
        w.k = bounds[g + 1] - bounds[g] - 1, w.ip = w.in = -1;
        picked got = pick_walk(&w, rule, a, b, c, d, M, D);
        vals[g] = got.v;
        thr[g] = got.t;
    }
    NOGIL_END
    nv_args_release(&in);
    return Py_BuildValue("(NN)", vo, to);
}

/* The area of op_pauc over walk w: the trapezoids added in point order from 0.0; NaN when a class
 * is missing.  Reads no Python object. */
static double pauc_walk(walker *w, double lo, double hi, int focus_tpr)
{
    double area = 0.0;
    double P, N;
    totals(w, &P, &N);
    if (!(P > 0 && N > 0))
        return NAN;
    double tp = 0.0, fp = 0.0, dp, dn, score;
    double x0 = 0.0, y0 = focus_tpr ? 1.0 - ratio(0.0, N) : ratio(0.0, P);
    while (x0 < hi && next_point(w, &dp, &dn, &score)) {
        tp += dp;
        fp += dn;
        double x1, y1;
        if (focus_tpr) {
            x1 = ratio(tp, P);
            y1 = 1.0 - ratio(fp, N);
        } else {
            x1 = ratio(fp, N);
            y1 = ratio(tp, P);
        }
        if (x1 > x0) {
            double left = x0 > lo ? x0 : lo, right = x1 < hi ? x1 : hi;
            if (right > left) {
                double slope = (y1 - y0) / (x1 - x0);
                double yl = left == x0 ? y0 : y0 + slope * (left - x0);
                double yr = right == x1 ? y1 : y0 + slope * (right - x0);
                area += (right - left) * (yl + yr) / 2;
            }
        }
        x0 = x1; /* x never decreases: once at hi, no later segment reaches into the range */
        y0 = y1;
    }
    return area;
}

/* op_pauc(scores, pos, neg, lo, hi, focus_tpr) -> area: the area under the broken line through the
 * points over x in [lo, hi] (x the FPR and y the TPR, or with focus_tpr x the TPR and y 1 - FPR),
 * each segment clipped to the range, its ends interpolated on it, the trapezoids added in point
 * order from 0.0; nan when a class is missing.  The first three arguments as op_pick's. */
PyObject *nv_op_pauc(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ao, *bo, *co;
    double lo, hi;
    int focus_tpr;
    if (!PyArg_ParseTuple(args, "OOOddp", &ao, &bo, &co, &lo, &hi, &focus_tpr))
        return NULL;
    nv_args in = {0};
    walker w;
    if (walker_of(&in, ao, bo, co, &w, "op_pauc") < 0)
        return NULL;
    double area;
    NOGIL_BEGIN
    area = pauc_walk(&w, lo, hi, focus_tpr);
    NOGIL_END
    nv_args_release(&in);
    return PyFloat_FromDouble(area);
}

/* op_pauc_groups(scores, pos, neg, bounds, lo, hi, focus_tpr) -> areas: op_pauc over each group's
 * cells (laid out as op_pick_groups reads them), a float64 bytearray of one area a group: the bits
 * of op_pauc over each group's own cells. */
PyObject *nv_op_pauc_groups(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no, *bo;
    double lo, hi;
    int focus_tpr;
    if (!PyArg_ParseTuple(args, "OOOOddp", &so, &po, &no, &bo, &lo, &hi, &focus_tpr))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 ||
        nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "op_pauc_groups: scores, pos and neg differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[3].buf;
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[3], in.n[0], "op_pauc_groups");
    if (G < 0)
        return NULL;
    PyObject *ao = PyByteArray_FromStringAndSize(NULL, G * 8);
    if (!ao) {
        nv_args_release(&in);
        return NULL;
    }
    const double *sc = in.v[0].buf, *pos = in.v[1].buf, *neg = in.v[2].buf;
    double *areas = (double *)PyByteArray_AS_STRING(ao);
    NOGIL_BEGIN
    for (Py_ssize_t g = 0; g < G; g++) {
        walker w;
        memset(&w, 0, sizeof w);
        w.scores = sc + bounds[g], w.pos = pos + bounds[g], w.neg = neg + bounds[g];
        w.k = bounds[g + 1] - bounds[g] - 1, w.ip = w.in = -1;
        areas[g] = pauc_walk(&w, lo, hi, focus_tpr);
    }
    NOGIL_END
    nv_args_release(&in);
    return ao;
}
