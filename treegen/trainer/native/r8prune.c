/* Release 8's pruning in its own case order (module _cprune's r8_prune): the C walk
 * of treegen/trainer/release8/prune.py's _estimate, step for step.
 *
 * The Python walk costs a few numpy calls per node and per branch; with one class
 * per row (6,663 nodes, 34,895 estimates) that was a third of `train`'s time.  Here
 * the case array (order, weight) is reordered in place exactly as the Python walk
 * reorders it (Release 8's swaps to the front), every count and class sum runs in
 * position order in float, the Factor round trip multiplies and divides the
 * unknown cases' weights in float, and the bound is bound.h's add_errs (the same
 * libm calls in the same order as stats.ErrorBound).  The tree's records change as
 * the TNodes would: kind, cls, items, errors, the node whose structure a node now
 * has (src, subtree raising) and, per update, the classes present in its cases with
 * their sums (a snapshot; a node's dist is its latest one).  The equality with the
 * Python walk is tested in tests/trainer/test_release8_prune_native.py.
 *
 * This file reads and checks the arguments into an R8 record (r8prune.h); the walk
 * is in r8walk.c. */
#include "r8prune.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define R8_BUFS 19

/* Checks every index the walk will follow, so that it can trust them; the failure's
 * description or NULL. */
static const char *r8_check(R8 *p, Py_ssize_t N, Py_ssize_t n_rows, Py_ssize_t n_cont,
                            Py_ssize_t n_child, Py_ssize_t n_tab)
{
    for (Py_ssize_t i = 0; i < p->n1; i++)
        if (p->y[i] < 0 || p->y[i] >= p->C)
            return "class out of range";
    for (Py_ssize_t i = 0; i < n_rows; i++)
        if (p->order[i] < 0 || p->order[i] >= n_rows)
            return "order out of range";
    /* Each nominal column's largest code: a subset table must cover it. */
    int32_t *top = calloc((size_t)p->n_nom + 1, sizeof(int32_t));
    if (top == NULL)
        return "out of memory";
    for (Py_ssize_t i = 0; i < p->n1 * p->n_nom; i++) {
        const int32_t c = r8_code(p, i % p->n_nom, i / p->n_nom);
        if (c < 0) {
            free(top);
            return "negative code";
        }
        if (c > top[i % p->n_nom])
            top[i % p->n_nom] = c;
    }
    const char *bad = NULL;
    for (Py_ssize_t i = 0; i < N && !bad; i++) {
        const int64_t k = p->okind[i];
        if (p->kind[i] != k || p->src[i] != i || p->cls[i] < 0 || p->cls[i] >= p->C ||
            p->snap[i] != -1)
            bad = "bad initial record";
        else if (k == LEAF)
            continue;
        else if (k != CONTINUOUS && k != NOMINAL && k != SUBSET)
            bad = "bad kind";
        else if (p->child_start[i] < 0 || p->n_children[i] < 1 ||
                 p->child_start[i] + p->n_children[i] > n_child)
            bad = "bad children";
        else if (p->attr_pos[i] < 0 || p->attr_pos[i] >= (k == CONTINUOUS ? n_cont : p->n_nom))
            bad = "attribute out of range";
        else if (k == SUBSET &&
                 (p->tab_start[i] < 0 || p->tab_start[i] + top[p->attr_pos[i]] >= n_tab))
            bad = "subset table too short";
        for (int64_t j = 0; j < p->n_children[i] && !bad; j++) {
            const int64_t c = p->child_idx[p->child_start[i] + j];
            if (c <= i || c >= N)
                bad = "child index out of range";
        }
    }
    free(top);
    return bad;
}

/* r8_prune(log_cf, coeff, n_classes, y, cvals, ncodes, code_size, order, weight,
 *          okind, attr_pos, thresh, child_start, n_children, child_idx, tab_start, tab,
 *          kind, src, cls, items, errors, snap)
 *   -> (snapshot classes int32, their sums float32, snapshot starts int64) as bytes
 *
 * Release 8's pruning of the grown tree (node 0 the root, children after their
 * parent) on the case array order/weight (intp, float32, n_rows; changed in place as
 * the Python walk changes Cases), every weight 1 and AllKnown set at the start.
 * Data as treegen.trainer.context.Context holds it (y int64 (n_rows + 1); cvals
 * float32 (n_cont, n_rows + 1); ncodes int8/16/32 (n_rows + 1, n_nom)).  Tree arrays
 * int64 per node but thresh (float64) and tab (int32, a subset test's branch per
 * code from tab_start).  kind, src (= node index) and cls come in as grown; kind,
 * src, cls, items, errors and snap (-1 in) are the records out: a node whose snap is
 * set was updated, its dist the snapshot of that number.  The caller bounds the
 * tree's depth (the walk recurses once per level). */
