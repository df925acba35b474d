/*
 * perfeval._x87 -- the compiled kernels of the classic dialect.
 *
 * Why C and not numpy: the classic `perf` command must print what PERF 5.12 printed, and PERF 5.12
 * computed in x87 80-bit extended precision, rounding to 64-bit doubles only at particular points
 * (see ../shared/perf-golden/SPEC.md, section 11.2).  Reproducing that needs a running recurrence per
 * case (for example `area = dbl(area + ext_expr)`), which numpy cannot vectorise and a Python loop
 * runs at a few million steps a second.  On x86-64 Linux `long double` *is* the x87 format, so each
 * kernel below states its arithmetic with `ext` (long double) where the original kept a value in an
 * 80-bit register and with `double` where it stored it.  The kernels also hold the two hot paths of
 * the command: reading numbers (correctly rounded straight to float32, as C's strtof does) and the
 * original's Hoare quicksort, whose arrangement inside ties decides several printed values.
 *
 * Every function works on buffers handed in by the Python layer (bytearray / array / memoryview of
 * float32 or int32); nothing here keeps state between calls except the log-factorial table.
 *
 * This file is perfeval's own code, written from the behaviour spec; it contains no code of PERF.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>

typedef long double ext; /* x87 80-bit extended on x86-64 Linux */

#define EPS 1e-10
/* release the GIL around a kernel's loop (no block scope, unlike Py_BEGIN_ALLOW_THREADS) */
#define NOGIL_BEGIN PyThreadState *_nogil_ts = PyEval_SaveThread();
#define NOGIL_END PyEval_RestoreThread(_nogil_ts);
#define MAX_TIES 50000

/* ------------------------------------------------------------------------------------------------ */
/* small helpers                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    char *buf;
    size_t len, cap;
} outbuf;

static int ob_reserve(outbuf *o, size_t extra)
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
static int ob_line2(outbuf *o, const char *fmt, double x, double y)
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

static PyObject *ob_finish(outbuf *o)
{
    PyObject *r = PyBytes_FromStringAndSize(o->buf ? o->buf : "", (Py_ssize_t)o->len);
    free(o->buf);
    o->buf = NULL;
    return r;
}

/* Large scratch buffers: anonymous mappings advised to use transparent huge pages, which cuts the
 * page faults of first touch by a factor of 512 where the kernel allows it.  The last two freed
 * mappings are kept and handed out again: a run frees its 100 MB input text just before it needs an
 * 80 MB sort array, and reusing pages already mapped costs nothing, while fresh ones cost a fault and
 * a zeroing each.  Callers never assume zeroed memory (zeros() clears what it hands out). */
#define BIG_MIN (8u << 20)
#define BIG_CACHE 2
static void *big_cache[BIG_CACHE];
static size_t big_cache_size[BIG_CACHE];
static pthread_mutex_t BIG_LOCK = PTHREAD_MUTEX_INITIALIZER;

static void *big_alloc(size_t bytes)
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
    }
    return (char *)p + 4096;
}

static void big_free(void *q, size_t bytes)
{
    if (!q)
        return;
    if (bytes < BIG_MIN) {
        free(q);
        return;
    }
    char *p = (char *)q - 4096;
    size_t sz = *(size_t *)p;
    pthread_mutex_lock(&BIG_LOCK);
    int slot = -1;
    for (int k = 0; k < BIG_CACHE; k++)
        if (!big_cache[k]) {
            slot = k;
            break;
        }
    if (slot < 0) { /* replace the smaller cached mapping if this one is larger */
        slot = big_cache_size[0] <= big_cache_size[1] ? 0 : 1;
        if (big_cache_size[slot] >= sz)
            slot = -1;
        else
            munmap(big_cache[slot], big_cache_size[slot]);
    }
    if (slot >= 0) {
        big_cache[slot] = p;
        big_cache_size[slot] = sz;
        p = NULL;
    }
    pthread_mutex_unlock(&BIG_LOCK);
    if (p)
        munmap(p, sz);
}

/* release_cache(): give the kept mappings back to the system (long-lived library processes) */
static PyObject *k_release_cache(PyObject *self, PyObject *noargs)
{
    pthread_mutex_lock(&BIG_LOCK);
    for (int k = 0; k < BIG_CACHE; k++)
        if (big_cache[k]) {
            munmap(big_cache[k], big_cache_size[k]);
            big_cache[k] = NULL;
            big_cache_size[k] = 0;
        }
    pthread_mutex_unlock(&BIG_LOCK);
    Py_RETURN_NONE;
}


/* Buf: a writable byte buffer in big_alloc memory, exported with the buffer protocol (the kernels
 * and memoryview(...).cast("f") read it like a bytearray). */
typedef struct {
    PyObject_HEAD char *data;
    Py_ssize_t len;
    Py_ssize_t cap; /* bytes allocated (len may be less) */
    Py_ssize_t exports;
} BufObject;

static void Buf_dealloc(BufObject *self)
{
    big_free(self->data, (size_t)(self->cap ? self->cap : 1));
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Buf_getbuffer(BufObject *self, Py_buffer *view, int flags)
{
    int rc = PyBuffer_FillInfo(view, (PyObject *)self, self->data, self->len, 0, flags);
    if (rc == 0)
        self->exports++;
    return rc;
}

static void Buf_releasebuffer(BufObject *self, Py_buffer *view)
{
    self->exports--;
}

static Py_ssize_t Buf_length(BufObject *self)
{
    return self->len;
}

static PyBufferProcs Buf_as_buffer = {(getbufferproc)Buf_getbuffer, (releasebufferproc)Buf_releasebuffer};
static PySequenceMethods Buf_as_seq = {(lenfunc)Buf_length};

static PyTypeObject BufType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "perfeval._x87.Buf",
    .tp_basicsize = sizeof(BufObject),
    .tp_dealloc = (destructor)Buf_dealloc,
    .tp_as_buffer = &Buf_as_buffer,
    .tp_as_sequence = &Buf_as_seq,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A writable buffer of raw bytes (float32 or int32 columns).",
};

/* a Buf of `cap` bytes whose visible length is `len` (<= cap; set it later when still unknown) */
static PyObject *buf_new_cap(Py_ssize_t len, Py_ssize_t cap)
{
    BufObject *b = PyObject_New(BufObject, &BufType);
    if (!b)
        return NULL;
    b->len = len;
    b->cap = cap;
    b->exports = 0;
    b->data = big_alloc((size_t)(cap ? cap : 1));
    if (!b->data) {
        b->len = b->cap = 0;
        Py_DECREF(b);
        return PyErr_NoMemory();
    }
    return (PyObject *)b;
}

static PyObject *buf_new(Py_ssize_t len)
{
    return buf_new_cap(len, len);
}

/* zeros(nbytes) -> Buf filled with zero bytes */
static PyObject *k_zeros(PyObject *self, PyObject *args)
{
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "n", &n))
        return NULL;
    PyObject *b = buf_new(n);
    if (b)
        memset(((BufObject *)b)->data, 0, (size_t)n);
    return b;
}

/* copy(buffer) -> Buf with the same bytes */
static PyObject *k_copy(PyObject *self, PyObject *args)
{
    Py_buffer v;
    if (!PyArg_ParseTuple(args, "y*", &v))
        return NULL;
    PyObject *b = buf_new(v.len);
    if (b)
        memcpy(((BufObject *)b)->data, v.buf, (size_t)v.len);
    PyBuffer_Release(&v);
    return b;
}

static int get_f32(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t *n)
{
    if (PyObject_GetBuffer(obj, view, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) < 0)
        return -1;
    if (view->len % 4) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "buffer is not a whole number of float32 values");
        return -1;
    }
    *n = view->len / 4;
    return 0;
}

/* Two float32 columns of one length (the second may be empty of meaning, but not of length). */
static int get_pair(PyObject *a, Py_buffer *va, int wa, PyObject *b, Py_buffer *vb, int wb, Py_ssize_t *n)
{
    Py_ssize_t n2;
    if (get_f32(a, va, wa, n) < 0)
        return -1;
    if (get_f32(b, vb, wb, &n2) < 0) {
        PyBuffer_Release(va);
        return -1;
    }
    if (*n != n2) {
        PyBuffer_Release(va);
        PyBuffer_Release(vb);
        PyErr_Format(PyExc_ValueError, "columns of different lengths (%zd and %zd values)", *n, n2);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* reading numbers                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static inline int is_sep(unsigned char c)
{
    /* white space as C's isspace in the "C" locale, plus the comma (a documented deviation) */
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == ',';
}

/* A decimal token [+-]digits[.digits][e[+-]digits] with at most 19 significant digits whose value
 * m * 10^e is computed exactly rounded as a double (exact operands, one IEEE operation: Clinger's
 * fast path).  Returns 1 with *out set, or 0 when the token needs the general path. */
static int fast_decimal(const char *s, Py_ssize_t len, double *out)
{
    Py_ssize_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    uint64_t m = 0;
    int sig = 0, digits = 0, dexp = 0, ok = 1;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (m || s[i] != '0') {
            if (sig < 19) {
                m = m * 10 + (uint64_t)(s[i] - '0');
                sig++;
            } else
                ok = 0;
        }
        digits++;
        i++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (m || s[i] != '0') {
                if (sig < 19) {
                    m = m * 10 + (uint64_t)(s[i] - '0');
                    sig++;
                } else
                    ok = 0;
            }
            dexp--;
            digits++;
            i++;
        }
    }
    if (digits && i < len && (s[i] == 'e' || s[i] == 'E')) {
        Py_ssize_t j = i + 1;
        int eneg = 0, ev = 0, ed = 0;
        if (j < len && (s[j] == '+' || s[j] == '-')) {
            eneg = s[j] == '-';
            j++;
        }
        while (j < len && s[j] >= '0' && s[j] <= '9') {
            if (ev < 100000)
                ev = ev * 10 + (s[j] - '0');
            ed++;
            j++;
        }
        if (ed) {
            dexp += eneg ? -ev : ev;
            i = j;
        }
    }
    if (!(ok && digits && i == len))
        return 0;
    if (m == 0) {
        *out = neg ? -0.0 : 0.0;
        return 1;
    }
    if (m >= (1ULL << 53) || dexp < -22 || dexp > 22)
        return 0;
    double d = (double)m;
    d = dexp < 0 ? d / POW10[-dexp] : d * POW10[dexp];
    *out = neg ? -d : d;
    return 1;
}

/* The general path: C's strtod/strtof on the whole token (hex floats, inf, long mantissas). */
static int slow_number(const char *s, Py_ssize_t len, double *out, int single)
{
    char small[128];
    char *tmp = small;
    if (len >= (Py_ssize_t)sizeof small) {
        tmp = malloc((size_t)len + 1);
        if (!tmp)
            return 1;
    }
    memcpy(tmp, s, (size_t)len);
    tmp[len] = 0;
    char *end = NULL;
    double v = single ? (double)strtof(tmp, &end) : strtod(tmp, &end);
    int status = (len > 0 && end == tmp + len) ? 0 : 1;
    if (tmp != small)
        free(tmp);
    if (status)
        return 1;
    if (isnan(v))
        return 2;
    *out = v;
    return 0;
}

/* 0: ok; 1: not a number; 2: NaN.  Rounded once from the decimal to float32, as strtof does: a
 * correctly rounded double rounds to the correctly rounded float unless it sits exactly on a
 * float32 midpoint; those rare tokens go to strtof. */
static int parse_f32(const char *s, Py_ssize_t len, float *out)
{
    double d;
    if (fast_decimal(s, len, &d)) {
        float f = (float)d;
        /* a double on a float32 midpoint has its 29 low significand bits equal to 1 << 28; tiny
         * values (float32 subnormals) and values past FLT_MAX are left to strtof */
        uint64_t bits;
        memcpy(&bits, &d, 8);
        int bexp = (int)((bits >> 52) & 0x7ff);
        int safe = d == 0 || (bexp > 1023 - 126 && bexp < 1023 + 128 && (bits & 0x1FFFFFFFULL) != 0x10000000ULL);
        if (safe) {
            *out = f;
            return 0;
        }
    }
    int r = slow_number(s, len, &d, 1);
    if (!r)
        *out = (float)d;
    return r;
}

/* 0 ok, 1 not an integer, 3 out of range */
static int parse_i32(const char *s, Py_ssize_t len, int32_t *out)
{
    Py_ssize_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    if (i == len)
        return 1;
    int64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 1;
        if (v < 10000000000LL)
            v = v * 10 + (s[i] - '0');
    }
    if (neg)
        v = -v;
    if (v < INT32_MIN || v > INT32_MAX)
        return 3;
    *out = (int32_t)v;
    return 0;
}

/* The tokenizer shared by every reader: white space and commas separate tokens, a line whose first
 * non-blank character is '#' is skipped, lines and fields are counted for error messages. */
typedef struct {
    const char *s;
    Py_ssize_t len, pos, line, field;
    int at_line_start;
} scanner;

static void scan_init(scanner *sc, const char *s, Py_ssize_t len)
{
    sc->s = s;
    sc->len = len;
    sc->pos = 0;
    sc->line = 1;
    sc->field = 0;
    sc->at_line_start = 1;
}

/* the next token as [*start, *start + *tlen); 0 at the end of the data */
static inline int scan_next(scanner *sc, Py_ssize_t *start, Py_ssize_t *tlen)
{
    const char *s = sc->s;
    Py_ssize_t len = sc->len, pos = sc->pos;
    while (pos < len) {
        if (sc->at_line_start) {
            Py_ssize_t q = pos;
            while (q < len && (s[q] == ' ' || s[q] == '\t' || s[q] == '\r' || s[q] == '\v' || s[q] == '\f'))
                q++;
            sc->at_line_start = 0;
            if (q < len && s[q] == '#') {
                while (q < len && s[q] != '\n')
                    q++;
                pos = q;
                continue;
            }
        }
        unsigned char ch = (unsigned char)s[pos];
        if (ch == '\n') {
            sc->line++;
            sc->field = 0;
            sc->at_line_start = 1;
            pos++;
            continue;
        }
        if (is_sep(ch)) {
            pos++;
            continue;
        }
        *start = pos;
        while (pos < len && !is_sep((unsigned char)s[pos]))
            pos++;
        *tlen = pos - *start;
        sc->field++;
        sc->pos = pos;
        return 1;
    }
    sc->pos = pos;
    return 0;
}



typedef struct {
    int fd;
    char *dst;
    off_t off;
    size_t len;
    int err;
} preadjob;

