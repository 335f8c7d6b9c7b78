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
 * The walk is written once over a weight type REAL and compiled twice, by
 * this file including itself (CPRUNE_WALK set): float for c45 (functions
 * suffixed _c45), double for j48 (_j48). */
#ifndef CPRUNE_WALK
#include "common.h"
#include <math.h>
#include <stdlib.h>

/* Rows prefetched ahead in the walk. */
#define AHEAD 32

#include "bound.h"

static double estimate_c45_one(const Bound *b, double n, double e)
{
    if (n <= 0)
        return f32(e);
    return f32(e + add_errs(b, n, e));
}

static double estimate_j48_one(const Bound *b, double n, double e)
{
    if (n <= TG_J48_TOL && n >= -TG_J48_TOL) /* J48: Utils.eq(total, 0) */
        return 0.0;
    return e + add_errs_j48(b, n, e);
}

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

/* Over float64 arrays n, e, out of equal length: out[i] = the bound's estimate. */
static PyObject *estimate_many(PyObject *args, int j48)
{
    PyObject *on, *oe, *oo;
    Bound bd;
    double first;
    Py_buffer bn, be, bo;
    if (!PyArg_ParseTuple(args, "OOddO", &on, &oe, &first, &bd.coeff, &oo))
        return NULL;
    bd.log_cf = first;
    bd.cf = first;
    if (view(on, &bn, 0, sizeof(double), 0, "n") < 0)
        return NULL;
    Py_ssize_t m = bn.len / (Py_ssize_t)sizeof(double);
    if (view(oe, &be, 0, sizeof(double), m, "e") < 0) {
        PyBuffer_Release(&bn);
        return NULL;
    }
    if (view(oo, &bo, 1, sizeof(double), m, "out") < 0) {
        PyBuffer_Release(&bn);
        PyBuffer_Release(&be);
        return NULL;
    }
    const double *n = bn.buf, *e = be.buf;
    double *out = bo.buf;
    for (Py_ssize_t i = 0; i < m; i++)
        out[i] = j48 ? estimate_j48_one(&bd, n[i], e[i]) : estimate_c45_one(&bd, n[i], e[i]);
    PyBuffer_Release(&bn);
    PyBuffer_Release(&be);
    PyBuffer_Release(&bo);
    Py_RETURN_NONE;
}

/* estimate_c45(n, e, log_cf, coeff, out): out[i] = ErrorBound(cf, "c45").estimate(n[i], e[i]). */
static PyObject *estimate_c45(PyObject *self, PyObject *args)
{
    (void)self;
    return estimate_many(args, 0);
}

/* estimate_j48(n, e, cf, coeff, out): out[i] = ErrorBound(cf, "j48").estimate(n[i], e[i]). */
static PyObject *estimate_j48(PyObject *self, PyObject *args)
{
    (void)self;
    return estimate_many(args, 1);
}

/* ---- EstimateErrors over the flat tree ---- */

/* Node kinds, as treegen/trainer/constants.py numbers them (common.h). */
enum {
    LEAF = TG_KIND_LEAF,
    CONTINUOUS = TG_KIND_CONTINUOUS,
    NOMINAL = TG_KIND_NOMINAL,
    SUBSET = TG_KIND_SUBSET
};

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

static int32_t code_at(const Prune *p, Py_ssize_t pos, int64_t r)
{
    return tg_code_at(p->ncodes, p->code_size, (Py_ssize_t)r * p->n_nom + pos);
}

static int32_t class_of(const Prune *p, int64_t r)
{
    return p->rcls[r];
}

/* The walk, once per flavour: this file's #else part, compiled twice. */
#define CPRUNE_WALK 1
#define REAL float
#define FN(name) name##_c45
#define ESTIMATE estimate_c45_one
#define LE(a, b) ((a) <= (b))
#define J48 0
#include "cprune.c"
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
#include "cprune.c"
#undef REAL
#undef FN
#undef ESTIMATE
#undef LE
#undef J48

#define N_BUF 20

