/* What both trainer accelerator modules (_cscan, _cprune) need first: native.h
 * (Python.h, the float-evaluation guard, the buffer helpers), the constants shared
 * with Python (the class limit among them) and prefetching. */
#ifndef TREEGEN_NATIVE_COMMON_H
#define TREEGEN_NATIVE_COMMON_H

#include "native.h"
#include <string.h>

/* The numbers shared with the Python trainer have one home each,
 * treegen/trainer/constants.py and (the node kinds) treegen/model/constants.py;
 * setup.py passes each as -DTG_<NAME>=value.  Without them the build stops here
 * rather than guess. */
#if !defined(TG_EPSILON) || !defined(TG_J48_TOL) || !defined(TG_ADD_ERRS_ZERO) ||          \
    !defined(TG_J48_LOG_MIN) || !defined(TG_CUT_GAP) || !defined(TG_LN2) ||                 \
    !defined(TG_MAX_CLASSES) || !defined(TG_KIND_LEAF) || !defined(TG_KIND_CONTINUOUS) ||   \
    !defined(TG_KIND_NOMINAL) || !defined(TG_KIND_SUBSET)
#error "TG_* macros missing: build through setup.py (they come from treegen/trainer/constants.py)"
#endif

/* Per-class sums live on the C stack; more classes take the numpy path. */
#define MAX_CLASSES TG_MAX_CLASSES

/* 2^24: float32 holds every whole number up to it, so whole weights summing to at most
 * this add exactly in float (the many-class scans' exact path: sparse.c, r8score.c). */
#define EXACT_LIMIT 16777216.0

/* Node kinds, as treegen/trainer/constants.py numbers them (the pruning walks'
 * names for the TG_KIND_* codes). */
enum {
    LEAF = TG_KIND_LEAF,
    CONTINUOUS = TG_KIND_CONTINUOUS,
    NOMINAL = TG_KIND_NOMINAL,
    SUBSET = TG_KIND_SUBSET
};

/* The module attribute TG_CONSTANTS: the values this build was compiled
 * with (tests/trainer/test_trainer_native.py compares them with constants.py, which
 * catches a stale build).  0 on success, -1 with an exception set. */
static inline int tg_add_constants(PyObject *module)
{
    PyObject *d = Py_BuildValue(
        "{s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:i,s:i,s:i,s:i,s:i,s:i}", "EPSILON", TG_EPSILON,
        "J48_TOL", TG_J48_TOL, "ADD_ERRS_ZERO", TG_ADD_ERRS_ZERO, "J48_LOG_MIN",
        TG_J48_LOG_MIN, "CUT_GAP", TG_CUT_GAP,
        "GROUPING_MIN_RISE", TG_GROUPING_MIN_RISE, "LN2", TG_LN2, "RELEASE8_ORDER_MAX_ROWS",
        TG_RELEASE8_ORDER_MAX_ROWS, "MAX_CLASSES", TG_MAX_CLASSES, "KIND_LEAF", TG_KIND_LEAF,
        "KIND_CONTINUOUS", TG_KIND_CONTINUOUS, "KIND_NOMINAL", TG_KIND_NOMINAL, "KIND_SUBSET",
        TG_KIND_SUBSET);
    if (d == NULL)
        return -1;
    const int rc = PyModule_AddObjectRef(module, "TG_CONSTANTS", d);
    Py_DECREF(d);
    return rc;
}

/* The kernels read records of scattered cases whose positions are known a
 * few iterations ahead: prefetching hides most of the memory latency. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)0)
#endif

/* The nominal code at flat index i of a row-major (rows, attributes) code table whose
 * entries are code_size (1, 2 or 4) bytes wide and signed (-1: missing): the context's
 * narrowest exact form (treegen/trainer/context.py), which both pruners read. */
static inline int32_t tg_code_at(const char *codes, Py_ssize_t code_size, Py_ssize_t i)
{
    const char *at = codes + i * code_size;
    if (code_size == 1)
        return (int8_t)*at;
    if (code_size == 2) {
        int16_t c16;
        memcpy(&c16, at, 2);
        return c16;
    }
    int32_t c32;
    memcpy(&c32, at, 4);
    return c32;
}

#endif