static void *pread_run(void *arg)
{
    preadjob *j = arg;
    size_t got = 0;
    while (got < j->len) {
        ssize_t r = pread(j->fd, j->dst + got, j->len - got, j->off + (off_t)got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            j->err = errno;
            return NULL;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    j->len = got;
    return NULL;
}

/* Read all of fd from its current offset into a big buffer: a regular file with two threads at once
 * (pread of each half), anything else (a pipe) sequentially.  Returns the length or -1 (errno). */
static Py_ssize_t slurp_fd(int fd, char **out, size_t *cap_out)
{
    struct stat st;
    *out = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t pos = lseek(fd, 0, SEEK_CUR);
        if (pos < 0)
            pos = 0;
        size_t len = st.st_size > pos ? (size_t)(st.st_size - pos) : 0;
        char *buf = big_alloc(len + 1);
        if (!buf) {
            errno = ENOMEM;
            return -1;
        }
        preadjob a = {fd, buf, pos, len / 2, 0}, b = {fd, buf + len / 2, pos + (off_t)(len / 2), len - len / 2, 0};
        pthread_t th;
        int threaded = len > (1 << 22) && pthread_create(&th, NULL, pread_run, &b) == 0;
        pread_run(&a);
        if (threaded)
            pthread_join(th, NULL);
        else
            pread_run(&b);
        if (a.err || b.err) {
            big_free(buf, len + 1);
            errno = a.err ? a.err : b.err;
            return -1;
        }
        size_t total = len;
        if (a.len + b.len != len) { /* the file changed under us: keep what is contiguous */
            total = a.len < len / 2 ? a.len : a.len + b.len;
        }
        lseek(fd, pos + (off_t)total, SEEK_SET);
        *out = buf;
        *cap_out = len + 1;
        return (Py_ssize_t)total;
    }
    size_t cap = 1 << 24, len = 0;
    char *buf = big_alloc(cap);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    for (;;) {
        if (len == cap) {
            char *nb = big_alloc(cap * 2);
            if (!nb) {
                big_free(buf, cap);
                errno = ENOMEM;
                return -1;
            }
            memcpy(nb, buf, len);
            big_free(buf, cap);
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            big_free(buf, cap);
            errno = e;
            return -1;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    *out = buf;
    *cap_out = cap;
    return (Py_ssize_t)len;
}

/* Streaming read of a byte range of a regular file: pread in chunks into a small buffer that is
 * reused, cut at the last line end, parse those whole lines, carry the rest over.  Thread 0 writes
 * its tokens straight into the output columns; thread 1 into a flat array appended afterwards. */
#define CHUNK (4u << 20)

typedef struct {
    int fd; /* file mode: read [start, end) of fd */
    off_t start, end;
    const char *mem; /* memory mode (when mem != NULL): parse mem[0, memlen) */
    Py_ssize_t memlen;
    int ncol;
    float **cols; /* direct mode (thread 0) */
    size_t rows_cap;
    float *vals; /* flat mode (thread 1) */
    size_t cap, n;
    Py_ssize_t lines; /* line ends passed */
    int reason;       /* 0 ok, 1 number, 2 NaN, -1 no memory, -2 read error */
    int ioerr;
    Py_ssize_t err_line, err_field, err_len;
    char err_tok[64];
} sjob;

static int sjob_piece(sjob *j, const char *s, Py_ssize_t len)
{
    scanner sc;
    scan_init(&sc, s, len);
    Py_ssize_t start, tl;
    float v;
    while (scan_next(&sc, &start, &tl)) {
        int r = parse_f32(s + start, tl, &v);
        if (r) {
            j->reason = r;
            j->err_line = j->lines + sc.line;
            j->err_field = sc.field;
            j->err_len = tl < 60 ? tl : 60;
            memcpy(j->err_tok, s + start, (size_t)j->err_len);
            return -1;
        }
        if (j->cols) {
            size_t row = j->n / (size_t)j->ncol;
            if (row >= j->rows_cap) {
                j->reason = -1;
                return -1;
            }
            j->cols[j->n % (size_t)j->ncol][row] = v;
        } else {
            if (j->n >= j->cap) {
                j->reason = -1;
                return -1;
            }
            j->vals[j->n] = v;
        }
        j->n++;
    }
    j->lines += sc.line - 1;
    return 0;
}

static void *sjob_run(void *arg)
{
    sjob *j = arg;
    if (j->mem) {
        sjob_piece(j, j->mem, j->memlen);
        return NULL;
    }
    size_t bcap = CHUNK, keep = 0;
    char *buf = malloc(bcap);
    if (!buf) {
        j->reason = -1;
        return NULL;
    }
    off_t off = j->start;
    for (;;) {
        size_t want = bcap - keep;
        if ((off_t)want > j->end - off)
            want = (size_t)(j->end - off);
        ssize_t r = 0;
        if (want) {
            do
                r = pread(j->fd, buf + keep, want, off);
            while (r < 0 && errno == EINTR);
        }
        if (r < 0) {
            j->reason = -2;
            j->ioerr = errno;
            break;
        }
        off += r;
        size_t avail = keep + (size_t)r;
        if (off >= j->end || r == 0) {
            sjob_piece(j, buf, (Py_ssize_t)avail);
            break;
        }
        size_t k = avail;
        while (k > 0 && buf[k - 1] != '\n')
            k--;
        if (k == 0) { /* a line longer than the buffer */
            char *nb = realloc(buf, bcap * 2);
            if (!nb) {
                j->reason = -1;
                break;
            }
            buf = nb;
            bcap *= 2;
            keep = avail;
            continue;
        }
        if (sjob_piece(j, buf, (Py_ssize_t)k) < 0)
            break;
        memmove(buf, buf + k, avail - k);
        keep = avail - k;
    }
    free(buf);
    return NULL;
}

/* the offset just after the first line end at or after `from` (or `end`) */
static off_t next_line_start(int fd, off_t from, off_t end)
{
    char tmp[65536];
    while (from < end) {
        ssize_t r = pread(fd, tmp, sizeof tmp, from);
        if (r <= 0)
            return end;
        for (ssize_t k = 0; k < r; k++)
            if (tmp[k] == '\n')
                return from + k + 1;
        from += r;
    }
    return end;
}

/* Float-only patterns, two threads: thread 0 parses the first part straight into the columns, thread 1
 * the rest (from the first line start after the middle) into a flat array appended afterwards.
 * `size` bounds the token count; j0 and j1 arrive with their input (file range or memory) set. */
static PyObject *parse_two_parts(sjob *j0, sjob *j1, int two, size_t size, int ncol)
{
    size_t max_tokens = size / 2 + 2; /* a token and its separator take two bytes or more */
    size_t rows_cap = max_tokens / (size_t)ncol + 2;
    PyObject *lst = PyList_New(ncol);
    if (!lst)
        return NULL;
    float *cols[4];
    for (int c = 0; c < ncol; c++) {
        PyObject *b = buf_new_cap(0, (Py_ssize_t)(rows_cap * 4));
        if (!b) {
            Py_DECREF(lst);
            return NULL;
        }
        cols[c] = (float *)((BufObject *)b)->data;
        PyList_SET_ITEM(lst, c, b);
    }
    j0->ncol = j1->ncol = ncol;
    j0->cols = cols;
    j0->rows_cap = rows_cap;
    if (two) {
        j1->cap = (j1->mem ? (size_t)j1->memlen : (size_t)(j1->end - j1->start)) / 2 + 2;
        j1->vals = big_alloc(j1->cap * sizeof(float));
        if (!j1->vals) {
            Py_DECREF(lst);
            return PyErr_NoMemory();
        }
    }
    Py_BEGIN_ALLOW_THREADS;
    pthread_t th;
    int threaded = two && pthread_create(&th, NULL, sjob_run, j1) == 0;
    sjob_run(j0);
    if (threaded)
        pthread_join(th, NULL);
    else if (two)
        sjob_run(j1);
    Py_END_ALLOW_THREADS;
    PyObject *res = NULL;
    sjob *bad = j0->reason ? j0 : (two && j1->reason ? j1 : NULL);
    if (bad) {
        if (bad->reason == -1)
            res = PyErr_NoMemory();
        else if (bad->reason == -2) {
            errno = bad->ioerr;
            res = PyErr_SetFromErrno(PyExc_OSError);
        } else /* the second part starts at a line start: its field numbers are right as they are */
            res = Py_BuildValue("(ssnny#)", "error", bad->reason == 2 ? "nan" : "number",
                                bad->err_line + (bad == j1 ? j0->lines : 0), bad->err_field, bad->err_tok,
                                bad->err_len);
        Py_DECREF(lst);
        goto done;
    }
    size_t total = j0->n + j1->n;
    size_t nrec = (total + (size_t)ncol - 1) / (size_t)ncol;
    if (nrec > rows_cap) {
        Py_DECREF(lst);
        res = PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS;
    for (size_t tix = j0->n; tix < total; tix++)
        cols[tix % (size_t)ncol][tix / (size_t)ncol] = j1->vals[tix - j0->n];
    for (size_t tix = total; tix < nrec * (size_t)ncol; tix++)
        cols[tix % (size_t)ncol][tix / (size_t)ncol] = 0.0f; /* an incomplete last record */
    Py_END_ALLOW_THREADS;
    for (int c = 0; c < ncol; c++)
        ((BufObject *)PyList_GET_ITEM(lst, c))->len = (Py_ssize_t)(nrec * 4);
    res = Py_BuildValue("(sNn)", "ok", lst, (Py_ssize_t)total);
done:
    if (two)
        big_free(j1->vals, j1->cap * sizeof(float));
    return res;
}

/* float-only patterns on a regular file, streamed */
static PyObject *parse_file_floats(int fd, off_t pos, off_t end, int ncol)
{
    off_t size = end - pos;
    off_t cut = size > (off_t)(2 * CHUNK) ? next_line_start(fd, pos + size / 2, end) : end;
    sjob j0, j1;
    memset(&j0, 0, sizeof j0);
    memset(&j1, 0, sizeof j1);
    j0.fd = j1.fd = fd;
    j0.start = pos;
    j0.end = cut;
    j1.start = cut;
    j1.end = end;
    PyObject *res = parse_two_parts(&j0, &j1, cut < end, (size_t)size, ncol);
    if (res && PyTuple_Check(res))
        lseek(fd, end, SEEK_SET);
    return res;
}

/* float-only patterns on bytes in memory */
static PyObject *parse_floats(Py_buffer *data, int ncol)
{
    const char *s = data->buf;
    Py_ssize_t len = data->len, cut = len;
    if (len > (1 << 22)) {
        cut = len / 2;
        while (cut < len && s[cut - 1] != '\n')
            cut++;
    }
    sjob j0, j1;
    memset(&j0, 0, sizeof j0);
    memset(&j1, 0, sizeof j1);
    j0.mem = s;
    j0.memlen = cut;
    j1.mem = s + cut;
    j1.memlen = len - cut;
    return parse_two_parts(&j0, &j1, cut < len, (size_t)len, ncol);
}

/* The modern readers' number grammar (perfeval.io.grammar): [+-]digits[.digits][(e|E)[+-]digits],
 * [+-].digits[...], or [+-]inf / infinity / nan in any case.  Nothing else: no hex, no '_', no
 * other digits than ASCII ones. */
static int modern_number_ok(const char *s, Py_ssize_t len)
{
    Py_ssize_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    Py_ssize_t r = len - i;
    if ((r == 3 && (strncasecmp(s + i, "inf", 3) == 0 || strncasecmp(s + i, "nan", 3) == 0)) ||
        (r == 8 && strncasecmp(s + i, "infinity", 8) == 0))
        return 1;
    int d = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        i++;
        d++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            i++;
            d++;
        }
    }
    if (!d)
        return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        int e = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            i++;
            e++;
        }
        if (!e)
            return 0;
    }
    return i == len;
}

/* A plain integer: -?(0|[1-9][0-9]*), not "-0", within int64.  1 with *out set, else 0. */
static int plain_int64(const char *s, Py_ssize_t len, int64_t *out)
{
    Py_ssize_t i = 0;
    int neg = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    if (i == len || len - i > 19)
        return 0;
    if (s[i] == '0')
        return len - i == 1 && !neg ? (*out = 0, 1) : 0;
    uint64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0'); /* 19 digits fit in uint64 */
    }
    if (neg ? v > 9223372036854775808ULL : v > 9223372036854775807ULL)
        return 0;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 1;
}

/* parse_table(data, ncol[, idmask]) -> ("ok", [column], nrows)
 *                                    | ("error", reason, line, field, token)
 * One record a line, exactly ncol fields each (blank lines and '#' lines skipped).  A column is a
 * float64 bytearray, read by the modern grammar (modern_number_ok); a column whose byte in idmask
 * is non-zero is an identity (a group id): ("int", int64 bytearray) when every token is a plain
 * integer that fits, else ("text", [str tokens as written]).  Reason "number", "nan" or "fields"
 * (then token is the count found). */
static PyObject *k_parse_table(PyObject *self, PyObject *args)
{
    Py_buffer data;
    int ncol;
    const char *idmask = NULL;
    Py_ssize_t idlen = 0;
    if (!PyArg_ParseTuple(args, "y*i|y#", &data, &ncol, &idmask, &idlen))
        return NULL;
    if (ncol < 1 || ncol > 65536 || (idmask && idlen != ncol)) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "between 1 and 65536 columns, and an idmask of ncol bytes");
        return NULL;
    }
    const char *s = data.buf;
    size_t cap = 4096, nrec = 0;
    double **cols = calloc((size_t)ncol, sizeof(double *));
    int64_t **ioff = calloc((size_t)ncol, sizeof(int64_t *));
    int reason = 0, col = 0;
    Py_ssize_t start = 0, tl = 0, err_line = 0, err_field = 0, line_of_rec = 0;
    char errtok[64];
    Py_ssize_t errlen = 0;
    if (!cols || !ioff)
        goto nomem;
    for (int c = 0; c < ncol; c++) {
        if (idmask && idmask[c]) {
            if (!(ioff[c] = malloc(cap * sizeof(int64_t))))
                goto nomem;
        } else if (!(cols[c] = malloc(cap * sizeof(double))))
            goto nomem;
    }
    scanner sc;
    scan_init(&sc, s, data.len);
    PyThreadState *ts = PyEval_SaveThread();
    int more;
    while ((more = scan_next(&sc, &start, &tl)) || col) {
        if (col && (!more || sc.line != line_of_rec)) { /* the record's line ended early */
            reason = 4;
            err_line = line_of_rec;
            err_field = col;
            errlen = snprintf(errtok, sizeof errtok, "%d", col);
            break;
        }
        if (!more)
            break;
        if (col == 0) {
            line_of_rec = sc.line;
            if (nrec == cap) {
                cap *= 2;
                for (int c = 0; c < ncol; c++) {
                    void *nb = ioff[c] ? realloc(ioff[c], cap * sizeof(int64_t))
                                       : realloc(cols[c], cap * sizeof(double));
                    if (!nb) {
                        reason = -1;
                        break;
                    }
                    if (ioff[c])
                        ioff[c] = nb;
                    else
                        cols[c] = nb;
                }
                if (reason)
                    break;
            }
        }
        int r = 0;
        if (ioff[col])
            ioff[col][nrec] = ((int64_t)start << 20) | (int64_t)(tl < 0xFFFFF ? tl : 0xFFFFF);
        else
            /* a token fast_decimal reads is of the grammar already: the check is for the others */
            r = fast_decimal(s + start, tl, cols[col] + nrec)       ? 0
                : modern_number_ok(s + start, tl) ? slow_number(s + start, tl, cols[col] + nrec, 0)
                                                  : 1;
        if (r) {
            reason = r;
            err_line = sc.line;
            err_field = sc.field;
            errlen = tl < 60 ? tl : 60;
            memcpy(errtok, s + start, (size_t)errlen);
            break;
        }
        if (++col == ncol) {
            col = 0;
            nrec++;
            /* a token left on the same line is one field too many */
            Py_ssize_t st2, tl2;
            scanner peek = sc;
            if (scan_next(&peek, &st2, &tl2) && peek.line == line_of_rec) {
                reason = 4;
                err_line = line_of_rec;
                err_field = ncol + 1;
                Py_ssize_t extra = ncol;
                while (scan_next(&peek, &st2, &tl2) && peek.line == line_of_rec)
                    extra++;
                errlen = snprintf(errtok, sizeof errtok, "%zd", extra + 1);
                break;
            }
        }
    }
    PyEval_RestoreThread(ts);
    if (reason == -1)
        goto nomem;
    PyObject *res;
    if (reason) {
        const char *why = reason == 2 ? "nan" : reason == 4 ? "fields" : "number";
        res = Py_BuildValue("(ssnny#)", "error", why, err_line, err_field, errtok, errlen);
    } else {
        PyObject *lst = PyList_New(ncol);
        for (int c = 0; lst && c < ncol; c++) {
            PyObject *b = NULL;
            if (!ioff[c]) {
                b = PyByteArray_FromStringAndSize((const char *)cols[c], (Py_ssize_t)(nrec * sizeof(double)));
            } else {
                int plain = 1;
                int64_t *vals = (int64_t *)malloc((nrec ? nrec : 1) * sizeof(int64_t));
                if (!vals) {
                    Py_CLEAR(lst);
                    PyErr_NoMemory();
                    break;
                }
                for (size_t k = 0; k < nrec && plain; k++)
                    plain = plain_int64(s + (ioff[c][k] >> 20), (Py_ssize_t)(ioff[c][k] & 0xFFFFF), vals + k);
                if (plain) {
                    PyObject *buf = PyByteArray_FromStringAndSize((const char *)vals, (Py_ssize_t)(nrec * 8));
                    b = buf ? Py_BuildValue("(sN)", "int", buf) : NULL;
                } else {
                    PyObject *toks = PyList_New((Py_ssize_t)nrec);
                    for (size_t k = 0; toks && k < nrec; k++) {
                        PyObject *t = PyUnicode_DecodeUTF8(s + (ioff[c][k] >> 20), (Py_ssize_t)(ioff[c][k] & 0xFFFFF),
                                                           "replace");
                        if (!t) {
                            Py_CLEAR(toks);
                            break;
                        }
                        PyList_SET_ITEM(toks, (Py_ssize_t)k, t);
                    }
                    b = toks ? Py_BuildValue("(sN)", "text", toks) : NULL;
                }
                free(vals);
            }
            if (!b) {
                Py_CLEAR(lst);
                break;
            }
            PyList_SET_ITEM(lst, c, b);
        }
        res = lst ? Py_BuildValue("(sNn)", "ok", lst, (Py_ssize_t)nrec) : NULL;
    }
    for (int c = 0; c < ncol; c++) {
        free(cols[c]);
        free(ioff[c]);
    }
    free(cols);
    free(ioff);
    PyBuffer_Release(&data);
    return res;
nomem:
    if (cols) {
        for (int c = 0; c < ncol; c++)
            free(cols[c]);
        free(cols);
    }
    if (ioff) {
        for (int c = 0; c < ncol; c++)
            free(ioff[c]);
        free(ioff);
    }
    PyBuffer_Release(&data);
    return PyErr_NoMemory();
}

