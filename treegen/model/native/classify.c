/* Classification of many rows (classify), for treegen.model.classify.predict
 * (predict, cv, a j48 tree's eval) and, with Release 8's sums (3. below),
 * classify_r8.predict_r8 (a c45 tree's eval, and train's training errors).
 *
 * It computes what the numpy code computes, class for class:
 *
 *  1. The float descent (classify.py _proba on a row that meets no missing
 *     value): a continuous test sends x left when (float)x <= (float)t for a
 *     c45 model, x <= t for a j48 model; a nominal or subset test sends a code
 *     0..k-1 through the model's branch table.  A row reaching a leaf this way
 *     gets the leaf's class (fixedpoint.py leaf_class, precomputed).
 *  2. A row that meets a missing value (NaN, a code outside 0..k-1 or not
 *     integral, a subset value in no subset) is classified again from the
 *     root by fixedpoint.py FixedPointClassifier.predict: Q31 weights and branch
 *     shares, leaf distributions (Q15, scaled to Q31 by the caller) precomputed
 *     in Python (exact rationals) and passed as each leaf's classes of nonzero
 *     probability (a class of probability 0 adds 0 to its sum: with thousands of
 *     classes a dense nodes x classes table was 53 MB),
 *     known values compared with the exact boundary (B, inclusive) of
 *     bounds.model_bound; the first class with the largest sum wins.
 *  3. With release8 tables (classify_r8.py, a c45 model), pass 2 is Release 8's
 *     own float arithmetic instead (classify_r8.class_sums, the classes eval
 *     counts by): a float weight, an unknown value's branch weight
 *     (w * child items) / node items, a leaf adding (w * dist[c]) / items to
 *     each class with dist[c] nonzero (w to its class when it has no items),
 *     each step rounded to float, the leaves met depth first in branch order;
 *     the first largest sum wins (a NaN sum first, as numpy's argmax).  Pass
 *     1's leaf class is then the leaf's class under those sums, worked out
 *     here from the same leaf tables (leafcls then gives an empty leaf's class).
 *
 * The tables are checked before any row is read: children come after their
 * parent (so a descent ends), no node has two parents, every index is in range.  classify returns
 * False when they are not (the caller runs the numpy code instead). */
#include "native.h"

#include <math.h>

/* FLT_MAX + half its ulp (2^103): IEEE round-to-nearest takes a double at or
 * beyond it to infinity (the tie goes to infinity, FLT_MAX's significand being
 * odd), one below it to FLT_MAX.  Written out so the conversion below never
 * leaves float's range, where C leaves the result undefined. */
#define FLT_ROUND_UP_LIMIT ((double)FLT_MAX + 10141204801825835211973625643008.0)

/* (float)x as numpy's astype(float32) gives it, out-of-range values included. */
static float to_float(double x)
{
    if (x >= FLT_ROUND_UP_LIMIT)
        return (float)INFINITY;
    if (x <= -FLT_ROUND_UP_LIMIT)
        return -(float)INFINITY;
    if (x > (double)FLT_MAX)
        return FLT_MAX;
    if (x < -(double)FLT_MAX)
        return -FLT_MAX;
    return (float)x;
}

typedef struct {
    const double *X;
    Py_ssize_t n_attr, n_nodes, n_child, n_tab, n_prob;
    int f32, n_classes, shift, out_shift;
    const int32_t *kind, *attr, *nchild, *child, *bk, *btab, *leafcls;
    const int64_t *first, *boff, *poff;
    const float *thr32;
    const double *thr, *bound;
    const int8_t *incl;
    const int32_t *pcls;
    const uint32_t *share, *pval;
    /* Release 8's sums (NULL: the fixed-point pass): per node its items as a
     * float and whether they are above 0; per probability slot dist[c]. */
    const int8_t *nonempty;
    const float *items32, *dist32;
} tables;

/* The branch a nominal or subset test sends value v to, -1 when missing. */
static int32_t nominal_branch(const tables *t, Py_ssize_t i, double v)
{
    const int32_t k = t->bk[i];
    if (!(v >= 0.0 && v < (double)k && v == floor(v)))
        return -1;
    return t->btab[t->boff[i] + (int64_t)v];
}

