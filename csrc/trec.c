/*
 * perfeval._native, trec.c: reading TREC qrels and runs (perfeval.io.trec) in one pass over the bytes:
 * the lines split into blank-separated fields, the field count checked, the numbers read, the query
 * and document ids dictionary-encoded into int64 codes whose order is the ids' byte order.
 *
 * Why C: a run of 100,000 queries x 100 documents is 10,000,000 lines; splitting them in Python and
 * building numpy str arrays of every row's ids takes 2.3 s per million lines, most of it creating
 * 20 million short-lived str objects.  Here each id is hashed where it lies in the input and only
 * the distinct ids (a vocabulary) ever become text of the output.
 *
 * How: the input is cut into two halves at a line end, one thread each (inputs above 4 MiB).  A
 * half is split into fields 64 bytes at a time (bit masks, no branch per byte), its numbers read,
 * its ids looked up in its own hash tables (a batch of lines at a time, the slots prefetched; a
 * query id equal to the previous line's is not looked up) and written as half-local codes straight
 * into the result columns, where the half's rows go (the line ends, counted first, say where).  Each
 * half then sorts its distinct ids; the two sorted vocabularies are merged, and the codes mapped to
 * positions in the merged one.  Errors are kept per kind, the first of each, so that the one
 * reported is the one the pure-Python reader reported.
 */
#include "native.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "trec.c reads ids 8 bytes at a time as little-endian words"
#endif

/* ------------------------------------------------------------------------------------------------ */
/* scratch memory                                                                                    */
/* ------------------------------------------------------------------------------------------------ */

/* p (malloc'd, *cap bytes) with room for `need` bytes: realloc to twice as many until they fit (a
 * large block grows where it is mapped, no copy); NULL when out of memory (p kept). */
static void *room(void *p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return p;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need)
        nc *= 2;
    void *q = realloc(p, nc);
    if (q)
        *cap = nc;
    return q;
}

/* ------------------------------------------------------------------------------------------------ */
/* the dictionary of ids: open addressing, ids up to 16 bytes held in the slot                      */
/* ------------------------------------------------------------------------------------------------ */

#define SW 2 /* words of an id held in its slot */
#define INLINE (8 * SW)

/* An id's key: its first SW words (zero-padded) and a hash of all of it.  A slot holds
 * the key's words (an id of up to 16 bytes whole); the rest of a longer id is compared in the
 * arena.  An id never ends with a NUL byte (the reader drops trailing NULs, as numpy's str arrays
 * do), so two ids of at most 8 * SW bytes with the same words are the same id. */
typedef struct {
    uint64_t w[SW];
    uint64_t h;
} idkey;

typedef struct {
    uint64_t w[SW];
    uint32_t tag;  /* the hash's high half; bit 0 set when the id is longer than INLINE bytes */
    uint32_t code; /* EMPTY: a free slot */
} slot;

typedef struct {
    int64_t off, len; /* the id is arena[off, off + len) */
    uint64_t h;
} entry;

#define EMPTY UINT32_MAX

/* The distinct ids of one part in order of first appearance (their codes), each copied into an arena
 * when first seen: sorting and merging them later reads a few MB, not the whole input. */
typedef struct {
    slot *tab;
    uint64_t mask;
    size_t tabbytes;
    entry *ent;
    size_t entbytes;
    int64_t n;
    unsigned char *arena;
    size_t arenabytes;
    int64_t used;
    int full; /* out of memory, or 2^32 - 1 distinct ids */
} iddict;

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* the first n (< 8) bytes of p as a zero-padded word; `end` bounds what may be read */
static inline uint64_t tail_word(const unsigned char *p, int64_t n, const unsigned char *end)
{
    uint64_t w = 0;
    if (end - p >= 8) {
        memcpy(&w, p, 8);
        return n ? w & (~0ULL >> (64 - 8 * n)) : 0;
    }
    memcpy(&w, p, (size_t)n);
    return w;
}

static inline uint64_t word_at(const unsigned char *p, int64_t n, const unsigned char *end)
{
    uint64_t w = 0;
    if (n >= 8)
        memcpy(&w, p, 8);
    else if (n > 0)
        w = tail_word(p, n, end);
    return w;
}

static inline void make_key(const unsigned char *p, int64_t n, const unsigned char *end, idkey *k)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
    for (int j = 0; j < SW; j++) {
        uint64_t w = word_at(p + 8 * j, n - 8 * j, end);
        k->w[j] = w;
        h = (h ^ w) * 0x87c37b91114253d5ULL;
        h ^= h >> 31;
    }
    for (int64_t j = INLINE; j < n; j += 8) {
        h = (h ^ word_at(p + j, n - j, end)) * 0x87c37b91114253d5ULL;
        h ^= h >> 31;
    }
    k->h = mix64(h);
}

static inline uint32_t key_tag(const idkey *k, int64_t n)
{
    return ((uint32_t)(k->h >> 32) & ~1u) | (n > INLINE);
}

static int dict_init(iddict *d, int64_t slots)
{
    memset(d, 0, sizeof *d);
    d->tabbytes = (size_t)slots * sizeof(slot);
    d->tab = nv_big_alloc(d->tabbytes);
    if (!d->tab)
        return -1;
    memset(d->tab, 0xff, d->tabbytes);
    d->mask = (uint64_t)slots - 1;
    d->entbytes = 64 * sizeof(entry);
    d->arenabytes = 4096;
    d->ent = malloc(d->entbytes);
    d->arena = malloc(d->arenabytes);
    return d->ent && d->arena ? 0 : -1;
}

static void dict_free(iddict *d)
{
    nv_big_free(d->tab, d->tabbytes);
    free(d->ent);
    free(d->arena);
    d->tab = NULL;
    d->ent = NULL;
    d->arena = NULL;
}

/* twice the slots, the ids placed again: read in code order from the entries and the arena (in
 * order, not a cache miss each), written where their hashes say */
static int dict_grow(iddict *d)
{
    uint64_t slots = (d->mask + 1) * 2, mask = slots - 1;
    size_t bytes = (size_t)slots * sizeof(slot);
    slot *tab = nv_big_alloc(bytes);
    if (!tab)
        return -1;
    memset(tab, 0xff, bytes);
    const unsigned char *end = d->arena + d->used;
    for (int64_t c = 0; c < d->n; c++) {
        const entry *e = &d->ent[c];
        idkey k;
        for (int j = 0; j < SW; j++)
            k.w[j] = word_at(d->arena + e->off + 8 * j, e->len - 8 * j, end);
        k.h = e->h;
        uint64_t i = k.h & mask;
        while (tab[i].code != EMPTY)
            i = (i + 1) & mask;
        memcpy(tab[i].w, k.w, sizeof k.w);
        tab[i].tag = key_tag(&k, e->len);
        tab[i].code = (uint32_t)c;
    }
    nv_big_free(d->tab, d->tabbytes);
    d->tab = tab;
    d->tabbytes = bytes;
    d->mask = mask;
    return 0;
}

