/* Shared by the growth accelerator's C files (module _cscan): the buffer
 * helpers and the kernels' declarations.
 *
 * Every kernel computes exactly what the numpy code it replaces computes
 * (the same float operations in the same order); the Python side is in
 * treegen/trainer/levelwise/ (grow.py, partition.py, score.py), the equality
 * tests in tests/test_trainer_native.py.  Build requirements (float evaluation, no contraction): common.h. */
#ifndef TREEGEN_CSCAN_H
#define TREEGEN_CSCAN_H

#include "common.h"

/* Cases prefetched ahead in the scans. */
#define AHEAD 16

/* What a kernel argument must be: writable or not, the item size, at least n
 * items; name is for the error message. */
typedef struct {
    int wr;
    Py_ssize_t size, n;
    const char *name;
} tg_spec;

/* The number of items of size itemsize in buffer o; -1 with an exception set. */
Py_ssize_t tg_items(PyObject *o, Py_ssize_t itemsize);

/* C-contiguous views of o[0..n-1] as spec says.  Returns how many it acquired:
 * n on success; fewer, with an exception set, when one does not qualify.  The
 * caller releases that many with tg_release. */
int tg_views(PyObject **o, Py_buffer *b, const tg_spec *spec, int n);
void tg_release(Py_buffer *b, int n);

/* The kernels (METH_VARARGS functions), one file per concern. */
PyObject *tg_scan_cont(PyObject *self, PyObject *args);     /* scan.c */
PyObject *tg_best_cuts(PyObject *self, PyObject *args);     /* scan.c */
PyObject *tg_scan_cont_j48(PyObject *self, PyObject *args); /* scanj48.c */
PyObject *tg_nominal_prep(PyObject *self, PyObject *args);   /* nominal.c */
PyObject *tg_nominal_finish(PyObject *self, PyObject *args); /* nominal.c */
PyObject *tg_best_cuts_j48(PyObject *self, PyObject *args); /* scanj48.c */
PyObject *tg_part_sorted(PyObject *self, PyObject *args);   /* part.c */
PyObject *tg_emit_children(PyObject *self, PyObject *args); /* part.c */
PyObject *tg_add_at(PyObject *self, PyObject *args);        /* counts.c */
PyObject *tg_nominal_counts(PyObject *self, PyObject *args); /* counts.c */
PyObject *tg_gather_values(PyObject *self, PyObject *args); /* counts.c */
PyObject *tg_classify(PyObject *self, PyObject *args);      /* classify.c */
PyObject *tg_r8_sort(PyObject *self, PyObject *args);       /* order.c */
PyObject *tg_r8_front(PyObject *self, PyObject *args);      /* order.c */

#endif
