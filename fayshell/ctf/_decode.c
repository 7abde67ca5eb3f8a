/*
 * fayshell.ctf._decode: the compiled CTF event decoder.
 *
 * Executes the instruction lists of fayshell/ctf/program.py over the bytes of one packet and
 * appends to growable column buffers (Arrow layouts: fixed-width values, int32 offsets + data for
 * strings, int32 offsets for lists, one validity byte per row for nullable columns). Every read is
 * checked against the packet's content end; damage stops the packet with a bit offset and a
 * message. The GIL is released while a packet is decoded.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "_opcodes.h"

#define W WIDTH

typedef struct {
    uint8_t *p;
    size_t len, cap;
    size_t first;       /* the first allocation's size (0: 1 KiB), from an earlier decoder */
} Buf;

typedef struct {
    int kind, width, nullable, table, is_child, child;
    int64_t n;          /* values (rows for top-level columns, elements for children) */
    Buf data;           /* values, or string bytes */
    Buf offs;           /* int32 offsets (strings, lists) */
    Buf valid;          /* one byte per row (nullable columns) */
} Col;

typedef struct {
    PyObject_HEAD
    int64_t *code;
    Py_ssize_t ncode;
    int64_t header_pc, context_pc;
    int64_t *class_pc, *class_table, *class_global;
    Py_ssize_t nids;
    Col *cols;
    Py_ssize_t ncols;
    int64_t *table_rows;
    Buf *table_row;     /* per table: int64 row index into the common table */
    Py_ssize_t ntables;
    int *table_has_nullable;
    Buf ts, cls;
    int64_t rows;
    int64_t *regs;
    Py_ssize_t nregs;
    uint64_t clock;
    /* during a packet */
    const uint8_t *buf;
    size_t buflen;
    int64_t end;
    int64_t err_bit;
    const char *err;
    char errbuf[160];
} Decoder;

static int grow_slow(Buf *b, size_t extra);

static inline int grow(Buf *b, size_t extra)
{
    if (__builtin_expect(b->len + extra <= b->cap, 1))
        return 0;
    return grow_slow(b, extra);
}

static int grow_slow(Buf *b, size_t extra)
{
    size_t cap = b->cap ? b->cap : b->first ? b->first : 1024;
    while (cap < b->len + extra)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

static inline int put(Buf *b, const void *src, size_t n)
{
    if (grow(b, n))
        return -1;
    memcpy(b->p + b->len, src, n);
    b->len += n;
    return 0;
}

static inline int put_i32(Buf *b, int32_t v) { return put(b, &v, 4); }

static inline uint64_t bswap64(uint64_t v) { return __builtin_bswap64(v); }

#define FAIL(d, bit, msg) do { (d)->err_bit = (bit); (d)->err = (msg); return -1; } while (0)
/* The same messages as the Python reference (fayshell/ctf/pyexec.py), values included. */
#define FAILF(d, bit, ...) do { snprintf((d)->errbuf, sizeof (d)->errbuf, __VA_ARGS__); \
    FAIL(d, bit, (d)->errbuf); } while (0)

/* Read `size` bits at bit `pos`; caller checked pos + size <= end. */
static inline uint64_t read_bits(const Decoder *d, int64_t pos, int size, int be)
{
    size_t byte = (size_t)(pos >> 3);
    int shift = (int)(pos & 7);
    uint64_t mask = size == 64 ? ~(uint64_t)0 : (((uint64_t)1 << size) - 1);
    if (shift == 0 && (size & 7) == 0) {
        if (size == 8)
            return d->buf[byte];
        if (size == 16) {
            uint16_t v; memcpy(&v, d->buf + byte, 2);
            return be ? __builtin_bswap16(v) : v;
        }
        if (size == 32) {
            uint32_t v; memcpy(&v, d->buf + byte, 4);
            return be ? __builtin_bswap32(v) : v;
        }
        if (size == 64) {
            uint64_t v; memcpy(&v, d->buf + byte, 8);
            return be ? bswap64(v) : v;
        }
    }
    if (shift + size <= 64 && byte + 8 <= d->buflen) {
        uint64_t raw; memcpy(&raw, d->buf + byte, 8);
        if (be)
            return (bswap64(raw) >> (64 - shift - size)) & mask;
        return (raw >> shift) & mask;
    }
    /* slow path: bit by bit */
    uint64_t v = 0;
    if (!be) {
        for (int i = 0; i < size; i++) {
            int64_t b = pos + i;
            v |= (uint64_t)((d->buf[b >> 3] >> (b & 7)) & 1) << i;
        }
        return v;
    }
    for (int i = 0; i < size; i++) {
        int64_t b = pos + i;
        v = (v << 1) | ((d->buf[b >> 3] >> (7 - (b & 7))) & 1);
    }
    return v;
}

