/*
 * perfeval._native, resample.c: resampling.  The bootstrap's draws (counter-based: a replicate's draw
 * for a cell or a case is a hash of the replicate's key and the cell's or case's number), Poisson
 * sampling by table inversion, the fused replicate walk that finishes every statistic of a plan from
 * several replicates at once, the jackknife on the same walk, and DeLong's structural components.
 *
 * Why C: a bootstrap of a million distinct scores is 10^9 Poisson draws and as many updates of each
 * measure's running sums; numpy would store every replicate's weights (8 GB) and pass over them once
 * a measure.  Here the draws are made where they are used and never stored, eight replicates side
 * by side share each pass over the cells, and the passes run on every core.
 */
#include "native.h"
#include "exactcmp.h"

/* the walk passes vectors between its inline functions of one file: no ABI is crossed */
#pragma GCC diagnostic ignored "-Wpsabi"

/* ------------------------------------------------------------------------------------------------ */
/* The draws.  Replicate r of a seed has a 64-bit key; its draw for counter c (a cell's class, or a
 * case) is SplitMix64's output function applied to key + (c + 1) * gamma, i.e. the (c + 1)th output
 * of a SplitMix64 generator started at the key (Steele, Lea & Flood 2014; it passes BigCrush).  A
 * draw depends on (seed, r, c) only: not on the order of the walk, the thread, or how the replicates
 * are split over calls, so a walk may go down the cells, draw a cell again, or draw the same case in
 * two models' orders without storing anything. */
#define GOLDEN 0x9E3779B97F4A7C15ULL

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t rep_key(uint64_t seed, uint64_t r)
{
    return mix64(mix64(seed ^ 0xA0761D6478BD642FULL) + (r + 1) * 0xE7037ED1A0B428DBULL);
}

/* 53 uniform bits of (key, counter): u = bits * 2^-53 is uniform on [0, 1) */
static inline uint64_t draw_bits(uint64_t key, uint64_t ctr) { return mix64(key + (ctr + 1) * GOLDEN) >> 11; }

/* Poisson(lam) by inversion: the draw is the least k with u <= F(k), F the CDF.  For a whole-number
 * mean up to PT_MAX a table holds floor(F(k) * 2^53) (so u <= F(k) is bits <= T[k], exactly) and a
 * guide table of 2^GUIDE_BITS entries gives, for the top bits, the least k that can answer (Chen &
 * Asau 1974): one lookup and usually no step of the scan.  Other means (not whole numbers, or larger)
 * use a generator seeded by the draw's bits: inversion below 10, Hoermann's PTRS above. */
#define PT_MAX 1024
#define CA2_MAX (1 << 20) /* the longest CA2 window the walk takes (perfeval.stats.fastpaths says so too) */
#define GUIDE_BITS 10

#define GUIDE_SCAN 0x80000000u
/* Poisson(1)'s first thresholds the walk compares in registers (walk.h's pois1); each below 2^53 */
#define PO1_CHAIN 6

typedef struct {
    uint64_t *T; /* thresholds, the last one UINT64_MAX */
    uint32_t *G; /* guide: G[j] = least k with T[k] >= j << (53 - GUIDE_BITS), | GUIDE_SCAN when a
                    threshold falls inside bin j (else every draw of the bin is that k) */
} ptab;

typedef struct {
    ptab t[PT_MAX + 1]; /* t[lam], made for the means a call needs */
} pset;

static int ptab_make(ptab *t, int lam)
{
    int kmax = lam + 12 * (int)ceil(sqrt((double)lam)) + 40; /* the mass past it is below 1e-30 */
    t->T = malloc((size_t)(kmax + 1) * sizeof(uint64_t));
    t->G = malloc(((size_t)1 << GUIDE_BITS) * sizeof(uint32_t));
    if (!t->T || !t->G)
        return -1;
    double F = 0.0, ll = log((double)lam);
    int k;
    for (k = 0; k < kmax; k++) {
        F += exp(k * ll - lam - lgamma(k + 1.0));
        if (F >= 1.0)
            break;
        t->T[k] = (uint64_t)floor(F * 9007199254740992.0); /* F * 2^53, exact; bits <= it <=> u <= F */
    }
    t->T[k] = UINT64_MAX; /* catches every draw */
    int j = 0;
    for (int b = 0; b < (1 << GUIDE_BITS); b++) {
        uint64_t lo = (uint64_t)b << (53 - GUIDE_BITS), hi = lo + ((uint64_t)1 << (53 - GUIDE_BITS)) - 1;
        while (t->T[j] < lo)
            j++;
        /* the top bit: the bin holds a threshold, the answer needs the scan (else it is j) */
        t->G[b] = (uint32_t)j | (t->T[j] < hi ? GUIDE_SCAN : 0u);
    }
    return 0;
}

static void pset_free(pset *ps)
{
    if (!ps)
        return;
    for (int l = 0; l <= PT_MAX; l++) {
        free(ps->t[l].T);
        free(ps->t[l].G);
    }
    free(ps);
}

/* The table set for the means of lam[0..n-1] (and always 1): NULL when out of memory. */
static pset *pset_for(const double *const *lams, const Py_ssize_t *ns, int nlams)
{
    pset *ps = calloc(1, sizeof(pset));
    if (!ps)
        return NULL;
    if (ptab_make(&ps->t[1], 1) < 0)
        goto fail;
    for (int a = 0; a < nlams; a++)
        for (Py_ssize_t i = 0; i < ns[a]; i++) {
            double l = lams[a][i];
            if (l >= 1 && l <= PT_MAX && l == floor(l) && !ps->t[(int)l].T && ptab_make(&ps->t[(int)l], (int)l) < 0)
                goto fail;
        }
    return ps;
fail:
    pset_free(ps);
    return NULL;
}

/* the sampler of a mean: 0 for none (draws 0), lam for a table, -1 for the generator */
static inline int32_t sampler_of(const pset *ps, double lam)
{
    if (!(lam > 0))
        return 0;
    if (lam <= PT_MAX && lam == floor(lam) && ps->t[(int)lam].T)
        return (int32_t)lam;
    return -1;
}

static inline double ptab_draw(const ptab *t, uint64_t x)
{
    uint32_t g = t->G[x >> (53 - GUIDE_BITS)], k = g & ~GUIDE_SCAN;
    if (g & GUIDE_SCAN)
        while (x > t->T[k])
            k++;
    return (double)k;
}

/* xoshiro256** (Blackman & Vigna), for the rare draws that need more than one uniform */
typedef struct {
    uint64_t s[4];
} rng_t;

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static void rng_seed(rng_t *g, uint64_t x)
{
    for (int i = 0; i < 4; i++) {
        x += GOLDEN;
        g->s[i] = mix64(x);
    }
}

static inline uint64_t rng_next(rng_t *g)
{
    uint64_t *s = g->s;
    uint64_t r = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return r;
}

static inline double rng_uniform(rng_t *g) { return (double)(rng_next(g) >> 11) * 0x1.0p-53; } /* [0, 1) */

static double poisson_ptrs(rng_t *g, double lam)
{
    double slam = sqrt(lam), loglam = log(lam);
    double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
        double U = rng_uniform(g) - 0.5, V = rng_uniform(g);
        double us = 0.5 - fabs(U);
        double k = floor((2 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr)
            return k;
        if (k < 0 || (us < 0.013 && V > us))
            continue;
        if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1))
            return k;
    }
}

/* Poisson(lam) for a mean without a table, from the draw's 53 bits */
static double poisson_slow(double lam, uint64_t x)
{
    if (!(lam > 0))
        return 0.0;
    if (lam >= 10.0) {
        rng_t g;
        rng_seed(&g, x);
        return poisson_ptrs(&g, lam);
    }
    double u = (double)x * 0x1.0p-53, p = exp(-lam), F = p;
    int k = 0;
    while (u > F && k < 200) {
        k++;
        p *= lam / k;
        F += p;
    }
    return (double)k;
}

static inline double pdraw(const pset *ps, int32_t id, double lam, uint64_t key, uint64_t ctr)
{
    if (id > 0)
        return ptab_draw(&ps->t[id], draw_bits(key, ctr));
    if (id == 0)
        return 0.0;
    return poisson_slow(lam, draw_bits(key, ctr));
}

