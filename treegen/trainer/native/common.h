/* What both accelerator modules (_cscan, _cprune) need first: Python.h, the
 * float-evaluation guard, the class limit and prefetching.
 *
 * FLT_EVAL_METHOD must be 0 (float arithmetic in float, as SSE does): with
 * x87 extended precision the running sums would not round like Release 8's,
 * so such targets get no accelerator (the build fails, setup.py goes on
 * without it).  setup.py also builds with -ffp-contract=off: a fused
 * multiply-add would round once where numpy and Python round twice. */
#ifndef TREEGEN_NATIVE_COMMON_H
#define TREEGEN_NATIVE_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <stdint.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float arithmetic must be evaluated in float (FLT_EVAL_METHOD == 0)"
#endif

/* Per-class sums live on the C stack; more classes take the numpy path
 * (treegen.trainer.native.MAX_CLASSES). */
#define MAX_CLASSES 4096

/* The kernels read records of scattered cases whose positions are known a
 * few iterations ahead: prefetching hides most of the memory latency. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)0)
#endif

#endif