static PyObject *k_parse(PyObject *self, PyObject *args);

/* parse_fd(fd, pattern): read the whole of a file descriptor (no Python copy) and parse it */
static PyObject *k_parse_fd(PyObject *self, PyObject *args)
{
    int fd;
    const char *pattern;
    if (!PyArg_ParseTuple(args, "is", &fd, &pattern))
        return NULL;
    int ncol = (int)strlen(pattern);
    struct stat st;
    if (ncol >= 1 && ncol <= 4 && !strchr(pattern, 'i') && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t pos = lseek(fd, 0, SEEK_CUR);
        if (pos < 0)
            pos = 0;
        if (st.st_size > pos)
            return parse_file_floats(fd, pos, st.st_size, ncol);
    }
    char *buf = NULL;
    size_t cap = 0;
    Py_ssize_t len;
    Py_BEGIN_ALLOW_THREADS len = slurp_fd(fd, &buf, &cap);
    Py_END_ALLOW_THREADS if (len < 0) return PyErr_SetFromErrno(PyExc_OSError);
    PyObject *view = PyMemoryView_FromMemory(buf, len, PyBUF_READ);
    PyObject *res = NULL;
    if (view) {
        PyObject *a = Py_BuildValue("(Os)", view, pattern);
        if (a) {
            res = k_parse(self, a);
            Py_DECREF(a);
        }
        Py_DECREF(view);
    }
    big_free(buf, cap);
    return res;
}

/* parse(data, pattern) -> ("ok", [column bytearrays], ntokens)
 *                       | ("error", reason, line, field, token_bytes)
 * pattern: one letter a column, 'f' (float32) or 'i' (int32); tokens fill the columns in turn, as a
 * stream (line ends do not matter), like the original's scanf loop.  A line whose first non-blank
 * character is '#' is skipped.  Missing fields of a last, incomplete record are 0. */
static PyObject *k_parse(PyObject *self, PyObject *args)
{
    Py_buffer data;
    const char *pattern;
    if (!PyArg_ParseTuple(args, "y*s", &data, &pattern))
        return NULL;
    int ncol = (int)strlen(pattern);
    if (ncol < 1 || ncol > 4) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "bad pattern");
        return NULL;
    }
    if (!strchr(pattern, 'i')) {
        PyObject *r = parse_floats(&data, ncol);
        PyBuffer_Release(&data);
        return r;
    }
    const char *s = data.buf;
    Py_ssize_t len = data.len;
    size_t cap = 1024, nrec = 0;
    void *cols[4] = {0};
    for (int c = 0; c < ncol; c++) {
        cols[c] = malloc(cap * 4);
        if (!cols[c])
            goto nomem;
    }
    Py_ssize_t ntok = 0, start, tl;
    int col = 0;
    int reason = 0;
    Py_ssize_t err_start = 0, err_len = 0, err_line = 0, err_field = 0;
    scanner sc;
    scan_init(&sc, s, len);
    while (scan_next(&sc, &start, &tl)) {
        if (col == 0 && nrec == cap) {
            size_t ncap = cap * 2;
            for (int c = 0; c < ncol; c++) {
                void *nb = realloc(cols[c], ncap * 4);
                if (!nb)
                    goto nomem;
                cols[c] = nb;
            }
            cap = ncap;
        }
        int r;
        if (pattern[col] == 'i')
            r = parse_i32(s + start, tl, (int32_t *)cols[col] + nrec);
        else
            r = parse_f32(s + start, tl, (float *)cols[col] + nrec);
        if (r) {
            reason = r;
            err_start = start;
            err_len = tl;
            err_line = sc.line;
            err_field = sc.field;
            break;
        }
        ntok++;
        col++;
        if (col == ncol) {
            col = 0;
            nrec++;
        }
    }
    if (reason) {
        for (int c = 0; c < ncol; c++)
            free(cols[c]);
        const char *why = reason == 2 ? "nan" : reason == 3 ? "range" : (pattern[col] == 'i' ? "integer" : "number");
        Py_ssize_t shown = err_len > 60 ? 60 : err_len;
        PyObject *res = Py_BuildValue("(ssnny#)", "error", why, err_line, err_field, s + err_start, shown);
        PyBuffer_Release(&data);
        return res;
    }
    if (col) { /* incomplete last record: the missing fields are 0 */
        for (int c = col; c < ncol; c++) {
            if (pattern[c] == 'i')
                ((int32_t *)cols[c])[nrec] = 0;
            else
                ((float *)cols[c])[nrec] = 0.0f;
        }
        nrec++;
    }
    PyBuffer_Release(&data);
    PyObject *lst = PyList_New(ncol);
    if (!lst)
        goto nomem2;
    for (int c = 0; c < ncol; c++) {
        PyObject *b = PyByteArray_FromStringAndSize((const char *)cols[c], (Py_ssize_t)(nrec * 4));
        free(cols[c]);
        cols[c] = NULL;
        if (!b) {
            Py_DECREF(lst);
            goto nomem2;
        }
        PyList_SET_ITEM(lst, c, b);
    }
    return Py_BuildValue("(sNn)", "ok", lst, ntok);
nomem:
    PyBuffer_Release(&data);
nomem2:
    for (int c = 0; c < ncol; c++)
        free(cols[c]);
    return PyErr_NoMemory();
}

/* ------------------------------------------------------------------------------------------------ */
/* preprocessing: binarise the targets                                                              */
/* ------------------------------------------------------------------------------------------------ */

/* binarise(targets) -> (status, mean_true, min_true, T0, T1, all_same, assumed_class)
 * status 1: a target lies strictly between the smallest and the largest (nothing is changed). */
static PyObject *k_binarise(PyObject *self, PyObject *args)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O", &o))
        return NULL;
    Py_buffer tb;
    Py_ssize_t n;
    if (get_f32(o, &tb, 1, &n) < 0)
        return NULL;
    float *t = tb.buf;
    ext sum = 0;
    double mn = 9e99, mx = -9e99;
    for (Py_ssize_t i = 0; i < n; i++) {
        sum += t[i];
        if (t[i] < mn)
            mn = t[i];
        if (t[i] > mx)
            mx = t[i];
    }
    double mean = (double)(sum / (ext)(double)n);
    int all_same = mn == mx, assumed = 0;
    Py_ssize_t t0 = 0, t1 = 0;
    if (all_same)
        assumed = mn <= 0.0 ? 0 : 1;
    /* one pass checks for a third value and binarises; on a third value the run ends, so what was
     * already rewritten does not matter */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (t[i] > mn && t[i] < mx) {
            PyBuffer_Release(&tb);
            return Py_BuildValue("(idddnnii)", 1, mean, mn, mx, (Py_ssize_t)0, (Py_ssize_t)0, 0, 0);
        }
        if (all_same)
            t[i] = (float)assumed;
        else
            t[i] = t[i] < mean ? 0.0f : 1.0f;
        if (t[i] == 1.0f)
            t1++;
        else
            t0++;
    }
    PyBuffer_Release(&tb);
    return Py_BuildValue("(idddnnii)", 0, mean, mn, mx, t0, t1, all_same, assumed);
}

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
static PyObject *k_sort(PyObject *self, PyObject *args)
{
    PyObject *to, *po;
    int threads = 0;
    if (!PyArg_ParseTuple(args, "OO|i", &to, &po, &threads))
        return NULL;
    Py_buffer tb, pb;
    Py_ssize_t n;
    if (get_pair(to, &tb, 1, po, &pb, 1, &n) < 0)
        return NULL;
    float *t = tb.buf, *p = pb.buf;
    size_t abytes = sizeof(pt_t) * (size_t)(n ? n : 1);
    pt_t *a = big_alloc(abytes);
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
    big_free(a, abytes);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&pb);
    if (rc)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* tie fractions                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* fractions(targets, preds, out): chains of neighbours closer than 1e-15 form a tie group; every
 * member gets float32(positives / size). */
static PyObject *k_fractions(PyObject *self, PyObject *args)
{
    PyObject *to, *po, *fo;
    if (!PyArg_ParseTuple(args, "OOO", &to, &po, &fo))
        return NULL;
    Py_buffer tb, pb, fb;
    Py_ssize_t n, n3;
    if (get_pair(to, &tb, 0, po, &pb, 0, &n) < 0)
        return NULL;
    if (get_f32(fo, &fb, 1, &n3) < 0) {
        PyBuffer_Release(&tb);
        PyBuffer_Release(&pb);
        return NULL;
    }
    if (n3 != n) {
        PyBuffer_Release(&tb);
        PyBuffer_Release(&pb);
        PyBuffer_Release(&fb);
        PyErr_SetString(PyExc_ValueError, "the fractions buffer must have one value per case");
        return NULL;
    }
    const float *t = tb.buf, *p = pb.buf;
    float *f = fb.buf;
    NOGIL_BEGIN
    Py_ssize_t item = 0;
    while (item < n) {
        Py_ssize_t begin = item, count = 1, pos = t[item] == 1.0f;
        while (item < n - 1 && fabsl((ext)p[item] - (ext)p[item + 1]) < 1e-15) {
            item++;
            count++;
            if (t[item] == 1.0f)
                pos++;
        }
        float fr = (float)((ext)pos / (ext)count);
        for (Py_ssize_t i = begin; i <= item; i++)
            f[i] = fr;
        item++;
    }
    NOGIL_END
    PyBuffer_Release(&tb);
    PyBuffer_Release(&pb);
    PyBuffer_Release(&fb);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* accuracy / cost sweep                                                                             */
/* ------------------------------------------------------------------------------------------------ */

/* Reads beyond the data (index -1, -2 or n) return what the original found there: 0.0 before the
 * array, and at index n whatever an earlier, longer block left (pn). */
static inline double P_at(const float *p, Py_ssize_t n, Py_ssize_t i, double pn)
{
    if (i < 0)
        return 0.0;
    if (i >= n)
        return pn;
    return p[i];
}

/* acc_sweep(t, p, pn, T0, T1, ca, cb, cc, cd, plot, max_thr, last_thr, count)
 *   -> (max_acc_thresh, last_acc_thresh, max_acc_count, plot_bytes)
 * plot: 0 none, 1 accuracy, 2 cost. */
static PyObject *k_acc_sweep(PyObject *self, PyObject *args)
{
    PyObject *to, *po;
    double pn, ca, cb, cc, cd, max_thr, last_thr;
    Py_ssize_t T0, T1;
    int plot, count;
    if (!PyArg_ParseTuple(args, "OOdnnddddiddi", &to, &po, &pn, &T0, &T1, &ca, &cb, &cc, &cd, &plot, &max_thr,
                          &last_thr, &count))
        return NULL;
    Py_buffer tb, pb;
    Py_ssize_t n;
    if (get_pair(to, &tb, 0, po, &pb, 0, &n) < 0)
        return NULL;
    const float *t = tb.buf, *p = pb.buf;
    outbuf ob = {0};
    int err = 0;
    NOGIL_BEGIN
    double tt = 0, tf = (double)T1, ft = 0, ff = (double)T0;
    double top = P_at(p, n, n - 1, pn), second = P_at(p, n, n - 2, pn);
    double threshold = (double)((ext)top + ((ext)top - (ext)second) / 2.0L);
    double acc = (double)(((ext)tt + ff) / ((ext)(double)n + EPS));
    double max_acc = acc;
    double cost = (double)((ext)ca * tt + (ext)cb * tf + (ext)cc * ft + (ext)cd * ff);
    if (plot == 1)
        err |= ob_line2(&ob, "%lf %lf\n", threshold, acc);
    else if (plot == 2)
        err |= ob_line2(&ob, "%lf %lf\n", threshold, cost);
    for (Py_ssize_t item = n - 1; item > -1 && !err; item--) {
        double tv = t[item];
        tt += tv;
        tf -= tv;
        ft += 1 - tv;
        ff -= 1 - tv;
        if (item > 0)
            threshold = (double)(((ext)p[item] + (ext)p[item - 1]) / 2.0L);
        else {
            ext p0 = p[0], p1 = P_at(p, n, 1, pn);
            threshold = (double)(p0 - (p1 - p0) / 2.0L);
        }
        acc = (double)(((ext)tt + ff) / ((ext)(double)n + EPS));
        if (plot == 1)
            err |= ob_line2(&ob, "%lf %lf\n", threshold, acc);
        else if (plot == 2) {
            cost = (double)((ext)ca * tt + (ext)cb * tf + (ext)cc * ft + (ext)cd * ff);
            err |= ob_line2(&ob, "%lf %lf\n", threshold, cost);
        }
        if (acc > max_acc) {
            max_acc = acc;
            max_thr = threshold;
            last_thr = threshold;
            count = 1;
        }
        if (acc == max_acc && threshold != last_thr) {
            count++;
            last_thr = threshold;
        }
        /* the original also tracks a minimum cost here, but never prints it */
    }
    NOGIL_END
    PyBuffer_Release(&tb);
    PyBuffer_Release(&pb);
    if (err) {
        free(ob.buf);
        return PyErr_NoMemory();
    }
    PyObject *plotb = ob_finish(&ob);
    return Py_BuildValue("(ddiN)", max_thr, last_thr, count, plotb);
}

/* confusion(t, p, thresholds) -> [(A, B, C, D), ...]: prediction >= threshold is predicted positive
 * (one pass for the three thresholds of the report) */
static PyObject *k_confusion(PyObject *self, PyObject *args)
{
    PyObject *to, *po, *thr_seq;
    if (!PyArg_ParseTuple(args, "OOO", &to, &po, &thr_seq))
        return NULL;
    PyObject *fast = PySequence_Fast(thr_seq, "thresholds must be a sequence");
    if (!fast)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(fast);
    if (k > 8) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "at most 8 thresholds");
        return NULL;
    }
    double thr[8];
    for (Py_ssize_t j = 0; j < k; j++) {
        thr[j] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, j));
        if (thr[j] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    Py_buffer tb, pb;
    Py_ssize_t n;
    if (get_pair(to, &tb, 0, po, &pb, 0, &n) < 0)
        return NULL;
    const float *t = tb.buf, *p = pb.buf;
    Py_ssize_t cnt[8][4];
    memset(cnt, 0, sizeof cnt);
    NOGIL_BEGIN
    for (Py_ssize_t i = 0; i < n; i++) {
        int pos = t[i] == 1.0f;
        double pv = p[i];
        for (Py_ssize_t j = 0; j < k; j++)
            cnt[j][(pos ? 0 : 2) + (pv >= thr[j] ? 0 : 1)]++;
    }
    NOGIL_END
    PyBuffer_Release(&tb);
    PyBuffer_Release(&pb);
    PyObject *lst = PyList_New(k);
    for (Py_ssize_t j = 0; lst && j < k; j++)
        PyList_SET_ITEM(lst, j, Py_BuildValue("(dddd)", (double)cnt[j][0], (double)cnt[j][1], (double)cnt[j][2],
                                              (double)cnt[j][3]));
    return lst;
}

/* percent_counts(frac, percent, T0, T1) -> (A, B, C, D) of percent mode */
static PyObject *k_percent_counts(PyObject *self, PyObject *args)
{
    PyObject *fo;
    double prc;
    Py_ssize_t T0, T1;
    if (!PyArg_ParseTuple(args, "Odnn", &fo, &prc, &T0, &T1))
        return NULL;
    Py_buffer fb;
    Py_ssize_t n;
    if (get_f32(fo, &fb, 0, &n) < 0)
        return NULL;
    const float *f = fb.buf;
    NOGIL_BEGIN
    /* n * P in 80-bit, then / 100, then truncated, as the binary does (double arithmetic differs,
     * e.g. n = 1000, P = 14.1) */
    long long k = (long long)(((ext)n * (ext)prc) / 100.0L);
    long long split = (long long)n - k;
    if (split < 0)
        split = 0;
    else if (split >= n)
        split = n;
    double a = 0, c = 0;
    for (Py_ssize_t item = n - 1; item >= split; --item) {
        a = (double)(a + (ext)f[item]);
        c = (double)(c + (1.0L - (ext)f[item]));
    }
    NOGIL_END
    PyBuffer_Release(&fb);
    return Py_BuildValue("(dddd)", a, (double)((ext)T1 - a), c, (double)((ext)T0 - c));
}

