/* c4.5rules' walk over the unpruned tree's paths (paths._candidates' loop), in C: each
 * tree edge's satisfied cases and their fold, each leaf's PruneRule, the kept
 * conditions' order and the rule's SameRule key, one call a new rule instead of
 * several a tree edge and a leaf (module _crules): a leaf repeating an earlier rule
 * only raises that rule's error rate (rkeys.c), read at the end by walk_errors.
 *
 * walk_new takes the tree's shape, what every edge's satisfied cases are made of (each
 * nominal attribute's value sets, each continuous attribute's float32 column in the
 * cases' order and its known cases) and each class's cases of other classes, all as
 * packed bitsets of W = ceil(n / 64) words; it returns a capsule holding views of them
 * and the walk's own state (the path's satisfied-case rows, the levels of their
 * failures, and a depth-first stack).  walk_next goes on to the next leaf whose path
 * gives a rule; walk_rows gives that rule's cases.  The walk meets the leaves in the
 * order of paths.shape_tests, and each step is one of rpaths.c's loops (tg_fold_into,
 * tg_pack_le_row, tg_prune_run, tg_sort_places, tg_rows_of), which its kernels give to
 * the tests one by one; the rules are those of the Python loop (paths._prune). */
#include "crules.h"

enum { B_KIND, B_ATTR, B_THR, B_KID_AT, B_KIDS, B_OK, B_CLS, B_EKEY, B_SUB_TAB, B_SUB_AT,
       B_SUB_N, B_EQ, B_EQ_AT, B_COL_AT, B_KNOWN, B_WRONG, B_WRONG_AT, B_DEFAULT, B_PLACES,
       B_EDGES, B_N };

typedef struct {
    Py_buffer b[B_N];
    Py_buffer *cols; /* the continuous columns' views (ncols) */
    Py_ssize_t ncols;
    const int8_t *kind;
    const int32_t *attr, *kid_at, *kids, *cls, *ekey, *sub_tab, *sub_n, *eq_at, *col_at,
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
} Walk;

/* The cache's slots: 64, or fewer as the rows grow (about 2 MB of them at most, 2 at
 * least; at 1M rows 16): a power of two, a slot by the top bits of the hash. */
enum { CUT_SLOTS_MOST = 64, CUT_BYTES = 2 << 20 };

static const char *const NAME = "treegen.rules.walk";

static void walk_free(Walk *w)
{
    if (w == NULL)
        return;
    for (int i = 0; i < B_N; i++)
        if (w->b[i].obj != NULL)
            PyBuffer_Release(&w->b[i]);
    for (Py_ssize_t i = 0; i < w->ncols; i++)
        if (w->cols[i].obj != NULL)
            PyBuffer_Release(&w->cols[i]);
    PyMem_Free(w->cols);
    PyMem_Free(w->sat);
    PyMem_Free(w->levels);
    PyMem_Free(w->rows);
    PyMem_Free(w->kept);
    PyMem_Free(w->span);
    PyMem_Free(w->orders);
    PyMem_Free(w->edge);
    PyMem_Free(w->stack);
    PyMem_Free(w->below_of);
    PyMem_Free(w->tot);
    PyMem_Free(w->err);
    PyMem_Free(w->al);
    PyMem_Free(w->list);
    PyMem_Free(w->key);
    PyMem_Free(w->alive);
    PyMem_Free(w->done);
    PyMem_Free(w->cut_rows);
    PyMem_Free(w->cut_attr);
    PyMem_Free(w->cut_value);
    tg_keys_free(&w->keys);
    PyMem_Free(w);
}

static void walk_destroy(PyObject *capsule)
{
    walk_free(PyCapsule_GetPointer(capsule, NAME));
}

/* Push node p's children that the walk visits (not a leaf without cases enough), last
 * branch first: they pop in branch order, as paths.shape_tests yields them. */
static void push_kids(Walk *w, int32_t p, int32_t depth)
{
    for (int32_t j = w->kid_at[p + 1] - 1; j >= w->kid_at[p]; j--) {
        const int32_t c = w->kids[j];
        if (w->kind[c] == TG_KIND_LEAF && !w->ok[c])
            continue;
        int32_t *s = w->stack + 3 * w->top++;
        s[0] = j;
        s[1] = p;
        s[2] = depth;
    }
}

