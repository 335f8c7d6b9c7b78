/* What every accelerator module of treegen needs first (the model's classifier here,
 * the trainer's and c4.5rules' kernels): Python.h, the float-evaluation guard and the
 * helpers that take numpy arrays as C buffers (buffers.c, compiled into each module).
 *
 * FLT_EVAL_METHOD must be 0 (float arithmetic in float, as SSE does): with x87
 * extended precision the float sums would not round like Release 8's, so such
 * targets get no accelerator (the build fails, setup.py goes on without it).
 * setup.py also builds with -ffp-contract=off: a fused multiply-add would round once
 * where numpy and Python round twice. */
#ifndef TREEGEN_NATIVE_H
#define TREEGEN_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <stdint.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float arithmetic must be evaluated in float (FLT_EVAL_METHOD == 0)"
#endif

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

#endif
