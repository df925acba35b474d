/*
 * perfeval._native, classic.c: the classic measures in the original's x87 80-bit arithmetic (see
 * native.h for why): binarise, tie fractions, the accuracy sweep, confusion counts, ROC / R50 /
 * lift, APR, ranks, SLQ, RMS / CXE / NRM, calibration and the threshold statistics.
 */
#include "native.h"

/* ------------------------------------------------------------------------------------------------ */
/* preprocessing: binarise the targets                                                              */
/* ------------------------------------------------------------------------------------------------ */

/* binarise(targets) -> (status, mean_true, min_true, T0, T1, all_same, assumed_class)
 * status 1: a target lies strictly between the smallest and the largest (nothing is changed). */
PyObject *nv_binarise(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O", &o))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, o, NV_F32 | NV_WRITABLE) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    float *t = in.v[0].buf;
    ext sum = 0;
    double mn = 9e99, mx = -9e99;
    for (Py_ssize_t i = 0; i < n; i++) {
        sum += t[i];
        if (t[i] < mn)
            mn = t[i];
        if (t[i] > mx)
            mx = t[i];
    }
    double mean = (double)(sum / (ext)(double)n);
    int all_same = mn == mx, assumed = 0;
    Py_ssize_t t0 = 0, t1 = 0;
    if (all_same)
        assumed = mn <= 0.0 ? 0 : 1;
    /* one pass checks for a third value and binarises; on a third value the run ends, so what was
     * already rewritten does not matter */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (t[i] > mn && t[i] < mx) {
            nv_args_release(&in);
            return Py_BuildValue("(idddnnii)", 1, mean, mn, mx, (Py_ssize_t)0, (Py_ssize_t)0, 0, 0);
        }
        if (all_same)
            t[i] = (float)assumed;
        else
            t[i] = t[i] < mean ? 0.0f : 1.0f;
        if (t[i] == 1.0f)
            t1++;
        else
            t0++;
    }
    nv_args_release(&in);
    return Py_BuildValue("(idddnnii)", 0, mean, mn, mx, t0, t1, all_same, assumed);
}

/* ------------------------------------------------------------------------------------------------ */
/* tie fractions                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* fractions(targets, preds, out): chains of neighbours closer than 1e-15 form a tie group; every
 * member gets float32(positives / size). */
PyObject *nv_fractions(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po, *fo;
    if (!PyArg_ParseTuple(args, "OOO", &to, &po, &fo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32) < 0 || nv_arg(&in, po, NV_F32) < 0 || nv_args_same_len(&in, 0, 2) < 0 ||
        nv_arg(&in, fo, NV_F32 | NV_WRITABLE) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "the fractions buffer must have one value per case");
        return NULL;
    }
    Py_ssize_t n = in.n[0];
    const float *t = in.v[0].buf, *p = in.v[1].buf;
    float *f = in.v[2].buf;
    NOGIL_BEGIN
    Py_ssize_t item = 0;
    while (item < n) {
        Py_ssize_t begin = item, count = 1, pos = t[item] == 1.0f;
        while (item < n - 1 && fabsl((ext)p[item] - (ext)p[item + 1]) < 1e-15) {
            item++;
            count++;
            if (t[item] == 1.0f)
                pos++;
        }
        float fr = (float)((ext)pos / (ext)count);
        for (Py_ssize_t i = begin; i <= item; i++)
            f[i] = fr;
        item++;
    }
    NOGIL_END
    nv_args_release(&in);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* accuracy / cost sweep                                                                             */
/* ------------------------------------------------------------------------------------------------ */

/* Reads beyond the data (index -1, -2 or n) return what the original found there: 0.0 before the
 * array, and at index n whatever an earlier, longer block left (pn). */
static inline double P_at(const float *p, Py_ssize_t n, Py_ssize_t i, double pn)
{
    if (i < 0)
        return 0.0;
    if (i >= n)
        return pn;
    return p[i];
}

/* acc_sweep(t, p, pn, T0, T1, ca, cb, cc, cd, plot, max_thr, last_thr, count)
 *   -> (max_acc_thresh, last_acc_thresh, max_acc_count, plot_bytes)
 * plot: 0 none, 1 accuracy, 2 cost. */
PyObject *nv_acc_sweep(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po;
    double pn, ca, cb, cc, cd, max_thr, last_thr;
    Py_ssize_t T0, T1;
    int plot, count;
    if (!PyArg_ParseTuple(args, "OOdnnddddiddi", &to, &po, &pn, &T0, &T1, &ca, &cb, &cc, &cd, &plot, &max_thr,
                          &last_thr, &count))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32) < 0 || nv_arg(&in, po, NV_F32) < 0 || nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *t = in.v[0].buf, *p = in.v[1].buf;
    nv_outbuf ob = {0};
    int err = 0;
    NOGIL_BEGIN
    double tt = 0, tf = (double)T1, ft = 0, ff = (double)T0;
    double top = P_at(p, n, n - 1, pn), second = P_at(p, n, n - 2, pn);
    double threshold = (double)((ext)top + ((ext)top - (ext)second) / 2.0L);
    double acc = (double)(((ext)tt + ff) / ((ext)(double)n + EPS));
    double max_acc = acc;
    double cost = (double)((ext)ca * tt + (ext)cb * tf + (ext)cc * ft + (ext)cd * ff);
    if (plot == 1)
        err |= nv_ob_line2(&ob, "%lf %lf\n", threshold, acc);
    else if (plot == 2)
        err |= nv_ob_line2(&ob, "%lf %lf\n", threshold, cost);
    for (Py_ssize_t item = n - 1; item > -1 && !err; item--) {
        double tv = t[item];
        tt += tv;
        tf -= tv;
        ft += 1 - tv;
        ff -= 1 - tv;
        if (item > 0)
            threshold = (double)(((ext)p[item] + (ext)p[item - 1]) / 2.0L);
        else {
            ext p0 = p[0], p1 = P_at(p, n, 1, pn);
            threshold = (double)(p0 - (p1 - p0) / 2.0L);
        }
        acc = (double)(((ext)tt + ff) / ((ext)(double)n + EPS));
        if (plot == 1)
            err |= nv_ob_line2(&ob, "%lf %lf\n", threshold, acc);
        else if (plot == 2) {
            cost = (double)((ext)ca * tt + (ext)cb * tf + (ext)cc * ft + (ext)cd * ff);
            err |= nv_ob_line2(&ob, "%lf %lf\n", threshold, cost);
        }
        if (acc > max_acc) {
            max_acc = acc;
            max_thr = threshold;
            last_thr = threshold;
            count = 1;
        }
        if (acc == max_acc && threshold != last_thr) {
            count++;
            last_thr = threshold;
        }
        /* the original also tracks a minimum cost here, but never prints it */
    }
    NOGIL_END
    nv_args_release(&in);
    if (err) {
        free(ob.buf);
        return PyErr_NoMemory();
    }
    PyObject *plotb = nv_ob_finish(&ob);
    return Py_BuildValue("(ddiN)", max_thr, last_thr, count, plotb);
}

