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
 * the terms, so it is the number the numpy form gave, whatever the order of the rows.  A per-group
 * measure that is a ratio of such sums (MAE, MSE, R2, explained variance) can instead be finished here
 * from the limbs, rounded once as Python's int / int rounds (cr_quotient): no integer made at all.
 *
 * The terms of a row are the exact products of its factors (one, two or three float64 columns) by
 * Dekker's two-product splitting, in the order of summaries/regression.py's two_product (this file is
 * compiled with -ffp-contract=off: no FMA, the same float64 bits as the numpy expression):
 *   one factor a:       a
 *   two factors a, b:   p, e with a b = p + e
 *   three factors:      a b = p1 + e1; p1 c = p2 + e2; e1 c = p3 + e3; the terms p2, e2, p3, e3
 * A product beyond float64's range (or whose split is: |a| above about 2**996) is added exactly all the
 * same, from the factors' mantissas (add_product): the accumulator reaches 2**3072, so no sum of
 * finite factors overflows; the measures read from it say when their own value is beyond the range.
 * A factor that is not finite makes the call return None (the Python layer says why).
 */
#include "native.h"

/* limbs of 32 bits: the lowest bit of a limb 0 is 2**-1126 (a float64 subnormal's last bit times
 * 2**-52); the highest bit of a float64 is at 2**1024, 2150 bits up, and of a product of three
 * float64 at 2**3072, 4198 bits up (add_product: the products beyond float64's range kept exact);
 * 138 limbs leave room for the sum of 2**60 such numbers */
#define LIMBS 138
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
    long long s = -(long long)(bits >> 63); /* 0, or -1 for a negative x: added as (c ^ s) - s, no branch
                                               (the signs of the two-product's error terms are random) */
    L[k] += (c0 ^ s) - s;
    L[k + 1] += (c1 ^ s) - s;
    L[k + 2] += (c2 ^ s) - s;
    if (k < A->lo)
        A->lo = k;
    if (k + 2 > A->hi)
        A->hi = k + 2;
    return 0;
}

/* the exact product of the nf (2 or 3) finite float64 f[0..nf) added: from their mantissas (a whole
 * number of at most 159 bits) at the sum of their positions, for a product two_product cannot make
 * (beyond float64's range, or a split that is).  Bits below 2**-1074 (a tiny factor times a huge
 * one) are dropped and 1 returned (lost, as tp_lost says of two_product's terms); else 0.  It adds
 * less than 2**32 to each limb, as add_term does (one term). */