/* the most lanes a walk takes at once (a walk for AVX-512 takes 8, for AVX2 4, the baseline 2) */
#define LANES_MAX 8

/* ------------------------------------------------------------------------------------------------ */
/* Where a walk's cells get their counts.  A cell is a distinct score (ascending); the walk asks
 * for the positive and negative weight of a cell in each of its lanes (replicates, or left-out
 * groups).
 *   SRC_HIST   a summary's cells: lane b draws Poisson(pos[c]) with counter 2c and Poisson(neg[c])
 *              with counter 2c + 1 from its replicate's key;
 *   SRC_ROWS   a sorted score column's tie groups: each case i of the group draws Poisson(1) with
 *              counter i (its number in case order), times its weight: every model of the same cases
 *              gets the same weights, whatever its order;
 *   SRC_GIVEN  one summary as given (one lane);
 *   SRC_JACK   a sorted column's tie groups with every case, less the cases of lane b's group (case
 *              i is in group i mod G): the delete-a-group jackknife. */
enum { SRC_HIST, SRC_ROWS, SRC_GIVEN, SRC_JACK };

typedef struct {
    int mode;
    Py_ssize_t K;     /* cells */
    const double *sc; /* their scores, ascending */
    /* SRC_HIST */
    const double *lp, *ln;
    const int32_t *idp, *idn;
    const pset *ps;
    /* SRC_ROWS, SRC_JACK */
    const int64_t *order, *gend; /* cases in ascending score order; end of each cell among them */
    const uint8_t *ocls;         /* classes in that order */
    const double *ow;            /* weights in that order, or NULL */
    /* SRC_GIVEN, SRC_JACK: the cells' counts (SRC_JACK: of every case) */
    const double *gp, *gq;
    int64_t G; /* SRC_JACK: groups */
} src_t;

typedef struct {
    int nl;                  /* lanes in use */
    uint64_t key[LANES_MAX]; /* SRC_HIST, SRC_ROWS: each lane's replicate key */
    int64_t g0;              /* SRC_JACK: lane 0's group */
} lanes_t;

/* The counts of cell c in lane b alone (the draws' tests): the walk's cell_counts' numbers. */
static void cell_count_one(const src_t *s, const lanes_t *L, Py_ssize_t c, int b, double *p, double *q)
{
    switch (s->mode) {
    case SRC_HIST:
        *p = pdraw(s->ps, s->idp[c], s->lp[c], L->key[b], 2 * (uint64_t)c);
        *q = pdraw(s->ps, s->idn[c], s->ln[c], L->key[b], 2 * (uint64_t)c + 1);
        return;
    case SRC_ROWS:
        *p = *q = 0.0;
        for (int64_t j = c ? s->gend[c - 1] : 0; j < s->gend[c]; j++) {
            double k = pdraw(s->ps, 1, 1.0, L->key[b], (uint64_t)s->order[j]), w = s->ow ? s->ow[j] : 1.0;
            if (s->ocls[j])
                *p += s->ow ? w * k : k;
            else
                *q += s->ow ? w * k : k;
        }
        return;
    case SRC_GIVEN:
        *p = s->gp[c];
        *q = s->gq[c];
        return;
    default: /* SRC_JACK: the walk's cell_counts, lane b */
        *p = s->gp[c];
        *q = s->gq[c];
        for (int64_t j = c ? s->gend[c - 1] : 0; j < s->gend[c]; j++)
            if (s->order[j] % s->G - L->g0 == b) {
                if (s->ocls[j])
                    *p -= s->ow ? s->ow[j] : 1.0;
                else
                    *q -= s->ow ? s->ow[j] : 1.0;
            }
        *p = *p > 0.0 ? *p : 0.0;
        *q = *q > 0.0 ? *q : 0.0;
    }
}

/* ------------------------------------------------------------------------------------------------ */
/* Replicates of many measures at once.  A plan is a float64 array of (kind, parameter) pairs; each
 * kind writes REP_WIDTH statistics per replicate, from which perfeval.stats.fastpaths finishes the
 * measure's value (the formulas stay in Python, vectorised over the replicates).  The statistics are
 * the ones the measure's own code reads from a summary; here they are gathered in one walk down the
 * cells (highest score first) for LANES replicates side by side, every statistic of the plan in the
 * same walk: the draws are paid once for all the measures, and no replicate's counts are stored.
 * A cell a lane drew nothing in changes no statistic, so walking every cell is walking the drawn
 * ones.  Sums of whole numbers (the ROC area in half units, the confusion counts, ranks) are exact
 * in any order and equal the registry's to the bit; other sums (APR's, squared errors, logarithms)
 * are those of the registry's code to the rounding of a sum taken in another order. */
#define REP_WIDTH 4
enum {
    REP_ROC = 0,  /* area (ties half), P, N */
    REP_APR = 1,  /* APR numerator (summary.c's apr_total), P, n */
    REP_SQ = 2,   /* sum of squared errors, n */
    REP_CXE = 3,  /* sum -log2(s) over positives, sum -log2(1 - s) over negatives, n, scores in [0, 1] */
    REP_THR = 4,  /* TP, FN, FP, TN with score >= parameter predicted positive */
    REP_R50 = 5,  /* ROC area up to the parameter's negatives */
    REP_RKL = 6,  /* rank of the last positive */
    REP_TOP1 = 7,
    REP_TOP10 = 8,
    REP_NTOP = 9, /* positives among the top parameter cases / parameter (parameter < 0: the top P, PRB) */
    REP_SLQ = 10, /* SLAC Q over parameter bins */
    REP_CA1 = 11,
    REP_CA2 = 12, /* window of parameter cases */
    REP_LL = 13,  /* sum -ln(s) over positives, sum -ln(1 - s) over negatives, n, scores in [0, 1]; s
                     clipped to [parameter, 1 - parameter] when the parameter (eps) is above 0 (LOGLOSS) */
    REP_AP = 14,  /* sum over the cells of p * TP / (TP + FP) (TP, FP: at or above the cell), P (AP) */
    REP_NRM = 15, /* sum of p |1 - s|^parameter + q |s|^parameter over the drawn cells, n (NRM) */
    /* issue 33's measures (perfeval.measures.operating, perfeval.measures.calibration) */
    REP_ARG = 16,  /* no statistic: a further parameter of the entry before it (its zeros are not read) */
    REP_TOT = 17,  /* P, N (BRIER_UNC) */
    REP_ECEW = 18, /* ECE over parameter equal-width bins: l1, l2, debiased l2, max (NaN: no case, or a
                      drawn score outside [0, 1]) */
    REP_ECEM = 19, /* the same over equal-mass bins (needs the totals: the second walk; whole counts) */
    REP_MURPHY = 20, /* Murphy's sums: sum w (s - o_s)^2, sum w (o_s - o)^2, n, scores in [0, 1] */
    REP_PAUC_FPR = 21, /* the area under the chord ROC curve over FPR in [argument, parameter], P > 0 and
                          N > 0; the second walk */
    REP_PAUC_TPR = 22, /* the same between the curve and FPR = 1 over TPR in [argument, parameter] */
    /* the operating points (the second walk): the value at the point picked and its threshold (+inf:
     * predict nothing), NaN and NaN where no point qualifies or the measure is undefined */
    REP_TPR_FPR = 23, /* TPR at FPR <= parameter; its arguments the target's decimal M 10**-D: M's
                         digits above 10**9, M's below, D (whether a point meets it: exactcmp.h) */
    REP_SEN_SPC = 24, /* sensitivity at specificity >= parameter (arguments: as TPR at FPR's) */
    REP_SPC_SEN = 25, /* specificity at sensitivity >= parameter (the same) */
    REP_PRE_REC = 26, /* precision at recall >= parameter (the same) */
    REP_REC_PRE = 27, /* recall at precision >= parameter (the same) */
    REP_YOUDEN = 28,  /* the largest TPR - FPR */
    REP_TOPLEFT = 29, /* the least distance to (0, 1) */
    REP_FBETA = 30,   /* the largest F-beta, beta the parameter */
    REP_MCC = 31,     /* the largest MCC */
    REP_COST = 32,    /* the least cost: parameter the cost of a TP, arguments those of a FN, FP, TN */
    REP_KINDS = 33
};

