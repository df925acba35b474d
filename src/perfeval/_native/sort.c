/*
 * perfeval._x87, sort.c: the original's sort, step for step: PERF's Hoare quicksort with the same
 * partitions and swaps, made fast on degenerate input by segment trees and two threads.
 */
#include "native.h"

/* ------------------------------------------------------------------------------------------------ */
/* the original's sort, step for step                                                               */
/* ------------------------------------------------------------------------------------------------ */
/*
 * PERF sorts with a textbook Hoare-partition quicksort, first element as pivot, swapping target and
 * prediction together.  It is not stable: the order it leaves inside a run of equal predictions
 * decides max_acc_thresh, the "Caution" count, the acc/cost plots, CA2 and the last bits of RMS.  So
 * we run the very same sequence of partitions and swaps.  What we change is how a scan finds where it
 * stops: on sorted, reverse-sorted or otherwise degenerate input the plain scans make the algorithm
 * quadratic (the original needs about 50 s for 400,000 sorted cases).  Once a range sits deeper in
 * the recursion than any reasonable input reaches, its partitions find their stopping points with a
 * min/max segment tree in O(log n) instead of walking there.  Same pivots, same stops, same swaps,
 * hence the same arrangement; only the cost changes (O((swaps + partitions) log n) for the range).
 */
typedef struct {
    float p, t;
} pt_t;

static inline void swap_pt(pt_t *a, Py_ssize_t i, Py_ssize_t j)
{
    pt_t x = a[i];
    a[i] = a[j];
    a[j] = x;
}

static Py_ssize_t partition_plain(pt_t *a, Py_ssize_t p, Py_ssize_t r)
{
    float x = a[p].p;
    Py_ssize_t i = p - 1, j = r + 1;
    for (;;) {
        do
            j--;
        while (!(a[j].p <= x));
        do
            i++;
        while (!(a[i].p >= x));
        if (i < j)
            swap_pt(a, i, j);
        else
            return j;
    }
}

typedef struct {
    Py_ssize_t lo, hi;
    int depth;
} range_t;

typedef struct {
    range_t *v;
    size_t n, cap;
} rstack;

static int rs_push(rstack *s, Py_ssize_t lo, Py_ssize_t hi, int depth)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        range_t *nv = realloc(s->v, nc * sizeof(range_t));
        if (!nv)
            return -1;
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n].lo = lo;
    s->v[s->n].hi = hi;
    s->v[s->n].depth = depth;
    s->n++;
    return 0;
}

/* Segment trees over a[base .. base+m-1]: tmin/tmax with P leaves (P a power of two). */
typedef struct {
    float *tmin, *tmax;
    Py_ssize_t P, base;
} segtree;

static int st_build(segtree *st, pt_t *a, Py_ssize_t base, Py_ssize_t m)
{
    Py_ssize_t P = 1;
    while (P < m)
        P <<= 1;
    st->P = P;
    st->base = base;
    st->tmin = malloc(sizeof(float) * 2 * (size_t)P);
    st->tmax = malloc(sizeof(float) * 2 * (size_t)P);
    if (!st->tmin || !st->tmax) {
        free(st->tmin);
        free(st->tmax);
        return -1;
    }
    for (Py_ssize_t k = 0; k < P; k++) {
        float v = k < m ? a[base + k].p : 0.0f;
        st->tmin[P + k] = k < m ? v : INFINITY;
        st->tmax[P + k] = k < m ? v : -INFINITY;
    }
    for (Py_ssize_t v = P - 1; v >= 1; v--) {
        st->tmin[v] = fminf(st->tmin[2 * v], st->tmin[2 * v + 1]);
        st->tmax[v] = fmaxf(st->tmax[2 * v], st->tmax[2 * v + 1]);
    }
    return 0;
}

static inline void st_set(segtree *st, Py_ssize_t idx, float val)
{
    Py_ssize_t v = idx - st->base + st->P;
    st->tmin[v] = st->tmax[v] = val;
    for (v >>= 1; v >= 1; v >>= 1) {
        float a = st->tmin[2 * v], b = st->tmin[2 * v + 1];
        float c = st->tmax[2 * v], d = st->tmax[2 * v + 1];
        st->tmin[v] = a < b ? a : b;
        st->tmax[v] = c > d ? c : d;
    }
}

