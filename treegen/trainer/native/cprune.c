/* treegen's C accelerator for pruning: Release 8's EstimateErrors over a
 * flat array form of the tree, for the c45 and the j48 flavour.
 *
 * Every number is computed as treegen/trainer/pruning/prune.py and stats.py compute
 * it in Python.  c45: weights and sums in float, added one case at a time in
 * row order; the error bound (AddErrs) in double with libm's exp/log/sqrt
 * (which Python's math module calls too) and the same operations in the
 * same order, stored as float where ErrorBound stores.  j48: weights, sums,
 * Factor and estimates in double, no Factor round trip, J48's bound (libm's
 * pow), the first majority class and Weka's tolerance (TG_J48_TOL) in comparisons.
 * Built with -ffp-contract=off (setup.py): a fused multiply-add would round
 * once where Python rounds twice.  The equality tests are in
 * tests/trainer/test_trainer_prune_native.py.
 *
 * This file reads the arguments into a Prune record (cprune.h) and holds the
 * module's table.  The walk is written once over a weight type REAL in
 * cprunewalk.h and compiled twice here, in this translation unit with its
 * caller: float for c45 (functions suffixed _c45), double for j48 (_j48).  The
 * bound's estimate over arrays is in cestimate.c. */
#include "cprune.h"
#include <math.h>
#include <stdlib.h>

/* A read-only or writable view of a C-contiguous buffer of at least n items. */
static int view(PyObject *o, Py_buffer *b, int writable, Py_ssize_t itemsize, Py_ssize_t n,
                const char *name)
{
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, b, flags) < 0)
        return -1;
    if (b->itemsize != itemsize || b->len < n * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of %zd bytes, got %zd bytes", name,
                     n, itemsize, b->len);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

/* ---- EstimateErrors over the flat tree ---- */

/* The walk, once per flavour (cprunewalk.h, compiled twice). */
#define REAL float
#define FN(name) name##_c45
#define ESTIMATE estimate_c45_one
#define LE(a, b) ((a) <= (b))
#define J48 0
#include "cprunewalk.h"
#undef REAL
#undef FN
#undef ESTIMATE
#undef LE
#undef J48
#define REAL double
#define FN(name) name##_j48
#define ESTIMATE estimate_j48_one
#define LE(a, b) ((a) - (b) < TG_J48_TOL) /* Weka's smOrEq (prune._le) */
#define J48 1
#include "cprunewalk.h"
#undef REAL
#undef FN
#undef ESTIMATE
#undef LE
#undef J48

#define N_BUF 20

/* prune_c45(log_cf, coeff, n_rows, n_classes, data, code_size,
 *           okind, attr_pos, thresh, child_start, n_children,
 *           tab_start, tab, kind, src, cls, items, errors, dist, updated,
 *           max_depth=unlimited, weights=None) -> bool
 * prune_j48(cf, coeff, ...the same...) -> bool
 *
 * Node 0 is the root; data is a list of the case data as in
 * treegen.trainer.context.Context, [y, cvals, ncodes] (y: int64 (n_rows + 1),
 * cvals: float32 for c45, float64 for j48 (n_cont, n_rows + 1), ncodes:
 * int8/int16/int32 (n_rows + 1, n_nom)), which the walk empties once it has
 * read them: the classes go once copied, the values and codes when the walk
 * ends, if nothing else holds them.  Per node:
 * okind and kind int8; attr_pos, tab_start, src and cls int32; child_start and
 * n_children int64; thresh, items and errors float64; dist float32 for c45,
 * float64 for j48 (nodes x classes); updated int8; tab is int32.  kind, src
 * (= node index) and cls come in initialised (updated zero); the rest of the
 * record arrays are outputs, valid where bit 1 of updated is set.  Bit 2 marks
 * the nodes of the pruned tree.  Children are nodes child_start[i] ..
 * child_start[i] + n_children[i] - 1, each numbered after its parent;
 * nodes that no test reaches are ignored.  Returns False, with nothing
 * done and data as it came, when the tree has more than max_depth levels
 * (the walk recurses once per level).  weights (float32 for c45, float64 for
 * j48, n_rows) are the cases' starting weights (trained on weighted cases);
 * None: all 1. */
