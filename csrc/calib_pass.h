/*
 * perfeval._native, calib_pass.h: the logistic recalibration's pass (calibration.c), compiled once for
 * each instruction set: calibration.c includes this file with CAL(name) naming a copy's functions
 * and types and CAL_LANES its vectors' doubles (2 for the baseline's SSE2, 4 for AVX2, 8 for
 * AVX-512), each copy under its own `#pragma GCC target` (GCC lowers its vector types for the target
 * in force where a function is defined).
 *
 * Every copy makes the same IEEE operations in the same order, lane by lane: the same bits on any
 * machine.  A group's cells are taken eight at a time (eight "virtual lanes", whatever the machine's
 * vectors hold: cell k of the group adds to lane k mod 8, a vector of CAL_LANES lanes being
 * 8 / CAL_LANES of them), the last eight padded with cells of weight 0 (which add exact zeros), and the
 * eight lanes are added in their order at the end.  exp and log1p are computed here (below), not by
 * the C library, so that they are the same everywhere and run in the vectors.
 */

#define CLN CAL_LANES
#define cvd CAL(vd)
#define cvm CAL(vm)
typedef double cvd __attribute__((vector_size(CLN * sizeof(double))));
typedef long long cvm __attribute__((vector_size(CLN * sizeof(double))));
#define CNV (8 / CLN) /* vectors per eight cells */

static inline __attribute__((always_inline)) cvd CAL(vsplat)(double x) { return x - (cvd){0}; }
static inline __attribute__((always_inline)) cvd CAL(vblend)(cvm m, cvd a, cvd b) /* m ? a : b */
{
    return (cvd)(((cvm)a & m) | ((cvm)b & ~m));
}

/* exp(t) for t <= 0 (t of -inf or below -1100: 0): t = k ln 2 + r, |r| <= ln 2 / 2 (k rounded to the
 * nearest, ln 2 in two parts, so that k ln2_hi is exact), exp(r) by its Taylor polynomial of degree
 * 13 (the remainder below 5e-18), times 2^k made as 2^k1 2^k2 (k1 = round(k / 2)), each a normal
 * number, so that a result in the subnormal range is rounded once.  Within about one unit in the last
 * place of the true value. */
static inline __attribute__((always_inline)) cvd CAL(vexp)(cvd t)
{
    const cvd shift = CAL(vsplat)(0x1.8p52);
    t = CAL(vblend)(t < -1100.0, CAL(vsplat)(-1100.0), t);
    cvd kd = (t * 0x1.71547652b82fep0 + shift) - shift;      /* round(t / ln 2) */
    cvd r = (t - kd * 0x1.62e42fee00000p-1) - kd * 0x1.a39ef35793c76p-33; /* fdlibm's ln2 hi, lo */
    cvd p = CAL(vsplat)(1.0 / 6227020800.0);
    p = 1.0 / 479001600.0 + r * p;
    p = 1.0 / 39916800.0 + r * p;
    p = 1.0 / 3628800.0 + r * p;
    p = 1.0 / 362880.0 + r * p;
    p = 1.0 / 40320.0 + r * p;
    p = 1.0 / 5040.0 + r * p;
    p = 1.0 / 720.0 + r * p;
    p = 1.0 / 120.0 + r * p;
    p = 1.0 / 24.0 + r * p;
    p = 1.0 / 6.0 + r * p;
    p = 0.5 + r * p;
    p = 1.0 + r * p;
    p = 1.0 + r * p;
    cvd k1 = (kd * 0.5 + shift) - shift, k2 = kd - k1;       /* k1 + k2 = k, each >= -800 */
    const cvm sbits = (cvm)shift, bias = (cvm){0} + 1023;
    cvm e1 = (((cvm)(k1 + shift) - sbits) + bias) << 52, e2 = (((cvm)(k2 + shift) - sbits) + bias) << 52;
    return (p * (cvd)e1) * (cvd)e2;
}

/* log1p(e) for 0 <= e <= 1: 2 atanh(s), s = e / (2 + e), when e <= sqrt 2 - 1, else ln 2 + 2 atanh(s),
 * s = (e - 1) / (e + 3) (the log of (1 + e) / 2), so that |s| <= 0.1716 and atanh(s) = s (1 + s^2 / 3
 * + ... + s^22 / 23) leaves out less than 1e-18.  Within a few units in the last place. */