/* confusion(t, p, thresholds) -> [(A, B, C, D), ...]: prediction >= threshold is predicted positive
 * (one pass for the three thresholds of the report) */
PyObject *nv_confusion(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po, *thr_seq;
    if (!PyArg_ParseTuple(args, "OOO", &to, &po, &thr_seq))
        return NULL;
    PyObject *fast = PySequence_Fast(thr_seq, "thresholds must be a sequence");
    if (!fast)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(fast);
    if (k > 8) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "at most 8 thresholds");
        return NULL;
    }
    double thr[8];
    for (Py_ssize_t j = 0; j < k; j++) {
        thr[j] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, j));
        if (thr[j] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32) < 0 || nv_arg(&in, po, NV_F32) < 0 || nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *t = in.v[0].buf, *p = in.v[1].buf;
    Py_ssize_t cnt[8][4];
    memset(cnt, 0, sizeof cnt);
    NOGIL_BEGIN
    for (Py_ssize_t i = 0; i < n; i++) {
        int pos = t[i] == 1.0f;
        double pv = p[i];
        for (Py_ssize_t j = 0; j < k; j++)
            cnt[j][(pos ? 0 : 2) + (pv >= thr[j] ? 0 : 1)]++;
    }
    NOGIL_END
    nv_args_release(&in);
    PyObject *lst = PyList_New(k);
    for (Py_ssize_t j = 0; lst && j < k; j++)
        PyList_SET_ITEM(lst, j, Py_BuildValue("(dddd)", (double)cnt[j][0], (double)cnt[j][1], (double)cnt[j][2],
                                              (double)cnt[j][3]));
    return lst;
}

/* percent_counts(frac, percent, T0, T1) -> (A, B, C, D) of percent mode */
PyObject *nv_percent_counts(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *fo;
    double prc;
    Py_ssize_t T0, T1;
    if (!PyArg_ParseTuple(args, "Odnn", &fo, &prc, &T0, &T1))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, fo, NV_F32) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *f = in.v[0].buf;
    NOGIL_BEGIN
    /* n * P in 80-bit, then / 100, then truncated, as the binary does (double arithmetic differs,
     * e.g. n = 1000, P = 14.1) */
    long long k = (long long)(((ext)n * (ext)prc) / 100.0L);
    long long split = (long long)n - k;
    if (split < 0)
        split = 0;
    else if (split >= n)
        split = n;
    double a = 0, c = 0;
    for (Py_ssize_t item = n - 1; item >= split; --item) {
        a = (double)(a + (ext)f[item]);
        c = (double)(c + (1.0L - (ext)f[item]));
    }
    NOGIL_END
    nv_args_release(&in);
    return Py_BuildValue("(dddd)", a, (double)((ext)T1 - a), c, (double)((ext)T0 - c));
}

/* ------------------------------------------------------------------------------------------------ */
/* ROC area, R50, lift plot                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/* roc(frac, T0, T1, plot) -> (area, 1 - area, plot_bytes) */
PyObject *nv_roc(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *fo;
    Py_ssize_t T0, T1;
    int plot;
    if (!PyArg_ParseTuple(args, "Onni", &fo, &T0, &T1, &plot))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, fo, NV_F32) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *fr = in.v[0].buf;
    nv_outbuf ob = {0};
    int err = 0;
    NOGIL_BEGIN
    double tt = 0, tf = (double)T1, ft = 0, ff = (double)T0;
    double tpf = (double)((ext)tt / ((ext)tt + tf));
    double fpf = (double)(1.0L - (ext)ff / ((ext)ft + ff));
    if (plot)
        err |= nv_ob_line2(&ob, "%6.4lf %6.4lf\n", fpf, tpf);
    double area = 0, tpf_prev = tpf, fpf_prev = fpf;
    for (Py_ssize_t item = n - 1; item > -1 && !err; item--) {
        ext f = fr[item], om = 1.0L - f;
        ext tt2 = tt + f, ft2 = ft + om;
        tf = (double)(tf - f);
        ff = (double)(ff - om);
        tpf = (double)(tt2 / (tt2 + tf));
        fpf = (double)(1.0L - ff / (ft2 + ff));
        if (plot)
            err |= nv_ob_line2(&ob, "%6.4lf %6.4lf\n", fpf, tpf);
        area = (double)(area + 0.5L * ((ext)tpf + tpf_prev) * ((ext)fpf - fpf_prev));
        tpf_prev = tpf;
        fpf_prev = fpf;
        tt = (double)tt2;
        ft = (double)ft2;
    }
    NOGIL_END
    nv_args_release(&in);
    if (err) {
        free(ob.buf);
        return PyErr_NoMemory();
    }
    return Py_BuildValue("(ddN)", area, (double)(1.0L - area), nv_ob_finish(&ob));
}

