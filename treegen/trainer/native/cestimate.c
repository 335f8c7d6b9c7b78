/* The error bound's estimate over float64 arrays, the accelerator's estimate_c45 and
 * estimate_j48 (ErrorBound.estimate in treegen/trainer/stats.py; the bound itself in
 * bound.h, shared with the pruning walk). */
#include "cprune.h"

/* Over float64 arrays n, e, out of equal length: out[i] = the bound's estimate. */
static PyObject *estimate_many(PyObject *args, int j48)
{
    PyObject *on, *oe, *oo;
    Bound bd;
    double first;
    Py_buffer bn, b[2];
    if (!PyArg_ParseTuple(args, "OOddO", &on, &oe, &first, &bd.coeff, &oo))
        return NULL;
    bd.log_cf = first;
    bd.cf = first;
    /* n first, at any length; e and out then hold as many items (tg_views' messages
     * are those of cprune.c's view). */
    const tg_spec spec_n = {0, (Py_ssize_t)sizeof(double), 0, "n"};
    if (tg_views(&on, &bn, &spec_n, 1) < 1)
        return NULL;
    Py_ssize_t m = bn.len / (Py_ssize_t)sizeof(double);
    PyObject *rest[2] = {oe, oo};
    const tg_spec spec[2] = {{0, (Py_ssize_t)sizeof(double), m, "e"},
                             {1, (Py_ssize_t)sizeof(double), m, "out"}};
    const int got = tg_views(rest, b, spec, 2);
    if (got < 2) {
        PyBuffer_Release(&bn);
        tg_release(b, got);
        return NULL;
    }
    const double *n = bn.buf, *e = b[0].buf;
    double *out = b[1].buf;
    for (Py_ssize_t i = 0; i < m; i++)
        out[i] = j48 ? estimate_j48_one(&bd, n[i], e[i]) : estimate_c45_one(&bd, n[i], e[i]);
    PyBuffer_Release(&bn);
    tg_release(b, 2);
    Py_RETURN_NONE;
}

/* estimate_c45(n, e, log_cf, coeff, out): out[i] = ErrorBound(cf, "c45").estimate(n[i], e[i]). */
PyObject *tg_estimate_c45(PyObject *self, PyObject *args)
{
    (void)self;
    return estimate_many(args, 0);
}

/* estimate_j48(n, e, cf, coeff, out): out[i] = ErrorBound(cf, "j48").estimate(n[i], e[i]). */
PyObject *tg_estimate_j48(PyObject *self, PyObject *args)
{
    (void)self;
    return estimate_many(args, 1);
}