static inline __attribute__((always_inline)) cvd CAL(vlog1p01)(cvd e)
{
    cvm hi = e > 0.41421356237309503;
    cvd s = CAL(vblend)(hi, e - 1.0, e) / CAL(vblend)(hi, e + 3.0, e + 2.0);
    cvd s2 = s * s;
    cvd q = CAL(vsplat)(1.0 / 23.0);
    q = 1.0 / 21.0 + s2 * q;
    q = 1.0 / 19.0 + s2 * q;
    q = 1.0 / 17.0 + s2 * q;
    q = 1.0 / 15.0 + s2 * q;
    q = 1.0 / 13.0 + s2 * q;
    q = 1.0 / 11.0 + s2 * q;
    q = 1.0 / 9.0 + s2 * q;
    q = 1.0 / 7.0 + s2 * q;
    q = 1.0 / 5.0 + s2 * q;
    q = 1.0 / 3.0 + s2 * q;
    cvd at2 = 2.0 * s + 2.0 * s * (s2 * q); /* 2 atanh(s) */
    cvd lo = CAL(vblend)(hi, CAL(vsplat)(0x1.a39ef35793c76p-33), CAL(vsplat)(0.0));
    cvd h = CAL(vblend)(hi, CAL(vsplat)(0x1.62e42fee00000p-1), CAL(vsplat)(0.0));
    return h + (at2 + lo);
}

/* The sums of the logistic fit at the linear predictor z = a + b x over the cells lo .. hi - 1 of one
 * class (calibration.c, cal_seq: x ascending, each cell's weight w of that class): g0 = sum r,
 * g1 = sum r x, h00 = sum v, h01 = sum v x, h11 = sum v x x with mu = 1 / (1 + e^-z), r = w (1 - mu)
 * for the positives and -w mu for the negatives, v = w mu (1 - mu), and (PASS_LL) the binomial
 * log-likelihood -sum w log(1 + e^-z) (positives) or -sum w log(1 + e^z) (negatives), else 0.  From
 * e = exp(-|z|): mu and 1 - mu are 1 / (1 + e) and e / (1 + e) (z >= 0) or the other way round,
 * log(1 + e^-|z|) = log1p(e); r is added as its whole part (w, -w or 0) and the rest, +-w times the
 * smaller of mu and 1 - mu, so that the part near 0 keeps its digits next to 1.  g0 and g1, whose zero
 * is the fit, are summed with their rounding errors gathered apart (Knuth's two-sum, each lane):
 * out[6] and out[7] hold what is to be added back to out[0] and out[1].  And out[8 .. 11]: t0 .. t3 =
 * sum t x^k with t = v (1 - 2 mu), the third derivatives (fit_group's Chebyshev steps).  Without
 * PASS_JOINT only the offset fit's g0, h00 and t0 (the others 0). */