static int add_product(acc_t *A, const double *f, int nf)
{
    uint64_t m[3] = {1, 1, 1}, neg = 0;
    long pos = 0;
    for (int k = 0; k < nf; k++) {
        uint64_t bits;
        memcpy(&bits, &f[k], sizeof bits);
        int p = position(bits, &m[k]);
        if (p < 0)
            return 0; /* a factor 0: nothing added (not finite: never asked) */
        neg ^= bits >> 63;
        pos += p - (k ? 1126 : 0);
    }
    unsigned __int128 p2 = (unsigned __int128)m[0] * m[1];
    unsigned __int128 lo = (unsigned __int128)(uint64_t)p2 * m[2], hi = (unsigned __int128)(uint64_t)(p2 >> 64) * m[2];
    unsigned __int128 mid = (lo >> 64) + (uint64_t)hi;
    uint64_t w[4] = {(uint64_t)lo, (uint64_t)mid, (uint64_t)(hi >> 64) + (uint64_t)(mid >> 64), 0};
    int lost = 0;
    if (pos < 52) { /* bits below 2**-1074: dropped */
        long sh = 52 - pos;
        if (sh >= 192) {
            lost = (w[0] | w[1] | w[2]) != 0;
            return lost;
        }
        int q = (int)(sh / 64), r = (int)(sh % 64);
        for (int j = 0; j < q; j++)
            lost |= w[j] != 0;
        if (r)
            lost |= (w[q] & ((1ULL << r) - 1)) != 0;
        uint64_t v[4] = {0, 0, 0, 0};
        for (int j = 0; j + q < 3; j++)
            v[j] = r ? (w[j + q] >> r) | (j + q + 1 < 3 ? w[j + q + 1] << (64 - r) : 0) : w[j + q];
        memcpy(w, v, sizeof w);
        pos = 52;
    }
    int k = (int)(pos / LIMB_BITS), o = (int)(pos % LIMB_BITS);
    uint32_t c[7];
    for (int j = 0; j < 7; j++) { /* the 32-bit chunks of w 2**o */
        long b = 32L * j - o;     /* bit of w at the chunk's bit 0 */
        uint64_t x = 0;
        if (b >= 0 && b < 192) {
            int q = (int)(b / 64), r = (int)(b % 64);
            x = w[q] >> r;
            if (r > 32 && q + 1 < 4)
                x |= w[q + 1] << (64 - r);
        } else if (b < 0) {
            x = w[0] << -b;
        }
        c[j] = (uint32_t)x;
    }
    long long *L = A->limb, s = -(long long)neg;
    for (int j = 0; j < 7; j++)
        L[k + j] += ((long long)c[j] ^ s) - s;
    if (k < A->lo)
        A->lo = k;
    if (k + 6 > A->hi)
        A->hi = k + 6;
    return lost;
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

/* the accumulator emptied (its touched limbs 0) */
static void clear(acc_t *A)
{
    if (A->lo <= A->hi)
        memset(A->limb + A->lo, 0, (size_t)(A->hi - A->lo + 1) * sizeof *A->limb);
    A->lo = LIMBS;
    A->hi = -1;
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

/* ---- correctly rounded quotients of exact sums, without Python integers ----------------------------
 * Why: a per-group mean (MAE = sum w |r| / sum w, MSE = sum w r^2 / sum w) is one correctly rounded
 * quotient of two exact sums.  Handing each group's sums to Python as integers and dividing them
 * there (int / int: correctly rounded, ties to even) cost more than the sums themselves; here the
 * quotient is made from the accumulators' limbs, by the rule of CPython's long_true_divide (the
 * quotient shifted to 55 or 56 bits, its remainder a sticky bit, rounded half to even once at the
 * precision its exponent allows: subnormals rounded once too), so its bits are the bits of the
 * Python division of the same integers (tests/test_regression_means.py compares them). */

/* a nonnegative number m 2**e, m by its 32-bit limbs lowest first (n of them, the top one nonzero;
 * n 0: the number 0); room for the product of two accumulators' numbers (each below 2**(32 (LIMBS +
 * 2)), e >= 0: a product, or a sum of products aligned to one e, below 2**(64 (LIMBS + 2))), and a
 * shift */
#define NUM_LIMBS (2 * LIMBS + 16)
typedef struct {
    uint32_t d[NUM_LIMBS];
    int n;
    long e;
} num_t;

static int bitlen64(uint64_t x)
{
    return x ? 64 - __builtin_clzll(x) : 0;
}

/* the limbs d[0..n) with their zero limbs at either end dropped (e counts the low ones) */
static void trim(num_t *x)
{
    int lo = 0;
    while (x->n > 0 && x->d[x->n - 1] == 0)
        x->n--;
    while (lo < x->n && x->d[lo] == 0)
        lo++;
    if (lo) {
        memmove(x->d, x->d + lo, (size_t)(x->n - lo) * sizeof *x->d);
        x->n -= lo;
        x->e += 32L * lo;
    }
}

/* the carried accumulator's number (limbs lo..hi - 1 in [0, 2**32), limb hi signed: carry()) as its
 * sign (1: negative) and magnitude; the accumulator itself unchanged */
static int acc_number(const acc_t *A, num_t *x)
{
    x->n = 0;
    x->e = 0;
    if (A->lo > A->hi)
        return 0;
    const long long *L = A->limb;
    int n = 0;
    for (int i = A->lo; i < A->hi; i++)
        x->d[n++] = (uint32_t)(uint64_t)L[i];
    uint64_t top = (uint64_t)L[A->hi]; /* two's complement: two limbs */
    x->d[n++] = (uint32_t)top;
    x->d[n++] = (uint32_t)(top >> 32);
    int neg = L[A->hi] < 0;
    if (neg) { /* the magnitude: the two's complement negated over the n limbs */
        uint64_t c = 1;
        for (int i = 0; i < n; i++) {
            c += (uint32_t)~x->d[i];
            x->d[i] = (uint32_t)c;
            c >>= 32;
        }
    }
    x->n = n;
    x->e = 32L * A->lo;
    trim(x);
    return neg;
}

/* q = floor(u / v) and whether the remainder is not 0, u of m limbs, v of n (v's top limb nonzero,
 * m >= n), q of m - n + 1 limbs: Knuth's algorithm D (TAOCP 4.3.1) on 32-bit limbs, as Hacker's
 * Delight's divmnu writes it; u is overwritten (m + 1 limbs of room) */
static int divmod_limbs(uint32_t *q, uint32_t *u, int m, const uint32_t *v, int n)
{
    const uint64_t b = 1ULL << 32;
    if (n == 1) { /* one limb: the remainder fits a word */
        uint64_t k = 0;
        for (int j = m - 1; j >= 0; j--) {
            uint64_t t = k * b + u[j];
            q[j] = (uint32_t)(t / v[0]);
            k = t - (uint64_t)q[j] * v[0];
        }
        return k != 0;
    }
    uint32_t vn[NUM_LIMBS];
    int s = __builtin_clz(v[n - 1]); /* normalised: v's top bit set */
    for (int i = n - 1; i > 0; i--)
        vn[i] = (uint32_t)((v[i] << s) | ((uint64_t)v[i - 1] >> (32 - s)));
    vn[0] = v[0] << s;
    u[m] = (uint32_t)((uint64_t)u[m - 1] >> (32 - s));
    for (int i = m - 1; i > 0; i--)
        u[i] = (uint32_t)((u[i] << s) | ((uint64_t)u[i - 1] >> (32 - s)));
    u[0] = u[0] << s;
    for (int j = m - n; j >= 0; j--) {
        uint64_t num = (uint64_t)u[j + n] * b + u[j + n - 1];
        uint64_t qhat = num / vn[n - 1], rhat = num - qhat * vn[n - 1];
        while (qhat >= b || qhat * vn[n - 2] > b * rhat + u[j + n - 2]) {
            qhat--;
            rhat += vn[n - 1];
            if (rhat >= b)
                break;
        }
        /* u[j..j+n] -= qhat vn */
        int64_t k = 0, t;
        for (int i = 0; i < n; i++) {
            uint64_t p = qhat * vn[i];
            t = (int64_t)u[i + j] - k - (int64_t)(p & 0xffffffffULL);
            u[i + j] = (uint32_t)t;
            k = (int64_t)(p >> 32) - (t >> 32);
        }
        t = (int64_t)u[j + n] - k;
        u[j + n] = (uint32_t)t;
        q[j] = (uint32_t)qhat;
        if (t < 0) { /* qhat one too many (rare): add vn back */
            q[j]--;
            uint64_t c = 0;
            for (int i = 0; i < n; i++) {
                c += (uint64_t)u[i + j] + vn[i];
                u[i + j] = (uint32_t)c;
                c >>= 32;
            }
            u[j + n] = (uint32_t)(u[j + n] + c);
        }
    }
    int rest = 0; /* the remainder: u[0..n) (normalised, shifted: nonzero all the same) */
    for (int i = 0; i < n; i++)
        rest |= u[i] != 0;
    return rest;
}

static long num_bits(const num_t *x)
{
    return 32L * (x->n - 1) + bitlen64(x->d[x->n - 1]) + x->e;
}

/* a / b correctly rounded to float64 (ties to even, subnormals rounded once, +-inf past the range),
 * `neg` the quotient's sign, b > 0: Python's int / int of the same numbers */
static double cr_quotient(const num_t *a, int neg, const num_t *b)
{
    if (a->n == 0)
        return neg ? -0.0 : 0.0; /* 0 / b: signed as Python's */
    long diff = num_bits(a) - num_bits(b); /* 2**(diff - 1) < a / b < 2**(diff + 1) */
    if (diff > DBL_MAX_EXP)
        return neg ? -HUGE_VAL : HUGE_VAL;
    if (diff < DBL_MIN_EXP - DBL_MANT_DIG - 1) /* below half the least subnormal */
        return neg ? -0.0 : 0.0;
    /* q = floor(a / (b 2**shift)): 55 or 56 bits for a normal quotient (two below the last kept, for
     * the rounding), fewer for a subnormal one, whose last kept bit is 2**-1074 all the same */
    long shift = (diff > DBL_MIN_EXP ? diff : DBL_MIN_EXP) - DBL_MANT_DIG - 2;
    long t = a->e - b->e - shift; /* q = floor(a.m 2**t / b.m) */
    uint32_t u[NUM_LIMBS + 8], qv[NUM_LIMBS + 8];
    int m, inexact = 0;
    if (t >= 0) {
        int w = (int)(t / 32), r = (int)(t % 32);
        memset(u, 0, (size_t)w * sizeof *u);
        uint32_t carry_in = 0;
        for (int i = 0; i < a->n; i++) {
            uint64_t x = (uint64_t)a->d[i] << r;
            u[w + i] = (uint32_t)x | carry_in;
            carry_in = (uint32_t)(x >> 32);
        }
        m = w + a->n;
        u[m++] = carry_in;
    } else {
        long s = -t;
        int w = (int)(s / 32), r = (int)(s % 32);
        if (w >= a->n) { /* every bit of a shifted out: q 0, inexact */
            m = 0;
            inexact = 1;
        } else {
            for (int i = 0; i < w; i++)
                inexact |= a->d[i] != 0;
            if (r)
                inexact |= (a->d[w] & ((1U << r) - 1)) != 0;
            m = a->n - w;
            for (int i = 0; i < m; i++) {
                uint64_t x = a->d[w + i] >> r;
                if (r && w + i + 1 < a->n)
                    x |= (uint64_t)a->d[w + i + 1] << (32 - r);
                u[i] = (uint32_t)x;
            }
        }
    }
    while (m > 0 && u[m - 1] == 0)
        m--;
    uint64_t q = 0;
    if (m >= b->n) {
        inexact |= divmod_limbs(qv, u, m, b->d, b->n);
        for (int j = m - b->n; j >= 0; j--) /* at most 56 bits: the top limbs are 0 */
            q = q << 32 | qv[j];
    } else if (m > 0) {
        inexact = 1; /* u < b: q 0 */
    }
    int qbits = bitlen64(q);
    long keep = DBL_MIN_EXP - shift; /* the bits of q down to 2**-1074 */
    int extra = (int)((qbits > keep ? qbits : keep) - DBL_MANT_DIG); /* 2 or 3 */
    uint64_t mask = 1ULL << (extra - 1), low = q | (uint64_t)inexact;
    if ((low & mask) && (low & (3 * mask - 1))) /* above half, or half and the last kept bit odd */
        low += mask;
    q = low & ~(2 * mask - 1);
    double x = ldexp((double)q, (int)shift); /* exact, or inf past the range */
    return neg ? -x : x;
}

/* r = a b (magnitudes; r neither a nor b) */
static void num_mul(num_t *r, const num_t *a, const num_t *b)
{
    r->n = 0;
    r->e = 0;
    if (!a->n || !b->n)
        return;
    memset(r->d, 0, (size_t)(a->n + b->n) * sizeof *r->d);
    for (int i = 0; i < a->n; i++) {
        uint64_t c = 0;
        for (int j = 0; j < b->n; j++) {
            c += (uint64_t)a->d[i] * b->d[j] + r->d[i + j];
            r->d[i + j] = (uint32_t)c;
            c >>= 32;
        }
        r->d[i + b->n] = (uint32_t)c;
    }
    r->n = a->n + b->n;
    r->e = a->e + b->e;
    trim(r);
}

/* x's limbs shifted left by `bits` into out (n limbs returned): x 2**bits at x's e - bits */
static int num_shifted(uint32_t *out, const num_t *x, long bits)
{
    int w = (int)(bits / 32), r = (int)(bits % 32);
    memset(out, 0, (size_t)w * sizeof *out);
    uint32_t c = 0;
    for (int i = 0; i < x->n; i++) {
        uint64_t v = (uint64_t)x->d[i] << r;
        out[w + i] = (uint32_t)v | c;
        c = (uint32_t)(v >> 32);
    }
    out[w + x->n] = c;
    return w + x->n + 1;
}

/* r = (-1)**an a + (-1)**bn b, its sign returned (r neither a nor b): both brought to the smaller e */
static int num_add(num_t *r, const num_t *a, int an, const num_t *b, int bn)
{
    if (!b->n) {
        *r = *a;
        return a->n ? an : 0;
    }
    if (!a->n) {
        *r = *b;
        return bn;
    }
    long e = a->e < b->e ? a->e : b->e;
    uint32_t x[NUM_LIMBS + 2], y[NUM_LIMBS + 2];
    int nx = num_shifted(x, a, a->e - e), ny = num_shifted(y, b, b->e - e), n = nx > ny ? nx : ny;
    memset(x + nx, 0, (size_t)(n - nx) * sizeof *x);
    memset(y + ny, 0, (size_t)(n - ny) * sizeof *y);
    int neg = an;
    if (an == bn) {
        uint64_t c = 0;
        for (int i = 0; i < n; i++) {
            c += (uint64_t)x[i] + y[i];
            r->d[i] = (uint32_t)c;
            c >>= 32;
        }
        r->d[n++] = (uint32_t)c;
    } else { /* the larger magnitude less the smaller, the larger's sign */
        int i = n - 1;
        while (i >= 0 && x[i] == y[i])
            i--;
        const uint32_t *big = x, *small = y;
        if (i >= 0 && x[i] < y[i]) {
            big = y;
            small = x;
            neg = bn;
        }
        int64_t c = 0;
        for (int k = 0; k < n; k++) {
            c += (int64_t)big[k] - small[k];
            r->d[k] = (uint32_t)c;
            c >>= 32; /* arithmetic: -1 borrows */
        }
    }
    r->n = n;
    r->e = e;
    trim(r);
    return r->n ? neg : 0;
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

/* the exponent of a finite nonzero float64's lowest set bit (x = odd 2**lastbit) */
static inline int lastbit(double x)
{
    uint64_t bits, m = 0;
    memcpy(&bits, &x, sizeof bits);
    int pos = position(bits, &m);
    return pos - 1126 + __builtin_ctzll(m);
}

/* 1 if two_product(a, b) = p (p = fl(a b)) is not exact: a b has bits below 2**-1074, float64's last,
 * so its error term (or a partial product of the split) underflows and p + e is not a b.  Exact iff
 * a or b is 0 or lastbit(a) + lastbit(b) >= -1074 (then every partial product of the split is a
 * multiple of 2**-1074 of at most 53 bits); |p| >= 2**-968 always is (the exponents of a and b then
 * add to at least -969, their last bits to at least -1073): that test first, the common case.  A p or
 * a factor that is not finite is the range's error, not this one (0). */
static inline int tp_lost(double a, double b, double p)
{
    if (!(fabs(p) < 0x1p-968) || a == 0.0 || b == 0.0 || !isfinite(a) || !isfinite(b))
        return 0;
    return lastbit(a) + lastbit(b) < -1074;
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

/* exact_sums(bounds, a[, b[, c[, drop[, lost]]]]) -> list of int, or None.
 * bounds: int64 offsets of the groups' rows ([0, n] or None: one group of every row); a, b, c float64
 * columns of one length (b and c may be None).  Each group's sum of its rows' terms times 2**1126,
 * divided by 2**drop (0 <= drop < 1126: the caller knows the terms are multiples of 2**(drop - 1126);
 * a SystemError if not): smaller integers, for a caller that only divides sums by sums.  drop -1:
 * the kernel finds it (the largest it can prove from the factors' smallest last bits: every float64
 * operation's result is a multiple of 2**d when its operands' exact result is, and every float64 a
 * multiple of 2**-1074) and returns (list, drop).  lost 1: the answer as a tuple with one more entry,
 * (list, lost) or (list, drop, lost), lost True if a product of some row lost bits below 2**-1074
 * (tp_lost: its terms are not the exact product, so neither is the sum; the caller says so); lost 2:
 * that entry is each group's flag instead, G bytes (1: that group's sum is not exact).  A row whose
 * last factor is 0 adds terms of 0, exact whatever a partial product lost (a weight of 0). */
PyObject *nv_exact_sums(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *bo, *ao, *b_o = Py_None, *co = Py_None;
    int drop = 0, want_lost = 0, lost = 0;
    if (!PyArg_ParseTuple(args, "OO|OOii", &bo, &ao, &b_o, &co, &drop, &want_lost))
        return NULL;
    if (drop < -1 || drop >= 1126) {
        PyErr_SetString(PyExc_ValueError, "exact_sums: drop must be in 0..1125, or -1");
        return NULL;
    }
    if (want_lost < 0 || want_lost > 2) {
        PyErr_SetString(PyExc_ValueError, "exact_sums: lost must be 0, 1 or 2");
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
        G = nv_group_bounds(&in, (const int64_t *)bounds, in.n[0], n, "exact_sums");
        if (G < 0)
            return NULL;
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
    PyObject *flags = out && want_lost == 2 ? PyBytes_FromStringAndSize(NULL, G) : NULL;
    if (out && want_lost == 2 && !flags)
        Py_CLEAR(out);
    char *flag = flags ? PyBytes_AS_STRING(flags) : NULL;
    for (Py_ssize_t g = 0; out && g < G; g++) {
        long long since = 0;
        int r = 0, gl = 0;
        for (Py_ssize_t i = bounds[g]; i < bounds[g + 1] && !r; i++) {
            if (nf == 1) {
                r = add_term(&A, a[i]);
                since += 1;
            } else if (nf == 2) {
                double e, p = two_product(a[i], b[i], &e);
                if (isfinite(p) && isfinite(e)) {
                    gl |= tp_lost(a[i], b[i], p);
                    r = add_term(&A, p) | add_term(&A, e);
                } else if (isfinite(a[i]) && isfinite(b[i])) { /* beyond the range: exact all the same */
                    double f[2] = {a[i], b[i]};
                    gl |= add_product(&A, f, 2);
                } else {
                    r = -1;
                }
                since += 2;
            } else {
                double e1, p1 = two_product(a[i], b[i], &e1), e2, e3;
                double p2 = two_product(p1, c[i], &e2), p3 = two_product(e1, c[i], &e3);
                if (isfinite(p2) && isfinite(e2) && isfinite(p3) && isfinite(e3)) {
                    if (c[i] != 0.0) /* times 0: every term 0, exact */
                        gl |= tp_lost(a[i], b[i], p1) | tp_lost(p1, c[i], p2) | tp_lost(e1, c[i], p3);
                    r = add_term(&A, p2) | add_term(&A, e2) | add_term(&A, p3) | add_term(&A, e3);
                } else if (isfinite(a[i]) && isfinite(b[i]) && isfinite(c[i])) { /* beyond the range */
                    double f[3] = {a[i], b[i], c[i]};
                    gl |= add_product(&A, f, 3);
                } else {
                    r = -1;
                }
                since += 4;
            }
            if (since >= CARRY_EVERY) {
                carry(&A);
                since = 0;
            }
        }
        if (r) { /* a term beyond float64's range */
            Py_DECREF(out);
            Py_XDECREF(flags);
            nv_args_release(&in);
            Py_RETURN_NONE;
        }
        if (flag)
            flag[g] = (char)gl;
        lost |= gl;
        PyObject *v = to_int(&A, drop);
        if (!v) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, g, v);
    }
    nv_args_release(&in);
    if (!out) {
        Py_XDECREF(flags);
        return NULL;
    }
    PyObject *said = want_lost == 2 ? flags : want_lost ? PyBool_FromLong(lost) : NULL;
    if (automatic)
        return said ? Py_BuildValue("(NiN)", out, drop, said) : Py_BuildValue("(Ni)", out, drop);
    if (said)
        return Py_BuildValue("(NN)", out, said);
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

/* the sums of regression_sums, in this order (bit k of `mask`: sum k is made); RS_T: the scratch
 * numbers of a group's fractions */
enum { RS_SY, RS_SYY, RS_SR, RS_SRR, RS_SABS, RS_SPOS, RS_SAPE, RS_W, RS_N };
#define RS_T 7

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

/* one share of regression_sums' groups: its accumulators, what it reads and where it writes */
typedef struct {
    const double *y, *yh, *w;
    const long long *ord, *bounds;
    Py_ssize_t g0, g1, hi; /* its groups [g0, g1); hi: the end of every group's rows */
    int use, mask, pre;    /* the sums added, those made into integers, the differences checked already */
    acc_t *A;              /* RS_N accumulators */
    num_t *num, *den, *T; /* T: RS_T numbers of scratch for the fractions */
    double *quot[RS_N]; /* each group's quotient of sum k by the weights' (NULL: not asked) */
    double *frac[2];    /* each group's R2 and explained variance (NULL: not asked) */
    int bad;            /* 1: a difference or a product beyond float64's range; 2: a weights' sum below 0 */
    int lost;           /* bit k: a product of sum k lost bits below 2**-1074 (tp_lost); bit RS_N: a
                           row's ratio of MAPE (of weight > 0) is beyond float64's range, left out */
    int32_t *glost;     /* each group's own such bits */
} rs_job;

/* group g's rows added into the job's accumulators (the terms of each sum in `use`); nonzero if a
 * difference (when not checked before) or a term is beyond float64's range */
static int rs_rows(rs_job *J, Py_ssize_t g)
{
    const double *y = J->y, *yh = J->yh, *w = J->w, eps = DBL_EPSILON;
    const long long *ord = J->ord;
    acc_t *A = J->A;
    int use = J->use, bad = 0, lost = 0;
    long long since = 0;
    for (Py_ssize_t ii = J->bounds[g]; ii < J->bounds[g + 1]; ii++) {
        Py_ssize_t i = ord ? (Py_ssize_t)ord[ii] : ii;
        if (ord && ii + 16 < J->hi) { /* the rows come in random order: their reads started early */
            Py_ssize_t k = ord[ii + 16];
            __builtin_prefetch(y + k);
            __builtin_prefetch(yh + k);
            if (w)
                __builtin_prefetch(w + k);
        }
        double yi = y[i], r = yi - yh[i], a = fabs(r), ape = 0.0;
        /* MAPE's ratio only when asked (a ratio past the range: said, bit RS_N, and left out: the
         * measures that read it are NaN, the others are not concerned) */
        if (use & (1 << RS_SAPE))
            ape = a / fmax(fabs(yi), eps);
        if (!J->pre && !isfinite(r))
            bad = 1;
        double t[4];
        int nt;
#define RS_ADD(K, X)                                                                                               \
    if (w) {                                                                                                       \
        t[0] = two_product((X), w[i], &t[1]);                                                                      \
        if (isfinite(t[0]) && isfinite(t[1])) {                                                                    \
            lost |= tp_lost((X), w[i], t[0]) << (K);                                                               \
            bad |= add_term(&A[K], t[0]) | add_term(&A[K], t[1]);                                                  \
        } else if (isfinite(X)) { /* beyond the range: exact all the same */                                       \
            double f[2] = {(X), w[i]};                                                                             \
            lost |= add_product(&A[K], f, 2) << (K);                                                               \
        } else                                                                                                     \
            bad = 1;                                                                                               \
    } else                                                                                                         \
        bad |= add_term(&A[K], (X));
#define RS_ADD2(K, X)                                                                                              \
    {                                                                                                              \
        double e1, p1 = two_product((X), (X), &e1);                                                                \
        int l = tp_lost((X), (X), p1);                                                                             \
        if (w) {                                                                                                   \
            t[0] = two_product(p1, w[i], &t[1]);                                                                   \
            t[2] = two_product(e1, w[i], &t[3]);                                                                   \
            l = w[i] == 0.0 ? 0 : l | tp_lost(p1, w[i], t[0]) | tp_lost(e1, w[i], t[2]); /* times 0: exact */   \
            nt = 4;                                                                                                \
        } else {                                                                                                   \
            t[0] = p1;                                                                                             \
            t[1] = e1;                                                                                             \
            nt = 2;                                                                                                \
        }                                                                                                          \
        int fin = isfinite(X);                                                                                     \
        for (int j = 0; j < nt; j++)                                                                               \
            fin &= isfinite(t[j]);                                                                                 \
        if (fin) {                                                                                                 \
            lost |= l << (K);                                                                                      \
            for (int j = 0; j < nt; j++)                                                                           \
                bad |= add_term(&A[K], t[j]);                                                                      \
        } else if (isfinite(X)) { /* beyond the range (or a split that is): exact all the same */                  \
            double f[3] = {(X), (X), w ? w[i] : 1.0};                                                              \
            lost |= add_product(&A[K], f, w ? 3 : 2) << (K);                                                       \
        } else                                                                                                     \
            bad = 1;                                                                                               \
    }
        if (use & (1 << RS_SY)) {
            RS_ADD(RS_SY, yi)
        }
        if (use & (1 << RS_SYY))
            RS_ADD2(RS_SYY, yi)
        if (use & (1 << RS_SR)) {
            RS_ADD(RS_SR, r)
        }
        if (use & (1 << RS_SRR))
            RS_ADD2(RS_SRR, r)
        if (use & (1 << RS_SABS)) {
            RS_ADD(RS_SABS, a)
        }
        if (use & (1 << RS_SPOS)) {
            RS_ADD(RS_SPOS, fmax(r, 0.0))
        }
        if (use & (1 << RS_SAPE)) {
            if (isfinite(ape)) {
                RS_ADD(RS_SAPE, ape)
            } else if (!w || w[i] > 0.0)
                lost |= 1 << RS_N;
        }
        if (use & (1 << RS_W))
            bad |= add_term(&A[RS_W], w ? w[i] : 1.0);
#undef RS_ADD
#undef RS_ADD2
        if (++since >= CARRY_EVERY / 4) {
            for (int k = 0; k < RS_N; k++)
                carry(&A[k]);
            since = 0;
        }
    }
    J->lost |= lost;
    J->glost[g] = lost;
    return bad;
}

/* group g's quotients written (each sum asked over the weights' sum, or the rows': cr_quotient; NaN
 * where that is 0), then the accumulators not made into integers cleared (the others: to_int);
 * 2 if the weights' sum is below 0 (weights are >= 0: it never is), else 0 */
static int rs_quotients(rs_job *J, Py_ssize_t g)
{
    int asked = J->frac[0] || J->frac[1];
    for (int k = 0; k < RS_N; k++)
        asked |= J->quot[k] != NULL;
    if (!asked)
        return 0;
    acc_t *A = J->A;
    num_t *den = J->den;
    if (J->w) {
        carry(&A[RS_W]);
        if (acc_number(&A[RS_W], den))
            return 2;
    } else { /* the rows' number, 1 a row: 2**1126 in the accumulators' unit */
        uint64_t c = (uint64_t)(J->bounds[g + 1] - J->bounds[g]);
        den->d[0] = (uint32_t)c;
        den->d[1] = (uint32_t)(c >> 32);
        den->n = 2;
        den->e = 1126;
        trim(den);
    }
    for (int k = 0; k < RS_N; k++) {
        if (!J->quot[k])
            continue;
        carry(&A[k]);
        int neg = acc_number(&A[k], J->num);
        J->quot[k][g] = den->n ? cr_quotient(J->num, neg, den) : NAN;
    }
    if (J->frac[0] || J->frac[1]) { /* as engine/regression.py's _group_value, on the exact sums */
        num_t *T = J->T;
        carry(&A[RS_SY]);
        acc_number(&A[RS_SY], &T[0]); /* its sign: squared */
        int syy = (carry(&A[RS_SYY]), acc_number(&A[RS_SYY], &T[1]));
        int srr = (carry(&A[RS_SRR]), acc_number(&A[RS_SRR], &T[2]));
        num_mul(&T[3], den, &T[1]); /* W syy (W >= 0) */
        num_mul(&T[4], &T[0], &T[0]);
        int dn = num_add(&T[5], &T[3], syy, &T[4], 1); /* the spread: W syy - sy^2, T[5] */
        num_mul(&T[3], &T[2], den);                    /* srr W */
        if (J->frac[0]) {                              /* R2: (spread - srr W) / spread */
            int nn = num_add(&T[6], &T[5], dn, &T[3], !srr);
            J->frac[0][g] = T[5].n ? cr_quotient(&T[6], nn ^ dn, &T[5]) : NAN;
        }
        if (J->frac[1]) { /* explained variance: (spread - (W srr - sr^2)) / spread */
            carry(&A[RS_SR]);
            acc_number(&A[RS_SR], &T[0]); /* its sign: squared */
            num_mul(&T[4], &T[0], &T[0]);
            int xn = num_add(&T[1], &T[3], srr, &T[4], 1);
            int nn = num_add(&T[6], &T[5], dn, &T[1], !xn);
            J->frac[1][g] = T[5].n ? cr_quotient(&T[6], nn ^ dn, &T[5]) : NAN;
        }
    }
    for (int k = 0; k < RS_N; k++)
        if (!(J->mask & (1 << k)))
            clear(&A[k]);
    return 0;
}

/* every group of the job, its quotients only (no Python object: run without the GIL); stops at the
 * first group beyond the range (J->bad) */
static void *rs_groups(void *arg)
{
    rs_job *J = arg;
    for (Py_ssize_t g = J->g0; g < J->g1 && !J->bad; g++)
        J->bad = rs_rows(J, g) ? 1 : rs_quotients(J, g);
    return NULL;
}

/* 1 if a row of [lo, hi) (read through `ord` if not NULL) has a difference y - yhat beyond float64's
 * range, else 0 */
static int diffs_code(const double *y, const double *yh, const long long *ord, Py_ssize_t lo, Py_ssize_t hi)
{
    for (Py_ssize_t i = lo; i < hi; i++) {
        Py_ssize_t j = ord ? (Py_ssize_t)ord[i] : i;
        if (!isfinite(y[j] - yh[j]))
            return 1;
    }
    return 0;
}

/* regression_sums(bounds, y, yhat, w, mask, scaled[, means[, order[, fracs]]]) -> (sums, drops[,
 * quotients], lost, glost) or an int code.
 * Each group's sums of w y, w y^2, w r, w r^2, w |r|, w max(r, 0), w |r| / max(|y|, eps) and w (r =
 * y - yhat, each row's own rounded difference; w absent: 1), the products exact as exact_sums makes
 * them (the same terms: two_product(y, y) then each times w, ...), in one pass without the n-sized
 * temporaries of the numpy expressions.  sums: a list per sum (None for a sum not in `mask`) of each
 * group's integer, the exact sum times 2**1126, divided by 2**drops[k] when `scaled`, else drops 0.
 * Scaled, every sum asked has one drop: the smallest of the bounds exact_sums(drop=-1) finds for
 * each (from the smallest last bits of y, r, |r| / max(|y|, eps) and w; 1 a row is 2**0).
 * means: a mask like `mask` of the sums whose quotient by the weights' sum (no weights: the rows')
 * each group wants, correctly rounded (cr_quotient: the bits of Python's int / int of the two sums;
 * NaN where the weights' sum is 0): quotients, a tuple like sums of float64 bytes, G a sum asked (a
 * sum only in `means` is made into no integer).
 * quotients has two more entries: each group's R2 and explained variance when bits 0 and 1 of `fracs`
 * ask for them ((spread - srr W) / spread and (spread - (W srr - sr^2)) / spread, spread = W syy -
 * sy^2, each correctly rounded from the exact sums, NaN where the spread is 0: _group_value's rule).
 * order: None, or int64 row numbers (a permutation's bytes: group_order's): the rows read in that order,
 * row i of the groups being y[order[i]] (no gathered copies of the columns: the reads prefetched).
 * lost: bit k set when a product of sum k (of any group; made as an integer, a quotient or for a
 * fraction) lost bits below 2**-1074 (tp_lost): that sum, and the quotients and fractions read from
 * it, are not the exact numbers, and the caller makes the measures that read it NaN, with why (a sum
 * without a product, unweighted w y, w r, w |r|, ..., never loses a bit; nor a row of weight 0).
 * glost: each group's own such bits, G int32 (bytes): per group, only the groups that lost them are
 * NaN.  Said (summaries/regression.py, lost_reason), not computed on the targets and predictions
 * scaled by a power of two (exact, and R2 and the explained variance do not change with it): a stream, a Metric or a Dask partition sees its rows
 * one part at a time, and the scale that would save every part is known only once every part is in,
 * while their sums must merge with the same bits in any order; and MSE, RMSE, the deviances would
 * have to be scaled back, correctly rounded only where the value is a normal float64.  Only data of
 * about 1e-150 or smaller (a square's last bits below 2**-1074), subnormals, or such residuals times
 * small weights are NaN; the common case costs one comparison a product (|p| >= 2**-968).
 * lost's bit RS_N (and glost's): a row's ratio of MAPE, |r| / max(|y|, eps), of weight > 0, is beyond
 * float64's range (made only when sum RS_SAPE is asked): left out of the sum, whose measures (MAPE)
 * the caller makes NaN with why; no other sum is concerned.
 * Codes: 1, a target minus its prediction beyond float64's range; 2, a product beyond it (code 1
 * first, as the numpy form checks r before any product). */
PyObject *nv_regression_sums(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *bo, *yo, *po, *wo, *oo = Py_None;
    int mask, scaled, means = 0, fracs = 0;
    if (!PyArg_ParseTuple(args, "OOOOip|iOi", &bo, &yo, &po, &wo, &mask, &scaled, &means, &oo, &fracs))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, bo, NV_RAW8 | NV_OPTIONAL) < 0 || nv_arg(&in, yo, NV_F64) < 0 || nv_arg(&in, po, NV_F64) < 0 ||
        nv_arg(&in, wo, NV_F64 | NV_OPTIONAL) < 0 || nv_arg(&in, oo, NV_RAW8 | NV_OPTIONAL) < 0)
        return NULL;
    Py_ssize_t n = in.n[1];
    const long long *ord = in.v[4].buf;
    if (in.n[2] != n || (in.v[3].buf && in.n[3] != n) || (ord && in.n[4] != n)) {
        nv_args_fail(&in, PyExc_ValueError, "regression_sums: the columns must be of one length");
        return NULL;
    }
    const long long *bounds = in.v[0].buf;
    long long whole[2] = {0, (long long)n};
    Py_ssize_t G = 1;
    if (bounds) {
        G = nv_group_bounds(&in, (const int64_t *)bounds, in.n[0], n, "regression_sums");
        if (G < 0)
            return NULL;
    } else {
        bounds = whole;
    }
    for (Py_ssize_t i = 0; ord && i < n; i++) {
        if (ord[i] < 0 || ord[i] >= n) {
            nv_args_fail(&in, PyExc_ValueError, "regression_sums: order must hold row numbers");
            return NULL;
        }
    }
    const double *y = in.v[1].buf, *yh = in.v[2].buf, *w = in.v[3].buf;
    const double eps = DBL_EPSILON;
    Py_ssize_t lo = G ? bounds[0] : 0, hi = G ? bounds[G] : 0;
    /* the differences first: any not finite is code 1 whatever the products do.  A pass of its own
     * when the integers are scaled (it finds the scale); else the sums' pass checks them as it goes,
     * and this pass runs only if a product is beyond the range (code 1 still first) */
    int lows[4] = {1 << 20, 1 << 20, 1 << 20, 1 << 20}; /* y, r, ape, w */
    int code = 0, pre = scaled && mask;
    if (pre) {
        NOGIL_BEGIN
        for (Py_ssize_t i = lo; i < hi; i++) {
            Py_ssize_t j = ord ? (Py_ssize_t)ord[i] : i;
            double r = y[j] - yh[j];
            if (!isfinite(r)) {
                code = 1;
                break;
            }
            if (scaled) {
                lows[0] = lowest_of(y[j], lows[0]);
                lows[1] = lowest_of(r, lows[1]);
                if (mask & (1 << RS_SAPE)) { /* a ratio past the range is left out of the sum */
                    double ape = fabs(r) / fmax(fabs(y[j]), eps);
                    if (isfinite(ape))
                        lows[2] = lowest_of(ape, lows[2]);
                }
                if (w)
                    lows[3] = lowest_of(w[j], lows[3]);
            }
        }
        NOGIL_END
    }
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
    /* the sums added up: those asked as integers, as quotients, and the weights' of a quotient */
    int use = mask | means | ((means || fracs) && w ? 1 << RS_W : 0);
    if (fracs)
        use |= 1 << RS_SY | 1 << RS_SYY | 1 << RS_SRR | (fracs & 2 ? 1 << RS_SR : 0);
    rs_job jobs[2];
    memset(jobs, 0, sizeof jobs);
    acc_t *A = PyMem_RawMalloc(2 * RS_N * sizeof(acc_t));
    num_t *num = PyMem_RawMalloc(2 * (2 + RS_T) * sizeof(num_t));
    PyObject *lists[RS_N] = {0}, *quot[RS_N + 2] = {0};
    PyObject *glost = PyBytes_FromStringAndSize(NULL, G * (Py_ssize_t)sizeof(int32_t));
    if (!A || !num || !glost) {
        PyMem_RawFree(A);
        PyMem_RawFree(num);
        Py_XDECREF(glost);
        nv_args_release(&in);
        return glost ? PyErr_NoMemory() : NULL;
    }
    if (G)
        memset(PyBytes_AS_STRING(glost), 0, G * sizeof(int32_t));
    for (int k = 0; k < 2 * RS_N; k++) {
        memset(A[k].limb, 0, sizeof A[k].limb);
        A[k].lo = LIMBS;
        A[k].hi = -1;
    }
    for (int k = 0; k < RS_N; k++) {
        if (mask & (1 << k)) {
            lists[k] = PyList_New(G);
            if (!lists[k])
                goto fail;
        }
        if (means & (1 << k)) {
            quot[k] = PyBytes_FromStringAndSize(NULL, G * (Py_ssize_t)sizeof(double));
            if (!quot[k])
                goto fail;
        }
    }
    for (int f = 0; f < 2; f++) {
        if (fracs & (1 << f)) {
            quot[RS_N + f] = PyBytes_FromStringAndSize(NULL, G * (Py_ssize_t)sizeof(double));
            if (!quot[RS_N + f])
                goto fail;
        }
    }
    for (int t = 0; t < 2; t++) {
        rs_job *J = &jobs[t];
        J->y = y, J->yh = yh, J->w = w, J->ord = ord, J->bounds = bounds, J->hi = hi;
        J->use = use, J->mask = mask, J->pre = pre;
        J->glost = (int32_t *)PyBytes_AS_STRING(glost);
        J->A = A + t * RS_N;
        J->num = num + (2 + RS_T) * t, J->den = J->num + 1, J->T = J->num + 2;
        for (int k = 0; k < RS_N; k++)
            J->quot[k] = quot[k] ? (double *)PyBytes_AS_STRING(quot[k]) : NULL;
        for (int f = 0; f < 2; f++)
            J->frac[f] = quot[RS_N + f] ? (double *)PyBytes_AS_STRING(quot[RS_N + f]) : NULL;
    }
    int bad = 0, lost = 0;
    if (!mask) { /* quotients only: no Python object made, the groups in two halves on two threads */
        Py_ssize_t mid = 0;
        while (mid < G && bounds[mid] < lo + (hi - lo) / 2)
            mid++;
        jobs[0].g0 = 0, jobs[0].g1 = mid, jobs[1].g0 = mid, jobs[1].g1 = G;
        NOGIL_BEGIN
        pthread_t th;
        int threaded = hi - lo > 100000 && G > 1 && pthread_create(&th, NULL, rs_groups, &jobs[1]) == 0;
        rs_groups(&jobs[0]);
        if (threaded)
            pthread_join(th, NULL);
        else
            rs_groups(&jobs[1]);
        NOGIL_END
        bad = jobs[0].bad ? jobs[0].bad : jobs[1].bad;
        lost = jobs[0].lost | jobs[1].lost;
    } else { /* the integers made group by group, with the GIL */
        rs_job *J = &jobs[0];
        for (Py_ssize_t g = 0; g < G && !bad; g++) {
            bad = rs_rows(J, g) ? 1 : rs_quotients(J, g);
            for (int k = 0; k < RS_N && !bad; k++) {
                if (!lists[k])
                    continue;
                PyObject *v = to_int(&J->A[k], drops[k]);
                if (!v)
                    goto fail;
                PyList_SET_ITEM(lists[k], g, v);
            }
        }
        lost = J->lost;
    }
    if (bad == 2) {
        PyErr_SetString(PyExc_ValueError, "regression_sums: a negative sum of weights");
        goto fail;
    }
    if (bad) { /* a difference or a product beyond float64's range */
        for (int k = 0; k < RS_N + 2; k++) {
            Py_XDECREF(k < RS_N ? lists[k] : NULL);
            Py_XDECREF(quot[k]);
        }
        PyMem_RawFree(A);
        PyMem_RawFree(num);
        Py_DECREF(glost);
        /* the differences not checked first: whether one is beyond the range (code 1 first) */
        code = pre ? 2 : diffs_code(y, yh, ord, lo, hi);
        nv_args_release(&in);
        return PyLong_FromLong(code ? code : 2);
    }
    PyMem_RawFree(A);
    PyMem_RawFree(num);
    nv_args_release(&in);
    PyObject *sums = PyTuple_New(RS_N), *dr = PyTuple_New(RS_N), *qs = PyTuple_New(RS_N + 2);
    if (!sums || !dr || !qs) {
        Py_XDECREF(sums);
        Py_XDECREF(dr);
        Py_XDECREF(qs);
        Py_DECREF(glost);
        for (int k = 0; k < RS_N + 2; k++) {
            Py_XDECREF(k < RS_N ? lists[k] : NULL);
            Py_XDECREF(quot[k]);
        }
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
    for (int k = 0; k < RS_N + 2; k++) {
        if (!quot[k]) {
            Py_INCREF(Py_None);
            quot[k] = Py_None;
        }
        PyTuple_SET_ITEM(qs, k, quot[k]);
    }
    if (PyTuple_GET_SIZE(args) < 7) { /* no `means` given: no quotients */
        Py_DECREF(qs);
        return Py_BuildValue("(NNiN)", sums, dr, lost, glost);
    }
    return Py_BuildValue("(NNNiN)", sums, dr, qs, lost, glost);
fail:
    for (int k = 0; k < RS_N + 2; k++) {
        Py_XDECREF(k < RS_N ? lists[k] : NULL);
        Py_XDECREF(quot[k]);
    }
    Py_XDECREF(glost);
    PyMem_RawFree(num);
    PyMem_RawFree(A);
    nv_args_release(&in);
    return NULL;
}

/* a Python integer's magnitude as a num_t (at most NUM_LIMBS - 12 limbs: room for cr_quotient's
 * shifts); its sign, or -1 with an exception set */
static int int_number(PyObject *v, num_t *x)
{
    if (!PyLong_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "divide_ints: integers only");
        return -1;
    }
    int neg = _PyLong_Sign(v) < 0;
    PyObject *a = PyNumber_Absolute(v);
    if (!a)
        return -1;
    size_t bits = _PyLong_NumBits(a), n = (bits + 31) / 32;
    if (n > NUM_LIMBS - 12) {
        Py_DECREF(a);
        PyErr_SetString(PyExc_ValueError, "divide_ints: an integer too large");
        return -1;
    }
    unsigned char bytes[NUM_LIMBS * 4];
    memset(bytes, 0, sizeof bytes);
    int r = _PyLong_AsByteArray((PyLongObject *)a, bytes, n * 4, 1, 0);
    Py_DECREF(a);
    if (r < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        x->d[i] = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 | (uint32_t)bytes[4 * i + 2] << 16 |
                  (uint32_t)bytes[4 * i + 3] << 24;
    x->n = (int)n;
    x->e = 0;
    trim(x);
    return neg;
}

/* divide_ints(a, b) -> float: regression_sums' quotient (cr_quotient) of two Python integers, for
 * the tests to hold against Python's a / b (NaN where b is 0, +-inf past the range, as
 * summaries/regression.py's ratio) */
PyObject *nv_divide_ints(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ao, *bo;
    if (!PyArg_ParseTuple(args, "OO", &ao, &bo))
        return NULL;
    num_t *x = PyMem_RawMalloc(2 * sizeof(num_t));
    if (!x)
        return PyErr_NoMemory();
    int na = int_number(ao, x), nb = na < 0 ? -1 : int_number(bo, x + 1);
    double q = 0.0;
    if (nb >= 0)
        q = x[1].n ? cr_quotient(x, na ^ nb, x + 1) : NAN;
    PyMem_RawFree(x);
    return nb < 0 ? NULL : PyFloat_FromDouble(q);
}
