/* c4.5rules' walk over the unpruned tree's paths (paths._candidates' loop), in C: each
 * tree edge's satisfied cases and their fold, each leaf's PruneRule, the kept
 * conditions' order and the rule's SameRule key, one call a new rule instead of
 * several a tree edge and a leaf (module _crules): a leaf repeating an earlier rule
 * only raises that rule's error rate (rkeys.c), read at the end by walk_errors, and a
 * leaf whose PruneRule reaches a state an earlier leaf's reached stops there (its rule
 * is that leaf's again, or none: the memo of rprune.h; at 100k rows 11,841 of 31,631
 * leaves, most of them after their first or second drop).
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

/* The walk on to the next leaf whose path of k conditions gives a rule that is not an
 * earlier one again (SameRule's key: the class, then each kept condition's key): 1 with
 * the leaf in *leaf and its pessimistic error rate in *pess, the count conditions kept
 * in w->count (their places on the path in Release 8's order into places, their tree
 * edges into edges); 0 when no leaf is left; -1 with an exception set.  The rules are
 * numbered from 0 in the order found; a leaf repeating rule r raises r's rate only. */
static int walk_step(Walk *w, int32_t *leaf, double *pess)
{
    while (w->top > 0) {
        const int32_t *s = w->stack + 3 * --w->top;
        const int32_t j = s[0], p = s[1], d = s[2];
        const int32_t child = w->kids[j];
        if (d >= w->D) {
            PyErr_SetString(PyExc_IndexError, "walk: a path deeper than its depth");
            return -1;
        }
        if (follow_edge(w, p, j - w->kid_at[p], d) < 0)
            return -1;
        w->edge[d] = j;
        w->ids[d] = w->xkey[j];
        if (w->kind[child] != TG_KIND_LEAF) {
            if (w->top + (w->kid_at[child + 1] - w->kid_at[child]) > w->cap) {
                PyErr_SetString(PyExc_IndexError, "walk: the stack is full");
                return -1;
            }
            tg_walk_push_kids(w, child, d + 1);
            continue;
        }
        w->leaves++;
        const Py_ssize_t k = d + 1;
        const int32_t cls = w->cls[child];
        const word *wrong = w->wrong + (Py_ssize_t)w->wrong_at[cls] * w->W;
        if (w->states.used > w->state_most) {
            tg_keys_clear(&w->states);
            w->clears++;
        }
        /* the memo's key is built in w->key, which the SameRule key below reuses */
        const Memo memo = {&w->states, w->ids, w->key, cls};
        int met = 0;
        const double rate = tg_prune_run(&w->bd, w->rows, wrong, w->levels + k * FAIL_LEVELS * w->W,
                                         k, w->n, w->default_err[cls], w->alive, w->tot,
                                         w->err, w->al, w->kept, w->list, &memo, &met);
        w->hits += met;
        if (rate < 0)
            continue;
        const Py_ssize_t count = tg_sort_places(w->orders, w->alive, k, w->places, w->done);
        w->key[0] = cls;
        for (Py_ssize_t i = 0; i < count; i++) {
            const int64_t e = w->edge[w->places[i]];
            w->edges[i] = e;
            w->key[i + 1] = w->ekey[e];
        }
        const Py_ssize_t same = tg_keys_add(&w->keys, w->key, count + 1, rate);
        if (same == -2)
            return -1;
        if (same >= 0)
            continue;
        w->k = k;
        w->count = count;
        *leaf = child;
        *pess = rate;
        return 1;
    }
    return 0;
}

/* The walk of a call's one argument, its capsule; or NULL with an exception set. */
static Walk *walk_arg(PyObject *args)
{
    PyObject *capsule;
    if (!PyArg_ParseTuple(args, "O", &capsule))
        return NULL;
    return PyCapsule_GetPointer(capsule, WALK_NAME);
}

/* walk_next(walk) -> None (no leaf left) or (leaf, k, count, error, leaves): walk_step's
 * next rule, its path's k conditions, the count kept, its error rate and the leaves
 * walked so far. */
PyObject *tg_walk_next(PyObject *self, PyObject *args)
{
    (void)self;
    Walk *w = walk_arg(args);
    if (w == NULL)
        return NULL;
    int32_t leaf;
    double pess;
    const int got = walk_step(w, &leaf, &pess);
    if (got < 0)
        return NULL;
    if (got == 0)
        Py_RETURN_NONE;
    return Py_BuildValue("(inndn)", leaf, w->k, w->count, pess, w->leaves);
}

/* The cases of walk_step's last rule (those satisfying every condition kept: tg_rows_of
 * over the words of the span where a case fails at most the dropped conditions), into
 * out (n int32s); with order (not NULL) their rows.  Their number. */
static Py_ssize_t rows_into(Walk *w, const int32_t *order, int32_t *out)
{
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
    return tg_rows_of(w->kept, w->count, w->n, more, w->span[2 * first], w->span[2 * first + 1],
                      order, out);
}

/* walk_rows(walk, out[, order]) -> count: rows_into of walk_next's last rule. */
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
    const Py_ssize_t count = rows_into(w, nb == 2 ? b[1].buf : NULL, b[0].buf);
    tg_release(b, nb);
    return PyLong_FromSsize_t(count);
}

/* The conditions of walk_step's last rule: made[e] of each kept edge e, or condition(e)
 * where that is None.  A new reference, or NULL with an exception set. */