/* the further parameters (REP_ARG entries right after it) a kind takes */
static int rep_nargs(int kind)
{
    switch (kind) {
    case REP_PAUC_FPR:
    case REP_PAUC_TPR:
        return 1;
    case REP_COST:
    case REP_TPR_FPR:
    case REP_SEN_SPC:
    case REP_SPC_SEN:
    case REP_PRE_REC:
    case REP_REC_PRE:
        return 3;
    default:
        return 0;
    }
}

/* kinds finished in the second walk down the cells, once each lane's P and N are known (their
 * operating points' rates, equal-mass bins and the share of positives need them) */
static int rep_second(int kind) { return kind == REP_ECEM || kind == REP_MURPHY || kind >= REP_PAUC_FPR; }

/* the longest equal-width or equal-mass ECE the walk takes (ECE_MAX_BINS in perfeval.stats.fastpaths) */
#define ECE_MAX_BINS (1 << 16)

/* The plan's kinds and parameters, checked: 0 on success, -1 with an exception set. */
static int rep_plan(const double *plan, Py_ssize_t len, int *nk)
{
    if (len % 2) {
        PyErr_SetString(PyExc_ValueError, "a replicate plan is (kind, parameter) pairs");
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i += 2)
        if (!(plan[i] >= 0 && plan[i] < REP_KINDS) || plan[i] != floor(plan[i])) {
            PyErr_SetString(PyExc_ValueError, "a replicate plan names an unknown kind");
            return -1;
        }
    for (Py_ssize_t i = 0; i < len; i += 2) { /* each kind followed by its arguments, and no argument alone */
        int kind = (int)plan[i], na = rep_nargs(kind);
        if (kind == REP_ARG) {
            PyErr_SetString(PyExc_ValueError, "a replicate plan has an argument of no kind");
            return -1;
        }
        for (int a = 1; a <= na; a++)
            if (i + 2 * a >= len || plan[i + 2 * a] != REP_ARG) {
                PyErr_SetString(PyExc_ValueError, "a replicate plan's kind lacks its arguments");
                return -1;
            }
        if ((kind == REP_ECEW || kind == REP_ECEM) && !(plan[i + 1] >= 1 && plan[i + 1] <= ECE_MAX_BINS)) {
            PyErr_SetString(PyExc_ValueError, "a replicate plan's ECE has 1 to 65536 bins");
            return -1;
        }
        if (kind >= REP_TPR_FPR && kind <= REP_REC_PRE) { /* the target's decimal: whole numbers */
            double hi = plan[i + 3], lo = plan[i + 5], d = plan[i + 7];
            if (!(hi >= 0 && hi < 1e9 && hi == floor(hi) && lo >= 0 && lo < 1e9 && lo == floor(lo) && d >= 0 &&
                  d <= 400 && d == floor(d))) {
                PyErr_SetString(PyExc_ValueError, "a replicate plan's target lacks its decimal M 10**-D");
                return -1;
            }
        }
        i += 2 * na;
    }
    *nk = (int)(len / 2);
    return 0;
}

/* Per-cell tables of a plan's entry, made once for all its replicates: a positive's and a negative's
 * term (cell_terms: CXE's -log2(s) and -log2(1 - s), LOGLOSS's natural logarithms, NRM's powers), the
 * SLQ bin (the number of edges i/bins, i = 1..bins-1, at or below the score), and for CA1
 * the run of its 19 overlapping bins holding the score, as a dense code (-1: none). */
typedef struct {
    int kind, nb;     /* nb: SLQ bins, CA1 codes, ECE bins */
    double par, arg[3]; /* arg: the REP_ARG entries after it */
    uint64_t dm;        /* an operating point's target as the decimal dm 10**-dd (exactcmp.h) */
    int dd;
    double near_lo, near_hi; /* its rates near the target (xc_band over the K cells) */
    double *tpos, *tneg; /* per cell: cell_terms' (NULL: computed in the walk) */
    int32_t *bin;     /* SLQ bin, CA1 code */
    int16_t code_first[19 * 19], code_last[19 * 19]; /* CA1: the run of bins of each code */
} entry_t;

typedef struct {
    int nk;
    entry_t *e;
    int needs_P_first; /* a statistic that needs the replicate's P before its walk (PRB) */
    int needs_totals;  /* a statistic of the second walk (rep_second) */
} plan_t;

static void plan_free(plan_t *pl)
{
    if (!pl->e)
        return;
    for (int m = 0; m < pl->nk; m++) {
        free(pl->e[m].tpos);
        free(pl->e[m].tneg);
        free(pl->e[m].bin);
    }
    free(pl->e);
    pl->e = NULL;
}

static int slq_bin(double s, int bins)
{
    int b = (int)(s * bins);
    b = b < 0 ? 0 : (b > bins - 1 ? bins - 1 : b);
    while (b > 0 && !((double)b / bins <= s))
        b--;
    while (b < bins - 1 && (double)(b + 1) / bins <= s)
        b++;
    return b;
}

/* The equal-width ECE bin of a score: the number of edges k / bins (k = 1 .. bins - 1, each (double)k /
 * bins) at or below it (csrc/calibration.c group_bin_sums' rule); a score outside [0, 1] in the first
 * or the last bin (its ECE is NaN: the bin is never read). */
static int32_t ece_bin(double s, int bins)
{
    double t = s * bins;
    int b = t >= bins - 1 ? bins - 1 : (t > 0 ? (int)t : 0);
    while (b > 0 && !((double)b / (double)bins <= s))
        b--;
    while (b < bins - 1 && (double)(b + 1) / (double)bins <= s)
        b++;
    return b;
}

/* bin i holds i/20 <= s <= (i + 2)/20: the run of bins holding s as first * 19 + last, -1 for none */
static int ca1_run(double s)
{
    int first = -1, last = -1;
    double f = floor(s * 20.0);
    if (f >= -3.0 && f <= 22.0)
        for (int i = (int)f - 2; i <= (int)f + 1; i++)
            if (i >= 0 && i <= 18 && s >= (double)i / 20 && s <= (double)(i + 2) / 20) {
                first = first < 0 ? i : first;
                last = i;
            }
    return first < 0 ? -1 : first * 19 + last;
}

/* A cell's term per positive and per negative, the registry's numpy expressions: CXE -log2(s) and
 * -log2(1 - s); LOGLOSS -log(s) and -log1p(-s) of s clipped to [eps, 1 - eps] when eps > 0 (np.clip:
 * the larger of s and eps, then the smaller of that and 1 - eps); NRM |1 - s|^p and |s|^p (numpy's
 * power takes x * x for p = 2, as here). */
static void cell_terms(int kind, double par, double s, double *tp, double *tn)
{
    switch (kind) {
    case REP_CXE:
        *tp = -log2(s);
        *tn = -log2(1.0 - s);
        return;
    case REP_LL:
        if (par > 0) {
            double hi = 1.0 - par;
            s = s > par ? s : par;
            s = s < hi ? s : hi;
        }
        *tp = -log(s);
        *tn = -log1p(-s);
        return;
    case REP_NRM: {
        double a = fabs(1.0 - s), b = fabs(s);
        *tp = par == 2.0 ? a * a : pow(a, par);
        *tn = par == 2.0 ? b * b : pow(b, par);
        return;
    }
    default:
        *tp = *tn = 0.0;
    }
}

/* The plan's entries with their tables for cells of scores sc[0..K-1]: 0, or -1 when out of memory
 * (tables == 0: none, for a single walk where a logarithm per cell costs what the table would). */
