/*
 * perfeval._native, walk.h: the replicate walk's state and its vector code (resample.c has the draws'
 * tables, the sources of counts, the plans and the threads).  resample.c includes this file once
 * for each instruction set it is compiled for: WALK(name) names a copy's functions and types,
 * WALK_LANES is its number of lanes (the machine's vector of doubles: 2 for the baseline's SSE2, 4
 * for AVX2, 8 for AVX-512), and each copy is defined under its own `#pragma GCC target`, because GCC
 * lowers its vector types for the target in force where a function is defined (function clones of
 * one definition keep the baseline's lowering, and vectors wider than the machine's are lowered
 * through memory).  Every copy computes the same IEEE operations lane by lane: the same bits on any
 * machine, with any number of lanes.
 */

#define LANES WALK_LANES
#define vd WALK(vd)
#define vm WALK(vm)
#define ca2_t WALK(ca2_t)
#define walk_t WALK(walk_t)

/* The lanes' numbers as one vector (GCC's vector extension: each lane's arithmetic is the scalar
 * IEEE operation) and a lane mask (all ones where true). */
typedef double vd __attribute__((vector_size(LANES * sizeof(double))));
typedef long long vm __attribute__((vector_size(LANES * sizeof(double))));

VINLINE vd WALK(vblend)(vm m, vd a, vd b) { return (vd)(((vm)a & m) | ((vm)b & ~m)); } /* m ? a : b */
VINLINE int WALK(vany)(vm m)
{
    long long r = 0;
    for (int b = 0; b < LANES; b++)
        r |= m[b];
    return r != 0;
}
VINLINE vd WALK(vsplat)(double x) { return x - (vd){0}; }

/* The walk takes the cells this many at a time (walk_block). */
#define WALK_CELLS 64

/* CA2's windows in every lane: d, the sum of frac - score over the window's cases (frac: the share
 * of positives of the case's cell), err, the sum of |d| over the windows.  A case enters: d += its
 * value; a window is complete (S cases): err += |d|; the oldest leaves: d -= its value:
 * nv_ca2_total's steps, in double.  So that d does not drift over millions of steps, it is summed
 * again (in 80-bit) every CA2_RESYNC cells of the lane's own that hold a case (a lane's count, not
 * the block's: a replicate's bits do not depend on the replicates walked beside it, nor on how many
 * lanes the machine's vectors hold), from the last S cases in the order of a ring of S slots
 * (case t in slot t mod S), and err is gathered in 80-bit then.
 *
 * The cases are first written out (a cell drawn k times: k rows), each lane in its own column of a
 * buffer of rows (row r, lane b: buf[r * LANES + b]), then the windows run down the rows that every
 * lane has written, a row of all lanes one vector: no lane waits for another's larger count, and no
 * gather or scatter.  Row r of lane b is its case r + off[b]; rows below done are through the
 * windows in every lane, S rows below done are kept (a lane's oldest case and its resync read them),
 * and a lane's rows from done to w[b] wait.  When the buffer is full its live rows move to its start
 * (rebase); when a lane runs more than the buffer ahead of another, every lane's waiting rows go
 * through its window one by one (catch_up) and the lanes start again level, each with its own off.
 * A resync falls at a lane's row (its count at the end of the CA2_RESYNC-th cell): ev holds those
 * rows until the windows reach them. */
#define CA2_RESYNC 4096
#define CA2_EV 16     /* pending resyncs per lane (WALK_CELLS < CA2_RESYNC: one a block at most) */
#define CA2_SLACK 3   /* rows past a lane's last one written anyway (a cell's first three cases) */
typedef struct {
    vd d, err, count;
    vm thr;        /* lane b's windows are complete from row thr[b] = S - 1 - off[b] */
    ext total[LANES];
    long long S, since[LANES]; /* per lane: its cells with a case since its last resync */
    double *buf;   /* cap rows of LANES */
    long long cap, done, thrmax;
    long long w[LANES], off[LANES];
    long long ev[CA2_EV][LANES], evh[LANES], evt[LANES]; /* resync rows: lane b's next is ev[evh[b] % CA2_EV][b] */
} ca2_t;

/* A walk's running state (one block of LANES replicates or groups). */
typedef struct {
    vd ap, an; /* positive and negative weight above the cell */
    vm out;    /* a drawn score outside [0, 1] */
    vd *v;     /* per entry: its sums, entry_width vectors each */
    size_t *off;
    ca2_t *ca2;  /* per CA2 entry */
    int *ca2_of; /* per entry: its CA2 slot */
    int nca2;
    size_t nv;
    int ranged;    /* the plan reads whether scores are inside [0, 1] */
    xwalk_t *x;    /* the operating points' exact decisions near a target (a plan with a target) */
} walk_t;

static int WALK(walk_alloc)(walk_t *w, const plan_t *pl)
{
    memset(w, 0, sizeof *w);
    int nca2 = 0;
    w->off = malloc((size_t)(pl->nk + 1) * sizeof(size_t));
    w->ca2_of = malloc((size_t)(pl->nk + 1) * sizeof(int));
    if (!w->off || !w->ca2_of)
        return -1;
    for (int m = 0; m < pl->nk; m++) {
        w->off[m] = w->nv;
        w->nv += entry_width(&pl->e[m]);
        w->ca2_of[m] = pl->e[m].kind == REP_CA2 ? nca2++ : -1;
        w->ranged |= pl->e[m].kind == REP_CXE || pl->e[m].kind == REP_LL || pl->e[m].kind == REP_SLQ ||
                     pl->e[m].kind == REP_ECEW || pl->e[m].kind == REP_ECEM || pl->e[m].kind == REP_MURPHY;
    }
    w->nca2 = nca2;
    for (int m = 0; m < pl->nk; m++)
        if (pl->e[m].kind >= REP_TPR_FPR && pl->e[m].kind <= REP_REC_PRE && !w->x && !(w->x = xwalk_new(pl->nk)))
            return -1;
    w->v = aligned_alloc(sizeof(vd), (w->nv ? w->nv : 1) * sizeof(vd));
    w->ca2 = aligned_alloc(sizeof(vd), (size_t)(nca2 ? nca2 : 1) * sizeof(ca2_t));
    if (!w->v || !w->ca2)
        return -1;
    memset(w->ca2, 0, (size_t)(nca2 ? nca2 : 1) * sizeof(ca2_t));
    for (int m = 0; m < pl->nk; m++)
        if (w->ca2_of[m] >= 0) {
            ca2_t *z = &w->ca2[w->ca2_of[m]];
            z->S = pl->e[m].par >= 1 && pl->e[m].par <= CA2_MAX ? (long long)pl->e[m].par : 0;
            if (z->S) { /* S rows kept, room for their moves to be rare, a block's rows */
                z->cap = 2 * z->S + (z->S / 2 > 8192 ? z->S / 2 : 8192) + 4 * WALK_CELLS + CA2_SLACK;
                if (!(z->buf = aligned_alloc(sizeof(vd), (size_t)z->cap * sizeof(vd))))
                    return -1;
            }
        }
    return 0;
}

static void WALK(walk_free)(walk_t *w)
{
    for (int i = 0; w->ca2 && i < w->nca2; i++)
        free(w->ca2[i].buf);
    free(w->v);
    free(w->off);
    free(w->ca2);
    free(w->ca2_of);
    xwalk_free(w->x);
    memset(w, 0, sizeof *w);
}

static void WALK(walk_reset)(walk_t *w, const plan_t *pl)
{
    w->ap = w->an = (vd){0};
    w->out = (vm){0};
    for (size_t i = 0; i < w->nv; i++)
        w->v[i] = (vd){0};
    for (int i = 0; i < w->nca2; i++) {
        ca2_t *z = &w->ca2[i];
        z->d = z->err = z->count = (vd){0};
        z->done = z->S; /* rows 0 .. S - 1: the cases before the first, 0 (a ring's unwritten slots) */
        z->thrmax = 2 * z->S - 1;
        for (int b = 0; b < LANES; b++) {
            z->since[b] = z->evt[b] = 0;
            z->total[b] = 0;
            z->w[b] = z->S;
            z->off[b] = -z->S;
            z->thr[b] = 2 * z->S - 1;
            z->evh[b] = 0;
        }
        if (z->buf)
            memset(z->buf, 0, (size_t)z->S * sizeof(vd));
    }
    (void)pl;
}