/* largest index k <= R with value <= x (one is known to exist inside the current range) */
static Py_ssize_t st_last_le(segtree *st, Py_ssize_t R, float x)
{
    Py_ssize_t v = R - st->base + st->P;
    for (;;) {
        if (st->tmin[v] <= x) {
            while (v < st->P) {
                v = 2 * v + 1;
                if (!(st->tmin[v] <= x))
                    v--;
            }
            return v - st->P + st->base;
        }
        while ((v & 1) == 0)
            v >>= 1;
        v--;
    }
}

/* smallest index k >= L with value >= x (one is known to exist inside the current range) */
static Py_ssize_t st_first_ge(segtree *st, Py_ssize_t L, float x)
{
    Py_ssize_t v = L - st->base + st->P;
    for (;;) {
        if (st->tmax[v] >= x) {
            while (v < st->P) {
                v = 2 * v;
                if (!(st->tmax[v] >= x))
                    v++;
            }
            return v - st->P + st->base;
        }
        while ((v & 1) == 1)
            v >>= 1;
        v++;
    }
}

static Py_ssize_t partition_tree(pt_t *a, segtree *st, Py_ssize_t p, Py_ssize_t r)
{
    float x = a[p].p;
    Py_ssize_t i = p - 1, j = r + 1;
    for (;;) {
        j = st_last_le(st, j - 1, x);
        i = st_first_ge(st, i + 1, x);
        if (i < j) {
            swap_pt(a, i, j);
            st_set(st, i, a[i].p);
            st_set(st, j, a[j].p);
        } else
            return j;
    }
}

#define SMALL_RANGE 48

/* the plain algorithm on a range no later query will look into */
static int qs_plain(pt_t *a, Py_ssize_t lo, Py_ssize_t hi, rstack *tmp)
{
    size_t base = tmp->n;
    if (rs_push(tmp, lo, hi, 0) < 0)
        return -1;
    while (tmp->n > base) {
        range_t R = tmp->v[--tmp->n];
        if (R.lo >= R.hi)
            continue;
        Py_ssize_t q = partition_plain(a, R.lo, R.hi);
        if (rs_push(tmp, R.lo, q, 0) < 0 || rs_push(tmp, q + 1, R.hi, 0) < 0)
            return -1;
    }
    return 0;
}

static int qs_tree(pt_t *a, Py_ssize_t lo, Py_ssize_t hi, rstack *tmp)
{
    segtree st;
    if (st_build(&st, a, lo, hi - lo + 1) < 0)
        return -1;
    size_t base = tmp->n;
    int rc = 0;
    if (rs_push(tmp, lo, hi, 0) < 0)
        rc = -1;
    while (!rc && tmp->n > base) {
        range_t R = tmp->v[--tmp->n];
        if (R.lo >= R.hi)
            continue;
        if (R.hi - R.lo < SMALL_RANGE) {
            rc = qs_plain(a, R.lo, R.hi, tmp);
            continue;
        }
        Py_ssize_t q = partition_tree(a, &st, R.lo, R.hi);
        if (rs_push(tmp, R.lo, q, 0) < 0 || rs_push(tmp, q + 1, R.hi, 0) < 0)
            rc = -1;
    }
    free(st.tmin);
    free(st.tmax);
    return rc;
}

/* Run the algorithm on a list of disjoint ranges (each with its recursion depth). */
static int sort_ranges(pt_t *a, const range_t *ranges, size_t count, int limit)
{
    rstack s = {0}, tmp = {0};
    int rc = 0;
    for (size_t k = 0; k < count && !rc; k++)
        rc = rs_push(&s, ranges[k].lo, ranges[k].hi, ranges[k].depth);
    while (!rc && s.n) {
        range_t R = s.v[--s.n];
        if (R.lo >= R.hi)
            continue;
        if (R.depth > limit && R.hi - R.lo >= SMALL_RANGE) {
            rc = qs_tree(a, R.lo, R.hi, &tmp);
            continue;
        }
        Py_ssize_t q = partition_plain(a, R.lo, R.hi);
        if (rs_push(&s, R.lo, q, R.depth + 1) < 0 || rs_push(&s, q + 1, R.hi, R.depth + 1) < 0)
            rc = -1;
    }
    free(s.v);
    free(tmp.v);
    return rc;
}

