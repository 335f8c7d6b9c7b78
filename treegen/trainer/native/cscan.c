/* treegen's C accelerator for growth (module treegen.trainer._cscan): the
 * loops that numpy can only do with large temporaries or one call per node.
 * The kernels are in scan.c, part.c and counts.c; see cscan.h. */
#include "cscan.h"

/* A read-only or writable view of a C-contiguous buffer of at least n items. */
int tg_view(PyObject *o, Py_buffer *b, int writable, Py_ssize_t itemsize, Py_ssize_t n,
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

static PyMethodDef methods[] = {
    {"scan_cont", tg_scan_cont, METH_VARARGS, "Candidate cuts of sorted continuous segments."},
    {"part_sorted", tg_part_sorted, METH_VARARGS, "Children's sorted arrays after a batch of splits."},
    {"add_at", tg_add_at, METH_VARARGS, "np.add.at for float32, sequential."},
    {"emit_children", tg_emit_children, METH_VARARGS, "Children's case lists after splits."},
    {"best_cuts", tg_best_cuts, METH_VARARGS, "Gains of candidate cuts and the best per segment."},
    {"gather_values", tg_gather_values, METH_VARARGS, "Bucket values and unknown weights."},
    {"nominal_counts", tg_nominal_counts, METH_VARARGS, "Freq[v][c] of nominal attributes."},
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
