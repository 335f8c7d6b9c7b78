/* What the pruning walk over a flat tree shares between cprune.c, which reads its
 * arguments into a Prune record, and the walk itself (cprunewalk.h, compiled once per
 * flavour into cprune.c): the record and its readers of a case's nominal code and
 * class; and the module's other entry points (cestimate.c, r8prune.c). */
#ifndef TREEGEN_NATIVE_CPRUNE_H
#define TREEGEN_NATIVE_CPRUNE_H

#include "common.h"
#include "bound.h"

/* Rows prefetched ahead in the walk. */
#define AHEAD 32

typedef struct {
    Bound bd;
    Py_ssize_t C;       /* classes */
    Py_ssize_t n1;      /* rows + 1: the stride of cvals */
    /* The case data as Context holds it; the walk reads a test's column of
     * cvals or ncodes and the class of each case.  (A table of one record a
     * row, every value of a row in one cache line, took 64 bytes a row
     * besides these: 64 MB at 1M rows, for a walk no faster.) */
    const int64_t *y;   /* class of each row, until cls holds it */
    const char *cvals;  /* continuous values, (n_cont, n1), NaN unknown; REAL */
    const char *ncodes; /* nominal codes, (n1, n_nom), 0 unknown, 1..k */
    Py_ssize_t n_nom, code_size, n_cont;
    uint16_t *rcls; /* each row's class (2 bytes a row where y takes 8) */
    /* The grown structure of each node (never changes). */
    const int8_t *okind;        /* grown kind */
    const int32_t *attr_pos;    /* row of cvals / column of ncodes */
    const double *thresh;       /* continuous cut */
    const int64_t *child_start; /* the first child's node */
    const int64_t *n_children;
    const int32_t *tab_start; /* subset tests: into tab, indexed by code */
    const int32_t *tab;
    /* The current record of each node (what its TNode holds as pruning edits it). */
    int8_t *kind; /* LEAF once made a leaf or after raising a leaf */
    int32_t *src; /* whose grown structure (test, children) it now has */
    int32_t *cls;
    double *items;
    double *errors;
    void *dist;      /* (nodes, C): float (c45), double (j48) */
    int8_t *updated; /* items, cls, dist and errors set by pruning */
    int failed;      /* out of memory */
} Prune;

static inline int32_t code_at(const Prune *p, Py_ssize_t pos, int64_t r)
{
    return tg_code_at(p->ncodes, p->code_size, (Py_ssize_t)r * p->n_nom + pos);
}

static inline int32_t class_of(const Prune *p, int64_t r)
{
    return p->rcls[r];
}

/* estimate_c45 / estimate_j48: the error bound over arrays (cestimate.c). */
PyObject *tg_estimate_c45(PyObject *self, PyObject *args);
PyObject *tg_estimate_j48(PyObject *self, PyObject *args);

/* Release 8's pruning in its case order (r8prune.c). */
PyObject *tg_r8_prune(PyObject *self, PyObject *args);

#endif