/* prune_c45(log_cf, coeff, n_rows, n_classes, y, cvals, ncodes, code_size,
 *           okind, attr_pos, thresh, child_start, n_children,
 *           tab_start, tab, kind, src, cls, items, errors, dist, updated,
 *           max_depth=unlimited, weights=None, data=None) -> bool
 * prune_j48(cf, coeff, ...the same...) -> bool
 *
 * Node 0 is the root; all case data as in treegen.trainer.context.Context
 * (y: int64 (n_rows + 1), cvals: float32 for c45, float64 for j48 (n_cont,
 * n_rows + 1), ncodes: int8/int16/int32 (n_rows + 1, n_nom); with data, a list
 * holding those three, which the walk empties once it has read them: the
 * classes go once copied, the values and codes when the walk ends).  Per node:
 * okind and kind int8; attr_pos, tab_start, src and cls int32; child_start and
 * n_children int64; thresh, items and errors float64; dist float32 for c45,
 * float64 for j48 (nodes x classes); updated int8; tab is int32.  kind, src
 * (= node index) and cls come in initialised (updated zero); the rest of the
 * record arrays are outputs, valid where bit 1 of updated is set.  Bit 2 marks
 * the nodes of the pruned tree.  Children are nodes child_start[i] ..
 * child_start[i] + n_children[i] - 1, each numbered after its parent;
 * nodes that no test reaches are ignored.  Returns False, with nothing
 * done, when the tree has more than max_depth levels (the walk recurses
 * once per level).  weights (float32 for c45, float64 for j48, n_rows) are
 * the cases' starting weights (trained on weighted cases); None: all 1. */