/* r50(frac, T0, T1, negs) -> (value, 1 - value) */
PyObject *nv_r50(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *fo;
    Py_ssize_t T0, T1;
    int negs;
    if (!PyArg_ParseTuple(args, "Onni", &fo, &T0, &T1, &negs))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, fo, NV_F32) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *fr = in.v[0].buf;
    NOGIL_BEGIN
    ext tt = 0, tf = (ext)T1, ft = 0, ff = (ext)T0;
    ext tpf = tt / (tt + tf), fpf = 1.0L - ff / (ft + ff);
    ext tpf_prev = tpf;
    double fpf_prev = (double)fpf, area = 0;
    int factor = (int)(T0 / negs); /* integer division, as the original */
    for (Py_ssize_t item = n - 1; item > -1; item--) {
        ext f = fr[item];
        tt += f;
        tf -= f;
        ft += 1.0L - f;
        ff -= 1.0L - f;
        tpf = tt / (tt + tf);
        fpf = 1.0L - ff / (ft + ff);
        if (ft <= negs)
            area = (double)(area + 0.5L * (tpf + tpf_prev) * (fpf - (ext)fpf_prev) * (ext)factor);
        tpf_prev = tpf;
        fpf_prev = (double)fpf;
    }
    NOGIL_END
    nv_args_release(&in);
    return Py_BuildValue("(dd)", area, (double)(1.0L - area));
}

/* lift_plot(frac, T1) -> bytes */
PyObject *nv_lift_plot(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *fo;
    Py_ssize_t T1;
    if (!PyArg_ParseTuple(args, "On", &fo, &T1))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, fo, NV_F32) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *fr = in.v[0].buf;
    nv_outbuf ob = {0};
    int err = 0;
    NOGIL_BEGIN
    double tt = 0, ft = 0;
    for (Py_ssize_t item = n - 1; item > -1 && !err; item--) {
        tt = (double)(tt + (ext)fr[item]);
        ft = (double)(ft + (1.0L - (ext)fr[item]));
        ext frac = ((ext)tt + ft) / (ext)(double)n;
        ext lift = ((ext)tt / ((ext)(double)T1 + EPS)) / (frac + EPS);
        err |= nv_ob_line2(&ob, "%6.4lf %6.4lf\n", (double)frac, (double)lift);
    }
    NOGIL_END
    nv_args_release(&in);
    if (err) {
        free(ob.buf);
        return PyErr_NoMemory();
    }
    return nv_ob_finish(&ob);
}

/* ------------------------------------------------------------------------------------------------ */
/* APR: expected precision under a random order inside each tie                                     */
/* ------------------------------------------------------------------------------------------------ */

#define MAX_TIES 50000

static double LF[MAX_TIES];
static int LF_ready = 0;

static pthread_mutex_t APR_LOCK = PTHREAD_MUTEX_INITIALIZER;

static void lf_fill(void)
{
    LF[0] = 0;
    for (int i = 1; i < MAX_TIES; i++)
        LF[i] = (double)((ext)LF[i - 1] + logl((ext)i));
    LF_ready = 1;
}

static void lf_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, lf_fill);
}

static inline ext choose_log(int N, int M)
{
    if (M < 0 || M > N)
        return -1.0e300L;
    return ((ext)LF[N] - LF[M]) - LF[N - M];
}

/* log of the probability that position j (1-based) of a tie group of g holding m positives is
 * positive with exactly k positives before it */
static inline ext apr_logprob(int j, int k, int g, int m)
{
    return ((0.0L + choose_log(j - 1, k)) + choose_log(g - j, m - k - 1)) - choose_log(g, m);
}

static inline double apr_term(double acc, int j, int k, int g, int m, int a, int b)
{
    if (g - j < m - k - 1)
        return acc;
    ext lp = apr_logprob(j, k, g, m);
    double lpd = (double)lp;
    if (!(lp > -50))
        return acc;
    ext pr = expl((ext)lpd);
    ext contrib = (((ext)(double)b + k) + 1) / (ext)(a + j);
    return (double)(acc + pr * contrib);
}

/* Expected sum of precision-at-k over the positives of one tie group (the original's definition).
 * Terms whose log-probability is <= -50 add exactly nothing, so for each j only the k near the mode
 * of the (log-concave) hypergeometric law are visited; the sum, in the same order, is unchanged. */
/* The probabilities of a group depend on (g, m) only: for small groups they are computed once per
 * (g, m) and kept (same expression, same values).  A negative entry marks a term that adds nothing. */
#define CACHE_G 64
static ext *PCACHE[CACHE_G + 1][CACHE_G + 1];

static ext *apr_table(int g, int m)
{
    ext *tab = malloc(sizeof(ext) * (size_t)g * (size_t)(m + 1));
    if (!tab)
        return NULL;
    for (int j = 1; j <= g; j++)
        for (int k = 0; k <= m; k++) {
            ext v = -1.0L;
            if (k <= j - 1 && !(g - j < m - k - 1)) {
                ext lp = apr_logprob(j, k, g, m);
                if (lp > -50)
                    v = expl((ext)(double)lp);
            }
            tab[(size_t)(j - 1) * (size_t)(m + 1) + (size_t)k] = v;
        }
    return tab;
}

