/* J48's class distribution of many rows (j48_distribution), for
 * treegen.committee.weka.distribution: Weka's ClassifierTree.getProbs, row by
 * row, on the flat tables that module builds (its _Flat).
 *
 * For one row arriving at a node with weight w:
 *  - a leaf answers w * prob[node][c];
 *  - a test whose value is known (a continuous value v with v - thr < tol goes
 *    to branch 0, else 1; a nominal code 0..k-1, integral, through the value
 *    map) follows that branch with w, or, when the branch was built empty,
 *    answers w * prob[node][c] (the test's own class frequencies);
 *  - a missing value (NaN, a code outside 0..k-1 or not integral, a value the
 *    map sends nowhere) answers 0 + r_0 + r_1 + ... over the non-empty branches
 *    in branch order, r_b the branch's answer at weight share[child] * w.
 * The same double operations in the same order as the numpy code, hence the
 * same bits (tests/committee/test_committee_vote.py).  The tables are checked
 * first: children after their parent, indices in range; the function returns
 * False when they are not (the caller runs the numpy code). */
#include "native.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    const double *X;
    double tol; /* Weka's Utils.SMALL, the caller's (committee/weka.py WEKA_TOL) */
    Py_ssize_t n_attr, n_nodes, n_child, n_map;
    int n_classes;
    const uint8_t *leaf, *empty, *cont;
    const int64_t *attr, *start, *count, *children, *moff, *mk, *vmap;
    const double *thr, *share, *prob;
} wtables;

/* The branch row x takes at test i, -1 for a missing value. */
static int64_t branch(const wtables *t, Py_ssize_t i, const double *x)
{
    const double v = x[t->attr[i]];
    if (v != v)
        return -1;
    if (t->cont[i])
        return v - t->thr[i] < t->tol ? 0 : 1;
    if (!(v >= 0 && v < (double)t->mk[i] && v == floor(v)))
        return -1;
    return t->vmap[t->moff[i] + (int64_t)v];
}

/* getProbs of node i for row x at weight w into out (n_classes doubles);
 * scratch: n_classes doubles per level of missing-value nesting below. */
static void probs(const wtables *t, const double *x, Py_ssize_t i, double w, double *out,
                  double *scratch)
{
    const int C = t->n_classes;
    for (;;) {
        if (t->leaf[i])
            break;
        const int64_t b = branch(t, i, x);
        if (b >= 0) {
            const int64_t ch = t->children[t->start[i] + b];
            if (t->empty[ch])
                break; /* the test's own class frequencies, at node i */
            i = (Py_ssize_t)ch;
            continue;
        }
        for (int c = 0; c < C; c++)
            out[c] = 0.0;
        for (int64_t k = 0; k < t->count[i]; k++) {
            const int64_t ch = t->children[t->start[i] + k];
            if (t->empty[ch])
                continue;
            probs(t, x, (Py_ssize_t)ch, t->share[ch] * w, scratch, scratch + C);
            for (int c = 0; c < C; c++)
                out[c] = out[c] + scratch[c];
        }
        return;
    }
    const double *p = t->prob + (Py_ssize_t)i * C;
    for (int c = 0; c < C; c++)
        out[c] = w * p[c];
}

/* Children after their parent, every index in range; the deepest nesting. */
static int check(const wtables *t, Py_ssize_t *depth_out)
{
    int64_t *depth = calloc((size_t)t->n_nodes, sizeof(int64_t));
    if (depth == NULL)
        return -1;
    int64_t deepest = 0;
    int ok = 1;
    for (Py_ssize_t i = 0; i < t->n_nodes && ok; i++) {
        if (t->leaf[i])
            continue;
        if (t->attr[i] < 0 || t->attr[i] >= t->n_attr || t->start[i] < 0 || t->count[i] < 0 ||
            t->start[i] + t->count[i] > t->n_child) {
            ok = 0;
            break;
        }
        if (!t->cont[i] && (t->moff[i] < 0 || t->mk[i] < 0 || t->moff[i] + t->mk[i] > t->n_map))
            ok = 0;
        for (int64_t k = 0; k < t->count[i] && ok; k++) {
            const int64_t ch = t->children[t->start[i] + k];
            if (ch <= i || ch >= t->n_nodes)
                ok = 0;
            else {
                depth[ch] = depth[i] + 1;
                if (depth[ch] > deepest)
                    deepest = depth[ch];
            }
        }
        for (int64_t k = 0; !t->cont[i] && k < t->mk[i] && ok; k++)
            if (t->vmap[t->moff[i] + k] < -1 || t->vmap[t->moff[i] + k] >= t->count[i])
                ok = 0;
    }
    free(depth);
    *depth_out = (Py_ssize_t)deepest;
    return ok;
}