/* the code of the id p[0, n) (with key k), a new one when it is new; EMPTY when full */
static inline uint32_t dict_code(iddict *d, const unsigned char *p, int64_t n, const idkey *k)
{
    uint32_t tag = key_tag(k, n);
    for (uint64_t i = k->h & d->mask;; i = (i + 1) & d->mask) {
        slot *s = &d->tab[i];
        if (s->code == EMPTY) {
            if (d->full || d->n >= (int64_t)EMPTY - 1 || n >= (int64_t)UINT32_MAX) {
                d->full = 1;
                return EMPTY;
            }
            entry *ent = room(d->ent, &d->entbytes, (size_t)(d->n + 1) * sizeof(entry));
            unsigned char *arena = ent ? room(d->arena, &d->arenabytes, (size_t)(d->used + n)) : NULL;
            if (!arena) {
                if (ent)
                    d->ent = ent;
                d->full = 1;
                return EMPTY;
            }
            d->ent = ent;
            d->arena = arena;
            memcpy(arena + d->used, p, (size_t)n);
            uint32_t c = (uint32_t)d->n++;
            ent[c] = (entry){d->used, n, k->h};
            d->used += n;
            memcpy(s->w, k->w, sizeof s->w);
            s->tag = tag;
            s->code = c;
            if ((uint64_t)d->n * 2 > d->mask && dict_grow(d) < 0) /* a load of 1/2 at most */
                d->full = 1;
            return c;
        }
        if (s->tag == tag && memcmp(s->w, k->w, sizeof s->w) == 0) {
            if (!(tag & 1))
                return s->code;
            const entry *e = &d->ent[s->code];
            if (e->len == n && memcmp(d->arena + e->off + INLINE, p + INLINE, (size_t)(n - INLINE)) == 0)
                return s->code;
        }
    }
}

/* ------------------------------------------------------------------------------------------------ */
/* byte order of ids: the vocabularies sorted                                                        */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    uint64_t key;       /* the id's first 8 bytes, big-endian: the order of their bytes */
    int64_t off;        /* the id in the arena */
    uint32_t code, len; /* its code and length */
} sortrec;

/* the sort works in the dictionary's slots, of no use once every id is in: two sortrecs an id fit
 * (a load of 1/2 at most) */
typedef char sortrec_fits_in_a_slot[sizeof(sortrec) <= sizeof(slot) ? 1 : -1];

/* how many ids ahead the walks over sorted ids prefetch an id's bytes in the arena */
#define PREFETCH 16

/* the n > 0 bytes at p (at most 8 of them) as a big-endian word, zero-padded: their byte order */
static inline uint64_t be_word(const unsigned char *p, int64_t n)
{
    uint64_t w = 0;
    if (n >= 8)
        memcpy(&w, p, 8);
    else
        for (int64_t k = 0; k < n; k++)
            w |= (uint64_t)p[k] << (8 * k);
    return __builtin_bswap64(w);
}

/* the order of two ids of one arena (or of two, with b_arena): 8 bytes at a time, inline (ids that
 * share their first bytes by the hundred are the usual case, "doc1234567") */
static inline int rec_order(const sortrec *a, const unsigned char *a_arena, const sortrec *b,
                            const unsigned char *b_arena)
{
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    int64_t la = a->len, lb = b->len;
    const unsigned char *pa = a_arena + a->off, *pb = b_arena + b->off;
    for (int64_t k = 8; k < la && k < lb; k += 8) {
        uint64_t x = be_word(pa + k, la - k), y = be_word(pb + k, lb - k);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return (la > lb) - (la < lb); /* equal words: the shorter is a prefix (no id ends with NUL) */
}

static int rec_cmp(const void *x, const void *y, void *arg)
{
    const unsigned char *arena = arg;
    return rec_order(x, arena, y, arena);
}

/* a record of a group of ids with the same first 8 bytes, keyed by their next 8 (big-endian) */
typedef struct {
    uint64_t key2;
    uint32_t len, at; /* the id's length, its place in the group */
} subrec;

static inline int sub_less(const subrec *x, const subrec *y, const sortrec *g, const unsigned char *arena)
{
    if (x->key2 != y->key2)
        return x->key2 < y->key2;
    if (x->len <= 16 && y->len <= 16) /* the whole ids: equal words, no id ends with NUL */
        return x->len < y->len;
    return rec_order(&g[x->at], arena, &g[y->at], arena) < 0;
}

static void sub_sort(subrec *s, int64_t m, const sortrec *g, const unsigned char *arena)
{
    while (m > 16) { /* quicksort, median of three, the smaller side by recursion */
        subrec *lo = s, *mid = s + m / 2, *hi = s + m - 1, t;
        if (sub_less(mid, lo, g, arena))
            t = *mid, *mid = *lo, *lo = t;
        if (sub_less(hi, mid, g, arena)) {
            t = *hi, *hi = *mid, *mid = t;
            if (sub_less(mid, lo, g, arena))
                t = *mid, *mid = *lo, *lo = t;
        }
        subrec pivot = *mid;
        int64_t i = 0, j = m - 1;
        for (;;) {
            while (sub_less(&s[i], &pivot, g, arena))
                i++;
            while (sub_less(&pivot, &s[j], g, arena))
                j--;
            if (i >= j)
                break;
            t = s[i], s[i] = s[j], s[j] = t;
            i++;
            j--;
        }
        int64_t left = j + 1; /* s[0, left) <= pivot <= s[left, m) */
        if (left < m - left) {
            sub_sort(s, left, g, arena);
            s += left;
            m -= left;
        } else {
            sub_sort(s + left, m - left, g, arena);
            m = left;
        }
    }
    for (int64_t i = 1; i < m; i++) { /* insertion sort of the short rest */
        subrec x = s[i];
        int64_t j = i;
        for (; j > 0 && sub_less(&x, &s[j - 1], g, arena); j--)
            s[j] = s[j - 1];
        s[j] = x;
    }
}

/* m > 1 ids g[0, m) with equal first 8 bytes put in byte order: by their next 8 bytes (read once
 * into sub[0, m)), then their lengths or the rest of their bytes; tmp has room for m records.  Why
 * not qsort_r: ids like "doc1234567" share their first 8 bytes by the hundred, and a comparison
 * through a function pointer and memcmp took a fifth of the reading of such a run. */
static void sort_group(sortrec *g, int64_t m, const unsigned char *arena, subrec *sub, sortrec *tmp)
{
    for (int64_t i = 0; i < m; i++) {
        if (i + PREFETCH < m)
            __builtin_prefetch(arena + g[i + PREFETCH].off + 8, 0);
        int64_t len = g[i].len;
        uint64_t w = 0;
        if (len > 8)
            memcpy(&w, arena + g[i].off + 8, (size_t)(len - 8 < 8 ? len - 8 : 8));
        sub[i] = (subrec){__builtin_bswap64(w), g[i].len, (uint32_t)i};
    }
    sub_sort(sub, m, g, arena);
    for (int64_t i = 0; i < m; i++)
        tmp[i] = g[sub[i].at];
    memcpy(g, tmp, (size_t)m * sizeof(sortrec));
}

/* The ids of d in byte order, as (first 8 bytes, arena offset, code, length) records: an LSD radix
 * sort of the first 8 bytes (bytes equal in every id skipped), then each run of equal first 8 bytes
 * by comparison.  The records are written over d's slots: d finds no id after this. */
static sortrec *sort_ids(iddict *d)
{
    int64_t n = d->n;
    sortrec *a = (sortrec *)d->tab, *b = a + n;
    d->mask = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t len = d->ent[i].len;
        uint64_t w = 0;
        memcpy(&w, d->arena + d->ent[i].off, (size_t)(len < 8 ? len : 8));
        a[i].key = __builtin_bswap64(w);
        a[i].off = d->ent[i].off;
        a[i].len = (uint32_t)len;
        a[i].code = (uint32_t)i;
    }
    int64_t cnt[256];
    for (int byte = 0; byte < 8 && n; byte++) {
        memset(cnt, 0, sizeof cnt);
        int shift = 8 * byte;
        for (int64_t i = 0; i < n; i++)
            cnt[(a[i].key >> shift) & 0xff]++;
        if (cnt[(a[0].key >> shift) & 0xff] == n)
            continue; /* every id has this byte */
        int64_t pos = 0;
        for (int v = 0; v < 256; v++) {
            int64_t c = cnt[v];
            cnt[v] = pos;
            pos += c;
        }
        for (int64_t i = 0; i < n; i++)
            b[cnt[(a[i].key >> shift) & 0xff]++] = a[i];
        sortrec *t = a;
        a = b;
        b = t;
    }
    subrec *sub = NULL;
    sortrec *tmp = NULL;
    int64_t cap = 0;
    for (int64_t i = 0; i < n;) {
        int64_t j = i + 1;
        while (j < n && a[j].key == a[i].key)
            j++;
        if (j - i > 1) {
            if (j - i > cap && (sub || !cap)) {
                free(sub);
                free(tmp);
                cap = 2 * (j - i);
                sub = malloc((size_t)cap * sizeof(subrec));
                tmp = malloc((size_t)cap * sizeof(sortrec));
                if (!sub || !tmp) { /* no scratch: qsort_r from here on */
                    free(sub);
                    free(tmp);
                    sub = NULL;
                    tmp = NULL;
                }
            }
            if (sub && j - i <= cap)
                sort_group(a + i, j - i, d->arena, sub, tmp);
            else
                qsort_r(a + i, (size_t)(j - i), sizeof(sortrec), rec_cmp, d->arena);
        }
        i = j;
    }
    free(sub);
    free(tmp);
    return a;
}

