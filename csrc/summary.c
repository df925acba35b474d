/*
 * perfeval._native, summary.c: modern float64 kernels over summaries (score histograms, runs of a
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
/* one group's term: m positives among g cases, below a cases of which b are positive */
static inline double apr_term(double m, double g, double a, double b)
{
    if (g == 1)
        return (b + 1.0) / (a + 1.0);
    if (g > APR_LOOP_MAX) /* a weight of many cases: closed forms, not a sum of g terms */
        return apr_big(m, g, a, b);
    double s1 = 0, s2 = 0;
    long long gi = (long long)g;
    for (long long j = 1; j <= gi; j++) {
        double inv = 1.0 / (a + (double)j);
        s1 += inv;
        s2 += (double)(j - 1) * inv;
    }
    return m / g * ((b + 1.0) * s1 + (m - 1.0) / (g - 1.0) * s2);
}

double nv_apr_total(const double *pos, const double *neg, Py_ssize_t lo, Py_ssize_t hi)
{
    double total = 0, a = 0, b = 0;
    for (Py_ssize_t i = hi - 1; i >= lo; i--) {
        double m = pos[i], g = m + neg[i];
        if (m > 0)
            total += apr_term(m, g, a, b);
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
    total = nv_apr_total(in.v[0].buf, in.v[1].buf, 0, shortest(&in, 2));
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
    const long long *bounds = in.v[2].buf;
    Py_ssize_t G = nv_group_bounds(&in, (const int64_t *)bounds, in.n[2], shortest(&in, 2), "hist_apr_groups");
    if (G < 0)
        return NULL;
    PyObject *res = PyBytes_FromStringAndSize(NULL, G * (Py_ssize_t)sizeof(double));
    if (res) {
        double *out = (double *)PyBytes_AS_STRING(res);
        const double *pos = in.v[0].buf, *neg = in.v[1].buf;
        NOGIL_BEGIN
        for (Py_ssize_t k = 0; k < G; k++)
            out[k] = nv_apr_total(pos, neg, bounds[k], bounds[k + 1]);
        NOGIL_END
    }
    nv_args_release(&in);
    return res;
}

/* The CA2 of the cells [0, groups) (ascending scores, whole-number weights), NaN when there is no
 * window: hist_ca2's walk, also used for the bootstrap's replicate summaries (resample.c). */
double nv_ca2_total(const double *sc, const double *pos, const double *neg, Py_ssize_t groups, long long S)
{
    double result = NAN;
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
    return result;
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
    double result;
    NOGIL_BEGIN
    result = nv_ca2_total(sc, pos, neg, groups, S);
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

/* ------------------------------------------------------------------------------------------------ */
/* the tie table of a ranking (perfeval.summaries.ranking.TieTable)                                  */
/* ------------------------------------------------------------------------------------------------ */

/* numpy's pairwise summation (DOUBLE_pairwise_sum of numpy/_core/src/umath/loops_utils.h), step for
 * step: np.add.reduceat sums a segment as a[0] + pairwise(a[1:]), and the tie table's sums must be
 * bit for bit the ones the numpy version of it made (fractional grades in ties of 9 or more rows). */
static double np_pairwise(const double *a, Py_ssize_t n)
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
    return np_pairwise(a, n2) + np_pairwise(a + n2, n - n2);
}

/* 2^g - 1 for the whole grades 0..63, as np.exp2 computes them (exactly: numpy's SIMD exp2 differs
 * from libm's in the last bit for some fractional arguments, so fractional grades come in as a
 * column that numpy computed) */
static double gain_table[64];

static void gain_table_init(void)
{
    if (gain_table[1] == 0)
        for (int k = 0; k < 64; k++)
            gain_table[k] = ldexp(1.0, k) - 1.0;
}

static inline int whole_grade(double g)
{
    return g >= 0 && g < 64 && g == (double)(int)g;
}

/* tie_table(order | None, codes, score, rel, gain | None, judged | None, pooled | None) ->
 *     (query, first, size, nrel, gain, lin, judged, pooled)
 * The ties of a ranking: rows taken in `order` (int64 row numbers; None: as they are) are sorted by
 * query code (`codes`, int64) and descending score; a tie is a run of rows of one query and one
 * score.  Per tie: its query code (int64), and as float64: its first position inside its query, its
 * rows, its rows of relevance > 0, the sums of its gains 2^rel - 1 and of its relevances (each
 * summed as np.add.reduceat sums, bit for bit), and its rows flagged in `judged` / `pooled` (uint8;
 * None when not given).  The gains are `gain`'s values (float64), or without it computed from whole
 * relevances 0..63 (ValueError for others).  The columns are in row order.  Why C: the numpy version
 * gathers five sorted copies and makes six reduceat passes over 10M rows (1.5 s); this is two walks
 * (one counts the ties) and no n-sized temporary. */
PyObject *nv_tie_table(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *oo, *co, *so, *ro, *go, *jo, *po;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &oo, &co, &so, &ro, &go, &jo, &po))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, oo, NV_RAW8 | NV_OPTIONAL) < 0 || nv_arg(&in, co, NV_RAW8) < 0 || nv_arg(&in, so, NV_F64) < 0 ||
        nv_arg(&in, ro, NV_F64) < 0 || nv_arg(&in, go, NV_F64 | NV_OPTIONAL) < 0 ||
        nv_arg(&in, jo, NV_RAW1 | NV_OPTIONAL) < 0 || nv_arg(&in, po, NV_RAW1 | NV_OPTIONAL) < 0 ||
        nv_args_same_len(&in, 1, 7) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1)) {
        nv_args_fail(&in, PyExc_ValueError, "order and the columns differ in length");
        return NULL;
    }
    const int64_t *order = in.v[0].buf, *codes = in.v[1].buf;
    const double *score = in.v[2].buf, *rel = in.v[3].buf, *gcol = in.v[4].buf;
    const unsigned char *jf = in.v[5].buf, *pf = in.v[6].buf;
    Py_ssize_t n = in.n[1];
    int ok = 1;
    for (Py_ssize_t i = 0; order && i < n && ok; i++)
        ok = order[i] >= 0 && order[i] < n;
    if (!ok) {
        nv_args_fail(&in, PyExc_ValueError, "order holds a row outside [0, n)");
        return NULL;
    }
    for (Py_ssize_t i = 0; !gcol && i < n && ok; i++)
        ok = whole_grade(rel[i]);
    if (!ok) {
        nv_args_fail(&in, PyExc_ValueError, "a relevance that is not a whole number 0..63 needs the gain column");
        return NULL;
    }
    gain_table_init();
#define ROW(i) (order ? order[i] : (i))
#define GAIN(r) (gcol ? gcol[r] : gain_table[(int)rel[r]])
#define NEW_TIE(i) ((i) == 0 || codes[ROW(i)] != codes[ROW((i) - 1)] || score[ROW(i)] != score[ROW((i) - 1)])
    Py_ssize_t T = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        T += NEW_TIE(i);
    Py_END_ALLOW_THREADS
    enum { QUERY, FIRST, SIZE, NREL, GAIN, LIN, JUDGED, POOLED, NOUT };
    PyObject *out[NOUT] = {0};
    for (int k = 0; k < NOUT; k++) {
        if ((k == JUDGED && !jf) || (k == POOLED && !pf)) {
            out[k] = Py_NewRef(Py_None);
            continue;
        }
        out[k] = PyByteArray_FromStringAndSize(NULL, T * 8);
        if (!out[k]) {
            for (int j = 0; j < k; j++)
                Py_XDECREF(out[j]);
            nv_args_release(&in);
            return NULL;
        }
    }
#define COL(k, type) ((type *)(out[k] == Py_None ? NULL : PyByteArray_AS_STRING(out[k])))
    int64_t *o_query = COL(QUERY, int64_t);
    double *o_first = COL(FIRST, double), *o_size = COL(SIZE, double), *o_nrel = COL(NREL, double);
    double *o_gain = COL(GAIN, double), *o_lin = COL(LIN, double), *o_judged = COL(JUDGED, double);
    double *o_pooled = COL(POOLED, double);
#undef COL
    int nomem = 0;
    Py_BEGIN_ALLOW_THREADS
    double *gbuf = NULL, *lbuf = NULL; /* a tie's gains and relevances, in sorted order, when long */
    Py_ssize_t cap = 0, qstart = 0, t = 0;
    for (Py_ssize_t a = 0, b; a < n && !nomem; a = b, t++) {
        b = a + 1; /* the tie is rows [a, b) of the sorted order */
        while (b < n && !NEW_TIE(b))
            b++;
        Py_ssize_t m = b - a;
        int64_t r0 = ROW(a);
        if (a == 0 || codes[r0] != codes[ROW(a - 1)])
            qstart = a;
        o_query[t] = codes[r0];
        o_first[t] = (double)(a - qstart);
        o_size[t] = (double)m;
        double nrel = 0, nj = 0, np_ = 0;
        for (Py_ssize_t i = a; i < b; i++) {
            int64_t r = ROW(i);
            nrel += rel[r] > 0;
            if (jf)
                nj += jf[r] != 0;
            if (pf)
                np_ += pf[r] != 0;
        }
        o_nrel[t] = nrel;
        if (jf)
            o_judged[t] = nj;
        if (pf)
            o_pooled[t] = np_;
        if (m - 1 < 8) { /* np_pairwise's sequential case, inlined */
            double g = 0., l = 0.;
            for (Py_ssize_t i = a + 1; i < b; i++) {
                g += GAIN(ROW(i));
                l += rel[ROW(i)];
            }
            o_gain[t] = GAIN(r0) + g;
            o_lin[t] = rel[r0] + l;
            continue;
        }
        if (m > cap) {
            free(gbuf);
            free(lbuf);
            cap = m;
            gbuf = malloc((size_t)cap * sizeof(double));
            lbuf = malloc((size_t)cap * sizeof(double));
            if (!gbuf || !lbuf) {
                nomem = 1;
                break;
            }
        }
        for (Py_ssize_t i = a; i < b; i++) {
            gbuf[i - a] = GAIN(ROW(i));
            lbuf[i - a] = rel[ROW(i)];
        }
        o_gain[t] = gbuf[0] + np_pairwise(gbuf + 1, m - 1);
        o_lin[t] = lbuf[0] + np_pairwise(lbuf + 1, m - 1);
    }
    free(gbuf);
    free(lbuf);
    Py_END_ALLOW_THREADS
#undef ROW
#undef NEW_TIE
#undef GAIN
    nv_args_release(&in);
    if (nomem) {
        for (int k = 0; k < NOUT; k++)
            Py_XDECREF(out[k]);
        return PyErr_NoMemory();
    }
    PyObject *res = PyTuple_New(NOUT);
    if (!res) {
        for (int k = 0; k < NOUT; k++)
            Py_XDECREF(out[k]);
        return NULL;
    }
    for (int k = 0; k < NOUT; k++)
        PyTuple_SET_ITEM(res, k, out[k]);
    return res;
}

/* ------------------------------------------------------------------------------------------------ */
/* rows grouped by query and sorted by descending score, and int64 group ids coded                   */
/* ------------------------------------------------------------------------------------------------ */

/* a row and its score as a key whose unsigned order is the score's descending order (-0.0 made 0.0
 * first: equal scores, equal keys, one tie) */
typedef struct {
    uint64_t key;
    int64_t row;
} qrec;

static inline uint64_t desc_key(double x)
{
    uint64_t b;
    x += 0.0; /* -0.0 -> 0.0 */
    memcpy(&b, &x, 8);
    b = (b >> 63) ? ~b : (b | 0x8000000000000000ULL); /* ascending as unsigned */
    return ~b;                                       /* descending */
}

/* qrec_sort(a, n, depth): by key (introsort.h) */
#define SORT(name) qrec_##name
#define SORT_T qrec
#define SORT_KEY(x) ((x).key)
#include "introsort.h"

/* Rows counted into their groups on two threads: each thread counts its half of the rows per group,
 * then writes them at its own places (the first half's rows of a group before the second half's:
 * the same records as one pass would write).  starts (G + 1) gets the groups' offsets; rec[at] =
 * {desc_key(score), flag or row}.  0, or -1 when out of memory. */
