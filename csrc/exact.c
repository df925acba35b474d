/*
 * perfeval._native, exact.c: exact sums of float64 terms (the regression summary's sums).
 *
 * Why C: the regression summary (src/perfeval/summaries/regression.py) keeps each of its sums EXACTLY,
 * as the whole number sum * 2**1126 (every float64 times 2**1126 is a whole number), so that chunks,
 * streams, Dask partitions and Metric updates merge in any order with the same bits.  In numpy that
 * number was made per exponent (in float64 halves of the mantissas) for one sum, and per group as one
 * Python integer a row (object arrays: seconds for a million rows).  Here each row's terms are added
 * into a fixed-point accumulator of 32-bit limbs kept in int64 (Neal's "small superaccumulator": the
 * carries are propagated only when a limb could overflow, and once at the end), a group at a time,
 * and each group's accumulator is handed back as one Python integer.  The integer is the exact sum of
 * the terms, so it is the number the numpy form gave, whatever the order of the rows.
 *
 * The terms of a row are the exact products of its factors (one, two or three float64 columns) by
 * Dekker's two-product splitting, in the order of summaries/regression.py's two_product (this file is
 * compiled with -ffp-contract=off: no FMA, the same float64 bits as the numpy expression):
 *   one factor a:       a
 *   two factors a, b:   p, e with a b = p + e
 *   three factors:      a b = p1 + e1; p1 c = p2 + e2; e1 c = p3 + e3; the terms p2, e2, p3, e3
 * A term that is not finite (a product or a split beyond float64's range) makes the call return None
 * (the Python layer says why).
 */
#include "native.h"

/* limbs of 32 bits: the lowest bit of a limb 0 is 2**-1126 (a float64 subnormal's last bit times
 * 2**-52); the highest bit of a float64 is at 2**1024, 2150 bits up; 72 limbs leave room for the
 * sum of 2**60 such numbers */
#define LIMBS 72
#define LIMB_BITS 32
#define LIMB_MASK 0xffffffffLL
/* a limb grows by less than 2**32 a term: carried every 2**30 terms it stays below 2**62 */
#define CARRY_EVERY (1LL << 30)
#define SPLITTER 134217729.0 /* 2**27 + 1: Veltkamp's splitter */

/* an accumulator: the limbs, and the range [lo, hi] of the limbs touched since it was last cleared */
typedef struct {
    long long limb[LIMBS];
    int lo, hi;
} acc_t;

/* a float64's position: x = m 2**(pos - 1126) with m its mantissa (a whole number below 2**53); -1
 * for 0, -2 for inf or NaN */