/* ------------------------------------------------------------------------------------------------ */
/* ROC area, R50, lift plot                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/* roc(frac, T0, T1, plot) -> (area, 1 - area, plot_bytes) */
static PyObject *k_roc(PyObject *self, PyObject *args)
{
    PyObject *fo;
    Py_ssize_t T0, T1;
    int plot;
    if (!PyArg_ParseTuple(args, "Onni", &fo, &T0, &T1, &plot))
        return NULL;
    Py_buffer fb;
    Py_ssize_t n;
    if (get_f32(fo, &fb, 0, &n) < 0)
        return NULL;
    const float *fr = fb.buf;
    outbuf ob = {0};
    int err = 0;
    NOGIL_BEGIN
    double tt = 0, tf = (double)T1, ft = 0, ff = (double)T0;
    double tpf = (double)((ext)tt / ((ext)tt + tf));
    double fpf = (double)(1.0L - (ext)ff / ((ext)ft + ff));
    if (plot)
        err |= ob_line2(&ob, "%6.4lf %6.4lf\n", fpf, tpf);
    double area = 0, tpf_prev = tpf, fpf_prev = fpf;
    for (Py_ssize_t item = n - 1; item > -1 && !err; item--) {
        ext f = fr[item], om = 1.0L - f;
        ext tt2 = tt + f, ft2 = ft + om;
        tf = (double)(tf - f);
        ff = (double)(ff - om);
        tpf = (double)(tt2 / (tt2 + tf));
        fpf = (double)(1.0L - ff / (ft2 + ff));
        if (plot)
            err |= ob_line2(&ob, "%6.4lf %6.4lf\n", fpf, tpf);
        area = (double)(area + 0.5L * ((ext)tpf + tpf_prev) * ((ext)fpf - fpf_prev));
        tpf_prev = tpf;
        fpf_prev = fpf;
        tt = (double)tt2;
        ft = (double)ft2;
    }
    NOGIL_END
    PyBuffer_Release(&fb);
    if (err) {
        free(ob.buf);
        return PyErr_NoMemory();
    }
    return Py_BuildValue("(ddN)", area, (double)(1.0L - area), ob_finish(&ob));
}

/* r50(frac, T0, T1, negs) -> (value, 1 - value) */
static PyObject *k_r50(PyObject *self, PyObject *args)
{
    PyObject *fo;
    Py_ssize_t T0, T1;
    int negs;
    if (!PyArg_ParseTuple(args, "Onni", &fo, &T0, &T1, &negs))
        return NULL;
    Py_buffer fb;
    Py_ssize_t n;
    if (get_f32(fo, &fb, 0, &n) < 0)
        return NULL;
    const float *fr = fb.buf;
    NOGIL_BEGIN
    ext tt = 0, tf = (ext)T1, ft = 0, ff = (ext)T0;
    ext tpf = tt / (tt + tf), fpf = 1.0L - ff / (ft + ff);
    ext tpf_prev = tpf;
    double fpf_prev = (double)fpf, area = 0;
    int factor = (int)(T0 / negs); /* integer division, as the original */
    for (Py_ssize_t item = n - 1; item > -1; item--) {
        ext f = fr[item];
        tt += f;
        tf -= f;
        ft += 1.0L - f;
        ff -= 1.0L - f;
        tpf = tt / (tt + tf);
        fpf = 1.0L - ff / (ft + ff);
        if (ft <= negs)
            area = (double)(area + 0.5L * (tpf + tpf_prev) * (fpf - (ext)fpf_prev) * (ext)factor);
        tpf_prev = tpf;
        fpf_prev = (double)fpf;
    }
    NOGIL_END
    PyBuffer_Release(&fb);
    return Py_BuildValue("(dd)", area, (double)(1.0L - area));
}

/* lift_plot(frac, T1) -> bytes */
static PyObject *k_lift_plot(PyObject *self, PyObject *args)
{
    PyObject *fo;
    Py_ssize_t T1;
    if (!PyArg_ParseTuple(args, "On", &fo, &T1))
        return NULL;
    Py_buffer fb;
    Py_ssize_t n;
    if (get_f32(fo, &fb, 0, &n) < 0)
        return NULL;
    const float *fr = fb.buf;
    outbuf ob = {0};
    int err = 0;
    NOGIL_BEGIN
    double tt = 0, ft = 0;
    for (Py_ssize_t item = n - 1; item > -1 && !err; item--) {
        tt = (double)(tt + (ext)fr[item]);
        ft = (double)(ft + (1.0L - (ext)fr[item]));
        ext frac = ((ext)tt + ft) / (ext)(double)n;
        ext lift = ((ext)tt / ((ext)(double)T1 + EPS)) / (frac + EPS);
        err |= ob_line2(&ob, "%6.4lf %6.4lf\n", (double)frac, (double)lift);
    }
    NOGIL_END
    PyBuffer_Release(&fb);
    if (err) {
        free(ob.buf);
        return PyErr_NoMemory();
    }
    return ob_finish(&ob);
}

/* ------------------------------------------------------------------------------------------------ */
/* APR: expected precision under a random order inside each tie                                     */
/* ------------------------------------------------------------------------------------------------ */

static double LF[MAX_TIES];
static int LF_ready = 0;

static pthread_mutex_t APR_LOCK = PTHREAD_MUTEX_INITIALIZER;

static void lf_fill(void)
{
    LF[0] = 0;
    for (int i = 1; i < MAX_TIES; i++)
        LF[i] = (double)((ext)LF[i - 1] + logl((ext)i));
    LF_ready = 1;
}

static void lf_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, lf_fill);
}

static inline ext choose_log(int N, int M)
{
    if (M < 0 || M > N)
        return -1.0e300L;
    return ((ext)LF[N] - LF[M]) - LF[N - M];
}

/* log of the probability that position j (1-based) of a tie group of g holding m positives is
 * positive with exactly k positives before it */
static inline ext apr_logprob(int j, int k, int g, int m)
{
    return ((0.0L + choose_log(j - 1, k)) + choose_log(g - j, m - k - 1)) - choose_log(g, m);
}

static inline double apr_term(double acc, int j, int k, int g, int m, int a, int b)
{
    if (g - j < m - k - 1)
        return acc;
    ext lp = apr_logprob(j, k, g, m);
    double lpd = (double)lp;
    if (!(lp > -50))
        return acc;
    ext pr = expl((ext)lpd);
    ext contrib = (((ext)(double)b + k) + 1) / (ext)(a + j);
    return (double)(acc + pr * contrib);
}

/* Expected sum of precision-at-k over the positives of one tie group (the original's definition).
 * Terms whose log-probability is <= -50 add exactly nothing, so for each j only the k near the mode
 * of the (log-concave) hypergeometric law are visited; the sum, in the same order, is unchanged. */
/* The probabilities of a group depend on (g, m) only: for small groups they are computed once per
 * (g, m) and kept (same expression, same values).  A negative entry marks a term that adds nothing. */
#define CACHE_G 64
static ext *PCACHE[CACHE_G + 1][CACHE_G + 1];

static ext *apr_table(int g, int m)
{
    ext *tab = malloc(sizeof(ext) * (size_t)g * (size_t)(m + 1));
    if (!tab)
        return NULL;
    for (int j = 1; j <= g; j++)
        for (int k = 0; k <= m; k++) {
            ext v = -1.0L;
            if (k <= j - 1 && !(g - j < m - k - 1)) {
                ext lp = apr_logprob(j, k, g, m);
                if (lp > -50)
                    v = expl((ext)(double)lp);
            }
            tab[(size_t)(j - 1) * (size_t)(m + 1) + (size_t)k] = v;
        }
    return tab;
}

/* Probability tables are kept per (g, m): always for small groups (g <= CACHE_G); for larger ones
 * (up to PHASH_MAX_G cases, a table of at most PTABLE_MAX entries) only from a pair's second
 * sighting, within PBUDGET bytes.  Data whose tie groups repeat the same sizes (every score of a
 * data set copied ten times) then make each table once; data whose pairs never repeat never pay
 * for a whole table (measured: caching on first sight made such data twice slower). */
#define PHASH_SIZE 65536
#define PHASH_MAX_G 4096
#define PTABLE_MAX (1u << 20)
#define PBUDGET ((size_t)256 << 20)
typedef struct {
    int g, m, seen;
    ext *tab;
} pentry;
static pentry PHASH[PHASH_SIZE];
static size_t PHASH_BYTES = 0;

static const ext *apr_probs(int g, int m)
{
    if (m > g)
        return NULL;
    pthread_mutex_lock(&APR_LOCK);
    ext *tab = NULL;
    if (g <= CACHE_G) {
        tab = PCACHE[g][m];
        if (!tab && (tab = apr_table(g, m)))
            PCACHE[g][m] = tab;
    } else if (g <= PHASH_MAX_G && (size_t)g * (size_t)(m + 1) <= PTABLE_MAX) {
        size_t bytes = sizeof(ext) * (size_t)g * (size_t)(m + 1);
        size_t h = ((size_t)g * 2654435761u ^ (size_t)m * 40503u) & (PHASH_SIZE - 1);
        for (size_t probe = 0; probe < 64; probe++, h = (h + 1) & (PHASH_SIZE - 1)) {
            pentry *e = &PHASH[h];
            if (e->seen && (e->g != g || e->m != m))
                continue;
            if (!e->seen) { /* first sighting: remember it, compute directly this time */
                e->g = g;
                e->m = m;
                e->seen = 1;
            } else if (e->tab)
                tab = e->tab;
            else if (PHASH_BYTES + bytes <= PBUDGET && (e->tab = apr_table(g, m))) {
                PHASH_BYTES += bytes;
                tab = e->tab;
            }
            break;
        }
    }
    pthread_mutex_unlock(&APR_LOCK);
    return tab;
}

static double apr_ties(int a, int b, int g, int m, int *big_warn)
{
    double ret = 0;
    if (m == 0)
        return 0;
    if (g == 1)
        return (double)(((ext)b + 1.0L) / ((ext)a + 1.0L));
    if (g >= MAX_TIES) {
        (*big_warn)++;
        for (int j = 1; j <= m; j++)
            ret = (double)(ret + ((ext)(double)b + j) / (ext)(a + g - m + j));
        return ret;
    }
    {
        const ext *tab = apr_probs(g, m); /* NULL: too large to keep, computed below */
        if (tab) {
            for (int j = 1; j <= g; j++) {
                const ext *row = tab + (size_t)(j - 1) * (size_t)(m + 1);
                int khi = j - 1 < m ? j - 1 : m;
                for (int k = 0; k <= khi; k++) {
                    ext pr = row[k];
                    if (pr < 0)
                        continue;
                    ext contrib = (((ext)(double)b + k) + 1) / (ext)(a + j);
                    ret = (double)(ret + pr * contrib);
                }
            }
            return ret;
        }
    }
    ext *lps = NULL;
    size_t lps_cap = 0;
    for (int j = 1; j <= g; j++) {
        int khi = j - 1 < m ? j - 1 : m;
        int klo = m - 1 - (g - j);
        if (klo < 0)
            klo = 0;
        if (klo > khi)
            continue;
        if ((long)(khi - klo) < 64) {
            for (int k = klo; k <= khi; k++)
                ret = apr_term(ret, j, k, g, m, a, b);
            continue;
        }
        long mode = ((long)j * (long)m) / (long)(g + 1);
        if (mode < klo)
            mode = klo;
        if (mode > khi)
            mode = khi;
        /* the window around the mode; each log-probability is computed once, kept for the sum */
        if (lps_cap < (size_t)(khi - klo + 1)) {
            free(lps);
            lps_cap = (size_t)(khi - klo + 1);
            lps = malloc(lps_cap * sizeof(ext));
        }
        if (!lps) { /* no memory to keep them: term by term */
            lps_cap = 0;
            for (int k = klo; k <= khi; k++)
                ret = apr_term(ret, j, k, g, m, a, b);
            continue;
        }
        int lo = (int)mode, hi = (int)mode;
        lps[mode - klo] = apr_logprob(j, (int)mode, g, m);
        while (lo > klo && (lps[lo - 1 - klo] = apr_logprob(j, lo - 1, g, m)) > -60)
            lo--;
        while (hi < khi && (lps[hi + 1 - klo] = apr_logprob(j, hi + 1, g, m)) > -60)
            hi++;
        for (int k = lo; k <= hi; k++) { /* apr_term, with its log-probability already known */
            ext lp = lps[k - klo];
            if (!(lp > -50))
                continue;
            ext pr = expl((ext)(double)lp);
            ext contrib = (((ext)(double)b + k) + 1) / (ext)(a + j);
            ret = (double)(ret + pr * contrib);
        }
    }
    free(lps);
    return ret;
}

/* apr(p, frac, T1, plot, acc[, threads]) -> (apr, 1 - apr, acc + apr, n_big_tie_warnings, plot_bytes);
 * threads=1 forces one thread */
/* A tie group whose expected precision is worth computing apart: more than one case, a positive. */
typedef struct {
    int a, b, g, m;
    double E;
    int big;
} aprgroup;

/* The walk of PERF's calc_apr from the top.  mode 0: compute every group's value inline and add it
 * up; mode 1: only list the heavy groups (g > 1, m > 0) and their work; mode 2: add up, taking the
 * heavy groups' values from the list (computed in parallel in between).  The walk's 80-bit
 * arithmetic is the same in every mode, so modes 1 + 2 give mode 0's sum exactly. */
static double apr_walk(const float *p, const float *fr, Py_ssize_t n, Py_ssize_t T1, int plot, outbuf *ob,
                       int *err, int *big, int mode, aprgroup **heavy, size_t *nheavy, double *work)
{
    ext tt = 0, tin = 0, fin = 0;
    double ft = 0, apr = 0;
    size_t cap = 0, next = 0;
    for (Py_ssize_t item = n - 1; item > -1 && !*err; item--) {
        ext f = fr[item];
        tt += f;
        ft = (double)(ft + (1.0L - f));
        tin += f;
        fin += 1.0L - f;
        if (item == 0 || p[item] != p[item - 1]) {
            ext nn = (tt + ft - fin) - tin;
            ext mm = tt - tin;
            int ia = (int)(double)(nn + 0.5L), ib = (int)(double)(mm + 0.5L);
            int ig = (int)(double)(tin + fin + 0.5L), im = (int)(double)(tin + 0.5L);
            int is_heavy = ig > 1 && im > 0;
            if (mode == 1) {
                if (is_heavy) {
                    if (*nheavy == cap) {
                        cap = cap ? cap * 2 : 1024;
                        aprgroup *nh = realloc(*heavy, cap * sizeof(aprgroup));
                        if (!nh) {
                            *err = 1;
                            break;
                        }
                        *heavy = nh;
                    }
                    aprgroup *h = &(*heavy)[(*nheavy)++];
                    h->a = ia;
                    h->b = ib;
                    h->g = ig;
                    h->m = im;
                    h->big = 0;
                    *work += (double)ig * (double)(im < 64 ? im + 1 : 64);
                }
            } else {
                double E;
                if (mode == 2 && is_heavy) {
                    E = (*heavy)[next].E;
                    *big += (*heavy)[next].big;
                    next++;
                } else
                    E = apr_ties(ia, ib, ig, im, big);
                apr = (double)((ext)apr + E);
            }
            tt = (double)tt;
            tin = 0;
            fin = 0;
        }
        if (plot && mode != 1) {
            ext precision = tt / (ext)(double)(tt + ft);
            ext recall = tt / (ext)(double)T1;
            *err |= ob_line2(ob, "%6.4lf %6.4lf\n", (double)recall, (double)precision);
        }
    }
    return apr;
}

typedef struct {
    aprgroup *g;
    size_t from, to;
} aprjob;

static void *apr_job(void *arg)
{
    aprjob *j = arg;
    for (size_t i = j->from; i < j->to; i++)
        j->g[i].E = apr_ties(j->g[i].a, j->g[i].b, j->g[i].g, j->g[i].m, &j->g[i].big);
    return NULL;
}

static PyObject *k_apr(PyObject *self, PyObject *args)
{
    PyObject *po, *fo;
    Py_ssize_t T1;
    int plot, threads = 0;
    double accin;
    if (!PyArg_ParseTuple(args, "OOnid|i", &po, &fo, &T1, &plot, &accin, &threads))
        return NULL;
    Py_buffer pb, fb;
    Py_ssize_t n;
    if (get_pair(po, &pb, 0, fo, &fb, 0, &n) < 0)
        return NULL;
    const float *p = pb.buf, *fr = fb.buf;
    lf_init();
    NOGIL_BEGIN
    outbuf ob = {0};
    int err = 0, big = 0;
    aprgroup *heavy = NULL;
    size_t nheavy = 0;
    double work = 0, apr;
    /* list the heavy groups first; when they are a lot of work, compute them in two threads */
    apr_walk(p, fr, n, T1, 0, &ob, &err, &big, 1, &heavy, &nheavy, &work);
    if (!err && work > 4e6 && nheavy > 1 && threads != 1) {
        /* split the list where the estimated work is half done */
        double half = work / 2, acc = 0;
        size_t cut = 0;
        while (cut < nheavy && acc < half) {
            acc += (double)heavy[cut].g * (double)(heavy[cut].m < 64 ? heavy[cut].m + 1 : 64);
            cut++;
        }
        aprjob j0 = {heavy, 0, cut}, j1 = {heavy, cut, nheavy};
        pthread_t th;
        int threaded = pthread_create(&th, NULL, apr_job, &j1) == 0;
        apr_job(&j0);
        if (threaded)
            pthread_join(th, NULL);
        else
            apr_job(&j1);
        apr = apr_walk(p, fr, n, T1, plot, &ob, &err, &big, 2, &heavy, &nheavy, &work);
    } else
        apr = apr_walk(p, fr, n, T1, plot, &ob, &err, &big, 0, &heavy, &nheavy, &work);
    free(heavy);
    NOGIL_END
    PyBuffer_Release(&pb);
    PyBuffer_Release(&fb);
    if (err) {
        free(ob.buf);
        return PyErr_NoMemory();
    }
    ext v = (ext)apr / (ext)(double)T1;
    return Py_BuildValue("(dddiN)", (double)v, (double)(1.0L - v), (double)((ext)accin + v), big, ob_finish(&ob));
}

