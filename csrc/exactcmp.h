/*
 * perfeval._native, exactcmp.h: whether an operating point meets its target EXACTLY (issue 33).
 *
 * An operating point at a target (TPR at FPR <= a, sensitivity at specificity >= s, specificity at
 * sensitivity >= s, precision at recall >= r, recall at precision >= p) meets it when its rate,
 * computed exactly from the summary's weights (the exact sums of the cells' float64 weights, the
 * exact ratio), meets the target read as the decimal it is written as: the shortest decimal that
 * reads back to the target's float64 (Python's repr; 0.1 is 1/10), M 10**-D.  The float rates the
 * measures report are rounded (a cumulative sum of fractional weights, a division), and a rate that
 * equals its target exactly (FP/N = 1/10) can come out an ulp on either side of it; the walks decide
 * by the float rate where it is far from the target (operating.c, walk.h: their error bounds), and
 * here where it is not.
 *
 * The rules, with TP, FP, P, N the exact sums (TN = N - FP):
 *   XC_FPR_LE  FP 10**D <= M N          (TPR at FPR)
 *   XC_SPC_GE  TN 10**D >= M N          (sensitivity at specificity)
 *   XC_SEN_GE  TP 10**D >= M P          (specificity at sensitivity, precision at recall)
 *   XC_PRE_GE  TP 10**D >= M (TP + FP)  (recall at precision; TP + FP > 0)
 * So TPR at FPR <= a and sensitivity at specificity >= s are one rule where a + s = 1 as decimals.
 *
 * The sums are kept exactly in an accumulator of 32-bit limbs in int64 (Neal's small
 * superaccumulator, as exact.c's: the lowest bit of limb 0 is 2**-1126, below every float64's last
 * bit), and compared as whole numbers (little-endian 32-bit digits).  Included by operating.c and
 * resample.c: static functions, prefix xc_.
 */
#ifndef PERFEVAL_EXACTCMP_H
#define PERFEVAL_EXACTCMP_H

enum { XC_FPR_LE, XC_SPC_GE, XC_SEN_GE, XC_REC_GE, XC_PRE_GE };

#define XC_LIMBS 72 /* up to 2**1024 and the carries of 2**60 terms, as exact.c's */
#define XC_CARRY_EVERY (1LL << 30)

typedef struct {
    long long limb[XC_LIMBS];
    int lo, hi;     /* the limbs touched since the last clear (lo > hi: none) */
    long long adds; /* terms since the last carry */
} xc_acc;

static inline void xc_clear(xc_acc *A)
{
    memset(A->limb, 0, sizeof A->limb);
    A->lo = XC_LIMBS;
    A->hi = -1;
    A->adds = 0;
}

/* the limbs in [0, 2**32), every carry moved up (the accumulator's value is >= 0) */
static void xc_norm(xc_acc *A)
{
    long long *L = A->limb;
    for (int i = A->lo; i <= A->hi && i < XC_LIMBS - 1; i++) {
        long long c = L[i] >> 32; /* floor division */
        L[i] -= c * (1LL << 32);
        L[i + 1] += c;
        if (c && i == A->hi)
            A->hi = i + 1;
    }
    A->adds = 0;
}

/* x (finite, >= 0) added exactly; -1 for a value that is not (the caller decides by the floats) */
static inline int xc_add(xc_acc *A, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    if (bits >> 63 || x != x || x == INFINITY)
        return x == 0 ? 0 : -1; /* -0.0 adds nothing */
    unsigned e = (unsigned)(bits >> 52);
    uint64_t m = bits & ((1ULL << 52) - 1);
    if (!e && !m)
        return 0;
    int pos = e ? (int)e + 51 : 52; /* x = m 2**(pos - 1126) */
    if (e)
        m |= 1ULL << 52;
    int k = pos / 32, o = pos % 32;
    unsigned __int128 v = (unsigned __int128)m << o; /* below 2**85 */
    long long *L = A->limb;
    L[k] += (long long)((uint64_t)v & 0xffffffffULL);
    L[k + 1] += (long long)((uint64_t)(v >> 32) & 0xffffffffULL);
    L[k + 2] += (long long)(uint64_t)(v >> 64);
    if (k < A->lo)
        A->lo = k;
    if (k + 2 > A->hi)
        A->hi = k + 2;
    if (++A->adds >= XC_CARRY_EVERY)
        xc_norm(A);
    return 0;
}