/* CA2's err of lane b gathered into its 80-bit total, and its d summed again from its last S cases
 * (before row R: its count is c = R + off[b]) as a ring of S slots holds them, case t in slot
 * t mod S, slot 0 first (the cases before the first are 0): the sum less the oldest (case c - S). */
static void WALK(ca2_resync)(ca2_t *z, int b, long long R)
{
    const double *col = z->buf + b;
    long long S = z->S, c = R + z->off[b], m = c % S, first = c - m; /* slot 0 holds case first (or first - S) */
    ext sum = 0;
    for (long long i = 0; i < S; i++) {
        long long t = i < m ? first + i : first - S + i;
        sum += t >= 0 ? col[(t - z->off[b]) * LANES] : 0.0;
    }
    double oldest = c - S >= 0 ? col[(c - S - z->off[b]) * LANES] : 0.0;
    z->d[b] = (double)(sum - oldest);
    z->total[b] += z->err[b];
    z->err[b] = 0.0;
}

/* The resyncs of every lane due at row done (before it). */
static void WALK(ca2_due)(ca2_t *z)
{
    for (int b = 0; b < LANES; b++)
        while (z->evh[b] < z->evt[b] && z->ev[z->evh[b] % CA2_EV][b] == z->done) {
            WALK(ca2_resync)(z, b, z->done);
            z->evh[b]++;
        }
}

/* The windows of every lane down rows r0 .. r1 - 1 (no resync due between), one vector a row. */
static void WALK(ca2_rows)(ca2_t *z, long long r0, long long r1)
{
    const vm absmask = ~(vm)WALK(vsplat)(-0.0); /* every bit but the sign: |x| = x & absmask */
    const vd zero = WALK(vsplat)(0.0);
    const vd *row = (const vd *)z->buf;
    const long long back = z->S - 1; /* the oldest case of a window ending at row r: row r - back */
    vd d = z->d, err = z->err;
    long long r = r0;
    for (; r < r1 && r < z->thrmax; r++) { /* some lane's windows not yet complete */
        vm full = (r - (vm){0}) >= z->thr;
        d += row[r];
        err += WALK(vblend)(full, (vd)((vm)d & absmask), zero);
        d -= WALK(vblend)(full, row[r - back], zero);
    }
    for (; r < r1; r++) {
        d += row[r];
        err += (vd)((vm)d & absmask);
        d -= row[r - back];
    }
    z->d = d;
    z->err = err;
}

/* The windows of every lane down the rows every lane has written, each resync at its row. */
static void WALK(ca2_run)(ca2_t *z)
{
    long long minw = z->w[0];
    for (int b = 1; b < LANES; b++)
        minw = z->w[b] < minw ? z->w[b] : minw;
    for (;;) {
        WALK(ca2_due)(z);
        if (z->done >= minw)
            break;
        long long stop = minw;
        for (int b = 0; b < LANES; b++)
            if (z->evh[b] < z->evt[b] && z->ev[z->evh[b] % CA2_EV][b] < stop)
                stop = z->ev[z->evh[b] % CA2_EV][b];
        WALK(ca2_rows)(z, z->done, stop);
        z->done = stop;
    }
}

/* Every lane's rows from done to its w through its windows, one by one (the same operations as
 * ca2_rows), its resyncs at their rows: each lane's cases all in, at its own row. */
static void WALK(ca2_catch_up)(ca2_t *z)
{
    for (int b = 0; b < LANES; b++) {
        const double *col = z->buf + b;
        long long r = z->done;
        for (;;) {
            while (z->evh[b] < z->evt[b] && z->ev[z->evh[b] % CA2_EV][b] == r) {
                WALK(ca2_resync)(z, b, r);
                z->evh[b]++;
            }
            if (r >= z->w[b])
                break;
            double d = z->d[b] + col[r * LANES];
            if (r >= z->thr[b]) {
                z->err[b] = z->err[b] + fabs(d);
                d = d - col[(r - z->S + 1) * LANES];
            }
            z->d[b] = d;
            r++;
        }
    }
}

/* Lane b's rows from p[b] - S moved to the buffer's start (its live rows: the S it keeps and those
 * waiting); done becomes S.  Every p[b] is done, or each lane's w after ca2_catch_up. */
static void WALK(ca2_rebase)(ca2_t *z, const long long *p)
{
    int level = 1;
    long long top = 0;
    for (int b = 0; b < LANES; b++) {
        level &= p[b] == p[0];
        top = z->w[b] > top ? z->w[b] : top;
    }
    if (level) {
        long long shift = p[0] - z->S;
        if (shift > 0)
            memmove(z->buf, z->buf + shift * LANES, (size_t)(top - shift) * sizeof(vd));
    } else
        for (int b = 0; b < LANES; b++)
            for (long long r = 0, shift = p[b] - z->S; r < z->w[b] - shift; r++)
                z->buf[r * LANES + b] = z->buf[(r + shift) * LANES + b];
    z->thrmax = 0;
    for (int b = 0; b < LANES; b++) {
        long long shift = p[b] - z->S;
        z->w[b] -= shift;
        z->off[b] += shift;
        z->thr[b] = z->S - 1 - z->off[b];
        z->thrmax = z->thr[b] > z->thrmax ? z->thr[b] : z->thrmax;
        for (long long e = z->evh[b]; e < z->evt[b]; e++)
            z->ev[e % CA2_EV][b] -= shift;
    }
    z->done = z->S;
}

/* Room for need rows (and the slack) past every lane's last: the windows run, the live rows moved to
 * the start, and if a lane is still too far ahead, every lane caught up and the lanes levelled. */
static void WALK(ca2_room)(ca2_t *z, long long need)
{
    long long top = 0, p[LANES];
    for (int b = 0; b < LANES; b++)
        top = z->w[b] > top ? z->w[b] : top;
    if (top + need + CA2_SLACK <= z->cap)
        return;
    WALK(ca2_run)(z);
    for (int b = 0; b < LANES; b++)
        p[b] = z->done;
    WALK(ca2_rebase)(z, p);
    top = 0;
    for (int b = 0; b < LANES; b++)
        top = z->w[b] > top ? z->w[b] : top;
    if (top + need + CA2_SLACK <= z->cap)
        return;
    WALK(ca2_catch_up)(z);
    WALK(ca2_rebase)(z, z->w);
}

/* The end of the walk: every lane's cases through its windows, and its count of cases. */
static void WALK(ca2_finish)(ca2_t *z)
{
    WALK(ca2_run)(z);
    WALK(ca2_catch_up)(z);
    for (int b = 0; b < LANES; b++)
        z->count[b] = (double)(z->w[b] + z->off[b]);
}

