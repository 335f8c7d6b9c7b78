/* treegen's C accelerator for growth: the loops that numpy can only do with
 * large temporaries.  Every function computes exactly what the numpy code it
 * replaces computes (the same float32 operations in the same order); the
 * Python wrappers are in treegen/trainer/native.py and the equality tests in
 * tests/test_trainer_native.py.
 *
 * Built with -ffp-contract=off (setup.py): a fused multiply-add would round
 * once where numpy rounds twice.  FLT_EVAL_METHOD must be 0 (float
 * arithmetic in float, as SSE does): with x87 extended precision the running
 * sums would not round like Release 8's, so such targets get no accelerator. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <stdint.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float arithmetic must be evaluated in float (FLT_EVAL_METHOD == 0)"
#endif

#define MAX_CLASSES 4096

/* A read-only or writable view of a C-contiguous buffer of at least n items. */
static int view(PyObject *o, Py_buffer *b, int writable, Py_ssize_t itemsize, Py_ssize_t n,
                const char *name)
{
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, b, flags) < 0)
        return -1;
    if (b->itemsize != itemsize || b->len < n * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of %zd bytes, got %zd bytes",
                     name, n, itemsize, b->len);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

/* scan_cont(cvals, n1, y, rows, w, flat, seg_start, seg_len, seg_att, ms, lim,
 *           enough, n_classes, out_kk, out_ii, out_low, out_bel, out_abv, out_tot)
 *     -> number of candidate cuts
 *
 * Segment r lists one node's cases with a known value of continuous
 * attribute seg_att[r], in value order: flat[seg_start[r] + i] indexes rows/w
 * (row ids and weights of the bucket's cases), cvals[seg_att[r] * n1 + row] is
 * the float32 value, y[row] the class.  For every cut i (between entries i
 * and i+1) that splits.py's _eval_cont_chunk admits (MinSplit <= LowItems <=
 * known - MinSplit, distinct values 1e-5 apart, enough known cases), it writes
 * the segment, i, LowItems and the per-class weights below and above the cut
 * (out_bel/out_abv: class-major, stride = capacity), all sums float32 and
 * sequential as Release 8's.  out_tot[r * C + c] gets the segment's known
 * class weights. */