/* whole numbers as little-endian 32-bit digits: 72 limbs times 10**D (D <= 400: 42 limbs) */
#define XC_DIGITS 120
typedef struct {
    uint32_t d[XC_DIGITS];
    int n; /* digits in use (d[n..] are 0) */
} xc_big;

/* the normalised accumulator's value divided by 2**(32 base) (its limbs below base are 0) */
static void xc_big_of(const xc_acc *A, int base, xc_big *B)
{
    memset(B, 0, sizeof *B);
    for (int i = base > A->lo ? base : A->lo; i <= A->hi; i++)
        B->d[i - base] = (uint32_t)A->limb[i];
    B->n = A->hi >= base ? A->hi - base + 1 : 0;
    while (B->n > 0 && !B->d[B->n - 1])
        B->n--;
}

/* B *= m; 0, or -1 when the product needs more digits than there are */
static int xc_big_mul(xc_big *B, uint64_t m)
{
    unsigned __int128 carry = 0;
    for (int i = 0; i < B->n; i++) {
        unsigned __int128 t = (unsigned __int128)B->d[i] * m + carry;
        B->d[i] = (uint32_t)t;
        carry = t >> 32;
    }
    while (carry) {
        if (B->n >= XC_DIGITS)
            return -1;
        B->d[B->n++] = (uint32_t)carry;
        carry >>= 32;
    }
    if (!m)
        B->n = 0;
    return 0;
}

/* A += B, or A -= B (B <= A) */
static void xc_big_add(xc_big *A, const xc_big *B, int sign)
{
    int n = A->n > B->n ? A->n : B->n;
    long long c = 0;
    for (int i = 0; i < n; i++) {
        long long t = (long long)A->d[i] + sign * (long long)B->d[i] + c;
        c = t >> 32;
        A->d[i] = (uint32_t)t;
    }
    A->n = n;
    if (c > 0 && n < XC_DIGITS)
        A->d[A->n++] = (uint32_t)c;
    while (A->n > 0 && !A->d[A->n - 1])
        A->n--;
}

static int xc_big_cmp(const xc_big *A, const xc_big *B)
{
    if (A->n != B->n)
        return A->n < B->n ? -1 : 1;
    for (int i = A->n - 1; i >= 0; i--)
        if (A->d[i] != B->d[i])
            return A->d[i] < B->d[i] ? -1 : 1;
    return 0;
}

/* Whether the point meets the rule's target M 10**-D exactly: 1 or 0, or -1 when it cannot say (a
 * weight that is not finite, a target past 10**-400: the caller keeps the float decision).  TP, FP,
 * P, N: the exact sums (normalised here). */
static int xc_meets(int rule, xc_acc *TP, xc_acc *FP, xc_acc *P, xc_acc *N, uint64_t M, int D)
{
    if (D < 0 || D > 400)
        return -1;
    xc_acc *use[4] = {TP, FP, P, N};
    int base = XC_LIMBS;
    for (int k = 0; k < 4; k++) {
        xc_norm(use[k]);
        if (use[k]->lo < base)
            base = use[k]->lo;
    }
    if (base == XC_LIMBS)
        base = 0;
    xc_big x, y, t;
    switch (rule) {
    case XC_FPR_LE: /* x = FP, y = N */
        xc_big_of(FP, base, &x);
        xc_big_of(N, base, &y);
        break;
    case XC_SPC_GE: /* x = N - FP, y = N */
        xc_big_of(N, base, &x);
        xc_big_of(FP, base, &t);
        xc_big_add(&x, &t, -1);
        xc_big_of(N, base, &y);
        break;
    case XC_PRE_GE: /* x = TP, y = TP + FP */
        xc_big_of(TP, base, &x);
        xc_big_of(TP, base, &y);
        xc_big_of(FP, base, &t);
        xc_big_add(&y, &t, 1);
        break;
    default: /* XC_SEN_GE, XC_REC_GE: x = TP, y = P */
        xc_big_of(TP, base, &x);
        xc_big_of(P, base, &y);
    }
    for (int k = D; k > 0; k -= 19) { /* x 10**D, at most 10**19 < 2**64 at a time */
        uint64_t ten = 1;
        for (int j = 0; j < (k < 19 ? k : 19); j++)
            ten *= 10;
        if (xc_big_mul(&x, ten) < 0)
            return -1;
    }
    if (xc_big_mul(&y, M) < 0)
        return -1;
    int c = xc_big_cmp(&x, &y);
    return rule == XC_FPR_LE ? c <= 0 : c >= 0;
}