/* The statistics of lane b into o (REP_WIDTH per entry). */
static void WALK(walk_out)(const walk_t *w, const plan_t *pl, int b, double *o0)
{
    double P = w->ap[b], N = w->an[b];
    int inside = !w->out[b];
    for (int m = 0; m < pl->nk; m++) {
        const entry_t *e = &pl->e[m];
        const vd *v = w->v + w->off[m];
        double *o = o0 + (size_t)m * REP_WIDTH;
        o[0] = o[1] = o[2] = o[3] = 0.0;
        switch (e->kind) {
        case REP_ROC:
            o[0] = v[0][b];
            o[1] = P;
            o[2] = N;
            break;
        case REP_APR:
            o[0] = v[0][b];
            o[1] = P;
            o[2] = P + N;
            break;
        case REP_SQ:
            o[0] = v[0][b];
            o[1] = P + N;
            break;
        case REP_CXE:
        case REP_LL:
            o[0] = v[0][b];
            o[1] = v[1][b];
            o[2] = P + N;
            o[3] = inside;
            break;
        case REP_AP:
            o[0] = v[0][b];
            o[1] = P;
            break;
        case REP_NRM:
            o[0] = v[0][b];
            o[1] = P + N;
            break;
        case REP_THR:
            o[0] = v[0][b];
            o[1] = P - v[0][b];
            o[2] = v[1][b];
            o[3] = N - v[1][b];
            break;
        case REP_R50: {
            double limit = e->par < N ? e->par : N;
            o[0] = P == 0 || N == 0 ? NAN : v[0][b] / (limit * P);
            break;
        }
        case REP_RKL:
            o[0] = P + N == 0 ? NAN : (P == 0 || N == 0 ? P + N : v[0][b]);
            break;
        case REP_TOP1:
        case REP_TOP10:
            o[0] = v[0][b];
            break;
        case REP_NTOP: {
            double top = e->par < 0 ? P : e->par;
            o[0] = e->par < 0 && P == 0 ? NAN : v[0][b] / top;
            break;
        }
        case REP_SLQ: {
            int bins = e->nb;
            if (P + N == 0 || !inside || bins < 1) {
                o[0] = NAN;
                break;
            }
            double num = 0, tot_all = 0;
            for (int k = 0; k < bins; k++) {
                double x = v[2 * k][b], y = v[2 * k + 1][b], tot = x + y;
                double r = tot > 0 ? (x < y ? x : y) / tot : 0.0;
                num += tot * (1 - 2 * r) * (1 - 2 * r);
                tot_all += tot;
            }
            o[0] = num / tot_all;
            break;
        }
        case REP_CA1: {
            double sp[19] = {0}, sk[19] = {0}, ss[19] = {0};
            for (int k = 0; k < e->nb; k++) {
                double cp = v[3 * k][b], ck = v[3 * k + 1][b], cs = v[3 * k + 2][b];
                if (ck != 0)
                    for (int i = e->code_first[k]; i <= e->code_last[k]; i++) {
                        sp[i] += cp;
                        sk[i] += ck;
                        ss[i] += cs;
                    }
            }
            double errs = 0;
            for (int i = 0; i < 19; i++)
                if (sk[i] != 0)
                    errs += fabs(sp[i] / sk[i] - ss[i] / sk[i]);
            o[0] = errs / 19;
            break;
        }
        case REP_TOT:
            o[0] = P;
            o[1] = N;
            break;
        case REP_ECEW:
        case REP_ECEM: /* calibration._ece_of_bins, every norm: the bins in order, as there */
            if (P + N == 0 || !inside) {
                o[0] = o[1] = o[2] = o[3] = NAN;
                break;
            }
            {
                double n = 0, l1 = 0, l2 = 0, deb = 0, mx = -INFINITY;
                for (int k = 0; k < e->nb; k++)
                    n = n + v[3 * k][b];
                for (int k = 0; k < e->nb; k++) {
                    double W = v[3 * k][b], Pk = v[3 * k + 1][b], S = v[3 * k + 2][b];
                    double gap = W > 0 ? Pk / W - S / W : 0.0, t2 = W * gap * gap;
                    double ybar = W > 0 ? Pk / W : 0.0;
                    l1 = l1 + W * fabs(gap);
                    l2 = l2 + t2;
                    deb = deb + (t2 - (W > 1 ? W * ybar * (1.0 - ybar) / (W - 1.0) : 0.0));
                    if (W > 0 && fabs(gap) > mx)
                        mx = fabs(gap);
                }
                if (!(n > 0)) {
                    o[0] = o[1] = o[2] = o[3] = NAN;
                    break;
                }
                l2 = l2 / n;
                deb = deb / n;
                o[0] = l1 / n;
                o[1] = sqrt(l2 < 0.0 ? 0.0 : l2); /* np.maximum(v, 0.0): NaN stays */
                o[2] = sqrt(deb < 0.0 ? 0.0 : deb);
                o[3] = mx;
            }
            break;
        case REP_MURPHY:
            o[0] = v[0][b];
            o[1] = v[1][b];
            o[2] = P + N;
            o[3] = inside;
            break;
        case REP_PAUC_FPR:
        case REP_PAUC_TPR:
            o[0] = v[0][b];
            o[1] = P > 0 && N > 0;
            break;
        case REP_CA2: {
            const ca2_t *z = &w->ca2[w->ca2_of[m]];
            double windows = z->count[b] - (double)z->S + 1;
            o[0] = P + N < e->par || !z->S || !(windows > 0)
                       ? NAN
                       : (double)((z->total[b] + z->err[b]) / (ext)z->S / (ext)windows);
            break;
        }
        default:
            if (e->kind >= REP_TPR_FPR) { /* the value at the point picked, and its threshold */
                int both = e->kind != REP_PRE_REC && e->kind != REP_REC_PRE && e->kind != REP_FBETA &&
                           e->kind != REP_COST;
                int defined = e->kind == REP_COST ? P + N > 0 : (P > 0 && (!both || N > 0));
                double key = v[0][b];
                int higher = e->kind != REP_TOPLEFT && e->kind != REP_COST;
                if (defined && key != INFINITY) {
                    o[0] = higher ? -key : key;
                    o[1] = v[2][b];
                } else
                    o[0] = o[1] = NAN;
            }
            break;
        }
    }
}



#if defined(WALK_AVX512) || defined(WALK_AVX2)
/* Poisson(1) of the 53 bits x[b] of every lane from its table's thresholds T: the draw is the least
 * k with x <= T[k], that is the number of thresholds below x (T increases).  The first PO1_CHAIN
 * thresholds are compared in registers, every lane (no gather, no branch on the draw); a lane above
 * all of them (probability 1 - F(5) = 5.9e-4) scans on from there, as ptab_draw does: the same k. */
VINLINE void WALK(pois1)(const uint64_t *T, const uint64_t *x, double *out)
{
#if defined(WALK_AVX512) /* unsigned compares into masks, a masked add each */
    __m512i X = _mm512_loadu_si512((const void *)x), K = _mm512_setzero_si512(), one = _mm512_set1_epi64(1);
#pragma GCC unroll 16
    for (int j = 0; j < PO1_CHAIN; j++)
        K = _mm512_mask_add_epi64(K, _mm512_cmpgt_epu64_mask(X, _mm512_set1_epi64((long long)T[j])), K, one);
    __mmask8 far = _mm512_cmpeq_epi64_mask(K, _mm512_set1_epi64(PO1_CHAIN));
    if (__builtin_expect(far != 0, 0)) {
        uint64_t k[LANES];
        _mm512_storeu_si512((void *)k, K);
        for (int b = 0; b < LANES; b++)
            while (x[b] > T[k[b]])
                k[b]++;
        K = _mm512_loadu_si512((const void *)k);
    }
    _mm512_storeu_pd(out, _mm512_cvtepi64_pd(K)); /* exact: k is small */
#else /* AVX2: signed compares (all ones where true), subtracted */
    vm X, k = (vm){0};
    memcpy(&X, x, sizeof X);
    /* as signed numbers: x < 2^53, and so are these thresholds (the table's UINT64_MAX is its
     * last, past k = 18) */
#pragma GCC unroll 16
    for (int j = 0; j < PO1_CHAIN; j++)
        k -= X > (vm){0} + (long long)T[j];
    if (__builtin_expect(WALK(vany)(k == (vm){0} + PO1_CHAIN), 0))
        for (int b = 0; b < LANES; b++)
            while ((uint64_t)X[b] > T[k[b]])
                k[b]++;
    /* k below 2^52: 2^52 + k has k in its low bits, and less 2^52 is k exactly ((double)k's bits) */
    vd d = (vd)(k | ((vm){0} + 0x4330000000000000LL)) - WALK(vsplat)(0x1.0p52);
    memcpy(out, &d, sizeof d);
#endif
}
#endif

/* Poisson(lam) draws of counter ctr in every lane, written as loops of LANES that the compiler
 * vectorises (the hash; the table's lookups as gathers where the machine has them): the guide and
 * one step of the scan for every lane, the rare further steps lane by lane. */