static void CAL(pass)(const cal_seq *q, Py_ssize_t lo, Py_ssize_t hi, double a, double b, int flags, double out[12])
{
    const int want_ll = flags & PASS_LL, joint = flags & PASS_JOINT, neg = q->neg;
    cvd acc[10][CNV], cmp[2][CNV];
    for (int s = 0; s < 10; s++)
        for (int u = 0; u < CNV; u++)
            acc[s][u] = (cvd){0};
    for (int s = 0; s < 2; s++)
        for (int u = 0; u < CNV; u++)
            cmp[s][u] = (cvd){0};
    const cvd va = CAL(vsplat)(a), vb = CAL(vsplat)(b), one = CAL(vsplat)(1.0);
    const cvm absmask = (cvm){0} + 0x7fffffffffffffffLL;
    for (Py_ssize_t k = lo; k < hi; k += 8) {
        double bx[8], bw[8];
        const double *px = q->x + k, *pw = q->w ? q->w + k : NULL;
        if (hi - k < 8) { /* the last cells, padded with cells of weight 0 */
            int m = (int)(hi - k);
            for (int j = 0; j < 8; j++) {
                bx[j] = j < m ? px[j] : 0.0;
                bw[j] = j < m ? (pw ? pw[j] : 1.0) : 0.0;
            }
            px = bx, pw = bw;
        }
        for (int u = 0; u < CNV; u++) {
            cvd X, W = one;
            memcpy(&X, px + u * CLN, sizeof X);
            if (pw)
                memcpy(&W, pw + u * CLN, sizeof W);
            cvd z = va + vb * X;
            cvd e = CAL(vexp)(-(cvd)((cvm)z & absmask));
            cvd qq = 1.0 / (1.0 + e);
            cvd eq = e / (1.0 + e);
            cvm up = z >= 0.0;
            cvd mu = CAL(vblend)(up, qq, eq), omu = CAL(vblend)(up, eq, qq);
            /* r: w (1 - mu) = [z < 0] w + w (1 - mu - [z < 0]), or -w mu = -[z >= 0] w + w ([z >= 0] - mu) */
            cvm whole = neg ? up : ~up;
            cvd rw = CAL(vblend)(whole, neg ? -W : W, (cvd){0}), rs = W * CAL(vblend)(up, eq, -eq);
            cvd v = W * (eq * qq);
            cvd vx = v * X;
            cvd t4[4] = {rw, rs, rw * X, rs * X};
            for (int m = 0; m < 4; m++) { /* Knuth's two-sum: the rounding errors gathered apart */
                cvd *A = &acc[m >> 1][u], s2 = *A + t4[m], b2 = s2 - *A;
                cmp[m >> 1][u] += (*A - (s2 - b2)) + (t4[m] - b2);
                *A = s2;
            }
            cvd vxx = vx * X, tt = v * (omu - mu); /* t = v (1 - 2 mu): the third derivative's */
            acc[2][u] += v;
            acc[3][u] += vx;
            acc[4][u] += vxx;
            acc[6][u] += tt;
            acc[7][u] += tt * X;
            acc[8][u] += tt * (X * X);
            acc[9][u] += tt * ((X * X) * X);
            if (want_ll) { /* log(1 + e^-z) = log1p(e) + max(-z, 0); log(1 + e^z) = log1p(e) + max(z, 0) */
                cvd sp = CAL(vlog1p01)(e);
                cvd zz = neg ? CAL(vblend)(z > 0.0, z, (cvd){0}) : CAL(vblend)(z < 0.0, -z, (cvd){0});
                acc[5][u] += W * (sp + zz);
            }
        }
    }
    /* the eight lanes: g0 and g1 in their order, their rounding errors gathered (two-sum); the others
     * pairwise; what the fit does not read (the offset fit: g1, h01, h11, t1 .. t3) left at 0 */
    for (int s = 0; s < 10; s++) {
        int o = s < 6 ? s : s + 2;
        if ((!joint && (s == 1 || s == 3 || s == 4 || s >= 7)) || (s == 5 && !want_ll)) {
            out[o] = 0.0;
            if (s < 2)
                out[6 + s] = 0.0;
            continue;
        }
        double l[8];
        for (int j = 0; j < 8; j++)
            l[j] = acc[s][j / CLN][j % CLN];
        if (s >= 2) {
            out[o] = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
            continue;
        }
        double t = 0.0, c = 0.0;
        for (int j = 0; j < 8; j++) {
            double s2 = t + l[j], b2 = s2 - t;
            c += ((t - (s2 - b2)) + (l[j] - b2)) + cmp[s][j / CLN][j % CLN];
            t = s2;
        }
        out[s] = t, out[6 + s] = c;
    }
    out[5] = -out[5];
}

/* What a fit needs before its first step, over the cells lo .. hi - 1 of one class: W = sum w,
 * SX = sum w x (each in the eight lanes, added pairwise), the least and the largest x: out[0 .. 3]. */