/* xc_meets of float sums that are exact as they are (whole numbers below 2**53, or one cell each) */
static int xc_meets_d(int rule, double tp, double fp, double p, double n, uint64_t M, int D)
{
    xc_acc a[4];
    double v[4] = {tp, fp, p, n};
    /* whole numbers below 2**53 and 10**D below 2**64: x 10**D and M y below 2**119, compared as
     * 128-bit integers (the same decision as the accumulators', without them) */
    int whole = D >= 0 && D <= 19;
    for (int k = 0; k < 4 && whole; k++)
        whole = v[k] >= 0 && v[k] < 0x1p53 && v[k] == floor(v[k]);
    if (whole) {
        unsigned __int128 ten = 1, x, y;
        for (int j = 0; j < D; j++)
            ten *= 10;
        uint64_t TP = (uint64_t)tp, FP = (uint64_t)fp, P = (uint64_t)p, N = (uint64_t)n;
        switch (rule) {
        case XC_FPR_LE:
            x = FP, y = N;
            break;
        case XC_SPC_GE:
            if (FP > N)
                goto slow; /* not a point's sums: let the accumulators say */
            x = N - FP, y = N;
            break;
        case XC_PRE_GE:
            x = TP, y = (unsigned __int128)TP + FP;
            break;
        default:
            x = TP, y = P;
        }
        x *= ten;
        y *= M;
        return rule == XC_FPR_LE ? x <= y : x >= y;
    }
slow:
    for (int k = 0; k < 4; k++) {
        xc_clear(&a[k]);
        if (xc_add(&a[k], v[k]) < 0)
            return -1;
    }
    return xc_meets(rule, &a[0], &a[1], &a[2], &a[3], M, D);
}

/* The relative slack of the float decision: a float rate of sums of at most `terms` nonnegative
 * float64 terms each (added one after another from 0.0) is within xc_slack(terms) * max(rate,
 * target) of the exact rate, and the target's float64 within that of its decimal, so that a float
 * rate farther than that from the target is on the exact rate's side of it.  The bound: each sum's
 * relative error below terms u (u = 2**-53), the subtraction of a specificity (N - FP)/N within
 * 2 terms u of N (the caller takes max(rate, target, 1) there), the division's and the target's
 * rounding u each: below (3 terms + 3) u, doubled.  Callers add 2**-1000 for what underflows. */
static inline double xc_slack(double terms)
{
    return (6.0 * terms + 16.0) * 0x1p-53;
}

/* The band [*lo, *hi] of float rates near `target` (xc_slack's: |rate - target| <= slack max(rate,
 * target) + 2**-1000, or for a specificity (`cancel`) slack + 2**-1000), widened so that the rounding
 * of its own ends cannot narrow it: a float rate outside it is decided by the float comparison. */
static inline void xc_band(double target, double terms, int cancel, double *lo, double *hi)
{
    double slack = xc_slack(terms), tiny = 0x1p-1000, t = fabs(target);
    double reach = cancel ? 2 * slack * (t > 1.0 ? t : 1.0) : 4 * slack * t;
    *lo = target - reach - 2 * tiny;
    *hi = target + reach + 2 * tiny;
}

#endif
