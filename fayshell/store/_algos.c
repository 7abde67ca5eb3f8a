/*
 * fayshell.store._algos: the store's compiled passes over decoded columns (optional: each has a
 * numpy equivalent in fayshell/store/kernel.py and spans.py, tested equal). The GIL is released
 * while they run.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

/*
 * pair_scan(cls, kinds, tid, run): one pass over a batch of one stream for the syscall stager
 * (fayshell/store/kernel.py). cls: int32 class index per row; kinds: int8 kind per class
 * (1 entry, 2 exit, else not a syscall); tid, run: int64 per row (the running thread and the
 * number of the last sched_switch). Returns four int64 byte strings of row indices: the entry
 * and exit of each local pair (adjacent syscalls of one run), and the first and last syscall of
 * each run.
 */
static PyObject *pair_scan(PyObject *self, PyObject *args)
{
    Py_buffer vc, vk, vt, vr;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &vc, &vk, &vt, &vr))
        return NULL;
    PyObject *res = NULL;
    int64_t *out = NULL;
    Py_ssize_t n = vc.len / 4, nk = vk.len;
    if (vc.len % 4 || vt.len != n * 8 || vr.len != n * 8) {
        PyErr_SetString(PyExc_ValueError, "pair_scan: cls, tid and run lengths differ");
        goto done;
    }
    out = malloc(sizeof(int64_t) * 4 * (size_t)(n ? n : 1));
    if (!out) {
        PyErr_NoMemory();
        goto done;
    }
    const int32_t *cls = vc.buf;
    const int8_t *kinds = vk.buf;
    const int64_t *tid = vt.buf, *run = vr.buf;
    int64_t *e = out, *x = out + n, *h = out + 2 * n, *t = out + 3 * n;
    Py_ssize_t np_ = 0, nh = 0, nt = 0, bad = 0, prev = -1;
    int prev_k = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t c = cls[i];
        if (c < 0 || c >= nk) {
            bad = 1;
            break;
        }
        int k = kinds[c];
        if (k != 1 && k != 2)
            continue;
        if (prev < 0 || run[i] != run[prev] || tid[i] != tid[prev]) {
            if (prev >= 0)
                t[nt++] = prev;
            h[nh++] = i;
        } else if (prev_k == 1 && k == 2) {
            e[np_] = prev;
            x[np_++] = i;
        }
        prev = i;
        prev_k = k;
    }
    if (prev >= 0)
        t[nt++] = prev;
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "pair_scan: class index out of range");
        goto done;
    }
    res = Py_BuildValue("(y#y#y#y#)", (char *)e, np_ * 8, (char *)x, np_ * 8, (char *)h,
                        nh * 8, (char *)t, nt * 8);
done:
    free(out);
    PyBuffer_Release(&vc);
    PyBuffer_Release(&vk);
    PyBuffer_Release(&vt);
    PyBuffer_Release(&vr);
    return res;
}

/*
 * span_build: the whole grouping of BlkKin rows into spans (fayshell/store/spans.py's
 * build_spans; its numpy path is the reference, tested equal).
 *
 * A string column is given as its Arrow buffers: int32 offsets, data, validity bitmap (None: no
 * NULL) and the array's offset. Rows: trace_id, span_id, ts (int64 each), the annotation value
 * (`value`) and the key of a key/value row (`key`, NULL for annotations).
 *
 * Spans are ordered by their first row (smallest ts, then input position), the rows of a span
 * by (ts, input position). Per span: first and last annotation time (all rows when it has no
 * annotation), cs..cr and sr..ss, its annotation rows, its key/value rows (the latest row of
 * each key, keys in byte order) and whether one key is "error".
 *
 * An optional last argument, threads, is 1 or 2, or 0 (the default): two from PARALLEL_ROWS
 * rows. With two, each step is cut in two halves that run on two threads (see Part); the result
 * is the same.
 */
#define PARALLEL_ROWS 65536
typedef struct {
    const int32_t *offs;
    const uint8_t *data, *valid;
    int64_t off;
} Strs;

static inline int str_null(const Strs *c, int64_t i)
{
    int64_t b = c->off + i;
    return c->valid && !((c->valid[b >> 3] >> (b & 7)) & 1);
}