/* walk_new(kind, attr, thr, kid_at, kids, ok, cls, ekey, sub_tab, sub_at, sub_n, eq,
 *          eq_at, cols, col_at, known, wrong, wrong_at, default_err, places, edges,
 *          n, depth, cap, log_cf, coeff) -> capsule.
 *
 * The tree (m nodes in pre-order): kind (int8), attr, kid_at (m + 1), kids (int32),
 * thr (float64: a cut), ok (uint8: a leaf with cases enough), cls (int32), ekey (int32
 * per edge: its test's SameRule key), a subset test's value -> branch table (sub_tab at
 * sub_at[p], sub_n[p] values).  eq: each nominal attribute's value sets (rows from
 * eq_at[a]); cols: the continuous columns (float32, n), col_at[a] the column and the
 * row of known; wrong: each class's cases of other classes (row wrong_at[c]);
 * default_err: each class's default error rate.  places, edges (int64, depth): where
 * walk_next writes a rule's conditions.  depth: the deepest leaf's; cap: the stack's
 * entries. */
PyObject *tg_walk_new(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[B_N], *cols;
    Py_ssize_t n, D, cap;
    double log_cf, coeff;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOOOOOnnndd", &o[B_KIND], &o[B_ATTR], &o[B_THR],
                          &o[B_KID_AT], &o[B_KIDS], &o[B_OK], &o[B_CLS], &o[B_EKEY],
                          &o[B_SUB_TAB], &o[B_SUB_AT], &o[B_SUB_N], &o[B_EQ], &o[B_EQ_AT], &cols,
                          &o[B_COL_AT], &o[B_KNOWN], &o[B_WRONG], &o[B_WRONG_AT], &o[B_DEFAULT],
                          &o[B_PLACES], &o[B_EDGES], &n, &D, &cap, &log_cf, &coeff))
        return NULL;
    if (n < 0 || D < 0 || cap < 1 || !PyTuple_Check(cols)) {
        PyErr_SetString(PyExc_ValueError, "walk_new: bad sizes or columns");
        return NULL;
    }
    const Py_ssize_t m = tg_items(o[B_KIND], 1);
    if (m < 1) {
        if (m == 0)
            PyErr_SetString(PyExc_ValueError, "walk_new: no nodes");
        return NULL;
    }
    const Py_ssize_t W = (n + 63) / 64;
    const Py_ssize_t edges = tg_items(o[B_KIDS], sizeof(int32_t));
    const Py_ssize_t nc = PyTuple_GET_SIZE(cols);
    if (edges < 0)
        return NULL;
    const tg_spec spec[B_N] = {
        {0, 1, m, "kind"},
        {0, sizeof(int32_t), m, "attr"},
        {0, sizeof(double), m, "thr"},
        {0, sizeof(int32_t), m + 1, "kid_at"},
        {0, sizeof(int32_t), edges, "kids"},
        {0, 1, m, "ok"},
        {0, sizeof(int32_t), m, "cls"},
        {0, sizeof(int32_t), edges, "ekey"},
        {0, sizeof(int32_t), 0, "sub_tab"},
        {0, sizeof(int64_t), m, "sub_at"},
        {0, sizeof(int32_t), m, "sub_n"},
        {0, sizeof(word), 0, "eq"},
        {0, sizeof(int32_t), 0, "eq_at"},
        {0, sizeof(int32_t), 0, "col_at"},
        {0, sizeof(word), nc * W, "known"},
        {0, sizeof(word), 0, "wrong"},
        {0, sizeof(int32_t), 0, "wrong_at"},
        {0, sizeof(double), 0, "default_err"},
        {1, sizeof(int64_t), D, "places"},
        {1, sizeof(int64_t), D, "edges"},
    };
    Walk *w = PyMem_Calloc(1, sizeof(Walk));
    if (w == NULL)
        return PyErr_NoMemory();
    if (!tg_all_views(o, w->b, spec, B_N)) {
        memset(w->b, 0, sizeof w->b);
        walk_free(w);
        return NULL;
    }
    w->cols = PyMem_Calloc((size_t)(nc + 1), sizeof(Py_buffer));
    if (w->cols == NULL) {
        walk_free(w);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < nc; i++) {
        PyObject *c = PyTuple_GET_ITEM(cols, i);
        const tg_spec cs = {0, sizeof(float), n, "column"};
        if (!tg_all_views(&c, &w->cols[i], &cs, 1)) {
            memset(&w->cols[i], 0, sizeof(Py_buffer));
            walk_free(w);
            return NULL;
        }
        w->ncols = i + 1;
    }
    w->kind = w->b[B_KIND].buf;
    w->attr = w->b[B_ATTR].buf;
    w->thr = w->b[B_THR].buf;
    w->kid_at = w->b[B_KID_AT].buf;
    w->kids = w->b[B_KIDS].buf;
    w->ok = w->b[B_OK].buf;
    w->cls = w->b[B_CLS].buf;
    w->ekey = w->b[B_EKEY].buf;
    w->sub_tab = w->b[B_SUB_TAB].buf;
    w->sub_at = w->b[B_SUB_AT].buf;
    w->sub_n = w->b[B_SUB_N].buf;
    w->eq = w->b[B_EQ].buf;
    w->eq_at = w->b[B_EQ_AT].buf;
    w->col_at = w->b[B_COL_AT].buf;
    w->known = w->b[B_KNOWN].buf;
    w->wrong = w->b[B_WRONG].buf;
    w->wrong_at = w->b[B_WRONG_AT].buf;
    w->default_err = w->b[B_DEFAULT].buf;
    w->places = w->b[B_PLACES].buf;
    w->edges = w->b[B_EDGES].buf;
    w->bd.log_cf = log_cf;
    w->bd.coeff = coeff;
    w->bd.cf = 0.0;
    w->n = n;
    w->W = W;
    w->D = D;
    w->cap = cap;
    const size_t d1 = (size_t)D + 1;
    w->sat = PyMem_Calloc(d1 * (size_t)W + 1, sizeof(word));
    w->levels = PyMem_Calloc((d1 + 1) * FAIL_LEVELS * (size_t)W + 1, sizeof(word));
    w->rows = PyMem_Calloc(d1, sizeof(const word *));
    w->kept = PyMem_Calloc(d1, sizeof(const word *));
    w->span = PyMem_Calloc(2 * d1, sizeof(Py_ssize_t));
    w->orders = PyMem_Calloc(3 * d1, sizeof(double));
    w->edge = PyMem_Calloc(d1, sizeof(int64_t));
    w->stack = PyMem_Calloc(3 * (size_t)cap, sizeof(int32_t));
    w->below_of = PyMem_Calloc(d1, sizeof(int32_t));
    w->tot = PyMem_Calloc(d1, sizeof(long long));
    w->err = PyMem_Calloc(d1, sizeof(long long));
    w->al = PyMem_Calloc(d1, sizeof(Py_ssize_t));
    w->list = PyMem_Calloc((size_t)W + 1, sizeof(int32_t));
    w->key = PyMem_Calloc(d1 + 1, sizeof(int32_t));
    w->alive = PyMem_Calloc(d1, 1);
    w->done = PyMem_Calloc(d1, 1);
    int slots = CUT_SLOTS_MOST;
    w->cut_shift = 26;
    while (slots > 2 && (Py_ssize_t)slots * W * (Py_ssize_t)sizeof(word) > CUT_BYTES) {
        slots /= 2;
        w->cut_shift++;
    }
    w->cut_rows = PyMem_Calloc((size_t)slots * (size_t)W + 1, sizeof(word));
    w->cut_attr = PyMem_Calloc((size_t)slots, sizeof(int32_t));
    w->cut_value = PyMem_Calloc((size_t)slots, sizeof(float));
    if (w->cut_rows == NULL || w->cut_attr == NULL || w->cut_value == NULL) {
        walk_free(w);
        return PyErr_NoMemory();
    }
    for (int i = 0; i < slots; i++)
        w->cut_attr[i] = -1;
    if (w->sat == NULL || w->levels == NULL || w->orders == NULL || w->edge == NULL ||
        w->stack == NULL || w->below_of == NULL || w->tot == NULL || w->err == NULL ||
        w->al == NULL || w->list == NULL || w->key == NULL || w->alive == NULL ||
        w->done == NULL || w->rows == NULL || w->kept == NULL || w->span == NULL) {
        walk_free(w);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t d = 0; d <= D; d++)
        w->below_of[d] = -1;
    w->span[1] = W; /* no conditions yet: every case fails none */
    if (w->kind[0] != TG_KIND_LEAF)
        push_kids(w, 0, 0);
    else
        w->leaves = 1; /* a path of no conditions: no rule */
    PyObject *capsule = PyCapsule_New(w, NAME, walk_destroy);
    if (capsule == NULL)
        walk_free(w);
    return capsule;
}

