/*
 * perfeval._native, introsort.h: the kernels' one introsort, written once and included once per
 * record type it sorts (as resample.c includes walk.h once per instruction set).  Before including
 * it, define
 *   SORT(name)     the names of this copy's functions: SORT(sort) is the sort, SORT(sift) its heap step;
 *   SORT_T         the record type;
 *   SORT_KEY(x)    the record's key, a uint64_t: the records are sorted by it, ascending.
 * The file undefines the three at its end.
 *
 * SORT(sort)(a, n, depth) sorts a[0..n): quicksort (the median of the first, middle and last keys as
 * pivot, Hoare's partition, the smaller side by recursion and the larger by the loop), heapsort of a
 * range once `depth` partitions deep, insertion sort below 24 records.  Callers pass depth =
 * 2 * (64 - __builtin_clzll(n)).  It is not stable: records of equal keys end in an order that
 * depends only on the input (the same on every run and every machine), which the callers say they
 * do not read (equal keys are equal values, or a tie left in no particular order).
 *
 * The keys are exact (a double's bits made unsigned-ordered, a group code): nothing here compares
 * floats.  sort.c holds the other sorts of the kernels, each replaying another program's order
 * (PERF's quicksort, numba's argsort, trec_eval's tie order): those cannot be this one.
 */

static void SORT(sift)(SORT_T *a, Py_ssize_t i, Py_ssize_t n)
{
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && SORT_KEY(a[c + 1]) > SORT_KEY(a[c]))
            c++;
        if (SORT_KEY(a[i]) >= SORT_KEY(a[c]))
            return;
        SORT_T t = a[i];
        a[i] = a[c];
        a[c] = t;
        i = c;
    }
}

static void SORT(sort)(SORT_T *a, Py_ssize_t n, int depth)
{
    while (n > 24) {
        if (depth-- == 0) {
            for (Py_ssize_t i = n / 2 - 1; i >= 0; i--)
                SORT(sift)(a, i, n);
            for (Py_ssize_t i = n - 1; i > 0; i--) {
                SORT_T t = a[0];
                a[0] = a[i];
                a[i] = t;
                SORT(sift)(a, 0, i);
            }
            return;
        }
        uint64_t x = SORT_KEY(a[0]), y = SORT_KEY(a[n / 2]), z = SORT_KEY(a[n - 1]);
        uint64_t piv = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        Py_ssize_t i = 0, j = n - 1;
        for (;;) {
            while (SORT_KEY(a[i]) < piv)
                i++;
            while (SORT_KEY(a[j]) > piv)
                j--;
            if (i >= j)
                break;
            SORT_T t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
        Py_ssize_t left = j + 1;
        if (left < n - left) { /* the smaller side by recursion, the larger by the loop */
            SORT(sort)(a, left, depth);
            a += left;
            n -= left;
        } else {
            SORT(sort)(a + left, n - left, depth);
            n = left;
        }
    }
    for (Py_ssize_t i = 1; i < n; i++) { /* insertion sort of the short rest */
        SORT_T x = a[i];
        Py_ssize_t j = i;
        while (j > 0 && SORT_KEY(a[j - 1]) > SORT_KEY(x)) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

#undef SORT
#undef SORT_T
#undef SORT_KEY
