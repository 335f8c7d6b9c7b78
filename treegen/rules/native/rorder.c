/* One level of rules/roworder.py's walk of the cases down the tree (module _crules).
 *
 * leaf_order follows every case from the root, a level at a time, until a leaf or a
 * test its value does not answer (an unknown value, a code no branch has) stops it.
 * In numpy a level was some thirty passes over the cases still going (the three kinds
 * of test worked out for all, masks, gathers), 0.05 s at 100k rows; here it is one,
 * the gather of each case's value left to the caller (its table may be the trainer's
 * context, rules/columns.py). */
#include "crules.h"

enum { O_X, O_ROWS, O_AT, O_END, O_KIND, O_CUT, O_KID_AT, O_KIDS, O_TABLE_AT, O_N_VALUES,
       O_VALUE_BRANCH, O_N };

/* leaf_step(x, rows, at, end, count, kind, cut, kid_at, kids, table_at, n_values,
 * value_branch) -> count: for each j < count, case rows[j] at node at[j] with value
 * x[j] (float64, NaN unknown) takes the branch roworder.leaf_order's numpy takes: a
 * threshold test's 0 (the value as float32 at most cut[node]) or 1 (above it), a
 * nominal test's the code when below the node's kids, a subset test's from its value
 * table (value_branch[table_at[node] + code] for a code below n_values[node]), none
 * for a leaf, an unknown value or any other code.  A case that takes a branch goes on
 * (rows and at compacted in place, at the child); one that does not ends at its node
 * (end[row] = node).  Returns how many go on.  Arrays: kind int8; cut float32;
 * kid_at, kids, table_at, n_values, value_branch, rows, at and end intp. */
PyObject *tg_leaf_step(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[O_N];
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "OOOOnOOOOOOO", &o[O_X], &o[O_ROWS], &o[O_AT], &o[O_END], &count,
                          &o[O_KIND], &o[O_CUT], &o[O_KID_AT], &o[O_KIDS], &o[O_TABLE_AT],
                          &o[O_N_VALUES], &o[O_VALUE_BRANCH]))
        return NULL;
    const Py_ssize_t m = tg_items(o[O_KIND], 1), n = tg_items(o[O_END], sizeof(Py_ssize_t)),
                     edges = tg_items(o[O_KIDS], sizeof(Py_ssize_t)),
                     table = tg_items(o[O_VALUE_BRANCH], sizeof(Py_ssize_t));
    if (m < 0 || n < 0 || edges < 0 || table < 0)
        return NULL;
    if (count < 0 || count > n) {
        PyErr_SetString(PyExc_ValueError, "leaf_step: count out of range");
        return NULL;
    }
    const tg_spec spec[O_N] = {
        {0, sizeof(double), count, "x"},
        {1, sizeof(Py_ssize_t), count, "rows"},
        {1, sizeof(Py_ssize_t), count, "at"},
        {1, sizeof(Py_ssize_t), n, "end"},
        {0, 1, m, "kind"},
        {0, sizeof(float), m, "cut"},
        {0, sizeof(Py_ssize_t), m + 1, "kid_at"},
        {0, sizeof(Py_ssize_t), edges, "kids"},
        {0, sizeof(Py_ssize_t), m, "table_at"},
        {0, sizeof(Py_ssize_t), m, "n_values"},
        {0, sizeof(Py_ssize_t), table, "value_branch"},
    };
    Py_buffer b[O_N];
    if (!tg_all_views(o, b, spec, O_N))
        return NULL;
    const double *x = b[O_X].buf;
    Py_ssize_t *rows = b[O_ROWS].buf, *at = b[O_AT].buf, *end = b[O_END].buf;
    const signed char *kind = b[O_KIND].buf;
    const float *cut = b[O_CUT].buf;
    const Py_ssize_t *kid_at = b[O_KID_AT].buf, *kids = b[O_KIDS].buf,
                     *table_at = b[O_TABLE_AT].buf, *n_values = b[O_N_VALUES].buf,
                     *value_branch = b[O_VALUE_BRANCH].buf;
    Py_ssize_t going = 0;
    const char *bad = NULL;
    for (Py_ssize_t j = 0; j < count; j++) {
        const Py_ssize_t node = at[j], row = rows[j];
        if (node < 0 || node >= m || row < 0 || row >= n) {
            bad = "leaf_step: a node or row out of range";
            break;
        }
        const double v = x[j];
        Py_ssize_t branch = -1;
        if (kind[node] == TG_KIND_CONTINUOUS) {
            const float f = (float)v, t = cut[node];
            branch = f <= t ? 0 : f > t ? 1 : -1; /* NaN: neither */
        } else if (kind[node] == TG_KIND_NOMINAL) {
            if (v >= 0 && v < (double)(kid_at[node + 1] - kid_at[node]))
                branch = (Py_ssize_t)v;
        } else if (kind[node] == TG_KIND_SUBSET) {
            if (v >= 0 && v < (double)n_values[node]) {
                const Py_ssize_t i = table_at[node] + (Py_ssize_t)v;
                if (i < 0 || i >= table) {
                    bad = "leaf_step: a value table out of range";
                    break;
                }
                branch = value_branch[i];
            }
        }
        if (branch < 0) {
            end[row] = node;
            continue;
        }
        const Py_ssize_t e = kid_at[node] + branch;
        if (e < 0 || e >= edges || branch >= kid_at[node + 1] - kid_at[node]) {
            bad = "leaf_step: a branch out of range";
            break;
        }
        rows[going] = row;
        at[going] = kids[e];
        going++;
    }
    tg_release(b, O_N);
    if (bad != NULL) {
        PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    return PyLong_FromSsize_t(going);
}

/* order_by_node(end, m, out): the rows sorted by end[row] (each in [0, m)), rows of
 * equal nodes in file order, into out (int32): np.argsort(end, kind="stable") by a
 * counting sort (the argsort was a fifth of leaf_order's time). */
PyObject *tg_order_by_node(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[2];
    Py_ssize_t m;
    if (!PyArg_ParseTuple(args, "OnO", &o[0], &m, &o[1]))
        return NULL;
    const Py_ssize_t n = tg_items(o[0], sizeof(Py_ssize_t));
    if (n < 0)
        return NULL;
    if (m < 0 || n > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "order_by_node: m or the rows out of range");
        return NULL;
    }
    const tg_spec spec[2] = {{0, sizeof(Py_ssize_t), n, "end"}, {1, sizeof(int32_t), n, "out"}};
    Py_buffer b[2];
    if (!tg_all_views(o, b, spec, 2))
        return NULL;
    const Py_ssize_t *end = b[0].buf;
    int32_t *out = b[1].buf;
    Py_ssize_t *next = PyMem_Calloc((size_t)m + 1, sizeof(Py_ssize_t));
    PyObject *result = NULL;
    if (next == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (end[i] < 0 || end[i] >= m) {
            PyErr_SetString(PyExc_ValueError, "order_by_node: a node out of range");
            goto done;
        }
        next[end[i] + 1]++;
    }
    for (Py_ssize_t v = 0; v < m; v++) /* each node's first place */
        next[v + 1] += next[v];
    for (Py_ssize_t i = 0; i < n; i++)
        out[next[end[i]]++] = (int32_t)i;
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(next);
    tg_release(b, 2);
    return result;
}