static inline int store_int(Col *c, uint64_t v)
{
    if (grow(&c->data, 8))
        return -1;
    uint8_t *p = c->data.p + c->data.len;
    switch (c->width) {
    case 1: *p = (uint8_t)v; break;
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8);
    }
    c->data.len += (size_t)c->width;
    c->n++;
    if (c->nullable) {
        uint8_t one = 1;
        if (put(&c->valid, &one, 1))
            return -1;
    }
    return 0;
}

/* The row's end once its bytes are in: offset, validity. */
static int end_text(Col *c)
{
    if (c->data.len > INT32_MAX)
        return -1;
    c->n++;
    if (put_i32(&c->offs, (int32_t)c->data.len))
        return -1;
    if (c->nullable) {
        uint8_t one = 1;
        if (put(&c->valid, &one, 1))
            return -1;
    }
    return 0;
}

/* Append text known to be ASCII; `limit` ends the readable bytes after s. A short string
   (most are) is copied as 16 bytes at once, one vector move instead of a call to memcpy: the
   bytes past it land in the buffer's spare room and are overwritten by the next value. */
static inline int put_ascii(Col *c, const uint8_t *s, size_t n, const uint8_t *limit)
{
    Buf *b = &c->data;
    if (n <= 16 && s + 16 <= limit && b->len + 16 <= b->cap) {
        memcpy(b->p + b->len, s, 16);
        b->len += n;
    } else if (put(b, s, n)) {
        return -1;
    }
    return end_text(c);
}

/* Append text, replacing ill-formed UTF-8 like Python's errors="replace". */
static int put_text(Col *c, const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] < 0x80)
        i++;
    if (i == n) {
        if (put(&c->data, s, n))
            return -1;
    } else {
        static const uint8_t rep[3] = {0xEF, 0xBF, 0xBD};
        if (put(&c->data, s, i))
            return -1;
        while (i < n) {
            uint8_t b = s[i];
            if (b < 0x80) {
                if (put(&c->data, &b, 1)) return -1;
                i++;
                continue;
            }
            int need; uint8_t lo = 0x80, hi = 0xBF;
            if (b >= 0xC2 && b <= 0xDF) need = 1;
            else if (b == 0xE0) { need = 2; lo = 0xA0; }
            else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) need = 2;
            else if (b == 0xED) { need = 2; hi = 0x9F; }
            else if (b == 0xF0) { need = 3; lo = 0x90; }
            else if (b >= 0xF1 && b <= 0xF3) need = 3;
            else if (b == 0xF4) { need = 3; hi = 0x8F; }
            else {
                if (put(&c->data, rep, 3)) return -1;
                i++;
                continue;
            }
            size_t j = i + 1;
            int k = 0, ok = 1;
            while (k < need) {
                if (j >= n) { ok = 0; break; }
                uint8_t cc = s[j];
                uint8_t l = k == 0 ? lo : 0x80, h = k == 0 ? hi : 0xBF;
                if (cc < l || cc > h) { ok = 0; break; }
                j++; k++;
            }
            if (ok) {
                if (put(&c->data, s + i, j - i)) return -1;
            } else if (put(&c->data, rep, 3)) {
                return -1;
            }
            i = j;
        }
    }
    return end_text(c);
}

static int oom(Decoder *d, int64_t pos) { FAIL(d, pos, "out of memory"); }