/* Pass 1: the leaf reached with known values only, or -1 at a missing value. */
static Py_ssize_t descend(const tables *t, const double *x)
{
    Py_ssize_t i = 0;
    while (t->kind[i] != TG_KIND_LEAF) {
        const double v = x[t->attr[i]];
        int32_t b;
        if (t->kind[i] == TG_KIND_CONTINUOUS) {
            if (isnan(v))
                return -1;
            b = t->f32 ? !(to_float(v) <= t->thr32[i]) : !(v <= t->thr[i]);
        } else {
            b = nominal_branch(t, i, v);
            if (b < 0)
                return -1;
        }
        i = t->child[t->first[i] + b];
    }
    return i;
}

/* Pass 2: the fixed-point class of a row (FixedPointClassifier.predict).
 * stack holds n_nodes entries: a node is pushed at most once per row. */
static int32_t fixed_class(const tables *t, const double *x, Py_ssize_t *stack_node,
                           uint64_t *stack_w, uint64_t *acc)
{
    const int nc = t->n_classes;
    for (int c = 0; c < nc; c++)
        acc[c] = 0;
    Py_ssize_t top = 0;
    stack_node[top] = 0;
    stack_w[top++] = (uint64_t)1 << t->shift;
    while (top > 0) {
        const Py_ssize_t i = stack_node[--top];
        const uint64_t w = stack_w[top];
        if (t->kind[i] == TG_KIND_LEAF) {
            for (int64_t j = t->poff[i]; j < t->poff[i + 1]; j++)
                acc[t->pcls[j]] += (w * t->pval[j]) >> t->shift;
            continue;
        }
        const double v = x[t->attr[i]];
        int32_t b;
        if (t->kind[i] == TG_KIND_CONTINUOUS) {
            /* x < B, or x == B when inclusive; an infinite threshold has B = +-inf,
             * inclusive for +inf: every known value left, or every one right. */
            if (isnan(v))
                b = -1;
            else
                b = !(v < t->bound[i] || (t->incl[i] && v == t->bound[i]));
        } else {
            b = nominal_branch(t, i, v);
        }
        const int64_t first = t->first[i];
        if (b >= 0) {
            stack_node[top] = t->child[first + b];
            stack_w[top++] = w;
            continue;
        }
        for (int32_t j = 0; j < t->nchild[i]; j++) {
            stack_node[top] = t->child[first + j];
            stack_w[top++] = (w * t->share[first + j]) >> t->shift;
        }
    }
    /* The first largest probability: each sum rounded down as predict_proba's. */
    int32_t best = 0;
    for (int c = 1; c < nc; c++)
        if ((acc[c] >> t->out_shift) > (acc[best] >> t->out_shift))
            best = c;
    return best;
}

/* Release 8's leaf i adding a row of weight w to the class sums acc:
 * (w * dist[c]) / items to each class with dist[c] nonzero, w to its own
 * class (leafcls) when it has no items. */
static void release8_add_leaf(const tables *t, Py_ssize_t i, float w, float *acc)
{
    if (t->nonempty[i]) {
        for (int64_t j = t->poff[i]; j < t->poff[i + 1]; j++) {
            const float p = w * t->dist32[j];
            acc[t->pcls[j]] += p / t->items32[i];
        }
    } else {
        acc[t->leafcls[i]] += w;
    }
}

/* The class of the first largest sum, a NaN sum first (numpy's argmax). */
static int32_t first_largest(const float *acc, int nc)
{
    int32_t best = 0;
    for (int c = 0; c < nc; c++) {
        if (isnan(acc[c]))
            return c;
        if (acc[c] > acc[best])
            best = c;
    }
    return best;
}

/* Pass 2 in Release 8's float arithmetic (classify_r8.class_sums), for a row.
 * Floats throughout: no product here feeds an addition, so no contraction
 * to a fused multiply-add can change a rounding. */