/* ------------------------------------------------------------------------------------------------ */
/* rank measures                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* ranks(frac, T0, T1, all_same, ntop_k, ntop_raw) ->
 *   (prb, 1-prb, top1, top10, rkl, rkl_loss, ntop, 1-ntop) */
static PyObject *k_ranks(PyObject *self, PyObject *args)
{
    PyObject *fo;
    Py_ssize_t T0, T1;
    int all_same;
    long ntop_k;
    double ntop_raw;
    if (!PyArg_ParseTuple(args, "Onnild", &fo, &T0, &T1, &all_same, &ntop_k, &ntop_raw))
        return NULL;
    Py_buffer fb;
    Py_ssize_t n;
    if (get_f32(fo, &fb, 0, &n) < 0)
        return NULL;
    const float *fr = fb.buf;
    NOGIL_BEGIN
    /* PRB: fractional positives in the top T1 positions, over T1 */
    ext s = 0;
    for (Py_ssize_t item = n - 1; item >= T0; --item)
        s += fr[item];
    ext prb = s / (ext)(double)T1;
    /* TOP1 reads the top slot, which is the zero before the array when n = 0 */
    double top1 = (n > 0 ? fr[n - 1] : 0.0f) >= (1.0 - EPS) ? 1.0 : 0.0;
    double top10 = 0.0;
    for (Py_ssize_t item = n - 1; item > -1 && n - item <= 10; item--)
        if (fr[item] >= (1.0 - EPS)) {
            top10 = 1.0;
            break;
        }
    double rkl;
    if (all_same)
        rkl = (double)n;
    else {
        Py_ssize_t r = n - 1;
        for (Py_ssize_t item = 0; item < n; item++)
            if (fr[item] > 0) {
                r = n - item;
                break;
            }
        rkl = (double)r;
    }
    ext rkl_loss = ((ext)rkl - 1) / ((ext)(double)(n - 1) + EPS);
    ext ts = 0;
    for (Py_ssize_t item = n - 1; item > -1 && n - item <= ntop_k; item--)
        ts += fr[item];
    ext ntop = ts / ((ext)ntop_raw + EPS);
    NOGIL_END
    PyBuffer_Release(&fb);
    return Py_BuildValue("(dddddddd)", (double)prb, (double)(1.0L - prb), top1, top10, rkl, (double)rkl_loss,
                         (double)ntop, (double)(1.0L - ntop));
}

/* ------------------------------------------------------------------------------------------------ */
/* SLQ                                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/* slq(t, p, width, nbins) -> (slq, 1 - slq); predictions in bins >= nbins are left out */
static PyObject *k_slq(PyObject *self, PyObject *args)
{
    PyObject *to, *po;
    double width;
    int nb;
    if (!PyArg_ParseTuple(args, "OOdi", &to, &po, &width, &nb))
        return NULL;
    Py_buffer tb, pb;
    Py_ssize_t n;
    if (get_pair(to, &tb, 0, po, &pb, 0, &n) < 0)
        return NULL;
    const float *t = tb.buf, *p = pb.buf;
    long long *pos = calloc((size_t)(nb > 0 ? nb : 1), sizeof(long long));
    long long *neg = calloc((size_t)(nb > 0 ? nb : 1), sizeof(long long));
    if (!pos || !neg) {
        free(pos);
        free(neg);
        PyBuffer_Release(&tb);
        PyBuffer_Release(&pb);
        return PyErr_NoMemory();
    }
    ext div = (ext)width + EPS;
    NOGIL_BEGIN
    for (Py_ssize_t i = 0; i < n; i++) {
        ext q = (ext)p[i] / div;
        /* floor; for q >= 0 the truncating conversion is the same and much cheaper than floorl */
        double fb = (q >= 0 && q < 4.0e18L) ? (double)(long long)q : (double)floorl(q);
        if (!(fb >= 0 && fb < nb))
            continue;
        int bin = (int)fb;
        if (t[i] > 0.5f)
            pos[bin]++;
        else
            neg[bin]++;
    }
    ext q = 0;
    long long qn = 0;
    for (int bin = 0; bin < nb; bin++) {
        ext tot = (ext)(double)(pos[bin] + neg[bin]);
        ext w;
        if (pos[bin] > neg[bin])
            w = 1.0L - ((ext)(double)pos[bin] / (tot + EPS));
        else
            w = 1.0L - ((ext)(double)neg[bin] / (tot + EPS));
        q += tot * (1.0L - 2.0L * w) * (1.0L - 2.0L * w);
        qn += pos[bin] + neg[bin];
    }
    NOGIL_END
    free(pos);
    free(neg);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&pb);
    ext v = q / (ext)(double)qn;
    return Py_BuildValue("(dd)", (double)v, (double)(1.0L - v));
}

/* ------------------------------------------------------------------------------------------------ */
/* RMS, CXE, NRM                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* rms(t, p, warn_min, warn_max, acc) -> (rms, acc + rms, warn_min, warn_max, [(kind, value), ...])
 * kind 1: a prediction above 1, kind 0: below 0 -- the range warnings, once per data set. */
static PyObject *warn_list(int nw, const int *wk, const double *wv)
{
    PyObject *warns = PyList_New(nw);
    for (int k = 0; warns && k < nw; k++) {
        PyObject *w = Py_BuildValue("(id)", wk[k], wv[k]);
        if (!w) {
            Py_CLEAR(warns);
            break;
        }
        PyList_SET_ITEM(warns, k, w);
    }
    return warns;
}

static PyObject *k_rms(PyObject *self, PyObject *args)
{
    PyObject *to, *po;
    int wmin, wmax;
    double accin;
    if (!PyArg_ParseTuple(args, "OOiid", &to, &po, &wmin, &wmax, &accin))
        return NULL;
    Py_buffer tb, pb;
    Py_ssize_t n;
    if (get_pair(to, &tb, 0, po, &pb, 0, &n) < 0)
        return NULL;
    const float *t = tb.buf, *p = pb.buf;
    int nw = 0, wk[2];
    double wv[2];
    ext sse = 0;
    NOGIL_BEGIN
    for (Py_ssize_t i = 0; i < n; i++) {
        ext d = (ext)t[i] - (ext)p[i];
        sse += d * d;
        if (p[i] > 1.0 && wmax) {
            sse = (double)sse; /* spilled around the warning's fprintf */
            wmax = 0;
            wk[nw] = 1;
            wv[nw++] = p[i];
        }
        if (p[i] < 0.0 && wmin) {
            sse = (double)sse;
            wmin = 0;
            wk[nw] = 0;
            wv[nw++] = p[i];
        }
    }
    ext v = sqrtl(sse / (ext)(double)n);
    NOGIL_END
    PyBuffer_Release(&tb);
    PyBuffer_Release(&pb);
    PyObject *warns = warn_list(nw, wk, wv);
    if (!warns)
        return NULL;
    return Py_BuildValue("(ddiiN)", (double)v, (double)((ext)accin + v), wmin, wmax, warns);
}

/* cxe(t, p, mean_true, warn_min, warn_max) -> (cxe, warn_min, warn_max, warnings)
 * Rewrites the targets in place, as the original does (quirk Q6). */
static PyObject *k_cxe(PyObject *self, PyObject *args)
{
    PyObject *to, *po;
    double mean_true;
    int wmin, wmax;
    if (!PyArg_ParseTuple(args, "OOdii", &to, &po, &mean_true, &wmin, &wmax))
        return NULL;
    Py_buffer tb, pb;
    Py_ssize_t n;
    if (get_pair(to, &tb, 1, po, &pb, 0, &n) < 0)
        return NULL;
    float *t = tb.buf;
    const float *p = pb.buf;
    int nw = 0, wk[2];
    double wv[2];
    NOGIL_BEGIN
    double log2d = (double)logl(2.0L);
    double acc = 0;
    /* the term depends only on (prediction, class): sorted data repeats it along each tie, so the
     * last one is reused (the same expression on the same operands) */
    float last_p = NAN;
    int last_c = -1;
    ext last_term = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int cls = !(t[i] < mean_true);
        float nt = cls ? 1.0f : 0.0f;
        if (t[i] != nt) /* store only a change: when nothing changes, other threads may read t */
            t[i] = nt;
        if (!(p[i] == last_p && cls == last_c)) {
            if (!cls) {
                ext x = 1.0L - (ext)p[i];
                last_term = x <= 0.0L ? (ext)9e99 : (-logl((ext)(double)x)) / (ext)log2d;
            } else
                last_term = p[i] <= 0.0f ? (ext)9e99 : (-logl((ext)p[i])) / (ext)log2d;
            last_p = p[i];
            last_c = cls;
        }
        acc = (double)((ext)acc + last_term);
        if (p[i] > 1.0 && wmax) {
            wmax = 0;
            wk[nw] = 1;
            wv[nw++] = p[i];
        }
        if (p[i] < 0.0 && wmin) {
            wmin = 0;
            wk[nw] = 0;
            wv[nw++] = p[i];
        }
    }
    NOGIL_END
    PyBuffer_Release(&tb);
    PyBuffer_Release(&pb);
    PyObject *warns = warn_list(nw, wk, wv);
    if (!warns)
        return NULL;
    return Py_BuildValue("(diiN)", (double)((ext)acc / (ext)(double)n), wmin, wmax, warns);
}

/* nrm(t, p, P) -> (sum |t - p|^P / n)^(1/P) */
static PyObject *k_nrm(PyObject *self, PyObject *args)
{
    PyObject *to, *po;
    double P;
    if (!PyArg_ParseTuple(args, "OOd", &to, &po, &P))
        return NULL;
    Py_buffer tb, pb;
    Py_ssize_t n;
    if (get_pair(to, &tb, 0, po, &pb, 0, &n) < 0)
        return NULL;
    const float *t = tb.buf, *p = pb.buf;
    NOGIL_BEGIN
    ext acc = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double accd = (double)acc; /* spilled before every pow call */
        double d = (double)fabsl((ext)t[i] - (ext)p[i]);
        acc = (ext)accd + powl((ext)d, (ext)P);
    }
    NOGIL_END
    PyBuffer_Release(&tb);
    PyBuffer_Release(&pb);
    double base = (double)(acc / (ext)(double)n);
    double expo = (double)(1.0L / (ext)P);
    return PyFloat_FromDouble((double)powl((ext)base, (ext)expo));
}

/* ------------------------------------------------------------------------------------------------ */
/* calibration                                                                                       */
/* ------------------------------------------------------------------------------------------------ */

/* ca1(t, p): 19 overlapping bins [i*0.05, i*0.05 + 0.1], edges in 80-bit (p must be sorted) */
static PyObject *k_ca1(PyObject *self, PyObject *args)
{
    PyObject *to, *po;
    if (!PyArg_ParseTuple(args, "OO", &to, &po))
        return NULL;
    Py_buffer tb, pb;
    Py_ssize_t n;
    if (get_pair(to, &tb, 0, po, &pb, 0, &n) < 0)
        return NULL;
    const float *t = tb.buf, *p = pb.buf;
    NOGIL_BEGIN
    ext cal_sum = 0;
    for (int i = 0; i < 19; i++) {
        ext lo = (ext)i * 0.05, hi = lo + 0.1;
        /* the data are sorted ascending: the bin is one contiguous run */
        Py_ssize_t a = 0, b = n;
        while (a < b) {
            Py_ssize_t mid = a + (b - a) / 2;
            if ((ext)p[mid] >= lo)
                b = mid;
            else
                a = mid + 1;
        }
        long long ct = 0, cf = 0;
        ext sp = 0;
        for (Py_ssize_t item = a; item < n && (ext)p[item] <= hi; item++) {
            if (t[item] == 1.0f)
                ct++;
            else
                cf++;
            sp += p[item];
        }
        ext k = (ext)(double)(ct + cf) + EPS;
        ext obs = (ext)(double)ct / k;
        cal_sum += fabsl(obs - sp / k);
    }
    NOGIL_END
    PyBuffer_Release(&tb);
    PyBuffer_Release(&pb);
    return PyFloat_FromDouble((double)(cal_sum / 19.0L));
}

/* ca2(t, p, S): mean calibration error over windows of S consecutive sorted cases */
static PyObject *k_ca2(PyObject *self, PyObject *args)
{
    PyObject *to, *po;
    long S;
    if (!PyArg_ParseTuple(args, "OOl", &to, &po, &S))
        return NULL;
    Py_buffer tb, pb;
    Py_ssize_t n;
    if (get_pair(to, &tb, 0, po, &pb, 0, &n) < 0)
        return NULL;
    const float *t = tb.buf, *p = pb.buf;
    NOGIL_BEGIN
    long long ct = 0, cf = 0, csn = 0;
    ext sp = 0, cs = 0;
    for (Py_ssize_t item = 0; item < n; item++) {
        if (t[item] == 1.0f)
            ct++;
        else
            cf++;
        sp += p[item];
        if (item >= S - 1) {
            ext k = (ext)(double)(ct + cf) + EPS;
            ext obs = (ext)(double)ct / k;
            cs += fabsl(obs - sp / k);
            csn++;
            if (t[item - S + 1] == 1.0f)
                ct--;
            else
                cf--;
            sp -= p[item - S + 1];
        }
    }
    NOGIL_END
    PyBuffer_Release(&tb);
    PyBuffer_Release(&pb);
    return PyFloat_FromDouble((double)(cs / (ext)(double)csn));
}

/* ------------------------------------------------------------------------------------------------ */
/* threshold statistics                                                                              */
/* ------------------------------------------------------------------------------------------------ */

/* stats(A, B, C, D, T0, T1, loss, max_lift, wacc, wroc, wrms, roc, rmse, ca, cb, cc, cd)
 *   -> (ACC, PPV, NPV, SEN, SPC, PRE, REC, PRF, LFT, SAR, CST) */
static PyObject *k_stats(PyObject *self, PyObject *args)
{
    double A, B, C, D, max_lift, wacc, wroc, wrms, roc, rmse, ca, cb, cc, cd;
    Py_ssize_t T0, T1;
    int loss;
    if (!PyArg_ParseTuple(args, "ddddnnidddddddddd", &A, &B, &C, &D, &T0, &T1, &loss, &max_lift, &wacc, &wroc,
                          &wrms, &roc, &rmse, &ca, &cb, &cc, &cd))
        return NULL;
    ext a = A, b = B, c = C, d = D;
    double prec = (double)(a / (a + c + EPS));
    double rec = (double)(a / (a + b + EPS));
    ext acc = (a + d) / ((((a + b) + c) + d) + EPS);
    ext ppv = a / ((a + c) + EPS);
    ext npv = d / ((b + d) + EPS);
    ext sen = a / ((a + b) + EPS);
    ext spc = d / ((c + d) + EPS);
    ext prf = (2.0L * prec * rec) / ((ext)prec + rec + EPS);
    double share = (double)((a + c) / (ext)(double)(T1 + T0));
    ext lft = (a / (ext)(double)T1) / ((ext)share + EPS);
    ext sar = (((ext)wacc * (a + d) / ((((a + b) + c) + d) + EPS) + (ext)wroc * roc + (ext)wrms * (1.0L - rmse))) /
              ((ext)wacc + wroc + wrms + EPS);
    ext cst = (ext)ca * a + (ext)cb * b + (ext)cc * c + (ext)cd * d;
    if (loss) {
        acc = 1.0L - acc;
        ppv = 1.0L - ppv;
        npv = 1.0L - npv;
        sen = 1.0L - sen;
        spc = 1.0L - spc;
        prf = 1.0L - prf;
        lft = ((ext)max_lift - lft) / ((ext)max_lift - 0.0L + EPS);
        sar = 1.0L - sar;
        return Py_BuildValue("(ddddddddddd)", (double)acc, (double)ppv, (double)npv, (double)sen, (double)spc,
                             (double)(1.0L - prec), (double)(1.0L - rec), (double)prf, (double)lft, (double)sar,
                             (double)cst);
    }
    return Py_BuildValue("(ddddddddddd)", (double)acc, (double)ppv, (double)npv, (double)sen, (double)spc, prec, rec,
                         (double)prf, (double)lft, (double)sar, (double)cst);
}