VINLINE void WALK(lane_draws)(const pset *ps, int32_t id, double lam, const uint64_t *key, uint64_t ctr, double *out)
{
    uint64_t x[LANES];
    if (id == 0) {
        for (int b = 0; b < LANES; b++)
            out[b] = 0.0;
        return;
    }
    for (int b = 0; b < LANES; b++) {
        x[b] = draw_bits(key[b], ctr);
#if !defined(WALK_AVX512) && !defined(WALK_AVX2) /* SSE2 has no 64-bit multiply: lane by lane */
        __asm__("" : "+r"(x[b]));
#endif
    }
#if defined(WALK_AVX512) || defined(WALK_AVX2) /* (the baseline is faster with its guide) */
    if (id == 1) { /* Poisson(1), every distinct cell and every case: no gather */
        WALK(pois1)(ps->t[1].T, x, out);
        return;
    }
#endif
    if (id > 0) {
        const ptab *t = &ps->t[id];
        uint32_t g[LANES], scan = 0;
#if defined(WALK_AVX512) /* the guide's entries in one gather, converted in one instruction */
        __m512i X = _mm512_loadu_si512((const void *)x);
        __m256i Gv = _mm512_i64gather_epi32(_mm512_srli_epi64(X, 53 - GUIDE_BITS), (const void *)t->G, 4);
        if (!_mm256_movemask_ps(_mm256_castsi256_ps(Gv))) { /* no lane's bin holds a threshold */
            _mm512_storeu_pd(out, _mm512_cvtepi32_pd(Gv));
            return;
        }
        _mm256_storeu_si256((__m256i *)g, Gv);
        scan = GUIDE_SCAN;
#elif defined(WALK_AVX2) /* the same with AVX2's gather, four lanes */
        __m256i X = _mm256_loadu_si256((const void *)x);
        __m128i Gv = _mm256_i64gather_epi32((const int *)t->G, _mm256_srli_epi64(X, 53 - GUIDE_BITS), 4);
        if (!_mm_movemask_ps(_mm_castsi128_ps(Gv))) {
            _mm256_storeu_pd(out, _mm256_cvtepi32_pd(Gv));
            return;
        }
        _mm_storeu_si128((__m128i *)g, Gv);
        scan = GUIDE_SCAN;
#else
        for (int b = 0; b < LANES; b++) {
            g[b] = t->G[x[b] >> (53 - GUIDE_BITS)];
            scan |= g[b];
        }
#endif
        if (scan & GUIDE_SCAN) /* a lane's bin holds a threshold: that lane scans */
            for (int b = 0; b < LANES; b++)
                if (g[b] & GUIDE_SCAN) {
                    uint32_t k = g[b] & ~GUIDE_SCAN;
                    while (x[b] > t->T[k])
                        k++;
                    g[b] = k;
                }
        for (int b = 0; b < LANES; b++) /* below 2^31 now: as a signed int, one conversion instruction */
            out[b] = (double)(int32_t)g[b];
    } else
        for (int b = 0; b < LANES; b++)
            out[b] = poisson_slow(lam, x[b]);
}

/* The counts of cell c in every lane; 0 when no lane can have a positive there. */
VINLINE int WALK(cell_counts)(const src_t *s, const lanes_t *L, Py_ssize_t c, double *p, double *q)
{
    switch (s->mode) {
    case SRC_HIST: {
        int32_t ip = s->idp[c], in = s->idn[c];
        uint64_t cp = 2 * (uint64_t)c, cn = cp + 1;
        WALK(lane_draws)(s->ps, ip, s->lp[c], L->key, cp, p);
        WALK(lane_draws)(s->ps, in, s->ln[c], L->key, cn, q);
        return ip != 0;
    }
    case SRC_ROWS: {
        int64_t j0 = c ? s->gend[c - 1] : 0;
        if (s->gend[c] == j0 + 1) { /* the usual cell of distinct scores: one case */
            double k[LANES], w = s->ow ? s->ow[j0] : 1.0;
            int pos = s->ocls[j0];
            WALK(lane_draws)(s->ps, 1, 1.0, L->key, (uint64_t)s->order[j0], k);
            for (int b = 0; b < LANES; b++) {
                double x = s->ow ? w * k[b] : k[b];
                p[b] = pos ? x : 0.0;
                q[b] = pos ? 0.0 : x;
            }
            return pos;
        }
        for (int b = 0; b < LANES; b++)
            p[b] = q[b] = 0.0;
        for (int64_t j = j0; j < s->gend[c]; j++) {
            double k[LANES], w = s->ow ? s->ow[j] : 1.0, *dst = s->ocls[j] ? p : q;
            WALK(lane_draws)(s->ps, 1, 1.0, L->key, (uint64_t)s->order[j], k);
            for (int b = 0; b < LANES; b++)
                dst[b] += s->ow ? w * k[b] : k[b];
        }
        return 1;
    }
    case SRC_GIVEN:
        for (int b = 0; b < LANES; b++) {
            p[b] = s->gp[c];
            q[b] = s->gq[c];
        }
        return s->gp[c] > 0;
    case SRC_JACK: {
        for (int b = 0; b < LANES; b++) {
            p[b] = s->gp[c];
            q[b] = s->gq[c];
        }
        for (int64_t j = c ? s->gend[c - 1] : 0; j < s->gend[c]; j++) {
            int64_t b = s->order[j] % s->G - L->g0;
            if (b >= 0 && b < LANES) {
                double w = s->ow ? s->ow[j] : 1.0;
                if (s->ocls[j])
                    p[b] -= w;
                else
                    q[b] -= w;
            }
        }
        for (int b = 0; b < LANES; b++) { /* a float residue below zero is no case */
            p[b] = p[b] > 0.0 ? p[b] : 0.0;
            q[b] = q[b] > 0.0 ? q[b] : 0.0;
        }
        return 1;
    }
    }
    return 1;
}


/* APR's groups of one cell in every lane: (b + 1)/(a + 1) + (b + 2)/(a + 2) + ... for the lanes whose
 * group is of one to three positives (a cell of distinct scores: apr_group's sum in one vector
 * step), apr_group for the others. */
VINLINE vd WALK(apr_cell)(vd P, vd Q, vd A, vd B)
{
    vd G = P + Q, zero = WALK(vsplat)(0.0), one = WALK(vsplat)(1.0);
    vm pos = P > zero, small = pos & (Q == zero) & (P <= WALK(vsplat)(3.0));
    vd t = zero;
    if (WALK(vany)(small)) {
        t = WALK(vblend)(small, (B + one) / (A + one), zero);
        if (WALK(vany)(small & (P >= WALK(vsplat)(2.0)))) {
            t += WALK(vblend)(small & (P >= WALK(vsplat)(2.0)), (B + 2.0) / (A + 2.0), zero);
            t += WALK(vblend)(small & (P >= WALK(vsplat)(3.0)), (B + 3.0) / (A + 3.0), zero);
        }
    }
    vm rest = pos & ~small;
    if (!WALK(vany)(rest))
        return t;
    /* apr_group's expansion for the lanes it takes, all at once (the same operations) */
    vm series = rest & (G > WALK(vsplat)(4.0)) & (A >= 16 * G) & (G <= WALK(vsplat)(APR_LOOP_MAX));
    if (WALK(vany)(series)) {
        vd X = A + (G + 1) / 2, H = (G - 1) / 2, Y = one / X, Y2 = Y * Y, GG = G * G;
        vd odd = APR_ODD(G, GG, Y2);
        vd S1 = Y * (G + Y2 * odd), S2 = H * S1 - Y2 * odd;
        t = WALK(vblend)(series, P / G * ((B + 1.0) * S1 + (P - 1.0) / (G - 1.0) * S2), t);
        rest &= ~series;
    }
    if (WALK(vany)(rest))
        for (int b = 0; b < LANES; b++)
            if (rest[b])
                t[b] = apr_group(P[b], G[b], A[b], B[b]);
    return t;
}

/* CA2 over a block of n cells (cell i: counts P[i], Q[i], score sc[-i]) in every lane (see ca2_t):
 * a lane takes a cell's value k times, k the number of whole j >= 0 below its count P + Q (its
 * count, or the count rounded up if it is not whole); the cells where some lane has cases count
 * towards the resyncs.  First each cell's value and each lane's row in it, then the rows written
 * (a cell's first three rows written in every lane, its k counted: no branch on k; the rare k > 3
 * after), then the windows down the rows every lane has. */
