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
 */
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

/* The group of row i (made when new), or -1 when out of memory. */
static int32_t group_of(Groups *gs, int64_t t, int64_t s, int64_t ts, int32_t i)
{
    size_t at = id_hash(t, s) & (gs->cap - 1);
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

/* Group numbers in order of (first ts, first row): first row order, then a stable LSD radix
   sort of (ts, group) pairs by ts, all byte histograms in one pass (bytes every ts shares
   are skipped). */
typedef struct {
    uint64_t key;  /* ts with its sign bit flipped: unsigned order is signed order */
    int32_t g;
} Keyed;

static int32_t *time_order(const Groups *gs, int32_t *by_row, int64_t nrows)
{
    int32_t n = gs->n;
    size_t n1 = (size_t)(n ? n : 1);
    int32_t *g = malloc(sizeof(int32_t) * n1);
    Keyed *a = malloc(sizeof(Keyed) * n1), *b = malloc(sizeof(Keyed) * n1);
    if (!g || !a || !b) {
        free(g);
        free(a);
        free(b);
        return NULL;
    }
    memset(by_row, 0xff, sizeof(int32_t) * (size_t)nrows);
    for (int32_t k = 0; k < n; k++)
        by_row[gs->g[k].row] = k;
    size_t count[8][256];
    memset(count, 0, sizeof count);
    int32_t k = 0;
    for (int64_t i = 0; i < nrows; i++) {
        int32_t x = by_row[i];
        if (x < 0)
            continue;
        uint64_t key = (uint64_t)gs->g[x].ts ^ 0x8000000000000000ULL;
        a[k++] = (Keyed){key, x};
        for (int d = 0; d < 8; d++)
            count[d][key >> (8 * d) & 255]++;
    }
    for (int d = 0; d < 8 && n; d++) {
        size_t *c = count[d], at = 0;
        if (c[a[0].key >> (8 * d) & 255] == (size_t)n)
            continue;
        for (int v = 0; v < 256; v++) {
            size_t m = c[v];
            c[v] = at;
            at += m;
        }
        for (int32_t i = 0; i < n; i++)
            b[c[a[i].key >> (8 * d) & 255]++] = a[i];
        Keyed *swap = a;
        a = b;
        b = swap;
    }
    for (int32_t i = 0; i < n; i++)
        g[i] = a[i].g;
    free(a);
    free(b);
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

/* Everything span_build allocates, freed (or released) in one place. */
typedef struct {
    Groups gs;
    int32_t *gid, *cnt, *byg, *tmp, *gorder, *kv;
    int8_t *kind;
    int64_t nkv;
    SpanOut o;
    PyObject *out[NOUT];  /* the results, written in place */
} Work;

static void work_free(Work *w)
{
    void *p[] = {w->gs.g, w->gs.slot, w->gid, w->cnt, w->byg, w->tmp, w->gorder, w->kind, w->kv};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
    for (int i = 0; i < NOUT; i++)
        Py_XDECREF(w->out[i]);
}

/* Rows into spans, the spans in time order (without the GIL); -1 when out of memory. */
static int group(Work *w, int64_t n, const int64_t *t, const int64_t *s, const int64_t *ts,
                 const Strs *value, const Strs *key)
{
    size_t n1 = (size_t)(n ? n : 1);
    w->gid = malloc(n1 * 4);
    w->kind = malloc(n1);
    /* room for n / 4 spans at half load (a span has two rows or more, as a rule, and four on
       BlkKin's RPCs): no rehash, and no copy of the spans as they grow (pages are only
       touched, and so only resident, when written) */
    size_t cap = 1 << 12;
    while (cap < n1 / 2)
        cap <<= 1;
    w->gs.room = (int32_t)(cap / 2);
    w->gs.g = malloc(sizeof(Group) * cap / 2);
    if (!w->gid || !w->kind || !w->gs.g || groups_rehash(&w->gs, cap))
        return -1;
    Groups *gs = &w->gs;
    for (int64_t i = 0; i < n; i++) {
        /* the table outgrows the caches: the slot of row i + 16 and the span of row i + 8 are
           fetched ahead (the C pass on the BlkKin bench trace: hash phase 0.09 -> 0.05 s) */
        if (i + 16 < n)
            __builtin_prefetch(&gs->slot[id_hash(t[i + 16], s[i + 16]) & (gs->cap - 1)]);
        if (i + 8 < n) {
            int32_t g = gs->slot[id_hash(t[i + 8], s[i + 8]) & (gs->cap - 1)];
            if (g >= 0)
                __builtin_prefetch(&gs->g[g]);
        }
        if ((w->gid[i] = group_of(gs, t[i], s[i], ts[i], (int32_t)i)) < 0)
            return -1;
        w->kind[i] = row_kind(value, key, i);
        w->nkv += w->kind[i] == A_KV;
    }
    int32_t ng = w->gs.n;
    w->cnt = calloc((size_t)ng + 1, 4);
    w->byg = malloc(n1 * 4);
    w->kv = malloc((size_t)(w->nkv + 1) * 4);
    if (!w->cnt || !w->byg || !w->kv)
        return -1;
    /* rows by group number (counting sort), a group's rows in input order */
    for (int64_t i = 0; i < n; i++)
        w->cnt[w->gid[i] + 1]++;
    int32_t longest = 1;
    for (int32_t g = 0; g < ng; g++) {
        longest = w->cnt[g + 1] > longest ? w->cnt[g + 1] : longest;
        w->cnt[g + 1] += w->cnt[g];
    }
    if (!(w->tmp = malloc((size_t)longest * 4)))  /* the merge sorts' room: one span's rows */
        return -1;
    for (int64_t i = 0; i < n; i++)
        w->byg[w->cnt[w->gid[i]]++] = (int32_t)i;
    /* cnt[g] is now group g's end */
    return (w->gorder = time_order(&w->gs, w->gid, n)) ? 0 : -1;
}

/* The results as bytes objects of their final sizes, o's arrays pointing into them (with the
   GIL): written in place, not copied once built. Key/value rows are built apart (fewer are
   kept than read) and copied last. */
static int alloc_out(Work *w, int64_t n)
{
    Py_ssize_t g = w->gs.n, g1 = g + 1, size[NOUT] = {
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

/* Each span's rows in time order, and its figures (without the GIL). */
static void figure(Work *w, const int64_t *ts, const Strs *key)
{
    SpanOut *o = &w->o;
    int32_t at = 0, ng = w->gs.n;
    o->ann_offs[0] = o->kv_offs[0] = 0;
    for (int32_t j = 0; j < ng; j++) {
        int32_t g = w->gorder[j], a = g ? w->cnt[g - 1] : 0, len = w->cnt[g] - a;
        o->starts[j] = at;
        memcpy(o->order + at, w->byg + a, (size_t)len * 4);
        merge_sort(o->order + at, w->tmp, len, ts_less, ts);
        span_figures(o, j, o->order + at, len, ts, w->kind, key, w->tmp);
        at += len;
    }
    o->starts[ng] = at;
}

static PyObject *span_build(PyObject *self, PyObject *args)
{
    Py_buffer vt, vs, vts, bufs[6];
    PyObject *so[3], *ko[3];
    long long voff, koff;
    memset(bufs, 0, sizeof bufs);
    if (!PyArg_ParseTuple(args, "y*y*y*OOOLOOOL", &vt, &vs, &vts, &so[0], &so[1], &so[2], &voff,
                          &ko[0], &ko[1], &ko[2], &koff))
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
    if (get_strs(so[0], so[1], so[2], voff, n, &bufs[0], &bufs[1], &bufs[2], &value) ||
        get_strs(ko[0], ko[1], ko[2], koff, n, &bufs[3], &bufs[4], &bufs[5], &key))
        goto done;
    int failed;
    Py_BEGIN_ALLOW_THREADS
    failed = group(&w, n, vt.buf, vs.buf, vts.buf, &value, &key);
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    if (alloc_out(&w, n))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    figure(&w, vts.buf, &key);
    Py_END_ALLOW_THREADS
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