/* div_ext(a, b) -> double(a / b) computed in 80-bit (block means) */
static PyObject *k_div_ext(PyObject *self, PyObject *args)
{
    double a, b;
    if (!PyArg_ParseTuple(args, "dd", &a, &b))
        return NULL;
    return PyFloat_FromDouble((double)((ext)a / (ext)b));
}

/* add_ext(a, b) -> double(a + b) computed in 80-bit */
static PyObject *k_add_ext(PyObject *self, PyObject *args)
{
    double a, b;
    if (!PyArg_ParseTuple(args, "dd", &a, &b))
        return NULL;
    return PyFloat_FromDouble((double)((ext)a + (ext)b));
}

/* midpoint(a, b) -> double((a + b) / 2) computed in 80-bit (freq_thresh) */
static PyObject *k_midpoint(PyObject *self, PyObject *args)
{
    double a, b;
    if (!PyArg_ParseTuple(args, "dd", &a, &b))
        return NULL;
    return PyFloat_FromDouble((double)(((ext)a + (ext)b) / 2.0L));
}

/* c_int_sum(a, b) -> C's (int)(a + b) with the sum in 80-bit; NaN or out of range gives INT_MIN, as
 * the x87 conversion does (the NTOP label) */
static PyObject *k_c_int_sum(PyObject *self, PyObject *args)
{
    double a, b;
    if (!PyArg_ParseTuple(args, "dd", &a, &b))
        return NULL;
    ext v = (ext)a + (ext)b;
    long r;
    if (!(v > -2147483649.0L && v < 2147483648.0L))
        r = -2147483647L - 1;
    else
        r = (long)v;
    return PyLong_FromLong(r);
}

/* range_scan(p, limit) -> (first index with p < 0 or p > 1, first index with p < 0), -1 for none */
static PyObject *k_range_scan(PyObject *self, PyObject *args)
{
    PyObject *po;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "On", &po, &limit))
        return NULL;
    Py_buffer pb;
    Py_ssize_t n;
    if (get_f32(po, &pb, 0, &n) < 0)
        return NULL;
    const float *p = pb.buf;
    if (limit < n)
        n = limit;
    Py_ssize_t out = -1, neg = -1;
    for (Py_ssize_t i = 0; i < n && (out < 0 || neg < 0); i++) {
        if (out < 0 && (p[i] < 0.0f || p[i] > 1.0f))
            out = i;
        if (neg < 0 && p[i] < 0.0f)
            neg = i;
    }
    PyBuffer_Release(&pb);
    return Py_BuildValue("(nn)", out, neg);
}

static PyObject *k_max_lift(PyObject *self, PyObject *args)
{
    Py_ssize_t n, T1;
    if (!PyArg_ParseTuple(args, "nn", &n, &T1))
        return NULL;
    return PyFloat_FromDouble((double)((ext)(double)n * 1.0L / ((ext)(double)T1 + EPS)));
}

/* ------------------------------------------------------------------------------------------------ */
/* modern (float64) kernels over a ScoreHistogram: sequential sums that numpy would need several     */
/* n-sized temporaries for                                                                          */
/* ------------------------------------------------------------------------------------------------ */

static int get_f64(PyObject *obj, Py_buffer *view, Py_ssize_t *n)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (view->itemsize != 8 || !view->format || strcmp(view->format, "d") != 0) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "expected a contiguous float64 array");
        return -1;
    }
    *n = view->len / 8;
    return 0;
}

/* hist_apr(pos, neg) -> sum over tie groups of the expected precision at their positives, walking
 * from the highest score (the arrays are ascending).  Per group of g cases with m positives below a
 * cases of which b are positive: (m/g) ((b + 1) S1 + (m - 1)/(g - 1) S2), S1 = sum_j 1/(a + j),
 * S2 = sum_j (j - 1)/(a + j), j = 1..g. */
/* The APR numerator of the cells [lo, hi) (one group's histogram, ascending scores). */
static double apr_total(const double *pos, const double *neg, Py_ssize_t lo, Py_ssize_t hi)
{
    double total = 0, a = 0, b = 0;
    for (Py_ssize_t i = hi - 1; i >= lo; i--) {
        double m = pos[i], g = m + neg[i];
        if (m > 0) {
            if (g == 1)
                total += (b + 1.0) / (a + 1.0);
            else {
                double s1 = 0, s2 = 0;
                long long gi = (long long)g;
                for (long long j = 1; j <= gi; j++) {
                    double inv = 1.0 / (a + (double)j);
                    s1 += inv;
                    s2 += (double)(j - 1) * inv;
                }
                total += m / g * ((b + 1.0) * s1 + (m - 1.0) / (g - 1.0) * s2);
            }
        }
        a += g;
        b += m;
    }
    return total;
}

static PyObject *k_hist_apr(PyObject *self, PyObject *args)
{
    PyObject *po, *no;
    if (!PyArg_ParseTuple(args, "OO", &po, &no))
        return NULL;
    Py_buffer pb, nb;
    Py_ssize_t n, n2;
    if (get_f64(po, &pb, &n) < 0)
        return NULL;
    if (get_f64(no, &nb, &n2) < 0) {
        PyBuffer_Release(&pb);
        return NULL;
    }
    double total;
    NOGIL_BEGIN
    total = apr_total(pb.buf, nb.buf, 0, n < n2 ? n : n2);
    NOGIL_END
    PyBuffer_Release(&pb);
    PyBuffer_Release(&nb);
    return PyFloat_FromDouble(total);
}

/* hist_apr_groups(pos, neg, bounds) -> bytes of float64: the APR numerator of every group, group k
   being the cells bounds[k]..bounds[k+1] (one call, instead of one call a group from Python). */
static PyObject *k_hist_apr_groups(PyObject *self, PyObject *args)
{
    PyObject *po, *no, *bo;
    if (!PyArg_ParseTuple(args, "OOO", &po, &no, &bo))
        return NULL;
    Py_buffer pb, nb, bb;
    Py_ssize_t n, n2;
    if (get_f64(po, &pb, &n) < 0)
        return NULL;
    if (get_f64(no, &nb, &n2) < 0) {
        PyBuffer_Release(&pb);
        return NULL;
    }
    if (PyObject_GetBuffer(bo, &bb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&pb);
        PyBuffer_Release(&nb);
        return NULL;
    }
    Py_ssize_t nb_ = bb.len / (Py_ssize_t)sizeof(long long), G = nb_ > 0 ? nb_ - 1 : 0;
    const long long *bounds = bb.buf;
    Py_ssize_t cells = n < n2 ? n : n2;
    for (Py_ssize_t k = 0; k <= G && nb_ > 0; k++) {
        if (bounds[k] < 0 || bounds[k] > cells || (k > 0 && bounds[k] < bounds[k - 1])) {
            PyBuffer_Release(&pb);
            PyBuffer_Release(&nb);
            PyBuffer_Release(&bb);
            PyErr_SetString(PyExc_ValueError, "hist_apr_groups: bounds must be ascending cell offsets");
            return NULL;
        }
    }
    PyObject *res = PyBytes_FromStringAndSize(NULL, G * (Py_ssize_t)sizeof(double));
    if (res) {
        double *out = (double *)PyBytes_AS_STRING(res);
        const double *pos = pb.buf, *neg = nb.buf;
        NOGIL_BEGIN
        for (Py_ssize_t k = 0; k < G; k++)
            out[k] = apr_total(pos, neg, bounds[k], bounds[k + 1]);
        NOGIL_END
    }
    PyBuffer_Release(&pb);
    PyBuffer_Release(&nb);
    PyBuffer_Release(&bb);
    return res;
}

/* hist_ca2(scores, pos, neg, S) -> mean over the windows of S consecutive cases (ascending scores) of
 * |positive share - mean score|, each case of a group counting pos/size of a positive.  The running
 * window sums are kept in 80-bit so ten million additions and removals do not drift. */
static PyObject *k_hist_ca2(PyObject *self, PyObject *args)
{
    PyObject *so, *po, *no;
    long long S;
    if (!PyArg_ParseTuple(args, "OOOL", &so, &po, &no, &S))
        return NULL;
    Py_buffer sb, pb, nb;
    Py_ssize_t n, n2, n3;
    if (get_f64(so, &sb, &n) < 0)
        return NULL;
    if (get_f64(po, &pb, &n2) < 0) {
        PyBuffer_Release(&sb);
        return NULL;
    }
    if (get_f64(no, &nb, &n3) < 0) {
        PyBuffer_Release(&sb);
        PyBuffer_Release(&pb);
        return NULL;
    }
    const double *sc = sb.buf, *pos = pb.buf, *neg = nb.buf;
    Py_ssize_t groups = n < n2 ? (n < n3 ? n : n3) : (n2 < n3 ? n2 : n3);
    double result = NAN;
    NOGIL_BEGIN
    /* the window is [head case, tail case]; cases are walked group by group */
    ext wf = 0, ws = 0, err = 0;
    long long count = 0, windows = 0;
    Py_ssize_t tg = 0;      /* group of the case leaving the window */
    long long tleft = 0;    /* cases of that group still inside */
    if (groups > 0)
        tleft = (long long)(pos[0] + neg[0]);
    for (Py_ssize_t hg = 0; hg < groups; hg++) {
        long long size = (long long)(pos[hg] + neg[hg]);
        double frac = size > 0 ? pos[hg] / (double)size : 0.0;
        for (long long c = 0; c < size; c++) {
            wf += frac;
            ws += sc[hg];
            count++;
            if (count >= S) {
                err += fabsl((wf - ws) / (ext)S);
                windows++;
                while (tleft == 0) { /* skip empty groups */
                    tg++;
                    tleft = (long long)(pos[tg] + neg[tg]);
                }
                double tsize = pos[tg] + neg[tg];
                wf -= tsize > 0 ? pos[tg] / tsize : 0.0;
                ws -= sc[tg];
                tleft--;
            }
        }
    }
    if (windows > 0)
        result = (double)(err / (ext)windows);
    NOGIL_END
    PyBuffer_Release(&sb);
    PyBuffer_Release(&pb);
    PyBuffer_Release(&nb);
    return PyFloat_FromDouble(result);
}

/* expected_rr(a, g, m) -> for each tie group (a cases above it, g cases, m >= 1 relevant), the
 * expected reciprocal rank of its first relevant case under a random order: sum over j of
 * P(J = j) / (a + j), P(J = 1) = m/g, P(J = j+1) = P(J = j) (g - j - m + 1)/(g - j).  Each group
 * on its own, so the value does not depend on the other groups evaluated with it. */
static PyObject *k_expected_rr(PyObject *self, PyObject *args)
{
    PyObject *ao, *go, *mo;
    if (!PyArg_ParseTuple(args, "OOO", &ao, &go, &mo))
        return NULL;
    Py_buffer ab, gb, mb;
    Py_ssize_t n, n2, n3;
    if (get_f64(ao, &ab, &n) < 0)
        return NULL;
    if (get_f64(go, &gb, &n2) < 0) {
        PyBuffer_Release(&ab);
        return NULL;
    }
    if (get_f64(mo, &mb, &n3) < 0) {
        PyBuffer_Release(&ab);
        PyBuffer_Release(&gb);
        return NULL;
    }
    if (n2 < n)
        n = n2;
    if (n3 < n)
        n = n3;
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (out) {
        double *o = (double *)PyByteArray_AS_STRING(out);
        const double *a = ab.buf, *g = gb.buf, *m = mb.buf;
        NOGIL_BEGIN
        for (Py_ssize_t i = 0; i < n; i++) {
            double pj = m[i] / g[i], sum = 0;
            long long span = (long long)(g[i] - m[i] + 1);
            for (long long j = 1; j <= span; j++) {
                sum += pj / (a[i] + (double)j);
                pj *= (g[i] - (double)j - m[i] + 1) / (g[i] - (double)j);
            }
            o[i] = sum;
        }
        NOGIL_END
    }
    PyBuffer_Release(&ab);
    PyBuffer_Release(&gb);
    PyBuffer_Release(&mb);
    return out;
}

/* disc_sums(first, stop) -> for each i, the sum over the 0-based positions p in [first[i], stop[i])
 * of 1 / log2(p + 2): the rank discount of DCG summed over a run of positions (a tie, or a run of
 * equal grades in the ideal order).  A function of the two ends only, so a query's DCG is the same
 * whether its rows were in memory or only its summary (counts per score and grade) was: a huge tie
 * costs one pass over its positions, not an array of them.  Summed in 80-bit. */
static PyObject *k_disc_sums(PyObject *self, PyObject *args)
{
    PyObject *fo, *so;
    if (!PyArg_ParseTuple(args, "OO", &fo, &so))
        return NULL;
    Py_buffer fb, sb;
    Py_ssize_t n, n2;
    if (get_f64(fo, &fb, &n) < 0)
        return NULL;
    if (get_f64(so, &sb, &n2) < 0) {
        PyBuffer_Release(&fb);
        return NULL;
    }
    if (n2 < n)
        n = n2;
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (out) {
        double *o = (double *)PyByteArray_AS_STRING(out);
        const double *f = fb.buf, *st = sb.buf;
        NOGIL_BEGIN
        for (Py_ssize_t i = 0; i < n; i++) {
            ext sum = 0;
            long long a = (long long)f[i], b = (long long)st[i];
            for (long long p = a; p < b; p++)
                sum += 1.0 / log2((double)p + 2.0);
            o[i] = (double)sum;
        }
        NOGIL_END
    }
    PyBuffer_Release(&fb);
    PyBuffer_Release(&sb);
    return out;
}

static PyObject *k_mantissa_bits(PyObject *self, PyObject *noargs)
{
    return PyLong_FromLong(LDBL_MANT_DIG);
}


/* ------------------------------------------------------------------------------------------------ */
/* join_ids(key_text, key_start, key_end, sub_text, sub_start, sub_end) -> int64 bytearray or None
 *
 * The competition scorer's join of a submission to its answer key by example id.  Token i of the key
 * is key_text[key_start[i]:key_end[i]] (int64 offsets), likewise for the submission.  Returns perm with
 * perm[i] = the submission row of key id i when the two hold the same ids, each once; None when the key
 * repeats an id, or the submission repeats one, misses one or has one the key lacks (the caller then
 * reads line by line to say which).  Why C: a Python dict join of a million fresh strings costs about
 * half a second, most of it cache misses on boxed strings; an open-addressing table of offsets is a
 * tenth of that. */