/* code points of a UTF-8 string as Python's strict decoder reads it; -1 when it is not UTF-8.  With
 * dst, the code points are written there. */
static int64_t utf8_decode(const unsigned char *s, int64_t n, uint32_t *dst)
{
    int64_t i = 0, k = 0;
    while (i < n) {
        uint32_t c = s[i], cp;
        int more;
        if (c < 0x80) {
            if (dst)
                dst[k] = c;
            k++;
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            cp = c & 0x1F;
            more = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            cp = c & 0x0F;
            more = 2;
        } else if (c >= 0xF0 && c <= 0xF4) {
            cp = c & 0x07;
            more = 3;
        } else
            return -1;
        if (n - i <= more)
            return -1;
        for (int j = 1; j <= more; j++) {
            unsigned char b = s[i + j];
            if ((b & 0xC0) != 0x80)
                return -1;
            if (j == 1 && ((c == 0xE0 && b < 0xA0) || (c == 0xED && b > 0x9F) || (c == 0xF0 && b < 0x90) ||
                           (c == 0xF4 && b > 0x8F)))
                return -1; /* overlong, a surrogate, or past U+10FFFF */
            cp = (cp << 6) | (b & 0x3F);
        }
        if (dst)
            dst[k] = cp;
        k++;
        i += more + 1;
    }
    return k;
}

/* the widest id of d in code points (1 at least: numpy's narrowest str is '<U1'), or -1 when an id is
 * not UTF-8; the ids read in the arena in order */
static int64_t dict_width(const iddict *d)
{
    int64_t width = 1;
    for (int64_t c = 0; c < d->n; c++) {
        const unsigned char *p = d->arena + d->ent[c].off;
        int64_t len = d->ent[c].len;
        unsigned char high = 0;
        for (int64_t j = 0; j < len; j++)
            high |= p[j];
        int64_t k = high < 0x80 ? len : utf8_decode(p, len, NULL); /* ASCII: a code point a byte */
        if (k < 0)
            return -1;
        if (k > width)
            width = k;
    }
    return width;
}

/* ------------------------------------------------------------------------------------------------ */
/* one part of the input: a range of whole lines, read by one thread                                */
/* ------------------------------------------------------------------------------------------------ */

#define MAXF 16  /* fields of a line at most (the pattern's length) */
#define MAXNUM 4 /* numeric fields at most */
#define BATCH 32 /* records tokenised before their document ids are looked up (prefetched) */

typedef struct {
    /* input */
    const unsigned char *base; /* the whole buffer, of lim bytes */
    int64_t start, end, lim;   /* this part's bytes: whole lines */
    int nf, qf, df, tf, nnum;
    int numf[MAXNUM];
    char kind[MAXNUM]; /* the pattern's letter of each number field: n, f or i */
    /* rows: written at row0 + [0, maxrows) of the result columns */
    int64_t row0, maxrows, n;
    int64_t *qc, *dc; /* part-local codes until the vocabularies are merged */
    void *num[MAXNUM];
    iddict qd, dd;
    sortrec *qorder, *dorder; /* the ids in byte order (in the dictionaries' slots) */
    int64_t qwidth, dwidth;   /* the widest id in code points, -1 when an id is not UTF-8 */
    int64_t lines;            /* line ends in the part */
    int64_t tag_off, tag_len; /* the first row's tag */
    int tag_same;             /* every row has that tag */
    /* the first error of each kind (line 0: none), lines counted from the part's start */
    int64_t ferr_line, ferr_found;
    int64_t nerr_line[MAXNUM], nerr_off[MAXNUM], nerr_len[MAXNUM];
    int64_t ierr_line[MAXNUM];
    double ierr_val[MAXNUM];
    int oom;
} part;

/* 0 a byte of a field, 1 a blank (as bytes.split: space, \t, \r, \v, \f), 2 a line end */
static unsigned char CLS[256];
static void cls_init(void)
{
    CLS[' '] = CLS['\t'] = CLS['\r'] = CLS['\v'] = CLS['\f'] = 1;
    CLS['\n'] = 2;
}

/* line ends in s[0, n): eight bytes at a time (a zero byte of w ^ "\n\n\n\n\n\n\n\n" is a line end) */
static int64_t count_lines(const unsigned char *s, int64_t n)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, nl = 0x0a0a0a0a0a0a0a0aULL;
    int64_t total = 0, i = 0;
    while (i + 8 <= n) {
        uint64_t acc = 0; /* eight byte-wide counters, at most 255 each */
        for (int k = 0; k < 255 && i + 8 <= n; k++, i += 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            uint64_t x = w ^ nl;
            acc += (~(((x & low7) + low7) | x) & ~low7) >> 7;
        }
        acc = (acc & 0x00ff00ff00ff00ffULL) + ((acc >> 8) & 0x00ff00ff00ff00ffULL); /* four 16-bit sums */
        total += (int64_t)((acc * 0x0001000100010001ULL) >> 48);
    }
    for (; i < n; i++)
        total += s[i] == '\n';
    return total;
}

static void *part_count(void *arg)
{
    part *p = arg;
    p->lines = count_lines(p->base + p->start, p->end - p->start);
    return NULL;
}

/* the value of a float64 cast to int64 as numpy casts it on x86-64: truncated, INT64_MIN when NaN or
 * out of range */
static inline int64_t as_int64(double v)
{
    return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? (int64_t)v : INT64_MIN;
}

typedef struct {
    int64_t off[MAXF], len[MAXF];
    int64_t line;
} rec;

/* the blank-or-line-end mask and the line-end mask of the 64 bytes at p (bit k: byte k) */
static inline void masks64(const unsigned char *p, uint64_t *sep, uint64_t *nl)
{
    uint64_t sm = 0, nm = 0;
#ifdef __SSE2__
    const __m128i blank = _mm_set1_epi8(' '), nine = _mm_set1_epi8(9), four = _mm_set1_epi8(4),
                  lf = _mm_set1_epi8('\n');
    for (int k = 0; k < 4; k++) { /* a space, or one of \t \n \v \f \r (9 to 13) */
        __m128i x = _mm_loadu_si128((const __m128i *)(p + 16 * k)), t = _mm_sub_epi8(x, nine);
        __m128i m = _mm_or_si128(_mm_cmpeq_epi8(x, blank), _mm_cmpeq_epi8(_mm_min_epu8(t, four), t));
        sm |= (uint64_t)(unsigned)_mm_movemask_epi8(m) << (16 * k);
        nm |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, lf)) << (16 * k);
    }