static inline const uint8_t *str_at(const Strs *c, int64_t i, int32_t *len)
{
    int32_t a = c->offs[c->off + i];
    *len = c->offs[c->off + i + 1] - a;
    return c->data + a;
}

/* -1 < 0 < 1 by bytes, a shorter prefix first */
static int str_cmp(const Strs *c, int64_t a, int64_t b)
{
    int32_t la, lb;
    const uint8_t *pa = str_at(c, a, &la), *pb = str_at(c, b, &lb);
    int r = memcmp(pa, pb, (size_t)(la < lb ? la : lb));
    return r ? r : (la > lb) - (la < lb);
}

enum { A_CS, A_CR, A_SR, A_SS, A_OTHER, A_KV };

static int8_t row_kind(const Strs *value, const Strs *key, int64_t i)
{
    if (!str_null(key, i))
        return A_KV;
    if (str_null(value, i))
        return A_OTHER;
    int32_t n;
    const uint8_t *s = str_at(value, i, &n);
    if (n != 2)
        return A_OTHER;
    if (s[0] == 'c' && s[1] == 's') return A_CS;
    if (s[0] == 'c' && s[1] == 'r') return A_CR;
    if (s[0] == 's' && s[1] == 'r') return A_SR;
    if (s[0] == 's' && s[1] == 's') return A_SS;
    return A_OTHER;
}

/* Stable merge sort of idx[0..n) by less(a, b); tmp has room for n. */
typedef int (*Less)(const void *ctx, int32_t a, int32_t b);