static int64_t exec(Decoder *d, int64_t pc, int64_t stop, int64_t pos)
{
    /* threaded dispatch: each handler jumps straight to the next one (better prediction
       than one shared switch); opcodes outside the table go to op_bad */
    static void *const ops[] = {&&op_bad, &&op_align, &&op_int, &&op_clock, &&op_float,
                                &&op_string, &&op_text, &&op_text, &&op_list, &&op_variant,
                                &&op_bad, &&op_jump, &&op_end};
    const int64_t end = d->end;
    const int64_t *r;
#define DISPATCH() do { if (pc == stop) return pos; r = d->code + pc * W; \
        goto *ops[(uint64_t)r[0] < sizeof ops / sizeof ops[0] ? r[0] : 0]; } while (0)
#define NEXT() do { pc++; DISPATCH(); } while (0)
    DISPATCH();
op_align:
    pos = (pos + r[1] - 1) & -r[1];
    NEXT();
op_int: {
    int size = (int)r[1];
    if (pos + size > end)
        FAILF(d, pos, "%d-bit integer runs past the packet content", size);
    uint64_t v = read_bits(d, pos, size, (int)r[3]);
    pos += size;
    if (r[2] && size < 64 && (v >> (size - 1)) & 1)
        v |= ~(uint64_t)0 << size;
    if (r[4] >= 0 && store_int(&d->cols[r[4]], v))
        return oom(d, pos);
    if (r[5] >= 0)
        d->regs[r[5]] = (int64_t)v;
    NEXT();
}
op_clock: {
    int size = (int)r[1];
    if (pos + size > end)
        FAILF(d, pos, "%d-bit integer runs past the packet content", size);
    uint64_t v = read_bits(d, pos, size, (int)r[2]);
    pos += size;
    if (size >= 64) {
        d->clock = v;
    } else {
        uint64_t mask = ((uint64_t)1 << size) - 1;
        uint64_t nw = (d->clock & ~mask) | v;
        if (v < (d->clock & mask))
            nw += (uint64_t)1 << size;
        d->clock = nw;
    }
    NEXT();
}
op_float: {
    int size = (int)r[1];
    if (pos + size > end)
        FAIL(d, pos, "float runs past the packet content");
    uint64_t v = read_bits(d, pos, size, (int)r[2]);
    pos += size;
    if (r[3] >= 0) {
        Col *c = &d->cols[r[3]];
        if (size == 32) {
            uint32_t x = (uint32_t)v;
            if (put(&c->data, &x, 4)) return oom(d, pos);
        } else if (put(&c->data, &v, 8)) {
            return oom(d, pos);
        }
        c->n++;
        if (c->nullable) { uint8_t one = 1; if (put(&c->valid, &one, 1)) return oom(d, pos); }
    }
    NEXT();
}
op_string: {
    if (pos & 7)
        FAIL(d, pos, "string is not byte aligned");
    const uint8_t *s = d->buf + (pos >> 3);
    size_t avail = end > pos ? (size_t)((end >> 3) - (pos >> 3)) : 0, n = 0;
    uint8_t high = 0;
    while (n < avail && s[n]) /* one pass finds the end and whether all of it is ASCII: */
        high |= s[n++];       /* strings here are short, and memchr then a check cost more */
    if (n == avail)
        FAIL(d, pos, "string runs past the packet content");
    if (r[1] >= 0 && (high < 0x80 ? put_ascii(&d->cols[r[1]], s, n, d->buf + d->buflen)
                                  : put_text(&d->cols[r[1]], s, n)))
        return oom(d, pos);
    pos += (int64_t)(n + 1) * 8;
    NEXT();
}
op_text: {
    int64_t n = r[0] == TEXTARR ? r[1] : d->regs[r[1]];
    if (pos & 7)
        FAIL(d, pos, "text array is not byte aligned");
    if (n < 0 || n > (end - pos) / 8)
        FAILF(d, pos, "text of %lld bytes runs past the packet content", (long long)n);
    const uint8_t *s = d->buf + (pos >> 3);
    if (r[2] >= 0) {
        const uint8_t *z = memchr(s, 0, (size_t)n);
        if (put_text(&d->cols[r[2]], s, z ? (size_t)(z - s) : (size_t)n))
            return oom(d, pos);
    }
    pos += n * 8;
    NEXT();
}
op_list: {
    int64_t n = r[3] >= 0 ? d->regs[r[3]] : r[2];
    if (n < 0 || n > end - pos + 1)
        FAILF(d, pos, "sequence length %lld exceeds the packet content", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        pos = exec(d, pc + 1, pc + 1 + r[4], pos);
        if (pos < 0)
            return -1;
    }
    if (r[1] >= 0) {
        Col *c = &d->cols[r[1]];
        Col *ch = &d->cols[c->child];
        if (put_i32(&c->offs, (int32_t)ch->n)) return oom(d, pos);
        c->n++;
        if (c->nullable) { uint8_t one = 1; if (put(&c->valid, &one, 1)) return oom(d, pos); }
    }
    pc += r[4];
    NEXT();
}
op_variant: {
    int64_t v = d->regs[r[1]];
    int64_t k;
    for (k = 0; k < r[2]; k++) {
        const int64_t *cs = d->code + (pc + 1 + k) * W;
        if (cs[1] <= v && v <= cs[2]) {
            pc = cs[3];
            break;
        }
    }
    if (k == r[2])
        FAILF(d, pos, "variant tag value %lld selects no option", (long long)v);
    DISPATCH();
}
op_jump:
    pc = r[1];
    DISPATCH();