static int32_t release8_class(const tables *t, const double *x, Py_ssize_t *stack_node,
                              float *stack_w, float *acc)
{
    const int nc = t->n_classes;
    for (int c = 0; c < nc; c++)
        acc[c] = 0.0f;
    Py_ssize_t top = 0;
    stack_node[top] = 0;
    stack_w[top++] = 1.0f;
    while (top > 0) {
        const Py_ssize_t i = stack_node[--top];
        const float w = stack_w[top];
        if (t->kind[i] == TG_KIND_LEAF) {
            release8_add_leaf(t, i, w, acc);
            continue;
        }
        const double v = x[t->attr[i]];
        int32_t b;
        if (t->kind[i] == TG_KIND_CONTINUOUS)
            b = isnan(v) ? -1 : !(to_float(v) <= t->thr32[i]);
        else
            b = nominal_branch(t, i, v);
        const int64_t first = t->first[i];
        if (b >= 0) {
            stack_node[top] = t->child[first + b];
            stack_w[top++] = w;
            continue;
        }
        /* Pushed last to first: the first branch's leaves are added first. */
        for (int32_t j = t->nchild[i] - 1; j >= 0; j--) {
            const int32_t c = t->child[first + j];
            const float p = w * t->items32[c];
            stack_node[top] = c;
            stack_w[top++] = p / t->items32[i];
        }
    }
    return first_largest(acc, nc);
}

/* Release 8's class of each leaf for a row of weight 1 that meets no unknown
 * value (classify_r8.class_sums' sums for such a row are that leaf's alone),
 * into cls; acc: n_classes floats. */
static void release8_leaf_classes(const tables *t, int32_t *cls, float *acc)
{
    for (Py_ssize_t i = 0; i < t->n_nodes; i++) {
        cls[i] = 0;
        if (t->kind[i] != TG_KIND_LEAF)
            continue;
        for (int c = 0; c < t->n_classes; c++)
            acc[c] = 0.0f;
        release8_add_leaf(t, i, 1.0f, acc);
        cls[i] = first_largest(acc, t->n_classes);
    }
}

/* Whether the tables describe a tree classify can walk safely: every child after
 * its parent and the child of one parent only (so a row's fixed-point walk pushes
 * each node at most once: the stack's n_nodes entries suffice).  seen: n_nodes
 * zeroed bytes. */
static int tables_ok(const tables *t, unsigned char *seen)
{
    for (Py_ssize_t j = 0; j < t->n_prob; j++)
        if (t->pcls[j] < 0 || t->pcls[j] >= t->n_classes)
            return 0;
    for (Py_ssize_t i = 0; i < t->n_nodes; i++)
        if (t->poff[i] < 0 || t->poff[i] > t->poff[i + 1] || t->poff[i + 1] > t->n_prob)
            return 0;
    for (Py_ssize_t i = 0; i < t->n_nodes; i++) {
        const int32_t k = t->kind[i];
        if (k != TG_KIND_LEAF && k != TG_KIND_CONTINUOUS && k != TG_KIND_NOMINAL &&
            k != TG_KIND_SUBSET)
            return 0;
        if (k == TG_KIND_LEAF) {
            if (t->leafcls[i] < 0 || t->leafcls[i] >= t->n_classes)
                return 0;
            continue;
        }
        if (t->attr[i] < 0 || t->attr[i] >= t->n_attr || t->nchild[i] < 1 || t->first[i] < 0 ||
            t->first[i] + t->nchild[i] > t->n_child)
            return 0;
        if (t->kind[i] == TG_KIND_CONTINUOUS && t->nchild[i] != 2)
            return 0;
        for (int32_t j = 0; j < t->nchild[i]; j++) {
            const int32_t c = t->child[t->first[i] + j];
            if (c <= i || c >= t->n_nodes || seen[c])
                return 0;
            seen[c] = 1;
        }
        if (t->kind[i] != TG_KIND_CONTINUOUS) {
            if (t->bk[i] < 0 || t->boff[i] < 0 || t->boff[i] + t->bk[i] > t->n_tab)
                return 0;
            for (int32_t v = 0; v < t->bk[i]; v++)
                if (t->btab[t->boff[i] + v] < -1 || t->btab[t->boff[i] + v] >= t->nchild[i])
                    return 0;
        }
    }
    return 1;
}