/* Probability tables are kept per (g, m): always for small groups (g <= CACHE_G); for larger ones
 * (up to PHASH_MAX_G cases, a table of at most PTABLE_MAX entries) only from a pair's second
 * sighting, within PBUDGET bytes.  Data whose tie groups repeat the same sizes (every score of a
 * data set copied ten times) then make each table once; data whose pairs never repeat never pay
 * for a whole table (measured: caching on first sight made such data twice slower). */
#define PHASH_SIZE 65536
#define PHASH_MAX_G 4096
#define PTABLE_MAX (1u << 20)
#define PBUDGET ((size_t)256 << 20)
typedef struct {
    int g, m, seen;
    ext *tab;
} pentry;
static pentry PHASH[PHASH_SIZE];
static size_t PHASH_BYTES = 0;

static const ext *apr_probs(int g, int m)
{
    if (m > g)
        return NULL;
    pthread_mutex_lock(&APR_LOCK);
    ext *tab = NULL;
    if (g <= CACHE_G) {
        tab = PCACHE[g][m];
        if (!tab && (tab = apr_table(g, m)))
            PCACHE[g][m] = tab;
    } else if (g <= PHASH_MAX_G && (size_t)g * (size_t)(m + 1) <= PTABLE_MAX) {
        size_t bytes = sizeof(ext) * (size_t)g * (size_t)(m + 1);
        size_t h = ((size_t)g * 2654435761u ^ (size_t)m * 40503u) & (PHASH_SIZE - 1);
        for (size_t probe = 0; probe < 64; probe++, h = (h + 1) & (PHASH_SIZE - 1)) {
            pentry *e = &PHASH[h];
            if (e->seen && (e->g != g || e->m != m))
                continue;
            if (!e->seen) { /* first sighting: remember it, compute directly this time */
                e->g = g;
                e->m = m;
                e->seen = 1;
            } else if (e->tab)
                tab = e->tab;
            else if (PHASH_BYTES + bytes <= PBUDGET && (e->tab = apr_table(g, m))) {
                PHASH_BYTES += bytes;
                tab = e->tab;
            }
            break;
        }
    }
    pthread_mutex_unlock(&APR_LOCK);
    return tab;
}

static double apr_ties(int a, int b, int g, int m, int *big_warn)
{
    double ret = 0;
    if (m == 0)
        return 0;
    if (g == 1)
        return (double)(((ext)b + 1.0L) / ((ext)a + 1.0L));
    if (g >= MAX_TIES) {
        (*big_warn)++;
        for (int j = 1; j <= m; j++)
            ret = (double)(ret + ((ext)(double)b + j) / (ext)(a + g - m + j));
        return ret;
    }
    {
        const ext *tab = apr_probs(g, m); /* NULL: too large to keep, computed below */
        if (tab) {
            for (int j = 1; j <= g; j++) {
                const ext *row = tab + (size_t)(j - 1) * (size_t)(m + 1);
                int khi = j - 1 < m ? j - 1 : m;
                for (int k = 0; k <= khi; k++) {
                    ext pr = row[k];
                    if (pr < 0)
                        continue;
                    ext contrib = (((ext)(double)b + k) + 1) / (ext)(a + j);
                    ret = (double)(ret + pr * contrib);
                }
            }
            return ret;
        }
    }
    ext *lps = NULL;
    size_t lps_cap = 0;
    for (int j = 1; j <= g; j++) {
        int khi = j - 1 < m ? j - 1 : m;
        int klo = m - 1 - (g - j);
        if (klo < 0)
            klo = 0;
        if (klo > khi)
            continue;
        if ((long)(khi - klo) < 64) {
            for (int k = klo; k <= khi; k++)
                ret = apr_term(ret, j, k, g, m, a, b);
            continue;
        }
        long mode = ((long)j * (long)m) / (long)(g + 1);
        if (mode < klo)
            mode = klo;
        if (mode > khi)
            mode = khi;
        /* the window around the mode; each log-probability is computed once, kept for the sum */
        if (lps_cap < (size_t)(khi - klo + 1)) {
            free(lps);
            lps_cap = (size_t)(khi - klo + 1);
            lps = malloc(lps_cap * sizeof(ext));
        }
        if (!lps) { /* no memory to keep them: term by term */
            lps_cap = 0;
            for (int k = klo; k <= khi; k++)
                ret = apr_term(ret, j, k, g, m, a, b);
            continue;
        }
        int lo = (int)mode, hi = (int)mode;
        lps[mode - klo] = apr_logprob(j, (int)mode, g, m);
        while (lo > klo && (lps[lo - 1 - klo] = apr_logprob(j, lo - 1, g, m)) > -60)
            lo--;
        while (hi < khi && (lps[hi + 1 - klo] = apr_logprob(j, hi + 1, g, m)) > -60)
            hi++;
        for (int k = lo; k <= hi; k++) { /* apr_term, with its log-probability already known */
            ext lp = lps[k - klo];
            if (!(lp > -50))
                continue;
            ext pr = expl((ext)(double)lp);
            ext contrib = (((ext)(double)b + k) + 1) / (ext)(a + j);
            ret = (double)(ret + pr * contrib);
        }
    }
    free(lps);
    return ret;
}

/* apr(p, frac, T1, plot, acc[, threads]) -> (apr, 1 - apr, acc + apr, n_big_tie_warnings, plot_bytes);
 * threads=1 forces one thread */
/* A tie group whose expected precision is worth computing apart: more than one case, a positive. */
typedef struct {
    int a, b, g, m;
    double E;
    int big;
} aprgroup;

/* The walk of PERF's calc_apr from the top.  mode 0: compute every group's value inline and add it
 * up; mode 1: only list the heavy groups (g > 1, m > 0) and their work; mode 2: add up, taking the
 * heavy groups' values from the list (computed in parallel in between).  The walk's 80-bit
 * arithmetic is the same in every mode, so modes 1 + 2 give mode 0's sum exactly. */