typedef struct {
    const int64_t *codes;
    const double *score;
    const uint8_t *flag; /* NULL: the row number is kept */
    Py_ssize_t i0, i1;
    int64_t G, *cnt; /* this half's count (then its next place) per group */
    qrec *rec;
} scatter_job;

static void *scatter_count(void *arg)
{
    scatter_job *j = arg;
    for (Py_ssize_t i = j->i0; i < j->i1; i++)
        j->cnt[j->codes[i]]++;
    return NULL;
}

static void *scatter_write(void *arg)
{
    scatter_job *j = arg;
    for (Py_ssize_t i = j->i0; i < j->i1; i++) {
        int64_t at = j->cnt[j->codes[i]]++;
        j->rec[at].key = desc_key(j->score[i]);
        j->rec[at].row = j->flag ? (j->flag[i] != 0) : i;
    }
    return NULL;
}

static int scatter_groups(const int64_t *codes, const double *score, const uint8_t *flag, Py_ssize_t n, int64_t G,
                          int64_t *starts, qrec *rec)
{
    int64_t *cnt = calloc((size_t)(G > 0 ? G : 1) * 2, sizeof(int64_t));
    if (!cnt)
        return -1;
    int two = n > 100000;
    Py_ssize_t mid = two ? n / 2 : n;
    scatter_job jobs[2] = {{codes, score, flag, 0, mid, G, cnt, rec}, {codes, score, flag, mid, n, G, cnt + G, rec}};
    pthread_t th;
    int threaded = two && pthread_create(&th, NULL, scatter_count, &jobs[1]) == 0;
    scatter_count(&jobs[0]);
    if (threaded)
        pthread_join(th, NULL);
    else if (two)
        scatter_count(&jobs[1]);
    starts[0] = 0;
    for (int64_t g = 0; g < G; g++) { /* group g: the first half's rows, then the second's */
        int64_t a = cnt[g], b = cnt[G + g];
        cnt[g] = starts[g];
        cnt[G + g] = starts[g] + a;
        starts[g + 1] = starts[g] + a + b;
    }
    threaded = two && pthread_create(&th, NULL, scatter_write, &jobs[1]) == 0;
    scatter_write(&jobs[0]);
    if (threaded)
        pthread_join(th, NULL);
    else if (two)
        scatter_write(&jobs[1]);
    free(cnt);
    return 0;
}

typedef struct {
    qrec *rec;
    const int64_t *starts;
    int64_t g0, g1;
} qsort_job;

static void *qsort_groups(void *arg)
{
    qsort_job *j = arg;
    for (int64_t g = j->g0; g < j->g1; g++) {
        Py_ssize_t a = j->starts[g], n = j->starts[g + 1] - a;
        if (n > 1)
            qrec_sort(j->rec + a, n, 2 * (64 - __builtin_clzll((unsigned long long)n)));
    }
    return NULL;
}

/* query_order(codes, score, G) -> int64 bytearray: the rows sorted by query code (int64, 0..G-1),
 * then by descending score (rows of one query and one score in no particular order).  Why C: numpy
 * sorts all the rows by score (an argsort of 10M distinct floats, about a second) and then stably by
 * query; here the rows are counted into their queries (O(n)) and each query's rows sorted on their
 * own, the queries split over two threads: 10M rows in 100,000 queries in a tenth of the time. */
PyObject *nv_query_order(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *co, *so;
    long long G;
    if (!PyArg_ParseTuple(args, "OOL", &co, &so, &G))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, co, NV_RAW8) < 0 || nv_arg(&in, so, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || G < 0) {
        nv_args_fail(&in, PyExc_ValueError, "codes and scores differ in length, or G < 0");
        return NULL;
    }
    const int64_t *codes = in.v[0].buf;
    const double *score = in.v[1].buf;
    Py_ssize_t n = in.n[0];
    for (Py_ssize_t i = 0; i < n; i++)
        if (codes[i] < 0 || codes[i] >= G) {
            nv_args_fail(&in, PyExc_ValueError, "a query code outside [0, G)");
            return NULL;
        }
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * 8);
    int64_t *starts = calloc((size_t)G + 2, sizeof(int64_t));
    size_t rec_bytes = (size_t)(n > 0 ? n : 1) * sizeof(qrec);
    qrec *rec = nv_big_alloc(rec_bytes); /* huge pages, reused: see buffers.c */
    if (!out || !starts || !rec) {
        Py_XDECREF(out);
        free(starts);
        nv_big_free(rec, rec_bytes);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    int64_t *order = (int64_t *)PyByteArray_AS_STRING(out);
    int ok = 0;
    NOGIL_BEGIN
    if (scatter_groups(codes, score, NULL, n, G, starts, rec) == 0) { /* counted into place: O(n) */
        ok = 1;
        int64_t mid = 0; /* the queries split over two threads at the middle row */
        while (mid < G && starts[mid] < n / 2)
            mid++;
        qsort_job jobs[2] = {{rec, starts, 0, mid}, {rec, starts, mid, G}};
        pthread_t th;
        int threaded = n > 100000 && G > 1 && pthread_create(&th, NULL, qsort_groups, &jobs[1]) == 0;
        qsort_groups(&jobs[0]);
        if (threaded)
            pthread_join(th, NULL);
        else
            qsort_groups(&jobs[1]);
        for (Py_ssize_t i = 0; i < n; i++)
            order[i] = rec[i].row;
    }
    NOGIL_END
    free(starts);
    nv_big_free(rec, rec_bytes);
    nv_args_release(&in);
    if (!ok) {
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    return out;
}

/* ------------------------------------------------------------------------------------------------ */
/* the sums of the measures over one summary, as numpy makes them                                     */
/* ------------------------------------------------------------------------------------------------ */

/* A sum of n terms made on the fly, bit for bit numpy's np.sum of the array of those terms: numpy's
 * pairwise tree (np_pairwise) walked leaf by leaf, each leaf of at most 128 terms filled into a
 * buffer by `fill` in order (leaves come left to right, so a fill may keep running state, such as
 * a cumulative sum).  Terms from `zero_from` on are all 0: a subtree wholly past it sums to 0 and is
 * not filled (numpy adds that 0 to its left sibling; so does this). */
typedef struct hterms hterms;
struct hterms {
    void (*fill)(hterms *h, Py_ssize_t start, Py_ssize_t len, double *out);
    const double *sc, *pos, *neg;
    Py_ssize_t K;       /* cells */
    double par, cum, cum2; /* the measure's parameter, running sums */
    Py_ssize_t zero_from;
};

static double pw_terms(hterms *h, Py_ssize_t start, Py_ssize_t n)
{
    if (start >= h->zero_from)
        return 0.0;
    if (n <= 128) {
        double buf[128];
        h->fill(h, start, n, buf);
        return np_pairwise(buf, n);
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    double left = pw_terms(h, start, n2);
    return left + pw_terms(h, start + n2, n - n2);
}

/* the cells from the highest score down: term i is cell K - 1 - i */
#define DPOS(h, i) ((h)->pos[(h)->K - 1 - (i)])
#define DNEG(h, i) ((h)->neg[(h)->K - 1 - (i)])

/* roc: neg * (tp_above + 0.5 * pos), tp_above = cumsum(pos) - pos (rank.roc) */
static void fill_roc(hterms *h, Py_ssize_t start, Py_ssize_t len, double *out)
{
    for (Py_ssize_t k = 0; k < len; k++) {
        Py_ssize_t i = start + k;
        double p = DPOS(h, i), q = DNEG(h, i);
        h->cum = i == 0 ? p : h->cum + p;
        out[k] = q * ((h->cum - p) + 0.5 * p);
    }
}

static inline double np_clip(double x, double lo, double hi)
{
    x = x > lo ? x : lo; /* numpy's clip: min(max(x, lo), hi), no NaN here */
    return x < hi ? x : hi;
}

/* r50: take * tp_above + 0.5 * slope * take * take (rank.r50), par: the limit */
static void fill_r50(hterms *h, Py_ssize_t start, Py_ssize_t len, double *out)
{
    for (Py_ssize_t k = 0; k < len; k++) {
        Py_ssize_t i = start + k;
        double p = DPOS(h, i), q = DNEG(h, i);
        h->cum = i == 0 ? p : h->cum + p;
        h->cum2 = i == 0 ? q : h->cum2 + q;
        double tp_above = h->cum - p, fp_above = h->cum2 - q;
        double take = np_clip(h->par - fp_above, 0.0, q), slope = q > 0 ? p / q : 0.0;
        out[k] = take * tp_above + 0.5 * slope * take * take;
    }
}

/* the positives among the top par cases: take * frac (rank._top_positives) */
static void fill_top(hterms *h, Py_ssize_t start, Py_ssize_t len, double *out)
{
    for (Py_ssize_t k = 0; k < len; k++) {
        Py_ssize_t i = start + k;
        double p = DPOS(h, i), size = p + DNEG(h, i);
        h->cum = i == 0 ? size : h->cum + size;
        double take = np_clip(h->par - (h->cum - size), 0.0, size), frac = size > 0 ? p / size : 0.0;
        out[k] = take * frac;
    }
}

/* squared errors, ascending: pos * (1 - s) ** 2 + neg * s ** 2 (probability.rms) */
static void fill_sq(hterms *h, Py_ssize_t start, Py_ssize_t len, double *out)
{
    for (Py_ssize_t k = 0; k < len; k++) {
        Py_ssize_t i = start + k;
        double s = h->sc[i], d = 1 - s;
        out[k] = h->pos[i] * (d * d) + h->neg[i] * (s * s);
    }
}

/* cases, ascending from cell par: pos + neg (rank.rkl's pos[low:] + neg[low:]) */
static void fill_cases(hterms *h, Py_ssize_t start, Py_ssize_t len, double *out)
{
    Py_ssize_t o = (Py_ssize_t)h->par;
    for (Py_ssize_t k = 0; k < len; k++)
        out[k] = h->pos[o + start + k] + h->neg[o + start + k];
}

/* score * (pos + neg) over cells par.. (probability.ca1) */
static void fill_mass(hterms *h, Py_ssize_t start, Py_ssize_t len, double *out)
{
    Py_ssize_t o = (Py_ssize_t)h->par;
    for (Py_ssize_t k = 0; k < len; k++)
        out[k] = h->sc[o + start + k] * (h->pos[o + start + k] + h->neg[o + start + k]);
}

/* hist_sum(op, scores, pos, neg, par) -> float: one sum of a measure over a summary (ascending scores),
 * bit for bit what the measure's numpy expression sums:
 *   "roc"   sum(neg * (tp_above + 0.5 * pos)), from the highest score down
 *   "r50"   sum(take * tp_above + 0.5 * slope * take * take), par: the limit of negatives
 *   "top"   sum(take * frac), par: the top cases (PRB, NTOP)
 *   "sq"    sum(pos * (1 - s) ** 2 + neg * s ** 2)
 *   "cases" sum(pos[par:] + neg[par:])
 *   "mass"  sum(scores[par:] * (pos[par:] + neg[par:]))
 *   "seqpos", "seqneg"  pos's (neg's) sum in order from 0.0, as np.bincount adds a bin's weights
 * exact: the weights are whole numbers (r50 and top then stop at the cell where the sum above
 * reaches par).  Why C: each is several numpy passes and temporaries the size of the summary (10M distinct
 * scores: a few 80 MB arrays a measure), here one pass of no temporary (r50 and top: one pass to
 * find where their terms become 0 for good, then the sum of those before). */
PyObject *nv_hist_sum(PyObject *Py_UNUSED(self), PyObject *args)
{
    const char *op;
    PyObject *so, *po, *no;
    double par;
    int exact = 0;
    if (!PyArg_ParseTuple(args, "sOOOd|p", &op, &so, &po, &no, &par, &exact))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "scores, pos and neg differ in length");
        return NULL;
    }
    Py_ssize_t K = in.n[0];
    hterms h = {NULL, in.v[0].buf, in.v[1].buf, in.v[2].buf, K, par, 0.0, 0.0, K};
    Py_ssize_t n = K;
    if (!strcmp(op, "roc"))
        h.fill = fill_roc;
    else if (!strcmp(op, "r50") || !strcmp(op, "top")) {
        h.fill = op[0] == 'r' ? fill_r50 : fill_top;
        /* where the terms become 0 for good: past the last term that is not 0, found by making
           every term as the sum will (a cheap pass: no sum, no store) */
        double t[128];
        Py_ssize_t last = 0;
        NOGIL_BEGIN
        for (Py_ssize_t a = 0; a < K; a += 128) {
            Py_ssize_t m = K - a < 128 ? K - a : 128;
            h.fill(&h, a, m, t);
            for (Py_ssize_t k = 0; k < m; k++)
                if (t[k] != 0.0)
                    last = a + k + 1;
            /* whole numbers (exact < 0: the caller's promise): the sums above only grow, exactly,
               so once they reach par every term below is 0 */
            if (exact && (op[0] == 'r' ? h.cum2 : h.cum) >= par)
                break;
        }
        NOGIL_END
        h.zero_from = last;
        h.cum = h.cum2 = 0.0;
    } else if (!strcmp(op, "seqpos") || !strcmp(op, "seqneg")) { /* np.bincount's sum of a run */
        const double *w = op[3] == 'p' ? h.pos : h.neg;
        double t = 0.0;
        NOGIL_BEGIN
        for (Py_ssize_t i = 0; i < K; i++)
            t += w[i];
        NOGIL_END
        nv_args_release(&in);
        return PyFloat_FromDouble(t);
    } else if (!strcmp(op, "sq"))
        h.fill = fill_sq;
    else if (!strcmp(op, "cases") || !strcmp(op, "mass")) {
        if (!(par >= 0 && par <= (double)K)) {
            nv_args_fail(&in, PyExc_ValueError, "hist_sum: the first cell is outside the summary");
            return NULL;
        }
        h.fill = op[0] == 'c' ? fill_cases : fill_mass;
        n = K - (Py_ssize_t)par;
        h.zero_from = n;
    } else {
        nv_args_fail(&in, PyExc_ValueError, "hist_sum: unknown sum");
        return NULL;
    }
    double total;
    NOGIL_BEGIN
    total = pw_terms(&h, 0, n);
    NOGIL_END
    nv_args_release(&in);
    return PyFloat_FromDouble(total);
}