static inline int position(uint64_t bits, uint64_t *mant)
{
    unsigned e = (unsigned)((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((1ULL << 52) - 1);
    if (e == 0x7ff)
        return -2;
    if (e) {
        *mant = m | 1ULL << 52;
        return (int)e + 51; /* x = m 2**(e - 1075) */
    }
    *mant = m;
    return m ? 52 : -1; /* subnormal: m 2**-1074 */
}

static inline int add_term(acc_t *A, double x)
{
    uint64_t bits, m = 0;
    memcpy(&bits, &x, sizeof bits);
    int pos = position(bits, &m);
    if (pos < 0)
        return pos == -2 ? -1 : 0;
    int k = pos / LIMB_BITS, o = pos % LIMB_BITS;
    unsigned __int128 v = (unsigned __int128)m << o; /* below 2**85 */
    long long c0 = (long long)((uint64_t)v & LIMB_MASK);
    long long c1 = (long long)((uint64_t)(v >> 32) & LIMB_MASK);
    long long c2 = (long long)(uint64_t)(v >> 64);
    long long *L = A->limb;
    if (bits >> 63) {
        L[k] -= c0;
        L[k + 1] -= c1;
        L[k + 2] -= c2;
    } else {
        L[k] += c0;
        L[k + 1] += c1;
        L[k + 2] += c2;
    }
    if (k < A->lo)
        A->lo = k;
    if (k + 2 > A->hi)
        A->hi = k + 2;
    return 0;
}

/* the limbs lo..hi in [0, 2**32), what they carried added to limb hi + 1, which holds the sign (the
 * last limb is never made nonnegative: the sum of 2**60 float64 values fits below it) */
static void carry(acc_t *A)
{
    long long *L = A->limb;
    int top = A->hi < LIMBS - 2 ? A->hi : LIMBS - 2;
    for (int i = A->lo; i <= top; i++) {
        long long c = L[i] >> LIMB_BITS; /* arithmetic shift: floor division */
        L[i] -= c * (1LL << LIMB_BITS);
        L[i + 1] += c;
    }
    if (A->lo <= A->hi)
        A->hi = top + 1; /* the carry limb is touched */
}

/* the accumulator's number shifted right by `drop` bits, as a Python integer, and the accumulator
 * cleared; NULL with a SystemError if a dropped bit is not 0 (the bound on the terms' last bits was
 * wrong) */
static PyObject *to_int(acc_t *A, int drop)
{
    long long *L = A->limb;
    if (A->lo > A->hi) /* nothing added */
        return PyLong_FromLong(0);
    carry(A); /* limbs lo..hi - 1 in [0, 2**32), limb hi signed */
    int first = drop / LIMB_BITS < A->lo ? drop / LIMB_BITS : A->lo, top = A->hi;
    unsigned char bytes[LIMBS * 4 + 16];
    int size = 0;
    for (int i = first; i < top; i++) {
        uint32_t u = (uint32_t)(uint64_t)L[i];
        bytes[size++] = (unsigned char)(u & 0xff);
        bytes[size++] = (unsigned char)((u >> 8) & 0xff);
        bytes[size++] = (unsigned char)((u >> 16) & 0xff);
        bytes[size++] = (unsigned char)(u >> 24);
    }
    uint64_t t = (uint64_t)L[top]; /* two's complement, 8 bytes */
    for (int j = 0; j < 8; j++)
        bytes[size++] = (unsigned char)((t >> (8 * j)) & 0xff);
    bytes[size] = bytes[size - 1] & 0x80 ? 0xff : 0; /* the sign, read past the end by the shift */
    memset(L + A->lo, 0, (size_t)(A->hi - A->lo + 1) * sizeof *L);
    A->lo = LIMBS;
    A->hi = -1;
    int shift = drop - first * LIMB_BITS, q = shift / 8, r = shift % 8;
    int lost = (bytes[q] & ((1 << r) - 1)) != 0;
    for (int j = 0; j < q; j++)
        lost |= bytes[j] != 0;
    if (lost) {
        PyErr_SetString(PyExc_SystemError, "exact_sums: a bit below `drop` is not 0");
        return NULL;
    }
    if (r)
        for (int j = q; j < size; j++)
            bytes[j] = (unsigned char)((bytes[j] >> r) | (bytes[j + 1] << (8 - r)));
    return _PyLong_FromByteArray(bytes + q, (size_t)(size - q), 1, 1);
}

static inline void split(double a, double *hi, double *lo)
{
    double c = SPLITTER * a;
    *hi = c - (c - a);
    *lo = a - *hi;
}

static inline double two_product(double a, double b, double *err)
{
    double p = a * b, ah, al, bh, bl;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    *err = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return p;
}

/* the smallest position of a nonzero value's last bit in x[lo, hi) (its ulp's: pos of position()),
 * INT_MAX when every value is 0 (or not finite: the sum says so) */
static int lowest(const double *x, Py_ssize_t lo, Py_ssize_t hi)
{
    int best = 1 << 20;
    for (Py_ssize_t i = lo; i < hi; i++) {
        uint64_t bits, m;
        memcpy(&bits, &x[i], sizeof bits);
        int pos = position(bits, &m);
        if (pos >= 0 && pos < best)
            best = pos;
    }
    return best;
}

/* exact_sums(bounds, a[, b[, c[, drop]]]) -> list of int, or None.
 * bounds: int64 offsets of the groups' rows ([0, n] or None: one group of every row); a, b, c float64
 * columns of one length (b and c may be None).  Each group's sum of its rows' terms times 2**1126,
 * divided by 2**drop (0 <= drop < 1126: the caller knows the terms are multiples of 2**(drop - 1126);
 * a SystemError if not): smaller integers, for a caller that only divides sums by sums.  drop -1:
 * the kernel finds it (the largest it can prove from the factors' smallest last bits: every float64
 * operation's result is a multiple of 2**d when its operands' exact result is, and every float64 a
 * multiple of 2**-1074) and returns (list, drop). */
PyObject *nv_exact_sums(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *bo, *ao, *b_o = Py_None, *co = Py_None;
    int drop = 0;
    if (!PyArg_ParseTuple(args, "OO|OOi", &bo, &ao, &b_o, &co, &drop))
        return NULL;
    if (drop < -1 || drop >= 1126) {
        PyErr_SetString(PyExc_ValueError, "exact_sums: drop must be in 0..1125, or -1");
        return NULL;
    }
    nv_args in = {0};
    if (nv_arg(&in, bo, NV_RAW8 | NV_OPTIONAL) < 0 || nv_arg(&in, ao, NV_F64) < 0 ||
        nv_arg(&in, b_o, NV_F64 | NV_OPTIONAL) < 0 || nv_arg(&in, co, NV_F64 | NV_OPTIONAL) < 0)
        return NULL;
    Py_ssize_t n = in.n[1];
    int nf = 1 + (in.v[2].buf != NULL) + (in.v[3].buf != NULL);
    if ((in.v[2].buf && in.n[2] != n) || (in.v[3].buf && in.n[3] != n) || (in.v[3].buf && !in.v[2].buf)) {
        nv_args_fail(&in, PyExc_ValueError, "exact_sums: the factors must be columns of one length");
        return NULL;
    }
    const long long *bounds = in.v[0].buf;
    long long whole[2] = {0, (long long)n};
    Py_ssize_t G = 1;
    if (bounds) {
        G = in.n[0] > 0 ? in.n[0] - 1 : 0;
        for (Py_ssize_t k = 0; k < in.n[0]; k++) {
            if (bounds[k] < 0 || bounds[k] > n || (k > 0 && bounds[k] < bounds[k - 1])) {
                nv_args_fail(&in, PyExc_ValueError, "exact_sums: bounds must be ascending row offsets");
                return NULL;
            }
        }
    } else {
        bounds = whole;
    }
    const double *a = in.v[1].buf, *b = in.v[2].buf, *c = in.v[3].buf;
    int automatic = drop == -1;
    if (automatic) {
        Py_ssize_t lo = G ? bounds[0] : 0, hi = G ? bounds[G] : 0;
        long long sum = 0;
        int zero = 0;
        const double *f[3] = {a, b, c};
        for (int k = 0; k < nf; k++) {
            int p = lowest(f[k], lo, hi);
            zero |= p == 1 << 20;
            sum += p - (k ? 1126 : 0); /* positions of a product: their values' exponents added */
        }
        drop = zero ? 1125 : (int)(sum < 52 ? 52 : sum > 1125 ? 1125 : sum);
    }
    /* one accumulator, made into each group's integer in turn (the GIL held: a group is short, or
     * the only one) */
    acc_t A;
    memset(A.limb, 0, sizeof A.limb);
    A.lo = LIMBS;
    A.hi = -1;
    PyObject *out = PyList_New(G);
    for (Py_ssize_t g = 0; out && g < G; g++) {
        long long since = 0;
        int r = 0;
        for (Py_ssize_t i = bounds[g]; i < bounds[g + 1] && !r; i++) {
            if (nf == 1) {
                r = add_term(&A, a[i]);
                since += 1;
            } else if (nf == 2) {
                double e, p = two_product(a[i], b[i], &e);
                r = add_term(&A, p) | add_term(&A, e);
                since += 2;
            } else {
                double e1, p1 = two_product(a[i], b[i], &e1), e2, e3;
                double p2 = two_product(p1, c[i], &e2), p3 = two_product(e1, c[i], &e3);
                r = add_term(&A, p2) | add_term(&A, e2) | add_term(&A, p3) | add_term(&A, e3);
                since += 4;
            }
            if (since >= CARRY_EVERY) {
                carry(&A);
                since = 0;
            }
        }
        if (r) { /* a term beyond float64's range */
            Py_DECREF(out);
            nv_args_release(&in);
            Py_RETURN_NONE;
        }
        PyObject *v = to_int(&A, drop);
        if (!v) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, g, v);
    }
    nv_args_release(&in);
    if (out && automatic)
        return Py_BuildValue("(Ni)", out, drop);
    return out;
}

/* group_order(codes, G) -> (order, bounds): the rows counted into their groups (codes 0..G-1, int64),
 * in O(n + G): order (int64 bytes) lists each group's rows in row order, group by group, and bounds
 * (int64 bytes, G + 1 offsets) where each group's rows start.  np.argsort(codes, kind="stable") and
 * its group starts, without a sort. */
PyObject *nv_group_order(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *co;
    Py_ssize_t G;
    if (!PyArg_ParseTuple(args, "On", &co, &G))
        return NULL;
    if (G < 0) {
        PyErr_SetString(PyExc_ValueError, "group_order: G must be >= 0");
        return NULL;
    }
    nv_args in = {0};
    if (nv_arg(&in, co, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    const long long *codes = in.v[0].buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (codes[i] < 0 || codes[i] >= G) {
            nv_args_fail(&in, PyExc_ValueError, "group_order: a code outside 0..G-1");
            return NULL;
        }
    }
    PyObject *order = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(long long));
    PyObject *bounds = PyBytes_FromStringAndSize(NULL, (G + 1) * (Py_ssize_t)sizeof(long long));
    if (!order || !bounds) {
        Py_XDECREF(order);
        Py_XDECREF(bounds);
        nv_args_release(&in);
        return NULL;
    }
    long long *o = (long long *)PyBytes_AS_STRING(order), *b = (long long *)PyBytes_AS_STRING(bounds);
    long long *next = PyMem_RawMalloc((size_t)(G > 0 ? G : 1) * sizeof(long long));
    if (!next) {
        Py_DECREF(order);
        Py_DECREF(bounds);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    NOGIL_BEGIN
    memset(b, 0, (size_t)(G + 1) * sizeof(long long));
    for (Py_ssize_t i = 0; i < n; i++)
        b[codes[i] + 1]++;
    for (Py_ssize_t g = 0; g < G; g++) {
        b[g + 1] += b[g];
        next[g] = b[g];
    }
    for (Py_ssize_t i = 0; i < n; i++)
        o[next[codes[i]]++] = (long long)i;
    NOGIL_END
    PyMem_RawFree(next);
    nv_args_release(&in);
    return Py_BuildValue("(NN)", order, bounds);
}

/* the sums of regression_sums, in this order (bit k of `mask`: sum k is made) */
enum { RS_SY, RS_SYY, RS_SR, RS_SRR, RS_SABS, RS_SPOS, RS_SAPE, RS_W, RS_N };

/* the position bound of one sum's terms: its factors' smallest last bits added (values' exponents),
 * at least 52 (2**-1074), at most 1125 (no bit dropped past 2**-1); INT bound 1<<20: a factor all 0 */
static int bound_of(const int *lows, int nf)
{
    long long sum = 0;
    for (int k = 0; k < nf; k++) {
        if (lows[k] == 1 << 20)
            return 1125; /* every product 0 */
        sum += lows[k] - (k ? 1126 : 0);
    }
    return (int)(sum < 52 ? 52 : sum > 1125 ? 1125 : sum);
}

static inline int lowest_of(double x, int best)
{
    uint64_t bits, m;
    memcpy(&bits, &x, sizeof bits);
    int pos = position(bits, &m);
    return pos >= 0 && pos < best ? pos : best;
}

/* regression_sums(bounds, y, yhat, w, mask, scaled) -> (sums, drops) or an int code.
 * Each group's sums of w y, w y^2, w r, w r^2, w |r|, w max(r, 0), w |r| / max(|y|, eps) and w (r =
 * y - yhat, each row's own rounded difference; w absent: 1), the products exact as exact_sums makes
 * them (the same terms: two_product(y, y) then each times w, ...), in one pass without the n-sized
 * temporaries of the numpy expressions.  sums: a list per sum (None for a sum not in `mask`) of each
 * group's integer, the exact sum times 2**1126, divided by 2**drops[k] when `scaled`, else drops 0.
 * Scaled, every sum asked has one drop: the smallest of the bounds exact_sums(drop=-1) finds for
 * each (from the smallest last bits of y, r, |r| / max(|y|, eps) and w; 1 a row is 2**0).
 * Codes: 1, a target minus its prediction (or the ratio of MAPE) beyond float64's range; 2, a
 * product beyond it (code 1 first, as the numpy form checks r before any product). */
PyObject *nv_regression_sums(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *bo, *yo, *po, *wo;
    int mask, scaled;
    if (!PyArg_ParseTuple(args, "OOOOip", &bo, &yo, &po, &wo, &mask, &scaled))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, bo, NV_RAW8 | NV_OPTIONAL) < 0 || nv_arg(&in, yo, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 ||
        nv_arg(&in, wo, NV_F64 | NV_OPTIONAL) < 0)
        return NULL;
    Py_ssize_t n = in.n[1];
    if (in.n[2] != n || (in.v[3].buf && in.n[3] != n)) {
        nv_args_fail(&in, PyExc_ValueError, "regression_sums: the columns must be of one length");
        return NULL;
    }
    const long long *bounds = in.v[0].buf;
    long long whole[2] = {0, (long long)n};
    Py_ssize_t G = 1;
    if (bounds) {
        G = in.n[0] > 0 ? in.n[0] - 1 : 0;
        for (Py_ssize_t k = 0; k < in.n[0]; k++) {
            if (bounds[k] < 0 || bounds[k] > n || (k > 0 && bounds[k] < bounds[k - 1])) {
                nv_args_fail(&in, PyExc_ValueError, "regression_sums: bounds must be ascending row offsets");
                return NULL;
            }
        }
    } else {
        bounds = whole;
    }
    const double *y = in.v[1].buf, *yh = in.v[2].buf, *w = in.v[3].buf;
    const double eps = DBL_EPSILON;
    Py_ssize_t lo = G ? bounds[0] : 0, hi = G ? bounds[G] : 0;
    /* the differences first: any not finite is code 1 whatever the products do */
    int lows[4] = {1 << 20, 1 << 20, 1 << 20, 1 << 20}; /* y, r, ape, w */
    int code = 0;
    NOGIL_BEGIN
    for (Py_ssize_t i = lo; i < hi; i++) {
        double r = y[i] - yh[i], a = fabs(r), ape = a / fmax(fabs(y[i]), eps);
        if (!isfinite(r) || !isfinite(ape)) {
            code = 1;
            break;
        }
        if (scaled) {
            lows[0] = lowest_of(y[i], lows[0]);
            lows[1] = lowest_of(r, lows[1]);
            lows[2] = lowest_of(ape, lows[2]);
            if (w)
                lows[3] = lowest_of(w[i], lows[3]);
        }
    }
    NOGIL_END
    if (code) {
        nv_args_release(&in);
        return PyLong_FromLong(code);
    }
    int drops[RS_N] = {0};
    if (scaled) {
        int nw = w ? 1 : 0;
        int f_y[3] = {lows[0], lows[3]}, f_yy[3] = {lows[0], lows[0], lows[3]};
        int f_r[3] = {lows[1], lows[3]}, f_rr[3] = {lows[1], lows[1], lows[3]}, f_ape[3] = {lows[2], lows[3]};
        drops[RS_SY] = bound_of(f_y, 1 + nw);
        drops[RS_SYY] = bound_of(f_yy, 2 + nw);
        drops[RS_SR] = drops[RS_SABS] = drops[RS_SPOS] = bound_of(f_r, 1 + nw);
        drops[RS_SRR] = bound_of(f_rr, 2 + nw);
        drops[RS_SAPE] = bound_of(f_ape, 1 + nw);
        drops[RS_W] = w ? bound_of(lows + 3, 1) : 1126; /* 1 a row: 2**0, position 1126 */
        int common = 1125; /* one scale for every sum asked: sums of one degree divide without a shift */
        for (int k = 0; k < RS_N; k++)
            if (mask & (1 << k) && drops[k] < common)
                common = drops[k];
        for (int k = 0; k < RS_N; k++)
            drops[k] = common;
    }
    acc_t *A = PyMem_RawMalloc(RS_N * sizeof(acc_t));
    PyObject *lists[RS_N] = {0};
    if (!A) {
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    for (int k = 0; k < RS_N; k++) {
        memset(A[k].limb, 0, sizeof A[k].limb);
        A[k].lo = LIMBS;
        A[k].hi = -1;
        if (mask & (1 << k)) {
            lists[k] = PyList_New(G);
            if (!lists[k])
                goto fail;
        }
    }
    for (Py_ssize_t g = 0; g < G; g++) {
        long long since = 0;
        int bad = 0;
        for (Py_ssize_t i = bounds[g]; i < bounds[g + 1]; i++) {
            double yi = y[i], r = yi - yh[i], a = fabs(r), ape = a / fmax(fabs(yi), eps);
            double t[4];
            int nt;
#define RS_ADD(K, X)                                                                                               \
    if (w) {                                                                                                       \
        t[0] = two_product((X), w[i], &t[1]);                                                                      \
        bad |= add_term(&A[K], t[0]) | add_term(&A[K], t[1]);                                                      \
    } else                                                                                                         \
        bad |= add_term(&A[K], (X));
#define RS_ADD2(K, X)                                                                                              \
    {                                                                                                              \
        double e1, p1 = two_product((X), (X), &e1);                                                                \
        if (w) {                                                                                                   \
            t[0] = two_product(p1, w[i], &t[1]);                                                                   \
            t[2] = two_product(e1, w[i], &t[3]);                                                                   \
            nt = 4;                                                                                                \
        } else {                                                                                                   \
            t[0] = p1;                                                                                             \
            t[1] = e1;                                                                                             \
            nt = 2;                                                                                                \
        }                                                                                                          \
        for (int j = 0; j < nt; j++)                                                                               \
            bad |= add_term(&A[K], t[j]);                                                                          \
    }
            if (mask & (1 << RS_SY)) {
                RS_ADD(RS_SY, yi)
            }
            if (mask & (1 << RS_SYY))
                RS_ADD2(RS_SYY, yi)
            if (mask & (1 << RS_SR)) {
                RS_ADD(RS_SR, r)
            }
            if (mask & (1 << RS_SRR))
                RS_ADD2(RS_SRR, r)
            if (mask & (1 << RS_SABS)) {
                RS_ADD(RS_SABS, a)
            }
            if (mask & (1 << RS_SPOS)) {
                RS_ADD(RS_SPOS, fmax(r, 0.0))
            }
            if (mask & (1 << RS_SAPE)) {
                RS_ADD(RS_SAPE, ape)
            }
            if (mask & (1 << RS_W))
                bad |= add_term(&A[RS_W], w ? w[i] : 1.0);
#undef RS_ADD
#undef RS_ADD2
            if (++since >= CARRY_EVERY / 4) {
                for (int k = 0; k < RS_N; k++)
                    carry(&A[k]);
                since = 0;
            }
        }
        if (bad) { /* a product beyond float64's range */
            for (int k = 0; k < RS_N; k++)
                Py_XDECREF(lists[k]);
            PyMem_RawFree(A);
            nv_args_release(&in);
            return PyLong_FromLong(2);
        }
        for (int k = 0; k < RS_N; k++) {
            if (!lists[k])
                continue;
            PyObject *v = to_int(&A[k], drops[k]);
            if (!v)
                goto fail;
            PyList_SET_ITEM(lists[k], g, v);
        }
    }
    PyMem_RawFree(A);
    nv_args_release(&in);
    PyObject *sums = PyTuple_New(RS_N), *dr = PyTuple_New(RS_N);
    if (!sums || !dr) {
        Py_XDECREF(sums);
        Py_XDECREF(dr);
        for (int k = 0; k < RS_N; k++)
            Py_XDECREF(lists[k]);
        return NULL;
    }
    for (int k = 0; k < RS_N; k++) {
        if (!lists[k]) {
            Py_INCREF(Py_None);
            lists[k] = Py_None;
        }
        PyTuple_SET_ITEM(sums, k, lists[k]);
        PyTuple_SET_ITEM(dr, k, PyLong_FromLong(drops[k]));
    }
    return Py_BuildValue("(NN)", sums, dr);
fail:
    for (int k = 0; k < RS_N; k++)
        Py_XDECREF(lists[k]);
    PyMem_RawFree(A);
    nv_args_release(&in);
    return NULL;
}
