/*
 * perfeval._x87, walk.h: the vector part of the replicate walk (resample.c), included by resample.c once
 * for each instruction set it is compiled for, with WALK(name) giving each copy's names.  GCC's vector
 * extension types are lowered to the instructions of the target in force where a function is
 * defined, so each copy is defined under its own `#pragma GCC target` (function clones of one
 * definition would keep the baseline's lowering).  Every copy computes the same IEEE operations lane
 * by lane: the same bits on any machine.
 */

VINLINE vd WALK(vblend)(vm m, vd a, vd b) { return (vd)(((vm)a & m) | ((vm)b & ~m)); } /* m ? a : b */
VINLINE int WALK(vany)(vm m)
{
    long long r = 0;
    for (int b = 0; b < LANES; b++)
        r |= m[b];
    return r != 0;
}
VINLINE vd WALK(vsplat)(double x) { return x - (vd){0}; }

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
    vm series = rest & (G > WALK(vsplat)(4.0)) & (A >= 16 * G);
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

/* CA2's windows over cell c's cases in every lane (see ca2_t): the lanes step through their cases
 * together, a lane whose cell holds fewer cases idle for the rest (branch-free: a lane's ring slot
 * is written with its own value when it idles). */
VINLINE void WALK(ca2_cell)(ca2_t *z, vd P, vd Q, double sc)
{
    vd zero = WALK(vsplat)(0.0), one = WALK(vsplat)(1.0), size = P + Q;
    double kmax = 0;
    for (int b = 0; b < LANES; b++)
        kmax = size[b] > kmax ? size[b] : kmax;
    if (!(kmax > 0))
        return;
    vd delta = WALK(vblend)(size > zero, P / size - sc, zero), S = WALK(vsplat)((double)z->S);
    vm absmask = ~(vm)WALK(vsplat)(-0.0); /* every bit but the sign: |x| = x & absmask */
    for (double j = 0; j < kmax; j++) {
        vm act = size > WALK(vsplat)(j);
        vd old;
        z->d += WALK(vblend)(act, delta, zero);
        for (int b = 0; b < LANES; b++) { /* the case into the ring (an idle lane into its slot S), the oldest read */
            double *r = z->ring + (size_t)b * (size_t)(z->S + 1);
            long long at = z->pos[b], next = (at + 1) & -(long long)(at + 1 != z->S), m = act[b];
            r[(at & m) | (z->S & ~m)] = delta[b];
            z->pos[b] = (next & m) | (at & ~m);
            old[b] = r[z->pos[b]];
        }
        z->count += WALK(vblend)(act, one, zero);
        vm full = act & (z->count >= S);
        z->err += WALK(vblend)(full, (vd)((vm)z->d & absmask), zero);
        z->d -= WALK(vblend)(full, old, zero);
    }
    if (++z->since >= CA2_RESYNC && z->since >= z->S)
        ca2_resync(z);
}

/* Cell c's counts P, Q into every statistic of the plan; w->ap, w->an are the weights above the
 * cell, updated after. */