/* hist_merge(pos_scores, neg_scores) -> (scores, pos, neg) float64 bytearrays: the summary of unit
 * cases from the positives' and the negatives' scores, each sorted ascending: the distinct scores
 * (a run of equal scores across both, -0.0 and 0.0 one run kept as +0.0, as runs() keeps it) with
 * how many positives and negatives hold each.  Why C: the same summary from one sort of all the
 * scores and one of the positives' needs a search of every positive's score among the distinct
 * ones; two sorts of the halves cost one sort of the whole, and this merge is one pass. */
PyObject *nv_hist_merge(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ao, *bo;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OO", &ao, &bo) || nv_arg(&in, ao, NV_RAW8) < 0 || nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    const double *a = in.v[0].buf, *b = in.v[1].buf;
    Py_ssize_t na = in.n[0], nb = in.n[1], cap = na + nb;
    /* one pass into arrays for every case, cut to the cells after (the pages past them are never
       touched); in huge-page buffers (buffers.c: a fresh 4 KB page costs a fault each, a third of
       the time of this pass on 10M distinct scores) */
    PyObject *so = nv_buf_result(cap * 8), *po = so ? nv_buf_result(cap * 8) : NULL,
             *no = po ? nv_buf_result(cap * 8) : NULL;
    if (!so || !po || !no) {
        Py_XDECREF(so);
        Py_XDECREF(po);
        Py_XDECREF(no);
        nv_args_release(&in);
        return NULL;
    }
    double *sc = (double *)((nv_BufObject *)so)->data, *ps = (double *)((nv_BufObject *)po)->data,
           *ns = (double *)((nv_BufObject *)no)->data;
    Py_ssize_t c = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0, j = 0; i < na || j < nb; c++) {
        double v = j >= nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];
        Py_ssize_t i0 = i, j0 = j;
        while (i < na && a[i] == v)
            i++;
        while (j < nb && b[j] == v)
            j++;
        sc[c] = v + 0.0;
        ps[c] = (double)(i - i0);
        ns[c] = (double)(j - j0);
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    ((nv_BufObject *)so)->len = ((nv_BufObject *)po)->len = ((nv_BufObject *)no)->len = c * 8;
    return Py_BuildValue("(NNN)", so, po, no);
}

/* split_sum(op, pos_scores, neg_scores) -> float: a measure's sum over the summary of unit cases
 * given as the positives' and the negatives' scores, each sorted ascending, without making the
 * summary: its cells are met walking both arrays down from the highest score (a run of equal scores
 * across both is a cell).
 *   "roc"  the ROC area's sum, sum of neg * (P above + pos / 2) over the cells: whole and half
 *          numbers under 2^52 (the caller checks P * N), exact in any order, so equal to the bit
 *          to rank.roc's pairwise sum over the summary;
 *   "apr"  nv_apr_total over the summary, the same operations in the same order.
 * Why: the summary of 10M distinct scores is three arrays of 80 MB, which ROC and APR alone do not
 * need; two sorted halves and a walk are most of the time of a sort. */
PyObject *nv_split_sum(PyObject *Py_UNUSED(self), PyObject *args)
{
    const char *op;
    PyObject *ao, *bo;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "sOO", &op, &ao, &bo) || nv_arg(&in, ao, NV_RAW8) < 0 || nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    int roc = !strcmp(op, "roc");
    if (!roc && strcmp(op, "apr")) {
        nv_args_fail(&in, PyExc_ValueError, "split_sum: unknown sum");
        return NULL;
    }
    const double *x = in.v[0].buf, *y = in.v[1].buf;
    Py_ssize_t i = in.n[0] - 1, j = in.n[1] - 1;
    double total = 0, a = 0, b = 0;
    Py_BEGIN_ALLOW_THREADS
    while (i >= 0 || j >= 0) { /* down from the highest score */
        double v = j < 0 || (i >= 0 && x[i] >= y[j]) ? x[i] : y[j];
        Py_ssize_t i0 = i, j0 = j;
        while (i >= 0 && x[i] == v)
            i--;
        while (j >= 0 && y[j] == v)
            j--;
        double m = (double)(i0 - i), q = (double)(j0 - j);
        if (roc)
            total += q * (b + 0.5 * m);
        else if (m > 0)
            total += apr_term(m, m + q, a, b);
        a += m + q;
        b += m;
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    return PyFloat_FromDouble(total);
}

/* group_codes_int64(ids) -> (keys, codes) int64 bytearrays: the distinct ids in ascending order, and
 * each row's position among them.  Why C: np.unique(return_inverse=True) sorts every row (a second
 * or more for 10M rows); here each row's id is found in a hash table of the distinct ids (one pass),
 * and only the distinct ids are sorted. */
typedef struct {
    int64_t id, code; /* code -1: empty */
} idslot;

typedef struct {
    int64_t *codes;
    const int64_t *rank;
    Py_ssize_t i0, i1;
} remap_job;

static void *remap_codes(void *arg)
{
    remap_job *j = arg;
    for (Py_ssize_t i = j->i0; i < j->i1; i++)
        j->codes[i] = j->rank[j->codes[i]];
    return NULL;
}

PyObject *nv_group_codes_int64(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *io;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "O", &io) || nv_arg(&in, io, NV_RAW8) < 0)
        return NULL;
    const int64_t *ids = in.v[0].buf;
    Py_ssize_t n = in.n[0];
    PyObject *codes_o = nv_buf_result(n * 8); /* huge pages (buffers.c) */
    if (!codes_o) {
        nv_args_release(&in);
        return NULL;
    }
    int64_t *codes = (int64_t *)((nv_BufObject *)codes_o)->data;
    size_t cap = 1024; /* a power of two, at least twice the distinct ids */
    idslot *slot = NULL;
    int64_t *first = NULL;
    qrec *rec = NULL;
    int64_t G = 0;
    int ok = 1;
    Py_BEGIN_ALLOW_THREADS
    slot = malloc(cap * sizeof(idslot));
    first = malloc(cap / 2 * 8); /* the id of each code, in order of first appearance */
    if (!slot || !first)
        ok = 0;
    else
        memset(slot, 0xff, cap * sizeof(idslot));
    int64_t prev_id = 0, prev_code = -1; /* rows of one group often come together: no lookup */
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        if (ids[i] == prev_id && prev_code >= 0) {
            codes[i] = prev_code;
            continue;
        }
        uint64_t hsh = (uint64_t)ids[i] * 0x9E3779B97F4A7C15ULL;
        size_t at = (size_t)(hsh >> 20) & (cap - 1);
        while (slot[at].code >= 0 && slot[at].id != ids[i])
            at = (at + 1) & (cap - 1);
        if (slot[at].code < 0) { /* a new id */
            if ((size_t)(G + 1) * 2 > cap) { /* grow, then find its place again */
                size_t nc = cap * 2;
                idslot *ns = malloc(nc * sizeof(idslot));
                int64_t *nf = realloc(first, nc / 2 * 8);
                if (!ns || !nf) {
                    free(ns);
                    if (nf)
                        first = nf;
                    ok = 0;
                    break;
                }
                first = nf;
                memset(ns, 0xff, nc * sizeof(idslot));
                for (size_t s = 0; s < cap; s++)
                    if (slot[s].code >= 0) {
                        size_t t = (size_t)(((uint64_t)slot[s].id * 0x9E3779B97F4A7C15ULL) >> 20) & (nc - 1);
                        while (ns[t].code >= 0)
                            t = (t + 1) & (nc - 1);
                        ns[t] = slot[s];
                    }
                free(slot);
                slot = ns;
                cap = nc;
                at = (size_t)(hsh >> 20) & (cap - 1);
                while (slot[at].code >= 0)
                    at = (at + 1) & (cap - 1);
            }
            slot[at].id = ids[i];
            slot[at].code = G;
            first[G] = ids[i];
            G++;
        }
        codes[i] = prev_code = slot[at].code;
        prev_id = ids[i];
    }
    free(slot);
    if (ok) { /* the distinct ids sorted: each code's rank */
        rec = malloc((size_t)(G > 0 ? G : 1) * sizeof(qrec));
        ok = rec != NULL;
    }
    if (ok) {
        for (int64_t g = 0; g < G; g++) {
            rec[g].key = (uint64_t)first[g] ^ 0x8000000000000000ULL; /* int64 order as unsigned */
            rec[g].row = g;
        }
        qrec_sort(rec, G, 2 * (64 - __builtin_clzll((unsigned long long)(G + 1))));
        int64_t *rank = malloc((size_t)(G > 0 ? G : 1) * 8);
        ok = rank != NULL;
        if (ok) {
            for (int64_t k = 0; k < G; k++) {
                first[k] = (int64_t)(rec[k].key ^ 0x8000000000000000ULL);
                rank[rec[k].row] = k;
            }
            remap_job jobs[2] = {{codes, rank, 0, n / 2}, {codes, rank, n / 2, n}};
            pthread_t th;
            int threaded = n > 100000 && pthread_create(&th, NULL, remap_codes, &jobs[1]) == 0;
            remap_codes(&jobs[0]);
            if (threaded)
                pthread_join(th, NULL);
            else
                remap_codes(&jobs[1]);
        }
        free(rank);
    }
    free(rec);
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    if (!ok) {
        free(first);
        Py_DECREF(codes_o);
        return PyErr_NoMemory();
    }
    PyObject *keys_o = PyByteArray_FromStringAndSize((const char *)first, G * 8);
    free(first);
    if (!keys_o) {
        Py_DECREF(codes_o);
        return NULL;
    }
    return Py_BuildValue("(NN)", keys_o, codes_o);
}

typedef struct {
    qrec *rec;
    const int64_t *starts;
    const double *P, *N;
    double *wins;
    int64_t g0, g1;
} gauc_job;

/* each group's rows sorted by descending score, then its ties walked: wins = the sum over ties of
 * positives * (negatives below + negatives in the tie / 2) */
