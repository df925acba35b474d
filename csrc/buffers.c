/*
 * perfeval._native, buffers.c: the shared plumbing of the kernels: scratch memory (nv_big_alloc), the
 * Buf type, plot-line output buffers and the marshalling of buffer arguments (nv_arg).
 */
#include "native.h"
#include <limits.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* ------------------------------------------------------------------------------------------------ */
/* small helpers                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

static int ob_reserve(nv_outbuf *o, size_t extra)
{
    if (o->len + extra <= o->cap)
        return 0;
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->len + extra)
        cap *= 2;
    char *nb = realloc(o->buf, cap);
    if (!nb)
        return -1;
    o->buf = nb;
    o->cap = cap;
    return 0;
}

/* Append one plot line.  glibc's printf is used on purpose: it prints a NaN with the sign bit set as
 * "-nan", exactly as the original did. */
int nv_ob_line2(nv_outbuf *o, const char *fmt, double x, double y)
{
    if (ob_reserve(o, 700) < 0)
        return -1;
    int k = snprintf(o->buf + o->len, o->cap - o->len, fmt, x, y);
    if (k < 0)
        return -1;
    if ((size_t)k >= o->cap - o->len) { /* huge numbers ("%lf" of 1e300): grow and retry */
        if (ob_reserve(o, (size_t)k + 1) < 0)
            return -1;
        k = snprintf(o->buf + o->len, o->cap - o->len, fmt, x, y);
    }
    o->len += (size_t)k;
    return 0;
}

PyObject *nv_ob_finish(nv_outbuf *o)
{
    PyObject *r = PyBytes_FromStringAndSize(o->buf ? o->buf : "", (Py_ssize_t)o->len);
    free(o->buf);
    o->buf = NULL;
    return r;
}

/* Large scratch buffers: anonymous mappings advised to use transparent huge pages, which cuts the
 * page faults of first touch by a factor of 512 where the kernel allows it.  Freed mappings are kept
 * (at most BIG_CACHE of them and BIG_CACHE_BYTES in all) and handed out again, the smallest that
 * fits: reusing pages already mapped costs nothing, while fresh ones cost a fault and a zeroing each
 * (on this project's machines the kernel's zeroing of fresh pages was a third of the time of reading
 * a 10M-line TREC run).  A run frees its 100 MB input text just before it needs an 80 MB sort array;
 * a TREC run's reading frees its hash tables (three sizes, two threads) and the next run's reading
 * takes them again.  Callers never assume zeroed memory (zeros() clears what it hands out). */
#define BIG_MIN (8u << 20)
#define BIG_CACHE 16
static size_t BIG_CACHE_BYTES = (size_t)1 << 30; /* cache_limit() sets it */
static void *big_cache[BIG_CACHE];
static size_t big_cache_size[BIG_CACHE];
static pthread_mutex_t BIG_LOCK = PTHREAD_MUTEX_INITIALIZER;

/* `used` (a result's, 0 for scratch): the bytes of a result, which lives as long as its caller keeps
 * it.  A kept mapping handed out for it holds every page its earlier use made resident: so it is cut
 * to the size asked rounded up to 2 MiB (the smallest kept one that fits may be a 48 MB sort array's),
 * its tail given back to the system, and its pages past the result's `used` bytes (a 1 MB result's
 * room is 8 MiB: result_room) dropped (their next touch faults in a zero page), so that a 1 MB
 * histogram a user keeps holds about 1 MB, as a fresh mapping's untouched pages would, not 45. */
static void *big_alloc(size_t bytes, size_t used)
{
    if (bytes < BIG_MIN)
        return malloc(bytes);
    size_t sz = ((bytes + 4095) & ~(size_t)4095) + 4096;
    pthread_mutex_lock(&BIG_LOCK);
    int best = -1;
    for (int k = 0; k < BIG_CACHE; k++)
        if (big_cache[k] && big_cache_size[k] >= sz && (best < 0 || big_cache_size[k] < big_cache_size[best]))
            best = k;
    void *p = NULL;
    if (best >= 0) {
        p = big_cache[best];
        big_cache[best] = NULL;
        big_cache_size[best] = 0;
    }
    pthread_mutex_unlock(&BIG_LOCK);
    if (!p) {
        p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
#ifdef MADV_HUGEPAGE
        madvise(p, sz, MADV_HUGEPAGE);
#endif
        *(size_t *)p = sz; /* header page keeps the mapping's size */
    } else if (used) {
        const size_t huge = (size_t)2 << 20, have = *(size_t *)p, want = (sz + huge - 1) & ~(huge - 1);
        size_t keep = have;
        if (have > want) {
            munmap((char *)p + want, have - want);
            *(size_t *)p = keep = want;
        }
        size_t live = (4096 + used + huge - 1) & ~(huge - 1); /* the header and the result's bytes */
        if (live < keep)
            madvise((char *)p + live, keep - live, MADV_DONTNEED);
    }
    return (char *)p + 4096;
}