static double apr_walk(const float *p, const float *fr, Py_ssize_t n, Py_ssize_t T1, int plot, nv_outbuf *ob,
                       int *err, int *big, int mode, aprgroup **heavy, size_t *nheavy, double *work)
{
    ext tt = 0, tin = 0, fin = 0;
    double ft = 0, apr = 0;
    size_t cap = 0, next = 0;
    for (Py_ssize_t item = n - 1; item > -1 && !*err; item--) {
        ext f = fr[item];
        tt += f;
        ft = (double)(ft + (1.0L - f));
        tin += f;
        fin += 1.0L - f;
        if (item == 0 || p[item] != p[item - 1]) {
            ext nn = (tt + ft - fin) - tin;
            ext mm = tt - tin;
            int ia = (int)(double)(nn + 0.5L), ib = (int)(double)(mm + 0.5L);
            int ig = (int)(double)(tin + fin + 0.5L), im = (int)(double)(tin + 0.5L);
            int is_heavy = ig > 1 && im > 0;
            if (mode == 1) {
                if (is_heavy) {
                    if (*nheavy == cap) {
                        cap = cap ? cap * 2 : 1024;
                        aprgroup *nh = realloc(*heavy, cap * sizeof(aprgroup));
                        if (!nh) {
                            *err = 1;
                            break;
                        }
                        *heavy = nh;
                    }
                    aprgroup *h = &(*heavy)[(*nheavy)++];
                    h->a = ia;
                    h->b = ib;
                    h->g = ig;
                    h->m = im;
                    h->big = 0;
                    *work += (double)ig * (double)(im < 64 ? im + 1 : 64);
                }
            } else {
                double E;
                if (mode == 2 && is_heavy) {
                    E = (*heavy)[next].E;
                    *big += (*heavy)[next].big;
                    next++;
                } else
                    E = apr_ties(ia, ib, ig, im, big);
                apr = (double)((ext)apr + E);
            }
            tt = (double)tt;
            tin = 0;
            fin = 0;
        }
        if (plot && mode != 1) {
            ext precision = tt / (ext)(double)(tt + ft);
            ext recall = tt / (ext)(double)T1;
            *err |= nv_ob_line2(ob, "%6.4lf %6.4lf\n", (double)recall, (double)precision);
        }
    }
    return apr;
}

typedef struct {
    aprgroup *g;
    size_t from, to;
} aprjob;

static void *apr_job(void *arg)
{
    aprjob *j = arg;
    for (size_t i = j->from; i < j->to; i++)
        j->g[i].E = apr_ties(j->g[i].a, j->g[i].b, j->g[i].g, j->g[i].m, &j->g[i].big);
    return NULL;
}

PyObject *nv_apr(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *fo;
    Py_ssize_t T1;
    int plot, threads = 0;
    double accin;
    if (!PyArg_ParseTuple(args, "OOnid|i", &po, &fo, &T1, &plot, &accin, &threads))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, po, NV_F32) < 0 || nv_arg(&in, fo, NV_F32) < 0 || nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *p = in.v[0].buf, *fr = in.v[1].buf;
    lf_init();
    NOGIL_BEGIN
    nv_outbuf ob = {0};
    int err = 0, big = 0;
    aprgroup *heavy = NULL;
    size_t nheavy = 0;
    double work = 0, apr;
    /* list the heavy groups first; when they are a lot of work, compute them in two threads */
    apr_walk(p, fr, n, T1, 0, &ob, &err, &big, 1, &heavy, &nheavy, &work);
    if (!err && work > 4e6 && nheavy > 1 && threads != 1) {
        /* split the list where the estimated work is half done */
        double half = work / 2, acc = 0;
        size_t cut = 0;
        while (cut < nheavy && acc < half) {
            acc += (double)heavy[cut].g * (double)(heavy[cut].m < 64 ? heavy[cut].m + 1 : 64);
            cut++;
        }
        aprjob j0 = {heavy, 0, cut}, j1 = {heavy, cut, nheavy};
        pthread_t th;
        int threaded = pthread_create(&th, NULL, apr_job, &j1) == 0;
        apr_job(&j0);
        if (threaded)
            pthread_join(th, NULL);
        else
            apr_job(&j1);
        apr = apr_walk(p, fr, n, T1, plot, &ob, &err, &big, 2, &heavy, &nheavy, &work);
    } else
        apr = apr_walk(p, fr, n, T1, plot, &ob, &err, &big, 0, &heavy, &nheavy, &work);
    free(heavy);
    NOGIL_END
    nv_args_release(&in);
    if (err) {
        free(ob.buf);
        return PyErr_NoMemory();
    }
    ext v = (ext)apr / (ext)(double)T1;
    return Py_BuildValue("(dddiN)", (double)v, (double)(1.0L - v), (double)((ext)accin + v), big, nv_ob_finish(&ob));
}

/* ------------------------------------------------------------------------------------------------ */
/* rank measures                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* ranks(frac, T0, T1, all_same, ntop_k, ntop_raw) ->
 *   (prb, 1-prb, top1, top10, rkl, rkl_loss, ntop, 1-ntop) */