static uint64_t tok_hash(const unsigned char *p, int64_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a, then a final mix */
    for (int64_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 31;
    h *= 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

static PyObject *k_join_ids(PyObject *self, PyObject *args)
{
    Py_buffer kt, ks, ke, st, ss, se;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*", &kt, &ks, &ke, &st, &ss, &se))
        return NULL;
    PyObject *result = NULL;
    int64_t nk = ks.len / 8, ns = ss.len / 8;
    int build_only = ns == 0; /* no submission: only check that the key repeats no id */
    if (ke.len != ks.len || se.len != ss.len) {
        PyErr_SetString(PyExc_ValueError, "start and end offsets differ in length");
        goto done;
    }
    if (nk != ns && !build_only) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    int64_t cap = 16;
    while (cap < 2 * nk)
        cap <<= 1;
    const uint64_t mask = (uint64_t)(cap - 1);
    int64_t *table = malloc((size_t)cap * sizeof(int64_t));
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(build_only ? 0 : nk * 8));
    if (!table || !out) {
        free(table);
        Py_XDECREF(out);
        PyErr_NoMemory();
        goto done;
    }
    int64_t *perm = (int64_t *)PyByteArray_AS_STRING(out);
    const unsigned char *kb = kt.buf, *sb = st.buf;
    const int64_t *k0 = ks.buf, *k1 = ke.buf, *s0 = ss.buf, *s1 = se.buf;
    int ok = 1;
    enum { BATCH = 16 }; /* hash a batch and prefetch its slots: the probes are cache misses otherwise */
    uint64_t hs[BATCH];
    NOGIL_BEGIN
    memset(table, 0xff, (size_t)cap * sizeof(int64_t));
    for (int64_t base = 0; base < nk && ok; base += BATCH) {
        int m = nk - base < BATCH ? (int)(nk - base) : BATCH;
        for (int b = 0; b < m; b++) {
            hs[b] = tok_hash(kb + k0[base + b], k1[base + b] - k0[base + b]) & mask;
            __builtin_prefetch(&table[hs[b]], 1);
        }
        for (int b = 0; b < m && ok; b++) {
            int64_t i = base + b, len = k1[i] - k0[i];
            for (uint64_t h = hs[b];; h = (h + 1) & mask) {
                int64_t j = table[h];
                if (j < 0) {
                    table[h] = i;
                    break;
                }
                if (k1[j] - k0[j] == len && memcmp(kb + k0[j], kb + k0[i], (size_t)len) == 0) {
                    ok = 0; /* the key repeats an id */
                    break;
                }
            }
        }
    }
    if (!build_only)
        for (int64_t i = 0; i < nk; i++)
            perm[i] = -1;
    for (int64_t base = 0; base < ns && ok && !build_only; base += BATCH) {
        int m = ns - base < BATCH ? (int)(ns - base) : BATCH;
        for (int b = 0; b < m; b++) {
            hs[b] = tok_hash(sb + s0[base + b], s1[base + b] - s0[base + b]) & mask;
            __builtin_prefetch(&table[hs[b]], 0);
        }
        for (int b = 0; b < m && ok; b++) {
            int64_t i = base + b, len = s1[i] - s0[i];
            for (uint64_t h = hs[b];; h = (h + 1) & mask) {
                int64_t j = table[h];
                if (j < 0) {
                    ok = 0; /* an id the key lacks */
                    break;
                }
                if (k1[j] - k0[j] == len && memcmp(kb + k0[j], sb + s0[i], (size_t)len) == 0) {
                    if (perm[j] >= 0)
                        ok = 0; /* a repeated id */
                    perm[j] = i;
                    break;
                }
            }
        }
    }
    NOGIL_END
    free(table);
    if (ok) {
        result = out; /* as many distinct ids as the key, each in it: every key id is matched */
    } else {
        Py_DECREF(out);
        result = Py_None;
        Py_INCREF(result);
    }
done:
    PyBuffer_Release(&kt);
    PyBuffer_Release(&ks);
    PyBuffer_Release(&ke);
    PyBuffer_Release(&st);
    PyBuffer_Release(&ss);
    PyBuffer_Release(&se);
    return result;
}

/* same_tokens(a_text, a_start, a_end, b_text, b_start, b_end, order) -> bool: token i of a equals
 * token order[i] of b for every i (the block id of each key row against the submission's). */
static PyObject *k_same_tokens(PyObject *self, PyObject *args)
{
    Py_buffer at, as, ae, bt, bs, be, ord;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*", &at, &as, &ae, &bt, &bs, &be, &ord))
        return NULL;
    int64_t n = as.len / 8, nb = bs.len / 8;
    int ok = ae.len == as.len && be.len == bs.len && ord.len == as.len;
    const unsigned char *a = at.buf, *b = bt.buf;
    const int64_t *a0 = as.buf, *a1 = ae.buf, *b0 = bs.buf, *b1 = be.buf, *o = ord.buf;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 0; i < n && ok; i++) {
        int64_t j = o[i], len = a1[i] - a0[i];
        ok = j >= 0 && j < nb && b1[j] - b0[j] == len && memcmp(a + a0[i], b + b0[j], (size_t)len) == 0;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&at);
    PyBuffer_Release(&as);
    PyBuffer_Release(&ae);
    PyBuffer_Release(&bt);
    PyBuffer_Release(&bs);
    PyBuffer_Release(&be);
    PyBuffer_Release(&ord);
    return PyBool_FromLong(ok);
}

/* plain_tokens(data, width) -> (starts, ends) int64 bytearrays, or None
 *
 * The competition scorer's reading of a "plain" file: printable ASCII, blanks, tabs, commas and
 * newlines, a carriage return only right before a newline, no '#', and every line either empty or
 * holding exactly `width` fields.  Returns the byte offsets of every field; None for any other file
 * (the caller then reads it line by line and says what is wrong).  Why C: the same checks as numpy
 * passes cost ten passes over the bytes and ~0.4 s on a 20 MB submission; this is one pass. */
static int plain_scan(const unsigned char *b, Py_ssize_t n, int width, int64_t *starts, int64_t *ends,
                      int64_t *count)
{
    int64_t k = 0;
    int in_tok = 0, on_line = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = b[i];
        if (c == '\n' || c == ' ' || c == '\t' || c == ',' || c == '\r') {
            if (in_tok) {
                if (ends)
                    ends[k - 1] = i;
                in_tok = 0;
            }
            if (c == '\r' && (i + 1 >= n || b[i + 1] != '\n'))
                return 0;
            if (c == '\n') {
                if (on_line != 0 && on_line != width)
                    return 0;
                on_line = 0;
            }
        } else if (c < 0x20 || c > 0x7e || c == '#') {
            return 0;
        } else if (!in_tok) {
            if (starts)
                starts[k] = i;
            k++;
            on_line++;
            in_tok = 1;
        }
    }
    if (in_tok && ends)
        ends[k - 1] = n;
    if (on_line != 0 && on_line != width)
        return 0;
    *count = k;
    return 1;
}

static PyObject *k_plain_tokens(PyObject *self, PyObject *args)
{
    Py_buffer v;
    int width;
    if (!PyArg_ParseTuple(args, "y*i", &v, &width))
        return NULL;
    int64_t k = 0;
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = plain_scan(v.buf, v.len, width, NULL, NULL, &k);
    Py_END_ALLOW_THREADS
    if (!ok) {
        PyBuffer_Release(&v);
        Py_RETURN_NONE;
    }
    PyObject *s = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(k * 8));
    PyObject *e = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(k * 8));
    if (!s || !e) {
        Py_XDECREF(s);
        Py_XDECREF(e);
        PyBuffer_Release(&v);
        return NULL;
    }
    int64_t *sp = (int64_t *)PyByteArray_AS_STRING(s), *ep = (int64_t *)PyByteArray_AS_STRING(e);
    Py_BEGIN_ALLOW_THREADS
    plain_scan(v.buf, v.len, width, sp, ep, &k);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    return Py_BuildValue("(NN)", s, e);
}


/* runs(sorted float64 buffer) -> (distinct values bytearray, counts float64 bytearray)
 * The distinct values of a sorted array and how often each occurs.  Why C: the numpy version
 * (not_equal, flatnonzero, gather, diff) makes five passes and five fresh 80 MB arrays on 10M rows,
 * ~0.45 s of mostly page faults; this is one pass, ~0.03 s. */
static PyObject *k_runs(PyObject *self, PyObject *args)
{
    Py_buffer v;
    if (!PyArg_ParseTuple(args, "y*", &v))
        return NULL;
    const double *x = v.buf;
    Py_ssize_t n = v.len / 8, k = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (i == 0 || x[i] != x[i - 1])
            k++;
    PyObject *vals = PyByteArray_FromStringAndSize(NULL, k * 8);
    PyObject *cnts = PyByteArray_FromStringAndSize(NULL, k * 8);
    if (!vals || !cnts) {
        Py_XDECREF(vals);
        Py_XDECREF(cnts);
        PyBuffer_Release(&v);
        return NULL;
    }
    double *pv = (double *)PyByteArray_AS_STRING(vals), *pc = (double *)PyByteArray_AS_STRING(cnts);
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t j = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i == 0 || x[i] != x[i - 1]) {
            j++;
            pv[j] = x[i] + 0.0; /* -0.0 and 0.0 are one run, kept as +0.0 */
            pc[j] = 0.0;
        }
        pc[j] += 1.0;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    return Py_BuildValue("(NN)", vals, cnts);
}


/* ------------------------------------------------------------------------------------------------ */
/* The bootstrap's random numbers.  Each replicate r has its own stream, seeded from (seed, r) by
 * splitmix64, so a replicate's draws do not depend on how replicates are split over threads or
 * calls.  Generator: xoshiro256** (Blackman & Vigna).  Poisson: inversion for means under 10,
 * Hoermann's PTRS (transformed rejection with squeeze) above.  Why C: 10^9 Poisson draws (1,000
 * replicates of a million cases) take ~40 s in numpy and a few seconds here, fused with the
 * measure so that no replicate's weights are ever stored. */
typedef struct {
    uint64_t s[4];
} rng_t;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void rng_seed(rng_t *g, uint64_t seed, uint64_t replicate)
{
    uint64_t x = seed ^ (replicate * 0xD1342543DE82EF95ULL + 0x2545F4914F6CDD1DULL);
    for (int i = 0; i < 4; i++)
        g->s[i] = splitmix64(&x);
}

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

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

static const double EXP_NEG_INT[10] = {1.0, 0.36787944117144233, 0.1353352832366127, 0.049787068367863944,
                                       0.01831563888873418, 0.006737946999085467, 0.0024787521766663585,
                                       0.0009118819655545162, 0.00033546262790251185, 0.00012340980408667956};

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

/* CDFs of Poisson(1..9) up to k = 47 (past it the tail is below 2^-53 for these means): the common
 * case of a cell of one or a few cases draws with one uniform and a short scan, no division */
#define CDF_LEN 48
static double POIS_CDF[10][CDF_LEN];
static int pois_cdf_ready = 0;

static void pois_cdf_init(void)
{
    for (int lam = 1; lam < 10; lam++) {
        double p = EXP_NEG_INT[lam], F = p;
        POIS_CDF[lam][0] = F;
        for (int k = 1; k < CDF_LEN; k++) {
            p *= (double)lam / k;
            F += p;
            POIS_CDF[lam][k] = k == CDF_LEN - 1 ? 2.0 : F; /* the last entry catches every u */
        }
    }
    pois_cdf_ready = 1;
}

static inline double poisson(rng_t *g, double lam)
{
    if (lam <= 0.0)
        return 0.0;
    if (lam >= 10.0)
        return poisson_ptrs(g, lam);
    if (lam == floor(lam)) {
        /* branch-free for the first 8 values (a scan's mispredicted exits cost more than the draw) */
        const double *F = POIS_CDF[(int)lam];
        double u = rng_uniform(g);
        int k = (u > F[0]) + (u > F[1]) + (u > F[2]) + (u > F[3]) + (u > F[4]) + (u > F[5]) + (u > F[6]) +
                (u > F[7]);
        if (k == 8)
            while (u > F[k])
                k++;
        return (double)k;
    }
    double p = exp(-lam);
    double u = rng_uniform(g), F = p;
    int k = 0;
    while (u > F && k < 200) {
        k++;
        p *= lam / k;
        F += p;
    }
    return (double)k;
}

/* One replicate of a histogram (K cells, ascending scores): pos'[c] ~ Poisson(pos[c]), neg'[c] ~
 * Poisson(neg[c]), drawn cell by cell, positive first.  With out == NULL, returns the ROC area of
 * the replicate (ties half); else stores the counts and returns 0. */
static double boot_hist_one(const double *lp, const double *ln, Py_ssize_t K, uint64_t seed, uint64_t r,
                            double *op, double *on)
{
    rng_t g;
    rng_seed(&g, seed, r);
    double area = 0.0, cneg = 0.0, cpos = 0.0;
    for (Py_ssize_t c = 0; c < K; c++) {
        double p = poisson(&g, lp[c]), q = poisson(&g, ln[c]);
        if (op) {
            op[c] = p;
            on[c] = q;
        } else {
            area += p * (cneg + 0.5 * q);
            cneg += q;
            cpos += p;
        }
    }
    return op ? 0.0 : (cpos > 0 && cneg > 0 ? area / (cpos * cneg) : NAN);
}

typedef struct {
    const double *lp, *ln;
    Py_ssize_t K;
    uint64_t seed;
    int64_t r0, r1, step, first;
    double *out;
} boot_job;

/* Run fn on jobs[0 .. n-1] (each `size` bytes), job t on thread t and job 0 on the caller; a job whose
 * thread cannot be started is run by the caller.  Call without the GIL.  The jobs must not depend on
 * which thread runs them (the bootstrap's replicates are seeded by their number). */
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

#define BOOT_BLOCK 4 /* replicates drawn side by side in one pass over the cells: a quarter of the memory
                        traffic, and four independent chains for the CPU to overlap */

static void *boot_hist_worker(void *arg)
{
    boot_job *j = arg;
    for (int64_t r = j->r0 + j->first * BOOT_BLOCK; r < j->r1; r += j->step * BOOT_BLOCK) {
        int m = j->r1 - r < BOOT_BLOCK ? (int)(j->r1 - r) : BOOT_BLOCK;
        rng_t g[BOOT_BLOCK];
        double area[BOOT_BLOCK] = {0}, cneg[BOOT_BLOCK] = {0}, cpos[BOOT_BLOCK] = {0};
        for (int b = 0; b < m; b++)
            rng_seed(&g[b], j->seed, (uint64_t)(r + b));
        for (Py_ssize_t c = 0; c < j->K; c++) {
            double lp = j->lp[c], ln = j->ln[c];
            for (int b = 0; b < m; b++) { /* each replicate's own stream, in boot_hist_one's order */
                double p = poisson(&g[b], lp), q = poisson(&g[b], ln);
                area[b] += p * (cneg[b] + 0.5 * q);
                cneg[b] += q;
                cpos[b] += p;
            }
        }
        for (int b = 0; b < m; b++)
            j->out[r + b - j->r0] = cpos[b] > 0 && cneg[b] > 0 ? area[b] / (cpos[b] * cneg[b]) : NAN;
    }
    return NULL;
}

/* boot_hist_auc(pos, neg, seed, r0, r1, threads) -> float64 bytearray of the ROC areas of
 * replicates r0..r1-1 */
static PyObject *k_boot_hist_auc(PyObject *self, PyObject *args)
{
    Py_buffer vp, vn;
    unsigned long long seed;
    long long r0, r1;
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*KLLi", &vp, &vn, &seed, &r0, &r1, &threads))
        return NULL;
    Py_ssize_t K = vp.len / 8;
    if (vn.len != vp.len || r1 < r0) {
        PyBuffer_Release(&vp);
        PyBuffer_Release(&vn);
        PyErr_SetString(PyExc_ValueError, "pos and neg differ in length, or r1 < r0");
        return NULL;
    }
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * 8));
    if (!out) {
        PyBuffer_Release(&vp);
        PyBuffer_Release(&vn);
        return NULL;
    }
    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    boot_job jobs[64];
    Py_BEGIN_ALLOW_THREADS
    for (int t = 0; t < threads; t++)
        jobs[t] = (boot_job){vp.buf, vn.buf, K, (uint64_t)seed, r0, r1, threads, t,
                             (double *)PyByteArray_AS_STRING(out)};
    run_jobs(boot_hist_worker, jobs, sizeof(boot_job), threads);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&vp);
    PyBuffer_Release(&vn);
    return out;
}

/* boot_hist_counts(pos, neg, seed, r0, r1) -> (pos', neg') float64 bytearrays, (r1 - r0) x K, the
 * same draws as boot_hist_auc: for measures other than the ROC area */
static PyObject *k_boot_hist_counts(PyObject *self, PyObject *args)
{
    Py_buffer vp, vn;
    unsigned long long seed;
    long long r0, r1;
    if (!PyArg_ParseTuple(args, "y*y*KLL", &vp, &vn, &seed, &r0, &r1))
        return NULL;
    Py_ssize_t K = vp.len / 8;
    if (vn.len != vp.len || r1 < r0) {
        PyBuffer_Release(&vp);
        PyBuffer_Release(&vn);
        PyErr_SetString(PyExc_ValueError, "pos and neg differ in length, or r1 < r0");
        return NULL;
    }
    PyObject *op = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * K * 8));
    PyObject *on = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * K * 8));
    if (!op || !on) {
        Py_XDECREF(op);
        Py_XDECREF(on);
        PyBuffer_Release(&vp);
        PyBuffer_Release(&vn);
        return NULL;
    }
    double *pp = (double *)PyByteArray_AS_STRING(op), *pn = (double *)PyByteArray_AS_STRING(on);
    Py_BEGIN_ALLOW_THREADS
    for (long long r = r0; r < r1; r++)
        boot_hist_one(vp.buf, vn.buf, K, (uint64_t)seed, (uint64_t)r, pp + (r - r0) * K, pn + (r - r0) * K);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&vp);
    PyBuffer_Release(&vn);
    return Py_BuildValue("(NN)", op, on);
}

/* Row-level replicates (weighted data, paired comparisons): replicate r gives case i the weight
 * w[i] * Poisson(1), drawn in case order, so two scores of the same cases get the same weights. */
static void poisson_rows_one(rng_t *g, double *P, Py_ssize_t n)
{
    const double *F = POIS_CDF[1];
    for (Py_ssize_t i = 0; i < n; i++) {
        double u = rng_uniform(g);
        int k = (u > F[0]) + (u > F[1]) + (u > F[2]) + (u > F[3]) + (u > F[4]) + (u > F[5]) + (u > F[6]) +
                (u > F[7]);
        if (k == 8)
            while (u > F[k])
                k++;
        P[i] = (double)k;
    }
}

static void poisson_rows_u8(rng_t *g, uint8_t *P, Py_ssize_t n)
{
    const double *F = POIS_CDF[1]; /* the same draws as poisson_rows_one */
    for (Py_ssize_t i = 0; i < n; i++) {
        double u = rng_uniform(g);
        int k = (u > F[0]) + (u > F[1]) + (u > F[2]) + (u > F[3]) + (u > F[4]) + (u > F[5]) + (u > F[6]) +
                (u > F[7]);
        if (k == 8)
            while (u > F[k])
                k++;
        P[i] = (uint8_t)k;
    }
}