static int plan_make(plan_t *pl, const double *plan, int nk, const double *sc, Py_ssize_t K, int tables)
{
    memset(pl, 0, sizeof *pl);
    pl->nk = nk;
    pl->e = calloc((size_t)(nk > 0 ? nk : 1), sizeof(entry_t));
    if (!pl->e)
        return -1;
    size_t n = (size_t)(K > 0 ? K : 1);
    for (int m = 0; m < nk; m++) {
        entry_t *e = &pl->e[m];
        e->kind = (int)plan[2 * m];
        e->par = plan[2 * m + 1];
        if (e->kind == REP_NTOP && e->par < 0)
            pl->needs_P_first = 1;
        if (rep_second(e->kind))
            pl->needs_totals = 1;
        for (int a = 0; a < rep_nargs(e->kind) && m + 1 + a < nk; a++)
            e->arg[a] = plan[2 * (m + 1 + a) + 1];
        if (e->kind >= REP_TPR_FPR && e->kind <= REP_REC_PRE) { /* whole numbers (rep_plan) */
            e->dm = (uint64_t)e->arg[0] * 1000000000ULL + (uint64_t)e->arg[1];
            e->dd = (int)e->arg[2];
            xc_band(e->par, (double)K, e->kind == REP_SEN_SPC, &e->near_lo, &e->near_hi);
        }
        if (e->kind == REP_ECEW || e->kind == REP_ECEM)
            e->nb = (int)e->par; /* 1 .. ECE_MAX_BINS (rep_plan) */
        if (e->kind == REP_ECEW) { /* each cell's bin: np.searchsorted(arange(1, B) / B, s, "right") */
            e->bin = malloc(n * sizeof(int32_t));
            if (!e->bin)
                return -1;
            for (Py_ssize_t c = 0; c < K; c++)
                e->bin[c] = ece_bin(sc[c], e->nb);
        }
        if ((e->kind == REP_CXE || e->kind == REP_LL || e->kind == REP_NRM) && tables) {
            e->tpos = malloc(n * sizeof(double));
            e->tneg = malloc(n * sizeof(double));
            if (!e->tpos || !e->tneg)
                return -1;
            for (Py_ssize_t c = 0; c < K; c++)
                cell_terms(e->kind, e->par, sc[c], &e->tpos[c], &e->tneg[c]);
        }
        if (e->kind == REP_SLQ) {
            e->nb = e->par >= 1 && e->par < 1e7 ? (int)e->par : 0;
            if (e->nb > 0) {
                e->bin = malloc(n * sizeof(int32_t));
                if (!e->bin)
                    return -1;
                for (Py_ssize_t c = 0; c < K; c++)
                    e->bin[c] = slq_bin(sc[c], e->nb);
            }
        }
        if (e->kind == REP_CA1) {
            int dense[19 * 19];
            for (int x = 0; x < 19 * 19; x++)
                dense[x] = -1;
            e->bin = malloc(n * sizeof(int32_t));
            if (!e->bin)
                return -1;
            for (Py_ssize_t c = 0; c < K; c++) {
                int x = ca1_run(sc[c]);
                if (x >= 0 && dense[x] < 0) {
                    dense[x] = e->nb++;
                    e->code_first[dense[x]] = (int16_t)(x / 19);
                    e->code_last[dense[x]] = (int16_t)(x % 19);
                }
                e->bin[c] = x < 0 ? -1 : dense[x];
            }
        }
    }
    return 0;
}

/* The expected precision sum of one tie group of g cases, m of them positive, under a cases of which
 * b are positive: summary.c's nv_apr_total for one group.  Its sums s1 = sum_j 1/(a + j) and s2 =
 * sum_j (j - 1)/(a + j), j = 1..g, are summed as there for small groups and near the top; for a
 * group of more than 4 cases under at least 16 times as many, from their expansion about the
 * group's middle x = a + (g + 1)/2 (the odd moments of the offsets vanish; the first term left out
 * is below 1e-18 of the sum): the same numbers to rounding, without a division per case. */
/* APR_M2 ... APR_M10 and APR_ODD: native.h (summary.c's large groups use them too) */
static inline double apr_odd(double g, double gg, double y2) { return APR_ODD(g, gg, y2); }

static inline double apr_group(double m, double g, double a, double b)
{
    if (!(m > 0))
        return 0.0;
    if (g == 1)
        return (b + 1.0) / (a + 1.0);
    if (g > APR_LOOP_MAX) /* a weight of many cases: closed forms, not a sum of g terms */
        return apr_big(m, g, a, b);
    double s1 = 0, s2 = 0;
    if (g <= 4 || a < 16 * g) {
        long long gi = (long long)g;
        for (long long j = 1; j <= gi; j++) {
            double inv = 1.0 / (a + (double)j);
            s1 += inv;
            s2 += (double)(j - 1) * inv;
        }
    } else {
        double x = a + (g + 1) / 2, h = (g - 1) / 2, y = 1.0 / x, y2 = y * y, gg = g * g;
        double odd = apr_odd(g, gg, y2);
        s1 = y * (g + y2 * odd);
        s2 = h * s1 - y2 * odd;
    }
    return m / g * ((b + 1.0) * s1 + (m - 1.0) / (g - 1.0) * s2);
}

static size_t entry_width(const entry_t *e)
{
    switch (e->kind) {
    case REP_CXE:
    case REP_LL:
    case REP_THR:
    case REP_TOP1:
        return 2;
    case REP_SLQ:
        return 2 * (size_t)e->nb + 1;
    case REP_CA1:
        return 3 * (size_t)e->nb + 1;
    case REP_ARG:
    case REP_TOT:
        return 0;
    case REP_ECEW:
        return 3 * (size_t)e->nb;
    case REP_ECEM:
        return 3 * (size_t)e->nb + 4; /* and each lane's current bin and its sums so far */
    case REP_MURPHY:
        return 2;
    case REP_PAUC_FPR:
    case REP_PAUC_TPR:
        return 3; /* the area, the last point's x and y */
    default:
        if (e->kind >= REP_TPR_FPR) /* the best key, its other rate, its threshold, the lanes done */
            return 4;
        return 1;
    }
}

/* ------------------------------------------------------------------------------------------------ */
/* Whether an operating point of a lane meets its target exactly (exactcmp.h).  The walk decides by the
 * float rate where it is far from the target; near it, here, lane by lane: by the lane's float sums
 * where they are exact (the source's cells are whole numbers and the lane's total is below 2**53:
 * every partial sum is then a whole number below it), else by the lane's cells drawn again and added
 * exactly, the totals once and each entry's cells above the point from where its last point left
 * off.  A block of lanes' state, made at the first point near a target; the walk's own numbers are
 * untouched. */
typedef struct {
    const src_t *src; /* the source `whole` is of */
    int whole;        /* the source's cells are whole numbers */
    int nk;
    int tot[LANES_MAX]; /* 0: the lane's exact totals not made; 1 made; 2 a cell not finite */
    xc_acc P[LANES_MAX], N[LANES_MAX];
    Py_ssize_t *next; /* per entry and lane: the next cell to add to its prefix (-2: none yet) */
    xc_acc *tp, *fp;  /* per entry and lane: the prefix */
} xwalk_t;

static xwalk_t *xwalk_new(int nk)
{
    xwalk_t *x = calloc(1, sizeof *x);
    size_t n = (size_t)(nk > 0 ? nk : 1) * LANES_MAX;
    if (!x)
        return NULL;
    x->nk = nk;
    x->next = malloc(n * sizeof *x->next);
    x->tp = malloc(n * sizeof *x->tp);
    x->fp = malloc(n * sizeof *x->fp);
    if (!x->next || !x->tp || !x->fp) {
        free(x->next), free(x->tp), free(x->fp), free(x);
        return NULL;
    }
    return x;
}

static void xwalk_free(xwalk_t *x)
{
    if (x)
        free(x->next), free(x->tp), free(x->fp), free(x);
}

/* a new block of lanes (or source): nothing of the last one's kept but `whole` of the same source */
static void xwalk_start(xwalk_t *x, const src_t *s)
{
    if (x->src != s) {
        x->src = s;
        x->whole = -1;
    }
    memset(x->tot, 0, sizeof x->tot);
    for (size_t i = 0; i < (size_t)(x->nk > 0 ? x->nk : 1) * LANES_MAX; i++)
        x->next[i] = -2;
}

static int whole_values(const double *v, int64_t n)
{
    for (int64_t i = 0; v && i < n; i++)
        if (v[i] != floor(v[i]))
            return 0;
    return 1;
}

/* whether every cell of every lane of the source is a whole number: summary draws are counts; cases'
 * draws are counts times the weights; a left-out group's cells the cells less its weights */