PyObject *nv_ranks(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *fo;
    Py_ssize_t T0, T1;
    int all_same;
    long ntop_k;
    double ntop_raw;
    if (!PyArg_ParseTuple(args, "Onnild", &fo, &T0, &T1, &all_same, &ntop_k, &ntop_raw))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, fo, NV_F32) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *fr = in.v[0].buf;
    NOGIL_BEGIN
    /* PRB: fractional positives in the top T1 positions, over T1 */
    ext s = 0;
    for (Py_ssize_t item = n - 1; item >= T0; --item)
        s += fr[item];
    ext prb = s / (ext)(double)T1;
    /* TOP1 reads the top slot, which is the zero before the array when n = 0 */
    double top1 = (n > 0 ? fr[n - 1] : 0.0f) >= (1.0 - EPS) ? 1.0 : 0.0;
    double top10 = 0.0;
    for (Py_ssize_t item = n - 1; item > -1 && n - item <= 10; item--)
        if (fr[item] >= (1.0 - EPS)) {
            top10 = 1.0;
            break;
        }
    double rkl;
    if (all_same)
        rkl = (double)n;
    else {
        Py_ssize_t r = n - 1;
        for (Py_ssize_t item = 0; item < n; item++)
            if (fr[item] > 0) {
                r = n - item;
                break;
            }
        rkl = (double)r;
    }
    ext rkl_loss = ((ext)rkl - 1) / ((ext)(double)(n - 1) + EPS);
    ext ts = 0;
    for (Py_ssize_t item = n - 1; item > -1 && n - item <= ntop_k; item--)
        ts += fr[item];
    ext ntop = ts / ((ext)ntop_raw + EPS);
    NOGIL_END
    nv_args_release(&in);
    return Py_BuildValue("(dddddddd)", (double)prb, (double)(1.0L - prb), top1, top10, rkl, (double)rkl_loss,
                         (double)ntop, (double)(1.0L - ntop));
}

/* ------------------------------------------------------------------------------------------------ */
/* SLQ                                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/* slq(t, p, width, nbins) -> (slq, 1 - slq); predictions in bins >= nbins are left out */
PyObject *nv_slq(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po;
    double width;
    int nb;
    if (!PyArg_ParseTuple(args, "OOdi", &to, &po, &width, &nb))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32) < 0 || nv_arg(&in, po, NV_F32) < 0 || nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *t = in.v[0].buf, *p = in.v[1].buf;
    long long *pos = calloc((size_t)(nb > 0 ? nb : 1), sizeof(long long));
    long long *neg = calloc((size_t)(nb > 0 ? nb : 1), sizeof(long long));
    if (!pos || !neg) {
        free(pos);
        free(neg);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    ext div = (ext)width + EPS;
    NOGIL_BEGIN
    for (Py_ssize_t i = 0; i < n; i++) {
        ext q = (ext)p[i] / div;
        /* floor; for q >= 0 the truncating conversion is the same and much cheaper than floorl */
        double fb = (q >= 0 && q < 4.0e18L) ? (double)(long long)q : (double)floorl(q);
        if (!(fb >= 0 && fb < nb))
            continue;
        int bin = (int)fb;
        if (t[i] > 0.5f)
            pos[bin]++;
        else
            neg[bin]++;
    }
    ext q = 0;
    long long qn = 0;
    for (int bin = 0; bin < nb; bin++) {
        ext tot = (ext)(double)(pos[bin] + neg[bin]);
        ext w;
        if (pos[bin] > neg[bin])
            w = 1.0L - ((ext)(double)pos[bin] / (tot + EPS));
        else
            w = 1.0L - ((ext)(double)neg[bin] / (tot + EPS));
        q += tot * (1.0L - 2.0L * w) * (1.0L - 2.0L * w);
        qn += pos[bin] + neg[bin];
    }
    NOGIL_END
    free(pos);
    free(neg);
    nv_args_release(&in);
    ext v = q / (ext)(double)qn;
    return Py_BuildValue("(dd)", (double)v, (double)(1.0L - v));
}

/* ------------------------------------------------------------------------------------------------ */
/* RMS, CXE, NRM                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* rms(t, p, warn_min, warn_max, acc) -> (rms, acc + rms, warn_min, warn_max, [(kind, value), ...])
 * kind 1: a prediction above 1, kind 0: below 0 -- the range warnings, once per data set. */
static PyObject *warn_list(int nw, const int *wk, const double *wv)
{
    PyObject *warns = PyList_New(nw);
    for (int k = 0; warns && k < nw; k++) {
        PyObject *w = Py_BuildValue("(id)", wk[k], wv[k]);
        if (!w) {
            Py_CLEAR(warns);
            break;
        }
        PyList_SET_ITEM(warns, k, w);
    }
    return warns;
}

PyObject *nv_rms(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po;
    int wmin, wmax;
    double accin;
    if (!PyArg_ParseTuple(args, "OOiid", &to, &po, &wmin, &wmax, &accin))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32) < 0 || nv_arg(&in, po, NV_F32) < 0 || nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *t = in.v[0].buf, *p = in.v[1].buf;
    int nw = 0, wk[2];
    double wv[2];
    ext sse = 0;
    NOGIL_BEGIN
    for (Py_ssize_t i = 0; i < n; i++) {
        ext d = (ext)t[i] - (ext)p[i];
        sse += d * d;
        if (p[i] > 1.0 && wmax) {
            sse = (double)sse; /* spilled around the warning's fprintf */
            wmax = 0;
            wk[nw] = 1;
            wv[nw++] = p[i];
        }
        if (p[i] < 0.0 && wmin) {
            sse = (double)sse;
            wmin = 0;
            wk[nw] = 0;
            wv[nw++] = p[i];
        }
    }
    ext v = sqrtl(sse / (ext)(double)n);
    NOGIL_END
    nv_args_release(&in);
    PyObject *warns = warn_list(nw, wk, wv);
    if (!warns)
        return NULL;
    return Py_BuildValue("(ddiiN)", (double)v, (double)((ext)accin + v), wmin, wmax, warns);
}

/* cxe(t, p, mean_true, warn_min, warn_max) -> (cxe, warn_min, warn_max, warnings)
 * Rewrites the targets in place, as the original does (quirk Q6). */