/* classify(X, n_attr, f32, n_classes, shift, out_shift, kind, attr, thr32, thr,
 *          bound, incl, first, nchild, child, share, boff, bk, btab, leafcls, poff,
 *          pcls, pval, out)
 * -> True, or False when the tables are not a walkable tree.
 * shift: fixedpoint.W_SHIFT (the weight 1.0 is 1 << shift; a weight times a share
 * or a leaf's probability, both below 2^32, fits the uint64_t product);
 * out_shift: fixedpoint.SUM_TO_PROBA (a class sum >> out_shift is its probability,
 * and the class is the first largest of those).
 * X: n rows of n_attr doubles; per node (n_nodes): kind, attr, nchild, bk,
 * leafcls (int32), thr32 (float32), thr, bound (double), incl (int8), first,
 * boff (int64); per child slot: child (int32), share (uint32); btab (int32);
 * a leaf i's probabilities: the classes pcls[poff[i] .. poff[i+1]-1] (int32) have
 * pval (uint32) at the same places, the others 0 (poff: n_nodes + 1 int64);
 * out: n int64 classes.
 * Optional, Release 8's sums for pass 2 (all three or none): nonempty (int8)
 * and items32 (float32) per node, dist32 (float32) per probability slot; pcls,
 * poff and leafcls then describe Release 8's leaves (every class with nonzero
 * dist, its own class), and bound, incl, share and pval are not read. */