op_end:
    return pos;
op_bad:
    FAIL(d, pos, "bad instruction");
#undef NEXT
#undef DISPATCH
}

static void truncate_col(Decoder *d, Col *c, int64_t rows)
{
    if (c->n <= rows)
        return;
    c->n = rows;
    if (c->kind == K_STR) {
        c->offs.len = (size_t)(rows + 1) * 4;
        int32_t o; memcpy(&o, c->offs.p + rows * 4, 4);
        c->data.len = (size_t)o;
    } else if (c->kind == K_LIST) {
        c->offs.len = (size_t)(rows + 1) * 4;
        int32_t o; memcpy(&o, c->offs.p + rows * 4, 4);
        truncate_col(d, &d->cols[c->child], o);
    } else {
        c->data.len = (size_t)rows * (size_t)c->width;
    }
    if (c->nullable)
        c->valid.len = (size_t)rows;
}

static void rollback(Decoder *d, int64_t table)
{
    for (Py_ssize_t i = 0; i < d->ncols; i++) {
        Col *c = &d->cols[i];
        if (c->is_child)
            continue;
        if (c->table == 0 || c->table == table)
            truncate_col(d, c, d->table_rows[c->table]);
    }
}

static int pad_nulls(Decoder *d, int64_t table)
{
    int64_t want = d->table_rows[table] + 1;
    for (Py_ssize_t i = 0; i < d->ncols; i++) {
        Col *c = &d->cols[i];
        if (c->table != table || !c->nullable || c->is_child || c->n >= want)
            continue;
        uint8_t zero = 0;
        if (c->kind == K_STR || c->kind == K_LIST) {
            int32_t o = c->kind == K_STR ? (int32_t)c->data.len : (int32_t)d->cols[c->child].n;
            if (put_i32(&c->offs, o)) return -1;
        } else {
            uint64_t z = 0;
            if (put(&c->data, &z, (size_t)c->width)) return -1;
        }
        if (put(&c->valid, &zero, 1)) return -1;
        c->n++;
    }
    return 0;
}

/* Decode events from bit `start` to `end`; returns the number of events or -1. */
static int64_t run_packet(Decoder *d, int64_t start)
{
    int64_t pos = start, n = 0;
    while (pos < d->end) {
        d->regs[REG_ID] = 0;
        pos = exec(d, d->header_pc, -1, pos);
        if (pos < 0)
            return n;
        int64_t id = d->regs[REG_ID];
        if (id < 0 || id >= d->nids || d->class_pc[id] < 0) {
            snprintf(d->errbuf, sizeof d->errbuf, "unknown event id %lld", (long long)id);
            d->err_bit = pos;
            d->err = d->errbuf;
            return n;
        }
        int64_t table = d->class_table[id];
        int64_t p2 = d->code[d->context_pc * W] == END ? pos : exec(d, d->context_pc, -1, pos);
        if (p2 >= 0)
            p2 = exec(d, d->class_pc[id], -1, p2);
        if (p2 >= 0 && d->table_has_nullable[table] && pad_nulls(d, table))
            p2 = oom(d, pos);
        if (p2 >= 0 && d->table_has_nullable[0] && pad_nulls(d, 0))
            p2 = oom(d, pos);
        if (p2 < 0) {
            rollback(d, table);
            return n;
        }
        pos = p2;
        int32_t g = (int32_t)d->class_global[id];
        if (put(&d->ts, &d->clock, 8) || put(&d->cls, &g, 4) ||
            put(&d->table_row[table], &d->rows, 8)) {
            d->err_bit = pos;
            d->err = "out of memory";
            return n;
        }
        d->table_rows[table]++;
        d->table_rows[0]++;
        d->rows++;
        n++;
    }
    return n;
}