static void WALK(ca2_block)(ca2_t *z, const vd *P, const vd *Q, const double *sc, int n)
{
    vd val[WALK_CELLS];
    vm rel[WALK_CELLS + 1]; /* each lane's rows before cell i, from the block's start */
    unsigned char rare[WALK_CELLS];
    int evc[LANES]; /* each lane's resync: at the end of its cell evc[b] (one a block at most), or -1 */
    const vd zero = WALK(vsplat)(0.0), one = WALK(vsplat)(1.0), two = WALK(vsplat)(2.0),
             three = WALK(vsplat)(3.0);
    _Static_assert(WALK_CELLS < CA2_RESYNC, "one resync a block at most");
    long long pend = 0;
    for (int b = 0; b < LANES; b++)
        pend = z->evt[b] - z->evh[b] > pend ? z->evt[b] - z->evh[b] : pend;
    if (pend >= CA2_EV - 1) { /* a lane far behind: everyone's cases in, the lanes levelled */
        WALK(ca2_catch_up)(z);
        WALK(ca2_rebase)(z, z->w);
    }
    vm at = (vm){0};
    for (int b = 0; b < LANES; b++)
        evc[b] = -1;
    for (int i = 0; i < n; i++) {
        vd size = P[i] + Q[i];
        vm pos = size > zero;
        val[i] = WALK(vblend)(pos, P[i] / size - sc[-i], zero);
        rel[i] = at;
        at -= pos + (size > one) + (size > two);
        vm more = size > three;
        rare[i] = (unsigned char)WALK(vany)(more);
        if (rare[i])
            for (int b = 0; b < LANES; b++)
                if (more[b])
                    at[b] += (long long)ceil(size[b]) - 3;
        /* a lane's own count of cells with a case: its resyncs do not depend on the lanes beside it */
        if (WALK(vany)(pos))
            for (int b = 0; b < LANES; b++)
                if (pos[b] && ++z->since[b] >= CA2_RESYNC && z->since[b] >= z->S) {
                    evc[b] = i;
                    z->since[b] = 0;
                }
    }
    rel[n] = at;
    long long need = 0;
    for (int b = 0; b < LANES; b++)
        need = at[b] > need ? at[b] : need;
    if (need <= (z->cap - 2 * z->S) / 2) {
        WALK(ca2_room)(z, need);
        vm w0;
        for (int b = 0; b < LANES; b++)
            w0[b] = z->w[b];
        double *buf = z->buf;
        for (int i = 0; i < n; i++) {
            vm row = rel[i] + w0;
#pragma GCC unroll 8
            for (int b = 0; b < LANES; b++) {
                double *o = buf + row[b] * LANES + b, x = val[i][b];
                o[0] = x;
                o[LANES] = x;
                o[2 * LANES] = x;
            }
            if (rare[i])
                for (int b = 0; b < LANES; b++)
                    for (long long r = row[b] + 3; r < rel[i + 1][b] + w0[b]; r++)
                        buf[r * LANES + b] = val[i][b];
        }
        for (int b = 0; b < LANES; b++)
            z->w[b] += at[b];
        for (int b = 0; b < LANES; b++) /* at the end of cell evc[b]: rows counted from w */
            if (evc[b] >= 0)
                z->ev[z->evt[b]++ % CA2_EV][b] = z->w[b] - (at[b] - rel[evc[b] + 1][b]);
    } else /* a lane's cells of many cases: cell by cell, in pieces the buffer holds */
        for (int i = 0; i < n; i++) {
            for (int b = 0; b < LANES; b++)
                for (long long k = rel[i + 1][b] - rel[i][b]; k > 0;) {
                    long long piece = k < (z->cap - 2 * z->S) / 2 ? k : (z->cap - 2 * z->S) / 2;
                    WALK(ca2_room)(z, piece);
                    for (long long r = z->w[b]; r < z->w[b] + piece; r++)
                        z->buf[r * LANES + b] = val[i][b];
                    z->w[b] += piece;
                    k -= piece;
                }
            for (int b = 0; b < LANES; b++)
                if (evc[b] == i)
                    z->ev[z->evt[b]++ % CA2_EV][b] = z->w[b];
        }
    WALK(ca2_run)(z);
}

/* One entry of the plan over a block of n cells, the highest first: cell hi - 1 - i has counts
 * P[i], Q[i] and AP[i], AN[i] above it (haspos[i]: it may hold a positive). */
static inline void WALK(walk_entry)(walk_t *w, const plan_t *pl, int m, const src_t *s, Py_ssize_t hi, int n,
                                    const vd *P, const vd *Q, const vd *AP, const vd *AN, const int *haspos)
{
    const entry_t *e = &pl->e[m];
    vd *v = w->v + w->off[m];
    const vd zero = WALK(vsplat)(0.0), one = WALK(vsplat)(1.0);
    const double *sc = s->sc + hi - 1; /* sc[-i]: the score of the block's cell i */
    switch (e->kind) {
    case REP_ROC: { /* area += q (P above + p / 2): pairs of a positive above a negative, ties half */
        vd a = v[0];
        for (int i = 0; i < n; i++)
            a += Q[i] * (AP[i] + 0.5 * P[i]);
        v[0] = a;
        break;
    }
    case REP_APR: {
        vd a = v[0];
        for (int i = 0; i < n; i++)
            if (haspos[i]) /* a cell without a positive adds nothing */
                a += WALK(apr_cell)(P[i], Q[i], AP[i] + AN[i], AP[i]);
        v[0] = a;
        break;
    }
    case REP_SQ: { /* a drawn cell's (an undrawn one of score +-inf would add 0 x inf = NaN) */
        vd a = v[0];
        for (int i = 0; i < n; i++) {
            double c = sc[-i];
            a += WALK(vblend)(P[i] + Q[i] > zero, P[i] * (1 - c) * (1 - c) + Q[i] * c * c, zero);
        }
        v[0] = a;
        break;
    }
    case REP_CXE: /* a positive's and a negative's term of the cell times its weights (none: 0) */
    case REP_LL: {
        vd a = v[0], b = v[1];
        for (int i = 0; i < n; i++) {
            Py_ssize_t c = hi - 1 - i;
            double ls, lc;
            if (e->tpos) {
                ls = e->tpos[c];
                lc = e->tneg[c];
            } else
                cell_terms(e->kind, e->par, sc[-i], &ls, &lc);
            a += WALK(vblend)(P[i] > zero, ls * P[i], zero);
            b += WALK(vblend)(Q[i] > zero, lc * Q[i], zero);
        }
        v[0] = a;
        v[1] = b;
        break;
    }
    case REP_NRM: { /* p |1 - s|^par + q |s|^par over the drawn cells (no guard: 0 * inf is NaN there too) */
        vd a = v[0];
        for (int i = 0; i < n; i++) {
            Py_ssize_t c = hi - 1 - i;
            double tp, tn;
            if (e->tpos) {
                tp = e->tpos[c];
                tn = e->tneg[c];
            } else
                cell_terms(e->kind, e->par, sc[-i], &tp, &tn);
            a += WALK(vblend)(P[i] + Q[i] > zero, P[i] * tp + Q[i] * tn, zero);
        }
        v[0] = a;
        break;
    }
    case REP_AP: { /* p * TP / (TP + FP), TP and FP the running sums from the top, this cell's included */
        vd a = v[0];
        for (int i = 0; i < n; i++)
            if (haspos[i]) {
                vd tp = AP[i] + P[i], cnt = tp + (AN[i] + Q[i]);
                a += WALK(vblend)(P[i] > zero, P[i] * (tp / cnt), zero);
            }
        v[0] = a;
        break;
    }
    case REP_THR: /* the cells at or above the threshold: the top of the walk */
        for (int i = 0; i < n && sc[-i] >= e->par; i++) {
            v[0] += P[i];
            v[1] += Q[i];
        }
        break;
    case REP_R50: /* the negatives of a cell within the first par negatives from the top */
        if (!WALK(vany)(WALK(vsplat)(e->par) - AN[0] > zero))
            break;
        for (int i = 0; i < n; i++) {
            vm live = (WALK(vsplat)(e->par) - AN[i] > zero) & (Q[i] > zero);
            if (WALK(vany)(live))
                for (int b = 0; b < LANES; b++)
                    if (live[b]) {
                        double take = e->par - AN[i][b];
                        take = take > Q[i][b] ? Q[i][b] : take;
                        double slope = P[i][b] / Q[i][b];
                        v[0][b] += take * AP[i][b] + 0.5 * slope * take * take;
                    }
        }
        break;
    case REP_RKL: /* the cases at or above the lowest cell with a positive */
        for (int i = 0; i < n; i++)
            v[0] = WALK(vblend)(P[i] > zero, AP[i] + AN[i] + P[i] + Q[i], v[0]);
        break;
    case REP_TOP1: /* v[1]: a cell drawn above */
        if (!WALK(vany)(v[1] == zero))
            break;
        for (int i = 0; i < n; i++) {
            vm first = (P[i] + Q[i] > zero) & (v[1] == zero);
            v[0] = WALK(vblend)(first, WALK(vblend)((Q[i] == zero) & (P[i] > zero), one, zero), v[0]);
            v[1] = WALK(vblend)(P[i] + Q[i] > zero, one, v[1]);
        }
        break;
    case REP_TOP10:
        if (!WALK(vany)(AP[0] + AN[0] < WALK(vsplat)(10.0)))
            break;
        for (int i = 0; i < n; i++)
            v[0] = WALK(vblend)((P[i] > zero) & (AP[i] + AN[i] + Q[i] < WALK(vsplat)(10.0)), one, v[0]);
        break;
    case REP_NTOP: /* the top par cases (par < 0: the top P, in the second walk) */
        if (e->par < 0 || !WALK(vany)(AP[0] + AN[0] < WALK(vsplat)(e->par)))
            break;
        for (int i = 0; i < n; i++) {
            vd above = AP[i] + AN[i], size = P[i] + Q[i];
            vm live = (above < WALK(vsplat)(e->par)) & (size > zero);
            if (WALK(vany)(live))
                for (int b = 0; b < LANES; b++)
                    if (live[b]) {
                        double take = e->par - above[b];
                        take = take > size[b] ? size[b] : take;
                        v[0][b] += take * (P[i][b] / size[b]);
                    }
        }
        break;
    case REP_SLQ: /* per bin (a run of cells of one bin summed in registers) */
        for (int i = 0; i < n && e->nb > 0;) {
            int k = e->bin[hi - 1 - i];
            vd x = v[2 * k], y = v[2 * k + 1];
            for (; i < n && e->bin[hi - 1 - i] == k; i++) {
                x += P[i];
                y += Q[i];
            }
            v[2 * k] = x;
            v[2 * k + 1] = y;
        }
        break;
    case REP_CA1: /* per run of bins (a run of cells of one code summed in registers) */
        for (int i = 0; i < n;) {
            int k = e->bin[hi - 1 - i];
            if (k < 0) {
                i++;
                continue;
            }
            vd x = v[3 * k], y = v[3 * k + 1], z = v[3 * k + 2];
            for (; i < n && e->bin[hi - 1 - i] == k; i++) {
                vd tot = P[i] + Q[i];
                x += P[i];
                y += tot;
                z += sc[-i] * tot;
            }
            v[3 * k] = x;
            v[3 * k + 1] = y;
            v[3 * k + 2] = z;
        }
        break;
    case REP_CA2:
        if (w->ca2[w->ca2_of[m]].S)
            WALK(ca2_block)(&w->ca2[w->ca2_of[m]], P, Q, sc, n);
        break;
    case REP_ECEW: /* per bin: weight, positives, score x weight (a drawn cell's: an undrawn one adds
                      nothing, whatever its score); a run of cells of one bin summed in registers */
        for (int i = 0; i < n;) {
            int k = e->bin[hi - 1 - i];
            vd x = v[3 * k], y = v[3 * k + 1], z = v[3 * k + 2];
            for (; i < n && e->bin[hi - 1 - i] == k; i++) {
                vd size = P[i] + Q[i];
                x += size;
                y += P[i];
                z += WALK(vblend)(size > zero, sc[-i] * size, zero);
            }
            v[3 * k] = x;
            v[3 * k + 1] = y;
            v[3 * k + 2] = z;
        }
        break;
    default: /* REP_TOT, REP_ARG: nothing per cell; the second walk's kinds: walk_totals */
        break;
    }
}

