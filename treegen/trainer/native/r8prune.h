/* What Release 8's pruning in its case order shares between r8prune.c, which reads
 * its arguments into an R8 record and checks them, and r8walk.c, the walk itself: the
 * record, a case's nominal code, and the walk's entry. */
#ifndef TREEGEN_NATIVE_R8PRUNE_H
#define TREEGEN_NATIVE_R8PRUNE_H

#include "common.h"
#include "bound.h"

/* Errors a simpler tree may add and still be preferred (release8/prune.py MARGIN). */
#define R8_MARGIN 0.1

typedef struct {
    Bound bd;
    Py_ssize_t C;
    const int64_t *y;     /* class of each row */
    const float *cvals;   /* (n_cont, n1), NaN unknown */
    const char *ncodes;   /* (n1, n_nom), 0 unknown */
    Py_ssize_t n1, n_nom, code_size;
    Py_ssize_t *order;    /* the case array: row at each position */
    float *weight;        /* and its weight there */
    int all_known;        /* Release 8's AllKnown */
    /* The grown structure. */
    const int64_t *okind, *attr_pos, *child_start, *n_children, *child_idx, *tab_start;
    const double *thresh;
    const int32_t *tab;
    /* The records (outputs). */
    int64_t *kind, *src, *cls, *snap;
    double *items, *errors;
    /* Class sums of a segment: acc[c] valid where stamp[c] == now. */
    float *acc;
    int64_t *stamp, now;
    int32_t *touched;
    /* Snapshots: snap k's classes and sums are s_cls/s_w[s_start[k] .. s_start[k + 1]). */
    int32_t *s_cls;
    float *s_w;
    Py_ssize_t s_len, s_cap;
    int64_t *s_start;
    Py_ssize_t n_snap, snap_cap;
    int failed;
} R8;

static inline int32_t r8_code(const R8 *p, Py_ssize_t pos, Py_ssize_t r)
{
    return tg_code_at(p->ncodes, p->code_size, r * p->n_nom + pos);
}

/* Release 8's _estimate from the root over the cases at positions 0 .. n_rows - 1
 * (none: no walk), then the last snapshot (s_start is never empty): 0, or -1 out of
 * memory. */
int tg_r8_walk(R8 *p, Py_ssize_t n_rows);

#endif