static PyObject *Decoder_packet(Decoder *d, PyObject *args)
{
    Py_buffer view;
    long long start, end;
    unsigned long long clock;
    if (!PyArg_ParseTuple(args, "y*LLK", &view, &start, &end, &clock))
        return NULL;
    if (start < 0 || end < start || (unsigned long long)end > (unsigned long long)view.len * 8) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "bit range outside the buffer");
        return NULL;
    }
    d->buf = view.buf;
    d->buflen = (size_t)view.len;
    d->end = end;
    d->clock = clock;
    d->err = NULL;
    d->err_bit = -1;
    int64_t n;
    Py_BEGIN_ALLOW_THREADS
    n = run_packet(d, start);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    d->buf = NULL;
    if (d->err)
        return Py_BuildValue("LKLs", (long long)n, (unsigned long long)d->clock,
                             (long long)d->err_bit, d->err);
    return Py_BuildValue("LKLO", (long long)n, (unsigned long long)d->clock, -1LL, Py_None);
}

/* A decoded buffer handed to Python without a copy: Owned frees it when the last Arrow
   buffer over it goes. Copying it into a bytes object held the GIL for a pass over every
   decoded byte (fresh memory too), about a third of a decoder thread's time. */
typedef struct {
    PyObject_HEAD
    uint8_t *p;
    Py_ssize_t len;
} Owned;

static int Owned_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    static uint8_t empty[1];
    Owned *o = (Owned *)self;
    return PyBuffer_FillInfo(view, self, o->p ? o->p : empty, o->len, 1, flags);
}

static Py_ssize_t Owned_length(PyObject *self) { return ((Owned *)self)->len; }

static void Owned_dealloc(PyObject *self)
{
    free(((Owned *)self)->p);
    Py_TYPE(self)->tp_free(self);
}

static PyBufferProcs Owned_as_buffer = {Owned_getbuffer, NULL};
static PySequenceMethods Owned_as_sequence = {.sq_length = Owned_length};

static PyTypeObject OwnedType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fayshell.ctf._decode.Owned",
    .tp_basicsize = sizeof(Owned),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Bytes decoded by a Decoder, read-only, freed with the object",
    .tp_dealloc = Owned_dealloc,
    .tp_as_buffer = &Owned_as_buffer,
    .tp_as_sequence = &Owned_as_sequence,
};

/* The buffer's bytes as an Owned object; the buffer starts again empty, its next allocation
   as large as this one was (pages are only touched, and so only resident, when written). */
static PyObject *take_buf(Buf *b)
{
    Owned *o = PyObject_New(Owned, &OwnedType);
    if (!o)
        return NULL;
    o->p = NULL;
    o->len = 0;
    if (!b->len)
        return (PyObject *)o; /* nothing decoded: the buffer stays for the next batch */
    uint8_t *shrunk = realloc(b->p, b->len); /* in place */
    o->p = shrunk ? shrunk : b->p;
    o->len = (Py_ssize_t)b->len;
    b->p = malloc(b->cap);
    b->cap = b->p ? b->cap : 0;
    b->len = 0;
    return (PyObject *)o;
}

