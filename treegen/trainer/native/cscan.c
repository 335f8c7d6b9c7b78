/* treegen's C accelerator for growth (module treegen.trainer._cscan): the
 * loops that numpy can only do with large temporaries or one call per node.
 * The kernels are in scan.c, scanj48.c, nominal.c, part.c and counts.c; see
 * cscan.h.  classify.c classifies rows for treegen.model.classify (the same
 * build, so predict gets the accelerator wherever training does), order.c sorts
 * cases in Release 8's order for treegen.trainer.release8. */
#include "cscan.h"

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

static PyMethodDef methods[] = {
    {"scan_cont", tg_scan_cont, METH_VARARGS, "Candidate cuts of sorted continuous segments."},
    {"part_sorted", tg_part_sorted, METH_VARARGS, "Children's sorted arrays after a batch of splits."},
    {"add_at", tg_add_at, METH_VARARGS, "np.add.at for float32, sequential."},
    {"emit_children", tg_emit_children, METH_VARARGS, "Children's case lists after splits."},
    {"best_cuts", tg_best_cuts, METH_VARARGS, "Gains of candidate cuts and the best per segment."},
    {"gather_values", tg_gather_values, METH_VARARGS, "Bucket values and unknown weights."},
    {"nominal_counts", tg_nominal_counts, METH_VARARGS, "Freq[v][c] of nominal attributes."},
    {"scan_cont_j48", tg_scan_cont_j48, METH_VARARGS, "scan_cont with J48's rules, in double."},
    {"nominal_prep", tg_nominal_prep, METH_VARARGS, "Nominal scores, step 1: log inputs."},
    {"nominal_finish", tg_nominal_finish, METH_VARARGS, "Nominal scores, step 2: gain, info."},
    {"best_cuts_j48", tg_best_cuts_j48, METH_VARARGS, "best_cuts with J48's rules, in double."},
    {"classify", tg_classify, METH_VARARGS, "A model's class for every row (model/classify.py)."},
    {"r8_sort", tg_r8_sort, METH_VARARGS, "Release 8's quicksort of a segment, as a permutation."},
    {"r8_front", tg_r8_front, METH_VARARGS, "Release 8's swap of passing cases to the front."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cscan", "treegen's C accelerator for tree growth.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cscan(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && tg_add_constants(m) < 0)
        Py_CLEAR(m);
    return m;
}
