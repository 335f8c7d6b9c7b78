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
 * Python walk is tested in tests/trainer/test_release8_prune_native.py. */
#include "common.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"

enum {
    LEAF = TG_KIND_LEAF,
    CONTINUOUS = TG_KIND_CONTINUOUS,
    NOMINAL = TG_KIND_NOMINAL,
    SUBSET = TG_KIND_SUBSET
};

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

static int32_t r8_code(const R8 *p, Py_ssize_t pos, Py_ssize_t r)
{
    return tg_code_at(p->ncodes, p->code_size, r * p->n_nom + pos);
}

/* Whether the case at row r takes branch v (-1: the unknown value) of the test
 * with grown structure s (release8/grow.py passes_branch). */
static int r8_passes(const R8 *p, Py_ssize_t s, Py_ssize_t v, Py_ssize_t r)
{
    const int64_t k = p->okind[s];
    if (k == CONTINUOUS) {
        const float x = p->cvals[p->attr_pos[s] * p->n1 + r];
        if (v < 0)
            return isnan(x);
        const int below = x <= (float)p->thresh[s];
        return v == 0 ? below : !below && !isnan(x);
    }
    const int32_t code = r8_code(p, (Py_ssize_t)p->attr_pos[s], r);
    if (v < 0)
        return code == 0;
    if (k == SUBSET)
        return p->tab[p->tab_start[s] + code] == v;
    return code == v + 1;
}

/* Cases.to_front: the segment's cases at fp..lp taking branch v of s swapped to its
 * front one by one; the position after them.  Position i still holds the case it
 * held before the scan when the scan reaches it (earlier swaps touch only
 * positions before i), so testing it there is testing the segment as it was. */
static Py_ssize_t r8_front(R8 *p, Py_ssize_t s, Py_ssize_t v, Py_ssize_t fp, Py_ssize_t lp)
{
    Py_ssize_t k = fp;
    for (Py_ssize_t i = fp; i <= lp; i++)
        if (r8_passes(p, s, v, p->order[i])) {
            const Py_ssize_t to = p->order[k];
            const float tw = p->weight[k];
            p->order[k] = p->order[i];
            p->weight[k] = p->weight[i];
            p->order[i] = to;
            p->weight[i] = tw;
            k++;
        }
    return k;
}

/* Cases.count: the number of cases while AllKnown, else their weights' float sum
 * in position order. */
static double r8_count(const R8 *p, Py_ssize_t fp, Py_ssize_t lp)
{
    if (p->all_known)
        return lp >= fp ? (double)(lp - fp + 1) : 0.0;
    float s = 0;
    for (Py_ssize_t i = fp; i <= lp; i++)
        s += p->weight[i];
    return s;
}

/* Cases.scale: the weights at fp..kp-1 multiplied (or divided) by factor in float. */
static void r8_scale(R8 *p, Py_ssize_t fp, Py_ssize_t kp, float factor, int divide)
{
    for (Py_ssize_t i = fp; i < kp; i++)
        p->weight[i] = divide ? p->weight[i] / factor : p->weight[i] * factor;
}

/* Cases.class_freq over fp..lp into acc (the classes present listed in touched,
 * in the order met); returns how many are present. */
static Py_ssize_t r8_class_freq(R8 *p, Py_ssize_t fp, Py_ssize_t lp)
{
    Py_ssize_t m = 0;
    p->now++;
    for (Py_ssize_t i = fp; i <= lp; i++) {
        const int64_t c = p->y[p->order[i]];
        if (p->stamp[c] != p->now) {
            p->stamp[c] = p->now;
            p->acc[c] = 0;
            p->touched[m++] = (int32_t)c;
        }
        p->acc[c] += p->weight[i];
    }
    return m;
}

/* A node's new dist: the classes present now, as a snapshot; its number or -1. */
static int64_t r8_snapshot(R8 *p, Py_ssize_t m)
{
    if (p->n_snap + 2 > p->snap_cap) {
        Py_ssize_t cap = 2 * p->snap_cap + 64;
        int64_t *st = realloc(p->s_start, (size_t)cap * sizeof(int64_t));
        if (st == NULL)
            return -1;
        p->s_start = st;
        p->snap_cap = cap;
    }
    if (p->s_len + m > p->s_cap || p->s_cls == NULL) {
        Py_ssize_t cap = 2 * p->s_cap + m + 256;
        int32_t *sc = realloc(p->s_cls, (size_t)cap * sizeof(int32_t));
        if (sc == NULL)
            return -1;
        p->s_cls = sc;
        float *sw = realloc(p->s_w, (size_t)cap * sizeof(float));
        if (sw == NULL)
            return -1;
        p->s_w = sw;
        p->s_cap = cap;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        p->s_cls[p->s_len + j] = p->touched[j];
        p->s_w[p->s_len + j] = p->acc[p->touched[j]];
    }
    p->s_start[p->n_snap] = p->s_len;
    p->s_len += m;
    p->s_start[p->n_snap + 1] = p->s_len;
    return p->n_snap++;
}