static void CAL(prep)(const cal_seq *q, Py_ssize_t lo, Py_ssize_t hi, double out[4])
{
    const cvd inf = CAL(vsplat)(INFINITY), ninf = CAL(vsplat)(-INFINITY), one = CAL(vsplat)(1.0);
    cvd acc[2][CNV], mn[CNV], mx[CNV];
    for (int u = 0; u < CNV; u++)
        acc[0][u] = acc[1][u] = (cvd){0}, mn[u] = inf, mx[u] = ninf;
    for (Py_ssize_t k = lo; k < hi; k += 8) {
        double bx[8], bw[8];
        const double *px = q->x + k, *pw = q->w ? q->w + k : NULL;
        cvm pad[CNV];
        for (int u = 0; u < CNV; u++)
            pad[u] = (cvm){0};
        if (hi - k < 8) { /* the last cells, padded with cells of weight 0, kept out of the range */
            int m = (int)(hi - k);
            for (int j = 0; j < 8; j++) {
                bx[j] = j < m ? px[j] : 0.0;
                bw[j] = j < m ? (pw ? pw[j] : 1.0) : 0.0;
                pad[j / CLN][j % CLN] = j < m ? 0 : -1;
            }
            px = bx, pw = bw;
        }
        for (int u = 0; u < CNV; u++) {
            cvd X, W = one;
            memcpy(&X, px + u * CLN, sizeof X);
            if (pw)
                memcpy(&W, pw + u * CLN, sizeof W);
            acc[0][u] += W;
            acc[1][u] += W * X;
            cvd lo_ = CAL(vblend)(pad[u], inf, X), hi_ = CAL(vblend)(pad[u], ninf, X);
            mn[u] = CAL(vblend)(lo_ < mn[u], lo_, mn[u]);
            mx[u] = CAL(vblend)(hi_ > mx[u], hi_, mx[u]);
        }
    }
    double lo_ = INFINITY, hi_ = -INFINITY;
    for (int s = 0; s < 2; s++) { /* the eight lanes pairwise */
        double l[8];
        for (int j = 0; j < 8; j++)
            l[j] = acc[s][j / CLN][j % CLN];
        out[s] = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
    }
    for (int j = 0; j < 8; j++) {
        double a = mn[j / CLN][j % CLN], b = mx[j / CLN][j % CLN];
        lo_ = a < lo_ ? a : lo_, hi_ = b > hi_ ? b : hi_;
    }
    out[2] = lo_, out[3] = hi_;
}

/* The pass (CAL(pass)) of every small group of a cal_slots at once (calibration.c, slots_run): each
 * slot a group whose classes have at most SLOT_CELLS (16) cells each, cell j of a class in position j
 * (m[c][k] of them in slot k's place), the places past its cells holding cells of weight 0 and x 0, at that
 * slot's (a, b), finite (slots_run fits a slot of another (a, b) alone, by fit_sums).  The vectors
 * here run across the slots, not across a group's cells: a cell's terms are the same IEEE operations
 * whichever lane makes them, so slot k's out[c][o][k] is the pass's out[o] over its class c, bit for
 * bit: position j's sums start from 0.0 as the pass's lane j does and add cell j, then cell j + 8 (the
 * pass's second block of eight), and the eight positions are added as the pass adds its eight lanes
 * (g0 and g1 in their order with the rounding errors gathered, the others pairwise).  A cell of
 * weight 0 and x 0 at a finite (a, b) adds exact zeros (its z is a, its e in (0, 1], every term
 * 0 times a finite number, added to sums that are never -0.0), which the pass adds for its padding
 * and which are left out here past the most cells of a vector's places (M).  Each vector's e =
 * exp(-|z|) are made first, every position's apart (independent chains, so that they overlap),
 * then (with the likelihood) each position's likelihood term, the same way, then the terms.  The
 * vectors holding a slot of the mask act are made (the others not read; a lane not in act, of no
 * cells or at (0, 0), makes finite numbers that are not read), the likelihood in those holding a slot
 * of the mask ll (the other lanes' likelihoods not read), the slope's sums only when joint; slots_run
 * zeroes what a slot's flags leave out, as the pass does. */