static PyObject *prune_flat(PyObject *args, int j48)
{
    PyObject *o[N_BUF];
    Prune p;
    Py_ssize_t n_rows, C, code_size;
    double first;
    memset(&p, 0, sizeof p);
    Py_ssize_t max_depth = PY_SSIZE_T_MAX;
    PyObject *weights = Py_None, *data = Py_None;
    if (!PyArg_ParseTuple(args, "ddnnOOOnOOOOOOOOOOOOOO|nOO", &first, &p.bd.coeff, &n_rows,
                          &C, &o[0], &o[1], &o[2], &code_size, &o[3], &o[4], &o[5], &o[6], &o[7],
                          &o[8], &o[9], &o[10], &o[11], &o[12], &o[13], &o[14], &o[15], &o[16],
                          &max_depth, &weights, &data))
        return NULL;
    /* data: None, or a list [y, cvals, ncodes] standing in for those three
     * arguments (then None): once they are copied into the record table the
     * list is emptied, so that they are freed during the walk when nothing
     * else holds them.  It is left as it is when the walk declines (False). */
    if (data != Py_None) {
        if (!PyList_Check(data) || PyList_GET_SIZE(data) != 3) {
            PyErr_SetString(PyExc_TypeError, "prune_flat: data must be a list of 3 arrays");
            return NULL;
        }
        for (int i = 0; i < 3; i++)
            o[i] = PyList_GET_ITEM(data, i);
    }
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
    if (data != Py_None) {
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

/* Release 8's pruning in its case order (r8prune.c). */
PyObject *tg_r8_prune(PyObject *self, PyObject *args);

static PyMethodDef methods[] = {
    {"estimate_c45", estimate_c45, METH_VARARGS,
     "estimate_c45(n, e, log_cf, coeff, out): ErrorBound.estimate (c45) over float64 arrays."},
    {"estimate_j48", estimate_j48, METH_VARARGS,
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

#else /* CPRUNE_WALK: the walk for one flavour (REAL, FN, ESTIMATE, LE, J48) */

/* The leaf class of a distribution (prune._label).  c45: Release 8 keeps the
 * current class unless another is strictly larger.  j48: numpy's argmax,
 * the first largest (a NaN, were there one, counting as largest). */
static Py_ssize_t FN(label)(int64_t current, const REAL *d, Py_ssize_t C)
{
#if !J48
    Py_ssize_t best = (Py_ssize_t)current;
#else
    Py_ssize_t best = 0;
    (void)current;
#endif
    for (Py_ssize_t c = 0; c < C; c++) {
#if J48
        if (isnan(d[c]))
            return c;
#endif
        if (d[c] > d[best])
            best = c;
    }
    return best;
}

/* The byte address of row r's value at a test of kind k on column col
 * (the row of cvals, or the column of ncodes). */
static const char *FN(value_at)(const Prune *p, int64_t k, Py_ssize_t col, int64_t r)
{
    if (k == CONTINUOUS)
        return p->cvals + ((Py_ssize_t)col * p->n1 + (Py_ssize_t)r) * (Py_ssize_t)sizeof(REAL);
    return p->ncodes + ((Py_ssize_t)r * p->n_nom + col) * p->code_size;
}

/* Outcome of row r at a test of kind k on column col, with cut
 * (continuous) or subset table tab (-1: unknown), as route.branch_of. */
static Py_ssize_t FN(branch)(const Prune *p, int64_t k, Py_ssize_t col, REAL cut,
                             const int32_t *tab, int64_t r)
{
    if (k == CONTINUOUS) {
        REAL v;
        memcpy(&v, FN(value_at)(p, k, col, r), sizeof v);
        if (isnan(v))
            return -1;
        return v <= cut ? 0 : 1;
    }
    int32_t code = code_at(p, col, r);
    if (k == SUBSET)
        return tab[code];
    return (Py_ssize_t)code - 1;
}

static void FN(copy_record)(Prune *p, Py_ssize_t to, Py_ssize_t from)
{
    REAL *dist = p->dist;
    p->kind[to] = p->kind[from];
    p->src[to] = p->src[from];
    p->cls[to] = p->cls[from];
    p->items[to] = p->items[from];
    p->errors[to] = p->errors[from];
    memcpy(dist + to * p->C, dist + from * p->C, (size_t)p->C * sizeof(REAL));
    p->updated[to] = p->updated[from];
}

/* A leaf's estimate from its cases (prune._leaf_estimate), updating its record. */
static double FN(leaf_errors)(Prune *p, Py_ssize_t t, const int32_t *rows, const REAL *w,
                              Py_ssize_t n, int update)
{
    const Py_ssize_t C = p->C;
    REAL local[64];
    REAL *dist = C <= 64 ? local : malloc((size_t)C * sizeof(REAL));
    if (dist == NULL) {
        p->failed = 1;
        return 0.0;
    }
    memset(dist, 0, (size_t)C * sizeof(REAL));
    REAL cases = 0; /* CountItems: one case at a time */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i + AHEAD < n)
            PREFETCH(p->rcls + rows[i + AHEAD]);
        cases += w[i];
        dist[class_of(p, rows[i])] += w[i];
    }
    Py_ssize_t best = FN(label)(p->cls[t], dist, C);
    double est = ESTIMATE(&p->bd, cases, (REAL)(cases - dist[best]));
    if (update) {
        p->items[t] = cases;
        p->cls[t] = (int32_t)best;
        memcpy((REAL *)p->dist + t * C, dist, (size_t)C * sizeof(REAL));
        p->errors[t] = est;
        p->updated[t] = 1;
    }
    if (dist != local)
        free(dist);
    return est;
}

/* EstimateErrors(t, cases, update) as prune.estimate_errors, the cases given
 * as rows with weights; returns t's estimate.  Rows are always in
 * increasing order (the root's are 0..n-1 and every branch takes an ordered
 * merge of a subsequence), so "row order" and "case order" agree.
 * Recursion depth is the tree's depth (the caller bounds it). */
static double FN(estimate_errors)(Prune *p, Py_ssize_t t, const int32_t *rows, const REAL *w,
                                  Py_ssize_t n, int update)
{
    const Py_ssize_t C = p->C;
    const int64_t k = p->kind[t];
    if (k == LEAF)
        return FN(leaf_errors)(p, t, rows, w, n, update);
    const Py_ssize_t s = (Py_ssize_t)p->src[t];
    const Py_ssize_t F = (Py_ssize_t)p->n_children[s];
    const Py_ssize_t col = (Py_ssize_t)p->attr_pos[s];
    /* numpy compares a float32 array with the Python float cut in float32
     * (c45), a float64 array in double (j48) */
    const REAL cut = (REAL)p->thresh[s];
    const int32_t *tab = k == SUBSET ? p->tab + p->tab_start[s] : NULL;

    /* The node's own numbers (8-byte arrays first, then REAL ones), and its
     * cases': each case's branch (int32, for the grouping pass only), the cases
     * grouped by branch (REAL weight and int32 row: 8 bytes a case in float32),
     * and where a case is unknown, one branch's cases with every unknown one
     * (sized to the widest branch).  Every level of the walk's current path
     * holds its cases' blocks, so a case costs what they take times the depth
     * it reaches (20 bytes a level when each block took n cases: 80 MB at
     * 1M rows).  The cases' blocks are freed once the branches are walked:
     * the update step below walks the largest branch with all n cases again,
     * and that walk's blocks then do not come on top of these. */
    char *block = malloc((2 * (size_t)F + 1) * sizeof(int64_t) +
                         ((size_t)C + 2 * (size_t)F) * sizeof(REAL) + 16);
    char *big = malloc((size_t)n * sizeof(REAL) + (size_t)n * sizeof(int32_t) + 16);
    int32_t *br = malloc((size_t)n * sizeof(int32_t) + 16);
    char *each = NULL; /* the branch-with-unknowns block */
    if (block == NULL || big == NULL || br == NULL) {
        free(block);
        free(big);
        free(br);
        p->failed = 1;
        return 0.0;
    }
    int64_t *off = (int64_t *)block; /* F + 1: branch v's known cases are [off[v], off[v+1]) */
    int64_t *fill = off + F + 1;
    REAL *dist = (REAL *)(fill + F);
    REAL *known_v = dist + C;
    REAL *factor = known_v + F;
    REAL *w_g = (REAL *)big;
    int32_t *rows_g = (int32_t *)(w_g + n); /* known cases grouped by branch, then the unknown ones */
    REAL *w_v = NULL;
    int32_t *rows_v = NULL;

    /* One pass in case order: the cases' weight (CountItems), the class sums
     * (update only), each case's branch, the known weight per branch and
     * the unknown weight; every sum in REAL, one case at a time. */
    REAL cases = 0, unk = 0;
    Py_ssize_t nu = 0;
    for (Py_ssize_t v = 0; v <= F; v++)
        off[v] = 0;
    for (Py_ssize_t v = 0; v < F; v++)
        known_v[v] = 0;
    memset(dist, 0, (size_t)C * sizeof(REAL));
    for (Py_ssize_t i = 0; i < n; i++) {
        const int32_t r = rows[i];
        if (i + AHEAD < n) {
            const int32_t ra = rows[i + AHEAD];
            PREFETCH(FN(value_at)(p, k, col, ra));
            if (update)
                PREFETCH(p->rcls + ra);
        }
        cases += w[i];
        if (update)
            dist[class_of(p, r)] += w[i];
        Py_ssize_t b = FN(branch)(p, k, col, cut, tab, r);
        br[i] = (int32_t)b;
        if (b < 0) {
            unk += w[i];
            nu++;
        } else {
            known_v[b] += w[i];
            off[b + 1]++;
        }
    }
    double leaf_est = 0.0;
    if (update) {
        Py_ssize_t best = FN(label)(p->cls[t], dist, C);
        leaf_est = ESTIMATE(&p->bd, cases, (REAL)(cases - dist[best]));
        p->items[t] = cases;
        p->cls[t] = (int32_t)best;
        memcpy((REAL *)p->dist + t * C, dist, (size_t)C * sizeof(REAL));
        p->updated[t] = 1;
    }
    for (Py_ssize_t v = 0; v < F; v++) {
        off[v + 1] += off[v];
        fill[v] = off[v];
    }
    const Py_ssize_t n_known = (Py_ssize_t)off[F];
    {
        Py_ssize_t u = n_known;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_ssize_t q = br[i] < 0 ? u++ : (Py_ssize_t)fill[br[i]]++;
            rows_g[q] = rows[i];
            w_g[q] = w[i];
        }
    }
    free(br);
    if (nu) {
        Py_ssize_t widest = 0;
        for (Py_ssize_t v = 0; v < F; v++)
            if (off[v + 1] - off[v] > widest)
                widest = (Py_ssize_t)(off[v + 1] - off[v]);
        const size_t m = (size_t)(widest + nu);
        each = malloc(m * sizeof(REAL) + m * sizeof(int32_t) + 16);
        if (each == NULL) {
            free(big);
            free(block);
            p->failed = 1;
            return 0.0;
        }
        w_v = (REAL *)each;
        rows_v = (int32_t *)(w_v + m);
    }
    const int32_t *urows = rows_g + n_known;
    REAL *cur = w_g + n_known; /* the unknown cases' weights (c45: carried from branch to branch) */

    const REAL known_cases = nu ? (REAL)(cases - unk) : cases;
    Py_ssize_t max_br = 0;
    double max_factor = -1.0;
    for (Py_ssize_t v = 0; v < F; v++) {
        factor[v] = known_v[v] / known_cases; /* Factor, stored as REAL */
        if (off[v + 1] > off[v] && (double)factor[v] >= max_factor) {
            max_br = v; /* ties go to the later branch */
            max_factor = factor[v];
        }
    }

    /* Each non-empty branch in order: its known cases and every unknown one,
     * whose weight is scaled by the branch's Factor and, for c45, divided
     * back (the round trip; prune.estimate_errors' cw). */
    const int64_t kids0 = p->child_start[s]; /* branch v's node: kids0 + v */
    REAL tree_est = 0;
    for (Py_ssize_t v = 0; v < F && !p->failed; v++) {
        Py_ssize_t a = (Py_ssize_t)off[v], ae = (Py_ssize_t)off[v + 1];
        if (a == ae)
            continue;
        double est;
        if (nu == 0) {
            est = FN(estimate_errors)(p, (Py_ssize_t)(kids0 + v), rows_g + a, w_g + a, ae - a, update);
        } else {
            const REAL f = factor[v];
            Py_ssize_t m = 0, j = 0;
            while (a < ae || j < nu) {
                if (j == nu || (a < ae && rows_g[a] < urows[j])) {
                    rows_v[m] = rows_g[a];
                    w_v[m++] = w_g[a++];
                } else {
                    REAL val = cur[j] * f;
#if !J48 /* Release 8 divides back; J48 scales a copy */
                    cur[j] = val / f;
#endif
                    rows_v[m] = urows[j++];
                    w_v[m++] = val;
                }
            }
            est = FN(estimate_errors)(p, (Py_ssize_t)(kids0 + v), rows_v, w_v, m, update);
        }
        tree_est = (REAL)((double)tree_est + est); /* Context.add_all */
    }
    free(each);
    free(big);
    if (!update || p->failed) {
        free(block);
        return tree_est;
    }

    /* The update step: leaf, largest branch (subtree raising) or subtree. */
    const Py_ssize_t b = (Py_ssize_t)(kids0 + max_br);
    double branch_est;
    if (p->kind[b] == LEAF) {
        Py_ssize_t bl = FN(label)(p->cls[b], dist, C);
        branch_est = ESTIMATE(&p->bd, cases, (REAL)(cases - dist[bl]));
    } else {
        branch_est = FN(estimate_errors)(p, b, rows, w, n, 0);
    }
    if (LE(leaf_est, branch_est + 0.1) && LE(leaf_est, (double)tree_est + 0.1)) {
        p->kind[t] = LEAF;
        p->errors[t] = leaf_est;
    } else if (LE(branch_est, (double)tree_est + 0.1)) {
        FN(estimate_errors)(p, b, rows, w, n, 1);
        FN(copy_record)(p, t, b);
    } else {
        p->errors[t] = tree_est;
    }
    free(block);
    return p->errors[t];
}

#endif /* CPRUNE_WALK */