static int src_whole(const src_t *s)
{
    int64_t rows = s->K > 0 && s->gend ? s->gend[s->K - 1] : 0;
    switch (s->mode) {
    case SRC_HIST:
        return 1;
    case SRC_ROWS:
        return whole_values(s->ow, rows);
    case SRC_GIVEN:
        return whole_values(s->gp, s->K) && whole_values(s->gq, s->K);
    default: /* SRC_JACK */
        return whole_values(s->gp, s->K) && whole_values(s->gq, s->K) && whole_values(s->ow, rows);
    }
}

/* Whether lane b's point (its cells K - 1 .. c, c = K for the point above them all: TP = FP = 0)
 * meets entry m's target exactly: 1, 0, or -1 (a weight that is not finite: the float decision
 * stands).  tp, fp, P, N: the lane's float sums there. */
static int xwalk_meets(xwalk_t *x, int m, const entry_t *e, const src_t *s, const lanes_t *L, int b, Py_ssize_t c,
                       double tp, double fp, double P, double N)
{
    int rule = e->kind - REP_TPR_FPR; /* XC_FPR_LE .. XC_PRE_GE */
    if (x->whole < 0)
        x->whole = src_whole(s);
    if (x->whole && P + N < 0x1p53)
        return xc_meets_d(rule, tp, fp, P, N, e->dm, e->dd);
    if (x->tot[b] == 0) {
        xc_clear(&x->P[b]);
        xc_clear(&x->N[b]);
        x->tot[b] = 1;
        for (Py_ssize_t k = 0; k < s->K; k++) {
            double p, q;
            cell_count_one(s, L, k, b, &p, &q);
            if (xc_add(&x->P[b], p) < 0 || xc_add(&x->N[b], q) < 0)
                x->tot[b] = 2;
        }
    }
    if (x->tot[b] == 2)
        return -1;
    size_t at = (size_t)m * LANES_MAX + (size_t)b;
    if (x->next[at] == -2) {
        xc_clear(&x->tp[at]);
        xc_clear(&x->fp[at]);
        x->next[at] = s->K - 1;
    }
    for (; x->next[at] >= c; x->next[at]--) {
        double p, q;
        cell_count_one(s, L, x->next[at], b, &p, &q);
        xc_add(&x->tp[at], p);
        xc_add(&x->fp[at], q);
    }
    return xc_meets(rule, &x->tp[at], &x->fp[at], &x->P[b], &x->N[b], e->dm, e->dd);
}

/* A compiled copy of the walk (walk.h): its lanes, its state's making and freeing, and a block of
 * lanes walked (every statistic of the plan of lane b into out + b * stride). */
typedef struct {
    const char *name;
    int lanes;
    void *(*alloc)(const plan_t *pl); /* NULL when out of memory */
    void (*release)(void *w);
    void (*block)(void *w, const plan_t *pl, const src_t *s, const lanes_t *L, double *out, size_t stride);
} walk_ops;

#define VINLINE static inline __attribute__((always_inline))

#ifdef __SSE2__
#include <emmintrin.h> /* the baseline's vector square root (walk.h's vsqrt) */
#endif

/* The walk, compiled for the baseline and, on x86-64 with GCC, for AVX2 and AVX-512 too; `walk` is
 * the one for this machine (walk_target: "base", "v3" or "v4"). */
#define WALK(name) name##_base
#define WALK_LANES 2
#define WALK_NAME "base"
#include "walk.h"
#undef WALK
#undef WALK_LANES
#undef WALK_NAME

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && defined(__x86_64__)
#define WALK_TARGETS 1
#include <immintrin.h>
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define WALK(name) name##_v3
#define WALK_LANES 4
#define WALK_NAME "v3"
#define WALK_AVX2 1
#include "walk.h"
#undef WALK_AVX2
#undef WALK
#undef WALK_LANES
#undef WALK_NAME
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define WALK(name) name##_v4
#define WALK_LANES 8
#define WALK_NAME "v4"
#define WALK_AVX512 1
#include "walk.h"
#undef WALK_AVX512
#undef WALK
#undef WALK_LANES
#undef WALK_NAME
#pragma GCC pop_options
#endif

static const walk_ops *walk = &ops_base;

/* The best walk this machine runs (once, from the module's init). */
void nv_walk_init(void)
{
#ifdef WALK_TARGETS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4"))
        walk = &ops_v4;
    else if (__builtin_cpu_supports("x86-64-v3"))
        walk = &ops_v3;
#endif
}

/* walk_target([name]) -> the name of the walk in use; with a name ("base", "v3", "v4"), use that one
 * if this machine runs it (test-only: the tests compare every walk this machine has). */
PyObject *nv_walk_target(PyObject *Py_UNUSED(self), PyObject *args)
{
    const char *want = NULL;
    if (!PyArg_ParseTuple(args, "|s", &want))
        return NULL;
    if (want) {
        if (!strcmp(want, "base"))
            walk = &ops_base;
#ifdef WALK_TARGETS
        else if (!strcmp(want, "v3") && __builtin_cpu_supports("x86-64-v3"))
            walk = &ops_v3;
        else if (!strcmp(want, "v4") && __builtin_cpu_supports("x86-64-v4"))
            walk = &ops_v4;
#endif
        else {
            PyErr_Format(PyExc_ValueError, "no walk %s on this machine", want);
            return NULL;
        }
    }
    return PyUnicode_FromString(walk->name);
}

/* ------------------------------------------------------------------------------------------------ */
/* Threads.  Run fn on jobs[0 .. n-1] (each `size` bytes), job t on thread t and job 0 on the caller;
 * a job whose thread cannot be started is run by the caller.  Call without the GIL.  The jobs must
 * not depend on which thread runs them (a replicate's draws depend on its number only). */
static void run_jobs(void *(*fn)(void *), void *jobs, size_t size, int n)
{
    pthread_t tid[64];
    int started[64] = {0};
    for (int t = 1; t < n && t < 64; t++)
        started[t] = pthread_create(&tid[t], NULL, fn, (char *)jobs + (size_t)t * size) == 0;
    fn(jobs);
    for (int t = 1; t < n && t < 64; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            fn((char *)jobs + (size_t)t * size);
    }
}

#define MAX_MODELS 16

typedef struct {
    const src_t *src; /* nsrc sources (models) walked on the same lanes */
    const plan_t *pl; /* one plan per source */
    int nsrc;
    uint64_t seed;
    int64_t r0, r1; /* replicates (SRC_JACK: groups) */
    int step, first;
    double *out[MAX_MODELS];
    int failed;
} walk_job;

static void *walk_worker(void *arg)
{
    walk_job *j = arg;
    const walk_ops *ops = walk;
    void *w[MAX_MODELS] = {0};
    for (int m = 0; m < j->nsrc; m++)
        if (!(w[m] = ops->alloc(&j->pl[m])))
            j->failed = 1;
    int lanes = ops->lanes;
    int64_t nblocks = (j->r1 - j->r0 + lanes - 1) / lanes;
    for (int64_t bi = j->first; bi < nblocks && !j->failed; bi += j->step) {
        int64_t ra = j->r0 + bi * lanes;
        lanes_t L;
        memset(&L, 0, sizeof L);
        L.nl = j->r1 - ra < lanes ? (int)(j->r1 - ra) : lanes;
        L.g0 = ra;
        for (int b = 0; b < lanes; b++)
            L.key[b] = rep_key(j->seed, (uint64_t)(ra + b));
        for (int m = 0; m < j->nsrc; m++) {
            size_t stride = (size_t)j->pl[m].nk * REP_WIDTH;
            ops->block(w[m], &j->pl[m], &j->src[m], &L, j->out[m] + (size_t)(ra - j->r0) * stride, stride);
        }
    }
    for (int m = 0; m < j->nsrc; m++)
        ops->release(w[m]);
    return NULL;
}

/* Walk every source over lanes r0..r1-1 on `threads` threads: 0, or -1 when out of memory. */
static int walk_all(const src_t *src, const plan_t *pl, int nsrc, uint64_t seed, int64_t r0, int64_t r1,
                    int threads, double **out)
{
    walk_job jobs[64];
    threads = threads < 1 ? 1 : (threads > 64 ? 64 : threads);
    int64_t nblocks = (r1 - r0 + walk->lanes - 1) / walk->lanes;
    if (threads > nblocks)
        threads = nblocks > 0 ? (int)nblocks : 1;
    for (int t = 0; t < threads; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t] = (walk_job){src, pl, nsrc, seed, r0, r1, threads, t, {0}, 0};
        for (int m = 0; m < nsrc; m++)
            jobs[t].out[m] = out[m];
    }
    run_jobs(walk_worker, jobs, sizeof(walk_job), threads);
    for (int t = 0; t < threads; t++)
        if (jobs[t].failed)
            return -1;
    return 0;
}