static void CAL(slots)(cal_slots *sl, uint32_t act, uint32_t ll, int joint)
{
    const cvm absmask = (cvm){0} + 0x7fffffffffffffffLL;
    const cvd zero = (cvd){0};
    const uint32_t lanes = CLN == 32 ? 0xffffffffu : (1u << CLN) - 1u;
    for (int c = 0; c < 2; c++) {
        const int neg = c;
        for (int u = 0; u < SLOTS / CLN; u++) {
            if (!(act >> (u * CLN) & lanes))
                continue;
            const int want_ll = (ll >> (u * CLN) & lanes) != 0;
            int M = 0;
            for (int r = u * CLN; r < (u + 1) * CLN; r++)
                M = sl->m[c][r] > M ? sl->m[c][r] : M;
            cvd va, vb, l[10][8], cm[2][8], Z[SLOT_CELLS], E[SLOT_CELLS], L[SLOT_CELLS];
            memcpy(&va, sl->a + u * CLN, sizeof va);
            memcpy(&vb, sl->b + u * CLN, sizeof vb);
            for (int j = 0; j < M; j++) {
                cvd X;
                memcpy(&X, sl->x[c][j] + u * CLN, sizeof X);
                Z[j] = va + vb * X;
                E[j] = CAL(vexp)(-(cvd)((cvm)Z[j] & absmask));
            }
            /* each position's likelihood term w (log1p(e) + max(+-z, 0)) before the sums too: log1p's
             * polynomial is a chain as long as exp's, made among the others' (in the sums' loop it
             * waited on each position's) */
            if (want_ll)
                for (int j = 0; j < M; j++) {
                    cvd W, z = Z[j];
                    memcpy(&W, sl->w[c][j] + u * CLN, sizeof W);
                    cvd sp = CAL(vlog1p01)(E[j]);
                    cvd zz = neg ? CAL(vblend)(z > 0.0, z, zero) : CAL(vblend)(z < 0.0, -z, zero);
                    L[j] = W * (sp + zz);
                }
            /* positions j >= M hold no cell in any lane: their sums would be exact zeros, which change no
             * sum they are added to (x + 0.0 is x; no sum here is -0.0, and g0 and g1 are finite: the
             * weights scaled, at most SLOT_CELLS cells), so they are neither made nor added below */
            const int J = M < 8 ? M : 8;
            for (int j = 0; j < J; j++) {
                cvd A[2] = {zero, zero}, C[2] = {zero, zero}, s2_ = zero, s3_ = zero, s4_ = zero, s5_ = zero;
                cvd s6_ = zero, s7_ = zero, s8_ = zero, s9_ = zero;
                for (int h = j; h < M; h += 8) {
                    cvd X, W, z = Z[h], e = E[h];
                    memcpy(&X, sl->x[c][h] + u * CLN, sizeof X);
                    memcpy(&W, sl->w[c][h] + u * CLN, sizeof W);
                    cvd qq = 1.0 / (1.0 + e);
                    cvd eq = e / (1.0 + e);
                    cvm up = z >= 0.0;
                    cvd mu = CAL(vblend)(up, qq, eq), omu = CAL(vblend)(up, eq, qq);
                    cvm whole = neg ? up : ~up;
                    cvd rw = CAL(vblend)(whole, neg ? -W : W, zero), rs = W * CAL(vblend)(up, eq, -eq);
                    cvd v = W * (eq * qq);
                    cvd tt = v * (omu - mu);
                    for (int m = 0; m < (joint ? 4 : 2); m++) { /* the pass's two-sum */
                        cvd tm = m == 0 ? rw : m == 1 ? rs : m == 2 ? rw * X : rs * X;
                        cvd *Am = &A[m >> 1], s2 = *Am + tm, b2 = s2 - *Am;
                        C[m >> 1] += (*Am - (s2 - b2)) + (tm - b2);
                        *Am = s2;
                    }
                    s2_ += v;
                    s6_ += tt;
                    if (joint) {
                        cvd vx = v * X, vxx = vx * X;
                        s3_ += vx;
                        s4_ += vxx;
                        s7_ += tt * X;
                        s8_ += tt * (X * X);
                        s9_ += tt * ((X * X) * X);
                    }
                    if (want_ll)
                        s5_ += L[h];
                }
                l[0][j] = A[0], l[1][j] = A[1], cm[0][j] = C[0], cm[1][j] = C[1];
                l[2][j] = s2_, l[3][j] = s3_, l[4][j] = s4_, l[5][j] = s5_;
                l[6][j] = s6_, l[7][j] = s7_, l[8][j] = s8_, l[9][j] = s9_;
            }
            if (J & 1 && J < 8) /* the tree's pair of the last position: a zero beside it */
                for (int s = 0; s < 10; s++)
                    l[s][J] = zero;
            for (int s = 0; s < 10; s++) {
                int o = s < 6 ? s : s + 2;
                cvd r;
                if (!joint && (s == 1 || s == 3 || s == 4 || s >= 7))
                    continue; /* not read (slots_run zeroes them) */
                if (s >= 2) { /* the pass's pairwise tree, its subtrees of positions >= J (zeros) left out */
                    const cvd *v = l[s];
                    if (J > 6)
                        r = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
                    else if (J > 4)
                        r = ((v[0] + v[1]) + (v[2] + v[3])) + (v[4] + v[5]);
                    else if (J > 2)
                        r = (v[0] + v[1]) + (v[2] + v[3]);
                    else
                        r = v[0] + v[1];
                } else {
                    cvd t = zero, cc = zero;
                    for (int j = 0; j < J; j++) {
                        cvd s2 = t + l[s][j], b2 = s2 - t;
                        cc += ((t - (s2 - b2)) + (l[s][j] - b2)) + cm[s][j];
                        t = s2;
                    }
                    r = t;
                    memcpy(sl->out[c][6 + s] + u * CLN, &cc, sizeof cc);
                }
                if (s == 5)
                    r = -r;
                memcpy(sl->out[c][o] + u * CLN, &r, sizeof r);
            }
        }
    }
    /* each slot's sums S[0 .. 9][k] from its classes' numbers, as slot_sums (calibration.c) adds them
     * for one slot, every lane a slot: what a pass of the slot's flags leaves out zeroed (the slope's
     * numbers when not joint, the likelihood, -0.0, in a lane not in ll), the positives' numbers then
     * the negatives' added to sums from 0.0, g0 and g1 with their rounding errors gathered (two-sum) */
    for (int u = 0; u < SLOTS / CLN; u++) {
        if (!(act >> (u * CLN) & lanes))
            continue;
        cvm keep_ll = (cvm){0};
        for (int i = 0; i < CLN; i++)
            keep_ll[i] = (ll >> (u * CLN + i) & 1u) ? -1 : 0;
        cvd tt[12], cc[2];
        for (int m = 0; m < 12; m++)
            tt[m] = zero;
        cc[0] = cc[1] = zero;
        for (int c = 0; c < 2; c++) {
            cvd q[12];
            for (int o = 0; o < 12; o++) {
                if (!joint && (o == 1 || o == 3 || o == 4 || o == 7 || o >= 9))
                    q[o] = zero;
                else
                    memcpy(&q[o], sl->out[c][o] + u * CLN, sizeof q[o]);
            }
            q[5] = CAL(vblend)(keep_ll, q[5], CAL(vsplat)(-0.0)); /* the pass's 0.0, negated */
            for (int m = 0; m < 2; m++) {
                cvd s2 = tt[m] + q[m], b2 = s2 - tt[m];
                cc[m] += ((tt[m] - (s2 - b2)) + (q[m] - b2)) + q[6 + m];
                tt[m] = s2;
            }
            for (int m = 2; m < 12; m++)
                if (m < 6 || m >= 8)
                    tt[m] += q[m];
        }
        cvd S[10];
        S[0] = tt[0] + cc[0], S[1] = tt[1] + cc[1];
        for (int m = 2; m < 6; m++)
            S[m] = tt[m];
        for (int m = 6; m < 10; m++)
            S[m] = tt[m + 2];
        for (int m = 0; m < 10; m++)
            memcpy(sl->S[m] + u * CLN, &S[m], sizeof S[m]);
    }
}