#else
    for (int k = 0; k < 64; k++) {
        sm |= (uint64_t)(CLS[p[k]] != 0) << k;
        nm |= (uint64_t)(p[k] == '\n') << k;
    }
#endif
    *sep = sm;
    *nl = nm;
}

#define CHUNK (1 << 16) /* bytes of input split into fields at a time (then extended to a line end) */

/* The fields and line ends of s[a, b) (b just after a line end, or the end of the input), as offsets
 * from a: edges holds each field's start and end (its first blank or line end) in turn, ends each line
 * end, and b itself when the last line has no line end.  Sixty-four bytes at a time as bit masks: no
 * branch per byte or per field.  Returns the number of edges; *nends the number of ends. */
static int64_t split_chunk(const unsigned char *s, int64_t a, int64_t b, int64_t lim, uint32_t *edges, uint32_t *ends,
                           int64_t *nends)
{
    int64_t n = b - a, ne = 0, nn = 0;
    uint64_t carry = 1; /* the byte before a is a separator */
    for (int64_t o = 0; o < n; o += 64) {
        uint64_t sep, nl;
        if (a + o + 64 <= lim)
            masks64(s + a + o, &sep, &nl);
        else { /* the input's last bytes, padded with blanks */
            unsigned char tmp[64];
            memset(tmp, ' ', sizeof tmp);
            memcpy(tmp, s + a + o, (size_t)(lim - a - o));
            masks64(tmp, &sep, &nl);
        }
        if (o + 64 > n) { /* bytes past b: separators, no line end */
            uint64_t past = ~0ULL << (n - o);
            sep |= past;
            nl &= ~past;
        }
        uint64_t prev = (sep << 1) | carry;
        carry = sep >> 63;
        for (uint64_t e = sep ^ prev; e; e &= e - 1) /* a field starts or ends where sep changes */
            edges[ne++] = (uint32_t)(o + __builtin_ctzll(e));
        for (; nl; nl &= nl - 1)
            ends[nn++] = (uint32_t)(o + __builtin_ctzll(nl));
    }
    if (!carry) /* cannot happen: bytes past b are separators */
        edges[ne++] = (uint32_t)n;
    if (n && s[b - 1] != '\n')
        ends[nn++] = (uint32_t)n;
    *nends = nn;
    return ne;
}

/* the same bytes: a[0, n) and b[0, n), short ones compared as two words */
static inline int same_bytes(const unsigned char *a, const unsigned char *b, int64_t n, const unsigned char *end)
{
    if (n <= 16)
        return word_at(a, n, end) == word_at(b, n, end) && word_at(a + 8, n - 8, end) == word_at(b + 8, n - 8, end);
    return memcmp(a, b, (size_t)n) == 0;
}

static void part_records(part *p, rec *rb, int nb, idkey *dk)
{
    const unsigned char *base = p->base, *end = base + p->end;
    for (int k = 0; k < nb; k++) {
        make_key(base + rb[k].off[p->df], rb[k].len[p->df], end, &dk[k]);
        __builtin_prefetch(&p->dd.tab[dk[k].h & p->dd.mask], 0);
    }
    for (int k = 0; k < nb; k++) { /* the numbers and the tag while the slots arrive */
        rec *r = &rb[k];
        int64_t row = p->row0 + p->n + k;
        for (int c = 0; c < p->nnum; c++) {
            int f = p->numf[c];
            double v;
            int bad = nv_number((const char *)base + r->off[f], r->len[f], &v);
            if (bad < 0) {
                p->oom = 1;
                v = NAN;
            } else if (bad) {
                v = NAN;
                if (!p->nerr_line[c]) {
                    p->nerr_line[c] = r->line;
                    p->nerr_off[c] = r->off[f];
                    p->nerr_len[c] = r->len[f];
                }
            } else if (p->kind[c] == 'f' && !isfinite(v) && !p->ierr_line[c]) {
                p->ierr_line[c] = r->line;
                p->ierr_val[c] = v;
            }
            if (p->kind[c] == 'i')
                ((int64_t *)p->num[c])[row] = as_int64(v);
            else
                ((double *)p->num[c])[row] = v;
        }
        if (p->tf >= 0) {
            int64_t o = r->off[p->tf], l = r->len[p->tf];
            if (p->n + k == 0) {
                p->tag_off = o;
                p->tag_len = l;
            } else if (p->tag_same && (l != p->tag_len || !same_bytes(base + o, base + p->tag_off, l, end)))
                p->tag_same = 0;
        }
    }
    /* the previous row's query id again (a run lists a query's rows together): no lookup */
    int64_t lq = EMPTY, lq_off = 0, lq_len = -1;
    for (int k = 0; k < nb; k++) {
        rec *r = &rb[k];
        int64_t row = p->row0 + p->n + k;
        int64_t o = r->off[p->qf], l = r->len[p->qf];
        if (!(l == lq_len && same_bytes(base + o, base + lq_off, l, end))) {
            idkey qk;
            make_key(base + o, l, end, &qk);
            lq = dict_code(&p->qd, base + o, l, &qk);
            lq_off = o;
            lq_len = l;
        }
        p->qc[row] = lq;
        p->dc[row] = dict_code(&p->dd, base + r->off[p->df], r->len[p->df], &dk[k]);
    }
    p->n += nb;
    if (p->qd.full || p->dd.full)
        p->oom = 1;
}

static void *part_run(void *arg)
{
    part *p = arg;
    const unsigned char *s = p->base;
    int64_t line = 1, cap = 0;
    uint32_t *edges = NULL, *ends = NULL;
    rec rb[BATCH];
    idkey dk[BATCH];
    int nb = 0;
    p->tag_same = 1;
    for (int64_t a = p->start, b; a < p->end && !p->oom && !p->ferr_line; a = b) {
        b = a + CHUNK < p->end ? a + CHUNK : p->end;
        while (b < p->end && s[b - 1] != '\n')
            b++;
        if (b - a >= (int64_t)UINT32_MAX) { /* offsets in a chunk are 32-bit: a line of 4 GiB is too long */
            p->oom = 1;
            break;
        }
        if (b - a + 2 > cap) {
            free(edges);
            free(ends);
            cap = 2 * (b - a + 2);
            edges = malloc((size_t)cap * sizeof(uint32_t));
            ends = malloc((size_t)cap * sizeof(uint32_t));
            if (!edges || !ends) {
                p->oom = 1;
                break;
            }
        }
        int64_t nends, ne = split_chunk(s, a, b, p->lim, edges, ends, &nends), t = 0;
        for (int64_t k = 0; k < nends; k++) {
            rec *r = &rb[nb];
            int nt = 0;
            for (; t < ne && edges[t] < ends[k]; t += 2, nt++)
                if (nt < MAXF) {
                    r->off[nt] = a + edges[t];
                    r->len[nt] = (int64_t)edges[t + 1] - edges[t];
                }
            if (nt) {
                if (nt != p->nf) {
                    p->ferr_line = line;
                    p->ferr_found = nt;
                    break;
                }
                if (p->n + nb >= p->maxrows) { /* cannot happen: maxrows counts the part's lines */
                    p->oom = 1;
                    break;
                }
                /* an id is its text as numpy's str arrays hold it: without trailing NUL characters */
                while (r->len[p->qf] && s[r->off[p->qf] + r->len[p->qf] - 1] == 0)
                    r->len[p->qf]--;
                while (r->len[p->df] && s[r->off[p->df] + r->len[p->df] - 1] == 0)
                    r->len[p->df]--;
                r->line = line;
                if (++nb == BATCH) {
                    part_records(p, rb, nb, dk);
                    nb = 0;
                }
            }
            line++; /* also past the last line when it has no line end: lines is not used then */
        }
    }
    free(edges);
    free(ends);
    if (nb && !p->ferr_line && !p->oom)
        part_records(p, rb, nb, dk);
    if (p->ferr_line || p->oom)
        return NULL;
    p->qwidth = dict_width(&p->qd);
    p->dwidth = dict_width(&p->dd);
    p->qorder = sort_ids(&p->qd);
    p->dorder = sort_ids(&p->dd);
    return NULL;
}

