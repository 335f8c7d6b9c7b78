/* Release 8's node steps that cost a dozen numpy calls each, in one call
 * (treegen/trainer/release8/grow.py): a node's class weights as the pairs a
 * SparseDist holds (r8_class_pairs), and the grouping of a segment by a
 * continuous test (r8_cont_front, r8_cont_sides).  With one class per row most
 * nodes hold a few cases, and the numpy calls cost more than their work. */
#include "r8order.h"
#include <stdlib.h>

static int cmp_index(const void *a, const void *b)
{
    const Py_ssize_t x = *(const Py_ssize_t *)a, y = *(const Py_ssize_t *)b;
    return (x > y) - (x < y);
}

/* r8_class_pairs(y, order, weight, fp, lp, acc, seen, cls) -> (best, weight, at, weights)
 *
 * cases.class_sums of positions fp..lp (per class present, its weights' float sum
 * in position order; acc, seen: one per class, zero, left zero; cls: scratch of
 * one index per class) and what grow.node_classes makes of them: the first class
 * of the largest sum and that sum, and the classes whose sum is not +0.0
 * (make_dist's present) ascending with their sums, as tuples of ints and floats.
 * None where that is no SparseDist: no case, a largest sum not above 0, or more
 * than a quarter of the classes present. */
PyObject *tg_r8_class_pairs(PyObject *self, PyObject *args)
{
    enum { NB = 6 };
    PyObject *o[NB];
    Py_ssize_t fp, lp;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOnnOOO", &o[0], &o[1], &o[2], &fp, &lp, &o[3], &o[4], &o[5]))
        return NULL;
    const Py_ssize_t n_y = tg_items(o[0], sizeof(Py_ssize_t));
    const Py_ssize_t n_order = n_y < 0 ? -1 : tg_items(o[1], sizeof(Py_ssize_t));
    const Py_ssize_t C = n_order < 0 ? -1 : tg_items(o[3], sizeof(float));
    if (C < 0)
        return NULL;
    const Py_ssize_t n = lp >= fp ? lp - fp + 1 : 0;
    if (fp < 0 || (n > 0 && lp >= n_order)) {
        PyErr_SetString(PyExc_IndexError, "r8_class_pairs: segment out of range");
        return NULL;
    }
    const tg_spec spec[NB] = {
        {0, sizeof(Py_ssize_t), n_y, "y"},       {0, sizeof(Py_ssize_t), n_order, "order"},
        {0, sizeof(float), n_order, "weight"},   {1, sizeof(float), C, "acc"},
        {1, 1, C, "seen"},                       {1, sizeof(Py_ssize_t), C, "cls"},
    };
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL, *at = NULL, *ws = NULL;
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const Py_ssize_t *y = b[0].buf, *order = b[1].buf;
        const float *weight = b[2].buf;
        float *acc = b[3].buf;
        unsigned char *seen = b[4].buf;
        Py_ssize_t *cls = b[5].buf;
        for (Py_ssize_t i = fp; i < fp + n; i++) {
            const Py_ssize_t r = order[i];
            if (r < 0 || r >= n_y || y[r] < 0 || y[r] >= C) {
                PyErr_SetString(PyExc_IndexError, "r8_class_pairs: row or class out of range");
                goto done;
            }
        }
        Py_ssize_t m = 0;
        for (Py_ssize_t i = fp; i < fp + n; i++) {
            const Py_ssize_t c = y[order[i]];
            if (!seen[c]) {
                seen[c] = 1;
                cls[m++] = c;
            }
            acc[c] += weight[i];
        }
        qsort(cls, (size_t)m, sizeof(Py_ssize_t), cmp_index);
        /* The first largest (numpy's argmax) and the sums that are not +0.0. */
        Py_ssize_t best = -1, k = 0;
        float top = 0;
        for (Py_ssize_t j = 0; j < m; j++) {
            const float v = acc[cls[j]];
            if (best < 0 || v > top) {
                best = cls[j];
                top = v;
            }
            k += v != 0 || signbit(v);
        }
        const int sparse = m > 0 && top > 0 && 4 * k <= C;
        if (sparse) {
            at = PyTuple_New(k);
            ws = PyTuple_New(k);
        }
        Py_ssize_t t = 0;
        for (Py_ssize_t j = 0; j < m; j++) {
            const float v = acc[cls[j]];
            acc[cls[j]] = 0;
            seen[cls[j]] = 0;
            if (at == NULL || ws == NULL || !(v != 0 || signbit(v)))
                continue;
            PyObject *c = PyLong_FromSsize_t(cls[j]), *f = PyFloat_FromDouble((double)v);
            if (c == NULL || f == NULL) {
                Py_XDECREF(c);
                Py_XDECREF(f);
                Py_CLEAR(at); /* the sums are cleared all the same */
                continue;
            }
            PyTuple_SET_ITEM(at, t, c);
            PyTuple_SET_ITEM(ws, t, f);
            t++;
        }
        if (!sparse)
            result = Py_NewRef(Py_None);
        else if (at != NULL && ws != NULL)
            result = Py_BuildValue("ndOO", best, (double)top, at, ws);
    }