/* The square root of every lane: IEEE's, correctly rounded (numpy's), one instruction where the
 * machine has it (a lane loop of sqrt() keeps errno's branch under the project's flags). */
VINLINE vd WALK(vsqrt)(vd x)
{
#if defined(WALK_AVX512)
    return (vd)_mm512_sqrt_pd((__m512d)x);
#elif defined(WALK_AVX2)
    return (vd)_mm256_sqrt_pd((__m256d)x);
#elif defined(__SSE2__) && WALK_LANES == 2
    return (vd)_mm_sqrt_pd((__m128d)x);
#else
    vd r;
    for (int b = 0; b < LANES; b++)
        r[b] = sqrt(x[b]);
    return r;
#endif
}

/* The lanes of a target's point whose float rate is near the target (exactcmp.h's xc_slack: sums of
 * at most the source's K cells), their decisions made exactly (xwalk_meets), lane by lane: ok with
 * those lanes' decisions.  Only where some lane's rate is near the target (rarely). */
static vm WALK(pick_exact)(walk_t *w, int m, const entry_t *e, const src_t *s, const lanes_t *L, Py_ssize_t c,
                           vm ok, vm near, vd TP, vd FP, vd Pt, vd Nt)
{
    for (int b = 0; b < LANES && b < L->nl; b++)
        if (near[b]) {
            int r = xwalk_meets(w->x, m, e, s, L, b, c, TP[b], FP[b], Pt[b], Nt[b]);
            if (r >= 0)
                ok[b] = r ? -1 : 0;
        }
    return ok;
}

/* One operating point (TP, FP at threshold thr: the cells K - 1 .. c of source s, c = K for the point
 * above them all) of pick entry m in every lane, against the lanes' best so far (v[0] its key, v[1]
 * its other key, v[2] its threshold; v[3] the lanes whose points can no longer qualify):
 * perfeval.measures.operating's value and target of the point in the same IEEE operations, and
 * _pick's order (the least key, the value negated where higher is better; then the least other key;
 * then the first point).  live: the lanes where the point is one of the replicate's (a cell drawn
 * there; an undrawn cell repeats the point before it, which no repeat can beat).  A target's point
 * near it (exactcmp.h) in a lane: with `exact`, decided exactly there (pick_exact); without, by the
 * float rate, and the lane added to *nearby if given (the caller walks such a block again with
 * `exact`; without nearby, the caller knows no point of the block is near its target). */
VINLINE void WALK(pick_point)(walk_t *w, int m, const entry_t *e, const src_t *s, const lanes_t *L, Py_ssize_t c,
                              vd *v, vd TP, vd FP, vd Pt, vd Nt, vd thr, vm live, int exact, vm *nearby)
{
    const vd zero = WALK(vsplat)(0.0), vnan = WALK(vsplat)(NAN), par = WALK(vsplat)(e->par);
    const vm all = (vm){0} == (vm){0};
    vd val, o = zero, rate = vnan;
    vm ok = all;
    int higher = 1, prefix = 0;
    switch (e->kind) {
    case REP_TPR_FPR: { /* the target's points are the first ones: FP / N only grows */
        vd fpr = FP / Nt;
        val = TP / Pt;
        ok = fpr <= par;
        o = fpr;
        prefix = 1;
        rate = fpr;
        break;
    }
    case REP_SEN_SPC: {
        vd spc = (Nt - FP) / Nt;
        val = TP / Pt;
        ok = spc >= par;
        o = -spc;
        prefix = 1;
        rate = spc;
        break;
    }
    case REP_SPC_SEN: {
        vd sen = TP / Pt;
        val = (Nt - FP) / Nt;
        ok = sen >= par;
        o = -sen;
        rate = sen;
        break;
    }
    case REP_PRE_REC: {
        vd rec = TP / Pt, den = TP + FP;
        val = WALK(vblend)(den != zero, TP / den, vnan);
        ok = rec >= par;
        o = -rec;
        rate = rec;
        break;
    }
    case REP_REC_PRE: {
        vd den = TP + FP, pre = WALK(vblend)(den != zero, TP / den, vnan);
        val = TP / Pt;
        ok = pre >= par; /* a NaN precision (nothing predicted positive) is no candidate */
        o = WALK(vblend)(pre == pre, -pre, WALK(vsplat)(INFINITY));
        rate = pre;
        break;
    }
    case REP_YOUDEN:
        val = TP / Pt - FP / Nt;
        break;
    case REP_TOPLEFT: {
        vd fpr = FP / Nt, fnr = (Pt - TP) / Pt;
        val = WALK(vsqrt)(fpr * fpr + fnr * fnr);
        higher = 0;
        break;
    }
    case REP_FBETA: {
        double b2 = e->par * e->par;
        vd num = (1 + b2) * TP, den = (1 + b2) * TP + b2 * (Pt - TP) + FP;
        val = WALK(vblend)(den != zero, num / den, vnan);
        break;
    }
    case REP_MCC: { /* every weight scaled by the power of two at Pt + Nt: operating.c's mcc_unit */
        vm eb = (vm)(Pt + Nt) & 0x7FF0000000000000LL;
        vm inr = (eb >= (1LL << 52)) & (eb <= (2044LL << 52));
        vd u = WALK(vblend)(inr, (vd)(0x7FD0000000000000LL - eb), WALK(vsplat)(1.0));
        vd tq = TP * u, fq = FP * u, pq = Pt * u, nq = Nt * u;
        vd fn = pq - tq, tn = nq - fq, den = WALK(vsqrt)((tq + fq) * pq * nq * (tn + fn));
        val = WALK(vblend)(den != zero, (tq * tn - fq * fn) / den, vnan);
        break;
    }
    default: /* REP_COST */
        val = e->par * TP + e->arg[0] * (Pt - TP) + e->arg[1] * FP + e->arg[2] * (Nt - FP);
        higher = 0;
        break;
    }
    if (e->kind <= REP_REC_PRE && (exact || nearby)) { /* near its target (a NaN rate never is) */
        vm near = live & (rate >= WALK(vsplat)(e->near_lo)) & (rate <= WALK(vsplat)(e->near_hi));
        if (!exact)
            *nearby |= near;
        else if (WALK(vany)(near))
            ok = WALK(pick_exact)(w, m, e, s, L, c, ok, near, TP, FP, Pt, Nt);
    }
    vd key = higher ? -val : val;
    vm good = live & ok & (val - val == zero); /* finite */
    vm better = good & ((key < v[0]) | ((key == v[0]) & (o < v[1])));
    v[0] = WALK(vblend)(better, key, v[0]);
    v[1] = WALK(vblend)(better, o, v[1]);
    v[2] = WALK(vblend)(better, thr, v[2]);
    if (prefix)
        v[3] = (vd)((vm)v[3] | (live & ~ok));
}