static void part_free(part *p)
{
    dict_free(&p->qd);
    dict_free(&p->dd);
    p->qorder = p->dorder = NULL; /* in the dictionaries' slots */
}

/* ------------------------------------------------------------------------------------------------ */
/* the parts' vocabularies merged, checked as UTF-8 and written as numpy str (UCS-4) arrays          */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    const unsigned char *p;
    int64_t len;
} idref;

typedef struct {
    idref *v;   /* the distinct ids of every part in byte order */
    int64_t n;
    size_t vbytes;
    int64_t *map[2]; /* per part: local code -> position in v */
    size_t mapbytes[2];
} vocab;

static void vocab_free(vocab *w)
{
    nv_big_free(w->v, w->vbytes);
    for (int t = 0; t < 2; t++)
        nv_big_free(w->map[t], w->mapbytes[t]);
    memset(w, 0, sizeof *w);
}

/* Merge the sorted vocabularies of the parts (np <= 2) into one (which: 0 query ids, 1 document ids):
 * ids compared by their first 8 bytes and lengths, in the arenas only when longer.  -1: no memory. */
static int merge_vocab(part *parts, int np, int which, vocab *out)
{
    memset(out, 0, sizeof *out);
    const iddict *d[2] = {NULL, NULL};
    const sortrec *ord[2] = {NULL, NULL};
    int64_t total = 0, pos[2] = {0, 0}, n[2] = {0, 0};
    for (int t = 0; t < np; t++) {
        d[t] = which ? &parts[t].dd : &parts[t].qd;
        ord[t] = which ? parts[t].dorder : parts[t].qorder;
        n[t] = d[t]->n;
        total += n[t];
        out->mapbytes[t] = (size_t)(n[t] ? n[t] : 1) * sizeof(int64_t);
        if (!(out->map[t] = nv_big_alloc(out->mapbytes[t])))
            return -1;
    }
    out->vbytes = (size_t)(total ? total : 1) * sizeof(idref);
    if (!(out->v = nv_big_alloc(out->vbytes)))
        return -1;
    int64_t g = 0;
    while (pos[0] < n[0] || pos[1] < n[1]) {
        int c; /* < 0: part 0's next id first, > 0: part 1's, 0: the same id */
        if (pos[1] == n[1])
            c = -1;
        else if (pos[0] == n[0])
            c = 1;
        else {
            /* the ids a few steps ahead: the arenas are in order of first appearance, read here in
             * byte order (a cache miss each, otherwise) */
            for (int u = 0; u < np; u++)
                if (pos[u] + PREFETCH < n[u])
                    __builtin_prefetch(d[u]->arena + ord[u][pos[u] + PREFETCH].off, 0);
            c = rec_order(&ord[0][pos[0]], d[0]->arena, &ord[1][pos[1]], d[1]->arena);
        }
        int t = c <= 0 ? 0 : 1;
        const sortrec *r = &ord[t][pos[t]];
        out->v[g] = (idref){d[t]->arena + r->off, r->len};
        if (c <= 0)
            out->map[0][ord[0][pos[0]++].code] = g;
        if (c >= 0)
            out->map[1][ord[1][pos[1]++].code] = g;
        g++;
    }
    out->n = g;
    return 0;
}

/* (Buf of n * width UCS-4 code points, zero-padded, width): numpy's '<U{width}' */
static PyObject *vocab_array(const vocab *w, int64_t width)
{
    Py_ssize_t bytes = (Py_ssize_t)(w->n * width * 4);
    PyObject *b = nv_buf_new_cap(bytes, bytes);
    if (!b)
        return NULL;
    uint32_t *dst = (uint32_t *)((nv_BufObject *)b)->data;
    for (int64_t i = 0; i < w->n; i++) {
        if (i + PREFETCH < w->n)
            __builtin_prefetch(w->v[i + PREFETCH].p, 0);
        const unsigned char *p = w->v[i].p;
        int64_t len = w->v[i].len, k = 0;
        uint32_t *o = dst + i * width;
        unsigned char high = 0;
        for (int64_t j = 0; j < len; j++)
            high |= p[j];
        if (high < 0x80) /* ASCII, the usual id: one code point a byte */
            for (; k < len; k++)
                o[k] = p[k];
        else
            k = utf8_decode(p, len, o);
        for (; k < width; k++)
            o[k] = 0;
    }
    return Py_BuildValue("(NL)", b, (long long)width);
}

/* ------------------------------------------------------------------------------------------------ */
/* a (query, document) pair given twice                                                              */
/* ------------------------------------------------------------------------------------------------ */

/* The first (query, document) pair, in code order, that rows give twice: rows *a < *b are its first
 * two.  1 found, 0 none, -1 no memory.  Codes must lie in [0, nq) and [0, nd).  One pass when each
 * query's rows are together (a mark per document: the last query that listed it), else the rows are
 * first grouped by query (a stable counting sort). */
static int first_duplicate(const int64_t *q, const int64_t *d, int64_t n, int64_t nq, int64_t nd, int64_t *a,
                           int64_t *b)
{
    if (n < 2)
        return 0;
    int64_t *mark = malloc((size_t)(nd ? nd : 1) * sizeof(int64_t));
    unsigned char *seen = calloc((size_t)(nq ? nq : 1), 1);
    if (!mark || !seen) {
        free(mark);
        free(seen);
        return -1;
    }
    memset(mark, 0xff, (size_t)(nd ? nd : 1) * sizeof(int64_t));
    int64_t bq = INT64_MAX, bd = INT64_MAX, brow = -1, gstart = 0;
    int together = 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t qi = q[i], di = d[i];
        if (i == 0 || qi != q[i - 1]) {
            if (seen[qi]) {
                together = 0;
                break;
            }
            seen[qi] = 1;
            gstart = i;
        }
        if (mark[di] == qi) {
            if (qi < bq || (qi == bq && di < bd)) {
                bq = qi;
                bd = di;
                brow = i;
                *a = gstart; /* the first row of the group with this document, found below */
            }
        } else
            mark[di] = qi;
    }
    int found = 0;
    if (together) {
        if (brow >= 0) {
            for (int64_t j = *a; j < brow; j++)
                if (d[j] == bd) {
                    *a = j;
                    break;
                }
            *b = brow;
            found = 1;
        }
        free(mark);
        free(seen);
        return found;
    }
    free(seen);
    /* the rows grouped by query, in code order, each group's rows in input order */
    int64_t *start = calloc((size_t)nq + 1, sizeof(int64_t)), *rows = malloc((size_t)n * sizeof(int64_t));
    if (!start || !rows) {
        free(start);
        free(rows);
        free(mark);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        start[q[i] + 1]++;
    for (int64_t g = 0; g < nq; g++)
        start[g + 1] += start[g];
    for (int64_t i = 0; i < n; i++)
        rows[start[q[i]]++] = i;
    memset(mark, 0xff, (size_t)(nd ? nd : 1) * sizeof(int64_t));
    /* start[g] is now the end of group g */
    for (int64_t g = 0, lo = 0; g < nq && !found; lo = start[g], g++) {
        int64_t hi = start[g];
        bd = INT64_MAX;
        for (int64_t k = lo; k < hi; k++) {
            int64_t di = d[rows[k]];
            if (mark[di] == g) {
                if (di < bd) {
                    bd = di;
                    *b = rows[k];
                }
            } else
                mark[di] = g;
        }
        if (bd != INT64_MAX) {
            for (int64_t k = lo; k < hi; k++)
                if (d[rows[k]] == bd) {
                    *a = rows[k];
                    break;
                }
            found = 1;
        }
    }
    free(start);
    free(rows);
    free(mark);
    return found;
}