static int check_threads_range(long long r0, long long r1)
{
    if (r0 < 0 || r1 < r0) {
        PyErr_SetString(PyExc_ValueError, "replicates r0..r1 must be 0 <= r0 <= r1");
        return -1;
    }
    return 0;
}

/* A summary's source: its samplers made for its means (freed with src_hist_free). */
static int src_hist_make(src_t *s, const double *sc, const double *lp, const double *ln, Py_ssize_t K)
{
    memset(s, 0, sizeof *s);
    const double *arrs[2] = {lp, ln};
    Py_ssize_t ns[2] = {K, K};
    pset *ps = pset_for(arrs, ns, 2);
    int32_t *ids = malloc((size_t)(K > 0 ? K : 1) * 2 * sizeof(int32_t));
    if (!ps || !ids) {
        pset_free(ps);
        free(ids);
        return -1;
    }
    for (Py_ssize_t c = 0; c < K; c++) {
        ids[c] = sampler_of(ps, lp[c]);
        ids[K + c] = sampler_of(ps, ln[c]);
    }
    *s = (src_t){.mode = SRC_HIST, .K = K, .sc = sc, .lp = lp, .ln = ln, .idp = ids, .idn = ids + K, .ps = ps};
    return 0;
}

static void src_hist_free(src_t *s)
{
    free((void *)s->idp);
    pset_free((pset *)s->ps);
    s->idp = s->idn = NULL;
    s->ps = NULL;
}

/* boot_hist_multi(scores, pos, neg, plan, seed, r0, r1, threads) -> float64 bytearray, (r1 - r0) x
 * (kinds x REP_WIDTH): the plan's statistics of replicates r0..r1-1 of a summary (Poisson(count)
 * draws per cell, SRC_HIST). */
PyObject *nv_boot_hist_multi(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no, *plo;
    unsigned long long seed;
    long long r0, r1;
    int threads, nk = 0;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOOKLLi", &so, &po, &no, &plo, &seed, &r0, &r1, &threads) ||
        nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, po, NV_RAW8) < 0 || nv_arg(&in, no, NV_RAW8) < 0 ||
        nv_arg(&in, plo, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "scores, pos and neg differ in length");
        return NULL;
    }
    if (check_threads_range(r0, r1) < 0 || rep_plan(in.v[3].buf, in.n[3], &nk) < 0) {
        nv_args_release(&in);
        return NULL;
    }
    Py_ssize_t K = in.n[0];
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * nk * REP_WIDTH * 8));
    src_t s;
    plan_t pl;
    memset(&s, 0, sizeof s);
    memset(&pl, 0, sizeof pl);
    int ok = out != NULL;
    if (ok) {
        double *o = (double *)PyByteArray_AS_STRING(out);
        NOGIL_BEGIN
        ok = src_hist_make(&s, in.v[0].buf, in.v[1].buf, in.v[2].buf, K) == 0 &&
             plan_make(&pl, in.v[3].buf, nk, in.v[0].buf, K, 1) == 0 &&
             walk_all(&s, &pl, 1, (uint64_t)seed, r0, r1, threads, &o) == 0;
        NOGIL_END
    }
    src_hist_free(&s);
    plan_free(&pl);
    nv_args_release(&in);
    if (!ok) {
        Py_XDECREF(out);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    return out;
}

/* A sorted score column's arguments (order, gend, gscores), checked against n cases.  subset: the
 * order may name some of the cases only (each at most once: the caller's), a slice of them whose
 * draws are the whole's (a draw's counter is the case's number); else it holds every case. */
static int column_args(nv_args *in, PyObject *tup, Py_ssize_t n, int subset)
{
    PyObject *oo, *go, *so;
    if (!PyArg_ParseTuple(tup, "OOO", &oo, &go, &so))
        return -1;
    if (nv_arg(in, oo, NV_RAW8) < 0 || nv_arg(in, go, NV_RAW8) < 0 || nv_arg(in, so, NV_RAW8) < 0)
        return -1;
    if (!nv_len_eq(in, 1, 2))
        return nv_args_fail(in, PyExc_ValueError, "a tie group's end and score differ in length"), -1;
    Py_ssize_t m = in->n[0]; /* the cases of the column */
    if (subset ? m > n : m != n)
        return nv_args_fail(in, PyExc_ValueError,
                            subset ? "a score column's order names more cases than there are"
                                   : "a score column's order must hold every case"),
               -1;
    const int64_t *gend = in->v[1].buf, *order = in->v[0].buf;
    Py_ssize_t G = in->n[1];
    for (Py_ssize_t t = 0; t < G; t++)
        if (gend[t] < (t ? gend[t - 1] : 0) || gend[t] > m)
            return nv_args_fail(in, PyExc_ValueError, "tie group ends must ascend within the cases"), -1;
    if ((G > 0 && gend[G - 1] != m) || (G == 0 && m > 0))
        return nv_args_fail(in, PyExc_ValueError, "the tie groups must cover every case"), -1;
    for (Py_ssize_t i = 0; i < m; i++)
        if (order[i] < 0 || order[i] >= n)
            return nv_args_fail(in, PyExc_ValueError, "an order names a case out of range"), -1;
    return 0;
}

/* The classes (and weights) of the cases in a column's order: ocls, ow (NULL without weights). */
static int column_layout(const int64_t *order, Py_ssize_t n, const uint8_t *cls, const double *w, uint8_t **ocls,
                         double **ow)
{
    *ocls = malloc((size_t)(n > 0 ? n : 1));
    *ow = w ? malloc((size_t)(n > 0 ? n : 1) * sizeof(double)) : NULL;
    if (!*ocls || (w && !*ow))
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        (*ocls)[i] = cls[order[i]] != 0;
        if (w)
            (*ow)[i] = w[order[i]];
    }
    return 0;
}

/* boot_rows_multi(cls, w_or_None, plan, seed, r0, r1, threads, (order, gend, gscores), ...) -> one
 * float64 bytearray (r1 - r0) x (kinds x REP_WIDTH) per score column (a tuple when several): the
 * plan's statistics of case-level Poisson(1) replicates (SRC_ROWS), every column on the same case
 * weights.  A column's order may name some of the cases only (a slice of them: each case at most
 * once): its statistics are then those of its cases, on the draws the whole column's cases get. */