static PyObject *Decoder_take(Decoder *d, PyObject *unused)
{
    (void)unused;
    PyObject *cols = PyList_New(d->ncols);
    if (!cols)
        return NULL;
    for (Py_ssize_t i = 0; i < d->ncols; i++) {
        Col *c = &d->cols[i];
        if (c->table && !d->table_rows[c->table] && !c->n) {
            /* a class without events in this batch (most of a kernel trace's 1,181) */
            PyList_SET_ITEM(cols, i, Py_NewRef(Py_None));
            continue;
        }
        PyObject *offs = (c->kind == K_STR || c->kind == K_LIST) ? take_buf(&c->offs) : Py_NewRef(Py_None);
        PyObject *valid = c->nullable ? take_buf(&c->valid) : Py_NewRef(Py_None);
        PyObject *t = Py_BuildValue("(LNNN)", (long long)c->n, take_buf(&c->data), offs, valid);
        if (!t) { Py_DECREF(cols); return NULL; }
        PyList_SET_ITEM(cols, i, t);
        c->n = 0;
        if (c->kind == K_STR || c->kind == K_LIST)
            put_i32(&c->offs, 0);
    }
    PyObject *rows = PyList_New(d->ntables);
    for (Py_ssize_t t = 0; t < d->ntables; t++) {
        PyList_SET_ITEM(rows, t, take_buf(&d->table_row[t]));
        d->table_rows[t] = 0;
    }
    PyObject *out = Py_BuildValue("(NNNN)", take_buf(&d->ts), take_buf(&d->cls), rows, cols);
    d->rows = 0;
    return out;
}

static PyObject *Decoder_rows(Decoder *d, void *closure)
{
    (void)closure;
    return PyLong_FromLongLong(d->rows);
}

static int64_t *int64s(PyObject *obj, Py_ssize_t *n)
{
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_SIMPLE))
        return NULL;
    if (v.len % 8) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_ValueError, "int64 array expected");
        return NULL;
    }
    int64_t *p = malloc(v.len ? (size_t)v.len : 8);
    if (p)
        memcpy(p, v.buf, (size_t)v.len);
    *n = v.len / 8;
    PyBuffer_Release(&v);
    if (!p)
        PyErr_NoMemory();
    return p;
}

/* Every buffer of the decoder, in the order of sizes(): each column's data, offsets and
   validity, each table's rows, then ts and cls. */
static Py_ssize_t nbufs(const Decoder *d) { return d->ncols * 3 + d->ntables + 2; }

static Buf *buf_at(Decoder *d, Py_ssize_t i)
{
    if (i < d->ncols * 3) {
        Col *c = &d->cols[i / 3];
        return i % 3 == 0 ? &c->data : i % 3 == 1 ? &c->offs : &c->valid;
    }
    i -= d->ncols * 3;
    return i < d->ntables ? &d->table_row[i] : i == d->ntables ? &d->ts : &d->cls;
}

/* Each buffer's first allocation: an int64 per buffer (sizes() of a decoder of the same
   layout), or None. A size beyond 1 GiB is not taken. */
static int first_sizes(Decoder *d, PyObject *sizes)
{
    if (sizes == Py_None)
        return 0;
    Py_ssize_t n;
    int64_t *v = int64s(sizes, &n);
    if (!v)
        return -1;
    if (n != nbufs(d)) {
        free(v);
        PyErr_SetString(PyExc_ValueError, "sizes: one per buffer of this layout expected");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        buf_at(d, i)->first = v[i] > 0 && v[i] <= ((int64_t)1 << 30) ? (size_t)v[i] : 0;
    free(v);
    return 0;
}

static PyObject *Decoder_sizes(Decoder *d, PyObject *unused)
{
    (void)unused;
    Py_ssize_t n = nbufs(d);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * 8);
    if (!out)
        return NULL;
    int64_t *v = (int64_t *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        Buf *b = buf_at(d, i);
        v[i] = (int64_t)(b->cap > b->first ? b->cap : b->first);
    }
    return out;
}

/* Decoder(code, header_pc, context_pc, class_pc, class_table, class_global, colspecs, ntables,
   nregs, sizes=None) */
