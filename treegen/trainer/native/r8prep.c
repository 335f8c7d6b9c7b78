/* Release 8's continuous attributes at one node (c45), step one of two:
 * treegen/trainer/release8/segments.py drives them.
 *
 * r8_cont_prep does what release8/evaluate.py's _continuous does to the case
 * array for one attribute (the unknown values to the front, the known ones
 * sorted) and copies the sorted segment out; r8score.c's r8_cont_score then
 * scores every copied segment.  With one class per row most nodes hold a few
 * cases, and the numpy calls per node and attribute cost more than their work. */
#include "r8order.h"
#include "classset.h"
#include <stdlib.h>

/* r8_cont_prep(col, y, order, weight, fp, lp, all_known, two_m, acc, out_rows, out_w, off)
 *     -> (items, val0, length)
 *
 * _continuous for the attribute whose values (one per row, NaN unknown) are col:
 * items is CountItems(fp, lp) (the case count while all_known, else the float sum
 * of the weights in position order); the cases with an unknown value are swapped
 * to the front (order.c's r8_front) and val0 is their weight, summed per class in
 * position order and then over the classes in class order; if items - val0 is at
 * least two_m (compared in float) the known cases are sorted by Release 8's
 * quicksort (order.c's r8_sort; a segment already in order is left as it is).
 * The known cases' rows and weights are copied to out_rows, out_w from off.
 * acc: one float per class, zero, left zero. */
PyObject *tg_r8_cont_prep(PyObject *self, PyObject *args)
{
    enum { NB = 7 };
    PyObject *o[NB];
    Py_ssize_t fp, lp, off;
    int all_known;
    double two_m;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOnnpdOOOn", &o[0], &o[1], &o[2], &o[3], &fp, &lp, &all_known,
                          &two_m, &o[4], &o[5], &o[6], &off))
        return NULL;
    const Py_ssize_t n_col = tg_items(o[0], sizeof(float));
    const Py_ssize_t n_y = n_col < 0 ? -1 : tg_items(o[1], sizeof(Py_ssize_t));
    const Py_ssize_t n_order = n_y < 0 ? -1 : tg_items(o[2], sizeof(Py_ssize_t));
    const Py_ssize_t C = n_order < 0 ? -1 : tg_items(o[4], sizeof(float));
    const Py_ssize_t n_out = C < 0 ? -1 : tg_items(o[5], sizeof(Py_ssize_t));
    if (n_out < 0)
        return NULL;
    const Py_ssize_t n = lp >= fp ? lp - fp + 1 : 0;
    if (fp < 0 || (n > 0 && lp >= n_order) || off < 0 || off + n > n_out) {
        PyErr_SetString(PyExc_IndexError, "r8_cont_prep: segment out of range");
        return NULL;
    }
    const tg_spec spec[NB] = {
        {0, sizeof(float), n_col, "col"},
        {0, sizeof(Py_ssize_t), n_y, "y"},
        {1, sizeof(Py_ssize_t), n_order, "order"},
        {1, sizeof(float), n_order, "weight"},
        {1, sizeof(float), C, "acc"},
        {1, sizeof(Py_ssize_t), n_out, "out_rows"},
        {1, sizeof(float), n_out, "out_w"},
    };
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    int32_t *touched = NULL;
    Py_ssize_t *stack = NULL;
    float *v = NULL;
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const float *col = b[0].buf;
        const Py_ssize_t *y = b[1].buf;
        Py_ssize_t *order = (Py_ssize_t *)b[2].buf + fp;
        float *weight = (float *)b[3].buf + fp;
        float *acc = b[4].buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            const Py_ssize_t r = order[i];
            if (r < 0 || r >= n_col || r >= n_y || y[r] < 0 || y[r] >= C) {
                PyErr_SetString(PyExc_IndexError, "r8_cont_prep: row or class out of range");
                goto done;
            }
        }
        float items = 0;
        if (all_known)
            items = (float)n;
        else
            for (Py_ssize_t i = 0; i < n; i++)
                items += weight[i];
        /* The unknown values to the front (r8_front), their classes noted. */
        Py_ssize_t k = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (isnan(col[order[i]])) {
                r8_to_front(order, weight, k, i);
                k++;
            }
        float val0 = 0;
        if (k > 0) {
            touched = PyMem_Malloc((size_t)k * sizeof(int32_t));
            if (touched == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            /* Freq[0][c] in position order, then summed in class order (a cumsum
             * over every class: the classes without weight add +0). */
            for (Py_ssize_t i = 0; i < k; i++) {
                const int32_t c = (int32_t)y[order[i]];
                touched[i] = c;
                acc[c] += weight[i];
            }
            qsort(touched, (size_t)k, sizeof(int32_t), class_cmp);
            for (Py_ssize_t t = 0; t < k; t++)
                if (t == 0 || touched[t] != touched[t - 1]) {
                    val0 += acc[touched[t]];
                    acc[touched[t]] = 0;
                }
        }
        Py_ssize_t L = n - k;
        Py_ssize_t *korder = order + k;
        float *kweight = weight + k;
        int sorted = 1;
        for (Py_ssize_t i = 1; i < L && sorted; i++)
            sorted = col[korder[i]] >= col[korder[i - 1]];
        if ((float)(items - val0) >= (float)two_m && !sorted) {
            v = PyMem_Malloc((size_t)L * sizeof(float));
            stack = PyMem_Malloc((size_t)(2 * L + 2) * sizeof(Py_ssize_t));
            if (v == NULL || stack == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            for (Py_ssize_t i = 0; i < L; i++)
                v[i] = col[korder[i]];
            r8_quicksort(v, korder, kweight, L, stack);
        }
        memcpy((Py_ssize_t *)b[5].buf + off, korder, (size_t)L * sizeof(Py_ssize_t));
        memcpy((float *)b[6].buf + off, kweight, (size_t)L * sizeof(float));
        result = Py_BuildValue("ddn", (double)items, (double)val0, L);
    }
done:
    PyMem_Free(touched);
    PyMem_Free(stack);
    PyMem_Free(v);
    tg_release(b, got);
    return result;
}