void *nv_big_alloc(size_t bytes)
{
    return big_alloc(bytes, 0);
}

/* q (nv_big_alloc's, of `bytes`) into the kept mappings while they stay within `limit` bytes, the
 * smallest kept ones unmapped to make room while they are smaller than it when `evict`; else unmapped */
static void big_keep(void *q, size_t bytes, size_t limit, int evict)
{
    if (!q)
        return;
    if (bytes < BIG_MIN) {
        free(q);
        return;
    }
    char *p = (char *)q - 4096;
    size_t sz = *(size_t *)p;
    void *drop[BIG_CACHE + 1];
    size_t drop_size[BIG_CACHE + 1];
    int ndrop = 0;
    pthread_mutex_lock(&BIG_LOCK);
    if (limit > BIG_CACHE_BYTES)
        limit = BIG_CACHE_BYTES;
    /* room for it: the smallest kept mappings go first, while they are smaller than it */
    for (;;) {
        size_t total = 0;
        int free_slot = -1, smallest = -1;
        for (int k = 0; k < BIG_CACHE; k++) {
            if (!big_cache[k]) {
                free_slot = free_slot < 0 ? k : free_slot;
                continue;
            }
            total += big_cache_size[k];
            if (smallest < 0 || big_cache_size[k] < big_cache_size[smallest])
                smallest = k;
        }
        if (free_slot >= 0 && total + sz <= limit) {
            big_cache[free_slot] = p;
            big_cache_size[free_slot] = sz;
            p = NULL;
            break;
        }
        if (!evict || sz > limit || smallest < 0 || big_cache_size[smallest] >= sz)
            break; /* p is unmapped */
        drop[ndrop] = big_cache[smallest];
        drop_size[ndrop++] = big_cache_size[smallest];
        big_cache[smallest] = NULL;
        big_cache_size[smallest] = 0;
    }
    pthread_mutex_unlock(&BIG_LOCK);
    for (int k = 0; k < ndrop; k++)
        munmap(drop[k], drop_size[k]);
    if (p)
        munmap(p, sz);
}

void nv_big_free(void *q, size_t bytes)
{
    big_keep(q, bytes, BIG_CACHE_BYTES, 1);
}

/* release_cache([keep]): give the kept mappings back to the system, the largest first, until at
 * most `keep` bytes of them are left (0: all; perfeval.trec calls it when done, evaluate with
 * NV_RETAIN, so that a long-lived library process keeps no more than that) */
PyObject *nv_release_cache(PyObject *Py_UNUSED(self), PyObject *args)
{
    unsigned long long keep = 0;
    if (!PyArg_ParseTuple(args, "|K", &keep))
        return NULL;
    void *drop[BIG_CACHE];
    size_t drop_size[BIG_CACHE];
    int ndrop = 0;
    pthread_mutex_lock(&BIG_LOCK);
    for (;;) {
        size_t total = 0;
        int largest = -1;
        for (int k = 0; k < BIG_CACHE; k++)
            if (big_cache[k]) {
                total += big_cache_size[k];
                if (largest < 0 || big_cache_size[k] > big_cache_size[largest])
                    largest = k;
            }
        if (largest < 0 || total <= keep)
            break;
        drop[ndrop] = big_cache[largest];
        drop_size[ndrop++] = big_cache_size[largest];
        big_cache[largest] = NULL;
        big_cache_size[largest] = 0;
    }
    pthread_mutex_unlock(&BIG_LOCK);
    for (int k = 0; k < ndrop; k++)
        munmap(drop[k], drop_size[k]);
    Py_RETURN_NONE;
}

/* cache_bytes() -> (mappings, bytes): the freed scratch mappings kept now (for the tests) */
PyObject *nv_cache_bytes(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(noargs))
{
    size_t total = 0;
    int count = 0;
    pthread_mutex_lock(&BIG_LOCK);
    for (int k = 0; k < BIG_CACHE; k++)
        if (big_cache[k])
            total += big_cache_size[k], count++;
    pthread_mutex_unlock(&BIG_LOCK);
    return Py_BuildValue("(iK)", count, (unsigned long long)total);
}

/* cache_limit(bytes) -> the previous limit: how many bytes of freed scratch mappings are kept
 * (perfeval.trec raises it while it reads run after run, and sets it back when done) */
