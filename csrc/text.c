/*
 * perfeval._native, text.c: reading numbers: the tokenizer, correctly rounded float32 reading (two
 * threads), the classic reader parse / parse_fd and the modern table reader parse_table.
 */
#include "native.h"
#include <errno.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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
    int comments; /* whether a line whose first non-blank character is '#' is skipped (the default) */
} scanner;

static void scan_init(scanner *sc, const char *s, Py_ssize_t len)
{
    sc->s = s;
    sc->len = len;
    sc->pos = 0;
    sc->line = 1;
    sc->field = 0;
    sc->at_line_start = 1;
    sc->comments = 1;
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
            if (sc->comments && q < len && s[q] == '#') {
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
        char *buf = nv_big_alloc(len + 1);
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
            nv_big_free(buf, len + 1);
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
    char *buf = nv_big_alloc(cap);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    for (;;) {
        if (len == cap) {
            char *nb = nv_big_alloc(cap * 2);
            if (!nb) {
                nv_big_free(buf, cap);
                errno = ENOMEM;
                return -1;
            }
            memcpy(nb, buf, len);
            nv_big_free(buf, cap);
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            nv_big_free(buf, cap);
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
        PyObject *b = nv_buf_new_cap(0, (Py_ssize_t)(rows_cap * 4));
        if (!b) {
            Py_DECREF(lst);
            return NULL;
        }
        cols[c] = (float *)((nv_BufObject *)b)->data;
        PyList_SET_ITEM(lst, c, b);
    }
    j0->ncol = j1->ncol = ncol;
    j0->cols = cols;
    j0->rows_cap = rows_cap;
    if (two) {
        j1->cap = (j1->mem ? (size_t)j1->memlen : (size_t)(j1->end - j1->start)) / 2 + 2;
        j1->vals = nv_big_alloc(j1->cap * sizeof(float));
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
        ((nv_BufObject *)PyList_GET_ITEM(lst, c))->len = (Py_ssize_t)(nrec * 4);
    res = Py_BuildValue("(sNn)", "ok", lst, (Py_ssize_t)total);
done:
    if (two)
        nv_big_free(j1->vals, j1->cap * sizeof(float));
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

/* A number of perfeval.io.grammar (exactly grammar.NUMBER): 0 with *out set (correctly rounded,
 * NaN and the infinities included), 1 when the token is not a number, -1 when out of memory.  The
 * one reader of a float64 token for the TREC reader (trec.c). */
int nv_number(const char *s, Py_ssize_t len, double *out)
{
    if (fast_decimal(s, len, out))
        return 0;
    if (!modern_number_ok(s, len))
        return 1;
    char small[128];
    char *tmp = small;
    if (len >= (Py_ssize_t)sizeof small && !(tmp = malloc((size_t)len + 1)))
        return -1;
    memcpy(tmp, s, (size_t)len);
    tmp[len] = 0;
    *out = strtod(tmp, NULL); /* the grammar leaves strtod nothing to reject */
    if (tmp != small)
        free(tmp);
    return 0;
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

/* One part of a table's body (whole lines) read by parse_table's or parse_delimited's rules: its
 * columns (a float64 array, or for an identity or text column each token's offset << 20 | length,
 * offsets counted from the whole body), its records, and the first error with its line within the
 * part (parse_table) or the reason to give up (parse_delimited). */
typedef struct {
    const char *s; /* the whole body */
    Py_ssize_t off, len; /* the part: s[off .. off + len) */
    int ncol;
    const char *idmask; /* per column: 0 a number, 1 an identity, 2 text (parse_delimited) */
    double **cols;
    int64_t **ioff;
    size_t cap, nrec;
    int reason; /* 0, 1 number, 2 nan, 4 fields, -1 out of memory; parse_delimited: 5 other, 6 text */
    int comments; /* '#' lines skipped (else they are records) */
    int delim;    /* parse_delimited: the delimiter */
    int textcol;  /* parse_delimited, reason 6: the number column that holds a token that is not one */
    Py_ssize_t limit; /* parse_delimited: the csv module's field size limit (0: none) */
    Py_ssize_t err_line, err_field, errlen, lines;
    char errtok[64];
} tjob;

/* the columns' first arrays (-1 when out of memory) */
static int tjob_alloc(tjob *j)
{
    for (int c = 0; c < j->ncol; c++) {
        if (j->idmask && j->idmask[c]) {
            if (!(j->ioff[c] = malloc(j->cap * sizeof(int64_t))))
                return -1;
        } else if (!(j->cols[c] = malloc(j->cap * sizeof(double))))
            return -1;
    }
    return 0;
}

/* room for one more record (-1 when out of memory) */
static inline int tjob_room(tjob *j)
{
    if (j->nrec < j->cap)
        return 0;
    j->cap *= 2;
    for (int c = 0; c < j->ncol; c++) {
        void *nb = j->ioff[c] ? realloc(j->ioff[c], j->cap * sizeof(int64_t))
                              : realloc(j->cols[c], j->cap * sizeof(double));
        if (!nb)
            return -1;
        if (j->ioff[c])
            j->ioff[c] = nb;
        else
            j->cols[c] = nb;
    }
    return 0;
}

static void *table_scan(void *arg)
{
    tjob *j = arg;
    const char *s = j->s;
    int ncol = j->ncol, col = 0;
    Py_ssize_t start = 0, tl = 0, line_of_rec = 0;
    if (tjob_alloc(j) < 0)
        return j->reason = -1, NULL;
    scanner sc;
    scan_init(&sc, s + j->off, j->len);
    sc.comments = j->comments;
    int more;
    while ((more = scan_next(&sc, &start, &tl)) || col) {
        start += j->off;
        if (col && (!more || sc.line != line_of_rec)) { /* the record's line ended early */
            j->reason = 4;
            j->err_line = line_of_rec;
            j->err_field = col;
            j->errlen = snprintf(j->errtok, sizeof j->errtok, "%d", col);
            break;
        }
        if (!more)
            break;
        if (col == 0) {
            line_of_rec = sc.line;
            if (tjob_room(j) < 0)
                return j->reason = -1, NULL;
        }
        int r = 0;
        if (j->ioff[col])
            j->ioff[col][j->nrec] = ((int64_t)start << 20) | (int64_t)(tl < 0xFFFFF ? tl : 0xFFFFF);
        else
            /* a token fast_decimal reads is of the grammar already: the check is for the others */
            r = fast_decimal(s + start, tl, j->cols[col] + j->nrec)       ? 0
                : modern_number_ok(s + start, tl) ? slow_number(s + start, tl, j->cols[col] + j->nrec, 0)
                                                  : 1;
        if (r) {
            j->reason = r;
            j->err_line = sc.line;
            j->err_field = sc.field;
            j->errlen = tl < 60 ? tl : 60;
            memcpy(j->errtok, s + start, (size_t)j->errlen);
            break;
        }
        if (++col == ncol) {
            col = 0;
            j->nrec++;
            /* a token left on the same line is one field too many */
            Py_ssize_t st2, tl2;
            scanner peek = sc;
            if (scan_next(&peek, &st2, &tl2) && peek.line == line_of_rec) {
                j->reason = 4;
                j->err_line = line_of_rec;
                j->err_field = ncol + 1;
                Py_ssize_t extra = ncol;
                while (scan_next(&peek, &st2, &tl2) && peek.line == line_of_rec)
                    extra++;
                j->errlen = snprintf(j->errtok, sizeof j->errtok, "%zd", extra + 1);
                break;
            }
        }
    }
    j->lines = sc.line - 1; /* the line ends the part held (it ends at one, or at the body's end) */
    return NULL;
}

static void tjob_free(tjob *j)
{
    for (int c = 0; c < j->ncol; c++) {
        if (j->cols)
            free(j->cols[c]);
        if (j->ioff)
            free(j->ioff[c]);
    }
    free(j->cols);
    free(j->ioff);
}

/* Two jobs over the body: the first part [0, cut) and the second [cut, len), cut at a line end past
 * the middle of a body of more than 4 MB (else the second is empty).  0, or -1 (no memory). */
static int tjob_pair(tjob j[2], const char *s, Py_ssize_t len, int ncol, const char *idmask)
{
    Py_ssize_t cut = len;
    if (len > (1 << 22)) {
        cut = len / 2;
        while (cut < len && s[cut - 1] != '\n')
            cut++;
    }
    memset(j, 0, 2 * sizeof(tjob));
    for (int k = 0; k < 2; k++) {
        j[k].s = s;
        j[k].ncol = ncol;
        j[k].idmask = idmask;
        j[k].cap = 4096;
        j[k].cols = calloc((size_t)ncol, sizeof(double *));
        j[k].ioff = calloc((size_t)ncol, sizeof(int64_t *));
        if (!j[k].cols || !j[k].ioff)
            return -1;
    }
    j[0].len = cut;
    j[1].off = cut;
    j[1].len = len - cut;
    return 0;
}

/* run both jobs, the second on another thread when it has a part to read (the GIL released) */
static void tjob_run(tjob j[2], void *(*scan)(void *))
{
    int two = j[1].len > 0;
    PyThreadState *ts = PyEval_SaveThread();
    pthread_t th;
    int threaded = two && pthread_create(&th, NULL, scan, &j[1]) == 0;
    scan(&j[0]);
    if (threaded)
        pthread_join(th, NULL);
    else if (two)
        scan(&j[1]);
    PyEval_RestoreThread(ts);
}

/* the offset << 20 | length of record k of column c (of both parts) */
static inline int64_t tjob_token(const tjob j[2], int c, size_t k)
{
    return k < j[0].nrec ? j[0].ioff[c][k] : j[1].ioff[c][k - j[0].nrec];
}

/* A text column as numpy's fixed-width unicode array would hold it: ("ucs4", bytearray of nrec * width
 * UCS4 code units, width), each token decoded as UTF-8 with errors="replace" (a token of ASCII bytes
 * widened as it is, without a Python string), shorter ones padded with zeros.  width >= 1. */
static PyObject *ucs4_column(const tjob j[2], const char *s, int c, size_t nrec)
{
    PyObject **dec = calloc(nrec ? nrec : 1, sizeof(PyObject *));
    if (!dec)
        return PyErr_NoMemory();
    PyObject *res = NULL, *buf = NULL;
    Py_ssize_t width = 1;
    for (size_t k = 0; k < nrec; k++) {
        int64_t o = tjob_token(j, c, k);
        const unsigned char *t = (const unsigned char *)s + (o >> 20);
        Py_ssize_t n = (Py_ssize_t)(o & 0xFFFFF), i = 0;
        while (i < n && t[i] < 0x80)
            i++;
        if (i < n) {
            if (!(dec[k] = PyUnicode_DecodeUTF8((const char *)t, n, "replace")))
                goto done;
            n = PyUnicode_GET_LENGTH(dec[k]);
        }
        if (n > width)
            width = n;
    }
    if ((size_t)width > (size_t)PY_SSIZE_T_MAX / 4 / (nrec ? nrec : 1)) {
        PyErr_NoMemory();
        goto done;
    }
    buf = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(nrec * (size_t)width * 4));
    if (!buf)
        goto done;
    Py_UCS4 *out = (Py_UCS4 *)PyByteArray_AS_STRING(buf);
    memset(out, 0, nrec * (size_t)width * 4);
    for (size_t k = 0; k < nrec; k++) {
        Py_UCS4 *row = out + k * (size_t)width;
        if (dec[k]) {
            Py_ssize_t n = PyUnicode_GET_LENGTH(dec[k]);
            int kind = PyUnicode_KIND(dec[k]);
            const void *data = PyUnicode_DATA(dec[k]);
            for (Py_ssize_t i = 0; i < n; i++)
                row[i] = PyUnicode_READ(kind, data, i);
        } else {
            int64_t o = tjob_token(j, c, k);
            const unsigned char *t = (const unsigned char *)s + (o >> 20);
            Py_ssize_t n = (Py_ssize_t)(o & 0xFFFFF);
            for (Py_ssize_t i = 0; i < n; i++)
                row[i] = t[i];
        }
    }
    res = Py_BuildValue("(sOn)", "ucs4", buf, width);
done:
    Py_XDECREF(buf);
    for (size_t k = 0; k < nrec; k++)
        Py_XDECREF(dec[k]);
    free(dec);
    return res;
}

/* The columns of both parts: [float64 bytearray | ("int", int64 bytearray) | text], text being
 * ("text", [str]) or, with ucs4, ucs4_column's; an identity column is "int" when every token is a
 * plain integer, a text column (idmask 2) always text. */
static PyObject *tjob_columns(const tjob j[2], const char *s, int ncol, int ucs4)
{
    size_t nrec = j[0].nrec + j[1].nrec;
    PyObject *lst = PyList_New(ncol);
    for (int c = 0; lst && c < ncol; c++) {
        PyObject *b = NULL;
        if (!j[0].ioff[c]) {
            b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(nrec * sizeof(double)));
            if (b) {
                char *dst = PyByteArray_AS_STRING(b);
                memcpy(dst, j[0].cols[c], j[0].nrec * sizeof(double));
                if (j[1].nrec)
                    memcpy(dst + j[0].nrec * sizeof(double), j[1].cols[c], j[1].nrec * sizeof(double));
            }
        } else {
            int plain = j[0].idmask[c] == 1;
            if (!plain && !nrec) { /* no record: numbers, as the CSV parser's path reads an empty column */
                b = PyByteArray_FromStringAndSize(NULL, 0);
                goto set;
            }
            int64_t *vals = (int64_t *)malloc((nrec ? nrec : 1) * sizeof(int64_t));
            if (!vals) {
                Py_CLEAR(lst);
                PyErr_NoMemory();
                break;
            }
            for (size_t k = 0; k < nrec && plain; k++) {
                int64_t o = tjob_token(j, c, k);
                plain = plain_int64(s + (o >> 20), (Py_ssize_t)(o & 0xFFFFF), vals + k);
            }
            if (plain) {
                PyObject *buf = PyByteArray_FromStringAndSize((const char *)vals, (Py_ssize_t)(nrec * 8));
                b = buf ? Py_BuildValue("(sN)", "int", buf) : NULL;
            } else if (ucs4) {
                b = ucs4_column(j, s, c, nrec);
            } else {
                PyObject *toks = PyList_New((Py_ssize_t)nrec);
                for (size_t k = 0; toks && k < nrec; k++) {
                    int64_t o = tjob_token(j, c, k);
                    PyObject *t = PyUnicode_DecodeUTF8(s + (o >> 20), (Py_ssize_t)(o & 0xFFFFF), "replace");
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
    set:
        if (!b) {
            Py_CLEAR(lst);
            break;
        }
        PyList_SET_ITEM(lst, c, b);
    }
    return lst ? Py_BuildValue("(sNn)", "ok", lst, (Py_ssize_t)nrec) : NULL;
}

/* parse_table(data, ncol[, idmask[, comments]]) -> ("ok", [column], nrows)
 *                                                | ("error", reason, line, field, token)
 * One record a line, exactly ncol fields each (blank lines skipped, and '#' lines unless comments is
 * 0: after a header they are records).  A column is a
 * float64 bytearray, read by the modern grammar (modern_number_ok); a column whose byte in idmask
 * is non-zero is an identity (a group id): ("int", int64 bytearray) when every token is a plain
 * integer that fits, else ("text", [str tokens as written]).  Reason "number", "nan" or "fields"
 * (then token is the count found).  A body of more than 4 MB is read in two halves (cut at a line
 * end) on two threads: the same columns, and the first error of the body. */
PyObject *nv_parse_table(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer data;
    int ncol;
    const char *idmask = NULL;
    Py_ssize_t idlen = 0;
    int comments = 1;
    if (!PyArg_ParseTuple(args, "y*i|z#p", &data, &ncol, &idmask, &idlen, &comments))
        return NULL;
    if (ncol < 1 || ncol > 65536 || (idmask && idlen != ncol)) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "between 1 and 65536 columns, and an idmask of ncol bytes");
        return NULL;
    }
    const char *s = data.buf;
    tjob j[2];
    if (tjob_pair(j, s, data.len, ncol, idmask) < 0) {
        tjob_free(&j[0]);
        tjob_free(&j[1]);
        PyBuffer_Release(&data);
        return PyErr_NoMemory();
    }
    j[0].comments = j[1].comments = comments;
    tjob_run(j, table_scan);
    PyObject *res = NULL;
    tjob *bad = j[0].reason ? &j[0] : (j[1].reason ? &j[1] : NULL);
    if (bad && bad->reason == -1) {
        res = PyErr_NoMemory();
    } else if (bad) {
        const char *why = bad->reason == 2 ? "nan" : bad->reason == 4 ? "fields" : "number";
        Py_ssize_t line = bad->err_line + (bad == &j[1] ? j[0].lines : 0);
        res = Py_BuildValue("(ssnny#)", "error", why, line, bad->err_field, bad->errtok, bad->errlen);
    } else
        res = tjob_columns(j, s, ncol, 0);
    tjob_free(&j[0]);
    tjob_free(&j[1]);
    PyBuffer_Release(&data);
    return res;
}

/* Whether a field's first (at_end 0) or last (at_end 1) character, as UTF-8, is white space that
 * Python's str.strip() removes: an ASCII control character (tab, line ends, vertical tab, form feed,
 * the separators 0x1c-0x1f; the caller has stripped spaces and tabs) or one of U+0085, U+00A0,
 * U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.  Any control character is counted
 * (the caller only gives up on it). */
static int edge_space(const unsigned char *t, Py_ssize_t n, int at_end)
{
    unsigned char b = at_end ? t[n - 1] : t[0];
    if (b < 0x20 || b == 0x7f)
        return 1;
    if (b < 0x80)
        return 0;
    const unsigned char *q; /* the 2 or 3 bytes of a candidate character */
    if (at_end ? n >= 2 && t[n - 2] == 0xC2 : n >= 2 && t[0] == 0xC2) {
        q = at_end ? t + n - 2 : t;
        return q[1] == 0x85 || q[1] == 0xA0;
    }
    if (n < 3)
        return 0;
    q = at_end ? t + n - 3 : t;
    if (q[0] == 0xE1)
        return q[1] == 0x9A && q[2] == 0x80;
    if (q[0] == 0xE2)
        return (q[1] == 0x80 && ((q[2] >= 0x80 && q[2] <= 0x8A) || q[2] == 0xA8 || q[2] == 0xA9 || q[2] == 0xAF)) ||
               (q[1] == 0x81 && q[2] == 0x9F);
    if (q[0] == 0xE3)
        return q[1] == 0x80 && q[2] == 0x80;
    return 0;
}

/* One part of a delimited body by the rules of parse_delimited. */
static void *delim_scan(void *arg)
{
    tjob *j = arg;
    const unsigned char *s = (const unsigned char *)j->s;
    const unsigned char delim = (unsigned char)j->delim;
    int ncol = j->ncol;
    if (tjob_alloc(j) < 0)
        return j->reason = -1, NULL;
    /* per byte: 1 ends a field (the delimiter, a line end), 2 a quote (the CSV parser's) */
    unsigned char stop[256] = {0};
    stop[delim] = 1;
    stop['\n'] = 1;
    stop['"'] = 2;
    Py_ssize_t pos = j->off, end = j->off + j->len;
    while (pos < end) {
        /* a blank line (spaces and tabs only) holds no record */
        Py_ssize_t q = pos;
        while (q < end && (s[q] == ' ' || s[q] == '\t'))
            q++;
        if (q == end || s[q] == '\n') {
            pos = q + 1;
            continue;
        }
        if (tjob_room(j) < 0)
            return j->reason = -1, NULL;
        int col = 0;
        for (;;) {
            Py_ssize_t a = pos, b = pos, fa, fb;
            if (a < end && s[a] == '"') { /* quoted (the quote first, as the csv module sees one) */
                Py_ssize_t c = a + 1;
                while (c < end && s[c] != '"' && s[c] != '\n')
                    c++;
                if (c >= end || s[c] != '"')
                    return j->reason = 5, NULL; /* a record of several lines, or no closing quote */
                b = c + 1;
                if (b < end && s[b] != delim && s[b] != '\n')
                    return j->reason = 5, NULL; /* an escaped quote (""), or text after the quote */
                fa = a + 1;
                fb = c;
            } else {
                while (b < end && !stop[s[b]])
                    b++;
                if (b < end && stop[s[b]] == 2)
                    return j->reason = 5, NULL; /* a quote inside a field: the csv module's to read */
                fa = a;
                fb = b;
            }
            if (col == ncol || (j->limit && b - a >= j->limit))
                return j->reason = 5, NULL; /* a field too many, or one the csv module may refuse */
            /* the field without the spaces and tabs around it */
            while (fa < fb && (s[fa] == ' ' || s[fa] == '\t'))
                fa++;
            while (fb > fa && (s[fb - 1] == ' ' || s[fb - 1] == '\t'))
                fb--;
            Py_ssize_t n = fb - fa;
            if (n >= 0xFFFFF || (n && (edge_space(s + fa, n, 0) || edge_space(s + fa, n, 1))))
                return j->reason = 5, NULL; /* huge, or other white space at an edge */
            if (j->ioff[col])
                j->ioff[col][j->nrec] = ((int64_t)fa << 20) | (int64_t)n; /* "" too */
            else if (n == 0) { /* an empty field: its column is text (the field ""), as the CSV parser's */
                j->textcol = col;
                return j->reason = 6, NULL;
            } else {
                double *v = j->cols[col] + j->nrec;
                const char *t = (const char *)s + fa;
                if (!fast_decimal(t, n, v)) {
                    if (!modern_number_ok(t, n)) {
                        j->textcol = col;
                        return j->reason = 6, NULL;
                    }
                    char small[128];
                    char *tmp = n < (Py_ssize_t)sizeof small ? small : malloc((size_t)n + 1);
                    if (!tmp)
                        return j->reason = -1, NULL;
                    memcpy(tmp, t, (size_t)n);
                    tmp[n] = 0;
                    *v = strtod(tmp, NULL); /* NaN too: a number of the grammar, as float() reads it */
                    if (tmp != small)
                        free(tmp);
                }
            }
            col++;
            pos = b + 1;
            if (b >= end || s[b] == '\n')
                break;
        }
        if (col != ncol)
            return j->reason = 5, NULL; /* a field too few */
        j->nrec++;
    }
    return NULL;
}

/* parse_delimited(data, delim, kinds[, limit]) -> ("ok", [column], nrows) | ("text", column) | ("other",)
 * A CSV/TSV body as the CSV parser's path of perfeval.io.tables reads it: a record a line (a line
 * of spaces and tabs only is blank), its fields the delimiter's pieces without the spaces and tabs
 * around them, a field that starts with a quote read to its closing quote (which the delimiter or
 * the line's end follows); no comment lines (the caller sends no '#' line that would be one).
 * limit: the csv module's field size limit when it reads the body (a field of limit bytes or more
 * is left to it).
 * kinds, a byte a column: 0 a number column (a float64 bytearray; NaN allowed), 1 an identity
 * (("int", int64 bytearray) when every token is a plain integer, else text), 2 text; text is
 * ("ucs4", bytearray, width), numpy's unicode array of the tokens.  ("text", c): number column c
 * holds a token that is not a number, or an empty field (call again with kinds[c] = 2: an empty
 * field is the text "", as the CSV parser's path reads it).  ("other",): what the CSV parser must
 * read (it also finds the error): an escaped quote (""), a quote inside a field, a quoted line
 * end, a record of another field count, other white space at a field's edge (Python's strip would
 * remove it), a field of 1 MB.
 * A body of more than 4 MB is read in two halves on two threads. */
PyObject *nv_parse_delimited(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer data;
    int delim;
    const char *kinds = NULL;
    Py_ssize_t ncol = 0, limit = 0;
    if (!PyArg_ParseTuple(args, "y*Cy#|n", &data, &delim, &kinds, &ncol, &limit))
        return NULL;
    if (ncol < 1 || ncol > 65536 || delim < 1 || delim > 127 || delim == '\n' || delim == '"') {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "between 1 and 65536 columns, and an ASCII delimiter");
        return NULL;
    }
    for (Py_ssize_t c = 0; c < ncol; c++)
        if (kinds[c] < 0 || kinds[c] > 2) {
            PyBuffer_Release(&data);
            PyErr_SetString(PyExc_ValueError, "kinds: a byte 0, 1 or 2 a column");
            return NULL;
        }
    const char *s = data.buf;
    tjob j[2];
    if (tjob_pair(j, s, data.len, (int)ncol, kinds) < 0) {
        tjob_free(&j[0]);
        tjob_free(&j[1]);
        PyBuffer_Release(&data);
        return PyErr_NoMemory();
    }
    j[0].delim = j[1].delim = delim;
    j[0].limit = j[1].limit = limit > 0 ? limit : 0;
    tjob_run(j, delim_scan);
    PyObject *res;
    int r0 = j[0].reason, r1 = j[1].reason;
    if (r0 == -1 || r1 == -1)
        res = PyErr_NoMemory();
    else if (r0 == 5 || r1 == 5)
        res = Py_BuildValue("(s)", "other");
    else if (r0 == 6 || r1 == 6)
        res = Py_BuildValue("(si)", "text", r0 == 6 ? j[0].textcol : j[1].textcol);
    else
        res = tjob_columns(j, s, (int)ncol, 1);
    tjob_free(&j[0]);
    tjob_free(&j[1]);
    PyBuffer_Release(&data);
    return res;
}

/* fast_csv_ok(data, delim) -> whether the compiled table reader reads this CSV/TSV body exactly as a
 * CSV parser would: only the bytes of numbers, line ends and the delimiter (no quote, blank, comment
 * or other text), no empty field (two delimiters together, one at a line's start or end or at the
 * body's ends).  One pass without the GIL (it was a bytes.translate and five searches). */
PyObject *nv_fast_csv_ok(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer data;
    int delim;
    if (!PyArg_ParseTuple(args, "y*C", &data, &delim))
        return NULL;
    const unsigned char *s = data.buf;
    Py_ssize_t n = data.len;
    unsigned char ok[256] = {0};
    for (const char *c = "0123456789+-.eEinfatyINFATY\n"; *c; c++)
        ok[(unsigned char)*c] = 1;
    ok[(unsigned char)delim] = 2;
    int good = 1;
    Py_BEGIN_ALLOW_THREADS
    if (n > 0 && (s[0] == delim || s[n - 1] == delim))
        good = 0;
    unsigned char prev = '\n';
    for (Py_ssize_t i = 0; good && i < n; i++) {
        unsigned char c = s[i], k = ok[c];
        if (!k || (k == 2 && (prev == delim || prev == '\n')) || (c == '\n' && prev == delim))
            good = 0;
        prev = c;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return PyBool_FromLong(good);
}

/* parse_fd(fd, pattern): read the whole of a file descriptor (no Python copy) and parse it */
PyObject *nv_parse_fd(PyObject *self, PyObject *args)
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
            res = nv_parse(self, a);
            Py_DECREF(a);
        }
        Py_DECREF(view);
    }
    nv_big_free(buf, cap);
    return res;
}

/* parse(data, pattern) -> ("ok", [column bytearrays], ntokens)
 *                       | ("error", reason, line, field, token_bytes)
 * pattern: one letter a column, 'f' (float32) or 'i' (int32); tokens fill the columns in turn, as a
 * stream (line ends do not matter), like the original's scanf loop.  A line whose first non-blank
 * character is '#' is skipped.  Missing fields of a last, incomplete record are 0. */
PyObject *nv_parse(PyObject *Py_UNUSED(self), PyObject *args)
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