static PyObject *prune_flat(PyObject *args, int j48)
{
    PyObject *o[N_BUF];
    Prune p;
    Py_ssize_t n_rows, C, code_size;
    double first;
    memset(&p, 0, sizeof p);
    Py_ssize_t max_depth = PY_SSIZE_T_MAX;
    PyObject *weights = Py_None, *data;
    if (!PyArg_ParseTuple(args, "ddnnO!nOOOOOOOOOOOOOO|nO", &first, &p.bd.coeff, &n_rows, &C,
                          &PyList_Type, &data, &code_size, &o[3], &o[4], &o[5], &o[6], &o[7],
                          &o[8], &o[9], &o[10], &o[11], &o[12], &o[13], &o[14], &o[15], &o[16],
                          &max_depth, &weights))
        return NULL;
    /* data is emptied once its arrays are copied into the record table, so
     * that they are freed during the walk when nothing else holds them; it is
     * left as it is when the walk declines (False). */
    if (PyList_GET_SIZE(data) != 3) {
        PyErr_SetString(PyExc_TypeError, "prune_flat: data must be a list of 3 arrays");
        return NULL;
    }
    for (int i = 0; i < 3; i++)
        o[i] = PyList_GET_ITEM(data, i);
    p.bd.log_cf = first; /* c45 */
    p.bd.cf = first;     /* j48 */
    const Py_ssize_t vsz = j48 ? (Py_ssize_t)sizeof(double) : (Py_ssize_t)sizeof(float);
    if (C < 1 || C > MAX_CLASSES || n_rows < 0 || n_rows >= INT32_MAX ||
        (code_size != 1 && code_size != 2 && code_size != 4)) {
        PyErr_SetString(PyExc_ValueError, "prune_flat: bad sizes");
        return NULL;
    }
    Py_buffer b[N_BUF];
    int got = 0;
    int32_t *max_code = NULL;
    uint16_t *rcls = NULL;
    PyObject *result = NULL;
    Py_ssize_t N;
    {
        Py_buffer probe;
        if (PyObject_GetBuffer(o[3], &probe, PyBUF_C_CONTIGUOUS) < 0)
            return NULL;
        N = probe.len; /* okind: one byte a node */
        PyBuffer_Release(&probe);
    }
    const Py_ssize_t n1 = n_rows + 1;
    /* (object, writable, itemsize, minimum items) */
    const struct {
        int w;
        Py_ssize_t size, n;
        const char *name;
    } spec[17] = {
        {0, 8, n1, "y"},          {0, vsz, 0, "cvals"},    {0, code_size, 0, "ncodes"},
        {0, 1, N, "okind"},       {0, 4, N, "attr_pos"},   {0, 8, N, "thresh"},
        {0, 8, N, "child_start"}, {0, 8, N, "n_children"}, {0, 4, N, "tab_start"},
        {0, 4, 0, "tab"},         {1, 1, N, "kind"},       {1, 4, N, "src"},
        {1, 4, N, "cls"},         {1, 8, N, "items"},      {1, 8, N, "errors"},
        {1, vsz, N * C, "dist"},  {1, 1, N, "updated"},
    };
    for (got = 0; got < 17; got++)
        if (view(o[got], &b[got], spec[got].w, spec[got].size, spec[got].n, spec[got].name) < 0)
            goto done;
    if (weights != Py_None) {
        if (view(weights, &b[got], 0, vsz, n_rows, "weights") < 0)
            goto done;
        got++;
    }
    p.C = C;
    p.n1 = n1;
    p.y = b[0].buf;
    p.cvals = b[1].buf;
    p.ncodes = b[2].buf;
    p.code_size = code_size;
    p.okind = b[3].buf;
    p.attr_pos = b[4].buf;
    p.thresh = b[5].buf;
    p.child_start = b[6].buf;
    p.n_children = b[7].buf;
    p.tab_start = b[8].buf;
    p.tab = b[9].buf;
    p.kind = b[10].buf;
    p.src = b[11].buf;
    p.cls = b[12].buf;
    p.items = b[13].buf;
    p.errors = b[14].buf;
    p.dist = b[15].buf;
    p.updated = b[16].buf;
    {
        /* n_nom from the codes buffer; every index used below is checked here
         * once so the walk can trust them. */
        const Py_ssize_t n_cont = b[1].len / vsz / n1;
        p.n_nom = b[2].len / code_size / n1;
        const Py_ssize_t n_tab = b[9].len / 4;
        const char *bad = NULL;
        if (N < 1)
            bad = "empty tree";
        for (Py_ssize_t i = 0; i < n1 && !bad; i++)
            if (p.y[i] < 0 || p.y[i] >= C)
                bad = "class out of range";
        for (Py_ssize_t i = 0; i < N && !bad; i++) {
            int64_t kk = p.okind[i];
            if (p.kind[i] != kk || p.src[i] != i || p.cls[i] < 0 || p.cls[i] >= C)
                bad = "bad initial record";
            else if (kk == LEAF)
                continue;
            else if (kk != CONTINUOUS && kk != NOMINAL && kk != SUBSET)
                bad = "bad kind";
            else if (p.child_start[i] < 0 || p.n_children[i] < 1 ||
                     p.child_start[i] + p.n_children[i] > N)
                bad = "bad children";
            else if (kk == CONTINUOUS && (p.attr_pos[i] < 0 || p.attr_pos[i] >= n_cont ||
                                          p.n_children[i] != 2))
                bad = "bad continuous test";
            else if (kk != CONTINUOUS && (p.attr_pos[i] < 0 || p.attr_pos[i] >= p.n_nom))
                bad = "bad nominal test";
            else {
                for (int64_t j = 0; j < p.n_children[i]; j++) {
                    int64_t c = p.child_start[i] + j;
                    if (c <= i || c >= N)
                        bad = "child index out of range";
                }
            }
        }
        /* Codes: a nominal test's outcomes must index a child, a subset
         * table must cover every code of its attribute. */
        max_code = calloc((size_t)p.n_nom + 1, sizeof(int32_t));
        if (max_code == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < n1 * p.n_nom && !bad; i++) {
            int32_t c = code_at(&p, i % p.n_nom, i / p.n_nom);
            if (c < 0)
                bad = "negative code";
            else if (c > max_code[i % p.n_nom])
                max_code[i % p.n_nom] = c;
        }
        for (Py_ssize_t i = 0; i < N && !bad; i++) {
            if (p.okind[i] != NOMINAL && p.okind[i] != SUBSET)
                continue;
            int32_t mc = max_code[p.attr_pos[i]];
            if (p.okind[i] == NOMINAL) {
                if (mc > p.n_children[i])
                    bad = "nominal code beyond the branches";
                continue;
            }
            if (p.tab_start[i] < 0 || p.tab_start[i] + mc >= n_tab) {
                bad = "subset table too short";
                continue;
            }
            for (int32_t c = 0; c <= mc && !bad; c++) {
                int32_t v = p.tab[p.tab_start[i] + c];
                if (v < -1 || v >= p.n_children[i])
                    bad = "subset table entry out of range";
            }
        }
        free(max_code);
        if (bad) {
            PyErr_Format(PyExc_ValueError, "prune_flat: %s", bad);
            goto done;
        }
    }
    {
        /* Levels of the tree reachable from the root (children come after
         * their parent, so one forward pass). */
        int32_t *depth = calloc((size_t)N, sizeof(int32_t));
        if (depth == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        Py_ssize_t deepest = 1;
        depth[0] = 1;
        for (Py_ssize_t i = 0; i < N; i++) {
            if (depth[i] == 0 || p.okind[i] == LEAF)
                continue;
            for (int64_t j = 0; j < p.n_children[i]; j++)
                depth[p.child_start[i] + j] = depth[i] + 1;
            if (depth[i] + 1 > deepest)
                deepest = depth[i] + 1;
        }
        free(depth);
        if (deepest > max_depth) {
            Py_INCREF(Py_False);
            result = Py_False;
            goto done;
        }
    }
    p.n_cont = b[1].len / vsz / n1;
    rcls = malloc((size_t)n1 * sizeof(uint16_t));
    if (rcls == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t r = 0; r < n1; r++)
        rcls[r] = (uint16_t)p.y[r]; /* C <= MAX_CLASSES, checked above */
    p.rcls = rcls;
    {
        /* The classes are copied: y goes now; the values and codes the walk
         * reads stay held by their views (b[1], b[2]) until it ends, no
         * longer by the list. */
        PyBuffer_Release(&b[0]); /* sets b[0].obj to NULL: released once */
        p.y = NULL;
        if (PyList_SetSlice(data, 0, 3, NULL) < 0)
            goto done;
    }
    {
        int32_t *rows = malloc((size_t)n1 * sizeof(int32_t));
        void *w = malloc((size_t)n1 * (size_t)vsz);
        if (rows == NULL || w == NULL) {
            free(rows);
            free(w);
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < n_rows; i++) {
            rows[i] = (int32_t)i;
            if (j48)
                ((double *)w)[i] = 1.0;
            else
                ((float *)w)[i] = 1.0f;
        }
        if (weights != Py_None)
            memcpy(w, b[17].buf, (size_t)n_rows * (size_t)vsz);
        Py_BEGIN_ALLOW_THREADS
        if (j48)
            estimate_errors_j48(&p, 0, rows, w, n_rows, 1);
        else
            estimate_errors_c45(&p, 0, rows, w, n_rows, 1);
        Py_END_ALLOW_THREADS
        free(rows);
        free(w);
        if (p.failed) {
            PyErr_NoMemory();
            goto done;
        }
    }
    /* Mark the nodes of the pruned tree (bit 2 of updated): a node's
     * children, grown or raised, always have larger indices than it. */
    p.updated[0] |= 2;
    for (Py_ssize_t i = 0; i < N; i++) {
        if (!(p.updated[i] & 2) || p.kind[i] == LEAF)
            continue;
        Py_ssize_t s = (Py_ssize_t)p.src[i];
        for (int64_t j = 0; j < p.n_children[s]; j++)
            p.updated[p.child_start[s] + j] |= 2;
    }
    Py_INCREF(Py_True);
    result = Py_True;
done:
    free(rcls);
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return result;
}

static PyObject *prune_c45(PyObject *self, PyObject *args)
{
    (void)self;
    return prune_flat(args, 0);
}

static PyObject *prune_j48(PyObject *self, PyObject *args)
{
    (void)self;
    return prune_flat(args, 1);
}


static PyMethodDef methods[] = {
    {"estimate_c45", tg_estimate_c45, METH_VARARGS,
     "estimate_c45(n, e, log_cf, coeff, out): ErrorBound.estimate (c45) over float64 arrays."},
    {"estimate_j48", tg_estimate_j48, METH_VARARGS,
     "estimate_j48(n, e, cf, coeff, out): ErrorBound.estimate (j48) over float64 arrays."},
    {"prune_c45", prune_c45, METH_VARARGS,
     "prune_c45(...): Release 8's EstimateErrors over a flat tree (see cprune.c)."},
    {"prune_j48", prune_j48, METH_VARARGS,
     "prune_j48(...): EstimateErrors, j48 flavour, over a flat tree (see cprune.c)."},
    {"r8_prune", tg_r8_prune, METH_VARARGS,
     "r8_prune(...): EstimateErrors in Release 8's case order (see r8prune.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cprune", "treegen's C accelerator for pruning.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cprune(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && tg_add_constants(m) < 0)
        Py_CLEAR(m);
    return m;
}
