/* The subset climb's theory-bit sums (rtheory.h) run on their own, for the tests that
 * hold them equal to numpy's float32 cumsum (module _crules). */
#include "rtheory.h"

/* theory_sums(bits32, chosen, toggles, out): from the subset chosen (m bytes, changed
 * in place), out[0] = the chosen bits summed in rule order as the climb keeps the sum,
 * and out[i + 1] the same after rule toggles[i] (int64) is toggled too. */
PyObject *tg_theory_sums(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[4];
    if (!PyArg_ParseTuple(args, "OOOO", &o[0], &o[1], &o[2], &o[3]))
        return NULL;
    const Py_ssize_t m = tg_items(o[0], sizeof(float));
    const Py_ssize_t k = tg_items(o[2], sizeof(int64_t));
    if (m < 0 || k < 0)
        return NULL;
    const tg_spec spec[4] = {
        {0, sizeof(float), m, "bits32"},
        {1, 1, m, "chosen"},
        {0, sizeof(int64_t), k, "toggles"},
        {1, sizeof(float), k + 1, "out"},
    };
    Py_buffer b[4];
    if (!tg_all_views(o, b, spec, 4))
        return NULL;
    const int64_t *toggles = b[2].buf;
    for (Py_ssize_t i = 0; i < k; i++)
        if (toggles[i] < 0 || toggles[i] >= m) {
            tg_release(b, 4);
            PyErr_SetString(PyExc_IndexError, "theory_sums: rule out of range");
            return NULL;
        }
    char *chosen = b[1].buf;
    float *out = b[3].buf;
    TheorySum t;
    memset(&t, 0, sizeof t);
    PyObject *result = NULL;
    if (ts_init(&t, b[0].buf, chosen, m) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    out[0] = ts_sum(&t);
    for (Py_ssize_t i = 0; i < k; i++) {
        chosen[toggles[i]] = !chosen[toggles[i]];
        ts_toggled(&t, (Py_ssize_t)toggles[i]);
        out[i + 1] = ts_sum(&t);
    }
    result = Py_None;
    Py_INCREF(result);
done:
    ts_free(&t);
    tg_release(b, 4);
    return result;
}