PyObject *nv_boot_rows_multi(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_ssize_t na = PyTuple_GET_SIZE(args);
    int nmodels = (int)(na - 7);
    if (nmodels < 1 || nmodels > MAX_MODELS) {
        PyErr_SetString(PyExc_TypeError, "boot_rows_multi takes 7 arguments and 1 to 16 score columns");
        return NULL;
    }
    PyObject *co, *wobj, *plo;
    unsigned long long seed;
    long long r0, r1;
    int threads, nk = 0;
    PyObject *head = PyTuple_GetSlice(args, 0, 7);
    if (!head)
        return NULL;
    int parsed = PyArg_ParseTuple(head, "OOOKLLi", &co, &wobj, &plo, &seed, &r0, &r1, &threads);
    Py_DECREF(head);
    if (!parsed || check_threads_range(r0, r1) < 0)
        return NULL;
    nv_args in = {0}, ma[MAX_MODELS];
    memset(ma, 0, sizeof ma);
    PyObject *outs[MAX_MODELS] = {0}, *result = NULL;
    uint8_t *ocls[MAX_MODELS] = {0};
    double *ow[MAX_MODELS] = {0}, *o[MAX_MODELS] = {0};
    src_t src[MAX_MODELS];
    plan_t pl[MAX_MODELS];
    memset(src, 0, sizeof src);
    memset(pl, 0, sizeof pl);
    pset *ps = NULL;
    if (nv_arg(&in, co, NV_RAW1) < 0 || nv_arg(&in, wobj == Py_None ? NULL : wobj, NV_RAW8 | NV_OPTIONAL) < 0 ||
        nv_arg(&in, plo, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    if (!nv_len_eq(&in, 1, 0)) {
        nv_args_fail(&in, PyExc_ValueError, "classes and weights differ in length");
        return NULL;
    }
    if (rep_plan(in.v[2].buf, in.n[2], &nk) < 0)
        goto done;
    const uint8_t *cls = in.v[0].buf;
    const double *w = in.v[1].buf;
    for (int m = 0; m < nmodels; m++) {
        if (column_args(&ma[m], PyTuple_GET_ITEM(args, 7 + m), n, 1) < 0)
            goto done;
        outs[m] = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * nk * REP_WIDTH * 8));
        if (!outs[m])
            goto done;
        o[m] = (double *)PyByteArray_AS_STRING(outs[m]);
    }
    int ok;
    NOGIL_BEGIN
    ps = pset_for(NULL, NULL, 0);
    ok = ps != NULL;
    for (int m = 0; m < nmodels && ok; m++) {
        const int64_t *order = ma[m].v[0].buf;
        ok = column_layout(order, ma[m].n[0], cls, w, &ocls[m], &ow[m]) == 0 &&
             plan_make(&pl[m], in.v[2].buf, nk, ma[m].v[2].buf, ma[m].n[1], 1) == 0;
        src[m] = (src_t){.mode = SRC_ROWS, .K = ma[m].n[1], .sc = ma[m].v[2].buf, .ps = ps, .order = order,
                         .gend = ma[m].v[1].buf, .ocls = ocls[m], .ow = ow[m]};
    }
    ok = ok && walk_all(src, pl, nmodels, (uint64_t)seed, r0, r1, threads, o) == 0;
    NOGIL_END
    if (!ok) {
        PyErr_NoMemory();
        goto done;
    }
    if (nmodels == 1) {
        result = outs[0];
        Py_INCREF(result);
    } else {
        result = PyTuple_New(nmodels);
        for (int m = 0; result && m < nmodels; m++) {
            Py_INCREF(outs[m]);
            PyTuple_SET_ITEM(result, m, outs[m]);
        }
    }
done:
    pset_free(ps);
    for (int m = 0; m < MAX_MODELS; m++) {
        free(ocls[m]);
        free(ow[m]);
        plan_free(&pl[m]);
        Py_XDECREF(outs[m]);
        nv_args_release(&ma[m]);
    }
    nv_args_release(&in);
    return result;
}

/* jack_multi(cls, w_or_None, plan, G, threads, (order, gend, gscores)) -> float64 bytearray, G x
 * (kinds x REP_WIDTH): the plan's statistics of the cases without group g (case i in group i mod G),
 * g = 0..G-1: the delete-a-group jackknife of the BCa acceleration (SRC_JACK). */
PyObject *nv_jack_multi(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *co, *wobj, *plo, *col;
    long long G;
    int threads, nk = 0;
    if (!PyArg_ParseTuple(args, "OOOLiO", &co, &wobj, &plo, &G, &threads, &col))
        return NULL;
    nv_args in = {0}, ma = {0};
    if (nv_arg(&in, co, NV_RAW1) < 0 || nv_arg(&in, wobj == Py_None ? NULL : wobj, NV_RAW8 | NV_OPTIONAL) < 0 ||
        nv_arg(&in, plo, NV_RAW8) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    PyObject *out = NULL;
    uint8_t *ocls = NULL;
    double *ow = NULL, *full = NULL;
    plan_t pl;
    memset(&pl, 0, sizeof pl);
    if (!nv_len_eq(&in, 1, 0) || G < 1) {
        nv_args_fail(&in, PyExc_ValueError, "classes and weights differ in length, or no group");
        return NULL;
    }
    if (rep_plan(in.v[2].buf, in.n[2], &nk) < 0 || column_args(&ma, col, n, 0) < 0)
        goto done;
    out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(G * nk * REP_WIDTH * 8));
    if (!out)
        goto done;
    Py_ssize_t K = ma.n[1];
    const int64_t *order = ma.v[0].buf, *gend = ma.v[1].buf;
    int ok;
    double *o = (double *)PyByteArray_AS_STRING(out);
    NOGIL_BEGIN
    full = malloc((size_t)(K > 0 ? K : 1) * 2 * sizeof(double));
    ok = full && column_layout(order, n, in.v[0].buf, in.v[1].buf, &ocls, &ow) == 0 &&
         plan_make(&pl, in.v[2].buf, nk, ma.v[2].buf, K, 1) == 0;
    if (ok) {
        for (Py_ssize_t c = 0; c < K; c++) { /* every case's weight, cell by cell, in case order */
            double p = 0, q = 0;
            for (int64_t j = c ? gend[c - 1] : 0; j < gend[c]; j++) {
                double x = ow ? ow[j] : 1.0;
                if (ocls[j])
                    p += x;
                else
                    q += x;
            }
            full[c] = p;
            full[K + c] = q;
        }
        src_t s = {.mode = SRC_JACK, .K = K, .sc = ma.v[2].buf, .order = order, .gend = gend, .ocls = ocls,
                   .ow = ow, .gp = full, .gq = full + K, .G = G};
        ok = walk_all(&s, &pl, 1, 0, 0, G, threads, &o) == 0;
    }
    NOGIL_END
    if (!ok) {
        Py_CLEAR(out);
        PyErr_NoMemory();
    }
done:
    free(full);
    free(ocls);
    free(ow);
    plan_free(&pl);
    nv_args_release(&ma);
    nv_args_release(&in);
    return out;
}

/* rep_finish(scores, pos, neg, plan) -> float64 bytes, REP_WIDTH statistics per (kind, parameter):
 * one summary through the walk (SRC_GIVEN): what a replicate with these counts would give. */
PyObject *nv_rep_finish(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po, *no, *plo;
    if (!PyArg_ParseTuple(args, "OOOO", &so, &po, &no, &plo))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, po, NV_RAW8) < 0 || nv_arg(&in, no, NV_RAW8) < 0 ||
        nv_arg(&in, plo, NV_RAW8) < 0)
        return NULL;
    int nk = 0;
    if (!nv_len_eq(&in, 0, 1) || !nv_len_eq(&in, 0, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "scores, pos and neg differ in length");
        return NULL;
    }
    if (rep_plan(in.v[3].buf, in.n[3], &nk) < 0) {
        nv_args_release(&in);
        return NULL;
    }
    PyObject *res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)nk * REP_WIDTH * 8);
    plan_t pl;
    void *w = NULL;
    memset(&pl, 0, sizeof pl);
    int ok = res != NULL;
    if (ok) {
        NOGIL_BEGIN
        src_t s = {.mode = SRC_GIVEN, .K = in.n[0], .sc = in.v[0].buf, .gp = in.v[1].buf, .gq = in.v[2].buf};
        lanes_t L;
        memset(&L, 0, sizeof L);
        L.nl = 1;
        ok = plan_make(&pl, in.v[3].buf, nk, in.v[0].buf, in.n[0], 0) == 0 && (w = walk->alloc(&pl)) != NULL;
        if (ok)
            walk->block(w, &pl, &s, &L, (double *)PyBytes_AS_STRING(res), (size_t)nk * REP_WIDTH);
        NOGIL_END
    }
    walk->release(w);
    plan_free(&pl);
    nv_args_release(&in);
    if (!ok) {
        Py_XDECREF(res);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    return res;
}

/* boot_hist_draws(pos, neg, seed, r0, r1, compact) -> the counts replicates r0..r1-1 draw from a
 * summary (the draws of boot_hist_multi).  compact: one replicate (r1 = r0 + 1), its drawn cells only,
 * as (cells int64, pos', neg') bytes, a replicate summary for the measures without a plan; else
 * (pos', neg') float64 bytearrays (r1 - r0) x K (the tests' view of the draws). */
