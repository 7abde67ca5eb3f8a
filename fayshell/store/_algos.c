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
 * span_order(trace_id, span_id): for the span stager (fayshell/store/spans.py). Two int64
 * arrays of equal length, rows already in time order. Returns an int64 byte string: the row
 * indices grouped by (trace_id, span_id), groups in order of their first row, rows of a group
 * in their input order. One pass with an open-addressing hash table (exact key compare), then
 * a counting sort: linear, where sorting the ids would not be.
 */
static PyObject *span_order(PyObject *self, PyObject *args)
{
    Py_buffer vt, vs;
    if (!PyArg_ParseTuple(args, "y*y*", &vt, &vs))
        return NULL;
    PyObject *res = NULL;
    int32_t *slot = NULL, *gid = NULL, *first = NULL;
    int64_t *order = NULL;
    Py_ssize_t n = vt.len / 8;
    if (vt.len % 8 || vs.len != vt.len || n >= INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "span_order: id arrays differ in length or too long");
        goto done;
    }
    size_t cap = 16;
    while (cap < (size_t)n * 2)
        cap <<= 1;
    slot = malloc(cap * sizeof(int32_t));
    gid = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    first = malloc(sizeof(int32_t) * (size_t)(n + 1));      /* first row, then offsets */
    order = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!slot || !gid || !first || !order) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *t = vt.buf, *s = vs.buf;
    Py_BEGIN_ALLOW_THREADS
    memset(slot, 0xff, cap * sizeof(int32_t));
    int32_t groups = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t h = (uint64_t)t[i] * 0x9E3779B97F4A7C15ULL ^ (uint64_t)s[i] * 0xC2B2AE3D27D4EB4FULL;
        h ^= h >> 29;
        size_t at = (size_t)h & (cap - 1);
        int32_t g;
        for (;;) {
            g = slot[at];
            if (g < 0) {
                g = slot[at] = groups++;
                first[g] = (int32_t)i;
                break;
            }
            if (t[first[g]] == t[i] && s[first[g]] == s[i])
                break;
            at = (at + 1) & (cap - 1);
        }
        gid[i] = g;
    }
    /* first[] now becomes each group's write offset: count, then prefix sums */
    memset(first, 0, sizeof(int32_t) * (size_t)(groups + 1));
    for (Py_ssize_t i = 0; i < n; i++)
        first[gid[i] + 1]++;
    for (int32_t g = 0; g < groups; g++)
        first[g + 1] += first[g];
    for (Py_ssize_t i = 0; i < n; i++)
        order[first[gid[i]]++] = i;
    Py_END_ALLOW_THREADS
    res = PyBytes_FromStringAndSize((char *)order, n * 8);
done:
    free(slot);
    free(gid);
    free(first);
    free(order);
    PyBuffer_Release(&vt);
    PyBuffer_Release(&vs);
    return res;
}

static PyMethodDef module_methods[] = {
    {"pair_scan", pair_scan, METH_VARARGS, "Local syscall pairs and run ends of a batch"},
    {"span_order", span_order, METH_VARARGS, "Rows grouped by (trace_id, span_id)"},
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
