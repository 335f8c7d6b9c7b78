/* c4.5rules' walk over the unpruned tree's paths (paths._candidates' loop), in C: each
 * tree edge's satisfied cases and their fold, each leaf's PruneRule, the kept
 * conditions' order and the rule's SameRule key, one call a new rule instead of
 * several a tree edge and a leaf (module _crules): a leaf repeating an earlier rule
 * only raises that rule's error rate (rkeys.c), read at the end by walk_errors.
 *
 * walk_new (rwalknew.c) takes the tree's shape, what every edge's satisfied cases are
 * made of (each nominal attribute's value sets, each continuous attribute's float32
 * column in the cases' order and its known cases) and each class's cases of other
 * classes, all as packed bitsets of W = ceil(n / 64) words; it returns a capsule
 * holding views of them and the walk's own state (rwalk.h: the path's satisfied-case
 * rows, the levels of their failures, and a depth-first stack).  walk_next goes on to
 * the next leaf whose path gives a rule; walk_rows gives that rule's cases.  The walk
 * meets the leaves in the order of paths.shape_tests, and each step is one of
 * rpaths.c's and rfold.c's loops (tg_fold_into, tg_pack_le_row, tg_prune_run,
 * tg_sort_places, tg_rows_of), which its kernels give to the tests one by one; the
 * rules are those of the Python loop (paths._prune). */
#include "rwalk.h"

/* Push node p's children that the walk visits (not a leaf without cases enough), last
 * branch first: they pop in branch order, as paths.shape_tests yields them. */
void tg_walk_push_kids(Walk *w, int32_t p, int32_t depth)
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
    Walk *w = PyCapsule_GetPointer(capsule, WALK_NAME);
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
            tg_walk_push_kids(w, child, d + 1);
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
    Walk *w = PyCapsule_GetPointer(capsule, WALK_NAME);
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
    const Walk *w = PyCapsule_GetPointer(capsule, WALK_NAME);
    if (w == NULL)
        return NULL;
    return PyBytes_FromStringAndSize((const char *)w->keys.err,
                                     w->keys.rules * (Py_ssize_t)sizeof(double));
}