PyObject *nv_cache_limit(PyObject *Py_UNUSED(self), PyObject *args)
{
    unsigned long long limit;
    if (!PyArg_ParseTuple(args, "K", &limit))
        return NULL;
    pthread_mutex_lock(&BIG_LOCK);
    size_t old = BIG_CACHE_BYTES;
    BIG_CACHE_BYTES = (size_t)limit;
    pthread_mutex_unlock(&BIG_LOCK);
    return PyLong_FromUnsignedLongLong((unsigned long long)old);
}

/* keep_heap(): malloc's freed memory kept in the process and used again, never handed back to the
 * system (glibc: no mmap of its own for large blocks, no trimming of the heap's top), for a command
 * that allocates and frees arrays of hundreds of MB over and over (numpy's temporaries of each run
 * of `perfeval trec`).  Why: glibc maps each block above 32 MB afresh and unmaps it when freed, so
 * every such temporary costs a page fault and the kernel's zeroing of each of its pages again: a
 * fifth of the time of `perfeval trec` on 10M-line runs.  Process-wide, for good: the command line
 * calls it, the library never does.  Returns whether it could (glibc only). */
PyObject *nv_keep_heap(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(noargs))
{
#ifdef __GLIBC__
    int ok = mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
    return PyBool_FromLong(ok);
#else
    Py_RETURN_FALSE;
#endif
}

/* Buf (nv_BufObject in native.h): the type, its buffer protocol and its constructors.  A result
 * (keep 0) is kept for the next call only while the kept mappings stay within NV_RETAIN bytes (no
 * other mapping unmapped for it), else unmapped: a dropped report leaves at most that behind. */
static void Buf_dealloc(nv_BufObject *self)
{
    big_keep(self->data, (size_t)(self->cap ? self->cap : 1), self->keep ? BIG_CACHE_BYTES : NV_RETAIN,
             self->keep);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Buf_getbuffer(nv_BufObject *self, Py_buffer *view, int flags)
{
    int rc = PyBuffer_FillInfo(view, (PyObject *)self, self->data, self->len, 0, flags);
    if (rc == 0)
        self->exports++;
    return rc;
}

static void Buf_releasebuffer(nv_BufObject *self, Py_buffer *Py_UNUSED(view))
{
    self->exports--;
}

static Py_ssize_t Buf_length(nv_BufObject *self)
{
    return self->len;
}

static PyBufferProcs Buf_as_buffer = {.bf_getbuffer = (getbufferproc)Buf_getbuffer,
                                     .bf_releasebuffer = (releasebufferproc)Buf_releasebuffer};
static PySequenceMethods Buf_as_seq = {.sq_length = (lenfunc)Buf_length};

PyTypeObject nv_BufType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "perfeval._native.Buf",
    .tp_basicsize = sizeof(nv_BufObject),
    .tp_dealloc = (destructor)Buf_dealloc,
    .tp_as_buffer = &Buf_as_buffer,
    .tp_as_sequence = &Buf_as_seq,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A writable buffer of raw bytes (float32 or int32 columns).",
};

/* a Buf of `cap` bytes whose visible length is `len` (<= cap; set it later when still unknown); a
 * result's (keep 0, at most `len` bytes written) holding no more than it needs (big_alloc's `used`) */
static PyObject *buf_make(Py_ssize_t len, Py_ssize_t cap, int keep)
{
    nv_BufObject *b = PyObject_New(nv_BufObject, &nv_BufType);
    if (!b)
        return NULL;
    b->len = len;
    b->cap = cap;
    b->exports = 0;
    b->keep = keep;
    b->data = big_alloc((size_t)(cap ? cap : 1), keep ? 0 : (size_t)(len ? len : 1));
    if (!b->data) {
        b->len = b->cap = 0;
        Py_DECREF(b);
        return PyErr_NoMemory();
    }
    return (PyObject *)b;
}

PyObject *nv_buf_new_cap(Py_ssize_t len, Py_ssize_t cap)
{
    return buf_make(len, cap, 1);
}

/* The room of a result of `bytes`: from ROOM_HUGE bytes up, at least BIG_MIN, so that it is a
 * mapping on huge pages: below BIG_MIN it came from malloc, whose 4 KiB pages each fault and are
 * zeroed when first written (group_hist_rows' three results for 1M rows: 6,000 faults, a fifth of
 * its CPU time; with this, 40 ms of CPU instead of 53). */
#define ROOM_HUGE (1u << 20)
static size_t result_room(size_t bytes)
{
    return bytes >= ROOM_HUGE && bytes < BIG_MIN ? BIG_MIN : bytes;
}

/* a result: result_room's room, kept when it dies only within NV_RETAIN (Buf_dealloc) */
PyObject *nv_buf_result(Py_ssize_t len)
{
    return buf_make(len, (Py_ssize_t)result_room((size_t)len), 0);
}

static PyObject *buf_new(Py_ssize_t len)
{
    return nv_buf_new_cap(len, len);
}