static PyObject *scan_cont(PyObject *self, PyObject *args)
{
    PyObject *o[18];
    Py_ssize_t n1, C;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnOOOOOOOOOOnOOOOOO", &o[0], &n1, &o[1], &o[2], &o[3], &o[4],
                          &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &C, &o[11], &o[12],
                          &o[13], &o[14], &o[15], &o[16]))
        return NULL;
    if (C < 1 || C > MAX_CLASSES) {
        PyErr_SetString(PyExc_ValueError, "n_classes out of range");
        return NULL;
    }
    Py_buffer b[17];
    int got = 0;
    Py_ssize_t R = -1, E = -1, cap = -1, ncv = -1, nrow = -1, ntot = -1;
    PyObject *result = NULL;
    /* Sizes come from the buffers themselves, then every use is checked. */
    {
        Py_buffer probe;
        if (PyObject_GetBuffer(o[6], &probe, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        R = probe.len / (Py_ssize_t)sizeof(Py_ssize_t);
        PyBuffer_Release(&probe);
        if (PyObject_GetBuffer(o[4], &probe, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        E = probe.len / (Py_ssize_t)sizeof(Py_ssize_t);
        PyBuffer_Release(&probe);
        if (PyObject_GetBuffer(o[11], &probe, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        cap = probe.len / (Py_ssize_t)sizeof(Py_ssize_t);
        PyBuffer_Release(&probe);
        if (PyObject_GetBuffer(o[0], &probe, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        ncv = probe.len / (Py_ssize_t)sizeof(float);
        PyBuffer_Release(&probe);
        if (PyObject_GetBuffer(o[1], &probe, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        nrow = probe.len / (Py_ssize_t)sizeof(Py_ssize_t);
        PyBuffer_Release(&probe);
        if (PyObject_GetBuffer(o[2], &probe, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        ntot = probe.len / (Py_ssize_t)sizeof(Py_ssize_t);
        PyBuffer_Release(&probe);
    }
    struct { int idx, wr; Py_ssize_t size, n; const char *name; } spec[17] = {
        {0, 0, sizeof(float), ncv, "cvals"},
        {1, 0, sizeof(Py_ssize_t), nrow, "y"},
        {2, 0, sizeof(Py_ssize_t), ntot, "rows"},
        {3, 0, sizeof(float), ntot, "w"},
        {4, 0, sizeof(Py_ssize_t), E, "flat"},
        {5, 0, sizeof(Py_ssize_t), R, "seg_start"},
        {6, 0, sizeof(Py_ssize_t), R, "seg_len"},
        {7, 0, sizeof(Py_ssize_t), R, "seg_att"},
        {8, 0, sizeof(float), R, "ms"},
        {9, 0, sizeof(float), R, "lim"},
        {10, 0, 1, R, "enough"},
        {11, 1, sizeof(Py_ssize_t), cap, "out_kk"},
        {12, 1, sizeof(Py_ssize_t), cap, "out_ii"},
        {13, 1, sizeof(float), cap, "out_low"},
        {14, 1, sizeof(float), cap * C, "out_bel"},
        {15, 1, sizeof(float), cap * C, "out_abv"},
        {16, 1, sizeof(float), R * C, "out_tot"},
    };
    for (got = 0; got < 17; got++)
        if (view(o[spec[got].idx], &b[got], spec[got].wr, spec[got].size, spec[got].n,
                 spec[got].name) < 0)
            goto done;
    {
        const float *cvals = b[0].buf;
        const Py_ssize_t *y = b[1].buf, *rows = b[2].buf, *flat = b[4].buf;
        const float *w = b[3].buf;
        const Py_ssize_t *s0 = b[5].buf, *len = b[6].buf, *att = b[7].buf;
        const float *ms = b[8].buf, *lim = b[9].buf;
        const unsigned char *enough = b[10].buf;
        Py_ssize_t *kk = b[11].buf, *ii = b[12].buf;
        float *olow = b[13].buf, *bel = b[14].buf, *abv = b[15].buf, *tot = b[16].buf;
        float below[MAX_CLASSES], above[MAX_CLASSES];
        Py_ssize_t n = 0;
        for (Py_ssize_t r = 0; r < R; r++) {
            const Py_ssize_t L = len[r], start = s0[r];
            float *t = tot + r * C;
            if (start < 0 || L < 0 || start + L > E || att[r] < 0 || (att[r] + 1) * n1 > ncv) {
                PyErr_SetString(PyExc_IndexError, "segment out of range");
                goto done;
            }
            for (Py_ssize_t c = 0; c < C; c++) t[c] = 0.0f;
            for (Py_ssize_t i = 0; i < L; i++) {
                Py_ssize_t p = flat[start + i];
                if (p < 0 || p >= ntot || rows[p] < 0 || rows[p] >= nrow || rows[p] >= n1
                    || y[rows[p]] < 0 || y[rows[p]] >= C) {
                    PyErr_SetString(PyExc_IndexError, "case index out of range");
                    goto done;
                }
                t[y[rows[p]]] += w[p];
            }
            if (L < 2 || !enough[r])
                continue;
            const float *col = cvals + att[r] * n1;
            for (Py_ssize_t c = 0; c < C; c++) {
                below[c] = 0.0f;
                above[c] = t[c];
            }
            float low = 0.0f;
            Py_ssize_t p = flat[start];
            double v = (double)col[rows[p]];
            for (Py_ssize_t i = 0; i + 1 < L; i++) {
                const Py_ssize_t c = y[rows[p]];
                const float wi = w[p];
                low += wi;
                below[c] += wi;
                above[c] -= wi;
                const Py_ssize_t q = flat[start + i + 1];
                const double vn = (double)col[rows[q]];
                if (low >= ms[r] && low <= lim[r] && v < vn - 1e-5) {
                    if (n >= cap) {
                        PyErr_SetString(PyExc_IndexError, "candidate capacity exceeded");
                        goto done;
                    }
                    kk[n] = r;
                    ii[n] = i;
                    olow[n] = low;
                    for (Py_ssize_t k = 0; k < C; k++) {
                        bel[k * cap + n] = below[k];
                        abv[k * cap + n] = above[k];
                    }
                    n++;
                }
                p = q;
                v = vn;
            }
        }
        result = PyLong_FromSsize_t(n);
    }
done:
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"scan_cont", scan_cont, METH_VARARGS, "Candidate cuts of sorted continuous segments."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cscan", "treegen's C accelerator for tree growth.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cscan(void)
{
    return PyModule_Create(&module);
}