static PyObject *conditions_of(const Walk *w, PyObject *made, PyObject *condition)
{
    PyObject *conds = PyTuple_New(w->count);
    if (conds == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < w->count; i++) {
        const int64_t e = w->edges[i];
        if (e < 0 || e >= PyList_GET_SIZE(made)) {
            PyErr_SetString(PyExc_IndexError, "walk_many: an edge past made");
            Py_DECREF(conds);
            return NULL;
        }
        PyObject *c = PyList_GET_ITEM(made, e);
        if (c == Py_None)
            c = PyObject_CallFunction(condition, "L", (long long)e);
        else
            Py_INCREF(c);
        if (c == NULL) {
            Py_DECREF(conds);
            return NULL;
        }
        PyTuple_SET_ITEM(conds, i, c);
    }
    return conds;
}

/* walk_many(walk, order, rows, marks, block, fill, most, pack_min, made, condition, info,
 *           errors) -> (rules, fill, leaves, pending, conds)
 * Up to len(errors) of walk_next's rules in one call, each rule's cases (rows_into, in
 * order's rows) sorted and packed into block (uint8) as pack_rows packs them, each at
 * the first multiple of 4 bytes from fill (the bytes used so far), most bytes at most.
 * Per rule: info[5 i .. 5 i + 4] (int64) its leaf, the leaf's class, its list's kind,
 * first byte and items, errors[i] its error rate, conds[i] its conditions (made[e] of
 * each kept edge e, or condition(e) where that is None).  A rule whose list does not
 * fit ends the call: its kind and items are -1, pending is its number of cases, left
 * sorted in rows[:pending] (else -1).  No rule left: rules 0.  fill: the bytes used
 * after the rules written; leaves: walked so far.  marks: W uint64, all zero, and left
 * so. */
PyObject *tg_walk_many(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule, *o[6], *made, *condition;
    Py_ssize_t fill, most, pack_min;
    if (!PyArg_ParseTuple(args, "OOOOOnnnO!OOO", &capsule, &o[0], &o[1], &o[2], &o[3], &fill,
                          &most, &pack_min, &PyList_Type, &made, &condition, &o[4], &o[5]))
        return NULL;
    Walk *w = PyCapsule_GetPointer(capsule, WALK_NAME);
    if (w == NULL)
        return NULL;
    const Py_ssize_t most_rules = tg_items(o[5], sizeof(double));
    if (most_rules < 0)
        return NULL;
    const tg_spec spec[6] = {
        {0, sizeof(int32_t), w->n, "order"},
        {1, sizeof(int32_t), w->n, "rows"},
        {1, sizeof(word), w->W, "marks"},
        {1, 1, 0, "block"},
        {1, sizeof(int64_t), 5 * most_rules, "info"},
        {1, sizeof(double), most_rules, "errors"},
    };
    Py_buffer b[6];
    if (!tg_all_views(o, b, spec, 6))
        return NULL;
    PyObject *conds = PyList_New(0), *result = NULL;
    int32_t *rows = b[1].buf;
    int64_t *info = b[4].buf;
    double *errors = b[5].buf;
    Py_ssize_t rules = 0, pending = -1;
    if (conds == NULL)
        goto done;
    while (rules < most_rules && pending < 0) {
        int32_t leaf;
        double pess;
        const int got = walk_step(w, &leaf, &pess);
        if (got < 0)
            goto done;
        if (got == 0)
            break;
        PyObject *c = conditions_of(w, made, condition);
        if (c == NULL || PyList_Append(conds, c) < 0) {
            Py_XDECREF(c);
            goto done;
        }
        Py_DECREF(c);
        const Py_ssize_t count = rows_into(w, b[0].buf, rows);
        const Py_ssize_t at = (fill + 3) & ~(Py_ssize_t)3;
        int kind;
        Py_ssize_t items;
        const int written = tg_pack_into(rows, count, b[2].buf, w->W, b[3].buf, b[3].len, at, most,
                                         pack_min, &kind, &items);
        if (written < 0)
            goto done;
        int64_t *r = info + 5 * rules;
        r[0] = leaf;
        r[1] = w->cls[leaf];
        r[2] = written ? kind : -1;
        r[3] = at;
        r[4] = written ? items : -1;
        errors[rules++] = pess;
        if (written)
            fill = at + items * tg_kind_item(kind);
        else
            pending = count;
    }
    result = Py_BuildValue("(nnnnO)", rules, fill, w->leaves, pending, conds);
done:
    Py_XDECREF(conds);
    tg_release(b, 6);
    return result;
}

/* walk_errors(walk) -> bytes: each rule's error rate so far (float64, in walk_next's
 * order), the highest of the leaves that gave it. */
PyObject *tg_walk_errors(PyObject *self, PyObject *args)
{
    (void)self;
    const Walk *w = walk_arg(args);
    if (w == NULL)
        return NULL;
    return PyBytes_FromStringAndSize((const char *)w->keys.err,
                                     w->keys.rules * (Py_ssize_t)sizeof(double));
}

/* walk_memo(walk) -> (hits, clears): the leaves whose PruneRule met an earlier leaf's
 * state (and stopped there: a repeat, or no rule again), and how often the memo was
 * emptied. */
PyObject *tg_walk_memo(PyObject *self, PyObject *args)
{
    (void)self;
    const Walk *w = walk_arg(args);
    if (w == NULL)
        return NULL;
    return Py_BuildValue("(nn)", w->hits, w->clears);
}
