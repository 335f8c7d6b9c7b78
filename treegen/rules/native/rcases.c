/* The subset search's cases numbered for locality (module _crules).
 *
 * A toggle reads, for each case of the toggled rule, the case's coverage, chosen-rule
 * XOR and class, and where the coverage goes between 0 and 1 the case's list of rules:
 * in the file's row order a rule's cases are spread over all n rows, and at 1M rows
 * nearly every one of those reads misses the caches.  Numbered in the order the rules
 * first reach them (rule by rule, each rule's cases in its order), the cases a rule
 * shares with the rules near it in rule order sit together.  The search reads cases
 * only through these per-case arrays and counts, which no numbering changes. */
#include "crules.h"

/* number_cases(rule_ptr, rule_cases, positive, order, positive_out): rule_cases (int32)
 * renumbered in place; order[k] (int32, n) the file row of case k; positive_out (n
 * bytes) positive in the new numbering.  The cases no rule reaches come last, in row
 * order. */
PyObject *tg_number_cases(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &o[0], &o[1], &o[2], &o[3], &o[4]))
        return NULL;
    const Py_ssize_t m1 = tg_items(o[0], sizeof(int64_t));
    const Py_ssize_t total = tg_items(o[1], sizeof(int32_t));
    const Py_ssize_t n = tg_items(o[2], 1);
    if (m1 < 1 || total < 0 || n < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "number_cases: empty rule_ptr");
        return NULL;
    }
    const tg_spec spec[5] = {
        {0, sizeof(int64_t), m1, "rule_ptr"}, {1, sizeof(int32_t), total, "rule_cases"},
        {0, 1, n, "positive"},                {1, sizeof(int32_t), n, "order"},
        {1, 1, n, "positive_out"},
    };
    Py_buffer b[5];
    if (!tg_all_views(o, b, spec, 5))
        return NULL;
    const int64_t *rule_ptr = b[0].buf;
    int32_t *rule_cases = b[1].buf, *order = b[3].buf;
    const char *positive = b[2].buf;
    char *positive_out = b[4].buf;
    PyObject *result = NULL;
    int32_t *rank = NULL;
    if (rule_ptr[0] != 0 || rule_ptr[m1 - 1] != total) {
        PyErr_SetString(PyExc_ValueError, "number_cases: rule_ptr does not span rule_cases");
        goto done;
    }
    for (Py_ssize_t p = 0; p < total; p++)
        if (rule_cases[p] < 0 || rule_cases[p] >= n) {
            PyErr_SetString(PyExc_IndexError, "number_cases: case out of range");
            goto done;
        }
    rank = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    if (rank == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t c = 0; c < n; c++)
        rank[c] = -1;
    int32_t next = 0;
    for (Py_ssize_t p = 0; p < total; p++) {
        const int32_t c = rule_cases[p];
        if (rank[c] < 0) {
            rank[c] = next;
            order[next++] = c;
        }
        rule_cases[p] = rank[c];
    }
    for (Py_ssize_t c = 0; c < n; c++)
        if (rank[c] < 0) {
            rank[c] = next;
            order[next++] = (int32_t)c;
        }
    for (Py_ssize_t k = 0; k < n; k++)
        positive_out[k] = positive[order[k]];
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(rank);
    tg_release(b, 5);
    return result;
}