PyObject *nv_cxe(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po;
    double mean_true;
    int wmin, wmax;
    if (!PyArg_ParseTuple(args, "OOdii", &to, &po, &mean_true, &wmin, &wmax))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32 | NV_WRITABLE) < 0 || nv_arg(&in, po, NV_F32) < 0 || nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    float *t = in.v[0].buf;
    const float *p = in.v[1].buf;
    int nw = 0, wk[2];
    double wv[2];
    NOGIL_BEGIN
    double log2d = (double)logl(2.0L);
    double acc = 0;
    /* the term depends only on (prediction, class): sorted data repeats it along each tie, so the
     * last one is reused (the same expression on the same operands) */
    float last_p = NAN;
    int last_c = -1;
    ext last_term = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int cls = !(t[i] < mean_true);
        float nt = cls ? 1.0f : 0.0f;
        if (t[i] != nt) /* store only a change: when nothing changes, other threads may read t */
            t[i] = nt;
        if (!(p[i] == last_p && cls == last_c)) {
            if (!cls) {
                ext x = 1.0L - (ext)p[i];
                last_term = x <= 0.0L ? (ext)9e99 : (-logl((ext)(double)x)) / (ext)log2d;
            } else
                last_term = p[i] <= 0.0f ? (ext)9e99 : (-logl((ext)p[i])) / (ext)log2d;
            last_p = p[i];
            last_c = cls;
        }
        acc = (double)((ext)acc + last_term);
        if (p[i] > 1.0 && wmax) {
            wmax = 0;
            wk[nw] = 1;
            wv[nw++] = p[i];
        }
        if (p[i] < 0.0 && wmin) {
            wmin = 0;
            wk[nw] = 0;
            wv[nw++] = p[i];
        }
    }
    NOGIL_END
    nv_args_release(&in);
    PyObject *warns = warn_list(nw, wk, wv);
    if (!warns)
        return NULL;
    return Py_BuildValue("(diiN)", (double)((ext)acc / (ext)(double)n), wmin, wmax, warns);
}

/* nrm(t, p, P) -> (sum |t - p|^P / n)^(1/P) */
PyObject *nv_nrm(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po;
    double P;
    if (!PyArg_ParseTuple(args, "OOd", &to, &po, &P))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32) < 0 || nv_arg(&in, po, NV_F32) < 0 || nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *t = in.v[0].buf, *p = in.v[1].buf;
    NOGIL_BEGIN
    ext acc = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double accd = (double)acc; /* spilled before every pow call */
        double d = (double)fabsl((ext)t[i] - (ext)p[i]);
        acc = (ext)accd + powl((ext)d, (ext)P);
    }
    NOGIL_END
    nv_args_release(&in);
    double base = (double)(acc / (ext)(double)n);
    double expo = (double)(1.0L / (ext)P);
    return PyFloat_FromDouble((double)powl((ext)base, (ext)expo));
}

/* ------------------------------------------------------------------------------------------------ */
/* calibration                                                                                       */
/* ------------------------------------------------------------------------------------------------ */

/* ca1(t, p): 19 overlapping bins [i*0.05, i*0.05 + 0.1], edges in 80-bit (p must be sorted) */
PyObject *nv_ca1(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po;
    if (!PyArg_ParseTuple(args, "OO", &to, &po))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32) < 0 || nv_arg(&in, po, NV_F32) < 0 || nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *t = in.v[0].buf, *p = in.v[1].buf;
    NOGIL_BEGIN
    ext cal_sum = 0;
    for (int i = 0; i < 19; i++) {
        ext lo = (ext)i * 0.05, hi = lo + 0.1;
        /* the data are sorted ascending: the bin is one contiguous run */
        Py_ssize_t a = 0, b = n;
        while (a < b) {
            Py_ssize_t mid = a + (b - a) / 2;
            if ((ext)p[mid] >= lo)
                b = mid;
            else
                a = mid + 1;
        }
        long long ct = 0, cf = 0;
        ext sp = 0;
        for (Py_ssize_t item = a; item < n && (ext)p[item] <= hi; item++) {
            if (t[item] == 1.0f)
                ct++;
            else
                cf++;
            sp += p[item];
        }
        ext k = (ext)(double)(ct + cf) + EPS;
        ext obs = (ext)(double)ct / k;
        cal_sum += fabsl(obs - sp / k);
    }
    NOGIL_END
    nv_args_release(&in);
    return PyFloat_FromDouble((double)(cal_sum / 19.0L));
}

/* ca2(t, p, S): mean calibration error over windows of S consecutive sorted cases */
PyObject *nv_ca2(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po;
    long S;
    if (!PyArg_ParseTuple(args, "OOl", &to, &po, &S))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32) < 0 || nv_arg(&in, po, NV_F32) < 0 || nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *t = in.v[0].buf, *p = in.v[1].buf;
    NOGIL_BEGIN
    long long ct = 0, cf = 0, csn = 0;
    ext sp = 0, cs = 0;
    for (Py_ssize_t item = 0; item < n; item++) {
        if (t[item] == 1.0f)
            ct++;
        else
            cf++;
        sp += p[item];
        if (item >= S - 1) {
            ext k = (ext)(double)(ct + cf) + EPS;
            ext obs = (ext)(double)ct / k;
            cs += fabsl(obs - sp / k);
            csn++;
            if (t[item - S + 1] == 1.0f)
                ct--;
            else
                cf--;
            sp -= p[item - S + 1];
        }
    }
    NOGIL_END
    nv_args_release(&in);
    return PyFloat_FromDouble((double)(cs / (ext)(double)csn));
}

/* ------------------------------------------------------------------------------------------------ */
/* threshold statistics                                                                              */
/* ------------------------------------------------------------------------------------------------ */