/* row set to the cases whose value of attribute a (column c) is at most cut, from the
 * cache of the last cuts or packed from the column (and kept). */
static void at_most(Walk *w, int32_t a, int32_t c, float cut, word *row)
{
    uint32_t bits;
    memcpy(&bits, &cut, sizeof bits);
    const uint32_t slot = (bits * 2654435761u + (uint32_t)a * 40503u) >> w->cut_shift;
    word *kept = w->cut_rows + (Py_ssize_t)slot * w->W;
    const size_t size = (size_t)w->W * sizeof(word);
    if (w->cut_attr[slot] == a && w->cut_value[slot] == cut) {
        memcpy(row, kept, size); /* 0.0 and -0.0 alike: the same cases */
        return;
    }
    tg_pack_le_row(w->cols[c].buf, cut, row, w->n);
    memcpy(kept, row, size);
    w->cut_attr[slot] = a;
    w->cut_value[slot] = cut;
}

/* The path's row d the cases satisfying branch b of node p (an unknown value satisfies
 * no test: a nominal branch's row is its value's set, read in place; the others are
 * made in sat's row d), then folded into the levels of depth d + 1, and that depth's
 * span found.  0, or -1 with an exception set. */
static int follow_edge(Walk *w, int32_t p, int32_t b, Py_ssize_t d)
{
    const Py_ssize_t W = w->W;
    word *row = w->sat + d * W;
    const int32_t a = w->attr[p];
    const int8_t kind = w->kind[p];
    const word *src = row;
    double *ord = w->orders + 3 * d;
    ord[0] = a;
    ord[2] = 0.0;
    if (kind == TG_KIND_CONTINUOUS) {
        const int32_t c = w->col_at[a];
        ord[1] = 2;
        ord[2] = w->thr[p];
        if (w->below_of[d] != p) { /* a node's > branch comes just after its <= one */
            at_most(w, a, c, (float)w->thr[p], row);
            w->below_of[d] = p;
        }
        if (b == 1) { /* x > t is not x <= t, for a known x */
            const word *known = w->known + c * W;
            for (Py_ssize_t i = 0; i < W; i++)
                row[i] = known[i] & ~row[i];
            w->below_of[d] = -1;
        }
    } else if (kind == TG_KIND_NOMINAL) {
        ord[1] = 1;
        src = w->eq + ((Py_ssize_t)w->eq_at[a] + b) * W;
        w->below_of[d] = -1;
    } else if (kind == TG_KIND_SUBSET) {
        ord[1] = 3;
        memset(row, 0, (size_t)W * sizeof(word));
        const int32_t *tab = w->sub_tab + w->sub_at[p];
        for (int32_t v = 0; v < w->sub_n[p]; v++) {
            if (tab[v] != b)
                continue;
            const word *e = w->eq + ((Py_ssize_t)w->eq_at[a] + v) * W;
            for (Py_ssize_t i = 0; i < W; i++)
                row[i] |= e[i];
        }
        w->below_of[d] = -1;
    } else {
        PyErr_SetString(PyExc_ValueError, "walk: a leaf with children");
        return -1;
    }
    w->rows[d] = src;
    const Py_ssize_t per = FAIL_LEVELS * W;
    word *next = w->levels + (d + 1) * per;
    tg_fold_into(w->levels + d * per, next, W, src);
    /* those failing none of the conditions so far are among those failing none before */
    w->span[2 * d + 2] = w->span[2 * d];
    w->span[2 * d + 3] = w->span[2 * d + 1];
    tg_span(next, w->n, &w->span[2 * d + 2], &w->span[2 * d + 3]);
    return 0;
}