static void merge_sort(int32_t *idx, int32_t *tmp, int64_t n, Less less, const void *ctx)
{
    if (n <= 24) {
        for (int64_t i = 1; i < n; i++) {
            int32_t v = idx[i];
            int64_t j = i;
            while (j > 0 && less(ctx, v, idx[j - 1])) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
        return;
    }
    int64_t h = n / 2;
    merge_sort(idx, tmp, h, less, ctx);
    merge_sort(idx + h, tmp, n - h, less, ctx);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = less(ctx, idx[j], idx[i]) ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    memcpy(idx, tmp, (size_t)k * sizeof(int32_t));
}

static int ts_less(const void *ctx, int32_t a, int32_t b)
{
    return ((const int64_t *)ctx)[a] < ((const int64_t *)ctx)[b];
}

static int key_less(const void *ctx, int32_t a, int32_t b) { return str_cmp(ctx, a, b) < 0; }

/* A span while rows are grouped: its ids and its first row (smallest ts, then position). */
typedef struct {
    int64_t tid, sid, ts;
    int32_t row, pad;
} Group;

typedef struct {
    Group *g;
    int32_t n, room;
    int32_t *slot;      /* open addressing: group number or -1 */
    size_t cap;
} Groups;

static inline size_t id_hash(int64_t t, int64_t s)
{
    uint64_t h = (uint64_t)t * 0x9E3779B97F4A7C15ULL ^ (uint64_t)s * 0xC2B2AE3D27D4EB4FULL;
    return (size_t)(h ^ (h >> 29));
}

static int groups_rehash(Groups *gs, size_t cap)
{
    int32_t *slot = malloc(cap * sizeof(int32_t));
    if (!slot)
        return -1;
    memset(slot, 0xff, cap * sizeof(int32_t));
    for (int32_t g = 0; g < gs->n; g++) {
        size_t at = id_hash(gs->g[g].tid, gs->g[g].sid) & (cap - 1);
        while (slot[at] >= 0)
            at = (at + 1) & (cap - 1);
        slot[at] = g;
    }
    free(gs->slot);
    gs->slot = slot;
    gs->cap = cap;
    return 0;
}

/* Room for `rows` rows' spans at half load (a span has two rows or more, as a rule, and four on
   BlkKin's RPCs): no rehash, and no copy of the spans as they grow (pages are only touched, and
   so only resident, when written). */
static int groups_init(Groups *gs, size_t rows)
{
    size_t cap = 1 << 12;
    while (cap < rows / 2)
        cap <<= 1;
    gs->room = (int32_t)(cap / 2);
    gs->g = malloc(sizeof(Group) * cap / 2);
    return gs->g ? groups_rehash(gs, cap) : -1;
}

/* The group of a row with ids (t, s) of hash h (made when new), or -1 when out of memory. */
static int32_t group_of(Groups *gs, size_t h, int64_t t, int64_t s, int64_t ts, int32_t i)
{
    size_t at = h & (gs->cap - 1);
    for (;;) {
        int32_t g = gs->slot[at];
        if (g < 0)
            break;
        Group *e = &gs->g[g];
        if (e->tid == t && e->sid == s) {
            if (ts < e->ts) {  /* the first row: smallest ts, then position */
                e->ts = ts;
                e->row = i;
            }
            return g;
        }
        at = (at + 1) & (gs->cap - 1);
    }
    if (gs->n == gs->room) {
        int32_t room = gs->room ? gs->room * 2 : 4096;
        Group *p = realloc(gs->g, sizeof(Group) * (size_t)room);
        if (!p)
            return -1;
        gs->g = p;
        gs->room = room;
    }
    int32_t g = gs->n++;
    gs->g[g] = (Group){t, s, ts, i, 0};
    gs->slot[at] = g;
    if ((size_t)gs->n * 2 > gs->cap && groups_rehash(gs, gs->cap * 2))
        return -1;
    return g;
}

typedef struct {
    int32_t *order, *starts, *ann, *kv, *ann_offs, *kv_offs;
    int64_t *t0, *t1, *cli, *srv;
    uint8_t *cli_ok, *srv_ok, *err;
    int32_t nann, nkv;
} SpanOut;

/* Span j's figures from its rows rows[0..k), in time order. */
static void span_figures(SpanOut *o, int32_t j, const int32_t *rows, int64_t k,
                         const int64_t *ts, const int8_t *kind, const Strs *key, int32_t *tmp)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, cs = INT64_MAX, cr = INT64_MIN, sr = INT64_MAX;
    int64_t ss = INT64_MIN;
    int32_t kv0 = o->nkv;
    for (int64_t i = 0; i < k; i++) {
        int32_t r = rows[i];
        int64_t t = ts[r];
        int8_t kd = kind[r];
        if (kd == A_KV) {
            o->kv[o->nkv++] = r;
            continue;
        }
        o->ann[o->nann++] = r;
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
        if (kd == A_CS && t < cs) cs = t;
        if (kd == A_CR && t > cr) cr = t;
        if (kd == A_SR && t < sr) sr = t;
        if (kd == A_SS && t > ss) ss = t;
    }
    if (lo == INT64_MAX) {
        lo = ts[rows[0]];
        hi = ts[rows[k - 1]];
    }
    o->t0[j] = lo;
    o->t1[j] = hi;
    o->cli_ok[j] = cs != INT64_MAX && cr != INT64_MIN;
    o->cli[j] = o->cli_ok[j] ? cr - cs : 0;
    o->srv_ok[j] = sr != INT64_MAX && ss != INT64_MIN;
    o->srv[j] = o->srv_ok[j] ? ss - sr : 0;
    /* keys in byte order (stable: a key's rows stay in time order), the last row of each */
    int32_t *kv = o->kv + kv0, nk = o->nkv - kv0, w = 0;
    merge_sort(kv, tmp, nk, key_less, key);
    o->err[j] = 0;
    for (int32_t i = 0; i < nk; i++) {
        if (i + 1 < nk && str_cmp(key, kv[i], kv[i + 1]) == 0)
            continue;
        kv[w++] = kv[i];
        int32_t len;
        const uint8_t *s = str_at(key, kv[i], &len);
        if (len == 5 && memcmp(s, "error", 5) == 0)
            o->err[j] = 1;
    }
    o->nkv = kv0 + w;
    o->ann_offs[j + 1] = o->nann;
    o->kv_offs[j + 1] = o->nkv;
}