static void *gauc_groups(void *arg)
{
    gauc_job *j = arg;
    for (int64_t g = j->g0; g < j->g1; g++) {
        Py_ssize_t a = j->starts[g], n = j->starts[g + 1] - a;
        qrec *r = j->rec + a;
        if (n > 1)
            qrec_sort(r, n, 2 * (64 - __builtin_clzll((unsigned long long)n)));
        double wins = 0, neg_above = 0, N = j->N[g];
        for (Py_ssize_t t = 0; t < n;) {
            Py_ssize_t e = t;
            double m = 0, q = 0;
            while (e < n && r[e].key == r[t].key) {
                m += (double)r[e].row;
                q += (double)(1 - r[e].row);
                e++;
            }
            wins += m * ((N - neg_above - q) + 0.5 * q);
            neg_above += q;
            t = e;
        }
        j->wins[g] = wins;
    }
    return NULL;
}

/* The arguments (codes, score, positive, G) of group_auc_rows and group_hist_rows: rows of codes
 * int64 in [0, G), scores float64 and classes uint8 of one length; 0, or -1 with the error set. */
static int group_rows_args(PyObject *args, nv_args *in, long long *G)
{
    PyObject *co, *so, *po;
    if (!PyArg_ParseTuple(args, "OOOL", &co, &so, &po, G))
        return -1;
    if (nv_arg(in, co, NV_RAW8) < 0 || nv_arg(in, so, NV_RAW8) < 0 || nv_arg(in, po, NV_RAW1) < 0)
        return -1;
    if (!nv_len_eq(in, 0, 1) || !nv_len_eq(in, 0, 2) || *G < 0) {
        nv_args_fail(in, PyExc_ValueError, "codes, scores and classes differ in length, or G < 0");
        return -1;
    }
    const int64_t *codes = in->v[0].buf;
    for (Py_ssize_t i = 0; i < in->n[0]; i++)
        if (codes[i] < 0 || codes[i] >= *G) {
            nv_args_fail(in, PyExc_ValueError, "a group code outside [0, G)");
            return -1;
        }
    return 0;
}

/* group_auc_rows(codes, score, positive, G) -> (wins, P, N) float64 bytearrays of G: each group's
 * Mann-Whitney sum (a tied positive/negative pair one half), its positives and its negatives, from
 * rows in any order (codes int64 0..G-1, positive uint8).  Every term is a whole or half number,
 * so the sums are exact in any order: the same bits as the tie table's (query.group_auc).  Why C:
 * from the rows, counted into their groups and each group sorted on its own (two threads), without
 * the order of all the rows or the tie table (10M rows in 100,000 groups: five seconds to a few
 * tenths). */
PyObject *nv_group_auc_rows(PyObject *Py_UNUSED(self), PyObject *args)
{
    long long G;
    nv_args in = {0};
    if (group_rows_args(args, &in, &G) < 0)
        return NULL;
    const int64_t *codes = in.v[0].buf;
    const double *score = in.v[1].buf;
    const uint8_t *pos = in.v[2].buf;
    Py_ssize_t n = in.n[0];
    PyObject *wo = PyByteArray_FromStringAndSize(NULL, G * 8), *Po = PyByteArray_FromStringAndSize(NULL, G * 8),
             *No = PyByteArray_FromStringAndSize(NULL, G * 8);
    int64_t *starts = calloc((size_t)G + 2, sizeof(int64_t)), *cur = malloc((size_t)(G > 0 ? G : 1) * 8);
    size_t rec_bytes = (size_t)(n > 0 ? n : 1) * sizeof(qrec);
    qrec *rec = nv_big_alloc(rec_bytes); /* huge pages, reused: see buffers.c */
    if (!wo || !Po || !No || !starts || !cur || !rec) {
        Py_XDECREF(wo);
        Py_XDECREF(Po);
        Py_XDECREF(No);
        free(starts);
        free(cur);
        nv_big_free(rec, rec_bytes);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    double *wins = (double *)PyByteArray_AS_STRING(wo), *P = (double *)PyByteArray_AS_STRING(Po),
           *N = (double *)PyByteArray_AS_STRING(No);
    NOGIL_BEGIN
    for (int64_t g = 0; g < G; g++)
        P[g] = N[g] = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) { /* branch-free: the class is a coin toss */
        double f = pos[i] != 0;
        P[codes[i]] += f;
        N[codes[i]] += 1.0 - f;
    }
    int scattered = scatter_groups(codes, score, pos, n, G, starts, rec) == 0;
    int64_t mid = 0;
    while (mid < G && starts[mid] < n / 2)
        mid++;
    gauc_job jobs[2] = {{rec, starts, P, N, wins, 0, mid}, {rec, starts, P, N, wins, mid, G}};
    if (scattered) {
        pthread_t th;
        int threaded = n > 100000 && G > 1 && pthread_create(&th, NULL, gauc_groups, &jobs[1]) == 0;
        gauc_groups(&jobs[0]);
        if (threaded)
            pthread_join(th, NULL);
        else
            gauc_groups(&jobs[1]);
    }
    NOGIL_END
    free(starts);
    free(cur);
    nv_big_free(rec, rec_bytes);
    nv_args_release(&in);
    if (!scattered) {
        Py_DECREF(wo);
        Py_DECREF(Po);
        Py_DECREF(No);
        return PyErr_NoMemory();
    }
    return Py_BuildValue("(NNN)", wo, Po, No);
}

typedef struct {
    qrec *rec;
    const int64_t *starts;
    int64_t g0, g1;
    int64_t *ties; /* per group: its ties (then: the first tie's number) */
} tcount_job;

static void *tie_count_groups(void *arg)
{
    tcount_job *j = arg;
    for (int64_t g = j->g0; g < j->g1; g++) {
        Py_ssize_t a = j->starts[g], n = j->starts[g + 1] - a;
        qrec *r = j->rec + a;
        if (n > 1)
            qrec_sort(r, n, 2 * (64 - __builtin_clzll((unsigned long long)n)));
        int64_t t = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            t += i == 0 || r[i].key != r[i - 1].key;
        j->ties[g] = t;
    }
    return NULL;
}

typedef struct {
    const qrec *rec;
    const int64_t *starts, *tie0;
    int64_t g0, g1;
    int64_t *o_query;
    double *o_first, *o_size, *o_nrel, *o_gain, *o_lin;
    int failed; /* out of memory for a tie's buffer */
} twalk_job;

static inline double rec_rel(const qrec *r)
{
    double v;
    memcpy(&v, &r->row, 8);
    return v;
}

/* tie_table's walk over each group's sorted records: the same sums in the same order */
static void *tie_walk_groups(void *arg)
{
    twalk_job *j = arg;
    double buf_g[128], buf_l[128], *gbuf = buf_g, *lbuf = buf_l;
    Py_ssize_t cap = 128;
    for (int64_t g = j->g0; g < j->g1; g++) {
        Py_ssize_t qa = j->starts[g], qb = j->starts[g + 1];
        int64_t t = j->tie0[g];
        for (Py_ssize_t a = qa, b; a < qb; a = b, t++) {
            b = a + 1;
            while (b < qb && j->rec[b].key == j->rec[a].key)
                b++;
            Py_ssize_t m = b - a;
            j->o_query[t] = g;
            j->o_first[t] = (double)(a - qa);
            j->o_size[t] = (double)m;
            double nrel = 0;
            for (Py_ssize_t i = a; i < b; i++)
                nrel += rec_rel(&j->rec[i]) > 0;
            j->o_nrel[t] = nrel;
            double r0 = rec_rel(&j->rec[a]);
            if (m - 1 < 8) { /* np_pairwise's sequential case, as tie_table */
                double gs = 0., ls = 0.;
                for (Py_ssize_t i = a + 1; i < b; i++) {
                    double r = rec_rel(&j->rec[i]);
                    gs += gain_table[(int)r];
                    ls += r;
                }
                j->o_gain[t] = gain_table[(int)r0] + gs;
                j->o_lin[t] = r0 + ls;
                continue;
            }
            if (m > cap) {
                double *ng = malloc((size_t)m * 8), *nl = malloc((size_t)m * 8);
                if (!ng || !nl) {
                    free(ng);
                    free(nl);
                    j->failed = 1;
                    break;
                }
                if (gbuf != buf_g) {
                    free(gbuf);
                    free(lbuf);
                }
                gbuf = ng;
                lbuf = nl;
                cap = m;
            }
            for (Py_ssize_t i = a; i < b; i++) {
                double r = rec_rel(&j->rec[i]);
                gbuf[i - a] = gain_table[(int)r];
                lbuf[i - a] = r;
            }
            j->o_gain[t] = gbuf[0] + np_pairwise(gbuf + 1, m - 1);
            j->o_lin[t] = lbuf[0] + np_pairwise(lbuf + 1, m - 1);
        }
    }
    if (gbuf != buf_g) {
        free(gbuf);
        free(lbuf);
    }
    return NULL;
}

/* tie_table_rows(codes, score, rel, G) -> (query, first, size, nrel, gain, lin), or None when a
 * relevance is not a whole number 0..63: tie_table of the rows in query_order's order, without that
 * order: the rows (with their relevance) counted into their queries and each query sorted as
 * query_order sorts it (the same permutation, so the same ties and the same sums bit for bit), on
 * two threads.  Why: tie_table read every row through the order (three random reads a row); here
 * each query's rows are read where they lie. */
PyObject *nv_tie_table_rows(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *co, *so, *ro;
    long long G;
    if (!PyArg_ParseTuple(args, "OOOL", &co, &so, &ro, &G))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, co, NV_RAW8) < 0 || nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, ro, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2) || G < 0) {
        nv_args_fail(&in, PyExc_ValueError, "codes, scores and relevance differ in length, or G < 0");
        return NULL;
    }
    const int64_t *codes = in.v[0].buf;
    const double *score = in.v[1].buf, *rel = in.v[2].buf;
    Py_ssize_t n = in.n[0];
    for (Py_ssize_t i = 0; i < n; i++) {
        if (codes[i] < 0 || codes[i] >= G) {
            nv_args_fail(&in, PyExc_ValueError, "a query code outside [0, G)");
            return NULL;
        }
        if (!whole_grade(rel[i])) {
            nv_args_release(&in);
            Py_RETURN_NONE;
        }
    }
    gain_table_init();
    int64_t *starts = calloc((size_t)G + 2, sizeof(int64_t)), *tie0 = calloc((size_t)G + 1, sizeof(int64_t));
    size_t rec_bytes = (size_t)(n > 0 ? n : 1) * sizeof(qrec);
    qrec *rec = nv_big_alloc(rec_bytes); /* huge pages, reused: see buffers.c */
    int ok = starts && tie0 && rec;
    int64_t T = 0, mid = 0;
    if (ok) {
        NOGIL_BEGIN
        /* the records carry the row number first (query_order's scatter), then its relevance */
        ok = scatter_groups(codes, score, NULL, n, G, starts, rec) == 0;
        if (ok) {
            for (Py_ssize_t i = 0; i < n; i++) {
                double r = rel[rec[i].row];
                memcpy(&rec[i].row, &r, 8);
            }
            while (mid < G && starts[mid] < n / 2)
                mid++;
            tcount_job cj[2] = {{rec, starts, 0, mid, tie0}, {rec, starts, mid, G, tie0}};
            pthread_t th;
            int threaded = n > 100000 && G > 1 && pthread_create(&th, NULL, tie_count_groups, &cj[1]) == 0;
            tie_count_groups(&cj[0]);
            if (threaded)
                pthread_join(th, NULL);
            else
                tie_count_groups(&cj[1]);
            for (int64_t g = 0; g < G; g++) { /* each group's first tie */
                int64_t c = tie0[g];
                tie0[g] = T;
                T += c;
            }
        }
        NOGIL_END
    }
    enum { QUERY, FIRST, SIZE, NREL, GAIN, LIN, NOUT };
    PyObject *out[NOUT] = {0};
    for (int k = 0; ok && k < NOUT; k++)
        ok = (out[k] = PyByteArray_FromStringAndSize(NULL, T * 8)) != NULL;
    if (ok) {
        twalk_job wj[2];
        for (int h = 0; h < 2; h++)
            wj[h] = (twalk_job){rec,
                                starts,
                                tie0,
                                h ? mid : 0,
                                h ? G : mid,
                                (int64_t *)PyByteArray_AS_STRING(out[QUERY]),
                                (double *)PyByteArray_AS_STRING(out[FIRST]),
                                (double *)PyByteArray_AS_STRING(out[SIZE]),
                                (double *)PyByteArray_AS_STRING(out[NREL]),
                                (double *)PyByteArray_AS_STRING(out[GAIN]),
                                (double *)PyByteArray_AS_STRING(out[LIN]),
                                0};
        NOGIL_BEGIN
        pthread_t th;
        int threaded = n > 100000 && G > 1 && pthread_create(&th, NULL, tie_walk_groups, &wj[1]) == 0;
        tie_walk_groups(&wj[0]);
        if (threaded)
            pthread_join(th, NULL);
        else
            tie_walk_groups(&wj[1]);
        NOGIL_END
        ok = !wj[0].failed && !wj[1].failed;
    }
    free(starts);
    free(tie0);
    nv_big_free(rec, rec_bytes);
    nv_args_release(&in);
    if (!ok) {
        for (int k = 0; k < NOUT; k++)
            Py_XDECREF(out[k]);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    return Py_BuildValue("(NNNNNN)", out[0], out[1], out[2], out[3], out[4], out[5]);
}