typedef struct {
    pt_t *a;
    range_t *ranges;
    size_t count;
    int limit, rc;
} sortjob;

static void *sortjob_run(void *arg)
{
    sortjob *j = arg;
    j->rc = sort_ranges(j->a, j->ranges, j->count, j->limit);
    return NULL;
}

/* The ranges left after a few top partitions are disjoint, so two threads can finish them at once;
 * every range still sees exactly the partitions and swaps of the one-thread run. */
static int hoare_sort(pt_t *a, Py_ssize_t n, int threads)
{
    if (n < 2)
        return 0;
    int lg = 0;
    while (((Py_ssize_t)1 << lg) < n)
        lg++;
    int limit = 4 * lg + 32;
    range_t first = {0, n - 1, 0};
    if (n < (1 << 20) || threads == 1)
        return sort_ranges(a, &first, 1, limit);
    enum { MAXR = 64 };
    range_t r[MAXR];
    size_t cnt = 1;
    r[0] = first;
    for (int iter = 0; iter < 12 && cnt + 1 < MAXR; iter++) {
        size_t big = 0;
        for (size_t k = 1; k < cnt; k++)
            if (r[k].hi - r[k].lo > r[big].hi - r[big].lo)
                big = k;
        range_t R = r[big];
        if (R.hi - R.lo < n / 8 || R.depth > limit)
            break;
        Py_ssize_t q = partition_plain(a, R.lo, R.hi);
        r[big].hi = q;
        r[big].depth = R.depth + 1;
        r[cnt].lo = q + 1;
        r[cnt].hi = R.hi;
        r[cnt].depth = R.depth + 1;
        cnt++;
    }
    /* deal the ranges to two workers, largest first, each to the lighter one */
    range_t b0[MAXR], b1[MAXR];
    size_t n0 = 0, n1 = 0;
    Py_ssize_t w0 = 0, w1 = 0;
    int used[MAXR] = {0};
    for (size_t done = 0; done < cnt; done++) {
        size_t big = MAXR;
        for (size_t k = 0; k < cnt; k++)
            if (!used[k] && (big == MAXR || r[k].hi - r[k].lo > r[big].hi - r[big].lo))
                big = k;
        used[big] = 1;
        if (w0 <= w1) {
            b0[n0++] = r[big];
            w0 += r[big].hi - r[big].lo + 1;
        } else {
            b1[n1++] = r[big];
            w1 += r[big].hi - r[big].lo + 1;
        }
    }
    sortjob j1 = {a, b1, n1, limit, 0};
    pthread_t th;
    int threaded = n1 > 0 && pthread_create(&th, NULL, sortjob_run, &j1) == 0;
    int rc0 = sort_ranges(a, b0, n0, limit);
    if (threaded)
        pthread_join(th, NULL);
    else
        sortjob_run(&j1);
    return rc0 ? rc0 : j1.rc;
}

/* sort(targets, preds[, threads]): in place, the original's arrangement; threads=1 forces one thread */
PyObject *nv_sort(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po;
    int threads = 0;
    if (!PyArg_ParseTuple(args, "OO|i", &to, &po, &threads))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32 | NV_WRITABLE) < 0 || nv_arg(&in, po, NV_F32 | NV_WRITABLE) < 0 ||
        nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    float *t = in.v[0].buf, *p = in.v[1].buf;
    size_t abytes = sizeof(pt_t) * (size_t)(n ? n : 1);
    pt_t *a = nv_big_alloc(abytes);
    int rc = -1;
    if (a) {
        for (Py_ssize_t i = 0; i < n; i++) {
            a[i].p = p[i];
            a[i].t = t[i];
        }
        Py_BEGIN_ALLOW_THREADS rc = hoare_sort(a, n, threads);
        Py_END_ALLOW_THREADS if (!rc)
        {
            for (Py_ssize_t i = 0; i < n; i++) {
                p[i] = a[i].p;
                t[i] = a[i].t;
            }
        }
    }
    nv_big_free(a, abytes);
    nv_args_release(&in);
    if (rc)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}
