/* The walk's state (rwalk.c walks, rwalknew.c sets it up from walk_new's arguments):
 * views of the tree's shape and the cases' bitsets, and its own rows, levels and
 * stack, in the capsule Python holds. */
#ifndef TREEGEN_RWALK_H
#define TREEGEN_RWALK_H

#include "crules.h"


enum { B_KIND, B_ATTR, B_THR, B_KID_AT, B_KIDS, B_OK, B_CLS, B_EKEY, B_XKEY, B_SUB_TAB, B_SUB_AT,
       B_SUB_N, B_EQ, B_EQ_AT, B_COL_AT, B_KNOWN, B_WRONG, B_WRONG_AT, B_DEFAULT, B_PLACES,
       B_EDGES, B_N };

typedef struct {
    Py_buffer b[B_N];
    Py_buffer *cols; /* the continuous columns' views (ncols) */
    Py_ssize_t ncols;
    const int8_t *kind;
    const int32_t *attr, *kid_at, *kids, *cls, *ekey, *xkey, *sub_tab, *sub_n, *eq_at, *col_at,
        *wrong_at;
    const double *thr, *default_err;
    const uint8_t *ok;
    const int64_t *sub_at;
    const word *eq, *known, *wrong;
    int64_t *places, *edges; /* the caller's: the kept conditions' places and tree edges */
    Bound bd;
    Py_ssize_t n, W, D, cap, top, leaves, k, count;
    word *sat, *levels;
    const word **rows; /* per depth: the path's condition's satisfied cases (a row of sat or eq) */
    const word **kept; /* walk_rows' kept conditions' rows (PruneRule's alive ones before) */
    /* per depth d: the words from span[2d] to span[2d + 1] - 1 hold the cases failing
     * none of the path's first d conditions (those reaching its node at depth d: one
     * run in the leaves' case order) */
    Py_ssize_t *span;
    double *orders;
    int64_t *edge;                     /* per depth: the path's edge (index into kids) */
    int32_t *stack;                    /* (edge, parent, depth) */
    int32_t *below_of;                 /* per depth: the node whose <= cases the row holds */
    long long *tot, *err;              /* prune scratch */
    Py_ssize_t *al;
    int32_t *list, *key;
    char *alive, *done;
    /* the last cuts' <= cases (a cut recurs over the tree: 2,304 threshold tests of
     * 1,284 distinct cuts at 100k rows), a slot by the cut's hash */
    word *cut_rows;
    int32_t *cut_attr;
    float *cut_value;
    int cut_shift; /* 32 - log2(slots) */
    KeySet keys;   /* the rules so far, by SameRule key */
    /* PruneRule's states after a drop, of the leaves so far (rprune.h): emptied when past
     * state_most ints (a leaf meets those of its neighbours: siblings and cousins) */
    KeySet states;
    int32_t *ids; /* per depth: the path's edge's xkey */
    Py_ssize_t state_most, hits, clears;
} Walk;

/* The cache's slots: 64, or fewer as the rows grow (about 2 MB of them at most, 2 at
 * least; at 1M rows 16): a power of two, a slot by the top bits of the hash. */
enum { CUT_SLOTS_MOST = 64, CUT_BYTES = 2 << 20 };

#define WALK_NAME "treegen.rules.walk" /* the capsule's name */

/* Push node p's children that the walk visits (rwalk.c). */
void tg_walk_push_kids(Walk *w, int32_t p, int32_t depth);

#endif