/* the score a desc_key was made from (-0.0 read as 0.0) */
static inline double desc_score(uint64_t key)
{
    uint64_t u = ~key, b = (u >> 63) ? (u & 0x7FFFFFFFFFFFFFFFULL) : ~u;
    double x;
    memcpy(&x, &b, 8);
    return x;
}

/* a score as a key whose unsigned order is its ascending order (-0.0 made 0.0), and back */
static inline uint64_t asc_key(double x)
{
    uint64_t b;
    x += 0.0;
    memcpy(&b, &x, 8);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ULL);
}

static inline double asc_score(uint64_t k)
{
    uint64_t b = (k >> 63) ? (k & 0x7FFFFFFFFFFFFFFFULL) : ~k;
    double x;
    memcpy(&x, &b, 8);
    return x;
}

/* u64_sort(a, n, depth): keys (introsort.h) */
#define SORT(name) u64_##name
#define SORT_T uint64_t
#define SORT_KEY(x) (x)
#include "introsort.h"

/* keys sorted, unless they are in order already (the rows came sorted by score: slices hand every
 * slicing the rows of one sort, perfeval/api/slices.py; a run out of order is found at its first
 * inversion, a few keys into random rows) */
static inline void u64_sort_run(uint64_t *a, Py_ssize_t n)
{
    Py_ssize_t i = 1;
    while (i < n && a[i - 1] <= a[i])
        i++;
    if (i < n)
        u64_sort(a, n, 2 * (64 - __builtin_clzll((unsigned long long)n)));
}

/* Rows counted into their groups by class on two threads, as scatter_groups, but only the scores'
 * keys (asc_key, 8 bytes a row): group g's positives at key[starts[g] .. starts[g] + npos[g]), its
 * negatives after them.  The counters (then next places) are int32 when the rows are fewer than
 * 2**31: each thread's table of 2 G counters is then half the size (100,000 groups: 0.8 MB, in a
 * core's L2 cache, where 1.6 MB of int64 were not), and the rows' increments hit it.  0, or -1 when
 * out of memory. */
typedef struct {
    const int64_t *codes;
    const double *score;
    const uint8_t *flag;
    Py_ssize_t i0, i1;
    int64_t G, *cnt; /* this half's positives (G), then negatives (G), per group; then next places */
    int32_t *c32;    /* the same, int32 (cnt NULL) */
    uint64_t *key;
} split_job;

static void *split_count(void *arg)
{
    split_job *j = arg;
    if (j->c32)
        for (Py_ssize_t i = j->i0; i < j->i1; i++)
            j->c32[j->codes[i] + (j->flag[i] ? 0 : j->G)]++;
    else
        for (Py_ssize_t i = j->i0; i < j->i1; i++)
            j->cnt[j->codes[i] + (j->flag[i] ? 0 : j->G)]++;
    return NULL;
}

static void *split_write(void *arg)
{
    split_job *j = arg;
    if (j->c32)
        for (Py_ssize_t i = j->i0; i < j->i1; i++)
            j->key[j->c32[j->codes[i] + (j->flag[i] ? 0 : j->G)]++] = asc_key(j->score[i]);
    else
        for (Py_ssize_t i = j->i0; i < j->i1; i++)
            j->key[j->cnt[j->codes[i] + (j->flag[i] ? 0 : j->G)]++] = asc_key(j->score[i]);
    return NULL;
}

static int scatter_split(const int64_t *codes, const double *score, const uint8_t *flag, Py_ssize_t n, int64_t G,
                         int64_t *starts, int64_t *npos, uint64_t *key)
{
    const int narrow = n < INT32_MAX;
    void *table = calloc((size_t)(G > 0 ? G : 1) * 4, narrow ? sizeof(int32_t) : sizeof(int64_t));
    if (!table)
        return -1;
    int64_t *cnt = narrow ? NULL : table;
    int32_t *c32 = narrow ? table : NULL;
    int two = n > 100000;
    Py_ssize_t mid = two ? n / 2 : n;
    split_job jobs[2] = {{codes, score, flag, 0, mid, G, cnt, c32, key},
                         {codes, score, flag, mid, n, G, cnt ? cnt + 2 * G : NULL, c32 ? c32 + 2 * G : NULL, key}};
    pthread_t th;
    int threaded = two && pthread_create(&th, NULL, split_count, &jobs[1]) == 0;
    split_count(&jobs[0]);
    if (threaded)
        pthread_join(th, NULL);
    else if (two)
        split_count(&jobs[1]);
    starts[0] = 0;
    for (int64_t g = 0; g < G; g++) { /* group g: positives (first half's, second's), negatives */
        int64_t p0, p1, n0, n1, at = starts[g];
        if (narrow) {
            int32_t *c0 = c32, *c1 = c32 + 2 * G;
            p0 = c0[g], p1 = c1[g], n0 = c0[G + g], n1 = c1[G + g];
            c0[g] = (int32_t)at;
            c1[g] = (int32_t)(at + p0);
            c0[G + g] = (int32_t)(at + p0 + p1);
            c1[G + g] = (int32_t)(at + p0 + p1 + n0);
        } else {
            int64_t *c0 = cnt, *c1 = cnt + 2 * G;
            p0 = c0[g], p1 = c1[g], n0 = c0[G + g], n1 = c1[G + g];
            c0[g] = at;
            c1[g] = at + p0;
            c0[G + g] = at + p0 + p1;
            c1[G + g] = at + p0 + p1 + n0;
        }
        npos[g] = p0 + p1;
        starts[g + 1] = at + p0 + p1 + n0 + n1;
    }
    threaded = two && pthread_create(&th, NULL, split_write, &jobs[1]) == 0;
    split_write(&jobs[0]);
    if (threaded)
        pthread_join(th, NULL);
    else if (two)
        split_write(&jobs[1]);
    free(table);
    return 0;
}

#define K_BITS 11
#define K_DIG (1 << K_BITS)
#define K_PASSES 6 /* 6 * 11 >= 64 */
#define K_RADIX_MIN 1024 /* fewer keys: introsort */

/* keys sorted (LSD radix, K_BITS a pass, a pass whose digit is the same in every key skipped; `b`
 * scratch of n keys, `cnt` K_PASSES * K_DIG counters): the same array as u64_sort makes of them
 * (keys are integers: one ascending order), in a; unless in order already (u64_sort_run's rule) */
static void u64_radix_run(uint64_t *a, uint64_t *b, Py_ssize_t n, int64_t (*cnt)[K_DIG])
{
    Py_ssize_t i = 1;
    while (i < n && a[i - 1] <= a[i])
        i++;
    if (i >= n)
        return;
    memset(cnt, 0, sizeof(int64_t) * K_PASSES * K_DIG);
    for (i = 0; i < n; i++) {
        uint64_t k = a[i];
        for (int p = 0; p < K_PASSES; p++)
            cnt[p][(k >> (p * K_BITS)) & (K_DIG - 1)]++;
    }
    uint64_t *src = a, *dst = b;
    for (int p = 0; p < K_PASSES; p++) {
        int64_t *c = cnt[p];
        if (c[(src[0] >> (p * K_BITS)) & (K_DIG - 1)] == n)
            continue; /* one digit: the order stays */
        int64_t at = 0;
        for (int d = 0; d < K_DIG; d++) {
            int64_t m = c[d];
            c[d] = at;
            at += m;
        }
        for (i = 0; i < n; i++)
            dst[c[(src[i] >> (p * K_BITS)) & (K_DIG - 1)]++] = src[i];
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * 8);
}

typedef struct {
    uint64_t *key;
    const int64_t *starts, *npos;
    int64_t g0, g1;
    int64_t *cells;              /* per group: its distinct scores */
    double *sc, *pos, *neg;      /* group g's entries written from its first row's place */
} hsort_job;

/* each group's positives and negatives sorted apart, then merged while they are in cache: one
 * entry per distinct score, ascending, with its positives and negatives (whole counts: exact in
 * any order), written from the group's first row's place (a group has no more distinct scores
 * than rows) */
static void *hist_sort_groups(void *arg)
{
    hsort_job *j = arg;
    /* a class of K_RADIX_MIN keys or more sorted by radix (scratch for the largest; introsort when
     * it cannot be had): the same sorted keys either way */
    Py_ssize_t most = 0;
    for (int64_t g = j->g0; g < j->g1; g++) {
        Py_ssize_t na = j->npos[g], nb = j->starts[g + 1] - j->starts[g] - na;
        most = na > most ? na : most;
        most = nb > most ? nb : most;
    }
    uint64_t *scratch = most >= K_RADIX_MIN ? malloc((size_t)most * 8) : NULL;
    int64_t(*cnt)[K_DIG] = scratch ? malloc(sizeof(int64_t) * K_PASSES * K_DIG) : NULL;
    for (int64_t g = j->g0; g < j->g1; g++) {
        Py_ssize_t qa = j->starts[g], e = qa;
        uint64_t *a = j->key + qa, *b = a + j->npos[g];
        Py_ssize_t na = j->npos[g], nb = j->starts[g + 1] - qa - na;
        if (cnt && na >= K_RADIX_MIN)
            u64_radix_run(a, scratch, na, cnt);
        else
            u64_sort_run(a, na);
        if (cnt && nb >= K_RADIX_MIN)
            u64_radix_run(b, scratch, nb, cnt);
        else
            u64_sort_run(b, nb);
        for (Py_ssize_t i = 0, k = 0; i < na || k < nb; e++) {
            uint64_t v = k >= nb || (i < na && a[i] <= b[k]) ? a[i] : b[k];
            Py_ssize_t i0 = i, k0 = k;
            while (i < na && a[i] == v)
                i++;
            while (k < nb && b[k] == v)
                k++;
            j->sc[e] = asc_score(v);
            j->pos[e] = (double)(i - i0);
            j->neg[e] = (double)(k - k0);
        }
        j->cells[g] = e - qa;
    }
    free(cnt);
    free(scratch);
    return NULL;
}

/* rows in ascending score order (the slices' shared order, perfeval/api/slices.py): each group's
 * summary written as its rows come, a row of the same score as its group's last cell counted there,
 * another opening the group's next cell (from the group's first row's place, `starts` its rows'
 * offsets): one pass, no key written, no sort, no merge; two threads, each the groups g0..g1-1 of
 * every row.  The same entries as hist_sort_groups (the scores asc_key's, -0.0 as 0.0; the counts
 * whole numbers).  ok 0 at the first row below its group's last score (then the caller sorts,
 * nothing kept from here). */
typedef struct {
    const int64_t *codes;
    const double *score;
    const uint8_t *flag;
    Py_ssize_t n;
    int64_t g0, g1;
    const int64_t *starts;
    int64_t *cells; /* the next entry of each group, then its entries */
    uint64_t *last;
    double *sc, *pos, *neg;
    int ok;
} walk_job;