/* the 1-based lines of records ra <= rb (records counted as the reader counts them) */
static void record_lines(const unsigned char *s, int64_t len, int64_t ra, int64_t rb, int64_t *la, int64_t *lb)
{
    int64_t rec = 0, line = 1;
    int on = 0;
    for (int64_t i = 0; i < len; i++) {
        unsigned char c = s[i];
        if (c == '\n') {
            line++;
            on = 0;
        } else if (!on && CLS[c] == 0) {
            on = 1;
            if (rec == ra)
                *la = line;
            if (rec == rb) {
                *lb = line;
                return;
            }
            rec++;
        }
    }
}

/* ------------------------------------------------------------------------------------------------ */
/* trec_read                                                                                         */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    int64_t *qc, *dc;
    int64_t lo, hi;
    const int64_t *qm, *dm;
} remapjob;

static void *remap_run(void *arg)
{
    remapjob *j = arg;
    for (int64_t i = j->lo; i < j->hi; i++) {
        j->qc[i] = j->qm[j->qc[i]];
        j->dc[i] = j->dm[j->dc[i]];
    }
    return NULL;
}

/* fn over parts[0] and, in a second thread, parts[1] */
static void both_parts(void *(*fn)(void *), part *parts, int np)
{
    pthread_t th;
    int threaded = np == 2 && pthread_create(&th, NULL, fn, &parts[1]) == 0;
    fn(&parts[0]);
    if (threaded)
        pthread_join(th, NULL);
    else if (np == 2)
        fn(&parts[1]);
}

/* trec_read(data, pattern) -> ("ok", qcode, dcode, (qvocab, qwidth), (dvocab, dwidth), [numbers], tag)
 *                           | (error kind, line, field, detail)
 *
 * data: the bytes of a qrels or run file.  pattern: one letter a field of a line, "qxdf" for qrels
 * and "qxdift" for runs: q the query id, d the document id, n a number, f a number that must be
 * finite, i a number kept as int64 (truncated, as numpy's astype(np.int64) of the float64 gives it on
 * x86-64), t the run's tag, x a field read and ignored.  Lines split at \n; fields are separated by
 * blanks (space, \t, \r, \v, \f) as bytes.split() separates them; blank lines are skipped.
 *
 * On success: qcode, dcode are int64 Bufs, each row's position in the sorted vocabulary; a
 * vocabulary is a Buf of UCS-4 text, numpy's '<U{width}' (the distinct ids in byte order, which for
 * UTF-8 is code point order, numpy's order); numbers, one Buf a number field in field order (float64,
 * int64 for i); tag, the bytes of the tag when every row has the same one, else None.  An id is the
 * field without trailing NUL bytes (numpy's str arrays drop trailing NUL characters).
 *
 * Else an error (kind, line, field, detail), of the first kind in this order (the order in which the
 * pure-Python reader found them); lines and fields are 1-based, 0 where none applies:
 *   ("fields", line, 0, found)           the first line without len(pattern) fields
 *   ("utf8", 0, field, None)             an id that is not UTF-8 (field: the id's)
 *   ("number", line, field, token)       the first token of a number field (in field order) that is
 *                                        not a number of perfeval.io.grammar, as bytes
 *   ("finite", line, field, value)       the first non-finite value of an "f" field
 *   ("duplicate", line, 0, (first_line, qid, docid))   the first (qid, docid) pair, in id order,
 *                                        that two lines give: its second line, its first one
 *
 * Inputs above 4 MiB are read by two threads, each a half of the lines with its own dictionaries; the
 * halves' sorted vocabularies are then merged. */