done:
    Py_XDECREF(at);
    Py_XDECREF(ws);
    tg_release(b, got);
    return result;
}

/* Whether the case of value x takes branch v of a continuous test at thr
 * (grow.passes_branch): v = -1 the unknown value, 0 at most thr, 1 above it. */
static int takes(float x, float thr, int v)
{
    if (v < 0)
        return isnan(x);
    return v == 0 ? x <= thr : !(x <= thr) && !isnan(x);
}

/* r8_cont_front(col, thr, v, order, weight, fp, lp) -> how many
 *
 * cases.to_front(passes_branch(...)) for branch v of the test col <= thr (thr a
 * float): the cases of positions fp..lp that take it swapped to the front as
 * order.c's r8_front swaps them. */
PyObject *tg_r8_cont_front(PyObject *self, PyObject *args)
{
    PyObject *o[3];
    double thr;
    int v;
    Py_ssize_t fp, lp;
    (void)self;
    if (!PyArg_ParseTuple(args, "OdiOOnn", &o[0], &thr, &v, &o[1], &o[2], &fp, &lp))
        return NULL;
    const Py_ssize_t n_col = tg_items(o[0], sizeof(float));
    const Py_ssize_t n_order = n_col < 0 ? -1 : tg_items(o[1], sizeof(Py_ssize_t));
    if (n_order < 0)
        return NULL;
    const Py_ssize_t n = lp >= fp ? lp - fp + 1 : 0;
    if (fp < 0 || (n > 0 && lp >= n_order)) {
        PyErr_SetString(PyExc_IndexError, "r8_cont_front: segment out of range");
        return NULL;
    }
    const tg_spec spec[3] = {
        {0, sizeof(float), n_col, "col"},
        {1, sizeof(Py_ssize_t), n_order, "order"},
        {1, sizeof(float), n_order, "weight"},
    };
    Py_buffer b[3];
    int got = 0;
    PyObject *result = NULL;
    if ((got = tg_views(o, b, spec, 3)) < 3)
        goto done;
    {
        const float *col = b[0].buf, t = (float)thr;
        Py_ssize_t *order = (Py_ssize_t *)b[1].buf + fp;
        float *weight = (float *)b[2].buf + fp;
        for (Py_ssize_t i = 0; i < n; i++)
            if (order[i] < 0 || order[i] >= n_col) {
                PyErr_SetString(PyExc_IndexError, "r8_cont_front: row out of range");
                goto done;
            }
        Py_ssize_t k = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (takes(col[order[i]], t, v)) {
                r8_to_front(order, weight, k, i);
                k++;
            }
        result = PyLong_FromSsize_t(k);
    }
done:
    tg_release(b, got);
    return result;
}

/* r8_cont_sides(col, thr, order, fp, lp) -> (at most thr, above thr)
 *
 * How many cases of positions fp..lp take each branch of the test col <= thr. */
PyObject *tg_r8_cont_sides(PyObject *self, PyObject *args)
{
    PyObject *o[2];
    double thr;
    Py_ssize_t fp, lp;
    (void)self;
    if (!PyArg_ParseTuple(args, "OdOnn", &o[0], &thr, &o[1], &fp, &lp))
        return NULL;
    const Py_ssize_t n_col = tg_items(o[0], sizeof(float));
    const Py_ssize_t n_order = n_col < 0 ? -1 : tg_items(o[1], sizeof(Py_ssize_t));
    if (n_order < 0)
        return NULL;
    const Py_ssize_t n = lp >= fp ? lp - fp + 1 : 0;
    if (fp < 0 || (n > 0 && lp >= n_order)) {
        PyErr_SetString(PyExc_IndexError, "r8_cont_sides: segment out of range");
        return NULL;
    }
    const tg_spec spec[2] = {
        {0, sizeof(float), n_col, "col"},
        {0, sizeof(Py_ssize_t), n_order, "order"},
    };
    Py_buffer b[2];
    int got = 0;
    PyObject *result = NULL;
    if ((got = tg_views(o, b, spec, 2)) < 2)
        goto done;
    {
        const float *col = b[0].buf, t = (float)thr;
        const Py_ssize_t *order = (const Py_ssize_t *)b[1].buf + fp;
        Py_ssize_t below = 0, above = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (order[i] < 0 || order[i] >= n_col) {
                PyErr_SetString(PyExc_IndexError, "r8_cont_sides: row out of range");
                goto done;
            }
            const float x = col[order[i]];
            below += takes(x, t, 0);
            above += takes(x, t, 1);
        }
        result = Py_BuildValue("nn", below, above);
    }
done:
    tg_release(b, got);
    return result;
}