/* j48_distribution(X, n_attr, n_classes, tol, leaf, empty, cont, attr, thr, start, count,
 *                  children, share, prob, moff, mk, vmap, out) -> bool
 * X: (n, n_attr) double; per node: leaf/empty/cont uint8, attr/start/count/moff/mk
 * int64, thr/share double, prob (n_nodes, n_classes) double; children, vmap int64;
 * out: (n, n_classes) double, written. */
PyObject *tg_j48_distribution(PyObject *self, PyObject *args)
{
    enum { NB = 15 };
    PyObject *o[NB];
    Py_ssize_t n_attr, n_classes;
    double tol;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnndOOOOOOOOOOOOOO", &o[0], &n_attr, &n_classes, &tol, &o[1],
                          &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &o[9], &o[10],
                          &o[11], &o[12], &o[13], &o[14]))
        return NULL;
    if (n_attr < 1 || n_classes < 1 || n_classes > 1 << 20) {
        PyErr_SetString(PyExc_ValueError, "j48_distribution: bad sizes");
        return NULL;
    }
    Py_ssize_t NX, NN, NCH, NM;
    if ((NX = tg_items(o[0], sizeof(double))) < 0 || (NN = tg_items(o[1], 1)) < 0 ||
        (NCH = tg_items(o[8], sizeof(int64_t))) < 0 || (NM = tg_items(o[13], sizeof(int64_t))) < 0)
        return NULL;
    const Py_ssize_t n = NX / n_attr;
    const tg_spec spec[NB] = {
        {0, sizeof(double), n * n_attr, "X"},
        {0, 1, NN, "leaf"},
        {0, 1, NN, "empty"},
        {0, 1, NN, "cont"},
        {0, sizeof(int64_t), NN, "attr"},
        {0, sizeof(double), NN, "thr"},
        {0, sizeof(int64_t), NN, "start"},
        {0, sizeof(int64_t), NN, "count"},
        {0, sizeof(int64_t), NCH, "children"},
        {0, sizeof(double), NN, "share"},
        {0, sizeof(double), NN * n_classes, "prob"},
        {0, sizeof(int64_t), NN, "moff"},
        {0, sizeof(int64_t), NN, "mk"},
        {0, sizeof(int64_t), NM, "vmap"},
        {1, sizeof(double), n * n_classes, "out"},
    };
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    double *scratch = NULL;
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        wtables t = {
            .X = b[0].buf,
            .tol = tol,
            .n_attr = n_attr,
            .n_nodes = NN,
            .n_child = NCH,
            .n_map = NM,
            .n_classes = (int)n_classes,
            .leaf = b[1].buf,
            .empty = b[2].buf,
            .cont = b[3].buf,
            .attr = b[4].buf,
            .thr = b[5].buf,
            .start = b[6].buf,
            .count = b[7].buf,
            .children = b[8].buf,
            .share = b[9].buf,
            .prob = b[10].buf,
            .moff = b[11].buf,
            .mk = b[12].buf,
            .vmap = b[13].buf,
        };
        double *out = b[14].buf;
        Py_ssize_t deepest = 0;
        const int ok = NN > 0 ? check(&t, &deepest) : 0;
        if (ok < 0) {
            PyErr_NoMemory();
            goto done;
        }
        if (!ok) {
            result = Py_NewRef(Py_False);
            goto done;
        }
        scratch = malloc(sizeof(double) * (size_t)n_classes * (size_t)(deepest + 2));
        if (scratch == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t r = 0; r < n; r++)
            probs(&t, t.X + r * n_attr, 0, 1.0, out + r * n_classes, scratch);
        Py_END_ALLOW_THREADS
    }
    result = Py_NewRef(Py_True);
done:
    free(scratch);
    tg_release(b, got);
    return result;
}