/* zeros(nbytes) -> Buf filled with zero bytes */
PyObject *nv_zeros(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "n", &n))
        return NULL;
    PyObject *b = buf_new(n);
    if (b)
        memset(((nv_BufObject *)b)->data, 0, (size_t)n);
    return b;
}

/* empty(nbytes) -> Buf of that many bytes, not cleared: a result's room (result_room; when it dies kept
 * within NV_RETAIN), for a large temporary of the library's own (the fits' logits) whose pages a
 * fresh numpy array would fault in and zero on first write */
PyObject *nv_empty(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "n", &n))
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "empty: a negative size");
        return NULL;
    }
    return nv_buf_result(n);
}

/* copy(buffer) -> Buf with the same bytes */
PyObject *nv_copy(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer v;
    if (!PyArg_ParseTuple(args, "y*", &v))
        return NULL;
    PyObject *b = buf_new(v.len);
    if (b)
        memcpy(((nv_BufObject *)b)->data, v.buf, (size_t)v.len);
    PyBuffer_Release(&v);
    return b;
}

/* ------------------------------------------------------------------------------------------------ */
/* argument marshalling: the buffers of one kernel call                                              */
/* ------------------------------------------------------------------------------------------------ */

/* Take obj's buffer as the next one of `in`: a contiguous 1-D run of items of the kind's size.  On
 * any error every buffer of `in` is released and an exception is set; returns the buffer's index or
 * -1.  NV_OPTIONAL: a NULL or None obj gives an absent buffer (buf NULL, length 0). */
int nv_arg(nv_args *in, PyObject *obj, int kind)
{
    int k = in->count, base = kind & NV_KIND_MASK;
    if (k >= NV_MAXARGS) {
        nv_args_release(in);
        PyErr_SetString(PyExc_SystemError, "nv_arg: too many buffers");
        return -1;
    }
    Py_buffer *v = &in->v[k];
    in->held[k] = 0;
    in->isz[k] = base == NV_F32 ? 4 : base == NV_RAW1 ? 1 : 8;
    in->n[k] = 0;
    memset(v, 0, sizeof *v);
    in->count++;
    if ((kind & NV_OPTIONAL) && (!obj || obj == Py_None))
        return k;
    int flags = base == NV_F64 ? PyBUF_C_CONTIGUOUS | PyBUF_FORMAT : PyBUF_SIMPLE;
    if (kind & NV_WRITABLE)
        flags |= PyBUF_WRITABLE;
    if (PyObject_GetBuffer(obj, v, flags) < 0) {
        nv_args_release(in);
        return -1;
    }
    in->held[k] = 1;
    if (base == NV_F32 && v->len % 4) {
        nv_args_release(in);
        PyErr_SetString(PyExc_ValueError, "buffer is not a whole number of float32 values");
        return -1;
    }
    if (base == NV_F64 && (v->itemsize != 8 || !v->format || strcmp(v->format, "d") != 0)) {
        nv_args_release(in);
        PyErr_SetString(PyExc_TypeError, "expected a contiguous float64 array");
        return -1;
    }
    if ((base == NV_RAW8 || base == NV_RAW1) && !PyBuffer_IsContiguous(v, 'C')) { /* as "y*" checks */
        nv_args_release(in);
        PyErr_SetString(PyExc_TypeError, "expected a contiguous buffer");
        return -1;
    }
    in->n[k] = v->len / in->isz[k];
    return k;
}

/* Buffers i and j hold the same number of items, a partial item included (their byte lengths are in
 * the ratio of their item sizes).  An absent buffer matches any. */
int nv_len_eq(const nv_args *in, int i, int j)
{
    if (!in->held[i] || !in->held[j])
        return 1;
    return in->v[i].len * in->isz[j] == in->v[j].len * in->isz[i];
}

/* Buffers from .. to-1 all of one length, else ValueError (every buffer released). */
int nv_args_same_len(nv_args *in, int from, int to)
{
    for (int k = from + 1; k < to; k++)
        if (!nv_len_eq(in, from, k)) {
            Py_ssize_t a = in->n[from], b = in->n[k];
            nv_args_release(in);
            PyErr_Format(PyExc_ValueError, "columns of different lengths (%zd and %zd values)", a, b);
            return -1;
        }
    return 0;
}

/* Release every buffer and raise exc(msg); returns -1. */
int nv_args_fail(nv_args *in, PyObject *exc, const char *msg)
{
    nv_args_release(in);
    PyErr_SetString(exc, msg);
    return -1;
}

void nv_args_release(nv_args *in)
{
    for (int k = 0; k < in->count; k++)
        if (in->held[k]) {
            PyBuffer_Release(&in->v[k]);
            in->held[k] = 0;
        }
    in->count = 0;
}
