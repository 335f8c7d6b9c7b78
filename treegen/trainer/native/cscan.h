/* Shared by the growth accelerator's C files (module _cscan): the kernels'
 * declarations (the buffer helpers are native.h's).
 *
 * Every kernel computes exactly what the numpy code it replaces computes
 * (the same float operations in the same order); the Python side is in
 * treegen/trainer/levelwise/ (grow.py, partition.py, score.py), the equality
 * tests in tests/trainer/test_trainer_native.py.  Build requirements (float evaluation, no contraction): common.h. */
#ifndef TREEGEN_CSCAN_H
#define TREEGEN_CSCAN_H

#include "common.h"

/* Cases prefetched ahead in the scans. */
#define AHEAD 16

/* Bytes of a scan's scratch per case of its longest segment (scanwalk.h): the
 * value as a double, the class as an index, the weight as REAL (for float the
 * module's SCAN_SCRATCH_FLOAT, which levelwise/score.py allocates by). */
#define SCAN_SCRATCH(REAL) (sizeof(double) + sizeof(Py_ssize_t) + sizeof(REAL))

/* The kernels (METH_VARARGS functions), one file per concern. */
PyObject *tg_scan_best(PyObject *self, PyObject *args);     /* scan.c */
PyObject *tg_approx_terms(PyObject *self, PyObject *args);  /* scan.c */
PyObject *tg_check_bounds(PyObject *self, PyObject *args);  /* scan.c */
PyObject *tg_scan_cont_j48(PyObject *self, PyObject *args); /* scanj48.c */
PyObject *tg_nominal_prep(PyObject *self, PyObject *args);   /* nominal.c */
PyObject *tg_nominal_finish(PyObject *self, PyObject *args); /* nominal.c */
PyObject *tg_nominal_prep_j48(PyObject *self, PyObject *args);   /* nominal.c */
PyObject *tg_nominal_finish_j48(PyObject *self, PyObject *args); /* nominal.c */
PyObject *tg_best_cuts_j48(PyObject *self, PyObject *args); /* scanj48.c */
PyObject *tg_part_sorted(PyObject *self, PyObject *args);   /* part.c */
PyObject *tg_emit_children(PyObject *self, PyObject *args); /* part.c */
PyObject *tg_route_branches(PyObject *self, PyObject *args); /* route.c */
PyObject *tg_branch_sums(PyObject *self, PyObject *args);   /* route.c */
PyObject *tg_part_dest(PyObject *self, PyObject *args);     /* route.c */
PyObject *tg_add_at(PyObject *self, PyObject *args);        /* counts.c */
PyObject *tg_nominal_counts(PyObject *self, PyObject *args); /* counts.c */
PyObject *tg_gather_values(PyObject *self, PyObject *args); /* counts.c */
PyObject *tg_r8_sort(PyObject *self, PyObject *args);       /* order.c */
PyObject *tg_r8_front(PyObject *self, PyObject *args);      /* order.c */
PyObject *tg_weka_sort(PyObject *self, PyObject *args);     /* order.c */
PyObject *tg_sparse_scan(PyObject *self, PyObject *args);   /* sparse.c */
PyObject *tg_sparse_info(PyObject *self, PyObject *args);   /* sparseinfo.c */
PyObject *tg_sparse_pick(PyObject *self, PyObject *args);   /* sparse.c */
PyObject *tg_r8_cont_prep(PyObject *self, PyObject *args);  /* r8prep.c */
PyObject *tg_r8_cont_score(PyObject *self, PyObject *args); /* r8score.c */
PyObject *tg_r8_class_pairs(PyObject *self, PyObject *args); /* r8node.c */
PyObject *tg_r8_cont_front(PyObject *self, PyObject *args);  /* r8node.c */
PyObject *tg_r8_cont_sides(PyObject *self, PyObject *args);  /* r8node.c */
PyObject *tg_cuts_below(PyObject *self, PyObject *args);    /* cuts.c */
PyObject *tg_cuts_by_scan(PyObject *self, PyObject *args);  /* cuts.c */
PyObject *tg_stable_order(PyObject *self, PyObject *args);  /* presort.c */

#endif
