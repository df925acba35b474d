/*
 * perfeval._native, sort.c: the original's sort, step for step: PERF's Hoare quicksort with the same
 * partitions and swaps, made fast on degenerate input by segment trees and two threads; numba's
 * argsort (ranx's order); ties ordered by document id (trec_eval's).  Sorts that only need exact
 * keys in order, whatever the order of equal ones, use introsort.h instead.
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

/* ------------------------------------------------------------------------------------------------ */
/* numba's np.argsort (kind "quicksort") of float64 keys, segment by segment: the order in which ranx */
/* ranks a query's documents (perfeval.summaries.orders). numba/misc/quicksort.py step for step:      */
/* median-of-three pivot, its partition, the larger part pushed, insertion sort below 16 elements.    */
/* Keys hold no NaN (scores are finite).                                                               */
/* ------------------------------------------------------------------------------------------------ */
#define NB_SMALL 15

static void nb_insertion(const double *A, int64_t *R, Py_ssize_t low, Py_ssize_t high)
{
    for (Py_ssize_t i = low + 1; i <= high; i++) {
        int64_t k = R[i];
        double v = A[k];
        Py_ssize_t j = i;
        while (j > low && v < A[R[j - 1]]) {
            R[j] = R[j - 1];
            j--;
        }
        R[j] = k;
    }
}

static Py_ssize_t nb_partition(const double *A, int64_t *R, Py_ssize_t low, Py_ssize_t high)
{
    Py_ssize_t mid = (low + high) >> 1;
    int64_t t;
    if (A[R[mid]] < A[R[low]]) { t = R[low]; R[low] = R[mid]; R[mid] = t; }
    if (A[R[high]] < A[R[mid]]) { t = R[high]; R[high] = R[mid]; R[mid] = t; }
    if (A[R[mid]] < A[R[low]]) { t = R[low]; R[low] = R[mid]; R[mid] = t; }
    double pivot = A[R[mid]];
    t = R[high]; R[high] = R[mid]; R[mid] = t;
    Py_ssize_t i = low, j = high - 1;
    for (;;) {
        while (i < high && A[R[i]] < pivot)
            i++;
        while (j >= low && pivot < A[R[j]])
            j--;
        if (i >= j)
            break;
        t = R[i]; R[i] = R[j]; R[j] = t;
        i++;
        j--;
    }
    t = R[i]; R[i] = R[high]; R[high] = t;
    return i;
}

/* R[0..n) := numba's argsort of A[0..n); returns -1 when its stack of 100 would overflow (it asserts) */
static int nb_argsort(const double *A, int64_t *R, Py_ssize_t n)
{
    Py_ssize_t stack[2 * 100];
    for (Py_ssize_t i = 0; i < n; i++)
        R[i] = i;
    if (n < 2)
        return 0;
    int top = 0;
    stack[0] = 0;
    stack[1] = n - 1;
    top = 1;
    while (top > 0) {
        top--;
        Py_ssize_t low = stack[2 * top], high = stack[2 * top + 1];
        while (high - low >= NB_SMALL) {
            if (top >= 100)
                return -1;
            Py_ssize_t i = nb_partition(A, R, low, high);
            if (high - i > i - low) {
                if (high > i) {
                    stack[2 * top] = i + 1;
                    stack[2 * top + 1] = high;
                    top++;
                }
                high = i - 1;
            } else {
                if (i > low) {
                    stack[2 * top] = low;
                    stack[2 * top + 1] = i - 1;
                    top++;
                }
                low = i + 1;
            }
        }
        nb_insertion(A, R, low, high);
    }
    return 0;
}

/* numba_argsort(keys f64, starts int64 (segment starts, then n), out int64): out[a:b] := numba's argsort
 * of keys[a:b] (positions within the segment), for each segment [a, b). */