VINLINE void WALK(walk_cell)(walk_t *w, const plan_t *pl, const src_t *s, Py_ssize_t c, vd P, vd Q, int haspos)
{
    const double sc = s->sc[c];
    const vd AP = w->ap, AN = w->an, zero = WALK(vsplat)(0.0), one = WALK(vsplat)(1.0);
    for (int m = 0; m < pl->nk; m++) {
        const entry_t *e = &pl->e[m];
        vd *v = w->v + w->off[m];
        switch (e->kind) {
        case REP_ROC: /* area += q (P above + p / 2): pairs of a positive above a negative, ties half */
            v[0] += Q * (AP + 0.5 * P);
            break;
        case REP_APR:
            if (haspos) /* a cell without a positive adds nothing */
                v[0] += WALK(apr_cell)(P, Q, AP + AN, AP);
            break;
        case REP_SQ:
            v[0] += P * (1 - sc) * (1 - sc) + Q * sc * sc;
            break;
        case REP_CXE: {
            double ls = e->nl2s ? e->nl2s[c] : -log2(sc), lc = e->nl2c ? e->nl2c[c] : -log2(1.0 - sc);
            v[0] += WALK(vblend)(P > zero, ls * P, zero);
            v[1] += WALK(vblend)(Q > zero, lc * Q, zero);
            break;
        }
        case REP_THR:
            if (sc >= e->par) {
                v[0] += P;
                v[1] += Q;
            }
            break;
        case REP_R50: { /* the negatives of the cell within the first par negatives from the top */
            vm live = (WALK(vsplat)(e->par) - AN > zero) & (Q > zero);
            if (WALK(vany)(live))
                for (int b = 0; b < LANES; b++)
                    if (live[b]) {
                        double take = e->par - AN[b];
                        take = take > Q[b] ? Q[b] : take;
                        double slope = P[b] / Q[b];
                        v[0][b] += take * AP[b] + 0.5 * slope * take * take;
                    }
            break;
        }
        case REP_RKL:
            v[0] = WALK(vblend)(P > zero, AP + AN + P + Q, v[0]);
            break;
        case REP_TOP1: { /* v[1]: a cell drawn above */
            vm first = (P + Q > zero) & (v[1] == zero);
            v[0] = WALK(vblend)(first, WALK(vblend)((Q == zero) & (P > zero), one, zero), v[0]);
            v[1] = WALK(vblend)(P + Q > zero, one, v[1]);
            break;
        }
        case REP_TOP10:
            v[0] = WALK(vblend)((P > zero) & (AP + AN + Q < WALK(vsplat)(10.0)), one, v[0]);
            break;
        case REP_NTOP: /* the top par cases (par < 0: the top P, in the second walk) */
            if (e->par >= 0) {
                vd above = AP + AN, size = P + Q;
                vm live = (above < WALK(vsplat)(e->par)) & (size > zero);
                if (WALK(vany)(live))
                    for (int b = 0; b < LANES; b++)
                        if (live[b]) {
                            double take = e->par - above[b];
                            take = take > size[b] ? size[b] : take;
                            v[0][b] += take * (P[b] / size[b]);
                        }
            }
            break;
        case REP_SLQ:
            if (e->nb > 0) {
                int k = e->bin[c];
                v[2 * k] += P;
                v[2 * k + 1] += Q;
            }
            break;
        case REP_CA1: {
            int k = e->bin[c];
            if (k >= 0) {
                vd tot = P + Q;
                v[3 * k] += P;
                v[3 * k + 1] += tot;
                v[3 * k + 2] += sc * tot;
            }
            break;
        }
        case REP_CA2:
            if (w->ca2[w->ca2_of[m]].S)
                WALK(ca2_cell)(&w->ca2[w->ca2_of[m]], P, Q, sc);
            break;
        }
    }
    if (w->ranged && !(sc >= 0.0 && sc <= 1.0))
        w->out |= P + Q > zero;
    w->ap = AP + P;
    w->an = AN + Q;
}

/* One block of lanes walked: every statistic of the plan of each lane into out + b * stride. */
static void WALK(walk_block)(walk_t *w, const plan_t *pl, const src_t *s, const lanes_t *L, double *out,
                              size_t stride)
{
    double p[LANES] __attribute__((aligned(64))), q[LANES] __attribute__((aligned(64)));
    walk_reset(w, pl);
    for (Py_ssize_t c = s->K - 1; c >= 0; c--) {
        vd P, Q;
        int haspos = cell_counts(s, L, c, p, q); /* every lane (the unused ones are thrown away) */
        memcpy(&P, p, sizeof P);
        memcpy(&Q, q, sizeof Q);
        WALK(walk_cell)(w, pl, s, c, P, Q, haspos);
    }
    if (pl->needs_P_first)
        walk_prb(w, pl, s, L);
    for (int b = 0; b < L->nl; b++)
        walk_out(w, pl, b, out + (size_t)b * stride);
}