static int Decoder_init(Decoder *d, PyObject *args, PyObject *kw)
{
    (void)kw;
    PyObject *code, *cpc, *ctab, *cglob, *specs, *sizes = Py_None;
    long long hpc, xpc, ntables, nregs;
    if (!PyArg_ParseTuple(args, "OLLOOOOLL|O", &code, &hpc, &xpc, &cpc, &ctab, &cglob, &specs,
                          &ntables, &nregs, &sizes))
        return -1;
    Py_ssize_t n1, n2, n3, nspec;
    d->code = int64s(code, &d->ncode);
    d->class_pc = int64s(cpc, &n1);
    d->class_table = int64s(ctab, &n2);
    d->class_global = int64s(cglob, &n3);
    int64_t *sp = int64s(specs, &nspec);
    if (!d->code || !d->class_pc || !d->class_table || !d->class_global || !sp) {
        free(sp);
        return -1;
    }
    if (n1 != n2 || n1 != n3 || nspec % 6 || ntables < 1 || nregs < 1) {
        free(sp);
        PyErr_SetString(PyExc_ValueError, "inconsistent decoder tables");
        return -1;
    }
    d->nids = n1;
    d->header_pc = hpc;
    d->context_pc = xpc;
    d->ncols = nspec / 6;
    d->cols = calloc((size_t)d->ncols + 1, sizeof(Col));
    d->ntables = (Py_ssize_t)ntables;
    d->table_rows = calloc((size_t)ntables, sizeof(int64_t));
    d->table_row = calloc((size_t)ntables, sizeof(Buf));
    d->table_has_nullable = calloc((size_t)ntables, sizeof(int));
    d->nregs = (Py_ssize_t)nregs;
    d->regs = calloc((size_t)nregs, sizeof(int64_t));
    if (!d->cols || !d->table_rows || !d->table_row || !d->table_has_nullable || !d->regs) {
        free(sp);
        PyErr_NoMemory();
        return -1;
    }
    if (first_sizes(d, sizes)) {
        free(sp);
        return -1;
    }
    for (Py_ssize_t i = 0; i < d->ncols; i++) {
        Col *c = &d->cols[i];
        int64_t *s = sp + i * 6;
        c->kind = (int)s[0]; c->width = (int)s[1]; c->nullable = (int)s[2];
        c->table = (int)s[3]; c->is_child = (int)s[4]; c->child = (int)s[5];
        if (c->table < 0 || c->table >= ntables || (c->kind == K_LIST &&
            (c->child < 0 || c->child >= d->ncols))) {
            free(sp);
            PyErr_SetString(PyExc_ValueError, "bad column spec");
            return -1;
        }
        if (c->nullable && !c->is_child)
            d->table_has_nullable[c->table] = 1;
        if (c->kind == K_STR || c->kind == K_LIST)
            put_i32(&c->offs, 0);
    }
    free(sp);
    return 0;
}

static void Decoder_dealloc(Decoder *d)
{
    free(d->code); free(d->class_pc); free(d->class_table); free(d->class_global);
    if (d->cols) {
        for (Py_ssize_t i = 0; i < d->ncols; i++) {
            free(d->cols[i].data.p); free(d->cols[i].offs.p); free(d->cols[i].valid.p);
        }
        free(d->cols);
    }
    if (d->table_row) {
        for (Py_ssize_t t = 0; t < d->ntables; t++)
            free(d->table_row[t].p);
        free(d->table_row);
    }
    free(d->table_rows); free(d->table_has_nullable); free(d->regs);
    free(d->ts.p); free(d->cls.p);
    Py_TYPE(d)->tp_free((PyObject *)d);
}

static PyMethodDef Decoder_methods[] = {
    {"packet", (PyCFunction)Decoder_packet, METH_VARARGS,
     "packet(buf, start_bit, end_bit, clock) -> (events, clock, err_bit, err)"},
    {"take", (PyCFunction)Decoder_take, METH_NOARGS,
     "take() -> (ts, cls, table_rows, columns); resets the buffers; a column of a table "
     "without rows is None"},
    {"sizes", (PyCFunction)Decoder_sizes, METH_NOARGS,
     "sizes() -> bytes: each buffer's size (int64), for the next decoder of the layout"},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef Decoder_getset[] = {
    {"rows", (getter)Decoder_rows, NULL, "events buffered", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject DecoderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fayshell.ctf._decode.Decoder",
    .tp_basicsize = sizeof(Decoder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Compiled CTF event decoder for one stream",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Decoder_init,
    .tp_dealloc = (destructor)Decoder_dealloc,
    .tp_methods = Decoder_methods,
    .tp_getset = Decoder_getset,
};

static PyMethodDef module_methods[] = {
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_decode", "Compiled CTF event decoder", -1, module_methods,
    NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__decode(void)
{
    if (PyType_Ready(&DecoderType) < 0 || PyType_Ready(&OwnedType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&DecoderType);
    if (PyModule_AddObject(m, "Decoder", (PyObject *)&DecoderType) < 0) {
        Py_DECREF(&DecoderType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