/* A second-walk entry's start, at the point before the first cell (threshold +inf: TP = FP = 0). */
static void WALK(totals_start)(walk_t *w, const plan_t *pl, int m, const src_t *s, const lanes_t *L, vd Pt, vd Nt)
{
    const entry_t *e = &pl->e[m];
    vd *v = w->v + w->off[m];
    const vd zero = WALK(vsplat)(0.0), inf = WALK(vsplat)(INFINITY);
    const vm all = (vm){0} == (vm){0};
    switch (e->kind) {
    case REP_ECEM: /* the bin of the highest cell: down from B - 1; its sums from 0.0 */
        v[3 * e->nb] = WALK(vsplat)((double)(e->nb - 1));
        v[3 * e->nb + 1] = v[3 * e->nb + 2] = v[3 * e->nb + 3] = zero;
        break;
    case REP_MURPHY:
        break;
    case REP_PAUC_FPR:
    case REP_PAUC_TPR: {
        vd tpr = zero / Pt, fpr = zero / Nt; /* _ratio: NaN without positives or negatives */
        v[0] = zero;
        v[1] = e->kind == REP_PAUC_FPR ? fpr : tpr;
        v[2] = e->kind == REP_PAUC_FPR ? tpr : 1.0 - fpr;
        break;
    }
    default:
        if (e->kind >= REP_TPR_FPR) {
            v[0] = v[1] = inf;
            v[2] = WALK(vsplat)(NAN);
            v[3] = zero;
            WALK(pick_point)(w, m, e, s, L, s->K, v, zero, zero, Pt, Nt, inf, all, 1, NULL);
        }
    }
}

/* The lanes where a second-walk entry has nothing left to gather (the rest of the cells cannot change
 * it): a pick of a target that only the first points meet, past them; a partial area past its range. */
VINLINE vm WALK(totals_done)(const walk_t *w, const plan_t *pl, int m)
{
    const entry_t *e = &pl->e[m];
    const vd *v = w->v + w->off[m];
    switch (e->kind) {
    case REP_TPR_FPR:
    case REP_SEN_SPC:
        return (vm)v[3];
    case REP_PAUC_FPR:
    case REP_PAUC_TPR:
        return ~(v[1] < WALK(vsplat)(e->par)); /* x >= hi (or NaN: no area) */
    default:
        return (vm){0};
    }
}

/* One second-walk entry over a block of n cells, the highest first (walk_entry's layout), each lane's
 * totals Pt, Nt known. */
static inline void WALK(walk_entry2)(walk_t *w, const plan_t *pl, int m, const src_t *s, const lanes_t *L,
                                     Py_ssize_t hi, int n, const vd *P, const vd *Q, const vd *AP, const vd *AN,
                                     vd Pt, vd Nt)
{
    const entry_t *e = &pl->e[m];
    vd *v = w->v + w->off[m];
    const vd zero = WALK(vsplat)(0.0);
    const double *sc = s->sc + hi - 1; /* sc[-i]: the score of the block's cell i */
    switch (e->kind) {
    case REP_ECEM: { /* each lane's bin: the largest k in 0 .. B - 1 with k == 0 or k total <= B below
                        (below: the weight under the cell), which only falls as the walk goes down: a
                        lane's bins come one after another, each a run of cells whose sums are kept in
                        registers (v[3B + 1 ..]: from 0.0, cell after cell) and stored into the bin when
                        the lane steps down to the next (walk_totals stores the last) */
        const vd Bd = WALK(vsplat)((double)e->nb), total = Pt + Nt;
        vd *cur = &v[3 * e->nb], x = cur[1], y = cur[2], z = cur[3], k = cur[0];
        for (int i = 0; i < n; i++) {
            vd size = P[i] + Q[i], lhs = (total - (AP[i] + AN[i]) - size) * Bd;
            vm live = size > zero, down = live & (k > zero) & ~(k * total <= lhs);
            if (__builtin_expect(WALK(vany)(down), 0))
                for (int b = 0; b < LANES; b++)
                    if (down[b]) {
                        int j = (int)k[b];
                        v[3 * j][b] += x[b];
                        v[3 * j + 1][b] += y[b];
                        v[3 * j + 2][b] += z[b];
                        x[b] = y[b] = z[b] = 0.0;
                        double kb = k[b] - 1;
                        while (kb > 0 && !(kb * total[b] <= lhs[b]))
                            kb -= 1;
                        k[b] = kb;
                    }
            x += size;
            y += P[i];
            z += WALK(vblend)(live, sc[-i] * size, zero);
        }
        cur[0] = k;
        cur[1] = x;
        cur[2] = y;
        cur[3] = z;
        break;
    }
    case REP_MURPHY: { /* a drawn cell's w (s - o_s)^2 and w (o_s - o)^2, o_s its share of positives */
        vd obar = Pt / (Pt + Nt), a = v[0], d = v[1];
        for (int i = 0; i < n; i++) {
            vd size = P[i] + Q[i], ybar = P[i] / size, e1 = sc[-i] - ybar, e2 = ybar - obar;
            vm live = size > zero;
            a = WALK(vblend)(live, a + size * (e1 * e1), a);
            d = WALK(vblend)(live, d + size * (e2 * e2), d);
        }
        v[0] = a;
        v[1] = d;
        break;
    }
    case REP_PAUC_FPR:
    case REP_PAUC_TPR: { /* operating._pauc: each segment from the point before, clipped to [lo, hi] */
        const vd lo = WALK(vsplat)(e->arg[0]), hic = WALK(vsplat)(e->par);
        vd area = v[0], x0 = v[1], y0 = v[2];
        for (int i = 0; i < n; i++) {
            vd TP = AP[i] + P[i], FP = AN[i] + Q[i], tpr = TP / Pt, fpr = FP / Nt;
            vd x1 = e->kind == REP_PAUC_FPR ? fpr : tpr, y1 = e->kind == REP_PAUC_FPR ? tpr : 1.0 - fpr;
            /* np.maximum / np.minimum (NaN in, NaN out) */
            vd left = WALK(vblend)(x0 != x0, x0, WALK(vblend)(x0 >= lo, x0, lo));
            vd right = WALK(vblend)(x1 != x1, x1, WALK(vblend)(x1 <= hic, x1, hic));
            vm seg = (x1 > x0) & (right > left);
            if (WALK(vany)(seg)) {
                vd slope = (y1 - y0) / (x1 - x0);
                vd yl = WALK(vblend)(left == x0, y0, y0 + slope * (left - x0));
                vd yr = WALK(vblend)(right == x1, y1, y0 + slope * (right - x0));
                area = WALK(vblend)(seg, area + (right - left) * (yl + yr) / 2, area);
            }
            x0 = x1;
            y0 = y1;
        }
        v[0] = area;
        v[1] = x0;
        v[2] = y0;
        break;
    }
    default: { /* the picks.  A block with a point near its target in some lane (rarely) is walked
                  again from the same best, those points decided exactly.  A rate that only grows
                  or only falls down the walk (all but the precision: FP and TP only grow) is near its
                  target somewhere in the block only if the band meets the range of its first and
                  last points' rates: no test a point, but for the precision */
        vd kept[4] = {v[0], v[1], v[2], v[3]};
        vm nearby = (vm){0};
        int target = e->kind <= REP_REC_PRE, monotone = target && e->kind != REP_REC_PRE;
        if (monotone) {
            vd r[2];
            for (int k = 0; k < 2; k++) {
                int i = k ? n - 1 : 0;
                vd TP = AP[i] + P[i], FP = AN[i] + Q[i];
                r[k] = e->kind == REP_TPR_FPR ? FP / Nt : e->kind == REP_SEN_SPC ? (Nt - FP) / Nt : TP / Pt;
            }
            vd low = WALK(vblend)(r[0] < r[1], r[0], r[1]), high = WALK(vblend)(r[0] < r[1], r[1], r[0]);
            nearby = (high >= WALK(vsplat)(e->near_lo)) & (low <= WALK(vsplat)(e->near_hi));
        }
        for (int i = 0; i < n; i++)
            WALK(pick_point)(w, m, e, s, L, hi - 1 - i, v, AP[i] + P[i], AN[i] + Q[i], Pt, Nt, WALK(vsplat)(sc[-i]),
                             P[i] + Q[i] > zero, 0, target && !monotone ? &nearby : NULL);
        if (target && __builtin_expect(WALK(vany)(nearby), 0)) {
            for (int k = 0; k < 4; k++)
                v[k] = kept[k];
            for (int i = 0; i < n; i++)
                WALK(pick_point)(w, m, e, s, L, hi - 1 - i, v, AP[i] + P[i], AN[i] + Q[i], Pt, Nt,
                                 WALK(vsplat)(sc[-i]), P[i] + Q[i] > zero, 1, NULL);
        }
    }
    }
}

