/* Shared by the growth accelerator's C files (module _cscan): includes,
 * the float-evaluation guard, prefetching and the buffer helper.
 *
 * Every kernel computes exactly what the numpy code it replaces computes
 * (the same float operations in the same order); the Python side is in
 * treegen/trainer/level.py, partition.py and splits.py, the equality tests
 * in tests/test_trainer_native.py.
 *
 * Built with -ffp-contract=off (setup.py): a fused multiply-add would round
 * once where numpy rounds twice.  FLT_EVAL_METHOD must be 0 (float
 * arithmetic in float, as SSE does): with x87 extended precision the running
 * sums would not round like Release 8's, so such targets get no accelerator. */
#ifndef TREEGEN_CSCAN_H
#define TREEGEN_CSCAN_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <stdint.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float arithmetic must be evaluated in float (FLT_EVAL_METHOD == 0)"
#endif

#define MAX_CLASSES 4096

/* The kernels read records of cases scattered over the bucket, whose
 * positions are known a few iterations ahead: prefetching hides most of the
 * memory latency. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)0)
#endif
#define AHEAD 16

/* A read-only or writable view of a C-contiguous buffer of at least n items
 * of the given size; -1 with a Python exception set otherwise. */
int tg_view(PyObject *o, Py_buffer *b, int writable, Py_ssize_t itemsize, Py_ssize_t n,
            const char *name);

/* The kernels (METH_VARARGS functions), one file per concern. */
PyObject *tg_scan_cont(PyObject *self, PyObject *args);     /* scan.c */
PyObject *tg_best_cuts(PyObject *self, PyObject *args);     /* scan.c */
PyObject *tg_part_sorted(PyObject *self, PyObject *args);   /* part.c */
PyObject *tg_emit_children(PyObject *self, PyObject *args); /* part.c */
PyObject *tg_add_at(PyObject *self, PyObject *args);        /* counts.c */
PyObject *tg_nominal_counts(PyObject *self, PyObject *args); /* counts.c */
PyObject *tg_gather_values(PyObject *self, PyObject *args); /* counts.c */

#endif