/* 0 when the first ORDER_PROBE rows already hold a row below its group's last score (asc_key's
 * order: -0.0 as 0.0), else 1 (`last`: G keys of scratch).  Asked before hist_in_order's walk, which
 * first counts every group's rows and places their entries: rows in no order are told so before
 * that count (1M random rows in 100,000 groups: found a few hundred rows in; the count was 2 ms of
 * wasted start on half of all random inputs), while rows in order pay only the probe (the walk
 * still checks every row).  Key 0 is below every score's key (asc_key sets the top bit of every
 * non-negative score's; -inf's is 0x000F...), so a group's first row is in order. */
#define ORDER_PROBE (1 << 16)
static int rows_in_group_order(const int64_t *codes, const double *score, Py_ssize_t n, int64_t G, uint64_t *last)
{
    memset(last, 0, (size_t)G * sizeof(uint64_t));
    Py_ssize_t m = n < ORDER_PROBE ? n : ORDER_PROBE;
    for (Py_ssize_t i = 0; i < m; i++) {
        uint64_t k = asc_key(score[i]);
        if (k < last[codes[i]])
            return 0;
        last[codes[i]] = k;
    }
    return 1;
}

static void *hist_in_order(void *arg)
{
    walk_job *j = arg;
    const int64_t *codes = j->codes, *starts = j->starts;
    int64_t *cur = j->cells, g0 = j->g0, g1 = j->g1;
    uint64_t *last = j->last;
    double *sc = j->sc, *pos = j->pos, *neg = j->neg;
    for (int64_t g = g0; g < g1; g++)
        cur[g] = starts[g];
    j->ok = 0;
    for (Py_ssize_t i = 0; i < j->n; i++) {
        int64_t g = codes[i];
        if (g < g0 || g >= g1)
            continue;
        uint64_t k = asc_key(j->score[i]);
        int64_t e = cur[g];
        double f = j->flag[i] != 0;
        if (e > starts[g] && last[g] == k) {
            pos[e - 1] += f;
            neg[e - 1] += 1.0 - f;
        } else if (e > starts[g] && k < last[g]) {
            return NULL;
        } else {
            sc[e] = asc_score(k);
            pos[e] = f;
            neg[e] = 1.0 - f;
            last[g] = k;
            cur[g] = e + 1;
        }
    }
    for (int64_t g = g0; g < g1; g++)
        cur[g] -= starts[g];
    j->ok = 1;
    return NULL;
}

/* group_hist_rows(codes, score, positive, G) -> (scores, pos, neg, bounds): every group's summary
 * (its distinct scores ascending, -0.0 as 0.0, with their positive and negative counts; group g's
 * entries at bounds[g]:bounds[g + 1]) from unweighted rows in any order (codes int64 0..G-1,
 * positive uint8).  The counts are whole numbers, so the same bits as the summary of the rows
 * sorted by (group, score) and summed.  Why C: numpy sorted all the rows by (group, score), a
 * lexsort of 10M rows in seconds; here the rows are counted into their groups and each group
 * sorted and summed on its own, on two threads (10M rows in 100,000 groups: 0.2 s). */