/* walk_next(walk) -> None (no leaf left) or (leaf, k, count, error, leaves): the next
 * leaf whose path of k conditions gives a rule that is not an earlier one again
 * (SameRule's key: the class, then each kept condition's key), the count conditions
 * kept (their places on the path in Release 8's order into places, their tree edges
 * into edges), its pessimistic error rate and the leaves walked so far.  The rules are
 * numbered from 0 in the order given; a leaf repeating rule r raises r's rate only. */
PyObject *tg_walk_next(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule;
    if (!PyArg_ParseTuple(args, "O", &capsule))
        return NULL;
    Walk *w = PyCapsule_GetPointer(capsule, NAME);
    if (w == NULL)
        return NULL;
    while (w->top > 0) {
        const int32_t *s = w->stack + 3 * --w->top;
        const int32_t j = s[0], p = s[1], d = s[2];
        const int32_t child = w->kids[j];
        if (d >= w->D) {
            PyErr_SetString(PyExc_IndexError, "walk: a path deeper than its depth");
            return NULL;
        }
        if (follow_edge(w, p, j - w->kid_at[p], d) < 0)
            return NULL;
        w->edge[d] = j;
        if (w->kind[child] != TG_KIND_LEAF) {
            if (w->top + (w->kid_at[child + 1] - w->kid_at[child]) > w->cap) {
                PyErr_SetString(PyExc_IndexError, "walk: the stack is full");
                return NULL;
            }
            push_kids(w, child, d + 1);
            continue;
        }
        w->leaves++;
        const Py_ssize_t k = d + 1;
        const int32_t cls = w->cls[child];
        const word *wrong = w->wrong + (Py_ssize_t)w->wrong_at[cls] * w->W;
        const double pess = tg_prune_run(&w->bd, w->rows, wrong, w->levels + k * FAIL_LEVELS * w->W,
                                         k, w->n, w->default_err[cls], w->alive, w->tot,
                                         w->err, w->al, w->kept, w->list);
        if (pess < 0)
            continue;
        const Py_ssize_t count = tg_sort_places(w->orders, w->alive, k, w->places, w->done);
        w->key[0] = cls;
        for (Py_ssize_t i = 0; i < count; i++) {
            const int64_t e = w->edge[w->places[i]];
            w->edges[i] = e;
            w->key[i + 1] = w->ekey[e];
        }
        const Py_ssize_t same = tg_keys_add(&w->keys, w->key, count + 1, pess);
        if (same == -2)
            return NULL;
        if (same >= 0)
            continue;
        w->k = k;
        w->count = count;
        return Py_BuildValue("(inndn)", child, k, count, pess, w->leaves);
    }
    Py_RETURN_NONE;
}