/* stats(A, B, C, D, T0, T1, loss, max_lift, wacc, wroc, wrms, roc, rmse, ca, cb, cc, cd)
 *   -> (ACC, PPV, NPV, SEN, SPC, PRE, REC, PRF, LFT, SAR, CST) */
PyObject *nv_stats(PyObject *Py_UNUSED(self), PyObject *args)
{
    double A, B, C, D, max_lift, wacc, wroc, wrms, roc, rmse, ca, cb, cc, cd;
    Py_ssize_t T0, T1;
    int loss;
    if (!PyArg_ParseTuple(args, "ddddnnidddddddddd", &A, &B, &C, &D, &T0, &T1, &loss, &max_lift, &wacc, &wroc,
                          &wrms, &roc, &rmse, &ca, &cb, &cc, &cd))
        return NULL;
    ext a = A, b = B, c = C, d = D;
    double prec = (double)(a / (a + c + EPS));
    double rec = (double)(a / (a + b + EPS));
    ext acc = (a + d) / ((((a + b) + c) + d) + EPS);
    ext ppv = a / ((a + c) + EPS);
    ext npv = d / ((b + d) + EPS);
    ext sen = a / ((a + b) + EPS);
    ext spc = d / ((c + d) + EPS);
    ext prf = (2.0L * prec * rec) / ((ext)prec + rec + EPS);
    double share = (double)((a + c) / (ext)(double)(T1 + T0));
    ext lft = (a / (ext)(double)T1) / ((ext)share + EPS);
    ext sar = (((ext)wacc * (a + d) / ((((a + b) + c) + d) + EPS) + (ext)wroc * roc + (ext)wrms * (1.0L - rmse))) /
              ((ext)wacc + wroc + wrms + EPS);
    ext cst = (ext)ca * a + (ext)cb * b + (ext)cc * c + (ext)cd * d;
    if (loss) {
        acc = 1.0L - acc;
        ppv = 1.0L - ppv;
        npv = 1.0L - npv;
        sen = 1.0L - sen;
        spc = 1.0L - spc;
        prf = 1.0L - prf;
        lft = ((ext)max_lift - lft) / ((ext)max_lift - 0.0L + EPS);
        sar = 1.0L - sar;
        return Py_BuildValue("(ddddddddddd)", (double)acc, (double)ppv, (double)npv, (double)sen, (double)spc,
                             (double)(1.0L - prec), (double)(1.0L - rec), (double)prf, (double)lft, (double)sar,
                             (double)cst);
    }
    return Py_BuildValue("(ddddddddddd)", (double)acc, (double)ppv, (double)npv, (double)sen, (double)spc, prec, rec,
                         (double)prf, (double)lft, (double)sar, (double)cst);
}

/* div_ext(a, b) -> double(a / b) computed in 80-bit (block means) */
PyObject *nv_div_ext(PyObject *Py_UNUSED(self), PyObject *args)
{
    double a, b;
    if (!PyArg_ParseTuple(args, "dd", &a, &b))
        return NULL;
    return PyFloat_FromDouble((double)((ext)a / (ext)b));
}

/* add_ext(a, b) -> double(a + b) computed in 80-bit */
PyObject *nv_add_ext(PyObject *Py_UNUSED(self), PyObject *args)
{
    double a, b;
    if (!PyArg_ParseTuple(args, "dd", &a, &b))
        return NULL;
    return PyFloat_FromDouble((double)((ext)a + (ext)b));
}

/* midpoint(a, b) -> double((a + b) / 2) computed in 80-bit (freq_thresh) */
PyObject *nv_midpoint(PyObject *Py_UNUSED(self), PyObject *args)
{
    double a, b;
    if (!PyArg_ParseTuple(args, "dd", &a, &b))
        return NULL;
    return PyFloat_FromDouble((double)(((ext)a + (ext)b) / 2.0L));
}

/* c_int_sum(a, b) -> C's (int)(a + b) with the sum in 80-bit; NaN or out of range gives INT_MIN, as
 * the x87 conversion does (the NTOP label) */
PyObject *nv_c_int_sum(PyObject *Py_UNUSED(self), PyObject *args)
{
    double a, b;
    if (!PyArg_ParseTuple(args, "dd", &a, &b))
        return NULL;
    ext v = (ext)a + (ext)b;
    long r;
    if (!(v > -2147483649.0L && v < 2147483648.0L))
        r = -2147483647L - 1;
    else
        r = (long)v;
    return PyLong_FromLong(r);
}

/* range_scan(p, limit) -> (first index with p < 0 or p > 1, first index with p < 0), -1 for none */
PyObject *nv_range_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "On", &po, &limit))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, po, NV_F32) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const float *p = in.v[0].buf;
    if (limit < n)
        n = limit;
    Py_ssize_t out = -1, neg = -1;
    for (Py_ssize_t i = 0; i < n && (out < 0 || neg < 0); i++) {
        if (out < 0 && (p[i] < 0.0f || p[i] > 1.0f))
            out = i;
        if (neg < 0 && p[i] < 0.0f)
            neg = i;
    }
    nv_args_release(&in);
    return Py_BuildValue("(nn)", out, neg);
}

PyObject *nv_max_lift(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_ssize_t n, T1;
    if (!PyArg_ParseTuple(args, "nn", &n, &T1))
        return NULL;
    return PyFloat_FromDouble((double)((ext)(double)n * 1.0L / ((ext)(double)T1 + EPS)));
}

/* mantissa_bits() -> LDBL_MANT_DIG, 64 where long double is the x87 format.  test-only: tests/test_kernels.py
 * checks the platform with it (docs/compatibility.md names it). */
PyObject *nv_mantissa_bits(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(noargs))
{
    return PyLong_FromLong(LDBL_MANT_DIG);
}