static int get_strs(PyObject *offs, PyObject *data, PyObject *valid, long long off, int64_t n,
                    Py_buffer *bo, Py_buffer *bd, Py_buffer *bv, Strs *s)
{
    if (PyObject_GetBuffer(offs, bo, PyBUF_SIMPLE) < 0)
        return -1;
    if (PyObject_GetBuffer(data, bd, PyBUF_SIMPLE) < 0)
        return -1;
    if (valid != Py_None && PyObject_GetBuffer(valid, bv, PyBUF_SIMPLE) < 0)
        return -1;
    s->offs = bo->buf;
    s->data = bd->buf;
    s->valid = valid != Py_None ? bv->buf : NULL;
    s->off = off;
    if (off < 0 || bo->len < (Py_ssize_t)((off + n + 1) * 4) ||
        (s->valid && bv->len * 8 < off + n)) {
        PyErr_SetString(PyExc_ValueError, "span_build: a string column's buffers are too short");
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {  /* offsets within the data: the passes read unchecked */
        int32_t a = s->offs[off + i], b = s->offs[off + i + 1];
        if (a < 0 || b < a || b > bd->len) {
            PyErr_SetString(PyExc_ValueError, "span_build: string offsets outside the data");
            return -1;
        }
    }
    return 0;
}

/* What span_build returns, in _Built's order (fayshell/store/spans.py). */
enum { O_ORDER, O_STARTS, O_T0, O_T1, O_CLI, O_CLI_OK, O_SRV, O_SRV_OK, O_ANN, O_ANN_OFFS, O_KV,
       O_KV_OFFS, O_ERR, NOUT };

typedef struct Work Work;

/* One of the two halves each step is cut into when two threads share the work:
 * - grouping: the spans whose ids hash to the part (the top bit of the hash), in a table of the
 *   part's own, and the kinds of a contiguous half of the rows;
 * - figures: a contiguous run of spans in time order (about half of the rows). */
typedef struct {
    Work *w;
    int part, failed;
    Groups gs;
    int32_t *gid;         /* group of each row of the part (part 0: of every row, -1 when not
                             its own; part 1: an array of its own, so no cache line is shared) */
    int64_t lo, hi, nkv;  /* the rows whose kinds the part finds, and its key/value rows */
    SpanOut o;            /* figures: the part's cursors into the shared output */
    int32_t j0, j1, *tmp; /* figures: its spans, and room to sort one span's rows */
} Part;

/* Everything span_build allocates, freed (or released) in one place. */
struct Work {
    int parts;
    int64_t n;
    const int64_t *t, *s, *ts;
    const Strs *value, *key;
    Part part[2];
    int32_t ng, longest, *cnt, *kvc, *byg, *gorder, *kv;
    int8_t *kind;
    int64_t nkv;
    SpanOut o;
    PyObject *out[NOUT];  /* the results, written in place */
};

static void work_free(Work *w)
{
    void *p[] = {w->cnt, w->kvc, w->byg, w->gorder, w->kind, w->kv};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
    for (int k = 0; k < 2; k++) {
        Part *q = &w->part[k];
        free(q->gs.g);
        free(q->gs.slot);
        free(q->tmp);
        if (k)
            free(q->gid);
    }
    for (int i = 0; i < NOUT; i++)
        Py_XDECREF(w->out[i]);
}

/* f(a) and g(b), on two threads when the work is cut in two (if a thread cannot start, both
   run on this one). */
typedef void *(*Step)(void *);

static void both(const Work *w, Step f, void *a, Step g, void *b)
{
    pthread_t th;
    int spawned = w->parts == 2 && pthread_create(&th, NULL, g, b) == 0;
    f(a);
    if (spawned)
        pthread_join(th, NULL);
    else
        g(b);
}

static inline int is_mine(const Part *p, size_t h)
{
    return p->w->parts == 1 || (int)(h >> 63) == p->part;
}

/* A part's grouping: the kinds of its rows, then its spans (hashes of the rows 16 ahead, so
   that the slot of row i + 16 and the span of row i + 8 are fetched ahead: the table outgrows
   the caches). */
static void *group_part(void *arg)
{
    Part *p = arg;
    const Work *w = p->w;
    const int64_t *t = w->t, *s = w->s;
    int64_t n = w->n;
    for (int64_t i = p->lo; i < p->hi; i++) {
        w->kind[i] = row_kind(w->value, w->key, i);
        p->nkv += w->kind[i] == A_KV;
    }
    if (p->part == 1 && w->parts == 1)
        return NULL;
    Groups *gs = &p->gs;
    size_t ahead[16];
    for (int64_t i = 0; i < n && i < 16; i++)
        ahead[i] = id_hash(t[i], s[i]);
    for (int64_t i = 0; i < n; i++) {
        size_t h = ahead[i & 15];
        if (i + 16 < n) {
            size_t h16 = ahead[i & 15] = id_hash(t[i + 16], s[i + 16]);
            if (is_mine(p, h16))
                __builtin_prefetch(&gs->slot[h16 & (gs->cap - 1)]);
        }
        if (i + 8 < n && is_mine(p, ahead[(i + 8) & 15])) {
            int32_t g = gs->slot[ahead[(i + 8) & 15] & (gs->cap - 1)];
            if (g >= 0)
                __builtin_prefetch(&gs->g[g]);
        }
        if (!is_mine(p, h)) {
            if (p->part == 0)
                p->gid[i] = -1;
            continue;
        }
        if ((p->gid[i] = group_of(gs, h, t[i], s[i], w->ts[i], (int32_t)i)) < 0) {
            p->failed = 1;
            return NULL;
        }
    }
    return NULL;
}

static inline const Group *group_at(const Work *w, int32_t g)
{
    const Groups *a = &w->part[0].gs, *b = &w->part[1].gs;
    return g < a->n ? &a->g[g] : &b->g[g - a->n];
}

/* Each row's group number (part 1's after part 0's), the rows by group (counting sort, a
   group's rows in input order), and each group's number of key/value rows. */
static void *count_rows(void *arg)
{
    Work *w = arg;
    int32_t ng = w->ng, ng0 = w->part[0].gs.n, *gid = w->part[0].gid, *gid1 = w->part[1].gid;
    w->cnt = calloc((size_t)ng + 1, 4);
    w->kvc = calloc((size_t)ng + 1, 4);
    w->byg = malloc((size_t)(w->n ? w->n : 1) * 4);
    if (!w->cnt || !w->kvc || !w->byg)
        return NULL;
    for (int64_t i = 0; i < w->n; i++) {
        int32_t g = gid[i] >= 0 ? gid[i] : ng0 + gid1[i];
        gid[i] = g;
        w->cnt[g + 1]++;
        w->kvc[g] += w->kind[i] == A_KV;
    }
    w->longest = 1;
    for (int32_t g = 0; g < ng; g++) {
        w->longest = w->cnt[g + 1] > w->longest ? w->cnt[g + 1] : w->longest;
        w->cnt[g + 1] += w->cnt[g];
    }
    for (int64_t i = 0; i < w->n; i++)
        w->byg[w->cnt[gid[i]]++] = (int32_t)i;
    /* cnt[g] is now group g's end */
    return NULL;
}

/* Group numbers in order of (first ts, first row): a stable LSD radix sort of the groups by
   first row, then by first ts, all byte histograms in one pass (bytes every group shares are
   skipped). */
typedef struct {
    uint64_t ts;  /* with its sign bit flipped: unsigned order is signed order */
    uint32_t row;
    int32_t g;
} Keyed;

static inline unsigned byte_of(const Keyed *k, int d)
{
    return (d < 4 ? k->row >> (8 * d) : k->ts >> (8 * (d - 4))) & 255;
}

static void *time_order(void *arg)
{
    Work *w = arg;
    int32_t n = w->ng;
    size_t n1 = (size_t)(n ? n : 1);
    Keyed *a = malloc(sizeof(Keyed) * n1), *b = malloc(sizeof(Keyed) * n1);
    if (!a || !b || !(w->gorder = malloc(sizeof(int32_t) * n1))) {
        free(a);
        free(b);
        return NULL;
    }
    size_t count[12][256];
    memset(count, 0, sizeof count);
    for (int32_t k = 0; k < n; k++) {
        const Group *e = group_at(w, k);
        a[k] = (Keyed){(uint64_t)e->ts ^ 0x8000000000000000ULL, (uint32_t)e->row, k};
        for (int d = 0; d < 12; d++)
            count[d][byte_of(&a[k], d)]++;
    }
    for (int d = 0; d < 12 && n; d++) {
        size_t *c = count[d], at = 0;
        if (c[byte_of(&a[0], d)] == (size_t)n)
            continue;
        for (int v = 0; v < 256; v++) {
            size_t m = c[v];
            c[v] = at;
            at += m;
        }
        for (int32_t i = 0; i < n; i++)
            b[c[byte_of(&a[i], d)]++] = a[i];
        Keyed *swap = a;
        a = b;
        b = swap;
    }
    for (int32_t i = 0; i < n; i++)
        w->gorder[i] = a[i].g;
    free(a);
    free(b);
    return NULL;
}

/* Rows into spans, the spans in time order (without the GIL); -1 when out of memory. */
static int group(Work *w)
{
    size_t n1 = (size_t)(w->n ? w->n : 1);
    int64_t mid = w->parts == 2 ? w->n / 2 : w->n;
    w->kind = malloc(n1);
    if (!w->kind)
        return -1;
    for (int k = 0; k < 2; k++) {
        Part *p = &w->part[k];
        *p = (Part){.w = w, .part = k, .lo = k ? mid : 0, .hi = k ? w->n : mid};
        if (k < w->parts && (!(p->gid = malloc(n1 * 4)) || groups_init(&p->gs, n1 / w->parts)))
            return -1;
    }
    both(w, group_part, &w->part[0], group_part, &w->part[1]);
    if (w->part[0].failed || w->part[1].failed)
        return -1;
    w->ng = w->part[0].gs.n + w->part[1].gs.n;
    w->nkv = w->part[0].nkv + w->part[1].nkv;
    if (!(w->kv = malloc((size_t)(w->nkv + 1) * 4)))
        return -1;
    both(w, count_rows, w, time_order, w);
    return w->byg && w->gorder ? 0 : -1;
}

/* The results as bytes objects of their final sizes, o's arrays pointing into them (with the
   GIL): written in place, not copied once built. Key/value rows are built apart (fewer are
   kept than read) and copied last. */
static int alloc_out(Work *w)
{
    Py_ssize_t n = w->n, g = w->ng, g1 = g + 1, size[NOUT] = {
        [O_ORDER] = n * 4, [O_STARTS] = g1 * 4, [O_T0] = g * 8, [O_T1] = g * 8, [O_CLI] = g * 8,
        [O_CLI_OK] = g, [O_SRV] = g * 8, [O_SRV_OK] = g, [O_ANN] = (n - w->nkv) * 4,
        [O_ANN_OFFS] = g1 * 4, [O_KV] = 0, [O_KV_OFFS] = g1 * 4, [O_ERR] = g};
    void *at[NOUT];
    for (int i = 0; i < NOUT; i++) {
        if (i == O_KV)
            continue;
        if (!(w->out[i] = PyBytes_FromStringAndSize(NULL, size[i])))
            return -1;
        at[i] = PyBytes_AS_STRING(w->out[i]);
    }
    w->o = (SpanOut){.order = at[O_ORDER], .starts = at[O_STARTS], .ann = at[O_ANN],
                     .kv = w->kv, .ann_offs = at[O_ANN_OFFS], .kv_offs = at[O_KV_OFFS],
                     .t0 = at[O_T0], .t1 = at[O_T1], .cli = at[O_CLI], .srv = at[O_SRV],
                     .cli_ok = at[O_CLI_OK], .srv_ok = at[O_SRV_OK], .err = at[O_ERR]};
    return 0;
}

/* A part's spans: each span's rows in time order, and its figures. */
static void *figure_part(void *arg)
{
    Part *p = arg;
    const Work *w = p->w;
    for (int32_t j = p->j0; j < p->j1; j++) {
        int32_t g = w->gorder[j], a = g ? w->cnt[g - 1] : 0, len = w->cnt[g] - a;
        int32_t *rows = p->o.order + p->o.starts[j];
        memcpy(rows, w->byg + a, (size_t)len * 4);
        merge_sort(rows, p->tmp, len, ts_less, w->ts);
        span_figures(&p->o, j, rows, len, w->ts, w->kind, w->key, p->tmp);
    }
    return NULL;
}

/* Where each span's rows start, and the spans cut in two runs of about half the rows each:
   part 1's cursors start at its first span's annotation and (not yet deduplicated) key/value
   rows; its kept key/value rows are moved down behind part 0's afterwards. */
static int figure(Work *w)
{
    SpanOut *o = &w->o;
    int32_t ng = w->ng, at = 0, kv = 0, mid = ng, kv_mid = 0;
    for (int32_t j = 0; j < ng; j++) {
        int32_t g = w->gorder[j];
        if (mid == ng && w->parts == 2 && at >= w->n / 2) {
            mid = j;
            kv_mid = kv;
        }
        o->starts[j] = at;
        at += w->cnt[g] - (g ? w->cnt[g - 1] : 0);
        kv += w->kvc[g];
    }
    o->starts[ng] = at;
    if (mid == ng)
        kv_mid = kv;
    o->ann_offs[0] = o->kv_offs[0] = 0;
    for (int k = 0; k < 2; k++) {
        Part *p = &w->part[k];
        p->o = *o;
        p->o.nann = k ? o->starts[mid] - kv_mid : 0;
        p->o.nkv = k ? kv_mid : 0;
        p->j0 = k ? mid : 0;
        p->j1 = k ? ng : mid;
        if (k < w->parts && !(p->tmp = malloc((size_t)w->longest * 4)))
            return -1;
    }
    both(w, figure_part, &w->part[0], figure_part, &w->part[1]);
    int32_t gap = kv_mid - w->part[0].o.nkv;
    memmove(o->kv + w->part[0].o.nkv, o->kv + kv_mid, (size_t)(w->part[1].o.nkv - kv_mid) * 4);
    for (int32_t j = mid; j < ng; j++)
        o->kv_offs[j + 1] -= gap;
    o->nkv = w->part[1].o.nkv - gap;
    o->nann = w->part[1].o.nann;
    return 0;
}

static PyObject *span_build(PyObject *self, PyObject *args)
{
    Py_buffer vt, vs, vts, bufs[6];
    PyObject *so[3], *ko[3];
    long long voff, koff;
    int threads = 0;
    memset(bufs, 0, sizeof bufs);
    if (!PyArg_ParseTuple(args, "y*y*y*OOOLOOOL|i", &vt, &vs, &vts, &so[0], &so[1], &so[2],
                          &voff, &ko[0], &ko[1], &ko[2], &koff, &threads))
        return NULL;
    PyObject *res = NULL;
    Py_ssize_t n = vt.len / 8;
    Strs value, key;
    Work w;
    memset(&w, 0, sizeof w);
    if (vt.len % 8 || vs.len != vt.len || vts.len != vt.len || n >= INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "span_build: id and ts arrays differ in length");
        goto done;
    }
    if (threads < 0 || threads > 2) {
        PyErr_SetString(PyExc_ValueError, "span_build: threads must be 0 (by size), 1 or 2");
        goto done;
    }
    if (get_strs(so[0], so[1], so[2], voff, n, &bufs[0], &bufs[1], &bufs[2], &value) ||
        get_strs(ko[0], ko[1], ko[2], koff, n, &bufs[3], &bufs[4], &bufs[5], &key))
        goto done;
    w.parts = threads ? threads : n >= PARALLEL_ROWS ? 2 : 1;
    w.n = n;
    w.t = vt.buf;
    w.s = vs.buf;
    w.ts = vts.buf;
    w.value = &value;
    w.key = &key;
    int failed;
    Py_BEGIN_ALLOW_THREADS
    failed = group(&w);
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    if (alloc_out(&w))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    failed = figure(&w);
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    if (!(w.out[O_KV] = PyBytes_FromStringAndSize((char *)w.o.kv, (Py_ssize_t)w.o.nkv * 4)))
        goto done;
    if ((res = PyTuple_New(NOUT)))
        for (int i = 0; i < NOUT; i++) {
            PyTuple_SET_ITEM(res, i, w.out[i]);
            w.out[i] = NULL;
        }
done:
    work_free(&w);
    for (int i = 0; i < 6; i++)
        if (bufs[i].obj)
            PyBuffer_Release(&bufs[i]);
    PyBuffer_Release(&vt);
    PyBuffer_Release(&vs);
    PyBuffer_Release(&vts);
    return res;
}

static PyMethodDef module_methods[] = {
    {"pair_scan", pair_scan, METH_VARARGS, "Local syscall pairs and run ends of a batch"},
    {"span_build", span_build, METH_VARARGS, "Spans of BlkKin rows: order, bounds, lists"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_algos", "Compiled store algorithms (syscall pairing, span grouping)",
    -1, module_methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__algos(void)
{
    return PyModule_Create(&module);
}