/* walk_rows(walk, out[, order]) -> count: the cases of walk_next's last rule (those
 * satisfying every condition kept: tg_rows_of over the words of the span where a case
 * fails at most the dropped conditions), into out (int32, n); with order their rows. */
PyObject *tg_walk_rows(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule, *o[2] = {NULL, Py_None};
    if (!PyArg_ParseTuple(args, "OO|O", &capsule, &o[0], &o[1]))
        return NULL;
    Walk *w = PyCapsule_GetPointer(capsule, NAME);
    if (w == NULL)
        return NULL;
    const int nb = o[1] != Py_None ? 2 : 1;
    const tg_spec spec[2] = {
        {1, sizeof(int32_t), w->n, "out"},
        {0, sizeof(int32_t), w->n, "order"},
    };
    Py_buffer b[2];
    if (!tg_all_views(o, b, spec, nb))
        return NULL;
    const Py_ssize_t removed = w->k - w->count;
    const word *more = removed >= 0 && removed < FAIL_LEVELS
                           ? w->levels + (w->k * FAIL_LEVELS + removed) * w->W
                           : NULL;
    for (Py_ssize_t i = 0; i < w->count; i++)
        w->kept[i] = w->rows[w->places[i]];
    /* the rule's cases satisfy the path's conditions before the first one dropped: they
     * reach its node, and are within that depth's span */
    Py_ssize_t first = 0;
    while (first < w->k && w->alive[first])
        first++;
    const Py_ssize_t count =
        tg_rows_of(w->kept, w->count, w->n, more, w->span[2 * first], w->span[2 * first + 1],
                   nb == 2 ? b[1].buf : NULL, b[0].buf);
    tg_release(b, nb);
    return PyLong_FromSsize_t(count);
}

/* walk_errors(walk) -> bytes: each rule's error rate so far (float64, in walk_next's
 * order), the highest of the leaves that gave it. */
PyObject *tg_walk_errors(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule;
    if (!PyArg_ParseTuple(args, "O", &capsule))
        return NULL;
    const Walk *w = PyCapsule_GetPointer(capsule, NAME);
    if (w == NULL)
        return NULL;
    return PyBytes_FromStringAndSize((const char *)w->keys.err,
                                     w->keys.rules * (Py_ssize_t)sizeof(double));
}