/* The second walk down the cells (the same draws again), each lane's P and N known from the first:
 * the entries of rep_second.  It stops where every such entry is done in every lane in use. */
static void WALK(walk_totals)(walk_t *w, const plan_t *pl, const src_t *s, const lanes_t *L)
{
    vd P[WALK_CELLS], Q[WALK_CELLS], AP[WALK_CELLS], AN[WALK_CELLS];
    double p[LANES] __attribute__((aligned(64))), q[LANES] __attribute__((aligned(64)));
    const vd Pt = w->ap, Nt = w->an;
    vm unused = (vm){0};
    for (int b = L->nl; b < LANES; b++)
        unused[b] = -1;
    if (w->x)
        xwalk_start(w->x, s); /* new lanes: the exact sums of the last ones are not theirs */
    for (int m = 0; m < pl->nk; m++)
        if (rep_second(pl->e[m].kind))
            WALK(totals_start)(w, pl, m, s, L, Pt, Nt);
    vd ap = WALK(vsplat)(0.0), an = ap;
    for (Py_ssize_t hi = s->K; hi > 0; hi -= WALK_CELLS) {
        vm done = ~(vm){0};
        for (int m = 0; m < pl->nk; m++)
            if (rep_second(pl->e[m].kind))
                done &= WALK(totals_done)(w, pl, m) | unused;
        if (!WALK(vany)(~done))
            break;
        int n = hi >= WALK_CELLS ? WALK_CELLS : (int)hi;
        for (int i = 0; i < n; i++) {
            WALK(cell_counts)(s, L, hi - 1 - i, p, q);
            memcpy(&P[i], p, sizeof P[i]);
            memcpy(&Q[i], q, sizeof Q[i]);
            AP[i] = ap;
            AN[i] = an;
            ap += P[i];
            an += Q[i];
        }
        for (int m = 0; m < pl->nk; m++)
            if (rep_second(pl->e[m].kind))
                WALK(walk_entry2)(w, pl, m, s, L, hi, n, P, Q, AP, AN, Pt, Nt);
    }
    for (int m = 0; m < pl->nk; m++) /* each lane's last equal-mass bin stored */
        if (pl->e[m].kind == REP_ECEM) {
            vd *v = w->v + w->off[m], *cur = &v[3 * pl->e[m].nb];
            for (int b = 0; b < LANES; b++) {
                int j = (int)cur[0][b];
                v[3 * j][b] += cur[1][b];
                v[3 * j + 1][b] += cur[2][b];
                v[3 * j + 2][b] += cur[3][b];
            }
        }
}

/* PRB's second walk down the cells, once the lanes' P are known: positives among the top P cases
 * (the cells drawn again, as far down as the lane with the most cases above its P needs). */
static void WALK(walk_prb)(walk_t *w, const plan_t *pl, const src_t *s, const lanes_t *L)
{
    double p[LANES] __attribute__((aligned(64))), q[LANES] __attribute__((aligned(64)));
    const vd zero = WALK(vsplat)(0.0), top = w->ap;
    vd above = zero, got = zero;
    vm used = (vm){0};
    for (int b = 0; b < L->nl; b++)
        used[b] = -1;
    for (Py_ssize_t c = s->K - 1; c >= 0 && WALK(vany)(used & (above < top)); c--) {
        vd P, Q;
        WALK(cell_counts)(s, L, c, p, q);
        memcpy(&P, p, sizeof P);
        memcpy(&Q, q, sizeof Q);
        vd size = P + Q, take = top - above;
        vm live = (take > zero) & (size > zero);
        take = WALK(vblend)(take > size, size, take);
        got += WALK(vblend)(live, take * (P / size), zero);
        above += size;
    }
    for (int m = 0; m < pl->nk; m++)
        if (pl->e[m].kind == REP_NTOP && pl->e[m].par < 0)
            w->v[w->off[m]] = got;
}

/* One block of lanes walked: every statistic of the plan of each lane into out + b * stride.  The
 * cells are taken WALK_CELLS at a time: their counts drawn and the weights above each summed, then
 * each entry of the plan runs over them (its own tight loop, no choice of entry per cell; an entry
 * done at the top of the walk, as TOP10 or R50, costs nothing below). */
static void WALK(walk_block)(walk_t *w, const plan_t *pl, const src_t *s, const lanes_t *L, double *out,
                              size_t stride)
{
    vd P[WALK_CELLS], Q[WALK_CELLS], AP[WALK_CELLS], AN[WALK_CELLS];
    int haspos[WALK_CELLS];
    double p[LANES] __attribute__((aligned(64))), q[LANES] __attribute__((aligned(64)));
    const vd zero = WALK(vsplat)(0.0);
    WALK(walk_reset)(w, pl);
    for (Py_ssize_t hi = s->K; hi > 0; hi -= WALK_CELLS) {
        int n = hi >= WALK_CELLS ? WALK_CELLS : (int)hi;
        vd ap = w->ap, an = w->an;
        for (int i = 0; i < n; i++) {
            haspos[i] = WALK(cell_counts)(s, L, hi - 1 - i, p, q); /* every lane (the unused ones are thrown away) */
            memcpy(&P[i], p, sizeof P[i]);
            memcpy(&Q[i], q, sizeof Q[i]);
            AP[i] = ap;
            AN[i] = an;
            ap += P[i];
            an += Q[i];
        }
        for (int m = 0; m < pl->nk; m++)
            WALK(walk_entry)(w, pl, m, s, hi, n, P, Q, AP, AN, haspos);
        if (w->ranged)
            for (int i = 0; i < n; i++) {
                double c = s->sc[hi - 1 - i];
                if (!(c >= 0.0 && c <= 1.0))
                    w->out |= P[i] + Q[i] > zero;
            }
        w->ap = ap;
        w->an = an;
    }
    for (int i = 0; i < w->nca2; i++)
        if (w->ca2[i].S)
            WALK(ca2_finish)(&w->ca2[i]);
    if (pl->needs_P_first)
        WALK(walk_prb)(w, pl, s, L);
    if (pl->needs_totals)
        WALK(walk_totals)(w, pl, s, L);
    for (int b = 0; b < L->nl; b++)
        WALK(walk_out)(w, pl, b, out + (size_t)b * stride);
}

/* The copy's entry points, for resample.c's table of walks. */
static void *WALK(alloc)(const plan_t *pl)
{
    walk_t *w = aligned_alloc(sizeof(vd), (sizeof(walk_t) + sizeof(vd) - 1) / sizeof(vd) * sizeof(vd));
    if (w && WALK(walk_alloc)(w, pl) < 0) {
        WALK(walk_free)(w);
        free(w);
        w = NULL;
    }
    return w;
}

static void WALK(release)(void *w)
{
    if (w) {
        WALK(walk_free)(w);
        free(w);
    }
}

static void WALK(run)(void *w, const plan_t *pl, const src_t *s, const lanes_t *L, double *out, size_t stride)
{
    WALK(walk_block)((walk_t *)w, pl, s, L, out, stride);
}

static const walk_ops WALK(ops) = {WALK_NAME, LANES, WALK(alloc), WALK(release), WALK(run)};

#undef LANES
#undef vd
#undef vm
#undef ca2_t
#undef walk_t
