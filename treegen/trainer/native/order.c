/* Release 8's case order (module _cscan): the quicksort that orders a segment of
 * cases by a continuous value (treegen/trainer/release8/order.py, whose
 * _sort_python is the reference; tests/trainer/test_release8_order.py holds the two equal).
 *
 * r8_sort(values, perm): perm[i] = the input position of the case the sort puts
 * at position i.  The pivot is the segment's last value; a Lomuto pass moves
 * the values not above it to the front, a pass from the end gathers those equal
 * to it just below its place, and the two sides are sorted the same way.  The
 * sides are kept on an explicit stack (a sorted segment would recurse as deep
 * as it is long). */
#include "r8order.h"

PyObject *tg_r8_sort(PyObject *self, PyObject *args)
{
    PyObject *o[2];
    (void)self;
    if (!PyArg_ParseTuple(args, "OO", &o[0], &o[1]))
        return NULL;
    Py_buffer b[2];
    int got = 0;
    PyObject *result = NULL;
    float *v = NULL;
    Py_ssize_t *stack = NULL;
    const Py_ssize_t n = tg_items(o[0], sizeof(float));
    if (n < 0)
        return NULL;
    const tg_spec spec[2] = {
        {0, sizeof(float), n, "values"},
        {1, sizeof(Py_ssize_t), n, "perm"},
    };
    if ((got = tg_views(o, b, spec, 2)) < 2)
        goto done;
    {
        Py_ssize_t *perm = b[1].buf;
        v = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
        stack = PyMem_Malloc((size_t)(2 * n + 2) * sizeof(Py_ssize_t));
        if (v == NULL || stack == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(v, b[0].buf, (size_t)n * sizeof(float));
        for (Py_ssize_t i = 0; i < n; i++)
            perm[i] = i;
        r8_quicksort(v, perm, NULL, n, stack);
    }
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(v);
    PyMem_Free(stack);
    tg_release(b, got);
    return result;
}

/* r8_front(passes, order, weight, fp): Release 8's swap of the passing cases to
 * the front of the segment order[fp .. fp + len(passes) - 1] (and their weights),
 * in place: scanning the segment, each passing case is swapped with the first
 * case not yet moved (order.py's front, whose permutation this applies).
 * Returns the number of passing cases. */
PyObject *tg_r8_front(PyObject *self, PyObject *args)
{
    PyObject *o[3];
    Py_ssize_t fp;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOn", &o[0], &o[1], &o[2], &fp))
        return NULL;
    Py_buffer b[3];
    int got = 0;
    PyObject *result = NULL;
    const Py_ssize_t n = tg_items(o[0], 1), n_order = tg_items(o[1], sizeof(Py_ssize_t));
    if (n < 0 || n_order < 0)
        return NULL;
    if (fp < 0 || fp > n_order - n) {
        PyErr_SetString(PyExc_IndexError, "r8_front: segment out of range");
        return NULL;
    }
    const tg_spec spec[3] = {
        {0, 1, n, "passes"},
        {1, sizeof(Py_ssize_t), n_order, "order"},
        {1, sizeof(float), n_order, "weight"},
    };
    if ((got = tg_views(o, b, spec, 3)) < 3)
        goto done;
    {
        const unsigned char *passes = b[0].buf;
        Py_ssize_t *order = (Py_ssize_t *)b[1].buf + fp;
        float *weight = (float *)b[2].buf + fp;
        Py_ssize_t k = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (passes[i]) {
                r8_to_front(order, weight, k, i);
                k++;
            }
        result = PyLong_FromSsize_t(k);
    }
done:
    tg_release(b, got);
    return result;
}

/* weka_sort(keys, perm): J48's order of a node's cases by a continuous value (Weka's
 * Utils.sortWithNoMissingValues, for treegen/trainer/j48order.py, whose _sort_python
 * is the reference; tests/trainer/test_j48order.py holds the two equal and both to
 * Weka's).  perm[i] = the position in keys of the case the sort puts at position i.
 * A median-of-three quicksort on the index array: segments of 1-3 cases are ordered
 * by conditional swaps; longer ones put the median of the first, middle and last at
 * the last but one place and partition around it, scanning from both ends. */
static void cswap_w(const double *a, Py_ssize_t *idx, Py_ssize_t i, Py_ssize_t j)
{
    if (a[idx[i]] > a[idx[j]]) {
        const Py_ssize_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

static void swap_w(Py_ssize_t *idx, Py_ssize_t i, Py_ssize_t j)
{
    const Py_ssize_t t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
}

PyObject *tg_weka_sort(PyObject *self, PyObject *args)
{
    PyObject *o[2];
    (void)self;
    if (!PyArg_ParseTuple(args, "OO", &o[0], &o[1]))
        return NULL;
    Py_buffer b[2];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t *stack = NULL;
    const Py_ssize_t n = tg_items(o[0], sizeof(double));
    if (n < 0)
        return NULL;
    const tg_spec spec[2] = {
        {0, sizeof(double), n, "keys"},
        {1, sizeof(Py_ssize_t), n, "perm"},
    };
    if ((got = tg_views(o, b, spec, 2)) < 2)
        goto done;
    {
        const double *a = b[0].buf;
        Py_ssize_t *idx = b[1].buf;
        stack = PyMem_Malloc((size_t)(2 * n + 2) * sizeof(Py_ssize_t));
        if (stack == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            idx[i] = i;
        Py_ssize_t top = 0;
        if (n > 1) {
            stack[top++] = 0;
            stack[top++] = n - 1;
        }
        while (top > 0) {
            const Py_ssize_t hi = stack[--top], lo = stack[--top];
            const Py_ssize_t d = hi - lo;
            if (d <= 0)
                continue;
            if (d == 1) {
                cswap_w(a, idx, lo, hi);
                continue;
            }
            if (d == 2) {
                cswap_w(a, idx, lo, lo + 1);
                cswap_w(a, idx, lo, hi);
                cswap_w(a, idx, lo + 1, hi);
                continue;
            }
            const Py_ssize_t mid = (lo + hi) / 2;
            cswap_w(a, idx, lo, mid);
            cswap_w(a, idx, lo, hi);
            cswap_w(a, idx, mid, hi);
            swap_w(idx, mid, hi - 1);
            const double pivot = a[idx[hi - 1]];
            Py_ssize_t i = lo, j = hi - 1;
            for (;;) {
                while (a[idx[++i]] < pivot)
                    ;
                while (a[idx[--j]] > pivot)
                    ;
                if (i >= j)
                    break;
                swap_w(idx, i, j);
            }
            swap_w(idx, i, hi - 1);
            /* Each side holds fewer cases than the segment: at most n pairs wait. */
            stack[top++] = lo;
            stack[top++] = i - 1;
            stack[top++] = i + 1;
            stack[top++] = hi;
        }
    }
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(stack);
    tg_release(b, got);
    return result;
}