PyObject *tg_r8_prune(PyObject *self, PyObject *args)
{
    PyObject *o[R8_BUFS];
    R8 p;
    Py_ssize_t code_size;
    (void)self;
    memset(&p, 0, sizeof p);
    if (!PyArg_ParseTuple(args, "ddnOOOnOOOOOOOOOOOOOOOO", &p.bd.log_cf, &p.bd.coeff, &p.C,
                          &o[0], &o[1], &o[2], &code_size, &o[3], &o[4], &o[5], &o[6], &o[7],
                          &o[8], &o[9], &o[10], &o[11], &o[12], &o[13], &o[14], &o[15], &o[16],
                          &o[17], &o[18]))
        return NULL;
    if (p.C < 1 || (code_size != 1 && code_size != 2 && code_size != 4)) {
        PyErr_SetString(PyExc_ValueError, "r8_prune: bad sizes");
        return NULL;
    }
    const Py_ssize_t n1 = tg_items(o[0], sizeof(int64_t));
    const Py_ssize_t N = tg_items(o[6], sizeof(int64_t));
    if (n1 < 1 || N < 1) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "r8_prune: no rows or no nodes");
        return NULL;
    }
    const Py_ssize_t n_rows = n1 - 1;
    const tg_spec spec[R8_BUFS] = {
        {0, 8, n1, "y"},          {0, 4, 0, "cvals"},      {0, code_size, 0, "ncodes"},
        {1, sizeof(Py_ssize_t), n_rows, "order"},           {1, 4, n_rows, "weight"},
        {0, 8, N, "okind"},       {0, 8, N, "attr_pos"},   {0, 8, N, "thresh"},
        {0, 8, N, "child_start"}, {0, 8, N, "n_children"}, {0, 8, 0, "child_idx"},
        {0, 8, N, "tab_start"},   {0, 4, 0, "tab"},        {1, 8, N, "kind"},
        {1, 8, N, "src"},         {1, 8, N, "cls"},        {1, 8, N, "items"},
        {1, 8, N, "errors"},      {1, 8, N, "snap"},
    };
    Py_buffer b[R8_BUFS];
    PyObject *result = NULL;
    const int got = tg_views(o, b, spec, R8_BUFS);
    if (got < R8_BUFS)
        goto done;
    p.y = b[0].buf;
    p.cvals = b[1].buf;
    p.ncodes = b[2].buf;
    p.code_size = code_size;
    p.n1 = n1;
    p.n_nom = b[2].len / code_size / n1;
    p.order = b[3].buf;
    p.weight = b[4].buf;
    p.okind = b[5].buf;
    p.attr_pos = b[6].buf;
    p.thresh = b[7].buf;
    p.child_start = b[8].buf;
    p.n_children = b[9].buf;
    p.child_idx = b[10].buf;
    p.tab_start = b[11].buf;
    p.tab = b[12].buf;
    p.kind = b[13].buf;
    p.src = b[14].buf;
    p.cls = b[15].buf;
    p.items = b[16].buf;
    p.errors = b[17].buf;
    p.snap = b[18].buf;
    {
        const char *bad = r8_check(&p, N, n_rows, b[1].len / 4 / n1, b[10].len / 8, b[12].len / 4);
        if (bad) {
            PyErr_Format(PyExc_ValueError, "r8_prune: %s", bad);
            goto done;
        }
    }
    p.acc = malloc((size_t)p.C * sizeof(float));
    p.stamp = calloc((size_t)p.C, sizeof(int64_t));
    p.touched = malloc((size_t)p.C * sizeof(int32_t));
    if (p.acc == NULL || p.stamp == NULL || p.touched == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    p.all_known = 1;
    if (tg_r8_walk(&p, n_rows) < 0) { /* the walk (r8walk.c) and its last snapshot */
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("(y#y#y#)", (const char *)p.s_cls, p.s_len * 4, (const char *)p.s_w,
                           p.s_len * 4, (const char *)p.s_start, p.n_snap * 8);
done:
    free(p.acc);
    free(p.stamp);
    free(p.touched);
    free(p.s_cls);
    free(p.s_w);
    free(p.s_start);
    tg_release(b, got);
    return result;
}