/* poisson_rows(n, seed, r0, r1) -> float64 bytearray (r1 - r0) x n of Poisson(1) case weights */
static PyObject *k_poisson_rows(PyObject *self, PyObject *args)
{
    long long n, r0, r1;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "LKLL", &n, &seed, &r0, &r1))
        return NULL;
    if (n < 0 || r1 < r0) {
        PyErr_SetString(PyExc_ValueError, "n < 0 or r1 < r0");
        return NULL;
    }
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * n * 8));
    if (!out)
        return NULL;
    double *P = (double *)PyByteArray_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    for (long long r = r0; r < r1; r++) {
        rng_t g;
        rng_seed(&g, (uint64_t)seed, (uint64_t)r);
        poisson_rows_one(&g, P + (r - r0) * n, (Py_ssize_t)n);
    }
    Py_END_ALLOW_THREADS
    return out;
}

typedef struct {
    const int64_t *order;   /* cases in ascending score order */
    const int64_t *gend;    /* end (exclusive) of each tie group in that order */
    const uint8_t *cls;     /* class of each case, in case order */
    const double *w;        /* weight of each case, in case order, or NULL */
    Py_ssize_t n, G;
    uint64_t seed;
    int64_t r0, r1, step, first;
    double *out;
    int nmodels;            /* 1 or 2: a second (order, gend) pair follows for paired replicates */
    const int64_t *order2, *gend2;
    Py_ssize_t G2;
    double *out2;
    uint8_t *scratch;       /* n case weights for this thread: Poisson(1) draws fit a byte (the table
                               stops at 47), and a byte per case keeps a million cases in cache */
} rows_job;

static double rows_auc(const int64_t *order, const int64_t *gend, Py_ssize_t G, const uint8_t *cls,
                       const double *w, const uint8_t *P)
{
    double area = 0.0, cneg = 0.0, cpos = 0.0;
    Py_ssize_t j = 0;
    for (Py_ssize_t k = 0; k < G; k++) {
        double p = 0.0, q = 0.0;
        for (; j < gend[k]; j++) {
            int64_t i = order[j];
            double x = w ? w[i] * P[i] : P[i];
            if (cls[i])
                p += x;
            else
                q += x;
        }
        area += p * (cneg + 0.5 * q);
        cneg += q;
        cpos += p;
    }
    return cpos > 0 && cneg > 0 ? area / (cpos * cneg) : NAN;
}

static void *rows_worker(void *arg)
{
    rows_job *j = arg;
    for (int64_t r = j->r0 + j->first; r < j->r1; r += j->step) {
        rng_t g;
        rng_seed(&g, j->seed, (uint64_t)r);
        poisson_rows_u8(&g, j->scratch, j->n);
        j->out[r - j->r0] = rows_auc(j->order, j->gend, j->G, j->cls, j->w, j->scratch);
        if (j->nmodels == 2)
            j->out2[r - j->r0] = rows_auc(j->order2, j->gend2, j->G2, j->cls, j->w, j->scratch);
    }
    return NULL;
}

/* boot_rows_auc(order, gend, cls, w_or_None, seed, r0, r1, threads[, order2, gend2])
 *   -> float64 bytearray of ROC areas (and a second one for the second score when given) */
static PyObject *k_boot_rows_auc(PyObject *self, PyObject *args)
{
    Py_buffer vo, vg, vc, vo2 = {0}, vg2 = {0};
    PyObject *wobj, *o2 = NULL, *g2 = NULL;
    unsigned long long seed;
    long long r0, r1;
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*OKLLi|OO", &vo, &vg, &vc, &wobj, &seed, &r0, &r1, &threads, &o2, &g2))
        return NULL;
    Py_buffer vw = {0};
    int have_w = wobj != Py_None, two = o2 != NULL && g2 != NULL;
    PyObject *out = NULL, *out2 = NULL, *result = NULL;
    uint8_t *scratch = NULL;
    if (have_w && PyObject_GetBuffer(wobj, &vw, PyBUF_SIMPLE) < 0)
        goto fail0;
    if (two && (PyObject_GetBuffer(o2, &vo2, PyBUF_SIMPLE) < 0 || PyObject_GetBuffer(g2, &vg2, PyBUF_SIMPLE) < 0))
        goto fail;
    Py_ssize_t n = vc.len;
    if (vo.len != n * 8 || (have_w && vw.len != n * 8) || (two && vo2.len != n * 8) || r1 < r0) {
        PyErr_SetString(PyExc_ValueError, "order, classes and weights must describe the same cases");
        goto fail;
    }
    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((r1 - r0) * 8));
    out2 = PyByteArray_FromStringAndSize(NULL, two ? (Py_ssize_t)((r1 - r0) * 8) : 0);
    scratch = malloc((size_t)threads * (size_t)(n > 0 ? n : 1));
    if (!out || !out2 || !scratch) {
        PyErr_NoMemory();
        goto fail;
    }
    rows_job jobs[64];
    Py_BEGIN_ALLOW_THREADS
    for (int t = 0; t < threads; t++)
        jobs[t] = (rows_job){vo.buf, vg.buf, vc.buf, have_w ? vw.buf : NULL, n, vg.len / 8, (uint64_t)seed, r0, r1,
                             threads, t, (double *)PyByteArray_AS_STRING(out), two ? 2 : 1,
                             two ? vo2.buf : NULL, two ? vg2.buf : NULL, two ? vg2.len / 8 : 0,
                             two ? (double *)PyByteArray_AS_STRING(out2) : NULL,
                             scratch + (size_t)t * (size_t)(n > 0 ? n : 1)};
    run_jobs(rows_worker, jobs, sizeof(rows_job), threads);
    Py_END_ALLOW_THREADS
    result = two ? Py_BuildValue("(OO)", out, out2) : (Py_INCREF(out), out);
fail:
    if (have_w)
        PyBuffer_Release(&vw);
    if (vo2.obj)
        PyBuffer_Release(&vo2);
    if (vg2.obj)
        PyBuffer_Release(&vg2);
fail0:
    free(scratch);
    Py_XDECREF(out);
    Py_XDECREF(out2);
    PyBuffer_Release(&vo);
    PyBuffer_Release(&vg);
    PyBuffer_Release(&vc);
    return result;
}


/* delong_hist(pos, neg) -> (auc, s10, s01, m, n): DeLong's structural-component variances from a
 * histogram (ascending scores; positive and negative weight per distinct score).  Why C: the numpy
 * form makes eight temporaries the size of the histogram, ~1 s of page faults on 10M distinct scores
 * in a fresh process; this is three passes and no allocation. */
static PyObject *k_delong_hist(PyObject *self, PyObject *args)
{
    Py_buffer vp, vn;
    if (!PyArg_ParseTuple(args, "y*y*", &vp, &vn))
        return NULL;
    if (vp.len != vn.len) {
        PyBuffer_Release(&vp);
        PyBuffer_Release(&vn);
        PyErr_SetString(PyExc_ValueError, "pos and neg differ in length");
        return NULL;
    }
    const double *p = vp.buf, *q = vn.buf;
    Py_ssize_t K = vp.len / 8;
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
    PyBuffer_Release(&vp);
    PyBuffer_Release(&vn);
    return Py_BuildValue("(ddddd)", auc, s10, s01, m, n);
}


/* delong_rows(order, scores, cls, weights_or_None) -> (auc, m, n, comp)
 * Per case, in case order, its DeLong structural component: V10 for a positive, V01 for a negative;
 * order sorts the scores ascending.  Used by the paired test, which needs both models' components of
 * the same case.  Why C: two walks of each tie group write the components straight to their cases,
 * where the numpy form needs six arrays the size of the data (1.9 GB peak on 10M rows, two models). */
static PyObject *k_delong_rows(PyObject *self, PyObject *args)
{
    Py_buffer vo, vs, vc, vw = {0};
    PyObject *wobj;
    if (!PyArg_ParseTuple(args, "y*y*y*O", &vo, &vs, &vc, &wobj))
        return NULL;
    int have_w = wobj != Py_None;
    PyObject *out = NULL, *result = NULL;
    if (have_w && PyObject_GetBuffer(wobj, &vw, PyBUF_SIMPLE) < 0)
        goto done;
    Py_ssize_t n = vc.len;
    if (vo.len != n * 8 || vs.len != n * 8 || (have_w && vw.len != n * 8)) {
        PyErr_SetString(PyExc_ValueError, "order, scores, classes and weights must describe the same cases");
        goto done;
    }
    out = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (!out)
        goto done;
    const int64_t *o = vo.buf;
    const double *sc = vs.buf, *w = have_w ? vw.buf : NULL;
    const uint8_t *c = vc.buf;
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
done:
    Py_XDECREF(out);
    if (have_w)
        PyBuffer_Release(&vw);
    PyBuffer_Release(&vo);
    PyBuffer_Release(&vs);
    PyBuffer_Release(&vc);
    return result;
}


/* boot_hist_compact(pos, neg, seed, r) -> (cells int64, pos', neg') of replicate r, only the cells the
 * replicate drew any case in (the same draws as boot_hist_counts): a replicate summary ready for any
 * measure, without a mask-and-gather pass in numpy. */
static PyObject *k_boot_hist_compact(PyObject *self, PyObject *args)
{
    Py_buffer vp, vn;
    unsigned long long seed, r;
    if (!PyArg_ParseTuple(args, "y*y*KK", &vp, &vn, &seed, &r))
        return NULL;
    Py_ssize_t K = vp.len / 8;
    if (vn.len != vp.len) {
        PyBuffer_Release(&vp);
        PyBuffer_Release(&vn);
        PyErr_SetString(PyExc_ValueError, "pos and neg differ in length");
        return NULL;
    }
    int64_t *ci = malloc((size_t)(K > 0 ? K : 1) * 8);
    double *cp = malloc((size_t)(K > 0 ? K : 1) * 8), *cn = malloc((size_t)(K > 0 ? K : 1) * 8);
    if (!ci || !cp || !cn) {
        free(ci);
        free(cp);
        free(cn);
        PyBuffer_Release(&vp);
        PyBuffer_Release(&vn);
        return PyErr_NoMemory();
    }
    const double *lp = vp.buf, *ln = vn.buf;
    Py_ssize_t k = 0;
    Py_BEGIN_ALLOW_THREADS
    rng_t g;
    rng_seed(&g, (uint64_t)seed, (uint64_t)r);
    for (Py_ssize_t c = 0; c < K; c++) {
        double p = poisson(&g, lp[c]), q = poisson(&g, ln[c]);
        if (p > 0 || q > 0) {
            ci[k] = c;
            cp[k] = p;
            cn[k] = q;
            k++;
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&vp);
    PyBuffer_Release(&vn);
    PyObject *res = Py_BuildValue("(y#y#y#)", (const char *)ci, (Py_ssize_t)(k * 8), (const char *)cp,
                                  (Py_ssize_t)(k * 8), (const char *)cn, (Py_ssize_t)(k * 8));
    free(ci);
    free(cp);
    free(cn);
    return res;
}

static PyMethodDef methods[] = {
    {"parse", k_parse, METH_VARARGS, "Read whitespace/comma separated numbers into float32/int32 columns."},
    {"parse_fd", k_parse_fd, METH_VARARGS, "Read a file descriptor to its end and parse it like parse()."},
    {"parse_table", k_parse_table, METH_VARARGS, "Read a numeric table, one record a line, into float64 columns."},
    {"binarise", k_binarise, METH_VARARGS, "Binarise the targets in place around their mean."},
    {"sort", k_sort, METH_VARARGS, "Sort (targets, predictions) in place exactly as PERF's quicksort does."},
    {"fractions", k_fractions, METH_VARARGS, "Tie fractions (positives / size of each 1e-15 tie chain)."},
    {"acc_sweep", k_acc_sweep, METH_VARARGS, "Accuracy/cost sweep: max_acc_thresh, count, plot."},
    {"confusion", k_confusion, METH_VARARGS, "Confusion counts at a threshold."},
    {"percent_counts", k_percent_counts, METH_VARARGS, "Confusion counts of -percent mode."},
    {"roc", k_roc, METH_VARARGS, "ROC area (and plot)."},
    {"r50", k_r50, METH_VARARGS, "ROC area up to N negatives, PERF's R50."},
    {"lift_plot", k_lift_plot, METH_VARARGS, "Lift plot lines."},
    {"apr", k_apr, METH_VARARGS, "PERF's average precision (and PR plot)."},
    {"ranks", k_ranks, METH_VARARGS, "PRB, TOP1, TOP10, RKL, NTOP."},
    {"slq", k_slq, METH_VARARGS, "SLAC Q-score."},
    {"rms", k_rms, METH_VARARGS, "Root mean squared error."},
    {"cxe", k_cxe, METH_VARARGS, "Mean cross-entropy in bits (rewrites targets, as PERF)."},
    {"nrm", k_nrm, METH_VARARGS, "L_P norm error."},
    {"ca1", k_ca1, METH_VARARGS, "Calibration over 19 overlapping bins."},
    {"ca2", k_ca2, METH_VARARGS, "Sliding-window calibration."},
    {"stats", k_stats, METH_VARARGS, "Threshold statistics of one section."},
    {"add_ext", k_add_ext, METH_VARARGS, "a + b in 80-bit, rounded to double."},
    {"midpoint", k_midpoint, METH_VARARGS, "(a + b) / 2 in 80-bit, rounded to double."},
    {"c_int_sum", k_c_int_sum, METH_VARARGS, "C's (int)(a + b), x86 semantics."},
    {"range_scan", k_range_scan, METH_VARARGS, "First out-of-range and first negative prediction."},
    {"div_ext", k_div_ext, METH_VARARGS, "a / b in 80-bit, rounded to double."},
    {"max_lift", k_max_lift, METH_VARARGS, "n / (T1 + eps) in 80-bit."},
    {"release_cache", k_release_cache, METH_NOARGS, "Unmap the kept scratch buffers."},
    {"zeros", k_zeros, METH_VARARGS, "A zero-filled Buf of n bytes."},
    {"copy", k_copy, METH_VARARGS, "A Buf holding a copy of a buffer."},
    {"hist_apr", k_hist_apr, METH_VARARGS, "Modern APR numerator from a histogram (pos, neg)."},
    {"hist_apr_groups", k_hist_apr_groups, METH_VARARGS, "Modern APR numerators of every group's histogram."},
    {"hist_ca2", k_hist_ca2, METH_VARARGS, "Modern CA2 from a histogram (scores, pos, neg, S)."},
    {"disc_sums", k_disc_sums, METH_VARARGS, "Sums of 1/log2(p + 2) over runs of positions [first, stop)."},
    {"expected_rr", k_expected_rr, METH_VARARGS, "Expected reciprocal rank of the first relevant case per tie group."},
    {"plain_tokens", k_plain_tokens, METH_VARARGS, "Field offsets of a plain file of `width` fields a line, or None."},
    {"same_tokens", k_same_tokens, METH_VARARGS, "Token i of a equals token order[i] of b, for every i."},
    {"boot_hist_auc", k_boot_hist_auc, METH_VARARGS, "ROC areas of Poisson bootstrap replicates of a histogram."},
    {"boot_hist_counts", k_boot_hist_counts, METH_VARARGS, "Poisson bootstrap replicates of a histogram."},
    {"poisson_rows", k_poisson_rows, METH_VARARGS, "Poisson(1) case weights of bootstrap replicates."},
    {"boot_rows_auc", k_boot_rows_auc, METH_VARARGS, "ROC areas of case-level Poisson bootstrap replicates."},
    {"delong_hist", k_delong_hist, METH_VARARGS, "DeLong's structural-component sums from a histogram."},
    {"delong_rows", k_delong_rows, METH_VARARGS, "Each case's DeLong structural component, in case order."},
    {"boot_hist_compact", k_boot_hist_compact, METH_VARARGS, "One replicate of a histogram, its drawn cells only."},
    {"runs", k_runs, METH_VARARGS, "Distinct values of a sorted float64 array and their counts."},
    {"join_ids", k_join_ids, METH_VARARGS, "Join two id columns (text + int64 offsets): the permutation, or None."},
    {"mantissa_bits", k_mantissa_bits, METH_NOARGS, "Significand bits of long double (64 for x87)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_x87", "Compiled kernels of perfeval's classic dialect.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__x87(void)
{
    pois_cdf_init();
    if (PyType_Ready(&BufType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (!m)
        return NULL;
    Py_INCREF(&BufType);
    if (PyModule_AddObject(m, "Buf", (PyObject *)&BufType) < 0) {
        Py_DECREF(&BufType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