PyObject *nv_numba_argsort(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ko, *so, *oo;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOO", &ko, &so, &oo) || nv_arg(&in, ko, NV_RAW8) < 0 ||
        nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, oo, NV_RAW8 | NV_WRITABLE) < 0)
        return NULL;
    if (!nv_len_eq(&in, 0, 2) || in.n[1] < 1)
        return nv_args_fail(&in, PyExc_ValueError, "numba_argsort: keys and out differ in length, or no starts"),
               NULL;
    const double *A = in.v[0].buf;
    const int64_t *st = in.v[1].buf;
    int64_t *out = in.v[2].buf;
    Py_ssize_t segs = in.n[1] - 1, n = in.n[0];
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < segs && !bad; s++) {
        int64_t a = st[s], b = st[s + 1];
        if (a < 0 || b < a || b > n) {
            bad = 1;
            break;
        }
        if (nb_argsort(A + a, out + a, (Py_ssize_t)(b - a)) < 0)
            bad = 2;
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    if (bad == 1)
        return PyErr_SetString(PyExc_ValueError, "numba_argsort: segment starts out of order"), NULL;
    if (bad == 2)
        return PyErr_SetString(PyExc_RuntimeError, "numba_argsort: numba's stack of 100 partitions overflows"),
               NULL;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* ties ordered by document id, descending, as text (trec_eval's strcmp of the docnos): each segment  */
/* order[a:b] of rows (one tie) sorted by its rows' ids.  Ids are int64 (compared as their decimal    */
/* text: "-" first, then the digits, a prefix before the longer) or fixed-width UCS-4 text (numpy's   */
/* "U" dtype: code point order, which is UTF-8's byte order; the NUL padding sorts a prefix first).   */
/* A stable merge sort per segment (insertion sort up to 16 rows).                                     */
/* ------------------------------------------------------------------------------------------------ */
typedef struct {
    const char *ids;
    Py_ssize_t width; /* 0: int64 ids compared as text; -1: int64 keys compared as numbers; -2: the rows
                         themselves, ascending (no ids); else code points of UCS-4 text */
} id_keys;

static uint64_t pow10u(int k)
{
    uint64_t p = 1;
    while (k-- > 0)
        p *= 10;
    return p;
}

/* (sign group, left-aligned digits, digit count) of an int64 id as text */
static void int_text_key(int64_t x, int *nonneg, uint64_t *aligned, int *digits)
{
    uint64_t mag = x < 0 ? (uint64_t)(-(x + 1)) + 1u : (uint64_t)x;
    int d = 1;
    uint64_t p = 10;
    while (d < 20 && mag >= p) {
        d++;
        if (d < 20)
            p *= 10;
    }
    *nonneg = x >= 0;
    *digits = d;
    *aligned = mag * pow10u(19 - d);
}

/* <0, 0, >0: the text of id of row a against row b */
static int id_cmp(const id_keys *k, int64_t a, int64_t b)
{
    if (k->width == -2) /* the row numbers themselves, ascending: a smaller row counts as greater */
        return (b > a) - (b < a);
    if (k->width == -1) {
        int64_t x = ((const int64_t *)k->ids)[a], y = ((const int64_t *)k->ids)[b];
        return (x > y) - (x < y);
    }
    if (k->width == 0) {
        int64_t x = ((const int64_t *)k->ids)[a], y = ((const int64_t *)k->ids)[b];
        if (x == y)
            return 0;
        int nx, ny, dx, dy;
        uint64_t ax, ay;
        int_text_key(x, &nx, &ax, &dx);
        int_text_key(y, &ny, &ay, &dy);
        if (nx != ny)
            return nx - ny;
        if (ax != ay)
            return ax < ay ? -1 : 1;
        return dx - dy;
    }
    const uint32_t *p = (const uint32_t *)(k->ids + 4 * k->width * a);
    const uint32_t *q = (const uint32_t *)(k->ids + 4 * k->width * b);
    for (Py_ssize_t i = 0; i < k->width; i++)
        if (p[i] != q[i])
            return p[i] < q[i] ? -1 : 1;
    return 0;
}

/* descending by id, stable */
static void id_merge_sort(const id_keys *k, int64_t *r, int64_t *tmp, Py_ssize_t n)
{
    if (n <= 16) {
        for (Py_ssize_t i = 1; i < n; i++) {
            int64_t v = r[i];
            Py_ssize_t j = i;
            while (j > 0 && id_cmp(k, r[j - 1], v) < 0) {
                r[j] = r[j - 1];
                j--;
            }
            r[j] = v;
        }
        return;
    }
    Py_ssize_t h = n / 2;
    id_merge_sort(k, r, tmp, h);
    id_merge_sort(k, r + h, tmp, n - h);
    Py_ssize_t i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = id_cmp(k, r[j], r[i]) > 0 ? r[j++] : r[i++];
    while (i < h)
        tmp[o++] = r[i++];
    while (j < n)
        tmp[o++] = r[j++];
    memcpy(r, tmp, (size_t)n * sizeof(int64_t));
}

/* ties_by_id(order int64 (writable), starts int64 (segments, then the end), ids, width): each segment of
 * `order` sorted by the ids of its rows, descending as text; width 0: ids are int64 (as their text), -1:
 * int64 keys compared as numbers (descending), else UCS-4 text of that many code points. */
PyObject *nv_ties_by_id(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *oo, *so, *io;
    Py_ssize_t width;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOOn", &oo, &so, &io, &width) || nv_arg(&in, oo, NV_RAW8 | NV_WRITABLE) < 0 ||
        nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, io, NV_RAW1) < 0)
        return NULL;
    int64_t *order = in.v[0].buf;
    const int64_t *st = in.v[1].buf;
    Py_ssize_t n = in.n[0], segs = in.n[1] - 1, rows = width > 0 ? in.n[2] / (4 * width) : in.n[2] / 8;
    id_keys k = {in.v[2].buf, width};
    int bad = width < -1 || segs < 0;
    Py_ssize_t longest = 0;
    for (Py_ssize_t s = 0; s < segs && !bad; s++) {
        if (st[s] < 0 || st[s + 1] < st[s] || st[s + 1] > n)
            bad = 1;
        else if (st[s + 1] - st[s] > longest)
            longest = st[s + 1] - st[s];
    }
    for (Py_ssize_t i = 0; i < n && !bad; i++)
        if (order[i] < 0 || order[i] >= rows)
            bad = 1;
    if (bad)
        return nv_args_fail(&in, PyExc_ValueError, "ties_by_id: bad segments, rows or width"), NULL;
    int64_t *tmp = malloc((size_t)(longest > 0 ? longest : 1) * sizeof(int64_t));
    if (!tmp) {
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < segs; s++)
        id_merge_sort(&k, order + st[s], tmp, (Py_ssize_t)(st[s + 1] - st[s]));
    Py_END_ALLOW_THREADS
    free(tmp);
    nv_args_release(&in);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* The ROC area when ties are broken by input order (DIN's calc_auc, which sorts stably), in one walk  */
/* over the rows in ascending score order: per run of equal scores its positives and negatives, the  */
/* pairs ordered by score, and, with the run's rows put back in input order, the tied pairs whose     */
/* positive comes first.                                                                              */
/* ------------------------------------------------------------------------------------------------ */
/* roc_input_ties(order int64 (ascending by score; reordered in place inside runs), scores f64, positive u8)
 * -> (pairs with the positive scored higher, tied pairs, tied pairs whose positive comes first in the
 * input, positives, negatives) */
PyObject *nv_roc_input_ties(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *oo, *so, *po;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOO", &oo, &so, &po) || nv_arg(&in, oo, NV_RAW8 | NV_WRITABLE) < 0 ||
        nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, po, NV_RAW1) < 0)
        return NULL;
    int64_t *order = in.v[0].buf;
    const double *s = in.v[1].buf;
    const unsigned char *pos = in.v[2].buf;
    Py_ssize_t n = in.n[0];
    if (in.n[1] != n || in.n[2] != n)
        return nv_args_fail(&in, PyExc_ValueError, "roc_input_ties: lengths differ"), NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (order[i] < 0 || order[i] >= n)
            return nv_args_fail(&in, PyExc_ValueError, "roc_input_ties: order out of range"), NULL;
    int64_t *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (!tmp) {
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    double strict = 0.0, tied = 0.0, pos_first = 0.0, P = 0.0, N = 0.0;
    id_keys by_row = {NULL, -2};
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t a = 0;
    while (a < n) {
        Py_ssize_t b = a + 1;
        while (b < n && s[order[b]] == s[order[a]])
            b++;
        double p = 0.0, q = 0.0;
        if (b - a > 1) /* the run's rows back in input order */
            id_merge_sort(&by_row, order + a, tmp, b - a);
        for (Py_ssize_t i = a; i < b; i++) {
            if (pos[order[i]])
                p += 1.0;
            else {
                q += 1.0;
                pos_first += p; /* the positives of the run before this negative in the input */
            }
        }
        strict += p * N; /* every negative of a lower run */
        tied += p * q;
        P += p;
        N += q;
        a = b;
    }
    Py_END_ALLOW_THREADS
    free(tmp);
    nv_args_release(&in);
    return Py_BuildValue("(ddddd)", strict, tied, pos_first, P, N);
}

/* a distinct score of roc_input_hash's table, with its positives and negatives */
typedef struct {
    double key; /* NaN: empty (scores are finite) */
    double pos, neg;
} hcell;

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static size_t hslot(double key, size_t mask)
{
    uint64_t bits;
    memcpy(&bits, &key, 8);
    return (size_t)mix64(bits) & mask;
}

static int cmp_hcell(const void *a, const void *b)
{
    double x = ((const hcell *)a)->key, y = ((const hcell *)b)->key;
    return (x > y) - (x < y);
}

static hcell *hcells_new(size_t size)
{
    hcell *t = malloc(size * sizeof(hcell));
    if (t)
        for (size_t i = 0; i < size; i++)
            t[i].key = NAN;
    return t;
}

/* the slot of `key` in the table (its cell, or the empty one where it goes) */
static size_t hfind(const hcell *tab, size_t size, double key)
{
    size_t h = hslot(key, size - 1);
    while (!isnan(tab[h].key) && tab[h].key != key)
        h = (h + 1) & (size - 1);
    return h;
}

/* one half of the rows counted into its own table */
typedef struct {
    const double *s;
    const unsigned char *pos;
    Py_ssize_t lo, hi, cap;
    hcell *tab;
    size_t size;
    Py_ssize_t m;
    double pos_first;
    int status; /* 1: more distinct scores than cap, 2: out of memory */
} hjob;

static void *hjob_run(void *arg)
{
    hjob *j = arg;
    j->size = 1024;
    j->tab = hcells_new(j->size);
    j->m = 0;
    j->pos_first = 0.0;
    j->status = j->tab ? 0 : 2;
    const double *s = j->s;
    for (Py_ssize_t r = j->lo; r < j->hi && !j->status; r++) {
        if (r + 16 < j->hi)
            __builtin_prefetch(&j->tab[hslot(s[r + 16] + 0.0, j->size - 1)], 1);
        double key = s[r] + 0.0; /* -0.0 and 0.0 are one score */
        size_t h = hfind(j->tab, j->size, key);
        if (isnan(j->tab[h].key)) {
            if ((size_t)(j->m + 1) * 2 > j->size) { /* grow: double the table, rehash */
                if (j->m + 1 > j->cap) {
                    j->status = 1;
                    break;
                }
                size_t ns = j->size * 2;
                hcell *nt = hcells_new(ns);
                if (!nt) {
                    j->status = 2;
                    break;
                }
                for (size_t i = 0; i < j->size; i++)
                    if (!isnan(j->tab[i].key))
                        nt[hfind(nt, ns, j->tab[i].key)] = j->tab[i];
                free(j->tab);
                j->tab = nt;
                j->size = ns;
                h = hfind(j->tab, j->size, key);
            }
            j->m++;
            j->tab[h].key = key;
            j->tab[h].pos = j->tab[h].neg = 0.0;
        }
        if (j->pos[r])
            j->tab[h].pos += 1.0;
        else {
            j->tab[h].neg += 1.0;
            j->pos_first += j->tab[h].pos; /* the positives of this tie that came before */
        }
    }
    return NULL;
}

/* roc_input_hash(scores f64, positive u8, cap int) -> the same five numbers as roc_input_ties, or None
 * when the scores have more than `cap` distinct values (then the caller sorts): the rows counted in
 * input order with a hash of the distinct scores (open addressing, the counts in the slot, the slot of
 * a row 16 ahead prefetched), each score counting its negatives, its positives and the (positive,
 * negative) pairs of its tie with the positive first; the two halves of the rows in two threads, then
 * merged (a positive of the first half comes before every negative of the second); then the distinct
 * scores sorted, for the pairs ordered by score.  No sort of the rows: an argsort of 10M scores costs
 * 1 s, this about a third of that. */
PyObject *nv_roc_input_hash(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *so, *po;
    Py_ssize_t cap;
    nv_args in = {0};
    if (!PyArg_ParseTuple(args, "OOn", &so, &po, &cap) || nv_arg(&in, so, NV_RAW8) < 0 || nv_arg(&in, po, NV_RAW1) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    if (in.n[1] != n)
        return nv_args_fail(&in, PyExc_ValueError, "roc_input_hash: lengths differ"), NULL;
    hjob j[2];
    Py_ssize_t half = n >= 200000 ? n / 2 : n; /* small inputs: one thread */
    for (int k = 0; k < 2; k++) {
        j[k].s = in.v[0].buf;
        j[k].pos = in.v[1].buf;
        j[k].cap = cap;
        j[k].lo = k ? half : 0;
        j[k].hi = k ? n : half;
        j[k].tab = NULL;
    }
    double pos_first = 0.0, strict = 0.0, tied = 0.0, P = 0.0, N = 0.0;
    int status = 0;
    Py_BEGIN_ALLOW_THREADS
    pthread_t th;
    int threaded = pthread_create(&th, NULL, hjob_run, &j[1]) == 0;
    hjob_run(&j[0]);
    if (threaded)
        pthread_join(th, NULL);
    else
        hjob_run(&j[1]);
    status = j[0].status ? j[0].status : j[1].status;
    if (!status) {
        /* merge the second half into the first: its negatives come after the first half's positives */
        hjob *a = &j[0], *b = &j[1];
        pos_first = a->pos_first + b->pos_first;
        for (size_t i = 0; i < b->size && !status; i++) {
            if (isnan(b->tab[i].key))
                continue;
            size_t h = hfind(a->tab, a->size, b->tab[i].key);
            if (isnan(a->tab[h].key)) {
                if ((size_t)(a->m + 1) * 2 > a->size) {
                    if (a->m + 1 > cap) {
                        status = 1;
                        break;
                    }
                    size_t ns = a->size * 2;
                    hcell *nt = hcells_new(ns);
                    if (!nt) {
                        status = 2;
                        break;
                    }
                    for (size_t q = 0; q < a->size; q++)
                        if (!isnan(a->tab[q].key))
                            nt[hfind(nt, ns, a->tab[q].key)] = a->tab[q];
                    free(a->tab);
                    a->tab = nt;
                    a->size = ns;
                    h = hfind(a->tab, a->size, b->tab[i].key);
                }
                a->m++;
                a->tab[h] = b->tab[i];
            } else {
                pos_first += a->tab[h].pos * b->tab[i].neg;
                a->tab[h].pos += b->tab[i].pos;
                a->tab[h].neg += b->tab[i].neg;
            }
        }
    }
    if (!status) {
        hcell *tab = j[0].tab;
        Py_ssize_t k = 0;
        for (size_t i = 0; i < j[0].size; i++)
            if (!isnan(tab[i].key))
                tab[k++] = tab[i];
        qsort(tab, (size_t)k, sizeof(hcell), cmp_hcell);
        for (Py_ssize_t q = 0; q < k; q++) {
            strict += tab[q].pos * N;
            tied += tab[q].pos * tab[q].neg;
            P += tab[q].pos;
            N += tab[q].neg;
        }
    }
    Py_END_ALLOW_THREADS
    free(j[0].tab);
    free(j[1].tab);
    nv_args_release(&in);
    if (status == 2)
        return PyErr_NoMemory();
    if (status == 1)
        Py_RETURN_NONE;
    return Py_BuildValue("(ddddd)", strict, tied, pos_first, P, N);
}

/* ------------------------------------------------------------------------------------------------ */
/* sort_by_pred(t, p): (target, prediction) float32 pairs sorted by prediction in place, by an LSD     */
/* radix sort of the predictions' bits (three 11-bit passes; stable).  Not PERF's order inside ties:  */
/* for the measures that do not read it (perfeval.dialects.perf.ORDER_FREE), 10x faster than the      */
/* replayed quicksort.  -0.0 sorts just below 0.0 (equal floats, adjacent); predictions hold no NaN.  */
/* ------------------------------------------------------------------------------------------------ */
static inline uint32_t f32_key(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b ^ ((b >> 31) ? 0xFFFFFFFFu : 0x80000000u);
}

PyObject *nv_sort_by_pred(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *to, *po;
    if (!PyArg_ParseTuple(args, "OO", &to, &po))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, to, NV_F32 | NV_WRITABLE) < 0 || nv_arg(&in, po, NV_F32 | NV_WRITABLE) < 0 ||
        nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    Py_ssize_t n = in.n[0];
    float *t = in.v[0].buf, *p = in.v[1].buf;
    size_t bytes = sizeof(uint64_t) * (size_t)(n ? n : 1);
    uint64_t *a = nv_big_alloc(bytes), *b = nv_big_alloc(bytes);
    if (!a || !b) {
        nv_big_free(a, bytes);
        nv_big_free(b, bytes);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    /* a record: the key in the high 32 bits, the target's bits in the low 32 */
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t tb;
        memcpy(&tb, &t[i], 4);
        a[i] = ((uint64_t)f32_key(p[i]) << 32) | tb;
    }
    static const int shift[3] = {32, 43, 54};
    for (int pass = 0; pass < 3; pass++) {
        size_t count[2048] = {0};
        int sh = shift[pass];
        for (Py_ssize_t i = 0; i < n; i++)
            count[(a[i] >> sh) & 2047]++;
        size_t sum = 0;
        for (int d = 0; d < 2048; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            b[count[(a[i] >> sh) & 2047]++] = a[i];
        uint64_t *x = a;
        a = b;
        b = x;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t k = (uint32_t)(a[i] >> 32), tb = (uint32_t)a[i];
        uint32_t pb = k ^ ((k >> 31) ? 0x80000000u : 0xFFFFFFFFu);
        memcpy(&p[i], &pb, 4);
        memcpy(&t[i], &tb, 4);
    }
    Py_END_ALLOW_THREADS
    nv_big_free(a, bytes);
    nv_big_free(b, bytes);
    nv_args_release(&in);
    Py_RETURN_NONE;
}
