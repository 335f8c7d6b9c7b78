/* The C library's exponential over an array, for treegen.ensemble.libm: XGBoost and
 * LightGBM turn margins into probabilities with the C library's expf (float) and exp
 * (double), whose results numpy's own vectorised exp need not equal.  One call here
 * does a whole column, the same bits as one ctypes call per value (setup.py compiles
 * with -fno-fast-math, so each expf/exp is the library's, not a vector variant). */
#include "native.h" /* Python.h first, as Python asks */

#include <math.h>

PyObject *tg_libm_exp(PyObject *self, PyObject *args)
{
    PyObject *o[1] = {NULL};
    int f32;
    (void)self;
    if (!PyArg_ParseTuple(args, "Op", &o[0], &f32))
        return NULL;
    const Py_ssize_t size = f32 ? (Py_ssize_t)sizeof(float) : (Py_ssize_t)sizeof(double);
    const Py_ssize_t n = tg_items(o[0], size);
    if (n < 0)
        return NULL;
    const tg_spec spec[1] = {{1, size, n, "x"}};
    Py_buffer b[1];
    if (tg_views(o, b, spec, 1) < 1)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (f32) {
        float *x = b[0].buf;
        for (Py_ssize_t i = 0; i < n; i++)
            x[i] = expf(x[i]);
    } else {
        double *x = b[0].buf;
        for (Py_ssize_t i = 0; i < n; i++)
            x[i] = exp(x[i]);
    }
    Py_END_ALLOW_THREADS
    tg_release(b, 1);
    Py_RETURN_NONE;
}