PyObject *tg_classify(PyObject *self, PyObject *args)
{
    enum { NB = 19, NR = 22 };
    PyObject *o[NR] = {NULL};
    Py_ssize_t n_attr;
    int f32, n_classes, shift, out_shift;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnpiiiOOOOOOOOOOOOOOOOOO|OOO", &o[0], &n_attr, &f32,
                          &n_classes, &shift, &out_shift, &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &o[13], &o[14],
                          &o[15], &o[16], &o[17], &o[18], &o[19], &o[20], &o[21]))
        return NULL;
    const int r8 = o[19] != NULL;
    if (r8 != (o[20] != NULL) || r8 != (o[21] != NULL)) {
        PyErr_SetString(PyExc_TypeError, "classify: give nonempty, items32 and dist32 together");
        return NULL;
    }
    const int nb = r8 ? NR : NB;
    Py_buffer b[NR];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t n_cells, n_nodes, n_child, n_tab, n_prob, n;
    if (n_attr < 1 || n_classes < 1 || shift < 1 || shift > 31 || out_shift < 0 ||
        out_shift > shift) {
        PyErr_SetString(PyExc_ValueError, "classify: bad n_attr, n_classes or shift");
        return NULL;
    }
    if ((n_cells = tg_items(o[0], sizeof(double))) < 0 ||
        (n_nodes = tg_items(o[1], sizeof(int32_t))) < 0 ||
        (n_child = tg_items(o[9], sizeof(int32_t))) < 0 ||
        (n_tab = tg_items(o[13], sizeof(int32_t))) < 0 ||
        (n_prob = tg_items(o[16], sizeof(int32_t))) < 0 ||
        (n = tg_items(o[18], sizeof(int64_t))) < 0)
        return NULL;
    if (n_nodes < 1 || n_cells != n * n_attr) {
        PyErr_SetString(PyExc_ValueError, "classify: X must hold n * n_attr values");
        return NULL;
    }
    const tg_spec spec[NR] = {
        {0, sizeof(double), n_cells, "X"},
        {0, sizeof(int32_t), n_nodes, "kind"},
        {0, sizeof(int32_t), n_nodes, "attr"},
        {0, sizeof(float), n_nodes, "thr32"},
        {0, sizeof(double), n_nodes, "thr"},
        {0, sizeof(double), n_nodes, "bound"},
        {0, sizeof(int8_t), n_nodes, "incl"},
        {0, sizeof(int64_t), n_nodes, "first"},
        {0, sizeof(int32_t), n_nodes, "nchild"},
        {0, sizeof(int32_t), n_child, "child"},
        {0, sizeof(uint32_t), n_child, "share"},
        {0, sizeof(int64_t), n_nodes, "boff"},
        {0, sizeof(int32_t), n_nodes, "bk"},
        {0, sizeof(int32_t), n_tab, "btab"},
        {0, sizeof(int32_t), n_nodes, "leafcls"},
        {0, sizeof(int64_t), n_nodes + 1, "poff"},
        {0, sizeof(int32_t), n_prob, "pcls"},
        {0, sizeof(uint32_t), n_prob, "pval"},
        {1, sizeof(int64_t), n, "out"},
        {0, sizeof(int8_t), n_nodes, "nonempty"},
        {0, sizeof(float), n_nodes, "items32"},
        {0, sizeof(float), n_prob, "dist32"},
    };
    if ((got = tg_views(o, b, spec, nb)) < nb)
        goto done;
    {
        const tables t = {
            .X = b[0].buf, .n_attr = n_attr, .n_nodes = n_nodes, .n_child = n_child,
            .n_tab = n_tab, .n_prob = n_prob, .f32 = f32, .n_classes = n_classes, .shift = shift,
            .out_shift = out_shift,
            .kind = b[1].buf, .attr = b[2].buf, .thr32 = b[3].buf, .thr = b[4].buf,
            .bound = b[5].buf, .incl = b[6].buf, .first = b[7].buf, .nchild = b[8].buf,
            .child = b[9].buf, .share = b[10].buf, .boff = b[11].buf, .bk = b[12].buf,
            .btab = b[13].buf, .leafcls = b[14].buf, .poff = b[15].buf, .pcls = b[16].buf,
            .pval = b[17].buf,
            .nonempty = r8 ? b[19].buf : NULL, .items32 = r8 ? b[20].buf : NULL,
            .dist32 = r8 ? b[21].buf : NULL,
        };
        int64_t *out = b[18].buf;
        unsigned char *seen = PyMem_Calloc((size_t)n_nodes, 1);
        if (seen == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        const int ok = tables_ok(&t, seen);
        PyMem_Free(seen);
        if (!ok) {
            result = Py_NewRef(Py_False);
            goto done;
        }
        /* The weights and sums: uint64_t for the fixed-point pass, float for
         * Release 8's (both fit in the uint64_t slots). */
        Py_ssize_t *stack_node = PyMem_Malloc((size_t)n_nodes * sizeof(Py_ssize_t));
        uint64_t *stack_w = PyMem_Malloc((size_t)n_nodes * sizeof(uint64_t));
        uint64_t *acc = PyMem_Malloc((size_t)n_classes * sizeof(uint64_t));
        int32_t *r8cls = r8 ? PyMem_Malloc((size_t)n_nodes * sizeof(int32_t)) : NULL;
        if (stack_node == NULL || stack_w == NULL || acc == NULL || (r8 && r8cls == NULL)) {
            PyMem_Free(stack_node);
            PyMem_Free(stack_w);
            PyMem_Free(acc);
            PyMem_Free(r8cls);
            PyErr_NoMemory();
            goto done;
        }
        float *stack_f = (float *)(void *)stack_w, *acc_f = (float *)(void *)acc;
        /* Pass 1's leaf classes: the tables' own, or the ones Release 8's sums give. */
        const int32_t *leaf_class = r8 ? r8cls : t.leafcls;
        Py_BEGIN_ALLOW_THREADS
        if (r8)
            release8_leaf_classes(&t, r8cls, acc_f);
        for (Py_ssize_t r = 0; r < n; r++) {
            const double *x = t.X + r * n_attr;
            const Py_ssize_t leaf = descend(&t, x);
            if (leaf >= 0)
                out[r] = leaf_class[leaf];
            else if (r8)
                out[r] = release8_class(&t, x, stack_node, stack_f, acc_f);
            else
                out[r] = fixed_class(&t, x, stack_node, stack_w, acc);
        }
        Py_END_ALLOW_THREADS
        PyMem_Free(stack_node);
        PyMem_Free(stack_w);
        PyMem_Free(acc);
        PyMem_Free(r8cls);
    }
    result = Py_NewRef(Py_True);
done:
    tg_release(b, got);
    return result;
}
