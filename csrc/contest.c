/*
 * perfeval._native, contest.c: the competition scorer's kernels: the join of a submission to its
 * answer key by example id, the comparison of token columns, the one-pass reading of a plain file.
 */
#include "native.h"

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

PyObject *nv_join_ids(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *o[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5]))
        return NULL;
    nv_args in = {0}; /* 0 key text, 1 key starts, 2 key ends, 3 submission text, 4 its starts, 5 its ends */
    for (int k = 0; k < 6; k++)
        if (nv_arg(&in, o[k], k % 3 ? NV_RAW8 : NV_RAW1) < 0)
            return NULL;
    PyObject *result = NULL;
    int64_t nk = in.n[1], ns = in.n[4];
    int build_only = ns == 0; /* no submission: only check that the key repeats no id */
    if (!nv_len_eq(&in, 2, 1) || !nv_len_eq(&in, 5, 4)) {
        nv_args_fail(&in, PyExc_ValueError, "start and end offsets differ in length");
        return NULL;
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
    const unsigned char *kb = in.v[0].buf, *sb = in.v[3].buf;
    const int64_t *k0 = in.v[1].buf, *k1 = in.v[2].buf, *s0 = in.v[4].buf, *s1 = in.v[5].buf;
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
    nv_args_release(&in);
    return result;
}

/* lookup_ids(key, sub, width) -> int64 bytearray
 *
 * The table scorer's match of a submission's ids to the key's: both are records of `width` bytes each
 * (int64 ids: 8; numpy's text of one width: its UCS-4 code units, padded with zeros alike, so equal
 * records are equal ids).  Returns rows with rows[i] = the first key record equal to submission record
 * i, -1 when the key has none.  An open-addressing hash table of the key's records (the first of
 * equal ones kept), probed in batches with prefetching, as join_ids; lookup_ids(key, key, width)[i]
 * != i where key record i repeats an earlier one.  Why C: numpy can only sort text (a million ids:
 * seconds), and a Python dict or pandas' table of a million fresh strings costs the boxing. */
static uint64_t rec_hash(const unsigned char *p, int64_t n)
{
    uint64_t h = 1469598103934665603ULL, word; /* 8 bytes a step (a UCS-4 record is mostly zeros) */
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&word, p + i, 8);
        h = (h ^ word) * 0x100000001B3ULL;
        h ^= h >> 32;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001B3ULL;
    h ^= h >> 31;
    h *= 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

PyObject *nv_lookup_ids(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *o[2];
    Py_ssize_t width;
    if (!PyArg_ParseTuple(args, "OOn", &o[0], &o[1], &width))
        return NULL;
    if (width < 1) {
        PyErr_SetString(PyExc_ValueError, "width must be at least 1");
        return NULL;
    }
    nv_args in = {0}; /* 0 the key's records, 1 the submission's */
    for (int k = 0; k < 2; k++)
        if (nv_arg(&in, o[k], NV_RAW1) < 0)
            return NULL;
    if (in.n[0] % width || in.n[1] % width) {
        nv_args_fail(&in, PyExc_ValueError, "a buffer is not a whole number of records");
        return NULL;
    }
    int64_t nk = in.n[0] / width, ns = in.n[1] / width, w = width;
    int64_t cap = 16;
    while (cap < 2 * nk)
        cap <<= 1;
    const uint64_t mask = (uint64_t)(cap - 1);
    int64_t *table = malloc((size_t)cap * sizeof(int64_t));
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(ns * 8));
    if (!table || !out) {
        free(table);
        Py_XDECREF(out);
        nv_args_release(&in);
        return PyErr_NoMemory();
    }
    int64_t *rows = (int64_t *)PyByteArray_AS_STRING(out);
    const unsigned char *kb = in.v[0].buf, *sb = in.v[1].buf;
    enum { BATCH = 16 };
    uint64_t hs[BATCH];
    NOGIL_BEGIN
    memset(table, 0xff, (size_t)cap * sizeof(int64_t));
    for (int64_t base = 0; base < nk; base += BATCH) {
        int m = nk - base < BATCH ? (int)(nk - base) : BATCH;
        for (int b = 0; b < m; b++) {
            hs[b] = rec_hash(kb + (base + b) * w, w) & mask;
            __builtin_prefetch(&table[hs[b]], 1);
        }
        for (int b = 0; b < m; b++) {
            int64_t i = base + b;
            for (uint64_t h = hs[b];; h = (h + 1) & mask) {
                int64_t j = table[h];
                if (j < 0) {
                    table[h] = i;
                    break;
                }
                if (memcmp(kb + j * w, kb + i * w, (size_t)w) == 0)
                    break; /* a repeated record: the first is kept */
            }
        }
    }
    for (int64_t base = 0; base < ns; base += BATCH) {
        int m = ns - base < BATCH ? (int)(ns - base) : BATCH;
        for (int b = 0; b < m; b++) {
            hs[b] = rec_hash(sb + (base + b) * w, w) & mask;
            __builtin_prefetch(&table[hs[b]], 0);
        }
        for (int b = 0; b < m; b++) {
            int64_t i = base + b;
            rows[i] = -1;
            for (uint64_t h = hs[b];; h = (h + 1) & mask) {
                int64_t j = table[h];
                if (j < 0)
                    break;
                if (memcmp(kb + j * w, sb + i * w, (size_t)w) == 0) {
                    rows[i] = j;
                    break;
                }
            }
        }
    }
    NOGIL_END
    free(table);
    nv_args_release(&in);
    return out;
}

/* same_tokens(a_text, a_start, a_end, b_text, b_start, b_end, order) -> bool: token i of a equals
 * token order[i] of b for every i (the block id of each key row against the submission's). */
PyObject *nv_same_tokens(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ob[7];
    if (!PyArg_ParseTuple(args, "OOOOOOO", &ob[0], &ob[1], &ob[2], &ob[3], &ob[4], &ob[5], &ob[6]))
        return NULL;
    nv_args in = {0}; /* 0 a text, 1 a starts, 2 a ends, 3 b text, 4 b starts, 5 b ends, 6 order */
    for (int k = 0; k < 7; k++)
        if (nv_arg(&in, ob[k], k == 0 || k == 3 ? NV_RAW1 : NV_RAW8) < 0)
            return NULL;
    int64_t n = in.n[1], nb = in.n[4];
    int ok = nv_len_eq(&in, 2, 1) && nv_len_eq(&in, 5, 4) && nv_len_eq(&in, 6, 1);
    const unsigned char *a = in.v[0].buf, *b = in.v[3].buf;
    const int64_t *a0 = in.v[1].buf, *a1 = in.v[2].buf, *b0 = in.v[4].buf, *b1 = in.v[5].buf, *o = in.v[6].buf;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 0; i < n && ok; i++) {
        int64_t j = o[i], len = a1[i] - a0[i];
        ok = j >= 0 && j < nb && b1[j] - b0[j] == len && memcmp(a + a0[i], b + b0[j], (size_t)len) == 0;
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
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

PyObject *nv_plain_tokens(PyObject *Py_UNUSED(self), PyObject *args)
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