static inline __attribute__((always_inline)) cvd CAL(vload)(const double *p)
{
    cvd v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* fmax_ (calibration.c) lane by lane: x where y is NaN or x >= y, else y */
static inline __attribute__((always_inline)) cvd CAL(vfmax)(cvd x, cvd y)
{
    return CAL(vblend)((x >= y) | (y != y), x, y);
}

/* The Newton step of fsm_step (calibration.c) for every slot of the mask cand, every lane a slot, from
 * the sums of its pass (S), its (a, b) (where the pass was made), xmin, xmax and near: the slots
 * waiting in FSM_OFFSET (the offset fit; joint 0) or in FSM_JOINT (the joint fit's pass after a
 * Newton step, its likelihood not made), with an iteration left.  The same IEEE operations in the
 * same order as fsm_step's, lane by lane (fsm_step's branches made as both sides and a choice): the
 * same bits.  And the slots of the mask first (within cand), waiting in FSM_FIRST (the joint fit's
 * first pass, at (a, 1)): where fit_group's newton_reach is at most FIT_SAFE (the same numbers as the
 * step's reach), its first Newton step (near 0; slots_run puts the slot in FSM_JOINT).  Into todo[k]:
 * STEP_DONE (the fit is (na, nb)), STEP_PASS (the next pass at (na, nb), near nnear), or STEP_ALONE
 * where fsm_step takes another way (a curvature not positive, a step not finite, one that needs the
 * likelihood, the last iteration): fsm_step then makes it from S, as without this step.  A lane
 * outside cand makes numbers that are not read. */
static void CAL(step)(cal_slots *sl, uint32_t cand, uint32_t first, int joint)
{
    const uint32_t lanes = CLN == 32 ? 0xffffffffu : (1u << CLN) - 1u;
    const cvm absmask = (cvm){0} + 0x7fffffffffffffffLL;
    const cvd inf = CAL(vsplat)(INFINITY);
#define VABS(v) ((cvd)((cvm)(v) & absmask))
    for (int u = 0; u < SLOTS / CLN; u++) {
        if (!(cand >> (u * CLN) & lanes))
            continue;
        const int at = u * CLN;
        cvd S0 = CAL(vload)(sl->S[0] + at), S2 = CAL(vload)(sl->S[2] + at), S6 = CAL(vload)(sl->S[6] + at);
        cvd a = CAL(vload)(sl->a + at), na, nb, full;
        cvm ok, cheb, near, done, nnear;
        memcpy(&near, sl->near + at, sizeof near);
        if (!joint) {
            ok = S2 > 0;
            cvd step = S0 / S2;
            cheb = VABS(step) <= FIT_CHEB;
            cvd step2 = step - S6 * (step * step) / (2.0 * S2);
            step = CAL(vblend)(cheb, step2, step);
            na = a + step;
            full = VABS(step) / (1.0 + VABS(na));
            nb = CAL(vsplat)(1.0);
        } else {
            cvd S1 = CAL(vload)(sl->S[1] + at), S3 = CAL(vload)(sl->S[3] + at), S4 = CAL(vload)(sl->S[4] + at);
            cvd S7 = CAL(vload)(sl->S[7] + at), S8 = CAL(vload)(sl->S[8] + at), S9 = CAL(vload)(sl->S[9] + at);
            cvd b = CAL(vload)(sl->b + at), xmin = CAL(vload)(sl->xmin + at), xmax = CAL(vload)(sl->xmax + at);
            cvd det = S2 * S4 - S3 * S3;
            cvd da = (S4 * S0 - S3 * S1) / det, db = (S2 * S1 - S3 * S0) / det;
            ok = (det > 0) & (VABS(da) < inf) & (VABS(db) < inf);
            cvd reach = CAL(vfmax)(VABS(da + db * xmin), VABS(da + db * xmax));
            cheb = reach <= FIT_CHEB;
            cvd q0 = (da * da) * S6 + (2.0 * da * db) * S7 + (db * db) * S8;
            cvd q1 = (da * da) * S7 + (2.0 * da * db) * S8 + (db * db) * S9;
            cvd da2 = da - 0.5 * ((S4 * q0 - S3 * q1) / det);
            cvd db2 = db - 0.5 * ((S2 * q1 - S3 * q0) / det);
            da = CAL(vblend)(cheb, da2, da), db = CAL(vblend)(cheb, db2, db);
            full = CAL(vfmax)(VABS(da) / (1.0 + VABS(a)), VABS(db) / (1.0 + VABS(b)));
            ok &= cheb | (full <= FIT_NEAR) | (reach <= FIT_SAFE);
            cvm fm = (cvm){0};
            for (int i = 0; i < CLN; i++)
                fm[i] = (first >> (at + i) & 1u) ? -1 : 0;
            ok &= ~fm | (reach <= FIT_SAFE); /* the first: fit_group's newton_reach(S) <= FIT_SAFE */
            na = a + da, nb = b + db;
        }
        done = (full <= 1e-15) | near | (cheb & (full <= FIT_NEAR));
        nnear = full <= FIT_NEAR;
        const cvm st_done = (cvm){0} + STEP_DONE, st_pass = (cvm){0} + STEP_PASS;
        cvm todo = ok & ((done & st_done) | (~done & st_pass)); /* STEP_ALONE: 0 */
        memcpy(sl->todo + at, &todo, sizeof todo);
        memcpy(sl->na + at, &na, sizeof na);
        memcpy(sl->nb + at, &nb, sizeof nb);
        memcpy(sl->nnear + at, &nnear, sizeof nnear);
    }
#undef VABS
}

#undef CLN
#undef cvd
#undef cvm
#undef CNV