PyObject *nv_trec_read(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer data;
    const char *pat;
    if (!PyArg_ParseTuple(args, "y*s", &data, &pat))
        return NULL;
    int nf = (int)strlen(pat), qf = -1, df = -1, tf = -1, nnum = 0, numf[MAXNUM];
    char kind[MAXNUM];
    int bad = nf < 1 || nf > MAXF;
    for (int f = 0; f < nf && !bad; f++) {
        char c = pat[f];
        if (c == 'q' && qf < 0)
            qf = f;
        else if (c == 'd' && df < 0)
            df = f;
        else if (c == 't' && tf < 0)
            tf = f;
        else if ((c == 'n' || c == 'f' || c == 'i') && nnum < MAXNUM) {
            numf[nnum] = f;
            kind[nnum++] = c;
        } else if (c != 'x')
            bad = 1;
    }
    if (bad || qf < 0 || df < 0) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "pattern: at most 16 letters of q, d, n, f, i, t, x with one q and one d");
        return NULL;
    }
    if (!CLS['\n'])
        cls_init();
    const unsigned char *s = data.buf;
    int64_t len = data.len;
    /* two parts for inputs above 4 MiB, cut after a line end near the middle */
    int64_t cut = len;
    if (len > (1 << 22)) {
        cut = len / 2;
        while (cut < len && s[cut - 1] != '\n')
            cut++;
    }
    int np = cut < len ? 2 : 1;
    part parts[2];
    memset(parts, 0, sizeof parts);
    vocab voc[2];
    memset(voc, 0, sizeof voc);
    PyObject *res = NULL, *qc = NULL, *dc = NULL, *numbufs[MAXNUM] = {0};
    for (int t = 0; t < np; t++) {
        part *p = &parts[t];
        p->base = s;
        p->start = t ? cut : 0;
        p->end = t || np == 1 ? len : cut;
        p->lim = len;
        p->nf = nf;
        p->qf = qf;
        p->df = df;
        p->tf = tf;
        p->nnum = nnum;
        memcpy(p->numf, numf, sizeof numf);
        memcpy(p->kind, kind, sizeof kind);
    }
    /* 1. the line ends of each part: its rows go after the previous part's lines */
    Py_BEGIN_ALLOW_THREADS
    both_parts(part_count, parts, np);
    Py_END_ALLOW_THREADS
    int64_t rows = 0;
    for (int t = 0; t < np; t++) {
        part *p = &parts[t];
        p->row0 = rows;
        p->maxrows = p->lines + (p->end > p->start && s[p->end - 1] != '\n');
        rows += p->maxrows;
    }
    qc = nv_buf_new_cap(0, (Py_ssize_t)(rows * 8));
    dc = qc ? nv_buf_new_cap(0, (Py_ssize_t)(rows * 8)) : NULL;
    if (!dc)
        goto fail;
    for (int c = 0; c < nnum; c++)
        if (!(numbufs[c] = nv_buf_new_cap(0, (Py_ssize_t)(rows * 8))))
            goto fail;
    for (int t = 0; t < np; t++) {
        part *p = &parts[t];
        p->qc = (int64_t *)((nv_BufObject *)qc)->data;
        p->dc = (int64_t *)((nv_BufObject *)dc)->data;
        for (int c = 0; c < nnum; c++)
            p->num[c] = ((nv_BufObject *)numbufs[c])->data;
        /* documents: room for a distinct id every 8 lines from the start (growing the table from
         * small costs as much memory again, and rehashing) */
        int64_t slots = 1 << 14;
        while (slots < p->maxrows / 4 && slots < ((int64_t)1 << 40))
            slots *= 2;
        if (dict_init(&p->qd, 1024) < 0 || dict_init(&p->dd, slots) < 0) {
            PyErr_NoMemory();
            goto fail;
        }
    }
    /* 2. the parts read: rows with part-local codes, each part's vocabularies sorted */
    Py_BEGIN_ALLOW_THREADS
    both_parts(part_run, parts, np);
    Py_END_ALLOW_THREADS
    int64_t lines0 = parts[0].lines; /* part 1's line k is line lines0 + k */
    /* a line with the wrong number of fields */
    for (int t = 0; t < np; t++)
        if (parts[t].ferr_line) {
            res = Py_BuildValue("(sLiL)", "fields", (long long)(parts[t].ferr_line + (t ? lines0 : 0)), 0,
                                (long long)parts[t].ferr_found);
            goto done;
        }
    if (parts[0].oom || (np == 2 && parts[1].oom)) {
        PyErr_NoMemory();
        goto fail;
    }
    /* the vocabularies; an id that is not UTF-8 */
    for (int w = 0; w < 2; w++)
        if (merge_vocab(parts, np, w, &voc[w]) < 0) {
            PyErr_NoMemory();
            goto fail;
        }
    int64_t width[2] = {1, 1};
    for (int w = 0; w < 2; w++)
        for (int t = 0; t < np; t++) {
            int64_t k = w ? parts[t].dwidth : parts[t].qwidth;
            if (k < 0) {
                res = Py_BuildValue("(sLiO)", "utf8", 0LL, (w ? df : qf) + 1, Py_None);
                goto done;
            }
            width[w] = k > width[w] ? k : width[w];
        }
    /* a token that is not a number; a value that must be finite and is not */
    for (int c = 0; c < nnum; c++)
        for (int t = 0; t < np; t++)
            if (parts[t].nerr_line[c]) {
                res = Py_BuildValue("(sLiy#)", "number", (long long)(parts[t].nerr_line[c] + (t ? lines0 : 0)),
                                    numf[c] + 1, (const char *)s + parts[t].nerr_off[c],
                                    (Py_ssize_t)parts[t].nerr_len[c]);
                goto done;
            }
    for (int c = 0; c < nnum; c++)
        for (int t = 0; t < np; t++)
            if (parts[t].ierr_line[c]) {
                res = Py_BuildValue("(sLid)", "finite", (long long)(parts[t].ierr_line[c] + (t ? lines0 : 0)),
                                    numf[c] + 1, parts[t].ierr_val[c]);
                goto done;
            }
    /* the rows together (part 1's move up when part 0 had blank lines), with global codes */
    int64_t n0 = parts[0].n, n = n0 + (np == 2 ? parts[1].n : 0);
    int64_t *qcode = (int64_t *)((nv_BufObject *)qc)->data, *dcode = (int64_t *)((nv_BufObject *)dc)->data;
    int dup;
    int64_t ra = 0, rb = 0;
    Py_BEGIN_ALLOW_THREADS
    if (np == 2 && n0 < parts[1].row0) {
        size_t bytes = (size_t)parts[1].n * 8;
        memmove(qcode + n0, qcode + parts[1].row0, bytes);
        memmove(dcode + n0, dcode + parts[1].row0, bytes);
        for (int c = 0; c < nnum; c++) {
            int64_t *col = (int64_t *)((nv_BufObject *)numbufs[c])->data;
            memmove(col + n0, col + parts[1].row0, bytes);
        }
    }
    remapjob jobs[2] = {{qcode, dcode, 0, n0, voc[0].map[0], voc[1].map[0]},
                        {qcode, dcode, n0, n, voc[0].map[1], voc[1].map[1]}};
    pthread_t th;
    int threaded = np == 2 && pthread_create(&th, NULL, remap_run, &jobs[1]) == 0;
    remap_run(&jobs[0]);
    if (threaded)
        pthread_join(th, NULL);
    else if (np == 2)
        remap_run(&jobs[1]);
    dup = first_duplicate(qcode, dcode, n, voc[0].n, voc[1].n, &ra, &rb);
    Py_END_ALLOW_THREADS
    ((nv_BufObject *)qc)->len = ((nv_BufObject *)dc)->len = (Py_ssize_t)(n * 8);
    for (int c = 0; c < nnum; c++)
        ((nv_BufObject *)numbufs[c])->len = (Py_ssize_t)(n * 8);
    if (dup < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    /* a (query, document) pair given twice */
    if (dup) {
        int64_t la = 0, lb = 0;
        record_lines(s, len, ra, rb, &la, &lb);
        const idref *qe = &voc[0].v[qcode[rb]], *de = &voc[1].v[dcode[rb]];
        res = Py_BuildValue("(sLi(Ls#s#))", "duplicate", (long long)lb, 0, (long long)la, (const char *)qe->p,
                            (Py_ssize_t)qe->len, (const char *)de->p, (Py_ssize_t)de->len);
        goto done;
    }
    PyObject *qv = vocab_array(&voc[0], width[0]);
    PyObject *dv = qv ? vocab_array(&voc[1], width[1]) : NULL;
    PyObject *nums = dv ? PyList_New(nnum) : NULL;
    PyObject *tag = NULL;
    if (nums) {
        for (int c = 0; c < nnum; c++) {
            PyList_SET_ITEM(nums, c, numbufs[c]);
            numbufs[c] = NULL;
        }
        const part *first = parts[0].n ? &parts[0] : &parts[np - 1]; /* a part with rows, if any */
        int same = tf >= 0 && n > 0;
        for (int t = 0; t < np && same; t++)
            same = parts[t].n == 0 || (parts[t].tag_same && parts[t].tag_len == first->tag_len &&
                                       memcmp(s + parts[t].tag_off, s + first->tag_off, (size_t)first->tag_len) == 0);
        tag = same ? PyBytes_FromStringAndSize((const char *)s + first->tag_off, (Py_ssize_t)first->tag_len)
                   : (Py_INCREF(Py_None), Py_None);
    }
    if (!tag) {
        Py_XDECREF(qv);
        Py_XDECREF(dv);
        Py_XDECREF(nums);
        goto fail;
    }
    res = Py_BuildValue("(sOONNNN)", "ok", qc, dc, qv, dv, nums, tag);
    goto done;
fail:
    res = NULL;
done:
    Py_XDECREF(qc);
    Py_XDECREF(dc);
    for (int c = 0; c < nnum; c++)
        Py_XDECREF(numbufs[c]);
    for (int t = 0; t < np; t++)
        part_free(&parts[t]);
    vocab_free(&voc[0]);
    vocab_free(&voc[1]);
    PyBuffer_Release(&data);
    return res;
}

/* trec_duplicate(qcode, dcode, nq, nd) -> None | (a, b)
 * The first (query, document) pair in code order that two rows give, as its first two rows a < b;
 * codes are int64 in [0, nq) and [0, nd) (ValueError otherwise). */
