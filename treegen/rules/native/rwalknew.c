/* walk_new (module _crules): the C walk's state (rwalk.h) from the tree's shape and
 * the cases' packed bitsets, for rwalk.c's walk_next and walk_rows; and its release
 * with the capsule. */
#include "rwalk.h"

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
    tg_keys_free(&w->states);
    PyMem_Free(w->ids);
    PyMem_Free(w);
}

static void walk_destroy(PyObject *capsule)
{
    walk_free(PyCapsule_GetPointer(capsule, WALK_NAME));
}

/* walk_new(kind, attr, thr, kid_at, kids, ok, cls, ekey, xkey, sub_tab, sub_at, sub_n, eq,
 *          eq_at, cols, col_at, known, wrong, wrong_at, default_err, places, edges,
 *          n, depth, cap, log_cf, coeff, state_most) -> capsule.
 *
 * The tree (m nodes in pre-order): kind (int8), attr, kid_at (m + 1), kids (int32),
 * thr (float64: a cut), ok (uint8: a leaf with cases enough), cls (int32), ekey (int32
 * per edge: its test's SameRule key), xkey (int32 per edge: a number equal for two edges
 * exactly when their conditions are, side and branch too), a subset test's value ->
 * branch table (sub_tab at sub_at[p], sub_n[p] values).  eq: each nominal attribute's value sets (rows from
 * eq_at[a]); cols: the continuous columns (float32, n), col_at[a] the column and the
 * row of known; wrong: each class's cases of other classes (row wrong_at[c]);
 * default_err: each class's default error rate.  places, edges (int64, depth): where
 * walk_next writes a rule's conditions.  depth: the deepest leaf's; cap: the stack's
 * entries; state_most: the ints of PruneRule's states kept at most (rwalk.h). */
PyObject *tg_walk_new(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[B_N], *cols;
    Py_ssize_t n, D, cap, state_most;
    double log_cf, coeff;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOOOOOOnnnddn", &o[B_KIND], &o[B_ATTR], &o[B_THR],
                          &o[B_KID_AT], &o[B_KIDS], &o[B_OK], &o[B_CLS], &o[B_EKEY], &o[B_XKEY],
                          &o[B_SUB_TAB], &o[B_SUB_AT], &o[B_SUB_N], &o[B_EQ], &o[B_EQ_AT], &cols,
                          &o[B_COL_AT], &o[B_KNOWN], &o[B_WRONG], &o[B_WRONG_AT], &o[B_DEFAULT],
                          &o[B_PLACES], &o[B_EDGES], &n, &D, &cap, &log_cf, &coeff,
                          &state_most))
        return NULL;
    if (n < 0 || D < 0 || cap < 1 || state_most < 0 || !PyTuple_Check(cols)) {
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
        {0, sizeof(int32_t), edges, "xkey"},
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
    w->xkey = w->b[B_XKEY].buf;
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
    w->state_most = state_most;
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
    w->ids = PyMem_Calloc(d1, sizeof(int32_t));
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
        w->done == NULL || w->rows == NULL || w->kept == NULL || w->span == NULL ||
        w->ids == NULL) {
        walk_free(w);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t d = 0; d <= D; d++)
        w->below_of[d] = -1;
    w->span[1] = W; /* no conditions yet: every case fails none */
    if (w->kind[0] != TG_KIND_LEAF)
        tg_walk_push_kids(w, 0, 0);
    else
        w->leaves = 1; /* a path of no conditions: no rule */
    PyObject *capsule = PyCapsule_New(w, WALK_NAME, walk_destroy);
    if (capsule == NULL)
        walk_free(w);
    return capsule;
}