PyObject *nv_group_hist_rows(PyObject *Py_UNUSED(self), PyObject *args)
{
    long long G;
    nv_args in = {0};
    if (group_rows_args(args, &in, &G) < 0)
        return NULL;
    const int64_t *codes = in.v[0].buf;
    const double *score = in.v[1].buf;
    const uint8_t *flag = in.v[2].buf;
    Py_ssize_t n = in.n[0];
    PyObject *out[4] = {0};
    int ok = 1;
    for (int k = 0; ok && k < 3; k++) /* huge pages (buffers.c): fewer faults than 4 KB pages */
        ok = (out[k] = nv_buf_result(n * 8)) != NULL;
    ok = ok && (out[3] = PyByteArray_FromStringAndSize(NULL, (G + 1) * 8)) != NULL;
    int64_t *starts = calloc((size_t)G + 2, sizeof(int64_t)), *cells = calloc((size_t)G + 1, sizeof(int64_t)),
            *npos = calloc((size_t)G + 1, sizeof(int64_t));
    size_t key_bytes = (size_t)(n > 0 ? n : 1) * 8;
    uint64_t *key = nv_big_alloc(key_bytes); /* huge pages, reused: see buffers.c */
    ok = ok && starts && cells && npos && key;
    int64_t T = 0;
    if (ok) {
        double *sc = (double *)((nv_BufObject *)out[0])->data, *pos = (double *)((nv_BufObject *)out[1])->data,
               *neg = (double *)((nv_BufObject *)out[2])->data;
        int64_t *bounds = (int64_t *)PyByteArray_AS_STRING(out[3]);
        NOGIL_BEGIN
        /* rows in score order: one pass (hist_in_order); else counted into their groups, each sorted */
        int walked = 0;
        if (n > 1 && G <= n && score[0] <= score[n - 1]) /* (`key` holds G last scores) */
            walked = rows_in_group_order(codes, score, n, G, key);
        if (walked) {
            for (Py_ssize_t i = 0; i < n; i++)
                starts[codes[i] + 1]++;
            for (int64_t g = 0; g < G; g++)
                starts[g + 1] += starts[g];
            int64_t mid = 0;
            while (mid < G && starts[mid] < n / 2)
                mid++;
            walk_job wj[2] = {{codes, score, flag, n, 0, mid, starts, cells, key, sc, pos, neg, 0},
                              {codes, score, flag, n, mid, G, starts, cells, key, sc, pos, neg, 0}};
            pthread_t th;
            int threaded = n > 100000 && G > 1 && pthread_create(&th, NULL, hist_in_order, &wj[1]) == 0;
            hist_in_order(&wj[0]);
            if (threaded)
                pthread_join(th, NULL);
            else
                hist_in_order(&wj[1]);
            walked = wj[0].ok && wj[1].ok;
            if (!walked)
                memset(starts, 0, ((size_t)G + 2) * sizeof(int64_t));
        }
        ok = walked || scatter_split(codes, score, flag, n, G, starts, npos, key) == 0;
        if (ok && walked) {
            for (int64_t g = 0; g < G; g++) { /* the entries moved up to their place */
                bounds[g] = T;
                if (T != starts[g] && cells[g] > 0) {
                    memmove(sc + T, sc + starts[g], (size_t)cells[g] * 8);
                    memmove(pos + T, pos + starts[g], (size_t)cells[g] * 8);
                    memmove(neg + T, neg + starts[g], (size_t)cells[g] * 8);
                }
                T += cells[g];
            }
            bounds[G] = T;
        } else if (ok) {
            int64_t mid = 0;
            while (mid < G && starts[mid] < n / 2)
                mid++;
            hsort_job hj[2] = {{key, starts, npos, 0, mid, cells, sc, pos, neg},
                               {key, starts, npos, mid, G, cells, sc, pos, neg}};
            pthread_t th;
            int threaded = n > 100000 && G > 1 && pthread_create(&th, NULL, hist_sort_groups, &hj[1]) == 0;
            hist_sort_groups(&hj[0]);
            if (threaded)
                pthread_join(th, NULL);
            else
                hist_sort_groups(&hj[1]);
            for (int64_t g = 0; g < G; g++) { /* the entries moved up to their place (none when all distinct) */
                bounds[g] = T;
                if (T != starts[g] && cells[g] > 0) {
                    memmove(sc + T, sc + starts[g], (size_t)cells[g] * 8);
                    memmove(pos + T, pos + starts[g], (size_t)cells[g] * 8);
                    memmove(neg + T, neg + starts[g], (size_t)cells[g] * 8);
                }
                T += cells[g];
            }
            bounds[G] = T;
        }
        NOGIL_END
    }
    free(starts);
    free(cells);
    free(npos);
    nv_big_free(key, key_bytes);
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

/* group_totals(sc, pos, neg, bounds, groups[, why]) -> (P, N, odd[, code]): for each group g of groups
 * (its cells bounds[g] .. bounds[g + 1] - 1 of the groups' summaries, at least one), its positive and
 * negative weight, each summed cell by cell from the first (float64 bytearrays of len(groups); the
 * caller gives whole counts, exact in any order), and whether a cell's score is at or below 0 or at or
 * above 1 (uint8; a NaN score is neither); with why true, also fit_why's code of each (int64, the same
 * cells read once: the fits' NaN groups are most of 100,000 small groups).  Why C: the NaN groups'
 * totals (engine/finish.py group_reasons) were a copy of their cells and two reduceats (a third of
 * the reasons' time over 100,000 groups). */
PyObject *nv_group_totals(PyObject *Py_UNUSED(self), PyObject *args)
{
    nv_args in = {0};
    int why = 0;
    PyObject *five = args;
    if (PyTuple_GET_SIZE(args) == 6) {
        if ((why = PyObject_IsTrue(PyTuple_GET_ITEM(args, 5))) < 0 || !(five = PyTuple_GetSlice(args, 0, 5)))
            return NULL;
    } else
        Py_INCREF(five);
    Py_ssize_t K = nv_chosen_groups(&in, five, "group_totals");
    Py_DECREF(five);
    if (K < 0)
        return NULL;
    const int64_t *bounds = in.v[3].buf, *groups = in.v[4].buf;
    PyObject *Po = PyByteArray_FromStringAndSize(NULL, K * 8), *No = PyByteArray_FromStringAndSize(NULL, K * 8),
             *Oo = PyByteArray_FromStringAndSize(NULL, K), *Co = why ? PyByteArray_FromStringAndSize(NULL, K * 8) : NULL;
    if (!Po || !No || !Oo || (why && !Co)) {
        Py_XDECREF(Po);
        Py_XDECREF(No);
        Py_XDECREF(Oo);
        Py_XDECREF(Co);
        nv_args_release(&in);
        return NULL;
    }
    double *P = (double *)PyByteArray_AS_STRING(Po), *N = (double *)PyByteArray_AS_STRING(No);
    uint8_t *odd = (uint8_t *)PyByteArray_AS_STRING(Oo);
    int64_t *code = why ? (int64_t *)PyByteArray_AS_STRING(Co) : NULL;
    const double *sc = in.v[0].buf, *pos = in.v[1].buf, *neg = in.v[2].buf;
    NOGIL_BEGIN
    for (Py_ssize_t j = 0; j < K; j++) {
        int64_t lo = bounds[groups[j]], hi = bounds[groups[j] + 1];
        double p = pos[lo], q = neg[lo]; /* reduceat: the first cell, then each next one added */
        int o = sc[lo] <= 0.0 || sc[lo] >= 1.0;
        for (int64_t i = lo + 1; i < hi; i++) {
            p += pos[i], q += neg[i];
            o |= sc[i] <= 0.0 || sc[i] >= 1.0;
        }
        P[j] = p, N[j] = q, odd[j] = (uint8_t)o;
        if (code) /* the cells just read, in the cache */
            code[j] = nv_fit_why_code(sc, pos, neg, lo, hi);
    }
    NOGIL_END
    nv_args_release(&in);
    if (code)
        return Py_BuildValue("(NNNN)", Po, No, Oo, Co);
    return Py_BuildValue("(NNN)", Po, No, Oo);
}

/* the bounds of the per-group kernels (hist_*_groups, calibration.c's group_*) checked: ascending
 * offsets into `cells` entries, from 0 (the first group's first cell: bounds starting past it would
 * leave the cells before it out of every group, silently) to `cells`; G groups, or -1 with the
 * error set and `in` released */
Py_ssize_t nv_group_bounds(nv_args *in, const int64_t *bounds, Py_ssize_t nb, Py_ssize_t cells, const char *who)
{
    Py_ssize_t G = nb > 0 ? nb - 1 : 0;
    if (nb > 0 && bounds[0] != 0) {
        PyErr_Format(PyExc_ValueError, "%s: bounds must start at 0 (the first cell), got %lld", who,
                     (long long)bounds[0]);
        nv_args_release(in);
        return -1;
    }
    for (Py_ssize_t k = 0; k < nb; k++)
        if (bounds[k] < 0 || bounds[k] > cells || (k > 0 && bounds[k] < bounds[k - 1]) ||
            (k == G && bounds[k] != cells)) {
            PyErr_Format(PyExc_ValueError, "%s: bounds must be ascending cell offsets ending at the cells", who);
            nv_args_release(in);
            return -1;
        }
    return G;
}

/* the arguments (sc, pos, neg, bounds, groups) of the kernels over chosen groups (group_totals here,
 * calibration.c's fit_why) taken into `in` (in.v[0..4]) and checked: sc, pos and neg float64 arrays
 * of one length (the cells), bounds (int64) as nv_group_bounds wants them, each of groups (int64) a
 * group with a cell.  len(groups), or -1 with the error set (its message starting with `who`) and
 * `in` released. */
Py_ssize_t nv_chosen_groups(nv_args *in, PyObject *args, const char *who)
{
    PyObject *so, *po, *no, *bo, *go;
    if (!PyArg_ParseTuple(args, "OOOOO", &so, &po, &no, &bo, &go))
        return -1;
    if (nv_arg(in, so, NV_F64) < 0 || nv_arg(in, po, NV_F64) < 0 || nv_arg(in, no, NV_F64) < 0 ||
        nv_arg(in, bo, NV_RAW8) < 0 || nv_arg(in, go, NV_RAW8) < 0)
        return -1;
    if (!nv_len_eq(in, 0, 1) || !nv_len_eq(in, 0, 2)) {
        nv_args_release(in);
        PyErr_Format(PyExc_ValueError, "%s: scores, pos and neg differ in length", who);
        return -1;
    }
    const int64_t *bounds = in->v[3].buf, *groups = in->v[4].buf;
    Py_ssize_t G = nv_group_bounds(in, bounds, in->n[3], in->n[0], who), K = in->n[4];
    if (G < 0)
        return -1;
    for (Py_ssize_t j = 0; j < K; j++)
        if (groups[j] < 0 || groups[j] >= G || bounds[groups[j] + 1] == bounds[groups[j]]) {
            nv_args_release(in);
            PyErr_Format(PyExc_ValueError, "%s: a group out of range or without a cell", who);
            return -1;
        }
    return K;
}

/* hist_tie_groups(pos, neg, bounds) -> (query int64, size, first, rel, sizes, P): the tie table of
 * G groups from their summaries with whole counts (group k's distinct scores ascending at cells
 * bounds[k]:bounds[k + 1]): each group's ties highest score first, a tie's size, its first place
 * in its group, its positives; each group's size and positives.  Every number is a whole count,
 * exact in any order: TieTable.from_histograms's numpy expressions bit for bit.  Why C: those are
 * six passes of gathers and cumulative sums over every cell (10M distinct scores: 0.3 s). */
PyObject *nv_hist_tie_groups(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no, *bo;
    if (!PyArg_ParseTuple(args, "OOO", &po, &no, &bo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 || nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1)) {
        nv_args_fail(&in, PyExc_ValueError, "hist_tie_groups: pos and neg differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[2].buf;
    Py_ssize_t T = in.n[0];
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[2], T, "hist_tie_groups");
    if (G < 0)
        return NULL;
    const double *pos = in.v[0].buf, *neg = in.v[1].buf;
    PyObject *out[6] = {0};
    int ok = 1;
    for (int k = 0; ok && k < 6; k++)
        ok = (out[k] = nv_buf_result((k < 4 ? T : G) * 8)) != NULL; /* huge pages */
    if (!ok) {
        for (int k = 0; k < 6; k++)
            Py_XDECREF(out[k]);
        nv_args_release(&in);
        return NULL;
    }
#define BUFDATA(o) (((nv_BufObject *)(o))->data)
    int64_t *query = (int64_t *)BUFDATA(out[0]);
    double *size = (double *)BUFDATA(out[1]), *first = (double *)BUFDATA(out[2]), *rel = (double *)BUFDATA(out[3]),
           *sizes = (double *)BUFDATA(out[4]), *P = (double *)BUFDATA(out[5]);
#undef BUFDATA
    NOGIL_BEGIN
    for (Py_ssize_t g = 0; g < G; g++) {
        double at = 0, p = 0;
        for (Py_ssize_t c = bounds[g + 1] - 1, t = bounds[g]; c >= bounds[g]; c--, t++) {
            double m = pos[c], s = pos[c] + neg[c];
            query[t] = g;
            size[t] = s;
            first[t] = at;
            rel[t] = m;
            at += s;
            p += m;
        }
        sizes[g] = at;
        P[g] = p;
    }
    NOGIL_END
    nv_args_release(&in);
    return Py_BuildValue("(NNNNNN)", out[0], out[1], out[2], out[3], out[4], out[5]);
}

/* hist_auc_groups(pos, neg, bounds) -> (wins, P, N): each group's Mann-Whitney sum (a tied
 * positive/negative pair one half), positives and negatives from its summary with whole counts (as
 * hist_tie_groups): whole and half numbers, exact in any order, so group_auc's bits from the tie
 * table, in one pass over the cells. */
PyObject *nv_hist_auc_groups(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no, *bo;
    if (!PyArg_ParseTuple(args, "OOO", &po, &no, &bo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 || nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1)) {
        nv_args_fail(&in, PyExc_ValueError, "hist_auc_groups: pos and neg differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[2].buf;
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[2], in.n[0], "hist_auc_groups");
    if (G < 0)
        return NULL;
    const double *pos = in.v[0].buf, *neg = in.v[1].buf;
    PyObject *out[3] = {0};
    int ok = 1;
    for (int k = 0; ok && k < 3; k++)
        ok = (out[k] = PyByteArray_FromStringAndSize(NULL, G * 8)) != NULL;
    if (!ok) {
        for (int k = 0; k < 3; k++)
            Py_XDECREF(out[k]);
        nv_args_release(&in);
        return NULL;
    }
    double *wins = (double *)PyByteArray_AS_STRING(out[0]), *P = (double *)PyByteArray_AS_STRING(out[1]),
           *N = (double *)PyByteArray_AS_STRING(out[2]);
    NOGIL_BEGIN
    for (Py_ssize_t g = 0; g < G; g++) {
        double w = 0, p = 0, below = 0; /* ascending: the negatives below this score */
        for (Py_ssize_t c = bounds[g]; c < bounds[g + 1]; c++) {
            w += pos[c] * (below + 0.5 * neg[c]);
            p += pos[c];
            below += neg[c];
        }
        wins[g] = w;
        P[g] = p;
        N[g] = below;
    }
    NOGIL_END
    nv_args_release(&in);
    return Py_BuildValue("(NNN)", out[0], out[1], out[2]);
}

/* hist_groups(op, sc, pos, neg, bounds, par) -> tuple of float64 bytearrays: a PERF measure's
 * parts for every group at once from the groups' summaries (group k's distinct scores ascending at
 * cells bounds[k]:bounds[k + 1]), each the numpy expression of perfeval.measures (probability,
 * rank, threshold) over those cells bit for bit: the same terms summed in the same order (np.bincount
 * adds each group's terms one by one from 0.0; numpy's sum of a row of the (G, B) table is its
 * pairwise sum, np_pairwise).  Why C: numpy made each part in several passes over every cell (CA1:
 * 57 bincounts of 10M cells, 2.4 s; here one pass, a few hundredths).
 *   "counts" par = threshold: (tp, fn, fp, tn) with scores >= threshold predicted positive (whole counts)
 *   "sq":     (sum of pos (1 - s)^2 + neg s^2, sum of pos + neg), any weights
 *   "ca1":    (CA1,) whole counts
 *   "ca2"     par = window: (CA2,) whole counts, NaN for a group of fewer cases than the window
 *   "slq"     par = bins: (SLQ,) whole counts, NaN for a group with a score outside [0, 1]
 *   "r50"     par = negatives: (area, P, N), the ties highest score first
 *   "prb":    (share of the top P, P); "ntop" par = n: (share of the top n, P)
 *   "rkl", "top1", "top10": (value,) whole counts
 *   "sum":    (sum of the terms,) with `sc` holding one term per cell
 *   "outside": (cells with a score outside [0, 1],)                                         */
static double ca1_group(const double *sc, const double *pos, const double *neg, Py_ssize_t a, Py_ssize_t b)
{
    double total = 0.0;
    Py_ssize_t st = a;
    for (int i = 0; i < 19; i++) {
        double lo = (double)i / 20.0, hi = (double)(i + 2) / 20.0;
        while (st < b && !(sc[st] >= lo))
            st++;
        double k = 0.0, p = 0.0, sp = 0.0;
        for (Py_ssize_t c = st; c < b && sc[c] <= hi; c++) {
            double n = pos[c] + neg[c];
            k += n;
            p += pos[c];
            sp += sc[c] * n;
        }
        total += k > 0 ? fabs(p / k - sp / k) : 0.0;
    }
    return total / 19.0;
}

static double slq_group(const double *sc, const double *pos, const double *neg, Py_ssize_t a, Py_ssize_t b, long long B,
                        double *x, double *tot, const double *edge)
{
    for (long long i = 0; i < B; i++)
        x[i] = tot[i] = 0.0;
    long long bin = 0; /* the edges i / B (i = 1..B-1) at or below the score */
    for (Py_ssize_t c = a; c < b; c++) {
        if (sc[c] < 0 || sc[c] > 1)
            return NAN;
        while (bin < B - 1 && edge[bin] <= sc[c])
            bin++;
        x[bin] += pos[c];
        tot[bin] += pos[c] + neg[c];
    }
    for (long long i = 0; i < B; i++) { /* the table's row of terms, into x; its sizes into tot */
        double w = tot[i] > 0 ? fmin(x[i], tot[i] - x[i]) / tot[i] : 0.0, u = 1.0 - 2.0 * w;
        x[i] = tot[i] * (u * u);
    }
    double num = np_pairwise(x, B), den = np_pairwise(tot, B); /* a row of a (G, B) table: numpy sums it whole */
    return den != 0 ? num / den : NAN;
}

typedef struct {
    int kind;
    const double *sc, *pos, *neg;
    const int64_t *bounds;
    Py_ssize_t g0, g1;
    double par, *o[4], *xrow;
    long long B;
} hgroups_job;

enum { HG_COUNTS, HG_SQ, HG_CA1, HG_CA2, HG_SLQ, HG_R50, HG_PRB, HG_NTOP, HG_SUM, HG_RKL, HG_TOP1, HG_TOP10, HG_OUTSIDE };

static void *hist_groups_job(void *arg)
{
    hgroups_job *j = arg;
    const double *sc = j->sc, *pos = j->pos, *neg = j->neg, par = j->par;
    const int64_t *bounds = j->bounds;
    double **o = j->o;
    long long B = j->B;
    int kind = j->kind;
    for (Py_ssize_t g = j->g0; g < j->g1; g++) {
        Py_ssize_t a = bounds[g], b = bounds[g + 1];
        switch (kind) {
        case HG_OUTSIDE: { /* cells with a score outside [0, 1] */
            double k = 0;
            for (Py_ssize_t c = a; c < b; c++)
                k += sc[c] < 0 || sc[c] > 1;
            o[0][g] = k;
            break;
        }
        case HG_SUM: { /* sc holds a term per cell: np.bincount(cell group, terms) */
            double s = 0;
            for (Py_ssize_t c = a; c < b; c++)
                s += sc[c];
            o[0][g] = s;
            break;
        }
        case HG_RKL: { /* the end of the deepest tie holding a positive; the size with one class */
            double at = 0, last = 0, P = 0;
            for (Py_ssize_t c = b - 1; c >= a; c--) {
                at += pos[c] + neg[c];
                if (pos[c] > 0)
                    last = at;
                P += pos[c];
            }
            o[0][g] = (P == 0 || P == at) ? at : last;
            break;
        }
        case HG_TOP1: /* the top tie all positives */
            o[0][g] = b > a && pos[b - 1] == pos[b - 1] + neg[b - 1] && pos[b - 1] > 0 ? 1.0 : 0.0;
            break;
        case HG_TOP10: { /* a positive in the top 10 in every tie order */
            double at = 0, hit = 0;
            for (Py_ssize_t c = b - 1; c >= a && !hit; c--) {
                hit = pos[c] > 0 && at + neg[c] < 10;
                at += pos[c] + neg[c];
            }
            o[0][g] = hit ? 1.0 : 0.0;
            break;
        }
        case HG_COUNTS: {
            double tp = 0, fp = 0, P = 0, N = 0;
            for (Py_ssize_t c = a; c < b; c++) {
                if (sc[c] >= par) {
                    tp += pos[c];
                    fp += neg[c];
                }
                P += pos[c];
                N += neg[c];
            }
            o[0][g] = tp, o[1][g] = P - tp, o[2][g] = fp, o[3][g] = N - fp;
            break;
        }
        case HG_SQ: {
            double s2 = 0, n = 0;
            for (Py_ssize_t c = a; c < b; c++) {
                double u = 1.0 - sc[c], t1 = pos[c] * (u * u), t2 = neg[c] * (sc[c] * sc[c]);
                s2 += t1 + t2;
                n += pos[c] + neg[c];
            }
            o[0][g] = s2, o[1][g] = n;
            break;
        }
        case HG_CA1:
            o[0][g] = ca1_group(sc, pos, neg, a, b);
            break;
        case HG_CA2: {
            double n = 0;
            for (Py_ssize_t c = a; c < b; c++)
                n += pos[c] + neg[c];
            o[0][g] = n < par ? NAN : nv_ca2_total(sc + a, pos + a, neg + a, b - a, (long long)par);
            break;
        }
        case HG_SLQ:
            o[0][g] = slq_group(sc, pos, neg, a, b, B, j->xrow, j->xrow + B, j->xrow + 2 * B);
            break;
        case HG_R50: {
            double P = 0, N = 0;
            for (Py_ssize_t c = a; c < b; c++)
                P += pos[c], N += neg[c];
            double limit = fmin(par, N), tp_above = 0, fp_above = 0, area = 0;
            for (Py_ssize_t c = b - 1; c >= a; c--) { /* highest score first */
                double m = pos[c], q = (pos[c] + neg[c]) - m;
                double take = fmin(fmax(limit - fp_above, 0.0), q);
                double slope = q > 0 ? m / q : 0.0;
                double t1 = take * tp_above, t2 = 0.5 * slope;
                t2 = t2 * take;
                t2 = t2 * take;
                area += t1 + t2;
                tp_above += m;
                fp_above += q;
            }
            o[0][g] = area, o[1][g] = P, o[2][g] = N;
            break;
        }
        case HG_PRB:
        case HG_NTOP: {
            double P = 0, share = 0, at = 0;
            for (Py_ssize_t c = a; c < b; c++)
                P += pos[c];
            double k = kind == HG_PRB ? P : par;
            for (Py_ssize_t c = b - 1; c >= a; c--) {
                double size = pos[c] + neg[c], end = at + size;
                double overlap = fmax(fmin(end, k) - at, 0.0);
                share += pos[c] / size * overlap;
                at = end;
            }
            o[0][g] = share, o[1][g] = P;
            break;
        }
        }
    }
    return NULL;
}

PyObject *nv_hist_groups(PyObject *Py_UNUSED(self), PyObject *args)
{
    const char *op;
    PyObject *so, *po, *no, *bo;
    double par;
    if (!PyArg_ParseTuple(args, "sOOOOd", &op, &so, &po, &no, &bo, &par))
        return NULL;
    int kind;
    int nout;
    if (!strcmp(op, "sum"))
        kind = HG_SUM, nout = 1;
    else if (!strcmp(op, "outside"))
        kind = HG_OUTSIDE, nout = 1;
    else if (!strcmp(op, "rkl"))
        kind = HG_RKL, nout = 1;
    else if (!strcmp(op, "top1"))
        kind = HG_TOP1, nout = 1;
    else if (!strcmp(op, "top10"))
        kind = HG_TOP10, nout = 1;
    else if (!strcmp(op, "counts"))
        kind = HG_COUNTS, nout = 4;
    else if (!strcmp(op, "sq"))
        kind = HG_SQ, nout = 2;
    else if (!strcmp(op, "ca1"))
        kind = HG_CA1, nout = 1;
    else if (!strcmp(op, "ca2"))
        kind = HG_CA2, nout = 1;
    else if (!strcmp(op, "slq"))
        kind = HG_SLQ, nout = 1;
    else if (!strcmp(op, "r50"))
        kind = HG_R50, nout = 3;
    else if (!strcmp(op, "prb"))
        kind = HG_PRB, nout = 2;
    else if (!strcmp(op, "ntop"))
        kind = HG_NTOP, nout = 2;
    else
        return PyErr_Format(PyExc_ValueError, "hist_groups: unknown op %s", op);
    if ((kind == HG_SLQ || kind == HG_CA2) && !(par >= 1 && par <= 1e9 && par == floor(par)))
        return PyErr_Format(PyExc_ValueError, "hist_groups: %s needs a whole number 1..1e9, not %g", op, par);
    nv_args in = {0};
    if (nv_arg(&in, so, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 || nv_arg(&in, no, NV_F64) < 0 ||
        nv_arg(&in, bo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "hist_groups: scores, pos and neg differ in length");
        return NULL;
    }
    const int64_t *bounds = in.v[3].buf;
    Py_ssize_t G = nv_group_bounds(&in, bounds, in.n[3], in.n[0], "hist_groups");
    if (G < 0)
        return NULL;
    const double *sc = in.v[0].buf, *pos = in.v[1].buf, *neg = in.v[2].buf;
    long long B = kind == HG_SLQ ? (long long)par : 1;
    double *xrow = kind == HG_SLQ ? malloc((size_t)B * 6 * sizeof(double)) : NULL; /* x, tot, edges; twice */
    for (long long i = 0; xrow && i + 1 < B; i++)
        xrow[2 * B + i] = xrow[5 * B + i] = (double)(i + 1) / (double)B; /* np.arange(1, B) / B */
    PyObject *out[4] = {0};
    int ok = kind != HG_SLQ || xrow;
    for (int k = 0; ok && k < nout; k++)
        ok = (out[k] = PyByteArray_FromStringAndSize(NULL, G * 8)) != NULL;
    if (!ok) {
        for (int k = 0; k < nout; k++)
            Py_XDECREF(out[k]);
        free(xrow);
        nv_args_release(&in);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    double *o[4] = {0};
    for (int k = 0; k < nout; k++)
        o[k] = (double *)PyByteArray_AS_STRING(out[k]);
    /* the groups split over two threads at the middle cell; each its own SLQ row */
    Py_ssize_t mid = 0, cells = G > 0 ? bounds[G] : 0;
    while (mid < G && bounds[mid] < cells / 2)
        mid++;
    hgroups_job jobs[2];
    for (int h = 0; h < 2; h++) {
        jobs[h] = (hgroups_job){kind, sc, pos, neg, bounds, h ? mid : 0, h ? G : mid, par, {o[0], o[1], o[2], o[3]},
                                xrow ? xrow + (size_t)h * 3 * B : NULL, B};
    }
    NOGIL_BEGIN
    pthread_t th;
    int threaded = cells > 200000 && pthread_create(&th, NULL, hist_groups_job, &jobs[1]) == 0;
    hist_groups_job(&jobs[0]);
    if (threaded)
        pthread_join(th, NULL);
    else
        hist_groups_job(&jobs[1]);
    NOGIL_END
    free(xrow);
    nv_args_release(&in);
    if (nout == 1)
        return Py_BuildValue("(N)", out[0]);
    if (nout == 2)
        return Py_BuildValue("(NN)", out[0], out[1]);
    if (nout == 3)
        return Py_BuildValue("(NNN)", out[0], out[1], out[2]);
    return Py_BuildValue("(NNNN)", out[0], out[1], out[2], out[3]);
}

/* split_classes(score, positive, pos_out, neg_out): the positives' scores into pos_out and the
 * negatives' into neg_out, in row order (positive uint8; the outputs float64 of the right lengths).
 * Why C: numpy's s[mask] and s[~mask] are two passes and a negated mask; here one pass. */
PyObject *nv_split_classes(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *fo, *ao, *bo;
    if (!PyArg_ParseTuple(args, "OOOO", &so, &fo, &ao, &bo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, fo, NV_RAW1) < 0 || nv_arg(&in, ao, NV_RAW8 | NV_WRITABLE) < 0 ||
        nv_arg(&in, bo, NV_RAW8 | NV_WRITABLE) < 0)
        return NULL;
    Py_ssize_t n = in.n[0], P = 0;
    const uint8_t *f = in.v[1].buf;
    if (!nv_len_eq(&in, 0, 1)) {
        nv_args_fail(&in, PyExc_ValueError, "split_classes: scores and classes differ in length");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        P += f[i] != 0;
    if (in.n[2] != P || in.n[3] != n - P) {
        nv_args_fail(&in, PyExc_ValueError, "split_classes: the outputs do not hold the positives and the negatives");
        return NULL;
    }
    const double *s = in.v[0].buf;
    double *a = in.v[2].buf, *b = in.v[3].buf;
    NOGIL_BEGIN
    Py_ssize_t i_a = 0, i_b = 0;
    double spare;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* branch-free (the class is a coin toss): each score written to both sides, kept by the
         * side it belongs to; a side already full writes to a spare */
        double v = s[i];
        int p = f[i] != 0;
        *(i_a < P ? a + i_a : &spare) = v;
        *(i_b < n - P ? b + i_b : &spare) = v;
        i_a += p;
        i_b += 1 - p;
    }
    NOGIL_END
    nv_args_release(&in);
    Py_RETURN_NONE;
}

/* hist_merge_inplace(buf, m, small_is_pos) -> (cells, pos, neg): hist_merge of the two classes'
 * sorted scores held in one buffer, the smaller class first (buf[0:m]) and the larger after it,
 * written over that buffer: the distinct scores ascending land in buf[0:cells] (-0.0 as 0.0), the
 * positives' and negatives' counts in two new arrays.  The smaller class is copied aside first; the
 * cell written next is never past the larger class's next unread score (cells written <= scores
 * read), so nothing unread is overwritten.  Why: the summary then needs no array of the classes'
 * scores beside its own (8 bytes a row of the larger class less at the peak); the same cells and
 * counts as hist_merge. */
PyObject *nv_hist_merge_inplace(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *bo;
    Py_ssize_t m;
    int small_is_pos;
    if (!PyArg_ParseTuple(args, "Onp", &bo, &m, &small_is_pos))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, bo, NV_F64 | NV_WRITABLE) < 0)
        return NULL;
    double *buf = in.v[0].buf;
    Py_ssize_t n = in.n[0];
    if (m < 0 || m > n) {
        nv_args_fail(&in, PyExc_ValueError, "hist_merge_inplace: the smaller class's length is outside [0, n]");
        return NULL;
    }
    PyObject *po = nv_buf_result(n * 8), *no = po ? nv_buf_result(n * 8) : NULL;
    if (!no) {
        Py_XDECREF(po);
        nv_args_release(&in);
        return NULL;
    }
    double *ps = (double *)((nv_BufObject *)po)->data, *ns = (double *)((nv_BufObject *)no)->data;
    double *sc_small = small_is_pos ? ps : ns, *sc_large = small_is_pos ? ns : ps;
    /* the smaller class aside in the tail of the positives' counts, which are written at the cell's
     * number: cell c <= i0 + j0 < n - m + i0 while the larger class has scores left, and its
     * reads come before its write: what is overwritten there has been read */
    double *small = ps + (n - m);
    const double *large = buf + m;
    Py_ssize_t nl = n - m, c = 0;
    NOGIL_BEGIN
    memmove(small, buf, (size_t)m * 8);
    for (Py_ssize_t i = 0, j = 0; i < m || j < nl; c++) {
        double v = j >= nl || (i < m && small[i] <= large[j]) ? small[i] : large[j];
        Py_ssize_t i0 = i, j0 = j;
        while (i < m && small[i] == v)
            i++;
        while (j < nl && large[j] == v)
            j++;
        buf[c] = v + 0.0; /* c <= i0 + j0 <= m + j0: at or before the larger class's next unread */
        sc_small[c] = (double)(i - i0);
        sc_large[c] = (double)(j - j0);
    }
    NOGIL_END
    nv_args_release(&in);
    ((nv_BufObject *)po)->len = ((nv_BufObject *)no)->len = c * 8;
    return Py_BuildValue("(nNN)", c, po, no);
}
