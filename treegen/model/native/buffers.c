/* The buffer helpers of native.h, compiled into every accelerator module. */
#include "native.h"

Py_ssize_t tg_items(PyObject *o, Py_ssize_t itemsize)
{
    Py_buffer probe;
    if (PyObject_GetBuffer(o, &probe, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    const Py_ssize_t n = probe.len / itemsize;
    PyBuffer_Release(&probe);
    return n;
}

int tg_views(PyObject **o, Py_buffer *b, const tg_spec *spec, int n)
{
    for (int i = 0; i < n; i++) {
        const int flags = PyBUF_C_CONTIGUOUS | (spec[i].wr ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(o[i], &b[i], flags) < 0)
            return i;
        if (b[i].itemsize != spec[i].size || b[i].len < spec[i].n * spec[i].size) {
            PyErr_Format(PyExc_ValueError, "%s: expected %zd items of %zd bytes, got %zd bytes",
                         spec[i].name, spec[i].n, spec[i].size, b[i].len);
            PyBuffer_Release(&b[i]);
            return i;
        }
    }
    return n;
}

void tg_release(Py_buffer *b, int n)
{
    for (int i = 0; i < n; i++)
        PyBuffer_Release(&b[i]);
}
