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

/* scan_cont(vals, n1, y, w, flat, seg_start, seg_len, seg_att, ms, lim, enough,
 *           n_classes, out_kk, out_ii, out_low, out_bel, out_abv, out_tot)
 *     -> number of candidate cuts
 *
 * The bucket's cases are numbered 0..n1-1: y[p] is the class and w[p] the
 * weight of case p, vals[k * n1 + p] its float32 value of the k-th continuous
 * attribute (gathered per bucket so that a node's cases lie close together in
 * memory).  Segment r lists one node's cases with a known value of attribute
 * seg_att[r] in value order: flat[seg_start[r] + i].  For every cut i (between
 * entries i and i+1) that splits.py's _eval_cont_chunk admits (MinSplit <=
 * LowItems <= known - MinSplit, distinct values 1e-5 apart, enough known
 * cases), it writes the segment, i, LowItems and the per-class weights below
 * and above the cut (out_bel/out_abv: class-major, stride = capacity), all
 * sums float32 and sequential as Release 8's.  out_tot[r * C + c] gets the
 * segment's known class weights. */
static PyObject *scan_cont(PyObject *self, PyObject *args)
{
    enum { NB = 16 };
    PyObject *o[NB];
    Py_ssize_t n1, C;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnOOOOOOOOOnOOOOOO", &o[0], &n1, &o[1], &o[2], &o[3], &o[4],
                          &o[5], &o[6], &o[7], &o[8], &o[9], &C, &o[10], &o[11], &o[12],
                          &o[13], &o[14], &o[15]))
        return NULL;
    if (C < 1 || C > MAX_CLASSES || n1 < 0) {
        PyErr_SetString(PyExc_ValueError, "n_classes or case count out of range");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    Py_ssize_t R = 0, E = 0, cap = 0, ncv = 0;
    PyObject *result = NULL;
    /* Sizes come from these buffers; every other buffer is checked against them. */
    {
        Py_buffer probe;
        PyObject *src[4] = {o[6], o[3], o[10], o[0]};
        Py_ssize_t *dst[4] = {&R, &E, &cap, &ncv};
        Py_ssize_t size[4] = {sizeof(Py_ssize_t), sizeof(Py_ssize_t), sizeof(Py_ssize_t),
                              sizeof(float)};
        for (int i = 0; i < 4; i++) {
            if (PyObject_GetBuffer(src[i], &probe, PyBUF_C_CONTIGUOUS) < 0)
                return NULL;
            *dst[i] = probe.len / size[i];
            PyBuffer_Release(&probe);
        }
    }
    const struct { int wr; Py_ssize_t size, n; const char *name; } spec[NB] = {
        {0, sizeof(float), ncv, "vals"},
        {0, sizeof(Py_ssize_t), n1, "y"},
        {0, sizeof(float), n1, "w"},
        {0, sizeof(Py_ssize_t), E, "flat"},
        {0, sizeof(Py_ssize_t), R, "seg_start"},
        {0, sizeof(Py_ssize_t), R, "seg_len"},
        {0, sizeof(Py_ssize_t), R, "seg_att"},
        {0, sizeof(float), R, "ms"},
        {0, sizeof(float), R, "lim"},
        {0, 1, R, "enough"},
        {1, sizeof(Py_ssize_t), cap, "out_kk"},
        {1, sizeof(Py_ssize_t), cap, "out_ii"},
        {1, sizeof(float), cap, "out_low"},
        {1, sizeof(float), cap * C, "out_bel"},
        {1, sizeof(float), cap * C, "out_abv"},
        {1, sizeof(float), R * C, "out_tot"},
    };
    for (got = 0; got < NB; got++)
        if (view(o[got], &b[got], spec[got].wr, spec[got].size, spec[got].n, spec[got].name) < 0)
            goto done;
    {
        const float *vals = b[0].buf;
        const Py_ssize_t *y = b[1].buf, *flat = b[3].buf;
        const float *w = b[2].buf;
        const Py_ssize_t *s0 = b[4].buf, *len = b[5].buf, *att = b[6].buf;
        const float *ms = b[7].buf, *lim = b[8].buf;
        const unsigned char *enough = b[9].buf;
        Py_ssize_t *kk = b[10].buf, *ii = b[11].buf;
        float *olow = b[12].buf, *bel = b[13].buf, *abv = b[14].buf, *tot = b[15].buf;
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
                if (p < 0 || p >= n1 || y[p] < 0 || y[p] >= C) {
                    PyErr_SetString(PyExc_IndexError, "case index out of range");
                    goto done;
                }
                t[y[p]] += w[p];
            }
            if (L < 2 || !enough[r])
                continue;
            const float *col = vals + att[r] * n1;
            for (Py_ssize_t c = 0; c < C; c++) {
                below[c] = 0.0f;
                above[c] = t[c];
            }
            float low = 0.0f;
            Py_ssize_t p = flat[start];
            double v = (double)col[p];
            for (Py_ssize_t i = 0; i + 1 < L; i++) {
                const Py_ssize_t c = y[p];
                const float wi = w[p];
                low += wi;
                below[c] += wi;
                above[c] -= wi;
                const Py_ssize_t q = flat[start + i + 1];
                const double vn = (double)col[q];
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