PyObject *nv_trec_duplicate(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *qo, *dob;
    long long nq, nd;
    if (!PyArg_ParseTuple(args, "OOLL", &qo, &dob, &nq, &nd))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, qo, NV_RAW8) < 0 || nv_arg(&in, dob, NV_RAW8) < 0 || nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    const int64_t *q = in.v[0].buf, *d = in.v[1].buf;
    int64_t n = in.n[0], a = 0, b = 0;
    int ok = nq >= 0 && nd >= 0;
    for (int64_t i = 0; i < n && ok; i++)
        ok = q[i] >= 0 && q[i] < nq && d[i] >= 0 && d[i] < nd;
    if (!ok) {
        nv_args_fail(&in, PyExc_ValueError, "codes outside [0, nq) or [0, nd)");
        return NULL;
    }
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = first_duplicate(q, d, n, nq, nd, &a, &b);
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    if (r < 0)
        return PyErr_NoMemory();
    if (!r)
        Py_RETURN_NONE;
    return Py_BuildValue("(LL)", (long long)a, (long long)b);
}

/* ------------------------------------------------------------------------------------------------ */
/* a run joined with judgments                                                                        */
/* ------------------------------------------------------------------------------------------------ */

/* the order of a[i] and b[j], numpy str arrays of wa and wb code points (padded with zeros) */
static inline int ucs4_cmp(const uint32_t *a, int64_t wa, const uint32_t *b, int64_t wb)
{
    int64_t w = wa > wb ? wa : wb;
    for (int64_t k = 0; k < w; k++) {
        uint32_t x = k < wa ? a[k] : 0, y = k < wb ? b[k] : 0;
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

/* vocab_map(a, wa, b, wb) -> int64 bytearray
 * For each id of `a` its position in `b`, -1 when `b` does not hold it: a and b are numpy str arrays
 * (as uint32 views) of wa and wb code points an id, each sorted and without repeats (ValueError
 * otherwise).  One merge walk, O(len(a) + len(b)); why C: np.searchsorted of 10M str ids in a
 * vocabulary of millions compares strings at random (0.3 s a vocabulary); this walks both once. */
PyObject *nv_vocab_map(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *ao, *bo;
    long long wa, wb;
    if (!PyArg_ParseTuple(args, "OLOL", &ao, &wa, &bo, &wb))
        return NULL;
    nv_args in = {0};
    if (nv_arg(&in, ao, NV_RAW1) < 0 || nv_arg(&in, bo, NV_RAW1) < 0)
        return NULL;
    if (wa <= 0 || wb <= 0 || in.n[0] % (4 * wa) || in.n[1] % (4 * wb)) {
        nv_args_fail(&in, PyExc_ValueError, "vocab_map: widths that do not divide the buffers");
        return NULL;
    }
    const uint32_t *a = in.v[0].buf, *b = in.v[1].buf;
    int64_t na = in.n[0] / (4 * wa), nb = in.n[1] / (4 * wb);
    PyObject *out = PyByteArray_FromStringAndSize(NULL, na * 8);
    if (!out) {
        nv_args_release(&in);
        return NULL;
    }
    int64_t *o = (int64_t *)PyByteArray_AS_STRING(out);
    int sorted = 1;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 1; i < na && sorted; i++)
        sorted = ucs4_cmp(a + (i - 1) * wa, wa, a + i * wa, wa) < 0;
    for (int64_t j = 1; j < nb && sorted; j++)
        sorted = ucs4_cmp(b + (j - 1) * wb, wb, b + j * wb, wb) < 0;
    for (int64_t i = 0, j = 0; i < na && sorted; i++) {
        int c = 1;
        while (j < nb && (c = ucs4_cmp(a + i * wa, wa, b + j * wb, wb)) > 0)
            j++;
        o[i] = j < nb && c == 0 ? j : -1;
    }
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    if (!sorted) {
        Py_DECREF(out);
        PyErr_SetString(PyExc_ValueError, "vocab_map: a vocabulary that is not sorted without repeats");
        return NULL;
    }
    return out;
}

typedef struct {
    const int64_t *qc, *dc, *qmap, *dmap, *qstart, *qdoc;
    int64_t *at, *rq;
    int64_t from, to;
} join_job;

static void *join_rows(void *arg)
{
    join_job *j = arg;
    for (int64_t i = j->from; i < j->to; i++) {
        int64_t q = j->qmap[j->qc[i]], d = j->dmap[j->dc[i]], hit = -1;
        j->rq[i] = q;
        if (q >= 0 && d >= 0) {
            int64_t lo = j->qstart[q], hi = j->qstart[q + 1];
            while (lo < hi) { /* the first judgment of q with a document >= d */
                int64_t mid = lo + (hi - lo) / 2;
                if (j->qdoc[mid] < d)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < j->qstart[q + 1] && j->qdoc[lo] == d)
                hit = lo;
        }
        j->at[i] = hit;
    }
    return NULL;
}

/* trec_join(qcode, dcode, qmap, dmap, qstart, qdoc) -> (at, rq), int64 bytearrays
 * Each run row (query code `qcode`, document code `dcode`, int64, codes of the run's vocabularies)
 * found in the judgments: rq its query as a judgments' query code (qmap[qcode]: -1 when not judged),
 * at the row of its judgment in the judgments sorted by (query, document) (-1 when none).  The
 * judgments: query q's rows are qstart[q]:qstart[q + 1] (qstart nondecreasing, len nq + 1), their
 * document codes qdoc ascending within each query; dmap maps the run's document codes to the
 * judgments' (-1 when not judged).  A binary search in the query's judgments per row, two threads
 * above a million rows.  Codes out of range are a ValueError. */
PyObject *nv_trec_join(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *o[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5]))
        return NULL;
    nv_args in = {0};
    for (int k = 0; k < 6; k++)
        if (nv_arg(&in, o[k], NV_RAW8) < 0)
            return NULL;
    if (nv_args_same_len(&in, 0, 2) < 0)
        return NULL;
    join_job job = {in.v[0].buf, in.v[1].buf, in.v[2].buf, in.v[3].buf, in.v[4].buf, in.v[5].buf, NULL, NULL, 0,
                    in.n[0]};
    int64_t n = in.n[0], nqm = in.n[2], ndm = in.n[3], nq = in.n[4] - 1, nj = in.n[5];
    int ok = nq >= 0;
    for (int64_t i = 0; i < n && ok; i++)
        ok = job.qc[i] >= 0 && job.qc[i] < nqm && job.dc[i] >= 0 && job.dc[i] < ndm;
    for (int64_t i = 0; i < nqm && ok; i++)
        ok = job.qmap[i] >= -1 && job.qmap[i] < nq;
    for (int64_t q = 0; q <= nq && ok; q++)
        ok = job.qstart[q] >= (q ? job.qstart[q - 1] : 0) && job.qstart[q] <= nj;
    if (!ok) {
        nv_args_fail(&in, PyExc_ValueError, "trec_join: codes or offsets out of range");
        return NULL;
    }
    PyObject *at = PyByteArray_FromStringAndSize(NULL, n * 8), *rq = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (!at || !rq) {
        Py_XDECREF(at);
        Py_XDECREF(rq);
        nv_args_release(&in);
        return NULL;
    }
    job.at = (int64_t *)PyByteArray_AS_STRING(at);
    job.rq = (int64_t *)PyByteArray_AS_STRING(rq);
    Py_BEGIN_ALLOW_THREADS
    join_job second = job;
    pthread_t th;
    int threaded = 0;
    if (n > 1000000) {
        job.to = second.from = n / 2;
        threaded = pthread_create(&th, NULL, join_rows, &second) == 0;
        if (!threaded)
            job.to = n;
    }
    join_rows(&job);
    if (threaded)
        pthread_join(th, NULL);
    Py_END_ALLOW_THREADS
    nv_args_release(&in);
    return Py_BuildValue("(NN)", at, rq);
}