/* _estimate(node t, fp, lp, update): t's estimated errors.  Recursion depth is the
 * tree's depth (the caller bounds it). */
static double r8_estimate(R8 *p, Py_ssize_t t, Py_ssize_t fp, Py_ssize_t lp, int update)
{
    const double n = r8_count(p, fp, lp);
    const Py_ssize_t m = r8_class_freq(p, fp, lp);
    /* The node's class unless a class is heavier: then the first of the largest
     * (numpy's argmax over every class; the absent ones weigh 0, no more than any). */
    Py_ssize_t best = (Py_ssize_t)p->cls[t];
    float top = 0, at_best = p->stamp[best] == p->now ? p->acc[best] : 0.0f;
    for (Py_ssize_t j = 0; j < m; j++)
        if (p->acc[p->touched[j]] > top)
            top = p->acc[p->touched[j]];
    if (at_best != top) {
        best = -1;
        for (Py_ssize_t j = 0; j < m; j++) {
            const int32_t c = p->touched[j];
            if (p->acc[c] == top && (best < 0 || c < best))
                best = c;
        }
        at_best = top;
    }
    const float leaf_errors = (float)n - at_best;
    const float leaf_est = leaf_errors + (float)add_errs(&p->bd, n, leaf_errors);
    if (update) {
        const int64_t k = r8_snapshot(p, m);
        if (k < 0) {
            p->failed = 1;
            return 0.0;
        }
        p->items[t] = n;
        p->cls[t] = best;
        p->snap[t] = k;
    }
    if (p->kind[t] == LEAF) {
        if (update)
            p->errors[t] = leaf_est;
        return leaf_est;
    }
    const Py_ssize_t s = (Py_ssize_t)p->src[t];
    const Py_ssize_t F = (Py_ssize_t)p->n_children[s];
    const int64_t *kids = p->child_idx + p->child_start[s];
    const Py_ssize_t kp = r8_front(p, s, -1, fp, lp);
    const float known_cases = (float)r8_count(p, kp, lp);
    const int was_known = p->all_known;
    if (kp != fp)
        p->all_known = 0;
    float tree_errors = 0, max_factor = 0;
    Py_ssize_t largest = -1;
    for (Py_ssize_t v = 0; v < F && !p->failed; v++) {
        const Py_ssize_t ep = r8_front(p, s, v, kp, lp) - 1;
        if (kp > ep)
            continue;
        const float factor = (float)r8_count(p, kp, ep) / known_cases;
        if (factor >= max_factor) {
            largest = v;
            max_factor = factor;
        }
        r8_scale(p, fp, kp, factor, 0);
        const double sub = r8_estimate(p, (Py_ssize_t)kids[v], fp, ep, update);
        tree_errors = tree_errors + (float)sub;
        r8_front(p, s, -1, fp, ep);
        r8_scale(p, fp, kp, factor, 1);
    }
    p->all_known = was_known;
    if (!update || p->failed)
        return tree_errors;
    /* Python's children[largest], -1 being the last. */
    const Py_ssize_t b = (Py_ssize_t)kids[largest < 0 ? F - 1 : largest];
    const double branch_errors = r8_estimate(p, b, fp, lp, 0);
    if (leaf_est <= branch_errors + R8_MARGIN && leaf_est <= (double)tree_errors + R8_MARGIN) {
        p->kind[t] = LEAF;
        p->errors[t] = leaf_est;
    } else if (branch_errors <= (double)tree_errors + R8_MARGIN) {
        r8_estimate(p, b, fp, lp, 1);
        p->kind[t] = p->kind[b];
        p->src[t] = p->src[b];
        p->cls[t] = p->cls[b];
        p->items[t] = p->items[b];
        p->errors[t] = p->errors[b];
        p->snap[t] = p->snap[b];
    } else {
        p->errors[t] = tree_errors;
    }
    p->all_known = was_known;
    return p->errors[t];
}

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
    if (n_rows > 0)
        r8_estimate(&p, 0, 0, n_rows - 1, 1);
    if (p.failed || r8_snapshot(&p, 0) < 0) { /* the last: s_start is never empty */
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