PyObject *nv_boot_hist_draws(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no;
    unsigned long long seed;
    long long r0, r1;
    int compact;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOKLLp", &po, &no, &seed, &r0, &r1, &compact) || nv_arg(&in, po, NV_RAW8) < 0 ||
        nv_arg(&in, no, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1)) {
        nv_args_fail(&in, PyExc_ValueError, "pos and neg differ in length");
        return NULL;
    }
    if (check_threads_range(r0, r1) < 0 || (compact && r1 != r0 + 1)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a compact draw is of one replicate");
        nv_args_release(&in);
        return NULL;
    }
    Py_ssize_t K = in.n[0], R = (Py_ssize_t)(r1 - r0), k = 0;
    size_t cells = (size_t)(compact ? (K > 0 ? K : 1) : (size_t)R * (size_t)(K > 0 ? K : 1));
    int64_t *ci = compact ? malloc(cells * sizeof(int64_t)) : NULL;
    double *cp = malloc(cells * sizeof(double)), *cq = malloc(cells * sizeof(double));
    src_t s;
    memset(&s, 0, sizeof s);
    int ok = cp && cq && (!compact || ci);
    if (ok) {
        NOGIL_BEGIN
        ok = src_hist_make(&s, NULL, in.v[0].buf, in.v[1].buf, K) == 0; /* no scores: only draws */
        for (Py_ssize_t r = 0; ok && r < R; r++) {
            lanes_t L;
            memset(&L, 0, sizeof L);
            L.nl = 1;
            L.key[0] = rep_key((uint64_t)seed, (uint64_t)(r0 + r));
            for (Py_ssize_t c = 0; c < K; c++) {
                double p, q;
                cell_count_one(&s, &L, c, 0, &p, &q);
                if (!compact) {
                    cp[(size_t)r * (size_t)K + (size_t)c] = p;
                    cq[(size_t)r * (size_t)K + (size_t)c] = q;
                } else if (p > 0 || q > 0) {
                    ci[k] = c;
                    cp[k] = p;
                    cq[k] = q;
                    k++;
                }
            }
        }
        NOGIL_END
    }
    src_hist_free(&s);
    nv_args_release(&in);
    PyObject *res = NULL;
    if (!ok)
        PyErr_NoMemory();
    else if (compact)
        res = Py_BuildValue("(y#y#y#)", (const char *)ci, (Py_ssize_t)(k * 8), (const char *)cp, (Py_ssize_t)(k * 8),
                            (const char *)cq, (Py_ssize_t)(k * 8));
    else {
        PyObject *a = PyByteArray_FromStringAndSize((const char *)cp, (Py_ssize_t)(R * K * 8));
        PyObject *b = PyByteArray_FromStringAndSize((const char *)cq, (Py_ssize_t)(R * K * 8));
        res = a && b ? Py_BuildValue("(NN)", a, b) : NULL;
        if (!res) {
            Py_XDECREF(a);
            Py_XDECREF(b);
        }
    }
    free(ci);
    free(cp);
    free(cq);
    return res;
}

/* poisson_rows(n, seed, r0, r1) -> float64 bytearray (r1 - r0) x n: the Poisson(1) weight of each
 * case (or group) in replicates r0..r1-1, the draws of boot_rows_multi (counter = the case's number). */
PyObject *nv_poisson_rows(PyObject *Py_UNUSED(self), PyObject *args)
{
    long long n, r0, r1;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "LKLL", &n, &seed, &r0, &r1))
        return NULL;
    if (n < 0 || check_threads_range(r0, r1) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "n < 0");
        return NULL;
    }
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * n * 8));
    if (!out)
        return NULL;
    double *P = (double *)PyByteArray_AS_STRING(out);
    pset *ps;
    NOGIL_BEGIN
    ps = pset_for(NULL, NULL, 0);
    if (ps) {
        const ptab *t = &ps->t[1];
        for (long long r = r0; r < r1; r++) {
            uint64_t key = rep_key((uint64_t)seed, (uint64_t)r);
            double *row = P + (r - r0) * n;
            for (long long i = 0; i < n; i++)
                row[i] = ptab_draw(t, draw_bits(key, (uint64_t)i));
        }
    }
    NOGIL_END
    if (!ps) {
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    pset_free(ps);
    return out;
}


/* ------------------------------------------------------------------------------------------------ */
/* DeLong's structural components.                                                                   */

/* delong_hist(pos, neg) -> (auc, s10, s01, m, n): DeLong's structural-component variances from a
 * histogram (ascending scores; positive and negative weight per distinct score).  Why C: the numpy
 * form makes eight temporaries the size of the histogram, ~1 s of page faults on 10M distinct scores
 * in a fresh process; this is three passes and no allocation. */
PyObject *nv_delong_hist(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *po, *no;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OO", &po, &no) || nv_arg(&in, po, NV_RAW8) < 0 || nv_arg(&in, no, NV_RAW8) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 1)) {
        nv_args_fail(&in, PyExc_ValueError, "pos and neg differ in length");
        return NULL;
    }
    const double *p = in.v[0].buf, *q = in.v[1].buf;
    Py_ssize_t K = in.n[0];
    double m = 0, n = 0, area = 0, s10 = 0, s01 = 0, auc;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t c = 0; c < K; c++) {
        m += p[c];
        n += q[c];
    }
    double below = 0;
    for (Py_ssize_t c = 0; c < K; c++) {
        area += p[c] * (below + 0.5 * q[c]);
        below += q[c];
    }
    auc = area / (m * n);
    double negb = 0, posthru = 0;
    for (Py_ssize_t c = 0; c < K; c++) {
        double v10 = (negb + 0.5 * q[c]) / n;
        posthru += p[c];
        double v01 = (m - posthru + 0.5 * p[c]) / m;
        s10 += p[c] * (v10 - auc) * (v10 - auc);
        s01 += q[c] * (v01 - auc) * (v01 - auc);
        negb += q[c];
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    return Py_BuildValue("(ddddd)", auc, s10, s01, m, n);
}


/* delong_rows(order, scores, cls, weights_or_None) -> (auc, m, n, comp)
 * Per case, in case order, its DeLong structural component: V10 for a positive, V01 for a negative;
 * order sorts the scores ascending.  Used by the paired test, which needs both models' components of
 * the same case.  Why C: two walks of each tie group write the components straight to their cases,
 * where the numpy form needs six arrays the size of the data (1.9 GB peak on 10M rows, two models). */
PyObject *nv_delong_rows(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *oo, *so, *co, *wobj;
    if (!PyArg_ParseTuple(args, "OOOO", &oo, &so, &co, &wobj))
        return NULL;
    int have_w = wobj != Py_None;
    nv_args in = {0}; /* 0 order, 1 scores, 2 cls, 3 w */
    if (nv_arg(&in, oo, NV_RAW8) < 0 || nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, co, NV_RAW1) < 0 ||
        nv_arg(&in, have_w ? wobj : NULL, NV_RAW8 | NV_OPTIONAL) < 0)
        return NULL;
    Py_ssize_t n = in.n[2];
    if (!nv_len_eq(&in, 0, 2) || !nv_len_eq(&in, 1, 2) || !nv_len_eq(&in, 3, 2)) {
        nv_args_fail(&in, PyExc_ValueError, "order, scores, classes and weights must describe the same cases");
        return NULL;
    }
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * 8), *result = NULL;
    if (!out) {
        nv_args_release(&in);
        return NULL;
    }
    const int64_t *o = in.v[0].buf;
    const double *sc = in.v[1].buf, *w = have_w ? in.v[3].buf : NULL;
    const uint8_t *c = in.v[2].buf;
    double *comp = (double *)PyByteArray_AS_STRING(out);
    double m = 0, nn = 0, area = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        if (c[i])
            m += wi;
        else
            nn += wi;
    }
    double negb = 0, posb = 0; /* negative and positive weight below the current tie group */
    for (Py_ssize_t j = 0; j < n;) {
        Py_ssize_t e = j;
        double p = 0, q = 0;
        while (e < n && sc[o[e]] == sc[o[j]]) {
            double wi = w ? w[o[e]] : 1.0;
            if (c[o[e]])
                p += wi;
            else
                q += wi;
            e++;
        }
        double v10 = (negb + 0.5 * q) / nn, v01 = (m - posb - p + 0.5 * p) / m;
        for (Py_ssize_t k = j; k < e; k++)
            comp[o[k]] = c[o[k]] ? v10 : v01;
        area += p * (negb + 0.5 * q);
        negb += q;
        posb += p;
        j = e;
    }
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("(dddO)", area / (m * nn), m, nn, out);
    Py_DECREF(out);
    nv_args_release(&in);
    return result;
}
